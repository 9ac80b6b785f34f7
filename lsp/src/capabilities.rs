//! What a server advertised in `InitializeResult.capabilities`, and the
//! gate every request passes: a provider is `true` or an options object
//! (provided) or absent, `false` or `null` (not provided).
//!
//! The rule is not kept here: the gate asks the LSP protocol's manifest
//! (`schemas/lsp/3.17/protocol.json`, embedded by `wirekit-protocols`),
//! whose methods name their capability path (`renameProvider/prepareProvider`)
//! and whose reader, `Manifest::capability_declared`, the core's session and
//! monitor use too.

use std::fmt;

use serde_json::Value;
use wirekit::protocol::Manifest;

use crate::decode::fields::{object, optional};
use crate::decode::DecodeError;

/// A request the client can make, gated on a capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// `textDocument/definition`.
    Definition,
    /// `textDocument/references`.
    References,
    /// `textDocument/hover`.
    Hover,
    /// `textDocument/documentSymbol`.
    DocumentSymbol,
    /// `textDocument/prepareRename` (`renameProvider.prepareProvider`).
    PrepareRename,
    /// `textDocument/rename`.
    Rename,
    /// `textDocument/prepareCallHierarchy` and both follow-ups.
    CallHierarchy,
}

impl Feature {
    /// Every feature.
    pub const ALL: [Feature; 7] = [
        Feature::Definition,
        Feature::References,
        Feature::Hover,
        Feature::DocumentSymbol,
        Feature::PrepareRename,
        Feature::Rename,
        Feature::CallHierarchy,
    ];

    /// The request whose gate is the feature's (call hierarchy's three
    /// methods share one capability: the first one's).
    pub fn method(self) -> &'static str {
        match self {
            Feature::Definition => "textDocument/definition",
            Feature::References => "textDocument/references",
            Feature::Hover => "textDocument/hover",
            Feature::DocumentSymbol => "textDocument/documentSymbol",
            Feature::PrepareRename => "textDocument/prepareRename",
            Feature::Rename => "textDocument/rename",
            Feature::CallHierarchy => "textDocument/prepareCallHierarchy",
        }
    }

    /// The capability path in `ServerCapabilities` that advertises it, as
    /// the protocol's manifest names it (`renameProvider/prepareProvider`).
    pub fn capability(self) -> &'static str {
        lsp_manifest()
            .and_then(|manifest| manifest.methods.get(self.method()))
            .and_then(|spec| spec.capability.as_deref())
            .unwrap_or("(the LSP protocol is not available)")
    }

    /// A stable name (`definition`, `call_hierarchy`).
    pub fn name(self) -> &'static str {
        match self {
            Feature::Definition => "definition",
            Feature::References => "references",
            Feature::Hover => "hover",
            Feature::DocumentSymbol => "document_symbol",
            Feature::PrepareRename => "prepare_rename",
            Feature::Rename => "rename",
            Feature::CallHierarchy => "call_hierarchy",
        }
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether a provider was advertised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provided {
    /// `true` or an options object.
    Provided,
    /// Absent, `false` or `null`.
    NotProvided,
}

/// How the server wants documents synchronised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncKind {
    /// 0: it wants no document sync.
    None,
    /// 1: full text (what this client sends).
    Full,
    /// 2: incremental (a full-text change is valid incremental sync too).
    Incremental,
}

/// The LSP protocol version the gate reads.
pub const LSP_PROTOCOL: &str = "lsp@3.17";

/// The shipped LSP protocol's manifest, loaded once.
fn lsp_manifest() -> Option<&'static Manifest> {
    let registry = wirekit_protocols::registry().ok()?;
    registry
        .get(LSP_PROTOCOL)
        .ok()
        .map(|source| &source.manifest)
}

/// The decoded capabilities the client acts on, and the whole result.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerCapabilities {
    initialize_result: Value,
    raw: Value,
    /// Whether `didOpen` and `didClose` are wanted.
    pub open_close: bool,
    /// How changes are wanted.
    pub sync: SyncKind,
    /// The position encoding the server chose (`utf-16` when it said none).
    pub position_encoding: String,
}

impl ServerCapabilities {
    /// A server that advertised nothing.
    pub fn none() -> Self {
        ServerCapabilities {
            initialize_result: serde_json::json!({"capabilities": {}}),
            raw: Value::Object(serde_json::Map::new()),
            open_close: false,
            sync: SyncKind::None,
            position_encoding: "utf-16".to_owned(),
        }
    }

    /// The capabilities as the server sent them.
    pub fn raw(&self) -> &Value {
        &self.raw
    }

    /// The gate: whether `feature` was advertised, by the LSP manifest's
    /// rule (nothing is, if the manifest cannot be read).
    pub fn supports(&self, feature: Feature) -> Provided {
        let declared = lsp_manifest().is_some_and(|manifest| {
            manifest.capability_declared(feature.method(), &self.initialize_result)
        });
        if declared {
            Provided::Provided
        } else {
            Provided::NotProvided
        }
    }
}

/// Decodes `InitializeResult` (its `capabilities`); unknown members ignored.
pub fn decode_initialize_result(value: &Value) -> Result<ServerCapabilities, DecodeError> {
    let result = object(value, "an InitializeResult object")?;
    let raw = crate::decode::fields::member(result, "capabilities")?;
    let capabilities =
        object(raw, "a ServerCapabilities object").map_err(|e| e.within("capabilities"))?;
    let (open_close, sync) = match optional(capabilities, "textDocumentSync") {
        None => (false, SyncKind::None),
        Some(Value::Number(kind)) => {
            let kind = sync_kind(kind.as_i64());
            (kind != SyncKind::None, kind)
        }
        Some(Value::Object(options)) => (
            options.get("openClose") == Some(&Value::Bool(true)),
            sync_kind(options.get("change").and_then(Value::as_i64)),
        ),
        Some(other) => {
            return Err(
                crate::decode::fields::wrong("a number or TextDocumentSyncOptions", other)
                    .within("textDocumentSync")
                    .within("capabilities"),
            )
        }
    };
    let position_encoding = capabilities
        .get("positionEncoding")
        .and_then(Value::as_str)
        .unwrap_or("utf-16")
        .to_owned();
    Ok(ServerCapabilities {
        initialize_result: value.clone(),
        raw: raw.clone(),
        open_close,
        sync,
        position_encoding,
    })
}

fn sync_kind(kind: Option<i64>) -> SyncKind {
    match kind {
        Some(1) => SyncKind::Full,
        Some(2) => SyncKind::Incremental,
        _ => SyncKind::None,
    }
}
