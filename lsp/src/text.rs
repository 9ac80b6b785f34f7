//! The one converter between a person's coordinates and the server's:
//! 1-based lines and 1-based columns counted in characters (Unicode scalar
//! values, as compilers print them) ↔ zero-based lines and UTF-16 code
//! units. Always against the text the server was given.

use std::fmt;

use crate::position::Position;

/// A 1-based line and column, the column in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineColumn {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

impl fmt::Display for LineColumn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Why a person's coordinates are not in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlaceError {
    /// Line or column 0 (they count from 1).
    Zero,
    /// The text has fewer lines.
    NoSuchLine {
        /// The line asked for.
        line: u32,
        /// How many lines the text has.
        lines: u32,
    },
    /// The line is shorter (the column right after its end is allowed).
    NoSuchColumn {
        /// The place asked for.
        at: LineColumn,
        /// The line's length in characters.
        length: u32,
    },
}

impl fmt::Display for PlaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlaceError::Zero => f.write_str("lines and columns count from 1"),
            PlaceError::NoSuchLine { line, lines } => {
                write!(f, "line {line} is past the end ({lines} lines)")
            }
            PlaceError::NoSuchColumn { at, length } => {
                write!(
                    f,
                    "column {} is past the end of line {} ({length} characters)",
                    at.column, at.line
                )
            }
        }
    }
}

impl std::error::Error for PlaceError {}

/// The lines of `text` as LSP counts them: split at `\n`, `\r\n` and `\r`,
/// without their endings.
fn lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'\n' => {
                lines.push(&text[start..index]);
                start = index + 1;
            }
            b'\r' => {
                lines.push(&text[start..index]);
                if bytes.get(index + 1) == Some(&b'\n') {
                    index += 1;
                }
                start = index + 1;
            }
            _ => {}
        }
        index += 1;
    }
    lines.push(&text[start..]);
    lines
}

/// A person's place in `text` as the server's position.
pub fn to_server(text: &str, at: LineColumn) -> Result<Position, PlaceError> {
    if at.line == 0 || at.column == 0 {
        return Err(PlaceError::Zero);
    }
    let all = lines(text);
    let count = u32::try_from(all.len()).unwrap_or(u32::MAX);
    let line = all
        .get((at.line - 1) as usize)
        .ok_or(PlaceError::NoSuchLine {
            line: at.line,
            lines: count,
        })?;
    let length = u32::try_from(line.chars().count()).unwrap_or(u32::MAX);
    if at.column - 1 > length {
        return Err(PlaceError::NoSuchColumn { at, length });
    }
    let units: usize = line
        .chars()
        .take((at.column - 1) as usize)
        .map(char::len_utf16)
        .sum();
    Ok(Position {
        line: at.line - 1,
        character: u32::try_from(units).unwrap_or(u32::MAX),
    })
}

/// The server's position in `text` as a person's place. A character in the
/// middle of a surrogate pair counts as that character; one past the end of
/// the line is clamped to just after it; a line past the end is kept (so a
/// person still sees where the server pointed).
pub fn to_person(text: &str, at: Position) -> LineColumn {
    let all = lines(text);
    let Some(line) = all.get(at.line as usize) else {
        return LineColumn {
            line: at.line.saturating_add(1),
            column: at.character.saturating_add(1),
        };
    };
    let mut units = 0u32;
    let mut column = 1u32;
    for character in line.chars() {
        let width = u32::try_from(character.len_utf16()).unwrap_or(2);
        if units + width > at.character {
            break;
        }
        units += width;
        column += 1;
    }
    LineColumn {
        line: at.line + 1,
        column,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn astral_characters_are_two_units_and_one_column() {
        let text = "a😀b\r\nxé\ry";
        let at = |line, column| LineColumn { line, column };
        assert_eq!(to_server(text, at(1, 3)), Ok(Position::new(0, 3)));
        assert_eq!(to_person(text, Position::new(0, 3)), at(1, 3));
        assert_eq!(to_person(text, Position::new(0, 2)), at(1, 2));
        assert_eq!(to_server(text, at(2, 3)), Ok(Position::new(1, 2)));
        assert_eq!(to_server(text, at(3, 1)), Ok(Position::new(2, 0)));
        assert_eq!(to_server(text, at(1, 4)), Ok(Position::new(0, 4)));
        assert!(matches!(
            to_server(text, at(1, 5)),
            Err(PlaceError::NoSuchColumn { length: 3, .. })
        ));
        assert!(matches!(
            to_server(text, at(4, 1)),
            Err(PlaceError::NoSuchLine { lines: 3, .. })
        ));
        assert_eq!(to_server(text, at(0, 1)), Err(PlaceError::Zero));
        assert_eq!(to_person(text, Position::new(0, 99)), at(1, 4));
    }
}
