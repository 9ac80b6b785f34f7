//! Differential property tests of the core against its references:
//! `serde_json` for the envelope's reading of JSON text (numbers of every
//! width, nesting), and the `jsonschema` crate for the validation of
//! generated schemas and instances through a protocol built from them.
//! Any disagreement fails, an acceptance the reference refuses above all.
//! The envelope's reference is `serde_json` with the wire's number rules
//! (tests/vectors README, "Numbers"): `-0` is the integer 0, and an integer
//! literal outside i64 and u64 is refused, never rounded.

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use wirekit::envelope::{decode, encode, EnvelopeOptions, Message, Response};
use wirekit::protocol::bundle::SchemaFiles;
use wirekit::protocol::ProtocolSource;
use wirekit::validate::{Part, Protocol};

/// Number literals: integers of every width, `-0`, floats and exponents.
fn arb_number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<u128>().prop_map(|n| n.to_string()),
        any::<i128>().prop_map(|n| n.to_string()),
        "-?[1-9][0-9]{19,40}",
        Just("-0.0".to_owned()),
        Just("-0".to_owned()),
        Just("0".to_owned()),
        Just("1.0".to_owned()),
        Just("1e2".to_owned()),
        Just("1E+400".to_owned()),
        Just("5e-324".to_owned()),
        // Integral doubles from 2^64 to beyond 1e21, written out in digits:
        // below 1e21 this is their RFC 8785 form, read as the double.
        (1.8e19f64..1e22).prop_map(|f| f.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| f.to_string()),
    ]
}

fn arb_json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        "[a-z é]{0,4}".prop_map(|text| format!("\"{text}\"")),
        arb_number_text(),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(|items| format!("[{}]", items.join(","))),
            btree_map("[a-c]", inner, 0..4).prop_map(|members| {
                let members: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("\"{k}\":{v}"))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

/// `PROPTEST_CASES` (`make fuzz-long`: that many cases from a random seed) or the short run of
/// `make test` (the given number of cases from a fixed seed, so CI runs the same cases every time).
fn config(default: u32) -> ProptestConfig {
    match std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
    {
        Some(cases) => ProptestConfig::with_cases(cases),
        None => ProptestConfig {
            cases: default,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0015),
            ..ProptestConfig::default()
        },
    }
}

/// `serde_json`'s reading of a generated text under the wire's number
/// rules, applied to the text first: `-0` becomes `0`, an integer literal
/// beyond i64 and u64 refuses the text. (Generated strings hold no digit
/// or `-`, so every such character starts a number.)
fn wire_reference(text: &str) -> Option<Value> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '-' && !c.is_ascii_digit() {
            out.push(c);
            continue;
        }
        let mut token = String::from(c);
        while let Some(&next) = chars.peek() {
            if !matches!(next, '-' | '+' | '.' | 'e' | 'E' | '0'..='9') {
                break;
            }
            token.push(next);
            chars.next();
        }
        if !token.contains(['.', 'e', 'E']) {
            if token == "-0" {
                token = "0".to_owned();
            } else if token.parse::<i64>().is_err()
                && token.parse::<u64>().is_err()
                && !is_rfc8785_form_of_its_double(&token)
            {
                return None;
            }
        }
        out.push_str(&token);
    }
    serde_json::from_str(&out).ok()
}

/// Whether an integer literal beyond 64 bits is exactly what RFC 8785
/// writes for its double (the rule's one exception: `18446744073709552000`).
/// Below 1e21 the ECMAScript form of an integral double is its shortest
/// round-trip digits padded with zeros, which is also what Rust's `Display`
/// writes; from 1e21 up ECMAScript writes an exponent, so no plain literal
/// is that form.
fn is_rfc8785_form_of_its_double(token: &str) -> bool {
    token
        .parse::<f64>()
        .is_ok_and(|double| double.abs() < 1e21 && double.to_string() == token)
}

fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

proptest! {
    #![proptest_config(config(256))]

    /// The envelope reads a result as `serde_json` reads it under the
    /// wire's number rules, refuses what they refuse, and reads its own
    /// encoding back to the same message.
    #[test]
    fn envelope_reads_results_as_serde_json_does(text in arb_json_text()) {
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{text}}}"#);
        let reference = wire_reference(&text);
        let decoded = decode(body.as_bytes(), &EnvelopeOptions::JSONRPC_2);
        let (Some(reference), Ok(Message::Response(Response { outcome: Ok(result), .. }))) = (&reference, &decoded) else {
            prop_assert!(reference.is_none() && decoded.is_err(), "{} {:?} {:?}", body, reference, decoded);
            return Ok(());
        };
        prop_assert_eq!(result, reference);
        let message = Message::Response(Response::success(wirekit::envelope::Id::from(1), result.clone()));
        let again = encode(&message, &EnvelopeOptions::JSONRPC_2);
        prop_assert_eq!(decode(&again, &EnvelopeOptions::JSONRPC_2).ok(), Some(message));
    }

    /// The envelope accepts a nesting depth exactly when `serde_json` does.
    #[test]
    fn nesting_is_bounded_as_serde_json_bounds_it(depth in 100usize..140) {
        let text = nested(depth);
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{text}}}"#);
        let reference = serde_json::from_str::<Value>(&body).is_ok();
        prop_assert_eq!(decode(body.as_bytes(), &EnvelopeOptions::JSONRPC_2).is_ok(), reference);
    }
}

// ---- validation against the jsonschema crate ----

fn arb_bound() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(5)),
        Just(json!(1.5)),
        Just(json!(9007199254740993u64)),
        Just(json!(u64::MAX)),
    ]
}

fn arb_type() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!("null")),
        Just(json!("boolean")),
        Just(json!("object")),
        Just(json!("array")),
        Just(json!("number")),
        Just(json!("integer")),
        Just(json!("string")),
    ]
}

fn arb_schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        arb_type().prop_map(|t| json!({ "type": t })),
        (
            prop_oneof![
                Just("minimum"),
                Just("maximum"),
                Just("exclusiveMinimum"),
                Just("exclusiveMaximum")
            ],
            arb_bound()
        )
            .prop_map(|(k, v)| json!({ k: v })),
        (
            prop_oneof![Just("minLength"), Just("maxItems"), Just("minProperties")],
            0u8..3
        )
            .prop_map(|(k, v)| json!({ k: v })),
        Just(json!({"enum": ["a", 1, null]})),
        Just(json!({"const": 1})),
        // Back to the root: recursive schemas, overlapping alternatives among
        // them (the bounded report of validate/descent.rs).
        Just(json!({"$ref": "#/$defs/R"})),
        Just(json!({"type": "array", "items": {"$ref": "#/$defs/R"}})),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            (
                prop_oneof![Just("allOf"), Just("anyOf"), Just("oneOf")],
                vec(inner.clone(), 1..3)
            )
                .prop_map(|(k, subs)| json!({ k: subs })),
            inner.clone().prop_map(|sub| json!({ "not": sub })),
            inner
                .clone()
                .prop_map(|sub| json!({ "type": "array", "items": sub })),
            (btree_map("[ab]", inner, 0..3), any::<bool>()).prop_map(|(props, required)| {
                let mut schema = Map::new();
                schema.insert("type".into(), json!("object"));
                schema.insert(
                    "properties".into(),
                    Value::Object(props.into_iter().collect()),
                );
                if required {
                    schema.insert("required".into(), json!(["a"]));
                }
                Value::Object(schema)
            }),
        ]
    })
}

fn protocol_for(schema: &Value) -> Option<Protocol> {
    let manifest = json!({
        "protocol": "differential", "version": "1.0.0",
        "transport": {"framing": "ndjson", "envelope": "jsonrpc-2.0", "max_frame_bytes": 1048576},
        "schemas": ["s.json"],
        "methods": {"m": {"kind": "request", "direction": "client-to-server",
                          "result": {"$ref": "s.json#/$defs/R"}}}
    });
    let mut files = SchemaFiles::new();
    files.insert(
        "s.json".into(),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"R": schema}}),
    );
    Protocol::compile(ProtocolSource::new("differential/1.0.0", manifest, files).ok()?).ok()
}

proptest! {
    #![proptest_config(config(128))]

    /// The core's validation of a result equals the `jsonschema` crate's
    /// verdict on the same schema, for instances read from text (so numbers
    /// of any size).
    #[test]
    fn validation_agrees_with_jsonschema(schema in arb_schema(), texts in vec(arb_json_text(), 1..6)) {
        let Some(protocol) = protocol_for(&schema) else {
            return Err(TestCaseError::fail(format!("schema does not compile: {schema}")));
        };
        let reference = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&json!({"$defs": {"R": schema}, "$ref": "#/$defs/R"}))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        for text in texts {
            // A text serde_json refuses (a number out of f64's range such as `1E+400`) is no
            // instance to validate; the envelope's own differential test covers its refusal.
            let Ok(instance) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let expected = reference.is_valid(&instance);
            let issues = protocol.validate("m", Part::Result, Some(&instance));
            prop_assert_eq!(issues.is_empty(), expected, "schema {} instance {} issues {:?}", schema, text, issues);
            // Every issue names a place of the instance: itself, or for a
            // missing member the object that lacks it.
            for issue in &issues {
                let parent = issue.instance_path.rsplit_once('/').map_or("", |(parent, _)| parent);
                prop_assert!(
                    instance.pointer(&issue.instance_path).is_some() || instance.pointer(parent).is_some(),
                    "schema {} instance {} issue {:?}", schema, text, issue
                );
            }
        }
    }
}
