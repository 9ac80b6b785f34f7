//! The embedded protocols and validation of messages by method.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyModule};
use serde_json::Value;

use serde::de::{DeserializeSeed, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{json, Map};
use wirekit::envelope::{self, EnvelopeOptions, ErrorObject, Message, Response};
use wirekit::protocol::bundle::{localize_ref, DRAFT_2020_12};
use wirekit::serve::{Wire, WireError};
use wirekit::validate::{IssueKind, Part, Protocol as RustProtocol, ValidationIssue};

use crate::check::Check;
use crate::convert::{from_python_err, to_python};
use crate::envelope::id_from_python;
use crate::errors::{
    envelope_error, framing_error, protocol_error, rpc_error, unexpected_message, validation_error,
};
use crate::fast::{Checked, JsonWriter, PySeed, SeedContext};
use crate::pyjson::{accepts, validator_for, PyValidator};

/// Compact JSON text written by `JsonWriter` or `serde_json` as a `RawValue`.
#[allow(unsafe_code)]
pub(crate) fn raw_json(json: Vec<u8>) -> Box<RawValue> {
    // SAFETY: both writers produce one well-formed JSON value in valid
    // UTF-8 with no surrounding whitespace (strings come from CPython's
    // validated UTF-8 or from Rust `str`s; every control character is
    // escaped). Re-parsing 700 KB to prove it would cost what this path
    // saves.
    unsafe { RawValue::from_string_unchecked(String::from_utf8_unchecked(json)) }
}

/// One validation problem: kind, where in the instance, which keyword, why.
#[pyclass(module = "wirekit._native", name = "ValidationIssue", frozen, eq)]
#[derive(PartialEq)]
pub struct Issue {
    /// `"schema"`, `"rule"` or `"missing"`.
    #[pyo3(get)]
    kind: &'static str,
    /// The JSON Schema keyword (`required`) or rule name; `missing` for an absent part.
    #[pyo3(get)]
    keyword: String,
    /// JSON pointer of the offending member within the checked part.
    #[pyo3(get)]
    instance_path: String,
    /// Where the failing keyword sits in the bundled schema.
    #[pyo3(get)]
    schema_path: String,
    /// A sentence a person understands.
    #[pyo3(get)]
    message: String,
}

impl From<ValidationIssue> for Issue {
    fn from(issue: ValidationIssue) -> Self {
        let kind = match &issue.kind {
            IssueKind::Schema(_) => "schema",
            IssueKind::Rule(_) => "rule",
            IssueKind::Missing => "missing",
        };
        Issue {
            kind,
            keyword: issue.keyword().to_owned(),
            instance_path: issue.instance_path,
            schema_path: issue.schema_path,
            message: issue.message,
        }
    }
}

#[pymethods]
impl Issue {
    /// The issue as the dict a `-32602` answer carries: `pointer`,
    /// `keyword`, `schema_path`, `message`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("pointer", &self.instance_path)?;
        dict.set_item("keyword", &self.keyword)?;
        dict.set_item("schema_path", &self.schema_path)?;
        dict.set_item("message", &self.message)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!(
            "ValidationIssue(kind={:?}, keyword={:?}, instance_path={:?}, message={:?})",
            self.kind, self.keyword, self.instance_path, self.message
        )
    }
}

/// Reads `"params"`, `"result"`, `"item"` or `"error_data"`.
pub fn parse_part(name: &str) -> PyResult<Part> {
    match name {
        "params" => Ok(Part::Params),
        "result" => Ok(Part::Result),
        "item" => Ok(Part::Item),
        "error_data" => Ok(Part::ErrorData),
        other => Err(PyValueError::new_err(format!(
            "unknown part {other:?}; expected \"params\", \"result\", \"item\" or \"error_data\""
        ))),
    }
}

/// Every embedded protocol version, as `name@version`.
#[pyfunction]
pub fn embedded_protocols(py: Python<'_>) -> PyResult<Vec<String>> {
    match wirekit_protocols::registry() {
        Ok(registry) => Ok(registry.iter().map(|source| source.id()).collect()),
        Err(error) => Err(protocol_error(py, &error)),
    }
}

/// Loads an embedded protocol, compiled once per process.
pub fn load(py: Python<'_>, spec: &str) -> PyResult<Arc<RustProtocol>> {
    py.detach(|| wirekit_protocols::protocol(spec))
        .map_err(|error| protocol_error(py, &error))
}

/// Loads a protocol from a folder laid out as `schemas/`
/// (`<protocol>/<version>/protocol.json`) at run time: the registry reads
/// every manifest and the core compiles the one asked for, refusing a
/// folder that breaks the manifest shape or the consistency rules (the
/// `ProtocolError` names the file and the pointer at fault).
pub fn load_from(py: Python<'_>, spec: &str, dir: &std::path::Path) -> PyResult<Arc<RustProtocol>> {
    py.detach(|| {
        let registry = wirekit::protocol::Registry::from_dir(dir)?;
        RustProtocol::compile(registry.get(spec)?.clone()).map(Arc::new)
    })
    .map_err(|error| protocol_error(py, &error))
}

/// A protocol version ready to validate messages (`"gaze-analyzer"` for the
/// newest version, `"gaze-analyzer@1.0.0"` for one).
#[pyclass(module = "wirekit._native", name = "Protocol", frozen)]
pub struct PyProtocol {
    pub(crate) inner: Arc<RustProtocol>,
    /// The core's writer of this protocol's frames: the only way a frame
    /// is made here.
    wire: Wire,
    /// Validators reading Python objects in place, by method and part,
    /// built on first use; `None` where the general path must be taken
    /// (no schema, or semantic rules beyond the schema).
    in_place: Mutex<InPlaceValidators>,
}

/// In-place validators by (method, part name); `None` for the general path.
/// By part name, then method (looked up without allocating).
type InPlaceValidators = HashMap<&'static str, HashMap<String, Option<Arc<InPlace>>>>;

/// How one part is checked in place: the quick subset check when the schema
/// fits it (`check`, run in the same walk as the writer), then the full
/// `jsonschema` validator for what the quick check does not accept (and
/// for everything parsed).
pub(crate) struct InPlace {
    quick: Option<Check>,
    full: PyValidator,
    /// The size of the last value of this part written in place: the next
    /// buffer starts there instead of growing (and copying) its way up.
    last_written: AtomicUsize,
}

impl InPlace {
    /// A capacity for the next buffer.
    pub(crate) fn size_hint(&self) -> usize {
        self.last_written.load(Ordering::Relaxed).max(192) + 64
    }
}

/// Bodies from this size up are parsed with the garbage collector paused.
const GC_PAUSE_BYTES: usize = 64 * 1024;

/// The cyclic garbage collector paused while a large result is built.
///
/// Building one allocates thousands of containers, and CPython starts a
/// collection every 700 container allocations; each one traverses the
/// young objects (and every tenth the older ones) while none of the objects
/// being built can be garbage: they are all reachable from the value under
/// construction, which no Python code sees yet. Pausing skips that work;
/// the allocation count is kept, so the next collection runs as soon as
/// the parse is over. Only when the collector was enabled; the GIL is held
/// throughout (no other thread observes the pause).
struct GcPause<'py> {
    gc: Bound<'py, PyModule>,
}

impl<'py> GcPause<'py> {
    fn new(py: Python<'py>) -> Option<Self> {
        let gc = py.import("gc").ok()?;
        if !gc.call_method0("isenabled").ok()?.is_truthy().ok()? {
            return None;
        }
        gc.call_method0("disable").ok()?;
        Some(GcPause { gc })
    }
}

impl Drop for GcPause<'_> {
    fn drop(&mut self) {
        // `gc.enable()` cannot fail short of a broken interpreter; there is
        // no caller to hand an error to from here.
        let _ = self.gc.call_method0("enable");
    }
}

/// The envelope of a response with its `result` built as Python objects.
struct ResponseSeed<'a, 'py> {
    py: Python<'py>,
    ctx: &'a mut SeedContext<'py>,
}

impl<'de, 'py> DeserializeSeed<'de> for ResponseSeed<'_, 'py> {
    type Value = (Value, Option<Bound<'py, PyAny>>);

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, 'py> Visitor<'de> for ResponseSeed<'_, 'py> {
    type Value = (Value, Option<Bound<'py, PyAny>>);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC response object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Map::new();
        let mut result = None;
        while let Some(name) = map.next_key::<String>()? {
            if name == "result" {
                result = Some(map.next_value_seed(PySeed::new(self.py, &mut *self.ctx))?);
                members.insert(name, Value::Null);
            } else {
                members.insert(name, map.next_value::<Value>()?);
            }
        }
        Ok((Value::Object(members), result))
    }
}

impl PyProtocol {
    fn envelope(&self) -> EnvelopeOptions {
        self.inner.manifest().transport.envelope_options()
    }

    /// The in-place validator of `method`'s `part`, if it has one.
    fn in_place(&self, method: &str, part: Part) -> Option<Arc<InPlace>> {
        if let Ok(cache) = self.in_place.lock() {
            if let Some(found) = cache
                .get(part.name())
                .and_then(|by_method| by_method.get(method))
            {
                return found.clone();
            }
        }
        let built = self.build_in_place(method, part).map(Arc::new);
        if let Ok(mut cache) = self.in_place.lock() {
            cache
                .entry(part.name())
                .or_default()
                .insert(method.to_owned(), built.clone());
        }
        built
    }

    fn build_in_place(&self, method: &str, part: Part) -> Option<InPlace> {
        let manifest = self.inner.manifest();
        let spec = manifest.methods.get(method)?;
        let has_rules = manifest
            .rules
            .iter()
            .any(|rule| rule.arguments.get("method").and_then(Value::as_str) == Some(method));
        if has_rules {
            return None;
        }
        let reference = match part {
            Part::Params => spec.params.as_ref(),
            Part::Result => spec.result.as_ref(),
            Part::Item => spec.result_stream.as_ref(),
            Part::ErrorData => manifest.error_data.as_ref(),
        }?;
        let source = self.inner.source();
        let local = localize_ref(&source.origin, "", &reference.reference, &source.files).ok()?;
        let defs = source
            .bundled_schema()
            .get("$defs")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let quick = Check::compile(&defs, &local);
        let full = validator_for(&json!({"$schema": DRAFT_2020_12, "$defs": defs, "$ref": local}))?;
        Some(InPlace {
            quick,
            full,
            last_written: AtomicUsize::new(0),
        })
    }

    /// Appends a valid result's JSON to `out`, written straight from the
    /// Python objects and then validated in place; `None` (with `out` in
    /// an unspecified state) to take the general path: no in-place
    /// validator for `method`, a value the writer refuses, or an invalid
    /// one (the general path reports it).
    pub(crate) fn result_in_place(
        &self,
        method: &str,
        result: &Bound<'_, PyAny>,
        out: &mut Vec<u8>,
    ) -> Option<()> {
        let validator = self.in_place(method, Part::Result)?;
        let start = out.len();
        out.reserve(validator.size_hint());
        let accepted = 'walk: {
            if let Some(quick) = &validator.quick {
                match JsonWriter::default().write_checked(quick, result, out) {
                    Checked::Accepted => break 'walk true,
                    Checked::NotJson => return None,
                    Checked::Unknown => out.truncate(start),
                }
            }
            // Written first: the writer accepts exact builtin types only,
            // which is what validating in place needs (`raw`).
            JsonWriter::default().write(result, out)?;
            accepts(&validator.full, result)
        };
        validator
            .last_written
            .store(out.len() - start, Ordering::Relaxed);
        accepted.then_some(())
    }

    /// The response frame for a valid result, the result written straight
    /// from the Python objects and framed by the core (`Wire`, canonical
    /// where the protocol is); `None` to take the general path.
    fn write_in_place(
        &self,
        method: &str,
        id: &wirekit::envelope::Id,
        result: &Bound<'_, PyAny>,
    ) -> Option<Vec<u8>> {
        let mut json = Vec::with_capacity(64);
        self.result_in_place(method, result, &mut json)?;
        // Over the bound (or not framable): the general path says why.
        self.wire.frame_result(id, &raw_json(json)).ok()
    }

    /// The checked result of a success response, parsed straight into
    /// Python objects; `None` to take the general path (which also reports
    /// any problem precisely).
    fn read_in_place<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        body: &[u8],
    ) -> Option<Bound<'py, PyAny>> {
        let opts = self.envelope();
        if opts.strict {
            return None;
        }
        let validator = self.in_place(method, Part::Result)?;
        let text = std::str::from_utf8(body).ok()?;
        let mut ctx = SeedContext::default();
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let paused = (body.len() >= GC_PAUSE_BYTES)
            .then(|| GcPause::new(py))
            .flatten();
        let parsed = ResponseSeed { py, ctx: &mut ctx }.deserialize(&mut deserializer);
        drop(paused);
        let (envelope, result) = parsed.ok()?;
        deserializer.end().ok()?;
        // The in-place validator reads integers as i64: the core's path
        // validates one beyond that.
        if ctx.saw_big_integer() {
            return None;
        }
        let result = result?;
        match envelope::decode_value(envelope, &opts).ok()? {
            Message::Response(Response { outcome: Ok(_), .. }) => {}
            _ => return None,
        }
        accepts(&validator.full, &result).then_some(result)
    }
}

#[pymethods]
impl PyProtocol {
    #[new]
    #[pyo3(signature = (spec, *, schemas=None))]
    fn new(py: Python<'_>, spec: &str, schemas: Option<std::path::PathBuf>) -> PyResult<Self> {
        let inner = match schemas {
            Some(dir) => load_from(py, spec, &dir)?,
            None => load(py, spec)?,
        };
        let wire = Wire::new(&inner.manifest().transport);
        Ok(PyProtocol {
            inner,
            wire,
            in_place: Mutex::new(HashMap::new()),
        })
    }

    /// A protocol from a manifest (`protocol.json`, as a dict) and its
    /// schema files by name, for a protocol that is not embedded. Raises
    /// `ProtocolError` for a manifest or schema that does not load.
    #[staticmethod]
    #[pyo3(signature = (manifest, schemas, *, origin="custom/0"))]
    fn from_manifest(
        py: Python<'_>,
        manifest: &Bound<'_, PyAny>,
        schemas: &Bound<'_, PyDict>,
        origin: &str,
    ) -> PyResult<Self> {
        let manifest_json = from_python_err(manifest)?;
        let mut files = wirekit::protocol::bundle::SchemaFiles::new();
        for (name, schema) in schemas.iter() {
            files.insert(name.extract::<String>()?, from_python_err(&schema)?);
        }
        let compiled = py.detach(|| {
            wirekit::protocol::ProtocolSource::new(origin, manifest_json, files)
                .and_then(RustProtocol::compile)
        });
        let inner = Arc::new(compiled.map_err(|error| protocol_error(py, &error))?);
        let wire = Wire::new(&inner.manifest().transport);
        Ok(PyProtocol {
            inner,
            wire,
            in_place: Mutex::new(HashMap::new()),
        })
    }

    /// The protocol's name.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.manifest().protocol
    }

    /// The version.
    #[getter]
    fn version(&self) -> &str {
        &self.inner.manifest().version
    }

    /// `name@version`.
    #[getter]
    fn id(&self) -> String {
        self.inner.id()
    }

    /// `"ndjson"` or `"content-length"`.
    #[getter]
    fn framing(&self) -> &'static str {
        self.inner.manifest().transport.framing.name()
    }

    /// `"jsonrpc-2.0"` or `"bare"`.
    #[getter]
    fn dialect(&self) -> &'static str {
        self.inner.manifest().transport.envelope.as_str()
    }

    /// Whether envelopes are decoded strictly.
    #[getter]
    fn strict(&self) -> bool {
        self.inner.manifest().transport.strict
    }

    /// The largest frame body in bytes.
    #[getter]
    fn max_frame_bytes(&self) -> usize {
        self.inner.manifest().transport.max_frame_bytes
    }

    /// Every method and notification name, in declaration order.
    #[getter]
    fn methods(&self) -> Vec<String> {
        self.inner.manifest().methods.keys().cloned().collect()
    }

    /// The manifest (`protocol.json`) as written.
    #[getter]
    fn manifest<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.inner.source().manifest_json)
    }

    /// Checks one part of a message of `method` (`None` params means absent);
    /// returns every issue, empty when valid.
    fn validate<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        part: &str,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let part = parse_part(part)?;
        let value = from_python_err(value)?;
        let issues = self.inner.validate(method, part, Some(&value));
        let list = PyList::empty(py);
        for issue in issues {
            list.append(Bound::new(py, Issue::from(issue))?)?;
        }
        Ok(list)
    }

    /// Like `validate`, but raises `ValidationError` listing the issues.
    fn check(
        &self,
        py: Python<'_>,
        method: &str,
        part: &str,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let part = parse_part(part)?;
        let value = from_python_err(value)?;
        let issues = self.inner.validate(method, part, Some(&value));
        if issues.is_empty() {
            Ok(())
        } else {
            Err(validation_error(py, method, part, issues))
        }
    }

    /// Bytes of a response body (no framing) to its checked result as
    /// Python objects: the envelope decoded, the result validated against
    /// `method`'s result schema, converted once. Raises `EnvelopeError`,
    /// `RpcError` (an error response) or `ValidationError`.
    fn read_result<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        body: &[u8],
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Some(result) = self.read_in_place(py, method, body) {
            return Ok(result);
        }
        let opts = self.envelope();
        let decoded = py.detach(|| {
            let message = envelope::decode(body, &opts)?;
            let issues = match &message {
                Message::Response(Response {
                    outcome: Ok(result),
                    ..
                }) => self.inner.validate(method, Part::Result, Some(result)),
                _ => Vec::new(),
            };
            Ok::<_, envelope::EnvelopeError>((message, issues))
        });
        let (message, issues) = decoded.map_err(|error| envelope_error(py, &error))?;
        match message {
            Message::Response(Response {
                outcome: Ok(result),
                ..
            }) => {
                if issues.is_empty() {
                    to_python(py, &result)
                } else {
                    Err(validation_error(py, method, Part::Result, issues))
                }
            }
            Message::Response(Response {
                outcome: Err(error),
                ..
            }) => Err(rpc_error(py, &error)),
            other => Err(unexpected_message(py, other.kind().as_str(), "response")),
        }
    }

    /// A handler's result to the checked bytes of its response frame: the
    /// result converted once, validated against `method`'s result schema,
    /// encoded in the protocol's dialect and framed. Raises
    /// `ValidationError` for an invalid result.
    fn write_result<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        id: &Bound<'py, PyAny>,
        result: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let id = id_from_python(id)?;
        if let Some(frame) = self.write_in_place(method, &id, result) {
            return Ok(PyBytes::new(py, &frame));
        }
        let value = from_python_err(result)?;
        let outcome = py.detach(|| {
            let issues = self.inner.validate(method, Part::Result, Some(&value));
            if !issues.is_empty() {
                return Ok(Err(issues));
            }
            let message = Message::Response(Response::success(id, value));
            self.wire.frame_message(&message).map(Ok)
        });
        match outcome {
            Ok(Ok(frame)) => Ok(PyBytes::new(py, &frame)),
            Ok(Err(issues)) => Err(validation_error(py, method, Part::Result, issues)),
            Err(WireError::Framing(error)) => Err(framing_error(py, &error)),
            Err(WireError::Encode(error)) => Err(envelope_error(py, &error)),
            Err(other) => Err(PyValueError::new_err(other.to_string())),
        }
    }

    /// Checks an error object (`{"code", "message", "data"?}`) against the
    /// protocol's error schemas (`error_data`, `error_object`); returns
    /// every issue (pointers from the error object), empty when valid.
    fn validate_error<'py>(
        &self,
        py: Python<'py>,
        error: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let value = from_python_err(error)?;
        let object = ErrorObject {
            code: value
                .get("code")
                .and_then(Value::as_i64)
                .ok_or_else(|| PyValueError::new_err("an error object has an integer `code`"))?,
            message: value
                .get("message")
                .and_then(Value::as_str)
                .ok_or_else(|| PyValueError::new_err("an error object has a string `message`"))?
                .to_owned(),
            data: value.get("data").cloned(),
        };
        let list = PyList::empty(py);
        for issue in self.inner.validate_error(&object) {
            list.append(Bound::new(py, Issue::from(issue))?)?;
        }
        Ok(list)
    }

    fn __repr__(&self) -> String {
        format!("Protocol({:?})", self.inner.id())
    }
}
