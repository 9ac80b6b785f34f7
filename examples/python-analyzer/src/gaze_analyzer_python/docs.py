"""Documentation of public symbols, and classification signals read from
docstrings and annotations."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Optional, Union

from .effects import side_effects
from .project import Function, SourceFile

Documentable = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]


@dataclass(frozen=True)
class Symbol:
    name: str
    package: str
    file: str
    line: int
    kind: str
    docstring: Optional[str]


def is_public(name: str) -> bool:
    return not name.startswith("_")


def public_symbols(source: SourceFile) -> Iterator[Symbol]:
    """Public functions and classes of a module, and public methods of its public classes."""

    def symbol(node: Documentable, name: str, kind: str) -> Symbol:
        return Symbol(name, source.package, source.relative, node.lineno, kind, ast.get_docstring(node))

    for node in source.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_public(node.name):
            yield symbol(node, node.name, "function")
        elif isinstance(node, ast.ClassDef) and is_public(node.name):
            yield symbol(node, node.name, "class")
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_public(item.name):
                    yield symbol(item, f"{node.name}.{item.name}", "method")


def snippet(docstring: str) -> str:
    """The first line of a docstring, at most 120 characters."""
    first = docstring.strip().splitlines()[0] if docstring.strip() else ""
    return first if len(first) <= 120 else first[:117] + "..."


@dataclass(frozen=True)
class Signal:
    function: Function
    side_effect_type: str
    source: str
    weight: int
    reasoning: str


def signals(function: Function, effects: Optional[Sequence[Mapping[str, object]]] = None) -> Iterator[Signal]:
    """A docstring naming a raised exception marks the ErrorReturn contractual;
    a return annotation, or a docstring that speaks of returning, marks the
    ReturnValue contractual."""
    node = function.node
    docstring = ast.get_docstring(node) or ""
    lowered = docstring.lower()
    for effect in side_effects(function) if effects is None else effects:
        kind, target = str(effect["type"]), str(effect["target"])
        if kind == "ErrorReturn" and target.rsplit(".", 1)[-1] in docstring:
            yield Signal(function, kind, "docstring", 15, f"docstring mentions {target.rsplit('.', 1)[-1]}")
        elif kind == "ReturnValue":
            if node.returns is not None:
                yield Signal(function, kind, "type_annotation", 10,
                             f"return annotated as {ast.unparse(node.returns)}")
            elif "return" in lowered:
                yield Signal(function, kind, "docstring", 10, "docstring describes the return value")
    for decorator in node.decorator_list:
        name = ast.unparse(decorator)
        if name in ("property", "functools.cached_property", "cached_property"):
            yield Signal(function, "ReturnValue", "decorator", 10, f"@{name} exposes the return value")
