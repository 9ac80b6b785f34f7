//! `textDocument/rename` answers: a `WorkspaceEdit` as `changes` or as
//! `documentChanges` (preferred when both are there, as the protocol says),
//! one list of [`FileEdits`]. A create, rename or delete refuses the whole
//! edit: nothing of it is ever partly applied.

use serde_json::Value;

use super::error::{DecodeError, DecodeErrorKind};
use super::fields::{array, list, list_member, member, object, optional, text_edit, wrong};
use crate::position::TextEdit;

/// The edits to one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdits {
    /// The document's URI, as the server wrote it.
    pub uri: String,
    /// The document version the edits were computed on, when the server said.
    pub version: Option<i64>,
    /// The edits, in the server's order and units.
    pub edits: Vec<TextEdit>,
}

/// A decoded `WorkspaceEdit`: text edits only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkspaceEdit {
    /// The documents edited, in the server's order.
    pub files: Vec<FileEdits>,
}

impl WorkspaceEdit {
    /// Whether the edit changes nothing.
    pub fn is_empty(&self) -> bool {
        self.files.iter().all(|file| file.edits.is_empty())
    }
}

/// Decodes a rename answer; `null` is the empty edit.
pub fn decode_workspace_edit(value: &Value) -> Result<WorkspaceEdit, DecodeError> {
    if value.is_null() {
        return Ok(WorkspaceEdit::default());
    }
    let edit = object(value, "a WorkspaceEdit object or null")?;
    if let Some(changes) = optional(edit, "documentChanges") {
        let items = array(changes, "an array").map_err(|e| e.within("documentChanges"))?;
        let files = list(items, document_change).map_err(|e| e.within("documentChanges"))?;
        return Ok(WorkspaceEdit { files });
    }
    let Some(changes) = optional(edit, "changes") else {
        return Ok(WorkspaceEdit::default());
    };
    let by_uri =
        object(changes, "an object of URI to TextEdit[]").map_err(|e| e.within("changes"))?;
    let mut files = Vec::with_capacity(by_uri.len());
    for (uri, edits) in by_uri {
        let items =
            array(edits, "an array of TextEdit").map_err(|e| e.within(uri).within("changes"))?;
        let edits = list(items, text_edit).map_err(|e| e.within(uri).within("changes"))?;
        files.push(FileEdits {
            uri: uri.clone(),
            version: None,
            edits,
        });
    }
    Ok(WorkspaceEdit { files })
}

/// A `TextDocumentEdit`, or a resource operation (`kind` create, rename or
/// delete), which is refused.
fn document_change(value: &Value) -> Result<FileEdits, DecodeError> {
    let change = object(value, "a TextDocumentEdit object")?;
    if let Some(kind) = change.get("kind") {
        let what = kind.as_str().unwrap_or("unknown");
        return Err(DecodeError::new(
            DecodeErrorKind::ResourceOperationRefused,
            "/kind",
            format!(
                "the edit would {what} a file; an edit with a resource operation is refused whole"
            ),
        ));
    }
    let document = member(change, "textDocument")?;
    let identifier =
        object(document, "a document identifier").map_err(|e| e.within("textDocument"))?;
    let uri = super::fields::string(identifier, "uri").map_err(|e| e.within("textDocument"))?;
    let version = match optional(identifier, "version") {
        None => None,
        Some(number) => Some(number.as_i64().ok_or_else(|| {
            wrong("an integer or null", number)
                .within("version")
                .within("textDocument")
        })?),
    };
    let edits = list_member(change, "edits", text_edit)?;
    Ok(FileEdits {
        uri,
        version,
        edits,
    })
}
