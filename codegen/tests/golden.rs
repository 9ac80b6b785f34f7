//! Golden tests: each fixture under `tests/golden/<name>/` has its expected
//! Rust, Python and TypeScript beside its schemas.
//!
//! Update them with `WIREKIT_UPDATE_GOLDENS=1 cargo test -p wirekit-codegen --test golden`
//! and review the diff. `codegen/golden-check` compiles every `expected.rs`;
//! `codegen/tests/typecheck_goldens.sh` runs mypy and tsc on the others.

use std::path::{Path, PathBuf};

use wirekit_codegen::bundle::SchemaFile;
use wirekit_codegen::{generate_for, protocol, Target};

fn fixture_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

fn load(name: &str) -> Result<wirekit_codegen::Protocol, String> {
    // Every fixture loads through the core's registry, as `schemas/` does:
    // a protocol's folder as it is, a bare schema set with a manifest listing its files.
    let dir = fixture_dir(name);
    if dir.join(wirekit::protocol::MANIFEST_FILE).exists() {
        return protocol::load(&dir, &dir).map_err(|e| e.to_string());
    }
    let mut files = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        let json = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        files.push(SchemaFile {
            name: file.clone(),
            display: format!("{name}/{file}"),
            json,
        });
    }
    protocol::from_files(name, files).map_err(|e| e.to_string())
}

fn golden(name: &str) {
    let update = std::env::var_os("WIREKIT_UPDATE_GOLDENS").is_some();
    let p = match load(name) {
        Ok(p) => p,
        Err(e) => return assert_eq!(e, "", "fixture {name} failed to load"),
    };
    let mut failures = Vec::new();
    for (target, ext) in [
        (Target::Rust, "rs"),
        (Target::Python, "py"),
        (Target::TypeScript, "ts"),
    ] {
        // Rust goldens are compiled outside the wirekit crate, so their glue
        // is rooted at `::wirekit` rather than `crate`.
        let generated = if target == Target::Rust {
            wirekit_codegen::rust::module(&p, "::wirekit").map(|contents| {
                vec![wirekit_codegen::GeneratedFile {
                    path: format!("{name}.rs").into(),
                    contents,
                }]
            })
        } else {
            generate_for(std::slice::from_ref(&p), &[target], false)
        };
        let files = match generated {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{ext}: generation failed: {e}"));
                continue;
            }
        };
        let Some(module) = files
            .iter()
            .find(|f| f.path.extension().is_some_and(|x| x == ext))
        else {
            failures.push(format!("{ext}: no module generated"));
            continue;
        };
        let expected_path = fixture_dir(name).join(format!("expected.{ext}"));
        if update {
            if let Err(e) = std::fs::write(&expected_path, &module.contents) {
                failures.push(format!("{ext}: cannot write: {e}"));
            }
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != module.contents {
            failures.push(wirekit_codegen::check::short_diff(
                &expected,
                &module.contents,
                &expected_path,
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "golden {name} drifted (rerun with WIREKIT_UPDATE_GOLDENS=1 and review):\n{}",
        failures.join("\n")
    );
}

macro_rules! goldens {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { golden(stringify!($name)); })*
    };
}

goldens!(basics, enums, unions, refs, keywords, rpc);
