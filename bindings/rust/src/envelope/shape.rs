//! The shape rules of a parsed message: `jsonrpc`, calls, responses and
//! error objects, and (strict) unknown members.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::error::{describe, member_pointer, quote, EnvelopeError, EnvelopeErrorKind as Kind};
use super::id::Id;
use super::message::{ErrorObject, Message, Notification, Request, Response};
use super::options::Dialect;

/// The envelope members, taken out of the object in one pass: from a
/// parsed map (`split`) or member by member while the message is parsed
/// (`insert`, no map built), with the same result.
#[derive(Default)]
pub(crate) struct Members {
    pub(crate) jsonrpc: Option<Value>,
    pub(crate) id: Option<Value>,
    pub(crate) method: Option<Value>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
    /// Document positions (among distinct names) of `params`, `result` and
    /// `error`, which are foreign to one kind of message or the other.
    params_at: usize,
    result_at: usize,
    error_at: usize,
    /// The first member with any other name, and its position.
    unknown: Option<(usize, String)>,
    /// Distinct names met so far.
    count: usize,
    /// The other names met (only when there are any), to count each once.
    others: HashSet<String>,
}

impl Members {
    pub(crate) fn split(map: Map<String, Value>) -> Members {
        let mut members = Members::default();
        for (key, value) in map {
            members.insert(&key, value);
        }
        members
    }

    /// Whether a member named `key` was met already.
    pub(crate) fn contains(&self, key: &str) -> bool {
        match key {
            "jsonrpc" => self.jsonrpc.is_some(),
            "id" => self.id.is_some(),
            "method" => self.method.is_some(),
            "params" => self.params.is_some(),
            "result" => self.result.is_some(),
            "error" => self.error.is_some(),
            other => self.others.contains(other),
        }
    }

    /// Takes in the member `key`. A name met again keeps its first
    /// position and takes the last value, as a `serde_json` map does.
    pub(crate) fn insert(&mut self, key: &str, value: Value) {
        let (slot, at) = match key {
            "jsonrpc" => (&mut self.jsonrpc, None),
            "id" => (&mut self.id, None),
            "method" => (&mut self.method, None),
            "params" => (&mut self.params, Some(&mut self.params_at)),
            "result" => (&mut self.result, Some(&mut self.result_at)),
            "error" => (&mut self.error, Some(&mut self.error_at)),
            other => {
                if !self.others.contains(other) {
                    if self.unknown.is_none() {
                        self.unknown = Some((self.count, other.to_owned()));
                    }
                    self.others.insert(other.to_owned());
                    self.count += 1;
                }
                return;
            }
        };
        if slot.is_none() {
            if let Some(at) = at {
                *at = self.count;
            }
            self.count += 1;
        }
        *slot = Some(value);
    }

    /// The first member (in document order) that is not one of the names
    /// given as present-and-foreign, plus any unknown one.
    fn first_foreign(&self, foreign: &[(&'static str, bool, usize)]) -> Option<String> {
        let known = foreign
            .iter()
            .filter(|(_, present, _)| *present)
            .map(|(name, _, at)| (*at, (*name).to_owned()));
        known
            .chain(self.unknown.clone())
            .min_by_key(|(at, _)| *at)
            .map(|(_, name)| name)
    }
}

fn shape_error(kind: Kind, pointer: String, message: String, id: &Option<Id>) -> EnvelopeError {
    EnvelopeError::new(kind, pointer, message).with_id(id.clone())
}

pub(crate) fn check_jsonrpc(
    jsonrpc: Option<&Value>,
    dialect: Dialect,
    id: &Option<Id>,
) -> Result<(), EnvelopeError> {
    match (jsonrpc, dialect) {
        (Some(Value::String(version)), _) if version == "2.0" => Ok(()),
        (None, Dialect::Bare) => Ok(()),
        (None, Dialect::JsonRpc2) => Err(shape_error(
            Kind::MissingJsonRpc,
            "/jsonrpc".into(),
            "missing member \"jsonrpc\" (must be \"2.0\")".into(),
            id,
        )),
        (Some(Value::String(other)), _) => Err(shape_error(
            Kind::WrongJsonRpcVersion,
            "/jsonrpc".into(),
            format!("\"jsonrpc\" must be \"2.0\", not {}", quote(other)),
            id,
        )),
        (Some(other), _) => Err(shape_error(
            Kind::JsonRpcNotString,
            "/jsonrpc".into(),
            format!(
                "\"jsonrpc\" must be the string \"2.0\", not {}",
                describe(other)
            ),
            id,
        )),
    }
}

/// Strict decoding refuses, before the `jsonrpc` version is read, what the
/// driver protocol's reference decoder refuses while it decodes the
/// envelope into its typed message (`decodeStrict`, unknown fields
/// disallowed): a member no message has, and a `jsonrpc` or `method` that
/// is not a string. Those are malformed envelopes (`invalid_request`),
/// whatever version they name.
pub(crate) fn check_strict_members(m: &Members, id: &Option<Id>) -> Result<(), EnvelopeError> {
    if let Some((_, name)) = &m.unknown {
        let within = if m.method.is_some() {
            "a request or notification"
        } else {
            "a response"
        };
        return Err(unknown_member("", name, within, id));
    }
    // A null `jsonrpc` is no value at all there (Go leaves the field
    // empty): the version check reports it missing.
    if let Some(
        jsonrpc @ (Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_)),
    ) = &m.jsonrpc
    {
        return check_jsonrpc(Some(jsonrpc), Dialect::JsonRpc2, id);
    }
    if let Some(method) = m.method.as_ref().filter(|method| !method.is_string()) {
        return Err(shape_error(
            Kind::MethodNotString,
            "/method".into(),
            format!("\"method\" must be a string, not {}", describe(method)),
            id,
        ));
    }
    Ok(())
}

/// How ids are read: strict protocols as the driver protocol's reference
/// reads them (RFC 8785 first, so `1e3` is the id 1000), lenient ones as
/// JSON-RPC 2.0 allows.
fn id_reader(strict: bool) -> fn(Value) -> Result<Id, Value> {
    if strict {
        Id::try_from_value_canonical
    } else {
        Id::try_from_value_lenient
    }
}

pub(crate) fn check_call(
    mut m: Members,
    method: Value,
    strict: bool,
    answer_id: Option<Id>,
) -> Result<Message, EnvelopeError> {
    let Value::String(method) = method else {
        return Err(shape_error(
            Kind::MethodNotString,
            "/method".into(),
            format!("\"method\" must be a string, not {}", describe(&method)),
            &answer_id,
        ));
    };
    let read = id_reader(strict);
    let id = match m.id.take() {
        None => None,
        Some(value) => match read(value) {
            Ok(id) => Some(id),
            Err(value) => {
                let allowed = if strict {
                    "a string or a number whose RFC 8785 form is an integer"
                } else {
                    "a string, an integer that fits i64 or u64, a number below 2^53 or null"
                };
                return Err(shape_error(
                    Kind::InvalidId,
                    "/id".into(),
                    format!("a request id must be {allowed}, not {}", describe(&value)),
                    &None,
                ));
            }
        },
    };
    let params = match m.params.take() {
        None => None,
        Some(params @ (Value::Object(_) | Value::Array(_))) => Some(params),
        Some(Value::Null) if !strict => Some(Value::Null),
        Some(other) => {
            return Err(shape_error(
                Kind::ParamsNotStructured,
                "/params".into(),
                format!(
                    "\"params\" must be an object or an array, not {}",
                    describe(&other)
                ),
                &answer_id,
            ))
        }
    };
    if strict {
        let foreign = [
            ("result", m.result.is_some(), m.result_at),
            ("error", m.error.is_some(), m.error_at),
        ];
        if let Some(name) = m.first_foreign(&foreign) {
            return Err(unknown_member(
                "",
                &name,
                "a request or notification",
                &answer_id,
            ));
        }
    }
    Ok(match id {
        Some(id) => Message::Request(Request { id, method, params }),
        None => Message::Notification(Notification { method, params }),
    })
}

pub(crate) fn check_response(
    mut m: Members,
    strict: bool,
    answer_id: Option<Id>,
) -> Result<Message, EnvelopeError> {
    let outcome = match (m.result.take(), m.error.take()) {
        (Some(_), Some(_)) => {
            return Err(shape_error(
                Kind::ResultAndError,
                String::new(),
                "a response must not carry both \"result\" and \"error\"".into(),
                &answer_id,
            ))
        }
        (None, None) => {
            return Err(shape_error(
                Kind::NeitherResultNorError,
                String::new(),
                "a message needs \"method\" (a call) or \"result\" or \"error\" (a response)"
                    .into(),
                &answer_id,
            ))
        }
        (Some(result), None) => Ok(result),
        (None, Some(error)) => Err(error),
    };
    let id = match m.id.take() {
        None => {
            return Err(shape_error(
                Kind::MissingId,
                "/id".into(),
                "a response must have an \"id\" member (null when unknown)".into(),
                &None,
            ))
        }
        Some(Value::Null) => None,
        Some(value) => {
            let read = id_reader(strict);
            match read(value) {
                Ok(id) => Some(id),
                Err(value) => {
                    let allowed = if strict {
                        "a string, a number whose RFC 8785 form is an integer, or null"
                    } else {
                        "a string, an integer that fits i64 or u64, a number below 2^53, or null"
                    };
                    return Err(shape_error(
                        Kind::InvalidId,
                        "/id".into(),
                        format!("a response id must be {allowed}, not {}", describe(&value)),
                        &None,
                    ));
                }
            }
        }
    };
    let outcome = match outcome {
        Ok(result) => Ok(result),
        Err(error) => Err(check_error_object(error, strict, &answer_id)?),
    };
    if strict {
        let foreign = [("params", m.params.is_some(), m.params_at)];
        if let Some(name) = m.first_foreign(&foreign) {
            return Err(unknown_member("", &name, "a response", &answer_id));
        }
    }
    Ok(Message::Response(Response { id, outcome }))
}

fn check_error_object(
    error: Value,
    strict: bool,
    answer_id: &Option<Id>,
) -> Result<ErrorObject, EnvelopeError> {
    let invalid = |pointer: &str, message: String| {
        shape_error(Kind::InvalidErrorObject, pointer.into(), message, answer_id)
    };
    let Value::Object(map) = error else {
        return Err(invalid(
            "/error",
            format!("\"error\" must be an object, not {}", describe(&error)),
        ));
    };
    let (mut code, mut message, mut data, mut unknown) = (None, None, None, None);
    for (key, value) in map {
        match key.as_str() {
            "code" => code = Some(value),
            "message" => message = Some(value),
            "data" => data = Some(value),
            _ => {
                if unknown.is_none() {
                    unknown = Some(key);
                }
            }
        }
    }
    let code = match code {
        None => return Err(invalid("/error/code", "\"error\" has no \"code\"".into())),
        Some(value) => match value.as_i64() {
            Some(code) => code,
            None => {
                return Err(invalid(
                    "/error/code",
                    format!(
                        "\"error.code\" must be an integer that fits i64, not {}",
                        if value.is_u64() {
                            "an integer above i64::MAX"
                        } else {
                            describe(&value)
                        }
                    ),
                ))
            }
        },
    };
    let message = match message {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(invalid(
                "/error/message",
                format!(
                    "\"error.message\" must be a string, not {}",
                    describe(&other)
                ),
            ))
        }
        None => {
            return Err(invalid(
                "/error/message",
                "\"error\" has no \"message\"".into(),
            ))
        }
    };
    if strict {
        if let Some(name) = unknown {
            return Err(unknown_member(
                "/error",
                &name,
                "an error object",
                answer_id,
            ));
        }
    }
    Ok(ErrorObject {
        code,
        message,
        data,
    })
}

fn unknown_member(parent: &str, name: &str, within: &str, id: &Option<Id>) -> EnvelopeError {
    let mut pointer = parent.to_owned();
    pointer.push_str(&member_pointer(name));
    shape_error(
        Kind::UnknownMember,
        pointer,
        format!("unknown member {} in {within}", quote(name)),
        id,
    )
}
