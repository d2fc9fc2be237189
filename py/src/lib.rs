//! The Python binding of leaseq: `import leaseq`.
//!
//! Thin by design: every method converts its arguments, calls the Rust core (the sync face
//! through `leaseq::blocking`, the asyncio face through the async core) and maps errors. No
//! protocol logic lives here or in the Python package.

mod aio;
mod convert;
mod errors;
mod runtime;
mod sync;
mod types;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<types::Item>()?;
    m.add_class::<types::Lease>()?;
    m.add_class::<types::CleanReport>()?;
    m.add_class::<sync::Client>()?;
    m.add_class::<sync::Queue>()?;
    m.add_class::<aio::AsyncClient>()?;
    m.add_class::<aio::AsyncQueue>()?;
    m.add_function(wrap_pyfunction!(errors::_error_class, m)?)?;
    m.add_function(wrap_pyfunction!(aio::_shutdown, m)?)?;
    m.add("MAX_TTL", leaseq::MAX_TTL.as_secs_f64())?;
    m.add("MAX_ID_LEN", leaseq::MAX_ID_LEN)?;
    m.add("MAX_PREFIX_LEN", leaseq::MAX_PREFIX_LEN)?;
    Ok(())
}
