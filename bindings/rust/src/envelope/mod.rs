//! The JSON-RPC envelope: decoding message bodies into typed [`Message`]s
//! and encoding them back, in two dialects and two strictness levels.
//!
//! This layer sits between [framing](crate::framing) (which cuts a byte
//! stream into bodies) and schema validation (which checks `params` and
//! `result` against a protocol's schemas). It knows the shape of a
//! JSON-RPC message and nothing about any method.
//!
//! # Dialects
//!
//! * [`Dialect::JsonRpc2`] (`"jsonrpc-2.0"`): every message carries
//!   `"jsonrpc": "2.0"` (the Gaze analyzer protocol, the agentapi-doctor
//!   driver protocol).
//! * [`Dialect::Bare`] (`"bare"`): the same shapes without the `jsonrpc`
//!   member (the gzkit authoring guide protocol). A peer that sends
//!   `"jsonrpc": "2.0"` anyway is accepted; any other value is refused.
//!
//! # Lenient and strict
//!
//! Lenient decoding (the default) is JSON-RPC 2.0's: unknown members are
//! ignored, a duplicated member name keeps its last value, and
//! `"params": null` (which the Gaze spec allows for `shutdown`) is kept as
//! `Some(Value::Null)`. Strict decoding (the driver protocol's
//! `DecodeControlFrame`) refuses all three, the duplicate check reaching
//! into `params` and `result` at any depth. Both modes refuse invalid UTF-8
//! and non-whitespace after the value; whitespace around it is fine (line
//! endings are the framer's business). Nesting deeper than 128 arrays and
//! objects is a parse error in both modes (`serde_json`'s recursion limit),
//! which keeps a hostile body from exhausting the stack.
//!
//! # Rules
//!
//! A message is an object. With a `method` member it is a call: a
//! [`Request`] when it also has an `id`, a [`Notification`] when not.
//! Without `method` it is a [`Response`] and must have an `id` and exactly
//! one of `result` and `error`.
//!
//! * `method` is any string, the empty one included (gzkit answers an
//!   empty method with `-32601` at the dispatch level, not here).
//! * A request id is a string or an integer that fits `i64` or `u64`;
//!   `null`, booleans, arrays, objects and numbers written with a fraction
//!   or exponent (`1.5`, `1.0`, `1e2`) are refused ([`Id`] explains why).
//!   A response's id may also be `null`.
//! * `params`, when present, is an object or an array.
//! * `error` is an object with an integer `code` (fitting `i64`), a string
//!   `message` and optionally `data` of any type.
//!
//! [`decode_value`] lists the order in which the rules are checked.
//!
//! # Errors
//!
//! An [`EnvelopeError`] has a stable [`kind`](EnvelopeError::kind), the
//! JSON-RPC [`code`](EnvelopeError::code) to answer with (`-32700` when the
//! body is not one JSON value, `-32600` when its shape is wrong, duplicate
//! names included), the JSON [`pointer`](EnvelopeError::pointer) of the
//! offending member, and the request [`id`](EnvelopeError::id) when it
//! could be read, so that [`EnvelopeError::to_response`] can be sent back
//! as is.
//!
//! # Encoding
//!
//! [`encode`] writes members in declared order and keeps the order of
//! members inside `params`/`result`, so compact messages re-encode byte for
//! byte (all of the gzkit authoring guide's worked examples do).
//! [`encode_canonical`] writes RFC 8785 (JCS) canonical JSON instead.
//!
//! ```
//! use wirekit::envelope::{decode, encode, EnvelopeOptions, MessageKind};
//!
//! let body = br#"{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}"#;
//! let message = decode(body, &EnvelopeOptions::BARE)?;
//! assert_eq!(message.kind(), MessageKind::Request);
//! assert_eq!(message.method(), Some("initialize"));
//! assert_eq!(encode(&message, &EnvelopeOptions::BARE), body);
//! # Ok::<(), wirekit::envelope::EnvelopeError>(())
//! ```
//!
//! Answering a bad message:
//!
//! ```
//! use wirekit::envelope::{decode, encode, EnvelopeErrorKind, EnvelopeOptions, Message};
//!
//! let body = br#"{"jsonrpc":"2.0","id":7,"method":"analyze","params":"x"}"#;
//! let error = decode(body, &EnvelopeOptions::JSONRPC_2).unwrap_err();
//! assert_eq!(error.kind(), EnvelopeErrorKind::ParamsNotStructured);
//! assert_eq!(error.pointer(), "/params");
//! let answer = Message::Response(error.to_response());
//! assert!(encode(&answer, &EnvelopeOptions::JSONRPC_2)
//!     .starts_with(br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"#));
//! ```

mod code;
mod decode;
mod encode;
mod error;
mod id;
mod kept;
mod message;
mod numbers;
mod options;
mod recover;
mod shape;
pub(crate) mod strict;

pub use code::ErrorCode;
pub use decode::{decode, decode_str, decode_value};
pub use encode::{
    encode, encode_canonical, encode_into, encode_success_head, encode_success_raw,
    encoded_success_raw_len, SUCCESS_TAIL,
};
pub use error::{EnvelopeError, EnvelopeErrorKind};
pub use id::Id;
pub use kept::{decode_keeping_params, Decoded, RequestText};
pub use message::{ErrorObject, Message, MessageKind, Notification, Request, Response};
pub use options::{Dialect, EnvelopeOptions, ParseDialectError};
pub use recover::recover_id;
