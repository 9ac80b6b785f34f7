//! The AgentAPI driver judged by its protocol's reference package
//! (`pkg/driverprotocol` of whyiug/agentapi-doctor; there is no Go toolchain
//! here, so `examples/driver_catalogue/reference.rs` ports it line by line):
//! the catalogue of control frames, good and faulty, sent in every phase to
//! the driver on the Rust serve loop (`cli/examples/rust_driver.rs`), every
//! answer decoded by the package's decoder and every verdict compared with
//! what a driver built on the package does (the Python driver's run is
//! `examples/python-driver/tests/test_reference_catalogue.py`). Then the
//! reference's refusals run through our decoder.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

#[path = "../examples/driver_catalogue/catalogue.rs"]
mod catalogue;
#[path = "../examples/driver_catalogue/reference.rs"]
mod reference;

use reference::check_response as reference;

/// An example's binary: cargo builds a package's examples with its tests.
fn example(name: &str) -> PathBuf {
    let wirekit = PathBuf::from(env!("CARGO_BIN_EXE_wirekit"));
    let dir = wirekit.parent().expect("target dir");
    dir.join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

#[test]
fn every_verdict_of_the_rust_driver_on_the_catalogue_is_the_reference_packages() {
    let dir = std::env::temp_dir().join(format!("wirekit-catalogue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    // The invocation that holds INVOKING: 32 chunks of 64 KiB, 300 ms apart.
    let input = dir.join("input.bin");
    std::fs::write(&input, vec![7u8; 32 << 16]).expect("input");
    let output = Command::new(example("driver_catalogue"))
        .args(["--op", "fs.digest", "--input"])
        .arg(format!("{}?delay_ms=300", input.display()))
        .arg("--")
        .arg(example("rust_driver"))
        .output()
        .expect("the catalogue runs");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = report.lines().last().unwrap_or_default();
    assert!(
        summary.starts_with("driver catalogue: 80 frames in 4 phases, 320 verdicts agree"),
        "{report}"
    );
    println!("{summary}");
}

const HELLO_PARAMS: &str = r#"{"core_version_range":{"minimum":"1.0.0","maximum":"1.0.0"}}"#;

#[test]
fn our_driver_decoder_refuses_what_the_reference_decoder_refuses() {
    let protocol = wirekit_protocols::protocol("agentapi-driver").expect("embedded");
    let options = protocol.manifest().transport.envelope_options();
    // Each refused by the reference's DecodeControlFrame (codec.go, protocol.go).
    // (`{"id":null,"result":...}` is not here: the envelope layer takes a
    // null id in any response, as JSON-RPC 2.0 answers an unreadable request
    // so (tests/vectors/envelope/ids.json); the session refuses it, below.)
    let refused = [
        r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1e21,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":true,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m","data":{"class":"invalid_request"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"params":{},"result":{}}"#,
        r#"{"jsonrpc":"2.0","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"driver.reset","params":{},"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"driver.reset","params":"x"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"driver.reset","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"driver.reset","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"driver.reset","params":{},"x":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"driver.reset","params":{}} {}"#,
        r#"[{"jsonrpc":"2.0","id":1,"method":"driver.reset","params":{}}]"#,
    ];
    let mut accepted = Vec::new();
    for text in refused {
        assert!(
            reference(text.as_bytes()).is_err() || text.contains("method"),
            "{text}"
        );
        if wirekit::envelope::decode(text.as_bytes(), &options).is_ok() {
            accepted.push(text);
        }
    }
    assert!(
        accepted.is_empty(),
        "the reference refuses these, our strict driver envelope takes them:\n{}",
        accepted.join("\n")
    );
}

/// `wirekit validate --protocol agentapi-driver --json` of `capture`: the
/// run and its problems.
fn validate_driver_capture(capture: &std::path::Path) -> (std::process::Output, Vec<Value>) {
    let output = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args(["validate", "--protocol", "agentapi-driver", "--json"])
        .arg(capture)
        .output()
        .expect("validate runs");
    let problems = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    (output, problems)
}

#[test]
fn a_success_answer_with_a_null_id_is_refused_by_the_session_as_the_reference_refuses_it() {
    let dir = std::env::temp_dir().join(format!("wirekit-driver-reference-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let capture = dir.join("null-id.ndjson");
    std::fs::write(
        &capture,
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"driver.hello\",\"params\":{HELLO_PARAMS}}}\n\
             {{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{{}}}}\n"
        ),
    )
    .expect("capture");
    let (output, problems) = validate_driver_capture(&capture);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        problems
            .iter()
            .any(|p| p["frame"] == 1 && p["kind"] == "unknown_id" && p["pointer"] == "/id"),
        "{problems:?}"
    );
}

/// A session with a driver built on the package, as it would go: the
/// catalogue in one session, each line answered as such a driver answers
/// it (no answer, or its id with an error of its class, with a code of its
/// own, or a result), written canonically as its encoder writes them.
fn package_transcript() -> Vec<u8> {
    let protocol = wirekit_protocols::protocol("agentapi-driver").expect("embedded");
    let op = catalogue::Operation {
        name: "fs.digest".into(),
        input: "/dev/null".into(),
    };
    let mut driver = reference::PackageDriver::default();
    let mut transcript = Vec::new();
    for (n, (name, line)) in catalogue::catalogue(&op).iter().enumerate() {
        // One stream holds both directions: what the core sends in the
        // driver's shapes (responses, driver notifications) would read as
        // the driver's own.
        if name.contains("response") || name == "a driver notification from the core" {
            continue;
        }
        transcript.extend_from_slice(line);
        let method = serde_json::from_slice::<Value>(line)
            .ok()
            .and_then(|m| m["method"].as_str().map(str::to_owned));
        let verdict = driver.answer(line);
        let reference::Verdict::Answer { id, class } = verdict else {
            continue;
        };
        let id: Value = serde_json::from_str(&id).expect("a canonical id");
        let answer = match class {
            // Codes of its own: the protocol fixes only the class.
            Some(class) => serde_json::json!({
                "jsonrpc": "2.0", "id": id,
                "error": {"code": -32000 - (n as i64 % 7), "message": "refused", "data": {"class": class}},
            }),
            None => {
                let method = method.expect("a request");
                let result =
                    protocol.manifest().methods[method.as_str()].examples[0]["result"].clone();
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})
            }
        };
        transcript
            .extend_from_slice(&serde_json_canonicalizer::to_vec(&answer).expect("canonical"));
        transcript.push(b'\n');
    }
    transcript
}

#[test]
fn a_transcript_of_a_driver_built_on_the_package_has_no_problem_of_the_drivers() {
    let dir =
        std::env::temp_dir().join(format!("wirekit-package-transcript-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let capture = dir.join("package.ndjson");
    std::fs::write(&capture, package_transcript()).expect("capture");
    let (output, problems) = validate_driver_capture(&capture);
    let drivers: Vec<&Value> = problems
        .iter()
        .filter(|p| {
            [
                "invalid_result",
                "accepted_invalid",
                "wrong_error",
                "unanswered",
                "duplicate_answer",
                "answered_notification",
                "unknown_id",
                "result_for_invalid_id",
            ]
            .contains(&p["kind"].as_str().unwrap_or(""))
        })
        .collect();
    assert!(drivers.is_empty(), "{drivers:#?}");
    // The catalogue's faulty frames are the core's problems.
    assert!(problems.len() > 30, "{problems:#?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains(", 0 by the server,"));
}

#[test]
fn a_clean_session_of_a_driver_built_on_the_package_validates_clean() {
    // The lifecycle with ids the package canonicalizes (RFC 8785): each
    // answer carries the canonical id, written as the package's encoder
    // writes it.
    let protocol = wirekit_protocols::protocol("agentapi-driver").expect("embedded");
    let prepare = catalogue::prepare_params();
    let calls: [(&str, &str, Option<&str>); 6] = [
        ("1e3", "driver.hello", Some(catalogue::HELLO)),
        ("30.0", "driver.capabilities", Some("{}")),
        ("9007199254740993", "driver.prepare", Some(&prepare)),
        (r#""\u0041""#, "driver.capabilities", None),
        ("-0", "driver.reset", Some("{}")),
        ("12345678901234567890", "driver.shutdown", None),
    ];
    let mut driver = reference::PackageDriver::default();
    let mut transcript = Vec::new();
    for (id, method, params) in calls {
        let mut line = catalogue::request(id, method, params);
        line.push(b'\n');
        transcript.extend_from_slice(&line);
        let verdict = driver.answer(&line);
        assert!(
            matches!(verdict, reference::Verdict::Answer { class: None, .. }),
            "a driver on the package answers {method} with a result, not {verdict}"
        );
        let reference::Verdict::Answer { id, .. } = verdict else {
            continue;
        };
        let id: Value = serde_json::from_str(&id).expect("a canonical id");
        let result = protocol.manifest().methods[method].examples[0]["result"].clone();
        let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
        transcript
            .extend_from_slice(&serde_json_canonicalizer::to_vec(&answer).expect("canonical"));
        transcript.push(b'\n');
    }
    let dir = std::env::temp_dir().join(format!("wirekit-package-clean-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let capture = dir.join("clean.ndjson");
    std::fs::write(&capture, &transcript).expect("capture");
    let output = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args(["validate", "--protocol", "agentapi-driver"])
        .arg(&capture)
        .output()
        .expect("validate runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&transcript)
    );
}

#[test]
fn the_port_matches_member_names_as_gos_encoding_json_does() {
    // Exact names first, else case-insensitively (`ſ` folds to `s`, the
    // Kelvin sign to `k`): the package takes these frames. wirekit's strict
    // envelope still refuses them (catalogue.rs leaves them out for that).
    let capitals = br#"{"JSONRPC":"2.0","ID":59,"METHOD":"driver.capabilities"}"#;
    let Ok(reference::Decoded::Request { id, method, .. }) =
        reference::decode_control_frame(capitals)
    else {
        unreachable!("the port refuses {}", String::from_utf8_lossy(capitals));
    };
    assert_eq!(
        (id, method.as_str()),
        (Value::from(59), "driver.capabilities")
    );
    let folded = "{\"j\u{17f}onrpc\":\"2.0\",\"id\":1,\"method\":\"driver.hello\",\"params\":{\"Core_Version_Range\":{\"MINIMUM\":\"1.0.0\",\"maximum\":\"1.0.0\"}}}";
    assert!(reference::decode_control_frame(folded.as_bytes()).is_ok());
    let mut driver = reference::PackageDriver::default();
    assert_eq!(
        driver.answer(folded.as_bytes()),
        reference::Verdict::Answer {
            id: "1".into(),
            class: None
        }
    );
    // Unknown still means no field at all, in any case.
    assert!(reference::decode_control_frame(
        br#"{"jsonrpc":"2.0","ID":1,"method":"driver.reset","Extra":1}"#
    )
    .is_err());
}
