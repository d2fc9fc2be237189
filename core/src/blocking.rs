//! A synchronous face over the async API, for callers without a tokio runtime (the C ABI, sync
//! Python). Each [`Client`] owns a small runtime; calls block only the calling thread, and many
//! threads may call one client at once.
//!
//! Fork-safe: a client used in a forked child (multiprocessing, gunicorn) notices the new
//! process id and reconnects with the same URL instead of touching the parent's runtime and
//! sockets.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::runtime::Runtime;

use crate::error::{Error, Result};
use crate::{CleanReport, Item, Lease, RenewOutcome, Wait};

#[derive(Clone)]
enum Target {
    Single(String),
    Cluster(Vec<String>),
}

struct Live {
    pid: u32,
    runtime: Arc<Runtime>,
    client: crate::Client,
}

struct Shared {
    target: Target,
    live: Mutex<Live>,
}

/// A blocking handle to Redis. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
}

/// A blocking handle to one queue. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Queue {
    client: Client,
    prefix: String,
}

fn new_runtime() -> Result<Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("leaseq-io")
        .enable_all()
        .build()
        .map_err(|e| {
            Error::Connection(redis::RedisError::from((
                redis::ErrorKind::Io,
                "cannot start the I/O runtime",
                e.to_string(),
            )))
        })
}

async fn connect(target: &Target) -> Result<crate::Client> {
    match target {
        Target::Single(url) => crate::Client::connect(url).await,
        Target::Cluster(urls) => crate::Client::connect_cluster(urls).await,
    }
}

impl Client {
    /// Connects to one Redis server; see [`crate::Client::connect`] for the URL forms.
    pub fn connect(url: &str) -> Result<Client> {
        Client::open(Target::Single(url.to_owned()))
    }

    /// Connects to a Redis Cluster; see [`crate::Client::connect_cluster`].
    pub fn connect_cluster<I, S>(urls: I) -> Result<Client>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Client::open(Target::Cluster(
            urls.into_iter().map(|u| u.as_ref().to_owned()).collect(),
        ))
    }

    fn open(target: Target) -> Result<Client> {
        let runtime = Arc::new(new_runtime()?);
        let client = runtime.block_on(connect(&target))?;
        Ok(Client {
            shared: Arc::new(Shared {
                target,
                live: Mutex::new(Live {
                    pid: std::process::id(),
                    runtime,
                    client,
                }),
            }),
        })
    }

    /// The runtime and async client of this process, reconnecting first after a fork.
    fn live(&self) -> Result<(Arc<Runtime>, crate::Client)> {
        let mut live = self.shared.live.lock().unwrap_or_else(|e| e.into_inner());
        let pid = std::process::id();
        if live.pid != pid {
            let closed = live.client.is_closed();
            let runtime = Arc::new(new_runtime()?);
            let client = runtime.block_on(connect(&self.shared.target))?;
            if closed {
                client.close();
            }
            // The parent's runtime has no threads in this process: never drop it here, since
            // shutting it down would wait for them forever.
            let old = std::mem::replace(
                &mut *live,
                Live {
                    pid,
                    runtime,
                    client,
                },
            );
            std::mem::forget(old);
        }
        Ok((live.runtime.clone(), live.client.clone()))
    }

    fn run<T>(&self, f: impl AsyncFnOnce(crate::Client) -> Result<T>) -> Result<T> {
        let (runtime, client) = self.live()?;
        runtime.block_on(f(client))
    }

    /// The queue under `prefix` (validated; nothing is sent).
    pub fn queue(&self, prefix: &str) -> Result<Queue> {
        let (_, client) = self.live()?;
        client.queue(prefix)?;
        Ok(Queue {
            client: self.clone(),
            prefix: prefix.to_owned(),
        })
    }

    /// See [`crate::Client::close`]: waiting leases on any thread return [`Error::Closed`].
    pub fn close(&self) {
        if let Ok((_, client)) = self.live() {
            client.close();
        }
    }

    /// Whether this client talks to a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        matches!(self.shared.target, Target::Cluster(_))
    }

    /// See [`crate::Client::warnings`].
    pub fn warnings(&self) -> Vec<String> {
        self.live()
            .map(|(_, c)| c.warnings().to_vec())
            .unwrap_or_default()
    }
}

impl Queue {
    fn run<T>(&self, f: impl AsyncFnOnce(crate::Queue) -> Result<T>) -> Result<T> {
        let prefix = &self.prefix;
        self.client
            .run(async move |client| f(client.queue(prefix)?).await)
    }

    /// The prefix of this queue's keys.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// See [`crate::Queue::add`].
    pub fn add(&self, item: &Item) -> Result<bool> {
        self.run(async |q| q.add(item).await)
    }

    /// See [`crate::Queue::add_unique`].
    pub fn add_unique(&self, item: &Item) -> Result<()> {
        self.run(async |q| q.add_unique(item).await)
    }

    /// See [`crate::Queue::add_batch`].
    pub fn add_batch(&self, items: &[Item]) -> Result<usize> {
        self.run(async |q| q.add_batch(items).await)
    }

    /// See [`crate::Queue::lease`]. Blocks only the calling thread.
    pub fn lease(&self, ttl: Duration, wait: Wait) -> Result<Option<Lease>> {
        self.run(async |q| q.lease(ttl, wait).await)
    }

    /// Like [`Queue::lease`], for callers that must react while it waits (a Python thread
    /// checking for Ctrl-C): `check` runs on the calling thread every `every` while the wait
    /// goes on, and when it returns an error the wait is abandoned and that error returned. The
    /// wait itself is one server-side wait, not a series of short leases.
    ///
    /// An interrupt that lands in the instant an item is being leased leaves that item leased
    /// to nobody; it comes back through light clean after `ttl`.
    pub fn lease_interruptible<E>(
        &self,
        ttl: Duration,
        wait: Wait,
        every: Duration,
        mut check: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<Option<Lease>>, E> {
        let (runtime, client) = match self.client.live() {
            Ok(live) => live,
            Err(e) => return Ok(Err(e)),
        };
        let queue = match client.queue(&self.prefix) {
            Ok(q) => q,
            Err(e) => return Ok(Err(e)),
        };
        let mut task = runtime.spawn(async move { queue.lease(ttl, wait).await });
        loop {
            // The timer must be made inside the runtime, hence the async block.
            match runtime.block_on(async { tokio::time::timeout(every, &mut task).await }) {
                Ok(Ok(result)) => return Ok(result),
                Ok(Err(join)) => std::panic::resume_unwind(join.into_panic()),
                Err(_still_waiting) => {
                    if let Err(e) = check() {
                        task.abort();
                        return Err(e);
                    }
                }
            }
        }
    }

    /// See [`crate::Queue::complete`].
    pub fn complete(&self, lease: &Lease) -> Result<bool> {
        self.run(async |q| q.complete(lease).await)
    }

    /// See [`crate::Queue::complete_and_lease`].
    pub fn complete_and_lease(
        &self,
        lease: &Lease,
        ttl: Duration,
    ) -> Result<(bool, Option<Lease>)> {
        self.run(async |q| q.complete_and_lease(lease, ttl).await)
    }

    /// See [`crate::Queue::renew`].
    pub fn renew(&self, lease: &Lease, ttl: Duration) -> Result<bool> {
        self.run(async |q| q.renew(lease, ttl).await)
    }

    /// See [`crate::Queue::renew_outcome`].
    pub fn renew_outcome(&self, lease: &Lease, ttl: Duration) -> Result<RenewOutcome> {
        self.run(async |q| q.renew_outcome(lease, ttl).await)
    }

    /// See [`crate::Queue::light_clean`].
    pub fn light_clean(&self) -> Result<CleanReport> {
        self.run(async |q| q.light_clean().await)
    }

    /// See [`crate::Queue::deep_clean`].
    pub fn deep_clean(&self) -> Result<CleanReport> {
        self.run(async |q| q.deep_clean().await)
    }

    /// See [`crate::Queue::queue_len`].
    pub fn queue_len(&self) -> Result<u64> {
        self.run(async |q| q.queue_len().await)
    }

    /// See [`crate::Queue::processing_len`].
    pub fn processing_len(&self) -> Result<u64> {
        self.run(async |q| q.processing_len().await)
    }

    /// See [`crate::Queue::lease_from_parts`].
    pub fn lease_from_parts(&self, id: &str, token: &str, count: u64) -> Result<Lease> {
        self.run(async |q| q.lease_from_parts(id, token, count))
    }
}
