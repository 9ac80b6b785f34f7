//! Bundling a set of schema files into one schema with every type under
//! `$defs` and every `$ref` local (`#/$defs/Name`).
//!
//! typify reads one schemars 0.8 root schema and panics on a `$ref` it cannot
//! find, and the Python, TypeScript and docs generators want one flat
//! namespace of named types, so every target starts from this bundle. The
//! bundling itself is the core's ([`wirekit::protocol::bundle`]), so the
//! generated types are named exactly as the validators' schema paths name
//! them; this module keeps each file's display path for error messages.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use wirekit::protocol::bundle::{bundle_defs, localize_ref, SchemaFiles};
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
    /// The bundled types, file by file, each in source order.
    pub defs: Map<String, Value>,
    /// Where each type in [`Bundle::defs`] came from.
    pub origins: BTreeMap<String, Origin>,
}

impl Bundle {
    /// Bundle `files`, resolving cross-file `$ref`s by file name or `$id`;
    /// `entry_refs` are the manifest's own references (a whole-file one makes
    /// that file's root a type).
    pub fn new(files: &[SchemaFile], entry_refs: &[&str]) -> Result<Self> {
        let bundled =
            bundle_defs("", &set(files), entry_refs).map_err(|e| located(e, files, ""))?;
        let origins = bundled
            .origins
            .into_iter()
            .map(|(name, origin)| {
                let file = display(files, &origin.file);
                (
                    name,
                    Origin {
                        file,
                        pointer: origin.pointer,
                    },
                )
            })
            .collect();
        Ok(Bundle {
            defs: bundled.defs,
            origins,
        })
    }

    /// The bundle as one JSON Schema document.
    pub fn to_schema(&self) -> Value {
        let mut root = Map::new();
        root.insert(
            "$schema".into(),
            Value::String(wirekit::protocol::bundle::DRAFT_2020_12.into()),
        );
        root.insert("$defs".into(), Value::Object(self.defs.clone()));
        Value::Object(root)
    }

    /// The type name a `$ref` written in `from` (a file of `files`, or `None`
    /// for the protocol manifest) points at.
    pub fn resolve(
        &self,
        files: &[SchemaFile],
        from: Option<usize>,
        reference: &str,
    ) -> Result<String> {
        let from = from
            .and_then(|i| files.get(i))
            .map_or("", |f| f.name.as_str());
        let local = localize_ref("", from, reference, &set(files)).map_err(|e| {
            Error::new(
                ErrorKind::Reference,
                format!("`$ref` {reference:?}: {}", e.message()),
            )
        })?;
        let name = local.strip_prefix("#/$defs/").unwrap_or(&local);
        if name.contains('/') {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!("`$ref` {reference:?} points inside a type; refs must name a type under `$defs`"),
            ));
        }
        let name = name.replace("~1", "/").replace("~0", "~");
        if self.defs.contains_key(&name) {
            Ok(name)
        } else {
            Err(Error::new(
                ErrorKind::Reference,
                format!("`$ref` {reference:?} points at `{name}`, which no schema file defines"),
            ))
        }
    }
}

fn set(files: &[SchemaFile]) -> SchemaFiles {
    files
        .iter()
        .map(|f| (f.name.clone(), f.json.clone()))
        .collect()
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
            display: name.into(),
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
        let b = Bundle::new(&files, &[]).expect("bundles");
        assert_eq!(b.defs["A"]["properties"]["b"]["$ref"], "#/$defs/B");
        assert_eq!(b.origins["B"].file, "b.json");
    }

    #[test]
    fn dangling_ref_names_file_and_pointer() {
        let files = vec![file(
            "a.json",
            json!({"$defs": {"A": {"$ref": "#/$defs/Nope"}}}),
        )];
        let e = Bundle::new(&files, &[]).expect_err("dangling");
        assert_eq!(e.kind(), ErrorKind::Reference);
        assert_eq!(e.file(), Some("a.json"));
        assert_eq!(e.pointer(), Some("/$defs/A/$ref"));
    }
}
