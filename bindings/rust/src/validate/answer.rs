//! The errors a server produces itself, shaped as the protocol declares
//! (`server_errors` in the manifest; see [`crate::protocol::ServerErrors`]).
//! The serve loop and the bindings build every self-produced error here.

use serde_json::{json, Value};

use super::compiled::Protocol;
use super::issue::{invalid_params, invalid_result, Part, ValidationIssue};
use crate::envelope::{EnvelopeError, ErrorObject};
use crate::framing::FramingError;
use crate::protocol::ErrorCase;

fn errors_json(issues: &[ValidationIssue]) -> Value {
    Value::Array(issues.iter().map(ValidationIssue::to_json).collect())
}

impl Protocol {
    /// The answer to a frame the framing refused.
    pub fn framing_answer(&self, fault: &FramingError) -> ErrorObject {
        let kind = fault.kind().name();
        self.error_answer(
            ErrorCase::Framing,
            Some(kind),
            format!("{kind} at byte {}: {}", fault.offset(), fault.detail()),
            &[("offset", json!(fault.offset()))],
        )
    }

    /// The answer to a body that is not JSON, or an envelope refused.
    pub fn envelope_answer(&self, error: &EnvelopeError) -> ErrorObject {
        let case = if error.kind().is_parse_level() {
            ErrorCase::ParseError
        } else {
            ErrorCase::InvalidRequest
        };
        let mut values = Vec::new();
        if let Some(pointer) = error.answered_pointer() {
            values.push(("pointer", json!(pointer)));
        }
        let mut answer = self.error_answer(
            case,
            Some(error.kind().as_str()),
            error.answer_message(),
            &values,
        );
        if self.server_errors().declared(case).is_none() {
            // wirekit's default keeps the kind's own code.
            answer.code = error.code().0;
        }
        answer
    }

    /// The -32601 answer (or the protocol's) for a method it or the
    /// server does not have.
    pub fn method_not_found_answer(&self, method: &str) -> ErrorObject {
        self.error_answer(
            ErrorCase::MethodNotFound,
            None,
            format!("Method not found: {method}"),
            &[("method", json!(method))],
        )
    }

    /// The answer to an optional method whose capability is undeclared.
    pub fn capability_answer(&self, method: &str, capability: &str) -> ErrorObject {
        self.error_answer(
            ErrorCase::CapabilityNotDeclared,
            None,
            format!(
                "`{method}` needs the capability `{capability}`, which the server did not declare"
            ),
            &[("method", json!(method)), ("capability", json!(capability))],
        )
    }

    /// The answer to a server's request (or a notification) gated on a
    /// capability the client did not declare.
    pub fn client_capability_answer(&self, method: &str, capability: &str) -> ErrorObject {
        self.error_answer(
            ErrorCase::CapabilityNotDeclared,
            None,
            format!(
                "`{method}` needs the capability `{capability}`, which the client did not declare"
            ),
            &[("method", json!(method)), ("capability", json!(capability))],
        )
    }

    /// The answer to params that fail their schema, listing every issue.
    pub fn invalid_params_answer(&self, method: &str, issues: &[ValidationIssue]) -> ErrorObject {
        let message = invalid_params(method, issues).message;
        self.error_answer(
            ErrorCase::InvalidParams,
            None,
            message,
            &[("method", json!(method)), ("errors", errors_json(issues))],
        )
    }

    /// The answer a server sends instead of its own invalid result (or
    /// item, or error).
    pub fn invalid_result_answer(
        &self,
        method: &str,
        part: Part,
        issues: &[ValidationIssue],
    ) -> ErrorObject {
        let message = invalid_result(method, part, issues).message;
        self.error_answer(
            ErrorCase::InternalError,
            None,
            message,
            &[
                ("method", json!(method)),
                ("part", json!(part.name())),
                ("errors", errors_json(issues)),
            ],
        )
    }

    /// The answer to a handler failure that is not the protocol's own
    /// error (`detail` says what went wrong).
    pub fn internal_error_answer(&self, method: &str, detail: &str) -> ErrorObject {
        self.error_answer(
            ErrorCase::InternalError,
            None,
            format!("Internal error in `{method}`: {detail}"),
            &[
                ("method", json!(method)),
                ("part", json!("result")),
                ("errors", json!([])),
            ],
        )
    }

    /// The answer to a failed stateful rule that gives no error of its own.
    pub fn rule_answer(&self, rule: &str, pointer: &str, message: String) -> ErrorObject {
        self.error_answer(
            ErrorCase::Rule,
            None,
            message,
            &[("rule", json!(rule)), ("pointer", json!(pointer))],
        )
    }
}
