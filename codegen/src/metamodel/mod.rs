//! Protocol schemas derived from a machine-readable meta model (LSP's
//! `metaModel.json`), so that a protocol as large as LSP is never typed by
//! hand.
//!
//! A protocol version that keeps `meta/derive.json` beside its manifest gets
//! its message schema file written from `meta/metaModel.json` by
//! `wirekit generate`: the closure of the listed methods' params and results
//! (plus `extra` types), every structure flattened (`extends` and `mixins`
//! inlined), every object open (LSP peers ignore unknown members), optional
//! members not required, `or` as `anyOf`, aliases and enumerations as named
//! `$defs`. `keep_members` trims the capability structures to what the
//! subset uses (the rest stay allowed, as unknown members), `opaque` replaces
//! a type by a fixed schema, `closed_enums` lists the enumerations whose
//! values are a closed set (the others admit any value of their base type,
//! as LSP asks peers to tolerate unknown kinds). The derived file carries
//! the do-not-edit line as its `$comment`, and the drift check covers it.

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
/// The meta model file.
pub const MODEL_FILE: &str = "metaModel.json";

/// How one schema file is derived (`meta/derive.json`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// Free text for people reading the recipe.
    #[serde(rename = "$comment", default)]
    pub comment: String,
    /// The schema file written beside the manifest.
    pub output: String,
    /// Its `$id`.
    pub id: String,
    /// Its root title.
    pub title: String,
    /// Its root description.
    pub description: String,
    /// The methods whose params and results are derived.
    pub methods: Vec<MethodRecipe>,
    /// The `$defs` name of the params of methods that take none (the
    /// meta model gives them no params type); any value is allowed.
    #[serde(default)]
    pub no_params: Option<String>,
    /// More types to derive although no listed method reaches them.
    #[serde(default)]
    pub extra: Vec<String>,
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

/// One method of a recipe.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodRecipe {
    /// The method name, as in the meta model.
    pub method: String,
    /// The `$defs` name of its result, when the result is not simply a
    /// named type.
    #[serde(default)]
    pub result: Option<String>,
}

/// Every derived schema file under `root/schemas`.
pub fn derive_all(root: &Path) -> Result<Vec<GeneratedFile>> {
    let mut out = Vec::new();
    for recipe_path in recipes(&root.join("schemas"))? {
        let version_dir = recipe_path
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| Error::new(ErrorKind::Io, "a recipe outside a version folder"))?;
        let recipe: Recipe = read_json(&recipe_path)
            .and_then(|v| {
                serde_json::from_value(v)
                    .map_err(|e| Error::new(ErrorKind::Manifest, e.to_string()))
            })
            .map_err(|e| e.in_file(display(root, &recipe_path)))?;
        let model_path = recipe_path.with_file_name(MODEL_FILE);
        let model = read_json(&model_path).map_err(|e| e.in_file(display(root, &model_path)))?;
        let schema =
            convert::derive(&recipe, &model).map_err(|e| e.in_file(display(root, &model_path)))?;
        let mut text = serde_json::to_string_pretty(&schema)
            .map_err(|e| Error::new(ErrorKind::Json, e.to_string()))?;
        text.push('\n');
        let relative = version_dir
            .join(&recipe.output)
            .strip_prefix(root)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| PathBuf::from(&recipe.output));
        out.push(GeneratedFile {
            path: relative,
            contents: text,
        });
    }
    Ok(out)
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
