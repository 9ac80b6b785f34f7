//! Loading protocols for code generation. The manifest is read once, by the
//! core ([`wirekit::protocol::Registry`] and its typed
//! [`wirekit::protocol::Manifest`]); this module adds what every target
//! needs on top of it: the bundled schemas, the type model, each method's
//! type names and the module name.

use std::path::Path;

use serde_json::Value;

use wirekit::protocol::bundle::SchemaFiles;
use wirekit::protocol::{
    ErrorSpec, Manifest, MethodSpec, ProtocolError, ProtocolSource, Registry, SchemaRef,
    MANIFEST_FILE,
};

use crate::bundle::{Bundle, SchemaFile};
use crate::error::{escape_pointer, Error, ErrorKind, Result};
use crate::model::Model;
use crate::naming;

pub use wirekit::protocol::{CapabilityOf, Direction, MethodKind};

/// One method of a protocol: the core's [`MethodSpec`] with the names of
/// the bundled types its references point at.
#[derive(Debug, Clone)]
pub struct Method {
    /// The wire name.
    pub name: String,
    /// The method as the manifest declares it.
    pub spec: MethodSpec,
    /// The params type, if any.
    pub params: Option<String>,
    /// The result type, if any.
    pub result: Option<String>,
    /// The type of each streamed result item, if the result streams.
    pub result_stream: Option<String>,
    /// The type of its partial results, if any.
    pub partial_result: Option<String>,
    /// The type of its registration options, if any.
    pub registration_options: Option<String>,
    /// The type of its error answers' data, if it has its own.
    pub error_data: Option<String>,
}

impl Method {
    /// What it does; `None` when the manifest says nothing.
    pub fn description(&self) -> Option<&str> {
        Some(self.spec.description.as_str()).filter(|d| !d.is_empty())
    }
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
    /// The manifest's title (the name when it has none).
    pub title: String,
    /// The manifest's description; `None` when empty.
    pub description: Option<String>,
    /// The manifest, as the core reads it.
    pub manifest: Manifest,
    /// The manifest file as written: embedded verbatim by the Rust target,
    /// never read for its rules (those come from [`Protocol::manifest`]).
    pub manifest_json: Value,
    /// The schema files, in manifest order.
    pub files: Vec<SchemaFile>,
    /// The bundled schema.
    pub bundle: Bundle,
    /// The type model.
    pub model: Model,
    /// Methods, in manifest order.
    pub methods: Vec<Method>,
    /// Display path of the manifest.
    pub manifest_path: String,
}

impl Protocol {
    /// The protocol's own error codes, in manifest order.
    pub fn errors(&self) -> &[ErrorSpec] {
        &self.manifest.errors
    }

    /// Whether this is a bare set of schema files (no methods): it gets
    /// types only, no runtime descriptor.
    pub fn is_schema_set(&self) -> bool {
        self.manifest.methods.is_empty()
    }
}

/// Every protocol under `schemas_dir` (`<protocol>/<version>/protocol.json`),
/// loaded through [`wirekit::protocol::Registry`] (which parses and checks
/// each manifest), sorted by name then version. `root` is stripped from
/// paths in messages.
pub fn load_all(schemas_dir: &Path, root: &Path) -> Result<Vec<Protocol>> {
    let shown_dir = display(schemas_dir, root);
    let registry = Registry::from_dir(schemas_dir).map_err(|e| registry_error(&shown_dir, &e))?;
    from_registry(&registry, &shown_dir)
}

/// Every protocol of `registry`, sorted by name then version, with module
/// names made unique; `shown_dir` is the folder named in messages.
pub fn from_registry(registry: &Registry, shown_dir: &str) -> Result<Vec<Protocol>> {
    let mut out = registry
        .iter()
        .map(|source| {
            let folder = format!("{shown_dir}/{}", source.origin);
            from_source(source, &|name| format!("{folder}/{name}"))
        })
        .collect::<Result<Vec<_>>>()?;
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

/// The core's loading error, located under `shown_dir`.
pub fn registry_error(shown_dir: &str, e: &ProtocolError) -> Error {
    let file = if e.file().is_empty() {
        shown_dir.to_owned()
    } else {
        format!("{shown_dir}/{}", e.file())
    };
    let err = Error::new(ErrorKind::Manifest, e.message().to_string()).in_file(file);
    if e.pointer().is_empty() {
        err
    } else {
        err.at(e.pointer())
    }
}

/// One protocol version the core has loaded; `shown` gives the path
/// named in messages for each of its files (the manifest included).
pub fn from_source(source: &ProtocolSource, shown: &dyn Fn(&str) -> String) -> Result<Protocol> {
    let mpath = shown(MANIFEST_FILE);
    let mut files = Vec::new();
    for (index, name) in source.manifest.schemas.iter().enumerate() {
        let Some(json) = source.files.get(name) else {
            return Err(Error::new(
                ErrorKind::Manifest,
                format!("schema file `{name}` is missing"),
            )
            .in_file(&mpath)
            .at(format!("/schemas/{index}")));
        };
        files.push(SchemaFile {
            name: name.clone(),
            display: shown(name),
            json: json.clone(),
        });
    }
    let bundle = Bundle::from_core(source.bundle(), &files);
    assemble(
        source.manifest.clone(),
        source.manifest_json.clone(),
        mpath,
        files,
        bundle,
    )
}

/// One protocol version's folder (its `protocol.json` and the schema files
/// it lists), loaded through the core's [`Registry`] as `load_all` loads
/// `schemas/`, wherever the folder lies; `root` is stripped from paths in
/// messages.
pub fn load(dir: &Path, root: &Path) -> Result<Protocol> {
    let shown_dir = display(dir, root);
    let located = |e: ProtocolError| {
        let file = e.file().rsplit('/').next().unwrap_or_default().to_owned();
        let err = Error::new(ErrorKind::Manifest, e.message().to_string())
            .in_file(format!("{shown_dir}/{file}"));
        if e.pointer().is_empty() {
            err
        } else {
            err.at(e.pointer())
        }
    };
    let mut source = ProtocolSource::from_dir(dir, &shown_dir).map_err(located)?;
    // The registry files a version under `<protocol>/<version>`: the folder
    // it was read from need not be laid out so.
    source.origin = source.id().replace('@', "/");
    let mut registry = Registry::default();
    registry.insert(source).map_err(located)?;
    let source = registry
        .iter()
        .next()
        .ok_or_else(|| Error::new(ErrorKind::Manifest, "no protocol loaded").in_file(&shown_dir))?;
    from_source(source, &|name| format!("{shown_dir}/{name}"))
}

fn display(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// A protocol of `files` alone, with no methods: for fixtures and for
/// schema sets that are not protocols. It is loaded through the core's
/// [`Registry`] like any protocol, with a manifest that lists the files.
pub fn from_files(name: &str, files: Vec<SchemaFile>) -> Result<Protocol> {
    let manifest_json = schema_set_manifest(name, files.iter().map(|f| f.name.clone()).collect());
    let origin = format!("{name}/0.0.0");
    let set: SchemaFiles = files
        .iter()
        .map(|f| (f.name.clone(), f.json.clone()))
        .collect();
    let mut registry = Registry::default();
    ProtocolSource::new(&origin, manifest_json, set)
        .and_then(|source| registry.insert(source))
        .map_err(|e| crate::bundle::located(e, &files, &origin))?;
    let source = registry
        .iter()
        .next()
        .ok_or_else(|| Error::new(ErrorKind::Manifest, "no protocol loaded").in_file(name))?;
    from_source(source, &|file| {
        files
            .iter()
            .find(|f| f.name == file)
            .map_or_else(|| format!("{name}/{file}"), |f| f.display.clone())
    })
}

/// The manifest of a bare schema set (its files, no methods, the default
/// transport), as JSON for the core to read.
pub fn schema_set_manifest(name: &str, schemas: Vec<String>) -> Value {
    let framing = wirekit::framing::Framing::Ndjson;
    serde_json::json!({
        "protocol": name,
        "version": "0.0.0",
        "transport": {
            "framing": framing.to_string(),
            "envelope": wirekit::envelope::Dialect::JsonRpc2.as_str(),
            "max_frame_bytes": framing.default_limits().max_frame_bytes,
        },
        "schemas": schemas,
        "methods": {},
    })
}

fn assemble(
    manifest: Manifest,
    manifest_json: Value,
    mpath: String,
    files: Vec<SchemaFile>,
    bundle: Bundle,
) -> Result<Protocol> {
    let name = manifest.protocol.clone();
    let version = manifest.version.clone();
    let title = if manifest.title.is_empty() {
        name.clone()
    } else {
        manifest.title.clone()
    };
    let description = Some(manifest.description.clone()).filter(|d| !d.is_empty());
    let methods = methods(&manifest, &mpath, &bundle)?;
    for (reference, at) in [
        (&manifest.error_data, "/error_data/$ref"),
        (&manifest.error_object, "/error_object/$ref"),
    ] {
        if let Some(r) = reference {
            bundle
                .entry(&r.reference)
                .map_err(|e| e.in_file(&mpath).at(at))?;
        }
    }
    let model = Model::new(&bundle)?;
    Ok(Protocol {
        module: naming::snake(&name),
        name,
        version,
        title,
        description,
        manifest,
        manifest_json,
        files,
        bundle,
        model,
        methods,
        manifest_path: mpath,
    })
}

fn methods(manifest: &Manifest, mpath: &str, bundle: &Bundle) -> Result<Vec<Method>> {
    let mut out = Vec::new();
    for (name, spec) in &manifest.methods {
        let ptr = format!("/methods/{}", escape_pointer(name));
        let type_of = |reference: &Option<SchemaRef>, key: &str| -> Result<Option<String>> {
            reference
                .as_ref()
                .map(|r| {
                    bundle
                        .entry(&r.reference)
                        .map_err(|e| e.in_file(mpath).at(format!("{ptr}/{key}/$ref")))
                })
                .transpose()
        };
        out.push(Method {
            name: name.clone(),
            params: type_of(&spec.params, "params")?,
            result: type_of(&spec.result, "result")?,
            result_stream: type_of(&spec.result_stream, "result_stream")?,
            partial_result: type_of(&spec.partial_result, "partial_result")?,
            registration_options: type_of(&spec.registration_options, "registration_options")?,
            error_data: type_of(&spec.error_data, "error_data")?,
            spec: spec.clone(),
        });
    }
    Ok(out)
}
