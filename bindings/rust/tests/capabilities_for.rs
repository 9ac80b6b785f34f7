//! A server's capability declaration, derived from the methods it handles,
//! spelled as its protocol's own schema accepts it: MCP's capabilities are
//! objects (`"tools": {}`; `true` makes `initialize`'s result invalid), and
//! LSP's providers may be `true`.

use serde_json::{json, Value};
use wirekit::validate::Part;

fn handles<'a>(methods: &'a [&'a str]) -> impl Fn(&str) -> bool + 'a {
    move |method| methods.contains(&method)
}

#[test]
fn mcp_capabilities_are_objects_and_the_initialize_result_validates() {
    let mcp = wirekit_protocols::protocol("mcp@2025-11-25").expect("shipped");
    let served = [
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/read",
    ];
    let declared = mcp
        .capabilities_for(&handles(&served))
        .expect("MCP declares capabilities");
    assert_eq!(declared, json!({"tools": {}, "resources": {}}));
    // The core's manifest alone still writes `true` (the style's spelling).
    let plain = mcp.manifest().capabilities_for(&handles(&served));
    assert_eq!(plain, Some(json!({"tools": true, "resources": true})));

    let result = |capabilities: Value| {
        json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
               "serverInfo": {"name": "s", "version": "1"}})
    };
    let with_objects = mcp.validate("initialize", Part::Result, Some(&result(declared)));
    assert!(with_objects.is_empty(), "{with_objects:?}");
    let with_true = mcp.validate(
        "initialize",
        Part::Result,
        Some(&result(json!({"tools": true}))),
    );
    assert!(
        with_true
            .iter()
            .any(|issue| issue.instance_path == "/capabilities/tools"),
        "{with_true:?}"
    );
}

#[test]
fn lsp_providers_that_may_be_true_stay_true() {
    let lsp = wirekit_protocols::protocol("lsp").expect("shipped");
    let declared = lsp
        .capabilities_for(&handles(&["textDocument/hover", "textDocument/definition"]))
        .expect("LSP declares capabilities");
    assert_eq!(declared["hoverProvider"], json!(true), "{declared}");
    assert_eq!(declared["definitionProvider"], json!(true), "{declared}");
}
