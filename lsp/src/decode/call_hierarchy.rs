//! `textDocument/prepareCallHierarchy` and `callHierarchy/incomingCalls` /
//! `outgoingCalls` answers. An item keeps the exact value the server sent
//! ([`CallHierarchyItem::raw`]): follow-up requests echo it verbatim,
//! because its `data` is the server's own state.

use serde_json::Value;

use super::error::DecodeError;
use super::fields::{
    list, list_member, member, object, optional_string, range, range_member, string, unsigned,
    wrong,
};
use crate::position::Range;

/// A function or method a call hierarchy is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallHierarchyItem {
    /// Its name.
    pub name: String,
    /// Its `SymbolKind` number.
    pub kind: u32,
    /// More about it, when the server said.
    pub detail: Option<String>,
    /// Its document.
    pub uri: String,
    /// The whole symbol.
    pub range: Range,
    /// Its name.
    pub selection_range: Range,
    /// The item exactly as the server sent it, for the follow-up requests.
    pub raw: Value,
}

/// A call into the item asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncomingCall {
    /// The caller.
    pub from: CallHierarchyItem,
    /// Where, in the caller, the calls are.
    pub from_ranges: Vec<Range>,
}

/// A call the item asked about makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingCall {
    /// The callee.
    pub to: CallHierarchyItem,
    /// Where, in the item asked about, the calls are.
    pub from_ranges: Vec<Range>,
}

/// Decodes a prepare answer; `null` is the empty list.
pub fn decode_call_hierarchy_items(value: &Value) -> Result<Vec<CallHierarchyItem>, DecodeError> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => list(items, call_hierarchy_item),
        other => Err(wrong("an array of CallHierarchyItem or null", other)),
    }
}

/// Decodes an incoming-calls answer; `null` is the empty list.
pub fn decode_incoming_calls(value: &Value) -> Result<Vec<IncomingCall>, DecodeError> {
    calls(value, "from", |item, from_ranges| IncomingCall {
        from: item,
        from_ranges,
    })
}

/// Decodes an outgoing-calls answer; `null` is the empty list.
pub fn decode_outgoing_calls(value: &Value) -> Result<Vec<OutgoingCall>, DecodeError> {
    calls(value, "to", |item, from_ranges| OutgoingCall {
        to: item,
        from_ranges,
    })
}

fn calls<T>(
    value: &Value,
    end: &str,
    make: impl Fn(CallHierarchyItem, Vec<Range>) -> T,
) -> Result<Vec<T>, DecodeError> {
    let items = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        other => return Err(wrong("an array of calls or null", other)),
    };
    list(items, |entry| {
        let call = object(entry, "a call object")?;
        let item = call_hierarchy_item(member(call, end)?).map_err(|e| e.within(end))?;
        let from_ranges = list_member(call, "fromRanges", range)?;
        Ok(make(item, from_ranges))
    })
}

fn call_hierarchy_item(value: &Value) -> Result<CallHierarchyItem, DecodeError> {
    let item = object(value, "a CallHierarchyItem object")?;
    Ok(CallHierarchyItem {
        name: string(item, "name")?,
        kind: unsigned(item, "kind")?,
        detail: optional_string(item, "detail")?,
        uri: string(item, "uri")?,
        range: range_member(item, "range")?,
        selection_range: range_member(item, "selectionRange")?,
        raw: value.clone(),
    })
}
