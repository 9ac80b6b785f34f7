//! What a request, a start or a sync can answer instead of a result.

use std::fmt;

use crate::capabilities::Feature;
use crate::decode::DecodeError;

/// The kind of a [`RequestError`], with a stable code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestErrorKind {
    /// The server did not advertise the feature: refused, never sent.
    Unsupported,
    /// The server answered with a JSON-RPC error.
    ServerError,
    /// No answer in time: cancelled, and a late answer will be dropped.
    TimedOut,
    /// No answer in time, but an answer to an id no request has came
    /// meanwhile: the server answered with a wrong id.
    WrongId,
    /// The server cannot answer (gone, faulted, or it reported a failure
    /// and then answered with nothing).
    Unavailable,
    /// The answer does not decode.
    Malformed,
    /// A path that is not absolute or not a file URI's.
    InvalidPath,
    /// A rename edit with a resource operation: refused whole.
    EditRefused,
}

impl RequestErrorKind {
    /// A stable machine code.
    pub fn code(self) -> &'static str {
        match self {
            RequestErrorKind::Unsupported => "unsupported",
            RequestErrorKind::ServerError => "server_error",
            RequestErrorKind::TimedOut => "timed_out",
            RequestErrorKind::WrongId => "wrong_id",
            RequestErrorKind::Unavailable => "unavailable",
            RequestErrorKind::Malformed => "malformed",
            RequestErrorKind::InvalidPath => "invalid_path",
            RequestErrorKind::EditRefused => "edit_refused",
        }
    }
}

/// Why a request has no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    /// The server did not advertise the feature; nothing was sent.
    Unsupported(Feature),
    /// The server's error answer.
    ServerError {
        /// Its code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// No answer within this many milliseconds.
    TimedOut {
        /// The timeout.
        after_ms: u64,
    },
    /// No answer to request `sent` within `after_ms`, while an answer to
    /// the id `answered` (JSON), which no request has, came.
    WrongId {
        /// The request's id.
        sent: i64,
        /// The id the server answered, as JSON.
        answered: String,
        /// The timeout.
        after_ms: u64,
    },
    /// The server cannot answer, and why.
    Unavailable(String),
    /// The answer did not decode.
    Malformed(DecodeError),
    /// A path the client cannot name to the server.
    InvalidPath(String),
    /// The edit would create, rename or delete a file.
    EditRefused(DecodeError),
}

impl RequestError {
    /// The kind.
    pub fn kind(&self) -> RequestErrorKind {
        match self {
            RequestError::Unsupported(_) => RequestErrorKind::Unsupported,
            RequestError::ServerError { .. } => RequestErrorKind::ServerError,
            RequestError::TimedOut { .. } => RequestErrorKind::TimedOut,
            RequestError::WrongId { .. } => RequestErrorKind::WrongId,
            RequestError::Unavailable(_) => RequestErrorKind::Unavailable,
            RequestError::Malformed(_) => RequestErrorKind::Malformed,
            RequestError::InvalidPath(_) => RequestErrorKind::InvalidPath,
            RequestError::EditRefused(_) => RequestErrorKind::EditRefused,
        }
    }

    /// The kind's stable code.
    pub fn code(&self) -> &'static str {
        self.kind().code()
    }
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::Unsupported(feature) => {
                write!(
                    f,
                    "the server does not offer {feature} (`{}` not advertised); nothing was sent",
                    feature.capability()
                )
            }
            RequestError::ServerError { code, message } => {
                write!(f, "the server answered error {code}: {message}")
            }
            RequestError::TimedOut { after_ms } => write!(
                f,
                "no answer within {after_ms} ms; the request was cancelled"
            ),
            RequestError::WrongId {
                sent,
                answered,
                after_ms,
            } => write!(
                f,
                "the server answered id {answered}, which no request has, and request {sent} got no \
                 answer within {after_ms} ms (an answer with a wrong id?); the request was cancelled"
            ),
            RequestError::Unavailable(reason) => write!(f, "the server is unavailable: {reason}"),
            RequestError::Malformed(error) => {
                write!(f, "the server's answer is malformed: {error}")
            }
            RequestError::InvalidPath(path) => write!(f, "invalid path: {path}"),
            RequestError::EditRefused(error) => {
                write!(f, "the edit is refused: {}", error.message())
            }
        }
    }
}

impl std::error::Error for RequestError {}

/// Why a server could not be started.
#[derive(Debug)]
pub enum StartError {
    /// The root is not an existing directory.
    BadRoot(String),
    /// The server could not be spawned.
    Spawn(std::io::Error),
    /// `initialize` failed.
    HandshakeFailed(RequestError),
    /// The server chose a position encoding other than UTF-16.
    EncodingUnsupported(String),
}

impl StartError {
    /// A stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            StartError::BadRoot(_) => "bad_root",
            StartError::Spawn(_) => "spawn",
            StartError::HandshakeFailed(_) => "handshake_failed",
            StartError::EncodingUnsupported(_) => "encoding_unsupported",
        }
    }
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::BadRoot(root) => write!(f, "the root {root} is not a directory"),
            StartError::Spawn(error) => write!(f, "cannot start the server: {error}"),
            StartError::HandshakeFailed(error) => write!(f, "initialize failed: {error}"),
            StartError::EncodingUnsupported(encoding) => {
                write!(f, "the server chose position encoding `{encoding}`; this client speaks UTF-16 only")
            }
        }
    }
}

impl std::error::Error for StartError {}
