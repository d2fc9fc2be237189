//! The asyncio face's native half: `AsyncClient` and `AsyncQueue`, whose methods return asyncio
//! futures driven by the async core on the core's runtime (`leaseq::runtime`, bridged to asyncio
//! in `runtime.rs`). The typed `async def` wrappers users see are `leaseq/aio.py`.
//!
//! `Client(url)` only checks the URL; the first call that needs the connection makes it, on the
//! runtime, so the event loop never waits for it.
//!
//! Fork-safe like the sync face, by the same code: the client is a `leaseq::blocking::Client`,
//! whose `as_async` hands out this process's async client (reconnected with the same URLs after
//! a fork, and still closed if it was closed). Each call asks it for the client on the Python
//! thread, then runs on the runtime.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use leaseq::blocking;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::convert;
use crate::errors;
use crate::jobs::{
    Entry, FailOutcome, Found, GroupInfo, Job, JobResult, NameCounts, QueueConfig, RenewName,
    StateName, Stats,
};
use crate::runtime;
use crate::types::{CleanReport, NewLease};

/// A result of the core, converted to Python (or to its exception) only where the GIL is held
/// already, when the bridge hands it to asyncio: runtime threads never take the GIL for errors.
struct Outcome<T>(leaseq::Result<T>);

impl<'py, T: IntoPyObject<'py>> IntoPyObject<'py> for Outcome<T> {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.0 {
            Ok(value) => value.into_bound_py_any(py),
            Err(err) => Err(errors::to_py(py, err)),
        }
    }
}

/// Runs `fut` on the runtime and hands Python an asyncio future of its result. Cancelling the
/// asyncio future drops `fut` (a waiting lease stops waiting).
pub(crate) fn spawn<'py, T, F>(py: Python<'py>, fut: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = leaseq::Result<T>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    pyo3_async_runtimes::generic::future_into_py::<runtime::Tokio, _, Outcome<T>>(py, async move {
        Ok(Outcome(fut.await))
    })
}

/// Stops the core's runtime (a later call starts a new one); `leaseq.aio` registers it with
/// `atexit`.
#[pyfunction]
pub fn _shutdown(py: Python<'_>) {
    py.detach(leaseq::runtime::shutdown);
}

/// What a ``leaseq.aio.Client`` connects to.
enum Target {
    Single(String),
    Cluster(Vec<String>),
}

/// The client behind a ``leaseq.aio.Client``, connected by the first call that needs it, on the
/// runtime: ``Client(url)`` only checks the URL, so the event loop never waits for a connection
/// (a dead address used to hold it for the whole connect timeout).
pub(crate) struct Lazy {
    target: Target,
    client: tokio::sync::OnceCell<blocking::Client>,
    closed: AtomicBool,
}

impl Lazy {
    /// The connected client, connecting first if need be (on the runtime); CLOSED once closed.
    async fn client(&self) -> leaseq::Result<blocking::Client> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(leaseq::Error::Closed);
        }
        let client = self
            .client
            .get_or_try_init(|| async {
                match &self.target {
                    Target::Single(url) => blocking::Client::connect_async(url).await,
                    Target::Cluster(urls) => blocking::Client::connect_cluster_async(urls).await,
                }
            })
            .await?
            .clone();
        if self.closed.load(Ordering::SeqCst) {
            // Closed while it connected.
            client.close();
            return Err(leaseq::Error::Closed);
        }
        Ok(client)
    }
}

/// Native half of ``leaseq.aio.Client``.
#[pyclass(module = "leaseq._native", frozen)]
pub struct AsyncClient {
    lazy: Arc<Lazy>,
}

impl AsyncClient {
    fn open(target: Target) -> AsyncClient {
        AsyncClient {
            lazy: Arc::new(Lazy {
                target,
                client: tokio::sync::OnceCell::new(),
                closed: AtomicBool::new(false),
            }),
        }
    }
}

#[pymethods]
impl AsyncClient {
    /// Checks the URL (``InvalidArgumentError`` naming ``url``) without connecting.
    #[new]
    fn new(py: Python<'_>, url: &Bound<'_, PyAny>) -> PyResult<Self> {
        let url = convert::string(url, "url")?;
        leaseq::Client::check_url(&url).map_err(|e| errors::to_py(py, e))?;
        Ok(AsyncClient::open(Target::Single(url)))
    }

    /// A client of a Redis Cluster; checks the URLs without connecting.
    #[staticmethod]
    fn cluster(py: Python<'_>, urls: &Bound<'_, PyAny>) -> PyResult<AsyncClient> {
        let urls = convert::strings(urls, "urls")?;
        leaseq::Client::check_cluster_urls(&urls).map_err(|e| errors::to_py(py, e))?;
        Ok(AsyncClient::open(Target::Cluster(urls)))
    }

    /// Connects now (an asyncio future of ``None``), unless connected already.
    fn connect<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let lazy = self.lazy.clone();
        spawn(py, async move { lazy.client().await.map(drop) })
    }

    /// The queue under ``prefix`` (validated; nothing is sent).
    fn queue(&self, py: Python<'_>, prefix: &Bound<'_, PyAny>) -> PyResult<AsyncQueue> {
        let prefix = convert::string(prefix, "prefix")?;
        leaseq::validate_prefix(&prefix, self.is_cluster()).map_err(|e| errors::to_py(py, e))?;
        Ok(AsyncQueue {
            lazy: self.lazy.clone(),
            prefix: Arc::from(prefix),
        })
    }

    /// See ``leaseq.Client.create_partitioned`` (an asyncio future of the queue).
    fn create_partitioned<'py>(
        &self,
        py: Python<'py>,
        base: &Bound<'py, PyAny>,
        partitions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let base = convert::string(base, "base")?;
        let partitions: usize = convert::integer(partitions, "partitions")?;
        let lazy = self.lazy.clone();
        spawn(py, async move {
            let client = lazy.client().await?;
            let p = client.create_partitioned_async(&base, partitions).await?;
            Ok(crate::partitioned::AsyncPartitionedQueue::new(p, lazy))
        })
    }

    /// See ``leaseq.Client.partitioned`` (an asyncio future of the queue).
    fn partitioned<'py>(
        &self,
        py: Python<'py>,
        base: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let base = convert::string(base, "base")?;
        let lazy = self.lazy.clone();
        spawn(py, async move {
            let p = lazy.client().await?.partitioned_async(&base).await?;
            Ok(crate::partitioned::AsyncPartitionedQueue::new(p, lazy))
        })
    }

    /// Closes the client: waiting leases raise ``ClosedError``, and so does every later call.
    fn close(&self, py: Python<'_>) {
        self.lazy.closed.store(true, Ordering::SeqCst);
        if let Some(client) = self.lazy.client.get() {
            py.detach(|| client.close());
        }
    }

    /// Whether this client talks to a Redis Cluster.
    #[getter]
    fn is_cluster(&self) -> bool {
        matches!(self.lazy.target, Target::Cluster(_))
    }

    /// Risks found in the server's configuration when connecting (none before it connected).
    #[getter]
    fn warnings(&self, py: Python<'_>) -> Vec<String> {
        match self.lazy.client.get() {
            Some(client) => py.detach(|| client.warnings()),
            None => Vec::new(),
        }
    }
}

/// Native half of ``leaseq.aio.Queue``: each method returns an asyncio future.
#[pyclass(module = "leaseq._native", frozen)]
pub struct AsyncQueue {
    lazy: Arc<Lazy>,
    prefix: Arc<str>,
}

impl AsyncQueue {
    /// The queue under `prefix` (a valid one: a partition's) on `lazy`'s client.
    pub(crate) fn new(lazy: Arc<Lazy>, prefix: &str) -> AsyncQueue {
        AsyncQueue {
            lazy,
            prefix: Arc::from(prefix),
        }
    }

    /// Runs `call` on this process's async queue, on the runtime, as an asyncio future. Once
    /// connected, the queue is taken on the Python thread (off the GIL: after a fork the client
    /// reconnects there, as the sync face does); before, the future connects first.
    fn run<'py, T, F>(
        &self,
        py: Python<'py>,
        call: impl FnOnce(leaseq::Queue) -> F + Send + 'static,
    ) -> PyResult<Bound<'py, PyAny>>
    where
        F: Future<Output = leaseq::Result<T>> + Send + 'static,
        T: for<'a> IntoPyObject<'a> + Send + 'static,
    {
        match self.lazy.client.get() {
            Some(client) if !self.lazy.closed.load(Ordering::SeqCst) => {
                let queue = py
                    .detach(|| client.as_async()?.queue(&self.prefix))
                    .map_err(|e| errors::to_py(py, e))?;
                spawn(py, call(queue))
            }
            _ => {
                let (lazy, prefix) = (self.lazy.clone(), self.prefix.clone());
                spawn(py, async move {
                    let queue = lazy.client().await?.as_async()?.queue(&prefix)?;
                    call(queue).await
                })
            }
        }
    }
}

#[pymethods]
impl AsyncQueue {
    /// The prefix of this queue's keys.
    #[getter]
    fn prefix(&self) -> &str {
        &self.prefix
    }

    /// See ``leaseq.Queue.add``; a wait for room is cancelled with the awaiting task.
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

    /// See ``leaseq.Queue.add_unique``.
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

    /// See ``leaseq.Queue.add_batch``; a wait for room is cancelled with the awaiting task.
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

    /// See ``leaseq.Queue.add_flow``.
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

    /// See ``leaseq.Queue.dependencies``.
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

    /// See ``leaseq.Queue.dependency_results``; the results as ``bytes``.
    fn dependency_results<'py>(
        &self,
        py: Python<'py>,
        id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        self.run(py, move |q| async move { q.dependency_results(&id).await })
    }

    /// See ``leaseq.Queue.lease``; a wait is cancelled with the awaiting task.
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

    /// See ``leaseq.Queue.lease_batch``.
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

    /// See ``leaseq.Queue.complete``.
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
        // The core refuses `keep_result_for` without a result.
        self.run(py, move |q| async move {
            q.complete_with_result(&lease.get().inner, result.as_deref(), keep)
                .await
        })
    }

    /// See ``leaseq.Queue.complete_and_lease``.
    #[pyo3(signature = (lease, ttl = None, result = None, keep_result_for = None))]
    fn complete_and_lease<'py>(
        &self,
        py: Python<'py>,
        lease: &Bound<'py, PyAny>,
        ttl: Option<&Bound<'py, PyAny>>,
        result: Option<&Bound<'py, PyAny>>,
        keep_result_for: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = convert::lease(lease, "lease")?;
        let ttl = convert::ttl(ttl)?;
        let result = convert::opt_data(result, "result")?;
        let keep = convert::opt_seconds(keep_result_for, "keep_result_for")?;
        self.run(py, move |q| async move {
            let (done, next) = q
                .complete_and_lease_with_result(&lease.get().inner, result.as_deref(), keep, ttl)
                .await?;
            Ok((done, next.map(NewLease)))
        })
    }

    /// See ``leaseq.Queue.renew``.
    #[pyo3(signature = (lease, ttl = None))]
    fn renew<'py>(
        &self,
        py: Python<'py>,
        lease: &Bound<'py, PyAny>,
        ttl: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = convert::lease(lease, "lease")?;
        let ttl = convert::ttl(ttl)?;
        self.run(py, move |q| async move {
            q.renew(&lease.get().inner, ttl).await
        })
    }

    /// See ``leaseq.Queue.renew_outcome``.
    #[pyo3(signature = (lease, ttl = None))]
    fn renew_outcome<'py>(
        &self,
        py: Python<'py>,
        lease: &Bound<'py, PyAny>,
        ttl: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = convert::lease(lease, "lease")?;
        let ttl = convert::ttl(ttl)?;
        self.run(py, move |q| async move {
            q.renew_outcome(&lease.get().inner, ttl)
                .await
                .map(RenewName)
        })
    }

    /// See ``leaseq.Queue.fail``.
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

    /// See ``leaseq.Queue.release``.
    #[pyo3(signature = (lease, delay = None))]
    fn release<'py>(
        &self,
        py: Python<'py>,
        lease: &Bound<'py, PyAny>,
        delay: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = convert::lease(lease, "lease")?;
        let delay = convert::opt_seconds(delay, "delay")?;
        self.run(py, move |q| async move {
            q.release(&lease.get().inner, delay).await
        })
    }

    /// See ``leaseq.Queue.progress``.
    fn progress<'py>(
        &self,
        py: Python<'py>,
        lease: &Bound<'py, PyAny>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = convert::lease(lease, "lease")?;
        let value = convert::data(value, "value")?;
        self.run(py, move |q| async move {
            q.progress(&lease.get().inner, &value).await
        })
    }

    /// See ``leaseq.Queue.lease_from_parts`` (nothing is sent: it returns the lease itself).
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
        leaseq::Lease::from_parts(&self.prefix, &id, &token, &incarnation, attempt)
            .map(NewLease)
            .map_err(|e| errors::to_py(py, e))
    }

    /// See ``leaseq.Queue.complete_batch``.
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

    /// See ``leaseq.Queue.complete_and_lease_batch``.
    #[pyo3(signature = (completions, n, ttl = None))]
    fn complete_and_lease_batch<'py>(
        &self,
        py: Python<'py>,
        completions: &Bound<'py, PyAny>,
        n: &Bound<'py, PyAny>,
        ttl: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let owned = convert::completions(completions, "completions")?;
        let n: usize = convert::integer(n, "n")?;
        let ttl = convert::ttl(ttl)?;
        self.run(py, move |q| async move {
            let list: Vec<_> = owned.iter().map(convert::borrow_completion).collect();
            let (done, leases) = q.complete_and_lease_batch(&list, n, ttl).await?;
            Ok((done, leases.into_iter().map(NewLease).collect::<Vec<_>>()))
        })
    }

    /// See ``leaseq.Queue.renew_batch``.
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

    /// See ``leaseq.Queue.fail_batch``.
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

    /// See ``leaseq.Queue.result``.
    fn result<'py>(&self, py: Python<'py>, id: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        self.run(py, move |q| async move {
            Ok(q.result(&id).await?.map(JobResult::from))
        })
    }

    /// See ``leaseq.Queue.wait_result``; the wait is cancelled with the awaiting task.
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

    /// See ``leaseq.Queue.get``.
    fn get<'py>(&self, py: Python<'py>, id: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        self.run(
            py,
            move |q| async move { Ok(q.get(&id).await?.map(Job::from)) },
        )
    }

    /// See ``leaseq.Queue.list``.
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
        // The operation table's defaults (leaseq::operations); the core's method takes both.
        let start: usize = convert::opt_integer(start, "start")?.unwrap_or(0);
        let count: usize = convert::opt_integer(count, "count")?.unwrap_or(100);
        self.run(py, move |q| async move {
            let entries = q.list(state, start, count).await?;
            Ok(entries.into_iter().map(Entry::from).collect::<Vec<_>>())
        })
    }

    /// See ``leaseq.Queue.find``.
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

    /// See ``leaseq.Queue.promote``.
    fn promote<'py>(&self, py: Python<'py>, id: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        self.run(py, move |q| async move { q.promote(&id).await })
    }

    /// See ``leaseq.Queue.upsert_schedule``.
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

    /// See ``leaseq.Queue.remove_schedule``.
    fn remove_schedule<'py>(
        &self,
        py: Python<'py>,
        name: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let name = convert::string(name, "name")?;
        self.run(py, move |q| async move { q.remove_schedule(&name).await })
    }

    /// See ``leaseq.Queue.get_schedule``.
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

    /// See ``leaseq.Queue.schedules``.
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

    /// See ``leaseq.Queue.fire_due_schedules``.
    fn fire_due_schedules<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move {
            q.fire_due_schedules()
                .await
                .map(crate::schedules::FireReport::from)
        })
    }

    /// See ``leaseq.Queue.count``.
    fn count<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let state = convert::state(py, state)?;
        self.run(py, move |q| async move { q.count(state).await })
    }

    /// See ``leaseq.Queue.stats``.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.stats().await.map(Stats::from) })
    }

    /// See ``leaseq.Queue.counts_by_name``.
    fn counts_by_name<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move {
            q.counts_by_name().await.map(|counts| {
                counts.map(|c| c.into_iter().map(NameCounts::from).collect::<Vec<_>>())
            })
        })
    }

    /// See ``leaseq.Queue.pause``.
    fn pause<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.pause().await })
    }

    /// See ``leaseq.Queue.resume``.
    fn resume<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.resume().await })
    }

    /// See ``leaseq.Queue.is_paused``.
    fn is_paused<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.is_paused().await })
    }

    /// See ``leaseq.Queue.exists``.
    fn exists<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.exists().await })
    }

    /// See ``leaseq.Queue.pause_group``.
    fn pause_group<'py>(
        &self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let group = convert::string(group, "group")?;
        self.run(py, move |q| async move { q.pause_group(&group).await })
    }

    /// See ``leaseq.Queue.resume_group``.
    fn resume_group<'py>(
        &self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let group = convert::string(group, "group")?;
        self.run(py, move |q| async move { q.resume_group(&group).await })
    }

    /// See ``leaseq.Queue.set_group_limit``.
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

    /// See ``leaseq.Queue.group``.
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

    /// See ``leaseq.Queue.rate_limit``.
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

    /// See ``leaseq.Queue.rate_limit_group``.
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

    /// See ``leaseq.Queue.cancel``.
    fn cancel<'py>(&self, py: Python<'py>, id: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let id = convert::id(id, "id")?;
        self.run(
            py,
            |q| async move { Ok(q.cancel(&id).await?.map(StateName)) },
        )
    }

    /// See ``leaseq.Queue.dead_requeue``.
    fn dead_requeue<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ids = convert::ids(ids, "ids")?;
        self.run(py, move |q| async move { q.dead_requeue(&ids).await })
    }

    /// See ``leaseq.Queue.dead_requeue_each``.
    fn dead_requeue_each<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ids = convert::ids(ids, "ids")?;
        self.run(py, move |q| async move { q.dead_requeue_each(&ids).await })
    }

    /// See ``leaseq.Queue.dead_requeue_oldest``.
    #[pyo3(signature = (n = None))]
    fn dead_requeue_oldest<'py>(
        &self,
        py: Python<'py>,
        n: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = convert::opt_integer(n, "n")?;
        self.run(py, move |q| async move { q.dead_requeue_oldest(n).await })
    }

    /// See ``leaseq.Queue.dead_purge``.
    #[pyo3(signature = (n = None))]
    fn dead_purge<'py>(
        &self,
        py: Python<'py>,
        n: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = convert::opt_integer(n, "n")?;
        self.run(py, move |q| async move { q.dead_purge(n).await })
    }

    /// See ``leaseq.Queue.config``.
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(
            py,
            |q| async move { q.config().await.map(QueueConfig::from) },
        )
    }

    /// See ``leaseq.Queue.set_config``.
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

    /// See ``leaseq.Queue.read_events``.
    #[pyo3(
        signature = (after = None, count = None),
        text_signature = "($self, after=None, count=100)"
    )]
    fn read_events<'py>(
        &self,
        py: Python<'py>,
        after: Option<&Bound<'py, PyAny>>,
        count: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let after = crate::events::after(after)?;
        let count = convert::opt_integer(count, "count")?.unwrap_or(100);
        self.run(py, move |q| async move {
            q.read_events(after.as_deref(), count)
                .await
                .map(crate::events::EventsPage::from)
        })
    }

    /// See ``leaseq.Queue.events``: a future of the follower, whose ``next()`` is a future of
    /// the next entry.
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

    /// See ``leaseq.Queue.reset_config``.
    fn reset_config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.reset_config().await })
    }

    /// See ``leaseq.Queue.light_clean``.
    fn light_clean<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move {
            q.light_clean().await.map(CleanReport::from)
        })
    }

    /// See ``leaseq.Queue.deep_clean``.
    fn deep_clean<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move {
            q.deep_clean().await.map(CleanReport::from)
        })
    }

    /// See ``leaseq.Queue.queue_len``.
    fn queue_len<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.queue_len().await })
    }

    /// See ``leaseq.Queue.processing_len``.
    fn processing_len<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.run(py, move |q| async move { q.processing_len().await })
    }
}
