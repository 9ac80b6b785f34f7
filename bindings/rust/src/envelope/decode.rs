//! Decoding: bytes or a parsed value to a [`Message`], checking every
//! envelope rule.

use serde_json::Value;

use super::error::{describe, quote, EnvelopeError, EnvelopeErrorKind as Kind};
use super::id::Id;
use super::message::Message;
use super::numbers;
use super::options::EnvelopeOptions;
use super::shape::{check_call, check_jsonrpc, check_response, check_strict_members, Members};
use super::strict::{parse_message, parse_value, TopLevel};

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
///
/// The top-level object is split into the envelope's members as it is
/// parsed (`strict::parse_message`), without a map for it.
pub fn decode_str(text: &str, opts: &EnvelopeOptions) -> Result<Message, EnvelopeError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = parse_message(&mut de, opts.strict).map_err(parse_error)?;
    de.end().map_err(trailing_error)?;
    if parsed.needs_scan {
        // A float that may stand for `-0` or an integer beyond 64 bits
        // (rare): settled by pointer in the whole value.
        return decode_settling(text, opts);
    }
    match parsed.top {
        TopLevel::Members(members) => check_members(members, opts, parsed.duplicate),
        TopLevel::Other(value) => check(value, opts, parsed.duplicate),
    }
}

/// [`decode_str`] through the whole `Value`, whose numbers
/// `settle_numbers` can correct by pointer.
fn decode_settling(text: &str, opts: &EnvelopeOptions) -> Result<Message, EnvelopeError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = parse_value(&mut de, opts.strict).map_err(parse_error)?;
    de.end().map_err(trailing_error)?;
    let mut value = parsed.value;
    settle_numbers(text, &mut value)?;
    check(value, opts, parsed.duplicate)
}

fn parse_error(e: serde_json::Error) -> EnvelopeError {
    EnvelopeError::new(Kind::Parse, String::new(), format!("not valid JSON: {e}"))
        .with_line_column(e.line(), e.column())
}

fn trailing_error(e: serde_json::Error) -> EnvelopeError {
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
}

/// The literals `serde_json` reads as floats (`numbers`): every `-0`
/// becomes the integer 0 (a later duplicate member's literal wins, as its
/// value does), and an integer beyond `i64`/`u64` is a parse error rather
/// than a rounded double.
fn settle_numbers(text: &str, value: &mut Value) -> Result<(), EnvelopeError> {
    let found = numbers::scan(text);
    if let Some((pointer, literal)) = found.out_of_range {
        let at = if pointer.is_empty() {
            "the top level".to_owned()
        } else {
            pointer
        };
        return Err(EnvelopeError::new(
            Kind::Parse,
            String::new(),
            format!(
                "the integer {literal} at {at} is outside the 64-bit range (i64 and u64): \
                 refused rather than rounded to {}",
                literal.parse::<f64>().unwrap_or(f64::NAN)
            ),
        ));
    }
    for (pointer, integer) in found.negative_zeros {
        if let Some(slot) = value.pointer_mut(&pointer) {
            if slot.as_f64() == Some(0.0) {
                *slot = if integer {
                    Value::from(0)
                } else {
                    serde_json::Number::from_f64(-0.0).map_or(Value::Null, Value::Number)
                };
            }
        }
    }
    Ok(())
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
///    (without): `method` is a string, `id` is a string or integer (lenient
///    mode also takes a fractional number or `null`, which
///    [`Id::discouraged`] flags),
///    `params` is an object or array (lenient mode also keeps
///    `"params": null`);
/// 4. without `method`, a response: exactly one of `result` and `error`,
///    an `id` member that is a string, an integer or `null` (lenient mode
///    also takes a fractional number), and a
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
    check_members(Members::split(map), opts, duplicate)
}

/// The checks after the first (the message is an object), on its members.
pub(super) fn check_members(
    mut m: Members,
    opts: &EnvelopeOptions,
    duplicate: Option<String>,
) -> Result<Message, EnvelopeError> {
    let answer_id = m.id.as_ref().and_then(|id| {
        if opts.strict {
            Id::try_from_value_canonical(id.clone()).ok()
        } else {
            // Lenient: a fractional id is echoed too; `null` is no id to echo.
            Id::try_from_value_lenient(id.clone())
                .ok()
                .filter(|id| *id != Id::Null)
        }
    });
    if let Some(pointer) = duplicate {
        let id = if pointer == "/id" { None } else { answer_id };
        return Err(duplicate_error(pointer, id));
    }
    if opts.strict {
        check_strict_members(&m, &answer_id)?;
    }
    // Strict: `"jsonrpc": null` is a missing version, as the driver
    // protocol's reference reads it.
    let jsonrpc = m.jsonrpc.as_ref().filter(|v| !(opts.strict && v.is_null()));
    check_jsonrpc(jsonrpc, opts.dialect, &answer_id)?;
    match m.method.take() {
        Some(method) => check_call(m, method, opts.strict, answer_id),
        None => check_response(m, opts.strict, answer_id),
    }
}

fn duplicate_error(pointer: String, id: Option<Id>) -> EnvelopeError {
    let message = format!("duplicate member name at {}", quote(&pointer));
    EnvelopeError::new(Kind::DuplicateKey, pointer, message).with_id(id)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::envelope::kept::{decode_keeping_params, Decoded};
    use crate::envelope::options::Dialect;

    /// JSON texts of a member value: the shapes the checks tell apart.
    fn value_text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("\"2.0\"".to_owned()),
            Just("\"2.\\u0030\"".to_owned()),
            Just("\"ping\"".to_owned()),
            Just("7".to_owned()),
            Just("-0".to_owned()),
            Just("1.5".to_owned()),
            Just("-0.0".to_owned()),
            Just("18446744073709551615".to_owned()),
            Just("18446744073709551616".to_owned()),
            Just("{\"code\":-32600,\"message\":\"m\"}".to_owned()),
            Just("{\"code\":1,\"message\":\"m\",\"x\":1}".to_owned()),
            Just("{\"a\":1,\"a\":2}".to_owned()),
            Just("[1,{\"b\":-0}]".to_owned()),
            Just("[-12345678901234567890,\"-0\"]".to_owned()),
            Just(format!("{}{}", "[".repeat(130), "]".repeat(130))),
        ];
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop::collection::vec(inner, 0..3).prop_map(|items| format!("[{}]", items.join(",")))
        })
    }

    fn member_name() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "\"jsonrpc\"",
            "\"id\"",
            "\"method\"",
            "\"params\"",
            "\"result\"",
            "\"error\"",
            "\"x\"",
            "\"y\"",
            "\"\\u0069d\"",
            "\"a/b~\"",
        ])
    }

    /// A member: mostly the value its name expects (so that a message
    /// gets past the first checks), else any value.
    fn member() -> impl Strategy<Value = String> {
        (member_name(), value_text(), params_text(), 0..3u8).prop_map(
            |(name, any, params, pick)| {
                let usual = match name {
                    "\"jsonrpc\"" => "\"2.0\"",
                    "\"method\"" => "\"ping\"",
                    "\"id\"" | "\"\\u0069d\"" => "7",
                    "\"params\"" => params.as_str(),
                    "\"error\"" => "{\"code\":1,\"message\":\"m\"}",
                    _ => "1",
                };
                let value = if pick == 0 { any } else { usual.to_owned() };
                format!("{name}:{value}")
            },
        )
    }

    /// Params texts, the ones a kept text must not carry among them.
    fn params_text() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "{\"k\":[1]}".to_owned(),
            "[{\"k\":-0}]".to_owned(),
            "{\"n\":18446744073709551616}".to_owned(),
            format!("{}{}", "[".repeat(126), "]".repeat(126)),
            format!("{}{}", "[".repeat(127), "]".repeat(127)),
        ])
    }

    /// A message text: an object of up to 7 members (names may repeat), a
    /// request with params and maybe one more member, or now and then a
    /// value that is no object.
    fn message_text() -> impl Strategy<Value = String> {
        let object = prop::collection::vec(member(), 0..7)
            .prop_map(|members| format!("{{{}}}", members.join(",")));
        let request = (params_text(), prop::option::of(member())).prop_map(|(params, extra)| {
            let extra = extra.map(|member| format!("{member},")).unwrap_or_default();
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":7,{extra}\"method\":\"ping\",\"params\":{params}}}"
            )
        });
        prop_oneof![
            6 => object,
            3 => request,
            1 => value_text(),
            1 => Just("{\"id\":1,".to_owned())
        ]
    }

    /// Both dialects, strict and lenient.
    fn options() -> impl Strategy<Value = EnvelopeOptions> {
        (any::<bool>(), any::<bool>()).prop_map(|(bare, strict)| EnvelopeOptions {
            dialect: if bare {
                Dialect::Bare
            } else {
                Dialect::JsonRpc2
            },
            strict,
        })
    }

    /// 4,096 cases, or `PROPTEST_CASES` (`make fuzz-long` runs these too).
    fn cases() -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|cases| cases.parse().ok())
            .unwrap_or(4096)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases()))]

        /// The one-pass decode (members taken as they are parsed) answers
        /// exactly what the map route does, errors included.
        #[test]
        fn one_pass_decode_matches_the_map_route(text in message_text(), opts in options()) {
            prop_assert_eq!(decode_str(&text, &opts), decode_settling(&text, &opts), "{}", text);
        }

        /// Keeping a request's params as text changes nothing else: the
        /// same message, or a request with the same id and method whose
        /// params are the text the whole decode parsed.
        #[test]
        fn keeping_params_decodes_as_the_whole_text_does(text in message_text(), opts in options()) {
            let whole = decode_str(&text, &opts);
            match decode_keeping_params(&text, &opts) {
                Ok(Decoded::Kept(kept)) => {
                    prop_assert!(!opts.strict);
                    // No literal the whole decode would settle or refuse.
                    prop_assert_eq!(
                        crate::envelope::numbers::scan(kept.params.get()),
                        crate::envelope::numbers::Literals::default(),
                        "{}", text
                    );
                    // The kept text, decoded the way the whole message is.
                    let alone = format!(
                        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{}}}",
                        kept.params.get()
                    );
                    match (whole, decode_str(&alone, &opts)) {
                        (Ok(Message::Request(request)), Ok(Message::Request(parsed))) => {
                            prop_assert_eq!(&kept.id, &request.id);
                            prop_assert_eq!(&kept.method, &request.method);
                            let alone = kept.to_request();
                            prop_assert_eq!(alone.as_ref(), Some(&request), "{}", text);
                            prop_assert_eq!(parsed.params, request.params, "{}", text);
                        }
                        (whole, alone) => {
                            return Err(TestCaseError::fail(format!(
                                "kept params of {text}: whole {whole:?}, params alone {alone:?}"
                            )));
                        }
                    }
                }
                Ok(Decoded::Message(message)) => prop_assert_eq!(Ok(message), whole, "{}", text),
                Err(error) => prop_assert_eq!(Err(error), whole, "{}", text),
            }
        }
    }
}
