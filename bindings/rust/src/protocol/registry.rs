//! Finding protocols: a folder laid out as `schemas/<protocol>/<version>/`,
//! or the same files as `(path, text)` pairs embedded in a program (the
//! `wirekit-protocols` crate embeds this repository's `schemas/` that way).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::bundle::{bundle, Bundle, SchemaFiles};
use super::error::{ProtocolError, ProtocolErrorKind};
use super::manifest::Manifest;
use super::resources::Resources;

/// The name of a version's manifest file.
pub const MANIFEST_FILE: &str = "protocol.json";

/// One protocol version as written: its manifest, its schema files and
/// their bundle.
#[derive(Debug, Clone)]
pub struct ProtocolSource {
    /// The manifest.
    pub manifest: Manifest,
    /// The manifest as JSON, as written.
    pub manifest_json: Value,
    /// `<protocol>/<version>`: where the files live below `schemas/`.
    pub origin: String,
    /// The schema files by name.
    pub files: SchemaFiles,
    bundle: Bundle,
    bundled: Value,
}

impl ProtocolSource {
    /// Builds a source from a manifest and its schema files (by name).
    pub fn new(
        origin: &str,
        manifest_json: Value,
        files: SchemaFiles,
    ) -> Result<Self, ProtocolError> {
        let manifest_file = format!("{origin}/{MANIFEST_FILE}");
        let manifest: Manifest =
            serde_path_to_error::deserialize(manifest_json.clone()).map_err(|error| {
                // The place serde stopped at (an unknown member's own), as a JSON pointer.
                let pointer = super::pointer::from_serde_path(error.path());
                let message = error.inner().to_string();
                ProtocolError::new(
                    ProtocolErrorKind::BadManifest,
                    &manifest_file,
                    pointer,
                    message,
                )
            })?;
        for (index, name) in manifest.schemas.iter().enumerate() {
            inside_folder(name, &manifest_file, index)?;
            if !files.contains_key(name) {
                return Err(ProtocolError::new(
                    ProtocolErrorKind::MissingSchemaFile,
                    &manifest_file,
                    format!("/schemas/{index}"),
                    format!("schema file `{name}` is listed but not present"),
                ));
            }
        }
        let bundle = {
            let resources = resources(origin, &manifest, &files)?;
            bundle(&resources, &entry_refs(&manifest))?
        };
        let bundled = bundle.to_schema();
        Ok(ProtocolSource {
            manifest,
            manifest_json,
            origin: origin.to_owned(),
            files,
            bundle,
            bundled,
        })
    }

    /// Reads `<dir>/protocol.json` and the schema files it lists (every other
    /// `*.json` of the folder when it lists none).
    pub fn from_dir(dir: &Path, origin: &str) -> Result<Self, ProtocolError> {
        let manifest_json = read_json(
            &dir.join(MANIFEST_FILE),
            &format!("{origin}/{MANIFEST_FILE}"),
        )?;
        let listed: Option<Vec<String>> = manifest_json
            .get("schemas")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            });
        let names = match listed {
            Some(names) => names,
            None => json_files(dir, origin)?
                .into_iter()
                .filter(|name| name != MANIFEST_FILE)
                .collect(),
        };
        let mut files = SchemaFiles::new();
        let manifest_file = format!("{origin}/{MANIFEST_FILE}");
        let folder = dir.canonicalize().map_err(|error| {
            ProtocolError::new(ProtocolErrorKind::Io, &manifest_file, "", error.to_string())
        })?;
        for (index, name) in names.into_iter().enumerate() {
            inside_folder(&name, &manifest_file, index)?;
            let path = dir.join(&name);
            // A symbolic link may still lead out of the folder: where the file really is counts.
            if let Ok(real) = path.canonicalize() {
                if !real.starts_with(&folder) {
                    return Err(ProtocolError::new(
                        ProtocolErrorKind::OutsideFolder,
                        &manifest_file,
                        format!("/schemas/{index}"),
                        format!(
                            "schema file `{name}` leads out of the protocol's folder (to {}); a protocol reads only files inside its own folder",
                            real.display()
                        ),
                    ));
                }
            }
            if path.is_file() {
                let value = read_json(&path, &format!("{origin}/{name}"))?;
                files.insert(name, value);
            }
        }
        ProtocolSource::new(origin, manifest_json, files)
    }

    /// Every type of every schema file under one `$defs`, every reference
    /// local (`#/$defs/Name`): [`ProtocolSource::bundle`] as one document.
    pub fn bundled_schema(&self) -> &Value {
        &self.bundled
    }

    /// Every type of the schema files with where each came from, the type
    /// each manifest reference names, and which types the bundle cannot
    /// render exactly (see [`super::bundle`]).
    pub fn bundle(&self) -> &Bundle {
        &self.bundle
    }

    /// The schema files as JSON Schema resources, for resolving and
    /// compiling validators (see [`super::resources`]).
    pub fn resources(&self) -> Result<Resources<'_>, ProtocolError> {
        resources(&self.origin, &self.manifest, &self.files)
    }

    /// `name@version`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.manifest.protocol, self.manifest.version)
    }
}

fn resources<'a>(
    origin: &'a str,
    manifest: &Manifest,
    files: &'a SchemaFiles,
) -> Result<Resources<'a>, ProtocolError> {
    let settings = &manifest.json_schema;
    Resources::new(
        origin,
        settings,
        &settings.base_uri(&manifest.protocol, &manifest.version),
        files,
    )
}

/// The references written in the manifest (params, results, streamed
/// items, partial results, registration options, error schemas, value
/// sets' enumerations), each with its pointer in the manifest: each
/// one's target is a type of the bundle.
pub fn entry_refs(manifest: &Manifest) -> Vec<(&str, String)> {
    let methods = manifest.methods.iter().flat_map(|(name, method)| {
        let name = super::bundle::escape_pointer(name);
        [
            (&method.params, "params"),
            (&method.result, "result"),
            (&method.result_stream, "result_stream"),
            (&method.partial_result, "partial_result"),
            (&method.registration_options, "registration_options"),
            (&method.error_data, "error_data"),
        ]
        .into_iter()
        .filter_map(move |(reference, part)| {
            let reference = reference.as_ref()?;
            Some((
                reference.reference.as_str(),
                format!("/methods/{name}/{part}/$ref"),
            ))
        })
    });
    let errors = [
        (&manifest.error_data, "/error_data/$ref"),
        (&manifest.error_object, "/error_object/$ref"),
    ]
    .into_iter()
    .filter_map(|(reference, at)| Some((reference.as_ref()?.reference.as_str(), at.to_owned())));
    let value_sets = manifest.value_sets.iter().enumerate().map(|(index, set)| {
        (
            set.schema.reference.as_str(),
            format!("/value_sets/{index}/schema/$ref"),
        )
    });
    methods.chain(errors).chain(value_sets).collect()
}

/// Refuses a schema file name that leaves the protocol's folder: an
/// absolute path, a `..` part, a Windows drive or a backslash. A protocol
/// folder from someone else must not make wirekit read any other file.
fn inside_folder(name: &str, manifest_file: &str, index: usize) -> Result<(), ProtocolError> {
    let refused = name.is_empty()
        || name.starts_with('/')
        || name.contains('\\')
        || name.contains(':')
        || name.split('/').any(|part| part == ".." || part.is_empty());
    if refused {
        return Err(ProtocolError::new(
            ProtocolErrorKind::OutsideFolder,
            manifest_file,
            format!("/schemas/{index}"),
            format!(
                "schema file `{name}` is not a path inside the protocol's folder (relative, `/`-separated, no `..`)"
            ),
        ));
    }
    Ok(())
}

/// A set of protocols, each with one or more versions.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    protocols: BTreeMap<String, Vec<ProtocolSource>>,
}

impl Registry {
    /// Loads every `<protocol>/<version>/protocol.json` below `root`.
    pub fn from_dir(root: &Path) -> Result<Self, ProtocolError> {
        let mut registry = Registry::default();
        for protocol in subdirs(root)? {
            for version in subdirs(&root.join(&protocol))? {
                let dir = root.join(&protocol).join(&version);
                if dir.join(MANIFEST_FILE).is_file() {
                    let origin = format!("{protocol}/{version}");
                    registry.insert(ProtocolSource::from_dir(&dir, &origin)?)?;
                }
            }
        }
        Ok(registry)
    }

    /// Loads protocols from `(path, text)` pairs, each path relative to a
    /// `schemas/` folder (`<protocol>/<version>/<file>.json`); files at other
    /// depths are ignored, and a manifest that lists its schema files keeps
    /// only those. This is how a program embeds protocols with
    /// `include_str!`, without the files at run time.
    pub fn from_files<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, ProtocolError> {
        let mut grouped: BTreeMap<String, (Option<Value>, SchemaFiles)> = BTreeMap::new();
        for (path, text) in files {
            let Some((origin, name)) = path.rsplit_once('/') else {
                continue;
            };
            if origin.split('/').count() != 2 {
                continue;
            }
            let value: Value = serde_json::from_str(text).map_err(|error| {
                ProtocolError::new(ProtocolErrorKind::NotJson, path, "", error.to_string())
            })?;
            let entry = grouped.entry(origin.to_owned()).or_default();
            if name == MANIFEST_FILE {
                entry.0 = Some(value);
            } else {
                entry.1.insert(name.to_owned(), value);
            }
        }
        let mut registry = Registry::default();
        for (origin, (manifest, mut files)) in grouped {
            let Some(manifest) = manifest else { continue };
            if let Some(listed) = manifest.get("schemas").and_then(Value::as_array) {
                let listed: Vec<&str> = listed.iter().filter_map(Value::as_str).collect();
                files.retain(|name, _| listed.contains(&name.as_str()));
            }
            registry.insert(ProtocolSource::new(&origin, manifest, files)?)?;
        }
        Ok(registry)
    }

    /// Adds a protocol version; its folder names must match its manifest.
    pub fn insert(&mut self, source: ProtocolSource) -> Result<(), ProtocolError> {
        let expected = format!("{}/{}", source.manifest.protocol, source.manifest.version);
        if source.origin != expected {
            return Err(ProtocolError::new(
                ProtocolErrorKind::BadManifest,
                format!("{}/{MANIFEST_FILE}", source.origin),
                "/protocol",
                format!(
                    "the manifest says `{expected}` but lives in `{}`",
                    source.origin
                ),
            ));
        }
        let versions = self
            .protocols
            .entry(source.manifest.protocol.clone())
            .or_default();
        versions.push(source);
        versions.sort_by(|a, b| compare_versions(&a.manifest.version, &b.manifest.version));
        Ok(())
    }

    /// Finds `name` (its newest version) or `name@version`.
    pub fn get(&self, spec: &str) -> Result<&ProtocolSource, ProtocolError> {
        let (name, version) = match spec.split_once('@') {
            Some((name, version)) => (name, Some(version)),
            None => (spec, None),
        };
        let not_found =
            |message: String| ProtocolError::new(ProtocolErrorKind::NotFound, spec, "", message);
        let versions = self.protocols.get(name).ok_or_else(|| {
            let known: Vec<&str> = self.protocols.keys().map(String::as_str).collect();
            not_found(format!("no protocol `{name}`; known: {}", known.join(", ")))
        })?;
        match version {
            None => versions
                .last()
                .ok_or_else(|| not_found(format!("protocol `{name}` has no version"))),
            Some(version) => versions
                .iter()
                .find(|s| s.manifest.version == version)
                .ok_or_else(|| {
                    let known: Vec<&str> = versions
                        .iter()
                        .map(|s| s.manifest.version.as_str())
                        .collect();
                    not_found(format!(
                        "protocol `{name}` has no version `{version}`; known: {}",
                        known.join(", ")
                    ))
                }),
        }
    }

    /// Every protocol version, by name then version.
    pub fn iter(&self) -> impl Iterator<Item = &ProtocolSource> {
        self.protocols.values().flatten()
    }

    /// Every protocol name.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.protocols.keys().map(String::as_str)
    }
}

/// A version as a peer writes it in a message: a string as it is, or a
/// JSON number as its decimal text (`"protocolVersion": 1` is version
/// `"1"`); `None` for anything else.
pub fn version_text(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::String(text) => Some(text.clone()),
        serde_json::Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// Orders versions by their dot-separated parts, numerically where both are numbers.
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    let mut left = a.split('.');
    let mut right = b.split('.');
    loop {
        match (left.next(), right.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let order = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(x), Ok(y)) => x.cmp(&y),
                    _ => x.cmp(y),
                };
                if order != Ordering::Equal {
                    return order;
                }
            }
        }
    }
}

fn read_json(path: &Path, shown: &str) -> Result<Value, ProtocolError> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| ProtocolError::new(ProtocolErrorKind::Io, shown, "", error.to_string()))?;
    serde_json::from_str(&text).map_err(|error| {
        ProtocolError::new(ProtocolErrorKind::NotJson, shown, "", error.to_string())
    })
}

fn entries(dir: &Path) -> Result<Vec<(String, bool)>, ProtocolError> {
    let shown = dir.display().to_string();
    let reader = std::fs::read_dir(dir).map_err(|error| {
        ProtocolError::new(ProtocolErrorKind::Io, &shown, "", error.to_string())
    })?;
    let mut names = Vec::new();
    for entry in reader {
        let entry = entry.map_err(|error| {
            ProtocolError::new(ProtocolErrorKind::Io, &shown, "", error.to_string())
        })?;
        if let Some(name) = entry.file_name().to_str() {
            names.push((name.to_owned(), entry.path().is_dir()));
        }
    }
    names.sort();
    Ok(names)
}

fn subdirs(dir: &Path) -> Result<Vec<String>, ProtocolError> {
    Ok(entries(dir)?
        .into_iter()
        .filter(|(_, is_dir)| *is_dir)
        .map(|(name, _)| name)
        .collect())
}

fn json_files(dir: &Path, _origin: &str) -> Result<Vec<String>, ProtocolError> {
    Ok(entries(dir)?
        .into_iter()
        .filter(|(name, is_dir)| !is_dir && name.ends_with(".json"))
        .map(|(name, _)| name)
        .collect())
}
