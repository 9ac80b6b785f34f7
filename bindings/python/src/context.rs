//! `Context`: what a handler of the concurrent serve loop is given beside
//! its params (the core's `RequestContext`, or the `Peer` of a
//! notification's handler): the request's id and method, whether the
//! client cancelled it, and the way to notify and ask the client, each
//! checked by the core's loop. Waiting for the client releases the GIL.

use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use wirekit::serve::{Peer, RequestContext};

use crate::convert::{from_python_err, to_python};
use crate::errors::peer_error;
use crate::message::id_to_python;

/// A handler's view of its request and of the client.
#[pyclass(module = "wirekit._native", name = "Context", frozen)]
pub struct PyContext {
    request: Option<RequestContext>,
    peer: Peer,
}

impl PyContext {
    pub(crate) fn of_request(context: &RequestContext) -> Self {
        PyContext {
            peer: context.peer().clone(),
            request: Some(context.clone()),
        }
    }

    pub(crate) fn of_notification(peer: &Peer) -> Self {
        PyContext {
            request: None,
            peer: peer.clone(),
        }
    }
}

fn params_value(params: Option<&Bound<'_, PyAny>>) -> PyResult<Option<serde_json::Value>> {
    match params {
        Some(params) if !params.is_none() => from_python_err(params).map(Some),
        _ => Ok(None),
    }
}

#[pymethods]
impl PyContext {
    /// The request's id as the client sent it; None in a notification's handler.
    #[getter]
    fn id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        id_to_python(py, self.request.as_ref().map(RequestContext::id))
    }

    /// The request's method; None in a notification's handler.
    #[getter]
    fn method(&self) -> Option<String> {
        self.request.as_ref().map(|r| r.method().to_owned())
    }

    /// Whether the client has cancelled the request.
    #[getter]
    fn cancelled(&self) -> bool {
        self.request
            .as_ref()
            .is_some_and(RequestContext::is_cancelled)
    }

    /// The progress token the request carries (the protocol's `progress`),
    /// or None when the client asked for no progress.
    #[getter]
    fn progress_token<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self
            .request
            .as_ref()
            .and_then(RequestContext::progress_token)
        {
            Some(token) => to_python(py, token),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// Reports progress with the protocol's progress notification: `params`
    /// (an object, or None) with the request's token set, checked and sent
    /// as `notify` sends it. False, nothing sent, when the client asked for
    /// no progress (or in a notification's handler).
    #[pyo3(signature = (params=None))]
    fn progress(&self, py: Python<'_>, params: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        let params = params_value(params)?.unwrap_or(serde_json::Value::Null);
        let Some(request) = self.request.clone() else {
            return Ok(false);
        };
        let sent = py.detach(move || request.progress(params));
        sent.map_err(|error| peer_error(py, &error))
    }

    /// Sends the server notification `method` once the core has checked it;
    /// raises `PeerError` (kind `refused`, with the pointer) when it was not
    /// sent, `closed` when the session is over.
    #[pyo3(signature = (method, params=None))]
    fn notify(
        &self,
        py: Python<'_>,
        method: &str,
        params: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let params = params_value(params)?;
        let peer = self.peer.clone();
        let sent = py.detach(move || peer.notify(method, params));
        sent.map_err(|error| peer_error(py, &error))
    }

    /// Sends the request `method` to the client and returns its result,
    /// checked against the method's result schema. Raises `RpcError` when
    /// the client answers with an error, `PeerError` otherwise (kinds
    /// `refused`, `invalid-answer`, `timed-out`, `closed`). `timeout` in
    /// seconds; the loop's default (60 s) when None.
    #[pyo3(signature = (method, params=None, *, timeout=None))]
    fn request<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        params: Option<&Bound<'py, PyAny>>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let params = params_value(params)?;
        let timeout = match timeout {
            None => None,
            Some(seconds) if seconds.is_finite() && seconds >= 0.0 => {
                Some(Duration::from_secs_f64(seconds))
            }
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "timeout is a number of seconds, at least 0, not {other}"
                )))
            }
        };
        let peer = self.peer.clone();
        let answer = py.detach(move || match timeout {
            Some(timeout) => peer.request_within(method, params, timeout),
            None => peer.request(method, params),
        });
        match answer {
            Ok(value) => to_python(py, &value),
            Err(error) => Err(peer_error(py, &error)),
        }
    }

    fn __repr__(&self) -> String {
        match &self.request {
            Some(request) => format!("<Context of `{}` (id {})>", request.method(), request.id()),
            None => "<Context of a notification>".to_owned(),
        }
    }
}
