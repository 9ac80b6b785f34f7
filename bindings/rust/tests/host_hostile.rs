//! The host against hostile servers: each ends the call with a precise
//! error, in bounded time, holding no more than the frame bound.
//!
//! Servers: one that floods stdout with garbage, one that sends one endless
//! line, one that writes a `Content-Length` of 2 GiB, one that answers an id
//! never sent, one that answers twice, one that sleeps forever, one that
//! closes stdout but keeps running, one that dies mid-frame.

#![cfg(feature = "host")]

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use wirekit::host::{Host, HostError, HostErrorKind};
use wirekit::validate::Protocol;

fn python(script: &str) -> Command {
    let mut command = Command::new("python3");
    command.arg("-c").arg(script);
    command
}

fn gaze() -> Arc<Protocol> {
    wirekit_protocols::protocol("gaze-analyzer@1.0.0").expect("embedded")
}

/// One `initialize` call against `script`, which must fail within 20 s.
fn initialize_against(protocol: Arc<Protocol>, script: &str, method: &str) -> HostError {
    let mut host = Host::spawn(protocol, &mut python(script))
        .expect("spawns")
        .with_timeout(Duration::from_secs(3));
    let started = Instant::now();
    let error = host
        .call(method, Some(json!({"root_path": "/p"})))
        .expect_err("a hostile server's answer is refused");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    assert!(!error.message().is_empty());
    error
}

const INIT_RESULT: &str = r#"{"capabilities": {"discover": False, "test_mapping": False, "classify_signals": False}, "analyzer_name": "a", "analyzer_version": "1", "protocol_version": "1.0.0", "language": "python"}"#;

#[test]
fn garbage_on_stdout_is_an_envelope_error() {
    let script = "import sys\nsys.stdin.readline()\nwhile True:\n    sys.stdout.write('garbage \\x00 not json\\n' * 1000)\n";
    let error = initialize_against(gaze(), script, "initialize");
    assert_eq!(error.kind(), HostErrorKind::Envelope, "{error}");
}

#[test]
fn an_endless_line_stops_at_the_frame_bound() {
    let script =
        "import sys\nsys.stdin.readline()\nchunk = 'x' * 65536\nwhile True:\n    sys.stdout.write(chunk)\n";
    let error = initialize_against(gaze(), script, "initialize");
    assert_eq!(error.kind(), HostErrorKind::Framing, "{error}");
}

#[test]
fn a_content_length_of_2_gib_is_refused_before_buffering() {
    let gzkit = wirekit_protocols::protocol("gzkit-authoring-guide").expect("embedded");
    let script = "import sys, time\nsys.stdin.buffer.read(1)\nsys.stdout.write('Content-Length: 2147483648\\r\\n\\r\\n' + 'x' * 1000)\nsys.stdout.flush()\ntime.sleep(60)\n";
    let method = gzkit
        .manifest()
        .methods
        .iter()
        .find(|(_, spec)| spec.kind == wirekit::protocol::MethodKind::Request)
        .map(|(name, _)| name.clone())
        .expect("a request");
    let mut host = Host::spawn(gzkit, &mut python(script))
        .expect("spawns")
        .with_timeout(Duration::from_secs(3));
    let started = Instant::now();
    let error = host.call(&method, Some(json!({}))).expect_err("refused");
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(
        matches!(
            error.kind(),
            HostErrorKind::Framing | HostErrorKind::Lifecycle | HostErrorKind::InvalidParams
        ),
        "{error}"
    );
}

#[test]
fn an_answer_to_an_id_never_sent_is_an_envelope_error() {
    let script = format!(
        "import sys, json\nsys.stdin.readline()\nprint(json.dumps({{'jsonrpc': '2.0', 'id': 999, 'result': {INIT_RESULT}}}), flush=True)\nsys.stdin.read()\n"
    );
    let error = initialize_against(gaze(), &script, "initialize");
    assert_eq!(error.kind(), HostErrorKind::Envelope, "{error}");
    assert!(
        error.message().contains(
            "a result for id 999, which no pending request carries, while `initialize` (id 1)"
        ),
        "{error}"
    );
}

#[test]
fn a_second_answer_to_one_request_is_an_envelope_error() {
    let script = format!(
        "import sys, json\nfor line in sys.stdin:\n    rid = json.loads(line)['id']\n    for _ in range(2):\n        print(json.dumps({{'jsonrpc': '2.0', 'id': rid, 'result': {INIT_RESULT}}}), flush=True)\n"
    );
    let mut host = Host::spawn(gaze(), &mut python(&script))
        .expect("spawns")
        .with_timeout(Duration::from_secs(3));
    host.call("initialize", Some(json!({"root_path": "/p"})))
        .expect("the first answer is fine");
    let error = host
        .call("complexity", Some(json!({"root_path": "/p"})))
        .expect_err("the repeated answer is refused");
    assert_eq!(error.kind(), HostErrorKind::Envelope, "{error}");
}

#[test]
fn a_server_that_sleeps_forever_times_out() {
    let script = "import time\ntime.sleep(3600)\n";
    let error = initialize_against(gaze(), script, "initialize");
    assert_eq!(error.kind(), HostErrorKind::Timeout, "{error}");
}

#[test]
fn a_server_that_closes_stdout_but_keeps_running_is_reported_at_once() {
    let script = "import os, sys, time\nsys.stdin.readline()\nos.close(1)\ntime.sleep(3600)\n";
    let mut host = Host::spawn(gaze(), &mut python(script))
        .expect("spawns")
        .with_timeout(Duration::from_secs(30));
    let started = Instant::now();
    let error = host
        .call("initialize", Some(json!({"root_path": "/p"})))
        .expect_err("no answer can come");
    assert_eq!(error.kind(), HostErrorKind::Exited, "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "waited for the timeout instead: {:?}",
        started.elapsed()
    );
}

#[test]
fn a_server_that_dies_mid_frame_is_reported() {
    let script = "import sys\nsys.stdin.readline()\nsys.stdout.write('{\"jsonrpc\": \"2.0\", \"id\": 1, \"res')\nsys.stdout.flush()\nsys.exit(1)\n";
    let error = initialize_against(gaze(), script, "initialize");
    // The partial line reaches the decoder at end of input: refused as
    // an envelope that is not JSON, with the parser's position.
    assert!(
        matches!(
            error.kind(),
            HostErrorKind::Exited | HostErrorKind::Framing | HostErrorKind::Envelope
        ),
        "{error}"
    );
}
