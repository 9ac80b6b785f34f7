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

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// What one run of `drive` left.
struct Run {
    status: std::process::ExitStatus,
    lines: Vec<Value>,
    stderr: String,
    elapsed: Duration,
    peak_rss_kib: u64,
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "wirekit-drive-hostile-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The peak resident size so far (`VmHWM`), in KiB; 0 once it is gone.
fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Runs `drive` with `calls` (NDJSON lines) against a Python server
/// `script`, killing it after 60 s (a hang fails the test, it does not
/// stall the suite).
fn drive(name: &str, protocol: &str, calls: &str, script: &str) -> Run {
    let dir = scratch(name);
    let requests = dir.join("calls.ndjson");
    std::fs::write(&requests, calls).expect("calls");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args(["drive", "--protocol", protocol, "--timeout-ms", "3000"])
        .arg("--requests")
        .arg(&requests)
        .args(["--", "python3", "-c", script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("drive starts");
    let pid = child.id();
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut peak = 0;
    let status = loop {
        peak = peak.max(peak_rss_kib(pid));
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("wirekit drive hung against the {name} server");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    let stdout = out_reader.join().expect("stdout reader");
    let stderr = err_reader.join().expect("stderr reader");
    let lines = support::json_lines_of(&stdout);
    let _ = std::fs::remove_dir_all(&dir);
    Run {
        status,
        lines,
        stderr,
        elapsed,
        peak_rss_kib: peak,
    }
}

const GAZE: &str = "gaze-analyzer@1.0.0";
const INITIALIZE: &str = "{\"method\":\"initialize\",\"params\":{\"root_path\":\"/p\"}}\n";
const TWO_CALLS: &str = "{\"method\":\"initialize\",\"params\":{\"root_path\":\"/p\"}}\n{\"method\":\"complexity\",\"params\":{\"root_path\":\"/p\",\"patterns\":[\"./...\"]}}\n";
const INIT_RESULT: &str = r#"{"capabilities": {"discover": False, "test_mapping": False, "classify_signals": False}, "analyzer_name": "a", "analyzer_version": "1", "protocol_version": "1.0.0", "language": "python"}"#;

/// The run ended promptly, failed, kept its memory within the frame bound
/// plus slack, and said why: the error line of `method`, of `kind`.
fn assert_precise_failure(run: &Run, method: &str, kinds: &[&str]) -> Value {
    assert!(!run.status.success(), "drive succeeded: {:?}", run.lines);
    assert!(
        run.elapsed < Duration::from_secs(30),
        "took {:?}",
        run.elapsed
    );
    // The gaze frame bound is 16 MiB; the binary itself takes a few MiB.
    assert!(
        run.peak_rss_kib < 96 * 1024,
        "peak RSS {} KiB",
        run.peak_rss_kib
    );
    let line = run
        .lines
        .iter()
        .find(|line| line["method"] == method && line.get("error").is_some())
        .unwrap_or_else(|| panic!("no error line for {method}: {:?} {}", run.lines, run.stderr))
        .clone();
    let kind = line["error"]["kind"].as_str().expect("a kind");
    assert!(kinds.contains(&kind), "{kind}: {line}");
    let message = line["error"]["message"].as_str().expect("a message");
    assert!(message.len() > 10, "{line}");
    assert!(
        run.stderr.contains("wirekit drive: the server exited"),
        "{}",
        run.stderr
    );
    line
}

#[test]
fn garbage_on_stdout() {
    let script = "import sys\nsys.stdin.readline()\nwhile True:\n    sys.stdout.write('garbage \\x00 not json\\n' * 1000)\n";
    let run = drive("garbage", GAZE, INITIALIZE, script);
    assert_precise_failure(&run, "initialize", &["envelope"]);
}

#[test]
fn one_endless_line() {
    let script =
        "import sys\nsys.stdin.readline()\nchunk = 'x' * 65536\nwhile True:\n    sys.stdout.write(chunk)\n";
    let run = drive("endless", GAZE, TWO_CALLS, script);
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
    let script = "import sys, time\nsys.stdin.buffer.read(1)\nsys.stdout.write('Content-Length: 2147483648\\r\\n\\r\\n' + 'x' * 1000)\nsys.stdout.flush()\ntime.sleep(60)\n";
    let calls = "{\"method\":\"initialize\",\"params\":{\"clientVersion\":\"1.0\"}}\n";
    let run = drive("2gib", "gzkit-authoring-guide", calls, script);
    let line = assert_precise_failure(&run, "initialize", &["framing"]);
    let message = line["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("2147483648"), "{line}");
}

#[test]
fn an_answer_to_an_id_never_sent() {
    let script = format!(
        "import sys, json\nsys.stdin.readline()\nprint(json.dumps({{'jsonrpc': '2.0', 'id': 999, 'result': {INIT_RESULT}}}), flush=True)\nsys.stdin.read()\n"
    );
    let run = drive("unsent-id", GAZE, INITIALIZE, &script);
    assert_precise_failure(&run, "initialize", &["envelope"]);
}

#[test]
fn two_answers_to_one_request() {
    let script = format!(
        "import sys, json\nfor line in sys.stdin:\n    rid = json.loads(line)['id']\n    for _ in range(2):\n        print(json.dumps({{'jsonrpc': '2.0', 'id': rid, 'result': {INIT_RESULT}}}), flush=True)\n"
    );
    let run = drive("twice", GAZE, TWO_CALLS, &script);
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
    let run = drive(
        "sleeper",
        GAZE,
        TWO_CALLS,
        "import time\ntime.sleep(3600)\n",
    );
    assert_precise_failure(&run, "initialize", &["timeout"]);
    assert!(
        !run.lines.iter().any(|line| line["method"] == "complexity"),
        "a call after a timeout: {:?}",
        run.lines
    );
}

#[test]
fn a_server_that_closes_stdout_but_keeps_running() {
    let script = "import os, sys, time\nsys.stdin.readline()\nos.close(1)\ntime.sleep(3600)\n";
    let run = drive("closed-stdout", GAZE, INITIALIZE, script);
    assert_precise_failure(&run, "initialize", &["exited"]);
}

#[test]
fn a_server_that_dies_mid_frame() {
    let script = "import sys\nsys.stdin.readline()\nsys.stdout.write('{\"jsonrpc\": \"2.0\", \"id\": 1, \"res')\nsys.stdout.flush()\nsys.stderr.write('dying now\\n')\nsys.exit(1)\n";
    let run = drive("mid-frame", GAZE, INITIALIZE, script);
    assert_precise_failure(&run, "initialize", &["exited", "framing", "envelope"]);
    assert!(run.stderr.contains("exited with"), "{}", run.stderr);
}
