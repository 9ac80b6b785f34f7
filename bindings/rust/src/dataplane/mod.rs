//! The driver protocol's companion data plane: large observation payloads
//! travel beside the control stream as length-prefixed frames, each a
//! [`DataFrameHeader`] then its payload.
//!
//! A frame on the wire: a 4-byte big-endian header length (1 to
//! [`MAX_HEADER_BYTES`]), the header as RFC 8785 JSON (`invocation_id`,
//! `attempt_id`, `stream_id`, `sequence`, `length`, `final`, the
//! reference's `DataFrameHeader`), then `length` payload bytes. `length` is
//! at most [`DEFAULT_MAX_DATA_FRAME_BYTES`] (256 KiB, the reference's
//! `DefaultMaxDataFrameBytes`) or the lower bound negotiated for the plane,
//! checked when the header is read, before a payload byte is buffered.
//! Within a stream, sequences strictly increase and the `final` frame
//! closes it; a frame for a stream the control plane has not announced
//! (an observation's `data_stream`) is refused. Every fault has its own
//! [`DataFaultKind`]; after one the plane is lost (its frame boundaries are).
//!
//! [`DataDecoder`] is I/O-free: push bytes in any chunks, take whole frames
//! out; memory stays bounded by one frame. [`encode_frame`] writes one.
//!
//! How the plane is carried and negotiated (`wirekit::host`): the host
//! listens on a Unix socket and names it in the driver's environment
//! (`WIREKIT_DATA_SOCKET`, with the bound in `WIREKIT_DATA_MAX_FRAME_BYTES`);
//! the driver connects while it handles `driver.prepare`, so the plane is up
//! before the first invocation (the reference's prepare params and result
//! are closed objects: nothing is added to them). Where there is no Unix
//! socket, no plane is offered and drivers send payloads inline.

mod decoder;
mod fault;
mod header;

pub use decoder::{DataDecoder, DataFrame};
pub use fault::{DataFaultKind, DataPlaneError};
pub use header::{encode_frame, DataFrameHeader, DEFAULT_MAX_DATA_FRAME_BYTES, MAX_HEADER_BYTES};

/// The environment variable naming the host's data-plane socket.
pub const SOCKET_ENV: &str = "WIREKIT_DATA_SOCKET";
/// The environment variable carrying the negotiated frame bound.
pub const LIMIT_ENV: &str = "WIREKIT_DATA_MAX_FRAME_BYTES";
