//! A port of the AgentAPI driver protocol's reference package
//! (`pkg/driverprotocol` of whyiug/agentapi-doctor, v0.1.1: `codec.go`,
//! `protocol.go`, `state.go`, and `CanonicalizeJSON` of `pkg/schema`),
//! line by line where it decides something about a frame, and of what a
//! driver built on it does with each line it reads: decode it with
//! `DecodeControlFrame`; when that fails, answer with the class of the
//! error and the id it can still read from the line (the line's first JSON
//! value, read as Go's `encoding/json` reads it), or stay silent when it
//! can read none; else apply a request to its `Machine` and answer the
//! outcome with the request's (canonical) id; drop an answer that
//! `EncodeControlFrame` refuses (over 1 MiB). There is no Go toolchain
//! here, so this port stands for the package.
//!
//! Go's `encoding/json` matches a member to a struct field by its tag,
//! preferring an exact match but also accepting a case-insensitive one
//! (`"ID"`, `"Method"`, `"jſonrpc"`), the last such member of the canonical
//! (sorted) document winning: the port folds names the same way.
//!
//! Not ported: non-empty `fixture_refs` (`ObjectRef.Validate`), nesting
//! deeper than serde_json's 128 levels (the package allows 256), string
//! escapes of lone surrogates (serde_json refuses them; Go's decoder
//! replaces them with U+FFFD, and what `jcs.Transform` does with them was
//! not checked), and the data plane. The catalogue holds none of these.

#![allow(dead_code)] // the test that borrows this module uses a part of it

use std::collections::HashSet;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// `MaxControlFrameBytes`.
pub const MAX_CONTROL_FRAME_BYTES: usize = 1 << 20;

/// `stableErrorClasses`.
pub const STABLE_CLASSES: [&str; 10] = [
    "unsupported_rpc_version",
    "invalid_state",
    "invalid_request",
    "permission_denied",
    "budget_exceeded",
    "capability_mismatch",
    "driver_internal",
    "cancellation_timeout",
    "malformed_observation",
    "artifact_mismatch",
];

/// `ProtocolError`: a stable class and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError {
    pub class: &'static str,
    pub message: String,
}

fn error(class: &'static str, message: impl Into<String>) -> ProtocolError {
    ProtocolError {
        class,
        message: message.into(),
    }
}

fn invalid_request(message: impl Into<String>) -> ProtocolError {
    error("invalid_request", message)
}

/// JSON whose every object has unique members (`validateUniqueJSON`).
struct Strict;

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Strict;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_str<E>(self, _: &str) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_unit<E>(self) -> Result<Strict, E> {
                Ok(Strict)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
                while seq.next_element::<Strict>()?.is_some() {}
                Ok(Strict)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
                let mut seen = HashSet::new();
                while let Some(key) = map.next_key::<String>()? {
                    if !seen.insert(key.clone()) {
                        return Err(de::Error::custom(format!("duplicate member {key:?}")));
                    }
                    map.next_value::<Strict>()?;
                }
                Ok(Strict)
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// `stripNDJSONLineEnding`: one LF or CRLF, no other CR or LF, not empty.
fn strip_line_ending(line: &[u8]) -> Result<&[u8], ProtocolError> {
    let mut frame = line;
    if let Some(rest) = frame.strip_suffix(b"\n") {
        frame = rest.strip_suffix(b"\r").unwrap_or(rest);
    }
    if frame.is_empty() {
        return Err(invalid_request("empty driver control frame"));
    }
    if frame.iter().any(|b| *b == b'\n' || *b == b'\r') {
        return Err(invalid_request(
            "driver control frame must be one NDJSON line",
        ));
    }
    Ok(frame)
}

/// `CanonicalizeJSON`: UTF-8, one value, unique members; the RFC 8785
/// form (numbers as the ECMAScript form of their double), parsed back.
fn canonicalize(frame: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(frame).map_err(|_| "JSON is not valid UTF-8".to_owned())?;
    serde_json::from_str::<Strict>(text).map_err(|e| e.to_string())?;
    let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    canonical(&value)
}

fn canonical(value: &Value) -> Result<Value, String> {
    let bytes = serde_json_canonicalizer::to_vec(value).map_err(|e| e.to_string())?;
    serde_json::from_slice(&bytes).map_err(|e| e.to_string())
}

/// `validateRequestID` on a canonical value: a string, or a number whose
/// canonical text has no `.`, `e` or `E`.
fn valid_request_id(id: &Value) -> Result<(), String> {
    match id {
        Value::Null => Err("null request ID is not permitted".into()),
        Value::String(_) => Ok(()),
        Value::Number(_) => {
            let text = canonical_text(id);
            if text.contains(['.', 'e', 'E']) {
                Err("fractional or exponent request ID is not permitted".into())
            } else {
                Ok(())
            }
        }
        other => Err(format!(
            "request ID must be a string or integer, got {other}"
        )),
    }
}

/// The RFC 8785 text of a value.
pub fn canonical_text(value: &Value) -> String {
    serde_json_canonicalizer::to_vec(value)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_default()
}

/// Go's `foldName`: ASCII letters upper-cased, and each other rune the
/// smallest of its simple case-fold orbit (`ſ` is `S`, the Kelvin sign `K`).
fn fold(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '\u{17f}' => 'S',
            '\u{212a}' => 'K',
            c if c.is_ascii() => c.to_ascii_uppercase(),
            c => c,
        })
        .collect()
}

/// The field of `fields` a member named `key` decodes into, as Go's
/// `encoding/json` picks it: the exact name, else a case-insensitive match.
fn field_of<'f>(key: &str, fields: impl IntoIterator<Item = &'f str> + Clone) -> Option<&'f str> {
    fields
        .clone()
        .into_iter()
        .find(|field| *field == key)
        .or_else(|| fields.into_iter().find(|field| fold(field) == fold(key)))
}

/// The request methods and notifications of `protocol.go`.
const REQUESTS: [&str; 7] = [
    "driver.hello",
    "driver.prepare",
    "driver.capabilities",
    "driver.invoke",
    "driver.cancel",
    "driver.reset",
    "driver.shutdown",
];
const NOTIFICATIONS: [&str; 2] = ["driver.observation", "driver.completed"];

/// What `DecodeControlFrame` returns.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// A request: its canonical id, method and params.
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    /// A notification.
    Notification,
    /// A response.
    Response,
}

/// `DecodeControlFrame` (decodeStrict into `Message`, `Message.Kind`,
/// `validateMethodPayload`).
pub fn decode_control_frame(line: &[u8]) -> Result<Decoded, ProtocolError> {
    let frame = strip_line_ending(line)?;
    if frame.len() > MAX_CONTROL_FRAME_BYTES {
        return Err(error(
            "budget_exceeded",
            "driver control frame exceeds 1 MiB",
        ));
    }
    let message = canonicalize(frame)
        .map_err(|why| invalid_request(format!("control frame is not strict JSON: {why}")))?;
    let Value::Object(members) = message else {
        return Err(invalid_request("control frame must be a JSON object"));
    };
    // decodeStrict into Message: unknown fields, and members of the wrong
    // type (JSON null leaves a Go field as it was).
    let mut jsonrpc = String::new();
    let mut method = String::new();
    let (mut id, mut params, mut result) = (None, None, None);
    let mut error_object: Option<Map<String, Value>> = None;
    const MESSAGE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
    for (key, value) in members {
        let field = field_of(&key, MESSAGE).unwrap_or(key.as_str());
        match (field, value) {
            ("jsonrpc", Value::String(s)) => jsonrpc = s,
            ("method", Value::String(s)) => method = s,
            ("jsonrpc" | "method" | "error", Value::Null) => {}
            ("jsonrpc" | "method", other) => {
                return Err(invalid_request(format!(
                    "decode control frame: cannot unmarshal {other} into a string"
                )))
            }
            ("id", value) => id = Some(value),
            ("params", value) => params = Some(value),
            ("result", value) => result = Some(value),
            ("error", Value::Object(object)) => {
                let decoded = decode_struct(&Value::Object(object), RPC_ERROR)
                    .map_err(|why| invalid_request(format!("decode control frame: {why}")))?;
                error_object = decoded.as_object().cloned();
            }
            ("error", other) => {
                return Err(invalid_request(format!(
                    "decode control frame: cannot unmarshal {other} into RPCError"
                )))
            }
            (other, _) => {
                return Err(invalid_request(format!(
                    "decode control frame: json: unknown field {other:?}"
                )))
            }
        }
    }
    // Message.Kind.
    if jsonrpc != "2.0" {
        return Err(error("unsupported_rpc_version", "jsonrpc must be 2.0"));
    }
    let has_error = error_object.is_some();
    if !method.is_empty() {
        if !REQUESTS.contains(&method.as_str()) && !NOTIFICATIONS.contains(&method.as_str()) {
            return Err(invalid_request(format!("unknown driver method {method:?}")));
        }
        if result.is_some() || has_error {
            return Err(invalid_request(
                "method message cannot contain result or error",
            ));
        }
        if let Some(params) = &params {
            if !(params.is_object() || params.is_array()) {
                return Err(invalid_request("params must be an object or array"));
            }
        }
        if NOTIFICATIONS.contains(&method.as_str()) {
            if id.is_some() {
                return Err(invalid_request("driver notification must not contain id"));
            }
            return Ok(Decoded::Notification);
        }
        let Some(id) = id else {
            return Err(invalid_request("driver request must contain id"));
        };
        valid_request_id(&id)
            .map_err(|why| invalid_request(format!("invalid request id: {why}")))?;
        let params = validate_method_payload(&method, params.as_ref())?;
        return Ok(Decoded::Request { id, method, params });
    }
    if params.is_some() {
        return Err(invalid_request("response cannot contain params"));
    }
    let Some(id) = id else {
        return Err(invalid_request(
            "response requires id and exactly one of result or error",
        ));
    };
    if result.is_some() == has_error {
        return Err(invalid_request(
            "response requires id and exactly one of result or error",
        ));
    }
    valid_request_id(&id).map_err(|why| invalid_request(format!("invalid response id: {why}")))?;
    if let Some(object) = error_object {
        validate_rpc_error(&object)?;
    }
    Ok(Decoded::Response)
}

/// `RPCError.Validate` (the strict decode of its members done before).
fn validate_rpc_error(object: &Map<String, Value>) -> Result<(), ProtocolError> {
    if object
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        return Err(invalid_request("RPC error message is required"));
    }
    let Some(data) = object.get("data").and_then(Value::as_object) else {
        return Err(invalid_request(
            "RPC error data with a stable class is required",
        ));
    };
    let class = data.get("class").and_then(Value::as_str).unwrap_or("");
    if !STABLE_CLASSES.contains(&class) {
        return Err(invalid_request(format!(
            "unknown RPC error class {class:?}"
        )));
    }
    Ok(())
}

/// The Go types the package decodes params into, for `decodeStrict`.
#[derive(Clone, Copy)]
enum Ty {
    Str,
    Int,
    U64,
    StrList,
    /// `[]ObjectRef`: only null or empty is ported.
    RefList,
    Raw,
    Struct(&'static [(&'static str, Ty)]),
}

const RPC_ERROR: Ty = Ty::Struct(&[
    ("code", Ty::Int),
    ("message", Ty::Str),
    (
        "data",
        Ty::Struct(&[("class", Ty::Str), ("details", Ty::Raw)]),
    ),
]);
const VERSION_RANGE: Ty = Ty::Struct(&[("minimum", Ty::Str), ("maximum", Ty::Str)]);
const HELLO: Ty = Ty::Struct(&[("core_version_range", VERSION_RANGE)]);
const PREPARE: Ty = Ty::Struct(&[
    ("resolved_plan_digest", Ty::Str),
    ("capability_token", Ty::Str),
    ("fixture_refs", Ty::RefList),
    ("approved_permissions", Ty::StrList),
]);
const INVOKE: Ty = Ty::Struct(&[
    ("invocation_id", Ty::Str),
    ("attempt_id", Ty::Str),
    ("operation", Ty::Str),
    (
        "ephemeral_exact_input_handle",
        Ty::Struct(&[("kind", Ty::Str), ("value", Ty::Str)]),
    ),
]);
const CANCEL: Ty = Ty::Struct(&[
    ("invocation_id", Ty::Str),
    ("reason", Ty::Str),
    ("deadline_millis", Ty::U64),
]);
const EMPTY: Ty = Ty::Struct(&[]);

/// `decodeStrict` of a canonical value into a Go type: unknown fields
/// refused, types matched (a JSON null leaves the zero value). Returns the
/// value as the Go type holds it: members under their fields' names (the
/// last one a field matches wins), nulls left out.
fn decode_struct(value: &Value, ty: Ty) -> Result<Value, String> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    match ty {
        Ty::Str if value.is_string() => Ok(value.clone()),
        Ty::Int if value.is_i64() => Ok(value.clone()),
        Ty::U64 if value.is_u64() => Ok(value.clone()),
        Ty::Raw => Ok(value.clone()),
        Ty::StrList => match value {
            Value::Array(items) => items
                .iter()
                .map(|i| decode_struct(i, Ty::Str))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            other => Err(format!("cannot unmarshal {other} into []string")),
        },
        Ty::RefList => match value {
            Value::Array(items) if items.is_empty() => Ok(value.clone()),
            other => Err(format!("object references are not ported: {other}")),
        },
        Ty::Struct(fields) => {
            let Value::Object(members) = value else {
                return Err(format!("cannot unmarshal {value} into a struct"));
            };
            let mut decoded = Map::new();
            for (key, member) in members {
                let Some(name) = field_of(key, fields.iter().map(|(name, _)| *name)) else {
                    return Err(format!("json: unknown field {key:?}"));
                };
                let (_, field) = fields.iter().find(|(n, _)| *n == name).expect("a field");
                let member = decode_struct(member, *field)?;
                if !member.is_null() {
                    decoded.insert(name.to_owned(), member);
                }
            }
            Ok(Value::Object(decoded))
        }
        _ => Err(format!("cannot unmarshal {value}")),
    }
}

fn text<'v>(value: Option<&'v Value>, pointer: &str) -> &'v str {
    value
        .and_then(|v| v.pointer(pointer))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn is_digest(value: &str) -> bool {
    value.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// `ParseInstanceID`: a lowercase UUIDv7.
fn is_instance_id(value: &str) -> bool {
    let bytes = value.as_bytes();
    let hex = |b: &u8| matches!(b, b'0'..=b'9' | b'a'..=b'f');
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            14 => *b == b'7',
            19 => matches!(b, b'8' | b'9' | b'a' | b'b'),
            _ => hex(b),
        })
}

/// `DecodeParamsStrict`: the params as the Go type holds them.
fn params_of(params: Option<&Value>, ty: Ty) -> Result<Value, ProtocolError> {
    let Some(params) = params else {
        return Err(invalid_request("params are required"));
    };
    decode_struct(params, ty).map_err(|why| invalid_request(format!("decode params: {why}")))
}

/// `validateMethodPayload`; returns the params as the method's Go type
/// holds them (members under their fields' names).
fn validate_method_payload(
    method: &str,
    raw: Option<&Value>,
) -> Result<Option<Value>, ProtocolError> {
    let invalid = |what: &str, why: &str| invalid_request(format!("invalid {what} params: {why}"));
    let decoded;
    let params = match method {
        "driver.hello" => Some(HELLO),
        "driver.prepare" => Some(PREPARE),
        "driver.invoke" => Some(INVOKE),
        "driver.cancel" => Some(CANCEL),
        _ => None,
    };
    let params = match params {
        Some(ty) => {
            decoded = params_of(raw, ty)?;
            Some(&decoded)
        }
        None => raw,
    };
    match method {
        "driver.hello"
            if text(params, "/core_version_range/minimum").is_empty()
                || text(params, "/core_version_range/maximum").is_empty() =>
        {
            return Err(invalid(
                "hello",
                "minimum and maximum RPC versions are required",
            ));
        }
        "driver.prepare" => {
            if !is_digest(text(params, "/resolved_plan_digest")) {
                return Err(invalid("prepare", "resolved plan digest"));
            }
            if text(params, "/capability_token").is_empty() {
                return Err(invalid("prepare", "capability token is required"));
            }
        }
        "driver.capabilities" | "driver.reset" | "driver.shutdown" => {
            if let Some(params) = params {
                decode_struct(params, EMPTY)
                    .map_err(|why| invalid_request(format!("decode params: {why}")))?;
                if !params.is_object() {
                    return Err(invalid_request("decode params: not an object"));
                }
            }
        }
        "driver.invoke" => {
            validate_invoke(params).map_err(|why| invalid("invoke", &why))?;
        }
        "driver.cancel" => {
            validate_cancel(params).map_err(|why| invalid("cancel", &why))?;
        }
        _ => {}
    }
    Ok(params.cloned())
}

fn validate_invoke(params: Option<&Value>) -> Result<(), String> {
    if !is_instance_id(text(params, "/invocation_id"))
        || !is_instance_id(text(params, "/attempt_id"))
    {
        return Err("invocation_id or attempt_id is no UUIDv7".into());
    }
    if text(params, "/operation").is_empty() {
        return Err("operation is required".into());
    }
    if !matches!(
        text(params, "/ephemeral_exact_input_handle/kind"),
        "pipe" | "socket" | "memfd"
    ) {
        return Err("unsupported exact input handle kind".into());
    }
    if text(params, "/ephemeral_exact_input_handle/value").is_empty() {
        return Err("exact input handle value is required".into());
    }
    Ok(())
}

fn validate_cancel(params: Option<&Value>) -> Result<(), String> {
    if !is_instance_id(text(params, "/invocation_id")) {
        return Err("invocation_id is no UUIDv7".into());
    }
    if text(params, "/reason").is_empty() {
        return Err("cancel reason is required".into());
    }
    let deadline = params
        .and_then(|p| p.pointer("/deadline_millis"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if deadline == 0 {
        return Err("cancel deadline_millis must be greater than zero".into());
    }
    Ok(())
}

/// `Machine`: the serial v1 lifecycle.
#[derive(Debug, Default)]
pub struct Machine {
    state: State,
    active: Option<String>,
    completed: HashSet<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    #[default]
    New,
    Hello,
    Prepared,
    Invoking,
    Shutdown,
}

impl State {
    fn name(self) -> &'static str {
        match self {
            State::New => "NEW",
            State::Hello => "HELLO",
            State::Prepared => "PREPARED",
            State::Invoking => "INVOKING",
            State::Shutdown => "SHUTDOWN",
        }
    }
}

impl Machine {
    fn invalid_state(&self, method: &str, expected: State) -> ProtocolError {
        error(
            "invalid_state",
            format!(
                "{method} requires {}, current state is {}",
                expected.name(),
                self.state.name()
            ),
        )
    }

    fn expect(&self, method: &str, expected: State) -> Result<(), ProtocolError> {
        if self.state == expected {
            Ok(())
        } else {
            Err(self.invalid_state(method, expected))
        }
    }

    /// `Machine.Apply` of a decoded request (its params already checked
    /// by `DecodeControlFrame`).
    pub fn apply(&mut self, method: &str, params: Option<&Value>) -> Result<(), ProtocolError> {
        match method {
            "driver.hello" => {
                self.expect(method, State::New)?;
                self.state = State::Hello;
            }
            "driver.prepare" => {
                self.expect(method, State::Hello)?;
                self.state = State::Prepared;
            }
            "driver.capabilities" => {
                if !matches!(self.state, State::Hello | State::Prepared) {
                    return Err(error(
                        "invalid_state",
                        format!("{method} is invalid in {}", self.state.name()),
                    ));
                }
            }
            "driver.invoke" => {
                self.expect(method, State::Prepared)?;
                let invocation = text(params, "/invocation_id").to_owned();
                if self.completed.contains(&invocation) {
                    return Err(invalid_request(
                        "invocation_id cannot be reused after terminal completion",
                    ));
                }
                self.active = Some(invocation);
                self.state = State::Invoking;
            }
            "driver.cancel" => {
                self.expect(method, State::Invoking)?;
                if self.active.as_deref() != Some(text(params, "/invocation_id")) {
                    return Err(invalid_request(
                        "cancel invocation_id does not match the active invocation",
                    ));
                }
            }
            "driver.reset" => self.expect(method, State::Prepared)?,
            "driver.shutdown" => {
                self.expect(method, State::Prepared)?;
                self.state = State::Shutdown;
            }
            other => return Err(invalid_request(format!("unknown method {other:?}"))),
        }
        Ok(())
    }

    /// The state a driver's own `driver.completed` leads back to.
    pub fn complete(&mut self) {
        if let Some(invocation) = self.active.take() {
            self.completed.insert(invocation);
        }
        if self.state == State::Invoking {
            self.state = State::Prepared;
        }
    }
}

/// The id a driver built on the package reads from a line it refused: the
/// line's first JSON value, read as Go's `encoding/json` reads it (bytes
/// that are not UTF-8 replaced, a CR as whitespace, anything after the
/// value ignored, the last of repeated members), when it is an object
/// whose `id` passes `validateRequestID` once canonicalized. Its canonical
/// text.
pub fn recover_id(line: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(line);
    let mut values = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
    let Some(Ok(Value::Object(members))) = values.next() else {
        return None;
    };
    // The last member the `id` field takes (Go: in document order; a
    // map keeps no order, so the canonical order stands for it).
    let key = members
        .keys()
        .filter(|key| field_of(key, ["id"]).is_some())
        .max_by(|a, b| {
            let utf16 = |s: &str| s.encode_utf16().collect::<Vec<_>>();
            utf16(a).cmp(&utf16(b))
        })?;
    let id = canonical(members.get(key)?).ok()?;
    valid_request_id(&id).ok()?;
    Some(canonical_text(&id))
}

/// What a driver built on the package does with one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No answer (an id it cannot read, a notification, a response, or an
    /// answer `EncodeControlFrame` refuses).
    Silent,
    /// An answer with this id (canonical text): a result, or an error of
    /// this class.
    Answer { id: String, class: Option<String> },
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Silent => f.write_str("no answer"),
            Verdict::Answer { id, class: None } => write!(f, "result (id {})", shorten(id)),
            Verdict::Answer {
                id,
                class: Some(class),
            } => {
                write!(f, "{class} (id {})", shorten(id))
            }
        }
    }
}

fn shorten(text: &str) -> String {
    if text.len() > 40 {
        format!("{}… ({} bytes)", &text[..20], text.len())
    } else {
        text.to_owned()
    }
}

/// A driver built on the package: `DecodeControlFrame`, id recovery,
/// `Machine.Apply`, and the 1 MiB bound of `EncodeControlFrame`.
#[derive(Debug, Default)]
pub struct PackageDriver {
    pub machine: Machine,
}

impl PackageDriver {
    /// What it answers to `line`.
    pub fn answer(&mut self, line: &[u8]) -> Verdict {
        let (id, class) = match decode_control_frame(line) {
            Err(refused) => match recover_id(line) {
                Some(id) => (id, Some(refused.class.to_owned())),
                None => return Verdict::Silent,
            },
            Ok(Decoded::Request { id, method, params }) => {
                let outcome = self.machine.apply(&method, params.as_ref());
                (
                    canonical_text(&id),
                    outcome.err().map(|e| e.class.to_owned()),
                )
            }
            Ok(Decoded::Notification | Decoded::Response) => return Verdict::Silent,
        };
        // No answer is shorter than `{"id":…,"jsonrpc":"2.0","result":{}}`,
        // nor an error than `{"error":{"code":-1,"data":{"class":…},
        // "message":"…"},"id":…,"jsonrpc":"2.0"}` with its sentence.
        let shortest = match &class {
            None => id.len() + 34,
            Some(class) => id.len() + 88 + class.len(),
        };
        if shortest > MAX_CONTROL_FRAME_BYTES {
            return Verdict::Silent;
        }
        Verdict::Answer { id, class }
    }
}

/// What the package's decoder says of one line a driver wrote, when it is a
/// response: `Ok` when `DecodeControlFrame` returns it, else why not.
pub fn check_response(line: &[u8]) -> Result<(), String> {
    match decode_control_frame(line) {
        Ok(Decoded::Response) => Ok(()),
        Ok(other) => Err(format!("not a response: {other:?}")),
        Err(refused) => Err(format!("{}: {}", refused.class, refused.message)),
    }
}
