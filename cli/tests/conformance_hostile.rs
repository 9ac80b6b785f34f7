//! `wirekit conformance` against hostile servers (issue 15): each run ends,
//! in bounded time and memory, with a failed report whose first failure
//! names the cause, and the rest of the battery is listed as not exercised
//! where the server made it impossible. The servers are the ones `drive`
//! meets in `drive_hostile.rs` (`support/hostile.rs`). Before the bounds,
//! the garbage flood alone ran for 9 minutes and was killed by the kernel at
//! 24 GB.

// A test fails by panicking.
#![allow(clippy::panic)]

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use support::hostile;

/// Runs `conformance --json --timeout 3` against `script`: the report, once
/// the run is known to have failed promptly within the memory bound.
fn conformance(name: &str, protocol: &str, script: &str) -> Value {
    let run = hostile::watch(
        name,
        Command::new(env!("CARGO_BIN_EXE_wirekit"))
            .args([
                "conformance",
                "--protocol",
                protocol,
                "--json",
                "--timeout",
                "3",
            ])
            .args(["--", "python3", "-c", script]),
    );
    assert_eq!(run.status.code(), Some(1), "{name}: {}", run.stderr);
    run.assert_bounded(name, Duration::from_secs(45));
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|error| panic!("{name}: not a report ({error}): {}", run.stdout))
}

/// The message of the report's first failed check, which must be `check`.
fn first_failure<'a>(report: &'a Value, check: &str) -> &'a str {
    let failed = report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["outcome"] == "fail")
        .unwrap_or_else(|| panic!("no failure: {report:#}"));
    let name = format!(
        "{}/{}",
        failed["group"].as_str().unwrap_or(""),
        failed["name"].as_str().unwrap_or("")
    );
    assert_eq!(name, check, "{report:#}");
    failed["message"].as_str().unwrap_or_default()
}

/// Every check keeps at most `FRAMES_KEPT` frames, counting the rest.
fn frames_bounded(report: &Value) {
    for check in report["checks"].as_array().into_iter().flatten() {
        let kept = check["frames"].as_array().map_or(0, Vec::len);
        assert!(kept <= 64, "{} frames kept: {check}", kept);
    }
}

const GAZE: &str = "gaze-analyzer@1.0.0";
const INITIALIZE_ANSWERS: &str = "lifecycle/`initialize` answers";

#[test]
fn garbage_on_stdout_ends_the_session_as_a_flood() {
    let report = conformance("garbage", GAZE, hostile::GARBAGE);
    let message = first_failure(&report, INITIALIZE_ANSWERS);
    assert!(
        message.contains("not a JSON-RPC message: `garbage"),
        "{message}"
    );
    assert!(
        message.contains("flooded stdout with more than 1024 lines"),
        "{message}"
    );
    frames_bounded(&report);
    let frames_not_kept = report["checks"][0]["frames_not_kept"].as_u64().unwrap_or(0);
    assert!(frames_not_kept > 0, "{report:#}");
    let output = report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["group"] == "output")
        .expect("the output check");
    assert_eq!(output["outcome"], "fail");
    assert!(
        output["message"]
            .as_str()
            .unwrap_or("")
            .contains("line(s) to stdout that are not frames"),
        "{output}"
    );
}

#[test]
fn one_endless_line_is_a_framing_fault() {
    let report = conformance("endless", GAZE, hostile::ENDLESS_LINE);
    let message = first_failure(&report, INITIALIZE_ANSWERS);
    assert!(message.contains("FrameTooLong"), "{message}");
    assert!(message.contains("10485759"), "{message}");
}

#[test]
fn a_content_length_of_2_gib_is_refused_before_buffering() {
    let report = conformance(
        "2gib",
        "gzkit-authoring-guide",
        hostile::CONTENT_LENGTH_2_GIB,
    );
    let message = first_failure(&report, INITIALIZE_ANSWERS);
    assert!(message.contains("2147483648"), "{message}");
}

#[test]
fn an_answer_to_an_id_never_sent() {
    let report = conformance("unsent-id", GAZE, &hostile::unsent_id());
    let message = first_failure(&report, INITIALIZE_ANSWERS);
    assert!(message.contains("id 999"), "{message}");
}

#[test]
fn two_answers_to_one_request() {
    let report = conformance("twice", GAZE, &hostile::twice());
    // initialize's own answer came first; the second copy is taken for the next call's.
    let message = first_failure(&report, "lifecycle/`coverage` answers");
    assert!(
        message.contains("the answer carries id 1; the request's id was 2"),
        "{message}"
    );
}

#[test]
fn a_server_that_sleeps_forever() {
    let report = conformance("sleeper", GAZE, hostile::SLEEPER);
    let message = first_failure(&report, INITIALIZE_ANSWERS);
    assert!(
        message.contains("no answer to `initialize` within 3 s"),
        "{message}"
    );
    let skipped = report["not_exercised"].to_string();
    assert!(
        skipped.contains("the server stopped answering three times"),
        "{skipped}"
    );
}

#[test]
fn a_server_that_closes_stdout_but_keeps_running() {
    let report = conformance("closed-stdout", GAZE, hostile::CLOSED_STDOUT);
    let message = first_failure(&report, INITIALIZE_ANSWERS);
    assert!(message.contains("closed its output"), "{message}");
}

#[test]
fn a_server_that_dies_mid_frame() {
    let report = conformance("mid-frame", GAZE, hostile::DIES_MID_FRAME);
    let message = first_failure(&report, INITIALIZE_ANSWERS);
    assert!(message.contains("exit status 1"), "{message}");
    let stderr = report["sessions"][0]["stderr"].as_str().unwrap_or("");
    assert!(stderr.contains("dying now"), "{report:#}");
}
