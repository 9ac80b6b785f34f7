//! The `wirekit` command inside the Python package: the very command of the
//! `wirekit-cli` crate, so `pip install wirekit` gives `wirekit` with no Rust
//! toolchain (see `wirekit/__main__.py`).

use std::ffi::OsString;
use std::io::Write as _;

use pyo3::prelude::*;

/// Runs the command with `argv` (the first is the program name) and returns
/// its exit status; the GIL is released while it runs.
#[pyfunction]
pub fn run_cli(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| {
        let status = wirekit_cli::run(argv);
        // No Rust runtime exits with this process: flush what the command wrote.
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        status
    })
}
