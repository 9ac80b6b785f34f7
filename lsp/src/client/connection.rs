//! The transport: a language server subprocess, its stdin written through
//! the core's `Content-Length` encoder, its stdout cut into frames by the
//! core's decoder on a reader thread (so a silent server never blocks a
//! deadline), the last bytes of its stderr kept for error reports, and
//! optionally every byte of both directions recorded in order.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use wirekit::envelope::{self, EnvelopeOptions, Message};
use wirekit::framing::{
    Frame, FrameLimits, FrameReader, FrameWriter, Framing, FramingError, ReadError, TeeReader,
};
use wirekit::host::{keep_stderr_tail, record, Recorder, TeeWriter};

/// Bytes of the server's stderr kept for reports.
const STDERR_KEPT: usize = 16 * 1024;
/// Frames read ahead of the client.
const READ_AHEAD: usize = 64;

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
    stderr: Arc<Mutex<VecDeque<u8>>>,
    recording: Recorder,
    closed: bool,
}

impl Connection {
    /// Starts `command` with piped stdio; `recording` receives every byte.
    pub(crate) fn spawn(
        command: &mut Command,
        recording: Option<Box<dyn Write + Send>>,
    ) -> io::Result<Self> {
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
        thread::spawn(move || {
            let kept = limits
                .max_frame_bytes
                .saturating_add(limits.max_header_bytes);
            let mut reader =
                FrameReader::new(TeeReader::new(stdout, kept), Framing::ContentLength, limits);
            loop {
                let read = reader.read_frame();
                let until = reader.consumed();
                let next = match read {
                    Ok(Some(frame)) => Incoming::Frame(Ok(frame), reader.get_mut().take(until)),
                    Ok(None) => Incoming::Closed(None, reader.get_mut().take_all()),
                    Err(ReadError::Framing(fault)) => {
                        Incoming::Frame(Err(fault), reader.get_mut().take(until))
                    }
                    Err(ReadError::Io(error)) => {
                        Incoming::Closed(Some(error), reader.get_mut().take_all())
                    }
                };
                let last = matches!(next, Incoming::Closed(..) | Incoming::Frame(Err(_), _));
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
        match &event {
            Incoming::Frame(_, bytes) => record(&self.recording, bytes),
            Incoming::Closed(_, bytes) => {
                record(&self.recording, bytes);
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
    }
}
