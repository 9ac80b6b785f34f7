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

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::convert::MAX_DEPTH;

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
#[derive(Default)]
pub struct JsonWriter {
    /// Encoded member names (quotes included) by `str` object address; the
    /// objects are alive for the whole call, so an address names one string.
    names: PointerMap<(u32, u32)>,
    name_bytes: Vec<u8>,
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

/// Writes UTF-8 `bytes` as a JSON string. Only ASCII bytes are ever
/// escaped, so multi-byte sequences pass through whole.
fn escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    for (index, &byte) in bytes.iter().enumerate() {
        let escape = ESCAPE[byte as usize];
        if escape == 0 {
            continue;
        }
        out.extend_from_slice(bytes.get(start..index).unwrap_or_default());
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
    out.extend_from_slice(bytes.get(start..).unwrap_or_default());
    out.push(b'"');
}

/// CPython encodes a `str` to valid UTF-8 (or fails, for lone surrogates).
fn utf8_of(text: &Bound<'_, PyString>, out: &mut Vec<u8>) -> Option<()> {
    let bytes = text.encode_utf8().ok()?;
    escaped(out, bytes.as_bytes());
    Some(())
}

impl JsonWriter {
    /// Appends `object` as JSON; `None` when something in it is not JSON.
    pub fn write(&mut self, object: &Bound<'_, PyAny>, out: &mut Vec<u8>) -> Option<()> {
        self.value(object, out, 0)
    }

    fn name(&mut self, name: &Bound<'_, PyString>, out: &mut Vec<u8>) -> Option<()> {
        let address = name.as_ptr() as usize;
        if let Some(&(start, end)) = self.names.get(&address) {
            out.extend_from_slice(self.name_bytes.get(start as usize..end as usize)?);
            return Some(());
        }
        let start = self.name_bytes.len();
        utf8_of(name, &mut self.name_bytes)?;
        let end = self.name_bytes.len();
        out.extend_from_slice(self.name_bytes.get(start..end)?);
        self.names.insert(
            address,
            (u32::try_from(start).ok()?, u32::try_from(end).ok()?),
        );
        Some(())
    }

    fn value(&mut self, object: &Bound<'_, PyAny>, out: &mut Vec<u8>, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        if let Ok(text) = object.cast_exact::<PyString>() {
            return utf8_of(text, out);
        }
        if let Ok(dict) = object.cast::<PyDict>() {
            out.push(b'{');
            let mut first = true;
            for (name, item) in dict.iter() {
                if !first {
                    out.push(b',');
                }
                first = false;
                self.name(name.cast::<PyString>().ok()?, out)?;
                out.push(b':');
                self.value(&item, out, depth + 1)?;
            }
            out.push(b'}');
            return Some(());
        }
        if let Ok(list) = object.cast::<PyList>() {
            out.push(b'[');
            for (index, item) in list.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                self.value(&item, out, depth + 1)?;
            }
            out.push(b']');
            return Some(());
        }
        if object.is_none() {
            out.extend_from_slice(b"null");
            return Some(());
        }
        if let Ok(flag) = object.cast::<PyBool>() {
            out.extend_from_slice(if flag.is_true() { b"true" } else { b"false" });
            return Some(());
        }
        if let Ok(integer) = object.cast::<PyInt>() {
            if let Ok(n) = integer.extract::<i64>() {
                return serde_json::to_writer(&mut *out, &n).ok();
            }
            let n = integer.extract::<u64>().ok()?;
            return serde_json::to_writer(&mut *out, &n).ok();
        }
        if let Ok(float) = object.cast::<PyFloat>() {
            let n = float.value();
            if !n.is_finite() {
                return None;
            }
            return serde_json::to_writer(&mut *out, &n).ok();
        }
        if let Ok(text) = object.cast::<PyString>() {
            return utf8_of(text, out);
        }
        if let Ok(tuple) = object.cast::<PyTuple>() {
            out.push(b'[');
            for (index, item) in tuple.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                self.value(&item, out, depth + 1)?;
            }
            out.push(b']');
            return Some(());
        }
        None
    }
}

/// Builds Python objects while `serde_json` parses.
pub struct PySeed<'a, 'py> {
    py: Python<'py>,
    names: &'a mut NameMap<Bound<'py, PyString>>,
}

impl<'a, 'py> PySeed<'a, 'py> {
    /// A seed sharing `names` (member names met so far).
    pub fn new(py: Python<'py>, names: &'a mut NameMap<Bound<'py, PyString>>) -> Self {
        PySeed { py, names }
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
    names: &'a mut NameMap<Bound<'py, PyString>>,
}

impl<'de, 'py> DeserializeSeed<'de> for NameSeed<'_, 'py> {
    type Value = Bound<'py, PyString>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, 'py> Visitor<'de> for NameSeed<'_, 'py> {
    type Value = Bound<'py, PyString>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        if let Some(found) = self.names.get(name) {
            return Ok(found.clone());
        }
        let made = PyString::new(self.py, name);
        if name.len() <= 64 {
            self.names.insert(name.to_owned(), made.clone());
        }
        Ok(made)
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
        let list = PyList::empty(self.py);
        let (py, names) = (self.py, self.names);
        while let Some(item) = seq.next_element_seed(PySeed {
            py,
            names: &mut *names,
        })? {
            list.append(item).map_err(failed)?;
        }
        Ok(list.into_any())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let dict = PyDict::new(self.py);
        let (py, names) = (self.py, self.names);
        while let Some(name) = map.next_key_seed(NameSeed {
            py,
            names: &mut *names,
        })? {
            let value = map.next_value_seed(PySeed {
                py,
                names: &mut *names,
            })?;
            dict.set_item(name, value).map_err(failed)?;
        }
        Ok(dict.into_any())
    }
}
