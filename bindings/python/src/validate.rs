//! The embedded protocols and validation of messages by method.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use serde_json::Value;

use wirekit::envelope::{self, EnvelopeOptions, Message, Response};
use wirekit::framing::{encoder_for, FrameEncoder};
use wirekit::protocol::Registry;
use wirekit::validate::{IssueKind, Part, Protocol as RustProtocol, ValidationIssue};

use crate::convert::{from_python_err, to_python};
use crate::envelope::id_from_python;
use crate::errors::{envelope_error, framing_error, protocol_error, rpc_error, validation_error};

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
    match Registry::embedded() {
        Ok(registry) => Ok(registry.iter().map(|source| source.id()).collect()),
        Err(error) => Err(protocol_error(py, &error)),
    }
}

/// Loads an embedded protocol, compiled once per process.
pub fn load(py: Python<'_>, spec: &str) -> PyResult<Arc<RustProtocol>> {
    py.detach(|| RustProtocol::embedded(spec))
        .map_err(|error| protocol_error(py, &error))
}

/// A protocol version ready to validate messages (`"gaze-analyzer"` for the
/// newest version, `"gaze-analyzer@1.0.0"` for one).
#[pyclass(module = "wirekit._native", name = "Protocol", frozen)]
pub struct PyProtocol {
    pub(crate) inner: Arc<RustProtocol>,
    encoder: Box<dyn FrameEncoder + Send + Sync>,
}

impl PyProtocol {
    fn envelope(&self) -> EnvelopeOptions {
        let transport = &self.inner.manifest().transport;
        EnvelopeOptions::new(transport.envelope).with_strict(transport.strict)
    }
}

#[pymethods]
impl PyProtocol {
    #[new]
    fn new(py: Python<'_>, spec: &str) -> PyResult<Self> {
        let inner = load(py, spec)?;
        let transport = &inner.manifest().transport;
        let limits = transport
            .framing
            .default_limits()
            .with_max_frame_bytes(transport.max_frame_bytes);
        let encoder = encoder_for(transport.framing, limits);
        Ok(PyProtocol { inner, encoder })
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
    fn check(&self, py: Python<'_>, method: &str, part: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
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
    fn read_result<'py>(&self, py: Python<'py>, method: &str, body: &[u8]) -> PyResult<Bound<'py, PyAny>> {
        let opts = self.envelope();
        let decoded = py.detach(|| {
            let message = envelope::decode(body, &opts)?;
            let issues = match &message {
                Message::Response(Response { outcome: Ok(result), .. }) => {
                    self.inner.validate(method, Part::Result, Some(result))
                }
                _ => Vec::new(),
            };
            Ok::<_, envelope::EnvelopeError>((message, issues))
        });
        let (message, issues) = decoded.map_err(|error| envelope_error(py, &error))?;
        match message {
            Message::Response(Response { outcome: Ok(result), .. }) => {
                if issues.is_empty() {
                    to_python(py, &result)
                } else {
                    Err(validation_error(py, method, Part::Result, issues))
                }
            }
            Message::Response(Response { outcome: Err(error), .. }) => Err(rpc_error(py, &error)),
            other => Err(PyValueError::new_err(format!(
                "expected a response, got a {}",
                other.kind().as_str()
            ))),
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
        let value = from_python_err(result)?;
        let opts = self.envelope();
        let outcome = py.detach(|| {
            let issues = self.inner.validate(method, Part::Result, Some(&value));
            if !issues.is_empty() {
                return Ok(Err(issues));
            }
            let message = Message::Response(Response::success(id, value));
            let body = envelope::encode(&message, &opts);
            let mut frame = Vec::with_capacity(body.len() + 32);
            self.encoder.encode_into(&body, &mut frame)?;
            Ok(Ok(frame))
        });
        match outcome {
            Ok(Ok(frame)) => Ok(PyBytes::new(py, &frame)),
            Ok(Err(issues)) => Err(validation_error(py, method, Part::Result, issues)),
            Err(error) => Err(framing_error(py, &error)),
        }
    }

    fn __repr__(&self) -> String {
        format!("Protocol({:?})", self.inner.id())
    }
}
