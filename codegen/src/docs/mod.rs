//! The docs target: one Markdown reference a protocol (`docs/protocols`),
//! so a protocol's prose reference can never drift from its schemas.

use std::path::PathBuf;

use askama::Template;
use serde_json::Value;

mod sections;

use sections::{doc_type, link, method, DocMethod, DocType};

use crate::protocol::Protocol;
use crate::text::{json_compact, md_cell};
use crate::{header, GeneratedFile, Result};

/// Where the Markdown references go.
pub const DIR: &str = "docs/protocols";

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
