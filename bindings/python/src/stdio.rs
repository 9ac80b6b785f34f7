//! The stdio plumbing of `serve_stdio`: a writer that stops after a fatal
//! handler exception, a reader that lets Ctrl-C through, and descriptor 1
//! kept for the protocol while Python's own output goes to stderr.

use std::io::{self, Read, Write};

use pyo3::prelude::*;

use crate::handler::{stash, Fatal};

/// A `BaseException` that is not an `Exception` (KeyboardInterrupt,
/// SystemExit) raised by a handler: the loop stops and it is raised again.
/// A writer that refuses to write once a handler raised a fatal exception
/// (with `refuses`): that ends a loop which writes each answer as it is
/// made, the fatal request's own answer unsent. A batching loop cannot
/// refuse a batch in part (the answers before the fatal one share it), so
/// there `refuses` is off and the loop ends through `Handler::stopped`,
/// after the fatal request's answer ("the server is stopping").
pub(crate) struct Guarded<W: Write> {
    pub(crate) inner: W,
    pub(crate) fatal: Fatal,
    pub(crate) refuses: bool,
}

impl<W: Write> Guarded<W> {
    fn stopping(&self) -> bool {
        self.fatal.lock().map(|slot| slot.is_some()).unwrap_or(true)
    }
}

impl<W: Write> Write for Guarded<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.refuses && self.stopping() {
            return Err(io::Error::other("a handler stopped the server"));
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A reader that lets Python's signal handlers run when a read is
/// interrupted (Ctrl-C while waiting for input): a `KeyboardInterrupt` they
/// raise stops the loop and is raised again.
pub(crate) struct Interruptible<R: Read> {
    pub(crate) inner: R,
    pub(crate) fatal: Fatal,
    /// The thread that serves: signal handlers are run before a read on
    /// it only. The concurrent loop reads on its reader thread too while a
    /// handler is slow, and Python runs signal handlers on the main thread
    /// only, so attaching there before each read would cost a thread state
    /// and a turn on the GIL for nothing; the calling thread runs them
    /// while it waits (`ConcurrentHandler::interrupted`).
    pub(crate) serving: std::thread::ThreadId,
}

impl<R: Read> Interruptible<R> {
    /// Runs Python's signal handlers; an exception they raise stops the loop.
    fn check_signals(&self) -> io::Result<()> {
        if std::thread::current().id() != self.serving {
            return Ok(());
        }
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => Ok(()),
            Err(raised) => {
                stash(&self.fatal, raised);
                Err(io::Error::other("interrupted by a signal"))
            }
        }
    }
}

impl<R: Read> Read for Interruptible<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Before blocking too: a signal that came while a frame was being
        // handled would not interrupt the next read.
        self.check_signals()?;
        loop {
            match self.inner.read(buf) {
                Err(error) if error.kind() == io::ErrorKind::Interrupted => self.check_signals()?,
                other => return other,
            }
        }
    }
}

pub(crate) struct PrivateStdout {
    /// The protocol's writer: a copy of descriptor 1 as it was.
    pub(crate) file: std::fs::File,
    /// The writer's descriptor number, for `widen_pipe`.
    pub(crate) saved_fd: i64,
    /// Another copy of descriptor 1 as it was, to point descriptor 1 back
    /// at once serving is over (closed after the restore).
    pub(crate) restore: std::fs::File,
}

/// A private copy of descriptor 1 for the protocol, then descriptor 1
/// pointed at descriptor 2.
#[cfg(unix)]
pub(crate) fn private_stdout(py: Python<'_>) -> PyResult<Option<PrivateStdout>> {
    use std::os::fd::{AsFd, AsRawFd};
    let copy = io::stdout().as_fd().try_clone_to_owned()?;
    let restore = io::stdout().as_fd().try_clone_to_owned()?;
    let saved_fd = i64::from(copy.as_raw_fd());
    let os = py.import("os")?;
    os.call_method1("dup2", (2, 1))?;
    Ok(Some(PrivateStdout {
        file: std::fs::File::from(copy),
        saved_fd,
        restore: std::fs::File::from(restore),
    }))
}

#[cfg(not(unix))]
pub(crate) fn private_stdout(_py: Python<'_>) -> PyResult<Option<PrivateStdout>> {
    Ok(None)
}

/// Lets the pipe the protocol writes to hold a whole large answer (Linux
/// `F_SETPIPE_SZ`, up to 1 MiB): with the default 64 KiB a 700 KB answer
/// takes a dozen writes, each waiting for the reader to drain the pipe (a
/// context switch apiece). Best effort: not a pipe, no permission for that
/// size, another platform, and the pipe stays as it is.
pub(crate) fn widen_pipe(py: Python<'_>, fd: i64) {
    if !cfg!(target_os = "linux") {
        return;
    }
    // F_SETPIPE_SZ (fcntl.F_SETPIPE_SZ exists from Python 3.10 only).
    const F_SETPIPE_SZ: i64 = 1031;
    let Ok(fcntl) = py.import("fcntl") else {
        return;
    };
    for size in [1i64 << 20, 256 << 10] {
        match fcntl.call_method1("fcntl", (fd, F_SETPIPE_SZ, size)) {
            Ok(_) => return,
            Err(error) if error.is_instance_of::<pyo3::exceptions::PyOSError>(py) => {}
            Err(_) => return,
        }
    }
}

/// Points descriptor 1 back at the protocol stream once serving is over.
#[cfg(unix)]
pub(crate) fn restore_stdout(py: Python<'_>, restore: &std::fs::File) -> PyResult<()> {
    use std::os::fd::AsRawFd;
    let os = py.import("os")?;
    os.call_method1("dup2", (restore.as_raw_fd(), 1))?;
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn restore_stdout(_py: Python<'_>, _restore: &std::fs::File) -> PyResult<()> {
    Ok(())
}
