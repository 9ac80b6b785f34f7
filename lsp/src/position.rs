//! The server's coordinates: zero-based lines and UTF-16 code-unit
//! characters, exactly as the server states them. Nothing here converts
//! them; [`crate::text`] is the one converter.

use serde_json::{json, Value};

/// A position in a document, in the server's units (zero-based line,
/// zero-based UTF-16 code units into the line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    /// Zero-based line.
    pub line: u32,
    /// Zero-based UTF-16 code units from the start of the line.
    pub character: u32,
}

impl Position {
    /// A position.
    pub fn new(line: u32, character: u32) -> Self {
        Position { line, character }
    }

    /// The position as the wire carries it.
    pub fn to_value(self) -> Value {
        json!({"line": self.line, "character": self.character})
    }
}

/// A half-open range between two positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Range {
    /// First position in the range.
    pub start: Position,
    /// First position after the range.
    pub end: Position,
}

impl Range {
    /// The range as the wire carries it.
    pub fn to_value(self) -> Value {
        json!({"start": self.start.to_value(), "end": self.end.to_value()})
    }
}

/// One replacement of a range by new text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    /// What is replaced.
    pub range: Range,
    /// The replacement.
    pub new_text: String,
}
