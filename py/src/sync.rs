//! The synchronous face: `leaseq.Client` and `leaseq.Queue`, over `leaseq::blocking`.
//!
//! Each call owns its arguments, then releases the GIL for the Redis round trip, so other
//! Python threads run meanwhile. The blocking facade reconnects by itself in a forked child.

use std::time::{Duration, Instant};

use leaseq::{blocking, Wait};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::convert::{self, Block, Timeout, Ttl};
use crate::errors;
use crate::types::{CleanReport, Item, NewLease};

/// The longest a blocking `lease` waits without the GIL before checking for signals, so that
/// Ctrl-C raises `KeyboardInterrupt` promptly.
const WAIT_SLICE: Duration = Duration::from_millis(500);

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
/// many threads. Every method is one round trip to Redis (a blocking ``lease`` waits
/// server-side), during which other Python threads run.
#[pyclass(module = "leaseq", frozen)]
pub struct Queue {
    inner: blocking::Queue,
}

impl Queue {
    fn lease_once(&self, py: Python<'_>, ttl: Duration, wait: Wait) -> PyResult<Option<NewLease>> {
        py.detach(|| self.inner.lease(ttl, wait))
            .map(|lease| lease.map(NewLease))
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

    /// Adds ``item`` unless an item with its id exists; returns whether it was added.
    fn add(&self, py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<bool> {
        let item = convert::item(item, "item")?;
        let item: &Item = item.get();
        py.detach(|| self.inner.add(&item.inner))
            .map_err(|e| errors::to_py(py, e))
    }

    /// Adds ``item`` without checking whether its id exists: for fresh ids (the random UUID of
    /// ``Item(data)`` is). An existing id would be overwritten and queued twice.
    fn add_unique(&self, py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<()> {
        let item = convert::item(item, "item")?;
        let item: &Item = item.get();
        py.detach(|| self.inner.add_unique(&item.inner))
            .map_err(|e| errors::to_py(py, e))
    }

    /// Adds every item whose id does not exist yet, in one round trip; returns how many were
    /// added.
    fn add_batch(&self, py: Python<'_>, items: &Bound<'_, PyAny>) -> PyResult<usize> {
        let items = convert::items(items, "items")?;
        py.detach(|| self.inner.add_batch(&items))
            .map_err(|e| errors::to_py(py, e))
    }

    /// Leases the next item for ``ttl`` seconds, or returns ``None``.
    ///
    /// ``block=False`` returns at once. Otherwise it waits for an item up to ``timeout`` seconds
    /// (``None``: forever) and can be interrupted with Ctrl-C, or by ``Client.close()`` from
    /// another thread (``ClosedError``).
    #[pyo3(
        signature = (ttl = Ttl::DEFAULT, block = Block(true), timeout = Timeout(None)),
        text_signature = "($self, ttl=30.0, block=True, timeout=None)"
    )]
    fn lease(
        &self,
        py: Python<'_>,
        ttl: Ttl,
        block: Block,
        timeout: Timeout,
    ) -> PyResult<Option<NewLease>> {
        let ttl = ttl.0;
        if !block.0 {
            return self.lease_once(py, ttl, Wait::No);
        }
        let wait = match timeout.deadline(py)? {
            None => Wait::Forever,
            Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Wait::Timeout(left),
                _ => Wait::No,
            },
        };
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

    /// Completes the leased item. Returns ``True`` for exactly one caller per item: the first to
    /// complete it (even with an expired lease).
    fn complete(&self, py: Python<'_>, lease: &Bound<'_, PyAny>) -> PyResult<bool> {
        let lease = convert::lease(lease, "lease")?;
        let lease = &lease.get().inner;
        py.detach(|| self.inner.complete(lease))
            .map_err(|e| errors::to_py(py, e))
    }

    /// Completes ``lease`` and leases the next item (without waiting) in one round trip.
    /// Returns ``(completed, next_lease_or_None)``.
    #[pyo3(signature = (lease, ttl = Ttl::DEFAULT), text_signature = "($self, lease, ttl=30.0)")]
    fn complete_and_lease(
        &self,
        py: Python<'_>,
        lease: &Bound<'_, PyAny>,
        ttl: Ttl,
    ) -> PyResult<(bool, Option<NewLease>)> {
        let lease = convert::lease(lease, "lease")?;
        let lease = &lease.get().inner;
        py.detach(|| self.inner.complete_and_lease(lease, ttl.0))
            .map(|(done, next)| (done, next.map(NewLease)))
            .map_err(|e| errors::to_py(py, e))
    }

    /// Extends the lease to ``ttl`` seconds from now while it is still this holder's. Returns
    /// ``False`` when it expired, another worker took the item, or the item is complete.
    #[pyo3(signature = (lease, ttl = Ttl::DEFAULT), text_signature = "($self, lease, ttl=30.0)")]
    fn renew(&self, py: Python<'_>, lease: &Bound<'_, PyAny>, ttl: Ttl) -> PyResult<bool> {
        let lease = convert::lease(lease, "lease")?;
        let lease = &lease.get().inner;
        py.detach(|| self.inner.renew(lease, ttl.0))
            .map_err(|e| errors::to_py(py, e))
    }

    /// Re-queues items whose lease is gone (expired, or the holder crashed) and drops ids of
    /// complete items from processing. Run it about once per lease TTL.
    fn light_clean(&self, py: Python<'_>) -> PyResult<CleanReport> {
        py.detach(|| self.inner.light_clean())
            .map(CleanReport::from)
            .map_err(|e| errors::to_py(py, e))
    }

    /// Everything ``light_clean`` does, and also finds items on no list at all (left by a crashed
    /// redis-work-queue client). Walks every key of the queue: run it rarely (start-up, hourly).
    fn deep_clean(&self, py: Python<'_>) -> PyResult<CleanReport> {
        py.detach(|| self.inner.deep_clean())
            .map(CleanReport::from)
            .map_err(|e| errors::to_py(py, e))
    }

    /// How many ids wait in the queue.
    fn queue_len(&self, py: Python<'_>) -> PyResult<u64> {
        py.detach(|| self.inner.queue_len())
            .map_err(|e| errors::to_py(py, e))
    }

    /// How many ids are in processing (leased, or left by crashed workers until a light clean).
    fn processing_len(&self, py: Python<'_>) -> PyResult<u64> {
        py.detach(|| self.inner.processing_len())
            .map_err(|e| errors::to_py(py, e))
    }

    fn __repr__(&self) -> String {
        format!("Queue(prefix={:?})", self.inner.prefix())
    }
}
