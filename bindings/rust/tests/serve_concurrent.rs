//! The concurrent serve loop against MCP 2025-11-25 (the shipped protocol,
//! its schemas and lifecycle): requests side by side, a ping answered while
//! a slow tool runs, cancellation reaching the handler, a handler asking
//! the client and getting its checked answer, notifications checked, the
//! in-flight bound, and the session's order kept where the protocol needs
//! it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wirekit::envelope::ErrorObject;
use wirekit::serve::{
    Concurrency, ConcurrentHandler, RequestContext, ResultCheck, ServeOptions, ServeOutcome, Server,
};

#[path = "common/pipes.rs"]
mod pipes;
use pipes::{Input, Output};

/// A running server and the client's ends of its pipes.
struct Session {
    to_server: Option<mpsc::Sender<Vec<u8>>>,
    from_server: mpsc::Receiver<(Instant, Vec<u8>)>,
    served: thread::JoinHandle<(std::io::Result<ServeOutcome>, Vec<String>)>,
}

impl Session {
    fn start(handler: Tools, concurrency: Concurrency) -> Session {
        Session::start_with(handler, concurrency, ServeOptions::default())
    }

    fn start_with<H: ConcurrentHandler + Send + 'static>(
        handler: H,
        concurrency: Concurrency,
        options: ServeOptions,
    ) -> Session {
        let (to_server, input) = mpsc::channel();
        let (output, from_server) = mpsc::channel();
        let served = thread::spawn(move || {
            let log = Arc::new(Mutex::new(Vec::new()));
            let sink = Arc::clone(&log);
            let protocol = wirekit_protocols::protocol("mcp@2025-11-25").expect("shipped");
            let outcome = Server::new(protocol, options)
                .with_logger(Box::new(move |line| {
                    sink.lock().expect("log").push(line.to_owned())
                }))
                .serve_concurrent(
                    &handler,
                    Input(input, Vec::new()),
                    Output(output, Vec::new()),
                    concurrency,
                );
            let log = log.lock().expect("log").clone();
            (outcome, log)
        });
        Session {
            to_server: Some(to_server),
            from_server,
            served,
        }
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

    fn next(&self) -> (Instant, Value) {
        let (at, line) = self
            .from_server
            .recv_timeout(Duration::from_secs(10))
            .expect("the server answers within 10 s");
        (
            at,
            serde_json::from_slice(&line).expect("the server writes JSON lines"),
        )
    }

    /// `initialize` answered and `notifications/initialized` sent.
    fn initialized(self, capabilities: Value) -> Session {
        self.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "test", "version": "1"}}}),
        );
        let (_, answer) = self.next();
        assert_eq!(answer["id"], 0, "{answer}");
        assert!(answer.get("result").is_some(), "{answer}");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        self
    }

    /// Closes the input and waits for the loop: its outcome and log.
    fn close(self) -> (std::io::Result<ServeOutcome>, Vec<String>) {
        let (outcome, log, _) = self.close_reading();
        (outcome, log)
    }

    /// [`Session::close`], with the messages the server wrote after.
    fn close_reading(mut self) -> (std::io::Result<ServeOutcome>, Vec<String>, Vec<Value>) {
        self.to_server = None;
        let (outcome, log) = self.served.join().expect("the loop does not panic");
        let rest = self
            .from_server
            .try_iter()
            .map(|(_, line)| serde_json::from_slice(&line).expect("JSON lines"))
            .collect();
        (outcome, log, rest)
    }
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

fn text(result: &Value) -> &str {
    result["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("")
}

/// A few tools, each showing one thing a handler can do.
#[derive(Default)]
struct Tools {
    running: AtomicUsize,
    most_at_once: AtomicUsize,
}

impl ConcurrentHandler for Tools {
    fn implements(&self, method: &str) -> bool {
        matches!(method, "initialize" | "ping" | "tools/list" | "tools/call")
    }

    fn handle(
        &self,
        context: &RequestContext,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        let answer = |text: String| Ok(json!({"content": [{"type": "text", "text": text}]}));
        match method {
            "initialize" => Ok(
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}, "logging": {}},
                                      "serverInfo": {"name": "tools", "version": "1"}}),
            ),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": []})),
            _ => {
                let params = params.unwrap_or(Value::Null);
                let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
                self.most_at_once.fetch_max(now, Ordering::SeqCst);
                let arguments = &params["arguments"];
                let outcome = match params["name"].as_str().unwrap_or("") {
                    "sleep" => {
                        let ms = arguments["ms"].as_u64().unwrap_or(0);
                        thread::sleep(Duration::from_millis(ms));
                        answer(format!("slept {ms} ms"))
                    }
                    "wait_for_cancel" => {
                        let start = Instant::now();
                        while !context.is_cancelled() && start.elapsed() < Duration::from_secs(5) {
                            thread::sleep(Duration::from_millis(1));
                        }
                        answer(format!("cancelled: {}", context.is_cancelled()))
                    }
                    "ask_roots" => match context.request("roots/list", None) {
                        Ok(roots) => answer(format!("roots: {roots}")),
                        Err(error) => answer(format!("{}: {error}", error.code())),
                    },
                    "ask_invalid" => {
                        let peer = context.peer();
                        let params = Some(json!({"_meta": 5}));
                        match peer.request_within("roots/list", params, Duration::from_millis(50)) {
                            Ok(roots) => answer(format!("roots: {roots}")),
                            Err(error) => answer(format!("{}: {error}", error.code())),
                        }
                    }
                    "ask_briefly" => {
                        let peer = context.peer();
                        match peer.request_within("roots/list", None, Duration::from_millis(50)) {
                            Ok(roots) => answer(format!("roots: {roots}")),
                            Err(error) => answer(format!("{}: {error}", error.code())),
                        }
                    }
                    "log" => {
                        let valid = context.notify(
                            "notifications/message",
                            Some(json!({"level": "info", "data": "working"})),
                        );
                        let invalid = context.notify(
                            "notifications/message",
                            Some(json!({"level": "loud", "data": "working"})),
                        );
                        let unknown = context.notify("notifications/made-up", None);
                        answer(format!("{valid:?} | {invalid:?} | {unknown:?}"))
                    }
                    "progress" => {
                        let first = context.progress(json!({"progress": 1, "total": 2}));
                        let second =
                            context.progress(json!({"progress": 2, "total": 2, "message": "done"}));
                        let invalid = context.progress(json!({"progress": "half"}));
                        let invalid = match invalid {
                            Ok(sent) => sent.to_string(),
                            Err(error) => error.code().to_owned(),
                        };
                        answer(format!("{first:?} {second:?} {invalid}"))
                    }
                    "thread" => answer(format!("{:?}", thread::current().id())),
                    // A handler's bug, on purpose: the loop must survive it.
                    #[allow(clippy::panic)]
                    "panic" => panic!("the tool broke"),
                    other => answer(format!("no tool {other}")),
                };
                self.running.fetch_sub(1, Ordering::SeqCst);
                outcome
            }
        }
    }
}

/// Rule 1: while nothing else runs, a request runs on the thread that
/// called the loop (no hand-over between threads); one sent while a slow
/// tool runs is read by the reader thread and runs on a pool thread; once
/// the slow tool is done, requests run on the calling thread again.
#[test]
fn quick_requests_run_on_the_calling_thread_and_others_beside_a_slow_one() {
    let session = Session::start(Tools::default(), Concurrency::default()).initialized(json!({}));
    let serving = format!("{:?}", session.served.thread().id());
    let mut round_trip = |id: u64| {
        session.send(call(id, "thread", json!({})));
        let (_, answer) = session.next();
        assert_eq!(answer["id"], id, "{answer}");
        text(&answer).to_owned()
    };
    for id in 1..=20 {
        assert_eq!(round_trip(id), serving, "request {id}");
    }
    session.send(call(100, "sleep", json!({"ms": 300})));
    thread::sleep(Duration::from_millis(50));
    session.send(call(101, "thread", json!({})));
    let (_, beside) = session.next();
    assert_eq!(beside["id"], 101, "{beside}");
    assert_ne!(
        text(&beside),
        serving,
        "a request beside a slow one runs elsewhere"
    );
    let (_, slow) = session.next();
    assert_eq!(slow["id"], 100, "{slow}");
    // The reader thread hands reading back after at most one more frame.
    let back: Vec<String> = (102..=106).map(&mut round_trip).collect();
    assert!(
        back[1..].iter().all(|thread| *thread == serving),
        "{back:?} (serving on {serving})"
    );
    let (outcome, _) = session.close();
    outcome.expect("serves");
}

#[test]
fn a_ping_is_answered_at_once_while_a_slow_tool_runs() {
    let session = Session::start(Tools::default(), Concurrency::default()).initialized(json!({}));
    let slow = session.send(call(1, "sleep", json!({"ms": 1000})));
    thread::sleep(Duration::from_millis(50));
    let mut waits = Vec::new();
    for id in 2..7 {
        let sent = session.send(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        let (at, answer) = session.next();
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": id, "result": {}}));
        waits.push(at - sent);
    }
    let (done, answer) = session.next();
    assert_eq!(answer["id"], 1);
    assert_eq!(text(&answer), "slept 1000 ms");
    assert!(done - slow >= Duration::from_millis(1000));
    let worst = waits.iter().max().copied().unwrap_or_default();
    eprintln!("ping answered in {waits:?} while the tool ran");
    // The tool takes 1 s: a ping answered after it would wait ~950 ms. The
    // goal is under 10 ms; the median is held to it, the worst (a busy CI
    // machine) to 100 ms.
    let mut sorted = waits.clone();
    sorted.sort();
    assert!(
        sorted[sorted.len() / 2] < Duration::from_millis(10),
        "{waits:?}"
    );
    assert!(worst < Duration::from_millis(100), "{waits:?}");
    let (outcome, log) = session.close();
    assert_eq!(outcome.expect("serves"), ServeOutcome::EndOfInput);
    assert!(log.is_empty(), "{log:?}");
}

#[test]
fn requests_run_side_by_side_up_to_the_bound() {
    let concurrency = Concurrency {
        max_in_flight: 3,
        ..Concurrency::default()
    };
    let session = Session::start(Tools::default(), concurrency).initialized(json!({}));
    let start = Instant::now();
    for id in 1..=6 {
        session.send(call(id, "sleep", json!({"ms": 100})));
    }
    let mut ids: Vec<u64> = (0..6)
        .map(|_| session.next().1["id"].as_u64().expect("id"))
        .collect();
    let took = start.elapsed();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3, 4, 5, 6]);
    eprintln!("6 requests of 100 ms, 3 at once: {took:?}");
    // Two rounds of three, not six one after the other.
    assert!(took >= Duration::from_millis(200), "{took:?}");
    assert!(took < Duration::from_millis(500), "{took:?}");
    let (outcome, _) = session.close();
    outcome.expect("serves");
}

#[test]
fn eight_handlers_of_100_ms_finish_in_about_100_ms() {
    let tools = Tools::default();
    let session = Session::start(tools, Concurrency::default()).initialized(json!({}));
    let start = Instant::now();
    for id in 1..=8 {
        session.send(call(id, "sleep", json!({"ms": 100})));
    }
    for _ in 0..8 {
        assert_eq!(text(&session.next().1), "slept 100 ms");
    }
    let took = start.elapsed();
    eprintln!("8 concurrent 100 ms handlers: {took:?}");
    assert!(took < Duration::from_millis(400), "{took:?}");
    session.close().0.expect("serves");
}

#[test]
fn a_cancelled_request_s_handler_sees_the_signal_and_mcp_leaves_it_unanswered() {
    let session = Session::start(Tools::default(), Concurrency::default()).initialized(json!({}));
    session.send(call(7, "wait_for_cancel", json!({})));
    thread::sleep(Duration::from_millis(30));
    session.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 7, "reason": "the user stopped it"}}),
    );
    // The next answer is the ping's: the cancelled call is not answered.
    session.send(json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}));
    let (_, answer) = session.next();
    assert_eq!(answer["id"], 8, "{answer}");
    let (outcome, log) = session.close();
    outcome.expect("serves");
    assert!(
        log.iter()
            .any(|l| l == "left `tools/call` (id 7) unanswered: the client cancelled it"),
        "{log:?}"
    );
}

#[test]
fn a_handler_asks_the_client_and_gets_its_checked_answer() {
    let session = Session::start(Tools::default(), Concurrency::default())
        .initialized(json!({"roots": {"listChanged": true}}));
    session.send(call(1, "ask_roots", json!({})));
    let (_, asked) = session.next();
    assert_eq!(asked["method"], "roots/list", "{asked}");
    let id = asked["id"].clone();
    session.send(json!({"jsonrpc": "2.0", "id": id,
                        "result": {"roots": [{"uri": "file:///work", "name": "work"}]}}));
    let (_, answer) = session.next();
    assert_eq!(answer["id"], 1);
    assert_eq!(
        text(&answer),
        r#"roots: {"roots":[{"uri":"file:///work","name":"work"}]}"#
    );

    // An answer that breaks `ListRootsResult` reaches the handler as an error.
    session.send(call(2, "ask_roots", json!({})));
    let (_, asked) = session.next();
    session.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": "none"}}));
    let (_, answer) = session.next();
    assert!(
        text(&answer).starts_with("invalid-answer: the client's answer to `roots/list` breaks its schema at `/result/roots`"),
        "{answer}"
    );

    // The client's error answer is the handler's error.
    session.send(call(3, "ask_roots", json!({})));
    let (_, asked) = session.next();
    session.send(json!({"jsonrpc": "2.0", "id": asked["id"],
                        "error": {"code": -32601, "message": "no roots here"}}));
    let (_, answer) = session.next();
    assert_eq!(
        text(&answer),
        "answered-error: the client answered with the error -32601 (no roots here)"
    );
    let (outcome, log) = session.close();
    outcome.expect("serves");
    assert!(
        log.iter()
            .any(|l| l
                .starts_with("fault invalid_answer method=roots/list pointer=/result/roots : ")),
        "{log:?}"
    );
}

#[test]
fn a_request_the_client_did_not_declare_is_refused_before_it_is_sent() {
    // No `roots` capability: MCP forbids asking for roots.
    let session = Session::start(Tools::default(), Concurrency::default()).initialized(json!({}));
    session.send(call(1, "ask_roots", json!({})));
    let (_, answer) = session.next();
    assert!(
        text(&answer).starts_with("refused: not sent: `roots/list` at `/method`"),
        "{answer}"
    );
    let (outcome, log) = session.close();
    outcome.expect("serves");
    assert!(
        log.iter()
            .any(|l| l.starts_with("fault dropped_request method=roots/list")),
        "{log:?}"
    );
}

/// A request of the handler's is checked as its notifications are (one
/// check for both): invalid params are refused with their pointer, or in
/// warn mode sent with a warning line, as an invalid notification is.
#[test]
fn a_request_with_invalid_params_is_refused_or_in_warn_mode_sent_with_a_warning() {
    let declared = json!({"roots": {}});
    let session =
        Session::start(Tools::default(), Concurrency::default()).initialized(declared.clone());
    session.send(call(1, "ask_invalid", json!({})));
    let (_, answer) = session.next();
    assert!(text(&answer).starts_with("refused: "), "{answer}");
    let (outcome, log) = session.close();
    outcome.expect("serves");
    assert!(
        log.iter().any(|l| l.starts_with("fault dropped_request method=roots/list pointer=/params/_meta")),
        "{log:?}"
    );

    let warn = ServeOptions {
        result_check: ResultCheck::Warn,
    };
    let session =
        Session::start_with(Tools::default(), Concurrency::default(), warn).initialized(declared);
    session.send(call(1, "ask_invalid", json!({})));
    let (_, asked) = session.next();
    assert_eq!(asked["method"], "roots/list", "{asked}");
    assert_eq!(asked["params"], json!({"_meta": 5}));
    // Not answered within the handler's 50 ms: it is cancelled, and the
    // handler told.
    let (_, cancelled) = session.next();
    assert_eq!(
        cancelled["method"], "notifications/cancelled",
        "{cancelled}"
    );
    assert_eq!(cancelled["params"]["requestId"], asked["id"]);
    let (_, answer) = session.next();
    assert!(text(&answer).starts_with("timed-out"), "{answer}");
    let (outcome, log) = session.close();
    outcome.expect("serves");
    assert!(
        log.iter()
            .any(|l| l.starts_with("warning: sending an invalid params for `roots/list` anyway")),
        "{log:?}"
    );
}

#[test]
fn a_client_that_does_not_answer_in_time_is_sent_the_cancellation() {
    let session =
        Session::start(Tools::default(), Concurrency::default()).initialized(json!({"roots": {}}));
    session.send(call(1, "ask_briefly", json!({})));
    let (_, asked) = session.next();
    assert_eq!(asked["method"], "roots/list");
    let (_, cancelled) = session.next();
    assert_eq!(
        cancelled["method"], "notifications/cancelled",
        "{cancelled}"
    );
    assert_eq!(cancelled["params"]["requestId"], asked["id"]);
    let (_, answer) = session.next();
    assert_eq!(
        text(&answer),
        "timed-out: the client did not answer `roots/list` within 50 ms"
    );
    // A late answer is ignored with a log line.
    session.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": []}}));
    session.send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert_eq!(session.next().1["id"], 2);
    let (outcome, log) = session.close();
    outcome.expect("serves");
    assert!(
        log.iter()
            .any(|l| l.contains("no request of this server's is waiting for it")),
        "{log:?}"
    );
}

#[test]
fn a_waiting_handler_is_told_when_the_input_closes() {
    let session =
        Session::start(Tools::default(), Concurrency::default()).initialized(json!({"roots": {}}));
    session.send(call(1, "ask_roots", json!({})));
    let (_, asked) = session.next();
    assert_eq!(asked["method"], "roots/list");
    let started = Instant::now();
    let (outcome, _, rest) = session.close_reading();
    assert_eq!(outcome.expect("serves"), ServeOutcome::EndOfInput);
    // Told at once, not after the 60 s the request may wait.
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(
        text(&rest[0]),
        "closed: the session is over: nothing more can be sent"
    );
}

#[test]
fn notifications_from_a_handler_are_checked_before_they_are_sent() {
    let session = Session::start(Tools::default(), Concurrency::default()).initialized(json!({}));
    session.send(call(1, "log", json!({})));
    let (_, sent) = session.next();
    assert_eq!(
        sent,
        json!({"jsonrpc": "2.0", "method": "notifications/message",
               "params": {"level": "info", "data": "working"}})
    );
    let (_, answer) = session.next();
    let told = text(&answer);
    assert!(told.starts_with("Ok(()) | Err(Refused(RuntimeFault { kind: \"dropped_notification\", method: \"notifications/message\", pointer: \"/params/level\""), "{told}");
    assert!(told.contains("kind: \"dropped_notification\", method: \"notifications/made-up\", pointer: \"/method\""), "{told}");
    session.close().0.expect("serves");
}

#[test]
fn a_request_pipelined_behind_initialize_sees_its_answer() {
    // initialize moves the session: it runs alone, and what follows is
    // checked after it is answered (not refused as "not initialized").
    let session = Session::start(Tools::default(), Concurrency::default());
    session.send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    session.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    assert_eq!(session.next().1["id"], 0);
    let (_, listed) = session.next();
    assert_eq!(
        listed,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
    );
    session.close().0.expect("serves");
}

#[test]
fn a_panicking_handler_is_answered_an_internal_error_and_the_session_goes_on() {
    let session = Session::start(Tools::default(), Concurrency::default()).initialized(json!({}));
    session.send(call(1, "panic", json!({})));
    let (_, answer) = session.next();
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    session.send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert_eq!(session.next().1["id"], 2);
    let (outcome, log) = session.close();
    outcome.expect("serves");
    assert!(
        log.iter()
            .any(|l| l == "the handler of `tools/call` panicked: the tool broke"),
        "{log:?}"
    );
}

#[test]
fn bad_frames_and_envelopes_are_answered_as_in_the_sequential_loop() {
    let session = Session::start(Tools::default(), Concurrency::default()).initialized(json!({}));
    session
        .to_server
        .as_ref()
        .expect("open")
        .send(b"{not json\n".to_vec())
        .expect("reads");
    let (_, answer) = session.next();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null);
    session.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 5}}));
    let (_, answer) = session.next();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    session.send(json!({"jsonrpc": "2.0", "id": 4, "method": "made/up"}));
    assert_eq!(session.next().1["error"]["code"], -32601);
    session.close().0.expect("serves");
}

#[test]
fn the_most_at_once_never_passes_the_bound() {
    let concurrency = Concurrency {
        max_in_flight: 2,
        ..Concurrency::default()
    };
    let tools = Arc::new(Tools::default());
    let (to_server, input) = mpsc::channel::<Vec<u8>>();
    let (output, from_server) = mpsc::channel();
    let handler = Arc::clone(&tools);
    let served = thread::spawn(move || {
        let protocol = wirekit_protocols::protocol("mcp@2025-11-25").expect("shipped");
        Server::new(protocol, ServeOptions::default())
            .with_logger(Box::new(|_| {}))
            .serve_concurrent(
                &*handler,
                Input(input, Vec::new()),
                Output(output, Vec::new()),
                concurrency,
            )
    });
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    lines.extend((1..=10).map(|id| call(id, "sleep", json!({"ms": 20}))));
    for line in lines {
        let mut bytes = serde_json::to_vec(&line).expect("json");
        bytes.push(b'\n');
        to_server.send(bytes).expect("reads");
    }
    for _ in 0..11 {
        from_server
            .recv_timeout(Duration::from_secs(10))
            .expect("answers");
    }
    drop(to_server);
    served.join().expect("no panic").expect("serves");
    assert_eq!(tools.most_at_once.load(Ordering::SeqCst), 2);
}

#[test]
fn progress_goes_out_against_the_request_s_token_only_when_it_asked() {
    let session = Session::start(Tools::default(), Concurrency::default()).initialized(json!({}));
    session.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": "progress", "arguments": {}, "_meta": {"progressToken": "tok-1"}}}));
    let (_, first) = session.next();
    assert_eq!(
        first,
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
               "params": {"progress": 1, "total": 2, "progressToken": "tok-1"}})
    );
    let (_, second) = session.next();
    assert_eq!(second["params"]["message"], "done");
    let (_, answer) = session.next();
    // The third breaks ProgressNotificationParams (`progress` is a number).
    assert_eq!(text(&answer), "Ok(true) Ok(true) refused");
    // Without a token nothing is sent.
    session.send(call(2, "progress", json!({})));
    let (_, answer) = session.next();
    assert_eq!(text(&answer), "Ok(false) Ok(false) false");
    session.close().0.expect("serves");
}

/// A handler with the encoded fast path: every method is offered encoded.
struct Encoded;

impl ConcurrentHandler for Encoded {
    fn implements(&self, method: &str) -> bool {
        matches!(method, "initialize" | "tools/call")
    }

    fn handle(
        &self,
        _context: &RequestContext,
        method: &str,
        _params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        match method {
            "initialize" => Ok(
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                      "serverInfo": {"name": "encoded", "version": "1"}}),
            ),
            _ => Ok(json!({"content": [{"type": "text", "text": "as a value"}]})),
        }
    }

    fn answers_encoded(&self, _method: &str) -> bool {
        true
    }

    fn handle_encoded(
        &self,
        _context: &RequestContext,
        _method: &str,
        _params: Option<Value>,
    ) -> Result<Box<serde_json::value::RawValue>, ErrorObject> {
        serde_json::value::RawValue::from_string(
            r#"{"content":[{"type":"text","text":"encoded"}]}"#.to_owned(),
        )
        .map_err(|error| ErrorObject::new(-32603, error.to_string()))
    }
}

/// The concurrent loop takes a handler's encoded answers as the sequential
/// loop does: written as given, except for the method that declares
/// capabilities, which keeps the `Value` path (the session reads it).
#[test]
fn encoded_answers_are_written_as_given_except_the_capabilities_method() {
    let session = Session::start_with(Encoded, Concurrency::default(), ServeOptions::default());
    let send = |message: Value| {
        session.send(message);
    };
    let next = || session.next().1;
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    let initialized = next();
    assert_eq!(
        initialized["result"]["serverInfo"]["name"], "encoded",
        "{initialized}"
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(call(1, "anything", json!({})));
    let answer = next();
    assert_eq!(text(&answer), "encoded", "{answer}");
    let (outcome, _) = session.close();
    assert_eq!(outcome.expect("serves"), ServeOutcome::EndOfInput);
}

/// A handler reading params from their text: it takes the text unless the
/// arguments say `"decline": true`.
struct Texts;

impl ConcurrentHandler for Texts {
    fn implements(&self, method: &str) -> bool {
        matches!(method, "initialize" | "tools/call")
    }

    fn handle(
        &self,
        _context: &RequestContext,
        _method: &str,
        _params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        Ok(
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "texts", "version": "1"}}),
        )
    }

    fn answers_encoded(&self, method: &str) -> bool {
        method == "tools/call"
    }

    fn handle_encoded(
        &self,
        context: &RequestContext,
        _method: &str,
        params: Option<Value>,
    ) -> Result<Box<serde_json::value::RawValue>, ErrorObject> {
        let said = format!(
            "value {} token {:?}",
            params.unwrap_or(Value::Null)["arguments"],
            context.progress_token()
        );
        encoded_text(&said)
    }

    fn reads_params_text(&self) -> bool {
        true
    }

    fn handle_params_text(
        &self,
        context: &RequestContext,
        _method: &str,
        params: &serde_json::value::RawValue,
    ) -> Option<Result<Box<serde_json::value::RawValue>, ErrorObject>> {
        if params.get().contains("\"decline\":true") {
            return None;
        }
        let said = format!("text {} token {:?}", params.get(), context.progress_token());
        Some(encoded_text(&said))
    }
}

fn encoded_text(said: &str) -> Result<Box<serde_json::value::RawValue>, ErrorObject> {
    let result = json!({"content": [{"type": "text", "text": said}]});
    serde_json::value::RawValue::from_string(result.to_string())
        .map_err(|error| ErrorObject::new(-32603, error.to_string()))
}

/// The params-text path of the sequential loop, in the concurrent loop:
/// the handler answers from the text (its progress token found in it); one
/// it declines is parsed and checked by the loop, then answered encoded,
/// or refused -32602 when its params break the schema.
#[test]
fn requests_are_answered_from_their_params_text_or_checked_when_declined() {
    let session = Session::start_with(Texts, Concurrency::default(), ServeOptions::default());
    let send = |message: Value| {
        session.send(message);
    };
    let next = || session.next().1;
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    assert_eq!(next()["result"]["serverInfo"]["name"], "texts");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "t", "arguments": {"a": 1}, "_meta": {"progressToken": "p~/1"}}}),
    );
    let answer = next();
    assert!(text(&answer).starts_with("text {"), "{answer}");
    assert!(
        text(&answer).ends_with(r#"token Some(String("p~/1"))"#),
        "{answer}"
    );

    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "t", "arguments": {"decline": true}, "_meta": {"progressToken": 7}}}),
    );
    let answer = next();
    assert_eq!(
        text(&answer),
        r#"value {"decline":true} token Some(Number(7))"#,
        "{answer}"
    );

    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "arguments": {"decline": true}}}),
    );
    let refused = next();
    assert_eq!(refused["id"], 3, "{refused}");
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    let (outcome, _) = session.close();
    assert_eq!(outcome.expect("serves"), ServeOutcome::EndOfInput);
}
