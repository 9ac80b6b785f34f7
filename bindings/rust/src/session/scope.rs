//! Stateful rules over a scope of messages, declared in the manifest's
//! `rules` (the driver protocol's invocations):
//!
//! * a scope opens when its `scope.start` request succeeds (its params are
//!   the scope's identity) and closes with its `scope.end` message;
//! * `increasing_sequence`: the integer at `at` strictly increases within the scope;
//! * `last_sequence_matches`: the value at `at` equals the last `observed`
//!   sequence of the scope, and is absent when nothing was observed;
//! * `matches_scope`: the values at the pointers `at` equal those of the
//!   scope's opening params;
//! * `not_reused`: the value at `at` was never `consumed` before (an
//!   invocation id completed once cannot start again).
//!
//! Messages may use `{value}`, `{previous}` and `{expected}`.

use std::collections::HashSet;

use serde_json::Value;

use crate::protocol::RuleSpec;

/// A rule failed: which, the pointer within params, and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuleFault {
    pub(crate) rule: String,
    pub(crate) pointer: String,
    pub(crate) message: String,
}

#[derive(Debug, Clone)]
struct Rule {
    name: String,
    method: String,
    at: Vec<String>,
    start: Option<String>,
    end: Option<String>,
    observed: Option<(String, String)>,
    consumed: Option<(String, String)>,
    message: String,
}

#[derive(Debug, Clone)]
struct Scope {
    identity: Value,
    last: Option<u64>,
}

/// The open scope, the values consumed so far, and the rules.
#[derive(Debug, Clone, Default)]
pub(crate) struct ScopeRules {
    rules: Vec<Rule>,
    scope: Option<Scope>,
    opening: Option<Value>,
    consumed: HashSet<String>,
}

impl ScopeRules {
    pub(crate) fn new(specs: &[RuleSpec]) -> Self {
        let text = |spec: &RuleSpec, name: &str| {
            spec.arguments
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let pair = |spec: &RuleSpec, name: &str| {
            let object = spec.arguments.get(name)?;
            Some((
                object.get("method")?.as_str()?.to_owned(),
                object.get("at")?.as_str()?.to_owned(),
            ))
        };
        let rules = specs
            .iter()
            .filter(|spec| crate::validate::SESSION_RULES.contains(&spec.rule.as_str()))
            .map(|spec| {
                let at = match spec.arguments.get("at") {
                    Some(Value::String(one)) => vec![one.clone()],
                    Some(Value::Array(many)) => many
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect(),
                    _ => Vec::new(),
                };
                let scope = spec.arguments.get("scope");
                let scope_end = |key: &str| {
                    scope
                        .and_then(|s| s.get(key))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                };
                Rule {
                    name: spec.rule.clone(),
                    method: text(spec, "method").unwrap_or_default(),
                    at,
                    start: scope_end("start"),
                    end: scope_end("end"),
                    observed: pair(spec, "observed"),
                    consumed: pair(spec, "consumed"),
                    message: text(spec, "message")
                        .unwrap_or_else(|| format!("rule `{}` failed", spec.rule)),
                }
            })
            .collect();
        ScopeRules {
            rules,
            ..ScopeRules::default()
        }
    }

    /// Whether some rule reads `method`'s params.
    pub(crate) fn names(&self, method: &str) -> bool {
        self.rules.iter().any(|rule| rule.method == method)
    }

    /// Checks a message's params against every rule for its method.
    pub(crate) fn check(&mut self, method: &str, params: Option<&Value>) -> Result<(), RuleFault> {
        let empty = Value::Null;
        let params = params.unwrap_or(&empty);
        for rule in self.rules.iter().filter(|r| r.method == method) {
            let first = rule.at.first().map(String::as_str).unwrap_or("");
            let value = params.pointer(first);
            let fault = |message: String| RuleFault {
                rule: rule.name.clone(),
                pointer: first.to_owned(),
                message,
            };
            let show = |v: Option<&Value>| v.map_or_else(|| "absent".to_owned(), Value::to_string);
            match rule.name.as_str() {
                "increasing_sequence" => {
                    let (Some(scope), Some(current)) = (&self.scope, value.and_then(Value::as_u64))
                    else {
                        continue;
                    };
                    if let Some(previous) = scope.last.filter(|previous| current <= *previous) {
                        let text = fill(&rule.message, &show(value), &previous.to_string(), "");
                        return Err(fault(text));
                    }
                }
                "last_sequence_matches" => {
                    let Some(scope) = &self.scope else { continue };
                    let matches = match (scope.last, value) {
                        (None, None) => true,
                        (Some(last), Some(v)) => v.as_u64() == Some(last),
                        _ => false,
                    };
                    if !matches {
                        let expected = scope.last.map_or_else(
                            || "absent (nothing was observed)".to_owned(),
                            |l| l.to_string(),
                        );
                        return Err(fault(fill(&rule.message, &show(value), "", &expected)));
                    }
                }
                "matches_scope" => {
                    let Some(scope) = &self.scope else { continue };
                    for pointer in &rule.at {
                        let (mine, theirs) =
                            (params.pointer(pointer), scope.identity.pointer(pointer));
                        if mine != theirs {
                            let text = format!(
                                "{} ({pointer} is {}, the scope's is {})",
                                rule.message,
                                show(mine),
                                show(theirs)
                            );
                            return Err(RuleFault {
                                rule: rule.name.clone(),
                                pointer: pointer.clone(),
                                message: text,
                            });
                        }
                    }
                }
                "not_reused" => {
                    if let Some(value) = value.filter(|v| self.consumed.contains(&v.to_string())) {
                        return Err(fault(fill(&rule.message, &value.to_string(), "", "")));
                    }
                }
                _ => {}
            }
        }
        if self
            .rules
            .iter()
            .any(|r| r.start.as_deref() == Some(method))
        {
            self.opening = Some(params.clone());
        }
        Ok(())
    }

    /// Records a message that passed (a notification, or a request answered
    /// with success): opens or closes the scope, tracks sequences and
    /// consumed values.
    pub(crate) fn record(&mut self, method: &str, params: Option<&Value>) {
        let empty = Value::Null;
        let params = params.unwrap_or(&empty);
        for rule in &self.rules {
            if let (Some(scope), Some((observed, at))) = (&mut self.scope, &rule.observed) {
                if observed == method {
                    if let Some(sequence) = params.pointer(at).and_then(Value::as_u64) {
                        scope.last = Some(sequence);
                    }
                }
            }
            if let Some((consumer, at)) = &rule.consumed {
                if consumer == method {
                    if let Some(value) = params.pointer(at) {
                        self.consumed.insert(value.to_string());
                    }
                }
            }
        }
        if self.rules.iter().any(|r| r.end.as_deref() == Some(method)) {
            self.scope = None;
        }
    }

    /// The scope's start request succeeded: the scope opens with its params.
    pub(crate) fn opened(&mut self, method: &str) {
        if self
            .rules
            .iter()
            .any(|r| r.start.as_deref() == Some(method))
        {
            let identity = self.opening.take().unwrap_or(Value::Null);
            self.scope = Some(Scope {
                identity,
                last: None,
            });
        }
    }
}

fn fill(template: &str, value: &str, previous: &str, expected: &str) -> String {
    template
        .replace("{value}", value)
        .replace("{previous}", previous)
        .replace("{expected}", expected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn driver_rules() -> ScopeRules {
        let scope = json!({"start": "invoke", "end": "done"});
        let specs: Vec<RuleSpec> = serde_json::from_value(json!([
            {"rule": "increasing_sequence", "method": "obs", "at": "/seq", "scope": scope, "message": "{value} after {previous}"},
            {"rule": "last_sequence_matches", "method": "done", "at": "/last", "observed": {"method": "obs", "at": "/seq"}, "scope": scope, "message": "{value} vs {expected}"},
            {"rule": "matches_scope", "method": "obs", "at": ["/inv"], "scope": scope, "message": "wrong invocation"},
            {"rule": "not_reused", "method": "invoke", "at": "/inv", "consumed": {"method": "done", "at": "/inv"}, "message": "{value} reused"}
        ]))
        .expect("rules");
        ScopeRules::new(&specs)
    }

    fn pass(rules: &mut ScopeRules, method: &str, params: Value) {
        rules.check(method, Some(&params)).expect("passes");
        rules.record(method, Some(&params));
        rules.opened(method);
    }

    #[test]
    fn a_whole_invocation_and_its_faults() {
        let mut rules = driver_rules();
        pass(&mut rules, "invoke", json!({"inv": "a"}));
        pass(&mut rules, "obs", json!({"inv": "a", "seq": 1}));
        pass(&mut rules, "obs", json!({"inv": "a", "seq": 4}));
        let backwards = rules
            .check("obs", Some(&json!({"inv": "a", "seq": 4})))
            .expect_err("not increasing");
        assert_eq!(
            (backwards.pointer.as_str(), backwards.message.as_str()),
            ("/seq", "4 after 4")
        );
        assert_eq!(
            rules
                .check("obs", Some(&json!({"inv": "b", "seq": 9})))
                .expect_err("other scope")
                .pointer,
            "/inv"
        );
        assert_eq!(
            rules
                .check("done", Some(&json!({"inv": "a", "last": 1})))
                .expect_err("wrong last")
                .message,
            "1 vs 4"
        );
        pass(&mut rules, "done", json!({"inv": "a", "last": 4}));
        assert_eq!(
            rules
                .check("invoke", Some(&json!({"inv": "a"})))
                .expect_err("reused")
                .message,
            "\"a\" reused"
        );
        pass(&mut rules, "invoke", json!({"inv": "b"}));
        assert!(
            rules
                .check("done", Some(&json!({"inv": "b", "last": 0})))
                .is_err(),
            "nothing observed: absent"
        );
        pass(&mut rules, "done", json!({"inv": "b"}));
    }
}
