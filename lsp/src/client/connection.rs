//! The transport: a language server subprocess, its stdin written through
//! the core's `Content-Length` encoder, its stdout cut into frames by the
//! core's decoder on a reader thread (so a silent server never blocks a
//! deadline), the last bytes of its stderr kept for error reports, and
//! optionally every byte of both directions recorded in order.
//!
//! Memory is bounded by bytes, not by a count of frames: the reader thread
//! reads ahead at most [`READ_AHEAD_BYTES`] of frames (always at least one,
//! which the frame bound caps), and keeps a frame's raw bytes beside its
//! body only when the session is recorded.

use std::collections::VecDeque;
use std::io;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use wirekit::capture::Sender;
use wirekit::envelope::{self, EnvelopeOptions, Message};
use wirekit::framing::{
    Frame, FrameLimits, FrameReader, FrameWriter, Framing, FramingError, ReadError, TeeReader,
};
use wirekit::host::{keep_stderr_tail, record, Recorder, Recording, TeeWriter};

/// Bytes of the server's stderr kept for reports.
const STDERR_KEPT: usize = 16 * 1024;
/// Frames read ahead of the client, at most.
const READ_AHEAD: usize = 64;
/// Bytes of frames (bodies, and raw bytes when recording) read ahead of
/// the client, at most; a single larger frame (up to the frame bound) is
/// still read, alone. The reader starts on a frame only while less than
/// half of it is in flight, so a large frame is not read while another is
/// held (80 frames of 15 MiB: 136 MiB peak, from 226 MiB).
pub(crate) const READ_AHEAD_BYTES: usize = 32 * 1024 * 1024;

/// The bytes read ahead and not yet handed to the client, shared by the
/// reader thread (which waits while they are over the budget) and the
/// client (which hands them back).
#[derive(Default)]
struct Budget {
    in_flight: Mutex<usize>,
    freed: Condvar,
}

impl Budget {
    /// Waits until `size` more bytes fit (or nothing is in flight), then takes them.
    fn take(&self, size: usize) {
        let Ok(mut in_flight) = self.in_flight.lock() else {
            return;
        };
        while *in_flight > 0 && in_flight.saturating_add(size) > READ_AHEAD_BYTES {
            in_flight = match self.freed.wait(in_flight) {
                Ok(guard) => guard,
                Err(_) => return,
            };
        }
        *in_flight = in_flight.saturating_add(size);
    }

    /// Waits until fewer than `level` bytes are in flight: the reader
    /// starts on the next frame only then, so a frame it reads while the
    /// client still holds a large one does not double what is held.
    fn wait_below(&self, level: usize) {
        let Ok(mut in_flight) = self.in_flight.lock() else {
            return;
        };
        while *in_flight >= level {
            in_flight = match self.freed.wait(in_flight) {
                Ok(guard) => guard,
                Err(_) => return,
            };
        }
    }

    fn give_back(&self, size: usize) {
        if let Ok(mut in_flight) = self.in_flight.lock() {
            *in_flight = in_flight.saturating_sub(size);
        }
        self.freed.notify_all();
    }
}

/// The bytes `event` holds.
fn held(event: &Incoming) -> usize {
    match event {
        Incoming::Frame(frame, bytes) => {
            frame.as_ref().map_or(0, |frame| frame.body().len()) + bytes.len()
        }
        Incoming::Closed(_, bytes) => bytes.len(),
    }
}

/// What the reader thread hands over: a frame or a framing fault with its
/// exact bytes, or the end of the server's stdout.
pub(crate) enum Incoming {
    Frame(Result<Frame, FramingError>, Vec<u8>),
    Closed(Option<io::Error>, Vec<u8>),
}

/// A running server and its pipes.
pub(crate) struct Connection {
    child: Child,
    writer: Option<FrameWriter<TeeWriter<ChildStdin>>>,
    incoming: Receiver<Incoming>,
    budget: Arc<Budget>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    recording: Recorder,
    closed: bool,
}

impl Connection {
    /// Starts `command` with piped stdio; `recording` receives every byte
    /// (and its sides file, who wrote which, where it has one).
    pub(crate) fn spawn(command: &mut Command, recording: Option<Recording>) -> io::Result<Self> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::other("the server's pipes are missing"));
        };
        let limits = FrameLimits::content_length_default();
        let (sender, incoming) = mpsc::sync_channel(READ_AHEAD);
        let budget = Arc::new(Budget::default());
        let reader_budget = Arc::clone(&budget);
        // Without a recording the raw bytes are dropped at once.
        let recorded = recording.is_some();
        thread::spawn(move || {
            let kept = limits
                .max_frame_bytes
                .saturating_add(limits.max_header_bytes);
            let mut reader =
                FrameReader::new(TeeReader::new(stdout, kept), Framing::ContentLength, limits);
            loop {
                reader_budget.wait_below(READ_AHEAD_BYTES / 2);
                let read = reader.read_frame();
                let until = reader.consumed();
                let mut raw = |all: bool| {
                    let tee = reader.get_mut();
                    let bytes = if all { tee.take_all() } else { tee.take(until) };
                    if recorded {
                        bytes
                    } else {
                        Vec::new()
                    }
                };
                let next = match read {
                    Ok(Some(frame)) => Incoming::Frame(Ok(frame), raw(false)),
                    Ok(None) => Incoming::Closed(None, raw(true)),
                    Err(ReadError::Framing(fault)) => Incoming::Frame(Err(fault), raw(false)),
                    Err(ReadError::Io(error)) => Incoming::Closed(Some(error), raw(true)),
                };
                let last = matches!(next, Incoming::Closed(..) | Incoming::Frame(Err(_), _));
                reader_budget.take(held(&next));
                if sender.send(next).is_err() || last {
                    return;
                }
            }
        });
        let stderr_kept = Arc::new(Mutex::new(VecDeque::new()));
        let sink = Arc::clone(&stderr_kept);
        thread::spawn(move || keep_stderr_tail(stderr, &sink, STDERR_KEPT));
        let recording: Recorder = Arc::new(Mutex::new(recording));
        let tee = TeeWriter {
            inner: stdin,
            recorder: Arc::clone(&recording),
        };
        Ok(Connection {
            child,
            writer: Some(FrameWriter::with_limits(
                tee,
                Framing::ContentLength,
                limits,
            )),
            incoming,
            budget,
            stderr: stderr_kept,
            recording,
            closed: false,
        })
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Frames and sends `message`.
    pub(crate) fn send(&mut self, message: &Message) -> Result<(), String> {
        let body = envelope::encode(message, &EnvelopeOptions::JSONRPC_2);
        let Some(writer) = self.writer.as_mut() else {
            return Err("the server's stdin is closed".to_owned());
        };
        writer
            .write_frame(&body)
            .map_err(|e| format!("cannot write to the server: {e}"))
    }

    /// The next frame, fault or end, waiting until `deadline`; `None` when
    /// the deadline passed first. The frame's bytes are recorded as it is
    /// handed over, so the recording keeps the order the client saw.
    pub(crate) fn next(&mut self, deadline: Instant) -> Option<Incoming> {
        if self.closed {
            return Some(Incoming::Closed(None, Vec::new()));
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        let event = match self.incoming.recv_timeout(wait) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => return None,
            Err(RecvTimeoutError::Disconnected) => Incoming::Closed(None, Vec::new()),
        };
        self.budget.give_back(held(&event));
        let mut event = event;
        // Recorded, the raw bytes are freed before the frame is decoded: a
        // large frame is not held twice while the client reads it.
        match &mut event {
            Incoming::Frame(_, bytes) => {
                record(&self.recording, Sender::Server, bytes);
                *bytes = Vec::new();
            }
            Incoming::Closed(_, bytes) => {
                record(&self.recording, Sender::Server, bytes);
                *bytes = Vec::new();
                self.closed = true;
            }
        }
        Some(event)
    }

    /// Closes the server's stdin (it sees end of input).
    pub(crate) fn close_stdin(&mut self) {
        self.writer = None;
    }

    /// The exit status, if the server has exited.
    pub(crate) fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Waits up to `grace` for the server to exit by itself.
    pub(crate) fn wait_for_exit(&mut self, grace: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + grace;
        loop {
            if let Some(status) = self.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Kills the server and reaps it.
    pub(crate) fn kill(&mut self) {
        self.writer = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The last bytes the server wrote to its stderr, as text.
    pub(crate) fn stderr_tail(&self) -> String {
        let kept = self
            .stderr
            .lock()
            .map(|bytes| bytes.iter().copied().collect::<Vec<u8>>())
            .unwrap_or_default();
        String::from_utf8_lossy(&kept).trim().to_owned()
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if self.try_wait().is_none() {
            self.kill();
        }
        // A reader waiting for room goes on, finds the channel gone and ends.
        self.budget.give_back(usize::MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_waits_while_the_bytes_read_ahead_are_over_the_budget() {
        let budget = Arc::new(Budget::default());
        budget.take(READ_AHEAD_BYTES - 10);
        let (done, finished) = mpsc::channel();
        let waiting = Arc::clone(&budget);
        let reader = thread::spawn(move || {
            waiting.take(20);
            let _ = done.send(());
        });
        assert!(
            finished.recv_timeout(Duration::from_millis(200)).is_err(),
            "20 more bytes do not fit"
        );
        budget.give_back(READ_AHEAD_BYTES - 10);
        assert!(finished.recv_timeout(Duration::from_secs(5)).is_ok());
        let _ = reader.join();
        // One frame larger than the whole budget still goes, alone.
        budget.give_back(usize::MAX);
        budget.take(READ_AHEAD_BYTES * 2);
    }
}
