//! The faults: requests the protocol refuses (out of state, invalid
//! params, unknown method, a refused version), bodies and frames it
//! refuses. Each is checked for the protocol's answer, computed by the
//! core from the manifest, and for the server surviving it where the
//! protocol says the session goes on; faults that end a session get a
//! fresh server process.

use serde_json::{json, Value};

use super::check::Check;
use super::conversation::{Answer, Conversation};
use super::instance::Schemas;
use super::mutate::mutations;
use super::runner::Run;
use crate::envelope::{self, ErrorObject, Id, Message};
use crate::framing::{decoder_for, Framing};
use crate::protocol::{EnforcedBy, Transport, UnreadableId};
use crate::session::Session;
use crate::validate::Part;

/// Runs the state, params, envelope and framing groups.
pub(crate) fn run(run: &mut Run<'_>) {
    let mut conversation: Option<Conversation> = None;
    if run.options.runs("state") || run.options.runs("params") {
        before_initialize(run, &mut conversation);
        version(run);
    }
    if run.options.runs("state") {
        second_initialize(run, &mut conversation);
    }
    if run.options.runs("capabilities") {
        undeclared(run, &mut conversation);
    }
    if run.options.runs("params") {
        params(run, &mut conversation);
    }
    if run.options.runs("envelope") {
        envelope_faults(run, &mut conversation);
    }
    if run.options.runs("framing") {
        framing_faults(run, &mut conversation);
    }
    if let Some(c) = conversation.take() {
        run.finish(c);
    }
}

/// A live conversation in a state of `allowed` (fresh when needed).
fn ready<'c>(
    run: &mut Run<'_>,
    slot: &'c mut Option<Conversation>,
    allowed: &[String],
) -> Option<&'c mut Conversation> {
    if run.gave_up() {
        return None;
    }
    let here = |c: &Conversation| {
        allowed.is_empty() || allowed.iter().any(|s| s == "*" || s == c.session().state())
    };
    if slot.as_ref().is_some_and(|c| !here(c)) {
        // Try to move on from here; a state behind us needs a fresh server.
        let mut current = slot.take()?;
        if run.advance(&mut current, allowed) {
            *slot = Some(current);
            return slot.as_mut();
        }
        run.finish(current);
    }
    if slot.is_none() {
        let mut fresh = run.spawn().ok()?;
        if !run.advance(&mut fresh, allowed) {
            run.finish(fresh);
            return None;
        }
        *slot = Some(fresh);
    }
    slot.as_mut()
}

/// Drops a conversation whose server died or hung.
fn drop_dead(run: &mut Run<'_>, slot: &mut Option<Conversation>) {
    if let Some(c) = slot.take() {
        run.finish(c);
    }
}

fn initial_state(run: &Run<'_>) -> Vec<String> {
    run.protocol
        .manifest()
        .lifecycle
        .as_ref()
        .map(|l| vec![l.initial.clone()])
        .unwrap_or_default()
}

/// The first method of the host's sequence (initialize, driver.hello).
fn first_method(run: &Run<'_>) -> Option<String> {
    run.sequence().into_iter().next()
}

/// A request of a method the session state refuses, before the first
/// method; then the first method's invalid params (the session stays
/// where it was when they are refused).
fn before_initialize(run: &mut Run<'_>, slot: &mut Option<Conversation>) {
    let Some(first) = first_method(run) else {
        return;
    };
    let initial = initial_state(run);
    let fresh = Session::new(std::sync::Arc::clone(&run.protocol));
    let early = run.sequence().into_iter().find(|m| fresh.check(m).is_err());
    if let (Some(method), true) = (early, run.options.runs("state")) {
        if let Ok(Err(violation)) = run.params_for(&method).map(|_| fresh.check(&method)) {
            let expected = violation.answer().clone();
            let name = format!("`{method}` before `{first}` is refused");
            run.progress(&name);
            let mut check = Check::new("state", name);
            if let Some(c) = ready(run, slot, &initial) {
                let params = run.params_for(&method).ok().flatten();
                let index = c.index;
                let enforced_by = run.protocol.manifest().enforcement.lifecycle;
                let sent =
                    send_and_expect(run, c, &method, params, &expected, enforced_by, &mut check);
                let accepted = check.message.contains("was accepted");
                run.emit(check, index);
                if !sent || accepted {
                    drop_dead(run, slot);
                }
            }
        }
    }
    if run.options.runs("params") {
        method_params(run, slot, &first, &initial);
    }
}

/// The version negotiation's refusal: an incompatible client version.
fn version(run: &mut Run<'_>) {
    if !run.options.runs("state") || run.gave_up() {
        return;
    }
    let Some(negotiation) = run.protocol.manifest().version_negotiation.clone() else {
        return;
    };
    let Some(error) = run
        .protocol
        .manifest()
        .errors
        .iter()
        .find(|e| e.name == negotiation.error)
        .cloned()
    else {
        return;
    };
    let Ok(Some(mut params)) = run.params_for(&negotiation.method) else {
        return;
    };
    let server_major: u64 = negotiation
        .server_version
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(1);
    let refused = format!("{}.0", server_major + 1);
    let Some(slot) = params.pointer_mut(&negotiation.client_pointer) else {
        return;
    };
    *slot = json!(refused);
    let expected = ErrorObject::new(
        error.code,
        format!("{} ({})", error.name, negotiation.message),
    );
    let name = format!(
        "`{}` with the incompatible version {refused} is refused",
        negotiation.method
    );
    run.progress(&name);
    let mut check = Check::new("state", name);
    let Ok(mut conversation) = run.spawn() else {
        return;
    };
    let index = conversation.index;
    let alive = send_and_expect(
        run,
        &mut conversation,
        &negotiation.method,
        Some(params),
        &expected,
        EnforcedBy::Receiver,
        &mut check,
    );
    if alive && error.ends_session {
        let grace = run.protocol.manifest().host.as_ref().map_or(
            std::time::Duration::from_millis(crate::protocol::HostSpec::DEFAULT_EXIT_GRACE_MS),
            |h| h.exit_grace(),
        );
        if conversation.wait_exit(grace).is_none() {
            check.fail(
                None,
                format!(
                    "the server was still running {} s after refusing the version; the protocol says {} ends the session",
                    grace.as_secs_f64(),
                    error.name
                ),
            );
        }
    }
    run.emit(check, index);
    run.finish(conversation);
}

/// A second call of the first method, in the state it led to.
fn second_initialize(run: &mut Run<'_>, slot: &mut Option<Conversation>) {
    let Some(first) = first_method(run) else {
        return;
    };
    let Some(after) = run
        .protocol
        .method(&first)
        .and_then(|s| s.lifecycle.as_ref())
        .and_then(|l| l.on_success.clone())
    else {
        return;
    };
    let Some(c) = ready(run, slot, &[after]) else {
        return;
    };
    let Err(violation) = c.session().check(&first) else {
        return;
    };
    let expected = violation.answer().clone();
    let name = format!("a second `{first}` is refused");
    run.progress(&name);
    let mut check = Check::new("state", name);
    let params = run.params_for(&first).ok().flatten();
    let index = c.index;
    let enforced_by = run.protocol.manifest().enforcement.lifecycle;
    let alive = send_and_expect(run, c, &first, params, &expected, enforced_by, &mut check);
    run.emit(check, index);
    if !alive {
        drop_dead(run, slot);
    }
}

/// Undeclared optional methods, once the capabilities are known.
fn undeclared(run: &mut Run<'_>, slot: &mut Option<Conversation>) {
    let Some(spec) = run.protocol.manifest().capabilities.clone() else {
        return;
    };
    let Some(after) = run
        .protocol
        .method(&spec.method)
        .and_then(|s| s.lifecycle.as_ref())
        .and_then(|l| l.on_success.clone())
    else {
        return;
    };
    // The client sends the method's `followed_by` notification at once
    // (LSP's `initialized`): the state it moves to is where the optional
    // methods are asked.
    let followed = run
        .protocol
        .method(&spec.method)
        .and_then(|s| s.followed_by())
        .and_then(|n| run.protocol.method(n))
        .and_then(|n| n.lifecycle.as_ref())
        .and_then(|l| l.on_success.clone());
    let allowed: Vec<String> = followed.into_iter().chain([after]).collect();
    let Some(c) = ready(run, slot, &allowed) else {
        return;
    };
    if !super::lifecycle::undeclared(run, c) {
        drop_dead(run, slot);
    }
}

/// Invalid params of every method, after the first.
fn params(run: &mut Run<'_>, slot: &mut Option<Conversation>) {
    let first = first_method(run);
    let methods: Vec<(String, Vec<String>)> = run
        .client_requests()
        .filter(|(name, spec)| Some(*name) != first.as_ref() && spec.result_stream.is_none())
        .map(|(name, spec)| {
            let allowed = spec
                .lifecycle
                .as_ref()
                .map(|l| l.allowed_in.clone())
                .unwrap_or_default();
            (name.clone(), allowed)
        })
        .collect();
    // The host's order first.
    let sequence = run.sequence();
    let mut ordered: Vec<(String, Vec<String>)> = Vec::new();
    for name in &sequence {
        if let Some(found) = methods.iter().find(|(n, _)| n == name) {
            ordered.push(found.clone());
        }
    }
    for found in methods {
        if !ordered.iter().any(|(n, _)| *n == found.0) {
            ordered.push(found);
        }
    }
    for (method, allowed) in ordered {
        method_params(run, slot, &method, &allowed);
    }
}

/// The invalid-params mutations of one method.
fn method_params(
    run: &mut Run<'_>,
    slot: &mut Option<Conversation>,
    method: &str,
    allowed: &[String],
) {
    let Ok(Some(valid)) = run.params_for(method) else {
        return;
    };
    let Some((schema, defs)) = run.params_schema(method) else {
        return;
    };
    let schemas = Schemas::new(defs);
    let found = mutations(&schemas, schema, &valid);
    let capability = run
        .protocol
        .method(method)
        .filter(|s| s.capability_of.in_server_declaration())
        .and_then(|s| s.capability.clone());
    for mutation in found {
        let issues = run
            .protocol
            .validate(method, Part::Params, Some(&mutation.value));
        if issues.is_empty() {
            continue; // the schema allows it after all
        }
        let Some(c) = ready(run, slot, allowed) else {
            run.not_exercised.push(format!(
                "invalid params of `{method}`: the session never reached a state that allows it"
            ));
            return;
        };
        if let Some(capability) = &capability {
            if !c
                .session()
                .capabilities()
                .is_some_and(|caps| caps.contains(capability))
            {
                return; // an undeclared method is refused for that reason first
            }
        }
        let expected = run.protocol.invalid_params_answer(method, &issues);
        let at = if mutation.pointer.is_empty() {
            "(root)".to_owned()
        } else {
            mutation.pointer.clone()
        };
        let name = format!("`{method}` with {} at {at} is refused", mutation.what);
        run.progress(&name);
        let mut check = Check::new("params", name);
        let index = c.index;
        let alive = send_and_expect(
            run,
            c,
            method,
            Some(mutation.value.clone()),
            &expected,
            run.protocol.manifest().enforcement.params,
            &mut check,
        );
        let accepted = check.message.contains("was accepted");
        let moves = run
            .protocol
            .method(method)
            .and_then(|s| s.lifecycle.as_ref())
            .is_some_and(|l| l.on_success.is_some() || l.ends_session);
        if alive && !accepted {
            let what = format!("`{method}` with invalid params");
            let c = slot.as_mut();
            if let Some(c) = c {
                if !run.survives(c, &what, &mut check) {
                    run.emit(check, index);
                    drop_dead(run, slot);
                    continue;
                }
            }
        }
        if check.pointer.as_deref() == Some("/result") {
            check.pointer = Some(format!("/params{}", mutation.pointer));
        }
        run.emit(check, index);
        if !alive || (accepted && moves) {
            // A server that accepted the call may have moved on: start over.
            drop_dead(run, slot);
        }
    }
}

/// Sends a request and checks the error answer (any answer where the rule
/// binds only the sender); false when the server died.
fn send_and_expect(
    run: &mut Run<'_>,
    c: &mut Conversation,
    method: &str,
    params: Option<Value>,
    expected: &ErrorObject,
    enforced_by: EnforcedBy,
    check: &mut Check,
) -> bool {
    let id = match c.send_request(method, params, check) {
        Ok(id) => id,
        Err(message) => {
            check.fail(None, message);
            return false;
        }
    };
    let answer = c.await_response(run.fault_timeout(), check);
    let what = format!("`{method}`");
    run.expect_answer(check, answer, expected, Some(&id), &what, enforced_by)
}

/// The error a body should get, and the id it echoes (`Some(None)`:
/// `null`; `None`: no answer, the protocol's `unreadable_id` being
/// `silent`), from the core's own envelope decoder; `None` when the core
/// accepts the body.
fn envelope_expectation(run: &Run<'_>, body: &[u8]) -> Option<(ErrorObject, Option<Option<Id>>)> {
    let options = run.protocol.manifest().transport.envelope_options();
    match envelope::decode(body, &options) {
        Ok(_) => None,
        Err(error) => Some((
            run.protocol.envelope_answer(&error),
            answer_id(run, body, true, error.id()),
        )),
    }
}

/// The id a refused frame is answered with, as the protocol's
/// `unreadable_id` says: the id the decoder `read`, or `null`; in a silent
/// protocol the id recovered from `line`, or no answer at all (`None`).
fn answer_id(run: &Run<'_>, line: &[u8], complete: bool, read: Option<&Id>) -> Option<Option<Id>> {
    match run.protocol.manifest().transport.unreadable_id {
        UnreadableId::Null => Some(read.cloned()),
        UnreadableId::Silent => envelope::recover_id(line, complete).map(Some),
    }
}

/// Whether the protocol ends the session after answering `code`.
fn ends_session(run: &Run<'_>, code: i64) -> bool {
    run.protocol
        .manifest()
        .errors
        .iter()
        .any(|e| e.code == code && e.ends_session)
}

/// Envelope faults: unknown method, malformed JSON, a body that is not an
/// object, and for strict protocols a duplicate key and an unknown member.
fn envelope_faults(run: &mut Run<'_>, slot: &mut Option<Conversation>) {
    let Some(after) = first_method(run).and_then(|m| {
        run.protocol
            .method(&m)
            .and_then(|s| s.lifecycle.as_ref())
            .and_then(|l| l.on_success.clone())
    }) else {
        return;
    };
    let allowed = vec![after];
    let jsonrpc = run.protocol.manifest().transport.envelope == crate::envelope::Dialect::JsonRpc2;
    let version = if jsonrpc { r#""jsonrpc":"2.0","# } else { "" };
    // The unknown method: an ordinary request.
    if let Some(c) = ready(run, slot, &allowed) {
        let method = "wirekit.conformance/no_such_method";
        let expected = run.protocol.method_not_found_answer(method);
        run.progress("an unknown method is refused");
        let mut check = Check::new("envelope", "an unknown method is refused");
        let index = c.index;
        let alive = send_and_expect(
            run,
            c,
            method,
            Some(json!({})),
            &expected,
            EnforcedBy::Receiver,
            &mut check,
        );
        run.emit(check, index);
        if !alive {
            drop_dead(run, slot);
        }
    }
    let mut bodies: Vec<(&str, String)> = vec![
        (
            "malformed JSON is refused",
            format!(r#"{{{version}"id":900,"method":"#),
        ),
        (
            "a body that is not an object is refused",
            "[1,2,3]".to_owned(),
        ),
    ];
    if run.protocol.manifest().transport.strict {
        bodies.push((
            "a duplicate key is refused",
            format!(r#"{{{version}"id":901,"method":"wirekit.conformance/probe","method":"wirekit.conformance/probe"}}"#),
        ));
        bodies.push((
            "an unknown envelope member is refused",
            format!(
                r#"{{{version}"id":902,"method":"wirekit.conformance/probe","wirekit_extra":true}}"#
            ),
        ));
    }
    for (name, body) in bodies {
        let Some((expected, id)) = envelope_expectation(run, body.as_bytes()) else {
            continue;
        };
        let ends = ends_session(run, expected.code);
        let fault = Fault {
            group: "envelope",
            name,
            expected: &expected,
            id: id.as_ref().map(Option::as_ref),
            ends,
            read_anyway: None,
        };
        raw_fault(run, slot, &allowed, body.into_bytes(), &fault);
    }
}

/// Framing faults: a frame over the bound; for Content-Length a malformed
/// header, and a header other than Content-Length (which must be ignored).
fn framing_faults(run: &mut Run<'_>, slot: &mut Option<Conversation>) {
    let Some(after) = first_method(run).and_then(|m| {
        run.protocol
            .method(&m)
            .and_then(|s| s.lifecycle.as_ref())
            .and_then(|l| l.on_success.clone())
    }) else {
        return;
    };
    let allowed = vec![after];
    let transport = run.protocol.manifest().transport.clone();
    let jsonrpc = transport.envelope == crate::envelope::Dialect::JsonRpc2;
    let version = if jsonrpc { r#""jsonrpc":"2.0","# } else { "" };
    if transport.states_frame_bound() {
        over_the_bound(run, slot, &allowed, &transport, version);
    } else {
        run.not_exercised.push(format!(
            "a frame over the bound: {} states no frame bound",
            run.protocol.id()
        ));
    }
    if transport.framing == Framing::ContentLength {
        let bytes = b"Content-Length: twelve\r\n\r\n{}".to_vec();
        framing_fault(
            run,
            slot,
            &allowed,
            "a malformed Content-Length header is refused",
            bytes,
        );
        extra_header(run, slot, &allowed, version);
    }
}

/// A request whose padding takes it one byte past the protocol's bound.
fn over_the_bound(
    run: &mut Run<'_>,
    slot: &mut Option<Conversation>,
    allowed: &[String],
    transport: &Transport,
    version: &str,
) {
    let bound = transport.frame_bound();
    let head =
        format!(r#"{{{version}"id":910,"method":"wirekit.conformance/probe","params":{{"pad":""#);
    let tail = r#""}}"#;
    let pad = (bound + 1).saturating_sub(head.len() + tail.len());
    let mut body = head.into_bytes();
    body.extend(std::iter::repeat_n(b'x', pad));
    body.extend_from_slice(tail.as_bytes());
    let bytes = match transport.framing {
        Framing::Ndjson => {
            let mut b = body;
            b.push(b'\n');
            b
        }
        Framing::ContentLength => {
            let mut b = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
            b.extend_from_slice(&body);
            b
        }
    };
    let name = format!("a frame over the bound of {bound} bytes is refused");
    framing_fault(run, slot, allowed, &name, bytes);
}

fn framing_fault(
    run: &mut Run<'_>,
    slot: &mut Option<Conversation>,
    allowed: &[String],
    name: &str,
    bytes: Vec<u8>,
) {
    let transport = run.protocol.manifest().transport.clone();
    let mut decoder = decoder_for(transport.framing, transport.frame_limits());
    decoder.push(&bytes);
    decoder.finish();
    let Some(Err(fault)) = decoder.next_frame() else {
        return;
    };
    let expected = run.protocol.framing_answer(&fault);
    let ends = fault.ends_stream() || ends_session(run, expected.code);
    let too_long = fault.kind() == crate::framing::FaultKind::FrameTooLong;
    let id = answer_id(run, fault.head(), !too_long, None);
    // A server that reads a frame over the bound as an ordinary request
    // answers it with the request's own id: a warning, not a failure (the
    // bound protects the server itself). Unless the protocol answers the
    // refusal with that id itself.
    let read_anyway = (too_long && id == Some(None)).then(|| Id::from(910));
    let fault = Fault {
        group: "framing",
        name,
        expected: &expected,
        id: id.as_ref().map(Option::as_ref),
        ends,
        read_anyway,
    };
    raw_fault(run, slot, allowed, bytes, &fault);
}

/// A fault sent as raw bytes, and the answer it must get.
struct Fault<'f> {
    group: &'static str,
    name: &'f str,
    expected: &'f ErrorObject,
    /// The id the answer echoes (`Some(None)`: `null`), or `None` when the
    /// protocol answers the fault with silence (`unreadable_id: silent`).
    id: Option<Option<&'f Id>>,
    /// Whether the protocol ends the session after the answer.
    ends: bool,
    /// The id of the request inside the fault, when a server that reads it
    /// as that request only earns a warning.
    read_anyway: Option<Id>,
}

/// Sends `bytes` as they are (already framed, or a body to frame) and
/// checks the answer; a fault that ends the session gets its own server,
/// which must then exit.
fn raw_fault(
    run: &mut Run<'_>,
    slot: &mut Option<Conversation>,
    allowed: &[String],
    bytes: Vec<u8>,
    fault: &Fault<'_>,
) {
    let Fault {
        group,
        name,
        expected,
        id,
        ends,
        ..
    } = *fault;
    if run.gave_up() {
        return;
    }
    run.progress(name);
    let mut check = Check::new(group, name);
    let mut own: Option<Conversation> = None;
    let conversation = if ends {
        own = {
            let mut fresh = match run.spawn() {
                Ok(c) => c,
                Err(_) => return,
            };
            if !run.advance(&mut fresh, allowed) {
                run.finish(fresh);
                return;
            }
            Some(fresh)
        };
        own.as_mut()
    } else {
        ready(run, slot, allowed)
    };
    let Some(c) = conversation else { return };
    let index = c.index;
    let framed = if group == "envelope" {
        c.frame(&bytes)
    } else {
        bytes
    };
    if let Err(message) = c.send(framed, &mut check) {
        check.fail(None, message);
    }
    let what = name.trim_end_matches(" is refused").to_owned();
    let Some(id) = id else {
        // No answer is owed: the server must go on answering (the monitor
        // reports an answer it sent anyway).
        let alive = match slot.as_mut().filter(|_| !ends) {
            Some(c) => run.survives(c, &what, &mut check),
            None => own
                .as_mut()
                .is_some_and(|c| run.survives(c, &what, &mut check)),
        };
        if alive {
            check.passed(format!(
                "{what} was left unanswered, as {} leaves a frame whose id cannot be read",
                run.protocol.id()
            ));
        }
        run.emit(check, index);
        if let Some(c) = own {
            run.finish(c);
        } else if !alive {
            drop_dead(run, slot);
        }
        return;
    };
    let mut heard = Check::new(group, name);
    let answer = c.await_response(run.fault_timeout(), &mut heard);
    let read_as_request = matches!(
        (&answer, &fault.read_anyway),
        (Answer::Response(r), Some(own)) if r.id.as_ref() == Some(own)
    );
    if read_as_request {
        // The monitor, reading the capture, sees an answer to a refused frame.
        check.keep_frames_of(heard);
    } else {
        check.absorb(heard);
    }
    let mut alive = if read_as_request {
        check.warn(
            None,
            format!(
                "the server read {what} as an ordinary request; the protocol refuses it with the error {} ({})",
                expected.code, expected.message
            ),
        );
        true
    } else {
        run.expect_error(&mut check, answer, expected, id, &what)
    };
    if alive && ends {
        let grace = run.protocol.manifest().host.as_ref().map_or(
            std::time::Duration::from_millis(crate::protocol::HostSpec::DEFAULT_EXIT_GRACE_MS),
            |h| h.exit_grace(),
        );
        c.close_input();
        if c.wait_exit(grace).is_none() {
            check.fail(
                None,
                format!(
                    "the server was still running {} s after {what}, which ends the session",
                    grace.as_secs_f64()
                ),
            );
        }
    } else if alive {
        alive = match slot.as_mut() {
            Some(c) => run.survives(c, &what, &mut check),
            None => false,
        };
    }
    run.emit(check, index);
    if let Some(c) = own {
        run.finish(c);
    } else if !alive {
        drop_dead(run, slot);
    }
}

/// A header other than Content-Length (LSP's Content-Type): ignored, the
/// request answered as usual.
fn extra_header(
    run: &mut Run<'_>,
    slot: &mut Option<Conversation>,
    allowed: &[String],
    version: &str,
) {
    let name = "a header other than Content-Length is ignored";
    run.progress(name);
    let mut check = Check::new("framing", name);
    let Some(c) = ready(run, slot, allowed) else {
        return;
    };
    let index = c.index;
    let method = "wirekit.conformance/no_such_method";
    let body = format!(r#"{{{version}"id":920,"method":"{method}","params":{{}}}}"#);
    let mut bytes = format!(
        "Content-Length: {}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    if let Err(message) = c.send(bytes, &mut check) {
        check.fail(None, message);
    }
    let expected = run.protocol.method_not_found_answer(method);
    let answer = c.await_response(run.fault_timeout(), &mut check);
    let alive = match answer {
        Answer::Response(response) => {
            let id = Id::from(920);
            if response.id.as_ref() != Some(&id) {
                check.fail(
                    Some("/id"),
                    format!(
                        "the request with a Content-Type header was not read as a request: the answer carries id {} ({})",
                        response.id.as_ref().map_or_else(|| "null".to_owned(), |i| i.to_value().to_string()),
                        response.outcome.as_ref().err().map_or_else(String::new, |e| format!("{}: {}", e.code, e.message))
                    ),
                );
            } else {
                let _ = run.expect_error(
                    &mut check,
                    Answer::Response(response),
                    &expected,
                    Some(&id),
                    "an unknown method",
                );
            }
            c.wait_exit(std::time::Duration::from_millis(300)).is_none()
        }
        other => run.expect_error(
            &mut check,
            other,
            &expected,
            Some(&Id::from(920)),
            "a request with a Content-Type header",
        ),
    };
    if !alive {
        check.fail(None, "the server exited after a request with a Content-Type header; LSP framing ignores headers other than Content-Length");
    }
    run.emit(check, index);
    if !alive {
        drop_dead(run, slot);
    }
    let _ = Message::Notification;
}
