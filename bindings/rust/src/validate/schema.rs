//! A JSON Schema of its own, outside any protocol's files: a tool's
//! `inputSchema`, an elicitation's `requestedSchema`, a schema a program
//! builds at run time.
//!
//! It is judged by the same rules as a protocol's schemas: the verdict is
//! the `jsonschema` crate's, the issues are the same [`ValidationIssue`]s
//! (JSON-pointer places, the keyword, a message), and a schema whose
//! alternatives overlap recursively is reported by the bounded descent, so
//! no instance makes the report explode. The dialect is the one the
//! schema's `$schema` names (draft 2020-12, 2019-09 or draft-07), 2020-12
//! when it names none (MCP's rule for a tool's schemas); `format` is an
//! annotation, as in those drafts. References resolve inside the schema
//! (`#/$defs/...`); a reference elsewhere is refused when it compiles,
//! never fetched.
//!
//! ```
//! use wirekit::validate::Schema;
//! use serde_json::json;
//!
//! let add = Schema::compile(&json!({
//!     "type": "object",
//!     "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
//!     "required": ["a", "b"]
//! })).unwrap();
//! let issues = add.validate(&json!({"a": "2"}), "/arguments");
//! let mut found: Vec<_> = issues.iter().map(|i| (i.instance_path.as_str(), i.keyword())).collect();
//! found.sort();
//! assert_eq!(found, [("/arguments/a", "type"), ("/arguments/b", "required")]);
//! ```

use std::fmt;
use std::sync::Arc;

use jsonschema::Draft;
use serde_json::Value;

use super::descent::{Descent, DescentCache};
use super::issue::ValidationIssue;
use super::overlap::Overlaps;
use super::report::SchemaCheck;

/// A compiled JSON Schema, ready to judge values.
#[derive(Debug)]
pub struct Schema {
    check: SchemaCheck,
}

/// Why a schema did not compile: its dialect is one wirekit does not read,
/// a keyword's value is malformed, or a reference cannot be resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    message: String,
}

impl SchemaError {
    /// What is wrong with the schema, for a person.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SchemaError {}

impl Schema {
    /// Compiles `schema` (an object or a boolean).
    pub fn compile(schema: &Value) -> Result<Schema, SchemaError> {
        let draft = Draft::Draft202012.detect(schema);
        if matches!(draft, Draft::Draft4 | Draft::Draft6) {
            return Err(SchemaError {
                message: format!(
                    "`$schema` names {}, a dialect wirekit does not read: write the schema in draft \
                     2020-12, 2019-09 or draft-07",
                    schema.get("$schema").unwrap_or(&Value::Null)
                ),
            });
        }
        let validator = jsonschema::options()
            .with_draft(draft)
            .should_validate_formats(false)
            .build(schema)
            .map_err(|error| SchemaError {
                message: error.to_string(),
            })?;
        // Only the whole schema is an entry; the descent reads the schema
        // itself as its document, references inside it resolving there.
        let bounded = Overlaps::of(schema).reach("").then(|| {
            Descent::new(
                Arc::new(schema.clone()),
                String::new(),
                &DescentCache::default(),
            )
        });
        Ok(Schema {
            check: SchemaCheck::new(validator, bounded),
        })
    }

    /// Whether `value` is valid.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.check.is_valid(value)
    }

    /// The issues of `value`, none when it is valid. `place` is the pointer
    /// of `value` in the message it came from (`/arguments`; `""` for none)
    /// and begins every issue's `instance_path`.
    pub fn validate(&self, value: &Value, place: &str) -> Vec<ValidationIssue> {
        let mut issues = Vec::new();
        self.check.collect(value, &mut issues);
        if !place.is_empty() {
            for issue in &mut issues {
                issue.instance_path.insert_str(0, place);
            }
        }
        issues
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_valid_value_has_no_issue_and_an_invalid_one_its_pointer() {
        let schema = Schema::compile(&json!({
            "type": "object",
            "properties": {"name": {"type": "string", "maxLength": 3}},
            "additionalProperties": false
        }))
        .expect("compiles");
        assert!(!schema.check.is_bounded());
        assert!(schema.is_valid(&json!({"name": "abc"})));
        assert!(schema.validate(&json!({"name": "abc"}), "").is_empty());
        let issues = schema.validate(&json!({"name": "abcd", "x": 1}), "");
        let found: Vec<(&str, &str)> = issues
            .iter()
            .map(|issue| (issue.instance_path.as_str(), issue.keyword()))
            .collect();
        assert!(found.contains(&("/name", "maxLength")), "{found:?}");
        assert!(found.contains(&("/x", "additionalProperties")), "{found:?}");
    }

    #[test]
    fn references_resolve_inside_the_schema() {
        let schema = Schema::compile(&json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
            "type": "object",
            "properties": {"address": {"$ref": "#/$defs/address"}}
        }))
        .expect("compiles");
        let issues = schema.validate(&json!({"address": {"city": 7}}), "/arguments");
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].instance_path, "/arguments/address/city");
    }

    #[test]
    fn draft_07_is_read_and_draft_4_refused() {
        let seven = Schema::compile(&json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "items": [{"type": "integer"}]
        }))
        .expect("draft-07 compiles");
        assert!(!seven.is_valid(&json!(["x"])));
        let four = Schema::compile(&json!({"$schema": "http://json-schema.org/draft-04/schema#"}));
        let message = four.map(|_| ()).expect_err("draft 4 is refused");
        assert!(message.message().contains("draft 2020-12"), "{message}");
    }

    #[test]
    fn a_malformed_schema_or_a_reference_outside_it_is_refused() {
        assert!(Schema::compile(&json!({"type": 7})).is_err());
        assert!(Schema::compile(&json!({"$ref": "#/$defs/missing"})).is_err());
        assert!(Schema::compile(&json!({"$ref": "https://example.com/other.json"})).is_err());
    }

    #[test]
    fn recursively_overlapping_alternatives_are_reported_without_exploding() {
        // Two alternatives that both accept a nested list: a full report
        // doubles with every level.
        let schema = Schema::compile(&json!({
            "$defs": {"tree": {"anyOf": [
                {"type": "array", "items": {"$ref": "#/$defs/tree"}},
                {"type": "array", "items": {"$ref": "#/$defs/tree"}, "maxItems": 5},
                {"type": "integer"}
            ]}},
            "$ref": "#/$defs/tree"
        }))
        .expect("compiles");
        assert!(schema.check.is_bounded(), "the overlap is found");
        let mut value = json!("leaf");
        for _ in 0..40 {
            value = json!([value]);
        }
        let issues = schema.validate(&value, "");
        assert!(!issues.is_empty());
        assert!(issues.len() < 100, "{} issues", issues.len());
    }
}
