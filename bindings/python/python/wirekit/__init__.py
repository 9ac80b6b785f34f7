"""wirekit: JSON-RPC over stdio driven by JSON Schemas.

The Rust core does the framing, the envelopes, validation and the serve
loop; Python brings the handlers. See `wirekit.gaze` for Gaze analyzers,
`wirekit.gzkit` for gzkit authoring guide services and `wirekit.Service`
for any protocol of the registry.
"""

from ._native import (
    ContentLengthDecoder,
    ContentLengthEncoder,
    Frame,
    JsonSchema,
    Message,
    NdjsonDecoder,
    NdjsonEncoder,
    Protocol,
    Server,
    Session,
    ValidationIssue,
    __version__,
    decode,
    embedded_protocols,
    encode,
)
from .errors import (
    EnvelopeError,
    FramingError,
    NotJsonError,
    PeerError,
    ProtocolError,
    RpcError,
    SessionViolation,
    UnexpectedMessage,
    ValidationError,
    WirekitError,
)
from .service import Context, Service

__all__ = [
    "ContentLengthDecoder",
    "ContentLengthEncoder",
    "Context",
    "EnvelopeError",
    "Frame",
    "FramingError",
    "JsonSchema",
    "Message",
    "NdjsonDecoder",
    "NdjsonEncoder",
    "NotJsonError",
    "PeerError",
    "Protocol",
    "ProtocolError",
    "RpcError",
    "Server",
    "Service",
    "Session",
    "SessionViolation",
    "UnexpectedMessage",
    "ValidationError",
    "ValidationIssue",
    "WirekitError",
    "__version__",
    "decode",
    "embedded_protocols",
    "encode",
]
