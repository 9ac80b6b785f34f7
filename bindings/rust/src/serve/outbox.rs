//! Notifications a server sends of its own accord, from any thread, while
//! the serve loop keeps reading: the driver protocol's observations and
//! `driver.completed` come from an invocation's worker while the loop
//! stays free to answer `driver.cancel`.
//!
//! [`outbox`] makes a pair: the [`Outbox`] (cloned into workers) and the
//! [`Inbox`] that [`Server::serve_with_outbox`] reads. A reader thread
//! frames the input into the same channel, so the loop handles incoming
//! frames and outgoing notifications one at a time, in arrival order: a
//! notification is checked against its schema and the session's rules
//! exactly as a queued one ([`Handler::take_notifications`]) and is never
//! written before the answer that made it valid (an invocation's
//! observations come after the `driver.invoke` answer because the worker
//! is started while that request is handled, and the answer is written
//! before the loop takes the next event).

use std::fmt;
use std::io::{Read, Write};
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::thread;

use super::batching::{Batcher, Batching, StopOnDrop};
use super::handler::Handler;
use super::server::{handler_stopped, Flow, ServeOutcome, Server};
use crate::envelope::Notification;
use crate::framing::{Frame, FrameReader, ReadError};

/// Events waiting for the loop; a full channel makes the reader and the
/// workers wait (backpressure) instead of growing memory.
const EVENTS_KEPT: usize = 64;

enum Event {
    Frame(Result<Option<Frame>, ReadError>),
    Notification(Notification),
}

/// Sends server notifications into a running serve loop. Cheap to clone.
#[derive(Clone)]
pub struct Outbox {
    sender: SyncSender<Event>,
}

/// The receiving side, handed to [`Server::serve_with_outbox`].
pub struct Inbox {
    sender: SyncSender<Event>,
    receiver: Receiver<Event>,
}

/// The serve loop has ended: the notification was not sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxClosed {
    /// The notification's method.
    pub method: String,
}

impl fmt::Display for OutboxClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` not sent: the serve loop has ended", self.method)
    }
}

impl std::error::Error for OutboxClosed {}

/// A connected outbox and inbox.
pub fn outbox() -> (Outbox, Inbox) {
    let (sender, receiver) = mpsc::sync_channel(EVENTS_KEPT);
    (
        Outbox {
            sender: sender.clone(),
        },
        Inbox { sender, receiver },
    )
}

impl Outbox {
    /// Queues `notification` for the loop, which checks it (schema, state,
    /// the protocol's rules) and sends it or logs why it dropped it. Waits
    /// while the loop is behind; fails once the loop has ended.
    pub fn send(&self, notification: Notification) -> Result<(), OutboxClosed> {
        let method = notification.method.clone();
        self.sender
            .send(Event::Notification(notification))
            .map_err(|_| OutboxClosed { method })
    }
}

impl Server {
    /// Serves `input` like [`Server::serve`], and sends what arrives in
    /// `inbox` in between. The input is read on a thread of its own (left
    /// behind, blocked in its read, if the session ends before the input
    /// does), so the loop never waits for input while a notification is
    /// pending. Every answer and notification is written (and flushed) on
    /// its own; [`Server::serve_with_outbox_batched`] gathers them.
    pub fn serve_with_outbox<H, R, W>(
        &mut self,
        handler: &mut H,
        inbox: Inbox,
        input: R,
        mut output: W,
    ) -> std::io::Result<ServeOutcome>
    where
        H: Handler + ?Sized,
        R: Read + Send + 'static,
        W: Write,
    {
        let send = |bytes: &[u8], _waiting: bool| -> std::io::Result<()> {
            output.write_all(bytes)?;
            output.flush()
        };
        self.serve_events(handler, inbox, input, send, || Ok(()))
    }

    /// [`Server::serve_with_outbox`] with the answers gathered into fewer
    /// writes by the rules of [`Batching`], as [`Server::serve_batched`]
    /// gathers them: here "read ahead" means that another event (a frame
    /// the reader thread has framed, or a notification) already waits in
    /// the inbox, and the batch is written before the loop waits for the
    /// next event. Notifications join the batch in their place, so the
    /// bytes leave in the order the loop sent them.
    pub fn serve_with_outbox_batched<H, R, W>(
        &mut self,
        handler: &mut H,
        inbox: Inbox,
        input: R,
        output: W,
        batching: Batching,
    ) -> std::io::Result<ServeOutcome>
    where
        H: Handler + ?Sized,
        R: Read + Send + 'static,
        W: Write + Send,
    {
        let batcher = Batcher::new(output, batching);
        thread::scope(|scope| {
            let _stop = StopOnDrop(&batcher);
            scope.spawn(|| batcher.watch());
            let served = self.serve_events(
                handler,
                inbox,
                input,
                |bytes, waiting| batcher.send(bytes, waiting),
                || batcher.flush(),
            );
            let closed = batcher.close();
            let outcome = served?;
            closed.map(|()| outcome)
        })
    }

    /// The loop of both: `send` gets each whole frame and whether another
    /// event already waits; `before_wait` runs before the loop blocks on
    /// an empty inbox.
    fn serve_events<H, R>(
        &mut self,
        handler: &mut H,
        inbox: Inbox,
        input: R,
        mut send: impl FnMut(&[u8], bool) -> std::io::Result<()>,
        mut before_wait: impl FnMut() -> std::io::Result<()>,
    ) -> std::io::Result<ServeOutcome>
    where
        H: Handler + ?Sized,
        R: Read + Send + 'static,
    {
        let framing = self.session().protocol().manifest().transport.framing;
        let limits = self.limits();
        let Inbox { sender, receiver } = inbox;
        thread::spawn(move || {
            let mut reader = FrameReader::new(input, framing, limits);
            loop {
                let next = reader.read_frame();
                let last = match &next {
                    Ok(Some(_)) => false,
                    Err(ReadError::Framing(fault)) => fault.ends_stream(),
                    Ok(None) | Err(ReadError::Io(_)) => true,
                };
                if sender.send(Event::Frame(next)).is_err() || last {
                    return;
                }
            }
        });
        // An event taken from the inbox early, to tell whether one waits.
        let mut waiting: Option<Event> = None;
        loop {
            let event = match waiting.take() {
                Some(event) => event,
                None => match receiver.try_recv() {
                    Ok(event) => event,
                    Err(TryRecvError::Disconnected) => return Ok(ServeOutcome::EndOfInput),
                    Err(TryRecvError::Empty) => {
                        before_wait()?;
                        let Ok(event) = receiver.recv() else {
                            return Ok(ServeOutcome::EndOfInput);
                        };
                        event
                    }
                },
            };
            let mut sink = |bytes: &[u8]| -> std::io::Result<()> {
                if waiting.is_none() {
                    waiting = receiver.try_recv().ok();
                }
                send(bytes, waiting.is_some())
            };
            let frame = match event {
                Event::Notification(notification) => {
                    self.send_notification(notification, &mut sink)?;
                    if handler.stopped() {
                        return Err(handler_stopped());
                    }
                    if self.session().is_ended() {
                        return Ok(ServeOutcome::Ended);
                    }
                    continue;
                }
                Event::Frame(Ok(Some(frame))) => Ok(frame),
                Event::Frame(Ok(None)) => return Ok(ServeOutcome::EndOfInput),
                Event::Frame(Err(ReadError::Io(error))) => return Err(error),
                Event::Frame(Err(ReadError::Framing(fault))) => Err(fault),
            };
            let lost = frame
                .as_ref()
                .err()
                .filter(|fault| fault.ends_stream())
                .map(ToString::to_string);
            let flow = self.on_frame(handler, frame, &mut sink)?;
            if handler.stopped() {
                return Err(handler_stopped());
            }
            if let Some(reason) = lost {
                return Ok(ServeOutcome::FramingLost(reason));
            }
            if flow == Flow::Stop {
                return Ok(ServeOutcome::Ended);
            }
        }
    }
}
