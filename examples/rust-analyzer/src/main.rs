//! A toy Gaze analyzer for Rust: the generated `GazeAnalyzerServer` trait,
//! implemented by one struct, served by the wirekit serve loop.
//!
//! Every `fn` in the `.rs` files under the project root is a function; its
//! complexity is one plus its branch keywords; a function returning a value
//! has a `ReturnValue` effect, one returning `Result` an `ErrorReturn` too.
//! Only the files the request's `patterns` name are read (`./...` or none
//! is every file, `dir/...` a folder, else a file, a folder or a `*` glob).
//! Run it as `gaze crap --analyzer gaze-analyzer-rust ./src`.

use std::path::Path;

use wirekit::envelope::ErrorObject;
use wirekit_protocols::gaze_analyzer_v1_0_0::types::*;
use wirekit_protocols::gaze_analyzer_v1_0_0::{GazeAnalyzerHandler, GazeAnalyzerServer};

/// One function found in a source file.
struct Found {
    name: String,
    file: String,
    line: i64,
    returns: Option<String>,
    complexity: i64,
}

/// The analyzer: what it found under the root it was given.
#[derive(Default)]
struct RustAnalyzer {
    root: String,
}

impl RustAnalyzer {
    fn scan(&self, root: &str, patterns: Option<&[String]>) -> Vec<Found> {
        let mut files = Vec::new();
        collect(Path::new(root), &mut files);
        files.sort();
        let mut found = Vec::new();
        for path in files {
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let file = relative.to_string_lossy().replace('\\', "/");
            if !patterns.is_none_or(|patterns| selected(&file, patterns)) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let Some(rest) = line
                    .trim_start()
                    .trim_start_matches("pub ")
                    .strip_prefix("fn ")
                else {
                    continue;
                };
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let returns = rest
                    .split_once("->")
                    .map(|(_, r)| r.trim().trim_end_matches('{').trim().to_string());
                let body = lines[i..]
                    .iter()
                    .skip(1)
                    .take_while(|l| !l.starts_with('}') && !l.trim_start().starts_with("fn "));
                let branches = body
                    .flat_map(|l| l.split_whitespace())
                    .filter(|w| matches!(*w, "if" | "match" | "for" | "while" | "&&" | "||" | "=>"))
                    .count();
                found.push(Found {
                    name,
                    file: file.clone(),
                    line: i as i64 + 1,
                    returns,
                    complexity: 1 + branches as i64,
                });
            }
        }
        found
    }
}

/// Whether `file` (relative, with `/`) is one of Gaze's `patterns`.
fn selected(file: &str, patterns: &[String]) -> bool {
    patterns.is_empty()
        || patterns.iter().any(|pattern| {
            let pattern = pattern.trim();
            let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
            if matches!(pattern, "" | "." | "..." | "./...") {
                return true;
            }
            if let Some(folder) = pattern.strip_suffix("...") {
                return file.starts_with(folder);
            }
            let folder = format!("{}/", pattern.trim_end_matches('/'));
            file == pattern
                || file.starts_with(&folder)
                || glob(pattern.as_bytes(), file.as_bytes())
        })
}

/// `*` matches any run of characters (`/` included), `?` one character.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    match (pattern.first(), text.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            glob(&pattern[1..], text) || (!text.is_empty() && glob(pattern, &text[1..]))
        }
        (Some(b'?'), Some(_)) => glob(&pattern[1..], &text[1..]),
        (Some(p), Some(t)) if p == t => glob(&pattern[1..], &text[1..]),
        _ => false,
    }
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && !path.ends_with("target") {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn effect(kind: &str, description: String) -> SideEffect {
    SideEffect {
        type_: SideEffectType(kind.to_string()),
        description,
        classification: None,
        location: None,
        target: None,
    }
}

impl GazeAnalyzerServer for RustAnalyzer {
    fn initialize(&mut self, params: InitializeParams) -> Result<InitializeResult, ErrorObject> {
        self.root = params.root_path;
        Ok(InitializeResult {
            analyzer_name: "wirekit-example-rust".into(),
            capabilities: Capabilities {
                discover: false,
                test_mapping: false,
                classify_signals: false,
            },
            language: "rust".into(),
            protocol_version: wirekit_protocols::gaze_analyzer_v1_0_0::VERSION.into(),
        })
    }

    fn analyze(&mut self, params: AnalyzeParams) -> Result<AnalyzeResult, ErrorObject> {
        let functions = self
            .scan(&params.root_path, params.patterns.as_deref())
            .into_iter()
            .map(|f| {
                let mut side_effects = Vec::new();
                if let Some(r) = &f.returns {
                    side_effects.push(effect("ReturnValue", format!("returns {r}")));
                    if r.starts_with("Result") {
                        side_effects.push(effect("ErrorReturn", "returns Err".into()));
                    }
                }
                AnalyzedFunction {
                    name: f.name,
                    package: "crate".into(),
                    file: f.file,
                    line: f.line,
                    side_effects,
                }
            })
            .collect();
        Ok(AnalyzeResult { functions })
    }

    fn complexity(&mut self, params: ComplexityParams) -> Result<ComplexityResult, ErrorObject> {
        let functions = self
            .scan(&params.root_path, params.patterns.as_deref())
            .into_iter()
            .map(|f| FunctionComplexity {
                name: f.name,
                package: "crate".into(),
                file: f.file,
                line: f.line,
                complexity: f.complexity,
            })
            .collect();
        Ok(ComplexityResult { functions })
    }

    fn coverage(&mut self, _params: CoverageParams) -> Result<CoverageResult, ErrorObject> {
        // A real analyzer would read an lcov report; this one knows no coverage.
        Ok(CoverageResult {
            functions: Vec::new(),
        })
    }

    fn shutdown(&mut self, _params: Option<ShutdownParams>) -> Result<ShutdownResult, ErrorObject> {
        Ok(ShutdownResult(serde_json::Map::new()))
    }
}

fn main() -> std::process::ExitCode {
    let Ok(protocol) = wirekit_protocols::protocol("gaze-analyzer@1.0.0") else {
        eprintln!("gaze-analyzer 1.0.0 is not embedded in this wirekit");
        return std::process::ExitCode::FAILURE;
    };
    let mut server = wirekit::serve::Server::new(protocol, wirekit::serve::ServeOptions::default());
    let mut handler = GazeAnalyzerHandler(RustAnalyzer::default());
    // Batched: answers to requests Gaze has already sent share writes.
    match server.serve_batched(
        &mut handler,
        std::io::stdin().lock(),
        std::io::stdout(),
        wirekit::serve::Batching::default(),
    ) {
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gaze-analyzer-rust: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
