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
//! (`definitions` become `$defs`); `title`s and `description`s are the
//! upstream file's own, or with `"docs": "generated"` short lines written
//! here. The manifest is the recipe's `manifest` with one
//! method a member of the upstream request and notification unions
//! (`ClientRequest`, `ServerRequest`, ...): the method name is the
//! constant of the member's `method`, the direction follows the unions it
//! is in (both when it is in a client and a server union), the params are
//! the member's `params` (a reference into it when it is written inline),
//! optional when the member does not require them, absent when it has none.
//! A request's result is, in this order: the recipe's `result` for the
//! method (a type name or a JSON pointer into the upstream file); the type
//! named like the request (`CallToolRequest` → `CallToolResult`); the
//! `result` member of the response envelope paired with it (`CallToolResponse`
//! or `CallToolSuccessResponse`, or the success member of a `CallToolResponse`
//! union: an object whose `result` stands beside `jsonrpc` or `id`); the
//! recipe's `default_result`. Where none applies the derivation fails naming
//! the method. The recipe's `method_defaults` (by direction) and per-method
//! `methods` members go on top. Every union may be left out. The
//! upstream file is first checked against its dialect's metaschema. Where
//! the upstream file is absent, the committed files are kept (see
//! [`crate::derive`]).

mod all_of;
mod convert;
mod methods;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::derived::DocumentRecipe;
use crate::error::Result;

/// The recipe's `from` for this derivation.
pub const FROM: &str = "json-schema";

/// The upstream unions that list a protocol's messages, by sender. Each may
/// be left out: a protocol whose requests all go one way, or that has no
/// notifications, names only the unions it has.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unions {
    /// The client's requests (`ClientRequest`).
    #[serde(default)]
    pub client_requests: Option<String>,
    /// The server's requests (`ServerRequest`).
    #[serde(default)]
    pub server_requests: Option<String>,
    /// The client's notifications (`ClientNotification`).
    #[serde(default)]
    pub client_notifications: Option<String>,
    /// The server's notifications (`ServerNotification`).
    #[serde(default)]
    pub server_notifications: Option<String>,
}

/// Whose words the derived `title`s and `description`s are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Docs {
    /// The upstream file's own (the default: a user deriving their own
    /// published schema keeps their doc comments); a type or member without
    /// one gets a generated line.
    #[default]
    Upstream,
    /// Short lines written by `wirekit generate` (the shipped MCP recipes:
    /// no upstream prose in a committed file).
    Generated,
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
    /// The unions that list the messages (any may be left out).
    #[serde(default)]
    pub unions: Unions,
    /// The result of a request for which nothing else names one (MCP:
    /// `EmptyResult`); without it, such a request is an error naming it.
    #[serde(default)]
    pub default_result: Option<String>,
    /// Whose docs the derived files carry (default: the upstream file's).
    #[serde(default)]
    pub docs: Docs,
    /// Members a derived method gets by its direction (`client-to-server`,
    /// `server-to-client`, `both`); `timeout_ms` only on requests.
    #[serde(default)]
    pub method_defaults: Map<String, Value>,
    /// Method name → manifest members on top of the derived ones, and
    /// `result`: its result, an upstream type name (`Task`) or a JSON
    /// pointer into the upstream file (`#/definitions/GetTaskSuccessResponse/properties/result`).
    #[serde(default)]
    pub methods: Map<String, Value>,
}

/// The derived schema document and manifest of `recipe` from the upstream
/// schema `upstream`.
pub fn derive(recipe: &Recipe, upstream: &Value) -> Result<(Value, Value)> {
    check_against_metaschema(upstream)?;
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

/// Refuses an upstream file its own dialect's metaschema refuses (an
/// `anyOf: []`, a `required` that is no array), naming the pointer:
/// derivation only reads schemas that mean something.
fn check_against_metaschema(upstream: &Value) -> Result<()> {
    use crate::error::{Error, ErrorKind};
    if let Err(error) = jsonschema::meta::validate(upstream) {
        let at = error.instance_path().as_str().to_owned();
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!("the upstream schema is not valid against its metaschema: {error}"),
        )
        .at(if at.is_empty() { "/" } else { &at }));
    }
    Ok(())
}
