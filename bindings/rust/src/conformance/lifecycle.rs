//! The first session: the lifecycle the protocol's real host follows, every
//! other method the server serves, capability honesty, and the exit.

use std::collections::BTreeSet;
use std::time::Duration;

use super::check::Check;
use super::conversation::Conversation;
use super::runner::{Called, Run};
use crate::envelope::ErrorObject;
use crate::host::Ending;
use crate::protocol::{CapabilityStyle, HostSpec, MethodKind};

/// Runs the lifecycle, capabilities and exit groups on one server.
pub(crate) fn run(run: &mut Run<'_>) {
    if !(run.options.runs("lifecycle")
        || run.options.runs("capabilities")
        || run.options.runs("exit"))
    {
        return;
    }
    let mut conversation = match run.spawn() {
        Ok(c) => c,
        Err(message) => {
            let mut check = Check::new("lifecycle", "the server starts");
            check.fail(None, message);
            run.emit(check, 0);
            return;
        }
    };
    let alive = session(run, &mut conversation);
    if !alive {
        run.not_exercised
            .push("the rest of the first session: the server exited or hung".to_owned());
    }
    run.finish(conversation);
}

fn ends_session(run: &Run<'_>, method: &str) -> bool {
    run.protocol
        .method(method)
        .and_then(|s| s.lifecycle.as_ref())
        .is_some_and(|l| l.ends_session)
}

/// The notification that ends the session and that the client sends at
/// once after `method` succeeds (LSP's and kv's `exit` after `shutdown`).
fn ending_follower(run: &Run<'_>, method: &str) -> Option<String> {
    let next = run.protocol.method(method)?.followed_by()?;
    ends_session(run, next).then(|| next.to_owned())
}

/// Whether `method` ends the session, itself or by the notification that
/// follows it.
fn ends(run: &Run<'_>, method: &str) -> bool {
    ends_session(run, method) || ending_follower(run, method).is_some()
}

fn streamed(run: &Run<'_>, method: &str) -> bool {
    run.protocol
        .method(method)
        .is_some_and(|s| s.result_stream.is_some())
}

/// The session; false when the server died or hung.
fn session(run: &mut Run<'_>, conversation: &mut Conversation) -> bool {
    let sequence = run.sequence();
    let mut called: BTreeSet<String> = BTreeSet::new();
    let mut ending: Option<String> = None;
    for method in &sequence {
        if ends(run, method) {
            ending.get_or_insert_with(|| method.clone());
            continue;
        }
        if !step(run, conversation, method, &mut called) {
            return false;
        }
    }
    // Every other method the server serves: required ones and declared
    // optional ones, in the manifest's order.
    let others: Vec<String> = run
        .client_requests()
        .map(|(name, _)| name.clone())
        .filter(|name| !sequence.contains(name))
        .collect();
    for method in &others {
        if streamed(run, method) {
            if conversation.capability_declared(method) != Some(false) {
                run.not_exercised.push(format!(
                    "`{method}`: its answer is a stream that ends the session"
                ));
            }
            continue;
        }
        if ends(run, method) {
            ending.get_or_insert_with(|| method.clone());
            continue;
        }
        if !step(run, conversation, method, &mut called) {
            return false;
        }
    }
    if !super::declared::provoke(run, conversation) {
        return false;
    }
    if !super::arguments::probe(run, conversation) {
        return false;
    }
    capabilities(run, conversation);
    exit(run, conversation, ending.as_deref())
}

/// The name of the check that calls `method`: a notification is sent, a
/// request answers.
fn call_check_name(run: &Run<'_>, method: &str) -> String {
    let notification = run
        .protocol
        .method(method)
        .is_some_and(|s| s.kind == MethodKind::Notification);
    if notification {
        format!("`{method}` is sent")
    } else {
        format!("`{method}` answers")
    }
}

/// Calls one method of the host's flow when the session allows it.
fn step(
    run: &mut Run<'_>,
    conversation: &mut Conversation,
    method: &str,
    called: &mut BTreeSet<String>,
) -> bool {
    if conversation.capability_declared(method) == Some(false) {
        return true; // checked by the capabilities group
    }
    if let Err(violation) = conversation.session().check(method) {
        run.not_exercised.push(format!(
            "`{method}`: not allowed in state `{}` of the session the battery reached ({})",
            conversation.session().state(),
            violation.answer().message
        ));
        return true;
    }
    let name = call_check_name(run, method);
    run.progress(&name);
    let mut check = Check::new("lifecycle", name);
    let outcome = run.call(conversation, method, &mut check);
    called.insert(method.to_owned());
    let index = conversation.index;
    let alive = match &outcome {
        Called::Gone => false,
        Called::Answered(Ok(_)) | Called::Unusable => true,
        Called::Answered(Err(error)) => {
            let capability_declared = conversation.capability_declared(method) == Some(true);
            super::refused::judge(
                run,
                conversation,
                method,
                error,
                capability_declared,
                &mut check,
            );
            true
        }
    };
    run.emit(check, index);
    alive
}

/// Capability honesty, first half: the declared names are the protocol's.
fn capabilities(run: &mut Run<'_>, conversation: &Conversation) {
    let Some(spec) = run.protocol.manifest().capabilities.clone() else {
        return;
    };
    let index = conversation.index;
    if let Some(declared) = conversation.session().capabilities().cloned() {
        // The names of the client's requests (string-array declarations
        // list them) and every capability of the server's declaration that
        // gates a method: a request it serves or a notification it promises.
        let requests = run.client_requests().map(|(name, _)| name.clone());
        let gating = run
            .protocol
            .manifest()
            .methods
            .values()
            .filter(|spec| spec.capability_of.in_server_declaration())
            .filter_map(|spec| spec.capability.clone());
        let known: BTreeSet<String> = requests.chain(gating).collect();
        let unknown: Vec<String> = declared.difference(&known).cloned().collect();
        let mut check = Check::new("capabilities", "declared capabilities are the protocol's");
        if unknown.is_empty() {
            check.passed(format!(
                "declared: {}",
                if declared.is_empty() {
                    "none".to_owned()
                } else {
                    declared.iter().cloned().collect::<Vec<_>>().join(", ")
                }
            ));
        } else {
            let style = match spec.style {
                CapabilityStyle::BooleanObject => "members",
                CapabilityStyle::StringArray => "names",
                CapabilityStyle::Provider => "providers",
            };
            check.warn(
                Some(&spec.pointer),
                format!(
                    "the `{}` result declares capability {style} the protocol does not define: {}",
                    spec.method,
                    unknown.join(", ")
                ),
            );
        }
        run.emit(check, index);
    }
}

/// The end: the method that ends the session answers, then end of input,
/// and the server exits within the protocol's grace.
fn exit(run: &mut Run<'_>, conversation: &mut Conversation, ending: Option<&str>) -> bool {
    let grace = run.protocol.manifest().host.as_ref().map_or(
        Duration::from_millis(HostSpec::DEFAULT_EXIT_GRACE_MS),
        HostSpec::exit_grace,
    );
    let index = conversation.index;
    if let Some(method) = ending {
        let name = call_check_name(run, method);
        run.progress(&name);
        let mut check = Check::new("exit", name);
        let outcome = run.call(conversation, method, &mut check);
        if let Called::Answered(Err(error)) = &outcome {
            check.fail(
                Some("/error"),
                format!(
                    "`{method}` was refused with {}: {}; it is the request that ends the session, so every server must serve it",
                    error.code, error.message
                ),
            );
        }
        let alive = !matches!(outcome, Called::Gone);
        // The notification that ends the session follows a success (LSP's
        // `exit`), as the real host sends it.
        let follower =
            ending_follower(run, method).filter(|_| matches!(outcome, Called::Answered(Ok(_))));
        if let (true, Some(next)) = (alive, &follower) {
            let params = run.params_for(next).unwrap_or(None);
            if let Err(message) = conversation.send_notification(next, params, &mut check) {
                check.fail(None, format!("`{next}` could not be sent: {message}"));
            }
        }
        run.emit(check, index);
        if !alive {
            return false;
        }
        if let Some(next) = follower {
            return exit_on(run, conversation, method, &next, grace);
        }
    }
    let name = match ending {
        Some(method) => format!("exits after `{method}` and the end of its input"),
        None => "exits at the end of its input".to_owned(),
    };
    run.progress(&name);
    let mut check = Check::new("exit", name);
    conversation.close_input();
    // The protocol's exit sequence: a server that needs SIGTERM where the
    // real host sends it (`terminate_grace_ms`) still ends as the protocol says.
    let terminate = run
        .protocol
        .manifest()
        .host
        .as_ref()
        .and_then(HostSpec::terminate_grace);
    let after = |terminate: Option<Duration>| match terminate {
        Some(t) => format!(
            "{} s after the session ended and its input was closed, and {} s after SIGTERM",
            grace.as_secs_f64(),
            t.as_secs_f64()
        ),
        None => format!(
            "{} s after the session ended and its input was closed",
            grace.as_secs_f64()
        ),
    };
    match conversation.end_process(grace, terminate) {
        Some((Ending::Exited(_), status)) => {
            conversation.drain(Duration::from_millis(200), &mut check);
            if conversation.exited_cleanly() == Some(false) {
                check.warn(None, format!("the server exited with {status} after a clean session"));
            } else {
                check.passed(format!("exited ({status}) within {} s", grace.as_secs_f64()));
            }
        }
        Some((Ending::Terminated(_), status)) => check.passed(format!(
            "{status} on SIGTERM, sent {} s after its input was closed, as the protocol's exit sequence does",
            grace.as_secs_f64()
        )),
        Some((Ending::Killed(_), _)) | None => check.fail(
            None,
            format!("the server was still running {}", after(terminate)),
        ),
    }
    run.emit(check, index);
    true
}

/// The exit on the notification that ends the session (`exit` after
/// `shutdown`): the server exits within the grace with its input still
/// open; one that exits only at the end of its input (then closed) fails.
fn exit_on(
    run: &mut Run<'_>,
    conversation: &mut Conversation,
    method: &str,
    next: &str,
    grace: Duration,
) -> bool {
    let index = conversation.index;
    let name = format!("exits on `{next}` after `{method}`");
    run.progress(&name);
    let mut check = Check::new("exit", name);
    match conversation.wait_exit(grace) {
        Some(status) => {
            conversation.drain(Duration::from_millis(200), &mut check);
            if conversation.exited_cleanly() == Some(false) {
                check.warn(
                    None,
                    format!("the server exited with {status} after a clean session"),
                );
            } else {
                check.passed(format!(
                    "exited ({status}) within {} s of `{next}`",
                    grace.as_secs_f64()
                ));
            }
        }
        None => {
            conversation.close_input();
            let closed = conversation.end_process(grace, None);
            let how = match closed {
                Some((Ending::Exited(_), status)) => {
                    format!("and exited ({status}) only once its input was closed")
                }
                Some((_, status)) => format!("nor once its input was closed ({status})"),
                None => "nor once its input was closed".to_owned(),
            };
            check.fail(
                None,
                format!(
                    "the server was still running {} s after `{next}`, which ends the session, {how}",
                    grace.as_secs_f64()
                ),
            );
        }
    }
    run.emit(check, index);
    true
}

/// Capability honesty, second half: every optional method whose
/// capability the server did not declare is refused with the protocol's
/// answer. Run in a session of its own, so the first session stays what
/// the real host sends. False when the server died or hung.
pub(crate) fn undeclared(run: &mut Run<'_>, conversation: &mut Conversation) -> bool {
    let index = conversation.index;
    let optional: Vec<(String, String)> = run
        .client_requests()
        .filter(|(_, s)| s.capability_of.in_server_declaration())
        .filter_map(|(name, s)| s.capability.clone().map(|c| (name.clone(), c)))
        .filter(|(name, _)| !streamed(run, name))
        .collect();
    for (method, capability) in optional {
        if conversation.capability_declared(&method) != Some(false) {
            continue;
        }
        let name = format!("`{method}` (capability `{capability}` not declared) is refused");
        run.progress(&name);
        let mut check = Check::new("capabilities", name);
        let expected: ErrorObject = run.protocol.capability_answer(&method, &capability);
        let params = run.params_for(&method).ok().flatten();
        let id = match conversation.send_request(&method, params, &mut check) {
            Ok(id) => id,
            Err(message) => {
                check.fail(None, message);
                run.emit(check, index);
                return false;
            }
        };
        let answer = conversation.await_response(run.fault_timeout(), &mut check);
        let what = format!("`{method}` without its capability `{capability}`");
        let alive = run.expect_error(&mut check, answer, &expected, Some(&id), &what);
        run.emit(check, index);
        if !alive {
            return false;
        }
    }
    true
}
