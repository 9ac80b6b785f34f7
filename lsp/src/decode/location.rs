//! `textDocument/definition` and `textDocument/references` answers:
//! `Location`, `Location[]`, `LocationLink[]` or `null`, all one list of
//! [`Location`]s.

use serde_json::Value;

use super::error::DecodeError;
use super::fields::{list, object, range_member, string, wrong};
use crate::position::Range;

/// A place in a document: the target's selection range for a
/// `LocationLink` (the name a person wants to land on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The document's URI, as the server wrote it.
    pub uri: String,
    /// The range in the server's units.
    pub range: Range,
}

/// Decodes a definition or references answer in any of its dialects;
/// `null` is the empty list.
pub fn decode_locations(value: &Value) -> Result<Vec<Location>, DecodeError> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Object(_) => Ok(vec![location_or_link(value)?]),
        Value::Array(items) => list(items, location_or_link),
        other => Err(wrong(
            "a Location, an array of Location or LocationLink, or null",
            other,
        )),
    }
}

/// A `Location` (`uri`, `range`) or a `LocationLink` (`targetUri`,
/// `targetSelectionRange`, `targetRange`), told apart by `targetUri`.
fn location_or_link(value: &Value) -> Result<Location, DecodeError> {
    let entry = object(value, "a Location or LocationLink object")?;
    if entry.contains_key("targetUri") {
        // Both ranges are required by the protocol; both are checked.
        let _whole = range_member(entry, "targetRange")?;
        return Ok(Location {
            uri: string(entry, "targetUri")?,
            range: range_member(entry, "targetSelectionRange")?,
        });
    }
    Ok(Location {
        uri: string(entry, "uri")?,
        range: range_member(entry, "range")?,
    })
}
