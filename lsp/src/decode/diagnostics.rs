//! `textDocument/publishDiagnostics`: an omitted severity is an error (the
//! costly mistake is a real problem shown as a hint), one outside 1 to 4 is
//! refused; a publication keeps at most [`MAX_DIAGNOSTICS_PER_PUBLICATION`].

use serde_json::Value;

use super::error::{DecodeError, DecodeErrorKind};
use super::fields::{array, list, member, object, optional, range_member, string, wrong};
use crate::position::Range;

/// Diagnostics kept of one publication; the rest are counted, not kept.
pub const MAX_DIAGNOSTICS_PER_PUBLICATION: usize = 200;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// 1, and an omitted severity.
    Error,
    /// 2.
    Warning,
    /// 3.
    Information,
    /// 4.
    Hint,
}

impl Severity {
    /// The lower-case name (`error`, `warning`, `information`, `hint`).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

/// A diagnostic's code (LSP: `integer | string`), kept as the server sent
/// it, so `2322` stays a number in JSON output and `"E501"` a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DiagnosticCode {
    /// An integer code (TypeScript's `2322`).
    Integer(i64),
    /// A string code (`E501`, `reportMissingImports`).
    Text(String),
}

impl DiagnosticCode {
    /// The code as JSON: a number or a string.
    pub fn to_json(&self) -> Value {
        match self {
            DiagnosticCode::Integer(code) => Value::from(*code),
            DiagnosticCode::Text(code) => Value::from(code.as_str()),
        }
    }
}

impl std::fmt::Display for DiagnosticCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiagnosticCode::Integer(code) => write!(f, "{code}"),
            DiagnosticCode::Text(code) => f.write_str(code),
        }
    }
}

/// One diagnostic, in the server's coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerDiagnostic {
    /// Where.
    pub range: Range,
    /// How serious.
    pub severity: Severity,
    /// The server's code for it, a number or a string as sent.
    pub code: Option<DiagnosticCode>,
    /// Who produced it (`pyflakes`, `Pyright`).
    pub source: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// A decoded publication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishDiagnostics {
    /// The document.
    pub uri: String,
    /// The document version the diagnostics are about, when the server said.
    pub version: Option<i64>,
    /// The first [`MAX_DIAGNOSTICS_PER_PUBLICATION`] diagnostics.
    pub diagnostics: Vec<ServerDiagnostic>,
    /// How many more the server sent (not kept).
    pub truncated: usize,
}

/// Decodes a `textDocument/publishDiagnostics` notification's params.
pub fn decode_publish_diagnostics(params: &Value) -> Result<PublishDiagnostics, DecodeError> {
    let publication = object(params, "a PublishDiagnosticsParams object")?;
    let uri = string(publication, "uri")?;
    let version = match optional(publication, "version") {
        None => None,
        Some(number) => Some(
            number
                .as_i64()
                .ok_or_else(|| wrong("an integer", number).within("version"))?,
        ),
    };
    let items = array(member(publication, "diagnostics")?, "an array")
        .map_err(|e| e.within("diagnostics"))?;
    let kept = items.len().min(MAX_DIAGNOSTICS_PER_PUBLICATION);
    let diagnostics = list(&items[..kept], diagnostic).map_err(|e| e.within("diagnostics"))?;
    Ok(PublishDiagnostics {
        uri,
        version,
        diagnostics,
        truncated: items.len() - kept,
    })
}

fn diagnostic(value: &Value) -> Result<ServerDiagnostic, DecodeError> {
    let diagnostic = object(value, "a Diagnostic object")?;
    let severity = match optional(diagnostic, "severity") {
        None => Severity::Error,
        Some(number) => match number.as_i64() {
            Some(1) => Severity::Error,
            Some(2) => Severity::Warning,
            Some(3) => Severity::Information,
            Some(4) => Severity::Hint,
            _ => {
                return Err(DecodeError::new(
                    DecodeErrorKind::OutOfRange,
                    "/severity",
                    format!("severity {number} is not 1 to 4"),
                ))
            }
        },
    };
    let code = match optional(diagnostic, "code") {
        None => None,
        Some(Value::String(code)) => Some(DiagnosticCode::Text(code.clone())),
        Some(Value::Number(code)) if code.is_i64() => code.as_i64().map(DiagnosticCode::Integer),
        Some(other) => return Err(wrong("an integer or a string", other).within("code")),
    };
    let source = super::fields::optional_string(diagnostic, "source")?;
    Ok(ServerDiagnostic {
        range: range_member(diagnostic, "range")?,
        severity,
        code,
        source,
        message: string(diagnostic, "message")?,
    })
}
