//! The faults the serve loop refuses on its handler's behalf, told in one
//! stable line a tool can read from the server's stderr.
//!
//! When a handler's result (or streamed item, or error) breaks its schema,
//! the loop answers the protocol's internal error instead; when a
//! notification the handler queued is unknown, breaks its schema, cannot be
//! framed or is refused by the session, the loop drops it. The client sees
//! only an error, or nothing. So the loop logs each such fault as one line:
//!
//! ```text
//! fault <kind> method=<method> pointer=<pointer> : <sentence>
//! ```
//!
//! which the default logger writes to stderr as
//! `wirekit: fault invalid_result method=kv/get pointer=/result/value : ...`.
//! `<kind>` is one of [`RuntimeFault::KINDS`]: `invalid_result`,
//! `invalid_item`, `invalid_error` (answered the internal error instead),
//! `dropped_notification` and, in the concurrent loop, `dropped_request` (a
//! request a handler asked the client, not sent) and `invalid_answer` (the
//! client's answer to it broke its schema; the handler got an error). `<pointer>` is a JSON pointer into the message the
//! handler made (`/result/value`, `/params/version`, `/method`; empty for the
//! message itself), the first failing one; the sentence lists every issue.
//! A method holding ` pointer=`, or a pointer holding ` : `, has that text
//! replaced (`_pointer=`, `_:_`) so the line stays parseable; a newline
//! becomes a space. `wirekit conformance` reads these
//! lines and fails the check of the call that caused them, naming the
//! method and the pointer; `wirekit drive` reports them as problems.

use crate::validate::{Part, ValidationIssue};

/// One fault the serve loop refused on its handler's behalf.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RuntimeFault {
    /// One of [`RuntimeFault::KINDS`].
    pub kind: String,
    /// The method of the result or notification at fault.
    pub method: String,
    /// A JSON pointer into the message the handler made (empty: the message).
    pub pointer: String,
    /// What was wrong, every issue.
    pub message: String,
}

/// The prefix of a fault line as the logger receives it.
const PREFIX: &str = "fault ";
/// The prefix the default logger (and the Python binding's) adds on stderr.
const STDERR_PREFIX: &str = "wirekit: ";

impl RuntimeFault {
    /// Every kind a fault line names.
    pub const KINDS: [&'static str; 6] = [
        "invalid_result",
        "invalid_item",
        "invalid_error",
        "dropped_notification",
        "dropped_request",
        "invalid_answer",
    ];

    /// An invalid result, item or error answered the internal error instead.
    pub fn invalid(method: &str, part: Part, issues: &[ValidationIssue]) -> Self {
        let kind = match part {
            Part::Item => "invalid_item",
            Part::ErrorData => "invalid_error",
            Part::Result | Part::Params => "invalid_result",
        };
        let pointer = issues
            .first()
            .map(|issue| format!("{}{}", part.envelope_pointer(), issue.instance_path))
            .unwrap_or_else(|| part.envelope_pointer().to_owned());
        let listed: Vec<String> = issues.iter().map(ToString::to_string).collect();
        RuntimeFault {
            kind: kind.to_owned(),
            method: method.to_owned(),
            pointer,
            message: format!(
                "the handler's {} for `{method}` is invalid; answered an internal error instead: {}",
                part.name(),
                listed.join("; ")
            ),
        }
    }

    /// A notification the handler queued, dropped (`why` says why).
    pub fn dropped(method: &str, pointer: &str, why: &str) -> Self {
        RuntimeFault {
            kind: "dropped_notification".to_owned(),
            method: method.to_owned(),
            pointer: pointer.to_owned(),
            message: format!("dropped `{method}`: {why}"),
        }
    }

    /// A request the handler asked the client, not sent (`why` says why).
    pub fn dropped_request(method: &str, pointer: &str, why: &str) -> Self {
        RuntimeFault {
            kind: "dropped_request".to_owned(),
            method: method.to_owned(),
            pointer: pointer.to_owned(),
            message: format!("did not send the request `{method}`: {why}"),
        }
    }

    /// The client's answer to a request of the server's broke the method's
    /// result (or error) schema; the handler got an error instead.
    pub fn invalid_answer(method: &str, part: Part, issues: &[ValidationIssue]) -> Self {
        let pointer = issues
            .first()
            .map(|issue| format!("{}{}", part.envelope_pointer(), issue.instance_path))
            .unwrap_or_else(|| part.envelope_pointer().to_owned());
        let listed: Vec<String> = issues.iter().map(ToString::to_string).collect();
        RuntimeFault {
            kind: "invalid_answer".to_owned(),
            method: method.to_owned(),
            pointer,
            message: format!(
                "the client's {} for `{method}` is invalid; the handler got an error instead: {}",
                part.name(),
                listed.join("; ")
            ),
        }
    }

    /// The line the logger receives: `fault <kind> method=<m> pointer=<p> : <sentence>`.
    pub fn line(&self) -> String {
        let method = self
            .method
            .replace(" pointer=", "_pointer=")
            .replace('\n', " ");
        let pointer = self.pointer.replace(" : ", "_:_").replace('\n', " ");
        let message = self.message.replace('\n', " ");
        format!(
            "{PREFIX}{} method={method} pointer={pointer} : {message}",
            self.kind
        )
    }

    /// The fault a line of stderr tells (with or without the `wirekit: `
    /// prefix), or `None` for any other line.
    pub fn parse(line: &str) -> Option<Self> {
        let line = line.trim_end_matches(['\r', '\n']);
        let line = line.strip_prefix(STDERR_PREFIX).unwrap_or(line);
        let rest = line.strip_prefix(PREFIX)?;
        let (kind, rest) = rest.split_once(" method=")?;
        if !Self::KINDS.contains(&kind) {
            return None;
        }
        let (method, rest) = rest.split_once(" pointer=")?;
        let (pointer, message) = rest.split_once(" : ")?;
        Some(RuntimeFault {
            kind: kind.to_owned(),
            method: method.to_owned(),
            pointer: pointer.to_owned(),
            message: message.to_owned(),
        })
    }
}

impl std::fmt::Display for RuntimeFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reads_back_as_the_fault_it_tells() {
        let fault =
            RuntimeFault::dropped("kv/changed", "/params/version", "its params are invalid");
        let line = fault.line();
        assert_eq!(
            line,
            "fault dropped_notification method=kv/changed pointer=/params/version : dropped `kv/changed`: its params are invalid"
        );
        assert_eq!(RuntimeFault::parse(&line), Some(fault.clone()));
        assert_eq!(
            RuntimeFault::parse(&format!("wirekit: {line}\n")),
            Some(fault)
        );
    }

    #[test]
    fn other_lines_and_unknown_kinds_are_no_faults() {
        assert_eq!(
            RuntimeFault::parse("wirekit: warning: sending anyway"),
            None
        );
        assert_eq!(
            RuntimeFault::parse("fault made_up method=m pointer= : x"),
            None
        );
        assert_eq!(RuntimeFault::parse("fault invalid_result method=m"), None);
        let root = RuntimeFault::parse("fault invalid_result method=m pointer= : x");
        assert_eq!(root.map(|f| f.pointer), Some(String::new()));
    }
}
