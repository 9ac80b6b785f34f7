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

/// One diagnostic, in the server's coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerDiagnostic {
    /// Where.
    pub range: Range,
    /// How serious.
    pub severity: Severity,
    /// The server's code for it (a number or a string), as text.
    pub code: Option<String>,
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
        Some(Value::String(code)) => Some(code.clone()),
        Some(Value::Number(code)) if code.is_i64() || code.is_u64() => Some(code.to_string()),
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
