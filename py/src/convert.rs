//! Python arguments to Rust values. Every refusal names the argument, with the core's message
//! shape ("invalid argument `ttl`: ..."), and a wrong type raises `InvalidArgumentTypeError`
//! (an `InvalidArgumentError` and a `TypeError`). Only conversion happens here: defaults and
//! bounds are the core's (`leaseq::policy`, `leaseq::Wait::default()`).

use std::time::{Duration, SystemTime};

use leaseq::{Retry, State, Wait};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyFloat, PyInt, PyString, PyTuple};

use crate::errors;
use crate::time;
use crate::types::{Backoff, Item, Lease, RateLimit};

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

/// An id that names an item: `bytes` (exactly those bytes: an id another kind of client added
/// need not be UTF-8) or `str` (its UTF-8).
pub fn id(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    if obj.is_instance_of::<PyString>() {
        return string(obj, argument).map(String::into_bytes);
    }
    Err(errors::wrong_type(obj.py(), argument, "bytes or str", obj))
}

/// A list (or other iterable that is not itself an id) of ids, each `bytes` or `str`.
pub fn ids(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Vec<Vec<u8>>> {
    let py = obj.py();
    let expected = "a list of bytes or str";
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(errors::wrong_type(py, argument, expected, obj));
    }
    let iter = obj
        .try_iter()
        .map_err(|_| errors::wrong_type(py, argument, expected, obj))?;
    iter.map(|element| id(&element?, argument)).collect()
}

/// Data: `bytes`, `bytearray`, or `str` (stored as UTF-8).
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

fn is_number(obj: &Bound<'_, PyAny>) -> bool {
    (obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyFloat>())
        && !obj.is_instance_of::<PyBool>()
}

/// A duration: a number of seconds (`int` or `float`, not `bool`) or a `datetime.timedelta`,
/// finite and not negative.
pub fn seconds(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Duration> {
    let py = obj.py();
    if time::is_timedelta(obj)? {
        return time::timedelta_to_duration(obj, argument);
    }
    if !is_number(obj) {
        return Err(errors::wrong_type(
            py,
            argument,
            "seconds (int or float) or a timedelta",
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

/// An optional duration: `None` stays `None`.
pub fn opt_seconds(obj: Option<&Bound<'_, PyAny>>, argument: &str) -> PyResult<Option<Duration>> {
    match obj {
        Some(obj) if !obj.is_none() => seconds(obj, argument).map(Some),
        _ => Ok(None),
    }
}

/// `ttl`: a lease's duration; `None` is the core's default ([`leaseq::policy::DEFAULT_TTL`]).
pub fn ttl(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Duration> {
    Ok(opt_seconds(obj, "ttl")?.unwrap_or(leaseq::policy::DEFAULT_TTL))
}

/// A point in time: a timezone-aware `datetime.datetime`.
pub fn instant(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<SystemTime> {
    time::datetime_to_system_time(obj, argument)
}

/// A `bool` (strictly: `0` or `None` are refused, so a misplaced positional argument shows).
pub fn boolean(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<bool> {
    obj.cast::<PyBool>()
        .map(|b| b.is_true())
        .map_err(|_| errors::wrong_type(obj.py(), argument, "bool", obj))
}

/// An integer argument (not `bool`) that must fit `T`.
pub fn integer<T>(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<T>
where
    T: TryFrom<i128> + num_bounds::Bounds,
{
    let py = obj.py();
    if !obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyBool>() {
        return Err(errors::wrong_type(py, argument, "int", obj));
    }
    // An unsigned argument's range is the core's to state (`partitions` is 1 to 64, say), so a
    // negative one is named as such, not as outside the type's 0 to 2^64-1.
    let out_of_range = |negative: bool| {
        let rule = if negative && T::MIN_TEXT == "0" {
            "must not be negative".to_string()
        } else {
            format!("must be from {} to {}", T::MIN_TEXT, T::MAX_TEXT)
        };
        errors::invalid(py, argument, format!("{rule}, got {obj}"))
    };
    let negative = obj.lt(0).unwrap_or(false);
    let wide: i128 = obj.extract().map_err(|_| out_of_range(negative))?;
    T::try_from(wide).map_err(|_| out_of_range(negative))
}

/// An optional integer: `None` stays `None`.
pub fn opt_integer<T>(obj: Option<&Bound<'_, PyAny>>, argument: &str) -> PyResult<Option<T>>
where
    T: TryFrom<i128> + num_bounds::Bounds,
{
    match obj {
        Some(obj) if !obj.is_none() => integer(obj, argument).map(Some),
        _ => Ok(None),
    }
}

/// The bounds of the integer types arguments convert to, for messages.
pub mod num_bounds {
    /// The smallest and largest value of an integer type, as text.
    pub trait Bounds {
        const MIN_TEXT: &'static str;
        const MAX_TEXT: &'static str;
    }
    macro_rules! bounds {
        ($($t:ty: $min:expr, $max:expr;)*) => {
            $(impl Bounds for $t {
                const MIN_TEXT: &'static str = $min;
                const MAX_TEXT: &'static str = $max;
            })*
        };
    }
    bounds! {
        i32: "-2147483648", "2147483647";
        i64: "-9223372036854775808", "9223372036854775807";
        u32: "0", "4294967295";
        u64: "0", "18446744073709551615";
        usize: "0", "18446744073709551615";
    }
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

/// An optional `Backoff` argument.
pub fn opt_backoff(
    obj: Option<&Bound<'_, PyAny>>,
    argument: &str,
) -> PyResult<Option<leaseq::Backoff>> {
    match obj {
        Some(obj) if !obj.is_none() => obj
            .cast::<Backoff>()
            .map(|b| Some(b.get().inner))
            .map_err(|_| errors::wrong_type(obj.py(), argument, "leaseq.Backoff", obj)),
        _ => Ok(None),
    }
}

/// An optional `RateLimit` argument.
pub fn opt_rate_limit(
    obj: Option<&Bound<'_, PyAny>>,
    argument: &str,
) -> PyResult<Option<leaseq::RateLimit>> {
    match obj {
        Some(obj) if !obj.is_none() => obj
            .cast::<RateLimit>()
            .map(|r| Some(r.get().inner))
            .map_err(|_| errors::wrong_type(obj.py(), argument, "leaseq.RateLimit", obj)),
        _ => Ok(None),
    }
}

/// A state name (`leaseq.State` is a `str` enum, so both forms are `str`); the core parses it.
pub fn state(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<State> {
    let name = string(obj, "state")?;
    State::parse(&name).map_err(|e| errors::to_py(py, e))
}

/// `timeout` of a wait that must be given (`wait_result`): seconds or a timedelta (zero only
/// reads), or `leaseq.FOREVER`; `None` is refused, as a likely mistake.
pub fn required_wait(timeout: &Bound<'_, PyAny>) -> PyResult<Wait> {
    if timeout.is_none() {
        return Err(errors::wrong_type(
            timeout.py(),
            "timeout",
            "seconds (int or float), a timedelta or leaseq.FOREVER",
            timeout,
        ));
    }
    wait_timeout(timeout)
}

/// How long `lease` waits, from `timeout` (seconds, a timedelta, `leaseq.FOREVER` or `None`)
/// and the older `block` flag. With neither, the core's default ([`Wait::default`]: no wait).
/// `block=True` without a timeout waits forever and `block=False` never waits, as they always
/// did.
pub fn wait(
    timeout: Option<&Bound<'_, PyAny>>,
    block: Option<&Bound<'_, PyAny>>,
) -> PyResult<Wait> {
    let block = match block {
        Some(b) if !b.is_none() => Some(boolean(b, "block")?),
        _ => None,
    };
    let timeout = match timeout {
        Some(t) if !t.is_none() => Some(wait_timeout(t)?),
        _ => None,
    };
    Ok(match (block, timeout) {
        (Some(false), _) => Wait::No,
        (Some(true), None) => Wait::Forever,
        (None, None) => Wait::default(),
        (_, Some(wait)) => wait,
    })
}

/// A `timeout` for a wait: seconds or a timedelta, or `leaseq.FOREVER` (positive infinity).
fn wait_timeout(obj: &Bound<'_, PyAny>) -> PyResult<Wait> {
    if obj.is_instance_of::<PyFloat>() {
        let value: f64 = obj.extract()?;
        if value == f64::INFINITY {
            return Ok(Wait::Forever);
        }
    }
    seconds(obj, "timeout").map(|d| Wait::from_timeout(Some(d)))
}

/// `retry` of `fail`: `True` (the item's backoff), `False` (dead now), or a delay; `None` is
/// the core's default ([`Retry::default`], the backoff).
pub fn retry(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Retry> {
    let obj = match obj {
        Some(obj) if !obj.is_none() => obj,
        _ => return Ok(Retry::default()),
    };
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(if b.is_true() {
            Retry::Default
        } else {
            Retry::Never
        });
    }
    if !is_number(obj) && !time::is_timedelta(obj)? {
        return Err(errors::wrong_type(
            obj.py(),
            "retry",
            "a bool, seconds (int or float) or a timedelta",
            obj,
        ));
    }
    seconds(obj, "retry").map(Retry::After)
}

/// `error`, `error_type` and `trace` of `fail`: a message, or an exception whose `str()` is the
/// message, whose class name is the type (unless `error_type` is given) and whose formatted
/// traceback, when it was raised, is the trace (unless `trace` is given).
pub fn failure(
    error: &Bound<'_, PyAny>,
    error_type: Option<&Bound<'_, PyAny>>,
    trace: Option<&Bound<'_, PyAny>>,
) -> PyResult<(String, String, Option<String>)> {
    let given_type = match error_type {
        Some(t) if !t.is_none() => Some(string(t, "error_type")?),
        _ => None,
    };
    let given_trace = match trace {
        Some(t) if !t.is_none() => Some(string(t, "trace")?),
        _ => None,
    };
    if error.is_instance_of::<pyo3::exceptions::PyBaseException>() {
        let message = string(error.str()?.as_any(), "error")?;
        let class = error.get_type().name()?;
        let class = string(class.as_any(), "error")?;
        let trace = match given_trace {
            Some(t) => Some(t),
            None => exception_trace(error)?,
        };
        return Ok((message, given_type.unwrap_or(class), trace));
    }
    if !error.is_instance_of::<PyString>() {
        return Err(errors::wrong_type(
            error.py(),
            "error",
            "str or an exception",
            error,
        ));
    }
    Ok((
        string(error, "error")?,
        given_type.unwrap_or_default(),
        given_trace,
    ))
}

/// A raised exception's traceback as `traceback.format_exception` writes it (its causes and
/// contexts included); `None` for one never raised.
pub fn exception_trace(error: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let tb = error.getattr("__traceback__")?;
    if tb.is_none() {
        return Ok(None);
    }
    let py = error.py();
    let lines = py
        .import("traceback")?
        .call_method1("format_exception", (error.get_type(), error, tb))?;
    let text: String = PyString::new(py, "")
        .call_method1("join", (lines,))?
        .extract()?;
    Ok(Some(text))
}

/// The keyword arguments of `set_config`, as the core's `QueueConfig`.
#[allow(clippy::too_many_arguments)]
pub fn config(
    max_attempts: Option<&Bound<'_, PyAny>>,
    backoff: Option<&Bound<'_, PyAny>>,
    priority: Option<&Bound<'_, PyAny>>,
    expires_after: Option<&Bound<'_, PyAny>>,
    keep_result_for: Option<&Bound<'_, PyAny>>,
    dead_max_count: Option<&Bound<'_, PyAny>>,
    dead_max_age: Option<&Bound<'_, PyAny>>,
    stats: Option<&Bound<'_, PyAny>>,
    capacity: Option<&Bound<'_, PyAny>>,
    rate_limit: Option<&Bound<'_, PyAny>>,
    group_concurrency: Option<&Bound<'_, PyAny>>,
    group_rate_limit: Option<&Bound<'_, PyAny>>,
) -> PyResult<leaseq::QueueConfig> {
    let mut config = leaseq::QueueConfig::new();
    if let Some(m) = opt_integer(max_attempts, "max_attempts")? {
        config = config.max_attempts(m);
    }
    if let Some(b) = opt_backoff(backoff, "backoff")? {
        config = config.backoff(b);
    }
    if let Some(p) = opt_integer(priority, "priority")? {
        config = config.priority(p);
    }
    if let Some(d) = opt_seconds(expires_after, "expires_after")? {
        config = config.expires_after(d);
    }
    if let Some(d) = opt_seconds(keep_result_for, "keep_result_for")? {
        config = config.keep_result_for(d);
    }
    if let Some(n) = opt_integer(dead_max_count, "dead_max_count")? {
        config = config.dead_max_count(n);
    }
    if let Some(d) = opt_seconds(dead_max_age, "dead_max_age")? {
        config = config.dead_max_age(d);
    }
    if let Some(on) = stats.filter(|s| !s.is_none()) {
        config = config.stats(boolean(on, "stats")?);
    }
    if let Some(n) = opt_integer(capacity, "capacity")? {
        config = config.capacity(n);
    }
    if let Some(limit) = opt_rate_limit(rate_limit, "rate_limit")? {
        config = config.rate_limit(limit);
    }
    if let Some(n) = opt_integer(group_concurrency, "group_concurrency")? {
        config = config.group_concurrency(n);
    }
    if let Some(limit) = opt_rate_limit(group_rate_limit, "group_rate_limit")? {
        config = config.group_rate_limit(limit);
    }
    Ok(config)
}

/// One completion of a batch, owned: the lease, and the result to keep with its keep time.
pub type OwnedCompletion = (leaseq::Lease, Option<(Vec<u8>, Option<Duration>)>);

/// The core's view of an owned completion.
pub fn borrow_completion(c: &OwnedCompletion) -> leaseq::Completion<'_> {
    (&c.0, c.1.as_ref().map(|(r, keep)| (r.as_slice(), *keep)))
}

/// The elements of a batch argument: an iterable that is not itself text, bytes or a lease.
/// (A lone completion passed as the whole batch is refused by its second field's element check.)
fn elements<'py>(
    obj: &Bound<'py, PyAny>,
    argument: &str,
    expected: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let py = obj.py();
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<Lease>()
    {
        return Err(errors::wrong_type(py, argument, expected, obj));
    }
    obj.try_iter()
        .map_err(|_| errors::wrong_type(py, argument, expected, obj))?
        .collect()
}

/// A tuple element of a batch of `min` to `max` fields, else a type error naming `argument`.
fn fields<'py>(
    element: &Bound<'py, PyAny>,
    argument: &str,
    expected: &str,
    min: usize,
    max: usize,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    match element.cast::<PyTuple>() {
        Ok(t) if (min..=max).contains(&t.len()) => Ok(t.iter().collect()),
        _ => Err(errors::wrong_type(
            element.py(),
            argument,
            expected,
            element,
        )),
    }
}

/// `completions` of `complete_batch` and `complete_and_lease_batch`: each a `Lease`, or a tuple
/// `(lease, result, keep_result_for)` (a `leaseq.Completion`, or a plain tuple of 1 to 3
/// fields) whose fields are `complete`'s arguments.
pub fn completions(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Vec<OwnedCompletion>> {
    let expected = "leaseq.Lease or (lease, result, keep_result_for) elements";
    let mut out = Vec::new();
    for element in elements(obj, argument, &format!("an iterable of {expected}"))? {
        if let Ok(lease) = element.cast::<Lease>() {
            out.push((lease.get().inner.clone(), None));
            continue;
        }
        let f = fields(&element, argument, expected, 1, 3)?;
        let lease = self::lease(&f[0], "lease")?.get().inner.clone();
        let result = opt_data(f.get(1), "result")?;
        let keep = opt_seconds(f.get(2), "keep_result_for")?;
        leaseq::check_completion(result.as_deref(), keep)
            .map_err(|e| errors::to_py(obj.py(), e))?;
        let result = result.map(|r| (r, keep));
        out.push((lease, result));
    }
    Ok(out)
}

/// `leases` of `renew_batch`: an iterable of `Lease`.
pub fn leases(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Vec<leaseq::Lease>> {
    let expected = "leaseq.Lease elements";
    elements(obj, argument, &format!("an iterable of {expected}"))?
        .iter()
        .map(|element| {
            element
                .cast::<Lease>()
                .map(|l| l.get().inner.clone())
                .map_err(|_| errors::wrong_type(obj.py(), argument, expected, element))
        })
        .collect()
}

/// One failure of a batch, owned: as `fail`'s arguments.
pub type OwnedFailure = (leaseq::Lease, String, String, Retry, Option<String>);

/// `failures` of `fail_batch`: each a tuple `(lease, error, error_type, retry, trace)` (a
/// `leaseq.Failure`, or a plain tuple of 2 to 5 fields) whose fields are `fail`'s arguments.
pub fn failures(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Vec<OwnedFailure>> {
    let expected = "(lease, error, error_type, retry, trace) elements";
    elements(obj, argument, &format!("an iterable of {expected}"))?
        .iter()
        .map(|element| {
            let f = fields(element, argument, expected, 2, 5)?;
            let lease = self::lease(&f[0], "lease")?.get().inner.clone();
            let (message, kind, trace) = failure(&f[1], f.get(2), f.get(4))?;
            Ok((lease, message, kind, retry(f.get(3))?, trace))
        })
        .collect()
}

/// A batch of owned failures as the core's [`leaseq::Failure`]s.
pub fn failure_refs(owned: &[OwnedFailure]) -> Vec<leaseq::Failure<'_>> {
    owned
        .iter()
        .map(|(lease, error, kind, retry, trace)| {
            (
                lease,
                error.as_str(),
                kind.as_str(),
                *retry,
                trace.as_deref(),
            )
        })
        .collect()
}

/// Optional data (`result`): `None` stays `None`.
pub fn opt_data(obj: Option<&Bound<'_, PyAny>>, argument: &str) -> PyResult<Option<Vec<u8>>> {
    match obj {
        Some(obj) if !obj.is_none() => data(obj, argument).map(Some),
        _ => Ok(None),
    }
}
