//! `textDocument/hover` answers: the four shapes of `contents` (a
//! `MarkedString` string, a `MarkedString` `{language, value}`, an array of
//! those, or `MarkupContent`) land in one [`Hover`]; `null` is `None`.

use serde_json::Value;

use super::error::DecodeError;
use super::fields::{list, member, object, optional, range, string, wrong};
use crate::position::Range;

/// The markup of a hover's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoverMarkup {
    /// Plain text.
    PlainText,
    /// Markdown (every `MarkedString` shape is Markdown).
    Markdown,
}

/// A decoded hover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hover {
    /// The text, pieces of an array joined by blank lines, a
    /// `{language, value}` piece as a fenced code block.
    pub text: String,
    /// How `text` is marked up.
    pub markup: HoverMarkup,
    /// The range the hover is about, when the server said.
    pub range: Option<Range>,
}

impl Hover {
    /// Whether the hover says nothing (only whitespace).
    pub fn is_empty(&self) -> bool {
        self.text.trim().is_empty()
    }
}

/// Decodes a hover answer; `null` is `None`.
pub fn decode_hover(value: &Value) -> Result<Option<Hover>, DecodeError> {
    if value.is_null() {
        return Ok(None);
    }
    let hover = object(value, "a Hover object or null")?;
    let contents = member(hover, "contents")?;
    let (text, markup) = contents_text(contents).map_err(|e| e.within("contents"))?;
    let range = optional(hover, "range")
        .map(|r| range(r).map_err(|e| e.within("range")))
        .transpose()?;
    Ok(Some(Hover {
        text,
        markup,
        range,
    }))
}

fn contents_text(contents: &Value) -> Result<(String, HoverMarkup), DecodeError> {
    match contents {
        Value::String(text) => Ok((text.clone(), HoverMarkup::Markdown)),
        Value::Array(items) => {
            let pieces = list(items, marked_string)?;
            Ok((pieces.join("\n\n"), HoverMarkup::Markdown))
        }
        Value::Object(object) if object.contains_key("kind") => {
            let markup = match string(object, "kind")?.as_str() {
                "markdown" => HoverMarkup::Markdown,
                // MarkupKind is open-ended: anything else is shown as is.
                _ => HoverMarkup::PlainText,
            };
            Ok((string(object, "value")?, markup))
        }
        Value::Object(_) => Ok((marked_string(contents)?, HoverMarkup::Markdown)),
        other => Err(wrong(
            "a MarkedString, an array of MarkedString or MarkupContent",
            other,
        )),
    }
}

/// A `MarkedString`: Markdown text, or `{language, value}` as a code block.
fn marked_string(value: &Value) -> Result<String, DecodeError> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Object(_) => {
            let object = object(value, "a MarkedString")?;
            let language = string(object, "language")?;
            let code = string(object, "value")?;
            Ok(format!("```{language}\n{code}\n```"))
        }
        other => Err(wrong("a string or a {language, value} object", other)),
    }
}
