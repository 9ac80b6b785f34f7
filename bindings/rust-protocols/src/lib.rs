#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! One module a protocol version (re-exported from `generated`, written by
//! `wirekit generate`): the message `types` (typify), method-name constants
//! and enums, a `…Server` trait with its `…Handler` adapter for
//! [`wirekit::serve`], and a `…Client` of typed calls over any
//! [`wirekit::typed::Transport`] (the `wirekit::host::Host`, with the `host` feature, is one).

mod embedded;
mod generated;

pub use embedded::{manifest_schema, protocol, registry};
pub use generated::*;
