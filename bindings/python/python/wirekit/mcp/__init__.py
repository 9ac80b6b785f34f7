"""MCP servers (stdio transport) in a few lines.

>>> from wirekit.mcp import Server
>>> server = Server("adder", "0.1.0")
>>> @server.tool()
... def add(a: int, b: int) -> int:
...     "Adds two integers."
...     return a + b
>>> # server.run() serves stdin/stdout until the client closes stdin

What the core does for every server: the framing (one line a message), the
envelopes, the lifecycle, and every message in both directions checked
against the official schema of the negotiated version; tools run side by
side (`concurrency`, 16 by default), so a `ping` is answered while a slow
tool runs and a cancelled call's tool sees `context.cancelled`.

What `Server` answers from what is registered:

- `initialize`: the client's `protocolVersion` when wirekit ships it, else
  the newest; the capabilities declare `tools`, `resources` (with
  `subscribe`), `prompts` and `completions` exactly when something of the
  kind is registered, and always `logging`. `ping` answers `{}`.
- **Tools** (`@server.tool()`): the `inputSchema` comes from the type hints
  (`wirekit.mcp._hints`: `list[float]`, `Optional[str]`, `dict[str, int]`,
  `Literal`, enums, TypedDicts, dataclasses, `Annotated[X, "description"]`)
  unless `input_schema=` gives it (kept exactly, `$schema` and `$defs`
  too). The core checks each call's arguments against it before the
  handler runs: arguments that break it are a tool error naming the
  pointer (`isError`, from 2025-11-25 on; -32602 before). A TypedDict or
  dataclass return hint (or `output_schema=`) is the `outputSchema`, and
  the `structuredContent` is checked against it. A tool returns text,
  `Image`, `Audio`, `EmbeddedResource`, `ResourceLink`, a list of them, a
  whole `CallToolResult`, or any JSON value (`wirekit.mcp._content`). A
  tool that raises answers `isError: true` with its message; `RpcError`
  answers a protocol error.
- **Resources** (`@server.resource(uri)`): text (`str`) or binary
  (`bytes`, sent as a base64 blob); a URI with `{variables}` is a template,
  listed by `resources/templates/list` and read with the variables as
  arguments. `resources/subscribe` and `unsubscribe` are kept, and
  `server.resource_updated(uri)` notifies a subscribed client. An unknown
  URI answers -32002.
- **Prompts** (`@server.prompt()`): arguments from the parameters; they
  return one text, a content, `Message`s (user or assistant) or a list of
  them. An unknown prompt or a missing argument answers -32602.
- **Completions** (`@server.completion()`): `completion/complete`.
- **Logging**: `logging/setLevel` sets `server.log_level`;
  `context.log(level, data)` and `server.log` send `notifications/message`
  at or above it.

A handler parameter annotated `wirekit.mcp.Context` (or `wirekit.Context`)
is no argument: it gets the call's `Context` (`cancelled`,
`report_progress`, `log`, `sample`, `elicit`, `list_roots`, `notify`,
`request`); an `async def` handler is awaited on the service's asyncio
loop and awaits the context's `a`-prefixed methods.
"""

from ._content import Audio, EmbeddedResource, Image, Message, ResourceLink
from ._context import LEVELS, Context
from ._server import Server, negotiate, supported_versions

__all__ = [
    "LEVELS",
    "Audio",
    "Context",
    "EmbeddedResource",
    "Image",
    "Message",
    "ResourceLink",
    "Server",
    "negotiate",
    "supported_versions",
]
