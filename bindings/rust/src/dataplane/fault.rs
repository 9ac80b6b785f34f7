//! What can be wrong on the data plane: each fault its own kind.

use std::fmt;

/// The kind of a [`DataPlaneError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DataFaultKind {
    /// The header length prefix is 0 or over the header bound.
    HeaderTooLarge,
    /// The header is not a valid `DataFrameHeader` (JSON, members, types).
    InvalidHeader,
    /// The payload length is over the plane's bound.
    TooLarge,
    /// A sequence not greater than the stream's previous one.
    OutOfSequence,
    /// A frame for a stream whose final frame has come.
    AfterFinal,
    /// The input ended inside a frame.
    Truncated,
    /// A frame for a stream the control plane never announced.
    UnknownStream,
    /// The frame's invocation or attempt is not its stream's.
    IdentityMismatch,
}

impl DataFaultKind {
    /// A stable machine code (`too-large`).
    pub fn code(self) -> &'static str {
        match self {
            DataFaultKind::HeaderTooLarge => "header-too-large",
            DataFaultKind::InvalidHeader => "invalid-header",
            DataFaultKind::TooLarge => "too-large",
            DataFaultKind::OutOfSequence => "out-of-sequence",
            DataFaultKind::AfterFinal => "after-final",
            DataFaultKind::Truncated => "truncated",
            DataFaultKind::UnknownStream => "unknown-stream",
            DataFaultKind::IdentityMismatch => "identity-mismatch",
        }
    }
}

/// A data-plane fault: its kind, the byte offset of the frame it concerns,
/// and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPlaneError(Box<(DataFaultKind, u64, String)>);

impl DataPlaneError {
    pub(crate) fn new(kind: DataFaultKind, offset: u64, message: impl Into<String>) -> Self {
        DataPlaneError(Box::new((kind, offset, message.into())))
    }

    /// What is wrong.
    pub fn kind(&self) -> DataFaultKind {
        self.0 .0
    }

    /// The offset of the frame's first byte in the plane.
    pub fn offset(&self) -> u64 {
        self.0 .1
    }

    /// A sentence a person understands.
    pub fn message(&self) -> &str {
        &self.0 .2
    }
}

impl fmt::Display for DataPlaneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at byte {}: {}",
            self.kind().code(),
            self.offset(),
            self.message()
        )
    }
}

impl std::error::Error for DataPlaneError {}
