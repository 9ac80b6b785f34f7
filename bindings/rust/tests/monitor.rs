//! The session checker used frame by frame, as `wirekit conformance` uses
//! it as the judge of a live session: problems appear as the frames come,
//! both sides are judged, and the server's own requests keep their ids
//! apart from the client's.

#![cfg(feature = "monitor")]
// A test harness reports a failed expectation by panicking.
#![allow(clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};
use wirekit::framing::{decoder_for, Frame, FramingError};
use wirekit::monitor::{Party, ProblemKind, SessionChecker};
use wirekit::protocol::ProtocolSource;
use wirekit::validate::Protocol;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root_path":"/p"}}"#;
const INIT_RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"discover":false,"test_mapping":false,"classify_signals":false},"protocol_version":"1.0.0","analyzer_name":"a","language":"python"}}"#;

fn frames(protocol: &Protocol, lines: &[&str]) -> Vec<Result<Frame, FramingError>> {
    let transport = &protocol.manifest().transport;
    let mut decoder = decoder_for(transport.framing, transport.frame_limits());
    for line in lines {
        decoder.push(format!("{line}\n").as_bytes());
    }
    decoder.finish();
    std::iter::from_fn(|| decoder.next_frame()).collect()
}

fn kinds(checker: &SessionChecker) -> Vec<(usize, &'static str)> {
    checker
        .problems()
        .iter()
        .map(|p| (p.frame, p.kind.name()))
        .collect()
}

#[test]
fn problems_appear_frame_by_frame_and_name_the_related_frame() {
    let protocol =
        wirekit_protocols::protocol("gaze-analyzer@1.0.0").unwrap_or_else(|e| panic!("{e}"));
    let mut checker = SessionChecker::new(Arc::clone(&protocol));
    let analyze = r#"{"jsonrpc":"2.0","id":2,"method":"analyze","params":{"root_path":"/p"}}"#;
    let mut input = frames(
        &protocol,
        &[
            analyze,
            r#"{"jsonrpc":"2.0","id":2,"result":{"functions":[]}}"#,
        ],
    )
    .into_iter();
    checker.on_frame(input.next().unwrap_or_else(|| panic!("a frame")));
    assert_eq!(kinds(&checker), vec![(0, "lifecycle")]);
    checker.on_frame(input.next().unwrap_or_else(|| panic!("a frame")));
    assert_eq!(
        kinds(&checker),
        vec![(0, "lifecycle"), (1, "accepted_invalid")]
    );
    let accepted = &checker.problems()[1];
    assert_eq!(accepted.related, Some(0));
    assert!(accepted.kind.blames_server());
    assert!(!checker.problems()[0].kind.blames_server());
    assert_eq!(checker.frames(), 2);
    assert_eq!(checker.finish().len(), 2);
    assert_eq!(checker.finish().len(), 2, "finishing twice adds nothing");
}

#[test]
fn every_kind_has_a_stable_name_that_reads_back() {
    for kind in ProblemKind::ALL {
        assert_eq!(ProblemKind::from_name(kind.name()), Some(kind));
        assert_eq!(
            serde_json::to_value(kind).unwrap_or_default(),
            json!(kind.name())
        );
    }
    assert_eq!(ProblemKind::from_name("nope"), None);
}

/// gaze-analyzer@1.0.0 with a declared server-to-client request.
fn with_server_request() -> Arc<Protocol> {
    with_methods(&json!({
        "workspace/configuration": {
            "kind": "request",
            "direction": "server-to-client",
            "description": "The server asks the client for settings.",
            "params": {"$ref": "gaze.schema.json#/$defs/ShutdownParams"},
            "params_optional": true,
            "result": {"$ref": "gaze.schema.json#/$defs/ShutdownResult"}
        }
    }))
}

/// Gaze 1.0.0 with `extra` methods added to its manifest.
fn with_methods(extra: &Value) -> Arc<Protocol> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/gaze-analyzer/1.0.0");
    // One folder a call: the tests run at once.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "wirekit-monitor-server-request-{}-{call}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    for entry in std::fs::read_dir(&source).unwrap_or_else(|e| panic!("{e}")) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        let name = path.file_name().unwrap_or_default().to_owned();
        std::fs::copy(&path, dir.join(name)).unwrap_or_else(|e| panic!("{e}"));
    }
    let manifest_path = dir.join("protocol.json");
    let text = std::fs::read_to_string(&manifest_path).unwrap_or_else(|e| panic!("{e}"));
    let mut manifest: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    for (name, spec) in extra.as_object().into_iter().flatten() {
        manifest["methods"][name] = spec.clone();
    }
    std::fs::write(&manifest_path, manifest.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let loaded = ProtocolSource::from_dir(&dir, "gaze-analyzer/1.0.0").and_then(Protocol::compile);
    let _ = std::fs::remove_dir_all(&dir);
    Arc::new(loaded.unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn methods_both_peers_send_are_judged_whoever_sends_them() {
    let protocol = with_methods(&json!({
        "ping": {
            "kind": "request",
            "direction": "both",
            "description": "Either peer checks the other is alive.",
            "params_optional": true,
            "result": {"$ref": "gaze.schema.json#/$defs/ShutdownResult"}
        },
        "$/progress": {
            "kind": "notification",
            "direction": "both",
            "description": "Either peer reports progress.",
            "params_optional": true
        }
    }));
    let lines = [
        INIT,
        INIT_RESULT,
        r#"{"jsonrpc":"2.0","method":"$/progress","params":{"token":1}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"complexity","params":{"root_path":"/p"}}"#,
        // The server pings mid-call with the client's pending id 2: its own.
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"$/progress","params":{"token":2}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"functions":[]}}"#,
        // The client pings.
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
    ];
    let mut checker = SessionChecker::new(Arc::clone(&protocol));
    for frame in frames(&protocol, &lines) {
        checker.on_frame(frame);
    }
    let problems = checker.finish();
    assert!(problems.is_empty(), "{problems:?}");
    // An invalid result to a ping is still the answerer's fault.
    let mut checker = SessionChecker::new(Arc::clone(&protocol));
    let bad = [
        INIT,
        INIT_RESULT,
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":[]}"#,
    ];
    for frame in frames(&protocol, &bad) {
        checker.on_frame(frame);
    }
    assert_eq!(kinds(&checker), [(3, "invalid_result")]);
}

#[test]
fn a_server_request_with_the_clients_pending_id_is_paired_apart() {
    let protocol = with_server_request();
    let lines = [
        INIT,
        INIT_RESULT,
        r#"{"jsonrpc":"2.0","id":2,"method":"complexity","params":{"root_path":"/p"}}"#,
        // The server asks the client mid-call, with the same id 2.
        r#"{"jsonrpc":"2.0","id":2,"method":"workspace/configuration"}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"functions":[]}}"#,
    ];
    let mut checker = SessionChecker::new(Arc::clone(&protocol));
    for frame in frames(&protocol, &lines) {
        checker.on_frame(frame);
    }
    let problems = checker.finish();
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn the_blame_follows_the_sender() {
    let protocol = with_server_request();
    let lines = [
        INIT,
        INIT_RESULT,
        r#"{"jsonrpc":"2.0","id":2,"method":"complexity","params":{"root_path":"/p"}}"#,
        // The server's request with invalid params: the server's fault.
        r#"{"jsonrpc":"2.0","id":"s1","method":"workspace/configuration","params":[]}"#,
        // The client's answer with an invalid result: the client's fault.
        r#"{"jsonrpc":"2.0","id":"s1","result":[]}"#,
        // A server request the client never answers: the client's fault.
        r#"{"jsonrpc":"2.0","id":"s2","method":"workspace/configuration"}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"functions":[]}}"#,
        // The client's own request with invalid params: the client's fault.
        r#"{"jsonrpc":"2.0","id":3,"method":"complexity","params":[]}"#,
    ];
    let mut checker = SessionChecker::new(Arc::clone(&protocol));
    for frame in frames(&protocol, &lines) {
        checker.on_frame(frame);
    }
    let blamed: Vec<(usize, &str, Party)> = checker
        .finish()
        .iter()
        .map(|p| (p.frame, p.kind.name(), p.blame))
        .collect();
    assert!(
        blamed.contains(&(3, "invalid_params", Party::Server)),
        "{blamed:?}"
    );
    assert!(
        blamed.contains(&(4, "invalid_result", Party::Client)),
        "{blamed:?}"
    );
    assert!(
        blamed.contains(&(5, "unanswered", Party::Client)),
        "{blamed:?}"
    );
    assert!(
        blamed.contains(&(7, "invalid_params", Party::Client)),
        "{blamed:?}"
    );
}

#[test]
fn a_cancelled_request_may_go_unanswered_where_the_protocol_says_so() {
    let cancel = json!({
        "kind": "notification",
        "direction": "both",
        "description": "Cancels a request the sender sent.",
        "params": {"$ref": "gaze.schema.json#/$defs/ShutdownParams"}
    });
    let lines = [
        INIT,
        INIT_RESULT,
        r#"{"jsonrpc":"2.0","id":2,"method":"complexity","params":{"root_path":"/p"}}"#,
        r#"{"jsonrpc":"2.0","method":"cancel","params":{"requestId":2}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"complexity","params":{"root_path":"/p"}}"#,
    ];
    let judge = |answer: &str| {
        let protocol = with_methods(&json!({"cancel": cancel}));
        let cancellation =
            json!({"method": "cancel", "id_pointer": "/requestId", "answer": answer});
        judged(&edited(&protocol, "cancellation", cancellation), &lines)
    };
    // MCP: the cancelled request goes unanswered; the other one is owed.
    assert_eq!(judge("optional"), [(4, "unanswered")]);
    // LSP: a cancelled request is still answered.
    assert_eq!(judge("required"), [(2, "unanswered"), (4, "unanswered")]);
}

#[test]
fn a_rule_bound_on_the_sender_owes_no_refusal() {
    let lines = [
        INIT,
        INIT_RESULT,
        // Invalid params (root_path must be a string), answered with a result.
        r#"{"jsonrpc":"2.0","id":2,"method":"complexity","params":{"root_path":5}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"functions":[]}}"#,
    ];
    let judge = |enforcement: Value| {
        judged(
            &edited(&with_methods(&json!({})), "enforcement", enforcement),
            &lines,
        )
    };
    assert_eq!(
        judge(json!({})),
        [(2, "invalid_params"), (3, "accepted_invalid")]
    );
    assert_eq!(judge(json!({"params": "sender"})), [(2, "invalid_params")]);
}

/// `protocol` with its manifest's `member` set to `value`.
fn edited(protocol: &Protocol, member: &str, value: Value) -> Arc<Protocol> {
    let mut manifest = protocol.source().manifest_json.clone();
    manifest[member] = value;
    let source = ProtocolSource::new(
        &protocol.source().origin,
        manifest,
        protocol.source().files.clone(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    Arc::new(Protocol::compile(source).unwrap_or_else(|e| panic!("{e}")))
}

/// The (frame, kind) of every problem in the session `lines`.
fn judged(protocol: &Arc<Protocol>, lines: &[&str]) -> Vec<(usize, &'static str)> {
    let mut checker = SessionChecker::new(Arc::clone(protocol));
    for frame in frames(protocol, lines) {
        checker.on_frame(frame);
    }
    checker.finish();
    kinds(&checker)
}

/// With the capture's sides (who sent each frame), a request sent by the
/// peer its direction does not allow is the sender's `wrong_direction`, and
/// answers pair with the other peer's requests; without them the direction
/// is inferred from the method, and the same capture reads as a client
/// that sent both requests.
#[test]
fn with_sides_a_request_in_the_wrong_direction_is_the_senders_fault() {
    use wirekit::capture::Sender::{Client, Server};
    let protocol = with_server_request();
    let lines = [
        INIT,
        INIT_RESULT,
        // The server sends a client-to-server request ...
        r#"{"jsonrpc":"2.0","id":"s9","method":"complexity","params":{"root_path":"/p"}}"#,
        // ... and the client answers it.
        r#"{"jsonrpc":"2.0","id":"s9","result":{"functions":[]}}"#,
        // The client sends a server-to-client request; the server refuses it.
        r#"{"jsonrpc":"2.0","id":5,"method":"workspace/configuration","params":{"items":[]}}"#,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found"}}"#,
    ];
    let senders = [Client, Server, Server, Client, Client, Server];
    let mut checker = SessionChecker::new(Arc::clone(&protocol));
    for (frame, sender) in frames(&protocol, &lines).into_iter().zip(senders) {
        checker.on_frame_from(frame, Some(sender));
    }
    let blamed: Vec<(usize, &str, Party)> = checker
        .finish()
        .iter()
        .map(|p| (p.frame, p.kind.name(), p.blame))
        .collect();
    assert_eq!(
        blamed,
        [
            (2, "wrong_direction", Party::Server),
            (4, "wrong_direction", Party::Client)
        ]
    );
    let message = &checker.problems()[0].message;
    assert!(
        message.contains("the server sent the `complexity` request, which is client-to-server"),
        "{message}"
    );
    assert!(
        !judged(&protocol, &lines)
            .iter()
            .any(|(_, kind)| *kind == "wrong_direction"),
        "without sides no direction is known"
    );
}

/// A request that declares its errors (`errors`, names of the manifest's)
/// may be answered with those and JSON-RPC's own codes; any other code is
/// the server's `undeclared_error`.
#[test]
fn an_error_a_request_does_not_declare_is_reported() {
    let base = with_methods(&json!({}));
    let mut manifest = base.source().manifest_json.clone();
    let analysis_failed = -32001;
    if let Some(errors) = manifest["errors"].as_array_mut() {
        errors.push(json!({"code": analysis_failed, "name": "ANALYSIS_FAILED"}));
    }
    manifest["methods"]["complexity"]["errors"] = json!(["ANALYSIS_FAILED"]);
    let source = ProtocolSource::new(&base.source().origin, manifest, base.source().files.clone())
        .unwrap_or_else(|e| panic!("{e}"));
    let protocol = Arc::new(Protocol::compile(source).unwrap_or_else(|e| panic!("{e}")));
    let answered = |code: i64| {
        let complexity =
            r#"{"jsonrpc":"2.0","id":2,"method":"complexity","params":{"root_path":"/p"}}"#;
        let error =
            format!(r#"{{"jsonrpc":"2.0","id":2,"error":{{"code":{code},"message":"no"}}}}"#);
        judged(&protocol, &[INIT, INIT_RESULT, complexity, &error])
    };
    assert_eq!(answered(analysis_failed), []);
    assert_eq!(
        answered(-32602),
        [],
        "JSON-RPC's own codes are always declared"
    );
    assert_eq!(answered(0), [(3, "undeclared_error")]);

    let mut unknown = base.source().manifest_json.clone();
    unknown["methods"]["complexity"]["errors"] = json!(["NO_SUCH_ERROR"]);
    let refused = ProtocolSource::new(&base.source().origin, unknown, base.source().files.clone())
        .and_then(Protocol::compile);
    let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.contains("`NO_SUCH_ERROR` is not an error of the manifest's `errors`"),
        "{message}"
    );
}

/// A protocol that states no frame bound (MCP) loads without one; every
/// frame is still held to wirekit's own bound.
#[test]
fn a_protocol_may_state_no_frame_bound() {
    let base = with_methods(&json!({}));
    let mut manifest = base.source().manifest_json.clone();
    if let Some(transport) = manifest["transport"].as_object_mut() {
        transport.remove("max_frame_bytes");
    }
    let source = ProtocolSource::new(&base.source().origin, manifest, base.source().files.clone())
        .unwrap_or_else(|e| panic!("{e}"));
    let protocol = Protocol::compile(source).unwrap_or_else(|e| panic!("{e}"));
    let transport = &protocol.manifest().transport;
    assert!(!transport.states_frame_bound());
    assert_eq!(transport.frame_bound(), 64 * 1024 * 1024);
    assert_eq!(transport.frame_limits().max_frame_bytes, 64 * 1024 * 1024);
    let answer = wirekit::serve::over_bound(&protocol, "complexity", "the result", 70 << 20);
    assert!(
        answer.message.contains(
            "over wirekit's own 67108864-byte frame bound (gaze-analyzer@1.0.0 states none)"
        ),
        "{}",
        answer.message
    );
}

/// The driver protocol's `driver.capabilities` sent right behind
/// `driver.hello`, before its answer (as the Go reference Core may): a
/// driver reads its input in order, so the request is judged in the state
/// hello's success reaches, and a driver that answers both is clean. Where
/// hello is refused after all, the request behind it was owed the refusal
/// of the state it really met.
#[test]
fn a_request_right_behind_the_one_that_moves_the_session_is_judged_after_it() {
    let protocol =
        wirekit_protocols::protocol("agentapi-driver@1").unwrap_or_else(|e| panic!("{e}"));
    const HELLO: &str = r#"{"id":1,"jsonrpc":"2.0","method":"driver.hello","params":{"core_version_range":{"maximum":"1.0.0","minimum":"1.0.0"}}}"#;
    const HELLO_RESULT: &str = r#"{"id":1,"jsonrpc":"2.0","result":{"capabilities":{"cancellation":true,"concurrency":false,"max_concurrency":1,"operations":["responses.create"],"protocols":["openai.responses"],"retry_observed":false,"streaming":true},"driver_version_range":{"maximum":"1.0.0","minimum":"1.0.0"},"identity":{"architecture":"amd64","artifact_digest":"sha256:b4def8217cadae26d4da633fd2a4e58e326cbb5d570afdc3989484da07af3579","lockfile_digest":"sha256:0c030586945fe504b604ecc2e875c38ede400cd5cd73da9730302162e6b02c6f","name":"openai-python","os":"linux","runtime_name":"python","runtime_version":"3.13.0","sdk_name":"openai","sdk_version":"2.0.0","version":"1.0.0"},"requested_permissions":["target-only-network"]}}"#;
    const CAPABILITIES: &str =
        r#"{"id":2,"jsonrpc":"2.0","method":"driver.capabilities","params":{}}"#;
    const CAPABILITIES_RESULT: &str = r#"{"id":2,"jsonrpc":"2.0","result":{"capabilities":{"cancellation":true,"concurrency":false,"max_concurrency":1,"operations":["responses.create"],"protocols":["openai.responses"],"retry_observed":false,"streaming":true}}}"#;
    const HELLO_REFUSED: &str = r#"{"error":{"code":-32602,"data":{"class":"invalid_request"},"message":"core_version_range is not supported"},"id":1,"jsonrpc":"2.0"}"#;
    const CAPABILITIES_REFUSED: &str = r#"{"error":{"code":-32000,"data":{"class":"invalid_state"},"message":"driver.capabilities is invalid in NEW"},"id":2,"jsonrpc":"2.0"}"#;
    assert_eq!(
        judged(
            &protocol,
            &[HELLO, CAPABILITIES, HELLO_RESULT, CAPABILITIES_RESULT]
        ),
        vec![]
    );
    // Refused hello: the state stays NEW, so the request behind it is
    // refused as the protocol refuses it there, or accepted by mistake.
    assert_eq!(
        judged(
            &protocol,
            &[HELLO, CAPABILITIES, HELLO_REFUSED, CAPABILITIES_REFUSED]
        ),
        vec![]
    );
    assert_eq!(
        judged(
            &protocol,
            &[HELLO, CAPABILITIES, HELLO_REFUSED, CAPABILITIES_RESULT]
        ),
        vec![(3, "accepted_invalid")]
    );
    // Sent alone in NEW, it is still the client's fault.
    assert_eq!(
        judged(&protocol, &[CAPABILITIES, CAPABILITIES_REFUSED]),
        vec![(0, "lifecycle")]
    );
}

#[test]
fn a_whole_capture_is_judged_as_its_frames_are_one_by_one() {
    let protocol = with_server_request();
    let lines = [
        INIT,
        INIT_RESULT,
        r#"{"jsonrpc":"2.0","id":2,"method":"complexity","params":[]}"#,
        "{not json",
        r#"{"jsonrpc":"2.0","id":2,"result":{"functions":[]}}"#,
    ];
    let capture: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let judged = wirekit::monitor::judge(&protocol, capture.as_bytes(), None);
    let mut checker = SessionChecker::new(Arc::clone(&protocol));
    for frame in frames(&protocol, &lines) {
        checker.on_frame(frame);
    }
    assert_eq!(judged.frames, 5);
    assert_eq!(judged.problems, checker.finish().to_vec());
    assert!(!judged.problems.is_empty());
    assert!(wirekit::monitor::judge(&protocol, b"", None).frames == 0);
}

#[test]
fn a_judged_capture_blames_the_sender_its_sides_name() {
    let protocol = with_server_request();
    // The client's own request with invalid params, as the client sent it
    // and as a sides file says the server wrote it (a request the manifest
    // lets only the client send).
    let line = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":[]}\n";
    let from_server = wirekit::capture::Sides::parse("0 server\n").expect("sides parse");
    let blamed = |sides: Option<&wirekit::capture::Sides>| -> Vec<(&'static str, Party)> {
        wirekit::monitor::judge(&protocol, line.as_bytes(), sides)
            .problems
            .iter()
            .map(|p| (p.kind.name(), p.blame))
            .collect()
    };
    let as_client = blamed(None);
    let as_server = blamed(Some(&from_server));
    assert!(
        as_client.contains(&("invalid_params", Party::Client)),
        "{as_client:?}"
    );
    assert_ne!(as_client, as_server);
    assert!(
        !as_server.contains(&("invalid_params", Party::Client)),
        "{as_server:?}"
    );
}
