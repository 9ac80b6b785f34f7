//! The derived protocol folders: every `schemas/<protocol>/<version>/meta/derive.json`
//! names an upstream source outside the repository and how its schema file
//! and manifest are written from it.
//!
//! The recipe's `from` says which derivation reads it: absent, a meta model
//! ([`crate::metamodel`], LSP's `metaModel.json`); `"json-schema"`, a
//! published JSON Schema ([`crate::upstream`], MCP's `schema.json`). Where
//! the source is absent (a clone without `../shared`), the committed derived
//! files are kept as they are and [`missing_sources`] says so in one line.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::metamodel::{DERIVE_FILE, META_DIR};
use crate::{metamodel, upstream, GeneratedFile};

/// One recipe, read: which derivation, and the files it names.
enum Recipe {
    MetaModel(metamodel::Recipe),
    JsonSchema(upstream::Recipe),
}

impl Recipe {
    /// The upstream source, relative to the repository root.
    fn source(&self) -> &str {
        match self {
            Recipe::MetaModel(r) => &r.model,
            Recipe::JsonSchema(r) => &r.schema,
        }
    }

    /// The derived schema file and manifest, beside the version's folder.
    fn outputs(&self) -> [&str; 2] {
        match self {
            Recipe::MetaModel(r) => [&r.output, &r.manifest_output],
            Recipe::JsonSchema(r) => [&r.output, &r.manifest_output],
        }
    }

    fn derive(&self, source: &Value) -> Result<(Value, Value)> {
        match self {
            Recipe::MetaModel(r) => metamodel::derive(r, source),
            Recipe::JsonSchema(r) => upstream::derive(r, source),
        }
    }
}

/// The upstream sources a checkout lacks: one line each, for `wirekit
/// generate` to print; their derived files are kept as committed.
pub fn missing_sources(root: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for recipe_path in recipes(&root.join("schemas"))? {
        let recipe = read_recipe(root, &recipe_path)?;
        let source = root.join(recipe.source());
        if !source.is_file() {
            let [schema, manifest] = recipe.outputs();
            out.push(format!(
                "{} is absent (the upstream source, outside the repository); keeping the committed {schema} and {manifest} of {}",
                display(root, &source),
                display(root, recipe_path.parent().and_then(Path::parent).unwrap_or(root)),
            ));
        }
    }
    Ok(out)
}

/// Every derived file under `root/schemas` (a schema file and a manifest a
/// recipe); where the source is absent, the committed files as they are.
pub fn derive_all(root: &Path) -> Result<Vec<GeneratedFile>> {
    derive_protocol(root, None)
}

/// [`derive_all`] for the recipes of one protocol (`schemas/<protocol>/*/`),
/// or of every one when `protocol` is `None`: `generate --protocol P` derives
/// P's folders before it loads them.
pub fn derive_protocol(root: &Path, protocol: Option<&str>) -> Result<Vec<GeneratedFile>> {
    derive_in(root, &root.join("schemas"), protocol)
}

/// [`derive_protocol`] for the protocols folder `schemas` of a project of
/// one's own whose recipes name their sources relative to `root` (the
/// folder of its `wirekit.toml`); paths in the result are relative to `root`.
pub fn derive_in(
    root: &Path,
    schemas: &Path,
    protocol: Option<&str>,
) -> Result<Vec<GeneratedFile>> {
    let mut out = Vec::new();
    for recipe_path in recipes(schemas)? {
        if let Some(name) = protocol {
            if !recipe_path.starts_with(schemas.join(name)) {
                continue;
            }
        }
        let version_dir = recipe_path
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| Error::new(ErrorKind::Io, "a recipe outside a version folder"))?;
        let recipe = read_recipe(root, &recipe_path)?;
        let relative = |name: &str| {
            version_dir
                .join(name)
                .strip_prefix(root)
                .map(Path::to_path_buf)
                .unwrap_or_else(|_| PathBuf::from(name))
        };
        let source_path = root.join(recipe.source());
        if !source_path.is_file() {
            for name in recipe.outputs() {
                let path = version_dir.join(name);
                let contents = std::fs::read_to_string(&path).map_err(|e| {
                    Error::new(ErrorKind::Io, format!("cannot read: {e}"))
                        .in_file(display(root, &path))
                })?;
                out.push(GeneratedFile {
                    path: relative(name),
                    contents,
                });
            }
            continue;
        }
        let source = read_json(&source_path).map_err(|e| e.in_file(display(root, &source_path)))?;
        let (schema, manifest) = recipe
            .derive(&source)
            .map_err(|e| e.in_file(display(root, &source_path)))?;
        for (name, value) in recipe.outputs().into_iter().zip([schema, manifest]) {
            let mut text = serde_json::to_string_pretty(&value)
                .map_err(|e| Error::new(ErrorKind::Json, e.to_string()))?;
            text.push('\n');
            out.push(GeneratedFile {
                path: relative(name),
                contents: text,
            });
        }
    }
    Ok(out)
}

fn read_recipe(root: &Path, recipe_path: &Path) -> Result<Recipe> {
    let parse = |v: Value| -> Result<Recipe> {
        let manifest_error = |e: serde_json::Error| Error::new(ErrorKind::Manifest, e.to_string());
        match v.get("from").and_then(Value::as_str) {
            None => Ok(Recipe::MetaModel(
                serde_json::from_value(v).map_err(manifest_error)?,
            )),
            Some(upstream::FROM) => Ok(Recipe::JsonSchema(
                serde_json::from_value(v).map_err(manifest_error)?,
            )),
            Some(other) => Err(Error::new(
                ErrorKind::Manifest,
                format!(
                    "`from` is {other:?}; a recipe derives from a meta model (no `from`) or from {:?}",
                    upstream::FROM
                ),
            )),
        }
    };
    read_json(recipe_path)
        .and_then(parse)
        .map_err(|e| e.in_file(display(root, recipe_path)))
}

/// Every `schemas/<protocol>/<version>/meta/derive.json`, sorted.
fn recipes(schemas: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let Ok(protocols) = std::fs::read_dir(schemas) else {
        return Ok(found);
    };
    for protocol in protocols.flatten() {
        let Ok(versions) = std::fs::read_dir(protocol.path()) else {
            continue;
        };
        for version in versions.flatten() {
            let candidate = version.path().join(META_DIR).join(DERIVE_FILE);
            if candidate.is_file() {
                found.push(candidate);
            }
        }
    }
    found.sort();
    Ok(found)
}

fn read_json(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::new(ErrorKind::Io, format!("cannot read: {e}")))?;
    serde_json::from_str(&text).map_err(|e| Error::new(ErrorKind::Json, e.to_string()))
}

fn display(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}
