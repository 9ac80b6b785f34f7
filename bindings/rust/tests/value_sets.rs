//! The value sets a client announces (the manifest's `value_sets`) hold
//! what the server sends: a completion item kind or a diagnostic tag
//! outside the announced set is the server's warning `unannounced_value`,
//! at the place in its answer or notification; a value within the set, a
//! member of another enumeration that shares the name (`documentation.kind`)
//! and a client that announced everything pass. On the shipped LSP 3.17.

#![cfg(feature = "monitor")]

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};
use wirekit::framing::decoder_for;
use wirekit::monitor::{Party, Problem, SessionChecker, Severity};
use wirekit::protocol::{ProtocolErrorKind, Registry};
use wirekit::validate::Protocol;

fn lsp() -> Arc<Protocol> {
    wirekit_protocols::protocol("lsp@3.17").expect("embedded")
}

/// The problems of a session: `initialize` announcing `capabilities`, the
/// handshake, then `messages` in order.
fn check(protocol: &Arc<Protocol>, capabilities: Value, messages: &[Value]) -> Vec<Problem> {
    let mut all = vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": null, "rootUri": null, "capabilities": capabilities}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {
            "completionProvider": {}, "textDocumentSync": 1}}}),
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    ];
    all.extend_from_slice(messages);
    let transport = &protocol.manifest().transport;
    let mut decoder = decoder_for(transport.framing, transport.frame_limits());
    for message in &all {
        let body = message.to_string();
        decoder.push(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }
    decoder.finish();
    let mut checker = SessionChecker::new(Arc::clone(protocol));
    while let Some(frame) = decoder.next_frame() {
        checker.on_frame(frame);
    }
    checker.finish().to_vec()
}

fn completion(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/completion", "params": {
        "textDocument": {"uri": "file:///a.py"}, "position": {"line": 0, "character": 0}}})
}

fn answer(id: u64, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn diagnostics(tags: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
        "uri": "file:///a.py", "diagnostics": [{
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "message": "unused", "tags": tags}]}})
}

fn announcing(kinds: Value, tags: Value) -> Value {
    json!({"textDocument": {
        "completion": {"completionItemKind": {"valueSet": kinds}},
        "publishDiagnostics": {"tagSupport": {"valueSet": tags}}}})
}

fn places(problems: &[Problem]) -> Vec<(usize, &str, &str)> {
    problems
        .iter()
        .map(|p| (p.frame, p.kind.name(), p.pointer.as_deref().unwrap_or("")))
        .collect()
}

#[test]
fn values_outside_the_announced_sets_are_the_servers_warnings() {
    let protocol = lsp();
    let problems = check(
        &protocol,
        announcing(json!([1, 2, 3]), json!([2])),
        &[
            completion(2),
            answer(
                2,
                json!({"isIncomplete": false, "items": [
                    {"label": "a", "kind": 3},
                    {"label": "b", "kind": 7, "documentation": {"kind": "markdown", "value": "b"}}
                ]}),
            ),
            completion(3),
            answer(3, json!([{"label": "c", "kind": 9}, {"label": "d"}])),
            diagnostics(json!([1, 2])),
        ],
    );
    assert_eq!(
        places(&problems),
        [
            (4, "unannounced_value", "/result/items/1/kind"),
            (6, "unannounced_value", "/result/0/kind"),
            (7, "unannounced_value", "/params/diagnostics/0/tags/0"),
        ],
        "{problems:#?}"
    );
    for problem in &problems {
        assert_eq!(problem.severity, Severity::Warning, "{problem}");
        assert_eq!(problem.blame, Party::Server, "{problem}");
    }
    assert!(
        problems[0].message.starts_with(
            "CompletionItemKind 7 is not among the values the client announced at /params/capabilities/textDocument/completion/completionItemKind/valueSet (1–3)"
        ),
        "{}",
        problems[0]
    );
    assert!(
        problems[2].message.starts_with("DiagnosticTag 1 "),
        "{}",
        problems[2]
    );
}

#[test]
fn values_within_the_announced_sets_pass() {
    let protocol = lsp();
    let every_kind: Vec<u32> = (1..=25).collect();
    let problems = check(
        &protocol,
        announcing(json!(every_kind), json!([1, 2])),
        &[
            completion(2),
            answer(
                2,
                json!({"isIncomplete": false, "items": [{"label": "a", "kind": 25}]}),
            ),
            diagnostics(json!([1, 2])),
        ],
    );
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Without `completionItemKind.valueSet` a client supports the kinds 1 to
/// 18 (the spec's "from Text to Reference"); without `tagSupport` any tag
/// passes (the manifest gives no default for it).
#[test]
fn a_client_that_announces_nothing_gets_the_protocols_default() {
    let protocol = lsp();
    let problems = check(
        &protocol,
        json!({}),
        &[
            completion(2),
            answer(
                2,
                json!([{"label": "a", "kind": 18}, {"label": "b", "kind": 22}]),
            ),
            diagnostics(json!([1, 2])),
        ],
    );
    assert_eq!(
        places(&problems),
        [(4, "unannounced_value", "/result/1/kind")],
        "{problems:#?}"
    );
    assert!(
        problems[0]
            .message
            .contains("(1–18, the protocol's default)"),
        "{}",
        problems[0]
    );
}

/// A value set naming a method the manifest lacks is refused when the
/// protocol loads, at its pointer.
#[test]
fn a_value_set_of_an_unknown_method_is_refused() {
    let original = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas/lsp/3.17");
    let root = std::env::temp_dir().join(format!("wirekit-value-sets-{}", std::process::id()));
    let folder = root.join("lsp/3.17");
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::copy(
        original.join("lsp.schema.json"),
        folder.join("lsp.schema.json"),
    )
    .expect("schema");
    let text = std::fs::read_to_string(original.join("protocol.json")).expect("manifest");
    let mut manifest: Value = serde_json::from_str(&text).expect("JSON");
    manifest["value_sets"][1]["methods"] = json!(["textDocument/outline"]);
    std::fs::write(folder.join("protocol.json"), manifest.to_string()).expect("manifest");
    let registry = Registry::from_dir(&root).expect("loads");
    let source = registry.get("lsp@3.17").expect("lsp").clone();
    let _ = std::fs::remove_dir_all(&root);
    let error = Protocol::compile(source).expect_err("an unknown method");
    assert_eq!(error.kind(), ProtocolErrorKind::Inconsistent, "{error}");
    assert_eq!(error.pointer(), "/value_sets/1/methods/0", "{error}");
    assert!(
        error.to_string().contains("textDocument/outline"),
        "{error}"
    );
}
