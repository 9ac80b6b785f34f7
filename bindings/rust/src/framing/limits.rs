//! Bounds that a decoder enforces before it buffers, and an encoder before
//! it writes.

/// The size bounds of one framing.
///
/// A decoder never holds more than `max_frame_bytes` of a frame (plus
/// `max_header_bytes` of `Content-Length` header, plus the chunk being
/// pushed); anything larger is refused as
/// [`FrameTooLong`](super::FaultKind::FrameTooLong) or
/// [`HeaderTooLong`](super::FaultKind::HeaderTooLong) as soon as it is known
/// to be larger, before its bytes are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FrameLimits {
    /// Largest body (`Content-Length`) or line without its line ending
    /// (NDJSON), in bytes.
    pub max_frame_bytes: usize,
    /// Largest `Content-Length` header section, in bytes, counting every
    /// header line with its CRLF and the terminating blank line (CRLF).
    /// NDJSON ignores it.
    pub max_header_bytes: usize,
    /// NDJSON only: strict line endings (a strict protocol's "one NDJSON
    /// line"). A line ends with LF or CRLF and holds no other CR: a bare CR
    /// anywhere in it (`\r\r\n` included, or a final line ending in CR
    /// without LF) is a [`BareCarriageReturn`](super::FaultKind::BareCarriageReturn)
    /// fault. Lenient lines (`false`) keep such CRs as line bytes.
    pub strict_line_endings: bool,
}

impl FrameLimits {
    /// The `Content-Length` frame bound: 16 MiB.
    pub const CONTENT_LENGTH_MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;
    /// The `Content-Length` header section bound: 8 KiB.
    pub const CONTENT_LENGTH_MAX_HEADER_BYTES: usize = 8 * 1024;
    /// The NDJSON line bound: 1 MiB (AgentAPI's `MaxControlFrameBytes`).
    pub const NDJSON_MAX_FRAME_BYTES: usize = 1024 * 1024;

    /// Both bounds given explicitly.
    pub const fn new(max_frame_bytes: usize, max_header_bytes: usize) -> Self {
        FrameLimits {
            max_frame_bytes,
            max_header_bytes,
            strict_line_endings: false,
        }
    }

    /// 16 MiB frames, 8 KiB header sections (LSP base protocol practice).
    pub const fn content_length_default() -> Self {
        Self::new(
            Self::CONTENT_LENGTH_MAX_FRAME_BYTES,
            Self::CONTENT_LENGTH_MAX_HEADER_BYTES,
        )
    }

    /// 1 MiB lines. `max_header_bytes` is set to the `Content-Length`
    /// default (8 KiB) so these limits stay sane if reused for that framing.
    pub const fn ndjson_default() -> Self {
        Self::new(
            Self::NDJSON_MAX_FRAME_BYTES,
            Self::CONTENT_LENGTH_MAX_HEADER_BYTES,
        )
    }

    /// The same limits with another frame bound.
    #[must_use]
    pub const fn with_max_frame_bytes(mut self, max_frame_bytes: usize) -> Self {
        self.max_frame_bytes = max_frame_bytes;
        self
    }

    /// The same limits with another header section bound.
    #[must_use]
    pub const fn with_max_header_bytes(mut self, max_header_bytes: usize) -> Self {
        self.max_header_bytes = max_header_bytes;
        self
    }

    /// The same limits with strict (or lenient) NDJSON line endings.
    #[must_use]
    pub const fn with_strict_line_endings(mut self, strict: bool) -> Self {
        self.strict_line_endings = strict;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let cl = FrameLimits::content_length_default();
        assert_eq!((cl.max_frame_bytes, cl.max_header_bytes), (16 << 20, 8192));
        let nd = FrameLimits::ndjson_default();
        assert_eq!(nd.max_frame_bytes, 1 << 20);
        let custom = nd.with_max_frame_bytes(10).with_max_header_bytes(20);
        assert_eq!(custom, FrameLimits::new(10, 20));
        assert!(!custom.strict_line_endings);
        assert!(custom.with_strict_line_endings(true).strict_line_endings);
    }
}
