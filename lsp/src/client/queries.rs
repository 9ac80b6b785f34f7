//! The typed queries: absolute paths and server positions in, decoded
//! answers out. An empty answer after the server reported a failure (an
//! error-level message, say a failed project load) is "unavailable" with
//! that reason, not "nothing found"; a non-empty one clears the failure
//! (but for call hierarchy, whose three methods share one capability).

use std::path::Path;

use serde_json::{json, Value};

use super::{Client, RequestError};
use crate::capabilities::Feature;
use crate::decode::{
    decode_call_hierarchy_items, decode_document_symbols, decode_hover, decode_incoming_calls,
    decode_locations, decode_outgoing_calls, decode_prepare_rename, decode_workspace_edit,
    CallHierarchyItem, DecodeErrorKind, DocumentSymbols, Hover, IncomingCall, Location,
    OutgoingCall, PrepareRename, WorkspaceEdit,
};
use crate::position::Position;
use crate::uri::path_to_uri;

impl Client {
    /// The URI of an absolute path.
    pub fn uri_of(&self, path: &Path) -> Result<String, RequestError> {
        path_to_uri(path)
            .map_err(|fault| RequestError::InvalidPath(format!("{}: {fault}", path.display())))
    }

    fn at(&self, path: &Path, position: Position) -> Result<Value, RequestError> {
        Ok(json!({"textDocument": {"uri": self.uri_of(path)?}, "position": position.to_value()}))
    }

    /// Judges an answer's emptiness against a retained failure.
    fn semantic<T>(&mut self, answer: T, empty: bool, clears: bool) -> Result<T, RequestError> {
        match (&self.failure, empty) {
            (Some(reason), true) => Err(RequestError::Unavailable(format!(
                "the server answered nothing after reporting a failure: {reason}"
            ))),
            (Some(_), false) if clears => {
                self.failure = None;
                Ok(answer)
            }
            _ => Ok(answer),
        }
    }

    /// `textDocument/definition`.
    pub fn definition(
        &mut self,
        path: &Path,
        position: Position,
    ) -> Result<Vec<Location>, RequestError> {
        let params = self.at(path, position)?;
        let raw = self.request(Feature::Definition, "textDocument/definition", params)?;
        let found = decode_locations(&raw).map_err(RequestError::Malformed)?;
        let empty = found.is_empty();
        self.semantic(found, empty, true)
    }

    /// `textDocument/references`, the declaration included.
    pub fn references(
        &mut self,
        path: &Path,
        position: Position,
    ) -> Result<Vec<Location>, RequestError> {
        let mut params = self.at(path, position)?;
        params["context"] = json!({"includeDeclaration": true});
        let raw = self.request(Feature::References, "textDocument/references", params)?;
        let found = decode_locations(&raw).map_err(RequestError::Malformed)?;
        let empty = found.is_empty();
        self.semantic(found, empty, true)
    }

    /// `textDocument/hover`.
    pub fn hover(
        &mut self,
        path: &Path,
        position: Position,
    ) -> Result<Option<Hover>, RequestError> {
        let params = self.at(path, position)?;
        let raw = self.request(Feature::Hover, "textDocument/hover", params)?;
        let hover = decode_hover(&raw).map_err(RequestError::Malformed)?;
        let empty = hover.as_ref().is_none_or(Hover::is_empty);
        self.semantic(hover, empty, true)
    }

    /// `textDocument/documentSymbol`.
    pub fn document_symbols(&mut self, path: &Path) -> Result<DocumentSymbols, RequestError> {
        let params = json!({"textDocument": {"uri": self.uri_of(path)?}});
        let raw = self.request(
            Feature::DocumentSymbol,
            "textDocument/documentSymbol",
            params,
        )?;
        let symbols = decode_document_symbols(&raw).map_err(RequestError::Malformed)?;
        let empty = symbols.is_empty();
        self.semantic(symbols, empty, true)
    }

    /// `textDocument/prepareRename` (gated on `renameProvider.prepareProvider`).
    pub fn prepare_rename(
        &mut self,
        path: &Path,
        position: Position,
    ) -> Result<PrepareRename, RequestError> {
        let params = self.at(path, position)?;
        let raw = self.request(Feature::PrepareRename, "textDocument/prepareRename", params)?;
        decode_prepare_rename(&raw).map_err(RequestError::Malformed)
    }

    /// `textDocument/rename`: the edit, never applied. One with a create,
    /// rename or delete is refused whole.
    pub fn rename(
        &mut self,
        path: &Path,
        position: Position,
        new_name: &str,
    ) -> Result<WorkspaceEdit, RequestError> {
        let mut params = self.at(path, position)?;
        params["newName"] = json!(new_name);
        let raw = self.request(Feature::Rename, "textDocument/rename", params)?;
        let edit = decode_workspace_edit(&raw).map_err(|error| match error.kind() {
            DecodeErrorKind::ResourceOperationRefused => RequestError::EditRefused(error),
            _ => RequestError::Malformed(error),
        })?;
        let empty = edit.is_empty();
        // An empty edit cannot clear a failure, nor can a non-empty one
        // alone vouch for the project: it is only text.
        self.semantic(edit, empty, !empty)
    }

    /// `textDocument/prepareCallHierarchy`.
    pub fn prepare_call_hierarchy(
        &mut self,
        path: &Path,
        position: Position,
    ) -> Result<Vec<CallHierarchyItem>, RequestError> {
        let params = self.at(path, position)?;
        let raw = self.request(
            Feature::CallHierarchy,
            "textDocument/prepareCallHierarchy",
            params,
        )?;
        let items = decode_call_hierarchy_items(&raw).map_err(RequestError::Malformed)?;
        let empty = items.is_empty();
        self.semantic(items, empty, false)
    }

    /// `callHierarchy/incomingCalls` for an item, echoed verbatim.
    pub fn incoming_calls(
        &mut self,
        item: &CallHierarchyItem,
    ) -> Result<Vec<IncomingCall>, RequestError> {
        let raw = self.request(
            Feature::CallHierarchy,
            "callHierarchy/incomingCalls",
            json!({"item": item.raw}),
        )?;
        decode_incoming_calls(&raw).map_err(RequestError::Malformed)
    }

    /// `callHierarchy/outgoingCalls` for an item, echoed verbatim.
    pub fn outgoing_calls(
        &mut self,
        item: &CallHierarchyItem,
    ) -> Result<Vec<OutgoingCall>, RequestError> {
        let raw = self.request(
            Feature::CallHierarchy,
            "callHierarchy/outgoingCalls",
            json!({"item": item.raw}),
        )?;
        decode_outgoing_calls(&raw).map_err(RequestError::Malformed)
    }
}
