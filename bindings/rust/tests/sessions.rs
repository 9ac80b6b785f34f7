//! Replays every capture in `tests/sessions/<protocol>@<version>/` through
//! the session checker; the (frame, kind, pointer) problems found must be
//! exactly those of its `.expect.json`.

#![cfg(feature = "monitor")]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use wirekit::monitor::{Problem, Severity};
use wirekit::validate::Protocol;

fn sessions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sessions")
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.sort();
    paths
}

type Found = BTreeSet<(usize, String, Option<String>)>;

fn check_capture(protocol: &Arc<Protocol>, capture: &Path) -> Found {
    problems_of(protocol, capture)
        .iter()
        .map(|p| (p.frame, p.kind.name().to_owned(), p.pointer.clone()))
        .collect()
}

fn problems_of(protocol: &Arc<Protocol>, capture: &Path) -> Vec<Problem> {
    let bytes = std::fs::read(capture).expect("capture");
    wirekit::monitor::judge(protocol, &bytes, None).problems
}

#[test]
fn every_captured_session_gives_exactly_its_expected_problems() {
    let mut failures = Vec::new();
    let mut ran = 0usize;
    for dir in sorted_entries(&sessions_dir())
        .into_iter()
        .filter(|p| p.is_dir())
    {
        let id = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
            .to_owned();
        let protocol =
            wirekit_protocols::protocol(&id).expect("protocol of the folder is embedded");
        for expect in sorted_entries(&dir)
            .into_iter()
            .filter(|p| p.to_string_lossy().ends_with(".expect.json"))
        {
            let stem = expect
                .to_string_lossy()
                .trim_end_matches(".expect.json")
                .to_owned();
            let capture = [".ndjson", ".bin"]
                .iter()
                .map(|ext| PathBuf::from(format!("{stem}{ext}")))
                .find(|p| p.is_file());
            let capture = capture.expect("each expectation has its capture");
            let doc: Value = serde_json::from_str(&std::fs::read_to_string(&expect).expect("read"))
                .expect("JSON");
            assert_eq!(doc["protocol"], id.as_str(), "{}", expect.display());
            let expected: Found = doc["problems"]
                .as_array()
                .expect("problems")
                .iter()
                .map(|p| {
                    let frame = p["frame"].as_u64().expect("frame") as usize;
                    (
                        frame,
                        p["kind"].as_str().expect("kind").to_owned(),
                        p["pointer"].as_str().map(str::to_owned),
                    )
                })
                .collect();
            let found = check_capture(&protocol, &capture);
            ran += 1;
            if found != expected {
                failures.push(format!(
                    "{}\n    expected {expected:?}\n    found    {found:?}",
                    capture.display()
                ));
            }
        }
    }
    assert!(ran >= 20, "only {ran} sessions ran");
    assert!(
        failures.is_empty(),
        "{} of {ran} sessions differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The real pylsp recording with its `SymbolKind` 12 (Function) replaced,
/// byte for byte (the frames keep their lengths).
fn pylsp_with_kind(kind: &[u8; 2]) -> (Arc<Protocol>, PathBuf) {
    pylsp_announcing(kind, None)
}

/// [`pylsp_with_kind`], the client's `documentSymbol` capabilities
/// announcing `symbol_kinds` as its `symbolKind.valueSet` where given (the
/// `initialize` frame framed anew).
fn pylsp_announcing(kind: &[u8; 2], symbol_kinds: Option<&[u32]>) -> (Arc<Protocol>, PathBuf) {
    let protocol = wirekit_protocols::protocol("lsp@3.17").expect("embedded");
    let real = sessions_dir().join("lsp@3.17/real-pylsp.bin");
    let mut bytes = std::fs::read(&real).expect("capture");
    if let Some(kinds) = symbol_kinds {
        bytes = announce_symbol_kinds(&bytes, kinds);
    }
    let from = b"\"kind\":12";
    let mut changed = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at..].starts_with(from) {
            changed.extend_from_slice(b"\"kind\":");
            changed.extend_from_slice(kind);
            at += from.len();
        } else {
            changed.push(bytes[at]);
            at += 1;
        }
    }
    assert!(
        kind == b"12" || changed != bytes,
        "the recording holds symbols of kind 12"
    );
    let path = std::env::temp_dir().join(format!(
        "wirekit-pylsp-kind-{}-{}-{}.bin",
        String::from_utf8_lossy(kind).trim(),
        symbol_kinds.map_or(0, <[u32]>::len),
        std::process::id()
    ));
    std::fs::write(&path, changed).expect("write");
    (protocol, path)
}

/// LSP's enumerations without `supportsCustomValues` are closed: a
/// `SymbolKind` outside 1..26 in a real server's answer is an invalid
/// result (at `/result`: the answer is a union of symbol lists, and neither
/// alternative takes it), and the same recording with a valid kind is clean.
#[test]
fn a_symbol_kind_outside_the_model_is_refused_in_a_real_recording() {
    for kind in [b"0 ", b"27"] {
        let (protocol, path) = pylsp_with_kind(kind);
        let found = check_capture(&protocol, &path);
        let _ = std::fs::remove_file(&path);
        assert!(!found.is_empty(), "kind {kind:?} passed");
        assert!(
            found
                .iter()
                .all(|(_, problem, pointer)| problem == "invalid_result"
                    && pointer.as_deref().is_some_and(|p| p.starts_with("/result"))),
            "kind {kind:?}: {found:?}"
        );
    }
    let (protocol, path) = pylsp_with_kind(b"13");
    let found = check_capture(&protocol, &path);
    let _ = std::fs::remove_file(&path);
    assert!(found.is_empty(), "a valid kind (13, Variable): {found:?}");
}

/// The recording with its first frame (`initialize`) announcing `kinds` in
/// `capabilities.textDocument.documentSymbol.symbolKind.valueSet`, framed
/// anew; the other frames byte for byte.
fn announce_symbol_kinds(bytes: &[u8], kinds: &[u32]) -> Vec<u8> {
    let header_end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header")
        + 4;
    let header = std::str::from_utf8(&bytes[..header_end]).expect("text header");
    let length: usize = header
        .trim()
        .strip_prefix("Content-Length: ")
        .and_then(|n| n.parse().ok())
        .expect("Content-Length");
    let body = &bytes[header_end..header_end + length];
    let mut initialize: Value = serde_json::from_slice(body).expect("JSON");
    assert_eq!(initialize["method"], "initialize");
    initialize["params"]["capabilities"]["textDocument"]["documentSymbol"]["symbolKind"] =
        serde_json::json!({ "valueSet": kinds });
    let body = serde_json::to_vec(&initialize).expect("encode");
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(&body);
    out.extend_from_slice(&bytes[header_end + length..]);
    out
}

/// The client's announced value set is what the server is held to
/// (`value_sets` in the manifest): in the real pylsp recording, Struct (23)
/// is a kind of the model, but the client announced no
/// `symbolKind.valueSet`, so it supports only 1..18: a warning naming the
/// default. Announcing 1..26 makes the recording clean; announcing 1..12
/// makes 13 (Variable) the warning, naming where it was announced.
#[test]
fn a_symbol_kind_the_client_did_not_announce_is_a_warning_in_a_real_recording() {
    let (protocol, path) = pylsp_with_kind(b"23");
    let problems = problems_of(&protocol, &path);
    let _ = std::fs::remove_file(&path);
    assert!(
        !problems.is_empty(),
        "Struct passed a client supporting 1..18"
    );
    for problem in &problems {
        assert_eq!(problem.kind.name(), "unannounced_value", "{problem}");
        assert_eq!(problem.severity, Severity::Warning, "{problem}");
        assert_eq!(problem.blame.name(), "server", "{problem}");
        let pointer = problem.pointer.as_deref().unwrap_or("");
        assert!(
            pointer.starts_with("/result/") && pointer.ends_with("/kind"),
            "{problem}"
        );
        assert!(
            problem.message.contains("SymbolKind 23")
                && problem.message.contains("1–18, the protocol's default"),
            "{problem}"
        );
    }

    let all: Vec<u32> = (1..=26).collect();
    let (protocol, path) = pylsp_announcing(b"23", Some(&all));
    let found = check_capture(&protocol, &path);
    let _ = std::fs::remove_file(&path);
    assert!(found.is_empty(), "1..26 announced: {found:?}");

    let few: Vec<u32> = (1..=12).collect();
    let (protocol, path) = pylsp_announcing(b"13", Some(&few));
    let problems = problems_of(&protocol, &path);
    let _ = std::fs::remove_file(&path);
    assert!(!problems.is_empty(), "13 passed a client announcing 1..12");
    for problem in &problems {
        assert_eq!(problem.kind.name(), "unannounced_value", "{problem}");
        assert!(
            problem.message.contains(
                "announced at /params/capabilities/textDocument/documentSymbol/symbolKind/valueSet (1–12)"
            ),
            "{problem}"
        );
    }
    // The kind the recording had (12, Function) is among 1..12.
    let (protocol, path) = pylsp_announcing(b"12", Some(&few));
    let found = check_capture(&protocol, &path);
    let _ = std::fs::remove_file(&path);
    assert!(found.is_empty(), "12 in 1..12: {found:?}");
}
