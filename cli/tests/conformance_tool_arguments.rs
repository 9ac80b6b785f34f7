//! `wirekit conformance` probes the arguments a server checks against
//! schemas it lists itself (the manifest's `params_from` with
//! `refused_with`: MCP's `tools/call` against each tool's `inputSchema`):
//! a server that accepts arguments breaking its tool's schema fails, one
//! check for each broken member and keyword, naming the pointer; the same
//! server checking them passes every such check (issue 34).

use std::process::Command;

use serde_json::Value;

fn server() -> String {
    format!(
        "{}/../tests/conformance/mcp_tool_server.py",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The `tools/call` argument checks of a conformance run: (outcome, name, pointer).
fn argument_checks(extra: &[&str]) -> Vec<(String, String, String)> {
    let server = server();
    let output = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args([
            "conformance",
            "--protocol",
            "mcp@2025-11-25",
            "--json",
            "--",
        ])
        .args(["python3", server.as_str()])
        .args(extra)
        .output()
        .expect("wirekit runs");
    let report: Result<Value, _> = serde_json::from_slice(&output.stdout);
    assert!(
        report.is_ok(),
        "not a JSON report:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let report = report.unwrap_or_default();
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
