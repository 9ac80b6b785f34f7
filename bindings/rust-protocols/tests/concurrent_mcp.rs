//! An MCP 2025-11-25 server written against the generated
//! `McpConcurrentServer` trait, served by the concurrent loop over
//! in-memory pipes: a ping answered while a slow tool runs, a tool's typed
//! `notify_*` reaching the client as valid frames, a tool's typed
//! `request_*` getting the client's answer decoded (and a malformed answer
//! coming back as `invalid-answer`), a notification's handler asking the
//! client through its `Peer`, and params that break their schema answered
//! -32602 with their pointer. The typed `InitializeResult` declares
//! `logging: Some(Map::new())`, which goes out as `"logging":{}`, so the
//! tool's typed `notifications/message` is let through.
#![cfg(feature = "mcp")]

use std::sync::{mpsc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use wirekit::envelope::ErrorObject;
use wirekit::serve::{Concurrency, Peer, RequestContext, ServeOptions, ServeOutcome, Server};
use wirekit::validate::Part;

#[path = "../../rust/tests/common/pipes.rs"]
mod pipes;
use pipes::{Input, Output};
use wirekit_protocols::mcp_v2025_11_25::types::{
    CallToolRequestParams, CallToolResult, CancelTaskRequestParams, CancelTaskResult, EmptyResult,
    GetTaskPayloadRequestParams, GetTaskPayloadResult, GetTaskRequestParams, GetTaskResult,
    InitializeRequestParams, InitializeResult, ListTasksResult, LoggingLevel,
    LoggingMessageNotificationParams, NotificationParams, PaginatedRequestParams,
    ProgressNotificationParams, RequestParams,
};
use wirekit_protocols::mcp_v2025_11_25::{
    methods, McpConcurrentHandler, McpConcurrentServer, McpPeerExt,
};

/// A few tools, each showing one thing a typed handler can do.
#[derive(Default)]
struct Tools {
    /// What the handler of `notifications/roots/list_changed` learnt.
    roots_seen: Mutex<Vec<String>>,
}

fn typed<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorObject> {
    serde_json::from_value(value).map_err(|e| ErrorObject::new(-32603, e.to_string()))
}

fn answer(text: &str) -> Result<CallToolResult, ErrorObject> {
    typed(json!({"content": [{"type": "text", "text": text}]}))
}

impl McpConcurrentServer for Tools {
    fn initialize(
        &self,
        _context: &RequestContext,
        _params: InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorObject> {
        let mut result: InitializeResult = typed(json!({"protocolVersion": "2025-11-25",
                     "capabilities": {"tools": {"listChanged": true}},
                     "serverInfo": {"name": "typed-tools", "version": "1"}}))?;
        // `{}` declares the capability: the server may send `notifications/message`.
        result.capabilities.logging = Some(Map::new());
        Ok(result)
    }

    fn ping(
        &self,
        _context: &RequestContext,
        _params: Option<RequestParams>,
    ) -> Result<EmptyResult, ErrorObject> {
        typed(json!({}))
    }

    fn tools_call(
        &self,
        context: &RequestContext,
        params: CallToolRequestParams,
    ) -> Result<CallToolResult, ErrorObject> {
        match params.name.as_str() {
            "sleep" => {
                let ms = params
                    .arguments
                    .as_ref()
                    .and_then(|arguments| arguments.get("ms"))
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                thread::sleep(Duration::from_millis(ms));
                answer(&format!("slept {ms} ms"))
            }
            "progress" => {
                // The token the client sent in `_meta.progressToken`.
                let token = context.progress_token().cloned().unwrap_or(Value::Null);
                let progress: ProgressNotificationParams = typed(json!({
                    "progressToken": token, "progress": 0.5, "total": 2.0, "message": "half"}))?;
                let sent = context.notify_notifications_progress(&progress);
                let changed = context.notify_notifications_tools_list_changed(None);
                // Declared by the initialize answer's `"logging": {}`.
                let logged =
                    context.notify_notifications_message(&LoggingMessageNotificationParams {
                        meta: None,
                        data: json!("half way"),
                        level: LoggingLevel::Info,
                        logger: Some("progress".to_owned()),
                    });
                answer(&format!("{sent:?} {changed:?} {logged:?}"))
            }
            "roots" => match context.request_roots_list(None) {
                // A typed answer: `Vec<Root>`, each `uri` a `String`.
                Ok(roots) => {
                    let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
                    answer(&format!("roots: {}", uris.join(" ")))
                }
                Err(error) => answer(&format!("{}: {error}", error.code())),
            },
            other => answer(&format!("no tool {other}")),
        }
    }

    fn notifications_roots_list_changed(&self, peer: &Peer, _params: Option<NotificationParams>) {
        // A notification's handler has the same typed calls, on its `Peer`.
        let seen = match peer.request_roots_list(None) {
            Ok(roots) => format!("{} roots", roots.roots.len()),
            Err(error) => error.code().to_owned(),
        };
        self.roots_seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(seen);
    }

    // Tasks are not served: the required methods answer -32601.
    fn tasks_get(
        &self,
        _context: &RequestContext,
        _params: GetTaskRequestParams,
    ) -> Result<GetTaskResult, ErrorObject> {
        Err(wirekit::serve::method_not_found(methods::TASKS_GET))
    }

    fn tasks_result(
        &self,
        _context: &RequestContext,
        _params: GetTaskPayloadRequestParams,
    ) -> Result<GetTaskPayloadResult, ErrorObject> {
        Err(wirekit::serve::method_not_found(methods::TASKS_RESULT))
    }

    fn tasks_cancel(
        &self,
        _context: &RequestContext,
        _params: CancelTaskRequestParams,
    ) -> Result<CancelTaskResult, ErrorObject> {
        Err(wirekit::serve::method_not_found(methods::TASKS_CANCEL))
    }

    fn tasks_list(
        &self,
        _context: &RequestContext,
        _params: Option<PaginatedRequestParams>,
    ) -> Result<ListTasksResult, ErrorObject> {
        Err(wirekit::serve::method_not_found(methods::TASKS_LIST))
    }
}

/// A running server and the client's ends of its pipes.
struct Session {
    to_server: Option<mpsc::Sender<Vec<u8>>>,
    from_server: mpsc::Receiver<(Instant, Vec<u8>)>,
    served: thread::JoinHandle<(std::io::Result<ServeOutcome>, Tools)>,
}

impl Session {
    /// Serves `Tools` and initializes with the client's `capabilities`.
    fn start(capabilities: Value) -> Session {
        let (to_server, input) = mpsc::channel();
        let (output, from_server) = mpsc::channel();
        let served = thread::spawn(move || {
            let protocol = wirekit_protocols::protocol("mcp@2025-11-25").expect("shipped");
            let handler = McpConcurrentHandler(Tools::default());
            let outcome = Server::new(protocol, ServeOptions::default())
                .with_logger(Box::new(|_| {}))
                .serve_concurrent(
                    &handler,
                    Input(input, Vec::new()),
                    Output(output, Vec::new()),
                    Concurrency::default(),
                );
            (outcome, handler.0)
        });
        let session = Session {
            to_server: Some(to_server),
            from_server,
            served,
        };
        session.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "test", "version": "1"}}}),
        );
        let (_, line) = session.next_line();
        // The typed `logging: Some(Map::new())` on the wire, not dropped.
        assert!(line.contains(r#""logging":{}"#), "{line}");
        let answer: Value = serde_json::from_str(&line).expect("the server writes JSON");
        assert_eq!(answer["id"], 0, "{answer}");
        assert_eq!(
            answer["result"]["capabilities"],
            json!({"logging": {}, "tools": {"listChanged": true}}),
            "{answer}"
        );
        assert_eq!(
            answer["result"]["serverInfo"]["name"], "typed-tools",
            "{answer}"
        );
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&self, message: Value) -> Instant {
        let mut line = serde_json::to_vec(&message).expect("json");
        line.push(b'\n');
        let sent = Instant::now();
        self.to_server
            .as_ref()
            .expect("open")
            .send(line)
            .expect("the server reads");
        sent
    }

    /// The next line the server writes, as it wrote it.
    fn next_line(&self) -> (Instant, String) {
        let (at, line) = self
            .from_server
            .recv_timeout(Duration::from_secs(10))
            .expect("the server writes within 10 s");
        (at, String::from_utf8_lossy(&line).into_owned())
    }

    fn next(&self) -> (Instant, Value) {
        let (at, line) = self.next_line();
        let value = serde_json::from_str(&line).expect("the server writes JSON");
        (at, value)
    }

    /// Closes the input and waits for the loop: its outcome and the server.
    fn close(mut self) -> (std::io::Result<ServeOutcome>, Tools) {
        self.to_server = None;
        self.served.join().expect("the loop does not panic")
    }
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("")
}

#[test]
fn a_typed_ping_is_answered_while_a_typed_tool_sleeps() {
    let session = Session::start(json!({}));
    let slow = session.send(call(1, "sleep", json!({"ms": 600})));
    let ping = session.send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    let (pinged, first) = session.next();
    assert_eq!(first, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    assert!(
        pinged - ping < Duration::from_millis(300),
        "the ping waited {:?} behind the tool",
        pinged - ping
    );
    let (slept, second) = session.next();
    assert_eq!(
        (second["id"].clone(), text(&second)),
        (json!(1), "slept 600 ms")
    );
    assert!(slept - slow >= Duration::from_millis(600));
    let (outcome, _) = session.close();
    assert!(outcome.is_ok(), "{outcome:?}");
}

#[test]
fn typed_notifications_reach_the_client_as_valid_frames() {
    let session = Session::start(json!({}));
    session.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "progress", "arguments": {}, "_meta": {"progressToken": "t1"}}}),
    );
    let protocol = wirekit_protocols::protocol("mcp@2025-11-25").expect("shipped");
    let frame = || {
        let (_, line) = session.next_line();
        // One NDJSON frame: one line, one JSON value, valid for its method.
        assert!(line.ends_with('\n') && !line[..line.len() - 1].contains('\n'));
        let frame: Value = serde_json::from_str(&line).expect("one JSON line");
        let method = frame["method"].as_str().unwrap_or("").to_owned();
        let issues = protocol.validate(&method, Part::Params, frame.get("params"));
        assert!(issues.is_empty(), "{frame}: {issues:?}");
        frame
    };
    assert_eq!(
        frame(),
        json!({"jsonrpc": "2.0", "method": methods::NOTIFICATIONS_PROGRESS, "params": {
            "message": "half", "progress": 0.5, "progressToken": "t1", "total": 2.0}})
    );
    assert_eq!(
        frame(),
        json!({"jsonrpc": "2.0", "method": methods::NOTIFICATIONS_TOOLS_LIST_CHANGED})
    );
    assert_eq!(
        frame(),
        json!({"jsonrpc": "2.0", "method": methods::NOTIFICATIONS_MESSAGE, "params": {
            "data": "half way", "level": "info", "logger": "progress"}})
    );
    let (_, answer) = session.next();
    assert_eq!(
        (answer["id"].clone(), text(&answer)),
        (json!(1), "Ok(()) Ok(()) Ok(())")
    );
    let (outcome, _) = session.close();
    assert!(outcome.is_ok(), "{outcome:?}");
}

#[test]
fn a_typed_request_gets_the_client_s_answer_decoded_and_a_malformed_one_is_an_invalid_answer() {
    let session = Session::start(json!({"roots": {"listChanged": true}}));
    session.send(call(1, "roots", json!({})));
    let (_, asked) = session.next();
    assert_eq!(asked["method"], "roots/list", "{asked}");
    assert!(asked.get("params").is_none(), "{asked}");
    session.send(
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [
        {"uri": "file:///work", "name": "work"}, {"uri": "file:///tmp"}]}}),
    );
    let (_, answer) = session.next();
    assert_eq!(
        (answer["id"].clone(), text(&answer)),
        (json!(1), "roots: file:///work file:///tmp")
    );

    // An answer that breaks `ListRootsResult`: the typed call fails.
    session.send(call(2, "roots", json!({})));
    let (_, asked) = session.next();
    session.send(
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [{"name": "no uri"}]}}),
    );
    let (_, answer) = session.next();
    assert_eq!(answer["id"], 2, "{answer}");
    assert!(
        text(&answer).starts_with("invalid-answer: the client's answer to `roots/list`"),
        "{answer}"
    );

    // A notification's handler asks through its `Peer`, typed the same way.
    session.send(json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
    let (_, asked) = session.next();
    assert_eq!(asked["method"], "roots/list", "{asked}");
    session.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": []}}));
    // The notification holds the queue until its handler returns: the
    // ping's answer comes after it.
    session.send(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    let (_, pong) = session.next();
    assert_eq!(pong["id"], 3, "{pong}");
    let (outcome, tools) = session.close();
    assert!(outcome.is_ok(), "{outcome:?}");
    assert_eq!(
        *tools.roots_seen.lock().unwrap_or_else(|e| e.into_inner()),
        ["0 roots"]
    );
}

#[test]
fn a_typed_request_the_client_did_not_declare_is_refused_before_it_is_sent() {
    let session = Session::start(json!({}));
    session.send(call(1, "roots", json!({})));
    let (_, answer) = session.next();
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(text(&answer).starts_with("refused: "), "{answer}");
    let (outcome, _) = session.close();
    assert!(outcome.is_ok(), "{outcome:?}");
}

#[test]
fn params_that_break_their_schema_are_answered_invalid_params_with_their_pointer() {
    let session = Session::start(json!({}));
    session.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": 7, "arguments": {}}}));
    let (_, answer) = session.next();
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let pointers: Vec<&str> = answer["error"]["data"]["errors"]
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .filter_map(|e| e["pointer"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(pointers, ["/name"], "{answer}");
    // The session goes on.
    session.send(call(2, "sleep", json!({"ms": 0})));
    let (_, answer) = session.next();
    assert_eq!(text(&answer), "slept 0 ms");
    let (outcome, _) = session.close();
    assert!(outcome.is_ok(), "{outcome:?}");
}
