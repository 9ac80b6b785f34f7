//! The host at a request's timeout, in a protocol that says how a peer
//! cancels a request (`cancellation`): it sends the cancellation with the
//! request's id and the session goes on; the answer a cancelled request is
//! still owed (`answer: required`, LSP) is taken when it comes, and one it
//! is not owed (`answer: optional`, MCP) is dropped. A protocol without
//! `cancellation` still kills the server. After `initialize` succeeds the
//! host sends its `followed_by` notification itself.
//!
//! The servers are small Python scripts speaking `lsp-min@3.17` (the
//! minimal LSP folder of `tests/protocols`), given a `$/cancelRequest`
//! notification and a `cancellation` member in a scratch copy.

#![cfg(feature = "host")]

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use wirekit::host::{Host, HostErrorKind};
use wirekit::protocol::Registry;
use wirekit::validate::Protocol;

use common::python_server;

/// `lsp-min@3.17` with `$/cancelRequest` and `cancellation` (`answer`
/// given), or unchanged (`None`).
fn lsp_min(answer: Option<&str>) -> Arc<Protocol> {
    let original = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/protocols");
    let root = std::env::temp_dir().join(format!(
        "wirekit-host-cancel-{}-{}",
        std::process::id(),
        answer.unwrap_or("none")
    ));
    let folder = root.join("lsp-min/3.17");
    std::fs::create_dir_all(&folder).expect("folder");
    let read = |file: &str| -> Value {
        let text = std::fs::read_to_string(original.join("lsp-min/3.17").join(file)).expect("read");
        serde_json::from_str(&text).expect("JSON")
    };
    let mut schema = read("lsp-min.schema.json");
    let mut manifest = read("protocol.json");
    // As LSP says: the client sends `initialized` at once after `initialize`.
    manifest["methods"]["initialize"]["lifecycle"]["followed_by"] = json!("initialized");
    if let Some(answer) = answer {
        schema["$defs"]["CancelParams"] = json!({
            "type": "object", "required": ["id"],
            "properties": {"id": {"type": ["integer", "string"]}}
        });
        manifest["methods"]["$/cancelRequest"] = json!({
            "kind": "notification", "direction": "both",
            "description": "Cancels a request.",
            "params": {"$ref": "lsp-min.schema.json#/$defs/CancelParams"},
            "lifecycle": {"allowed_in": ["*"]}
        });
        manifest["cancellation"] =
            json!({"method": "$/cancelRequest", "id_pointer": "/id", "answer": answer});
    }
    std::fs::write(folder.join("lsp-min.schema.json"), schema.to_string()).expect("schema");
    std::fs::write(folder.join("protocol.json"), manifest.to_string()).expect("manifest");
    let registry = Registry::from_dir(&root).expect("loads");
    let source = registry.get("lsp-min@3.17").expect("lsp-min").clone();
    let _ = std::fs::remove_dir_all(&root);
    Arc::new(Protocol::compile(source).expect("compiles"))
}

/// Answers `initialize`, reads `initialized`, leaves the first hover
/// unanswered until the cancellation comes (then answers it as `late`
/// says), and answers the second hover with every method it received.
fn server(late: &str) -> std::process::Command {
    python_server(&format!(
        r#"
seen = []
init = read(); seen.append(init["method"])
write({{"jsonrpc": "2.0", "id": init["id"], "result": {{"capabilities": {{"hoverProvider": True}}}}}})
seen.append(read()["method"])
first = read(); seen.append(first["method"])
cancel = read(); seen.append(cancel["method"]); seen.append(cancel["params"])
{late}
second = read(); seen.append(second["method"])
write({{"jsonrpc": "2.0", "id": second["id"], "result": {{"contents": json.dumps(seen)}}}})
"#
    ))
}

/// A host of [`server`] over `lsp-min` with `answer` (see [`lsp_min`]),
/// `initialize` answered (within the manifest's timeout: a Python server
/// may take a while to start on a busy machine), then a 400 ms timeout.
fn initialized(answer: Option<&str>, late: &str) -> Host {
    let mut host = Host::spawn(lsp_min(answer), &mut server(late)).expect("spawns");
    host.call(
        "initialize",
        Some(json!({"processId": null, "capabilities": {}})),
    )
    .expect("initialize");
    host.with_timeout(Duration::from_millis(400))
}

fn hover(host: &mut Host) -> Result<Value, wirekit::host::HostError> {
    host.call(
        "textDocument/hover",
        Some(json!({"textDocument": {"uri": "file:///a.py"}, "position": {"line": 0, "character": 0}})),
    )
}

fn seen(result: &Value) -> Value {
    serde_json::from_str(result["contents"].as_str().expect("contents")).expect("JSON")
}

#[test]
fn a_timed_out_request_is_cancelled_and_its_owed_answer_taken_when_it_comes() {
    let late = r#"write({"jsonrpc": "2.0", "id": first["id"], "error": {"code": -32800, "message": "cancelled"}})"#;
    let mut host = initialized(Some("required"), late);
    let error = hover(&mut host).expect_err("the first hover times out");
    assert_eq!(error.kind(), HostErrorKind::Timeout);
    assert!(
        error
            .message()
            .contains("it was cancelled with `$/cancelRequest` and the session goes on"),
        "{}",
        error.message()
    );
    let second = hover(&mut host).expect("the session goes on");
    assert_eq!(
        seen(&second),
        json!(["initialize", "initialized", "textDocument/hover", "$/cancelRequest", {"id": 2}, "textDocument/hover"])
    );
}

#[test]
fn an_answer_a_cancelled_request_is_not_owed_is_dropped() {
    let late =
        r#"write({"jsonrpc": "2.0", "id": first["id"], "result": {"contents": "too late"}})"#;
    let mut host = initialized(Some("optional"), late);
    assert_eq!(
        hover(&mut host).expect_err("times out").kind(),
        HostErrorKind::Timeout
    );
    let second = hover(&mut host).expect("the late answer is dropped, the session goes on");
    assert_eq!(seen(&second)[3], "$/cancelRequest");
}

#[test]
fn without_cancellation_the_server_is_killed_at_the_timeout() {
    let mut host = initialized(None, "pass");
    let error = hover(&mut host).expect_err("times out");
    assert!(
        error.message().contains("the server was killed"),
        "{}",
        error.message()
    );
    assert!(hover(&mut host).is_err(), "the session is over");
}

/// A caller that sends the `followed_by` notification itself right after
/// the call (as request files written for hosts that did not) does not
/// send it twice.
#[test]
fn the_followed_by_notification_is_not_sent_twice() {
    let late = r#"write({"jsonrpc": "2.0", "id": first["id"], "error": {"code": -32800, "message": "cancelled"}})"#;
    let mut host = initialized(Some("required"), late);
    host.notify("initialized", Some(json!({})))
        .expect("already sent: no error, nothing sent");
    let _ = hover(&mut host).expect_err("the first hover times out");
    let second = hover(&mut host).expect("the session goes on");
    assert_eq!(seen(&second)[1], "initialized");
    assert_eq!(
        seen(&second)[2],
        "textDocument/hover",
        "initialized came once"
    );
}

#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut bytes) = self.0.lock() {
            bytes.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The last call timed out and was cancelled, and the protocol still owes
/// it an answer (`answer: required`): `await_owed_answers` takes that
/// answer before the session ends, so the recording holds it (a validator
/// would otherwise blame the server for `unanswered`).
#[test]
fn the_answer_a_cancelled_request_still_owes_is_awaited_before_the_end() {
    let late = "import time\ntime.sleep(0.3)\nwrite({\"jsonrpc\": \"2.0\", \"id\": first[\"id\"], \"error\": {\"code\": -32800, \"message\": \"cancelled late\"}})";
    let recording = Shared::default();
    let mut host = initialized(Some("required"), late)
        .with_transcript(wirekit::host::Recording::new(Box::new(recording.clone())));
    assert_eq!(
        hover(&mut host).expect_err("times out").kind(),
        HostErrorKind::Timeout
    );
    host.await_owed_answers().expect("the owed answer comes");
    host.end(Duration::from_secs(5)).expect("ends");
    let bytes = recording.0.lock().map(|b| b.clone()).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("cancelled late"), "{text}");
}
