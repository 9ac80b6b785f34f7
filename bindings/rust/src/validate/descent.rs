//! The bounded report of a schema whose alternatives overlap recursively.
//!
//! For such a schema the `jsonschema` crate's error list can hold
//! branches^depth errors (`overlap.rs`), and the instance is the peer's.
//! The descent follows one path down the instance and asks only questions
//! that cannot explode: `is_valid` of one subschema against one place, and
//! the crate's full report of one subschema's *own* keywords (every
//! applicator replaced by `true`, so nothing recurses). At each subschema
//! on the path:
//!
//! 1. The own keywords' failures are reported, with the crate's messages.
//! 2. The first applicator whose subschema fails is followed, in this order:
//!    `$ref`, `allOf` items, `then`/`else`, `dependentSchemas`, the members
//!    (`properties`, `patternProperties`, `additionalProperties`) and the
//!    items (`prefixItems`, `items`) in the instance's order; then, for an
//!    `anyOf` or `oneOf` that no alternative matches, the first alternative
//!    whose own keywords accept the place (through its `$ref`s): the one
//!    the value was most likely meant to be.
//! 3. Where nothing is followed, the failure is at this place: a failed
//!    `anyOf` is reported as matching none of its alternatives and a failed
//!    `oneOf` as matching none or several (by index), without their
//!    branches' errors.
//!
//! Each step goes one level deeper into the instance or one reference along
//! the schema, and there are at most [`MAX_STEPS`]. Only the first failing
//! member or item of a place is followed: the report is one path, not the
//! crate's every error.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use jsonschema::Validator;
use serde_json::{json, Map, Value};

use super::crate_errors::push_errors;
use super::issue::{IssueKind, ValidationIssue};
use super::pointer::{escape_segment, pointer_ref, ref_pointer};
use crate::protocol::bundle::DRAFT_2020_12;

/// How many steps the descent takes at most.
pub(super) const MAX_STEPS: usize = 4096;

/// The questions a descent asks, compiled once per protocol and kept.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Question {
    /// Is the place valid against the subschema at this pointer?
    Valid(String),
    /// Only the subschema's own keywords, applicators replaced by `true`.
    Shallow(String),
    /// Only the subschema's `type`.
    Type(String),
    /// Does a member name match this `patternProperties` pattern?
    Pattern(String),
    /// Is a member name additional for the subschema at this pointer?
    Additional(String),
}

/// The validators of the questions asked so far, shared by the protocol's
/// schemas (`None`: the question's schema did not compile).
type Answers = Arc<Mutex<HashMap<Question, Option<Arc<Validator>>>>>;

/// The bounded report of one schema: its entry in the bundled document.
#[derive(Debug)]
pub(super) struct Descent {
    document: Arc<Value>,
    entry: String,
    answers: Answers,
}

/// The questions of one protocol's schemas.
#[derive(Debug, Clone, Default)]
pub(super) struct DescentCache(Answers);

enum Step<'v> {
    /// The failure is deeper: this subschema, at this place.
    Into(String, Option<String>, &'v Value),
    /// The failure is at this place.
    Here,
}

impl Descent {
    /// The descent of the subschema at `entry` (a pointer into `document`,
    /// the bundled `{"$schema", "$defs"}`).
    pub(super) fn new(document: Arc<Value>, entry: String, cache: &DescentCache) -> Self {
        Descent {
            document,
            entry,
            answers: cache.0.clone(),
        }
    }

    /// Appends the issues of `value`, which the schema refuses.
    pub(super) fn report(&self, value: &Value, issues: &mut Vec<ValidationIssue>) {
        let before = issues.len();
        let mut pointer = self.entry.clone();
        let mut place = String::new();
        let mut instance = value;
        for _ in 0..MAX_STEPS {
            self.report_own(&pointer, instance, &place, issues);
            match self.step(&pointer, instance) {
                Step::Into(next, segment, deeper) => {
                    if let Some(segment) = segment {
                        place.push('/');
                        place.push_str(&escape_segment(&segment));
                    }
                    pointer = next;
                    instance = deeper;
                }
                Step::Here => break,
            }
        }
        self.report_alternatives(&pointer, instance, &place, issues);
        if issues.len() == before {
            issues.push(ValidationIssue {
                kind: IssueKind::Schema("schema".to_owned()),
                instance_path: place,
                schema_path: pointer.clone(),
                message: format!(
                    "the value does not match the schema at `{pointer}` (its alternatives overlap \
                     recursively, so only the place is reported)"
                ),
            });
        }
    }

    fn step<'v>(&self, pointer: &str, instance: &'v Value) -> Step<'v> {
        let Some(Value::Object(schema)) = self.document.pointer(pointer) else {
            return Step::Here;
        };
        let fails = |at: &str, place: &Value| !self.ask(Question::Valid(at.to_owned()), place);
        let into = |at: String| Step::Into(at, None, instance);
        if let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(ref_pointer)
        {
            if fails(&target, instance) {
                return into(target);
            }
        }
        if let Some(Value::Array(items)) = schema.get("allOf") {
            if let Some(at) = (0..items.len())
                .map(|i| format!("{pointer}/allOf/{i}"))
                .find(|at| fails(at, instance))
            {
                return into(at);
            }
        }
        if schema.contains_key("if") {
            let branch = if fails(&format!("{pointer}/if"), instance) {
                "else"
            } else {
                "then"
            };
            let at = format!("{pointer}/{branch}");
            if schema.contains_key(branch) && fails(&at, instance) {
                return into(at);
            }
        }
        match instance {
            Value::Object(members) => {
                if let Some(Value::Object(dependent)) = schema.get("dependentSchemas") {
                    for name in dependent.keys().filter(|name| members.contains_key(*name)) {
                        let at = format!("{pointer}/dependentSchemas/{}", escape_segment(name));
                        if fails(&at, instance) {
                            return into(at);
                        }
                    }
                }
                for (name, member) in members {
                    let child = |at: String| Step::Into(at, Some(name.clone()), member);
                    let escaped = escape_segment(name);
                    let declared = schema.get("properties").and_then(|p| p.get(name)).is_some();
                    if declared {
                        let at = format!("{pointer}/properties/{escaped}");
                        if fails(&at, member) {
                            return child(at);
                        }
                    }
                    let probe = json!({ name.as_str(): null });
                    if let Some(Value::Object(patterns)) = schema.get("patternProperties") {
                        for pattern in patterns.keys() {
                            let at =
                                format!("{pointer}/patternProperties/{}", escape_segment(pattern));
                            if !self.ask(Question::Pattern(at.clone()), &probe)
                                && fails(&at, member)
                            {
                                return child(at);
                            }
                        }
                    }
                    if schema.contains_key("additionalProperties")
                        && !declared
                        && !self.ask(Question::Additional(pointer.to_owned()), &probe)
                    {
                        let at = format!("{pointer}/additionalProperties");
                        if fails(&at, member) {
                            return child(at);
                        }
                    }
                }
            }
            Value::Array(items) => {
                let prefix = schema
                    .get("prefixItems")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                for (index, item) in items.iter().enumerate() {
                    let at = if index < prefix {
                        format!("{pointer}/prefixItems/{index}")
                    } else if schema.contains_key("items") {
                        format!("{pointer}/items")
                    } else {
                        continue;
                    };
                    if fails(&at, item) {
                        return Step::Into(at, Some(index.to_string()), item);
                    }
                }
            }
            _ => {}
        }
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = schema.get(keyword) else {
                continue;
            };
            let branch = |i: usize| format!("{pointer}/{keyword}/{i}");
            if (0..branches.len()).all(|i| fails(&branch(i), instance)) {
                // The alternative meant: the first whose own keywords accept
                // the place, or else whose type does.
                let meant = [Question::Shallow, Question::Type]
                    .into_iter()
                    .find_map(|ask| {
                        (0..branches.len())
                            .map(branch)
                            .find(|at| self.accepts_along_refs(at, instance, ask))
                    });
                if let Some(at) = meant {
                    return into(at);
                }
            }
        }
        Step::Here
    }

    /// Whether the question `ask` about the subschema at `pointer`, and
    /// about those its `$ref`s lead to, accepts the place.
    fn accepts_along_refs(
        &self,
        pointer: &str,
        instance: &Value,
        ask: fn(String) -> Question,
    ) -> bool {
        let mut at = pointer.to_owned();
        for _ in 0..MAX_STEPS {
            if !self.ask(ask(at.clone()), instance) {
                return false;
            }
            let Some(target) = self
                .document
                .pointer(&at)
                .and_then(|schema| schema.get("$ref"))
                .and_then(Value::as_str)
                .and_then(ref_pointer)
            else {
                return true;
            };
            at = target;
        }
        true
    }

    /// The failures of the own keywords of the subschema at `pointer`.
    fn report_own(
        &self,
        pointer: &str,
        instance: &Value,
        place: &str,
        issues: &mut Vec<ValidationIssue>,
    ) {
        match self.document.pointer(pointer) {
            Some(Value::Object(_)) => {
                if let Some(validator) = self.validator(&Question::Shallow(pointer.to_owned())) {
                    push_errors(
                        validator.iter_errors(instance),
                        instance,
                        place,
                        pointer,
                        issues,
                    );
                }
            }
            Some(Value::Bool(false)) => issues.push(ValidationIssue {
                kind: IssueKind::Schema("false".to_owned()),
                instance_path: place.to_owned(),
                schema_path: pointer.to_owned(),
                message: "no value is allowed here".to_owned(),
            }),
            _ => {}
        }
    }

    /// The failed `anyOf` and `oneOf` of the subschema at `pointer`, where
    /// the descent stopped.
    fn report_alternatives(
        &self,
        pointer: &str,
        instance: &Value,
        place: &str,
        issues: &mut Vec<ValidationIssue>,
    ) {
        let Some(Value::Object(schema)) = self.document.pointer(pointer) else {
            return;
        };
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = schema.get(keyword) else {
                continue;
            };
            let matching: Vec<usize> = (0..branches.len())
                .filter(|i| {
                    self.ask(
                        Question::Valid(format!("{pointer}/{keyword}/{i}")),
                        instance,
                    )
                })
                .take(2)
                .collect();
            let message = match (keyword, matching.as_slice()) {
                (_, []) => format!(
                    "the value matches none of the {} alternatives of `{keyword}`",
                    branches.len()
                ),
                ("oneOf", [a, b]) => format!(
                    "the value matches more than one alternative of `oneOf` (#{a} and #{b})"
                ),
                _ => continue,
            };
            issues.push(ValidationIssue {
                kind: IssueKind::Schema(keyword.to_owned()),
                instance_path: place.to_owned(),
                schema_path: format!("{pointer}/{keyword}"),
                message,
            });
        }
    }

    /// The answer to `question` about `place`; a question whose schema
    /// does not compile is answered yes (the descent then stops here).
    fn ask(&self, question: Question, place: &Value) -> bool {
        self.validator(&question)
            .is_none_or(|validator| validator.is_valid(place))
    }

    fn validator(&self, question: &Question) -> Option<Arc<Validator>> {
        let mut answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(known) = answers.get(question) {
            return known.clone();
        }
        let built = self.question_schema(question).and_then(|schema| {
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .build(&schema)
                .ok()
                .map(Arc::new)
        });
        answers.insert(question.clone(), built.clone());
        built
    }

    /// The schema that answers `question`, with the bundle's `$defs`.
    fn question_schema(&self, question: &Question) -> Option<Value> {
        let mut root = Map::new();
        match question {
            Question::Valid(at) => {
                root.insert("$ref".into(), Value::String(pointer_ref(at)));
            }
            Question::Shallow(at) => {
                let Value::Object(schema) = self.document.pointer(at)? else {
                    return None;
                };
                root = shallow(schema);
            }
            Question::Type(at) => {
                if let Some(kind) = self.document.pointer(at)?.get("type") {
                    root.insert("type".into(), kind.clone());
                }
            }
            Question::Pattern(at) => {
                let (_, pattern) = at.rsplit_once('/')?;
                let pattern = pattern.replace("~1", "/").replace("~0", "~");
                root.insert("patternProperties".into(), json!({ pattern: false }));
            }
            Question::Additional(at) => {
                let Value::Object(schema) = self.document.pointer(at)? else {
                    return None;
                };
                for key in ["properties", "patternProperties"] {
                    if let Some(Value::Object(members)) = schema.get(key) {
                        let names = members.keys().map(|k| (k.clone(), Value::Bool(true)));
                        root.insert(key.into(), Value::Object(names.collect()));
                    }
                }
                root.insert("additionalProperties".into(), Value::Bool(false));
            }
        }
        root.insert("$schema".into(), json!(DRAFT_2020_12));
        if let Some(defs) = self.document.get("$defs") {
            root.insert("$defs".into(), defs.clone());
        }
        Some(Value::Object(root))
    }
}

/// A subschema's own keywords: the in-place applicators dropped (the
/// descent asked them already), every child applicator's schema replaced by
/// `true` (names and patterns kept, so `additionalProperties: false` still
/// knows which members are declared) and a `false` one kept.
fn shallow(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut own = Map::new();
    for (key, value) in schema {
        let kept = match key.as_str() {
            "$ref"
            | "$dynamicRef"
            | "allOf"
            | "anyOf"
            | "oneOf"
            | "if"
            | "then"
            | "else"
            | "dependentSchemas"
            | "$defs"
            | "definitions"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "$id"
            | "$schema"
            | "$anchor"
            | "$dynamicAnchor" => continue,
            "properties" | "patternProperties" => match value {
                Value::Object(members) => Value::Object(
                    members
                        .keys()
                        .map(|name| (name.clone(), Value::Bool(true)))
                        .collect(),
                ),
                other => other.clone(),
            },
            "prefixItems" => match value {
                Value::Array(items) => Value::Array(vec![Value::Bool(true); items.len()]),
                other => other.clone(),
            },
            "additionalProperties" | "items" => match value {
                Value::Bool(false) => Value::Bool(false),
                _ => Value::Bool(true),
            },
            _ => value.clone(),
        };
        own.insert(key.clone(), kept);
    }
    own
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::overlap::Overlaps;
    use crate::validate::report::SchemaCheck;

    /// A check of `/$defs/R` in `defs`, bounded as the protocol would make it.
    fn check(defs: Value) -> SchemaCheck {
        let document = Arc::new(json!({"$schema": DRAFT_2020_12, "$defs": defs}));
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(
                &json!({"$schema": DRAFT_2020_12, "$defs": document["$defs"], "$ref": "#/$defs/R"}),
            )
            .expect("compiles");
        let bounded = Overlaps::of(&document).reach("/$defs/R").then(|| {
            Descent::new(
                document.clone(),
                "/$defs/R".into(),
                &DescentCache::default(),
            )
        });
        SchemaCheck::new(validator, bounded)
    }

    fn nested(depth: usize, leaf: Value) -> Value {
        (0..depth).fold(leaf, |inner, _| json!([inner]))
    }

    fn issues(check: &SchemaCheck, value: &Value) -> Vec<(String, String, String)> {
        let mut issues = Vec::new();
        check.collect(value, &mut issues);
        issues
            .into_iter()
            .map(|i| (i.instance_path.clone(), i.keyword().to_owned(), i.message))
            .collect()
    }

    #[test]
    fn overlapping_recursion_is_reported_at_the_deepest_failing_place() {
        let branch = json!({"type": "array", "items": {"$ref": "#/$defs/R"}});
        let check = check(json!({"R": {"anyOf": [branch, branch, branch]}}));
        assert!(check.is_bounded());
        // 60 deep: the full report would hold 3^60 errors.
        let value = nested(60, Value::Null);
        let found = issues(&check, &value);
        let place: String = "/0".repeat(60);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, place);
        assert_eq!(found[0].1, "anyOf");
        assert_eq!(
            found[0].2,
            "the value matches none of the 3 alternatives of `anyOf`"
        );
        assert!(issues(&check, &nested(60, json!([]))).is_empty());
    }

    #[test]
    fn the_bounded_report_names_leaf_keywords_with_the_crates_messages() {
        let check = check(json!({
            "R": {"anyOf": [{"$ref": "#/$defs/N"}, {"$ref": "#/$defs/N"}]},
            "N": {
                "type": "object",
                "required": ["kind"],
                "properties": {"kind": {"type": "string", "maxLength": 3}, "next": {"$ref": "#/$defs/R"}},
                "additionalProperties": false,
            },
        }));
        assert!(check.is_bounded());
        let value =
            json!({"kind": "a", "next": {"kind": "b", "next": {"kind": "toolong", "x": 1}}});
        let found = issues(&check, &value);
        assert!(
            found.contains(&(
                "/next/next/x".into(),
                "additionalProperties".into(),
                "member `x` is not allowed here".into()
            )),
            "{found:?}"
        );
        assert!(
            found
                .iter()
                .any(|(at, keyword, _)| at == "/next/next/kind" && keyword == "maxLength"),
            "{found:?}"
        );
        let found = issues(&check, &json!({"next": {"kind": "b"}}));
        assert_eq!(found[0].0, "/kind");
        assert_eq!(found[0].1, "required");
        // Both alternatives are one definition, so a valid value matches two of
        // a `oneOf` of the same shape.
        let one = check_one_of();
        let found = issues(&one, &json!([[1]]));
        assert_eq!(found[0].1, "oneOf", "{found:?}");
        assert!(found[0].2.contains("more than one"), "{found:?}");
    }

    fn check_one_of() -> SchemaCheck {
        let branch = json!({"type": "array", "items": {"$ref": "#/$defs/I"}});
        check(
            json!({"R": {"oneOf": [branch, branch]}, "I": {"anyOf": [{"$ref": "#/$defs/R"}, {"type": "integer"}]}}),
        )
    }

    #[test]
    fn patterns_and_additional_members_are_followed() {
        let check = check(json!({"R": {
            "anyOf": [{"$ref": "#/$defs/O"}, {"$ref": "#/$defs/O"}],
        }, "O": {
            "type": "object",
            "patternProperties": {"^p": {"$ref": "#/$defs/R"}},
            "additionalProperties": {"type": "integer"},
        }}));
        assert!(check.is_bounded());
        let found = issues(&check, &json!({"p1": {"p2": {"q": "x"}}}));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].0.as_str(), found[0].1.as_str()),
            ("/p1/p2/q", "type")
        );
    }
}
