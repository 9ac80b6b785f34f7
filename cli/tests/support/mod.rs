//! Running the `wirekit` binary as a person does, shared by the CLI's test files.

pub mod hostile;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

use serde_json::Value;

/// Runs `wirekit ARGS` with `stdin` written to its input (empty: an input
/// that ends at once), and waits for it.
pub fn wirekit(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("wirekit starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write");
    child.wait_with_output().expect("wirekit ends")
}

/// Each line of standard output, read as JSON.
pub fn json_lines(output: &Output) -> Vec<Value> {
    json_lines_of(&String::from_utf8_lossy(&output.stdout))
}

/// Each line of `text`, read as JSON.
pub fn json_lines_of(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// Runs `wirekit conformance ARGS` (ending with `--json -- SERVER...`):
/// the exit code and the JSON report, failing the test with both outputs
/// when the report is not JSON.
pub fn conformance_report(args: &[&str]) -> (i32, Value) {
    let output = wirekit(&[&["conformance"], args].concat(), b"");
    let report: Result<Value, _> = serde_json::from_slice(&output.stdout);
    assert!(
        report.is_ok(),
        "not a JSON report:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (
        output.status.code().unwrap_or(-1),
        report.unwrap_or_default(),
    )
}

/// Standard output as text.
pub fn stdout_text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The repository's top folder.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs one of the repository's install scripts (`tests/lsp/install-servers.sh`,
/// `tests/mcp/install-peers.sh`: real peers by package name) once for this
/// test binary, and fails the test with its errors if it fails; the script's
/// folder, where it installed them.
pub fn installed(script: &str) -> PathBuf {
    static RUN: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let path = repo().join(script);
    let mut run = RUN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !run.iter().any(|done| done == script) {
        let output = Command::new("bash").arg(&path).output().expect("bash");
        assert!(
            output.status.success(),
            "{} failed: {}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        run.push(script.to_owned());
    }
    path.parent().map_or_else(repo, Path::to_path_buf)
}
