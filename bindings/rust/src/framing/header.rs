//! Incremental parser of one LSP header section, a line at a time.
//!
//! The section is `*(name ":" value CRLF) CRLF`. Each line is checked as soon
//! as its CRLF arrives, so a peer speaking another framing (say NDJSON, whose
//! first line ends in a bare LF) is refused at once rather than after the
//! header bound. The section bound counts every byte, the final CRLF included.
//!
//! Lines are found with `memchr`; a line that arrives whole in one input
//! slice is checked where it lies, and only a line split across inputs is
//! copied into the parser's line buffer (kept between frames).

use super::codec::quote;
use super::{FaultKind, FrameLimits};

const CONTENT_LENGTH: &str = "Content-Length";

/// The header line every encoder writes, up to its digits.
const CANONICAL_PREFIX: &[u8] = b"Content-Length: ";

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
    /// The current line so far, without its line ending, when it was split
    /// across inputs.
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
    /// Start a new section, keeping the line buffer's capacity.
    pub(crate) fn reset(&mut self) {
        self.line.clear();
        self.section_len = 0;
        self.lines = 0;
        self.pending_cr = false;
        self.content_length = None;
    }

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
    /// the parser must be [reset](HeaderParser::reset) before it is fed
    /// again after an outcome.
    ///
    /// The result is the one a byte-at-a-time reading gives: a byte past the
    /// bound is `HeaderTooLong` when it arrives, a CR must be followed by
    /// LF, a bare LF is refused, a line is checked when its LF arrives.
    pub(crate) fn feed(
        &mut self,
        bytes: &[u8],
        limits: &FrameLimits,
    ) -> (usize, Option<HeaderOutcome>) {
        let max = limits.max_header_bytes;
        let mut pos = 0;
        loop {
            if self.pending_cr {
                let Some(&byte) = bytes.get(pos) else {
                    return (pos, None);
                };
                if self.section_len >= max {
                    return (pos + 1, Some(too_long(max)));
                }
                self.section_len += 1;
                pos += 1;
                self.pending_cr = false;
                if byte != b'\n' {
                    return (pos, Some(self.bare_cr()));
                }
                let line = std::mem::take(&mut self.line);
                let outcome = if line.is_empty() {
                    Some(self.end_section())
                } else {
                    self.end_line(&line, limits)
                };
                self.line = line;
                self.line.clear();
                if outcome.is_some() {
                    return (pos, outcome);
                }
                continue;
            }
            let rest = bytes.get(pos..).unwrap_or_default();
            if rest.is_empty() {
                return (pos, None);
            }
            let budget = max.saturating_sub(self.section_len);
            let window = rest.get(..budget).unwrap_or(rest);
            let Some(at) = memchr::memchr2(b'\r', b'\n', window) else {
                if window.len() < rest.len() {
                    // The byte right after the window is over the bound.
                    return (pos + window.len() + 1, Some(too_long(max)));
                }
                self.line.extend_from_slice(window);
                self.section_len += window.len();
                return (bytes.len(), None);
            };
            let piece = window.get(..at).unwrap_or_default();
            self.section_len += at + 1;
            pos += at + 1;
            if window.get(at) == Some(&b'\n') {
                let n = self.lines + 1;
                let detail =
                    format!("header line {n} ends with a bare LF; header lines end with CRLF");
                return (pos, Some(malformed(detail)));
            }
            let whole_line_here =
                bytes.get(pos) == Some(&b'\n') && self.line.is_empty() && self.section_len < max;
            if whole_line_here {
                self.section_len += 1;
                pos += 1;
                let outcome = if piece.is_empty() {
                    Some(self.end_section())
                } else {
                    self.end_line(piece, limits)
                };
                if outcome.is_some() {
                    return (pos, outcome);
                }
            } else {
                // The LF (or whatever follows the CR) is handled above.
                self.line.extend_from_slice(piece);
                self.pending_cr = true;
            }
        }
    }

    /// The section every encoder writes, `Content-Length: N` CRLF CRLF, read
    /// in one go when it lies whole at the front of `bytes` and the parser
    /// is fresh; `None` otherwise (then [`feed`](HeaderParser::feed) reads
    /// it). The outcome is the one `feed` gives for the same bytes.
    pub(crate) fn feed_canonical(
        &mut self,
        bytes: &[u8],
        limits: &FrameLimits,
    ) -> Option<(usize, HeaderOutcome)> {
        if !self.is_untouched() {
            return None;
        }
        let rest = bytes.strip_prefix(CANONICAL_PREFIX)?;
        let digits_len = rest.iter().take(20).position(|b| !b.is_ascii_digit())?;
        if !(1..=19).contains(&digits_len) {
            return None;
        }
        let (digits, after) = rest.split_at(digits_len);
        if !after.starts_with(b"\r\n\r\n") {
            return None;
        }
        let line_end = CANONICAL_PREFIX.len() + digits_len + 2;
        let section_end = line_end + 2;
        if section_end > limits.max_header_bytes {
            return None;
        }
        let declared = digits
            .iter()
            .fold(0u64, |acc, digit| acc * 10 + u64::from(digit - b'0'));
        self.lines = 1;
        self.section_len = line_end;
        if let Some(fault) = self.accept_length(declared, 1, limits) {
            return Some((line_end, fault));
        }
        self.section_len = section_end;
        let outcome = self.end_section();
        Some((section_end, outcome))
    }

    fn bare_cr(&self) -> HeaderOutcome {
        let n = self.lines + 1;
        malformed(format!("header line {n} has a CR not followed by LF"))
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
    fn end_line(&mut self, line: &[u8], limits: &FrameLimits) -> Option<HeaderOutcome> {
        self.lines += 1;
        let n = self.lines;
        // The line every encoder writes: a token name, a colon, a space and
        // at most 19 digits (within u64) pass every check below unchanged.
        if let Some(digits) = line.strip_prefix(CANONICAL_PREFIX) {
            if (1..=19).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit) {
                let declared = digits
                    .iter()
                    .fold(0u64, |acc, digit| acc * 10 + u64::from(digit - b'0'));
                return self.accept_length(declared, n, limits);
            }
        }
        let Ok(text) = std::str::from_utf8(line) else {
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
        if !name.eq_ignore_ascii_case(CONTENT_LENGTH) {
            return None;
        }
        let value = value.trim_matches([' ', '\t']);
        match parse_decimal(value) {
            Ok(declared) => self.accept_length(declared, n, limits),
            Err(why) => Some(HeaderOutcome::Fault(
                FaultKind::BadContentLength,
                format!("Content-Length value {} {why}", quote(value)),
            )),
        }
    }

    /// Header line `n` declares `declared` body bytes.
    fn accept_length(
        &mut self,
        declared: u64,
        n: usize,
        limits: &FrameLimits,
    ) -> Option<HeaderOutcome> {
        if self.content_length.is_some() {
            return Some(HeaderOutcome::Fault(
                FaultKind::DuplicateContentLength,
                format!("header line {n} is a second Content-Length header"),
            ));
        }
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
        None
    }
}

fn too_long(max: usize) -> HeaderOutcome {
    let detail =
        format!("header section exceeds the bound of {max} bytes without reaching its blank line");
    HeaderOutcome::Fault(FaultKind::HeaderTooLong, detail)
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
    fn canonical_section_reads_as_feed_does() {
        let inputs: [&[u8]; 6] = [
            b"Content-Length: 5\r\n\r\nhello",
            b"Content-Length: 0\r\n\r\n",
            b"Content-Length: 007\r\n\r\n",
            b"Content-Length: 99999999\r\n\r\n",
            b"Content-Length: 18446744073709551615\r\n\r\n",
            b"Content-Length: 12\r\n\r\n",
        ];
        for limits in [
            FrameLimits::content_length_default(),
            FrameLimits::new(10, 24),
        ] {
            for input in inputs {
                let fast = HeaderParser::default().feed_canonical(input, &limits);
                let (used, outcome) = HeaderParser::default().feed(input, &limits);
                if let Some((fast_used, fast_outcome)) = fast {
                    assert_eq!(
                        (fast_used, Some(fast_outcome)),
                        (used, outcome),
                        "{input:?}"
                    );
                }
            }
        }
        let limits = FrameLimits::content_length_default();
        for other in [
            &b"Content-Length: 5\r\nX: y\r\n\r\n"[..],
            b"content-length: 5\r\n\r\n",
            b"Content-Length: 5\r\n",
        ] {
            assert!(HeaderParser::default()
                .feed_canonical(other, &limits)
                .is_none());
        }
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
