//! The Python binding of leaseq: `import leaseq`.
//!
//! Thin by design: every method converts its arguments, calls the Rust core (the sync face
//! through `leaseq::blocking`, the asyncio face through the async core, both on the core's
//! fork-aware runtime) and maps errors. No protocol logic, defaults or bounds live here or in the
//! Python package: the constants below are the core's, exported for reference.

mod aio;
mod cli;
mod convert;
mod errors;
mod events;
mod jobs;
mod partitioned;
mod runtime;
mod schedules;
mod sync;
mod table;
mod time;
mod types;
mod worker;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<types::Item>()?;
    m.add_class::<types::Flow>()?;
    m.add_class::<jobs::Dependencies>()?;
    m.add_class::<types::Lease>()?;
    m.add_class::<types::Backoff>()?;
    m.add_class::<types::RateLimit>()?;
    m.add_class::<types::CleanReport>()?;
    m.add_class::<jobs::Job>()?;
    m.add_class::<jobs::JobResult>()?;
    m.add_class::<jobs::Entry>()?;
    m.add_class::<jobs::Found>()?;
    m.add_class::<jobs::Stats>()?;
    m.add_class::<jobs::Minute>()?;
    m.add_class::<jobs::QueueConfig>()?;
    m.add_class::<jobs::GroupInfo>()?;
    m.add_class::<jobs::NameCounts>()?;
    m.add_class::<jobs::FailOutcome>()?;
    m.add_class::<schedules::Schedule>()?;
    m.add_class::<schedules::ScheduleInfo>()?;
    m.add_class::<schedules::SchedulePage>()?;
    m.add_class::<schedules::FireReport>()?;
    m.add_class::<events::QueueEvent>()?;
    m.add_class::<events::EventsPage>()?;
    m.add_class::<events::Events>()?;
    m.add_class::<events::AsyncEvents>()?;
    m.add_class::<sync::Client>()?;
    m.add_class::<sync::Queue>()?;
    m.add_class::<partitioned::PartitionedQueue>()?;
    m.add_class::<partitioned::PartitionedStats>()?;
    m.add_class::<partitioned::AsyncPartitionedQueue>()?;
    m.add_class::<aio::AsyncClient>()?;
    m.add_class::<aio::AsyncQueue>()?;
    m.add_function(wrap_pyfunction!(errors::_error_class, m)?)?;
    m.add_function(wrap_pyfunction!(aio::_shutdown, m)?)?;
    m.add_function(wrap_pyfunction!(cli::cli_main, m)?)?;
    m.add_class::<worker::NativeJob>()?;
    m.add_class::<worker::Done>()?;
    m.add_class::<worker::WorkerRun>()?;
    m.add_function(wrap_pyfunction!(worker::start_worker, m)?)?;
    m.add_function(wrap_pyfunction!(worker::connect_waiting, m)?)?;
    m.add_function(wrap_pyfunction!(table::operations, m)?)?;
    m.add_function(wrap_pyfunction!(table::partitioned_operations, m)?)?;
    m.add_function(wrap_pyfunction!(table::events, m)?)?;
    let py = m.py();
    use leaseq::policy;
    m.add("FOREVER", f64::INFINITY)?;
    m.add("DEFAULT_TTL", time::timedelta(py, policy::DEFAULT_TTL)?)?;
    m.add("DEFAULT_MAX_ATTEMPTS", policy::DEFAULT_MAX_ATTEMPTS)?;
    m.add(
        "DEFAULT_BACKOFF",
        types::Backoff {
            inner: policy::DEFAULT_BACKOFF,
        },
    )?;
    m.add(
        "DEFAULT_KEEP_RESULT",
        time::timedelta(py, policy::DEFAULT_KEEP_RESULT)?,
    )?;
    m.add("DEFAULT_DEAD_MAX_COUNT", policy::DEFAULT_DEAD_MAX_COUNT)?;
    m.add(
        "DEFAULT_DEAD_MAX_AGE",
        time::timedelta(py, policy::DEFAULT_DEAD_MAX_AGE)?,
    )?;
    m.add("MAX_PRIORITY", policy::MAX_PRIORITY)?;
    m.add("MAX_DURATION", time::timedelta(py, policy::MAX_DURATION)?)?;
    m.add("MAX_PAGE", policy::MAX_PAGE)?;
    m.add("MAX_TTL", leaseq::MAX_TTL.as_secs_f64())?;
    m.add("MAX_ID_LEN", leaseq::MAX_ID_LEN)?;
    m.add("MAX_GROUP_LEN", leaseq::MAX_GROUP_LEN)?;
    m.add("MAX_NAME_LEN", leaseq::MAX_NAME_LEN)?;
    m.add("MAX_DATA_LEN", leaseq::MAX_DATA_LEN)?;
    m.add("MAX_PREFIX_LEN", leaseq::MAX_PREFIX_LEN)?;
    Ok(())
}
