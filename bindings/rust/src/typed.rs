//! The runtime of typed bindings: what the generated servers and clients
//! (crate `wirekit-protocols`, or your own `wirekit generate` output) call.
//!
//! A generated `…Client` makes typed calls over any [`Transport`] (the
//! `host` feature's `Host` is one) and fails with a [`CallError`]; a
//! generated `…Handler` decodes params and encodes results with the helpers
//! below, so a bad peer gets the protocol's -32602 or -32603, never a panic.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::envelope::{ErrorCode, ErrorObject};
use crate::serve::{AsPeer, PeerError, RuntimeFault};

pub use crate::bounded::{BoundedInt, OutOfBounds};

/// Carries a client's calls to a server.
pub trait Transport {
    /// Sends a request and waits for its result.
    fn request(&mut self, method: &str, params: Option<Value>) -> Result<Value, CallError>;

    /// Sends a notification.
    fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), CallError>;

    /// Sends a request whose result streams, handing each item to `on_item`.
    fn request_stream(
        &mut self,
        method: &str,
        params: Option<Value>,
        on_item: &mut dyn FnMut(Value) -> Result<(), CallError>,
    ) -> Result<(), CallError> {
        let _ = (params, on_item);
        Err(CallError::Unsupported(method.to_string()))
    }
}

/// Why a typed call failed.
#[derive(Debug)]
pub enum CallError {
    /// The server answered with an error.
    Rpc(ErrorObject),
    /// The transport failed.
    Transport(std::io::Error),
    /// The params could not be encoded.
    Encode {
        /// The method called.
        method: String,
        /// What serde said.
        message: String,
    },
    /// The result did not fit its type.
    Decode {
        /// The method called.
        method: String,
        /// What serde said.
        message: String,
    },
    /// The transport cannot stream results.
    Unsupported(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Rpc(e) => write!(f, "error {}: {}", e.code, e.message),
            CallError::Transport(e) => write!(f, "transport failed: {e}"),
            CallError::Encode { method, message } => {
                write!(f, "cannot encode the params of {method}: {message}")
            }
            CallError::Decode { method, message } => {
                write!(f, "the result of {method} does not fit its type: {message}")
            }
            CallError::Unsupported(method) => {
                write!(f, "the transport cannot stream the result of {method}")
            }
        }
    }
}

impl std::error::Error for CallError {}

impl From<ErrorObject> for CallError {
    fn from(e: ErrorObject) -> Self {
        CallError::Rpc(e)
    }
}

impl From<std::io::Error> for CallError {
    fn from(e: std::io::Error) -> Self {
        CallError::Transport(e)
    }
}

/// Decodes required params: -32602 Invalid params when absent or ill-typed,
/// naming the JSON pointer (`/params/...`) where they stopped fitting.
pub fn decode_params<T: DeserializeOwned>(
    method: &str,
    params: Option<Value>,
) -> Result<T, ErrorObject> {
    let Some(params) = params else {
        return Err(ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("Invalid params: {method} takes params"),
        ));
    };
    decode_at(params).map_err(|(pointer, message)| {
        ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("Invalid params for {method} at /params{pointer}: {message}"),
        )
    })
}

/// Decodes `value` as `T`; when it does not fit, the JSON pointer (below
/// `value`) where serde stopped, and what it said.
fn decode_at<T: DeserializeOwned>(value: Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        (
            crate::protocol::pointer::from_serde_path(error.path()),
            error.inner().to_string(),
        )
    })
}

/// Decodes optional params: absent or `null` is `None`.
pub fn decode_optional_params<T: DeserializeOwned>(
    method: &str,
    params: Option<Value>,
) -> Result<Option<T>, ErrorObject> {
    match params {
        None | Some(Value::Null) => Ok(None),
        Some(p) => decode_params(method, Some(p)).map(Some),
    }
}

/// Encodes a result: -32603 Internal error when it cannot be.
pub fn encode_result<T: Serialize>(method: &str, result: T) -> Result<Value, ErrorObject> {
    serde_json::to_value(result).map_err(|e| {
        ErrorObject::new(
            ErrorCode::INTERNAL_ERROR,
            format!("cannot encode the result of {method}: {e}"),
        )
    })
}

/// Encodes one streamed item and hands it to the serve loop.
pub fn emit_item<T: Serialize>(emit: &mut crate::serve::Emit<'_>, item: T) -> std::io::Result<()> {
    let value = serde_json::to_value(item).map_err(std::io::Error::other)?;
    emit(value)
}

/// Encodes a call's params.
pub fn encode_params<T: Serialize>(method: &str, params: T) -> Result<Option<Value>, CallError> {
    match serde_json::to_value(params) {
        Ok(Value::Null) => Ok(None),
        Ok(v) => Ok(Some(v)),
        Err(e) => Err(CallError::Encode {
            method: method.to_string(),
            message: e.to_string(),
        }),
    }
}

/// Decodes a call's result.
pub fn decode_result<T: DeserializeOwned>(method: &str, result: Value) -> Result<T, CallError> {
    serde_json::from_value(result).map_err(|e| CallError::Decode {
        method: method.to_string(),
        message: e.to_string(),
    })
}

/// Sends a typed notification to the client from a handler of the
/// concurrent loop (what a generated `…PeerExt`'s `notify_…` calls):
/// `params` encoded (`()` or `None` sends none), then checked and sent by
/// the loop as [`Peer::notify`](crate::serve::Peer::notify) does.
pub fn notify_peer<P: Serialize>(
    peer: &(impl AsPeer + ?Sized),
    method: &str,
    params: P,
) -> Result<(), PeerError> {
    let params = peer_params(method, params)
        .map_err(|why| PeerError::Refused(RuntimeFault::dropped(method, "/params", &why)))?;
    peer.as_peer().notify(method, params)
}

/// Sends a typed request to the client from a handler of the concurrent
/// loop and decodes its answer (what a generated `…PeerExt`'s `request_…`
/// calls): the loop checks the answer against the method's result schema,
/// then [`decode_answer`] fits it to `R`.
pub fn request_peer<P: Serialize, R: DeserializeOwned>(
    peer: &(impl AsPeer + ?Sized),
    method: &str,
    params: P,
) -> Result<R, PeerError> {
    let params = peer_params(method, params).map_err(|why| {
        PeerError::Refused(RuntimeFault::dropped_request(method, "/params", &why))
    })?;
    let answer = peer.as_peer().request(method, params)?;
    decode_answer(method, answer)
}

/// Decodes the client's answer to `method` as `R`: one that does not fit is
/// [`PeerError::InvalidAnswer`], its pointer where it stopped fitting
/// (`/result/...`).
pub fn decode_answer<R: DeserializeOwned>(method: &str, answer: Value) -> Result<R, PeerError> {
    decode_at(answer).map_err(|(pointer, message)| {
        PeerError::InvalidAnswer(RuntimeFault {
            kind: "invalid_answer".to_owned(),
            method: method.to_owned(),
            pointer: format!("/result{pointer}"),
            message: format!("the client's result for `{method}` does not fit its type: {message}"),
        })
    })
}

/// A message's params as the loop takes them: `null` is none.
fn peer_params<P: Serialize>(method: &str, params: P) -> Result<Option<Value>, String> {
    match serde_json::to_value(params) {
        Ok(Value::Null) => Ok(None),
        Ok(value) => Ok(Some(value)),
        Err(e) => Err(format!("cannot encode the params of {method}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::{decode_answer, decode_params};
    use crate::serve::PeerError;
    use serde_json::json;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Roots {
        roots: Vec<Root>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Root {
        uri: String,
    }

    #[test]
    fn params_that_do_not_fit_are_answered_invalid_params_with_their_pointer() {
        let error = decode_params::<Roots>("m", Some(json!({"roots": [{"uri": "a"}, {"uri": 7}]})))
            .err()
            .map(|e| (e.code, e.message));
        assert_eq!(
            error,
            Some((
                -32602,
                "Invalid params for m at /params/roots/1/uri: invalid type: integer `7`, expected a string"
                    .to_owned()
            ))
        );
    }

    #[test]
    fn an_answer_that_does_not_fit_is_an_invalid_answer_with_its_pointer() {
        let error = decode_answer::<Roots>("roots/list", json!({"roots": [{"name": "x"}]})).err();
        assert_eq!(error.as_ref().map(PeerError::code), Some("invalid-answer"));
        if let Some(PeerError::InvalidAnswer(fault)) = error {
            assert_eq!(
                (fault.kind.as_str(), fault.pointer.as_str()),
                ("invalid_answer", "/result/roots/0")
            );
            assert!(
                fault.message.contains("missing field `uri`"),
                "{}",
                fault.message
            );
        }
        assert!(decode_answer::<Roots>("roots/list", json!({"roots": []})).is_ok());
    }
}
