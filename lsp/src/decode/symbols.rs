//! `textDocument/documentSymbol` answers: hierarchical `DocumentSymbol[]`
//! or flat `SymbolInformation[]` (told apart by the first entry; an entry
//! of the other dialect fails the list at its index); `null` is empty.

use serde_json::Value;

use super::error::{DecodeError, DecodeErrorKind};
use super::fields::{
    list, list_member, member, object, optional_string, range_member, string, unsigned, wrong,
};
use crate::position::Range;

/// A symbol of a hierarchical outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentSymbol {
    /// The symbol's name.
    pub name: String,
    /// More about it (a signature), when the server said.
    pub detail: Option<String>,
    /// The `SymbolKind` number (see [`symbol_kind_name`]).
    pub kind: u32,
    /// The whole symbol, body included.
    pub range: Range,
    /// The name.
    pub selection_range: Range,
    /// Nested symbols.
    pub children: Vec<DocumentSymbol>,
}

/// A symbol of a flat outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolInformation {
    /// The symbol's name.
    pub name: String,
    /// The `SymbolKind` number.
    pub kind: u32,
    /// Where it is (`location.uri`).
    pub uri: String,
    /// Where it is (`location.range`).
    pub range: Range,
    /// The name of the symbol containing it, when the server said.
    pub container_name: Option<String>,
}

/// An outline in either dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocumentSymbols {
    /// `DocumentSymbol[]`.
    Hierarchical(Vec<DocumentSymbol>),
    /// `SymbolInformation[]`.
    Flat(Vec<SymbolInformation>),
}

impl DocumentSymbols {
    /// Whether the outline has no symbol.
    pub fn is_empty(&self) -> bool {
        match self {
            DocumentSymbols::Hierarchical(symbols) => symbols.is_empty(),
            DocumentSymbols::Flat(symbols) => symbols.is_empty(),
        }
    }
}

/// Decodes an outline; `null` and `[]` are an empty hierarchical one.
pub fn decode_document_symbols(value: &Value) -> Result<DocumentSymbols, DecodeError> {
    let items = match value {
        Value::Null => return Ok(DocumentSymbols::Hierarchical(Vec::new())),
        Value::Array(items) => items,
        other => {
            return Err(wrong(
                "an array of DocumentSymbol or SymbolInformation, or null",
                other,
            ))
        }
    };
    let flat = items
        .first()
        .and_then(Value::as_object)
        .is_some_and(|first| first.contains_key("location"));
    if flat {
        list(items, |entry| {
            refuse_dialect(
                entry,
                "selectionRange",
                "a DocumentSymbol among SymbolInformation",
            )?;
            symbol_information(entry)
        })
        .map(DocumentSymbols::Flat)
    } else {
        list(items, |entry| {
            refuse_dialect(
                entry,
                "location",
                "a SymbolInformation among DocumentSymbols",
            )?;
            document_symbol(entry, 0)
        })
        .map(DocumentSymbols::Hierarchical)
    }
}

/// Nesting deeper than this is refused (a server cannot make the decoder
/// recurse without bound; the envelope's parser already caps depth at 128).
const MAX_DEPTH: usize = 64;

fn refuse_dialect(entry: &Value, member: &str, what: &str) -> Result<(), DecodeError> {
    match entry.as_object() {
        Some(object) if object.contains_key(member) => Err(DecodeError::new(
            DecodeErrorKind::MixedDialects,
            "",
            format!("{what} (it has `{member}`)"),
        )),
        _ => Ok(()),
    }
}

fn document_symbol(value: &Value, depth: usize) -> Result<DocumentSymbol, DecodeError> {
    let symbol = object(value, "a DocumentSymbol object")?;
    let children = match symbol.get("children") {
        None | Some(Value::Null) => Vec::new(),
        Some(_) if depth >= MAX_DEPTH => {
            return Err(DecodeError::new(
                DecodeErrorKind::OutOfRange,
                "/children",
                format!("symbols nested deeper than {MAX_DEPTH}"),
            ))
        }
        Some(_) => list_member(symbol, "children", |child| {
            document_symbol(child, depth + 1)
        })?,
    };
    Ok(DocumentSymbol {
        name: string(symbol, "name")?,
        detail: optional_string(symbol, "detail")?,
        kind: unsigned(symbol, "kind")?,
        range: range_member(symbol, "range")?,
        selection_range: range_member(symbol, "selectionRange")?,
        children,
    })
}

fn symbol_information(value: &Value) -> Result<SymbolInformation, DecodeError> {
    let symbol = object(value, "a SymbolInformation object")?;
    let location = member(symbol, "location")?;
    let place = object(location, "a Location object").map_err(|e| e.within("location"))?;
    Ok(SymbolInformation {
        name: string(symbol, "name")?,
        kind: unsigned(symbol, "kind")?,
        uri: string(place, "uri").map_err(|e| e.within("location"))?,
        range: range_member(place, "range").map_err(|e| e.within("location"))?,
        container_name: optional_string(symbol, "containerName")?,
    })
}

/// The `SymbolKind` numbers this client names (1 to 26): what it announces
/// in `symbolKind.valueSet`.
pub fn known_symbol_kinds() -> impl Iterator<Item = u32> {
    (1..=SYMBOL_KIND_NAMES.len()).filter_map(|kind| u32::try_from(kind).ok())
}

/// The name of a `SymbolKind` (LSP 3.17: 1 to 26); another number is
/// `"unknown"` (the set is open to servers' extensions).
pub fn symbol_kind_name(kind: u32) -> &'static str {
    kind.checked_sub(1)
        .and_then(|index| SYMBOL_KIND_NAMES.get(index as usize))
        .copied()
        .unwrap_or("unknown")
}

/// The names of LSP 3.17's symbol kinds, from 1.
const SYMBOL_KIND_NAMES: [&str; 26] = [
    "file",
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "interface",
    "function",
    "variable",
    "constant",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "enum member",
    "struct",
    "event",
    "operator",
    "type parameter",
];
