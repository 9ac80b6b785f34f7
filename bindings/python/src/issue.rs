//! `ValidationIssue`: one validation problem as Python sees it.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use wirekit::validate::{IssueKind, ValidationIssue};

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
