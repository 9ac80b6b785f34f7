//! Running the `wirekit` binary as a person does, shared by the CLI's test files.

pub mod hostile;

use std::io::Write;
use std::process::{Command, Output, Stdio};

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

/// Standard output as text.
pub fn stdout_text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}
