//! Members a server checks against schemas of its own: a `params_from`
//! entry with `refused_with` (MCP's `tools/call` arguments against each
//! tool's `inputSchema`, from the `tools/list` answer). For every item the
//! listing returned (the `0` of the entry's pointer, stepped through the
//! list), instances that break the item's schema are made by mutating a
//! valid one, once per constraining keyword, and sent in place of the
//! member; each must be refused as the entry says. A server that accepts
//! one fails with the pointer and the keyword it broke; a refusal in
//! another form (an error where the protocol wants a result flag, or the
//! reverse) warns.

use serde_json::Value;

use super::check::Check;
use super::conversation::{Answer, Conversation};
use super::instance::Schemas;
use super::mutate::mutations;
use super::params_from::fill;
use super::runner::{echoes, Run};
use crate::protocol::pointer::set_at;
use crate::protocol::{ParamsFrom, Refusal};

/// Items of one listing probed, at most.
const MAX_ITEMS: usize = 16;
/// Invalid instances sent for one item, at most.
const MAX_MUTATIONS: usize = 6;

/// One invalid member to send.
struct Probe {
    label: String,
    params: Value,
    pointer: String,
    what: String,
}

/// Probes every method that names such an entry; false when the server
/// died or hung.
pub(crate) fn probe(run: &mut Run<'_>, conversation: &mut Conversation) -> bool {
    let methods: Vec<(String, Vec<ParamsFrom>)> = run
        .client_requests()
        .filter(|(_, spec)| spec.params_from.iter().any(|s| s.refused_with.is_some()))
        .map(|(name, spec)| (name.clone(), spec.params_from.clone()))
        .collect();
    for (method, sources) in methods {
        if conversation.capability_declared(&method) == Some(false)
            || conversation.session().check(&method).is_err()
        {
            continue;
        }
        for source in sources.iter().filter(|s| s.refused_with.is_some()) {
            let probes = match probes(run, &method, &sources, source) {
                Ok(probes) => probes,
                Err(why) => {
                    run.not_exercised.push(why);
                    continue;
                }
            };
            let Some(refusal) = &source.refused_with else {
                continue;
            };
            for probe in probes {
                if !send(run, conversation, &method, refusal, probe) {
                    return false;
                }
            }
        }
    }
    true
}

/// The invalid instances for every item of `source`'s listing.
fn probes(
    run: &Run<'_>,
    method: &str,
    sources: &[ParamsFrom],
    source: &ParamsFrom,
) -> Result<Vec<Probe>, String> {
    let schema_pointer = source.schema.as_deref().unwrap_or("");
    let Some(result) = run.results.get(&source.method) else {
        return Err(format!(
            "`{method}`'s checked `{}`: `{}` gave no result to take schemas from",
            source.at, source.method
        ));
    };
    let base = run
        .params_for(method)
        .map_err(|why| format!("`{method}`: {why}"))?;
    // The list the pointer's `0` indexes (`/tools` of `/tools/0/inputSchema`).
    let (list, count) = match schema_pointer.split_once("/0/") {
        Some((list, _)) => {
            let count = result
                .pointer(list)
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            (Some(list), count)
        }
        None => (None, 1),
    };
    let mut found = Vec::new();
    for index in 0..count.min(MAX_ITEMS) {
        let indexed = |pointer: &str| match list {
            Some(list) => pointer.replacen(&format!("{list}/0"), &format!("{list}/{index}"), 1),
            None => pointer.to_owned(),
        };
        let item_sources: Vec<ParamsFrom> = sources
            .iter()
            .map(|s| ParamsFrom {
                value: s.value.as_deref().map(indexed),
                schema: s.schema.as_deref().map(indexed),
                arguments: s.arguments.as_deref().map(indexed),
                ..s.clone()
            })
            .collect();
        let Some(schema) = result.pointer(&indexed(schema_pointer)) else {
            continue;
        };
        let Some(params) = fill(&item_sources, &run.results, base.clone()) else {
            continue;
        };
        // The item's name: the value another entry copies (the tool's name).
        let label = item_sources
            .iter()
            .filter_map(|s| result.pointer(s.value.as_deref()?))
            .find_map(Value::as_str)
            .map_or_else(|| format!("item {index}"), |name| format!("`{name}`"));
        let Ok(validator) = jsonschema::validator_for(schema) else {
            continue; // the monitor judges the listing's own schemas
        };
        let Some(valid) = params.pointer(&source.at).cloned() else {
            continue;
        };
        if !validator.is_valid(&valid) {
            continue;
        }
        let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
        let broken = mutations(&Schemas::new(&defs), schema, &valid)
            .into_iter()
            // The member's own type is the method's params schema's business.
            .filter(|m| !m.pointer.is_empty() && !validator.is_valid(&m.value))
            .take(MAX_MUTATIONS);
        for mutation in broken {
            let mut sent = params.clone();
            set_at(&mut sent, &source.at, mutation.value);
            found.push(Probe {
                label: label.clone(),
                params: sent,
                pointer: format!("{}{}", source.at, mutation.pointer),
                what: format!("{} ({})", mutation.what, mutation.keyword),
            });
        }
    }
    Ok(found)
}

/// Sends one probe and judges its answer; false when the server died or hung.
fn send(
    run: &mut Run<'_>,
    conversation: &mut Conversation,
    method: &str,
    refusal: &Refusal,
    probe: Probe,
) -> bool {
    let Probe {
        label,
        params,
        pointer,
        what,
    } = probe;
    let name = format!("`{method}` of {label} refuses `{pointer}`: {what}");
    run.progress(&name);
    let mut check = Check::new("params", name);
    let index = conversation.index;
    let id = match conversation.send_request(method, Some(params), &mut check) {
        Ok(id) => id,
        Err(message) => {
            check.fail(None, format!("`{method}` could not be sent: {message}"));
            run.emit(check, index);
            return false;
        }
    };
    let wanted = match (&refusal.error_code, &refusal.result_flag) {
        (Some(code), Some(flag)) => format!("the error {code} or a result with `{flag}` true"),
        (Some(code), None) => format!("the error {code}"),
        (None, Some(flag)) => format!("a result with `{flag}` true"),
        (None, None) => "a refusal".to_owned(),
    };
    let timeout = run.answer_timeout(method);
    let alive = match conversation.await_response(timeout, &mut check) {
        Answer::Response(response) => {
            echoes(&mut check, &response, Some(&id));
            let flagged = |result: &Value| {
                refusal
                    .result_flag
                    .as_deref()
                    .and_then(|flag| result.pointer(flag))
                    == Some(&Value::Bool(true))
            };
            match &response.outcome {
                Err(error) if refusal.error_code == Some(error.code) => {
                    check.passed(format!("refused with {} as the protocol says", error.code))
                }
                Ok(result) if flagged(result) => check.passed(format!(
                    "refused with a result whose `{}` is true, as the protocol says",
                    refusal.result_flag.as_deref().unwrap_or("")
                )),
                Err(error) => check.warn(
                    Some("/error/code"),
                    format!(
                        "refused with the error {} ({}); the protocol says {wanted}",
                        error.code, error.message
                    ),
                ),
                Ok(_) => check.fail(
                    Some(&format!("/params{pointer}")),
                    format!(
                        "accepted {} for {label}, which breaks its schema at `{pointer}`: expected {wanted}",
                        what
                    ),
                ),
            }
            true
        }
        Answer::Invalid => true,
        Answer::Closed(status) => {
            check.fail(
                None,
                format!("the server exited ({status}) instead of refusing {what}"),
            );
            false
        }
        Answer::Timeout => {
            run.hung();
            check.fail(
                None,
                format!(
                    "no answer within {} s: expected {wanted}",
                    timeout.as_secs_f64()
                ),
            );
            false
        }
    };
    run.emit(check, index);
    alive
}
