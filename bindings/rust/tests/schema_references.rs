//! References resolved as JSON Schema says, through a loaded protocol: the
//! cases issue 24 found refused at load or judged wrongly, each a
//! one-method protocol whose result is the schema under test.

use serde_json::{json, Value};
use wirekit::protocol::bundle::SchemaFiles;
use wirekit::protocol::{ProtocolErrorKind, ProtocolSource};
use wirekit::validate::{Part, Protocol};

fn protocol(result: &str, files: &[(&str, Value)], json_schema: Value) -> Protocol {
    try_protocol(result, files, json_schema).expect("the protocol loads")
}

fn try_protocol(
    result: &str,
    files: &[(&str, Value)],
    json_schema: Value,
) -> Result<Protocol, wirekit::protocol::ProtocolError> {
    let names: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
    let mut manifest = json!({
        "protocol": "p",
        "version": "1",
        "transport": {"framing": "ndjson", "envelope": "jsonrpc-2.0", "max_frame_bytes": 65536},
        "schemas": names,
        "methods": {"m": {"kind": "request", "direction": "client-to-server", "result": {"$ref": result}}},
    });
    if !json_schema.is_null() {
        manifest["json_schema"] = json_schema;
    }
    let files: SchemaFiles = files
        .iter()
        .map(|(name, value)| ((*name).to_owned(), value.clone()))
        .collect();
    ProtocolSource::new("p/1", manifest, files).and_then(Protocol::compile)
}

fn accepts(protocol: &Protocol, value: Value) -> bool {
    protocol
        .validate("m", Part::Result, Some(&value))
        .is_empty()
}

#[test]
fn a_ref_beside_all_of_is_checked() {
    let p = protocol(
        "x.json#/$defs/R",
        &[(
            "x.json",
            json!({"$defs": {"Name": {"type": "string"}, "R": {"type": "object", "properties": {"a": {"$ref": "#/$defs/Name", "allOf": [{}]}}}}}),
        )],
        Value::Null,
    );
    assert!(!accepts(&p, json!({"a": 1})));
    assert!(accepts(&p, json!({"a": "x"})));
}

#[test]
fn an_anchor_names_its_schema_not_a_pointer() {
    let p = protocol(
        "node.json",
        &[(
            "node.json",
            json!({"title": "Node", "type": "object", "$defs": {"Nodes": {"type": "array"}, "Str": {"$anchor": "s", "type": "string"}}, "properties": {"name": {"$ref": "#s"}}}),
        )],
        Value::Null,
    );
    assert!(!accepts(&p, json!({"name": []})));
    assert!(accepts(&p, json!({"name": "x"})));
}

#[test]
fn a_root_ref_under_a_member_named_default_is_its_own_file() {
    let p = protocol(
        "a.json",
        &[
            (
                "a.json",
                json!({"title": "A", "type": "object", "properties": {"child": {"$ref": "b.json"}}}),
            ),
            (
                "b.json",
                json!({"title": "B", "type": "object", "required": ["k"], "properties": {"default": {"$ref": "#"}}}),
            ),
        ],
        Value::Null,
    );
    assert!(!accepts(&p, json!({"child": {"k": 1, "default": {}}})));
    assert!(accepts(&p, json!({"child": {"k": 1, "default": {"k": 2}}})));
}

#[test]
fn schemas_the_standard_allows_load() {
    // A relative `$id` base, a URN, a percent-escaped pointer, `#foo` in
    // another file, a boolean file root, one `$defs` name in two files.
    let p = protocol(
        "root.json#/$defs/R",
        &[
            (
                "root.json",
                json!({"$id": "folder/root.json", "$defs": {
                    "R": {"type": "object", "properties": {
                        "sibling": {"$ref": "sibling.json"},
                        "urn": {"$ref": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#/$defs/Flag"},
                        "percent": {"$ref": "#/$defs/percent%25field"},
                        "anchor": {"$ref": "other.json#thing"},
                        "never": {"$ref": "false.json"},
                        "t": {"$ref": "#/$defs/T"},
                        "bt": {"$ref": "other.json#/$defs/T"}
                    }},
                    "percent%field": {"type": "integer"},
                    "T": {"type": "string"}
                }}),
            ),
            ("folder/sibling.json", json!({"type": "number"})),
            (
                "urn.json",
                json!({"$id": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed", "$defs": {"Flag": {"type": "boolean"}}}),
            ),
            (
                "folder/other.json",
                json!({"$defs": {"Thing": {"$anchor": "thing", "const": 7}, "T": {"type": "null"}}}),
            ),
            ("folder/false.json", json!(false)),
        ],
        Value::Null,
    );
    assert!(accepts(
        &p,
        json!({"sibling": 1.5, "urn": true, "percent": 3, "anchor": 7, "t": "x", "bt": null})
    ));
    for wrong in [
        json!({"sibling": "x"}),
        json!({"urn": 1}),
        json!({"percent": 1.5}),
        json!({"anchor": 8}),
        json!({"never": 1}),
        json!({"t": null}),
        json!({"bt": "x"}),
    ] {
        assert!(!accepts(&p, wrong.clone()), "{wrong} must be refused");
    }
}

#[test]
fn a_base_uri_finds_files_by_their_published_address() {
    let p = protocol(
        "api.json",
        &[
            (
                "api.json",
                json!({"type": "object", "properties": {"c": {"$ref": "https://example.com/schemas/common/count.json"}}}),
            ),
            (
                "common/count.json",
                json!({"type": "integer", "minimum": 0}),
            ),
        ],
        json!({"base_uri": "https://example.com/schemas/"}),
    );
    assert!(accepts(&p, json!({"c": 2})));
    assert!(!accepts(&p, json!({"c": -1})));
    let error = try_protocol(
        "api.json",
        &[
            (
                "api.json",
                json!({"type": "object", "properties": {"c": {"$ref": "https://example.com/schemas/common/count.json"}}}),
            ),
            ("common/count.json", json!({"type": "integer"})),
        ],
        Value::Null,
    )
    .expect_err("without the base, the address is not among the files");
    assert_eq!(error.kind(), ProtocolErrorKind::BadReference);
    assert_eq!(error.file(), "p/1/api.json");
    assert_eq!(error.pointer(), "/properties/c/$ref");
    assert!(
        error.message().contains("json_schema.base_uri"),
        "{}",
        error.message()
    );
}

#[test]
fn a_draft_07_file_is_read_as_draft_07() {
    let files = [(
        "s.json",
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": [{"type": "string"}], "additionalItems": false, "definitions": {"N": {"type": "null"}}}),
    )];
    let p = protocol("s.json", &files, Value::Null);
    assert!(accepts(&p, json!(["x"])));
    assert!(!accepts(&p, json!(["x", 1])));
    assert!(!accepts(&p, json!([1])));
    // A file without `$schema` takes the manifest's dialect.
    let mut bare = files[0].1.clone();
    bare.as_object_mut().expect("object").remove("$schema");
    let p = protocol(
        "s.json",
        &[("s.json", bare.clone())],
        json!({"dialect": "http://json-schema.org/draft-07/schema#"}),
    );
    assert!(!accepts(&p, json!(["x", 1])));
    // In draft 2020-12 `items` must be a schema: the array form is refused at load.
    assert!(try_protocol("s.json", &[("s.json", bare)], Value::Null).is_err());
}

#[test]
fn formats_assert_only_when_the_manifest_says_so() {
    let files = [("s.json", json!({"type": "string", "format": "date"}))];
    let annotated = protocol("s.json", &files, Value::Null);
    assert!(accepts(&annotated, json!("not a date")));
    let asserted = protocol("s.json", &files, json!({"formats": "assert"}));
    assert!(!accepts(&asserted, json!("not a date")));
    assert!(accepts(&asserted, json!("2026-12-04")));
}

#[test]
fn an_unknown_dialect_is_refused_with_its_name() {
    let error = try_protocol(
        "s.json",
        &[(
            "s.json",
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "string"}),
        )],
        Value::Null,
    )
    .expect_err("draft 4");
    assert_eq!(error.file(), "p/1/s.json");
    assert_eq!(error.pointer(), "/$schema");
    assert!(error.message().contains("draft-04"), "{}", error.message());
}
