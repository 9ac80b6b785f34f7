//! Runs every case in `tests/vectors/envelope/*.json` (see
//! `tests/vectors/README.md`, section `envelope`).

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use wirekit::envelope::{
    decode, encode, encode_canonical, Dialect, EnvelopeErrorKind, EnvelopeOptions, Id,
};

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/envelope")
}

fn hex_decode(hex: &str) -> Result<Vec<u8>, String> {
    if hex.len() % 2 != 0 {
        return Err(format!("odd-length hex {hex:?}"));
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| format!("bad hex at {i}"))
        })
        .collect()
}

fn id_json(id: Option<&Id>) -> Value {
    id.map_or(Value::Null, Id::to_value)
}

/// Checks one case; returns a description of every mismatch.
fn run_case(case: &Value, seen_errors: &mut BTreeSet<String>) -> Result<(), String> {
    let dialect: Dialect = case["dialect"]
        .as_str()
        .ok_or("no dialect")?
        .parse()
        .map_err(|e| format!("{e}"))?;
    let strict = case["strict"].as_bool().ok_or("no strict flag")?;
    let opts = EnvelopeOptions { dialect, strict };
    let input = match (case.get("input"), case.get("input_hex")) {
        (Some(Value::String(text)), None) => text.as_bytes().to_vec(),
        (None, Some(Value::String(hex))) => hex_decode(hex)?,
        _ => return Err("exactly one of input and input_hex is required".into()),
    };
    let expect = &case["expect"];
    let decoded = decode(&input, &opts);
    if let Some(kind) = expect.get("error") {
        let error = match decoded {
            Ok(message) => return Err(format!("decoded as {message:?}, expected an error")),
            Err(error) => error,
        };
        let kind = kind.as_str().ok_or("error is not a string")?;
        seen_errors.insert(kind.to_owned());
        let mut problems = Vec::new();
        if error.kind().as_str() != kind {
            problems.push(format!("kind {} != {kind}", error.kind()));
        }
        if Some(error.code().0) != expect["code"].as_i64() {
            problems.push(format!("code {} != {}", error.code(), expect["code"]));
        }
        if Some(error.pointer()) != expect["pointer"].as_str() {
            problems.push(format!(
                "pointer {:?} != {}",
                error.pointer(),
                expect["pointer"]
            ));
        }
        if id_json(error.id()) != expect["answer_id"] {
            problems.push(format!(
                "answer id {} != {}",
                id_json(error.id()),
                expect["answer_id"]
            ));
        }
        let answer = error.to_response();
        if answer.id.as_ref() != error.id()
            || answer.outcome.as_ref().err().map(|e| e.code) != Some(error.code().0)
        {
            problems.push("to_response disagrees with the error".into());
        }
        if problems.is_empty() {
            return Ok(());
        }
        return Err(format!("{} ({})", problems.join("; "), error.message()));
    }
    let message = decoded.map_err(|e| format!("unexpected error {:?}", e))?;
    let mut problems = Vec::new();
    if Some(message.kind().as_str()) != expect["kind"].as_str() {
        problems.push(format!("kind {} != {}", message.kind(), expect["kind"]));
    }
    if id_json(message.id()) != expect["id"] {
        problems.push(format!("id {} != {}", id_json(message.id()), expect["id"]));
    }
    // A lenient protocol's discouraged id (fractional, null) comes with a
    // warning; every other id with none.
    let warning = message.id().and_then(Id::discouraged).map(|_| {
        if message.id() == Some(&Id::Null) {
            "NullId"
        } else {
            "FractionalId"
        }
    });
    if warning != expect.get("warning").and_then(Value::as_str) {
        problems.push(format!("warning {warning:?} != {}", expect["warning"]));
    }
    let method = message.method().map_or(Value::Null, Value::from);
    if method != expect["method"] {
        problems.push(format!("method {method} != {}", expect["method"]));
    }
    let encoded = encode(&message, &opts);
    if let Some(reencode) = case.get("reencode") {
        let reencode = reencode.as_str().ok_or("reencode is not a string")?;
        if encoded != reencode.as_bytes() {
            problems.push(format!(
                "reencode\n   got {}\n  want {reencode}",
                String::from_utf8_lossy(&encoded)
            ));
        }
    }
    // Whatever the case, the encoding must decode to the same message.
    match decode(&encoded, &opts) {
        Ok(again) if again == message => {}
        other => problems.push(format!("encoding does not round-trip: {other:?}")),
    }
    let canonical = encode_canonical(&message, &opts);
    match (
        case.get("canonical"),
        case.get("canonical_error"),
        &canonical,
    ) {
        (Some(want), None, Ok(got)) => {
            if Some(got.as_slice()) != want.as_str().map(str::as_bytes) {
                problems.push(format!(
                    "canonical\n   got {}\n  want {want}",
                    String::from_utf8_lossy(got)
                ));
            }
        }
        (None, Some(want), Err(error)) => {
            if want["error"].as_str() != Some(error.kind().as_str())
                || want["pointer"].as_str() != Some(error.pointer())
            {
                problems.push(format!("canonical error {error:?} != {want}"));
            }
            seen_errors.insert(error.kind().as_str().to_owned());
        }
        (None, None, _) => {}
        (want, want_error, got) => problems.push(format!(
            "canonical: expected {want:?} / {want_error:?}, got {got:?}"
        )),
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

#[test]
fn every_envelope_vector_passes() {
    let mut files: Vec<PathBuf> = fs::read_dir(vectors_dir())
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    assert!(!files.is_empty(), "no vector files in {:?}", vectors_dir());

    let mut failures = Vec::new();
    let mut seen_errors = BTreeSet::new();
    let mut names = BTreeSet::new();
    let mut count = 0;
    for path in &files {
        let file_name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let text = fs::read_to_string(path).unwrap_or_default();
        let document: Value = match serde_json::from_str(&text) {
            Ok(document) => document,
            Err(e) => {
                failures.push(format!("{file_name}: not JSON: {e}"));
                continue;
            }
        };
        assert!(
            document["description"].is_string(),
            "{file_name}: no description"
        );
        for case in document["cases"].as_array().into_iter().flatten() {
            count += 1;
            let name = case["name"].as_str().unwrap_or("<unnamed>");
            if !names.insert(format!("{file_name}/{name}")) {
                failures.push(format!("{file_name}: duplicate case name {name:?}"));
            }
            if let Err(problem) = run_case(case, &mut seen_errors) {
                failures.push(format!("{file_name}: {name}: {problem}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let unseen: Vec<&str> = EnvelopeErrorKind::ALL
        .iter()
        .map(|kind| kind.as_str())
        .filter(|kind| !seen_errors.contains(*kind))
        .collect();
    assert!(unseen.is_empty(), "no vector covers {unseen:?}");
}

#[test]
fn gzkit_worked_examples_have_the_specified_lengths() {
    let text = fs::read_to_string(vectors_dir().join("gzkit.json")).unwrap_or_default();
    let document: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let lengths: Vec<usize> = document["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|case| {
            case["name"].as_str().is_some_and(|name| {
                name.starts_with("gzkit example") && !name.ends_with("(strict)")
            })
        })
        .filter_map(|case| case["input"].as_str().map(str::len))
        .collect();
    assert_eq!(lengths, [63, 62, 76, 333, 63, 129]);
}
