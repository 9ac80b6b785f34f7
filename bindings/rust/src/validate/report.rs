//! A schema check: a compiled validator and how its failures become
//! [`ValidationIssue`]s.
//!
//! The verdict is always the `jsonschema` crate's `is_valid`. The report of
//! a failure is the crate's full error list, except for a schema whose
//! alternatives overlap recursively (`overlap.rs`), where that list can grow
//! exponentially with the instance's depth: those take the bounded descent
//! of `descent.rs`, which names the deepest failing place it can find.

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use super::descent::Descent;
use super::issue::{IssueKind, ValidationIssue};
use super::pointer::escape_segment;

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

    /// Whether the report of this schema takes the bounded descent.
    pub(super) fn is_bounded(&self) -> bool {
        self.bounded.is_some()
    }

    /// Appends the issues of `value` (none when valid). The same place and
    /// keyword is reported once.
    pub(super) fn collect(&self, value: &Value, issues: &mut Vec<ValidationIssue>) {
        if self.validator.is_valid(value) {
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

/// Turns the crate's errors about `value` into issues. `place` is `value`'s
/// own pointer in the checked part and `schema_at` the pointer of the schema
/// that reported, both put before the crate's relative paths.
pub(super) fn push_errors<'a>(
    errors: impl Iterator<Item = ValidationError<'a>>,
    value: &Value,
    place: &str,
    schema_at: &str,
    issues: &mut Vec<ValidationIssue>,
) {
    for error in errors {
        let base = error.instance_path().as_str().to_owned();
        let schema_path = format!("{schema_at}{}", error.schema_path().as_str());
        let mut keyword = error.kind().keyword().to_owned();
        let message = error.to_string();
        let members: Vec<String> = match error.kind() {
            ValidationErrorKind::Required { property } => {
                if schema_path.ends_with("/dependentRequired")
                    || schema_path.contains("/dependentRequired/")
                {
                    keyword = "dependentRequired".to_owned();
                }
                vec![property
                    .as_str()
                    .map_or_else(|| property.to_string(), str::to_owned)]
            }
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => unexpected.clone(),
            // `additionalProperties: false` beside no `properties` is compiled
            // to a false schema reported at the object: every member is unexpected.
            ValidationErrorKind::FalseSchema if schema_path.ends_with("/additionalProperties") => {
                keyword = "additionalProperties".to_owned();
                value
                    .pointer(&base)
                    .and_then(Value::as_object)
                    .map(|object| object.keys().cloned().collect())
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        };
        if members.is_empty() {
            issues.push(ValidationIssue {
                kind: IssueKind::Schema(keyword),
                instance_path: format!("{place}{base}"),
                schema_path,
                message,
            });
            continue;
        }
        for member in members {
            let message = match keyword.as_str() {
                "required" => format!("required member `{member}` is missing"),
                "dependentRequired" => {
                    format!("member `{member}` is required by another member that is present")
                }
                _ => format!("member `{member}` is not allowed here"),
            };
            issues.push(ValidationIssue {
                kind: IssueKind::Schema(keyword.clone()),
                instance_path: format!("{place}{base}/{}", escape_segment(&member)),
                schema_path: schema_path.clone(),
                message,
            });
        }
    }
}
