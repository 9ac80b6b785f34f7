//! [`PySeed`]: JSON text straight to Python objects in one `serde_json`
//! pass, member names repeated across the document shared as one `str`.

use std::fmt;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyString};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::maps::NameMap;

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
    /// Whether the core's path must read this text instead: an integer
    /// beyond `i64` was built (the in-place validator reads integers as
    /// `i64`, `raw::integer`), or a float that may stand for `-0` or an
    /// integer beyond 64 bits, which only the core's decoder tells apart
    /// (tests/vectors README, "Numbers").
    core_path: bool,
}

impl SeedContext<'_> {
    /// Whether the core's path must read the text (see the field).
    pub fn needs_core_path(&self) -> bool {
        self.core_path
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
            self.ctx.core_path = true;
        }
        Ok(v.into_pyobject(self.py)
            .map(Bound::into_any)
            .unwrap_or_else(|never| match never {}))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        // `-0` (the integer 0) and an integer literal beyond 64 bits (refused)
        // read as these floats; the core's decoder looks at the text.
        if (v == 0.0 && v.is_sign_negative()) || (v.fract() == 0.0 && v.abs() >= 9.2e18) {
            self.ctx.core_path = true;
        }
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
