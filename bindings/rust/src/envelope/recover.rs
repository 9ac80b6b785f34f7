//! Recovering the request id of a frame that was refused, as the AgentAPI
//! driver protocol's reference recovers it: a driver built on its package
//! (`pkg/driverprotocol` of whyiug/agentapi-doctor) answers a frame its
//! `DecodeControlFrame` refuses with the id it can still read from the
//! line, and sends nothing when it can read none.
//!
//! The id is read from the line's first JSON value as Go's `encoding/json`
//! reads it: bytes that are not UTF-8 become U+FFFD, a CR is whitespace,
//! anything after the first value is ignored, a repeated member keeps its
//! last value. The value must be an object whose `id` member is an id the
//! strict envelope takes ([`Id::try_from_value_canonical`]: a string, or a
//! number whose RFC 8785 form is an integer). Malformed JSON, a batch array,
//! a scalar, an empty line, a request without an id, and an id that is
//! `null`, a boolean, an object, an array, a fraction or `1e21` give none.
//!
//! A line over the frame bound is known only by its first bytes
//! ([`FramingError::head`](crate::framing::FramingError::head)); its id is
//! read from the members complete within them.

use serde::de::IgnoredAny;
use serde_json::Value;

use super::id::Id;

/// The id of the refused frame `line` (all of it when `complete`, else its
/// first bytes), as the driver protocol's reference recovers it.
#[must_use]
pub fn recover_id(line: &[u8], complete: bool) -> Option<Id> {
    let text = String::from_utf8_lossy(line);
    if complete {
        let mut values = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
        let Some(Ok(Value::Object(mut members))) = values.next() else {
            return None;
        };
        return members
            .remove("id")
            .and_then(|id| Id::try_from_value_canonical(id).ok());
    }
    id_in_prefix(&text)
}

/// The id among the members complete within `text`, the first part of an
/// object cut anywhere.
fn id_in_prefix(text: &str) -> Option<Id> {
    let bytes = text.as_bytes();
    let mut at = skip_whitespace(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    let mut found = None;
    loop {
        at = skip_whitespace(bytes, at);
        let rest = text.get(at..)?;
        let mut keys = serde_json::Deserializer::from_str(rest).into_iter::<String>();
        let Some(Ok(key)) = keys.next() else {
            return found;
        };
        at = skip_whitespace(bytes, at + keys.byte_offset());
        if bytes.get(at) != Some(&b':') {
            return found;
        }
        at = skip_whitespace(bytes, at + 1);
        let rest = text.get(at..)?;
        if key == "id" {
            let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
            let Some(Ok(value)) = values.next() else {
                return found;
            };
            at += values.byte_offset();
            if at >= bytes.len() {
                // A number cut at the end of the text may be longer.
                return found;
            }
            found = Id::try_from_value_canonical(value).ok();
        } else {
            let mut values = serde_json::Deserializer::from_str(rest).into_iter::<IgnoredAny>();
            let Some(Ok(_)) = values.next() else {
                return found;
            };
            at += values.byte_offset();
        }
        at = skip_whitespace(bytes, at);
        if bytes.get(at) != Some(&b',') {
            return found;
        }
        at += 1;
    }
}

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(line: &[u8]) -> Option<String> {
        recover_id(line, true).map(|id| id.to_string())
    }

    #[test]
    fn reads_the_id_where_the_reference_reads_it() {
        assert_eq!(
            id(br#"{"jsonrpc":"2.0","id":11,"method":"m"} {}"#).as_deref(),
            Some("11")
        );
        assert_eq!(
            id(b"{\"jsonrpc\":\"2.0\",\r\"id\":12}").as_deref(),
            Some("12")
        );
        assert_eq!(id(b"{\"id\":14,\"x\":\"\xff\xfe\"}").as_deref(), Some("14"));
        assert_eq!(id(br#"{"id":1,"id":2}"#).as_deref(), Some("2"));
        assert_eq!(id(br#"{"id":1e3}"#).as_deref(), Some("1000"));
        assert_eq!(id(br#"{"id":"seven"}"#).as_deref(), Some("\"seven\""));
    }

    #[test]
    fn reads_none_where_the_reference_stays_silent() {
        for line in [
            &br#"{"jsonrpc":"2.0","id":1,"method""#[..],
            br#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
            b"7",
            b"",
            br#"{"jsonrpc":"2.0","method":"m"}"#,
            br#"{"id":null}"#,
            br#"{"id":true}"#,
            br#"{"id":{}}"#,
            br#"{"id":[1]}"#,
            br#"{"id":10.5}"#,
            br#"{"id":1e21}"#,
        ] {
            assert_eq!(id(line), None, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn reads_the_id_of_a_line_known_by_its_first_bytes() {
        let head = br#"{"jsonrpc":"2.0", "id" : 13,"method":"driver.hello","params":{"pad":"xxxx"#;
        assert_eq!(
            recover_id(head, false).map(|id| id.to_string()).as_deref(),
            Some("13")
        );
        // An id cut at the end may be longer: not read.
        assert_eq!(recover_id(br#"{"jsonrpc":"2.0","id":13"#, false), None);
        assert_eq!(recover_id(br#"{"params":{"pad":"xx"#, false), None);
        assert_eq!(recover_id(br#"["#, false), None);
    }
}
