//! Bundling: every type of a protocol's schema files in one document.
//!
//! A protocol spreads its types over several files that `$ref` each other
//! (`authoring_guide_protocol.json` refers to `authoring_hint.json#/$defs/AuthoringHint`).
//! Validators and code generators (typify cannot follow a reference to
//! another file) want one document: [`bundle`] gathers every file's `$defs`
//! under one `$defs` and rewrites each reference to point into it.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::error::{ProtocolError, ProtocolErrorKind};

/// The JSON Schema dialect of bundled documents.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Schema files by their name relative to the manifest.
pub type SchemaFiles = BTreeMap<String, Value>;

/// Gathers the `$defs` of every file into one draft 2020-12 document.
///
/// `origin` names the files in errors (the version's folder). Fails when a
/// reference points at a file or pointer outside the `$defs` of the set, or
/// when two files define different types under one name.
pub fn bundle(origin: &str, files: &SchemaFiles) -> Result<Value, ProtocolError> {
    let ids = file_ids(files);
    let mut defs = Map::new();
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    for (file, document) in files {
        if let Some(name) = root_name(file, document) {
            let mut schema = root_schema(document);
            rewrite_refs(&mut schema, origin, file, "", &ids, files)?;
            insert_def(&mut defs, &mut owner, origin, file, "", &name, schema)?;
        }
        let Some(file_defs) = document.get("$defs") else {
            continue;
        };
        let Some(file_defs) = file_defs.as_object() else {
            return Err(ProtocolError::new(
                ProtocolErrorKind::BadReference,
                format!("{origin}/{file}"),
                "/$defs",
                "`$defs` must be an object",
            ));
        };
        for (name, schema) in file_defs {
            let mut schema = schema.clone();
            let pointer = format!("/$defs/{}", escape_pointer(name));
            rewrite_refs(&mut schema, origin, file, &pointer, &ids, files)?;
            insert_def(&mut defs, &mut owner, origin, file, &pointer, name, schema)?;
        }
    }
    let mut root = Map::new();
    root.insert("$schema".into(), Value::String(DRAFT_2020_12.into()));
    root.insert("$defs".into(), Value::Object(defs));
    Ok(Value::Object(root))
}

fn insert_def(
    defs: &mut Map<String, Value>,
    owner: &mut BTreeMap<String, String>,
    origin: &str,
    file: &str,
    pointer: &str,
    name: &str,
    schema: Value,
) -> Result<(), ProtocolError> {
    if let Some(existing) = defs.get(name) {
        if *existing != schema {
            let first = owner.get(name).cloned().unwrap_or_default();
            return Err(ProtocolError::new(
                ProtocolErrorKind::DuplicateDefinition,
                format!("{origin}/{file}"),
                pointer,
                format!("type `{name}` is also defined, differently, in {first}"),
            ));
        }
        return Ok(());
    }
    owner.insert(name.to_owned(), file.to_owned());
    defs.insert(name.to_owned(), schema);
    Ok(())
}

/// The type name of a file whose root is itself a schema (not only a
/// holder of `$defs`): its `title` when that is an identifier, else its
/// file stem in PascalCase (`authoring_hint.json` → `AuthoringHint`).
pub fn root_name(file: &str, document: &Value) -> Option<String> {
    let members = document.as_object()?;
    let structural = members.keys().any(|key| {
        !matches!(
            key.as_str(),
            "$schema" | "$id" | "$defs" | "$comment" | "title" | "description"
        )
    });
    if !structural {
        return None;
    }
    let title = members.get("title").and_then(Value::as_str).unwrap_or("");
    if !title.is_empty() && title.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Some(title.to_owned());
    }
    let stem = file.rsplit('/').next().unwrap_or(file);
    let stem = stem.split('.').next().unwrap_or(stem);
    Some(
        stem.split(['_', '-'])
            .filter(|part| !part.is_empty())
            .map(|part| {
                let mut chars = part.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_uppercase().to_string() + chars.as_str()
                })
            })
            .collect(),
    )
}

fn root_schema(document: &Value) -> Value {
    let mut schema = document.clone();
    if let Some(members) = schema.as_object_mut() {
        for key in ["$schema", "$id", "$defs"] {
            members.remove(key);
        }
    }
    schema
}

/// Rewrites a reference written in `file` (`""` for the manifest) to its
/// place in the bundled document (`#/$defs/Name...`).
pub fn localize_ref(
    origin: &str,
    file: &str,
    reference: &str,
    files: &SchemaFiles,
) -> Result<String, ProtocolError> {
    resolve(origin, file, "", reference, &file_ids(files), files)
}

fn file_ids(files: &SchemaFiles) -> BTreeMap<String, String> {
    files
        .iter()
        .filter_map(|(name, doc)| {
            let id = doc.get("$id")?.as_str()?;
            Some((id.trim_end_matches('#').to_owned(), name.clone()))
        })
        .collect()
}

fn rewrite_refs(
    schema: &mut Value,
    origin: &str,
    file: &str,
    pointer: &str,
    ids: &BTreeMap<String, String>,
    files: &SchemaFiles,
) -> Result<(), ProtocolError> {
    match schema {
        Value::Object(members) => {
            for (key, value) in members.iter_mut() {
                let child = format!("{pointer}/{}", escape_pointer(key));
                if key == "$ref" {
                    if let Value::String(reference) = value {
                        *reference = resolve(origin, file, &child, reference, ids, files)?;
                    }
                } else if key != "const" && key != "enum" && key != "examples" && key != "default" {
                    rewrite_refs(value, origin, file, &child, ids, files)?;
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                rewrite_refs(
                    item,
                    origin,
                    file,
                    &format!("{pointer}/{index}"),
                    ids,
                    files,
                )?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn resolve(
    origin: &str,
    file: &str,
    at: &str,
    reference: &str,
    ids: &BTreeMap<String, String>,
    files: &SchemaFiles,
) -> Result<String, ProtocolError> {
    let fail = |message: String| {
        let location = if file.is_empty() {
            format!("{origin}/protocol.json")
        } else {
            format!("{origin}/{file}")
        };
        ProtocolError::new(ProtocolErrorKind::BadReference, location, at, message)
    };
    let (target, fragment) = reference.split_once('#').unwrap_or((reference, ""));
    let target_file = if target.is_empty() {
        file.to_owned()
    } else if let Some(name) = ids.get(target) {
        name.clone()
    } else if files.contains_key(target) {
        target.to_owned()
    } else {
        let relative = target.rsplit('/').next().unwrap_or(target);
        match files.contains_key(relative) && !target.contains("://") {
            true => relative.to_owned(),
            false => {
                return Err(fail(format!(
                    "`{reference}` names a file that is not among this protocol's schemas"
                )))
            }
        }
    };
    if target_file.is_empty() {
        return Err(fail(format!("`{reference}` must name a schema file")));
    }
    let Some(document) = files.get(&target_file) else {
        return Err(fail(format!(
            "`{reference}` names a file that is not among this protocol's schemas"
        )));
    };
    match fragment.strip_prefix("/$defs/") {
        Some(rest) => {
            let name = rest.split('/').next().unwrap_or(rest);
            let exists = document.get("$defs").and_then(|defs| defs.get(unescape_pointer(name).as_str())).is_some();
            if !exists {
                return Err(fail(format!("`{reference}`: {target_file} defines no type `{name}`")));
            }
            Ok(format!("#/$defs/{rest}"))
        }
        None => match root_name(&target_file, document) {
            Some(name) => Ok(format!("#/$defs/{}{fragment}", escape_pointer(&name))),
            None => Err(fail(format!(
                "`{reference}` must point at a type: a file whose root is a schema, or `file.json#/$defs/Name`"
            ))),
        },
    }
}

fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn unescape_pointer(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn files(pairs: &[(&str, Value)]) -> SchemaFiles {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn rewrites_cross_file_and_local_refs() {
        let set = files(&[
            (
                "a.json",
                json!({"$id": "https://x/a.json", "$defs": {"A": {"properties": {"b": {"$ref": "b.json#/$defs/B"}, "me": {"$ref": "#/$defs/A"}}}}}),
            ),
            (
                "b.json",
                json!({"$defs": {"B": {"type": "string", "enum": [{"$ref": "not-a-ref"}]}, "C": {"$ref": "https://x/a.json#/$defs/A"}}}),
            ),
        ]);
        let bundled = bundle("p/1", &set).expect("bundles");
        assert_eq!(
            bundled["$defs"]["A"]["properties"]["b"]["$ref"],
            "#/$defs/B"
        );
        assert_eq!(
            bundled["$defs"]["A"]["properties"]["me"]["$ref"],
            "#/$defs/A"
        );
        assert_eq!(bundled["$defs"]["C"]["$ref"], "#/$defs/A");
        assert_eq!(bundled["$defs"]["B"]["enum"][0]["$ref"], "not-a-ref");
    }

    #[test]
    fn refuses_dangling_and_non_defs_refs() {
        let dangling = files(&[(
            "a.json",
            json!({"$defs": {"A": {"$ref": "b.json#/$defs/B"}}}),
        )]);
        let error = bundle("p/1", &dangling).expect_err("dangling");
        assert_eq!(error.kind(), ProtocolErrorKind::BadReference);
        assert_eq!(error.pointer(), "/$defs/A/$ref");
        let missing_type = files(&[("a.json", json!({"$defs": {"A": {"$ref": "#/$defs/Nope"}}}))]);
        assert!(bundle("p/1", &missing_type)
            .expect_err("no type")
            .message()
            .contains("Nope"));
        let root_ref = files(&[(
            "a.json",
            json!({"$defs": {"A": {"$ref": "#/properties/x"}}}),
        )]);
        assert_eq!(
            bundle("p/1", &root_ref).expect_err("root").kind(),
            ProtocolErrorKind::BadReference
        );
    }

    #[test]
    fn a_file_whose_root_is_a_schema_becomes_a_type() {
        let set = files(&[
            (
                "guide.json",
                json!({"$defs": {"Result": {"properties": {"hints": {"items": {"$ref": "authoring_hint.json"}}}}}}),
            ),
            (
                "authoring_hint.json",
                json!({"$id": "https://x/authoring_hint.json", "type": "object", "properties": {"next": {"$ref": "#"}}}),
            ),
        ]);
        let bundled = bundle("p/1", &set).expect("bundles");
        assert_eq!(
            bundled["$defs"]["Result"]["properties"]["hints"]["items"]["$ref"],
            "#/$defs/AuthoringHint"
        );
        assert_eq!(
            bundled["$defs"]["AuthoringHint"]["properties"]["next"]["$ref"],
            "#/$defs/AuthoringHint"
        );
        assert!(bundled["$defs"]["AuthoringHint"].get("$id").is_none());
    }

    #[test]
    fn refuses_conflicting_definitions_but_allows_identical_ones() {
        let same = files(&[
            ("a.json", json!({"$defs": {"T": {"type": "string"}}})),
            ("b.json", json!({"$defs": {"T": {"type": "string"}}})),
        ]);
        assert!(bundle("p/1", &same).is_ok());
        let differ = files(&[
            ("a.json", json!({"$defs": {"T": {"type": "string"}}})),
            ("b.json", json!({"$defs": {"T": {"type": "integer"}}})),
        ]);
        let error = bundle("p/1", &differ).expect_err("conflict");
        assert_eq!(error.kind(), ProtocolErrorKind::DuplicateDefinition);
        assert_eq!(error.file(), "p/1/b.json");
    }
}
