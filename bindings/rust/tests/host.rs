//! The host drives real subprocesses: the Gaze spec's own minimal Python
//! analyzer, a wedged server, a crashing one.

#![cfg(feature = "host")]

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use wirekit::host::{Host, HostErrorKind};
use wirekit::validate::Protocol;

/// The "Minimal Example (Python)" of the Gaze analyzer protocol spec, verbatim.
const SPEC_MINIMAL_ANALYZER: &str = include_str!("../../../tests/peers/gaze_minimal_analyzer.py");

fn python(script: &str) -> Command {
    let mut command = Command::new("python3");
    command.arg("-c").arg(script);
    command
}

fn gaze() -> std::sync::Arc<Protocol> {
    wirekit_protocols::protocol("gaze-analyzer@1.0.0").expect("embedded")
}

#[test]
fn drives_the_spec_minimal_analyzer_through_a_whole_session() {
    let mut host = Host::spawn(gaze(), &mut python(SPEC_MINIMAL_ANALYZER)).expect("spawns");
    let init = host
        .call("initialize", Some(json!({"root_path": "/p"})))
        .expect("initialize");
    assert_eq!(init["analyzer_name"], "minimal-python");
    assert!(
        host.session()
            .capabilities()
            .is_some_and(|declared| declared.is_empty()),
        "nothing optional declared"
    );
    for method in ["analyze", "complexity", "coverage"] {
        let result = host
            .call(method, Some(json!({"root_path": "/p", "patterns": null})))
            .expect(method);
        assert_eq!(result, json!({"functions": []}));
    }
    assert_eq!(host.call("shutdown", None).expect("shutdown"), json!({}));
    assert!(host.session().is_ended());
    let status = host.close(Duration::from_secs(5)).expect("exits");
    assert!(status.success());
}

#[test]
fn calls_are_checked_before_they_are_sent() {
    let mut host = Host::spawn(gaze(), &mut python(SPEC_MINIMAL_ANALYZER)).expect("spawns");
    let early = host
        .call("analyze", Some(json!({"root_path": "/p"})))
        .expect_err("before initialize");
    assert_eq!(early.kind(), HostErrorKind::Lifecycle);
    let unknown = host.call("frobnicate", None).expect_err("unknown");
    assert_eq!(unknown.kind(), HostErrorKind::UnknownMethod);
    host.call("initialize", Some(json!({"root_path": "/p"})))
        .expect("initialize");
    let bad = host
        .call("analyze", Some(json!({"root_path": 7})))
        .expect_err("bad params");
    assert_eq!(bad.kind(), HostErrorKind::InvalidParams);
    assert_eq!(bad.validation_issues()[0].instance_path, "/root_path");
    let gated = host
        .call("discover", Some(json!({"root_path": "/p"})))
        .expect_err("not declared");
    assert_eq!(gated.kind(), HostErrorKind::Lifecycle);
    assert!(gated.message().contains("capability `discover`"), "{gated}");
    // Nothing refused reached the analyzer: its next answer is still in step.
    assert_eq!(
        host.call("complexity", Some(json!({"root_path": "/p"})))
            .expect("in step"),
        json!({"functions": []})
    );
}

#[test]
fn a_wedged_server_is_killed_at_the_timeout() {
    let wedged = "import sys\nfor line in sys.stdin:\n    pass\n";
    let mut host = Host::spawn(gaze(), &mut python(wedged))
        .expect("spawns")
        .with_timeout(Duration::from_millis(300));
    let started = Instant::now();
    let error = host
        .call("initialize", Some(json!({"root_path": "/p"})))
        .expect_err("times out");
    assert_eq!(error.kind(), HostErrorKind::Timeout);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(host.session().is_ended());
}

#[test]
fn a_crashing_server_reports_its_stderr() {
    let crashing =
        "import sys\nsys.stdin.readline()\nsys.stderr.write('Traceback: boom\\n')\nsys.exit(3)\n";
    let mut host = Host::spawn(gaze(), &mut python(crashing)).expect("spawns");
    let error = host
        .call("initialize", Some(json!({"root_path": "/p"})))
        .expect_err("dies");
    assert_eq!(error.kind(), HostErrorKind::Exited);
    assert!(error.stderr().contains("Traceback: boom"), "{error}");
}

#[test]
fn an_invalid_result_is_reported_with_its_pointers() {
    let liar = r#"
import json, sys
for line in sys.stdin:
    rid = json.loads(line)["id"]
    print(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"capabilities": {}, "protocol_version": 1}}), flush=True)
"#;
    let mut host = Host::spawn(gaze(), &mut python(liar)).expect("spawns");
    let error = host
        .call("initialize", Some(json!({"root_path": "/p"})))
        .expect_err("invalid");
    assert_eq!(error.kind(), HostErrorKind::InvalidResult);
    let pointers: Vec<&str> = error
        .validation_issues()
        .iter()
        .map(|i| i.instance_path.as_str())
        .collect();
    assert!(
        pointers.contains(&"/protocol_version") && pointers.contains(&"/analyzer_name"),
        "{pointers:?}"
    );
}

#[test]
fn the_generated_typed_client_drives_a_subprocess_through_the_host() {
    use wirekit::typed::CallError;
    use wirekit_protocols::gaze_analyzer_v1_0_0::types::{ComplexityParams, InitializeParams};
    use wirekit_protocols::gaze_analyzer_v1_0_0::GazeAnalyzerClient;

    let host = Host::spawn(gaze(), &mut python(SPEC_MINIMAL_ANALYZER)).expect("spawns");
    let mut client = GazeAnalyzerClient(host);
    let params: InitializeParams =
        serde_json::from_value(json!({"root_path": "/p"})).expect("params");
    let init = client.initialize(&params).expect("initialize");
    assert_eq!(init.analyzer_name, "minimal-python");
    assert!(!init.capabilities.discover);
    let params: ComplexityParams =
        serde_json::from_value(json!({"root_path": "/p"})).expect("params");
    assert!(client
        .complexity(&params)
        .expect("complexity")
        .functions
        .is_empty());
    let discover: wirekit_protocols::gaze_analyzer_v1_0_0::types::DiscoverParams =
        serde_json::from_value(json!({"root_path": "/p"})).expect("params");
    let refused = client.discover(&discover);
    assert!(
        matches!(&refused, Err(CallError::Rpc(error)) if error.code == -32601),
        "refused locally, capability not declared: {refused:?}"
    );
}
