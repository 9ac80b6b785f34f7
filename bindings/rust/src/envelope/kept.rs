//! Decoding a request with its params kept as text: for a binding that
//! builds its own objects from that text (the Python binding's params
//! straight into Python objects), so no `Value` of them is ever built.
//!
//! [`decode_keeping_params`] gives exactly what [`decode_str`] gives, except
//! that a request with object or array params comes back as a
//! [`RequestText`]: the same id and method, and the params' text as sent.
//! Only lenient decoding keeps params: strict decoding must look inside
//! them for duplicate names. Params whose text may hold a number the whole
//! decode settles or refuses (`-0`, an integer beyond 64 bits: the numbers
//! rules) are not kept, so a reader of the text meets no such number. A
//! reader that cannot use the text decodes the body again with
//! [`decode_str`], or parses the kept text alone
//! ([`RequestText::to_request`]).

use serde_json::value::RawValue;

use super::decode::{check_members, decode_str};
use super::id::Id;
use super::message::{Message, Request};
use super::numbers::may_need_settling;
use super::options::EnvelopeOptions;
use super::strict::{parse_message_keeping_params, parse_value, KeptParams, TopLevel};
use super::EnvelopeError;

/// A request whose params were kept as their text.
#[derive(Debug, Clone)]
pub struct RequestText<'a> {
    /// The id the response will echo.
    pub id: Id,
    /// The method name.
    pub method: String,
    /// The params as sent: an object or an array, not yet parsed.
    pub params: &'a RawValue,
}

impl RequestText<'_> {
    /// The request as [`decode_str`] gives it, for a reader that cannot use
    /// the text after all: the params parsed alone, which reads them as the
    /// whole body's decode does (a kept text holds nothing that decode would
    /// settle or refuse, and lenient decoding looks for no duplicates).
    /// `None` only if the text does not parse, which a kept text always does.
    pub fn to_request(&self) -> Option<Request> {
        let mut de = serde_json::Deserializer::from_str(self.params.get());
        let parsed = parse_value(&mut de, false).ok()?;
        de.end().ok()?;
        Some(Request {
            id: self.id.clone(),
            method: self.method.clone(),
            params: Some(parsed.value),
        })
    }
}

/// A decoded body: a request with its params kept, or any message.
#[derive(Debug, Clone)]
pub enum Decoded<'a> {
    /// A request with object or array params, kept as text.
    Kept(RequestText<'a>),
    /// Everything else, as [`decode_str`] decodes it.
    Message(Message),
}

/// Decodes `text` as [`decode_str`] does, keeping a request's object or
/// array params as text (see the module).
pub fn decode_keeping_params<'a>(
    text: &'a str,
    opts: &EnvelopeOptions,
) -> Result<Decoded<'a>, EnvelopeError> {
    let reference = || decode_str(text, opts).map(Decoded::Message);
    if opts.strict {
        return reference();
    }
    let mut de = serde_json::Deserializer::from_str(text);
    // Any fault, and any text whose numbers need settling, is reported (or
    // decoded) by the reference path, which reads the text whole.
    let Ok((parsed, kept)) = parse_message_keeping_params(&mut de) else {
        return reference();
    };
    if de.end().is_err() || parsed.needs_scan {
        return reference();
    }
    let TopLevel::Members(members) = parsed.top else {
        return reference();
    };
    let params = match kept {
        // No params member: the members are all the reference would read.
        KeptParams::Absent => return check_members(members, opts, None).map(Decoded::Message),
        KeptParams::Once(params) => params,
        KeptParams::Repeated => return reference(),
    };
    if !matches!(params.get().as_bytes().first(), Some(b'{' | b'['))
        || may_need_settling(params.get())
    {
        return reference();
    }
    match check_members(members, opts, None) {
        Ok(Message::Request(Request { id, method, .. })) => {
            Ok(Decoded::Kept(RequestText { id, method, params }))
        }
        _ => reference(),
    }
}
