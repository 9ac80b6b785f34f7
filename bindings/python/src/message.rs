//! `Message`: one JSON-RPC message as Python sees it, and request ids
//! between Python and the core.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};
use serde_json::Value;

use wirekit::envelope::{
    self, EnvelopeOptions, ErrorObject, Id, Message, Notification, Request, Response,
};

use crate::convert::{from_python_err, to_python};

/// The id as a Python `int` or `str` (`None` for no id). A strict id
/// beyond 64 bits (held as the whole double its RFC 8785 form names, as
/// `18446744073709552000`) is the `int` of those digits.
pub fn id_to_python<'py>(py: Python<'py>, id: Option<&Id>) -> PyResult<Bound<'py, PyAny>> {
    match id {
        None => Ok(py.None().into_bound(py)),
        Some(Id::Number(n))
            if !(n.is_i64() || n.is_u64())
                && n.as_f64()
                    .is_some_and(|x| x.fract() == 0.0 && x.abs() >= 9.2e18) =>
        {
            let digits = Id::Number(n.clone()).to_string();
            py.get_type::<PyInt>().call1((digits,))
        }
        Some(id) => to_python(py, &id.to_value()),
    }
}

/// A request id from Python: an `int` (fitting i64 or u64) or a `str`.
pub fn id_from_python(id: &Bound<'_, PyAny>) -> PyResult<Id> {
    if id.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "a request id is an int or a str, not a bool",
        ));
    }
    if let Ok(text) = id.cast::<PyString>() {
        return Ok(Id::String(text.to_cow()?.into_owned()));
    }
    if let Ok(integer) = id.cast::<PyInt>() {
        if let Ok(small) = integer.extract::<i64>() {
            return Ok(Id::from(small));
        }
        if let Ok(large) = integer.extract::<u64>() {
            return Ok(Id::from(large));
        }
        return Err(PyValueError::new_err("an integer id must fit i64 or u64"));
    }
    Err(PyTypeError::new_err("a request id is an int or a str"))
}

/// One JSON-RPC message: a request, a notification or a response.
#[pyclass(module = "wirekit._native", name = "Message", frozen, eq)]
#[derive(PartialEq)]
pub struct PyMessage {
    inner: Message,
}

impl PyMessage {
    /// Wraps a core message.
    pub fn from_message(inner: Message) -> Self {
        PyMessage { inner }
    }

    /// The core message.
    pub fn message(&self) -> &Message {
        &self.inner
    }
}

fn optional_value(object: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    object.map(from_python_err).transpose()
}

#[pymethods]
impl PyMessage {
    /// A request expecting a response with the same id.
    #[staticmethod]
    #[pyo3(signature = (id, method, params=None))]
    fn request(
        id: &Bound<'_, PyAny>,
        method: String,
        params: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let params = optional_value(params)?;
        Ok(PyMessage::from_message(Message::Request(Request::new(
            id_from_python(id)?,
            method,
            params,
        ))))
    }

    /// A notification (no id, no response).
    #[staticmethod]
    #[pyo3(signature = (method, params=None))]
    fn notification(method: String, params: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let params = optional_value(params)?;
        Ok(PyMessage::from_message(Message::Notification(
            Notification::new(method, params),
        )))
    }

    /// A success response carrying `result`.
    #[staticmethod]
    fn success(id: &Bound<'_, PyAny>, result: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyMessage::from_message(Message::Response(
            Response::success(id_from_python(id)?, from_python_err(result)?),
        )))
    }

    /// An error response; `id` is `None` when the request's id is unknown.
    /// Leave `data` out for no `data` member (`None` writes `"data": null`).
    #[staticmethod]
    #[pyo3(signature = (id, code, message, **data))]
    fn failure(
        id: &Bound<'_, PyAny>,
        code: i64,
        message: String,
        data: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let id = if id.is_none() {
            None
        } else {
            Some(id_from_python(id)?)
        };
        let mut error = ErrorObject::new(code, message);
        if let Some(extra) = data {
            for (name, value) in extra.iter() {
                if name.extract::<String>()? != "data" {
                    return Err(PyTypeError::new_err(
                        "failure() takes only `data` as a keyword",
                    ));
                }
                error = error.with_data(from_python_err(&value)?);
            }
        }
        Ok(PyMessage::from_message(Message::Response(Response::error(
            id, error,
        ))))
    }

    /// `"request"`, `"notification"`, `"success_response"` or `"error_response"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind().as_str()
    }

    /// The method of a request or notification.
    #[getter]
    fn method(&self) -> Option<&str> {
        self.inner.method()
    }

    /// The id (`int` or `str`), `None` for a notification or a null response id.
    #[getter]
    fn id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        id_to_python(py, self.inner.id())
    }

    /// Whether a request or notification has a `params` member (even null).
    #[getter]
    fn has_params(&self) -> bool {
        self.inner.params().is_some()
    }

    /// The params as Python objects (`None` when absent).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.params() {
            Some(params) => to_python(py, params),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// The result of a success response (`None` otherwise).
    #[getter]
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.inner {
            Message::Response(Response {
                outcome: Ok(result),
                ..
            }) => to_python(py, result),
            _ => Ok(py.None().into_bound(py)),
        }
    }

    /// The error object of an error response as a dict with `code`,
    /// `message` and `data` when present (`None` otherwise).
    #[getter]
    fn error<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Message::Response(Response {
            outcome: Err(error),
            ..
        }) = &self.inner
        else {
            return Ok(None);
        };
        let dict = PyDict::new(py);
        dict.set_item("code", error.code)?;
        dict.set_item("message", &error.message)?;
        if let Some(data) = &error.data {
            dict.set_item("data", to_python(py, data)?)?;
        }
        Ok(Some(dict))
    }

    fn __repr__(&self) -> String {
        let body = envelope::encode(&self.inner, &EnvelopeOptions::BARE);
        let text = String::from_utf8_lossy(&body);
        let shown: String = text.chars().take(120).collect();
        let more = if shown.len() < text.len() { "..." } else { "" };
        format!("Message({shown}{more})")
    }
}
