//! Protocol schemas derived from a machine-readable meta model (LSP's
//! `metaModel.json`), so that a protocol as large as LSP is never typed by
//! hand.
//!
//! A protocol version that keeps `meta/derive.json` beside its manifest gets
//! its message schema file and its manifest written by `wirekit generate`
//! from the meta model the recipe names (outside the repository: its
//! documentation stays out of committed files). The schema holds every
//! structure, enumeration and alias of the model, plus a named type for each
//! method's result, partial result and registration options that is not
//! simply a named type; structures are flattened (`extends` and `mixins`
//! inlined), objects open (LSP peers ignore unknown members), optional
//! members not required, `or` as `anyOf`, `and` as one merged object,
//! `tuple` as `prefixItems`. The manifest is the recipe's `manifest` with
//! every request and notification of the model as a method (direction from
//! `messageDirection`), the recipe's `method_defaults` and per-method
//! `methods` members on top. `opaque` replaces a type by a fixed schema,
//! `closed_enums` lists the enumerations whose values are a closed set (the
//! others admit any value of their base type, as LSP asks peers to tolerate
//! unknown kinds). Both files carry the do-not-edit line as their
//! `$comment`, and the drift check covers them. Where the model is absent
//! (a clone without `../shared`), the committed files are kept as they are
//! and [`missing_models`] says so.

mod convert;

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::GeneratedFile;

/// The folder, beside a manifest, that holds the meta model and its recipe.
pub const META_DIR: &str = "meta";
/// The recipe file.
pub const DERIVE_FILE: &str = "derive.json";

/// How one schema file and its manifest are derived (`meta/derive.json`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// Free text for people reading the recipe.
    #[serde(rename = "$comment", default)]
    pub comment: String,
    /// The meta model, relative to the repository root (it is not copied
    /// into the project: `../shared/upstream/lsp/metaModel.json`).
    pub model: String,
    /// The schema file written beside the manifest.
    pub output: String,
    /// Its `$id`.
    pub id: String,
    /// Its root title.
    pub title: String,
    /// Its root description.
    pub description: String,
    /// The manifest written beside the schema file (`protocol.json`),
    /// from `manifest` with every method of the model added.
    pub manifest_output: String,
    /// Every member of the manifest that the model does not give (title,
    /// transport, capabilities, errors, lifecycle, ...), written as is.
    pub manifest: Map<String, Value>,
    /// What a derived method gets by its direction (`client-to-server`,
    /// `server-to-client`, `both`): `lifecycle`, and `timeout_ms` for
    /// requests.
    #[serde(default)]
    pub method_defaults: Map<String, Value>,
    /// Method name → manifest members that replace or add to the derived
    /// ones (`description`, `capability`, `lifecycle`, `timeout_ms`, ...),
    /// and `result`: the `$defs` name of a result that is not simply a
    /// named type.
    #[serde(default)]
    pub methods: Map<String, Value>,
    /// The `$defs` name of the params of methods that take none (the
    /// meta model gives them no params type); any empty value is allowed.
    pub no_params: String,
    /// Structure name → the only members kept.
    #[serde(default)]
    pub keep_members: Map<String, Value>,
    /// Type name → the schema used instead of the meta model's.
    #[serde(default)]
    pub opaque: Map<String, Value>,
    /// Whether an optional member may also be `null` (read as absent), as
    /// real servers send it (pylsp's `containerName: null`).
    #[serde(default)]
    pub optional_null: bool,
    /// Enumerations whose values form a closed set.
    #[serde(default)]
    pub closed_enums: Vec<String>,
}

/// The meta models a checkout lacks: one line each, for `wirekit generate`
/// to print; their derived files are kept as committed.
pub fn missing_models(root: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for recipe_path in recipes(&root.join("schemas"))? {
        let recipe = read_recipe(root, &recipe_path)?;
        let model_path = root.join(&recipe.model);
        if !model_path.is_file() {
            out.push(format!(
                "{} is absent (the upstream meta model, outside the repository); keeping the committed {} and {} of {}",
                display(root, &model_path),
                recipe.output,
                recipe.manifest_output,
                display(root, recipe_path.parent().and_then(Path::parent).unwrap_or(root)),
            ));
        }
    }
    Ok(out)
}

/// Every derived file under `root/schemas` (a schema file and a manifest a
/// recipe); where the meta model is absent, the committed files as they are.
pub fn derive_all(root: &Path) -> Result<Vec<GeneratedFile>> {
    let mut out = Vec::new();
    for recipe_path in recipes(&root.join("schemas"))? {
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
        let model_path = root.join(&recipe.model);
        if !model_path.is_file() {
            for name in [&recipe.output, &recipe.manifest_output] {
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
        let model = read_json(&model_path).map_err(|e| e.in_file(display(root, &model_path)))?;
        let (schema, manifest) =
            convert::derive(&recipe, &model).map_err(|e| e.in_file(display(root, &model_path)))?;
        for (name, value) in [
            (&recipe.output, schema),
            (&recipe.manifest_output, manifest),
        ] {
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
    read_json(recipe_path)
        .and_then(|v| {
            serde_json::from_value(v).map_err(|e| Error::new(ErrorKind::Manifest, e.to_string()))
        })
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
