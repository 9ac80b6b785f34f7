//! A tee on a frame reader's input: each frame's exact bytes.

use std::io::{self, Read};

/// A reader that keeps the bytes read until the frame they belong to is
/// taken: wrap the input of a [`FrameReader`](super::FrameReader) in it, and
/// after each frame or fault take the bytes up to
/// [`FrameReader::consumed`](super::FrameReader::consumed): the frame's exact
/// bytes, header and line ending included (what `wirekit frames` shows of
/// the headers, what a host records).
pub struct TeeReader<R> {
    inner: R,
    /// Bytes read and not yet handed out.
    kept: Vec<u8>,
    /// Stream offset of `kept[0]`.
    kept_from: u64,
}

impl<R> TeeReader<R> {
    /// Keeps what `inner` yields.
    pub fn new(inner: R) -> Self {
        TeeReader {
            inner,
            kept: Vec::new(),
            kept_from: 0,
        }
    }

    /// The bytes read before stream offset `until` and not yet taken: the
    /// frame (or fault) that ends there, with whatever preceded it.
    pub fn take(&mut self, until: u64) -> Vec<u8> {
        let count = usize::try_from(until.saturating_sub(self.kept_from))
            .unwrap_or(usize::MAX)
            .min(self.kept.len());
        self.kept_from += count as u64;
        let rest = self.kept.split_off(count);
        std::mem::replace(&mut self.kept, rest)
    }

    /// Every byte read and not yet taken (at the end of the stream: a
    /// partial frame the server left behind).
    pub fn take_all(&mut self) -> Vec<u8> {
        self.kept_from += self.kept.len() as u64;
        std::mem::take(&mut self.kept)
    }
}

impl<R: Read> Read for TeeReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.kept.extend_from_slice(&buf[..read]);
        Ok(read)
    }
}
