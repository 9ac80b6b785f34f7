//! Capabilities on both sides: where the manifest says where the client
//! declares its own (`capabilities.client_pointer`), a method gated on the
//! client's declaration (`capability_of: client`, MCP's
//! `sampling/createMessage`) is judged against it, and a notification a
//! peer promises (MCP's `notifications/tools/list_changed`, gated on the
//! server's `tools/listChanged`) against its sender's. A fault is the
//! sender's.
//!
//! The protocol is `lsp-min@3.17` (the minimal LSP folder of
//! `tests/protocols`) with capabilities added in a scratch copy.

#![cfg(feature = "monitor")]

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use wirekit::framing::{decoder_for, Frame, FramingError};
use wirekit::monitor::{Party, SessionChecker};
use wirekit::protocol::Registry;
use wirekit::validate::Protocol;

fn protocol() -> Arc<Protocol> {
    let original =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/protocols/lsp-min/3.17");
    let root = std::env::temp_dir().join(format!("wirekit-client-caps-{}", std::process::id()));
    let folder = root.join("lsp-min/3.17");
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::copy(
        original.join("lsp-min.schema.json"),
        folder.join("lsp-min.schema.json"),
    )
    .expect("schema");
    let text = std::fs::read_to_string(original.join("protocol.json")).expect("manifest");
    let mut manifest: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    manifest["capabilities"] = json!({
        "method": "initialize", "pointer": "/capabilities", "style": "provider",
        "client_pointer": "/capabilities"
    });
    manifest["methods"]["workspace/configuration"]["capability"] = json!("workspace/configuration");
    manifest["methods"]["workspace/configuration"]["capability_of"] = json!("client");
    manifest["methods"]["window/logMessage"]["capability"] = json!("logging/messages");
    std::fs::write(folder.join("protocol.json"), manifest.to_string()).expect("manifest");
    let registry = Registry::from_dir(&root).expect("loads");
    let source = registry.get("lsp-min@3.17").expect("lsp-min").clone();
    let _ = std::fs::remove_dir_all(&root);
    Arc::new(Protocol::compile(source).expect("compiles"))
}

fn frames(protocol: &Protocol, bodies: &[String]) -> Vec<Result<Frame, FramingError>> {
    let transport = &protocol.manifest().transport;
    let mut decoder = decoder_for(transport.framing, transport.frame_limits());
    for body in bodies {
        decoder.push(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }
    decoder.finish();
    std::iter::from_fn(|| decoder.next_frame()).collect()
}

/// The session: the client declares `client`, the server `server`; then
/// the server asks `workspace/configuration` and logs a message.
fn judged(client: serde_json::Value, server: serde_json::Value) -> Vec<(usize, String, Party)> {
    let protocol = protocol();
    let bodies: Vec<String> = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": null, "capabilities": client}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": server}}),
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        json!({"jsonrpc": "2.0", "id": "s1", "method": "workspace/configuration", "params": {"items": [{"section": "x"}]}}),
        json!({"jsonrpc": "2.0", "id": "s1", "result": [null]}),
        json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 3, "message": "hi"}}),
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    let mut checker = SessionChecker::new(Arc::clone(&protocol));
    for frame in frames(&protocol, &bodies) {
        checker.on_frame(frame);
    }
    checker
        .finish()
        .iter()
        .map(|p| (p.frame, p.kind.name().to_owned(), p.blame))
        .collect()
}

#[test]
fn each_side_is_held_to_its_own_declaration() {
    let declared = judged(
        json!({"workspace": {"configuration": true}}),
        json!({"logging": {"messages": {}}}),
    );
    assert_eq!(declared, [], "both sides declared what they use");

    let undeclared = judged(json!({}), json!({}));
    assert_eq!(
        undeclared,
        [
            (3, "capability".to_owned(), Party::Server),
            (5, "capability".to_owned(), Party::Server)
        ],
        "the server asked what the client did not offer, and sent what it did not promise"
    );
}
