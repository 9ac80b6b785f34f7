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
use crate::protocol::{Direction, MethodKind, Protocol};
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
                    Value::Bool(f.required && !m.params_optional),
                );
                cd.insert("schema".into(), schema);
                Value::Object(cd)
            })
            .collect(),
        _ => vec![
            json!({ "name": "params", "required": !m.params_optional, "schema": schema_ref(name) }),
        ],
    }
}

fn method(p: &Protocol, m: &crate::protocol::Method) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), Value::String(m.name.clone()));
    if let Some(d) = &m.description {
        out.insert("description".into(), Value::String(d.clone()));
    }
    out.insert("paramStructure".into(), Value::String("by-name".into()));
    out.insert("params".into(), Value::Array(params(p, m)));
    if m.kind == MethodKind::Request {
        let (name, schema) = match (&m.result, &m.result_stream) {
            (_, Some(s)) => ("item", schema_ref(s)),
            (Some(r), None) => ("result", schema_ref(r)),
            (None, None) => ("result", json!({ "type": "null" })),
        };
        out.insert("result".into(), json!({ "name": name, "schema": schema }));
        let errors: Vec<Value> = p
            .errors
            .iter()
            .map(|e| json!({ "$ref": format!("#/components/errors/{}", e.name) }))
            .collect();
        if !errors.is_empty() {
            out.insert("errors".into(), Value::Array(errors));
        }
    }
    let examples: Vec<Value> = m
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
            if m.kind == MethodKind::Notification {
                "notification"
            } else {
                "request"
            }
            .into(),
        ),
    );
    out.insert(
        "x-wirekit-direction".into(),
        Value::String(
            if m.direction == Direction::ClientToServer {
                "client-to-server"
            } else {
                "server-to-client"
            }
            .into(),
        ),
    );
    if let Some(t) = m.timeout_ms {
        out.insert("x-wirekit-timeout-ms".into(), json!(t));
    }
    if let Some(c) = &m.capability {
        out.insert("x-wirekit-capability".into(), Value::String(c.clone()));
    }
    if m.params_optional {
        out.insert("x-wirekit-params-optional".into(), Value::Bool(true));
    }
    if m.result_stream.is_some() {
        out.insert("x-wirekit-result-stream".into(), Value::Bool(true));
    }
    if let Some(l) = &m.lifecycle {
        out.insert("x-wirekit-lifecycle".into(), l.clone());
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
    if !p.errors.is_empty() {
        let mut errors = Map::new();
        for e in &p.errors {
            let mut obj = Map::new();
            obj.insert("code".into(), json!(e.code));
            obj.insert(
                "message".into(),
                Value::String(e.description.clone().unwrap_or_else(|| e.name.clone())),
            );
            errors.insert(e.name.clone(), Value::Object(obj));
        }
        components.insert("errors".into(), Value::Object(errors));
    }
    doc.insert("components".into(), Value::Object(components));
    for key in [
        "transport",
        "roles",
        "lifecycle",
        "capabilities",
        "rules",
        "version_negotiation",
    ] {
        if let Some(v) = p.manifest.get(key).filter(|v| !v.is_null()) {
            doc.insert(format!("x-wirekit-{}", key.replace('_', "-")), v.clone());
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
