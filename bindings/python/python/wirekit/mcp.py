"""MCP servers (stdio transport) in a few lines.

>>> from wirekit.mcp import Server
>>> server = Server("adder", "0.1.0")
>>> @server.tool()
... def add(a: int, b: int) -> int:
...     "Adds two integers."
...     return a + b
>>> # server.run() serves stdin/stdout until the client closes stdin

`initialize` is answered as the MCP specification says: the client's
`protocolVersion` when the server supports it, else the latest it supports;
the capabilities declare `tools`, `resources` and `prompts` (objects, as the
schema wants) exactly when something of the kind is registered. `ping`
answers `{}`. `tools/list`, `tools/call`, `resources/list`,
`resources/read`, `prompts/list` and `prompts/get` are answered from what
was registered; a tool that raises answers a result with `isError: true`
(the model sees its message), an unknown tool, prompt or resource a
JSON-RPC error (-32602, or -32002 for a resource). Framing (one line a
message), envelopes, the lifecycle, params and result validation against
the official schema are done by the Rust core.

A tool's input schema comes from its signature (`int` → integer, `float`
→ number, `str` → string, `bool` → boolean, `list` → array, `dict` →
object; a parameter without a default is required) unless `input_schema`
is given; the handler is called with the arguments as keyword arguments.
A parameter annotated `wirekit.Context` is no argument: it gets the call's
context (`cancelled`, `progress`, `notify`, `request` to the client), and
an `async def` tool is awaited on the service's asyncio loop. Tools run
side by side (`concurrency`, 16 by default), so a `ping` is answered while
a slow tool runs. It returns a `str` (one text content), a `dict` holding `content` (the
whole `CallToolResult`), or any other JSON value (its JSON as text, and as
`structuredContent` when it is an object).
"""

from __future__ import annotations

import inspect
import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, TypeVar, Union

from ._native import embedded_protocols
from .errors import RpcError
from ._concurrency import is_context
from ._native import Context
from .service import DEFAULT_CONCURRENCY, ResultCheck, Service

__all__ = ["Server", "supported_versions", "negotiate"]

F = TypeVar("F", bound=Callable[..., Any])

INVALID_PARAMS = -32602
RESOURCE_NOT_FOUND = -32002

_JSON_TYPES: dict[Any, str] = {
    int: "integer", float: "number", str: "string", bool: "boolean", list: "array", dict: "object",
    "int": "integer", "float": "number", "str": "string", "bool": "boolean", "list": "array", "dict": "object",
}


def supported_versions(up_to: Optional[str] = None) -> list[str]:
    """The MCP versions wirekit ships (each `schemas/mcp/<version>`), newest
    first; with `up_to`, only those not newer (dates compare as text)."""
    versions = sorted(
        (p.split("@", 1)[1] for p in embedded_protocols() if p.startswith("mcp@")), reverse=True
    )
    return [v for v in versions if up_to is None or v <= up_to]


def negotiate(requested: Any, supported: list[str]) -> str:
    """The version to answer `initialize` with: the client's when supported,
    else the latest supported (the specification's rule)."""
    return requested if isinstance(requested, str) and requested in supported else supported[0]


def _context_parameter(handler: Callable[..., Any]) -> Optional[str]:
    """The name of the handler's parameter annotated `wirekit.Context`, if
    any: it gets the request's context, and is no argument a client names."""
    for p in inspect.signature(handler).parameters.values():
        if is_context(p):
            return p.name
    return None


def _named_parameters(handler: Callable[..., Any]) -> list[inspect.Parameter]:
    """The handler's parameters a client names (not `*args`, `**kwargs`, nor the context)."""
    return [
        p
        for p in inspect.signature(handler).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and not is_context(p)
    ]


def _listing(handler: Callable[..., Any], description: Optional[str], **members: Any) -> dict[str, Any]:
    """A listing's members, with the description given or the handler's
    docstring (none when it has neither)."""
    text = description or inspect.getdoc(handler)
    return {**members, "description": text} if text else members


def _input_schema(handler: Callable[..., Any]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for p in _named_parameters(handler):
        name = p.name
        kind = _JSON_TYPES.get(p.annotation)
        properties[name] = {"type": kind} if kind else {}
        if p.default is p.empty:
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


@dataclass
class _Entry:
    handler: Callable[..., Any]
    listing: dict[str, Any] = field(default_factory=dict)


class Server(Service):
    """An MCP server: tools, resources and prompts, then `run()`."""

    def __init__(
        self,
        name: str,
        version: str,
        *,
        protocol_version: Optional[str] = None,
        instructions: Optional[str] = None,
        result_check: ResultCheck = "reject",
        schemas: Union[str, "os.PathLike[str]", None] = None,
        concurrency: Optional[int] = DEFAULT_CONCURRENCY,
    ) -> None:
        # `concurrency`: tools run side by side on the core's concurrent loop
        # (MCP: a ping is answered promptly while a tool runs; a cancelled
        # call's tool sees `context.cancelled`); None serves one at a time.
        # `protocol_version`: the folder whose schemas check every message
        # (the newest shipped by default); the server also accepts the
        # older versions wirekit ships.
        self.versions = supported_versions(protocol_version)
        if not self.versions:
            raise ValueError(f"wirekit ships no MCP version up to {protocol_version!r}")
        super().__init__(
            f"mcp@{self.versions[0]}", result_check=result_check, schemas=schemas, concurrency=concurrency
        )
        self.info: dict[str, Any] = {"name": name, "version": version}
        self.instructions = instructions
        self._tools: dict[str, _Entry] = {}
        self._resources: dict[str, _Entry] = {}
        self._prompts: dict[str, _Entry] = {}

    def tool(
        self,
        name: Optional[str] = None,
        *,
        description: Optional[str] = None,
        input_schema: Optional[dict[str, Any]] = None,
    ) -> Callable[[F], F]:
        """Registers a tool (a decorator); see the module's documentation."""

        def register(handler: F) -> F:
            listing = _listing(
                handler,
                description,
                name=name or handler.__name__,
                inputSchema=input_schema or _input_schema(handler),
            )
            self._tools[listing["name"]] = _Entry(handler, listing)
            return handler

        return register

    def resource(
        self, uri: str, *, name: Optional[str] = None, mime_type: str = "text/plain"
    ) -> Callable[[F], F]:
        """Registers a resource read by calling the handler (no arguments;
        it returns the text)."""

        def register(handler: F) -> F:
            listing = {"uri": uri, "name": name or handler.__name__, "mimeType": mime_type}
            self._resources[uri] = _Entry(handler, listing)
            return handler

        return register

    def prompt(self, name: Optional[str] = None, *, description: Optional[str] = None) -> Callable[[F], F]:
        """Registers a prompt; its arguments are the handler's parameters,
        and it returns the text of one user message."""

        def register(handler: F) -> F:
            arguments = [
                {"name": p.name, "required": p.default is p.empty} for p in _named_parameters(handler)
            ]
            listing = _listing(handler, description, name=name or handler.__name__, arguments=arguments)
            self._prompts[listing["name"]] = _Entry(handler, listing)
            return handler

        return register

    def capabilities(self) -> dict[str, Any]:
        """What is registered, as the schema's `ServerCapabilities` (objects)."""
        declared: dict[str, Any] = {}
        if self._tools:
            declared["tools"] = {"listChanged": False}
        if self._resources:
            declared["resources"] = {"subscribe": False, "listChanged": False}
        if self._prompts:
            declared["prompts"] = {"listChanged": False}
        return declared

    def _initialize(self, params: Any) -> dict[str, Any]:
        result: dict[str, Any] = {
            "protocolVersion": negotiate(params.get("protocolVersion"), self.versions),
            "capabilities": self.capabilities(),
            "serverInfo": self.info,
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def _call_tool(self, params: Any, context: Optional[Context] = None) -> dict[str, Any]:
        entry = self._tools.get(params["name"])
        if entry is None:
            raise RpcError(f"Unknown tool: {params['name']}", code=INVALID_PARAMS)
        arguments = dict(params.get("arguments") or {})
        context_name = _context_parameter(entry.handler)
        if context_name is not None:
            arguments[context_name] = context
        try:
            value = entry.handler(**arguments)
            if inspect.isawaitable(value):
                value = self._events.run(value, context, self._cancelled_code())
        except RpcError:
            raise
        except Exception as exc:  # noqa: BLE001 - a tool's failure is its result
            return {"content": [{"type": "text", "text": str(exc) or type(exc).__name__}], "isError": True}
        if isinstance(value, str):
            return {"content": [{"type": "text", "text": value}], "isError": False}
        if isinstance(value, dict) and "content" in value:
            return value
        result: dict[str, Any] = {"content": [{"type": "text", "text": json.dumps(value)}], "isError": False}
        if isinstance(value, dict):
            result["structuredContent"] = value
        return result

    def _call_tool_with_context(self, params: Any, context: Context) -> dict[str, Any]:
        return self._call_tool(params, context)

    def _read_resource(self, params: Any) -> dict[str, Any]:
        entry = self._resources.get(params["uri"])
        if entry is None:
            raise RpcError("Resource not found", code=RESOURCE_NOT_FOUND, data={"uri": params["uri"]})
        text = entry.handler()
        return {"contents": [{"uri": params["uri"], "mimeType": entry.listing["mimeType"], "text": text}]}

    def _get_prompt(self, params: Any) -> dict[str, Any]:
        entry = self._prompts.get(params["name"])
        if entry is None:
            raise RpcError(f"Unknown prompt: {params['name']}", code=INVALID_PARAMS)
        try:
            text = entry.handler(**(params.get("arguments") or {}))
        except TypeError as exc:
            raise RpcError(f"Invalid arguments for prompt {params['name']}: {exc}", code=INVALID_PARAMS) from exc
        return {"messages": [{"role": "user", "content": {"type": "text", "text": str(text)}}]}

    def _handlers(self) -> dict[str, Callable[[Any], Any]]:
        handlers = super()._handlers()
        handlers.setdefault("initialize", self._initialize)
        handlers.setdefault("ping", lambda params: {})
        if self._tools:
            handlers.setdefault("tools/list", lambda params: {"tools": [e.listing for e in self._tools.values()]})
            handlers.setdefault("tools/call", self._call_tool_with_context)
        if self._resources:
            handlers.setdefault(
                "resources/list", lambda params: {"resources": [e.listing for e in self._resources.values()]}
            )
            handlers.setdefault("resources/templates/list", lambda params: {"resourceTemplates": []})
            handlers.setdefault("resources/read", self._read_resource)
        if self._prompts:
            handlers.setdefault("prompts/list", lambda params: {"prompts": [e.listing for e in self._prompts.values()]})
            handlers.setdefault("prompts/get", self._get_prompt)
        return handlers
