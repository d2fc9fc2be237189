//! `leaseq._native.cli_main`: the `leaseq` command (the cli/ crate) inside the wheel, so that
//! `pip install leaseq` puts `leaseq` on PATH through a console script (leaseq/_cli.py).

use std::ffi::OsString;

use pyo3::prelude::*;

/// Runs the `leaseq` command with `argv` (the program name first) and returns its exit code.
/// The GIL is released while it runs; it has its own tokio runtime.
#[pyfunction]
pub fn cli_main(py: Python<'_>, argv: Vec<String>) -> i32 {
    let args: Vec<OsString> = argv.into_iter().map(OsString::from).collect();
    py.detach(|| leaseq_cli::run(args))
}
