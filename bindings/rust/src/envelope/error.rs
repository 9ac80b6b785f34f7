//! The envelope error: what went wrong, where, and how to answer it.

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

use super::code::ErrorCode;
use super::id::Id;
use super::message::{ErrorObject, Response};

/// Pointers longer than this are left out of [`EnvelopeError::to_response`]'s
/// `data`, so a peer cannot make us echo a huge key back.
const MAX_ANSWERED_POINTER: usize = 256;

/// What went wrong while decoding (or canonically encoding) an envelope.
///
/// Every kind has a stable name ([`EnvelopeErrorKind::as_str`], the variant
/// name, used by the test vectors) and a JSON-RPC code
/// ([`EnvelopeErrorKind::code`]).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EnvelopeErrorKind {
    /// The body is not JSON (`-32700`).
    Parse,
    /// The body is not valid UTF-8 (`-32700`).
    InvalidUtf8,
    /// Something other than JSON whitespace follows the value (`-32700`).
    TrailingData,
    /// Strict mode: an object, at any depth, names a member twice
    /// (`-32600`). The text is well-formed JSON (RFC 8259 only says names
    /// *should* be unique), so this is a refused request, not a parse error,
    /// and the request id is recovered when `id` itself is not the
    /// duplicate.
    DuplicateKey,
    /// The value is not an object (a batch array, a string, ...; `-32600`).
    NotAnObject,
    /// `jsonrpc-2.0` dialect: there is no `jsonrpc` member (`-32600`).
    MissingJsonRpc,
    /// `jsonrpc` is a string other than `"2.0"` (`-32600`).
    WrongJsonRpcVersion,
    /// `jsonrpc` is present but is not a string (`"jsonrpc": 2.0`;
    /// `-32600`): a malformed envelope rather than another version, as the
    /// driver protocol's reference decoder classes it.
    JsonRpcNotString,
    /// `method` is present but is not a string (`-32600`).
    MethodNotString,
    /// The id is not a string or an integer that fits `i64`/`u64`: `null`
    /// or a boolean, array, object, fractional or exponent number in a
    /// request; anything but those or `null` in a response (`-32600`).
    InvalidId,
    /// A response (no `method`) has no `id` member (`-32600`).
    MissingId,
    /// `params` is present but is not an object or an array (`-32600`).
    ParamsNotStructured,
    /// A response carries both `result` and `error` (`-32600`).
    ResultAndError,
    /// The message has neither `method` nor `result` nor `error`
    /// (`-32600`).
    NeitherResultNorError,
    /// `error` is not an object with an integer `code` and a string
    /// `message` (`-32600`).
    InvalidErrorObject,
    /// Strict mode: a member that does not belong to this kind of message,
    /// or to the `error` object (`-32600`).
    UnknownMember,
    /// [`encode_canonical`](super::encode_canonical) met an integer beyond
    /// `2^53` whose RFC 8785 form (that of the nearest double) would not be
    /// its own digits (`-32603`; raised only when encoding).
    NotCanonicalizable,
}

impl EnvelopeErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [EnvelopeErrorKind; 17] = [
        EnvelopeErrorKind::Parse,
        EnvelopeErrorKind::InvalidUtf8,
        EnvelopeErrorKind::TrailingData,
        EnvelopeErrorKind::DuplicateKey,
        EnvelopeErrorKind::NotAnObject,
        EnvelopeErrorKind::MissingJsonRpc,
        EnvelopeErrorKind::WrongJsonRpcVersion,
        EnvelopeErrorKind::JsonRpcNotString,
        EnvelopeErrorKind::MethodNotString,
        EnvelopeErrorKind::InvalidId,
        EnvelopeErrorKind::MissingId,
        EnvelopeErrorKind::ParamsNotStructured,
        EnvelopeErrorKind::ResultAndError,
        EnvelopeErrorKind::NeitherResultNorError,
        EnvelopeErrorKind::InvalidErrorObject,
        EnvelopeErrorKind::UnknownMember,
        EnvelopeErrorKind::NotCanonicalizable,
    ];

    /// The stable machine name: the variant name, e.g. `"DuplicateKey"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            EnvelopeErrorKind::Parse => "Parse",
            EnvelopeErrorKind::InvalidUtf8 => "InvalidUtf8",
            EnvelopeErrorKind::TrailingData => "TrailingData",
            EnvelopeErrorKind::DuplicateKey => "DuplicateKey",
            EnvelopeErrorKind::NotAnObject => "NotAnObject",
            EnvelopeErrorKind::MissingJsonRpc => "MissingJsonRpc",
            EnvelopeErrorKind::WrongJsonRpcVersion => "WrongJsonRpcVersion",
            EnvelopeErrorKind::JsonRpcNotString => "JsonRpcNotString",
            EnvelopeErrorKind::MethodNotString => "MethodNotString",
            EnvelopeErrorKind::InvalidId => "InvalidId",
            EnvelopeErrorKind::MissingId => "MissingId",
            EnvelopeErrorKind::ParamsNotStructured => "ParamsNotStructured",
            EnvelopeErrorKind::ResultAndError => "ResultAndError",
            EnvelopeErrorKind::NeitherResultNorError => "NeitherResultNorError",
            EnvelopeErrorKind::InvalidErrorObject => "InvalidErrorObject",
            EnvelopeErrorKind::UnknownMember => "UnknownMember",
            EnvelopeErrorKind::NotCanonicalizable => "NotCanonicalizable",
        }
    }

    /// The JSON-RPC code: `-32700` for the parse-level kinds (`Parse`,
    /// `InvalidUtf8`, `TrailingData`), `-32603` for `NotCanonicalizable`,
    /// `-32600` for the rest.
    #[must_use]
    pub const fn code(self) -> ErrorCode {
        match self {
            EnvelopeErrorKind::Parse
            | EnvelopeErrorKind::InvalidUtf8
            | EnvelopeErrorKind::TrailingData => ErrorCode::PARSE_ERROR,
            EnvelopeErrorKind::NotCanonicalizable => ErrorCode::INTERNAL_ERROR,
            _ => ErrorCode::INVALID_REQUEST,
        }
    }

    /// Whether the body could not be read as one JSON value at all.
    #[must_use]
    pub const fn is_parse_level(self) -> bool {
        self.code().0 == ErrorCode::PARSE_ERROR.0
    }
}

impl fmt::Display for EnvelopeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EnvelopeErrorKind {
    type Err = ();

    /// Parses a name written by [`EnvelopeErrorKind::as_str`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EnvelopeErrorKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or(())
    }
}

/// An envelope that could not be decoded (or canonically encoded).
///
/// Small (one pointer) so that `Result<Message, EnvelopeError>` stays cheap.
/// [`EnvelopeError::to_response`] builds the error response to send back.
#[derive(Clone, PartialEq, Eq)]
pub struct EnvelopeError(Box<Repr>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Repr {
    kind: EnvelopeErrorKind,
    pointer: String,
    id: Option<Id>,
    message: String,
    line_column: Option<(usize, usize)>,
}

impl EnvelopeError {
    pub(crate) fn new(kind: EnvelopeErrorKind, pointer: String, message: String) -> Self {
        EnvelopeError(Box::new(Repr {
            kind,
            pointer,
            id: None,
            message,
            line_column: None,
        }))
    }

    pub(crate) fn with_id(mut self, id: Option<Id>) -> Self {
        self.0.id = id;
        self
    }

    pub(crate) fn with_line_column(mut self, line: usize, column: usize) -> Self {
        self.0.line_column = Some((line, column));
        self
    }

    /// What went wrong.
    #[must_use]
    pub fn kind(&self) -> EnvelopeErrorKind {
        self.0.kind
    }

    /// The JSON-RPC code to answer with (see [`EnvelopeErrorKind::code`]).
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        self.0.kind.code()
    }

    /// The JSON pointer (RFC 6901) of the offending member: `""` for the
    /// whole message, `"/id"`, `"/params/a/0/b"` for a nested duplicate, or
    /// the place a missing member belongs (`"/jsonrpc"`, `"/error/code"`).
    #[must_use]
    pub fn pointer(&self) -> &str {
        &self.0.pointer
    }

    /// The id to answer with: the message's id when it was an object whose
    /// `id` member is a valid id (and, for [`EnvelopeErrorKind::DuplicateKey`],
    /// not itself the duplicate). `None` means answer with `"id": null`.
    /// Parse-level errors never recover an id.
    #[must_use]
    pub fn id(&self) -> Option<&Id> {
        self.0.id.as_ref()
    }

    /// A human sentence describing the problem. Peer-supplied names in it
    /// are quoted and shortened.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// For parse-level errors, the 1-based line and column (bytes) where
    /// reading stopped.
    #[must_use]
    pub fn line_column(&self) -> Option<(usize, usize)> {
        self.0.line_column
    }

    /// The message of the answer: the code's standard message and this
    /// error's sentence (`"Invalid Request: ..."`).
    #[must_use]
    pub fn answer_message(&self) -> String {
        match self.code().standard_message() {
            Some(prefix) => format!("{prefix}: {}", self.0.message),
            None => self.0.message.clone(),
        }
    }

    /// The pointer an answer may echo: [`pointer`](Self::pointer) when it
    /// is at most 256 bytes long, so a peer cannot make us echo a huge key.
    #[must_use]
    pub fn answered_pointer(&self) -> Option<&str> {
        (self.0.pointer.len() <= MAX_ANSWERED_POINTER).then_some(self.0.pointer.as_str())
    }

    /// The error response to send back: this error's [`id`](Self::id) (or
    /// `null`), its [`code`](Self::code), a message such as `"Invalid
    /// Request: ..."`, and `data` `{"kind": "<kind name>", "pointer": "..."}`
    /// (the pointer only when it is at most 256 bytes long).
    ///
    /// Answer requests only: an error in what looked like a response or a
    /// notification is usually logged instead (JSON-RPC answers an
    /// unreadable message with `"id": null`, though).
    #[must_use]
    pub fn to_response(&self) -> Response {
        let code = self.code();
        let message = self.answer_message();
        let mut data = Map::new();
        data.insert("kind".into(), Value::from(self.0.kind.as_str()));
        if let Some(pointer) = self.answered_pointer() {
            data.insert("pointer".into(), Value::from(pointer));
        }
        Response::error(
            self.0.id.clone(),
            ErrorObject {
                code: code.0,
                message,
                data: Some(Value::Object(data)),
            },
        )
    }
}

impl fmt::Debug for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnvelopeError")
            .field("kind", &self.0.kind)
            .field("pointer", &self.0.pointer)
            .field("id", &self.0.id)
            .field("message", &self.0.message)
            .field("line_column", &self.0.line_column)
            .finish()
    }
}

impl fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for EnvelopeError {}

/// Appends one reference token to a JSON pointer, escaping `~` and `/`.
pub(crate) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// The pointer `/<token>`.
pub(crate) fn member_pointer(token: &str) -> String {
    let mut pointer = String::with_capacity(token.len() + 1);
    push_token(&mut pointer, token);
    pointer
}

/// A peer-supplied name made safe for a message: quoted, escaped, and cut
/// to 64 characters.
pub(crate) fn quote(name: &str) -> String {
    const MAX: usize = 64;
    match name.char_indices().nth(MAX) {
        None => format!("{name:?}"),
        Some((cut, _)) => format!("{:?}...", &name[..cut]),
    }
}

/// "a string", "an object", ... for messages.
pub(crate) fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a non-integer number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_round_trip() {
        for kind in EnvelopeErrorKind::ALL {
            assert_eq!(kind.as_str().parse::<EnvelopeErrorKind>(), Ok(kind));
        }
        assert!("Nope".parse::<EnvelopeErrorKind>().is_err());
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(member_pointer("a/b~c"), "/a~1b~0c");
        assert_eq!(member_pointer(""), "/");
    }

    #[test]
    fn quote_cuts_long_names() {
        assert_eq!(quote("ab"), "\"ab\"");
        let long = "é".repeat(100);
        assert_eq!(quote(&long).chars().filter(|c| *c == 'é').count(), 64);
    }

    #[test]
    fn error_is_one_pointer_wide() {
        assert_eq!(
            std::mem::size_of::<EnvelopeError>(),
            std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn to_response_carries_id_code_and_data() {
        let error = EnvelopeError::new(
            EnvelopeErrorKind::ParamsNotStructured,
            "/params".into(),
            "\"params\" must be an object or an array, not a string".into(),
        )
        .with_id(Some(Id::from(4)));
        let response = error.to_response();
        assert_eq!(response.id, Some(Id::from(4)));
        let object = response.outcome.expect_err("an error outcome");
        assert_eq!(object.code, -32600);
        assert!(object.message.starts_with("Invalid Request: "));
        assert_eq!(
            object.data,
            Some(serde_json::json!({"kind": "ParamsNotStructured", "pointer": "/params"}))
        );
    }
}
