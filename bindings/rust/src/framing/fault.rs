//! Framing faults: what went wrong, and where in the stream.
//!
//! A [`FramingError`] is either a decoder fault (the peer sent bytes that do
//! not frame) or an encoder refusal (the caller asked to send a body that
//! would not decode back to the same frame). Its [`FaultKind`] is the stable,
//! language-neutral name used by the test vectors.

use std::borrow::Cow;
use std::fmt;

use super::Framing;

/// The kind of a framing fault.
///
/// [`FaultKind::name`] is the variant name exactly (`"HeaderTooLong"`, ...);
/// the test vectors in `tests/vectors/framing/` use those names.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// `Content-Length` only: the header section (its terminating blank line
    /// included) grew past [`FrameLimits::max_header_bytes`](super::FrameLimits::max_header_bytes).
    HeaderTooLong,
    /// A frame is larger than [`FrameLimits::max_frame_bytes`](super::FrameLimits::max_frame_bytes):
    /// a declared `Content-Length` over the bound, an NDJSON line over the
    /// bound, or a body handed to an encoder over the bound.
    FrameTooLong,
    /// `Content-Length` only: a header section without a `Content-Length` header.
    MissingContentLength,
    /// `Content-Length` only: a second `Content-Length` header, even with
    /// the same value.
    DuplicateContentLength,
    /// `Content-Length` only: the value is not ASCII digits (after trimming
    /// spaces and tabs), is empty, or overflows a 64-bit count.
    BadContentLength,
    /// `Content-Length` only: a header line that is not `name: value` text
    /// (no colon, empty or non-token name, control characters, not UTF-8,
    /// a bare CR or LF instead of CRLF).
    MalformedHeader,
    /// A complete body (or line) is not valid UTF-8.
    BodyNotUtf8,
    /// `Content-Length` only: input ended inside a header section or body.
    TruncatedFrame,
    /// NDJSON only: an empty line (or one holding only a CR). The encoder
    /// also refuses an empty NDJSON body with this kind, since it would
    /// decode as this fault.
    EmptyFrame,
    /// NDJSON encoder only: the body contains a raw LF or CR byte, so it
    /// would not stay one line.
    EmbeddedNewline,
    /// NDJSON with strict line endings only: a CR that is not the one right
    /// before the line's LF (`{"a":\r1}`, `{}\r\r\n`, or a final `{}\r`
    /// without LF): the line is not one NDJSON line.
    BareCarriageReturn,
}

impl FaultKind {
    /// Every kind, in declaration order.
    pub const ALL: [FaultKind; 11] = [
        FaultKind::HeaderTooLong,
        FaultKind::FrameTooLong,
        FaultKind::MissingContentLength,
        FaultKind::DuplicateContentLength,
        FaultKind::BadContentLength,
        FaultKind::MalformedHeader,
        FaultKind::BodyNotUtf8,
        FaultKind::TruncatedFrame,
        FaultKind::EmptyFrame,
        FaultKind::EmbeddedNewline,
        FaultKind::BareCarriageReturn,
    ];

    /// The variant name, e.g. `"HeaderTooLong"`.
    pub const fn name(self) -> &'static str {
        match self {
            FaultKind::HeaderTooLong => "HeaderTooLong",
            FaultKind::FrameTooLong => "FrameTooLong",
            FaultKind::MissingContentLength => "MissingContentLength",
            FaultKind::DuplicateContentLength => "DuplicateContentLength",
            FaultKind::BadContentLength => "BadContentLength",
            FaultKind::MalformedHeader => "MalformedHeader",
            FaultKind::BodyNotUtf8 => "BodyNotUtf8",
            FaultKind::TruncatedFrame => "TruncatedFrame",
            FaultKind::EmptyFrame => "EmptyFrame",
            FaultKind::EmbeddedNewline => "EmbeddedNewline",
            FaultKind::BareCarriageReturn => "BareCarriageReturn",
        }
    }

    /// The kind whose [`name`](FaultKind::name) is exactly `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A framing fault from a decoder, or a body refused by an encoder.
///
/// Small (one pointer) so that `Result<Frame, FramingError>` stays cheap.
#[derive(Clone, PartialEq, Eq)]
pub struct FramingError(Box<Inner>);

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    kind: FaultKind,
    framing: Framing,
    offset: u64,
    detail: Cow<'static, str>,
    encode: bool,
    /// The refused line's first bytes (at most the frame bound), where the
    /// decoder kept them: what a protocol that recovers the id of a
    /// refused frame reads it from.
    head: Vec<u8>,
}

impl FramingError {
    /// A decoder fault for the frame or line starting at `offset`.
    pub(crate) fn decode(
        kind: FaultKind,
        framing: Framing,
        offset: u64,
        detail: impl Into<Cow<'static, str>>,
    ) -> Self {
        FramingError(Box::new(Inner {
            kind,
            framing,
            offset,
            detail: detail.into(),
            encode: false,
            head: Vec::new(),
        }))
    }

    /// An encoder refusal (no stream offset).
    pub(crate) fn encode(
        kind: FaultKind,
        framing: Framing,
        detail: impl Into<Cow<'static, str>>,
    ) -> Self {
        FramingError(Box::new(Inner {
            kind,
            framing,
            offset: 0,
            detail: detail.into(),
            encode: true,
            head: Vec::new(),
        }))
    }

    /// This fault with the refused line's first bytes kept.
    pub(crate) fn with_head(mut self, head: Vec<u8>) -> Self {
        self.0.head = head;
        self
    }

    /// The first bytes of the refused NDJSON line (a bare CR, a body that
    /// is not UTF-8: the whole line; a line over the bound: its first
    /// `max_frame_bytes`), or nothing where the decoder kept none (an
    /// empty line, Content-Length faults, encoder refusals). A protocol
    /// whose reference answers such a frame with its id reads the id
    /// from here ([`crate::envelope::recover_id`]).
    pub fn head(&self) -> &[u8] {
        &self.0.head
    }

    /// What went wrong.
    pub fn kind(&self) -> FaultKind {
        self.0.kind
    }

    /// The framing whose decoder or encoder reported this.
    pub fn framing(&self) -> Framing {
        self.0.framing
    }

    /// Byte offset, counted from the first byte of the whole stream, where
    /// the faulty frame (its first header byte) or line starts.
    ///
    /// Always `0` for an encoder refusal, which has no stream.
    pub fn offset(&self) -> u64 {
        self.0.offset
    }

    /// A sentence a person understands, e.g. `declared Content-Length
    /// 20000000 exceeds the frame bound of 16777216 bytes`.
    pub fn detail(&self) -> &str {
        &self.0.detail
    }

    /// Whether an encoder refused a body (rather than a decoder reporting
    /// a fault in its input).
    pub fn is_encode(&self) -> bool {
        self.0.encode
    }

    /// Whether this fault ended the stream: the decoder that reported it
    /// is dead and yields nothing more.
    ///
    /// Every `Content-Length` decoder fault ends the stream (the frame
    /// boundaries are lost); no NDJSON fault does (the next LF resynchronises).
    /// An encoder refusal never does. See [`Framing::faults_end_stream`].
    pub fn ends_stream(&self) -> bool {
        !self.0.encode && self.0.framing.faults_end_stream()
    }
}

impl fmt::Debug for FramingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("FramingError");
        s.field("kind", &self.0.kind)
            .field("framing", &self.0.framing);
        if !self.0.encode {
            s.field("offset", &self.0.offset);
        }
        s.field("detail", &self.0.detail).finish()
    }
}

impl fmt::Display for FramingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.encode {
            write!(f, "{} refused: {}", self.0.kind, self.0.detail)
        } else {
            write!(
                f,
                "{} in {} frame at byte {}: {}",
                self.0.kind, self.0.framing, self.0.offset, self.0.detail
            )
        }
    }
}

impl std::error::Error for FramingError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for kind in FaultKind::ALL {
            assert_eq!(FaultKind::from_name(kind.name()), Some(kind));
            assert_eq!(kind.to_string(), format!("{kind:?}"));
        }
        assert_eq!(FaultKind::from_name("headertoolong"), None);
    }

    #[test]
    fn error_is_one_pointer() {
        assert_eq!(
            std::mem::size_of::<FramingError>(),
            std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn display_and_stream_ending() {
        let e = FramingError::decode(
            FaultKind::FrameTooLong,
            Framing::ContentLength,
            42,
            "declared Content-Length 20000000 exceeds the frame bound of 16777216 bytes",
        );
        assert_eq!(
            e.to_string(),
            "FrameTooLong in content-length frame at byte 42: declared Content-Length \
             20000000 exceeds the frame bound of 16777216 bytes"
        );
        assert!(e.ends_stream());
        let n = FramingError::decode(FaultKind::EmptyFrame, Framing::Ndjson, 0, "x");
        assert!(!n.ends_stream());
        let r = FramingError::encode(FaultKind::FrameTooLong, Framing::ContentLength, "x");
        assert!(!r.ends_stream() && r.is_encode() && r.offset() == 0);
        assert_eq!(r.to_string(), "FrameTooLong refused: x");
    }
}
