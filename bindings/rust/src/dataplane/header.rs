//! The data frame header and one frame's encoding.

use serde::{Deserialize, Serialize};

use super::fault::{DataFaultKind, DataPlaneError};

/// The protocol's data-frame bound (the reference's `DefaultMaxDataFrameBytes`).
pub const DEFAULT_MAX_DATA_FRAME_BYTES: usize = 256 << 10;
/// The largest header this framing carries.
pub const MAX_HEADER_BYTES: usize = 4096;

/// Precedes one payload (the reference's `DataFrameHeader`; unknown and
/// duplicate members are refused).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DataFrameHeader {
    /// The invocation.
    pub invocation_id: String,
    /// The attempt.
    pub attempt_id: String,
    /// The stream (non-empty).
    pub stream_id: String,
    /// Strictly increasing within the stream.
    pub sequence: u64,
    /// The payload's length in bytes.
    pub length: u32,
    /// Whether this frame closes the stream.
    #[serde(rename = "final")]
    pub final_frame: bool,
}

impl DataFrameHeader {
    /// Reads a header's bytes: strict JSON of the header's shape, with a
    /// non-empty stream id. `offset` is the frame's, for the error.
    pub fn parse(bytes: &[u8], offset: u64) -> Result<Self, DataPlaneError> {
        let invalid =
            |message: String| DataPlaneError::new(DataFaultKind::InvalidHeader, offset, message);
        let mut parser = serde_json::Deserializer::from_slice(bytes);
        let (value, duplicate) = crate::envelope::strict::parse_detecting_duplicates(&mut parser)
            .and_then(|parsed| parser.end().map(|()| parsed))
            .map_err(|e| invalid(format!("the header is not one JSON value: {e}")))?;
        if let Some(pointer) = duplicate {
            return Err(invalid(format!("the header repeats the member {pointer}")));
        }
        let header: DataFrameHeader = serde_json::from_value(value).map_err(|e| {
            DataPlaneError::new(
                DataFaultKind::InvalidHeader,
                offset,
                format!("not a data frame header: {e}"),
            )
        })?;
        if header.stream_id.is_empty()
            || header.invocation_id.is_empty()
            || header.attempt_id.is_empty()
        {
            return Err(DataPlaneError::new(
                DataFaultKind::InvalidHeader,
                offset,
                "invocation_id, attempt_id and stream_id are required (non-empty)",
            ));
        }
        Ok(header)
    }
}

/// One frame: the header's length, the header as RFC 8785 JSON, the
/// payload. Refuses a payload whose length is not the header's or is over
/// the default bound.
pub fn encode_frame(header: &DataFrameHeader, payload: &[u8]) -> Result<Vec<u8>, DataPlaneError> {
    if payload.len() != header.length as usize {
        return Err(DataPlaneError::new(
            DataFaultKind::InvalidHeader,
            0,
            format!(
                "the header says {} bytes, the payload has {}",
                header.length,
                payload.len()
            ),
        ));
    }
    if payload.len() > DEFAULT_MAX_DATA_FRAME_BYTES {
        return Err(DataPlaneError::new(
            DataFaultKind::TooLarge,
            0,
            format!(
                "{} payload bytes, over the bound of {DEFAULT_MAX_DATA_FRAME_BYTES}",
                payload.len()
            ),
        ));
    }
    let encoded = serde_json_canonicalizer::to_vec(header).map_err(|e| {
        DataPlaneError::new(
            DataFaultKind::InvalidHeader,
            0,
            format!("cannot encode the header: {e}"),
        )
    })?;
    if encoded.len() > MAX_HEADER_BYTES {
        return Err(DataPlaneError::new(
            DataFaultKind::HeaderTooLarge,
            0,
            format!("a {}-byte header, over {MAX_HEADER_BYTES}", encoded.len()),
        ));
    }
    let mut frame = Vec::with_capacity(4 + encoded.len() + payload.len());
    frame.extend_from_slice(&(encoded.len() as u32).to_be_bytes());
    frame.extend_from_slice(&encoded);
    frame.extend_from_slice(payload);
    Ok(frame)
}
