//! What a person sees when a command is misused: usage lines that agree
//! with `--help`, and I/O errors that name their path.

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::process::{Command, Output};

fn wirekit(args: &[&str]) -> Output {
    support::wirekit(args, b"")
}

fn usage_line(text: &[u8]) -> String {
    String::from_utf8_lossy(text)
        .lines()
        .find(|l| l.starts_with("Usage:"))
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_usage_error_shows_the_usage_line_of_help() {
    for command in ["frames", "validate", "drive", "diff", "generate"] {
        let help = wirekit(&[command, "--help"]);
        let misuse = wirekit(&[command, "--no-such-option"]);
        assert_eq!(misuse.status.code(), Some(2), "{command}");
        let (from_help, from_error) = (usage_line(&help.stdout), usage_line(&misuse.stderr));
        assert!(
            from_help.starts_with(&format!("Usage: wirekit {command}")),
            "{from_help}"
        );
        assert_eq!(from_error, from_help, "{command}");
    }
}

#[test]
fn a_directory_given_as_a_file_is_named() {
    let dir = std::env::temp_dir();
    let dir = dir.to_str().expect("a UTF-8 temp dir");
    let expected = format!("cannot read {dir}: it is a directory, not a file");
    for args in [
        vec!["frames", "--framing", "ndjson", dir],
        vec!["validate", "--protocol", "gaze-analyzer", dir],
        vec![
            "drive",
            "--protocol",
            "gaze-analyzer",
            "--requests",
            dir,
            "--",
            "true",
        ],
    ] {
        let output = wirekit(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&expected), "{args:?}: {stderr}");
    }
}

#[test]
fn a_missing_file_is_named() {
    let output = wirekit(&[
        "validate",
        "--protocol",
        "gaze-analyzer",
        "/no/such/capture.ndjson",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr.contains("cannot open /no/such/capture.ndjson: "),
        "{stderr}"
    );
    let output = wirekit(&[
        "diff",
        "--protocol",
        "gaze-analyzer",
        "/no/such/dir",
        "1.0.0",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("/no/such/dir/protocol.json"), "{stderr}");
}

/// A server that answers `initialize` after 1.2 s.
fn slow_server(dir: &std::path::Path) -> (String, String) {
    std::fs::create_dir_all(dir).expect("temp dir");
    let server = dir.join("slow.sh");
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"discover":false,"test_mapping":false,"classify_signals":false},"protocol_version":"1.0.0","analyzer_name":"slow","language":"python"}}"#;
    std::fs::write(
        &server,
        format!("read line; sleep 1.2; echo '{answer}'; read line\n"),
    )
    .expect("server script");
    let calls = dir.join("calls.ndjson");
    std::fs::write(
        &calls,
        "{\"method\":\"initialize\",\"params\":{\"root_path\":\"/\"}}\n",
    )
    .expect("calls");
    (server.display().to_string(), calls.display().to_string())
}

#[test]
fn drive_shows_the_pending_call_live_on_a_terminal_only() {
    let dir = std::env::temp_dir().join(format!("wirekit-live-{}", std::process::id()));
    let (server, calls) = slow_server(&dir);
    let args = [
        "drive",
        "--protocol",
        "gaze-analyzer@1.0.0",
        "--requests",
        &calls,
        "--",
        "bash",
        &server,
    ];
    // Piped: no live line.
    let piped = wirekit(&args);
    assert_eq!(piped.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(!stderr.contains("waiting for"), "{stderr}");
    // On a terminal (util-linux `script` gives the command a pseudo-terminal).
    let line = std::iter::once(env!("CARGO_BIN_EXE_wirekit"))
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ");
    let on_terminal = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .output()
        .expect("util-linux `script` runs");
    let seen = String::from_utf8_lossy(&on_terminal.stdout);
    assert!(
        seen.contains("wirekit drive: waiting for `initialize` (timeout 30 s) … 1.0s"),
        "{seen}"
    );
    assert!(
        seen.contains("\r\x1b[2K{\"method\":\"initialize\""),
        "the line is erased before the result: {seen}"
    );
    std::fs::remove_dir_all(dir).expect("cleanup");
}
