#![allow(clippy::panic)]
//! `wirekit lsp` as a person runs it, against a real language server
//! (python-lsp-server from PyPI, installed by `tests/lsp/install-servers.sh`):
//! the answer as text, the session recorded and validated clean.

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::path::Path;
use std::process::Command;

use support::wirekit;

#[test]
fn pylsp_answers_references_and_the_recording_validates() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let installed = Command::new("bash")
        .arg(repo.join("tests/lsp/install-servers.sh"))
        .output()
        .expect("bash");
    assert!(
        installed.status.success(),
        "{}",
        String::from_utf8_lossy(&installed.stderr)
    );
    let pylsp = repo.join("tests/lsp/.venv/bin/pylsp");
    let root = repo.join("examples/lsp");
    let recording =
        std::env::temp_dir().join(format!("wirekit-cli-lsp-real-{}.bin", std::process::id()));
    let args = [
        "lsp",
        "--root",
        root.to_str().expect("utf-8"),
        "--record",
        recording.to_str().expect("utf-8"),
        "references",
        "greet.py:1:5",
        "--",
        pylsp.to_str().expect("utf-8"),
    ];
    let output = wirekit(&args, b"");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "greet.py:1:5\ngreet.py:6:12\nmain.py:1:19\nmain.py:3:7\n"
    );
    let validated = wirekit(
        &[
            "validate",
            "--protocol",
            "lsp",
            recording.to_str().expect("utf-8"),
        ],
        b"",
    );
    assert_eq!(validated.status.code(), Some(0), "{validated:?}");
    let _ = std::fs::remove_file(&recording);
}
