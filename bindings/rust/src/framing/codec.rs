//! The decoder and encoder traits, their factories, and the pieces the
//! concrete codecs share.

use std::collections::VecDeque;

use super::{
    ContentLengthDecoder, ContentLengthEncoder, Frame, FrameLimits, FrameRef, Framing,
    FramingError, NdjsonDecoder, NdjsonEncoder,
};

/// An I/O-free, bounded push decoder.
///
/// Two ways to use it, which may be mixed:
///
/// * Owned frames: feed bytes with [`push`](FrameDecoder::push) as they
///   arrive, call [`finish`](FrameDecoder::finish) at end of input, and take
///   results with [`next_frame`](FrameDecoder::next_frame) until it returns
///   `None`. A push processes its chunk at once: completed frames and faults
///   wait in a small queue, partial frames are kept only within the
///   [`FrameLimits`].
/// * Borrowed frames: hand each chunk to [`decode`](FrameDecoder::decode)
///   until it has consumed it all. A frame whole in the chunk is lent from the
///   chunk itself (found, checked as UTF-8, never copied); only a frame split
///   across chunks is copied into the decoder, and lent from there. Nothing
///   is queued.
///
/// ```
/// use wirekit::framing::{FrameDecoder, FrameLimits, NdjsonDecoder};
///
/// let mut decoder = NdjsonDecoder::new(FrameLimits::ndjson_default());
/// let mut bodies = Vec::new();
/// for chunk in [&b"{\"id\":1}\n{\"id"[..], b"\":2}\n"] {
///     let mut rest = chunk;
///     loop {
///         let step = decoder.decode(rest);
///         rest = &rest[step.consumed..];
///         match step.item {
///             Some(Ok(frame)) => bodies.push((frame.body().to_string(), frame.is_borrowed_from_input())),
///             Some(Err(fault)) => eprintln!("{fault}"),
///             None => break, // the chunk is used up
///         }
///     }
/// }
/// assert_eq!(bodies, [("{\"id\":1}".to_string(), true), ("{\"id\":2}".to_string(), false)]);
/// ```
///
/// Drain the queue after every push: memory held is then at most the frame
/// bound, plus the header bound, plus one pushed chunk. A push queues at most
/// one result per byte it carries (an NDJSON chunk of bare LFs is one
/// `EmptyFrame` fault each), so small chunks keep the queue small too. The
/// results do not depend on how the input is split into chunks.
pub trait FrameDecoder {
    /// Process the next bytes of the stream. Ignored once the decoder is
    /// dead or finished.
    fn push(&mut self, chunk: &[u8]);

    /// End of input. A partial frame becomes a fault (`Content-Length`) or
    /// a last frame (NDJSON line without LF). Later pushes are ignored.
    fn finish(&mut self);

    /// The next completed frame or fault, in stream order.
    fn next_frame(&mut self) -> Option<Result<Frame, FramingError>>;

    /// Decode from the front of `input`: consume bytes until one frame or
    /// fault is complete, or until `input` is used up (then `item` is `None`
    /// and `consumed` is `input.len()`). Pass the rest, `&input[consumed..]`,
    /// to the next call.
    ///
    /// Results already queued by [`push`](FrameDecoder::push) or
    /// [`finish`](FrameDecoder::finish) come first, consuming nothing. A
    /// frame is lent until the next call on the decoder; see [`FrameRef`].
    /// Every bound is checked before a byte is kept, as with `push`, and
    /// the results are the same as `push` and `next_frame` give for the
    /// same bytes, however they are split. Once the decoder is dead or
    /// finished, input is consumed and ignored.
    fn decode<'a>(&'a mut self, input: &'a [u8]) -> Decoded<'a>;

    /// Bytes held: the partial frame, and the bodies of queued frames.
    fn buffered_bytes(&self) -> usize;

    /// Whether a fault has ended the stream (`Content-Length` only). A dead
    /// decoder holds no partial frame and ignores all further input; frames
    /// and the fault already queued can still be taken.
    fn is_dead(&self) -> bool;
}

/// What one [`FrameDecoder::decode`] call did.
#[derive(Debug)]
pub struct Decoded<'a> {
    /// Bytes taken from the front of the input.
    pub consumed: usize,
    /// The frame or fault completed, or `None` when the input was used up
    /// first (its bytes are kept within the bounds, or skipped).
    pub item: Option<Result<FrameRef<'a>, FramingError>>,
}

/// What a decoder's step completed: a frame in the input, a frame in the
/// decoder's lent buffer, or a fault.
#[derive(Debug)]
pub(crate) enum Step<'a> {
    /// A checked body lying in the input.
    Input(u64, &'a str),
    /// A checked body in the decoder's lent buffer.
    Held(u64),
    /// A fault.
    Fault(FramingError),
}

impl<'a> Step<'a> {
    /// The step as a lent frame; `lent` is the decoder's lent buffer.
    pub(crate) fn lend(self, lent: &'a mut String) -> Result<FrameRef<'a>, FramingError> {
        match self {
            Step::Input(offset, body) => Ok(FrameRef::borrowed(offset, body)),
            Step::Held(offset) => Ok(FrameRef::held(offset, lent)),
            Step::Fault(error) => Err(error),
        }
    }

    /// Queue the step as an owned frame (the lent buffer is taken, a body in
    /// the input copied) or a fault.
    pub(crate) fn queue(self, lent: &mut String, out: &mut Outbox) {
        match self {
            Step::Input(offset, body) => out.frame(Frame::new(offset, body.to_owned())),
            Step::Held(offset) => out.frame(Frame::new(offset, std::mem::take(lent))),
            Step::Fault(error) => out.fault(error),
        }
    }
}

/// A queued result, lent: a frame's body moves into the decoder's lent buffer.
pub(crate) fn lend_queued(
    item: Result<Frame, FramingError>,
    lent: &mut String,
) -> Result<FrameRef<'_>, FramingError> {
    let frame = item?;
    let offset = frame.offset();
    *lent = frame.into_body();
    Ok(FrameRef::held(offset, lent))
}

/// Capacity of a frame buffer kept for the next frame; a larger one is freed.
pub(crate) const RETAINED_BUFFER_BYTES: usize = 64 * 1024;

/// Give the lent buffer's allocation back to the (empty) frame buffer when
/// it is small, else free it: a body lent earlier is no longer in use.
pub(crate) fn recycle(lent: &mut String, buffer: &mut Vec<u8>) {
    if lent.capacity() == 0 {
        return;
    }
    let mut bytes = std::mem::take(lent).into_bytes();
    if buffer.capacity() == 0 && bytes.capacity() <= RETAINED_BUFFER_BYTES {
        bytes.clear();
        *buffer = bytes;
    }
}

/// A frame encoder: shapes one body into the bytes of one frame.
///
/// An encoder refuses a body that its decoder would not give back as the
/// same frame (too long, not UTF-8, and for NDJSON empty or multi-line).
pub trait FrameEncoder {
    /// Append the frame for `body` to `out`. On error `out` is unchanged.
    fn encode_into(&self, body: &[u8], out: &mut Vec<u8>) -> Result<(), FramingError>;

    /// The frame for `body`, in a new buffer.
    fn encode(&self, body: &[u8]) -> Result<Vec<u8>, FramingError> {
        let mut out = Vec::new();
        self.encode_into(body, &mut out)?;
        Ok(out)
    }
}

/// A decoder for `framing` with `limits`.
pub fn decoder_for(framing: Framing, limits: FrameLimits) -> Box<dyn FrameDecoder + Send> {
    match framing {
        Framing::Ndjson => Box::new(NdjsonDecoder::new(limits)),
        Framing::ContentLength => Box::new(ContentLengthDecoder::new(limits)),
    }
}

/// An encoder for `framing` with `limits`.
pub fn encoder_for(framing: Framing, limits: FrameLimits) -> Box<dyn FrameEncoder + Send + Sync> {
    match framing {
        Framing::Ndjson => Box::new(NdjsonEncoder::new(limits)),
        Framing::ContentLength => Box::new(ContentLengthEncoder::new(limits)),
    }
}

/// The queue of completed frames and faults, with the body bytes it holds.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    items: VecDeque<Result<Frame, FramingError>>,
    bytes: usize,
}

impl Outbox {
    pub(crate) fn frame(&mut self, frame: Frame) {
        self.bytes += frame.len();
        self.items.push_back(Ok(frame));
    }

    pub(crate) fn fault(&mut self, error: FramingError) {
        self.items.push_back(Err(error));
    }

    pub(crate) fn pop(&mut self) -> Option<Result<Frame, FramingError>> {
        let item = self.items.pop_front()?;
        if let Ok(frame) = &item {
            self.bytes -= frame.len();
        }
        Some(item)
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

/// Make room for `additional` more bytes, growing geometrically (so copying
/// stays linear) but never past `cap` bytes of capacity unless the bytes
/// themselves need it.
pub(crate) fn reserve_capped(buf: &mut Vec<u8>, additional: usize, cap: usize) {
    let needed = buf.len().saturating_add(additional);
    if needed <= buf.capacity() {
        return;
    }
    let doubled = buf.capacity().saturating_mul(2).max(64);
    let target = doubled.min(cap).max(needed);
    buf.reserve_exact(target - buf.len());
}

/// `text` for a detail message: Rust-escaped, cut to 40 characters.
pub(crate) fn quote(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        format!("{text:?}")
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head:?}...")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserve_is_capped_and_sufficient() {
        let mut buf = Vec::new();
        for _ in 0..100 {
            reserve_capped(&mut buf, 100, 1000);
            assert!(buf.capacity() >= buf.len() + 100);
            if buf.len() + 100 <= 1000 {
                assert!(buf.capacity() <= 1000);
            }
            buf.extend_from_slice(&[0; 100]);
        }
    }

    #[test]
    fn quote_cuts_long_text() {
        assert_eq!(quote("ab\"c"), "\"ab\\\"c\"");
        assert_eq!(quote(&"x".repeat(50)), format!("{:?}...", "x".repeat(40)));
    }
}
