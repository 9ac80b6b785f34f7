//! The TypeScript target: one module of interfaces, literal unions, a
//! method map and constants a protocol, checked with `tsc --strict --noEmit`;
//! beside it the protocol's runtime descriptor and the bundled schema its
//! standalone validators are generated from ([`descriptor`]).

mod descriptor;

use std::path::PathBuf;

use askama::Template;
use serde_json::Value;

use crate::model::{Def, Extra, Field, Kind, Ty};
use crate::naming::{self, ts_key, ts_type_name};
use crate::protocol::{CapabilityOf, Direction, MethodKind, Protocol};
use crate::text::{jsdoc, json_compact, json_string};
use crate::{header, GeneratedFile, Result};

/// Where the TypeScript modules go.
pub const DIR: &str = "bindings/typescript/src/generated";

struct TsItem {
    /// JSDoc block (with trailing newline) or empty.
    doc: String,
    /// `interface` or `alias`.
    form: &'static str,
    name: String,
    /// Interface members, each a full line without indentation fixes.
    members: Vec<String>,
    /// Alias right-hand side.
    expr: String,
    /// Extra declarations after the item (open-enum attribute tables).
    consts: Vec<String>,
}

struct TsMethod {
    doc: String,
    key: String,
    params: String,
    result: String,
}

#[derive(Template)]
#[template(path = "typescript/module.ts.jinja", escape = "none")]
struct ModuleTemplate {
    header: String,
    doc: String,
    protocol: String,
    version: String,
    items: Vec<TsItem>,
    map_name: String,
    requests: Vec<TsMethod>,
    notifications: Vec<TsMethod>,
    server_requests: Vec<TsMethod>,
    server_notifications: Vec<TsMethod>,
    methods: Vec<(String, String)>,
    errors: Vec<(String, String, String)>,
}

#[derive(Template)]
#[template(path = "typescript/index.ts.jinja", escape = "none")]
struct IndexTemplate {
    header: String,
    modules: Vec<String>,
    /// Exported name and module of each protocol's descriptor, and the
    /// exported name of its server's handler type.
    descriptors: Vec<(String, String, String)>,
}

/// A TypeScript type expression for `ty`.
pub fn ty(t: &Ty) -> String {
    match t {
        Ty::Any => "unknown".into(),
        Ty::Null => "null".into(),
        Ty::Bool => "boolean".into(),
        Ty::Integer | Ty::Number => "number".into(),
        Ty::String => "string".into(),
        Ty::Ref(name) => ts_type_name(name),
        Ty::Array(inner) => match **inner {
            Ty::Union(_) => format!("Array<{}>", ty(inner)),
            _ => format!("{}[]", ty(inner)),
        },
        Ty::Tuple(items) => format!("[{}]", items.iter().map(ty).collect::<Vec<_>>().join(", ")),
        Ty::Map(inner) => format!("Record<string, {}>", ty(inner)),
        Ty::Literal(v) => literal(v),
        Ty::Union(items) => {
            let mut parts: Vec<String> = items.iter().map(ty).collect();
            parts.dedup();
            parts.join(" | ")
        }
    }
}

fn literal(v: &Value) -> String {
    match v {
        Value::Object(_) | Value::Array(_) => "unknown".into(),
        other => json_compact(other),
    }
}

fn tags(default: Option<&Value>) -> Vec<String> {
    default
        .map(|d| vec![format!("@default {}", json_compact(d))])
        .unwrap_or_default()
}

/// A member's tags: its bounds (`@minimum 0`, as typescript-json-schema
/// writes them; TypeScript has no ranged number type, the generated
/// validators check them) and its default.
fn field_tags(field: &Field) -> Vec<String> {
    let mut out: Vec<String> = field
        .bounds
        .iter()
        .map(|(key, value)| format!("@{key} {value}"))
        .collect();
    out.extend(tags(field.default.as_ref()));
    out
}

fn item(def: &Def) -> TsItem {
    let name = ts_type_name(&def.name);
    let doc = jsdoc(def.description.as_deref(), &tags(def.default.as_ref()), "");
    let mut it = TsItem {
        doc,
        form: "alias",
        name,
        members: Vec::new(),
        expr: String::new(),
        consts: Vec::new(),
    };
    match &def.kind {
        Kind::Object { fields, extra } => {
            it.form = "interface";
            let mut value_types: Vec<String> = Vec::new();
            for f in fields {
                let t = ty(&f.ty);
                let opt = if f.required { "" } else { "?" };
                let d = jsdoc(f.description.as_deref(), &field_tags(f), "  ");
                it.members
                    .push(format!("{d}  {}{opt}: {t};", ts_key(&f.name)));
                value_types.push(t);
            }
            if let Extra::Typed(t) = extra {
                // An index signature must admit every named member's type too.
                let mut all = vec![ty(t)];
                for v in value_types {
                    if !all.contains(&v) {
                        all.push(v);
                    }
                }
                if fields.iter().any(|f| !f.required) {
                    all.push("undefined".into());
                }
                it.members
                    .push(format!("  [key: string]: {};", all.join(" | ")));
            }
        }
        Kind::Enum(values) => it.expr = values.iter().map(literal).collect::<Vec<_>>().join(" | "),
        Kind::OpenEnum { known, attributes } => {
            let mut parts: Vec<String> = known.iter().map(|k| json_string(k)).collect();
            parts.push("(string & {})".into());
            it.expr = parts.join(" | ");
            for (attr, table) in attributes {
                let entries: Vec<String> = table
                    .iter()
                    .map(|(k, v)| format!("  {}: {},", ts_key(k), json_compact(v)))
                    .collect();
                it.consts.push(format!(
                    "/** The `{attr}` of each known {}. */\nexport const {}{} = {{\n{}\n}} as const;",
                    it.name,
                    it.name,
                    naming::pascal(attr),
                    entries.join("\n")
                ));
            }
        }
        Kind::Alias(t) => it.expr = ty(t),
    }
    it
}

fn method(p: &Protocol, m: &crate::protocol::Method) -> TsMethod {
    let params = match &m.params {
        Some(t) if m.spec.params_optional => format!("{} | undefined", ts_type_name(t)),
        Some(t) => ts_type_name(t),
        None => "undefined".into(),
    };
    let result = match (&m.result, &m.result_stream, m.spec.kind) {
        (_, _, MethodKind::Notification) => "void".into(),
        // A streamed result has no response: its items come one by one.
        (_, Some(item), _) => format!("never; stream: {}", ts_type_name(item)),
        (Some(t), None, _) => ts_type_name(t),
        (None, None, _) => "null".into(),
    };
    let mut tags = Vec::new();
    if let Some(ms) = m.spec.timeout_ms {
        tags.push(format!("Timeout: {ms} ms."));
    }
    if let Some(c) = &m.spec.capability {
        match m.spec.capability_of {
            CapabilityOf::Server => {
                tags.push(format!("Optional: only when the `{c}` capability is on."))
            }
            CapabilityOf::Client => tags.push(format!(
                "Optional: only when the client declared the `{c}` capability."
            )),
            CapabilityOf::Receiver => tags.push(format!(
                "Optional: only when the receiver declared the `{c}` capability."
            )),
            CapabilityOf::Sender => tags.push(format!(
                "Optional: sent only by a side that declared the `{c}` capability."
            )),
        }
    }
    if let Some(s) = &m.result_stream {
        tags.push(format!("Streams {} items.", ts_type_name(s)));
    }
    let _ = p;
    TsMethod {
        doc: jsdoc(m.description(), &tags, "  "),
        key: json_string(&m.name),
        params,
        result,
    }
}

/// The module for protocol `p`.
pub fn generate(p: &Protocol) -> Result<Vec<GeneratedFile>> {
    let items = p.model.defs.iter().map(item).collect();
    // A method both peers send (`direction: both`) is in the lists of both.
    let pick = |sender: fn(Direction) -> bool, kind: MethodKind| -> Vec<TsMethod> {
        p.methods
            .iter()
            .filter(|m| sender(m.spec.direction) && m.spec.kind == kind)
            .map(|m| method(p, m))
            .collect()
    };
    let mut doc = format!(
        "Types of the `{}` protocol, version {}: {}.",
        p.name,
        p.version,
        p.title.trim_end_matches('.')
    );
    if let Some(d) = &p.description {
        doc.push_str("\n\n");
        doc.push_str(d);
    }
    let t = ModuleTemplate {
        header: header("//"),
        doc: jsdoc(Some(&doc), &["@module".to_string()], ""),
        protocol: json_string(&p.name),
        version: json_string(&p.version),
        items,
        map_name: naming::pascal(&p.name),
        requests: pick(Direction::client_sends, MethodKind::Request),
        notifications: pick(Direction::client_sends, MethodKind::Notification),
        server_requests: pick(Direction::server_sends, MethodKind::Request),
        server_notifications: pick(Direction::server_sends, MethodKind::Notification),
        methods: p
            .methods
            .iter()
            .map(|m| (naming::pascal(&m.name), json_string(&m.name)))
            .collect(),
        errors: p
            .errors()
            .iter()
            .map(|e| {
                (
                    jsdoc(
                        Some(e.description.as_str()).filter(|d| !d.is_empty()),
                        &[],
                        "  ",
                    ),
                    naming::pascal(&e.name),
                    e.code.to_string(),
                )
            })
            .collect(),
    };
    let mut files = vec![GeneratedFile {
        path: PathBuf::from(format!("{DIR}/{}.ts", p.module)),
        contents: crate::finish(t.render()?),
    }];
    files.extend(descriptor::generate(p)?);
    Ok(files)
}

/// The exported name of a shipped protocol's handler type: its descriptor's
/// name, capitalised (`gzkitAuthoringGuide` → `GzkitAuthoringGuideHandlers`).
fn handlers_name(export: &str) -> String {
    let mut chars = export.chars();
    let first: String = chars
        .next()
        .map(|c| c.to_uppercase().collect())
        .unwrap_or_default();
    format!("{first}{}Handlers", chars.as_str())
}

/// `index.ts` re-exporting every protocol module as a namespace.
pub fn index(protocols: &[Protocol]) -> Result<GeneratedFile> {
    let mut modules: Vec<String> = protocols.iter().map(|p| p.module.clone()).collect();
    modules.sort();
    let mut descriptors = Vec::new();
    for p in protocols {
        if descriptor::manifest(p)?.is_some() {
            descriptors.push((
                descriptor::export_name(p),
                p.module.clone(),
                handlers_name(&descriptor::export_name(p)),
            ));
        }
    }
    descriptors.sort();
    let t = IndexTemplate {
        header: header("//"),
        modules,
        descriptors,
    };
    Ok(GeneratedFile {
        path: PathBuf::from(format!("{DIR}/index.ts")),
        contents: crate::finish(t.render()?),
    })
}
