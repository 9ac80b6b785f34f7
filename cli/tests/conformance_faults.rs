//! `wirekit conformance` fails what is wrong (issue 43), on the tests' own
//! key-value protocol (`tests/conformance/kv/1`): servers on the Rust serve
//! loop (`cli/examples/kv_server.rs`) with one fault each that the loop
//! refuses on the server's behalf (an internal error instead of an invalid
//! result, a dropped notification), a missing lifecycle handler, and a
//! hand-written server (`tests/conformance/kv_server.py`) that does not
//! check a length limit. Each fails exactly one check, naming the fault;
//! the correct servers conform with nothing warned.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

fn repo(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

/// The example store's binary: cargo builds a package's examples with its tests.
fn kv_server() -> String {
    let wirekit = PathBuf::from(env!("CARGO_BIN_EXE_wirekit"));
    let dir = wirekit.parent().expect("target dir");
    dir.join("examples")
        .join(format!("kv_server{}", std::env::consts::EXE_SUFFIX))
        .to_string_lossy()
        .into_owned()
}

/// Runs conformance of kv@1 with `--json`: the exit code and the report.
fn conformance(server: &[&str]) -> (i32, Value) {
    let schemas = repo("tests/conformance");
    let args = ["--schemas", &schemas, "--protocol", "kv@1", "--json", "--"];
    support::conformance_report(&[&args[..], server].concat())
}

/// The checks that did not pass: (outcome, group/name, pointer, message).
fn not_passed(report: &Value) -> Vec<(String, String, String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["outcome"] != "pass")
        .map(|c| {
            (
                text(&c["outcome"]),
                format!("{}/{}", text(&c["group"]), text(&c["name"])),
                text(&c["pointer"]),
                text(&c["message"]),
            )
        })
        .collect()
}

fn passed(report: &Value) -> usize {
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["outcome"] == "pass")
        .count()
}

/// The one failure of a broken server: its check, pointer and message.
fn one_failure(server: &[&str]) -> (String, String, String) {
    let (code, report) = conformance(server);
    let found = not_passed(&report);
    assert_eq!(code, 1, "{server:?}: {found:?}");
    assert_eq!(found.len(), 1, "{server:?}: {found:?}");
    let (outcome, check, pointer, message) = found.into_iter().next().unwrap_or_default();
    assert_eq!(outcome, "fail", "{server:?}: {check}: {message}");
    (check, pointer, message)
}

#[test]
fn the_correct_stores_conform_with_nothing_warned() {
    let store = kv_server();
    let schemas = repo("tests/conformance");
    let script = repo("tests/conformance/kv_server.py");
    for server in [vec![store.as_str(), &schemas], vec!["python3", &script]] {
        let (code, report) = conformance(&server);
        assert_eq!(not_passed(&report), [], "{server:?}");
        assert_eq!(code, 0, "{server:?}");
        assert!(passed(&report) >= 25, "{server:?}: {report}");
    }
}

#[test]
fn an_invalid_result_the_serve_loop_refused_fails_naming_the_method_and_pointer() {
    let (store, schemas) = (kv_server(), repo("tests/conformance"));
    let (check, pointer, message) = one_failure(&[&store, &schemas, "wrong-type-result"]);
    assert_eq!(check, "lifecycle/`kv/put` answers");
    assert_eq!(pointer, "/result/version");
    assert!(
        message.contains("`kv/put` was answered -32603")
            && message.contains("invalid_result at /result/version")
            && message.contains("is not of type \"integer\""),
        "{message}"
    );
    let (check, pointer, message) = one_failure(&[&store, &schemas, "missing-member"]);
    assert_eq!(check, "lifecycle/`kv/get` answers");
    assert_eq!(pointer, "/result/value");
    assert!(
        message.contains("required member `value` is missing"),
        "{message}"
    );
}

#[test]
fn a_missing_lifecycle_handler_fails() {
    let (store, schemas) = (kv_server(), repo("tests/conformance"));
    let (check, pointer, message) = one_failure(&[&store, &schemas, "no-shutdown"]);
    assert_eq!(check, "exit/`shutdown` answers");
    assert_eq!(pointer, "/error");
    assert!(
        message.contains("refused with -32601") && message.contains("ends the session"),
        "{message}"
    );
}

#[test]
fn exit_follows_shutdown_and_a_server_that_ignores_it_fails() {
    let script = repo("tests/conformance/kv_server.py");
    let (check, _, message) = one_failure(&["python3", &script, "--fault", "ignores-exit"]);
    assert_eq!(check, "exit/exits on `exit` after `shutdown`");
    assert!(
        message.contains("still running 3 s after `exit`")
            && message.contains("only once its input was closed"),
        "{message}"
    );
}

#[test]
fn the_error_a_manifest_example_shows_is_provoked() {
    let script = repo("tests/conformance/kv_server.py");
    let (check, pointer, message) =
        one_failure(&["python3", &script, "--fault", "not-found-as-result"]);
    assert_eq!(
        check,
        "lifecycle/`kv/get` answers its declared error (A key never put)"
    );
    assert_eq!(pointer, "/result");
    assert!(
        message.contains("expected the error -32004") && message.contains("was accepted"),
        "{message}"
    );
}

#[test]
fn a_notification_the_serve_loop_dropped_fails_naming_its_pointer() {
    let (store, schemas) = (kv_server(), repo("tests/conformance"));
    let (check, pointer, message) = one_failure(&[&store, &schemas, "invalid-notification"]);
    assert_eq!(check, "lifecycle/`kv/put` answers");
    assert_eq!(pointer, "/params/version");
    assert!(
        message.contains("makes `kv/changed` due")
            && message.contains("dropped_notification at /params/version")
            && message.contains("is not of type \"integer\""),
        "{message}"
    );
}

#[test]
fn a_notification_the_serve_loop_dropped_that_nothing_awaited_fails_in_output() {
    let (store, schemas) = (kv_server(), repo("tests/conformance"));
    let (check, pointer, message) = one_failure(&[&store, &schemas, "unknown-notification"]);
    assert_eq!(
        check,
        "output/the server's `kv/watching` notification is sent"
    );
    assert_eq!(pointer, "/method");
    assert!(
        message.contains("dropped_notification of `kv/watching`")
            && message.contains("not a server notification of kv@1"),
        "{message}"
    );
}

#[test]
fn a_notification_the_manifest_makes_due_is_awaited_and_a_missing_one_fails() {
    let script = repo("tests/conformance/kv_server.py");
    let (check, _, message) = one_failure(&["python3", &script, "--fault", "silent-watch"]);
    assert_eq!(check, "lifecycle/`kv/put` answers");
    assert!(
        message.contains("makes `kv/changed` due (`notifies`), but the server did not send it"),
        "{message}"
    );
}

#[test]
fn a_length_limit_not_checked_is_found_past_the_upper_bound() {
    let script = repo("tests/conformance/kv_server.py");
    let (check, pointer, message) =
        one_failure(&["python3", &script, "--fault", "unchecked-length"]);
    assert_eq!(
        check,
        "params/`kv/put` with a string longer than 256 at /value is refused"
    );
    assert_eq!(pointer, "/params/value");
    assert!(message.contains("`kv/put` was accepted"), "{message}");
}

/// `wirekit drive` sees what the serve loop refused on the server's behalf
/// too: the wire holds a -32603, the server's stderr the fault line, and the
/// run is not clean, the fault printed with its method and pointer.
#[test]
fn drive_reports_the_serve_loops_fault_lines() {
    let store = kv_server();
    let schemas = repo("tests/conformance");
    let calls = "{\"method\": \"initialize\", \"params\": {\"client\": \"tests\"}}\n\
{\"method\": \"kv/put\", \"params\": {\"key\": \"colour\", \"value\": \"blue\"}}\n";
    let drive = |fault: Option<&str>| {
        let mut args = vec![
            "drive",
            "--schemas",
            &schemas,
            "--protocol",
            "kv@1",
            "--",
            &store,
            &schemas,
        ];
        args.extend(fault);
        let mut child = Command::new(env!("CARGO_BIN_EXE_wirekit"))
            .args(&args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("wirekit starts");
        use std::io::Write as _;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(calls.as_bytes())
            .expect("calls");
        child.wait_with_output().expect("wirekit ends")
    };
    let clean = drive(None);
    assert_eq!(clean.status.code(), Some(0), "{clean:?}");
    let broken = drive(Some("wrong-type-result"));
    assert_eq!(broken.status.code(), Some(1), "{broken:?}");
    let lines: Vec<Value> = String::from_utf8_lossy(&broken.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let fault = lines
        .iter()
        .find(|l| l.get("fault").is_some())
        .expect("a fault line");
    assert_eq!(fault["fault"], "invalid_result");
    assert_eq!(fault["method"], "kv/put");
    assert_eq!(fault["pointer"], "/result/version");
}
