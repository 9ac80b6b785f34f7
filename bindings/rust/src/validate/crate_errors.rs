//! The `jsonschema` crate's validation errors as [`ValidationIssue`]s: one
//! issue an error, or one a member where the error names several
//! (`required`, `additionalProperties`), each at its own pointer. Both the
//! full report (`report.rs`) and the bounded descent (`descent.rs`) use it.

use jsonschema::error::ValidationErrorKind;
use jsonschema::ValidationError;
use serde_json::Value;

use super::issue::{IssueKind, ValidationIssue};
use super::pointer::escape_segment;

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
