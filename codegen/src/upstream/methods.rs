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
    let unions = [
        (&u.client_requests, true, true),
        (&u.server_requests, true, false),
        (&u.client_notifications, false, true),
        (&u.server_notifications, false, false),
    ];
    if unions.iter().all(|(union, _, _)| union.is_none()) {
        return Err(Error::new(
            ErrorKind::Manifest,
            "the recipe's `unions` names none of client_requests, server_requests, client_notifications, server_notifications",
        ));
    }
    for (union, request, client) in unions {
        let Some(union) = union else { continue };
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
    let (_, prefix) = upstream_defs(upstream)?;
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
        // A message without a `params` member takes none: the manifest
        // method has no params.
        if let Some(params) = ty.pointer("/properties/params") {
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
            let result = result_of(recipe, &m, overrides.get("result"), converted, prefix)?;
            description.push_str(&format!(", answered with `{}`", result.shown));
            out.insert("result".into(), reference(&result.pointer));
        }
        description.push('.');
        // With the upstream docs, the request's own description leads.
        let own = (recipe.docs == super::Docs::Upstream)
            .then(|| upstream_defs(upstream).ok())
            .flatten()
            .and_then(|(defs, _)| defs.get(&m.type_name))
            .and_then(|t| t.get("description"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|d| !d.is_empty());
        if let Some(own) = own {
            let own = if own.ends_with(['.', '!', '?']) {
                own.to_owned()
            } else {
                format!("{own}.")
            };
            description = format!("{own} {description}");
        }
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

/// A request's result: where in the derived `$defs` it is, and how the
/// method's description names it.
struct ResultRef {
    /// Below `#/$defs/` (`Task`, `GetTaskSuccessResponse/properties/result`).
    pointer: String,
    shown: String,
}

/// The result of request `m`, in the stated order: the recipe's `result`
/// (a type name or a JSON pointer into the upstream file), the type named
/// like the request, the `result` member of its response envelope, the
/// recipe's `default_result`; an error naming the method where none applies.
fn result_of(
    recipe: &Recipe,
    m: &Message,
    given: Option<&Value>,
    converted: &Map<String, Value>,
    prefix: &str,
) -> Result<ResultRef> {
    let named = |name: &str| ResultRef {
        pointer: name.to_owned(),
        shown: name.to_owned(),
    };
    if let Some(given) = given {
        let text = given.as_str().ok_or_else(|| {
            Error::new(
                ErrorKind::Manifest,
                format!("the recipe's `result` of `{}` must be a string", m.method),
            )
        })?;
        return match text.strip_prefix(prefix) {
            // A pointer into an upstream type (`#/definitions/X/properties/result`).
            Some(inside) => {
                let (type_name, rest) = inside.split_once('/').unwrap_or((inside, ""));
                let found = converted.get(type_name).and_then(|ty| {
                    if rest.is_empty() {
                        Some(ty)
                    } else {
                        ty.pointer(&format!("/{rest}"))
                    }
                });
                if found.is_none() {
                    return Err(Error::new(
                        ErrorKind::Reference,
                        format!(
                            "the result `{text}` of `{}` points nowhere in the upstream file",
                            m.method
                        ),
                    ));
                }
                Ok(ResultRef {
                    pointer: inside.to_owned(),
                    shown: inside.replace("/properties/", "."),
                })
            }
            None if converted.contains_key(text) => Ok(named(text)),
            None => Err(Error::new(
                ErrorKind::Reference,
                format!(
                    "the result `{text}` of `{}` is no upstream type (a type name, or a pointer starting with `{prefix}`)",
                    m.method
                ),
            )),
        };
    }
    let stem = m.type_name.strip_suffix("Request").unwrap_or(&m.type_name);
    let paired = format!("{stem}Result");
    if converted.contains_key(&paired) {
        return Ok(named(&paired));
    }
    for envelope in [format!("{stem}SuccessResponse"), format!("{stem}Response")] {
        if let Some(found) = envelope_result(converted, &envelope) {
            return Ok(found);
        }
    }
    if let Some(default) = &recipe.default_result {
        if !converted.contains_key(default) {
            return Err(Error::new(
                ErrorKind::Reference,
                format!("the default_result `{default}` is no upstream type"),
            ));
        }
        return Ok(named(default));
    }
    Err(Error::new(
        ErrorKind::Manifest,
        format!(
            "no result for the request `{}` (`{}`): no type `{stem}Result`, no response envelope `{stem}SuccessResponse` or `{stem}Response` with a `result` member, and the recipe gives neither `methods.{}.result` nor `default_result`",
            m.method, m.type_name, m.method
        ),
    ))
}

/// The `result` member of the response envelope `name`: the type itself
/// when it has `result` beside `jsonrpc` or `id`, or the one member of its
/// `anyOf`/`oneOf` that does (the success side of `Success | Error`).
fn envelope_result(converted: &Map<String, Value>, name: &str) -> Option<ResultRef> {
    let is_envelope = |ty: &Value| {
        let props = ty.get("properties").and_then(Value::as_object)?;
        (props.contains_key("result")
            && (props.contains_key("jsonrpc") || props.contains_key("id")))
        .then_some(())
    };
    let ty = converted.get(name)?;
    if is_envelope(ty).is_some() {
        return Some(ResultRef {
            pointer: format!("{name}/properties/result"),
            shown: format!("{name}.result"),
        });
    }
    let members = ty.get("anyOf").or_else(|| ty.get("oneOf"))?.as_array()?;
    let successes: Vec<&str> = members
        .iter()
        .filter_map(|member| member.get("$ref")?.as_str()?.strip_prefix("#/$defs/"))
        .filter(|member| converted.get(*member).and_then(is_envelope).is_some())
        .collect();
    match successes.as_slice() {
        [one] => Some(ResultRef {
            pointer: format!("{one}/properties/result"),
            shown: format!("{one}.result"),
        }),
        _ => None,
    }
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
