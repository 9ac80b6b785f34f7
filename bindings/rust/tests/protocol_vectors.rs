#![allow(clippy::panic)]

//! Runs every case of `tests/vectors/protocols/<protocol>@<version>/<method>.json`:
//! valid values must pass their schema and rules; invalid ones must fail with
//! exactly the listed (pointer, keyword) pairs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use wirekit::protocol::Registry;
use wirekit::validate::{Part, Protocol};

/// Cases known to fail, as `protocol@version/method/case name`, with the reason.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/protocols")
}

fn part(name: &str) -> Part {
    match name {
        "params" => Part::Params,
        "result" => Part::Result,
        "item" => Part::Item,
        "error_data" => Part::ErrorData,
        other => panic!("unknown part {other}"),
    }
}

#[test]
fn every_protocol_vector_case() {
    let registry = Registry::from_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas"))
        .expect("schemas load");
    let mut protocols: std::collections::HashMap<String, Arc<Protocol>> = Default::default();
    let mut failures = Vec::new();
    let mut ran = 0usize;
    let mut dirs: Vec<_> = std::fs::read_dir(vectors_dir())
        .expect("vectors dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("dir")
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for file in files
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "json"))
        {
            let text = std::fs::read_to_string(&file).expect("read");
            let doc: Value = serde_json::from_str(&text).expect("vector file is JSON");
            let id = format!(
                "{}@{}",
                doc["protocol"].as_str().expect("protocol"),
                doc["version"].as_str().expect("version")
            );
            let protocol = protocols
                .entry(id.clone())
                .or_insert_with(|| {
                    Arc::new(
                        Protocol::compile(registry.get(&id).expect("known protocol").clone())
                            .expect("compiles"),
                    )
                })
                .clone();
            let method = doc["method"].as_str().expect("method");
            assert!(
                protocol.method(method).is_some(),
                "{}: {id} has no method {method}",
                file.display()
            );
            for case in doc["cases"].as_array().expect("cases") {
                let name = case["name"].as_str().expect("name");
                let label = format!("{id}/{method}/{name}");
                let value = match &case["value"] {
                    Value::Null if case["part"] == "params" => None,
                    other => Some(other),
                };
                let issues =
                    protocol.validate(method, part(case["part"].as_str().expect("part")), value);
                let got: BTreeSet<(String, String)> = issues
                    .iter()
                    .map(|i| (i.instance_path.clone(), i.keyword().to_owned()))
                    .collect();
                let expected: BTreeSet<(String, String)> = if case["valid"] == Value::Bool(true) {
                    BTreeSet::new()
                } else {
                    case["errors"]
                        .as_array()
                        .expect("invalid case lists errors")
                        .iter()
                        .map(|e| {
                            (
                                e["pointer"].as_str().unwrap_or("").to_owned(),
                                e["keyword"].as_str().unwrap_or("").to_owned(),
                            )
                        })
                        .collect()
                };
                if case["valid"] == Value::Bool(false) {
                    assert!(
                        !expected.is_empty(),
                        "{label}: an invalid case must list its errors"
                    );
                }
                ran += 1;
                let known = KNOWN_FAILURES.iter().any(|(k, _)| *k == label);
                if (got != expected) != known {
                    failures.push(format!("{label}\n    expected {expected:?}\n    got      {got:?}\n    issues   {issues:?}"));
                }
            }
        }
    }
    assert!(ran > 100, "only {ran} protocol cases ran");
    assert!(
        failures.is_empty(),
        "{} of {ran} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
