//! In-memory pipes for a serve loop under test: the client's end of stdin
//! (byte chunks the test sends; the end of input when the sender drops) and
//! of stdout (each line the server writes, with the time it arrived).
//! Shared by this crate's tests and wirekit-protocols' (`#[path]`).

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::Instant;

/// The client's end of stdin: chunks the test sends.
pub struct Input(pub mpsc::Receiver<Vec<u8>>, pub Vec<u8>);

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.1.is_empty() {
            match self.0.recv() {
                Ok(bytes) => self.1 = bytes,
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.1.len());
        buf[..n].copy_from_slice(&self.1[..n]);
        self.1.drain(..n);
        Ok(n)
    }
}

/// The client's end of stdout: each line the server writes (its newline
/// included), as it arrives, with the time it arrived. Like a buffered
/// pipe, what is written arrives at the next flush, so a loop that forgets
/// to flush is seen.
pub struct Output(pub mpsc::Sender<(Instant, Vec<u8>)>, pub Vec<u8>);

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.1.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        while let Some(end) = self.1.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.1.drain(..=end).collect();
            let _ = self.0.send((Instant::now(), line));
        }
        Ok(())
    }
}
