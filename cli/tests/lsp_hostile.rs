#![allow(clippy::panic)]
//! `wirekit lsp` against hostile language servers (`support/hostile_lsp.py`):
//! a flood of notifications, 80 frames of 15 MiB, an answer with a wrong
//! id, diagnostics for 10,000 files. Each run ends with a precise message,
//! its peak resident memory under 256 MiB (sampled while it runs) and its
//! recording within `--record-max-bytes`.

#[allow(dead_code)] // the shared helpers this file does not use
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use support::hostile::{watch, Run};

const PEAK_RSS_KIB: u64 = 256 * 1024;

fn project(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "wirekit-cli-lsp-hostile-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("project folder");
    std::fs::write(dir.join("a.py"), "def f():\n    return 1\n").expect("a.py");
    dir
}

/// `wirekit lsp --root ROOT --record ROOT/session.bin ARGS -- hostile MODE`, watched.
fn run(mode: &str, root: &Path, args: &[&str]) -> Run {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/hostile_lsp.py");
    let mut command = Command::new(env!("CARGO_BIN_EXE_wirekit"));
    command
        .arg("lsp")
        .arg("--root")
        .arg(root)
        .arg("--record")
        .arg(root.join("session.bin"))
        .args(args)
        .arg("--")
        .arg("python3")
        .arg(script)
        .arg(mode);
    let run = watch(mode, &mut command);
    eprintln!(
        "{mode}: peak RSS {} KiB in {:.1} s",
        run.peak_rss_kib,
        run.elapsed.as_secs_f64()
    );
    assert!(
        run.peak_rss_kib < PEAK_RSS_KIB,
        "{mode}: peak RSS {} KiB",
        run.peak_rss_kib
    );
    run
}

fn recorded(root: &Path) -> u64 {
    std::fs::metadata(root.join("session.bin"))
        .expect("the recording")
        .len()
}

#[test]
fn a_flood_of_notifications_times_out_the_question_and_caps_the_recording() {
    let root = project("flood");
    let run = run(
        "flood",
        &root,
        &[
            "--timeout-ms",
            "2000",
            "--record-max-bytes",
            "4000000",
            "definition",
            "a.py:1:5",
        ],
    );
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("definition failed (timed_out): no answer within 2000 ms"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("the recording stopped at ")
            && run.stderr.contains("--record-max-bytes 4000000"),
        "{}",
        run.stderr
    );
    assert!(recorded(&root) <= 4_000_000, "{} bytes", recorded(&root));
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn eighty_frames_of_15_mib_are_read_within_the_byte_budget() {
    let root = project("large");
    let run = run(
        "large",
        &root,
        &["--timeout-ms", "20000", "definition", "a.py:1:5"],
    );
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "a.py:1:5\n");
    // Four frames of 15 MiB fit under the 64 MiB default; the fifth stops it.
    let stopped_at: u64 = run
        .stderr
        .split("the recording stopped at ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", run.stderr));
    assert!(
        (4 * 15 * 1024 * 1024..5 * 15 * 1024 * 1024).contains(&stopped_at),
        "{stopped_at}"
    );
    assert_eq!(recorded(&root), stopped_at);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn an_answer_with_a_wrong_id_is_reported_as_such() {
    let root = project("wrong-id");
    let run = run(
        "wrong-id",
        &root,
        &["--timeout-ms", "2000", "definition", "a.py:1:5"],
    );
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("definition failed (wrong_id): "),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn diagnostics_for_10000_files_keep_the_asked_file_and_say_what_was_dropped() {
    let root = project("many-uris");
    let run = run(
        "many-uris",
        &root,
        &["--timeout-ms", "20000", "diagnostics", "a.py"],
    );
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("a.py:2:1: error: an error here [hostile]\n"),
        "{}",
        &run.stdout[..run.stdout.len().min(500)]
    );
    assert!(
        run.stdout.contains(
            "note: the server published diagnostics for more than 512 files; the 9489 oldest \
             publications were dropped, so those files' diagnostics are unknown"
        ),
        "{}",
        &run.stdout[run.stdout.len().saturating_sub(500)..]
    );
    let _ = std::fs::remove_dir_all(&root);
}
