//! Canned answers to the server's requests, as a host gives them (`wirekit
//! drive --answers`, `wirekit conformance --answers`).
//!
//! A JSON object maps a method to its answer, either `{"result": <any
//! JSON>}` or `{"error": {"code": <integer>, "message": <string>, "data"?:
//! <any JSON>}}`. Every method must be a request the protocol declares the
//! server sends, and every result must pass the method's result schema: a
//! mistake is refused before any server starts, naming the method.
//!
//! A server request the object does not answer gets the `result` of its
//! first manifest example that has one (MCP's `ping`: `{}`, which the spec
//! obliges the receiver to answer; `elicitation/create`, `roots/list`);
//! anything else is left to the host, which answers -32601.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::server_request::RequestHandler;
use crate::envelope::ErrorObject;
use crate::protocol::MethodKind;
use crate::validate::{Part, Protocol};

/// Answers by method.
#[derive(Debug, Clone, Default)]
pub struct Answers(BTreeMap<String, Result<Value, ErrorObject>>);

impl Answers {
    /// The answers the manifest gives: for each request the server sends,
    /// the `result` of its first example that has one.
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

    /// The answers of `value` (the JSON object above), checked against
    /// `protocol`, over the manifest's ([`Answers::from_examples`]); an
    /// error names the method at fault.
    pub fn from_json(value: &Value, protocol: &Protocol) -> Result<Answers, String> {
        let Value::Object(methods) = value else {
            return Err("must be a JSON object mapping methods to answers".to_owned());
        };
        let mut answers = Answers::from_examples(protocol).0;
        for (method, answer) in methods {
            let at = format!("`{method}`");
            let declared = protocol.method(method).is_some_and(|spec| {
                spec.kind == MethodKind::Request && spec.direction.server_sends()
            });
            if !declared {
                return Err(format!(
                    "{at}: {} declares no server-to-client request of that name",
                    protocol.id()
                ));
            }
            let parsed = parse_answer(answer).map_err(|why| format!("{at}: {why}"))?;
            if let Ok(result) = &parsed {
                let issues = protocol.validate(method, Part::Result, Some(result));
                if !issues.is_empty() {
                    let listed: Vec<String> = issues.iter().map(ToString::to_string).collect();
                    return Err(format!(
                        "{at}: the result fails its schema: {}",
                        listed.join("; ")
                    ));
                }
            }
            answers.insert(method.clone(), parsed);
        }
        Ok(Answers(answers))
    }

    /// The answer to `method`, where there is one.
    pub fn answer(&self, method: &str) -> Option<Result<Value, ErrorObject>> {
        self.0.get(method).cloned()
    }

    /// The host's handler: each method's answer; one without is left to
    /// the host (-32601, reported).
    pub fn into_handler(self) -> Box<RequestHandler> {
        Box::new(move |method: &str, _params: Option<&Value>| self.answer(method))
    }
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

/// An error object as JSON, as it goes on the wire.
pub fn error_json(error: &ErrorObject) -> Value {
    let mut object = json!({"code": error.code, "message": error.message});
    if let Some(data) = &error.data {
        object["data"] = data.clone();
    }
    object
}
