//! Value sets the client announces (the manifest's `value_sets`): where
//! the server sends a value of an announced enumeration, is it one the
//! client said it supports?
//!
//! The schema says which values exist (SymbolKind 1..26); the client's
//! capabilities say which it knows (`symbolKind.valueSet`). A message that
//! passed its schema is walked along its schema in the bundled document to
//! every place whose schema is the enumeration's (a `$ref` to it):
//!
//! 1. `$ref` is followed (a reference to the enumeration marks the place);
//!    `allOf` items are all followed;
//! 2. of `anyOf` and `oneOf`, the alternatives that admit the place: whose
//!    `type`, `required` members, `const` and `enum` (through their
//!    `$ref`s) the value meets, so that a `CompletionList` is not read as a
//!    `CompletionItem[]`;
//! 3. `properties`, `additionalProperties`, `prefixItems` and `items` lead
//!    one level down the value.
//!
//! Every step goes down the value or along one reference, at most
//! [`MAX_STEPS`] in all, so a peer's message cannot make the walk run
//! away.

use std::collections::BTreeMap;

use serde_json::Value;

use super::pointer::{escape_segment, ref_pointer};
use crate::protocol::{Manifest, MethodKind, ProtocolSource};

/// How many schema nodes one walk visits at most.
const MAX_STEPS: usize = 1 << 20;
/// How many references an alternative's admission check follows.
const MAX_REFERENCES: usize = 32;

/// A value set ready to check: the enumeration's place in the bundle and,
/// by method, the schema of what the server sends in it.
#[derive(Debug)]
pub(super) struct CompiledValueSet {
    index: usize,
    enumeration: String,
    roots: BTreeMap<(String, &'static str), String>,
}

/// A value the server sent outside the set the client announced.
#[derive(Debug, Clone, PartialEq)]
pub struct UnannouncedValue {
    /// Where in the message (`/result/0/kind`, `/params/diagnostics/0/tags/0`).
    pub pointer: String,
    /// The value sent.
    pub value: Value,
    /// The enumeration's name (the last segment of its schema's place).
    pub enumeration: String,
    /// The set the client supports.
    pub supported: Vec<Value>,
    /// Where the client announced it (`/params/capabilities/...`), or
    /// `None` where it announced none and the protocol's default applies.
    pub announced_at: Option<String>,
}

impl UnannouncedValue {
    /// A sentence for a person.
    pub fn message(&self) -> String {
        let supported = describe_set(&self.supported);
        match &self.announced_at {
            Some(at) => format!(
                "{} {} is not among the values the client announced at {at} ({supported}); the client falls back to a default for it",
                self.enumeration, self.value
            ),
            None => format!(
                "{} {} is not among the values a client that announces none supports ({supported}, the protocol's default)",
                self.enumeration, self.value
            ),
        }
    }
}

/// The value sets of a manifest, with the schemas of what the server sends
/// in each method: a request's result, the params of what the server
/// sends itself.
pub(super) fn compile(source: &ProtocolSource) -> Vec<CompiledValueSet> {
    let manifest: &Manifest = &source.manifest;
    let bundle = source.bundle();
    let local = |reference: &str| bundle.entry_ref(reference).and_then(|r| ref_pointer(&r));
    manifest
        .value_sets
        .iter()
        .enumerate()
        .filter_map(|(index, set)| {
            let enumeration = local(&set.schema.reference)?;
            let mut roots = BTreeMap::new();
            for name in &set.methods {
                let Some(spec) = manifest.methods.get(name) else {
                    continue;
                };
                // The result the server answers with, and the params of
                // what the server sends (the caller says which it holds).
                let parts = [("/result", &spec.result), ("/params", &spec.params)];
                for (part, reference) in parts {
                    let sends = match part {
                        "/result" => {
                            spec.kind == MethodKind::Request && spec.direction.client_sends()
                        }
                        _ => spec.direction.server_sends(),
                    };
                    if let Some(root) = reference
                        .as_ref()
                        .filter(|_| sends)
                        .and_then(|r| local(&r.reference))
                    {
                        roots.insert((name.clone(), part), root);
                    }
                }
            }
            Some(CompiledValueSet {
                index,
                enumeration,
                roots,
            })
        })
        .collect()
}

/// The values of `sent` (the server's message of `method`, at `prefix`:
/// `/result` or `/params`) outside the sets announced in `announcement`
/// (the params of the client's capability method).
pub(super) fn unannounced(
    sets: &[CompiledValueSet],
    source: &ProtocolSource,
    method: &str,
    prefix: &str,
    sent: &Value,
    announcement: Option<&Value>,
) -> Vec<UnannouncedValue> {
    let document = source.bundled_schema();
    let mut found = Vec::new();
    for set in sets {
        let Some(root) = set.roots.get(&(method.to_owned(), prefix)) else {
            continue;
        };
        let Some(spec) = source.manifest.value_sets.get(set.index) else {
            continue;
        };
        let announced = announcement.and_then(|a| a.pointer(&spec.announced));
        let (supported, announced_at) = match announced {
            Some(Value::Array(values)) => {
                (values.clone(), Some(format!("/params{}", spec.announced)))
            }
            // Not an array: the params' own schema is the judge of that.
            Some(_) => continue,
            None => match &spec.absent {
                Some(values) => (values.clone(), None),
                None => continue,
            },
        };
        let Some(schema) = document.pointer(root) else {
            continue;
        };
        let mut walk = Walk {
            document,
            enumeration: &set.enumeration,
            steps: 0,
            places: BTreeMap::new(),
        };
        walk.visit(schema, sent, prefix.to_owned());
        let name = set
            .enumeration
            .rsplit('/')
            .next()
            .unwrap_or(&set.enumeration)
            .to_owned();
        for (pointer, value) in walk.places {
            if !supported.contains(value) {
                found.push(UnannouncedValue {
                    pointer,
                    value: value.clone(),
                    enumeration: name.clone(),
                    supported: supported.clone(),
                    announced_at: announced_at.clone(),
                });
            }
        }
    }
    found
}

struct Walk<'a> {
    document: &'a Value,
    enumeration: &'a str,
    steps: usize,
    /// The places whose schema is the enumeration, by pointer.
    places: BTreeMap<String, &'a Value>,
}

impl<'a> Walk<'a> {
    fn resolve(&self, reference: &str) -> Option<(String, &'a Value)> {
        let pointer = ref_pointer(reference)?;
        let schema = self.document.pointer(&pointer)?;
        Some((pointer, schema))
    }

    fn visit(&mut self, schema: &'a Value, value: &'a Value, at: String) {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return;
        }
        let Value::Object(keywords) = schema else {
            return;
        };
        if let Some(reference) = keywords.get("$ref").and_then(Value::as_str) {
            if let Some((pointer, target)) = self.resolve(reference) {
                if pointer == self.enumeration {
                    self.places.insert(at.clone(), value);
                } else {
                    self.visit(target, value, at.clone());
                }
            }
        }
        if let Some(Value::Array(all)) = keywords.get("allOf") {
            for item in all {
                self.visit(item, value, at.clone());
            }
        }
        for alternatives in ["anyOf", "oneOf"] {
            if let Some(Value::Array(items)) = keywords.get(alternatives) {
                for item in items {
                    if self.admits(item, value, 0) {
                        self.visit(item, value, at.clone());
                    }
                }
            }
        }
        match value {
            Value::Object(members) => {
                let properties = keywords.get("properties").and_then(Value::as_object);
                let additional = keywords.get("additionalProperties");
                for (name, member) in members {
                    let member_schema = properties.and_then(|p| p.get(name)).or(additional);
                    if let Some(member_schema) = member_schema {
                        let below = format!("{at}/{}", escape_segment(name));
                        self.visit(member_schema, member, below);
                    }
                }
            }
            Value::Array(items) => {
                let prefix = keywords.get("prefixItems").and_then(Value::as_array);
                let rest = keywords.get("items");
                for (position, item) in items.iter().enumerate() {
                    let item_schema = prefix.and_then(|p| p.get(position)).or(rest);
                    if let Some(item_schema) = item_schema {
                        self.visit(item_schema, item, format!("{at}/{position}"));
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether an alternative admits the value by its shallow keywords
    /// (`type`, `required`, `const`, `enum`), through its `$ref`s and, for
    /// nested alternatives, any of them.
    fn admits(&self, schema: &'a Value, value: &Value, references: usize) -> bool {
        let Value::Object(keywords) = schema else {
            return schema.as_bool().unwrap_or(true);
        };
        if let Some(types) = keywords.get("type") {
            let names: Vec<&str> = match types {
                Value::String(name) => vec![name.as_str()],
                Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if !names.is_empty() && !names.iter().any(|name| is_type(value, name)) {
                return false;
            }
        }
        if let (Some(Value::Array(required)), Value::Object(members)) =
            (keywords.get("required"), value)
        {
            if !required
                .iter()
                .filter_map(Value::as_str)
                .all(|name| members.contains_key(name))
            {
                return false;
            }
        }
        if keywords
            .get("const")
            .is_some_and(|constant| constant != value)
        {
            return false;
        }
        if let Some(Value::Array(values)) = keywords.get("enum") {
            if !values.contains(value) {
                return false;
            }
        }
        if references < MAX_REFERENCES {
            if let Some(reference) = keywords.get("$ref").and_then(Value::as_str) {
                if let Some((_, target)) = self.resolve(reference) {
                    if !self.admits(target, value, references + 1) {
                        return false;
                    }
                }
            }
            for alternatives in ["anyOf", "oneOf"] {
                if let Some(Value::Array(items)) = keywords.get(alternatives) {
                    if !items
                        .iter()
                        .any(|item| self.admits(item, value, references + 1))
                    {
                        return false;
                    }
                }
            }
        }
        true
    }
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => true,
    }
}

/// A set for a person: runs of consecutive integers as `1–18`.
fn describe_set(values: &[Value]) -> String {
    let mut integers: Vec<i64> = values.iter().filter_map(Value::as_i64).collect();
    if integers.len() != values.len() {
        let texts: Vec<String> = values.iter().map(Value::to_string).collect();
        return texts.join(", ");
    }
    integers.sort_unstable();
    integers.dedup();
    let mut runs: Vec<String> = Vec::new();
    let mut start = 0;
    while start < integers.len() {
        let mut end = start;
        while end + 1 < integers.len() && integers[end + 1] == integers[end] + 1 {
            end += 1;
        }
        runs.push(match end - start {
            0 => integers[start].to_string(),
            1 => format!("{}, {}", integers[start], integers[end]),
            _ => format!("{}–{}", integers[start], integers[end]),
        });
        start = end + 1;
    }
    if runs.is_empty() {
        "none".to_owned()
    } else {
        runs.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sets_are_described_as_runs() {
        let set: Vec<Value> = (1..=18).chain([20, 21, 23]).map(Value::from).collect();
        assert_eq!(describe_set(&set), "1–18, 20, 21, 23");
        assert_eq!(describe_set(&[json!("a"), json!("b")]), "\"a\", \"b\"");
        assert_eq!(describe_set(&[]), "none");
    }
}
