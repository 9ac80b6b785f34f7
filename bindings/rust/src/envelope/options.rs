//! Decoding and encoding options: the dialect and strictness.

use std::fmt;
use std::str::FromStr;

/// The envelope dialect spoken on a connection.
///
/// The dialect only decides how the `jsonrpc` member is treated; the shape
/// rules (ids, `params`, `result`/`error`) are the same in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// JSON-RPC 2.0: every message carries `"jsonrpc": "2.0"`.
    ///
    /// Its name is `jsonrpc-2.0`.
    #[default]
    JsonRpc2,
    /// The bare dialect (gzkit authoring guide): JSON-RPC shapes without the
    /// `jsonrpc` member.
    ///
    /// A peer that sends `"jsonrpc": "2.0"` anyway is tolerated; any other
    /// `jsonrpc` value is refused. Encoding never writes the member. Its name
    /// is `bare`.
    Bare,
}

impl Dialect {
    /// Every dialect, in declaration order.
    pub const ALL: [Dialect; 2] = [Dialect::JsonRpc2, Dialect::Bare];

    /// The stable name: `"jsonrpc-2.0"` or `"bare"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Dialect::JsonRpc2 => "jsonrpc-2.0",
            Dialect::Bare => "bare",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Dialect {
    type Err = ParseDialectError;

    /// Parses a stable name exactly as written by [`Dialect::as_str`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "jsonrpc-2.0" => Ok(Dialect::JsonRpc2),
            "bare" => Ok(Dialect::Bare),
            _ => Err(ParseDialectError {
                input: s.chars().take(64).collect(),
            }),
        }
    }
}

/// The error returned when a string names no [`Dialect`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseDialectError {
    input: String,
}

impl fmt::Display for ParseDialectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown envelope dialect {:?} (expected \"jsonrpc-2.0\" or \"bare\")",
            self.input
        )
    }
}

impl std::error::Error for ParseDialectError {}

/// How to decode and encode envelopes.
///
/// The default is [`EnvelopeOptions::JSONRPC_2`]: the `jsonrpc-2.0` dialect,
/// lenient.
///
/// *Lenient* decoding follows JSON-RPC 2.0's robustness: unknown members are
/// ignored, a duplicated member keeps its last value, and `"params": null` is
/// tolerated. *Strict* decoding (the agentapi-doctor driver protocol's
/// `DecodeControlFrame`) refuses duplicate member names at any depth, unknown
/// envelope members (also inside the `error` object) and `"params": null`.
/// Invalid UTF-8 and non-whitespace after the JSON value are refused in both
/// modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EnvelopeOptions {
    /// The dialect: whether `"jsonrpc": "2.0"` is required and written.
    pub dialect: Dialect,
    /// Whether decoding refuses duplicate keys, unknown members and
    /// `"params": null`.
    pub strict: bool,
}

impl EnvelopeOptions {
    /// `jsonrpc-2.0`, lenient (the default).
    pub const JSONRPC_2: EnvelopeOptions = EnvelopeOptions::new(Dialect::JsonRpc2);
    /// `jsonrpc-2.0`, strict (the driver protocol's control frames).
    pub const JSONRPC_2_STRICT: EnvelopeOptions =
        EnvelopeOptions::new(Dialect::JsonRpc2).with_strict(true);
    /// `bare`, lenient (the gzkit authoring guide protocol).
    pub const BARE: EnvelopeOptions = EnvelopeOptions::new(Dialect::Bare);
    /// `bare`, strict.
    pub const BARE_STRICT: EnvelopeOptions = EnvelopeOptions::new(Dialect::Bare).with_strict(true);

    /// Lenient options for `dialect`.
    #[must_use]
    pub const fn new(dialect: Dialect) -> Self {
        EnvelopeOptions {
            dialect,
            strict: false,
        }
    }

    /// These options with strictness set to `strict`.
    #[must_use]
    pub const fn with_strict(self, strict: bool) -> Self {
        EnvelopeOptions {
            dialect: self.dialect,
            strict,
        }
    }

    /// These options with the dialect set to `dialect`.
    #[must_use]
    pub const fn with_dialect(self, dialect: Dialect) -> Self {
        EnvelopeOptions {
            dialect,
            strict: self.strict,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialect_names_round_trip() {
        for dialect in Dialect::ALL {
            assert_eq!(dialect.as_str().parse::<Dialect>(), Ok(dialect));
            assert_eq!(dialect.to_string(), dialect.as_str());
        }
        assert!("JSON-RPC".parse::<Dialect>().is_err());
    }

    #[test]
    fn default_is_lenient_jsonrpc() {
        assert_eq!(EnvelopeOptions::default(), EnvelopeOptions::JSONRPC_2);
        assert_eq!(
            EnvelopeOptions::BARE_STRICT,
            EnvelopeOptions::new(Dialect::Bare).with_strict(true)
        );
        assert_eq!(EnvelopeOptions::BARE_STRICT.dialect, Dialect::Bare);
    }
}
