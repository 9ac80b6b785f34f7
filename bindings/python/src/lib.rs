//! `wirekit._native`: the wirekit Rust core as a Python extension module.
//!
//! The exceptions it raises are defined in Python (`wirekit.errors`); the
//! classes and functions here are typed by `python/wirekit/_native.pyi`.

mod check;
mod cli;
mod concurrent;
mod conformance;
mod context;
mod convert;
mod envelope;
mod errors;
mod fast;
mod framing;
mod handler;
mod in_place;
mod issue;
mod limits;
mod maps;
mod message;
mod notifier;
mod pyjson;
mod raw;
mod schema;
mod serve;
mod session;
mod stdio;
mod validate;

use pyo3::prelude::*;

// Miri cannot call mimalloc's C code, and AddressSanitizer cannot see into
// its arenas: under Miri, and in the sanitizer build (`make asan-python`, which
// sets `--cfg wirekit_system_alloc`), the system allocator stands in.
#[cfg(not(any(miri, wirekit_system_alloc)))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Converts a JSON text (bytes or str) to Python objects, with the core's
/// parser (used by tests to compare conversions).
#[pyfunction]
fn loads<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let value: serde_json::Value = serde_json::from_slice(data)
        .map_err(|error| pyo3::exceptions::PyValueError::new_err(format!("not JSON: {error}")))?;
    convert::to_python(py, &value)
}

/// Converts Python objects to compact JSON bytes, member order kept.
#[pyfunction]
fn dumps<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    let value = convert::from_python_err(value)?;
    let text = serde_json::to_vec(&value)
        .map_err(|error| pyo3::exceptions::PyValueError::new_err(error.to_string()))?;
    Ok(pyo3::types::PyBytes::new(py, &text))
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_class::<framing::Frame>()?;
    module.add_class::<framing::NdjsonDecoder>()?;
    module.add_class::<framing::ContentLengthDecoder>()?;
    module.add_class::<framing::NdjsonEncoder>()?;
    module.add_class::<framing::ContentLengthEncoder>()?;
    module.add_class::<message::PyMessage>()?;
    module.add_function(wrap_pyfunction!(envelope::decode, module)?)?;
    module.add_function(wrap_pyfunction!(envelope::encode, module)?)?;
    module.add_class::<validate::PyProtocol>()?;
    module.add_class::<issue::Issue>()?;
    module.add_class::<schema::PyJsonSchema>()?;
    module.add_function(wrap_pyfunction!(validate::embedded_protocols, module)?)?;
    module.add_class::<session::PySession>()?;
    module.add_class::<serve::PyServer>()?;
    module.add_class::<notifier::PyNotifier>()?;
    module.add_class::<context::PyContext>()?;
    module.add_function(wrap_pyfunction!(loads, module)?)?;
    module.add_function(wrap_pyfunction!(dumps, module)?)?;
    module.add_function(wrap_pyfunction!(cli::run_cli, module)?)?;
    module.add_function(wrap_pyfunction!(conformance::conformance, module)?)?;
    Ok(())
}
