//! Incremental parser of one LSP header section, byte by byte.
//!
//! The section is `*(name ":" value CRLF) CRLF`. Each line is checked as soon
//! as its CRLF arrives, so a peer speaking another framing (say NDJSON, whose
//! first line ends in a bare LF) is refused at once rather than after the
//! header bound. The section bound counts every byte, the final CRLF included.

use super::codec::quote;
use super::{FaultKind, FrameLimits};

const CONTENT_LENGTH: &str = "Content-Length";

/// How a header section ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum HeaderOutcome {
    /// The blank line arrived; the body has this many bytes (within bound).
    Complete(usize),
    /// The section is refused.
    Fault(FaultKind, String),
}

/// The state of one header section being read.
#[derive(Debug, Default)]
pub(crate) struct HeaderParser {
    /// The current line, without its line ending.
    line: Vec<u8>,
    /// Bytes of the section seen so far.
    section_len: usize,
    /// Lines completed so far.
    lines: usize,
    /// The previous byte was a CR.
    pending_cr: bool,
    /// The `Content-Length` value, once seen (already within bound).
    content_length: Option<usize>,
}

impl HeaderParser {
    /// Whether no byte of the section has arrived yet.
    pub(crate) fn is_untouched(&self) -> bool {
        self.section_len == 0
    }

    /// Bytes of the section seen so far.
    pub(crate) fn section_len(&self) -> usize {
        self.section_len
    }

    /// Bytes held (the current line).
    pub(crate) fn held_bytes(&self) -> usize {
        self.line.len()
    }

    /// Read header bytes from the front of `bytes`. Returns how many were
    /// consumed and, when the section ended or was refused, the outcome;
    /// the parser must not be fed again after an outcome.
    pub(crate) fn feed(
        &mut self,
        bytes: &[u8],
        limits: &FrameLimits,
    ) -> (usize, Option<HeaderOutcome>) {
        for (index, &byte) in bytes.iter().enumerate() {
            let used = index + 1;
            if self.section_len >= limits.max_header_bytes {
                let detail = format!(
                    "header section exceeds the bound of {} bytes without reaching its blank line",
                    limits.max_header_bytes
                );
                return (
                    used,
                    Some(HeaderOutcome::Fault(FaultKind::HeaderTooLong, detail)),
                );
            }
            self.section_len += 1;
            let line_no = self.lines + 1;
            if self.pending_cr {
                self.pending_cr = false;
                if byte != b'\n' {
                    let detail = format!("header line {line_no} has a CR not followed by LF");
                    return (used, Some(malformed(detail)));
                }
                let outcome = if self.line.is_empty() {
                    Some(self.end_section())
                } else {
                    self.end_line(limits)
                };
                if outcome.is_some() {
                    return (used, outcome);
                }
            } else if byte == b'\r' {
                self.pending_cr = true;
            } else if byte == b'\n' {
                let detail = format!(
                    "header line {line_no} ends with a bare LF; header lines end with CRLF"
                );
                return (used, Some(malformed(detail)));
            } else {
                self.line.push(byte);
            }
        }
        (bytes.len(), None)
    }

    /// The blank line arrived.
    fn end_section(&mut self) -> HeaderOutcome {
        match self.content_length {
            Some(length) => HeaderOutcome::Complete(length),
            None => HeaderOutcome::Fault(
                FaultKind::MissingContentLength,
                format!(
                    "header section of {} line(s) has no Content-Length header",
                    self.lines
                ),
            ),
        }
    }

    /// A non-empty header line arrived; `None` when it is acceptable.
    fn end_line(&mut self, limits: &FrameLimits) -> Option<HeaderOutcome> {
        self.lines += 1;
        let n = self.lines;
        let Ok(text) = std::str::from_utf8(&self.line) else {
            return Some(malformed(format!("header line {n} is not UTF-8 text")));
        };
        if let Some(c) = text.chars().find(|c| c.is_control() && *c != '\t') {
            let detail = format!(
                "header line {n} contains the control character U+{:04X}",
                u32::from(c)
            );
            return Some(malformed(detail));
        }
        let Some((name, value)) = text.split_once(':') else {
            return Some(malformed(format!(
                "header line {n} has no colon: {}",
                quote(text)
            )));
        };
        if name.is_empty() {
            return Some(malformed(format!("header line {n} has an empty name")));
        }
        if !name.bytes().all(is_token_byte) {
            return Some(malformed(format!(
                "header line {n} has the name {}, which is not an HTTP token",
                quote(name)
            )));
        }
        if name.eq_ignore_ascii_case(CONTENT_LENGTH) {
            if self.content_length.is_some() {
                return Some(HeaderOutcome::Fault(
                    FaultKind::DuplicateContentLength,
                    format!("header line {n} is a second Content-Length header"),
                ));
            }
            let value = value.trim_matches([' ', '\t']);
            let declared = match parse_decimal(value) {
                Ok(declared) => declared,
                Err(why) => {
                    return Some(HeaderOutcome::Fault(
                        FaultKind::BadContentLength,
                        format!("Content-Length value {} {why}", quote(value)),
                    ))
                }
            };
            let Some(length) = usize::try_from(declared)
                .ok()
                .filter(|&length| length <= limits.max_frame_bytes)
            else {
                return Some(HeaderOutcome::Fault(
                    FaultKind::FrameTooLong,
                    format!(
                        "declared Content-Length {declared} exceeds the frame bound of {} bytes",
                        limits.max_frame_bytes
                    ),
                ));
            };
            self.content_length = Some(length);
        }
        self.line.clear();
        None
    }
}

fn malformed(detail: String) -> HeaderOutcome {
    HeaderOutcome::Fault(FaultKind::MalformedHeader, detail)
}

/// RFC 9110 `tchar`.
fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// ASCII digits only (leading zeros allowed: `"007"` is 7), no sign, not
/// empty, within `u64`.
fn parse_decimal(value: &str) -> Result<u64, &'static str> {
    if value.is_empty() {
        return Err("is empty");
    }
    if !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err("is not a decimal byte count (ASCII digits only)");
    }
    value.bytes().try_fold(0u64, |acc, digit| {
        acc.checked_mul(10)
            .and_then(|acc| acc.checked_add(u64::from(digit - b'0')))
            .ok_or("overflows a 64-bit byte count")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(input: &[u8]) -> (usize, Option<HeaderOutcome>) {
        HeaderParser::default().feed(input, &FrameLimits::content_length_default())
    }

    #[test]
    fn decimal_values() {
        assert_eq!(parse_decimal("007"), Ok(7));
        assert_eq!(parse_decimal("18446744073709551615"), Ok(u64::MAX));
        assert!(parse_decimal("18446744073709551616").is_err());
        for bad in ["", "+1", "-1", "1_000", "0x10", "1 2", "١"] {
            assert!(parse_decimal(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn complete_section_stops_at_blank_line() {
        let input = b"content-length: 5\r\nX-Y: z\r\n\r\nhello";
        assert_eq!(
            parse(input),
            (input.len() - 5, Some(HeaderOutcome::Complete(5)))
        );
    }

    #[test]
    fn kinds() {
        let kind = |input: &[u8]| match parse(input).1 {
            Some(HeaderOutcome::Fault(kind, _)) => Some(kind),
            _ => None,
        };
        assert_eq!(kind(b"\r\n"), Some(FaultKind::MissingContentLength));
        assert_eq!(kind(b"{\"a\":1}\n"), Some(FaultKind::MalformedHeader));
        assert_eq!(kind(b"A\rB"), Some(FaultKind::MalformedHeader));
        assert_eq!(kind(b"Bad Name: 1\r\n"), Some(FaultKind::MalformedHeader));
        assert_eq!(kind(b": 1\r\n"), Some(FaultKind::MalformedHeader));
        assert_eq!(kind(b"A: \x01\r\n"), Some(FaultKind::MalformedHeader));
        assert_eq!(kind(b"A: \xff\r\n"), Some(FaultKind::MalformedHeader));
        assert_eq!(
            kind(b"Content-Length: x\r\n"),
            Some(FaultKind::BadContentLength)
        );
        assert_eq!(
            kind(b"Content-Length: 1\r\ncontent-length: 1\r\n"),
            Some(FaultKind::DuplicateContentLength)
        );
        assert_eq!(
            kind(b"Content-Length: 99999999\r\n"),
            Some(FaultKind::FrameTooLong)
        );
        assert_eq!(kind(b"Content-Length: 1\r\n"), None);
    }
}
