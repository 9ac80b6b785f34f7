//! Answers to the server's own requests, decided here once: the client
//! never writes (`workspace/applyEdit` is `applied: false`), answers
//! `workspace/configuration` from its settings as editors do (see
//! [`configuration`]), and accepts progress tokens and registrations
//! without acting on them.

use serde_json::{json, Value};
use wirekit::envelope::{ErrorObject, Request, Response};

/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i64 = -32601;

/// The answer to a server's request, and the root folder for
/// `workspace/workspaceFolders`.
pub fn answer_server_request(
    request: &Request,
    root_uri: &str,
    root_name: &str,
    settings: &Value,
) -> Response {
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
                .map(Vec::as_slice)
                .unwrap_or_default();
            Value::Array(
                items
                    .iter()
                    .map(|item| configuration(item, settings))
                    .collect(),
            )
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

/// The answer to one `workspace/configuration` item, as editors answer it:
/// the settings' member named by its `section` (a dotted section,
/// `python.analysis`, is looked up member by member; a flat key of that
/// name is taken first), the whole settings object for an item without a
/// section, and for a section the settings do not have an editor's
/// default ([`editor_default`]: an empty object for almost every section).
///
/// LSP 3.17 lets a client answer `null` for a setting it does not know, but
/// real servers (vscode-langservers-extracted's CSS and HTML servers) read
/// members of the answer without a check and fail on `null`; an empty
/// object means "the defaults" to every server seen.
pub fn configuration(item: &Value, settings: &Value) -> Value {
    let Some(section) = item.get("section").and_then(Value::as_str) else {
        return settings.clone();
    };
    if let Some(flat) = settings.get(section) {
        return flat.clone();
    }
    let mut here = settings;
    for part in section.split('.') {
        match here.get(part) {
            Some(next) => here = next,
            None => return editor_default(section),
        }
    }
    here.clone()
}

/// What an editor answers for a section the user set nothing in: an empty
/// object (the server's own defaults), except where servers read members of
/// it without a check, which get the shape of VS Code's defaults: the HTML
/// server of vscode-langservers-extracted reads
/// `js/ts.implicitProjectConfig.strictNullChecks` and throws on `{}`.
fn editor_default(section: &str) -> Value {
    match section {
        "js/ts" => json!({"implicitProjectConfig": {
            "checkJs": false,
            "experimentalDecorators": false,
            "strictNullChecks": true,
            "strictFunctionTypes": true
        }}),
        _ => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_answer_by_section_and_default_to_an_empty_object() {
        let settings =
            json!({"css": {"validate": true}, "python": {"analysis": {"strict": 1}}, "a.b": 2});
        assert_eq!(
            configuration(&json!({"section": "css"}), &settings),
            json!({"validate": true})
        );
        assert_eq!(
            configuration(&json!({"section": "python.analysis"}), &settings),
            json!({"strict": 1})
        );
        assert_eq!(
            configuration(&json!({"section": "a.b"}), &settings),
            json!(2)
        );
        assert_eq!(
            configuration(&json!({"section": "html"}), &settings),
            json!({})
        );
        assert_eq!(
            configuration(&json!({"scopeUri": "file:///x"}), &settings),
            settings
        );
        assert_eq!(
            configuration(&json!({"section": "css"}), &json!({})),
            json!({})
        );
    }
}
