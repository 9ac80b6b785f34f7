//! `wirekit drive` answers an MCP server's own requests: `ping` (which goes
//! both ways, and which the spec obliges the receiver to answer) with the
//! result of its manifest example, `{}`, unless `--answers` says otherwise;
//! a request neither answers (`roots/list`) still gets -32601 and fails the
//! run. The recording validates.

// A test fails loudly on a missing fixture: unwrap and panic are its assertions.
#![allow(clippy::unwrap_used, clippy::panic)]

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::path::PathBuf;

use serde_json::{json, Value};

/// A stdlib MCP server that sends `ping` and `roots/list` once the client
/// is initialized, and answers `tools/list` after it.
const SERVER: &str = r#"
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-06-18",
              "capabilities": {"tools": {}}, "serverInfo": {"name": "pinger", "version": "1"}}})
    elif m.get("method") == "notifications/initialized":
        send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
        if sys.argv[1:] == ["roots"]:
            send({"jsonrpc": "2.0", "id": "srv-2", "method": "roots/list"})
    elif m.get("method") == "tools/list":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"tools": []}})
"#;

const CALLS: &str = concat!(
    r#"{"method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "d", "version": "1"}}}"#,
    "\n",
    r#"{"method": "notifications/initialized"}"#,
    "\n",
    r#"{"method": "tools/list"}"#,
    "\n"
);

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "wirekit-mcp-server-requests-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("server.py"), SERVER).unwrap();
    std::fs::write(dir.join("calls.ndjson"), CALLS).unwrap();
    dir
}

/// `drive` with `extra` arguments; its exit code and printed lines.
fn drive(dir: &std::path::Path, extra: &[&str], server_args: &[&str]) -> (Option<i32>, Vec<Value>) {
    let calls = dir.join("calls.ndjson");
    let record = dir.join("session.ndjson");
    let server = dir.join("server.py");
    let (calls, record, server) = (
        calls.to_str().unwrap(),
        record.to_str().unwrap(),
        server.to_str().unwrap(),
    );
    let mut args = vec![
        "drive",
        "--protocol",
        "mcp@2025-06-18",
        "--requests",
        calls,
        "--record",
        record,
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", server]);
    args.extend_from_slice(server_args);
    let out = support::wirekit(&args, b"");
    (out.status.code(), support::json_lines(&out))
}

fn server_request<'a>(lines: &'a [Value], method: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["server_request"] == method)
        .unwrap_or_else(|| panic!("no {method} in {lines:?}"))
}

#[test]
fn a_servers_ping_is_answered_from_the_manifest_and_the_session_validates() {
    let dir = scratch("ping");
    let (code, lines) = drive(&dir, &[], &[]);
    assert_eq!(code, Some(0), "{lines:?}");
    let ping = server_request(&lines, "ping");
    assert_eq!(ping["result"], json!({}));
    assert!(ping.get("problem").is_none(), "{ping}");
    let record = dir.join("session.ndjson");
    let validated = support::wirekit(
        &["validate", "--protocol", "mcp", record.to_str().unwrap()],
        b"",
    );
    assert_eq!(validated.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn answers_win_over_the_manifest_and_an_unanswered_request_still_fails() {
    let dir = scratch("answers");
    let answers = dir.join("answers.json");
    std::fs::write(
        &answers,
        r#"{"ping": {"error": {"code": -32603, "message": "busy"}}}"#,
    )
    .unwrap();
    let (code, lines) = drive(&dir, &["--answers", answers.to_str().unwrap()], &[]);
    assert_eq!(code, Some(0), "{lines:?}");
    assert_eq!(server_request(&lines, "ping")["error"]["code"], -32603);
    let (code, lines) = drive(&dir, &[], &["roots"]);
    assert_eq!(code, Some(1), "{lines:?}");
    assert_eq!(server_request(&lines, "ping")["result"], json!({}));
    let roots = server_request(&lines, "roots/list");
    assert_eq!(roots["error"]["code"], -32601);
    assert_eq!(roots["problem"]["kind"], "server_request");
    let _ = std::fs::remove_dir_all(dir);
}
