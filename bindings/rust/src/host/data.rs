//! The host's side of the data plane (see [`super::data_plane`]): taking
//! an offer, and reading the stream each checked observation announces.

use serde_json::Value;

use super::client::Host;
use super::data_plane::DataPlaneOffer;
use super::error::{HostError, HostErrorKind};

impl Host {
    /// Reads the data plane offered (see [`DataPlaneOffer`]) when
    /// observations name a `data_stream`.
    pub fn with_data_plane(mut self, offer: DataPlaneOffer) -> Self {
        self.set_data_plane(offer.plane);
        self
    }

    /// After a checked observation: reads the stream it announces, if any.
    pub(super) fn follow_data_stream(&mut self, params: Option<&Value>) -> Result<(), HostError> {
        let Some(params) = params else { return Ok(()) };
        let Some(stream) = params
            .pointer("/data_stream/stream_id")
            .and_then(Value::as_str)
        else {
            return Ok(());
        };
        let text = |pointer: &str| {
            params
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        let (invocation, attempt) = (text("/invocation_id"), text("/attempt_id"));
        let limit = self.timeout_override().unwrap_or(super::DEFAULT_TIMEOUT);
        let Some(plane) = self.data_plane() else {
            return Err(HostError::new(
                HostErrorKind::DataPlane,
                format!(
                    "an observation names data stream `{stream}`, but no data plane was offered"
                ),
            ));
        };
        plane.read_stream(stream, invocation, attempt, limit)
    }
}
