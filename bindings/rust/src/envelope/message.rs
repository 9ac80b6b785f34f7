//! The decoded message types: requests, notifications and responses.

use serde_json::Value;

use super::code::ErrorCode;
use super::id::Id;

/// The error object of an error response: `{"code", "message", "data"?}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorObject {
    /// The error code (see [`ErrorCode`] for the standard ones).
    pub code: i64,
    /// A short human description.
    pub message: String,
    /// Optional structured detail, any JSON value. `Some(Value::Null)` is an
    /// explicit `"data": null` and is written back as such.
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error object without `data`.
    pub fn new(code: impl Into<ErrorCode>, message: impl Into<String>) -> Self {
        ErrorObject {
            code: code.into().0,
            message: message.into(),
            data: None,
        }
    }

    /// This error object with `data` set.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The code as an [`ErrorCode`].
    #[must_use]
    pub fn error_code(&self) -> ErrorCode {
        ErrorCode(self.code)
    }
}

/// A request: a call that expects a response carrying the same id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The id the response will echo.
    pub id: Id,
    /// The method name. The envelope layer accepts any string, including the
    /// empty one; whether a method exists is the dispatcher's concern
    /// (gzkit answers a missing or empty method with `-32601`).
    pub method: String,
    /// The parameters: an object or an array, or `None` when absent.
    /// Lenient decoding also keeps an explicit `"params": null` as
    /// `Some(Value::Null)` so that it re-encodes unchanged.
    pub params: Option<Value>,
}

impl Request {
    /// A request.
    pub fn new(id: impl Into<Id>, method: impl Into<String>, params: Option<Value>) -> Self {
        Request {
            id: id.into(),
            method: method.into(),
            params,
        }
    }
}

/// A notification: a call without an id, which gets no response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    /// The method name (any string, as for [`Request::method`]).
    pub method: String,
    /// The parameters, as for [`Request::params`].
    pub params: Option<Value>,
}

impl Notification {
    /// A notification.
    pub fn new(method: impl Into<String>, params: Option<Value>) -> Self {
        Notification {
            method: method.into(),
            params,
        }
    }
}

/// A response: the outcome of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The id of the request answered; `None` is JSON `null`, used when the
    /// request's id could not be read.
    pub id: Option<Id>,
    /// `Ok(result)` for a success response, `Err(error)` for an error one.
    pub outcome: Result<Value, ErrorObject>,
}

impl Response {
    /// A success response carrying `result`.
    pub fn success(id: impl Into<Id>, result: Value) -> Self {
        Response {
            id: Some(id.into()),
            outcome: Ok(result),
        }
    }

    /// An error response; `id` is `None` when the request's id is unknown.
    #[must_use]
    pub fn error(id: Option<Id>, error: ErrorObject) -> Self {
        Response {
            id,
            outcome: Err(error),
        }
    }

    /// Whether this is a success response.
    #[must_use]
    pub fn is_success(&self) -> bool {
        self.outcome.is_ok()
    }
}

/// The kind of a [`Message`], with responses split by outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// A [`Request`].
    Request,
    /// A [`Notification`].
    Notification,
    /// A [`Response`] carrying `result`.
    SuccessResponse,
    /// A [`Response`] carrying `error`.
    ErrorResponse,
}

impl MessageKind {
    /// The stable name used by the test vectors: `"request"`,
    /// `"notification"`, `"success_response"` or `"error_response"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            MessageKind::Request => "request",
            MessageKind::Notification => "notification",
            MessageKind::SuccessResponse => "success_response",
            MessageKind::ErrorResponse => "error_response",
        }
    }
}

impl std::fmt::Display for MessageKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// A call expecting a response.
    Request(Request),
    /// A call expecting no response.
    Notification(Notification),
    /// The answer to a request.
    Response(Response),
}

impl Message {
    /// The kind of message.
    #[must_use]
    pub fn kind(&self) -> MessageKind {
        match self {
            Message::Request(_) => MessageKind::Request,
            Message::Notification(_) => MessageKind::Notification,
            Message::Response(Response { outcome: Ok(_), .. }) => MessageKind::SuccessResponse,
            Message::Response(Response {
                outcome: Err(_), ..
            }) => MessageKind::ErrorResponse,
        }
    }

    /// The method of a request or notification.
    #[must_use]
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            Message::Response(_) => None,
        }
    }

    /// The id of a request or response (`None` for a notification and for a
    /// response whose id is `null`).
    #[must_use]
    pub fn id(&self) -> Option<&Id> {
        match self {
            Message::Request(r) => Some(&r.id),
            Message::Notification(_) => None,
            Message::Response(r) => r.id.as_ref(),
        }
    }

    /// The params of a request or notification.
    #[must_use]
    pub fn params(&self) -> Option<&Value> {
        match self {
            Message::Request(r) => r.params.as_ref(),
            Message::Notification(n) => n.params.as_ref(),
            Message::Response(_) => None,
        }
    }
}

impl From<Request> for Message {
    fn from(request: Request) -> Self {
        Message::Request(request)
    }
}

impl From<Notification> for Message {
    fn from(notification: Notification) -> Self {
        Message::Notification(notification)
    }
}

impl From<Response> for Message {
    fn from(response: Response) -> Self {
        Message::Response(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_and_accessors() {
        let request = Message::from(Request::new(1, "analyze", Some(json!({}))));
        assert_eq!(request.kind(), MessageKind::Request);
        assert_eq!(request.method(), Some("analyze"));
        assert_eq!(request.id(), Some(&Id::from(1)));

        let note = Message::from(Notification::new("driver.observation", None));
        assert_eq!(note.kind(), MessageKind::Notification);
        assert_eq!(note.id(), None);

        let ok = Message::from(Response::success("a", json!({})));
        assert_eq!(ok.kind(), MessageKind::SuccessResponse);
        assert_eq!(ok.method(), None);

        let err = Message::from(Response::error(
            None,
            ErrorObject::new(ErrorCode::PARSE_ERROR, "Parse error"),
        ));
        assert_eq!(err.kind(), MessageKind::ErrorResponse);
        assert_eq!(err.kind().as_str(), "error_response");
    }
}
