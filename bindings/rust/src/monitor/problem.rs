//! A problem found in a captured session.

use std::fmt;

use serde::Serialize;

/// What kind of problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ProblemKind {
    /// The bytes do not frame.
    Framing,
    /// A frame is not a valid JSON-RPC envelope.
    Envelope,
    /// A method or notification the protocol does not define.
    UnknownMethod,
    /// A request's or notification's params fail their schema.
    InvalidParams,
    /// A result, streamed item or error data fails its schema.
    InvalidResult,
    /// A message sent in the wrong state, or after the session ended.
    Lifecycle,
    /// An optional method called without its declared capability.
    Capability,
    /// A stateful rule of the protocol failed (observation sequences).
    Rule,
    /// A response whose id matches no pending request.
    UnknownId,
    /// A request id reused while the first is still pending.
    DuplicateId,
    /// A request that was never answered.
    Unanswered,
}

impl ProblemKind {
    /// The snake_case name (`invalid_params`).
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::Framing => "framing",
            ProblemKind::Envelope => "envelope",
            ProblemKind::UnknownMethod => "unknown_method",
            ProblemKind::InvalidParams => "invalid_params",
            ProblemKind::InvalidResult => "invalid_result",
            ProblemKind::Lifecycle => "lifecycle",
            ProblemKind::Capability => "capability",
            ProblemKind::Rule => "rule",
            ProblemKind::UnknownId => "unknown_id",
            ProblemKind::DuplicateId => "duplicate_id",
            ProblemKind::Unanswered => "unanswered",
        }
    }
}

/// One problem: where (frame index from 0, JSON pointer within the
/// message), what kind, and a sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The frame's index in the capture (faults do not count as frames).
    pub frame: usize,
    /// What kind of problem.
    pub kind: ProblemKind,
    /// The JSON pointer within the message, when a member is to blame.
    pub pointer: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "frame {}: {}", self.frame, self.kind.name())?;
        if let Some(pointer) = &self.pointer {
            write!(
                f,
                " at {}",
                if pointer.is_empty() {
                    "(root)"
                } else {
                    pointer
                }
            )?;
        }
        write!(f, ": {}", self.message)
    }
}
