//! The number literals `serde_json` cannot tell apart, read from the text.
//!
//! Without `arbitrary_precision`, `serde_json` reads `-0` as the float
//! `-0.0` (as it reads `-0.0`), and an integer beyond `u64`/`i64` as the
//! nearest double (as it reads `1e20`). wirekit's rules (tests/vectors
//! README, "Numbers"), set by what the reference peers do:
//!
//! * `-0` is the integer 0 (Go's `encoding/json` into Gaze's `int64` id,
//!   the driver's RFC 8785 canonicalization, Python's `json` and
//!   `JSON.parse` all read it as zero), as an id and as a value; `-0.0`
//!   stays a float.
//! * An integer literal outside `i64` and `u64` is refused rather than
//!   rounded: Gaze's Go client refuses it wherever its type is an integer,
//!   and a rounded copy could pass a bound the exact value breaks. A
//!   literal that is exactly its double's RFC 8785 form (what a canonical
//!   encoder writes, `18446744073709552000`) is that double.
//!
//! Parsing flags a float that may have come from such a literal
//! ([`needs_scan`]); only then is the text scanned here, so the usual
//! message pays nothing.

use super::error::push_token;

/// Whether a parsed float may stand for `-0` or an integer beyond 64 bits
/// (so the text must be read to know).
pub(crate) fn needs_scan(value: f64) -> bool {
    (value == 0.0 && value.is_sign_negative()) || (value.fract() == 0.0 && value.abs() >= 9.2e18)
}

/// Nesting of a kept value from which [`may_need_settling`] says yes: well
/// under `serde_json`'s recursion limit (128 for the whole message).
const KEPT_DEPTH: usize = 100;

/// Whether `text` (well-formed JSON, a value inside a message) may hold a
/// literal [`scan`] would find, a `-0` (as `-0` or `-0.0`, `-0e1`...) or an
/// integer of 19 digits or more outside strings, or nests deeper than
/// `KEPT_DEPTH` (the whole message's parse may refuse it). Errs on the side
/// of yes; one pass over the bytes, no allocation.
pub(crate) fn may_need_settling(text: &str) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut digits = 0usize;
    let mut previous = 0u8;
    for &byte in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        match byte {
            b'"' => {
                in_string = true;
                digits = 0;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > KEPT_DEPTH {
                    return true;
                }
                digits = 0;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                digits = 0;
            }
            b'0'..=b'9' => {
                if byte == b'0' && previous == b'-' {
                    return true;
                }
                digits += 1;
                if digits >= 19 {
                    return true;
                }
            }
            _ => digits = 0,
        }
        previous = byte;
    }
    false
}

/// What the scan found.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Literals {
    /// Every negative zero in document order: its pointer, and whether it
    /// was written as an integer (`-0`) rather than a float (`-0.0`).
    pub negative_zeros: Vec<(String, bool)>,
    /// The first integer literal outside `i64` and `u64` (other than the
    /// envelope's `/id`, which the id check refuses): pointer, text.
    pub out_of_range: Option<(String, String)>,
}

enum Container {
    Object { key: String, expect_key: bool },
    Array { index: usize },
}

fn pointer(stack: &[Container]) -> String {
    let mut pointer = String::new();
    for container in stack {
        match container {
            Container::Object { key, .. } => push_token(&mut pointer, key),
            Container::Array { index } => push_token(&mut pointer, &index.to_string()),
        }
    }
    pointer
}

/// Scans `text`, which `serde_json` has already parsed as one JSON value
/// (so it is well-formed; anything unexpected ends the scan).
pub(crate) fn scan(text: &str) -> Literals {
    let bytes = text.as_bytes();
    let mut found = Literals::default();
    let mut stack: Vec<Container> = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        match bytes[pos] {
            b'{' => {
                stack.push(Container::Object {
                    key: String::new(),
                    expect_key: true,
                });
                pos += 1;
            }
            b'[' => {
                stack.push(Container::Array { index: 0 });
                pos += 1;
            }
            b'}' | b']' => {
                stack.pop();
                pos += 1;
            }
            b',' => {
                match stack.last_mut() {
                    Some(Container::Object { expect_key, .. }) => *expect_key = true,
                    Some(Container::Array { index }) => *index += 1,
                    None => {}
                }
                pos += 1;
            }
            b'"' => {
                let end = string_end(bytes, pos + 1);
                if let Some(Container::Object { key, expect_key }) = stack.last_mut() {
                    if *expect_key {
                        *key = serde_json::from_str(&text[pos..end]).unwrap_or_default();
                        *expect_key = false;
                    }
                }
                pos = end;
            }
            b'-' | b'0'..=b'9' => {
                let start = pos;
                while pos < bytes.len()
                    && matches!(bytes[pos], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    pos += 1;
                }
                let literal = &text[start..pos];
                let integer = !literal.contains(['.', 'e', 'E']);
                if literal.starts_with('-') && literal.parse::<f64>().is_ok_and(|v| v == 0.0) {
                    found.negative_zeros.push((pointer(&stack), integer));
                } else if integer
                    && found.out_of_range.is_none()
                    && literal.parse::<i64>().is_err()
                    && literal.parse::<u64>().is_err()
                    && !is_canonical_double(literal)
                {
                    // The envelope's own id check reports a top-level `id`
                    // out of range more precisely (`InvalidId`).
                    let at = pointer(&stack);
                    if at != "/id" {
                        found.out_of_range = Some((at, literal.to_owned()));
                    }
                }
            }
            _ => pos += 1,
        }
    }
    found
}

/// Whether an integer literal is exactly the RFC 8785 (ECMAScript) form of
/// its nearest double, as a canonical encoder writes a double of 2^64 or
/// more below 1e21 (`18446744073709552000`): reading it as that double
/// rounds nothing the writer expressed, so it is no out-of-range integer.
fn is_canonical_double(literal: &str) -> bool {
    literal
        .parse::<f64>()
        .is_ok_and(|v| v.is_finite() && v.abs() < 1e21 && format!("{v}") == literal)
}

/// The index just past the string whose content starts at `pos`.
fn string_end(bytes: &[u8], mut pos: usize) -> usize {
    while pos < bytes.len() {
        match bytes[pos] {
            b'\\' => pos += 2,
            b'"' => return pos + 1,
            _ => pos += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_only_the_floats_that_may_hide_a_literal() {
        assert!(may_need_settling("[-0]") && may_need_settling("{\"a\":-0.0}"));
        assert!(may_need_settling("[1234567890123456789]"));
        assert!(!may_need_settling("[123456789012345678, -1, 0, 10.5]"));
        assert!(!may_need_settling(
            r#"{"-0":"-0 1234567890123456789","b\\":"\\"}"#
        ));
        assert!(may_need_settling(r#"{"a\"":-0}"#));
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(!may_need_settling(&nested(KEPT_DEPTH)));
        assert!(may_need_settling(&nested(KEPT_DEPTH + 1)));
        assert!(needs_scan(-0.0));
        assert!(needs_scan(1e20));
        assert!(needs_scan(-1e19));
        assert!(!needs_scan(0.0));
        assert!(!needs_scan(1.5));
        assert!(!needs_scan(9.0e18));
    }

    #[test]
    fn finds_negative_zeros_with_their_pointers() {
        let found = scan(r#"{"id":-0,"params":{"a/b":[1,-0.0,"-0",{"x":-0e3}],"c":-0}}"#);
        assert_eq!(
            found.negative_zeros,
            vec![
                ("/id".into(), true),
                ("/params/a~1b/1".into(), false),
                ("/params/a~1b/3/x".into(), false),
                ("/params/c".into(), true),
            ]
        );
        assert_eq!(found.out_of_range, None);
    }

    #[test]
    fn finds_the_first_integer_beyond_64_bits() {
        let found = scan(
            r#"{"k\"ey":[18446744073709551615,-9223372036854775808,1e400,100000000000000000001,-9223372036854775809]}"#,
        );
        assert_eq!(
            found.out_of_range,
            Some(("/k\"ey/3".into(), "100000000000000000001".into()))
        );
        let found = scan("[-9223372036854775809]");
        assert_eq!(
            found.out_of_range,
            Some(("/0".into(), "-9223372036854775809".into()))
        );
    }

    #[test]
    fn escaped_keys_are_unescaped_in_pointers() {
        let found = scan(r#"{"\u0061\\":{"b":-0}}"#);
        assert_eq!(found.negative_zeros, vec![("/a\\/b".into(), true)]);
    }
}
