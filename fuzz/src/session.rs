//! The session checker driven by a script of bytes.
//!
//! Byte 0 picks an embedded protocol; then each step is one byte of
//! operation and one byte naming a method (an index into the manifest's
//! methods, or one it does not define), followed for `admit`, `notify` and
//! `answered` by a length byte and that many bytes of params or result
//! (JSON when they parse, absent when not).
//!
//! A crash means a panic, or one of these broken promises:
//! * every violation has a stable code, a non-empty answer message, a
//!   pointer that is a JSON pointer, and an answer code in the JSON-RPC
//!   error range;
//! * once the session is ended, `check` refuses every method the protocol
//!   defines, and it stays ended;
//! * `check` decides the same way twice (it changes nothing).

use std::sync::Arc;

use serde_json::{json, Value};
use wirekit::envelope::ErrorObject;
use wirekit::session::{Session, Violation};
use wirekit::validate::Protocol;

fn protocols() -> Vec<Arc<Protocol>> {
    let Ok(registry) = wirekit_protocols::registry() else {
        return Vec::new();
    };
    registry
        .iter()
        .filter_map(|source| wirekit_protocols::protocol(&source.id()).ok())
        .collect()
}

fn check_violation(violation: &Violation) {
    assert!(!violation.kind().code().is_empty(), "violation without a code");
    let answer = violation.answer();
    assert!(!answer.message.is_empty(), "violation without a message");
    assert!(
        violation.pointer().is_none_or(|p| p.is_empty() || p.starts_with('/')),
        "pointer is not a JSON pointer"
    );
    let code = answer.code;
    assert!(
        (-32768..=-32000).contains(&code) || code > 0 || code < -32768,
        "answer code {code} in no documented range"
    );
}

fn payload(script: &mut &[u8]) -> Option<Value> {
    let (&length, rest) = script.split_first()?;
    let length = usize::from(length).min(rest.len());
    let (bytes, rest) = rest.split_at(length);
    *script = rest;
    serde_json::from_slice(bytes).ok()
}

/// Runs one script (see the module docs).
pub fn run_session(data: &[u8]) {
    thread_local! {
        static PROTOCOLS: Vec<Arc<Protocol>> = protocols();
    }
    let Some((&pick, mut script)) = data.split_first() else {
        return;
    };
    let Some(protocol) = PROTOCOLS.with(|all| all.get(usize::from(pick) % all.len().max(1)).cloned())
    else {
        return;
    };
    let methods: Vec<String> = protocol.manifest().methods.keys().cloned().collect();
    let mut session = Session::new(protocol);
    let mut steps = 0;
    while let [op, name, rest @ ..] = script {
        script = rest;
        steps += 1;
        if steps > 256 {
            break;
        }
        let method = methods
            .get(usize::from(*name))
            .cloned()
            .unwrap_or_else(|| format!("no/such/method/{name}"));
        let first = session.check(&method);
        assert_eq!(first.is_ok(), session.check(&method).is_ok(), "check is not pure");
        if let Err(violation) = &first {
            check_violation(violation);
        }
        if session.is_ended() && methods.contains(&method) {
            assert!(first.is_err(), "an ended session let {method} through");
        }
        let was_ended = session.is_ended();
        match op % 5 {
            0 => {}
            1 => {
                let params = payload(&mut script);
                if let Err(violation) = session.admit(&method, params.as_ref()) {
                    check_violation(&violation);
                }
            }
            2 => {
                let result = payload(&mut script).unwrap_or(Value::Null);
                session.answered(&method, Ok(&result));
            }
            3 => {
                let data = payload(&mut script);
                let mut error = ErrorObject::new(-32000 - i64::from(*name % 100), "failed");
                error.data = data;
                session.answered(&method, Err(&error));
            }
            _ => {
                let params = payload(&mut script).or_else(|| Some(json!({})));
                if let Err(violation) = session.notify(&method, params.as_ref()) {
                    check_violation(&violation);
                }
            }
        }
        if was_ended {
            assert!(session.is_ended(), "an ended session came back");
        }
        let _ = session.state();
        let _ = session.capabilities();
    }
    session.end();
    assert!(session.is_ended());
}
