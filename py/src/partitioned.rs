//! Partitioned queues (spec/PROTOCOL.md 5.25) in Python: `PartitionedQueue` over
//! `leaseq::blocking::Partitioned`, and `PartitionedStats`. A thin skin: each call converts its
//! arguments and runs the core's call without the GIL.

use std::sync::Arc;

use leaseq::{blocking, Wait};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::aio::{AsyncQueue, Lazy};
use crate::convert;
use crate::errors;
use crate::jobs::{
    Entry, FailOutcome, Found, GroupInfo, Job, JobResult, NameCounts, QueueConfig, RenewName,
    StateName, Stats,
};
use crate::sync::{Queue, WAIT_SLICE};
use crate::types::{CleanReport, NewLease};

/// A partitioned queue's figures (``PartitionedQueue.stats``): ``total``, the logical queue's
/// (counts summed; paused when every partition is), and ``partitions``, each partition's own.
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct PartitionedStats {
    inner: leaseq::PartitionedStats,
}

#[pymethods]
impl PartitionedStats {
    /// The logical queue's figures (a ``Stats``).
    #[getter]
    fn total(&self) -> Stats {
        Stats::from(self.inner.total.clone())
    }

    /// Each partition's figures, partition ``i`` at index ``i`` (a list of ``Stats``).
    #[getter]
    fn partitions(&self) -> Vec<Stats> {
        self.inner
            .partitions
            .iter()
            .cloned()
            .map(Stats::from)
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "PartitionedStats(waiting={}, partitions={})",
            self.inner.total.waiting,
            self.inner.partitions.len()
        )
    }
}

/// One logical queue stored as partitions, each a full queue on its own hash tag, so that a
/// Redis Cluster spreads them over its primaries. Get it from
/// ``Client.create_partitioned(base, partitions)`` or ``Client.partitioned(base)``; safe to use
/// from many threads. Items go to a partition by their group, else where their dependencies
/// are, else their id; leases rotate over the partitions; reads see the whole logical queue.
#[pyclass(module = "leaseq", frozen)]
pub struct PartitionedQueue {
    inner: blocking::Partitioned,
}

impl PartitionedQueue {
    /// Opens (`partitions` None) or creates the partitioned queue `base`, without the GIL.
    pub(crate) fn open(
        py: Python<'_>,
        client: &blocking::Client,
        base: &Bound<'_, PyAny>,
        partitions: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PartitionedQueue> {
        let base = convert::string(base, "base")?;
        let partitions: Option<usize> = convert::opt_integer(partitions, "partitions")?;
        py.detach(|| match partitions {
            None => client.partitioned(&base),
            Some(p) => client.create_partitioned(&base, p),
        })
        .map(|inner| PartitionedQueue { inner })
        .map_err(|e| errors::to_py(py, e))
    }

    /// The core's blocking partitioned queue.
    pub(crate) fn blocking(&self) -> &blocking::Partitioned {
        &self.inner
    }

    /// Runs `call` on the blocking partitioned queue without the GIL.
    fn call<T: Send>(
        &self,
        py: Python<'_>,
        call: impl FnOnce(&blocking::Partitioned) -> leaseq::Result<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| call(&self.inner))
            .map_err(|e| errors::to_py(py, e))
    }

    /// Leases up to `n`, waiting as `wait` says: one wait without the GIL, Ctrl-C checked
    /// every WAIT_SLICE (as `Queue.lease`).
    fn leases(
        &self,
        py: Python<'_>,
        n: usize,
        ttl: std::time::Duration,
        wait: Wait,
    ) -> PyResult<Vec<NewLease>> {
        let leases = if wait == Wait::No {
            self.call(py, |q| q.lease_batch(n, ttl, wait))?
        } else {
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
}

#[pymethods]
impl PartitionedQueue {
    /// The base that names the logical queue.
    #[getter]
    fn base(&self) -> &str {
        self.inner.base()
    }

    /// The partitions' prefixes, in order (``len(q.partitions)`` partitions).
    #[getter]
    fn partitions(&self) -> Vec<String> {
        self.inner.prefixes().to_vec()
    }

    /// Partition ``i`` as a ``Queue`` (``InvalidArgumentError`` naming ``partition`` when out
    /// of range).
    fn partition(&self, py: Python<'_>, i: &Bound<'_, PyAny>) -> PyResult<Queue> {
        let i = partition_index(i)?;
        self.call(py, |q| q.partition(i)).map(Queue::from)
    }

    /// The index of the partition ``item`` goes to (as ``add`` routes it: by its group, else
    /// its first dependency's id, else its id). Sends nothing, so for an item with
    /// dependencies it answers as if each were in its id's partition; ``add`` looks them up.
    fn partition_of(&self, py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<usize> {
        let item = convert::item(item, "item")?;
        let item = &item.get().inner;
        self.call(py, |q| q.partition_of(item))
    }

    /// The partition that issued ``lease``, as a ``Queue``: to finish it in ways this class does
    /// not offer (``renew``, ``release``, ``progress``).
    fn queue_of(&self, py: Python<'_>, lease: &Bound<'_, PyAny>) -> PyResult<Queue> {
        let lease = convert::lease(lease, "lease")?;
        let lease = &lease.get().inner;
        self.call(py, |q| q.queue_of(lease)).map(Queue::from)
    }

    /// Adds ``item`` to its partition unless an item with its id exists there; returns whether
    /// it was added. An item with dependencies goes where they are (looked up first, one more
    /// round trip); one whose dependencies are in two partitions, or in another than its
    /// group's, is refused (``depends_on``). One round trip. A full bounded partition raises ``QueueFullError``,
    /// or with ``timeout`` waits up to that long for room first, as ``Queue.add`` (without the
    /// GIL; Ctrl-C interrupts it).
    #[pyo3(signature = (item, timeout = None))]
    fn add(
        &self,
        py: Python<'_>,
        item: &Bound<'_, PyAny>,
        timeout: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let item = convert::item(item, "item")?;
        let item = &item.get().inner;
        let wait = convert::wait(timeout, None)?;
        if wait == Wait::No {
            return self.call(py, |q| q.add_wait(item, wait));
        }
        // One wait without the GIL, Ctrl-C checked every WAIT_SLICE (as `Queue.add`).
        py.detach(|| {
            self.inner
                .add_wait_interruptible(item, wait, WAIT_SLICE, || {
                    Python::attach(|py| py.check_signals())
                })
        })?
        .map_err(|e| errors::to_py(py, e))
    }

    /// Adds ``item`` to its partition (routed as ``add`` routes it) without checking whether its
    /// id exists there, as ``Queue.add_unique`` does: for fresh ids (the random UUID of
    /// ``Item(data)`` is). An existing id would be overwritten and queued twice. One round trip;
    /// one more (to every partition at once) for an item with dependencies.
    fn add_unique(&self, py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<()> {
        let item = convert::item(item, "item")?;
        let item = &item.get().inner;
        self.call(py, |q| q.add_unique(item))
    }

    /// Adds every item whose id does not exist yet in its partition; returns how many were
    /// added. One script call per partition touched, sent at once; every item is checked first
    /// and nothing is sent when one is refused. ``timeout`` waits for room in each bounded
    /// partition as ``add`` does (a part refused for want of room leaves the others added).
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
        // One wait without the GIL, Ctrl-C checked every WAIT_SLICE (as `Queue.add`).
        py.detach(|| {
            self.inner
                .add_batch_wait_interruptible(&items, wait, WAIT_SLICE, || {
                    Python::attach(|py| py.check_signals())
                })
        })?
        .map_err(|e| errors::to_py(py, e))
    }

    /// Adds ``parent`` and its ``children`` as ``Queue.add_flow`` does, the whole flow to the
    /// partition its parent routes to. A dependency on an item outside the flow that is in
    /// another partition is refused (``depends_on``), as is an item whose group lives in
    /// another partition (``group``).
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

    /// Leases one item from any partition, asked in a rotating order, or returns ``None``;
    /// ``ttl``, ``timeout`` and ``block`` as ``Queue.lease`` (a wait covers every partition at
    /// once and can be interrupted with Ctrl-C).
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
        Ok(self.leases(py, 1, ttl, wait)?.into_iter().next())
    }

    /// Leases up to ``n`` items (1 to 1000) from as many partitions as it takes; waits as
    /// ``lease`` does while none is there.
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
        self.leases(py, n, ttl, wait)
    }

    /// Completes ``lease`` in its own partition, as ``Queue.complete`` does (``result`` and
    /// ``keep_result_for`` too).
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
        if result.is_none() && keep.is_none() {
            return self.call(py, |q| q.complete(lease));
        }
        self.call(py, |q| {
            q.queue_of(lease)?
                .complete_with_result(lease, result.as_deref(), keep)
        })
    }

    /// Records a failed attempt of ``lease`` in its own partition, as ``Queue.fail`` does (the
    /// same ``error``, ``error_type``, ``retry`` and ``trace``): retried there, or dead there.
    /// Returns a ``FailOutcome``; a lease of another queue is refused (``lease``).
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

    /// Completes many leases (at most 1000), each in its own partition as ``complete`` does:
    /// one call per partition touched, sent at once. Takes what ``Queue.complete_batch`` takes;
    /// returns, in order, whether each completed its item. Every completion is checked first (a
    /// lease of another queue is refused, ``lease``), and nothing is sent when one is refused;
    /// not atomic across partitions (when one call fails, the others may have run).
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

    /// Extends many leases (at most 1000, each a ``Lease``) to ``ttl`` from now, each in its
    /// own partition, sent as ``complete_batch`` sends them; returns each one's
    /// ``RenewOutcome``, in order.
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

    /// Records many failed attempts (at most 1000), each in its own partition as ``fail`` does,
    /// sent as ``complete_batch`` sends them. Takes what ``Queue.fail_batch`` takes; returns
    /// their ``FailOutcome``s in order.
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

    /// Item ``id`` (a ``Job``) from whichever partition holds it, or ``None``.
    fn get(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Option<Job>> {
        let id = convert::id(id, "id")?;
        self.call(py, |q| q.get(&id)).map(|j| j.map(Job::from))
    }

    /// Cancels item ``id`` in whichever partition holds it, as ``Queue.cancel`` does; returns
    /// the ``State`` it was in, or ``None``.
    fn cancel(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Option<StateName>> {
        let id = convert::id(id, "id")?;
        self.call(py, |q| q.cancel(&id)).map(|s| s.map(StateName))
    }

    /// The result kept for item ``id`` (a ``JobResult``), or ``None``.
    fn result(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<Option<JobResult>> {
        let id = convert::id(id, "id")?;
        self.call(py, |q| q.result(&id))
            .map(|r| r.map(JobResult::from))
    }

    /// Makes the delayed item ``id`` wait now in whichever partition holds it, as
    /// ``Queue.promote`` does. Returns whether it was delayed (``False`` when no partition has
    /// it delayed).
    fn promote(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<bool> {
        let id = convert::id(id, "id")?;
        self.call(py, |q| q.promote(&id))
    }

    /// What item ``id`` waits for and what waits for it (a ``Dependencies``), read in the
    /// partition that holds it (an item and its dependencies share one); empty when no
    /// partition knows of any.
    fn dependencies(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
    ) -> PyResult<crate::jobs::Dependencies> {
        let id = convert::id(id, "id")?;
        self.call(py, |q| q.dependencies(&id)).map(Into::into)
    }

    /// The kept results of the items ``id`` was added to wait for, in order, read in the
    /// partition that holds it, as ``Queue.dependency_results`` does: a list of ``(dependency
    /// id, result bytes or None)``; empty when no partition knows ``id``'s dependencies.
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

    /// Waits for item ``id``'s result as ``Queue.wait_result`` does (the same ``timeout``),
    /// where the item is: looked up in every partition at once first, then waited for there
    /// (in every partition when it is in none yet). Returns ``None`` when the timeout passes
    /// first, and raises ``JobDeadError`` when the job dies. Other threads run meanwhile,
    /// Ctrl-C interrupts it, and so does ``Client.close()`` (``ClosedError``).
    fn wait_result(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
        timeout: &Bound<'_, PyAny>,
    ) -> PyResult<Option<JobResult>> {
        let id = convert::id(id, "id")?;
        let wait = convert::required_wait(timeout)?;
        // One wait without the GIL, Ctrl-C checked every WAIT_SLICE (as lease).
        py.detach(|| {
            self.inner
                .wait_result_interruptible(&id, wait, WAIT_SLICE, || {
                    Python::attach(|py| py.check_signals())
                })
        })?
        .map(|r| r.map(JobResult::from))
        .map_err(|e| errors::to_py(py, e))
    }

    /// Pauses group ``group`` in its partition, where all its items live, as
    /// ``Queue.pause_group`` does; returns whether it was running.
    fn pause_group(&self, py: Python<'_>, group: &Bound<'_, PyAny>) -> PyResult<bool> {
        let group = convert::string(group, "group")?;
        self.call(py, |q| q.pause_group(&group))
    }

    /// Resumes group ``group`` in its partition; returns whether it was paused.
    fn resume_group(&self, py: Python<'_>, group: &Bound<'_, PyAny>) -> PyResult<bool> {
        let group = convert::string(group, "group")?;
        self.call(py, |q| q.resume_group(&group))
    }

    /// Sets group ``group``'s limit in its partition, as ``Queue.set_group_limit`` does (1 to
    /// 1000; ``None``: the queue's ``group_concurrency``).
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

    /// Holds group ``group``'s leases off for ``duration`` (seconds or a timedelta) in its
    /// partition, as ``Queue.rate_limit_group`` does; returns how long (a timedelta).
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

    /// Group ``group`` (a ``GroupInfo``), read in its partition, which holds all of it.
    fn group(&self, py: Python<'_>, group: &Bound<'_, PyAny>) -> PyResult<GroupInfo> {
        let group = convert::string(group, "group")?;
        self.call(py, |q| q.group(&group)).map(GroupInfo::from)
    }

    /// The logical queue's figures and each partition's (a ``PartitionedStats``), read from
    /// every partition at once.
    fn stats(&self, py: Python<'_>) -> PyResult<PartitionedStats> {
        self.call(py, |q| q.stats())
            .map(|inner| PartitionedStats { inner })
    }

    /// How many items are in ``state``, summed over the partitions (as ``Queue.count``).
    fn count(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<u64> {
        let state = convert::state(py, state)?;
        self.call(py, |q| q.count_in(state))
    }

    /// A page of the logical queue's items in ``state``: partition 0's, then partition 1's, and
    /// so on (no order by time across partitions).
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
        // The operation table's defaults, as Queue.list.
        let start: usize = convert::opt_integer(start, "start")?.unwrap_or(0);
        let count: usize = convert::opt_integer(count, "count")?.unwrap_or(100);
        self.call(py, |q| q.list(state, start, count))
            .map(|entries| entries.into_iter().map(Entry::from).collect())
    }

    /// The items of ``state`` whose name is ``name`` and whose last error's type is
    /// ``error_type`` (``None``: any), as ``Queue.find``, over the logical queue's positions as
    /// ``list`` numbers them (partition 0's, then partition 1's, and so on). One call looks in
    /// one partition, the one that holds position ``start``, at most at 1000 of its positions,
    /// returning at most ``count`` (1 to 1000) matches: a ``Found``, whose ``next`` goes on in
    /// that partition, or at the next partition's first position once this one's end is reached
    /// (``None`` after the last). Two round trips.
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
        let name = crate::sync::opt_text(name, "name")?;
        let error_type = crate::sync::opt_text(error_type, "error_type")?;
        // The operation table's defaults, as Queue.find.
        let start: usize = convert::opt_integer(start, "start")?.unwrap_or(0);
        let count: usize = convert::opt_integer(count, "count")?.unwrap_or(100);
        self.call(py, |q| {
            q.find(state, name.as_deref(), error_type.as_deref(), start, count)
        })
        .map(Found::from)
    }

    /// Pauses every partition; returns whether any was running.
    fn pause(&self, py: Python<'_>) -> PyResult<bool> {
        self.call(py, |q| q.pause())
    }

    /// Resumes every partition; returns whether any was paused.
    fn resume(&self, py: Python<'_>) -> PyResult<bool> {
        self.call(py, |q| q.resume())
    }

    /// Whether the logical queue is paused: every partition is (as ``PartitionedStats.total``
    /// says), read from every partition at once.
    fn is_paused(&self, py: Python<'_>) -> PyResult<bool> {
        self.call(py, |q| q.is_paused())
    }

    /// Whether any partition exists (as ``Queue.exists``: any of its fixed keys does).
    /// ``False`` for a partitioned queue created and never used, whose layout is all there is.
    /// Read from every partition at once.
    fn exists(&self, py: Python<'_>) -> PyResult<bool> {
        self.call(py, |q| q.exists())
    }

    /// How many items wait, at every priority, summed over the partitions (as
    /// ``Queue.queue_len``: the same as ``count("waiting")``), read from every partition at
    /// once.
    fn queue_len(&self, py: Python<'_>) -> PyResult<u64> {
        self.call(py, |q| q.queue_len())
    }

    /// How many items are being processed, summed over the partitions (as
    /// ``Queue.processing_len``: leased by leaseq plus those in redis-work-queue's processing
    /// list), read from every partition at once.
    fn processing_len(&self, py: Python<'_>) -> PyResult<u64> {
        self.call(py, |q| q.processing_len())
    }

    /// For each item name met in the last 60 minutes, what its jobs did (a list of
    /// ``NameCounts``, as ``Queue.counts_by_name``), summed over the partitions, sorted by
    /// name as a queue's are (at most 1000). ``None`` when no partition counts
    /// (``set_config(stats=True)`` turns the counters on). Read from every partition at once.
    fn counts_by_name(&self, py: Python<'_>) -> PyResult<Option<Vec<NameCounts>>> {
        self.call(py, |q| q.counts_by_name())
            .map(|counts| counts.map(|c| c.into_iter().map(NameCounts::from).collect()))
    }

    /// Holds every partition's leases off for ``duration`` (seconds or a timedelta), as
    /// ``Queue.rate_limit`` does: a handler was rate limited, and the limit is the logical
    /// queue's. A longer hold already in place in a partition is kept there. Returns the
    /// longest hold now in place (a timedelta); also ``PartitionedStats.total.rate_limited_for``.
    fn rate_limit<'py>(
        &self,
        py: Python<'py>,
        duration: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let duration = convert::seconds(duration, "duration")?;
        let held = self.call(py, |q| q.rate_limit(duration))?;
        crate::time::timedelta(py, held)
    }

    /// Puts these dead items (at most 1000 ids, each ``bytes`` or ``str``) back to waiting,
    /// each in the partition that holds it, as ``Queue.dead_requeue`` does; returns how many
    /// were requeued (ids that are not dead are skipped).
    fn dead_requeue(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<u64> {
        let ids = convert::ids(ids, "ids")?;
        self.call(py, |q| q.dead_requeue(&ids))
    }

    /// Like ``dead_requeue``, returning for each id, in order, whether it was requeued
    /// (``False``: not a dead letter in any partition; an id given twice is ``False`` the
    /// second time).
    fn dead_requeue_each(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
        let ids = convert::ids(ids, "ids")?;
        self.call(py, |q| q.dead_requeue_each(&ids))
    }

    /// Requeues the ``n`` oldest dead items of the logical queue, by time of death over every
    /// partition (``None``: all of every partition); returns how many.
    #[pyo3(signature = (n = None))]
    fn dead_requeue_oldest(&self, py: Python<'_>, n: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
        let n = convert::opt_integer(n, "n")?;
        self.call(py, |q| q.dead_requeue_oldest(n))
    }

    /// Deletes the ``n`` oldest dead items of the logical queue, by time of death over every
    /// partition (``None``: all of every partition); returns how many.
    #[pyo3(signature = (n = None))]
    fn dead_purge(&self, py: Python<'_>, n: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
        let n = convert::opt_integer(n, "n")?;
        self.call(py, |q| q.dead_purge(n))
    }

    /// The logical queue's stored configuration (a ``QueueConfig``): partition 0's, which
    /// ``set_config`` writes to every partition alike (read a partition's own with
    /// ``partition(i).config()`` when one was set alone). One round trip.
    fn config(&self, py: Python<'_>) -> PyResult<QueueConfig> {
        self.call(py, |q| q.config()).map(QueueConfig::from)
    }

    /// Stores the given fields of the configuration in every partition, as ``Queue.set_config``
    /// does (the same keywords, all checked before anything is written); limits such as
    /// ``capacity`` and ``rate_limit`` then hold per partition.
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

    /// Removes every partition's stored configuration: the protocol's defaults apply again.
    fn reset_config(&self, py: Python<'_>) -> PyResult<()> {
        self.call(py, |q| q.reset_config())
    }

    /// A light clean of every partition, all at once, as ``Queue.light_clean`` does (due
    /// delayed items to waiting, expired leases recovered, dead letters trimmed, items
    /// redis-work-queue clients left in processing re-queued); returns the reports summed (a
    /// ``CleanReport``).
    fn light_clean(&self, py: Python<'_>) -> PyResult<CleanReport> {
        self.call(py, |q| q.light_clean()).map(CleanReport::from)
    }

    /// A deep clean of every partition, as ``Queue.deep_clean`` does (a light clean, and items
    /// on no list at all), one partition after another: each walks its node's keys, so run it
    /// rarely. Returns the reports summed (a ``CleanReport``).
    fn deep_clean(&self, py: Python<'_>) -> PyResult<CleanReport> {
        self.call(py, |q| q.deep_clean()).map(CleanReport::from)
    }

    /// ``Queue.upsert_schedule`` in partition 0, where the queue's recurring jobs live (their
    /// items are added there): returns whether it is new.
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

    /// ``Queue.remove_schedule`` in partition 0: whether there was one.
    fn remove_schedule(&self, py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<bool> {
        let name = convert::string(name, "name")?;
        self.call(py, |q| q.remove_schedule(&name))
    }

    /// ``Queue.get_schedule`` in partition 0: a ``ScheduleInfo``, or ``None``.
    fn get_schedule(
        &self,
        py: Python<'_>,
        name: &Bound<'_, PyAny>,
    ) -> PyResult<Option<crate::schedules::ScheduleInfo>> {
        let name = convert::string(name, "name")?;
        self.call(py, |q| q.get_schedule(&name))
            .map(|s| s.map(crate::schedules::ScheduleInfo::from))
    }

    /// ``Queue.schedules`` in partition 0: ``count`` (1 to 1000) recurring jobs from position
    /// ``start``, by next fire time (a ``SchedulePage``).
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

    /// ``Queue.fire_due_schedules`` in partition 0, as a runner over the queue fires them: for
    /// a process without a runner. A ``FireReport``.
    fn fire_due_schedules(&self, py: Python<'_>) -> PyResult<crate::schedules::FireReport> {
        self.call(py, |q| q.fire_due_schedules())
            .map(crate::schedules::FireReport::from)
    }

    /// Follows every partition's event stream at once: ``for event in queue.events(after=...)``
    /// yields each ``QueueEvent`` with its ``partition``, waiting (without the GIL) for the
    /// next. Each partition's entries come in their order; across partitions, the earliest of
    /// those read first, and no order beyond that. From now, or after ``after``: a follower's
    /// ``position`` (an id per partition, joined by ``,``), or one id for every partition
    /// (``"0-0"``: every entry still kept). It rides through lost connections and restarts.
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

    fn __repr__(&self) -> String {
        format!(
            "PartitionedQueue(base={:?}, partitions={})",
            self.inner.base(),
            self.inner.count()
        )
    }
}

/// The async partitioned queue behind `queue` when it is a `PartitionedQueue` (for
/// `leaseq.Worker`, which runs the core's `Worker::partitioned` over it), else `None`.
pub(crate) fn for_runner(queue: &Bound<'_, PyAny>) -> Option<blocking::Partitioned> {
    let p = queue.cast::<PartitionedQueue>().ok()?;
    Some(p.get().blocking().clone())
}

/// Native half of ``leaseq.aio.PartitionedQueue``: each method returns an asyncio future.
#[pyclass(module = "leaseq._native", frozen)]
pub struct AsyncPartitionedQueue {
    inner: blocking::Partitioned,
    /// The asyncio client's, for the partitions it hands out as ``AsyncQueue``s.
    lazy: Arc<Lazy>,
}

impl AsyncPartitionedQueue {
    /// The partitioned queue `inner`, opened by the asyncio client of `lazy`.
    pub(crate) fn new(inner: blocking::Partitioned, lazy: Arc<Lazy>) -> AsyncPartitionedQueue {
        AsyncPartitionedQueue { inner, lazy }
    }

    /// This process's async partitioned queue, taken on the Python thread off the GIL (after a
    /// fork it is opened again there, as the sync face does).
    fn queue(&self, py: Python<'_>) -> PyResult<leaseq::Partitioned> {
        py.detach(|| self.inner.as_async())
            .map_err(|e| errors::to_py(py, e))
    }

    /// Runs `call` on this process's async partitioned queue, on the runtime, as an asyncio
    /// future; the queue is taken on the Python thread, off the GIL (after a fork it is opened
    /// again there, as the sync face does).
    fn run<'py, T, F>(
        &self,
        py: Python<'py>,
        call: impl FnOnce(leaseq::Partitioned) -> F + Send + 'static,
    ) -> PyResult<Bound<'py, PyAny>>
    where
        F: std::future::Future<Output = leaseq::Result<T>> + Send + 'static,
        T: for<'a> IntoPyObject<'a> + Send + 'static,
    {
        let p = self.queue(py)?;
        crate::aio::spawn(py, call(p))
    }
}

#[pymethods]
impl AsyncPartitionedQueue {
    /// See ``leaseq.PartitionedQueue.base``.
    #[getter]
    fn base(&self) -> &str {
        self.inner.base()
    }

    /// See ``leaseq.PartitionedQueue.partitions``.
    #[getter]
    fn partitions(&self) -> Vec<String> {
        self.inner.prefixes().to_vec()
    }

    /// See ``leaseq.PartitionedQueue.partition``: partition ``i`` as an ``AsyncQueue``.
    fn partition(&self, py: Python<'_>, i: &Bound<'_, PyAny>) -> PyResult<AsyncQueue> {
        let i = partition_index(i)?;
        let prefix = self
            .inner
            .partition_prefix(i)
            .map_err(|e| errors::to_py(py, e))?;
        Ok(AsyncQueue::new(self.lazy.clone(), prefix))
    }

    /// See ``leaseq.PartitionedQueue.partition_of`` (nothing is sent: it returns the index
    /// itself).
    fn partition_of(&self, py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<usize> {
        let item = convert::item(item, "item")?;
        self.queue(py)?
            .partition_of(&item.get().inner)
            .map_err(|e| errors::to_py(py, e))
    }

    /// See ``leaseq.PartitionedQueue.queue_of``: the partition as an ``AsyncQueue`` (nothing is
    /// sent).
    fn queue_of(&self, py: Python<'_>, lease: &Bound<'_, PyAny>) -> PyResult<AsyncQueue> {
        let lease = convert::lease(lease, "lease")?;
        let p = self.queue(py)?;
        let partition = p
            .queue_of(&lease.get().inner)
            .map_err(|e| errors::to_py(py, e))?;
        Ok(AsyncQueue::new(self.lazy.clone(), partition.prefix()))
    }

    /// See ``leaseq.PartitionedQueue.add``; a wait for room is cancelled with the awaiting
    /// task.
    #[pyo3(signature = (item, timeout = None))]
    fn add<'py>(
        &self,
        py: Python<'py>,
        item: &Bound<'py, PyAny>,
        timeout: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let item = convert::item(item, "item")?;
        let wait = convert::wait(timeout, None)?;
        self.run(py, move |q| async move {
            q.add_wait(&item.get().inner, wait).await
        })
    }

    /// See ``leaseq.PartitionedQueue.add_unique``.
    fn add_unique<'py>(
        &self,
        py: Python<'py>,
        item: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let item = convert::item(item, "item")?;
        self.run(
            py,
            move |q| async move { q.add_unique(&item.get().inner).await },
        )
    }

    /// See ``leaseq.PartitionedQueue.add_batch``; a wait for room is cancelled with the
    /// awaiting task.
    #[pyo3(signature = (items, timeout = None))]
    fn add_batch<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
        timeout: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let items = convert::items(items, "items")?;
        let wait = convert::wait(timeout, None)?;
        self.run(
            py,
            move |q| async move { q.add_batch_wait(&items, wait).await },
        )
    }

    /// See ``leaseq.PartitionedQueue.add_flow``.
    fn add_flow<'py>(
        &self,
        py: Python<'py>,
        parent: &Bound<'py, PyAny>,
        children: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let parent = convert::item(parent, "parent")?.get().inner.clone();
        let children = crate::types::flows(children, "children")?;
        self.run(
            py,
            move |q| async move { q.add_flow(&parent, &children).await },
        )
    }

    /// See ``leaseq.PartitionedQueue.lease``; a wait is cancelled with the awaiting task.
    #[pyo3(signature = (ttl = None, timeout = None, *, block = None))]
    fn lease<'py>(
        &self,
        py: Python<'py>,
        ttl: Option<&Bound<'py, PyAny>>,
        timeout: Option<&Bound<'py, PyAny>>,
        block: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ttl = convert::ttl(ttl)?;
        let wait = convert::wait(timeout, block)?;
        self.run(py, move |q| async move {
            Ok(q.lease(ttl, wait).await?.map(NewLease))
        })
    }

    /// See ``leaseq.PartitionedQueue.lease_batch``.
    #[pyo3(signature = (n, ttl = None, timeout = None))]
    fn lease_batch<'py>(
        &self,
        py: Python<'py>,
        n: &Bound<'py, PyAny>,
        ttl: Option<&Bound<'py, PyAny>>,
        timeout: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n: usize = convert::integer(n, "n")?;
        let ttl = convert::ttl(ttl)?;
        let wait = convert::wait(timeout, None)?;
        self.run(py, move |q| async move {
            let leases = q.lease_batch(n, ttl, wait).await?;
            Ok(leases.into_iter().map(NewLease).collect::<Vec<_>>())
        })
    }

    /// See ``leaseq.PartitionedQueue.complete``.
    #[pyo3(signature = (lease, result = None, keep_result_for = None))]
    fn complete<'py>(
        &self,
        py: Python<'py>,
        lease: &Bound<'py, PyAny>,
        result: Option<&Bound<'py, PyAny>>,
        keep_result_for: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = convert::lease(lease, "lease")?;
        let result = convert::opt_data(result, "result")?;
        let keep = convert::opt_seconds(keep_result_for, "keep_result_for")?;
        self.run(py, move |q| async move {
            let lease = &lease.get().inner;
            if result.is_none() && keep.is_none() {
                return q.complete(lease).await;
            }
            q.queue_of(lease)?
                .complete_with_result(lease, result.as_deref(), keep)
                .await
        })
    }

    /// See ``leaseq.PartitionedQueue.fail``.
    #[pyo3(
        signature = (lease, error, error_type = None, retry = None, trace = None),
        text_signature = "($self, lease, error, error_type=None, retry=True, trace=None)"
    )]
    fn fail<'py>(
        &self,
        py: Python<'py>,
        lease: &Bound<'py, PyAny>,
        error: &Bound<'py, PyAny>,
        error_type: Option<&Bound<'py, PyAny>>,
        retry: Option<&Bound<'py, PyAny>>,
        trace: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = convert::lease(lease, "lease")?;
        let (message, kind, trace) = convert::failure(error, error_type, trace)?;
        let retry = convert::retry(retry)?;
        self.run(py, move |q| async move {
            q.fail_with_trace(&lease.get().inner, &message, &kind, retry, trace.as_deref())
                .await
                .map(FailOutcome::from)
        })
    }

    /// See ``leaseq.PartitionedQueue.complete_batch``.
    fn complete_batch<'py>(
        &self,
        py: Python<'py>,
        completions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let owned = convert::completions(completions, "completions")?;
        self.run(py, move |q| async move {
            let list: Vec<_> = owned.iter().map(convert::borrow_completion).collect();
            q.complete_batch(&list).await
        })
    }

    /// See ``leaseq.PartitionedQueue.renew_batch``.
    #[pyo3(signature = (leases, ttl = None))]
    fn renew_batch<'py>(
        &self,
        py: Python<'py>,
        leases: &Bound<'py, PyAny>,
        ttl: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let leases = convert::leases(leases, "leases")?;
        let ttl = convert::ttl(ttl)?;
        self.run(py, move |q| async move {
            let refs: Vec<&leaseq::Lease> = leases.iter().collect();
            let outcomes = q.renew_batch(&refs, ttl).await?;
            Ok(outcomes.into_iter().map(RenewName).collect::<Vec<_>>())
        })
    }

    /// See ``leaseq.PartitionedQueue.fail_batch``.
    fn fail_batch<'py>(
        &self,
        py: Python<'py>,
        failures: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let owned = convert::failures(failures, "failures")?;
        self.run(py, move |q| async move {
            let outcomes = q
                .fail_batch_with_traces(&convert::failure_refs(&owned))
                .await?;
            Ok(outcomes
                .into_iter()
                .map(FailOutcome::from)
                .collect::<Vec<_>>())
        })
    }

    /// See ``leaseq.PartitionedQueue.get``.
    fn get<'py>(&self, py: Python<'py>, id: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        self.run(
            py,
            move |q| async move { Ok(q.get(&id).await?.map(Job::from)) },
        )
    }

    /// See ``leaseq.PartitionedQueue.cancel``.
    fn cancel<'py>(&self, py: Python<'py>, id: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        self.run(py, move |q| async move {
            Ok(q.cancel(&id).await?.map(StateName))
        })
    }

    /// See ``leaseq.PartitionedQueue.result``.
    fn result<'py>(&self, py: Python<'py>, id: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        self.run(py, move |q| async move {
            Ok(q.result(&id).await?.map(JobResult::from))
        })
    }

    /// See ``leaseq.PartitionedQueue.promote``.
    fn promote<'py>(&self, py: Python<'py>, id: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        self.run(py, move |q| async move { q.promote(&id).await })
    }

    /// See ``leaseq.PartitionedQueue.dependencies``.
    fn dependencies<'py>(
        &self,
        py: Python<'py>,
        id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        self.run(py, move |q| async move {
            Ok(crate::jobs::Dependencies::from(q.dependencies(&id).await?))
        })
    }

    /// See ``leaseq.PartitionedQueue.dependency_results``; the results as ``bytes``.
    fn dependency_results<'py>(
        &self,
        py: Python<'py>,
        id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        self.run(py, move |q| async move { q.dependency_results(&id).await })
    }

    /// See ``leaseq.PartitionedQueue.wait_result``; the wait is cancelled with the awaiting
    /// task.
    fn wait_result<'py>(
        &self,
        py: Python<'py>,
        id: &Bound<'py, PyAny>,
        timeout: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        let wait = convert::required_wait(timeout)?;
        self.run(py, move |q| async move {
            Ok(q.wait_result(&id, wait).await?.map(JobResult::from))
        })
    }

    /// See ``leaseq.PartitionedQueue.pause_group``.
    fn pause_group<'py>(
        &self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let group = convert::string(group, "group")?;
        self.run(py, move |q| async move { q.pause_group(&group).await })
    }

    /// See ``leaseq.PartitionedQueue.resume_group``.
    fn resume_group<'py>(
        &self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let group = convert::string(group, "group")?;
        self.run(py, move |q| async move { q.resume_group(&group).await })
    }

    /// See ``leaseq.PartitionedQueue.set_group_limit``.
    #[pyo3(signature = (group, limit = None))]
    fn set_group_limit<'py>(
        &self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
        limit: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let group = convert::string(group, "group")?;
        let limit = convert::opt_integer(limit, "limit")?;
        self.run(py, move |q| async move {
            q.set_group_limit(&group, limit).await
        })
    }

    /// See ``leaseq.PartitionedQueue.rate_limit_group``.
    fn rate_limit_group<'py>(
        &self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
        duration: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let group = convert::string(group, "group")?;
        let duration = convert::seconds(duration, "duration")?;
        self.run(py, move |q| async move {
            q.rate_limit_group(&group, duration)
                .await
                .map(crate::time::Timedelta)
        })
    }

    /// See ``leaseq.PartitionedQueue.group``.
    fn group<'py>(
        &self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let group = convert::string(group, "group")?;
        self.run(py, move |q| async move {
            q.group(&group).await.map(GroupInfo::from)
        })
    }

    /// See ``leaseq.PartitionedQueue.stats``.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move {
            Ok(PartitionedStats {
                inner: q.stats().await?,
            })
        })
    }

    /// See ``leaseq.PartitionedQueue.count``.
    fn count<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let state = convert::state(py, state)?;
        self.run(py, move |q| async move { q.count_in(state).await })
    }

    /// See ``leaseq.PartitionedQueue.list``.
    #[pyo3(
        signature = (state, start = None, count = None),
        text_signature = "($self, state, start=0, count=100)"
    )]
    fn list<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'py, PyAny>,
        start: Option<&Bound<'py, PyAny>>,
        count: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let state = convert::state(py, state)?;
        let start: usize = convert::opt_integer(start, "start")?.unwrap_or(0);
        let count: usize = convert::opt_integer(count, "count")?.unwrap_or(100);
        self.run(py, move |q| async move {
            let entries = q.list(state, start, count).await?;
            Ok(entries.into_iter().map(Entry::from).collect::<Vec<_>>())
        })
    }

    /// See ``leaseq.PartitionedQueue.find``.
    #[pyo3(
        signature = (state, name = None, error_type = None, start = None, count = None),
        text_signature = "($self, state, name=None, error_type=None, start=0, count=100)"
    )]
    fn find<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'py, PyAny>,
        name: Option<&Bound<'py, PyAny>>,
        error_type: Option<&Bound<'py, PyAny>>,
        start: Option<&Bound<'py, PyAny>>,
        count: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let state = convert::state(py, state)?;
        let name = crate::sync::opt_text(name, "name")?;
        let error_type = crate::sync::opt_text(error_type, "error_type")?;
        let start: usize = convert::opt_integer(start, "start")?.unwrap_or(0);
        let count: usize = convert::opt_integer(count, "count")?.unwrap_or(100);
        self.run(py, move |q| async move {
            let found = q
                .find(state, name.as_deref(), error_type.as_deref(), start, count)
                .await?;
            Ok(Found::from(found))
        })
    }

    /// See ``leaseq.PartitionedQueue.pause``.
    fn pause<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.pause().await })
    }

    /// See ``leaseq.PartitionedQueue.resume``.
    fn resume<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.resume().await })
    }

    /// See ``leaseq.PartitionedQueue.is_paused``.
    fn is_paused<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.is_paused().await })
    }

    /// See ``leaseq.PartitionedQueue.exists``.
    fn exists<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.exists().await })
    }

    /// See ``leaseq.PartitionedQueue.queue_len``.
    fn queue_len<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.queue_len().await })
    }

    /// See ``leaseq.PartitionedQueue.processing_len``.
    fn processing_len<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.processing_len().await })
    }

    /// See ``leaseq.PartitionedQueue.counts_by_name``.
    fn counts_by_name<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move {
            q.counts_by_name().await.map(|counts| {
                counts.map(|c| c.into_iter().map(NameCounts::from).collect::<Vec<_>>())
            })
        })
    }

    /// See ``leaseq.PartitionedQueue.rate_limit``.
    fn rate_limit<'py>(
        &self,
        py: Python<'py>,
        duration: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let duration = convert::seconds(duration, "duration")?;
        self.run(py, move |q| async move {
            q.rate_limit(duration).await.map(crate::time::Timedelta)
        })
    }

    /// See ``leaseq.PartitionedQueue.dead_requeue``.
    fn dead_requeue<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ids = convert::ids(ids, "ids")?;
        self.run(py, move |q| async move { q.dead_requeue(&ids).await })
    }

    /// See ``leaseq.PartitionedQueue.dead_requeue_each``.
    fn dead_requeue_each<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ids = convert::ids(ids, "ids")?;
        self.run(py, move |q| async move { q.dead_requeue_each(&ids).await })
    }

    /// See ``leaseq.PartitionedQueue.dead_requeue_oldest``.
    #[pyo3(signature = (n = None))]
    fn dead_requeue_oldest<'py>(
        &self,
        py: Python<'py>,
        n: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = convert::opt_integer(n, "n")?;
        self.run(py, move |q| async move { q.dead_requeue_oldest(n).await })
    }

    /// See ``leaseq.PartitionedQueue.dead_purge``.
    #[pyo3(signature = (n = None))]
    fn dead_purge<'py>(
        &self,
        py: Python<'py>,
        n: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = convert::opt_integer(n, "n")?;
        self.run(py, move |q| async move { q.dead_purge(n).await })
    }

    /// See ``leaseq.PartitionedQueue.config``.
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(
            py,
            |q| async move { q.config().await.map(QueueConfig::from) },
        )
    }

    /// See ``leaseq.PartitionedQueue.set_config``.
    #[pyo3(signature = (
        *, max_attempts = None, backoff = None, priority = None, expires_after = None,
        keep_result_for = None, dead_max_count = None, dead_max_age = None, stats = None,
        capacity = None, rate_limit = None, group_concurrency = None, group_rate_limit = None,
        events = None, events_max_len = None, events_max_age = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn set_config<'py>(
        &self,
        py: Python<'py>,
        max_attempts: Option<&Bound<'py, PyAny>>,
        backoff: Option<&Bound<'py, PyAny>>,
        priority: Option<&Bound<'py, PyAny>>,
        expires_after: Option<&Bound<'py, PyAny>>,
        keep_result_for: Option<&Bound<'py, PyAny>>,
        dead_max_count: Option<&Bound<'py, PyAny>>,
        dead_max_age: Option<&Bound<'py, PyAny>>,
        stats: Option<&Bound<'py, PyAny>>,
        capacity: Option<&Bound<'py, PyAny>>,
        rate_limit: Option<&Bound<'py, PyAny>>,
        group_concurrency: Option<&Bound<'py, PyAny>>,
        group_rate_limit: Option<&Bound<'py, PyAny>>,
        events: Option<&Bound<'py, PyAny>>,
        events_max_len: Option<&Bound<'py, PyAny>>,
        events_max_age: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
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
        self.run(py, move |q| async move { q.set_config(&config).await })
    }

    /// See ``leaseq.PartitionedQueue.reset_config``.
    fn reset_config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.reset_config().await })
    }

    /// See ``leaseq.PartitionedQueue.light_clean``.
    fn light_clean<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move {
            q.light_clean().await.map(CleanReport::from)
        })
    }

    /// See ``leaseq.PartitionedQueue.deep_clean``.
    fn deep_clean<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move {
            q.deep_clean().await.map(CleanReport::from)
        })
    }

    /// See ``leaseq.PartitionedQueue.upsert_schedule``.
    fn upsert_schedule<'py>(
        &self,
        py: Python<'py>,
        name: &Bound<'py, PyAny>,
        schedule: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let name = convert::string(name, "name")?;
        let schedule = crate::schedules::schedule(schedule)?;
        self.run(py, move |q| async move {
            q.upsert_schedule(&name, &schedule).await
        })
    }

    /// See ``leaseq.PartitionedQueue.remove_schedule``.
    fn remove_schedule<'py>(
        &self,
        py: Python<'py>,
        name: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let name = convert::string(name, "name")?;
        self.run(py, move |q| async move { q.remove_schedule(&name).await })
    }

    /// See ``leaseq.PartitionedQueue.get_schedule``.
    fn get_schedule<'py>(
        &self,
        py: Python<'py>,
        name: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let name = convert::string(name, "name")?;
        self.run(py, move |q| async move {
            q.get_schedule(&name)
                .await
                .map(|s| s.map(crate::schedules::ScheduleInfo::from))
        })
    }

    /// See ``leaseq.PartitionedQueue.schedules``.
    #[pyo3(
        signature = (start = None, count = None),
        text_signature = "($self, start=0, count=100)"
    )]
    fn schedules<'py>(
        &self,
        py: Python<'py>,
        start: Option<&Bound<'py, PyAny>>,
        count: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let start: usize = convert::opt_integer(start, "start")?.unwrap_or(0);
        let count: usize = convert::opt_integer(count, "count")?.unwrap_or(100);
        self.run(py, move |q| async move {
            q.schedules(start, count)
                .await
                .map(crate::schedules::SchedulePage::from)
        })
    }

    /// See ``leaseq.PartitionedQueue.fire_due_schedules``.
    fn fire_due_schedules<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move {
            q.fire_due_schedules()
                .await
                .map(crate::schedules::FireReport::from)
        })
    }

    /// See ``leaseq.PartitionedQueue.events``: a future of the follower, whose ``next()`` is a
    /// future of the next entry.
    #[pyo3(signature = (after = None))]
    fn events<'py>(
        &self,
        py: Python<'py>,
        after: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let from = crate::events::from(after)?;
        self.run(py, move |q| async move {
            q.events(from).await.map(crate::events::AsyncEvents::new)
        })
    }
}

/// A partition index: an `int`; a negative one is out of range as one too large is, so that
/// the core's refusal names the range.
fn partition_index(i: &Bound<'_, PyAny>) -> PyResult<usize> {
    let i: i64 = convert::integer(i, "partition")?;
    Ok(usize::try_from(i).unwrap_or(usize::MAX))
}
