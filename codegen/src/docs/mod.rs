//! The docs target: one Markdown reference a protocol (`docs/protocols`),
//! so a protocol's prose reference can never drift from its schemas.

use std::path::PathBuf;

use askama::Template;
use serde_json::Value;

mod sections;

use sections::{doc_type, link, method, DocMethod, DocType};

use wirekit::protocol::{CapabilityStyle, ViolationSpec};

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
    conformance: Conformance,
    files: Vec<String>,
}

/// How to run `wirekit conformance` against a server of the protocol, and
/// what its battery does for this protocol (all from the manifest).
struct Conformance {
    spec: String,
    sequence: String,
    host: String,
    root: String,
    exit_grace_ms: u64,
    strict: bool,
    content_length: bool,
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
/// A violation answer as the manifest writes it: code, message, and data when there is some.
pub(super) fn violation_json(v: &ViolationSpec) -> Value {
    let mut out = serde_json::Map::new();
    out.insert("code".into(), Value::from(v.code));
    out.insert("message".into(), Value::String(v.message.clone()));
    if let Some(data) = &v.data {
        out.insert("data".into(), data.clone());
    }
    Value::Object(out)
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.to_owned()
}

/// The reference for protocol `p`.
pub fn generate(p: &Protocol) -> Result<Vec<GeneratedFile>> {
    let m = &p.manifest;
    let t = &m.transport;
    let transport = vec![
        ("framing".to_owned(), format!("`{}`", t.framing)),
        ("envelope".to_owned(), format!("`{}`", t.envelope)),
        ("strict".to_owned(), yes_no(t.strict)),
        ("canonical".to_owned(), yes_no(t.canonical)),
        (
            "max frame bytes".to_owned(),
            t.max_frame_bytes.map_or_else(
                || format!("none stated (wirekit's own bound: `{}`)", t.frame_bound()),
                |b| format!("`{b}`"),
            ),
        ),
        (
            "one request at a time".to_owned(),
            yes_no(t.one_request_at_a_time),
        ),
    ];
    let roles = format!(
        "The client is the **{}**; the server is the **{}**.",
        m.roles.client, m.roles.server
    );
    let lifecycle = m.lifecycle.as_ref().map(|l| Lifecycle {
        initial: l.initial.clone(),
        terminal: l
            .terminal
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", "),
        states: l
            .states
            .iter()
            .map(|(k, v)| (md_cell(k), md_cell(v)))
            .collect(),
        violation: json_compact(&violation_json(&l.violation)),
    });
    let capabilities = m.capabilities.as_ref().map_or(String::new(), |c| {
        format!(
            "The server declares its capabilities in the result of `{}`, at `{}`, as {}. An optional method is called only when its capability is on.",
            c.method,
            c.pointer,
            match c.style {
                CapabilityStyle::BooleanObject => "an object of booleans",
                CapabilityStyle::StringArray => "an array of names",
                CapabilityStyle::Provider =>
                    "an object of providers (a method's capability is the path of its provider, declared when it is `true` or an options object)",
            }
        )
    });
    let errors = p
        .errors()
        .iter()
        .map(|e| {
            format!(
                "| `{}` | `{}` | {} | {} |",
                e.code,
                md_cell(&e.name),
                if e.ends_session { "yes" } else { "no" },
                md_cell(&e.description)
            )
        })
        .collect();
    let error_data = m
        .error_data
        .as_ref()
        .and_then(|r| p.bundle.entry(&r.reference).ok())
        .map_or(String::new(), |n| {
            format!("An error's `data` is a {}.", link(&n))
        });
    let rules = m
        .rules
        .iter()
        .map(|r| {
            format!(
                "- `{}`: `{}`",
                r.rule,
                json_compact(&Value::Object(r.arguments.clone()))
            )
        })
        .collect();
    let negotiation = m.version_negotiation.as_ref().map_or(String::new(), |v| {
        serde_json::to_string_pretty(v).unwrap_or_default()
    });
    let host = m.host.as_ref();
    let conformance = Conformance {
        spec: format!("{}@{}", p.name, p.version),
        sequence: host.map_or(String::new(), |h| {
            h.sequence
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }),
        host: host.map_or(String::new(), |h| md_cell(&h.description)),
        root: host
            .and_then(|h| h.project_root.clone())
            .map_or(String::new(), |r| format!("`{r}`")),
        exit_grace_ms: host.map_or(wirekit::protocol::HostSpec::DEFAULT_EXIT_GRACE_MS, |h| {
            h.exit_grace_ms
                .unwrap_or(wirekit::protocol::HostSpec::DEFAULT_EXIT_GRACE_MS)
        }),
        strict: t.strict,
        content_length: t.framing == wirekit::framing::Framing::ContentLength,
    };
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
        conformance,
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
