//! Errors met while loading and compiling a protocol.

use std::fmt;

/// What went wrong while loading or compiling a protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProtocolErrorKind {
    /// A file could not be read.
    Io,
    /// A file is not JSON.
    NotJson,
    /// The manifest does not have the manifest's shape.
    BadManifest,
    /// No protocol (or no such version) by that name.
    NotFound,
    /// A manifest lists a schema file that is not there.
    MissingSchemaFile,
    /// A `$ref` points nowhere, or somewhere bundling cannot follow.
    BadReference,
    /// Two schema files define different types under one name.
    DuplicateDefinition,
    /// The JSON Schema validator refused a schema.
    BadSchema,
    /// The manifest refers to a state, capability, error or rule it does not define.
    Inconsistent,
    /// A schema file the manifest lists lies outside the protocol's folder
    /// (an absolute path, a `..`, a symbolic link out of it).
    OutsideFolder,
}

impl ProtocolErrorKind {
    /// A stable machine code (`bad-reference`).
    pub fn code(self) -> &'static str {
        match self {
            ProtocolErrorKind::Io => "io",
            ProtocolErrorKind::OutsideFolder => "outside-folder",
            ProtocolErrorKind::NotJson => "not-json",
            ProtocolErrorKind::BadManifest => "bad-manifest",
            ProtocolErrorKind::NotFound => "not-found",
            ProtocolErrorKind::MissingSchemaFile => "missing-schema-file",
            ProtocolErrorKind::BadReference => "bad-reference",
            ProtocolErrorKind::DuplicateDefinition => "duplicate-definition",
            ProtocolErrorKind::BadSchema => "bad-schema",
            ProtocolErrorKind::Inconsistent => "inconsistent",
        }
    }
}

#[derive(Debug, Clone)]
struct Inner {
    kind: ProtocolErrorKind,
    file: String,
    pointer: String,
    message: String,
}

/// An error met while loading or compiling a protocol: which file, where in
/// it (a JSON pointer), and what is wrong.
#[derive(Debug, Clone)]
pub struct ProtocolError(Box<Inner>);

impl ProtocolError {
    pub(crate) fn new(
        kind: ProtocolErrorKind,
        file: impl Into<String>,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ProtocolError(Box::new(Inner {
            kind,
            file: file.into(),
            pointer: pointer.into(),
            message: message.into(),
        }))
    }

    /// What kind of error this is.
    pub fn kind(&self) -> ProtocolErrorKind {
        self.0.kind
    }

    /// The file, relative to the schemas folder (`gzkit-authoring-guide/1.0/protocol.json`).
    pub fn file(&self) -> &str {
        &self.0.file
    }

    /// Where in the file, as a JSON pointer (`""` for the whole file).
    pub fn pointer(&self) -> &str {
        &self.0.pointer
    }

    /// What is wrong, as a sentence.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.file)?;
        if !self.0.pointer.is_empty() {
            write!(f, "#{}", self.0.pointer)?;
        }
        write!(f, ": {} [{}]", self.0.message, self.0.kind.code())
    }
}

impl std::error::Error for ProtocolError {}
