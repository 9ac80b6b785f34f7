//! The OpenRPC target: one OpenRPC 1.3 document a protocol
//! (`docs/openrpc/<module>.openrpc.json`), so the protocols work with
//! OpenRPC tooling.
//!
//! JSON has no comments, so the do-not-edit line is the document's first
//! member, the `x-generated` extension. What OpenRPC has no field for
//! (direction, kind, timeout, capability, lifecycle, transport) is kept in
//! `x-wirekit-*` extensions.

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorKind};
use crate::model::Kind;
use crate::protocol::{MethodKind, Protocol};
use crate::{header, GeneratedFile, Result};

/// Where the OpenRPC documents go.
pub const DIR: &str = "docs/openrpc";

/// The OpenRPC version written.
pub const OPENRPC_VERSION: &str = "1.3.2";

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn rewrite_refs(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get_mut("$ref") {
                if let Some(name) = r.strip_prefix("#/$defs/") {
                    *r = format!("#/components/schemas/{name}");
                }
            }
            for (k, child) in map.iter_mut() {
                if !matches!(k.as_str(), "enum" | "const" | "default" | "examples") {
                    rewrite_refs(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

/// A part of the core's manifest model as JSON, members the manifest left
/// out (`null`) left out again. The model only holds JSON-representable
/// data, so this cannot fail (`null` if it ever did).
fn to_json<T: serde::Serialize>(part: &T) -> Value {
    fn drop_nulls(value: &mut Value) {
        match value {
            Value::Object(members) => {
                members.retain(|_, v| !v.is_null());
                members.values_mut().for_each(drop_nulls);
            }
            Value::Array(items) => items.iter_mut().for_each(drop_nulls),
            _ => {}
        }
    }
    let mut value = serde_json::to_value(part).unwrap_or(Value::Null);
    drop_nulls(&mut value);
    value
}

/// By-name params: one content descriptor a member of the params object.
fn params(p: &Protocol, m: &crate::protocol::Method) -> Vec<Value> {
    let Some(name) = &m.params else {
        return Vec::new();
    };
    let def = p.model.get(name);
    let props = p
        .bundle
        .defs
        .get(name)
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    match (def.map(|d| &d.kind), props) {
        (Some(Kind::Object { fields, .. }), Some(props)) => fields
            .iter()
            .map(|f| {
                let mut schema = props.get(&f.name).cloned().unwrap_or(Value::Bool(true));
                rewrite_refs(&mut schema);
                let mut cd = Map::new();
                cd.insert("name".into(), Value::String(f.name.clone()));
                if let Some(d) = &f.description {
                    cd.insert("description".into(), Value::String(d.clone()));
                }
                cd.insert(
                    "required".into(),
                    Value::Bool(f.required && !m.spec.params_optional),
                );
                cd.insert("schema".into(), schema);
                Value::Object(cd)
            })
            .collect(),
        _ => vec![
            json!({ "name": "params", "required": !m.spec.params_optional, "schema": schema_ref(name) }),
        ],
    }
}

fn method(p: &Protocol, m: &crate::protocol::Method) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), Value::String(m.name.clone()));
    if let Some(d) = m.description() {
        out.insert("description".into(), Value::String(d.to_owned()));
    }
    out.insert("paramStructure".into(), Value::String("by-name".into()));
    out.insert("params".into(), Value::Array(params(p, m)));
    if m.spec.kind == MethodKind::Request {
        let (name, schema) = match (&m.result, &m.result_stream) {
            (_, Some(s)) => ("item", schema_ref(s)),
            (Some(r), None) => ("result", schema_ref(r)),
            (None, None) => ("result", json!({ "type": "null" })),
        };
        out.insert("result".into(), json!({ "name": name, "schema": schema }));
        let errors: Vec<Value> = p
            .errors()
            .iter()
            .map(|e| json!({ "$ref": format!("#/components/errors/{}", e.name) }))
            .collect();
        if !errors.is_empty() {
            out.insert("errors".into(), Value::Array(errors));
        }
    }
    let examples: Vec<Value> = m
        .spec
        .examples
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let title = e
                .get("title")
                .and_then(Value::as_str)
                .map_or_else(|| format!("example {}", i + 1), str::to_string);
            let params: Vec<Value> = e
                .get("params")
                .and_then(Value::as_object)
                .map(|o| {
                    o.iter()
                        .map(|(k, v)| json!({ "name": k, "value": v }))
                        .collect()
                })
                .unwrap_or_default();
            let mut ex = Map::new();
            ex.insert("name".into(), Value::String(title));
            ex.insert("params".into(), Value::Array(params));
            if let Some(r) = e.get("result") {
                ex.insert("result".into(), json!({ "name": "result", "value": r }));
            }
            Value::Object(ex)
        })
        .collect();
    if !examples.is_empty() {
        out.insert("examples".into(), Value::Array(examples));
    }
    out.insert(
        "x-wirekit-kind".into(),
        Value::String(
            if m.spec.kind == MethodKind::Notification {
                "notification"
            } else {
                "request"
            }
            .into(),
        ),
    );
    out.insert(
        "x-wirekit-direction".into(),
        Value::String(m.spec.direction.name().into()),
    );
    if let Some(t) = m.spec.timeout_ms {
        out.insert("x-wirekit-timeout-ms".into(), json!(t));
    }
    if let Some(c) = &m.spec.capability {
        out.insert("x-wirekit-capability".into(), Value::String(c.clone()));
    }
    if m.spec.params_optional {
        out.insert("x-wirekit-params-optional".into(), Value::Bool(true));
    }
    if m.result_stream.is_some() {
        out.insert("x-wirekit-result-stream".into(), Value::Bool(true));
    }
    if let Some(l) = &m.spec.lifecycle {
        out.insert("x-wirekit-lifecycle".into(), to_json(l));
    }
    Value::Object(out)
}

/// The OpenRPC document of protocol `p`.
pub fn document(p: &Protocol) -> Value {
    let mut doc = Map::new();
    doc.insert(
        "x-generated".into(),
        Value::String(header("").trim().to_string()),
    );
    doc.insert("openrpc".into(), Value::String(OPENRPC_VERSION.into()));
    let mut info = Map::new();
    info.insert("title".into(), Value::String(p.title.clone()));
    if let Some(d) = &p.description {
        info.insert("description".into(), Value::String(d.clone()));
    }
    info.insert("version".into(), Value::String(p.version.clone()));
    info.insert("x-wirekit-protocol".into(), Value::String(p.name.clone()));
    doc.insert("info".into(), Value::Object(info));
    doc.insert(
        "methods".into(),
        Value::Array(p.methods.iter().map(|m| method(p, m)).collect()),
    );
    let mut schemas = Map::new();
    for (name, schema) in &p.bundle.defs {
        let mut s = schema.clone();
        rewrite_refs(&mut s);
        schemas.insert(name.clone(), s);
    }
    let mut components = Map::new();
    components.insert("schemas".into(), Value::Object(schemas));
    if !p.errors().is_empty() {
        let mut errors = Map::new();
        for e in p.errors() {
            let mut obj = Map::new();
            obj.insert("code".into(), json!(e.code));
            obj.insert(
                "message".into(),
                Value::String(if e.description.is_empty() {
                    e.name.clone()
                } else {
                    e.description.clone()
                }),
            );
            errors.insert(e.name.clone(), Value::Object(obj));
        }
        components.insert("errors".into(), Value::Object(errors));
    }
    doc.insert("components".into(), Value::Object(components));
    let m = &p.manifest;
    let extensions = [
        ("transport", Some(to_json(&m.transport))),
        ("roles", Some(to_json(&m.roles))),
        ("lifecycle", m.lifecycle.as_ref().map(to_json)),
        ("capabilities", m.capabilities.as_ref().map(to_json)),
        (
            "rules",
            Some(to_json(&m.rules)).filter(|_| !m.rules.is_empty()),
        ),
        (
            "version_negotiation",
            m.version_negotiation.as_ref().map(to_json),
        ),
        ("declared_version", m.declared_version.as_ref().map(to_json)),
    ];
    for (key, value) in extensions {
        if let Some(v) = value {
            doc.insert(format!("x-wirekit-{}", key.replace('_', "-")), v);
        }
    }
    Value::Object(doc)
}

/// The document file for protocol `p`.
pub fn generate(p: &Protocol) -> Result<Vec<GeneratedFile>> {
    let text = serde_json::to_string_pretty(&document(p)).map_err(|e| {
        Error::new(
            ErrorKind::Format,
            format!("cannot write the OpenRPC document: {e}"),
        )
    })?;
    Ok(vec![GeneratedFile {
        path: PathBuf::from(format!("{DIR}/{}.openrpc.json", p.module)),
        contents: format!("{text}\n"),
    }])
}

/// OpenRPC has no index file.
pub fn index(_protocols: &[Protocol]) -> Result<GeneratedFile> {
    Err(Error::new(
        ErrorKind::Manifest,
        "the OpenRPC target has no index",
    ))
}
