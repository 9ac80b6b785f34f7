"""The driver protocol's companion data plane, the driver's side.

A data frame is a 4-byte big-endian header length (1 to 4096), the
`DataFrameHeader` as RFC 8785 JSON (`invocation_id`, `attempt_id`,
`stream_id`, `sequence`, `length`, `final`), then `length` payload bytes.
`length` is at most 256 KiB (the protocol's default bound) or the lower
bound the host negotiated. A stream's sequences strictly increase and its
`final` frame closes it. The same rules as the Rust core's
`wirekit::dataplane` (which the host decodes with); the shared vectors in
`tests/vectors/dataplane` hold both to them.

How the stream is carried and negotiated: the host listens on a Unix
socket and names it in the driver's environment (`WIREKIT_DATA_SOCKET`),
with the bound it accepts (`WIREKIT_DATA_MAX_FRAME_BYTES`, at most 256 KiB;
absent means the default). The driver connects while it handles
`driver.prepare`, so the plane is up before the first invocation; the
reference's `PrepareParams` and `PrepareResult` are closed objects, so
nothing is added to them. Where no socket is offered (the variable unset,
or not on Unix) there is no data plane: `Invocation.observe_data` raises
and the driver sends payloads inline.
"""

from __future__ import annotations

import json
import os
import socket
import struct
from collections.abc import Iterable
from typing import Any, Optional

__all__ = [
    "DEFAULT_MAX_FRAME_BYTES",
    "DataFault",
    "Decoder",
    "LIMIT_ENV",
    "MAX_HEADER_BYTES",
    "SOCKET_ENV",
    "Writer",
    "encode_frame",
]

DEFAULT_MAX_FRAME_BYTES = 256 << 10
"""The protocol's data-frame bound (`DefaultMaxDataFrameBytes`)."""
MAX_HEADER_BYTES = 4096
"""The largest header this framing carries."""
SOCKET_ENV = "WIREKIT_DATA_SOCKET"
LIMIT_ENV = "WIREKIT_DATA_MAX_FRAME_BYTES"


def encode_frame(header: dict[str, Any], payload: bytes) -> bytes:
    """One frame: the header's length, the canonical header, the payload.
    Raises `ValueError` when the header's length is not the payload's or
    is over the default bound."""
    if header.get("length") != len(payload):
        raise ValueError(f"header length {header.get('length')} but {len(payload)} payload bytes")
    if len(payload) > DEFAULT_MAX_FRAME_BYTES:
        raise ValueError(f"a data frame carries at most {DEFAULT_MAX_FRAME_BYTES} bytes, not {len(payload)}")
    encoded = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    if not 0 < len(encoded) <= MAX_HEADER_BYTES:
        raise ValueError(f"a data frame header is 1 to {MAX_HEADER_BYTES} bytes, not {len(encoded)}")
    return struct.pack(">I", len(encoded)) + encoded + payload


class Writer:
    """The driver's end of the data plane: cuts a payload into frames."""

    def __init__(self, sink: socket.socket, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        if not 0 < max_frame_bytes <= DEFAULT_MAX_FRAME_BYTES:
            raise ValueError(f"the bound is 1 to {DEFAULT_MAX_FRAME_BYTES} bytes, not {max_frame_bytes}")
        self._sink = sink
        self.max_frame_bytes = max_frame_bytes

    @classmethod
    def from_environment(cls) -> Optional[Writer]:
        """Connects to the socket the host offered; None when none was."""
        path = os.environ.get(SOCKET_ENV)
        if not path or not hasattr(socket, "AF_UNIX"):
            return None
        limit = int(os.environ.get(LIMIT_ENV) or DEFAULT_MAX_FRAME_BYTES)
        sink = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sink.connect(path)
        return cls(sink, min(limit, DEFAULT_MAX_FRAME_BYTES))

    def send_stream(
        self,
        invocation_id: str,
        attempt_id: str,
        stream_id: str,
        parts: Iterable[Any],
        summary: Any = None,
    ) -> int:
        """Sends `parts` (bytes-like) as one stream, sequences from 1, the
        last frame final; returns the number of frames. `summary`, a
        hashlib object, sees every payload byte."""
        sequence = 0

        def send(payload: bytes, final: bool) -> None:
            nonlocal sequence
            sequence += 1
            header = {
                "invocation_id": invocation_id,
                "attempt_id": attempt_id,
                "stream_id": stream_id,
                "sequence": sequence,
                "length": len(payload),
                "final": final,
            }
            if summary is not None:
                summary.update(payload)
            self._sink.sendall(encode_frame(header, payload))

        pending: Optional[bytes] = None
        for part in parts:
            view = memoryview(part).cast("B")
            for start in range(0, len(view), self.max_frame_bytes):
                if pending is not None:
                    send(pending, False)
                pending = bytes(view[start : start + self.max_frame_bytes])
        send(pending if pending is not None else b"", True)
        return sequence

    def close(self) -> None:
        self._sink.close()


class DataFault(Exception):
    """A data-plane fault: `kind` is the core's code (`too-large`,
    `out-of-sequence`, `after-final`, `truncated`, `unknown-stream`,
    `identity-mismatch`, `header-too-large`, `invalid-header`) and `offset`
    the frame's first byte."""

    def __init__(self, kind: str, offset: int, message: str) -> None:
        super().__init__(f"{kind} at byte {offset}: {message}")
        self.kind = kind
        self.offset = offset


_HEADER_MEMBERS = {
    "invocation_id": str,
    "attempt_id": str,
    "stream_id": str,
    "sequence": int,
    "length": int,
    "final": bool,
}


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"the member {key!r} is repeated")
        seen[key] = value
    return seen


class Decoder:
    """The host's side, I/O-free: push bytes in any chunks, get whole
    frames `(header, payload)`; holds at most one frame. The same rules and
    fault kinds as the core's `DataDecoder` (the shared vectors check both)."""

    def __init__(self, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        self.max_frame_bytes = min(max_frame_bytes, DEFAULT_MAX_FRAME_BYTES)
        self._streams: dict[str, dict[str, Any]] = {}
        self._buffer = bytearray()
        self._want = 4
        self._state = "prefix"
        self._header: Optional[dict[str, Any]] = None
        self._frame_offset = 0
        self._offset = 0
        self.fault: Optional[DataFault] = None

    def announce(self, stream_id: str, invocation_id: str, attempt_id: str) -> None:
        """A stream the control plane announced (an observation's `data_stream`)."""
        self._streams.setdefault(
            stream_id, {"invocation_id": invocation_id, "attempt_id": attempt_id, "last": None, "closed": False}
        )

    def is_closed(self, stream_id: str) -> bool:
        return bool(self._streams.get(stream_id, {}).get("closed"))

    def _fail(self, kind: str, message: str) -> DataFault:
        self.fault = DataFault(kind, self._frame_offset, message)
        self._buffer = bytearray()
        return self.fault

    def push(self, data: bytes) -> list[Any]:
        """Returns the frames `data` completes (`(header, payload)` tuples),
        then the `DataFault` that stopped decoding, if one did."""
        out: list[Any] = []
        view = memoryview(data)
        while self.fault is None and (len(view) or (self._state == "payload" and self._want == 0)):
            take = min(self._want - len(self._buffer), len(view))
            self._buffer += view[:take]
            view = view[take:]
            self._offset += take
            if len(self._buffer) < self._want:
                break
            step = self._step()
            if step is not None:
                out.append(step)
        return out

    def finish(self) -> None:
        """The input has ended: raises `DataFault` (`truncated`) inside a frame."""
        if self.fault is not None:
            raise self.fault
        if self._state != "prefix" or self._buffer:
            raise self._fail("truncated", f"the input ended inside a frame ({self._offset - self._frame_offset} bytes of it read)")

    def _step(self) -> Any:
        if self._state == "prefix":
            (length,) = struct.unpack(">I", bytes(self._buffer))
            self._buffer.clear()
            if not 0 < length <= MAX_HEADER_BYTES:
                return self._fail("header-too-large", f"a header of {length} bytes; a header has 1 to {MAX_HEADER_BYTES}")
            self._state, self._want = "header", length
            return None
        if self._state == "header":
            raw = bytes(self._buffer)
            self._buffer.clear()
            try:
                header = json.loads(raw.decode("utf-8"), object_pairs_hook=_strict_object)
            except ValueError as error:
                return self._fail("invalid-header", f"the header is not one JSON value: {error}")
            problem = self._shape(header)
            if problem:
                return self._fail("invalid-header", problem)
            fault = self._admit(header)
            if fault is not None:
                return fault
            self._header, self._state, self._want = header, "payload", header["length"]
            return None
        header = self._header
        assert header is not None
        payload = bytes(self._buffer)
        self._buffer.clear()
        stream = self._streams[header["stream_id"]]
        stream["last"], stream["closed"] = header["sequence"], header["final"]
        self._state, self._want, self._header = "prefix", 4, None
        self._frame_offset = self._offset
        return (header, payload)

    @staticmethod
    def _shape(header: Any) -> Optional[str]:
        if not isinstance(header, dict):
            return "the header is not an object"
        if set(header) != set(_HEADER_MEMBERS):
            return f"the header has members {sorted(header)}, not {sorted(_HEADER_MEMBERS)}"
        for name, kind in _HEADER_MEMBERS.items():
            value = header[name]
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                return f"{name} is not a {kind.__name__}"
        if header["sequence"] < 0 or not 0 <= header["length"] <= 0xFFFFFFFF:
            return "sequence and length are unsigned"
        if not (header["stream_id"] and header["invocation_id"] and header["attempt_id"]):
            return "invocation_id, attempt_id and stream_id are required (non-empty)"
        return None

    def _admit(self, header: dict[str, Any]) -> Optional[DataFault]:
        if header["length"] > self.max_frame_bytes:
            return self._fail("too-large", f"a {header['length']}-byte payload, over the bound of {self.max_frame_bytes} bytes")
        stream = self._streams.get(header["stream_id"])
        if stream is None:
            return self._fail("unknown-stream", f"stream {header['stream_id']!r} was never announced by an observation")
        if (stream["invocation_id"], stream["attempt_id"]) != (header["invocation_id"], header["attempt_id"]):
            return self._fail("identity-mismatch", f"stream {header['stream_id']!r} belongs to another invocation or attempt")
        if stream["closed"]:
            return self._fail("after-final", f"a frame for stream {header['stream_id']!r} after its final frame")
        if stream["last"] is not None and header["sequence"] <= stream["last"]:
            return self._fail("out-of-sequence", f"sequence {header['sequence']} after {stream['last']}")
        return None
