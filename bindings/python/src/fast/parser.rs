//! [`PySeed`]: JSON text straight to Python objects in one `serde_json`
//! pass, member names repeated across the document shared as one `str`,
//! and the quick check (`check`) run on each value as it is built.

use std::fmt;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyString};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::names::SharedNames;
use crate::check::{Check, MemberCache};
use crate::limits::MAX_DEPTH;
use crate::raw::{self, Kind};

/// Member names a parse builds before it shares (and interns) them.
const LAZY_NAMES: usize = 8;

/// What one parse shares: member names met so far, and the quick check
/// run while the objects are built.
///
/// The check answers accept or unknown (`check`), as on the writer's path:
/// a value it accepts needs no second walk; anything else (a value it
/// cannot judge, the depth bound) leaves the decision to the full
/// validator, which reads the built objects in place (`pyjson`).
pub struct SeedContext<'c, 'py> {
    /// Member names shared (interned), and names not shared (too long, or
    /// among the first `LAZY_NAMES`) kept alive for the parse.
    names: SharedNames<'py>,
    /// Names built so far without sharing (up to `LAZY_NAMES`).
    names_met: usize,
    check: Option<&'c Check>,
    /// Whether the quick check could not accept some value built (the full
    /// validator decides then); once set, the rest is not checked.
    unknown: bool,
    cache: MemberCache,
    /// Whether the core's path must read this text instead: an integer
    /// beyond `i64` was built (the in-place validator reads integers as
    /// `i64`, `raw::integer`), or a float that may stand for `-0` or an
    /// integer beyond 64 bits, which only the core's decoder tells apart
    /// (tests/vectors README, "Numbers").
    core_path: bool,
}

impl<'c> SeedContext<'c, '_> {
    /// A context checking what it builds against `check`, if any.
    pub fn new(check: Option<&'c Check>) -> Self {
        SeedContext {
            names: SharedNames::default(),
            names_met: 0,
            check,
            unknown: false,
            cache: MemberCache::new(),
            core_path: false,
        }
    }

    /// Whether the quick check accepted everything built (false when there
    /// was no check).
    pub fn accepted(&self) -> bool {
        self.check.is_some() && !self.unknown
    }

    /// Whether the core's path must read the text (see the field).
    pub fn needs_core_path(&self) -> bool {
        self.core_path
    }
}

/// Builds Python objects while `serde_json` parses, checking each against
/// the quick check's node for its place.
pub struct PySeed<'a, 'c, 'py> {
    py: Python<'py>,
    ctx: &'a mut SeedContext<'c, 'py>,
    node: Option<usize>,
    depth: usize,
}

impl<'a, 'c, 'py> PySeed<'a, 'c, 'py> {
    /// The seed of a whole value (the check's root node).
    pub fn new(py: Python<'py>, ctx: &'a mut SeedContext<'c, 'py>) -> Self {
        let node = ctx.check.map(Check::root);
        PySeed {
            py,
            ctx,
            node,
            depth: 0,
        }
    }
}

/// A Python error met while building, carried through serde.
fn failed<E: de::Error>(error: PyErr) -> E {
    E::custom(format!("cannot build a Python object: {error}"))
}

impl<'de, 'py> DeserializeSeed<'de> for PySeed<'_, '_, 'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        let PySeed {
            py,
            ctx,
            node,
            depth,
        } = self;
        let check = ctx.check;
        // The depth bound the writer's walk keeps: deeper, the full
        // validator decides.
        if node.is_some() && !ctx.unknown && depth >= MAX_DEPTH {
            ctx.unknown = true;
        }
        let mut node = node.filter(|_| !ctx.unknown);
        let mut nullable = false;
        if let (Some(id), Some(check)) = (node, check) {
            if let Some(inner) = check.nullable(id) {
                node = Some(inner);
                nullable = true;
            }
        }
        let value = deserializer.deserialize_any(Build {
            py,
            ctx: &mut *ctx,
            node,
            depth,
        })?;
        if let (Some(id), Some(check)) = (node, check) {
            if !ctx.unknown {
                let object = value.as_ptr();
                // SAFETY: a live object just built here, of exact builtin
                // JSON types, the GIL held (`raw`, `Check::node_accepts`).
                #[allow(unsafe_code)]
                let accepted = unsafe {
                    let kind = raw::kind(object);
                    (nullable && kind == Kind::None)
                        || check
                            .simple_accepts(id, object, kind)
                            .unwrap_or_else(|| check.node_accepts(id, object, kind, depth))
                };
                if !accepted {
                    ctx.unknown = true;
                }
            }
        }
        Ok(value)
    }
}

/// The visitor behind [`PySeed`]: builds one value; its members and items
/// get the check's nodes for their places.
struct Build<'a, 'c, 'py> {
    py: Python<'py>,
    ctx: &'a mut SeedContext<'c, 'py>,
    node: Option<usize>,
    depth: usize,
}

struct NameSeed<'a, 'c, 'py> {
    py: Python<'py>,
    ctx: &'a mut SeedContext<'c, 'py>,
}

/// A member name's `str`, borrowed from the context (which holds it for the
/// whole parse), so it costs no reference counting per member.
type NamePtr = *mut ffi::PyObject;

impl<'de> DeserializeSeed<'de> for NameSeed<'_, '_, '_> {
    type Value = NamePtr;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for NameSeed<'_, '_, '_> {
    type Value = NamePtr;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        if let Some(found) = self.ctx.names.get(name) {
            return Ok(found);
        }
        // Too long to share, or among the first few of a parse (a request's
        // params: sharing them would cost more than it saves).
        if name.len() > 64 || self.ctx.names_met < LAZY_NAMES {
            self.ctx.names_met += 1;
            return Ok(self.ctx.names.keep(PyString::new(self.py, name)));
        }
        // Interned: the validator's prepared keys are interned too, so its
        // lookups in these dicts match by pointer.
        Ok(self.ctx.names.insert(name, PyString::intern(self.py, name)))
    }
}

impl<'de, 'py> Visitor<'de> for Build<'_, '_, 'py> {
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
        let Build {
            py,
            ctx,
            node,
            depth,
        } = self;
        deeper(depth)?;
        let items_node = match (node, ctx.check) {
            (Some(id), Some(check)) => check.items(id),
            _ => None,
        };
        let mut items: Vec<Bound<'py, PyAny>> = Vec::new();
        while let Some(item) = seq.next_element_seed(PySeed {
            py,
            ctx: &mut *ctx,
            node: items_node,
            depth: depth + 1,
        })? {
            items.push(item);
        }
        new_list(py, items).map_err(failed)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Build {
            py,
            ctx,
            node,
            depth,
        } = self;
        deeper(depth)?;
        let dict = PyDict::new(py);
        let check = ctx.check;
        let node = match (node, check) {
            (Some(id), Some(check)) if check.has_members(id) => Some(id),
            _ => None,
        };
        let mut seen = 0u64;
        while let Some(name) = map.next_key_seed(NameSeed { py, ctx: &mut *ctx })? {
            let mut schema = None;
            if let (Some(id), Some(check), false) = (node, check, ctx.unknown) {
                // The name is held by the context for the whole parse, so
                // its address names one string (`MemberCache`).
                let address = name as usize;
                let (found, bit) = match ctx.cache.get(address, id) {
                    Some(found) => found,
                    None => {
                        // SAFETY: a live `str` the context holds, the GIL held.
                        #[allow(unsafe_code)]
                        let text = unsafe { raw::utf8(name) };
                        let found = match text {
                            Some(text) => check.member(id, text.as_bytes()),
                            None => (None, None),
                        };
                        ctx.cache.put(address, id, found);
                        found
                    }
                };
                if let Some(bit) = bit {
                    seen |= 1 << bit;
                }
                schema = found;
            }
            let value = map.next_value_seed(PySeed {
                py,
                ctx: &mut *ctx,
                node: schema,
                depth: depth + 1,
            })?;
            set_item(&dict, name, &value).map_err(failed)?;
        }
        if let (Some(id), Some(check)) = (node, check) {
            if seen != check.required(id) {
                ctx.unknown = true;
            }
        }
        Ok(dict.into_any())
    }
}

/// Refuses a container at `depth` (0 for the value itself) that would nest
/// the value deeper than `MAX_DEPTH`: the parse gives up and the core's
/// path, whose decoder holds the exact bound, reads the text. The fast
/// path reads no deeper value than the core does, whatever the tokenizer's
/// own recursion limit (sonic-rs, evaluated for issue 28, allows 255).
fn deeper<E: de::Error>(depth: usize) -> Result<(), E> {
    if depth >= MAX_DEPTH {
        Err(E::custom("nested deeper than the bound"))
    } else {
        Ok(())
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
