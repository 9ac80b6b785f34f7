//! Bundling: every type of a protocol's schema files in one document.
//!
//! Validation never reads the bundle: it resolves references among the
//! files themselves ([`super::resources`]). The bundle is for what wants
//! one draft 2020-12 document with every type under `$defs` and every
//! reference local (`#/$defs/Name`): the code generators (typify cannot
//! follow a reference to another file), the Python quick check, the bounded
//! report, conformance's instances and `diff`.
//!
//! It is built from the resolved files, not from the text of their
//! references: each `$ref` is resolved by the validator's own resolver and
//! its target, wherever it is (a `$defs` entry, a file's root, an anchor, a
//! pointer into a sub-schema), becomes a type of its own, and wherever that
//! place is copied (inside the type that encloses it) it is written as a
//! reference to it, so no schema is in the bundle twice. Every keyword is
//! read in its file's dialect and written in draft 2020-12's (draft-07's
//! array `items` become `prefixItems`, a `$ref` there hides its siblings,
//! keywords a dialect does not have are dropped), so the bundled type
//! accepts exactly the values its source does. The one place a single
//! document cannot follow is a `$dynamicRef` whose anchor more than one
//! resource declares (and 2019-09's `$recursiveRef` likewise) or a
//! reference into a meta-schema: such a type is written with its static
//! target and listed in [`Bundle::inexact`], and what needs certainty (the
//! quick check) leaves it to the validator.
//!
//! Types are named by one rule ([`Bundle`]'s docs), the same in every
//! generated language.

use std::collections::{BTreeMap, HashMap, HashSet};

use jsonschema::Draft;
use referencing::{Resolver, Vocabulary, VocabularySet};
use serde_json::{Map, Value};

use super::error::{ProtocolError, ProtocolErrorKind};
pub(crate) use super::resources::{escape_pointer, unescape_pointer};
use super::resources::{Location, Resources};

/// The JSON Schema dialect of bundled documents.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

pub use super::resources::SchemaFiles;

/// Where a bundled type was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefOrigin {
    /// The schema file, by its name in the set.
    pub file: String,
    /// The type's JSON pointer in that file (`""` for a file whose root is the type).
    pub pointer: String,
}

/// Every type of a set of schema files, references made local, with where
/// each type came from.
///
/// Types are named by where they are defined: an entry of a file's `$defs`
/// (or `definitions`) by its key; a file's root by its `title` when that is
/// an identifier, else by its file stem in PascalCase (`authoring_hint.json`
/// → `AuthoringHint`); any other place by the name of the type it is in
/// followed by the PascalCase of each pointer segment after it, container
/// keywords (`properties`, `$defs`, ...) left out
/// (`#/definitions/InitializeRequest/properties/params` →
/// `InitializeRequestParams`); a name with characters other than ASCII
/// letters, digits, `_`, `-` and `.` is written in PascalCase
/// (`percent%field` → `PercentField`). The entries of `$defs` are named first, file
/// by file in name order, each in source order, then the manifest's targets,
/// then every other target as it is reached; a name already given to
/// another place takes its file's stem in front, then a number after.
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    /// The types by name, in the order they were named.
    pub defs: Map<String, Value>,
    /// Where each type of [`Bundle::defs`] was defined.
    pub origins: BTreeMap<String, DefOrigin>,
    /// Each manifest reference, as written, and the type it names.
    pub entries: BTreeMap<String, String>,
    /// The types whose bundled schema may judge a value otherwise than
    /// their source, and why.
    pub inexact: BTreeMap<String, String>,
}

impl Bundle {
    /// The bundle as one draft 2020-12 document (`{"$schema", "$defs"}`).
    pub fn to_schema(&self) -> Value {
        let mut root = Map::new();
        root.insert("$schema".into(), Value::String(DRAFT_2020_12.into()));
        root.insert("$defs".into(), Value::Object(self.defs.clone()));
        Value::Object(root)
    }

    /// The type a manifest reference (as written) names.
    pub fn entry(&self, reference: &str) -> Option<&str> {
        self.entries.get(reference).map(String::as_str)
    }

    /// A manifest reference as a reference into the bundle (`#/$defs/Name`).
    pub fn entry_ref(&self, reference: &str) -> Option<String> {
        self.entry(reference).map(local_ref)
    }

    /// Whether `name`, and every type it references, judges values exactly
    /// as its source does.
    pub fn is_exact(&self, name: &str) -> bool {
        if self.inexact.is_empty() {
            return true;
        }
        let mut seen = HashSet::new();
        let mut pending = vec![name.to_owned()];
        while let Some(name) = pending.pop() {
            if self.inexact.contains_key(&name) {
                return false;
            }
            if !seen.insert(name.clone()) {
                continue;
            }
            if let Some(schema) = self.defs.get(&name) {
                collect_refs(schema, &mut pending);
            }
        }
        true
    }
}

/// `#/$defs/<name>`, the name escaped.
pub fn local_ref(name: &str) -> String {
    format!("#/$defs/{}", escape_pointer(name))
}

fn mentions(schema: &Value, reference: &str) -> bool {
    let mut refs = Vec::new();
    collect_refs(schema, &mut refs);
    let wanted = reference.strip_prefix("#/$defs/").map(unescape_pointer);
    refs.iter().any(|name| Some(name) == wanted.as_ref())
}

fn collect_refs(schema: &Value, into: &mut Vec<String>) {
    match schema {
        Value::Object(members) => {
            for (key, value) in members {
                match (key.as_str(), value) {
                    ("$ref", Value::String(reference)) => {
                        if let Some(name) = reference.strip_prefix("#/$defs/") {
                            into.push(unescape_pointer(name));
                        }
                    }
                    ("const" | "enum" | "default" | "examples", _) => {}
                    _ => collect_refs(value, into),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, into)),
        _ => {}
    }
}

/// Bundles the files of `resources`. `entries` are the references written
/// in the manifest, each with its pointer there (for errors).
pub fn bundle(
    resources: &Resources<'_>,
    entries: &[(&str, String)],
) -> Result<Bundle, ProtocolError> {
    // A place inside a type that becomes a type of its own is written as a
    // reference to it wherever it is copied; one named only after its
    // enclosing type was copied is named up front on the next pass.
    let mut seeds: Vec<Location> = Vec::new();
    for _ in 0..MAX_PASSES {
        let (bundle, late) = bundle_pass(resources, entries, &seeds)?;
        if late.is_empty() {
            return Ok(bundle);
        }
        seeds.extend(late);
    }
    bundle_pass(resources, entries, &seeds).map(|(bundle, _)| bundle)
}

/// Passes of [`bundle`] before it settles for a bundle in which a late
/// place is both a type and a copy inside another (still exact).
const MAX_PASSES: usize = 8;

/// One pass: the bundle, and the places named after a type enclosing
/// them was copied.
fn bundle_pass(
    resources: &Resources<'_>,
    entries: &[(&str, String)],
    seeds: &[Location],
) -> Result<(Bundle, Vec<Location>), ProtocolError> {
    let mut bundler = Bundler {
        resources,
        names: HashMap::new(),
        taken: HashSet::new(),
        order: Vec::new(),
        bundle: Bundle::default(),
        dynamic_anchors: HashMap::new(),
        recursive_anchors: 0,
    };
    for document in resources.files().values() {
        bundler.count_anchors(document);
    }
    for (file, document) in resources.files() {
        for key in DEFS_KEYWORDS {
            let Some(defs) = document.get(key) else {
                continue;
            };
            let Some(defs) = defs.as_object() else {
                return Err(ProtocolError::new(
                    ProtocolErrorKind::BadReference,
                    format!("{}/{file}", resources.origin()),
                    format!("/{key}"),
                    format!("`{key}` must be an object"),
                ));
            };
            for (name, schema) in defs {
                if schema.is_object() || schema.is_boolean() {
                    bundler.name(&Location {
                        file: file.clone(),
                        pointer: format!("/{key}/{}", escape_pointer(name)),
                    });
                }
            }
        }
    }
    let manifest = resources.manifest_resolver();
    for (reference, at) in entries {
        let target = resources.lookup(&manifest, reference, "", at)?;
        let name = bundler.name(&target.location);
        bundler.bundle.entries.insert((*reference).to_owned(), name);
    }
    for seed in seeds {
        bundler.name(seed);
    }
    let mut written = Vec::new();
    // Each copied type's place and how many places were named when its
    // copy began.
    let mut copied: Vec<(Location, usize)> = Vec::new();
    let mut next = 0;
    while let Some(location) = bundler.order.get(next).cloned() {
        next += 1;
        copied.push((location.clone(), bundler.order.len()));
        let name = bundler.names.get(&location).cloned().unwrap_or_default();
        let target = resources.resolver_for(&location)?;
        let vocabularies = resources.vocabularies(&location.file);
        let mut copy = Copy {
            name: &name,
            file: &location.file,
            root: &location.pointer,
            vocabularies: vocabularies.as_ref(),
        };
        let schema = copy.schema(
            &mut bundler,
            target.schema,
            &target.resolver,
            target.draft,
            &location.pointer,
            true,
        )?;
        written.push((name.clone(), schema));
        bundler.bundle.origins.insert(
            name,
            DefOrigin {
                file: location.file,
                pointer: location.pointer,
            },
        );
    }
    if !bundler.bundle.inexact.is_empty()
        && written
            .iter()
            .any(|(_, schema)| mentions(schema, &local_ref(OUTSIDE)))
    {
        written.push((OUTSIDE.to_owned(), Value::Bool(true)));
    }
    bundler.bundle.defs = written.into_iter().collect();
    let late = bundler
        .order
        .iter()
        .enumerate()
        .filter(|(index, place)| {
            copied.iter().any(|(outer, named_before)| {
                index >= named_before
                    && outer.file == place.file
                    && place.pointer.len() > outer.pointer.len()
                    && place.pointer.starts_with(&outer.pointer)
                    && place.pointer[outer.pointer.len()..].starts_with('/')
            })
        })
        .map(|(_, place)| place.clone())
        .collect();
    Ok((bundler.bundle, late))
}

/// The type that stands for every schema outside the files: any value.
const OUTSIDE: &str = "OutsideTheProtocol";

/// The keywords under which a file defines named types.
const DEFS_KEYWORDS: [&str; 2] = ["$defs", "definitions"];

struct Bundler<'r> {
    resources: &'r Resources<'r>,
    names: HashMap<Location, String>,
    taken: HashSet<String>,
    order: Vec<Location>,
    bundle: Bundle,
    /// How many places declare each `$dynamicAnchor`.
    dynamic_anchors: HashMap<String, usize>,
    /// How many places declare `$recursiveAnchor: true`.
    recursive_anchors: usize,
}

impl Bundler<'_> {
    fn count_anchors(&mut self, value: &Value) {
        match value {
            Value::Object(members) => {
                if let Some(Value::String(anchor)) = members.get("$dynamicAnchor") {
                    *self.dynamic_anchors.entry(anchor.clone()).or_default() += 1;
                }
                if members.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
                    self.recursive_anchors += 1;
                }
                members
                    .values()
                    .for_each(|member| self.count_anchors(member));
            }
            Value::Array(items) => items.iter().for_each(|item| self.count_anchors(item)),
            _ => {}
        }
    }

    /// The type name of `location`, given on first sight.
    fn name(&mut self, location: &Location) -> String {
        if let Some(name) = self.names.get(location) {
            return name.clone();
        }
        let files = self.resources.files();
        let wanted = type_name(files, location);
        // A name is a URI fragment's last segment as it is (`#/$defs/Name`)
        // and an identifier in every generated language: a key with other
        // characters is written in PascalCase.
        let wanted = if wanted
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
            && !wanted.is_empty()
        {
            wanted
        } else {
            pascal(&wanted)
        };
        let mut name = wanted.clone();
        if self.taken.contains(&name) {
            name = format!("{}{wanted}", pascal(stem(&location.file)));
            let mut number = 2;
            while self.taken.contains(&name) {
                name = format!("{wanted}{number}");
                number += 1;
            }
        }
        self.taken.insert(name.clone());
        self.names.insert(location.clone(), name.clone());
        self.order.push(location.clone());
        name
    }
}

/// The name a place's type wants (see [`Bundle`]).
fn type_name(files: &SchemaFiles, location: &Location) -> String {
    let segments: Vec<String> = location
        .pointer
        .split('/')
        .skip(1)
        .map(unescape_pointer)
        .collect();
    let file_name = || {
        files
            .get(&location.file)
            .and_then(|document| root_name(&location.file, document))
            .unwrap_or_else(|| pascal(stem(&location.file)))
    };
    let (mut name, rest) = match segments.as_slice() {
        [] => return file_name(),
        [container, name, rest @ ..] if DEFS_KEYWORDS.contains(&container.as_str()) => {
            (name.clone(), rest)
        }
        rest => (file_name(), rest),
    };
    for segment in rest {
        if !matches!(
            segment.as_str(),
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
        ) {
            name.push_str(&pascal(segment));
        }
    }
    name
}

fn stem(file: &str) -> &str {
    let base = file.rsplit('/').next().unwrap_or(file);
    base.split('.').next().unwrap_or(base)
}

/// `snake_case-or words` → `SnakeCaseOrWords`; digits kept.
fn pascal(text: &str) -> String {
    let mut out = String::new();
    for part in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if out.is_empty() {
        out.push('X');
    }
    out
}

/// The type name of a file whose root is itself a schema (not only a
/// holder of `$defs`): its `title` when that is an identifier, else its
/// file stem in PascalCase (`authoring_hint.json` → `AuthoringHint`).
pub fn root_name(file: &str, document: &Value) -> Option<String> {
    let members = document.as_object()?;
    let structural = members.keys().any(|key| {
        !matches!(
            key.as_str(),
            "$schema" | "$id" | "$defs" | "definitions" | "$comment" | "title" | "description"
        )
    });
    if !structural {
        return None;
    }
    let title = members.get("title").and_then(Value::as_str).unwrap_or("");
    if !title.is_empty() && title.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Some(title.to_owned());
    }
    Some(pascal(stem(file)))
}

/// How a keyword's value is read, in a dialect.
enum Role {
    /// One subschema.
    Schema,
    /// An array of subschemas.
    Schemas,
    /// An object of subschemas.
    SchemaMap,
    /// A reference.
    Ref,
    /// 2020-12's `$dynamicRef`.
    DynamicRef,
    /// 2019-09's `$recursiveRef`.
    RecursiveRef,
    /// Draft-07 and 2019-09 `items`: an array of subschemas is 2020-12's `prefixItems`.
    Items,
    /// Draft-07 and 2019-09 `additionalItems`: 2020-12's `items` beside an array `items`.
    AdditionalItems,
    /// Draft-07 `dependencies`: `dependentRequired` and `dependentSchemas`.
    Dependencies,
    /// Not a keyword of the bundle: identifiers, anchors, containers, other dialects'.
    Drop,
    /// A keyword with no subschema (or an annotation): copied.
    Keep,
}

fn role(draft: Draft, keyword: &str) -> Role {
    let modern = matches!(draft, Draft::Draft202012 | Draft::Unknown);
    match keyword {
        "$ref" => Role::Ref,
        "$id" | "$schema" | "$anchor" | "$vocabulary" | "$defs" | "definitions"
        | "$dynamicAnchor" | "$recursiveAnchor" => Role::Drop,
        "$dynamicRef" if modern => Role::DynamicRef,
        "$recursiveRef" if draft == Draft::Draft201909 => Role::RecursiveRef,
        "additionalProperties" | "propertyNames" | "contains" | "if" | "then" | "else" | "not" => {
            Role::Schema
        }
        "allOf" | "anyOf" | "oneOf" => Role::Schemas,
        "properties" | "patternProperties" => Role::SchemaMap,
        "items" if modern => Role::Schema,
        "items" => Role::Items,
        "prefixItems" if modern => Role::Schemas,
        "additionalItems" if !modern => Role::AdditionalItems,
        "dependencies" if draft == Draft::Draft7 => Role::Dependencies,
        "unevaluatedItems" | "unevaluatedProperties" | "contentSchema"
            if draft != Draft::Draft7 =>
        {
            Role::Schema
        }
        "dependentSchemas" if draft != Draft::Draft7 => Role::SchemaMap,
        "dependentRequired" | "minContains" | "maxContains" if draft != Draft::Draft7 => Role::Keep,
        "$dynamicRef"
        | "$recursiveRef"
        | "prefixItems"
        | "additionalItems"
        | "dependencies"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema"
        | "dependentSchemas"
        | "dependentRequired"
        | "minContains"
        | "maxContains" => Role::Drop,
        _ => Role::Keep,
    }
}

/// The vocabulary a 2020-12 keyword belongs to, where a custom meta-schema
/// may leave it out.
fn vocabulary(keyword: &str) -> Option<Vocabulary> {
    Some(match keyword {
        "prefixItems"
        | "items"
        | "contains"
        | "additionalProperties"
        | "properties"
        | "patternProperties"
        | "dependentSchemas"
        | "propertyNames"
        | "if"
        | "then"
        | "else"
        | "allOf"
        | "anyOf"
        | "oneOf"
        | "not" => Vocabulary::Applicator,
        "unevaluatedItems" | "unevaluatedProperties" => Vocabulary::Unevaluated,
        "type" | "const" | "enum" | "multipleOf" | "maximum" | "exclusiveMaximum" | "minimum"
        | "exclusiveMinimum" | "maxLength" | "minLength" | "pattern" | "maxItems" | "minItems"
        | "uniqueItems" | "maxContains" | "minContains" | "maxProperties" | "minProperties"
        | "required" | "dependentRequired" => Vocabulary::Validation,
        _ => return None,
    })
}

/// Writes one type: a schema of a file, read in its dialect, as draft
/// 2020-12 with every reference local.
struct Copy<'c> {
    name: &'c str,
    file: &'c str,
    /// The pointer of the type being copied, in `file`.
    root: &'c str,
    vocabularies: Option<&'c VocabularySet>,
}

impl Copy<'_> {
    #[allow(clippy::too_many_arguments)]
    fn schema(
        &mut self,
        bundler: &mut Bundler<'_>,
        schema: &Value,
        resolver: &Resolver<'_>,
        draft: Draft,
        pointer: &str,
        entered: bool,
    ) -> Result<Value, ProtocolError> {
        // A place inside this type that is a type of its own: a reference.
        if pointer != self.root {
            let place = Location {
                file: self.file.to_owned(),
                pointer: pointer.to_owned(),
            };
            if let Some(name) = bundler.names.get(&place) {
                let mut only = Map::new();
                only.insert("$ref".into(), Value::String(local_ref(name)));
                return Ok(Value::Object(only));
            }
        }
        let members = match schema {
            Value::Bool(_) => return Ok(schema.clone()),
            Value::Object(members) => members,
            _ => {
                return Err(ProtocolError::new(
                    ProtocolErrorKind::BadSchema,
                    format!("{}/{}", bundler.resources.origin(), self.file),
                    pointer,
                    "a reference leads here, but this is not a schema (an object or a boolean)",
                ))
            }
        };
        let draft = if members.contains_key("$schema") && (entered || members.contains_key("$id")) {
            match draft.detect(schema) {
                Draft::Draft4 | Draft::Draft6 => draft,
                detected => detected,
            }
        } else {
            draft
        };
        let entered_resolver;
        let resolver = if entered {
            resolver
        } else {
            entered_resolver = resolver
                .in_subresource(draft.create_resource_ref(schema))
                .map_err(|error| self.fault(bundler, pointer, &error.to_string()))?;
            &entered_resolver
        };
        // Before 2019-09, `$ref` stands for the whole schema.
        if draft == Draft::Draft7 {
            if let Some(Value::String(reference)) = members.get("$ref") {
                let target = self.reference(bundler, resolver, reference, pointer)?;
                let mut only = Map::new();
                only.insert("$ref".into(), Value::String(target));
                return Ok(Value::Object(only));
            }
        }
        let mut out = Map::new();
        let mut refs = Vec::new();
        let array_items = members.get("items").is_some_and(Value::is_array);
        for (keyword, value) in members {
            if let (Some(vocabularies), Some(needed)) = (self.vocabularies, vocabulary(keyword)) {
                if !vocabularies.contains(&needed) {
                    continue;
                }
            }
            let at = format!("{pointer}/{}", escape_pointer(keyword));
            match role(draft, keyword) {
                Role::Drop => {}
                Role::Keep => {
                    out.insert(keyword.clone(), value.clone());
                }
                Role::Ref => {
                    if let Value::String(reference) = value {
                        refs.push(self.reference(bundler, resolver, reference, &at)?);
                    }
                }
                Role::DynamicRef => {
                    if let Value::String(reference) = value {
                        refs.push(self.dynamic(bundler, resolver, reference, &at)?);
                    }
                }
                Role::RecursiveRef => {
                    if let Value::String(reference) = value {
                        refs.push(self.recursive(bundler, resolver, reference, &at)?);
                    }
                }
                Role::Schema => {
                    let copied = self.schema(bundler, value, resolver, draft, &at, false)?;
                    out.insert(keyword.clone(), copied);
                }
                Role::Schemas => {
                    let copied = self.list(bundler, value, resolver, draft, &at)?;
                    out.insert(keyword.clone(), copied);
                }
                Role::SchemaMap => {
                    let copied = self.map(bundler, value, resolver, draft, &at)?;
                    out.insert(keyword.clone(), copied);
                }
                Role::Items if value.is_array() => {
                    let copied = self.list(bundler, value, resolver, draft, &at)?;
                    out.insert("prefixItems".into(), copied);
                }
                Role::Items => {
                    let copied = self.schema(bundler, value, resolver, draft, &at, false)?;
                    out.insert("items".into(), copied);
                }
                Role::AdditionalItems if array_items => {
                    let copied = self.schema(bundler, value, resolver, draft, &at, false)?;
                    out.insert("items".into(), copied);
                }
                Role::AdditionalItems => {}
                Role::Dependencies => {
                    let Value::Object(dependencies) = value else {
                        continue;
                    };
                    let mut required = Map::new();
                    let mut schemas = Map::new();
                    for (member, dependency) in dependencies {
                        let here = format!("{at}/{}", escape_pointer(member));
                        if dependency.is_array() {
                            required.insert(member.clone(), dependency.clone());
                        } else {
                            let copied =
                                self.schema(bundler, dependency, resolver, draft, &here, false)?;
                            schemas.insert(member.clone(), copied);
                        }
                    }
                    if !required.is_empty() {
                        out.insert("dependentRequired".into(), Value::Object(required));
                    }
                    if !schemas.is_empty() {
                        out.insert("dependentSchemas".into(), Value::Object(schemas));
                    }
                }
            }
        }
        let mut refs = refs.into_iter();
        if let Some(first) = refs.next() {
            out.insert("$ref".into(), Value::String(first));
        }
        for more in refs {
            let mut only = Map::new();
            only.insert("$ref".into(), Value::String(more));
            if let Value::Array(items) = out
                .entry("allOf")
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                items.push(Value::Object(only));
            }
        }
        Ok(Value::Object(out))
    }

    fn list(
        &mut self,
        bundler: &mut Bundler<'_>,
        value: &Value,
        resolver: &Resolver<'_>,
        draft: Draft,
        at: &str,
    ) -> Result<Value, ProtocolError> {
        let Value::Array(items) = value else {
            return Ok(value.clone());
        };
        let mut out = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            out.push(self.schema(
                bundler,
                item,
                resolver,
                draft,
                &format!("{at}/{index}"),
                false,
            )?);
        }
        Ok(Value::Array(out))
    }

    fn map(
        &mut self,
        bundler: &mut Bundler<'_>,
        value: &Value,
        resolver: &Resolver<'_>,
        draft: Draft,
        at: &str,
    ) -> Result<Value, ProtocolError> {
        let Value::Object(members) = value else {
            return Ok(value.clone());
        };
        let mut out = Map::new();
        for (member, schema) in members {
            let here = format!("{at}/{}", escape_pointer(member));
            out.insert(
                member.clone(),
                self.schema(bundler, schema, resolver, draft, &here, false)?,
            );
        }
        Ok(Value::Object(out))
    }

    /// A `$ref`, resolved and named: `#/$defs/Name`.
    fn reference(
        &mut self,
        bundler: &mut Bundler<'_>,
        resolver: &Resolver<'_>,
        reference: &str,
        at: &str,
    ) -> Result<String, ProtocolError> {
        match resolver.lookup(reference) {
            Ok(resolved) => match bundler.resources.target(resolved) {
                Some(target) => Ok(local_ref(&bundler.name(&target.location))),
                None => Ok(self.outside(bundler, reference)),
            },
            Err(error) => {
                let why = bundler.resources.describe(&error);
                Err(bundler
                    .resources
                    .bad_reference(self.file, at, reference, &why))
            }
        }
    }

    /// A `$dynamicRef`: its static target, exact where no other resource
    /// declares the anchor it may be rebound to.
    fn dynamic(
        &mut self,
        bundler: &mut Bundler<'_>,
        resolver: &Resolver<'_>,
        reference: &str,
        at: &str,
    ) -> Result<String, ProtocolError> {
        let fresh = bundler
            .resources
            .registry()
            .resolver((*resolver.base_uri()).clone());
        let anchor = reference
            .rsplit_once('#')
            .map_or("", |(_, fragment)| fragment);
        let rebindable = fresh.lookup(reference).is_ok_and(|resolved| {
            resolved
                .contents()
                .get("$dynamicAnchor")
                .and_then(Value::as_str)
                == Some(anchor)
        });
        if rebindable && bundler.dynamic_anchors.get(anchor).copied().unwrap_or(0) > 1 {
            self.inexact(
                bundler,
                format!("its `$dynamicRef` `{reference}` may be rebound to another resource's `$dynamicAnchor` `{anchor}`"),
            );
        }
        self.reference(bundler, &fresh, reference, at)
    }

    /// A 2019-09 `$recursiveRef`: like [`Copy::dynamic`] for `$recursiveAnchor`.
    fn recursive(
        &mut self,
        bundler: &mut Bundler<'_>,
        resolver: &Resolver<'_>,
        reference: &str,
        at: &str,
    ) -> Result<String, ProtocolError> {
        if bundler.recursive_anchors > 1 {
            self.inexact(
                bundler,
                format!("its `$recursiveRef` `{reference}` may be rebound by a `$recursiveAnchor`"),
            );
        }
        self.reference(bundler, resolver, reference, at)
    }

    /// A target outside the files (a meta-schema the validator knows):
    /// any value, and the type marked inexact.
    fn outside(&mut self, bundler: &mut Bundler<'_>, reference: &str) -> String {
        self.inexact(
            bundler,
            format!("`{reference}` leads to a schema outside the protocol's files (a JSON Schema meta-schema), which the bundle writes as any value"),
        );
        local_ref(OUTSIDE)
    }

    fn inexact(&mut self, bundler: &mut Bundler<'_>, why: String) {
        bundler
            .bundle
            .inexact
            .entry(self.name.to_owned())
            .or_insert(why);
    }

    fn fault(&self, bundler: &Bundler<'_>, pointer: &str, why: &str) -> ProtocolError {
        ProtocolError::new(
            ProtocolErrorKind::BadReference,
            format!("{}/{}", bundler.resources.origin(), self.file),
            pointer,
            why,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::JsonSchemaSettings;
    use serde_json::json;

    fn bundled(files: &[(&str, Value)], entries: &[&str]) -> Result<Bundle, ProtocolError> {
        bundled_with(&JsonSchemaSettings::default(), files, entries)
    }

    fn bundled_with(
        settings: &JsonSchemaSettings,
        files: &[(&str, Value)],
        entries: &[&str],
    ) -> Result<Bundle, ProtocolError> {
        let files: SchemaFiles = files
            .iter()
            .map(|(name, value)| ((*name).to_owned(), value.clone()))
            .collect();
        let base = settings.base_uri("p", "1");
        let resources = Resources::new("p/1", settings, &base, &files)?;
        let entries: Vec<(&str, String)> = entries
            .iter()
            .enumerate()
            .map(|(index, reference)| (*reference, format!("/methods/m{index}/result/$ref")))
            .collect();
        bundle(&resources, &entries)
    }

    #[test]
    fn rewrites_cross_file_and_local_refs_but_not_values() {
        let bundle = bundled(
            &[
                (
                    "a.json",
                    json!({"$id": "https://wirekit.invalid/p/1/a.json", "$defs": {"A": {"properties": {"b": {"$ref": "b.json#/$defs/B"}, "me": {"$ref": "#/$defs/A"}}}}}),
                ),
                (
                    "b.json",
                    json!({"$defs": {"B": {"type": "string", "enum": [{"$ref": "not-a-ref"}]}, "C": {"$ref": "a.json#/$defs/A"}}}),
                ),
            ],
            &["b.json#/$defs/C"],
        )
        .expect("bundles");
        assert_eq!(bundle.defs["A"]["properties"]["b"]["$ref"], "#/$defs/B");
        assert_eq!(bundle.defs["A"]["properties"]["me"]["$ref"], "#/$defs/A");
        assert_eq!(bundle.defs["C"]["$ref"], "#/$defs/A");
        assert_eq!(bundle.defs["B"]["enum"][0]["$ref"], "not-a-ref");
        assert_eq!(bundle.entry("b.json#/$defs/C"), Some("C"));
        assert!(bundle.inexact.is_empty());
    }

    #[test]
    fn refuses_references_that_lead_nowhere_naming_where_they_are_written() {
        let dangling = bundled(
            &[(
                "a.json",
                json!({"$defs": {"A": {"$ref": "b.json#/$defs/B"}}}),
            )],
            &[],
        )
        .expect_err("no b.json");
        assert_eq!(dangling.kind(), ProtocolErrorKind::BadReference);
        assert_eq!(dangling.file(), "p/1/a.json");
        assert_eq!(dangling.pointer(), "/$defs/A/$ref");
        assert!(dangling
            .message()
            .contains("is not among this protocol's schemas"));
        let missing = bundled(
            &[("a.json", json!({"$defs": {"A": {"$ref": "#/$defs/Nope"}}}))],
            &[],
        )
        .expect_err("no type");
        assert_eq!(missing.pointer(), "/$defs/A/$ref");
        assert!(missing.message().contains("#/$defs/Nope"));
    }

    #[test]
    fn a_file_whose_root_is_a_schema_becomes_a_type() {
        let bundle = bundled(
            &[
                (
                    "guide.json",
                    json!({"$defs": {"Result": {"properties": {"hints": {"items": {"$ref": "authoring_hint.json"}}}}}}),
                ),
                (
                    "authoring_hint.json",
                    json!({"$id": "https://wirekit.invalid/p/1/authoring_hint.json", "type": "object", "properties": {"next": {"$ref": "#"}}}),
                ),
            ],
            &[],
        )
        .expect("bundles");
        assert_eq!(
            bundle.defs["Result"]["properties"]["hints"]["items"]["$ref"],
            "#/$defs/AuthoringHint"
        );
        assert_eq!(
            bundle.defs["AuthoringHint"]["properties"]["next"]["$ref"],
            "#/$defs/AuthoringHint"
        );
        assert!(bundle.defs["AuthoringHint"].get("$id").is_none());
        assert_eq!(bundle.origins["AuthoringHint"].pointer, "");
    }

    #[test]
    fn the_same_name_in_two_files_is_two_types() {
        let bundle = bundled(
            &[
                (
                    "a.json",
                    json!({"$defs": {"T": {"type": "string"}, "U": {"$ref": "b.json#/$defs/T"}}}),
                ),
                (
                    "b.json",
                    json!({"$defs": {"T": {"type": "integer"}, "V": {"$ref": "#/$defs/T"}}}),
                ),
            ],
            &[],
        )
        .expect("bundles");
        assert_eq!(bundle.defs["T"], json!({"type": "string"}));
        assert_eq!(bundle.defs["BT"], json!({"type": "integer"}));
        assert_eq!(bundle.defs["U"]["$ref"], "#/$defs/BT");
        assert_eq!(bundle.defs["V"]["$ref"], "#/$defs/BT");
        assert_eq!(bundle.origins["BT"].file, "b.json");
    }

    #[test]
    fn an_anchor_is_the_schema_it_names() {
        // Issue 24's second case: `#s` had become `#/$defs/<title>s`.
        let bundle = bundled(
            &[(
                "node.json",
                json!({"title": "Node", "type": "object", "$defs": {"Nodes": {"type": "array"}, "Str": {"$anchor": "s", "type": "string"}}, "properties": {"name": {"$ref": "#s"}}}),
            )],
            &["node.json"],
        )
        .expect("bundles");
        assert_eq!(bundle.entry("node.json"), Some("Node"));
        assert_eq!(
            bundle.defs["Node"]["properties"]["name"]["$ref"],
            "#/$defs/Str"
        );
        assert_eq!(bundle.defs["Str"], json!({"type": "string"}));
    }

    #[test]
    fn a_member_named_like_a_keyword_is_still_a_schema() {
        // Issue 24's third case: a `$ref` under a property named `default`.
        let bundle = bundled(
            &[
                ("a.json", json!({"title": "A", "type": "object", "properties": {"child": {"$ref": "b.json"}}})),
                (
                    "b.json",
                    json!({"title": "B", "type": "object", "required": ["k"], "properties": {"default": {"$ref": "#"}, "enum": {"$ref": "#"}}}),
                ),
            ],
            &["a.json"],
        )
        .expect("bundles");
        assert_eq!(
            bundle.defs["B"]["properties"]["default"]["$ref"],
            "#/$defs/B"
        );
        assert_eq!(bundle.defs["B"]["properties"]["enum"]["$ref"], "#/$defs/B");
    }

    #[test]
    fn a_reference_into_a_sub_schema_is_named_by_its_pointer() {
        let bundle = bundled(
            &[(
                "mcp.json",
                json!({"definitions": {"InitializeRequest": {"type": "object", "properties": {"params": {"type": "object", "required": ["v"]}}}, "weird key%": {"type": "null"}}}),
            )],
            &[
                "mcp.json#/definitions/InitializeRequest/properties/params",
                "mcp.json#/definitions/weird%20key%25",
            ],
        )
        .expect("bundles");
        assert_eq!(
            bundle.entry("mcp.json#/definitions/InitializeRequest/properties/params"),
            Some("InitializeRequestParams")
        );
        assert_eq!(
            bundle.defs["InitializeRequestParams"]["required"],
            json!(["v"])
        );
        assert_eq!(
            bundle.entry("mcp.json#/definitions/weird%20key%25"),
            Some("WeirdKey")
        );
        // The enclosing type refers to it rather than holding a second copy.
        assert_eq!(
            bundle.defs["InitializeRequest"]["properties"]["params"],
            json!({"$ref": "#/$defs/InitializeRequestParams"})
        );
    }

    #[test]
    fn a_place_named_after_its_enclosing_type_was_copied_is_referenced_too() {
        // `A` is copied first; only then does `B` reach into it.
        let bundle = bundled(
            &[(
                "s.json",
                json!({"$defs": {
                    "A": {"type": "object", "properties": {"inner": {"type": "object", "required": ["k"]}}},
                    "B": {"type": "array", "items": {"$ref": "#/$defs/A/properties/inner"}}
                }}),
            )],
            &["s.json#/$defs/B"],
        )
        .expect("bundles");
        assert_eq!(
            bundle.defs["A"]["properties"]["inner"],
            json!({"$ref": "#/$defs/AInner"})
        );
        assert_eq!(bundle.defs["B"]["items"], json!({"$ref": "#/$defs/AInner"}));
        assert_eq!(bundle.defs["AInner"]["required"], json!(["k"]));
    }

    #[test]
    fn ids_and_urns_resolve_as_the_standard_says() {
        let bundle = bundled(
            &[
                (
                    "root.json",
                    json!({"$id": "https://example.com/schemas/root.json", "$defs": {"R": {"properties": {"o": {"$ref": "other.json"}, "u": {"$ref": "urn:example:thing#/$defs/T"}}}}}),
                ),
                ("other.json", json!({"$id": "https://example.com/schemas/other.json", "type": "integer"})),
                ("urn.json", json!({"$id": "urn:example:thing", "$defs": {"T": {"type": "boolean"}}})),
            ],
            &[],
        )
        .expect("bundles");
        assert_eq!(bundle.defs["R"]["properties"]["o"]["$ref"], "#/$defs/Other");
        assert_eq!(bundle.defs["Other"], json!({"type": "integer"}));
        assert_eq!(bundle.defs["R"]["properties"]["u"]["$ref"], "#/$defs/T");
    }

    #[test]
    fn draft_07_is_written_as_2020_12() {
        let settings: JsonSchemaSettings =
            serde_json::from_value(json!({"dialect": "http://json-schema.org/draft-07/schema#"}))
                .expect("settings");
        let bundle = bundled_with(
            &settings,
            &[(
                "s.json",
                json!({"definitions": {
                    "Tuple": {"items": [{"type": "string"}], "additionalItems": false, "unevaluatedItems": false},
                    "List": {"items": {"type": "string"}, "additionalItems": false},
                    "Ref": {"$ref": "#/definitions/List", "type": "null"},
                    "Deps": {"dependencies": {"a": ["b"], "c": {"required": ["d"]}}}
                }}),
            )],
            &[],
        )
        .expect("bundles");
        assert_eq!(
            bundle.defs["Tuple"],
            json!({"prefixItems": [{"type": "string"}], "items": false})
        );
        assert_eq!(bundle.defs["List"], json!({"items": {"type": "string"}}));
        assert_eq!(bundle.defs["Ref"], json!({"$ref": "#/$defs/List"}));
        assert_eq!(
            bundle.defs["Deps"],
            json!({"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["d"]}}})
        );
    }

    #[test]
    fn a_rebindable_dynamic_reference_is_marked_inexact() {
        let single = bundled(
            &[(
                "tree.json",
                json!({"$defs": {"Tree": {"$dynamicAnchor": "node", "properties": {"kids": {"items": {"$dynamicRef": "#node"}}}}}}),
            )],
            &[],
        )
        .expect("bundles");
        assert!(single.is_exact("Tree"));
        assert_eq!(
            single.defs["Tree"]["properties"]["kids"]["items"]["$ref"],
            "#/$defs/Tree"
        );
        let rebound = bundled(
            &[
                (
                    "tree.json",
                    json!({"$id": "https://x/tree.json", "$dynamicAnchor": "node", "properties": {"kids": {"items": {"$dynamicRef": "#node"}}}}),
                ),
                (
                    "strict.json",
                    json!({"$id": "https://x/strict.json", "$dynamicAnchor": "node", "$ref": "tree.json", "unevaluatedProperties": false}),
                ),
            ],
            &["strict.json"],
        )
        .expect("bundles");
        let entry = rebound.entry("strict.json").expect("entry");
        assert!(!rebound.is_exact(entry));
        assert!(rebound.inexact.values().any(|why| why.contains("#node")));
    }
}
