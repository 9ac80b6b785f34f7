//! Checking a captured session: the messages of both directions in one
//! stream, in the order they passed. Every frame keeps one number (a
//! framing fault counts as a frame). Client messages are checked against
//! their schemas, the lifecycle and the rules; each one the protocol
//! refuses is owed the protocol's error answer (see [`super::refusal`]),
//! and the answers are judged in [`super::answers`]. The session state
//! follows what the server actually answered.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use super::problem::{Problem, ProblemKind};
use super::refusal::Refusal;
use crate::capture::Sender;
use crate::envelope::{self, EnvelopeError, EnvelopeOptions, Message, Request};
use crate::framing::{FaultKind, Frame, FramingError};
use crate::protocol::{CancelledAnswer, Direction, EnforcedBy, MethodKind, UnreadableId};
use crate::session::{Session, ViolationKind};
use crate::validate::{Part, Protocol, ValidationIssue};

/// Client notifications remembered for a server that answers them.
const NOTIFICATIONS_KEPT: usize = 16;
/// Refused frames remembered while their answers are owed.
const OWED_KEPT: usize = 1024;
/// Answered request ids remembered to tell a second answer from an unknown id.
const ANSWERED_KEPT: usize = 4096;
/// The bytes of an answer besides its id and outcome: `{"id":,"jsonrpc":"2.0",}`.
const ENVELOPE_WITHOUT_ID: usize = 23;
/// The shortest outcome: `"result":{}`.
const SHORTEST_RESULT: usize = 11;

/// The key of a pending request: its id as JSON text, marked when the
/// server sent it.
pub(super) fn pending_key(id: &str, from_server: bool) -> String {
    if from_server {
        format!("server:{id}")
    } else {
        id.to_owned()
    }
}

/// A request waiting for its answer.
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) method: String,
    pub(super) frame: usize,
    /// Why the protocol refuses it, when it does: the answer must be that
    /// error, and a result is an acceptance the monitor reports.
    pub(super) refusal: Option<Refusal>,
    /// Whether its success was presumed (a notification it allows came
    /// before its response crossed the capture) and already moved the state.
    pub(super) presumed: bool,
    /// A request the server sent (declared `server-to-client`).
    pub(super) from_server: bool,
    /// The session before its success was presumed for a client's request
    /// sent before its answer (`driver.capabilities` right behind
    /// `driver.hello`): its real answer is applied to that session.
    pub(super) before: Option<Box<Session>>,
    /// The pending request whose presumed success this one was judged in.
    pub(super) depends_on: Option<String>,
    /// Cancelled by the protocol's cancellation notification.
    pub(super) cancelled: bool,
}

/// A frame that could not be read as a message (a framing fault, a body
/// that is no JSON, a refused envelope): the protocol answers it with an
/// error, with the recovered id or `null`.
#[derive(Debug)]
pub(super) struct Owed {
    pub(super) frame: usize,
    /// The recovered id (as JSON text), or `null`.
    pub(super) key: String,
    pub(super) refusal: Refusal,
    /// A request whose id itself was invalid.
    pub(super) invalid_id: bool,
}

/// A request already answered: its method, its frame and its answer's.
#[derive(Debug, Clone)]
pub(super) struct Answered {
    pub(super) method: String,
    pub(super) request: usize,
    pub(super) answer: usize,
}

/// Watches a session frame by frame and collects its problems: feed each
/// frame (or framing fault) to [`SessionChecker::on_frame`] as it comes,
/// read [`SessionChecker::problems`] at any time, and call
/// [`SessionChecker::finish`] at the end of the capture.
#[derive(Debug)]
pub struct SessionChecker {
    pub(super) protocol: Arc<Protocol>,
    pub(super) session: Session,
    envelope: EnvelopeOptions,
    pub(super) pending: HashMap<String, Pending>,
    pub(super) answered: HashMap<String, Answered>,
    answered_order: VecDeque<String>,
    streaming: Option<String>,
    pub(super) owed: VecDeque<Owed>,
    /// Client notifications (frame, method) not yet answered by mistake.
    pub(super) notifications: VecDeque<(usize, String)>,
    /// Whether the frame at hand is the server's side of an exchange the
    /// server started (its own request or notification, or the client's
    /// answer to its request): the blame of a problem swaps peers.
    pub(super) server_side: bool,
    /// Who sent the frame at hand, where the capture's sides file says.
    pub(super) sender: Option<Sender>,
    /// The frame at which the session ended.
    ended_at: Option<usize>,
    frames: usize,
    finished: bool,
    pub(super) problems: Vec<Problem>,
    /// The params of the client's capability method, where the manifest
    /// has value sets (`value_sets.rs`).
    pub(super) announcement: Option<Value>,
}

impl SessionChecker {
    /// A checker for a session of `protocol`, from its start.
    pub fn new(protocol: Arc<Protocol>) -> Self {
        let transport = &protocol.manifest().transport;
        let envelope = transport.envelope_options();
        SessionChecker {
            session: Session::new(Arc::clone(&protocol)),
            protocol,
            envelope,
            pending: HashMap::new(),
            answered: HashMap::new(),
            answered_order: VecDeque::new(),
            streaming: None,
            owed: VecDeque::new(),
            notifications: VecDeque::new(),
            server_side: false,
            sender: None,
            ended_at: None,
            frames: 0,
            finished: false,
            problems: Vec::new(),
            announcement: None,
        }
    }

    /// The problems found so far, in the order they were found.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The session as the checker sees it: it follows what the server
    /// answered (a request the server accepted moves the state even when
    /// the protocol refuses it).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// How many frames (framing faults included) were taken so far.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// The frame at which the session ended, once it has.
    pub fn ended_at(&self) -> Option<usize> {
        self.ended_at
    }

    /// Takes the next frame of the capture, or a framing fault (which
    /// counts as a frame); who sent it is inferred from its method's
    /// direction.
    pub fn on_frame(&mut self, frame: Result<Frame, FramingError>) {
        self.on_frame_from(frame, None);
    }

    /// Takes the next frame, sent by `sender` where it is known (the
    /// capture's sides file, [`crate::capture`]): its direction is then
    /// checked ([`ProblemKind::WrongDirection`]) and answers are matched to
    /// the other peer's requests.
    pub fn on_frame_from(&mut self, frame: Result<Frame, FramingError>, sender: Option<Sender>) {
        self.sender = sender;
        let index = self.frames;
        self.frames += 1;
        match frame {
            Ok(frame) => self.on_body(index, frame.body()),
            Err(fault) => self.on_fault(index, &fault),
        }
        if self.session.is_ended() && self.ended_at.is_none() {
            self.ended_at = Some(index);
        }
    }

    /// The capture ended: every request still owed an answer is
    /// unanswered, and a capture without frames says so. Returns every
    /// problem, ordered by frame.
    pub fn finish(&mut self) -> &[Problem] {
        if self.finished {
            return &self.problems;
        }
        self.finished = true;
        let mut pending: Vec<Pending> = self.pending.drain().map(|(_, p)| p).collect();
        pending.sort_by_key(|p| p.frame);
        let may_go_unanswered = self
            .protocol
            .manifest()
            .cancellation
            .as_ref()
            .is_some_and(|c| c.answer == CancelledAnswer::Optional);
        for request in pending {
            if request.cancelled && may_go_unanswered {
                continue;
            }
            // A request the server sent is the client's to answer.
            self.server_side = request.from_server;
            let message = match &request.refusal {
                None => format!("the `{}` request was never answered", request.method),
                Some(refusal) if refusal.required => format!(
                    "the `{}` request was never answered; the protocol refuses it with error {} ({})",
                    request.method,
                    refusal.codes(),
                    refusal.reason()
                ),
                Some(_) => continue,
            };
            self.push(request.frame, ProblemKind::Unanswered, Some("/id"), message);
        }
        self.server_side = false;
        let owed: Vec<Owed> = self.owed.drain(..).collect();
        for owed in owed.into_iter().filter(|o| o.refusal.required) {
            let message = format!(
                "the request was never answered; the protocol refuses it with error {} ({})",
                owed.refusal.codes(),
                owed.refusal.reason()
            );
            self.push(owed.frame, ProblemKind::Unanswered, Some("/id"), message);
        }
        if self.frames == 0 {
            self.push(
                0,
                ProblemKind::EmptyCapture,
                None,
                "the capture holds no frames".to_owned(),
            );
        }
        self.problems.sort_by_key(|p| p.frame);
        &self.problems
    }

    fn on_fault(&mut self, index: usize, fault: &FramingError) {
        let message = format!(
            "{} at byte {}: {}",
            fault.kind().name(),
            fault.offset(),
            fault.detail()
        );
        self.push(index, ProblemKind::Framing, None, message);
        if fault.kind() != FaultKind::EmptyFrame {
            // Either peer may have written it: its answer is matched when
            // it comes, never demanded.
            let mut refusal = Refusal::framing(&self.protocol, fault);
            refusal.required = false;
            let complete = fault.kind() != FaultKind::FrameTooLong;
            if let Some(key) = self.refused_frame_key(fault.head(), complete, None) {
                self.owe(index, key, refusal, false);
            }
        }
    }

    /// The key of the answer a refused frame is owed, as the protocol's
    /// `unreadable_id` says: the id the decoder `read`, or `null`
    /// (JSON-RPC 2.0); the id recovered from `line` as the driver
    /// protocol's reference recovers it, or no answer at all (`silent`).
    fn refused_frame_key(
        &self,
        line: &[u8],
        complete: bool,
        read: Option<&envelope::Id>,
    ) -> Option<String> {
        let key = |id: &envelope::Id| id.to_value().to_string();
        match self.protocol.manifest().transport.unreadable_id {
            UnreadableId::Null => Some(read.map_or_else(|| "null".to_owned(), key)),
            UnreadableId::Silent => envelope::recover_id(line, complete).as_ref().map(key),
        }
    }

    fn on_body(&mut self, index: usize, body: &str) {
        self.server_side = false;
        if let Some(method) = self.streaming.clone() {
            if self.on_stream_item(index, &method, body) {
                return;
            }
        }
        match envelope::decode(body.as_bytes(), &self.envelope) {
            Ok(Message::Request(request)) => self.on_request(index, request),
            Ok(Message::Notification(notification)) => {
                let method = notification.method;
                self.on_notification(index, &method, notification.params.as_ref());
            }
            Ok(Message::Response(response)) => self.on_response(index, response),
            Err(error) => self.on_refused_envelope(index, body, &error),
        }
    }

    /// A frame whose envelope the protocol refuses. A response-shaped one
    /// is the server's; any other is owed the protocol's error answer.
    fn on_refused_envelope(&mut self, index: usize, body: &str, error: &EnvelopeError) {
        let shape = serde_json::from_str::<Value>(body).ok();
        let member = |name: &str| shape.as_ref().and_then(|s| s.get(name)).is_some();
        if !member("method") && (member("result") || member("error")) {
            self.on_refused_response(index, error, member("result"));
            return;
        }
        let refusal = Refusal::envelope(&self.protocol, error);
        let message = format!(
            "{}; the protocol answers it with error {}",
            error.message(),
            refusal.codes()
        );
        self.push(index, ProblemKind::Envelope, Some(error.pointer()), message);
        let invalid_id = error.kind() == envelope::EnvelopeErrorKind::InvalidId;
        let Some(key) = self.refused_frame_key(body.as_bytes(), true, error.id()) else {
            // A silent protocol answers no frame whose id cannot be read.
            return;
        };
        let mut refusal = refusal;
        // A request (a method and an id) is owed its answer; anything else
        // may be the server's own noise. A silent protocol owes an answer
        // to every frame whose id it recovers.
        let silent = self.protocol.manifest().transport.unreadable_id == UnreadableId::Silent;
        refusal.required = (member("method") && member("id")) || silent;
        self.owe(index, key, refusal, invalid_id);
    }

    fn owe(&mut self, frame: usize, key: String, refusal: Refusal, invalid_id: bool) {
        if self.owed.len() == OWED_KEPT {
            self.owed.pop_front();
        }
        self.owed.push_back(Owed {
            frame,
            key,
            refusal,
            invalid_id,
        });
    }

    pub(super) fn remember_answered(&mut self, key: String, answered: Answered) {
        if self.answered.len() >= ANSWERED_KEPT {
            if let Some(oldest) = self.answered_order.pop_front() {
                self.answered.remove(&oldest);
            }
        }
        if self.answered.insert(key.clone(), answered).is_none() {
            self.answered_order.push_back(key);
        }
    }

    fn on_stream_item(&mut self, index: usize, method: &str, body: &str) -> bool {
        let Ok(item) = serde_json::from_str::<Value>(body) else {
            return false;
        };
        let is_envelope = item.get("jsonrpc").is_some() || item.get("method").is_some();
        if is_envelope {
            return false;
        }
        let streamed: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| p.method == method)
            .map(|(key, _)| key.clone())
            .collect();
        // A failed stream ends with its error inside a one-element array
        // (see `serve::stream_failure_body`): the request's error answer.
        if let Some(error) = crate::serve::stream_failure_of(&item) {
            for key in streamed {
                if let Some(pending) = self.pending.remove(&key) {
                    if pending.refusal.is_none() {
                        self.session.answered(method, Err(&error));
                    }
                }
            }
            self.session
                .end_because(format!("the `{method}` stream failed"));
            return true;
        }
        // The first item answers the streamed request: no envelope follows.
        for key in streamed {
            if let Some(pending) = self.pending.remove(&key) {
                if pending.refusal.is_none() {
                    self.session.answered(method, Ok(&Value::Null));
                }
                self.remember_answered(
                    key,
                    Answered {
                        method: pending.method,
                        request: pending.frame,
                        answer: index,
                    },
                );
            }
        }
        let issues = self.protocol.validate(method, Part::Item, Some(&item));
        self.report(index, ProblemKind::InvalidResult, "", &issues);
        true
    }

    fn on_request(&mut self, index: usize, request: Request) {
        let Request { id, method, params } = request;
        let spec = self
            .protocol
            .method(&method)
            .filter(|s| s.kind == MethodKind::Request)
            .cloned();
        // The server's own requests (declared `server-to-client`) number
        // their ids apart from the client's. A capture does not say who
        // sent a request both peers send (`direction: both`, MCP's `ping`):
        // it is the client's unless the client already has that id
        // pending, which it would not reuse.
        let id_text = id.to_value().to_string();
        let from_server = match self.sender {
            Some(sender) => sender == Sender::Server,
            None => spec.as_ref().is_some_and(|s| match s.direction {
                Direction::ServerToClient => true,
                Direction::ClientToServer => false,
                Direction::Both => self.pending.contains_key(&pending_key(&id_text, false)),
            }),
        };
        self.server_side = from_server;
        if self.wrong_direction(
            index,
            &method,
            "request",
            spec.as_ref().map(|s| s.direction),
        ) {
            // Awaited as the sender's request; the other peer owes no refusal.
            let key = pending_key(&id_text, from_server);
            if !self.pending.contains_key(&key) {
                self.answered.remove(&key);
                self.wait(key, &method, index, None, from_server);
            }
            return;
        }
        if let Some(why) = id.discouraged() {
            // Only a lenient protocol reads such an id; a warning, not an error.
            self.push(
                index,
                ProblemKind::DiscouragedId,
                Some("/id"),
                format!("`{method}` has the id {id}: {why}"),
            );
        }
        let key = pending_key(&id_text, from_server);
        if self.pending.contains_key(&key) {
            self.push(
                index,
                ProblemKind::DuplicateId,
                Some("/id"),
                format!("id {id} is already pending"),
            );
            return;
        }
        // The id is free again: a later answer to it is this request's.
        self.answered.remove(&key);

        let Some(spec) = spec else {
            let reason = format!("`{method}` is not a request of {}", self.protocol.id());
            self.push_undefined(
                index,
                &method,
                &reason,
                "requests are implementation-dependent and answered \"method not found\"",
            );
            let refusal = Refusal::unknown_method(&self.protocol, &method, reason);
            self.wait(key, &method, index, Some(refusal), false);
            return;
        };
        if from_server {
            // The server's own request: its params are the server's to get
            // right (blamed on it); how a client answers invalid ones is the
            // client's business, so no refusal is demanded. Its state is the
            // server's to get right too (MCP: a server sends no request but
            // `ping` before the client's `notifications/initialized`).
            if let Err(violation) = self.session.check_from_server(&method) {
                let message = match violation.kind() {
                    ViolationKind::SessionEnded => self.after_end(&method),
                    _ => violation.answer().message.clone(),
                };
                let kind = match violation.kind() {
                    ViolationKind::CapabilityNotDeclared => ProblemKind::Capability,
                    _ => ProblemKind::Lifecycle,
                };
                self.push(index, kind, Some("/method"), message);
            }
            let issues = self
                .protocol
                .validate(&method, Part::Params, params.as_ref());
            self.report(index, ProblemKind::InvalidParams, "/params", &issues);
            if issues.is_empty() {
                self.check_value_sets(index, &method, "/params", params.as_ref());
            }
            self.wait(key, &method, index, None, true);
            return;
        }
        let streamed = spec.result_stream.is_some();
        let mut refusal: Option<Refusal> = None;
        // A rule the protocol binds on the sender only (`enforcement`): the
        // client's fault is reported, but the server owes no refusal.
        let enforcement = self.protocol.manifest().enforcement;
        let mut broke_a_rule = false;
        // A request right behind one that moves the session, sent before
        // its answer: a server reads its input in order, so it is judged in
        // the state that request's success reaches (corrected when the
        // answer says otherwise, see answers.rs).
        let mut checked = self.session.check(&method);
        let mut depends_on = None;
        if checked
            .as_ref()
            .is_err_and(|v| v.kind() == ViolationKind::WrongState)
        {
            if let Some(presumed) = self.presume_pending_success(&method, true) {
                checked = self.session.check(&method);
                depends_on = Some(presumed);
            }
        }
        if let Err(violation) = checked {
            let (kind, message) = match violation.kind() {
                ViolationKind::CapabilityNotDeclared => {
                    (ProblemKind::Capability, violation.answer().message.clone())
                }
                ViolationKind::SessionEnded => (ProblemKind::Lifecycle, self.after_end(&method)),
                _ => (ProblemKind::Lifecycle, violation.answer().message.clone()),
            };
            self.push(index, kind, Some("/method"), message);
            broke_a_rule = true;
            let lifecycle = !matches!(
                violation.kind(),
                ViolationKind::CapabilityNotDeclared | ViolationKind::SessionEnded
            );
            if !(lifecycle && enforcement.lifecycle == EnforcedBy::Sender) {
                let mut own = Refusal::violation(&violation);
                // After the end a server may be gone: no answer is owed.
                own.required = violation.kind() != ViolationKind::SessionEnded;
                refusal = Some(own);
            }
        }
        let issues = self
            .protocol
            .validate(&method, Part::Params, params.as_ref());
        self.report(index, ProblemKind::InvalidParams, "/params", &issues);
        self.keep_announcement(&method, params.as_ref());
        broke_a_rule |= !issues.is_empty();
        if !issues.is_empty() && enforcement.params == EnforcedBy::Receiver {
            let own = Refusal::invalid_params(&self.protocol, &method, &issues);
            refusal = Some(match refusal {
                Some(first) => first.or(own),
                None => own,
            });
        }
        if refusal.is_none() && !broke_a_rule {
            // A version mismatch is a negotiated outcome, not the client's
            // fault, but the server owes its error answer; a stateful
            // rule's failure is the client's fault.
            if let Err(violation) = self.session.admit(&method, params.as_ref()) {
                if violation.kind() == ViolationKind::Rule {
                    let pointer = violation.pointer().unwrap_or("/params").to_owned();
                    self.push(
                        index,
                        ProblemKind::Rule,
                        Some(&pointer),
                        violation.answer().message.clone(),
                    );
                }
                refusal = Some(Refusal::violation(&violation));
            }
        }
        if streamed && refusal.is_none() {
            self.streaming = Some(method.clone());
        }
        self.wait(key.clone(), &method, index, refusal, false);
        if let Some(pending) = self.pending.get_mut(&key) {
            pending.depends_on = depends_on;
        }
    }

    fn wait(
        &mut self,
        key: String,
        method: &str,
        frame: usize,
        refusal: Option<Refusal>,
        from_server: bool,
    ) {
        // An id too long for the answer to fit the frame bound (a result,
        // or the protocol's refusal with its sentence): the server drops
        // the answer (no input may end it), so none is owed.
        let outcome = refusal
            .as_ref()
            .map_or(SHORTEST_RESULT, Refusal::shortest_error_len);
        if key.len() + ENVELOPE_WITHOUT_ID + outcome
            > self.protocol.manifest().transport.frame_bound()
        {
            return;
        }
        self.pending.insert(
            key,
            Pending {
                method: method.to_owned(),
                frame,
                refusal,
                presumed: false,
                from_server,
                before: None,
                depends_on: None,
                cancelled: false,
            },
        );
    }

    /// The protocol's cancellation notification: marks the request it
    /// names (the sender's own: the client's id first, else the server's).
    fn on_cancellation(&mut self, method: &str, params: Option<&Value>) {
        let Some(cancellation) = self.protocol.manifest().cancellation.as_ref() else {
            return;
        };
        if cancellation.method != method {
            return;
        }
        let Some(id) = params.and_then(|p| p.pointer(&cancellation.id_pointer)) else {
            return;
        };
        let id = id.to_string();
        for from_server in [false, true] {
            if let Some(pending) = self.pending.get_mut(&pending_key(&id, from_server)) {
                pending.cancelled = true;
                return;
            }
        }
    }

    /// Whether the frame at hand, of a method sent `direction`, came from
    /// the peer that direction does not allow (known only from a sides
    /// file); if so, reports it as the sender's [`ProblemKind::WrongDirection`].
    fn wrong_direction(
        &mut self,
        index: usize,
        method: &str,
        what: &str,
        direction: Option<Direction>,
    ) -> bool {
        let (Some(sender), Some(direction)) = (self.sender, direction) else {
            return false;
        };
        let allowed = match sender {
            Sender::Client => direction.client_sends(),
            Sender::Server => direction.server_sends(),
        };
        if allowed {
            return false;
        }
        let message = format!(
            "the {} sent the `{method}` {what}, which is {} in {}",
            sender.name(),
            direction.name(),
            self.protocol.id()
        );
        self.push(index, ProblemKind::WrongDirection, Some("/method"), message);
        true
    }

    /// "`analyze` came after the session ended at frame 7 when `shutdown`
    /// was answered".
    fn after_end(&self, method: &str) -> String {
        let at = self
            .ended_at
            .map_or_else(String::new, |frame| format!(" at frame {frame}"));
        match self.session.ended_by() {
            Some(why) => format!("`{method}` came after the session ended{at} when {why}"),
            None => format!("`{method}` came after the session ended{at}"),
        }
    }

    fn on_notification(&mut self, index: usize, method: &str, params: Option<&Value>) {
        let protocol = Arc::clone(&self.protocol);
        let spec = protocol.method(method);
        let from_server = match self.sender {
            Some(sender) => sender == Sender::Server,
            None => spec.is_some_and(|s| s.direction == Direction::ServerToClient),
        };
        self.server_side = from_server;
        let direction = spec.map(|s| s.direction);
        if self.wrong_direction(index, method, "notification", direction) {
            return;
        }
        if !from_server {
            if self.notifications.len() == NOTIFICATIONS_KEPT {
                self.notifications.pop_front();
            }
            self.notifications.push_back((index, method.to_owned()));
        }
        if spec
            .filter(|s| s.kind == MethodKind::Notification)
            .is_none()
        {
            let reason = format!("`{method}` is not a notification of {}", self.protocol.id());
            self.push_undefined(
                index,
                method,
                &reason,
                "notifications are implementation-dependent and may be ignored",
            );
            return;
        }
        let issues = self.protocol.validate(method, Part::Params, params);
        self.report(index, ProblemKind::InvalidParams, "/params", &issues);
        if !issues.is_empty() {
            return;
        }
        if from_server {
            self.check_value_sets(index, method, "/params", params);
        }
        self.on_cancellation(method, params);
        let notify = |session: &mut Session| {
            if from_server {
                session.notify_from_server(method, params)
            } else {
                session.notify(method, params)
            }
        };
        let mut outcome = notify(&mut self.session);
        if outcome
            .as_ref()
            .is_err_and(|v| v.kind() == ViolationKind::WrongState)
            && self.presume_pending_success(method, false).is_some()
        {
            outcome = notify(&mut self.session);
        }
        if let Err(violation) = outcome {
            let kind = match violation.kind() {
                ViolationKind::Rule => ProblemKind::Rule,
                ViolationKind::CapabilityNotDeclared => ProblemKind::Capability,
                _ => ProblemKind::Lifecycle,
            };
            let message = if violation.kind() == ViolationKind::SessionEnded {
                self.after_end(method)
            } else {
                violation.answer().message.clone()
            };
            let pointer = violation.pointer().unwrap_or("/method").to_owned();
            self.push(index, kind, Some(&pointer), message);
        }
    }

    /// A message came in a state that a pending request's success would
    /// have reached: the two pipes of a capture interleave loosely, so the
    /// response may still be on its way (a notification), or the client
    /// sent it right behind the request (a request). Presumes that success
    /// (once); the presumed request's key. With `keep_before` (a request
    /// behind it) the session before the presumption is kept on the
    /// pending request, for its real answer to replace the presumption.
    fn presume_pending_success(&mut self, notification: &str, keep_before: bool) -> Option<String> {
        let allowed = |state: &str| {
            self.protocol
                .method(notification)
                .and_then(|s| s.lifecycle.as_ref())
                .is_some_and(|l| {
                    l.allowed_in.is_empty() || l.allowed_in.iter().any(|s| s == "*" || s == state)
                })
        };
        let leads_there = |method: &str| {
            self.protocol
                .method(method)
                .and_then(|s| s.lifecycle.as_ref())
                .and_then(|l| l.on_success.as_deref())
                .is_some_and(allowed)
        };
        let candidate = self
            .pending
            .iter()
            .filter(|(_, p)| {
                p.refusal.is_none() && !p.presumed && !p.from_server && leads_there(&p.method)
            })
            .min_by_key(|(_, p)| p.frame)
            .map(|(key, _)| key.clone());
        let key = candidate?;
        let before = keep_before.then(|| Box::new(self.session.clone()));
        let pending = self.pending.get_mut(&key)?;
        pending.presumed = true;
        pending.before = before;
        let method = pending.method.clone();
        self.session.answered(&method, Ok(&Value::Null));
        Some(key)
    }

    pub(super) fn report(
        &mut self,
        index: usize,
        kind: ProblemKind,
        prefix: &str,
        issues: &[ValidationIssue],
    ) {
        for issue in issues {
            self.push(
                index,
                kind,
                Some(&format!("{prefix}{}", issue.instance_path)),
                format!("{} [{}]", issue.message, issue.keyword()),
            );
        }
    }

    /// A method the protocol does not define: `unknown_method`, or under
    /// the prefix the protocol leaves to implementations (LSP's `$/`) the
    /// warning `implementation_dependent`, its `reason` followed by `rule`.
    fn push_undefined(&mut self, index: usize, method: &str, reason: &str, rule: &str) {
        let prefix = self
            .protocol
            .manifest()
            .implementation_dependent_prefix
            .clone()
            .filter(|prefix| method.starts_with(prefix.as_str()));
        let (kind, message) = match prefix {
            Some(prefix) => (
                ProblemKind::ImplementationDependent,
                format!("{reason}; `{prefix}` {rule}"),
            ),
            None => (ProblemKind::UnknownMethod, reason.to_owned()),
        };
        self.push(index, kind, Some("/method"), message);
    }

    pub(super) fn push(
        &mut self,
        index: usize,
        kind: ProblemKind,
        pointer: Option<&str>,
        message: String,
    ) {
        self.push_related(index, kind, pointer, message, None);
    }

    pub(super) fn push_related(
        &mut self,
        index: usize,
        kind: ProblemKind,
        pointer: Option<&str>,
        message: String,
        related: Option<usize>,
    ) {
        let party = kind.party();
        let blame = if self.server_side {
            party.other()
        } else {
            party
        };
        self.problems.push(Problem {
            frame: index,
            kind,
            severity: kind.severity(),
            pointer: pointer.map(str::to_owned),
            message,
            blame,
            related,
        });
    }
}
