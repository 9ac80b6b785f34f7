//! `wirekit drive --answers FILE`: canned answers to the server's requests.
//!
//! The file is one JSON object mapping a method to its answer, either
//! `{"result": <any JSON>}` or `{"error": {"code": <integer>, "message":
//! <string>, "data"?: <any JSON>}}`. Every method must be a request the
//! protocol declares server-to-client, and every result must pass the
//! method's result schema: a mistake is refused before the server starts,
//! naming the method.
//!
//! A server request the file does not answer gets the `result` of its first
//! manifest example that has one, where the manifest gives one (MCP's
//! `ping`: `{}`, which the spec obliges the receiver to answer); anything
//! else is left to the host (-32601, reported).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};
use wirekit::envelope::ErrorObject;
use wirekit::host::RequestHandler;
use wirekit::protocol::MethodKind;
use wirekit::validate::{Part, Protocol};

/// The answers read from the file, by method.
pub struct Answers(BTreeMap<String, Result<Value, ErrorObject>>);

/// The answers the manifest gives: for each request the server sends, the
/// `result` of its first example that has one.
pub fn from_examples(protocol: &Protocol) -> Answers {
    let answers = protocol
        .manifest()
        .methods
        .iter()
        .filter(|(_, spec)| spec.kind == MethodKind::Request && spec.direction.server_sends())
        .filter_map(|(method, spec)| {
            let result = spec.examples.iter().find_map(|e| e.get("result"))?;
            Some((method.clone(), Ok(result.clone())))
        })
        .collect();
    Answers(answers)
}

/// Reads and checks `path` against `protocol`; the manifest's answers
/// ([`from_examples`]) for the methods it leaves out.
pub fn read(path: &Path, protocol: &Protocol) -> Result<Answers, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not valid JSON: {e}", path.display()))?;
    let Value::Object(methods) = value else {
        return Err(format!(
            "{}: must be a JSON object mapping methods to answers",
            path.display()
        ));
    };
    let mut answers = BTreeMap::new();
    for (method, answer) in methods {
        let at = format!("{}: `{method}`", path.display());
        let declared = protocol
            .method(&method)
            .is_some_and(|spec| spec.kind == MethodKind::Request && spec.direction.server_sends());
        if !declared {
            return Err(format!(
                "{at}: {} declares no server-to-client request of that name",
                protocol.id()
            ));
        }
        let parsed = parse_answer(&answer).map_err(|why| format!("{at}: {why}"))?;
        if let Ok(result) = &parsed {
            let issues = protocol.validate(&method, Part::Result, Some(result));
            if !issues.is_empty() {
                let listed: Vec<String> = issues.iter().map(ToString::to_string).collect();
                return Err(format!(
                    "{at}: the result fails its schema: {}",
                    listed.join("; ")
                ));
            }
        }
        answers.insert(method, parsed);
    }
    let mut merged = from_examples(protocol).0;
    merged.extend(answers);
    Ok(Answers(merged))
}

fn parse_answer(answer: &Value) -> Result<Result<Value, ErrorObject>, String> {
    match (answer.get("result"), answer.get("error")) {
        (Some(result), None) => Ok(Ok(result.clone())),
        (None, Some(error)) => {
            let code = error["code"]
                .as_i64()
                .ok_or("`error.code` must be an integer")?;
            let message = error["message"]
                .as_str()
                .ok_or("`error.message` must be a string")?;
            let mut object = ErrorObject::new(code, message);
            object.data = error.get("data").cloned();
            Ok(Err(object))
        }
        _ => Err("needs exactly one of `result` and `error`".to_owned()),
    }
}

impl Answers {
    /// The host's handler: each method's canned answer; a declared method
    /// neither the file nor the manifest answers is left to the host
    /// (-32601, reported).
    pub fn into_handler(self) -> Box<RequestHandler> {
        Box::new(move |method: &str, _params: Option<&Value>| self.0.get(method).cloned())
    }
}

/// An error object as JSON, as it went on the wire.
pub fn error_json(error: &ErrorObject) -> Value {
    let mut object = json!({"code": error.code, "message": error.message});
    if let Some(data) = &error.data {
        object["data"] = data.clone();
    }
    object
}
