//! The decoder and encoder traits, their factories, and the pieces the
//! concrete codecs share.

use std::collections::VecDeque;

use super::{
    ContentLengthDecoder, ContentLengthEncoder, Frame, FrameLimits, Framing, FramingError,
    NdjsonDecoder, NdjsonEncoder,
};

/// An I/O-free, bounded push decoder.
///
/// Feed bytes with [`push`](FrameDecoder::push) as they arrive, call
/// [`finish`](FrameDecoder::finish) at end of input, and take results with
/// [`next_frame`](FrameDecoder::next_frame) until it returns `None`. A push
/// processes its chunk at once: completed frames and faults wait in a small
/// queue, partial frames are kept only within the [`FrameLimits`].
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

    /// Bytes held: the partial frame, and the bodies of queued frames.
    fn buffered_bytes(&self) -> usize;

    /// Whether a fault has ended the stream (`Content-Length` only). A dead
    /// decoder holds no partial frame and ignores all further input; frames
    /// and the fault already queued can still be taken.
    fn is_dead(&self) -> bool;
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
