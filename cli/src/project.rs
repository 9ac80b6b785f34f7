//! `wirekit generate` in a project of one's own: bindings written into the
//! project's folders from its `schemas/`, for use with the published
//! packages (`wirekit_codegen::standalone`), outside any clone of wirekit.
//!
//! What to generate comes from `--out DIR` (every target selected, each in
//! `DIR/<target>/`) or from `wirekit.toml`, read from the nearest folder
//! holding one, so that `wirekit generate` alone repeats it:
//!
//! ```toml
//! schemas = "schemas"            # default: schemas/ beside wirekit.toml
//! protocols = ["kv"]             # default: every protocol there
//! package = "kv_protocol"        # the Python package (default wirekit_bindings)
//!
//! [out]                          # one folder a target; only these are generated
//! python = "."
//! typescript = "client/src/generated"
//! rust = "src/generated"
//! docs = "docs/protocol"
//! openrpc = "docs/openrpc"
//! ```
//!
//! Paths are relative to the folder of `wirekit.toml` (of the current
//! folder with `--out`). `--check` writes nothing and fails naming each
//! file that differs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Deserialize;
use wirekit_codegen::{standalone, Target};

/// The name of the project file.
pub const CONFIG_FILE: &str = "wirekit.toml";

/// `wirekit.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The protocols' folder.
    #[serde(default)]
    pub schemas: Option<PathBuf>,
    /// Only these protocols.
    #[serde(default)]
    pub protocols: Vec<String>,
    /// The Python package name.
    #[serde(default)]
    pub package: Option<String>,
    /// One output folder a target.
    #[serde(default)]
    pub out: BTreeMap<String, PathBuf>,
}

/// What one run writes.
pub struct Plan {
    /// The project's folder: where `wirekit.toml` is (the current folder
    /// with `--out`); a recipe's upstream `schema` is relative to it.
    pub base: PathBuf,
    /// The protocols' folder.
    pub schemas: PathBuf,
    /// Only these protocols (all when empty).
    pub protocols: Vec<String>,
    /// The Python package name.
    pub package: String,
    /// Each target with its folder.
    pub targets: Vec<(Target, PathBuf)>,
}

/// The nearest `wirekit.toml` in `start` or an ancestor.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(CONFIG_FILE))
        .find(|file| file.is_file())
}

/// Reads `wirekit.toml` at `path`.
pub fn read_config(path: &Path) -> Result<Config, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    basic_toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses the targets of `[out]`.
pub fn config_targets(config: &Config, base: &Path) -> Result<Vec<(Target, PathBuf)>, String> {
    config
        .out
        .iter()
        .map(|(name, dir)| {
            Target::from_name(name)
                .map(|t| (t, tidy(&base.join(dir))))
                .ok_or_else(|| {
                    format!(
                        "{CONFIG_FILE}: [out] has `{name}`, not a target (rust, python, typescript, docs, openrpc)"
                    )
                })
        })
        .collect()
}

/// `path` without its `.` parts (`/p/./x` is `/p/x`).
pub fn tidy(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

/// Generates (or checks) what `plan` says; the exit status of `generate`.
pub fn run(plan: &Plan, check: bool) -> ExitCode {
    match generate(plan, check) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("wirekit generate: {message}");
            ExitCode::from(2)
        }
    }
}

fn generate(plan: &Plan, check: bool) -> Result<ExitCode, String> {
    if !plan.schemas.is_dir() {
        return Err(format!(
            "no protocols folder {} (`wirekit init NAME` writes one; --schemas DIR names another)",
            plan.schemas.display()
        ));
    }
    let shown = plan.schemas.display().to_string();
    // Folders derived from a published schema (`meta/derive.json`) first,
    // so that the protocols load from the fresh files.
    let derived = wirekit_codegen::derive::derive_in(&plan.base, &plan.schemas, None)
        .map_err(|e| e.to_string())?;
    let mut derived_stale = Vec::new();
    for file in &derived {
        let path = plan.base.join(&file.path);
        if std::fs::read_to_string(&path).is_ok_and(|old| old == file.contents) {
            continue;
        }
        if check {
            derived_stale.push(path);
        } else {
            std::fs::write(&path, &file.contents)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("wrote {}", path.display());
        }
    }
    let mut protocols = wirekit_codegen::protocol::load_all(&plan.schemas, Path::new("."))
        .map_err(|e| e.to_string())?;
    if !plan.protocols.is_empty() {
        for name in &plan.protocols {
            if !protocols
                .iter()
                .any(|p| &p.name == name || &p.module == name)
            {
                let known: Vec<&str> = protocols.iter().map(|p| p.name.as_str()).collect();
                return Err(format!(
                    "no protocol `{name}` in {shown}; it has: {}",
                    known.join(", ")
                ));
            }
        }
        protocols
            .retain(|p| plan.protocols.contains(&p.name) || plan.protocols.contains(&p.module));
    }
    if protocols.is_empty() {
        return Err(format!(
            "{shown} holds no protocol (a protocol is a folder NAME/VERSION/ holding protocol.json)"
        ));
    }
    let mut total = derived.len();
    let mut changed = Vec::new();
    let mut stale = derived_stale;
    for (target, dir) in &plan.targets {
        let files = standalone::generate(&protocols, *target, &plan.package)
            .map_err(|e| e.for_target(*target).to_string())?;
        for file in files {
            total += 1;
            let path = dir.join(&file.path);
            let same = std::fs::read_to_string(&path).is_ok_and(|old| old == file.contents);
            if same {
                continue;
            }
            if check {
                stale.push(path);
                continue;
            }
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            }
            std::fs::write(&path, &file.contents)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            changed.push(path);
        }
    }
    if check {
        if stale.is_empty() {
            println!("wirekit generate --check: {total} files up to date");
            return Ok(ExitCode::SUCCESS);
        }
        for path in &stale {
            eprintln!("stale: {}", path.display());
        }
        eprintln!(
            "wirekit generate --check: {} of {total} files are stale or missing; run `wirekit generate`",
            stale.len()
        );
        return Ok(ExitCode::from(1));
    }
    for path in &changed {
        println!("wrote {}", path.display());
    }
    let names: Vec<String> = protocols
        .iter()
        .map(|p| format!("{}@{}", p.name, p.version))
        .collect();
    println!(
        "wirekit generate: {} ({}): {total} files, {} changed",
        names.join(", "),
        plan.targets
            .iter()
            .map(|(t, d)| format!("{} in {}", t.name(), d.display()))
            .collect::<Vec<_>>()
            .join(", "),
        changed.len()
    );
    Ok(ExitCode::SUCCESS)
}
