//! A bad schema gets a clear error (file, JSON pointer, what is wrong,
//! which target), never a panic, including where typify itself panics.

use serde_json::{json, Value};
use wirekit_codegen::bundle::SchemaFile;
use wirekit_codegen::{generate_for, protocol, ErrorKind, Target};

fn one_type(schema: Value) -> Vec<SchemaFile> {
    vec![SchemaFile {
        name: "x.json".into(),
        display: "schemas/x/1/x.json".into(),
        json: json!({ "$defs": { "X": schema } }),
    }]
}

fn rust_error(schema: Value) -> wirekit_codegen::Error {
    let p = match protocol::from_files("x", one_type(schema)) {
        Ok(p) => p,
        Err(e) => return e,
    };
    match generate_for(&[p], &[Target::Rust], false) {
        Ok(_) => wirekit_codegen::Error::new(ErrorKind::Io, "no error"),
        Err(e) => e,
    }
}

#[test]
fn typify_panic_is_caught_and_located() {
    let e = rust_error(json!({ "if": { "type": "string" }, "then": { "minLength": 1 } }));
    assert_eq!(e.kind(), ErrorKind::Typify);
    assert_eq!(e.file(), Some("schemas/x/1/x.json"));
    assert_eq!(e.pointer(), Some("/$defs/X"));
    assert_eq!(e.target(), Some(Target::Rust));
    let text = e.to_string();
    assert!(text.contains("typify panicked on type `X`"), "{text}");
    assert!(text.contains("if/then/else"), "{text}");
    assert!(text.ends_with("(target: rust)"), "{text}");
}

#[test]
fn colliding_enum_variants_are_reported() {
    let e = rust_error(json!({ "type": "string", "enum": ["a-b", "a_b"] }));
    assert_eq!(e.kind(), ErrorKind::Typify);
    assert!(e.message().contains("unique variant names"), "{e}");
}

#[test]
fn typify_rejection_is_located() {
    let e = rust_error(
        json!({ "type": "object", "properties": { "x": { "type": "string", "enum": ["a"], "default": "b" } } }),
    );
    assert_eq!(e.kind(), ErrorKind::Typify);
    assert_eq!(e.pointer(), Some("/$defs/X"), "{e}");
}

#[test]
fn dangling_ref_names_file_and_pointer() {
    let e = rust_error(
        json!({ "type": "object", "properties": { "a": { "$ref": "#/$defs/Missing" } } }),
    );
    assert_eq!(e.kind(), ErrorKind::Reference);
    assert_eq!(
        e.to_string(),
        "schemas/x/1/x.json#/$defs/X/properties/a/$ref: `#/$defs/Missing` does not resolve: the document it names has nothing at `/$defs/Missing`"
    );
}

#[test]
fn unknown_type_is_unsupported() {
    let e = rust_error(json!({ "type": "object", "properties": { "a": { "type": "strnig" } } }));
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert_eq!(e.pointer(), Some("/$defs/X/properties/a/type"));
    assert!(e.message().contains("strnig"));
}

#[test]
fn string_formats_stay_strings() {
    let p = protocol::from_files(
        "x",
        one_type(json!({ "type": "string", "format": "date-time" })),
    );
    let text = p
        .and_then(|p| wirekit_codegen::rust::module(&p, "::wirekit"))
        .map_err(|e| e.to_string());
    assert!(
        text.as_ref().is_ok_and(|t| !t.contains("chrono")),
        "{text:?}"
    );
}
