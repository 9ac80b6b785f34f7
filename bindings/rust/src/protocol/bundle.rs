//! Bundling: every type of a protocol's schema files in one document.
//!
//! A protocol spreads its types over several files that `$ref` each other
//! (`authoring_guide_protocol.json` refers to `authoring_hint.json#/$defs/AuthoringHint`).
//! Validators and code generators (typify cannot follow a reference to
//! another file) want one document: [`bundle`] gathers every file's `$defs`
//! under one `$defs` and rewrites each reference to point into it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::error::{ProtocolError, ProtocolErrorKind};

/// The JSON Schema dialect of bundled documents.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Schema files by their name relative to the manifest.
pub type SchemaFiles = BTreeMap<String, Value>;

/// Where a bundled type was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefOrigin {
    /// The schema file, by its name in the set.
    pub file: String,
    /// The type's JSON pointer in that file (`""` for a file whose root is the type).
    pub pointer: String,
}

/// Every type of a set of schema files, references made local, with where
/// each type came from.
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    /// The types by name, file by file in name order, each in source order.
    pub defs: Map<String, Value>,
    /// Where each type of [`Bundle::defs`] was defined.
    pub origins: BTreeMap<String, DefOrigin>,
}

impl Bundle {
    /// The bundle as one draft 2020-12 document (`{"$schema", "$defs"}`).
    pub fn to_schema(&self) -> Value {
        let mut root = Map::new();
        root.insert("$schema".into(), Value::String(DRAFT_2020_12.into()));
        root.insert("$defs".into(), Value::Object(self.defs.clone()));
        Value::Object(root)
    }
}

/// Gathers the `$defs` of every file into one draft 2020-12 document.
///
/// `origin` names the files in errors (the version's folder). `entry_refs`
/// are the references written outside the files (the manifest's params and
/// results): like any reference, one to a whole file makes that file's root
/// a type. Fails when a reference points at a file or pointer outside the
/// types of the set, or when two files define different types under one name.
pub fn bundle(
    origin: &str,
    files: &SchemaFiles,
    entry_refs: &[&str],
) -> Result<Value, ProtocolError> {
    Ok(bundle_defs(origin, files, entry_refs)?.to_schema())
}

/// Like [`bundle`], keeping the types apart with their origins. Types come
/// from each file's `$defs` (and draft-07 `definitions`), and from each file
/// whose root is itself a schema and is referenced as a whole (see [`root_name`]).
pub fn bundle_defs(
    origin: &str,
    files: &SchemaFiles,
    entry_refs: &[&str],
) -> Result<Bundle, ProtocolError> {
    let mut resolver = Resolver {
        origin,
        files,
        ids: file_ids(files),
        roots: BTreeSet::new(),
    };
    let mut bundle = Bundle::default();
    for (file, document) in files {
        for key in DEFS_KEYWORDS {
            let Some(file_defs) = document.get(key) else {
                continue;
            };
            let Some(file_defs) = file_defs.as_object() else {
                return Err(ProtocolError::new(
                    ProtocolErrorKind::BadReference,
                    format!("{origin}/{file}"),
                    format!("/{key}"),
                    format!("`{key}` must be an object"),
                ));
            };
            for (name, schema) in file_defs {
                let mut schema = schema.clone();
                let pointer = format!("/{key}/{}", escape_pointer(name));
                resolver.rewrite(&mut schema, file, &pointer)?;
                insert_def(&mut bundle, origin, file, &pointer, name, schema)?;
            }
        }
    }
    for reference in entry_refs {
        resolver.resolve("", "", reference)?;
    }
    let mut done = BTreeSet::new();
    while let Some(file) = resolver.roots.iter().find(|f| !done.contains(*f)).cloned() {
        done.insert(file.clone());
        let Some(document) = files.get(&file) else {
            continue;
        };
        let Some(name) = root_name(&file, document) else {
            continue;
        };
        let mut schema = root_schema(document);
        resolver.rewrite(&mut schema, &file, "")?;
        insert_def(&mut bundle, origin, &file, "", &name, schema)?;
    }
    Ok(bundle)
}

/// The keywords under which a file defines named types.
const DEFS_KEYWORDS: [&str; 2] = ["$defs", "definitions"];

fn insert_def(
    bundle: &mut Bundle,
    origin: &str,
    file: &str,
    pointer: &str,
    name: &str,
    schema: Value,
) -> Result<(), ProtocolError> {
    if let Some(existing) = bundle.defs.get(name) {
        if *existing != schema {
            let first = bundle
                .origins
                .get(name)
                .map(|o| o.file.clone())
                .unwrap_or_default();
            return Err(ProtocolError::new(
                ProtocolErrorKind::DuplicateDefinition,
                format!("{origin}/{file}"),
                pointer,
                format!("type `{name}` is also defined, differently, in {first}"),
            ));
        }
        return Ok(());
    }
    bundle.origins.insert(
        name.to_owned(),
        DefOrigin {
            file: file.to_owned(),
            pointer: pointer.to_owned(),
        },
    );
    bundle.defs.insert(name.to_owned(), schema);
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
            "$schema" | "$id" | "$defs" | "definitions" | "$comment" | "title" | "description"
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
        for key in ["$schema", "$id", "$defs", "definitions"] {
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
    let mut resolver = Resolver {
        origin,
        files,
        ids: file_ids(files),
        roots: BTreeSet::new(),
    };
    resolver.resolve(file, "", reference)
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

/// Resolves references within a set of files, noting each file whose root
/// is referenced as a whole.
struct Resolver<'a> {
    origin: &'a str,
    files: &'a SchemaFiles,
    ids: BTreeMap<String, String>,
    roots: BTreeSet<String>,
}

impl Resolver<'_> {
    /// Rewrites every `$ref` below `schema` (written in `file`, at `pointer`).
    fn rewrite(
        &mut self,
        schema: &mut Value,
        file: &str,
        pointer: &str,
    ) -> Result<(), ProtocolError> {
        match schema {
            Value::Object(members) => {
                for (key, value) in members.iter_mut() {
                    let child = format!("{pointer}/{}", escape_pointer(key));
                    if key == "$ref" {
                        if let Value::String(reference) = value {
                            *reference = self.resolve(file, &child, reference)?;
                        }
                    } else if !matches!(key.as_str(), "const" | "enum" | "examples" | "default") {
                        self.rewrite(value, file, &child)?;
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    self.rewrite(item, file, &format!("{pointer}/{index}"))?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The bundled form of `reference`, written in `file` at `at`.
    fn resolve(&mut self, file: &str, at: &str, reference: &str) -> Result<String, ProtocolError> {
        let origin = self.origin;
        let fail = |message: String| {
            let location = if file.is_empty() {
                format!("{origin}/protocol.json")
            } else {
                format!("{origin}/{file}")
            };
            ProtocolError::new(ProtocolErrorKind::BadReference, location, at, message)
        };
        let not_here = || {
            fail(format!(
                "`{reference}` names a file that is not among this protocol's schemas"
            ))
        };
        let (target, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let target_file = if target.is_empty() {
            file.to_owned()
        } else if let Some(name) = self.ids.get(target) {
            name.clone()
        } else if self.files.contains_key(target) {
            target.to_owned()
        } else {
            let relative = target.rsplit('/').next().unwrap_or(target);
            if !self.files.contains_key(relative) || target.contains("://") {
                return Err(not_here());
            }
            relative.to_owned()
        };
        if target_file.is_empty() {
            return Err(fail(format!("`{reference}` must name a schema file")));
        }
        let Some(document) = self.files.get(&target_file) else {
            return Err(not_here());
        };
        let defined = DEFS_KEYWORDS
            .iter()
            .find_map(|key| Some((*key, fragment.strip_prefix(&format!("/{key}/"))?)));
        if let Some((key, rest)) = defined {
            let name = rest.split('/').next().unwrap_or(rest);
            let exists = document
                .get(key)
                .and_then(|defs| defs.get(unescape_pointer(name).as_str()))
                .is_some();
            if !exists {
                return Err(fail(format!(
                    "`{reference}`: {target_file} defines no type `{name}`"
                )));
            }
            return Ok(format!("#/$defs/{rest}"));
        }
        let Some(name) = root_name(&target_file, document) else {
            return Err(fail(format!(
                "`{reference}` must point at a type: a file whose root is a schema, or `file.json#/$defs/Name`"
            )));
        };
        self.roots.insert(target_file);
        Ok(format!("#/$defs/{}{fragment}", escape_pointer(&name)))
    }
}

/// One JSON-pointer segment, escaped (`~` as `~0`, `/` as `~1`).
pub(crate) fn escape_pointer(segment: &str) -> String {
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
        let bundled = bundle("p/1", &set, &[]).expect("bundles");
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
        let error = bundle("p/1", &dangling, &[]).expect_err("dangling");
        assert_eq!(error.kind(), ProtocolErrorKind::BadReference);
        assert_eq!(error.pointer(), "/$defs/A/$ref");
        let missing_type = files(&[("a.json", json!({"$defs": {"A": {"$ref": "#/$defs/Nope"}}}))]);
        assert!(bundle("p/1", &missing_type, &[])
            .expect_err("no type")
            .message()
            .contains("Nope"));
        let root_ref = files(&[(
            "a.json",
            json!({"$defs": {"A": {"$ref": "#/properties/x"}}}),
        )]);
        assert_eq!(
            bundle("p/1", &root_ref, &[]).expect_err("root").kind(),
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
        let bundled = bundle("p/1", &set, &[]).expect("bundles");
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
        assert!(bundle("p/1", &same, &[]).is_ok());
        let differ = files(&[
            ("a.json", json!({"$defs": {"T": {"type": "string"}}})),
            ("b.json", json!({"$defs": {"T": {"type": "integer"}}})),
        ]);
        let error = bundle("p/1", &differ, &[]).expect_err("conflict");
        assert_eq!(error.kind(), ProtocolErrorKind::DuplicateDefinition);
        assert_eq!(error.file(), "p/1/b.json");
    }
}
