//! Embeds the repository's `schemas/` folder (every `<protocol>/<version>/*.json`)
//! so `Registry::embedded()` works without the files at run time.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let schemas = std::env::var("WIREKIT_SCHEMAS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| manifest_dir.join("../../schemas"));
    println!("cargo:rerun-if-env-changed=WIREKIT_SCHEMAS_DIR");
    println!("cargo:rerun-if-changed={}", schemas.display());
    let mut files = Vec::new();
    collect(&schemas, &schemas, 0, &mut files);
    files.sort();
    let mut out = String::from(
        "/// Every schema file of `schemas/`, by path relative to it, embedded at build time.\n\
         static EMBEDDED_FILES: &[(&str, &str)] = &[\n",
    );
    for (relative, absolute) in &files {
        println!("cargo:rerun-if-changed={}", absolute.display());
        let _ = writeln!(
            out,
            "    ({relative:?}, include_str!({:?})),",
            absolute.display().to_string()
        );
    }
    out.push_str("];\n");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    if let Err(error) = std::fs::write(out_dir.join("embedded_schemas.rs"), out) {
        println!("cargo:warning=could not write embedded_schemas.rs: {error}");
    }
}

/// Collects `<protocol>/<version>/<file>.json` (depth 2 folders only).
fn collect(root: &Path, dir: &Path, depth: usize, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && depth < 2 {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(root, &path, depth + 1, files);
        } else if depth == 2 && path.extension().is_some_and(|ext| ext == "json") {
            if let Ok(relative) = path.strip_prefix(root) {
                let relative = relative.to_string_lossy().replace('\\', "/");
                let absolute = path.canonicalize().unwrap_or(path.clone());
                files.push((relative, absolute));
            }
        }
    }
}
