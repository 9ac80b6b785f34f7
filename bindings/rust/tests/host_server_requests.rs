//! The host answers the server's own requests, at once, whatever it waits
//! for: a declared one with the caller's handler (params and result
//! checked), an undeclared one, or one no handler answers, with -32601 and
//! a report. Where the server handles one request at a time, a call whose
//! answer the host gave up on is waited for before the next is sent. A
//! recording keeps the exact bytes, headers included.
//!
//! The servers are small Python scripts speaking `lsp-min@3.17`, the
//! minimal LSP protocol folder of `tests/protocols`, or gzkit.

#![cfg(feature = "host")]

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use wirekit::envelope::ErrorObject;
use wirekit::framing::{FrameReader, Framing};
use wirekit::host::{Host, HostErrorKind, Recording};
use wirekit::protocol::Registry;
use wirekit::validate::Protocol;

use common::python_server;

fn lsp_min() -> Arc<Protocol> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/protocols");
    let registry = Registry::from_dir(&root).expect("tests/protocols loads");
    let source = registry.get("lsp-min@3.17").expect("lsp-min").clone();
    Arc::new(Protocol::compile(source).expect("compiles"))
}

/// Asks `workspace/configuration` (declared) and `peer/undeclared` while it
/// answers `initialize`, and answers with what came back.
const ASKS_MID_CALL: &str = r#"
call = read()
write({"jsonrpc": "2.0", "id": "c1", "method": "workspace/configuration", "params": {"items": [{"section": "peer"}]}})
config = read()
write({"jsonrpc": "2.0", "id": "c2", "method": "peer/undeclared", "params": {}})
undeclared = read()
write({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 3, "message": "asked twice"}})
write({"jsonrpc": "2.0", "id": call["id"], "result": {"capabilities": {"seen": [config, undeclared]}}})
"#;

fn initialize(host: &mut Host) -> Result<Value, wirekit::host::HostError> {
    host.call(
        "initialize",
        Some(json!({"processId": null, "capabilities": {}})),
    )
}

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("not poisoned").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn declared_requests_reach_the_handler_and_undeclared_ones_get_32601_mid_call() {
    let recording = Shared::default();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let mut host = Host::spawn(lsp_min(), &mut python_server(ASKS_MID_CALL))
        .expect("spawns")
        .with_timeout(Duration::from_secs(10))
        .with_transcript(Recording::new(Box::new(recording.clone())))
        .with_request_handler(Box::new(move |method: &str, params: Option<&Value>| {
            seen.lock()
                .expect("not poisoned")
                .push((method.to_owned(), params.cloned()));
            Some(Ok(json!([{"tabSize": 4}])))
        }));
    let result = initialize(&mut host).expect("initialize is answered");
    let seen = &result["capabilities"]["seen"];
    assert_eq!(
        seen[0],
        json!({"jsonrpc": "2.0", "id": "c1", "result": [{"tabSize": 4}]})
    );
    assert_eq!(seen[1]["id"], json!("c2"));
    assert_eq!(seen[1]["error"]["code"], json!(-32601), "{seen}");
    assert_eq!(
        *asked.lock().expect("not poisoned"),
        [(
            "workspace/configuration".to_owned(),
            Some(json!({"items": [{"section": "peer"}]}))
        )],
        "only the declared request reaches the handler"
    );
    let requests = host.take_server_requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[0].problem.is_none());
    assert_eq!(requests[0].answer, Ok(json!([{"tabSize": 4}])));
    let problem = requests[1].problem.as_ref().expect("reported");
    assert_eq!(problem.kind(), HostErrorKind::ServerRequest);
    assert!(problem.message().contains("peer/undeclared"), "{problem}");
    assert_eq!(host.take_notifications().len(), 1);
    drop(host);

    // The recording holds the exact bytes: the server's Content-Type
    // headers, and the host's frames between them, in order.
    let bytes = recording.0.lock().expect("not poisoned").clone();
    let text = String::from_utf8(bytes.clone()).expect("UTF-8");
    assert_eq!(
        text.matches("Content-Type: application/vscode-jsonrpc")
            .count(),
        4
    );
    let bodies: Vec<Value> = FrameReader::new(
        &bytes[..],
        Framing::ContentLength,
        Framing::ContentLength.default_limits(),
    )
    .map(|frame| serde_json::from_str(frame.expect("frames").body()).expect("JSON"))
    .collect();
    let order: Vec<String> = bodies
        .iter()
        .map(|b| {
            b.get("method")
                .map_or_else(|| format!("answer {}", b["id"]), ToString::to_string)
        })
        .collect();
    assert_eq!(
        order,
        [
            "\"initialize\"",
            "\"workspace/configuration\"",
            "answer \"c1\"",
            "\"peer/undeclared\"",
            "answer \"c2\"",
            "\"window/logMessage\"",
            "answer 1"
        ]
    );
}

#[test]
fn a_declared_request_nobody_answers_gets_32601_and_is_reported() {
    let mut host = Host::spawn(lsp_min(), &mut python_server(ASKS_MID_CALL))
        .expect("spawns")
        .with_timeout(Duration::from_secs(10));
    initialize(&mut host).expect("answered");
    let requests = host.take_server_requests();
    assert_eq!(requests[0].request.method, "workspace/configuration");
    assert_eq!(requests[0].answer.as_ref().map_err(|e| e.code), Err(-32601));
    let problem = requests[0].problem.as_ref().expect("reported");
    assert!(
        problem.message().contains("no handler answers it"),
        "{problem}"
    );
}

#[test]
fn invalid_params_and_an_invalid_handler_result_are_refused_with_their_codes() {
    let script = r#"
call = read()
write({"jsonrpc": "2.0", "id": 7, "method": "workspace/configuration", "params": {"items": "not an array"}})
bad_params = read()
write({"jsonrpc": "2.0", "id": 8, "method": "workspace/configuration", "params": {"items": []}})
bad_result = read()
write({"jsonrpc": "2.0", "id": call["id"], "result": {"capabilities": {"seen": [bad_params, bad_result]}}})
"#;
    let mut host = Host::spawn(lsp_min(), &mut python_server(script))
        .expect("spawns")
        .with_timeout(Duration::from_secs(10))
        .with_request_handler(Box::new(|_: &str, _: Option<&Value>| {
            Some(Ok(json!({"not": "an array"})))
        }));
    let result = initialize(&mut host).expect("answered");
    let seen = &result["capabilities"]["seen"];
    assert_eq!(seen[0]["error"]["code"], json!(-32602), "{seen}");
    assert_eq!(seen[1]["error"]["code"], json!(-32603), "{seen}");
    let requests = host.take_server_requests();
    let pointers: Vec<&str> = requests
        .iter()
        .map(|r| {
            r.problem.as_ref().expect("reported").validation_issues()[0]
                .instance_path
                .as_str()
        })
        .collect();
    assert_eq!(pointers, ["/items", ""]);
}

#[test]
fn the_handlers_own_error_answer_goes_back_unchanged() {
    let script = r#"
call = read()
write({"jsonrpc": "2.0", "id": 1, "method": "workspace/configuration", "params": {"items": []}})
answer = read()
write({"jsonrpc": "2.0", "id": call["id"], "result": {"capabilities": {"seen": answer}}})
"#;
    let mut host = Host::spawn(lsp_min(), &mut python_server(script))
        .expect("spawns")
        .with_timeout(Duration::from_secs(10))
        .with_request_handler(Box::new(|_: &str, _: Option<&Value>| {
            Some(Err(ErrorObject::new(-32800, "cancelled")))
        }));
    let result = initialize(&mut host).expect("answered");
    assert_eq!(
        result["capabilities"]["seen"]["error"],
        json!({"code": -32800, "message": "cancelled"})
    );
    assert!(host.take_server_requests()[0].problem.is_none());
}

/// gzkit handles one request at a time: after `initialize` got an invalid
/// envelope instead of its answer, `analyze` waits for the late answer.
#[test]
fn one_request_at_a_time_waits_for_an_answer_given_up_on() {
    let script = r#"
import select
call = read()
sys.stdout.buffer.write(b'Content-Length: 9\r\n\r\n{"id": 1}')
sys.stdout.buffer.flush()
early, _, _ = select.select([sys.stdin], [], [], 0.5)
write({"id": call["id"], "result": {"version": "1.0", "capabilities": ["analyze"]}})
nxt = read()
hints = [] if not early else None
write({"id": nxt["id"], "result": {"hints": hints}})
"#;
    let gzkit = wirekit_protocols::protocol("gzkit-authoring-guide").expect("embedded");
    assert!(gzkit.manifest().transport.one_request_at_a_time);
    let mut host = Host::spawn(gzkit, &mut python_server(script))
        .expect("spawns")
        .with_timeout(Duration::from_secs(10));
    let error = host
        .call("initialize", Some(json!({"clientVersion": "1.0"})))
        .expect_err("the invalid envelope fails the call");
    assert_eq!(error.kind(), HostErrorKind::Envelope, "{error}");
    let result = host
        .call("analyze", Some(json!({"file_path": "/src/a.py"})))
        .expect(
            "analyze is sent only after initialize's late answer, so it is allowed and answered",
        );
    assert_eq!(result, json!({"hints": []}));
}

/// A lenient protocol takes the ids JSON-RPC 2.0 allows but discourages: a
/// server's request with a fractional or a `null` id is answered (echoing
/// it) and reported with a warning.
#[test]
fn discouraged_ids_of_the_servers_requests_are_answered_and_reported() {
    let script = r#"
call = read()
write({"jsonrpc": "2.0", "id": 2.5, "method": "workspace/configuration", "params": {"items": []}})
fractional = read()
write({"jsonrpc": "2.0", "id": None, "method": "workspace/configuration", "params": {"items": []}})
null = read()
write({"jsonrpc": "2.0", "id": call["id"], "result": {"capabilities": {"seen": [fractional, null]}}})
"#;
    let mut host = Host::spawn(lsp_min(), &mut python_server(script))
        .expect("spawns")
        .with_timeout(Duration::from_secs(10))
        .with_request_handler(Box::new(|_: &str, _: Option<&Value>| Some(Ok(json!([])))));
    let result = initialize(&mut host).expect("answered");
    let seen = &result["capabilities"]["seen"];
    assert_eq!(seen[0], json!({"jsonrpc": "2.0", "id": 2.5, "result": []}));
    assert_eq!(seen[1], json!({"jsonrpc": "2.0", "id": null, "result": []}));
    let warnings: Vec<String> = host
        .take_server_requests()
        .iter()
        .map(|r| {
            // Answered: a warning, not a problem.
            assert!(r.problem.is_none(), "{:?}", r.problem);
            r.warning.clone().expect("warned")
        })
        .collect();
    assert!(
        warnings[0].contains("id 2.5") && warnings[0].contains("fraction"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("id null") && warnings[1].contains("null id"),
        "{warnings:?}"
    );
}
