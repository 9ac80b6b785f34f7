//! `wirekit drive` against hostile servers: each run ends, in bounded time
//! and memory, with a precise error line for the call and a non-zero exit.
//!
//! Servers: one that floods stdout with garbage, one that sends one endless
//! line, one that writes a `Content-Length` of 2 GiB, one that answers an id
//! never sent, one that answers twice, one that sleeps forever, one that
//! closes stdout but keeps running, one that dies mid-frame. The drive
//! process's peak RSS is read from `/proc` while it runs.

// A test fails by panicking.
#![allow(clippy::panic)]

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use support::hostile;

/// What one run of `drive` left: the process and its stdout as JSON lines.
struct Run {
    process: hostile::Run,
    lines: Vec<Value>,
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "wirekit-drive-hostile-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Runs `drive` with `calls` (NDJSON lines) against a Python server
/// `script` (see `support::hostile::watch`).
fn drive(name: &str, protocol: &str, calls: &str, script: &str) -> Run {
    let dir = scratch(name);
    let requests = dir.join("calls.ndjson");
    std::fs::write(&requests, calls).expect("calls");
    let run = hostile::watch(
        name,
        Command::new(env!("CARGO_BIN_EXE_wirekit"))
            .args(["drive", "--protocol", protocol, "--timeout-ms", "3000"])
            .arg("--requests")
            .arg(&requests)
            .args(["--", "python3", "-c", script]),
    );
    let _ = std::fs::remove_dir_all(&dir);
    Run {
        lines: support::json_lines_of(&run.stdout),
        process: run,
    }
}

const GAZE: &str = "gaze-analyzer@1.0.0";
const INITIALIZE: &str = "{\"method\":\"initialize\",\"params\":{\"root_path\":\"/p\"}}\n";
const TWO_CALLS: &str = "{\"method\":\"initialize\",\"params\":{\"root_path\":\"/p\"}}\n{\"method\":\"complexity\",\"params\":{\"root_path\":\"/p\",\"patterns\":[\"./...\"]}}\n";

/// The run ended promptly, failed, kept its memory within the frame bound
/// plus slack, and said why: the error line of `method`, of `kind`.
fn assert_precise_failure(run: &Run, method: &str, kinds: &[&str]) -> Value {
    assert!(
        !run.process.status.success(),
        "drive succeeded: {:?}",
        run.lines
    );
    run.process.assert_bounded("drive", Duration::from_secs(30));
    let line = run
        .lines
        .iter()
        .find(|line| line["method"] == method && line.get("error").is_some())
        .unwrap_or_else(|| {
            panic!(
                "no error line for {method}: {:?} {}",
                run.lines, run.process.stderr
            )
        })
        .clone();
    let kind = line["error"]["kind"].as_str().expect("a kind");
    assert!(kinds.contains(&kind), "{kind}: {line}");
    let message = line["error"]["message"].as_str().expect("a message");
    assert!(message.len() > 10, "{line}");
    assert!(
        run.process
            .stderr
            .contains("wirekit drive: the server exited"),
        "{}",
        run.process.stderr
    );
    line
}

#[test]
fn garbage_on_stdout() {
    let run = drive("garbage", GAZE, INITIALIZE, hostile::GARBAGE);
    assert_precise_failure(&run, "initialize", &["envelope"]);
}

#[test]
fn one_endless_line() {
    let run = drive("endless", GAZE, TWO_CALLS, hostile::ENDLESS_LINE);
    assert_precise_failure(&run, "initialize", &["framing"]);
    // A framing fault ends the stream: the second call is not attempted.
    assert!(
        !run.lines.iter().any(|line| line["method"] == "complexity"),
        "{:?}",
        run.lines
    );
}

#[test]
fn a_content_length_of_2_gib() {
    let script = hostile::CONTENT_LENGTH_2_GIB;
    let calls = "{\"method\":\"initialize\",\"params\":{\"clientVersion\":\"1.0\"}}\n";
    let run = drive("2gib", "gzkit-authoring-guide", calls, script);
    let line = assert_precise_failure(&run, "initialize", &["framing"]);
    let message = line["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("2147483648"), "{line}");
}

#[test]
fn an_answer_to_an_id_never_sent() {
    let run = drive("unsent-id", GAZE, INITIALIZE, &hostile::unsent_id());
    assert_precise_failure(&run, "initialize", &["envelope"]);
}

#[test]
fn two_answers_to_one_request() {
    let run = drive("twice", GAZE, TWO_CALLS, &hostile::twice());
    assert!(
        run.lines
            .iter()
            .any(|line| line["method"] == "initialize" && line.get("result").is_some()),
        "{:?}",
        run.lines
    );
    assert_precise_failure(&run, "complexity", &["envelope"]);
}

#[test]
fn a_server_that_sleeps_forever() {
    let run = drive("sleeper", GAZE, TWO_CALLS, hostile::SLEEPER);
    assert_precise_failure(&run, "initialize", &["timeout"]);
    assert!(
        !run.lines.iter().any(|line| line["method"] == "complexity"),
        "a call after a timeout: {:?}",
        run.lines
    );
}

#[test]
fn a_server_that_closes_stdout_but_keeps_running() {
    let run = drive("closed-stdout", GAZE, INITIALIZE, hostile::CLOSED_STDOUT);
    assert_precise_failure(&run, "initialize", &["exited"]);
}

#[test]
fn a_server_that_dies_mid_frame() {
    let run = drive("mid-frame", GAZE, INITIALIZE, hostile::DIES_MID_FRAME);
    assert_precise_failure(&run, "initialize", &["exited", "framing", "envelope"]);
    assert!(
        run.process
            .stderr
            .contains("the server exited by itself (status 1)"),
        "{}",
        run.process.stderr
    );
}
