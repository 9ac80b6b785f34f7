//! What Gaze's own client can read (`internal/protocol/client.go`): a
//! streamed result that fails ends with a line its stream reader refuses
//! (the error response in a one-element array) and the session ends, so the
//! reader reaches EOF; an answer over the host's 10 MiB line is a -32603
//! naming the bound and `analyze/stream`, never a partial line.

mod common;

use std::sync::Arc;

use common::{frame_all, serve, Run, TableHandler};
use serde_json::{json, Value};
use wirekit::envelope::ErrorObject;
use wirekit::serve::{stream_failure_of, Emit, Handler, ServeOptions, ServeOutcome};
use wirekit::validate::Protocol;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root_path":"/p"}}"#;
const STREAM: &str = r#"{"jsonrpc":"2.0","id":2,"method":"analyze/stream","params":{"root_path":"/p","patterns":null}}"#;

fn gaze() -> Arc<Protocol> {
    wirekit_protocols::protocol("gaze-analyzer@1.1.0").expect("gaze is embedded")
}

fn item(name: &str) -> Value {
    json!({"name": name, "package": "p", "file": "f.py", "line": 1, "side_effects": []})
}

/// An analyzer whose stream emits `items` and then fails (or not).
struct Streamer {
    items: Vec<Value>,
    fail: Option<ErrorObject>,
}

impl Handler for Streamer {
    fn implements(&self, method: &str) -> bool {
        matches!(method, "initialize" | "analyze/stream" | "shutdown")
    }

    fn handle(&mut self, method: &str, _params: Option<Value>) -> Result<Value, ErrorObject> {
        Ok(match method {
            "initialize" => json!({
                "capabilities": {"discover": false, "test_mapping": false,
                                 "classify_signals": false, "streaming": true},
                "protocol_version": "1.1.0", "analyzer_name": "t", "language": "python"}),
            _ => json!({}),
        })
    }

    fn handle_stream(
        &mut self,
        _method: &str,
        _params: Option<Value>,
        emit: &mut Emit<'_>,
    ) -> Result<(), ErrorObject> {
        for item in self.items.clone() {
            emit(item).map_err(|e| ErrorObject::new(-32603, e.to_string()))?;
        }
        match self.fail.clone() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

fn run_stream(items: Vec<Value>, fail: Option<ErrorObject>, bodies: &[&str]) -> Run {
    let gaze = gaze();
    let mut streamer = Streamer { items, fail };
    let input = frame_all(&gaze, bodies);
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&log);
    let mut server = wirekit::serve::Server::new(Arc::clone(&gaze), ServeOptions::default())
        .with_logger(Box::new(move |line| {
            sink.lock().expect("log").push(line.to_owned())
        }));
    let mut output = Vec::new();
    let outcome = server
        .serve(&mut streamer, input.as_slice(), &mut output)
        .expect("serve");
    let log = log.lock().expect("log").clone();
    Run {
        output,
        outcome,
        log,
    }
}

/// Reads the stream as Gaze's `loadStreaming` does: every line after the
/// initialize answer must unmarshal as an AnalyzedFunction (an object);
/// the first that does not is the host's error, with its first 200 bytes.
fn gaze_reads(run: &Run) -> Result<usize, String> {
    let lines: Vec<&[u8]> = run.output.split(|&b| b == b'\n').collect();
    assert_eq!(lines.last(), Some(&&b""[..]), "every line ends with LF");
    let mut functions = 0;
    for (number, line) in lines[1..lines.len() - 1].iter().enumerate() {
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(_)) => functions += 1,
            _ => {
                let content = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
                return Err(format!("malformed JSONL on line {}: {content}", number + 1));
            }
        }
    }
    Ok(functions)
}

#[test]
fn a_stream_failing_before_its_first_item_ends_with_a_failure_line_and_the_session() {
    let run = run_stream(
        Vec::new(),
        Some(ErrorObject::new(-32603, "cannot parse the project")),
        &[
            INIT,
            STREAM,
            r#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#,
        ],
    );
    assert_eq!(run.outcome, ServeOutcome::Ended, "the host reads until EOF");
    let answers = run.answers(&gaze());
    assert_eq!(answers.len(), 2, "{answers:?}");
    let error = stream_failure_of(&answers[1]).expect("a failure line");
    assert_eq!(error.code, -32603);
    assert_eq!(
        error.message,
        "`analyze/stream` failed before its first item: cannot parse the project"
    );
    assert_eq!(answers[1][0]["id"], 2);
    let read = gaze_reads(&run).expect_err("Gaze fails");
    assert!(read.contains("cannot parse the project"), "{read}");
}

#[test]
fn a_stream_failing_mid_way_says_it_is_incomplete_where_gaze_reads_it() {
    let run = run_stream(
        vec![item("a"), item("b")],
        Some(ErrorObject::new(-32603, "boom")),
        &[INIT, STREAM],
    );
    assert_eq!(run.outcome, ServeOutcome::Ended);
    let answers = run.answers(&gaze());
    assert_eq!(&answers[1..3], &[item("a"), item("b")]);
    let error = stream_failure_of(&answers[3]).expect("a failure line");
    assert_eq!(
        error.message,
        "`analyze/stream` failed after 2 items, an incomplete result: boom"
    );
    let read = gaze_reads(&run).expect_err("Gaze fails instead of taking 2 functions");
    assert!(read.starts_with("malformed JSONL on line 3:"), "{read}");
    assert!(read.contains("an incomplete result: boom"), "{read}");
}

#[test]
fn an_invalid_item_stops_the_stream_with_its_pointer_instead_of_vanishing() {
    let bad =
        json!({"name": "b", "package": "p", "file": "f.py", "line": "one", "side_effects": []});
    let run = run_stream(vec![item("a"), bad, item("c")], None, &[INIT, STREAM]);
    assert_eq!(run.outcome, ServeOutcome::Ended);
    let answers = run.answers(&gaze());
    assert_eq!(
        answers.len(),
        3,
        "initialize, a, the failure line: {answers:?}"
    );
    let error = stream_failure_of(&answers[2]).expect("a failure line");
    assert!(
        error.message.starts_with(
            "`analyze/stream` failed after 1 item, an incomplete result: item 1 was refused"
        ),
        "{}",
        error.message
    );
    assert!(
        error
            .data
            .as_ref()
            .is_some_and(|d| d.to_string().contains("/line")),
        "{error:?}"
    );
    assert!(gaze_reads(&run).is_err());
}

#[test]
fn a_refused_stream_request_ends_the_stream_too() {
    // Invalid params: answered in the stream's own way, or Gaze would take
    // the error response for a function and wait for EOF forever.
    let bad_params =
        r#"{"jsonrpc":"2.0","id":2,"method":"analyze/stream","params":{"patterns":[]}}"#;
    let run = run_stream(vec![item("a")], None, &[INIT, bad_params, INIT]);
    assert_eq!(run.outcome, ServeOutcome::Ended);
    let answers = run.answers(&gaze());
    assert_eq!(answers.len(), 2, "{answers:?}");
    let error = stream_failure_of(&answers[1]).expect("a failure line");
    assert_eq!(error.code, -32602);
    assert!(gaze_reads(&run).is_err());
}

#[test]
fn a_whole_stream_is_items_only_then_the_end() {
    let run = run_stream(vec![item("a"), item("b")], None, &[INIT, STREAM]);
    assert_eq!(run.outcome, ServeOutcome::Ended);
    assert_eq!(gaze_reads(&run), Ok(2));
}

#[test]
fn the_gaze_bound_is_the_hosts_10_mib_line_less_its_line_feed() {
    for version in ["gaze-analyzer@1.0.0", "gaze-analyzer@1.1.0"] {
        let protocol = wirekit_protocols::protocol(version).expect("embedded");
        assert_eq!(
            protocol.manifest().transport.max_frame_bytes,
            Some(10 * 1024 * 1024 - 1)
        );
    }
}

#[test]
fn a_batch_answer_over_the_hosts_line_is_a_clear_internal_error_and_the_session_goes_on() {
    let gaze = gaze();
    // About 10.5 MB of functions: under the old 16 MiB bound, over Gaze's.
    let functions: Vec<Value> = (0..60_000)
        .map(|i| {
            json!({"name": format!("function_{i:06}"), "package": "a.long.package.name",
                   "file": "a/long/package/name/module.py", "line": i,
                   "side_effects": [{"type": "ReturnValue", "description": "returns a value"}]})
        })
        .collect();
    let result = json!({ "functions": functions });
    let mut handler = TableHandler::default()
        .returning(
            "initialize",
            json!({"capabilities": {"discover": false, "test_mapping": false, "classify_signals": false, "streaming": false},
                   "protocol_version": "1.1.0", "analyzer_name": "t", "language": "python"}),
        )
        .returning("analyze", result)
        .returning("shutdown", json!({}));
    let run = serve(
        &gaze,
        &mut handler,
        &[
            INIT,
            r#"{"jsonrpc":"2.0","id":2,"method":"analyze","params":{"root_path":"/p","patterns":["./..."]}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#,
        ],
    );
    let longest = run.output.split(|&b| b == b'\n').map(<[u8]>::len).max();
    assert!(longest < Some(1024), "no long line is written: {longest:?}");
    let answers = run.answers(&gaze);
    assert_eq!(answers.len(), 3, "{answers:?}");
    let error = &answers[1]["error"];
    assert_eq!(error["code"], -32603);
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("10485759-byte frame bound"), "{message}");
    assert!(message.contains("`analyze/stream`"), "{message}");
    assert!(message.contains("`streaming`"), "{message}");
    assert_eq!(error["data"]["max_frame_bytes"], 10_485_759);
    assert!(error["data"]["bytes"].as_u64() > Some(10_485_759));
    assert_eq!(answers[2], json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
    assert_eq!(run.outcome, ServeOutcome::Ended);
}

#[test]
fn an_item_over_the_bound_ends_the_stream_with_a_failure_line() {
    let huge = json!({"name": "x".repeat(10 * 1024 * 1024), "package": "p", "file": "f.py", "line": 1, "side_effects": []});
    let run = run_stream(vec![item("a"), huge], None, &[INIT, STREAM]);
    let answers = run.answers(&gaze());
    assert_eq!(answers.len(), 3);
    let error = stream_failure_of(&answers[2]).expect("a failure line");
    assert!(
        error.message.contains("item 1 of `analyze/stream` is"),
        "{}",
        error.message
    );
}
