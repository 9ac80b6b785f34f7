//! Subschema locations: JSON pointers into a bundled document, and the
//! `#...` references that name them.
//!
//! A reference's fragment is a JSON pointer percent-encoded as a URI
//! fragment (RFC 6901 section 6), which is how the `jsonschema` crate reads
//! it; the bundle writes its references with plain names, which read the
//! same unless a name holds a `%`.

pub(super) use crate::protocol::bundle::escape_pointer as escape_segment;

/// The pointer a local reference (`#/$defs/R`) names; `None` for a
/// reference to another document or one that is not a pointer.
pub(super) fn ref_pointer(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    if !(fragment.is_empty() || fragment.starts_with('/')) {
        return None;
    }
    percent_decode(fragment)
}

/// The local reference that names `pointer`.
pub(super) fn pointer_ref(pointer: &str) -> String {
    let mut reference = String::with_capacity(pointer.len() + 1);
    reference.push('#');
    for byte in pointer.bytes() {
        if byte.is_ascii_alphanumeric() || b"/~-._$!&'()*+,;=:@".contains(&byte) {
            reference.push(char::from(byte));
        } else {
            reference.push_str(&format!("%{byte:02X}"));
        }
    }
    reference
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_pointers_round_trip() {
        for pointer in [
            "",
            "/$defs/R",
            "/$defs/a~1b/properties/x y",
            "/$defs/%/items",
            "/$defs/é",
        ] {
            assert_eq!(ref_pointer(&pointer_ref(pointer)).as_deref(), Some(pointer));
        }
        assert_eq!(ref_pointer("#/$defs/R").as_deref(), Some("/$defs/R"));
        assert_eq!(ref_pointer("other.json#/$defs/R"), None);
        assert_eq!(ref_pointer("#anchor"), None);
        assert_eq!(ref_pointer("#/%zz"), None);
    }
}
