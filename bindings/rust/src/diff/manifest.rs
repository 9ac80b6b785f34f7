//! Comparing two manifests: the methods (one by one in [`super::method`]),
//! error codes, transport, capabilities, version negotiation, the lifecycle
//! and semantic rules.

use serde_json::Value;

use super::change::{manifest_change, Change, ChangeKind, Flow, Impact, Role};
use super::method::{compare_method, compare_schema, method_added, method_removed};
use super::schema::{escape, SchemaDiff};
use crate::protocol::Manifest;

/// Compares two manifests, adding the changes (schemas included) to `out`.
pub(super) fn compare(
    old: &Manifest,
    new: &Manifest,
    schemas: &mut SchemaDiff<'_>,
    out: &mut Vec<Change>,
) {
    compare_transport(old, new, out);
    for (name, new_method) in &new.methods {
        match old.methods.get(name) {
            Some(old_method) => compare_method(name, old_method, new_method, schemas, out),
            None => out.push(method_added(name, new_method)),
        }
    }
    for (name, old_method) in old
        .methods
        .iter()
        .filter(|(n, _)| !new.methods.contains_key(*n))
    {
        out.push(method_removed(name, old_method));
    }
    compare_errors(old, new, out);
    compare_lifecycle(old, new, out);
    compare_rules(old, new, out);
    if let (Some(before), Some(after)) = (&old.error_data, &new.error_data) {
        let flow = Flow {
            writer: Role::Server,
        };
        compare_schema(schemas, "error data", before, after, flow);
    }
}

fn compare_transport(old: &Manifest, new: &Manifest, out: &mut Vec<Change>) {
    let (before, after) = (&old.transport, &new.transport);
    let both = Impact::BreaksClientsAndServers;
    let mut push = |impact: Impact, field: &str, message: String| {
        out.push(manifest_change(
            impact,
            ChangeKind::TransportChanged,
            format!("/transport/{field}"),
            message,
        ));
    };
    if before.framing != after.framing {
        push(
            both,
            "framing",
            format!(
                "framing changed from {} to {}",
                before.framing, after.framing
            ),
        );
    }
    if before.envelope != after.envelope {
        push(
            both,
            "envelope",
            format!(
                "envelope changed from {} to {}",
                before.envelope, after.envelope
            ),
        );
    }
    if before.strict != after.strict {
        let message = format!(
            "strict envelopes {}: every peer reads envelopes",
            if after.strict {
                "turned on"
            } else {
                "turned off"
            }
        );
        push(both, "strict", message);
    }
    if before.canonical != after.canonical {
        push(
            Impact::Compatible,
            "canonical",
            "canonical output changed (member order only)".to_owned(),
        );
    }
    if before.max_frame_bytes != after.max_frame_bytes {
        let bound =
            |b: Option<usize>| b.map_or_else(|| "none stated".to_owned(), |b| format!("{b} bytes"));
        let message = format!(
            "frame bound changed from {} to {}: one side may now send frames the other refuses",
            bound(before.max_frame_bytes),
            bound(after.max_frame_bytes)
        );
        push(both, "max_frame_bytes", message);
    }
    if old.capabilities != new.capabilities {
        let message = "where or how the server declares its capabilities changed".to_owned();
        out.push(manifest_change(
            both,
            ChangeKind::CapabilitiesChanged,
            "/capabilities".to_owned(),
            message,
        ));
    }
    let negotiation = |m: &Manifest| {
        m.version_negotiation.as_ref().map(|v| {
            let mut v = v.clone();
            v.server_version.clear();
            v
        })
    };
    if negotiation(old) != negotiation(new) {
        let message = "version negotiation changed".to_owned();
        out.push(manifest_change(
            both,
            ChangeKind::VersionNegotiationChanged,
            "/version_negotiation".to_owned(),
            message,
        ));
    }
}

fn compare_errors(old: &Manifest, new: &Manifest, out: &mut Vec<Change>) {
    for (index, after) in new.errors.iter().enumerate() {
        let pointer = format!("/errors/{index}");
        match old.errors.iter().find(|e| e.name == after.name) {
            None => out.push(manifest_change(
                Impact::Compatible,
                ChangeKind::ErrorAdded,
                pointer,
                format!(
                    "new error {} `{}`: peers that do not know it treat it as any error",
                    after.code, after.name
                ),
            )),
            Some(before) => {
                if before.code != after.code {
                    out.push(manifest_change(
                        Impact::BreaksClientsAndServers,
                        ChangeKind::ErrorCodeChanged,
                        format!("{pointer}/code"),
                        format!(
                            "error `{}` changed code from {} to {}",
                            after.name, before.code, after.code
                        ),
                    ));
                }
                if before.ends_session != after.ends_session {
                    out.push(manifest_change(
                        Impact::BreaksClientsAndServers,
                        ChangeKind::ErrorEndsSessionChanged,
                        format!("{pointer}/ends_session"),
                        format!(
                            "error `{}` {} ends the session",
                            after.name,
                            if after.ends_session {
                                "now"
                            } else {
                                "no longer"
                            }
                        ),
                    ));
                }
            }
        }
    }
    for (index, before) in old.errors.iter().enumerate() {
        if !new.errors.iter().any(|e| e.name == before.name) {
            out.push(manifest_change(
                Impact::Compatible,
                ChangeKind::ErrorRemoved,
                format!("/errors/{index}"),
                format!("error {} `{}` removed (in the old version's manifest): old servers may still answer it", before.code, before.name),
            ));
        }
    }
}

fn compare_lifecycle(old: &Manifest, new: &Manifest, out: &mut Vec<Change>) {
    let (Some(before), Some(after)) = (&old.lifecycle, &new.lifecycle) else {
        if old.lifecycle.is_some() != new.lifecycle.is_some() {
            let message = "the lifecycle was added or removed".to_owned();
            out.push(manifest_change(
                Impact::BreaksClientsAndServers,
                ChangeKind::LifecycleChanged,
                "/lifecycle".to_owned(),
                message,
            ));
        }
        return;
    };
    let both = Impact::BreaksClientsAndServers;
    if before.initial != after.initial {
        let message = format!(
            "the initial state changed from `{}` to `{}`",
            before.initial, after.initial
        );
        out.push(manifest_change(
            both,
            ChangeKind::LifecycleChanged,
            "/lifecycle/initial".to_owned(),
            message,
        ));
    }
    for state in before
        .states
        .keys()
        .filter(|s| !after.states.contains_key(*s))
    {
        let message = format!("state `{state}` removed");
        out.push(manifest_change(
            both,
            ChangeKind::LifecycleChanged,
            "/lifecycle/states".to_owned(),
            message,
        ));
    }
    for state in after
        .states
        .keys()
        .filter(|s| !before.states.contains_key(*s))
    {
        let message = format!("new state `{state}` (reached only through what is new)");
        out.push(manifest_change(
            Impact::Compatible,
            ChangeKind::LifecycleChanged,
            format!("/lifecycle/states/{}", escape(state)),
            message,
        ));
    }
    let terminal_changed = before
        .terminal
        .iter()
        .chain(&after.terminal)
        .filter(|s| before.states.contains_key(*s) && after.states.contains_key(*s))
        .any(|s| before.terminal.contains(s) != after.terminal.contains(s));
    if terminal_changed {
        let message = "a state became terminal or stopped being terminal".to_owned();
        out.push(manifest_change(
            both,
            ChangeKind::LifecycleChanged,
            "/lifecycle/terminal".to_owned(),
            message,
        ));
    }
    if before.violation != after.violation {
        let message = format!(
            "the answer to a lifecycle violation changed (code {} to {})",
            before.violation.code, after.violation.code
        );
        out.push(manifest_change(
            both,
            ChangeKind::ErrorCodeChanged,
            "/lifecycle/violation".to_owned(),
            message,
        ));
    }
}

/// A rule checks one part of one method: it narrows what that part's writer
/// may send. Rules are matched by name, method, part and place.
fn compare_rules(old: &Manifest, new: &Manifest, out: &mut Vec<Change>) {
    let key = |rule: &crate::protocol::RuleSpec| {
        let arg = |name: &str| rule.arguments.get(name).cloned().unwrap_or(Value::Null);
        (rule.rule.clone(), arg("method"), arg("part"), arg("at"))
    };
    let writer = |manifest: &Manifest, rule: &crate::protocol::RuleSpec| -> Option<Role> {
        let method = manifest
            .methods
            .get(rule.arguments.get("method")?.as_str()?)?;
        let sender = Role::sender(method.direction);
        match rule.arguments.get("part")?.as_str()? {
            "params" => Some(sender),
            "result" => Some(sender.other()),
            _ => None,
        }
    };
    let mut unmatched_old: Vec<usize> = (0..old.rules.len())
        .filter(|i| !new.rules.contains(&old.rules[*i]))
        .collect();
    for (index, after) in new.rules.iter().enumerate() {
        if old.rules.contains(after) {
            continue;
        }
        let pointer = format!("/rules/{index}");
        match unmatched_old
            .iter()
            .position(|i| key(&old.rules[*i]) == key(after))
        {
            Some(position) => {
                unmatched_old.remove(position);
                let message = format!("rule `{}` changed its arguments", after.rule);
                out.push(manifest_change(
                    Impact::BreaksClientsAndServers,
                    ChangeKind::RuleChanged,
                    pointer,
                    message,
                ));
            }
            None => {
                let impact =
                    writer(new, after).map_or(Impact::BreaksClientsAndServers, Impact::breaks);
                let message = format!(
                    "new rule `{}`: writers built on the old version may break it",
                    after.rule
                );
                out.push(manifest_change(
                    impact,
                    ChangeKind::RuleAdded,
                    pointer,
                    message,
                ));
            }
        }
    }
    for index in unmatched_old {
        let before = &old.rules[index];
        let impact = writer(old, before).map_or(Impact::BreaksClientsAndServers, |w| {
            Impact::breaks(w.other())
        });
        let message = format!(
            "rule `{}` removed (in the old version's manifest): readers that count on it break",
            before.rule
        );
        out.push(manifest_change(
            impact,
            ChangeKind::RuleRemoved,
            format!("/rules/{index}"),
            message,
        ));
    }
}
