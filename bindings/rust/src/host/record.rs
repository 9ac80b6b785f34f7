//! Recording a session: the exact bytes the host wrote to the server's
//! stdin and read from its stdout, headers and line endings included, in
//! the order the host sent and handled them, so a recording shows the
//! framing as it was (a server's `Content-Type` headers, its CRLFs) and
//! `wirekit validate` reads it as one capture.
//!
//! Written bytes are teed as they go into the pipe. Read bytes are teed by
//! the reader thread and handed to the host with the frame (or fault) they
//! belong to ([`TeeReader`](crate::framing::TeeReader) keeps them,
//! [`FrameReader::consumed`] marks where each one ends), and the
//! host writes them to the recording when it handles that frame: a request
//! the host sends after reading a frame lands after that frame's bytes,
//! even when the reader has already read ahead into the next one.
//!
//! [`FrameReader::consumed`]: crate::framing::FrameReader::consumed

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex};

use crate::capture::{Sender, SidesWriter};

/// Where a session is recorded, once the caller asks for it; shared by the
/// host and the tee on the server's stdin.
pub type Recorder = Arc<Mutex<Option<Recording>>>;

/// A recording: the capture's bytes and, optionally, its sides file (who
/// wrote which bytes; see [`crate::capture`]).
pub struct Recording {
    bytes: Box<dyn Write + Send>,
    sides: Option<SidesWriter>,
    /// Whether frames are lines (NDJSON): one peer's line left open when
    /// the other writes is ended first (see [`record`]).
    lines: bool,
    /// Who wrote the last bytes, and whether they left a line open.
    last: Option<Sender>,
    open_line: bool,
    /// The peer whose open line the recording ended: its next newline is
    /// already written.
    ended_for: Option<Sender>,
}

impl Recording {
    /// Records the bytes into `sink`.
    pub fn new(sink: Box<dyn Write + Send>) -> Self {
        Recording {
            bytes: sink,
            sides: None,
            lines: false,
            last: None,
            open_line: false,
            ended_for: None,
        }
    }

    /// Frames are lines (NDJSON): where one peer's line is still open (a
    /// driver's last line written without its newline, an answer read at
    /// the end of input) when the other peer's bytes come, the recording
    /// ends that line first, so the two pipes' lines are not glued into
    /// one in the capture; the newline the peer then writes is not written
    /// twice.
    pub fn with_lines(mut self) -> Self {
        self.lines = true;
        self
    }

    fn write(&mut self, from: Sender, mut bytes: &[u8]) {
        if self.lines {
            if self.ended_for == Some(from) {
                self.ended_for = None;
                if let Some(rest) = bytes.strip_prefix(b"\n") {
                    bytes = rest;
                }
            }
            if let Some(last) = self.last.filter(|last| *last != from && self.open_line) {
                self.put(last, b"\n");
                self.ended_for = Some(last);
            }
        }
        if bytes.is_empty() {
            return;
        }
        self.put(from, bytes);
    }

    fn put(&mut self, from: Sender, bytes: &[u8]) {
        let sink = &mut self.bytes;
        let _ = sink.write_all(bytes).and_then(|()| sink.flush());
        if let Some(sides) = self.sides.as_mut() {
            sides.note(from, bytes.len());
        }
        self.last = Some(from);
        self.open_line = bytes.last() != Some(&b'\n');
    }

    /// Also writes the sides file into `sink`.
    pub fn with_sides(mut self, sink: Box<dyn Write + Send>) -> Self {
        self.sides = Some(SidesWriter::new(sink));
        self
    }
}

/// Appends `bytes`, written by `from`, to the recording, if there is one.
/// A failing recording never fails the session: it is a side output.
pub fn record(recorder: &Recorder, from: Sender, bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    if let Ok(mut recording) = recorder.lock() {
        if let Some(recording) = recording.as_mut() {
            recording.write(from, bytes);
        }
    }
}

/// The server's stdin, recording every byte that went into the pipe (the
/// client's).
pub struct TeeWriter<W> {
    /// The pipe (or any writer) the bytes go to.
    pub inner: W,
    /// Where the bytes that went in are recorded.
    pub recorder: Recorder,
}

impl<W: Write> Write for TeeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        record(&self.recorder, Sender::Client, &buf[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Reads a server's stderr until it ends, keeping only its last `limit`
/// bytes in `kept` (a chatty server cannot grow the host's memory). Run on
/// a thread of its own by every host of a server process.
pub fn keep_stderr_tail(mut stderr: impl Read, kept: &Mutex<VecDeque<u8>>, limit: usize) {
    let mut chunk = [0u8; 4096];
    while let Ok(read) = stderr.read(&mut chunk) {
        if read == 0 {
            return;
        }
        if let Ok(mut tail) = kept.lock() {
            tail.extend(&chunk[..read]);
            let excess = tail.len().saturating_sub(limit);
            tail.drain(..excess);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{record, Recorder, Recording};
    use crate::capture::{Sender, Sides};
    use crate::framing::{FrameReader, Framing, TeeReader};
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| std::io::ErrorKind::Other)?
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn text(shared: &Shared) -> String {
        String::from_utf8(shared.0.lock().map(|b| b.clone()).unwrap_or_default())
            .unwrap_or_default()
    }

    /// A client line left open (its newline written later, or never) and
    /// a server's answer in between: the capture keeps them two lines, the
    /// newline is not doubled, and the sides file says who wrote what.
    #[test]
    fn an_open_line_is_ended_before_the_other_peers_bytes() {
        let (bytes, sides) = (Shared::default(), Shared::default());
        let recording = Recording::new(Box::new(bytes.clone()))
            .with_sides(Box::new(sides.clone()))
            .with_lines();
        let recorder: Recorder = Arc::new(Mutex::new(Some(recording)));
        record(&recorder, Sender::Client, b"{\"id\":1}");
        record(&recorder, Sender::Server, b"{\"id\":1,\"result\":{}}");
        record(&recorder, Sender::Client, b"\n{\"id\":2}\n");
        record(&recorder, Sender::Server, b"{\"id\":2,\"result\":{}}");
        assert_eq!(
            text(&bytes),
            "{\"id\":1}\n{\"id\":1,\"result\":{}}\n{\"id\":2}\n{\"id\":2,\"result\":{}}"
        );
        let parsed = Sides::parse(&text(&sides)).expect("a sides file");
        assert_eq!(parsed.sender_at(0), Some(Sender::Client));
        let at = |offset| parsed.sender_at(offset);
        assert_eq!(at(8), Some(Sender::Client), "the client's ended line");
        assert_eq!(at(9), Some(Sender::Server));
        assert_eq!(at(29), Some(Sender::Server), "the server's ended line");
        assert_eq!(at(30), Some(Sender::Client));
    }

    /// Without `with_lines` (Content-Length frames) the bytes are kept as
    /// they came.
    #[test]
    fn without_lines_the_bytes_are_kept_as_they_came() {
        let bytes = Shared::default();
        let recorder: Recorder =
            Arc::new(Mutex::new(Some(Recording::new(Box::new(bytes.clone())))));
        record(&recorder, Sender::Client, b"ab");
        record(&recorder, Sender::Server, b"cd");
        assert_eq!(text(&bytes), "abcd");
    }

    #[test]
    fn each_frame_gets_its_own_bytes_headers_included() {
        let stream = b"Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}Content-Length: 3\r\n\r\n[1]Content-Len";
        let mut reader = FrameReader::new(
            TeeReader::new(&stream[..], 1 << 20),
            Framing::ContentLength,
            Framing::ContentLength.default_limits(),
        )
        .with_chunk_size(7);
        let mut pieces = Vec::new();
        while let Ok(Some(_)) | Err(_) = reader.read_frame() {
            let until = reader.consumed();
            pieces.push(reader.get_mut().take(until));
            if pieces.len() > 4 {
                break;
            }
        }
        pieces.push(reader.get_mut().take_all());
        assert_eq!(
            pieces[0],
            b"Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"
        );
        assert_eq!(pieces[1], b"Content-Length: 3\r\n\r\n[1]");
        assert_eq!(pieces.concat(), stream);
    }

    #[test]
    fn ndjson_frames_keep_their_line_endings() {
        let stream = b"{\"a\":1}\r\n{\"b\":2}\n";
        let mut reader = FrameReader::new(
            TeeReader::new(&stream[..], 1 << 20),
            Framing::Ndjson,
            Framing::Ndjson.default_limits(),
        );
        let mut pieces = Vec::new();
        while let Ok(Some(_)) = reader.read_frame() {
            let until = reader.consumed();
            pieces.push(reader.get_mut().take(until));
        }
        assert_eq!(pieces, [&b"{\"a\":1}\r\n"[..], &b"{\"b\":2}\n"[..]]);
    }
}
