"""AgentAPI drivers in Python: operations as functions, the protocol in Rust.

>>> driver = Driver(name="my-driver", version="0.1.0", protocols=["http"])
>>> @driver.operation("http.get")
... def get(invocation):
...     invocation.observe("http.status", {"status": 200})

`driver.run()` serves stdin and stdout. hello, capabilities, prepare,
cancel, reset and shutdown are answered from what was registered; the
serve loop checks every message both ways (schemas, lifecycle, the
invocation rules: increasing sequences, matching identities, ids not
reused).

How a long invocation leaves room for `driver.cancel`: the protocol's own
semantics. `driver.invoke` is answered at once (its result is only an
acknowledgement) and the operation runs on a worker thread; the serve loop
keeps reading, so `driver.cancel` is answered while the worker runs (it
sets `invocation.cancelled`; the operation checks it and returns). The
worker's observations and the closing `driver.completed` go through the
loop's outbox (`Notifier`), which checks each against its schema and the
session's rules before sending, in order after the `driver.invoke` answer.
`driver.completed` carries the status (`completed`, `cancelled` when the
operation returned after a cancel, `errored` when it raised), the last
observation's sequence and a SHA-256 over the observations' canonical
params (the summary digest).
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
import threading
import time
import traceback
from typing import Any, Callable, Optional, Union

from . import dataplane
from ._native import Notifier, Protocol, Server
from .errors import RpcError
from .service import Service

__all__ = ["Driver", "Invocation", "Operation"]

PROTOCOL = "agentapi-driver"

_ARCHITECTURES = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _canonical(value: Any) -> bytes:
    """RFC 8785 for the values a driver emits (sorted members, no spaces)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class Invocation:
    """One running invocation, handed to the operation on its worker thread."""

    def __init__(self, driver: Driver, params: dict[str, Any]) -> None:
        self._driver = driver
        self.invocation_id: str = params["invocation_id"]
        self.attempt_id: str = params["attempt_id"]
        self.operation: str = params["operation"]
        self.input: dict[str, Any] = params["ephemeral_exact_input_handle"]
        self.cancelled = threading.Event()
        self.last_sequence: Optional[int] = None
        self._summary = hashlib.sha256()
        self._streams = 0

    def _next_sequence(self) -> int:
        return 1 if self.last_sequence is None else self.last_sequence + 1

    def _emit(self, params: dict[str, Any]) -> int:
        self._driver._check("driver.observation", params)
        self._driver._notifier.send("driver.observation", params)
        self.last_sequence = params["sequence"]
        self._summary.update(_canonical(params))
        return int(params["sequence"])

    def observe(self, kind: str, payload: Any = None) -> int:
        """Sends one `driver.observation` (an inline JSON payload, or none);
        returns its sequence. Raises `ValidationError` for params that fail
        the schema, before anything is sent."""
        params: dict[str, Any] = {
            "invocation_id": self.invocation_id,
            "attempt_id": self.attempt_id,
            "sequence": self._next_sequence(),
            "kind": kind,
            "monotonic_ns": time.monotonic_ns(),
        }
        if payload is not None:
            params["payload"] = payload
        return self._emit(params)

    def observe_data(self, kind: str, chunks: Union[bytes, Any]) -> int:
        """Sends one `driver.observation` whose payload travels on the
        companion data plane (`data_stream`): the observation first, then
        the bytes (one `bytes` object, or an iterable of them) cut into
        frames of at most the negotiated bound, the last one final. Memory
        stays bounded by one frame whatever the payload's size. Raises
        `RuntimeError` when the host offered no data plane."""
        plane = self._driver._data_plane
        if plane is None:
            raise RuntimeError(
                "no companion data plane: the host did not offer one "
                f"(${dataplane.SOCKET_ENV} unset, or not on Unix)"
            )
        self._streams += 1
        stream_id = f"{self.invocation_id}/{self._next_sequence()}"
        params: dict[str, Any] = {
            "invocation_id": self.invocation_id,
            "attempt_id": self.attempt_id,
            "sequence": self._next_sequence(),
            "kind": kind,
            "monotonic_ns": time.monotonic_ns(),
            "data_stream": {"stream_id": stream_id},
        }
        sequence = self._emit(params)
        parts = [chunks] if isinstance(chunks, (bytes, bytearray, memoryview)) else chunks
        plane.send_stream(self.invocation_id, self.attempt_id, stream_id, parts, self._summary)
        return sequence


Operation = Callable[[Invocation], Any]
"""An operation: runs on a worker thread with its `Invocation`; its return
value is ignored; raising ends the invocation `errored`."""


class Driver(Service):
    """An AgentAPI driver: an identity, operations, and hooks."""

    def __init__(
        self,
        *,
        name: str,
        version: str,
        protocols: Optional[list[str]] = None,
        requested_permissions: Optional[list[str]] = None,
        artifact: Optional[bytes] = None,
    ) -> None:
        super().__init__(PROTOCOL)
        self.name = name
        self.version = version
        self.protocols = list(protocols or [])
        self.requested_permissions = list(requested_permissions or [])
        self._artifact = artifact if artifact is not None else f"{name}@{version}".encode()
        self._operations: dict[str, Operation] = {}
        self._reset_hooks: list[Callable[[], None]] = []
        self._shutdown_hooks: list[Callable[[], None]] = []
        self._notifier = Notifier()
        self._lock = threading.Lock()
        self._active: Optional[Invocation] = None
        self._worker: Optional[threading.Thread] = None
        self._data_plane: Optional[dataplane.Writer] = None
        for method, handler in {
            "driver.hello": self._on_hello,
            "driver.capabilities": self._on_capabilities,
            "driver.prepare": self._on_prepare,
            "driver.invoke": self._on_invoke,
            "driver.cancel": self._on_cancel,
            "driver.reset": self._on_reset,
            "driver.shutdown": self._on_shutdown,
        }.items():
            self.register(method, handler)

    def operation(self, name: str) -> Callable[[Operation], Operation]:
        """Registers the operation `name` (a decorator)."""

        def register(function: Operation) -> Operation:
            self._operations[name] = function
            return function

        return register

    def on_reset(self, hook: Callable[[], None]) -> Callable[[], None]:
        """Registers a hook `driver.reset` calls (clear prepared session data)."""
        self._reset_hooks.append(hook)
        return hook

    def on_shutdown(self, hook: Callable[[], None]) -> Callable[[], None]:
        """Registers a hook `driver.shutdown` calls (release what was started)."""
        self._shutdown_hooks.append(hook)
        return hook

    @property
    def data_plane_offered(self) -> bool:
        """Whether the host offered a companion data plane (known once
        `driver.prepare` has been handled)."""
        return self._data_plane is not None

    def server(self, *, log: Union[Callable[[str], object], None] = None) -> Server:
        return Server(
            self.protocol,
            self._handlers(),
            result_check=self.result_check,
            log=log,
            notifier=self._notifier,
        )

    # The checks a notification passes before it is handed to the loop.
    def _check(self, method: str, params: Any) -> None:
        protocol: Protocol = self.protocol
        protocol.check(method, "params", params)

    def _driver_capabilities(self) -> dict[str, Any]:
        return {
            "protocols": self.protocols,
            "operations": list(self._operations),
            "streaming": True,
            "cancellation": True,
            "retry_observed": False,
            "concurrency": False,
            "max_concurrency": 1,
        }

    def _on_hello(self, params: Any) -> Any:
        return {
            "driver_version_range": {"minimum": "1.0.0", "maximum": "1.0.0"},
            "identity": {
                "name": self.name,
                "version": self.version,
                "runtime_name": "python",
                "runtime_version": platform.python_version(),
                "os": sys.platform if sys.platform != "win32" else "windows",
                "architecture": _ARCHITECTURES.get(platform.machine().lower(), platform.machine().lower() or "unknown"),
                "artifact_digest": _digest(self._artifact),
            },
            "capabilities": self._driver_capabilities(),
            "requested_permissions": self.requested_permissions,
        }

    def _on_capabilities(self, params: Any) -> Any:
        return {"capabilities": self._driver_capabilities()}

    def _on_prepare(self, params: Any) -> Any:
        approved = params.get("approved_permissions") or []
        accepted = [p for p in approved if p in self.requested_permissions]
        if self._data_plane is None:
            self._data_plane = dataplane.Writer.from_environment()
        return {"accepted_permissions": accepted}

    def _on_invoke(self, params: Any) -> Any:
        operation = self._operations.get(params["operation"])
        if operation is None:
            raise RpcError(
                f"unknown operation {params['operation']!r}; this driver runs: {', '.join(self._operations)}",
                code=-32000,
                data={"class": "capability_mismatch"},
            )
        self._join()
        invocation = Invocation(self, params)
        with self._lock:
            self._active = invocation
        worker = threading.Thread(
            target=self._run, args=(operation, invocation), name=f"invocation {invocation.invocation_id}", daemon=True
        )
        self._worker = worker
        worker.start()
        return {}

    def _run(self, operation: Operation, invocation: Invocation) -> None:
        status = "completed"
        try:
            operation(invocation)
            if invocation.cancelled.is_set():
                status = "cancelled"
        except Exception:
            status = "errored"
            print(f"wirekit: the operation {invocation.operation!r} raised:", file=sys.stderr)
            traceback.print_exc()
        completed: dict[str, Any] = {
            "invocation_id": invocation.invocation_id,
            "attempt_id": invocation.attempt_id,
            "status": status,
            "summary_digest": "sha256:" + invocation._summary.hexdigest(),
        }
        if invocation.last_sequence is not None:
            completed["last_sequence"] = invocation.last_sequence
        with self._lock:
            self._active = None
        try:
            self._notifier.send("driver.completed", completed)
        except RuntimeError as error:
            print(f"wirekit: {error}", file=sys.stderr)

    def _on_cancel(self, params: Any) -> Any:
        with self._lock:
            active = self._active
        if active is not None and active.invocation_id == params["invocation_id"]:
            active.cancelled.set()
        return {"acknowledged": True}

    def _on_reset(self, params: Any) -> Any:
        for hook in self._reset_hooks:
            hook()
        return {}

    def _on_shutdown(self, params: Any) -> Any:
        self._join()
        for hook in self._shutdown_hooks:
            hook()
        if self._data_plane is not None:
            self._data_plane.close()
        return {}

    def _join(self) -> None:
        worker = self._worker
        if worker is not None:
            worker.join()
            self._worker = None
