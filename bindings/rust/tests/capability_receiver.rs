//! A capability of the receiver (`capability_of: receiver`): MCP's
//! `tasks/*`, which either side sends, are gated on the `tasks` declaration
//! of the side they are sent to: the server's for the client's requests,
//! the client's for the server's. A server that declares no tasks answers
//! them as undeclared (no false alarm), and may still ask a client that
//! declared them.

use serde_json::{json, Value};
use wirekit::session::Session;

fn initialized(client_capabilities: Value, server_capabilities: Value) -> Session {
    let protocol = wirekit_protocols::protocol("mcp@2025-11-25").expect("shipped");
    let mut session = Session::new(protocol);
    let params = json!({"protocolVersion": "2025-11-25", "capabilities": client_capabilities,
                        "clientInfo": {"name": "c", "version": "1"}});
    session.check("initialize").expect("initialize first");
    session
        .admit("initialize", Some(&params))
        .expect("admitted");
    session.declare_client("initialize", Some(&params));
    let result = json!({"protocolVersion": "2025-11-25", "capabilities": server_capabilities,
                        "serverInfo": {"name": "s", "version": "1"}});
    session.answered("initialize", Ok(&result));
    session
        .notify("notifications/initialized", None)
        .expect("initialized");
    session
}

#[test]
fn the_clients_tasks_requests_are_gated_on_the_servers_tasks() {
    let without = initialized(json!({"tasks": {"list": {}}}), json!({"tools": {}}));
    for method in ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"] {
        let refused = without.check(method).expect_err(method);
        assert!(
            refused
                .answer()
                .message
                .contains("which the server did not declare"),
            "{method}: {}",
            refused.answer().message
        );
    }
    let with = initialized(json!({}), json!({"tasks": {"list": {}, "cancel": {}}}));
    for method in ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"] {
        let allowed = with.check(method).map_err(|v| v.answer().message.clone());
        assert_eq!(allowed, Ok(()), "{method}");
    }
}

#[test]
fn the_servers_tasks_requests_are_gated_on_the_clients_tasks() {
    // The server declares no tasks of its own, the client does: the server
    // may ask the client about its tasks, not the other way round.
    let session = initialized(json!({"tasks": {"list": {}}}), json!({}));
    session
        .check_from_server("tasks/get")
        .expect("the client declared tasks");
    session
        .check_from_server("tasks/list")
        .expect("the client declared tasks/list");
    let refused = session
        .check_from_server("tasks/cancel")
        .expect_err("the client declared no tasks/cancel");
    assert!(
        refused
            .answer()
            .message
            .contains("which the client did not declare"),
        "{}",
        refused.answer().message
    );
    assert!(
        session.check("tasks/get").is_err(),
        "the server declared no tasks"
    );
}

/// A capability of the sender (`capability_of: sender`): MCP's
/// `notifications/tasks/status` is sent only by a side that declared
/// `tasks`, whichever side that is; and `notifications/elicitation/complete`
/// (the receiver's) only to a client that declared URL elicitation.
#[test]
fn task_status_is_gated_on_the_senders_tasks_and_elicitation_complete_on_the_clients_url() {
    let status = json!({"taskId": "t1", "status": "working",
                        "createdAt": "2025-11-25T00:00:00Z", "lastUpdatedAt": "2025-11-25T00:00:00Z", "ttl": null});
    let mut server_runs_tasks = initialized(json!({}), json!({"tasks": {}}));
    server_runs_tasks
        .notify_from_server("notifications/tasks/status", Some(&status))
        .expect("the server declared tasks");
    let refused = server_runs_tasks
        .notify("notifications/tasks/status", Some(&status))
        .expect_err("the client declared no tasks");
    assert!(
        refused
            .answer()
            .message
            .contains("which the client did not declare"),
        "{}",
        refused.answer().message
    );
    let mut client_runs_tasks = initialized(json!({"tasks": {}}), json!({}));
    client_runs_tasks
        .notify("notifications/tasks/status", Some(&status))
        .expect("the client declared tasks");
    let refused = client_runs_tasks
        .notify_from_server("notifications/tasks/status", Some(&status))
        .expect_err("the server declared no tasks");
    assert!(
        refused
            .answer()
            .message
            .contains("which the server did not declare"),
        "{}",
        refused.answer().message
    );

    let complete = json!({"elicitationId": "e1"});
    let mut with_url = initialized(json!({"elicitation": {"url": {}}}), json!({}));
    with_url
        .notify_from_server("notifications/elicitation/complete", Some(&complete))
        .expect("the client declared URL elicitation");
    let mut form_only = initialized(json!({"elicitation": {"form": {}}}), json!({}));
    assert!(form_only
        .notify_from_server("notifications/elicitation/complete", Some(&complete))
        .is_err());
}
