//! NDJSON framing (one JSON value a line): decoder and encoder.
//!
//! Lines end with LF; one CR right before the LF (or before the end of
//! input) is dropped. With strict line endings
//! ([`FrameLimits::strict_line_endings`]) a line is one NDJSON line: LF or
//! CRLF ends it and any other CR is a fault. No fault ends the stream: after
//! an oversized line the decoder skips to the next LF, holding nothing, and
//! carries on.

use std::borrow::Cow;

use super::codec::{lend_queued, recycle, reserve_capped, Outbox, Step};
use super::{
    Decoded, FaultKind, Frame, FrameDecoder, FrameEncoder, FrameLimits, Framing, FramingError,
};

/// Bounded push decoder for NDJSON lines.
///
/// A line found whole in the input is checked where it lies; only a line
/// split across inputs is copied into the decoder (within the bound).
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
    /// The current line so far, when it is split across inputs: at most
    /// `max_frame_bytes` bytes, or one more when that last byte is a CR
    /// (which may precede the LF).
    line: Vec<u8>,
    /// Stream offset of the first byte of the current line.
    line_start: u64,
    /// Stream offset of the next byte to arrive.
    offset: u64,
    /// The current line was refused as too long; skip through its LF.
    skipping: bool,
    finished: bool,
    out: Outbox,
    /// The last line completed in `line`, lent by `decode`.
    lent: String,
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
            lent: String::new(),
        }
    }

    /// The limits this decoder enforces.
    pub fn limits(&self) -> FrameLimits {
        self.limits
    }

    #[cold]
    fn fault(
        &self,
        kind: FaultKind,
        at: u64,
        detail: impl Into<Cow<'static, str>>,
    ) -> Step<'static> {
        Step::Fault(FramingError::decode(kind, Framing::Ndjson, at, detail))
    }

    /// Consume from the front of `input` up to one completed line or fault.
    fn step<'a>(&mut self, input: &'a [u8]) -> (usize, Option<Step<'a>>) {
        recycle(&mut self.lent, &mut self.line);
        if self.finished {
            return (input.len(), None);
        }
        let mut rest = input;
        if self.skipping {
            let Some(lf) = memchr::memchr(b'\n', rest) else {
                self.offset += rest.len() as u64;
                return (input.len(), None);
            };
            self.skipping = false;
            self.offset += lf as u64 + 1;
            self.line_start = self.offset;
            rest = rest.get(lf + 1..).unwrap_or_default();
        }
        let skipped = input.len() - rest.len();
        let Some(lf) = memchr::memchr(b'\n', rest) else {
            self.offset += rest.len() as u64;
            let fault = if rest.is_empty() {
                None
            } else {
                self.extend_line(rest)
            };
            return (input.len(), fault);
        };
        let (piece, _) = rest.split_at(lf);
        let start = self.line_start;
        self.offset += lf as u64 + 1;
        self.line_start = self.offset;
        (skipped + lf + 1, Some(self.end_line(piece, start, true)))
    }

    /// Keep `piece`, a part of the current line with no LF in it; a fault
    /// when the line is now known to be over the bound.
    fn extend_line(&mut self, piece: &[u8]) -> Option<Step<'static>> {
        let max = self.limits.max_frame_bytes;
        let total = self.line.len().saturating_add(piece.len());
        let ends_in_cr = piece.last() == Some(&b'\r');
        if total > max.saturating_add(1) || (total > max && !ends_in_cr) {
            let head = self.head_of_long_line(piece);
            self.skipping = true;
            let detail =
                format!("line exceeds the frame bound of {max} bytes; skipping to the next LF");
            return Some(self.fault_with_head(
                FaultKind::FrameTooLong,
                self.line_start,
                detail,
                head,
            ));
        }
        reserve_capped(&mut self.line, piece.len(), max.saturating_add(1));
        self.line.extend_from_slice(piece);
        None
    }

    /// The line starting at stream offset `start` ends with `piece`, then
    /// an LF (`with_lf`) or the end of input.
    fn end_line<'a>(&mut self, piece: &'a [u8], start: u64, with_lf: bool) -> Step<'a> {
        let total = self.line.len() + piece.len();
        let last_is_cr = piece.last().or(self.line.last()) == Some(&b'\r');
        let strict = self.limits.strict_line_endings;
        // Strict: only a CR before the LF is a line ending.
        let ends_in_cr = last_is_cr && (with_lf || !strict);
        let length = total - usize::from(ends_in_cr);
        if length > self.limits.max_frame_bytes {
            let head = self.head_of_long_line(piece);
            let detail = format!(
                "line of {length} bytes exceeds the frame bound of {} bytes",
                self.limits.max_frame_bytes
            );
            return self.fault_with_head(FaultKind::FrameTooLong, start, detail, head);
        }
        if strict {
            let held = self.line.len().min(length);
            let piece_part = piece.get(..length - held).unwrap_or(piece);
            let bare_cr = memchr::memchr(b'\r', self.line.get(..held).unwrap_or_default())
                .or_else(|| memchr::memchr(b'\r', piece_part).map(|at| held + at));
            if let Some(at) = bare_cr {
                let mut head = std::mem::take(&mut self.line);
                head.truncate(held);
                head.extend_from_slice(piece_part);
                let detail = format!(
                    "bare CR at line byte {at}; a line holds one JSON value and ends with LF or CRLF"
                );
                return self.fault_with_head(FaultKind::BareCarriageReturn, start, detail, head);
            }
        }
        if length == 0 {
            self.line.clear();
            let detail = if ends_in_cr {
                "line holds only a CR; an NDJSON frame is one JSON value"
            } else {
                "line is empty; an NDJSON frame is one JSON value"
            };
            return self.fault(FaultKind::EmptyFrame, start, detail);
        }
        if self.line.is_empty() {
            // The whole line lies in the input: check it there.
            let body = piece.get(..length).unwrap_or(piece);
            return match std::str::from_utf8(body) {
                Ok(text) => Step::Input(start, text),
                Err(error) => self.not_utf8(start, length, error.valid_up_to(), body.to_vec()),
            };
        }
        self.line.extend_from_slice(piece);
        self.line.truncate(length);
        match String::from_utf8(std::mem::take(&mut self.line)) {
            Ok(text) => {
                self.lent = text;
                Step::Held(start)
            }
            Err(error) => {
                let valid_up_to = error.utf8_error().valid_up_to();
                self.not_utf8(start, length, valid_up_to, error.into_bytes())
            }
        }
    }

    #[cold]
    fn not_utf8(
        &self,
        start: u64,
        length: usize,
        valid_up_to: usize,
        line: Vec<u8>,
    ) -> Step<'static> {
        let detail = format!(
            "line of {length} bytes is not valid UTF-8 (first invalid byte at line byte {valid_up_to})"
        );
        self.fault_with_head(FaultKind::BodyNotUtf8, start, detail, line)
    }

    #[cold]
    fn fault_with_head(
        &self,
        kind: FaultKind,
        at: u64,
        detail: impl Into<Cow<'static, str>>,
        head: Vec<u8>,
    ) -> Step<'static> {
        Step::Fault(FramingError::decode(kind, Framing::Ndjson, at, detail).with_head(head))
    }

    /// The first `max_frame_bytes` of a line found too long, `piece` being
    /// its latest part; the held part is taken (the line is skipped).
    #[cold]
    fn head_of_long_line(&mut self, piece: &[u8]) -> Vec<u8> {
        let max = self.limits.max_frame_bytes;
        let mut head = std::mem::take(&mut self.line);
        let room = max.saturating_sub(head.len());
        head.extend_from_slice(piece.get(..room).unwrap_or(piece));
        head.truncate(max);
        head
    }
}

impl FrameDecoder for NdjsonDecoder {
    fn push(&mut self, chunk: &[u8]) {
        let mut rest = chunk;
        loop {
            let (used, step) = self.step(rest);
            rest = rest.get(used..).unwrap_or_default();
            match step {
                Some(step) => step.queue(&mut self.lent, &mut self.out),
                None => break,
            }
        }
    }

    fn finish(&mut self) {
        if self.finished {
            return;
        }
        recycle(&mut self.lent, &mut self.line);
        self.finished = true;
        if self.skipping {
            self.skipping = false;
        } else if !self.line.is_empty() {
            let step = self.end_line(&[], self.line_start, false);
            step.queue(&mut self.lent, &mut self.out);
        }
    }

    fn next_frame(&mut self) -> Option<Result<Frame, FramingError>> {
        self.out.pop()
    }

    #[inline]
    fn decode<'a>(&'a mut self, input: &'a [u8]) -> Decoded<'a> {
        if let Some(item) = self.out.pop() {
            return Decoded {
                consumed: 0,
                item: Some(lend_queued(item, &mut self.lent)),
            };
        }
        let (consumed, step) = self.step(input);
        Decoded {
            consumed,
            item: step.map(|step| step.lend(&mut self.lent)),
        }
    }

    fn buffered_bytes(&self) -> usize {
        self.line.len() + self.out.bytes() + self.lent.len()
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
    #[inline]
    fn encode_into(&self, body: &[u8], out: &mut Vec<u8>) -> Result<(), FramingError> {
        if body.len() > self.limits.max_frame_bytes
            || body.is_empty()
            || memchr::memchr2(b'\n', b'\r', body).is_some()
            || std::str::from_utf8(body).is_err()
        {
            return Err(self.refusal(body));
        }
        out.reserve(body.len() + 1);
        out.extend_from_slice(body);
        out.push(b'\n');
        Ok(())
    }
}

impl NdjsonEncoder {
    /// Why `body` is refused (the checks again, in order, with details).
    #[cold]
    fn refusal(&self, body: &[u8]) -> FramingError {
        let refuse = |kind, detail| FramingError::encode(kind, Framing::Ndjson, detail);
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
        let valid_up_to = std::str::from_utf8(body)
            .err()
            .map_or(0, |e| e.valid_up_to());
        let detail =
            format!("body is not valid UTF-8 (first invalid byte at body byte {valid_up_to})");
        refuse(FaultKind::BodyNotUtf8, detail)
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
