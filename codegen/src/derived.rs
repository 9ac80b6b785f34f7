//! What every derivation of a protocol folder from an upstream model
//! shares (the LSP meta model, `metamodel/`; a published JSON Schema,
//! `upstream/`): how a derived method is finished (the recipe's defaults
//! by direction, then its per-method members, in one member order), and
//! which schemas are types of their own in the bindings.

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
