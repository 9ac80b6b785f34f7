//! Validation problems as data: what kind, where in the instance (a JSON
//! pointer), which schema keyword or rule, and a sentence for a person.

use std::fmt;

use serde::Serialize;
use serde_json::{json, Value};

use crate::envelope::{ErrorCode, ErrorObject};

/// Which part of a message was checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// A request's or notification's `params`.
    Params,
    /// A success response's `result`.
    Result,
    /// One item of a streamed result (bare NDJSON).
    Item,
    /// An error response's `error.data`.
    ErrorData,
}

impl Part {
    /// `params`, `result`, `item` or `error_data`.
    pub fn name(self) -> &'static str {
        match self {
            Part::Params => "params",
            Part::Result => "result",
            Part::Item => "item",
            Part::ErrorData => "error_data",
        }
    }

    /// Where the part sits in its envelope (`/params`, `/result`, `/error/data`).
    pub fn envelope_pointer(self) -> &'static str {
        match self {
            Part::Params => "/params",
            Part::Result => "/result",
            Part::Item => "",
            Part::ErrorData => "/error/data",
        }
    }
}

/// The kind of a validation problem.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "name")]
pub enum IssueKind {
    /// A JSON Schema keyword failed (`required`, `type`, `pattern`, ...).
    Schema(String),
    /// A manifest rule failed (`not_before`, ...).
    Rule(String),
    /// The part is required but absent (or null).
    Missing,
}

/// One validation problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ValidationIssue {
    /// What failed.
    pub kind: IssueKind,
    /// The offending member's JSON pointer within the part. For a missing
    /// required member it is where the member should be; for an unexpected
    /// one, the member itself.
    pub instance_path: String,
    /// The failing keyword's location in the bundled schema.
    pub schema_path: String,
    /// A sentence a person understands.
    pub message: String,
}

impl ValidationIssue {
    /// The keyword (`required`) or rule (`not_before`) name; `required`
    /// for an absent part too.
    pub fn keyword(&self) -> &str {
        match &self.kind {
            IssueKind::Schema(keyword) | IssueKind::Rule(keyword) => keyword,
            IssueKind::Missing => "required",
        }
    }

    /// The issue as JSON: `{"pointer", "keyword", "schema_path", "message"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "pointer": self.instance_path,
            "keyword": self.keyword(),
            "schema_path": self.schema_path,
            "message": self.message,
        })
    }
}

impl fmt::Display for ValidationIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.instance_path.is_empty() {
            "(root)"
        } else {
            &self.instance_path
        };
        write!(f, "{at}: {} [{}]", self.message, self.keyword())
    }
}

/// The `-32602 Invalid params` answer listing every issue with its pointer.
pub fn invalid_params(method: &str, issues: &[ValidationIssue]) -> ErrorObject {
    describe(
        ErrorCode::INVALID_PARAMS.0,
        &format!("invalid params for `{method}`"),
        Part::Params,
        issues,
    )
}

/// The `-32603 Internal error` a server answers instead of sending its own
/// invalid result.
pub fn invalid_result(method: &str, part: Part, issues: &[ValidationIssue]) -> ErrorObject {
    let what = format!(
        "the server produced an invalid {} for `{method}`",
        part.name()
    );
    describe(ErrorCode::INTERNAL_ERROR.0, &what, part, issues)
}

/// The warn-mode log line for an invalid result (or item, or error data)
/// sent anyway: every issue, not only the first few.
pub fn invalid_result_warning(method: &str, part: Part, issues: &[ValidationIssue]) -> String {
    let listed: Vec<String> = issues.iter().map(ToString::to_string).collect();
    format!(
        "warning: sending an invalid {} for `{method}` anyway: {}",
        part.name(),
        listed.join("; ")
    )
}

/// The log line for an invalid result (or item, or error data) refused
/// and answered the protocol's internal error instead: the serve loop's
/// fault line ([`crate::serve::RuntimeFault`]: `fault invalid_result
/// method=... pointer=... : ...`), every issue with its JSON pointer, so the
/// server's author (and `wirekit conformance`) sees on stderr what the
/// client only gets as an error.
pub fn invalid_result_refused(method: &str, part: Part, issues: &[ValidationIssue]) -> String {
    crate::serve::RuntimeFault::invalid(method, part, issues).line()
}

fn describe(code: i64, what: &str, part: Part, issues: &[ValidationIssue]) -> ErrorObject {
    let mut message = String::from(what);
    for (index, issue) in issues.iter().enumerate().take(3) {
        message.push_str(if index == 0 { ": " } else { "; " });
        message.push_str(&issue.to_string());
    }
    if issues.len() > 3 {
        message.push_str(&format!("; and {} more", issues.len() - 3));
    }
    ErrorObject {
        code,
        message,
        data: Some(json!({
            "part": part.name(),
            "errors": issues.iter().map(ValidationIssue::to_json).collect::<Vec<_>>(),
        })),
    }
}
