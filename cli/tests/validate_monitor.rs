//! `wirekit validate` judging both sides of a session, as a person runs it:
//! one test per kind of problem of the server's and per message that used
//! to mislead.

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::process::Output;

use support::{json_lines, stdout_text as text, wirekit};

fn validate(protocol: &str, json: bool, capture: &[u8]) -> Output {
    let mut args = vec!["validate", "--protocol", protocol];
    if json {
        args.push("--json");
    }
    wirekit(&args, capture)
}

/// (frame, kind, pointer) of each problem of `--json`.
fn found(output: &Output) -> Vec<(u64, String, Option<String>)> {
    json_lines(output)
        .iter()
        .map(|p| {
            (
                p["frame"].as_u64().expect("frame"),
                p["kind"].as_str().expect("kind").to_owned(),
                p["pointer"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

fn lines(frames: &[&str]) -> Vec<u8> {
    frames
        .iter()
        .flat_map(|f| format!("{f}\n").into_bytes())
        .collect()
}

fn content_length(bodies: &[&str]) -> Vec<u8> {
    bodies
        .iter()
        .flat_map(|b| format!("Content-Length: {}\r\n\r\n{b}", b.len()).into_bytes())
        .collect()
}

const GAZE: &str = "gaze-analyzer@1.0.0";
const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root_path":"/p"}}"#;
const INIT_RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"discover":false,"test_mapping":false,"classify_signals":false},"protocol_version":"1.0.0","analyzer_name":"a","language":"python"}}"#;
const ANALYZE: &str =
    r#"{"jsonrpc":"2.0","id":2,"method":"analyze","params":{"root_path":"/p","patterns":null}}"#;

fn kind(problem: &(u64, String, Option<String>)) -> &str {
    &problem.1
}

#[test]
fn an_empty_capture_says_so_and_exits_one() {
    let output = validate(GAZE, false, b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output).contains("the capture holds no frames"),
        "{}",
        text(&output)
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("the capture holds no frames"));
    let json = validate(GAZE, true, b"");
    assert_eq!(found(&json), vec![(0, "empty_capture".to_owned(), None)]);
}

#[test]
fn analyze_before_initialize_accepted_and_refused_print_different_reports() {
    let refused = lines(&[
        ANALYZE,
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"analyze is not allowed before initialize"}}"#,
    ]);
    let accepted = lines(&[
        ANALYZE,
        r#"{"jsonrpc":"2.0","id":2,"result":{"functions":[]}}"#,
    ]);
    let refused = validate(GAZE, false, &refused);
    let accepted = validate(GAZE, false, &accepted);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(accepted.status.code(), Some(1));
    assert_ne!(text(&refused), text(&accepted));
    assert_eq!(text(&refused).lines().count(), 1, "{}", text(&refused));
    let report = text(&accepted);
    assert!(
        report.contains("frame 1: accepted_invalid at /result: the `analyze` request of frame 0 was answered with a result, but the protocol refuses it with error -32600"),
        "{report}"
    );
}

#[test]
fn a_refusal_with_another_code_is_a_wrong_error_naming_both_codes() {
    let capture = lines(&[
        ANALYZE,
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}"#,
    ]);
    let output = validate(GAZE, false, &capture);
    let report = text(&output);
    assert!(
        report.contains("frame 1: wrong_error at /error/code"),
        "{report}"
    );
    assert!(
        report
            .contains("answered error -32601 (Method not found) where the protocol answers -32600"),
        "{report}"
    );
}

#[test]
fn an_accepted_invalid_initialize_is_reported_once_then_followed() {
    let capture = lines(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root_path":7}}"#,
        INIT_RESULT,
        ANALYZE,
        r#"{"jsonrpc":"2.0","id":2,"result":{"functions":[]}}"#,
    ]);
    let output = validate(GAZE, true, &capture);
    assert_eq!(
        found(&output),
        vec![
            (
                0,
                "invalid_params".to_owned(),
                Some("/params/root_path".into())
            ),
            (1, "accepted_invalid".to_owned(), Some("/result".into())),
        ]
    );
}

#[test]
fn a_parse_error_answered_with_id_null_is_no_problem_of_the_server() {
    let capture = lines(&[
        INIT,
        INIT_RESULT,
        r#"{"jsonrpc":"2.0","id":2,"method":"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
    ]);
    let output = validate(GAZE, true, &capture);
    assert_eq!(
        found(&output),
        vec![(2, "envelope".to_owned(), Some(String::new()))]
    );
}

#[test]
fn an_id_null_answer_to_a_recoverable_id_is_accepted_too() {
    // JSON-RPC 2.0: an Invalid Request is answered with id null when the
    // server could not detect the id; the monitor's recovered one is no
    // obligation.
    let capture = lines(&[
        INIT,
        INIT_RESULT,
        r#"{"jsonrpc":"1.0","id":5,"method":"analyze","params":{"root_path":"/p"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}"#,
    ]);
    let output = validate(GAZE, true, &capture);
    assert_eq!(
        found(&output),
        vec![(2, "envelope".to_owned(), Some("/jsonrpc".into()))]
    );
}

#[test]
fn a_second_answer_and_an_answer_to_a_notification_are_their_own_kinds() {
    let capture = lines(&[
        INIT,
        INIT_RESULT,
        INIT_RESULT,
        r#"{"jsonrpc":"2.0","method":"initialized"}"#,
        r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":44,"result":{}}"#,
    ]);
    let output = validate(GAZE, false, &capture);
    let report = text(&output);
    assert!(
        report.contains("frame 2: duplicate_answer at /id: a second answer to the `initialize` request of frame 0 (id 1), first answered at frame 1"),
        "{report}"
    );
    assert!(
        report.contains("frame 4: answered_notification at /id: answers the notification `initialized` of frame 3"),
        "{report}"
    );
    assert!(
        report.contains("frame 5: unknown_id at /id: answers id 44, which no request carried"),
        "{report}"
    );
}

#[test]
fn a_result_to_a_request_with_an_invalid_id_is_its_own_kind() {
    let capture = lines(&[
        INIT,
        INIT_RESULT,
        r#"{"jsonrpc":"2.0","id":[2],"method":"analyze","params":{"root_path":"/p"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"result":{"functions":[]}}"#,
    ]);
    let output = validate(GAZE, true, &capture);
    let kinds: Vec<String> = found(&output).iter().map(|p| kind(p).to_owned()).collect();
    assert_eq!(kinds, vec!["envelope", "result_for_invalid_id"]);
}

#[test]
fn frames_keep_their_numbers_after_a_framing_fault() {
    // Strict NDJSON (the driver protocol): a bare CR is a framing fault.
    // It is frame 0; the answer after it is frame 1, not frame 0 again
    // (with the id the driver protocol's reference recovers from the line).
    let capture = b"{\"id\":\"e\",\"jsonrpc\":\"2.0\",\r\"method\":\"driver.reset\"}\n\
{\"error\":{\"code\":-32600,\"data\":{\"class\":\"invalid_request\",\"details\":{\"kind\":\"BareCarriageReturn\"}},\"message\":\"bare CR\"},\"id\":\"e\",\"jsonrpc\":\"2.0\"}\n\
{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"driver.nope\"}\n";
    let output = validate("agentapi-driver@1", true, capture);
    assert_eq!(
        found(&output),
        vec![
            (0, "framing".to_owned(), None),
            (2, "unknown_method".to_owned(), Some("/method".into())),
            (2, "unanswered".to_owned(), Some("/id".into())),
        ]
    );
}

#[test]
fn a_declared_protocol_version_other_than_the_checked_one_is_reported() {
    let declared = INIT_RESULT.replace("\"1.0.0\"", "\"1.1.0\"");
    let output = validate(GAZE, false, &lines(&[INIT, &declared]));
    let report = text(&output);
    assert!(
        report.contains("frame 1: version_mismatch at /result/protocol_version: the server declares protocol version 1.1.0, but the session is checked against gaze-analyzer@1.0.0"),
        "{report}"
    );
    let same = validate(GAZE, false, &lines(&[INIT, INIT_RESULT]));
    assert_eq!(same.status.code(), Some(0), "{}", text(&same));
}

#[test]
fn after_a_shutdown_the_message_names_the_frame_that_ended_the_session() {
    let capture = lines(&[
        INIT,
        INIT_RESULT,
        r#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
        ANALYZE,
    ]);
    let report = text(&validate(GAZE, false, &capture));
    assert_eq!(
        report.trim_end(),
        "frame 4: lifecycle at /method: `analyze` came after the session ended at frame 3 when `shutdown` was answered"
    );
}

#[test]
fn after_a_version_mismatch_the_message_is_the_mismatch_not_the_state() {
    let capture = content_length(&[
        r#"{"id":3,"method":"initialize","params":{"clientVersion":"2.0"}}"#,
        r#"{"id":3,"error":{"code":-32099,"message":"VERSION_MISMATCH: client major version 2 is incompatible with server major version 1"}}"#,
        r#"{"id":4,"method":"shutdown","params":{}}"#,
    ]);
    let report = text(&validate("gzkit-authoring-guide@1.0", false, &capture));
    assert_eq!(
        report.trim_end(),
        "frame 2: lifecycle at /method: `shutdown` came after the session ended at frame 1 when `initialize` was refused with -32099 (VERSION_MISMATCH)"
    );
    assert!(!report.contains("before initialize"));
}

#[test]
fn an_accepted_version_mismatch_is_reported() {
    let capture = content_length(&[
        r#"{"id":3,"method":"initialize","params":{"clientVersion":"2.0"}}"#,
        r#"{"id":3,"result":{"version":"1.0","capabilities":["analyze"]}}"#,
    ]);
    let output = validate("gzkit-authoring-guide@1.0", false, &capture);
    let report = text(&output);
    assert!(
        report.contains("frame 1: accepted_invalid at /result: the `initialize` request of frame 0 was answered with a result, but the protocol refuses it with error -32099"),
        "{report}"
    );
}

#[test]
fn no_report_prints_a_rust_debug_form() {
    let mut all = String::new();
    for (protocol, capture) in [
        (
            GAZE,
            lines(&[ANALYZE, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#]),
        ),
        (GAZE, lines(&[INIT, INIT_RESULT, INIT_RESULT, "{bad"])),
    ] {
        all.push_str(&text(&validate(protocol, false, &capture)));
    }
    for debug in ["Request {", "Number(", "Some(", "Response {", "String(\""] {
        assert!(!all.contains(debug), "{debug} in:\n{all}");
    }
}

#[test]
fn discouraged_ids_are_warnings_that_do_not_fail_the_exit_code() {
    // A lenient protocol: JSON-RPC 2.0 allows a fractional and a null id, and discourages both.
    let init = INIT.replace("\"id\":1", "\"id\":1.5");
    let result = INIT_RESULT.replace("\"id\":1", "\"id\":1.5");
    let analyze = ANALYZE.replace("\"id\":2", "\"id\":null");
    let answer = r#"{"jsonrpc":"2.0","id":null,"result":{"functions":[]}}"#;
    let capture = lines(&[&init, &result, &analyze, answer]);
    let output = validate(GAZE, false, &capture);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let report = text(&output);
    assert_eq!(report.lines().count(), 2, "{report}");
    assert!(
        report.starts_with("frame 0: warning: discouraged_id at /id: `initialize` has the id 1.5"),
        "{report}"
    );
    assert!(
        report.contains("frame 2: warning: discouraged_id at /id: `analyze` has the id null"),
        "{report}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("session is clean (2 warning(s)"),
        "{stderr}"
    );
    let json = validate(GAZE, true, &capture);
    assert_eq!(json.status.code(), Some(0));
    for problem in json_lines(&json) {
        assert_eq!(problem["severity"], "warning", "{problem}");
        assert_eq!(problem["kind"], "discouraged_id", "{problem}");
    }
    // With an error beside them, the error fails the run and says so; the warning stays a warning.
    let capture = lines(&[&init, &result, ANALYZE]);
    let json = validate(GAZE, true, &capture);
    assert_eq!(json.status.code(), Some(1));
    let severities: Vec<(String, String)> = json_lines(&json)
        .iter()
        .map(|p| {
            (
                p["kind"].as_str().unwrap_or("").to_owned(),
                p["severity"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        severities,
        [
            ("discouraged_id".to_owned(), "warning".to_owned()),
            ("unanswered".to_owned(), "error".to_owned())
        ]
    );
    let stderr = String::from_utf8_lossy(&json.stderr);
    assert!(
        stderr.contains("1 problem(s)") && stderr.contains("(1 warning(s)"),
        "{stderr}"
    );
}

/// The captured Gaze sessions of a version, each file's bytes.
fn captured(version: &str) -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/sessions")
        .join(format!("gaze-analyzer@{version}"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the captured sessions")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ndjson"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            (
                name.unwrap_or_default(),
                std::fs::read(&p).expect("a capture"),
            )
        })
        .collect()
}

#[test]
fn a_protocol_named_without_a_version_follows_the_version_the_session_declares() {
    for version in ["1.0.0", "1.1.0"] {
        let sessions = captured(version);
        assert!(sessions.len() > 5, "{version}: {} captures", sessions.len());
        for (name, capture) in sessions {
            let pinned = validate(&format!("gaze-analyzer@{version}"), true, &capture);
            let followed = validate("gaze-analyzer", true, &capture);
            if name.starts_with("declared-version-") {
                // A session that declares the other version is that version's.
                assert!(
                    found(&followed).iter().all(|p| p.1 != "version_mismatch"),
                    "{name}"
                );
                continue;
            }
            assert_eq!(found(&followed), found(&pinned), "{version} {name}");
            assert_eq!(
                followed.status.code(),
                pinned.status.code(),
                "{version} {name}"
            );
        }
    }
    let clean = validate(
        "gaze-analyzer",
        false,
        &captured("1.0.0")
            .into_iter()
            .find(|(name, _)| name == "clean-full.ndjson")
            .expect("clean-full")
            .1,
    );
    assert_eq!(clean.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&clean.stderr).contains("gaze-analyzer@1.0.0 session is clean"),
        "{}",
        String::from_utf8_lossy(&clean.stderr)
    );
}

#[test]
fn a_declared_version_the_protocol_lacks_is_a_mismatch_against_the_newest() {
    let capture = lines(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root_path":"/p"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"discover":false,"test_mapping":false,"classify_signals":false},"protocol_version":"9.0.0","analyzer_name":"a","language":"x"}}"#,
    ]);
    let output = validate("gaze-analyzer", true, &capture);
    assert_eq!(
        found(&output),
        vec![(
            1,
            "version_mismatch".to_owned(),
            Some("/result/protocol_version".to_owned())
        )]
    );
    assert!(
        text(&output).contains("gaze-analyzer@1.1.0"),
        "{}",
        text(&output)
    );
}

#[test]
fn lsp_dollar_notifications_it_does_not_define_are_warnings_and_dollar_requests_owe_32601() {
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#;
    let init_result = r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
    // typescript-language-server's own notification, and a `$/` request.
    let version = r#"{"jsonrpc":"2.0","method":"$/typescriptVersion","params":{"version":"5.9.3","source":"bundled"}}"#;
    let ask = r#"{"jsonrpc":"2.0","id":2,"method":"$/peculiar","params":{}}"#;
    let refused = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Unhandled method $/peculiar"}}"#;
    let capture = content_length(&[init, init_result, initialized, version, ask, refused]);
    let output = validate("lsp@3.17", true, &capture);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let problems = json_lines(&output);
    let kinds: Vec<(u64, &str, &str)> = problems
        .iter()
        .map(|p| {
            (
                p["frame"].as_u64().unwrap_or(0),
                p["kind"].as_str().unwrap_or(""),
                p["severity"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            (3, "implementation_dependent", "warning"),
            (4, "implementation_dependent", "warning")
        ]
    );
    // A `$/` request answered with a result is still an acceptance of what
    // the protocol answers -32601.
    let accepted = r#"{"jsonrpc":"2.0","id":2,"result":null}"#;
    let capture = content_length(&[init, init_result, initialized, ask, accepted]);
    let output = validate("lsp@3.17", true, &capture);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(found(&output).iter().any(|p| kind(p) == "accepted_invalid"));
    // Outside the prefix an unknown notification is an error.
    let unknown = r#"{"jsonrpc":"2.0","method":"typescript/version","params":{}}"#;
    let capture = content_length(&[init, init_result, initialized, unknown]);
    let output = validate("lsp@3.17", true, &capture);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(kind(&found(&output)[0]), "unknown_method");
}

/// A capture file and its sides file in a scratch folder.
fn with_sides(name: &str, capture: &[u8], sides: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "wirekit-validate-sides-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("folder");
    let file = dir.join("session.bin");
    std::fs::write(&file, capture).expect("capture");
    std::fs::write(dir.join("session.bin.sides"), sides).expect("sides");
    file
}

/// With a sides file beside the capture (as `wirekit lsp --record` writes
/// it), a server that sends `textDocument/hover` is caught and blamed;
/// without it the same bytes read as the client's request. A broken sides
/// file is a usage error naming its line.
#[test]
fn a_sides_file_beside_the_capture_checks_each_messages_direction() {
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#;
    let init_result =
        r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"hoverProvider":true}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
    let hover = r#"{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///a.py"},"position":{"line":0,"character":0}}}"#;
    let answer = r#"{"jsonrpc":"2.0","id":7,"result":null}"#;
    let bodies = [init, init_result, initialized, hover, answer];
    let capture = content_length(&bodies);
    let starts: Vec<usize> = bodies
        .iter()
        .scan(0, |at, body| {
            let start = *at;
            *at += format!("Content-Length: {}\r\n\r\n", body.len()).len() + body.len();
            Some(start)
        })
        .collect();
    let sides = format!(
        "0 client\n{} server\n{} client\n{} server\n{} client\n",
        starts[1], starts[2], starts[3], starts[4]
    );
    let file = with_sides("hover", &capture, &sides);
    let path = file.to_str().expect("utf-8");
    let output = wirekit(&["validate", "--protocol", "lsp@3.17", "--json", path], b"");
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let problems = json_lines(&output);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["kind"], "wrong_direction");
    assert_eq!(problems[0]["blame"], "server");
    assert_eq!(problems[0]["frame"], 3);
    // The same bytes without their sides: a client's hover, clean.
    assert_eq!(validate("lsp@3.17", false, &capture).status.code(), Some(0));
    // `--sides` names another file; a broken one says which line.
    let broken = file.with_file_name("broken.sides");
    std::fs::write(&broken, "0 client\n10 sever\n").expect("broken sides");
    let output = wirekit(
        &[
            "validate",
            "--protocol",
            "lsp@3.17",
            "--sides",
            broken.to_str().expect("utf-8"),
            path,
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("line 2: `10 sever` is not `<byte offset> client|server`"),
        "{output:?}"
    );
    let _ = std::fs::remove_dir_all(file.parent().expect("folder"));
}

/// A method's own `error_data` (LSP's `initialize`: `InitializeError`,
/// derived from the meta model) judges the data of its own errors (LSP's
/// `unknownProtocolVersion`, 1); JSON-RPC's reserved codes keep whatever
/// data the server gives (an internal error with its own data).
#[test]
fn a_methods_own_error_data_judges_its_error_answers() {
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#;
    let refused = |code: i64, data: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"cannot start","data":{data}}}}}"#
        )
    };
    let good = refused(1, r#"{"retry":false}"#);
    let output = validate("lsp@3.17", true, &content_length(&[init, &good]));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let bad = refused(1, r#"{"retry":"later"}"#);
    let output = validate("lsp@3.17", true, &content_length(&[init, &bad]));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert_eq!(
        found(&output),
        [(
            1,
            "invalid_result".to_owned(),
            Some("/error/data/retry".to_owned())
        )]
    );
    let internal = refused(-32603, r#"{"errors":["a stack"]}"#);
    let output = validate("lsp@3.17", true, &content_length(&[init, &internal]));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
}
