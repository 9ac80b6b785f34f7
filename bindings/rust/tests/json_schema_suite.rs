//! The official JSON-Schema-Test-Suite through the core's public paths.
//!
//! Each group's schema goes into a one-method protocol folder (the same
//! folder the Python and TypeScript suites build: `schema.json`, the
//! suite's remotes at their paths, `base_uri` `http://localhost:1234/`), is
//! loaded as any protocol is, and each case's data is checked as the
//! method's result and, where it is an object or an array, as its params,
//! by `Protocol::validate` and through the serve loop. Every group must
//! load and every verdict must be the suite's.
//!
//! A second check proves the bundle (the one document codegen, the quick
//! check and the reports read): for every type it renders exactly, the
//! bundled schema judges every case as the files do.
//!
//! The suite is read from `../shared/upstream/json-schema-test-suite` beside
//! the clone (or `$WIREKIT_JSON_SCHEMA_SUITE`); without it the test says so
//! in one line and counts nothing.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};
use wirekit::protocol::ProtocolSource;
use wirekit::serve::ServeOptions;
use wirekit::validate::{Part, Protocol};

use common::{frame_all, serve_bytes, TableHandler};

/// A suite folder and how its groups are loaded.
struct Suite {
    /// Below `tests/`.
    folder: &'static str,
    dialect: &'static str,
    /// The remote folders another dialect's tests use, left out.
    other_remotes: &'static [&'static str],
}

const SUITES: [Suite; 2] = [
    Suite {
        folder: "draft2020-12",
        dialect: "https://json-schema.org/draft/2020-12/schema",
        other_remotes: &["draft3", "draft4", "draft6", "draft7", "draft2019-09", "v1"],
    },
    Suite {
        folder: "draft7",
        dialect: "http://json-schema.org/draft-07/schema#",
        other_remotes: &[
            "draft3",
            "draft4",
            "draft6",
            "draft2019-09",
            "draft2020-12",
            "v1",
        ],
    },
];

fn suite_root() -> Option<PathBuf> {
    let root = std::env::var_os("WIREKIT_JSON_SCHEMA_SUITE").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../../shared/upstream/json-schema-test-suite")
        },
        PathBuf::from,
    );
    root.join("tests").is_dir().then_some(root)
}

/// Every remote file below `remotes/` by its path there, other dialects' left out.
fn remotes(root: &Path, suite: &Suite) -> Vec<(String, Value)> {
    fn walk(dir: &Path, prefix: &str, skip: &[&str], out: &mut Vec<(String, Value)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("remotes")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_owned();
            if path.is_dir() {
                if prefix.is_empty() && skip.contains(&name.as_str()) {
                    continue;
                }
                walk(&path, &format!("{prefix}{name}/"), skip, out);
            } else if name.ends_with(".json") {
                let text = std::fs::read_to_string(&path).expect("remote");
                out.push((
                    format!("{prefix}{name}"),
                    serde_json::from_str(&text).expect("remote json"),
                ));
            }
        }
    }
    let mut out = Vec::new();
    walk(&root.join("remotes"), "", suite.other_remotes, &mut out);
    out
}

/// The group files of a suite: the required tests, and `optional/format`
/// (with `format` asserted).
fn group_files(root: &Path, suite: &Suite) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    for (dir, formats) in [("", false), ("optional/format", true)] {
        let dir = root.join("tests").join(suite.folder).join(dir);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("suite folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        out.extend(files.into_iter().map(|f| (f, formats)));
    }
    out
}

fn manifest(suite: &Suite, formats: bool, remotes: &[(String, Value)]) -> Value {
    let mut schemas = vec![json!("schema.json")];
    schemas.extend(remotes.iter().map(|(name, _)| json!(name)));
    json!({
        "protocol": "suite",
        "version": "1",
        "title": "A JSON-Schema-Test-Suite group",
        "description": "One method whose params and result are the group's schema.",
        "roles": {"client": "client", "server": "server"},
        "transport": {"framing": "ndjson", "envelope": "jsonrpc-2.0", "max_frame_bytes": 1048576},
        "json_schema": {
            "dialect": suite.dialect,
            "base_uri": "http://localhost:1234/",
            "formats": if formats { "assert" } else { "annotate" },
        },
        "schemas": schemas,
        "methods": {
            "m": {
                "kind": "request",
                "direction": "client-to-server",
                "description": "Takes and answers a value of the group's schema.",
                "params": {"$ref": "schema.json"},
                "result": {"$ref": "schema.json"},
            }
        },
    })
}

#[derive(Default)]
struct Tally {
    groups: usize,
    cases: usize,
    agreed: usize,
    invalid_accepted: Vec<String>,
    valid_refused: Vec<String>,
    groups_refused: Vec<String>,
    bundle_agreed: usize,
    bundle_inexact: Vec<String>,
    bundle_disagreed: Vec<String>,
}

/// The serve loop's verdict on `data` as params (echoed as the result):
/// accepted when it answers with a result.
fn served(protocol: &Arc<Protocol>, data: &Value) -> bool {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "m", "params": data}).to_string();
    let mut handler = TableHandler::default().with("m", |params| Ok(params.unwrap_or(Value::Null)));
    let run = serve_bytes(
        protocol,
        &mut handler,
        ServeOptions::default(),
        &frame_all(protocol, &[&request]),
    );
    let answers = run.answers(protocol);
    answers
        .first()
        .is_some_and(|answer| answer.get("result").is_some())
}

fn run_group(
    dir: &Path,
    suite: &Suite,
    formats: bool,
    remotes: &[(String, Value)],
    group: &Value,
    name: &str,
    tally: &mut Tally,
) {
    tally.groups += 1;
    let _ = std::fs::remove_dir_all(dir);
    for (path, value) in remotes {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(&file, value.to_string()).expect("remote");
    }
    std::fs::create_dir_all(dir).expect("mkdir");
    std::fs::write(dir.join("schema.json"), group["schema"].to_string()).expect("schema");
    std::fs::write(
        dir.join("protocol.json"),
        manifest(suite, formats, remotes).to_string(),
    )
    .expect("manifest");
    let cases = group["tests"].as_array().cloned().unwrap_or_default();
    tally.cases += cases.len();
    let protocol = match ProtocolSource::from_dir(dir, "suite/1").and_then(Protocol::compile) {
        Ok(protocol) => Arc::new(protocol),
        Err(error) => {
            tally.groups_refused.push(format!("{name}: {error}"));
            return;
        }
    };
    let bundle = protocol.source().bundle();
    let entry = bundle.entry("schema.json").map(str::to_owned);
    let bundled = entry.as_ref().map(|entry| {
        let mut document = protocol.source().bundled_schema().clone();
        document["$ref"] = json!(wirekit::protocol::bundle::local_ref(entry));
        jsonschema::options()
            .should_validate_formats(formats)
            .build(&document)
    });
    let exact = entry.as_ref().is_some_and(|entry| bundle.is_exact(entry));
    if !exact {
        tally.bundle_inexact.push(format!(
            "{name}: {}",
            bundle
                .inexact
                .values()
                .next()
                .cloned()
                .unwrap_or_else(|| "no entry".into())
        ));
    }
    for case in &cases {
        let data = &case["data"];
        let valid = case["valid"].as_bool().unwrap_or(false);
        let label = format!("{name} / {}", case["description"].as_str().unwrap_or("?"));
        let mut verdicts = vec![(
            "validate result",
            protocol.validate("m", Part::Result, Some(data)).is_empty(),
        )];
        if data.is_object() || data.is_array() {
            verdicts.push((
                "validate params",
                protocol.validate("m", Part::Params, Some(data)).is_empty(),
            ));
            verdicts.push(("serve loop", served(&protocol, data)));
        }
        let wrong: Vec<&str> = verdicts
            .iter()
            .filter(|(_, v)| *v != valid)
            .map(|(path, _)| *path)
            .collect();
        if wrong.is_empty() {
            tally.agreed += 1;
        } else if valid {
            tally.valid_refused.push(format!(
                "{label} (data {data}): refused by {}",
                wrong.join(", ")
            ));
        } else {
            tally.invalid_accepted.push(format!(
                "{label} (data {data}): accepted by {}",
                wrong.join(", ")
            ));
        }
        if exact {
            match &bundled {
                Some(Ok(validator)) if validator.is_valid(data) == valid => {
                    tally.bundle_agreed += 1
                }
                Some(Ok(_)) => tally
                    .bundle_disagreed
                    .push(format!("{label} (data {data}): the bundle says {}", !valid)),
                Some(Err(error)) => tally
                    .bundle_disagreed
                    .push(format!("{label}: the bundle does not compile: {error}")),
                None => {}
            }
        }
    }
}

/// One summary line a suite, shown in every run: written to stderr
/// directly, past the test harness's capture (which only the `print!`
/// macros go through), as the Python and TypeScript suites print theirs.
fn summary(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

#[test]
fn the_official_suite_through_the_public_paths() {
    let Some(root) = suite_root() else {
        summary("json-schema-test-suite (rust): not run: ../shared/upstream/json-schema-test-suite is absent (CI has it)");
        return;
    };
    let scratch = std::env::temp_dir().join(format!("wirekit-suite-{}", std::process::id()));
    let mut failed = false;
    for suite in &SUITES {
        let remotes = remotes(&root, suite);
        let mut tally = Tally::default();
        for (file, formats) in group_files(&root, suite) {
            let text = std::fs::read_to_string(&file).expect("group file");
            let groups: Value = serde_json::from_str(&text).expect("group json");
            let stem = file
                .strip_prefix(root.join("tests"))
                .unwrap_or(&file)
                .display()
                .to_string();
            for (index, group) in groups.as_array().into_iter().flatten().enumerate() {
                let name = format!(
                    "{stem} #{index} {}",
                    group["description"].as_str().unwrap_or("?")
                );
                run_group(
                    &scratch.join("group"),
                    suite,
                    formats,
                    &remotes,
                    group,
                    &name,
                    &mut tally,
                );
            }
        }
        summary(&format!(
            "json-schema-test-suite (rust, {}): {} agreed, {} invalid accepted, {} valid refused, {} groups refused (of {} groups, {} cases); bundle: {} agreed, {} disagreed, {} groups inexact",
            suite.folder,
            tally.agreed,
            tally.invalid_accepted.len(),
            tally.valid_refused.len(),
            tally.groups_refused.len(),
            tally.groups,
            tally.cases,
            tally.bundle_agreed,
            tally.bundle_disagreed.len(),
            tally.bundle_inexact.len(),
        ));
        for (what, list) in [
            ("invalid accepted", &tally.invalid_accepted),
            ("valid refused", &tally.valid_refused),
            ("group refused", &tally.groups_refused),
            ("bundle disagrees", &tally.bundle_disagreed),
            ("bundle inexact", &tally.bundle_inexact),
        ] {
            for line in list {
                println!("  {what}: {line}");
            }
        }
        failed |= !tally.invalid_accepted.is_empty()
            || !tally.valid_refused.is_empty()
            || !tally.groups_refused.is_empty()
            || !tally.bundle_disagreed.is_empty();
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(!failed, "the suite disagrees with wirekit: see above");
}
