//! `wirekit drive` runs a whole AgentAPI driver session against the driver
//! built on the Rust serve loop (`cli/examples/rust_driver.rs`): every
//! call is sent, the invocations' notifications are followed to their
//! `driver.completed`, the second invocation is cancelled mid-way, and the
//! recording validates clean.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn repo(path: &str) -> PathBuf {
    PathBuf::from(format!("{}/../{path}", env!("CARGO_MANIFEST_DIR")))
}

/// The example's binary: cargo builds a package's examples with its tests.
fn rust_driver() -> PathBuf {
    let wirekit = PathBuf::from(env!("CARGO_BIN_EXE_wirekit"));
    let dir = wirekit.parent().expect("target dir");
    dir.join("examples")
        .join(format!("rust_driver{}", std::env::consts::EXE_SUFFIX))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirekit-drive-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn full_run(dir: &std::path::Path, input: &str, slow_input: &str) -> PathBuf {
    let template = std::fs::read_to_string(repo("tests/drivers/full-run.ndjson")).expect("calls");
    let calls = template
        .replace("@OPERATION@", "fs.digest")
        .replace("@PERMISSION@", "filesystem-read")
        .replace("@SLOW_INPUT@", slow_input)
        .replace("@INPUT@", input);
    let path = dir.join("calls.ndjson");
    std::fs::write(&path, calls).expect("write calls");
    path
}

#[test]
fn a_full_driver_session_through_drive_sends_every_call_and_validates_clean() {
    let dir = scratch("full");
    // 200 000 bytes: four 64 KiB chunks, four observations.
    let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let file = dir.join("input.bin");
    std::fs::write(&file, &data).expect("input");
    let file = file.to_string_lossy().into_owned();
    let calls = full_run(&dir, &file, &format!("{file}?delay_ms=300"));
    let record = dir.join("session.ndjson");
    let output = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args(["drive", "--protocol", "agentapi-driver", "--requests"])
        .arg(&calls)
        .arg("--record")
        .arg(&record)
        .arg("--")
        .arg(rust_driver())
        .output()
        .expect("drive runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "drive failed:\n{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let calls: Vec<&str> = lines.iter().filter_map(|l| l["method"].as_str()).collect();
    assert_eq!(
        calls,
        [
            "driver.hello",
            "driver.capabilities",
            "driver.prepare",
            "driver.invoke",
            "driver.invoke",
            "driver.cancel",
            "driver.reset",
            "driver.shutdown"
        ],
        "every call sent and answered:\n{text}"
    );
    assert!(lines.iter().all(|l| l.get("error").is_none()), "{text}");
    let notifications: Vec<&Value> = lines
        .iter()
        .filter(|l| l.get("notification").is_some())
        .collect();
    let observed = |invocation: &str| {
        notifications
            .iter()
            .filter(|n| n["notification"] == "driver.observation")
            .filter(|n| {
                n["params"]["invocation_id"]
                    .as_str()
                    .is_some_and(|i| i.ends_with(invocation))
            })
            .count()
    };
    assert_eq!(observed("0001"), 4, "one observation a chunk:\n{text}");
    assert!(
        observed("0003") < 4,
        "the cancelled one stopped mid-way:\n{text}"
    );
    let completed: Vec<&Value> = notifications
        .iter()
        .filter(|n| n["notification"] == "driver.completed")
        .map(|n| &n["params"])
        .collect();
    assert_eq!(completed.len(), 2, "{text}");
    assert_eq!(completed[0]["status"], "completed");
    assert_eq!(completed[0]["last_sequence"], 4);
    assert_eq!(completed[1]["status"], "cancelled");
    // Each notification is printed in arrival order: the first
    // invocation's completion comes before the second invoke's answer.
    let position = |f: &dyn Fn(&Value) -> bool| lines.iter().position(f).expect("present");
    let first_done = position(&|l| l["params"]["status"] == "completed");
    let second_invoke = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l["method"] == "driver.invoke")
        .map(|(i, _)| i)
        .nth(1)
        .expect("second invoke");
    assert!(first_done < second_invoke, "{text}");

    let validate = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args(["validate", "--protocol", "agentapi-driver"])
        .arg(&record)
        .output()
        .expect("validate runs");
    assert!(
        validate.status.success(),
        "the recording does not validate:\n{}{}",
        String::from_utf8_lossy(&validate.stdout),
        String::from_utf8_lossy(&validate.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_invocation_that_never_completes_is_reported_after_the_timeout() {
    let dir = scratch("silent");
    let data = vec![1u8; 70_000];
    let file = dir.join("input.bin");
    std::fs::write(&file, &data).expect("input");
    // The invocation outlives the timeout (two chunks, 20 s apart), and the
    // last call needs its completion first.
    let calls = format!(
        "{}\n{}\n{}\n{}\n",
        r#"{"method":"driver.hello","params":{"core_version_range":{"minimum":"1.0.0","maximum":"1.0.0"}}}"#,
        r#"{"method":"driver.prepare","params":{"resolved_plan_digest":"sha256:64879f7d6b960a01909762d911a32d4582c20010c5641ee90278b644a9e3b525","capability_token":"t","approved_permissions":null}}"#,
        format_args!(
            r#"{{"method":"driver.invoke","params":{{"invocation_id":"018f0000-0000-7000-8000-000000000001","attempt_id":"018f0000-0000-7000-8000-000000000002","operation":"fs.digest","ephemeral_exact_input_handle":{{"kind":"pipe","value":"{}?delay_ms=20000"}}}}}}"#,
            file.to_string_lossy()
        ),
        r#"{"method":"driver.shutdown"}"#,
    );
    let requests = dir.join("calls.ndjson");
    std::fs::write(&requests, calls).expect("calls");
    let output = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args([
            "drive",
            "--protocol",
            "agentapi-driver",
            "--timeout-ms",
            "2500",
            "--requests",
        ])
        .arg(&requests)
        .arg("--")
        .arg(rust_driver())
        .output()
        .expect("drive runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let last: Value = serde_json::from_str(text.lines().last().expect("a line")).expect("JSON");
    assert_eq!(last["method"], "driver.shutdown", "{text}");
    assert_eq!(last["error"]["kind"], "timeout", "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_host_hands_an_invocations_notifications_to_an_iterator_until_its_completion() {
    use wirekit::host::Host;
    let dir = scratch("iterator");
    let file = dir.join("input.bin");
    std::fs::write(&file, vec![7u8; 150_000]).expect("input");
    let protocol = wirekit_protocols::protocol("agentapi-driver").expect("protocol");
    let mut host = Host::spawn(protocol, &mut Command::new(rust_driver())).expect("spawns");
    let template = std::fs::read_to_string(repo("tests/drivers/full-run.ndjson")).expect("calls");
    let calls: Vec<Value> = template
        .replace("@OPERATION@", "fs.digest")
        .replace("@PERMISSION@", "filesystem-read")
        .replace("@INPUT@", &file.to_string_lossy())
        .lines()
        .map(|l| serde_json::from_str(l).expect("call"))
        .collect();
    for call in &calls[..4] {
        host.call(
            call["method"].as_str().expect("method"),
            call.get("params").cloned(),
        )
        .expect("answered");
    }
    assert_eq!(host.session().awaiting(), Some("driver.completed"));
    let notifications: Vec<_> = host.notifications().map(|n| n.expect("checked")).collect();
    let methods: Vec<&str> = notifications.iter().map(|n| n.method.as_str()).collect();
    assert_eq!(
        methods,
        [
            "driver.observation",
            "driver.observation",
            "driver.observation",
            "driver.completed"
        ]
    );
    assert_eq!(host.session().awaiting(), None);
    assert_eq!(host.session().state(), "PREPARED");
    host.call("driver.shutdown", None).expect("shutdown");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An operation the driver did not declare is refused with the class the
/// reference names (`capability_mismatch`), and nothing runs: no
/// observation, no completion; the session goes on to its shutdown and
/// the recording validates clean.
#[test]
fn an_undeclared_operation_is_refused_and_nothing_runs() {
    let dir = scratch("unknown-operation");
    let file = dir.join("input.bin");
    std::fs::write(&file, b"data").expect("input");
    let calls = format!(
        "{}\n{}\n{}\n{}\n",
        r#"{"method":"driver.hello","params":{"core_version_range":{"minimum":"1.0.0","maximum":"1.0.0"}}}"#,
        r#"{"method":"driver.prepare","params":{"resolved_plan_digest":"sha256:64879f7d6b960a01909762d911a32d4582c20010c5641ee90278b644a9e3b525","capability_token":"t","approved_permissions":null}}"#,
        format_args!(
            r#"{{"method":"driver.invoke","params":{{"invocation_id":"018f0000-0000-7000-8000-000000000001","attempt_id":"018f0000-0000-7000-8000-000000000002","operation":"fs.erase","ephemeral_exact_input_handle":{{"kind":"pipe","value":"{}"}}}}}}"#,
            file.to_string_lossy()
        ),
        r#"{"method":"driver.shutdown"}"#,
    );
    let requests = dir.join("calls.ndjson");
    std::fs::write(&requests, calls).expect("calls");
    let record = dir.join("session.ndjson");
    let output = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args(["drive", "--protocol", "agentapi-driver", "--requests"])
        .arg(&requests)
        .arg("--record")
        .arg(&record)
        .arg("--")
        .arg(rust_driver())
        .output()
        .expect("drive runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let invoke = lines
        .iter()
        .find(|l| l["method"] == "driver.invoke")
        .expect("the invoke line");
    assert!(
        invoke.to_string().contains("capability_mismatch"),
        "{invoke}\n{text}"
    );
    assert!(
        !lines.iter().any(|l| l.get("notification").is_some()),
        "nothing ran: {text}"
    );
    let shutdown = lines.last().expect("a line");
    assert_eq!(shutdown["method"], "driver.shutdown", "{text}");
    assert!(shutdown.get("result").is_some(), "{text}");
    let checked = Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args(["validate", "--protocol", "agentapi-driver"])
        .arg(&record)
        .output()
        .expect("validate runs");
    assert!(
        checked.status.success(),
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
