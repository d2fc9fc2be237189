//! The asyncio face's native half: `AsyncClient` and `AsyncQueue`, whose methods return asyncio
//! futures driven by the async core on this process's runtime (`runtime.rs`). The typed
//! `async def` wrappers users see are `leaseq/aio.py`.
//!
//! Fork-safe like `leaseq::blocking`: a client first used in a forked child reconnects with the
//! same URLs (and stays closed if it was closed).

use std::future::Future;
use std::sync::{Arc, Mutex};

use leaseq::Wait;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::convert::{self, Block, Timeout, Ttl};
use crate::errors;
use crate::runtime;
use crate::types::{CleanReport, NewLease};

enum Target {
    Single(String),
    Cluster(Vec<String>),
}

impl Target {
    async fn connect(&self) -> leaseq::Result<leaseq::Client> {
        match self {
            Target::Single(url) => leaseq::Client::connect(url).await,
            Target::Cluster(urls) => leaseq::Client::connect_cluster(urls).await,
        }
    }
}

struct Shared {
    target: Target,
    /// The process that made `client`, and the client.
    live: Mutex<(u32, leaseq::Client)>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, (u32, leaseq::Client)> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// This process's client, reconnecting first after a fork.
    async fn client(&self) -> leaseq::Result<leaseq::Client> {
        let pid = std::process::id();
        let closed = {
            let live = self.lock();
            if live.0 == pid {
                return Ok(live.1.clone());
            }
            live.1.is_closed()
        };
        let fresh = self.target.connect().await?;
        if closed {
            fresh.close();
        }
        let mut live = self.lock();
        if live.0 != pid {
            // The parent's client holds tasks of a runtime with no threads here: never drop it.
            std::mem::forget(std::mem::replace(&mut *live, (pid, fresh)));
        }
        Ok(live.1.clone())
    }
}

fn open(py: Python<'_>, target: Target) -> PyResult<AsyncClient> {
    let runtime = runtime::handle().map_err(|e| errors::runtime(py, e))?;
    let client = py
        .detach(|| runtime.block_on(target.connect()))
        .map_err(|e| errors::to_py(py, e))?;
    Ok(AsyncClient {
        shared: Arc::new(Shared {
            target,
            live: Mutex::new((std::process::id(), client)),
        }),
    })
}

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
fn spawn<'py, T, F>(py: Python<'py>, fut: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = leaseq::Result<T>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    pyo3_async_runtimes::generic::future_into_py::<runtime::Tokio, _, Outcome<T>>(py, async move {
        Ok(Outcome(fut.await))
    })
}

/// Stops the asyncio face's runtime; `leaseq.aio` registers it with `atexit`.
#[pyfunction]
pub fn _shutdown(py: Python<'_>) {
    py.detach(runtime::shutdown);
}

/// Native half of ``leaseq.aio.Client``.
#[pyclass(module = "leaseq._native", frozen)]
pub struct AsyncClient {
    shared: Arc<Shared>,
}

#[pymethods]
impl AsyncClient {
    #[new]
    fn new(py: Python<'_>, url: &Bound<'_, PyAny>) -> PyResult<Self> {
        let url = convert::string(url, "url")?;
        open(py, Target::Single(url))
    }

    /// Connects to a Redis Cluster.
    #[staticmethod]
    fn cluster(py: Python<'_>, urls: &Bound<'_, PyAny>) -> PyResult<AsyncClient> {
        let urls = convert::strings(urls, "urls")?;
        open(py, Target::Cluster(urls))
    }

    /// The queue under ``prefix`` (validated; nothing is sent).
    fn queue(&self, py: Python<'_>, prefix: &Bound<'_, PyAny>) -> PyResult<AsyncQueue> {
        let prefix = convert::string(prefix, "prefix")?;
        // Validation only: the queue asks `Shared::client` for this process's client each call.
        let client = self.shared.lock().1.clone();
        client.queue(&prefix).map_err(|e| errors::to_py(py, e))?;
        Ok(AsyncQueue {
            shared: self.shared.clone(),
            prefix: Arc::from(prefix),
        })
    }

    /// Closes the client: waiting leases raise ``ClosedError``, and so does every later call.
    fn close(&self) {
        self.shared.lock().1.close();
    }

    /// Whether this client talks to a Redis Cluster.
    #[getter]
    fn is_cluster(&self) -> bool {
        matches!(self.shared.target, Target::Cluster(_))
    }

    /// Risks found in the server's configuration when connecting.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.shared.lock().1.warnings().to_vec()
    }
}

/// Native half of ``leaseq.aio.Queue``: each method returns an asyncio future.
#[pyclass(module = "leaseq._native", frozen)]
pub struct AsyncQueue {
    shared: Arc<Shared>,
    prefix: Arc<str>,
}

impl AsyncQueue {
    /// What a spawned call needs: it owns everything and outlives the Python call.
    fn handle(&self) -> Handle {
        Handle {
            shared: self.shared.clone(),
            prefix: self.prefix.clone(),
        }
    }
}

struct Handle {
    shared: Arc<Shared>,
    prefix: Arc<str>,
}

impl Handle {
    async fn queue(&self) -> leaseq::Result<leaseq::Queue> {
        self.shared.client().await?.queue(&self.prefix)
    }
}

#[pymethods]
impl AsyncQueue {
    /// The prefix of this queue's keys.
    #[getter]
    fn prefix(&self) -> &str {
        &self.prefix
    }

    /// See ``leaseq.Queue.add``.
    fn add<'py>(&self, py: Python<'py>, item: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let item = convert::item(item, "item")?;
        let h = self.handle();
        spawn(
            py,
            async move { h.queue().await?.add(&item.get().inner).await },
        )
    }

    /// See ``leaseq.Queue.add_unique``.
    fn add_unique<'py>(
        &self,
        py: Python<'py>,
        item: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let item = convert::item(item, "item")?;
        let h = self.handle();
        spawn(py, async move {
            h.queue().await?.add_unique(&item.get().inner).await
        })
    }

    /// See ``leaseq.Queue.add_batch``.
    fn add_batch<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let items = convert::items(items, "items")?;
        let h = self.handle();
        spawn(py, async move { h.queue().await?.add_batch(&items).await })
    }

    /// See ``leaseq.Queue.lease``; the wait is cancelled with the awaiting task.
    #[pyo3(
        signature = (ttl = Ttl::DEFAULT, block = Block(true), timeout = Timeout(None)),
        text_signature = "($self, ttl=30.0, block=True, timeout=None)"
    )]
    fn lease<'py>(
        &self,
        py: Python<'py>,
        ttl: Ttl,
        block: Block,
        timeout: Timeout,
    ) -> PyResult<Bound<'py, PyAny>> {
        let wait = if block.0 {
            Wait::from_timeout(timeout.0)
        } else {
            Wait::No
        };
        let h = self.handle();
        spawn(py, async move {
            Ok(h.queue().await?.lease(ttl.0, wait).await?.map(NewLease))
        })
    }

    /// See ``leaseq.Queue.complete``.
    fn complete<'py>(
        &self,
        py: Python<'py>,
        lease: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = convert::lease(lease, "lease")?;
        let h = self.handle();
        spawn(py, async move {
            h.queue().await?.complete(&lease.get().inner).await
        })
    }

    /// See ``leaseq.Queue.complete_and_lease``.
    #[pyo3(signature = (lease, ttl = Ttl::DEFAULT), text_signature = "($self, lease, ttl=30.0)")]
    fn complete_and_lease<'py>(
        &self,
        py: Python<'py>,
        lease: &Bound<'py, PyAny>,
        ttl: Ttl,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = convert::lease(lease, "lease")?;
        let h = self.handle();
        spawn(py, async move {
            let (done, next) = h
                .queue()
                .await?
                .complete_and_lease(&lease.get().inner, ttl.0)
                .await?;
            Ok((done, next.map(NewLease)))
        })
    }

    /// See ``leaseq.Queue.renew``.
    #[pyo3(signature = (lease, ttl = Ttl::DEFAULT), text_signature = "($self, lease, ttl=30.0)")]
    fn renew<'py>(
        &self,
        py: Python<'py>,
        lease: &Bound<'py, PyAny>,
        ttl: Ttl,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lease = convert::lease(lease, "lease")?;
        let h = self.handle();
        spawn(py, async move {
            h.queue().await?.renew(&lease.get().inner, ttl.0).await
        })
    }

    /// See ``leaseq.Queue.light_clean``.
    fn light_clean<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let h = self.handle();
        spawn(py, async move {
            Ok(CleanReport::from(h.queue().await?.light_clean().await?))
        })
    }

    /// See ``leaseq.Queue.deep_clean``.
    fn deep_clean<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let h = self.handle();
        spawn(py, async move {
            Ok(CleanReport::from(h.queue().await?.deep_clean().await?))
        })
    }

    /// See ``leaseq.Queue.queue_len``.
    fn queue_len<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let h = self.handle();
        spawn(py, async move { h.queue().await?.queue_len().await })
    }

    /// See ``leaseq.Queue.processing_len``.
    fn processing_len<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let h = self.handle();
        spawn(py, async move { h.queue().await?.processing_len().await })
    }
}
