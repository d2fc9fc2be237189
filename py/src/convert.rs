//! Python arguments to Rust values. Every refusal names the argument, with the core's message
//! shape ("invalid argument `ttl`: ..."), and a wrong type raises `InvalidArgumentTypeError`
//! (an `InvalidArgumentError` and a `TypeError`).

use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyFloat, PyInt, PyString};

use crate::errors;
use crate::types::{Item, Lease};

/// A `str` argument.
pub fn string(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<String> {
    let py = obj.py();
    let s = obj
        .cast::<PyString>()
        .map_err(|_| errors::wrong_type(py, argument, "str", obj))?;
    match s.to_cow() {
        Ok(text) => Ok(text.into_owned()),
        Err(_) => Err(errors::invalid(
            py,
            argument,
            "is not valid UTF-8 (lone surrogate)",
        )),
    }
}

/// A list (or other non-string iterable) of `str`.
pub fn strings(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Vec<String>> {
    let py = obj.py();
    let expected = "a list of str";
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(errors::wrong_type(py, argument, expected, obj));
    }
    let iter = obj
        .try_iter()
        .map_err(|_| errors::wrong_type(py, argument, expected, obj))?;
    iter.map(|element| string(&element?, argument)).collect()
}

/// Item data: `bytes`, `bytearray`, or `str` (stored as UTF-8).
pub fn data(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    if let Ok(array) = obj.cast::<PyByteArray>() {
        return Ok(array.to_vec());
    }
    if obj.is_instance_of::<PyString>() {
        return string(obj, argument).map(String::into_bytes);
    }
    Err(errors::wrong_type(
        obj.py(),
        argument,
        "bytes, bytearray or str",
        obj,
    ))
}

/// A number of seconds (`int` or `float`, not `bool`), finite and not negative.
pub fn seconds(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Duration> {
    let py = obj.py();
    let is_number = (obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyFloat>())
        && !obj.is_instance_of::<PyBool>();
    if !is_number {
        return Err(errors::wrong_type(
            py,
            argument,
            "a number of seconds (int or float)",
            obj,
        ));
    }
    let value: f64 = obj
        .extract()
        .map_err(|_| errors::invalid(py, argument, "is too large"))?;
    if value.is_nan() {
        return Err(errors::invalid(py, argument, "must be a number, got nan"));
    }
    if value < 0.0 {
        return Err(errors::invalid(
            py,
            argument,
            format!("must not be negative, got {value}"),
        ));
    }
    Duration::try_from_secs_f64(value).map_err(|_| errors::invalid(py, argument, "is too large"))
}

/// A `bool` (strictly: `0` or `None` are refused, so a misplaced positional argument shows).
pub fn boolean(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<bool> {
    obj.cast::<PyBool>()
        .map(|b| b.is_true())
        .map_err(|_| errors::wrong_type(obj.py(), argument, "bool", obj))
}

/// An `Item` argument, kept alive (and immutable: the class is frozen) while the GIL is released.
pub fn item(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Py<Item>> {
    obj.cast::<Item>()
        .map(|b| b.clone().unbind())
        .map_err(|_| errors::wrong_type(obj.py(), argument, "leaseq.Item", obj))
}

/// An iterable of `Item`s.
pub fn items(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Vec<leaseq::Item>> {
    let py = obj.py();
    let expected = "an iterable of leaseq.Item";
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<Item>()
    {
        return Err(errors::wrong_type(py, argument, expected, obj));
    }
    let iter = obj
        .try_iter()
        .map_err(|_| errors::wrong_type(py, argument, expected, obj))?;
    iter.map(|element| {
        let element = element?;
        let item = element
            .cast::<Item>()
            .map_err(|_| errors::wrong_type(py, argument, "leaseq.Item elements", &element))?;
        Ok(item.get().inner.clone())
    })
    .collect()
}

/// A `Lease` argument.
pub fn lease(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Py<Lease>> {
    obj.cast::<Lease>()
        .map(|b| b.clone().unbind())
        .map_err(|_| errors::wrong_type(obj.py(), argument, "leaseq.Lease", obj))
}

/// `ttl`: how long a lease lasts, in seconds (the core refuses 0 and more than 30 days).
pub struct Ttl(pub Duration);

impl Ttl {
    pub const DEFAULT: Ttl = Ttl(Duration::from_secs(30));
}

impl<'a, 'py> FromPyObject<'a, 'py> for Ttl {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        seconds(&obj, "ttl").map(Ttl)
    }
}

/// `block`: whether `lease` waits for an item.
pub struct Block(pub bool);

impl<'a, 'py> FromPyObject<'a, 'py> for Block {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        boolean(&obj, "block").map(Block)
    }
}

/// `timeout`: how long a blocking `lease` waits, in seconds; `None` waits forever.
pub struct Timeout(pub Option<Duration>);

impl<'a, 'py> FromPyObject<'a, 'py> for Timeout {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Ok(Timeout(None));
        }
        seconds(&obj, "timeout").map(|d| Timeout(Some(d)))
    }
}

impl Timeout {
    /// The instant the wait ends, `None` for no end.
    pub fn deadline(&self, py: Python<'_>) -> PyResult<Option<Instant>> {
        match self.0 {
            None => Ok(None),
            Some(d) => Instant::now()
                .checked_add(d)
                .map(Some)
                .ok_or_else(|| errors::invalid(py, "timeout", "is too long")),
        }
    }
}
