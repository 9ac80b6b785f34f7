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
//! and [`crate::derive::missing_sources`] says so.

mod convert;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::Result;

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
    /// Enumerations without `supportsCustomValues` that stay open anyway
    /// (the others are closed: their values are the model's).
    #[serde(default)]
    pub open_enums: Vec<String>,
}

/// The schema document and manifest `recipe` derives from the meta model
/// `model`.
pub fn derive(recipe: &Recipe, model: &Value) -> Result<(Value, Value)> {
    convert::derive(recipe, model)
}
