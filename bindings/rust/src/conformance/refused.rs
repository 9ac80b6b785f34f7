//! What an error answer to a call of the host's flow means, and the faults
//! the server's runtime refused on its behalf.
//!
//! The battery calls every method with params it knows to be valid (the
//! manifest's examples, `--params`, an instance generated from the schema)
//! or guessed (members taken from the server's earlier answers,
//! `params_from`). An internal error (or a code the method does not
//! declare) to known-valid params is the server's fault: a failure naming
//! the method, the code and the message; to guessed params only a warning
//! that says the params were guessed. "Method not found" to a method the
//! lifecycle or a declared capability requires is a failure. A code the
//! method declares (or one of the protocol's own refusals) stays a warning:
//! the params may not fit this server.
//!
//! The serve loops of wirekit's bindings answer an invalid result with the
//! internal error and drop an invalid notification, each with a fault line
//! on stderr ([`crate::serve::RuntimeFault`]). The battery reads them: a
//! fault line of the method an internal error answered fails that check
//! with the pointer at fault; every other one (a dropped notification) is
//! reported once by [`Run::report_faults`] as a failure of its own.

use std::time::Duration;

use super::check::Check;
use super::conversation::Conversation;
use super::runner::Run;
use crate::envelope::ErrorObject;
use crate::protocol::ErrorCase;
use crate::serve::RuntimeFault;

/// How long the battery waits for the fault line of an internal error
/// (the server writes it before its answer; its stderr is read by a thread).
const FAULT_LINE_WAIT: Duration = Duration::from_millis(300);

/// Judges `error`, the answer to `method` of the host's flow, in `check`.
/// `capability_declared`: the server declared the method's capability.
pub(crate) fn judge(
    run: &mut Run<'_>,
    conversation: &mut Conversation,
    method: &str,
    error: &ErrorObject,
    capability_declared: bool,
    check: &mut Check,
) {
    let protocol = std::sync::Arc::clone(&run.protocol);
    let not_found = protocol.method_not_found_answer(method).code;
    let capability_code = protocol
        .server_errors()
        .build(ErrorCase::CapabilityNotDeclared, None, String::new(), &[])
        .code;
    let internal = protocol.internal_error_answer(method, "").code;
    let said = format!("{}: {}", error.code, error.message);
    if error.code == not_found || error.code == capability_code {
        if capability_declared {
            check.fail(
                Some("/error/code"),
                format!(
                    "the server declared the capability of `{method}` but answers it with {said}"
                ),
            );
        } else if let Some(why) = required_by_lifecycle(run, method) {
            check.fail(
                Some("/error/code"),
                format!("`{method}` was refused with {said}; {why}, so every server must serve it"),
            );
        } else {
            check.warn(
                Some("/error"),
                format!("`{method}` was refused with {said} (the server does not serve it)"),
            );
        }
        return;
    }
    let declared = protocol
        .method(method)
        .is_some_and(|spec| spec.declares_error(error.code, &protocol.manifest().errors));
    if error.code != internal && declared {
        check.warn(
            Some("/error"),
            format!(
                "`{method}` was refused with {said} (the params sent may not fit this server; pass --params or --root)"
            ),
        );
        return;
    }
    let wait = if error.code == internal {
        FAULT_LINE_WAIT
    } else {
        Duration::ZERO
    };
    if let Some(fault) = run.claim_fault(conversation, method, wait) {
        check.fail(
            Some(&fault.pointer),
            format!(
                "`{method}` was answered {}, not the server's own answer: wirekit's serve loop refused it ({} at {}): {}",
                error.code,
                fault.kind,
                shown(&fault.pointer),
                fault.message
            ),
        );
        return;
    }
    let what = if error.code == internal {
        "an internal error".to_owned()
    } else {
        format!("{}, a code `{method}` does not declare", error.code)
    };
    if run.params_guessed(method) {
        check.warn(
            Some("/error"),
            format!(
                "`{method}` was refused with {said}, {what}: the params sent may not fit this server (they were guessed from its earlier answers, `params_from`; pass --params or --root)"
            ),
        );
    } else {
        check.fail(
            Some("/error/code"),
            format!(
                "`{method}` was answered {what} ({said}) to params the protocol says are valid ({})",
                run.params_source(method)
            ),
        );
    }
}

/// Why the lifecycle requires every server to serve `method`, if it does.
fn required_by_lifecycle(run: &Run<'_>, method: &str) -> Option<String> {
    let manifest = run.protocol.manifest();
    let spec = run.protocol.method(method)?;
    if manifest
        .host
        .as_ref()
        .is_some_and(|h| h.sequence.iter().any(|m| m == method))
        && spec.is_required()
    {
        return Some("the real host's sequence (host.sequence) calls it".to_owned());
    }
    if manifest.shutdown_request() == Some(method) {
        return Some("it is the request that ends the session".to_owned());
    }
    if manifest
        .version_negotiation
        .as_ref()
        .is_some_and(|v| v.method == method)
    {
        return Some("it carries the version negotiation".to_owned());
    }
    let lifecycle = spec.lifecycle.as_ref()?;
    if lifecycle.on_success.is_some() || lifecycle.ends_session {
        return Some("the lifecycle moves on its success".to_owned());
    }
    None
}

fn shown(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(root)"
    } else {
        pointer
    }
}

impl Run<'_> {
    /// Whether the params of `method` were guessed (members taken from the
    /// server's earlier answers) rather than known valid.
    pub(crate) fn params_guessed(&self, method: &str) -> bool {
        !self.options.params.contains_key(method)
            && self
                .protocol
                .method(method)
                .is_some_and(|s| !s.params_from.is_empty())
    }

    /// Where the valid params of `method` came from, for a sentence.
    pub(crate) fn params_source(&self, method: &str) -> &'static str {
        let Some(spec) = self.protocol.method(method) else {
            return "none";
        };
        if self.options.params.contains_key(method) {
            "the params given with --params"
        } else if spec
            .examples
            .iter()
            .any(|e| e.get("error").is_none() && e.get("params").is_some())
        {
            "the params of the manifest's example"
        } else if spec.params_optional || spec.params.is_none() {
            "no params, which the method allows"
        } else {
            "an instance generated from its params schema"
        }
    }

    /// The notifications `method` makes due (its `notifies`), each with the
    /// count the server had sent before the call.
    pub(crate) fn due_notifications(
        &self,
        conversation: &Conversation,
        method: &str,
    ) -> Vec<(String, usize)> {
        self.protocol
            .method(method)
            .map(|spec| {
                spec.notifies
                    .iter()
                    .map(|n| (n.clone(), conversation.notified(n)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Waits for each notification in `due` that has not come since the
    /// call (each within `timeout`); fails `check` for a missing one, with
    /// the serve loop's fault line when it dropped it.
    pub(crate) fn await_due(
        &mut self,
        conversation: &mut Conversation,
        method: &str,
        due: &[(String, usize)],
        timeout: Duration,
        check: &mut Check,
    ) {
        for (notification, before) in due {
            if conversation.notified(notification) > *before {
                continue;
            }
            // A short wait first: a dropped one has its fault line by then.
            let mut waited = conversation.await_notification(notification, FAULT_LINE_WAIT, check);
            let mut fault = None;
            if waited.is_err() {
                fault = self.claim_fault_of(conversation, notification, true, Duration::ZERO);
                if fault.is_none() {
                    waited = conversation.await_notification(notification, timeout, check);
                }
            }
            if waited.is_ok() && conversation.notified(notification) > *before {
                continue;
            }
            let why = waited.err().unwrap_or_default();
            let fault = fault
                .or_else(|| self.claim_fault_of(conversation, notification, true, Duration::ZERO));
            match fault {
                Some(fault) => check.fail(
                    Some(&fault.pointer),
                    format!(
                        "`{method}` makes `{notification}` due (`notifies`), but wirekit's serve loop dropped it ({} at {}): {}",
                        fault.kind,
                        shown(&fault.pointer),
                        fault.message
                    ),
                ),
                None => check.fail(
                    None,
                    format!(
                        "`{method}` makes `{notification}` due (`notifies`), but the server did not send it: {why}"
                    ),
                ),
            }
        }
    }

    /// The first new fault line of `method` the server wrote (waiting up to
    /// `wait` for one), marked reported; the other new ones are kept for
    /// [`Run::report_faults`].
    pub(crate) fn claim_fault(
        &mut self,
        conversation: &mut Conversation,
        method: &str,
        wait: Duration,
    ) -> Option<RuntimeFault> {
        self.claim_fault_of(conversation, method, false, wait)
    }

    /// As [`Run::claim_fault`], for a dropped notification (`dropped`) or
    /// a refused answer.
    fn claim_fault_of(
        &mut self,
        conversation: &mut Conversation,
        method: &str,
        dropped: bool,
        wait: Duration,
    ) -> Option<RuntimeFault> {
        let index = conversation.index;
        let new = conversation.take_faults(wait);
        self.pending_faults
            .extend(new.into_iter().map(|fault| (index, fault)));
        let at = self.pending_faults.iter().position(|(_, f)| {
            f.method == method && (f.kind == "dropped_notification") == dropped
        })?;
        let (_, fault) = self.pending_faults.remove(at);
        self.faults_seen.insert(fault_key(&fault));
        Some(fault)
    }

    /// Reports each fault line not yet claimed, once a run (the same fault
    /// in several sessions is one failure).
    pub(crate) fn report_faults(&mut self, index: usize, faults: Vec<RuntimeFault>) {
        let pending = std::mem::take(&mut self.pending_faults);
        let all = pending
            .into_iter()
            .chain(faults.into_iter().map(|fault| (index, fault)));
        for (session, fault) in all {
            if !self.faults_seen.insert(fault_key(&fault)) {
                continue;
            }
            let what = if fault.kind == "dropped_notification" {
                format!("the server's `{}` notification is sent", fault.method)
            } else {
                format!("the server's answers to `{}` are its own", fault.method)
            };
            let mut check = Check::new("output", what);
            check.fail(
                Some(&fault.pointer),
                format!(
                    "wirekit's serve loop refused what the server made ({} of `{}` at {}): {}",
                    fault.kind,
                    fault.method,
                    shown(&fault.pointer),
                    fault.message
                ),
            );
            self.emit(check, session);
        }
    }
}

fn fault_key(fault: &RuntimeFault) -> (String, String, String) {
    (
        fault.kind.clone(),
        fault.method.clone(),
        fault.pointer.clone(),
    )
}
