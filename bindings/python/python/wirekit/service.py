"""Serving any protocol of the registry with Python handlers.

The serve loop (read, frame, decode, check the lifecycle, validate params,
dispatch, validate the result, encode, write) runs in Rust; a `Service`
only collects the handlers and runs the loop over stdin and stdout.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any, Callable, Literal, Optional, TypeVar, Union

from . import _concurrency
from ._native import Context, Notifier, Protocol, Server

__all__ = ["Context", "Handler", "ResultCheck", "Service", "StreamHandler"]

# Handlers at once when a service needs the concurrent loop and does not say.
DEFAULT_CONCURRENCY = 16
# The answer to a cancelled async request where the protocol declares none
# (LSP's RequestCancelled, in JSON-RPC's reserved range).
_REQUEST_CANCELLED = -32800

Handler = Callable[..., Any]
"""A request handler: `params` (a dict, or None when absent) to a result."""
StreamHandler = Callable[[Any], Iterable[Any]]
"""A streamed-result handler: `params` to the items, in order."""
ResultCheck = Literal["reject", "warn"]
"""What to do with a result that fails its schema: answer -32603, or send it with a warning."""

F = TypeVar("F", bound=Callable[..., Any])


class Service:
    """A server of one protocol: handlers by method, then `run()`.

    >>> service = Service("gzkit-authoring-guide")
    >>> @service.method("analyze")
    ... def analyze(params): return {"hints": []}

    Methods that the manifest gives a `result_stream` take a handler that
    returns (or yields) the items.

    With `concurrency=N` the core's concurrent loop serves: up to N
    requests run at once, each handler on the thread that read it or on a
    pool thread of the core's (a sync
    handler that waits releases the GIL, so a `ping` is answered while a
    slow request runs), `async def` handlers on an asyncio loop, and a
    handler that takes a second parameter gets a `Context` (the request's
    id, `cancelled`, `notify`, `request` to the client). Requests that move
    the session (initialize, shutdown) run alone; a notification's handler
    returns before anything sent after it starts. By default
    (`concurrency=None`) the concurrent loop serves exactly when a handler
    is `async def` or takes a context (with 16 at once); else one request
    at a time, on the sequential loop (for quick requests both loops cost
    the same). See
    `wirekit._concurrency` for the threading model.
    """

    def __init__(
        self,
        protocol: Union[str, Protocol],
        *,
        result_check: ResultCheck = "reject",
        schemas: Union[str, "os.PathLike[str]", None] = None,
        exit_promptly: bool = False,
        notify_from_threads: bool = False,
        concurrency: Optional[int] = None,
    ) -> None:
        # `schemas`: a folder laid out as wirekit's schemas/ to load the
        # protocol from at run time; the embedded protocols by default.
        # `exit_promptly`: end the process once the session has ended
        # normally (see `run`); `WIREKIT_PROMPT_EXIT=0` turns it off.
        # `notify_from_threads`: `notify` works from other threads too (the
        # input is then read on a thread of the core's own, where Python's
        # signal handlers do not run: Ctrl-C while waiting for input does not
        # stop the loop).
        if concurrency is not None and concurrency < 1:
            raise ValueError(f"concurrency is at least 1 (handlers at once), or None; not {concurrency}")
        self.concurrency = concurrency
        self._events = _concurrency.EventLoop()
        # A context of the serving session's (concurrent loop): `notify` from other threads.
        self._session_context: Optional[Context] = None
        # Whether the last `server()` serves on the sequential loop (`notify`
        # then takes the notifier's path without looking at the handlers).
        self._sequential_loop = False
        self.exit_promptly = exit_promptly
        self.notify_from_threads = notify_from_threads
        self.protocol = protocol if isinstance(protocol, Protocol) else Protocol(protocol, schemas=schemas)
        self.result_check: ResultCheck = result_check
        self._requests: dict[str, Handler] = {}
        self._streams: dict[str, StreamHandler] = {}
        self._notifications: dict[str, Handler] = {}
        # The server's own notifications (`notify`), handed to the loop.
        self._notifier = Notifier()
        # How each client method is served, from the core's model.
        self._served: dict[str, str] = dict(self.protocol.served_methods())

    def _spec(self, name: str, kind: str) -> str:
        served = self._served.get(name)
        is_kind = served in ("request", "stream") if kind == "request" else served == kind
        if served is None or not is_kind:
            raise ValueError(
                f"{self.protocol.id} has no {kind} `{name}` sent by the client; "
                f"it has: {', '.join(self.protocol.methods)}"
            )
        return served

    def method(self, name: str) -> Callable[[F], F]:
        """Registers the handler of the request `name` (a decorator)."""

        def register(handler: F) -> F:
            self.register(name, handler)
            return handler

        return register

    def register(self, name: str, handler: Callable[..., Any]) -> None:
        """Registers the handler of the request `name`."""
        if self._spec(name, "request") == "stream":
            self._streams[name] = handler
        else:
            self._requests[name] = handler

    def notification(self, name: str) -> Callable[[F], F]:
        """Registers the handler of the notification `name` (a decorator)."""

        def register(handler: F) -> F:
            self._spec(name, "notification")
            self._notifications[name] = handler
            return handler

        return register

    def handles(self, name: str) -> bool:
        """Whether a handler is registered for `name`."""
        return name in self._requests or name in self._streams or name in self._notifications

    def capabilities(self) -> Any:
        """The capabilities to declare, from what is registered: for a
        boolean-object protocol, each capability true exactly when its method
        has a handler; for a string-array one, the names of the capabilities
        and of the ungated working methods that have a handler; for a
        provider one (LSP), each handled method's provider path set to true
        (an options object where a deeper path needs one)."""
        return self.protocol.capabilities_for(self.handles)

    def notify(self, method: str, params: Any = None) -> None:
        """Sends the server notification `method` with `params` (JSON-like,
        or None for none) while the loop serves.

        From a request handler (on the loop's thread) it is queued and sent
        after that request's answer, in the order queued, as the core sends
        a handler's notifications; from a client-notification handler, once
        that handler returns. From any other thread
        (with `Service(..., notify_from_threads=True)`) it goes to the loop
        at once (waiting while the loop is behind) and is sent between
        answers, in the order sent.

        Checked now, so the caller learns: `ValueError` for a method that
        is not a server notification of the protocol (naming those it has),
        `wirekit.NotJsonError` (a `ValueError`) with the pointer for params
        that are not JSON, `wirekit.ValidationError` (the issues with their
        JSON pointers, as `Protocol.check` raises) for params that fail the
        schema (with `result_check="warn"` they are sent with a warning
        instead), `RuntimeError` when no loop serves (or, from another
        thread, serves without `notify_from_threads`), from a streamed-result
        handler, or from the handler of a request whose answer ends the
        session. What the session refuses when the loop sends it (the
        lifecycle state, the protocol's rules) is dropped by the loop with a
        line in the log.
        """
        if not self._sequential_loop:
            context = _concurrency.current_context() or self._session_context
            if context is not None:
                context.notify(method, params)
                return
            if self._concurrency() is not None:
                raise RuntimeError(
                    f"no session is being served yet: `{method}` can be sent once a handler has run"
                )
        self._notifier.send(method, params)

    def _concurrency(self) -> Optional[int]:
        """How many handlers run at once, or None for the sequential loop."""
        if self.concurrency is not None:
            return self.concurrency
        handlers = list(self._handlers().values()) + list(self._notifications.values())
        needs = any(_concurrency.is_async(h) or _concurrency.takes_context(h) for h in handlers)
        return DEFAULT_CONCURRENCY if needs else None

    def _cancelled_code(self) -> int:
        errors = self.protocol.manifest.get("errors", [])
        for error in errors:
            if error.get("name") == "REQUEST_CANCELLED":
                return int(error["code"])
        return _REQUEST_CANCELLED

    def _seen(self, context: Context) -> None:
        self._session_context = context

    def _handlers(self) -> dict[str, Handler]:
        """The request handlers to serve with (subclasses add built-in ones)."""
        return dict(self._requests)

    def _stream_handlers(self) -> dict[str, StreamHandler]:
        """The streamed-result handlers to serve with (subclasses may wrap them)."""
        return dict(self._streams)

    def server(self, *, log: Union[Callable[[str], object], None] = None) -> Server:
        """The native server with the handlers registered so far."""
        concurrency = self._concurrency()
        self._sequential_loop = concurrency is None
        requests: dict[str, Any] = self._handlers()
        notifications: dict[str, Any] = dict(self._notifications)
        if concurrency is not None:
            code = self._cancelled_code()

            def adapt(function: Callable[..., Any]) -> Any:
                return _concurrency.adapt(function, self._events, code, self._seen)

            requests = {name: adapt(h) for name, h in requests.items()}
            notifications = {name: adapt(h) for name, h in notifications.items()}
        return Server(
            self.protocol,
            requests,
            streams=self._stream_handlers(),
            notifications=notifications,
            concurrency=concurrency,
            result_check=self.result_check,
            log=log,
            notifier=self._notifier,
            outbox=self.notify_from_threads,
        )

    def serve_bytes(self, data: bytes) -> bytes:
        """Serves `data` as the whole input; returns what was written back."""
        return self.server().serve_bytes(data)

    def run(self) -> str:
        """Serves stdin and stdout until the session ends or input ends.

        stdout belongs to the protocol: while serving, `print()` and anything
        else written to `sys.stdout` (or to file descriptor 1, by a child
        process too) goes to stderr. Answers to requests the client sent
        without waiting (pipelined) share writes, and none waits more than
        1 ms for its write; an answer to the last request read is written at
        once. Returns how serving ended (`"ended"`,
        `"end_of_input"`, `"framing_lost: ..."` or `"peer_closed"`).

        With `exit_promptly` (the Gaze `Analyzer`'s default), a session that
        ended normally (`"ended"`: the protocol's last request answered, or
        a stream finished) does not return: stdout and stderr are flushed
        and the process ends at once with status 0 (`os._exit`), without
        tearing down what the handlers cached (no `atexit` handlers, no
        finalizers). Every other outcome returns. `WIREKIT_PROMPT_EXIT=0`
        in the environment turns it off.
        """
        server = self.server()
        saved = sys.stdout
        sys.stdout = sys.stderr
        try:
            outcome = server.serve_stdio()
        except BrokenPipeError:
            return "peer_closed"
        finally:
            sys.stdout = saved
        if outcome == "ended":
            _release_stdout()
            if self.exit_promptly and os.environ.get("WIREKIT_PROMPT_EXIT", "1") != "0":
                _exit_now()
        return outcome


def _exit_now() -> None:
    """Ends the process with status 0 once what was written is flushed:
    the answers are out (the core flushed and closed its writer), and
    Python's own buffers follow, then no teardown is paid."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


def _release_stdout() -> None:
    """The session is over: points descriptor 1 at stderr, so the peer
    reading our stdout sees its end now (a streamed result ends so: the
    host reads until EOF) even if the program goes on, and a late `print`
    cannot reach it."""
    try:
        sys.stdout.flush()
        os.dup2(2, 1)
    except (OSError, ValueError):
        pass
