//! A Gaze analyzer served by the core: what the real host sends, bad input
//! of every kind, capability gating, result checking and streamed results.

mod common;

use common::{serve, serve_bytes, TableHandler};
use serde_json::{json, Value};
use wirekit::serve::{ResultCheck, ServeOptions, ServeOutcome};
use wirekit::validate::Protocol;

/// The three capabilities 1.0.0 requires, false, with `overrides` on top.
fn with_required(overrides: Value) -> Value {
    let mut capabilities =
        json!({"discover": false, "test_mapping": false, "classify_signals": false});
    if let (Some(all), Some(extra)) = (capabilities.as_object_mut(), overrides.as_object()) {
        all.extend(extra.clone());
    }
    capabilities
}

fn analyzer(overrides: Value) -> TableHandler {
    let capabilities = with_required(overrides);
    TableHandler::default()
        .returning(
            "initialize",
            json!({"capabilities": capabilities, "protocol_version": "1.1.0", "analyzer_name": "test", "language": "rust"}),
        )
        .with("complexity", |params| {
            assert!(params.as_ref().is_some_and(|p| p["patterns"].is_null()), "patterns null reaches the handler");
            Ok(json!({"functions": [{"name": "divide", "package": "m", "file": "m.rs", "line": 20, "complexity": 5}]}))
        })
        .returning("discover", json!({"source_files": [], "test_files": [], "framework": "cargo"}))
        .returning("shutdown", json!({}))
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root_path":"/p"}}"#;

fn gaze() -> std::sync::Arc<Protocol> {
    wirekit_protocols::protocol("gaze-analyzer").expect("gaze is embedded")
}

#[test]
fn the_real_host_sequence_is_served() {
    let gaze = gaze();
    let run = serve(
        &gaze,
        &mut analyzer(json!({"discover": false, "test_mapping": false, "classify_signals": false})),
        &[
            INIT,
            r#"{"jsonrpc":"2.0","id":2,"method":"complexity","params":{"root_path":"/p","patterns":null}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#,
        ],
    );
    let answers = run.answers(&gaze);
    assert_eq!(answers.len(), 3);
    assert_eq!(
        answers[1],
        json!({"jsonrpc": "2.0", "id": 2, "result": {"functions": [{"name": "divide", "package": "m", "file": "m.rs", "line": 20, "complexity": 5}]}})
    );
    assert_eq!(answers[2], json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
    assert_eq!(run.outcome, ServeOutcome::Ended);
}

#[test]
fn an_initialize_result_missing_a_required_capability_is_refused_and_the_state_stays() {
    let gaze = gaze();
    let mut handler = analyzer(json!({})).returning(
        "initialize",
        json!({"capabilities": {"discover": true}, "protocol_version": "1.1.0", "analyzer_name": "a", "language": "go"}),
    );
    let run = serve(
        &gaze,
        &mut handler,
        &[
            INIT,
            r#"{"jsonrpc":"2.0","id":2,"method":"complexity","params":{"root_path":"/p"}}"#,
        ],
    );
    let answers = run.answers(&gaze);
    assert_eq!(answers[0]["error"]["code"], -32603);
    assert_eq!(
        answers[0]["error"]["data"]["errors"][0]["pointer"],
        "/capabilities/test_mapping"
    );
    assert!(
        answers[1]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("initialize")),
        "still uninitialized"
    );
}

#[test]
fn end_of_input_without_shutdown_is_a_clean_end() {
    let gaze = gaze();
    let run = serve(&gaze, &mut analyzer(json!({})), &[INIT]);
    assert_eq!(run.outcome, ServeOutcome::EndOfInput);
}

#[test]
fn bad_input_is_answered_and_the_session_goes_on() {
    let gaze = gaze();
    let mut input = Vec::new();
    input.extend_from_slice(b"{not json\n");
    input.extend_from_slice(format!("{INIT}\n").as_bytes());
    input.extend_from_slice(b"\n");
    input.extend_from_slice(
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"frobnicate\",\"params\":{}}\n",
    );
    input.extend_from_slice(
        b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"complexity\",\"params\":{\"patterns\":[1]}}\n",
    );
    input.extend_from_slice(b"{\"jsonrpc\":\"1.0\",\"id\":9,\"method\":\"complexity\"}\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"shutdown\"}\n");
    let run = serve_bytes(
        &gaze,
        &mut analyzer(json!({})),
        ServeOptions::default(),
        &input,
    );
    let answers = run.answers(&gaze);
    assert_eq!(answers.len(), 6, "{answers:?}");
    assert_eq!(answers[0]["error"]["code"], -32700);
    assert!(answers[0]["id"].is_null());
    assert_eq!(answers[2]["error"]["code"], -32601);
    assert_eq!(answers[3]["error"]["code"], -32602);
    let pointers: Vec<&str> = answers[3]["error"]["data"]["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter_map(|e| e["pointer"].as_str())
        .collect();
    assert!(
        pointers.contains(&"/root_path") && pointers.contains(&"/patterns/0"),
        "{pointers:?}"
    );
    assert_eq!(answers[4]["error"]["code"], -32600);
    assert_eq!(answers[4]["id"], 9);
    assert_eq!(answers[5]["result"], json!({}));
}

#[test]
fn a_method_before_initialize_is_refused() {
    let gaze = gaze();
    let run = serve(
        &gaze,
        &mut analyzer(json!({})),
        &[r#"{"jsonrpc":"2.0","id":1,"method":"complexity","params":{"root_path":"/p"}}"#],
    );
    let answer = &run.answers(&gaze)[0];
    assert!(
        answer["error"]["code"].as_i64().is_some_and(|c| c < 0),
        "{answer}"
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("initialize")),
        "{answer}"
    );
}

#[test]
fn an_optional_method_needs_its_declared_capability() {
    let gaze = gaze();
    let discover = r#"{"jsonrpc":"2.0","id":2,"method":"discover","params":{"root_path":"/p"}}"#;
    let refused = serve(
        &gaze,
        &mut analyzer(json!({"discover": false})),
        &[INIT, discover],
    );
    let answer = &refused.answers(&gaze)[1];
    assert_eq!(answer["error"]["code"], -32601);
    assert!(answer["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("capability `discover`")));
    let allowed = serve(
        &gaze,
        &mut analyzer(json!({"discover": true})),
        &[INIT, discover],
    );
    assert_eq!(allowed.answers(&gaze)[1]["result"]["framework"], "cargo");
}

#[test]
fn an_invalid_result_is_rejected_or_sent_with_a_warning() {
    let gaze = gaze();
    let bad = |h: TableHandler| {
        h.returning(
            "complexity",
            json!({"functions": [{"name": "f", "complexity": "high"}]}),
        )
    };
    let request = r#"{"jsonrpc":"2.0","id":2,"method":"complexity","params":{"root_path":"/p"}}"#;
    let rejected = serve(&gaze, &mut bad(analyzer(json!({}))), &[INIT, request]);
    let answer = &rejected.answers(&gaze)[1];
    assert_eq!(answer["error"]["code"], -32603);
    let pointers: Vec<&str> = answer["error"]["data"]["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter_map(|e| e["pointer"].as_str())
        .collect();
    assert!(
        pointers.contains(&"/functions/0/complexity"),
        "{pointers:?}"
    );
    let input = common::frame_all(&gaze, &[INIT, request]);
    let warned = serve_bytes(
        &gaze,
        &mut bad(analyzer(json!({}))),
        ServeOptions {
            result_check: ResultCheck::Warn,
        },
        &input,
    );
    assert_eq!(
        warned.answers(&gaze)[1]["result"]["functions"][0]["complexity"],
        "high"
    );
    assert!(
        warned
            .log
            .iter()
            .any(|l| l.contains("/functions/0/complexity")),
        "{:?}",
        warned.log
    );
}

#[test]
fn analyze_stream_sends_bare_items_then_ends() {
    let gaze = gaze();
    let item = json!({"name": "f", "package": "p", "file": "f.py", "line": 1, "side_effects": []});
    let mut handler = analyzer(json!({"streaming": true}))
        .streaming("analyze/stream", vec![item.clone(), item.clone()]);
    let run = serve(
        &gaze,
        &mut handler,
        &[
            INIT,
            r#"{"jsonrpc":"2.0","id":2,"method":"analyze/stream","params":{"root_path":"/p"}}"#,
            INIT,
        ],
    );
    let answers = run.answers(&gaze);
    assert_eq!(
        answers.len(),
        3,
        "the initialize answer and two bare items: {answers:?}"
    );
    assert_eq!(answers[1], item);
    assert_eq!(
        run.outcome,
        ServeOutcome::Ended,
        "the stream closes the session"
    );
}

#[test]
fn version_1_0_0_still_serves_the_1_0_0_messages() {
    let gaze = wirekit_protocols::protocol("gaze-analyzer@1.0.0").expect("1.0.0");
    let mut handler = analyzer(json!({"discover": false, "test_mapping": false, "classify_signals": false}))
        .returning("initialize", json!({"capabilities": {}, "protocol_version": "1.0.0", "analyzer_name": "a", "language": "go"}));
    let run = serve(
        &gaze,
        &mut handler,
        &[
            INIT,
            r#"{"jsonrpc":"2.0","id":2,"method":"doc_coverage","params":{"root_path":"/p"}}"#,
        ],
    );
    assert_eq!(
        run.answers(&gaze)[1]["error"]["code"],
        -32601,
        "doc_coverage is not a 1.0.0 method"
    );
}

/// Answers `complexity` through the encoded fast path, everything else as `inner` does.
struct Encoded {
    inner: TableHandler,
    raw: String,
}

impl wirekit::serve::Handler for Encoded {
    fn implements(&self, method: &str) -> bool {
        self.inner.implements(method)
    }
    fn handle(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, wirekit::envelope::ErrorObject> {
        self.inner.handle(method, params)
    }
    fn answers_encoded(&self, method: &str) -> bool {
        method == "complexity"
    }
    fn handle_encoded(
        &mut self,
        _method: &str,
        _params: Option<Value>,
    ) -> Result<Box<serde_json::value::RawValue>, wirekit::envelope::ErrorObject> {
        serde_json::value::RawValue::from_string(self.raw.clone())
            .map_err(|e| wirekit::envelope::ErrorObject::new(-32603, e.to_string()))
    }
}

#[test]
fn an_encoded_answer_is_byte_for_byte_the_ordinary_one() {
    let gaze = gaze();
    let request =
        r#"{"jsonrpc":"2.0","id":"c-7","method":"complexity","params":{"root_path":"/p"}}"#;
    let ordinary = serve(&gaze, &mut analyzer(json!({})), &[INIT, request]);
    let raw =
        r#"{"functions":[{"name":"divide","package":"m","file":"m.rs","line":20,"complexity":5}]}"#;
    let input = common::frame_all(&gaze, &[INIT, request]);
    let mut encoded = Encoded {
        inner: analyzer(json!({})),
        raw: raw.to_owned(),
    };
    let mut output = Vec::new();
    wirekit::serve::Server::new(gaze.clone(), ServeOptions::default())
        .serve(&mut encoded, &input[..], &mut output)
        .expect("serves");
    assert_eq!(
        String::from_utf8_lossy(&output),
        String::from_utf8_lossy(&ordinary.output)
    );
    assert!(
        !encoded.inner.calls.contains(&"complexity".to_owned()),
        "the fast path answered"
    );
}
