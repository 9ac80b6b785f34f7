//! The `wirekit frames` and `wirekit validate` commands, run as a person runs them.

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use support::{json_lines as lines, wirekit};

fn repo(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn frames_prints_each_frame_and_exits_zero_on_a_clean_stream() {
    let body = r#"{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}"#;
    let stream = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    let output = wirekit(
        &["frames", "--framing", "content-length"],
        stream.as_bytes(),
    );
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        lines(&output),
        vec![
            serde_json::json!({"frame": 0, "len": 63, "headers": ["Content-Length: 63"], "body": body})
        ]
    );
}

#[test]
fn frames_shows_each_content_length_frames_headers_as_they_came() {
    let stream = "Content-Length: 2\r\ncontent-type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}content-length:  3 \r\n\r\n[1]";
    let output = wirekit(
        &["frames", "--framing", "content-length"],
        stream.as_bytes(),
    );
    assert_eq!(output.status.code(), Some(0));
    let printed = lines(&output);
    assert_eq!(
        printed[0]["headers"],
        serde_json::json!([
            "Content-Length: 2",
            "content-type: application/vscode-jsonrpc; charset=utf-8"
        ])
    );
    assert_eq!(
        printed[1]["headers"],
        serde_json::json!(["content-length:  3 "])
    );
    assert_eq!(printed[1]["body"], "[1]");
}

#[test]
fn frames_reports_faults_with_their_offset_and_exits_one() {
    let output = wirekit(
        &["frames", "--framing", "ndjson", "--max-frame-bytes", "8"],
        b"{\"a\":1}\n{\"long\":12345}\n{}\n",
    );
    assert_eq!(output.status.code(), Some(1));
    let printed = lines(&output);
    assert_eq!(printed[0]["frame"], 0);
    assert_eq!(printed[1]["fault"], "FrameTooLong");
    assert_eq!(printed[1]["offset"], 8);
    assert!(printed[1]["detail"].as_str().is_some_and(|d| !d.is_empty()));
    assert_eq!(
        printed[2],
        serde_json::json!({"frame": 1, "len": 2, "body": "{}"})
    );
}

#[test]
fn frames_bad_usage_exits_two() {
    assert_eq!(
        wirekit(&["frames", "--framing", "xml"], b"").status.code(),
        Some(2)
    );
    assert_eq!(
        wirekit(&["frames", "--framing", "ndjson", "/no/such/file"], b"")
            .status
            .code(),
        Some(2)
    );
    assert_eq!(wirekit(&["frames"], b"").status.code(), Some(2));
}

#[test]
fn validate_passes_a_clean_capture_and_exits_zero() {
    let output = wirekit(
        &[
            "validate",
            "--protocol",
            "gzkit-authoring-guide",
            &repo("tests/sessions/gzkit-authoring-guide@1.0/clean.bin"),
        ],
        b"",
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn validate_prints_each_problem_with_frame_and_pointer_and_exits_one() {
    let capture = repo("tests/sessions/gaze-analyzer@1.0.0/invalid-params.ndjson");
    let output = wirekit(
        &[
            "validate",
            "--protocol",
            "gaze-analyzer@1.0.0",
            "--json",
            &capture,
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(1));
    let problems = lines(&output);
    assert!(!problems.is_empty());
    for problem in &problems {
        assert!(
            problem["frame"].is_u64()
                && problem["kind"].is_string()
                && problem["message"].is_string(),
            "{problem}"
        );
    }
    assert!(problems.iter().any(|p| p["kind"] == "invalid_params"
        && p["pointer"]
            .as_str()
            .is_some_and(|s| s.starts_with("/params"))));
    let text = wirekit(
        &["validate", "--protocol", "gaze-analyzer@1.0.0", &capture],
        b"",
    );
    assert!(String::from_utf8_lossy(&text.stdout).starts_with("frame "));
}

#[test]
fn validate_reads_stdin_and_a_schemas_folder() {
    let capture = std::fs::read(repo(
        "tests/sessions/gzkit-authoring-guide@1.0/analyze-before-initialize.bin",
    ))
    .expect("capture");
    let output = wirekit(
        &[
            "validate",
            "--protocol",
            "gzkit-authoring-guide@1.0",
            "--schemas",
            &repo("schemas"),
            "--json",
        ],
        &capture,
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(lines(&output).iter().any(|p| p["kind"] == "lifecycle"));
}

#[test]
fn validate_bad_usage_exits_two() {
    assert_eq!(
        wirekit(&["validate", "--protocol", "no-such-protocol"], b"")
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        wirekit(&["validate", "--protocol", "gaze-analyzer@9.9.9"], b"")
            .status
            .code(),
        Some(2)
    );
    let output = wirekit(&["validate"], b"");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn drive_runs_checked_calls_records_a_capture_that_validates() {
    let dir = std::env::temp_dir().join(format!("wirekit-drive-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let capture = dir.join("session.ndjson");
    let requests = concat!(
        "{\"method\": \"initialize\", \"params\": {\"root_path\": \"/p\"}}\n",
        "{\"method\": \"complexity\", \"params\": {\"root_path\": \"/p\", \"patterns\": null}}\n",
        "{\"method\": \"discover\", \"params\": {\"root_path\": \"/p\"}}\n",
        "{\"method\": \"shutdown\"}\n",
    );
    let peer = repo("tests/peers/gaze_minimal_analyzer.py");
    let capture_arg = capture.to_string_lossy().into_owned();
    let output = wirekit(
        &[
            "drive",
            "--protocol",
            "gaze-analyzer@1.0.0",
            "--record",
            &capture_arg,
            "--",
            "python3",
            &peer,
        ],
        requests.as_bytes(),
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "discover is refused, so one call failed"
    );
    let printed = lines(&output);
    assert_eq!(printed.len(), 4);
    assert_eq!(
        printed[1],
        serde_json::json!({"method": "complexity", "result": {"functions": []}})
    );
    assert_eq!(printed[2]["error"]["kind"], "lifecycle");
    assert_eq!(printed[2]["error"]["sent"], false);
    assert!(
        printed[2]["error"].get("code").is_none(),
        "a local refusal shows no JSON-RPC code"
    );
    assert_eq!(printed[3]["result"], serde_json::json!({}));
    let validated = wirekit(
        &[
            "validate",
            "--protocol",
            "gaze-analyzer@1.0.0",
            &capture_arg,
        ],
        b"",
    );
    assert_eq!(
        validated.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&validated.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn drive_bad_usage_exits_two() {
    assert_eq!(
        wirekit(&["drive", "--protocol", "gaze-analyzer"], b"")
            .status
            .code(),
        Some(2)
    );
    let missing = wirekit(
        &[
            "drive",
            "--protocol",
            "gaze-analyzer",
            "--",
            "/no/such/server",
        ],
        b"{\"method\":\"shutdown\"}\n",
    );
    assert_eq!(missing.status.code(), Some(2));
    let bad_requests = wirekit(
        &["drive", "--protocol", "gaze-analyzer", "--", "true"],
        b"not json\n",
    );
    assert_eq!(bad_requests.status.code(), Some(2));
}
