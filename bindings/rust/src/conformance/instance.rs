//! Minimal valid instances of a schema, and schema lookup: what the battery
//! sends when a method has no worked example. Covers the keywords the
//! shipped schemas use (`$ref` into the bundle's `$defs`, `type`, `const`,
//! `enum`, `examples`, `default`, `properties`/`required`, `items`/`minItems`,
//! `minLength`/`maxLength`/`pattern`, `minimum`/`maximum`/`exclusiveMinimum`,
//! `anyOf`/`oneOf`/`allOf`). Every instance is validated against the method's
//! schema by the caller before it is sent.

use serde_json::{json, Map, Value};

/// How deep the generator follows nested schemas before giving up.
const MAX_DEPTH: usize = 24;

/// Strings tried for a `pattern` the generator cannot read (the schema's
/// own examples come first).
const PATTERN_CANDIDATES: [&str; 8] = [
    "x",
    "Abc",
    "1.0",
    "1.0.0",
    "018f0000-0000-7000-8000-000000000001",
    "sha256:0000000000000000000000000000000000000000000000000000000000000000",
    "a-b",
    "0",
];

/// A schema with `$ref`s resolved against `defs` (the bundle's `$defs`).
pub(crate) struct Schemas<'a> {
    defs: &'a Value,
}

impl<'a> Schemas<'a> {
    pub(crate) fn new(defs: &'a Value) -> Self {
        Schemas { defs }
    }

    /// Follows `$ref` (`#/$defs/Name`) until a schema without one.
    pub(crate) fn resolve(&self, schema: &'a Value) -> &'a Value {
        let mut current = schema;
        for _ in 0..MAX_DEPTH {
            let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
                return current;
            };
            let Some(name) = reference.strip_prefix("#/$defs/") else {
                return current;
            };
            match self.defs.get(name) {
                Some(target) => current = target,
                None => return current,
            }
        }
        current
    }

    /// A minimal instance of `schema`, or `None` when the generator cannot
    /// make one.
    pub(crate) fn minimal(&self, schema: &Value) -> Option<Value> {
        self.generate(schema, 0)
    }

    fn generate(&self, schema: &Value, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        let schema = self.resolve(schema);
        match schema {
            Value::Bool(true) => return Some(json!({})),
            Value::Bool(false) => return None,
            _ => {}
        }
        if let Some(value) = schema.get("const") {
            return Some(value.clone());
        }
        if let Some(first) = schema
            .get("enum")
            .and_then(Value::as_array)
            .and_then(|v| v.first())
        {
            return Some(first.clone());
        }
        if let Some(first) = schema
            .get("examples")
            .and_then(Value::as_array)
            .and_then(|v| v.first())
        {
            return Some(first.clone());
        }
        if let Some(value) = schema.get("default") {
            return Some(value.clone());
        }
        for combinator in ["anyOf", "oneOf"] {
            if let Some(options) = schema.get(combinator).and_then(Value::as_array) {
                return options.iter().find_map(|o| self.generate(o, depth + 1));
            }
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            // Merge the parts' objects (enough for the `allOf`s of these schemas).
            let mut merged = Map::new();
            for part in parts {
                match self.generate(part, depth + 1)? {
                    Value::Object(members) => merged.extend(members),
                    other => return Some(other),
                }
            }
            return Some(Value::Object(merged));
        }
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(one)) => vec![one.as_str()],
            Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
            _ if schema.get("properties").is_some() || schema.get("required").is_some() => {
                vec!["object"]
            }
            _ => vec!["object"],
        };
        // Prefer the simplest type a schema allows, but not null when
        // another is offered (a null often means "absent").
        let chosen = types
            .iter()
            .copied()
            .find(|t| *t != "null")
            .or_else(|| types.first().copied())?;
        match chosen {
            "null" => Some(Value::Null),
            "boolean" => Some(Value::Bool(false)),
            "integer" | "number" => Some(number(schema, chosen == "integer")),
            "string" => self.string(schema),
            "array" => {
                let count = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                let item = schema.get("items").cloned().unwrap_or(json!({}));
                let mut items = Vec::new();
                for _ in 0..count.min(8) {
                    items.push(self.generate(&item, depth + 1)?);
                }
                Some(Value::Array(items))
            }
            _ => self.object(schema, depth),
        }
    }

    fn object(&self, schema: &Value, depth: usize) -> Option<Value> {
        let mut members = Map::new();
        let properties = schema.get("properties").and_then(Value::as_object);
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str);
        for name in required {
            let member = properties
                .and_then(|p| p.get(name))
                .cloned()
                .unwrap_or(json!({}));
            members.insert(name.to_owned(), self.generate(&member, depth + 1)?);
        }
        Some(Value::Object(members))
    }

    fn string(&self, schema: &Value) -> Option<Value> {
        let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = schema
            .get("maxLength")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        let Some(pattern) = schema.get("pattern").and_then(Value::as_str) else {
            let length = usize::try_from(min.max(1).min(max)).ok()?;
            return Some(Value::String("x".repeat(length)));
        };
        // A pattern: the first candidate within the length bounds that matches it.
        let fits = |s: &&&str| {
            let n = s.chars().count() as u64;
            n >= min && n <= max && matches_simply(pattern, s)
        };
        PATTERN_CANDIDATES
            .iter()
            .find(fits)
            .map(|s| Value::String((*s).to_owned()))
    }
}

/// Whether `candidate` matches `pattern`, judged by the validator's own
/// regex engine (an unreadable pattern matches nothing).
fn matches_simply(pattern: &str, candidate: &str) -> bool {
    jsonschema::validator_for(&json!({"pattern": pattern}))
        .is_ok_and(|validator| validator.is_valid(&json!(candidate)))
}

fn number(schema: &Value, integer: bool) -> Value {
    let minimum = schema.get("minimum").and_then(Value::as_f64).or_else(|| {
        schema
            .get("exclusiveMinimum")
            .and_then(Value::as_f64)
            .map(|m| m + 1.0)
    });
    let maximum = schema.get("maximum").and_then(Value::as_f64);
    let value = match (minimum, maximum) {
        (Some(min), _) => min,
        (None, Some(max)) if max < 0.0 => max,
        _ => 0.0,
    };
    if integer {
        json!(value.ceil() as i64)
    } else {
        json!(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_instances_follow_refs_required_members_and_bounds() {
        let defs = json!({
            "Range": {"type": "object", "required": ["minimum", "maximum"], "properties": {
                "minimum": {"$ref": "#/$defs/Version"}, "maximum": {"$ref": "#/$defs/Version"}}},
            "Version": {"type": "string", "pattern": "^[0-9]+\\.[0-9]+\\.[0-9]+$"},
            "Params": {"type": "object", "additionalProperties": false, "required": ["range", "count", "tags", "mode", "note"],
                "properties": {
                    "range": {"$ref": "#/$defs/Range"},
                    "count": {"type": "integer", "minimum": 3},
                    "tags": {"type": "array", "minItems": 2, "items": {"type": "string", "minLength": 2}},
                    "mode": {"enum": ["fast", "slow"]},
                    "note": {"type": ["null", "string"]},
                    "optional": {"type": "boolean"}
                }}
        });
        let schemas = Schemas::new(&defs);
        let made = schemas.minimal(&json!({"$ref": "#/$defs/Params"}));
        assert_eq!(
            made,
            Some(json!({
                "range": {"minimum": "1.0.0", "maximum": "1.0.0"},
                "count": 3,
                "tags": ["xx", "xx"],
                "mode": "fast",
                "note": "x"
            }))
        );
    }

    #[test]
    fn a_schema_that_allows_nothing_gives_no_instance() {
        let defs = json!({});
        let schemas = Schemas::new(&defs);
        assert_eq!(schemas.minimal(&json!(false)), None);
        assert_eq!(
            schemas
                .minimal(&json!({"type": "object", "required": ["a"], "properties": {"a": false}})),
            None
        );
    }
}
