//! What every derivation of a protocol folder from an upstream model
//! shares (the LSP meta model, `metamodel/`; a published JSON Schema,
//! `upstream/`): how a derived method is finished (the recipe's defaults
//! by direction, then its per-method members, in one member order), which
//! schemas are types of their own in the bindings, the generated
//! titles and descriptions that stand in for upstream prose, and the two
//! documents a derivation writes.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorKind, Result};

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

/// Refuses two `$defs` keys alike in PascalCase: every generator names a
/// type by its key in that form (and an inline type by its owner and
/// member), so they would be one name twice in the bindings.
pub(crate) fn distinct_type_names<'a>(names: impl IntoIterator<Item = &'a String>) -> Result<()> {
    let mut pascal: BTreeMap<String, &str> = BTreeMap::new();
    for name in names {
        if let Some(other) = pascal.insert(crate::naming::pascal(name), name) {
            return Err(Error::new(
                ErrorKind::Manifest,
                format!("the types `{other}` and `{name}` would have one name in the bindings"),
            ));
        }
    }
    Ok(())
}

/// What a recipe says of the schema document it derives: its `$id`, root
/// title and description, and the manifest members the upstream model does
/// not give.
pub(crate) struct DocumentRecipe<'a> {
    pub(crate) id: &'a str,
    pub(crate) title: &'a str,
    pub(crate) description: &'a str,
    /// Written as is; its `methods` member (any placeholder) says where the
    /// derived methods go, and without one they come last.
    pub(crate) manifest: &'a Map<String, Value>,
}

/// The derived schema document (`defs` under a 2020-12 root) and manifest
/// (`recipe.manifest` with `methods` in its place), each opening with the
/// generated `comment`.
pub(crate) fn documents(
    recipe: &DocumentRecipe<'_>,
    comment: String,
    defs: Map<String, Value>,
    methods: Map<String, Value>,
) -> (Value, Value) {
    let mut root = Map::new();
    root.insert("$comment".into(), Value::String(comment.clone()));
    root.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    root.insert("$id".into(), Value::String(recipe.id.to_owned()));
    root.insert("title".into(), Value::String(recipe.title.to_owned()));
    root.insert(
        "description".into(),
        Value::String(recipe.description.to_owned()),
    );
    root.insert("$defs".into(), Value::Object(defs));
    let mut manifest = Map::new();
    manifest.insert("$comment".into(), Value::String(comment));
    let mut methods = Some(methods);
    for (k, v) in recipe.manifest {
        if k == "methods" {
            if let Some(m) = methods.take() {
                manifest.insert(k.clone(), Value::Object(m));
            }
        } else {
            manifest.insert(k.clone(), v.clone());
        }
    }
    if let Some(m) = methods {
        manifest.insert("methods".into(), Value::Object(m));
    }
    (Value::Object(root), Value::Object(manifest))
}

#[cfg(test)]
mod tests {
    use super::distinct_type_names;

    #[test]
    fn keys_alike_in_pascal_case_are_refused_by_name() {
        let distinct = ["TextEdit".to_owned(), "text_document".to_owned()];
        assert!(distinct_type_names(&distinct).is_ok());
        let alike = ["TextEdit".to_owned(), "text_edit".to_owned()];
        let err = distinct_type_names(&alike).expect_err("one name twice");
        assert!(
            err.to_string()
                .contains("the types `TextEdit` and `text_edit` would have one name"),
            "{err}"
        );
    }
}
