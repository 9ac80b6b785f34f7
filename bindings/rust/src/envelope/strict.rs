//! A single-pass JSON parse into [`Value`] that notices duplicate member
//! names.
//!
//! `serde_json::Value`'s own deserializer silently keeps the last of two
//! equal member names. The strict dialect has to refuse them, at any depth,
//! and say where. This module builds the same `Value` in the same single
//! pass, and records the JSON pointer of the first duplicate in document
//! order (the member whose *repeated* name appears earliest in the text).
//! Parsing carries on after a duplicate, so the caller still gets the
//! message (with the last value of each duplicated member, as lenient
//! parsing would) and can recover the request id for its answer.
//!
//! The current path is kept on a stack whose keys are moved in and out
//! rather than cloned, so the happy path costs one extra hash lookup per
//! member and no allocation beyond what `Value` itself needs. Nesting depth
//! is bounded by `serde_json`'s recursion limit (128).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Number, Value};

use super::error::push_token;
use super::shape::Members;

/// One step of the path from the root to the value being parsed.
enum Segment {
    Key(String),
    Index(usize),
}

/// Parse state shared by all nesting levels.
#[derive(Default)]
struct State {
    path: Vec<Segment>,
    duplicate: Option<String>,
    detect_duplicates: bool,
    needs_scan: bool,
}

impl State {
    fn pointer_to(&self, key: &str) -> String {
        let mut pointer = String::new();
        for segment in &self.path {
            match segment {
                Segment::Key(k) => push_token(&mut pointer, k),
                Segment::Index(i) => push_token(&mut pointer, &i.to_string()),
            }
        }
        push_token(&mut pointer, key);
        pointer
    }
}

/// Parses one JSON value from `deserializer`, noting the pointer of the
/// first duplicated member name (if any). Trailing input is the caller's
/// business (`Deserializer::end`).
pub(crate) fn parse_detecting_duplicates<'de, D>(
    deserializer: D,
) -> Result<(Value, Option<String>), D::Error>
where
    D: de::Deserializer<'de>,
{
    let parsed = parse_value(deserializer, true)?;
    Ok((parsed.value, parsed.duplicate))
}

/// One parsed value and what the text may hold beyond it.
pub(crate) struct Parsed {
    pub value: Value,
    /// The first duplicated member's pointer (when looked for).
    pub duplicate: Option<String>,
}

/// Parses one JSON value, looking for duplicate member names when asked,
/// and noting floats that may hide a literal `serde_json` cannot tell apart
/// (`numbers`).
pub(crate) fn parse_value<'de, D>(
    deserializer: D,
    detect_duplicates: bool,
) -> Result<Parsed, D::Error>
where
    D: de::Deserializer<'de>,
{
    let mut state = State {
        detect_duplicates,
        ..State::default()
    };
    let value = ValueSeed { state: &mut state }.deserialize(deserializer)?;
    Ok(Parsed {
        value,
        duplicate: state.duplicate,
    })
}

/// A parsed message's top level: split into the envelope's members as it
/// is read (no map is built for it), or the value when it is no object.
// Made once a message and taken apart at once: a box would cost an
// allocation a message for nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum TopLevel {
    Members(Members),
    Other(Value),
}

/// One parsed message and what the text may hold beyond it.
pub(crate) struct ParsedMessage {
    pub top: TopLevel,
    /// The first duplicated member's pointer (when looked for).
    pub duplicate: Option<String>,
    /// A float that may stand for `-0` or an integer beyond 64 bits was
    /// read: the text must be scanned (`numbers::scan`).
    pub needs_scan: bool,
}

/// Parses one message as [`parse_value`] parses a value, except that a
/// top-level object goes straight into [`Members`]: the same members,
/// positions, duplicates and errors, without the map.
pub(crate) fn parse_message<'de, D>(
    deserializer: D,
    detect_duplicates: bool,
) -> Result<ParsedMessage, D::Error>
where
    D: de::Deserializer<'de>,
{
    parse_top(deserializer, detect_duplicates, None)
}

/// The text of a top-level `params` member, for [`parse_message_keeping_params`].
#[derive(Clone, Copy)]
pub(crate) enum KeptParams<'de> {
    /// No `params` member.
    Absent,
    /// One `params` member, its text.
    Once(&'de RawValue),
    /// More than one: the text of all but the last would go unread (their
    /// numbers, their depth), so only the whole decode can answer.
    Repeated,
}

/// [`parse_message`] keeping the text of a top-level `params` member
/// instead of parsing it (lenient decoding only: the text is not looked
/// at, so neither its duplicates nor its numbers are). The members get
/// `null` in its place.
pub(crate) fn parse_message_keeping_params<'de, D>(
    deserializer: D,
) -> Result<(ParsedMessage, KeptParams<'de>), D::Error>
where
    D: de::Deserializer<'de>,
{
    let mut kept = KeptParams::Absent;
    let parsed = parse_top(deserializer, false, Some(&mut kept))?;
    Ok((parsed, kept))
}

fn parse_top<'de, D>(
    deserializer: D,
    detect_duplicates: bool,
    kept: Option<&mut KeptParams<'de>>,
) -> Result<ParsedMessage, D::Error>
where
    D: de::Deserializer<'de>,
{
    let mut state = State {
        detect_duplicates,
        ..State::default()
    };
    let top = deserializer.deserialize_any(TopVisitor {
        state: &mut state,
        kept,
    })?;
    Ok(ParsedMessage {
        top,
        duplicate: state.duplicate,
        needs_scan: state.needs_scan,
    })
}

/// The top level of a message (see [`parse_message`]); with `kept`, the
/// text of `params` goes there.
struct TopVisitor<'s, 'k, 'de> {
    state: &'s mut State,
    kept: Option<&'k mut KeptParams<'de>>,
}

macro_rules! forward_to_value {
    ($($name:ident($type:ty)),*) => {
        $(fn $name<E: de::Error>(self, v: $type) -> Result<TopLevel, E> {
            ValueVisitor { state: self.state }.$name(v).map(TopLevel::Other)
        })*
    };
}

impl<'de> Visitor<'de> for TopVisitor<'_, '_, 'de> {
    type Value = TopLevel;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    forward_to_value!(
        visit_bool(bool),
        visit_i64(i64),
        visit_u64(u64),
        visit_f64(f64),
        visit_str(&str),
        visit_string(String)
    );

    fn visit_unit<E: de::Error>(self) -> Result<TopLevel, E> {
        Ok(TopLevel::Other(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<TopLevel, E> {
        Ok(TopLevel::Other(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<TopLevel, A::Error> {
        ValueVisitor { state: self.state }
            .visit_seq(seq)
            .map(TopLevel::Other)
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut access: A) -> Result<TopLevel, A::Error> {
        let mut members = Members::default();
        while let Some(key) = access.next_key_seed(NameSeed)? {
            if self.state.detect_duplicates
                && self.state.duplicate.is_none()
                && members.contains(&key)
            {
                self.state.duplicate = Some(self.state.pointer_to(&key));
            }
            if let (Some(kept), "params") = (self.kept.as_deref_mut(), key.as_ref()) {
                let text = access.next_value::<&'de RawValue>()?;
                *kept = match kept {
                    KeptParams::Absent => KeptParams::Once(text),
                    KeptParams::Once(_) | KeptParams::Repeated => KeptParams::Repeated,
                };
                members.insert(&key, Value::Null);
                continue;
            }
            // The path is read for a duplicate's pointer only.
            if self.state.detect_duplicates {
                self.state.path.push(Segment::Key(key.clone().into_owned()));
            }
            let value = access.next_value_seed(ValueSeed {
                state: &mut *self.state,
            });
            if self.state.detect_duplicates {
                self.state.path.pop();
            }
            members.insert(&key, value?);
        }
        Ok(TopLevel::Members(members))
    }
}

/// A member name, borrowed from the text when it has no escapes.
struct NameSeed;

impl<'de> DeserializeSeed<'de> for NameSeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for NameSeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

struct ValueSeed<'s> {
    state: &'s mut State,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor { state: self.state })
    }
}

struct ValueVisitor<'s> {
    state: &'s mut State,
}

impl<'de> Visitor<'de> for ValueVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.state.needs_scan |= super::numbers::needs_scan(v);
        // serde_json never hands over a non-finite float; mirror its own
        // `Value` visitor all the same.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        loop {
            self.state.path.push(Segment::Index(items.len()));
            let next = seq.next_element_seed(ValueSeed {
                state: &mut *self.state,
            });
            self.state.path.pop();
            match next? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            if self.state.detect_duplicates
                && self.state.duplicate.is_none()
                && map.contains_key(&key)
            {
                self.state.duplicate = Some(self.state.pointer_to(&key));
            }
            // Move the key onto the path while its value is parsed, then
            // take it back for the insert.
            self.state.path.push(Segment::Key(key));
            let value = access.next_value_seed(ValueSeed {
                state: &mut *self.state,
            });
            let Some(Segment::Key(key)) = self.state.path.pop() else {
                return Err(de::Error::custom("internal error: parse path out of step"));
            };
            map.insert(key, value?);
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Value, Option<String>) {
        let mut de = serde_json::Deserializer::from_str(text);
        match parse_detecting_duplicates(&mut de) {
            Ok(parsed) => parsed,
            Err(e) => (Value::String(format!("error: {e}")), None),
        }
    }

    #[test]
    fn builds_the_same_value_as_serde_json() {
        for text in [
            r#"{"b":1,"a":[true,null,-1,1.5,18446744073709551615,"x\u00e9"],"c":{}}"#,
            "[]",
            "9.0",
            r#""\ud83d\ude00""#,
        ] {
            let expected: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            assert_eq!(parse(text), (expected, None), "{text}");
        }
    }

    #[test]
    fn finds_nested_duplicates() {
        let (_, duplicate) = parse(r#"{"params":{"a":[{"x":1},{"y":1,"y":2}]}}"#);
        assert_eq!(duplicate.as_deref(), Some("/params/a/1/y"));
    }

    #[test]
    fn reports_the_first_duplicate_in_document_order() {
        let (value, duplicate) = parse(r#"{"a":1,"a":{"b":1,"b":2},"c":3,"c":4}"#);
        assert_eq!(duplicate.as_deref(), Some("/a"));
        assert_eq!(value, serde_json::json!({"a": {"b": 2}, "c": 4}));
    }

    #[test]
    fn escapes_pointer_tokens() {
        let (_, duplicate) = parse(r#"{"a/b":{"~":0,"~":1}}"#);
        assert_eq!(duplicate.as_deref(), Some("/a~1b/~0"));
    }

    #[test]
    fn keys_equal_after_unescaping_are_duplicates() {
        let (_, duplicate) = parse(r#"{"a":1,"\u0061":2}"#);
        assert_eq!(duplicate.as_deref(), Some("/a"));
    }

    #[test]
    fn recursion_is_bounded() {
        let deep = "[".repeat(10_000);
        let mut de = serde_json::Deserializer::from_str(&deep);
        assert!(parse_detecting_duplicates(&mut de).is_err());
    }
}
