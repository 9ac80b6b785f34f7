//! `wirekit check [NAME...]`: lint protocols of one's own, with no other
//! toolchain. Each version of each protocol (every one in the folder when
//! no name is given) is loaded and compiled by the core, as every command
//! loads it: the manifest's model (unknown members refused), every listed
//! schema file present and valid JSON, every `$ref` resolved, the
//! lifecycle's states, capabilities, negotiation and rules consistent.
//! The manifest is held to the meta-schema too (`wirekit-protocol.schema.json`,
//! built in): a misspelt member is named, not ignored.
//! Then every example of every method is checked against its schemas: its
//! `params`, its `result`, and for an `error` example that the code is one
//! the method declares and the object fits the protocol's error object.
//!
//! One line a problem, `FILE POINTER: sentence`; exit status 0 when none, 1
//! when one was found, 2 for bad usage (no such folder or protocol).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;
use wirekit::envelope::ErrorObject;
use wirekit::protocol::{MethodKind, ProtocolSource, MANIFEST_FILE};
use wirekit::validate::{Part, Protocol, ValidationIssue};

/// Arguments of `wirekit check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The protocols to check (default: every protocol in the folder).
    names: Vec<String>,
    /// The protocols' folder (default: the nearest `schemas/`).
    #[arg(long, value_name = "DIR")]
    schemas: Option<PathBuf>,
}

/// Runs `wirekit check`.
pub fn run(args: CheckArgs) -> ExitCode {
    let Some(folder) = crate::catalog::user_folder(args.schemas.as_deref()) else {
        eprintln!("wirekit check: no `schemas/` folder here or in a parent folder; pass --schemas DIR (`wirekit init NAME` writes one)");
        return ExitCode::from(2);
    };
    let names = if args.names.is_empty() {
        match subfolders(&folder) {
            Ok(names) => names,
            Err(message) => {
                eprintln!("wirekit check: {message}");
                return ExitCode::from(2);
            }
        }
    } else {
        args.names.clone()
    };
    let mut problems = 0usize;
    let mut versions = 0usize;
    for name in &names {
        let dir = folder.join(name);
        let found = subfolders(&dir).unwrap_or_default();
        let with_manifest: Vec<&String> = found
            .iter()
            .filter(|v| dir.join(v).join(MANIFEST_FILE).is_file())
            .collect();
        if with_manifest.is_empty() {
            if args.names.is_empty() {
                continue;
            }
            eprintln!(
                "wirekit check: no protocol `{name}` in {}: it needs {}/<version>/{MANIFEST_FILE}",
                folder.display(),
                dir.display()
            );
            return ExitCode::from(2);
        }
        for version in with_manifest {
            versions += 1;
            let found = check_version(&dir.join(version), &format!("{name}/{version}"));
            for line in &found {
                println!("{line}");
            }
            problems += found.len();
        }
    }
    if versions == 0 {
        eprintln!(
            "wirekit check: {} holds no protocol (a folder NAME/VERSION/ holding {MANIFEST_FILE})",
            folder.display()
        );
        return ExitCode::from(2);
    }
    if problems == 0 {
        eprintln!(
            "wirekit check: {versions} protocol version(s) in {}: no problem",
            folder.display()
        );
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "wirekit check: {problems} problem(s) in {versions} protocol version(s) in {}",
            folder.display()
        );
        ExitCode::from(1)
    }
}

fn subfolders(dir: &Path) -> Result<Vec<String>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    names.sort();
    Ok(names)
}

/// The problems of one version's folder.
fn check_version(dir: &Path, origin: &str) -> Vec<String> {
    // The meta-schema first: it names every misplaced member at once.
    let written = std::fs::read_to_string(dir.join(MANIFEST_FILE))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok());
    if let Some(written) = written {
        let shape = manifest_shape(&written, origin);
        if !shape.is_empty() {
            return shape;
        }
    }
    let source = match ProtocolSource::from_dir(dir, origin) {
        Ok(source) => source,
        Err(error) => return vec![error.to_string()],
    };
    let expected = format!("{}/{}", source.manifest.protocol, source.manifest.version);
    if expected != origin {
        return vec![format!(
            "{origin}/{MANIFEST_FILE} /protocol: the manifest says `{expected}` but lives in `{origin}`"
        )];
    }
    let protocol = match Protocol::compile(source) {
        Ok(protocol) => protocol,
        Err(error) => return vec![error.to_string()],
    };
    let mut problems = Vec::new();
    let manifest = protocol.manifest();
    for (method, spec) in &manifest.methods {
        for (index, example) in spec.examples.iter().enumerate() {
            let at = format!(
                "{origin}/{MANIFEST_FILE} /methods/{}/examples/{index}",
                method.replace('~', "~0").replace('/', "~1")
            );
            if let Some(params) = example.get("params") {
                push_issues(
                    &mut problems,
                    &at,
                    "params",
                    protocol.validate(method, Part::Params, Some(params)),
                );
            }
            if let Some(result) = example.get("result") {
                if spec.kind == MethodKind::Notification {
                    problems.push(format!("{at}/result: a notification has no result"));
                } else {
                    push_issues(
                        &mut problems,
                        &at,
                        "result",
                        protocol.validate(method, Part::Result, Some(result)),
                    );
                }
            }
            if let Some(error) = example.get("error") {
                match error_object(error) {
                    Err(why) => problems.push(format!("{at}/error: {why}")),
                    Ok(object) => {
                        if !spec.declares_error(object.code, &manifest.errors) {
                            problems.push(format!(
                                "{at}/error/code: {} is not among the errors `{method}` declares ({})",
                                object.code,
                                spec.errors.join(", ")
                            ));
                        }
                        push_issues(
                            &mut problems,
                            &at,
                            "error",
                            protocol.validate_error_of(Some(method), &object),
                        );
                    }
                }
            }
        }
    }
    problems
}

/// The manifest against the meta-schema (`wirekit-protocol.schema.json`):
/// what the core's model leaves open (an unknown member, a misspelt one,
/// the patterns and lengths of names).
fn manifest_shape(manifest: &Value, origin: &str) -> Vec<String> {
    let meta: Value = match serde_json::from_str(wirekit_protocols::manifest_schema()) {
        Ok(meta) => meta,
        Err(error) => return vec![format!("the built-in meta-schema is not JSON: {error}")],
    };
    let validator = match jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&meta)
    {
        Ok(validator) => validator,
        Err(error) => {
            return vec![format!(
                "the built-in meta-schema does not compile: {error}"
            )]
        }
    };
    validator
        .iter_errors(manifest)
        .map(|error| {
            format!(
                "{origin}/{MANIFEST_FILE} {}: {error}",
                if error.instance_path().as_str().is_empty() {
                    "(root)".to_owned()
                } else {
                    error.instance_path().as_str().to_owned()
                }
            )
        })
        .collect()
}

fn push_issues(problems: &mut Vec<String>, at: &str, part: &str, issues: Vec<ValidationIssue>) {
    for issue in issues {
        problems.push(format!(
            "{at}/{part}{}: {}",
            issue.instance_path, issue.message
        ));
    }
}

fn error_object(error: &Value) -> Result<ErrorObject, String> {
    let code = error
        .get("code")
        .and_then(Value::as_i64)
        .ok_or("an error needs an integer `code`")?;
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .ok_or("an error needs a string `message`")?;
    Ok(ErrorObject {
        code,
        message: message.to_owned(),
        data: error.get("data").cloned(),
    })
}
