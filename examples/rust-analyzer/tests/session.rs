//! The example analyzer answers a real Gaze session through the serve loop,
//! and passes `wirekit conformance` for both versions of the protocol.

use std::io::Write;
use std::process::{Command, Stdio};

/// Serves `requests` (one a line) and returns the answers.
fn session(requests: &[String]) -> Vec<serde_json::Value> {
    let child = Command::new(env!("CARGO_BIN_EXE_gaze-analyzer-rust"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        assert!(child.is_ok(), "spawn");
        return Vec::new();
    };
    if let Some(mut stdin) = child.stdin.take() {
        assert!(stdin
            .write_all((requests.join("\n") + "\n").as_bytes())
            .is_ok());
    }
    let out = child
        .wait_with_output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    out.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn patterns_choose_the_files_read() {
    let root = env!("CARGO_MANIFEST_DIR");
    let request = |id: u32, method: &str, patterns: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"root_path":"{root}","patterns":{patterns}}}}}"#
        )
    };
    let answers = session(&[
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"root_path":"{root}"}}}}"#
        ),
        request(2, "analyze", r#"["./tests/..."]"#),
        request(3, "complexity", r#"["src/main.rs"]"#),
        request(4, "complexity", r#"["./..."]"#),
        request(5, "analyze", r#"["nowhere/*.rs"]"#),
    ]);
    assert_eq!(answers.len(), 5, "{answers:?}");
    let files = |answer: &serde_json::Value| -> Vec<String> {
        let mut files: Vec<String> = answer["result"]["functions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["file"].as_str().map(str::to_owned))
            .collect();
        files.dedup();
        files
    };
    assert_eq!(files(&answers[1]), ["tests/session.rs"]);
    assert_eq!(files(&answers[2]), ["src/main.rs"]);
    assert_eq!(files(&answers[3]), ["src/main.rs", "tests/session.rs"]);
    assert!(files(&answers[4]).is_empty());
}

#[test]
fn answers_a_gaze_session() {
    let root = env!("CARGO_MANIFEST_DIR");
    let input = format!(
        "{}\n{}\n{}\n{}\n",
        format_args!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"root_path":"{root}"}}}}"#
        ),
        format_args!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"analyze","params":{{"root_path":"{root}/src"}}}}"#
        ),
        r#"{"jsonrpc":"2.0","id":3,"method":"discover","params":{"root_path":"/x"}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"shutdown"}"#,
    );
    let child = Command::new(env!("CARGO_BIN_EXE_gaze-analyzer-rust"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        return assert!(child.is_ok(), "spawn");
    };
    if let Some(mut stdin) = child.stdin.take() {
        assert!(stdin.write_all(input.as_bytes()).is_ok());
    }
    let out = child
        .wait_with_output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let lines: Vec<serde_json::Value> = out
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0]["result"]["language"], "rust");
    let functions = lines[1]["result"]["functions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(functions.iter().any(|f| f["name"] == "scan"), "{out}");
    assert_eq!(
        lines[2]["error"]["code"], -32601,
        "optional method without its capability"
    );
    assert_eq!(lines[3]["result"], serde_json::json!({}));
}

/// `wirekit conformance` (the core's engine, as the command runs it)
/// against the analyzer for `version`, the project root at this crate.
fn conformance(version: &str) -> wirekit::conformance::Report {
    use wirekit::conformance::{self, Options};
    let protocol =
        wirekit_protocols::protocol(&format!("gaze-analyzer@{version}")).expect("shipped protocol");
    let mut options = Options::new(vec![env!("CARGO_BIN_EXE_gaze-analyzer-rust").to_owned()]);
    options.root = Some(env!("CARGO_MANIFEST_DIR").into());
    conformance::run(protocol, options).expect("runs")
}

#[test]
fn the_example_analyzer_conforms_to_gaze_1_0_0() {
    use wirekit::conformance::{Outcome, GROUPS};
    let report = conformance("1.0.0");
    let not_passed: Vec<String> = report
        .checks
        .iter()
        .filter(|c| c.outcome != Outcome::Pass)
        .map(|c| format!("{} {}: {}", c.group, c.name, c.message))
        .collect();
    assert!(not_passed.is_empty(), "{}", report.to_text());
    // Every group ran something.
    let (rows, total) = report.summary();
    assert_eq!(rows.len(), GROUPS.len(), "{}", report.to_text());
    assert!(total.pass >= 25, "{}", report.to_text());
}

#[test]
fn against_gaze_1_1_0_only_the_version_it_declares_fails() {
    // The analyzer speaks 1.0.0 (its initialize says so): checked against
    // 1.1.0, that is the one failure; everything else it does still passes.
    let report = conformance("1.1.0");
    let failed: Vec<&str> = report.failures().map(|c| c.name.as_str()).collect();
    assert_eq!(failed, ["`initialize` answers"], "{}", report.to_text());
    let initialize = report.failures().next().expect("one failure");
    assert!(
        initialize
            .message
            .contains("declares protocol version 1.0.0"),
        "{}",
        initialize.message
    );
    assert_eq!(
        initialize.pointer.as_deref(),
        Some("/result/protocol_version")
    );
}
