//! An object schema split into object variants (or variants joined into
//! one): MCP 2025-11-25's `ElicitRequestParams` became `anyOf` a form
//! variant and a URL variant, each still requiring `message`.
//!
//! Compared as a whole, the split reads as every member removed and the
//! type widened to anything. Compared variant by variant, each variant
//! against the one schema, it reads as what it is: a member kept where
//! every variant has it, removed only where a variant lacks it, a new
//! variant's required members new. The variant's own schema is taken with
//! the container's other keywords over it.
//!
//! A split breaks the value's writers only where every variant refuses what
//! they wrote (an old value that one variant takes is still valid), and its
//! readers where any variant brings what they never read; a join the other
//! way round.

use serde_json::{Map, Value};

use super::{Place, SchemaDiff};
use crate::diff::change::{Change, Impact};

/// Which side holds the variants.
#[derive(Clone, Copy)]
enum Split {
    /// The new version splits the old schema.
    New,
    /// The new version joins the old variants.
    Old,
}

impl SchemaDiff<'_> {
    /// Compares variant by variant where one side is an object schema and
    /// the other only `anyOf` or `oneOf` object variants; whether it did.
    pub(super) fn compare_variants(
        &mut self,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        place: &Place,
    ) -> bool {
        let split = match (alternatives(old), alternatives(new)) {
            (None, Some(_)) if is_object(old) => Split::New,
            (Some(_), None) if is_object(new) => Split::Old,
            _ => return false,
        };
        let (whole, container, location) = match split {
            Split::New => (old, new, place.new.clone()),
            Split::Old => (new, old, place.old.clone()),
        };
        let Some((keyword, items)) = alternatives(container) else {
            return false;
        };
        let side = match split {
            Split::New => self.new_side(),
            Split::Old => self.old_side(),
        };
        let mut variants = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let (schema, at) = side.resolve(item, &format!("{location}/{keyword}/{index}"));
            let Value::Object(own) = schema else {
                return false;
            };
            if !is_object(&own) {
                return false;
            }
            let mut merged = own;
            for (key, value) in container {
                if key != keyword && !merged.contains_key(key) {
                    merged.insert(key.clone(), value.clone());
                }
            }
            variants.push((Value::Object(merged), at));
        }
        let whole = Value::Object(whole.clone());
        let mut found = Vec::with_capacity(variants.len());
        for (variant, at) in variants {
            let child = match split {
                Split::New => Place {
                    new: at,
                    ..place.clone()
                },
                Split::Old => Place {
                    old: at,
                    ..place.clone()
                },
            };
            let start = self.changes.len();
            match split {
                Split::New => self.compare(&whole, &variant, &child),
                Split::Old => self.compare(&variant, &whole, &child),
            }
            found.push(self.changes.split_off(start));
        }
        // A split breaks the value's writers only where every variant
        // refuses what they wrote (an old value fits one variant is enough),
        // and its readers where any variant brings what they never read; a
        // join the other way round.
        let narrowing = place.flow.narrowed();
        let widening = place.flow.widened();
        let clean =
            |changes: &Vec<Change>, impact: Impact| changes.iter().all(|c| c.impact != impact);
        let (kept_for_all, dropped) = match split {
            Split::New => (narrowing, found.iter().any(|c| clean(c, narrowing))),
            Split::Old => (widening, found.iter().any(|c| clean(c, widening))),
        };
        for change in found.into_iter().flatten() {
            if dropped && change.impact == kept_for_all {
                continue;
            }
            let duplicate = self.changes.iter().any(|c| {
                c.pointer == change.pointer && c.kind == change.kind && c.impact == change.impact
            });
            if !duplicate {
                self.changes.push(change);
            }
        }
        true
    }
}

/// The schema's only applicator of alternatives and its items: `anyOf` or
/// `oneOf` (not both), without `properties` of its own.
fn alternatives(schema: &Map<String, Value>) -> Option<(&'static str, &Vec<Value>)> {
    if schema.contains_key("properties") {
        return None;
    }
    let any = schema.get("anyOf").and_then(Value::as_array);
    let one = schema.get("oneOf").and_then(Value::as_array);
    match (any, one) {
        (Some(items), None) if !items.is_empty() => Some(("anyOf", items)),
        (None, Some(items)) if !items.is_empty() => Some(("oneOf", items)),
        _ => None,
    }
}

/// An object schema: `type` object, or `properties` without a `type`.
fn is_object(schema: &Map<String, Value>) -> bool {
    match schema.get("type") {
        Some(Value::String(name)) => name == "object",
        Some(_) => false,
        None => schema.contains_key("properties"),
    }
}
