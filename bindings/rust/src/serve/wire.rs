//! The one way bytes leave a server: a message (or a success response
//! around an already-encoded result) becomes one frame, written as the
//! protocol's transport says (RFC 8785 canonical where it is canonical),
//! refused before anything is sent when it would exceed the frame bound.
//! The serve loop and the bindings' writers call it; nothing else writes
//! an envelope or a frame header.

use std::fmt;

use serde_json::value::RawValue;
use serde_json::Value;

use crate::envelope::{
    encode_success_head, encode_success_raw, encoded_success_raw_len, EnvelopeError,
    EnvelopeOptions, Id, Message, Response, SUCCESS_TAIL,
};
use crate::framing::{encoder_for, FrameEncoder, Framing, FramingError};
use crate::protocol::Transport;

/// Room [`Wire::frame_result_in_place`] keeps in front of a body for its
/// `Content-Length` header: the longest one (`usize::MAX` has 20 digits).
const HEADER_ROOM: usize = "Content-Length: \r\n\r\n".len() + 20;

/// A frame built in one buffer by [`Wire::frame_result_in_place`].
#[derive(Debug)]
pub struct InPlaceFrame {
    buffer: Vec<u8>,
    start: usize,
}

impl InPlaceFrame {
    /// The frame's bytes, header included.
    pub fn bytes(&self) -> &[u8] {
        self.buffer.get(self.start..).unwrap_or_default()
    }
}

/// Why a message could not become a frame.
#[derive(Debug)]
pub enum WireError {
    /// The body would be `bytes` long, over the frame bound `limit`.
    TooLong {
        /// The body's length.
        bytes: usize,
        /// The protocol's `max_frame_bytes`.
        limit: usize,
    },
    /// The envelope cannot be written (an integer with no RFC 8785 form).
    Encode(EnvelopeError),
    /// The framing refused the body.
    Framing(FramingError),
    /// An already-encoded result is not JSON.
    NotJson(String),
}

impl WireError {
    /// A stable machine code (`too-long`).
    pub fn code(&self) -> &'static str {
        match self {
            WireError::TooLong { .. } => "too-long",
            WireError::Encode(_) => "encode",
            WireError::Framing(_) => "framing",
            WireError::NotJson(_) => "not-json",
        }
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::TooLong { bytes, limit } => {
                write!(
                    f,
                    "the frame body is {bytes} bytes, over the frame bound of {limit}"
                )
            }
            WireError::Encode(error) => write!(f, "the envelope cannot be written: {error}"),
            WireError::Framing(error) => write!(f, "{error}"),
            WireError::NotJson(detail) => write!(f, "the encoded result is not JSON: {detail}"),
        }
    }
}

impl std::error::Error for WireError {}

/// Frames outgoing messages of one protocol.
pub struct Wire {
    transport: Transport,
    envelope: EnvelopeOptions,
    encoder: Box<dyn FrameEncoder + Send + Sync>,
}

impl fmt::Debug for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wire")
            .field("transport", &self.transport)
            .finish_non_exhaustive()
    }
}

impl Wire {
    /// A writer of `transport`'s frames.
    pub fn new(transport: &Transport) -> Self {
        Wire {
            transport: transport.clone(),
            envelope: transport.envelope_options(),
            encoder: encoder_for(transport.framing, transport.frame_limits()),
        }
    }

    /// The transport it writes.
    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// One frame holding `message`.
    pub fn frame_message(&self, message: &Message) -> Result<Vec<u8>, WireError> {
        let body = self.transport.encode(message).map_err(WireError::Encode)?;
        self.frame_body(&body)
    }

    /// One frame holding a bare value (a streamed item: no envelope).
    pub fn frame_value(&self, value: &Value) -> Result<Vec<u8>, WireError> {
        let body = serde_json::to_vec(value).map_err(|e| WireError::NotJson(e.to_string()))?;
        self.frame_body(&body)
    }

    /// One frame holding the success response to `id` whose result is
    /// `result`, JSON text that a binding encoded. Canonical protocols get
    /// it re-encoded canonically; other protocols get the text as it is,
    /// unless it holds a raw line break that NDJSON cannot carry, in which
    /// case it is re-encoded compactly.
    pub fn frame_result(&self, id: &Id, result: &RawValue) -> Result<Vec<u8>, WireError> {
        let raw = result.get().as_bytes();
        let breaks_line = self.transport.framing == Framing::Ndjson
            && memchr::memchr2(b'\n', b'\r', raw).is_some();
        if self.transport.canonical || breaks_line {
            let value: Value = serde_json::from_str(result.get())
                .map_err(|e| WireError::NotJson(e.to_string()))?;
            let response = Response {
                id: Some(id.clone()),
                outcome: Ok(value),
            };
            return self.frame_message(&Message::Response(response));
        }
        let limit = self.transport.frame_bound();
        let length = encoded_success_raw_len(id, result, &self.envelope);
        if length > limit {
            return Err(WireError::TooLong {
                bytes: length,
                limit,
            });
        }
        let mut frame = Vec::with_capacity(length + 32);
        if self.transport.framing == Framing::ContentLength {
            frame.extend_from_slice(format!("Content-Length: {length}\r\n\r\n").as_bytes());
        }
        encode_success_raw(id, result, &self.envelope, &mut frame);
        if self.transport.framing == Framing::Ndjson {
            frame.push(b'\n');
        }
        Ok(frame)
    }

    /// The frame of [`Wire::frame_result`], its result written by `write`
    /// straight into the frame's buffer, so a large result is copied once
    /// less: the buffer keeps room for a `Content-Length` header in front,
    /// `write` appends the result's JSON text after the envelope's head, and
    /// the header goes into the room once the length is known. `None` when
    /// `write` declines (it returns `false`; what it appended is dropped).
    ///
    /// `write` must append one JSON value, as for [`Wire::frame_result`];
    /// what that method re-encodes (a canonical protocol, a raw line break
    /// under NDJSON) is re-encoded here too, with the same bound and errors.
    pub fn frame_result_in_place(
        &self,
        id: &Id,
        size_hint: usize,
        write: impl FnOnce(&mut Vec<u8>) -> bool,
    ) -> Option<Result<InPlaceFrame, WireError>> {
        let mut buffer = Vec::with_capacity(HEADER_ROOM + size_hint + 64);
        buffer.resize(HEADER_ROOM, b' ');
        encode_success_head(id, &self.envelope, &mut buffer);
        let result_start = buffer.len();
        if !write(&mut buffer) {
            return None;
        }
        let result = buffer.get(result_start..).unwrap_or_default();
        let breaks_line = self.transport.framing == Framing::Ndjson
            && memchr::memchr2(b'\n', b'\r', result).is_some();
        if self.transport.canonical || breaks_line {
            let framed = std::str::from_utf8(result)
                .map_err(|e| WireError::NotJson(e.to_string()))
                .and_then(|text| {
                    RawValue::from_string(text.to_owned())
                        .map_err(|e| WireError::NotJson(e.to_string()))
                })
                .and_then(|raw| self.frame_result(id, &raw));
            return Some(framed.map(|buffer| InPlaceFrame { buffer, start: 0 }));
        }
        buffer.push(SUCCESS_TAIL);
        let length = buffer.len() - HEADER_ROOM;
        let limit = self.transport.frame_bound();
        if length > limit {
            return Some(Err(WireError::TooLong {
                bytes: length,
                limit,
            }));
        }
        let mut start = HEADER_ROOM;
        match self.transport.framing {
            Framing::ContentLength => {
                let header = format!("Content-Length: {length}\r\n\r\n");
                // The room holds the longest header (`usize::MAX` digits).
                start = HEADER_ROOM - header.len();
                buffer
                    .get_mut(start..HEADER_ROOM)?
                    .copy_from_slice(header.as_bytes());
            }
            Framing::Ndjson => buffer.push(b'\n'),
        }
        Some(Ok(InPlaceFrame { buffer, start }))
    }

    /// One frame holding `body`, bytes already encoded by the core (a
    /// stream's failure line).
    pub fn frame_body(&self, body: &[u8]) -> Result<Vec<u8>, WireError> {
        let limit = self.transport.frame_bound();
        if body.len() > limit {
            return Err(WireError::TooLong {
                bytes: body.len(),
                limit,
            });
        }
        let mut frame = Vec::with_capacity(body.len() + 32);
        self.encoder
            .encode_into(body, &mut frame)
            .map_err(WireError::Framing)?;
        Ok(frame)
    }
}
