//! The TypeScript descriptor of a protocol: what the runtime's client needs
//! at run time (transport, methods with their schema types, lifecycle,
//! capabilities, errors), written from the core's manifest model
//! ([`wirekit::protocol::Manifest`]) so no TypeScript code restates a
//! manifest by hand; and the bundled schema from which the standalone
//! validators the descriptor imports are generated
//! (`bindings/typescript/scripts/generate-validators.mjs`, ajv).

use std::path::PathBuf;

use askama::Template;
use serde_json::{json, Map, Value};
use wirekit::protocol::{CapabilityOf, Manifest, MethodKind, MethodSpec};

use super::DIR;
use crate::error::{Error, ErrorKind};
use crate::naming::{self, ts_key};
use crate::protocol::Protocol;
use crate::text::{jsdoc, json_string};
use crate::{header, GeneratedFile, Result};

/// Where the bundled schemas the validator generator reads go.
pub const SCHEMA_DIR: &str = "bindings/typescript/validators";

#[derive(Template)]
#[template(path = "typescript/descriptor.ts.jinja", escape = "none")]
struct DescriptorTemplate {
    header: String,
    doc: String,
    module: String,
    map_name: String,
    body: String,
}

/// The exported name of a protocol's descriptor (`gzkitAuthoringGuide`).
/// Words of the module name joined in camel case, with `_` kept between
/// two digits (`gaze_analyzer_v1_0_0` is `gazeAnalyzerV1_0_0`). A
/// one-word module (`lsp`) would clash with its namespace export, so its
/// descriptor is `lspProtocol`.
pub fn export_name(p: &Protocol) -> String {
    let mut out = String::new();
    for (index, word) in p.module.split('_').filter(|w| !w.is_empty()).enumerate() {
        let digit_join = out.ends_with(|c: char| c.is_ascii_digit())
            && word.starts_with(|c: char| c.is_ascii_digit());
        if digit_join {
            out.push('_');
        }
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            if index == 0 {
                out.extend(first.to_lowercase());
            } else {
                out.extend(first.to_uppercase());
            }
            out.extend(chars);
        }
    }
    if out == p.module {
        out.push_str("Protocol");
    }
    out
}

/// The core's typed view of `p`'s manifest; `None` for a bare schema set
/// (no methods), which gets types only.
pub fn manifest(p: &Protocol) -> Result<Option<&Manifest>> {
    Ok((!p.is_schema_set()).then_some(&p.manifest))
}

fn strings(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| json_string(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// `{ key: value, ... }` on one line, members in the given order.
fn object(members: &[(String, String)]) -> String {
    let inner: Vec<String> = members.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{ {} }}", inner.join(", "))
}

fn method_info(p: &Protocol, name: &str, spec: &MethodSpec) -> String {
    let types = p.methods.iter().find(|m| m.name == name);
    let mut m: Vec<(String, String)> = vec![
        (
            "kind".into(),
            json_string(match spec.kind {
                MethodKind::Request => "request",
                MethodKind::Notification => "notification",
            }),
        ),
        ("direction".into(), json_string(spec.direction.name())),
    ];
    if let Some(ms) = spec.timeout_ms {
        m.push(("timeoutMs".into(), ms.to_string()));
    }
    // Only the server's declaration gates what a client sends; one gated
    // on the client's own declaration (`client`, or `sender` for what the
    // client sends) is the client's to keep.
    if let Some(c) = spec.capability.as_ref().filter(|_| {
        spec.capability_of.in_server_declaration() && spec.capability_of != CapabilityOf::Sender
    }) {
        m.push(("capability".into(), json_string(c)));
    }
    if spec.params_optional {
        m.push(("paramsOptional".into(), "true".into()));
    }
    if spec.result_stream.is_some() {
        m.push(("stream".into(), "true".into()));
    }
    if let Some(t) = types {
        for (key, ty) in [
            ("params", &t.params),
            ("result", &t.result),
            ("item", &t.result_stream),
        ] {
            if let Some(ty) = ty {
                m.push((key.into(), json_string(ty)));
            }
        }
    }
    if let Some(l) = &spec.lifecycle {
        let mut life: Vec<(String, String)> = vec![("allowedIn".into(), strings(&l.allowed_in))];
        if let Some(next) = &l.on_success {
            life.push(("onSuccess".into(), json_string(next)));
        }
        if l.ends_session {
            life.push(("endsSession".into(), "true".into()));
        }
        if let Some(completion) = &l.completion {
            life.push(("completion".into(), json_string(completion)));
        }
        if let Some(next) = &l.followed_by {
            life.push(("followedBy".into(), json_string(next)));
        }
        m.push(("lifecycle".into(), object(&life)));
    }
    object(&m)
}

/// What a server needs beyond a client (the runtime's `ServingInfo`), from
/// the manifest as written, as `protocolFromManifest` reads it: the shapes
/// of the errors a server produces itself, the lifecycle's violation
/// answers, the version negotiation, `unreadable_id`. `None` when the
/// manifest has none of them.
fn serving(m: &Value) -> Option<String> {
    let mut out: Vec<(String, String)> = Vec::new();
    if let Some(errors) = m.get("server_errors").and_then(Value::as_object) {
        let cases: Vec<(String, String)> = errors
            .iter()
            .map(|(case, raw)| (ts_key(case), shape(raw)))
            .collect();
        out.push(("serverErrors".into(), object(&cases)));
    }
    if let Some(v) = m.pointer("/lifecycle/violation").and_then(violation) {
        out.push(("violation".into(), v));
    }
    let own: Vec<(String, String)> = m
        .get("methods")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(name, spec)| {
            spec.pointer("/lifecycle/violation")
                .and_then(violation)
                .map(|v| (ts_key(name), v))
        })
        .collect();
    if !own.is_empty() {
        out.push(("methodViolations".into(), object(&own)));
    }
    if let Some(n) = m.get("version_negotiation") {
        let text = |key: &str| json_string(n.get(key).and_then(Value::as_str).unwrap_or(""));
        out.push((
            "versionNegotiation".into(),
            object(&[
                ("method".into(), text("method")),
                ("clientPointer".into(), text("client_pointer")),
                ("serverVersion".into(), text("server_version")),
                ("error".into(), text("error")),
                ("message".into(), text("message")),
            ]),
        ));
    }
    if let Some(unreadable @ ("silent" | "null")) = m
        .pointer("/transport/unreadable_id")
        .and_then(Value::as_str)
    {
        out.push(("unreadableId".into(), json_string(unreadable)));
    }
    (!out.is_empty()).then(|| object(&out))
}

/// One `server_errors` case: its code, its `data` template, its `by_kind`.
fn shape(raw: &Value) -> String {
    let mut members: Vec<(String, String)> = Vec::new();
    if let Some(code) = raw.get("code").filter(|c| c.is_number()) {
        members.push(("code".into(), code.to_string()));
    }
    if let Some(data) = raw.get("data") {
        members.push(("data".into(), crate::text::json_compact(data)));
    }
    if let Some(kinds) = raw.get("by_kind").and_then(Value::as_object) {
        let inner: Vec<(String, String)> = kinds
            .iter()
            .map(|(kind, shape_of)| (ts_key(kind), shape(shape_of)))
            .collect();
        members.push(("byKind".into(), object(&inner)));
    }
    if members.is_empty() {
        "{}".into()
    } else {
        object(&members)
    }
}

/// A lifecycle violation answer: code, message, and `data` unless null.
fn violation(raw: &Value) -> Option<String> {
    let code = raw.get("code")?;
    let mut members = vec![
        ("code".into(), code.to_string()),
        (
            "message".into(),
            json_string(raw.get("message").and_then(Value::as_str).unwrap_or("")),
        ),
    ];
    if let Some(data) = raw.get("data").filter(|d| !d.is_null()) {
        members.push(("data".into(), crate::text::json_compact(data)));
    }
    Some(object(&members))
}

/// The descriptor's object literal (members at two spaces).
fn body(p: &Protocol, manifest: &Manifest) -> Result<String> {
    let t = &manifest.transport;
    let mut lines: Vec<String> = vec![
        format!("name: {},", json_string(&manifest.protocol)),
        format!("version: {},", json_string(&manifest.version)),
        format!("framing: {},", json_string(&t.framing.to_string())),
        format!("dialect: {},", json_string(&t.envelope.to_string())),
        format!("strict: {},", t.strict),
        format!("canonical: {},", t.canonical),
        format!("maxFrameBytes: {},", t.frame_bound()),
    ];
    if t.one_request_at_a_time {
        lines.push("oneRequestAtATime: true,".to_owned());
    }
    if let Some(c) = &manifest.capabilities {
        let style = serde_json::to_value(c.style)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        lines.push(format!(
            "capabilities: {},",
            object(&[
                ("method".into(), json_string(&c.method)),
                ("pointer".into(), json_string(&c.pointer)),
                ("style".into(), json_string(&style)),
            ])
        ));
    }
    lines.push("methods: {".into());
    for (name, spec) in &manifest.methods {
        lines.push(format!(
            "  {}: {},",
            ts_key(name),
            method_info(p, name, spec)
        ));
    }
    lines.push("},".into());
    // The request that ends the session cleanly (the core decides).
    if let Some(name) = manifest.shutdown_request() {
        lines.push(format!("shutdown: {},", json_string(name)));
    }
    // The exit sequence of the protocol's host (grace, then SIGTERM and a second grace).
    if let Some(h) = &manifest.host {
        let mut exit = Vec::new();
        if let Some(ms) = h.exit_grace_ms {
            exit.push(("graceMs".to_owned(), ms.to_string()));
        }
        if let Some(ms) = h.terminate_grace_ms {
            exit.push(("terminateGraceMs".to_owned(), ms.to_string()));
        }
        if !exit.is_empty() {
            lines.push(format!("exit: {},", object(&exit)));
        }
    }
    if let Some(l) = &manifest.lifecycle {
        lines.push(format!(
            "lifecycle: {},",
            object(&[
                ("initial".into(), json_string(&l.initial)),
                ("terminal".into(), strings(&l.terminal)),
            ])
        ));
    }
    // How a peer cancels a request it sent, and whether it is still answered.
    if let Some(c) = &manifest.cancellation {
        let answer = serde_json::to_value(c.answer)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        lines.push(format!(
            "cancellation: {},",
            object(&[
                ("method".into(), json_string(&c.method)),
                ("idPointer".into(), json_string(&c.id_pointer)),
                ("answer".into(), json_string(&answer)),
            ])
        ));
    }
    lines.push("errors: [".into());
    for e in &manifest.errors {
        let mut members = vec![
            ("code".into(), e.code.to_string()),
            ("name".into(), json_string(&e.name)),
        ];
        if e.ends_session {
            members.push(("endsSession".into(), "true".into()));
        }
        lines.push(format!("  {},", object(&members)));
    }
    lines.push("],".into());
    if let Some(r) = &manifest.error_data {
        let name = p
            .bundle
            .entry(&r.reference)
            .map_err(|e| e.in_file(&p.manifest_path).at("/error_data/$ref"))?;
        lines.push(format!("errorData: {},", json_string(&name)));
    }
    if !manifest.rules.is_empty() {
        lines.push("rules: [".into());
        for rule in &manifest.rules {
            let json = serde_json::to_value(rule)
                .map_err(|e| Error::new(ErrorKind::Json, e.to_string()))?;
            lines.push(format!("  {json},"));
        }
        lines.push("],".into());
    }
    if let Some(r) = &manifest.error_object {
        let name = p
            .bundle
            .entry(&r.reference)
            .map_err(|e| e.in_file(&p.manifest_path).at("/error_object/$ref"))?;
        lines.push(format!("errorObject: {},", json_string(&name)));
    }
    if let Some(serving) = serving(&p.manifest_json) {
        lines.push(format!("serving: {serving},"));
    }
    lines.push("validators,".into());
    Ok(lines
        .iter()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n"))
}

/// The schema types the descriptor names, in first-use order: every
/// validator the runtime needs.
fn entry_types(p: &Protocol, manifest: &Manifest) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for m in &p.methods {
        for ty in [&m.params, &m.result, &m.result_stream]
            .into_iter()
            .flatten()
        {
            if !out.contains(ty) {
                out.push(ty.clone());
            }
        }
    }
    for (r, at) in [
        (&manifest.error_data, "/error_data/$ref"),
        (&manifest.error_object, "/error_object/$ref"),
    ] {
        let Some(r) = r else { continue };
        let name = p
            .bundle
            .entry(&r.reference)
            .map_err(|e| e.in_file(&p.manifest_path).at(at))?;
        if !out.contains(&name) {
            out.push(name);
        }
    }
    Ok(out)
}

/// `src/generated/descriptors/<module>.ts` and `validators/<module>.schema.json` for
/// protocol `p`; nothing for a schema set without a transport.
pub fn generate(p: &Protocol) -> Result<Vec<GeneratedFile>> {
    let Some(manifest) = manifest(p)? else {
        return Ok(Vec::new());
    };
    let doc = format!(
        "The `{}` protocol, version {}, as the TypeScript runtime uses it: transport, methods with their schema types, lifecycle, capabilities and errors, from `schemas/{}/{}/protocol.json`, with its standalone validators.",
        manifest.protocol, manifest.version, manifest.protocol, manifest.version
    );
    let t = DescriptorTemplate {
        header: header("//"),
        doc: jsdoc(Some(&doc), &[], ""),
        module: p.module.clone(),
        map_name: naming::pascal(&p.name),
        body: body(p, manifest)?,
    };
    let mut schema = Map::new();
    schema.insert("$comment".into(), Value::String(header("").trim().into()));
    schema.insert(
        "$schema".into(),
        Value::String(wirekit::protocol::bundle::DRAFT_2020_12.into()),
    );
    schema.insert(
        "$id".into(),
        Value::String(format!(
            "urn:wirekit:{}@{}",
            manifest.protocol, manifest.version
        )),
    );
    let entries = entry_types(p, manifest)?;
    // The standalone validators are compiled from the bundle: every type they
    // check must be one the bundle renders exactly.
    if let Some((name, why)) = entries
        .iter()
        .find(|name| !p.bundle.is_exact(name))
        .and_then(|name| Some((name, p.bundle.inexact.iter().next()?.1)))
    {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!("the TypeScript validators are compiled from the bundle, which cannot render type `{name}` exactly: {why}; load this protocol's folder at run time with `loadProtocol` instead"),
        )
        .in_file(&p.manifest_path));
    }
    schema.insert("x-entries".into(), json!(entries));
    schema.insert("$defs".into(), Value::Object(p.bundle.defs.clone()));
    let mut schema_text = serde_json::to_string_pretty(&Value::Object(schema))
        .map_err(|e| Error::new(ErrorKind::Json, e.to_string()))?;
    schema_text.push('\n');
    Ok(vec![
        GeneratedFile {
            path: PathBuf::from(format!("{DIR}/descriptors/{}.ts", p.module)),
            contents: crate::finish(t.render()?),
        },
        GeneratedFile {
            path: PathBuf::from(format!("{SCHEMA_DIR}/{}.schema.json", p.module)),
            contents: schema_text,
        },
    ])
}
