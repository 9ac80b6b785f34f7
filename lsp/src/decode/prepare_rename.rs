//! `textDocument/prepareRename` answers: a `Range`, `{range, placeholder}`,
//! `{defaultBehavior}` or `null`, one [`PrepareRename`].

use serde_json::Value;

use super::error::DecodeError;
use super::fields::{object, optional_string, range, range_member, wrong};
use crate::position::Range;

/// Whether, and where, the server can rename.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrepareRename {
    /// The range of the name to rename, and the text to offer, if any.
    CanRename {
        /// The name's range.
        range: Range,
        /// The server's suggested text.
        placeholder: Option<String>,
    },
    /// The server renames the word at the position (`defaultBehavior`).
    CanRenameDefault,
    /// Nothing here can be renamed (`null`).
    CannotRename,
}

/// Decodes a prepare-rename answer.
pub fn decode_prepare_rename(value: &Value) -> Result<PrepareRename, DecodeError> {
    let answer = match value {
        Value::Null => return Ok(PrepareRename::CannotRename),
        Value::Object(answer) => answer,
        other => {
            return Err(wrong(
                "a Range, {range, placeholder}, {defaultBehavior} or null",
                other,
            ))
        }
    };
    if answer.contains_key("defaultBehavior") {
        return match answer.get("defaultBehavior") {
            Some(Value::Bool(true)) => Ok(PrepareRename::CanRenameDefault),
            Some(Value::Bool(false)) => Ok(PrepareRename::CannotRename),
            Some(other) => Err(wrong("a boolean", other).within("defaultBehavior")),
            None => Ok(PrepareRename::CannotRename),
        };
    }
    if answer.contains_key("range") {
        return Ok(PrepareRename::CanRename {
            range: range_member(answer, "range")?,
            placeholder: optional_string(answer, "placeholder")?,
        });
    }
    let _ = object(value, "a range")?;
    Ok(PrepareRename::CanRename {
        range: range(value)?,
        placeholder: None,
    })
}
