//! [`JsonWriter`]: Python objects straight to compact JSON bytes, written
//! exactly as `serde_json` writes the equal `Value` (same escaping, same
//! number forms), member names repeated across the document encoded once;
//! optionally checked by the quick check (`check`) on the way.

use pyo3::ffi;
use pyo3::prelude::*;
use serde_json::value::RawValue;

use super::escape::{escaped, put};
use crate::check::Check;
use crate::limits::MAX_DEPTH;
use crate::maps::new_table;
use crate::raw::{self, Kind};

/// Compact JSON text written by `JsonWriter` or `serde_json` as a `RawValue`.
#[allow(unsafe_code)]
pub(crate) fn raw_json(json: Vec<u8>) -> Box<RawValue> {
    // SAFETY: both writers produce one well-formed JSON value in valid
    // UTF-8 with no surrounding whitespace (strings come from CPython's
    // validated UTF-8 or from Rust `str`s; every control character is
    // escaped). Re-parsing 700 KB to prove it would cost what this path
    // saves.
    unsafe { RawValue::from_string_unchecked(String::from_utf8_unchecked(json)) }
}

/// Writes Python objects as compact JSON.
#[derive(Default)]
pub struct JsonWriter {
    /// Encoded member names (quotes included) by `str` object address, in a
    /// direct-mapped cache (a document has a few distinct names, met again
    /// and again); the objects are alive for the whole call, so an address
    /// names one string.
    /// Allocated once `LAZY_NAMES` names were written: a small value
    /// (a typical request's result) costs no table at all.
    names: Option<Box<[(usize, u32, u32); SLOTS]>>,
    name_bytes: Vec<u8>,
    /// The schema and required bit of a member name under a check node, by
    /// name address and node, for [`JsonWriter::write_checked`]; allocated
    /// after `LAZY_NAMES` lookups, like `names`.
    members: Option<Box<[MemberSlot; SLOTS]>>,
    /// Names written, and member lookups made, so far (up to `LAZY_NAMES`).
    names_met: usize,
    members_met: usize,
}

const SLOTS: usize = 256;

/// How many names a writer encodes (and member lookups it makes) before it
/// allocates its caches: below that, looking a name up again costs less
/// than allocating and zeroing 14 KiB of tables per call.
const LAZY_NAMES: usize = 16;

/// A table once `met` reached `LAZY_NAMES` (counting this use).
fn lazy<'a, T: Copy, const N: usize>(
    table: &'a mut Option<Box<[T; N]>>,
    met: &mut usize,
    empty: T,
) -> Option<&'a mut [T; N]> {
    if table.is_none() {
        *met += 1;
        if *met < LAZY_NAMES {
            return None;
        }
        *table = new_table(empty);
    }
    table.as_deref_mut()
}

/// A member name under a check node: (name address, node, schema,
/// required bit, the encoded name's start and end in `name_bytes`);
/// address 0 for empty. One lookup gives the checked walk both what to
/// write and how to check the value.
type MemberSlot = (usize, usize, Option<usize>, Option<u32>, u32, u32);

fn slot(address: usize, node: usize) -> usize {
    ((address >> 4) ^ node.wrapping_mul(0x9E37)) % SLOTS
}

/// What [`JsonWriter::write_checked`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Checked {
    /// Written, and the quick check accepts it.
    Accepted,
    /// The quick check cannot tell (it never refuses for good): the full
    /// validator decides.
    Unknown,
    /// Not JSON of exact builtin types (the general path says why).
    NotJson,
}

impl JsonWriter {
    /// Appends `object` as JSON and runs `check`'s quick acceptance check
    /// in the same walk. On anything but [`Checked::Accepted`] `out` holds
    /// a partial write: the caller truncates it and takes a slower path.
    pub fn write_checked(
        &mut self,
        check: &Check,
        object: &Bound<'_, PyAny>,
        out: &mut Vec<u8>,
    ) -> Checked {
        // SAFETY: as for `write`; the checks only read.
        #[allow(unsafe_code)]
        unsafe {
            self.checked(check, Some(check.root()), object.as_ptr(), out, 0)
        }
    }

    /// Writes member `name` (quoted, escaped) and returns its schema and
    /// required bit under `node`; `None` when the name has no UTF-8 form.
    ///
    /// # Safety
    ///
    /// `name` is a live `str` (a member name of a dict being walked) and the GIL is held.
    #[allow(unsafe_code)]
    unsafe fn member_of(
        &mut self,
        check: &Check,
        node: usize,
        name: *mut ffi::PyObject,
        out: &mut Vec<u8>,
    ) -> Option<(Option<usize>, Option<u32>)> {
        let address = name as usize;
        let index = slot(address, node);
        let Some(members) = lazy(
            &mut self.members,
            &mut self.members_met,
            (0, 0, None, None, 0, 0),
        ) else {
            let text = raw::utf8(name)?;
            escaped(out, text.as_bytes());
            return Some(check.member(node, text.as_bytes()));
        };
        if let Some(&(cached, cached_node, schema, bit, start, end)) = members.get(index) {
            if cached == address && cached_node == node {
                put(out, self.name_bytes.get(start as usize..end as usize)?);
                return Some((schema, bit));
            }
        }
        let text = raw::utf8(name)?;
        let (schema, bit) = check.member(node, text.as_bytes());
        if let Some((start, end)) = self.keep_name(&text, out) {
            if let Some(entry) = self
                .members
                .as_deref_mut()
                .and_then(|members| members.get_mut(index))
            {
                *entry = (address, node, schema, bit, start, end);
            }
        }
        Some((schema, bit))
    }

    /// # Safety
    ///
    /// `object` is a live Python object the caller keeps alive for the call, the GIL is
    /// held, and the walk only reads (see `raw`); `node`, when given, is a node of
    /// `check`.
    #[allow(unsafe_code)]
    unsafe fn checked(
        &mut self,
        check: &Check,
        node: Option<usize>,
        object: *mut ffi::PyObject,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Checked {
        let plain = |writer: &mut Self, out: &mut Vec<u8>| match writer.value(object, out, depth) {
            Some(()) => Checked::Accepted,
            None => Checked::NotJson,
        };
        let Some(node) = node else {
            return plain(self, out);
        };
        // `depth` counts `anyOf`-with-null steps too, so it is at least the
        // nesting: stopping here leaves the value to the general path,
        // which applies the exact bound (`MAX_DEPTH`).
        if depth >= MAX_DEPTH {
            return Checked::NotJson;
        }
        let kind = raw::kind(object);
        if kind == Kind::Other {
            return Checked::NotJson;
        }
        if let Some(inner) = check.nullable(node) {
            if kind == Kind::None {
                return plain(self, out);
            }
            return self.checked(check, Some(inner), object, out, depth + 1);
        }
        let accepted = match check.simple_accepts(node, object, kind) {
            Some(accepted) => accepted,
            None => check.node_accepts(node, object, kind, depth),
        };
        if !accepted {
            return Checked::Unknown;
        }
        match kind {
            Kind::Dict if check.has_members(node) => {
                out.push(b'{');
                let mut position = 0;
                let mut first = true;
                let mut seen = 0u64;
                while let Some((name, item)) = raw::dict_next(object, &mut position) {
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    if raw::kind(name) != Kind::Str {
                        return Checked::NotJson;
                    }
                    let Some((schema, bit)) = self.member_of(check, node, name, out) else {
                        return Checked::NotJson;
                    };
                    out.push(b':');
                    if let Some(bit) = bit {
                        seen |= 1 << bit;
                    }
                    match self.checked(check, schema, item, out, depth + 1) {
                        Checked::Accepted => {}
                        other => return other,
                    }
                }
                out.push(b'}');
                if seen == check.required(node) {
                    Checked::Accepted
                } else {
                    Checked::Unknown
                }
            }
            Kind::List | Kind::Tuple => {
                let items = check.items(node);
                out.push(b'[');
                for index in 0..raw::len(object, kind) {
                    if index > 0 {
                        out.push(b',');
                    }
                    match self.checked(check, items, raw::item(object, kind, index), out, depth + 1)
                    {
                        Checked::Accepted => {}
                        other => return other,
                    }
                }
                out.push(b']');
                Checked::Accepted
            }
            _ => match self.value_of_kind(object, kind, out, depth) {
                Some(()) => Checked::Accepted,
                None => Checked::NotJson,
            },
        }
    }

    /// Appends `object` as JSON; `None` when something in it is not JSON,
    /// or not of an exact builtin type (subclasses take the general path).
    /// Reads only: a value it accepts is safe to validate in place
    /// (see `raw`).
    pub fn write(&mut self, object: &Bound<'_, PyAny>, out: &mut Vec<u8>) -> Option<()> {
        // SAFETY: `object` is alive for the call, the GIL is held, and the
        // walk reads exact builtin types only (see `raw`).
        #[allow(unsafe_code)]
        unsafe {
            self.value(object.as_ptr(), out, 0)
        }
    }

    /// # Safety
    ///
    /// `name` is a live `str` (a member name of a dict being walked) and the GIL is held.
    #[allow(unsafe_code)]
    unsafe fn name(&mut self, name: *mut ffi::PyObject, out: &mut Vec<u8>) -> Option<()> {
        let address = name as usize;
        let index = slot(address, 0);
        let Some(names) = lazy(&mut self.names, &mut self.names_met, (0, 0, 0)) else {
            escaped(out, raw::utf8(name)?.as_bytes());
            return Some(());
        };
        if let Some(&(cached, start, end)) = names.get(index) {
            if cached == address {
                put(out, self.name_bytes.get(start as usize..end as usize)?);
                return Some(());
            }
        }
        let text = raw::utf8(name)?;
        if let Some((start, end)) = self.keep_name(&text, out) {
            if let Some(entry) = self
                .names
                .as_deref_mut()
                .and_then(|names| names.get_mut(index))
            {
                *entry = (address, start, end);
            }
        }
        Some(())
    }

    /// Writes member name `text` to `out`, escaped, and keeps its encoding
    /// in `name_bytes` for the caches: its span there, or `None` once many
    /// distinct names were kept (then it is only written).
    fn keep_name(&mut self, text: &str, out: &mut Vec<u8>) -> Option<(u32, u32)> {
        if self.name_bytes.len() > 1 << 16 {
            escaped(out, text.as_bytes());
            return None;
        }
        let start = self.name_bytes.len();
        escaped(&mut self.name_bytes, text.as_bytes());
        let end = self.name_bytes.len();
        out.extend_from_slice(self.name_bytes.get(start..end).unwrap_or_default());
        Some((u32::try_from(start).ok()?, u32::try_from(end).ok()?))
    }

    /// # Safety
    ///
    /// `object` is a live Python object the caller keeps alive for the call and the GIL
    /// is held (see `raw`); the walk only reads.
    #[allow(unsafe_code)]
    unsafe fn value(
        &mut self,
        object: *mut ffi::PyObject,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Option<()> {
        self.value_of_kind(object, raw::kind(object), out, depth)
    }

    /// [`JsonWriter::value`] of an object whose kind the caller has.
    ///
    /// # Safety
    ///
    /// As for [`JsonWriter::value`]; `kind` is `raw::kind(object)`.
    #[allow(unsafe_code)]
    #[inline]
    unsafe fn value_of_kind(
        &mut self,
        object: *mut ffi::PyObject,
        kind: Kind,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Option<()> {
        // A container at `depth` is the `depth + 1`th level (`MAX_DEPTH`).
        if matches!(kind, Kind::Dict | Kind::List | Kind::Tuple) && depth >= MAX_DEPTH {
            return None;
        }
        match kind {
            Kind::Str => escaped(out, raw::utf8(object)?.as_bytes()),
            Kind::Dict => {
                out.push(b'{');
                let mut position = 0;
                let mut first = true;
                while let Some((name, item)) = raw::dict_next(object, &mut position) {
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    if raw::kind(name) != Kind::Str {
                        return None;
                    }
                    self.name(name, out)?;
                    out.push(b':');
                    self.value(item, out, depth + 1)?;
                }
                out.push(b'}');
            }
            Kind::List | Kind::Tuple => {
                out.push(b'[');
                for index in 0..raw::len(object, kind) {
                    if index > 0 {
                        out.push(b',');
                    }
                    self.value(raw::item(object, kind, index), out, depth + 1)?;
                }
                out.push(b']');
            }
            Kind::None => out.extend_from_slice(b"null"),
            Kind::Bool => out.extend_from_slice(if object == ffi::Py_True() {
                b"true"
            } else {
                b"false"
            }),
            Kind::Int => match raw::integer(object) {
                raw::Integer::Signed(n) => {
                    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes())
                }
                // Beyond i64: the general path writes its digits.
                raw::Integer::Big => return None,
            },
            Kind::Float => {
                let n = raw::float(object);
                if !n.is_finite() {
                    return None;
                }
                // What `serde_json` writes for an f64 (`9.0` stays `9.0`).
                out.extend_from_slice(zmij::Buffer::new().format_finite(n).as_bytes());
            }
            Kind::Other => return None,
        }
        Some(())
    }
}
