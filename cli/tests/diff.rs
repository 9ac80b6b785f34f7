//! `wirekit diff`, run as a protocol maintainer runs it: two shipped
//! versions, and a working copy of a version folder under edit.

// A test fails loudly on a missing fixture: unwrap and panic are its assertions.
#![allow(clippy::unwrap_used, clippy::panic)]

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn wirekit(args: &[&str]) -> Output {
    support::wirekit(args, b"")
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// A copy of `schemas/gaze-analyzer/1.0.0` with `edit` applied to its manifest.
fn working_copy(name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirekit-diff-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = repo("schemas/gaze-analyzer/1.0.0");
    for file in ["protocol.json", "gaze.schema.json"] {
        std::fs::copy(source.join(file), dir.join(file)).unwrap();
    }
    let path = dir.join("protocol.json");
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut manifest);
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
    dir
}

#[test]
fn gaze_1_0_0_to_1_1_0_is_compatible_and_exits_zero() {
    let output = wirekit(&["diff", "--protocol", "gaze-analyzer", "1.0.0", "1.1.0"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("compatible: `detail`: a new optional member"),
        "{stdout}"
    );
    assert!(
        stdout.contains("in analyze result at /functions/*/side_effects/*/detail"),
        "{stdout}"
    );
    assert!(
        stdout.contains("defined at gaze.schema.json#/$defs/SideEffect/properties/detail"),
        "{stdout}"
    );
    assert!(
        stderr.contains("gaze-analyzer 1.0.0 -> 1.1.0: 0 breaking for clients, 0 breaking for servers, 0 breaking for both, 7 compatible"),
        "{stderr}"
    );
}

#[test]
fn a_breaking_working_copy_exits_one_with_json_lines() {
    let dir = working_copy("breaking", |m| {
        m["methods"]
            .as_object_mut()
            .unwrap()
            .shift_remove("complexity");
    });
    let old = repo("schemas/gaze-analyzer/1.0.0");
    let output = wirekit(&[
        "diff",
        "--protocol",
        "gaze-analyzer",
        "--json",
        old.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let changes: Vec<Value> = support::json_lines(&output);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0]["impact"], "breaks-clients");
    assert_eq!(changes[0]["kind"], "method-removed");
    assert_eq!(changes[0]["pointer"], "protocol.json#/methods/complexity");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_breaking_change_with_a_new_major_version_exits_zero() {
    let dir = working_copy("major", |m| {
        m["methods"]
            .as_object_mut()
            .unwrap()
            .shift_remove("complexity");
        m["version"] = "2.0.0".into();
    });
    let old = repo("schemas/gaze-analyzer/1.0.0");
    let output = wirekit(&[
        "diff",
        "--protocol",
        "gaze-analyzer",
        old.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("breaking, and the major version moved"),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_unknown_version_is_bad_usage() {
    let output = wirekit(&["diff", "--protocol", "gaze-analyzer", "1.0.0", "9.9.9"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no version `9.9.9`; known: 1.0.0, 1.1.0"),
        "{stderr}"
    );
}
