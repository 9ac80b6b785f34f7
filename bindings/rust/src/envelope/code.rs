//! JSON-RPC error codes.

use std::fmt;

/// A JSON-RPC error code.
///
/// The five codes JSON-RPC 2.0 defines are associated constants; any other
/// integer is a valid application code (gzkit's `VERSION_MISMATCH` is
/// `ErrorCode(-32099)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// `-32700`: the body is not JSON (or not UTF-8, or has trailing data).
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// `-32600`: the JSON is not a valid request (or response) object.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// `-32601`: the method does not exist or is not available.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// `-32602`: invalid method parameters.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// `-32603`: internal JSON-RPC error.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);

    /// The code as an integer.
    #[must_use]
    pub const fn value(self) -> i64 {
        self.0
    }

    /// The upper-case name of a code JSON-RPC 2.0 defines (`"PARSE_ERROR"`,
    /// `"INVALID_REQUEST"`, `"METHOD_NOT_FOUND"`, `"INVALID_PARAMS"`,
    /// `"INTERNAL_ERROR"`), or `None` for any other code.
    #[must_use]
    pub const fn standard_name(self) -> Option<&'static str> {
        match self.0 {
            -32700 => Some("PARSE_ERROR"),
            -32600 => Some("INVALID_REQUEST"),
            -32601 => Some("METHOD_NOT_FOUND"),
            -32602 => Some("INVALID_PARAMS"),
            -32603 => Some("INTERNAL_ERROR"),
            _ => None,
        }
    }

    /// The message JSON-RPC 2.0 suggests for a code it defines (`"Parse
    /// error"`, `"Invalid Request"`, `"Method not found"`, `"Invalid
    /// params"`, `"Internal error"`), or `None` for any other code.
    #[must_use]
    pub const fn standard_message(self) -> Option<&'static str> {
        match self.0 {
            -32700 => Some("Parse error"),
            -32600 => Some("Invalid Request"),
            -32601 => Some("Method not found"),
            -32602 => Some("Invalid params"),
            -32603 => Some("Internal error"),
            _ => None,
        }
    }

    /// Whether the code lies in the range JSON-RPC 2.0 reserves for
    /// pre-defined errors, `-32768..=-32000`.
    #[must_use]
    pub const fn is_reserved(self) -> bool {
        self.0 >= -32768 && self.0 <= -32000
    }

    /// Whether the code lies in the range JSON-RPC 2.0 leaves to
    /// implementation-defined server errors, `-32099..=-32000`.
    #[must_use]
    pub const fn is_server_error(self) -> bool {
        self.0 >= -32099 && self.0 <= -32000
    }
}

/// Formats the integer (`-32600`).
impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl From<i64> for ErrorCode {
    fn from(code: i64) -> Self {
        ErrorCode(code)
    }
}

impl From<ErrorCode> for i64 {
    fn from(code: ErrorCode) -> Self {
        code.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_codes_have_names() {
        assert_eq!(ErrorCode::PARSE_ERROR.standard_name(), Some("PARSE_ERROR"));
        assert_eq!(
            ErrorCode::INVALID_REQUEST.standard_message(),
            Some("Invalid Request")
        );
        assert_eq!(ErrorCode(-32099).standard_name(), None);
        assert!(ErrorCode(-32099).is_server_error());
        assert!(ErrorCode::INTERNAL_ERROR.is_reserved());
        assert!(!ErrorCode::INTERNAL_ERROR.is_server_error());
        assert!(!ErrorCode(1).is_reserved());
        assert_eq!(ErrorCode::METHOD_NOT_FOUND.to_string(), "-32601");
    }
}
