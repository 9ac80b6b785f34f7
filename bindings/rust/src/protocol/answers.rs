//! How a server shapes the errors it produces itself (`server_errors` in the
//! manifest): parse errors, refused envelopes and frames, unknown methods,
//! undeclared capabilities, invalid params, internal errors, answers over
//! the frame bound and rule violations. Each case has a code and a `data`
//! template; a case the manifest leaves out keeps wirekit's default shape.
//! Lifecycle violations are declared in `lifecycle.violation` and version
//! mismatches in `version_negotiation`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::envelope::{ErrorCode, ErrorObject};

/// One error the server produces itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCase {
    /// The body is not one JSON value.
    ParseError,
    /// The envelope is refused.
    InvalidRequest,
    /// The framing refused a frame.
    Framing,
    /// The protocol or the server has no such method.
    MethodNotFound,
    /// An optional method whose capability was not declared.
    CapabilityNotDeclared,
    /// The params fail their schema.
    InvalidParams,
    /// The handler failed or produced an invalid answer.
    InternalError,
    /// The server's answer would exceed the frame bound.
    AnswerTooLong,
    /// A stateful rule failed.
    Rule,
}

impl ErrorCase {
    /// Every case, in manifest order.
    pub const ALL: [ErrorCase; 9] = [
        ErrorCase::ParseError,
        ErrorCase::InvalidRequest,
        ErrorCase::Framing,
        ErrorCase::MethodNotFound,
        ErrorCase::CapabilityNotDeclared,
        ErrorCase::InvalidParams,
        ErrorCase::InternalError,
        ErrorCase::AnswerTooLong,
        ErrorCase::Rule,
    ];

    /// The case's member name in `server_errors` (`invalid_params`).
    pub const fn name(self) -> &'static str {
        match self {
            ErrorCase::ParseError => "parse_error",
            ErrorCase::InvalidRequest => "invalid_request",
            ErrorCase::Framing => "framing",
            ErrorCase::MethodNotFound => "method_not_found",
            ErrorCase::CapabilityNotDeclared => "capability_not_declared",
            ErrorCase::InvalidParams => "invalid_params",
            ErrorCase::InternalError => "internal_error",
            ErrorCase::AnswerTooLong => "answer_too_long",
            ErrorCase::Rule => "rule",
        }
    }

    /// The standard code of the case, for a `kind` (a framing fault that is
    /// not UTF-8 is a parse error).
    pub fn standard_code(self, kind: Option<&str>) -> i64 {
        match self {
            ErrorCase::ParseError => ErrorCode::PARSE_ERROR.0,
            ErrorCase::Framing if kind == Some("BodyNotUtf8") => ErrorCode::PARSE_ERROR.0,
            ErrorCase::InvalidRequest | ErrorCase::Framing => ErrorCode::INVALID_REQUEST.0,
            ErrorCase::MethodNotFound | ErrorCase::CapabilityNotDeclared => {
                ErrorCode::METHOD_NOT_FOUND.0
            }
            ErrorCase::InvalidParams | ErrorCase::Rule => ErrorCode::INVALID_PARAMS.0,
            ErrorCase::InternalError | ErrorCase::AnswerTooLong => ErrorCode::INTERNAL_ERROR.0,
        }
    }

    /// wirekit's `data` template when the manifest declares none.
    pub fn default_data(self) -> Option<Value> {
        match self {
            ErrorCase::ParseError | ErrorCase::InvalidRequest => {
                Some(json!({"kind": "{kind}", "pointer": "{pointer}"}))
            }
            ErrorCase::InvalidParams => Some(json!({"part": "params", "errors": "{errors}"})),
            ErrorCase::InternalError => Some(json!({"part": "{part}", "errors": "{errors}"})),
            ErrorCase::Rule => Some(json!({"rule": "{rule}"})),
            ErrorCase::AnswerTooLong => {
                Some(json!({"bytes": "{bytes}", "max_frame_bytes": "{limit}"}))
            }
            ErrorCase::Framing | ErrorCase::MethodNotFound | ErrorCase::CapabilityNotDeclared => {
                None
            }
        }
    }

    /// The placeholders a case fills, with sample values (used to check a
    /// protocol's declared answers against its error schemas at load time).
    pub fn samples(self) -> Vec<(&'static str, Value)> {
        let errors = json!([{
            "pointer": "/member",
            "keyword": "required",
            "schema_path": "/required",
            "message": "required member `member` is missing",
        }]);
        match self {
            ErrorCase::ParseError | ErrorCase::InvalidRequest => {
                vec![("kind", json!("Parse")), ("pointer", json!(""))]
            }
            ErrorCase::Framing => vec![("kind", json!("FrameTooLong"))],
            ErrorCase::MethodNotFound => vec![("method", json!("method"))],
            ErrorCase::CapabilityNotDeclared => vec![
                ("method", json!("method")),
                ("capability", json!("capability")),
            ],
            ErrorCase::InvalidParams => vec![("method", json!("method")), ("errors", errors)],
            ErrorCase::InternalError => vec![
                ("method", json!("method")),
                ("part", json!("result")),
                ("errors", errors),
            ],
            ErrorCase::AnswerTooLong => vec![
                ("method", json!("method")),
                ("bytes", json!(2_000_000)),
                ("limit", json!(1_048_576)),
            ],
            ErrorCase::Rule => vec![("rule", json!("rule")), ("pointer", json!("/member"))],
        }
    }
}

/// The code and `data` template of one self-produced error, with overrides
/// by kind (framing fault or envelope error kind) where the case has kinds.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorShape {
    /// The code; `None` for the case's standard code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// The `data` template; `None` (or JSON null) for no `data` member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Kind name to the shape used for that kind instead.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub by_kind: IndexMap<String, ErrorShape>,
}

/// The manifest's `server_errors`: one optional shape a case.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServerErrors {
    /// See [`ErrorCase::ParseError`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_error: Option<ErrorShape>,
    /// See [`ErrorCase::InvalidRequest`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_request: Option<ErrorShape>,
    /// See [`ErrorCase::Framing`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framing: Option<ErrorShape>,
    /// See [`ErrorCase::MethodNotFound`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method_not_found: Option<ErrorShape>,
    /// See [`ErrorCase::CapabilityNotDeclared`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability_not_declared: Option<ErrorShape>,
    /// See [`ErrorCase::InvalidParams`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_params: Option<ErrorShape>,
    /// See [`ErrorCase::InternalError`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_error: Option<ErrorShape>,
    /// See [`ErrorCase::AnswerTooLong`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_too_long: Option<ErrorShape>,
    /// See [`ErrorCase::Rule`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<ErrorShape>,
}

impl ServerErrors {
    /// The declared shape of a case, if the manifest declares one.
    pub fn declared(&self, case: ErrorCase) -> Option<&ErrorShape> {
        match case {
            ErrorCase::ParseError => self.parse_error.as_ref(),
            ErrorCase::InvalidRequest => self.invalid_request.as_ref(),
            ErrorCase::Framing => self.framing.as_ref(),
            ErrorCase::MethodNotFound => self.method_not_found.as_ref(),
            ErrorCase::CapabilityNotDeclared => self.capability_not_declared.as_ref(),
            ErrorCase::InvalidParams => self.invalid_params.as_ref(),
            ErrorCase::InternalError => self.internal_error.as_ref(),
            ErrorCase::AnswerTooLong => self.answer_too_long.as_ref(),
            ErrorCase::Rule => self.rule.as_ref(),
        }
    }

    /// The error of `case` (of `kind`, for the kinded cases) with
    /// `message`, its code and `data` from the declaration (or wirekit's
    /// default), placeholders filled from `values`.
    pub fn build(
        &self,
        case: ErrorCase,
        kind: Option<&str>,
        message: String,
        values: &[(&str, Value)],
    ) -> ErrorObject {
        let code = self.declared(case).and_then(|shape| {
            let chosen = kind.and_then(|k| shape.by_kind.get(k)).unwrap_or(shape);
            chosen.code.or(shape.code)
        });
        let template = self.template(case, kind);
        let mut filled: Vec<(&str, Value)> = values.to_vec();
        if let Some(kind) = kind {
            filled.push(("kind", Value::from(kind)));
        }
        let data = template
            .as_ref()
            .filter(|t| !t.is_null())
            .and_then(|t| fill(t, &filled));
        ErrorObject {
            code: code.unwrap_or_else(|| case.standard_code(kind)),
            message,
            data,
        }
    }

    /// The `data` template of `case` (of `kind`), placeholders unfilled:
    /// the declared one, or wirekit's default; `None` for no `data`.
    /// A monitor compares an answer's `data` with its constant members.
    pub fn template(&self, case: ErrorCase, kind: Option<&str>) -> Option<Value> {
        match self.declared(case) {
            None => case.default_data(),
            Some(shape) => {
                let chosen = kind.and_then(|k| shape.by_kind.get(k)).unwrap_or(shape);
                chosen.data.clone().filter(|data| !data.is_null())
            }
        }
    }

    /// The `data` template the protocol itself declares for `case` (of
    /// `kind`), placeholders unfilled; `None` when it declares none (then
    /// wirekit's default shape is the serve loop's choice, not a rule of the
    /// protocol a monitor may hold another server to) or no `data`.
    pub fn declared_template(&self, case: ErrorCase, kind: Option<&str>) -> Option<Value> {
        self.declared(case).and_then(|_| self.template(case, kind))
    }

    /// Every (pointer in the manifest, kind) pair whose answer a load-time
    /// check must try: the case itself and each of its `by_kind` entries.
    pub fn variants(&self, case: ErrorCase) -> Vec<(String, Option<String>)> {
        let at = format!("/server_errors/{}", case.name());
        let mut variants = vec![(at.clone(), None)];
        if let Some(shape) = self.declared(case) {
            for kind in shape.by_kind.keys() {
                variants.push((format!("{at}/by_kind/{kind}"), Some(kind.clone())));
            }
        }
        variants
    }
}

/// Fills a template: a string that is exactly one `{name}` becomes that
/// value (`None` when unknown, so an object drops the member); other strings
/// get their placeholders replaced as text.
fn fill(template: &Value, values: &[(&str, Value)]) -> Option<Value> {
    match template {
        Value::String(text) => {
            if let Some(name) = text
                .strip_prefix('{')
                .and_then(|t| t.strip_suffix('}'))
                .filter(|n| !n.contains(['{', '}']))
            {
                return values
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| value.clone());
            }
            let mut filled = text.clone();
            for (name, value) in values {
                let shown = match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                filled = filled.replace(&format!("{{{name}}}"), &shown);
            }
            Some(Value::String(filled))
        }
        Value::Array(items) => Some(Value::Array(
            items
                .iter()
                .map(|item| fill(item, values).unwrap_or(Value::Null))
                .collect(),
        )),
        Value::Object(members) => Some(Value::Object(
            members
                .iter()
                .filter_map(|(key, value)| fill(value, values).map(|v| (key.clone(), v)))
                .collect::<Map<String, Value>>(),
        )),
        other => Some(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_keep_the_historic_shapes() {
        let answers = ServerErrors::default();
        let error = answers.build(
            ErrorCase::InvalidRequest,
            Some("DuplicateKey"),
            "Invalid Request: x".into(),
            &[("pointer", json!("/id"))],
        );
        assert_eq!(error.code, -32600);
        assert_eq!(
            error.data,
            Some(json!({"kind": "DuplicateKey", "pointer": "/id"}))
        );
        let framing = answers.build(ErrorCase::Framing, Some("BodyNotUtf8"), "x".into(), &[]);
        assert_eq!((framing.code, framing.data), (-32700, None));
    }

    #[test]
    fn declared_shapes_fill_placeholders_and_pick_by_kind() {
        let answers: ServerErrors = serde_json::from_value(json!({
            "framing": {
                "code": -32600,
                "data": {"class": "invalid_request", "details": {"kind": "{kind}", "at": "byte {offset}"}},
                "by_kind": {"FrameTooLong": {"data": {"class": "budget_exceeded"}}}
            },
            "invalid_params": {"data": {"class": "invalid_request", "details": {"errors": "{errors}", "missing": "{nothing}"}}},
            "method_not_found": {"data": null}
        }))
        .unwrap_or_default();
        let long = answers.build(ErrorCase::Framing, Some("FrameTooLong"), "x".into(), &[]);
        assert_eq!(
            (long.code, long.data),
            (-32600, Some(json!({"class": "budget_exceeded"})))
        );
        let cr = answers.build(
            ErrorCase::Framing,
            Some("BareCarriageReturn"),
            "x".into(),
            &[("offset", json!(7))],
        );
        assert_eq!(
            cr.data,
            Some(
                json!({"class": "invalid_request", "details": {"kind": "BareCarriageReturn", "at": "byte 7"}})
            )
        );
        let params = answers.build(
            ErrorCase::InvalidParams,
            None,
            "x".into(),
            &[("errors", json!([1]))],
        );
        assert_eq!(
            (params.code, params.data),
            (
                -32602,
                Some(json!({"class": "invalid_request", "details": {"errors": [1]}}))
            )
        );
        let unknown = answers.build(ErrorCase::MethodNotFound, None, "x".into(), &[]);
        assert_eq!(unknown.data, None);
    }

    #[test]
    fn unknown_cases_are_refused() {
        let parsed: Result<ServerErrors, _> = serde_json::from_value(json!({"parse": {}}));
        assert!(parsed.is_err());
    }
}
