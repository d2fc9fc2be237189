//! The blocking face of a partitioned queue (spec/PROTOCOL.md 5.25): [`Partitioned`], a thin
//! skin over [`crate::Partitioned`] for the C ABI and sync Python. No logic of its own: every
//! call runs the async one on the shared runtime and blocks only the calling thread.
//!
//! The one piece of the facade's internals used here is [`Client::live`] (this process's
//! runtime and async client, reconnected after a fork), in [`Partitioned::live`].

use std::sync::Arc;
use std::time::Duration;

use tokio::runtime::Handle;

use super::Client;
use crate::error::Result;
use crate::runtime::PerProcess;
use crate::{Entry, Flow, Item, Job, JobResult, Lease, PartitionedStats, QueueConfig, State, Wait};

/// A blocking handle to a partitioned queue ([`Client::partitioned`],
/// [`Client::create_partitioned`]). Cheap to clone; `Send + Sync`; clones share the rotation
/// of leases over the partitions. In a forked child it opens the queue again on the child's
/// connection (one round trip, on first use).
#[derive(Clone)]
pub struct Partitioned {
    client: Client,
    base: String,
    prefixes: Arc<[String]>,
    live: Arc<PerProcess<crate::Partitioned>>,
}

impl Client {
    /// See [`crate::Client::partitioned`]: the same call, blocking only the calling thread.
    pub fn partitioned(&self, base: &str) -> Result<Partitioned> {
        let (runtime, client) = self.live()?;
        let inner = runtime.block_on(client.partitioned(base))?;
        Ok(Partitioned::new(self, inner))
    }

    /// See [`crate::Client::create_partitioned`]: the same call, blocking only the calling
    /// thread.
    pub fn create_partitioned(&self, base: &str, partitions: usize) -> Result<Partitioned> {
        let (runtime, client) = self.live()?;
        let inner = runtime.block_on(client.create_partitioned(base, partitions))?;
        Ok(Partitioned::new(self, inner))
    }
}

impl Client {
    /// [`Client::partitioned`] that does not block its caller, for async faces that keep the
    /// blocking handle for its fork-awareness (as [`Client::connect_async`]). Run it on the
    /// bindings' runtime.
    pub async fn partitioned_async(&self, base: &str) -> Result<Partitioned> {
        let inner = self.as_async()?.partitioned(base).await?;
        Ok(Partitioned::new(self, inner))
    }

    /// [`Client::create_partitioned`] that does not block its caller; see
    /// [`Client::partitioned_async`].
    pub async fn create_partitioned_async(
        &self,
        base: &str,
        partitions: usize,
    ) -> Result<Partitioned> {
        let inner = self
            .as_async()?
            .create_partitioned(base, partitions)
            .await?;
        Ok(Partitioned::new(self, inner))
    }
}

impl std::fmt::Debug for Partitioned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Partitioned")
            .field("base", &self.base)
            .field("prefixes", &self.prefixes)
            .finish()
    }
}

/// Writes the blocking twin of each listed async [`crate::Partitioned`] operation.
macro_rules! blocking_partitioned {
    ($(fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {
        impl Partitioned {
            $(
                #[doc = concat!(
                    "See [`crate::Partitioned::", stringify!($name), "`]: the same call, ",
                    "blocking only the calling thread."
                )]
                pub fn $name(&self $(, $arg: $ty)*) -> $ret {
                    let (runtime, p) = self.live()?;
                    runtime.block_on(p.$name($($arg),*))
                }
            )*
        }
    };
}

impl Partitioned {
    fn new(client: &Client, inner: crate::Partitioned) -> Partitioned {
        Partitioned {
            client: client.clone(),
            base: inner.base().to_owned(),
            prefixes: inner
                .partitions()
                .iter()
                .map(|q| q.prefix().to_owned())
                .collect(),
            live: Arc::new(PerProcess::new(inner)),
        }
    }

    /// This process's runtime and async partitioned queue: in a forked child, opened again
    /// (by its base) on the child's client.
    fn live(&self) -> Result<(Handle, crate::Partitioned)> {
        let (runtime, client) = self.client.live()?;
        let inner = self
            .live
            .get(|_parent| runtime.block_on(client.partitioned(&self.base)))?;
        Ok((runtime, inner))
    }

    /// The async partitioned queue behind this handle, for this process: for what runs on
    /// the runtime itself, such as a [`crate::worker::Worker`].
    pub fn as_async(&self) -> Result<crate::Partitioned> {
        self.live().map(|(_, p)| p)
    }

    /// The base that names the logical queue.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The partitions' prefixes, in order: partition `i` is a full queue under `prefixes()[i]`.
    pub fn prefixes(&self) -> &[String] {
        &self.prefixes
    }

    /// How many partitions the queue has.
    pub fn count(&self) -> usize {
        self.prefixes.len()
    }

    /// Partition `i` as a blocking [`super::Queue`] (argument `partition` when out of range).
    pub fn partition(&self, i: usize) -> Result<super::Queue> {
        let prefix = self.prefixes.get(i).ok_or_else(|| {
            crate::Error::invalid(
                "partition",
                format!("must be below {}", self.prefixes.len()),
            )
        })?;
        self.client.queue(prefix)
    }

    /// The partition that issued `lease`, as a blocking [`super::Queue`]: where to finish it
    /// with what [`Partitioned`] does not offer (a result, a renew, a failure). See
    /// [`crate::Partitioned::queue_of`] (argument `lease` for a lease of another queue).
    pub fn queue_of(&self, lease: &Lease) -> Result<super::Queue> {
        let (_, p) = self.live()?;
        let prefix = p.queue_of(lease)?.prefix().to_owned();
        self.client.queue(&prefix)
    }

    /// Like [`Partitioned::lease_batch`], for callers that must react while it waits (a Python
    /// thread checking for Ctrl-C): `check` runs on the calling thread every `every`, and its
    /// error abandons the wait and is returned, as in [`super::Queue::lease_interruptible`].
    pub fn lease_batch_interruptible<E>(
        &self,
        n: usize,
        ttl: Duration,
        wait: Wait,
        every: Duration,
        mut check: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<Vec<Lease>>, E> {
        let (runtime, p) = match self.live() {
            Ok(live) => live,
            Err(e) => return Ok(Err(e)),
        };
        let mut task = runtime.spawn(async move { p.lease_batch(n, ttl, wait).await });
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
}

blocking_partitioned! {
    fn add(&self, item: &Item) -> Result<bool>;
    fn add_batch(&self, items: &[Item]) -> Result<usize>;
    fn add_flow(&self, parent: &Item, children: &[Flow]) -> Result<usize>;
    fn lease(&self, ttl: Duration, wait: Wait) -> Result<Option<Lease>>;
    fn lease_batch(&self, n: usize, ttl: Duration, wait: Wait) -> Result<Vec<Lease>>;
    fn complete(&self, lease: &Lease) -> Result<bool>;
    fn get(&self, id: impl AsRef<[u8]>) -> Result<Option<Job>>;
    fn cancel(&self, id: impl AsRef<[u8]>) -> Result<Option<State>>;
    fn result(&self, id: impl AsRef<[u8]>) -> Result<Option<JobResult>>;
    fn stats(&self) -> Result<PartitionedStats>;
    fn count_in(&self, state: State) -> Result<u64>;
    fn list(&self, state: State, start: usize, count: usize) -> Result<Vec<Entry>>;
    fn dead_requeue_oldest(&self, n: Option<u64>) -> Result<u64>;
    fn dead_purge(&self, n: Option<u64>) -> Result<u64>;
    fn pause(&self) -> Result<bool>;
    fn resume(&self) -> Result<bool>;
    fn set_config(&self, config: &QueueConfig) -> Result<()>;
}
