//! Thin blocking `std::io` adapters over the I/O-free codecs.

use std::fmt;
use std::io::{self, Read, Write};

use super::{
    decoder_for, encoder_for, FaultKind, Frame, FrameDecoder, FrameEncoder, FrameLimits, Framing,
    FramingError,
};

/// Bytes requested from the reader per `read` call unless configured.
pub const DEFAULT_CHUNK_SIZE: usize = 8 * 1024;

/// Encode buffer capacity kept between frames; a larger one is released.
const RETAINED_BUFFER_BYTES: usize = 64 * 1024;

/// Why a frame could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The bytes do not frame. If [`FramingError::ends_stream`], the reader
    /// yields nothing more; otherwise the next frame may be read.
    Framing(FramingError),
    /// The underlying reader failed. Reading may be retried.
    Io(io::Error),
}

impl ReadError {
    /// The fault kind, for a framing error.
    pub fn fault_kind(&self) -> Option<FaultKind> {
        match self {
            ReadError::Framing(error) => Some(error.kind()),
            ReadError::Io(_) => None,
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Framing(error) => write!(f, "cannot read frame: {error}"),
            ReadError::Io(error) => write!(f, "cannot read frame: I/O error: {error}"),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Framing(error) => Some(error),
            ReadError::Io(error) => Some(error),
        }
    }
}

impl From<FramingError> for ReadError {
    fn from(error: FramingError) -> Self {
        ReadError::Framing(error)
    }
}

impl From<io::Error> for ReadError {
    fn from(error: io::Error) -> Self {
        ReadError::Io(error)
    }
}

/// Why a frame could not be written.
#[derive(Debug)]
pub enum WriteError {
    /// The encoder refused the body; nothing was written.
    Framing(FramingError),
    /// The underlying writer failed, possibly after part of the frame.
    Io(io::Error),
}

impl WriteError {
    /// The fault kind, for a refused body.
    pub fn fault_kind(&self) -> Option<FaultKind> {
        match self {
            WriteError::Framing(error) => Some(error.kind()),
            WriteError::Io(_) => None,
        }
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Framing(error) => write!(f, "cannot write frame: {error}"),
            WriteError::Io(error) => write!(f, "cannot write frame: I/O error: {error}"),
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::Framing(error) => Some(error),
            WriteError::Io(error) => Some(error),
        }
    }
}

impl From<FramingError> for WriteError {
    fn from(error: FramingError) -> Self {
        WriteError::Framing(error)
    }
}

impl From<io::Error> for WriteError {
    fn from(error: io::Error) -> Self {
        WriteError::Io(error)
    }
}

/// Reads frames from a blocking reader, one chunk at a time.
///
/// ```
/// use wirekit::framing::{FrameLimits, FrameReader, Framing};
///
/// let input = &b"{\"id\":1}\n{\"id\":2}"[..];
/// let reader = FrameReader::new(input, Framing::Ndjson, FrameLimits::ndjson_default());
/// let bodies: Vec<String> = reader.map(|r| r.map(|f| f.into_body())).collect::<Result<_, _>>()?;
/// assert_eq!(bodies, ["{\"id\":1}", "{\"id\":2}"]);
/// # Ok::<(), wirekit::framing::ReadError>(())
/// ```
pub struct FrameReader<R: Read> {
    reader: R,
    decoder: Box<dyn FrameDecoder + Send>,
    /// The last chunk read; `chunk[start..end]` is not yet decoded.
    chunk: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// Bytes of the stream the decoder has taken so far.
    consumed: u64,
}

impl<R: Read> FrameReader<R> {
    /// A reader of `framing` frames bounded by `limits`, reading 8 KiB chunks.
    pub fn new(reader: R, framing: Framing, limits: FrameLimits) -> Self {
        Self::with_decoder(reader, decoder_for(framing, limits))
    }

    /// A reader driving any decoder.
    pub fn with_decoder(reader: R, decoder: Box<dyn FrameDecoder + Send>) -> Self {
        FrameReader {
            reader,
            decoder,
            chunk: vec![0; DEFAULT_CHUNK_SIZE],
            start: 0,
            end: 0,
            eof: false,
            consumed: 0,
        }
    }

    /// Read up to `size` bytes (at least 1) per `read` call.
    #[must_use]
    pub fn with_chunk_size(mut self, size: usize) -> Self {
        let pending = self.chunk.get(self.start..self.end).unwrap_or_default();
        let mut chunk = pending.to_vec();
        chunk.resize(size.max(1).max(pending.len()), 0);
        self.end = pending.len();
        self.start = 0;
        self.chunk = chunk;
        self
    }

    /// The next frame; `Ok(None)` at the end of input, and from then on.
    ///
    /// After a fault that ends the stream, this returns the fault once and
    /// then `Ok(None)` without reading further. After an I/O error the
    /// decoder state is kept, so a retry (say after `WouldBlock`) carries on.
    pub fn read_frame(&mut self) -> Result<Option<Frame>, ReadError> {
        loop {
            // Decode what is pending (a frame whole in it is copied once,
            // into the frame returned); read more when it is used up.
            let pending = self.chunk.get(self.start..self.end).unwrap_or_default();
            let step = self.decoder.decode(pending);
            self.start += step.consumed;
            self.consumed += step.consumed as u64;
            if let Some(item) = step.item {
                return item
                    .map(|frame| Some(frame.into_frame()))
                    .map_err(ReadError::Framing);
            }
            if self.eof || self.decoder.is_dead() {
                return Ok(None);
            }
            self.start = 0;
            self.end = 0;
            match self.reader.read(&mut self.chunk) {
                Ok(0) => {
                    self.eof = true;
                    self.decoder.finish();
                }
                Ok(n) => self.end = n,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(ReadError::Io(error)),
            }
        }
    }

    /// The next frame whole in the bytes already read, without reading:
    /// `None` when [`FrameReader::read_frame`] would have to read first (or
    /// the stream is over). A caller that writes its answers in batches
    /// flushes them on `None`, before the read that may block. Mixing the
    /// two calls gives the frames `read_frame` alone gives.
    pub fn read_buffered_frame(&mut self) -> Option<Result<Frame, FramingError>> {
        let pending = self.chunk.get(self.start..self.end).unwrap_or_default();
        if pending.is_empty() {
            return None;
        }
        let step = self.decoder.decode(pending);
        self.start += step.consumed;
        self.consumed += step.consumed as u64;
        step.item.map(|item| item.map(|frame| frame.into_frame()))
    }

    /// How many bytes of the stream lie before the end of the last frame
    /// or fault returned: a frame's own bytes (header, body, line ending)
    /// are those between the previous result's `consumed` and its own, so a
    /// tee on the reader can hand out each frame's exact bytes. Bytes read
    /// ahead but not yet framed are not counted.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Whether bytes read past the last frame or fault returned wait here,
    /// not yet framed: the peer sent more (part of a frame at least), so the
    /// next [`FrameReader::read_frame`] starts on them before it reads again.
    pub fn has_read_ahead(&self) -> bool {
        self.start < self.end
    }

    /// The underlying reader.
    pub fn get_ref(&self) -> &R {
        &self.reader
    }

    /// The underlying reader, mutably (reading from it directly breaks framing).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// The underlying reader; bytes already read but not yet framed are lost.
    pub fn into_inner(self) -> R {
        self.reader
    }
}

impl<R: Read> Iterator for FrameReader<R> {
    type Item = Result<Frame, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read_frame().transpose()
    }
}

impl<R: Read + fmt::Debug> fmt::Debug for FrameReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrameReader")
            .field("reader", &self.reader)
            .field("chunk_size", &self.chunk.len())
            .field("buffered_bytes", &self.decoder.buffered_bytes())
            .field("eof", &self.eof)
            .finish_non_exhaustive()
    }
}

/// Writes one frame per call to a blocking writer, flushing after each.
///
/// ```
/// use wirekit::framing::{FrameWriter, Framing};
///
/// let mut writer = FrameWriter::new(Vec::new(), Framing::ContentLength);
/// writer.write_frame(b"{}")?;
/// assert_eq!(writer.into_inner(), b"Content-Length: 2\r\n\r\n{}");
/// # Ok::<(), wirekit::framing::WriteError>(())
/// ```
pub struct FrameWriter<W: Write> {
    writer: W,
    encoder: Box<dyn FrameEncoder + Send + Sync>,
    buffer: Vec<u8>,
}

impl<W: Write> FrameWriter<W> {
    /// A writer of `framing` frames with that framing's default limits.
    pub fn new(writer: W, framing: Framing) -> Self {
        Self::with_limits(writer, framing, framing.default_limits())
    }

    /// A writer of `framing` frames bounded by `limits`.
    pub fn with_limits(writer: W, framing: Framing, limits: FrameLimits) -> Self {
        FrameWriter {
            writer,
            encoder: encoder_for(framing, limits),
            buffer: Vec::new(),
        }
    }

    /// Encode `body` as one frame, write it whole, and flush.
    pub fn write_frame(&mut self, body: &[u8]) -> Result<(), WriteError> {
        self.buffer.clear();
        self.encoder.encode_into(body, &mut self.buffer)?;
        let written = self.writer.write_all(&self.buffer);
        if self.buffer.capacity() > RETAINED_BUFFER_BYTES {
            self.buffer = Vec::new();
        }
        written?;
        self.writer.flush()?;
        Ok(())
    }

    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        &self.writer
    }

    /// The underlying writer, mutably (writing to it directly breaks framing).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.writer
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.writer
    }
}

impl<W: Write + fmt::Debug> fmt::Debug for FrameWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrameWriter")
            .field("writer", &self.writer)
            .finish_non_exhaustive()
    }
}
