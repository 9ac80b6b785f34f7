//! The errors a method declares, provoked: each example of a client
//! request that shows an error answer (`examples` with `error`) is sent
//! with its params, and the server must answer the example's code. The
//! example's code must be one the method declares (its `errors`, or
//! JSON-RPC's own). Examples of methods that move the lifecycle (a refused
//! `initialize`, the version negotiation) are left to the state group,
//! which provokes those refusals in sessions of their own.

use serde_json::Value;

use super::check::Check;
use super::conversation::Conversation;
use super::runner::Run;
use crate::envelope::ErrorObject;
use crate::protocol::MethodKind;

/// One error example: the method, its title, its params and the error.
struct Provoked {
    method: String,
    title: String,
    params: Option<Value>,
    error: ErrorObject,
}

/// The error examples of the client's requests that stay in the session.
fn examples(run: &Run<'_>) -> Vec<Provoked> {
    let manifest = run.protocol.manifest();
    let negotiated = manifest
        .version_negotiation
        .as_ref()
        .map(|v| v.method.as_str());
    let mut found = Vec::new();
    for (method, spec) in run.client_requests() {
        let moves = spec
            .lifecycle
            .as_ref()
            .is_some_and(|l| l.on_success.is_some() || l.ends_session);
        if moves || spec.result_stream.is_some() || Some(method.as_str()) == negotiated {
            continue;
        }
        for example in &spec.examples {
            let Some(error) = example.get("error") else {
                continue;
            };
            let Some(code) = error.get("code").and_then(Value::as_i64) else {
                continue;
            };
            let message = error.get("message").and_then(Value::as_str).unwrap_or("");
            found.push(Provoked {
                method: method.clone(),
                title: example
                    .get("title")
                    .and_then(Value::as_str)
                    .unwrap_or("an example")
                    .to_owned(),
                params: example.get("params").filter(|p| !p.is_null()).cloned(),
                error: ErrorObject {
                    code,
                    message: message.to_owned(),
                    data: None,
                },
            });
        }
    }
    found
}

/// Provokes every error example; false when the server died or hung.
pub(crate) fn provoke(run: &mut Run<'_>, conversation: &mut Conversation) -> bool {
    for example in examples(run) {
        let Provoked {
            method,
            title,
            params,
            error,
        } = example;
        if conversation.capability_declared(&method) == Some(false) {
            continue; // an undeclared method is refused for that reason
        }
        if conversation.session().check(&method).is_err() {
            run.not_exercised.push(format!(
                "the error example `{title}` of `{method}`: not allowed in state `{}`",
                conversation.session().state()
            ));
            continue;
        }
        let name = format!("`{method}` answers its declared error ({title})");
        run.progress(&name);
        let mut check = Check::new("lifecycle", name);
        let index = conversation.index;
        let declares = run.protocol.method(&method).is_some_and(|spec| {
            spec.kind == MethodKind::Request
                && spec.declares_error(error.code, &run.protocol.manifest().errors)
        });
        if !declares {
            check.warn(
                Some("/error/code"),
                format!(
                    "the manifest's example `{title}` answers {}, a code `{method}` does not declare (its `errors`)",
                    error.code
                ),
            );
        }
        let id = match conversation.send_request(&method, params, &mut check) {
            Ok(id) => id,
            Err(message) => {
                check.fail(None, format!("`{method}` could not be sent: {message}"));
                run.emit(check, index);
                return false;
            }
        };
        let answer = conversation.await_response(run.answer_timeout(&method), &mut check);
        let what = format!("`{method}` with the params of the example `{title}`");
        let alive = run.expect_error(&mut check, answer, &error, Some(&id), &what);
        run.emit(check, index);
        if !alive {
            return false;
        }
    }
    true
}
