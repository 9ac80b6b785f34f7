//! `Content-Length` framing (LSP base protocol): decoder and encoder.
//!
//! A frame is a header section, `*(name ":" value CRLF) CRLF`, then exactly
//! the declared number of body bytes. See the [module docs](super) for the
//! rules; every fault ends the stream.

use super::codec::{lend_queued, recycle, reserve_capped, Outbox, Step};
use super::header::{HeaderOutcome, HeaderParser};
use super::{
    Decoded, FaultKind, Frame, FrameDecoder, FrameEncoder, FrameLimits, Framing, FramingError,
};

/// Bounded push decoder for `Content-Length` frames.
///
/// A header section or body found whole in the input is checked where it
/// lies; only one split across inputs is copied into the decoder (within
/// the bounds: a body's buffer is sized from its declared length, which was
/// checked against the frame bound first).
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
    /// The current header section (its line buffer is kept between frames).
    header: HeaderParser,
    /// The current body so far, when it is split across inputs.
    body: Vec<u8>,
    /// Stream offset of the next byte to arrive.
    offset: u64,
    /// Stream offset of the first header byte of the current frame.
    frame_start: u64,
    finished: bool,
    out: Outbox,
    /// The last body completed in `body`, lent by `decode`.
    lent: String,
}

#[derive(Debug, Clone, Copy)]
enum State {
    Header,
    Body { declared: usize },
    Dead,
}

impl ContentLengthDecoder {
    /// A decoder at the start of a stream.
    pub fn new(limits: FrameLimits) -> Self {
        ContentLengthDecoder {
            limits,
            state: State::Header,
            header: HeaderParser::default(),
            body: Vec::new(),
            offset: 0,
            frame_start: 0,
            finished: false,
            out: Outbox::default(),
            lent: String::new(),
        }
    }

    /// The limits this decoder enforces.
    pub fn limits(&self) -> FrameLimits {
        self.limits
    }

    /// A fault that stops the stream: drop every partial byte, ignore
    /// further input.
    #[cold]
    fn fail(&mut self, kind: FaultKind, detail: String) -> Step<'static> {
        self.state = State::Dead;
        self.header.reset();
        self.body = Vec::new();
        let error = FramingError::decode(kind, Framing::ContentLength, self.frame_start, detail);
        Step::Fault(error)
    }

    /// The frame's body is complete; expect the next header section.
    fn next_section(&mut self) -> u64 {
        let start = self.frame_start;
        self.frame_start = self.offset;
        self.state = State::Header;
        self.header.reset();
        start
    }

    #[cold]
    fn not_utf8(&mut self, length: usize, valid_up_to: usize) -> Step<'static> {
        let detail = format!(
            "frame body of {length} bytes is not valid UTF-8 (first invalid byte at body byte {valid_up_to})"
        );
        self.fail(FaultKind::BodyNotUtf8, detail)
    }

    /// Consume from the front of `input` up to one completed frame or fault.
    fn step<'a>(&mut self, input: &'a [u8]) -> (usize, Option<Step<'a>>) {
        recycle(&mut self.lent, &mut self.body);
        if self.finished {
            return (input.len(), None);
        }
        let mut rest = input;
        loop {
            match self.state {
                State::Dead => return (input.len(), None),
                State::Header => {
                    if rest.is_empty() {
                        return (input.len(), None);
                    }
                    let (used, outcome) = match self.header.feed_canonical(rest, &self.limits) {
                        Some(read) => (read.0, Some(read.1)),
                        None => self.header.feed(rest, &self.limits),
                    };
                    self.offset += used as u64;
                    rest = rest.get(used..).unwrap_or_default();
                    match outcome {
                        None => return (input.len(), None),
                        Some(HeaderOutcome::Fault(kind, detail)) => {
                            return (input.len(), Some(self.fail(kind, detail)))
                        }
                        Some(HeaderOutcome::Complete(declared)) => {
                            self.state = State::Body { declared };
                        }
                    }
                }
                State::Body { declared } => {
                    if self.body.is_empty() && rest.len() >= declared {
                        // The whole body is in the input: check it there.
                        let (body, after) = rest.split_at(declared);
                        self.offset += declared as u64;
                        let consumed = input.len() - after.len();
                        return match std::str::from_utf8(body) {
                            Ok(text) => (consumed, Some(Step::Input(self.next_section(), text))),
                            Err(error) => (
                                input.len(),
                                Some(self.not_utf8(declared, error.valid_up_to())),
                            ),
                        };
                    }
                    let take = (declared - self.body.len()).min(rest.len());
                    let (piece, after) = rest.split_at(take);
                    reserve_capped(&mut self.body, take, declared);
                    self.body.extend_from_slice(piece);
                    self.offset += take as u64;
                    let consumed = input.len() - after.len();
                    if self.body.len() < declared {
                        return (consumed, None);
                    }
                    return match String::from_utf8(std::mem::take(&mut self.body)) {
                        Ok(text) => {
                            self.lent = text;
                            (consumed, Some(Step::Held(self.next_section())))
                        }
                        Err(error) => {
                            let valid_up_to = error.utf8_error().valid_up_to();
                            (input.len(), Some(self.not_utf8(declared, valid_up_to)))
                        }
                    };
                }
            }
        }
    }
}

impl FrameDecoder for ContentLengthDecoder {
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
        recycle(&mut self.lent, &mut self.body);
        self.finished = true;
        let detail = match self.state {
            State::Dead => return,
            State::Header if self.header.is_untouched() => return,
            State::Header => format!(
                "input ended inside a header section, after {} header bytes",
                self.header.section_len()
            ),
            State::Body { declared } => format!(
                "input ended after {} of {declared} declared body bytes",
                self.body.len()
            ),
        };
        let step = self.fail(FaultKind::TruncatedFrame, detail);
        step.queue(&mut self.lent, &mut self.out);
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
        let partial = match self.state {
            State::Header => self.header.held_bytes(),
            State::Body { .. } => self.body.len(),
            State::Dead => 0,
        };
        partial + self.out.bytes() + self.lent.len()
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
    #[inline]
    fn encode_into(&self, body: &[u8], out: &mut Vec<u8>) -> Result<(), FramingError> {
        let mut digits = [0u8; 20];
        let digits = decimal(body.len(), &mut digits);
        let header_len = HEADER_PREFIX.len() + digits.len() + HEADER_END.len();
        if body.len() > self.limits.max_frame_bytes
            || std::str::from_utf8(body).is_err()
            || header_len > self.limits.max_header_bytes
        {
            return Err(self.refusal(body, header_len));
        }
        out.reserve(header_len + body.len());
        out.extend_from_slice(HEADER_PREFIX);
        out.extend_from_slice(digits);
        out.extend_from_slice(HEADER_END);
        out.extend_from_slice(body);
        Ok(())
    }
}

impl ContentLengthEncoder {
    /// Why `body` (whose header section is `header_len` bytes) is refused:
    /// the checks again, in order, with details.
    #[cold]
    fn refusal(&self, body: &[u8], header_len: usize) -> FramingError {
        let refuse = |kind, detail| FramingError::encode(kind, Framing::ContentLength, detail);
        if body.len() > self.limits.max_frame_bytes {
            let detail = format!(
                "body of {} bytes exceeds the frame bound of {} bytes",
                body.len(),
                self.limits.max_frame_bytes
            );
            return refuse(FaultKind::FrameTooLong, detail);
        }
        if let Err(error) = std::str::from_utf8(body) {
            let detail = format!(
                "body is not valid UTF-8 (first invalid byte at body byte {})",
                error.valid_up_to()
            );
            return refuse(FaultKind::BodyNotUtf8, detail);
        }
        let detail = format!(
            "header section of {header_len} bytes exceeds the header bound of {} bytes",
            self.limits.max_header_bytes
        );
        refuse(FaultKind::HeaderTooLong, detail)
    }
}

/// What an encoded frame starts with, before the length's digits.
const HEADER_PREFIX: &[u8] = b"Content-Length: ";
/// The end of the header line and of the header section.
const HEADER_END: &[u8] = b"\r\n\r\n";

/// `value` in decimal, written at the end of `buffer` (20 digits hold any
/// `usize`).
fn decimal(mut value: usize, buffer: &mut [u8; 20]) -> &[u8] {
    let mut start = buffer.len();
    for slot in buffer.iter_mut().rev() {
        *slot = b'0' + (value % 10) as u8;
        start -= 1;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    buffer.get(start..).unwrap_or_default()
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
    fn decimal_digits() {
        let mut buffer = [0; 20];
        for value in [0, 7, 10, 99, 4096, 16 << 20, usize::MAX] {
            assert_eq!(decimal(value, &mut buffer), value.to_string().as_bytes());
        }
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
