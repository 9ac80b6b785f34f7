//! `wirekit conformance` against servers this repository ships and against
//! deliberately broken ones (`tests/conformance/gaze_analyzer.py --fault`,
//! one fault each): the clean ones pass, each broken one fails exactly the
//! checks its fault breaks, with a message that names the cause.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

fn repo(path: &str) -> PathBuf {
    PathBuf::from(format!("{}/../{path}", env!("CARGO_MANIFEST_DIR")))
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("wirekit-conformance-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The example driver's binary: cargo builds a package's examples with its tests.
fn rust_driver() -> PathBuf {
    let wirekit = PathBuf::from(env!("CARGO_BIN_EXE_wirekit"));
    let dir = wirekit.parent().expect("target dir");
    dir.join("examples")
        .join(format!("rust_driver{}", std::env::consts::EXE_SUFFIX))
}

/// Runs the command with `--json`; the exit code and the report.
fn conformance(args: &[&str], server: &[&str]) -> (i32, Value) {
    support::conformance_report(&[args, &["--json", "--"], server].concat())
}

/// `group/name` of every check with `outcome`.
fn with_outcome(report: &Value, outcome: &str) -> Vec<String> {
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["outcome"] == outcome)
        .map(|c| {
            format!(
                "{}/{}",
                c["group"].as_str().unwrap_or(""),
                c["name"].as_str().unwrap_or("")
            )
        })
        .collect()
}

fn message_of<'a>(report: &'a Value, check: &str) -> &'a str {
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| {
            format!(
                "{}/{}",
                c["group"].as_str().unwrap_or(""),
                c["name"].as_str().unwrap_or("")
            ) == check
        })
        .and_then(|c| c["message"].as_str())
        .unwrap_or("")
}

fn analyzer(fault: Option<&str>) -> Vec<String> {
    let mut command = vec![
        "python3".to_owned(),
        repo("tests/conformance/gaze_analyzer.py")
            .to_string_lossy()
            .into_owned(),
    ];
    if let Some(fault) = fault {
        command.push("--fault".into());
        command.push(fault.into());
    }
    command
}

/// The broken analyzer; only the one that hangs gets a short timeout (the
/// others keep the defaults, so a slow start on a loaded machine is no hang).
fn run_analyzer(fault: Option<&str>) -> (i32, Value) {
    let command = analyzer(fault);
    let server: Vec<&str> = command.iter().map(String::as_str).collect();
    let mut args = vec!["--protocol", "gaze-analyzer@1.0.0"];
    if fault == Some("hang") {
        args.extend(["--timeout", "5"]);
    }
    conformance(&args, &server)
}

#[test]
fn a_conforming_analyzer_passes_every_check_and_its_recording_validates_clean() {
    let dir = scratch("clean");
    let record = dir.join("session.ndjson");
    let junit = dir.join("junit.xml");
    let command = analyzer(None);
    let server: Vec<&str> = command.iter().map(String::as_str).collect();
    let record_arg = record.to_string_lossy().into_owned();
    let junit_arg = junit.to_string_lossy().into_owned();
    let (code, report) = conformance(
        &[
            "--protocol",
            "gaze-analyzer@1.0.0",
            "--record",
            &record_arg,
            "--junit",
            &junit_arg,
        ],
        &server,
    );
    assert_eq!(
        with_outcome(&report, "fail"),
        Vec::<String>::new(),
        "{report:#}"
    );
    assert_eq!(
        with_outcome(&report, "warn"),
        Vec::<String>::new(),
        "{report:#}"
    );
    assert_eq!(code, 0);
    assert_eq!(report["passed"], true);
    let groups = report["summary"]["groups"].as_object().expect("groups");
    for group in [
        "lifecycle",
        "capabilities",
        "exit",
        "state",
        "params",
        "envelope",
        "framing",
        "output",
    ] {
        assert!(
            groups[group]["pass"].as_u64().unwrap_or(0) > 0,
            "group {group} ran no check"
        );
    }
    // The first session is the clean lifecycle: `validate` reads it clean.
    let validated = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args(["validate", "--protocol", "gaze-analyzer@1.0.0"])
        .arg(&record)
        .output()
        .expect("validate runs");
    assert!(
        validated.status.success(),
        "{}",
        String::from_utf8_lossy(&validated.stdout)
    );
    // The other sessions are recorded beside it.
    assert!(dir.join("session.2.ndjson").exists());
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    assert!(xml.starts_with("<?xml"));
    assert!(xml.contains("<testsuite name=\"params\""), "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");
}

#[test]
fn each_broken_analyzer_fails_exactly_the_check_its_fault_breaks() {
    let cases: [(&'static str, &'static [&'static str], &'static str); 9] = [
        ("wrong-type", &["lifecycle/`complexity` answers"], "\"none\" is not of type \"array\""),
        ("missing-member", &["lifecycle/`initialize` answers"], "required member `analyzer_name` is missing"),
        ("wrong-id", &["lifecycle/`analyze` answers"], "the answer carries id 1004; the request's id was 4"),
        ("crash", &["lifecycle/`coverage` answers"], "the server exited (exit status 3) before answering `coverage`"),
        ("hang", &["lifecycle/`analyze` answers"], "no answer to `analyze` within 5 s"),
        (
            "stdout-noise",
            &["lifecycle/`analyze` answers", "output/stdout carries only frames of the protocol"],
            "not a JSON-RPC message: `debug: analyzing`",
        ),
        (
            "capability-not-served",
            &[
                "lifecycle/`discover` answers",
                "params/`discover` with missing required member `root_path` at /root_path is refused",
                "params/`discover` with the integer 12345 instead of string at /root_path is refused",
            ],
            "the server declared the capability of `discover` but answers it with -32601",
        ),
        (
            "accepts-early",
            &["state/`coverage` before `initialize` is refused"],
            "`coverage` was accepted: expected the error -32600",
        ),
        (
            "malformed-error",
            &[
                "capabilities/`discover` (capability `discover` not declared) is refused",
                "capabilities/`test_mapping` (capability `test_mapping` not declared) is refused",
                "capabilities/`classify_signals` (capability `classify_signals` not declared) is refused",
                "envelope/an unknown method is refused",
            ],
            "\"error\" has no \"message\"",
        ),
    ];
    // Two at a time: the machine may be busy, and a slow start is no fault.
    let (left, right) = cases.split_at(cases.len() / 2);
    let run_all = |cases: Vec<(&'static str, &'static [&'static str], &'static str)>| {
        std::thread::spawn(move || {
            cases
                .into_iter()
                .map(|(fault, expected, message)| {
                    let (code, report) = run_analyzer(Some(fault));
                    (fault, expected, message, code, report)
                })
                .collect::<Vec<_>>()
        })
    };
    let handles = [run_all(left.to_vec()), run_all(right.to_vec())];
    let results: Vec<_> = handles
        .into_iter()
        .flat_map(|h| h.join().expect("runs"))
        .collect();
    for (fault, expected, message, code, report) in results {
        assert_eq!(code, 1, "{fault}: a failed check exits 1");
        assert_eq!(
            with_outcome(&report, "fail"),
            expected,
            "{fault}: {report:#}"
        );
        let first = message_of(&report, expected[0]);
        assert!(
            first.contains(message),
            "{fault}: the message says `{first}`"
        );
    }
}

#[test]
fn a_server_that_does_not_exit_after_shutdown_fails_the_exit_check() {
    let (code, report) = run_analyzer(Some("no-exit"));
    assert_eq!(code, 1);
    let failed = with_outcome(&report, "fail");
    assert_eq!(
        failed,
        ["exit/exits after `shutdown` and the end of its input"],
        "{report:#}"
    );
    assert!(message_of(&report, &failed[0]).contains("still running 10 s after the session ended"));
}

#[test]
fn the_minimal_analyzer_of_the_gaze_spec_fails_what_it_does_not_do() {
    let peer = repo("tests/peers/gaze_minimal_analyzer.py");
    let (code, report) = conformance(
        &["--protocol", "gaze-analyzer@1.0.0", "--timeout", "5"],
        &["python3", &peer.to_string_lossy()],
    );
    assert_eq!(code, 1);
    let mut failed = with_outcome(&report, "fail");
    failed.sort();
    let mut expected: Vec<String> = vec![
        // No lifecycle: it answers everything in any state.
        "state/`coverage` before `initialize` is refused".into(),
        "state/a second `initialize` is refused".into(),
        // No params checks.
        "params/`initialize` with missing required member `root_path` at /root_path is refused"
            .into(),
        "params/`initialize` with the integer 12345 instead of string at /root_path is refused"
            .into(),
        "params/`initialize` with the integer 12345 instead of object at /config is refused".into(),
        // It crashes on what is not a JSON object.
        "envelope/malformed JSON is refused".into(),
        "envelope/a body that is not an object is refused".into(),
    ];
    for method in ["analyze", "complexity", "coverage"] {
        expected.push(format!(
            "params/`{method}` with missing required member `root_path` at /root_path is refused"
        ));
        expected.push(format!(
            "params/`{method}` with the integer 12345 instead of string at /root_path is refused"
        ));
        expected.push(format!("params/`{method}` with the integer 12345 instead of array or null at /patterns is refused"));
    }
    expected.sort();
    assert_eq!(failed, expected, "{report:#}");
    // It reads a line over the bound as a request: worth a warning only.
    assert_eq!(
        with_outcome(&report, "warn"),
        ["framing/a frame over the bound of 10485759 bytes is refused"]
    );
    // What it does do passes: the lifecycle, capabilities, the exit, unknown methods, stdout.
    let passed = with_outcome(&report, "pass");
    for check in [
        "lifecycle/`initialize` answers",
        "lifecycle/`analyze` answers",
        "capabilities/`discover` (capability `discover` not declared) is refused",
        "exit/exits after `shutdown` and the end of its input",
        "envelope/an unknown method is refused",
        "output/stdout carries only frames of the protocol",
    ] {
        assert!(
            passed.iter().any(|p| p == check),
            "{check} did not pass: {report:#}"
        );
    }
    let crash = message_of(&report, "envelope/malformed JSON is refused");
    assert!(
        crash.contains("the server exited (exit status 1) instead of answering malformed JSON"),
        "{crash}"
    );
}

#[test]
fn the_driver_on_the_serve_loop_conforms_through_a_whole_invocation() {
    let dir = scratch("driver");
    let input = dir.join("input.bin");
    std::fs::write(&input, vec![7u8; 150_000]).expect("input");
    let params = serde_json::json!({
        "driver.prepare": {
            "resolved_plan_digest": "sha256:64879f7d6b960a01909762d911a32d4582c20010c5641ee90278b644a9e3b525",
            "capability_token": "conformance",
            "approved_permissions": ["filesystem-read"]
        },
        "driver.invoke": {
            "invocation_id": "018f0000-0000-7000-8000-000000000001",
            "attempt_id": "018f0000-0000-7000-8000-000000000002",
            "operation": "fs.digest",
            "ephemeral_exact_input_handle": {"kind": "pipe", "value": input.to_string_lossy()}
        }
    });
    let params_file = dir.join("params.json");
    std::fs::write(&params_file, params.to_string()).expect("params");
    let driver = rust_driver();
    let (code, report) = conformance(
        &[
            "--protocol",
            "agentapi-driver",
            "--params",
            &params_file.to_string_lossy(),
        ],
        &[&driver.to_string_lossy()],
    );
    assert_eq!(
        with_outcome(&report, "fail"),
        Vec::<String>::new(),
        "{report:#}"
    );
    assert_eq!(
        with_outcome(&report, "warn"),
        Vec::<String>::new(),
        "{report:#}"
    );
    assert_eq!(code, 0);
    let invoke = report["checks"]
        .as_array()
        .and_then(|checks| {
            checks
                .iter()
                .find(|c| c["name"] == "`driver.invoke` answers")
        })
        .expect("invoke checked");
    // 150 000 bytes: three 64 KiB chunks, three observations, then the completion.
    assert_eq!(
        invoke["message"],
        "answered, then 4 notification(s) up to `driver.completed`"
    );
    // A strict protocol: the duplicate key and the unknown member are refused too.
    let passed = with_outcome(&report, "pass");
    assert!(passed.contains(&"envelope/a duplicate key is refused".to_owned()));
    assert!(passed.contains(&"envelope/an unknown envelope member is refused".to_owned()));
}

#[test]
fn usage_errors_exit_2_and_the_text_report_has_a_summary_table() {
    let output = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args([
            "conformance",
            "--protocol",
            "gaze-analyzer@1.0.0",
            "--only",
            "nothing",
            "--",
            "true",
        ])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown group `nothing`"));
    let command = analyzer(Some("accepts-early"));
    let output = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args([
            "conformance",
            "--protocol",
            "gaze-analyzer@1.0.0",
            "--only",
            "state",
            "--",
        ])
        .args(&command)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("FAIL  state        `coverage` before `initialize` is refused"),
        "{text}"
    );
    assert!(text.contains("group           pass  warn  fail"), "{text}");
    assert!(
        text.contains("does not conform: 1 passed, 0 warned, 1 failed"),
        "{text}"
    );
    // Only the state group ran.
    assert!(!text.contains("lifecycle"), "{text}");
}

#[test]
fn a_relative_server_path_is_a_file_in_the_project_root() {
    use std::os::unix::fs::PermissionsExt;
    let root = scratch("relative-server");
    std::fs::create_dir_all(root.join("bin")).expect("bin dir");
    let server = root.join("bin").join("analyzer");
    std::fs::write(
        &server,
        format!(
            "#!/bin/sh\nexec python3 '{}' \"$@\"\n",
            repo("tests/conformance/gaze_analyzer.py").display()
        ),
    )
    .expect("server script");
    std::fs::set_permissions(&server, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let root_arg = root.to_string_lossy().into_owned();
    // Run from elsewhere (the crate's directory): `bin/analyzer` is found in --root.
    let (code, report) = conformance(
        &[
            "--protocol",
            "gaze-analyzer@1.0.0",
            "--root",
            &root_arg,
            "--only",
            "lifecycle",
        ],
        &["bin/analyzer"],
    );
    assert_eq!(
        with_outcome(&report, "fail"),
        Vec::<String>::new(),
        "{report:#}"
    );
    assert_eq!(code, 0);
    // The report names the command as given.
    assert_eq!(report["command"], serde_json::json!(["bin/analyzer"]));
    // A relative path that is not in the root: a usage error naming both.
    let output = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args(["conformance", "--protocol", "gaze-analyzer@1.0.0", "--root"])
        .arg(&root)
        .args(["--", "bin/missing"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the server program `bin/missing` is not a file in the project root")
            && stderr.contains(&root_arg),
        "{stderr}"
    );
}

/// The battery sends what a client sends right after a method succeeds (the
/// manifest's `followed_by`: LSP's `initialized` after `initialize`), so a
/// server that waits for it before serving requests leaves its
/// initializing state. Judged by what the fake language server received.
#[test]
fn the_notification_that_follows_a_method_is_sent() {
    let dir = scratch("followed-by");
    let log = dir.join("received.jsonl");
    let fake = repo("lsp/tests/fake/fake_lsp.py");
    let (_, _report) = conformance(
        &["--protocol", "lsp@3.17"],
        &[
            "python3",
            fake.to_str().expect("utf-8"),
            "--log",
            log.to_str().expect("utf-8"),
        ],
    );
    let received: Vec<String> = std::fs::read_to_string(&log)
        .expect("the fake logged what it received")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|m| m["method"].as_str().map(str::to_owned))
        .collect();
    let initialize = received
        .iter()
        .position(|m| m == "initialize")
        .expect("initialize was sent");
    assert_eq!(
        received.get(initialize + 1).map(String::as_str),
        Some("initialized"),
        "{received:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A notification in the host's `sequence` is sent in its place, and the
/// battery goes on without waiting for an answer.
#[test]
fn a_notification_in_the_hosts_sequence_is_sent_in_its_place() {
    let dir = scratch("sequence-notification");
    let schemas = dir.join("schemas");
    let folder = schemas.join("lsp/3.17");
    std::fs::create_dir_all(&folder).expect("folder");
    for file in ["lsp.schema.json", "protocol.json"] {
        std::fs::copy(repo(&format!("schemas/lsp/3.17/{file}")), folder.join(file)).expect("copy");
    }
    let manifest_path = folder.join("protocol.json");
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).expect("manifest"))
            .expect("JSON");
    manifest["host"] = serde_json::json!({
        "sequence": ["initialize", "workspace/didChangeConfiguration", "textDocument/hover", "shutdown"]
    });
    std::fs::write(&manifest_path, manifest.to_string()).expect("edited manifest");
    let log = dir.join("received.jsonl");
    let fake = repo("lsp/tests/fake/fake_lsp.py");
    let (_, report) = conformance(
        &[
            "--protocol",
            "lsp@3.17",
            "--schemas",
            schemas.to_str().expect("utf-8"),
        ],
        &[
            "python3",
            fake.to_str().expect("utf-8"),
            "--log",
            log.to_str().expect("utf-8"),
        ],
    );
    let received: Vec<String> = std::fs::read_to_string(&log)
        .expect("the fake logged what it received")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|m| m["method"].as_str().map(str::to_owned))
        .collect();
    let at = |method: &str| received.iter().position(|m| m == method);
    let (initialized, configuration, hover) = (
        at("initialized").expect("initialized"),
        at("workspace/didChangeConfiguration").expect("the notification was sent"),
        at("textDocument/hover").expect("hover"),
    );
    assert!(
        initialized < configuration && configuration < hover,
        "{received:?}"
    );
    assert!(
        with_outcome(&report, "pass")
            .iter()
            .any(|name| name.contains("workspace/didChangeConfiguration")),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where the protocol's host sends SIGTERM after the exit grace
/// (`host.terminate_grace_ms`, MCP's stdio shutdown), a server that only
/// stops on SIGTERM ends as the protocol says: the exit check passes and
/// says how it ended.
#[test]
fn a_server_that_stops_on_sigterm_passes_where_the_host_terminates() {
    let dir = scratch("terminate");
    let folder = dir.join("schemas/gaze-analyzer/1.0.0");
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::copy(
        repo("schemas/gaze-analyzer/1.0.0/gaze.schema.json"),
        folder.join("gaze.schema.json"),
    )
    .expect("copy");
    let mut manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(repo("schemas/gaze-analyzer/1.0.0/protocol.json"))
            .expect("manifest"),
    )
    .expect("JSON");
    manifest["host"]["exit_grace_ms"] = serde_json::json!(500);
    manifest["host"]["terminate_grace_ms"] = serde_json::json!(5000);
    std::fs::write(folder.join("protocol.json"), manifest.to_string()).expect("manifest");
    let command = analyzer(Some("no-exit"));
    let server: Vec<&str> = command.iter().map(String::as_str).collect();
    let schemas = dir.join("schemas");
    let (code, report) = conformance(
        &[
            "--protocol",
            "gaze-analyzer@1.0.0",
            "--schemas",
            schemas.to_str().expect("utf-8"),
        ],
        &server,
    );
    assert_eq!(code, 0, "{report:#}");
    let check = "exit/exits after `shutdown` and the end of its input";
    assert!(
        message_of(&report, check).contains("on SIGTERM, sent 0.5 s after its input was closed"),
        "{}",
        message_of(&report, check)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A server that asks its client mid-call (a hover that needs
/// `workspace/configuration` answered first) is answered at once by the
/// battery, from `--answers` or else the manifest's example, so the call
/// it asked in passes instead of waiting out its timeout.
#[test]
fn a_server_asking_its_client_mid_call_is_answered_and_passes() {
    let dir = scratch("asks-mid-call");
    let fake = repo("lsp/tests/fake/fake_lsp.py");
    for answers in [
        None,
        Some(r#"{"workspace/configuration": {"result": [{"tabSize": 7}]}}"#),
    ] {
        let log = dir.join("received.jsonl");
        let _ = std::fs::remove_file(&log);
        let mut args = vec!["--protocol", "lsp@3.17", "--timeout", "20"];
        let answers_file = dir.join("answers.json");
        let answers_path = answers_file.to_string_lossy().into_owned();
        if let Some(text) = answers {
            std::fs::write(&answers_file, text).expect("answers");
            args.extend(["--answers", &answers_path]);
        }
        let started = std::time::Instant::now();
        let (_, report) = conformance(
            &args,
            &[
                "python3",
                fake.to_str().expect("utf-8"),
                "--hover-asks",
                "--log",
                log.to_str().expect("utf-8"),
            ],
        );
        let hover: Vec<&Value> = report["checks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| {
                c["name"]
                    .as_str()
                    // The calls that ask (the fake crashes on the invalid
                    // params the params group sends: not tested here).
                    .is_some_and(|n| n.contains("textDocument/hover") && !n.contains("refused"))
            })
            .collect();
        assert!(!hover.is_empty(), "{report}");
        for check in &hover {
            assert_ne!(check["outcome"], "fail", "{check}");
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        let received = std::fs::read_to_string(&log).expect("the fake logged");
        let answered: Vec<Value> = received
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|m| m.get("method").is_none() && m.get("id").is_some())
            .collect();
        assert!(
            !answered.is_empty(),
            "no answer to the server's requests: {received}"
        );
        if answers.is_some() {
            assert!(
                answered
                    .iter()
                    .any(|a| a["result"] == serde_json::json!([{"tabSize": 7}])),
                "{received}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
