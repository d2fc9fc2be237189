//! The blocking face of a partitioned queue (spec/PROTOCOL.md 5.25): [`Partitioned`], a thin
//! skin over [`crate::Partitioned`] for the C ABI and sync Python. No logic of its own: every
//! call runs the async one on the blocking calls' runtime, driven by the calling thread, as
//! [`super::Queue`]'s calls are (`drive`).
//!
//! The facade's internals used here: its per-process values (`PerProcess`), the blocking
//! calls' client (`Client::direct`, made again after a fork), the shared runtime's client
//! (`Client::live`, for [`Partitioned::as_async`]) and `drive`.

use std::sync::Arc;
use std::time::Duration;

use tokio::runtime::Runtime;

use super::{drive, drive_interruptible, Client, PerProcess};
use crate::error::Result;
use crate::{
    CleanReport, Completion, Dependencies, Entry, FailOutcome, Failure, FireReport, Flow, Found,
    GroupInfo, Item, Job, JobResult, Lease, NameCounts, PartitionedStats, QueueConfig,
    RenewOutcome, Retry, Schedule, ScheduleInfo, SchedulePage, State, Wait,
};

/// A blocking handle to a partitioned queue ([`Client::partitioned`],
/// [`Client::create_partitioned`]). Cheap to clone; `Send + Sync`; clones share the rotation
/// of leases over the partitions. In a forked child it opens the queue again on the child's
/// connection (one round trip, on first use).
#[derive(Clone)]
pub struct Partitioned {
    client: Client,
    base: String,
    prefixes: Arc<[String]>,
    /// This process's partitioned queue on the blocking calls' client.
    direct: Arc<PerProcess<DirectPartitioned>>,
    /// This process's partitioned queue on the shared runtime's client ([`Partitioned::as_async`]).
    live: Arc<PerProcess<crate::Partitioned>>,
}

/// A partitioned queue of the blocking calls' client, with the runtime its calls are driven on.
#[derive(Clone)]
struct DirectPartitioned {
    inner: crate::Partitioned,
    runtime: Arc<Runtime>,
}

impl Client {
    /// See [`crate::Client::partitioned`]: the same call, blocking only the calling thread.
    pub fn partitioned(&self, base: &str) -> Result<Partitioned> {
        let direct = self.direct()?;
        let inner = drive(&direct.runtime, direct.client.partitioned(base))?;
        Ok(Partitioned::new(
            self,
            DirectPartitioned {
                inner,
                runtime: direct.runtime,
            },
        ))
    }

    /// See [`crate::Client::create_partitioned`]: the same call, blocking only the calling
    /// thread.
    pub fn create_partitioned(&self, base: &str, partitions: usize) -> Result<Partitioned> {
        let direct = self.direct()?;
        let inner = drive(
            &direct.runtime,
            direct.client.create_partitioned(base, partitions),
        )?;
        Ok(Partitioned::new(
            self,
            DirectPartitioned {
                inner,
                runtime: direct.runtime,
            },
        ))
    }
}

impl Client {
    /// [`Client::partitioned`] that does not block its caller, for async faces that keep the
    /// blocking handle for its fork-awareness (as [`Client::connect_async`]). Run it on the
    /// bindings' runtime.
    pub async fn partitioned_async(&self, base: &str) -> Result<Partitioned> {
        let inner = self.as_async()?.partitioned(base).await?;
        Ok(Partitioned::new_live(self, inner))
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
        Ok(Partitioned::new_live(self, inner))
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
                    let direct = self.direct()?;
                    drive(&direct.runtime, direct.inner.$name($($arg),*))
                }
            )*
        }
    };
}

impl Partitioned {
    fn new(client: &Client, direct: DirectPartitioned) -> Partitioned {
        Partitioned {
            client: client.clone(),
            base: direct.inner.base().to_owned(),
            prefixes: prefixes_of(&direct.inner),
            direct: Arc::new(PerProcess::new(Some(direct))),
            live: Arc::new(PerProcess::new(None)),
        }
    }

    /// A handle opened on the shared runtime (the async faces'): its blocking calls open the
    /// queue on the blocking calls' client when first needed.
    fn new_live(client: &Client, inner: crate::Partitioned) -> Partitioned {
        Partitioned {
            client: client.clone(),
            base: inner.base().to_owned(),
            prefixes: prefixes_of(&inner),
            direct: Arc::new(PerProcess::new(None)),
            live: Arc::new(PerProcess::new(Some(inner))),
        }
    }

    /// This process's partitioned queue for the blocking calls: in a forked child (or first
    /// used from a handle made by an async face), opened again by its base on the blocking
    /// calls' client (one round trip).
    fn direct(&self) -> Result<DirectPartitioned> {
        self.direct.get(|| {
            let direct = self.client.direct()?;
            let inner = drive(&direct.runtime, direct.client.partitioned(&self.base))?;
            Ok(DirectPartitioned {
                inner,
                runtime: direct.runtime,
            })
        })
    }

    /// The async partitioned queue behind this handle, for this process, on the bindings'
    /// shared runtime: for what runs on the runtime itself, such as a
    /// [`crate::worker::Worker`]. Opened there when first needed (one round trip).
    pub fn as_async(&self) -> Result<crate::Partitioned> {
        self.live.get(|| {
            let client = self.client.live()?;
            crate::runtime::handle()?.block_on(client.partitioned(&self.base))
        })
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

    /// See [`crate::Partitioned::partition_of`]: the partition `item` goes to, once it is
    /// checked as an add checks it (an item an add would refuse is refused here, naming the
    /// argument). Sends nothing (in a forked child, the queue is opened again first: one round
    /// trip).
    pub fn partition_of(&self, item: &Item) -> Result<usize> {
        self.direct()?.inner.partition_of(item)
    }

    /// See [`crate::Partitioned::partition_of_id`]: the partition an item of id `id` without a
    /// group or dependencies goes to. Sends nothing (in a forked child, the queue is opened
    /// again first: one round trip).
    pub fn partition_of_id(&self, id: impl AsRef<[u8]>) -> Result<usize> {
        Ok(self.direct()?.inner.partition_of_id(id))
    }

    /// Partition `i` as a blocking [`super::Queue`] (argument `partition` when out of range).
    pub fn partition(&self, i: usize) -> Result<super::Queue> {
        self.client.queue(self.partition_prefix(i)?)
    }

    /// The prefix of partition `i`, refused as [`Partitioned::partition`] refuses it; sends
    /// nothing (for a face that makes the partition's queue handle on its own client).
    pub fn partition_prefix(&self, i: usize) -> Result<&str> {
        self.prefixes
            .get(i)
            .map(String::as_str)
            .ok_or_else(|| crate::partition::no_such_partition(self.prefixes.len()))
    }

    /// Like [`Partitioned::add_wait`], interruptible as [`super::Queue::add_wait_interruptible`]
    /// is: `check` runs every `every` while the wait for room goes on, and its error abandons
    /// the wait. An interrupt that lands in the instant the item is being added may leave it
    /// added.
    pub fn add_wait_interruptible<E>(
        &self,
        item: &Item,
        wait: Wait,
        every: Duration,
        check: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<bool>, E> {
        let item = item.clone();
        self.interruptible(every, check, move |p| async move {
            p.add_wait(&item, wait).await
        })
    }

    /// Like [`Partitioned::add_batch_wait`], interruptible as
    /// [`Partitioned::add_wait_interruptible`] is.
    pub fn add_batch_wait_interruptible<E>(
        &self,
        items: &[Item],
        wait: Wait,
        every: Duration,
        check: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<usize>, E> {
        let items = items.to_vec();
        self.interruptible(every, check, move |p| async move {
            p.add_batch_wait(&items, wait).await
        })
    }

    /// The partition that issued `lease`, as a blocking [`super::Queue`]: where to finish it
    /// with what [`Partitioned`] does not offer (a renew, a release, progress). See
    /// [`crate::Partitioned::queue_of`] (argument `lease` for a lease of another queue).
    pub fn queue_of(&self, lease: &Lease) -> Result<super::Queue> {
        let direct = self.direct()?;
        let prefix = direct.inner.queue_of(lease)?.prefix().to_owned();
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
        check: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<Vec<Lease>>, E> {
        self.interruptible(every, check, move |p| async move {
            p.lease_batch(n, ttl, wait).await
        })
    }

    /// Like [`Partitioned::wait_result`], interruptible as
    /// [`Partitioned::lease_batch_interruptible`] is: `check` runs every `every` while the
    /// waits go on, and its error abandons them. Nothing is lost by an interrupt: the result
    /// stays kept.
    pub fn wait_result_interruptible<E>(
        &self,
        id: impl AsRef<[u8]>,
        wait: impl Into<Wait>,
        every: Duration,
        check: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<Option<JobResult>>, E> {
        let id = id.as_ref().to_vec();
        let wait = wait.into();
        self.interruptible(every, check, move |p| async move {
            p.wait_result(id, wait).await
        })
    }

    /// See [`crate::Partitioned::events`]: the same follower, each `next` blocking the calling
    /// thread until the next entry of any partition. One round trip to each partition here, at
    /// once.
    pub fn events(&self, from: crate::EventsFrom) -> Result<super::Events> {
        let direct = self.direct()?;
        let inner = drive(&direct.runtime, direct.inner.events(from))?;
        Ok(super::Events::new(direct.runtime, inner))
    }

    /// Runs `op` on this process's async partitioned queue, blocking the calling thread, and
    /// runs `check` on it every `every` until `op` ends; an error from `check` drops `op` (which
    /// ends its server-side wait) and is returned.
    fn interruptible<T, E, F>(
        &self,
        every: Duration,
        check: impl FnMut() -> std::result::Result<(), E>,
        op: impl FnOnce(crate::Partitioned) -> F,
    ) -> std::result::Result<Result<T>, E>
    where
        F: std::future::Future<Output = Result<T>>,
    {
        let direct = match self.direct() {
            Ok(direct) => direct,
            Err(e) => return Ok(Err(e)),
        };
        drive_interruptible(&direct.runtime, op(direct.inner.clone()), every, check)
    }
}

/// The partitions' prefixes of `p`, in order.
fn prefixes_of(p: &crate::Partitioned) -> Arc<[String]> {
    p.partitions()
        .iter()
        .map(|q| q.prefix().to_owned())
        .collect()
}

blocking_partitioned! {
    fn add(&self, item: &Item) -> Result<bool>;
    fn add_unique(&self, item: &Item) -> Result<()>;
    fn add_batch(&self, items: &[Item]) -> Result<usize>;
    fn add_wait(&self, item: &Item, wait: Wait) -> Result<bool>;
    fn add_batch_wait(&self, items: &[Item], wait: Wait) -> Result<usize>;
    fn add_flow(&self, parent: &Item, children: &[Flow]) -> Result<usize>;
    fn lease(&self, ttl: Duration, wait: Wait) -> Result<Option<Lease>>;
    fn lease_batch(&self, n: usize, ttl: Duration, wait: Wait) -> Result<Vec<Lease>>;
    fn complete(&self, lease: &Lease) -> Result<bool>;
    fn complete_with_result(&self, lease: &Lease, result: Option<&[u8]>, keep_for: Option<Duration>) -> Result<bool>;
    fn fail(&self, lease: &Lease, error: &str, error_type: &str, retry: Retry) -> Result<FailOutcome>;
    fn fail_with_trace(&self, lease: &Lease, error: &str, error_type: &str, retry: Retry, trace: Option<&str>) -> Result<FailOutcome>;
    fn complete_batch(&self, completions: &[Completion<'_>]) -> Result<Vec<bool>>;
    fn renew_batch(&self, leases: &[&Lease], ttl: Duration) -> Result<Vec<RenewOutcome>>;
    fn fail_batch(&self, failures: &[(&Lease, &str, &str, Retry)]) -> Result<Vec<FailOutcome>>;
    fn fail_batch_with_traces(&self, failures: &[Failure<'_>]) -> Result<Vec<FailOutcome>>;
    fn get(&self, id: impl AsRef<[u8]>) -> Result<Option<Job>>;
    fn cancel(&self, id: impl AsRef<[u8]>) -> Result<Option<State>>;
    fn result(&self, id: impl AsRef<[u8]>) -> Result<Option<JobResult>>;
    fn promote(&self, id: impl AsRef<[u8]>) -> Result<bool>;
    fn dependencies(&self, id: impl AsRef<[u8]>) -> Result<Dependencies>;
    fn dependency_results(&self, id: impl AsRef<[u8]>) -> Result<Vec<(String, Option<Vec<u8>>)>>;
    fn wait_result(&self, id: impl AsRef<[u8]>, wait: impl Into<Wait>) -> Result<Option<JobResult>>;
    fn stats(&self) -> Result<PartitionedStats>;
    fn count_in(&self, state: State) -> Result<u64>;
    fn list(&self, state: State, start: usize, count: usize) -> Result<Vec<Entry>>;
    fn find(&self, state: State, name: Option<&str>, error_type: Option<&str>, start: usize, count: usize) -> Result<Found>;
    fn dead_requeue(&self, ids: &[impl AsRef<[u8]>]) -> Result<u64>;
    fn dead_requeue_each(&self, ids: &[impl AsRef<[u8]>]) -> Result<Vec<bool>>;
    fn dead_requeue_oldest(&self, n: Option<u64>) -> Result<u64>;
    fn dead_purge(&self, n: Option<u64>) -> Result<u64>;
    fn pause(&self) -> Result<bool>;
    fn resume(&self) -> Result<bool>;
    fn is_paused(&self) -> Result<bool>;
    fn exists(&self) -> Result<bool>;
    fn queue_len(&self) -> Result<u64>;
    fn processing_len(&self) -> Result<u64>;
    fn counts_by_name(&self) -> Result<Option<Vec<NameCounts>>>;
    fn config(&self) -> Result<QueueConfig>;
    fn light_clean(&self) -> Result<CleanReport>;
    fn deep_clean(&self) -> Result<CleanReport>;
    fn rate_limit(&self, duration: Duration) -> Result<Duration>;
    fn set_config(&self, config: &QueueConfig) -> Result<()>;
    fn reset_config(&self) -> Result<()>;
    fn upsert_schedule(&self, name: &str, schedule: &Schedule) -> Result<bool>;
    fn remove_schedule(&self, name: &str) -> Result<bool>;
    fn get_schedule(&self, name: &str) -> Result<Option<ScheduleInfo>>;
    fn schedules(&self, start: usize, count: usize) -> Result<SchedulePage>;
    fn fire_due_schedules(&self) -> Result<FireReport>;
    fn pause_group(&self, group: &str) -> Result<bool>;
    fn resume_group(&self, group: &str) -> Result<bool>;
    fn set_group_limit(&self, group: &str, limit: Option<u32>) -> Result<()>;
    fn rate_limit_group(&self, group: &str, duration: Duration) -> Result<Duration>;
    fn group(&self, group: &str) -> Result<GroupInfo>;
}
