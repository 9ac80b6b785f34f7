//! Protocol folders derived from a published JSON Schema (MCP's
//! `schema.json`), so that a protocol whose maintainers publish one is never
//! typed by hand.
//!
//! A version folder whose `meta/derive.json` says `"from": "json-schema"`
//! gets its message schema file and its manifest written by `wirekit
//! generate` from the upstream schema the recipe's `schema` names (a path
//! relative to the repository root, outside the project, so that upstream
//! prose never lands in a committed file). The schema keeps every type of
//! the upstream file, its structure, names and constraints, in draft 2020-12
//! (`definitions` become `$defs`); every `title` and `description` is a short
//! line written here. The manifest is the recipe's `manifest` with one
//! method a member of the upstream request and notification unions
//! (`ClientRequest`, `ServerRequest`, ...): the method name is the
//! constant of the member's `method`, the direction follows the unions it
//! is in (both when it is in a client and a server union), the params are
//! the member's `params` (a reference into it when it is written inline),
//! optional when the member does not require them, and a request's result
//! is the type named like it (`CallToolRequest` → `CallToolResult`), else
//! the recipe's `default_result`. The recipe's `method_defaults` (by
//! direction) and per-method `methods` members go on top. Where the upstream
//! file is absent, the committed files are kept (see [`crate::derive`]).

mod all_of;
mod convert;
mod methods;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::derived::DocumentRecipe;
use crate::error::Result;

/// The recipe's `from` for this derivation.
pub const FROM: &str = "json-schema";

/// The upstream unions that list a protocol's messages, by sender.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unions {
    /// The client's requests (`ClientRequest`).
    pub client_requests: String,
    /// The server's requests (`ServerRequest`).
    pub server_requests: String,
    /// The client's notifications (`ClientNotification`).
    pub client_notifications: String,
    /// The server's notifications (`ServerNotification`).
    pub server_notifications: String,
}

/// How one schema file and its manifest are derived from an upstream JSON
/// Schema (`meta/derive.json` with `"from": "json-schema"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// Free text for people reading the recipe.
    #[serde(rename = "$comment", default)]
    pub comment: String,
    /// Always [`FROM`].
    pub from: String,
    /// The upstream schema, relative to the repository root
    /// (`../shared/upstream/mcp/2025-06-18.schema.json`).
    pub schema: String,
    /// What the generated descriptions call the upstream file
    /// (`the MCP 2025-06-18 schema`).
    pub source_name: String,
    /// The schema file written beside the manifest.
    pub output: String,
    /// Its `$id`.
    pub id: String,
    /// Its root title.
    pub title: String,
    /// Its root description.
    pub description: String,
    /// The manifest written beside the schema file (`protocol.json`).
    pub manifest_output: String,
    /// Every manifest member that the upstream schema does not give,
    /// written as is; a `methods` member (any placeholder) says where the
    /// derived methods go.
    pub manifest: Map<String, Value>,
    /// The unions that list the messages.
    pub unions: Unions,
    /// The result of a request with no type named like it (MCP:
    /// `EmptyResult`).
    pub default_result: String,
    /// Members a derived method gets by its direction (`client-to-server`,
    /// `server-to-client`, `both`); `timeout_ms` only on requests.
    #[serde(default)]
    pub method_defaults: Map<String, Value>,
    /// Method name → manifest members on top of the derived ones, and
    /// `result`: the upstream type name of its result.
    #[serde(default)]
    pub methods: Map<String, Value>,
}

/// The derived schema document and manifest of `recipe` from the upstream
/// schema `upstream`.
pub fn derive(recipe: &Recipe, upstream: &Value) -> Result<(Value, Value)> {
    let defs = convert::definitions(recipe, upstream)?;
    let derived = methods::derive(recipe, upstream, &defs)?;
    let comment = format!(
        "{} Derived from {} ({}) by meta/{}.",
        crate::header("").trim(),
        recipe.source_name,
        recipe.schema,
        crate::metamodel::DERIVE_FILE
    );
    Ok(crate::derived::documents(
        &DocumentRecipe {
            id: &recipe.id,
            title: &recipe.title,
            description: &recipe.description,
            manifest: &recipe.manifest,
        },
        comment,
        defs,
        derived,
    ))
}
