//! `Content-Length` framing (LSP base protocol): decoder and encoder.
//!
//! A frame is a header section, `*(name ":" value CRLF) CRLF`, then exactly
//! the declared number of body bytes. See the [module docs](super) for the
//! rules; every fault ends the stream.

use super::codec::{reserve_capped, Outbox};
use super::header::{HeaderOutcome, HeaderParser};
use super::{FaultKind, Frame, FrameDecoder, FrameEncoder, FrameLimits, Framing, FramingError};

/// Bounded push decoder for `Content-Length` frames.
///
/// ```
/// use wirekit::framing::{ContentLengthDecoder, FrameDecoder, FrameLimits};
///
/// let mut decoder = ContentLengthDecoder::new(FrameLimits::content_length_default());
/// decoder.push(b"Content-Length: 2\r\n\r\n{}Content-Len");
/// let frame = decoder.next_frame().and_then(Result::ok);
/// assert_eq!(frame.map(|f| f.into_body()), Some("{}".to_string()));
/// assert!(decoder.next_frame().is_none());
/// decoder.finish(); // input ended inside a header
/// let fault = decoder.next_frame().and_then(Result::err);
/// assert_eq!(fault.map(|e| (e.kind().name(), e.offset())), Some(("TruncatedFrame", 23)));
/// assert!(decoder.is_dead());
/// ```
#[derive(Debug)]
pub struct ContentLengthDecoder {
    limits: FrameLimits,
    state: State,
    /// Stream offset of the next byte to arrive.
    offset: u64,
    /// Stream offset of the first header byte of the current frame.
    frame_start: u64,
    finished: bool,
    out: Outbox,
}

#[derive(Debug)]
enum State {
    Header(HeaderParser),
    Body { declared: usize, body: Vec<u8> },
    Dead,
}

impl ContentLengthDecoder {
    /// A decoder at the start of a stream.
    pub fn new(limits: FrameLimits) -> Self {
        ContentLengthDecoder {
            limits,
            state: State::Header(HeaderParser::default()),
            offset: 0,
            frame_start: 0,
            finished: false,
            out: Outbox::default(),
        }
    }

    /// The limits this decoder enforces.
    pub fn limits(&self) -> FrameLimits {
        self.limits
    }

    /// Queue a fault and stop: drop every partial byte, ignore further input.
    fn fail(&mut self, kind: FaultKind, detail: String) {
        self.state = State::Dead;
        let error = FramingError::decode(kind, Framing::ContentLength, self.frame_start, detail);
        self.out.fault(error);
    }

    /// Queue a complete body (or a fault if it is not UTF-8), then expect
    /// the next header section at `self.offset`.
    fn complete(&mut self, body: Vec<u8>) {
        match String::from_utf8(body) {
            Ok(text) => {
                self.out.frame(Frame::new(self.frame_start, text));
                self.frame_start = self.offset;
                self.state = State::Header(HeaderParser::default());
            }
            Err(error) => {
                let detail = format!(
                    "frame body of {} bytes is not valid UTF-8 (first invalid byte at body byte {})",
                    error.as_bytes().len(),
                    error.utf8_error().valid_up_to()
                );
                self.fail(FaultKind::BodyNotUtf8, detail);
            }
        }
    }

    /// Consume header bytes from the front of `rest`; returns how many.
    fn push_header(&mut self, rest: &[u8]) -> usize {
        let State::Header(parser) = &mut self.state else {
            return 0;
        };
        let (used, outcome) = parser.feed(rest, &self.limits);
        self.offset += used as u64;
        match outcome {
            None => {}
            Some(HeaderOutcome::Fault(kind, detail)) => self.fail(kind, detail),
            Some(HeaderOutcome::Complete(0)) => self.complete(Vec::new()),
            Some(HeaderOutcome::Complete(declared)) => {
                self.state = State::Body {
                    declared,
                    body: Vec::new(),
                }
            }
        }
        used
    }

    /// Consume body bytes from the front of `rest`; returns how many.
    fn push_body(&mut self, rest: &[u8]) -> usize {
        let State::Body { declared, body } = &mut self.state else {
            return 0;
        };
        let declared = *declared;
        let take = (declared - body.len()).min(rest.len());
        let (piece, _) = rest.split_at(take);
        self.offset += take as u64;
        if body.is_empty() && take == declared {
            // The whole body is in this chunk: one exact copy.
            self.complete(piece.to_vec());
        } else {
            reserve_capped(body, take, declared);
            body.extend_from_slice(piece);
            if body.len() == declared {
                let body = std::mem::take(body);
                self.complete(body);
            }
        }
        take
    }
}

impl FrameDecoder for ContentLengthDecoder {
    fn push(&mut self, chunk: &[u8]) {
        if self.finished {
            return;
        }
        let mut rest = chunk;
        while !rest.is_empty() {
            let used = match self.state {
                State::Header(_) => self.push_header(rest),
                State::Body { .. } => self.push_body(rest),
                State::Dead => return,
            };
            rest = rest.get(used..).unwrap_or_default();
        }
    }

    fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        let detail = match &self.state {
            State::Dead => return,
            State::Header(parser) if parser.is_untouched() => return,
            State::Header(parser) => format!(
                "input ended inside a header section, after {} header bytes",
                parser.section_len()
            ),
            State::Body { declared, body } => format!(
                "input ended after {} of {declared} declared body bytes",
                body.len()
            ),
        };
        self.fail(FaultKind::TruncatedFrame, detail);
    }

    fn next_frame(&mut self) -> Option<Result<Frame, FramingError>> {
        self.out.pop()
    }

    fn buffered_bytes(&self) -> usize {
        let partial = match &self.state {
            State::Header(parser) => parser.held_bytes(),
            State::Body { body, .. } => body.len(),
            State::Dead => 0,
        };
        partial + self.out.bytes()
    }

    fn is_dead(&self) -> bool {
        matches!(self.state, State::Dead)
    }
}

/// Encoder for `Content-Length` frames: writes `Content-Length: N\r\n\r\n`
/// and the body, nothing else.
///
/// ```
/// use wirekit::framing::{ContentLengthEncoder, FrameEncoder, FrameLimits};
///
/// let encoder = ContentLengthEncoder::new(FrameLimits::content_length_default());
/// let bytes = encoder.encode("{\"é\":1}".as_bytes())?;
/// assert_eq!(bytes, b"Content-Length: 8\r\n\r\n{\"\xc3\xa9\":1}");
/// # Ok::<(), wirekit::framing::FramingError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ContentLengthEncoder {
    limits: FrameLimits,
}

impl ContentLengthEncoder {
    /// An encoder refusing bodies over `limits.max_frame_bytes`.
    pub fn new(limits: FrameLimits) -> Self {
        ContentLengthEncoder { limits }
    }

    /// The limits this encoder enforces.
    pub fn limits(&self) -> FrameLimits {
        self.limits
    }
}

impl FrameEncoder for ContentLengthEncoder {
    /// Refuses a body over the frame bound (`FrameTooLong`) or not UTF-8
    /// (`BodyNotUtf8`), and a header over the header bound (`HeaderTooLong`,
    /// only possible with a bound under 40 bytes); an empty body is fine
    /// (`Content-Length: 0`).
    fn encode_into(&self, body: &[u8], out: &mut Vec<u8>) -> Result<(), FramingError> {
        if body.len() > self.limits.max_frame_bytes {
            let detail = format!(
                "body of {} bytes exceeds the frame bound of {} bytes",
                body.len(),
                self.limits.max_frame_bytes
            );
            return Err(FramingError::encode(
                FaultKind::FrameTooLong,
                Framing::ContentLength,
                detail,
            ));
        }
        if let Err(error) = std::str::from_utf8(body) {
            let detail = format!(
                "body is not valid UTF-8 (first invalid byte at body byte {})",
                error.valid_up_to()
            );
            return Err(FramingError::encode(
                FaultKind::BodyNotUtf8,
                Framing::ContentLength,
                detail,
            ));
        }
        let header = format!("Content-Length: {}\r\n\r\n", body.len());
        if header.len() > self.limits.max_header_bytes {
            let detail = format!(
                "header section of {} bytes exceeds the header bound of {} bytes",
                header.len(),
                self.limits.max_header_bytes
            );
            return Err(FramingError::encode(
                FaultKind::HeaderTooLong,
                Framing::ContentLength,
                detail,
            ));
        }
        out.reserve(header.len() + body.len());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(body);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(decoder: &mut ContentLengthDecoder) -> Vec<Result<Frame, FaultKind>> {
        std::iter::from_fn(|| decoder.next_frame())
            .map(|item| item.map_err(|e| e.kind()))
            .collect()
    }

    #[test]
    fn frames_and_offsets() {
        let mut decoder = ContentLengthDecoder::new(FrameLimits::content_length_default());
        decoder.push(b"Content-Length: 2\r\n\r\n{}Content-Length: 0\r\n\r\n");
        decoder.finish();
        assert_eq!(
            drain(&mut decoder),
            vec![
                Ok(Frame::new(0, "{}".into())),
                Ok(Frame::new(23, String::new()))
            ]
        );
        assert!(!decoder.is_dead());
    }

    #[test]
    fn oversized_declaration_holds_nothing() {
        let limits = FrameLimits::content_length_default();
        let mut decoder = ContentLengthDecoder::new(limits);
        decoder.push(b"Content-Length: 20000000\r\n\r\n");
        decoder.push(&[b'x'; 4096]);
        assert_eq!(decoder.buffered_bytes(), 0);
        let error = decoder.next_frame().and_then(Result::err);
        assert_eq!(
            error.as_ref().map(FramingError::detail),
            Some("declared Content-Length 20000000 exceeds the frame bound of 16777216 bytes")
        );
        assert!(decoder.is_dead() && decoder.next_frame().is_none());
    }

    #[test]
    fn encoder_refusals_leave_output_untouched() {
        let encoder = ContentLengthEncoder::new(FrameLimits::new(3, 100));
        let mut out = b"keep".to_vec();
        let kind = |r: Result<(), FramingError>| r.err().map(|e| e.kind());
        assert_eq!(
            kind(encoder.encode_into(b"abcd", &mut out)),
            Some(FaultKind::FrameTooLong)
        );
        assert_eq!(
            kind(encoder.encode_into(b"\xff", &mut out)),
            Some(FaultKind::BodyNotUtf8)
        );
        let tiny_header = ContentLengthEncoder::new(FrameLimits::new(3, 20));
        assert_eq!(
            kind(tiny_header.encode_into(b"", &mut out)),
            Some(FaultKind::HeaderTooLong)
        );
        assert_eq!(out, b"keep");
        assert_eq!(
            encoder.encode(b"").ok(),
            Some(b"Content-Length: 0\r\n\r\n".to_vec())
        );
    }
}
