//! The one error type of the code generator.
//!
//! Every failure names what it can of: the schema file, the JSON pointer
//! inside it, the target being generated, and what is wrong.

use std::fmt;

use crate::Target;

/// What went wrong, without the location details.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A file could not be read or written.
    Io,
    /// A file is not valid JSON.
    Json,
    /// A protocol manifest is missing a field or has one of the wrong shape.
    Manifest,
    /// A `$ref` points nowhere, or two files define the same type name.
    Reference,
    /// A schema uses a construct the generator cannot express.
    Unsupported,
    /// typify rejected the schema or panicked on it.
    Typify,
    /// A template failed to render.
    Template,
    /// Generated output could not be parsed back (a generator bug).
    Format,
    /// `--check` found committed files that differ from fresh output.
    Stale,
}

/// A code-generation error: a kind plus where it happened.
#[derive(Debug)]
pub struct Error(Box<Inner>);

#[derive(Debug)]
struct Inner {
    kind: ErrorKind,
    message: String,
    file: Option<String>,
    pointer: Option<String>,
    target: Option<Target>,
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            message: message.into(),
            file: None,
            pointer: None,
            target: None,
        }))
    }

    /// Attach the schema file the error is about (kept if already set).
    #[must_use]
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        if self.0.file.is_none() {
            self.0.file = Some(file.into());
        }
        self
    }

    /// Attach the JSON pointer the error is about (kept if already set).
    #[must_use]
    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        if self.0.pointer.is_none() {
            self.0.pointer = Some(pointer.into());
        }
        self
    }

    /// Attach the target being generated (kept if already set).
    #[must_use]
    pub fn for_target(mut self, target: Target) -> Self {
        if self.0.target.is_none() {
            self.0.target = Some(target);
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The message, without the location.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The schema file, if known.
    pub fn file(&self) -> Option<&str> {
        self.0.file.as_deref()
    }

    /// The JSON pointer inside [`Error::file`], if known.
    pub fn pointer(&self) -> Option<&str> {
        self.0.pointer.as_deref()
    }

    /// The target being generated, if known.
    pub fn target(&self) -> Option<Target> {
        self.0.target
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.0.file, &self.0.pointer) {
            (Some(file), Some(ptr)) => write!(f, "{file}#{ptr}: ")?,
            (Some(file), None) => write!(f, "{file}: ")?,
            (None, Some(ptr)) => write!(f, "#{ptr}: ")?,
            (None, None) => {}
        }
        f.write_str(&self.0.message)?;
        if let Some(target) = self.0.target {
            write!(f, " (target: {})", target.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl From<askama::Error> for Error {
    fn from(e: askama::Error) -> Self {
        Error::new(ErrorKind::Template, format!("template failed: {e}"))
    }
}

/// Escape one JSON pointer segment (RFC 6901).
pub(crate) fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
