//! Judging the server's answers: each paired with what it answers (a
//! pending request, a frame that could not be read, a notification by
//! mistake, or nothing), checked against what the protocol answers there,
//! and followed: the session state moves on what the server answered.

use serde_json::Value;

use super::checker::{pending_key, Answered, Owed, Pending, SessionChecker};
use super::problem::ProblemKind;
use crate::capture::Sender;
use crate::envelope::{EnvelopeError, Response};
use crate::protocol::UnreadableId;
use crate::validate::Part;

impl SessionChecker {
    pub(super) fn on_response(&mut self, index: usize, response: Response) {
        // Every error object, answered to a known request or not, against
        // the protocol's error schemas (`error_data`, `error_object`).
        let key = response
            .id
            .as_ref()
            .map_or_else(|| "null".to_owned(), |id| id.to_value().to_string());
        if let Err(error) = &response.outcome {
            // A method's own `error_data`, where the answered request has one.
            let method = self
                .answered_key(&key)
                .and_then(|k| self.pending.get(&k))
                .map(|p| p.method.clone());
            let issues = self.protocol.validate_error_of(method.as_deref(), error);
            self.report(index, ProblemKind::InvalidResult, "/error", &issues);
        }
        if let Some(key) = self.answered_key(&key) {
            if let Some(pending) = self.pending.remove(&key) {
                self.on_answer(index, key, pending, &response);
                return;
            }
        }
        if let Some(at) = self.owed_position(&key) {
            if let Some(owed) = self.owed.remove(at) {
                self.on_owed_answer(index, &owed, &response);
            }
            return;
        }
        let first = self
            .answered
            .get(&key)
            .or_else(|| self.answered.get(&pending_key(&key, true)))
            .cloned();
        if let Some(first) = first {
            let message = format!(
                "a second answer to the `{}` request of frame {} (id {key}), first answered at frame {}",
                first.method, first.request, first.answer
            );
            self.push_related(
                index,
                ProblemKind::DuplicateAnswer,
                Some("/id"),
                message,
                Some(first.answer),
            );
            return;
        }
        if key == "null" {
            if let Some((frame, method)) = self.notifications.pop_front() {
                let message = format!(
                    "answers the notification `{method}` of frame {frame}; a notification gets no answer"
                );
                self.push_related(
                    index,
                    ProblemKind::AnsweredNotification,
                    Some("/id"),
                    message,
                    Some(frame),
                );
                return;
            }
        }
        let message = if key == "null" {
            "an answer with id null, but no frame before it failed to be read and no notification came"
                .to_owned()
        } else {
            format!("answers id {key}, which no request carried")
        };
        self.push(index, ProblemKind::UnknownId, Some("/id"), message);
    }

    /// The pending request an answer's id answers: the client's request
    /// with that id or the server's; when both wait, the later one (a
    /// client answers the server's request while its own call waits).
    fn answered_key(&self, id: &str) -> Option<String> {
        let client = self.pending.get(id).map(|p| (p.frame, id.to_owned()));
        let server_key = pending_key(id, true);
        let server = self.pending.get(&server_key).map(|p| (p.frame, server_key));
        // Where the sides file says who answers: the other peer's request.
        match self.sender {
            Some(Sender::Server) => return client.map(|c| c.1),
            Some(Sender::Client) => return server.map(|s| s.1),
            None => {}
        }
        match (client, server) {
            (Some(c), Some(s)) => Some(if s.0 > c.0 { s.1 } else { c.1 }),
            (Some(c), None) => Some(c.1),
            (None, Some(s)) => Some(s.1),
            (None, None) => None,
        }
    }

    /// The owed answer an id answers: the refused frame with that id; for
    /// `null` (JSON-RPC's id when it could not be read) the oldest one
    /// without an id, else the oldest.
    fn owed_position(&self, key: &str) -> Option<usize> {
        let exact = self.owed.iter().position(|owed| owed.key == key);
        let silent = self.protocol.manifest().transport.unreadable_id == UnreadableId::Silent;
        if key != "null" || silent {
            // A silent protocol answers no frame with `null`.
            return exact;
        }
        exact.or_else(|| (!self.owed.is_empty()).then_some(0))
    }

    fn on_owed_answer(&mut self, index: usize, owed: &Owed, response: &Response) {
        match &response.outcome {
            Ok(_) if owed.invalid_id => {
                let message = format!(
                    "answers the request of frame {}, whose id was invalid, with a result; the protocol refuses it with error {} ({})",
                    owed.frame,
                    owed.refusal.codes(),
                    owed.refusal.reason()
                );
                self.push_related(
                    index,
                    ProblemKind::ResultForInvalidId,
                    Some("/result"),
                    message,
                    Some(owed.frame),
                );
            }
            Ok(_) => {
                let message = format!(
                    "answers frame {}, which the protocol refuses ({}), with a result instead of error {}",
                    owed.frame,
                    owed.refusal.reason(),
                    owed.refusal.codes()
                );
                self.push_related(
                    index,
                    ProblemKind::AcceptedInvalid,
                    Some("/result"),
                    message,
                    Some(owed.frame),
                );
            }
            Err(error) => {
                if let Some(mismatch) = owed
                    .refusal
                    .judge(error, self.protocol.manifest().error_codes)
                {
                    let message = format!(
                        "the answer to frame {} ({}) {}",
                        owed.frame,
                        owed.refusal.reason(),
                        mismatch.message
                    );
                    self.push_related(
                        index,
                        ProblemKind::WrongError,
                        Some(&mismatch.pointer),
                        message,
                        Some(owed.frame),
                    );
                }
            }
        }
    }

    /// A response-shaped frame the envelope refuses (the server's): one
    /// that echoes a request's invalid id with a result is that kind of
    /// problem; any other is an envelope problem of the server's.
    pub(super) fn on_refused_response(
        &mut self,
        index: usize,
        error: &EnvelopeError,
        has_result: bool,
    ) {
        let invalid = self.owed.iter().position(|owed| owed.invalid_id);
        if let (true, Some(at)) = (has_result, invalid) {
            if let Some(owed) = self.owed.remove(at) {
                let message = format!(
                    "answers the request of frame {}, whose id was invalid, with a result and the invalid id echoed; the protocol refuses it with error {} and id null",
                    owed.frame,
                    owed.refusal.codes()
                );
                self.push_related(
                    index,
                    ProblemKind::ResultForInvalidId,
                    Some("/id"),
                    message,
                    Some(owed.frame),
                );
                return;
            }
        }
        if let Some(at) = invalid {
            // An error answer to it, with the id echoed instead of null.
            self.owed.remove(at);
        }
        let message = format!(
            "the server's answer is not a valid response: {}",
            error.message()
        );
        self.push(index, ProblemKind::Envelope, Some(error.pointer()), message);
    }

    fn on_answer(&mut self, index: usize, key: String, pending: Pending, response: &Response) {
        // The answer to a request the server sent is the client's.
        self.server_side = pending.from_server;
        self.remember_answered(
            key.clone(),
            Answered {
                method: pending.method.clone(),
                request: pending.frame,
                answer: index,
            },
        );
        let method = pending.method.as_str();
        let known = self.protocol.method(method).is_some();
        if let Ok(result) = &response.outcome {
            let issues = self.protocol.validate(method, Part::Result, Some(result));
            self.report(index, ProblemKind::InvalidResult, "/result", &issues);
            if issues.is_empty() && !pending.from_server {
                self.check_value_sets(index, method, "/result", Some(result));
            }
        }
        if let (Err(error), Some(spec)) = (&response.outcome, self.protocol.method(method)) {
            let errors = &self.protocol.manifest().errors;
            if !spec.declares_error(error.code, errors) {
                let declared: Vec<String> = errors
                    .iter()
                    .filter(|e| spec.errors.contains(&e.name))
                    .map(|e| format!("{} {}", e.code, e.name))
                    .collect();
                let message = format!(
                    "`{method}` was answered with error {}, which it does not declare (its errors: {}, and JSON-RPC's own)",
                    error.code,
                    declared.join(", ")
                );
                self.push(
                    index,
                    ProblemKind::UndeclaredError,
                    Some("/error/code"),
                    message,
                );
            }
        }
        if pending.from_server {
            return;
        }
        match (&pending.refusal, &response.outcome) {
            (Some(refusal), Ok(result)) => {
                let message = format!(
                    "the `{method}` request of frame {} was answered with a result, but the protocol refuses it with error {} ({})",
                    pending.frame,
                    refusal.codes(),
                    refusal.reason()
                );
                self.push_related(
                    index,
                    ProblemKind::AcceptedInvalid,
                    Some("/result"),
                    message,
                    Some(pending.frame),
                );
                // Follow the server: it acted as if the request succeeded.
                if known && !self.session.is_ended() {
                    self.session.answered(method, Ok(result));
                    self.check_declared_version(index, method, result);
                }
            }
            (Some(refusal), Err(error)) => {
                if let Some(mismatch) = refusal.judge(error, self.protocol.manifest().error_codes) {
                    let message = format!(
                        "the `{method}` request of frame {} ({}): {}",
                        pending.frame,
                        refusal.reason(),
                        mismatch.message
                    );
                    self.push_related(
                        index,
                        ProblemKind::WrongError,
                        Some(&mismatch.pointer),
                        message,
                        Some(pending.frame),
                    );
                }
                if known {
                    self.session.answered(method, Err(error));
                }
            }
            (None, Ok(result)) => {
                if let Some(before) = pending.before {
                    // Presumed for a request behind it: the real result (its
                    // capabilities, its version) replaces the presumed one.
                    self.session = *before;
                    self.session.answered(method, Ok(result));
                } else if !pending.presumed {
                    self.session.answered(method, Ok(result));
                }
                self.check_declared_version(index, method, result);
            }
            (None, Err(error)) if pending.before.is_some() => {
                // Presumed for a request behind it, and refused: the session
                // is what it was, and the requests judged in the presumed
                // state are owed the refusal of the real one.
                if let Some(before) = pending.before {
                    self.session = *before;
                }
                self.session.answered(method, Err(error));
                let dependents: Vec<String> = self
                    .pending
                    .iter()
                    .filter(|(_, p)| p.depends_on.as_deref() == Some(key.as_str()))
                    .map(|(k, _)| k.clone())
                    .collect();
                for dependent in dependents {
                    let Some(waiting) = self.pending.get(&dependent) else {
                        continue;
                    };
                    if waiting.refusal.is_some() {
                        continue;
                    }
                    if let Err(violation) = self.session.check(&waiting.method) {
                        let refusal = super::refusal::Refusal::violation(&violation);
                        if let Some(waiting) = self.pending.get_mut(&dependent) {
                            waiting.refusal = Some(refusal);
                        }
                    }
                }
            }
            (None, Err(error)) => {
                if pending.presumed {
                    let message = format!(
                        "`{method}` was refused ({}) after the server had already sent what only its success allows",
                        error.code
                    );
                    self.push(index, ProblemKind::Lifecycle, Some("/error"), message);
                } else {
                    self.session.answered(method, Err(error));
                }
            }
        }
    }

    /// A result that declares the protocol version the server speaks
    /// (the manifest's `declared_version`): another version than the one
    /// checked is reported.
    fn check_declared_version(&mut self, index: usize, method: &str, result: &Value) {
        let manifest = self.protocol.manifest();
        let Some(declared) = manifest
            .declared_version
            .as_ref()
            .filter(|d| d.method == method)
        else {
            return;
        };
        let Some(version) = result
            .pointer(&declared.pointer)
            .and_then(crate::protocol::version_text)
        else {
            return;
        };
        if version == manifest.version {
            return;
        }
        let message = format!(
            "the server declares protocol version {version}, but the session is checked against {}",
            self.protocol.id()
        );
        let pointer = format!("/result{}", declared.pointer);
        self.push(index, ProblemKind::VersionMismatch, Some(&pointer), message);
    }
}
