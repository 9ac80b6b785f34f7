//! Loading protocols: the manifest's methods and errors, the bundled
//! schemas and the type model, as every target needs them.

use std::path::Path;

use serde_json::Value;

use crate::bundle::{Bundle, SchemaFile};
use crate::error::{escape_pointer, Error, ErrorKind, Result};
use crate::model::Model;
use crate::naming;

/// Whether a method answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    /// A request, answered with a result or an error.
    Request,
    /// A notification, never answered.
    Notification,
}

/// Who sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The client calls, the server handles.
    ClientToServer,
    /// The server calls, the client handles.
    ServerToClient,
}

/// One method of a protocol.
#[derive(Debug, Clone)]
pub struct Method {
    /// The wire name.
    pub name: String,
    /// Request or notification.
    pub kind: MethodKind,
    /// Who sends it.
    pub direction: Direction,
    /// What it does.
    pub description: Option<String>,
    /// The params type, if any.
    pub params: Option<String>,
    /// Whether `params` may be omitted.
    pub params_optional: bool,
    /// The result type, if any.
    pub result: Option<String>,
    /// The type of each streamed result item, if the result streams.
    pub result_stream: Option<String>,
    /// The capability that makes this method available (optional methods).
    pub capability: Option<String>,
    /// The caller's timeout.
    pub timeout_ms: Option<u64>,
    /// The manifest's `lifecycle` object, as written.
    pub lifecycle: Option<Value>,
    /// The manifest's examples, as written.
    pub examples: Vec<Value>,
}

/// One error code of a protocol.
#[derive(Debug, Clone)]
pub struct ErrorCode {
    /// The numeric code.
    pub code: i64,
    /// Its name, e.g. `MethodNotFound`.
    pub name: String,
    /// What it means.
    pub description: Option<String>,
    /// Whether the session ends after it.
    pub ends_session: bool,
}

/// A loaded protocol, ready for every target.
#[derive(Debug, Clone)]
pub struct Protocol {
    /// The protocol name from the manifest.
    pub name: String,
    /// Its version.
    pub version: String,
    /// The module name the bindings use (`snake_case`, unique).
    pub module: String,
    /// The manifest's title.
    pub title: String,
    /// The manifest's description.
    pub description: Option<String>,
    /// The whole manifest, for the docs and OpenRPC targets.
    pub manifest: Value,
    /// The schema files, in manifest order.
    pub files: Vec<SchemaFile>,
    /// The bundled schema.
    pub bundle: Bundle,
    /// The type model.
    pub model: Model,
    /// Methods, in manifest order.
    pub methods: Vec<Method>,
    /// Error codes, in manifest order.
    pub errors: Vec<ErrorCode>,
    /// Display path of the manifest.
    pub manifest_path: String,
}

fn manifest_err(path: &str, pointer: &str, msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Manifest, msg)
        .in_file(path)
        .at(pointer)
}

fn read_json(path: &Path, display: &str) -> Result<Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::new(ErrorKind::Io, format!("cannot read: {e}")).in_file(display))?;
    serde_json::from_str(&text)
        .map_err(|e| Error::new(ErrorKind::Json, format!("not valid JSON: {e}")).in_file(display))
}

/// Every protocol under `schemas_dir` (`<protocol>/<version>/protocol.json`),
/// loaded through [`wirekit::protocol::Registry`] (which checks each
/// manifest), sorted by name then version. `root` is stripped from paths in
/// messages.
pub fn load_all(schemas_dir: &Path, root: &Path) -> Result<Vec<Protocol>> {
    let shown_dir = display(schemas_dir, root);
    let registry = wirekit::protocol::Registry::from_dir(schemas_dir).map_err(|e| {
        let file = if e.file().is_empty() {
            shown_dir.clone()
        } else {
            format!("{shown_dir}/{}", e.file())
        };
        let err = Error::new(ErrorKind::Manifest, e.message().to_string()).in_file(file);
        if e.pointer().is_empty() {
            err
        } else {
            err.at(e.pointer())
        }
    })?;
    let mut out = Vec::new();
    for source in registry.iter() {
        let mpath = format!(
            "{shown_dir}/{}/{}",
            source.origin,
            wirekit::protocol::MANIFEST_FILE
        );
        let mut files = Vec::new();
        for name in &source.manifest.schemas {
            let Some(json) = source.files.get(name) else {
                return Err(manifest_err(
                    &mpath,
                    "/schemas",
                    format!("schema file `{name}` is missing"),
                ));
            };
            files.push(SchemaFile {
                name: name.clone(),
                display: format!("{shown_dir}/{}/{name}", source.origin),
                json: json.clone(),
            });
        }
        out.push(assemble(source.manifest_json.clone(), mpath, files)?);
    }
    out.sort_by(|a, b| {
        a.name
            .cmp(&b.name)
            .then(wirekit::protocol::compare_versions(&a.version, &b.version))
    });
    // Module names: the protocol name, plus the version when one protocol has several.
    let names: Vec<String> = out.iter().map(|p| p.name.clone()).collect();
    for p in &mut out {
        if names.iter().filter(|n| **n == p.name).count() > 1 {
            let version: String = p
                .version
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            p.module = format!("{}_v{version}", naming::snake(&p.name));
        }
    }
    Ok(out)
}

fn display(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Load one protocol from its `protocol.json`.
pub fn load(manifest_path: &Path, root: &Path) -> Result<Protocol> {
    let mpath = display(manifest_path, root);
    let manifest = read_json(manifest_path, &mpath)?;
    let dir = manifest_path.parent().unwrap_or(Path::new("."));
    let str_field = |key: &str| -> Result<String> {
        manifest
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| {
                manifest_err(
                    &mpath,
                    &format!("/{key}"),
                    format!("`{key}` must be a string"),
                )
            })
    };
    str_field("protocol")?;
    str_field("version")?;
    let list = manifest
        .get("schemas")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            manifest_err(
                &mpath,
                "/schemas",
                "`schemas` must be an array of file names",
            )
        })?;
    let mut files = Vec::new();
    for (i, f) in list.iter().enumerate() {
        let f = f
            .as_str()
            .ok_or_else(|| manifest_err(&mpath, &format!("/schemas/{i}"), "must be a file name"))?;
        let path = dir.join(f);
        let shown = display(&path, root);
        files.push(SchemaFile {
            name: f.to_string(),
            json: read_json(&path, &shown)?,
            display: shown,
        });
    }
    assemble(manifest, mpath, files)
}

/// A protocol of `files` alone, with no methods: for fixtures and for
/// schema sets that are not protocols.
pub fn from_files(name: &str, files: Vec<SchemaFile>) -> Result<Protocol> {
    let manifest = serde_json::json!({
        "protocol": name,
        "version": "0.0.0",
        "schemas": files.iter().map(|f| f.name.clone()).collect::<Vec<_>>(),
        "methods": {},
    });
    assemble(manifest, format!("{name}/protocol.json"), files)
}

fn assemble(manifest: Value, mpath: String, files: Vec<SchemaFile>) -> Result<Protocol> {
    let text = |key: &str| {
        manifest
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let name = text("protocol").unwrap_or_default();
    let version = text("version").unwrap_or_default();
    let title = text("title").unwrap_or_else(|| name.clone());
    let description = text("description");
    let entry_refs = manifest_refs(&manifest);
    let mut bundle = Bundle::new(&files, &entry_refs)?;
    let methods = methods(&manifest, &mpath, &files, &mut bundle)?;
    if let Some(r) = manifest
        .get("error_data")
        .and_then(|e| e.get("$ref"))
        .and_then(Value::as_str)
    {
        bundle
            .resolve(&files, None, r)
            .map_err(|e| e.in_file(&mpath).at("/error_data/$ref"))?;
    }
    let errors = errors(&manifest, &mpath)?;
    let model = Model::new(&bundle)?;
    Ok(Protocol {
        module: naming::snake(&name),
        name,
        version,
        title,
        description,
        manifest,
        files,
        bundle,
        model,
        methods,
        errors,
        manifest_path: mpath,
    })
}

/// The `$ref`s the manifest itself writes (params, results, streamed items, error data).
fn manifest_refs(manifest: &Value) -> Vec<&str> {
    let mut refs: Vec<&str> = manifest
        .get("methods")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|methods| methods.values())
        .flat_map(|spec| {
            ["params", "result", "result_stream"]
                .into_iter()
                .filter_map(|k| spec.get(k))
        })
        .filter_map(ref_of)
        .collect();
    refs.extend(manifest.get("error_data").and_then(ref_of));
    refs
}

fn ref_of(schema: &Value) -> Option<&str> {
    schema.get("$ref").and_then(Value::as_str)
}

fn methods(
    manifest: &Value,
    mpath: &str,
    files: &[SchemaFile],
    bundle: &mut Bundle,
) -> Result<Vec<Method>> {
    let Some(map) = manifest.get("methods").and_then(Value::as_object) else {
        return Err(manifest_err(
            mpath,
            "/methods",
            "`methods` must be an object",
        ));
    };
    let mut out = Vec::new();
    for (name, spec) in map {
        let ptr = format!("/methods/{}", escape_pointer(name));
        let text = |k: &str| spec.get(k).and_then(Value::as_str).map(str::to_string);
        let kind = match text("kind").as_deref() {
            Some("request") | None => MethodKind::Request,
            Some("notification") => MethodKind::Notification,
            Some(o) => {
                return Err(manifest_err(
                    mpath,
                    &format!("{ptr}/kind"),
                    format!("unknown kind {o:?}"),
                ))
            }
        };
        let direction = match text("direction").as_deref() {
            Some("client-to-server") | None => Direction::ClientToServer,
            Some("server-to-client") => Direction::ServerToClient,
            Some(o) => {
                return Err(manifest_err(
                    mpath,
                    &format!("{ptr}/direction"),
                    format!("unknown direction {o:?}"),
                ))
            }
        };
        let mut type_of = |key: &str, suffix: &str| -> Result<Option<String>> {
            let Some(s) = spec.get(key) else {
                return Ok(None);
            };
            if let Some(r) = s.get("$ref").and_then(Value::as_str) {
                return bundle
                    .resolve(files, None, r)
                    .map(Some)
                    .map_err(|e| e.in_file(mpath).at(format!("{ptr}/{key}/$ref")));
            }
            // An inline schema becomes a named type of its own.
            let tname = format!("{}{suffix}", naming::pascal(name));
            bundle.defs.insert(tname.clone(), s.clone());
            bundle.origins.insert(
                tname.clone(),
                crate::bundle::Origin {
                    file: mpath.to_string(),
                    pointer: format!("{ptr}/{key}"),
                },
            );
            Ok(Some(tname))
        };
        let params = type_of("params", "Params")?;
        let result = type_of("result", "Result")?;
        let result_stream = type_of("result_stream", "StreamItem")?;
        out.push(Method {
            name: name.clone(),
            kind,
            direction,
            description: text("description"),
            params,
            params_optional: spec
                .get("params_optional")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            result,
            result_stream,
            capability: text("capability"),
            timeout_ms: spec.get("timeout_ms").and_then(Value::as_u64),
            lifecycle: spec.get("lifecycle").cloned(),
            examples: spec
                .get("examples")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        });
    }
    Ok(out)
}

fn errors(manifest: &Value, mpath: &str) -> Result<Vec<ErrorCode>> {
    let Some(list) = manifest.get("errors") else {
        return Ok(Vec::new());
    };
    let list = list
        .as_array()
        .ok_or_else(|| manifest_err(mpath, "/errors", "`errors` must be an array"))?;
    let mut out = Vec::new();
    for (i, e) in list.iter().enumerate() {
        let ptr = format!("/errors/{i}");
        let code = e.get("code").and_then(Value::as_i64).ok_or_else(|| {
            manifest_err(mpath, &format!("{ptr}/code"), "`code` must be an integer")
        })?;
        let name = e.get("name").and_then(Value::as_str).ok_or_else(|| {
            manifest_err(mpath, &format!("{ptr}/name"), "`name` must be a string")
        })?;
        out.push(ErrorCode {
            code,
            name: name.to_string(),
            description: e
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            ends_session: e
                .get("ends_session")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        });
    }
    Ok(out)
}
