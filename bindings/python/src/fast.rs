//! The two hot paths, without an intermediate `serde_json::Value`:
//!
//! * [`write_json`]: Python objects straight to compact JSON bytes, written
//!   exactly as `serde_json` writes the equal `Value` (same escaping, same
//!   number forms), member names repeated across the document encoded once;
//! * [`PySeed`]: JSON text straight to Python objects in one `serde_json`
//!   pass, member names repeated across the document shared as one `str`.
//!
//! Both give up (`None` / an error) on anything unusual; callers then take
//! the general path, which reports the problem precisely.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyString};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::check::Check;
use crate::convert::MAX_DEPTH;
use crate::raw::{self, Kind};

/// Hashes a pointer with one multiply, and short names byte by byte (FNV).
#[derive(Default)]
pub struct PointerHasher(u64);

impl Hasher for PointerHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        let mut last = [0u8; 8];
        let rest = chunks.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(last) ^ bytes.len() as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_usize(&mut self, value: usize) {
        self.0 = (value as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by object address.
pub type PointerMap<V> = HashMap<usize, V, BuildHasherDefault<PointerHasher>>;
/// A map keyed by short names.
pub type NameMap<V> = HashMap<String, V, BuildHasherDefault<PointerHasher>>;

/// Writes Python objects as compact JSON.
pub struct JsonWriter {
    /// Encoded member names (quotes included) by `str` object address, in a
    /// direct-mapped cache (a document has a few distinct names, met again
    /// and again); the objects are alive for the whole call, so an address
    /// names one string.
    names: Box<[(usize, u32, u32); SLOTS]>,
    name_bytes: Vec<u8>,
    /// The schema and required bit of a member name under a check node, by
    /// name address and node, for [`JsonWriter::write_checked`].
    members: Box<[MemberSlot; SLOTS]>,
}

const SLOTS: usize = 256;

/// (name address, node, schema, required bit); address 0 for empty.
type MemberSlot = (usize, usize, Option<usize>, Option<u32>);

impl Default for JsonWriter {
    fn default() -> Self {
        JsonWriter {
            names: Box::new([(0, 0, 0); SLOTS]),
            name_bytes: Vec::new(),
            members: Box::new([(0, 0, None, None); SLOTS]),
        }
    }
}

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

/// What a byte becomes inside a JSON string, as `serde_json` writes it:
/// 0 for itself, else the letter after the backslash (`u` for `\u00XX`).
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// How many leading bytes (a multiple of 8, or all) need no escape.
fn clean_prefix(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGH != 0;
    let mut chunks = bytes.chunks_exact(8);
    let mut clean = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        // A byte below 0x20 (high bytes of UTF-8 never are), a quote, a backslash.
        let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH != 0;
        if control
            || has_zero(word ^ (ONES * u64::from(b'"')))
            || has_zero(word ^ (ONES * u64::from(b'\\')))
        {
            return clean;
        }
        clean += 8;
    }
    if chunks
        .remainder()
        .iter()
        .all(|&byte| ESCAPE[byte as usize] == 0)
    {
        bytes.len()
    } else {
        clean
    }
}

/// Writes UTF-8 `bytes` as a JSON string. Only ASCII bytes are ever
/// escaped, so multi-byte sequences pass through whole.
/// Appends `bytes`: short slices (most names and values) are copied with
/// two overlapping word moves instead of a call to `memcpy`.
#[inline]
#[allow(unsafe_code)]
pub(crate) fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    let n = bytes.len();
    if !(8..=16).contains(&n) {
        out.extend_from_slice(bytes);
        return;
    }
    out.reserve(n);
    // SAFETY: `reserve` made room for `n` more bytes; the two 8-byte reads
    // lie within `bytes` (8 <= n <= 16), the two writes within the room,
    // and `set_len` covers exactly the bytes written.
    unsafe {
        let len = out.len();
        let dst = out.as_mut_ptr().add(len);
        let head = std::ptr::read_unaligned(bytes.as_ptr().cast::<u64>());
        let tail = std::ptr::read_unaligned(bytes.as_ptr().add(n - 8).cast::<u64>());
        std::ptr::write_unaligned(dst.cast::<u64>(), head);
        std::ptr::write_unaligned(dst.add(n - 8).cast::<u64>(), tail);
        out.set_len(len + n);
    }
}

pub(crate) fn escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // Most strings need no escape: skip clean 8-byte words at once.
    let clean = clean_prefix(bytes);
    if clean == bytes.len() {
        put(out, bytes);
        out.push(b'"');
        return;
    }
    let mut start = 0;
    for (index, &byte) in bytes.iter().enumerate().skip(clean) {
        let escape = ESCAPE[byte as usize];
        if escape == 0 {
            continue;
        }
        // In bounds: `start <= index < bytes.len()` (indexing panics on a bug
        // rather than writing a truncated string).
        out.extend_from_slice(&bytes[start..index]);
        if escape == b'u' {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(byte >> 4) as usize]);
            out.push(HEX[(byte & 0xf) as usize]);
        } else {
            out.push(b'\\');
            out.push(escape);
        }
        start = index + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
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

    #[allow(unsafe_code)]
    unsafe fn member_of(
        &mut self,
        check: &Check,
        node: usize,
        name: *mut ffi::PyObject,
    ) -> Option<(Option<usize>, Option<u32>)> {
        let address = name as usize;
        let index = slot(address, node);
        if let Some(&(cached, cached_node, schema, bit)) = self.members.get(index) {
            if cached == address && cached_node == node {
                return Some((schema, bit));
            }
        }
        let (schema, bit) = check.member(node, raw::utf8(name)?.as_bytes());
        if let Some(entry) = self.members.get_mut(index) {
            *entry = (address, node, schema, bit);
        }
        Some((schema, bit))
    }

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
                    if raw::kind(name) != Kind::Str || self.name(name, out).is_none() {
                        return Checked::NotJson;
                    }
                    out.push(b':');
                    let Some((schema, bit)) = self.member_of(check, node, name) else {
                        return Checked::NotJson;
                    };
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
            _ => plain(self, out),
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

    #[allow(unsafe_code)]
    unsafe fn name(&mut self, name: *mut ffi::PyObject, out: &mut Vec<u8>) -> Option<()> {
        let address = name as usize;
        let index = slot(address, 0);
        if let Some(&(cached, start, end)) = self.names.get(index) {
            if cached == address {
                put(out, self.name_bytes.get(start as usize..end as usize)?);
                return Some(());
            }
        }
        let text = raw::utf8(name)?;
        if self.name_bytes.len() > 1 << 16 {
            // Many distinct names: stop caching.
            escaped(out, text.as_bytes());
            return Some(());
        }
        let start = self.name_bytes.len();
        escaped(&mut self.name_bytes, text.as_bytes());
        let end = self.name_bytes.len();
        out.extend_from_slice(self.name_bytes.get(start..end)?);
        if let Some(entry) = self.names.get_mut(index) {
            *entry = (
                address,
                u32::try_from(start).ok()?,
                u32::try_from(end).ok()?,
            );
        }
        Some(())
    }

    #[allow(unsafe_code)]
    unsafe fn value(
        &mut self,
        object: *mut ffi::PyObject,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Option<()> {
        let kind = raw::kind(object);
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

/// What one parse shares: member names met so far.
///
/// The parse runs no quick check: measured, it bought about 8% on the
/// decode path (BENCHMARKS.md, "quick check"), below the 20% that would
/// keep a second validator in step with the full one there. The full
/// validator reads the built objects in place (`pyjson`).
#[derive(Default)]
pub struct SeedContext<'py> {
    names: NameMap<Bound<'py, PyString>>,
    /// Names too long to share, kept alive for the parse.
    kept: Vec<Bound<'py, PyString>>,
    /// Whether an integer beyond `i64` was built: the in-place validator
    /// reads integers as `i64` (`raw::integer`), so the caller takes the
    /// core's path then.
    big_integer: bool,
}

impl SeedContext<'_> {
    /// Whether an integer beyond `i64` was built (see the field).
    pub fn saw_big_integer(&self) -> bool {
        self.big_integer
    }
}

/// Builds Python objects while `serde_json` parses.
pub struct PySeed<'a, 'py> {
    py: Python<'py>,
    ctx: &'a mut SeedContext<'py>,
}

impl<'a, 'py> PySeed<'a, 'py> {
    /// The seed of a whole value.
    pub fn new(py: Python<'py>, ctx: &'a mut SeedContext<'py>) -> Self {
        PySeed { py, ctx }
    }
}

/// A Python error met while building, carried through serde.
fn failed<E: de::Error>(error: PyErr) -> E {
    E::custom(format!("cannot build a Python object: {error}"))
}

impl<'de, 'py> DeserializeSeed<'de> for PySeed<'_, 'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

struct NameSeed<'a, 'py> {
    py: Python<'py>,
    ctx: &'a mut SeedContext<'py>,
}

/// A member name's `str`, borrowed from the context (which holds it for the
/// whole parse), so it costs no reference counting per member.
type NamePtr = *mut ffi::PyObject;

impl<'de> DeserializeSeed<'de> for NameSeed<'_, '_> {
    type Value = NamePtr;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for NameSeed<'_, '_> {
    type Value = NamePtr;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        if let Some(found) = self.ctx.names.get(name) {
            return Ok(found.as_ptr());
        }
        if name.len() > 64 {
            let made = PyString::new(self.py, name);
            let pointer = made.as_ptr();
            self.ctx.kept.push(made);
            return Ok(pointer);
        }
        // Interned: the validator's prepared keys are interned too, so its
        // lookups in these dicts match by pointer.
        let made = PyString::intern(self.py, name);
        let pointer = made.as_ptr();
        self.ctx.names.insert(name.to_owned(), made);
        Ok(pointer)
    }
}

impl<'de, 'py> Visitor<'de> for PySeed<'_, 'py> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(PyBool::new(self.py, v).to_owned().into_any())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into_pyobject(self.py)
            .map(Bound::into_any)
            .unwrap_or_else(|never| match never {}))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        if i64::try_from(v).is_err() {
            self.ctx.big_integer = true;
        }
        Ok(v.into_pyobject(self.py)
            .map(Bound::into_any)
            .unwrap_or_else(|never| match never {}))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(PyFloat::new(self.py, v).into_any())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(PyString::new(self.py, v).into_any())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.py.None().into_bound(self.py))
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let PySeed { py, ctx } = self;
        let mut items: Vec<Bound<'py, PyAny>> = Vec::new();
        while let Some(item) = seq.next_element_seed(PySeed { py, ctx: &mut *ctx })? {
            items.push(item);
        }
        new_list(py, items).map_err(failed)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let PySeed { py, ctx } = self;
        let dict = PyDict::new(py);
        while let Some(name) = map.next_key_seed(NameSeed { py, ctx: &mut *ctx })? {
            let value = map.next_value_seed(PySeed { py, ctx: &mut *ctx })?;
            set_item(&dict, name, &value).map_err(failed)?;
        }
        Ok(dict.into_any())
    }
}

/// A list of `items`, built at its final size.
#[allow(unsafe_code)]
fn new_list<'py>(py: Python<'py>, items: Vec<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
    let size = ffi::Py_ssize_t::try_from(items.len())
        .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("list too long"))?;
    // SAFETY: the GIL is held; `PyList_New` returns a new list of `size`
    // empty slots (or null with an error set), and `PyList_SetItem` steals
    // each item's reference into its slot.
    unsafe {
        let list = Bound::from_owned_ptr_or_err(py, ffi::PyList_New(size))?;
        for (index, item) in items.into_iter().enumerate() {
            ffi::PyList_SetItem(list.as_ptr(), index as ffi::Py_ssize_t, item.into_ptr());
        }
        Ok(list)
    }
}

/// `dict[name] = value`, without pyo3's extra reference counting.
#[allow(unsafe_code)]
fn set_item(dict: &Bound<'_, PyDict>, name: NamePtr, value: &Bound<'_, PyAny>) -> PyResult<()> {
    // SAFETY: three live objects (`name` held by the parse's context), the
    // GIL held; `PyDict_SetItem` takes its own references.
    if unsafe { ffi::PyDict_SetItem(dict.as_ptr(), name, value.as_ptr()) } == 0 {
        Ok(())
    } else {
        Err(PyErr::fetch(dict.py()))
    }
}
