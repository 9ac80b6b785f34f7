#![allow(clippy::panic, clippy::unwrap_used)]
//! The client against the fake server (`tests/fake/fake_lsp.py`), which does
//! on cue what real servers rarely do: every result dialect, a lying list
//! entry, an unadvertised feature, a late answer after a timeout, progress
//! that never ends, an `applyEdit` request, a resource operation in a
//! rename, a crash, a framing fault and a body that is not JSON-RPC.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use wirekit_lsp::client::{Client, Options, Readiness, RequestError, SettleOutcome, StopReport};
use wirekit_lsp::decode::{DecodeErrorKind, DocumentSymbols, HoverMarkup, PrepareRename, Severity};
use wirekit_lsp::{Feature, Position, RequestErrorKind};

struct Fake {
    client: Option<Client>,
    dir: PathBuf,
    log: PathBuf,
}

impl Fake {
    fn start(flags: &[&str]) -> Fake {
        Fake::start_with(flags, Duration::from_millis(800))
    }

    fn start_with(flags: &[&str], timeout: Duration) -> Fake {
        Fake::start_quiet(flags, timeout, Options::new(".").diagnostics_quiet)
    }

    fn start_quiet(flags: &[&str], timeout: Duration, quiet: Duration) -> Fake {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("wirekit-lsp-fake-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.py"), "def f():\n    return 1\n").unwrap();
        let log = dir.join("server.log");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake/fake_lsp.py");
        let mut command = Command::new("python3");
        command.arg(script).arg("--log").arg(&log).args(flags);
        let mut options = Options::new(&dir);
        options.request_timeout = timeout;
        options.handshake_timeout = Duration::from_secs(20);
        options.diagnostics_quiet = quiet;
        let client = Client::start(command, options).unwrap();
        let dir = client.root().to_path_buf();
        Fake {
            client: Some(client),
            log,
            dir,
        }
    }

    fn client(&mut self) -> &mut Client {
        self.client.as_mut().unwrap()
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Every message the server received, in order.
    fn received(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    fn methods(&self) -> Vec<String> {
        self.received()
            .iter()
            .filter_map(|m| m.get("method").and_then(Value::as_str).map(str::to_owned))
            .collect()
    }

    fn stop(mut self) -> StopReport {
        let report = self.client.take().unwrap().stop(Duration::from_secs(2));
        let _ = std::fs::remove_dir_all(&self.dir);
        report
    }
}

fn at(line: u32) -> Position {
    Position::new(line, 0)
}

#[test]
fn every_definition_dialect_lands_in_one_list_and_a_lying_entry_fails_it() {
    let mut fake = Fake::start(&[]);
    let a = fake.file("a.py");
    let client = fake.client();
    assert_eq!(client.definition(&a, at(0)).unwrap().len(), 1);
    assert_eq!(client.references(&a, at(1)).unwrap().len(), 2);
    let link = client.definition(&a, at(2)).unwrap();
    assert_eq!(
        link[0].range.start,
        Position::new(10, 4),
        "a LocationLink lands on its selection range"
    );
    assert!(client.definition(&a, at(3)).unwrap().is_empty());
    let RequestError::Malformed(error) = client.definition(&a, at(4)).unwrap_err() else {
        panic!("malformed")
    };
    assert_eq!(
        (error.kind(), error.pointer()),
        (DecodeErrorKind::BadPosition, "/2/range/start/character")
    );
    // Serving goes on after a malformed answer.
    assert_eq!(client.definition(&a, at(0)).unwrap().len(), 1);
    assert_eq!(fake.stop(), StopReport::Graceful);
}

#[test]
fn hover_shapes_symbols_prepare_rename_and_call_hierarchy() {
    let mut fake = Fake::start(&[]);
    let (a, flat) = (fake.file("a.py"), fake.file("flat.py"));
    let client = fake.client();
    let texts: Vec<String> = (0..4)
        .map(|line| client.hover(&a, at(line)).unwrap().unwrap().text)
        .collect();
    assert_eq!(
        texts,
        [
            "plain **markdown**",
            "```python\ndef f() -> int\n```",
            "first\n\n```python\nx: int\n```",
            "an int"
        ]
    );
    assert_eq!(
        client.hover(&a, at(3)).unwrap().unwrap().markup,
        HoverMarkup::PlainText
    );
    assert_eq!(client.hover(&a, at(4)).unwrap(), None);
    assert!(
        matches!(client.document_symbols(&a).unwrap(), DocumentSymbols::Hierarchical(s) if s[0].children[0].name == "m")
    );
    assert!(
        matches!(client.document_symbols(&flat).unwrap(), DocumentSymbols::Flat(s) if s[0].container_name.as_deref() == Some("m"))
    );
    assert!(matches!(
        client.prepare_rename(&a, at(0)).unwrap(),
        PrepareRename::CanRename {
            placeholder: None,
            ..
        }
    ));
    assert!(matches!(
        client.prepare_rename(&a, at(1)).unwrap(),
        PrepareRename::CanRename {
            placeholder: Some(_),
            ..
        }
    ));
    assert_eq!(
        client.prepare_rename(&a, at(2)).unwrap(),
        PrepareRename::CanRenameDefault
    );
    assert_eq!(
        client.prepare_rename(&a, at(3)).unwrap(),
        PrepareRename::CannotRename
    );
    let items = client.prepare_call_hierarchy(&a, at(0)).unwrap();
    let incoming = client.incoming_calls(&items[0]).unwrap();
    let outgoing = client.outgoing_calls(&items[0]).unwrap();
    assert_eq!(
        (incoming[0].from.name.as_str(), outgoing[0].to.name.as_str()),
        ("caller", "callee")
    );
    // The item went back verbatim, the server's `data` included.
    let sent: Vec<Value> = fake
        .received()
        .into_iter()
        .filter(|m| {
            m["method"] == "callHierarchy/incomingCalls"
                || m["method"] == "callHierarchy/outgoingCalls"
        })
        .collect();
    assert_eq!(sent.len(), 2);
    for message in sent {
        assert_eq!(message["params"]["item"], items[0].raw);
        assert_eq!(
            message["params"]["item"]["data"]["server-state"][1]["deep"],
            true
        );
    }
    assert_eq!(fake.stop(), StopReport::Graceful);
}

#[test]
fn an_unadvertised_feature_is_refused_and_never_sent() {
    let mut fake = Fake::start(&["--no-hover"]);
    let a = fake.file("a.py");
    let client = fake.client();
    assert!(!client.supports(Feature::Hover));
    let error = client.hover(&a, at(0)).unwrap_err();
    assert_eq!(error, RequestError::Unsupported(Feature::Hover));
    assert_eq!(error.code(), "unsupported");
    assert!(client.definition(&a, at(0)).is_ok());
    assert!(!fake.methods().iter().any(|m| m == "textDocument/hover"));
    assert_eq!(fake.stop(), StopReport::Graceful);
}

#[test]
fn a_timed_out_request_is_cancelled_and_its_late_answer_dropped() {
    let mut fake = Fake::start_with(&[], Duration::from_millis(300));
    let a = fake.file("a.py");
    let client = fake.client();
    let error = client.definition(&a, at(9)).unwrap_err();
    assert_eq!(error, RequestError::TimedOut { after_ms: 300 });
    // The late answer arrives while the next requests are served.
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(2500) {
        assert_eq!(client.definition(&a, at(1)).unwrap().len(), 2);
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(client.dropped().late_answers, 1);
    let received = fake.received();
    let asked = received
        .iter()
        .find(|m| m["method"] == "textDocument/definition")
        .unwrap();
    let cancel = received
        .iter()
        .find(|m| m["method"] == "$/cancelRequest")
        .unwrap();
    assert_eq!(cancel["params"]["id"], asked["id"]);
    assert_eq!(fake.stop(), StopReport::Graceful);
}

#[test]
fn an_answer_with_a_wrong_id_is_reported_as_such() {
    let mut fake = Fake::start_with(&[], Duration::from_millis(500));
    let a = fake.file("a.py");
    let client = fake.client();
    let error = client.definition(&a, at(10)).unwrap_err();
    let RequestError::WrongId { sent, answered, .. } = &error else {
        panic!("expected a wrong id, got {error:?}");
    };
    assert_eq!(answered, &(sent + 1000).to_string());
    assert_eq!(error.kind().code(), "wrong_id");
    assert!(
        error.to_string().contains("which no request has"),
        "{error}"
    );
    // The session goes on.
    assert_eq!(client.definition(&a, at(1)).unwrap().len(), 2);
    assert_eq!(client.dropped().unmatched_answers, 1);
    assert_eq!(fake.stop(), StopReport::Graceful);
}

#[test]
fn the_client_never_writes() {
    let mut fake = Fake::start(&[]);
    let a = fake.file("a.py");
    let client = fake.client();
    let edit = client.rename(&a, at(0), "apply").unwrap();
    assert_eq!(edit.files[0].edits[0].new_text, "apply");
    let edit = client.rename(&a, at(0), "changes").unwrap();
    assert_eq!(edit.files.len(), 1);
    let RequestError::EditRefused(error) = client.rename(&a, at(0), "resource").unwrap_err() else {
        panic!("refused")
    };
    assert_eq!(error.pointer(), "/documentChanges/1/kind");
    let received = fake.received();
    let applied = received
        .iter()
        .find(|m| m.get("result").is_some_and(|r| r.get("applied").is_some()))
        .unwrap();
    assert_eq!(applied["result"]["applied"], false);
    let initialize = &received[0];
    assert_eq!(
        initialize["params"]["capabilities"]["workspace"]["applyEdit"],
        false
    );
    assert_eq!(
        initialize["params"]["capabilities"]["workspace"]["workspaceEdit"]["resourceOperations"],
        serde_json::json!([])
    );
    assert_eq!(
        initialize["params"]["capabilities"]["window"]["workDoneProgress"],
        true
    );
    // workspace/configuration without settings: an empty object an item (the
    // server's defaults; real servers fail on `null`).
    let configuration = received
        .iter()
        .find(|m| m["result"].as_array().is_some_and(|a| a.len() == 2))
        .unwrap();
    assert_eq!(configuration["result"], serde_json::json!([{}, {}]));
    assert_eq!(fake.stop(), StopReport::Graceful);
}

#[test]
fn diagnostics_settle_by_version_and_an_unversioned_server_without_barrier_never_does() {
    let mut fake = Fake::start(&[]);
    let a = fake.file("a.py");
    let client = fake.client();
    client.sync(&a, "python", "x = 1\nERROR\nWARN\n").unwrap();
    let settled = client
        .settle(std::slice::from_ref(&a), Duration::from_secs(5), true)
        .unwrap();
    assert_eq!(settled.outcome, SettleOutcome::Settled);
    let severities: Vec<Severity> = settled.publications[0]
        .diagnostics
        .iter()
        .map(|d| d.severity)
        .collect();
    assert_eq!(
        severities,
        [Severity::Error, Severity::Warning],
        "an omitted severity is an error"
    );
    // After an edit: the new publication, at the new version.
    let version = client.sync(&a, "python", "x = 1\n").unwrap();
    let settled = client
        .settle(std::slice::from_ref(&a), Duration::from_secs(5), false)
        .unwrap();
    assert_eq!(settled.outcome, SettleOutcome::Settled);
    assert_eq!(settled.publications[0].version, Some(i64::from(version)));
    assert!(settled.publications[0].diagnostics.is_empty());
    assert_eq!(client.synced_text(&a), Some("x = 1\n"));
    assert_eq!(fake.stop(), StopReport::Graceful);

    // Unversioned, with documentSymbol: the barrier rule settles it.
    let mut fake = Fake::start(&["--unversioned"]);
    let a = fake.file("a.py");
    let client = fake.client();
    client.sync(&a, "python", "ERROR\n").unwrap();
    let settled = client
        .settle(std::slice::from_ref(&a), Duration::from_secs(5), false)
        .unwrap();
    assert_eq!(settled.outcome, SettleOutcome::Settled);
    assert_eq!(settled.publications[0].diagnostics.len(), 1);
    let barrier = fake
        .received()
        .into_iter()
        .filter(|m| m["method"] == "textDocument/documentSymbol")
        .count();
    assert_eq!(
        barrier, 1,
        "one documentSymbol barrier for the changed document"
    );
    assert_eq!(fake.stop(), StopReport::Graceful);

    // Unversioned and no documentSymbol: nothing can settle it.
    let mut fake = Fake::start(&["--unversioned", "--no-symbols"]);
    let a = fake.file("a.py");
    let client = fake.client();
    client.sync(&a, "python", "ERROR\n").unwrap();
    let unsettled = client
        .settle(std::slice::from_ref(&a), Duration::from_millis(400), false)
        .unwrap();
    assert_eq!(unsettled.outcome, SettleOutcome::DeadlineExpired);
    assert_eq!(fake.stop(), StopReport::Graceful);
}

/// typescript-language-server publishes an empty list first and the type
/// error a moment later, at the same version: the quiet window waits for
/// it. Without the window (0 ms) the empty list would be the answer.
#[test]
fn diagnostics_settle_after_a_quiet_window_not_on_a_first_empty_publication() {
    for (quiet, expected) in [(Duration::from_millis(400), 1), (Duration::ZERO, 0)] {
        let mut fake = Fake::start_quiet(&["--empty-first"], Duration::from_secs(5), quiet);
        let a = fake.file("a.py");
        let client = fake.client();
        client.sync(&a, "python", "x = 1\nERROR\n").unwrap();
        let settled = client
            .settle(std::slice::from_ref(&a), Duration::from_secs(5), true)
            .unwrap();
        assert_eq!(settled.outcome, SettleOutcome::Settled);
        assert_eq!(
            settled.publications[0].diagnostics.len(),
            expected,
            "quiet window {quiet:?}"
        );
        assert_eq!(fake.stop(), StopReport::Graceful);
    }
}

#[test]
fn readiness_follows_work_done_progress() {
    let mut fake = Fake::start(&["--progress", "forever"]);
    let client = fake.client();
    let busy = client
        .ready(Duration::from_millis(100), Duration::from_millis(600))
        .unwrap();
    assert_eq!(
        busy,
        Readiness::StillBusy(vec!["Indexing".into(), "7".into()])
    );
    assert!(
        client.dropped().notifications >= 1,
        "the malformed $/progress is dropped"
    );
    assert_eq!(fake.stop(), StopReport::Graceful);
    let mut fake = Fake::start(&["--progress", "brief"]);
    let client = fake.client();
    let started = Instant::now();
    assert_eq!(
        client
            .ready(Duration::from_millis(200), Duration::from_secs(5))
            .unwrap(),
        Readiness::Quiet
    );
    assert!(
        started.elapsed() >= Duration::from_millis(450),
        "quiet only after the tokens ended and a window passed"
    );
    // The client accepted the token the server created (the server's fourth request).
    let created = fake
        .received()
        .into_iter()
        .find(|m| m["id"] == 1003)
        .unwrap();
    assert_eq!(created["result"], Value::Null);
    assert!(created.get("error").is_none());
    assert_eq!(fake.stop(), StopReport::Graceful);
}

#[test]
fn an_empty_answer_after_a_reported_failure_is_unavailable_with_the_reason() {
    let mut fake = Fake::start(&["--load-fails"]);
    let a = fake.file("a.py");
    let client = fake.client();
    // The failure arrives with the handshake's aftermath; a symbols answer
    // (non-empty) would clear it, so ask definition first.
    let _ = client.ready(Duration::from_millis(100), Duration::from_secs(2));
    let RequestError::Unavailable(reason) = client.definition(&a, at(0)).unwrap_err() else {
        panic!("unavailable")
    };
    assert!(reason.contains("project load failed"), "{reason}");
    assert!(client.failure().unwrap().len() <= 2048);
    // A non-empty typed answer clears it.
    assert!(!client.document_symbols(&a).unwrap().is_empty());
    assert!(client.failure().is_none());
    assert_eq!(fake.stop(), StopReport::Graceful);
}

#[test]
fn a_crash_a_framing_fault_or_a_non_json_rpc_body_answers_unavailable() {
    for (line, expect) in [
        (8, "exited with exit status: 3"),
        (7, "does not frame"),
        (6, "not JSON-RPC"),
    ] {
        let mut fake = Fake::start(&[]);
        let a = fake.file("a.py");
        let client = fake.client();
        let error = client.definition(&a, at(line)).unwrap_err();
        assert_eq!(
            error.kind(),
            RequestErrorKind::Unavailable,
            "line {line}: {error}"
        );
        assert!(error.to_string().contains(expect), "line {line}: {error}");
        if line == 8 {
            assert!(error.to_string().contains("crashing on purpose"), "{error}");
        }
        // Every later caller hears the same.
        assert_eq!(
            client.hover(&a, at(0)).unwrap_err().kind(),
            RequestErrorKind::Unavailable
        );
        assert!(matches!(fake.stop(), StopReport::AlreadyGone(_)));
    }
}

#[test]
fn a_server_that_ignores_exit_is_killed_after_the_grace() {
    let fake = Fake::start(&["--ignore-exit"]);
    assert!(matches!(fake.stop(), StopReport::Forced(_)));
}

#[test]
fn at_most_64_documents_are_open_the_least_recently_synced_closed_first() {
    let mut fake = Fake::start(&[]);
    let paths: Vec<PathBuf> = (0..66).map(|n| fake.file(&format!("m{n}.py"))).collect();
    let client = fake.client();
    let mut versions = Vec::new();
    for path in &paths[..64] {
        versions.push(client.sync(path, "python", "x = 1\n").unwrap());
    }
    // m0 synced again: m1 is now the least recently synced.
    versions.push(client.sync(&paths[0], "python", "x = 2\n").unwrap());
    versions.push(client.sync(&paths[64], "python", "y = 1\n").unwrap());
    versions.push(client.sync(&paths[65], "python", "z = 1\n").unwrap());
    let sorted = {
        let mut v = versions.clone();
        v.sort_unstable();
        v.dedup();
        v
    };
    assert_eq!(
        sorted, versions,
        "versions come from one counter, never reused"
    );
    // One round trip: the server handles messages in order, so it has seen the closes.
    client.definition(&paths[65], at(0)).unwrap();
    let uri = |n: usize| client_uri(&paths[n]);
    let closed: Vec<String> = fake
        .received()
        .into_iter()
        .filter(|m| m["method"] == "textDocument/didClose")
        .map(|m| {
            m["params"]["textDocument"]["uri"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(closed, [uri(1), uri(2)]);
    assert_eq!(fake.client().synced_text(&paths[0]), Some("x = 2\n"));
    assert_eq!(fake.client().synced_text(&paths[1]), None);
    assert_eq!(fake.stop(), StopReport::Graceful);
}

fn client_uri(path: &Path) -> String {
    wirekit_lsp::uri::path_to_uri(path).unwrap()
}
