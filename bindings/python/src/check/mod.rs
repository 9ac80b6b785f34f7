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

mod compile;
mod walk;

use crate::maps::new_table;

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

    /// Whether the node has no type, constant or keyword of its own: all it
    /// can hold is its `anyOf`/`allOf` (an alias of one schema, or a
    /// nullable pair).
    fn only_combines(&self) -> bool {
        self.types == ANY
            && self.constant.is_none()
            && self.members.is_empty()
            && self.additional.is_none()
            && self.min_properties.is_none()
            && self.max_properties.is_none()
            && self.items.is_none()
            && self.min_items.is_none()
            && self.max_items.is_none()
            && self.min_length.is_none()
            && self.max_length.is_none()
            && !self.has_number_bounds()
            && self.strings.is_none()
    }
}

/// Member lookups of one walk: (name address, node) to (schema, required
/// bit), direct-mapped. The names are alive for the walk, so an address
/// names one string. The table is allocated at the `LAZY_PUTS`th miss: a
/// small message (a request's params, a short result) costs none.
pub(crate) struct MemberCache {
    slots: Option<Box<[CacheSlot; MEMBER_SLOTS]>>,
    misses: usize,
}

/// (name address, node tag, schema, required bit); address 0 when empty.
type CacheSlot = (usize, usize, Option<usize>, Option<u32>);

/// Slots of a [`MemberCache`].
const MEMBER_SLOTS: usize = 256;

/// Misses before the table is worth its allocation.
const LAZY_PUTS: usize = 16;

impl MemberCache {
    pub(crate) fn new() -> Self {
        MemberCache {
            slots: None,
            misses: 0,
        }
    }

    /// The slot of a name (by address) under a node: addresses step by 16
    /// at least, and node ids are small and dense, so the id is spread by a
    /// multiply (`(tag >> 3)` sent neighbouring nodes to one slot).
    fn index(address: usize, tag: usize) -> usize {
        ((address >> 4) ^ tag.wrapping_mul(0x9E37)) % MEMBER_SLOTS
    }

    pub(crate) fn get(&self, address: usize, tag: usize) -> Option<(Option<usize>, Option<u32>)> {
        let &(a, t, schema, bit) = self.slots.as_deref()?.get(Self::index(address, tag))?;
        (a == address && t == tag).then_some((schema, bit))
    }

    pub(crate) fn put(&mut self, address: usize, tag: usize, found: (Option<usize>, Option<u32>)) {
        if self.slots.is_none() {
            self.misses += 1;
            if self.misses < LAZY_PUTS {
                return;
            }
            self.slots = new_table((0, 0, None, None));
        }
        if let Some(slot) = self
            .slots
            .as_deref_mut()
            .and_then(|slots| slots.get_mut(Self::index(address, tag)))
        {
            *slot = (address, tag, found.0, found.1);
        }
    }
}

/// A compiled acceptance check for one schema.
pub struct Check {
    nodes: Vec<Node>,
}

impl Check {
    /// For `anyOf: [X, {"type": "null"}]` alone: X (the value is accepted
    /// when it is `None`, else exactly when X accepts it).
    pub(crate) fn nullable(&self, id: usize) -> Option<usize> {
        self.nodes.get(id).and_then(|node| node.nullable)
    }

    /// The node the walk starts at.
    pub(crate) fn root(&self) -> usize {
        self.target(0)
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
}
