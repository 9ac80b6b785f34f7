//! The session state machine of a protocol.

use std::sync::{Mutex, MutexGuard};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use wirekit::envelope::ErrorObject;
use wirekit::session::Session as RustSession;

use crate::convert::from_python_err;
use crate::errors::session_violation;
use crate::validate::PyProtocol;

/// One session's lifecycle, driven by the protocol's manifest: which state
/// each method may come in, capabilities, version negotiation, the end.
#[pyclass(module = "wirekit._native", name = "Session", frozen)]
pub struct PySession {
    inner: Mutex<RustSession>,
}

impl PySession {
    fn lock(&self) -> PyResult<MutexGuard<'_, RustSession>> {
        self.inner
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the session is poisoned by an earlier failure"))
    }
}

#[pymethods]
impl PySession {
    #[new]
    fn new(protocol: &PyProtocol) -> Self {
        PySession {
            inner: Mutex::new(RustSession::new(protocol.inner.clone())),
        }
    }

    /// The current state (`""` when the protocol has no lifecycle).
    #[getter]
    fn state(&self) -> PyResult<String> {
        Ok(self.lock()?.state().to_owned())
    }

    /// Whether the session is over.
    #[getter]
    fn is_ended(&self) -> PyResult<bool> {
        Ok(self.lock()?.is_ended())
    }

    /// The capabilities the server declared true (sorted), or `None` before
    /// it declared any.
    #[getter]
    fn capabilities(&self) -> PyResult<Option<Vec<String>>> {
        Ok(self
            .lock()?
            .capabilities()
            .map(|set| set.iter().cloned().collect()))
    }

    /// Raises `SessionViolation` unless `method` may be sent now.
    fn check(&self, py: Python<'_>, method: &str) -> PyResult<()> {
        self.lock()?
            .check(method)
            .map_err(|violation| session_violation(py, &violation))
    }

    /// Admits a request whose params passed their schema: version
    /// negotiation, then the protocol's stateful rules; raises
    /// `SessionViolation` when it is refused.
    #[pyo3(signature = (method, params=None))]
    fn admit(
        &self,
        py: Python<'_>,
        method: &str,
        params: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let params = params.map(from_python_err).transpose()?;
        self.lock()?
            .admit(method, params.as_ref())
            .map_err(|violation| session_violation(py, &violation))
    }

    /// Records a success answer to `method` (moves the state, records
    /// declared capabilities).
    fn succeeded(&self, method: &str, result: &Bound<'_, PyAny>) -> PyResult<()> {
        let result = from_python_err(result)?;
        self.lock()?.answered(method, Ok(&result));
        Ok(())
    }

    /// Records an error answer to `method` (a fatal code ends the session).
    fn failed(&self, method: &str, code: i64, message: String) -> PyResult<()> {
        let error = ErrorObject::new(code, message);
        self.lock()?.answered(method, Err(&error));
        Ok(())
    }

    /// A notification passes: state and sequence rules checked, state moved;
    /// raises `SessionViolation` (and leaves the state) when it fails.
    #[pyo3(signature = (method, params=None))]
    fn notify(
        &self,
        py: Python<'_>,
        method: &str,
        params: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let params = params.map(from_python_err).transpose()?;
        self.lock()?
            .notify(method, params.as_ref())
            .map_err(|violation| session_violation(py, &violation))
    }

    /// Marks the session over.
    fn end(&self) -> PyResult<()> {
        self.lock()?.end();
        Ok(())
    }
}
