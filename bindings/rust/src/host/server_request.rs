//! What the host keeps of a request the server sent it, and the handler
//! that answers such requests (how the host answers them: `requests.rs`).

use serde_json::Value;

use super::error::HostError;
use crate::envelope::{ErrorObject, Request};

/// Answers a server's request: its method and params to a result or an
/// error object, or `None` when it does not answer that method (the host
/// then answers -32601 and reports it).
pub type RequestHandler =
    dyn FnMut(&str, Option<&Value>) -> Option<Result<Value, ErrorObject>> + Send;

/// Server requests kept until taken; the oldest go first.
pub const SERVER_REQUESTS_KEPT: usize = 4096;

/// A request the server sent the host, and the answer it got.
#[derive(Debug)]
pub struct ServerRequest {
    /// The request as received.
    pub request: Request,
    /// The answer sent back.
    pub answer: Result<Value, ErrorObject>,
    /// Why the request was refused, when it was: undeclared, no handler,
    /// invalid params, the handler's result invalid, the answer not sent.
    /// An error: `drive` fails on it.
    pub problem: Option<HostError>,
    /// Why the request is suspect though it was answered: an id JSON-RPC
    /// 2.0 allows but discourages (`null`, a fraction), which a lenient
    /// protocol accepts. A warning (the monitor's
    /// `ProblemKind::DiscouragedId`, with the `monitor` feature):
    /// `drive` reports it and does not fail.
    pub warning: Option<String>,
}
