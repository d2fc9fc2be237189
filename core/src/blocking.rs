//! A synchronous face over the async API, for callers without a tokio runtime (the C ABI, sync
//! Python). Calls run on the process's own runtime (internal) and block only the calling
//! thread; many threads may call one client at once.
//!
//! Fork-safe: a client used in a forked child (multiprocessing, gunicorn) notices the new
//! process id and reconnects with the same URL instead of touching the parent's runtime and
//! sockets.

use std::sync::Arc;
use std::time::Duration;

use tokio::runtime::Handle;

use crate::error::Result;
use crate::runtime::{self, PerProcess};
use crate::{
    CleanReport, Completion, Dependencies, Entry, FailOutcome, Failure, Flow, Found, GroupInfo,
    Item, Job, JobResult, Lease, NameCounts, QueueConfig, RenewOutcome, Retry, State, Stats, Wait,
};
// Recurring jobs (spec/PROTOCOL.md 5.23).
use crate::{FireReport, Schedule, ScheduleInfo, SchedulePage};
// Partitioned queues (spec/PROTOCOL.md 5.25): blocking/partitioned.rs.
mod partitioned;
pub use partitioned::Partitioned;

#[derive(Clone)]
enum Target {
    Single(String),
    Cluster(Vec<String>),
}

struct Shared {
    target: Target,
    live: PerProcess<crate::Client>,
}

/// Writes the blocking twin of each listed async [`crate::Queue`] operation, and the list of
/// their names (checked against [`crate::operations::OPERATIONS`] by a test). Each twin runs the
/// async call on the shared runtime and blocks only the calling thread.
macro_rules! blocking_operations {
    ($(fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {
        impl Queue {
            $(
                #[doc = concat!(
                    "See [`crate::Queue::", stringify!($name), "`]: the same call, blocking only ",
                    "the calling thread."
                )]
                pub fn $name(&self $(, $arg: $ty)*) -> $ret {
                    self.run(async |q| q.$name($($arg),*).await)
                }
            )*
        }

        /// The operations written by `blocking_operations!`.
        #[cfg(test)]
        pub(crate) const GENERATED: &[&str] = &[$(stringify!($name)),*];
    };
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

    /// [`Client::connect`] that does not block its caller: for async faces that keep this
    /// handle for its fork-awareness (Python's asyncio connects on the runtime, off the event
    /// loop). Run it on the bindings' runtime (`leaseq::runtime::handle`).
    pub async fn connect_async(url: &str) -> Result<Client> {
        Client::open_async(Target::Single(url.to_owned())).await
    }

    /// [`Client::connect_cluster`] that does not block its caller; see
    /// [`Client::connect_async`].
    pub async fn connect_cluster_async(urls: &[String]) -> Result<Client> {
        Client::open_async(Target::Cluster(urls.to_vec())).await
    }

    fn open(target: Target) -> Result<Client> {
        let client = runtime::handle()?.block_on(connect(&target))?;
        Ok(Client::from_parts(target, client))
    }

    async fn open_async(target: Target) -> Result<Client> {
        let client = connect(&target).await?;
        Ok(Client::from_parts(target, client))
    }

    fn from_parts(target: Target, client: crate::Client) -> Client {
        Client {
            shared: Arc::new(Shared {
                target,
                live: PerProcess::new(client),
            }),
        }
    }

    /// The runtime and async client of this process, reconnecting first after a fork.
    fn live(&self) -> Result<(Handle, crate::Client)> {
        let handle = runtime::handle()?;
        let client = self.shared.live.get(|parent| {
            let client = handle.block_on(connect(&self.shared.target))?;
            if parent.is_closed() {
                client.close();
            }
            Ok(client)
        })?;
        Ok((handle, client))
    }

    /// The async client behind this handle, for this process (reconnected after a fork).
    pub fn as_async(&self) -> Result<crate::Client> {
        self.live().map(|(_, client)| client)
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

    /// See [`crate::Client::close`]: waiting leases on any thread return [`crate::Error::Closed`].
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

    /// The async queue behind this handle, for this process (reconnected after a fork): for
    /// what runs on the runtime itself, such as a [`crate::worker::Worker`].
    pub fn as_async(&self) -> Result<crate::Queue> {
        let (_, client) = self.client.live()?;
        client.queue(&self.prefix)
    }

    /// The prefix of this queue's keys.
    pub fn prefix(&self) -> &str {
        &self.prefix
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
        check: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<Option<Lease>>, E> {
        self.interruptible(
            every,
            check,
            move |q| async move { q.lease(ttl, wait).await },
        )
    }

    /// Like [`Queue::lease_batch`], interruptible as [`Queue::lease_interruptible`] is.
    pub fn lease_batch_interruptible<E>(
        &self,
        n: usize,
        ttl: Duration,
        wait: Wait,
        every: Duration,
        check: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<Vec<Lease>>, E> {
        self.interruptible(every, check, move |q| async move {
            q.lease_batch(n, ttl, wait).await
        })
    }

    /// Like [`Queue::wait_result`], interruptible as [`Queue::lease_interruptible`] is: `check`
    /// runs every `every` while the server-side wait goes on (which may be forever), and its
    /// error abandons the wait. Nothing is lost by an interrupt: the result stays kept.
    pub fn wait_result_interruptible<E>(
        &self,
        id: impl AsRef<[u8]>,
        wait: impl Into<Wait>,
        every: Duration,
        check: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<Option<JobResult>>, E> {
        let id = id.as_ref().to_vec();
        let wait = wait.into();
        self.interruptible(every, check, move |q| async move {
            q.wait_result(id, wait).await
        })
    }

    /// Like [`Queue::add_wait`], interruptible as [`Queue::lease_interruptible`] is: `check`
    /// runs every `every` while the wait for room goes on, and its error abandons the wait. An
    /// interrupt that lands in the instant the item is being added may leave it added.
    pub fn add_wait_interruptible<E>(
        &self,
        item: &Item,
        wait: Wait,
        every: Duration,
        check: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<bool>, E> {
        let item = item.clone();
        self.interruptible(every, check, move |q| async move {
            q.add_wait(&item, wait).await
        })
    }

    /// Like [`Queue::add_batch_wait`], interruptible as [`Queue::add_wait_interruptible`] is.
    pub fn add_batch_wait_interruptible<E>(
        &self,
        items: &[Item],
        wait: Wait,
        every: Duration,
        check: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<usize>, E> {
        let items = items.to_vec();
        self.interruptible(every, check, move |q| async move {
            q.add_batch_wait(&items, wait).await
        })
    }

    /// Runs `op` on this process's async queue as a task of the runtime, blocking the calling
    /// thread, and runs `check` on it every `every` until the task ends; an error from `check`
    /// aborts the task (which ends its server-side wait) and is returned.
    fn interruptible<T, E, F>(
        &self,
        every: Duration,
        mut check: impl FnMut() -> std::result::Result<(), E>,
        op: impl FnOnce(crate::Queue) -> F,
    ) -> std::result::Result<Result<T>, E>
    where
        T: Send + 'static,
        F: std::future::Future<Output = Result<T>> + Send + 'static,
    {
        let (runtime, client) = match self.client.live() {
            Ok(live) => live,
            Err(e) => return Ok(Err(e)),
        };
        let queue = match client.queue(&self.prefix) {
            Ok(q) => q,
            Err(e) => return Ok(Err(e)),
        };
        let mut task = runtime.spawn(op(queue));
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

    /// Follows the queue's event stream, as [`crate::Queue::events`] does: an iterator whose
    /// every `next` blocks the calling thread until the next entry (errors a retry may cure
    /// are waited out). It ends after yielding [`crate::Error::Closed`] once the client is
    /// closed. One round trip here, as the async call's.
    pub fn events(&self, from: crate::EventsFrom) -> Result<Events> {
        let (runtime, client) = self.client.live()?;
        let queue = client.queue(&self.prefix)?;
        let inner = runtime.block_on(queue.events(from))?;
        Ok(Events {
            runtime,
            inner,
            ended: false,
        })
    }

    /// See [`crate::Queue::lease_from_parts`].
    pub fn lease_from_parts(
        &self,
        id: &str,
        token: &str,
        incarnation: &str,
        attempt: u64,
    ) -> Result<Lease> {
        self.run(async |q| q.lease_from_parts(id, token, incarnation, attempt))
    }
}

/// A blocking follower of a queue's event stream ([`Queue::events`]): an iterator of its
/// entries, each `next` blocking the calling thread until one comes.
pub struct Events {
    runtime: Handle,
    inner: crate::Events,
    ended: bool,
}

impl Events {
    /// The id of the last entry yielded (none yet: `None`): resume after it.
    pub fn position(&self) -> Option<&str> {
        self.inner.position()
    }

    /// The next entry, waiting at most `timeout` for it: `Ok(None)` when none came in time.
    /// Nothing is lost by a timeout: the next call goes on from the same place.
    pub fn next_timeout(&mut self, timeout: Duration) -> Result<Option<crate::QueueEvent>> {
        let inner = &mut self.inner;
        self.runtime.block_on(async {
            match tokio::time::timeout(timeout, inner.next()).await {
                Ok(next) => next.map(Some),
                Err(_) => Ok(None),
            }
        })
    }
}

impl Iterator for Events {
    type Item = Result<crate::QueueEvent>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ended {
            return None;
        }
        let next = self.runtime.block_on(self.inner.next());
        if matches!(next, Err(crate::Error::Closed)) {
            self.ended = true;
        }
        Some(next)
    }
}

// The blocking twin of every async operation of a queue (crate::operations::OPERATIONS), written
// once: same name, arguments and reply.
blocking_operations! {
    fn add(&self, item: &Item) -> Result<bool>;
    fn add_unique(&self, item: &Item) -> Result<()>;
    fn add_batch(&self, items: &[Item]) -> Result<usize>;
    fn add_wait(&self, item: &Item, wait: Wait) -> Result<bool>;
    fn add_batch_wait(&self, items: &[Item], wait: Wait) -> Result<usize>;
    fn lease(&self, ttl: Duration, wait: Wait) -> Result<Option<Lease>>;
    fn lease_batch(&self, n: usize, ttl: Duration, wait: Wait) -> Result<Vec<Lease>>;
    fn complete(&self, lease: &Lease) -> Result<bool>;
    fn complete_with_result(&self, lease: &Lease, result: Option<&[u8]>, keep_for: Option<Duration>) -> Result<bool>;
    fn complete_and_lease(&self, lease: &Lease, ttl: Duration) -> Result<(bool, Option<Lease>)>;
    fn complete_and_lease_with_result(&self, lease: &Lease, result: Option<&[u8]>, keep_for: Option<Duration>, ttl: Duration) -> Result<(bool, Option<Lease>)>;
    fn renew(&self, lease: &Lease, ttl: Duration) -> Result<bool>;
    fn renew_outcome(&self, lease: &Lease, ttl: Duration) -> Result<RenewOutcome>;
    fn fail(&self, lease: &Lease, error: &str, error_type: &str, retry: Retry) -> Result<FailOutcome>;
    fn fail_with_trace(&self, lease: &Lease, error: &str, error_type: &str, retry: Retry, trace: Option<&str>) -> Result<FailOutcome>;
    fn release(&self, lease: &Lease, delay: Option<Duration>) -> Result<bool>;
    fn progress(&self, lease: &Lease, value: &[u8]) -> Result<bool>;
    fn complete_batch(&self, completions: &[Completion<'_>]) -> Result<Vec<bool>>;
    fn complete_and_lease_batch(&self, completions: &[Completion<'_>], n: usize, ttl: Duration) -> Result<(Vec<bool>, Vec<Lease>)>;
    fn renew_batch(&self, leases: &[&Lease], ttl: Duration) -> Result<Vec<RenewOutcome>>;
    fn fail_batch(&self, failures: &[(&Lease, &str, &str, Retry)]) -> Result<Vec<FailOutcome>>;
    fn fail_batch_with_traces(&self, failures: &[Failure<'_>]) -> Result<Vec<FailOutcome>>;
    fn result(&self, id: impl AsRef<[u8]>) -> Result<Option<JobResult>>;
    fn wait_result(&self, id: impl AsRef<[u8]>, wait: impl Into<Wait>) -> Result<Option<JobResult>>;
    fn get(&self, id: impl AsRef<[u8]>) -> Result<Option<Job>>;
    fn list(&self, state: State, start: usize, count: usize) -> Result<Vec<Entry>>;
    fn find(&self, state: State, name: Option<&str>, error_type: Option<&str>, start: usize, count: usize) -> Result<Found>;
    fn promote(&self, id: impl AsRef<[u8]>) -> Result<bool>;
    fn upsert_schedule(&self, name: &str, schedule: &Schedule) -> Result<bool>;
    fn remove_schedule(&self, name: &str) -> Result<bool>;
    fn get_schedule(&self, name: &str) -> Result<Option<ScheduleInfo>>;
    fn schedules(&self, start: usize, count: usize) -> Result<SchedulePage>;
    fn fire_due_schedules(&self) -> Result<FireReport>;
    fn count(&self, state: State) -> Result<u64>;
    fn stats(&self) -> Result<Stats>;
    fn counts_by_name(&self) -> Result<Option<Vec<NameCounts>>>;
    fn exists(&self) -> Result<bool>;
    fn pause(&self) -> Result<bool>;
    fn resume(&self) -> Result<bool>;
    fn is_paused(&self) -> Result<bool>;
    fn rate_limit(&self, duration: Duration) -> Result<Duration>;
    fn pause_group(&self, group: &str) -> Result<bool>;
    fn resume_group(&self, group: &str) -> Result<bool>;
    fn set_group_limit(&self, group: &str, limit: Option<u32>) -> Result<()>;
    fn group(&self, group: &str) -> Result<GroupInfo>;
    fn rate_limit_group(&self, group: &str, duration: Duration) -> Result<Duration>;
    fn cancel(&self, id: impl AsRef<[u8]>) -> Result<Option<State>>;
    fn add_flow(&self, parent: &Item, children: &[Flow]) -> Result<usize>;
    fn dependencies(&self, id: impl AsRef<[u8]>) -> Result<Dependencies>;
    fn dependency_results(&self, id: impl AsRef<[u8]>) -> Result<Vec<(String, Option<Vec<u8>>)>>;
    fn dead_requeue(&self, ids: &[impl AsRef<[u8]>]) -> Result<u64>;
    fn dead_requeue_each(&self, ids: &[impl AsRef<[u8]>]) -> Result<Vec<bool>>;
    fn dead_requeue_oldest(&self, n: Option<u64>) -> Result<u64>;
    fn dead_purge(&self, n: Option<u64>) -> Result<u64>;
    fn config(&self) -> Result<QueueConfig>;
    fn set_config(&self, config: &QueueConfig) -> Result<()>;
    fn reset_config(&self) -> Result<()>;
    fn light_clean(&self) -> Result<CleanReport>;
    fn deep_clean(&self) -> Result<CleanReport>;
    fn queue_len(&self) -> Result<u64>;
    fn processing_len(&self) -> Result<u64>;
    fn read_events(&self, after: Option<&str>, count: usize) -> Result<crate::EventsPage>;
}
