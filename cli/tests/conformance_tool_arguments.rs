//! `wirekit conformance` probes the arguments a server checks against
//! schemas it lists itself (the manifest's `params_from` with
//! `refused_with`: MCP's `tools/call` against each tool's `inputSchema`):
//! a server that accepts arguments breaking its tool's schema fails, one
//! check for each broken member and keyword, naming the pointer; the same
//! server checking them passes every such check (issue 34).

use serde_json::Value;

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

fn server() -> String {
    format!(
        "{}/../tests/conformance/mcp_tool_server.py",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The `tools/call` argument checks of a conformance run: (outcome, name, pointer).
fn argument_checks(extra: &[&str]) -> Vec<(String, String, String)> {
    let server = server();
    let args = [
        &[
            "--protocol",
            "mcp@2025-11-25",
            "--json",
            "--",
            "python3",
            server.as_str(),
        ][..],
        extra,
    ]
    .concat();
    let (_, report) = support::conformance_report(&args);
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| text(&c["name"]).starts_with("`tools/call` of `add` refuses"))
        .map(|c| (text(&c["outcome"]), text(&c["name"]), text(&c["pointer"])))
        .collect()
}

#[test]
fn a_server_that_accepts_arguments_breaking_its_tool_schema_fails() {
    let checks = argument_checks(&[]);
    let names: Vec<&str> = checks.iter().map(|(_, name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "`tools/call` of `add` refuses `/arguments/a`: missing required member `a` (required)",
            "`tools/call` of `add` refuses `/arguments/b`: missing required member `b` (required)",
            "`tools/call` of `add` refuses `/arguments/a`: a string instead of integer (type)",
            "`tools/call` of `add` refuses `/arguments/b`: a string instead of integer (type)",
        ]
    );
    for (outcome, name, pointer) in &checks {
        assert_eq!(outcome, "fail", "{name}");
        assert!(
            pointer.starts_with("/params/arguments/"),
            "{name}: {pointer}"
        );
    }
}

#[test]
fn the_same_server_checking_them_passes() {
    let checks = argument_checks(&["--checks"]);
    assert_eq!(checks.len(), 4, "{checks:#?}");
    assert!(
        checks.iter().all(|(outcome, ..)| outcome == "pass"),
        "{checks:#?}"
    );
}

/// MCP's `tasks/*` are gated on the receiver's `tasks` (issue 36): a server
/// that declares none and answers them -32601 is right, so each is a
/// passed "not declared, refused" check, never a warning or a failure.
#[test]
fn a_server_without_tasks_is_not_warned_for_refusing_them() {
    let server = server();
    let (_, report) = support::conformance_report(&[
        "--protocol",
        "mcp@2025-11-25",
        "--json",
        "--",
        "python3",
        server.as_str(),
    ]);
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let tasks: Vec<(String, String)> = report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| text(&c["name"]).contains("`tasks/"))
        .map(|c| (text(&c["outcome"]), text(&c["name"])))
        .collect();
    assert_eq!(tasks.len(), 4, "{tasks:?}");
    for (outcome, name) in &tasks {
        assert_eq!(outcome, "pass", "{name}");
        assert!(name.contains("not declared) is refused"), "{name}");
    }
}
