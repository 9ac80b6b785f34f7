//! Methods either peer sends (`"direction": "both"`: MCP's `ping`, LSP's
//! `$/progress` and `$/cancelRequest`): the serve loop handles the client's,
//! the host answers the server's, and each side's own are sent and checked.
//!
//! The protocol is `lsp-min@3.17` of `tests/protocols` with a `ping`
//! request and a `$/progress` notification declared `both`.

#![cfg(feature = "host")]

mod common;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use wirekit::host::Host;
use wirekit::protocol::bundle::SchemaFiles;
use wirekit::protocol::{Direction, ProtocolSource};
use wirekit::validate::Protocol;

use common::{python_server, serve, TableHandler};

fn with_both() -> Arc<Protocol> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/protocols/lsp-min/3.17");
    let read = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).expect("read")).expect("json")
    };
    let mut manifest = read("protocol.json");
    manifest["methods"]["ping"] = json!({
        "kind": "request",
        "direction": "both",
        "description": "Either peer checks that the other is alive.",
        "params_optional": true,
        "result": {"$ref": "lsp-min.schema.json#/$defs/Null"}
    });
    manifest["methods"]["$/progress"] = json!({
        "kind": "notification",
        "direction": "both",
        "description": "Either peer reports progress.",
        "params_optional": true
    });
    let mut files = SchemaFiles::new();
    files.insert("lsp-min.schema.json".into(), read("lsp-min.schema.json"));
    let source = ProtocolSource::new("lsp-min/3.17", manifest, files).expect("loads");
    Arc::new(Protocol::compile(source).expect("compiles"))
}

#[test]
fn both_is_read_and_named() {
    let protocol = with_both();
    let ping = protocol.method("ping").expect("ping");
    assert_eq!(ping.direction, Direction::Both);
    assert!(ping.direction.client_sends() && ping.direction.server_sends());
    assert_eq!(ping.direction.name(), "both");
}

#[test]
fn the_serve_loop_answers_the_clients_ping_and_takes_its_progress() {
    let protocol = with_both();
    let mut handler = TableHandler::default()
        .returning("initialize", json!({"capabilities": {}}))
        .returning("ping", Value::Null);
    let run = serve(
        &protocol,
        &mut handler,
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{}}}"#,
            r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"$/progress","params":{"token":1}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        ],
    );
    let answers = run.answers(&protocol);
    assert_eq!(answers.len(), 2, "{answers:?} {:?}", run.log);
    assert_eq!(
        answers[1],
        json!({"jsonrpc": "2.0", "id": 2, "result": null})
    );
}

/// Pings the host while it answers `initialize`, reports progress, then
/// answers the host's own ping.
const PINGS_BACK: &str = r#"
call = read()
write({"jsonrpc": "2.0", "id": "s1", "method": "ping"})
pong = read()
write({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "t", "value": {"kind": "end"}}})
write({"jsonrpc": "2.0", "id": call["id"], "result": {"capabilities": {"pong": pong}}})
ping = read()
write({"jsonrpc": "2.0", "id": ping["id"], "result": None})
"#;

#[test]
fn the_host_answers_the_servers_ping_and_sends_its_own() {
    let mut command = python_server(PINGS_BACK);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let mut host = Host::spawn(with_both(), &mut command)
        .expect("spawns")
        .with_timeout(Duration::from_secs(10))
        .with_request_handler(Box::new(move |method: &str, _params: Option<&Value>| {
            seen.lock().expect("not poisoned").push(method.to_owned());
            Some(Ok(Value::Null))
        }));
    let result = host
        .call(
            "initialize",
            Some(json!({"processId": null, "capabilities": {}})),
        )
        .expect("initialize is answered");
    assert_eq!(
        result["capabilities"]["pong"],
        json!({"jsonrpc": "2.0", "id": "s1", "result": null})
    );
    assert_eq!(*asked.lock().expect("not poisoned"), ["ping"]);
    let requests = host.take_server_requests();
    assert!(requests.iter().all(|r| r.problem.is_none()), "{requests:?}");
    assert_eq!(host.call("ping", None).expect("ping answered"), Value::Null);
}
