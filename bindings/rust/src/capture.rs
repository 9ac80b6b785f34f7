//! Who sent which bytes of a capture: the sides file.
//!
//! A capture holds both directions of a session in one stream, in the
//! order the frames passed. The stream alone cannot say who sent a
//! message: a request of a `client-to-server` method is taken for the
//! client's, so a server that sends `textDocument/hover` looks like a
//! client that does. A recorder that knows (the host, the LSP client)
//! writes a sides file beside the capture, `<capture>.sides`:
//!
//! ```text
//! 0 client
//! 947 server
//! 3736 client
//! ```
//!
//! Each line is a byte offset into the capture and the peer that wrote the
//! bytes from there on, offsets strictly increasing; blank lines and lines
//! starting with `#` are ignored. With it, `wirekit validate` checks each
//! message's direction against the protocol and blames the peer that sent
//! it; without it, the direction is inferred as before.

use std::fmt;
use std::io::Write;

/// The peer that wrote some bytes of a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sender {
    /// The client (the host, the editor).
    Client,
    /// The server (the spawned process).
    Server,
}

impl Sender {
    /// `client` or `server`, as the sides file writes it.
    pub fn name(self) -> &'static str {
        match self {
            Sender::Client => "client",
            Sender::Server => "server",
        }
    }
}

/// Writes a sides file as the capture grows: a line each time the writer
/// of the bytes changes. A failing sink never fails the session (the
/// recording is a side output).
pub struct SidesWriter {
    sink: Box<dyn Write + Send>,
    offset: u64,
    last: Option<Sender>,
}

impl SidesWriter {
    /// A sides file written to `sink`, for a capture that starts now.
    pub fn new(sink: Box<dyn Write + Send>) -> Self {
        SidesWriter {
            sink,
            offset: 0,
            last: None,
        }
    }

    /// `count` bytes of the capture, written by `from`, follow.
    pub fn note(&mut self, from: Sender, count: usize) {
        if count == 0 {
            return;
        }
        if self.last != Some(from) {
            let _ = writeln!(self.sink, "{} {}", self.offset, from.name())
                .and_then(|()| self.sink.flush());
            self.last = Some(from);
        }
        self.offset = self
            .offset
            .saturating_add(u64::try_from(count).unwrap_or(u64::MAX));
    }
}

/// Why a sides file cannot be read; `line` counts from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SidesError {
    /// A line that is not `<offset> client|server`.
    Malformed {
        /// The line's number.
        line: usize,
        /// Its text (at most 80 characters).
        text: String,
    },
    /// An offset not greater than the one before it.
    NotIncreasing {
        /// The line's number.
        line: usize,
        /// Its offset.
        offset: u64,
    },
}

impl fmt::Display for SidesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SidesError::Malformed { line, text } => write!(
                f,
                "line {line}: `{text}` is not `<byte offset> client|server`"
            ),
            SidesError::NotIncreasing { line, offset } => write!(
                f,
                "line {line}: the offset {offset} is not greater than the one before it"
            ),
        }
    }
}

impl std::error::Error for SidesError {}

/// A sides file, read: who wrote the bytes at each offset.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sides {
    runs: Vec<(u64, Sender)>,
}

impl Sides {
    /// Reads a sides file's text.
    pub fn parse(text: &str) -> Result<Sides, SidesError> {
        let mut runs: Vec<(u64, Sender)> = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line_number = number + 1;
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let malformed = || SidesError::Malformed {
                line: line_number,
                text: trimmed.chars().take(80).collect(),
            };
            let mut parts = trimmed.split_whitespace();
            let offset: u64 = parts
                .next()
                .and_then(|o| o.parse().ok())
                .ok_or_else(malformed)?;
            let sender = match parts.next() {
                Some("client") => Sender::Client,
                Some("server") => Sender::Server,
                _ => return Err(malformed()),
            };
            if parts.next().is_some() {
                return Err(malformed());
            }
            if runs.last().is_some_and(|(last, _)| *last >= offset) {
                return Err(SidesError::NotIncreasing {
                    line: line_number,
                    offset,
                });
            }
            runs.push((offset, sender));
        }
        Ok(Sides { runs })
    }

    /// Who wrote the byte at `offset`; `None` before the first line's offset.
    pub fn sender_at(&self, offset: u64) -> Option<Sender> {
        let after = self.runs.partition_point(|(start, _)| *start <= offset);
        after.checked_sub(1).map(|at| self.runs[at].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().map_or(Ok(0), |mut v| {
                v.extend_from_slice(buf);
                Ok(buf.len())
            })
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn what_the_writer_writes_the_reader_reads() {
        let sink = Shared::default();
        let mut writer = SidesWriter::new(Box::new(sink.clone()));
        writer.note(Sender::Client, 10);
        writer.note(Sender::Client, 5);
        writer.note(Sender::Server, 0);
        writer.note(Sender::Server, 7);
        writer.note(Sender::Client, 1);
        let text = String::from_utf8(sink.0.lock().map(|v| v.clone()).unwrap_or_default())
            .unwrap_or_default();
        assert_eq!(text, "0 client\n15 server\n22 client\n");
        let sides = Sides::parse(&text).unwrap_or_default();
        assert_eq!(sides.sender_at(0), Some(Sender::Client));
        assert_eq!(sides.sender_at(14), Some(Sender::Client));
        assert_eq!(sides.sender_at(15), Some(Sender::Server));
        assert_eq!(sides.sender_at(21), Some(Sender::Server));
        assert_eq!(sides.sender_at(9_999), Some(Sender::Client));
    }

    #[test]
    fn a_bad_line_is_named() {
        assert_eq!(
            Sides::parse("0 client\n# note\n\n5 sever\n"),
            Err(SidesError::Malformed {
                line: 4,
                text: "5 sever".into()
            })
        );
        assert_eq!(
            Sides::parse("5 client\n5 server\n"),
            Err(SidesError::NotIncreasing { line: 2, offset: 5 })
        );
        assert_eq!(Sides::parse("3 server\n").map(|s| s.sender_at(2)), Ok(None));
    }
}
