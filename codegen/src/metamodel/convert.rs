//! The conversion of meta model types into JSON Schema (draft 2020-12).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{json, Map, Value};

use super::Recipe;
use crate::error::{Error, ErrorKind, Result};

/// The largest LSP `integer` and `uinteger` (the spec bounds both by 2^31-1).
const INT_MAX: i64 = 2_147_483_647;
const INT_MIN: i64 = -2_147_483_648;

/// The named entries of a meta model.
struct Model<'a> {
    structures: BTreeMap<&'a str, &'a Value>,
    aliases: BTreeMap<&'a str, &'a Value>,
    enums: BTreeMap<&'a str, &'a Value>,
    messages: BTreeMap<&'a str, &'a Value>,
}

impl<'a> Model<'a> {
    fn new(model: &'a Value) -> Self {
        let named = |key: &str, name: &str| -> BTreeMap<&'a str, &'a Value> {
            model
                .get(name)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|entry| Some((entry.get(key)?.as_str()?, entry)))
                .collect()
        };
        let mut messages = named("method", "requests");
        messages.extend(named("method", "notifications"));
        Model {
            structures: named("name", "structures"),
            aliases: named("name", "typeAliases"),
            enums: named("name", "enumerations"),
            messages,
        }
    }
}

/// Derives the schema document a recipe describes.
pub(super) fn derive(recipe: &Recipe, model: &Value) -> Result<Value> {
    let m = Model::new(model);
    let mut defs: BTreeMap<String, Value> = BTreeMap::new();
    let mut queue: VecDeque<String> = VecDeque::new();
    for method in &recipe.methods {
        let message = m.messages.get(method.method.as_str()).ok_or_else(|| {
            Error::new(
                ErrorKind::Reference,
                format!("the meta model has no method `{}`", method.method),
            )
        })?;
        if let (None, Some(name)) = (message.get("params"), &recipe.no_params) {
            let mut schema =
                json!({"type": ["object", "array"], "maxProperties": 0, "maxItems": 0});
            annotate(
                &mut schema,
                name,
                "The params of a method that takes none (the meta model gives it no params type): absent, or an empty object or array.",
            );
            defs.insert(name.clone(), schema);
        }
        for part in ["params", "result"] {
            if let Some(t) = message.get(part) {
                references(t, &mut queue);
            }
        }
        if let (Some(name), Some(result)) = (&method.result, message.get("result")) {
            let mut schema = convert(recipe, result)?;
            annotate(
                &mut schema,
                name,
                &format!("The result of `{}`.", method.method),
            );
            defs.insert(name.clone(), schema);
        }
    }
    queue.extend(recipe.extra.iter().cloned());
    let mut seen: BTreeSet<String> = BTreeSet::new();
    while let Some(name) = queue.pop_front() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let schema = named_type(recipe, &m, &name, &mut queue)?;
        defs.insert(name, schema);
    }
    let mut root = Map::new();
    root.insert(
        "$comment".into(),
        Value::String(format!(
            "{} Derived from meta/metaModel.json by meta/{}.",
            crate::header("").trim(),
            super::DERIVE_FILE
        )),
    );
    root.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    root.insert("$id".into(), Value::String(recipe.id.clone()));
    root.insert("title".into(), Value::String(recipe.title.clone()));
    root.insert(
        "description".into(),
        Value::String(recipe.description.clone()),
    );
    root.insert("$defs".into(), Value::Object(defs.into_iter().collect()));
    Ok(Value::Object(root))
}

/// The schema of the named type `name`, queueing what it refers to.
fn named_type(
    recipe: &Recipe,
    m: &Model<'_>,
    name: &str,
    queue: &mut VecDeque<String>,
) -> Result<Value> {
    let unknown = || {
        Error::new(
            ErrorKind::Reference,
            format!("the meta model has no type `{name}`"),
        )
    };
    if let Some(fixed) = recipe.opaque.get(name) {
        let mut schema = fixed.clone();
        let doc = m
            .aliases
            .get(name)
            .or_else(|| m.structures.get(name))
            .and_then(|e| e.get("documentation"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        annotate(&mut schema, name, &doc.unwrap_or_else(|| fallback(name)));
        return Ok(schema);
    }
    if let Some(structure) = m.structures.get(name) {
        let mut properties = Vec::new();
        flatten(m, structure, &mut properties, 0)?;
        if let Some(keep) = recipe.keep_members.get(name).and_then(Value::as_array) {
            let keep: Vec<&str> = keep.iter().filter_map(Value::as_str).collect();
            properties.retain(|p| {
                p.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| keep.contains(&n))
            });
        }
        for p in &properties {
            if let Some(t) = p.get("type") {
                references(t, queue);
            }
        }
        let mut schema = object(recipe, &properties)?;
        annotate(&mut schema, name, &documentation(structure, name));
        return Ok(schema);
    }
    if let Some(alias) = m.aliases.get(name) {
        let t = alias.get("type").ok_or_else(unknown)?;
        references(t, queue);
        let mut schema = convert(recipe, t)?;
        annotate(&mut schema, name, &documentation(alias, name));
        return Ok(schema);
    }
    if let Some(enumeration) = m.enums.get(name) {
        let mut schema = enumeration_schema(recipe, name, enumeration)?;
        annotate(&mut schema, name, &documentation(enumeration, name));
        return Ok(schema);
    }
    Err(unknown())
}

/// A structure's properties with those of its `extends` and `mixins`
/// (inherited first, a structure's own last; a later one of the same name
/// wins).
fn flatten(m: &Model<'_>, structure: &Value, out: &mut Vec<Value>, depth: usize) -> Result<()> {
    if depth > 16 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "structures extend each other in a cycle",
        ));
    }
    for key in ["extends", "mixins"] {
        for parent in structure
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = parent.get("name").and_then(Value::as_str).unwrap_or("");
            let s = m.structures.get(name).ok_or_else(|| {
                Error::new(
                    ErrorKind::Reference,
                    format!("`{key}` names `{name}`, which the meta model does not define"),
                )
            })?;
            flatten(m, s, out, depth + 1)?;
        }
    }
    for p in structure
        .get("properties")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = p.get("name");
        out.retain(|q| q.get("name") != name);
        out.push(p.clone());
    }
    Ok(())
}

/// An open object schema of `properties`.
fn object(recipe: &Recipe, properties: &[Value]) -> Result<Value> {
    let mut props = Map::new();
    let mut required = Vec::new();
    for p in properties {
        let name = p
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::new(ErrorKind::Manifest, "a property without a name"))?;
        let t = p.get("type").ok_or_else(|| {
            Error::new(
                ErrorKind::Manifest,
                format!("property `{name}` has no type"),
            )
        })?;
        let mut schema = convert(recipe, t)?;
        let optional = p.get("optional").and_then(Value::as_bool) == Some(true);
        if optional && recipe.optional_null {
            schema = nullable(schema);
        }
        annotate(&mut schema, &human(name), &documentation(p, name));
        props.insert(name.to_owned(), schema);
        if !optional {
            required.push(Value::String(name.to_owned()));
        }
    }
    let mut o = Map::new();
    o.insert("type".into(), json!("object"));
    if !required.is_empty() {
        o.insert("required".into(), Value::Array(required));
    }
    o.insert("properties".into(), Value::Object(props));
    Ok(Value::Object(o))
}

/// The schema of one meta model type expression.
fn convert(recipe: &Recipe, t: &Value) -> Result<Value> {
    let kind = t.get("kind").and_then(Value::as_str).unwrap_or("");
    let unsupported = || {
        Error::new(
            ErrorKind::Unsupported,
            format!("meta model type {t} is not supported"),
        )
    };
    Ok(match kind {
        "base" => {
            base(t.get("name").and_then(Value::as_str).unwrap_or("")).ok_or_else(unsupported)?
        }
        "reference" => {
            let name = t
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(unsupported)?;
            json!({"$ref": format!("#/$defs/{name}")})
        }
        "array" => {
            let element = t.get("element").ok_or_else(unsupported)?;
            json!({"type": "array", "items": convert(recipe, element)?})
        }
        "map" => {
            let value = t.get("value").ok_or_else(unsupported)?;
            json!({"type": "object", "additionalProperties": convert(recipe, value)?})
        }
        "or" => {
            let items = t
                .get("items")
                .and_then(Value::as_array)
                .ok_or_else(unsupported)?;
            let schemas = items
                .iter()
                .map(|i| convert(recipe, i))
                .collect::<Result<Vec<_>>>()?;
            json!({"anyOf": schemas})
        }
        "literal" => {
            let props = t
                .pointer("/value/properties")
                .and_then(Value::as_array)
                .ok_or_else(unsupported)?;
            object(recipe, props)?
        }
        "stringLiteral" => {
            json!({"type": "string", "const": t.get("value").ok_or_else(unsupported)?})
        }
        "integerLiteral" => {
            json!({"type": "integer", "const": t.get("value").ok_or_else(unsupported)?})
        }
        "booleanLiteral" => {
            json!({"type": "boolean", "const": t.get("value").ok_or_else(unsupported)?})
        }
        _ => return Err(unsupported()),
    })
}

/// `schema`, or `null`.
fn nullable(mut schema: Value) -> Value {
    let null_type = json!({"type": "null"});
    if let Some(items) = schema.get_mut("anyOf").and_then(Value::as_array_mut) {
        if !items.contains(&null_type) {
            items.push(null_type);
        }
        return schema;
    }
    let simple = schema.get("enum").is_none() && schema.get("const").is_none();
    if let (true, Some(Value::String(t))) = (simple, schema.get("type").cloned()) {
        if let Some(o) = schema.as_object_mut() {
            o.insert("type".into(), json!([t, "null"]));
        }
        return schema;
    }
    json!({"anyOf": [schema, null_type]})
}

/// A base type.
fn base(name: &str) -> Option<Value> {
    Some(match name {
        "string" | "DocumentUri" | "URI" | "RegExp" => json!({"type": "string"}),
        "integer" => json!({"type": "integer", "minimum": INT_MIN, "maximum": INT_MAX}),
        "uinteger" => json!({"type": "integer", "minimum": 0, "maximum": INT_MAX}),
        "decimal" => json!({"type": "number"}),
        "boolean" => json!({"type": "boolean"}),
        "null" => json!({"type": "null"}),
        _ => return None,
    })
}

/// An enumeration: its values, closed or open.
fn enumeration_schema(recipe: &Recipe, name: &str, e: &Value) -> Result<Value> {
    let base_name = e
        .pointer("/type/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut schema = base(base_name).ok_or_else(|| {
        Error::new(
            ErrorKind::Unsupported,
            format!("enumeration `{name}` has base type `{base_name}`"),
        )
    })?;
    let values: Vec<(String, Value)> = e
        .get("values")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| Some((v.get("name")?.as_str()?.to_owned(), v.get("value")?.clone())))
        .collect();
    let closed = recipe.closed_enums.iter().any(|c| c == name);
    let Some(object) = schema.as_object_mut() else {
        return Ok(schema);
    };
    if closed {
        object.remove("minimum");
        object.remove("maximum");
        object.insert(
            "enum".into(),
            Value::Array(values.iter().map(|(_, v)| v.clone()).collect()),
        );
    } else if base_name == "string" {
        object.insert(
            "x-wirekit-open-enum".into(),
            Value::Array(values.iter().map(|(_, v)| v.clone()).collect()),
        );
    }
    let listed: Vec<String> = values.iter().map(|(n, v)| format!("{v} ({n})")).collect();
    object.insert("x-lsp-values".into(), Value::String(listed.join(", ")));
    Ok(schema)
}

/// Every type name `t` refers to, queued.
fn references(t: &Value, queue: &mut VecDeque<String>) {
    match t {
        Value::Object(o) => {
            if o.get("kind").and_then(Value::as_str) == Some("reference") {
                if let Some(name) = o.get("name").and_then(Value::as_str) {
                    queue.push_back(name.to_owned());
                }
            }
            for v in o.values() {
                references(v, queue);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| references(i, queue)),
        _ => {}
    }
}

/// Adds `title` and `description` (a `$ref` keeps them beside it).
fn annotate(schema: &mut Value, title: &str, description: &str) {
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

fn documentation(entry: &Value, name: &str) -> String {
    entry
        .get("documentation")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| fallback(name))
}

fn fallback(name: &str) -> String {
    format!("`{name}`, as the LSP 3.17 meta model defines it (it documents none).")
}

/// `textDocument` → "Text document".
fn human(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if i == 0 {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn recipe(extra: Value) -> Recipe {
        let mut r = json!({
            "output": "x.schema.json", "id": "https://wirekit.dev/schemas/x/1/x.schema.json",
            "title": "x", "description": "x",
            "methods": [{"method": "get", "result": "GetResult"}],
            "keep_members": {"Caps": ["hoverProvider"]},
            "opaque": {"Any": {}},
            "closed_enums": ["Severity"]
        });
        if let (Some(o), Value::Object(e)) = (r.as_object_mut(), extra) {
            o.extend(e);
        }
        serde_json::from_value(r).expect("recipe")
    }

    fn model() -> Value {
        json!({
            "requests": [{"method": "get", "params": {"kind": "reference", "name": "Params"},
                "result": {"kind": "or", "items": [{"kind": "reference", "name": "Item"},
                    {"kind": "array", "element": {"kind": "reference", "name": "Item"}}, {"kind": "base", "name": "null"}]}}],
            "notifications": [],
            "structures": [
                {"name": "Base", "properties": [{"name": "uri", "type": {"kind": "base", "name": "DocumentUri"}}]},
                {"name": "Mixin", "properties": [{"name": "token", "type": {"kind": "base", "name": "integer"}, "optional": true}]},
                {"name": "Params", "extends": [{"kind": "reference", "name": "Base"}], "mixins": [{"kind": "reference", "name": "Mixin"}],
                    "properties": [{"name": "caps", "type": {"kind": "reference", "name": "Caps"}}, {"name": "data", "type": {"kind": "reference", "name": "Any"}, "optional": true}]},
                {"name": "Caps", "properties": [{"name": "hoverProvider", "type": {"kind": "base", "name": "boolean"}, "optional": true},
                    {"name": "colorProvider", "type": {"kind": "reference", "name": "Unexcerpted"}, "optional": true}]},
                {"name": "Item", "properties": [{"name": "severity", "type": {"kind": "reference", "name": "Severity"}},
                    {"name": "kind", "type": {"kind": "reference", "name": "Kind"}}]}
            ],
            "enumerations": [
                {"name": "Severity", "type": {"kind": "base", "name": "uinteger"}, "values": [{"name": "Error", "value": 1}, {"name": "Hint", "value": 4}]},
                {"name": "Kind", "type": {"kind": "base", "name": "string"}, "values": [{"name": "A", "value": "a"}], "supportsCustomValues": true}
            ],
            "typeAliases": [{"name": "Any", "type": {"kind": "or", "items": []}}]
        })
    }

    #[test]
    fn structures_flatten_and_trim_enums_close_or_stay_open() {
        let schema = derive(&recipe(json!({})), &model()).expect("derives");
        let defs = &schema["$defs"];
        let params = &defs["Params"];
        assert_eq!(params["required"], json!(["uri", "caps"]));
        assert_eq!(
            params["properties"]
                .as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>()),
            Some(vec![
                "uri".to_owned(),
                "token".to_owned(),
                "caps".to_owned(),
                "data".to_owned()
            ])
        );
        assert!(
            params.get("additionalProperties").is_none(),
            "objects stay open"
        );
        // keep_members drops colorProvider, so `Unexcerpted` is never needed.
        assert_eq!(
            defs["Caps"]["properties"].as_object().map(Map::len),
            Some(1)
        );
        assert_eq!(defs["Any"]["title"], "Any");
        assert_eq!(defs["Severity"]["enum"], json!([1, 4]));
        assert_eq!(defs["Kind"]["x-wirekit-open-enum"], json!(["a"]));
        assert_eq!(defs["GetResult"]["anyOf"].as_array().map(Vec::len), Some(3));
        assert_eq!(params["properties"]["token"]["minimum"], json!(INT_MIN));
        assert!(schema["$comment"]
            .as_str()
            .is_some_and(|c| c.contains("@generated by `wirekit generate`")));
    }

    #[test]
    fn a_type_the_model_lacks_is_an_error_naming_it() {
        let r = recipe(json!({"keep_members": {}}));
        let err = derive(&r, &model()).expect_err("Unexcerpted is missing");
        assert_eq!(err.kind(), ErrorKind::Reference);
        assert!(err.to_string().contains("Unexcerpted"), "{err}");
        let r = recipe(json!({"methods": [{"method": "nope"}]}));
        assert!(derive(&r, &model())
            .expect_err("no such method")
            .to_string()
            .contains("nope"));
    }
}
