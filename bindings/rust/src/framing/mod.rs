//! Bounded, I/O-free framing for JSON-RPC over byte streams.
//!
//! Two framings ([`Framing`]), each with a push decoder ([`FrameDecoder`])
//! and an encoder ([`FrameEncoder`]); [`FrameReader`] and [`FrameWriter`]
//! put them on `std::io`. A decoder yields [`Frame`]s (UTF-8 bodies, not yet
//! parsed as JSON) and [`FramingError`]s, each at the byte offset in the
//! stream where its frame starts.
//!
//! # Bounds
//!
//! Every bound in [`FrameLimits`] is enforced before bytes are kept: a
//! declared `Content-Length` over the frame bound is refused on the header
//! alone, a header section is refused as soon as its first byte over the
//! header bound arrives, an NDJSON line as soon as it is known to be over
//! the bound. A decoder whose queue is drained after every push holds at
//! most the frame bound, plus the header bound, plus the chunk just pushed
//! ([`FrameDecoder::buffered_bytes`]). Results never depend on how the
//! input was split into chunks.
//!
//! # `Content-Length` (LSP base protocol)
//!
//! * A frame is a header section then a body. Header lines end with CRLF;
//!   the section ends with an empty line (so a frame starting with CRLF has
//!   an empty section). The section, final CRLF included, is at most
//!   `max_header_bytes` ([`HeaderTooLong`](FaultKind::HeaderTooLong)).
//! * A header line is `name ":" value`: UTF-8 text without control
//!   characters except tab, the name a non-empty HTTP token. Anything else,
//!   including a bare CR or LF, is [`MalformedHeader`](FaultKind::MalformedHeader),
//!   reported when that line ends.
//! * Names are case-insensitive; headers other than `Content-Length` are
//!   ignored. Exactly one `Content-Length` is required
//!   ([`MissingContentLength`](FaultKind::MissingContentLength),
//!   [`DuplicateContentLength`](FaultKind::DuplicateContentLength), even
//!   for an equal value). Its value, trimmed of spaces and tabs, is ASCII
//!   digits, not empty, within `u64` (leading zeros are allowed: `007` is 7)
//!   ([`BadContentLength`](FaultKind::BadContentLength)), and at most
//!   `max_frame_bytes` ([`FrameTooLong`](FaultKind::FrameTooLong)).
//! * The body is kept as bytes until whole, then must be UTF-8
//!   ([`BodyNotUtf8`](FaultKind::BodyNotUtf8)). `Content-Length: 0` is an
//!   empty body.
//! * End of input inside a header section (any byte of it) or a body is
//!   [`TruncatedFrame`](FaultKind::TruncatedFrame); at a frame boundary it
//!   is a clean end.
//! * Header faults are reported in line order, the first one wins. Every
//!   fault ends the stream: the decoder is [dead](FrameDecoder::is_dead),
//!   drops what it held and ignores further input.
//! * The encoder writes `Content-Length: N\r\n\r\n` and the body, N its
//!   length in bytes.
//!
//! # NDJSON (Gaze analyzer protocol, AgentAPI driver protocol)
//!
//! * A frame is one line. Lines end with LF; one CR right before the LF, or
//!   right before the end of input, is dropped. A final line without LF is
//!   a frame at [`finish`](FrameDecoder::finish).
//! * A line longer than `max_frame_bytes` (line ending excluded) is
//!   [`FrameTooLong`](FaultKind::FrameTooLong) at its start; the decoder
//!   skips through the next LF, holding nothing, and carries on.
//! * A line that is not UTF-8 is [`BodyNotUtf8`](FaultKind::BodyNotUtf8);
//!   an empty line (or a lone CR) is [`EmptyFrame`](FaultKind::EmptyFrame),
//!   which callers may skip. No fault ends the stream.
//! * With [`FrameLimits::strict_line_endings`] (a strict protocol, such as
//!   the driver's "one NDJSON line"), only LF or CRLF ends a line: any other
//!   CR in it (`\r\r\n` included, or a final CR without LF) is
//!   [`BareCarriageReturn`](FaultKind::BareCarriageReturn).
//! * The encoder writes the body and one LF. It refuses a body with a raw
//!   LF or CR ([`EmbeddedNewline`](FaultKind::EmbeddedNewline)) or an
//!   empty one ([`EmptyFrame`](FaultKind::EmptyFrame)).
//!
//! Both encoders refuse a body over the frame bound or not UTF-8 (and the
//! `Content-Length` encoder a header over the header bound), so what they
//! write always decodes to the same body.
//!
//! # Example
//!
//! ```
//! use wirekit::framing::{decoder_for, encoder_for, Framing};
//!
//! let framing: Framing = "content-length".parse()?;
//! let encoder = encoder_for(framing, framing.default_limits());
//! let mut wire = encoder.encode(br#"{"jsonrpc":"2.0","method":"exit"}"#)?;
//! encoder.encode_into(b"{}", &mut wire)?;
//!
//! let mut decoder = decoder_for(framing, framing.default_limits());
//! for byte in &wire {
//!     decoder.push(std::slice::from_ref(byte)); // any chunking gives the same frames
//! }
//! decoder.finish();
//! let first = decoder.next_frame().transpose()?;
//! assert_eq!(first.map(|f| f.offset()), Some(0));
//! let second = decoder.next_frame().transpose()?;
//! assert_eq!(second.map(|f| (f.offset(), f.into_body())), Some((55, "{}".to_string())));
//! assert!(decoder.next_frame().is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod codec;
mod content_length;
mod fault;
mod frame;
mod header;
pub mod io;
mod limits;
mod ndjson;
mod tee;

pub use codec::{decoder_for, encoder_for, Decoded, FrameDecoder, FrameEncoder};
pub use content_length::{ContentLengthDecoder, ContentLengthEncoder};
pub use fault::{FaultKind, FramingError};
pub use frame::{Frame, FrameRef, Framing, UnknownFramingError};
pub use io::{FrameReader, FrameWriter, ReadError, WriteError};
pub use limits::FrameLimits;
pub use ndjson::{NdjsonDecoder, NdjsonEncoder};
pub use tee::TeeReader;
