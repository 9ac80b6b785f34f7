//! The manifest's methods, from the upstream request and notification
//! unions.

use serde_json::{json, Map, Value};

use super::convert::upstream_defs;
use super::Recipe;
use crate::derived::finish_method;
use crate::error::{Error, ErrorKind, Result};

/// One message of the unions: its type and who sends it.
struct Message {
    method: String,
    type_name: String,
    request: bool,
    client: bool,
    server: bool,
}

/// The type names a union lists (`anyOf` of `$ref`s).
fn union_members<'a>(
    defs: &'a Map<String, Value>,
    prefix: &str,
    union: &str,
) -> Result<Vec<&'a str>> {
    let members = defs
        .get(union)
        .and_then(|u| u.get("anyOf").or_else(|| u.get("oneOf")))
        .and_then(Value::as_array)
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Reference,
                format!("the upstream file has no union `{union}` (an anyOf of references)"),
            )
        })?;
    members
        .iter()
        .map(|m| {
            m.get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix(prefix))
                .and_then(|name| defs.get_key_value(name).map(|(k, _)| k.as_str()))
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::Reference,
                        format!("`{union}` lists {m}, not a reference to a type of the file"),
                    )
                })
        })
        .collect()
}

/// The messages of the four unions, requests first, each once.
fn messages(recipe: &Recipe, upstream: &Value) -> Result<Vec<Message>> {
    let (defs, prefix) = upstream_defs(upstream)?;
    let u = &recipe.unions;
    let mut out: Vec<Message> = Vec::new();
    for (union, request, client) in [
        (&u.client_requests, true, true),
        (&u.server_requests, true, false),
        (&u.client_notifications, false, true),
        (&u.server_notifications, false, false),
    ] {
        for type_name in union_members(defs, prefix, union)? {
            let method = defs
                .get(type_name)
                .and_then(|t| t.pointer("/properties/method/const"))
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::Unsupported,
                        format!("`{type_name}` (in `{union}`) has no constant `method`"),
                    )
                })?;
            if let Some(m) = out.iter_mut().find(|m| m.method == method) {
                if m.type_name != type_name || m.request != request {
                    return Err(Error::new(
                        ErrorKind::Manifest,
                        format!("`{method}` is both `{}` and `{type_name}`", m.type_name),
                    ));
                }
                m.client |= client;
                m.server |= !client;
                continue;
            }
            out.push(Message {
                method: method.to_owned(),
                type_name: type_name.to_owned(),
                request,
                client,
                server: !client,
            });
        }
    }
    Ok(out)
}

/// Method name → manifest method, for every message of the unions.
pub(super) fn derive(
    recipe: &Recipe,
    upstream: &Value,
    converted: &Map<String, Value>,
) -> Result<Map<String, Value>> {
    let file = &recipe.output;
    let reference = |pointer: &str| json!({"$ref": format!("{file}#/$defs/{pointer}")});
    let mut methods = Map::new();
    for m in messages(recipe, upstream)? {
        let overrides = recipe
            .methods
            .get(&m.method)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let direction = match (m.client, m.server) {
            (true, true) => "both",
            (true, false) => "client-to-server",
            _ => "server-to-client",
        };
        let ty = &converted[&m.type_name];
        let mut out = Map::new();
        out.insert(
            "kind".into(),
            json!(if m.request { "request" } else { "notification" }),
        );
        out.insert("direction".into(), json!(direction));
        let params = ty.pointer("/properties/params").ok_or_else(|| {
            Error::new(
                ErrorKind::Unsupported,
                format!("`{}` has no `params` member", m.type_name),
            )
        })?;
        // A params type of its own is named; one written inline is
        // referred to where it is.
        let named = params
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"));
        out.insert(
            "params".into(),
            match named {
                Some(name) => reference(name),
                None => reference(&format!("{}/properties/params", m.type_name)),
            },
        );
        let required = ty
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.contains(&json!("params")));
        if !required {
            out.insert("params_optional".into(), json!(true));
        }
        let mut description = format!(
            "A {} {}: `{}` of {}",
            if m.request { "request" } else { "notification" },
            match direction {
                "client-to-server" => "from the client to the server",
                "server-to-client" => "from the server to the client",
                _ => "either peer sends",
            },
            m.type_name,
            recipe.source_name
        );
        if m.request {
            let given = overrides.get("result").and_then(Value::as_str);
            let paired = m
                .type_name
                .strip_suffix("Request")
                .map(|stem| format!("{stem}Result"))
                .filter(|r| converted.contains_key(r));
            let result = given
                .map(str::to_owned)
                .or(paired)
                .unwrap_or_else(|| recipe.default_result.clone());
            if !converted.contains_key(&result) {
                return Err(Error::new(
                    ErrorKind::Reference,
                    format!(
                        "the result `{result}` of `{}` is no upstream type",
                        m.method
                    ),
                ));
            }
            description.push_str(&format!(", answered with `{result}`"));
            out.insert("result".into(), reference(&result));
        }
        description.push('.');
        out.insert("description".into(), json!(description));
        let defaults = recipe
            .method_defaults
            .get(direction)
            .and_then(Value::as_object);
        methods.insert(m.method, finish_method(out, m.request, defaults, overrides));
    }
    if let Some(unknown) = recipe.methods.keys().find(|k| !methods.contains_key(*k)) {
        return Err(Error::new(
            ErrorKind::Reference,
            format!("the upstream unions have no method `{unknown}`"),
        ));
    }
    Ok(methods)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upstream() -> Value {
        json!({"definitions": {
            "CR": {"anyOf": [{"$ref": "#/definitions/InitRequest"}, {"$ref": "#/definitions/PingRequest"}]},
            "SR": {"anyOf": [{"$ref": "#/definitions/PingRequest"}]},
            "CN": {"anyOf": [{"$ref": "#/definitions/DoneNotification"}]},
            "SN": {"anyOf": []},
            "InitRequest": {"type": "object", "required": ["method", "params"], "properties": {
                "method": {"const": "init", "type": "string"},
                "params": {"type": "object", "properties": {"v": {"type": "string"}}}}},
            "InitResult": {"type": "object"},
            "PingRequest": {"type": "object", "required": ["method"], "properties": {
                "method": {"const": "ping", "type": "string"},
                "params": {"$ref": "#/definitions/Params"}}},
            "DoneNotification": {"type": "object", "properties": {
                "method": {"const": "done", "type": "string"}, "params": {"type": "object"}}},
            "Params": {"type": "object"},
            "EmptyResult": {"type": "object"}
        }})
    }

    fn recipe(methods: Value) -> Recipe {
        serde_json::from_value(json!({
            "from": "json-schema", "schema": "../u.json", "source_name": "the U schema",
            "output": "u.schema.json", "id": "https://wirekit.dev/schemas/u/1/u.schema.json",
            "title": "U", "description": "U", "manifest_output": "protocol.json",
            "manifest": {}, "default_result": "EmptyResult",
            "unions": {"client_requests": "CR", "server_requests": "SR",
                       "client_notifications": "CN", "server_notifications": "SN"},
            "method_defaults": {"both": {"timeout_ms": 5, "lifecycle": {"allowed_in": ["*"]}}},
            "methods": methods
        }))
        .expect("a valid recipe")
    }

    fn derived(methods: Value) -> Result<Map<String, Value>> {
        let r = recipe(methods);
        let up = upstream();
        let defs = super::super::convert::definitions(&r, &up)?;
        derive(&r, &up, &defs)
    }

    #[test]
    fn directions_params_and_results_follow_the_unions() {
        let m = derived(json!({})).expect("derives");
        let names: Vec<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(names, ["init", "ping", "done"]);
        assert_eq!(m["init"]["direction"], json!("client-to-server"));
        assert_eq!(
            m["init"]["params"]["$ref"],
            json!("u.schema.json#/$defs/InitRequest/properties/params")
        );
        assert!(m["init"].get("params_optional").is_none());
        assert_eq!(
            m["init"]["result"]["$ref"],
            json!("u.schema.json#/$defs/InitResult")
        );
        assert_eq!(m["ping"]["direction"], json!("both"));
        assert_eq!(
            m["ping"]["params"]["$ref"],
            json!("u.schema.json#/$defs/Params")
        );
        assert_eq!(m["ping"]["params_optional"], json!(true));
        assert_eq!(
            m["ping"]["result"]["$ref"],
            json!("u.schema.json#/$defs/EmptyResult")
        );
        assert_eq!(m["ping"]["timeout_ms"], json!(5));
        assert_eq!(m["done"]["kind"], json!("notification"));
        assert!(m["done"].get("result").is_none());
    }

    #[test]
    fn recipe_members_go_on_top_and_must_name_methods() {
        let m = derived(json!({"init": {"result": "Params", "description": "Mine."}}))
            .expect("derives");
        assert_eq!(
            m["init"]["result"]["$ref"],
            json!("u.schema.json#/$defs/Params")
        );
        assert_eq!(m["init"]["description"], json!("Mine."));
        assert!(derived(json!({"nope": {}})).is_err());
        assert!(derived(json!({"init": {"result": "Missing"}})).is_err());
    }
}
