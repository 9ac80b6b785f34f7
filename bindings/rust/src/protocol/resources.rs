//! A protocol's schema files as JSON Schema resources.
//!
//! Each file is a resource at its retrieval URI, the folder's base URI
//! (manifest `json_schema.base_uri`) joined with its name, in its dialect
//! (its own `$schema`, else the manifest's `json_schema.dialect`). A file
//! keeps its own `$id`, and every reference among the files is resolved by
//! the `referencing` crate, the resolver of the `jsonschema` validator
//! itself: `$id` bases, `$anchor`, `$dynamicAnchor`, URNs, relative and
//! absolute URIs and percent-encoded pointers all resolve as the standard
//! says, and the same [`Registry`] compiles the validators, so what the
//! bundle reads and what the validators check cannot disagree about where a
//! reference leads.
//!
//! A resolved target is placed by its address: every value of every file is
//! indexed once ([`Location`]), so a target found through an anchor or an
//! `$id` is known by its file and JSON pointer.

use std::collections::{BTreeMap, HashMap};

use jsonschema::json::Json;
use jsonschema::{Draft, Validator};
use referencing::{Registry, Resolved, Resolver, Uri, VocabularySet};
use serde_json::Value;

use super::error::{ProtocolError, ProtocolErrorKind};
use super::manifest::{JsonSchemaSettings, SchemaDialect};
use super::MANIFEST_FILE;

/// Where a schema sits: a file of the set and a JSON pointer into it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    /// The file, by its name in the set.
    pub file: String,
    /// The RFC 6901 pointer of the schema in that file (`""` for its root).
    pub pointer: String,
}

/// The files of one protocol version as resources, ready to resolve.
pub struct Resources<'a> {
    origin: &'a str,
    base: String,
    manifest_uri: Uri<String>,
    file_uris: HashMap<&'a str, Uri<String>>,
    files: &'a SchemaFiles,
    registry: Registry<'a>,
    drafts: HashMap<&'a str, Draft>,
    locations: HashMap<usize, Location>,
    asserts_formats: bool,
}

/// A reference resolved: where its target is, the resolver based there and
/// the target's dialect.
pub struct Target<'r> {
    /// Where the target sits.
    pub location: Location,
    /// The target.
    pub schema: &'r Value,
    /// A resolver based at the target (its own `$id` applied).
    pub resolver: Resolver<'r>,
    /// The dialect the target is read in.
    pub draft: Draft,
}

impl<'a> Resources<'a> {
    /// Indexes `files` at `base` (an absolute URI ending in `/`), reading a
    /// file without `$schema` in `dialect`. Fails when the base is not an
    /// absolute URI, a file names a dialect wirekit does not read, or a
    /// reference cannot be resolved among the files.
    pub fn new(
        origin: &'a str,
        settings: &JsonSchemaSettings,
        base: &str,
        files: &'a SchemaFiles,
    ) -> Result<Self, ProtocolError> {
        let dialect = settings.dialect();
        let manifest_file = format!("{origin}/{MANIFEST_FILE}");
        let bad_base = |why: String| {
            ProtocolError::new(
                ProtocolErrorKind::BadManifest,
                &manifest_file,
                "/json_schema/base_uri",
                why,
            )
        };
        let parsed = referencing::uri::from_str(base)
            .map_err(|error| bad_base(format!("`{base}` is not an absolute URI: {error}")))?;
        if !parsed.path().as_str().ends_with('/') {
            return Err(bad_base(format!("`{base}` must end in `/`")));
        }
        let manifest_uri = join(base, MANIFEST_FILE).map_err(bad_base)?;
        let default = draft_of(dialect);
        let mut drafts = HashMap::new();
        let mut file_uris = HashMap::new();
        // The dialect's own meta-schema is known (a schema may `$ref` it).
        let mut builder = Registry::new().draft(default);
        for (name, document) in files {
            let draft = default.detect(document);
            if let Some(declared) = document.get("$schema").and_then(Value::as_str) {
                if matches!(draft, Draft::Draft4 | Draft::Draft6) {
                    return Err(ProtocolError::new(
                        ProtocolErrorKind::BadSchema,
                        format!("{origin}/{name}"),
                        "/$schema",
                        format!(
                            "`{declared}` is a dialect wirekit does not read: write the file in draft 2020-12, 2019-09 or draft-07"
                        ),
                    ));
                }
            }
            drafts.insert(name.as_str(), draft);
            let uri = join(base, name).map_err(|why| {
                ProtocolError::new(
                    ProtocolErrorKind::BadManifest,
                    &manifest_file,
                    "/schemas",
                    format!("schema file `{name}` has no URI below `{base}`: {why}"),
                )
            })?;
            file_uris.insert(name.as_str(), uri.clone());
            builder = builder
                .add(uri.as_str(), draft.create_resource_ref(document))
                .map_err(|error| {
                    ProtocolError::new(
                        ProtocolErrorKind::BadSchema,
                        format!("{origin}/{name}"),
                        "",
                        error.to_string(),
                    )
                })?;
        }
        let registry = builder
            .prepare()
            .map_err(|error| unresolved(origin, base, files, &error))?;
        let mut locations = HashMap::new();
        for (name, document) in files {
            index(name, document, &mut String::new(), &mut locations);
        }
        Ok(Resources {
            origin,
            base: base.to_owned(),
            manifest_uri,
            file_uris,
            files,
            registry,
            drafts,
            locations,
            asserts_formats: settings.asserts_formats(),
        })
    }

    /// The registry every validator of the protocol is compiled with.
    pub fn registry(&self) -> &Registry<'a> {
        &self.registry
    }

    /// The validator of a reference written in the manifest, for values in
    /// the JSON representation `F` (`serde_json`'s by default; the Python
    /// binding reads its objects in place): the files themselves, with
    /// `format` asserted when the manifest says so.
    pub fn validator<F: Json>(&self, reference: &str) -> Result<Validator<F>, String> {
        jsonschema::options_for::<F>()
            .with_registry(&self.registry)
            .with_base_uri(self.manifest_uri.as_str())
            .should_validate_formats(self.asserts_formats)
            .build(&serde_json::json!({ "$ref": reference }))
            .map_err(|error| error.to_string())
    }

    /// The URI the manifest's own references resolve against.
    pub fn manifest_uri(&self) -> &str {
        self.manifest_uri.as_str()
    }

    /// The files of the set.
    pub fn files(&self) -> &'a SchemaFiles {
        self.files
    }

    /// The version's folder (`<protocol>/<version>`), for errors.
    pub fn origin(&self) -> &'a str {
        self.origin
    }

    /// The vocabularies in effect in `file` when its `$schema` is a custom
    /// meta-schema of the set (`None`: its dialect's, all of them).
    pub fn vocabularies(&self, file: &str) -> Option<VocabularySet> {
        let document = self.files.get(file)?;
        (self.draft(file) == Draft::Unknown)
            .then(|| self.registry.find_vocabularies(Draft::Unknown, document))
    }

    /// The dialect `file` is read in.
    pub fn draft(&self, file: &str) -> Draft {
        self.drafts.get(file).copied().unwrap_or_default()
    }

    /// A resolver based where the manifest is.
    pub fn manifest_resolver(&self) -> Resolver<'_> {
        self.registry.resolver(self.manifest_uri.clone())
    }

    /// Resolves `reference` from `resolver`; `file`/`at` say where it is
    /// written, for the error.
    pub fn lookup<'r>(
        &'r self,
        resolver: &Resolver<'r>,
        reference: &str,
        file: &str,
        at: &str,
    ) -> Result<Target<'r>, ProtocolError> {
        let resolved = resolver
            .lookup(reference)
            .map_err(|error| self.bad_reference(file, at, reference, &self.describe(&error)))?;
        self.target(resolved).ok_or_else(|| {
            self.bad_reference(file, at, reference, "it leads outside the schema files")
        })
    }

    /// Where a resolved schema sits.
    pub fn target<'r>(&'r self, resolved: Resolved<'r>) -> Option<Target<'r>> {
        let (schema, resolver, draft) = resolved.into_inner();
        let location = self.locate(schema)?;
        let draft = match draft {
            Draft::Unknown => self.draft(&location.file),
            known => known,
        };
        Some(Target {
            location,
            schema,
            resolver,
            draft,
        })
    }

    /// Where a value of one of the files sits.
    pub fn locate(&self, value: &Value) -> Option<Location> {
        self.locations
            .get(&(std::ptr::from_ref(value) as usize))
            .cloned()
    }

    /// A resolver based at `location`'s schema.
    pub fn resolver_for(&self, location: &Location) -> Result<Target<'_>, ProtocolError> {
        let reference = if location.pointer.is_empty() {
            String::new()
        } else {
            format!("#{}", encode_fragment(&location.pointer))
        };
        let Some(file_uri) = self.file_uris.get(location.file.as_str()) else {
            return Err(self.bad_reference(&location.file, "", &location.file, "no such file"));
        };
        let resolver = self.registry.resolver(file_uri.clone());
        let reference = format!("{}{reference}", file_uri.as_str());
        self.lookup(&resolver, &reference, &location.file, &location.pointer)
    }

    /// Why a reference does not resolve, in a sentence.
    pub fn describe(&self, error: &referencing::Error) -> String {
        match error {
            referencing::Error::Unretrievable { uri, .. } => format!(
                "`{uri}` is not among this protocol's schemas (the files, based at `{}`: {}); give the file that `$id`, or set the manifest's `json_schema.base_uri`",
                self.base,
                self.files.keys().map(String::as_str).collect::<Vec<_>>().join(", ")
            ),
            referencing::Error::PointerToNowhere { pointer } => {
                format!("the document it names has nothing at `{pointer}`")
            }
            referencing::Error::NoSuchAnchor { anchor } => {
                format!("no schema of the document it names declares the anchor `{anchor}`")
            }
            other => other.to_string(),
        }
    }

    /// The error for a reference that does not resolve.
    pub fn bad_reference(&self, file: &str, at: &str, reference: &str, why: &str) -> ProtocolError {
        let shown = if file.is_empty() { MANIFEST_FILE } else { file };
        ProtocolError::new(
            ProtocolErrorKind::BadReference,
            format!("{}/{shown}", self.origin),
            at,
            format!("`{reference}` does not resolve: {why}"),
        )
    }
}

impl std::fmt::Debug for Resources<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resources")
            .field("origin", &self.origin)
            .field("base", &self.base)
            .field("files", &self.files.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// The `referencing` draft of a manifest dialect.
pub fn draft_of(dialect: SchemaDialect) -> Draft {
    match dialect {
        SchemaDialect::Draft202012 => Draft::Draft202012,
        SchemaDialect::Draft201909 => Draft::Draft201909,
        SchemaDialect::Draft7 => Draft::Draft7,
    }
}

/// `name` resolved against `base`.
fn join(base: &str, name: &str) -> Result<Uri<String>, String> {
    let base = referencing::uri::from_str(base).map_err(|error| error.to_string())?;
    referencing::uri::resolve_against(&base.borrow(), name).map_err(|error| error.to_string())
}

/// A JSON pointer as a URI fragment (RFC 6901 section 6).
fn encode_fragment(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    for byte in pointer.bytes() {
        if byte.is_ascii_alphanumeric() || b"/~-._!$&'()*+,;=:@".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Records where every value of `value` sits.
fn index(file: &str, value: &Value, pointer: &mut String, into: &mut HashMap<usize, Location>) {
    into.insert(
        std::ptr::from_ref(value) as usize,
        Location {
            file: file.to_owned(),
            pointer: pointer.clone(),
        },
    );
    let depth = pointer.len();
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                pointer.push('/');
                pointer.push_str(&escape_pointer(key));
                index(file, member, pointer, into);
                pointer.truncate(depth);
            }
        }
        Value::Array(items) => {
            for (position, item) in items.iter().enumerate() {
                pointer.push('/');
                pointer.push_str(&position.to_string());
                index(file, item, pointer, into);
                pointer.truncate(depth);
            }
        }
        _ => {}
    }
}

/// The error of a registry that could not be prepared: a reference to a
/// resource that is not among the files, named with where it is written
/// when that can be found.
fn unresolved(
    origin: &str,
    base: &str,
    files: &SchemaFiles,
    error: &referencing::Error,
) -> ProtocolError {
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    let (uri, message) = match error {
        referencing::Error::Unretrievable { uri, .. } => (
            uri.clone(),
            format!(
                "`{uri}` is not among this protocol's schemas (the files, based at `{base}`: {}); give the file that `$id`, or set the manifest's `json_schema.base_uri`",
                names.join(", ")
            ),
        ),
        other => (String::new(), other.to_string()),
    };
    let written = (!uri.is_empty())
        .then(|| find_reference(files, &uri))
        .flatten();
    let (file, pointer) = written.unwrap_or_else(|| (MANIFEST_FILE.to_owned(), String::new()));
    ProtocolError::new(
        ProtocolErrorKind::BadReference,
        format!("{origin}/{file}"),
        pointer,
        message,
    )
}

/// The first `$ref` (or `$dynamicRef`, `$schema`) whose text names the
/// document `uri`, for an error message.
fn find_reference(files: &SchemaFiles, uri: &str) -> Option<(String, String)> {
    let last = uri.rsplit('/').next().unwrap_or(uri);
    fn walk(value: &Value, pointer: &str, wanted: &dyn Fn(&str) -> bool) -> Option<String> {
        match value {
            Value::Object(members) => members.iter().find_map(|(key, member)| {
                let here = format!("{pointer}/{}", escape_pointer(key));
                match (key.as_str(), member) {
                    ("$ref" | "$dynamicRef" | "$schema", Value::String(text)) if wanted(text) => {
                        Some(here)
                    }
                    _ => walk(member, &here, wanted),
                }
            }),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, item)| walk(item, &format!("{pointer}/{i}"), wanted)),
            _ => None,
        }
    }
    let wanted = |text: &str| {
        let document = text.split('#').next().unwrap_or(text);
        !document.is_empty() && (document == uri || document.ends_with(last))
    };
    files
        .iter()
        .find_map(|(name, document)| Some((name.clone(), walk(document, "", &wanted)?)))
}

/// Schema files by their name relative to the manifest.
pub type SchemaFiles = BTreeMap<String, Value>;

/// One JSON-pointer segment, escaped (`~` as `~0`, `/` as `~1`).
pub(crate) fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

pub(crate) fn unescape_pointer(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}
