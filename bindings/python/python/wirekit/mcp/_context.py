"""`wirekit.mcp.Context`: what a tool, resource or prompt handler can do
with the client while it runs.

A handler gets it through a parameter annotated `Context` (no argument a
client names). Everything it sends is checked by the core against the
negotiated MCP schema and the client's declared capabilities before it is
sent: a refusal raises `wirekit.PeerError` (`kind` `refused`, with the
pointer), the client's error answer raises `wirekit.RpcError`, and an
answer that breaks the schema raises `PeerError` (`invalid-answer`).

The waiting methods (`sample`, `elicit`, `list_roots`, `request`) block
their thread and release the GIL, so other requests are answered
meanwhile. From an `async def` handler, await their `a`-prefixed twins
(`await context.asample(...)`), which wait on a worker thread instead of
the event loop.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Optional, Union

from .._native import Context as NativeContext
from ._content import message

if TYPE_CHECKING:
    from ._server import Server

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""MCP's logging levels, least severe first (RFC 5424's)."""


def log_params(level: str, data: Any, logger: Optional[str], threshold: str) -> Optional[dict[str, Any]]:
    """The params of `notifications/message` at `level`, or None when it is
    below `threshold` (the level the client set); `ValueError` for a level
    MCP does not have."""
    if level not in LEVELS:
        raise ValueError(f"unknown logging level {level!r}; MCP's levels are {', '.join(LEVELS)}")
    if LEVELS.index(level) < LEVELS.index(threshold):
        return None
    params: dict[str, Any] = {"level": level, "data": data}
    if logger is not None:
        params["logger"] = logger
    return params


class Context:
    """One request's view of the client (see the module's documentation)."""

    def __init__(self, native: NativeContext, server: "Server") -> None:
        self._native = native
        self._server = server

    @property
    def id(self) -> Union[int, str, None]:
        """The request's id."""
        return self._native.id

    @property
    def method(self) -> Optional[str]:
        """The request's method (`tools/call`)."""
        return self._native.method

    @property
    def cancelled(self) -> bool:
        """Whether the client cancelled this request (`notifications/cancelled`)."""
        return self._native.cancelled

    @property
    def progress_token(self) -> Any:
        """The token the client asked progress against, or None."""
        return self._native.progress_token

    def notify(self, method: str, params: Any = None) -> None:
        """Sends a server notification (checked; see the module)."""
        self._native.notify(method, params)

    def request(self, method: str, params: Any = None, *, timeout: Optional[float] = None) -> Any:
        """Asks the client and waits for its checked answer."""
        return self._native.request(method, params, timeout=timeout)

    async def arequest(self, method: str, params: Any = None, *, timeout: Optional[float] = None) -> Any:
        """`request` for an `async def` handler."""
        return await asyncio.to_thread(self.request, method, params, timeout=timeout)

    def progress(self, params: Any = None) -> bool:
        """Sends the protocol's progress notification with `params`, the
        client's token set (`wirekit.Context.progress`)."""
        return self._native.progress(params)

    def report_progress(self, progress: float, total: Optional[float] = None, message: Optional[str] = None) -> bool:
        """Sends `notifications/progress` against the client's token; False
        (and nothing sent) when the client asked for no progress."""
        params: dict[str, Any] = {"progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        return self._native.progress(params)

    def log(self, level: str, data: Any, *, logger: Optional[str] = None) -> bool:
        """Sends `notifications/message` at `level` (one of `LEVELS`) when
        it is at least the level the client set with `logging/setLevel`;
        False when it was below it and not sent."""
        params = log_params(level, data, logger, self._server.log_level)
        if params is None:
            return False
        self._native.notify("notifications/message", params)
        return True

    def sample(
        self,
        messages: Union[str, list[Any]],
        *,
        max_tokens: int = 1000,
        system_prompt: Optional[str] = None,
        timeout: Optional[float] = None,
        **extra: Any,
    ) -> Any:
        """Asks the client's model (`sampling/createMessage`); `messages` is
        one user text, or a list of `Message`s, message dicts or contents
        (each a user message). Returns the `CreateMessageResult`."""
        items = [messages] if isinstance(messages, str) else messages
        params: dict[str, Any] = {"messages": [message(item) for item in items], "maxTokens": max_tokens, **extra}
        if system_prompt is not None:
            params["systemPrompt"] = system_prompt
        return self.request("sampling/createMessage", params, timeout=timeout)

    async def asample(self, messages: Union[str, list[Any]], **options: Any) -> Any:
        """`sample` for an `async def` handler."""
        return await asyncio.to_thread(self.sample, messages, **options)

    def elicit(self, message: str, requested_schema: dict[str, Any], *, timeout: Optional[float] = None) -> Any:
        """Asks the user through the client (`elicitation/create`) for the
        members of `requested_schema`; returns the `ElicitResult`
        (`action`: accept, decline or cancel; `content`)."""
        params = {"message": message, "requestedSchema": requested_schema}
        return self.request("elicitation/create", params, timeout=timeout)

    async def aelicit(self, message: str, requested_schema: dict[str, Any], **options: Any) -> Any:
        """`elicit` for an `async def` handler."""
        return await asyncio.to_thread(self.elicit, message, requested_schema, **options)

    def list_roots(self, *, timeout: Optional[float] = None) -> list[Any]:
        """The client's roots (`roots/list`)."""
        answer = self.request("roots/list", None, timeout=timeout)
        return list(answer.get("roots", [])) if isinstance(answer, dict) else []

    async def alist_roots(self, **options: Any) -> list[Any]:
        """`list_roots` for an `async def` handler."""
        return await asyncio.to_thread(self.list_roots, **options)
