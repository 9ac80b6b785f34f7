"""A tool's `inputSchema` (and a result's `outputSchema`) from Python type hints.

Every hint becomes the JSON Schema a client can rely on, and the core then
holds each call's arguments to it:

| hint | schema |
| --- | --- |
| `int`, `float`, `str`, `bool`, `None` | `integer`, `number`, `string`, `boolean`, `null` |
| `list[X]`, `tuple[X, ...]`, `set[X]` | `array` of X (`uniqueItems` for a set) |
| `tuple[X, Y]` | `array` with `prefixItems`, exactly that long |
| `dict[str, X]` | `object` with `additionalProperties` X |
| `Optional[X]`, `X \\| None`, `Union[X, Y]` | `anyOf` (X or null; X or Y) |
| `Literal["a", 1]` | `enum` |
| an `enum.Enum` | `enum` of its values |
| a `TypedDict`, a dataclass | `object` with its members (required as declared), no others |
| `Annotated[X, "text"]` | X with that `description` |
| `Any`, no hint | `{}` (anything) |

A parameter's default becomes the schema's `default` where it is JSON.
A hint with no JSON meaning (a class of one's own, a callable) raises
`TypeError` naming the parameter, when the tool is registered, not when
it is called.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import inspect
import json
import sys
import types
import typing
from typing import Any, Callable, Optional, Union

_SCALARS: dict[Any, str] = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null"}
_NAMED_SCALARS = {"int": int, "float": float, "str": str, "bool": bool, "None": type(None)}


def schema_of(hint: Any, where: str) -> dict[str, Any]:
    """The JSON Schema of one type hint; `where` names it in errors."""
    if hint is inspect.Parameter.empty or hint is Any or hint is object:
        return {}
    if isinstance(hint, str):
        resolved = _NAMED_SCALARS.get(hint)
        if resolved is None:
            raise TypeError(f"{where}: the hint {hint!r} is a string wirekit cannot resolve; import the type it names")
        hint = resolved
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    origin = typing.get_origin(hint)
    arguments = typing.get_args(hint)
    schema: dict[str, Any]
    if origin is typing.Annotated:
        schema = schema_of(arguments[0], where)
        for extra in arguments[1:]:
            if isinstance(extra, str):
                schema = {**schema, "description": extra}
        return schema
    if origin is Union or (sys.version_info >= (3, 10) and origin is types.UnionType):
        return _union(arguments, where)
    if origin is typing.Literal:
        return {"enum": list(arguments)}
    if hint in (list, set, frozenset) or origin in (list, set, frozenset, collections.abc.Sequence, collections.abc.Set):
        schema = {"type": "array"}
        if arguments:
            schema["items"] = schema_of(arguments[0], f"{where}[]")
        if hint in (set, frozenset) or origin in (set, frozenset, collections.abc.Set):
            schema["uniqueItems"] = True
        return schema
    if hint is tuple or origin is tuple:
        if not arguments:
            return {"type": "array"}
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return {"type": "array", "items": schema_of(arguments[0], f"{where}[]")}
        return {
            "type": "array",
            "prefixItems": [schema_of(a, f"{where}[{i}]") for i, a in enumerate(arguments)],
            "minItems": len(arguments),
            "maxItems": len(arguments),
        }
    if hint is dict or origin in (dict, collections.abc.Mapping):
        schema = {"type": "object"}
        if arguments:
            if arguments[0] is not str:
                raise TypeError(f"{where}: JSON object keys are strings, not {arguments[0]!r}")
            schema["additionalProperties"] = schema_of(arguments[1], f"{where}{{}}")
        return schema
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return {"enum": [member.value for member in hint]}
    if _is_typed_dict(hint):
        return _typed_dict(hint, where)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _dataclass(hint, where)
    raise TypeError(
        f"{where}: the hint {hint!r} has no JSON Schema wirekit knows; use JSON types, a TypedDict or "
        "a dataclass, or pass input_schema="
    )


def _is_typed_dict(hint: Any) -> bool:
    """A TypedDict class (`typing.is_typeddict` is Python 3.10+)."""
    return isinstance(hint, type) and issubclass(hint, dict) and hasattr(hint, "__total__")


def _union(arguments: tuple[Any, ...], where: str) -> dict[str, Any]:
    parts = [schema_of(a, where) for a in arguments]
    if any(part == {} for part in parts):
        return {}
    return {"anyOf": parts}


def _typed_dict(hint: Any, where: str) -> dict[str, Any]:
    hints = typing.get_type_hints(hint, include_extras=True)
    required = sorted(getattr(hint, "__required_keys__", frozenset(hints)))
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {name: schema_of(h, f"{where}.{name}") for name, h in hints.items()},
        "additionalProperties": False,
    }
    if required:
        schema["required"] = [name for name in hints if name in required]
    return schema


def _dataclass(hint: type, where: str) -> dict[str, Any]:
    hints = typing.get_type_hints(hint, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for member in dataclasses.fields(hint):
        properties[member.name] = schema_of(hints.get(member.name, Any), f"{where}.{member.name}")
        if member.default is dataclasses.MISSING and member.default_factory is dataclasses.MISSING:
            required.append(member.name)
        elif member.default is not dataclasses.MISSING and _is_json(member.default):
            properties[member.name]["default"] = member.default
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def parameters_schema(handler: Callable[..., Any], parameters: list[inspect.Parameter]) -> dict[str, Any]:
    """The object schema of a handler's named parameters: each one's hint,
    required when it has no default."""
    try:
        hints = typing.get_type_hints(handler, include_extras=True)
    except Exception:  # noqa: BLE001 - an unresolvable hint falls back to the raw annotation
        hints = {}
    name = getattr(handler, "__name__", "handler")
    properties: dict[str, Any] = {}
    required: list[str] = []
    for p in parameters:
        schema = dict(schema_of(hints.get(p.name, p.annotation), f"{name}({p.name})"))
        if p.default is p.empty:
            required.append(p.name)
        elif _is_json(p.default) and p.default is not None:
            schema["default"] = p.default
        properties[p.name] = schema
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    return result


def return_schema(handler: Callable[..., Any], skip: tuple[type, ...] = ()) -> Optional[dict[str, Any]]:
    """The `outputSchema` a return hint gives: a TypedDict's or a
    dataclass's object schema; None for any other hint (MCP's output
    schemas describe objects) and for the classes in `skip` (content)."""
    try:
        hint = typing.get_type_hints(handler, include_extras=True).get("return")
    except Exception:  # noqa: BLE001
        return None
    if hint is not None and typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    if isinstance(hint, type) and issubclass(hint, skip):
        return None
    if hint is not None and (_is_typed_dict(hint) or (dataclasses.is_dataclass(hint) and isinstance(hint, type))):
        return schema_of(hint, f"{getattr(handler, '__name__', 'handler')} -> return")
    return None
