//! Every notification a server sends, classified once: a publication, a
//! progress step, an error-level message (the reason a later empty answer
//! is "unavailable"), something ignored, or something not understood.

use serde_json::Value;

use super::diagnostics::{decode_publish_diagnostics, PublishDiagnostics};
use super::error::{DecodeError, DecodeErrorKind};
use super::fields::{object, string, unsigned};
use super::progress::{decode_work_done_progress, ProgressToken, WorkDoneProgress};

/// What a server's notification means to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerNotification {
    /// `textDocument/publishDiagnostics`.
    Published(PublishDiagnostics),
    /// `$/progress` with work-done progress.
    Progressed(ProgressToken, WorkDoneProgress),
    /// `window/logMessage` or `window/showMessage` at error level.
    ServerFailure(String),
    /// Understood and of no consequence (a log line, `$/logTrace`, telemetry).
    Ignored,
    /// Malformed, or a method this client does not know: dropped, with why.
    Unrecognised(String),
}

/// Classifies a notification by method and params; never fails (a
/// malformed one is [`ServerNotification::Unrecognised`]).
pub fn classify_notification(method: &str, params: Option<&Value>) -> ServerNotification {
    let params = params.unwrap_or(&Value::Null);
    let described =
        |error: DecodeError| ServerNotification::Unrecognised(format!("`{method}`: {error}"));
    match method {
        "textDocument/publishDiagnostics" => match decode_publish_diagnostics(params) {
            Ok(publication) => ServerNotification::Published(publication),
            Err(error) => described(error),
        },
        "$/progress" => match decode_work_done_progress(params) {
            Ok((token, step)) => ServerNotification::Progressed(token, step),
            Err(error) => described(error),
        },
        "window/logMessage" | "window/showMessage" => match message(params) {
            Ok((1, text)) => ServerNotification::ServerFailure(text),
            Ok(_) => ServerNotification::Ignored,
            Err(error) => described(error),
        },
        "$/logTrace" | "telemetry/event" | "$/cancelRequest" => ServerNotification::Ignored,
        other => ServerNotification::Unrecognised(format!(
            "`{other}` is not a notification this client reads"
        )),
    }
}

/// A message's type (1 error, 2 warning, 3 info, 4 log, 5 debug) and text.
fn message(params: &Value) -> Result<(u32, String), DecodeError> {
    let message = object(params, "a message object")?;
    let kind = unsigned(message, "type")?;
    if !(1..=5).contains(&kind) {
        return Err(DecodeError::new(
            DecodeErrorKind::OutOfRange,
            "/type",
            format!("message type {kind} is not 1 to 5"),
        ));
    }
    Ok((kind, string(message, "message")?))
}
