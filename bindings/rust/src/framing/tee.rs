//! A tee on a frame reader's input: each frame's exact bytes.

use std::io::{self, Read};

/// A reader that keeps the bytes read until the frame they belong to is
/// taken: wrap the input of a [`FrameReader`](super::FrameReader) in it, and
/// after each frame or fault take the bytes up to
/// [`FrameReader::consumed`](super::FrameReader::consumed): the frame's exact
/// bytes, header and line ending included (what `wirekit frames` shows of
/// the headers, what a host records).
///
/// Memory stays bounded by the frame bound: a frame reader reads again only
/// once its decoder has consumed every byte read so far, so when the tee is
/// asked for more, what it keeps is the one frame in progress. Past
/// `max_kept` bytes (give the frame bound plus the header bound) that frame
/// is over the bound and will be a fault; the tee then keeps its first
/// `max_kept` bytes and its last chunk and drops the middle, so the bytes
/// handed out for it still exceed the bound and still end where it ended.
pub struct TeeReader<R> {
    inner: R,
    /// Bytes read and not yet handed out, less the dropped middle.
    kept: Vec<u8>,
    /// Stream offset of `kept[0]`.
    kept_from: u64,
    /// Bytes of the frame in progress dropped after its first `max_kept`.
    dropped: u64,
    max_kept: usize,
}

impl<R> TeeReader<R> {
    /// Keeps what `inner` yields; an over-long frame keeps its first
    /// `max_kept` bytes and its end (see the type's docs).
    pub fn new(inner: R, max_kept: usize) -> Self {
        TeeReader {
            inner,
            kept: Vec::new(),
            kept_from: 0,
            dropped: 0,
            max_kept: max_kept.max(1),
        }
    }

    /// The bytes read before stream offset `until` and not yet taken: the
    /// frame (or fault) that ends there, with whatever preceded it (an
    /// over-long frame without its dropped middle).
    pub fn take(&mut self, until: u64) -> Vec<u8> {
        let in_stream = until.saturating_sub(self.kept_from);
        let count = usize::try_from(in_stream.saturating_sub(self.dropped))
            .unwrap_or(usize::MAX)
            .min(self.kept.len());
        self.kept_from = self.kept_from.max(until);
        self.dropped = 0;
        let rest = self.kept.split_off(count);
        std::mem::replace(&mut self.kept, rest)
    }

    /// Every byte read and not yet taken (at the end of the stream: a
    /// partial frame the server left behind).
    pub fn take_all(&mut self) -> Vec<u8> {
        self.kept_from += self.kept.len() as u64 + self.dropped;
        self.dropped = 0;
        std::mem::take(&mut self.kept)
    }
}

impl<R: Read> Read for TeeReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Everything kept belongs to the frame in progress (see the type's
        // docs): past the bound, its middle goes.
        if self.kept.len() > self.max_kept {
            let excess = self.kept.len() - self.max_kept;
            self.kept.truncate(self.max_kept);
            self.dropped += excess as u64;
        }
        let read = self.inner.read(buf)?;
        self.kept.extend_from_slice(&buf[..read]);
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::{FrameLimits, FrameReader, Framing};

    #[test]
    fn an_endless_line_keeps_its_head_and_end_within_the_bound() {
        let mut stream = vec![b'x'; 1 << 20];
        stream.extend_from_slice(b"\n{\"a\":1}\n");
        let limits = FrameLimits::ndjson_default().with_max_frame_bytes(1000);
        let mut reader =
            FrameReader::new(TeeReader::new(&stream[..], 1100), Framing::Ndjson, limits)
                .with_chunk_size(4096);
        let mut pieces = Vec::new();
        let mut peak = 0;
        while let Ok(Some(_)) | Err(_) = reader.read_frame() {
            peak = peak.max(reader.get_ref().kept.len());
            let until = reader.consumed();
            pieces.push(reader.get_mut().take(until));
        }
        assert!(peak <= 1100 + 4096, "kept {peak} bytes");
        // The fault comes at the bound; the rest of its line goes with the
        // next frame. Together: one line still over the bound (its middle
        // dropped), then the next frame, whole.
        assert_eq!(pieces.len(), 2);
        let recorded = pieces.concat();
        assert!(recorded.len() < 3 * 4096, "{} bytes", recorded.len());
        let line_end = recorded.iter().position(|b| *b == b'\n').expect("LF");
        assert!(line_end > 1000);
        assert!(recorded[..line_end].iter().all(|b| *b == b'x'));
        assert_eq!(&recorded[line_end + 1..], b"{\"a\":1}\n");
    }
}
