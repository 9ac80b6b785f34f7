//! `wirekit._native.conformance`: the core's conformance battery
//! ([`wirekit::conformance::run`]) run from Python. Nothing is judged here:
//! the options are handed to the core and its report comes back as the JSON
//! object `wirekit conformance --json` prints, with the readable text beside it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use wirekit::conformance::{run as run_conformance, Options};
use wirekit::validate::Protocol as RustProtocol;

use crate::convert::{from_python_err, to_python};
use crate::errors::conformance_error;
use crate::validate::{load, load_from, PyProtocol};

/// The protocol to run against: a `Protocol`, or a spec loaded from
/// `schemas` (a folder) or from the embedded protocols.
fn protocol_of(
    py: Python<'_>,
    protocol: &Bound<'_, PyAny>,
    schemas: Option<PathBuf>,
) -> PyResult<Arc<RustProtocol>> {
    if let Ok(compiled) = protocol.cast::<PyProtocol>() {
        if schemas.is_some() {
            return Err(PyValueError::new_err(
                "`schemas` names where a protocol spec is loaded from; it cannot go with a Protocol",
            ));
        }
        return Ok(Arc::clone(&compiled.get().inner));
    }
    let spec: String = protocol.extract().map_err(|_| {
        PyValueError::new_err("`protocol` must be a protocol spec (str) or a wirekit.Protocol")
    })?;
    match schemas {
        Some(dir) => load_from(py, &spec, &dir),
        None => load(py, &spec),
    }
}

/// Params by method: a dict of method name to params.
fn params_of(params: Option<&Bound<'_, PyDict>>) -> PyResult<BTreeMap<String, serde_json::Value>> {
    let mut by_method = BTreeMap::new();
    if let Some(params) = params {
        for (method, value) in params.iter() {
            let method: String = method
                .extract()
                .map_err(|_| PyValueError::new_err("`params` keys must be method names (str)"))?;
            by_method.insert(method, from_python_err(&value)?);
        }
    }
    Ok(by_method)
}

/// Runs the conformance battery of `protocol` against the server `command`
/// and returns `(report, text)`: the report as the JSON object of
/// `wirekit conformance --json` (checks, sessions, summary, `passed`) and
/// as the readable text. The GIL is released while the server runs.
#[pyfunction]
#[pyo3(signature = (protocol, command, *, schemas=None, root=None, only=None, timeout=None, params=None, record=None))]
#[allow(clippy::too_many_arguments)]
pub fn conformance<'py>(
    py: Python<'py>,
    protocol: &Bound<'py, PyAny>,
    command: Vec<String>,
    schemas: Option<PathBuf>,
    root: Option<PathBuf>,
    only: Option<Vec<String>>,
    timeout: Option<f64>,
    params: Option<&Bound<'py, PyDict>>,
    record: Option<PathBuf>,
) -> PyResult<(Bound<'py, PyAny>, String)> {
    let protocol = protocol_of(py, protocol, schemas)?;
    let mut options = Options::new(command);
    options.root = root;
    options.only = only.unwrap_or_default();
    options.record = record;
    options.params = params_of(params)?;
    if let Some(secs) = timeout {
        if !(secs.is_finite() && secs > 0.0) {
            return Err(PyValueError::new_err(format!(
                "`timeout` must be a positive number of seconds, not {secs}"
            )));
        }
        options.timeout = Some(Duration::from_secs_f64(secs));
    }
    let report = py
        .detach(|| run_conformance(protocol, options))
        .map_err(|error| conformance_error(py, &error))?;
    let text = report.to_text();
    Ok((to_python(py, &report.to_json())?, text))
}
