#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! * [`framing`]: I/O-free, bounded push decoders and encoders for NDJSON and
//!   `Content-Length` frames, with thin `std::io` adapters on top.
//! * [`envelope`]: the JSON-RPC envelope in two dialects (`jsonrpc-2.0` and
//!   `bare`), lenient or strict, with canonical (RFC 8785) output.
//! * [`protocol`]: protocols described as a manifest and JSON Schema files
//!   (`schemas/<protocol>/<version>/`), found in a folder or embedded.
//! * [`session`]: the lifecycle state machine; [`serve`]: the server loop;
//!   [`monitor`]: checking captured sessions; [`host`]: driving a server
//!   subprocess with timeouts; [`capture`]: the sides file, who sent
//!   which bytes of a capture.
//! * [`dataplane`]: the driver protocol's companion data plane (length-prefixed
//!   frames with a `DataFrameHeader`), an I/O-free bounded decoder.
//! * [`diff`]: two versions of a protocol compared, each change classified
//!   by whom it breaks (clients, servers, both, no one).
//! * [`validate`]: params, results and error data checked by method, with
//!   issues as data (kind, JSON pointer, schema path, message).
//! * [`conformance`]: a server put through a battery built from its
//!   protocol (`wirekit conformance`), every answer judged by the monitor.

mod bounded;
pub mod capture;
#[cfg(feature = "conformance")]
pub mod conformance;
pub mod dataplane;
#[cfg(feature = "diff")]
pub mod diff;
pub mod envelope;
pub mod framing;
#[cfg(feature = "host")]
pub mod host;
#[cfg(feature = "monitor")]
pub mod monitor;
pub mod protocol;
pub mod serve;
pub mod session;
pub mod typed;
pub mod validate;
