//! The official MCP `schema.json`, dropped UNCHANGED beside a manifest
//! written by hand (`tests/mcp/published-schema/protocol.json`: draft-07,
//! `definitions`, params as references into the request types), judges the
//! captured MCP sessions exactly as the derived `schemas/mcp/2025-06-18`
//! does: a maintainer can use the schema they publish as it is.
//!
//! The schema is read from `../shared/upstream/mcp/` beside the clone (or
//! `$WIREKIT_MCP_UPSTREAM`); without it the test says so in one line and
//! checks nothing.

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::path::PathBuf;

use serde_json::Value;
use support::{json_lines, repo, wirekit};

fn upstream() -> Option<PathBuf> {
    let dir = std::env::var_os("WIREKIT_MCP_UPSTREAM")
        .map_or_else(|| repo().join("../shared/upstream/mcp"), PathBuf::from);
    let file = dir.join("2025-06-18.schema.json");
    file.is_file().then_some(file)
}

/// `(frame, kind, pointer)` of each problem, sorted.
fn problems(lines: &[Value]) -> Vec<(u64, String, String)> {
    let mut out: Vec<(u64, String, String)> = lines
        .iter()
        .map(|p| {
            (
                p["frame"].as_u64().unwrap_or(u64::MAX),
                p["kind"].as_str().unwrap_or("").to_owned(),
                p["pointer"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_published_schema_unchanged_judges_the_sessions_as_the_derived_folder() {
    let Some(schema) = upstream() else {
        eprintln!("mcp published schema: not run: ../shared/upstream/mcp/2025-06-18.schema.json is absent (CI has it)");
        return;
    };
    let base = std::env::temp_dir().join(format!("wirekit-mcp-published-{}", std::process::id()));
    let folder = base.join("mcp/2025-06-18");
    std::fs::create_dir_all(&folder).expect("temp folder");
    std::fs::copy(&schema, folder.join("schema.json")).expect("copy the schema");
    std::fs::copy(
        repo().join("tests/mcp/published-schema/protocol.json"),
        folder.join("protocol.json"),
    )
    .expect("copy the manifest");
    assert_eq!(
        std::fs::read(folder.join("schema.json")).expect("read"),
        std::fs::read(&schema).expect("read"),
        "the schema is used byte for byte"
    );
    let sessions = repo().join("tests/sessions/mcp@2025-06-18");
    let mut captures: Vec<PathBuf> = std::fs::read_dir(&sessions)
        .expect("sessions")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ndjson"))
        .collect();
    captures.sort();
    assert!(captures.len() >= 4, "{captures:?}");
    let schemas = base.to_string_lossy().into_owned();
    let mut checked = 0;
    for capture in &captures {
        let file = capture.to_string_lossy().into_owned();
        let published = wirekit(
            &[
                "validate",
                "--schemas",
                &schemas,
                "--protocol",
                "mcp@2025-06-18",
                "--json",
                &file,
            ],
            b"",
        );
        let derived = wirekit(
            &["validate", "--protocol", "mcp@2025-06-18", "--json", &file],
            b"",
        );
        let expect: Value = serde_json::from_str(
            &std::fs::read_to_string(capture.with_extension("expect.json")).expect("expect"),
        )
        .expect("expect JSON");
        let expected = problems(expect["problems"].as_array().expect("problems"));
        let name = capture.display();
        assert_eq!(
            problems(&json_lines(&published)),
            expected,
            "{name} (published)"
        );
        assert_eq!(
            problems(&json_lines(&derived)),
            expected,
            "{name} (derived)"
        );
        assert_eq!(
            published.status.code(),
            Some(i32::from(!expected.is_empty())),
            "{name}"
        );
        checked += 1;
    }
    let _ = std::fs::remove_dir_all(&base);
    eprintln!("mcp published schema: {checked} sessions judged alike by the unchanged schema.json and the derived folder");
}
