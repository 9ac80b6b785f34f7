//! The client: one language server subprocess, its handshake, gated
//! requests, document sync, the diagnostics store, settlement, readiness
//! and the stop sequence.
//!
//! ## Flow
//!
//! [`Client::start`] spawns the server ([`connection`]), sends `initialize`
//! declaring what the client reads (work-done progress, no `applyEdit`, no
//! resource operations, UTF-16 positions), decodes the capabilities and
//! sends `initialized`. Every request then goes through [`Client::request`]:
//! the gate ([`ServerCapabilities::supports`]), the send, and the pump,
//! which handles whatever arrives in order (answers matched by id, server
//! requests answered at once by [`answer_server_request`], notifications
//! classified by [`classify_notification`]) until the answer or the
//! deadline. A deadline answers [`RequestError::TimedOut`], sends
//! `$/cancelRequest` and remembers the id so a late answer is dropped. A
//! framing fault, a body that is not JSON-RPC or the end of the server's
//! output makes the client dead: that caller and every later one get
//! [`RequestError::Unavailable`] with the reason (`events`). Typed queries are in
//! `queries`, sync, settlement and readiness in `sync`, the stop in `stop`.

mod connection;
mod documents;
mod error;
mod events;
mod progress;
mod queries;
mod stop;
mod store;
mod sync;

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wirekit::envelope::{ErrorObject, Message, Notification, Request};
use wirekit::host::Recording;

use crate::capabilities::{decode_initialize_result, Feature, Provided, ServerCapabilities};
use crate::uri::path_to_uri;
use connection::Connection;

pub use documents::{Documents, OpenDocument, SyncStep, MAX_OPEN_DOCUMENTS};
pub use error::{RequestError, RequestErrorKind, StartError};
pub use progress::{ProgressTracker, MAX_PROGRESS_TOKENS};
pub use stop::StopReport;
pub use store::{DiagnosticsStore, Stored, MAX_PUBLISHED_URIS};
pub use sync::{Readiness, SettleOutcome, Settlement};

/// Bytes kept of an error-level message from the server.
pub const MAX_FAILURE_BYTES: usize = 2048;
/// Timed-out request ids remembered, so their late answers are dropped.
const ABANDONED_KEPT: usize = 1024;

/// How to start and talk to a server.
pub struct Options {
    /// The workspace root (an existing directory).
    pub root: PathBuf,
    /// How long a request waits for its answer.
    pub request_timeout: Duration,
    /// How long `initialize` may take (servers index at start).
    pub handshake_timeout: Duration,
    /// Where to record every byte of both directions, in order.
    pub recording: Option<Box<dyn Write + Send>>,
    /// Where to write the recording's sides file (who wrote which bytes,
    /// `wirekit::capture`), beside `recording`.
    pub recording_sides: Option<Box<dyn Write + Send>>,
    /// `initializationOptions` for the server.
    pub initialization_options: Option<Value>,
    /// How long diagnostics must stay unchanged before they count as
    /// settled: a server may publish a file's syntax errors first and its
    /// type errors a moment later (typescript-language-server publishes an
    /// empty list, then the error).
    pub diagnostics_quiet: Duration,
    /// The settings `workspace/configuration` is answered from, a JSON
    /// object of sections (`{"css": {...}}`); `None`: an empty object, so a
    /// section the server asks about is `{}` (its defaults).
    pub settings: Option<Value>,
}

impl Options {
    /// Defaults for `root`: 10 s a request, 60 s for the handshake.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Options {
            root: root.into(),
            request_timeout: Duration::from_secs(10),
            handshake_timeout: Duration::from_secs(60),
            recording: None,
            recording_sides: None,
            initialization_options: None,
            diagnostics_quiet: Duration::from_millis(400),
            settings: None,
        }
    }
}

/// Counts of what the client dropped or refused along the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dropped {
    /// Answers that came after their request timed out.
    pub late_answers: u64,
    /// Answers to no request the client sent.
    pub unmatched_answers: u64,
    /// Notifications malformed or unknown (the last reason kept).
    pub notifications: u64,
    /// Why the last notification was dropped.
    pub last_notification_reason: Option<String>,
    /// Server requests the client answered "method not found".
    pub server_requests_refused: u64,
    /// The id of the last answer to no request, as JSON (`7`, `"a"`, `null`).
    pub last_unmatched_id: Option<String>,
}

/// A running language server and what the client knows of it.
pub struct Client {
    connection: Connection,
    capabilities: ServerCapabilities,
    root: PathBuf,
    root_uri: String,
    request_timeout: Duration,
    next_id: i64,
    pending: Vec<i64>,
    answers: HashMap<i64, Result<Value, ErrorObject>>,
    abandoned: VecDeque<i64>,
    dead: Option<String>,
    documents: Documents,
    diagnostics: DiagnosticsStore,
    progress: ProgressTracker,
    failure: Option<String>,
    ever_versioned: bool,
    changed: Vec<sync::Changed>,
    diagnostics_quiet: Duration,
    dropped: Dropped,
    server_requests_seen: Vec<String>,
    settings: Value,
}

impl Client {
    /// Starts `command` in `options.root` and performs the handshake.
    pub fn start(mut command: Command, options: Options) -> Result<Client, StartError> {
        let root = options
            .root
            .canonicalize()
            .map_err(|_| StartError::BadRoot(options.root.display().to_string()))?;
        if !root.is_dir() {
            return Err(StartError::BadRoot(root.display().to_string()));
        }
        let root_uri =
            path_to_uri(&root).map_err(|_| StartError::BadRoot(root.display().to_string()))?;
        let recording = options.recording.map(|bytes| {
            let recording = Recording::new(bytes);
            match options.recording_sides {
                Some(sides) => recording.with_sides(sides),
                None => recording,
            }
        });
        let connection = Connection::spawn(&mut command, recording).map_err(StartError::Spawn)?;
        let mut client = Client {
            connection,
            capabilities: ServerCapabilities::none(),
            root: root.clone(),
            root_uri: root_uri.clone(),
            request_timeout: options.request_timeout,
            next_id: 1,
            pending: Vec::new(),
            answers: HashMap::new(),
            abandoned: VecDeque::new(),
            dead: None,
            documents: Documents::default(),
            diagnostics: DiagnosticsStore::default(),
            progress: ProgressTracker::default(),
            failure: None,
            ever_versioned: false,
            changed: Vec::new(),
            diagnostics_quiet: options.diagnostics_quiet,
            dropped: Dropped::default(),
            server_requests_seen: Vec::new(),
            settings: options.settings.unwrap_or_else(|| serde_json::json!({})),
        };
        let params = initialize_params(&root, &root_uri, options.initialization_options);
        let answer = client
            .send_and_wait("initialize", params, options.handshake_timeout)
            .map_err(StartError::HandshakeFailed)?;
        let capabilities = decode_initialize_result(&answer)
            .map_err(|e| StartError::HandshakeFailed(RequestError::Malformed(e)))?;
        if !capabilities
            .position_encoding
            .eq_ignore_ascii_case("utf-16")
        {
            let encoding = capabilities.position_encoding.clone();
            client.connection.kill();
            return Err(StartError::EncodingUnsupported(encoding));
        }
        client.capabilities = capabilities;
        client
            .notify("initialized", json!({}))
            .map_err(StartError::HandshakeFailed)?;
        Ok(client)
    }

    /// What the server advertised.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// The gate every request passes.
    pub fn supports(&self, feature: Feature) -> bool {
        self.capabilities.supports(feature) == Provided::Provided
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.connection.pid()
    }

    /// The workspace root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Why the server cannot answer any more, once it cannot.
    pub fn dead_reason(&self) -> Option<&str> {
        self.dead.as_deref()
    }

    /// The retained error-level message from the server, if any.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// What was dropped so far.
    pub fn dropped(&self) -> &Dropped {
        &self.dropped
    }

    /// The methods of the server's requests so far, in order (the last 64).
    pub fn server_requests_seen(&self) -> &[String] {
        &self.server_requests_seen
    }

    /// The request timeout.
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    /// A gated request: refused as [`RequestError::Unsupported`] (nothing
    /// sent) unless the server advertised `feature`; otherwise its raw result.
    pub fn request(
        &mut self,
        feature: Feature,
        method: &str,
        params: Value,
    ) -> Result<Value, RequestError> {
        if !self.supports(feature) {
            return Err(RequestError::Unsupported(feature));
        }
        self.send_and_wait(method, params, self.request_timeout)
    }

    fn send_and_wait(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, RequestError> {
        let id = self.send_request(method, params)?;
        self.await_answer(id, Instant::now() + timeout, timeout)
    }

    fn send_request(&mut self, method: &str, params: Value) -> Result<i64, RequestError> {
        self.check_alive()?;
        let id = self.next_id;
        self.next_id += 1;
        // A method without params (`shutdown`) carries no `params` member.
        let params = Some(params).filter(|p| !p.is_null());
        self.send(&Message::Request(Request::new(id, method, params)))?;
        self.pending.push(id);
        Ok(id)
    }

    fn await_answer(
        &mut self,
        id: i64,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Value, RequestError> {
        let unmatched_before = self.dropped.unmatched_answers;
        loop {
            if let Some(answer) = self.answers.remove(&id) {
                return answer.map_err(|error| RequestError::ServerError {
                    code: error.code,
                    message: error.message,
                });
            }
            self.check_alive()?;
            if !self.pump(deadline) {
                self.abandon(id);
                let after_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
                // An answer to an id no request has, while this one waited:
                // most likely this request's answer with a wrong id.
                if self.dropped.unmatched_answers > unmatched_before {
                    let answered = self.dropped.last_unmatched_id.clone().unwrap_or_default();
                    return Err(RequestError::WrongId {
                        sent: id,
                        answered,
                        after_ms,
                    });
                }
                return Err(RequestError::TimedOut { after_ms });
            }
        }
    }

    /// Gives up on request `id`: `$/cancelRequest` is sent and a late answer
    /// will be dropped.
    fn abandon(&mut self, id: i64) {
        self.pending.retain(|p| *p != id);
        if self.abandoned.len() == ABANDONED_KEPT {
            self.abandoned.pop_front();
        }
        self.abandoned.push_back(id);
        let _ = self.notify("$/cancelRequest", json!({"id": id}));
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), RequestError> {
        self.check_alive()?;
        self.send(&Message::Notification(Notification::new(
            method,
            Some(params).filter(|p| !p.is_null()),
        )))
    }

    fn send(&mut self, message: &Message) -> Result<(), RequestError> {
        if let Err(reason) = self.connection.send(message) {
            self.die(reason);
            return Err(self.unavailable());
        }
        Ok(())
    }

    fn check_alive(&self) -> Result<(), RequestError> {
        match self.dead {
            Some(_) => Err(self.unavailable()),
            None => Ok(()),
        }
    }

    fn unavailable(&self) -> RequestError {
        RequestError::Unavailable(
            self.dead
                .clone()
                .unwrap_or_else(|| "the server is gone".to_owned()),
        )
    }
}

/// `initialize`'s params: what this client reads, and that it never writes.
fn initialize_params(root: &Path, root_uri: &str, initialization_options: Option<Value>) -> Value {
    let name = root
        .file_name()
        .map_or_else(|| "root".to_owned(), |n| n.to_string_lossy().into_owned());
    // Every kind this client names, announced (without a `valueSet` a
    // client supports only the kinds 1 to 18 of the first version).
    let symbol_kinds: Vec<u32> = crate::decode::known_symbol_kinds().collect();
    let mut params = json!({
        "processId": std::process::id(),
        "clientInfo": {"name": "wirekit-lsp", "version": env!("CARGO_PKG_VERSION")},
        "rootUri": root_uri,
        "rootPath": root.display().to_string(),
        "workspaceFolders": [{"uri": root_uri, "name": name}],
        "capabilities": {
            "general": {"positionEncodings": ["utf-16"]},
            "window": {"workDoneProgress": true},
            "workspace": {
                "applyEdit": false,
                "workspaceEdit": {"documentChanges": true, "resourceOperations": []},
                "configuration": true,
                "workspaceFolders": true
            },
            "textDocument": {
                "synchronization": {"dynamicRegistration": false, "didSave": false},
                "definition": {"linkSupport": true},
                "references": {},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "documentSymbol": {
                    "hierarchicalDocumentSymbolSupport": true,
                    "symbolKind": {"valueSet": symbol_kinds}
                },
                "rename": {"prepareSupport": true},
                "callHierarchy": {},
                "publishDiagnostics": {"versionSupport": true}
            }
        }
    });
    if let (Some(options), Some(object)) = (initialization_options, params.as_object_mut()) {
        object.insert("initializationOptions".to_owned(), options);
    }
    params
}
