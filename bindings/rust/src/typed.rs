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

/// Decodes required params: -32602 Invalid params when absent or ill-typed.
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
    serde_json::from_value(params).map_err(|e| {
        ErrorObject::new(
            ErrorCode::INVALID_PARAMS,
            format!("Invalid params for {method}: {e}"),
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
