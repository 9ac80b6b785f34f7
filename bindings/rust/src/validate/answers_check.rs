//! The load-time check that a protocol's own answers keep its own error
//! schemas: every case of `server_errors` (declared or default, each
//! `by_kind` variant), the lifecycle violations, the rules' own errors and
//! the version mismatch are built with sample values and validated against
//! `error_data` and `error_object`. A protocol that would break them is
//! refused, naming the manifest and the pointer of the answer at fault.

use serde_json::Value;

use super::compiled::Protocol;
use crate::envelope::{ErrorCode, ErrorObject};
use crate::protocol::{ErrorCase, ProtocolError, ProtocolErrorKind};

impl Protocol {
    /// Fails on the first self-produced answer that breaks the error
    /// schemas (called by [`Protocol::compile`] once the protocol is built).
    pub(super) fn check_own_answers(&self) -> Result<(), ProtocolError> {
        if !self.checks_errors() {
            return Ok(());
        }
        for (pointer, error) in answers(self) {
            if let Some(issue) = self.validate_error(&error).first() {
                let at = if issue.instance_path.is_empty() {
                    "(the error object)".to_owned()
                } else {
                    format!("error{}", issue.instance_path)
                };
                return Err(ProtocolError::new(
                    ProtocolErrorKind::Inconsistent,
                    format!("{}/protocol.json", self.source().origin),
                    pointer,
                    format!(
                        "this answer would break the protocol's own error schema at {at}: {} [{}]",
                        issue.message,
                        issue.keyword()
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Every answer the server can produce itself, with where it is declared.
fn answers(protocol: &Protocol) -> Vec<(String, ErrorObject)> {
    let manifest = protocol.manifest();
    let mut answers = Vec::new();
    for case in ErrorCase::ALL {
        for (pointer, kind) in manifest.server_errors.variants(case) {
            // The case's own shape is tried with a kind no `by_kind` names.
            let kind = kind.or_else(|| sample_kind(case).map(str::to_owned));
            let error = protocol.error_answer(
                case,
                kind.as_deref(),
                format!("sample {} message", case.name()),
                &case.samples(),
            );
            answers.push((pointer, error));
        }
    }
    if let Some(lifecycle) = &manifest.lifecycle {
        answers.push((
            "/lifecycle/violation".to_owned(),
            violation(
                &lifecycle.violation.message,
                lifecycle.violation.code,
                &lifecycle.violation.data,
            ),
        ));
    }
    for (name, method) in &manifest.methods {
        if let Some(own) = method.lifecycle.as_ref().and_then(|l| l.violation.as_ref()) {
            let escaped = name.replace('~', "~0").replace('/', "~1");
            answers.push((
                format!("/methods/{escaped}/lifecycle/violation"),
                violation(&own.message, own.code, &own.data),
            ));
        }
    }
    for (index, rule) in manifest.rules.iter().enumerate() {
        if let Some(error) = rule.arguments.get("error") {
            let code = error
                .get("code")
                .and_then(Value::as_i64)
                .unwrap_or(ErrorCode::INVALID_PARAMS.0);
            let data = error.get("data").cloned().filter(|d| !d.is_null());
            answers.push((
                format!("/rules/{index}/error"),
                ErrorObject {
                    code,
                    message: "sample rule message".to_owned(),
                    data,
                },
            ));
        }
    }
    if let Some(negotiation) = &manifest.version_negotiation {
        if let Some(error) = manifest.errors.iter().find(|e| e.name == negotiation.error) {
            answers.push((
                "/version_negotiation".to_owned(),
                ErrorObject::new(error.code, negotiation.message.clone()),
            ));
        }
    }
    answers
}

fn sample_kind(case: ErrorCase) -> Option<&'static str> {
    match case {
        ErrorCase::ParseError | ErrorCase::InvalidRequest | ErrorCase::Framing => {
            Some("SampleKind")
        }
        _ => None,
    }
}

fn violation(message: &str, code: i64, data: &Option<Value>) -> ErrorObject {
    ErrorObject {
        code,
        message: message.to_owned(),
        data: data.clone().filter(|d| !d.is_null()),
    }
}
