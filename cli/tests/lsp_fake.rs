#![allow(clippy::panic)]
//! `wirekit lsp` against the fake language server of `lsp/tests/fake`: the
//! text for people, the one JSON document, the exit status, the recording,
//! and refusals (an unadvertised feature, a resource operation in a rename,
//! a place outside the file).

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use support::wirekit;

fn project(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirekit-cli-lsp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("project folder");
    std::fs::write(
        dir.join("a.py"),
        "def f():\n    return 1\n\nERROR = f()  # é😀\n",
    )
    .expect("a.py");
    dir
}

fn fake() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../lsp/tests/fake/fake_lsp.py")
        .display()
        .to_string()
}

fn lsp(root: &Path, args: &[&str], server_flags: &[&str]) -> Output {
    let script = fake();
    let mut all = vec!["lsp", "--root", root.to_str().expect("utf-8")];
    if !args.contains(&"--timeout-ms") {
        all.extend_from_slice(&["--timeout-ms", "3000"]);
    }
    all.extend_from_slice(args);
    all.extend_from_slice(&["--", "python3", &script]);
    all.extend_from_slice(server_flags);
    wirekit(&all, b"")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn document(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("one JSON document: {e}: {}", stdout(output)))
}

#[test]
fn definition_and_symbols_as_text() {
    let root = project("text");
    let output = lsp(&root, &["definition", "a.py:2:1"], &[]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(stdout(&output), "a.py:11:5\na.py:12:1\n");
    let output = lsp(&root, &["symbols", "a.py"], &[]);
    assert_eq!(stdout(&output), "class C 1:7\n  method m 2:9\n");
}

#[test]
fn json_hover_and_an_unadvertised_feature() {
    let root = project("json");
    let output = lsp(&root, &["--json", "hover", "a.py:4:3"], &[]);
    assert_eq!(output.status.code(), Some(0));
    let answer = document(&output);
    assert_eq!(answer["result"]["markup"], "plaintext");
    assert_eq!(answer["stop"]["outcome"], "graceful");
    let output = lsp(&root, &["--json", "hover", "a.py:1:1"], &["--no-hover"]);
    assert_eq!(output.status.code(), Some(1));
    let answer = document(&output);
    assert_eq!(answer["error"]["code"], "unsupported");
    assert_eq!(answer["stop"]["outcome"], "graceful");
}

#[test]
fn rename_prints_the_edit_and_writes_nothing_and_refuses_resource_operations() {
    let root = project("rename");
    let before = std::fs::read(root.join("a.py")).expect("a.py");
    let output = lsp(&root, &["rename", "a.py:1:5", "g"], &[]);
    assert_eq!(
        stdout(&output),
        "a.py:1:5-1:6: \"g\"\n(nothing was written)\n"
    );
    let output = lsp(&root, &["--json", "rename", "a.py:1:5", "resource"], &[]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(document(&output)["error"]["code"], "edit_refused");
    let output = lsp(&root, &["--json", "rename", "a.py:1:5", "apply"], &[]);
    assert_eq!(document(&output)["result"]["written"], false);
    assert_eq!(std::fs::read(root.join("a.py")).expect("a.py"), before);
    assert!(!root.join("a.py.bak").exists());
}

#[test]
fn diagnostics_settle_or_say_unsettled() {
    let root = project("diagnostics");
    let output = lsp(&root, &["diagnostics", "a.py"], &[]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(stdout(&output), "a.py:4:1: error: an error here [fake]\n");
    let output = lsp(
        &root,
        &["--json", "--timeout-ms", "500", "diagnostics", "a.py"],
        &["--unversioned", "--no-symbols"],
    );
    assert_eq!(output.status.code(), Some(1));
    let result = &document(&output)["result"];
    assert_eq!(result["settled"], false);
    // The wait, measured: the whole 500 ms deadline, and not much more.
    let waited = result["waited_ms"].as_u64().expect("waited_ms");
    assert!((500..5000).contains(&waited), "{result}");
}

#[test]
fn columns_are_characters_converted_to_utf16_once() {
    // Line 4 is `ERROR = f()  # é😀`: column 18 (after é and 😀) is UTF-16 unit 18.
    let root = project("columns");
    let output = lsp(
        &root,
        &[
            "--json",
            "--record",
            root.join("rec.lsp").to_str().expect("utf-8"),
            "hover",
            "a.py:4:18",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let recording = std::fs::read_to_string(root.join("rec.lsp")).expect("recording");
    assert!(
        recording.contains(r#""position":{"line":3,"character":18}"#),
        "{recording}"
    );
    // Both directions, framed, in order: initialize first, the server's answer after it.
    assert!(recording.starts_with("Content-Length: "));
    let initialize = recording
        .find(r#""method":"initialize""#)
        .expect("initialize sent");
    let answered = recording
        .find(r#""serverInfo""#)
        .expect("initialize answered");
    assert!(initialize < answered);
    assert!(recording.contains(r#""method":"exit""#));
}

#[test]
fn diagnostic_codes_keep_their_type_and_init_options_reach_the_server() {
    let root = project("codes");
    std::fs::write(root.join("b.py"), "CODED = 1\n").expect("b.py");
    let log = root.join("server.log");
    let options = r#"{"tsserver":{"path":"node_modules/typescript/lib"}}"#;
    let output = lsp(
        &root,
        &["--json", "--init-options", options, "diagnostics", "b.py"],
        &["--log", log.to_str().expect("utf-8")],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let diagnostics = &document(&output)["result"]["diagnostics"];
    assert_eq!(diagnostics[0]["code"], 2322, "{diagnostics}");
    assert_eq!(diagnostics[1]["code"], "E501", "{diagnostics}");
    let text = std::fs::read_to_string(&log).expect("the server's log");
    let initialize = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|message| message["method"] == "initialize")
        .expect("initialize was sent");
    assert_eq!(
        initialize["params"]["initializationOptions"],
        serde_json::from_str::<Value>(options).expect("json")
    );
}

#[test]
fn settings_answer_by_section_language_ids_follow_the_file_and_a_new_name_may_start_with_a_dash() {
    let root = project("editor");
    std::fs::write(root.join("page.html"), "<p>hi</p>\n").expect("page.html");
    std::fs::write(root.join("Dockerfile"), "FROM scratch\n").expect("Dockerfile");
    std::fs::write(root.join("view.tpl"), "x\n").expect("view.tpl");
    std::fs::write(root.join("settings.json"), r#"{"fake": {"lint": true}}"#).expect("settings");
    let log = root.join("server.log");
    let settings = root.join("settings.json");
    let output = lsp(
        &root,
        &[
            "--json",
            "--settings",
            settings.to_str().expect("utf-8"),
            "--language-id",
            "tpl=html",
            "diagnostics",
            "page.html",
            "Dockerfile",
            "view.tpl",
        ],
        &["--log", log.to_str().expect("utf-8")],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let received: Vec<Value> = std::fs::read_to_string(&log)
        .expect("the server's log")
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let opened: Vec<(String, String)> = received
        .iter()
        .filter(|m| m["method"] == "textDocument/didOpen")
        .map(|m| {
            let doc = &m["params"]["textDocument"];
            let uri = doc["uri"].as_str().unwrap_or("");
            let name = uri.rsplit('/').next().unwrap_or("").to_owned();
            (name, doc["languageId"].as_str().unwrap_or("").to_owned())
        })
        .collect();
    for expected in [
        ("page.html", "html"),
        ("Dockerfile", "dockerfile"),
        ("view.tpl", "html"),
    ] {
        assert!(
            opened
                .iter()
                .any(|(n, id)| n == expected.0 && id == expected.1),
            "{expected:?} in {opened:?}"
        );
    }
    // The fake asks for the sections `fake` and `other`.
    let configuration = received
        .iter()
        .find(|m| m["result"].as_array().is_some_and(|a| a.len() == 2))
        .expect("the configuration answer");
    assert_eq!(
        configuration["result"],
        serde_json::json!([{"lint": true}, {}])
    );

    // A new name that starts with `-`, given with --to.
    std::fs::write(root.join("greet.py"), "def greet():\n    pass\n").expect("greet.py");
    let renamed = lsp(&root, &["rename", "greet.py:1:5", "--to=--primary"], &[]);
    assert_ne!(renamed.status.code(), Some(2), "{renamed:?}");
    assert!(
        !String::from_utf8_lossy(&renamed.stderr).contains("takes FILE:LINE:COL"),
        "{renamed:?}"
    );
    let both = lsp(
        &root,
        &["rename", "greet.py:1:5", "other", "--to", "x"],
        &[],
    );
    assert_eq!(both.status.code(), Some(2), "{both:?}");
    let not_json = root.join("greet.py");
    let bad = lsp(
        &root,
        &[
            "--settings",
            not_json.to_str().expect("utf-8"),
            "symbols",
            "greet.py",
        ],
        &[],
    );
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("is not JSON"),
        "{bad:?}"
    );
}

#[test]
fn a_failure_the_server_reports_ends_the_diagnostics_wait_early_and_exits_one() {
    let root = project("failed");
    let started = std::time::Instant::now();
    let output = lsp(
        &root,
        &["--timeout-ms", "8000", "diagnostics", "a.py"],
        &["--load-fails", "--never-publishes"],
    );
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = stdout(&output);
    assert!(
        text.contains("the server reported a failure and then published nothing more"),
        "{text}"
    );
    assert!(text.contains("project load failed"), "{text}");
    // The 8 s deadline was not waited out.
    assert!(took < std::time::Duration::from_secs(6), "{took:?}");
}

/// Whether `bytes` is a sequence of whole `Content-Length` frames.
fn whole_frames(mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
            return false;
        };
        let headers = String::from_utf8_lossy(&bytes[..end]).into_owned();
        let Some(length) = headers
            .lines()
            .find_map(|line| line.strip_prefix("Content-Length: "))
            .and_then(|n| n.trim().parse::<usize>().ok())
        else {
            return false;
        };
        let Some(rest) = bytes.get(end + 4 + length..) else {
            return false;
        };
        bytes = rest;
    }
    true
}

#[test]
fn the_recording_stops_on_a_whole_frame_at_its_cap() {
    let root = project("capped");
    let recording = root.join("session.bin");
    let path = recording.to_str().expect("utf-8");
    let output = lsp(&root, &["--record", path, "symbols", "a.py"], &[]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let full = std::fs::read(&recording).expect("recording");
    assert!(whole_frames(&full));
    let cap = full.len() / 2;
    let output = lsp(
        &root,
        &[
            "--json",
            "--record",
            path,
            "--record-max-bytes",
            &cap.to_string(),
            "symbols",
            "a.py",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let capped = std::fs::read(&recording).expect("recording");
    assert!(
        capped.len() <= cap && !capped.is_empty(),
        "{} of {cap}",
        capped.len()
    );
    assert!(whole_frames(&capped), "the capped recording ends mid-frame");
    assert_eq!(
        document(&output)["server"]["recording_stopped_at_bytes"],
        capped.len()
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("the recording stopped at"));
}

#[test]
fn bad_usage_exits_2() {
    let root = project("usage");
    for args in [
        &["definition", "a.py"][..],
        &["definition", "a.py:0:1"],
        &["fly", "a.py:1:1"],
        &["symbols", "missing.py"],
        &["--init-options", "{not json", "symbols", "a.py"],
    ] {
        let output = lsp(&root, args, &[]);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
    }
    let output = lsp(&root, &["definition", "a.py:40:1"], &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("line 40 is past the end"));
}

#[test]
fn a_recorded_session_validates_clean_against_lsp() {
    let root = project("validate");
    let recording = root.join("session.bin");
    let output = lsp(
        &root,
        &[
            "--record",
            recording.to_str().expect("utf-8"),
            "references",
            "a.py:2:1",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let validated = wirekit(
        &[
            "validate",
            "--protocol",
            "lsp",
            recording.to_str().expect("utf-8"),
        ],
        b"",
    );
    let said = String::from_utf8_lossy(&validated.stderr);
    assert_eq!(
        validated.status.code(),
        Some(0),
        "{said}{}",
        stdout(&validated)
    );
    assert!(said.contains("lsp@3.17 session is clean"), "{said}");
    // A recording holding a lying answer is not clean: the monitor finds it.
    let output = lsp(
        &root,
        &[
            "--record",
            recording.to_str().expect("utf-8"),
            "definition",
            "a.py:5:1",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(1));
    let validated = wirekit(
        &[
            "validate",
            "--protocol",
            "lsp",
            recording.to_str().expect("utf-8"),
        ],
        b"",
    );
    assert_eq!(validated.status.code(), Some(1));
    assert!(
        stdout(&validated).contains("invalid_result"),
        "{}",
        stdout(&validated)
    );
}

/// A server still busy (work-done progress that never ends) when asked:
/// the answer comes, with what it was busy with beside the result, for a
/// list result as for an object.
#[test]
fn a_busy_server_still_answers_and_says_so_beside_a_list_result() {
    let root = project("busy");
    let output = lsp(
        &root,
        &["--json", "--timeout-ms", "1500", "definition", "a.py:2:1"],
        &["--progress", "forever"],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let document = document(&output);
    assert!(document["result"].is_array(), "{document}");
    assert!(
        document["still_busy"]
            .as_array()
            .is_some_and(|titles| !titles.is_empty()),
        "{document}"
    );
    let text = lsp(
        &root,
        &["--timeout-ms", "1500", "definition", "a.py:2:1"],
        &["--progress", "forever"],
    );
    assert_eq!(text.status.code(), Some(0), "{text:?}");
    assert!(
        stdout(&text).contains("(the server was still busy: "),
        "{}",
        stdout(&text)
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// The messages the fake server received (and the client's answers to its
/// requests), from its `--log`.
fn logged(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .expect("the server's log")
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

#[test]
fn a_new_name_may_start_with_dashes_given_with_to_in_either_spelling() {
    let root = project("dashes");
    let spellings: [&[&str]; 4] = [
        &["--json", "rename", "a.py:1:5", "--to=--primary"],
        &["--json", "rename", "a.py:1:5", "--to", "--primary"],
        &["--json", "--to", "--primary", "rename", "a.py:1:5"],
        &["--json", "rename", "--to=--primary", "a.py:1:5"],
    ];
    for (n, args) in spellings.iter().enumerate() {
        let log = root.join(format!("rename-{n}.log"));
        let output = lsp(&root, args, &["--log", log.to_str().expect("utf-8")]);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {output:?}");
        let result = &document(&output)["result"];
        assert_eq!(
            result["files"][0]["edits"][0]["new_text"], "--primary",
            "{args:?}: {result}"
        );
        let sent = logged(&log)
            .into_iter()
            .find(|m| m["method"] == "textDocument/rename")
            .expect("a rename request");
        assert_eq!(sent["params"]["newName"], "--primary", "{args:?}");
    }
    // The positional form, where the name is unambiguous.
    let output = lsp(&root, &["rename", "a.py:1:5", "primary"], &[]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(stdout(&output).contains("\"primary\""), "{output:?}");
    // A positional name that starts with `-` is refused with the spelling that works,
    // not clap's `-- --primary` (`--` starts the server command).
    let output = lsp(&root, &["rename", "a.py:1:5", "--primary"], &[]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("--to=--primary"), "{error}");
    assert!(!error.contains("'-- --primary'"), "{error}");
    // An empty new name, and --to with a positional name too.
    let output = lsp(&root, &["rename", "a.py:1:5", "--to="], &[]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("needs a name"),
        "{output:?}"
    );
    let output = lsp(&root, &["--to", "x", "symbols", "a.py"], &[]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
}

#[test]
fn workspace_configuration_is_answered_by_section_path_and_whole_and_empty_objects_by_default() {
    let root = project("configuration");
    let settings = serde_json::json!({
        "css": {"lint": {"unknownProperties": "error"}, "validate": true},
        "html": {"format": {"enable": false}},
    });
    let path = root.join("settings.json");
    std::fs::write(&path, settings.to_string()).expect("settings.json");
    let items = serde_json::json!([
        {"section": "css"},
        {"section": "css.lint"},
        {"section": "css.lint.unknownProperties"},
        {},
        {"section": "missing"},
        {"section": "css.missing"},
        {"scopeUri": "file:///x/a.html", "section": "html"},
    ])
    .to_string();
    let answer = |args: &[&str], name: &str| -> Value {
        let log = root.join(name);
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["symbols", "a.py"]);
        let output = lsp(
            &root,
            &all,
            &[
                "--log",
                log.to_str().expect("utf-8"),
                "--configuration-items",
                &items,
            ],
        );
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        logged(&log)
            .into_iter()
            .find(|m| m.get("method").is_none() && m["result"].is_array())
            .expect("the client's configuration answer")["result"]
            .clone()
    };
    assert_eq!(
        answer(&["--settings", path.to_str().expect("utf-8")], "with.log"),
        serde_json::json!([
            {"lint": {"unknownProperties": "error"}, "validate": true},
            {"unknownProperties": "error"},
            "error",
            settings,
            {},
            {},
            {"format": {"enable": false}},
        ])
    );
    // Without --settings: an empty object, the server's defaults, for every item
    // (LSP 3.17 allows null, which the CSS and HTML servers cannot take).
    assert_eq!(
        answer(&[], "without.log"),
        serde_json::json!([{}, {}, {}, {}, {}, {}, {}])
    );
}

#[test]
fn an_empty_container_name_prints_nothing() {
    let root = project("container");
    std::fs::write(root.join("flat.py"), "def f():\n    pass\n").expect("flat.py");
    std::fs::write(root.join("flat_uncontained.py"), "def f():\n    pass\n").expect("py");
    let contained = lsp(&root, &["symbols", "flat.py"], &[]);
    assert_eq!(contained.status.code(), Some(0), "{contained:?}");
    let uncontained = lsp(&root, &["symbols", "flat_uncontained.py"], &[]);
    assert_eq!(uncontained.status.code(), Some(0), "{uncontained:?}");
    let contained = stdout(&contained);
    let uncontained = stdout(&uncontained);
    assert!(contained.contains(" in m "), "{contained}");
    assert_eq!(uncontained, contained.replace(" in m ", " "));
    assert!(!uncontained.contains(" in "), "{uncontained}");
}

#[test]
fn a_failure_the_server_reports_makes_published_diagnostics_exit_one() {
    let root = project("unclean");
    let output = lsp(&root, &["--json", "diagnostics", "a.py"], &["--load-fails"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let result = &document(&output)["result"];
    assert!(
        result["server_failure"]
            .as_str()
            .is_some_and(|f| f.contains("project load failed")),
        "{result}"
    );
    let output = lsp(&root, &["diagnostics", "a.py"], &["--load-fails"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        stdout(&output).contains("cannot be called clean"),
        "{output:?}"
    );
    // Another query answered nothing after the failure: unavailable, exit 1.
    let output = lsp(
        &root,
        &["--json", "definition", "a.py:4:9"],
        &["--load-fails"],
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(
        document(&output)["error"]["code"],
        "unavailable",
        "{output:?}"
    );
}

#[test]
fn help_documents_the_exit_status() {
    let output = wirekit(&["lsp", "--help"], b"");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let help = stdout(&output);
    assert!(help.contains("Exit status:"), "{help}");
    for line in ["  0  answered", "  1  not answered", "  2  bad usage"] {
        assert!(help.contains(line), "{line} in {help}");
    }
}
