//! Requests answered from their params' text (`Handler::handle_params_text`,
//! the Python binding's lean path): the same bytes out as the usual path for
//! every input, good or bad, and the text path taken only where the usual
//! path would call `handle_encoded` after the same checks.

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{json, Value};
use wirekit::envelope::ErrorObject;
use wirekit::serve::{Handler, ServeOptions, Server};
use wirekit::validate::{Part, Protocol};

/// How a handler answers from the params' text.
#[derive(Clone, Copy, PartialEq)]
enum TextPath {
    /// Never asked: the usual path only.
    Off,
    /// Checks the params with the protocol's validator and answers when
    /// they are valid (a binding's in-place check, done here on a `Value`).
    Answers,
    /// Always declines: the loop must fall back to the usual path.
    Declines,
}

struct Analyzer {
    protocol: Arc<Protocol>,
    text_path: TextPath,
    /// (method, params) of every call, through either path.
    calls: Vec<(String, Value)>,
    /// Calls that came through the params' text.
    from_text: usize,
}

impl Analyzer {
    fn new(protocol: &Arc<Protocol>, text_path: TextPath) -> Self {
        Analyzer {
            protocol: Arc::clone(protocol),
            text_path,
            calls: Vec::new(),
            from_text: 0,
        }
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        self.calls.push((method.to_owned(), params));
        match method {
            "initialize" => json!({
                "capabilities": {"discover": false, "test_mapping": false, "classify_signals": false},
                "protocol_version": "1.1.0", "analyzer_name": "t", "language": "rust"
            }),
            "complexity" => {
                json!({"functions": [{"name": "f", "package": "p", "file": "p.rs", "line": 1, "complexity": 2}]})
            }
            _ => json!({}),
        }
    }
}

fn raw(value: &Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).expect("a Value encodes")
}

impl Handler for Analyzer {
    fn implements(&self, method: &str) -> bool {
        matches!(method, "initialize" | "complexity" | "shutdown")
    }

    fn handle(&mut self, method: &str, params: Option<Value>) -> Result<Value, ErrorObject> {
        Ok(self.result(method, params.unwrap_or(Value::Null)))
    }

    fn answers_encoded(&self, _method: &str) -> bool {
        true
    }

    fn handle_encoded(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let result = self.result(method, params.unwrap_or(Value::Null));
        Ok(raw(&result))
    }

    fn reads_params_text(&self) -> bool {
        self.text_path != TextPath::Off
    }

    fn handle_params_text(
        &mut self,
        method: &str,
        params: &RawValue,
    ) -> Option<Result<Box<RawValue>, ErrorObject>> {
        if self.text_path != TextPath::Answers {
            return None;
        }
        // No number in a kept text is one the envelope settles or refuses
        // (`decode_keeping_params`), so a plain parse reads it as the
        // envelope would.
        let value: Value = serde_json::from_str(params.get()).ok()?;
        if !self
            .protocol
            .validate(method, Part::Params, Some(&value))
            .is_empty()
        {
            return None;
        }
        self.from_text += 1;
        let result = self.result(method, value);
        Some(Ok(raw(&result)))
    }
}

fn serve(protocol: &Arc<Protocol>, handler: &mut Analyzer, lines: &[&str]) -> Vec<u8> {
    let mut input = Vec::new();
    for line in lines {
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    let mut server = Server::new(Arc::clone(protocol), ServeOptions::default())
        .with_logger(Box::new(|_line: &str| {}));
    let mut output = Vec::new();
    server
        .serve(handler, &input[..], &mut output)
        .expect("served");
    output
}

const SESSION: &[&str] = &[
    // Before initialize: a lifecycle violation, whatever the params.
    r#"{"jsonrpc":"2.0","id":1,"method":"complexity","params":{"root_path":"/p"}}"#,
    // initialize reads its params (version negotiation): never from text.
    r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"root_path":"/p"}}"#,
    r#"{"jsonrpc":"2.0","id":3,"method":"complexity","params":{"root_path":"/p","patterns":null}}"#,
    r#"{"jsonrpc":"2.0","id":"s","method":"complexity","params":{"root_path":"/p","patterns":["./..."]}}"#,
    // Invalid params: the usual path reports them.
    r#"{"jsonrpc":"2.0","id":4,"method":"complexity","params":{"root_path":7}}"#,
    r#"{"jsonrpc":"2.0","id":5,"method":"complexity","params":[1,2]}"#,
    // Params that are no object or array: the envelope's error.
    r#"{"jsonrpc":"2.0","id":6,"method":"complexity","params":"x"}"#,
    // Numbers the envelope settles (-0) or refuses (beyond 64 bits).
    r#"{"jsonrpc":"2.0","id":7,"method":"complexity","params":{"root_path":"/p","n":-0}}"#,
    r#"{"jsonrpc":"2.0","id":8,"method":"complexity","params":{"root_path":"/p","n":18446744073709551616}}"#,
    // Duplicate members (lenient: the last wins), unknown members, escapes.
    r#"{"jsonrpc":"2.0","id":9,"method":"complexity","params":{"root_path":"/a","root_path":"/b"},"params":{"root_path":"/c"}}"#,
    r#"{"jsonrpc":"2.0","id":10,"method":"compl\u0065xity","x":1,"params":{"root_path":"/p"}}"#,
    // Unknown method, wrong version, a notification, a response, garbage.
    r#"{"jsonrpc":"2.0","id":11,"method":"nope","params":{}}"#,
    r#"{"jsonrpc":"1.0","id":12,"method":"complexity","params":{"root_path":"/p"}}"#,
    r#"{"jsonrpc":"2.0","method":"complexity","params":{"root_path":"/p"}}"#,
    r#"{"jsonrpc":"2.0","id":13,"result":{}}"#,
    r#"{"jsonrpc":"2.0","id":14,"method":"complexity","params":{"root_path":"/p"}} x"#,
    "not json",
    r#"{"jsonrpc":"2.0","id":15,"method":"shutdown"}"#,
];

#[test]
fn answers_from_text_are_the_usual_paths_bytes() {
    let gaze = wirekit_protocols::protocol("gaze-analyzer").expect("gaze is embedded");
    let mut usual = Analyzer::new(&gaze, TextPath::Off);
    let mut answering = Analyzer::new(&gaze, TextPath::Answers);
    let mut declining = Analyzer::new(&gaze, TextPath::Declines);
    let expected = serve(&gaze, &mut usual, SESSION);
    let answered = serve(&gaze, &mut answering, SESSION);
    let declined = serve(&gaze, &mut declining, SESSION);
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    assert_eq!(text(&answered), text(&expected));
    assert_eq!(text(&declined), text(&expected));
    // Every handler saw the same calls with the same params.
    assert_eq!(answering.calls, usual.calls);
    assert_eq!(declining.calls, usual.calls);
    // The valid complexity requests after initialize with one params
    // member (3, "s", 10) came through the text; nothing else did (9 sends
    // params twice: the whole decode reads both).
    assert_eq!(answering.from_text, 3);
    // One answer a line but the notification and the client's response.
    assert_eq!(expected.iter().filter(|&&b| b == b'\n').count(), 16);
}
