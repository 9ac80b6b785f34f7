//! The embedded protocols and validation of messages by method.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use serde_json::Value;

use wirekit::envelope::{self, EnvelopeOptions, ErrorObject, Message, Response};
use wirekit::serve::{Wire, WireError};
use wirekit::validate::{Part, Protocol as RustProtocol};

use crate::convert::{from_python_err, to_python};
use crate::errors::{
    envelope_error, framing_error, protocol_error, rpc_error, unexpected_message, validation_error,
};
use crate::in_place::InPlaceCache;
use crate::issue::Issue;
use crate::message::id_from_python;

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
    pub(crate) wire: Wire,
    /// Validators reading Python objects in place, by method and part,
    /// built on first use; `None` where the general path must be taken
    /// (no schema, or semantic rules beyond the schema).
    pub(crate) in_place: InPlaceCache,
}

impl PyProtocol {
    fn envelope(&self) -> EnvelopeOptions {
        self.inner.manifest().transport.envelope_options()
    }

    /// A request's params from their text, checked in place
    /// (`InPlaceCache::params_in_place`); `None` for the usual path.
    pub(crate) fn params_in_place<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        text: &str,
    ) -> Option<Bound<'py, PyAny>> {
        self.in_place.params_in_place(py, &self.inner, method, text)
    }

    /// Appends a valid result's JSON to `out`, written and checked in
    /// place (`in_place`); `None` to take the general path.
    pub(crate) fn result_in_place(
        &self,
        method: &str,
        result: &Bound<'_, PyAny>,
        out: &mut Vec<u8>,
    ) -> Option<()> {
        self.in_place
            .result_in_place(&self.inner, method, result, out)
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
            in_place: InPlaceCache::default(),
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
            in_place: InPlaceCache::default(),
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
        self.inner.manifest().transport.frame_bound()
    }

    /// How the handler of each method the client sends is called, in the
    /// manifest's order: `(name, "request" | "stream" | "notification")`
    /// (the core's model; a service registers handlers by it).
    fn served_methods(&self) -> Vec<(String, &'static str)> {
        self.inner
            .manifest()
            .served_methods()
            .map(|(name, served)| (name.to_owned(), served.name()))
            .collect()
    }

    /// The capability declaration of a server that handles the methods for
    /// which `handles(name)` is true (`None` when the protocol declares no
    /// capabilities), as the core derives it for the protocol's style, each
    /// capability spelled as the declaring result's schema accepts it
    /// (`true`, or `{}` where only an object is valid: MCP).
    fn capabilities_for<'py>(
        &self,
        py: Python<'py>,
        handles: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let manifest = self.inner.manifest();
        let mut handled = std::collections::HashSet::new();
        for name in manifest.methods.keys() {
            if handles.call1((name.as_str(),))?.is_truthy()? {
                handled.insert(name.as_str());
            }
        }
        match self
            .inner
            .capabilities_for(&|name: &str| handled.contains(name))
        {
            Some(declaration) => to_python(py, &declaration),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// The version a server of this protocol declares (version
    /// negotiation's, else the protocol's own).
    #[getter]
    fn server_version(&self) -> &str {
        self.inner.manifest().server_version()
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
        if let Some(result) = self.in_place.read_in_place(py, &self.inner, method, body) {
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
        if let Some(frame) =
            self.in_place
                .write_in_place(&self.inner, &self.wire, method, &id, result)
        {
            return Ok(PyBytes::new(py, frame.bytes()));
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
