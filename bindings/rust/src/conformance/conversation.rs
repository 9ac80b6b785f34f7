//! One session with one server process: frames sent and received, each
//! fed to the monitor ([`SessionChecker`]) in order and recorded as a
//! capture `wirekit validate` reads. The monitor judges every answer's
//! schema, id and lifecycle; what it finds that blames the server is
//! charged to the check that was running.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::check::{Check, Exchanged, Sender};
use super::process::{describe_exit, Output, ServerProcess};
use crate::envelope::{self, Id, Message, Notification, Request, Response};
use crate::framing::{decoder_for, encoder_for, FrameEncoder};
use crate::host::{Answers, Ending};
use crate::monitor::SessionChecker;
use crate::validate::Protocol;

/// What came back for a request.
#[derive(Debug)]
pub(crate) enum Answer {
    /// A response (its id may not be the one expected).
    Response(Response),
    /// The server exited or closed its output first (how it exited).
    Closed(String),
    /// Nothing came in time.
    Timeout,
    /// A message that is JSON but no valid envelope (the check says why).
    Invalid,
}

/// Lines of noise a session keeps for the report (the rest are counted).
const NOISE_KEPT: usize = 16;

/// A session whose server writes more lines than this that are not frames
/// of the protocol is ended: the server floods its output, and reading on
/// would only grow the report.
pub(crate) const NOISE_BOUND: usize = 1024;

/// Notifications a wait for one notification reads before it gives up.
pub(crate) const NOTIFICATIONS_BOUND: usize = 100_000;

/// A session with one server process.
pub(crate) struct Conversation {
    protocol: Arc<Protocol>,
    process: ServerProcess,
    checker: SessionChecker,
    encoder: Box<dyn FrameEncoder + Send + Sync>,
    record: Option<Box<dyn Write + Send>>,
    /// Problems of the checker already charged.
    seen: usize,
    next_id: i64,
    /// The session's number (1 for the first process of the run).
    pub(crate) index: usize,
    /// Lines the server wrote to stdout that are not frames of the protocol
    /// (the first [`NOISE_KEPT`]).
    pub(crate) noise: Vec<String>,
    /// How many such lines there were.
    pub(crate) noise_count: usize,
    /// How many notifications of each method the server sent.
    notified: std::collections::HashMap<String, usize>,
    /// How the server's own requests are answered.
    answers: Answers,
}

impl Conversation {
    pub(crate) fn new(
        protocol: Arc<Protocol>,
        process: ServerProcess,
        index: usize,
        record: Option<Box<dyn Write + Send>>,
    ) -> Self {
        let transport = &protocol.manifest().transport;
        Conversation {
            encoder: encoder_for(transport.framing, transport.frame_limits()),
            checker: SessionChecker::new(Arc::clone(&protocol)),
            protocol,
            process,
            record,
            seen: 0,
            next_id: 1,
            index,
            noise: Vec::new(),
            noise_count: 0,
            notified: std::collections::HashMap::new(),
            answers: Answers::default(),
        }
    }

    /// Answers the server's own requests with `answers`.
    pub(crate) fn with_answers(mut self, answers: Answers) -> Self {
        self.answers = answers;
        self
    }

    /// Answers a request the server sent, at once, as a client does: the
    /// canned answer of its method, else -32601. The answer is sent,
    /// recorded and judged by the monitor like every frame.
    fn answer_server_request(&mut self, request: Request, check: &mut Check) {
        let outcome = self.answers.answer(&request.method).unwrap_or_else(|| {
            Err(crate::envelope::ErrorObject::new(
                -32601,
                format!(
                    "the conformance battery does not answer `{}`",
                    request.method
                ),
            ))
        });
        let response = Response {
            id: Some(request.id),
            outcome,
        };
        let bytes = self.message_bytes(Message::Response(response));
        // A server that is gone is found by the read that follows.
        let _ = self.send(bytes, check);
    }

    /// The session as the monitor sees it (state, declared capabilities).
    pub(crate) fn session(&self) -> &crate::session::Session {
        self.checker.session()
    }

    /// Whether the server declared the capability of the optional method
    /// `method` (`None` for a required method, or one gated on the
    /// client's own declaration, which the battery sends as it declared).
    pub(crate) fn capability_declared(&self, method: &str) -> Option<bool> {
        let spec = self.protocol.method(method)?;
        if !spec.capability_of.in_server_declaration() {
            return None;
        }
        let capability = spec.capability.as_ref()?;
        Some(
            self.session()
                .capabilities()
                .is_some_and(|caps| caps.contains(capability)),
        )
    }

    /// The next request id.
    pub(crate) fn next_id(&mut self) -> Id {
        let id = Id::from(self.next_id);
        self.next_id += 1;
        id
    }

    /// The framed bytes of a request.
    pub(crate) fn request_bytes(&self, id: &Id, method: &str, params: Option<Value>) -> Vec<u8> {
        self.message_bytes(Message::Request(Request::new(id.clone(), method, params)))
    }

    /// Sends a notification.
    pub(crate) fn send_notification(
        &mut self,
        method: &str,
        params: Option<Value>,
        check: &mut Check,
    ) -> Result<(), String> {
        let bytes = self.message_bytes(Message::Notification(Notification {
            method: method.to_owned(),
            params,
        }));
        self.send(bytes, check)
    }

    /// The framed bytes of a message, as the protocol writes them.
    fn message_bytes(&self, message: Message) -> Vec<u8> {
        let body = self
            .protocol
            .manifest()
            .transport
            .encode(&message)
            .unwrap_or_else(|_| {
                envelope::encode(
                    &message,
                    &self.protocol.manifest().transport.envelope_options(),
                )
            });
        self.frame(&body)
    }

    /// `body` framed as the protocol frames it (bytes over the bound are
    /// framed by hand, so the battery can send them).
    pub(crate) fn frame(&self, body: &[u8]) -> Vec<u8> {
        match self.encoder.encode(body) {
            Ok(bytes) => bytes,
            Err(_) => match self.protocol.manifest().transport.framing {
                crate::framing::Framing::Ndjson => {
                    let mut bytes = body.to_vec();
                    bytes.push(b'\n');
                    bytes
                }
                crate::framing::Framing::ContentLength => {
                    let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
                    bytes.extend_from_slice(body);
                    bytes
                }
            },
        }
    }

    /// Sends framed bytes: fed to the monitor as the decoder of a capture
    /// sees them, recorded, and shown in `check`.
    pub(crate) fn send(&mut self, bytes: Vec<u8>, check: &mut Check) -> Result<(), String> {
        let transport = &self.protocol.manifest().transport;
        let mut decoder = decoder_for(transport.framing, transport.frame_limits());
        decoder.push(&bytes);
        decoder.finish();
        while let Some(item) = decoder.next_frame() {
            match item {
                Ok(frame) => {
                    check.keep(Exchanged::new(Sender::Client, frame.body().as_bytes()));
                    self.checker.on_frame(Ok(frame));
                }
                Err(fault) => {
                    check.keep(Exchanged::new(Sender::Client, &bytes));
                    self.checker.on_frame(Err(fault));
                }
            }
        }
        if let Some(record) = self.record.as_mut() {
            let _ = record.write_all(&bytes).and_then(|()| record.flush());
        }
        self.process.send(bytes)
    }

    /// Sends a request with a fresh id; its id.
    pub(crate) fn send_request(
        &mut self,
        method: &str,
        params: Option<Value>,
        check: &mut Check,
    ) -> Result<Id, String> {
        let id = self.next_id();
        let bytes = self.request_bytes(&id, method, params);
        self.send(bytes, check)?;
        Ok(id)
    }

    /// Waits for the next response (notifications are judged by the monitor
    /// and shown among the check's frames; what is not a frame of the
    /// protocol fails `check`).
    pub(crate) fn await_response(&mut self, timeout: Duration, check: &mut Check) -> Answer {
        let deadline = Instant::now() + timeout;
        loop {
            // Checked before each output too: a server that keeps writing
            // (notifications, noise) does not hold the wait past its deadline.
            if Instant::now() >= deadline {
                return Answer::Timeout;
            }
            let Some(output) = self.process.next_output(deadline) else {
                return Answer::Timeout;
            };
            match output {
                Output::Closed => {
                    let status = self
                        .process
                        .wait_exit(Duration::from_millis(500))
                        .map_or_else(|| "closed its output".to_owned(), describe_exit);
                    return Answer::Closed(status);
                }
                Output::Fault(fault) => {
                    let line = format!("{}: {}", fault.kind().name(), fault.detail());
                    check.keep(Exchanged::new(Sender::Server, line.as_bytes()));
                    check.fail(
                        None,
                        format!("the server wrote bytes to stdout that are not a frame ({line})"),
                    );
                    if self.note_noise(line) {
                        return Answer::Closed(flooded());
                    }
                    if fault.ends_stream() {
                        return Answer::Closed("wrote what cannot be framed".to_owned());
                    }
                }
                Output::Frame(frame) => {
                    check.keep(Exchanged::new(Sender::Server, frame.body().as_bytes()));
                    let decoded = envelope::decode(
                        frame.body().as_bytes(),
                        &self.protocol.manifest().transport.envelope_options(),
                    );
                    let is_json = serde_json::from_str::<Value>(frame.body()).is_ok();
                    if !is_json {
                        let line = frame.body().chars().take(200).collect::<String>();
                        check.fail(
                            None,
                            format!("the server wrote to stdout what is not a JSON-RPC message: `{line}`"),
                        );
                        if self.note_noise(line) {
                            return Answer::Closed(flooded());
                        }
                        continue;
                    }
                    self.record_frame(frame.body().as_bytes());
                    self.checker.on_frame(Ok(frame));
                    match decoded {
                        Ok(Message::Response(response)) => {
                            self.charge(check);
                            return Answer::Response(response);
                        }
                        Ok(Message::Notification(notification)) => {
                            *self.notified.entry(notification.method).or_default() += 1;
                        }
                        Ok(Message::Request(request)) => {
                            self.charge(check);
                            self.answer_server_request(request, check);
                        }
                        Err(error) => {
                            self.charge(check);
                            let at = error.pointer();
                            let message = format!(
                                "the server's message is not a valid {} envelope: {} (at {})",
                                self.protocol.manifest().transport.envelope,
                                error.message(),
                                if at.is_empty() { "(root)" } else { at }
                            );
                            check.fail(Some(at), message);
                            return Answer::Invalid;
                        }
                    }
                    self.charge(check);
                }
            }
        }
    }

    /// Waits for the notification `method` (the completion of what a call
    /// started), each message within `timeout`; the notifications that came.
    pub(crate) fn await_notification(
        &mut self,
        method: &str,
        timeout: Duration,
        check: &mut Check,
    ) -> Result<usize, String> {
        let mut came = 0;
        loop {
            if came > NOTIFICATIONS_BOUND {
                return Err(format!(
                    "the server sent {came} notifications without `{method}`"
                ));
            }
            let deadline = Instant::now() + timeout;
            let Some(output) = self.process.next_output(deadline) else {
                return Err(format!(
                    "no `{method}` within {} s of the last message",
                    timeout.as_secs_f64()
                ));
            };
            match output {
                Output::Closed => return Err(format!("the server exited before `{method}`")),
                Output::Fault(fault) => {
                    let line = format!("{}: {}", fault.kind().name(), fault.detail());
                    self.note_noise(line.clone());
                    return Err(format!(
                        "the server wrote bytes that are not a frame ({line})"
                    ));
                }
                Output::Frame(frame) => {
                    check.keep(Exchanged::new(Sender::Server, frame.body().as_bytes()));
                    let decoded = envelope::decode(
                        frame.body().as_bytes(),
                        &self.protocol.manifest().transport.envelope_options(),
                    );
                    self.record_frame(frame.body().as_bytes());
                    self.checker.on_frame(Ok(frame));
                    self.charge(check);
                    match decoded {
                        Ok(Message::Notification(notification)) => {
                            came += 1;
                            *self.notified.entry(notification.method.clone()).or_default() += 1;
                            if notification.method == method {
                                return Ok(came);
                            }
                        }
                        Ok(Message::Request(request)) => {
                            // A request while the completion is awaited
                            // (an operation asking its client): answered.
                            self.answer_server_request(request, check);
                        }
                        _ => return Err(format!("the server sent what is not a notification while `{method}` was awaited")),
                    }
                }
            }
        }
    }

    /// How many notifications of `method` the server has sent so far.
    pub(crate) fn notified(&self, method: &str) -> usize {
        self.notified.get(method).copied().unwrap_or(0)
    }

    /// Notes a line of noise; whether the server now floods its output.
    fn note_noise(&mut self, line: String) -> bool {
        self.noise_count += 1;
        if self.noise.len() < NOISE_KEPT {
            self.noise.push(line);
        }
        self.noise_count > NOISE_BOUND
    }

    /// Charges the monitor's new problems that blame the server to `check`:
    /// an error fails it, a warning warns.
    fn charge(&mut self, check: &mut Check) {
        let problems = self.checker.problems();
        for problem in &problems[self.seen.min(problems.len())..] {
            if problem.blame != crate::monitor::Party::Server {
                continue;
            }
            let pointer = problem.pointer.as_deref();
            let at = pointer.filter(|p| !p.is_empty()).unwrap_or("(root)");
            let finding = format!("{} at {at}: {}", problem.kind.name(), problem.message);
            // A warning (what the protocol allows but discourages, a value
            // the client did not announce) warns; it does not fail.
            if problem.severity == crate::monitor::Severity::Warning {
                check.warn(pointer, format!("the monitor found {finding}"));
            } else {
                check.monitor_found(pointer, finding);
            }
        }
        self.seen = problems.len();
    }

    fn record_frame(&mut self, body: &[u8]) {
        if let Some(record) = self.record.as_mut() {
            let mut framed = Vec::with_capacity(body.len() + 32);
            if self.encoder.encode_into(body, &mut framed).is_ok() {
                let _ = record.write_all(&framed).and_then(|()| record.flush());
            }
        }
    }

    /// Closes the server's input.
    pub(crate) fn close_input(&mut self) {
        self.process.close_input();
    }

    /// Waits up to `grace` for the process to exit; how it exited.
    pub(crate) fn wait_exit(&mut self, grace: Duration) -> Option<String> {
        self.process.wait_exit(grace).map(describe_exit)
    }

    /// The end of input's exit sequence: `grace` to exit, then (with
    /// `terminate`) SIGTERM and that long, then SIGKILL; how it ended and
    /// its status in words.
    pub(crate) fn end_process(
        &mut self,
        grace: Duration,
        terminate: Option<Duration>,
    ) -> Option<(Ending, String)> {
        self.process
            .end_process(grace, terminate)
            .map(|ending| (ending, describe_exit(ending.status())))
    }

    /// Whether the exit status was success.
    pub(crate) fn exited_cleanly(&mut self) -> Option<bool> {
        self.process.exited().map(|s| s.success())
    }

    /// Reads what the server still writes within `window` (noise after the end).
    pub(crate) fn drain(&mut self, window: Duration, check: &mut Check) {
        let deadline = Instant::now() + window;
        while let Some(output) = self.process.next_output(deadline) {
            if Instant::now() >= deadline {
                return;
            }
            match output {
                Output::Closed => return,
                Output::Fault(fault) => {
                    let line = format!("{}: {}", fault.kind().name(), fault.detail());
                    check.fail(
                        None,
                        format!("the server wrote bytes to stdout that are not a frame ({line})"),
                    );
                    if self.note_noise(line) {
                        check.fail(None, format!("the server {}", flooded()));
                        return;
                    }
                }
                Output::Frame(frame) => {
                    check.keep(Exchanged::new(Sender::Server, frame.body().as_bytes()));
                    if serde_json::from_str::<Value>(frame.body()).is_err() {
                        let line = frame.body().chars().take(200).collect::<String>();
                        check.fail(None, format!("the server wrote to stdout what is not a JSON-RPC message: `{line}`"));
                        if self.note_noise(line) {
                            check.fail(None, format!("the server {}", flooded()));
                            return;
                        }
                        continue;
                    }
                    self.record_frame(frame.body().as_bytes());
                    self.checker.on_frame(Ok(frame));
                    self.charge(check);
                }
            }
        }
    }

    /// The fault lines of the serve loop the server wrote since the last
    /// call, waiting up to `wait` for the first.
    pub(crate) fn take_faults(&mut self, wait: Duration) -> Vec<crate::serve::RuntimeFault> {
        self.process.take_faults(wait)
    }

    /// Ends the process (killed when still running); its stderr tail and
    /// the fault lines not yet taken.
    pub(crate) fn end(
        mut self,
    ) -> (
        usize,
        Option<String>,
        String,
        Vec<crate::serve::RuntimeFault>,
    ) {
        self.process.end();
        let exit = self.process.exited().map(describe_exit);
        let faults = self.process.remaining_faults();
        (self.index, exit, self.process.stderr_tail(), faults)
    }
}

/// How a session that flooded its output ended.
fn flooded() -> String {
    format!("ended by wirekit: it flooded stdout with more than {NOISE_BOUND} lines that are not frames of the protocol")
}
