//! The one place where `leaseq::Error` becomes a Python exception (spec/errors.md).
//!
//! The classes are defined in `leaseq/errors.py`, where multiple inheritance from builtins
//! (`ValueError`, `ConnectionError`, `TimeoutError`) is plain Python; this file picks the class
//! for each registry code.

use leaseq::{Error, ErrorCode};
use pyo3::exceptions::PyLookupError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;

/// The Python class name of each registry code (spec/errors.md, column "Python class").
fn class_name(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::Connection => "LeaseqConnectionError",
        ErrorCode::Redis => "RedisError",
        ErrorCode::InvalidArgument => "InvalidArgumentError",
        ErrorCode::WrongType => "WrongTypeError",
        ErrorCode::Timeout => "LeaseqTimeoutError",
        ErrorCode::Closed => "ClosedError",
        ErrorCode::Json => "JsonError",
        ErrorCode::Unavailable => "UnavailableError",
        ErrorCode::OutOfMemory => "OutOfMemoryError",
        ErrorCode::Full => "QueueFullError",
        ErrorCode::Dead => "JobDeadError",
        // A code added to the core before this binding learns it still raises a LeaseqError.
        _ => "LeaseqError",
    }
}

/// Raised for an argument of the wrong Python type: an `InvalidArgumentError` that is also a
/// `TypeError`.
const TYPE_ERROR_CLASS: &str = "InvalidArgumentTypeError";

fn errors_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    MODULE
        .get_or_try_init(py, || py.import("leaseq.errors").map(Bound::unbind))
        .map(|m| m.bind(py))
}

fn make(py: Python<'_>, class: &str, message: String, argument: Option<&str>) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let cls = errors_module(py)?.getattr(class)?;
        let exc = cls.call1((message,))?;
        if let Some(argument) = argument {
            exc.setattr("argument", argument)?;
        }
        Ok(PyErr::from_value(exc))
    };
    // Failing to build the exception (the package half-installed) says why instead.
    build().unwrap_or_else(|e| e)
}

/// Converts a core error into the registry's Python exception.
pub fn to_py(py: Python<'_>, err: Error) -> PyErr {
    Kept::of(&err).to_py(py)
}

/// A core error kept to be raised later, where the value that carries it is cloned (a runner's
/// end): what [`to_py`] needs of it.
#[derive(Clone, Debug)]
pub struct Kept {
    code: ErrorCode,
    message: String,
    argument: Option<&'static str>,
}

impl Kept {
    /// What `err` raises.
    pub fn of(err: &Error) -> Kept {
        Kept {
            code: err.code(),
            message: err.to_string(),
            argument: match err {
                Error::InvalidArgument { argument, .. } => Some(*argument),
                _ => None,
            },
        }
    }

    /// The registry's Python exception.
    pub fn to_py(&self, py: Python<'_>) -> PyErr {
        let class = class_name(self.code);
        let exc = make(py, class, self.message.clone(), self.argument);
        if class == "LeaseqError" {
            // A code this binding has no class for yet still reports the registry code.
            let _ = exc.value(py).setattr("code", self.code.as_str());
        }
        exc
    }
}

/// An argument of the wrong Python type; the message names it like the core's messages do.
pub fn wrong_type(py: Python<'_>, argument: &str, expected: &str, got: &Bound<'_, PyAny>) -> PyErr {
    let got = got
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned());
    make(
        py,
        TYPE_ERROR_CLASS,
        format!("invalid argument `{argument}`: expected {expected}, got {got}"),
        Some(argument),
    )
}

/// An argument of the right type whose value is refused before anything is sent.
pub fn invalid(py: Python<'_>, argument: &str, reason: impl std::fmt::Display) -> PyErr {
    make(
        py,
        class_name(ErrorCode::InvalidArgument),
        format!("invalid argument `{argument}`: {reason}"),
        Some(argument),
    )
}

/// Item data that could not be encoded or decoded as JSON; `cause` is Python's own error.
pub fn json(py: Python<'_>, cause: PyErr) -> PyErr {
    let err = make(
        py,
        class_name(ErrorCode::Json),
        format!("json error: {}", cause.value(py)),
        None,
    );
    err.set_cause(py, Some(cause));
    err
}

/// The exception class for a registry code such as `"WRONG_TYPE"` (for the registry test).
#[pyfunction]
pub fn _error_class(py: Python<'_>, code: &str) -> PyResult<Py<PyAny>> {
    let code = ErrorCode::ALL
        .into_iter()
        .find(|c| c.as_str() == code)
        .ok_or_else(|| PyLookupError::new_err(format!("no error code {code:?}")))?;
    Ok(errors_module(py)?.getattr(class_name(code))?.unbind())
}
