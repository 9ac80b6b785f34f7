//! Why a server's answer or notification could not be decoded.

use std::fmt;

/// The kind of a [`DecodeError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// A member has the wrong JSON type, or the value is none of the
    /// shapes the answer may take.
    WrongType,
    /// A required member is absent.
    MissingMember,
    /// A line or character is negative or does not fit 32 bits.
    BadPosition,
    /// A number is outside the values the protocol allows (a diagnostic
    /// severity outside 1 to 4, a message type outside 1 to 5).
    OutOfRange,
    /// A list mixes the entries of two dialects (a `DocumentSymbol` among
    /// `SymbolInformation`s).
    MixedDialects,
    /// A `WorkspaceEdit` creates, renames or deletes a file: refused whole.
    ResourceOperationRefused,
    /// A `file:` URI does not decode (see [`crate::uri::UriFault`]).
    BadUri,
}

impl DecodeErrorKind {
    /// A stable machine code.
    pub fn code(self) -> &'static str {
        match self {
            DecodeErrorKind::WrongType => "wrong_type",
            DecodeErrorKind::MissingMember => "missing_member",
            DecodeErrorKind::BadPosition => "bad_position",
            DecodeErrorKind::OutOfRange => "out_of_range",
            DecodeErrorKind::MixedDialects => "mixed_dialects",
            DecodeErrorKind::ResourceOperationRefused => "resource_operation_refused",
            DecodeErrorKind::BadUri => "bad_uri",
        }
    }
}

/// A decoding failure: its kind, the JSON pointer of the offending member
/// within the decoded value (`/2/range/start/line`: a list fails naming its
/// index), and a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(Box<Inner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    kind: DecodeErrorKind,
    pointer: String,
    message: String,
}

impl DecodeError {
    /// A failure of `kind` at `pointer`.
    pub fn new(
        kind: DecodeErrorKind,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        DecodeError(Box::new(Inner {
            kind,
            pointer: pointer.into(),
            message: message.into(),
        }))
    }

    /// The kind.
    pub fn kind(&self) -> DecodeErrorKind {
        self.0.kind
    }

    /// The JSON pointer of the offending member (empty: the whole value).
    pub fn pointer(&self) -> &str {
        &self.0.pointer
    }

    /// What is wrong, for people.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The same failure inside a member or list entry `segment` of a larger value.
    #[must_use]
    pub fn within(mut self, segment: &str) -> Self {
        let escaped = segment.replace('~', "~0").replace('/', "~1");
        self.0.pointer = format!("/{escaped}{}", self.0.pointer);
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.0.pointer.is_empty() {
            "the answer"
        } else {
            &self.0.pointer
        };
        write!(f, "{} at {at}: {}", self.0.kind.code(), self.0.message)
    }
}

impl std::error::Error for DecodeError {}
