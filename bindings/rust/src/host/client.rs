//! A host: spawns a server, drives it with typed-checked calls and
//! per-method timeouts, and kills it when it does not answer in time.
//!
//! Every call is checked before it is sent (the lifecycle, the capability
//! of an optional method, the params' schema) and its result after. A
//! reader thread frames the server's stdout, so a wedged server never
//! blocks the host past the timeout; another keeps the last 64 KiB of its
//! stderr for error reports. While it waits, the host answers the server's
//! own requests ([`super::ServerRequest`]). Where the manifest says the
//! server handles one request at a time (`one_request_at_a_time`), a call
//! whose answer the host gave up on (an invalid envelope came instead, say)
//! is waited for, within its timeout, before the next call is sent.

use std::collections::VecDeque;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::error::{HostError, HostErrorKind};
use super::exit::{end_process, Ending};
use super::record::{keep_stderr_tail, record, Recorder, Recording, TeeWriter};
use super::server_request::{RequestHandler, ServerRequest, SERVER_REQUESTS_KEPT};
use crate::capture::Sender;
use crate::envelope::{self, EnvelopeOptions, Id, Message, Notification, Request, Response};
use crate::framing::{
    Frame, FrameReader, FrameWriter, Framing, FramingError, ReadError, TeeReader,
};
use crate::protocol::MethodKind;
use crate::session::Session;
use crate::validate::{Part, Protocol};

/// The timeout of a method whose manifest gives none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
const STDERR_KEPT: usize = 64 * 1024;
/// Frames read ahead of the host (each at most the frame bound).
const INCOMING_FRAMES: usize = 8;
/// Notifications kept until taken; the oldest go first.
pub const NOTIFICATIONS_KEPT: usize = 4096;

/// What the reader thread hands the host: a frame or fault with the exact
/// bytes it took on the wire, or the end of the stream with any bytes left
/// unframed.
enum Incoming {
    Frame(Result<Frame, FramingError>, Vec<u8>),
    Closed(Option<std::io::Error>, Vec<u8>),
}

mod cancel;

/// A request sent whose answer has not come yet.
struct Outstanding {
    id: Id,
    method: String,
    deadline: Instant,
    /// Cancelled at its timeout; its answer is still owed (`cancel.rs`).
    cancelled: bool,
}

/// A server process driven over its stdin and stdout.
pub struct Host {
    protocol: Arc<Protocol>,
    session: Session,
    envelope: EnvelopeOptions,
    child: Child,
    writer: Option<FrameWriter<TeeWriter<ChildStdin>>>,
    incoming: Receiver<Incoming>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    notifications: VecDeque<Result<Notification, HostError>>,
    dropped_notifications: u64,
    next_id: i64,
    timeout_override: Option<Duration>,
    recorder: Recorder,
    data: Option<super::data_plane::DataPlane>,
    request_handler: Option<Box<RequestHandler>>,
    server_requests: VecDeque<ServerRequest>,
    /// Requests sent and not answered yet (at most one outside a call when
    /// the server handles one at a time).
    outstanding: Vec<Outstanding>,
    /// The `followed_by` notification the host sent after the last call,
    /// until anything else is sent.
    followed_up: Option<String>,
    /// Cancelled requests whose answers are dropped (`cancel.rs`).
    cancelled: VecDeque<Id>,
}

impl Host {
    /// Starts `command` with piped stdin, stdout and stderr.
    pub fn spawn(protocol: Arc<Protocol>, command: &mut Command) -> Result<Self, HostError> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                HostError::new(
                    HostErrorKind::Spawn,
                    format!("cannot start `{}`: {e}", command_line(command)),
                )
            })?;
        let transport = &protocol.manifest().transport;
        let limits = transport.frame_limits();
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => {
                    return Err(HostError::new(
                        HostErrorKind::Spawn,
                        "the child's pipes are missing",
                    ))
                }
            };
        // A bounded channel: a server that floods its stdout while the host
        // is not reading waits (backpressure) instead of growing memory.
        let (sender, incoming) = mpsc::sync_channel(INCOMING_FRAMES);
        let framing = transport.framing;
        thread::spawn(move || {
            let kept = limits
                .max_frame_bytes
                .saturating_add(limits.max_header_bytes);
            let mut reader = FrameReader::new(TeeReader::new(stdout, kept), framing, limits);
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
                let last = matches!(next, Incoming::Closed(..));
                if sender.send(next).is_err() || last {
                    return;
                }
            }
        });
        let kept = Arc::new(Mutex::new(VecDeque::new()));
        let sink = Arc::clone(&kept);
        thread::spawn(move || keep_stderr_tail(stderr, &sink, STDERR_KEPT));
        let recorder: Recorder = Arc::new(Mutex::new(None));
        let stdin = TeeWriter {
            inner: stdin,
            recorder: Arc::clone(&recorder),
        };
        Ok(Host {
            session: Session::new(Arc::clone(&protocol)),
            envelope: transport.envelope_options(),
            writer: Some(FrameWriter::with_limits(stdin, framing, limits)),
            protocol,
            child,
            incoming,
            stderr: kept,
            notifications: VecDeque::new(),
            dropped_notifications: 0,
            next_id: 1,
            timeout_override: None,
            recorder,
            data: None,
            request_handler: None,
            server_requests: VecDeque::new(),
            outstanding: Vec::new(),
            followed_up: None,
            cancelled: VecDeque::new(),
        })
    }

    /// Uses one timeout for every method instead of the manifest's.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout_override = Some(timeout);
        self
    }

    /// Records the session into `sink`: the exact bytes sent and received
    /// (headers, line endings, a fault's bytes), in the order the host sent
    /// and handled them: a frame's bytes when the host handles that frame,
    /// so what the host sent after reading it comes after it.
    /// A [`Recording`] with a sides file also says who wrote which bytes.
    /// Where frames are lines, a line one peer left open is ended before
    /// the other peer's bytes ([`Recording::with_lines`]).
    pub fn with_transcript(self, recording: Recording) -> Self {
        let recording = if self.protocol().manifest().transport.framing == Framing::Ndjson {
            recording.with_lines()
        } else {
            recording
        };
        if let Ok(mut recorder) = self.recorder.lock() {
            *recorder = Some(recording);
        }
        self
    }

    /// Records bytes the server wrote.
    fn record(&self, bytes: &[u8]) {
        record(&self.recorder, Sender::Server, bytes);
    }

    pub(super) fn protocol(&self) -> &Protocol {
        &self.protocol
    }

    pub(super) fn set_request_handler(&mut self, handler: Box<RequestHandler>) {
        self.request_handler = Some(handler);
    }

    pub(super) fn request_handler(&mut self) -> Option<&mut RequestHandler> {
        self.request_handler.as_deref_mut()
    }

    pub(super) fn drain_server_requests(&mut self) -> Vec<ServerRequest> {
        std::mem::take(&mut self.server_requests).into()
    }

    pub(super) fn keep_server_request(&mut self, request: ServerRequest) {
        if self.server_requests.len() == SERVER_REQUESTS_KEPT {
            self.server_requests.pop_front();
        }
        self.server_requests.push_back(request);
    }

    pub(super) fn set_data_plane(&mut self, plane: super::data_plane::DataPlane) {
        self.data = Some(plane);
    }

    pub(super) fn data_plane(&mut self) -> Option<&mut super::data_plane::DataPlane> {
        self.data.as_mut()
    }

    pub(super) fn timeout_override(&self) -> Option<Duration> {
        self.timeout_override
    }

    /// The session as the host sees it (state, declared capabilities).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// How many notifications were dropped, oldest first, because more than
    /// [`NOTIFICATIONS_KEPT`] waited to be taken.
    pub fn dropped_notifications(&self) -> u64 {
        self.dropped_notifications
    }

    /// Notifications the server sent so far that passed their checks (the
    /// last [`NOTIFICATIONS_KEPT`]), in order; taking them empties the list
    /// (refused ones included: [`Host::take_received`] keeps those).
    pub fn take_notifications(&mut self) -> Vec<Notification> {
        std::mem::take(&mut self.notifications)
            .into_iter()
            .filter_map(Result::ok)
            .collect()
    }

    /// Every notification received so far, in order: the ones that passed
    /// their checks, and an [`HostErrorKind::InvalidNotification`] for each
    /// one refused (params against its schema, the session's state and
    /// rules); taking them empties the list.
    pub fn take_received(&mut self) -> Vec<Result<Notification, HostError>> {
        std::mem::take(&mut self.notifications).into()
    }

    pub(super) fn pop_received(&mut self) -> Option<Result<Notification, HostError>> {
        self.notifications.pop_front()
    }

    /// Calls `method` and waits for its result.
    pub fn call(&mut self, method: &str, params: Option<Value>) -> Result<Value, HostError> {
        self.followed_up = None;
        self.await_completion_before(method)?;
        self.await_outstanding(method)?;
        let (id, deadline) = self.send_request(method, params)?;
        self.outstanding.push(Outstanding {
            id: id.clone(),
            method: method.to_owned(),
            deadline,
            cancelled: false,
        });
        loop {
            let message = match self.next_frame(method, deadline)? {
                Ok(frame) => self.decode(&frame)?,
                Err(fault) => return Err(self.died(HostErrorKind::Framing, fault.to_string())),
            };
            let response = match message {
                Message::Response(response) => response,
                Message::Notification(notification) => {
                    self.on_notification(notification);
                    continue;
                }
                Message::Request(request) => {
                    self.on_server_request(request);
                    continue;
                }
            };
            match self.take_outstanding(response.id.as_ref()) {
                Some(answered) if answered.id == id => {
                    self.session.answered(method, response.outcome.as_ref());
                    let result = response.outcome.map_err(HostError::remote)?;
                    let issues = self.protocol.validate(method, Part::Result, Some(&result));
                    if !issues.is_empty() {
                        return Err(HostError::issues(
                            HostErrorKind::InvalidResult,
                            method,
                            issues,
                        ));
                    }
                    self.follow_up(method)?;
                    return Ok(result);
                }
                Some(earlier) => self.late_answer(&earlier, &response),
                None if self.forget_cancelled(response.id.as_ref()) => {}
                None => {
                    return Err(HostError::unexpected(
                        method,
                        Some(&id),
                        &Message::Response(response),
                    ))
                }
            }
        }
    }

    /// Sends the notification the protocol says a client sends at once
    /// after `method` succeeds (`followed_by`: LSP's `initialized`, MCP's
    /// `notifications/initialized`), unless it ends the session (LSP's
    /// `exit` after `shutdown`: the caller decides when). Its params are
    /// `{}` where the schema takes that, else none.
    fn follow_up(&mut self, method: &str) -> Result<(), HostError> {
        let Some(next) = self
            .protocol
            .method(method)
            .and_then(|s| s.followed_by())
            .map(str::to_owned)
        else {
            return Ok(());
        };
        let ends = self
            .protocol
            .method(&next)
            .and_then(|s| s.lifecycle.as_ref())
            .is_some_and(|l| l.ends_session);
        if ends {
            return Ok(());
        }
        let empty = Value::Object(serde_json::Map::new());
        let params = self
            .protocol
            .validate(&next, Part::Params, Some(&empty))
            .is_empty()
            .then_some(empty);
        self.notify(&next, params)?;
        self.followed_up = Some(next);
        Ok(())
    }

    /// The request `response` answers, taken off the outstanding list.
    fn take_outstanding(&mut self, id: Option<&Id>) -> Option<Outstanding> {
        let index = self
            .outstanding
            .iter()
            .position(|sent| Some(&sent.id) == id)?;
        Some(self.outstanding.remove(index))
    }

    /// The answer to a call that already returned (its caller was told why)
    /// moves the session on as any answer does; it is not checked again.
    fn late_answer(&mut self, earlier: &Outstanding, response: &Response) {
        self.session
            .answered(&earlier.method, response.outcome.as_ref());
    }

    /// Where the server handles one request at a time: before `method` is
    /// sent, waits for every earlier request still unanswered (each within
    /// its own timeout), answering the server's requests and queueing its
    /// notifications meanwhile.
    fn await_outstanding(&mut self, method: &str) -> Result<(), HostError> {
        if !self.protocol.manifest().transport.one_request_at_a_time {
            return Ok(());
        }
        self.drain_outstanding(&format!("`{method}` not sent"))
    }

    /// Waits for every answer still owed: a request cancelled at its
    /// timeout whose answer the protocol still requires (`answer:
    /// required`, LSP), each within its own timeout, answering the
    /// server's requests and queueing its notifications meanwhile. Call it
    /// before [`Host::end`], so the session (and its recording) ends with
    /// what the server owes, not before.
    pub fn await_owed_answers(&mut self) -> Result<(), HostError> {
        self.drain_outstanding("the session cannot end")
    }

    /// Reads until no request is outstanding; `blocked` says what waits
    /// (the start of an error's message).
    fn drain_outstanding(&mut self, blocked: &str) -> Result<(), HostError> {
        while let Some(first) = self.outstanding.first() {
            let (earlier, deadline) = (first.method.clone(), first.deadline);
            let frame = match self.next_frame(&earlier, deadline)? {
                Ok(frame) => frame,
                Err(fault) => return Err(self.died(HostErrorKind::Framing, fault.to_string())),
            };
            let message = match self.decode(&frame) {
                Ok(message) => message,
                Err(error) => {
                    let what = format!(
                        "{blocked}: `{earlier}` is still unanswered and {}",
                        error.message()
                    );
                    return Err(HostError::new(HostErrorKind::Envelope, what));
                }
            };
            match message {
                Message::Notification(notification) => self.on_notification(notification),
                Message::Request(request) => self.on_server_request(request),
                Message::Response(response) => match self.take_outstanding(response.id.as_ref()) {
                    Some(answered) => self.late_answer(&answered, &response),
                    None if self.forget_cancelled(response.id.as_ref()) => {}
                    None => {
                        let mut error =
                            HostError::unexpected(&earlier, None, &Message::Response(response));
                        error.prefix_message(&format!("{blocked}: "));
                        return Err(error);
                    }
                },
            }
        }
        Ok(())
    }

    /// Calls a streamed-result method (`result_stream`): collects the bare
    /// items until the server closes its stdout.
    pub fn call_stream(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Vec<Value>, HostError> {
        self.followed_up = None;
        let (_, deadline) = self.send_request(method, params)?;
        let mut items = Vec::new();
        loop {
            let timeout = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(timeout) {
                Ok(Incoming::Frame(Ok(frame), bytes)) => {
                    self.record(&bytes);
                    let item: Value = serde_json::from_str(frame.body()).map_err(|e| {
                        HostError::new(
                            HostErrorKind::Envelope,
                            format!("streamed item is not JSON: {e}"),
                        )
                    })?;
                    if let Ok(Message::Response(response)) =
                        envelope::decode_value(item.clone(), &self.envelope)
                    {
                        if let Err(error) = response.outcome {
                            return Err(HostError::remote(error));
                        }
                    }
                    // A failed stream ends with its error inside a
                    // one-element array (see `serve::stream_failure_body`).
                    if let Some(error) = crate::serve::stream_failure_of(&item) {
                        self.session.end();
                        return Err(HostError::remote(error));
                    }
                    let issues = self.protocol.validate(method, Part::Item, Some(&item));
                    if !issues.is_empty() {
                        return Err(HostError::issues(
                            HostErrorKind::InvalidResult,
                            method,
                            issues,
                        ));
                    }
                    items.push(item);
                }
                Ok(Incoming::Frame(Err(fault), bytes)) => {
                    self.record(&bytes);
                    return Err(self.died(HostErrorKind::Framing, fault.to_string()));
                }
                Ok(Incoming::Closed(_, bytes)) => {
                    self.record(&bytes);
                    self.session.answered(method, Ok(&Value::Null));
                    self.session.end();
                    return Ok(items);
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.session.answered(method, Ok(&Value::Null));
                    self.session.end();
                    return Ok(items);
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(self.kill_for_timeout(method, deadline))
                }
            }
        }
    }

    /// Sends a notification (checked like a call: lifecycle and params).
    /// The `followed_by` notification the host sent itself after the last
    /// call is not sent twice: asked for next, it is already sent.
    pub fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), HostError> {
        if self.followed_up.take().as_deref() == Some(method) {
            return Ok(());
        }
        let known = self
            .protocol
            .method(method)
            .is_some_and(|s| s.kind == MethodKind::Notification);
        if !known {
            let message = format!(
                "not sent: `{method}` is not a notification of {}",
                self.protocol.id()
            );
            return Err(HostError::new(HostErrorKind::UnknownMethod, message));
        }
        self.check_params(method, params.as_ref())?;
        self.session
            .notify(method, params.as_ref())
            .map_err(|v| HostError::lifecycle(&v))?;
        self.send(
            method,
            &Message::Notification(Notification {
                method: method.to_owned(),
                params,
            }),
        )
    }

    /// Closes stdin and waits up to `grace` for the server to exit; then,
    /// where the protocol's host terminates servers
    /// (`host.terminate_grace_ms`), SIGTERM and that grace; then kills it.
    pub fn close(self, grace: Duration) -> Result<ExitStatus, HostError> {
        self.end(grace).map(Ending::status)
    }

    /// [`Host::end`], with the tail of what the server wrote to stderr
    /// (the last words included: taken once the process has ended).
    pub fn end_with_stderr(self, grace: Duration) -> Result<(Ending, String), HostError> {
        let kept = Arc::clone(&self.stderr);
        let ending = self.end(grace)?;
        // Give the stderr reader a moment to collect what came last.
        thread::sleep(Duration::from_millis(20));
        let tail = kept
            .lock()
            .map(|bytes| bytes.iter().copied().collect::<Vec<u8>>())
            .unwrap_or_default();
        Ok((ending, String::from_utf8_lossy(&tail).into_owned()))
    }

    /// [`Host::close`], saying how the server ended.
    pub fn end(mut self, grace: Duration) -> Result<Ending, HostError> {
        drop(self.writer.take());
        let terminate = self
            .protocol
            .manifest()
            .host
            .as_ref()
            .and_then(|h| h.terminate_grace());
        end_process(&mut self.child, grace, terminate)
            .map_err(|e| HostError::new(HostErrorKind::Io, e.to_string()))
    }

    fn send_request(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<(Id, Instant), HostError> {
        let spec = self
            .protocol
            .method(method)
            .filter(|s| s.kind == MethodKind::Request)
            .cloned();
        let Some(spec) = spec else {
            let message = format!(
                "not sent: `{method}` is not a request of {}",
                self.protocol.id()
            );
            return Err(HostError::new(HostErrorKind::UnknownMethod, message));
        };
        self.session
            .check(method)
            .map_err(|v| HostError::lifecycle(&v))?;
        self.check_params(method, params.as_ref())?;
        self.session
            .check_rules(method, params.as_ref())
            .map_err(|v| HostError::lifecycle(&v))?;
        let id = Id::from(self.next_id);
        self.next_id += 1;
        let request = Message::Request(Request {
            id: id.clone(),
            method: method.to_owned(),
            params,
        });
        let timeout = self
            .timeout_override
            .or(spec.timeout_ms.map(Duration::from_millis))
            .unwrap_or(DEFAULT_TIMEOUT);
        self.send(method, &request)?;
        Ok((id, Instant::now() + timeout))
    }

    /// Refuses params that fail the method's schema, before anything is sent.
    fn check_params(&self, method: &str, params: Option<&Value>) -> Result<(), HostError> {
        let issues = self.protocol.validate(method, Part::Params, params);
        if issues.is_empty() {
            Ok(())
        } else {
            Err(HostError::issues(
                HostErrorKind::InvalidParams,
                method,
                issues,
            ))
        }
    }

    pub(super) fn send(&mut self, method: &str, message: &Message) -> Result<(), HostError> {
        let body = self
            .protocol
            .manifest()
            .transport
            .encode(message)
            .map_err(|e| HostError::new(HostErrorKind::Envelope, e.to_string()))?;
        let Some(writer) = self.writer.as_mut() else {
            return Err(HostError::new(
                HostErrorKind::Exited,
                "the host has closed the server's stdin",
            ));
        };
        match writer.write_frame(&body) {
            Ok(()) => Ok(()),
            Err(error) => Err(self.died(
                HostErrorKind::Exited,
                format!("cannot send `{method}`: {error}"),
            )),
        }
    }

    pub(super) fn next_frame(
        &mut self,
        method: &str,
        deadline: Instant,
    ) -> Result<Result<Frame, FramingError>, HostError> {
        let timeout = deadline.saturating_duration_since(Instant::now());
        match self.incoming.recv_timeout(timeout) {
            Ok(Incoming::Frame(frame, bytes)) => {
                self.record(&bytes);
                Ok(frame)
            }
            Ok(Incoming::Closed(error, bytes)) => {
                self.record(&bytes);
                let why = error.map_or_else(String::new, |e| format!(": {e}"));
                Err(self.died(
                    HostErrorKind::Exited,
                    format!("the server closed its stdout before answering `{method}`{why}"),
                ))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.died(
                HostErrorKind::Exited,
                format!("the server closed its stdout before answering `{method}`"),
            )),
            Err(RecvTimeoutError::Timeout) => Err(self.timed_out(method, deadline)),
        }
    }

    pub(super) fn decode(&self, frame: &Frame) -> Result<Message, HostError> {
        envelope::decode(frame.body().as_bytes(), &self.envelope).map_err(|e| {
            HostError::new(
                HostErrorKind::Envelope,
                format!("the server sent an invalid envelope: {}", e.message()),
            )
        })
    }

    /// Checks a notification from the server (a server-to-client
    /// notification of the protocol, its params' schema, the session's
    /// state and rules) and queues it, or the reason it was refused.
    pub(super) fn on_notification(&mut self, notification: Notification) {
        let mut checked = self.check_notification(notification);
        if let Ok(notification) = &checked {
            if let Err(error) = self.follow_data_stream(notification.params.as_ref()) {
                checked = Err(error.with_refused(notification.clone()));
            }
        }
        if self.notifications.len() == NOTIFICATIONS_KEPT {
            self.notifications.pop_front();
            self.dropped_notifications += 1;
        }
        self.notifications.push_back(checked);
    }

    fn check_notification(
        &mut self,
        notification: Notification,
    ) -> Result<Notification, HostError> {
        let method = notification.method.as_str();
        let known = self.protocol.method(method).is_some_and(|spec| {
            spec.kind == MethodKind::Notification && spec.direction.server_sends()
        });
        if !known {
            return Err(HostError::notification(
                &notification,
                format!(
                    "`{method}` is not a server notification of {}",
                    self.protocol.id()
                ),
                Vec::new(),
            ));
        }
        let issues = self
            .protocol
            .validate(method, Part::Params, notification.params.as_ref());
        if !issues.is_empty() {
            let listed: Vec<String> = issues.iter().map(ToString::to_string).collect();
            let message = format!("invalid params for `{method}`: {}", listed.join("; "));
            return Err(HostError::notification(&notification, message, issues));
        }
        if let Err(violation) = self
            .session
            .notify_from_server(method, notification.params.as_ref())
        {
            let mut message = format!("`{method}` refused: {}", violation.answer().message);
            if let Some(pointer) = violation.pointer() {
                message.push_str(&format!(" (at {pointer})"));
            }
            return Err(HostError::notification(&notification, message, Vec::new()));
        }
        Ok(notification)
    }

    pub(super) fn kill_for_timeout(&mut self, method: &str, deadline: Instant) -> HostError {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let limit = self.limit_of(method);
        let _ = deadline;
        self.outstanding.clear();
        self.session.end_because(format!(
            "`{method}` got no answer in time and the server was killed"
        ));
        HostError::timeout(method, limit).with_stderr(self.stderr_tail())
    }

    pub(super) fn died(&mut self, kind: HostErrorKind, message: String) -> HostError {
        // Give the stderr reader a moment to collect the last words.
        let _ = self.child.try_wait();
        thread::sleep(Duration::from_millis(20));
        self.session
            .end_because(format!("the server failed: {message}"));
        HostError::new(kind, message).with_stderr(self.stderr_tail())
    }

    fn stderr_tail(&self) -> String {
        let kept = self
            .stderr
            .lock()
            .map(|bytes| bytes.iter().copied().collect::<Vec<u8>>())
            .unwrap_or_default();
        String::from_utf8_lossy(&kept).into_owned()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The program and its arguments as a person types them.
fn command_line(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|part| part.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}
