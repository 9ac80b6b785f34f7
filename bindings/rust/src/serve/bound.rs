//! What a server sends when it cannot send what it was asked for: an
//! answer over the transport's frame bound, and a streamed result
//! (`result_stream`) that fails.
//!
//! Both rules come from the one host that reads streams today, Gaze's
//! protocol client (`internal/protocol/client.go` in gxmiranda/gaze and
//! unbound-force/gaze):
//!
//! * `NewClient` reads the analyzer's stdout with a `bufio.Scanner` whose
//!   buffer grows to 10 MiB (`maxScanSize`). A longer line makes `Scan` fail
//!   with `bufio.Scanner: token too long`, the host stops reading, and the
//!   rest of the line stays in a pipe nobody drains: the analyzer blocks in
//!   `write` and `Client.Close` (which sends `shutdown` and waits for the
//!   process to exit, never reading the reply) hangs. So an answer over
//!   the bound is never written, not even in part: it becomes a -32603 that
//!   names the bound and the streamed alternative ([`over_bound`]).
//! * `CallStream` returns the stdout scanner and the adapter
//!   (`internal/adapter/sideeffect.go`, `loadStreaming`) reads lines until
//!   EOF, with no deadline. Each line is unmarshalled into an
//!   `AnalyzedFunction`: a JSON-RPC error response unmarshals without error
//!   (as a function with no name), so it is no failure to that reader; the
//!   first line that does not unmarshal ends the read with
//!   `malformed JSONL on line N: ... (content: <its first 200 bytes>)`.
//!   A failed stream therefore ends with [`stream_failure_body`]: the error
//!   response inside a one-element JSON array (a JSON-RPC batch response),
//!   which that reader refuses with the error's text in its message, and
//!   which a JSON-RPC reader decodes as the request's error. The serve loop
//!   then ends the session, so the reader reaches EOF.

use serde_json::Value;

use crate::envelope::{ErrorObject, Id, Message, Response};
use crate::protocol::{ErrorCase, Transport};
use crate::validate::Protocol;

/// The -32603 answer for a result (or streamed item) of `length` bytes
/// over the transport's bound, naming the bound and, when the protocol
/// has one, the streamed method to use instead (`{method}/...` with a
/// `result_stream`, such as Gaze's `analyze/stream` for `analyze`).
pub fn over_bound(protocol: &Protocol, method: &str, what: &str, length: usize) -> ErrorObject {
    let transport = &protocol.manifest().transport;
    let bound = transport.frame_bound();
    let mut message = if transport.states_frame_bound() {
        format!(
            "{what} of `{method}` is {length} bytes, over the {bound}-byte frame bound of {} \
             (the longest line its host reads); it was not sent",
            protocol.id()
        )
    } else {
        format!(
            "{what} of `{method}` is {length} bytes, over wirekit's own {bound}-byte frame bound \
             ({} states none); it was not sent",
            protocol.id()
        )
    };
    if let Some((stream, capability)) = stream_alternative(protocol, method) {
        match capability {
            Some(capability) => message.push_str(&format!(
                "; answer `{stream}` instead (declare the `{capability}` capability), \
                 which sends one item a line"
            )),
            None => message.push_str(&format!(
                "; answer `{stream}` instead, which sends one item a line"
            )),
        }
    }
    // Shaped as the protocol declares (`server_errors.answer_too_long`);
    // wirekit's default data is `{"bytes", "max_frame_bytes"}`.
    protocol.error_answer(
        ErrorCase::AnswerTooLong,
        None,
        message,
        &[
            ("method", serde_json::json!(method)),
            ("bytes", serde_json::json!(length)),
            ("limit", serde_json::json!(bound)),
        ],
    )
}

/// The streamed method that answers what `method` answers, one item a
/// frame, with the capability that declares it.
fn stream_alternative(protocol: &Protocol, method: &str) -> Option<(String, Option<String>)> {
    let prefix = format!("{method}/");
    protocol
        .manifest()
        .methods
        .iter()
        .find(|(name, spec)| name.starts_with(&prefix) && spec.result_stream.is_some())
        .map(|(name, spec)| (name.clone(), spec.capability.clone()))
}

/// The error a failed stream ends with: the handler's (or the serve
/// loop's) error, its message saying how many items went before and that
/// the result is incomplete.
pub fn stream_failure(method: &str, sent: usize, error: ErrorObject) -> ErrorObject {
    let ErrorObject {
        code,
        message,
        data,
    } = error;
    let before = match sent {
        0 => "before its first item".to_owned(),
        1 => "after 1 item, an incomplete result".to_owned(),
        n => format!("after {n} items, an incomplete result"),
    };
    let failure = ErrorObject::new(code, format!("`{method}` failed {before}: {message}"));
    match data {
        Some(data) => failure.with_data(data),
        None => failure,
    }
}

/// The body of the line that ends a failed stream: `[<error response>]`.
pub fn stream_failure_body(
    transport: &Transport,
    id: &Id,
    error: ErrorObject,
) -> std::io::Result<Vec<u8>> {
    let response = Message::Response(Response::error(Some(id.clone()), error));
    let inner = transport.encode(&response).map_err(std::io::Error::other)?;
    let mut body = Vec::with_capacity(inner.len() + 2);
    body.push(b'[');
    body.extend_from_slice(&inner);
    body.push(b']');
    Ok(body)
}

/// The error of a stream failure line (`[<error response>]` with `id`),
/// for hosts reading a stream: `None` for anything else.
pub fn stream_failure_of(item: &Value) -> Option<ErrorObject> {
    let [response] = item.as_array()?.as_slice() else {
        return None;
    };
    let error = response.get("error")?;
    let code = error.get("code")?.as_i64()?;
    let message = error.get("message")?.as_str()?;
    let failure = ErrorObject::new(code, message);
    Some(match error.get("data") {
        Some(data) => failure.with_data(data.clone()),
        None => failure,
    })
}
