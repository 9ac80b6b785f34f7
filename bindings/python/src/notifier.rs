//! Notifications a Python server sends of its own accord, from any thread,
//! while the serve loop keeps reading (the core's `Outbox`): a driver's
//! invocation worker sends its observations and `driver.completed` while
//! the loop stays free to answer `driver.cancel`.

use std::sync::Mutex;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use wirekit::envelope::Notification;
use wirekit::serve::Outbox;

use crate::convert::from_python;

/// Where a serve loop takes notifications from other threads. Give it to
/// `Server(..., notifier=...)`; while that server serves, `send` hands a
/// notification to the loop, which checks it (schema, state, the
/// protocol's rules) as it checks its own and sends it or logs why not.
#[pyclass(module = "wirekit._native", name = "Notifier", frozen)]
pub struct PyNotifier {
    outbox: Mutex<Option<Outbox>>,
}

impl PyNotifier {
    /// The loop starts: notifications go to `outbox` from now on.
    pub(crate) fn attach(&self, outbox: Outbox) {
        if let Ok(mut slot) = self.outbox.lock() {
            *slot = Some(outbox);
        }
    }

    /// The loop has ended.
    pub(crate) fn detach(&self) {
        if let Ok(mut slot) = self.outbox.lock() {
            *slot = None;
        }
    }
}

#[pymethods]
impl PyNotifier {
    #[new]
    fn new() -> Self {
        PyNotifier {
            outbox: Mutex::new(None),
        }
    }

    /// Whether a serve loop is taking notifications now.
    #[getter]
    fn serving(&self) -> bool {
        self.outbox
            .lock()
            .map(|slot| slot.is_some())
            .unwrap_or(false)
    }

    /// Hands `method` with `params` (JSON-like, or None) to the serving
    /// loop; waits while the loop is behind. Raises `ValueError` when the
    /// params are not JSON, `RuntimeError` when no loop is serving.
    #[pyo3(signature = (method, params=None))]
    fn send(&self, py: Python<'_>, method: &str, params: Option<Bound<'_, PyAny>>) -> PyResult<()> {
        let params = match params.filter(|p| !p.is_none()) {
            None => None,
            Some(params) => Some(from_python(&params).map_err(|not_json| {
                PyValueError::new_err(format!(
                    "the params of `{method}` are not JSON at {}: {}",
                    if not_json.pointer.is_empty() {
                        "(root)"
                    } else {
                        &not_json.pointer
                    },
                    not_json.message
                ))
            })?),
        };
        let outbox = self
            .outbox
            .lock()
            .ok()
            .and_then(|slot| slot.clone())
            .ok_or_else(|| {
                PyRuntimeError::new_err(format!("`{method}` not sent: no serve loop is running"))
            })?;
        let notification = Notification::new(method, params);
        // The loop needs the GIL to call handlers: never wait for it holding the GIL.
        py.detach(|| outbox.send(notification))
            .map_err(|closed| PyRuntimeError::new_err(closed.to_string()))
    }
}
