//! Validation reports driven by arbitrary bytes: a schema built from the
//! input by a small grammar (every applicator the report follows, `$ref`s
//! back to the root so schemas recurse, overlapping alternatives included),
//! then instances read from the rest of the input as JSON texts.
//!
//! A crash means a panic, a verdict other than the `jsonschema` crate's
//! `is_valid`, a refusal without an issue, an issue without a message or
//! with a pointer that is not one, or (with `-timeout`) a report that takes
//! exponential time: the case `overlap.rs` exists to find before it runs.

use serde_json::{json, Map, Value};
use wirekit::protocol::bundle::SchemaFiles;
use wirekit::protocol::ProtocolSource;
use wirekit::validate::{Part, Protocol};

const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The input, read a byte at a time (zero once it runs out).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        let Some((&first, rest)) = self.0.split_first() else {
            return 0;
        };
        self.0 = rest;
        first
    }
}

fn schema(bytes: &mut Bytes<'_>, depth: u32) -> Value {
    let choice = bytes.next();
    if depth > 4 {
        return leaf(choice);
    }
    let sub = |bytes: &mut Bytes<'_>| schema(bytes, depth + 1);
    match choice % 16 {
        0 => json!({"$ref": "#/$defs/R"}),
        1 => json!({"$ref": "#/$defs/S"}),
        2..=4 => {
            let keyword = ["anyOf", "allOf", "oneOf"][usize::from(choice % 16 - 2)];
            let count = 1 + bytes.next() % 3;
            let branches: Vec<Value> = (0..count).map(|_| sub(bytes)).collect();
            json!({ keyword: branches })
        }
        5 => json!({"type": "array", "items": sub(bytes)}),
        6 => json!({"prefixItems": [sub(bytes)], "items": sub(bytes)}),
        7 => {
            let mut properties = Map::new();
            for name in ["a", "b"].iter().take(usize::from(1 + bytes.next() % 2)) {
                properties.insert((*name).into(), sub(bytes));
            }
            let mut object = json!({"type": "object", "properties": properties});
            if bytes.next() % 2 == 0 {
                object["required"] = json!(["a"]);
            }
            object
        }
        8 => json!({"additionalProperties": sub(bytes)}),
        9 => json!({"patternProperties": {"^a": sub(bytes)}, "additionalProperties": false}),
        10 => json!({"not": sub(bytes)}),
        11 => json!({"if": sub(bytes), "then": sub(bytes), "else": sub(bytes)}),
        12 => json!({"dependentSchemas": {"a": sub(bytes)}}),
        13 => json!({"contains": sub(bytes), "propertyNames": {"maxLength": 2}}),
        _ => leaf(bytes.next()),
    }
}

fn leaf(choice: u8) -> Value {
    match choice % 10 {
        0 => json!(true),
        1 => json!(false),
        2 => json!({"type": "null"}),
        3 => json!({"type": "integer", "minimum": 0}),
        4 => json!({"type": "string", "maxLength": 2}),
        5 => json!({"type": ["array", "object"]}),
        6 => json!({"enum": [1, "a", null]}),
        7 => json!({"minItems": 1}),
        8 => json!({"required": ["b"]}),
        _ => json!({}),
    }
}

/// Checks one input (see the module docs).
pub fn check_reports(data: &[u8]) {
    let (grammar, texts) = match data.iter().position(|&byte| byte == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let mut bytes = Bytes(grammar);
    let defs = json!({"R": schema(&mut bytes, 0), "S": schema(&mut bytes, 0)});
    let manifest = json!({
        "protocol": "fuzz", "version": "1.0.0",
        "transport": {"framing": "ndjson", "envelope": "jsonrpc-2.0", "max_frame_bytes": 1048576},
        "schemas": ["s.json"],
        "methods": {"m": {"kind": "request", "direction": "client-to-server",
                          "result": {"$ref": "s.json#/$defs/R"}}}
    });
    let mut files = SchemaFiles::new();
    files.insert("s.json".into(), json!({"$schema": DRAFT, "$defs": defs}));
    let protocol = ProtocolSource::new("fuzz/1.0.0", manifest, files)
        .and_then(Protocol::compile)
        .expect("the grammar's schemas are valid protocols");
    let reference = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&json!({"$schema": DRAFT, "$defs": defs, "$ref": "#/$defs/R"}))
        .expect("the grammar's schemas compile");
    // Deep instances the texts rarely reach: nested arrays and objects.
    let depth = usize::from(bytes.next() % 64);
    let leaf = leaf(bytes.next());
    let deep_array = (0..depth).fold(leaf.clone(), |inner, _| json!([inner]));
    let deep_object = (0..depth).fold(leaf, |inner, _| json!({"a": inner}));
    let read = texts
        .split(|&byte| byte == 0)
        .take(4)
        .filter_map(|text| serde_json::from_slice::<Value>(text).ok());
    for instance in [deep_array, deep_object].into_iter().chain(read) {
        let issues = protocol.validate("m", Part::Result, Some(&instance));
        assert_eq!(
            issues.is_empty(),
            reference.is_valid(&instance),
            "schema {defs} instance {instance} issues {issues:?}"
        );
        for issue in &issues {
            assert!(!issue.message.is_empty(), "issue without a message");
            assert!(
                issue.instance_path.is_empty() || issue.instance_path.starts_with('/'),
                "instance path is not a JSON pointer: {:?}",
                issue.instance_path
            );
        }
    }
}
