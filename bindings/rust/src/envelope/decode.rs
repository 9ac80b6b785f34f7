//! Decoding: bytes or a parsed value to a [`Message`], checking every
//! envelope rule.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::{describe, member_pointer, quote, EnvelopeError, EnvelopeErrorKind as Kind};
use super::id::Id;
use super::message::{ErrorObject, Message, Notification, Request, Response};
use super::options::{Dialect, EnvelopeOptions};
use super::strict::parse_detecting_duplicates;

/// Decodes one message body (UTF-8 JSON, no framing).
///
/// Invalid UTF-8 is refused before parsing ([`InvalidUtf8`]); then the body
/// is parsed once and checked as [`decode_value`] does. JSON whitespace may
/// surround the value; anything else after it is [`TrailingData`]. In strict
/// mode duplicate member names at any depth are refused ([`DuplicateKey`]).
///
/// [`InvalidUtf8`]: Kind::InvalidUtf8
/// [`TrailingData`]: Kind::TrailingData
/// [`DuplicateKey`]: Kind::DuplicateKey
pub fn decode(body: &[u8], opts: &EnvelopeOptions) -> Result<Message, EnvelopeError> {
    match std::str::from_utf8(body) {
        Ok(text) => decode_str(text, opts),
        Err(e) => Err(invalid_utf8(body, e)),
    }
}

/// Decodes one message body that is already a `str`; see [`decode`].
pub fn decode_str(text: &str, opts: &EnvelopeOptions) -> Result<Message, EnvelopeError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = if opts.strict {
        parse_detecting_duplicates(&mut de)
    } else {
        Value::deserialize(&mut de).map(|value| (value, None))
    };
    let (value, duplicate) = parsed.map_err(|e| {
        EnvelopeError::new(Kind::Parse, String::new(), format!("not valid JSON: {e}"))
            .with_line_column(e.line(), e.column())
    })?;
    de.end().map_err(|e| {
        EnvelopeError::new(
            Kind::TrailingData,
            String::new(),
            format!(
                "unexpected data after the JSON value at line {} column {}",
                e.line(),
                e.column()
            ),
        )
        .with_line_column(e.line(), e.column())
    })?;
    check(value, opts, duplicate)
}

/// Checks an already parsed value and turns it into a [`Message`].
///
/// Duplicate member names cannot be seen here (a `Value` has already kept
/// one of them); everything else is checked as for [`decode`], in this
/// order, the first failure being reported:
///
/// 1. the value is an object ([`NotAnObject`](Kind::NotAnObject));
/// 2. `jsonrpc`: required and `"2.0"` in `jsonrpc-2.0`; absent or `"2.0"`
///    in `bare` ([`MissingJsonRpc`](Kind::MissingJsonRpc),
///    [`WrongJsonRpcVersion`](Kind::WrongJsonRpcVersion));
/// 3. with a `method` member, a request (with `id`) or notification
///    (without): `method` is a string, `id` is a string or integer,
///    `params` is an object or array (lenient mode also keeps
///    `"params": null`);
/// 4. without `method`, a response: exactly one of `result` and `error`,
///    an `id` member that is a string, an integer or `null`, and a
///    well-formed `error` object;
/// 5. strict mode: no member outside the message kind's set (`jsonrpc`,
///    `id`, `method`, `params` for calls; `jsonrpc`, `id`, `result` or
///    `error` for responses; `code`, `message`, `data` inside `error`);
///    lenient mode ignores them.
pub fn decode_value(value: Value, opts: &EnvelopeOptions) -> Result<Message, EnvelopeError> {
    check(value, opts, None)
}

fn invalid_utf8(body: &[u8], e: std::str::Utf8Error) -> EnvelopeError {
    let valid = &body[..e.valid_up_to()];
    let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
    let line_start = valid.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let column = valid.len() - line_start + 1;
    EnvelopeError::new(
        Kind::InvalidUtf8,
        String::new(),
        format!("not valid UTF-8: bad byte at offset {}", e.valid_up_to()),
    )
    .with_line_column(line, column)
}

/// The envelope members, taken out of the object in one pass.
#[derive(Default)]
struct Members {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
    /// Document positions of `params`, `result` and `error`, which are
    /// foreign to one kind of message or the other.
    params_at: usize,
    result_at: usize,
    error_at: usize,
    /// The first member with any other name, and its position.
    unknown: Option<(usize, String)>,
}

impl Members {
    fn split(map: Map<String, Value>) -> Members {
        let mut members = Members::default();
        for (position, (key, value)) in map.into_iter().enumerate() {
            match key.as_str() {
                "jsonrpc" => members.jsonrpc = Some(value),
                "id" => members.id = Some(value),
                "method" => members.method = Some(value),
                "params" => {
                    members.params = Some(value);
                    members.params_at = position;
                }
                "result" => {
                    members.result = Some(value);
                    members.result_at = position;
                }
                "error" => {
                    members.error = Some(value);
                    members.error_at = position;
                }
                _ => {
                    if members.unknown.is_none() {
                        members.unknown = Some((position, key));
                    }
                }
            }
        }
        members
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

fn check(
    value: Value,
    opts: &EnvelopeOptions,
    duplicate: Option<String>,
) -> Result<Message, EnvelopeError> {
    let map = match value {
        Value::Object(map) => map,
        other => {
            if let Some(pointer) = duplicate {
                return Err(duplicate_error(pointer, None));
            }
            let hint = if other.is_array() {
                " (batches are not supported)"
            } else {
                ""
            };
            return Err(EnvelopeError::new(
                Kind::NotAnObject,
                String::new(),
                format!(
                    "a message must be a JSON object, not {}{hint}",
                    describe(&other)
                ),
            ));
        }
    };
    let mut m = Members::split(map);
    let answer_id = m.id.as_ref().and_then(Id::from_value);
    if let Some(pointer) = duplicate {
        let id = if pointer == "/id" { None } else { answer_id };
        return Err(duplicate_error(pointer, id));
    }
    check_jsonrpc(m.jsonrpc.as_ref(), opts.dialect, &answer_id)?;
    match m.method.take() {
        Some(method) => check_call(m, method, opts.strict, answer_id),
        None => check_response(m, opts.strict, answer_id),
    }
}

fn duplicate_error(pointer: String, id: Option<Id>) -> EnvelopeError {
    let message = format!("duplicate member name at {}", quote(&pointer));
    EnvelopeError::new(Kind::DuplicateKey, pointer, message).with_id(id)
}

fn check_jsonrpc(
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
        (Some(other), _) => {
            let shown = match other {
                Value::String(s) => quote(s),
                other => describe(other).to_owned(),
            };
            Err(shape_error(
                Kind::WrongJsonRpcVersion,
                "/jsonrpc".into(),
                format!("\"jsonrpc\" must be \"2.0\", not {shown}"),
                id,
            ))
        }
    }
}

fn check_call(
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
    let id = match m.id.take() {
        None => None,
        Some(value) => match Id::try_from_value(value) {
            Ok(id) => Some(id),
            Err(value) => {
                return Err(shape_error(
                    Kind::InvalidId,
                    "/id".into(),
                    format!(
                        "a request id must be a string or an integer that fits i64 or u64, not {}",
                        describe(&value)
                    ),
                    &None,
                ))
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

fn check_response(
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
        Some(value) => match Id::try_from_value(value) {
            Ok(id) => Some(id),
            Err(value) => {
                return Err(shape_error(
                    Kind::InvalidId,
                    "/id".into(),
                    format!(
                        "a response id must be a string, an integer that fits i64 or u64, or null, not {}",
                        describe(&value)
                    ),
                    &None,
                ))
            }
        },
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
                        describe(&value)
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
