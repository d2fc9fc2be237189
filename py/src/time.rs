//! Times between Rust and Python: durations are `datetime.timedelta`s (seconds as numbers are
//! accepted too, in `convert`), instants are timezone-aware `datetime.datetime`s in UTC. Built
//! through the `datetime` module itself (the abi3 build has no datetime C API), exactly: whole
//! days, seconds and microseconds, never a float round trip.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

use crate::errors;

struct Classes {
    timedelta: Py<PyType>,
    datetime: Py<PyType>,
    /// 1970-01-01T00:00:00+00:00.
    epoch: Py<PyAny>,
}

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();
    CLASSES.get_or_try_init(py, || {
        let module = py.import("datetime")?;
        let datetime = module.getattr("datetime")?.cast_into::<PyType>()?;
        let utc = module.getattr("timezone")?.getattr("utc")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("tzinfo", utc)?;
        let epoch = datetime.call((1970, 1, 1), Some(&kwargs))?;
        Ok(Classes {
            timedelta: module.getattr("timedelta")?.cast_into::<PyType>()?.unbind(),
            datetime: datetime.unbind(),
            epoch: epoch.unbind(),
        })
    })
}

/// Whether `obj` is a `datetime.timedelta`.
pub fn is_timedelta(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    obj.is_instance(classes(obj.py())?.timedelta.bind(obj.py()))
}

/// A timedelta's exact length in microseconds (negative for a negative one).
fn micros(delta: &Bound<'_, PyAny>) -> PyResult<i128> {
    let days: i128 = delta.getattr("days")?.extract()?;
    let seconds: i128 = delta.getattr("seconds")?.extract()?;
    let micros: i128 = delta.getattr("microseconds")?.extract()?;
    Ok((days * 86_400 + seconds) * 1_000_000 + micros)
}

fn micros_to_duration(micros: i128) -> Duration {
    let micros = micros.unsigned_abs();
    Duration::new(
        (micros / 1_000_000) as u64,
        ((micros % 1_000_000) * 1000) as u32,
    )
}

/// A non-negative timedelta argument as a `Duration`.
pub fn timedelta_to_duration(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Duration> {
    let micros = micros(obj)?;
    if micros < 0 {
        return Err(errors::invalid(
            obj.py(),
            argument,
            format!("must not be negative, got {}", obj.str()?),
        ));
    }
    Ok(micros_to_duration(micros))
}

/// A timezone-aware datetime argument as a `SystemTime` (before 1970 too: the core refuses those
/// with its own message).
pub fn datetime_to_system_time(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<SystemTime> {
    let py = obj.py();
    let c = classes(py)?;
    if !obj.is_instance(c.datetime.bind(py))? {
        return Err(errors::wrong_type(
            py,
            argument,
            "a timezone-aware datetime.datetime",
            obj,
        ));
    }
    if obj.call_method0("utcoffset")?.is_none() {
        return Err(errors::invalid(
            py,
            argument,
            "must be timezone-aware (e.g. datetime.now(timezone.utc)); a naive datetime is ambiguous",
        ));
    }
    let since = micros(&obj.sub(c.epoch.bind(py))?)?;
    let offset = micros_to_duration(since);
    let at = if since >= 0 {
        UNIX_EPOCH.checked_add(offset)
    } else {
        UNIX_EPOCH.checked_sub(offset)
    };
    at.ok_or_else(|| errors::invalid(py, argument, "is out of range"))
}

/// A `Duration` as a `datetime.timedelta`.
pub fn timedelta(py: Python<'_>, d: Duration) -> PyResult<Bound<'_, PyAny>> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("seconds", d.as_secs())?;
    kwargs.set_item("microseconds", d.subsec_micros())?;
    classes(py)?.timedelta.bind(py).call((), Some(&kwargs))
}

/// Milliseconds since the epoch (the server's clock) as an aware UTC datetime.
pub fn datetime_ms(py: Python<'_>, ms: u64) -> PyResult<Bound<'_, PyAny>> {
    let c = classes(py)?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("milliseconds", ms)?;
    let delta = c.timedelta.bind(py).call((), Some(&kwargs))?;
    c.epoch.bind(py).add(delta)
}

/// An optional duration as `timedelta | None`.
pub fn opt_timedelta(py: Python<'_>, d: Option<Duration>) -> PyResult<Option<Bound<'_, PyAny>>> {
    d.map(|d| timedelta(py, d)).transpose()
}

/// Optional milliseconds since the epoch as `datetime | None`.
pub fn opt_datetime_ms(py: Python<'_>, ms: Option<u64>) -> PyResult<Option<Bound<'_, PyAny>>> {
    ms.map(|ms| datetime_ms(py, ms)).transpose()
}

/// A `Duration` converted to a `datetime.timedelta` when the GIL is held (an asyncio result).
pub struct Timedelta(pub Duration);

impl<'py> IntoPyObject<'py> for Timedelta {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        timedelta(py, self.0)
    }
}
