//! What `wirekit drive` tells a person: sentences that name the real cause,
//! local refusals that do not look like server answers, and no Rust debug
//! output anywhere.

use std::process::Output;

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use support::{json_lines as printed, wirekit};

fn drive(protocol: &str, requests: &str, server: &[&str]) -> Output {
    let mut args = vec![
        "drive",
        "--protocol",
        protocol,
        "--timeout-ms",
        "10000",
        "--",
    ];
    args.extend_from_slice(server);
    wirekit(&args, requests.as_bytes())
}

fn all_text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn assert_no_debug_form(text: &str) {
    for debug in [
        "Request {",
        "Response {",
        "Number(",
        "String(\"",
        "Some(",
        "Lifecycle\"",
    ] {
        assert!(!text.contains(debug), "`{debug}` in:\n{text}");
    }
}

fn minimal_analyzer() -> String {
    format!(
        "{}/../tests/peers/gaze_minimal_analyzer.py",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn after_a_clean_shutdown_a_call_is_not_sent_because_the_session_ended() {
    let requests = concat!(
        "{\"method\": \"initialize\", \"params\": {\"root_path\": \"/p\"}}\n",
        "{\"method\": \"shutdown\"}\n",
        "{\"method\": \"analyze\", \"params\": {\"root_path\": \"/p\"}}\n",
    );
    let analyzer = minimal_analyzer();
    let output = drive("gaze-analyzer@1.0.0", requests, &["python3", &analyzer]);
    assert_eq!(output.status.code(), Some(1), "{}", all_text(&output));
    let lines = printed(&output);
    let refused = &lines[2]["error"];
    assert_eq!(
        refused["message"],
        "not sent: `analyze` comes after the end of the session: it ended when `shutdown` was answered"
    );
    assert_eq!(refused["kind"], "lifecycle");
    assert_eq!(refused["sent"], false);
    assert!(
        refused.get("code").is_none(),
        "no JSON-RPC code, as if the server had answered: {refused}"
    );
    assert_no_debug_form(&all_text(&output));
}

#[test]
fn local_refusals_of_params_and_unknown_methods_say_not_sent() {
    let requests = concat!(
        "{\"method\": \"initialize\", \"params\": {\"root_path\": 42}}\n",
        "{\"method\": \"no_such_method\"}\n",
    );
    let analyzer = minimal_analyzer();
    let output = drive("gaze-analyzer@1.0.0", requests, &["python3", &analyzer]);
    let lines = printed(&output);
    let params = lines[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(
        params.starts_with("not sent: invalid params for `initialize`"),
        "{params}"
    );
    assert_eq!(lines[0]["error"]["sent"], false);
    assert_eq!(
        lines[1]["error"]["message"],
        "not sent: `no_such_method` is not a request of gaze-analyzer@1.0.0"
    );
    assert_no_debug_form(&all_text(&output));
}

/// A gzkit server that answers every request VERSION_MISMATCH and stays.
const MISMATCHING_GZKIT: &str = r#"
import json, sys
inp = sys.stdin.buffer
while True:
    line = inp.readline()
    if not line:
        break
    if not line.lower().startswith(b"content-length:"):
        continue
    length = int(line.split(b":")[1])
    inp.readline()
    request = json.loads(inp.read(length))
    body = json.dumps({"id": request["id"], "error": {"code": -32099, "message": "VERSION_MISMATCH: client major version 2 is incompatible with server major version 1"}}).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()
"#;

#[test]
fn after_a_version_mismatch_the_refusal_names_the_mismatch_not_the_state() {
    let requests = concat!(
        "{\"method\": \"initialize\", \"params\": {\"clientVersion\": \"2.0\"}}\n",
        "{\"method\": \"shutdown\", \"params\": {}}\n",
    );
    let output = drive(
        "gzkit-authoring-guide@1.0",
        requests,
        &["python3", "-c", MISMATCHING_GZKIT],
    );
    let lines = printed(&output);
    assert_eq!(lines[0]["error"]["code"], -32099, "the server's own answer");
    assert_eq!(lines[0]["error"]["kind"], "remote");
    let message = lines[1]["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(
        message,
        "not sent: `shutdown` comes after the end of the session: it ended when `initialize` was refused with -32099 (VERSION_MISMATCH)"
    );
    assert!(!message.contains("before initialize"));
    assert_no_debug_form(&all_text(&output));
}

/// A Gaze analyzer that answers with an id it was never sent.
const WRONG_ID_ANALYZER: &str = r#"
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({"jsonrpc": "2.0", "id": 99, "result": {}}), flush=True)
"#;

#[test]
fn an_answer_out_of_turn_is_a_sentence_with_its_id_not_debug_output() {
    let requests = "{\"method\": \"initialize\", \"params\": {\"root_path\": \"/p\"}}\n";
    let output = drive(
        "gaze-analyzer@1.0.0",
        requests,
        &["python3", "-c", WRONG_ID_ANALYZER],
    );
    let lines = printed(&output);
    assert_eq!(
        lines[0]["error"]["message"],
        "the server sent a result for id 99, which no pending request carries, while `initialize` (id 1) was waiting for its answer"
    );
    assert_no_debug_form(&all_text(&output));
}

#[test]
fn a_server_that_cannot_start_is_named_as_typed() {
    let output = drive("gaze-analyzer@1.0.0", "", &["/no/such/analyzer", "--stdio"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot start `/no/such/analyzer --stdio`"),
        "{stderr}"
    );
    assert_no_debug_form(&stderr);
}

/// A Content-Length server of `tests/protocols/lsp-min` that asks the host
/// `workspace/configuration` twice during `initialize`, with the ids 2.5
/// and null (allowed by JSON-RPC 2.0, discouraged), then answers.
const ASKS_WITH_DISCOURAGED_IDS: &str = r#"
import json, sys
def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))
def write(obj):
    body = json.dumps(obj).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()
call = read()
write({"jsonrpc": "2.0", "id": 2.5, "method": "workspace/configuration", "params": {"items": []}})
read()
write({"jsonrpc": "2.0", "id": None, "method": "workspace/configuration", "params": {"items": []}})
read()
write({"jsonrpc": "2.0", "id": call["id"], "result": {"capabilities": {}}})
read()
"#;

#[test]
fn a_server_request_with_a_discouraged_id_is_answered_and_warned_without_failing() {
    let dir = std::env::temp_dir().join(format!("wirekit-drive-ids-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    let answers = dir.join("answers.json");
    std::fs::write(
        &answers,
        r#"{"workspace/configuration": {"result": [{"tabSize": 4}]}}"#,
    )
    .expect("answers");
    let protocols = format!("{}/../tests/protocols", env!("CARGO_MANIFEST_DIR"));
    let answers = answers.to_string_lossy().into_owned();
    let output = wirekit(
        &[
            "drive",
            "--schemas",
            &protocols,
            "--protocol",
            "lsp-min@3.17",
            "--answers",
            &answers,
            "--timeout-ms",
            "10000",
            "--",
            "python3",
            "-c",
            ASKS_WITH_DISCOURAGED_IDS,
        ],
        b"{\"method\": \"initialize\", \"params\": {\"processId\": null, \"capabilities\": {}}}\n",
    );
    let text = all_text(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let lines = printed(&output);
    let asked: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l.get("server_request").is_some())
        .collect();
    assert_eq!(asked.len(), 2, "{text}");
    for (line, id) in asked
        .iter()
        .zip([serde_json::json!(2.5), serde_json::Value::Null])
    {
        assert_eq!(line["id"], id, "{line}");
        assert_eq!(
            line["result"],
            serde_json::json!([{"tabSize": 4}]),
            "{line}"
        );
        assert!(line.get("problem").is_none(), "{line}");
        assert_eq!(line["warning"]["severity"], "warning", "{line}");
        assert_eq!(line["warning"]["kind"], "discouraged_id", "{line}");
    }
    assert!(asked[0]["warning"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("has the id 2.5") && m.contains("fraction")));
    assert!(asked[1]["warning"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("has the id null")));
    assert_no_debug_form(&text);
    let _ = std::fs::remove_dir_all(&dir);
}
