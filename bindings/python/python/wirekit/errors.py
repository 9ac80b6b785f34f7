"""The exceptions wirekit raises, defined here and raised from Rust too.

Every exception is a `WirekitError`. Their attributes are plain data, so a
caller can turn any of them into an answer or a log line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Union

if TYPE_CHECKING:
    from ._native import Message, ValidationIssue

__all__ = [
    "EnvelopeError",
    "FramingError",
    "NotJsonError",
    "PeerError",
    "ProtocolError",
    "RpcError",
    "SessionViolation",
    "UnexpectedMessage",
    "ValidationError",
    "WirekitError",
]


class WirekitError(Exception):
    """The base of every wirekit exception."""


class FramingError(WirekitError):
    """A decoder fault (the bytes do not frame) or an encoder refusal.

    `kind` is the Rust fault's name (`"FrameTooLong"`, `"TruncatedFrame"`, ...),
    `offset` the stream offset where the faulty frame starts (0 for an
    encoder refusal), `detail` a sentence, `ends_stream` whether the decoder
    is dead after it.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        framing: str,
        offset: int,
        detail: str,
        is_encode: bool,
        ends_stream: bool,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.framing = framing
        self.offset = offset
        self.detail = detail
        self.is_encode = is_encode
        self.ends_stream = ends_stream


class EnvelopeError(WirekitError, ValueError):
    """A message body that is not a valid JSON-RPC envelope (a `ValueError`,
    as `json.JSONDecodeError` is).

    `kind` is the stable name (`"Parse"`, `"InvalidId"`, ...), `code` the
    JSON-RPC code to answer with, `pointer` the offending member, `id` the
    request id when it could be read, `response` the error response to send.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        code: int,
        pointer: str,
        id: Union[int, str, None],
        line: Optional[int],
        column: Optional[int],
        response: Message,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.pointer = pointer
        self.id = id
        self.line = line
        self.column = column
        self.response = response


class NotJsonError(WirekitError, ValueError, TypeError):
    """A Python value wirekit does not write as JSON (a result, params, a
    value to validate): the writing side's twin of `EnvelopeError`.

    `pointer` is the JSON pointer of the offending value, `kind` is `"type"`
    for an object of no JSON type (a set, a custom object, a non-str key)
    and `"value"` for one JSON cannot carry as wirekit writes it (an integer
    beyond 64 bits, NaN or an infinity, nesting deeper than 128 levels, a
    lone surrogate). It is a `TypeError` and a `ValueError` both, as
    `json.dumps` raises one or the other.
    """

    def __init__(self, message: str, *, kind: str, pointer: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.pointer = pointer


class ProtocolError(WirekitError):
    """A protocol that could not be found, loaded or compiled."""

    def __init__(self, message: str, *, kind: str, file: str, pointer: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.file = file
        self.pointer = pointer


class ValidationError(WirekitError):
    """A part of a message (params, result, item, error data) failed its schema.

    `issues` lists every problem with its kind, instance path, schema path
    and message.
    """

    def __init__(
        self, message: str, *, method: str, part: str, issues: list[ValidationIssue]
    ) -> None:
        super().__init__(message)
        self.method = method
        self.part = part
        self.issues = issues

    @property
    def pointers(self) -> list[str]:
        """The instance paths of the issues, in order."""
        return [issue.instance_path for issue in self.issues]


class RpcError(WirekitError):
    """A JSON-RPC error: raise it from a handler to answer with it.

    Also raised by `Protocol.read_result` for an error response.
    """

    def __init__(self, message: str, *, code: int, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class SessionViolation(WirekitError):
    """A message the session's lifecycle does not allow now.

    `kind` is `"wrong-state"`, `"capability-not-declared"`,
    `"version-mismatch"`, `"session-ended"` or `"rule"`; `code` and `data`
    form the protocol's answer.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        code: int,
        data: Any,
        pointer: Optional[str],
        ends_session: bool,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.data = data
        self.pointer = pointer
        self.ends_session = ends_session



class UnexpectedMessage(WirekitError, ValueError):
    """A well-formed message of the wrong kind for the call, such as a
    request given to `Protocol.read_result`, which reads responses.

    `kind` is the kind received (`"request"`, `"notification"`),
    `expected` the kind the call reads (`"response"`). Also a `ValueError`,
    as it was before it had a class of its own.
    """

    def __init__(self, message: str, *, kind: str, expected: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.expected = expected


class ConformanceError(WirekitError, ValueError):
    """A conformance run that could not start: no server command, an
    unknown group, a project root or record file that cannot be used.

    `code` is the core's stable machine code (`no_command`,
    `unknown_group`, `bad_root`, `bad_server`, `record`). A failing server is
    not this: it is a report with failed checks (see `wirekit.testing`).
    """

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


class PeerError(WirekitError):
    """What a handler sent the client did not come through, or the answer
    it waited for did not (`Context.notify`, `Context.request`).

    `kind` is the core's stable machine code: `refused` (the loop did not
    send it: not a message the server sends, params that break the schema,
    a state or capability that forbids it; `pointer` says where),
    `invalid-answer` (the client's answer broke the method's result schema),
    `timed-out`, `closed` (the session is over) or `not-here`. `method` is
    the method concerned, `pointer` a JSON pointer into the message, when
    known. An error answer from the client is raised as `RpcError` instead.
    """

    def __init__(
        self, message: str, *, kind: str, method: Optional[str] = None, pointer: Optional[str] = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.method = method
        self.pointer = pointer
