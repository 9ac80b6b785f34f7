#![allow(clippy::panic, clippy::unwrap_used)]
//! The client against real language servers installed from the package
//! registries by `tests/lsp/install-servers.sh` (the first test to need
//! them runs it, once): python-lsp-server and jedi-language-server from
//! PyPI; pyright, typescript-language-server with TypeScript 5 and
//! bash-language-server from npm; clangd, gopls and shellcheck from
//! Debian; rust-analyzer from rustup where `rustup component add` works.
//! Each server gets a small project made here (`real/projects.rs`, the
//! same program in each language), one server process for every question:
//! definition, references, hover, symbols, rename (a dry run: the edit
//! applied to the text here, nothing written), diagnostics after an edit
//! (clean, broken, clean again), and call hierarchy where the server offers
//! it, each answer's place asserted. Each session is recorded to
//! `target/lsp-sessions/<server>.bin` and checked by the core's monitor
//! against `lsp@3.17` (what `wirekit validate --protocol lsp` does): every
//! one validates clean.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use wirekit::capture::{Sender, Sides};
use wirekit::framing::{FrameReader, ReadError};
use wirekit::monitor::{Problem, ProblemKind, SessionChecker};
use wirekit_lsp::client::{Client, Options, SettleOutcome};
use wirekit_lsp::decode::{DocumentSymbols, Severity, WorkspaceEdit};
use wirekit_lsp::text::{to_person, to_server, LineColumn};
use wirekit_lsp::uri::uri_to_path;
use wirekit_lsp::{Feature, Position, RequestError};

#[path = "real/projects.rs"]
mod projects;

use projects::{Broken, Project};

/// A server under test and what it is expected to do.
struct Server {
    name: &'static str,
    command: Command,
    project: &'static Project,
    broken: Broken,
    /// Whether it offers call hierarchy.
    call_hierarchy: bool,
    /// Whether it answers `callHierarchy/outgoingCalls` (clangd 14 offers
    /// call hierarchy but answers that one "method not found").
    outgoing_calls: bool,
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

fn project(name: &str, project: &Project) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirekit-lsp-real-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    for (file, text) in project.files {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text = text.replace("{root}", dir.to_str().unwrap());
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// The text of `file` in `project`.
fn text_of(project: &Project, file: &str) -> &'static str {
    project
        .files
        .iter()
        .find(|(name, _)| *name == file)
        .map(|(_, text)| *text)
        .unwrap()
}

fn start(name: &str, command: Command, root: &Path) -> Client {
    let sessions = repo().join("target/lsp-sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let mut options = Options::new(root);
    options.request_timeout = Duration::from_secs(30);
    options.handshake_timeout = Duration::from_secs(120);
    options.recording = Some(Box::new(
        std::fs::File::create(sessions.join(format!("{name}.bin"))).unwrap(),
    ));
    options.recording_sides = Some(Box::new(
        std::fs::File::create(sessions.join(format!("{name}.bin.sides"))).unwrap(),
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
    let began = Instant::now();
    let Server {
        name,
        command,
        project,
        broken,
        call_hierarchy,
        outgoing_calls,
    } = server;
    let root = self::project(name, project);
    let (greet_text, main_text) = (
        text_of(project, project.greet),
        text_of(project, project.main),
    );
    let (greet, main, scratch) = (
        root.join(project.greet),
        root.join(project.main),
        root.join(project.scratch.0),
    );
    let file_name = |file: &str| {
        Path::new(file)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let mut client = start(name, command, &root);
    let _ = client
        .ready(Duration::from_millis(300), Duration::from_secs(60))
        .unwrap();
    client.sync(&greet, project.language, greet_text).unwrap();
    client.sync(&main, project.language, main_text).unwrap();
    // As `wirekit lsp` does: a server may load the project only once a
    // file is open (typescript-language-server), so wait until it has
    // looked at the files, then for a quiet moment.
    let _ = client
        .looked_at(&[greet.clone(), main.clone()], Duration::from_secs(30))
        .unwrap();
    let _ = client
        .ready(Duration::from_millis(300), Duration::from_secs(60))
        .unwrap();

    // definition: `greet` used in main lands on its definition.
    let (line, column) = project.greet_use;
    let found = client
        .definition(&main, at(main_text, line, column))
        .unwrap();
    let places: Vec<_> = found
        .iter()
        .map(|l| place(&client, &l.uri, l.range.start))
        .collect();
    let (line, column) = project.greet_definition;
    assert_eq!(
        places,
        [(file_name(project.greet), LineColumn { line, column })],
        "{name}"
    );

    // references, the declaration included.
    let found = client
        .references(&greet, at(greet_text, line, column))
        .unwrap();
    let mut places: Vec<_> = found
        .iter()
        .map(|l| place(&client, &l.uri, l.range.start))
        .collect();
    places.sort();
    for &(file, line, column) in project.references {
        let want = (file.to_owned(), LineColumn { line, column });
        assert!(
            places.contains(&want),
            "{name}: {want:?} not among {places:?}"
        );
    }

    // hover names the function.
    let (use_line, use_column) = project.greet_use;
    let hover = client
        .hover(&main, at(main_text, use_line, use_column))
        .unwrap()
        .unwrap();
    assert!(hover.text.contains("greet"), "{name}: {}", hover.text);

    // symbols: both functions, as an outline of either dialect.
    let names: Vec<String> = match client.document_symbols(&greet).unwrap() {
        DocumentSymbols::Hierarchical(symbols) => symbols.into_iter().map(|s| s.name).collect(),
        DocumentSymbols::Flat(symbols) => symbols.into_iter().map(|s| s.name).collect(),
    };
    assert!(
        names.iter().any(|n| n.starts_with("greet"))
            && names.iter().any(|n| n.starts_with("shout")),
        "{name}: {names:?}"
    );

    // rename (dry run): applied here, every use renamed; nothing on disk changed.
    let edit = client
        .rename(&greet, at(greet_text, line, column), "hello")
        .unwrap();
    let mut files: Vec<&str> = project.renamed.iter().map(|(file, _, _)| *file).collect();
    files.dedup();
    for file in files {
        let text = text_of(project, file);
        let expected = project
            .renamed
            .iter()
            .filter(|(f, _, _)| *f == file)
            .fold(text.to_owned(), |text, (_, from, to)| {
                text.replace(from, to)
            });
        assert_eq!(
            applied(&edit, &client, &root.join(file), text),
            expected,
            "{name}: {file} renamed"
        );
    }
    assert_eq!(std::fs::read_to_string(&greet).unwrap(), greet_text);

    // diagnostics after an edit: clean, then the broken text's error, then clean again.
    let clean = project.scratch.1;
    for (text, expect_error) in [(clean, false), (broken.text, true), (clean, false)] {
        client.sync(&scratch, project.language, text).unwrap();
        let settled = client
            .settle(
                std::slice::from_ref(&scratch),
                Duration::from_secs(60),
                true,
            )
            .unwrap();
        assert_eq!(settled.outcome, SettleOutcome::Settled, "{name}");
        let uri = client.uri_of(&scratch).unwrap();
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
            assert!(
                where_.line >= broken.line,
                "{name}: the error is at {where_}"
            );
            assert!(
                errors.iter().any(|e| e.message.contains(broken.needle)),
                "{name}: {errors:?}"
            );
        } else {
            assert!(errors.is_empty(), "{name}: {errors:?}");
        }
    }

    // call hierarchy where offered; refused without sending where not.
    assert_eq!(
        client.supports(Feature::CallHierarchy),
        call_hierarchy,
        "{name}"
    );
    if call_hierarchy {
        let items = client
            .prepare_call_hierarchy(&greet, at(greet_text, line, column))
            .unwrap();
        assert_eq!(items[0].name, "greet", "{name}");
        let callers: Vec<String> = client
            .incoming_calls(&items[0])
            .unwrap()
            .into_iter()
            .map(|c| c.from.name)
            .collect();
        assert!(callers.contains(&"shout".to_owned()), "{name}: {callers:?}");
        let (line, column) = project.shout_definition;
        let items = client
            .prepare_call_hierarchy(&greet, at(greet_text, line, column))
            .unwrap();
        assert_eq!(items[0].name, "shout", "{name}");
        match client.outgoing_calls(&items[0]) {
            Ok(calls) => {
                assert!(outgoing_calls, "{name}: answered outgoing calls");
                let callees: Vec<String> = calls.into_iter().map(|c| c.to.name).collect();
                assert!(callees.contains(&"greet".to_owned()), "{name}: {callees:?}");
            }
            Err(RequestError::ServerError { code, .. }) => {
                assert!(!outgoing_calls, "{name}: outgoing calls refused ({code})");
                assert_eq!(code, -32601, "{name}: method not found");
            }
            Err(other) => panic!("{name}: {other}"),
        }
    } else {
        let refused = client
            .prepare_call_hierarchy(&greet, at(greet_text, line, column))
            .unwrap_err();
        assert_eq!(refused, RequestError::Unsupported(Feature::CallHierarchy));
    }
    let stop = client.stop(Duration::from_secs(5));
    assert_eq!(stop.name(), "graceful", "{name}: {stop:?}");
    let _ = std::fs::remove_dir_all(&root);
    eprintln!(
        "{name}: every question answered in {:.1} s",
        began.elapsed().as_secs_f64()
    );
    problems(&repo().join(format!("target/lsp-sessions/{name}.bin")))
}

/// What the core's monitor finds in a recorded session, against `lsp@3.17`,
/// with its sides file: each message's direction checked and its faults
/// blamed on the peer that sent it.
fn problems(recording: &Path) -> Vec<String> {
    let protocol = wirekit_protocols::protocol("lsp@3.17").unwrap();
    let transport = &protocol.manifest().transport;
    let file = std::fs::File::open(recording).unwrap();
    let sides_file = format!("{}.sides", recording.display());
    let sides = Sides::parse(&std::fs::read_to_string(sides_file).unwrap()).unwrap();
    let mut reader = FrameReader::new(file, transport.framing, transport.frame_limits());
    let mut checker = SessionChecker::new(Arc::clone(&protocol));
    let mut senders = [0_usize; 2];
    loop {
        let sender = sides.sender_at(reader.consumed());
        if let Some(sender) = sender {
            senders[usize::from(sender == Sender::Server)] += 1;
        }
        match reader.read_frame() {
            Ok(None) => break,
            Ok(Some(frame)) => checker.on_frame_from(Ok(frame), sender),
            Err(ReadError::Framing(fault)) => checker.on_frame_from(Err(fault), sender),
            Err(ReadError::Io(error)) => panic!("{}: {error}", recording.display()),
        }
    }
    assert!(
        senders[0] > 5 && senders[1] > 5,
        "{}: frames by client and server: {senders:?}",
        recording.display()
    );
    assert!(
        checker.frames() > 20,
        "{}: {} frames",
        recording.display(),
        checker.frames()
    );
    // A server's own `$/` notification (`$/typescriptVersion`) is a
    // warning the protocol allows for: counted, not a problem.
    let (allowed, problems): (Vec<&Problem>, Vec<&Problem>) = checker
        .finish()
        .iter()
        .partition(|p| p.kind == ProblemKind::ImplementationDependent);
    if !allowed.is_empty() {
        eprintln!(
            "{}: {} implementation-dependent `$/` notifications (warnings)",
            recording.display(),
            allowed.len()
        );
    }
    problems.iter().map(ToString::to_string).collect()
}

/// The test of one server: every answer right and the session clean.
fn check(server: Server) {
    let name = server.name;
    assert_eq!(
        exercise(server),
        Vec::<String>::new(),
        "{name}: the session validates clean"
    );
}

fn npm(name: &str, args: &[&str]) -> Command {
    let mut command = Command::new(servers().join("node_modules/.bin").join(name));
    command.args(args);
    command
}

#[test]
fn pyright_from_npm() {
    check(Server {
        name: "pyright",
        command: npm("pyright-langserver", &["--stdio"]),
        project: &projects::PYTHON,
        broken: projects::PYTHON_UNDEFINED,
        call_hierarchy: true,
        outgoing_calls: true,
    });
}

#[test]
fn jedi_language_server_from_pypi() {
    check(Server {
        name: "jedi",
        command: Command::new(servers().join(".venv/bin/jedi-language-server")),
        project: &projects::PYTHON,
        broken: projects::PYTHON_SYNTAX_ERROR,
        call_hierarchy: false,
        outgoing_calls: false,
    });
}

/// pylsp's flat outline writes `"containerName": null`; the LSP schemas
/// allow null for an optional member, as real servers send it.
#[test]
fn python_lsp_server_from_pypi() {
    check(Server {
        name: "pylsp",
        command: Command::new(servers().join(".venv/bin/pylsp")),
        project: &projects::PYTHON,
        broken: projects::PYTHON_UNDEFINED,
        call_hierarchy: false,
        outgoing_calls: false,
    });
}

#[test]
fn typescript_language_server_from_npm() {
    check(Server {
        name: "typescript",
        command: npm("typescript-language-server", &["--stdio"]),
        project: &projects::TYPESCRIPT,
        broken: projects::TYPESCRIPT_UNDEFINED,
        call_hierarchy: true,
        outgoing_calls: true,
    });
}

#[test]
fn bash_language_server_from_npm() {
    check(Server {
        name: "bash",
        command: npm("bash-language-server", &["start"]),
        project: &projects::BASH,
        broken: projects::BASH_UNCLOSED_IF,
        call_hierarchy: false,
        outgoing_calls: false,
    });
}

#[test]
fn clangd_from_debian() {
    check(Server {
        name: "clangd",
        command: installed_command("clangd"),
        project: &projects::C,
        broken: projects::C_UNDEFINED,
        call_hierarchy: true,
        outgoing_calls: false,
    });
}

#[test]
fn gopls_from_debian() {
    check(Server {
        name: "gopls",
        command: installed_command("gopls"),
        project: &projects::GO,
        broken: projects::GO_UNDEFINED,
        call_hierarchy: true,
        outgoing_calls: true,
    });
}

/// rust-analyzer comes from rustup, where `rustup component add` works:
/// where it did not, install-servers.sh wrote why, and this test says so.
#[test]
fn rust_analyzer_from_rustup() {
    if let Ok(why) = std::fs::read_to_string(servers().join("rust-analyzer.unavailable")) {
        eprintln!("rust-analyzer: not run: {}", why.trim());
        return;
    }
    check(Server {
        name: "rust-analyzer",
        command: installed_command("rust-analyzer"),
        project: &projects::RUST,
        broken: projects::RUST_MISMATCH,
        call_hierarchy: true,
        outgoing_calls: true,
    });
}

/// A server installed on PATH by install-servers.sh (from Debian, or rustup).
fn installed_command(name: &str) -> Command {
    let _ = servers();
    Command::new(name)
}
