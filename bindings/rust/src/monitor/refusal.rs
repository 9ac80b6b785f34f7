//! What the protocol answers to a message it refuses, and the judgement of
//! the answer a server actually sent.
//!
//! The expected answers come from the core's one model of a protocol: the
//! same [`Protocol`] answers the serve loop sends (`framing_answer`,
//! `envelope_answer`, `method_not_found_answer`, `invalid_params_answer`,
//! and each lifecycle, capability, version or rule [`Violation`]), with the
//! `data` templates the manifest's `server_errors` declares (a case it
//! leaves to wirekit's default asks for no `data` shape). Nothing here is
//! written per protocol.

use serde_json::Value;

use crate::envelope::{EnvelopeError, ErrorObject};
use crate::framing::FramingError;
use crate::protocol::{ErrorCase, ErrorCodes};
use crate::session::Violation;
use crate::validate::{Protocol, ValidationIssue};

/// One answer the protocol gives: its code and the shape of its `data`.
#[derive(Debug, Clone)]
struct Answer {
    code: i64,
    /// The manifest's `data` template, placeholders unfilled.
    template: Option<Value>,
}

/// A message the protocol refuses: why, and every answer that refuses it
/// correctly (the first is the serve loop's; the others answer the same
/// message's other faults, which a server may find first).
#[derive(Debug, Clone)]
pub(super) struct Refusal {
    reason: String,
    answers: Vec<Answer>,
    /// Whether the server owes an answer: not after the session ended (a
    /// server may have exited), nor to a frame that may be its own.
    pub(super) required: bool,
}

/// What is wrong with an error answer to a refused message.
pub(super) struct Mismatch {
    /// The JSON pointer within the answer (`/error/code`, `/error/data/class`).
    pub(super) pointer: String,
    /// What came and what the protocol answers, as a sentence's end.
    pub(super) message: String,
}

impl Refusal {
    fn new(reason: String, code: i64, template: Option<Value>) -> Self {
        Refusal {
            reason,
            answers: vec![Answer { code, template }],
            required: true,
        }
    }

    /// A lifecycle, capability, version or rule violation, answered as the
    /// violation says.
    pub(super) fn violation(violation: &Violation) -> Self {
        let answer = violation.answer();
        Refusal::new(
            answer.message.clone(),
            answer.code,
            violation.data_template().cloned(),
        )
    }

    /// A method the protocol does not define.
    pub(super) fn unknown_method(protocol: &Protocol, method: &str, reason: String) -> Self {
        let answer = protocol.method_not_found_answer(method);
        let template = protocol
            .server_errors()
            .declared_template(ErrorCase::MethodNotFound, None);
        Refusal::new(reason, answer.code, template)
    }

    /// Params that fail their schema.
    pub(super) fn invalid_params(
        protocol: &Protocol,
        method: &str,
        issues: &[ValidationIssue],
    ) -> Self {
        let answer = protocol.invalid_params_answer(method, issues);
        let template = protocol
            .server_errors()
            .declared_template(ErrorCase::InvalidParams, None);
        Refusal::new(answer.message, answer.code, template)
    }

    /// A frame the framing refuses.
    pub(super) fn framing(protocol: &Protocol, fault: &FramingError) -> Self {
        let kind = fault.kind().name();
        let answer = protocol.framing_answer(fault);
        let template = protocol
            .server_errors()
            .declared_template(ErrorCase::Framing, Some(kind));
        Refusal::new(answer.message, answer.code, template)
    }

    /// A body that is not JSON, or an envelope refused.
    pub(super) fn envelope(protocol: &Protocol, error: &EnvelopeError) -> Self {
        let case = if error.kind().is_parse_level() {
            ErrorCase::ParseError
        } else {
            ErrorCase::InvalidRequest
        };
        let answer = protocol.envelope_answer(error);
        let template = protocol
            .server_errors()
            .declared_template(case, Some(error.kind().as_str()));
        Refusal::new(error.message().to_owned(), answer.code, template)
    }

    /// Another fault of the same message: its answer refuses it as well.
    pub(super) fn or(mut self, other: Refusal) -> Self {
        self.answers.extend(other.answers);
        self
    }

    /// Why the protocol refuses the message.
    pub(super) fn reason(&self) -> &str {
        &self.reason
    }

    /// The length of the shortest `"error":{...}` member that answers it:
    /// the protocol's code and sentence, without `data`.
    pub(super) fn shortest_error_len(&self) -> usize {
        let code = self
            .answers
            .iter()
            .map(|a| a.code.to_string().len())
            .min()
            .unwrap_or(1);
        r#""error":{"code":,"message":""}"#.len() + code + self.reason.len()
    }

    /// The protocol's code(s): `-32600`, `-32600 or -32602`.
    pub(super) fn codes(&self) -> String {
        let mut codes: Vec<String> = Vec::new();
        for answer in &self.answers {
            let code = answer.code.to_string();
            if !codes.contains(&code) {
                codes.push(code);
            }
        }
        codes.join(" or ")
    }

    /// `None` when `error` is one of the protocol's answers: its code
    /// (unless the protocol's `error_codes` are `free`), and `data`
    /// holding the template's constant members; else what differs.
    pub(super) fn judge(&self, error: &ErrorObject, codes: ErrorCodes) -> Option<Mismatch> {
        let mut data_mismatch = None;
        for answer in &self.answers {
            if codes == ErrorCodes::Fixed && answer.code != error.code {
                continue;
            }
            match differing_constant(answer.template.as_ref(), error.data.as_ref()) {
                None => return None,
                Some(found) => {
                    data_mismatch.get_or_insert(found);
                }
            }
        }
        if let Some((pointer, expected, found)) = data_mismatch {
            let found = found.map_or_else(|| "nothing".to_owned(), |v| v.to_string());
            return Some(Mismatch {
                pointer: format!("/error/data{pointer}"),
                message: format!(
                    "error {} carries {found} at data{pointer} where the protocol's answer carries {expected}",
                    error.code
                ),
            });
        }
        Some(Mismatch {
            pointer: "/error/code".to_owned(),
            message: format!(
                "answered error {} ({}) where the protocol answers {}",
                error.code,
                error.message,
                self.codes()
            ),
        })
    }
}

/// The first constant member of `template` (a scalar that is no
/// `"{placeholder}"` text) that `data` does not hold: its pointer, the
/// constant and what `data` holds there.
fn differing_constant(
    template: Option<&Value>,
    data: Option<&Value>,
) -> Option<(String, Value, Option<Value>)> {
    let mut constants = Vec::new();
    if let Some(template) = template {
        collect_constants(template, String::new(), &mut constants);
    }
    constants.into_iter().find_map(|(pointer, constant)| {
        let found = data.and_then(|d| d.pointer(&pointer));
        (found != Some(&constant)).then(|| (pointer, constant, found.cloned()))
    })
}

fn collect_constants(template: &Value, at: String, out: &mut Vec<(String, Value)>) {
    match template {
        Value::Object(members) => {
            for (name, value) in members {
                let escaped = name.replace('~', "~0").replace('/', "~1");
                collect_constants(value, format!("{at}/{escaped}"), out);
            }
        }
        Value::String(text) if text.contains('{') => {}
        Value::String(_) | Value::Number(_) | Value::Bool(_) => {
            out.push((at, template.clone()));
        }
        Value::Array(_) | Value::Null => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(code: i64, data: Option<Value>) -> ErrorObject {
        ErrorObject {
            code,
            message: "m".into(),
            data,
        }
    }

    #[test]
    fn code_and_constant_data_members_decide() {
        let refusal = Refusal::new(
            "wrong state".into(),
            -32000,
            Some(json!({"class": "invalid_state", "details": {"method": "{method}"}})),
        );
        let fixed = ErrorCodes::Fixed;
        assert!(refusal
            .judge(
                &error(-32000, Some(json!({"class": "invalid_state"}))),
                fixed
            )
            .is_none());
        let data = refusal
            .judge(
                &error(-32000, Some(json!({"class": "invalid_request"}))),
                fixed,
            )
            .map(|m| m.pointer);
        assert_eq!(data.as_deref(), Some("/error/data/class"));
        let code = refusal
            .judge(&error(-32602, None), fixed)
            .map(|m| (m.pointer, m.message));
        assert_eq!(
            code,
            Some((
                "/error/code".to_owned(),
                "answered error -32602 (m) where the protocol answers -32000".to_owned()
            ))
        );
    }

    #[test]
    fn placeholder_only_templates_ask_for_nothing_and_alternatives_count() {
        let refusal = Refusal::new(
            "x".into(),
            -32700,
            Some(json!({"kind": "{kind}", "pointer": "{pointer}"})),
        )
        .or(Refusal::new("y".into(), -32602, None));
        assert!(refusal
            .judge(&error(-32700, None), ErrorCodes::Fixed)
            .is_none());
        assert!(refusal
            .judge(&error(-32602, None), ErrorCodes::Fixed)
            .is_none());
        assert_eq!(refusal.codes(), "-32700 or -32602");
    }

    #[test]
    fn free_codes_demand_only_the_constant_data_members() {
        let refusal = Refusal::new(
            "wrong state".into(),
            -32000,
            Some(json!({"class": "invalid_state"})),
        );
        let free = ErrorCodes::Free;
        assert!(refusal
            .judge(
                &error(-32602, Some(json!({"class": "invalid_state"}))),
                free
            )
            .is_none());
        let data = refusal
            .judge(
                &error(-32000, Some(json!({"class": "invalid_request"}))),
                free,
            )
            .map(|m| m.pointer);
        assert_eq!(data.as_deref(), Some("/error/data/class"));
    }
}
