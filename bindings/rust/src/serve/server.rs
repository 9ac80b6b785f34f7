//! The serve loop: frame, decode, check the lifecycle, validate params,
//! dispatch, validate the result, encode, write. The core is I/O-free
//! ([`Server::on_frame`] turns one incoming frame into the bytes to send);
//! [`Server::serve`] runs it over a reader and a writer, and
//! [`Server::serve_batched`] over a pipe, answers to pipelined requests
//! sharing writes.

use std::io::{Read, Write};
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::Value;

use super::bound::{over_bound, stream_failure, stream_failure_body};
use super::fault::RuntimeFault;
use super::handler::Handler;
use super::wire::{Wire, WireError};
use crate::envelope::{
    self, Decoded, EnvelopeOptions, ErrorCode, ErrorObject, Id, Message, Notification, Request,
    Response,
};
use crate::framing::{FaultKind, Frame, FrameLimits, FrameReader, FramingError, ReadError};
use crate::protocol::{MethodKind, MethodSpec, UnreadableId};
use crate::session::Session;
use crate::validate::{invalid_result_refused, invalid_result_warning, Part, Protocol};

pub(super) mod concurrent;
mod params_text;

/// What to do with a result (or streamed item) that fails its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResultCheck {
    /// Answer -32603 with the failing pointers in `data` (the default).
    #[default]
    Reject,
    /// Send it anyway and log a warning.
    Warn,
}

/// Serve-loop settings.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServeOptions {
    /// What to do with an invalid result.
    pub result_check: ResultCheck,
}

/// Whether the loop goes on after a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next frame.
    Continue,
    /// The session is over (shutdown answered, a fatal error, a closed stream).
    Stop,
}

/// How a serve loop ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServeOutcome {
    /// The session ended as the protocol says (shutdown, a streamed result).
    Ended,
    /// The input closed first.
    EndOfInput,
    /// A framing fault lost the stream.
    FramingLost(String),
}

/// Whether a request passed the checks before its handler.
pub(super) enum Admission {
    /// It did: the handler answers it.
    Admitted(Admitted),
    /// It was answered (refused) already; the loop goes on as `Flow` says.
    Refused(Flow),
}

/// A request that passed every check before its handler.
pub(super) struct Admitted {
    pub(super) id: Id,
    pub(super) method: String,
    pub(super) params: Option<Value>,
    /// Whether its result is streamed (`result_stream`).
    pub(super) streamed: bool,
}

/// Receives warnings (invalid results in warn mode, ignored messages).
pub type Logger = dyn FnMut(&str) + Send;

/// A protocol server's state between frames.
pub struct Server {
    protocol: Arc<Protocol>,
    session: Session,
    envelope: EnvelopeOptions,
    wire: Wire,
    options: ServeOptions,
    logger: Box<Logger>,
}

impl Server {
    /// A server for `protocol`, logging to stderr.
    pub fn new(protocol: Arc<Protocol>, options: ServeOptions) -> Self {
        let transport = &protocol.manifest().transport;
        let envelope = transport.envelope_options();
        Server {
            wire: Wire::new(transport),
            session: Session::new(Arc::clone(&protocol)),
            protocol,
            envelope,
            options,
            logger: Box::new(|line| eprintln!("wirekit: {line}")),
        }
    }

    /// Sends warnings somewhere other than stderr.
    pub fn with_logger(mut self, logger: Box<Logger>) -> Self {
        self.logger = logger;
        self
    }

    /// The session (state, declared capabilities).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The frame limits this server reads with.
    pub fn limits(&self) -> FrameLimits {
        self.protocol.manifest().transport.frame_limits()
    }

    /// Serves `input` until the session ends or the input closes, writing
    /// (and flushing) each answer as it is made.
    /// [`Server::serve_batched`] writes fewer times to a pipelining client.
    pub fn serve<H: Handler + ?Sized, R: Read, W: Write>(
        &mut self,
        handler: &mut H,
        input: R,
        mut output: W,
    ) -> std::io::Result<ServeOutcome> {
        self.serve_frames(handler, input, |bytes, _| {
            output.write_all(bytes)?;
            output.flush()
        })
    }

    /// The loop of [`Server::serve`] and [`Server::serve_batched`]: `send`
    /// gets each whole frame to write, and whether the input holds bytes
    /// read past the frame being answered.
    pub(super) fn serve_frames<H: Handler + ?Sized, R: Read>(
        &mut self,
        handler: &mut H,
        input: R,
        mut send: impl FnMut(&[u8], bool) -> std::io::Result<()>,
    ) -> std::io::Result<ServeOutcome> {
        let framing = self.protocol.manifest().transport.framing;
        let mut reader = FrameReader::new(input, framing, self.limits());
        loop {
            let frame = match reader.read_frame() {
                Ok(Some(frame)) => Ok(frame),
                Ok(None) => return Ok(ServeOutcome::EndOfInput),
                Err(ReadError::Io(error)) => return Err(error),
                Err(ReadError::Framing(fault)) => Err(fault),
            };
            let lost = frame
                .as_ref()
                .err()
                .filter(|fault| ends_stream(framing, fault))
                .map(ToString::to_string);
            let read_ahead = reader.has_read_ahead();
            let flow = self.on_frame(handler, frame, &mut |bytes| send(bytes, read_ahead))?;
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

    /// Handles one incoming frame (or framing fault), sending what it
    /// answers through `send` (whole frames).
    pub fn on_frame<H: Handler + ?Sized>(
        &mut self,
        handler: &mut H,
        frame: Result<Frame, FramingError>,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        let frame = match frame {
            Ok(frame) => frame,
            Err(fault) => return self.on_framing_fault(&fault, send),
        };
        let body = frame.body();
        if handler.reads_params_text() {
            return match envelope::decode_keeping_params(body, &self.envelope) {
                Ok(Decoded::Kept(request)) => {
                    let flow = self.on_kept_request(handler, request, body, send)?;
                    self.after_request(handler, flow, send)
                }
                Ok(Decoded::Message(message)) => self.on_decoded(handler, body, Ok(message), send),
                Err(error) => self.on_decoded(handler, body, Err(error), send),
            };
        }
        // The frame's body is UTF-8 already.
        self.on_decoded(
            handler,
            body,
            envelope::decode_str(body, &self.envelope),
            send,
        )
    }

    /// Answers a frame the framing refused, as the protocol says; whether
    /// the session goes on.
    pub(super) fn on_framing_fault(
        &mut self,
        fault: &FramingError,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        if fault.kind() == FaultKind::EmptyFrame {
            return Ok(Flow::Continue);
        }
        let framing = self.protocol.manifest().transport.framing;
        let error = self.protocol.framing_answer(fault);
        let fatal = self.ends_session(error.code);
        let complete = fault.kind() != FaultKind::FrameTooLong;
        match self.refused_frame_id(fault.head(), complete, None) {
            Some(id) => {
                self.send(&Message::Response(Response::error(id, error)), send)?;
            }
            None => self.log_unanswered(&error),
        }
        Ok(if fatal || ends_stream(framing, fault) {
            Flow::Stop
        } else {
            Flow::Continue
        })
    }

    /// The id to answer a refused frame with, as the protocol's
    /// `unreadable_id` says: `Some(None)` is an answer with `"id": null`
    /// (JSON-RPC 2.0, with the id the decoder `read` when it read one),
    /// `Some(Some(id))` an answer with the id recovered from `line` as the
    /// driver protocol's reference recovers it, `None` no answer at all.
    fn refused_frame_id(
        &self,
        line: &[u8],
        complete: bool,
        read: Option<&Id>,
    ) -> Option<Option<Id>> {
        match self.protocol.manifest().transport.unreadable_id {
            UnreadableId::Null => Some(read.cloned()),
            UnreadableId::Silent => envelope::recover_id(line, complete).map(Some),
        }
    }

    /// The line a silent protocol logs instead of answering a frame whose
    /// id cannot be read.
    fn log_unanswered(&mut self, error: &ErrorObject) {
        (self.logger)(&format!(
            "left a frame unanswered: its request id cannot be read ({} {}); {} answers no such frame",
            error.code,
            error.message,
            self.protocol.id()
        ));
    }

    /// Handles one decoded body (or its envelope fault).
    fn on_decoded<H: Handler + ?Sized>(
        &mut self,
        handler: &mut H,
        body: &str,
        decoded: Result<Message, envelope::EnvelopeError>,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        let message = match decoded {
            Ok(message) => message,
            Err(error) => return self.on_envelope_error(body, &error, send),
        };
        match message {
            Message::Request(request) => {
                let flow = self.on_request(handler, request, send)?;
                self.after_request(handler, flow, send)
            }
            Message::Notification(notification) => {
                self.on_notification(handler, notification);
                // What the handler queued while handling it goes out now, not
                // after the next answer (an LSP server's diagnostics for `didOpen`).
                self.send_notifications(handler, send)?;
                Ok(self.flow())
            }
            Message::Response(response) => {
                let id = response
                    .id
                    .as_ref()
                    .map_or_else(|| "null".to_owned(), ToString::to_string);
                (self.logger)(&format!(
                    "ignored a response (id {id}) from the client: this server sends no requests"
                ));
                Ok(Flow::Continue)
            }
        }
    }

    /// Answers a body the envelope refused, as the protocol says; whether
    /// the session goes on.
    pub(super) fn on_envelope_error(
        &mut self,
        body: &str,
        error: &envelope::EnvelopeError,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        let answer = self.protocol.envelope_answer(error);
        let fatal = self.ends_session(answer.code);
        match self.refused_frame_id(body.as_bytes(), true, error.id()) {
            Some(id) => {
                self.send(&Message::Response(Response::error(id, answer)), send)?;
            }
            None => self.log_unanswered(&answer),
        }
        if fatal {
            self.session.end();
            return Ok(Flow::Stop);
        }
        Ok(Flow::Continue)
    }

    /// After a request's answer: the handler's queued notifications, then
    /// whether the session goes on.
    fn after_request<H: Handler + ?Sized>(
        &mut self,
        handler: &mut H,
        flow: Flow,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        self.send_notifications(handler, send)?;
        Ok(if self.session.is_ended() {
            Flow::Stop
        } else {
            flow
        })
    }

    /// `method`'s spec when it is a request the client sends (one the
    /// server answers); `None` answers -32601.
    pub(super) fn request_spec(&self, method: &str) -> Option<&MethodSpec> {
        self.protocol
            .method(method)
            .filter(|spec| spec.kind == MethodKind::Request && spec.direction.client_sends())
    }

    /// Whether `method` (a request, not streamed) is answered through
    /// `Handler::handle_encoded`: the handler answers it encoded, and it is
    /// neither the method that declares capabilities nor one of a
    /// canonical protocol (those keep the `Value` path).
    fn encoded_answer<H: Handler + ?Sized>(&self, handler: &H, method: &str) -> bool {
        self.may_encode(method, handler.answers_encoded(method))
    }

    /// Whether a handler that `answers_encoded` `method` answers it
    /// encoded (both loops' rule).
    pub(super) fn may_encode(&self, method: &str, answers_encoded: bool) -> bool {
        let manifest = self.protocol.manifest();
        let declares_capabilities = manifest
            .capabilities
            .as_ref()
            .is_some_and(|c| c.method == method);
        answers_encoded && !manifest.transport.canonical && !declares_capabilities
    }

    fn on_request<H: Handler + ?Sized>(
        &mut self,
        handler: &mut H,
        request: Request,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        let admitted =
            match self.admit_request(&|method| handler.implements(method), request, send)? {
                Admission::Admitted(admitted) => admitted,
                Admission::Refused(flow) => return Ok(flow),
            };
        let Admitted {
            id,
            method,
            params,
            streamed,
        } = admitted;
        if streamed {
            return self.stream(handler, &id, &method, params, send);
        }
        if self.encoded_answer(handler, &method) {
            let answer = handler.handle_encoded(&method, params);
            return self.answer_encoded(&id, &method, answer, send);
        }
        let outcome = handler.handle(&method, params);
        self.finish(&id, &method, outcome, send)
    }

    /// Every check a request passes before a handler sees it, in the
    /// documented order: a method the client may send, the params (first
    /// for a strict envelope), the lifecycle, the session's admission
    /// (negotiation, stateful rules), a handler that implements it. A
    /// refused request is answered here.
    pub(super) fn admit_request(
        &mut self,
        implements: &dyn Fn(&str) -> bool,
        request: Request,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Admission> {
        let Request { id, method, params } = request;
        let refused = Admission::Refused;
        let Some(streamed) = self
            .request_spec(&method)
            .map(|spec| spec.result_stream.is_some())
        else {
            let answer = self.protocol.method_not_found_answer(&method);
            return self.answer(&id, &method, Err(answer), send).map(refused);
        };
        // A strict envelope's params are part of the frame (the driver
        // protocol's reference decodes them with it): checked before the
        // lifecycle, as that decoder does; else after it.
        let params_first = self.envelope.strict;
        if params_first {
            if let Some(flow) = self.refuse_params(&id, &method, params.as_ref(), streamed, send)? {
                return Ok(refused(flow));
            }
        }
        if let Err(violation) = self.session.check(&method) {
            if streamed {
                let answer = violation.answer().clone();
                return self.fail_stream(&id, &method, 0, answer, send).map(refused);
            }
            let flow = self.answer(&id, &method, Err(violation.answer().clone()), send)?;
            return Ok(refused(if violation.ends_session() {
                Flow::Stop
            } else {
                flow
            }));
        }
        if !params_first {
            if let Some(flow) = self.refuse_params(&id, &method, params.as_ref(), streamed, send)? {
                return Ok(refused(flow));
            }
        }
        if let Err(violation) = self.session.admit(&method, params.as_ref()) {
            if streamed {
                let answer = violation.answer().clone();
                return self.fail_stream(&id, &method, 0, answer, send).map(refused);
            }
            self.answer(&id, &method, Err(violation.answer().clone()), send)?;
            if violation.ends_session() {
                self.session.end();
                return Ok(refused(Flow::Stop));
            }
            return Ok(refused(Flow::Continue));
        }
        if !implements(&method) {
            let answer = self.protocol.method_not_found_answer(&method);
            if streamed {
                return self.fail_stream(&id, &method, 0, answer, send).map(refused);
            }
            return self.answer(&id, &method, Err(answer), send).map(refused);
        }
        Ok(Admission::Admitted(Admitted {
            id,
            method,
            params,
            streamed,
        }))
    }

    /// Answers an admitted request with its handler's outcome: a result
    /// checked against its schema (refused or sent with a warning, as the
    /// options say), an error checked against the protocol's errors.
    pub(super) fn finish(
        &mut self,
        id: &Id,
        method: &str,
        outcome: Result<Value, ErrorObject>,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        let outcome = match outcome {
            Ok(result) => {
                let issues = self.protocol.validate(method, Part::Result, Some(&result));
                match (issues.is_empty(), self.options.result_check) {
                    (true, _) => Ok(result),
                    (false, ResultCheck::Reject) => {
                        (self.logger)(&invalid_result_refused(method, Part::Result, &issues));
                        Err(self
                            .protocol
                            .invalid_result_answer(method, Part::Result, &issues))
                    }
                    (false, ResultCheck::Warn) => {
                        (self.logger)(&invalid_result_warning(method, Part::Result, &issues));
                        Ok(result)
                    }
                }
            }
            Err(error) => Err(self.checked_error(method, error)),
        };
        self.answer(id, method, outcome, send)
    }

    /// Answers `method`'s params with the protocol's invalid-params error
    /// when they fail their schema (`Some(flow)`), else `None`.
    fn refuse_params(
        &mut self,
        id: &Id,
        method: &str,
        params: Option<&Value>,
        streamed: bool,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Option<Flow>> {
        let issues = self.protocol.validate(method, Part::Params, params);
        if issues.is_empty() {
            return Ok(None);
        }
        let error = self.protocol.invalid_params_answer(method, &issues);
        if streamed {
            return self.fail_stream(id, method, 0, error, send).map(Some);
        }
        self.answer(id, method, Err(error), send).map(Some)
    }

    /// A handler's error, checked against the protocol's error schemas: one
    /// that breaks them is replaced (reject mode) by the protocol's
    /// method-not-found answer when it was a -32601, else by its internal
    /// error, or sent with a warning (warn mode).
    fn checked_error(&mut self, method: &str, error: ErrorObject) -> ErrorObject {
        let issues = self.protocol.validate_error_of(Some(method), &error);
        if issues.is_empty() {
            return error;
        }
        match self.options.result_check {
            ResultCheck::Reject if error.code == ErrorCode::METHOD_NOT_FOUND.0 => {
                self.protocol.method_not_found_answer(method)
            }
            ResultCheck::Reject => {
                (self.logger)(&RuntimeFault::invalid(method, Part::ErrorData, &issues).line());
                self.protocol
                    .invalid_result_answer(method, Part::ErrorData, &issues)
            }
            ResultCheck::Warn => {
                (self.logger)(&invalid_result_warning(method, Part::ErrorData, &issues));
                error
            }
        }
    }

    /// Serves a streamed result: each item checked and framed, then the
    /// end of the session (the host reads until the server's output
    /// closes). A failure (the handler's error, an item that fails its
    /// schema in reject mode, an item over the frame bound) ends the stream
    /// with its failure line (see [`super::bound`]), so the host can never
    /// take a partial result for a whole one.
    fn stream<H: Handler + ?Sized>(
        &mut self,
        handler: &mut H,
        id: &Id,
        method: &str,
        params: Option<Value>,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        let protocol = Arc::clone(&self.protocol);
        let check = self.options.result_check;
        let logger = &mut self.logger;
        let mut written = 0usize;
        let mut stopped: Option<ErrorObject> = None;
        let mut peer_gone = false;
        let wire = &self.wire;
        let outcome = {
            let mut emit = |item: Value| -> std::io::Result<()> {
                if stopped.is_some() || peer_gone {
                    return Err(std::io::Error::other("the stream has ended"));
                }
                let issues = protocol.validate(method, Part::Item, Some(&item));
                if !issues.is_empty() {
                    match check {
                        ResultCheck::Reject => {
                            logger(&RuntimeFault::invalid(method, Part::Item, &issues).line());
                            let error = protocol.invalid_result_answer(method, Part::Item, &issues);
                            let message = format!("item {written} was refused: {}", error.message);
                            stopped = Some(ErrorObject { message, ..error });
                            return Err(std::io::Error::other("streamed item refused"));
                        }
                        ResultCheck::Warn => {
                            logger(&invalid_result_warning(method, Part::Item, &issues))
                        }
                    }
                }
                let frame = match wire.frame_value(&item) {
                    Ok(frame) => frame,
                    Err(WireError::TooLong { bytes, .. }) => {
                        let what = format!("item {written}");
                        stopped = Some(over_bound(&protocol, method, &what, bytes));
                        return Err(std::io::Error::other("streamed item over the frame bound"));
                    }
                    Err(other) => return Err(std::io::Error::other(other)),
                };
                if let Err(error) = send(&frame) {
                    peer_gone = true;
                    return Err(error);
                }
                written += 1;
                Ok(())
            };
            handler.handle_stream(method, params, &mut emit)
        };
        if peer_gone {
            self.session.end();
            return Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                format!("the host stopped reading `{method}` after {written} items"),
            ));
        }
        match (stopped, outcome) {
            (None, Ok(())) => {
                self.session.answered(method, Ok(&Value::Null));
                self.session.end();
                Ok(Flow::Stop)
            }
            (Some(error), _) | (None, Err(error)) => {
                self.fail_stream(id, method, written, error, send)
            }
        }
    }

    /// Ends a streamed result with its failure line and ends the session.
    fn fail_stream(
        &mut self,
        id: &Id,
        method: &str,
        sent: usize,
        error: ErrorObject,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        let error = stream_failure(method, sent, error);
        (self.logger)(&error.message);
        self.session.answered(method, Err(&error));
        self.session.end();
        let transport = &self.protocol.manifest().transport;
        let body = stream_failure_body(transport, id, error)?;
        let frame = self.wire.frame_body(&body).map_err(std::io::Error::other)?;
        send(&frame)?;
        Ok(Flow::Stop)
    }

    fn on_notification<H: Handler + ?Sized>(
        &mut self,
        handler: &mut H,
        notification: Notification,
    ) {
        if let Some(Notification { method, params }) = self.admit_notification(notification) {
            handler.notify(&method, params);
        }
    }

    /// A client notification's checks (a notification the client sends,
    /// its params, the session's state and rules, which it then moves): the
    /// notification to hand to the handler, or `None` when it is ignored
    /// (with a log line; a notification is never answered).
    pub(super) fn admit_notification(
        &mut self,
        notification: Notification,
    ) -> Option<Notification> {
        let method = notification.method.as_str();
        let known = self.protocol.method(method).is_some_and(|spec| {
            spec.kind == MethodKind::Notification && spec.direction.client_sends()
        });
        if !known {
            (self.logger)(&format!("ignored unknown notification `{method}`"));
            return None;
        }
        let issues = self
            .protocol
            .validate(method, Part::Params, notification.params.as_ref());
        if let Some(issue) = issues.first() {
            (self.logger)(&format!(
                "ignored notification `{method}` with invalid params: {issue}"
            ));
            return None;
        }
        match self
            .session
            .notify_from_server(method, notification.params.as_ref())
        {
            Ok(()) => Some(notification),
            Err(violation) => {
                (self.logger)(&format!("ignored notification `{method}`: {violation}"));
                None
            }
        }
    }

    /// Answers a request. The response is framed by the wire first (bound
    /// checked, canonical where the protocol is); one over the frame bound
    /// is replaced by the protocol's answer saying so, and only the answer
    /// actually sent moves the session.
    fn answer(
        &mut self,
        id: &Id,
        method: &str,
        outcome: Result<Value, ErrorObject>,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        let mut response = Message::Response(Response {
            id: Some(id.clone()),
            outcome,
        });
        let framed = match self.wire.frame_message(&response) {
            Ok(frame) => Ok(frame),
            Err(error) => {
                let replacement = match &error {
                    WireError::TooLong { bytes, .. } => {
                        let what = match &response {
                            Message::Response(Response { outcome: Ok(_), .. }) => "the result",
                            _ => "the error answer",
                        };
                        over_bound(&self.protocol, method, what, *bytes)
                    }
                    other => self
                        .protocol
                        .internal_error_answer(method, &other.to_string()),
                };
                response = Message::Response(Response::error(Some(id.clone()), replacement));
                self.wire.frame_message(&response)
            }
        };
        if let Message::Response(response) = &response {
            self.session.answered(method, response.outcome.as_ref());
        }
        match framed {
            Ok(frame) => send(&frame)?,
            // Not even the refusal can be framed (an id that fills the
            // frame bound): no input may end a server, so the answer is
            // dropped, as a driver on the reference package drops it.
            Err(error) => (self.logger)(&format!(
                "dropped the answer to `{method}` (id {id}): {error}"
            )),
        }
        Ok(self.flow())
    }

    /// Answers with a result a binding encoded itself (the fast path),
    /// framed by the same wire.
    pub(super) fn answer_encoded(
        &mut self,
        id: &Id,
        method: &str,
        answer: Result<Box<RawValue>, ErrorObject>,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        let result = match answer {
            Ok(result) => result,
            Err(error) => {
                let error = self.checked_error(method, error);
                return self.answer(id, method, Err(error), send);
            }
        };
        match self.wire.frame_result(id, &result) {
            Ok(frame) => {
                self.session.answered(method, Ok(&Value::Null));
                send(&frame)?;
                Ok(self.flow())
            }
            Err(WireError::TooLong { bytes, .. }) => {
                let error = over_bound(&self.protocol, method, "the result", bytes);
                self.answer(id, method, Err(error), send)
            }
            Err(other) => {
                let error = self
                    .protocol
                    .internal_error_answer(method, &other.to_string());
                self.answer(id, method, Err(error), send)
            }
        }
    }

    fn flow(&self) -> Flow {
        if self.session.is_ended() {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }

    /// Sends what the handler queued, each notification checked first: an
    /// unknown one, or one the session refuses, is dropped with a log line;
    /// one whose params fail the schema is dropped or sent with a warning.
    fn send_notifications<H: Handler + ?Sized>(
        &mut self,
        handler: &mut H,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        for notification in handler.take_notifications() {
            self.send_notification(notification, send)?;
        }
        Ok(())
    }

    /// Sends one notification of the server's, checked first: an unknown
    /// one, or one the session refuses, is dropped with a log line; one
    /// whose params fail the schema is dropped or sent with a warning.
    pub(super) fn send_notification(
        &mut self,
        notification: Notification,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        match self.frame_notification(notification) {
            Ok(frame) => send(&frame),
            Err(fault) => {
                (self.logger)(&fault.line());
                Ok(())
            }
        }
    }

    /// One notification of the server's, checked (the server sends it, its
    /// params, the session's state, which it then moves) and framed; or the
    /// fault that drops it (not logged here).
    pub(super) fn frame_notification(
        &mut self,
        notification: Notification,
    ) -> Result<Vec<u8>, RuntimeFault> {
        let method = notification.method.clone();
        let method = method.as_str();
        self.check_outgoing(
            method,
            MethodKind::Notification,
            notification.params.as_ref(),
        )?;
        let params = notification.params.clone();
        let message = Message::Notification(notification);
        // Framed first: only a frame the transport accepts moves the session.
        let frame = self
            .wire
            .frame_message(&message)
            .map_err(|error| RuntimeFault::dropped(method, "", &error.to_string()))?;
        if let Err(violation) = self.session.notify_from_server(method, params.as_ref()) {
            return Err(RuntimeFault::dropped(
                method,
                "/method",
                &violation.to_string(),
            ));
        }
        Ok(frame)
    }

    /// The checks a message the server starts passes before it is framed,
    /// a notification or a request of its own alike: the protocol has the
    /// method, of that kind, sent by the server; its params fit their
    /// schema. An invalid one is dropped with the first issue's pointer, or
    /// (`ResultCheck::Warn`) sent with a warning line, as an invalid result
    /// is. The fault is the kind's (`dropped_notification`,
    /// `dropped_request`).
    pub(super) fn check_outgoing(
        &mut self,
        method: &str,
        kind: MethodKind,
        params: Option<&Value>,
    ) -> Result<(), RuntimeFault> {
        let fault = match kind {
            MethodKind::Request => RuntimeFault::dropped_request,
            MethodKind::Notification => RuntimeFault::dropped,
        };
        let sends = self
            .protocol
            .method(method)
            .is_some_and(|spec| spec.kind == kind && spec.direction.server_sends());
        if !sends {
            let why = match kind {
                MethodKind::Request => {
                    format!("not a request the server sends in {}", self.protocol.id())
                }
                MethodKind::Notification => {
                    format!("not a server notification of {}", self.protocol.id())
                }
            };
            return Err(fault(method, "/method", &why));
        }
        let issues = self.protocol.validate(method, Part::Params, params);
        if issues.is_empty() {
            return Ok(());
        }
        match self.options.result_check {
            ResultCheck::Reject => {
                let error = self
                    .protocol
                    .invalid_result_answer(method, Part::Params, &issues);
                let pointer = issues
                    .first()
                    .map(|i| format!("/params{}", i.instance_path))
                    .unwrap_or_else(|| "/params".to_owned());
                Err(fault(method, &pointer, &error.message))
            }
            ResultCheck::Warn => {
                (self.logger)(&invalid_result_warning(method, Part::Params, &issues));
                Ok(())
            }
        }
    }

    /// Whether the protocol ends the session after answering `code`.
    fn ends_session(&self, code: i64) -> bool {
        self.protocol
            .manifest()
            .errors
            .iter()
            .any(|e| e.code == code && e.ends_session)
    }

    /// Sends a message the loop made itself; one that cannot be framed
    /// (an echoed id that fills the frame bound) is dropped with a log
    /// line: no input may end a server.
    fn send(
        &mut self,
        message: &Message,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        match self.wire.frame_message(message) {
            Ok(frame) => send(&frame),
            Err(error) => {
                (self.logger)(&format!("dropped an answer that cannot be framed: {error}"));
                Ok(())
            }
        }
    }
}

/// The error a loop ends with when its handler asked it to
/// ([`Handler::stopped`]).
pub(super) fn handler_stopped() -> std::io::Error {
    std::io::Error::other("a handler stopped the serve loop")
}

fn ends_stream(framing: crate::framing::Framing, fault: &FramingError) -> bool {
    framing.faults_end_stream() && fault.kind() != FaultKind::EmptyFrame
}
