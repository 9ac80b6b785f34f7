"""How a `Service` calls its handlers in the core's concurrent loop.

The threading model:

- The core reads, checks and writes on threads of its own and calls each
  handler on one of its worker threads (at most `concurrency` at once),
  attached to Python for the call only. A sync handler that sleeps, waits
  on I/O or on the client (`Context.request`) releases the GIL, so other
  requests (a `ping`) are answered meanwhile; CPU-bound Python handlers
  still take turns on the GIL.
- `async def` handlers run on one asyncio event loop, on a thread of the
  service's own started with the first one; the worker thread waits for
  the coroutine (GIL released). A request the client cancels has its task
  cancelled: the coroutine sees `asyncio.CancelledError` at its next
  `await`, and the request is answered with the protocol's
  request-cancelled error where the protocol still owes an answer (LSP),
  or not at all where it does not (MCP).
- A handler is called with `(params)`, or `(params, context)` when it takes
  a second parameter (or one annotated `Context`): the `Context` has the
  request's id, `cancelled`, `notify` and `request`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import threading
from typing import Any, Callable, Optional

from ._native import Context
from .errors import RpcError

Call = Callable[[Any, Context], Any]
"""What the native concurrent loop calls: `(params, context) -> result`."""

# The context of the handler running on this thread (`Service.notify`).
_current = threading.local()

# How often a worker waiting on a coroutine looks at the cancellation flag.
_CANCEL_POLL_SECONDS = 0.005


def current_context() -> Optional[Context]:
    """The context of the handler running on this thread, if any."""
    context: Optional[Context] = getattr(_current, "context", None)
    return context


def is_context(parameter: inspect.Parameter) -> bool:
    """Whether `parameter` is annotated `Context` (the class, or a string naming it)."""
    annotation = parameter.annotation
    return annotation is Context or (isinstance(annotation, str) and annotation.split(".")[-1] == "Context")


def takes_context(function: Callable[..., Any]) -> bool:
    """Whether `function` takes a context: a parameter annotated `Context`
    (the class, or a string naming it), or a second positional parameter
    without a default (`lambda params, result=result: ...` takes none)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return False
    parameters = list(signature.parameters.values())
    annotated = any(is_context(p) for p in parameters)
    required = [
        p
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return annotated or len(required) >= 2


def is_async(function: Callable[..., Any]) -> bool:
    """Whether calling `function` makes a coroutine (an `async def`, or an
    object whose `__call__` is one)."""
    if inspect.iscoroutinefunction(function):
        return True
    call = getattr(function, "__call__", None)
    return call is not None and inspect.iscoroutinefunction(call)


class EventLoop:
    """The asyncio loop `async def` handlers run on, on a daemon thread of
    its own, started when first needed."""

    def __init__(self) -> None:
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._lock = threading.Lock()

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="wirekit-asyncio", daemon=True)
                thread.start()
                self._loop = loop
            return self._loop

    def run(self, coroutine: Any, context: Optional[Context], cancelled_code: int) -> Any:
        """Runs `coroutine` on the loop and waits for it; cancels its task
        when the client cancels the request."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop())
        while True:
            try:
                return future.result(timeout=_CANCEL_POLL_SECONDS)
            except concurrent.futures.TimeoutError:
                if context is not None and context.cancelled:
                    future.cancel()
                    raise RpcError("Request cancelled", code=cancelled_code) from None
            except concurrent.futures.CancelledError:
                raise RpcError("Request cancelled", code=cancelled_code) from None

    def close(self) -> None:
        with self._lock:
            loop, self._loop = self._loop, None
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)


def adapt(
    function: Callable[..., Any],
    loop: EventLoop,
    cancelled_code: int,
    seen: Callable[[Context], None],
) -> Call:
    """`function` as the concurrent loop calls it: with the context when it
    takes one, awaited on `loop` when it is `async def`, the thread's
    current context set while it runs; `seen` learns each context (any of
    them notifies for the session, from any thread)."""
    with_context = takes_context(function)
    awaited = is_async(function)

    def call(params: Any, context: Context) -> Any:
        seen(context)
        previous = getattr(_current, "context", None)
        _current.context = context
        try:
            result = function(params, context) if with_context else function(params)
            if awaited or inspect.isawaitable(result):
                return loop.run(result, context, cancelled_code)
            return result
        finally:
            _current.context = previous

    return call
