//! Checking a captured session: the messages of both directions in one
//! stream, in the order they passed. Responses are paired with requests by
//! id; every message is checked against its schema and the lifecycle.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::problem::{Problem, ProblemKind};
use crate::envelope::{self, EnvelopeOptions, Message, Request, Response};
use crate::framing::{Frame, FramingError};
use crate::protocol::MethodKind;
use crate::session::{Session, ViolationKind};
use crate::validate::{Part, Protocol, ValidationIssue};

#[derive(Debug)]
struct Pending {
    method: String,
    frame: usize,
    /// Whether the request broke the protocol (its answer does not move the state).
    faulty: bool,
    /// Whether its success was presumed (a notification it allows came
    /// before its response crossed the capture) and already moved the state.
    presumed: bool,
}

/// Watches a session frame by frame and collects its problems.
#[derive(Debug)]
pub struct SessionChecker {
    protocol: Arc<Protocol>,
    session: Session,
    envelope: EnvelopeOptions,
    pending: HashMap<String, Pending>,
    streaming: Option<String>,
    /// Ids (`null` when none was recovered) of refused frames, each owed
    /// one error answer that is not an unknown id.
    owed: Vec<String>,
    frames: usize,
    problems: Vec<Problem>,
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
            streaming: None,
            owed: Vec::new(),
            frames: 0,
            problems: Vec::new(),
        }
    }

    /// The problems found so far.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The session as the checker sees it.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Takes the next frame of the capture, or a framing fault.
    pub fn on_frame(&mut self, frame: Result<Frame, FramingError>) {
        let frame = match frame {
            Ok(frame) => frame,
            Err(fault) => {
                self.problems.push(Problem {
                    frame: self.frames,
                    kind: ProblemKind::Framing,
                    pointer: None,
                    message: format!(
                        "{} at byte {}: {}",
                        fault.kind().name(),
                        fault.offset(),
                        fault.detail()
                    ),
                });
                self.owed.push("null".to_owned());
                return;
            }
        };
        let index = self.frames;
        self.frames += 1;
        if let Some(method) = self.streaming.clone() {
            if self.on_stream_item(index, &method, frame.body()) {
                return;
            }
        }
        match envelope::decode(frame.body().as_bytes(), &self.envelope) {
            Ok(Message::Request(request)) => self.on_request(index, request),
            Ok(Message::Notification(notification)) => {
                let method = notification.method;
                self.on_notification(index, &method, notification.params.as_ref());
            }
            Ok(Message::Response(response)) => self.on_response(index, response),
            Err(error) => {
                let owed = error
                    .id()
                    .map_or_else(|| "null".to_owned(), |id| id.to_value().to_string());
                self.owed.push(owed);
                self.problems.push(Problem {
                    frame: index,
                    kind: ProblemKind::Envelope,
                    pointer: Some(error.pointer().to_owned()),
                    message: format!("{} (code {})", error.message(), error.code().0),
                });
            }
        }
    }

    /// The capture ended: every request still pending is unanswered.
    pub fn finish(&mut self) -> &[Problem] {
        let mut pending: Vec<Pending> = self.pending.drain().map(|(_, p)| p).collect();
        pending.sort_by_key(|p| p.frame);
        for request in pending {
            self.problems.push(Problem {
                frame: request.frame,
                kind: ProblemKind::Unanswered,
                pointer: Some("/id".into()),
                message: format!("the `{}` request was never answered", request.method),
            });
        }
        self.problems.sort_by_key(|p| p.frame);
        &self.problems
    }

    fn on_stream_item(&mut self, index: usize, method: &str, body: &str) -> bool {
        let Ok(item) = serde_json::from_str::<Value>(body) else {
            return false;
        };
        let is_envelope = item.get("jsonrpc").is_some() || item.get("method").is_some();
        if is_envelope {
            return false;
        }
        // A failed stream ends with its error inside a one-element array
        // (see `serve::stream_failure_body`): the request's error answer.
        if let Some(error) = crate::serve::stream_failure_of(&item) {
            let failed: Vec<String> = self
                .pending
                .iter()
                .filter(|(_, p)| p.method == method)
                .map(|(key, _)| key.clone())
                .collect();
            for key in failed {
                if let Some(pending) = self.pending.remove(&key) {
                    if !pending.faulty {
                        self.session.answered(method, Err(&error));
                    }
                }
            }
            self.session.end();
            return true;
        }
        // The first item answers the streamed request: no envelope follows.
        let answered: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| p.method == method)
            .map(|(key, _)| key.clone())
            .collect();
        for key in answered {
            if let Some(pending) = self.pending.remove(&key) {
                if !pending.faulty {
                    self.session.answered(method, Ok(&Value::Null));
                }
            }
        }
        let issues = self.protocol.validate(method, Part::Item, Some(&item));
        self.report(index, ProblemKind::InvalidResult, "", &issues);
        true
    }

    fn on_request(&mut self, index: usize, request: Request) {
        let Request { id, method, params } = request;
        let key = id.to_value().to_string();
        let Some(spec) = self
            .protocol
            .method(&method)
            .filter(|s| s.kind == MethodKind::Request)
        else {
            self.problem(
                index,
                ProblemKind::UnknownMethod,
                Some("/method"),
                format!("`{method}` is not a request of {}", self.protocol.id()),
            );
            self.pending.insert(
                key,
                Pending {
                    method,
                    frame: index,
                    faulty: true,
                    presumed: false,
                },
            );
            return;
        };
        let streamed = spec.result_stream.is_some();
        let mut faulty = false;
        if let Err(violation) = self.session.check(&method) {
            let kind = match violation.kind() {
                ViolationKind::CapabilityNotDeclared => ProblemKind::Capability,
                _ => ProblemKind::Lifecycle,
            };
            self.problem(
                index,
                kind,
                Some("/method"),
                violation.answer().message.clone(),
            );
            faulty = true;
        }
        let issues = self
            .protocol
            .validate(&method, Part::Params, params.as_ref());
        faulty |= !issues.is_empty();
        self.report(index, ProblemKind::InvalidParams, "/params", &issues);
        if !faulty {
            // A version mismatch is a negotiated outcome, not a fault (the
            // server's error answer ends the session when the protocol says
            // so); a stateful rule's failure is the client's fault.
            if let Err(violation) = self.session.admit(&method, params.as_ref()) {
                if violation.kind() == ViolationKind::Rule {
                    let pointer = violation.pointer().unwrap_or("/params").to_owned();
                    self.problem(
                        index,
                        ProblemKind::Rule,
                        Some(&pointer),
                        violation.answer().message.clone(),
                    );
                    faulty = true;
                }
            }
        }
        if self.pending.contains_key(&key) {
            self.problem(
                index,
                ProblemKind::DuplicateId,
                Some("/id"),
                format!("id {key} is already pending"),
            );
            return;
        }
        if streamed && !faulty {
            self.streaming = Some(method.clone());
        }
        self.pending.insert(
            key,
            Pending {
                method,
                frame: index,
                faulty,
                presumed: false,
            },
        );
    }

    fn on_notification(&mut self, index: usize, method: &str, params: Option<&Value>) {
        if self
            .protocol
            .method(method)
            .filter(|s| s.kind == MethodKind::Notification)
            .is_none()
        {
            let message = format!("`{method}` is not a notification of {}", self.protocol.id());
            self.problem(index, ProblemKind::UnknownMethod, Some("/method"), message);
            return;
        }
        let issues = self.protocol.validate(method, Part::Params, params);
        self.report(index, ProblemKind::InvalidParams, "/params", &issues);
        if !issues.is_empty() {
            return;
        }
        let mut outcome = self.session.notify(method, params);
        if outcome
            .as_ref()
            .is_err_and(|v| v.kind() == ViolationKind::WrongState)
            && self.presume_pending_success(method)
        {
            outcome = self.session.notify(method, params);
        }
        if let Err(violation) = outcome {
            let kind = match violation.kind() {
                ViolationKind::Rule => ProblemKind::Rule,
                ViolationKind::CapabilityNotDeclared => ProblemKind::Capability,
                _ => ProblemKind::Lifecycle,
            };
            let pointer = violation.pointer().unwrap_or("/method").to_owned();
            self.problem(
                index,
                kind,
                Some(&pointer),
                violation.answer().message.clone(),
            );
        }
    }

    fn on_response(&mut self, index: usize, response: Response) {
        // Every error object, answered to a known request or not, against
        // the protocol's error schemas (`error_data`, `error_object`).
        if let Err(error) = &response.outcome {
            let issues = self.protocol.validate_error(error);
            self.report(index, ProblemKind::InvalidResult, "/error", &issues);
        }
        let key = response
            .id
            .as_ref()
            .map_or_else(|| "null".to_owned(), |id| id.to_value().to_string());
        if response.outcome.is_err() && !self.pending.contains_key(&key) {
            // The error answer owed to a refused frame (a framing fault, a
            // refused envelope) is no unknown id.
            if let Some(at) = self.owed.iter().position(|owed| *owed == key) {
                self.owed.remove(at);
                return;
            }
        }
        let Some(pending) = self.pending.remove(&key) else {
            let message = format!("response id {key} matches no pending request");
            self.problem(index, ProblemKind::UnknownId, Some("/id"), message);
            return;
        };
        if let Ok(result) = &response.outcome {
            let issues = self
                .protocol
                .validate(&pending.method, Part::Result, Some(result));
            self.report(index, ProblemKind::InvalidResult, "/result", &issues);
        }
        if pending.presumed {
            if let Err(error) = &response.outcome {
                let message = format!(
                    "`{}` was refused ({}) after the server had already sent what only its success allows",
                    pending.method, error.code
                );
                self.problem(index, ProblemKind::Lifecycle, Some("/error"), message);
            }
        } else if !pending.faulty {
            self.session
                .answered(&pending.method, response.outcome.as_ref());
        }
    }

    /// A notification came in a state that a pending request's success
    /// would have reached: the two pipes of a capture interleave loosely, so
    /// the response may still be on its way. Presumes that success (once).
    fn presume_pending_success(&mut self, notification: &str) -> bool {
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
            .filter(|(_, p)| !p.faulty && !p.presumed && leads_there(&p.method))
            .min_by_key(|(_, p)| p.frame)
            .map(|(key, _)| key.clone());
        let Some(key) = candidate else { return false };
        let Some(pending) = self.pending.get_mut(&key) else {
            return false;
        };
        pending.presumed = true;
        let method = pending.method.clone();
        self.session.answered(&method, Ok(&Value::Null));
        true
    }

    fn report(
        &mut self,
        index: usize,
        kind: ProblemKind,
        prefix: &str,
        issues: &[ValidationIssue],
    ) {
        for issue in issues {
            self.problems.push(Problem {
                frame: index,
                kind,
                pointer: Some(format!("{prefix}{}", issue.instance_path)),
                message: format!("{} [{}]", issue.message, issue.keyword()),
            });
        }
    }

    fn problem(&mut self, index: usize, kind: ProblemKind, pointer: Option<&str>, message: String) {
        self.problems.push(Problem {
            frame: index,
            kind,
            pointer: pointer.map(str::to_owned),
            message,
        });
    }
}
