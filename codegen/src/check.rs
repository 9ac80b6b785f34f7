//! Writing generated files, and checking committed ones for drift.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use similar::TextDiff;

use crate::error::{Error, ErrorKind, Result};
use crate::GeneratedFile;

/// A committed file that differs from fresh output.
#[derive(Debug, Clone)]
pub struct Stale {
    /// Path relative to the repository root.
    pub path: PathBuf,
    /// A short unified diff, committed (`-`) to fresh (`+`).
    pub diff: String,
}

/// Lines of diff shown for each stale file.
const MAX_DIFF_LINES: usize = 40;

/// Compare `files` with what is under `root`, writing nothing.
pub fn check(root: &Path, files: &[GeneratedFile]) -> Result<Vec<Stale>> {
    let mut stale = Vec::new();
    for f in files {
        let on_disk = match std::fs::read_to_string(root.join(&f.path)) {
            Ok(s) => s,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                stale.push(Stale {
                    path: f.path.clone(),
                    diff: "missing: the file does not exist\n".into(),
                });
                continue;
            }
            Err(e) => {
                return Err(Error::new(ErrorKind::Io, format!("cannot read: {e}"))
                    .in_file(f.path.display().to_string()))
            }
        };
        if on_disk != f.contents {
            stale.push(Stale {
                path: f.path.clone(),
                diff: short_diff(&on_disk, &f.contents, &f.path),
            });
        }
    }
    Ok(stale)
}

/// A unified diff of at most [`MAX_DIFF_LINES`] lines.
pub fn short_diff(old: &str, new: &str, path: &Path) -> String {
    let shown = path.display().to_string();
    let diff = TextDiff::from_lines(old, new);
    let full = diff
        .unified_diff()
        .context_radius(2)
        .header(
            &format!("{shown} (committed)"),
            &format!("{shown} (generated)"),
        )
        .to_string();
    let mut out = String::new();
    let total = full.lines().count();
    for line in full.lines().take(MAX_DIFF_LINES) {
        let _ = writeln!(out, "{line}");
    }
    if total > MAX_DIFF_LINES {
        let _ = writeln!(out, "... {} more diff lines", total - MAX_DIFF_LINES);
    }
    out
}

/// Write `files` under `root`, creating directories; unchanged files are
/// not touched. Returns the paths that changed.
pub fn write(root: &Path, files: &[GeneratedFile]) -> Result<Vec<PathBuf>> {
    let mut changed = Vec::new();
    for f in files {
        let path = root.join(&f.path);
        if std::fs::read_to_string(&path).is_ok_and(|s| s == f.contents) {
            continue;
        }
        let io = |e: std::io::Error| {
            Error::new(ErrorKind::Io, format!("cannot write: {e}"))
                .in_file(f.path.display().to_string())
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        std::fs::write(&path, &f.contents).map_err(io)?;
        changed.push(f.path.clone());
    }
    Ok(changed)
}
