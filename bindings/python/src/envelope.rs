//! JSON-RPC envelopes: decoding in both dialects (lenient or strict),
//! encoding in declared member order or RFC 8785 canonical form.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use wirekit::envelope::{self, Dialect, EnvelopeOptions};

use crate::errors::envelope_error;
use crate::message::PyMessage;

/// Reads `"jsonrpc-2.0"` or `"bare"`.
pub fn parse_dialect(name: &str) -> PyResult<Dialect> {
    name.parse::<Dialect>()
        .map_err(|error| PyValueError::new_err(error.to_string()))
}

/// Envelope options from the keyword arguments.
pub fn options(dialect: &str, strict: bool) -> PyResult<EnvelopeOptions> {
    Ok(EnvelopeOptions::new(parse_dialect(dialect)?).with_strict(strict))
}

fn body_of<'a>(body: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, [u8]>> {
    if let Ok(bytes) = body.cast::<PyBytes>() {
        return Ok(std::borrow::Cow::Borrowed(bytes.as_bytes()));
    }
    if let Ok(text) = body.cast::<PyString>() {
        return Ok(std::borrow::Cow::Owned(
            text.to_cow()?.into_owned().into_bytes(),
        ));
    }
    Err(PyTypeError::new_err("a message body is bytes or str"))
}

/// Decodes one message body; raises `EnvelopeError` for a bad one.
#[pyfunction]
#[pyo3(signature = (body, *, dialect="jsonrpc-2.0", strict=false))]
pub fn decode(
    py: Python<'_>,
    body: &Bound<'_, PyAny>,
    dialect: &str,
    strict: bool,
) -> PyResult<PyMessage> {
    let opts = options(dialect, strict)?;
    let body = body_of(body)?;
    match envelope::decode(&body, &opts) {
        Ok(message) => Ok(PyMessage::from_message(message)),
        Err(error) => Err(envelope_error(py, &error)),
    }
}

/// Encodes a message as compact JSON (declared member order), or RFC 8785
/// canonical JSON; raises `EnvelopeError` when canonical form is impossible.
#[pyfunction]
#[pyo3(signature = (message, *, dialect="jsonrpc-2.0", canonical=false))]
pub fn encode<'py>(
    py: Python<'py>,
    message: &PyMessage,
    dialect: &str,
    canonical: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let opts = options(dialect, false)?;
    if canonical {
        match envelope::encode_canonical(message.message(), &opts) {
            Ok(bytes) => Ok(PyBytes::new(py, &bytes)),
            Err(error) => Err(envelope_error(py, &error)),
        }
    } else {
        Ok(PyBytes::new(
            py,
            &envelope::encode(message.message(), &opts),
        ))
    }
}
