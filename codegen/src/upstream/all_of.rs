//! An `allOf` of object schemas as one object schema.
//!
//! The generators give a type one shape, so `CancelTaskResult = allOf
//! [Result, Task]` (MCP 2025-11-25) becomes one object holding the members
//! of both, as LSP's `and` types are. The merge is exact, or it is an error:
//! every part must be an object schema saying nothing but `type: object`,
//! `properties`, `required` and an open `additionalProperties` (absent,
//! `true` or `{}`), so that the intersection is the object with every
//! member and every required name. A member two parts both define is kept
//! only when one of its schemas implies the other (each constraint of the
//! weaker one is in the stronger one with the same value: `{"type":
//! "integer"}` and `{"type": "integer", "const": -32042}`).

use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};

/// Annotations, which constrain nothing.
const ANNOTATIONS: &[&str] = &["description", "title", "$comment", "examples"];

/// `schema` (an object holding `allOf`) as one object schema, its parts and
/// its own members merged; references are resolved in `defs` by `prefix`.
pub(super) fn merge(
    schema: &Map<String, Value>,
    defs: &Map<String, Value>,
    prefix: &str,
    at: &str,
) -> Result<Map<String, Value>> {
    let mut merged = Map::new();
    let mut own = schema.clone();
    let parts = own
        .remove("allOf")
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default();
    let mut open = false;
    let mut visit = vec![Value::Object(own)];
    visit.extend(parts);
    for (depth, part) in visit.into_iter().enumerate() {
        let part = resolve(&part, defs, prefix, at, depth)?;
        absorb(&mut merged, &mut open, &part, at)?;
    }
    if open {
        merged.insert("additionalProperties".into(), Value::Object(Map::new()));
    }
    Ok(merged)
}

/// A part with its reference followed (and its own `allOf` merged).
fn resolve(
    part: &Value,
    defs: &Map<String, Value>,
    prefix: &str,
    at: &str,
    depth: usize,
) -> Result<Map<String, Value>> {
    let unsupported = |why: &str| Error::new(ErrorKind::Unsupported, why.to_owned()).at(at);
    let o = part
        .as_object()
        .ok_or_else(|| unsupported("an `allOf` part that is not an object schema"))?;
    if depth > 32 {
        return Err(unsupported("`allOf` parts refer to each other in a cycle"));
    }
    if let Some(r) = o.get("$ref") {
        let target = r
            .as_str()
            .and_then(|r| r.strip_prefix(prefix))
            .and_then(|name| defs.get(name))
            .ok_or_else(|| unsupported("an `allOf` part refers to no type of the file"))?;
        let mut rest = o.clone();
        rest.remove("$ref");
        if rest.keys().any(|k| !ANNOTATIONS.contains(&k.as_str())) {
            return Err(unsupported(
                "an `allOf` part with a `$ref` beside constraints",
            ));
        }
        return resolve(target, defs, prefix, at, depth + 1);
    }
    if o.contains_key("allOf") {
        return merge(o, defs, prefix, at);
    }
    Ok(o.clone())
}

/// Adds one part's members to `merged`.
fn absorb(
    merged: &mut Map<String, Value>,
    open: &mut bool,
    part: &Map<String, Value>,
    at: &str,
) -> Result<()> {
    let unsupported = |why: String| Error::new(ErrorKind::Unsupported, why).at(at);
    for (k, v) in part {
        match k.as_str() {
            k if ANNOTATIONS.contains(&k) => {
                merged.entry(k.to_owned()).or_insert_with(|| v.clone());
            }
            "type" if v == "object" => {
                merged.insert("type".into(), v.clone());
            }
            "additionalProperties"
                if v == &Value::Bool(true) || v == &Value::Object(Map::new()) =>
            {
                *open = true;
            }
            "required" => {
                let list = merged
                    .entry("required")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let (Value::Array(list), Value::Array(names)) = (list, v) {
                    for n in names {
                        if !list.contains(n) {
                            list.push(n.clone());
                        }
                    }
                }
            }
            "properties" => {
                let members = v
                    .as_object()
                    .ok_or_else(|| unsupported("`properties` that is not an object".into()))?;
                let props = merged
                    .entry("properties")
                    .or_insert_with(|| Value::Object(Map::new()));
                let Value::Object(props) = props else {
                    return Err(unsupported("`properties` that is not an object".into()));
                };
                for (name, schema) in members {
                    let kept = match props.get(name) {
                        None => schema.clone(),
                        Some(earlier) if implies(schema, earlier) => schema.clone(),
                        Some(earlier) if implies(earlier, schema) => earlier.clone(),
                        Some(_) => {
                            return Err(unsupported(format!(
                                "`allOf` parts define the member `{name}` twice, neither implying the other"
                            )))
                        }
                    };
                    props.insert(name.clone(), kept);
                }
            }
            other => {
                return Err(unsupported(format!(
                    "an `allOf` part with `{other}`: only open object schemas are merged"
                )))
            }
        }
    }
    Ok(())
}

/// Whether `strong` implies `weak`: every constraint of `weak` is in
/// `strong` with the same value (annotations aside).
fn implies(strong: &Value, weak: &Value) -> bool {
    match (strong.as_object(), weak.as_object()) {
        (Some(s), Some(w)) => w
            .iter()
            .filter(|(k, _)| !ANNOTATIONS.contains(&k.as_str()))
            .all(|(k, v)| s.get(k) == Some(v)),
        _ => strong == weak,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn merged(schema: Value, defs: Value) -> Result<Value> {
        let (Value::Object(s), Value::Object(d)) = (schema, defs) else {
            return Err(Error::new(ErrorKind::Json, "objects expected"));
        };
        merge(&s, &d, "#/$defs/", "/x").map(Value::Object)
    }

    #[test]
    fn open_objects_merge_into_one() {
        let defs = json!({
            "Result": {"type": "object", "additionalProperties": {}, "properties": {"_meta": {"type": "object"}}},
            "Task": {"type": "object", "required": ["taskId"], "properties": {"taskId": {"type": "string"}}}
        });
        let m = merged(
            json!({"description": "d", "allOf": [{"$ref": "#/$defs/Result"}, {"$ref": "#/$defs/Task"}]}),
            defs,
        )
        .expect("merges");
        assert_eq!(m["required"], json!(["taskId"]));
        assert_eq!(m["additionalProperties"], json!({}));
        assert!(m["properties"].get("_meta").is_some() && m["properties"].get("taskId").is_some());
    }

    #[test]
    fn a_member_twice_keeps_the_stronger_or_fails() {
        let defs = json!({"Error": {"type": "object", "properties": {"code": {"type": "integer"}, "data": {}}}});
        let m = merged(
            json!({"allOf": [{"$ref": "#/$defs/Error"},
                {"type": "object", "properties": {"code": {"const": -3, "type": "integer"}}}]}),
            defs.clone(),
        )
        .expect("merges");
        assert_eq!(
            m["properties"]["code"],
            json!({"const": -3, "type": "integer"})
        );
        let clash = merged(
            json!({"allOf": [{"$ref": "#/$defs/Error"},
                {"type": "object", "properties": {"code": {"type": "string"}}}]}),
            defs.clone(),
        );
        assert!(clash.is_err());
        let closed = merged(
            json!({"allOf": [{"$ref": "#/$defs/Error"}, {"type": "object", "additionalProperties": false}]}),
            defs,
        );
        assert!(closed.is_err());
    }
}
