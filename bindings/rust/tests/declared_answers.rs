//! The errors a server produces itself come from the manifest's
//! `server_errors`, and a protocol whose own answers would break its error
//! schemas is refused when it loads, naming the manifest and the pointer.

// A test harness reports a failed expectation by panicking.
#![allow(clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use wirekit::protocol::{ErrorCase, ProtocolErrorKind, ProtocolSource};
use wirekit::validate::Protocol;

fn schemas() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas")
}

/// A copy of a shipped protocol folder with its manifest edited.
fn edited(
    origin: &str,
    edit: impl FnOnce(&mut Value),
) -> Result<Protocol, wirekit::protocol::ProtocolError> {
    let source = schemas().join(origin);
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "wirekit-declared-answers-{}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        origin.replace('/', "-")
    ));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    for entry in std::fs::read_dir(&source).unwrap_or_else(|e| panic!("{e}")) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        let name = path.file_name().unwrap_or_default().to_owned();
        std::fs::copy(&path, dir.join(name)).unwrap_or_else(|e| panic!("{e}"));
    }
    let manifest_path = dir.join("protocol.json");
    let text = std::fs::read_to_string(&manifest_path).unwrap_or_else(|e| panic!("{e}"));
    let mut manifest: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    edit(&mut manifest);
    std::fs::write(&manifest_path, manifest.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let loaded = ProtocolSource::from_dir(&dir, origin).and_then(Protocol::compile);
    let _ = std::fs::remove_dir_all(&dir);
    loaded
}

fn refused_at(origin: &str, edit: impl FnOnce(&mut Value)) -> (String, String, String) {
    match edited(origin, edit) {
        Ok(_) => panic!("{origin}: the edited protocol loaded"),
        Err(error) => {
            assert_eq!(error.kind(), ProtocolErrorKind::Inconsistent, "{error}");
            (
                error.file().to_owned(),
                error.pointer().to_owned(),
                error.message().to_owned(),
            )
        }
    }
}

#[test]
fn the_shipped_protocols_load_with_their_declared_answers() {
    for origin in [
        "agentapi-driver/1",
        "gzkit-authoring-guide/1.0",
        "gaze-analyzer/1.1.0",
    ] {
        assert!(edited(origin, |_| {}).is_ok(), "{origin}");
    }
}

#[test]
fn a_driver_answer_without_a_class_is_refused_with_file_and_pointer() {
    let (file, pointer, message) = refused_at("agentapi-driver/1", |m| {
        m["server_errors"]["invalid_params"] = json!({"data": {"errors": "{errors}"}});
    });
    assert_eq!(file, "agentapi-driver/1/protocol.json");
    assert_eq!(pointer, "/server_errors/invalid_params");
    assert!(message.contains("error/data"), "{message}");
}

#[test]
fn a_driver_by_kind_answer_with_an_unknown_class_is_refused() {
    let (_, pointer, _) = refused_at("agentapi-driver/1", |m| {
        m["server_errors"]["framing"]["by_kind"]["FrameTooLong"] =
            json!({"data": {"class": "too_big"}});
    });
    assert_eq!(pointer, "/server_errors/framing/by_kind/FrameTooLong");
}

#[test]
fn a_driver_without_declared_answers_is_refused_since_the_defaults_carry_no_class() {
    let (_, pointer, _) = refused_at("agentapi-driver/1", |m| {
        if let Some(object) = m.as_object_mut() {
            object.remove("server_errors");
        }
    });
    assert_eq!(pointer, "/server_errors/parse_error");
}

#[test]
fn gzkit_answers_with_data_are_refused_since_its_error_object_forbids_data() {
    let (_, pointer, message) = refused_at("gzkit-authoring-guide/1.0", |m| {
        m["server_errors"]["invalid_params"] = json!({"data": {"errors": "{errors}"}});
    });
    assert_eq!(pointer, "/server_errors/invalid_params");
    assert!(message.contains("additionalProperties"), "{message}");
    let (_, pointer, _) = refused_at("gzkit-authoring-guide/1.0", |m| {
        m["lifecycle"]["violation"]["data"] = json!({"state": "{state}"});
    });
    assert_eq!(pointer, "/lifecycle/violation");
}

#[test]
fn the_driver_shapes_every_case_with_a_stable_class() {
    let driver = wirekit_protocols::protocol("agentapi-driver").unwrap_or_else(|e| panic!("{e}"));
    let classes: Vec<(ErrorCase, Option<&str>, &str)> = vec![
        (ErrorCase::ParseError, Some("Parse"), "invalid_request"),
        (
            ErrorCase::InvalidRequest,
            Some("DuplicateKey"),
            "invalid_request",
        ),
        (
            ErrorCase::InvalidRequest,
            Some("WrongJsonRpcVersion"),
            "unsupported_rpc_version",
        ),
        (
            ErrorCase::Framing,
            Some("BareCarriageReturn"),
            "invalid_request",
        ),
        (ErrorCase::Framing, Some("FrameTooLong"), "budget_exceeded"),
        (ErrorCase::MethodNotFound, None, "invalid_request"),
        (ErrorCase::InvalidParams, None, "invalid_request"),
        (ErrorCase::InternalError, None, "driver_internal"),
        (ErrorCase::AnswerTooLong, None, "budget_exceeded"),
        (ErrorCase::Rule, None, "invalid_request"),
    ];
    for (case, kind, class) in classes {
        let answer = driver.error_answer(case, kind, "m".into(), &case.samples());
        assert_eq!(
            answer.data.as_ref().and_then(|d| d.get("class")),
            Some(&json!(class)),
            "{case:?} {kind:?}"
        );
        assert!(driver.validate_error(&answer).is_empty(), "{case:?}");
    }
}
