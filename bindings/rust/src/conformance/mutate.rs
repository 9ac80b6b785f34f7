//! Invalid params made from a valid instance: one mutation per schema
//! keyword that constrains a member present in it (a required member
//! removed, a value of the wrong type, an extra member where the object is
//! closed, a value outside its enum or const, past either end of its range
//! (`minimum`-1, `maximum`+1, at an exclusive bound), its length or item
//! count (`minLength`-1, `maxLength`+1, `minItems`-1, `maxItems`+1) or
//! outside its pattern). The caller
//! keeps only the mutations its validator refuses.

use serde_json::{json, Value};

use super::instance::Schemas;

/// How deep into nested objects mutations go (0: the params' own members).
const MAX_DEPTH: usize = 2;
/// The member added to a closed object.
pub(crate) const EXTRA_MEMBER: &str = "wirekit_unexpected_member";
/// The longest string (or array) a probe past `maxLength` (`maxItems`) grows
/// to: a bound beyond it is left unprobed rather than flood a frame.
const MAX_GROWN: u64 = 1 << 20;

/// One invalid variant of a valid instance.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mutation {
    /// The JSON pointer of the mutated member (`""` for the params themselves).
    pub pointer: String,
    /// The schema keyword the mutation breaks.
    pub keyword: &'static str,
    /// What was done, for the check's name (`missing required member `clientVersion``).
    pub what: String,
    /// The mutated params.
    pub value: Value,
}

/// Every mutation of `valid` against `schema`.
pub(crate) fn mutations(schemas: &Schemas<'_>, schema: &Value, valid: &Value) -> Vec<Mutation> {
    let mut found = Vec::new();
    walk(
        schemas,
        schema,
        valid,
        "",
        0,
        &mut |pointer, keyword, what, replacement| {
            let mut value = valid.clone();
            if apply(&mut value, pointer, replacement) {
                found.push(Mutation {
                    pointer: pointer.to_owned(),
                    keyword,
                    what,
                    value,
                });
            }
        },
    );
    found
}

/// What to put at a pointer: a new value, or nothing (remove the member).
enum Replacement {
    Value(Value),
    Remove,
}

type Emit<'e> = dyn FnMut(&str, &'static str, String, Replacement) + 'e;

fn walk(
    schemas: &Schemas<'_>,
    schema: &Value,
    value: &Value,
    pointer: &str,
    depth: usize,
    emit: &mut Emit<'_>,
) {
    let schema = schemas.resolve(schema);
    // JSON-RPC params are an object or an array: a params value of another
    // type is the envelope's fault, not the method's.
    if let Some(types) = schema.get("type").filter(|_| !pointer.is_empty()) {
        let allowed: Vec<&str> = match types {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if let Some((name, wrong)) = wrong_type(&allowed) {
            emit(
                pointer,
                "type",
                format!("{} instead of {}", name, allowed.join(" or ")),
                Replacement::Value(wrong),
            );
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        let outside = json!("wirekit-not-in-enum");
        if !options.contains(&outside) {
            emit(
                pointer,
                "enum",
                "a value outside its enum".into(),
                Replacement::Value(outside),
            );
        }
    }
    if let Some(constant) = schema.get("const") {
        let other = json!("wirekit-not-the-const");
        if *constant != other {
            emit(
                pointer,
                "const",
                format!("a value other than its const {constant}"),
                Replacement::Value(other),
            );
        }
    }
    if value.is_number() {
        numeric_bounds(schema, value, pointer, emit);
    }
    if value.is_string() {
        if let Some(min) = schema
            .get("minLength")
            .and_then(Value::as_u64)
            .filter(|m| *m > 0)
        {
            let short = "x".repeat(usize::try_from(min - 1).unwrap_or(0));
            emit(
                pointer,
                "minLength",
                format!("a string shorter than {min}"),
                Replacement::Value(json!(short)),
            );
        }
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
            if max < MAX_GROWN {
                let long = "x".repeat(usize::try_from(max + 1).unwrap_or(0));
                emit(
                    pointer,
                    "maxLength",
                    format!("a string longer than {max}"),
                    Replacement::Value(json!(long)),
                );
            }
        }
        if schema.get("pattern").is_some() {
            emit(
                pointer,
                "pattern",
                "a string outside its pattern".into(),
                Replacement::Value(json!("#\n#")),
            );
        }
    }
    if let Some(items) = value.as_array() {
        if let Some(min) = schema
            .get("minItems")
            .and_then(Value::as_u64)
            .filter(|m| *m > 0)
        {
            let fewer: Vec<Value> = items
                .iter()
                .take(usize::try_from(min - 1).unwrap_or(0))
                .cloned()
                .collect();
            emit(
                pointer,
                "minItems",
                format!("fewer than {min} items"),
                Replacement::Value(Value::Array(fewer)),
            );
        }
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
            if max < MAX_GROWN {
                let filler = items.first().cloned().unwrap_or(Value::Null);
                let mut more = items.clone();
                more.resize(usize::try_from(max + 1).unwrap_or(0), filler);
                emit(
                    pointer,
                    "maxItems",
                    format!("more than {max} items"),
                    Replacement::Value(Value::Array(more)),
                );
            }
        }
    }
    let Some(members) = value.as_object() else {
        return;
    };
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if members.contains_key(name) {
                emit(
                    &child(pointer, name),
                    "required",
                    format!("missing required member `{name}`"),
                    Replacement::Remove,
                );
            }
        }
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        emit(
            &child(pointer, EXTRA_MEMBER),
            "additionalProperties",
            format!("an extra member `{EXTRA_MEMBER}` in a closed object"),
            Replacement::Value(json!(true)),
        );
    }
    if depth >= MAX_DEPTH {
        return;
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, member) in members {
            if let Some(member_schema) = properties.get(name) {
                walk(
                    schemas,
                    member_schema,
                    member,
                    &child(pointer, name),
                    depth + 1,
                    emit,
                );
            }
        }
    }
}

/// The values just past a number's bounds: below `minimum`, above
/// `maximum`, at `exclusiveMinimum` and at `exclusiveMaximum` (integers
/// where the value is one).
fn numeric_bounds(schema: &Value, value: &Value, pointer: &str, emit: &mut Emit<'_>) {
    let integral = value.is_i64() || value.is_u64();
    let number = |n: f64| {
        if integral && n.fract() == 0.0 && n.abs() < 9.0e15 {
            json!(n as i64)
        } else {
            json!(n)
        }
    };
    let bound = |keyword: &str| schema.get(keyword).and_then(Value::as_f64);
    if let Some(min) = bound("minimum") {
        let below = number(min - 1.0);
        emit(
            pointer,
            "minimum",
            format!("{below} below its minimum {min}"),
            Replacement::Value(below),
        );
    }
    if let Some(max) = bound("maximum") {
        let above = number(max + 1.0);
        emit(
            pointer,
            "maximum",
            format!("{above} above its maximum {max}"),
            Replacement::Value(above),
        );
    }
    if let Some(min) = bound("exclusiveMinimum") {
        let at = number(min);
        emit(
            pointer,
            "exclusiveMinimum",
            format!("{at}, its exclusive minimum"),
            Replacement::Value(at),
        );
    }
    if let Some(max) = bound("exclusiveMaximum") {
        let at = number(max);
        emit(
            pointer,
            "exclusiveMaximum",
            format!("{at}, its exclusive maximum"),
            Replacement::Value(at),
        );
    }
}

/// A value of a type `allowed` does not include, with its name.
fn wrong_type(allowed: &[&str]) -> Option<(&'static str, Value)> {
    let candidates: [(&str, &'static str, Value); 4] = [
        ("integer", "the integer 12345", json!(12345)),
        ("string", "a string", json!("wirekit-wrong-type")),
        ("array", "an array", json!([])),
        ("object", "an object", json!({})),
    ];
    candidates
        .into_iter()
        .find(|(kind, _, _)| {
            let covered =
                allowed.contains(kind) || (*kind == "integer" && allowed.contains(&"number"));
            !covered
        })
        .map(|(_, name, value)| (name, value))
}

fn child(pointer: &str, name: &str) -> String {
    format!("{pointer}/{}", name.replace('~', "~0").replace('/', "~1"))
}

/// Puts `replacement` at `pointer` in `value`; false when the pointer does
/// not lead to a member.
fn apply(value: &mut Value, pointer: &str, replacement: Replacement) -> bool {
    if pointer.is_empty() {
        return match replacement {
            Replacement::Value(new) => {
                *value = new;
                true
            }
            Replacement::Remove => false,
        };
    }
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return false;
    };
    let name = last.replace("~1", "/").replace("~0", "~");
    let Some(Value::Object(members)) = value.pointer_mut(parent) else {
        return false;
    };
    match replacement {
        Replacement::Value(new) => {
            members.insert(name, new);
        }
        Replacement::Remove => {
            members.remove(&name);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_mutation_per_constraining_keyword_of_each_present_member() {
        let defs = json!({});
        let schemas = Schemas::new(&defs);
        let schema = json!({
            "type": "object", "additionalProperties": false, "required": ["path", "mode"],
            "properties": {
                "path": {"type": "string", "minLength": 1, "maxLength": 4},
                "mode": {"enum": ["a", "b"]},
                "depth": {"type": "integer", "minimum": 0, "maximum": 9},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "tags": {"type": "array", "maxItems": 2},
                "kind": {"const": "kv"}
            }
        });
        let valid = json!({"path": "src", "mode": "a", "depth": 2, "ratio": 0.5, "tags": ["x"], "kind": "kv"});
        let found: Vec<(String, &str)> = mutations(&schemas, &schema, &valid)
            .into_iter()
            .map(|m| (m.pointer, m.keyword))
            .collect();
        assert_eq!(
            found,
            [
                ("/path".to_owned(), "required"),
                ("/mode".to_owned(), "required"),
                (format!("/{EXTRA_MEMBER}"), "additionalProperties"),
                ("/path".to_owned(), "type"),
                ("/path".to_owned(), "minLength"),
                ("/path".to_owned(), "maxLength"),
                ("/mode".to_owned(), "enum"),
                ("/depth".to_owned(), "type"),
                ("/depth".to_owned(), "minimum"),
                ("/depth".to_owned(), "maximum"),
                ("/ratio".to_owned(), "type"),
                ("/ratio".to_owned(), "exclusiveMinimum"),
                ("/ratio".to_owned(), "exclusiveMaximum"),
                ("/tags".to_owned(), "type"),
                ("/tags".to_owned(), "maxItems"),
                ("/kind".to_owned(), "const"),
            ]
        );
        let value_at = |keyword: &str, pointer: &str| {
            mutations(&schemas, &schema, &valid)
                .into_iter()
                .find(|m| m.keyword == keyword)
                .and_then(|m| m.value.pointer(pointer).cloned())
        };
        assert_eq!(value_at("maxLength", "/path"), Some(json!("xxxxx")));
        assert_eq!(value_at("maximum", "/depth"), Some(json!(10)));
        assert_eq!(value_at("minimum", "/depth"), Some(json!(-1)));
        assert_eq!(value_at("exclusiveMaximum", "/ratio"), Some(json!(1.0)));
        assert_eq!(value_at("exclusiveMinimum", "/ratio"), Some(json!(0.0)));
        assert_eq!(value_at("maxItems", "/tags"), Some(json!(["x", "x", "x"])));
        let removed = mutations(&schemas, &schema, &valid)
            .into_iter()
            .find(|m| m.keyword == "required")
            .map(|m| m.value);
        assert_eq!(
            removed,
            Some(json!({"mode": "a", "depth": 2, "ratio": 0.5, "tags": ["x"], "kind": "kv"}))
        );
    }
}
