//! The loop's state and its steps (the rules of the module), driven by
//! whichever thread holds its lock: the thread that read a frame starts
//! it, and the thread that ran a handler writes its answer.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use serde_json::value::RawValue;
use serde_json::Value;

use super::super::super::context::{ConcurrentHandler, Outgoing, Peer, PeerError, RequestContext};
use super::super::super::fault::RuntimeFault;
use super::super::super::handler::Handler;
use super::super::{ends_stream, handler_stopped, Admission, Admitted, Flow, ServeOutcome, Server};
use super::control::{Control, Input};
use super::{Credits, Event};
use crate::envelope::{
    self, EnvelopeError, ErrorObject, Id, Message, Notification, Request, Response,
};
use crate::framing::{Frame, FramingError};
use crate::protocol::{CancelledAnswer, MethodKind};
use crate::validate::Part;

/// A frame waiting its turn.
enum Work {
    Fault(FramingError),
    Refused {
        body: String,
        error: EnvelopeError,
    },
    Request(Request),
    /// A request whose params were kept as text (the handler reads them).
    Kept {
        id: Id,
        method: String,
        params: Box<RawValue>,
    },
    Notification(Notification),
}

/// A handler call, run by the thread that started it.
pub(super) struct Job {
    pub(super) number: u64,
    method: String,
    params: Option<Value>,
    /// A request's context; `None` for a notification.
    context: Option<RequestContext>,
    /// Answered through [`ConcurrentHandler::handle_encoded`].
    encoded: bool,
    /// The params' text, for [`ConcurrentHandler::handle_params_text`],
    /// with the protocol that checks them should the handler not take it.
    text: Option<(Box<RawValue>, Arc<crate::validate::Protocol>)>,
}

/// A handler's answer: a value, or a result it encoded and checked itself
/// ([`ConcurrentHandler::handle_encoded`]).
pub(super) enum Answer {
    Value(Result<Value, ErrorObject>),
    Encoded(Result<Box<RawValue>, ErrorObject>),
}

/// What a handler call gave: its answer, or the text of its panic.
pub(super) type Outcome = Result<Answer, String>;

/// Runs a handler call; a panic is caught and becomes its text.
pub(super) fn execute<H: ConcurrentHandler + ?Sized>(
    handler: &H,
    job: &mut Job,
    peer: &Peer,
) -> Outcome {
    let params = job.params.take();
    let text = job.text.take();
    catch_unwind(AssertUnwindSafe(|| match &job.context {
        Some(context) if text.is_some() => {
            let Some((raw, protocol)) = text else {
                return Answer::Value(Ok(Value::Null));
            };
            answer_from_text(handler, context, &job.method, &raw, &protocol)
        }
        Some(context) if job.encoded => {
            Answer::Encoded(handler.handle_encoded(context, &job.method, params))
        }
        Some(context) => Answer::Value(handler.handle(context, &job.method, params)),
        None => {
            handler.notify(peer, &job.method, params);
            Answer::Value(Ok(Value::Null))
        }
    }))
    .map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|text| (*text).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned())
    })
}

/// A request answered from its params' text, or, when the handler cannot
/// take the text, with its params parsed and checked here as the usual
/// path checks them (the lifecycle and admission passed already).
fn answer_from_text<H: ConcurrentHandler + ?Sized>(
    handler: &H,
    context: &RequestContext,
    method: &str,
    raw: &RawValue,
    protocol: &crate::validate::Protocol,
) -> Answer {
    if let Some(answer) = handler.handle_params_text(context, method, raw) {
        return Answer::Encoded(answer);
    }
    let request = envelope::RequestText {
        id: context.id().clone(),
        method: method.to_owned(),
        params: raw,
    }
    .to_request();
    let params = request.and_then(|request| request.params);
    let issues = protocol.validate(method, Part::Params, params.as_ref());
    if !issues.is_empty() {
        return Answer::Value(Err(protocol.invalid_params_answer(method, &issues)));
    }
    Answer::Encoded(handler.handle_encoded(context, method, params))
}

/// The value at a JSON pointer in a JSON text, parsing only the members
/// and items on its way (the rest is skipped as raw text).
fn value_in_text(text: &RawValue, pointer: &str) -> Option<Value> {
    let mut here: &RawValue = text;
    if pointer.is_empty() {
        return serde_json::from_str(here.get()).ok();
    }
    for token in pointer.strip_prefix('/')?.split('/') {
        let token = token.replace("~1", "/").replace("~0", "~");
        here = match here.get().trim_start().as_bytes().first()? {
            b'{' => {
                let members: HashMap<String, &RawValue> = serde_json::from_str(here.get()).ok()?;
                *members.get(&token)?
            }
            b'[' => {
                let items: Vec<&RawValue> = serde_json::from_str(here.get()).ok()?;
                *items.get(token.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    serde_json::from_str(here.get()).ok()
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

/// The loop's state.
pub(super) struct Run<'a, H: ConcurrentHandler + ?Sized, W: Write> {
    server: &'a mut Server,
    handler: &'a H,
    output: W,
    /// Written since the last flush.
    dirty: bool,
    control: Arc<Control>,
    credits: Arc<Credits>,
    peer: Peer,
    /// Wakes the pool's threads.
    wake: mpsc::Sender<Event>,
    pub(super) max_in_flight: usize,
    /// The pool's threads, and those of them running a handler.
    pub(super) pool_threads: usize,
    pub(super) pool_busy: usize,
    next_job: u64,
    queue: VecDeque<Work>,
    running: HashMap<u64, Running>,
    /// The job that holds the queue (rule 2).
    holding: Option<u64>,
    asked: HashMap<Id, Asked>,
    input_open: bool,
    ending: Option<Ending>,
    /// The outcome was taken: the loop's threads stop.
    over: bool,
}

impl<'a, H: ConcurrentHandler + ?Sized, W: Write> Run<'a, H, W> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        server: &'a mut Server,
        handler: &'a H,
        output: W,
        control: Arc<Control>,
        credits: Arc<Credits>,
        peer: Peer,
        wake: mpsc::Sender<Event>,
        max_in_flight: usize,
    ) -> Self {
        Run {
            server,
            handler,
            output,
            dirty: false,
            control,
            credits,
            peer,
            wake,
            max_in_flight,
            pool_threads: 0,
            pool_busy: 0,
            next_job: 0,
            queue: VecDeque::new(),
            running: HashMap::new(),
            holding: None,
            asked: HashMap::new(),
            input_open: true,
            ending: None,
            over: false,
        }
    }

    /// Takes what the reader thread read, in order, and flushes when it
    /// asks (a handler is slow: rule 5).
    pub(super) fn absorb(&mut self) {
        let (read, flush) = {
            let mut shared = self.control.lock();
            if shared.read.is_empty() && !shared.flush_wanted {
                return;
            }
            let flush = std::mem::take(&mut shared.flush_wanted);
            (std::mem::take(&mut shared.read), flush)
        };
        for input in read {
            self.on_input(input);
        }
        if flush {
            self.flush();
        }
    }

    /// One read's outcome (rule 1).
    pub(super) fn on_input(&mut self, input: Input) {
        match input {
            Input::Frame(Ok(frame)) => self.on_frame(&frame),
            Input::Frame(Err(fault)) => self.queue.push_back(Work::Fault(fault)),
            Input::Ended(None) => {
                self.input_open = false;
                self.end(Ending::Input);
            }
            Input::Ended(Some(error)) => {
                self.input_open = false;
                self.end(Ending::Failed(error));
            }
        }
    }

    /// The outcome, once nothing runs and nothing more will start; the
    /// loop is over from then on.
    pub(super) fn outcome(&mut self) -> Option<std::io::Result<ServeOutcome>> {
        let outcome = self.finished()?;
        self.over = true;
        Some(outcome)
    }

    pub(super) fn is_over(&self) -> bool {
        self.over
    }

    /// Wakes every pool thread (each sees the loop is over and returns).
    pub(super) fn wake_pool(&mut self) {
        self.over = true;
        for _ in 0..self.pool_threads {
            let _ = self.wake.send(Event::Wake);
        }
    }

    /// Wakes one pool thread to take work this thread leaves.
    pub(super) fn kick(&self) {
        let _ = self.wake.send(Event::Wake);
    }

    pub(super) fn running_is_empty(&self) -> bool {
        self.running.is_empty()
    }

    /// Whether the calling thread may read: nothing runs or waits, and
    /// more may come.
    pub(super) fn may_read(&self) -> bool {
        self.running.is_empty()
            && self.queue.is_empty()
            && self.holding.is_none()
            && self.input_open
            && self.ending.is_none()
    }

    /// Writes what is buffered (rule 6).
    pub(super) fn flush(&mut self) {
        if self.dirty {
            self.dirty = false;
            if let Err(error) = self.output.flush() {
                self.end(Ending::Failed(error));
            }
        }
    }

    /// The handler asked the loop to stop (or Python's Ctrl-C came).
    pub(super) fn stop_for_handler(&mut self) {
        self.end(Ending::HandlerStopped);
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
            self.control.asking(0);
        }
    }

    /// Whether new work may start.
    fn starting(&self) -> bool {
        matches!(self.ending, None | Some(Ending::Input))
    }

    /// Rule 1.
    fn on_frame(&mut self, frame: &Frame) {
        let body = frame.body();
        if self.handler.reads_params_text() {
            match envelope::decode_keeping_params(body, &self.server.envelope) {
                Ok(envelope::Decoded::Kept(request)) => {
                    self.queue.push_back(Work::Kept {
                        id: request.id,
                        method: request.method,
                        params: request.params.to_owned(),
                    });
                    return;
                }
                Ok(envelope::Decoded::Message(message)) => {
                    return self.on_message(body, Ok(message))
                }
                Err(error) => return self.on_message(body, Err(error)),
            }
        }
        self.on_message(body, envelope::decode_str(body, &self.server.envelope));
    }

    fn on_message(&mut self, body: &str, decoded: Result<Message, EnvelopeError>) {
        match decoded {
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

    /// Rule 2: starts the queue's head while it may start, answering
    /// inline what needs no handler, and gives the first handler call to
    /// run (on the calling thread).
    pub(super) fn next_job(&mut self) -> Option<Job> {
        let mut job = None;
        while job.is_none() && self.startable() {
            let Some(work) = self.queue.pop_front() else {
                break;
            };
            self.credits.give();
            match self.start(work) {
                Ok(started) => job = started,
                Err(error) => self.end(Ending::Failed(error)),
            }
        }
        if !self.starting() {
            // Nothing queued will start: give the reader its credits back
            // (it stops at the session's end anyway).
            for _ in self.queue.drain(..) {
                self.credits.give();
            }
        }
        job
    }

    /// Whether the queue's head may start now.
    pub(super) fn startable(&self) -> bool {
        if !self.starting() || self.holding.is_some() {
            return false;
        }
        match self.queue.front() {
            None => false,
            Some(Work::Request(Request { method, .. }) | Work::Kept { method, .. })
                if self.moves_session(method) =>
            {
                self.running.is_empty()
            }
            Some(Work::Request(_) | Work::Kept { .. } | Work::Notification(_)) => {
                self.running.len() < self.max_in_flight
            }
            Some(Work::Fault(_) | Work::Refused { .. }) => true,
        }
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

    fn start(&mut self, work: Work) -> std::io::Result<Option<Job>> {
        let work = match work {
            Work::Kept { id, method, params } => match self.start_from_text(id, method, params) {
                Ok(job) => return Ok(Some(job)),
                Err(work) => work,
            },
            work => work,
        };
        let mut job = None;
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
            // Turned into a `Request` above when it was not started.
            Work::Kept { .. } => Flow::Continue,
            Work::Refused { body, error } => {
                let flow = server.on_envelope_error(&body, &error, &mut send)?;
                self.dirty = true;
                flow
            }
            Work::Notification(notification) => {
                if let Some(Notification { method, params }) =
                    server.admit_notification(notification)
                {
                    job = Some(self.register(method, params, None));
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
                        let context = self.context_of(id, &method, |pointer| {
                            params.as_ref()?.pointer(pointer).cloned()
                        });
                        let started = self.register(method, params, Some(context));
                        if moves {
                            self.holding = Some(started.number);
                        }
                        job = Some(started);
                        Flow::Continue
                    }
                }
            }
        };
        if flow == Flow::Stop || self.server.session.is_ended() {
            self.end(Ending::Session);
        }
        Ok(job)
    }

    /// A kept request answered from its text where the usual path would
    /// answer it encoded after the same checks (the sequential loop's rule:
    /// a known request method, not streamed, allowed now by the lifecycle,
    /// whose params the session does not read, implemented, answered
    /// encoded, and here one that does not move the session); else the
    /// request with its params parsed, for the usual path.
    fn start_from_text(
        &mut self,
        id: Id,
        method: String,
        params: Box<RawValue>,
    ) -> Result<Job, Work> {
        let handler = self.handler;
        let server = &mut *self.server;
        let fast = server
            .request_spec(&method)
            .is_some_and(|spec| spec.result_stream.is_none())
            && !server.session.reads_params(&method)
            && handler.implements(&method)
            && server.may_encode(&method, handler.answers_encoded(&method))
            && !self.moves_session(&method)
            && self.server.session.check(&method).is_ok()
            && self.server.session.admit(&method, None).is_ok();
        if !fast {
            let text = envelope::RequestText {
                id: id.clone(),
                method: method.clone(),
                params: &params,
            };
            return Err(match text.to_request() {
                Some(request) => Work::Request(request),
                // A kept text always parses; should it not, no params.
                None => Work::Request(Request::new(id, method, None)),
            });
        }
        let context = self.context_of(id, &method, |pointer| value_in_text(&params, pointer));
        let protocol = Arc::clone(&self.server.protocol);
        let mut job = self.register(method, None, Some(context));
        job.text = Some((params, protocol));
        Ok(job)
    }

    /// A request's context; `token` finds its progress token at the
    /// manifest's pointer in its params.
    fn context_of(
        &self,
        id: Id,
        method: &str,
        token: impl FnOnce(&str) -> Option<Value>,
    ) -> RequestContext {
        let progress = self.server.protocol.manifest().progress.clone();
        let progress_token = progress
            .as_ref()
            .and_then(|progress| token(&progress.request_pointer));
        RequestContext {
            id,
            method: method.to_owned(),
            cancelled: Arc::new(AtomicBool::new(false)),
            progress_token,
            progress,
            peer: self.peer.clone(),
        }
    }

    /// Records a handler call about to run; a notification holds the
    /// queue until it returns.
    fn register(
        &mut self,
        method: String,
        params: Option<Value>,
        context: Option<RequestContext>,
    ) -> Job {
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
        let encoded = context.is_some()
            && self
                .server
                .may_encode(&method, self.handler.answers_encoded(&method));
        Job {
            number,
            method,
            params,
            context,
            encoded,
            text: None,
        }
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

    /// A handler returned: its answer is written (rule 2).
    pub(super) fn on_done(&mut self, job: u64, outcome: Outcome) {
        if let Err(error) = self.answer(job, outcome) {
            self.end(Ending::Failed(error));
        }
    }

    fn answer(&mut self, job: u64, outcome: Outcome) -> std::io::Result<()> {
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
            Answer::Value(Err(self.server.protocol.internal_error_answer(
                &method,
                &format!("the handler panicked: {panic}"),
            )))
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
        let flow = match outcome {
            Answer::Value(outcome) => server.finish(&id, &method, outcome, &mut send)?,
            Answer::Encoded(answer) => server.answer_encoded(&id, &method, answer, &mut send)?,
        };
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

    /// What a handler sends, checked and written (rule 4).
    pub(super) fn on_outgoing(&mut self, outgoing: Outgoing) {
        if let Err(error) = self.send_outgoing(outgoing) {
            self.end(Ending::Failed(error));
        }
        self.control.asking(self.asked.len());
    }

    fn send_outgoing(&mut self, outgoing: Outgoing) -> std::io::Result<()> {
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
            Outgoing::Abandon { id, done } => {
                if self.asked.remove(&id).is_some() {
                    self.cancel_own(&id)?;
                }
                let _ = done.send(());
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
        if let Err(violation) = self.server.session.check_from_server(method) {
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
        Err(super::super::super::handler::method_not_found(method))
    }

    fn handle_stream(
        &mut self,
        method: &str,
        params: Option<Value>,
        emit: &mut super::super::super::Emit<'_>,
    ) -> Result<(), ErrorObject> {
        self.0.handle_stream(method, params, emit)
    }
}
