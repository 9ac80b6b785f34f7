//! The Rust target: one module a protocol under
//! `bindings/rust-protocols/src/generated` (crate `wirekit-protocols`), plus
//! the protocols' files embedded there (`schemas.rs`),
//! with the typify types (`types`), method-name constants and enums, a typed
//! server trait plus its [`Handler`](wirekit::serve::Handler) adapter, its
//! concurrent twin plus its [`ConcurrentHandler`](wirekit::serve::ConcurrentHandler)
//! adapter (both adapters run the same match arms, template macros), the typed
//! messages to the client from inside a handler (`…PeerExt` on every
//! [`AsPeer`](wirekit::serve::AsPeer)), and a typed client over a small
//! `Transport` trait.

use std::path::PathBuf;

use askama::Template;

use crate::error::{Error, ErrorKind, Result};
use crate::naming;
use crate::protocol::{CapabilityOf, Direction, MethodKind, Protocol};
use crate::rust_types;
use crate::text::{json_string, rust_doc};
use crate::{header, GeneratedFile};

/// Where the Rust modules go.
pub const DIR: &str = "bindings/rust-protocols/src/generated";

/// Rust's strict and reserved keywords (a method named one gets a `_` suffix).
const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

struct RsMethod {
    wire: String,
    constant: String,
    variant: String,
    func: String,
    /// The snake_case name, for the `notify_…` and `request_…` helpers.
    snake: String,
    doc: String,
    /// Params type as the trait takes it, if the method has params.
    params: Option<String>,
    /// Whether params may be absent (`Option<...>`).
    params_optional: bool,
    result: String,
    stream: Option<String>,
    capability: Option<String>,
    timeout: String,
}

#[derive(Template)]
#[template(path = "rust/protocol.rs.jinja", escape = "none")]
struct ProtocolTemplate {
    doc: String,
    root: String,
    protocol: String,
    version: String,
    types: String,
    trait_name: String,
    requests: Vec<RsMethod>,
    notifications: Vec<RsMethod>,
    server_requests: Vec<RsMethod>,
    server_notifications: Vec<RsMethod>,
    /// Every method once (a `both` method is in two lists above), for the
    /// `methods` constants: (constant, wire, doc).
    constants: Vec<(String, String, String)>,
    has_methods: bool,
    errors: Vec<(String, String, String)>,
    attributes: Vec<AttributeFn>,
}

/// A lookup function for one `x-wirekit-enum-attributes` attribute:
/// function name, doc line, and (name literal, value literal) pairs.
type AttributeFn = (String, String, Vec<(String, String)>);

#[derive(Template)]
#[template(path = "rust/mod.rs.jinja", escape = "none")]
struct ModTemplate {
    /// Each module, and the Cargo feature it needs, if any.
    modules: Vec<(String, Option<String>)>,
}

fn rust_fn_name(name: &str) -> String {
    let s = naming::snake(name);
    if RUST_KEYWORDS.contains(&s.as_str()) {
        format!("{s}_")
    } else {
        s
    }
}

fn method(
    m: &crate::protocol::Method,
    names: &std::collections::BTreeMap<String, String>,
) -> Result<RsMethod> {
    let ty = |def: &String| -> Result<String> {
        names
            .get(def)
            .map(|n| format!("types::{n}"))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Typify,
                    format!("typify produced no type for `{def}` (method `{}`)", m.name),
                )
            })
    };
    let mut doc = m
        .description()
        .map(str::to_owned)
        .unwrap_or_else(|| format!("The `{}` method.", m.name));
    if let Some(t) = m.spec.timeout_ms {
        doc.push_str(&format!("\n\nTimeout: {t} ms."));
    }
    if let Some(c) = &m.spec.capability {
        doc.push_str(&match m.spec.capability_of {
            CapabilityOf::Server => {
                format!("\n\nOptional: only called when the `{c}` capability is on.")
            }
            CapabilityOf::Client => {
                format!("\n\nOptional: only when the client declared the `{c}` capability.")
            }
            CapabilityOf::Receiver => {
                format!("\n\nOptional: only when the receiver declared the `{c}` capability.")
            }
            CapabilityOf::Sender => {
                format!("\n\nOptional: sent only by a side that declared the `{c}` capability.")
            }
        });
    }
    Ok(RsMethod {
        wire: json_string(&m.name),
        constant: naming::screaming(&m.name),
        variant: naming::pascal(&m.name),
        func: rust_fn_name(&m.name),
        snake: naming::snake(&m.name),
        doc: rust_doc(&doc, ""),
        params: m.params.as_ref().map(ty).transpose()?,
        params_optional: m.spec.params_optional,
        result: m
            .result
            .as_ref()
            .map(ty)
            .transpose()?
            .unwrap_or_else(|| "()".into()),
        stream: m.result_stream.as_ref().map(ty).transpose()?,
        capability: m
            .spec
            .capability
            .as_ref()
            .filter(|_| m.spec.capability_of.in_server_declaration())
            .map(|c| json_string(c)),
        timeout: m
            .spec
            .timeout_ms
            .map_or("None".into(), |t| format!("Some({t})")),
    })
}

/// The module text for `p`, with glue paths rooted at `root` (`::wirekit`,
/// the runtime crate, unless it is renamed).
pub fn module(p: &Protocol, root: &str) -> Result<String> {
    let types = rust_types::generate(p, root)?;
    // A method both peers send (`direction: both`) is in the lists of both.
    let pick = |sender: fn(Direction) -> bool, kind: MethodKind| -> Result<Vec<RsMethod>> {
        p.methods
            .iter()
            .filter(|m| sender(m.spec.direction) && m.spec.kind == kind)
            .map(|m| method(m, &types.names))
            .collect()
    };
    let requests = pick(Direction::client_sends, MethodKind::Request)?;
    let notifications = pick(Direction::client_sends, MethodKind::Notification)?;
    let server_requests = pick(Direction::server_sends, MethodKind::Request)?;
    let server_notifications = pick(Direction::server_sends, MethodKind::Notification)?;
    let mut attributes = Vec::new();
    for def in &p.model.defs {
        if let crate::model::Kind::OpenEnum {
            attributes: attrs, ..
        } = &def.kind
        {
            for (attr, table) in attrs {
                let entries = table
                    .iter()
                    .map(|(k, v)| {
                        (
                            json_string(k),
                            v.as_str()
                                .map_or_else(|| json_string(&v.to_string()), json_string),
                        )
                    })
                    .collect();
                attributes.push((
                    format!("{}_{}", naming::snake(&def.name), naming::snake(attr)),
                    format!(
                        "The `{attr}` of each known `{}` name (`None` for other names).",
                        def.name
                    ),
                    entries,
                ));
            }
        }
    }
    let mut doc = format!(
        "Bindings of the `{}` protocol, version {}: {}.",
        p.name,
        p.version,
        p.title.trim_end_matches('.')
    );
    if let Some(d) = &p.description {
        doc.push_str("\n\n");
        doc.push_str(d);
    }
    let t = ProtocolTemplate {
        doc: doc
            .lines()
            .map(|l| {
                if l.is_empty() {
                    "//!".to_string()
                } else {
                    format!("//! {l}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        root: root.to_string(),
        protocol: json_string(&p.name),
        version: json_string(&p.version),
        types: types.code,
        trait_name: naming::pascal(&p.name),
        has_methods: !p.methods.is_empty(),
        constants: {
            let mut seen = std::collections::HashSet::new();
            requests
                .iter()
                .chain(&notifications)
                .chain(&server_requests)
                .chain(&server_notifications)
                .filter(|m| seen.insert(m.wire.clone()))
                .map(|m| (m.constant.clone(), m.wire.clone(), m.doc.clone()))
                .collect()
        },
        requests,
        notifications,
        server_requests,
        server_notifications,
        errors: p
            .errors()
            .iter()
            .map(|e| {
                (
                    rust_doc(
                        Some(e.description.as_str())
                            .filter(|d| !d.is_empty())
                            .unwrap_or(&e.name),
                        "",
                    ),
                    naming::screaming(&e.name),
                    e.code.to_string(),
                )
            })
            .collect(),
        attributes,
    };
    let text = t.render()?;
    let file: syn::File = syn::parse_file(&text).map_err(|e| {
        Error::new(
            ErrorKind::Format,
            format!("generated Rust does not parse: {e}"),
        )
    })?;
    Ok(format!(
        "{}\n{}",
        header("//"),
        space_items(&prettyplease::unparse(&file))
    ))
}

/// prettyplease writes items back to back; put one blank line between
/// items (after a line closing one, before a line opening the next).
fn space_items(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut prev = "";
    for line in text.lines() {
        let t = line.trim_start();
        let p = prev.trim();
        let closes = p == "}"
            || p.ends_with(';')
            || (prev.starts_with("impl") && p.ends_with(" {}"))
            || (p.starts_with("//!") && !t.starts_with("//!"));
        let opens = [
            "///", "#[", "pub ", "impl", "fn ", "mod ", "const ", "static ", "use ", "trait ",
        ]
        .iter()
        .any(|k| t.starts_with(k));
        let both_use = p.starts_with("use ") && t.starts_with("use ");
        if closes && opens && !both_use && !prev.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        prev = line;
    }
    out
}

/// The module for protocol `p`.
pub fn generate(p: &Protocol) -> Result<Vec<GeneratedFile>> {
    Ok(vec![GeneratedFile {
        path: PathBuf::from(format!("{DIR}/{}.rs", p.module)),
        contents: module(p, "::wirekit")?,
    }])
}

/// `generated/mod.rs`: the protocol modules and what they share.
pub fn index(protocols: &[Protocol], features: Option<&[String]>) -> Result<GeneratedFile> {
    // A protocol whose manifest is derived from a meta model (LSP: 93
    // methods, about 400 types) sits behind a Cargo feature named after it,
    // on by default, so a crate that wants the others builds faster. Its
    // embedded schemas stay (validation needs no generated type).
    let mut modules: Vec<(String, Option<String>)> = protocols
        .iter()
        .map(|p| {
            let derived = p
                .manifest_json
                .get("$comment")
                .and_then(serde_json::Value::as_str)
                .is_some_and(|c| c.starts_with(crate::header("").trim()));
            // Gated only behind a feature the crate has (else always built).
            let gated = derived && features.is_none_or(|f| f.contains(&p.name));
            (p.module.clone(), gated.then(|| p.name.clone()))
        })
        .collect();
    modules.sort();
    // The template is written rustfmt-clean (this file is not skipped by
    // rustfmt, unlike the protocol modules); parse it only to be sure.
    let text = crate::finish(ModTemplate { modules }.render()?);
    syn::parse_file(&text).map_err(|e| {
        Error::new(
            ErrorKind::Format,
            format!("generated mod.rs does not parse: {e}"),
        )
    })?;
    Ok(GeneratedFile {
        path: PathBuf::from(format!("{DIR}/mod.rs")),
        contents: format!("{}\n{text}", header("//")),
    })
}

/// The `[features]` of the `wirekit-protocols` crate (`bindings/rust-protocols/Cargo.toml`).
pub fn crate_features(root: &std::path::Path) -> Vec<String> {
    let manifest = root
        .join(DIR)
        .parent()
        .and_then(std::path::Path::parent)
        .map(|dir| dir.join("Cargo.toml"));
    let Some(text) = manifest.and_then(|m| std::fs::read_to_string(m).ok()) else {
        return Vec::new();
    };
    let mut in_features = false;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_features = line == "[features]";
        } else if in_features {
            if let Some((name, _)) = line.split_once('=') {
                let name = name.trim();
                if !name.is_empty() && !name.starts_with('#') {
                    out.push(name.to_owned());
                }
            }
        }
    }
    out
}

/// `generated/schemas.rs`: every protocol's manifest and schema files as
/// `(path below schemas/, JSON text)`, so the crate carries its protocols
/// (`cargo package` takes nothing from outside the crate's folder).
pub fn embedded_schemas(protocols: &[Protocol]) -> Result<GeneratedFile> {
    let mut entries: Vec<(String, String)> = Vec::new();
    for p in protocols {
        let origin = format!("{}/{}", p.name, p.version);
        entries.push((
            format!("{origin}/{}", wirekit::protocol::MANIFEST_FILE),
            pretty_json(&p.manifest_json)?,
        ));
        for file in &p.files {
            entries.push((format!("{origin}/{}", file.name), pretty_json(&file.json)?));
        }
    }
    entries.sort();
    let mut text = format!(
        "{}\n//! The manifest and schema files of every protocol of `schemas/`, by path\n\
         //! below it, as JSON text.\n\n\
         /// `(path below schemas/, JSON text)` of every embedded file.\n\
         pub(crate) static FILES: &[(&str, &str)] = &[\n",
        header("//")
    );
    for (path, json) in &entries {
        let hashes = raw_string_hashes(json);
        text.push_str(&format!(
            "    (\n        {},\n        r{hashes}\"{json}\n\"{hashes},\n    ),\n",
            json_string(path)
        ));
    }
    text.push_str("];\n");
    syn::parse_file(&text).map_err(|e| {
        Error::new(
            ErrorKind::Format,
            format!("generated schemas.rs does not parse: {e}"),
        )
    })?;
    Ok(GeneratedFile {
        path: PathBuf::from(format!("{DIR}/schemas.rs")),
        contents: text,
    })
}

/// `generated/manifest_schema.rs`: the manifest's meta-schema as JSON text,
/// for commands that lint a protocol folder with no file of wirekit's at hand.
pub fn manifest_schema(root: &std::path::Path) -> Result<GeneratedFile> {
    let path = root.join("schemas").join(META_SCHEMA_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::new(ErrorKind::Io, format!("cannot read: {e}")).in_file(path.display().to_string())
    })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        Error::new(ErrorKind::Manifest, format!("not JSON: {e}"))
            .in_file(path.display().to_string())
    })?;
    let json = pretty_json(&value)?;
    let hashes = raw_string_hashes(&json);
    let text = format!(
        "{}\n//! The manifest's meta-schema, `schemas/{META_SCHEMA_FILE}`, as JSON text.\n\n\
         /// `schemas/{META_SCHEMA_FILE}`.\n\
         pub(crate) static MANIFEST_SCHEMA: &str = r{hashes}\"{json}\n\"{hashes};\n",
        header("//")
    );
    Ok(GeneratedFile {
        path: PathBuf::from(format!("{DIR}/manifest_schema.rs")),
        contents: text,
    })
}

/// The manifest's meta-schema, in `schemas/`.
pub const META_SCHEMA_FILE: &str = "wirekit-protocol.schema.json";

fn pretty_json(value: &serde_json::Value) -> Result<String> {
    serde_json::to_string_pretty(value).map_err(|e| {
        Error::new(
            ErrorKind::Format,
            format!("cannot write a schema as JSON: {e}"),
        )
    })
}

/// Enough `#`s that `text` cannot end the raw string literal early.
fn raw_string_hashes(text: &str) -> String {
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    hashes
}
