//! A compiled protocol: the manifest, a validator for every method's params,
//! result and stream item, and the protocol's semantic rules, built once.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::descent::{Descent, DescentCache};
use super::issue::{IssueKind, Part, ValidationIssue};
use super::overlap::Overlaps;
use super::pointer::ref_pointer;
use super::report::SchemaCheck;
use super::rules::MessageRule;
use super::value_sets::{CompiledValueSet, UnannouncedValue};
use crate::envelope::ErrorObject;
use crate::protocol::{
    ErrorCase, Manifest, MethodSpec, ProtocolError, ProtocolErrorKind, ProtocolSource, SchemaRef,
    ServerErrors,
};

#[derive(Debug)]
struct CompiledMethod {
    params: Option<SchemaCheck>,
    result: Option<SchemaCheck>,
    item: Option<SchemaCheck>,
    /// The method's own `error_data`, instead of the protocol's.
    error_data: Option<SchemaCheck>,
}

/// A protocol version ready to validate messages.
#[derive(Debug)]
pub struct Protocol {
    source: ProtocolSource,
    methods: HashMap<String, CompiledMethod>,
    error_data: Option<SchemaCheck>,
    error_object: Option<SchemaCheck>,
    rules: Vec<MessageRule>,
    value_sets: Vec<CompiledValueSet>,
}

impl Protocol {
    /// Compiles every validator of a protocol source.
    pub fn compile(source: ProtocolSource) -> Result<Self, ProtocolError> {
        let origin = source.origin.clone();
        // Which schemas get the bounded report (overlap.rs), found once, in the
        // bundled document (`{"$schema", "$defs"}`) the descents read.
        let document = Arc::new(source.bundled_schema().clone());
        let overlaps = Overlaps::of(&document);
        let descents = DescentCache::default();
        // The validators read the files themselves, references resolved by
        // the validator's own resolver (protocol/resources.rs).
        let (methods, error_data, error_object) = {
            let resources = source.resources()?;
            let build = |reference: &Option<SchemaRef>,
                         pointer: String|
             -> Result<Option<SchemaCheck>, ProtocolError> {
                let Some(reference) = reference else {
                    return Ok(None);
                };
                let entry = source
                    .bundle()
                    .entry_ref(&reference.reference)
                    .and_then(|local| ref_pointer(&local))
                    .filter(|entry| overlaps.reach(entry));
                resources
                    .validator(&reference.reference)
                    .map(|validator| {
                        let bounded =
                            entry.map(|entry| Descent::new(document.clone(), entry, &descents));
                        Some(SchemaCheck::new(validator, bounded))
                    })
                    .map_err(|error| {
                        ProtocolError::new(
                            ProtocolErrorKind::BadSchema,
                            format!("{origin}/protocol.json"),
                            &pointer,
                            format!("`{}`: {error}", reference.reference),
                        )
                    })
            };
            let mut methods = HashMap::new();
            for (name, spec) in &source.manifest.methods {
                let at = |part: &str| {
                    format!(
                        "/methods/{}/{part}",
                        name.replace('~', "~0").replace('/', "~1")
                    )
                };
                methods.insert(
                    name.clone(),
                    CompiledMethod {
                        params: build(&spec.params, at("params"))?,
                        result: build(&spec.result, at("result"))?,
                        item: build(&spec.result_stream, at("result_stream"))?,
                        error_data: build(&spec.error_data, at("error_data"))?,
                    },
                );
            }
            let error_data = build(&source.manifest.error_data, "/error_data".into())?;
            let error_object = build(&source.manifest.error_object, "/error_object".into())?;
            (methods, error_data, error_object)
        };
        let mut rules = Vec::new();
        for (index, spec) in source.manifest.rules.iter().enumerate() {
            if let Some(rule) = MessageRule::compile(&origin, index, spec)? {
                if !methods.contains_key(&rule.method) {
                    return Err(ProtocolError::new(
                        ProtocolErrorKind::Inconsistent,
                        format!("{origin}/protocol.json"),
                        format!("/rules/{index}/method"),
                        format!(
                            "rule names method `{}`, which the manifest does not define",
                            rule.method
                        ),
                    ));
                }
                rules.push(rule);
            }
        }
        super::consistency::check(&source)?;
        let value_sets = super::value_sets::compile(&source);
        let protocol = Protocol {
            source,
            methods,
            error_data,
            error_object,
            rules,
            value_sets,
        };
        protocol.check_own_answers()?;
        Ok(protocol)
    }

    /// The values the server sent in `method` outside the sets the client
    /// announced (the manifest's `value_sets`): `prefix` says which part
    /// `sent` is (`/result` of the client's request, `/params` of the
    /// server's message), `announcement` is the params of the client's
    /// capability method (`None` before it came). Check a message that
    /// passed its schema.
    pub fn unannounced_values(
        &self,
        method: &str,
        prefix: &str,
        sent: &Value,
        announcement: Option<&Value>,
    ) -> Vec<UnannouncedValue> {
        super::value_sets::unannounced(
            &self.value_sets,
            &self.source,
            method,
            prefix,
            sent,
            announcement,
        )
    }

    /// Whether the manifest has value sets (`value_sets`) for `method`.
    pub fn has_value_sets(&self, method: &str) -> bool {
        self.source
            .manifest
            .value_sets
            .iter()
            .any(|set| set.methods.iter().any(|m| m == method))
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.source.manifest
    }

    /// The source (manifest, files and bundle).
    pub fn source(&self) -> &ProtocolSource {
        &self.source
    }

    /// `name@version`.
    pub fn id(&self) -> String {
        self.source.id()
    }

    /// A method's or notification's spec.
    pub fn method(&self, name: &str) -> Option<&MethodSpec> {
        self.source.manifest.methods.get(name)
    }

    /// How the server shapes the errors it produces itself.
    pub fn server_errors(&self) -> &ServerErrors {
        &self.source.manifest.server_errors
    }

    /// The error of `case` as this protocol shapes it (see
    /// [`ServerErrors::build`]).
    pub fn error_answer(
        &self,
        case: ErrorCase,
        kind: Option<&str>,
        message: String,
        values: &[(&str, Value)],
    ) -> ErrorObject {
        self.server_errors().build(case, kind, message, values)
    }

    /// Whether the protocol has a schema for error objects or their data
    /// (its own, or a method's).
    pub fn checks_errors(&self) -> bool {
        self.error_data.is_some()
            || self.error_object.is_some()
            || self.methods.values().any(|m| m.error_data.is_some())
    }

    /// Checks a whole error object against the protocol's error schemas:
    /// `data` (absent is validated as null) against `error_data` and the
    /// object against `error_object`. Pointers are relative to the error
    /// object (`/data/class`, `/message`); empty when valid.
    pub fn validate_error(&self, error: &ErrorObject) -> Vec<ValidationIssue> {
        self.validate_error_of(None, error)
    }

    /// [`Protocol::validate_error`] for an error answering `method`: where
    /// the method declares its own `error_data` and the code is not one of
    /// JSON-RPC's reserved ones (-32768 to -32000), `data` is checked
    /// against that instead (and may then be absent).
    pub fn validate_error_of(
        &self,
        method: Option<&str>,
        error: &ErrorObject,
    ) -> Vec<ValidationIssue> {
        let mut issues = Vec::new();
        // A method's own error data is that of its own errors: JSON-RPC's
        // reserved codes (invalid params, internal error, ...) keep the
        // protocol's (LSP's `initialize` refuses bad params with any data,
        // and fails with `InitializeError` under its own code).
        let reserved = (-32768..=-32000).contains(&error.code);
        let own = method
            .filter(|_| !reserved)
            .and_then(|m| self.methods.get(m))
            .and_then(|m| m.error_data.as_ref());
        match (own, &error.data) {
            (Some(validator), Some(data)) => validator.collect(data, &mut issues),
            (Some(_), None) => {}
            (None, data) => {
                if let Some(validator) = &self.error_data {
                    validator.collect(data.as_ref().unwrap_or(&Value::Null), &mut issues);
                }
            }
        }
        for issue in &mut issues {
            issue.instance_path.insert_str(0, "/data");
        }
        if let Some(validator) = &self.error_object {
            let mut object = Map::new();
            object.insert("code".into(), Value::from(error.code));
            object.insert("message".into(), Value::from(error.message.as_str()));
            if let Some(data) = &error.data {
                object.insert("data".into(), data.clone());
            }
            let first = issues.len();
            validator.collect(&Value::Object(object), &mut issues);
            // The same fault seen by both schemas is reported once.
            let (earlier, added) = issues.split_at(first);
            let fresh: Vec<ValidationIssue> = added
                .iter()
                .filter(|issue| {
                    !earlier.iter().any(|e| {
                        e.instance_path == issue.instance_path && e.keyword() == issue.keyword()
                    })
                })
                .cloned()
                .collect();
            issues.truncate(first);
            issues.extend(fresh);
        }
        issues
    }

    /// Whether the schema of one part of `method` has alternatives that
    /// overlap and recurse into the same place (`overlap.rs`), so that any
    /// check trying every alternative at every level takes time exponential
    /// in the depth of the value. The core reports such a part along one
    /// bounded path; a binding's own fast path must leave it to the core.
    pub fn overlaps_recursively(&self, method: &str, part: Part) -> bool {
        let check = match part {
            Part::ErrorData => self
                .methods
                .get(method)
                .and_then(|m| m.error_data.as_ref())
                .or(self.error_data.as_ref()),
            _ => self.methods.get(method).and_then(|compiled| match part {
                Part::Params => compiled.params.as_ref(),
                Part::Result => compiled.result.as_ref(),
                _ => compiled.item.as_ref(),
            }),
        };
        check.is_some_and(SchemaCheck::is_bounded)
    }

    /// Checks one part of a message of `method`. `None` means the part is
    /// absent (or JSON null, for params). Returns every issue; empty when valid.
    /// An unknown method gives no issue: the caller answers -32601 first.
    pub fn validate(
        &self,
        method: &str,
        part: Part,
        value: Option<&Value>,
    ) -> Vec<ValidationIssue> {
        let (Some(spec), Some(compiled)) = (self.method(method), self.methods.get(method)) else {
            return Vec::new();
        };
        let validator = match part {
            Part::Params => compiled.params.as_ref(),
            Part::Result => compiled.result.as_ref(),
            Part::Item => compiled.item.as_ref(),
            Part::ErrorData => compiled.error_data.as_ref().or(self.error_data.as_ref()),
        };
        let value = match (part, value) {
            (Part::Params, Some(Value::Null)) | (Part::Params, None) => {
                if spec.params_optional || validator.is_none() {
                    return Vec::new();
                }
                return vec![ValidationIssue {
                    kind: IssueKind::Missing,
                    instance_path: String::new(),
                    schema_path: String::new(),
                    message: format!("`{method}` requires params"),
                }];
            }
            (_, None) => return Vec::new(),
            (_, Some(value)) => value,
        };
        let mut issues = Vec::new();
        if let Some(validator) = validator {
            validator.collect(value, &mut issues);
        }
        if issues.is_empty() {
            for rule in self
                .rules
                .iter()
                .filter(|rule| rule.method == method && rule.part == part)
            {
                rule.check(value, &mut issues);
            }
        }
        issues
    }
}
