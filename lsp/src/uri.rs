//! `file://` URIs ↔ absolute paths. Decoding is strict: a bad `%` escape,
//! a remote authority, a query or fragment, bytes that are not UTF-8 and
//! NUL are refused, never passed through.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a URI does not name a local file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UriFault {
    /// Not a `file:` URI.
    NotFile,
    /// `file://host/...` with a host other than `localhost`.
    RemoteAuthority,
    /// A `?query`.
    Query,
    /// A `#fragment`.
    Fragment,
    /// A `%` not followed by two hex digits.
    BadEscape,
    /// The decoded bytes are not UTF-8.
    NotUtf8,
    /// A NUL byte (raw or `%00`).
    Nul,
    /// The path is not absolute.
    NotAbsolute,
}

impl UriFault {
    /// A stable machine code.
    pub fn code(self) -> &'static str {
        match self {
            UriFault::NotFile => "not_file",
            UriFault::RemoteAuthority => "remote_authority",
            UriFault::Query => "query",
            UriFault::Fragment => "fragment",
            UriFault::BadEscape => "bad_escape",
            UriFault::NotUtf8 => "not_utf8",
            UriFault::Nul => "nul",
            UriFault::NotAbsolute => "not_absolute",
        }
    }
}

impl fmt::Display for UriFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self {
            UriFault::NotFile => "not a file: URI",
            UriFault::RemoteAuthority => "a file on another host",
            UriFault::Query => "a file URI with a query",
            UriFault::Fragment => "a file URI with a fragment",
            UriFault::BadEscape => "a % not followed by two hex digits",
            UriFault::NotUtf8 => "decodes to bytes that are not UTF-8",
            UriFault::Nul => "contains NUL",
            UriFault::NotAbsolute => "not an absolute path",
        };
        f.write_str(why)
    }
}

impl std::error::Error for UriFault {}

/// The `file://` URI of an absolute path: every byte but the unreserved
/// ones and `/` percent-encoded.
pub fn path_to_uri(path: &Path) -> Result<String, UriFault> {
    let text = path.to_str().ok_or(UriFault::NotUtf8)?;
    if !path.is_absolute() {
        return Err(UriFault::NotAbsolute);
    }
    if text.contains('\0') {
        return Err(UriFault::Nul);
    }
    let mut uri = String::with_capacity(text.len() + 7);
    uri.push_str("file://");
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    Ok(uri)
}

/// The absolute path a `file:` URI names.
pub fn uri_to_path(uri: &str) -> Result<PathBuf, UriFault> {
    let scheme_end = uri.find(':').ok_or(UriFault::NotFile)?;
    if !uri[..scheme_end].eq_ignore_ascii_case("file") {
        return Err(UriFault::NotFile);
    }
    let rest = &uri[scheme_end + 1..];
    if rest.contains('#') {
        return Err(UriFault::Fragment);
    }
    if rest.contains('?') {
        return Err(UriFault::Query);
    }
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            let slash = after.find('/').unwrap_or(after.len());
            let authority = &after[..slash];
            if !(authority.is_empty() || authority.eq_ignore_ascii_case("localhost")) {
                return Err(UriFault::RemoteAuthority);
            }
            &after[slash..]
        }
        None => rest,
    };
    let bytes = percent_decode(path)?;
    if bytes.contains(&0) {
        return Err(UriFault::Nul);
    }
    let text = String::from_utf8(bytes).map_err(|_| UriFault::NotUtf8)?;
    if !text.starts_with('/') {
        return Err(UriFault::NotAbsolute);
    }
    Ok(PathBuf::from(text))
}

fn percent_decode(text: &str) -> Result<Vec<u8>, UriFault> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = bytes.get(index + 1..index + 3).ok_or(UriFault::BadEscape)?;
            let high = hex_digit(hex[0]).ok_or(UriFault::BadEscape)?;
            let low = hex_digit(hex[1]).ok_or(UriFault::BadEscape)?;
            out.push(high << 4 | low);
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    Ok(out)
}

fn hex_digit(byte: u8) -> Option<u8> {
    char::from(byte)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refusals() {
        let path = Path::new("/tmp/a b/ü%.py");
        let uri = path_to_uri(path).expect("absolute");
        assert_eq!(uri, "file:///tmp/a%20b/%C3%BC%25.py");
        assert_eq!(uri_to_path(&uri).expect("decodes"), path);
        assert_eq!(
            uri_to_path("file://localhost/x").expect("local"),
            Path::new("/x")
        );
        assert_eq!(uri_to_path("file:/x%2"), Err(UriFault::BadEscape));
        assert_eq!(uri_to_path("file:/x%zz"), Err(UriFault::BadEscape));
        assert_eq!(uri_to_path("file://host/x"), Err(UriFault::RemoteAuthority));
        assert_eq!(uri_to_path("file:///x?y"), Err(UriFault::Query));
        assert_eq!(uri_to_path("file:///x#y"), Err(UriFault::Fragment));
        assert_eq!(uri_to_path("file:///%FF"), Err(UriFault::NotUtf8));
        assert_eq!(uri_to_path("file:///a%00b"), Err(UriFault::Nul));
        assert_eq!(uri_to_path("untitled:x"), Err(UriFault::NotFile));
        assert_eq!(path_to_uri(Path::new("rel")), Err(UriFault::NotAbsolute));
    }
}
