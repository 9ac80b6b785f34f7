//! Stateful sequence rules (the driver protocol's observations):
//!
//! * `increasing_sequence`: within one scope (an invocation), the integer at
//!   `sequence` of each `method` notification is strictly greater than the
//!   previous one.
//! * `last_sequence_matches`: the terminal `method` carries at
//!   `last_sequence` the last sequence seen in its scope, and omits it when
//!   nothing was observed.
//!
//! Arguments: `method`, `scope` (a JSON pointer into params naming the
//! scope; absent means one scope), and `sequence` / `last_sequence`.

use std::collections::HashMap;

use serde_json::Value;

use crate::protocol::RuleSpec;

/// A sequence rule failed: the pointer (within params) and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SequenceFault {
    pub(crate) rule: &'static str,
    pub(crate) pointer: String,
    pub(crate) message: String,
}

#[derive(Debug, Clone)]
enum Rule {
    Increasing {
        method: String,
        scope: String,
        sequence: String,
    },
    LastMatches {
        method: String,
        scope: String,
        last: String,
    },
}

/// Tracks the last sequence of each scope.
#[derive(Debug, Clone, Default)]
pub(crate) struct SequenceTracker {
    rules: Vec<Rule>,
    last: HashMap<String, u64>,
}

impl SequenceTracker {
    pub(crate) fn new(specs: &[RuleSpec]) -> Self {
        let text = |spec: &RuleSpec, name: &str, default: &str| {
            spec.arguments
                .get(name)
                .and_then(Value::as_str)
                .unwrap_or(default)
                .to_owned()
        };
        let rules = specs
            .iter()
            .filter_map(|spec| match spec.rule.as_str() {
                "increasing_sequence" => Some(Rule::Increasing {
                    method: text(spec, "method", ""),
                    scope: text(spec, "scope", ""),
                    sequence: text(spec, "sequence", "/sequence"),
                }),
                "last_sequence_matches" => Some(Rule::LastMatches {
                    method: text(spec, "method", ""),
                    scope: text(spec, "scope", ""),
                    last: text(spec, "last_sequence", "/last_sequence"),
                }),
                _ => None,
            })
            .collect();
        SequenceTracker {
            rules,
            last: HashMap::new(),
        }
    }

    /// Checks a message's params; records its sequence when all is well.
    pub(crate) fn observe(
        &mut self,
        method: &str,
        params: Option<&Value>,
    ) -> Result<(), SequenceFault> {
        let empty = Value::Null;
        let params = params.unwrap_or(&empty);
        for rule in &self.rules {
            match rule {
                Rule::Increasing {
                    method: m,
                    scope,
                    sequence,
                } if m == method => {
                    let key = scope_key(params, scope);
                    let Some(current) = params.pointer(sequence).and_then(Value::as_u64) else {
                        continue;
                    };
                    if let Some(previous) = self.last.get(&key) {
                        if current <= *previous {
                            return Err(SequenceFault {
                                rule: "increasing_sequence",
                                pointer: sequence.clone(),
                                message: format!(
                                    "sequence {current} does not follow {previous}: sequences must strictly increase"
                                ),
                            });
                        }
                    }
                }
                Rule::LastMatches {
                    method: m,
                    scope,
                    last,
                } if m == method => {
                    let key = scope_key(params, scope);
                    let declared = params.pointer(last);
                    match (self.last.get(&key), declared) {
                        (None, Some(value)) => {
                            return Err(SequenceFault {
                                rule: "last_sequence_matches",
                                pointer: last.clone(),
                                message: format!("last_sequence is {value} but nothing was observed; it must be absent"),
                            })
                        }
                        (Some(seen), None) => {
                            return Err(SequenceFault {
                                rule: "last_sequence_matches",
                                pointer: last.clone(),
                                message: format!("last_sequence is absent but observation {seen} was sent"),
                            })
                        }
                        (Some(seen), Some(value)) if value.as_u64() != Some(*seen) => {
                            return Err(SequenceFault {
                                rule: "last_sequence_matches",
                                pointer: last.clone(),
                                message: format!("last_sequence is {value} but the last observation was {seen}"),
                            })
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        self.record(method, params);
        Ok(())
    }

    fn record(&mut self, method: &str, params: &Value) {
        let mut updates = Vec::new();
        for rule in &self.rules {
            match rule {
                Rule::Increasing {
                    method: m,
                    scope,
                    sequence,
                } if m == method => {
                    if let Some(current) = params.pointer(sequence).and_then(Value::as_u64) {
                        updates.push((scope_key(params, scope), Some(current)));
                    }
                }
                Rule::LastMatches {
                    method: m, scope, ..
                } if m == method => {
                    updates.push((scope_key(params, scope), None));
                }
                _ => {}
            }
        }
        for (key, value) in updates {
            match value {
                Some(value) => {
                    self.last.insert(key, value);
                }
                None => {
                    self.last.remove(&key);
                }
            }
        }
    }
}

fn scope_key(params: &Value, scope: &str) -> String {
    if scope.is_empty() {
        return String::new();
    }
    params
        .pointer(scope)
        .map(Value::to_string)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tracker() -> SequenceTracker {
        let specs: Vec<RuleSpec> = serde_json::from_value(json!([
            {"rule": "increasing_sequence", "method": "obs", "scope": "/inv", "sequence": "/seq"},
            {"rule": "last_sequence_matches", "method": "done", "scope": "/inv", "last_sequence": "/last"}
        ]))
        .expect("rules");
        SequenceTracker::new(&specs)
    }

    #[test]
    fn sequences_must_increase_within_a_scope() {
        let mut t = tracker();
        assert!(t
            .observe("obs", Some(&json!({"inv": "a", "seq": 1})))
            .is_ok());
        assert!(t
            .observe("obs", Some(&json!({"inv": "a", "seq": 5})))
            .is_ok());
        assert!(t
            .observe("obs", Some(&json!({"inv": "b", "seq": 1})))
            .is_ok());
        let fault = t
            .observe("obs", Some(&json!({"inv": "a", "seq": 5})))
            .expect_err("repeat");
        assert_eq!(fault.pointer, "/seq");
        assert!(t
            .observe("done", Some(&json!({"inv": "a", "last": 5})))
            .is_ok());
        assert!(t
            .observe("done", Some(&json!({"inv": "b", "last": 2})))
            .is_err());
    }

    #[test]
    fn last_sequence_absent_iff_nothing_observed() {
        let mut t = tracker();
        assert!(t.observe("done", Some(&json!({"inv": "x"}))).is_ok());
        assert_eq!(
            t.observe("done", Some(&json!({"inv": "y", "last": 0})))
                .expect_err("none seen")
                .rule,
            "last_sequence_matches"
        );
        assert!(t
            .observe("obs", Some(&json!({"inv": "z", "seq": 3})))
            .is_ok());
        assert!(t.observe("done", Some(&json!({"inv": "z"}))).is_err());
    }
}
