//! The keywords that limit a single value: its JSON types, enum and const
//! values, pattern, format, default and numeric or length bounds.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{show, Place, SchemaDiff, ALL_TYPES};
use crate::diff::change::{ChangeKind, Impact};

impl SchemaDiff<'_> {
    pub(super) fn compare_types(
        &mut self,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        place: &Place,
    ) {
        let (before, after) = (types(old), types(new));
        if before == after {
            return;
        }
        let covered = |set: &BTreeSet<&str>, t: &str| {
            set.contains(t) || (t == "integer" && set.contains("number"))
        };
        let narrowed = before.iter().any(|t| !covered(&after, t));
        let widened = after.iter().any(|t| !covered(&before, t));
        if !narrowed && !widened {
            return;
        }
        let what = match (narrowed, widened) {
            (true, false) => "narrowed",
            (false, true) => "widened",
            _ => "changed",
        };
        let message = format!(
            "type {what} from {} to {}",
            show_types(&before),
            show_types(&after)
        );
        self.push(
            place.flow.impact(narrowed, widened),
            ChangeKind::TypeChanged,
            place,
            message,
        );
    }

    pub(super) fn compare_values(
        &mut self,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        place: &Place,
    ) {
        let open_old = old.get("x-wirekit-open-enum");
        let open_new = new.get("x-wirekit-open-enum");
        if open_old != open_new && (open_old.is_some() || open_new.is_some()) {
            self.push(
                Impact::Compatible,
                ChangeKind::OpenEnumChanged,
                place,
                "the open enum's known values changed (any string stays valid)".to_owned(),
            );
        }
        match (
            old.get("enum").and_then(Value::as_array),
            new.get("enum").and_then(Value::as_array),
        ) {
            (Some(before), Some(after)) => {
                for value in before.iter().filter(|v| !after.contains(v)) {
                    let message =
                        format!("enum value {value} removed: writers that send it are refused");
                    self.push(
                        place.flow.narrowed(),
                        ChangeKind::EnumValueRemoved,
                        place,
                        message,
                    );
                }
                for value in after.iter().filter(|v| !before.contains(v)) {
                    let message =
                        format!("enum value {value} added: readers that do not know it refuse it");
                    self.push(
                        place.flow.widened(),
                        ChangeKind::EnumValueAdded,
                        place,
                        message,
                    );
                }
            }
            (None, Some(_)) => {
                let message = "an enum now limits the value".to_owned();
                self.push(
                    place.flow.narrowed(),
                    ChangeKind::EnumValueRemoved,
                    place,
                    message,
                );
            }
            (Some(_), None) => {
                let message = "the enum no longer limits the value".to_owned();
                self.push(
                    place.flow.widened(),
                    ChangeKind::EnumValueAdded,
                    place,
                    message,
                );
            }
            (None, None) => {}
        }
        let (before, after) = (old.get("const"), new.get("const"));
        if before != after {
            let impact = match (before, after) {
                (None, Some(_)) => place.flow.narrowed(),
                (Some(_), None) => place.flow.widened(),
                _ => Impact::BreaksClientsAndServers,
            };
            let message = format!("const changed from {} to {}", show(before), show(after));
            self.push(impact, ChangeKind::ConstChanged, place, message);
        }
        for (keyword, kind) in [
            ("pattern", ChangeKind::PatternChanged),
            ("format", ChangeKind::FormatChanged),
        ] {
            let (before, after) = (old.get(keyword), new.get(keyword));
            if before == after {
                continue;
            }
            let impact = match (before, after) {
                (None, Some(_)) => place.flow.narrowed(),
                (Some(_), None) => place.flow.widened(),
                _ => Impact::BreaksClientsAndServers,
            };
            let message = format!("{keyword} changed from {} to {}", show(before), show(after));
            self.push(impact, kind, place, message);
        }
        let (before, after) = (old.get("default"), new.get("default"));
        if before != after && before.is_some() {
            let message = format!(
                "default changed from {} to {}: a value left out means something else to old and new peers",
                show(before),
                show(after)
            );
            self.push(
                Impact::BreaksClientsAndServers,
                ChangeKind::DefaultChanged,
                place,
                message,
            );
        } else if before != after {
            let message = format!("default {} added", show(after));
            self.push(
                Impact::Compatible,
                ChangeKind::DefaultChanged,
                place,
                message,
            );
        }
    }

    pub(super) fn compare_bounds(
        &mut self,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        place: &Place,
    ) {
        const LOWER: [&str; 5] = [
            "minimum",
            "exclusiveMinimum",
            "minLength",
            "minItems",
            "minProperties",
        ];
        const UPPER: [&str; 5] = [
            "maximum",
            "exclusiveMaximum",
            "maxLength",
            "maxItems",
            "maxProperties",
        ];
        for (keyword, lower) in LOWER
            .iter()
            .map(|k| (*k, true))
            .chain(UPPER.iter().map(|k| (*k, false)))
        {
            let before = old.get(keyword).and_then(Value::as_f64);
            let after = new.get(keyword).and_then(Value::as_f64);
            let tightened = match (before, after) {
                (None, None) => continue,
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(b), Some(a)) if a == b => continue,
                (Some(b), Some(a)) => (a > b) == lower,
            };
            let message = format!(
                "{keyword} {} from {} to {}",
                if tightened { "tightened" } else { "loosened" },
                show(old.get(keyword)),
                show(new.get(keyword))
            );
            let impact = if tightened {
                place.flow.narrowed()
            } else {
                place.flow.widened()
            };
            self.push(impact, ChangeKind::BoundChanged, place, message);
        }
        for keyword in ["multipleOf", "uniqueItems"] {
            let (before, after) = (old.get(keyword), new.get(keyword));
            if before == after {
                continue;
            }
            let impact = match (before, after) {
                (None, Some(_)) => place.flow.narrowed(),
                (Some(_), None) => place.flow.widened(),
                _ => Impact::BreaksClientsAndServers,
            };
            let message = format!("{keyword} changed from {} to {}", show(before), show(after));
            self.push(impact, ChangeKind::BoundChanged, place, message);
        }
    }
}

fn types(schema: &Map<String, Value>) -> BTreeSet<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => BTreeSet::from([t.as_str()]),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => ALL_TYPES.into_iter().collect(),
    }
}

fn show_types(types: &BTreeSet<&str>) -> String {
    if types.len() >= ALL_TYPES.len() {
        return "any".to_owned();
    }
    types.iter().copied().collect::<Vec<_>>().join("|")
}
