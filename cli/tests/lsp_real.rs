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
