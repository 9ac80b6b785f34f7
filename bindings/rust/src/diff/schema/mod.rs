//! Comparing two JSON Schemas of one value: every keyword that decides which
//! values are valid, classified as narrowing (fewer values accepted: breaks
//! the value's writers) or widening (more values: breaks its readers).
//!
//! Both schemas are read from their version's bundle (every type under one
//! `$defs`); references are followed, each pair of types once per direction.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

mod members;
mod values;
mod variants;

use crate::diff::change::{Change, ChangeKind, Flow, Impact, Role};
use crate::protocol::bundle::Bundle;

/// One version's bundled schema and where each of its types came from.
pub(super) struct Side<'a> {
    /// The bundled document (`{"$defs": {...}}`).
    pub root: &'a Value,
    /// Each type's file and pointer, and the type of each manifest reference.
    pub bundle: &'a Bundle,
}

impl Side<'_> {
    /// The schema a manifest reference (`file.json#/$defs/Name`) names, as a
    /// reference into the bundle; any value for an empty reference.
    pub fn entry(&self, reference: &str) -> Value {
        if reference.is_empty() {
            return json!({});
        }
        match self.bundle.entry_ref(reference) {
            Some(local) => json!({ "$ref": local }),
            None => json!({}),
        }
    }

    /// `file#/pointer` for a pointer into the bundle (`/$defs/Name/...`).
    pub fn locate(&self, bundled: &str) -> String {
        let Some(rest) = bundled.strip_prefix("/$defs/") else {
            return format!("#{bundled}");
        };
        let (name, tail) = rest.split_once('/').map_or((rest, ""), |(n, t)| (n, t));
        match self.bundle.origins.get(&unescape(name)) {
            Some(origin) if tail.is_empty() => format!("{}#{}", origin.file, origin.pointer),
            Some(origin) => format!("{}#{}/{tail}", origin.file, origin.pointer),
            None => format!("#{bundled}"),
        }
    }

    /// Follows `$ref`s from `schema` (found at `location`): the referenced
    /// schema with the referring one's other keywords over it, and where it is.
    pub(super) fn resolve(&self, schema: &Value, location: &str) -> (Value, String) {
        let mut schema = schema.clone();
        let mut location = location.to_owned();
        for _ in 0..32 {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let pointer = reference.strip_prefix('#').unwrap_or(reference).to_owned();
            let Some(target) = self.root.pointer(&pointer) else {
                break;
            };
            let mut merged = target.clone();
            if let (Value::Object(merged), Value::Object(referring)) = (&mut merged, &schema) {
                for (key, value) in referring {
                    if key != "$ref" {
                        merged.insert(key.clone(), value.clone());
                    }
                }
            }
            schema = merged;
            location = pointer;
        }
        (schema, location)
    }
}

/// Where the compared value sits.
#[derive(Debug, Clone)]
pub(super) struct Place {
    /// The message part (`analyze params`).
    pub part: String,
    /// The instance pointer inside it, `*` for any item.
    pub at: String,
    /// The schema's pointer in the old bundle.
    pub old: String,
    /// The schema's pointer in the new bundle.
    pub new: String,
    /// Who writes the value.
    pub flow: Flow,
}

impl Place {
    fn child(&self, instance: &str, old: &str, new: &str) -> Place {
        Place {
            part: self.part.clone(),
            at: format!("{}/{instance}", self.at),
            old: format!("{}/{old}", self.old),
            new: format!("{}/{new}", self.new),
            flow: self.flow,
        }
    }
}

/// Compares schemas and collects the changes.
pub(super) struct SchemaDiff<'a> {
    old: Side<'a>,
    new: Side<'a>,
    visited: HashSet<(String, String, Role)>,
    /// The changes found so far.
    pub changes: Vec<Change>,
}

impl<'a> SchemaDiff<'a> {
    pub fn new(old: Side<'a>, new: Side<'a>) -> Self {
        SchemaDiff {
            old,
            new,
            visited: HashSet::new(),
            changes: Vec::new(),
        }
    }

    /// The old version's schemas.
    pub fn old_side(&self) -> &Side<'a> {
        &self.old
    }

    /// The new version's schemas.
    pub fn new_side(&self) -> &Side<'a> {
        &self.new
    }

    /// Compares the schemas of one value.
    pub fn compare(&mut self, old: &Value, new: &Value, place: &Place) {
        let (old, old_location) = self.old.resolve(old, &place.old);
        let (new, new_location) = self.new.resolve(new, &place.new);
        let key = (
            old_location.clone(),
            new_location.clone(),
            place.flow.writer,
        );
        let followed = old_location != place.old || new_location != place.new;
        if followed && !self.visited.insert(key) {
            return;
        }
        let place = Place {
            old: old_location,
            new: new_location,
            ..place.clone()
        };
        // Equal schemas may still refer to types that differ: no early return.
        let (old, new) = (as_object(&old), as_object(&new));
        if self.compare_variants(&old, &new, &place) {
            return;
        }
        self.compare_types(&old, &new, &place);
        self.compare_values(&old, &new, &place);
        self.compare_bounds(&old, &new, &place);
        self.compare_objects(&old, &new, &place);
        self.compare_arrays(&old, &new, &place);
        self.compare_alternatives(&old, &new, &place);
        for keyword in [
            "allOf",
            "not",
            "if",
            "then",
            "else",
            "dependentRequired",
            "dependentSchemas",
        ] {
            if old.get(keyword) != new.get(keyword) {
                let narrowed = !old.contains_key(keyword);
                let widened = !new.contains_key(keyword);
                let impact = match (narrowed, widened) {
                    (true, _) => place.flow.narrowed(),
                    (_, true) => place.flow.widened(),
                    _ => Impact::BreaksClientsAndServers,
                };
                self.push(
                    impact,
                    ChangeKind::SchemaChanged,
                    &place,
                    format!("`{keyword}` changed"),
                );
            }
        }
    }

    fn push(&mut self, impact: Impact, kind: ChangeKind, place: &Place, message: String) {
        self.push_at(impact, kind, place, &place.new.clone(), false, message);
    }

    fn push_at(
        &mut self,
        impact: Impact,
        kind: ChangeKind,
        place: &Place,
        location: &str,
        in_old: bool,
        message: String,
    ) {
        let pointer = if in_old {
            self.old.locate(location)
        } else {
            self.new.locate(location)
        };
        let duplicate = self
            .changes
            .iter()
            .any(|c| c.pointer == pointer && c.kind == kind && c.impact == impact);
        if !duplicate {
            self.changes.push(Change {
                impact,
                kind,
                pointer,
                message_part: Some(place.part.clone()),
                at: Some(place.at.clone()),
                message,
            });
        }
    }
}

fn as_object(schema: &Value) -> Map<String, Value> {
    match schema {
        Value::Object(members) => members.clone(),
        Value::Bool(false) => {
            let mut members = Map::new();
            members.insert("not".into(), Value::Object(Map::new()));
            members
        }
        _ => Map::new(),
    }
}

pub(super) const ALL_TYPES: [&str; 6] = ["array", "boolean", "null", "number", "object", "string"];

pub(super) fn show(value: Option<&Value>) -> String {
    value.map_or_else(|| "none".to_owned(), Value::to_string)
}

/// Escapes a member name for a JSON pointer.
pub(in crate::diff) fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}
