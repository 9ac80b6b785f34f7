//! Frames and the framings that carry them.

use std::fmt;
use std::str::FromStr;

use super::FrameLimits;

/// One decoded message body: valid UTF-8 text, not yet parsed as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Frame {
    offset: u64,
    body: String,
}

impl Frame {
    /// A frame whose first byte (first header byte for `Content-Length`,
    /// first line byte for NDJSON) sits at `offset` in the stream.
    pub fn new(offset: u64, body: String) -> Self {
        Frame { offset, body }
    }

    /// Byte offset in the whole stream where this frame starts: its first
    /// header byte (`Content-Length`) or the first byte of its line (NDJSON).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The body, without header or line ending.
    pub fn body(&self) -> &str {
        &self.body
    }

    /// The body, owned.
    pub fn into_body(self) -> String {
        self.body
    }

    /// Length of the body in bytes.
    pub fn len(&self) -> usize {
        self.body.len()
    }

    /// Whether the body is empty (only `Content-Length: 0` yields one).
    pub fn is_empty(&self) -> bool {
        self.body.is_empty()
    }
}

/// A decoded frame lent by [`FrameDecoder::decode`](super::FrameDecoder::decode):
/// its body lies in the input just handed to the decoder when the frame was
/// whole in it (no copy), or in the decoder's own buffer when it arrived in
/// pieces. Either way it is valid UTF-8, and lent until the decoder's next call.
#[derive(Debug, PartialEq, Eq)]
pub struct FrameRef<'a> {
    offset: u64,
    body: BodyRef<'a>,
}

/// Where a lent body lies.
#[derive(Debug, PartialEq, Eq)]
enum BodyRef<'a> {
    /// In the caller's input.
    Input(&'a str),
    /// In the decoder's buffer, which [`FrameRef::into_frame`] may take.
    Held(&'a mut String),
}

impl<'a> FrameRef<'a> {
    /// A frame whose body lies in the caller's input.
    pub(crate) fn borrowed(offset: u64, body: &'a str) -> Self {
        FrameRef {
            offset,
            body: BodyRef::Input(body),
        }
    }

    /// A frame whose body is the decoder's buffer `body`.
    pub(crate) fn held(offset: u64, body: &'a mut String) -> Self {
        FrameRef {
            offset,
            body: BodyRef::Held(body),
        }
    }

    /// Byte offset in the whole stream where this frame starts (see
    /// [`Frame::offset`]).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The body, without header or line ending.
    pub fn body(&self) -> &str {
        match &self.body {
            BodyRef::Input(body) => body,
            BodyRef::Held(body) => body.as_str(),
        }
    }

    /// Whether the body lies in the caller's input (it was not copied).
    pub fn is_borrowed_from_input(&self) -> bool {
        matches!(self.body, BodyRef::Input(_))
    }

    /// Length of the body in bytes.
    pub fn len(&self) -> usize {
        self.body().len()
    }

    /// Whether the body is empty (only `Content-Length: 0` yields one).
    pub fn is_empty(&self) -> bool {
        self.body().is_empty()
    }

    /// The frame, owned: a body in the caller's input is copied, a body in
    /// the decoder's buffer is taken without a copy.
    pub fn into_frame(self) -> Frame {
        let body = match self.body {
            BodyRef::Input(body) => body.to_owned(),
            BodyRef::Held(body) => std::mem::take(body),
        };
        Frame::new(self.offset, body)
    }
}

/// How messages are delimited on a byte stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Framing {
    /// One JSON value a line, LF or CRLF terminated (Gaze analyzer protocol,
    /// AgentAPI driver protocol). Written and parsed as `"ndjson"`.
    Ndjson,
    /// LSP base protocol: `Content-Length: N\r\n\r\n` then N bytes (gzkit
    /// authoring guide protocol, language servers). Written and parsed as
    /// `"content-length"`.
    ContentLength,
}

impl Framing {
    /// Both framings.
    pub const ALL: [Framing; 2] = [Framing::Ndjson, Framing::ContentLength];

    /// `"ndjson"` or `"content-length"`.
    pub const fn name(self) -> &'static str {
        match self {
            Framing::Ndjson => "ndjson",
            Framing::ContentLength => "content-length",
        }
    }

    /// [`FrameLimits::ndjson_default`] or [`FrameLimits::content_length_default`].
    pub const fn default_limits(self) -> FrameLimits {
        match self {
            Framing::Ndjson => FrameLimits::ndjson_default(),
            Framing::ContentLength => FrameLimits::content_length_default(),
        }
    }

    /// Whether a decoder fault in this framing ends the stream.
    ///
    /// `Content-Length`: yes, every fault; once a header or body is wrong the
    /// frame boundaries are lost. NDJSON: no fault does; the next LF is a
    /// boundary whatever came before it.
    pub const fn faults_end_stream(self) -> bool {
        match self {
            Framing::Ndjson => false,
            Framing::ContentLength => true,
        }
    }
}

impl fmt::Display for Framing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Framing {
    type Err = UnknownFramingError;

    /// Parses `"ndjson"` or `"content-length"`, ignoring ASCII case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Framing::ALL
            .into_iter()
            .find(|framing| framing.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownFramingError {
                given: s.chars().take(64).collect(),
            })
    }
}

/// A framing name that is neither `"ndjson"` nor `"content-length"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFramingError {
    given: String,
}

impl UnknownFramingError {
    /// The name that was given (its first 64 characters).
    pub fn given(&self) -> &str {
        &self.given
    }
}

impl fmt::Display for UnknownFramingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown framing {:?}; expected \"ndjson\" or \"content-length\"",
            self.given
        )
    }
}

impl std::error::Error for UnknownFramingError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_names() {
        for framing in Framing::ALL {
            assert_eq!(framing.to_string().parse::<Framing>(), Ok(framing));
        }
        assert_eq!(
            "Content-Length".parse::<Framing>(),
            Ok(Framing::ContentLength)
        );
        let err = "lsp".parse::<Framing>().err();
        assert_eq!(
            err.map(|e| e.to_string()),
            Some("unknown framing \"lsp\"; expected \"ndjson\" or \"content-length\"".into())
        );
    }

    #[test]
    fn frame_accessors() {
        let frame = Frame::new(7, "é".into());
        assert_eq!((frame.offset(), frame.body(), frame.len()), (7, "é", 2));
        assert!(!frame.is_empty());
        assert_eq!(frame.into_body(), "é");
    }
}
