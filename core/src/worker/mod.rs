//! The runner engine (spec/PROTOCOL.md, 13): leases for free slots in batches, runs a handler
//! per job, renews every held lease in one round trip per tick, tells a handler when its lease
//! is lost, completes or fails in batches, rides through Redis outages, shuts down gracefully,
//! registers itself, and does the queue's housekeeping under a lock so that no cleaner process
//! is needed. Every binding's `Worker` is this engine with the language's handler plugged in.
//!
//! ```no_run
//! # async fn demo() -> leaseq::Result<()> {
//! use leaseq::worker::{Job, JobError, Worker};
//!
//! let client = leaseq::Client::connect("redis://127.0.0.1:6379").await?;
//! let queue = client.queue("{emails}")?;
//! let report = Worker::new(queue, |job: Job| async move {
//!     let to: String = job.json()?;
//!     if to.is_empty() {
//!         return Err(JobError::unrecoverable("no address"));
//!     }
//!     Ok(())
//! })
//! .concurrency(8)
//! .run() // until SIGINT or SIGTERM; a second one forces
//! .await?;
//! println!("{} completed", report.completed);
//! # Ok(()) }
//! ```

mod engine;
mod event;
mod finish;
mod housekeeping;
mod job;
mod names;
mod options;
pub(crate) mod queues;
mod shutdown;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

pub use event::{Event, EventSink, LogLevel, LogSink, Report, LOG_TARGET};
pub use job::{
    CancelReason, Handler, HandlerFuture, IntoResultValue, Job, JobError, Outcome, Reply,
    TIMEOUT_ERROR_TYPE,
};
pub use names::{route, validate_handler_names, Handlers, Route, NO_HANDLER_ERROR_TYPE};
pub use options::{
    ShutdownAction, WorkerOptions, DEFAULT_LEASE_TTL, DEFAULT_SHUTDOWN_TIMEOUT,
    DEFAULT_TIMEOUT_GRACE,
};
pub use queues::{QueueOrder, MAX_QUEUES};
pub use shutdown::WorkerHandle;

use crate::error::{Error, Result};
use crate::queue::Queue;

/// A runner: a queue, a handler and settings. Build it, then [`Worker::run`] or
/// [`Worker::run_until`].
pub struct Worker {
    queues: Vec<Queue>,
    order: QueueOrder,
    /// Set by [`Worker::partitioned`]: the queues are one logical queue's partitions.
    one_logical_queue: bool,
    handler: Arc<dyn Handler>,
    options: WorkerOptions,
    events: Option<EventSink>,
    log: Option<(LogLevel, LogSink)>,
    handle: WorkerHandle,
}

macro_rules! setter {
    ($(#[$doc:meta])* $name:ident: $ty:ty) => {
        $(#[$doc])*
        pub fn $name(mut self, value: $ty) -> Worker {
            self.options.$name = Some(value);
            self
        }
    };
}

impl Worker {
    /// A runner of `handler` over `queue`, with default settings.
    pub fn new(queue: Queue, handler: impl Handler) -> Worker {
        Worker::for_queues(vec![queue], handler)
    }

    /// A runner of `handler` over several queues of one client (1 to [`MAX_QUEUES`]), asked
    /// in [`QueueOrder::Strict`] order unless [`Worker::queue_order`] says otherwise
    /// (spec/PROTOCOL.md, 13.3). One wait on the server covers all of them; each job is
    /// finished in its own queue ([`Job::queue`]), and the runner registers and does the
    /// housekeeping in each.
    pub fn for_queues(queues: Vec<Queue>, handler: impl Handler) -> Worker {
        Worker {
            queues,
            order: QueueOrder::Strict,
            one_logical_queue: false,
            handler: Arc::new(handler),
            options: WorkerOptions::default(),
            events: None,
            log: None,
            handle: WorkerHandle::new(),
        }
    }

    /// A runner of `handler` over every partition of a partitioned queue (spec/PROTOCOL.md
    /// 5.25, "Runners"): a runner over its partitions ([`Worker::for_queues`]) in weighted round
    /// robin with equal weights, which serves one partition at a time in turns
    /// ([`QueueOrder::Weighted`]), so that each call carries a whole batch of its slots, as over
    /// one queue, and every partition with work has a turn once in `P`. A handler's "rate
    /// limited" without a group ([`JobError::rate_limited`]) holds every partition, as
    /// [`crate::Partitioned::rate_limit`] does: the limit is the logical queue's. One
    /// partition is [`Worker::new`] on it.
    pub fn partitioned(queue: &crate::Partitioned, handler: impl Handler) -> Worker {
        let mut worker = Worker::for_queues(queue.partitions().to_vec(), handler);
        worker.one_logical_queue = true;
        match queue.count() {
            1 => worker,
            n => worker.queue_order(QueueOrder::Weighted(vec![1; n])),
        }
    }

    /// How a runner over several queues picks the queue for its free slots (default strict).
    pub fn queue_order(mut self, order: QueueOrder) -> Worker {
        self.order = order;
        self
    }

    /// Replaces every setting.
    pub fn options(mut self, options: WorkerOptions) -> Worker {
        self.options = options;
        self
    }

    setter!(
        /// Handlers running at once (1 to 1000; default 1).
        concurrency: usize
    );
    setter!(
        /// Each lease's time to live (default 30 s); renewed while the handler runs.
        lease_ttl: Duration
    );
    setter!(
        /// Keep handlers' return values as results (default true).
        keep_results: bool
    );
    setter!(
        /// How long a shutdown waits for running handlers (default 30 s).
        shutdown_timeout: Duration
    );
    setter!(
        /// How long a handler may run (default: no limit); past it the handler is told
        /// ([`Job::cancelled`]) and the attempt fails with a [`TIMEOUT_ERROR_TYPE`] error
        /// once it ends or after the grace ([`WorkerOptions::job_timeout`]).
        job_timeout: Duration
    );
    setter!(
        /// How long a handler told of its timeout has to end before its attempt is failed
        /// anyway (default 5 s; [`WorkerOptions::timeout_grace`]).
        timeout_grace: Duration
    );

    /// Calls `sink` with every [`Event`] (on the runtime's threads: keep it quick).
    pub fn on_event(mut self, sink: impl Fn(&Event) + Send + Sync + 'static) -> Worker {
        self.events = Some(Arc::new(sink));
        self
    }

    /// Sends the runner's log lines of `min` and above to `sink` (on the runtime's threads:
    /// keep it quick), as well as to `tracing`: a line as it starts (its id, queues, the server
    /// without credentials, its concurrency), one per [`Event`] at its [`Event::level`], and
    /// one as it stops (its [`Report`]). For a binding that hands them to its language's
    /// logging; a Rust program reads them through a `tracing` subscriber (target
    /// [`LOG_TARGET`]) without this.
    pub fn on_log(
        mut self,
        min: LogLevel,
        sink: impl Fn(LogLevel, &str) + Send + Sync + 'static,
    ) -> Worker {
        self.log = Some((min, Arc::new(sink)));
        self
    }

    /// Checks the settings and the queues as [`Worker::run_until`] does, without running: for
    /// a binding that refuses bad settings before it starts a runner in the background. The
    /// error names the setting (`queues`, `queue_order`, or a field of [`WorkerOptions`]).
    pub fn check(&self) -> Result<()> {
        self.options.settle()?;
        queues::validate(&self.queues, &self.order)
    }

    /// A handle to stop the runner from elsewhere.
    pub fn handle(&self) -> WorkerHandle {
        self.handle.clone()
    }

    /// Runs until SIGINT or SIGTERM (then shuts down gracefully; a second signal forces), or
    /// until [`WorkerHandle::stop`]. Unix signals only; elsewhere, Ctrl-C.
    pub async fn run(self) -> Result<Report> {
        let handle = self.handle.clone();
        let signals = shutdown::on_signals(handle);
        self.run_until(signals).await
    }

    /// Runs until `shutdown` resolves or [`WorkerHandle::stop`] is called, then shuts down
    /// gracefully (a [`WorkerHandle::force`] during it cuts the wait short). Returns what the
    /// runner did. Errors for bad settings, for a queue that is a partitioned queue's base
    /// (spec/PROTOCOL.md 5.25: its leases are refused; run [`Worker::partitioned`]), found with
    /// one `EXISTS` per queue, and [`Error::Closed`] when a queue's client is closed: at once,
    /// running nothing, or once the runner has stopped if it was closed during the run (the
    /// jobs whose outcomes could not be stored then stay leased until their lease runs out;
    /// stop the runner before closing its client). Redis errors are reported as events and
    /// ridden through.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<Report> {
        self.check()?;
        let closed = |queues: &[Queue]| queues.iter().any(|q| q.client().is_closed());
        if closed(&self.queues) {
            return Err(Error::Closed);
        }
        let mut settings = self.options.settle()?;
        settings.one_logical_queue = self.one_logical_queue;
        for queue in &self.queues {
            // A failed look (Redis down) is no answer: the leases refuse a base anyway.
            if let Ok(true) = queue.is_partitioned_base().await {
                return Err(Error::partitioned_base(queue.prefix()));
            }
        }
        let handle = self.handle.clone();
        let watcher = tokio::spawn(async move {
            shutdown.await;
            handle.stop();
        });
        let queues = self.queues.clone();
        let report = engine::Engine::new(
            self.queues,
            self.order,
            self.handler,
            settings,
            self.events,
            self.log,
            self.handle,
        )
        .run()
        .await;
        watcher.abort();
        if closed(&queues) {
            return Err(Error::Closed);
        }
        Ok(report)
    }
}
