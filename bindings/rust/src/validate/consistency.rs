//! Cross-checks within a manifest that its meta-schema cannot make: every
//! state a method names exists, the capability and declared-version
//! methods exist, the host's sequence names requests, and the
//! version-negotiation error is one of the protocol's errors, and a value
//! set names methods and a schema of the protocol.

use crate::protocol::{ProtocolError, ProtocolErrorKind, ProtocolSource};

/// Fails on the first reference to something the manifest does not define.
pub(crate) fn check(source: &ProtocolSource) -> Result<(), ProtocolError> {
    let manifest = &source.manifest;
    let file = format!("{}/protocol.json", source.origin);
    let fail = |pointer: String, message: String| {
        ProtocolError::new(ProtocolErrorKind::Inconsistent, &file, pointer, message)
    };
    let state_known = |state: &str| {
        manifest
            .lifecycle
            .as_ref()
            .is_some_and(|lifecycle| lifecycle.states.contains_key(state))
    };
    if let Some(lifecycle) = &manifest.lifecycle {
        if !state_known(&lifecycle.initial) {
            return Err(fail(
                "/lifecycle/initial".into(),
                format!("unknown state `{}`", lifecycle.initial),
            ));
        }
        for (index, state) in lifecycle.terminal.iter().enumerate() {
            if !state_known(state) {
                return Err(fail(
                    format!("/lifecycle/terminal/{index}"),
                    format!("unknown state `{state}`"),
                ));
            }
        }
    }
    for (name, method) in &manifest.methods {
        let at = format!("/methods/{}", name.replace('~', "~0").replace('/', "~1"));
        let Some(lifecycle) = &method.lifecycle else {
            continue;
        };
        if manifest.lifecycle.is_none() {
            return Err(fail(
                format!("{at}/lifecycle"),
                "the manifest has no `lifecycle` to refer to".into(),
            ));
        }
        for (index, state) in lifecycle.allowed_in.iter().enumerate() {
            if state != "*" && !state_known(state) {
                return Err(fail(
                    format!("{at}/lifecycle/allowed_in/{index}"),
                    format!("unknown state `{state}`"),
                ));
            }
        }
        if let Some(state) = &lifecycle.on_success {
            if !state_known(state) {
                return Err(fail(
                    format!("{at}/lifecycle/on_success"),
                    format!("unknown state `{state}`"),
                ));
            }
        }
        if let Some(completion) = &lifecycle.completion {
            let notifies = manifest.methods.get(completion).is_some_and(|spec| {
                spec.kind == crate::protocol::MethodKind::Notification
                    && spec.direction.server_sends()
            });
            if method.kind != crate::protocol::MethodKind::Request || !notifies {
                return Err(fail(
                    format!("{at}/lifecycle/completion"),
                    format!("`{completion}` must be a server-to-client notification completing a request"),
                ));
            }
        }
        if let Some(next) = method.followed_by() {
            let is_client_notification = manifest.methods.get(next).is_some_and(|n| {
                n.kind == crate::protocol::MethodKind::Notification && n.direction.client_sends()
            });
            if !is_client_notification {
                return Err(fail(
                    format!("{at}/lifecycle/followed_by"),
                    format!("`{next}` must be a client-to-server notification"),
                ));
            }
        }
        for (index, name) in method.notifies.iter().enumerate() {
            let server_notification = manifest.methods.get(name).is_some_and(|n| {
                n.kind == crate::protocol::MethodKind::Notification && n.direction.server_sends()
            });
            if method.kind != crate::protocol::MethodKind::Request || !server_notification {
                return Err(fail(
                    format!("{at}/notifies/{index}"),
                    format!("`{name}` must be a server-to-client notification a request makes due"),
                ));
            }
        }
        for (index, from) in method.params_from.iter().enumerate() {
            let sources = [&from.value, &from.schema, &from.arguments]
                .iter()
                .filter(|s| s.is_some())
                .count();
            let request = manifest
                .methods
                .get(&from.method)
                .is_some_and(|m| m.kind == crate::protocol::MethodKind::Request);
            if sources != 1 || !request {
                return Err(fail(
                    format!("{at}/params_from/{index}"),
                    format!(
                        "takes exactly one of `value`, `schema` or `arguments` from the result of a request; `{}` {}",
                        from.method,
                        if request { "is one" } else { "is not a request of this manifest" }
                    ),
                ));
            }
        }
        for (index, name) in method.errors.iter().enumerate() {
            if !manifest.errors.iter().any(|e| &e.name == name) {
                return Err(fail(
                    format!("{at}/errors/{index}"),
                    format!("`{name}` is not an error of the manifest's `errors`"),
                ));
            }
        }
        if method.capability.is_some() && manifest.capabilities.is_none() {
            return Err(fail(
                format!("{at}/capability"),
                "a gated method needs the manifest's `capabilities`".into(),
            ));
        }
        let client_declares = manifest
            .capabilities
            .as_ref()
            .is_some_and(|c| c.client_pointer.is_some());
        if method.capability_of.in_client_declaration() && !client_declares {
            return Err(fail(
                format!("{at}/capability_of"),
                "a method gated on the client's capabilities needs `capabilities.client_pointer`"
                    .into(),
            ));
        }
        if let (Some(capability), Some(capabilities)) = (&method.capability, &manifest.capabilities)
        {
            if !capabilities.is_well_formed(capability) {
                return Err(fail(
                    format!("{at}/capability"),
                    format!("`{capability}` is not a path of member names (a JSON pointer without its leading `/`)"),
                ));
            }
        }
    }
    if let Some(capabilities) = &manifest.capabilities {
        if !manifest.methods.contains_key(&capabilities.method) {
            return Err(fail(
                "/capabilities/method".into(),
                format!("unknown method `{}`", capabilities.method),
            ));
        }
    }
    if let Some(cancellation) = &manifest.cancellation {
        let notification = manifest
            .methods
            .get(&cancellation.method)
            .is_some_and(|spec| spec.kind == crate::protocol::MethodKind::Notification);
        if !notification {
            return Err(fail(
                "/cancellation/method".into(),
                format!(
                    "`{}` is not a notification of this manifest",
                    cancellation.method
                ),
            ));
        }
    }
    if let Some(declared) = &manifest.declared_version {
        if !manifest.methods.contains_key(&declared.method) {
            return Err(fail(
                "/declared_version/method".into(),
                format!("unknown method `{}`", declared.method),
            ));
        }
    }
    for (index, set) in manifest.value_sets.iter().enumerate() {
        let at = format!("/value_sets/{index}");
        if manifest.capabilities.is_none() {
            return Err(fail(
                format!("{at}/announced"),
                "a value set is announced in the params of the manifest's `capabilities.method`, and there is none".into(),
            ));
        }
        if source.bundle().entry_ref(&set.schema.reference).is_none() {
            return Err(fail(
                format!("{at}/schema"),
                format!(
                    "`{}` is not a schema of this protocol",
                    set.schema.reference
                ),
            ));
        }
        for (position, name) in set.methods.iter().enumerate() {
            if !manifest.methods.contains_key(name) {
                return Err(fail(
                    format!("{at}/methods/{position}"),
                    format!("unknown method `{name}`"),
                ));
            }
        }
    }
    if let Some(host) = &manifest.host {
        for (index, name) in host.sequence.iter().enumerate() {
            let sent = manifest
                .methods
                .get(name)
                .is_some_and(|spec| spec.direction.client_sends());
            if !sent {
                return Err(fail(
                    format!("/host/sequence/{index}"),
                    format!("`{name}` is not a method the client sends in this manifest"),
                ));
            }
        }
    }
    if let Some(negotiation) = &manifest.version_negotiation {
        if !manifest.methods.contains_key(&negotiation.method) {
            return Err(fail(
                "/version_negotiation/method".into(),
                format!("unknown method `{}`", negotiation.method),
            ));
        }
        if !manifest
            .errors
            .iter()
            .any(|error| error.name == negotiation.error)
        {
            return Err(fail(
                "/version_negotiation/error".into(),
                format!("unknown error `{}`", negotiation.error),
            ));
        }
    }
    Ok(())
}
