//! The bundle every target starts from: every type under `$defs` and every
//! `$ref` local (`#/$defs/Name`).
//!
//! typify reads one schemars 0.8 root schema and panics on a `$ref` it cannot
//! find, and the Python, TypeScript and docs generators want one flat
//! namespace of named types. The bundling itself is the core's
//! ([`wirekit::protocol::bundle`], from the files resolved as the validators
//! resolve them), so the generated types are named exactly as the
//! validators' schema paths name them; this module keeps each file's display
//! path for error messages.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use wirekit::protocol::{ProtocolError, ProtocolErrorKind};

use crate::error::{Error, ErrorKind, Result};

/// One schema file: its name relative to the protocol directory, and its JSON.
#[derive(Debug, Clone)]
pub struct SchemaFile {
    /// File name, e.g. `analyze.json` (used in `$ref`s and error messages).
    pub name: String,
    /// Path to show in error messages, e.g. `schemas/gaze/1.0/analyze.json`.
    pub display: String,
    /// The parsed schema.
    pub json: Value,
}

/// Where a bundled type came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file's display path.
    pub file: String,
    /// JSON pointer of the type inside the file.
    pub pointer: String,
}

/// Every type of a set of schema files under one `$defs`, refs made local.
#[derive(Debug, Clone)]
pub struct Bundle {
    /// The bundled types, in the core's order.
    pub defs: Map<String, Value>,
    /// Where each type in [`Bundle::defs`] came from.
    pub origins: BTreeMap<String, Origin>,
    /// Each manifest reference, as written, and the type it names.
    entries: BTreeMap<String, String>,
    /// The types the bundle cannot render exactly, and why.
    pub inexact: BTreeMap<String, String>,
    core: wirekit::protocol::bundle::Bundle,
}

impl Bundle {
    /// The core's bundle of a loaded protocol, its origins shown as `files`
    /// display them.
    pub fn from_core(core: &wirekit::protocol::bundle::Bundle, files: &[SchemaFile]) -> Self {
        let origins = core
            .origins
            .iter()
            .map(|(name, origin)| {
                (
                    name.clone(),
                    Origin {
                        file: display(files, &origin.file),
                        pointer: origin.pointer.clone(),
                    },
                )
            })
            .collect();
        Bundle {
            defs: core.defs.clone(),
            origins,
            entries: core.entries.clone(),
            inexact: core.inexact.clone(),
            core: core.clone(),
        }
    }

    /// The bundle as one JSON Schema document.
    pub fn to_schema(&self) -> Value {
        self.core.to_schema()
    }

    /// The type name a `$ref` written in the protocol manifest points at.
    pub fn entry(&self, reference: &str) -> Result<String> {
        self.entries.get(reference).cloned().ok_or_else(|| {
            Error::new(
                ErrorKind::Reference,
                format!("`$ref` {reference:?} is not one of the manifest's references"),
            )
        })
    }

    /// Whether `name` and every type it references judge values exactly as
    /// their source does (see [`wirekit::protocol::bundle`]).
    pub fn is_exact(&self, name: &str) -> bool {
        self.core.is_exact(name)
    }
}

fn display(files: &[SchemaFile], name: &str) -> String {
    files
        .iter()
        .find(|f| f.name == name)
        .map_or_else(|| name.to_owned(), |f| f.display.clone())
}

/// The core's error, in the file's display path and with the codegen kind;
/// `origin` is the folder the core named the files under.
pub(crate) fn located(error: ProtocolError, files: &[SchemaFile], origin: &str) -> Error {
    let kind = match error.kind() {
        ProtocolErrorKind::BadReference | ProtocolErrorKind::DuplicateDefinition => {
            ErrorKind::Reference
        }
        _ => ErrorKind::Unsupported,
    };
    let name = error
        .file()
        .strip_prefix(origin)
        .unwrap_or(error.file())
        .trim_start_matches('/');
    let mut located = Error::new(kind, error.message()).in_file(display(files, name));
    if !error.pointer().is_empty() {
        located = located.at(error.pointer());
    }
    located
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file(name: &str, json: Value) -> SchemaFile {
        SchemaFile {
            name: name.into(),
            display: format!("shown/{name}"),
            json,
        }
    }

    #[test]
    fn cross_file_refs_become_local() {
        let files = vec![
            file(
                "a.json",
                json!({"$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "b.json#/$defs/B"}}}}}),
            ),
            file("b.json", json!({"$defs": {"B": {"type": "string"}}})),
        ];
        let p = crate::protocol::from_files("set", files).expect("bundles");
        assert_eq!(p.bundle.defs["A"]["properties"]["b"]["$ref"], "#/$defs/B");
        assert_eq!(p.bundle.origins["B"].file, "shown/b.json");
    }

    #[test]
    fn dangling_ref_names_file_and_pointer() {
        let files = vec![file(
            "a.json",
            json!({"$defs": {"A": {"$ref": "#/$defs/Nope"}}}),
        )];
        let e = crate::protocol::from_files("set", files).expect_err("dangling");
        assert_eq!(e.kind(), ErrorKind::Reference);
        assert_eq!(e.file(), Some("shown/a.json"));
        assert_eq!(e.pointer(), Some("/$defs/A/$ref"));
    }
}
