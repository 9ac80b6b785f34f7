//! The result of a run: every check, the server processes' exits and
//! stderr, what the battery could not exercise; as text with a summary
//! table, as JSON, and as JUnit XML.

use std::fmt::Write as _;

use serde::Serialize;

use super::check::{Check, Outcome, Sender};
use super::options::GROUPS;

/// One server process of the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    /// Its number (1 for the first).
    pub index: usize,
    /// How it ended (`exit status 0`, `killed by signal 9`), when known.
    pub exit: Option<String>,
    /// The last bytes of its stderr.
    pub stderr: String,
}

/// The report of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// `name@version` of the protocol.
    pub protocol: String,
    /// The server's command line.
    pub command: Vec<String>,
    /// Every check, in the order it ran.
    pub checks: Vec<Check>,
    /// Every server process spawned.
    pub sessions: Vec<SessionInfo>,
    /// Methods and checks the battery could not exercise, with why.
    pub not_exercised: Vec<String>,
}

/// Pass, warn and fail counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Checks passed.
    pub pass: usize,
    /// Checks with a warning.
    pub warn: usize,
    /// Checks failed.
    pub fail: usize,
}

impl Counts {
    fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Pass => self.pass += 1,
            Outcome::Warn => self.warn += 1,
            Outcome::Fail => self.fail += 1,
        }
    }
}

impl Report {
    /// Whether no check failed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.outcome != Outcome::Fail)
    }

    /// The checks that failed.
    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.outcome == Outcome::Fail)
    }

    /// The counts by group, in the groups' order, and the total.
    pub fn summary(&self) -> (Vec<(&'static str, Counts)>, Counts) {
        let mut total = Counts::default();
        let mut rows = Vec::new();
        for group in GROUPS {
            let mut counts = Counts::default();
            for check in self.checks.iter().filter(|c| c.group == group) {
                counts.add(check.outcome);
                total.add(check.outcome);
            }
            if counts != Counts::default() {
                rows.push((group, counts));
            }
        }
        (rows, total)
    }

    /// The report as JSON (checks, sessions, summary).
    pub fn to_json(&self) -> serde_json::Value {
        let (rows, total) = self.summary();
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Some(object) = value.as_object_mut() {
            object.insert("passed".into(), serde_json::Value::Bool(self.passed()));
            let groups: serde_json::Map<String, serde_json::Value> = rows
                .iter()
                .map(|(g, c)| ((*g).to_owned(), serde_json::to_value(c).unwrap_or_default()))
                .collect();
            object.insert(
                "summary".into(),
                serde_json::json!({"groups": groups, "total": total}),
            );
        }
        value
    }

    /// The readable report: failures and warnings with their frames, one
    /// line a passing check, the summary table, the servers' stderr.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "wirekit conformance: {} against `{}`\n",
            self.protocol,
            self.command.join(" ")
        );
        for check in &self.checks {
            let label = match check.outcome {
                Outcome::Pass => "PASS",
                Outcome::Warn => "WARN",
                Outcome::Fail => "FAIL",
            };
            let _ = writeln!(out, "{label}  {:<12} {}", check.group, check.name);
            if check.outcome == Outcome::Pass {
                continue;
            }
            let _ = writeln!(out, "      {}", check.message);
            // The monitor's verdict on a refused message repeats the
            // battery's own sentence, which names the expected error.
            let restated = |finding: &str| {
                check.message.contains("expected the error")
                    && (finding.starts_with("accepted_invalid")
                        || finding.starts_with("wrong_error"))
            };
            for finding in &check.monitor {
                if !check.message.contains(finding.as_str()) && !restated(finding) {
                    let _ = writeln!(out, "      monitor: {finding}");
                }
            }
            let mut place = format!("session {}", check.session);
            if let Some(pointer) = &check.pointer {
                let shown = if pointer.is_empty() {
                    "(root)"
                } else {
                    pointer
                };
                place = format!("at {shown}, {place}");
            }
            let _ = writeln!(out, "      {place}");
            for frame in check.frames.iter().take(8) {
                let arrow = match frame.from {
                    Sender::Client => "->",
                    Sender::Server => "<-",
                };
                let _ = writeln!(out, "      {arrow} {}", shorten(&frame.body, 300));
            }
            if check.frames.len() > 8 {
                let _ = writeln!(out, "      ... {} more frames", check.frames.len() - 8);
            }
        }
        let (rows, total) = self.summary();
        let _ = writeln!(
            out,
            "\n{:<14}{:>6}{:>6}{:>6}",
            "group", "pass", "warn", "fail"
        );
        for (group, counts) in &rows {
            let _ = writeln!(
                out,
                "{:<14}{:>6}{:>6}{:>6}",
                group, counts.pass, counts.warn, counts.fail
            );
        }
        let _ = writeln!(
            out,
            "{:<14}{:>6}{:>6}{:>6}",
            "total", total.pass, total.warn, total.fail
        );
        if !self.not_exercised.is_empty() {
            let _ = writeln!(out, "\nnot exercised:");
            for note in &self.not_exercised {
                let _ = writeln!(out, "  - {note}");
            }
        }
        for session in &self.sessions {
            let stderr = session.stderr.trim_end();
            if stderr.is_empty() {
                continue;
            }
            let _ = writeln!(
                out,
                "\nstderr of session {} ({}):",
                session.index,
                session
                    .exit
                    .as_deref()
                    .unwrap_or("still running when ended")
            );
            for line in stderr
                .lines()
                .rev()
                .take(20)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                let _ = writeln!(out, "  | {line}");
            }
        }
        let verdict = if self.passed() {
            "conforms"
        } else {
            "does not conform"
        };
        let _ = writeln!(
            out,
            "\n{verdict}: {} passed, {} warned, {} failed",
            total.pass, total.warn, total.fail
        );
        out
    }

    /// The report as JUnit XML: one test suite a group, one test case a check.
    pub fn to_junit(&self) -> String {
        let (rows, total) = self.summary();
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            out,
            "<testsuites name=\"wirekit conformance {}\" tests=\"{}\" failures=\"{}\">",
            xml(&self.protocol),
            total.pass + total.warn + total.fail,
            total.fail
        );
        for (group, counts) in rows {
            let _ = writeln!(
                out,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">",
                xml(group),
                counts.pass + counts.warn + counts.fail,
                counts.fail
            );
            for check in self.checks.iter().filter(|c| c.group == group) {
                let _ = write!(
                    out,
                    "    <testcase classname=\"{}.{}\" name=\"{}\"",
                    xml(&self.protocol),
                    xml(group),
                    xml(&check.name)
                );
                let frames: String = check
                    .frames
                    .iter()
                    .map(|f| {
                        let arrow = if f.from == Sender::Client { "->" } else { "<-" };
                        format!("{arrow} {}\n", f.body)
                    })
                    .collect();
                match check.outcome {
                    Outcome::Pass => {
                        let _ = writeln!(out, "/>");
                    }
                    Outcome::Warn => {
                        let _ = writeln!(
                            out,
                            ">\n      <system-out>warning: {}\n{}</system-out>\n    </testcase>",
                            xml(&check.message),
                            xml(&frames)
                        );
                    }
                    Outcome::Fail => {
                        let _ = writeln!(
                            out,
                            ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                            xml(&check.message),
                            xml(&frames)
                        );
                    }
                }
            }
            let _ = writeln!(out, "  </testsuite>");
        }
        out.push_str("</testsuites>\n");
        out
    }
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}...")
}

/// Text escaped for XML (attributes and content), control characters dropped.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}
