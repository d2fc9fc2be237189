//! The read API's value classes (`Job`, `JobResult`, `Entry`, `Stats`, `Minute`,
//! `NameCounts`), the queue's stored configuration (`QueueConfig`), what `fail` did
//! (`FailOutcome`), and the `str` enums `State` and `RenewOutcome` (defined in
//! `leaseq/enums.py`). Each class holds the core's value and converts a field when it is read: server-clock milliseconds become aware UTC datetimes,
//! durations timedeltas.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyModule};

use crate::time;
use crate::types::{json_loads, Backoff, RateLimit};

fn enums_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    MODULE
        .get_or_try_init(py, || py.import("leaseq.enums").map(Bound::unbind))
        .map(|m| m.bind(py))
}

fn enum_member<'py>(py: Python<'py>, class: &str, name: &str) -> PyResult<Bound<'py, PyAny>> {
    enums_module(py)?.getattr(class)?.call1((name,))
}

/// A core state, converted to `leaseq.State` when the GIL is held.
pub struct StateName(pub leaseq::State);

impl<'py> IntoPyObject<'py> for StateName {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        enum_member(py, "State", self.0.as_str())
    }
}

/// A core renew outcome, converted to `leaseq.RenewOutcome` when the GIL is held.
pub struct RenewName(pub leaseq::RenewOutcome);

impl<'py> IntoPyObject<'py> for RenewName {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        enum_member(py, "RenewOutcome", self.0.as_str())
    }
}

fn bytes_or_none<'py>(py: Python<'py>, data: Option<&[u8]>) -> Option<Bound<'py, PyBytes>> {
    data.map(|d| PyBytes::new(py, d))
}

/// Everything the queue knows about one item (``Queue.get``). Times are aware UTC datetimes
/// from the server's clock.
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq)]
pub struct Job {
    inner: leaseq::Job,
}

impl From<leaseq::Job> for Job {
    fn from(inner: leaseq::Job) -> Job {
        Job { inner }
    }
}

#[pymethods]
impl Job {
    /// The id (shown with replacement characters when it is not UTF-8; ``id_bytes`` is exact).
    #[getter]
    fn id(&self) -> &str {
        &self.inner.id
    }

    /// The id exactly as Redis holds it (``bytes``), for ids another kind of client added.
    #[getter]
    fn id_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.id_bytes)
    }

    /// Where the item is: a ``leaseq.State``.
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        StateName(self.inner.state).into_pyobject(py)
    }

    /// The data (empty for a done item).
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.data)
    }

    /// The data parsed as JSON; raises ``JsonError`` when it is not JSON.
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.inner.data)
    }

    /// Leases so far.
    #[getter]
    fn attempts(&self) -> u64 {
        self.inner.attempts
    }

    /// The item's own max attempts, if it was added with one.
    #[getter]
    fn max_attempts(&self) -> Option<u32> {
        self.inner.max_attempts
    }

    /// The item's priority.
    #[getter]
    fn priority(&self) -> i32 {
        self.inner.priority
    }

    /// The item's group (``Item(..., group=...)``), if it has one.
    #[getter]
    fn group(&self) -> Option<&str> {
        self.inner.group.as_deref()
    }

    /// The item's name (``Item(..., name=...)``: what kind of job it is), if it has one.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.inner.name.as_deref()
    }

    /// The ids it was added to wait for (``Item(..., depends_on=...)``), empty without.
    #[getter]
    fn depends_on(&self) -> Vec<String> {
        self.inner.depends_on.clone()
    }

    /// ``"fail"`` or ``"run"`` for an item with dependencies, else ``None``.
    #[getter]
    fn on_dependency_failure(&self) -> Option<&'static str> {
        self.inner.on_dependency_failure.map(|p| p.as_str())
    }

    /// Read from a partitioned queue (``PartitionedQueue.get``): the partition that holds it,
    /// as its index in ``PartitionedQueue.partitions``. ``None`` from a plain queue.
    #[getter]
    fn partition(&self) -> Option<usize> {
        self.inner.partition
    }

    /// The last failure's message, if it failed.
    #[getter]
    fn error(&self) -> Option<&str> {
        self.inner
            .error
            .as_ref()
            .map(|(message, _)| message.as_str())
    }

    /// The last failure's type (e.g. an exception class name; may be empty), if it failed.
    #[getter]
    fn error_type(&self) -> Option<&str> {
        self.inner.error.as_ref().map(|(_, kind)| kind.as_str())
    }

    /// The last failure's trace (a traceback, a stack, an error chain; at most 16 KiB), if it
    /// gave one.
    #[getter]
    fn trace(&self) -> Option<&str> {
        self.inner.trace.as_deref()
    }

    /// Why it is dead (e.g. ``"failed"``, ``"expired"``), if it is.
    #[getter]
    fn dead_reason(&self) -> Option<&str> {
        self.inner.dead_reason.as_deref()
    }

    /// The last progress value a holder stored.
    #[getter]
    fn progress<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        bytes_or_none(py, self.inner.progress.as_deref())
    }

    /// The kept result, for a done item.
    #[getter]
    fn result(&self) -> Option<JobResult> {
        self.inner.result.clone().map(JobResult::from)
    }

    /// When it was added (items added with options only).
    #[getter]
    fn added_at<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_datetime_ms(py, self.inner.added_at)
    }

    /// When it is due (delayed items).
    #[getter]
    fn due_at<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_datetime_ms(py, self.inner.due_at)
    }

    /// When the last lease began.
    #[getter]
    fn leased_at<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_datetime_ms(py, self.inner.leased_at)
    }

    /// When the current lease ends.
    #[getter]
    fn lease_expires_at<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_datetime_ms(py, self.inner.lease_expires_at)
    }

    /// When it died, or when it completed.
    #[getter]
    fn finished_at<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_datetime_ms(py, self.inner.finished_at)
    }

    /// How long the current lease has left (a timedelta).
    #[getter]
    fn lease_ttl<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_timedelta(py, self.inner.lease_ttl)
    }

    /// Whether it was cancelled while leased (its holder's next call removes it).
    #[getter]
    fn cancelled(&self) -> bool {
        self.inner.cancelled
    }

    fn __repr__(&self) -> String {
        format!(
            "Job(id={:?}, state={}, attempts={})",
            self.inner.id, self.inner.state, self.inner.attempts
        )
    }
}

/// A kept result (``Queue.result``, ``Queue.wait_result``, ``Job.result``).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct JobResult {
    inner: leaseq::JobResult,
}

impl From<leaseq::JobResult> for JobResult {
    fn from(inner: leaseq::JobResult) -> JobResult {
        JobResult { inner }
    }
}

#[pymethods]
impl JobResult {
    /// The bytes the completing worker gave.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.data)
    }

    /// The data parsed as JSON; raises ``JsonError`` when it is not JSON.
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.inner.data)
    }

    /// The attempt that completed it.
    #[getter]
    fn attempts(&self) -> u64 {
        self.inner.attempts
    }

    /// When it completed (server clock, aware UTC datetime).
    #[getter]
    fn finished_at<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        time::datetime_ms(py, self.inner.finished_at)
    }

    /// When the item was added (server clock, aware UTC datetime), or ``None`` when unknown (an
    /// item added without options, or a result kept by an earlier version).
    #[getter]
    fn added_at<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_datetime_ms(py, self.inner.added_at)
    }

    /// The item's name, or ``None`` when it had none.
    #[getter]
    fn name(&self) -> Option<String> {
        self.inner.name.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "JobResult(attempts={}, {} bytes)",
            self.inner.attempts,
            self.inner.data.len()
        )
    }
}

/// One line of ``Queue.list``.
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct Entry {
    inner: leaseq::Entry,
}

impl From<leaseq::Entry> for Entry {
    fn from(inner: leaseq::Entry) -> Entry {
        Entry { inner }
    }
}

#[pymethods]
impl Entry {
    /// The id (shown with replacement characters when it is not UTF-8; ``id_bytes`` is exact).
    #[getter]
    fn id(&self) -> &str {
        &self.inner.id
    }

    /// The id exactly as Redis holds it (``bytes``), for ids another kind of client added.
    #[getter]
    fn id_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.id_bytes)
    }

    /// Due time (delayed), lease expiry (leased), time of death (dead) or time finished (done);
    /// ``None`` for waiting.
    #[getter]
    fn at<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_datetime_ms(py, self.inner.at)
    }

    /// Leases so far.
    #[getter]
    fn attempts(&self) -> u64 {
        self.inner.attempts
    }

    /// The last failure's message, if any.
    #[getter]
    fn error(&self) -> Option<&str> {
        self.inner
            .error
            .as_ref()
            .map(|(message, _)| message.as_str())
    }

    /// The last failure's type, if any.
    #[getter]
    fn error_type(&self) -> Option<&str> {
        self.inner.error.as_ref().map(|(_, kind)| kind.as_str())
    }

    /// The item's name, when it has one (a done item's, as its kept result keeps it).
    #[getter]
    fn name(&self) -> Option<&str> {
        self.inner.name.as_deref()
    }

    /// Why a dead item died (``Job.dead_reason``): e.g. ``"lease expired 3 times"`` or
    /// ``"dependency a is dead"``, which carry no error of their own; ``None`` in other states.
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.inner.reason.as_deref()
    }

    /// Listed through a partitioned queue (``PartitionedQueue.list``, ``find``): the partition
    /// that holds it, as its index in ``PartitionedQueue.partitions``. ``None`` from a plain
    /// queue.
    #[getter]
    fn partition(&self) -> Option<usize> {
        self.inner.partition
    }

    fn __repr__(&self) -> String {
        format!(
            "Entry(id={:?}, attempts={})",
            self.inner.id, self.inner.attempts
        )
    }
}

/// What ``Queue.find`` found: the matching entries of a bounded stretch of a state.
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct Found {
    inner: leaseq::Found,
}

impl From<leaseq::Found> for Found {
    fn from(inner: leaseq::Found) -> Found {
        Found { inner }
    }
}

#[pymethods]
impl Found {
    /// The entries that match (``Entry``), in the state's order.
    #[getter]
    fn entries(&self) -> Vec<Entry> {
        self.inner
            .entries
            .iter()
            .cloned()
            .map(Entry::from)
            .collect()
    }

    /// The ``start`` of the next call, or ``None`` once the end of the state was reached.
    #[getter]
    fn next(&self) -> Option<usize> {
        self.inner.next
    }

    /// How many positions this call looked at (at most 1000), matching or not.
    #[getter]
    fn examined(&self) -> usize {
        self.inner.examined
    }

    fn __repr__(&self) -> String {
        format!(
            "Found(entries={}, next={:?}, examined={})",
            self.inner.entries.len(),
            self.inner.next,
            self.inner.examined
        )
    }
}

/// Counters for one minute (``Stats.minutes``, ``Stats.last_hour``).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct Minute {
    /// Items completed.
    #[pyo3(get)]
    completed: u64,
    /// Failed attempts (each ``fail``).
    #[pyo3(get)]
    failed: u64,
    /// Items that went dead.
    #[pyo3(get)]
    dead: u64,
    /// Leases that expired without their holder reporting.
    #[pyo3(get)]
    expired: u64,
}

impl From<leaseq::Minute> for Minute {
    fn from(m: leaseq::Minute) -> Minute {
        Minute {
            completed: m.completed,
            failed: m.failed,
            dead: m.dead,
            expired: m.expired,
        }
    }
}

#[pymethods]
impl Minute {
    fn __repr__(&self) -> String {
        format!(
            "Minute(completed={}, failed={}, dead={}, expired={})",
            self.completed, self.failed, self.dead, self.expired
        )
    }
}

/// A queue's figures, read in one round trip (``Queue.stats``).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct Stats {
    inner: leaseq::Stats,
}

impl From<leaseq::Stats> for Stats {
    fn from(inner: leaseq::Stats) -> Stats {
        Stats { inner }
    }
}

#[pymethods]
impl Stats {
    /// Ids in the waiting lists (stale ids included until a lease or clean drops them).
    #[getter]
    fn waiting(&self) -> u64 {
        self.inner.waiting
    }

    /// Delayed items.
    #[getter]
    fn delayed(&self) -> u64 {
        self.inner.delayed
    }

    /// Items leased by leaseq clients.
    #[getter]
    fn leased(&self) -> u64 {
        self.inner.leased
    }

    /// Dead letters.
    #[getter]
    fn dead(&self) -> u64 {
        self.inner.dead
    }

    /// Ids in ``processing``: leased by redis-work-queue clients, or left by them.
    #[getter]
    fn processing(&self) -> u64 {
        self.inner.processing
    }

    /// Items waiting for their dependencies (``State.BLOCKED``).
    #[getter]
    fn blocked(&self) -> u64 {
        self.inner.blocked
    }

    /// Recurring jobs the queue holds (``Queue.schedules``).
    #[getter]
    fn schedules(&self) -> u64 {
        self.inner.schedules
    }

    /// Age of the oldest waiting item (a timedelta), when known.
    #[getter]
    fn oldest_waiting<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_timedelta(py, self.inner.oldest_waiting)
    }

    /// The server's clock when the figures were read (aware UTC datetime).
    #[getter]
    fn now<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        time::datetime_ms(py, self.inner.now)
    }

    /// The last 60 minutes, oldest first; the last is the current minute, so far. ``None``
    /// while the queue's counters are off (the default; ``set_config(stats=True)`` turns them
    /// on): not counted, which is not the same as nothing happened.
    #[getter]
    fn minutes(&self) -> Option<Vec<Minute>> {
        self.inner
            .minutes
            .as_ref()
            .map(|minutes| minutes.iter().copied().map(Minute::from).collect())
    }

    /// The counters summed over the last hour; ``None`` while the queue's counters are off.
    #[getter]
    fn last_hour(&self) -> Option<Minute> {
        self.inner.last_hour().map(Minute::from)
    }

    /// Whether the queue is paused (``Queue.pause``).
    #[getter]
    fn paused(&self) -> bool {
        self.inner.paused
    }

    /// The queue's capacity (waiting and delayed items at most), or ``None`` when unbounded.
    #[getter]
    fn capacity(&self) -> Option<u64> {
        self.inner.capacity
    }

    /// While the queue is at its rate limit or held off (``Queue.rate_limit``), how long until
    /// leases go on (a timedelta); ``None`` otherwise.
    #[getter]
    fn rate_limited_for<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_timedelta(py, self.inner.rate_limited_for)
    }

    fn __repr__(&self) -> String {
        let s = &self.inner;
        format!(
            "Stats(waiting={}, delayed={}, leased={}, dead={}, processing={}, paused={}, \
             capacity={})",
            s.waiting,
            s.delayed,
            s.leased,
            s.dead,
            s.processing,
            if s.paused { "True" } else { "False" },
            s.capacity.map_or("None".to_owned(), |n| n.to_string())
        )
    }
}

/// What the jobs of one item name did in the last hour (``Queue.counts_by_name``).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct NameCounts {
    inner: leaseq::NameCounts,
}

impl From<leaseq::NameCounts> for NameCounts {
    fn from(inner: leaseq::NameCounts) -> NameCounts {
        NameCounts { inner }
    }
}

#[pymethods]
impl NameCounts {
    /// The item name (``Item(..., name=...)``).
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }

    /// Jobs of this name completed in the last 60 minutes.
    #[getter]
    fn completed(&self) -> u64 {
        self.inner.completed
    }

    /// Failed attempts of this name (retried or not).
    #[getter]
    fn failed(&self) -> u64 {
        self.inner.failed
    }

    /// Jobs of this name that went to the dead letters.
    #[getter]
    fn dead(&self) -> u64 {
        self.inner.dead
    }

    fn __repr__(&self) -> String {
        let n = &self.inner;
        format!(
            "NameCounts(name={:?}, completed={}, failed={}, dead={})",
            n.name, n.completed, n.failed, n.dead
        )
    }
}

/// One group of a queue (``Queue.group``).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct GroupInfo {
    inner: leaseq::GroupInfo,
}

impl From<leaseq::GroupInfo> for GroupInfo {
    fn from(inner: leaseq::GroupInfo) -> GroupInfo {
        GroupInfo { inner }
    }
}

#[pymethods]
impl GroupInfo {
    /// Its items waiting.
    #[getter]
    fn waiting(&self) -> u64 {
        self.inner.waiting
    }

    /// Its items leased now.
    #[getter]
    fn leased(&self) -> u64 {
        self.inner.leased
    }

    /// How many of its items may be leased at once (its own limit, else the queue's
    /// ``group_concurrency``).
    #[getter]
    fn limit(&self) -> u64 {
        self.inner.limit
    }

    /// Whether it is paused (``Queue.pause_group``).
    #[getter]
    fn paused(&self) -> bool {
        self.inner.paused
    }

    /// While the group is at the queue's ``group_rate_limit`` or held off
    /// (``Queue.rate_limit_group``), how long until its leases go on (a timedelta); ``None``
    /// otherwise.
    #[getter]
    fn rate_limited_for<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_timedelta(py, self.inner.rate_limited_for)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let g = &self.inner;
        let rate = match self.rate_limited_for(py)? {
            Some(t) => t.repr()?.to_string(),
            None => "None".to_owned(),
        };
        Ok(format!(
            "GroupInfo(waiting={}, leased={}, limit={}, paused={}, rate_limited_for={rate})",
            g.waiting,
            g.leased,
            g.limit,
            if g.paused { "True" } else { "False" }
        ))
    }
}

/// The queue's stored configuration (``Queue.config``): defaults for its items that every
/// client reads from Redis. A field that is ``None`` is not stored: the protocol's default
/// applies.
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct QueueConfig {
    inner: leaseq::QueueConfig,
}

impl From<leaseq::QueueConfig> for QueueConfig {
    fn from(inner: leaseq::QueueConfig) -> QueueConfig {
        QueueConfig { inner }
    }
}

#[pymethods]
impl QueueConfig {
    /// Attempts before an item is dead (0: no limit).
    #[getter]
    fn max_attempts(&self) -> Option<u32> {
        self.inner.max_attempts
    }

    /// Retry delay after a failed attempt.
    #[getter]
    fn backoff(&self) -> Option<Backoff> {
        self.inner.backoff.map(|inner| Backoff { inner })
    }

    /// Priority of items added without one.
    #[getter]
    fn priority(&self) -> Option<i32> {
        self.inner.priority
    }

    /// Items not leased this long after they were added are dead.
    #[getter]
    fn expires_after<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_timedelta(py, self.inner.expires_after)
    }

    /// How long a result given to ``complete`` is kept.
    #[getter]
    fn keep_result_for<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_timedelta(py, self.inner.keep_result_for)
    }

    /// Dead letters kept at most.
    #[getter]
    fn dead_max_count(&self) -> Option<u64> {
        self.inner.dead_max_count
    }

    /// Dead letters older than this go.
    #[getter]
    fn dead_max_age<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_timedelta(py, self.inner.dead_max_age)
    }

    /// Whether the queue keeps per-minute counters (``Stats.minutes``, ``Stats.last_hour``).
    #[getter]
    fn stats(&self) -> Option<bool> {
        self.inner.stats
    }

    /// Whether every transition of an item is recorded in the queue's event stream
    /// (``Queue.events``).
    #[getter]
    fn events(&self) -> Option<bool> {
        self.inner.events
    }

    /// Entries the event stream keeps, about.
    #[getter]
    fn events_max_len(&self) -> Option<u64> {
        self.inner.events_max_len
    }

    /// How long the event stream keeps an entry, about.
    #[getter]
    fn events_max_age<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_timedelta(py, self.inner.events_max_age)
    }

    /// The most items the queue holds waiting or delayed; ``None``: no bound.
    #[getter]
    fn capacity(&self) -> Option<u64> {
        self.inner.capacity
    }

    /// At most ``max`` leases per ``per``, for every client; ``None``: no limit.
    #[getter]
    fn rate_limit(&self) -> Option<RateLimit> {
        self.inner.rate_limit.map(|inner| RateLimit { inner })
    }

    /// How many items of one group may be leased at once, for groups without a limit of their
    /// own (``Queue.set_group_limit``); ``None``: 1.
    #[getter]
    fn group_concurrency(&self) -> Option<u32> {
        self.inner.group_concurrency
    }

    /// At most ``max`` leases of each group per ``per``, every group in its own window, for
    /// every client; ``None``: no limit.
    #[getter]
    fn group_rate_limit(&self) -> Option<RateLimit> {
        self.inner.group_rate_limit.map(|inner| RateLimit { inner })
    }

    fn __repr__(&self) -> String {
        let c = &self.inner;
        let secs = |d: Option<std::time::Duration>| d.map(|d| d.as_secs_f64().to_string());
        let fields = [
            ("max_attempts", c.max_attempts.map(|v| v.to_string())),
            (
                "backoff",
                c.backoff.map(|inner| Backoff { inner }.__repr__()),
            ),
            ("priority", c.priority.map(|v| v.to_string())),
            ("expires_after", secs(c.expires_after)),
            ("keep_result_for", secs(c.keep_result_for)),
            ("dead_max_count", c.dead_max_count.map(|v| v.to_string())),
            ("dead_max_age", secs(c.dead_max_age)),
            (
                "stats",
                c.stats
                    .map(|on| if on { "True" } else { "False" }.to_owned()),
            ),
            ("capacity", c.capacity.map(|v| v.to_string())),
            (
                "rate_limit",
                c.rate_limit.map(|inner| RateLimit { inner }.__repr__()),
            ),
            (
                "group_concurrency",
                c.group_concurrency.map(|v| v.to_string()),
            ),
            (
                "group_rate_limit",
                c.group_rate_limit
                    .map(|inner| RateLimit { inner }.__repr__()),
            ),
        ];
        let set: Vec<String> = fields
            .into_iter()
            .filter_map(|(name, value)| value.map(|v| format!("{name}={v}")))
            .collect();
        format!("QueueConfig({})", set.join(", "))
    }
}

/// What ``fail`` did. ``name`` is ``"retrying"``, ``"dead"``, or, when the lease was no longer
/// this holder's and nothing changed, why (a ``RenewOutcome`` name: ``"expired"``, ``"taken"``,
/// ``"completed"``, ``"cancelled"``, ``"older_incarnation"``). ``str(outcome)`` is the name.
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct FailOutcome {
    inner: leaseq::FailOutcome,
}

impl From<leaseq::FailOutcome> for FailOutcome {
    fn from(inner: leaseq::FailOutcome) -> FailOutcome {
        FailOutcome { inner }
    }
}

#[pymethods]
impl FailOutcome {
    /// ``"retrying"``, ``"dead"``, or why the lease was not held.
    #[getter]
    fn name(&self) -> &'static str {
        match self.inner {
            leaseq::FailOutcome::Retrying(_) => "retrying",
            leaseq::FailOutcome::Dead => "dead",
            leaseq::FailOutcome::NotHeld(why) => why.as_str(),
            // A future outcome of the core.
            _ => "unknown",
        }
    }

    /// Whether the item will run again.
    #[getter]
    fn retrying(&self) -> bool {
        matches!(self.inner, leaseq::FailOutcome::Retrying(_))
    }

    /// Whether the item is dead now.
    #[getter]
    fn dead(&self) -> bool {
        matches!(self.inner, leaseq::FailOutcome::Dead)
    }

    /// When retrying: how long until the item is leasable again (a timedelta; zero: now).
    #[getter]
    fn retry_in<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner {
            leaseq::FailOutcome::Retrying(d) => time::timedelta(py, d).map(Some),
            _ => Ok(None),
        }
    }

    /// When the lease was not held (nothing changed): why, as a ``RenewOutcome``.
    #[getter]
    fn not_held<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner {
            leaseq::FailOutcome::NotHeld(why) => RenewName(why).into_pyobject(py).map(Some),
            _ => Ok(None),
        }
    }

    fn __str__(&self) -> &'static str {
        self.name()
    }

    fn __repr__(&self) -> String {
        match self.inner {
            leaseq::FailOutcome::Retrying(d) => {
                format!("FailOutcome('retrying', retry_in={}s)", d.as_secs_f64())
            }
            _ => format!("FailOutcome({:?})", self.name()),
        }
    }
}

/// What an item waits for and what waits for it (``Queue.dependencies``).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct Dependencies {
    inner: leaseq::Dependencies,
}

impl From<leaseq::Dependencies> for Dependencies {
    fn from(inner: leaseq::Dependencies) -> Dependencies {
        Dependencies { inner }
    }
}

#[pymethods]
impl Dependencies {
    /// The ids it was added to wait for, in order.
    #[getter]
    fn depends_on(&self) -> Vec<String> {
        self.inner.depends_on.clone()
    }

    /// ``"fail"`` or ``"run"``; ``None`` without dependencies.
    #[getter]
    fn on_dependency_failure(&self) -> Option<&'static str> {
        self.inner.on_dependency_failure.map(|p| p.as_str())
    }

    /// Those it still waits for (while it is blocked).
    #[getter]
    fn pending(&self) -> Vec<String> {
        self.inner.pending.clone()
    }

    /// How many blocked items wait for it.
    #[getter]
    fn dependants_count(&self) -> u64 {
        self.inner.dependants_count
    }

    /// Up to 100 of them.
    #[getter]
    fn dependants(&self) -> Vec<String> {
        self.inner.dependants.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Dependencies(depends_on={:?}, pending={:?}, dependants_count={})",
            self.inner.depends_on, self.inner.pending, self.inner.dependants_count
        )
    }
}
