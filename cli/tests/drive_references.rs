//! `wirekit drive` conversing: a value the server chose (a random session
//! id) reaches the calls after it through `{"$from": NAME, "pointer": P}`,
//! calls fed on standard input are sent as they come, and the recording
//! validates clean. The server is `tests/peers/notes_server.py` speaking
//! `tests/protocols/notes@1`.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

fn repo(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirekit-drive-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `wirekit drive` of the notes server, recording into `record`, with the
/// calls from `requests` (standard input when `None`).
fn drive_command(record: &std::path::Path, requests: Option<&std::path::Path>) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_wirekit"));
    if let Some(requests) = requests {
        command.arg("drive").arg("--requests").arg(requests);
    } else {
        command.arg("drive");
    }
    command
        .args([
            "--schemas",
            &repo("tests/protocols"),
            "--protocol",
            "notes@1",
        ])
        .arg("--record")
        .arg(record)
        .args(["--", "python3", &repo("tests/peers/notes_server.py")]);
    command
}

const CALLS: &str = concat!(
    "{\"method\": \"open\", \"name\": \"first\"}\n",
    "{\"method\": \"put\", \"params\": {\"session\": {\"$from\": \"first\", \"pointer\": \"/session\"}, \"key\": \"a\", \"text\": \"one\"}}\n",
    "{\"method\": \"get\", \"params\": {\"session\": {\"$from\": \"open\", \"pointer\": \"/session\"}, \"key\": \"a\"}}\n",
    "{\"method\": \"close\", \"params\": {\"session\": {\"$from\": \"first\", \"pointer\": \"/session\"}}}\n",
);

fn validate(record: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wirekit"))
        .args([
            "validate",
            "--schemas",
            &repo("tests/protocols"),
            "--protocol",
            "notes@1",
        ])
        .arg(record)
        .output()
        .expect("validate runs")
}

#[test]
fn a_server_chosen_session_id_reaches_the_next_three_calls() {
    let dir = scratch("references");
    let calls = dir.join("calls.ndjson");
    std::fs::write(&calls, CALLS).expect("calls");
    let record = dir.join("session.ndjson");
    let output = drive_command(&record, Some(&calls))
        .output()
        .expect("drive runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let session = lines[0]["result"]["session"]
        .as_str()
        .expect("a session id")
        .to_owned();
    assert_eq!(session.len(), 32, "{text}");
    assert_eq!(lines[1]["result"]["ok"], true, "{text}");
    assert_eq!(lines[2]["result"]["text"], "one", "{text}");
    assert_eq!(lines[3]["result"]["ok"], true, "{text}");
    // The id went out in each of the three calls, as the server chose it.
    let recorded = std::fs::read_to_string(&record).expect("recording");
    assert_eq!(recorded.matches(&session).count(), 4, "{recorded}");
    let checked = validate(&record);
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reference to no earlier result is not sent: the line says which
/// names were answered, and the run is not clean.
#[test]
fn a_reference_to_no_result_is_not_sent() {
    let dir = scratch("unresolved");
    let calls = dir.join("calls.ndjson");
    std::fs::write(
        &calls,
        "{\"method\": \"open\"}\n{\"method\": \"get\", \"params\": {\"session\": {\"$from\": \"second\", \"pointer\": \"/session\"}, \"key\": \"a\"}}\n",
    )
    .expect("calls");
    let record = dir.join("session.ndjson");
    let output = drive_command(&record, Some(&calls))
        .output()
        .expect("drive runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(1), "{text}");
    let last: Value = serde_json::from_str(text.lines().last().expect("a line")).expect("JSON");
    assert_eq!(last["error"]["kind"], "unresolved", "{text}");
    assert_eq!(last["error"]["sent"], false, "{text}");
    let message = last["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("`second`") && message.contains("answered: open"),
        "{message}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Calls on standard input are sent as they come: the answer to the first
/// is printed before the second is written, and the second names the
/// session the first answered.
#[test]
fn calls_fed_on_standard_input_are_answered_as_they_come() {
    let dir = scratch("streamed");
    let record = dir.join("session.ndjson");
    let mut child = drive_command(&record, None)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("drive starts");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = CALLS.lines();
    let mut answers = Vec::new();
    for _ in 0..4 {
        writeln!(input, "{}", lines.next().expect("a call")).expect("write");
        input.flush().expect("flush");
        let mut answer = String::new();
        output
            .read_line(&mut answer)
            .expect("an answer line before the next call");
        answers.push(serde_json::from_str::<Value>(&answer).expect("JSON"));
    }
    drop(input);
    let status = child.wait().expect("drive ends");
    assert!(status.success(), "{answers:?}");
    assert_eq!(answers[2]["result"]["text"], "one", "{answers:?}");
    let checked = validate(&record);
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
