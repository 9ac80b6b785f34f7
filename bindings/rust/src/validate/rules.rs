//! Semantic rules that JSON Schema cannot state, declared in the manifest's
//! `rules` and checked after the schema.
//!
//! * `not_before`: at every object matched by `at` (a JSON pointer whose
//!   `*` segments match every array item or object member), the integer at
//!   `second` must not be less than the one at `first` (gzkit: a hint's
//!   `end_line` is not before its `start_line`).
//!
//! Stateful rules (the driver protocol's observation sequence) are checked
//! by the session, not here.

use serde_json::Value;

use super::issue::{IssueKind, Part, ValidationIssue};
use crate::protocol::{ProtocolError, ProtocolErrorKind, RuleSpec};

/// The names of rules the session checks (they need state across messages).
pub const SESSION_RULES: &[&str] = &[
    "increasing_sequence",
    "last_sequence_matches",
    "matches_scope",
    "not_reused",
];

/// A compiled per-message rule.
#[derive(Debug, Clone)]
pub(crate) struct MessageRule {
    pub(crate) method: String,
    pub(crate) part: Part,
    check: Check,
}

#[derive(Debug, Clone)]
enum Check {
    NotBefore {
        at: Vec<String>,
        first: String,
        second: String,
        message: String,
    },
}

impl MessageRule {
    /// Compiles a manifest rule; `Ok(None)` for a session rule.
    pub(crate) fn compile(
        origin: &str,
        index: usize,
        spec: &RuleSpec,
    ) -> Result<Option<Self>, ProtocolError> {
        let pointer = format!("/rules/{index}");
        let fail = |message: String| {
            ProtocolError::new(
                ProtocolErrorKind::Inconsistent,
                format!("{origin}/protocol.json"),
                &pointer,
                message,
            )
        };
        let text = |name: &str| -> Result<String, ProtocolError> {
            spec.arguments
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| fail(format!("rule `{}` needs a string `{name}`", spec.rule)))
        };
        match spec.rule.as_str() {
            "not_before" => {
                let part = match text("part")?.as_str() {
                    "params" => Part::Params,
                    "result" => Part::Result,
                    "item" => Part::Item,
                    other => {
                        return Err(fail(format!(
                            "rule `not_before` cannot check part `{other}`"
                        )))
                    }
                };
                let at = text("at")?;
                let message = spec
                    .arguments
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("a value comes before the one it must not precede")
                    .to_owned();
                Ok(Some(MessageRule {
                    method: text("method")?,
                    part,
                    check: Check::NotBefore {
                        at: split_pointer(&at),
                        first: text("first")?,
                        second: text("second")?,
                        message,
                    },
                }))
            }
            name if SESSION_RULES.contains(&name) => Ok(None),
            other => Err(fail(format!("unknown rule `{other}`"))),
        }
    }

    /// Appends this rule's issues for `value`.
    pub(crate) fn check(&self, value: &Value, issues: &mut Vec<ValidationIssue>) {
        match &self.check {
            Check::NotBefore {
                at,
                first,
                second,
                message,
            } => {
                let mut matches = Vec::new();
                walk(value, at, String::new(), &mut matches);
                for (pointer, object) in matches {
                    let (Some(low), Some(high)) = (object.get(first), object.get(second)) else {
                        continue;
                    };
                    let (Some(low), Some(high)) = (low.as_f64(), high.as_f64()) else {
                        continue;
                    };
                    if high < low {
                        issues.push(ValidationIssue {
                            kind: IssueKind::Rule("not_before".into()),
                            instance_path: format!("{pointer}/{second}"),
                            schema_path: String::new(),
                            message: format!("{message} ({second} {high} is before {first} {low})"),
                        });
                    }
                }
            }
        }
    }
}

fn split_pointer(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
        .collect()
}

fn walk<'v>(value: &'v Value, rest: &[String], here: String, out: &mut Vec<(String, &'v Value)>) {
    let Some((head, tail)) = rest.split_first() else {
        out.push((here, value));
        return;
    };
    match (head.as_str(), value) {
        ("*", Value::Array(items)) => {
            for (index, item) in items.iter().enumerate() {
                walk(item, tail, format!("{here}/{index}"), out);
            }
        }
        ("*", Value::Object(members)) => {
            for (key, item) in members {
                walk(item, tail, format!("{here}/{key}"), out);
            }
        }
        (key, Value::Object(members)) => {
            if let Some(item) = members.get(key) {
                walk(item, tail, format!("{here}/{key}"), out);
            }
        }
        (key, Value::Array(items)) => {
            if let Some(item) = key.parse::<usize>().ok().and_then(|index| items.get(index)) {
                walk(item, tail, format!("{here}/{key}"), out);
            }
        }
        _ => {}
    }
}
