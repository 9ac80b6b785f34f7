//! A message that breaks the lifecycle, and the protocol's answer to it.

use std::fmt;

use serde_json::Value;

use crate::envelope::ErrorObject;

/// What rule of the session a message broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ViolationKind {
    /// The method is not allowed in the current state.
    WrongState,
    /// An optional method whose capability the server did not declare.
    CapabilityNotDeclared,
    /// The client's version is incompatible with the server's.
    VersionMismatch,
    /// The session is over (after shutdown, or after a fatal error).
    SessionEnded,
    /// A stateful rule of the manifest failed (`increasing_sequence`, ...).
    Rule,
}

impl ViolationKind {
    /// A stable machine code (`wrong-state`).
    pub fn code(self) -> &'static str {
        match self {
            ViolationKind::WrongState => "wrong-state",
            ViolationKind::CapabilityNotDeclared => "capability-not-declared",
            ViolationKind::VersionMismatch => "version-mismatch",
            ViolationKind::SessionEnded => "session-ended",
            ViolationKind::Rule => "rule",
        }
    }
}

/// A lifecycle violation: its kind, the JSON pointer concerned (within the
/// message) and the error the protocol answers with.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation(Box<Inner>);

#[derive(Debug, Clone, PartialEq)]
struct Inner {
    kind: ViolationKind,
    answer: ErrorObject,
    pointer: Option<String>,
    ends_session: bool,
    template: Option<Value>,
}

impl Violation {
    pub(crate) fn new(
        kind: ViolationKind,
        code: i64,
        message: String,
        data: Option<Value>,
    ) -> Self {
        Violation(Box::new(Inner {
            kind,
            answer: ErrorObject {
                code,
                message,
                data,
            },
            pointer: None,
            ends_session: false,
            template: None,
        }))
    }

    pub(crate) fn at(mut self, pointer: impl Into<String>) -> Self {
        self.0.pointer = Some(pointer.into());
        self
    }

    /// The `data` template the manifest declares for this answer
    /// (placeholders unfilled), when it declares one.
    pub(crate) fn with_template(mut self, template: Option<Value>) -> Self {
        self.0.template = template.filter(|t| !t.is_null());
        self
    }

    pub(crate) fn ending(mut self) -> Self {
        self.0.ends_session = true;
        self
    }

    /// What was broken.
    pub fn kind(&self) -> ViolationKind {
        self.0.kind
    }

    /// The protocol's answer.
    pub fn answer(&self) -> &ErrorObject {
        &self.0.answer
    }

    /// Where in the message, when a member is to blame (`/params/sequence`).
    pub fn pointer(&self) -> Option<&str> {
        self.0.pointer.as_deref()
    }

    /// The shape of the answer's `data` as the manifest declares it,
    /// placeholders (`"{method}"`) unfilled: a server's own answer must
    /// carry its constant members (the driver protocol's `data.class`).
    pub fn data_template(&self) -> Option<&Value> {
        self.0.template.as_ref()
    }

    /// Whether the session ends after the answer.
    pub fn ends_session(&self) -> bool {
        self.0.ends_session
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}, code {})",
            self.0.answer.message,
            self.0.kind.code(),
            self.0.answer.code
        )
    }
}

impl std::error::Error for Violation {}

/// Fills `{name}` placeholders of a manifest message.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut text = template.to_owned();
    for (name, value) in values {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    text
}
