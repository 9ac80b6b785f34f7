//! `wirekit diff` between dated MCP versions (`version_scheme: date`): the
//! changes from 2025-06-18 to 2025-11-25 are classified, and a breaking
//! change fails the gate even where the year moved, since no part of a date
//! announces one; a compatible change passes.

// A test fails loudly on a missing fixture: unwrap and panic are its assertions.
#![allow(clippy::unwrap_used, clippy::panic)]

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// `(impact, kind, pointer)` of each change `diff --json` prints.
fn changes(args: &[&str]) -> (Option<i32>, Vec<(String, String, String)>, String) {
    let out = support::wirekit(args, b"");
    let list = support::json_lines(&out)
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or("").to_owned();
            (s("impact"), s("kind"), s("pointer"))
        })
        .collect();
    (
        out.status.code(),
        list,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A copy of `schemas/mcp/2025-06-18` as version `version`, with `edit`
/// applied to its manifest.
fn working_copy(name: &str, version: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirekit-mcp-diff-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = repo("schemas/mcp/2025-06-18");
    for file in ["protocol.json", "mcp.schema.json"] {
        std::fs::copy(source.join(file), dir.join(file)).unwrap();
    }
    let path = dir.join("protocol.json");
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    manifest["version"] = json!(version);
    edit(&mut manifest);
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
    dir
}

fn has(list: &[(String, String, String)], impact: &str, kind: &str, pointer: &str) -> bool {
    list.iter()
        .any(|(i, k, p)| i == impact && k == kind && p == pointer)
}

#[test]
fn mcp_2025_06_18_to_2025_11_25_is_classified_and_fails_the_gate() {
    let (code, list, stderr) = changes(&[
        "diff",
        "--json",
        "--protocol",
        "mcp",
        "2025-06-18",
        "2025-11-25",
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    // tasks/* go both ways, gated on the receiver's `tasks` (issue 36): a
    // peer built on 2025-06-18 declares none, so none is sent to it.
    for method in ["get", "result", "list", "cancel"] {
        let pointer = format!("protocol.json#/methods/tasks~1{method}");
        assert!(
            has(&list, "compatible", "method-added", &pointer),
            "tasks/{method}: {list:?}"
        );
    }
    // Their status notification is sent only by a side that declared
    // `tasks` (`capability_of: sender`), and elicitation's completion only
    // to a client that declared URL mode (`elicitation/url`): neither
    // reaches a peer built on 2025-06-18.
    for notification in ["tasks~1status", "elicitation~1complete"] {
        let pointer = format!("protocol.json#/methods/notifications~1{notification}");
        assert!(
            has(&list, "compatible", "method-added", &pointer),
            "{notification}: {list:?}"
        );
    }
    // Elicitation's params split into a form and a URL variant, both
    // requiring `message`: not removed; `requestedSchema`, which the URL
    // variant lacks, is (for the clients that read it), and the URL
    // variant's required members break no server (an old request is still
    // a valid form request).
    let member = |name: &str| format!("elicitation/create params at /{name}");
    let out = support::wirekit(
        &["diff", "--protocol", "mcp", "2025-06-18", "2025-11-25"],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    let breaking_at = |at: &str| {
        lines
            .windows(2)
            .any(|w| w[0].starts_with("breaking") && w[1].trim() == format!("in {at}"))
    };
    assert!(!breaking_at(&member("message")), "{text}");
    assert!(!breaking_at(&member("url")), "{text}");
    assert!(!breaking_at(&member("mode")), "{text}");
    assert!(breaking_at(&member("requestedSchema")), "{text}");
    // notifications/cancelled no longer requires `requestId`.
    assert!(list
        .iter()
        .any(|(i, k, p)| i == "breaks-clients-and-servers"
            && k == "member-optional"
            && p.ends_with("CancelledNotificationParams/required")));
    let compatible = list.iter().filter(|(i, _, _)| i == "compatible").count();
    assert!(compatible >= 10, "{compatible} compatible changes");
    assert!(stderr.contains("dated versions"), "{stderr}");
}

#[test]
fn a_dated_version_passes_a_compatible_change_and_fails_a_breaking_one() {
    let same = repo("schemas/mcp/2025-06-18");
    let same = same.to_str().unwrap();
    let optional = working_copy("optional", "2026-01-01", |m| {
        m["methods"]["tools/describe"] = json!({
            "kind": "request", "direction": "client-to-server",
            "description": "A new optional request.",
            "params": m["methods"]["tools/list"]["params"].clone(),
            "params_optional": true,
            "result": m["methods"]["tools/list"]["result"].clone(),
            "capability": "tools",
            "lifecycle": {"allowed_in": ["ready"]}
        });
    });
    let (code, list, stderr) = changes(&[
        "diff",
        "--json",
        "--protocol",
        "mcp",
        same,
        optional.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0].0, "compatible");
    // The year moved, yet a removed method still fails the gate.
    let removed = working_copy("removed", "2026-01-01", |m| {
        m["methods"].as_object_mut().unwrap().remove("ping");
    });
    let (code, list, stderr) = changes(&[
        "diff",
        "--json",
        "--protocol",
        "mcp",
        same,
        removed.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(list
        .iter()
        .any(|(i, k, _)| i == "breaks-clients-and-servers" && k == "method-removed"));
    let _ = std::fs::remove_dir_all(optional);
    let _ = std::fs::remove_dir_all(removed);
}
