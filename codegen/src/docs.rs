//! The docs target: one Markdown reference a protocol (`docs/protocols`),
//! so a protocol's prose reference can never drift from its schemas.

use std::path::PathBuf;

use askama::Template;
use serde_json::Value;

use crate::model::{Def, Extra, Kind, Ty};
use crate::protocol::{Direction, MethodKind, Protocol};
use crate::text::{json_compact, md_cell};
use crate::{header, GeneratedFile, Result};

/// Where the Markdown references go.
pub const DIR: &str = "docs/protocols";

struct DocMethod {
    name: String,
    anchor: String,
    row: String,
    description: String,
    facts: Vec<String>,
    examples: Vec<(String, String)>,
}

struct DocType {
    name: String,
    anchor: String,
    description: String,
    /// `members`, `values`, `open` or `alias`.
    form: &'static str,
    rows: Vec<String>,
    summary: String,
    extra: String,
}

#[derive(Template)]
#[template(path = "docs/protocol.md.jinja", escape = "none")]
struct ProtocolTemplate {
    header: String,
    title: String,
    name: String,
    version: String,
    description: String,
    transport: Vec<(String, String)>,
    roles: String,
    lifecycle: Option<Lifecycle>,
    capabilities: String,
    methods: Vec<DocMethod>,
    types: Vec<DocType>,
    errors: Vec<String>,
    error_data: String,
    rules: Vec<String>,
    negotiation: String,
    files: Vec<String>,
}

struct Lifecycle {
    initial: String,
    terminal: String,
    states: Vec<(String, String)>,
    violation: String,
}

#[derive(Template)]
#[template(path = "docs/index.md.jinja", escape = "none")]
struct IndexTemplate {
    header: String,
    rows: Vec<String>,
}

fn anchor(prefix: &str, name: &str) -> String {
    let slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("{prefix}-{slug}")
}

/// A type written for readers, with links to named types.
fn ty(t: &Ty) -> String {
    match t {
        Ty::Any => "any".into(),
        Ty::Null => "null".into(),
        Ty::Bool => "boolean".into(),
        Ty::Integer => "integer".into(),
        Ty::Number => "number".into(),
        Ty::String => "string".into(),
        Ty::Ref(n) => link(n),
        Ty::Array(inner) => format!("array of {}", ty(inner)),
        Ty::Map(inner) => format!("map of string to {}", ty(inner)),
        Ty::Literal(v) => format!("`{}`", json_compact(v)),
        Ty::Union(items) => items.iter().map(ty).collect::<Vec<_>>().join(" or "),
    }
}

fn link(name: &str) -> String {
    format!("[`{name}`](#{})", anchor("type", name))
}

fn doc_type(def: &Def) -> DocType {
    let mut description = def.description.clone().unwrap_or_default();
    if let Some(d) = &def.default {
        description.push_str(&format!("\n\nDefault: `{}`.", json_compact(d)));
    }
    let mut out = DocType {
        name: def.name.clone(),
        anchor: anchor("type", &def.name),
        description: description.trim().to_string(),
        form: "alias",
        rows: Vec::new(),
        summary: String::new(),
        extra: String::new(),
    };
    match &def.kind {
        Kind::Object { fields, extra } => {
            out.form = "members";
            for f in fields {
                let mut d = f.description.clone().unwrap_or_default();
                if let Some(v) = &f.default {
                    d.push_str(&format!(" Default: `{}`.", json_compact(v)));
                }
                out.rows.push(format!(
                    "| `{}` | {} | {} | {} |",
                    md_cell(&f.name),
                    md_cell(&ty(&f.ty)),
                    if f.required { "yes" } else { "no" },
                    md_cell(&d)
                ));
            }
            out.extra = match extra {
                Extra::Any => "Other members are allowed.".into(),
                Extra::Forbidden => "No other members are allowed.".into(),
                Extra::Typed(t) => format!("Other members hold {}.", ty(t)),
            };
        }
        Kind::Enum(values) => {
            out.form = "values";
            out.summary = format!(
                "One of: {}.",
                values
                    .iter()
                    .map(|v| format!("`{}`", json_compact(v)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        Kind::OpenEnum { known, attributes } => {
            out.form = "open";
            out.summary =
                "A string: one of the known names below, or any other name (an open enum).".into();
            let attrs: Vec<&String> = attributes.keys().collect();
            let mut head = "| Name |".to_string();
            let mut rule = "| --- |".to_string();
            for a in &attrs {
                head.push_str(&format!(" {} |", md_cell(a)));
                rule.push_str(" --- |");
            }
            out.rows.push(head);
            out.rows.push(rule);
            for k in known {
                let mut row = format!("| `{}` |", md_cell(k));
                for a in &attrs {
                    let v = attributes[*a]
                        .iter()
                        .find(|(n, _)| n == k)
                        .map(|(_, v)| match v {
                            Value::String(s) => s.clone(),
                            other => json_compact(other),
                        });
                    row.push_str(&format!(" {} |", md_cell(&v.unwrap_or_default())));
                }
                out.rows.push(row);
            }
        }
        Kind::Alias(t) => out.summary = format!("Type: {}.", ty(t)),
    }
    out
}

fn method(m: &crate::protocol::Method) -> DocMethod {
    let kind = if m.kind == MethodKind::Notification {
        "notification"
    } else {
        "request"
    };
    let dir = if m.direction == Direction::ClientToServer {
        "client → server"
    } else {
        "server → client"
    };
    let params = match &m.params {
        Some(p) if m.params_optional => format!("{} (optional)", link(p)),
        Some(p) => link(p),
        None => "none".into(),
    };
    let result = match (&m.result, &m.result_stream, m.kind) {
        (_, _, MethodKind::Notification) => "—".into(),
        (_, Some(s), _) => format!("stream of {}", link(s)),
        (Some(r), None, _) => link(r),
        (None, None, _) => "`null`".into(),
    };
    let timeout = m.timeout_ms.map_or("—".into(), |t| format!("{t} ms"));
    let cap = m
        .capability
        .as_ref()
        .map_or("required".into(), |c| format!("optional: `{c}`"));
    let row = format!(
        "| [`{}`](#{}) | {kind} | {dir} | {} | {} | {timeout} | {cap} |",
        md_cell(&m.name),
        anchor("method", &m.name),
        md_cell(&params),
        md_cell(&result)
    );
    let mut facts = vec![
        format!("Kind: {kind}, {dir}."),
        format!("Params: {params}."),
    ];
    if m.kind == MethodKind::Request {
        facts.push(format!("Result: {result}."));
    }
    facts.push(format!("Timeout: {timeout}."));
    facts.push(format!("Availability: {cap}."));
    if let Some(l) = &m.lifecycle {
        if let Some(states) = l.get("allowed_in").and_then(Value::as_array) {
            let s: Vec<String> = states
                .iter()
                .filter_map(Value::as_str)
                .map(|s| format!("`{s}`"))
                .collect();
            facts.push(format!("Allowed in: {}.", s.join(", ")));
        }
        if let Some(next) = l.get("on_success").and_then(Value::as_str) {
            facts.push(format!("On success: the session moves to `{next}`."));
        }
        if l.get("ends_session").and_then(Value::as_bool) == Some(true) {
            facts.push("Ends the session.".into());
        }
        if let Some(v) = l.get("violation") {
            facts.push(format!("Out of order: answered `{}`.", json_compact(v)));
        }
    }
    let examples = m
        .examples
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let title = e
                .get("title")
                .and_then(Value::as_str)
                .map_or_else(|| format!("Example {}", i + 1), str::to_string);
            let mut body = serde_json::Map::new();
            for (k, v) in e.as_object().into_iter().flatten() {
                if k != "title" {
                    body.insert(k.clone(), v.clone());
                }
            }
            (
                title,
                serde_json::to_string_pretty(&Value::Object(body)).unwrap_or_default(),
            )
        })
        .collect();
    DocMethod {
        name: m.name.clone(),
        anchor: anchor("method", &m.name),
        row,
        description: m.description.clone().unwrap_or_default(),
        facts,
        examples,
    }
}

fn text_of(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// The reference for protocol `p`.
pub fn generate(p: &Protocol) -> Result<Vec<GeneratedFile>> {
    let m = &p.manifest;
    let mut transport = Vec::new();
    if let Some(t) = m.get("transport").and_then(Value::as_object) {
        for (k, v) in t {
            let shown = match v {
                Value::String(s) => format!("`{s}`"),
                Value::Bool(b) => {
                    if *b {
                        "yes".into()
                    } else {
                        "no".into()
                    }
                }
                other => format!("`{}`", json_compact(other)),
            };
            transport.push((k.replace('_', " "), shown));
        }
    }
    let roles = m.get("roles").map_or(String::new(), |r| {
        format!(
            "The client is the **{}**; the server is the **{}**.",
            text_of(r, "client"),
            text_of(r, "server")
        )
    });
    let lifecycle = m
        .get("lifecycle")
        .filter(|l| l.is_object())
        .map(|l| Lifecycle {
            initial: text_of(l, "initial"),
            terminal: l
                .get("terminal")
                .and_then(Value::as_array)
                .map(|t| {
                    t.iter()
                        .filter_map(Value::as_str)
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default(),
            states: l
                .get("states")
                .and_then(Value::as_object)
                .map(|s| {
                    s.iter()
                        .map(|(k, v)| (md_cell(k), md_cell(v.as_str().unwrap_or(""))))
                        .collect()
                })
                .unwrap_or_default(),
            violation: l.get("violation").map(json_compact).unwrap_or_default(),
        });
    let capabilities = m.get("capabilities").filter(|c| c.is_object()).map_or(String::new(), |c| {
        format!(
            "The server declares its capabilities in the result of `{}`, at `{}`, as {}. An optional method is called only when its capability is on.",
            text_of(c, "method"),
            text_of(c, "pointer"),
            match text_of(c, "style").as_str() {
                "boolean-object" => "an object of booleans".to_string(),
                "string-array" => "an array of names".to_string(),
                other => format!("`{other}`"),
            }
        )
    });
    let errors = p
        .errors
        .iter()
        .map(|e| {
            format!(
                "| `{}` | `{}` | {} | {} |",
                e.code,
                md_cell(&e.name),
                if e.ends_session { "yes" } else { "no" },
                md_cell(e.description.as_deref().unwrap_or(""))
            )
        })
        .collect();
    let error_data = m
        .get("error_data")
        .and_then(|e| e.get("$ref"))
        .and_then(Value::as_str)
        .and_then(|r| p.bundle.resolve(&p.files, None, r).ok())
        .map_or(String::new(), |n| {
            format!("An error's `data` is a {}.", link(&n))
        });
    let rules = m
        .get("rules")
        .and_then(Value::as_array)
        .map(|rs| {
            rs.iter()
                .map(|r| {
                    let mut args = r.as_object().cloned().unwrap_or_default();
                    let name = args
                        .remove("rule")
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    format!("- `{name}`: `{}`", json_compact(&Value::Object(args)))
                })
                .collect()
        })
        .unwrap_or_default();
    let negotiation = m
        .get("version_negotiation")
        .filter(|v| v.is_object())
        .map_or(String::new(), |v| {
            serde_json::to_string_pretty(v).unwrap_or_default()
        });
    let t = ProtocolTemplate {
        header: format!("<!-- {} -->", header("").trim()),
        title: p.title.clone(),
        name: p.name.clone(),
        version: p.version.clone(),
        description: p.description.clone().unwrap_or_default(),
        transport,
        roles,
        lifecycle,
        capabilities,
        methods: p.methods.iter().map(method).collect(),
        types: p.model.defs.iter().map(doc_type).collect(),
        errors,
        error_data,
        rules,
        negotiation,
        files: p.files.iter().map(|f| f.display.clone()).collect(),
    };
    Ok(vec![GeneratedFile {
        path: PathBuf::from(format!("{DIR}/{}.md", p.module)),
        contents: crate::finish(t.render()?),
    }])
}

/// `docs/protocols/README.md`: one line a protocol.
pub fn index(protocols: &[Protocol]) -> Result<GeneratedFile> {
    let rows = protocols
        .iter()
        .map(|p| {
            format!(
                "| [{}]({}.md) | `{}` | {} | {} | [OpenRPC](../openrpc/{}.openrpc.json) |",
                md_cell(&p.title),
                p.module,
                p.name,
                p.version,
                p.methods.len(),
                p.module
            )
        })
        .collect();
    let t = IndexTemplate {
        header: format!("<!-- {} -->", header("").trim()),
        rows,
    };
    Ok(GeneratedFile {
        path: PathBuf::from(format!("{DIR}/README.md")),
        contents: crate::finish(t.render()?),
    })
}
