//! `$/progress` carrying work-done progress: a token (integer or string)
//! and a `begin`, `report` or `end` value.

use serde_json::Value;

use super::error::{DecodeError, DecodeErrorKind};
use super::fields::{member, object, optional_string, string, wrong};

/// A progress token.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ProgressToken {
    /// An integer token.
    Int(i64),
    /// A string token.
    Str(String),
}

impl ProgressToken {
    /// The token as the wire carries it.
    pub fn to_value(&self) -> Value {
        match self {
            ProgressToken::Int(n) => Value::from(*n),
            ProgressToken::Str(s) => Value::from(s.as_str()),
        }
    }

    /// The token as text (a title for a token that never began).
    pub fn text(&self) -> String {
        match self {
            ProgressToken::Int(n) => n.to_string(),
            ProgressToken::Str(s) => s.clone(),
        }
    }
}

/// One step of work-done progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkDoneProgress {
    /// Work begins, with a title.
    Begin {
        /// What the work is.
        title: String,
        /// More detail.
        message: Option<String>,
    },
    /// Work goes on.
    Report {
        /// More detail.
        message: Option<String>,
    },
    /// Work ends.
    End {
        /// The outcome.
        message: Option<String>,
    },
}

/// Decodes a token.
pub fn decode_progress_token(value: &Value) -> Result<ProgressToken, DecodeError> {
    match value {
        Value::String(text) => Ok(ProgressToken::Str(text.clone())),
        Value::Number(number) => number
            .as_i64()
            .map(ProgressToken::Int)
            .ok_or_else(|| wrong("an integer or a string", value)),
        other => Err(wrong("an integer or a string", other)),
    }
}

/// Decodes `$/progress` params as work-done progress.
pub fn decode_work_done_progress(
    params: &Value,
) -> Result<(ProgressToken, WorkDoneProgress), DecodeError> {
    let progress = object(params, "a ProgressParams object")?;
    let token = decode_progress_token(member(progress, "token")?).map_err(|e| e.within("token"))?;
    let value = object(member(progress, "value")?, "a work-done progress object")
        .map_err(|e| e.within("value"))?;
    let message = optional_string(value, "message").map_err(|e| e.within("value"))?;
    let step = match string(value, "kind")
        .map_err(|e| e.within("value"))?
        .as_str()
    {
        "begin" => WorkDoneProgress::Begin {
            title: string(value, "title").map_err(|e| e.within("value"))?,
            message,
        },
        "report" => WorkDoneProgress::Report { message },
        "end" => WorkDoneProgress::End { message },
        other => {
            return Err(DecodeError::new(
                DecodeErrorKind::OutOfRange,
                "/value/kind",
                format!("`{other}` is not begin, report or end"),
            ))
        }
    };
    Ok((token, step))
}
