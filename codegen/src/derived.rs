//! What every derivation of a protocol folder from an upstream model
//! shares (the LSP meta model, `metamodel/`; a published JSON Schema,
//! `upstream/`): how a derived method is finished (the recipe's defaults
//! by direction, then its per-method members, in one member order), which
//! schemas are types of their own in the bindings, and the generated
//! titles and descriptions that stand in for upstream prose.

use serde_json::{json, Map, Value};

/// The order of a derived method's members in `protocol.json`; members not
/// listed follow in the order they were set.
const METHOD_ORDER: &[&str] = &[
    "kind",
    "direction",
    "description",
    "params",
    "params_optional",
    "result",
    "partial_result",
    "registration_options",
    "error_data",
    "errors",
    "capability",
    "capability_of",
    "timeout_ms",
    "lifecycle",
];

/// A derived method's members `out`, with the recipe's `defaults` for its
/// direction (`timeout_ms` only for a request) and then its own
/// `overrides` (but `result`, which the derivation already used) laid on
/// top, in [`METHOD_ORDER`].
pub(crate) fn finish_method(
    mut out: Map<String, Value>,
    request: bool,
    defaults: Option<&Map<String, Value>>,
    overrides: Map<String, Value>,
) -> Value {
    for (k, v) in defaults.into_iter().flatten() {
        if request || k != "timeout_ms" {
            out.insert(k.clone(), v.clone());
        }
    }
    for (k, v) in overrides {
        if k != "result" {
            out.insert(k, v);
        }
    }
    let mut ordered = Map::new();
    for k in METHOD_ORDER {
        if let Some(v) = out.remove(*k) {
            ordered.insert((*k).to_owned(), v);
        }
    }
    ordered.extend(out);
    Value::Object(ordered)
}

/// Whether a member's schema is a type of its own in the bindings (an
/// object with members, a union of several, a tuple), not a named type or
/// a base type.
pub(crate) fn is_inline(schema: &Value) -> bool {
    if schema.get("properties").is_some() || schema.get("prefixItems").is_some() {
        return true;
    }
    let Some(items) = schema.get("anyOf").and_then(Value::as_array) else {
        return false;
    };
    let mut others = items
        .iter()
        .filter(|i| i.get("type") != Some(&json!("null")));
    match (others.next(), others.next()) {
        (Some(one), None) => is_inline(one),
        (None, _) => false,
        _ => true,
    }
}

/// A type or member name as words: `CallToolRequestParams` → "Call tool
/// request params"; `_meta` → "Meta".
pub(crate) fn words(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim_start_matches('_').chars() {
        if out.is_empty() {
            out.extend(c.to_uppercase());
        } else if c.is_uppercase() {
            out.push(' ');
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `schema` with `title` and `description` first (a `$ref` keeps them
/// beside it).
pub(crate) fn annotate(schema: &mut Value, title: &str, description: &str) {
    if let Some(o) = schema.as_object_mut() {
        let mut out = Map::new();
        out.insert("title".into(), Value::String(title.to_owned()));
        out.insert("description".into(), Value::String(description.to_owned()));
        for (k, v) in std::mem::take(o) {
            if k != "title" && k != "description" {
                out.insert(k, v);
            }
        }
        *o = out;
    }
}
