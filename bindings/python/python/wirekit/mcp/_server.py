"""`wirekit.mcp.Server`: tools, resources, prompts, completions and logging
registered by decorators, served by the core (see the package's
documentation)."""

from __future__ import annotations

import inspect
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, TypeVar, Union

from .._concurrency import is_context
from .._native import Context as NativeContext
from .._native import JsonSchema, embedded_protocols
from ..errors import RpcError
from ..service import DEFAULT_CONCURRENCY, ResultCheck, Service
from . import _content, _hints
from ._context import Context, log_params

F = TypeVar("F", bound=Callable[..., Any])

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002
# From this version on, arguments that break a tool's inputSchema are a tool
# execution error (the model sees it and can correct itself; SEP-1303)
# rather than -32602.
_ARGUMENTS_AS_TOOL_ERRORS = "2025-11-25"
_COMPLETION_LIMIT = 100


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


def _is_context_parameter(parameter: inspect.Parameter) -> bool:
    annotation = parameter.annotation
    return annotation is Context or is_context(parameter)


def _context_parameter(handler: Callable[..., Any]) -> Optional[str]:
    """The name of the handler's parameter annotated `Context`, if any."""
    for p in inspect.signature(handler).parameters.values():
        if _is_context_parameter(p):
            return p.name
    return None


def _named_parameters(handler: Callable[..., Any]) -> list[inspect.Parameter]:
    """The handler's parameters a client names (not `*args`, `**kwargs`, nor the context)."""
    return [
        p
        for p in inspect.signature(handler).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and not _is_context_parameter(p)
    ]


def _listing(handler: Callable[..., Any], description: Optional[str], **members: Any) -> dict[str, Any]:
    """A listing's members (those given, None left out), with the
    description given or the handler's docstring."""
    listing = {key: value for key, value in members.items() if value is not None}
    text = description or inspect.getdoc(handler)
    if text:
        listing["description"] = text
    return listing


def _issues_text(issues: list[Any]) -> str:
    shown = "; ".join(f"{i.instance_path or '/'}: {i.message} [{i.keyword}]" for i in issues[:3])
    return shown + (f"; and {len(issues) - 3} more" if len(issues) > 3 else "")


@dataclass
class _Tool:
    handler: Callable[..., Any]
    listing: dict[str, Any]
    arguments: JsonSchema
    output: Optional[JsonSchema]


@dataclass
class _Resource:
    handler: Callable[..., Any]
    listing: dict[str, Any]
    # A template's URIs: the pattern, its variables named groups.
    pattern: Optional[re.Pattern[str]] = None


@dataclass
class _Prompt:
    handler: Callable[..., Any]
    listing: dict[str, Any]
    required: list[str] = field(default_factory=list)


def _template_pattern(template: str) -> re.Pattern[str]:
    """An RFC 6570 template's URIs: `{name}` one path segment, `{+name}` anything."""
    parts: list[str] = []
    position = 0
    for match in re.finditer(r"\{(\+?)([A-Za-z_][A-Za-z0-9_]*)\}", template):
        parts.append(re.escape(template[position : match.start()]))
        parts.append(f"(?P<{match.group(2)}>{'.+' if match.group(1) else '[^/?#]+'})")
        position = match.end()
    parts.append(re.escape(template[position:]))
    return re.compile("".join(parts) + r"\Z")


class Server(Service):
    """An MCP server: register tools, resources, prompts and completions,
    then `run()`."""

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
        title: Optional[str] = None,
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
        if title:
            self.info["title"] = title
        self.instructions = instructions
        self.negotiated: Optional[str] = None
        """The version `initialize` agreed on (None before it)."""
        self.log_level = "debug"
        """The least severe level `Context.log` and `log` send (`logging/setLevel`)."""
        self._tools: dict[str, _Tool] = {}
        self._resources: dict[str, _Resource] = {}
        self._templates: dict[str, _Resource] = {}
        self._prompts: dict[str, _Prompt] = {}
        self._completion: Optional[Callable[..., Any]] = None
        self._subscriptions: set[str] = set()
        self._declared: set[str] = set()
        self._lock = threading.Lock()

    # ----- registration -----

    def tool(
        self,
        name: Optional[str] = None,
        *,
        description: Optional[str] = None,
        title: Optional[str] = None,
        input_schema: Optional[dict[str, Any]] = None,
        output_schema: Optional[dict[str, Any]] = None,
        annotations: Optional[dict[str, Any]] = None,
    ) -> Callable[[F], F]:
        """Registers a tool (a decorator). Its `inputSchema` is `input_schema`
        as given, else made from the handler's type hints
        (`wirekit.mcp._hints`); every call's arguments are checked against
        it by the core before the handler runs. Its `outputSchema` is
        `output_schema`, else the return hint's when that is a TypedDict or
        a dataclass; a result's `structuredContent` is then checked too."""

        def register(handler: F) -> F:
            schema = input_schema if input_schema is not None else _hints.parameters_schema(handler, _named_parameters(handler))
            output = output_schema if output_schema is not None else _hints.return_schema(handler, _content.CONTENT_CLASSES)
            listing = _listing(
                handler,
                description,
                name=name or handler.__name__,
                title=title,
                inputSchema=schema,
                outputSchema=output,
                annotations=annotations,
            )
            try:
                arguments = JsonSchema(schema)
                checked_output = None if output is None else JsonSchema(output)
            except ValueError as error:
                raise ValueError(f"tool {listing['name']!r}: {error}") from None
            self._tools[listing["name"]] = _Tool(handler, listing, arguments, checked_output)
            self._changed("tools")
            return handler

        return register

    def resource(
        self,
        uri: str,
        *,
        name: Optional[str] = None,
        title: Optional[str] = None,
        description: Optional[str] = None,
        mime_type: Optional[str] = "text/plain",
    ) -> Callable[[F], F]:
        """Registers a resource. A `uri` with `{variables}` (RFC 6570,
        `{name}` one segment, `{+name}` any text) is a template: listed by
        `resources/templates/list`, and read for every URI it matches, the
        handler called with the variables as keyword arguments. The handler
        returns a `str` (text), `bytes` (a blob) or a `ReadResourceResult`."""

        def register(handler: F) -> F:
            label = name or handler.__name__
            if "{" in uri:
                listing = _listing(handler, description, uriTemplate=uri, name=label, title=title, mimeType=mime_type)
                self._templates[uri] = _Resource(handler, listing, _template_pattern(uri))
            else:
                listing = _listing(handler, description, uri=uri, name=label, title=title, mimeType=mime_type)
                self._resources[uri] = _Resource(handler, listing)
            self._changed("resources")
            return handler

        return register

    def prompt(
        self, name: Optional[str] = None, *, description: Optional[str] = None, title: Optional[str] = None
    ) -> Callable[[F], F]:
        """Registers a prompt; its arguments are the handler's parameters
        (required without a default; `Annotated[str, "text"]` describes
        one). It returns a `str`, a content, a `Message`, or a list of them
        (`wirekit.mcp._content`)."""

        def register(handler: F) -> F:
            schema = _hints.parameters_schema(handler, _named_parameters(handler))
            required = list(schema.get("required", []))
            arguments = []
            for argument, member in schema["properties"].items():
                entry: dict[str, Any] = {"name": argument, "required": argument in required}
                if "description" in member:
                    entry["description"] = member["description"]
                arguments.append(entry)
            listing = _listing(handler, description, name=name or handler.__name__, title=title, arguments=arguments)
            self._prompts[listing["name"]] = _Prompt(handler, listing, required)
            self._changed("prompts")
            return handler

        return register

    def completion(self) -> Callable[[F], F]:
        """Registers the `completion/complete` handler, called as
        `handler(ref, argument)` (the request's `ref` and `argument`
        objects, and `context` when it takes one named so); it returns the
        candidate values (at most 100 are sent, `hasMore` saying so) or a
        whole `completion` object."""

        def register(handler: F) -> F:
            self._completion = handler
            return handler

        return register

    def remove_tool(self, name: str) -> None:
        """Takes a tool away (`KeyError` for one not registered); a client
        being served is told (`notifications/tools/list_changed`)."""
        del self._tools[name]
        self._changed("tools")

    def remove_resource(self, uri: str) -> None:
        """Takes a resource or template away; a client being served is told."""
        if self._resources.pop(uri, None) is None:
            del self._templates[uri]
        self._changed("resources")

    def remove_prompt(self, name: str) -> None:
        """Takes a prompt away; a client being served is told."""
        del self._prompts[name]
        self._changed("prompts")

    def _changed(self, kind: str) -> None:
        """Tells a client being served that a list changed. Before a
        session (registration at start-up) there is no one to tell; a kind
        that had nothing registered at `initialize` was not declared, so
        the client is not told of it either (the core would refuse it)."""
        if self._session_context is None or self.negotiated is None or kind not in self._declared:
            return
        self.notify(f"notifications/{kind}/list_changed")

    # ----- sending from anywhere -----

    def log(self, level: str, data: Any, *, logger: Optional[str] = None) -> bool:
        """`Context.log` from outside a handler (another thread of the server)."""
        params = log_params(level, data, logger, self.log_level)
        if params is None:
            return False
        self.notify("notifications/message", params)
        return True

    def resource_updated(self, uri: str) -> bool:
        """Tells the client a resource changed
        (`notifications/resources/updated`) when it subscribed to it;
        False (nothing sent) when it did not."""
        with self._lock:
            subscribed = uri in self._subscriptions
        if subscribed:
            self.notify("notifications/resources/updated", {"uri": uri})
        return subscribed

    @property
    def subscriptions(self) -> frozenset[str]:
        """The URIs the client subscribed to."""
        with self._lock:
            return frozenset(self._subscriptions)

    # ----- answering -----

    def capabilities(self) -> dict[str, Any]:
        """What is registered, as the schema's `ServerCapabilities` (objects)."""
        declared: dict[str, Any] = {"logging": {}}
        if self._tools:
            declared["tools"] = {"listChanged": True}
        if self._resources or self._templates:
            declared["resources"] = {"subscribe": True, "listChanged": True}
        if self._prompts:
            declared["prompts"] = {"listChanged": True}
        if self._completion is not None:
            declared["completions"] = {}
        return declared

    def _initialize(self, params: Any) -> dict[str, Any]:
        self.negotiated = negotiate(params.get("protocolVersion"), self.versions)
        capabilities = self.capabilities()
        self._declared = set(capabilities)
        result: dict[str, Any] = {
            "protocolVersion": self.negotiated,
            "capabilities": capabilities,
            "serverInfo": self.info,
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def _call(self, handler: Callable[..., Any], arguments: dict[str, Any], native: Optional[NativeContext]) -> Any:
        """Calls a handler with its arguments (and its context), awaiting a coroutine."""
        name = _context_parameter(handler)
        context = None if native is None else Context(native, self)
        if name is not None:
            arguments = {**arguments, name: context}
        value = handler(**arguments)
        if inspect.isawaitable(value):
            value = self._events.run(value, native, self._cancelled_code())
        return value

    def _call_tool(self, params: Any, native: NativeContext) -> dict[str, Any]:
        tool = self._tools.get(params["name"])
        if tool is None:
            raise RpcError(f"Unknown tool: {params['name']}", code=INVALID_PARAMS)
        arguments = params.get("arguments") or {}
        issues = tool.arguments.validate(arguments, "/arguments")
        if issues:
            text = f"invalid arguments for tool `{params['name']}`: {_issues_text(issues)}"
            if (self.negotiated or self.versions[0]) >= _ARGUMENTS_AS_TOOL_ERRORS:
                return _content.tool_error(text)
            raise RpcError(text, code=INVALID_PARAMS, data={"part": "params", "errors": [i.to_dict() for i in issues]})
        try:
            value = self._call(tool.handler, dict(arguments), native)
        except RpcError:
            raise
        except Exception as exc:  # noqa: BLE001 - a tool's failure is its result
            return _content.tool_error(str(exc) or type(exc).__name__)
        result = _content.tool_result(value)
        if tool.output is not None:
            self._check_output(params["name"], tool.output, result)
        return result

    def _check_output(self, name: str, schema: JsonSchema, result: dict[str, Any]) -> None:
        """A tool with an `outputSchema` answers `structuredContent` that
        fits it (MCP: servers MUST); otherwise the call is answered an
        internal error naming the pointer, the tool's fault."""
        if result.get("isError"):
            return
        if "structuredContent" not in result:
            raise RpcError(
                f"tool `{name}` declares an outputSchema but returned no structuredContent",
                code=INTERNAL_ERROR,
            )
        issues = schema.validate(result["structuredContent"], "/structuredContent")
        if issues:
            raise RpcError(
                f"tool `{name}` returned structuredContent its outputSchema refuses: {_issues_text(issues)}",
                code=INTERNAL_ERROR,
                data={"part": "result", "errors": [i.to_dict() for i in issues]},
            )

    def _find_resource(self, uri: str) -> tuple[_Resource, dict[str, str]]:
        entry = self._resources.get(uri)
        if entry is not None:
            return entry, {}
        for template in self._templates.values():
            match = template.pattern.match(uri) if template.pattern else None
            if match:
                return template, match.groupdict()
        raise RpcError("Resource not found", code=RESOURCE_NOT_FOUND, data={"uri": uri})

    def _read_resource(self, params: Any, native: NativeContext) -> dict[str, Any]:
        uri = params["uri"]
        entry, variables = self._find_resource(uri)
        value = self._call(entry.handler, variables, native)
        return _content.read_result(uri, value, entry.listing.get("mimeType"))

    def _subscribe(self, params: Any) -> dict[str, Any]:
        # Any URI: a resource may appear after the subscription.
        with self._lock:
            self._subscriptions.add(params["uri"])
        return {}

    def _unsubscribe(self, params: Any) -> dict[str, Any]:
        with self._lock:
            self._subscriptions.discard(params["uri"])
        return {}

    def _get_prompt(self, params: Any, native: NativeContext) -> dict[str, Any]:
        prompt = self._prompts.get(params["name"])
        if prompt is None:
            raise RpcError(f"Unknown prompt: {params['name']}", code=INVALID_PARAMS)
        arguments = dict(params.get("arguments") or {})
        missing = [name for name in prompt.required if name not in arguments]
        known = {a["name"] for a in prompt.listing["arguments"]}
        unknown = sorted(set(arguments) - known)
        if missing or unknown:
            said = [f"missing required argument(s) {', '.join(missing)}"] if missing else []
            said += [f"unknown argument(s) {', '.join(unknown)}"] if unknown else []
            raise RpcError(f"Invalid arguments for prompt {params['name']}: {'; '.join(said)}", code=INVALID_PARAMS)
        value = self._call(prompt.handler, arguments, native)
        return _content.prompt_result(value, prompt.listing.get("description"))

    def _set_level(self, params: Any) -> dict[str, Any]:
        self.log_level = params["level"]
        return {}

    def _complete(self, params: Any, native: NativeContext) -> dict[str, Any]:
        assert self._completion is not None
        handler = self._completion
        arguments: dict[str, Any] = {"ref": params["ref"], "argument": params["argument"]}
        if "context" in inspect.signature(handler).parameters and _context_parameter(handler) is None:
            arguments["context"] = params.get("context")
        value = self._call(handler, arguments, native)
        if isinstance(value, dict) and "values" in value:
            return {"completion": value}
        values = [str(v) for v in value]
        return {
            "completion": {
                "values": values[:_COMPLETION_LIMIT],
                "total": len(values),
                "hasMore": len(values) > _COMPLETION_LIMIT,
            }
        }

    def _handlers(self) -> dict[str, Callable[..., Any]]:
        handlers = super()._handlers()
        handlers.setdefault("initialize", self._initialize)
        handlers.setdefault("ping", lambda params: {})
        handlers.setdefault("logging/setLevel", self._set_level)
        if self._tools:
            handlers.setdefault("tools/list", lambda params: {"tools": [t.listing for t in list(self._tools.values())]})
            handlers.setdefault("tools/call", self._call_tool)
        if self._resources or self._templates:
            handlers.setdefault(
                "resources/list", lambda params: {"resources": [r.listing for r in list(self._resources.values())]}
            )
            handlers.setdefault(
                "resources/templates/list",
                lambda params: {"resourceTemplates": [r.listing for r in list(self._templates.values())]},
            )
            handlers.setdefault("resources/read", self._read_resource)
            handlers.setdefault("resources/subscribe", self._subscribe)
            handlers.setdefault("resources/unsubscribe", self._unsubscribe)
        if self._prompts:
            handlers.setdefault("prompts/list", lambda params: {"prompts": [p.listing for p in list(self._prompts.values())]})
            handlers.setdefault("prompts/get", self._get_prompt)
        if self._completion is not None:
            handlers.setdefault("completion/complete", self._complete)
        return handlers
