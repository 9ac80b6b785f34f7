//! What can go wrong while a host drives a server.

use std::fmt;
use std::time::Duration;

use crate::envelope::{ErrorObject, Id, Message};
use crate::session::Violation;
use crate::validate::ValidationIssue;

/// The kind of a [`HostError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HostErrorKind {
    /// The server could not be started.
    Spawn,
    /// Reading or writing a pipe failed.
    Io,
    /// No answer within the method's timeout; the server was killed.
    Timeout,
    /// The server exited (or closed its stdout) before answering.
    Exited,
    /// The server's bytes do not frame.
    Framing,
    /// The server's frame is not a valid envelope.
    Envelope,
    /// The server answered with a JSON-RPC error.
    Remote,
    /// The call was refused before sending: invalid params.
    InvalidParams,
    /// The server's result fails its schema.
    InvalidResult,
    /// The call was refused before sending: wrong state or undeclared capability.
    Lifecycle,
    /// The protocol does not define the method as a request.
    UnknownMethod,
    /// A notification from the server was refused: not one of the
    /// protocol's server notifications, invalid params, or against the
    /// session's state or rules (`increasing_sequence`, `matches_scope`, ...).
    InvalidNotification,
    /// A request from the server was refused (not declared
    /// `server-to-client`, no handler, invalid params, the handler's result
    /// invalid) or is suspect (an id JSON-RPC 2.0 discourages); it was
    /// answered all the same, so the server never waits.
    ServerRequest,
    /// The companion data plane failed (a fault of
    /// [`crate::dataplane::DataFaultKind`], no plane, a silent stream).
    DataPlane,
}

impl HostErrorKind {
    /// A stable machine code (`lifecycle`, `invalid_params`).
    pub fn name(self) -> &'static str {
        match self {
            HostErrorKind::Spawn => "spawn",
            HostErrorKind::Io => "io",
            HostErrorKind::Timeout => "timeout",
            HostErrorKind::Exited => "exited",
            HostErrorKind::Framing => "framing",
            HostErrorKind::Envelope => "envelope",
            HostErrorKind::Remote => "remote",
            HostErrorKind::InvalidParams => "invalid_params",
            HostErrorKind::InvalidResult => "invalid_result",
            HostErrorKind::Lifecycle => "lifecycle",
            HostErrorKind::UnknownMethod => "unknown_method",
            HostErrorKind::InvalidNotification => "invalid_notification",
            HostErrorKind::ServerRequest => "server_request",
            HostErrorKind::DataPlane => "data_plane",
        }
    }

    /// Whether the host refused the call itself, before sending anything
    /// (wrong state, undeclared capability, invalid params, a method the
    /// protocol does not have): no server answered it.
    pub fn refused_before_sending(self) -> bool {
        matches!(
            self,
            HostErrorKind::Lifecycle | HostErrorKind::InvalidParams | HostErrorKind::UnknownMethod
        )
    }
}

impl fmt::Display for HostErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug)]
struct Inner {
    kind: HostErrorKind,
    message: String,
    remote: Option<ErrorObject>,
    issues: Vec<ValidationIssue>,
    stderr: String,
    refused: Option<crate::envelope::Notification>,
}

/// An error of a host call: its kind, a sentence, and what goes with it
/// (the server's error object, the validation issues, the server's last
/// stderr lines).
#[derive(Debug)]
pub struct HostError(Box<Inner>);

impl HostError {
    pub(crate) fn new(kind: HostErrorKind, message: impl Into<String>) -> Self {
        HostError(Box::new(Inner {
            kind,
            message: message.into(),
            remote: None,
            issues: Vec::new(),
            stderr: String::new(),
            refused: None,
        }))
    }

    pub(crate) fn remote(error: ErrorObject) -> Self {
        let mut host = HostError::new(
            HostErrorKind::Remote,
            format!("the server answered {}: {}", error.code, error.message),
        );
        host.0.remote = Some(error);
        host
    }

    pub(crate) fn issues(kind: HostErrorKind, method: &str, issues: Vec<ValidationIssue>) -> Self {
        let listed: Vec<String> = issues.iter().map(ToString::to_string).collect();
        let what = if kind == HostErrorKind::InvalidParams {
            "params"
        } else {
            "result"
        };
        // Invalid params are the host's own refusal: nothing was sent.
        let refused = if kind == HostErrorKind::InvalidParams {
            "not sent: "
        } else {
            ""
        };
        let mut host = HostError::new(
            kind,
            format!(
                "{refused}invalid {what} for `{method}`: {}",
                listed.join("; ")
            ),
        );
        host.0.issues = issues;
        host
    }

    pub(crate) fn notification(
        notification: &crate::envelope::Notification,
        message: String,
        issues: Vec<ValidationIssue>,
    ) -> Self {
        let mut host = HostError::new(HostErrorKind::InvalidNotification, message);
        host.0.issues = issues;
        host.0.refused = Some(notification.clone());
        host
    }

    pub(crate) fn prefix_message(&mut self, prefix: &str) {
        self.0.message.insert_str(0, prefix);
    }

    pub(crate) fn with_refused(mut self, notification: crate::envelope::Notification) -> Self {
        self.0.refused = Some(notification);
        self
    }

    /// The notification that was refused (InvalidNotification), or whose
    /// data stream failed (DataPlane).
    pub fn refused_notification(&self) -> Option<&crate::envelope::Notification> {
        self.0.refused.as_ref()
    }

    pub(crate) fn lifecycle(violation: &Violation) -> Self {
        let mut host = HostError::new(
            HostErrorKind::Lifecycle,
            format!("not sent: {}", violation.answer().message),
        );
        host.0.remote = Some(violation.answer().clone());
        host
    }

    /// A message other than the awaited answer or a notification, while
    /// `waiting` (the method, and the id of its request when one was sent)
    /// waited: a sentence naming the message's method and id.
    pub(crate) fn unexpected(waiting: &str, sent: Option<&Id>, message: &Message) -> Self {
        let waiting = match sent {
            Some(id) => format!("`{waiting}` (id {id}) was waiting for its answer"),
            None => format!("`{waiting}` was waiting"),
        };
        let what = match message {
            Message::Request(request) => format!(
                "the server sent the request `{}` (id {}) while {waiting}",
                request.method, request.id
            ),
            Message::Notification(notification) => format!(
                "the server sent the notification `{}` while {waiting}",
                notification.method
            ),
            Message::Response(response) => {
                let id = response
                    .id
                    .as_ref()
                    .map_or_else(|| "null".to_owned(), ToString::to_string);
                match &response.outcome {
                    Ok(_) => format!(
                        "the server sent a result for id {id}, which no pending request carries, while {waiting}"
                    ),
                    Err(error) => format!(
                        "the server sent error {} ({}) for id {id}, which no pending request carries, while {waiting}",
                        error.code, error.message
                    ),
                }
            }
        };
        HostError::new(HostErrorKind::Envelope, what)
    }

    pub(crate) fn timeout(method: &str, limit: Duration) -> Self {
        HostError::new(
            HostErrorKind::Timeout,
            format!(
                "`{method}` got no answer within {} ms; the server was killed",
                limit.as_millis()
            ),
        )
    }

    pub(crate) fn with_stderr(mut self, stderr: String) -> Self {
        self.0.stderr = stderr;
        self
    }

    /// What kind of error this is.
    pub fn kind(&self) -> HostErrorKind {
        self.0.kind
    }

    /// A sentence a person understands.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The server's error object (Remote), or the answer the protocol gives
    /// to a refused call (Lifecycle).
    pub fn error_object(&self) -> Option<&ErrorObject> {
        self.0.remote.as_ref()
    }

    /// The validation issues (InvalidParams, InvalidResult).
    pub fn validation_issues(&self) -> &[ValidationIssue] {
        &self.0.issues
    }

    /// The end of what the server wrote to stderr, when it died.
    pub fn stderr(&self) -> &str {
        &self.0.stderr
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)?;
        if !self.0.stderr.is_empty() {
            write!(f, "\nserver stderr:\n{}", self.0.stderr)?;
        }
        Ok(())
    }
}

impl std::error::Error for HostError {}
