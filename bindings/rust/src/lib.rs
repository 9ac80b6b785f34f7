//! # wirekit
//!
//! JSON-RPC over stdio, driven by JSON Schemas.
//!
//! * [`framing`]: I/O-free, bounded push decoders and encoders for NDJSON and
//!   `Content-Length` frames, with thin `std::io` adapters on top.
//! * [`envelope`]: the JSON-RPC envelope in two dialects (`jsonrpc-2.0` and
//!   `bare`), lenient or strict, with canonical (RFC 8785) output.

pub mod envelope;
pub mod framing;
