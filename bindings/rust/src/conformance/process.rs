//! One server process under test: its stdin fed by a writer thread, its
//! stdout read raw by a reader thread and framed here, its stderr kept
//! (bounded). Every wait has a deadline, so a server that hangs, stops
//! reading or floods its output never blocks the run.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::framing::{decoder_for, Frame, FrameDecoder, FramingError};
use crate::host::{end_process, Ending};
use crate::protocol::Transport;
use crate::serve::RuntimeFault;

/// The bytes of the server's stderr kept for the report (the last ones).
pub const STDERR_KEPT: usize = 16 * 1024;
/// Fault lines of the serve loop ([`RuntimeFault`]) a process keeps.
pub const FAULTS_KEPT: usize = 256;
/// The longest stderr line read for a fault line (the rest is skipped).
const LINE_KEPT: usize = 64 * 1024;
/// Chunks of the server's stdout read ahead (64 KiB each).
const CHUNKS_AHEAD: usize = 16;
const CHUNK: usize = 64 * 1024;

/// What the server's stdout yielded.
#[derive(Debug)]
pub(crate) enum Output {
    /// A whole frame.
    Frame(Frame),
    /// Bytes the framing refused.
    Fault(FramingError),
    /// The server closed its stdout (or exited).
    Closed,
}

enum Chunk {
    Bytes(Vec<u8>),
    End,
}

/// A spawned server.
pub(crate) struct ServerProcess {
    child: Child,
    stdin: Option<SyncSender<Vec<u8>>>,
    write_failed: Arc<Mutex<Option<String>>>,
    chunks: Receiver<Chunk>,
    decoder: Box<dyn FrameDecoder + Send>,
    ready: VecDeque<Output>,
    closed: bool,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    faults: Arc<Mutex<Vec<RuntimeFault>>>,
    /// Faults already handed out by [`ServerProcess::take_faults`].
    faults_taken: usize,
    stderr_reader: Option<thread::JoinHandle<()>>,
    exit: Option<ExitStatus>,
}

impl ServerProcess {
    /// Starts `command` with piped stdio.
    pub(crate) fn spawn(command: &mut Command, transport: &Transport) -> std::io::Result<Self> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (Some(mut stdin), Some(mut stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("the child's pipes are missing"));
        };
        // Writes go through a thread: a server that stops reading blocks
        // that thread, never the run.
        let (writes, pending) = mpsc::sync_channel::<Vec<u8>>(64);
        let write_failed = Arc::new(Mutex::new(None));
        let failed = Arc::clone(&write_failed);
        thread::spawn(move || {
            for bytes in pending {
                if let Err(error) = stdin.write_all(&bytes).and_then(|()| stdin.flush()) {
                    if let Ok(mut slot) = failed.lock() {
                        *slot = Some(error.to_string());
                    }
                    return;
                }
            }
        });
        let (sender, chunks) = mpsc::sync_channel(CHUNKS_AHEAD);
        thread::spawn(move || {
            let mut buffer = vec![0u8; CHUNK];
            loop {
                match stdout.read(&mut buffer) {
                    Ok(0) | Err(_) => {
                        let _ = sender.send(Chunk::End);
                        return;
                    }
                    Ok(n) => {
                        if sender.send(Chunk::Bytes(buffer[..n].to_vec())).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let kept = Arc::new(Mutex::new(VecDeque::new()));
        let faults = Arc::new(Mutex::new(Vec::new()));
        let (sink, found) = (Arc::clone(&kept), Arc::clone(&faults));
        let stderr_reader = thread::spawn(move || read_stderr(stderr, &sink, &found));
        Ok(ServerProcess {
            child,
            stdin: Some(writes),
            write_failed,
            chunks,
            decoder: decoder_for(transport.framing, transport.frame_limits()),
            ready: VecDeque::new(),
            closed: false,
            stderr: kept,
            faults,
            faults_taken: 0,
            stderr_reader: Some(stderr_reader),
            exit: None,
        })
    }

    /// Queues `bytes` for the server's stdin. Fails when the input is
    /// already closed or an earlier write failed (the server stopped
    /// reading and closed its end).
    pub(crate) fn send(&mut self, bytes: Vec<u8>) -> Result<(), String> {
        if let Some(error) = self.write_failed.lock().ok().and_then(|slot| slot.clone()) {
            return Err(format!("writing to the server failed: {error}"));
        }
        match &self.stdin {
            None => Err("the server's input is already closed".to_owned()),
            Some(stdin) => stdin
                .try_send(bytes)
                .map_err(|_| "the server does not read its input".to_owned()),
        }
    }

    /// Closes the server's stdin (end of input) once what was queued is written.
    pub(crate) fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next output of the server, or `None` when nothing came before `deadline`.
    pub(crate) fn next_output(&mut self, deadline: Instant) -> Option<Output> {
        loop {
            if let Some(output) = self.ready.pop_front() {
                return Some(output);
            }
            if self.closed {
                return Some(Output::Closed);
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(wait) {
                Ok(Chunk::Bytes(bytes)) => self.decoder.push(&bytes),
                Ok(Chunk::End) | Err(RecvTimeoutError::Disconnected) => {
                    self.decoder.finish();
                    self.closed = true;
                }
                Err(RecvTimeoutError::Timeout) => return None,
            }
            while let Some(item) = self.decoder.next_frame() {
                self.ready.push_back(match item {
                    Ok(frame) => Output::Frame(frame),
                    Err(fault) => Output::Fault(fault),
                });
            }
        }
    }

    /// Waits up to `grace` for the server to exit.
    pub(crate) fn wait_exit(&mut self, grace: Duration) -> Option<ExitStatus> {
        if self.exit.is_some() {
            return self.exit;
        }
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.exit = Some(status);
                    return self.exit;
                }
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
                _ => return None,
            }
        }
    }

    /// Ends the process (its input closed) by the exit sequence
    /// ([`end_process`]); `None` when it cannot be waited for.
    pub(crate) fn end_process(
        &mut self,
        grace: Duration,
        terminate: Option<Duration>,
    ) -> Option<Ending> {
        if let Some(status) = self.exit {
            return Some(Ending::Exited(status));
        }
        let ending = end_process(&mut self.child, grace, terminate).ok()?;
        self.exit = Some(ending.status());
        Some(ending)
    }

    /// Whether the process has exited (without waiting).
    pub(crate) fn exited(&mut self) -> Option<ExitStatus> {
        self.wait_exit(Duration::ZERO)
    }

    /// The last [`STDERR_KEPT`] bytes of the server's stderr, as text.
    pub(crate) fn stderr_tail(&self) -> String {
        self.stderr.lock().map_or_else(
            |_| String::new(),
            |tail| {
                let (a, b) = tail.as_slices();
                let mut bytes = a.to_vec();
                bytes.extend_from_slice(b);
                String::from_utf8_lossy(&bytes).into_owned()
            },
        )
    }

    /// The fault lines of the serve loop the server wrote to stderr since
    /// the last call, waiting up to `wait` for the first one.
    pub(crate) fn take_faults(&mut self, wait: Duration) -> Vec<RuntimeFault> {
        let deadline = Instant::now() + wait;
        loop {
            let new: Vec<RuntimeFault> = self
                .faults
                .lock()
                .map(|faults| faults.iter().skip(self.faults_taken).cloned().collect())
                .unwrap_or_default();
            if !new.is_empty() || Instant::now() >= deadline {
                self.faults_taken += new.len();
                return new;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// Once the process has ended: the fault lines not yet taken, after its
    /// stderr was read to the end (within half a second: a grandchild may
    /// hold it open).
    pub(crate) fn remaining_faults(&mut self) -> Vec<RuntimeFault> {
        let deadline = Instant::now() + Duration::from_millis(500);
        while self
            .stderr_reader
            .as_ref()
            .is_some_and(|reader| !reader.is_finished())
            && Instant::now() < deadline
        {
            thread::sleep(Duration::from_millis(5));
        }
        self.take_faults(Duration::ZERO)
    }

    /// Ends the process: input closed, then killed when it has not exited.
    pub(crate) fn end(&mut self) {
        self.close_input();
        if self.exited().is_none() {
            let _ = self.child.kill();
            self.exit = self.child.wait().ok();
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.end();
    }
}

/// Reads the server's stderr to its end: the last [`STDERR_KEPT`] bytes
/// kept in `kept`, and each line that is a fault line of the serve loop
/// (the first [`FAULTS_KEPT`]) in `faults`.
fn read_stderr(
    mut stderr: impl Read,
    kept: &Mutex<VecDeque<u8>>,
    faults: &Mutex<Vec<RuntimeFault>>,
) {
    let mut chunk = [0u8; 4096];
    let mut line: Vec<u8> = Vec::new();
    let mut skipping = false;
    while let Ok(read) = stderr.read(&mut chunk) {
        if read == 0 {
            break;
        }
        let bytes = &chunk[..read];
        if let Ok(mut tail) = kept.lock() {
            tail.extend(bytes);
            let excess = tail.len().saturating_sub(STDERR_KEPT);
            tail.drain(..excess);
        }
        for &byte in bytes {
            if byte == b'\n' {
                if !skipping {
                    note_fault(&line, faults);
                }
                line.clear();
                skipping = false;
            } else if line.len() < LINE_KEPT {
                line.push(byte);
            } else {
                skipping = true;
            }
        }
    }
    if !skipping {
        note_fault(&line, faults);
    }
}

fn note_fault(line: &[u8], faults: &Mutex<Vec<RuntimeFault>>) {
    let Some(fault) = RuntimeFault::parse(&String::from_utf8_lossy(line)) else {
        return;
    };
    if let Ok(mut faults) = faults.lock() {
        if faults.len() < FAULTS_KEPT {
            faults.push(fault);
        }
    }
}

/// How a process ended, for a sentence.
pub(crate) fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    "an unknown exit status".to_owned()
}
