//! Walking Python objects against the compiled check: borrowed pointers
//! (`raw`), accept or unknown, never a final refusal.

use pyo3::ffi;

use super::*;
use crate::limits::MAX_DEPTH;
use crate::raw::{self, Kind};

impl Check {
    /// Whether node `id` accepts a value of `kind` when its only check of
    /// the value itself is `type` (`None` when it has more to check).
    ///
    /// # Safety
    ///
    /// As for [`Check::node_accepts`].
    #[inline]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn simple_accepts(
        &self,
        id: usize,
        object: *mut ffi::PyObject,
        kind: Kind,
    ) -> Option<bool> {
        let node = self.nodes.get(id).filter(|node| node.simple)?;
        let types = node.types;
        Some(match kind {
            Kind::None => types & NULL != 0,
            Kind::Bool => types & BOOLEAN != 0,
            Kind::Str => types & STRING != 0,
            Kind::Dict => types & OBJECT != 0,
            Kind::List | Kind::Tuple => types & ARRAY != 0,
            Kind::Int => types & INTEGER != 0,
            Kind::Float => {
                types & NUMBER != 0 || {
                    let value = raw::float(object);
                    types & INTEGER != 0 && value.is_finite() && value.fract() == 0.0
                }
            }
            Kind::Other => false,
        })
    }

    /// Node `id`'s own checks of a value of `kind` (type, string and
    /// number constraints, sizes, compositions), not its members or items.
    ///
    /// # Safety
    ///
    /// As for [`Check::accepts`].
    #[allow(unsafe_code)]
    pub(crate) unsafe fn node_accepts(
        &self,
        id: usize,
        object: *mut ffi::PyObject,
        kind: Kind,
        depth: usize,
    ) -> bool {
        let Some(node) = self.nodes.get(id) else {
            return false;
        };
        if let Some(constant) = node.constant {
            return constant;
        }
        let accepted = match kind {
            Kind::None => node.types & NULL != 0,
            Kind::Bool => node.types & BOOLEAN != 0,
            Kind::Str => node.types & STRING != 0 && self.string(node, object),
            Kind::Int | Kind::Float => self.number(node, object, kind),
            Kind::Dict => {
                let size = raw::len(object, Kind::Dict);
                node.types & OBJECT != 0
                    && !(node.min_properties.is_some_and(|min| size < min)
                        || node.max_properties.is_some_and(|max| size > max))
            }
            Kind::List | Kind::Tuple => {
                let size = raw::len(object, kind);
                node.types & ARRAY != 0
                    && !(node.min_items.is_some_and(|min| size < min)
                        || node.max_items.is_some_and(|max| size > max))
            }
            Kind::Other => false,
        };
        accepted && self.compositions(node, object, kind, depth, None)
    }

    /// # Safety
    ///
    /// As for [`Check::accepts`]: `object` is live for the call, made of exact builtin
    /// JSON types (written or parsed, see `raw`), and the GIL is held.
    #[allow(unsafe_code)]
    unsafe fn check(
        &self,
        id: usize,
        object: *mut ffi::PyObject,
        depth: usize,
        cache: &mut MemberCache,
    ) -> bool {
        let Some(node) = self.nodes.get(id) else {
            return false;
        };
        if depth > MAX_DEPTH {
            return false;
        }
        if let Some(constant) = node.constant {
            return constant;
        }
        let kind = raw::kind(object);
        if let Some(inner) = node.nullable {
            return kind == Kind::None || self.check(inner, object, depth + 1, cache);
        }
        let accepted = match kind {
            Kind::None => node.types & NULL != 0,
            Kind::Bool => node.types & BOOLEAN != 0,
            Kind::Str => node.types & STRING != 0 && self.string(node, object),
            Kind::Int | Kind::Float => self.number(node, object, kind),
            Kind::Dict => node.types & OBJECT != 0 && self.object(node, object, depth, cache),
            Kind::List | Kind::Tuple => {
                node.types & ARRAY != 0 && self.array(node, object, kind, depth, cache)
            }
            Kind::Other => false,
        };
        accepted && self.compositions(node, object, kind, depth, Some(cache))
    }

    /// # Safety
    ///
    /// As for [`Check::accepts`]; `kind` is `object`'s kind (`raw::kind`).
    #[allow(unsafe_code)]
    unsafe fn compositions(
        &self,
        node: &Node,
        object: *mut ffi::PyObject,
        kind: Kind,
        depth: usize,
        cache: Option<&mut MemberCache>,
    ) -> bool {
        if !node.composite {
            return true;
        }
        if node.strings.is_some() && kind != Kind::Str {
            return false;
        }
        if node.all_of.is_empty() && node.any_of.is_empty() {
            return true;
        }
        let mut own;
        let cache = match cache {
            Some(cache) => cache,
            None => {
                own = MemberCache::new();
                &mut own
            }
        };
        if node.strings.is_some() && kind != Kind::Str {
            return false;
        }
        if !node
            .all_of
            .iter()
            .all(|&sub| self.check(sub, object, depth + 1, cache))
        {
            return false;
        }
        if !node.any_of.is_empty()
            && !node
                .any_of
                .iter()
                .any(|&sub| self.check(sub, object, depth + 1, cache))
        {
            return false;
        }
        true
    }

    /// # Safety
    ///
    /// As for [`Check::accepts`]; `object` is a `str`.
    #[allow(unsafe_code)]
    unsafe fn string(&self, node: &Node, object: *mut ffi::PyObject) -> bool {
        if node.strings.is_none() && node.min_length.is_none() && node.max_length.is_none() {
            return true;
        }
        let Some(text) = raw::utf8(object) else {
            return false;
        };
        if let Some(strings) = &node.strings {
            if !strings.iter().any(|s| **s == *text.as_bytes()) {
                return false;
            }
        }
        if node.min_length.is_some() || node.max_length.is_some() {
            let length = text.chars().count();
            if node.min_length.is_some_and(|min| length < min)
                || node.max_length.is_some_and(|max| length > max)
            {
                return false;
            }
        }
        true
    }

    /// # Safety
    ///
    /// As for [`Check::accepts`]; `object` is an `int` or a `float`, as `kind` says.
    #[allow(unsafe_code)]
    unsafe fn number(&self, node: &Node, object: *mut ffi::PyObject, kind: Kind) -> bool {
        let value = if kind == Kind::Int {
            if node.types & INTEGER == 0 {
                return false;
            }
            if !node.has_number_bounds() {
                return true;
            }
            match raw::integer(object) {
                raw::Integer::Signed(n) if n.unsigned_abs() <= 1 << 53 => n as f64,
                _ => return false,
            }
        } else {
            let value = raw::float(object);
            if !value.is_finite() {
                return false;
            }
            let integral = value.fract() == 0.0;
            if node.types & NUMBER == 0 && !(node.types & INTEGER != 0 && integral) {
                return false;
            }
            value
        };
        !(node.minimum.is_some_and(|min| value < min)
            || node.maximum.is_some_and(|max| value > max)
            || node.exclusive_minimum.is_some_and(|min| value <= min)
            || node.exclusive_maximum.is_some_and(|max| value >= max))
    }

    /// # Safety
    ///
    /// As for [`Check::accepts`]; `object` is an exact `dict`.
    #[allow(unsafe_code)]
    unsafe fn object(
        &self,
        node: &Node,
        object: *mut ffi::PyObject,
        depth: usize,
        cache: &mut MemberCache,
    ) -> bool {
        let size = raw::len(object, Kind::Dict);
        if node.min_properties.is_some_and(|min| size < min)
            || node.max_properties.is_some_and(|max| size > max)
        {
            return false;
        }
        if node.members.is_empty() && node.additional.is_none() {
            return true;
        }
        let mut seen = 0u64;
        let mut position = 0;
        while let Some((key, value)) = raw::dict_next(object, &mut position) {
            if raw::kind(key) != Kind::Str {
                return false;
            }
            let tag = std::ptr::from_ref(node) as usize;
            let (schema, bit) = match cache.get(key as usize, tag) {
                Some(found) => found,
                None => {
                    let Some(name) = raw::utf8(key) else {
                        return false;
                    };
                    let name = name.as_bytes();
                    let found = match node.members.iter().find(|m| *m.name == *name) {
                        Some(member) => (member.schema.or(node.additional), member.required),
                        None => (node.additional, None),
                    };
                    cache.put(key as usize, tag, found);
                    found
                }
            };
            if let Some(bit) = bit {
                seen |= 1 << bit;
            }
            if let Some(schema) = schema {
                if !self.check(schema, value, depth + 1, cache) {
                    return false;
                }
            }
        }
        seen == node.required_all
    }

    /// # Safety
    ///
    /// As for [`Check::accepts`]; `object` is an exact `list` or `tuple`, as `kind` says.
    #[allow(unsafe_code)]
    unsafe fn array(
        &self,
        node: &Node,
        object: *mut ffi::PyObject,
        kind: Kind,
        depth: usize,
        cache: &mut MemberCache,
    ) -> bool {
        let size = raw::len(object, kind);
        if node.min_items.is_some_and(|min| size < min)
            || node.max_items.is_some_and(|max| size > max)
        {
            return false;
        }
        let Some(items) = node.items else {
            return true;
        };
        (0..size).all(|index| self.check(items, raw::item(object, kind, index), depth + 1, cache))
    }
}
