//! The shared decoding helpers: members by type, positions, ranges, lists
//! that fail naming the index. Every helper reports the pointer of what it
//! refused relative to the value it was given.

use serde_json::{Map, Value};

use super::error::{DecodeError, DecodeErrorKind};
use crate::position::{Position, Range, TextEdit};

pub(crate) type Object = Map<String, Value>;

/// The name of a value's JSON type, for messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn wrong(expected: &str, found: &Value) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::WrongType,
        "",
        format!("expected {expected}, found {}", type_name(found)),
    )
}

pub(crate) fn object<'a>(value: &'a Value, what: &str) -> Result<&'a Object, DecodeError> {
    value.as_object().ok_or_else(|| wrong(what, value))
}

pub(crate) fn array<'a>(value: &'a Value, what: &str) -> Result<&'a Vec<Value>, DecodeError> {
    value.as_array().ok_or_else(|| wrong(what, value))
}

/// A required member.
pub(crate) fn member<'a>(object: &'a Object, name: &str) -> Result<&'a Value, DecodeError> {
    object.get(name).ok_or_else(|| {
        DecodeError::new(
            DecodeErrorKind::MissingMember,
            format!("/{name}"),
            format!("`{name}` is required"),
        )
    })
}

/// An optional member: absent and `null` are both `None`.
pub(crate) fn optional<'a>(object: &'a Object, name: &str) -> Option<&'a Value> {
    object.get(name).filter(|value| !value.is_null())
}

pub(crate) fn string(object: &Object, name: &str) -> Result<String, DecodeError> {
    let value = member(object, name)?;
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| wrong("a string", value).within(name))
}

pub(crate) fn optional_string(object: &Object, name: &str) -> Result<Option<String>, DecodeError> {
    match optional(object, name) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(wrong("a string", other).within(name)),
    }
}

pub(crate) fn unsigned(object: &Object, name: &str) -> Result<u32, DecodeError> {
    let value = member(object, name)?;
    match value.as_u64() {
        Some(n) => u32::try_from(n).map_err(|_| {
            DecodeError::new(
                DecodeErrorKind::OutOfRange,
                format!("/{name}"),
                format!("{n} does not fit 32 bits"),
            )
        }),
        None => Err(wrong("an unsigned integer", value).within(name)),
    }
}

/// One coordinate of a position: a non-negative integer within 32 bits.
fn coordinate(object: &Object, name: &str) -> Result<u32, DecodeError> {
    let value = member(object, name)?;
    let refused =
        |why: String| DecodeError::new(DecodeErrorKind::BadPosition, format!("/{name}"), why);
    if let Some(n) = value.as_u64() {
        return u32::try_from(n).map_err(|_| refused(format!("`{name}` {n} does not fit 32 bits")));
    }
    if value.as_i64().is_some() || value.as_f64().is_some_and(|f| f < 0.0) {
        return Err(refused(format!("`{name}` is negative ({value})")));
    }
    Err(wrong("a non-negative integer", value).within(name))
}

pub(crate) fn position(value: &Value) -> Result<Position, DecodeError> {
    let object = object(value, "a position object")?;
    Ok(Position {
        line: coordinate(object, "line")?,
        character: coordinate(object, "character")?,
    })
}

pub(crate) fn range(value: &Value) -> Result<Range, DecodeError> {
    let object = object(value, "a range object")?;
    Ok(Range {
        start: position(member(object, "start")?).map_err(|e| e.within("start"))?,
        end: position(member(object, "end")?).map_err(|e| e.within("end"))?,
    })
}

pub(crate) fn range_member(object: &Object, name: &str) -> Result<Range, DecodeError> {
    range(member(object, name)?).map_err(|e| e.within(name))
}

/// A `TextEdit` or an `AnnotatedTextEdit` (its annotation id ignored).
pub(crate) fn text_edit(value: &Value) -> Result<TextEdit, DecodeError> {
    let object = object(value, "a text edit object")?;
    Ok(TextEdit {
        range: range_member(object, "range")?,
        new_text: string(object, "newText")?,
    })
}

/// Every entry decoded by `entry`; the first bad one fails the whole list,
/// its pointer starting with its index.
pub(crate) fn list<T>(
    items: &[Value],
    mut entry: impl FnMut(&Value) -> Result<T, DecodeError>,
) -> Result<Vec<T>, DecodeError> {
    items
        .iter()
        .enumerate()
        .map(|(index, item)| entry(item).map_err(|e| e.within(&index.to_string())))
        .collect()
}

/// A member holding a list, decoded by `entry`.
pub(crate) fn list_member<T>(
    object: &Object,
    name: &str,
    entry: impl FnMut(&Value) -> Result<T, DecodeError>,
) -> Result<Vec<T>, DecodeError> {
    let items = array(member(object, name)?, "an array").map_err(|e| e.within(name))?;
    list(items, entry).map_err(|e| e.within(name))
}
