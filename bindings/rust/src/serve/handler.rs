//! What a server implements: one answer a method.

use serde_json::value::RawValue;
use serde_json::Value;

use crate::envelope::{ErrorCode, ErrorObject, Notification};

/// Sends one item of a streamed result; fails when the peer has gone.
pub type Emit<'a> = dyn FnMut(Value) -> std::io::Result<()> + 'a;

/// A server's methods. The serve loop has already checked the envelope,
/// the lifecycle and the params against their schema before it calls in,
/// and checks the result after.
pub trait Handler {
    /// Whether the server implements `method` (one it does not is answered
    /// -32601 Method not found).
    fn implements(&self, method: &str) -> bool;

    /// Answers a request.
    fn handle(&mut self, method: &str, params: Option<Value>) -> Result<Value, ErrorObject>;

    /// Whether [`Handler::handle_encoded`] answers `method` instead of
    /// [`Handler::handle`].
    fn answers_encoded(&self, method: &str) -> bool {
        let _ = method;
        false
    }

    /// A fast path for bindings: answers a request with a result that the
    /// handler has already checked against the method's result schema
    /// ([`Protocol::validate`](crate::validate::Protocol::validate) with
    /// `Part::Result`, honouring its own warn or reject choice) and encoded
    /// as compact JSON (no raw line break: the loop frames it without
    /// scanning it), so the serve loop never builds a `Value` of it. Called for
    /// the methods [`Handler::answers_encoded`] names, except the method that
    /// declares capabilities and any method of a canonical protocol.
    fn handle_encoded(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let _ = params;
        Err(method_not_found(method))
    }

    /// Whether the handler can answer requests from their params' text
    /// ([`Handler::handle_params_text`]); the serve loop then decodes each
    /// body keeping a request's params as text
    /// ([`decode_keeping_params`](crate::envelope::decode_keeping_params)).
    fn reads_params_text(&self) -> bool {
        false
    }

    /// A fast path for bindings that build their own objects from the
    /// params' text (an object or an array, as sent, its numbers not
    /// settled): answers `method` as [`Handler::handle_encoded`] does, having
    /// checked the params against the method's params schema itself, or
    /// gives `None` without calling the method when it cannot accept them
    /// there for certain (a value its check cannot judge, a number the
    /// envelope would settle or refuse). The loop then decodes the body whole
    /// and takes the usual path, which checks and reports.
    ///
    /// Called only where that usual path would call `handle_encoded`, after
    /// the same checks, for a method whose params the session does not read
    /// ([`Session::reads_params`](crate::session::Session::reads_params)).
    fn handle_params_text(
        &mut self,
        method: &str,
        params: &RawValue,
    ) -> Option<Result<Box<RawValue>, ErrorObject>> {
        let _ = (method, params);
        None
    }

    /// Answers a streamed-result request (`result_stream` in the manifest)
    /// by emitting items; the serve loop closes the stream after.
    fn handle_stream(
        &mut self,
        method: &str,
        params: Option<Value>,
        emit: &mut Emit<'_>,
    ) -> Result<(), ErrorObject> {
        let _ = (params, emit);
        Err(method_not_found(method))
    }

    /// Whether the handler has asked the loop to end now: a binding's fatal
    /// error (a `KeyboardInterrupt` in a Python handler, say). The loop
    /// returns an error ("a handler stopped the serve loop") after the
    /// frame it is on, calling no handler again.
    fn stopped(&self) -> bool {
        false
    }

    /// Notifications the server sends of its own accord (server-to-client,
    /// such as the driver protocol's observations), taken after each answer and after each client notification
    /// and sent in order, each checked against its schema and the session's
    /// rules first.
    fn take_notifications(&mut self) -> Vec<Notification> {
        Vec::new()
    }

    /// Receives a notification from the client.
    fn notify(&mut self, method: &str, params: Option<Value>) {
        let _ = (method, params);
    }
}

/// The -32601 answer for `method`.
pub fn method_not_found(method: &str) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("Method not found: {method}"),
    )
}
