//! The synchronous face: `leaseq.Client` and `leaseq.Queue`, over `leaseq::blocking`.
//!
//! Each call owns its arguments, then releases the GIL for the Redis round trip, so other
//! Python threads run meanwhile. The blocking facade reconnects by itself in a forked child.

use std::time::Duration;

use leaseq::{blocking, Wait};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::convert;
use crate::errors;
use crate::jobs::{
    Entry, FailOutcome, Found, GroupInfo, Job, JobResult, NameCounts, QueueConfig, RenewName,
    StateName, Stats,
};
use crate::types::{CleanReport, Item, NewLease};

/// The longest a blocking wait goes without the GIL before checking for signals, so that
/// Ctrl-C raises `KeyboardInterrupt` promptly.
pub(crate) const WAIT_SLICE: Duration = Duration::from_millis(500);

/// A connection to one Redis server (``Client(url)``) or a Redis Cluster
/// (``Client.cluster(urls)``), shared by its queues and safe to use from many threads.
///
/// URLs: ``redis://[user:pass@]host[:port][/db]``, ``rediss://...`` (TLS),
/// ``redis+unix:///path/to.sock``. A client used in a forked child reconnects by itself. Use it as
/// a context manager, or call ``close()``.
#[pyclass(module = "leaseq", frozen)]
pub struct Client {
    inner: blocking::Client,
}

impl From<blocking::Client> for Client {
    fn from(inner: blocking::Client) -> Client {
        Client { inner }
    }
}

#[pymethods]
impl Client {
    #[new]
    fn new(py: Python<'_>, url: &Bound<'_, PyAny>) -> PyResult<Self> {
        let url = convert::string(url, "url")?;
        py.detach(|| blocking::Client::connect(&url))
            .map(|inner| Client { inner })
            .map_err(|e| errors::to_py(py, e))
    }

    /// Connects to a Redis Cluster through one or more of its nodes' URLs. Queue prefixes must
    /// then carry a ``{hash tag}``.
    #[staticmethod]
    fn cluster(py: Python<'_>, urls: &Bound<'_, PyAny>) -> PyResult<Client> {
        let urls = convert::strings(urls, "urls")?;
        py.detach(|| blocking::Client::connect_cluster(&urls))
            .map(|inner| Client { inner })
            .map_err(|e| errors::to_py(py, e))
    }

    /// The queue whose keys live under ``prefix`` (validated here; nothing is sent).
    fn queue(&self, py: Python<'_>, prefix: &Bound<'_, PyAny>) -> PyResult<Queue> {
        let prefix = convert::string(prefix, "prefix")?;
        // After a fork this reconnects, so it runs without the GIL like any round trip.
        py.detach(|| self.inner.queue(&prefix))
            .map(|inner| Queue { inner })
            .map_err(|e| errors::to_py(py, e))
    }

    /// Creates (or opens) the partitioned queue ``base`` of ``partitions`` partitions (1 to 64;
    /// more than one need a ``{hash tag}`` in ``base``): a ``PartitionedQueue``. Idempotent for
    /// the same count; another count, or a plain queue at ``base``, is refused naming
    /// ``partitions``.
    fn create_partitioned(
        &self,
        py: Python<'_>,
        base: &Bound<'_, PyAny>,
        partitions: &Bound<'_, PyAny>,
    ) -> PyResult<crate::partitioned::PartitionedQueue> {
        crate::partitioned::PartitionedQueue::open(py, &self.inner, base, Some(partitions))
    }

    /// The partitioned queue ``base`` as stored (the plain queue at ``base`` as one partition
    /// when it is not partitioned): a ``PartitionedQueue``. One round trip.
    fn partitioned(
        &self,
        py: Python<'_>,
        base: &Bound<'_, PyAny>,
    ) -> PyResult<crate::partitioned::PartitionedQueue> {
        crate::partitioned::PartitionedQueue::open(py, &self.inner, base, None)
    }

    /// Closes the client: a ``lease`` waiting on any thread raises ``ClosedError`` at once, and
    /// so does every later call.
    fn close(&self, py: Python<'_>) {
        py.detach(|| self.inner.close());
    }

    /// Whether this client talks to a Redis Cluster.
    #[getter]
    fn is_cluster(&self) -> bool {
        self.inner.is_cluster()
    }

    /// Risks found in the server's configuration when connecting, e.g. a ``maxmemory-policy``
    /// that may evict queue keys.
    #[getter]
    fn warnings(&self, py: Python<'_>) -> Vec<String> {
        py.detach(|| self.inner.warnings())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc_info))]
    fn __exit__(&self, py: Python<'_>, _exc_info: &Bound<'_, PyTuple>) -> bool {
        self.close(py);
        false
    }
}

/// One queue: the keys under one prefix. Get it from ``Client.queue(prefix)``; safe to use from
/// many threads. Every method is one round trip to Redis (a waiting ``lease``, ``lease_batch`` or
/// ``wait_result`` waits server-side), during which other Python threads run.
#[pyclass(module = "leaseq", frozen)]
pub struct Queue {
    inner: blocking::Queue,
}

impl From<blocking::Queue> for Queue {
    fn from(inner: blocking::Queue) -> Queue {
        Queue { inner }
    }
}

impl Queue {
    /// The core's blocking queue.
    pub(crate) fn blocking(&self) -> &blocking::Queue {
        &self.inner
    }

    /// Runs `call` on the blocking queue without the GIL.
    fn call<T: Send>(
        &self,
        py: Python<'_>,
        call: impl FnOnce(&blocking::Queue) -> leaseq::Result<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| call(&self.inner))
            .map_err(|e| errors::to_py(py, e))
    }
}

#[pymethods]
impl Queue {
    /// The prefix of this queue's keys.
    #[getter]
    fn prefix(&self) -> &str {
        self.inner.prefix()
    }

    /// Adds ``item`` unless an item with its id exists (waiting, delayed, leased or dead);
    /// returns whether it was added. The item's options (``Item(data, delay=...)``) are checked
    /// first: nothing is written when one is refused.
    ///
    /// A bounded queue (``set_config(capacity=...)``) that is full raises ``QueueFullError``
    /// and adds nothing; with ``timeout`` (seconds or a timedelta, ``leaseq.FOREVER``) the add
    /// waits up to that long for room first, without the GIL (Ctrl-C interrupts it).
    #[pyo3(signature = (item, timeout = None))]
    fn add(
        &self,
        py: Python<'_>,
        item: &Bound<'_, PyAny>,
        timeout: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let item = convert::item(item, "item")?;
        let item: &Item = item.get();
        let wait = convert::wait(timeout, None)?;
        if wait == Wait::No {
            return self.call(py, |q| q.add_wait(&item.inner, wait));
        }
        // One wait without the GIL, Ctrl-C checked every WAIT_SLICE (as lease).
        py.detach(|| {
            self.inner
                .add_wait_interruptible(&item.inner, wait, WAIT_SLICE, || {
                    Python::attach(|py| py.check_signals())
                })
        })?
        .map_err(|e| errors::to_py(py, e))
    }

    /// Adds ``item`` without checking whether its id exists: for fresh ids (the random UUID of
    /// ``Item(data)`` is). An existing id would be overwritten and queued twice.
    fn add_unique(&self, py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<()> {
        let item = convert::item(item, "item")?;
        let item: &Item = item.get();
        self.call(py, |q| q.add_unique(&item.inner))
    }

    /// Adds every item whose id does not exist yet, each with its own options, in one round
    /// trip; returns how many were added. A bounded queue takes the batch whole or not at all:
    /// ``QueueFullError``, or with ``timeout`` a wait for room for all of it, as ``add``.
    #[pyo3(signature = (items, timeout = None))]
    fn add_batch(
        &self,
        py: Python<'_>,
        items: &Bound<'_, PyAny>,
        timeout: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let items = convert::items(items, "items")?;
        let wait = convert::wait(timeout, None)?;
        if wait == Wait::No {
            return self.call(py, |q| q.add_batch_wait(&items, wait));
        }
        // One wait without the GIL, Ctrl-C checked every WAIT_SLICE (as lease).
        py.detach(|| {
            self.inner
                .add_batch_wait_interruptible(&items, wait, WAIT_SLICE, || {
                    Python::attach(|py| py.check_signals())
                })
        })?
        .map_err(|e| errors::to_py(py, e))
    }

    /// Adds ``parent`` and its ``children`` (``Item``s, or ``Flow``s with children of their own;
    /// at most 1000 items in all) in one script call: the children first, then the parent,
    /// blocked until every child completed. Returns how many items were added.
    fn add_flow(
        &self,
        py: Python<'_>,
        parent: &Bound<'_, PyAny>,
        children: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let parent = convert::item(parent, "parent")?.get().inner.clone();
        let children = crate::types::flows(children, "children")?;
        self.call(py, |q| q.add_flow(&parent, &children))
    }

    /// What item ``id`` waits for and what waits for it (a ``Dependencies``).
    fn dependencies(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
    ) -> PyResult<crate::jobs::Dependencies> {
        let id = convert::id(id, "id")?;
        self.call(py, |q| q.dependencies(&id)).map(Into::into)
    }

    /// The kept results of the items ``id`` was added to wait for, in order: a list of
    /// ``(dependency id, result bytes or None)``. A flow's parent reads its children's so.
    fn dependency_results(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<(String, Option<Py<PyBytes>>)>> {
        let id = convert::id(id, "id")?;
        let results = self.call(py, |q| q.dependency_results(&id))?;
        Ok(results
            .into_iter()
            .map(|(dep, r)| (dep, r.map(|r| PyBytes::new(py, &r).unbind())))
            .collect())
    }

    /// Leases the next item (highest priority first, FIFO within one) for ``ttl`` (seconds or a
    /// timedelta; ``None``: ``leaseq.DEFAULT_TTL``), or returns ``None``.
    ///
    /// By default it does not wait. ``timeout=<seconds or timedelta>`` waits server-side up to
    /// that long for an item, ``timeout=leaseq.FOREVER`` until one comes; a wait can be
    /// interrupted with Ctrl-C, or by ``Client.close()`` from another thread (``ClosedError``).
    /// ``block`` is the older spelling: ``block=True`` without a timeout waits forever,
    /// ``block=False`` never waits.
    #[pyo3(signature = (ttl = None, timeout = None, *, block = None))]
    fn lease(
        &self,
        py: Python<'_>,
        ttl: Option<&Bound<'_, PyAny>>,
        timeout: Option<&Bound<'_, PyAny>>,
        block: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<NewLease>> {
        let ttl = convert::ttl(ttl)?;
        let wait = convert::wait(timeout, block)?;
        if wait == Wait::No {
            return self.call(py, |q| q.lease(ttl, wait).map(|l| l.map(NewLease)));
        }
        // One server-side wait without the GIL; every WAIT_SLICE this thread takes the GIL
        // back just long enough to look for a signal, so Ctrl-C interrupts the wait.
        let result = py.detach(|| {
            self.inner.lease_interruptible(ttl, wait, WAIT_SLICE, || {
                Python::attach(|py| py.check_signals())
            })
        })?;
        result
            .map(|lease| lease.map(NewLease))
            .map_err(|e| errors::to_py(py, e))
    }

    /// Leases up to ``n`` items (1 to 1000) in one round trip, in the order ``lease`` would;
    /// returns a list (empty when none). Waits as ``lease`` does while none is there, and
    /// returns as soon as at least one is leased.
    #[pyo3(signature = (n, ttl = None, timeout = None))]
    fn lease_batch(
        &self,
        py: Python<'_>,
        n: &Bound<'_, PyAny>,
        ttl: Option<&Bound<'_, PyAny>>,
        timeout: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<NewLease>> {
        let n: usize = convert::integer(n, "n")?;
        let ttl = convert::ttl(ttl)?;
        let wait = convert::wait(timeout, None)?;
        let leases = if wait == Wait::No {
            self.call(py, |q| q.lease_batch(n, ttl, wait))?
        } else {
            // One server-side wait without the GIL, Ctrl-C checked every WAIT_SLICE (as lease).
            py.detach(|| {
                self.inner
                    .lease_batch_interruptible(n, ttl, wait, WAIT_SLICE, || {
                        Python::attach(|py| py.check_signals())
                    })
            })?
            .map_err(|e| errors::to_py(py, e))?
        };
        Ok(leases.into_iter().map(NewLease).collect())
    }

    /// Completes the leased item. Returns ``True`` for exactly one caller per item: the first to
    /// complete it (even with an expired lease). With ``result`` (bytes or str) the result is
    /// kept for ``keep_result_for`` (seconds or timedelta; ``None``: the item's, else the
    /// queue's setting, else one day), for ``result`` and ``wait_result``.
    #[pyo3(signature = (lease, result = None, keep_result_for = None))]
    fn complete(
        &self,
        py: Python<'_>,
        lease: &Bound<'_, PyAny>,
        result: Option<&Bound<'_, PyAny>>,
        keep_result_for: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let lease = convert::lease(lease, "lease")?;
        let lease = &lease.get().inner;
        let result = convert::opt_data(result, "result")?;
        let keep = convert::opt_seconds(keep_result_for, "keep_result_for")?;
        // The core refuses `keep_result_for` without a result.
        self.call(py, |q| {
            q.complete_with_result(lease, result.as_deref(), keep)
        })
    }

    /// Completes ``lease`` and leases the next item (without waiting) in one round trip.
    /// Returns ``(completed, next_lease_or_None)``. ``result`` and ``keep_result_for`` keep a
    /// result as ``complete`` does.
    #[pyo3(signature = (lease, ttl = None, result = None, keep_result_for = None))]
    fn complete_and_lease(
        &self,
        py: Python<'_>,
        lease: &Bound<'_, PyAny>,
        ttl: Option<&Bound<'_, PyAny>>,
        result: Option<&Bound<'_, PyAny>>,
        keep_result_for: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(bool, Option<NewLease>)> {
        let lease = convert::lease(lease, "lease")?;
        let lease = &lease.get().inner;
        let ttl = convert::ttl(ttl)?;
        let result = convert::opt_data(result, "result")?;
        let keep = convert::opt_seconds(keep_result_for, "keep_result_for")?;
        let (done, next) = self.call(py, |q| {
            q.complete_and_lease_with_result(lease, result.as_deref(), keep, ttl)
        })?;
        Ok((done, next.map(NewLease)))
    }

    /// Extends the lease to ``ttl`` from now while it is still this holder's. Returns ``False``
    /// when it expired, another worker took the item, or the item is complete, cancelled or
    /// added anew; ``renew_outcome`` says which.
    #[pyo3(signature = (lease, ttl = None))]
    fn renew(
        &self,
        py: Python<'_>,
        lease: &Bound<'_, PyAny>,
        ttl: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let lease = convert::lease(lease, "lease")?;
        let lease = &lease.get().inner;
        let ttl = convert::ttl(ttl)?;
        self.call(py, |q| q.renew(lease, ttl))
    }

    /// Like ``renew``, returning a ``RenewOutcome``: ``renewed``, or why not (``expired``,
    /// ``taken``, ``completed``, ``cancelled``, ``older_incarnation``).
    #[pyo3(signature = (lease, ttl = None))]
    fn renew_outcome(
        &self,
        py: Python<'_>,
        lease: &Bound<'_, PyAny>,
        ttl: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<RenewName> {
        let lease = convert::lease(lease, "lease")?;
        let lease = &lease.get().inner;
        let ttl = convert::ttl(ttl)?;
        self.call(py, |q| q.renew_outcome(lease, ttl))
            .map(RenewName)
    }

    /// Records a failed attempt. ``error`` is a message, or an exception (its ``str()`` is the
    /// message and its class name the ``error_type``, unless given). ``retry=True`` (the
    /// default) runs the item again after its backoff while it has attempts left, else it is
    /// dead; ``retry=<seconds or timedelta>`` after that delay instead; ``retry=False`` makes it
    /// dead now. ``trace`` (a str, at most 16 KiB kept) is kept with the item and shown by
    /// ``get``; left out, an exception's traceback is, when it was raised. Returns a
    /// ``FailOutcome``; only the live holder can fail an item.
    #[pyo3(
        signature = (lease, error, error_type = None, retry = None, trace = None),
        text_signature = "($self, lease, error, error_type=None, retry=True, trace=None)"
    )]
    fn fail(
        &self,
        py: Python<'_>,
        lease: &Bound<'_, PyAny>,
        error: &Bound<'_, PyAny>,
        error_type: Option<&Bound<'_, PyAny>>,
        retry: Option<&Bound<'_, PyAny>>,
        trace: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<FailOutcome> {
        let lease = convert::lease(lease, "lease")?;
        let lease = &lease.get().inner;
        let (message, kind, trace) = convert::failure(error, error_type, trace)?;
        let retry = convert::retry(retry)?;
        self.call(py, |q| {
            q.fail_with_trace(lease, &message, &kind, retry, trace.as_deref())
        })
        .map(FailOutcome::from)
    }

    /// Hands the item back without counting a failure: it waits again at once, or after
    /// ``delay`` (seconds or timedelta). Only the live holder can; returns whether it did.
    #[pyo3(signature = (lease, delay = None))]
    fn release(
        &self,
        py: Python<'_>,
        lease: &Bound<'_, PyAny>,
        delay: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let lease = convert::lease(lease, "lease")?;
        let lease = &lease.get().inner;
        let delay = convert::opt_seconds(delay, "delay")?;
        self.call(py, |q| q.release(lease, delay))
    }

    /// Stores a small value (bytes or str, at most 64 KiB) on the leased item, shown by
    /// ``get``. Only the live holder can; returns whether it did.
    fn progress(
        &self,
        py: Python<'_>,
        lease: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let lease = convert::lease(lease, "lease")?;
        let lease = &lease.get().inner;
        let value = convert::data(value, "value")?;
        self.call(py, |q| q.progress(lease, &value))
    }

    /// A lease rebuilt from parts kept elsewhere (e.g. across a process boundary): the id, the
    /// token, the incarnation and the attempt number. Nothing is sent.
    fn lease_from_parts(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
        token: &Bound<'_, PyAny>,
        incarnation: &Bound<'_, PyAny>,
        attempt: &Bound<'_, PyAny>,
    ) -> PyResult<NewLease> {
        let id = convert::string(id, "id")?;
        let token = convert::string(token, "token")?;
        let incarnation = convert::string(incarnation, "incarnation")?;
        let attempt: u64 = convert::integer(attempt, "attempt")?;
        self.call(py, |q| {
            q.lease_from_parts(&id, &token, &incarnation, attempt)
        })
        .map(NewLease)
    }

    /// Completes many leases (at most 1000) in one round trip, each as ``complete`` would;
    /// returns, in order, whether each call completed its item. Each completion is a ``Lease``
    /// (no result kept), or a ``leaseq.Completion(lease, result, keep_result_for)`` (any tuple
    /// of those fields, the last ones optional) whose fields mean what ``complete``'s arguments
    /// do. Every completion is checked before anything is sent.
    fn complete_batch(
        &self,
        py: Python<'_>,
        completions: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<bool>> {
        let owned = convert::completions(completions, "completions")?;
        self.call(py, |q| {
            let list: Vec<_> = owned.iter().map(convert::borrow_completion).collect();
            q.complete_batch(&list)
        })
    }

    /// A busy worker's whole step in one round trip: completes ``completions`` (as
    /// ``complete_batch`` does) and leases up to ``n`` more items (0 to 1000) for ``ttl``,
    /// without waiting. Returns ``(completed, leases)``: whether each completion completed its
    /// item, in order, and the new leases (a list, empty when nothing was waiting).
    #[pyo3(signature = (completions, n, ttl = None))]
    fn complete_and_lease_batch(
        &self,
        py: Python<'_>,
        completions: &Bound<'_, PyAny>,
        n: &Bound<'_, PyAny>,
        ttl: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(Vec<bool>, Vec<NewLease>)> {
        let owned = convert::completions(completions, "completions")?;
        let n: usize = convert::integer(n, "n")?;
        let ttl = convert::ttl(ttl)?;
        let (done, leases) = self.call(py, |q| {
            let list: Vec<_> = owned.iter().map(convert::borrow_completion).collect();
            q.complete_and_lease_batch(&list, n, ttl)
        })?;
        Ok((done, leases.into_iter().map(NewLease).collect()))
    }

    /// Extends many leases (at most 1000, each a ``Lease``) to ``ttl`` from now in one round
    /// trip; returns each one's ``RenewOutcome``, in order, as ``renew_outcome`` would.
    #[pyo3(signature = (leases, ttl = None))]
    fn renew_batch(
        &self,
        py: Python<'_>,
        leases: &Bound<'_, PyAny>,
        ttl: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<RenewName>> {
        let leases = convert::leases(leases, "leases")?;
        let ttl = convert::ttl(ttl)?;
        let outcomes = self.call(py, |q| {
            let refs: Vec<&leaseq::Lease> = leases.iter().collect();
            q.renew_batch(&refs, ttl)
        })?;
        Ok(outcomes.into_iter().map(RenewName).collect())
    }

    /// Records many failed attempts (at most 1000) in one round trip, each as ``fail`` would;
    /// returns their ``FailOutcome``s in order. Each failure is a ``leaseq.Failure(lease,
    /// error, error_type, retry, trace)`` (any tuple of those fields, the last three optional)
    /// whose fields mean what ``fail``'s arguments do. Every failure is checked
    /// before anything is sent.
    fn fail_batch(
        &self,
        py: Python<'_>,
        failures: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<FailOutcome>> {
        let owned = convert::failures(failures, "failures")?;
        let outcomes = self.call(py, |q| {
            q.fail_batch_with_traces(&convert::failure_refs(&owned))
        })?;
        Ok(outcomes.into_iter().map(FailOutcome::from).collect())
    }

    /// The result kept for item ``id`` (``bytes`` or ``str``; a ``JobResult``), or ``None``.
    fn result(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Option<JobResult>> {
        let id = convert::id(id, "id")?;
        self.call(py, |q| q.result(&id))
            .map(|r| r.map(JobResult::from))
    }

    /// Waits server-side for item ``id``'s result (``id`` is ``bytes`` or ``str``): up to
    /// ``timeout`` (seconds or timedelta; ``0`` only reads it), or until it comes with
    /// ``timeout=leaseq.FOREVER``. Returns ``None`` when the timeout passes first. A job that
    /// dies raises ``JobDeadError`` (why it died and its last error), within a second: no
    /// result will come unless it is requeued. Other threads run meanwhile, Ctrl-C interrupts
    /// it, and so does ``Client.close()`` (``ClosedError``).
    fn wait_result(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
        timeout: &Bound<'_, PyAny>,
    ) -> PyResult<Option<JobResult>> {
        let id = convert::id(id, "id")?;
        let wait = convert::required_wait(timeout)?;
        // One server-side wait without the GIL, Ctrl-C checked every WAIT_SLICE (as lease).
        py.detach(|| {
            self.inner
                .wait_result_interruptible(&id, wait, WAIT_SLICE, || {
                    Python::attach(|py| py.check_signals())
                })
        })?
        .map(|r| r.map(JobResult::from))
        .map_err(|e| errors::to_py(py, e))
    }

    /// Everything known about item ``id`` (``bytes`` or ``str``; a ``Job``), or ``None`` when
    /// there is no such item and no kept result.
    fn get(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Option<Job>> {
        let id = convert::id(id, "id")?;
        self.call(py, |q| q.get(&id)).map(|j| j.map(Job::from))
    }

    /// A page of the items in ``state`` (a ``State`` or its name): ``count`` (1 to 1000)
    /// ``Entry``s from position ``start``: waiting in lease order, delayed by due time, leased
    /// by lease expiry, dead oldest first, done (completed with their result kept) newest first
    /// (a done item whose result expired, and a cancelled waiting item's id, are skipped, their
    /// positions counted, so a page may be short and more may follow it; items waiting in
    /// groups are not listed).
    #[pyo3(
        signature = (state, start = None, count = None),
        text_signature = "($self, state, start=0, count=100)"
    )]
    fn list(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        start: Option<&Bound<'_, PyAny>>,
        count: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Entry>> {
        let state = convert::state(py, state)?;
        // The operation table's defaults (leaseq::operations); the core's method takes both.
        let start: usize = convert::opt_integer(start, "start")?.unwrap_or(0);
        let count: usize = convert::opt_integer(count, "count")?.unwrap_or(100);
        self.call(py, |q| q.list(state, start, count))
            .map(|entries| entries.into_iter().map(Entry::from).collect())
    }

    /// The items of ``state`` whose name is ``name`` and whose last error's type is
    /// ``error_type`` (``None``: any), looking at most at 1000 positions from ``start`` and
    /// returning at most ``count`` (1 to 1000) matches: a ``Found``, whose ``next`` is where
    /// the next call goes on (``None`` at the end). Bounded whatever the state's size.
    #[pyo3(
        signature = (state, name = None, error_type = None, start = None, count = None),
        text_signature = "($self, state, name=None, error_type=None, start=0, count=100)"
    )]
    fn find(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        name: Option<&Bound<'_, PyAny>>,
        error_type: Option<&Bound<'_, PyAny>>,
        start: Option<&Bound<'_, PyAny>>,
        count: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Found> {
        let state = convert::state(py, state)?;
        let name = opt_text(name, "name")?;
        let error_type = opt_text(error_type, "error_type")?;
        let start: usize = convert::opt_integer(start, "start")?.unwrap_or(0);
        let count: usize = convert::opt_integer(count, "count")?.unwrap_or(100);
        self.call(py, |q| {
            q.find(state, name.as_deref(), error_type.as_deref(), start, count)
        })
        .map(Found::from)
    }

    /// Makes the delayed item ``id`` wait now, at its priority (or in its group), as if it were
    /// due. Returns whether it was delayed.
    fn promote(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<bool> {
        let id = convert::id(id, "id")?;
        self.call(py, |q| q.promote(&id))
    }

    /// Stores the recurring job ``name`` (a ``Schedule``), new or replacing the one of that
    /// name: a change never fires a tick twice nor skips one. Returns whether it is new. The
    /// queue's runners fire it (in any language), or ``fire_due_schedules``. At most 10,000 a
    /// queue.
    fn upsert_schedule(
        &self,
        py: Python<'_>,
        name: &Bound<'_, PyAny>,
        schedule: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let name = convert::string(name, "name")?;
        let schedule = crate::schedules::schedule(schedule)?;
        self.call(py, |q| q.upsert_schedule(&name, &schedule))
    }

    /// Removes the recurring job ``name`` (the items it added stay); returns whether there was
    /// one.
    fn remove_schedule(&self, py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<bool> {
        let name = convert::string(name, "name")?;
        self.call(py, |q| q.remove_schedule(&name))
    }

    /// The recurring job ``name`` with its next fire time (a ``ScheduleInfo``), or ``None``.
    fn get_schedule(
        &self,
        py: Python<'_>,
        name: &Bound<'_, PyAny>,
    ) -> PyResult<Option<crate::schedules::ScheduleInfo>> {
        let name = convert::string(name, "name")?;
        self.call(py, |q| q.get_schedule(&name))
            .map(|s| s.map(crate::schedules::ScheduleInfo::from))
    }

    /// ``count`` (1 to 1000) recurring jobs from position ``start``, by next fire time: a
    /// ``SchedulePage`` (its ``schedules``, the queue's ``total``, the server's ``now``).
    #[pyo3(
        signature = (start = None, count = None),
        text_signature = "($self, start=0, count=100)"
    )]
    fn schedules(
        &self,
        py: Python<'_>,
        start: Option<&Bound<'_, PyAny>>,
        count: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<crate::schedules::SchedulePage> {
        let start: usize = convert::opt_integer(start, "start")?.unwrap_or(0);
        let count: usize = convert::opt_integer(count, "count")?.unwrap_or(100);
        self.call(py, |q| q.schedules(start, count))
            .map(crate::schedules::SchedulePage::from)
    }

    /// Fires the due recurring jobs once (a ``FireReport``), as a runner's housekeeping does:
    /// for a process without a runner (a cron job). Safe from any number of processes at once.
    fn fire_due_schedules(&self, py: Python<'_>) -> PyResult<crate::schedules::FireReport> {
        self.call(py, |q| q.fire_due_schedules())
            .map(crate::schedules::FireReport::from)
    }

    /// How many items are in ``state`` (done: the kept results, expired ones included until a
    /// later complete drops them).
    fn count(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<u64> {
        let state = convert::state(py, state)?;
        self.call(py, |q| q.count(state))
    }

    /// Counts per state, the age of the oldest waiting item, and per-minute counters for the
    /// last hour (a ``Stats``); the counters are ``None`` while the queue's are off (the
    /// default; ``set_config(stats=True)`` turns them on).
    fn stats(&self, py: Python<'_>) -> PyResult<Stats> {
        self.call(py, |q| q.stats()).map(Stats::from)
    }

    /// For each item name (``Item(..., name=...)``) met in the last 60 minutes, what its jobs
    /// did: a list of ``NameCounts`` (completed, failed attempts, dead), sorted by name. ``None``
    /// while the queue's counters are off (the default; ``set_config(stats=True)`` turns them
    /// on): nothing is counted then. One round trip.
    fn counts_by_name(&self, py: Python<'_>) -> PyResult<Option<Vec<NameCounts>>> {
        self.call(py, |q| q.counts_by_name())
            .map(|counts| counts.map(|c| c.into_iter().map(NameCounts::from).collect()))
    }

    /// Pauses the queue: nothing is leased from it (by any client, in any language) until
    /// ``resume``; adds, completes and renews go on. The pause is stored in Redis. Returns
    /// whether the queue was running.
    fn pause(&self, py: Python<'_>) -> PyResult<bool> {
        self.call(py, |q| q.pause())
    }

    /// Resumes a paused queue: waiting leases and runners wake at once. Returns whether the
    /// queue was paused.
    fn resume(&self, py: Python<'_>) -> PyResult<bool> {
        self.call(py, |q| q.resume())
    }

    /// Whether the queue is paused (also ``Stats.paused``).
    fn is_paused(&self, py: Python<'_>) -> PyResult<bool> {
        self.call(py, |q| q.is_paused())
    }

    /// Whether the queue exists: whether any of its fixed keys does (items, configuration, pause,
    /// runners, ...), in one round trip. ``False`` for a mistyped name, where ``count`` and
    /// ``stats`` answer zeros as for an empty queue.
    fn exists(&self, py: Python<'_>) -> PyResult<bool> {
        self.call(py, |q| q.exists())
    }

    /// Pauses one group (``Item(..., group=...)``): its items are not leased, by any client,
    /// until ``resume_group``; the rest of the queue goes on. Returns whether it was running.
    fn pause_group(&self, py: Python<'_>, group: &Bound<'_, PyAny>) -> PyResult<bool> {
        let group = convert::string(group, "group")?;
        self.call(py, |q| q.pause_group(&group))
    }

    /// Resumes a paused group. Returns whether it was paused.
    fn resume_group(&self, py: Python<'_>, group: &Bound<'_, PyAny>) -> PyResult<bool> {
        let group = convert::string(group, "group")?;
        self.call(py, |q| q.resume_group(&group))
    }

    /// Sets how many items of ``group`` may be leased at once (1 to 1000), for every client;
    /// ``None`` removes the group's own limit, so that the queue's ``group_concurrency``
    /// applies (default 1).
    #[pyo3(signature = (group, limit = None))]
    fn set_group_limit(
        &self,
        py: Python<'_>,
        group: &Bound<'_, PyAny>,
        limit: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let group = convert::string(group, "group")?;
        let limit = convert::opt_integer(limit, "limit")?;
        self.call(py, |q| q.set_group_limit(&group, limit))
    }

    /// One group at a glance (a ``GroupInfo``): its waiting and leased items, its limit,
    /// whether it is paused, and how long it waits for its rate limit's window.
    fn group(&self, py: Python<'_>, group: &Bound<'_, PyAny>) -> PyResult<GroupInfo> {
        let group = convert::string(group, "group")?;
        self.call(py, |q| q.group(&group)).map(GroupInfo::from)
    }

    /// Holds every client's leases of the queue off for ``duration`` (seconds or a timedelta):
    /// a handler was rate limited (an API answered 429). Leases get nothing until then; adds,
    /// completes and renews go on. A longer hold already in place is kept. Returns how long
    /// leases are held off (a timedelta); also ``Stats.rate_limited_for``.
    fn rate_limit<'py>(
        &self,
        py: Python<'py>,
        duration: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let duration = convert::seconds(duration, "duration")?;
        let held = self.call(py, |q| q.rate_limit(duration))?;
        crate::time::timedelta(py, held)
    }

    /// Holds one group's leases off for ``duration`` (seconds or a timedelta): a handler
    /// working for that group (a customer, a tenant) was rate limited by an API that limits per
    /// key. The queue's other groups and ungrouped items go on; the group's items wait, in
    /// their order, until the hold ends. A longer hold already in place is kept. Returns how
    /// long the group is held off (a timedelta); also ``GroupInfo.rate_limited_for``.
    fn rate_limit_group<'py>(
        &self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
        duration: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let group = convert::string(group, "group")?;
        let duration = convert::seconds(duration, "duration")?;
        let held = self.call(py, |q| q.rate_limit_group(&group, duration))?;
        crate::time::timedelta(py, held)
    }

    /// Cancels item ``id``: a waiting, delayed or dead item is removed; a leased one is marked,
    /// so that its holder's next call returns false and removes it. Returns the ``State`` it was
    /// in, or ``None`` when there was no item. ``id`` is ``bytes`` or ``str``.
    fn cancel(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Option<StateName>> {
        let id = convert::id(id, "id")?;
        self.call(py, |q| q.cancel(&id)).map(|s| s.map(StateName))
    }

    /// Puts these dead items (at most 1000 ids, each ``bytes`` or ``str``) back to waiting,
    /// attempts reset; returns how many were requeued (ids that are not dead are skipped).
    fn dead_requeue(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<u64> {
        let ids = convert::ids(ids, "ids")?;
        self.call(py, |q| q.dead_requeue(&ids))
    }

    /// Like ``dead_requeue``, returning for each id, in order, whether it was requeued (``False``:
    /// not a dead letter: no such item, or one in another state; an id given twice is ``False``
    /// the second time).
    fn dead_requeue_each(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
        let ids = convert::ids(ids, "ids")?;
        self.call(py, |q| q.dead_requeue_each(&ids))
    }

    /// Requeues the ``n`` oldest dead items (``None``: all); returns how many.
    #[pyo3(signature = (n = None))]
    fn dead_requeue_oldest(&self, py: Python<'_>, n: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
        let n = convert::opt_integer(n, "n")?;
        self.call(py, |q| q.dead_requeue_oldest(n))
    }

    /// Deletes the ``n`` oldest dead items (``None``: all); returns how many.
    #[pyo3(signature = (n = None))]
    fn dead_purge(&self, py: Python<'_>, n: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
        let n = convert::opt_integer(n, "n")?;
        self.call(py, |q| q.dead_purge(n))
    }

    /// The queue's stored configuration (a ``QueueConfig``; fields not stored are ``None``).
    fn config(&self, py: Python<'_>) -> PyResult<QueueConfig> {
        self.call(py, |q| q.config()).map(QueueConfig::from)
    }

    /// Stores the given fields of the queue's configuration, which every client reads (the
    /// others keep their stored value); all are checked before anything is written.
    /// ``stats=True`` turns on the per-minute counters that ``stats()`` reports;
    /// ``capacity=<n>`` bounds the queue to ``n`` waiting and delayed items (refused when it
    /// holds more now); ``rate_limit=RateLimit(max, per)`` allows at most ``max`` leases per
    /// ``per`` (seconds or a timedelta), counted for every client; ``group_concurrency=<n>``
    /// lets ``n`` items of a group (``Item(..., group=...)``) be leased at once, for groups
    /// without a limit of their own (default 1); ``group_rate_limit=RateLimit(max, per)``
    /// allows at most ``max`` leases of each group per ``per``, every group in its own window.
    /// ``events=True`` records every transition of an item in the queue's event stream
    /// (``events()``), kept about ``events_max_len`` entries and ``events_max_age``.
    #[pyo3(signature = (
        *, max_attempts = None, backoff = None, priority = None, expires_after = None,
        keep_result_for = None, dead_max_count = None, dead_max_age = None, stats = None,
        capacity = None, rate_limit = None, group_concurrency = None, group_rate_limit = None,
        events = None, events_max_len = None, events_max_age = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn set_config(
        &self,
        py: Python<'_>,
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
        events: Option<&Bound<'_, PyAny>>,
        events_max_len: Option<&Bound<'_, PyAny>>,
        events_max_age: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let config = convert::config(
            max_attempts,
            backoff,
            priority,
            expires_after,
            keep_result_for,
            dead_max_count,
            dead_max_age,
            stats,
            capacity,
            rate_limit,
            group_concurrency,
            group_rate_limit,
        )?;
        let config = crate::events::config(config, events, events_max_len, events_max_age)?;
        self.call(py, |q| q.set_config(&config))
    }

    /// One page of the queue's event stream, without waiting: at most ``count`` (1 to 1000)
    /// entries after the entry id ``after`` (``None``: none, only where the stream ends now;
    /// ``"0-0"``: the oldest kept), oldest first, as an ``EventsPage``. A ``gap`` entry comes
    /// first when entries after ``after`` were trimmed away. A malformed ``after``, or one the
    /// stream never gave, raises ``InvalidArgumentError``.
    #[pyo3(
        signature = (after = None, count = None),
        text_signature = "($self, after=None, count=100)"
    )]
    fn read_events(
        &self,
        py: Python<'_>,
        after: Option<&Bound<'_, PyAny>>,
        count: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<crate::events::EventsPage> {
        let after = crate::events::after(after)?;
        let count = convert::opt_integer(count, "count")?.unwrap_or(100);
        self.call(py, |q| q.read_events(after.as_deref(), count))
            .map(crate::events::EventsPage::from)
    }

    /// Follows the queue's event stream: ``for event in queue.events(after=...)`` yields each
    /// ``QueueEvent`` in order, waiting for the next (server-side, without the GIL; Ctrl-C
    /// interrupts it). From now, or after the entry id ``after`` (a process that restarts
    /// resumes after the last one it saw, missing nothing still in the stream). It rides
    /// through lost connections and restarts. Events are recorded only while they are on
    /// (``set_config(events=True)``).
    #[pyo3(signature = (after = None))]
    fn events(
        &self,
        py: Python<'_>,
        after: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<crate::events::Events> {
        let from = crate::events::from(after)?;
        self.call(py, |q| q.events(from))
            .map(crate::events::Events::new)
    }

    /// Removes the stored configuration: the protocol's defaults apply again.
    fn reset_config(&self, py: Python<'_>) -> PyResult<()> {
        self.call(py, |q| q.reset_config())
    }

    /// Moves due delayed items to waiting, recovers expired leases, trims dead letters, and
    /// re-queues items redis-work-queue clients left in processing. Leases do the first two
    /// themselves; run it where nobody leases, about once per lease TTL.
    fn light_clean(&self, py: Python<'_>) -> PyResult<CleanReport> {
        self.call(py, |q| q.light_clean()).map(CleanReport::from)
    }

    /// Everything ``light_clean`` does, and also finds items on no list at all (left by a crashed
    /// redis-work-queue client). Walks every key of the queue: run it rarely (start-up, hourly).
    fn deep_clean(&self, py: Python<'_>) -> PyResult<CleanReport> {
        self.call(py, |q| q.deep_clean()).map(CleanReport::from)
    }

    /// How many items wait, at every priority: the same as ``count("waiting")``.
    fn queue_len(&self, py: Python<'_>) -> PyResult<u64> {
        self.call(py, |q| q.queue_len())
    }

    /// How many items are being processed: leased by leaseq (``count("leased")``) plus those
    /// in redis-work-queue's processing list (leased by its clients, or left by crashed ones
    /// until a light clean).
    fn processing_len(&self, py: Python<'_>) -> PyResult<u64> {
        self.call(py, |q| q.processing_len())
    }

    fn __repr__(&self) -> String {
        format!("Queue(prefix={:?})", self.inner.prefix())
    }
}

/// An optional text argument: `None` or a `str`.
pub(crate) fn opt_text(obj: Option<&Bound<'_, PyAny>>, argument: &str) -> PyResult<Option<String>> {
    match obj {
        Some(o) if !o.is_none() => Ok(Some(convert::string(o, argument)?)),
        _ => Ok(None),
    }
}
