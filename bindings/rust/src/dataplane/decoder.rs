//! The I/O-free data-plane decoder: bytes in, whole frames out.

use std::collections::HashMap;

use super::fault::{DataFaultKind, DataPlaneError};
use super::header::{DataFrameHeader, DEFAULT_MAX_DATA_FRAME_BYTES, MAX_HEADER_BYTES};

/// One whole frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFrame {
    /// Its header.
    pub header: DataFrameHeader,
    /// Its payload (`header.length` bytes).
    pub payload: Vec<u8>,
}

#[derive(Debug, Clone)]
struct Stream {
    invocation_id: String,
    attempt_id: String,
    last: Option<u64>,
    closed: bool,
}

#[derive(Debug)]
enum Reading {
    Prefix,
    Header(usize),
    Payload(DataFrameHeader),
}

/// Decodes the data plane from pushed bytes, in any chunks. Holds at most
/// one frame: a header's length is checked against the bound before any
/// of its payload is buffered.
#[derive(Debug)]
pub struct DataDecoder {
    max_frame_bytes: usize,
    streams: HashMap<String, Stream>,
    reading: Reading,
    buffer: Vec<u8>,
    frame_offset: u64,
    offset: u64,
    fault: Option<DataPlaneError>,
}

impl Default for DataDecoder {
    fn default() -> Self {
        DataDecoder::new(DEFAULT_MAX_DATA_FRAME_BYTES)
    }
}

impl DataDecoder {
    /// A decoder with a negotiated bound (the default bound when higher).
    pub fn new(max_frame_bytes: usize) -> Self {
        DataDecoder {
            max_frame_bytes: max_frame_bytes.min(DEFAULT_MAX_DATA_FRAME_BYTES),
            streams: HashMap::new(),
            reading: Reading::Prefix,
            buffer: Vec::new(),
            frame_offset: 0,
            offset: 0,
            fault: None,
        }
    }

    /// The payload bound in force.
    pub fn max_frame_bytes(&self) -> usize {
        self.max_frame_bytes
    }

    /// A stream the control plane announced (an observation's
    /// `data_stream`), with its invocation and attempt.
    pub fn announce(&mut self, stream_id: &str, invocation_id: &str, attempt_id: &str) {
        self.streams.entry(stream_id.to_owned()).or_insert(Stream {
            invocation_id: invocation_id.to_owned(),
            attempt_id: attempt_id.to_owned(),
            last: None,
            closed: false,
        });
    }

    /// Whether the stream's final frame has come.
    pub fn is_closed(&self, stream_id: &str) -> bool {
        self.streams.get(stream_id).is_some_and(|s| s.closed)
    }

    /// The bytes the decoder holds now (its buffer's capacity): never more
    /// than one frame's payload or header.
    pub fn held_bytes(&self) -> usize {
        self.buffer.capacity()
    }

    /// The fault that lost the plane, if one did.
    pub fn fault(&self) -> Option<&DataPlaneError> {
        self.fault.as_ref()
    }

    /// Takes `input`; returns the frames it completes, then the fault that
    /// stopped decoding (after which nothing more is decoded).
    pub fn push(&mut self, mut input: &[u8]) -> Vec<Result<DataFrame, DataPlaneError>> {
        let mut out = Vec::new();
        while !input.is_empty() && self.fault.is_none() {
            let want = match &self.reading {
                Reading::Prefix => 4,
                Reading::Header(length) => *length,
                Reading::Payload(header) => header.length as usize,
            };
            let take = (want - self.buffer.len()).min(input.len());
            self.buffer.extend_from_slice(&input[..take]);
            input = &input[take..];
            self.offset += take as u64;
            if self.buffer.len() < want {
                break;
            }
            if let Some(step) = self.step() {
                let failed = step.is_err();
                out.push(step);
                if failed {
                    break;
                }
            }
            // A zero-length payload completes without more input.
            if let Reading::Payload(header) = &self.reading {
                if header.length == 0 {
                    if let Some(step) = self.step() {
                        out.push(step);
                    }
                }
            }
        }
        out
    }

    /// The input has ended: a fault when it ended inside a frame.
    pub fn finish(&mut self) -> Result<(), DataPlaneError> {
        if let Some(fault) = &self.fault {
            return Err(fault.clone());
        }
        if matches!(self.reading, Reading::Prefix) && self.buffer.is_empty() {
            return Ok(());
        }
        Err(self.fail(
            DataFaultKind::Truncated,
            format!(
                "the input ended inside a frame ({} bytes of it read)",
                self.offset - self.frame_offset
            ),
        ))
    }

    fn fail(&mut self, kind: DataFaultKind, message: String) -> DataPlaneError {
        let fault = DataPlaneError::new(kind, self.frame_offset, message);
        self.fault = Some(fault.clone());
        self.buffer = Vec::new();
        fault
    }

    /// The buffer holds what the current state wants: moves on.
    fn step(&mut self) -> Option<Result<DataFrame, DataPlaneError>> {
        match std::mem::replace(&mut self.reading, Reading::Prefix) {
            Reading::Prefix => {
                let length = u32::from_be_bytes([
                    self.buffer[0],
                    self.buffer[1],
                    self.buffer[2],
                    self.buffer[3],
                ]) as usize;
                self.buffer.clear();
                if length == 0 || length > MAX_HEADER_BYTES {
                    return Some(Err(self.fail(
                        DataFaultKind::HeaderTooLarge,
                        format!("a header of {length} bytes; a header has 1 to {MAX_HEADER_BYTES}"),
                    )));
                }
                // Exactly the header's size: grown piece by piece, the buffer
                // would double past the header bound.
                self.buffer.reserve_exact(length);
                self.reading = Reading::Header(length);
                None
            }
            Reading::Header(_) => {
                let parsed = DataFrameHeader::parse(&self.buffer, self.frame_offset);
                self.buffer.clear();
                let header = match parsed.and_then(|header| self.admit(header)) {
                    Ok(header) => header,
                    Err(fault) => {
                        self.fault = Some(fault.clone());
                        return Some(Err(fault));
                    }
                };
                self.buffer.reserve_exact(header.length as usize);
                self.reading = Reading::Payload(header);
                None
            }
            Reading::Payload(header) => {
                let payload = std::mem::take(&mut self.buffer);
                if let Some(stream) = self.streams.get_mut(&header.stream_id) {
                    stream.last = Some(header.sequence);
                    stream.closed = header.final_frame;
                }
                self.frame_offset = self.offset;
                Some(Ok(DataFrame { header, payload }))
            }
        }
    }

    /// The header's rules, before any payload byte is buffered.
    fn admit(&mut self, header: DataFrameHeader) -> Result<DataFrameHeader, DataPlaneError> {
        let offset = self.frame_offset;
        let fault = |kind, message: String| DataPlaneError::new(kind, offset, message);
        if header.length as usize > self.max_frame_bytes {
            return Err(fault(
                DataFaultKind::TooLarge,
                format!(
                    "a {}-byte payload, over the bound of {} bytes",
                    header.length, self.max_frame_bytes
                ),
            ));
        }
        let Some(stream) = self.streams.get(&header.stream_id) else {
            return Err(fault(
                DataFaultKind::UnknownStream,
                format!(
                    "stream {:?} was never announced by an observation",
                    header.stream_id
                ),
            ));
        };
        if stream.invocation_id != header.invocation_id || stream.attempt_id != header.attempt_id {
            return Err(fault(
                DataFaultKind::IdentityMismatch,
                format!(
                    "stream {:?} belongs to invocation {} attempt {}, the frame says {} attempt {}",
                    header.stream_id,
                    stream.invocation_id,
                    stream.attempt_id,
                    header.invocation_id,
                    header.attempt_id
                ),
            ));
        }
        if stream.closed {
            return Err(fault(
                DataFaultKind::AfterFinal,
                format!(
                    "a frame for stream {:?} after its final frame",
                    header.stream_id
                ),
            ));
        }
        if let Some(last) = stream.last.filter(|last| header.sequence <= *last) {
            return Err(fault(
                DataFaultKind::OutOfSequence,
                format!(
                    "sequence {} after {last} in stream {:?}",
                    header.sequence, header.stream_id
                ),
            ));
        }
        Ok(header)
    }
}
