//! A synchronous face over the async API, for callers without a tokio runtime (the C ABI, sync
//! Python). Many threads may call one client at once; each call blocks only its caller.
//!
//! The calls run on a runtime of the client's own that the calling threads drive themselves
//! (a tokio current-thread runtime): the thread that makes a call writes the request, waits
//! for the reply in the kernel and reads it, so an uncontended call crosses no thread. When
//! several threads call at once, one of them drives the connection for all while the others
//! wait for their replies. What runs on the runtime itself (a [`crate::worker::Worker`], the
//! asyncio face) uses a second connection, made when first asked for ([`Client::as_async`]),
//! on the bindings' shared runtime ([`crate::runtime::handle`]).
//!
//! Fork-safe: a client used in a forked child (multiprocessing, gunicorn) notices the new
//! process id and reconnects with the same URL instead of touching the parent's runtime and
//! sockets.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::runtime::Runtime;

use crate::error::{Cause, Error, Result};
use crate::runtime;
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

/// A value made for one process, when first needed: used in a forked child, it is made anew
/// and the parent's copy is leaked (it holds the parent's runtime and sockets).
struct PerProcess<T> {
    slot: Mutex<Option<(u32, T)>>,
}

impl<T: Clone> PerProcess<T> {
    fn new(value: Option<T>) -> PerProcess<T> {
        PerProcess {
            slot: Mutex::new(value.map(|v| (std::process::id(), v))),
        }
    }

    /// The value of this process, made by `make` if there is none yet.
    fn get(&self, make: impl FnOnce() -> Result<T>) -> Result<T> {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        let pid = std::process::id();
        if let Some((owner, value)) = slot.as_ref() {
            if *owner == pid {
                return Ok(value.clone());
            }
        }
        let fresh = make()?;
        if let Some(stale) = slot.replace((pid, fresh.clone())) {
            std::mem::forget(stale);
        }
        Ok(fresh)
    }

    /// The value of this process, if it was made.
    fn made(&self) -> Option<T> {
        let slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        match slot.as_ref() {
            Some((owner, value)) if *owner == std::process::id() => Some(value.clone()),
            _ => None,
        }
    }
}

/// A client connected on a current-thread runtime of its own, which the calling threads drive.
#[derive(Clone)]
struct Direct {
    // Dropped before the runtime, which its tasks belong to.
    client: crate::Client,
    runtime: Arc<Runtime>,
}

/// A queue of a [`Direct`] client, its keys built once.
struct DirectQueue {
    queue: crate::Queue,
    runtime: Arc<Runtime>,
}

struct Shared {
    target: Target,
    /// The blocking calls' client.
    direct: PerProcess<Direct>,
    /// The client on the shared runtime, for what runs there ([`Client::as_async`]).
    live: PerProcess<crate::Client>,
    closed: AtomicBool,
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
    /// This process's async queue on the blocking calls' client: its keys are built once, not
    /// per call.
    direct: Arc<PerProcess<Arc<DirectQueue>>>,
}

async fn connect(target: &Target) -> Result<crate::Client> {
    match target {
        Target::Single(url) => crate::Client::connect(url).await,
        Target::Cluster(urls) => crate::Client::connect_cluster(urls).await,
    }
}

/// A runtime that the threads calling [`drive`] run: timers and I/O, no thread of its own.
///
/// Built on a short-lived thread: tokio notes the building thread's std handle, which on a
/// host's main thread (a C program's) would stay allocated until the process ends.
fn direct_runtime() -> Result<Arc<Runtime>> {
    let failed = |e: std::io::Error| {
        Error::Connection(Cause::io(
            "cannot start the I/O runtime",
            Some(e.to_string()),
        ))
    };
    let build = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    };
    std::thread::Builder::new()
        .name("leaseq-init".into())
        .spawn(build)
        .map_err(failed)?
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        .map(Arc::new)
        .map_err(failed)
}

/// Runs `future` to its end on `runtime`, on the calling thread (which drives the runtime's
/// I/O meanwhile, or waits for the thread that does), with SIGPIPE held off ([`NoSigpipe`]).
fn drive<F: Future>(runtime: &Runtime, future: F) -> F::Output {
    let _held = NoSigpipe::hold();
    runtime.block_on(future)
}

/// Runs `op` to its end on `runtime` as [`drive`] does, and runs `check` on the calling thread
/// every `every` until it ends; an error from `check` drops `op` (inside the runtime, so that a
/// server-side wait ends with its connection's task) and is returned.
fn drive_interruptible<T, E>(
    runtime: &Runtime,
    op: impl Future<Output = Result<T>>,
    every: Duration,
    mut check: impl FnMut() -> std::result::Result<(), E>,
) -> std::result::Result<Result<T>, E> {
    let mut op = Box::pin(op);
    loop {
        // The timer must be made inside the runtime, hence the async block.
        match drive(runtime, async {
            tokio::time::timeout(every, op.as_mut()).await
        }) {
            Ok(result) => return Ok(result),
            Err(_still_waiting) => {
                if let Err(e) = check() {
                    drive(runtime, async move { drop(op) });
                    return Err(e);
                }
            }
        }
    }
}

/// SIGPIPE blocked on the calling thread while it does a call's socket I/O, and restored after.
///
/// Writing to a connection the server has closed raises SIGPIPE in the writing thread, and its
/// default action ends the process: a C host usually leaves that default, and here the host's
/// own thread writes. While blocked, such a write fails with EPIPE (a CONNECTION error like any
/// other), and a SIGPIPE it left pending is taken before the thread's mask is restored. A
/// process that ignores SIGPIPE (Python, Rust programs) pays one `sigaction` per call.
struct NoSigpipe {
    #[cfg(unix)]
    restore: Option<libc::sigset_t>,
}

impl NoSigpipe {
    fn hold() -> NoSigpipe {
        #[cfg(unix)]
        // SAFETY: the sets are initialised by sigemptyset (or written by the calls) before use;
        // sigaction with a null new action only reads; pthread_sigmask only changes the calling
        // thread's mask.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut action) == 0
                && action.sa_sigaction == libc::SIG_IGN
            {
                return NoSigpipe { restore: None };
            }
            let mut set: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGPIPE);
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
            if libc::sigismember(&old, libc::SIGPIPE) == 1 {
                return NoSigpipe { restore: None };
            }
            NoSigpipe { restore: Some(old) }
        }
        #[cfg(not(unix))]
        NoSigpipe {}
    }
}

impl Drop for NoSigpipe {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(old) = self.restore.take() {
            // SAFETY: as in `hold`; sigtimedwait with a zero timeout takes a pending SIGPIPE
            // (blocked here, so it cannot be delivered meanwhile) without waiting.
            unsafe {
                let mut pending: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut pending);
                if libc::sigpending(&mut pending) == 0
                    && libc::sigismember(&pending, libc::SIGPIPE) == 1
                {
                    let mut set: libc::sigset_t = std::mem::zeroed();
                    libc::sigemptyset(&mut set);
                    libc::sigaddset(&mut set, libc::SIGPIPE);
                    let zero = libc::timespec {
                        tv_sec: 0,
                        tv_nsec: 0,
                    };
                    libc::sigtimedwait(&set, std::ptr::null_mut(), &zero);
                }
                libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            }
        }
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
        let direct = Client::connect_direct(&target)?;
        Ok(Client::from_parts(target, Some(direct), None))
    }

    async fn open_async(target: Target) -> Result<Client> {
        let client = connect(&target).await?;
        Ok(Client::from_parts(target, None, Some(client)))
    }

    fn from_parts(target: Target, direct: Option<Direct>, live: Option<crate::Client>) -> Client {
        Client {
            shared: Arc::new(Shared {
                target,
                direct: PerProcess::new(direct),
                live: PerProcess::new(live),
                closed: AtomicBool::new(false),
            }),
        }
    }

    /// A new runtime and a client connected on it, for the blocking calls.
    fn connect_direct(target: &Target) -> Result<Direct> {
        let runtime = direct_runtime()?;
        let client = drive(&runtime, connect(target))?;
        Ok(Direct { runtime, client })
    }

    fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// The blocking calls' runtime and client of this process: connected when first needed
    /// (and again in a forked child).
    fn direct(&self) -> Result<Direct> {
        self.shared.direct.get(|| {
            if self.is_closed() {
                return Err(Error::Closed);
            }
            Client::connect_direct(&self.shared.target)
        })
    }

    /// The client on the shared runtime of this process: connected when first needed (and
    /// again in a forked child).
    fn live(&self) -> Result<crate::Client> {
        self.shared.live.get(|| {
            if self.is_closed() {
                return Err(Error::Closed);
            }
            runtime::handle()?.block_on(connect(&self.shared.target))
        })
    }

    /// The async client behind this handle, for this process (reconnected after a fork), on
    /// the bindings' shared runtime ([`crate::runtime::handle`]): for what runs there. A client
    /// made by [`Client::connect`] opens its connection on the first call.
    pub fn as_async(&self) -> Result<crate::Client> {
        self.live()
    }

    /// The queue under `prefix` (validated; nothing is sent).
    pub fn queue(&self, prefix: &str) -> Result<Queue> {
        let queue = Queue {
            client: self.clone(),
            prefix: prefix.to_owned(),
            direct: Arc::new(PerProcess::new(None)),
        };
        // Validates the prefix, and builds the keys once.
        queue.direct()?;
        Ok(queue)
    }

    /// See [`crate::Client::close`]: waiting leases on any thread return [`crate::Error::Closed`].
    pub fn close(&self) {
        self.shared.closed.store(true, Ordering::Release);
        if let Some(direct) = self.shared.direct.made() {
            direct.client.close();
            // Lets the connections' tasks see it and drop their sockets now, not at the next
            // call (no thread drives this runtime between calls). Not from inside a runtime,
            // where blocking is not allowed.
            if tokio::runtime::Handle::try_current().is_err() {
                drive(&direct.runtime, async {
                    for _ in 0..4 {
                        tokio::task::yield_now().await;
                    }
                });
            }
        }
        if let Some(live) = self.shared.live.made() {
            live.close();
        }
    }

    /// Whether this client talks to a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        matches!(self.shared.target, Target::Cluster(_))
    }

    /// See [`crate::Client::warnings`].
    pub fn warnings(&self) -> Vec<String> {
        let client = match self.shared.direct.made() {
            Some(direct) => Some(direct.client),
            None => self.live().ok(),
        };
        client.map(|c| c.warnings().to_vec()).unwrap_or_default()
    }
}

impl Queue {
    /// This process's runtime and async queue for the blocking calls.
    fn direct(&self) -> Result<Arc<DirectQueue>> {
        self.direct.get(|| {
            let Direct { runtime, client } = self.client.direct()?;
            let queue = client.queue(&self.prefix)?;
            Ok(Arc::new(DirectQueue { runtime, queue }))
        })
    }

    fn run<T>(&self, f: impl AsyncFnOnce(crate::Queue) -> Result<T>) -> Result<T> {
        let direct = self.direct()?;
        drive(&direct.runtime, f(direct.queue.clone()))
    }

    /// The async queue behind this handle, for this process (reconnected after a fork), on the
    /// bindings' shared runtime: for what runs on the runtime itself, such as a
    /// [`crate::worker::Worker`].
    pub fn as_async(&self) -> Result<crate::Queue> {
        self.client.live()?.queue(&self.prefix)
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

    /// Runs `op` on this process's async queue, blocking the calling thread, and runs `check`
    /// on it every `every` until `op` ends; an error from `check` drops `op` (which ends its
    /// server-side wait) and is returned.
    fn interruptible<T, E, F>(
        &self,
        every: Duration,
        check: impl FnMut() -> std::result::Result<(), E>,
        op: impl FnOnce(crate::Queue) -> F,
    ) -> std::result::Result<Result<T>, E>
    where
        T: Send + 'static,
        F: std::future::Future<Output = Result<T>> + Send + 'static,
    {
        let direct = match self.direct() {
            Ok(direct) => direct,
            Err(e) => return Ok(Err(e)),
        };
        drive_interruptible(&direct.runtime, op(direct.queue.clone()), every, check)
    }

    /// Follows the queue's event stream, as [`crate::Queue::events`] does: an iterator whose
    /// every `next` blocks the calling thread until the next entry (errors a retry may cure
    /// are waited out). It ends after yielding [`crate::Error::Closed`] once the client is
    /// closed. One round trip here, as the async call's.
    pub fn events(&self, from: crate::EventsFrom) -> Result<Events> {
        let direct = self.direct()?;
        let inner = drive(&direct.runtime, direct.queue.events(from))?;
        Ok(Events::new(direct.runtime.clone(), inner))
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

/// A blocking follower of a queue's event stream ([`Queue::events`]), or of a partitioned
/// queue's ([`Partitioned::events`]): an iterator of its entries, each `next` blocking the
/// calling thread until one comes.
pub struct Events {
    // (Fields drop in this order: the follower before the runtime it runs on.)
    inner: crate::Events,
    runtime: Arc<Runtime>,
    ended: bool,
    /// The process that made it: a forked child must not drive the parent's runtime.
    pid: u32,
}

impl Events {
    fn new(runtime: Arc<Runtime>, inner: crate::Events) -> Events {
        Events {
            inner,
            runtime,
            ended: false,
            pid: std::process::id(),
        }
    }

    /// Where the follower is (none yet: `None`): resume after it. See
    /// [`crate::Events::position`].
    pub fn position(&self) -> Option<&str> {
        self.inner.position()
    }

    /// Ends the follower's server-side waits now, closing their connections (dropping it does
    /// too); a later `next` waits again.
    pub fn close(&mut self) {
        drive(&self.runtime, self.inner.shutdown());
    }

    /// See [`crate::Events::next_now`]: the next entry if there is one now, without waiting.
    pub fn next_now(&mut self) -> Result<Option<crate::QueueEvent>> {
        drive(&self.runtime, self.inner.next_now())
    }

    /// The next entry, waiting at most `timeout` for it: `Ok(None)` when none came in time.
    /// Nothing is lost by a timeout: the next call goes on from the same place.
    pub fn next_timeout(&mut self, timeout: Duration) -> Result<Option<crate::QueueEvent>> {
        let inner = &mut self.inner;
        drive(&self.runtime, async {
            match tokio::time::timeout(timeout, inner.next()).await {
                Ok(next) => next.map(Some),
                Err(_) => Ok(None),
            }
        })
    }
}

impl Drop for Events {
    /// Ends the follower's server-side waits inside its runtime, which runs only while a call
    /// drives it: their connections close now, not at the client's next call. On a thread that
    /// knows a runtime of its own (which may not block on another), a short-lived thread does
    /// it; in a forked child, nothing does.
    fn drop(&mut self) {
        if std::process::id() != self.pid {
            // A forked child: the waits' sockets and the runtime are the parent's. Touch
            // neither (the parent's waits go on); leave them to the child's exit.
            std::mem::forget(self.inner.take_waits());
            return;
        }
        if tokio::runtime::Handle::try_current().is_err() {
            drive(&self.runtime, self.inner.shutdown());
            return;
        }
        let runtime = self.runtime.clone();
        let mut waits = self.inner.take_waits();
        let _ = std::thread::Builder::new()
            .name("leaseq-follower-drop".into())
            .spawn(move || drive(&runtime, waits.shutdown()));
    }
}

impl Iterator for Events {
    type Item = Result<crate::QueueEvent>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ended {
            return None;
        }
        let next = drive(&self.runtime, self.inner.next());
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

#[cfg(all(test, unix))]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::NoSigpipe;

    static DELIVERED: AtomicUsize = AtomicUsize::new(0);

    extern "C" fn count(_: libc::c_int) {
        DELIVERED.fetch_add(1, Ordering::SeqCst);
    }

    /// Whether SIGPIPE is blocked on the calling thread.
    fn blocked() -> bool {
        // SAFETY: pthread_sigmask with a null new set only reads the calling thread's mask.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut set);
            libc::sigismember(&set, libc::SIGPIPE) == 1
        }
    }

    #[test]
    fn a_sigpipe_raised_during_a_call_is_taken_and_the_mask_restored() {
        // A host with a SIGPIPE handler of its own (the default action would end the test).
        // SAFETY: installs a handler that only counts, and puts the old one back at the end;
        // pthread_kill signals the calling thread.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            let mut old: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = count as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGPIPE, &action, &mut old);
            let result = std::thread::spawn(|| {
                assert!(!blocked());
                {
                    let _held = NoSigpipe::hold();
                    assert!(blocked(), "held during the call");
                    // What a write to a closed socket raises in the writing thread.
                    libc::pthread_kill(libc::pthread_self(), libc::SIGPIPE);
                }
                assert!(!blocked(), "the caller's mask is restored");
            })
            .join();
            let delivered = DELIVERED.load(Ordering::SeqCst);
            libc::sigaction(libc::SIGPIPE, &old, std::ptr::null_mut());
            result.unwrap();
            assert_eq!(delivered, 0, "the pending SIGPIPE was taken, not delivered");
        }
    }
}

/// Checks a runner's queues and their order as the runner does when it starts, without Redis
/// (arguments `queues` and `queue_order`): 1 to [`crate::worker::MAX_QUEUES`] queues, each
/// named once and all of one client, and [`crate::worker::QueueOrder::check`]. For a binding
/// that refuses them before it waits for Redis ([`for_a_runner`]).
pub fn check_runner_queues(queues: &[&Queue], order: &crate::worker::QueueOrder) -> Result<()> {
    let prefixes: Vec<&str> = queues.iter().map(|q| q.prefix.as_str()).collect();
    crate::worker::queues::check_list(
        &prefixes,
        |i| Arc::ptr_eq(&queues[i].client.shared, &queues[0].client.shared),
        order,
    )
}

/// Asks `get` (a handle's async queue or partitioned queue, which connects when first needed)
/// until it answers, for a runner about to start: while the error is retryable (Redis down,
/// restarting, failing over: spec/PROTOCOL.md 11), again after a pause of 100 ms doubling to
/// 5 s, so that a runner started during an outage waits for Redis as a running one rides
/// through it. As a running runner reports an outage, `on_event` is given one
/// [`Event::Error`](crate::worker::Event::Error) with step `connect` at the first retryable
/// error, and [`Event::Recovered`](crate::worker::Event::Recovered) once Redis answers.
/// `stopped` is asked before each attempt and at least every 100 ms: once it says so, `None`.
/// Blocks the calling thread (never the runtime's), so a binding calls it without its lock
/// (the GIL). A binding checks the runner's settings before
/// ([`crate::worker::WorkerOptions::check`], [`check_runner_queues`], or
/// [`crate::worker::QueueOrder::check`] over a partitioned queue's partitions), so that bad ones
/// are refused at once, not after the outage.
pub fn for_a_runner<T>(
    mut get: impl FnMut() -> Result<T>,
    mut stopped: impl FnMut() -> bool,
    mut on_event: impl FnMut(crate::worker::Event),
) -> Result<Option<T>> {
    use crate::worker::Event;
    let mut pause = Duration::from_millis(100);
    let mut reported = false;
    loop {
        if stopped() {
            return Ok(None);
        }
        match get() {
            Ok(v) => {
                if reported {
                    on_event(Event::Recovered { during: "connect" });
                }
                return Ok(Some(v));
            }
            Err(e) if e.is_retryable() => {
                if !reported {
                    reported = true;
                    on_event(Event::Error {
                        during: "connect",
                        error: Arc::new(e),
                    });
                }
                let until = std::time::Instant::now() + pause;
                while std::time::Instant::now() < until {
                    if stopped() {
                        return Ok(None);
                    }
                    std::thread::sleep(Duration::from_millis(100).min(pause));
                }
                pause = (pause * 2).min(Duration::from_secs(5));
            }
            Err(e) => return Err(e),
        }
    }
}
