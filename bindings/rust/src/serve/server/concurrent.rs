//! The concurrent serve loop: requests run side by side on a bounded pool
//! of threads, answered as they finish, with every check of the
//! sequential loop in the same order.
//!
//! Rules, each kept by the dispatcher (the calling thread, the only one
//! that touches the session or writes):
//! 1. Frames are decoded as they arrive. A response goes to the handler
//!    waiting for it; the protocol's cancellation sets the named request's
//!    flag at once; everything else joins a queue, in order.
//! 2. The queue's head starts when it may: a request that moves the session
//!    (a lifecycle step, the capabilities or version method, a method of a
//!    stateful rule) waits until nothing runs and holds the queue until it
//!    is answered; a notification holds the queue until its handler
//!    returns (LSP's document changes reach the handler before a later
//!    request); any other request starts while fewer than
//!    [`Concurrency::max_in_flight`] run. Checks (lifecycle, params,
//!    admission) happen when a request starts, so they see every earlier
//!    answer.
//! 3. Memory is bounded: the reader takes one of [`QUEUED`] credits before
//!    each frame and gets it back when the frame leaves the queue, so at
//!    most that many frames wait; beyond, reading stops.
//! 4. A request a handler sends the client gets an id of the server's own,
//!    its checked answer, or [`PeerError`] (refused, timed out, closed).
//!    When the input ends, no answer can come: waiting handlers get
//!    `Closed`, and the loop ends once every running handler has returned.

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};

use serde_json::Value;

use super::super::context::{
    Concurrency, ConcurrentHandler, Outgoing, Peer, PeerError, RequestContext,
};
use super::super::fault::RuntimeFault;
use super::super::handler::Handler;
use super::{ends_stream, handler_stopped, Admission, Admitted, Flow, ServeOutcome, Server};
use crate::envelope::{
    self, EnvelopeError, ErrorObject, Id, Message, Notification, Request, Response,
};
use crate::framing::{Frame, FrameReader, FramingError, ReadError};
use crate::protocol::{CancelledAnswer, MethodKind};
use crate::validate::Part;

/// Frames read ahead of the one being started, at most.
pub const QUEUED: usize = 8;

/// How often a waiting dispatcher asks [`ConcurrentHandler::interrupted`].
const INTERRUPTED_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// What reaches the dispatcher.
pub(crate) enum Event {
    /// A frame the reader read (or the fault that refused it).
    Frame(Result<Frame, FramingError>),
    /// The input closed (`None`) or failed.
    InputEnded(Option<std::io::Error>),
    /// A handler returned (`Err`: it panicked, with the panic's text).
    Done {
        job: u64,
        outcome: Result<Result<Value, ErrorObject>, String>,
    },
    /// A handler sends something.
    Outgoing(Outgoing),
}

/// A frame waiting its turn.
enum Work {
    Fault(FramingError),
    Refused { body: String, error: EnvelopeError },
    Request(Request),
    Notification(Notification),
}

/// What a worker runs.
struct Job {
    number: u64,
    method: String,
    params: Option<Value>,
    /// A request's context; `None` for a notification.
    context: Option<RequestContext>,
}

/// A handler that has not returned.
struct Running {
    /// The request's id; `None` for a notification.
    id: Option<Id>,
    method: String,
    cancelled: Arc<AtomicBool>,
}

/// A request of the server's that the client has not answered.
struct Asked {
    method: String,
    reply: mpsc::Sender<Result<Value, PeerError>>,
}

/// Why the loop stops starting work.
enum Ending {
    /// The input closed: what is queued still runs.
    Input,
    /// The session ended as the protocol says.
    Session,
    /// A framing fault lost the stream.
    Lost(String),
    /// Reading or writing failed.
    Failed(std::io::Error),
    /// A handler asked the loop to stop.
    HandlerStopped,
}

/// The reader's credits (rule 3).
struct Credits {
    state: Mutex<(usize, bool)>,
    changed: Condvar,
}

impl Credits {
    fn new(count: usize) -> Self {
        Credits {
            state: Mutex::new((count, false)),
            changed: Condvar::new(),
        }
    }

    /// Waits for a credit; `false` once closed.
    fn take(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while state.0 == 0 && !state.1 {
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        if state.1 {
            return false;
        }
        state.0 -= 1;
        true
    }

    fn give(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.0 += 1;
        self.changed.notify_one();
    }

    fn close(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.1 = true;
        self.changed.notify_all();
    }
}

impl Server {
    /// Serves `input` with requests running side by side (the module's
    /// rules), writing each answer as it is made and flushing whenever
    /// nothing else is waiting to be written. Returns once the session has
    /// ended and every running handler has returned. The input is read on
    /// a thread of its own, which is left blocked in its read when the
    /// session ends before the input does.
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
        W: Write,
    {
        let (events_sender, events) = mpsc::channel();
        let credits = Arc::new(Credits::new(QUEUED));
        let framing = self.protocol.manifest().transport.framing;
        let limits = self.limits();
        {
            let events = events_sender.clone();
            let credits = Arc::clone(&credits);
            std::thread::Builder::new()
                .name("wirekit-reader".to_owned())
                .spawn(move || read_frames(input, framing, limits, &events, &credits))?;
        }
        let peer = Peer {
            sender: events_sender.clone(),
            next_id: Arc::new(AtomicU64::new(1)),
            timeout: concurrency.request_timeout,
        };
        let (jobs_sender, jobs) = mpsc::channel::<Job>();
        let jobs = Mutex::new(jobs);
        let outcome = std::thread::scope(|scope| {
            let mut spawn_worker = || {
                let (jobs, events, peer) = (&jobs, events_sender.clone(), peer.clone());
                scope.spawn(move || work(handler, jobs, &events, &peer));
            };
            let mut run = Run {
                server: self,
                handler,
                output,
                dirty: false,
                events,
                credits: &credits,
                jobs: jobs_sender,
                peer: peer.clone(),
                max_in_flight: concurrency.max_in_flight.max(1),
                workers: 0,
                next_job: 0,
                queue: VecDeque::new(),
                running: HashMap::new(),
                holding: None,
                asked: HashMap::new(),
                input_open: true,
                ending: None,
            };
            let outcome = run.dispatch(&mut spawn_worker);
            // Dropping the job sender ends the idle workers; the scope
            // joins them (every running one has returned already).
            drop(run);
            outcome
        });
        credits.close();
        outcome
    }
}

/// The reader thread: frames to the dispatcher, a credit for each.
fn read_frames<R: Read>(
    input: R,
    framing: crate::framing::Framing,
    limits: crate::framing::FrameLimits,
    events: &mpsc::Sender<Event>,
    credits: &Credits,
) {
    let mut reader = FrameReader::new(input, framing, limits);
    loop {
        if !credits.take() {
            return;
        }
        let (event, last) = match reader.read_frame() {
            Ok(Some(frame)) => (Event::Frame(Ok(frame)), false),
            Ok(None) => (Event::InputEnded(None), true),
            Err(ReadError::Io(error)) => (Event::InputEnded(Some(error)), true),
            Err(ReadError::Framing(fault)) => {
                let lost = ends_stream(framing, &fault);
                (Event::Frame(Err(fault)), lost)
            }
        };
        if events.send(event).is_err() || last {
            return;
        }
    }
}

/// A worker thread: runs jobs until the dispatcher stops sending them.
fn work<H: ConcurrentHandler + ?Sized>(
    handler: &H,
    jobs: &Mutex<mpsc::Receiver<Job>>,
    events: &mpsc::Sender<Event>,
    peer: &Peer,
) {
    handler.worker(&mut || run_jobs(handler, jobs, events, peer));
}

/// The worker's loop: jobs until the dispatcher stops sending them.
fn run_jobs<H: ConcurrentHandler + ?Sized>(
    handler: &H,
    jobs: &Mutex<mpsc::Receiver<Job>>,
    events: &mpsc::Sender<Event>,
    peer: &Peer,
) {
    loop {
        let job = {
            let jobs = jobs.lock().unwrap_or_else(|e| e.into_inner());
            jobs.recv()
        };
        let Ok(Job {
            number,
            method,
            params,
            context,
        }) = job
        else {
            return;
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| match &context {
            Some(context) => handler.handle(context, &method, params),
            None => {
                handler.notify(peer, &method, params);
                Ok(Value::Null)
            }
        }))
        .map_err(|panic| {
            panic
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_owned())
        });
        if events
            .send(Event::Done {
                job: number,
                outcome,
            })
            .is_err()
        {
            return;
        }
    }
}

/// The dispatcher's state.
struct Run<'a, H: ConcurrentHandler + ?Sized, W: Write> {
    server: &'a mut Server,
    handler: &'a H,
    output: W,
    /// Written since the last flush.
    dirty: bool,
    events: mpsc::Receiver<Event>,
    credits: &'a Credits,
    jobs: mpsc::Sender<Job>,
    peer: Peer,
    max_in_flight: usize,
    workers: usize,
    next_job: u64,
    queue: VecDeque<Work>,
    running: HashMap<u64, Running>,
    /// The job that holds the queue (rule 2).
    holding: Option<u64>,
    asked: HashMap<Id, Asked>,
    input_open: bool,
    ending: Option<Ending>,
}

impl<H: ConcurrentHandler + ?Sized, W: Write> Run<'_, H, W> {
    fn dispatch(&mut self, spawn_worker: &mut dyn FnMut()) -> std::io::Result<ServeOutcome> {
        loop {
            if let Err(error) = self.start_ready(spawn_worker) {
                self.end(Ending::Failed(error));
            }
            if let Some(outcome) = self.finished() {
                return outcome;
            }
            let event = match self.events.try_recv() {
                Ok(event) => event,
                Err(_) => {
                    if self.dirty {
                        self.dirty = false;
                        if let Err(error) = self.output.flush() {
                            self.end(Ending::Failed(error));
                            continue;
                        }
                    }
                    match self.events.recv_timeout(INTERRUPTED_POLL) {
                        Ok(event) => event,
                        // Python's Ctrl-C is seen here, on the thread that
                        // called the loop: the input is read on another.
                        Err(mpsc::RecvTimeoutError::Timeout) => {
                            if self.handler.interrupted() || self.handler.stopped() {
                                self.end(Ending::HandlerStopped);
                            }
                            continue;
                        }
                        // The loop holds a sender (its peer): not reached.
                        Err(mpsc::RecvTimeoutError::Disconnected) => {
                            return Ok(ServeOutcome::EndOfInput)
                        }
                    }
                }
            };
            if let Err(error) = self.on_event(event) {
                self.end(Ending::Failed(error));
            }
        }
    }

    /// The outcome once nothing runs and nothing more will start.
    fn finished(&mut self) -> Option<std::io::Result<ServeOutcome>> {
        if !self.running.is_empty() {
            return None;
        }
        let outcome = match self.ending.take()? {
            Ending::Input if !self.queue.is_empty() => {
                self.ending = Some(Ending::Input);
                return None;
            }
            Ending::Input => Ok(ServeOutcome::EndOfInput),
            Ending::Session => Ok(ServeOutcome::Ended),
            Ending::Lost(reason) => Ok(ServeOutcome::FramingLost(reason)),
            Ending::Failed(error) => Err(error),
            Ending::HandlerStopped => Err(handler_stopped()),
        };
        Some(self.flush_then(outcome))
    }

    fn flush_then(
        &mut self,
        outcome: std::io::Result<ServeOutcome>,
    ) -> std::io::Result<ServeOutcome> {
        if self.dirty {
            self.dirty = false;
            self.output.flush()?;
        }
        outcome
    }

    /// Stops starting work (an earlier, graver reason is kept: only the
    /// input's end gives way), and fails every request waiting for the
    /// client when no answer can come any more.
    fn end(&mut self, ending: Ending) {
        match self.ending {
            None | Some(Ending::Input) => self.ending = Some(ending),
            Some(_) => {}
        }
        if !self.input_open || !matches!(self.ending, Some(Ending::Input)) {
            for (_, asked) in self.asked.drain() {
                let _ = asked.reply.send(Err(PeerError::Closed));
            }
        }
    }

    /// Whether new work may start.
    fn starting(&self) -> bool {
        matches!(self.ending, None | Some(Ending::Input))
    }

    fn on_event(&mut self, event: Event) -> std::io::Result<()> {
        match event {
            Event::Frame(Ok(frame)) => self.on_frame(&frame),
            Event::Frame(Err(fault)) => self.queue.push_back(Work::Fault(fault)),
            Event::InputEnded(None) => {
                self.input_open = false;
                self.end(Ending::Input);
            }
            Event::InputEnded(Some(error)) => {
                self.input_open = false;
                self.end(Ending::Failed(error));
            }
            Event::Done { job, outcome } => return self.on_done(job, outcome),
            Event::Outgoing(outgoing) => return self.on_outgoing(outgoing),
        }
        Ok(())
    }

    /// Rule 1.
    fn on_frame(&mut self, frame: &Frame) {
        let body = frame.body();
        match envelope::decode_str(body, &self.server.envelope) {
            Ok(Message::Response(response)) => {
                self.credits.give();
                self.on_response(response);
            }
            Ok(Message::Notification(notification)) => {
                self.cancel(&notification);
                self.queue.push_back(Work::Notification(notification));
            }
            Ok(Message::Request(request)) => self.queue.push_back(Work::Request(request)),
            Err(error) => self.queue.push_back(Work::Refused {
                body: body.to_owned(),
                error,
            }),
        }
    }

    /// Rule 2: starts the queue's head while it may start.
    fn start_ready(&mut self, spawn_worker: &mut dyn FnMut()) -> std::io::Result<()> {
        while self.starting() && self.holding.is_none() {
            let may = match self.queue.front() {
                None => break,
                Some(Work::Request(request)) if self.moves_session(&request.method) => {
                    self.running.is_empty()
                }
                Some(Work::Request(_) | Work::Notification(_)) => {
                    self.running.len() < self.max_in_flight
                }
                Some(Work::Fault(_) | Work::Refused { .. }) => true,
            };
            if !may {
                break;
            }
            let Some(work) = self.queue.pop_front() else {
                break;
            };
            self.credits.give();
            self.start(work, spawn_worker)?;
        }
        if !self.starting() {
            // Nothing queued will start: give the reader its credits back
            // (it stops at the session's end anyway).
            for _ in self.queue.drain(..) {
                self.credits.give();
            }
        }
        Ok(())
    }

    /// Whether `method` moves the session, so runs alone (rule 2).
    fn moves_session(&self, method: &str) -> bool {
        let manifest = self.server.protocol.manifest();
        let Some(spec) = self.server.protocol.method(method) else {
            return false;
        };
        let lifecycle_step = spec.lifecycle.as_ref().is_some_and(|lifecycle| {
            lifecycle.on_success.is_some()
                || lifecycle.completion.is_some()
                || lifecycle.ends_session
        });
        let declares = manifest
            .capabilities
            .as_ref()
            .is_some_and(|capabilities| capabilities.method == method);
        lifecycle_step
            || declares
            || spec.result_stream.is_some()
            || self.server.session.reads_params(method)
    }

    fn start(&mut self, work: Work, spawn_worker: &mut dyn FnMut()) -> std::io::Result<()> {
        let Run { server, output, .. } = self;
        let mut send = |bytes: &[u8]| output.write_all(bytes);
        let flow = match work {
            Work::Fault(fault) => {
                let flow = server.on_framing_fault(&fault, &mut send)?;
                self.dirty = true;
                if flow == Flow::Stop
                    && ends_stream(self.server.protocol.manifest().transport.framing, &fault)
                {
                    self.end(Ending::Lost(fault.to_string()));
                }
                flow
            }
            Work::Refused { body, error } => {
                let flow = server.on_envelope_error(&body, &error, &mut send)?;
                self.dirty = true;
                flow
            }
            Work::Notification(notification) => {
                if let Some(Notification { method, params }) =
                    server.admit_notification(notification)
                {
                    self.spawn(method, params, None, spawn_worker);
                }
                Flow::Continue
            }
            Work::Request(request) => {
                let moves = self.moves_session(&request.method);
                let handler = self.handler;
                let Run { server, output, .. } = self;
                let mut send = |bytes: &[u8]| output.write_all(bytes);
                let implements = |method: &str| handler.implements(method);
                let admitted = server.admit_request(&implements, request, &mut send)?;
                self.dirty = true;
                match admitted {
                    Admission::Refused(flow) => flow,
                    Admission::Admitted(admitted) if admitted.streamed => self.stream(admitted)?,
                    Admission::Admitted(Admitted {
                        id, method, params, ..
                    }) => {
                        let cancelled = Arc::new(AtomicBool::new(false));
                        let progress = self.server.protocol.manifest().progress.clone();
                        let progress_token = progress.as_ref().and_then(|progress| {
                            params.as_ref()?.pointer(&progress.request_pointer).cloned()
                        });
                        let context = RequestContext {
                            id,
                            method: method.clone(),
                            cancelled,
                            progress_token,
                            progress,
                            peer: self.peer.clone(),
                        };
                        let job = self.spawn(method, params, Some(context), spawn_worker);
                        if moves {
                            self.holding = Some(job);
                        }
                        Flow::Continue
                    }
                }
            }
        };
        if flow == Flow::Stop || self.server.session.is_ended() {
            self.end(Ending::Session);
        }
        Ok(())
    }

    /// Hands a handler call to a worker (spawning one when every worker is
    /// busy); a notification holds the queue until it returns.
    fn spawn(
        &mut self,
        method: String,
        params: Option<Value>,
        context: Option<RequestContext>,
        spawn_worker: &mut dyn FnMut(),
    ) -> u64 {
        let number = self.next_job;
        self.next_job += 1;
        let running = Running {
            id: context.as_ref().map(|c| c.id.clone()),
            method: method.clone(),
            cancelled: context.as_ref().map_or_else(
                || Arc::new(AtomicBool::new(false)),
                |c| Arc::clone(&c.cancelled),
            ),
        };
        if context.is_none() {
            self.holding = Some(number);
        }
        self.running.insert(number, running);
        if self.running.len() > self.workers {
            spawn_worker();
            self.workers += 1;
        }
        let job = Job {
            number,
            method,
            params,
            context,
        };
        // The workers outlive the loop's sender: a send cannot fail here.
        let _ = self.jobs.send(job);
        number
    }

    /// A streamed result, served on this thread (it runs alone and ends the
    /// session) through the sequential loop's own stream.
    fn stream(&mut self, admitted: Admitted) -> std::io::Result<Flow> {
        let mut adapter = StreamOnly(self.handler);
        let Run { server, output, .. } = self;
        let mut send = |bytes: &[u8]| output.write_all(bytes).and_then(|()| output.flush());
        server.stream(
            &mut adapter,
            &admitted.id,
            &admitted.method,
            admitted.params,
            &mut send,
        )
    }

    fn on_done(
        &mut self,
        job: u64,
        outcome: Result<Result<Value, ErrorObject>, String>,
    ) -> std::io::Result<()> {
        let Some(running) = self.running.remove(&job) else {
            return Ok(());
        };
        if self.holding == Some(job) {
            self.holding = None;
        }
        if self.handler.stopped() {
            self.end(Ending::HandlerStopped);
        }
        let Some(id) = running.id else {
            if let Err(panic) = outcome {
                (self.server.logger)(&format!(
                    "the handler of the notification `{}` panicked: {panic}",
                    running.method
                ));
            }
            return Ok(());
        };
        let method = running.method;
        let outcome = outcome.unwrap_or_else(|panic| {
            (self.server.logger)(&format!("the handler of `{method}` panicked: {panic}"));
            Err(self
                .server
                .protocol
                .internal_error_answer(&method, &format!("the handler panicked: {panic}")))
        });
        let optional = self
            .server
            .protocol
            .manifest()
            .cancellation
            .as_ref()
            .is_some_and(|c| c.answer == CancelledAnswer::Optional);
        if optional && running.cancelled.load(Ordering::Acquire) {
            (self.server.logger)(&format!(
                "left `{method}` (id {id}) unanswered: the client cancelled it"
            ));
            return Ok(());
        }
        let Run { server, output, .. } = self;
        let mut send = |bytes: &[u8]| output.write_all(bytes);
        let flow = server.finish(&id, &method, outcome, &mut send)?;
        self.dirty = true;
        if flow == Flow::Stop || self.server.session.is_ended() {
            self.end(Ending::Session);
        }
        Ok(())
    }

    /// The protocol's cancellation names a running request: its flag is set.
    fn cancel(&mut self, notification: &Notification) {
        let Some(cancellation) = &self.server.protocol.manifest().cancellation else {
            return;
        };
        if notification.method != cancellation.method {
            return;
        }
        let Some(id) = notification
            .params
            .as_ref()
            .and_then(|params| params.pointer(&cancellation.id_pointer))
            .and_then(Id::from_value)
        else {
            return;
        };
        for running in self.running.values() {
            if running.id.as_ref() == Some(&id) {
                running.cancelled.store(true, Ordering::Release);
            }
        }
    }

    /// Rule 4: the client's answer to a request of the server's, checked.
    fn on_response(&mut self, response: Response) {
        let asked = response.id.as_ref().and_then(|id| self.asked.remove(id));
        let Some(Asked { method, reply }) = asked else {
            let id = response
                .id
                .as_ref()
                .map_or_else(|| "null".to_owned(), ToString::to_string);
            (self.server.logger)(&format!(
                "ignored a response (id {id}) from the client: no request of this server's is waiting for it"
            ));
            return;
        };
        let protocol = &self.server.protocol;
        let answer = match response.outcome {
            Ok(result) => {
                let issues = protocol.validate(&method, Part::Result, Some(&result));
                if issues.is_empty() {
                    Ok(result)
                } else {
                    Err(RuntimeFault::invalid_answer(&method, Part::Result, &issues))
                }
            }
            Err(error) => {
                let issues = protocol.validate_error_of(Some(&method), &error);
                if issues.is_empty() {
                    let _ = reply.send(Err(PeerError::Answered(error)));
                    return;
                }
                Err(RuntimeFault::invalid_answer(
                    &method,
                    Part::ErrorData,
                    &issues,
                ))
            }
        };
        let answer = answer.map_err(|fault| {
            (self.server.logger)(&fault.line());
            PeerError::InvalidAnswer(fault)
        });
        let _ = reply.send(answer);
    }

    fn on_outgoing(&mut self, outgoing: Outgoing) -> std::io::Result<()> {
        match outgoing {
            Outgoing::Notify {
                notification,
                reply,
            } => {
                if self.server.session.is_ended() || !self.starting() {
                    let _ = reply.send(Err(PeerError::Closed));
                    return Ok(());
                }
                match self.server.frame_notification(notification) {
                    Ok(frame) => {
                        self.output.write_all(&frame)?;
                        self.dirty = true;
                        let _ = reply.send(Ok(()));
                    }
                    Err(fault) => {
                        (self.server.logger)(&fault.line());
                        let _ = reply.send(Err(PeerError::Refused(fault)));
                    }
                }
            }
            Outgoing::Ask {
                id,
                method,
                params,
                reply,
            } => {
                if !self.starting() || self.server.session.is_ended() {
                    let _ = reply.send(Err(PeerError::Closed));
                    return Ok(());
                }
                // Checked before the input's end is: a request the client
                // must not get is the handler's fault (`refused`) whether
                // or not an answer could still come.
                match self.frame_request(&id, &method, params) {
                    Ok(_) if !self.input_open => {
                        let _ = reply.send(Err(PeerError::Closed));
                    }
                    Ok(frame) => {
                        self.output.write_all(&frame)?;
                        self.dirty = true;
                        self.asked.insert(id, Asked { method, reply });
                    }
                    Err(fault) => {
                        (self.server.logger)(&fault.line());
                        let _ = reply.send(Err(PeerError::Refused(fault)));
                    }
                }
            }
            Outgoing::Abandon(id) => {
                if self.asked.remove(&id).is_some() {
                    self.cancel_own(&id)?;
                }
            }
        }
        Ok(())
    }

    /// A request of the server's, checked (a request the server sends, its
    /// params, the session's state) and framed.
    fn frame_request(
        &mut self,
        id: &Id,
        method: &str,
        params: Option<Value>,
    ) -> Result<Vec<u8>, RuntimeFault> {
        self.server
            .check_outgoing(method, MethodKind::Request, params.as_ref())?;
        if let Err(violation) = self.server.session.check(method) {
            let why = violation.to_string();
            return Err(RuntimeFault::dropped_request(method, "/method", &why));
        }
        let message = Message::Request(Request::new(id.clone(), method, params));
        self.server
            .wire
            .frame_message(&message)
            .map_err(|error| RuntimeFault::dropped_request(method, "", &error.to_string()))
    }

    /// Cancels a request of the server's that its handler stopped waiting
    /// for, where the server may send the protocol's cancellation.
    fn cancel_own(&mut self, id: &Id) -> std::io::Result<()> {
        let Some(cancellation) = self.server.protocol.manifest().cancellation.clone() else {
            return Ok(());
        };
        let server_sends = self
            .server
            .protocol
            .method(&cancellation.method)
            .is_some_and(|spec| spec.direction.server_sends());
        if !server_sends {
            return Ok(());
        }
        let mut params = Value::Object(serde_json::Map::new());
        crate::protocol::pointer::set_at(&mut params, &cancellation.id_pointer, Value::from(id));
        let notification = Notification::new(cancellation.method.as_str(), Some(params));
        match self.server.frame_notification(notification) {
            Ok(frame) => {
                self.output.write_all(&frame)?;
                self.dirty = true;
            }
            Err(fault) => (self.server.logger)(&fault.line()),
        }
        Ok(())
    }
}

/// The sequential loop's [`Handler`] over a concurrent handler, for its
/// streamed results alone.
struct StreamOnly<'a, H: ConcurrentHandler + ?Sized>(&'a H);

impl<H: ConcurrentHandler + ?Sized> Handler for StreamOnly<'_, H> {
    fn implements(&self, method: &str) -> bool {
        self.0.implements(method)
    }

    fn handle(&mut self, method: &str, _params: Option<Value>) -> Result<Value, ErrorObject> {
        Err(super::super::handler::method_not_found(method))
    }

    fn handle_stream(
        &mut self,
        method: &str,
        params: Option<Value>,
        emit: &mut super::super::Emit<'_>,
    ) -> Result<(), ErrorObject> {
        self.0.handle_stream(method, params, emit)
    }
}
