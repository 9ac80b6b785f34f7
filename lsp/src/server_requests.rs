//! Answers to the server's own requests, decided here once: the client
//! never writes (`workspace/applyEdit` is `applied: false`), has no
//! settings to give (`workspace/configuration` is one `null` an item), and
//! accepts progress tokens and registrations without acting on them.

use serde_json::{json, Value};
use wirekit::envelope::{ErrorObject, Request, Response};

/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i64 = -32601;

/// The answer to a server's request, and the root folder for
/// `workspace/workspaceFolders`.
pub fn answer_server_request(request: &Request, root_uri: &str, root_name: &str) -> Response {
    let id = request.id.clone();
    let params = request.params.as_ref();
    let result = match request.method.as_str() {
        "workspace/applyEdit" => json!({
            "applied": false,
            "failureReason": "this client never writes: edits are shown, not applied"
        }),
        "workspace/configuration" => {
            let items = params
                .and_then(|p| p.get("items"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            Value::Array(vec![Value::Null; items])
        }
        "window/workDoneProgress/create"
        | "client/registerCapability"
        | "client/unregisterCapability"
        | "window/showMessageRequest"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/codeLens/refresh"
        | "workspace/diagnostic/refresh" => Value::Null,
        "workspace/workspaceFolders" => json!([{"uri": root_uri, "name": root_name}]),
        other => {
            return Response::error(
                Some(id),
                ErrorObject::new(
                    METHOD_NOT_FOUND,
                    format!("this client does not handle `{other}`"),
                ),
            )
        }
    };
    Response::success(id, result)
}
