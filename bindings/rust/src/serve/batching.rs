//! Answers gathered into fewer writes while a client pipelines requests,
//! with a bound on how long any answer waits ([`Server::serve_batched`],
//! the rules on [`Batching`]).

use std::io::{self, Read, Write};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use super::handler::Handler;
use super::server::{ServeOutcome, Server};

/// How [`Server::serve_batched`] gathers answers.
///
/// A write to a pipe costs a system call and wakes the reader; against a
/// client that sends many requests without waiting, one write an answer is
/// most of a small request's cost. The rules:
///
/// 1. **Nothing is held when nothing is read ahead.** An answer to the last
///    request the input holds (the usual exchange, one request at a time)
///    is written at once, as [`Server::serve`] writes it.
/// 2. **Answers to requests read ahead are gathered.** While bytes read
///    past the frame being handled wait in the reader (the client sent more
///    before it had this answer), the answer joins a batch instead.
/// 3. **The batch is written before the loop waits for input**: before each
///    read of the underlying input, so the loop never blocks on a client
///    that waits for those answers.
/// 4. **The batch is written once it holds `max_bytes`**, and an answer of
///    `max_bytes` or more is written on its own, after the batch: memory
///    stays bounded and a large answer is not copied.
/// 5. **No answer waits longer than `max_delay`** (plus the scheduler's
///    delay): a watchdog thread writes a batch whose first answer has
///    waited that long, so a quick answer is not held behind a slow request
///    sent after it while its handler runs.
///
/// Bytes leave in the order they were sent, and every batch is written
/// whole and flushed. A write that fails on the watchdog's thread is
/// returned by the loop's next send, flush or read, and ends the loop as a
/// failed write there would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batching {
    /// The longest an answer waits in a batch before the watchdog writes it.
    pub max_delay: Duration,
    /// A batch is written once it holds this many bytes.
    pub max_bytes: usize,
}

impl Default for Batching {
    /// At most 1 ms and 64 KiB: well under what a person notices, and far
    /// longer than a small request takes, so the watchdog rarely has to
    /// write a batch of quick answers itself.
    fn default() -> Self {
        Batching {
            max_delay: Duration::from_millis(1),
            max_bytes: 64 * 1024,
        }
    }
}

/// The output and the batch waiting for it, shared by the loop and the
/// watchdog.
pub(super) struct Batcher<W> {
    state: Mutex<State<W>>,
    /// Wakes the watchdog when a batch starts (only while it idles) and
    /// when the loop ends.
    wake: Condvar,
    batching: Batching,
}

struct State<W> {
    output: W,
    pending: Vec<u8>,
    /// When the batch's first answer joined it; `None` while it is empty.
    since: Option<Instant>,
    /// Whether the watchdog waits for a batch to start (it must be woken).
    watchdog_idle: bool,
    /// A failed write of the watchdog's, for the loop to return.
    failed: Option<io::Error>,
    closed: bool,
}

impl<W: Write> State<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.output.write_all(bytes)?;
        self.output.flush()
    }

    fn write_pending(&mut self) -> io::Result<()> {
        self.since = None;
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let written = self.write(&pending);
        // The buffer's capacity is kept for the next batch.
        self.pending = pending;
        self.pending.clear();
        written
    }

    fn take_failure(&mut self) -> io::Result<()> {
        self.failed.take().map_or(Ok(()), Err)
    }
}

impl<W: Write> Batcher<W> {
    pub(super) fn new(output: W, batching: Batching) -> Self {
        Batcher {
            state: Mutex::new(State {
                output,
                pending: Vec::new(),
                since: None,
                watchdog_idle: false,
                failed: None,
                closed: false,
            }),
            wake: Condvar::new(),
            batching,
        }
    }

    /// The state; a panic while it was held (a panicking writer) leaves it
    /// usable: at worst a batch is written twice or not at all, and the
    /// panic itself ends the serve loop.
    fn lock(&self) -> MutexGuard<'_, State<W>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sends one whole frame; `read_ahead` says whether the input holds
    /// bytes past the frame being answered (rules 1, 2 and 4).
    pub(super) fn send(&self, bytes: &[u8], read_ahead: bool) -> io::Result<()> {
        let mut state = self.lock();
        state.take_failure()?;
        if !read_ahead && state.pending.is_empty() {
            return state.write(bytes);
        }
        if bytes.len() >= self.batching.max_bytes {
            state.write_pending()?;
            return state.write(bytes);
        }
        state.pending.extend_from_slice(bytes);
        if state.since.is_none() {
            state.since = Some(Instant::now());
            if state.watchdog_idle {
                self.wake.notify_one();
            }
        }
        if state.pending.len() >= self.batching.max_bytes {
            state.write_pending()?;
        }
        Ok(())
    }

    /// Writes the batch now (rule 3).
    pub(super) fn flush(&self) -> io::Result<()> {
        let mut state = self.lock();
        state.take_failure()?;
        state.write_pending()
    }

    /// Writes what is left and stops the watchdog.
    pub(super) fn close(&self) -> io::Result<()> {
        let mut state = self.lock();
        state.closed = true;
        self.wake.notify_one();
        state.take_failure()?;
        state.write_pending()
    }

    /// Stops the watchdog (what is pending stays unwritten).
    fn stop(&self) {
        self.lock().closed = true;
        self.wake.notify_one();
    }

    /// The watchdog's loop (rule 5), until [`Batcher::close`] or
    /// [`Batcher::stop`].
    pub(super) fn watch(&self) {
        let mut state = self.lock();
        while !state.closed {
            let Some(since) = state.since else {
                state.watchdog_idle = true;
                state = self
                    .wake
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                state.watchdog_idle = false;
                continue;
            };
            // A delay beyond `Instant`'s range never comes due.
            let Some(due) = since.checked_add(self.batching.max_delay) else {
                state = self
                    .wake
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            let now = Instant::now();
            if now < due {
                // The loop may write this batch first and start another:
                // the next round reads `since` again.
                state = self
                    .wake
                    .wait_timeout(state, due - now)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            } else if let Err(error) = state.write_pending() {
                state.failed = Some(error);
            }
        }
    }
}

/// Stops the watchdog however the loop ends, a panicking handler included:
/// the scope that joins the watchdog would wait for it forever otherwise.
pub(super) struct StopOnDrop<'b, W: Write>(pub(super) &'b Batcher<W>);

impl<W: Write> Drop for StopOnDrop<'_, W> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// The input, read only after the batch is written (rule 3).
struct FlushingInput<'b, R, W> {
    input: R,
    batcher: &'b Batcher<W>,
}

impl<R: Read, W: Write> Read for FlushingInput<'_, R, W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.batcher.flush()?;
        self.input.read(buf)
    }
}

impl Server {
    /// Serves `input` like [`Server::serve`], gathering the answers to
    /// pipelined requests into fewer writes by the rules of [`Batching`]:
    /// the same bytes in the same order, each answer sent within
    /// `batching.max_delay`. For pipes and sockets; `output` is written
    /// from a watchdog thread too, hence `Send` (pass `std::io::stdout()`,
    /// not its lock).
    pub fn serve_batched<H, R, W>(
        &mut self,
        handler: &mut H,
        input: R,
        output: W,
        batching: Batching,
    ) -> io::Result<ServeOutcome>
    where
        H: Handler + ?Sized,
        R: Read,
        W: Write + Send,
    {
        let batcher = Batcher::new(output, batching);
        thread::scope(|scope| {
            let _stop = StopOnDrop(&batcher);
            scope.spawn(|| batcher.watch());
            let input = FlushingInput {
                input,
                batcher: &batcher,
            };
            let served = self.serve_frames(handler, input, |bytes, read_ahead| {
                batcher.send(bytes, read_ahead)
            });
            let closed = batcher.close();
            let outcome = served?;
            closed.map(|()| outcome)
        })
    }
}
