#![allow(clippy::panic, clippy::unwrap_used)]
//! The client against real language servers installed from the package
//! registries by `tests/lsp/install-servers.sh` (python-lsp-server and
//! jedi-language-server from PyPI, pyright from npm; the first test to need
//! them runs it, once). Each
//! server gets a small project made here, one server process for every
//! question: definition, references, hover, symbols, rename (a dry run:
//! the edit applied to the text here, nothing written), diagnostics after
//! an edit, and call hierarchy where the server offers it. Each session is
//! recorded to `target/lsp-sessions/<server>.bin` and checked by the core's
//! monitor against `lsp@3.17` (what `wirekit validate --protocol lsp` does):
//! every one validates clean.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use wirekit::framing::{FrameReader, ReadError};
use wirekit::monitor::SessionChecker;
use wirekit_lsp::client::{Client, Options, SettleOutcome};
use wirekit_lsp::decode::{DocumentSymbols, Severity, WorkspaceEdit};
use wirekit_lsp::text::{to_person, to_server, LineColumn};
use wirekit_lsp::uri::uri_to_path;
use wirekit_lsp::{Feature, Position, RequestError};

const GREET: &str = "def greet(name):\n    return \"hello \" + name\n\n\ndef shout(name):\n    return greet(name).upper()\n";
const MAIN: &str = "from greet import greet, shout\n\nprint(greet(\"x\"))\nprint(shout(\"y\"))\n";
const CLEAN: &str = "import sys\n\n\ndef f():\n    return sys.argv\n";
const UNDEFINED: &str = "import sys\n\n\ndef f():\n    return undefined_name\n";
const SYNTAX_ERROR: &str = "import sys\n\n\ndef f():\n    return (sys.argv\n";

/// A server under test and what it is expected to say.
struct Server {
    name: &'static str,
    command: Command,
    call_hierarchy: bool,
    /// The text that must give an error from line 5 on, and a word of its message.
    broken: &'static str,
    needle: &'static str,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Installs the servers once for this test binary.
fn servers() -> &'static Path {
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let script = repo().join("tests/lsp/install-servers.sh");
        let output = Command::new("bash").arg(&script).output().unwrap();
        assert!(
            output.status.success(),
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        repo().join("tests/lsp")
    })
}

fn project(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirekit-lsp-real-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in [("greet.py", GREET), ("main.py", MAIN), ("c.py", CLEAN)] {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir.canonicalize().unwrap()
}

fn start(name: &str, command: Command, root: &Path) -> Client {
    let sessions = repo().join("target/lsp-sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let mut options = Options::new(root);
    options.request_timeout = Duration::from_secs(30);
    options.recording = Some(Box::new(
        std::fs::File::create(sessions.join(format!("{name}.bin"))).unwrap(),
    ));
    Client::start(command, options).unwrap()
}

/// A person's place in `text`, through the one converter.
fn at(text: &str, line: u32, column: u32) -> Position {
    to_server(text, LineColumn { line, column }).unwrap()
}

fn place(client: &Client, uri: &str, position: Position) -> (String, LineColumn) {
    let path = uri_to_path(uri).unwrap();
    let text = client
        .synced_text(&path)
        .map(str::to_owned)
        .unwrap_or_else(|| std::fs::read_to_string(&path).unwrap());
    (
        path.file_name().unwrap().to_string_lossy().into_owned(),
        to_person(&text, position),
    )
}

/// `edit`'s edits to `path` applied to `text` (ranges in UTF-16 units, applied last first).
fn applied(edit: &WorkspaceEdit, client: &Client, path: &Path, text: &str) -> String {
    let uri = client.uri_of(path).unwrap();
    let mut edits: Vec<_> = edit
        .files
        .iter()
        .filter(|f| f.uri == uri)
        .flat_map(|f| f.edits.clone())
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut result = text.to_owned();
    for change in edits {
        let offset = |p: Position| {
            let line_start: usize = result
                .split_inclusive('\n')
                .take(p.line as usize)
                .map(str::len)
                .sum();
            let line = result[line_start..].split('\n').next().unwrap_or("");
            let mut units = 0;
            let mut bytes = 0;
            for c in line.chars() {
                if units >= p.character as usize {
                    break;
                }
                units += c.len_utf16();
                bytes += c.len_utf8();
            }
            (line_start + bytes).min(result.len())
        };
        let (start, end) = (offset(change.range.start), offset(change.range.end));
        result.replace_range(start..end, &change.new_text);
    }
    result
}

/// Every question to one server, then its recorded session checked.
fn exercise(server: Server) -> Vec<String> {
    let Server {
        name,
        command,
        call_hierarchy,
        broken,
        needle,
    } = server;
    let root = project(name);
    let (greet, main, c) = (
        root.join("greet.py"),
        root.join("main.py"),
        root.join("c.py"),
    );
    let mut client = start(name, command, &root);
    let _ = client
        .ready(Duration::from_millis(300), Duration::from_secs(20))
        .unwrap();
    client.sync(&greet, "python", GREET).unwrap();
    client.sync(&main, "python", MAIN).unwrap();

    // definition: `greet` in main.py line 3 lands on its def in greet.py.
    let found = client.definition(&main, at(MAIN, 3, 7)).unwrap();
    let places: Vec<_> = found
        .iter()
        .map(|l| place(&client, &l.uri, l.range.start))
        .collect();
    assert_eq!(
        places,
        [("greet.py".to_owned(), LineColumn { line: 1, column: 5 })],
        "{name}"
    );

    // references, the declaration included: the def, the call in shout, and main.py's uses.
    let found = client.references(&greet, at(GREET, 1, 5)).unwrap();
    let mut places: Vec<_> = found
        .iter()
        .map(|l| place(&client, &l.uri, l.range.start))
        .collect();
    places.sort();
    for expected in [("greet.py", 1, 5), ("greet.py", 6, 12), ("main.py", 3, 7)] {
        let want = (
            expected.0.to_owned(),
            LineColumn {
                line: expected.1,
                column: expected.2,
            },
        );
        assert!(
            places.contains(&want),
            "{name}: {want:?} not among {places:?}"
        );
    }

    // hover names the function.
    let hover = client.hover(&main, at(MAIN, 3, 8)).unwrap().unwrap();
    assert!(hover.text.contains("greet"), "{name}: {}", hover.text);

    // symbols: both functions, as an outline of either dialect.
    let names: Vec<String> = match client.document_symbols(&greet).unwrap() {
        DocumentSymbols::Hierarchical(symbols) => symbols.into_iter().map(|s| s.name).collect(),
        DocumentSymbols::Flat(symbols) => symbols.into_iter().map(|s| s.name).collect(),
    };
    assert!(
        names.contains(&"greet".to_owned()) && names.contains(&"shout".to_owned()),
        "{name}: {names:?}"
    );

    // rename (dry run): applied here, every use renamed; nothing on disk changed.
    let edit = client.rename(&greet, at(GREET, 1, 5), "hello").unwrap();
    let renamed = applied(&edit, &client, &greet, GREET);
    assert_eq!(renamed, GREET.replace("greet(", "hello("), "{name}");
    let renamed_main = applied(&edit, &client, &main, MAIN);
    assert_eq!(
        renamed_main,
        MAIN.replace("import greet,", "import hello,")
            .replace("greet(", "hello("),
        "{name}"
    );
    assert_eq!(std::fs::read_to_string(&greet).unwrap(), GREET);

    // diagnostics after an edit: clean, then an undefined name at 5:12, then clean again.
    for (text, expect_error) in [(CLEAN, false), (broken, true), (CLEAN, false)] {
        client.sync(&c, "python", text).unwrap();
        let settled = client
            .settle(std::slice::from_ref(&c), Duration::from_secs(30), true)
            .unwrap();
        assert_eq!(settled.outcome, SettleOutcome::Settled, "{name}");
        let uri = client.uri_of(&c).unwrap();
        let errors: Vec<_> = settled
            .publications
            .iter()
            .filter(|p| p.uri == uri)
            .flat_map(|p| p.diagnostics.iter())
            .filter(|d| d.severity == Severity::Error)
            .collect();
        if expect_error {
            assert!(!errors.is_empty(), "{name}: no error in the broken text");
            let (_, where_) = place(&client, &uri, errors[0].range.start);
            assert!(where_.line >= 5, "{name}: the error is at {where_}");
            assert!(
                errors[0].message.contains(needle),
                "{name}: {}",
                errors[0].message
            );
        } else {
            assert!(errors.is_empty(), "{name}: {errors:?}");
        }
    }

    // call hierarchy where offered; refused without sending where not.
    if call_hierarchy {
        let items = client
            .prepare_call_hierarchy(&greet, at(GREET, 1, 5))
            .unwrap();
        assert_eq!(items[0].name, "greet", "{name}");
        let callers: Vec<String> = client
            .incoming_calls(&items[0])
            .unwrap()
            .into_iter()
            .map(|c| c.from.name)
            .collect();
        assert!(callers.contains(&"shout".to_owned()), "{name}: {callers:?}");
        let items = client
            .prepare_call_hierarchy(&greet, at(GREET, 5, 5))
            .unwrap();
        let callees: Vec<String> = client
            .outgoing_calls(&items[0])
            .unwrap()
            .into_iter()
            .map(|c| c.to.name)
            .collect();
        assert!(callees.contains(&"greet".to_owned()), "{name}: {callees:?}");
    } else {
        assert!(!client.supports(Feature::CallHierarchy));
        let refused = client
            .prepare_call_hierarchy(&greet, at(GREET, 1, 5))
            .unwrap_err();
        assert_eq!(refused, RequestError::Unsupported(Feature::CallHierarchy));
    }
    let stop = client.stop(Duration::from_secs(5));
    assert_eq!(stop.name(), "graceful", "{name}: {stop:?}");
    let _ = std::fs::remove_dir_all(&root);
    problems(&repo().join(format!("target/lsp-sessions/{name}.bin")))
}

/// What the core's monitor finds in a recorded session, against `lsp@3.17`.
fn problems(recording: &Path) -> Vec<String> {
    let protocol = wirekit_protocols::protocol("lsp@3.17").unwrap();
    let transport = &protocol.manifest().transport;
    let file = std::fs::File::open(recording).unwrap();
    let mut reader = FrameReader::new(file, transport.framing, transport.frame_limits());
    let mut checker = SessionChecker::new(Arc::clone(&protocol));
    loop {
        match reader.read_frame() {
            Ok(None) => break,
            Ok(Some(frame)) => checker.on_frame(Ok(frame)),
            Err(ReadError::Framing(fault)) => checker.on_frame(Err(fault)),
            Err(ReadError::Io(error)) => panic!("{}: {error}", recording.display()),
        }
    }
    assert!(
        checker.frames() > 20,
        "{}: {} frames",
        recording.display(),
        checker.frames()
    );
    checker.finish().iter().map(ToString::to_string).collect()
}

#[test]
fn pyright_from_npm() {
    let mut command = Command::new(servers().join("node_modules/.bin/pyright-langserver"));
    command.arg("--stdio");
    let server = Server {
        name: "pyright",
        command,
        call_hierarchy: true,
        broken: UNDEFINED,
        needle: "undefined_name",
    };
    assert_eq!(
        exercise(server),
        Vec::<String>::new(),
        "the session validates clean"
    );
}

#[test]
fn jedi_language_server_from_pypi() {
    let command = Command::new(servers().join(".venv/bin/jedi-language-server"));
    let server = Server {
        name: "jedi",
        command,
        call_hierarchy: false,
        broken: SYNTAX_ERROR,
        needle: "",
    };
    assert_eq!(
        exercise(server),
        Vec::<String>::new(),
        "the session validates clean"
    );
}

#[test]
fn python_lsp_server_from_pypi() {
    let command = Command::new(servers().join(".venv/bin/pylsp"));
    let server = Server {
        name: "pylsp",
        command,
        call_hierarchy: false,
        broken: UNDEFINED,
        needle: "undefined_name",
    };
    // pylsp's flat outline writes `"containerName": null`; the LSP schemas
    // allow null for an optional member, as real servers send it.
    assert_eq!(
        exercise(server),
        Vec::<String>::new(),
        "the session validates clean"
    );
}
