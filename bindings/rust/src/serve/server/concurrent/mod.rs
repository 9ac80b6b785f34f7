//! The concurrent serve loop: requests run side by side on a bounded pool
//! of threads, answered as they finish, with every check of the
//! sequential loop in the same order.
//!
//! Rules:
//! 1. **Reading.** While no handler runs, the thread that called the loop
//!    reads the input itself and runs what it read on its own thread, as
//!    the sequential loop does: a quick request costs no hand-over between
//!    threads. While a handler runs, a reader thread of the loop's reads
//!    instead (rule 5). Frames are taken in the order they were read. A
//!    response goes to the handler waiting for it; the protocol's
//!    cancellation sets the named request's flag at once; everything else
//!    joins a queue, in order.
//! 2. **Starting.** The queue's head starts when it may: a request that
//!    moves the session (a lifecycle step, the capabilities or version
//!    method, a method of a stateful rule) waits until nothing runs and
//!    holds the queue until it is answered; a notification holds the queue
//!    until its handler returns (LSP's document changes reach the handler
//!    before a later request); any other request starts while fewer than
//!    [`Concurrency::max_in_flight`] run. Checks (lifecycle, params,
//!    admission) happen when a request starts, so they see every earlier
//!    answer. The thread that starts a request runs it and writes its
//!    answer; a spare thread is kept to take the next event.
//! 3. **Memory is bounded**: the reader takes one of [`QUEUED`] credits
//!    before each frame and gets it back when the frame leaves the queue,
//!    so at most that many frames wait; beyond, reading stops.
//! 4. **Asking the client.** A request a handler sends the client gets an
//!    id of the server's own, its checked answer, or [`PeerError`]
//!    (refused, timed out, closed). When the input ends, no answer can
//!    come: waiting handlers get `Closed`, and the loop ends once every
//!    running handler has returned.
//! 5. **A slow handler does not hold the input.** Once a handler has run
//!    [`SLOW`](control::SLOW) (1 ms), or while a handler waits for the
//!    client's answer, the reader thread reads, so a `ping` or a
//!    cancellation gets through; answers written before are flushed then.
//!    The reader is left blocked in its read when the session ends before
//!    the input does.
//! 6. **Writing.** Answers are written as they are made and flushed
//!    whenever the loop would wait: before a read that may block, and
//!    before a thread waits for its next event. Answers to requests the
//!    client pipelined share writes.

mod control;
mod run;

use std::io::{Read, Write};
use std::sync::atomic::AtomicU64;
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};
use std::thread::Scope;

use self::control::{read_when_needed, Control, Input, SharedReader};
use self::run::{execute, Job, Run};
use super::super::context::{Concurrency, ConcurrentHandler, Outgoing, Peer};
use super::{ServeOutcome, Server};
use crate::framing::FrameReader;

/// Frames read ahead of the one being started, at most.
pub const QUEUED: usize = 8;

/// How often a waiting calling thread asks [`ConcurrentHandler::interrupted`].
const INTERRUPTED_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// What wakes a thread of the loop waiting for its next event.
pub(crate) enum Event {
    /// A handler sends something.
    Outgoing(Outgoing),
    /// Something changed: the reader handed over a frame, work may start,
    /// or the loop is over.
    Wake,
}

/// The reader's credits (rule 3).
pub(super) struct Credits {
    state: Mutex<CreditState>,
    changed: Condvar,
}

struct CreditState {
    free: usize,
    closed: bool,
    /// The reader waits for a credit: only then is `give` a wake-up.
    waiting: bool,
}

impl Credits {
    fn new(count: usize) -> Self {
        Credits {
            state: Mutex::new(CreditState {
                free: count,
                closed: false,
                waiting: false,
            }),
            changed: Condvar::new(),
        }
    }

    /// Waits for a credit; `false` once closed.
    fn take(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while state.free == 0 && !state.closed {
            state.waiting = true;
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.waiting = false;
        if state.closed {
            return false;
        }
        state.free -= 1;
        true
    }

    /// A credit if one is free, without waiting.
    fn try_take(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.free == 0 || state.closed {
            return false;
        }
        state.free -= 1;
        true
    }

    fn give(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.free += 1;
        if state.waiting {
            self.changed.notify_one();
        }
    }

    fn close(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.closed = true;
        self.changed.notify_all();
    }
}

/// What the loop's threads share.
struct Threads<'a, H: ConcurrentHandler + ?Sized, W: Write, R: Read> {
    run: Mutex<Run<'a, H, W>>,
    handler: &'a H,
    events: Mutex<mpsc::Receiver<Event>>,
    reader: SharedReader<R>,
    framing: crate::framing::Framing,
    control: Arc<Control>,
    credits: Arc<Credits>,
    peer: Peer,
}

impl<'a, H: ConcurrentHandler + ?Sized, W: Write, R: Read> Threads<'a, H, W, R> {
    fn lock(&self) -> MutexGuard<'_, Run<'a, H, W>> {
        // A panic cannot happen with the lock held (handlers run without
        // it, behind `catch_unwind`); a poisoned lock's state is still whole.
        let mut run = self.run.lock().unwrap_or_else(|e| e.into_inner());
        run.absorb();
        run
    }
}

impl Server {
    /// Serves `input` with requests running side by side (the module's
    /// rules), writing each answer as it is made. Returns once the session
    /// has ended and every running handler has returned. While a handler
    /// runs, the input is read on a thread of its own, which is left
    /// blocked in its read when the session ends before the input does.
    /// The output is written by whichever of the loop's threads has an
    /// answer, so it is `Send`: `std::io::stdout()` (in a `BufWriter`),
    /// not its lock.
    pub fn serve_concurrent<H, R, W>(
        &mut self,
        handler: &H,
        input: R,
        output: W,
        concurrency: Concurrency,
    ) -> std::io::Result<ServeOutcome>
    where
        H: ConcurrentHandler + ?Sized,
        R: Read + Send + 'static,
        W: Write + Send,
    {
        let (events_sender, events) = mpsc::channel();
        let credits = Arc::new(Credits::new(QUEUED));
        let control = Arc::new(Control::default());
        let framing = self.protocol.manifest().transport.framing;
        let reader: SharedReader<R> =
            Arc::new(Mutex::new(FrameReader::new(input, framing, self.limits())));
        {
            let (reader, control, credits) = (
                Arc::clone(&reader),
                Arc::clone(&control),
                Arc::clone(&credits),
            );
            let events = events_sender.clone();
            std::thread::Builder::new()
                .name("wirekit-reader".to_owned())
                .spawn(move || read_when_needed(&reader, framing, &control, &credits, &events))?;
        }
        let peer = Peer {
            sender: events_sender.clone(),
            next_id: Arc::new(AtomicU64::new(1)),
            timeout: concurrency.request_timeout,
        };
        let run = Run::new(
            self,
            handler,
            output,
            Arc::clone(&control),
            Arc::clone(&credits),
            peer.clone(),
            events_sender,
            concurrency.max_in_flight.max(1),
        );
        let threads = Threads {
            run: Mutex::new(run),
            handler,
            events: Mutex::new(events),
            reader,
            framing,
            control: Arc::clone(&control),
            credits: Arc::clone(&credits),
            peer,
        };
        let outcome = std::thread::scope(|scope| {
            threads.lock().pool_threads = 1;
            spawn_pool_thread(scope, &threads);
            let outcome = caller(scope, &threads);
            // Every pool thread is woken to see the loop is over; the
            // scope joins them (none runs a handler any more).
            threads.lock().wake_pool();
            outcome
        });
        control.close();
        credits.close();
        outcome
    }
}

/// Starts a pool thread (counted in `Run::pool_threads` by the caller).
fn spawn_pool_thread<'scope, 'a, H, W, R>(
    scope: &'scope Scope<'scope, '_>,
    threads: &'scope Threads<'a, H, W, R>,
) where
    H: ConcurrentHandler + ?Sized,
    W: Write + Send,
    R: Read + Send,
{
    scope.spawn(move || threads.handler.worker(&mut || pool(scope, threads)));
}

/// Runs `job` on this thread, first keeping a spare pool thread to take
/// the next event (rule 2).
fn run_job<'scope, 'a, H, W, R>(
    scope: &'scope Scope<'scope, '_>,
    threads: &'scope Threads<'a, H, W, R>,
    mut run: MutexGuard<'_, Run<'a, H, W>>,
    mut job: Job,
    on_pool: bool,
) where
    H: ConcurrentHandler + ?Sized,
    W: Write + Send,
    R: Read + Send,
{
    if on_pool {
        run.pool_busy += 1;
    }
    let grow = run.pool_threads == run.pool_busy && run.pool_threads <= run.max_in_flight;
    if grow {
        run.pool_threads += 1;
    }
    if run.startable() {
        run.kick();
    }
    drop(run);
    if grow {
        spawn_pool_thread(scope, threads);
    }
    threads.control.started(job.number);
    let outcome = execute(threads.handler, &mut job, &threads.peer);
    threads.control.finished(job.number);
    let mut run = threads.lock();
    if on_pool {
        run.pool_busy -= 1;
    }
    run.on_done(job.number, outcome);
    if run.running_is_empty() {
        threads.control.wake_caller();
    }
}

/// The calling thread: reads while nothing runs, runs what it starts, and
/// returns the loop's outcome.
fn caller<'scope, 'a, H, W, R>(
    scope: &'scope Scope<'scope, '_>,
    threads: &'scope Threads<'a, H, W, R>,
) -> std::io::Result<ServeOutcome>
where
    H: ConcurrentHandler + ?Sized,
    W: Write + Send,
    R: Read + Send,
{
    loop {
        let mut run = threads.lock();
        if let Some(outcome) = run.outcome() {
            return outcome;
        }
        if let Some(job) = run.next_job() {
            run_job(scope, threads, run, job, false);
            continue;
        }
        if run.may_read() && threads.control.claim_reading() {
            read_inline(threads, run);
            continue;
        }
        run.flush();
        drop(run);
        if !threads.control.wait_caller(INTERRUPTED_POLL)
            && (threads.handler.interrupted() || threads.handler.stopped())
        {
            threads.lock().stop_for_handler();
        }
    }
}

/// The calling thread reads one frame (rule 1), flushing first when the
/// read may block (rule 6).
fn read_inline<'t, 'a, H, W, R>(
    threads: &'t Threads<'a, H, W, R>,
    mut run: MutexGuard<'t, Run<'a, H, W>>,
) where
    H: ConcurrentHandler + ?Sized,
    W: Write + Send,
    R: Read + Send,
{
    // Nothing is queued and the reader thread is not reading, so every
    // credit is free; were none, this thread must not wait holding the
    // loop's lock: it gives the turn back and waits as usual.
    if !threads.credits.try_take() {
        threads.control.release_reading(false);
        run.flush();
        drop(run);
        threads.control.wait_caller(INTERRUPTED_POLL);
        return;
    }
    let mut reader = threads.reader.lock().unwrap_or_else(|e| e.into_inner());
    let (input, last) = match reader.read_buffered_frame() {
        Some(frame) => (Input::Frame(frame), false),
        None => {
            run.flush();
            drop(run);
            let read = reader.read_frame();
            run = threads.lock();
            Input::of(read, threads.framing)
        }
    };
    drop(reader);
    run.on_input(input);
    threads.control.release_reading(last);
}

/// A pool thread: takes events and runs what they start.
fn pool<'scope, 'a, H, W, R>(
    scope: &'scope Scope<'scope, '_>,
    threads: &'scope Threads<'a, H, W, R>,
) where
    H: ConcurrentHandler + ?Sized,
    W: Write + Send,
    R: Read + Send,
{
    loop {
        let mut run = threads.lock();
        if run.is_over() {
            return;
        }
        if let Some(job) = run.next_job() {
            run_job(scope, threads, run, job, true);
            continue;
        }
        if run.running_is_empty() {
            threads.control.wake_caller();
        }
        run.flush();
        drop(run);
        let event = {
            let events = threads.events.lock().unwrap_or_else(|e| e.into_inner());
            events.recv()
        };
        match event {
            Ok(Event::Outgoing(outgoing)) => threads.lock().on_outgoing(outgoing),
            Ok(Event::Wake) => {}
            // The loop holds a sender until its threads are joined.
            Err(_) => return,
        }
    }
}
