//! A published JSON-RPC schema nobody here wrote, derived as it is in a
//! project of one's own (`tests/derive/agent`: the shape
//! typescript-json-schema writes, draft-07 `definitions`, request types that
//! carry the whole envelope, one request without params, results only in
//! `*SuccessResponse` envelopes, one of them a union, client requests
//! only): `wirekit generate` derives the folder and its bindings, and
//! `validate` judges each alternative of the union.

// A test fails loudly on a missing fixture: unwrap and panic are its assertions.
#![allow(clippy::unwrap_used, clippy::panic)]

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};
use support::repo;

/// A copy of the fixture project outside the repository, removed when dropped.
struct Project(PathBuf);

impl Project {
    fn new(name: &str) -> Project {
        let dir =
            std::env::temp_dir().join(format!("wirekit-derive-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(&repo().join("tests/derive/agent"), &dir);
        // Only what the fixture's author wrote: the derived files come from generate.
        for derived in ["protocol.json", "agent.schema.json"] {
            let _ = std::fs::remove_file(dir.join("schemas/agent/1").join(derived));
        }
        Project(dir)
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

fn wirekit_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn generated(project: &Project) -> Value {
    let out = wirekit_in(&project.0, &["generate"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let manifest =
        std::fs::read_to_string(project.0.join("schemas/agent/1/protocol.json")).unwrap();
    serde_json::from_str(&manifest).unwrap()
}

#[test]
fn every_method_gets_its_envelopes_result_and_a_request_without_params_has_none() {
    let project = Project::new("methods");
    let manifest = generated(&project);
    let methods = manifest["methods"].as_object().unwrap();
    assert_eq!(
        methods.keys().collect::<Vec<_>>(),
        ["message/send", "agent/getCard"]
    );
    let send = &methods["message/send"];
    assert_eq!(send["direction"], "client-to-server");
    assert_eq!(
        send["params"]["$ref"],
        "agent.schema.json#/$defs/MessageSendParams"
    );
    assert_eq!(
        send["result"]["$ref"],
        "agent.schema.json#/$defs/SendMessageSuccessResponse/properties/result"
    );
    // The upstream file's own words lead the description.
    assert!(
        send["description"]
            .as_str()
            .unwrap()
            .starts_with("Sends the agent a message;"),
        "{send}"
    );
    let card = &methods["agent/getCard"];
    assert!(card.get("params").is_none(), "{card}");
    assert!(card.get("params_optional").is_none(), "{card}");
    assert_eq!(
        card["result"]["$ref"],
        "agent.schema.json#/$defs/GetAgentCardSuccessResponse/properties/result"
    );
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(project.0.join("schemas/agent/1/agent.schema.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        schema["$defs"]["Task"]["description"],
        "Work the agent goes on with."
    );
    // Every target generated, and nothing drifts on a second run.
    for file in [
        "gen/python/agent_protocol/agent.py",
        "gen/typescript/agent.ts",
        "gen/rust/agent.rs",
    ] {
        assert!(project.0.join(file).is_file(), "no {file}");
    }
    let check = wirekit_in(&project.0, &["generate", "--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    let lint = wirekit_in(&project.0, &["check"]);
    assert_eq!(lint.status.code(), Some(0), "{}", text(&lint.stdout));
}

#[test]
fn each_alternative_of_a_union_result_validates_and_a_broken_one_is_named() {
    let project = Project::new("union");
    generated(&project);
    let request = |id: u32, method: &str, params: Option<Value>| {
        let mut m = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            m["params"] = p;
        }
        m
    };
    let answer = |id: u32, result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
    let message = json!({"message": {"kind": "message", "role": "user", "text": "hi"}});
    let clean = [
        request(1, "agent/getCard", None),
        answer(1, json!({"name": "a", "version": "1"})),
        request(2, "message/send", Some(message.clone())),
        answer(2, json!({"kind": "task", "id": "t1", "status": "working"})),
        request(3, "message/send", Some(message.clone())),
        answer(
            3,
            json!({"kind": "message", "role": "agent", "text": "hello"}),
        ),
    ];
    let lines = |messages: &[Value]| {
        messages
            .iter()
            .map(|m| format!("{m}\n"))
            .collect::<String>()
    };
    std::fs::write(project.0.join("clean.ndjson"), lines(&clean)).unwrap();
    let out = wirekit_in(
        &project.0,
        &["validate", "--protocol", "agent", "clean.ndjson"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );

    let broken = [
        request(1, "message/send", Some(message)),
        answer(1, json!({"kind": "task", "id": "t1"})),
    ];
    std::fs::write(project.0.join("broken.ndjson"), lines(&broken)).unwrap();
    let out = wirekit_in(
        &project.0,
        &["validate", "--protocol", "agent", "broken.ndjson"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("frame 1: invalid_result"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn an_upstream_file_its_metaschema_refuses_is_not_derived() {
    let project = Project::new("refused");
    let upstream = project.0.join("upstream/agent.schema.json");
    let mut schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&upstream).unwrap()).unwrap();
    schema["definitions"]["AgentCard"]["anyOf"] = json!([]);
    std::fs::write(&upstream, schema.to_string()).unwrap();
    let out = wirekit_in(&project.0, &["generate"]);
    assert_eq!(out.status.code(), Some(2));
    let message = text(&out.stderr);
    assert!(
        message.contains("not valid against its metaschema"),
        "{message}"
    );
    assert!(
        message.contains("/definitions/AgentCard/anyOf"),
        "{message}"
    );
}

#[test]
fn a_request_with_no_result_anywhere_is_named() {
    let project = Project::new("no-result");
    let upstream = project.0.join("upstream/agent.schema.json");
    let mut schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&upstream).unwrap()).unwrap();
    let defs = schema["definitions"].as_object_mut().unwrap();
    defs.remove("GetAgentCardSuccessResponse");
    defs.remove("GetAgentCardResponse");
    std::fs::write(&upstream, schema.to_string()).unwrap();
    let out = wirekit_in(&project.0, &["generate"]);
    assert_eq!(out.status.code(), Some(2));
    let message = text(&out.stderr);
    assert!(
        message.contains("no result for the request `agent/getCard`"),
        "{message}"
    );
    assert!(message.contains("default_result"), "{message}");
}
