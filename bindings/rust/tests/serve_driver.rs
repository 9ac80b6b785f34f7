//! An AgentAPI driver's request side served by the core: the state machine's
//! "X requires Y, current state is Z" answers, strict envelopes, and the
//! handshake of a real captured session.

mod common;

use common::{serve, serve_bytes, TableHandler};
use serde_json::{json, Value};
use wirekit::serve::ServeOutcome;
use wirekit::validate::Protocol;

/// The captured clean driver session (both directions, canonical NDJSON).
const CLEAN_CAPTURE: &str = include_str!("../../../tests/sessions/agentapi-driver@1/clean.ndjson");

/// The requests and results of the captured clean session, by method.
fn captured() -> (Vec<String>, TableHandler) {
    let text = CLEAN_CAPTURE.to_owned();
    let messages: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let mut requests = Vec::new();
    let mut handler = TableHandler::default();
    for (index, message) in messages.iter().enumerate() {
        let Some(method) = message["method"].as_str() else {
            continue;
        };
        if message.get("id").is_none() {
            continue;
        }
        requests.push(serde_json::to_string(message).expect("text"));
        if let Some(result) = messages[index + 1..]
            .iter()
            .find(|m| m["id"] == message["id"] && m.get("result").is_some())
        {
            handler = handler.returning(method, result["result"].clone());
        }
    }
    (requests, handler)
}

fn driver() -> std::sync::Arc<Protocol> {
    wirekit_protocols::protocol("agentapi-driver").expect("driver is embedded")
}

#[test]
fn invoke_before_hello_names_the_state_it_needs() {
    let driver = driver();
    let (requests, mut handler) = captured();
    let invoke = requests
        .iter()
        .find(|r| r.contains("driver.invoke"))
        .expect("an invoke");
    let run = serve(&driver, &mut handler, &[invoke]);
    let error = &run.answers(&driver)[0]["error"];
    assert_eq!(
        error["message"],
        "driver.invoke requires PREPARED, current state is NEW"
    );
    assert_eq!(error["data"], json!({"class": "invalid_state"}));
    assert!(handler.calls.is_empty());
}

#[test]
fn the_captured_handshake_is_served_in_canonical_form() {
    let driver = driver();
    let (requests, mut handler) = captured();
    let handshake: Vec<&str> = requests
        .iter()
        .filter(|r| {
            r.contains("driver.hello")
                || r.contains("driver.capabilities")
                || r.contains("driver.prepare")
        })
        .map(String::as_str)
        .collect();
    let run = serve(&driver, &mut handler, &handshake);
    let bodies = run.bodies(&driver);
    assert_eq!(bodies.len(), handshake.len());
    for body in &bodies {
        let value: Value = serde_json::from_str(body).expect("JSON");
        assert!(value.get("result").is_some(), "{body}");
        let canonical = serde_json_canonicalizer::to_string(&value).expect("canonical");
        assert_eq!(body, &canonical, "driver frames are RFC 8785 canonical");
    }
    assert_eq!(run.outcome, ServeOutcome::EndOfInput);
}

#[test]
fn shutdown_is_only_allowed_once_prepared_and_ends_the_session() {
    let driver = driver();
    let (requests, mut handler) = captured();
    handler = handler.returning("driver.shutdown", json!({}));
    let hello = requests
        .iter()
        .find(|r| r.contains("driver.hello"))
        .expect("hello");
    let prepare = requests
        .iter()
        .find(|r| r.contains("driver.prepare"))
        .expect("prepare");
    let shutdown = r#"{"jsonrpc":"2.0","id":90,"method":"driver.shutdown","params":{}}"#;
    let run = serve(
        &driver,
        &mut handler,
        &[hello, shutdown, prepare, shutdown, hello],
    );
    let answers = run.answers(&driver);
    assert_eq!(
        answers.len(),
        4,
        "nothing is answered after shutdown: {answers:?}"
    );
    assert_eq!(
        answers[1]["error"]["message"],
        "driver.shutdown requires PREPARED, current state is HELLO"
    );
    assert_eq!(answers[3]["result"], json!({}));
    assert_eq!(run.outcome, ServeOutcome::Ended);
}

#[test]
fn strict_envelopes_refuse_duplicates_unknown_members_and_trailing_data() {
    let driver = driver();
    let input = [
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"driver.reset","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"driver.reset","params":{},"extra":true}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"driver.reset","params":{}} {}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"driver.reset","params":{"a":1,"a":2}}"#,
    ]
    .join("\n");
    let run = serve_bytes(
        &driver,
        &mut TableHandler::default(),
        Default::default(),
        input.as_bytes(),
    );
    let answers = run.answers(&driver);
    assert_eq!(answers.len(), 4);
    for answer in &answers {
        let code = answer["error"]["code"].as_i64().expect("an error");
        assert!(code == -32700 || code == -32600, "{answer}");
    }
    assert_eq!(answers[1]["id"], 3, "the id of a readable envelope is kept");
}

#[test]
fn a_control_frame_over_one_mebibyte_is_refused_and_the_next_is_served() {
    let driver = driver();
    let (requests, mut handler) = captured();
    let hello = requests
        .iter()
        .find(|r| r.contains("driver.hello"))
        .expect("hello");
    let mut input = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"driver.hello","params":{{"pad":"{}"}}}}"#,
        "x".repeat(1 << 20)
    );
    input.push('\n');
    input.push_str(hello);
    input.push('\n');
    let run = serve_bytes(&driver, &mut handler, Default::default(), input.as_bytes());
    let answers = run.answers(&driver);
    assert_eq!(answers.len(), 2);
    // The reference package reads the id from the refused line's head.
    assert_eq!(answers[0]["id"], 1, "{}", answers[0]);
    assert_eq!(answers[0]["error"]["data"]["class"], "budget_exceeded");
    assert!(answers[0]["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("FrameTooLong")));
    assert!(answers[1]["result"]["identity"].is_object());
}

#[test]
fn a_handler_error_whose_data_breaks_the_error_data_schema_is_caught() {
    let driver = driver();
    let (requests, handler) = captured();
    let hello = requests
        .iter()
        .find(|r| r.contains("driver.hello"))
        .expect("hello");
    let mut handler = handler.with("driver.hello", |_| {
        Err(wirekit::envelope::ErrorObject::new(-32000, "no")
            .with_data(json!({"class": "no_such_class"})))
    });
    let answer = &serve(&driver, &mut handler, &[hello]).answers(&driver)[0];
    assert_eq!(answer["error"]["code"], -32603);
    assert_eq!(answer["error"]["data"]["class"], "driver_internal");
    assert_eq!(answer["error"]["data"]["details"]["part"], "error_data");
    assert_eq!(
        answer["error"]["data"]["details"]["errors"][0]["pointer"],
        "/data/class"
    );
    let mut fine = captured().1.with("driver.hello", |_| {
        Err(wirekit::envelope::ErrorObject::new(-32000, "denied")
            .with_data(json!({"class": "permission_denied"})))
    });
    let answer = &serve(&driver, &mut fine, &[hello]).answers(&driver)[0];
    assert_eq!(
        answer["error"],
        json!({"code": -32000, "data": {"class": "permission_denied"}, "message": "denied"})
    );
}

/// A driver replaying the captured clean session: each request is answered
/// as captured, and the notifications that followed that answer in the
/// capture are queued to be sent after it.
struct Replay {
    answers: Vec<(String, Value, Vec<wirekit::envelope::Notification>)>,
    queued: Vec<wirekit::envelope::Notification>,
}

impl Replay {
    fn from_capture(lines: &[Value]) -> Self {
        let mut answers = Vec::new();
        for (index, message) in lines.iter().enumerate() {
            let (Some(method), Some(id)) = (message["method"].as_str(), message.get("id")) else {
                continue;
            };
            let Some(at) = lines[index..]
                .iter()
                .position(|m| m.get("id") == Some(id) && m.get("result").is_some())
            else {
                continue;
            };
            let after: Vec<_> = lines[index + at + 1..]
                .iter()
                .take_while(|m| m.get("id").is_none())
                .map(|m| {
                    wirekit::envelope::Notification::new(
                        m["method"].as_str().unwrap_or(""),
                        m.get("params").cloned(),
                    )
                })
                .collect();
            answers.push((
                method.to_owned(),
                lines[index + at]["result"].clone(),
                after,
            ));
        }
        Replay {
            answers,
            queued: Vec::new(),
        }
    }
}

impl wirekit::serve::Handler for Replay {
    fn implements(&self, method: &str) -> bool {
        self.answers.iter().any(|(m, _, _)| m == method)
    }
    fn handle(
        &mut self,
        method: &str,
        _params: Option<Value>,
    ) -> Result<Value, wirekit::envelope::ErrorObject> {
        let at = self
            .answers
            .iter()
            .position(|(m, _, _)| m == method)
            .ok_or_else(|| wirekit::serve::method_not_found(method))?;
        let (_, result, after) = self.answers.remove(at);
        self.queued.extend(after);
        Ok(result)
    }
    fn take_notifications(&mut self) -> Vec<wirekit::envelope::Notification> {
        std::mem::take(&mut self.queued)
    }
}

#[test]
fn a_driver_replaying_the_capture_writes_the_server_side_of_it_byte_for_byte() {
    let driver = driver();
    let text = CLEAN_CAPTURE.to_owned();
    let lines: Vec<&str> = text.lines().collect();
    let messages: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let client: Vec<&str> = lines
        .iter()
        .zip(&messages)
        .filter(|(_, m)| m.get("method").is_some() && m.get("id").is_some())
        .map(|(l, _)| *l)
        .collect();
    let server: String = lines
        .iter()
        .zip(&messages)
        .filter(|(_, m)| m.get("method").is_none() || m.get("id").is_none())
        .map(|(l, _)| format!("{l}\n"))
        .collect();
    let mut replay = Replay::from_capture(&messages);
    let input = common::frame_all(&driver, &client);
    let mut output = Vec::new();
    let outcome = wirekit::serve::Server::new(driver.clone(), Default::default())
        .serve(&mut replay, &input[..], &mut output)
        .expect("serves");
    assert_eq!(String::from_utf8_lossy(&output), server);
    assert_eq!(outcome, ServeOutcome::Ended);
}

#[test]
fn queued_notifications_that_break_a_rule_are_dropped_not_sent() {
    let driver = driver();
    let text = CLEAN_CAPTURE.to_owned();
    let messages: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let mut replay = Replay::from_capture(&messages);
    // Make the first invocation's second observation go backwards.
    let invoke = replay
        .answers
        .iter_mut()
        .find(|(m, _, _)| m == "driver.invoke")
        .expect("an invoke");
    let first = invoke.2[0].params.clone().expect("params");
    invoke.2[1].params = Some(first.clone());
    let client: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.contains("\"method\":\"driver.hello\"")
                || l.contains("\"method\":\"driver.prepare\"")
                || l.contains("\"method\":\"driver.invoke\"")
        })
        .take(3)
        .collect();
    let input = common::frame_all(&driver, &client);
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = std::sync::Arc::clone(&log);
    let mut output = Vec::new();
    wirekit::serve::Server::new(driver.clone(), Default::default())
        .with_logger(Box::new(move |line| {
            sink.lock().expect("log").push(line.to_owned())
        }))
        .serve(&mut replay, &input[..], &mut output)
        .expect("serves");
    let sent = String::from_utf8_lossy(&output);
    assert_eq!(sent.matches("driver.observation").count(), 1, "{sent}");
    assert!(
        log.lock()
            .expect("log")
            .iter()
            .any(|l| l.contains("dropped `driver.observation`")),
        "{:?}",
        log.lock()
    );
}
