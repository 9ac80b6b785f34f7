//! The serve loop: frame, decode, check the lifecycle, validate params,
//! dispatch, validate the result, encode, write. The core is I/O-free
//! ([`Server::on_frame`] turns one incoming frame into the bytes to send);
//! [`Server::serve`] runs it over a reader and a writer.

use std::io::{Read, Write};
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::Value;

use super::handler::{method_not_found, Handler};
use crate::envelope::{
    self, EnvelopeOptions, ErrorCode, ErrorObject, Id, Message, Notification, Request, Response,
};
use crate::framing::{
    encoder_for, FaultKind, Frame, FrameEncoder, FrameLimits, FrameReader, Framing, FramingError,
    ReadError,
};
use crate::protocol::{Direction, MethodKind};
use crate::session::Session;
use crate::validate::{invalid_params, invalid_result, invalid_result_warning, Part, Protocol};

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

/// Receives warnings (invalid results in warn mode, ignored messages).
pub type Logger = dyn FnMut(&str) + Send;

/// A protocol server's state between frames.
pub struct Server {
    protocol: Arc<Protocol>,
    session: Session,
    envelope: EnvelopeOptions,
    encoder: Box<dyn FrameEncoder + Send + Sync>,
    options: ServeOptions,
    logger: Box<Logger>,
}

impl Server {
    /// A server for `protocol`, logging to stderr.
    pub fn new(protocol: Arc<Protocol>, options: ServeOptions) -> Self {
        let transport = &protocol.manifest().transport;
        let envelope = transport.envelope_options();
        Server {
            encoder: encoder_for(transport.framing, transport.frame_limits()),
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

    /// Serves `input` until the session ends or the input closes.
    pub fn serve<H: Handler + ?Sized, R: Read, W: Write>(
        &mut self,
        handler: &mut H,
        input: R,
        mut output: W,
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
            let flow = {
                let mut sink = |bytes: &[u8]| -> std::io::Result<()> {
                    output.write_all(bytes)?;
                    output.flush()
                };
                self.on_frame(handler, frame, &mut sink)?
            };
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
        let framing = self.protocol.manifest().transport.framing;
        let frame = match frame {
            Ok(frame) => frame,
            Err(fault) if fault.kind() == FaultKind::EmptyFrame => return Ok(Flow::Continue),
            Err(fault) => {
                let code = match fault.kind() {
                    FaultKind::BodyNotUtf8 => ErrorCode::PARSE_ERROR,
                    _ => ErrorCode::INVALID_REQUEST,
                };
                let error = ErrorObject::new(
                    code,
                    format!(
                        "{} at byte {}: {}",
                        fault.kind().name(),
                        fault.offset(),
                        fault.detail()
                    ),
                );
                let fatal = self.ends_session(error.code);
                self.send(&Message::Response(Response::error(None, error)), send)?;
                return Ok(if fatal || ends_stream(framing, &fault) {
                    Flow::Stop
                } else {
                    Flow::Continue
                });
            }
        };
        let message = match envelope::decode(frame.body().as_bytes(), &self.envelope) {
            Ok(message) => message,
            Err(error) => {
                let response = error.to_response();
                let fatal = response
                    .outcome
                    .as_ref()
                    .err()
                    .is_some_and(|e| self.ends_session(e.code));
                self.send(&Message::Response(response), send)?;
                if fatal {
                    self.session.end();
                    return Ok(Flow::Stop);
                }
                return Ok(Flow::Continue);
            }
        };
        match message {
            Message::Request(request) => {
                let flow = self.on_request(handler, request, send)?;
                self.send_notifications(handler, send)?;
                Ok(if self.session.is_ended() {
                    Flow::Stop
                } else {
                    flow
                })
            }
            Message::Notification(notification) => {
                self.on_notification(handler, notification);
                Ok(if self.session.is_ended() {
                    Flow::Stop
                } else {
                    Flow::Continue
                })
            }
            Message::Response(response) => {
                (self.logger)(&format!(
                    "ignored a response (id {:?}) from the client: this server sends no requests",
                    response.id
                ));
                Ok(Flow::Continue)
            }
        }
    }

    fn on_request<H: Handler + ?Sized>(
        &mut self,
        handler: &mut H,
        request: Request,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        let Request { id, method, params } = request;
        let known = self.protocol.method(&method).filter(|spec| {
            spec.kind == MethodKind::Request && spec.direction == Direction::ClientToServer
        });
        let Some(streamed) = known.map(|spec| spec.result_stream.is_some()) else {
            return self.answer(&id, &method, Err(method_not_found(&method)), send);
        };
        if let Err(violation) = self.session.check(&method) {
            let flow = self.answer(&id, &method, Err(violation.answer().clone()), send)?;
            return Ok(if violation.ends_session() {
                Flow::Stop
            } else {
                flow
            });
        }
        let issues = self
            .protocol
            .validate(&method, Part::Params, params.as_ref());
        if !issues.is_empty() {
            return self.answer(&id, &method, Err(invalid_params(&method, &issues)), send);
        }
        if let Err(violation) = self.session.admit(&method, params.as_ref()) {
            self.answer(&id, &method, Err(violation.answer().clone()), send)?;
            if violation.ends_session() {
                self.session.end();
                return Ok(Flow::Stop);
            }
            return Ok(Flow::Continue);
        }
        if !handler.implements(&method) {
            return self.answer(&id, &method, Err(method_not_found(&method)), send);
        }
        if streamed {
            return self.stream(handler, &id, &method, params, send);
        }
        let manifest = self.protocol.manifest();
        let declares_capabilities = manifest
            .capabilities
            .as_ref()
            .is_some_and(|c| c.method == method);
        if handler.answers_encoded(&method)
            && !manifest.transport.canonical
            && !declares_capabilities
        {
            let answer = handler.handle_encoded(&method, params);
            return self.answer_encoded(&id, &method, answer, send);
        }
        let mut outcome = handler.handle(&method, params);
        let (part, checked) = match &outcome {
            Ok(result) => (Part::Result, Some(result)),
            Err(error) => (Part::ErrorData, error.data.as_ref()),
        };
        let issues = self.protocol.validate(&method, part, checked);
        if !issues.is_empty() {
            match self.options.result_check {
                ResultCheck::Reject => outcome = Err(invalid_result(&method, part, &issues)),
                ResultCheck::Warn => (self.logger)(&invalid_result_warning(&method, part, &issues)),
            }
        }
        self.answer(&id, &method, outcome, send)
    }

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
        let mut buffer = Vec::new();
        let encoder = &self.encoder;
        let outcome = {
            let mut emit = |item: Value| -> std::io::Result<()> {
                let issues = protocol.validate(method, Part::Item, Some(&item));
                if !issues.is_empty() {
                    match check {
                        ResultCheck::Reject => {
                            let error = invalid_result(method, Part::Item, &issues);
                            logger(&format!(
                                "dropped streamed item {written}: {}",
                                error.message
                            ));
                            return Ok(());
                        }
                        ResultCheck::Warn => {
                            logger(&invalid_result_warning(method, Part::Item, &issues))
                        }
                    }
                }
                buffer.clear();
                let body = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
                encoder
                    .encode_into(&body, &mut buffer)
                    .map_err(std::io::Error::other)?;
                written += 1;
                send(&buffer)
            };
            handler.handle_stream(method, params, &mut emit)
        };
        match outcome {
            Ok(()) => {
                self.session.answered(method, Ok(&Value::Null));
                self.session.end();
                Ok(Flow::Stop)
            }
            Err(error) if written == 0 => self.answer(id, method, Err(error), send),
            Err(error) => {
                (self.logger)(&format!(
                    "streamed result of `{method}` failed after {written} items: {}",
                    error.message
                ));
                self.session.end();
                Ok(Flow::Stop)
            }
        }
    }

    fn on_notification<H: Handler + ?Sized>(
        &mut self,
        handler: &mut H,
        notification: Notification,
    ) {
        let Notification { method, params } = notification;
        let known = self.protocol.method(&method).is_some_and(|spec| {
            spec.kind == MethodKind::Notification && spec.direction == Direction::ClientToServer
        });
        if !known {
            (self.logger)(&format!("ignored unknown notification `{method}`"));
            return;
        }
        let issues = self
            .protocol
            .validate(&method, Part::Params, params.as_ref());
        if let Some(issue) = issues.first() {
            (self.logger)(&format!(
                "ignored notification `{method}` with invalid params: {issue}"
            ));
            return;
        }
        match self.session.notify(&method, params.as_ref()) {
            Ok(()) => handler.notify(&method, params),
            Err(violation) => {
                (self.logger)(&format!("ignored notification `{method}`: {violation}"))
            }
        }
    }

    fn answer(
        &mut self,
        id: &Id,
        method: &str,
        outcome: Result<Value, ErrorObject>,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        self.session.answered(method, outcome.as_ref());
        let response = Response {
            id: Some(id.clone()),
            outcome,
        };
        self.send(&Message::Response(response), send)?;
        Ok(if self.session.is_ended() {
            Flow::Stop
        } else {
            Flow::Continue
        })
    }

    fn answer_encoded(
        &mut self,
        id: &Id,
        method: &str,
        answer: Result<Box<RawValue>, ErrorObject>,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<Flow> {
        let result = match answer {
            Ok(result) => result,
            Err(error) => return self.answer(id, method, Err(error), send),
        };
        self.session.answered(method, Ok(&Value::Null));
        let transport = &self.protocol.manifest().transport;
        let raw = result.get().as_bytes();
        // The envelope around compact JSON is compact JSON: no line break to
        // look for, only the bound to keep. One buffer, no second pass.
        let mut frame = Vec::with_capacity(raw.len() + 96);
        if transport.framing == Framing::ContentLength {
            let length = envelope::encoded_success_raw_len(id, &result, &self.envelope);
            frame.extend_from_slice(format!("Content-Length: {length}\r\n\r\n").as_bytes());
        }
        let start = frame.len();
        envelope::encode_success_raw(id, &result, &self.envelope, &mut frame);
        let length = frame.len() - start;
        if length > transport.max_frame_bytes {
            let error = ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!(
                    "the result of `{method}` is {length} bytes, over the frame bound of {}",
                    transport.max_frame_bytes
                ),
            );
            let response = Message::Response(Response {
                id: Some(id.clone()),
                outcome: Err(error),
            });
            self.send(&response, send)?;
            return Ok(if self.session.is_ended() {
                Flow::Stop
            } else {
                Flow::Continue
            });
        }
        if transport.framing == Framing::Ndjson {
            frame.push(b'\n');
        }
        send(&frame)?;
        Ok(if self.session.is_ended() {
            Flow::Stop
        } else {
            Flow::Continue
        })
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
        {
            let method = notification.method.as_str();
            let known = self.protocol.method(method).is_some_and(|spec| {
                spec.kind == MethodKind::Notification && spec.direction == Direction::ServerToClient
            });
            if !known {
                (self.logger)(&format!(
                    "dropped `{method}`: not a server notification of {}",
                    self.protocol.id()
                ));
                return Ok(());
            }
            let issues = self
                .protocol
                .validate(method, Part::Params, notification.params.as_ref());
            if !issues.is_empty() {
                match self.options.result_check {
                    ResultCheck::Reject => {
                        let error = invalid_result(method, Part::Params, &issues);
                        (self.logger)(&format!("dropped `{method}`: {}", error.message));
                        return Ok(());
                    }
                    ResultCheck::Warn => {
                        (self.logger)(&invalid_result_warning(method, Part::Params, &issues))
                    }
                }
            }
            if let Err(violation) = self.session.notify(method, notification.params.as_ref()) {
                (self.logger)(&format!("dropped `{method}`: {violation}"));
                return Ok(());
            }
        }
        self.send(&Message::Notification(notification), send)
    }

    /// Whether the protocol ends the session after answering `code`.
    fn ends_session(&self, code: i64) -> bool {
        self.protocol
            .manifest()
            .errors
            .iter()
            .any(|e| e.code == code && e.ends_session)
    }

    fn send(
        &self,
        message: &Message,
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let body = self
            .protocol
            .manifest()
            .transport
            .encode(message)
            .map_err(std::io::Error::other)?;
        let mut frame = Vec::with_capacity(body.len() + 32);
        self.encoder
            .encode_into(&body, &mut frame)
            .map_err(std::io::Error::other)?;
        send(&frame)
    }
}

fn ends_stream(framing: crate::framing::Framing, fault: &FramingError) -> bool {
    framing.faults_end_stream() && fault.kind() != FaultKind::EmptyFrame
}
