//! Comparing one method between two versions: its kind, direction,
//! capability, params, result or streamed items (handed to the schema
//! comparison with who writes them), timeout and place in the lifecycle;
//! and what a method added or removed means.

use super::change::{manifest_change, Change, ChangeKind, Flow, Impact, Role};
use super::schema::{escape, Place, SchemaDiff};
use crate::protocol::{MethodKind, MethodSpec, SchemaRef};

fn method_pointer(name: &str) -> String {
    format!("/methods/{}", escape(name))
}

fn noun(method: &MethodSpec) -> &'static str {
    match method.kind {
        MethodKind::Request => "method",
        MethodKind::Notification => "notification",
    }
}

pub(super) fn method_added(name: &str, method: &MethodSpec) -> Change {
    let receiver = Role::sender(method.direction).other();
    let (impact, message) = match &method.capability {
        Some(capability) => (
            Impact::Compatible,
            format!("new {} `{name}` behind capability `{capability}`: only used when the peer declares it", noun(method)),
        ),
        None => (
            Impact::breaks(receiver),
            format!("new required {} `{name}`: peers built on the old version do not implement it", noun(method)),
        ),
    };
    manifest_change(
        impact,
        ChangeKind::MethodAdded,
        method_pointer(name),
        message,
    )
}

pub(super) fn method_removed(name: &str, method: &MethodSpec) -> Change {
    let sender = Role::sender(method.direction);
    let (impact, message) = match &method.capability {
        Some(capability) => (
            Impact::Compatible,
            format!("{} `{name}` removed; it was behind capability `{capability}`, which new peers no longer declare", noun(method)),
        ),
        None => (
            Impact::breaks(sender),
            format!("required {} `{name}` removed: peers built on the old version still send it", noun(method)),
        ),
    };
    manifest_change(
        impact,
        ChangeKind::MethodRemoved,
        method_pointer(name),
        message,
    )
}

pub(super) fn compare_method(
    name: &str,
    old: &MethodSpec,
    new: &MethodSpec,
    schemas: &mut SchemaDiff<'_>,
    out: &mut Vec<Change>,
) {
    let pointer = method_pointer(name);
    let sender = Role::sender(new.direction);
    let both = Impact::BreaksClientsAndServers;
    if old.kind != new.kind {
        let message = format!("`{name}` changed from a {} to a {}", noun(old), noun(new));
        out.push(manifest_change(
            both,
            ChangeKind::MethodKindChanged,
            format!("{pointer}/kind"),
            message,
        ));
    }
    if old.direction != new.direction {
        let message = format!("`{name}` is now sent by the other peer");
        out.push(manifest_change(
            both,
            ChangeKind::MethodDirectionChanged,
            format!("{pointer}/direction"),
            message,
        ));
        return;
    }
    match (&old.capability, &new.capability) {
        (None, Some(capability)) => out.push(manifest_change(
            Impact::breaks(sender),
            ChangeKind::MethodCapabilityChanged,
            format!("{pointer}/capability"),
            format!("`{name}` is now optional behind capability `{capability}`: old senders call it without checking"),
        )),
        (Some(capability), None) => out.push(manifest_change(
            Impact::breaks(sender.other()),
            ChangeKind::MethodCapabilityChanged,
            format!("{pointer}/capability"),
            format!("`{name}` is now required (was behind `{capability}`): old receivers may not implement it"),
        )),
        (Some(before), Some(after)) if before != after => out.push(manifest_change(
            both,
            ChangeKind::MethodCapabilityChanged,
            format!("{pointer}/capability"),
            format!("`{name}`'s capability changed from `{before}` to `{after}`"),
        )),
        _ => {}
    }
    if old.params_optional != new.params_optional {
        let flow = Flow { writer: sender };
        let (impact, message) = if new.params_optional {
            (
                flow.widened(),
                format!("`{name}`'s params may now be left out: old receivers require them"),
            )
        } else {
            (
                flow.narrowed(),
                format!("`{name}`'s params are now required: old senders may leave them out"),
            )
        };
        out.push(manifest_change(
            impact,
            ChangeKind::ParamsOptionalChanged,
            format!("{pointer}/params_optional"),
            message,
        ));
    }
    let part = |what: &str| format!("{name} {what}");
    compare_optional_schema(
        schemas,
        &part("params"),
        &old.params,
        &new.params,
        Flow { writer: sender },
    );
    let answer = Flow {
        writer: sender.other(),
    };
    match (&old.result_stream, &new.result_stream) {
        (None, None) => {
            compare_optional_schema(schemas, &part("result"), &old.result, &new.result, answer)
        }
        (Some(before), Some(after)) => {
            compare_schema(schemas, &part("stream item"), before, after, answer)
        }
        _ => {
            let message =
                format!("`{name}`'s answer changed between a result and a stream of items");
            out.push(manifest_change(
                both,
                ChangeKind::ResultShapeChanged,
                format!("{pointer}/result_stream"),
                message,
            ));
        }
    }
    if let (Some(before), Some(after)) = (old.timeout_ms, new.timeout_ms) {
        if after != before {
            let (impact, message) = if after < before {
                (
                    Impact::breaks(sender.other()),
                    format!("`{name}`'s timeout shortened from {before} ms to {after} ms: old receivers may answer too late"),
                )
            } else {
                (
                    Impact::Compatible,
                    format!("`{name}`'s timeout lengthened from {before} ms to {after} ms"),
                )
            };
            out.push(manifest_change(
                impact,
                ChangeKind::TimeoutChanged,
                format!("{pointer}/timeout_ms"),
                message,
            ));
        }
    }
    compare_method_lifecycle(name, old, new, sender, out);
}

fn compare_method_lifecycle(
    name: &str,
    old: &MethodSpec,
    new: &MethodSpec,
    sender: Role,
    out: &mut Vec<Change>,
) {
    let pointer = format!("{}/lifecycle", method_pointer(name));
    let (Some(before), Some(after)) = (&old.lifecycle, &new.lifecycle) else {
        if old.lifecycle.is_some() != new.lifecycle.is_some() {
            let message = format!("`{name}`'s place in the lifecycle was added or removed");
            out.push(manifest_change(
                Impact::BreaksClientsAndServers,
                ChangeKind::LifecycleChanged,
                pointer,
                message,
            ));
        }
        return;
    };
    let any = |states: &[String]| states.is_empty() || states.iter().any(|s| s == "*");
    let allowed = |states: &Vec<String>| -> Vec<String> { states.clone() };
    let (was_any, is_any) = (any(&before.allowed_in), any(&after.allowed_in));
    let removed: Vec<String> = if is_any {
        Vec::new()
    } else if was_any {
        vec!["any state not listed".to_owned()]
    } else {
        allowed(&before.allowed_in)
            .into_iter()
            .filter(|s| !after.allowed_in.contains(s))
            .collect()
    };
    let added: Vec<String> = if was_any {
        Vec::new()
    } else if is_any {
        vec!["any state".to_owned()]
    } else {
        allowed(&after.allowed_in)
            .into_iter()
            .filter(|s| !before.allowed_in.contains(s))
            .collect()
    };
    if !removed.is_empty() {
        let message = format!(
            "`{name}` is no longer allowed in {}: old senders get a lifecycle violation",
            removed.join(", ")
        );
        out.push(manifest_change(
            Impact::breaks(sender),
            ChangeKind::LifecycleChanged,
            format!("{pointer}/allowed_in"),
            message,
        ));
    }
    if !added.is_empty() {
        let message = format!(
            "`{name}` is now allowed in {}: old receivers answer a lifecycle violation",
            added.join(", ")
        );
        out.push(manifest_change(
            Impact::breaks(sender.other()),
            ChangeKind::LifecycleChanged,
            format!("{pointer}/allowed_in"),
            message,
        ));
    }
    if before.on_success != after.on_success || before.ends_session != after.ends_session {
        let message = format!(
            "`{name}` now leads to state {} (ends the session: {}), was {} (ends the session: {})",
            show_state(&after.on_success),
            after.ends_session,
            show_state(&before.on_success),
            before.ends_session
        );
        out.push(manifest_change(
            Impact::BreaksClientsAndServers,
            ChangeKind::LifecycleChanged,
            pointer.clone(),
            message,
        ));
    }
    if before.violation != after.violation {
        let message = format!("`{name}`'s answer to a lifecycle violation changed");
        out.push(manifest_change(
            Impact::BreaksClientsAndServers,
            ChangeKind::ErrorCodeChanged,
            format!("{pointer}/violation"),
            message,
        ));
    }
}

fn show_state(state: &Option<String>) -> String {
    state
        .as_deref()
        .map_or_else(|| "unchanged".to_owned(), |s| format!("`{s}`"))
}

fn compare_optional_schema(
    schemas: &mut SchemaDiff<'_>,
    part: &str,
    old: &Option<SchemaRef>,
    new: &Option<SchemaRef>,
    flow: Flow,
) {
    let any = SchemaRef {
        reference: String::new(),
    };
    match (old, new) {
        (None, None) => {}
        (before, after) => compare_schema(
            schemas,
            part,
            before.as_ref().unwrap_or(&any),
            after.as_ref().unwrap_or(&any),
            flow,
        ),
    }
}

pub(super) fn compare_schema(
    schemas: &mut SchemaDiff<'_>,
    part: &str,
    old: &SchemaRef,
    new: &SchemaRef,
    flow: Flow,
) {
    let before = schemas.old_side().entry(&old.reference);
    let after = schemas.new_side().entry(&new.reference);
    let place = Place {
        part: part.to_owned(),
        at: String::new(),
        old: String::new(),
        new: String::new(),
        flow,
    };
    schemas.compare(&before, &after, &place);
}
