//! Behaviour of the public envelope API beyond the shared vectors: answers,
//! error details, `decode_value`, limits and large messages.

use serde_json::{json, Value};
use wirekit::envelope::{
    decode, decode_str, decode_value, encode, encode_canonical, encode_into, Dialect,
    EnvelopeErrorKind, EnvelopeOptions, ErrorCode, ErrorObject, Id, Message, MessageKind,
    Notification, Request, Response,
};

fn error_of(body: &[u8], opts: &EnvelopeOptions) -> wirekit::envelope::EnvelopeError {
    decode(body, opts).expect_err("the body should be refused")
}

#[test]
fn parse_error_answer_has_id_null_and_code_32700() {
    let error = error_of(b"{\"jsonrpc\":\"2.0\",", &EnvelopeOptions::JSONRPC_2);
    assert_eq!(error.kind(), EnvelopeErrorKind::Parse);
    assert_eq!(error.code(), ErrorCode::PARSE_ERROR);
    assert!(error.line_column().is_some());
    let answer = Message::Response(error.to_response());
    let text = String::from_utf8(encode(&answer, &EnvelopeOptions::JSONRPC_2)).unwrap_or_default();
    assert!(
        text.starts_with(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: "#
        ),
        "{text}"
    );
    assert!(
        text.ends_with(r#""data":{"kind":"Parse","pointer":""}}}"#),
        "{text}"
    );
}

#[test]
fn invalid_request_answer_carries_the_request_id() {
    let error = error_of(
        br#"{"jsonrpc":"2.0","id":"r-1","method":"analyze","params":42}"#,
        &EnvelopeOptions::JSONRPC_2,
    );
    let answer = error.to_response();
    assert_eq!(answer.id, Some(Id::from("r-1")));
    assert_eq!(
        answer
            .outcome
            .as_ref()
            .err()
            .map(|e| (e.code, e.data.clone())),
        Some((
            -32600,
            Some(json!({"kind": "ParamsNotStructured", "pointer": "/params"}))
        ))
    );
}

#[test]
fn invalid_utf8_reports_where() {
    let error = error_of(b"{\"a\":\n \"\xff\"}", &EnvelopeOptions::JSONRPC_2_STRICT);
    assert_eq!(error.kind(), EnvelopeErrorKind::InvalidUtf8);
    assert_eq!(error.line_column(), Some((2, 3)));
    assert!(error.message().contains("offset 8"), "{}", error.message());
}

#[test]
fn peer_names_are_shortened_in_messages_and_answers() {
    let long_key = "k".repeat(10_000);
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","{long_key}":1}}"#);
    let error = error_of(body.as_bytes(), &EnvelopeOptions::JSONRPC_2_STRICT);
    assert_eq!(error.kind(), EnvelopeErrorKind::UnknownMember);
    assert_eq!(error.pointer().len(), 10_001);
    assert!(error.message().len() < 200, "{}", error.message());
    let answer = error.to_response();
    let data = answer.outcome.err().and_then(|e| e.data);
    assert_eq!(data, Some(json!({"kind": "UnknownMember"})));
}

#[test]
fn display_is_the_message() {
    let error = error_of(b"[]", &EnvelopeOptions::BARE);
    assert_eq!(error.to_string(), error.message());
    assert!(error.message().contains("batch"));
    let boxed: Box<dyn std::error::Error> = Box::new(error);
    assert!(!boxed.to_string().is_empty());
}

#[test]
fn decode_value_checks_an_already_parsed_value() {
    let value = json!({"jsonrpc": "2.0", "method": "driver.observation", "params": {"sequence": 1}, "x": 1});
    let lenient = decode_value(value.clone(), &EnvelopeOptions::JSONRPC_2);
    assert_eq!(
        lenient.as_ref().map(Message::kind).ok(),
        Some(MessageKind::Notification)
    );
    let strict = decode_value(value, &EnvelopeOptions::JSONRPC_2_STRICT);
    assert_eq!(
        strict.err().map(|e| e.pointer().to_owned()),
        Some("/x".to_owned())
    );
}

#[test]
fn decode_str_matches_decode() {
    let text = r#"{"id":1,"result":{"version":"1.0","capabilities":["analyze"]}}"#;
    assert_eq!(
        decode_str(text, &EnvelopeOptions::BARE).ok(),
        decode(text.as_bytes(), &EnvelopeOptions::BARE).ok()
    );
}

#[test]
fn nesting_is_bounded_in_both_modes() {
    let depth = 100_000;
    let body = format!(
        r#"{{"jsonrpc":"2.0","method":"m","params":{}{}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    for opts in [
        EnvelopeOptions::JSONRPC_2,
        EnvelopeOptions::JSONRPC_2_STRICT,
    ] {
        assert_eq!(
            error_of(body.as_bytes(), &opts).kind(),
            EnvelopeErrorKind::Parse
        );
    }
    let shallow = format!(
        r#"{{"jsonrpc":"2.0","method":"m","params":{}{}}}"#,
        "[".repeat(120),
        "]".repeat(120)
    );
    assert!(decode(shallow.as_bytes(), &EnvelopeOptions::JSONRPC_2_STRICT).is_ok());
}

#[test]
fn encode_into_appends() {
    let message = Message::Notification(Notification::new("n", None));
    let mut out = b"Content-Length: 33\r\n\r\n".to_vec();
    encode_into(&message, &EnvelopeOptions::JSONRPC_2, &mut out);
    assert_eq!(
        out,
        b"Content-Length: 33\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}"
    );
}

#[test]
fn constructed_messages_encode_in_declared_order() {
    let request = Message::from(Request::new(
        Id::from(u64::MAX),
        "driver.hello",
        Some(json!({"z": 1, "a": [9.0, 1.5]})),
    ));
    assert_eq!(
        encode(&request, &EnvelopeOptions::JSONRPC_2),
        br#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"driver.hello","params":{"z":1,"a":[9.0,1.5]}}"#
    );
    let error = Message::from(Response::error(
        Some(Id::from(3)),
        ErrorObject::new(ErrorCode(-32099), "VERSION_MISMATCH").with_data(json!({"class": "x"})),
    ));
    assert_eq!(
        encode(&error, &EnvelopeOptions::BARE),
        br#"{"id":3,"error":{"code":-32099,"message":"VERSION_MISMATCH","data":{"class":"x"}}}"#
    );
    let canonical = encode_canonical(&error, &EnvelopeOptions::BARE).unwrap_or_default();
    assert_eq!(
        canonical,
        br#"{"error":{"code":-32099,"data":{"class":"x"},"message":"VERSION_MISMATCH"},"id":3}"#
    );
}

#[test]
fn unsafe_error_code_is_not_canonicalizable() {
    let error = Message::from(Response::error(None, ErrorObject::new(i64::MIN + 1, "m")));
    let refused = encode_canonical(&error, &EnvelopeOptions::JSONRPC_2);
    assert_eq!(
        refused
            .as_ref()
            .err()
            .map(|e| (e.kind(), e.pointer(), e.code())),
        Some((
            EnvelopeErrorKind::NotCanonicalizable,
            "/error/code",
            ErrorCode::INTERNAL_ERROR
        ))
    );
}

#[test]
fn options_parse_from_dialect_names() {
    let dialect: Dialect = "bare".parse().unwrap_or_default();
    assert_eq!(
        EnvelopeOptions::new(dialect).with_strict(true),
        EnvelopeOptions::BARE_STRICT
    );
    assert!("jsonrpc".parse::<Dialect>().is_err());
}

/// A 650 KB analyze result, the size the Python binding will see, decodes
/// (strict and lenient) and re-encodes byte for byte.
#[test]
fn large_message_round_trips() {
    let functions: Vec<Value> = (0..4500)
        .map(|i| {
            json!({
                "file": format!("pkg/module_{i}.py"),
                "function": format!("function_number_{i}"),
                "start_line": i,
                "end_line": i + 10,
                "covered_stmts": i % 7,
                "total_stmts": 10,
                "percentage": 12.5
            })
        })
        .collect();
    let message = Message::from(Response::success(1, json!({ "functions": functions })));
    let body = encode(&message, &EnvelopeOptions::JSONRPC_2);
    assert!(body.len() > 600_000, "{}", body.len());
    for opts in [
        EnvelopeOptions::JSONRPC_2,
        EnvelopeOptions::JSONRPC_2_STRICT,
    ] {
        let decoded = decode(&body, &opts);
        assert_eq!(decoded.as_ref().ok(), Some(&message));
        assert_eq!(decoded.map(|m| encode(&m, &opts)).ok(), Some(body.clone()));
    }
}
