//! A Language Server Protocol client on wirekit's core: the core frames
//! the bytes (`Content-Length`) and reads the JSON-RPC envelope; this crate
//! decodes what a language server answers and keeps Loom's invariants
//! (`shared/specs/loom-lsp-client-package.md`).
//!
//! * [`decode`]: total, I/O-free decoders; every dialect lands in one type,
//!   a bad list entry fails the list naming its index, negative positions
//!   are refused, unknown members ignored.
//! * [`capabilities`]: what the server advertised and the gate
//!   ([`ServerCapabilities::supports`]) every request passes.
//! * [`text`]: the one converter between a person's 1-based line:column
//!   and the server's UTF-16 positions; [`uri`]: strict `file:` URIs.
//! * [`server_requests`]: the answers to the server's requests (the client
//!   never writes: `workspace/applyEdit` is `applied: false`).
//! * [`client`]: one server process — handshake, gated requests with
//!   timeouts that cancel, document sync (at most 64 open), the bounded
//!   diagnostics store, settlement, readiness and the stop sequence.

pub mod capabilities;
pub mod client;
pub mod decode;
pub mod position;
pub mod server_requests;
pub mod text;
pub mod uri;

pub use capabilities::{decode_initialize_result, Feature, Provided, ServerCapabilities, SyncKind};
pub use client::{
    Client, Options, Readiness, RequestError, RequestErrorKind, SettleOutcome, Settlement,
    StartError, StopReport, MAX_PUBLISHED_URIS,
};
pub use position::{Position, Range, TextEdit};
