//! An upstream JSON Schema's types as draft 2020-12 `$defs`, without the
//! upstream prose.
//!
//! Every keyword that constrains is kept as written (draft-07's array form
//! of `items` becomes `prefixItems`, an `allOf` of open objects one object:
//! see [`super::all_of`]); `title`, `$comment` and `examples` are dropped,
//! `description` too where the recipe says `"docs": "generated"`, and every
//! named schema (a type, an object member) gets a title and, where it keeps
//! no upstream description, a one-line description written here. A member whose
//! schema is a type of its own in the bindings (an inline object, a union) is
//! titled after its owner and its name (`CallToolRequest` + `params`:
//! "Call tool request params"), as the generators name it. A keyword this
//! module does not know is an error, never silently dropped, so that a new
//! upstream construct is seen.

use serde_json::{json, Map, Value};

use super::{Docs, Recipe};
use crate::derived::{annotate, distinct_type_names, is_inline, words};
use crate::error::{Error, ErrorKind, Result};

/// Keywords kept as they are: they constrain, or are harmless annotations
/// with no prose.
const KEPT: &[&str] = &[
    "type",
    "required",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "default",
    "deprecated",
];

/// Keywords whose value is one schema.
const ONE_SCHEMA: &[&str] = &[
    "additionalProperties",
    "not",
    "propertyNames",
    "contains",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Keywords dropped: prose, or annotations that may carry it.
const DROPPED: &[&str] = &["description", "title", "$comment", "examples"];

/// The upstream file's definitions (`definitions` or `$defs`) and the
/// prefix of a reference to one (`#/definitions/`).
pub(super) fn upstream_defs(upstream: &Value) -> Result<(&Map<String, Value>, &'static str)> {
    if let Some(d) = upstream.get("$defs").and_then(Value::as_object) {
        return Ok((d, "#/$defs/"));
    }
    if let Some(d) = upstream.get("definitions").and_then(Value::as_object) {
        return Ok((d, "#/definitions/"));
    }
    Err(Error::new(
        ErrorKind::Unsupported,
        "the upstream schema has neither `$defs` nor `definitions`",
    ))
}

/// Every upstream type, converted, under its own name.
pub(super) fn definitions(recipe: &Recipe, upstream: &Value) -> Result<Map<String, Value>> {
    let (defs, prefix) = upstream_defs(upstream)?;
    let mut out = Map::new();
    for (name, schema) in defs {
        let at = format!("{}{name}", prefix.trim_start_matches('#'));
        let mut converted = convert(schema, name, prefix, &at, defs, recipe.docs)?;
        annotate_keeping(
            &mut converted,
            name,
            &format!("The type `{name}` of {}.", recipe.source_name),
        );
        out.insert(name.clone(), converted);
    }
    distinct_type_names(out.keys())?;
    Ok(out)
}

/// [`annotate`] with `title`, and `description` unless the schema keeps the
/// upstream file's own (`"docs": "upstream"`). Titles are always the
/// generated ones: they name the types of the bindings.
fn annotate_keeping(schema: &mut Value, title: &str, description: &str) {
    let own = schema
        .get("description")
        .and_then(Value::as_str)
        .filter(|d| !d.trim().is_empty())
        .map(str::to_owned);
    annotate(schema, title, own.as_deref().unwrap_or(description));
}

/// One schema, converted; `owner` names the inline types it holds, `at` is
/// its pointer in the upstream file (for errors).
fn convert(
    schema: &Value,
    owner: &str,
    prefix: &str,
    at: &str,
    defs: &Map<String, Value>,
    docs: Docs,
) -> Result<Value> {
    let o = match schema {
        Value::Bool(_) => return Ok(schema.clone()),
        Value::Object(o) => o,
        _ => {
            return Err(Error::new(ErrorKind::Unsupported, "a schema that is not an object").at(at))
        }
    };
    if o.contains_key("allOf") {
        let merged = super::all_of::merge(o, defs, prefix, at)?;
        return convert(&Value::Object(merged), owner, prefix, at, defs, docs);
    }
    let unsupported = |k: &str| {
        Error::new(
            ErrorKind::Unsupported,
            format!("the keyword `{k}` is not supported in an upstream schema"),
        )
        .at(at)
    };
    // Draft-07 ignores the siblings of `$ref`; 2020-12 applies them. Only
    // prose may stand beside one, so that the meaning cannot change.
    if prefix == "#/definitions/"
        && o.contains_key("$ref")
        && o.keys()
            .any(|k| k != "$ref" && !DROPPED.contains(&k.as_str()))
    {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "a draft-07 `$ref` with constraints beside it (draft-07 ignores them, 2020-12 would not)",
        )
        .at(at));
    }
    let mut out = Map::new();
    for (k, v) in o {
        let here = format!("{at}/{k}");
        match k.as_str() {
            // The upstream description, where the recipe keeps the upstream docs.
            "description" if docs == Docs::Upstream && v.is_string() => {
                out.insert(k.to_owned(), v.clone());
            }
            k if DROPPED.contains(&k) => {}
            k if KEPT.contains(&k) => {
                out.insert(k.to_owned(), v.clone());
            }
            "$ref" => {
                let target = v
                    .as_str()
                    .and_then(|r| r.strip_prefix(prefix))
                    .filter(|name| defs.contains_key(*name))
                    .ok_or_else(|| {
                        Error::new(
                            ErrorKind::Reference,
                            format!("`{v}` names no type of the upstream file"),
                        )
                        .at(&here)
                    })?;
                out.insert(k.to_owned(), json!(format!("#/$defs/{target}")));
            }
            "properties" => {
                let members = v.as_object().ok_or_else(|| unsupported(k))?;
                let mut props = Map::new();
                let required: Vec<&str> = o
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                for (name, member) in members {
                    let inline_name = format!("{owner}{}", crate::naming::pascal(name));
                    let mut converted = convert(
                        member,
                        &inline_name,
                        prefix,
                        &format!("{here}/{name}"),
                        defs,
                        docs,
                    )?;
                    if is_inline(&converted) && defs.contains_key(&inline_name) {
                        return Err(Error::new(
                            ErrorKind::Manifest,
                            format!("the member `{owner}.{name}` would name an inline type `{inline_name}`, a name the upstream file uses"),
                        ));
                    }
                    let title = words(if is_inline(&converted) {
                        &inline_name
                    } else {
                        name
                    });
                    let which = if required.contains(&name.as_str()) {
                        "required"
                    } else {
                        "optional"
                    };
                    annotate_keeping(
                        &mut converted,
                        &title,
                        &format!("The {which} member `{name}` of `{owner}`."),
                    );
                    props.insert(name.clone(), converted);
                }
                out.insert(k.to_owned(), Value::Object(props));
            }
            "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                return Err(unsupported(k));
            }
            "items" | "prefixItems" | "additionalItems" => {
                let converted = match v {
                    Value::Array(items) => {
                        let list = items
                            .iter()
                            .enumerate()
                            .map(|(i, s)| {
                                convert(s, owner, prefix, &format!("{here}/{i}"), defs, docs)
                            })
                            .collect::<Result<Vec<_>>>()?;
                        Value::Array(list)
                    }
                    one => convert(one, owner, prefix, &here, defs, docs)?,
                };
                // draft-07: `items` as an array is 2020-12's `prefixItems`,
                // and `additionalItems` then is 2020-12's `items`.
                let key = match (k.as_str(), v.is_array()) {
                    ("items", true) => "prefixItems",
                    ("additionalItems", _) => "items",
                    (other, _) => other,
                };
                // Beside an `items` that is not an array, draft-07 ignores
                // `additionalItems`: refused rather than given a meaning.
                if k == "additionalItems" && !o.get("items").is_some_and(Value::is_array) {
                    return Err(unsupported(k));
                }
                out.insert(key.to_owned(), converted);
            }
            "anyOf" | "oneOf" => {
                let items = v.as_array().ok_or_else(|| unsupported(k))?;
                let list = items
                    .iter()
                    .enumerate()
                    .map(|(i, s)| convert(s, owner, prefix, &format!("{here}/{i}"), defs, docs))
                    .collect::<Result<Vec<_>>>()?;
                out.insert(k.to_owned(), Value::Array(list));
            }
            k if ONE_SCHEMA.contains(&k) => {
                out.insert(k.to_owned(), convert(v, owner, prefix, &here, defs, docs)?);
            }
            other => return Err(unsupported(other)),
        }
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe() -> Recipe {
        serde_json::from_value(json!({
            "from": "json-schema", "schema": "../u.json", "source_name": "the U schema",
            "output": "u.schema.json", "id": "https://wirekit.dev/schemas/u/1/u.schema.json",
            "title": "U", "description": "U", "manifest_output": "protocol.json",
            "manifest": {}, "default_result": "EmptyResult", "docs": "generated",
            "unions": {"client_requests": "CR", "server_requests": "SR",
                       "client_notifications": "CN", "server_notifications": "SN"}
        }))
        .expect("a valid recipe")
    }

    #[test]
    fn upstream_docs_keep_each_description_and_generate_the_missing_ones() {
        let mut r = recipe();
        r.docs = Docs::Upstream;
        let upstream = json!({"definitions": {
            "A": {"description": "An A, as its authors say.", "type": "object",
                  "properties": {"b": {"type": "string", "description": "The b of it.", "title": "Bee"},
                                 "c": {"type": "integer"}}}
        }});
        let defs = definitions(&r, &upstream).expect("converts");
        assert_eq!(defs["A"]["description"], json!("An A, as its authors say."));
        assert_eq!(
            defs["A"]["properties"]["b"]["description"],
            json!("The b of it.")
        );
        // Titles name the bindings' types: always the generated ones.
        assert_eq!(defs["A"]["properties"]["b"]["title"], json!("B"));
        assert_eq!(
            defs["A"]["properties"]["c"]["description"],
            json!("The optional member `c` of `A`.")
        );
    }

    #[test]
    fn prose_goes_constraints_stay_refs_move() {
        let upstream = json!({"definitions": {
            "A": {"description": "upstream prose", "type": "object", "required": ["b"],
                  "properties": {"b": {"$ref": "#/definitions/B", "description": "more prose"},
                                 "c": {"type": "object", "properties": {"d": {"type": "integer", "minimum": 0}}},
                                 "t": {"type": "array", "items": [{"type": "string"}]}}},
            "B": {"type": "string", "enum": ["x", "y"], "title": "upstream title"}
        }});
        let defs = definitions(&recipe(), &upstream).expect("converts");
        let text = serde_json::to_string(&defs).expect("serializes");
        assert!(!text.contains("prose") && !text.contains("upstream title"));
        assert_eq!(defs["A"]["properties"]["b"]["$ref"], json!("#/$defs/B"));
        assert_eq!(
            defs["A"]["properties"]["b"]["description"],
            json!("The required member `b` of `A`.")
        );
        assert_eq!(defs["A"]["properties"]["c"]["title"], json!("A c"));
        assert_eq!(
            defs["A"]["properties"]["c"]["properties"]["d"]["minimum"],
            json!(0)
        );
        assert_eq!(
            defs["A"]["properties"]["t"]["prefixItems"][0]["type"],
            json!("string")
        );
        assert_eq!(defs["B"]["enum"], json!(["x", "y"]));
        assert_eq!(
            defs["B"]["description"],
            json!("The type `B` of the U schema.")
        );
    }

    #[test]
    fn unknown_keywords_and_dangling_refs_are_errors() {
        let unknown = json!({"definitions": {"A": {"dependencies": {"a": ["b"]}}}});
        assert!(definitions(&recipe(), &unknown).is_err());
        let dangling = json!({"definitions": {"A": {"$ref": "#/definitions/Z"}}});
        assert!(definitions(&recipe(), &dangling).is_err());
        let elsewhere = json!({"definitions": {"A": {"$ref": "other.json#/definitions/A"}}});
        assert!(definitions(&recipe(), &elsewhere).is_err());
        let sibling =
            json!({"definitions": {"A": {"$ref": "#/definitions/B", "type": "object"}, "B": {}}});
        assert!(definitions(&recipe(), &sibling).is_err());
        let ignored = json!({"definitions": {"A": {"type": "array", "additionalItems": false}}});
        assert!(definitions(&recipe(), &ignored).is_err());
    }
}
