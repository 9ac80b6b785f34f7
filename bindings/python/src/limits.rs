//! The one nesting bound every path shares (issue 15, defect 3).

/// The deepest nesting of arrays and objects a value (params, result,
/// stream item, error data, or a value given to `loads`/`dumps`) may have,
/// in every direction and on every path: the reading side is bounded by
/// `serde_json`'s recursion limit (127 levels for a whole message), and a
/// message's envelope takes one of them, so this is what can always be read
/// back. Deeper values are refused when written, so wirekit never writes what
/// it cannot read.
pub const MAX_DEPTH: usize = 126;
