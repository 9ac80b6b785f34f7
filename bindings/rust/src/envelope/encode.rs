//! Encoding: a [`Message`] to compact JSON bytes, in declared member order or
//! RFC 8785 canonical form.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

use super::error::{push_token, EnvelopeError, EnvelopeErrorKind};
use super::id::Id;
use super::message::{ErrorObject, Message, Response};
use super::options::{Dialect, EnvelopeOptions};

/// Every integer up to `2^53` in magnitude is a double written with its own
/// digits; beyond it some are, most are not.
const EXACT_BOUND: u64 = 1 << 53;

/// Encodes a message as compact JSON, without a trailing newline.
///
/// Members come in declared order: `jsonrpc` (omitted in the `bare`
/// dialect), `id`, `method`, `params` (omitted when `None`) for calls;
/// `jsonrpc`, `id`, then `result` or `error` (`code`, `message`, `data` when
/// present) for responses. `params`, `result` and `data` keep their own
/// member order, strings are written with `serde_json`'s minimal escaping,
/// and numbers in their shortest round-trip form: integers exactly, floats
/// keep a fraction (`9.0` stays `9.0`; `1e2` is written `100.0`).
///
/// So a compact message decoded and re-encoded comes out byte for byte
/// unless it used optional escapes (`"\u00e9"`), exponents or
/// non-shortest floats, or members that decoding dropped (the `jsonrpc`
/// member in `bare`, unknown members in lenient mode).
#[must_use]
pub fn encode(message: &Message, opts: &EnvelopeOptions) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    encode_into(message, opts, &mut out);
    out
}

/// Appends the [`encode`] output to `out` (for framers that write a header
/// first).
pub fn encode_into(message: &Message, opts: &EnvelopeOptions, out: &mut Vec<u8>) {
    let start = out.len();
    let wire = Wire {
        message,
        dialect: opts.dialect,
    };
    // Writing into a Vec cannot fail with an I/O error, and every map key
    // here is a string, so serde_json has no error to report.
    let written = serde_json::to_writer(&mut *out, &wire);
    debug_assert!(written.is_ok(), "encoding a message cannot fail");
    if written.is_err() {
        out.truncate(start);
    }
}

/// Appends a success response whose result is already JSON text (a
/// binding that validated and encoded its result itself): the same bytes
/// [`encode_into`] writes for that result, without building a `Value`.
pub fn encode_success_raw(id: &Id, result: &RawValue, opts: &EnvelopeOptions, out: &mut Vec<u8>) {
    encode_success_head(id, opts, out);
    out.extend_from_slice(result.get().as_bytes());
    out.push(SUCCESS_TAIL);
}

/// What [`encode_success_raw`] writes before the result: `{`, `"jsonrpc"`
/// where the dialect has it, the id and `"result":`. The result and
/// [`SUCCESS_TAIL`] follow; a binding that writes its result straight into
/// the frame's buffer (`Wire::frame_result_in_place`) writes the same bytes.
pub fn encode_success_head(id: &Id, opts: &EnvelopeOptions, out: &mut Vec<u8>) {
    out.push(b'{');
    if opts.dialect == Dialect::JsonRpc2 {
        out.extend_from_slice(br#""jsonrpc":"2.0","#);
    }
    out.extend_from_slice(br#""id":"#);
    match id {
        Id::Number(_) => out.extend_from_slice(id.to_string().as_bytes()),
        Id::String(text) => {
            // A string always serializes; a failure would leave `out` as it was.
            let _ = serde_json::to_writer(&mut *out, text);
        }
        Id::Null => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(br#","result":"#);
}

/// The byte that closes a success response after its result.
pub const SUCCESS_TAIL: u8 = b'}';

/// The length in bytes of what [`encode_success_raw`] writes.
pub fn encoded_success_raw_len(id: &Id, result: &RawValue, opts: &EnvelopeOptions) -> usize {
    let jsonrpc = if opts.dialect == Dialect::JsonRpc2 {
        r#""jsonrpc":"2.0","#.len()
    } else {
        0
    };
    let id_len = match id {
        Id::Number(_) => id.to_string().len(),
        Id::String(text) => serde_json::to_string(text).map_or(0, |quoted| quoted.len()),
        Id::Null => 4,
    };
    // `{` + jsonrpc + `"id":` + id + `,"result":` + result + `}`
    1 + jsonrpc + r#""id":"#.len() + id_len + r#","result":"#.len() + result.get().len() + 1
}

/// Encodes a message in RFC 8785 (JCS) canonical form: members sorted by
/// UTF-16 code units at every depth, no whitespace, numbers formatted as
/// ECMAScript does (`9.0` becomes `9`, `1e21` becomes `1e+21`).
///
/// # Errors
///
/// [`EnvelopeErrorKind::NotCanonicalizable`] when the message holds an
/// integer (in the id, the params, the result, the error code or its data)
/// whose RFC 8785 form would not be its own digits: RFC 8785 writes every
/// number as the ECMAScript form of the nearest IEEE 754 double, so
/// `18446744073709551615` would become `18446744073709552000`. Integers up
/// to `2^53` in magnitude are always kept, larger ones only when the double
/// is exact and prints the same digits (`10000000000000000000`). The
/// pointer names the number; send such values as strings.
pub fn encode_canonical(
    message: &Message,
    opts: &EnvelopeOptions,
) -> Result<Vec<u8>, EnvelopeError> {
    if let Some(pointer) = unsafe_integer(message) {
        let text = format!(
            "the integer at {pointer:?} has no exact RFC 8785 form (its nearest double prints other digits)"
        );
        return Err(EnvelopeError::new(
            EnvelopeErrorKind::NotCanonicalizable,
            pointer,
            text,
        ));
    }
    let wire = Wire {
        message,
        dialect: opts.dialect,
    };
    serde_json_canonicalizer::to_vec(&wire).map_err(|e| {
        EnvelopeError::new(
            EnvelopeErrorKind::NotCanonicalizable,
            String::new(),
            format!("RFC 8785 encoding failed: {e}"),
        )
    })
}

/// A message with the dialect that decides whether `jsonrpc` is written.
struct Wire<'a> {
    message: &'a Message,
    dialect: Dialect,
}

impl Serialize for Wire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if self.dialect == Dialect::JsonRpc2 {
            map.serialize_entry("jsonrpc", "2.0")?;
        }
        match self.message {
            Message::Request(request) => {
                map.serialize_entry("id", &request.id)?;
                map.serialize_entry("method", &request.method)?;
                if let Some(params) = &request.params {
                    map.serialize_entry("params", params)?;
                }
            }
            Message::Notification(notification) => {
                map.serialize_entry("method", &notification.method)?;
                if let Some(params) = &notification.params {
                    map.serialize_entry("params", params)?;
                }
            }
            Message::Response(response) => {
                map.serialize_entry("id", &response.id)?;
                match &response.outcome {
                    Ok(result) => map.serialize_entry("result", result)?,
                    Err(error) => map.serialize_entry("error", &WireError(error))?,
                }
            }
        }
        map.end()
    }
}

/// An error object in `code`, `message`, `data` order.
struct WireError<'a>(&'a ErrorObject);

impl Serialize for WireError<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("code", &self.0.code)?;
        map.serialize_entry("message", &self.0.message)?;
        if let Some(data) = &self.0.data {
            map.serialize_entry("data", data)?;
        }
        map.end()
    }
}

/// The pointer of the first integer RFC 8785 would change.
fn unsafe_integer(message: &Message) -> Option<String> {
    let id_unsafe = |id: Option<&Id>| match id {
        Some(Id::Number(n)) => !number_is_safe(n),
        _ => false,
    };
    match message {
        Message::Request(request) => {
            if id_unsafe(Some(&request.id)) {
                return Some("/id".into());
            }
            request
                .params
                .as_ref()
                .and_then(|p| find_unsafe(p, "/params"))
        }
        Message::Notification(notification) => notification
            .params
            .as_ref()
            .and_then(|p| find_unsafe(p, "/params")),
        Message::Response(Response { id, outcome }) => {
            if id_unsafe(id.as_ref()) {
                return Some("/id".into());
            }
            match outcome {
                Ok(result) => find_unsafe(result, "/result"),
                Err(error) => {
                    if !number_is_safe(&error.code.into()) {
                        return Some("/error/code".into());
                    }
                    error
                        .data
                        .as_ref()
                        .and_then(|d| find_unsafe(d, "/error/data"))
                }
            }
        }
    }
}

/// Whether RFC 8785 writes `n` with its own digits. Floats are doubles
/// already; integers beyond `2^53` are checked by formatting them (rare, so
/// the cost does not matter).
fn number_is_safe(n: &serde_json::Number) -> bool {
    let magnitude = match (n.as_i64(), n.as_u64()) {
        (Some(i), _) => i.unsigned_abs(),
        (None, Some(u)) => u,
        (None, None) => return true,
    };
    if magnitude <= EXACT_BOUND {
        return true;
    }
    serde_json_canonicalizer::to_vec(n).is_ok_and(|text| text == n.to_string().as_bytes())
}

/// Depth-first search for an integer without an exact canonical form under `value`, whose pointer is
/// `base`. Only builds pointer text on the way out of a hit.
fn find_unsafe(value: &Value, base: &str) -> Option<String> {
    let mut path = Vec::new();
    if !walk(value, &mut path) {
        return None;
    }
    let mut pointer = base.to_owned();
    for token in path.iter().rev() {
        push_token(&mut pointer, token);
    }
    Some(pointer)
}

/// Returns true on a hit, with `path` holding the tokens innermost first.
fn walk(value: &Value, path: &mut Vec<String>) -> bool {
    match value {
        Value::Number(n) => !number_is_safe(n),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                if walk(item, path) {
                    path.push(index.to_string());
                    return true;
                }
            }
            false
        }
        Value::Object(map) => {
            for (key, item) in map {
                if walk(item, path) {
                    path.push(key.clone());
                    return true;
                }
            }
            false
        }
        Value::Null | Value::Bool(_) | Value::String(_) => false,
    }
}
