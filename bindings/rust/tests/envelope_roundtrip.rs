//! Property tests: random messages survive encode → decode in both dialects
//! and both modes; strict and lenient parsing agree on duplicate-free input;
//! decoding arbitrary bytes never panics.

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use serde_json::{Map, Number, Value};
use wirekit::envelope::{
    decode, encode, encode_canonical, Dialect, EnvelopeOptions, ErrorObject, Id, Message,
    Notification, Request, Response,
};

const ALL_OPTIONS: [EnvelopeOptions; 4] = [
    EnvelopeOptions::JSONRPC_2,
    EnvelopeOptions::JSONRPC_2_STRICT,
    EnvelopeOptions::BARE,
    EnvelopeOptions::BARE_STRICT,
];

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{0,8}",
        any::<String>(),
        Just("\u{0}\u{1f}\"\\/\u{7f}\u{2028}\u{1F600}".to_owned()),
    ]
}

fn arb_number() -> impl Strategy<Value = Number> {
    prop_oneof![
        any::<i64>().prop_map(Number::from),
        any::<u64>().prop_map(Number::from),
        any::<f64>().prop_filter_map("finite", Number::from_f64),
        (-1000i32..1000)
            .prop_map(|n| Number::from_f64(f64::from(n)).unwrap_or_else(|| Number::from(0))),
    ]
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        arb_number().prop_map(Value::Number),
        arb_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            // Shuffled insertion order, so member order is exercised.
            (btree_map(arb_string(), inner, 0..6), any::<bool>()).prop_map(|(members, reverse)| {
                let mut map = Map::new();
                let members: Vec<_> = if reverse {
                    members.into_iter().rev().collect()
                } else {
                    members.into_iter().collect()
                };
                for (key, value) in members {
                    map.insert(key, value);
                }
                Value::Object(map)
            }),
        ]
    })
}

fn arb_structured() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        vec(arb_value(), 0..4).prop_map(|items| Some(Value::Array(items))),
        btree_map(arb_string(), arb_value(), 0..4)
            .prop_map(|members| Some(Value::Object(members.into_iter().collect()))),
    ]
}

/// Ids every mode reads back as written: strings, and integers up to
/// 2^53 in magnitude (strict mode reads a larger one as the RFC 8785 form
/// of its nearest double, `strict_ids_are_their_canonical_integers`).
fn arb_id() -> impl Strategy<Value = Id> {
    const EXACT: i64 = 1 << 53;
    prop_oneof![
        (-EXACT..=EXACT).prop_map(Id::from),
        arb_string().prop_map(Id::from),
    ]
}

fn arb_message() -> impl Strategy<Value = Message> {
    let error = (
        any::<i64>(),
        arb_string(),
        proptest::option::of(arb_value()),
    )
        .prop_map(|(code, message, data)| ErrorObject {
            code,
            message,
            data,
        });
    prop_oneof![
        (arb_id(), arb_string(), arb_structured())
            .prop_map(|(id, method, params)| Message::Request(Request { id, method, params })),
        (arb_string(), arb_structured())
            .prop_map(|(method, params)| Message::Notification(Notification { method, params })),
        (proptest::option::of(arb_id()), arb_value()).prop_map(|(id, result)| Message::Response(
            Response {
                id,
                outcome: Ok(result)
            }
        )),
        (proptest::option::of(arb_id()), error).prop_map(|(id, error)| Message::Response(
            Response {
                id,
                outcome: Err(error)
            }
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn encode_then_decode_gives_the_same_message(message in arb_message()) {
        for opts in ALL_OPTIONS {
            let bytes = encode(&message, &opts);
            prop_assert!(!bytes.ends_with(b"\n"));
            let decoded = decode(&bytes, &opts);
            prop_assert_eq!(decoded.as_ref().ok(), Some(&message), "{:?} {}", opts, String::from_utf8_lossy(&bytes));
        }
    }

    #[test]
    fn dialects_differ_only_by_the_jsonrpc_member(message in arb_message()) {
        let full = encode(&message, &EnvelopeOptions::JSONRPC_2);
        let bare = encode(&message, &EnvelopeOptions::BARE);
        let prefix = br#"{"jsonrpc":"2.0","#;
        let rest = full.strip_prefix(prefix.as_slice()).or_else(|| full.strip_prefix(br#"{"jsonrpc":"2.0"}"#.as_slice()));
        prop_assert!(rest.is_some());
        prop_assert_eq!(&bare[1..], rest.unwrap_or_default());
        // A jsonrpc-2.0 encoding is also a valid bare message.
        prop_assert_eq!(decode(&full, &EnvelopeOptions::BARE_STRICT).ok(), Some(message));
    }

    #[test]
    fn canonical_output_decodes_to_the_same_call_shape(message in arb_message()) {
        for opts in ALL_OPTIONS {
            if let Ok(bytes) = encode_canonical(&message, &opts) {
                let decoded = decode(&bytes, &opts);
                prop_assert!(decoded.is_ok(), "{}", String::from_utf8_lossy(&bytes));
                let decoded = decoded.ok();
                prop_assert_eq!(decoded.as_ref().map(Message::kind), Some(message.kind()));
                prop_assert_eq!(decoded.as_ref().and_then(Message::id), message.id());
                prop_assert_eq!(decoded.as_ref().and_then(Message::method), message.method());
                // Canonical output is a fixed point.
                let again = decoded.map(|d| encode_canonical(&d, &opts));
                prop_assert_eq!(again.and_then(Result::ok), Some(bytes));
            }
        }
    }

    #[test]
    fn strict_ids_are_their_canonical_integers(id in any::<i64>(), unsigned in any::<u64>()) {
        for literal in [id.to_string(), unsigned.to_string()] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{literal},"method":"m"}}"#);
            let lenient = decode(body.as_bytes(), &EnvelopeOptions::JSONRPC_2);
            let strict = decode(body.as_bytes(), &EnvelopeOptions::JSONRPC_2_STRICT);
            // RFC 8785 writes the nearest double: the digits the strict id has.
            let double: f64 = literal.parse().unwrap_or(f64::NAN);
            let canonical = String::from_utf8(serde_json_canonicalizer::to_vec(&double).unwrap_or_default()).unwrap_or_default();
            prop_assert_eq!(strict.as_ref().ok().and_then(Message::id).map(ToString::to_string), Some(canonical.clone()));
            if canonical == literal {
                prop_assert_eq!(lenient.ok(), strict.ok());
            }
        }
    }

    #[test]
    fn strict_and_lenient_parse_agree_without_duplicates(value in arb_value()) {
        let body = serde_json::json!({"jsonrpc": "2.0", "method": "m", "params": [value]}).to_string();
        let lenient = decode(body.as_bytes(), &EnvelopeOptions::JSONRPC_2);
        let strict = decode(body.as_bytes(), &EnvelopeOptions::JSONRPC_2_STRICT);
        prop_assert!(lenient.is_ok());
        prop_assert_eq!(lenient.ok(), strict.ok());
    }

    #[test]
    fn decoding_arbitrary_bytes_does_not_panic(bytes in vec(any::<u8>(), 0..256)) {
        for opts in ALL_OPTIONS {
            if let Ok(message) = decode(&bytes, &opts) {
                prop_assert_eq!(decode(&encode(&message, &opts), &opts).ok(), Some(message));
            }
        }
    }

    #[test]
    fn decoding_mutated_messages_does_not_panic(
        message in arb_message(),
        flips in vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
    ) {
        for opts in ALL_OPTIONS {
            let mut bytes = encode(&message, &opts);
            for (index, byte) in &flips {
                let at = index.index(bytes.len());
                bytes[at] = *byte;
            }
            if let Ok(decoded) = decode(&bytes, &opts) {
                prop_assert_eq!(decode(&encode(&decoded, &opts), &opts).ok(), Some(decoded));
            } else if let Err(error) = decode(&bytes, &opts) {
                prop_assert!(!error.message().is_empty());
                let _ = error.to_response();
            }
        }
    }
}

#[test]
fn dialect_of_the_options_is_used() {
    let message = Message::Request(Request::new(1, "m", None));
    assert_eq!(
        encode(&message, &EnvelopeOptions::new(Dialect::Bare)),
        br#"{"id":1,"method":"m"}"#
    );
}
