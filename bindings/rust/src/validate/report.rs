//! A schema check: a compiled validator and how its failures become
//! [`ValidationIssue`]s.
//!
//! The verdict is always the `jsonschema` crate's `is_valid`. The report of
//! a failure is the crate's full error list, except for a schema whose
//! alternatives overlap recursively (`overlap.rs`), where that list can grow
//! exponentially with the instance's depth: those take the bounded descent
//! of `descent.rs`, which names the deepest failing place it can find.

use jsonschema::Validator;
use serde_json::Value;

use super::crate_errors::push_errors;
use super::descent::Descent;
use super::issue::ValidationIssue;

/// One compiled schema of a protocol (a method's params, result or item,
/// or the error schemas).
#[derive(Debug)]
pub(super) struct SchemaCheck {
    validator: Validator,
    /// Set when a full report of this schema can explode.
    bounded: Option<Descent>,
}

impl SchemaCheck {
    pub(super) fn new(validator: Validator, bounded: Option<Descent>) -> Self {
        SchemaCheck { validator, bounded }
    }

    /// The crate's verdict.
    pub(super) fn is_valid(&self, value: &Value) -> bool {
        self.validator.is_valid(value)
    }

    /// Whether the report of this schema takes the bounded descent.
    pub(super) fn is_bounded(&self) -> bool {
        self.bounded.is_some()
    }

    /// Appends the issues of `value` (none when valid). The same place and
    /// keyword is reported once.
    pub(super) fn collect(&self, value: &Value, issues: &mut Vec<ValidationIssue>) {
        if self.is_valid(value) {
            return;
        }
        let first = issues.len();
        match &self.bounded {
            Some(descent) => descent.report(value, issues),
            None => push_errors(self.validator.iter_errors(value), value, "", "", issues),
        }
        let mut seen = std::collections::HashSet::new();
        let mut index = 0;
        issues.retain(|issue| {
            index += 1;
            index <= first || seen.insert((issue.instance_path.clone(), issue.keyword().to_owned()))
        });
    }
}
