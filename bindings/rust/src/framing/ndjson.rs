//! NDJSON framing (one JSON value a line): decoder and encoder.
//!
//! Lines end with LF; one CR right before the LF (or before the end of
//! input) is dropped. With strict line endings
//! ([`FrameLimits::strict_line_endings`]) a line is one NDJSON line: LF or
//! CRLF ends it and any other CR is a fault. No fault ends the stream: after an oversized line the
//! decoder skips to the next LF, holding nothing, and carries on.

use std::borrow::Cow;

use super::codec::{reserve_capped, Outbox};
use super::{FaultKind, Frame, FrameDecoder, FrameEncoder, FrameLimits, Framing, FramingError};

/// Bounded push decoder for NDJSON lines.
///
/// ```
/// use wirekit::framing::{FrameDecoder, FrameLimits, NdjsonDecoder};
///
/// let mut decoder = NdjsonDecoder::new(FrameLimits::ndjson_default());
/// decoder.push(b"{\"id\":1}\r\n\n{\"id\"");
/// decoder.push(b":2}");
/// decoder.finish(); // the last line needs no LF
/// let results: Vec<_> = std::iter::from_fn(|| decoder.next_frame())
///     .map(|r| r.map(|f| f.into_body()).map_err(|e| (e.kind().name(), e.offset())))
///     .collect();
/// assert_eq!(results, vec![
///     Ok("{\"id\":1}".to_string()),
///     Err(("EmptyFrame", 10)),
///     Ok("{\"id\":2}".to_string()),
/// ]);
/// ```
#[derive(Debug)]
pub struct NdjsonDecoder {
    limits: FrameLimits,
    /// The current line so far: at most `max_frame_bytes` bytes, or one
    /// more when that last byte is a CR (which may precede the LF).
    line: Vec<u8>,
    /// Stream offset of the first byte of the current line.
    line_start: u64,
    /// Stream offset of the next byte to arrive.
    offset: u64,
    /// The current line was refused as too long; skip through its LF.
    skipping: bool,
    finished: bool,
    out: Outbox,
}

impl NdjsonDecoder {
    /// A decoder at the start of a stream.
    pub fn new(limits: FrameLimits) -> Self {
        NdjsonDecoder {
            limits,
            line: Vec::new(),
            line_start: 0,
            offset: 0,
            skipping: false,
            finished: false,
            out: Outbox::default(),
        }
    }

    /// The limits this decoder enforces.
    pub fn limits(&self) -> FrameLimits {
        self.limits
    }

    fn fault(&mut self, kind: FaultKind, detail: impl Into<Cow<'static, str>>) {
        let error = FramingError::decode(kind, Framing::Ndjson, self.line_start, detail);
        self.out.fault(error);
    }

    /// Refuse the current line as too long and skip the rest of it.
    fn refuse_line(&mut self, detail: String) {
        self.line = Vec::new();
        self.skipping = true;
        self.fault(FaultKind::FrameTooLong, detail);
    }

    /// Keep `piece`, a part of the current line with no LF in it.
    fn extend_line(&mut self, piece: &[u8]) {
        let max = self.limits.max_frame_bytes;
        let total = self.line.len().saturating_add(piece.len());
        let ends_in_cr = piece.last() == Some(&b'\r');
        if total > max.saturating_add(1) || (total > max && !ends_in_cr) {
            let detail =
                format!("line exceeds the frame bound of {max} bytes; skipping to the next LF");
            self.refuse_line(detail);
            return;
        }
        reserve_capped(&mut self.line, piece.len(), max.saturating_add(1));
        self.line.extend_from_slice(piece);
    }

    /// The current line ends with `piece`, then an LF (`with_lf`) or the
    /// end of input.
    fn end_line(&mut self, piece: &[u8], with_lf: bool) {
        let total = self.line.len() + piece.len();
        let last_is_cr = piece.last().or(self.line.last()) == Some(&b'\r');
        let strict = self.limits.strict_line_endings;
        // Strict: only a CR before the LF is a line ending.
        let ends_in_cr = last_is_cr && (with_lf || !strict);
        let length = total - usize::from(ends_in_cr);
        if length > self.limits.max_frame_bytes {
            let detail = format!(
                "line of {length} bytes exceeds the frame bound of {} bytes",
                self.limits.max_frame_bytes
            );
            self.refuse_line(detail);
            self.skipping = false;
            return;
        }
        let mut bytes = if self.line.is_empty() {
            piece.to_vec()
        } else {
            let mut line = std::mem::take(&mut self.line);
            line.extend_from_slice(piece);
            line
        };
        bytes.truncate(length);
        if strict {
            if let Some(at) = memchr::memchr(b'\r', &bytes) {
                let detail = format!(
                    "bare CR at line byte {at}; a line holds one JSON value and ends with LF or CRLF"
                );
                self.fault(FaultKind::BareCarriageReturn, detail);
                return;
            }
        }
        if bytes.is_empty() {
            let detail = if ends_in_cr {
                "line holds only a CR; an NDJSON frame is one JSON value"
            } else {
                "line is empty; an NDJSON frame is one JSON value"
            };
            self.fault(FaultKind::EmptyFrame, detail);
            return;
        }
        match String::from_utf8(bytes) {
            Ok(text) => self.out.frame(Frame::new(self.line_start, text)),
            Err(error) => {
                let detail = format!(
                    "line of {} bytes is not valid UTF-8 (first invalid byte at line byte {})",
                    error.as_bytes().len(),
                    error.utf8_error().valid_up_to()
                );
                self.fault(FaultKind::BodyNotUtf8, detail);
            }
        }
    }
}

impl FrameDecoder for NdjsonDecoder {
    fn push(&mut self, chunk: &[u8]) {
        if self.finished {
            return;
        }
        let mut rest = chunk;
        while let Some(lf) = memchr::memchr(b'\n', rest) {
            let (piece, after) = rest.split_at(lf);
            if self.skipping {
                self.skipping = false;
            } else {
                self.end_line(piece, true);
            }
            self.offset += lf as u64 + 1;
            self.line_start = self.offset;
            rest = after.get(1..).unwrap_or_default();
        }
        if !rest.is_empty() {
            if !self.skipping {
                self.extend_line(rest);
            }
            self.offset += rest.len() as u64;
        }
    }

    fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        if self.skipping {
            self.skipping = false;
        } else if !self.line.is_empty() {
            self.end_line(&[], false);
        }
    }

    fn next_frame(&mut self) -> Option<Result<Frame, FramingError>> {
        self.out.pop()
    }

    fn buffered_bytes(&self) -> usize {
        self.line.len() + self.out.bytes()
    }

    /// Always `false`: no NDJSON fault ends the stream.
    fn is_dead(&self) -> bool {
        false
    }
}

/// Encoder for NDJSON lines: writes the body and exactly one LF.
///
/// ```
/// use wirekit::framing::{FaultKind, FrameEncoder, FrameLimits, NdjsonEncoder};
///
/// let encoder = NdjsonEncoder::new(FrameLimits::ndjson_default());
/// assert_eq!(encoder.encode(b"{}")?, b"{}\n");
/// let refused = encoder.encode(b"{\n}").err().map(|e| e.kind());
/// assert_eq!(refused, Some(FaultKind::EmbeddedNewline));
/// # Ok::<(), wirekit::framing::FramingError>(())
/// ```
#[derive(Debug, Clone)]
pub struct NdjsonEncoder {
    limits: FrameLimits,
}

impl NdjsonEncoder {
    /// An encoder refusing bodies over `limits.max_frame_bytes`.
    pub fn new(limits: FrameLimits) -> Self {
        NdjsonEncoder { limits }
    }

    /// The limits this encoder enforces.
    pub fn limits(&self) -> FrameLimits {
        self.limits
    }
}

impl FrameEncoder for NdjsonEncoder {
    /// Refuses, in this order: a body over the frame bound (`FrameTooLong`),
    /// an empty body (`EmptyFrame`), a raw LF or CR (`EmbeddedNewline`), a
    /// body that is not UTF-8 (`BodyNotUtf8`).
    fn encode_into(&self, body: &[u8], out: &mut Vec<u8>) -> Result<(), FramingError> {
        let refuse = |kind, detail| Err(FramingError::encode(kind, Framing::Ndjson, detail));
        if body.len() > self.limits.max_frame_bytes {
            let detail = format!(
                "body of {} bytes exceeds the frame bound of {} bytes",
                body.len(),
                self.limits.max_frame_bytes
            );
            return refuse(FaultKind::FrameTooLong, detail);
        }
        if body.is_empty() {
            let detail = "body is empty; an empty line decodes as EmptyFrame";
            return refuse(FaultKind::EmptyFrame, detail.to_string());
        }
        if let Some(at) = memchr::memchr2(b'\n', b'\r', body) {
            let name = if body.get(at) == Some(&b'\n') {
                "LF"
            } else {
                "CR"
            };
            let detail =
                format!("body contains a raw {name} at byte {at}; an NDJSON frame is one line");
            return refuse(FaultKind::EmbeddedNewline, detail);
        }
        if let Err(error) = std::str::from_utf8(body) {
            let detail = format!(
                "body is not valid UTF-8 (first invalid byte at body byte {})",
                error.valid_up_to()
            );
            return refuse(FaultKind::BodyNotUtf8, detail);
        }
        out.reserve(body.len() + 1);
        out.extend_from_slice(body);
        out.push(b'\n');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(limits: FrameLimits, input: &[u8]) -> Vec<Result<(u64, String), (FaultKind, u64)>> {
        let mut decoder = NdjsonDecoder::new(limits);
        decoder.push(input);
        decoder.finish();
        std::iter::from_fn(|| decoder.next_frame())
            .map(|r| {
                r.map(|f| (f.offset(), f.into_body()))
                    .map_err(|e| (e.kind(), e.offset()))
            })
            .collect()
    }

    #[test]
    fn cr_handling_at_the_bound() {
        let limits = FrameLimits::ndjson_default().with_max_frame_bytes(3);
        assert_eq!(decode(limits, b"abc\r\n"), vec![Ok((0, "abc".into()))]);
        assert_eq!(decode(limits, b"abc\r"), vec![Ok((0, "abc".into()))]);
        assert_eq!(
            decode(limits, b"abc\rd\nxy"),
            vec![Err((FaultKind::FrameTooLong, 0)), Ok((6, "xy".into()))]
        );
        assert_eq!(decode(limits, b"a\rb\n"), vec![Ok((0, "a\rb".into()))]);
    }

    #[test]
    fn oversized_line_is_skipped_in_pieces() {
        let limits = FrameLimits::ndjson_default().with_max_frame_bytes(4);
        let mut decoder = NdjsonDecoder::new(limits);
        for piece in [&b"abc"[..], b"def", b"ghi", b"\nok"] {
            decoder.push(piece);
            assert!(decoder.buffered_bytes() <= 4 + 1);
        }
        decoder.finish();
        let kinds: Vec<_> = std::iter::from_fn(|| decoder.next_frame())
            .map(|r| r.map(Frame::into_body).map_err(|e| e.kind()))
            .collect();
        assert_eq!(kinds, vec![Err(FaultKind::FrameTooLong), Ok("ok".into())]);
    }

    #[test]
    fn encoder_refusals() {
        let encoder = NdjsonEncoder::new(FrameLimits::ndjson_default().with_max_frame_bytes(4));
        let kind = |body: &[u8]| encoder.encode(body).err().map(|e| e.kind());
        assert_eq!(kind(b"abcde"), Some(FaultKind::FrameTooLong));
        assert_eq!(kind(b""), Some(FaultKind::EmptyFrame));
        assert_eq!(kind(b"a\rb"), Some(FaultKind::EmbeddedNewline));
        assert_eq!(kind(b"\xff"), Some(FaultKind::BodyNotUtf8));
        assert_eq!(kind(b"abcd"), None);
    }
}
