//! The sections of a protocol reference: one for each method and type.

use serde_json::Value;

use crate::model::{Def, Extra, Kind, Ty};
use crate::protocol::{CapabilityOf, Direction, MethodKind};
use crate::text::{json_compact, md_cell};

pub(super) struct DocMethod {
    pub(super) name: String,
    pub(super) anchor: String,
    pub(super) row: String,
    pub(super) description: String,
    pub(super) facts: Vec<String>,
    pub(super) examples: Vec<(String, String)>,
}

pub(super) struct DocType {
    pub(super) name: String,
    pub(super) anchor: String,
    pub(super) description: String,
    /// `members`, `values`, `open` or `alias`.
    pub(super) form: &'static str,
    pub(super) rows: Vec<String>,
    pub(super) summary: String,
    pub(super) extra: String,
}

pub(super) fn anchor(prefix: &str, name: &str) -> String {
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
        Ty::Tuple(items) => format!(
            "array of exactly [{}]",
            items.iter().map(ty).collect::<Vec<_>>().join(", ")
        ),
        Ty::Map(inner) => format!("map of string to {}", ty(inner)),
        Ty::Literal(v) => format!("`{}`", json_compact(v)),
        Ty::Union(items) => items.iter().map(ty).collect::<Vec<_>>().join(" or "),
    }
}

pub(super) fn link(name: &str) -> String {
    format!("[`{name}`](#{})", anchor("type", name))
}

pub(super) fn doc_type(def: &Def) -> DocType {
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

pub(super) fn method(m: &crate::protocol::Method) -> DocMethod {
    let kind = if m.spec.kind == MethodKind::Notification {
        "notification"
    } else {
        "request"
    };
    let dir = match m.spec.direction {
        Direction::ClientToServer => "client → server",
        Direction::ServerToClient => "server → client",
        Direction::Both => "both ways",
    };
    let params = match &m.params {
        Some(p) if m.spec.params_optional => format!("{} (optional)", link(p)),
        Some(p) => link(p),
        None => "none".into(),
    };
    let result = match (&m.result, &m.result_stream, m.spec.kind) {
        (_, _, MethodKind::Notification) => "—".into(),
        (_, Some(s), _) => format!("stream of {}", link(s)),
        (Some(r), None, _) => link(r),
        (None, None, _) => "`null`".into(),
    };
    let timeout = m.spec.timeout_ms.map_or("—".into(), |t| format!("{t} ms"));
    let cap =
        m.spec
            .capability
            .as_ref()
            .map_or("required".into(), |c| match m.spec.capability_of {
                CapabilityOf::Server => format!("optional: `{c}`"),
                CapabilityOf::Client => format!("optional: the client's `{c}`"),
                CapabilityOf::Receiver => format!("optional: the receiver's `{c}`"),
                CapabilityOf::Sender => format!("optional: the sender's `{c}`"),
            });
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
    if m.spec.kind == MethodKind::Request {
        facts.push(format!("Result: {result}."));
    }
    for (what, ty) in [
        ("Partial results", &m.partial_result),
        ("Registration options", &m.registration_options),
        ("Error data", &m.error_data),
    ] {
        if let Some(ty) = ty {
            facts.push(format!("{what}: {}.", link(ty)));
        }
    }
    facts.push(format!("Timeout: {timeout}."));
    facts.push(format!("Availability: {cap}."));
    if let Some(l) = &m.spec.lifecycle {
        if !l.allowed_in.is_empty() {
            let s: Vec<String> = l.allowed_in.iter().map(|s| format!("`{s}`")).collect();
            facts.push(format!("Allowed in: {}.", s.join(", ")));
        }
        if let Some(next) = &l.on_success {
            facts.push(format!("On success: the session moves to `{next}`."));
        }
        if let Some(completion) = &l.completion {
            facts.push(format!(
                "Completed by the notification `{completion}`: the next call waits for it."
            ));
        }
        if l.ends_session {
            facts.push("Ends the session.".into());
        }
        if let Some(v) = &l.violation {
            facts.push(format!(
                "Out of order: answered `{}`.",
                json_compact(&super::violation_json(v))
            ));
        }
    }
    let examples = m
        .spec
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
        description: m.description().unwrap_or_default().to_owned(),
        facts,
        examples,
    }
}
