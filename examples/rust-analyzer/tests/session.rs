//! The example analyzer answers a real Gaze session through the serve loop.

use std::io::Write;
use std::process::{Command, Stdio};

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
