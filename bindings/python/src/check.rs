//! A quick acceptance check of Python objects against the common subset of
//! Draft 2020-12, compiled from a method's schema, walking borrowed
//! pointers (`raw`) with no allocation and no per-node dispatch through
//! the `jsonschema` crate's generic machinery.
//!
//! It answers *accept* or *unknown*, never a final refusal: a schema using
//! anything outside the subset does not compile ([`Check::compile`] gives
//! `None`), and a value it does not accept goes on to the `jsonschema`
//! validator (in place, then the core's general path), which decides and
//! reports. So the subset is implemented to accept a value only when Draft
//! 2020-12 (as the `jsonschema` crate reads it) accepts it, and is stricter
//! wherever that was simpler (ints beyond 2^53 against numeric bounds,
//! non-string `enum`/`const`, ...).
//!
//! Soundness rests on every answer being monotone: a node accepts when its
//! own checks pass and all (`allOf`, members, items) or one (`anyOf`) of its
//! subschemas accept. An "unknown" from a subschema (a value it cannot
//! judge, or the depth bound) can then only make the whole answer
//! "unknown". `oneOf` and `not` are left out of the subset for that reason:
//! accepting them needs a subschema's *refusal* to be final ("exactly one
//! branch", "the inner schema refuses"), and an "unknown" taken as a
//! refusal once made two overlapping `oneOf` branches count as one
//! (issue 15). Measured (BENCHMARKS.md, "quick check"), the check buys
//! about 40% on the writer's path.
//!
//! The subset: boolean schemas; `type`; `properties`, `required`,
//! `additionalProperties`, `minProperties`, `maxProperties`; `items` (with
//! no `prefixItems`), `minItems`, `maxItems`; `minLength`, `maxLength`;
//! `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`; string
//! `enum` and `const`; `allOf`, `anyOf`; `$ref` to
//! `#/$defs/<name>`; annotations (`title`, `description`, `default`,
//! `examples`, `$comment`, `deprecated`, `readOnly`, `writeOnly`, `x-*`).

use std::collections::HashMap;

use pyo3::ffi;
use serde_json::{Map, Value};

use crate::convert::MAX_DEPTH;
use crate::raw::{self, Kind};

const NULL: u8 = 1;
const BOOLEAN: u8 = 2;
const OBJECT: u8 = 4;
const ARRAY: u8 = 8;
const NUMBER: u8 = 16;
const INTEGER: u8 = 32;
const STRING: u8 = 64;
const ANY: u8 = 127;

/// One member name an object schema knows.
struct Member {
    name: Box<[u8]>,
    /// Its `properties` subschema.
    schema: Option<usize>,
    /// Its bit among the required members.
    required: Option<u32>,
}

#[derive(Default)]
struct Node {
    /// `Some(false)` for the `false` schema.
    constant: Option<bool>,
    types: u8,
    members: Vec<Member>,
    /// A bit per required member.
    required_all: u64,
    additional: Option<usize>,
    min_properties: Option<usize>,
    max_properties: Option<usize>,
    items: Option<usize>,
    min_items: Option<usize>,
    max_items: Option<usize>,
    min_length: Option<usize>,
    max_length: Option<usize>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    exclusive_minimum: Option<f64>,
    exclusive_maximum: Option<f64>,
    strings: Option<Vec<Box<[u8]>>>,
    all_of: Vec<usize>,
    any_of: Vec<usize>,
    /// Set once compiled: whether it has `allOf`, `anyOf`, `oneOf`, `not`
    /// or string values to check (`compositions`).
    composite: bool,
    /// `anyOf: [X, {"type": "null"}]` and nothing else: `None`, or X.
    nullable: Option<usize>,
    /// Set once compiled: whether `type` is its only check of the value
    /// itself (members and items aside).
    simple: bool,
}

impl Node {
    fn has_number_bounds(&self) -> bool {
        self.minimum.is_some()
            || self.maximum.is_some()
            || self.exclusive_minimum.is_some()
            || self.exclusive_maximum.is_some()
    }
}

/// Member lookups of one walk: (name address, node) to (schema, required
/// bit), direct-mapped. The names are alive for the walk, so an address
/// names one string.
pub(crate) struct MemberCache {
    slots: Box<[CacheSlot; 128]>,
}

/// (name address, node tag, schema, required bit); address 0 when empty.
type CacheSlot = (usize, usize, Option<usize>, Option<u32>);

impl MemberCache {
    pub(crate) fn new() -> Self {
        MemberCache {
            slots: Box::new([(0, 0, None, None); 128]),
        }
    }

    fn index(address: usize, tag: usize) -> usize {
        ((address >> 4) ^ (tag >> 3)) % 128
    }

    pub(crate) fn get(&self, address: usize, tag: usize) -> Option<(Option<usize>, Option<u32>)> {
        let &(a, t, schema, bit) = self.slots.get(Self::index(address, tag))?;
        (a == address && t == tag).then_some((schema, bit))
    }

    pub(crate) fn put(&mut self, address: usize, tag: usize, found: (Option<usize>, Option<u32>)) {
        if let Some(slot) = self.slots.get_mut(Self::index(address, tag)) {
            *slot = (address, tag, found.0, found.1);
        }
    }
}

/// A compiled acceptance check for one schema.
pub struct Check {
    nodes: Vec<Node>,
}

struct Compiler<'a> {
    defs: &'a Map<String, Value>,
    nodes: Vec<Node>,
    by_def: HashMap<String, usize>,
}

fn count(value: &Value) -> Option<usize> {
    value.as_u64().and_then(|n| usize::try_from(n).ok())
}

/// A numeric bound, exact as an f64.
fn bound(value: &Value) -> Option<f64> {
    if let Some(n) = value.as_i64() {
        return (n.unsigned_abs() <= 1 << 53).then_some(n as f64);
    }
    if value.is_u64() {
        return None;
    }
    value.as_f64().filter(|n| n.is_finite())
}

fn strings(values: &[Value]) -> Option<Vec<Box<[u8]>>> {
    values
        .iter()
        .map(|value| value.as_str().map(|s| s.as_bytes().into()))
        .collect()
}

impl Compiler<'_> {
    fn reference(&mut self, reference: &str) -> Option<usize> {
        let name = reference.strip_prefix("#/$defs/")?;
        if name.contains(['/', '~', '%']) {
            return None;
        }
        if let Some(&id) = self.by_def.get(name) {
            return Some(id);
        }
        let schema = self.defs.get(name)?;
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.by_def.insert(name.to_owned(), id);
        let node = self.node(schema)?;
        *self.nodes.get_mut(id)? = node;
        Some(id)
    }

    fn add(&mut self, schema: &Value) -> Option<usize> {
        let node = self.node(schema)?;
        self.nodes.push(node);
        Some(self.nodes.len() - 1)
    }

    fn list(&mut self, schemas: &Value) -> Option<Vec<usize>> {
        let schemas = schemas.as_array().filter(|list| !list.is_empty())?;
        schemas.iter().map(|schema| self.add(schema)).collect()
    }

    fn node(&mut self, schema: &Value) -> Option<Node> {
        let mut node = Node {
            types: ANY,
            ..Node::default()
        };
        let object = match schema {
            Value::Bool(flag) => {
                node.constant = Some(*flag);
                return Some(node);
            }
            Value::Object(object) => object,
            _ => return None,
        };
        let mut properties: Option<&Map<String, Value>> = None;
        let mut required: Vec<&str> = Vec::new();
        for (keyword, value) in object {
            match keyword.as_str() {
                "title" | "description" | "default" | "examples" | "$comment" | "deprecated"
                | "readOnly" | "writeOnly" => {}
                other if other.starts_with("x-") => {}
                "type" => {
                    let names: Vec<&str> = match value {
                        Value::String(name) => vec![name.as_str()],
                        Value::Array(names) => {
                            names.iter().map(Value::as_str).collect::<Option<_>>()?
                        }
                        _ => return None,
                    };
                    node.types = 0;
                    for name in names {
                        node.types |= match name {
                            "null" => NULL,
                            "boolean" => BOOLEAN,
                            "object" => OBJECT,
                            "array" => ARRAY,
                            "number" => NUMBER | INTEGER,
                            "integer" => INTEGER,
                            "string" => STRING,
                            _ => return None,
                        };
                    }
                }
                "properties" => properties = Some(value.as_object()?),
                "required" => {
                    required = value
                        .as_array()?
                        .iter()
                        .map(Value::as_str)
                        .collect::<Option<_>>()?;
                }
                "additionalProperties" => node.additional = Some(self.add(value)?),
                "minProperties" => node.min_properties = Some(count(value)?),
                "maxProperties" => node.max_properties = Some(count(value)?),
                "items" => node.items = Some(self.add(value)?),
                "minItems" => node.min_items = Some(count(value)?),
                "maxItems" => node.max_items = Some(count(value)?),
                "minLength" => node.min_length = Some(count(value)?),
                "maxLength" => node.max_length = Some(count(value)?),
                "minimum" => node.minimum = Some(bound(value)?),
                "maximum" => node.maximum = Some(bound(value)?),
                "exclusiveMinimum" => node.exclusive_minimum = Some(bound(value)?),
                "exclusiveMaximum" => node.exclusive_maximum = Some(bound(value)?),
                "enum" => node.strings = Some(strings(value.as_array()?)?),
                "const" => node.strings = Some(vec![value.as_str()?.as_bytes().into()]),
                "allOf" => node.all_of = self.list(value)?,
                "anyOf" => node.any_of = self.list(value)?,
                // Not monotone: see the module docs.
                "oneOf" | "not" => return None,
                "$ref" => node.all_of.push(self.reference(value.as_str()?)?),
                _ => return None,
            }
        }
        if required.len() > 64
            || (node.strings.is_some()
                && object.contains_key("const")
                && object.contains_key("enum"))
        {
            return None;
        }
        if let Some(properties) = properties {
            for (name, schema) in properties {
                let schema = self.add(schema)?;
                node.members.push(Member {
                    name: name.as_bytes().into(),
                    schema: Some(schema),
                    required: None,
                });
            }
        }
        for (bit, name) in required.iter().enumerate() {
            let bit = u32::try_from(bit).ok()?;
            if node
                .members
                .iter()
                .any(|m| m.required.is_some() && &*m.name == name.as_bytes())
            {
                continue; // a repeated name
            }
            match node
                .members
                .iter_mut()
                .find(|m| &*m.name == name.as_bytes())
            {
                Some(member) => member.required = Some(bit),
                None => node.members.push(Member {
                    name: name.as_bytes().into(),
                    schema: None,
                    required: Some(bit),
                }),
            }
            node.required_all |= 1 << bit;
        }
        Some(node)
    }
}

impl Check {
    /// Compiles the check of `#/$defs/<name>` (`reference`) in `defs`;
    /// `None` when the schema leaves the subset.
    pub fn compile(defs: &Value, reference: &str) -> Option<Check> {
        let defs = defs.as_object()?;
        let mut compiler = Compiler {
            defs,
            nodes: Vec::new(),
            by_def: HashMap::new(),
        };
        let root = compiler.reference(reference)?;
        // The root first: nodes are checked from index 0.
        if root != 0 {
            return None;
        }
        let mut check = Check {
            nodes: compiler.nodes,
        };
        check.skip_aliases();
        check.settle();
        Some(check)
    }

    /// A node that only `$ref`s another (most properties naming a type).
    fn alias(&self, id: usize) -> Option<usize> {
        let node = self.nodes.get(id)?;
        let bare = node.constant.is_none()
            && node.types == ANY
            && node.members.is_empty()
            && node.additional.is_none()
            && node.min_properties.is_none()
            && node.max_properties.is_none()
            && node.items.is_none()
            && node.min_items.is_none()
            && node.max_items.is_none()
            && node.min_length.is_none()
            && node.max_length.is_none()
            && !node.has_number_bounds()
            && node.strings.is_none()
            && node.any_of.is_empty()
            && node.all_of.len() == 1;
        bare.then(|| node.all_of.first().copied()).flatten()
    }

    fn target(&self, mut id: usize) -> usize {
        for _ in 0..self.nodes.len() {
            match self.alias(id) {
                Some(next) if next != id => id = next,
                _ => break,
            }
        }
        id
    }

    /// Points every reference past alias nodes, so the walks skip them.
    fn skip_aliases(&mut self) {
        for index in 0..self.nodes.len() {
            let node = &self.nodes[index];
            let members: Vec<Option<usize>> = node
                .members
                .iter()
                .map(|m| m.schema.map(|id| self.target(id)))
                .collect();
            let additional = node.additional.map(|id| self.target(id));
            let items = node.items.map(|id| self.target(id));
            let node = &mut self.nodes[index];
            for (member, schema) in node.members.iter_mut().zip(members) {
                member.schema = schema;
            }
            node.additional = additional;
            node.items = items;
        }
    }

    /// Whether node `id` is exactly `{"type": "null"}`.
    fn null_only(&self, id: usize) -> bool {
        self.nodes.get(id).is_some_and(|node| {
            node.types == NULL
                && node.constant.is_none()
                && node.members.is_empty()
                && node.additional.is_none()
                && node.strings.is_none()
                && node.all_of.is_empty()
                && node.any_of.is_empty()
        })
    }

    /// Sets the flags the walks branch on.
    fn settle(&mut self) {
        for index in 0..self.nodes.len() {
            let node = &self.nodes[index];
            let mut nullable = None;
            if let [first, second] = node.any_of[..] {
                let alone = node.types == ANY
                    && node.constant.is_none()
                    && node.members.is_empty()
                    && node.additional.is_none()
                    && node.min_properties.is_none()
                    && node.max_properties.is_none()
                    && node.items.is_none()
                    && node.min_items.is_none()
                    && node.max_items.is_none()
                    && node.min_length.is_none()
                    && node.max_length.is_none()
                    && !node.has_number_bounds()
                    && node.strings.is_none()
                    && node.all_of.is_empty();
                if alone && self.null_only(second) {
                    nullable = Some(self.target(first));
                } else if alone && self.null_only(first) {
                    nullable = Some(self.target(second));
                }
            }
            let node = &mut self.nodes[index];
            node.composite =
                node.strings.is_some() || !node.all_of.is_empty() || !node.any_of.is_empty();
            node.nullable = nullable;
            node.simple = !node.composite
                && node.constant.is_none()
                && node.nullable.is_none()
                && node.min_properties.is_none()
                && node.max_properties.is_none()
                && node.min_items.is_none()
                && node.max_items.is_none()
                && node.min_length.is_none()
                && node.max_length.is_none()
                && !node.has_number_bounds();
        }
    }

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

    /// For `anyOf: [X, {"type": "null"}]` alone: X (the value is accepted
    /// when it is `None`, else exactly when X accepts it).
    pub(crate) fn nullable(&self, id: usize) -> Option<usize> {
        self.nodes.get(id).and_then(|node| node.nullable)
    }

    /// The node the walk starts at.
    pub(crate) fn root(&self) -> usize {
        self.target(0)
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

    /// The schema of member `name` under node `id` (`properties`, else
    /// `additionalProperties`) and its required bit.
    pub(crate) fn member(&self, id: usize, name: &[u8]) -> (Option<usize>, Option<u32>) {
        let Some(node) = self.nodes.get(id) else {
            return (None, None);
        };
        match node.members.iter().find(|m| *m.name == *name) {
            Some(member) => (member.schema.or(node.additional), member.required),
            None => (node.additional, None),
        }
    }

    /// Whether node `id` looks into members at all.
    pub(crate) fn has_members(&self, id: usize) -> bool {
        self.nodes
            .get(id)
            .is_some_and(|node| !node.members.is_empty() || node.additional.is_some())
    }

    /// The bits of node `id`'s required members.
    pub(crate) fn required(&self, id: usize) -> u64 {
        self.nodes.get(id).map_or(0, |node| node.required_all)
    }

    /// Node `id`'s `items`.
    pub(crate) fn items(&self, id: usize) -> Option<usize> {
        self.nodes.get(id).and_then(|node| node.items)
    }

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
