//! A gzkit authoring-guide server: the spec's worked examples byte for byte,
//! and each lifecycle rule of the spec.

mod common;

use common::{serve, TableHandler};
use serde_json::json;
use wirekit::serve::ServeOutcome;
use wirekit::validate::Protocol;

const INIT: &str = r#"{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}"#;
const INIT_ANSWER: &str = r#"{"id":1,"result":{"version":"1.0","capabilities":["analyze"]}}"#;
const ANALYZE: &str =
    r#"{"id":2,"method":"analyze","params":{"file_path":"/src/mymodule/parser.py"}}"#;
const ANALYZE_ANSWER: &str = r#"{"id":2,"result":{"hints":[{"metric":"radon_cc","precedence_band":"approaching","crossing_value":9.0,"archetype":"arrowhead","doctrinal_frame_headline":"Nesting depth approaching warn threshold","recommended_move":"Flatten nested conditions using early returns","file_path":"/src/mymodule/parser.py","start_line":42,"end_line":78}]}}"#;
const MISMATCH: &str = r#"{"id":3,"method":"initialize","params":{"clientVersion":"2.0"}}"#;
const MISMATCH_ANSWER: &str = r#"{"id":3,"error":{"code":-32099,"message":"VERSION_MISMATCH: client major version 2 is incompatible with server major version 1"}}"#;

fn guide() -> TableHandler {
    TableHandler::default()
        .returning("initialize", json!({"version": "1.0", "capabilities": ["analyze"]}))
        .returning(
            "analyze",
            json!({"hints": [{
                "metric": "radon_cc", "precedence_band": "approaching", "crossing_value": 9.0,
                "archetype": "arrowhead", "doctrinal_frame_headline": "Nesting depth approaching warn threshold",
                "recommended_move": "Flatten nested conditions using early returns",
                "file_path": "/src/mymodule/parser.py", "start_line": 42, "end_line": 78
            }]}),
        )
        .returning("shutdown", json!({}))
}

fn protocol() -> std::sync::Arc<Protocol> {
    wirekit_protocols::protocol("gzkit-authoring-guide").expect("gzkit is embedded")
}

#[test]
fn worked_examples_one_and_two_come_out_byte_for_byte() {
    let gzkit = protocol();
    let run = serve(
        &gzkit,
        &mut guide(),
        &[INIT, ANALYZE, r#"{"id":4,"method":"shutdown","params":{}}"#],
    );
    let mut expected = Vec::new();
    for body in [INIT_ANSWER, ANALYZE_ANSWER, r#"{"id":4,"result":{}}"#] {
        expected
            .extend_from_slice(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }
    assert_eq!(
        String::from_utf8_lossy(&run.output),
        String::from_utf8_lossy(&expected)
    );
    assert_eq!(INIT_ANSWER.len(), 62);
    assert_eq!(ANALYZE_ANSWER.len(), 333);
    assert_eq!(
        run.outcome,
        ServeOutcome::Ended,
        "shutdown ends the session"
    );
}

#[test]
fn worked_example_three_answers_version_mismatch_and_ends_the_session() {
    let gzkit = protocol();
    let mut handler = guide();
    let run = serve(&gzkit, &mut handler, &[MISMATCH, ANALYZE]);
    assert_eq!(run.bodies(&gzkit), vec![MISMATCH_ANSWER.to_owned()]);
    assert_eq!(MISMATCH_ANSWER.len(), 129);
    assert_eq!(run.outcome, ServeOutcome::Ended);
    assert!(
        handler.calls.is_empty(),
        "the handler never ran: {:?}",
        handler.calls
    );
}

#[test]
fn analyze_before_initialize_is_method_not_found() {
    let gzkit = protocol();
    let mut handler = guide();
    let run = serve(&gzkit, &mut handler, &[ANALYZE, INIT, ANALYZE]);
    let answers = run.answers(&gzkit);
    assert_eq!(answers[0]["error"]["code"], -32601);
    assert_eq!(answers[0]["id"], 2);
    assert!(
        answers[1]["result"].is_object(),
        "initialize still works after the refusal"
    );
    assert!(answers[2]["result"]["hints"].is_array());
    assert_eq!(handler.calls, vec!["initialize", "analyze"]);
}

#[test]
fn a_second_initialize_is_refused_and_the_session_goes_on() {
    let gzkit = protocol();
    let run = serve(&gzkit, &mut guide(), &[INIT, INIT, ANALYZE]);
    let answers = run.answers(&gzkit);
    assert!(
        answers[1]["error"]["code"].is_i64(),
        "second initialize refused: {}",
        answers[1]
    );
    assert!(answers[1]["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("initialize")));
    assert!(answers[2]["result"]["hints"].is_array());
}

#[test]
fn shutdown_before_initialize_answers_empty_result_and_ends() {
    let gzkit = protocol();
    let run = serve(
        &gzkit,
        &mut guide(),
        &[r#"{"id":"s","method":"shutdown","params":{}}"#, INIT],
    );
    assert_eq!(
        run.bodies(&gzkit),
        vec![r#"{"id":"s","result":{}}"#.to_owned()]
    );
    assert_eq!(run.outcome, ServeOutcome::Ended);
}

#[test]
fn invalid_params_name_every_pointer_in_the_message_and_carry_no_data() {
    // gzkit's ErrorObject forbids `data`: the failing pointers go in the message.
    let gzkit = protocol();
    let run = serve(
        &gzkit,
        &mut guide(),
        &[
            INIT,
            r#"{"id":5,"method":"analyze","params":{"file_path":"","cursor_position":"x"}}"#,
        ],
    );
    let answer = &run.answers(&gzkit)[1];
    assert_eq!(answer["error"]["code"], -32602);
    assert!(answer["error"].get("data").is_none(), "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("/file_path") && message.contains("/cursor_position"),
        "{message}"
    );
    let bad_version = serve(
        &gzkit,
        &mut guide(),
        &[r#"{"id":1,"method":"initialize","params":{"clientVersion":"v1"}}"#],
    );
    let answer = &bad_version.answers(&gzkit)[0];
    assert_eq!(answer["error"]["code"], -32602);
    assert!(answer["error"].get("data").is_none(), "{answer}");
    assert!(answer["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("/clientVersion")));
}

#[test]
fn a_hint_ending_before_it_starts_is_caught_before_it_is_sent() {
    let gzkit = protocol();
    let mut handler = guide().returning(
        "analyze",
        json!({"hints": [{"metric": "m", "precedence_band": "approaching", "crossing_value": 1,
            "archetype": "arrowhead", "doctrinal_frame_headline": "h", "recommended_move": "r",
            "file_path": "/a", "start_line": 9, "end_line": 3}]}),
    );
    let run = serve(&gzkit, &mut handler, &[INIT, ANALYZE]);
    let answer = &run.answers(&gzkit)[1];
    assert_eq!(answer["error"]["code"], -32603);
    assert!(answer["error"].get("data").is_none(), "{answer}");
    assert!(answer["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("/hints/0/end_line") && m.contains("not_before")));
}

#[test]
fn a_broken_frame_ends_the_stream_after_a_parse_error() {
    let gzkit = protocol();
    let mut input = common::frame_all(&gzkit, &[INIT]);
    input.extend_from_slice(b"Content-Length: nope\r\n\r\n{}");
    let run = common::serve_bytes(&gzkit, &mut guide(), Default::default(), &input);
    let answers = run.answers(&gzkit);
    assert_eq!(answers.len(), 2);
    assert!(answers[1]["id"].is_null());
    // The spec's error table: -32700 when "the framing or JSON body is
    // malformed" (the reference server answers a malformed header so too).
    assert_eq!(answers[1]["error"]["code"], -32700);
    assert!(answers[1]["error"].get("data").is_none());
    assert!(answers[1]["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("BadContentLength")));
    assert!(matches!(run.outcome, ServeOutcome::FramingLost(_)));
}

#[test]
fn a_client_of_the_same_major_version_is_accepted_whatever_its_minor_and_patch() {
    let gzkit = protocol();
    for version in ["1.0", "1.7", "1.0.5", "01.2"] {
        let request =
            format!(r#"{{"id":1,"method":"initialize","params":{{"clientVersion":"{version}"}}}}"#);
        let run = serve(&gzkit, &mut guide(), &[&request]);
        assert_eq!(
            run.bodies(&gzkit),
            vec![INIT_ANSWER.to_owned()],
            "clientVersion {version}"
        );
    }
    let run = serve(
        &gzkit,
        &mut guide(),
        &[r#"{"id":1,"method":"initialize","params":{"clientVersion":"0.9"}}"#],
    );
    assert_eq!(run.answers(&gzkit)[0]["error"]["code"], -32099);
}

#[test]
fn a_body_that_is_not_json_answers_parse_error_and_ends_the_session_as_the_manifest_says() {
    let gzkit = protocol();
    let run = serve(&gzkit, &mut guide(), &[INIT, "{not json", ANALYZE]);
    let answers = run.answers(&gzkit);
    assert_eq!(
        answers.len(),
        2,
        "nothing is answered after the parse error: {answers:?}"
    );
    assert_eq!(answers[1]["error"]["code"], -32700);
    assert!(answers[1]["id"].is_null());
    assert_eq!(run.outcome, ServeOutcome::Ended);
}

/// Answers `analyze` through the encoded fast path with the spec's result text.
struct EncodedGuide(TableHandler);

impl wirekit::serve::Handler for EncodedGuide {
    fn implements(&self, method: &str) -> bool {
        self.0.implements(method)
    }
    fn handle(
        &mut self,
        method: &str,
        params: Option<serde_json::Value>,
    ) -> Result<serde_json::Value, wirekit::envelope::ErrorObject> {
        self.0.handle(method, params)
    }
    fn answers_encoded(&self, method: &str) -> bool {
        method == "analyze"
    }
    fn handle_encoded(
        &mut self,
        _method: &str,
        _params: Option<serde_json::Value>,
    ) -> Result<Box<serde_json::value::RawValue>, wirekit::envelope::ErrorObject> {
        let body = ANALYZE_ANSWER
            .strip_prefix(r#"{"id":2,"result":"#)
            .and_then(|b| b.strip_suffix('}'))
            .unwrap_or("");
        serde_json::value::RawValue::from_string(body.to_owned())
            .map_err(|e| wirekit::envelope::ErrorObject::new(-32603, e.to_string()))
    }
}

#[test]
fn an_encoded_answer_is_framed_with_its_exact_content_length() {
    let gzkit = protocol();
    let string_id =
        r#"{"id":"a\"b","method":"analyze","params":{"file_path":"/src/mymodule/parser.py"}}"#;
    let input = common::frame_all(&gzkit, &[INIT, ANALYZE, string_id]);
    let mut output = Vec::new();
    wirekit::serve::Server::new(gzkit.clone(), Default::default())
        .serve(&mut EncodedGuide(guide()), &input[..], &mut output)
        .expect("serves");
    let with_string_id = ANALYZE_ANSWER.replacen(r#""id":2"#, r#""id":"a\"b""#, 1);
    let mut expected = String::new();
    for body in [INIT_ANSWER, ANALYZE_ANSWER, &with_string_id] {
        expected.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    }
    assert_eq!(String::from_utf8_lossy(&output), expected);
}
