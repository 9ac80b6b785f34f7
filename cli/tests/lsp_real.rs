#![allow(clippy::panic)]
//! `wirekit lsp` as a person runs it, against real language servers
//! (python-lsp-server from PyPI, typescript-language-server with TypeScript
//! 5 from npm, installed by `tests/lsp/install-servers.sh`): the answer as
//! text, the session recorded and validated clean.

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use support::wirekit;

/// The repository, with the servers installed.
fn installed() -> std::path::PathBuf {
    support::installed("tests/lsp/install-servers.sh");
    support::repo()
}

/// typescript-language-server loads the project only once a file is open,
/// and answers from the file's syntax until then: a definition asked at
/// once lands on the import line. The client waits until the server has
/// looked at the file.
#[test]
fn typescript_answers_after_loading_the_project_opened_with_the_file() {
    let repo = installed();
    let server = repo.join("tests/lsp/node_modules/.bin/typescript-language-server");
    let root = std::env::temp_dir().join(format!("wirekit-cli-lsp-ts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("src")).expect("project");
    std::fs::write(
        root.join("tsconfig.json"),
        r#"{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs"}, "include": ["src"]}"#,
    )
    .expect("tsconfig");
    std::fs::write(
        root.join("src/util.ts"),
        "export function greet(name: string): string {\n  return `hello ${name}`;\n}\n",
    )
    .expect("util.ts");
    std::fs::write(
        root.join("src/main.ts"),
        "import { greet } from \"./util\";\n\nconst message: string = greet(\"world\");\nconst wrong: number = greet(\"x\");\nconsole.log(message, wrong);\n",
    )
    .expect("main.ts");
    let ask = |query: &[&str]| {
        let mut args = vec!["lsp", "--root", root.to_str().expect("utf-8")];
        args.extend_from_slice(query);
        args.extend_from_slice(&["--", server.to_str().expect("utf-8"), "--stdio"]);
        let output = wirekit(&args, b"");
        assert_eq!(output.status.code(), Some(0), "{query:?}: {output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    for _ in 0..3 {
        assert_eq!(
            ask(&["definition", "src/main.ts:3:25"]),
            "src/util.ts:1:17\n"
        );
    }
    assert_eq!(
        ask(&["diagnostics", "src/main.ts"]),
        "src/main.ts:4:7: error: Type 'string' is not assignable to type 'number'. [typescript]\n"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn pylsp_answers_references_and_the_recording_validates() {
    let repo = installed();
    let pylsp = repo.join("tests/lsp/.venv/bin/pylsp");
    let root = repo.join("examples/lsp");
    let recording =
        std::env::temp_dir().join(format!("wirekit-cli-lsp-real-{}.bin", std::process::id()));
    let args = [
        "lsp",
        "--root",
        root.to_str().expect("utf-8"),
        "--record",
        recording.to_str().expect("utf-8"),
        "references",
        "greet.py:1:5",
        "--",
        pylsp.to_str().expect("utf-8"),
    ];
    let output = wirekit(&args, b"");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "greet.py:1:5\ngreet.py:6:12\nmain.py:1:19\nmain.py:3:7\n"
    );
    let validated = wirekit(
        &[
            "validate",
            "--protocol",
            "lsp",
            recording.to_str().expect("utf-8"),
        ],
        b"",
    );
    assert_eq!(validated.status.code(), Some(0), "{validated:?}");
    let _ = std::fs::remove_file(&recording);
}

#[allow(dead_code)] // the library's fixtures this file does not use
#[path = "../../lsp/tests/real/projects.rs"]
mod projects;

/// `wirekit lsp` on one of the library's test projects: `definition` of
/// `greet` where `main` uses it, recorded and validated clean, then
/// `diagnostics` of the scratch file with its broken text on disk.
fn definition_and_diagnostics(
    name: &str,
    server: &[&str],
    project: &projects::Project,
    broken: &projects::Broken,
) {
    let repo = installed();
    let root = std::env::temp_dir().join(format!("wirekit-cli-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("project");
    let root = root.canonicalize().expect("canonical");
    for (file, text) in project.files {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
        let text = if *file == project.scratch.0 {
            broken.text.to_owned()
        } else {
            text.replace("{root}", root.to_str().expect("utf-8"))
        };
        std::fs::write(path, text).expect("file");
    }
    let recording = root.join("session.bin");
    let server: Vec<String> = server
        .iter()
        .map(|part| {
            part.strip_prefix("npm:").map_or_else(
                || (*part).to_owned(),
                |bin| {
                    repo.join("tests/lsp/node_modules/.bin")
                        .join(bin)
                        .display()
                        .to_string()
                },
            )
        })
        .collect();
    let ask = |query: &[&str], record: bool| {
        let mut args = vec!["lsp", "--root", root.to_str().expect("utf-8")];
        if record {
            args.extend_from_slice(&["--record", recording.to_str().expect("utf-8")]);
        }
        args.extend_from_slice(query);
        args.push("--");
        args.extend(server.iter().map(String::as_str));
        let output = wirekit(&args, b"");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{name} {query:?}: {output:?}"
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let (line, column) = project.greet_use;
    let at = format!("{}:{line}:{column}", project.main);
    let (line, column) = project.greet_definition;
    // A server may still be indexing what it need not have for the answer
    // (rust-analyzer's standard library): the note follows the answer.
    let answer = ask(&["definition", &at], true);
    let (first, rest) = answer.split_once('\n').unwrap_or((&answer, ""));
    assert_eq!(
        first,
        format!("{}:{line}:{column}", project.greet),
        "{name}"
    );
    assert!(
        rest.is_empty() || rest.starts_with("(the server was still busy: "),
        "{name}: {answer}"
    );
    // The sides file beside the recording: validate checks each message's direction.
    assert!(root.join("session.bin.sides").is_file(), "{name}");
    let validated = wirekit(
        &[
            "validate",
            "--protocol",
            "lsp",
            recording.to_str().expect("utf-8"),
        ],
        b"",
    );
    assert_eq!(validated.status.code(), Some(0), "{name}: {validated:?}");
    let diagnostics = ask(&["diagnostics", project.scratch.0], false);
    let first_error = diagnostics
        .lines()
        .find(|l| l.contains(": error: "))
        .unwrap_or_else(|| panic!("{name}: no error in {diagnostics}"));
    let line: u32 = first_error
        .split(':')
        .nth(1)
        .and_then(|l| l.parse().ok())
        .expect("a line number");
    assert!(line >= broken.line, "{name}: {first_error}");
    assert!(diagnostics.contains(broken.needle), "{name}: {diagnostics}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn clangd_through_the_command() {
    definition_and_diagnostics("clangd", &["clangd"], &projects::C, &projects::C_UNDEFINED);
}

#[test]
fn gopls_through_the_command() {
    definition_and_diagnostics("gopls", &["gopls"], &projects::GO, &projects::GO_UNDEFINED);
}

#[test]
fn bash_language_server_through_the_command() {
    definition_and_diagnostics(
        "bash",
        &["npm:bash-language-server", "start"],
        &projects::BASH,
        &projects::BASH_UNCLOSED_IF,
    );
}

#[test]
fn typescript_language_server_through_the_command() {
    definition_and_diagnostics(
        "typescript",
        &["npm:typescript-language-server", "--stdio"],
        &projects::TYPESCRIPT,
        &projects::TYPESCRIPT_UNDEFINED,
    );
}

/// Where `rustup component add rust-analyzer` did not work, install-servers.sh
/// wrote why, and this test says so.
#[test]
fn rust_analyzer_through_the_command() {
    let repo = installed();
    if let Ok(why) = std::fs::read_to_string(repo.join("tests/lsp/rust-analyzer.unavailable")) {
        eprintln!("rust-analyzer: not run: {}", why.trim());
        return;
    }
    definition_and_diagnostics(
        "rust-analyzer",
        &["rust-analyzer"],
        &projects::RUST,
        &projects::RUST_MISMATCH,
    );
}

/// A fresh folder with `files`, for the web servers' tests.
fn web_project(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let root = std::env::temp_dir().join(format!("wirekit-cli-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("project");
    for (file, text) in files {
        std::fs::write(root.join(file), text).expect("file");
    }
    root
}

/// `wirekit lsp --root ROOT QUERY -- SERVER --stdio` as text: exit status and stdout.
fn ask_web(root: &std::path::Path, server: &str, query: &[&str]) -> (Option<i32>, String) {
    let server = installed().join("tests/lsp/node_modules/.bin").join(server);
    let mut args = vec![
        "lsp",
        "--root",
        root.to_str().expect("utf-8"),
        "--timeout-ms",
        "8000",
    ];
    args.extend_from_slice(query);
    args.extend_from_slice(&["--", server.to_str().expect("utf-8"), "--stdio"]);
    let output = wirekit(&args, b"");
    (
        output.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

const PAGE: &str = "<!DOCTYPE html>\n<html>\n<head>\n<style>\np { colr: red; }\n</style>\n</head>\n<body>\n<p>hi</p>\n<script>\nlet x = ;\n</script>\n</body>\n</html>\n";
const STYLES: &str = ":root {\n  --primary: #333;\n}\np { color: var(--primary); colr: red; }\na { color: var(--primary); }\n";

/// The HTML server validates only a document whose languageId is `html`, and
/// its JavaScript mode reads `js/ts.implicitProjectConfig` from the settings
/// answer: both faults of the page (embedded CSS and JavaScript) are found.
#[test]
fn the_html_server_reports_the_embedded_css_and_javascript_faults() {
    let root = web_project("html", &[("page.html", PAGE)]);
    let started = std::time::Instant::now();
    let (status, text) = ask_web(
        &root,
        "vscode-html-language-server",
        &["diagnostics", "page.html"],
    );
    assert_eq!(status, Some(0), "{text}");
    assert_eq!(
        text,
        "page.html:5:5: warning: Unknown property: 'colr' [css]\npage.html:11:9: error: Expression expected. [javascript]\n"
    );
    // Settled long before the 8 s deadline, the whole run included (about
    // 2 s here).
    assert!(
        started.elapsed() < std::time::Duration::from_secs(7),
        "{:?}",
        started.elapsed()
    );
    // The wait for the diagnostics themselves, from the document's sync to
    // settling (the server's start is not in it): the issue's 3 s.
    let (status, text) = ask_web(
        &root,
        "vscode-html-language-server",
        &["--json", "diagnostics", "page.html"],
    );
    assert_eq!(status, Some(0), "{text}");
    // stdout's JSON document comes first (stderr follows it in `text`).
    let answer: serde_json::Value = serde_json::Deserializer::from_str(&text)
        .into_iter()
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("a JSON document: {text}"));
    let result = &answer["result"];
    assert_eq!(result["settled"], true, "{text}");
    assert_eq!(
        result["diagnostics"].as_array().map(Vec::len),
        Some(2),
        "{text}"
    );
    let waited = result["waited_ms"].as_u64().expect("waited_ms");
    assert!(waited < 3000, "settled in {waited} ms: {text}");
    let (status, text) = ask_web(
        &root,
        "vscode-html-language-server",
        &["symbols", "page.html"],
    );
    assert_eq!(status, Some(0), "{text}");
    assert!(text.contains("p 5:1") && text.contains("x 11:5"), "{text}");
}

/// The CSS server fails on a `null` settings answer; with `{}` it reports
/// its warning, and a custom property is renamed to a name that starts with `--`.
#[test]
fn the_css_server_reports_and_renames_a_custom_property() {
    let root = web_project("css", &[("styles.css", STYLES)]);
    let (status, text) = ask_web(
        &root,
        "vscode-css-language-server",
        &["diagnostics", "styles.css"],
    );
    assert_eq!(status, Some(0), "{text}");
    assert_eq!(
        text,
        "styles.css:4:28: warning: Unknown property: 'colr' [css]\n"
    );
    let (status, text) = ask_web(
        &root,
        "vscode-css-language-server",
        &["rename", "styles.css:2:3", "--to=--main-color"],
    );
    assert_eq!(status, Some(0), "{text}");
    assert_eq!(
        text,
        "styles.css:2:3-2:12: \"--main-color\"\nstyles.css:4:16-4:25: \"--main-color\"\nstyles.css:5:16-5:25: \"--main-color\"\n(nothing was written)\n"
    );
    // The new name as the next argument of --to, and the place after it.
    let (status, spaced) = ask_web(
        &root,
        "vscode-css-language-server",
        &["rename", "--to", "--main-color", "styles.css:2:3"],
    );
    assert_eq!(status, Some(0), "{spaced}");
    assert_eq!(spaced, text);
    let (status, text) = ask_web(
        &root,
        "vscode-css-language-server",
        &["symbols", "styles.css"],
    );
    assert_eq!(status, Some(0), "{text}");
    assert_eq!(text, "class :root 1:1\nclass p 4:1\nclass a 5:1\n");
}

/// yaml-language-server: a languageId of `yaml` (not plaintext), its syntax error and its outline.
#[test]
fn the_yaml_server_reports_a_syntax_error_and_the_outline() {
    let ci = "name: build\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps: [\n";
    let root = web_project("yaml", &[("ci.yaml", ci)]);
    let (status, text) = ask_web(&root, "yaml-language-server", &["diagnostics", "ci.yaml"]);
    assert_eq!(status, Some(0), "{text}");
    assert!(
        text.starts_with("ci.yaml:7:1: error: Flow sequence in block collection"),
        "{text}"
    );
    let (status, text) = ask_web(&root, "yaml-language-server", &["symbols", "ci.yaml"]);
    assert_eq!(status, Some(0), "{text}");
    assert_eq!(
        text,
        "string name 1:1\nstring on 2:1\nmodule jobs 3:1\n  module test 4:3\n    string runs-on 5:5\n    array steps 6:5\n"
    );
}
