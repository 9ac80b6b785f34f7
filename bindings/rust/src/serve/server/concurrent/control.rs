//! What the threads of the concurrent loop share with the reader thread:
//! who reads, what was read, which handlers run since when, and the
//! waits of the calling thread and the reader (rules 1 and 5 of the
//! module).
//!
//! The reader thread is `'static` (it may stay blocked in a read after the
//! loop has returned), so it holds nothing of the loop's: it hands its
//! frames over here and is told here when to read.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::Event;
use crate::framing::{Frame, FrameReader, FramingError, ReadError};

/// A handler running this long makes the reader thread read (rule 5): a
/// quicker one is done before the calling thread would need it.
pub(super) const SLOW: Duration = Duration::from_millis(1);

/// The reader thread stops watching the handlers (and sleeps until one
/// starts) once none has run for this long.
const PARK_AFTER: Duration = Duration::from_secs(1);

/// What was read: a frame (or the fault that refused it), or the input's
/// end (`None`: it closed; `Some`: reading failed).
pub(super) enum Input {
    Frame(Result<Frame, FramingError>),
    Ended(Option<std::io::Error>),
}

impl Input {
    /// The outcome of one read, and whether nothing can be read after it.
    pub(super) fn of(
        read: Result<Option<Frame>, ReadError>,
        framing: crate::framing::Framing,
    ) -> (Self, bool) {
        match read {
            Ok(Some(frame)) => (Input::Frame(Ok(frame)), false),
            Ok(None) => (Input::Ended(None), true),
            Err(ReadError::Io(error)) => (Input::Ended(Some(error)), true),
            Err(ReadError::Framing(fault)) => {
                let lost = super::super::ends_stream(framing, &fault);
                (Input::Frame(Err(fault)), lost)
            }
        }
    }
}

/// The state behind [`Control`]'s lock.
#[derive(Default)]
pub(super) struct Shared {
    /// What the reader thread read, in order, not yet taken by the loop.
    pub(super) read: VecDeque<Input>,
    /// The handlers running, by job number, with their start.
    running: Vec<(u64, Instant)>,
    /// Requests of the server's waiting for the client's answer.
    asking: usize,
    /// The reader thread is reading (or waiting for a credit to).
    reader_reading: bool,
    /// The calling thread is reading.
    caller_reading: bool,
    /// The reader thread sleeps until a handler starts.
    reader_parked: bool,
    /// The calling thread waits; it was woken since its last wait.
    caller_waiting: bool,
    caller_woken: bool,
    /// Buffered answers should be written now (a handler is slow).
    pub(super) flush_wanted: bool,
    /// Nothing more is read: the input ended, or the loop is over.
    pub(super) input_done: bool,
    closed: bool,
}

/// The coordination of the loop's threads and its reader thread.
#[derive(Default)]
pub(super) struct Control {
    shared: Mutex<Shared>,
    reader_turn: Condvar,
    caller_turn: Condvar,
}

impl Control {
    pub(super) fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A handler started.
    pub(super) fn started(&self, job: u64) {
        let mut shared = self.lock();
        shared.running.push((job, Instant::now()));
        if shared.reader_parked {
            self.reader_turn.notify_one();
        }
    }

    /// A handler returned.
    pub(super) fn finished(&self, job: u64) {
        let mut shared = self.lock();
        shared.running.retain(|(number, _)| *number != job);
    }

    /// How many requests of the server's wait for the client: while any
    /// does, the reader thread reads (the answer must get through).
    pub(super) fn asking(&self, count: usize) {
        let mut shared = self.lock();
        shared.asking = count;
        if count > 0 {
            self.reader_turn.notify_one();
        }
    }

    /// Whether the calling thread may read now, and if so it is marked
    /// reading: nothing the reader thread read waits, and it is not
    /// reading.
    pub(super) fn claim_reading(&self) -> bool {
        let mut shared = self.lock();
        if shared.reader_reading || !shared.read.is_empty() || shared.input_done {
            return false;
        }
        shared.caller_reading = true;
        true
    }

    /// The calling thread's frame has joined the loop's queue. The reader
    /// thread is not woken: it has work only once a handler starts
    /// ([`Control::started`] wakes it) or the input is over.
    pub(super) fn release_reading(&self, last: bool) {
        let mut shared = self.lock();
        shared.caller_reading = false;
        shared.input_done |= last;
        if last {
            self.reader_turn.notify_one();
        }
    }

    /// Wakes the calling thread: at once if it waits, else its next wait
    /// returns at once (so no wake-up is lost between its look at the
    /// loop's state and its wait).
    pub(super) fn wake_caller(&self) {
        let mut shared = self.lock();
        shared.caller_woken = true;
        if shared.caller_waiting {
            self.caller_turn.notify_one();
        }
    }

    /// The calling thread waits until woken (since its last wait) or
    /// `timeout` passes; `false` when the time passed.
    pub(super) fn wait_caller(&self, timeout: Duration) -> bool {
        let mut shared = self.lock();
        shared.caller_waiting = true;
        let deadline = Instant::now() + timeout;
        while !shared.caller_woken {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            shared = self
                .caller_turn
                .wait_timeout(shared, deadline - now)
                .map_or_else(|e| e.into_inner().0, |(guard, _)| guard);
        }
        shared.caller_waiting = false;
        std::mem::take(&mut shared.caller_woken)
    }

    /// The loop is over: the reader thread stops at its next turn.
    pub(super) fn close(&self) {
        let mut shared = self.lock();
        shared.closed = true;
        shared.input_done = true;
        self.reader_turn.notify_one();
    }

    /// The reader thread waits for its turn (a handler running for
    /// [`SLOW`] or more, or a request of the server's waiting for its
    /// answer) and marks itself reading; `false` once nothing is read any
    /// more.
    fn reader_turn(&self) -> bool {
        let mut shared = self.lock();
        let mut idle_since = Instant::now();
        loop {
            if shared.closed || shared.input_done {
                return false;
            }
            let now = Instant::now();
            let oldest = shared.running.iter().map(|(_, start)| *start).min();
            // While the calling thread reads, this thread has nothing to
            // read, but it keeps watching (a timed wait, not parked): the
            // handler that frame starts would otherwise have to wake it,
            // a system call on every request.
            let wait = if shared.caller_reading {
                Some(SLOW)
            } else if shared.asking > 0 {
                break;
            } else if let Some(start) = oldest {
                idle_since = now;
                match (start + SLOW).checked_duration_since(now) {
                    None => break,
                    Some(left) if left.is_zero() => break,
                    Some(left) => Some(left),
                }
            } else if now.duration_since(idle_since) < PARK_AFTER {
                Some(SLOW)
            } else {
                None
            };
            shared = match wait {
                Some(left) => self
                    .reader_turn
                    .wait_timeout(shared, left)
                    .map_or_else(|e| e.into_inner().0, |(guard, _)| guard),
                None => {
                    shared.reader_parked = true;
                    let mut guard = self
                        .reader_turn
                        .wait(shared)
                        .unwrap_or_else(|e| e.into_inner());
                    guard.reader_parked = false;
                    idle_since = Instant::now();
                    guard
                }
            };
        }
        shared.reader_reading = true;
        shared.flush_wanted = true;
        true
    }

    /// The reader thread hands over what it read.
    fn hand_over(&self, input: Input, last: bool) {
        let mut shared = self.lock();
        shared.read.push_back(input);
        shared.reader_reading = false;
        shared.input_done |= last;
    }
}

/// The input, read by the calling thread while nothing runs and by the
/// reader thread while a handler is slow: never both at once.
pub(super) type SharedReader<R> = Arc<Mutex<FrameReader<R>>>;

/// The reader thread: reads when [`Control`] gives it the turn, hands each
/// frame over, and wakes the loop's threads (an [`Event::Wake`]).
pub(super) fn read_when_needed<R: Read>(
    reader: &SharedReader<R>,
    framing: crate::framing::Framing,
    control: &Control,
    credits: &super::Credits,
    events: &mpsc::Sender<Event>,
) {
    loop {
        if !control.reader_turn() {
            return;
        }
        // Answers buffered before the slow handler started go out now.
        if events.send(Event::Wake).is_err() || !credits.take() {
            return;
        }
        let read = reader
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .read_frame();
        let (input, last) = Input::of(read, framing);
        control.hand_over(input, last);
        control.wake_caller();
        if events.send(Event::Wake).is_err() || last {
            return;
        }
    }
}
