//! The host as the transport of the generated typed clients: a
//! `GazeAnalyzerClient(host)` makes typed, checked calls to a subprocess.

use serde_json::Value;

use super::client::Host;
use super::error::{HostError, HostErrorKind};
use crate::typed::{CallError, Transport};

impl Transport for Host {
    fn request(&mut self, method: &str, params: Option<Value>) -> Result<Value, CallError> {
        self.call(method, params).map_err(call_error)
    }

    fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), CallError> {
        Host::notify(self, method, params).map_err(call_error)
    }

    fn request_stream(
        &mut self,
        method: &str,
        params: Option<Value>,
        on_item: &mut dyn FnMut(Value) -> Result<(), CallError>,
    ) -> Result<(), CallError> {
        for item in self.call_stream(method, params).map_err(call_error)? {
            on_item(item)?;
        }
        Ok(())
    }
}

/// A server's error (or the protocol's answer to a call refused before
/// sending) stays an RPC error; anything else is a transport failure.
fn call_error(error: HostError) -> CallError {
    match (error.kind(), error.error_object()) {
        (HostErrorKind::Remote | HostErrorKind::Lifecycle, Some(object)) => {
            CallError::Rpc(object.clone())
        }
        _ => CallError::Transport(std::io::Error::other(error)),
    }
}
