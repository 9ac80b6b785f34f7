//! The exceptions are classes of the Python module `wirekit.errors`; Rust
//! builds instances of them with their attributes as keyword arguments.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyModule};

use wirekit::envelope::EnvelopeError;
use wirekit::framing::FramingError;
use wirekit::protocol::ProtocolError;
use wirekit::session::Violation;
use wirekit::validate::{Part, ValidationIssue};

use crate::convert::to_python;
use crate::issue::Issue;
use crate::message::id_to_python;

static ERRORS_MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn errors_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    ERRORS_MODULE
        .get_or_try_init(py, || py.import("wirekit.errors").map(Bound::unbind))
        .map(|module| module.bind(py))
}

/// An instance of `wirekit.errors.<class>(message, **attributes)` as a `PyErr`.
pub fn build(py: Python<'_>, class: &str, message: &str, attributes: &Bound<'_, PyDict>) -> PyErr {
    let made = errors_module(py)
        .and_then(|module| module.getattr(class))
        .and_then(|class| class.call((message,), Some(attributes)));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(error) => PyRuntimeError::new_err(format!(
            "cannot raise wirekit.errors.{class} ({error}): {message}"
        )),
    }
}

fn attrs<'py>(
    py: Python<'py>,
    pairs: &[(&str, Bound<'py, PyAny>)],
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, value) in pairs {
        dict.set_item(*name, value)?;
    }
    Ok(dict)
}

fn or_runtime(
    py: Python<'_>,
    class: &str,
    message: &str,
    made: PyResult<Bound<'_, PyDict>>,
) -> PyErr {
    match made {
        Ok(attributes) => build(py, class, message, &attributes),
        Err(error) => error,
    }
}

/// `wirekit.errors.UnexpectedMessage`: a message of kind `kind` where the
/// call reads one of kind `expected`.
pub fn unexpected_message(py: Python<'_>, kind: &str, expected: &str) -> PyErr {
    let made = (|| {
        attrs(
            py,
            &[
                ("kind", kind.into_pyobject(py)?.into_any()),
                ("expected", expected.into_pyobject(py)?.into_any()),
            ],
        )
    })();
    let message = format!("expected a {expected}, got a {kind}");
    or_runtime(py, "UnexpectedMessage", &message, made)
}

/// `wirekit.errors.NotJsonError`: a Python value wirekit does not write as
/// JSON, at `pointer`; `kind` is `"type"` or `"value"`.
pub fn not_json(py: Python<'_>, message: &str, kind: &str, pointer: &str) -> PyErr {
    let made = (|| {
        attrs(
            py,
            &[
                ("kind", kind.into_pyobject(py)?.into_any()),
                ("pointer", pointer.into_pyobject(py)?.into_any()),
            ],
        )
    })();
    or_runtime(py, "NotJsonError", message, made)
}

/// `wirekit.errors.FramingError`.
pub fn framing_error(py: Python<'_>, error: &FramingError) -> PyErr {
    let made = (|| {
        attrs(
            py,
            &[
                ("kind", error.kind().name().into_pyobject(py)?.into_any()),
                (
                    "framing",
                    error.framing().name().into_pyobject(py)?.into_any(),
                ),
                ("offset", error.offset().into_pyobject(py)?.into_any()),
                ("detail", error.detail().into_pyobject(py)?.into_any()),
                (
                    "is_encode",
                    error.is_encode().into_pyobject(py)?.to_owned().into_any(),
                ),
                (
                    "ends_stream",
                    error.ends_stream().into_pyobject(py)?.to_owned().into_any(),
                ),
            ],
        )
    })();
    or_runtime(py, "FramingError", &error.to_string(), made)
}

/// `wirekit.errors.EnvelopeError`, carrying the error response to send back.
pub fn envelope_error(py: Python<'_>, error: &EnvelopeError) -> PyErr {
    let made = (|| {
        let (line, column) = match error.line_column() {
            Some((line, column)) => (
                line.into_pyobject(py)?.into_any(),
                column.into_pyobject(py)?.into_any(),
            ),
            None => (py.None().into_bound(py), py.None().into_bound(py)),
        };
        let response = crate::message::PyMessage::from_message(
            wirekit::envelope::Message::Response(error.to_response()),
        );
        attrs(
            py,
            &[
                ("kind", error.kind().as_str().into_pyobject(py)?.into_any()),
                ("code", error.code().value().into_pyobject(py)?.into_any()),
                ("pointer", error.pointer().into_pyobject(py)?.into_any()),
                ("id", id_to_python(py, error.id())?),
                ("line", line),
                ("column", column),
                ("response", Bound::new(py, response)?.into_any()),
            ],
        )
    })();
    or_runtime(py, "EnvelopeError", error.message(), made)
}

/// `wirekit.errors.ProtocolError`.
pub fn protocol_error(py: Python<'_>, error: &ProtocolError) -> PyErr {
    let made = (|| {
        attrs(
            py,
            &[
                ("kind", error.kind().code().into_pyobject(py)?.into_any()),
                ("file", error.file().into_pyobject(py)?.into_any()),
                ("pointer", error.pointer().into_pyobject(py)?.into_any()),
            ],
        )
    })();
    or_runtime(py, "ProtocolError", &error.to_string(), made)
}

/// `wirekit.errors.ValidationError` listing every issue.
pub fn validation_error(
    py: Python<'_>,
    method: &str,
    part: Part,
    issues: Vec<ValidationIssue>,
) -> PyErr {
    let mut message = format!("invalid {} for `{method}`", part.name());
    for (index, issue) in issues.iter().enumerate().take(3) {
        message.push_str(if index == 0 { ": " } else { "; " });
        message.push_str(&issue.to_string());
    }
    if issues.len() > 3 {
        message.push_str(&format!("; and {} more", issues.len() - 3));
    }
    let made = (|| {
        let list = pyo3::types::PyList::empty(py);
        for issue in issues {
            list.append(Bound::new(py, Issue::from(issue))?)?;
        }
        attrs(
            py,
            &[
                ("method", method.into_pyobject(py)?.into_any()),
                ("part", part.name().into_pyobject(py)?.into_any()),
                ("issues", list.into_any()),
            ],
        )
    })();
    or_runtime(py, "ValidationError", &message, made)
}

/// `wirekit.errors.RpcError` for an error response.
pub fn rpc_error(py: Python<'_>, error: &wirekit::envelope::ErrorObject) -> PyErr {
    let made = (|| {
        let data = match &error.data {
            Some(data) => to_python(py, data)?,
            None => py.None().into_bound(py),
        };
        attrs(
            py,
            &[
                ("code", error.code.into_pyobject(py)?.into_any()),
                ("data", data),
            ],
        )
    })();
    or_runtime(py, "RpcError", &error.message, made)
}

/// `wirekit.errors.SessionViolation`.
pub fn session_violation(py: Python<'_>, violation: &Violation) -> PyErr {
    let made = (|| {
        let answer = violation.answer();
        let data = match &answer.data {
            Some(data) => to_python(py, data)?,
            None => py.None().into_bound(py),
        };
        let pointer = match violation.pointer() {
            Some(pointer) => pointer.into_pyobject(py)?.into_any(),
            None => py.None().into_bound(py),
        };
        attrs(
            py,
            &[
                (
                    "kind",
                    violation.kind().code().into_pyobject(py)?.into_any(),
                ),
                ("code", answer.code.into_pyobject(py)?.into_any()),
                ("data", data),
                ("pointer", pointer),
                (
                    "ends_session",
                    violation
                        .ends_session()
                        .into_pyobject(py)?
                        .to_owned()
                        .into_any(),
                ),
            ],
        )
    })();
    or_runtime(py, "SessionViolation", &violation.answer().message, made)
}

/// `wirekit.errors.ConformanceError`: a conformance run that could not start.
pub fn conformance_error(py: Python<'_>, error: &wirekit::conformance::OptionsError) -> PyErr {
    let made = (|| attrs(py, &[("code", error.code().into_pyobject(py)?.into_any())]))();
    or_runtime(py, "ConformanceError", &error.to_string(), made)
}

/// `wirekit.errors.PeerError`: what a handler sent did not come through
/// (refused by the loop, not answered in time, the session over), or
/// `wirekit.errors.RpcError` when the client answered with an error.
pub fn peer_error(py: Python<'_>, error: &wirekit::serve::PeerError) -> PyErr {
    use wirekit::serve::PeerError;
    if let PeerError::Answered(answer) = error {
        return rpc_error(py, answer);
    }
    let (method, pointer) = match error {
        PeerError::Refused(fault) | PeerError::InvalidAnswer(fault) => {
            (Some(fault.method.as_str()), Some(fault.pointer.as_str()))
        }
        PeerError::TimedOut { method, .. } => (Some(method.as_str()), None),
        _ => (None, None),
    };
    let made = (|| {
        let optional = |text: Option<&str>| -> PyResult<Bound<'_, PyAny>> {
            Ok(match text {
                Some(text) => text.into_pyobject(py)?.into_any(),
                None => py.None().into_bound(py),
            })
        };
        attrs(
            py,
            &[
                ("kind", error.code().into_pyobject(py)?.into_any()),
                ("method", optional(method)?),
                ("pointer", optional(pointer)?),
            ],
        )
    })();
    or_runtime(py, "PeerError", &error.to_string(), made)
}
