//! The conversion of meta model types into JSON Schema (draft 2020-12).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{json, Map, Value};

use super::Recipe;
use crate::derived::{
    annotate, distinct_type_names, finish_method, is_inline, words, DocumentRecipe,
};
use crate::error::{Error, ErrorKind, Result};

/// The largest LSP `integer` and `uinteger` (the spec bounds both by 2^31-1).
const INT_MAX: i64 = 2_147_483_647;
const INT_MIN: i64 = -2_147_483_648;

/// The named entries of a meta model.
struct Model<'a> {
    structures: BTreeMap<&'a str, &'a Value>,
    aliases: BTreeMap<&'a str, &'a Value>,
    enums: BTreeMap<&'a str, &'a Value>,
}

impl<'a> Model<'a> {
    /// Whether the model names a type `name` (its `$defs` key, alike in
    /// PascalCase).
    fn uses(&self, name: &str) -> bool {
        self.structures
            .keys()
            .chain(self.aliases.keys())
            .chain(self.enums.keys())
            .any(|n| crate::naming::pascal(&def_name(n)) == crate::naming::pascal(name))
    }

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
        Model {
            structures: named("name", "structures"),
            aliases: named("name", "typeAliases"),
            enums: named("name", "enumerations"),
        }
    }
}

/// The `$defs` key of a model type: its name, except that a name the model
/// marks internal with a leading `_` (`_InitializeParams`, a base that
/// `InitializeParams` extends) is written with `Base` at the end instead
/// (`InitializeParamsBase`), since every binding drops the underscore.
fn def_name(name: &str) -> String {
    match name.strip_prefix('_') {
        Some(rest) => format!("{rest}Base"),
        None => name.to_owned(),
    }
}

/// `textDocument/prepareRename` → `TextDocumentPrepareRename`.
fn method_pascal(method: &str) -> String {
    crate::naming::pascal(method.trim_start_matches("$/"))
}

/// The `$defs` name of a method's part: the named type it is, or a new
/// type holding it, named by the recipe (`given`) or by the method in
/// PascalCase and `suffix`; a name the model or an earlier part uses is
/// an error, never a silent second meaning.
#[allow(clippy::too_many_arguments)]
fn hoist(
    recipe: &Recipe,
    m: &Model<'_>,
    taken: &BTreeSet<&str>,
    defs: &mut BTreeMap<String, Value>,
    method: &str,
    t: &Value,
    suffix: &str,
    given: Option<&str>,
) -> Result<String> {
    if given.is_none() && t.get("kind").and_then(Value::as_str) == Some("reference") {
        if let Some(name) = t.get("name").and_then(Value::as_str) {
            return Ok(def_name(name));
        }
    }
    let name = given
        .map(str::to_owned)
        .unwrap_or_else(|| format!("{}{suffix}", method_pascal(method)));
    if taken.contains(name.as_str()) || defs.contains_key(&name) {
        return Err(Error::new(
            ErrorKind::Manifest,
            format!("`{method}`: the name `{name}` is taken; give the method another `result`"),
        ));
    }
    let mut schema = convert(recipe, m, &name, t)?;
    let what = match suffix {
        "Result" => "result",
        "PartialResult" => "partial result",
        "Params" => "params",
        "ErrorData" => "error data",
        _ => "registration options",
    };
    annotate(&mut schema, &name, &format!("The {what} of `{method}`."));
    defs.insert(name.clone(), schema);
    Ok(name)
}

/// Derives the schema document and the manifest a recipe describes.
pub(super) fn derive(recipe: &Recipe, model: &Value) -> Result<(Value, Value)> {
    let m = Model::new(model);
    let taken: BTreeSet<&str> = m
        .structures
        .keys()
        .chain(m.aliases.keys())
        .chain(m.enums.keys())
        .copied()
        .collect();
    let mut defs: BTreeMap<String, Value> = BTreeMap::new();
    let mut methods = Map::new();
    let file = &recipe.output;
    let reference = |name: &str| json!({"$ref": format!("{file}#/$defs/{name}")});
    for part in ["requests", "notifications"] {
        let request = part == "requests";
        for message in model
            .get(part)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let method = message
                .get("method")
                .and_then(Value::as_str)
                .ok_or_else(|| Error::new(ErrorKind::Manifest, "a message without a method"))?;
            let overrides = recipe
                .methods
                .get(method)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let named = |defs: &mut BTreeMap<String, Value>,
                         t: &Value,
                         suffix: &str,
                         given: Option<&str>|
             -> Result<String> {
                hoist(recipe, &m, &taken, defs, method, t, suffix, given)
            };
            let direction = match message.get("messageDirection").and_then(Value::as_str) {
                Some("clientToServer") => "client-to-server",
                Some("serverToClient") => "server-to-client",
                Some("both") => "both",
                other => {
                    return Err(Error::new(
                        ErrorKind::Manifest,
                        format!("`{method}` has the direction {other:?}"),
                    ))
                }
            };
            let mut out = Map::new();
            out.insert(
                "kind".into(),
                json!(if request { "request" } else { "notification" }),
            );
            out.insert("direction".into(), json!(direction));
            match message.get("params") {
                Some(t) => {
                    let name = named(&mut defs, t, "Params", None)?;
                    out.insert("params".into(), reference(&name));
                }
                None => {
                    if !defs.contains_key(&recipe.no_params) {
                        let mut schema =
                            json!({"type": ["object", "array"], "maxProperties": 0, "maxItems": 0});
                        annotate(
                            &mut schema,
                            &recipe.no_params,
                            "The params of a method that takes none (the meta model gives it no params type): absent, or an empty object or array.",
                        );
                        defs.insert(recipe.no_params.clone(), schema);
                    }
                    out.insert("params".into(), reference(&recipe.no_params));
                    out.insert("params_optional".into(), json!(true));
                }
            }
            if let Some(t) = message.get("result") {
                let given = overrides.get("result").and_then(Value::as_str);
                let name = named(&mut defs, t, "Result", given)?;
                out.insert("result".into(), reference(&name));
            }
            for (key, member, suffix) in [
                ("partialResult", "partial_result", "PartialResult"),
                (
                    "registrationOptions",
                    "registration_options",
                    "RegistrationOptions",
                ),
                ("errorData", "error_data", "ErrorData"),
            ] {
                if let Some(t) = message.get(key) {
                    let name = named(&mut defs, t, suffix, None)?;
                    out.insert(member.into(), reference(&name));
                }
            }
            let who = match direction {
                "client-to-server" => "from the client to the server",
                "server-to-client" => "from the server to the client",
                _ => "in either direction",
            };
            let description = format!(
                "A {} {who}, as the LSP 3.17 meta model defines it.",
                if request { "request" } else { "notification" }
            );
            out.insert("description".into(), json!(description));
            let defaults = recipe
                .method_defaults
                .get(direction)
                .and_then(Value::as_object);
            methods.insert(
                method.to_owned(),
                finish_method(out, request, defaults, overrides),
            );
        }
    }
    if let Some(unknown) = recipe.methods.keys().find(|k| !methods.contains_key(*k)) {
        return Err(Error::new(
            ErrorKind::Reference,
            format!("the meta model has no method `{unknown}`"),
        ));
    }
    let mut queue: VecDeque<String> = taken.iter().map(|s| (*s).to_owned()).collect();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    while let Some(name) = queue.pop_front() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let schema = named_type(recipe, &m, &name, &mut queue)?;
        defs.insert(def_name(&name), schema);
    }
    distinct_type_names(defs.keys())?;
    let comment = format!(
        "{} Derived from the LSP meta model ({}) by meta/{}.",
        crate::header("").trim(),
        recipe.model,
        super::DERIVE_FILE
    );
    Ok(crate::derived::documents(
        &DocumentRecipe {
            id: &recipe.id,
            title: &recipe.title,
            description: &recipe.description,
            manifest: &recipe.manifest,
        },
        comment,
        defs.into_iter().collect(),
        methods,
    ))
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
        annotate(&mut schema, &def_name(name), &describe(m, name));
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
        let mut schema = object(recipe, m, &def_name(name), &properties)?;
        annotate(&mut schema, &def_name(name), &describe(m, name));
        return Ok(schema);
    }
    if let Some(alias) = m.aliases.get(name) {
        let t = alias.get("type").ok_or_else(unknown)?;
        references(t, queue);
        let mut schema = convert(recipe, m, &def_name(name), t)?;
        annotate(&mut schema, &def_name(name), &describe(m, name));
        return Ok(schema);
    }
    if let Some(enumeration) = m.enums.get(name) {
        let mut schema = enumeration_schema(recipe, name, enumeration)?;
        annotate(&mut schema, &def_name(name), &describe(m, name));
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
/// An open object schema of `properties`, members of the type `owner`.
///
/// Every member gets a title and a short description written here. A
/// member whose type is a type of its own in the bindings (an inline
/// object, a union, a tuple) is titled with that type's name, its owner and
/// the member (`CompletionClientCapabilities` + `completionItem`), which is
/// how typify, Python and TypeScript name it; a name the model uses is an
/// error.
fn object(recipe: &Recipe, m: &Model<'_>, owner: &str, properties: &[Value]) -> Result<Value> {
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
        let inline_name = format!("{owner}{}", crate::naming::pascal(name));
        let mut schema = convert(recipe, m, &inline_name, t)?;
        let optional = p.get("optional").and_then(Value::as_bool) == Some(true);
        if optional && recipe.optional_null {
            schema = nullable(schema);
        }
        let title = if is_inline(&schema) {
            if m.uses(&inline_name) {
                return Err(Error::new(
                    ErrorKind::Manifest,
                    format!("the member `{owner}.{name}` would name an inline type `{inline_name}`, a name the model uses"),
                ));
            }
            words(&inline_name)
        } else {
            words(name)
        };
        annotate(
            &mut schema,
            &title,
            &format!(
                "The {} member `{name}` of `{owner}`.",
                if optional { "optional" } else { "required" }
            ),
        );
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
/// `owner` names the inline types it holds.
/// The converted `items` of an `or` or a `tuple` type.
fn converted_items(
    recipe: &Recipe,
    m: &Model<'_>,
    owner: &str,
    t: &Value,
    unsupported: impl Fn() -> Error,
) -> Result<Vec<Value>> {
    t.get("items")
        .and_then(Value::as_array)
        .ok_or_else(unsupported)?
        .iter()
        .map(|i| convert(recipe, m, owner, i))
        .collect()
}

fn convert(recipe: &Recipe, m: &Model<'_>, owner: &str, t: &Value) -> Result<Value> {
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
            json!({"$ref": format!("#/$defs/{}", def_name(name))})
        }
        "array" => {
            let element = t.get("element").ok_or_else(unsupported)?;
            json!({"type": "array", "items": convert(recipe, m, owner, element)?})
        }
        "map" => {
            let value = t.get("value").ok_or_else(unsupported)?;
            json!({"type": "object", "additionalProperties": convert(recipe, m, owner, value)?})
        }
        "or" => json!({"anyOf": converted_items(recipe, m, owner, t, unsupported)?}),
        "literal" => {
            let props = t
                .pointer("/value/properties")
                .and_then(Value::as_array)
                .ok_or_else(unsupported)?;
            object(recipe, m, owner, props)?
        }
        "tuple" => {
            let schemas = converted_items(recipe, m, owner, t, unsupported)?;
            let n = schemas.len();
            json!({"type": "array", "prefixItems": schemas, "minItems": n, "maxItems": n, "items": false})
        }
        "and" => {
            // An intersection of structures is one object holding the
            // members of each (as `extends` is flattened).
            let items = t
                .get("items")
                .and_then(Value::as_array)
                .ok_or_else(unsupported)?;
            let mut properties = Vec::new();
            for item in items {
                let name = item.get("name").and_then(Value::as_str).unwrap_or("");
                let structure = (item.get("kind").and_then(Value::as_str) == Some("reference"))
                    .then(|| m.structures.get(name))
                    .flatten()
                    .ok_or_else(unsupported)?;
                let mut own = Vec::new();
                flatten(m, structure, &mut own, 0)?;
                for p in own {
                    let pname = p.get("name").cloned();
                    properties.retain(|q: &Value| q.get("name") != pname.as_ref());
                    properties.push(p);
                }
            }
            object(recipe, m, owner, &properties)?
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
    // Closed unless the model says the set admits custom values
    // (`supportsCustomValues`) or the recipe opens it (`open_enums`).
    let custom = e
        .get("supportsCustomValues")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let closed = recipe.closed_enums.iter().any(|c| c == name)
        || (!custom && !recipe.open_enums.iter().any(|o| o == name));
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

/// A short description of a named type, written here: the meta model's
/// own documentation stays out of the committed files.
fn describe(m: &Model<'_>, name: &str) -> String {
    let what = if m.structures.contains_key(name) {
        "structure"
    } else if m.enums.contains_key(name) {
        "enumeration"
    } else {
        "type alias"
    };
    format!("The {what} `{name}` of the LSP 3.17 meta model.")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn recipe(extra: Value) -> Recipe {
        let mut r = json!({
            "model": "../m.json",
            "output": "x.schema.json", "id": "https://wirekit.dev/schemas/x/1/x.schema.json",
            "title": "x", "description": "x",
            "manifest_output": "protocol.json",
            "manifest": {"protocol": "x", "version": "1", "schemas": ["x.schema.json"], "methods": "derived", "errors": []},
            "method_defaults": {"client-to-server": {"timeout_ms": 5, "lifecycle": {"allowed_in": ["ready"]}},
                "both": {"lifecycle": {"allowed_in": ["*"]}}},
            "methods": {"get": {"result": "GetResult", "description": "Gets."}},
            "no_params": "NoParams",
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
            "requests": [{"method": "get", "messageDirection": "clientToServer", "params": {"kind": "reference", "name": "Params"},
                "result": {"kind": "or", "items": [{"kind": "reference", "name": "Item"},
                    {"kind": "array", "element": {"kind": "reference", "name": "Item"}}, {"kind": "base", "name": "null"}]},
                "partialResult": {"kind": "array", "element": {"kind": "reference", "name": "Item"}},
                "registrationOptions": {"kind": "and", "items": [{"kind": "reference", "name": "Base"}, {"kind": "reference", "name": "Mixin"}]},
                "errorData": {"kind": "reference", "name": "Item"},
                "documentation": "UPSTREAM TEXT"}],
            "notifications": [{"method": "$/ping", "messageDirection": "both"}],
            "structures": [
                {"name": "Base", "properties": [{"name": "uri", "type": {"kind": "base", "name": "DocumentUri"}, "documentation": "UPSTREAM TEXT"}]},
                {"name": "Mixin", "properties": [{"name": "token", "type": {"kind": "base", "name": "integer"}, "optional": true}]},
                {"name": "_Hidden", "properties": [{"name": "pair", "type": {"kind": "tuple", "items": [{"kind": "base", "name": "uinteger"}, {"kind": "base", "name": "uinteger"}]}}]},
                {"name": "Params", "extends": [{"kind": "reference", "name": "Base"}], "mixins": [{"kind": "reference", "name": "Mixin"}],
                    "properties": [{"name": "caps", "type": {"kind": "reference", "name": "Caps"}}, {"name": "data", "type": {"kind": "reference", "name": "Any"}, "optional": true},
                        {"name": "hidden", "type": {"kind": "reference", "name": "_Hidden"}, "optional": true}]},
                {"name": "Caps", "properties": [{"name": "hoverProvider", "type": {"kind": "base", "name": "boolean"}, "optional": true},
                    {"name": "colorProvider", "type": {"kind": "reference", "name": "Unexcerpted"}, "optional": true}]},
                {"name": "Item", "documentation": "UPSTREAM TEXT", "properties": [{"name": "severity", "type": {"kind": "reference", "name": "Severity"}},
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
        let (schema, _) = derive(&recipe(json!({})), &model()).expect("derives");
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
                "data".to_owned(),
                "hidden".to_owned()
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

    /// Without `supportsCustomValues` an enumeration is closed even when
    /// the recipe does not list it; `open_enums` keeps one open.
    #[test]
    fn an_enumeration_without_custom_values_is_closed_unless_opened() {
        let unlisted = recipe(json!({"closed_enums": []}));
        let (schema, _) = derive(&unlisted, &model()).expect("derives");
        assert_eq!(schema["$defs"]["Severity"]["enum"], json!([1, 4]));
        assert!(schema["$defs"]["Severity"].get("minimum").is_none());
        let opened = recipe(json!({"closed_enums": [], "open_enums": ["Severity"]}));
        let (schema, _) = derive(&opened, &model()).expect("derives");
        assert!(schema["$defs"]["Severity"].get("enum").is_none());
        assert_eq!(schema["$defs"]["Severity"]["type"], "integer");
    }

    #[test]
    fn every_kind_and_name_rule() {
        let (schema, _) = derive(&recipe(json!({})), &model()).expect("derives");
        let defs = &schema["$defs"];
        // `_Hidden` is written `HiddenBase`, and referred to so.
        assert!(defs.get("_Hidden").is_none());
        assert_eq!(
            defs["Params"]["properties"]["hidden"]["$ref"],
            "#/$defs/HiddenBase"
        );
        let pair = &defs["HiddenBase"]["properties"]["pair"];
        assert_eq!(pair["prefixItems"].as_array().map(Vec::len), Some(2));
        assert_eq!(
            (&pair["minItems"], &pair["maxItems"], &pair["items"]),
            (&json!(2), &json!(2), &json!(false))
        );
        // `and` is one object with the members of each structure.
        let reg = &defs["GetRegistrationOptions"];
        assert_eq!(reg["required"], json!(["uri"]));
        assert!(reg["properties"].get("token").is_some());
        assert_eq!(defs["GetPartialResult"]["type"], "array");
        // No upstream documentation is copied.
        assert!(!schema.to_string().contains("UPSTREAM TEXT"));
    }

    #[test]
    fn the_manifest_holds_every_method() {
        let (_, manifest) = derive(&recipe(json!({})), &model()).expect("derives");
        assert!(manifest["$comment"]
            .as_str()
            .is_some_and(|c| c.contains("@generated")));
        let get = &manifest["methods"]["get"];
        assert_eq!(get["kind"], "request");
        assert_eq!(get["direction"], "client-to-server");
        assert_eq!(get["description"], "Gets.");
        assert_eq!(get["params"]["$ref"], "x.schema.json#/$defs/Params");
        assert_eq!(get["result"]["$ref"], "x.schema.json#/$defs/GetResult");
        assert_eq!(
            get["partial_result"]["$ref"],
            "x.schema.json#/$defs/GetPartialResult"
        );
        assert_eq!(
            get["registration_options"]["$ref"],
            "x.schema.json#/$defs/GetRegistrationOptions"
        );
        assert_eq!(get["error_data"]["$ref"], "x.schema.json#/$defs/Item");
        assert_eq!(get["timeout_ms"], 5);
        let ping = &manifest["methods"]["$/ping"];
        assert_eq!(ping["direction"], "both");
        assert_eq!(ping["params"]["$ref"], "x.schema.json#/$defs/NoParams");
        assert_eq!(ping["params_optional"], true);
        assert_eq!(ping["lifecycle"], json!({"allowed_in": ["*"]}));
        assert!(ping.get("timeout_ms").is_none());
        assert!(!manifest.to_string().contains("UPSTREAM TEXT"));
        assert_eq!(
            manifest
                .as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>()),
            Some(
                ["$comment", "protocol", "version", "schemas", "methods", "errors"]
                    .map(String::from)
                    .to_vec()
            )
        );
    }

    #[test]
    fn an_inline_type_may_not_take_a_model_name() {
        let mut m = model();
        if let Some(structures) = m["structures"].as_array_mut() {
            structures.push(json!({"name": "ItemWhere", "properties": []}));
            structures.push(json!({"name": "Where", "properties": [{"name": "where",
                "type": {"kind": "literal", "value": {"properties": [{"name": "x", "type": {"kind": "base", "name": "string"}}]}}}]}));
            structures.push(json!({"name": "Item2", "properties": [{"name": "where", "type": {"kind": "reference", "name": "ItemWhere"}}]}));
        }
        // `Where.where` is `WhereWhere`: fine; a reference member is no inline type.
        assert!(derive(&recipe(json!({})), &m).is_ok());
        if let Some(structures) = m["structures"].as_array_mut() {
            structures.push(json!({"name": "Item3", "properties": []}));
            structures.push(json!({"name": "Item", "properties": [{"name": "3",
                "type": {"kind": "tuple", "items": [{"kind": "base", "name": "string"}]}}]}));
        }
        let err = derive(&recipe(json!({})), &m).expect_err("Item.3 is Item3");
        assert!(err.to_string().contains("`Item.3`"), "{err}");
    }

    #[test]
    fn a_type_the_model_lacks_is_an_error_naming_it() {
        let r = recipe(json!({"keep_members": {}}));
        let err = derive(&r, &model()).expect_err("Unexcerpted is missing");
        assert_eq!(err.kind(), ErrorKind::Reference);
        assert!(err.to_string().contains("Unexcerpted"), "{err}");
        let r = recipe(json!({"methods": {"nope": {}}}));
        assert!(derive(&r, &model())
            .expect_err("no such method")
            .to_string()
            .contains("nope"));
        let r = recipe(json!({"methods": {"get": {"result": "Item"}}}));
        assert!(derive(&r, &model())
            .expect_err("a taken name")
            .to_string()
            .contains("`Item` is taken"));
    }
}
