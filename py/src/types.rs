//! The value classes shared by the sync and asyncio faces: `Item`, `Lease`, `CleanReport`.

use std::time::{Duration, SystemTime};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::{convert, errors, time};

/// A piece of work: an id, unique while the item exists, its data (bytes), and its options.
///
/// ``Item(data)`` picks a random UUID id; ``Item(data, id="custom")`` uses yours (1 to 512
/// bytes of UTF-8 without control characters). ``data`` is bytes, bytearray or str (stored as
/// UTF-8). The keyword options are checked by ``add``; an option left ``None`` takes the queue's
/// stored configuration, else the protocol's default:
///
/// - ``delay`` (seconds or timedelta) or ``run_at`` (an aware datetime): not leased before then;
/// - ``priority``: -1000 to 1000, higher runs first (0, the default, is redis-work-queue's list);
/// - ``max_attempts``: leases before the item is dead (0: no limit);
/// - ``backoff``: a ``Backoff``, the wait after a failed attempt;
/// - ``expires_after``: dead if no lease took it this long after it was added;
/// - ``keep_result_for``: how long a result given to ``complete`` is kept;
/// - ``group``: a group name (a customer or tenant id, say; 1 to 256 bytes of UTF-8 without
///   control characters): at most the group's limit of its items are leased at once (default 1:
///   FIFO per group), and groups take turns;
/// - ``name``: what kind of job it is (``"send_email"``, ``"resize"``; 1 to 256 bytes of UTF-8
///   without control characters): a ``Worker`` given a dict of handlers runs the item with the
///   handler of that name; ``get`` shows it, and ``counts_by_name`` counts it;
/// - ``depends_on``: ids of items of the same queue (at most 1000) that must complete before
///   this one is leased; until then it is ``State.BLOCKED``. An id no item has counts as
///   complete;
/// - ``on_dependency_failure``: ``"fail"`` (the default: it dies when a dependency dies or is
///   cancelled) or ``"run"`` (it runs anyway once every dependency finished).
#[pyclass(module = "leaseq", frozen)]
pub struct Item {
    pub inner: leaseq::Item,
}

/// The keyword options of `Item` and `Item.from_json`, converted.
#[derive(Default)]
struct Options {
    delay: Option<Duration>,
    run_at: Option<SystemTime>,
    priority: Option<i32>,
    max_attempts: Option<u32>,
    backoff: Option<leaseq::Backoff>,
    expires_after: Option<Duration>,
    keep_result_for: Option<Duration>,
    group: Option<String>,
    name: Option<String>,
    depends_on: Option<Vec<String>>,
    on_dependency_failure: Option<leaseq::OnDependencyFailure>,
}

impl Options {
    #[allow(clippy::too_many_arguments)]
    fn convert(
        delay: Option<&Bound<'_, PyAny>>,
        run_at: Option<&Bound<'_, PyAny>>,
        priority: Option<&Bound<'_, PyAny>>,
        max_attempts: Option<&Bound<'_, PyAny>>,
        backoff: Option<&Bound<'_, PyAny>>,
        expires_after: Option<&Bound<'_, PyAny>>,
        keep_result_for: Option<&Bound<'_, PyAny>>,
        group: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        depends_on: Option<&Bound<'_, PyAny>>,
        on_dependency_failure: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Options> {
        Ok(Options {
            delay: convert::opt_seconds(delay, "delay")?,
            run_at: match run_at {
                Some(at) if !at.is_none() => Some(convert::instant(at, "run_at")?),
                _ => None,
            },
            priority: convert::opt_integer(priority, "priority")?,
            max_attempts: convert::opt_integer(max_attempts, "max_attempts")?,
            backoff: convert::opt_backoff(backoff, "backoff")?,
            expires_after: convert::opt_seconds(expires_after, "expires_after")?,
            keep_result_for: convert::opt_seconds(keep_result_for, "keep_result_for")?,
            group: match group {
                Some(g) if !g.is_none() => Some(convert::string(g, "group")?),
                _ => None,
            },
            name: match name {
                Some(n) if !n.is_none() => Some(convert::string(n, "name")?),
                _ => None,
            },
            depends_on: match depends_on {
                Some(d) if !d.is_none() => Some(convert::strings(d, "depends_on")?),
                _ => None,
            },
            on_dependency_failure: match on_dependency_failure {
                Some(p) if !p.is_none() => Some(
                    leaseq::OnDependencyFailure::parse(&convert::string(
                        p,
                        "on_dependency_failure",
                    )?)
                    .map_err(|e| errors::to_py(p.py(), e))?,
                ),
                _ => None,
            },
        })
    }

    fn apply(self, mut item: leaseq::Item) -> leaseq::Item {
        if let Some(d) = self.delay {
            item = item.delay(d);
        }
        if let Some(at) = self.run_at {
            item = item.run_at(at);
        }
        if let Some(p) = self.priority {
            item = item.priority(p);
        }
        if let Some(m) = self.max_attempts {
            item = item.max_attempts(m);
        }
        if let Some(b) = self.backoff {
            item = item.backoff(b);
        }
        if let Some(d) = self.expires_after {
            item = item.expires_after(d);
        }
        if let Some(d) = self.keep_result_for {
            item = item.keep_result_for(d);
        }
        if let Some(g) = self.group {
            item = item.group(g);
        }
        if let Some(n) = self.name {
            item = item.name(n);
        }
        if let Some(d) = self.depends_on {
            item = item.depends_on(d);
        }
        if let Some(p) = self.on_dependency_failure {
            item = item.on_dependency_failure(p);
        }
        item
    }
}

fn make_item(
    py: Python<'_>,
    data: Vec<u8>,
    id: Option<&Bound<'_, PyAny>>,
    options: Options,
) -> PyResult<Item> {
    let inner = match id {
        Some(id) if !id.is_none() => leaseq::Item::with_id(convert::string(id, "id")?, data)
            .map_err(|e| errors::to_py(py, e))?,
        _ => leaseq::Item::new(data),
    };
    let inner = options.apply(inner);
    // The core's checks, so that a bad option is refused here, naming it, not at `add`.
    inner.validate().map_err(|e| errors::to_py(py, e))?;
    Ok(Item { inner })
}

/// Python's `json.dumps`, compact, refusing NaN and infinities (they are not JSON).
pub fn json_dumps(value: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let py = value.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("separators", (",", ":"))?;
    kwargs.set_item("ensure_ascii", false)?;
    kwargs.set_item("allow_nan", false)?;
    let text = py
        .import("json")?
        .call_method("dumps", (value,), Some(&kwargs))
        .map_err(|e| errors::json(py, e))?;
    convert::string(&text, "value").map(String::into_bytes)
}

/// Python's `json.loads` of item data.
pub fn json_loads<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?
        .call_method1("loads", (PyBytes::new(py, data),))
        .map_err(|e| errors::json(py, e))
}

#[pymethods]
impl Item {
    #[new]
    #[pyo3(signature = (
        data, id = None, *, delay = None, run_at = None, priority = None, max_attempts = None,
        backoff = None, expires_after = None, keep_result_for = None, group = None,
        name = None, depends_on = None, on_dependency_failure = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        id: Option<&Bound<'_, PyAny>>,
        delay: Option<&Bound<'_, PyAny>>,
        run_at: Option<&Bound<'_, PyAny>>,
        priority: Option<&Bound<'_, PyAny>>,
        max_attempts: Option<&Bound<'_, PyAny>>,
        backoff: Option<&Bound<'_, PyAny>>,
        expires_after: Option<&Bound<'_, PyAny>>,
        keep_result_for: Option<&Bound<'_, PyAny>>,
        group: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        depends_on: Option<&Bound<'_, PyAny>>,
        on_dependency_failure: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let data = convert::data(data, "data")?;
        let options = Options::convert(
            delay,
            run_at,
            priority,
            max_attempts,
            backoff,
            expires_after,
            keep_result_for,
            group,
            name,
            depends_on,
            on_dependency_failure,
        )?;
        make_item(py, data, id, options)
    }

    /// An item whose data is ``value`` encoded as compact JSON (UTF-8), with the same options as
    /// ``Item``. Raises ``JsonError`` when ``value`` cannot be encoded (NaN included).
    #[staticmethod]
    #[pyo3(signature = (
        value, id = None, *, delay = None, run_at = None, priority = None, max_attempts = None,
        backoff = None, expires_after = None, keep_result_for = None, group = None,
        name = None, depends_on = None, on_dependency_failure = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn from_json(
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        id: Option<&Bound<'_, PyAny>>,
        delay: Option<&Bound<'_, PyAny>>,
        run_at: Option<&Bound<'_, PyAny>>,
        priority: Option<&Bound<'_, PyAny>>,
        max_attempts: Option<&Bound<'_, PyAny>>,
        backoff: Option<&Bound<'_, PyAny>>,
        expires_after: Option<&Bound<'_, PyAny>>,
        keep_result_for: Option<&Bound<'_, PyAny>>,
        group: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        depends_on: Option<&Bound<'_, PyAny>>,
        on_dependency_failure: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let options = Options::convert(
            delay,
            run_at,
            priority,
            max_attempts,
            backoff,
            expires_after,
            keep_result_for,
            group,
            name,
            depends_on,
            on_dependency_failure,
        )?;
        make_item(py, json_dumps(value)?, id, options)
    }

    /// The id.
    #[getter]
    fn id(&self) -> &str {
        self.inner.id()
    }

    /// The data.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.data())
    }

    /// The data parsed as JSON; raises ``JsonError`` when it is not JSON.
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, self.inner.data())
    }

    fn __repr__(&self) -> String {
        format!(
            "Item(id={:?}, {} bytes)",
            self.inner.id(),
            self.inner.data().len()
        )
    }
}

/// A parent item and its children (``Item``s, or ``Flow``s with children of their own), for
/// ``Queue.add_flow``: the children run first, then the parent, which reads their results
/// with ``Queue.dependency_results``.
#[pyclass(module = "leaseq", frozen)]
pub struct Flow {
    pub inner: leaseq::Flow,
}

#[pymethods]
impl Flow {
    #[new]
    #[pyo3(signature = (item, children = None))]
    fn new(item: &Bound<'_, PyAny>, children: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let item = convert::item(item, "item")?;
        let mut inner = leaseq::Flow::new(item.get().inner.clone());
        if let Some(children) = children.filter(|c| !c.is_none()) {
            for child in flows(children, "children")? {
                inner = inner.child(child);
            }
        }
        Ok(Flow { inner })
    }

    /// The item at the top of this flow.
    #[getter]
    fn item(&self) -> Item {
        Item {
            inner: self.inner.item().clone(),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Flow(item={:?}, {} children)",
            self.inner.item().id(),
            self.inner.children().len()
        )
    }
}

/// A list of children: each an `Item` or a `Flow`.
pub fn flows(obj: &Bound<'_, PyAny>, argument: &str) -> PyResult<Vec<leaseq::Flow>> {
    let py = obj.py();
    let expected = "an iterable of leaseq.Item or leaseq.Flow";
    if obj.is_instance_of::<pyo3::types::PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(errors::wrong_type(py, argument, expected, obj));
    }
    let iter = obj
        .try_iter()
        .map_err(|_| errors::wrong_type(py, argument, expected, obj))?;
    iter.map(|element| {
        let element = element?;
        if let Ok(flow) = element.cast::<Flow>() {
            return Ok(flow.get().inner.clone());
        }
        match element.cast::<Item>() {
            Ok(item) => Ok(leaseq::Flow::new(item.get().inner.clone())),
            Err(_) => Err(errors::wrong_type(py, argument, expected, &element)),
        }
    })
    .collect()
}

/// A leased item. Pass it back to ``complete``, ``fail``, ``release``, ``renew`` or ``progress``
/// of the queue it came from.
#[pyclass(module = "leaseq", frozen)]
pub struct Lease {
    /// The core's lease, its data moved into `data`.
    pub inner: leaseq::Lease,
    data: Py<PyBytes>,
}

/// A lease fresh from the core, turned into a Python `Lease` when the GIL is held.
pub struct NewLease(pub leaseq::Lease);

impl<'py> IntoPyObject<'py> for NewLease {
    type Target = Lease;
    type Output = Bound<'py, Lease>;
    type Error = PyErr;

    fn into_pyobject(mut self, py: Python<'py>) -> PyResult<Bound<'py, Lease>> {
        let data = PyBytes::new(py, &self.0.take_data()).unbind();
        Bound::new(
            py,
            Lease {
                inner: self.0,
                data,
            },
        )
    }
}

#[pymethods]
impl Lease {
    /// The item's id.
    #[getter]
    fn id(&self) -> &str {
        self.inner.id()
    }

    /// The id exactly as Redis holds it (differs from ``id`` only for an id that is not UTF-8,
    /// which another kind of client may have added).
    #[getter]
    fn id_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.id_bytes())
    }

    /// The item's data.
    #[getter]
    fn data(&self, py: Python<'_>) -> Py<PyBytes> {
        self.data.clone_ref(py)
    }

    /// The item's data parsed as JSON; raises ``JsonError`` when it is not JSON.
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, self.data.as_bytes(py))
    }

    /// This lease's token: random and unique to this lease; ``renew`` checks it (fencing).
    #[getter]
    fn token(&self) -> &str {
        self.inner.token()
    }

    /// How many times the item has been leased, this lease included (1 the first time). Above 1,
    /// an earlier attempt failed, or its holder let the lease expire or crashed.
    #[getter]
    fn count(&self) -> u64 {
        self.inner.count()
    }

    /// The attempt number: the same as ``count``.
    #[getter]
    fn attempt(&self) -> u64 {
        self.inner.attempt()
    }

    /// The item's incarnation: new each time the id is added anew. A lease of an older
    /// incarnation can no longer complete, fail, release or renew the item.
    #[getter]
    fn incarnation(&self) -> &str {
        self.inner.incarnation()
    }

    /// The attempts after which the item is dead instead of retried (0: no limit).
    #[getter]
    fn max_attempts(&self) -> u32 {
        self.inner.max_attempts()
    }

    /// The item's backoff: how long it waits after a failed attempt.
    #[getter]
    fn backoff(&self) -> Backoff {
        Backoff {
            inner: self.inner.backoff(),
        }
    }

    /// The prefix of the queue this lease belongs to.
    #[getter]
    fn queue_prefix(&self) -> &str {
        self.inner.queue_prefix()
    }

    /// The item's name (``Item(..., name=...)``: what kind of job it is), or ``None`` when it
    /// was added without one.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.inner.name()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Lease(id={:?}, attempt={}, {} bytes)",
            self.inner.id(),
            self.inner.count(),
            self.data.as_bytes(py).len()
        )
    }
}

/// How long a failed item waits before it runs again: ``Backoff.fixed(seconds)`` or
/// ``Backoff.exponential(base, cap, jitter=True)`` (durations in seconds or timedeltas).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq)]
pub struct Backoff {
    pub inner: leaseq::Backoff,
}

impl Backoff {
    fn checked(py: Python<'_>, inner: leaseq::Backoff) -> PyResult<Backoff> {
        inner.validate().map_err(|e| errors::to_py(py, e))?;
        Ok(Backoff { inner })
    }
}

#[pymethods]
impl Backoff {
    /// The same delay after every failed attempt.
    #[staticmethod]
    fn fixed(py: Python<'_>, delay: &Bound<'_, PyAny>) -> PyResult<Backoff> {
        Backoff::checked(
            py,
            leaseq::Backoff::fixed(convert::seconds(delay, "delay")?),
        )
    }

    /// ``base * 2**(attempt - 1)``, at most ``cap``; with ``jitter``, a random delay between
    /// half of that and all of it, so that failures do not retry in lockstep.
    #[staticmethod]
    #[pyo3(
        signature = (base, cap, jitter = None),
        text_signature = "(base, cap, jitter=True)"
    )]
    fn exponential(
        py: Python<'_>,
        base: &Bound<'_, PyAny>,
        cap: &Bound<'_, PyAny>,
        jitter: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Backoff> {
        let base = convert::seconds(base, "base")?;
        let cap = convert::seconds(cap, "cap")?;
        let backoff = match jitter {
            Some(jitter) if !jitter.is_none() => leaseq::Backoff::Exponential {
                base,
                cap,
                jitter: convert::boolean(jitter, "jitter")?,
            },
            // The core's default (jitter on).
            _ => leaseq::Backoff::exponential(base, cap),
        };
        Backoff::checked(py, backoff)
    }

    /// ``"fixed"`` or ``"exponential"``.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner {
            leaseq::Backoff::Fixed(_) => "fixed",
            _ => "exponential",
        }
    }

    /// The delay of a fixed backoff (``None`` for an exponential one).
    #[getter]
    fn delay<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner {
            leaseq::Backoff::Fixed(d) => time::timedelta(py, d).map(Some),
            _ => Ok(None),
        }
    }

    /// The first retry's delay of an exponential backoff (``None`` for a fixed one).
    #[getter]
    fn base<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner {
            leaseq::Backoff::Exponential { base, .. } => time::timedelta(py, base).map(Some),
            _ => Ok(None),
        }
    }

    /// The longest delay of an exponential backoff (``None`` for a fixed one).
    #[getter]
    fn cap<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner {
            leaseq::Backoff::Exponential { cap, .. } => time::timedelta(py, cap).map(Some),
            _ => Ok(None),
        }
    }

    /// Whether an exponential backoff randomises its delays (``False`` for a fixed one).
    #[getter]
    fn jitter(&self) -> bool {
        matches!(
            self.inner,
            leaseq::Backoff::Exponential { jitter: true, .. }
        )
    }

    pub fn __repr__(&self) -> String {
        let secs = |d: std::time::Duration| d.as_secs_f64();
        match self.inner {
            leaseq::Backoff::Fixed(d) => format!("Backoff.fixed({})", secs(d)),
            leaseq::Backoff::Exponential { base, cap, jitter } => format!(
                "Backoff.exponential({}, {}, jitter={})",
                secs(base),
                secs(cap),
                if jitter { "True" } else { "False" }
            ),
            _ => format!("Backoff({:?})", self.inner),
        }
    }
}

/// A queue's rate limit (``set_config(rate_limit=RateLimit(max, per))``): at most ``max``
/// leases in each window of ``per`` (seconds or a timedelta), counted on the server for every
/// client; as ``set_config(group_rate_limit=...)``, the same for each group, in its own window.
/// The queue's ``set_config`` checks the values (``InvalidArgumentError`` naming the argument,
/// ``rate_limit`` or ``group_rate_limit``).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct RateLimit {
    pub inner: leaseq::RateLimit,
}

#[pymethods]
impl RateLimit {
    #[new]
    fn new(max: &Bound<'_, PyAny>, per: &Bound<'_, PyAny>) -> PyResult<RateLimit> {
        Ok(RateLimit {
            inner: leaseq::RateLimit::new(
                convert::integer(max, "max")?,
                convert::seconds(per, "per")?,
            ),
        })
    }

    /// Leases per window.
    #[getter]
    fn max(&self) -> u64 {
        self.inner.max
    }

    /// The window (a timedelta).
    #[getter]
    fn per<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        time::timedelta(py, self.inner.per)
    }

    pub fn __repr__(&self) -> String {
        format!(
            "RateLimit(max={}, per={})",
            self.inner.max,
            self.inner.per.as_secs_f64()
        )
    }
}

/// What a clean did: ``requeued`` items put back in a waiting list, ``removed`` stale entries
/// dropped, ``promoted`` due delayed items moved to waiting, ``dead`` expired leases with no
/// attempts left moved to the dead letters.
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct CleanReport {
    /// Items put back in a waiting list (their lease expired, or their holder crashed).
    #[pyo3(get)]
    pub requeued: u64,
    /// Stale entries removed: ids of complete items, duplicates, orphaned records.
    #[pyo3(get)]
    pub removed: u64,
    /// Delayed items that were due, moved to waiting.
    #[pyo3(get)]
    pub promoted: u64,
    /// Items whose last lease expired with no attempts left, moved to dead.
    #[pyo3(get)]
    pub dead: u64,
}

impl From<leaseq::CleanReport> for CleanReport {
    fn from(r: leaseq::CleanReport) -> Self {
        CleanReport {
            requeued: r.requeued,
            removed: r.removed,
            promoted: r.promoted,
            dead: r.dead,
        }
    }
}

#[pymethods]
impl CleanReport {
    fn __repr__(&self) -> String {
        format!(
            "CleanReport(requeued={}, removed={}, promoted={}, dead={})",
            self.requeued, self.removed, self.promoted, self.dead
        )
    }
}
