//! The keywords that shape containers: object members (added, removed,
//! required, unknown members refused), array items and `anyOf`/`oneOf`
//! alternatives.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{escape, Place, SchemaDiff};
use crate::diff::change::{ChangeKind, Impact};

impl SchemaDiff<'_> {
    pub(super) fn compare_objects(
        &mut self,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        place: &Place,
    ) {
        let empty = Map::new();
        let old_members = old
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let new_members = new
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let old_required = required(old);
        let new_required = required(new);
        let old_closed = closed(old);
        let new_closed = closed(new);
        let flow = place.flow;
        for (name, new_schema) in new_members {
            let escaped = escape(name);
            let member = format!("properties/{escaped}");
            match old_members.get(name) {
                Some(old_schema) => {
                    let child = place.child(&escaped, &member, &member);
                    self.compare(old_schema, new_schema, &child);
                }
                None => {
                    let child = place.child(&escaped, &member, &member);
                    let (impact, why) = if new_required.contains(name.as_str()) {
                        (
                            flow.narrowed(),
                            "a new required member: writers built on the old version leave it out",
                        )
                    } else if old_closed {
                        (flow.widened(), "a new optional member where unknown members were refused: old readers refuse it")
                    } else {
                        (
                            Impact::Compatible,
                            "a new optional member: old readers ignore it",
                        )
                    };
                    self.push(
                        impact,
                        ChangeKind::MemberAdded,
                        &child,
                        format!("`{name}`: {why}"),
                    );
                }
            }
        }
        for name in old_members
            .keys()
            .filter(|name| !new_members.contains_key(*name))
        {
            let escaped = escape(name);
            let member = format!("properties/{escaped}");
            let child = place.child(&escaped, &member, &member);
            let (impact, why) = if new_closed {
                (
                    flow.narrowed(),
                    "removed, and unknown members are refused: writers that send it are refused",
                )
            } else {
                (flow.widened(), "removed: writers may leave it out or send anything there, readers that use it break")
            };
            let location = child.old.clone();
            self.push_at(
                impact,
                ChangeKind::MemberRemoved,
                &child,
                &location,
                true,
                format!("`{name}` {why}"),
            );
        }
        for name in new_required.difference(&old_required) {
            if old_members.contains_key(*name) || !new_members.contains_key(*name) {
                let escaped = escape(name);
                let child = place.child(&escaped, "required", "required");
                let message =
                    format!("`{name}` became required: writers that leave it out are refused");
                self.push(flow.narrowed(), ChangeKind::MemberRequired, &child, message);
            }
        }
        for name in old_required.difference(&new_required) {
            if new_members.contains_key(*name) {
                let escaped = escape(name);
                let child = place.child(&escaped, "required", "required");
                let message = format!("`{name}` became optional: readers that count on it break");
                self.push(flow.widened(), ChangeKind::MemberOptional, &child, message);
            }
        }
        match (old_closed, new_closed) {
            (false, true) => {
                let message = "unknown members are now refused".to_owned();
                self.push(
                    flow.narrowed(),
                    ChangeKind::AdditionalMembersChanged,
                    place,
                    message,
                );
            }
            (true, false) => {
                let message = "unknown members are now accepted".to_owned();
                self.push(
                    flow.widened(),
                    ChangeKind::AdditionalMembersChanged,
                    place,
                    message,
                );
            }
            _ => {}
        }
        if let (Some(before), Some(after)) = (
            old.get("additionalProperties"),
            new.get("additionalProperties"),
        ) {
            if before.is_object() && after.is_object() {
                let child = place.child("*", "additionalProperties", "additionalProperties");
                self.compare(before, after, &child);
            }
        }
    }

    pub(super) fn compare_arrays(
        &mut self,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        place: &Place,
    ) {
        match (old.get("items"), new.get("items")) {
            (Some(before), Some(after)) => {
                let child = place.child("*", "items", "items");
                self.compare(before, after, &child);
            }
            (None, Some(_)) => {
                let message = "array items are now constrained".to_owned();
                self.push(
                    place.flow.narrowed(),
                    ChangeKind::SchemaChanged,
                    place,
                    message,
                );
            }
            (Some(_), None) => {
                let message = "array items are no longer constrained".to_owned();
                self.push(
                    place.flow.widened(),
                    ChangeKind::SchemaChanged,
                    place,
                    message,
                );
            }
            (None, None) => {}
        }
        if old.get("prefixItems") != new.get("prefixItems") {
            let message = "`prefixItems` changed".to_owned();
            self.push(
                Impact::BreaksClientsAndServers,
                ChangeKind::SchemaChanged,
                place,
                message,
            );
        }
    }

    pub(super) fn compare_alternatives(
        &mut self,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
        place: &Place,
    ) {
        for keyword in ["anyOf", "oneOf"] {
            let empty = Vec::new();
            let before = old.get(keyword).and_then(Value::as_array).unwrap_or(&empty);
            let after = new.get(keyword).and_then(Value::as_array).unwrap_or(&empty);
            if before == after {
                continue;
            }
            if before.len() == after.len() {
                for (index, (b, a)) in before.iter().zip(after).enumerate() {
                    let step = format!("{keyword}/{index}");
                    let child = Place {
                        old: format!("{}/{step}", place.old),
                        new: format!("{}/{step}", place.new),
                        ..place.clone()
                    };
                    self.compare(b, a, &child);
                }
                continue;
            }
            let removed = before.iter().filter(|b| !after.contains(b)).count();
            let added = after.iter().filter(|a| !before.contains(a)).count();
            let narrowed = removed > 0 || before.is_empty();
            let widened = added > 0 || after.is_empty();
            let message = format!("`{keyword}`: {removed} alternative(s) removed, {added} added");
            self.push(
                place.flow.impact(narrowed, widened),
                ChangeKind::AlternativesChanged,
                place,
                message,
            );
        }
    }
}

fn required(schema: &Map<String, Value>) -> BTreeSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn closed(schema: &Map<String, Value>) -> bool {
    schema.get("additionalProperties") == Some(&Value::Bool(false))
        || schema.get("unevaluatedProperties") == Some(&Value::Bool(false))
}
