//! `JsonSchema`: a JSON Schema of its own (a tool's `inputSchema`), judged
//! by the core's `wirekit::validate::Schema`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use wirekit::validate::Schema;

use crate::convert::from_python_err;
use crate::issue::Issue;

/// A compiled JSON Schema (draft 2020-12 unless its `$schema` names
/// 2019-09 or draft-07; references inside it only).
#[pyclass(module = "wirekit._native", name = "JsonSchema", frozen)]
pub struct PyJsonSchema {
    inner: Schema,
}

#[pymethods]
impl PyJsonSchema {
    /// Compiles `schema`; a schema that does not compile raises `ValueError`
    /// saying why.
    #[new]
    fn new(schema: &Bound<'_, PyAny>) -> PyResult<Self> {
        let schema = from_python_err(schema)?;
        Schema::compile(&schema)
            .map(|inner| PyJsonSchema { inner })
            .map_err(|error| PyValueError::new_err(format!("the schema does not compile: {error}")))
    }

    /// Whether `value` is valid.
    fn is_valid(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        let value = from_python_err(value)?;
        Ok(py.detach(|| self.inner.is_valid(&value)))
    }

    /// The issues of `value` (none when valid), each `instance_path`
    /// beginning with `place` (the value's pointer in its message).
    #[pyo3(signature = (value, place = ""))]
    fn validate(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        place: &str,
    ) -> PyResult<Vec<Issue>> {
        let value = from_python_err(value)?;
        let issues = py.detach(|| self.inner.validate(&value, place));
        Ok(issues.into_iter().map(Issue::from).collect())
    }
}
