//! A problem found in a captured session.

use std::fmt;

use serde::Serialize;

/// What kind of problem. The first group blames what a client sent, the
/// second what the server answered, the last the capture itself.
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
    /// A message sent in the wrong state, or after the session ended.
    Lifecycle,
    /// An optional method called without its declared capability.
    Capability,
    /// A stateful rule of the protocol failed (observation sequences).
    Rule,
    /// A request id reused while the first is still pending.
    DuplicateId,
    /// A result, streamed item or error object fails its schema.
    InvalidResult,
    /// The server answered with a result a message the protocol refuses
    /// (a request in the wrong state, with invalid params, of an unknown
    /// method, a frame that could not be read, ...).
    AcceptedInvalid,
    /// The server refused a message the protocol refuses, but not with the
    /// protocol's answer: another error code, or error data of another
    /// shape (the driver protocol's `data.class`).
    WrongError,
    /// A request that was never answered.
    Unanswered,
    /// A second answer to a request that was already answered.
    DuplicateAnswer,
    /// An answer to a notification (notifications get none).
    AnsweredNotification,
    /// A response whose id matches no request that was sent.
    UnknownId,
    /// A result answering a request whose id was invalid (the id echoed,
    /// or `null`): the protocol answers such a request with an error.
    ResultForInvalidId,
    /// The server declared a protocol version other than the one the
    /// session is checked against.
    VersionMismatch,
    /// The capture holds no frames at all.
    EmptyCapture,
    /// A request id JSON-RPC 2.0 allows but discourages (`null`, a number
    /// with a fraction), accepted by a lenient protocol: a warning.
    DiscouragedId,
    /// A message the protocol does not define, under the prefix it leaves
    /// to implementations (LSP's `$/typescriptVersion`): a warning; a
    /// request of it is still owed "method not found".
    ImplementationDependent,
    /// A request or notification sent by the peer its direction does not
    /// allow (a server's `textDocument/hover` request); known only from a
    /// capture's sides file.
    WrongDirection,
    /// An error answer whose code is not among the request's declared
    /// `errors` (nor JSON-RPC's own).
    UndeclaredError,
    /// A value of an enumeration the client announces its support of
    /// (the manifest's `value_sets`: LSP's `symbolKind.valueSet`) that the
    /// server sent outside the announced set: a warning (the schema allows
    /// it; the client said it does not know it). Blames the server, in
    /// its answers and its own messages alike.
    UnannouncedValue,
}

/// Who a problem is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Party {
    /// What the client sent, or an answer the client owes the server.
    Client,
    /// What the server sent, or an answer the server owes the client.
    Server,
    /// Bytes that are no message, or no bytes at all.
    Capture,
}

impl Party {
    /// The other peer (the capture stays the capture).
    pub fn other(self) -> Party {
        match self {
            Party::Client => Party::Server,
            Party::Server => Party::Client,
            Party::Capture => Party::Capture,
        }
    }

    /// A stable name (`client`, `server`, `capture`).
    pub fn name(self) -> &'static str {
        match self {
            Party::Client => "client",
            Party::Server => "server",
            Party::Capture => "capture",
        }
    }
}

/// How bad a problem is: an error breaks the protocol (and fails
/// `validate` and `drive`), a warning is allowed but worth a look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Allowed by the protocol, but discouraged.
    Warning,
    /// The protocol is broken.
    Error,
}

impl Severity {
    /// `error` or `warning`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl ProblemKind {
    /// Every kind, in declaration order.
    pub const ALL: [ProblemKind; 23] = [
        ProblemKind::Framing,
        ProblemKind::Envelope,
        ProblemKind::UnknownMethod,
        ProblemKind::InvalidParams,
        ProblemKind::Lifecycle,
        ProblemKind::Capability,
        ProblemKind::Rule,
        ProblemKind::DuplicateId,
        ProblemKind::InvalidResult,
        ProblemKind::AcceptedInvalid,
        ProblemKind::WrongError,
        ProblemKind::Unanswered,
        ProblemKind::DuplicateAnswer,
        ProblemKind::AnsweredNotification,
        ProblemKind::UnknownId,
        ProblemKind::ResultForInvalidId,
        ProblemKind::VersionMismatch,
        ProblemKind::EmptyCapture,
        ProblemKind::DiscouragedId,
        ProblemKind::ImplementationDependent,
        ProblemKind::WrongDirection,
        ProblemKind::UndeclaredError,
        ProblemKind::UnannouncedValue,
    ];

    /// The snake_case name (`invalid_params`).
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::Framing => "framing",
            ProblemKind::Envelope => "envelope",
            ProblemKind::UnknownMethod => "unknown_method",
            ProblemKind::InvalidParams => "invalid_params",
            ProblemKind::Lifecycle => "lifecycle",
            ProblemKind::Capability => "capability",
            ProblemKind::Rule => "rule",
            ProblemKind::DuplicateId => "duplicate_id",
            ProblemKind::InvalidResult => "invalid_result",
            ProblemKind::AcceptedInvalid => "accepted_invalid",
            ProblemKind::WrongError => "wrong_error",
            ProblemKind::Unanswered => "unanswered",
            ProblemKind::DuplicateAnswer => "duplicate_answer",
            ProblemKind::AnsweredNotification => "answered_notification",
            ProblemKind::UnknownId => "unknown_id",
            ProblemKind::ResultForInvalidId => "result_for_invalid_id",
            ProblemKind::VersionMismatch => "version_mismatch",
            ProblemKind::EmptyCapture => "empty_capture",
            ProblemKind::DiscouragedId => "discouraged_id",
            ProblemKind::ImplementationDependent => "implementation_dependent",
            ProblemKind::WrongDirection => "wrong_direction",
            ProblemKind::UndeclaredError => "undeclared_error",
            ProblemKind::UnannouncedValue => "unannounced_value",
        }
    }

    /// The kind of a snake_case name.
    pub fn from_name(name: &str) -> Option<ProblemKind> {
        ProblemKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
    }

    /// How bad a problem of this kind is: a warning for what JSON-RPC 2.0
    /// allows but discourages and for a value the client did not announce,
    /// an error for everything else.
    pub fn severity(self) -> Severity {
        match self {
            ProblemKind::DiscouragedId
            | ProblemKind::ImplementationDependent
            | ProblemKind::UnannouncedValue => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// Who is to blame for a problem of this kind about a message the
    /// client sent (or an answer the server owes): the capture for bytes
    /// that are no message, the server for answers, the client for the
    /// rest. Of a message the server sent (its own requests and
    /// notifications, and the client's answers to them) the peers swap:
    /// [`Problem::blame`] says who it was.
    pub fn party(self) -> Party {
        match self {
            ProblemKind::Framing | ProblemKind::Envelope | ProblemKind::EmptyCapture => {
                Party::Capture
            }
            kind if kind.blames_server() => Party::Server,
            _ => Party::Client,
        }
    }

    /// Whether the kind blames the answering side (an answer sent or not
    /// sent), rather than the sender or the capture.
    pub fn blames_server(self) -> bool {
        matches!(
            self,
            ProblemKind::InvalidResult
                | ProblemKind::AcceptedInvalid
                | ProblemKind::WrongError
                | ProblemKind::Unanswered
                | ProblemKind::DuplicateAnswer
                | ProblemKind::AnsweredNotification
                | ProblemKind::UnknownId
                | ProblemKind::ResultForInvalidId
                | ProblemKind::VersionMismatch
                | ProblemKind::UndeclaredError
        )
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One problem: where (frame index from 0, JSON pointer within the
/// message), what kind, and a sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The frame's index in the capture, from 0. A framing fault counts
    /// as one frame, so every frame keeps its number.
    pub frame: usize,
    /// What kind of problem.
    pub kind: ProblemKind,
    /// An error or a warning (the kind's [`ProblemKind::severity`]).
    pub severity: Severity,
    /// The JSON pointer within the message, when a member is to blame.
    pub pointer: Option<String>,
    /// What is wrong.
    pub message: String,
    /// Who is to blame: the peer that sent the message at fault, or that
    /// owes the answer at fault, or the capture.
    pub blame: Party,
    /// The other frame concerned, when there is one: the request an answer
    /// belongs to, the first answer of a second one, the notification that
    /// was answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related: Option<usize>,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "frame {}: ", self.frame)?;
        if self.severity == Severity::Warning {
            f.write_str("warning: ")?;
        }
        f.write_str(self.kind.name())?;
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
