//! Bundling a set of schema files into one schema with every type under
//! `$defs` and every `$ref` local (`#/$defs/Name`).
//!
//! typify reads one schemars 0.8 root schema and panics on a `$ref` it cannot
//! find, and the Python, TypeScript and docs generators want one flat
//! namespace of named types, so every target starts from this bundle.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::{escape_pointer, Error, ErrorKind, Result};

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
    /// The bundled types, in file order then source order.
    pub defs: Map<String, Value>,
    /// Where each type in [`Bundle::defs`] came from.
    pub origins: BTreeMap<String, Origin>,
}

impl Bundle {
    /// Bundle `files`, resolving cross-file `$ref`s by file name or `$id`.
    pub fn new(files: &[SchemaFile]) -> Result<Self> {
        let mut bundle = Bundle {
            defs: Map::new(),
            origins: BTreeMap::new(),
        };
        let mut roots: Vec<(String, usize)> = Vec::new();
        for (idx, file) in files.iter().enumerate() {
            let obj = file.json.as_object().ok_or_else(|| {
                Error::new(
                    ErrorKind::Unsupported,
                    "a schema file must be a JSON object",
                )
                .in_file(&file.display)
            })?;
            for key in ["$defs", "definitions"] {
                let Some(defs) = obj.get(key) else { continue };
                let defs = defs.as_object().ok_or_else(|| {
                    Error::new(ErrorKind::Unsupported, format!("`{key}` must be an object"))
                        .in_file(&file.display)
                        .at(format!("/{key}"))
                })?;
                for (name, schema) in defs {
                    let pointer = format!("/{key}/{}", escape_pointer(name));
                    let mut schema = schema.clone();
                    rewrite_refs(&mut schema, files, idx, &pointer, &mut roots)?;
                    bundle.insert(name, schema, &file.display, &pointer)?;
                }
            }
        }
        // Whole files referenced by `$ref: "other.json"` become types too.
        let mut done: Vec<usize> = Vec::new();
        while let Some((name, idx)) = roots.pop() {
            if done.contains(&idx) {
                continue;
            }
            done.push(idx);
            let mut schema = files[idx].json.clone();
            if let Some(obj) = schema.as_object_mut() {
                for k in ["$defs", "definitions", "$id", "$schema"] {
                    obj.remove(k);
                }
            }
            rewrite_refs(&mut schema, files, idx, "", &mut roots)?;
            bundle.insert(&name, schema, &files[idx].display, "")?;
        }
        Ok(bundle)
    }

    fn insert(&mut self, name: &str, schema: Value, file: &str, pointer: &str) -> Result<()> {
        if let Some(existing) = self.defs.get(name) {
            if *existing == schema {
                return Ok(());
            }
            let first = self
                .origins
                .get(name)
                .map(|o| o.file.clone())
                .unwrap_or_default();
            return Err(Error::new(
                ErrorKind::Reference,
                format!("type `{name}` is defined differently here and in {first}"),
            )
            .in_file(file)
            .at(pointer));
        }
        self.defs.insert(name.to_string(), schema);
        self.origins.insert(
            name.to_string(),
            Origin {
                file: file.to_string(),
                pointer: pointer.to_string(),
            },
        );
        Ok(())
    }

    /// The bundle as one JSON Schema document.
    pub fn to_schema(&self) -> Value {
        let mut root = Map::new();
        root.insert(
            "$schema".into(),
            Value::String("https://json-schema.org/draft/2020-12/schema".into()),
        );
        root.insert("$defs".into(), Value::Object(self.defs.clone()));
        Value::Object(root)
    }

    /// The type name a `$ref` written in `from` (a file name, or `None` for
    /// the protocol manifest) points at.
    pub fn resolve(
        &self,
        files: &[SchemaFile],
        from: Option<usize>,
        reference: &str,
    ) -> Result<String> {
        let mut roots = Vec::new();
        let name = resolve_ref(files, from, reference, &mut roots)?;
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

/// The index of the file a ref's document part names.
fn find_file(files: &[SchemaFile], from: Option<usize>, doc: &str) -> Option<usize> {
    if doc.is_empty() {
        return from;
    }
    let base = doc.rsplit('/').next().unwrap_or(doc);
    files
        .iter()
        .position(|f| f.json.get("$id").and_then(Value::as_str) == Some(doc))
        .or_else(|| files.iter().position(|f| f.name == doc))
        .or_else(|| {
            files
                .iter()
                .position(|f| f.name.rsplit('/').next().unwrap_or(&f.name) == base)
        })
}

fn resolve_ref(
    files: &[SchemaFile],
    from: Option<usize>,
    reference: &str,
    roots: &mut Vec<(String, usize)>,
) -> Result<String> {
    let (doc, fragment) = reference.split_once('#').unwrap_or((reference, ""));
    let idx = find_file(files, from, doc).ok_or_else(|| {
        Error::new(
            ErrorKind::Reference,
            format!("`$ref` {reference:?} names no schema file of this set"),
        )
    })?;
    let segments: Vec<String> = fragment
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    match segments.as_slice() {
        [] => {
            let file = &files[idx];
            let name = file
                .json
                .get("title")
                .and_then(Value::as_str)
                .map(crate::naming::pascal)
                .unwrap_or_else(|| crate::naming::pascal(file.name.trim_end_matches(".json")));
            roots.push((name.clone(), idx));
            Ok(name)
        }
        [kind, name] if kind == "$defs" || kind == "definitions" => {
            let exists = files[idx]
                .json
                .get(kind.as_str())
                .and_then(|d| d.get(name.as_str()))
                .is_some();
            if exists {
                Ok(name.clone())
            } else {
                Err(Error::new(
                    ErrorKind::Reference,
                    format!(
                        "`$ref` {reference:?}: {} has no type `{name}`",
                        files[idx].display
                    ),
                ))
            }
        }
        _ => Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "`$ref` {reference:?} points inside a type; refs must name a type under `$defs`"
            ),
        )),
    }
}

fn rewrite_refs(
    schema: &mut Value,
    files: &[SchemaFile],
    idx: usize,
    pointer: &str,
    roots: &mut Vec<(String, usize)>,
) -> Result<()> {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                let name = resolve_ref(files, Some(idx), r, roots)
                    .map_err(|e| e.in_file(&files[idx].display).at(format!("{pointer}/$ref")))?;
                map.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
            }
            for (k, v) in map.iter_mut() {
                // Enum values, consts, defaults and examples are data, not schemas.
                if matches!(
                    k.as_str(),
                    "enum" | "const" | "default" | "examples" | "example"
                ) {
                    continue;
                }
                let child = format!("{pointer}/{}", escape_pointer(k));
                rewrite_refs(v, files, idx, &child, roots)?;
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter_mut().enumerate() {
                rewrite_refs(v, files, idx, &format!("{pointer}/{i}"), roots)?;
            }
        }
        _ => {}
    }
    Ok(())
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
        let b = Bundle::new(&files).expect("bundles");
        assert_eq!(b.defs["A"]["properties"]["b"]["$ref"], "#/$defs/B");
        assert_eq!(b.origins["B"].file, "b.json");
    }

    #[test]
    fn dangling_ref_names_file_and_pointer() {
        let files = vec![file(
            "a.json",
            json!({"$defs": {"A": {"$ref": "#/$defs/Nope"}}}),
        )];
        let e = Bundle::new(&files).expect_err("dangling");
        assert_eq!(e.kind(), ErrorKind::Reference);
        assert_eq!(e.file(), Some("a.json"));
        assert_eq!(e.pointer(), Some("/$defs/A/$ref"));
    }
}
