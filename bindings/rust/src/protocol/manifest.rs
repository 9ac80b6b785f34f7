//! The protocol manifest (`protocol.json`): the method table, transport,
//! capabilities, error codes, lifecycle and semantic rules of one protocol
//! version. Its shape is fixed by `schemas/wirekit-protocol.schema.json`;
//! this module is the typed view the core and the code generator read.

use std::collections::BTreeSet;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::answers::ServerErrors;
use super::capabilities::{CapabilitiesSpec, CapabilityOf};
use crate::envelope::{self, Dialect, EnvelopeError, EnvelopeOptions, Message};
use crate::framing::{FrameLimits, Framing};

/// One protocol version's manifest.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The meta-schema the file names for editors (`$schema`); not read.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub meta_schema: Option<String>,
    /// A comment (`$comment`); not read.
    #[serde(rename = "$comment", default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// The protocol's name, equal to its folder in `schemas/`.
    pub protocol: String,
    /// The version, equal to its folder below the protocol's.
    pub version: String,
    /// A short human title.
    #[serde(default)]
    pub title: String,
    /// What the protocol is for.
    #[serde(default)]
    pub description: String,
    /// What the two peers are called (for docs and messages).
    #[serde(default)]
    pub roles: Roles,
    /// Framing, envelope dialect, strictness and frame bound.
    pub transport: Transport,
    /// The schema files of this version, relative to the manifest.
    #[serde(default)]
    pub schemas: Vec<String>,
    /// How the schema files are read as JSON Schema: their dialect, the
    /// URI they are published at, whether `format` asserts.
    #[serde(default, skip_serializing_if = "is_default")]
    pub json_schema: JsonSchemaSettings,
    /// Where the server declares its capabilities, if it does.
    #[serde(default)]
    pub capabilities: Option<CapabilitiesSpec>,
    /// Every method and notification, in declaration order.
    pub methods: IndexMap<String, MethodSpec>,
    /// A method-name prefix the protocol leaves to implementations (LSP's
    /// `$/`): a notification with it that the protocol does not define may
    /// be ignored (a warning in `validate`, never an error), and a request
    /// with it is answered "method not found".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation_dependent_prefix: Option<String>,
    /// The protocol's own error codes.
    #[serde(default)]
    pub errors: Vec<ErrorSpec>,
    /// The schema of `error.data`, if the protocol defines one.
    #[serde(default)]
    pub error_data: Option<SchemaRef>,
    /// The schema of the whole `error` member, if the protocol defines one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_object: Option<SchemaRef>,
    /// How the server shapes the errors it produces itself.
    #[serde(default, skip_serializing_if = "is_default")]
    pub server_errors: ServerErrors,
    /// The session state machine.
    #[serde(default)]
    pub lifecycle: Option<LifecycleSpec>,
    /// How client and server agree on a version.
    #[serde(default)]
    pub version_negotiation: Option<VersionNegotiation>,
    /// How a peer cancels a request it sent, and whether a cancelled
    /// request is still answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancellation: Option<Cancellation>,
    /// How a request's handler reports progress: the token the request
    /// carries, and the notification that reports against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
    /// Where the server declares the protocol version it speaks (Gaze's
    /// `initialize` result `protocol_version`): a monitor reports a
    /// declared version other than this manifest's `version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_version: Option<DeclaredVersion>,
    /// Whether a refusal must carry the protocol's error code, or only the
    /// constant members of its `data` template.
    #[serde(default, skip_serializing_if = "is_default")]
    pub error_codes: ErrorCodes,
    /// Which side each kind of rule binds: whether the receiver must refuse
    /// a message that breaks it, or only the sender must not send one.
    #[serde(default, skip_serializing_if = "is_default")]
    pub enforcement: Enforcement,
    /// How the protocol's versions are written, and so what announces a
    /// breaking change (`diff`): semver's major, or nothing for dates.
    #[serde(default, skip_serializing_if = "is_default")]
    pub version_scheme: VersionScheme,
    /// Semantic rules that JSON Schema cannot express.
    #[serde(default)]
    pub rules: Vec<RuleSpec>,
    /// Enumerations whose values the client announces it supports (LSP's
    /// `symbolKind.valueSet`): what the server sends in the named methods
    /// is held to the announced set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub value_sets: Vec<ValueSet>,
    /// How the protocol's real host drives a server (the order of its
    /// calls, where the project root goes, how long a server has to exit):
    /// what `wirekit conformance` follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<HostSpec>,
}

fn is_server(of: &CapabilityOf) -> bool {
    *of == CapabilityOf::Server
}

/// How the protocol's real host drives a server.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// The requests the real host sends, in its order (an optional method
    /// only when its capability was declared); the method that ends the
    /// session, if listed, comes last.
    #[serde(default)]
    pub sequence: Vec<String>,
    /// The member of a method's params (a JSON pointer) that carries the
    /// project root, for every method whose params have it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_root: Option<String>,
    /// How long a server has to exit once the session has ended (or it
    /// refused the session) and its input is closed, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_grace_ms: Option<u64>,
    /// Where the real host sends SIGTERM to a server still running after
    /// the exit grace (MCP's stdio shutdown): how long it then waits before
    /// SIGKILL, in milliseconds. Absent: SIGKILL right after the grace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminate_grace_ms: Option<u64>,
    /// What the real host does, for the docs.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}

impl HostSpec {
    /// The grace a server has to exit when the manifest gives none.
    pub const DEFAULT_EXIT_GRACE_MS: u64 = 5_000;

    /// How long a server has to exit.
    pub fn exit_grace(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.exit_grace_ms.unwrap_or(Self::DEFAULT_EXIT_GRACE_MS))
    }

    /// How long a server has after SIGTERM, where the host sends it.
    pub fn terminate_grace(&self) -> Option<std::time::Duration> {
        self.terminate_grace_ms
            .map(std::time::Duration::from_millis)
    }
}

/// Which side the protocol's rules bind (the manifest's `enforcement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Enforcement {
    /// Params against their schema.
    #[serde(default)]
    pub params: EnforcedBy,
    /// The lifecycle: a method in a state that does not allow it.
    #[serde(default)]
    pub lifecycle: EnforcedBy,
}

/// Who a rule binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EnforcedBy {
    /// The receiver refuses a message that breaks it, with the protocol's
    /// answer (and the sender must not send one).
    #[default]
    Receiver,
    /// Only the sender: it must not send such a message, and a receiver
    /// that answers it anyway is within the protocol (MCP: "the client
    /// SHOULD NOT send requests other than pings before ..."; LSP leaves
    /// the validation of params to the server).
    Sender,
}

/// How a protocol's versions are written (the manifest's `version_scheme`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VersionScheme {
    /// `MAJOR.MINOR[.PATCH]` (`1.1.0`, LSP's `3.17`): a breaking change
    /// needs a new major version.
    #[default]
    Semver,
    /// A release date (`2025-06-18`, MCP's): no part of the version
    /// announces a breaking change, so `diff` fails on every one.
    Date,
}

/// What a refusal must carry (the manifest's `error_codes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCodes {
    /// The code the protocol gives each refusal (and the constant members
    /// of its `data` template).
    #[default]
    Fixed,
    /// Any code: the protocol fixes only the constant members of each
    /// refusal's `data` template (the driver protocol's `data.class`;
    /// "drivers may answer other failures with other codes").
    Free,
}

/// What the two peers of a protocol are called.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Roles {
    /// The peer that spawns the other and sends the first request.
    pub client: String,
    /// The spawned peer that answers.
    pub server: String,
}

impl Default for Roles {
    fn default() -> Self {
        Roles {
            client: "client".to_owned(),
            server: "server".to_owned(),
        }
    }
}

/// How bytes and envelopes travel.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Transport {
    /// `ndjson` or `content-length`.
    #[serde(with = "display_fromstr")]
    pub framing: Framing,
    /// `jsonrpc-2.0` or `bare`.
    #[serde(with = "display_fromstr")]
    pub envelope: Dialect,
    /// Strict envelopes: duplicate keys, unknown members and trailing data refused.
    #[serde(default)]
    pub strict: bool,
    /// Write envelopes as RFC 8785 canonical JSON (sorted members).
    #[serde(default)]
    pub canonical: bool,
    /// The largest frame body the protocol allows, in bytes; `None` where
    /// it states none (MCP): wirekit then reads and writes at most
    /// [`Transport::UNSTATED_FRAME_BOUND`] bytes a frame, its own bound
    /// (see [`Transport::frame_bound`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_frame_bytes: Option<usize>,
    /// The server handles one request at a time: a client sends a request
    /// only once every earlier one is answered (the server's own requests
    /// and notifications may still come meanwhile).
    #[serde(default, skip_serializing_if = "is_default")]
    pub one_request_at_a_time: bool,
    /// How the server answers a frame whose request id cannot be read.
    #[serde(default, skip_serializing_if = "is_default")]
    pub unreadable_id: UnreadableId,
}

/// How a server answers a frame it refuses whose request id cannot be read
/// (the manifest's `transport.unreadable_id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnreadableId {
    /// JSON-RPC 2.0: an error answer with `"id": null`; the id is echoed
    /// when the envelope decoder read it.
    #[default]
    Null,
    /// No answer, and a line on the server's stderr: a null id cannot be
    /// correlated, and the protocol's reference decoder refuses it (the
    /// AgentAPI driver protocol). The id of a refused frame is recovered
    /// as that reference recovers it ([`crate::envelope::recover_id`]).
    Silent,
}

impl UnreadableId {
    /// The manifest's name (`null`, `silent`).
    pub const fn as_str(self) -> &'static str {
        match self {
            UnreadableId::Null => "null",
            UnreadableId::Silent => "silent",
        }
    }
}

impl Transport {
    /// wirekit's own frame bound where the protocol states none: every
    /// frame is still bounded before it is buffered.
    pub const UNSTATED_FRAME_BOUND: usize = 64 * 1024 * 1024;

    /// The bound every frame is held to: the protocol's, or wirekit's own
    /// where it states none.
    pub fn frame_bound(&self) -> usize {
        self.max_frame_bytes.unwrap_or(Self::UNSTATED_FRAME_BOUND)
    }

    /// Whether the protocol states a frame bound (conformance tests one
    /// only then).
    pub fn states_frame_bound(&self) -> bool {
        self.max_frame_bytes.is_some()
    }

    /// The frame limits of this transport: its framing's defaults with the
    /// protocol's frame bound, and strict NDJSON line endings (a bare CR is a
    /// fault) when the protocol is strict.
    pub fn frame_limits(&self) -> FrameLimits {
        self.framing
            .default_limits()
            .with_max_frame_bytes(self.frame_bound())
            .with_strict_line_endings(self.strict && self.framing == Framing::Ndjson)
    }

    /// How envelopes are read on this transport.
    pub fn envelope_options(&self) -> EnvelopeOptions {
        EnvelopeOptions::new(self.envelope).with_strict(self.strict)
    }

    /// A message's body as this transport writes it: canonical (RFC 8785)
    /// when the protocol says so, else members in their declared order.
    pub fn encode(&self, message: &Message) -> Result<Vec<u8>, EnvelopeError> {
        let options = self.envelope_options();
        if self.canonical {
            envelope::encode_canonical(message, &options)
        } else {
            Ok(envelope::encode(message, &options))
        }
    }
}

/// A request or a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MethodKind {
    /// Expects a response.
    Request,
    /// Expects none.
    Notification,
}

/// Who sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Sent by the client (the spawning peer).
    ClientToServer,
    /// Sent by the server (the spawned peer).
    ServerToClient,
    /// Sent by either peer (`ping`, `$/cancelRequest`, `$/progress`): each
    /// side both sends and receives it.
    Both,
}

impl Direction {
    /// Whether the client sends it (client-to-server or both).
    pub fn client_sends(self) -> bool {
        matches!(self, Direction::ClientToServer | Direction::Both)
    }

    /// Whether the server sends it (server-to-client or both).
    pub fn server_sends(self) -> bool {
        matches!(self, Direction::ServerToClient | Direction::Both)
    }

    /// The manifest's word for it (`client-to-server`, `server-to-client`, `both`).
    pub fn name(self) -> &'static str {
        match self {
            Direction::ClientToServer => "client-to-server",
            Direction::ServerToClient => "server-to-client",
            Direction::Both => "both",
        }
    }
}

/// A `{"$ref": "file.json#/$defs/Name"}` to a schema of this protocol.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SchemaRef {
    /// The reference as written.
    #[serde(rename = "$ref")]
    pub reference: String,
}

impl SchemaRef {
    /// The file part (before `#`); empty for a reference into the manifest itself.
    pub fn file(&self) -> &str {
        self.reference.split('#').next().unwrap_or("")
    }

    /// The JSON pointer part (after `#`), `""` for a whole file.
    pub fn pointer(&self) -> &str {
        self.reference
            .split_once('#')
            .map_or("", |(_, pointer)| pointer)
    }

    /// The type name: the last segment of a `/$defs/Name` pointer.
    pub fn def_name(&self) -> Option<&str> {
        self.pointer()
            .strip_prefix("/$defs/")
            .filter(|name| !name.contains('/'))
    }
}

/// How a protocol's schema files are read as JSON Schema.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct JsonSchemaSettings {
    /// The dialect of every file that declares no `$schema` of its own
    /// (draft 2020-12 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<SchemaDialect>,
    /// The absolute URI the folder is published at (ending in `/`): each
    /// file's retrieval URI is this base joined with its name, and every
    /// reference resolves against it as JSON Schema says. When absent the
    /// folder is based at `https://wirekit.invalid/<protocol>/<version>/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_uri: Option<String>,
    /// Whether `format` is an assertion (`assert`) or, as draft 2020-12
    /// has it by default, an annotation (`annotate`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub formats: FormatMode,
}

impl JsonSchemaSettings {
    /// The dialect of files that declare none.
    pub fn dialect(&self) -> SchemaDialect {
        self.dialect.unwrap_or_default()
    }

    /// The base URI of a protocol's folder: [`JsonSchemaSettings::base_uri`]
    /// when given, else one of its own under `wirekit.invalid` (a reserved
    /// name that nothing resolves).
    pub fn base_uri(&self, protocol: &str, version: &str) -> String {
        match &self.base_uri {
            Some(base) => base.clone(),
            None => format!("https://wirekit.invalid/{protocol}/{version}/"),
        }
    }

    /// Whether `format` asserts.
    pub fn asserts_formats(&self) -> bool {
        self.formats == FormatMode::Assert
    }
}

/// A JSON Schema dialect, named by its meta-schema URI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
pub enum SchemaDialect {
    /// Draft 2020-12 (`https://json-schema.org/draft/2020-12/schema`).
    #[default]
    #[serde(rename = "https://json-schema.org/draft/2020-12/schema")]
    Draft202012,
    /// Draft 2019-09 (`https://json-schema.org/draft/2019-09/schema`).
    #[serde(rename = "https://json-schema.org/draft/2019-09/schema")]
    Draft201909,
    /// Draft 7 (`http://json-schema.org/draft-07/schema#`).
    #[serde(rename = "http://json-schema.org/draft-07/schema#")]
    Draft7,
}

impl SchemaDialect {
    /// The meta-schema URI that names the dialect.
    pub fn uri(self) -> &'static str {
        match self {
            SchemaDialect::Draft202012 => "https://json-schema.org/draft/2020-12/schema",
            SchemaDialect::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
            SchemaDialect::Draft7 => "http://json-schema.org/draft-07/schema#",
        }
    }
}

/// Whether `format` asserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FormatMode {
    /// `format` is an annotation: any string passes (draft 2020-12's default).
    #[default]
    Annotate,
    /// `format` is an assertion: a string of a known format must match it.
    Assert,
}

/// One method or notification.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MethodSpec {
    /// Request or notification.
    pub kind: MethodKind,
    /// Who sends it.
    pub direction: Direction,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// The schema of `params`.
    #[serde(default)]
    pub params: Option<SchemaRef>,
    /// Whether `params` may be absent or null.
    #[serde(default)]
    pub params_optional: bool,
    /// The schema of `result` (requests).
    #[serde(default)]
    pub result: Option<SchemaRef>,
    /// Instead of a result: bare NDJSON items, one a line, then end of stream.
    #[serde(default)]
    pub result_stream: Option<SchemaRef>,
    /// The schema of the values a request's partial results carry (LSP:
    /// the `value` of `$/progress` for the request's `partialResultToken`).
    #[serde(default)]
    pub partial_result: Option<SchemaRef>,
    /// The schema of the options a peer registers the method with
    /// dynamically (LSP: `registerOptions` in `client/registerCapability`).
    #[serde(default)]
    pub registration_options: Option<SchemaRef>,
    /// The schema of `error.data` in this method's own error answers (codes
    /// outside JSON-RPC's reserved -32768 to -32000), instead of the
    /// protocol's `error_data` (LSP's `initialize`: `InitializeError`).
    #[serde(default)]
    pub error_data: Option<SchemaRef>,
    /// The capability that gates an optional method; `None` for a required one.
    #[serde(default)]
    pub capability: Option<String>,
    /// Whose declaration holds [`MethodSpec::capability`]: the server's
    /// (the default) or the client's.
    #[serde(default, skip_serializing_if = "is_server")]
    pub capability_of: CapabilityOf,
    /// How long the client waits for the answer.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// The protocol's errors (names from the manifest's `errors`) this
    /// request may be answered with, besides JSON-RPC's own (-32700,
    /// -32600 to -32603); empty: any code.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Where in the lifecycle the method may come and where it leads.
    #[serde(default)]
    pub lifecycle: Option<MethodLifecycle>,
    /// Worked examples (`title`, `params`, `result`).
    #[serde(default)]
    pub examples: Vec<Value>,
    /// Where a host takes members of the params from an earlier answer
    /// (MCP: `tools/call` names a tool `tools/list` listed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params_from: Vec<ParamsFrom>,
    /// The server's notifications this request makes due once it succeeds
    /// in the host's order (kv: `kv/put` notifies `kv/changed`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notifies: Vec<String>,
}

/// A member of a method's params taken from the last result of another
/// request (`params_from`): the value at `value`, a minimal instance of the
/// JSON Schema at `schema`, or, from an array of `{name, required}` items
/// at `arguments`, an object with a string for each required name.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ParamsFrom {
    /// The request whose last result holds it (`tools/list`).
    pub method: String,
    /// Where it goes in the params (`/name`).
    pub at: String,
    /// A value to copy (`/tools/0/name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A JSON Schema to instantiate (`/tools/0/inputSchema`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Named arguments (`/prompts/0/arguments`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    /// With `schema`: the server checks the member against that schema and
    /// refuses what breaks it so (MCP: a tool's arguments against its
    /// `inputSchema`); `wirekit conformance` sends instances that break it,
    /// for each item of the list the pointer's `0` indexes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused_with: Option<Refusal>,
}

/// How a server refuses a member that breaks a schema of its own
/// (`params_from`'s `refused_with`): with the error `error_code`, or a
/// result whose `result_flag` is `true`; either, where both are given.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Refusal {
    /// The error code that refuses it (`-32602`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<i64>,
    /// A pointer into a result that refuses it when `true` (`/isError`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_flag: Option<String>,
}

impl MethodSpec {
    /// Whether an error answer with `code` is one this request declares
    /// (JSON-RPC's own codes always are; so is every code when it declares
    /// none), given the protocol's named `errors`.
    pub fn declares_error(&self, code: i64, errors: &[ErrorSpec]) -> bool {
        const JSON_RPC: [i64; 5] = [-32700, -32600, -32601, -32602, -32603];
        self.errors.is_empty()
            || JSON_RPC.contains(&code)
            || errors
                .iter()
                .any(|e| e.code == code && self.errors.contains(&e.name))
    }

    /// Whether the method must be implemented by every server.
    pub fn is_required(&self) -> bool {
        self.capability.is_none()
    }

    /// The notification a client sends at once after this method succeeds.
    pub fn followed_by(&self) -> Option<&str> {
        self.lifecycle.as_ref()?.followed_by.as_deref()
    }
}

impl Manifest {
    /// The request a client sends to end the session cleanly: the one whose
    /// success ends it (gzkit's `shutdown`), or the one followed by the
    /// notification that ends it (LSP's `shutdown`, then `exit`).
    pub fn shutdown_request(&self) -> Option<&str> {
        let ends = |spec: &MethodSpec| spec.lifecycle.as_ref().is_some_and(|l| l.ends_session);
        self.methods
            .iter()
            .filter(|(_, s)| s.kind == MethodKind::Request && s.result_stream.is_none())
            .find(|(_, s)| {
                ends(s)
                    || s.followed_by()
                        .and_then(|n| self.methods.get(n))
                        .is_some_and(ends)
            })
            .map(|(name, _)| name.as_str())
    }
}

/// A method's place in the lifecycle.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MethodLifecycle {
    /// The states the method may arrive in; `["*"]` or empty means any.
    #[serde(default)]
    pub allowed_in: Vec<String>,
    /// The state a successful answer (or the notification itself) moves to.
    #[serde(default)]
    pub on_success: Option<String>,
    /// Whether the session ends once the method is answered.
    #[serde(default)]
    pub ends_session: bool,
    /// The server-to-client notification that ends what a successful
    /// answer started (`driver.invoke` is ended by `driver.completed`): a
    /// host follows the server's notifications until it arrives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion: Option<String>,
    /// This method's own answer to a violation, over the protocol's.
    #[serde(default)]
    pub violation: Option<ViolationSpec>,
    /// The client notification a client sends at once after this method
    /// succeeds (LSP: `initialize` is followed by `initialized`, `shutdown`
    /// by `exit`); clients built on the manifest send it themselves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub followed_by: Option<String>,
}

/// The answer to a message sent in the wrong state.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ViolationSpec {
    /// The JSON-RPC error code.
    pub code: i64,
    /// The message, with `{method}`, `{state}` and `{allowed}` filled in.
    pub message: String,
    /// `error.data`, if any.
    #[serde(default)]
    pub data: Option<Value>,
}

/// One protocol-defined error code.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorSpec {
    /// The JSON-RPC code.
    pub code: i64,
    /// Its symbolic name (`VERSION_MISMATCH`).
    pub name: String,
    /// When it is answered.
    #[serde(default)]
    pub description: String,
    /// Whether the server ends the session after answering it.
    #[serde(default)]
    pub ends_session: bool,
}

/// The session state machine.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LifecycleSpec {
    /// The state a session starts in.
    pub initial: String,
    /// Every state with its description.
    pub states: IndexMap<String, String>,
    /// States after which nothing more may be sent.
    #[serde(default)]
    pub terminal: Vec<String>,
    /// The default answer to a method sent in the wrong state.
    pub violation: ViolationSpec,
}

/// How a peer cancels a request it sent (the manifest's `cancellation`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Cancellation {
    /// The notification that cancels (`$/cancelRequest`, `notifications/cancelled`).
    pub method: String,
    /// Where its params name the cancelled request's id (`/id`, `/requestId`).
    pub id_pointer: String,
    /// Whether the cancelled request is still answered.
    pub answer: CancelledAnswer,
}

/// How a request's handler reports progress (the manifest's `progress`):
/// the request carries a token, and each report is a notification that
/// names it (MCP's `_meta.progressToken` and `notifications/progress`,
/// LSP's `workDoneToken` and `$/progress`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    /// The notification that reports progress.
    pub method: String,
    /// Where a request's params carry the token (`/_meta/progressToken`,
    /// `/workDoneToken`); a request without one asked for no progress.
    pub request_pointer: String,
    /// Where the notification's params name the token (`/progressToken`, `/token`).
    pub token_pointer: String,
}

/// An enumeration whose values the client announces it supports, in the
/// params of the method that declares capabilities (LSP's `initialize`:
/// `capabilities.textDocument.documentSymbol.symbolKind.valueSet`). Where
/// the server sends a value of that enumeration in one of `methods` (a
/// request's result, or the params of what the server sends), a value
/// outside the announced set is a warning: the schema allows it, the client
/// said it does not know it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ValueSet {
    /// The enumeration's schema (`{"$ref": "lsp.schema.json#/$defs/SymbolKind"}`).
    pub schema: SchemaRef,
    /// The methods whose server-sent messages use the announced set.
    pub methods: Vec<String>,
    /// JSON pointer into the capability method's params to the announced
    /// array of values.
    pub announced: String,
    /// The set a client supports that announces none (LSP: the kinds of the
    /// protocol's first version); absent: any value of the enumeration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absent: Option<Vec<Value>>,
}

/// What a cancelled request is owed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CancelledAnswer {
    /// An answer still (LSP: the result, or the error RequestCancelled).
    Required,
    /// None: it may go unanswered, and an answer that comes is no fault
    /// (MCP: the receiver should not answer).
    Optional,
}

/// How client and server agree on a version.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VersionNegotiation {
    /// The method that carries the client's version.
    pub method: String,
    /// Where in its params.
    pub client_pointer: String,
    /// The version this server speaks.
    pub server_version: String,
    /// The compatibility rule.
    pub rule: VersionRule,
    /// The name of the error (in `errors`) answered on a mismatch.
    pub error: String,
    /// The message, with `{client}`, `{server}`, `{client_major}`, `{server_major}`.
    pub message: String,
}

/// Where the server declares the protocol version it speaks.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DeclaredVersion {
    /// The method whose result declares it (usually `initialize`).
    pub method: String,
    /// JSON pointer into that result.
    pub pointer: String,
}

/// A version compatibility rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VersionRule {
    /// Compatible when the major versions are equal.
    SameMajor,
}

/// A semantic rule that JSON Schema cannot state. Unknown rule names are
/// kept (and reported by [`crate::protocol::Protocol::unknown_rules`]) so a
/// newer manifest still loads.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RuleSpec {
    /// The rule's name (`not_before`, `increasing_sequence`, `last_sequence_matches`).
    pub rule: String,
    /// The rule's arguments, as written.
    #[serde(flatten)]
    pub arguments: serde_json::Map<String, Value>,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

mod display_fromstr {
    use std::fmt::Display;
    use std::str::FromStr;

    use serde::{de, Deserialize, Deserializer, Serializer};

    pub fn serialize<T: Display, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_str(value)
    }

    pub fn deserialize<'de, T, D>(deserializer: D) -> Result<T, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(de::Error::custom)
    }
}

impl Manifest {
    /// Whether `method` may be sent to a server whose successful answer to
    /// the capability-declaring method (LSP's `initialize`: the whole
    /// `InitializeResult`) was `declaring_result`: `true` for a method that
    /// needs no capability, or whose capability that result declares;
    /// `false` for a gated method it does not declare, and for a method the
    /// protocol does not define.
    pub fn capability_declared(&self, method: &str, declaring_result: &Value) -> bool {
        let Some(spec) = self.methods.get(method) else {
            return false;
        };
        let Some(capability) = &spec.capability else {
            return true;
        };
        self.capabilities
            .as_ref()
            .is_some_and(|caps| caps.declares(capability, caps.declaration(declaring_result)))
    }

    /// The capabilities `declaring_result` declares, by the names the
    /// manifest's methods use (see [`CapabilitiesSpec::declared`]); empty
    /// when the protocol declares none.
    pub fn declared_capabilities(&self, declaring_result: &Value) -> BTreeSet<String> {
        self.capabilities
            .as_ref()
            .map_or_else(BTreeSet::new, |caps| {
                caps.declared(
                    self.methods
                        .values()
                        .filter(|m| m.capability_of.in_server_declaration())
                        .filter_map(|m| m.capability.as_deref()),
                    caps.declaration(declaring_result),
                )
            })
    }

    /// The client's capabilities the params of the capabilities method
    /// declare (at `client_pointer`), by the names the manifest's methods
    /// gated on the client use; `None` when the protocol has no client
    /// declaration.
    pub fn declared_client_capabilities(&self, params: Option<&Value>) -> Option<BTreeSet<String>> {
        let caps = self.capabilities.as_ref()?;
        let pointer = caps.client_pointer.as_ref()?;
        Some(
            caps.declared(
                self.methods
                    .values()
                    .filter(|m| m.capability_of.in_client_declaration())
                    .filter_map(|m| m.capability.as_deref()),
                params.and_then(|p| p.pointer(pointer)),
            ),
        )
    }
}
