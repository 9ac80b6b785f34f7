//! Request ids: a string or an integer; in lenient protocols also a
//! fractional number or `null`, which JSON-RPC 2.0 allows but discourages.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};
use serde_json::{Number, Value};

/// A request id: a string or an integer.
///
/// JSON-RPC 2.0 also allows `null` and fractional ids but discourages both
/// ("The use of Null as a value for the id member in a Request is
/// discouraged", "Numbers SHOULD NOT contain fractional parts"). Strict
/// protocols refuse them (`null` cannot be correlated, and a fractional id
/// does not survive every peer's number handling); lenient ones accept them
/// as [`Id::Null`] and a fractional [`Id::Number`], and
/// [`Id::discouraged`] says why they deserve a warning. An integer
/// id is one written in integer syntax that fits `i64` or `u64`, so `0`,
/// `-1` and `18446744073709551615` are ids, while `1.5`, `1.0`, `1e2`,
/// `-0` (negative zero, which parses as a float) and `18446744073709551616`
/// are not.
///
/// A response to a message whose id could not be read carries `null`; that is
/// [`Response::id`](super::Response::id) being `None`, not an `Id`.
///
/// `Id::Number` should only hold an integer; the constructors and the
/// decoder guarantee it, but the variant is public, so a hand-built
/// `Id::Number` holding a float is encoded as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Id {
    /// An integer id (fits `i64` or `u64`).
    Number(Number),
    /// A string id.
    String(String),
    /// A request's `null` id (lenient protocols only). A response whose id
    /// is `null` is [`Response::id`](super::Response::id) being `None`.
    Null,
}

impl Id {
    /// Reads an id from a JSON value: a string, or an integer that fits
    /// `i64` or `u64`. Anything else (including `null`) is `None`.
    #[must_use]
    pub fn from_value(value: &Value) -> Option<Id> {
        match value {
            Value::String(s) => Some(Id::String(s.clone())),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(Id::Number(n.clone())),
            _ => None,
        }
    }

    /// Like [`Id::from_value`], but takes the value by move (no copy of a
    /// string id). On failure the value is handed back.
    pub fn try_from_value(value: Value) -> Result<Id, Value> {
        match value {
            Value::String(s) => Ok(Id::String(s)),
            Value::Number(n) if n.is_i64() || n.is_u64() => Ok(Id::Number(n)),
            other => Err(other),
        }
    }

    /// Reads an id as a lenient protocol does: a string, an integer that
    /// fits `i64` or `u64`, a number written with a fraction or an exponent
    /// whose magnitude is below 2^53 (so a double keeps it exactly, and every
    /// peer reads back the same value), or `null`. Anything else (an
    /// integer beyond 64 bits among them) is handed back.
    pub fn try_from_value_lenient(value: Value) -> Result<Id, Value> {
        const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
        match value {
            Value::String(s) => Ok(Id::String(s)),
            Value::Number(n) if n.is_i64() || n.is_u64() => Ok(Id::Number(n)),
            Value::Number(n) if n.as_f64().is_some_and(|x| x.is_finite() && x.abs() < EXACT) => {
                Ok(Id::Number(n))
            }
            Value::Null => Ok(Id::Null),
            other => Err(other),
        }
    }

    /// Reads an id as the driver protocol's reference package does (the
    /// strict envelope): the frame is RFC 8785-canonicalized first, so a
    /// number is the ECMAScript form of its nearest double, and it is an id
    /// when that form is an integer (`1e3` is the id 1000, `30.0` is 30,
    /// `9007199254740993` is 9007199254740992); a string is an id too.
    /// A fraction or an exponent left after canonicalization (`1.5`,
    /// `1e21`), `null` and anything else are handed back.
    pub fn try_from_value_canonical(value: Value) -> Result<Id, Value> {
        match value {
            Value::String(s) => Ok(Id::String(s)),
            Value::Number(n) => match canonical_integer(&n) {
                Some(canonical) => Ok(Id::Number(canonical)),
                None => Err(Value::Number(n)),
            },
            other => Err(other),
        }
    }

    /// The id as a JSON value.
    #[must_use]
    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(n) => Value::Number(n.clone()),
            Id::String(s) => Value::String(s.clone()),
            Id::Null => Value::Null,
        }
    }

    /// The integer, when this is an integer id that fits `i64`.
    #[must_use]
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Id::Number(n) => n.as_i64(),
            Id::String(_) | Id::Null => None,
        }
    }

    /// The integer, when this is an integer id that fits `u64`.
    #[must_use]
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Id::Number(n) => n.as_u64(),
            Id::String(_) | Id::Null => None,
        }
    }

    /// Why JSON-RPC 2.0 discourages this id, when it does: a fractional
    /// number ("Numbers SHOULD NOT contain fractional parts") or `null`.
    /// Lenient protocols accept such ids and report this as a warning.
    #[must_use]
    pub fn discouraged(&self) -> Option<&'static str> {
        match self {
            Id::Number(n) if !(n.is_i64() || n.is_u64() || beyond_64_bits(n)) => Some(
                "a number id written with a fraction or an exponent, which JSON-RPC 2.0 discourages (numbers should not contain fractional parts)",
            ),
            Id::Null => Some(
                "a null id, which JSON-RPC 2.0 discourages (its answer cannot be told from the answer to a message whose id could not be read)",
            ),
            _ => None,
        }
    }

    /// The string, when this is a string id.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Id::Number(_) | Id::Null => None,
            Id::String(s) => Some(s),
        }
    }
}

/// The integer RFC 8785 writes for `n`, when it writes one: the
/// ECMAScript form of the nearest double, with no fraction and no exponent.
/// It is held as an integer when it fits `i64` or `u64`, else as that
/// whole double (which canonical encoding writes with the same digits).
fn canonical_integer(n: &Number) -> Option<Number> {
    let double = n.as_f64().filter(|x| x.is_finite())?;
    let text = serde_json_canonicalizer::to_vec(&double).ok()?;
    let text = std::str::from_utf8(&text).ok()?;
    if text.contains(['.', 'e', 'E']) {
        return None;
    }
    if let Ok(integer) = text.parse::<i64>() {
        return Some(Number::from(integer));
    }
    if let Ok(integer) = text.parse::<u64>() {
        return Some(Number::from(integer));
    }
    Number::from_f64(double)
}

/// Whether `n` is a whole double beyond the 64-bit integers (a strict id
/// whose RFC 8785 form has more digits than `i64`/`u64` hold).
fn beyond_64_bits(n: &Number) -> bool {
    !(n.is_i64() || n.is_u64())
        && n.as_f64()
            .is_some_and(|x| x.fract() == 0.0 && x.abs() >= 9.2e18)
}

/// What RFC 8785 writes for `n`.
fn canonical_text(n: &Number) -> String {
    serde_json_canonicalizer::to_vec(n)
        .ok()
        .and_then(|text| String::from_utf8(text).ok())
        .unwrap_or_else(|| n.to_string())
}

/// Formats the id as JSON: `7`, `"abc"` (quoted and escaped), so `1` and
/// `"1"` stay distinguishable in logs.
impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // A strict id beyond 64 bits, held as its whole double: the
            // digits RFC 8785 writes for it.
            Id::Number(n) if beyond_64_bits(n) => f.write_str(&canonical_text(n)),
            Id::Number(n) => fmt::Display::fmt(n, f),
            Id::String(s) => fmt::Display::fmt(&Value::String(s.clone()), f),
            Id::Null => f.write_str("null"),
        }
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Self {
        Id::Number(n.into())
    }
}

impl From<u64> for Id {
    fn from(n: u64) -> Self {
        Id::Number(n.into())
    }
}

impl From<i32> for Id {
    fn from(n: i32) -> Self {
        Id::Number(n.into())
    }
}

impl From<u32> for Id {
    fn from(n: u32) -> Self {
        Id::Number(n.into())
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id::String(s.to_owned())
    }
}

impl From<String> for Id {
    fn from(s: String) -> Self {
        Id::String(s)
    }
}

impl From<Id> for Value {
    fn from(id: Id) -> Self {
        match id {
            Id::Number(n) => Value::Number(n),
            Id::String(s) => Value::String(s),
            Id::Null => Value::Null,
        }
    }
}

impl From<&Id> for Value {
    fn from(id: &Id) -> Self {
        id.to_value()
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            // A strict id beyond 64 bits, held as its whole double, is
            // written with the digits RFC 8785 gives it, by any encoder.
            Id::Number(n) if beyond_64_bits(n) => match canonical_text(n).parse::<i128>() {
                Ok(integer) => serializer.serialize_i128(integer),
                Err(_) => n.serialize(serializer),
            },
            Id::Number(n) => n.serialize(serializer),
            Id::String(s) => serializer.serialize_str(s),
            Id::Null => serializer.serialize_unit(),
        }
    }
}

/// Accepts a string or an integer that fits `i64` or `u64`, as the decoder
/// does.
impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IdVisitor)
    }
}

struct IdVisitor;

impl Visitor<'_> for IdVisitor {
    type Value = Id;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or an integer id")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Id, E> {
        Ok(Id::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Id, E> {
        Ok(Id::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Id, E> {
        Ok(Id::from(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Id, E> {
        Ok(Id::String(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accepts_strings_and_integers_only() {
        assert_eq!(Id::from_value(&json!(0)), Some(Id::from(0)));
        assert_eq!(Id::from_value(&json!(-1)), Some(Id::from(-1)));
        assert_eq!(Id::from_value(&json!(u64::MAX)), Some(Id::from(u64::MAX)));
        assert_eq!(Id::from_value(&json!("abc")), Some(Id::from("abc")));
        for bad in [
            json!(null),
            json!(1.5),
            json!(1.0),
            json!(true),
            json!([]),
            json!({}),
        ] {
            assert_eq!(Id::from_value(&bad), None, "{bad}");
        }
    }

    #[test]
    fn canonical_ids_are_what_rfc_8785_writes_as_integers() {
        let read = |text: &str| {
            Id::try_from_value_canonical(serde_json::from_str(text).expect("JSON"))
                .ok()
                .map(|id| id.to_string())
        };
        assert_eq!(read("1e3").as_deref(), Some("1000"));
        assert_eq!(read("30.0").as_deref(), Some("30"));
        assert_eq!(read("-0.0").as_deref(), Some("0"));
        assert_eq!(
            read("9007199254740993").as_deref(),
            Some("9007199254740992")
        );
        assert_eq!(
            read("12345678901234567890").as_deref(),
            Some("12345678901234567000")
        );
        assert_eq!(read("\"a\"").as_deref(), Some("\"a\""));
        for refused in ["1.5", "1e21", "null", "true", "[]", "{}"] {
            assert_eq!(read(refused), None, "{refused}");
        }
        // Beyond 64 bits: the whole double, written canonically with its digits.
        let min = Id::try_from_value_canonical(json!(i64::MIN)).expect("an id");
        let message = crate::envelope::Message::Response(crate::envelope::Response {
            id: Some(min),
            outcome: Ok(json!({})),
        });
        let written = crate::envelope::encode_canonical(
            &message,
            &crate::envelope::EnvelopeOptions::JSONRPC_2_STRICT,
        )
        .expect("canonical");
        assert_eq!(
            String::from_utf8_lossy(&written),
            r#"{"id":-9223372036854776000,"jsonrpc":"2.0","result":{}}"#
        );
    }

    #[test]
    fn display_is_json() {
        assert_eq!(Id::from(7).to_string(), "7");
        assert_eq!(Id::from("a\"b").to_string(), r#""a\"b""#);
    }

    #[test]
    fn equal_integers_are_equal_ids() {
        assert_eq!(Id::from(5i64), Id::from(5u64));
    }

    #[test]
    fn deserialize_refuses_floats() {
        assert!(serde_json::from_str::<Id>("1.5").is_err());
        assert!(serde_json::from_str::<Id>("null").is_err());
        assert!(matches!(
            serde_json::from_str::<Id>("\"x\""),
            Ok(Id::String(_))
        ));
    }
}
