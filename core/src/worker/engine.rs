//! The loop of spec/PROTOCOL.md 13.1: leasing for free slots, running handlers, finishing in
//! batches, renewing in one round trip per tick, and the graceful shutdown.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::join_all;
use futures_util::FutureExt;
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};

use super::event::{self, Counters, Event, EventSink, LogLevel, LogSink, Report};
use super::housekeeping;
use super::job::{CancelReason, Handler, Job, JobError, Outcome};
use super::options::{Settings, ShutdownAction};
use super::queues::{self, Looks, Picker, QueueOrder, Turns};
use super::shutdown::WorkerHandle;
use crate::conn::{Ladder, Schedule, Verdict};
use crate::error::{Error, Result};
use crate::job::FailOutcome;
use crate::lease::{RenewOutcome, Wait};
use crate::ops::QueueConfig;
use crate::policy::MAX_PAGE;
use crate::queue::Queue;

/// A job whose handler runs: what the renewer renews and a shutdown releases.
struct Running {
    job: Job,
    task: Option<tokio::task::AbortHandle>,
}

/// A handler's outcome on its way to Redis, with the slot it ran in (none for outcomes made
/// up by a shutdown): the finisher leases the next job for that slot in the same round trip.
struct Finished {
    job: Job,
    outcome: Outcome,
    slot: Option<OwnedSemaphorePermit>,
}

/// What the finisher's channel carries: one job's outcome, or the outcomes a binding handed
/// back at once ([`Reply::send_all`]). One message for many wakes the finisher once: sent one
/// by one from a binding's thread, each send could wake it again (the finisher runs, finds too
/// few outcomes for a call, and waits again), and on a machine where that thread and the
/// runtime's share a CPU each wake-up is a pair of context switches.
enum Done {
    One(Finished),
    Many(Vec<Finished>),
}

impl Done {
    /// Moves the outcomes to `pending`.
    fn append_to(self, pending: &mut Vec<Finished>) {
        match self {
            Done::One(f) => pending.push(f),
            Done::Many(fs) => pending.extend(fs),
        }
    }
}

/// What starting a job takes besides the job, its slot and the way back to the finisher: the
/// lease loop and the finisher both start jobs.
#[derive(Clone)]
struct Starter {
    shared: Arc<Shared>,
    handler: Arc<dyn Handler>,
}

/// What every task of one runner shares.
pub(crate) struct Shared {
    /// The queues served, the first asked first (spec/PROTOCOL.md 13.3); usually one.
    pub queues: Vec<Queue>,
    pub order: QueueOrder,
    pub settings: Settings,
    pub handle: WorkerHandle,
    pub id: String,
    events: Option<EventSink>,
    /// The log sink and the least level it wants ([`crate::worker::Worker::on_log`]).
    log: Option<(LogLevel, LogSink)>,
    pub counters: Counters,
    /// The handler, told here when a job is told to stop ([`Handler::told`]).
    handler: Arc<dyn Handler>,
    /// The running jobs by [`Job::seq`].
    running: Mutex<HashMap<u64, Running>>,
    /// Set (under the `running` lock) when a timed-out or forced shutdown takes what still
    /// runs: a job leased after that is released, not started.
    drained: AtomicBool,
    next: AtomicU64,
    /// One flag per step: set while the step is failing, so an outage is reported once.
    failing: Mutex<HashMap<&'static str, bool>>,
    /// Which queue's completes lease again for their slots in the same call (13.3, "Turns").
    turns: Mutex<Turns>,
    /// Set when the shutdown began: the end of its timeout, after which a finish Redis still
    /// refuses is given up ([`finish_call`]).
    give_up_at: std::sync::OnceLock<std::time::Instant>,
    /// Per queue: set while Redis refuses its finishes without running them (`UNAVAILABLE`,
    /// `OUT_OF_MEMORY`), until one goes through; the lease loop leases nothing from it
    /// meanwhile ([`finish_call`]).
    refusing: Vec<AtomicBool>,
    /// How many batches of outcomes wait for Redis to accept one of their calls: they no longer
    /// count as in flight ([`finish_loop`]).
    parked: AtomicUsize,
    /// Told when a batch starts waiting so.
    parked_now: tokio::sync::Notify,
}

impl Shared {
    /// A job for `lease` of the `i`th queue, numbered in this runner ([`Job::seq`]).
    fn job(&self, i: usize, lease: crate::Lease) -> Job {
        let seq = self.next.fetch_add(1, Ordering::Relaxed);
        Job::new(self.queues[i].clone(), lease, seq)
    }

    /// Whether the runner serves several queues (13.3).
    pub fn multi(&self) -> bool {
        self.queues.len() > 1
    }

    /// The index of `queue` among the runner's queues.
    fn index_of(&self, queue: &Queue) -> usize {
        self.queues
            .iter()
            .position(|q| q.prefix() == queue.prefix())
            .unwrap_or(0)
    }

    fn turns(&self) -> std::sync::MutexGuard<'_, Turns> {
        self.turns.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn emit(&self, event: Event) {
        self.counters.count(&event);
        self.log(event.level(), || event.log_line());
        if let Some(sink) = &self.events {
            sink(&event);
        }
    }

    /// Writes a log line of `level` (spec/PROTOCOL.md 13.4): a `tracing` event under
    /// [`super::event::LOG_TARGET`] when a subscriber wants it, and the line to the log sink
    /// when it wants that level. The line is made only when someone wants it.
    pub fn log(&self, level: LogLevel, line: impl FnOnce() -> String) {
        let sink = self.log.as_ref().filter(|(min, _)| level >= *min);
        let traced = event::tracing_wants(level);
        if sink.is_none() && !traced {
            return;
        }
        let line = line();
        if traced {
            event::trace_line(&self.id, level, &line);
        }
        if let Some((_, sink)) = sink {
            sink(level, &line);
        }
    }

    /// The runner's first log line: its id, its queues, the server (without credentials) and
    /// its concurrency.
    pub fn start_line(&self) -> String {
        let prefixes: Vec<&str> = self.queues.iter().map(|q| q.prefix()).collect();
        let queues = match (prefixes.len(), &self.order) {
            (1, _) => format!("queue {}", prefixes[0]),
            (_, QueueOrder::Strict) => format!("queues {} (strict order)", prefixes.join(", ")),
            (_, QueueOrder::Weighted(w)) => {
                format!("queues {} (weights {w:?})", prefixes.join(", "))
            }
        };
        let server = self.queues[0].client().address();
        format!(
            "runner {} started: {queues} on {server}, concurrency {}",
            self.id, self.settings.concurrency
        )
    }

    /// Reports `error` in `during` once per outage (every time for errors that are not
    /// retryable).
    pub fn failed(&self, during: &'static str, error: Error) {
        let first = {
            let mut failing = self.failing.lock().unwrap_or_else(|e| e.into_inner());
            !std::mem::replace(failing.entry(during).or_default(), true)
        };
        if first || !error.is_retryable() {
            self.emit(Event::Error {
                during,
                error: Arc::new(error),
            });
        }
    }

    /// Notes that `during` works (again).
    pub fn worked(&self, during: &'static str) {
        let was = {
            let mut failing = self.failing.lock().unwrap_or_else(|e| e.into_inner());
            failing.insert(during, false).unwrap_or(false)
        };
        if was {
            self.emit(Event::Recovered { during });
        }
    }

    /// The ids of the running jobs (at most 1000), for the registry.
    pub fn running_ids(&self) -> Vec<String> {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        running
            .values()
            .take(MAX_PAGE)
            .map(|r| r.job.id().to_owned())
            .collect()
    }

    /// The job's timeout passed: tells its handler, if it still runs here and was not told to
    /// stop already (under the `running` lock, so that its ending sees the mark or the mark
    /// sees it gone). True when it told it.
    fn time_out(&self, seq: u64, job: &Job, timeout: Duration) -> bool {
        let told = {
            let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
            running.contains_key(&seq) && job.mark_cancelled(CancelReason::Timeout)
        };
        if told {
            self.handler.told(job);
            self.emit(Event::TimedOut {
                id: job.id().to_owned(),
                attempt: job.attempt(),
                timeout,
            });
        }
        told
    }

    /// Takes job `seq` off the running table: whether it was there (still this runner's).
    fn forget(&self, seq: u64) -> bool {
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&seq)
            .is_some()
    }

    /// Hands a handler's outcome to the finisher, unless the job is no longer this runner's (a
    /// forced shutdown or a timeout's grace gave it up).
    fn finished(
        &self,
        seq: u64,
        job: Job,
        outcome: Outcome,
        timeout: Option<Duration>,
        slot: Option<OwnedSemaphorePermit>,
        done: &mpsc::UnboundedSender<Done>,
    ) {
        if self.forget(seq) {
            // Told of its timeout before it ended (marked under the `running` lock, so
            // before this removal): whatever it returned, the attempt failed by timing out.
            let outcome = match (job.cancel_reason(), timeout) {
                (Some(CancelReason::Timeout), Some(timeout)) => {
                    Outcome::Fail(JobError::timed_out(timeout))
                }
                _ => outcome,
            };
            let _ = done.send(Done::One(Finished { job, outcome, slot }));
        }
    }

    /// The grace after the timeout passed with the handler still running: fails the attempt
    /// now. The job leaves `running` (no more renewals; its outcome, when it comes, is
    /// ignored) and its slot stays with the handler's task.
    fn give_up(&self, seq: u64, job: &Job, timeout: Duration, done: &mpsc::UnboundedSender<Done>) {
        if self.forget(seq) {
            let _ = done.send(Done::One(Finished {
                job: job.clone(),
                outcome: Outcome::Fail(JobError::timed_out(timeout)),
                slot: None,
            }));
        }
    }

    /// Marks the job's lease lost and tells its handler: told of its timeout before, the
    /// handler is told again, so that a binding can say the lease is gone too.
    fn lose(&self, job: &Job, why: Option<RenewOutcome>) {
        if job.mark_lost(why) {
            self.handler.told(job);
            if let Some(why) = why {
                self.emit(Event::LeaseLost {
                    id: job.id().to_owned(),
                    why,
                });
            }
        }
    }
}

/// The pauses of a failing step: the runner's rungs of the retry ladder (100 ms doubling to
/// 5 s, with jitter; spec/PROTOCOL.md 13.1).
fn ladder() -> Ladder {
    Ladder::new(Schedule::RUNNER)
}

/// Sleeps the next pause of `ladder`, cut short by a shutdown.
async fn pause_until_stop(ladder: &mut Ladder, handle: &WorkerHandle) {
    ladder.pause(None, handle.stopping()).await;
}

pub(crate) struct Engine {
    shared: Arc<Shared>,
    handler: Arc<dyn Handler>,
    slots: Arc<Semaphore>,
}

impl Engine {
    pub fn new(
        queues: Vec<Queue>,
        order: QueueOrder,
        handler: Arc<dyn Handler>,
        settings: Settings,
        events: Option<EventSink>,
        log: Option<(LogLevel, LogSink)>,
        handle: WorkerHandle,
    ) -> Engine {
        let slots = Arc::new(Semaphore::new(settings.concurrency));
        let turns = Turns::new(queues.len(), &order, settings.concurrency);
        let queue_count = queues.len();
        Engine {
            shared: Arc::new(Shared {
                queues,
                order,
                id: housekeeping::runner_id(),
                settings,
                handle,
                events,
                log,
                counters: Counters::default(),
                handler: handler.clone(),
                running: Mutex::new(HashMap::new()),
                drained: AtomicBool::new(false),
                next: AtomicU64::new(0),
                failing: Mutex::new(HashMap::new()),
                turns: Mutex::new(turns),
                give_up_at: std::sync::OnceLock::new(),
                refusing: std::iter::repeat_with(|| AtomicBool::new(false))
                    .take(queue_count)
                    .collect(),
                parked: AtomicUsize::new(0),
                parked_now: tokio::sync::Notify::new(),
            }),
            handler,
            slots,
        }
    }

    pub async fn run(self) -> Report {
        let shared = &self.shared;
        let (done_tx, done_rx) = mpsc::unbounded_channel::<Done>();
        let starter = Starter {
            shared: shared.clone(),
            handler: self.handler.clone(),
        };
        let finisher = tokio::spawn(finish_loop(starter, done_tx.downgrade(), done_rx));
        let (stop_side, side_stopped) = watch::channel(false);
        let renewer = tokio::spawn(renew_loop(shared.clone(), side_stopped.clone()));
        let beater = tokio::spawn(housekeeping::beat_loop(shared.clone(), side_stopped));

        shared.log(LogLevel::Info, || shared.start_line());
        self.store_config().await;
        self.lease_loop(&done_tx).await;
        let _ = shared
            .give_up_at
            .set(std::time::Instant::now() + shared.settings.shutdown_timeout);
        self.drain(&done_tx).await;

        drop(done_tx);
        let _ = finisher.await;
        stop_side.send_replace(true);
        renewer.abort();
        let _ = beater.await;
        let report = shared.counters.report();
        shared.log(LogLevel::Info, || report.log_line(&shared.id));
        report
    }

    /// Stores the `stats` setting in the queue's configuration before the first lease, so that
    /// the runner's first completes are counted (or not) already. A retryable error pauses and
    /// tries again, as the lease loop does, until it works or a shutdown begins; any other error
    /// is reported and the runner goes on without it.
    async fn store_config(&self) {
        let shared = &self.shared;
        let Some(on) = shared.settings.stats else {
            return;
        };
        let config = QueueConfig::new().stats(on);
        for queue in &shared.queues {
            self.store_config_in(queue, &config).await;
        }
    }

    async fn store_config_in(&self, queue: &Queue, config: &QueueConfig) {
        let shared = &self.shared;
        let mut ladder = ladder();
        while !shared.handle.is_stopping() {
            match queue.set_config(config).await {
                Ok(()) => {
                    shared.worked("config");
                    return;
                }
                Err(Error::Closed) => {
                    shared.handle.stop();
                    return;
                }
                Err(e) => {
                    let again = Verdict::of(&e).retryable();
                    shared.failed("config", e);
                    if !again {
                        return;
                    }
                    pause_until_stop(&mut ladder, &shared.handle).await;
                }
            }
        }
    }

    /// Leases for free slots until a shutdown begins.
    async fn lease_loop(&self, done: &mpsc::UnboundedSender<Done>) {
        let shared = &self.shared;
        let s = &shared.settings;
        let mut ladder = ladder();
        let mut picker = Picker::new(&shared.order, shared.queues.len());
        let weighted = matches!(shared.order, QueueOrder::Weighted(_));
        let mut looks = Looks::new(shared.queues.len(), weighted);
        while !shared.handle.is_stopping() {
            let first = tokio::select! {
                p = self.slots.clone().acquire_owned() => match p {
                    Ok(p) => p,
                    Err(_) => return,
                },
                _ = shared.handle.stopping() => return,
            };
            let mut permits = vec![first];
            while permits.len() < s.concurrency {
                match self.slots.clone().try_acquire_owned() {
                    Ok(p) => permits.push(p),
                    Err(_) => break,
                }
            }
            // Queues whose finishes Redis refuses for now lease nothing more here until one
            // goes through: their jobs' outcomes could not be stored either.
            let mut order = shared.turns().order(&mut picker, std::time::Instant::now());
            order.retain(|&i| !shared.refusing[i].load(Ordering::SeqCst));
            if order.is_empty() {
                drop(permits);
                pause_until_stop(&mut ladder, &shared.handle).await;
                continue;
            }
            // A shutdown ends the wait for work at once (a lease script in flight still
            // returns, and what it leased is handed back below).
            let result = if shared.multi() {
                queues::lease_any(
                    &shared.queues,
                    &order,
                    permits.len(),
                    s.lease_ttl,
                    s.poll_interval,
                    &mut looks,
                    shared.handle.stopping(),
                )
                .await
            } else {
                shared.queues[0]
                    .lease_batch_unless(
                        permits.len(),
                        s.lease_ttl,
                        Wait::Timeout(s.poll_interval),
                        shared.handle.stopping(),
                    )
                    .await
                    .map(|leases| leases.into_iter().map(|l| (0, l)).collect())
            };
            match result {
                Ok(leases) => {
                    shared.worked("lease");
                    ladder.reset();
                    if shared.multi() {
                        let from: Vec<usize> = leases.iter().map(|(i, _)| *i).collect();
                        shared.turns().leased(&from, std::time::Instant::now());
                    }
                    for (i, lease) in leases {
                        let job = shared.job(i, lease);
                        if shared.handle.is_stopping() {
                            // Leased after the shutdown began: hand it straight back.
                            let _ = done.send(Done::One(Finished {
                                job,
                                outcome: Outcome::Release(None),
                                slot: None,
                            }));
                            continue;
                        }
                        let permit = permits.pop().expect("one permit per lease");
                        self.starter().start(job, permit, done.clone());
                    }
                    self.handler.delivered();
                }
                Err(Error::Closed) => {
                    shared.handle.stop();
                    return;
                }
                Err(e) => {
                    drop(permits);
                    shared.failed("lease", e);
                    pause_until_stop(&mut ladder, &shared.handle).await;
                }
            }
        }
    }

    fn starter(&self) -> Starter {
        Starter {
            shared: self.shared.clone(),
            handler: self.handler.clone(),
        }
    }

    /// After the lease loop: waits for running handlers up to the timeout (or a force), then
    /// takes back what still runs.
    async fn drain(&self, done: &mpsc::UnboundedSender<Done>) {
        let shared = &self.shared;
        let all = shared.settings.concurrency as u32;
        let finished = tokio::select! {
            r = self.slots.acquire_many(all) => r.is_ok(),
            _ = tokio::time::sleep(shared.settings.shutdown_timeout) => false,
            _ = shared.handle.forced() => false,
        };
        if finished {
            return;
        }
        let left: Vec<Running> = {
            let mut running = shared.running.lock().unwrap_or_else(|e| e.into_inner());
            shared.drained.store(true, Ordering::SeqCst);
            running.drain().map(|(_, r)| r).collect()
        };
        for mut running in left {
            shared.lose(&running.job, None);
            if let Some(task) = running.task.take() {
                task.abort();
            }
            let timed_out = shared
                .settings
                .job_timeout
                .filter(|_| running.job.cancel_reason() == Some(CancelReason::Timeout));
            let outcome = match (timed_out, shared.settings.on_shutdown) {
                // Told of its timeout already: the attempt failed by timing out.
                (Some(timeout), _) => Outcome::Fail(JobError::timed_out(timeout)),
                (None, ShutdownAction::Fail) => Outcome::Fail(
                    JobError::new("the runner shut down before the job finished")
                        .with_type("shutdown"),
                ),
                _ => Outcome::Release(None),
            };
            let _ = done.send(Done::One(Finished {
                job: running.job,
                outcome,
                slot: None,
            }));
        }
    }
}

fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into());
    format!("the handler panicked: {text}")
}

impl Starter {
    /// Whether `job` may start: false when the shutdown has taken what runs already (the job
    /// is handed straight back) or when no handler of the table takes it (it fails here,
    /// unrecoverable, without reaching the binding: spec/PROTOCOL.md, 13.1). Called under the
    /// `running` lock.
    fn may_start(
        shared: &Shared,
        job: &Job,
        slot: &mut Option<OwnedSemaphorePermit>,
        done: &mpsc::UnboundedSender<Done>,
    ) -> bool {
        if shared.drained.load(Ordering::SeqCst) {
            *slot = None;
            let _ = done.send(Done::One(Finished {
                job: job.clone(),
                outcome: Outcome::Release(None),
                slot: None,
            }));
            return false;
        }
        if let Some((names, fallback)) = &shared.settings.handler_names {
            if let Err(e) = super::names::route(names, *fallback, job.name()) {
                let _ = done.send(Done::One(Finished {
                    job: job.clone(),
                    outcome: Outcome::Fail(e),
                    slot: slot.take(),
                }));
                return false;
            }
        }
        true
    }

    /// Runs `job` with [`Handler::start`]: no task while the handler runs (one timer task only
    /// with a job timeout), the outcome comes back through a [`Reply`].
    fn start_replying(
        &self,
        job: Job,
        slot: OwnedSemaphorePermit,
        done: mpsc::UnboundedSender<Done>,
    ) {
        let shared = &self.shared;
        let seq = job.seq();
        let mut slot = Some(slot);
        {
            let mut running = shared.running.lock().unwrap_or_else(|e| e.into_inner());
            if !Self::may_start(shared, &job, &mut slot, &done) {
                return;
            }
            let timer = shared.settings.job_timeout.map(|timeout| {
                let (shared, job, done) = (shared.clone(), job.clone(), done.downgrade());
                tokio::spawn(async move {
                    tokio::time::sleep(timeout).await;
                    if !shared.time_out(seq, &job, timeout) {
                        return;
                    }
                    tokio::time::sleep(shared.settings.timeout_grace).await;
                    if let Some(done) = done.upgrade() {
                        // Its reply, when it comes, finds the job gone and frees the slot.
                        shared.give_up(seq, &job, timeout, &done);
                    }
                })
                .abort_handle()
            });
            running.insert(
                seq,
                Running {
                    job: job.clone(),
                    task: timer,
                },
            );
        }
        let reply = Reply {
            job: job.clone(),
            slot,
            shared: shared.clone(),
            done: done.downgrade(),
            sent: false,
        };
        self.handler.start(job, reply);
    }

    /// Runs `job`'s handler in `slot`; its outcome goes to the finisher with the slot. One task
    /// per job (the handler, then the hand-over); with a job timeout, a second task watches it.
    fn start(&self, job: Job, slot: OwnedSemaphorePermit, done: mpsc::UnboundedSender<Done>) {
        let shared = self.shared.clone();
        let seq = job.seq();
        if self.handler.replies() {
            self.start_replying(job, slot, done);
            return;
        }
        let mut slot = Some(slot);
        let mut running = shared.running.lock().unwrap_or_else(|e| e.into_inner());
        if !Self::may_start(&shared, &job, &mut slot, &done) {
            return;
        }
        let handler = self.handler.call(job.clone());
        // Without a timeout, one task runs the handler and then hands its outcome on; with one,
        // the handler's task is watched by a second (below), which hands the outcome on.
        let (task, watched) = match shared.settings.job_timeout {
            None => {
                let (owner, job) = (shared.clone(), job.clone());
                let task = tokio::spawn(async move {
                    let outcome = match AssertUnwindSafe(handler).catch_unwind().await {
                        Ok(outcome) => outcome,
                        Err(panic) => {
                            Outcome::Fail(JobError::new(panic_message(panic)).with_type("panic"))
                        }
                    };
                    owner.finished(seq, job, outcome, None, slot, &done);
                });
                (task.abort_handle(), None)
            }
            Some(timeout) => {
                let task = tokio::spawn(handler);
                (task.abort_handle(), Some((task, timeout, slot, done)))
            }
        };
        running.insert(
            seq,
            Running {
                job: job.clone(),
                task: Some(task),
            },
        );
        drop(running);
        let Some((task, timeout, slot, done)) = watched else {
            return;
        };
        tokio::spawn(async move {
            let mut task = task;
            let joined = tokio::select! {
                joined = &mut task => joined,
                _ = tokio::time::sleep(timeout) => if !shared.time_out(seq, &job, timeout) {
                    // Gone (a shutdown took it) or told already (its lease is lost):
                    // its outcome goes as it comes.
                    task.await
                } else {
                    tokio::select! {
                        joined = &mut task => joined,
                        _ = tokio::time::sleep(shared.settings.timeout_grace) => {
                            shared.give_up(seq, &job, timeout, &done);
                            // The handler runs on, told, and keeps its slot until it
                            // really returns; its outcome is ignored (no longer ours).
                            task.await
                        }
                    }
                }
            };
            let outcome = match joined {
                Ok(outcome) => outcome,
                Err(e) if e.is_panic() => {
                    Outcome::Fail(JobError::new(panic_message(e.into_panic())).with_type("panic"))
                }
                // Aborted by a forced shutdown, which released the item already.
                Err(_) => return,
            };
            shared.finished(seq, job, outcome, Some(timeout), slot, &done);
        });
    }
}

/// The way back of one job's outcome, for a handler that runs jobs with [`Handler::start`]:
/// [`Reply::send`], or [`Reply::send_all`] for many jobs' outcomes at once, from any thread.
/// The job's slot stays taken until its reply is sent or dropped; a reply dropped unsent fails
/// the attempt (`DispatchError`: the handler ended without an outcome). An outcome that comes
/// after the runner gave the job up (a forced shutdown, a timeout's grace) is ignored.
pub struct Reply {
    job: Job,
    slot: Option<OwnedSemaphorePermit>,
    shared: Arc<Shared>,
    done: mpsc::WeakUnboundedSender<Done>,
    sent: bool,
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply").field("job", &self.job).finish()
    }
}

impl Reply {
    /// The job this reply is for.
    pub fn job(&self) -> &Job {
        &self.job
    }

    /// Sends the job's outcome.
    pub fn send(self, outcome: Outcome) {
        Reply::send_all([(self, outcome)]);
    }

    /// Sends many jobs' outcomes (usually of one runner) at once: one lock of the runner's
    /// table of running jobs and one wake-up of its finisher for all of them.
    pub fn send_all(replies: impl IntoIterator<Item = (Reply, Outcome)>) {
        let mut replies = replies.into_iter().peekable();
        let Some(shared) = replies.peek().map(|(r, _)| r.shared.clone()) else {
            return;
        };
        let mut out = Vec::new();
        let mut others = Vec::new();
        let mut done = None;
        {
            let mut running = shared.running.lock().unwrap_or_else(|e| e.into_inner());
            for (mut reply, outcome) in replies {
                if !Arc::ptr_eq(&reply.shared, &shared) {
                    others.push((reply, outcome));
                    continue;
                }
                if done.is_none() {
                    done = Some(reply.done.clone());
                }
                out.extend(reply.take(&mut running, outcome));
            }
        }
        if let Some(tx) = done.and_then(|d| d.upgrade()) {
            if !out.is_empty() {
                let _ = tx.send(Done::Many(out));
            }
        }
        if !others.is_empty() {
            Reply::send_all(others);
        }
    }

    /// Marks the reply sent and, when the job still runs here, takes it out of `running` (its
    /// timer stopped) and makes its way to the finisher: told of its timeout before, the
    /// attempt failed by timing out, whatever the outcome says.
    fn take(&mut self, running: &mut HashMap<u64, Running>, outcome: Outcome) -> Option<Finished> {
        self.sent = true;
        let slot = self.slot.take();
        let r = running.remove(&self.job.seq())?;
        if let Some(timer) = r.task {
            timer.abort();
        }
        let outcome = match (self.job.cancel_reason(), self.shared.settings.job_timeout) {
            (Some(CancelReason::Timeout), Some(timeout)) => {
                Outcome::Fail(JobError::timed_out(timeout))
            }
            _ => outcome,
        };
        Some(Finished {
            job: self.job.clone(),
            outcome,
            slot,
        })
    }
}

impl Drop for Reply {
    fn drop(&mut self) {
        if self.sent {
            return;
        }
        let outcome = Outcome::Fail(
            JobError::new("the handler ended without an outcome").with_type("DispatchError"),
        );
        let finished = {
            let shared = self.shared.clone();
            let mut running = shared.running.lock().unwrap_or_else(|e| e.into_inner());
            self.take(&mut running, outcome)
        };
        if let (Some(finished), Some(tx)) = (finished, self.done.upgrade()) {
            let _ = tx.send(Done::One(finished));
        }
    }
}

/// Sends outcomes as they arrive; outcomes that arrive together go in one batch per kind.
/// Completes go with a lease for the slots their jobs freed, in one round trip
/// (`complete_and_lease_batch`), when their queue may have those slots ([`Turns`]: always for
/// one queue): a busy runner makes one call per batch of jobs, not two. Slots the call finds no
/// work for, and slots another queue's turn should get, go back to the lease loop.
///
/// Up to [`FINISH_CALLS_IN_FLIGHT`] batches are in flight at once: while Redis runs one, the
/// jobs the other leased run here, so that the client's work and Redis's overlap instead of
/// taking turns. Outcomes that arrive while a call is in flight wait for it to end, unless they
/// are enough for a second call (two fifths of the slots): smaller calls would cost Redis more
/// per item (spec/PROTOCOL.md 13.1). Outcomes enough for two calls with none in flight go as
/// two halves, one after the other ([`to_send`]): the second when the first call ends, or
/// [`HOLD_AT_MOST`] later, whichever comes first. Before each decision the loop lets the jobs
/// that are ready to run finish (it yields, again while a yield brought outcomes) and takes
/// their outcomes too, so that the jobs a reply started go out together on any runtime.
async fn finish_loop(
    starter: Starter,
    done: mpsc::WeakUnboundedSender<Done>,
    mut rx: mpsc::UnboundedReceiver<Done>,
) {
    use futures_util::stream::{FuturesUnordered, StreamExt};
    // A second call goes out beside one in flight only with a batch worth a call: two fifths
    // of the slots (each carries about half of them when the two take turns).
    let second_at = (starter.shared.settings.concurrency * 2 / 5).max(1);
    let mut in_flight = FuturesUnordered::new();
    let mut pending: Vec<Finished> = Vec::new();
    let mut got: Vec<Done> = Vec::new();
    let mut held = false;
    let mut held_until = tokio::time::Instant::now();
    loop {
        tokio::select! {
            n = rx.recv_many(&mut got, MAX_PAGE), if pending.len() < MAX_PAGE => {
                if n == 0 {
                    break;
                }
                got.drain(..).for_each(|d| d.append_to(&mut pending));
            }
            Some(()) = in_flight.next(), if !in_flight.is_empty() => {}
            // A batch began waiting for Redis to accept a call: it no longer counts as in
            // flight, so the outcomes behind it may go.
            () = starter.shared.parked_now.notified(), if !in_flight.is_empty() => {}
            // A held half waits for its first half's call at most HOLD_AT_MOST: a call that
            // retries (UNAVAILABLE, OUT_OF_MEMORY) or waits on a hung server must not hold
            // every other outcome back with it.
            () = tokio::time::sleep_until(held_until), if held => held = false,
        }
        if !pending.is_empty() {
            // Let the jobs that are ready to run finish first: those a reply just started, or
            // those started beside the one whose outcome woke this loop. tokio's multi-thread
            // scheduler runs the task a job's outcome wakes next, before the job's siblings,
            // so without this the first outcome of a reply's jobs would go out alone, the rest
            // beside it a moment later, and the two calls would come back together from then
            // on (see `to_send`). A yield puts this loop behind them; again while a yield
            // brought outcomes (an outcome sent to the channel can end a yield early, by
            // waking this loop).
            loop {
                tokio::task::yield_now().await;
                let before = pending.len();
                take_ready(&mut rx, &mut pending);
                if pending.len() == before || pending.len() >= MAX_PAGE {
                    break;
                }
            }
        }
        let was_held = held;
        let active = in_flight
            .len()
            .saturating_sub(starter.shared.parked.load(Ordering::SeqCst));
        if let Some(mut batch) = to_send(&mut pending, active, second_at, &mut held) {
            // A page a call at most. The outcomes waiting never outnumber the runner's slots
            // (at most MAX_PAGE), so this only guards that bound.
            if batch.len() > MAX_PAGE {
                let rest = batch.split_off(MAX_PAGE);
                pending.splice(0..0, rest);
            }
            in_flight.push(finish_batch(&starter, &done, batch));
        }
        if held && !was_held {
            held_until = tokio::time::Instant::now() + HOLD_AT_MOST;
        }
    }
    if !pending.is_empty() {
        in_flight.push(finish_batch(&starter, &done, pending));
    }
    while in_flight.next().await.is_some() {}
}

/// Moves the outcomes already waiting in `rx` to `pending`, while it holds fewer than
/// [`MAX_PAGE`], without waiting for more.
fn take_ready(rx: &mut mpsc::UnboundedReceiver<Done>, pending: &mut Vec<Finished>) {
    while pending.len() < MAX_PAGE {
        match rx.try_recv() {
            Ok(done) => done.append_to(pending),
            Err(_) => break,
        }
    }
}

/// The batch of `pending` to send now, with `in_flight` calls in flight (see [`finish_loop`]).
/// With none in flight: everything, or its first half when there is enough for two calls, the
/// other half `held` until that call ends. With one in flight and nothing held: everything when
/// it is enough for a call. Else nothing yet.
///
/// Why the halves go one after the other: Redis reads the requests that arrived together in one
/// go and writes their replies together, so two calls sent at once come back at once, and their
/// jobs run while Redis waits, as with one call. Outcomes finish together when the jobs of both
/// calls crossed to another language in one go (a Node runner's, say): sent at once, they would
/// keep doing so. The second half sent when the first ends is read apart from the calls after
/// it, and from then on the two calls take turns.
fn to_send<T>(
    pending: &mut Vec<T>,
    in_flight: usize,
    second_at: usize,
    held: &mut bool,
) -> Option<Vec<T>> {
    if in_flight == 0 {
        *held = false;
        if pending.is_empty() {
            return None;
        }
        if pending.len() >= 2 * second_at {
            let rest = pending.split_off(pending.len() / 2);
            *held = true;
            return Some(std::mem::replace(pending, rest));
        }
        return Some(std::mem::take(pending));
    }
    if !*held && in_flight < FINISH_CALLS_IN_FLIGHT && pending.len() >= second_at {
        return Some(std::mem::take(pending));
    }
    None
}

/// How long [`finish_loop`] holds the second half of outcomes that finished together, at most,
/// when the first half's call has not ended by then. Long enough for Redis to have read the
/// first call before the second arrives (a call of 25 plain completes takes about 0.3 ms of
/// Redis's time), short enough that a call stuck in retries holds no other outcome back.
const HOLD_AT_MOST: Duration = Duration::from_millis(2);

/// How many batches of outcomes [`finish_loop`] has in flight at once.
const FINISH_CALLS_IN_FLIGHT: usize = 2;

/// Sends one batch of outcomes (see [`finish_loop`]): each queue's at once, so that a queue
/// whose calls Redis refuses for now holds back no other's ([`finish_queue`]).
async fn finish_batch(
    starter: &Starter,
    done: &mpsc::WeakUnboundedSender<Done>,
    batch: Vec<Finished>,
) {
    let shared = &starter.shared;
    let mut work: Vec<QueueWork> = Vec::new();
    for f in batch {
        let w = match work
            .iter()
            .position(|w| w.queue.prefix() == f.job.queue().prefix())
        {
            Some(k) => &mut work[k],
            None => {
                work.push(QueueWork::new(shared, f.job.queue()));
                work.last_mut().expect("just pushed")
            }
        };
        w.slots.extend(f.slot);
        match f.outcome {
            Outcome::Complete(value) => w.completes.push((f.job, value)),
            // Rate limited: the queue is held off, then the job released (no attempt).
            // Rate limited for its group: held and released in one call.
            Outcome::Fail(JobError {
                rate_limited: Some(d),
                rate_limited_group: true,
                ..
            }) => w.group_holds.push((f.job, d)),
            Outcome::Fail(JobError {
                rate_limited: Some(d),
                ..
            }) => {
                w.hold = Some(w.hold.map_or(d, |held| held.max(d)));
                w.releases.push((f.job, None));
            }
            Outcome::Fail(err) => w.fails.push((f.job, err)),
            Outcome::Release(delay) => w.releases.push((f.job, delay)),
        }
    }
    // A logical queue's partitions are held together (spec 5.25): the limit is the queue's.
    if let Some(d) = work.iter().filter_map(|w| w.hold).max() {
        let held: Vec<&str> = work
            .iter()
            .filter(|w| w.hold.is_some())
            .map(|w| w.queue.prefix())
            .collect();
        hold_the_others(shared, &held, d);
    }
    let parking = Parking::new(shared);
    let held = join_all(
        work.into_iter()
            .map(|w| finish_queue(starter, done, &parking, w)),
    )
    .await;
    // Jobs without a group held their queue: a partitioned queue's other partitions once for
    // the batch, with the longest of those holds.
    let held: Vec<(&str, Duration)> = held
        .iter()
        .flatten()
        .map(|(q, d)| (q.as_str(), *d))
        .collect();
    if let Some(longest) = held.iter().map(|(_, d)| *d).max() {
        let prefixes: Vec<&str> = held.iter().map(|(q, _)| *q).collect();
        hold_the_others(shared, &prefixes, longest);
    }
}

/// One queue's share of a batch of outcomes, with the slots its jobs freed.
struct QueueWork {
    queue: Queue,
    index: usize,
    slots: Vec<OwnedSemaphorePermit>,
    completes: Vec<(Job, Option<Vec<u8>>)>,
    fails: Vec<(Job, JobError)>,
    releases: Vec<(Job, Option<Duration>)>,
    group_holds: Vec<(Job, Duration)>,
    /// The longest "rate limited" hold of its jobs.
    hold: Option<Duration>,
}

impl QueueWork {
    fn new(shared: &Shared, queue: &Queue) -> QueueWork {
        QueueWork {
            queue: queue.clone(),
            index: shared.index_of(queue),
            slots: Vec::new(),
            completes: Vec::new(),
            fails: Vec::new(),
            releases: Vec::new(),
            group_holds: Vec::new(),
            hold: None,
        }
    }
}

/// A batch of outcomes while one of its calls waits for Redis to accept it: counted in
/// [`Shared::parked`] from the first refusal until the batch ends.
struct Parking<'a> {
    shared: &'a Shared,
    parked: AtomicBool,
}

impl<'a> Parking<'a> {
    fn new(shared: &'a Shared) -> Parking<'a> {
        Parking {
            shared,
            parked: AtomicBool::new(false),
        }
    }

    fn park(&self) {
        if !self.parked.swap(true, Ordering::SeqCst) {
            self.shared.parked.fetch_add(1, Ordering::SeqCst);
            self.shared.parked_now.notify_one();
        }
    }
}

impl Drop for Parking<'_> {
    fn drop(&mut self) {
        if self.parked.load(Ordering::SeqCst) {
            self.shared.parked.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Where a finishing call goes ([`finish_call`]): its queue, the batch it belongs to, and the
/// slots its queue's jobs freed, kept for the leases a complete may bring, given up (with the
/// lease) once Redis refuses a call.
struct Calls<'a> {
    index: usize,
    parking: &'a Parking<'a>,
    slots: Mutex<Vec<OwnedSemaphorePermit>>,
    refused: AtomicBool,
}

impl Calls<'_> {
    /// Whether a call here was refused: a complete then leases nothing.
    fn refused(&self) -> bool {
        self.refused.load(Ordering::SeqCst)
    }

    /// A call was refused for now: the queue leases nothing more until a finish goes through,
    /// its slots go back to the lease loop, and the batch no longer counts as in flight.
    fn refuse(&self, shared: &Shared) {
        self.refused.store(true, Ordering::SeqCst);
        shared.refusing[self.index].store(true, Ordering::SeqCst);
        self.slots.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.parking.park();
    }

    fn take_slot(&self) -> Option<OwnedSemaphorePermit> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }
}

/// Sends one queue's outcomes of a batch, in order: its hold (before the releases, so that the
/// released jobs are not leased again at once), its completes (leasing for the slots its jobs
/// freed, when its turn says so), fails, releases, and releases with a group's hold. Returns
/// the queue's prefix and hold when a job without a group held it ([`hold_the_others`]).
async fn finish_queue(
    starter: &Starter,
    done: &mpsc::WeakUnboundedSender<Done>,
    parking: &Parking<'_>,
    w: QueueWork,
) -> Option<(String, Duration)> {
    let shared = &starter.shared;
    let i = w.index;
    let at = Calls {
        index: i,
        parking,
        slots: Mutex::new(w.slots),
        refused: AtomicBool::new(false),
    };
    let queue = &w.queue;
    if let Some(d) = w.hold {
        let d = d.clamp(Duration::from_millis(1), crate::policy::MAX_RATE_WINDOW);
        finish_call(shared, &at, |_| queue.rate_limit(d)).await;
    }
    if !w.completes.is_empty() {
        let free = at.slots.lock().unwrap_or_else(|e| e.into_inner()).len();
        let lease = if shared.handle.is_stopping() || free == 0 {
            0
        } else {
            shared.turns().grant(i, free, std::time::Instant::now())
        };
        if let Some(leases) = send_completes(shared, &at, queue, w.completes, lease).await {
            if lease > 0 && !at.refused() {
                if leases.len() < lease {
                    shared.turns().short(i);
                }
                for lease in leases {
                    let job = shared.job(i, lease);
                    match (at.take_slot(), done.upgrade()) {
                        (Some(slot), Some(tx)) if !shared.handle.is_stopping() => {
                            starter.start(job, slot, tx)
                        }
                        // Leased as the shutdown began: hand it straight back.
                        _ => send_release(shared, &at, job, None).await,
                    }
                }
                starter.handler.delivered();
            }
        }
    }
    // The slots no lease took go back to the lease loop, whose order decides.
    at.slots.lock().unwrap_or_else(|e| e.into_inner()).clear();
    if !w.fails.is_empty() {
        send_fails(shared, &at, queue, w.fails).await;
    }
    for (job, delay) in w.releases {
        send_release(shared, &at, job, delay).await;
    }
    let mut held: Option<Duration> = None;
    for (job, d) in w.group_holds {
        let d = d.clamp(Duration::from_millis(1), crate::policy::MAX_RATE_WINDOW);
        if send_release_holding_group(shared, &at, job, d).await {
            held = Some(held.map_or(d, |h| h.max(d)));
        }
    }
    held.map(|d| (queue.prefix().to_owned(), d))
}

/// Sends one finishing call, again after a pause while Redis refuses it without running it
/// (`UNAVAILABLE`, `OUT_OF_MEMORY`): never after a lost reply, whose call may have run
/// (spec/PROTOCOL.md, 13.1). A shutdown bounds the tries: once its timeout has passed since it
/// began, or it is forced, a call still refused is given up (its lease, no longer renewed,
/// expires and the item runs again), so that a primary that stays over `maxmemory` or down
/// cannot keep the runner from stopping.
///
/// A refusal also parks the call ([`Calls::refuse`]): its queue leases nothing more here until
/// a finish there goes through, and the batch stops counting as in flight, so that one queue
/// (a partition whose primary is over `maxmemory` or failing over) holds back no other's
/// outcomes. `call` is told whether a call here was refused already (a complete then leases
/// nothing: its slots went back).
async fn finish_call<T, F, Fut>(shared: &Shared, at: &Calls<'_>, mut call: F) -> Option<T>
where
    F: FnMut(bool) -> Fut,
    Fut: std::future::Future<Output = Result<T>>,
{
    let mut ladder = ladder();
    loop {
        match call(at.refused()).await {
            Ok(v) => {
                shared.worked("finish");
                shared.refusing[at.index].store(false, Ordering::SeqCst);
                return Some(v);
            }
            Err(e) => {
                let resend = Verdict::of(&e).not_run();
                shared.failed("finish", e);
                if !resend {
                    // Answered, if with an error: the queue does not refuse calls for now.
                    shared.refusing[at.index].store(false, Ordering::SeqCst);
                    return None;
                }
                let give_up = shared.give_up_at.get().copied();
                let past = give_up.is_some_and(|at| std::time::Instant::now() >= at);
                if past || shared.handle.is_forced() {
                    return None;
                }
                at.refuse(shared);
                ladder.pause(give_up, shared.handle.forced()).await;
            }
        }
    }
}

/// `jobs` (each with its outcome) by the queue they came from, in the order first met.
fn by_queue<T>(jobs: Vec<(Job, T)>) -> Vec<(Queue, Vec<(Job, T)>)> {
    let mut out: Vec<(Queue, Vec<(Job, T)>)> = Vec::new();
    for (job, value) in jobs {
        match out
            .iter_mut()
            .find(|(q, _)| q.prefix() == job.queue().prefix())
        {
            Some((_, list)) => list.push((job, value)),
            None => out.push((job.queue().clone(), vec![(job, value)])),
        }
    }
    out
}

/// Completes `completes` (jobs of `queue`) and, when `lease` > 0, leases up to that many items
/// in the same round trip (no wait). Returns the new leases (none when the call's reply was
/// lost).
async fn send_completes(
    shared: &Shared,
    at: &Calls<'_>,
    queue: &Queue,
    completes: Vec<(Job, Option<Vec<u8>>)>,
    lease: usize,
) -> Option<Vec<crate::Lease>> {
    let s = &shared.settings;
    let keep = s.keep_results;
    let items: Vec<crate::ops::Completion<'_>> = completes
        .iter()
        .map(|(job, value)| {
            let result = match value {
                Some(v) if keep => Some((v.as_slice(), s.keep_result_for)),
                _ => None,
            };
            (job.lease(), result)
        })
        .collect();
    let (items, ttl) = (&items, s.lease_ttl);
    // Once refused, a complete leases nothing: its slots went back to the lease loop.
    let (done, leases) = finish_call(shared, at, |refused| async move {
        if lease == 0 || refused {
            let done = queue.complete_batch(items).await?;
            Ok((done, Vec::new()))
        } else {
            queue.complete_and_lease_batch(items, lease, ttl).await
        }
    })
    .await?;
    for ((job, _), completed) in completes.iter().zip(done) {
        if completed {
            shared.emit(Event::Completed {
                id: job.id().to_owned(),
                attempt: job.attempt(),
            });
        } else {
            lost_at_finish(shared, job);
        }
    }
    Some(leases)
}

/// A finish found the lease no longer held (the reply does not say why: reported as expired),
/// unless a renew reported it lost already.
fn lost_at_finish(shared: &Shared, job: &Job) {
    shared.lose(job, Some(RenewOutcome::Expired));
}

async fn send_fails(shared: &Shared, at: &Calls<'_>, queue: &Queue, fails: Vec<(Job, JobError)>) {
    let items: Vec<crate::Failure<'_>> = fails
        .iter()
        .map(|(job, e)| {
            (
                job.lease(),
                e.message.as_str(),
                e.error_type.as_str(),
                e.retry,
                e.trace.as_deref(),
            )
        })
        .collect();
    let Some(outcomes) = finish_call(shared, at, |_| queue.fail_batch_with_traces(&items)).await
    else {
        return;
    };
    for ((job, err), outcome) in fails.iter().zip(outcomes) {
        let (id, attempt, error) = (job.id().to_owned(), job.attempt(), err.message.clone());
        match outcome {
            FailOutcome::Retrying(retry_in) => shared.emit(Event::Retrying {
                id,
                attempt,
                error,
                retry_in,
            }),
            FailOutcome::Dead => shared.emit(Event::Dead { id, attempt, error }),
            FailOutcome::NotHeld(why) => shared.lose(job, Some(why)),
        }
    }
}

async fn send_release(shared: &Shared, at: &Calls<'_>, job: Job, delay: Option<Duration>) {
    let released = finish_call(shared, at, |_| job.queue().release(job.lease(), delay)).await;
    report_release(shared, &job, released);
}

/// What a release call answered (`None`: no answer, the call's outcome unknown): the event, or
/// the lease found lost.
fn report_release(shared: &Shared, job: &Job, released: Option<bool>) {
    match released {
        Some(true) => shared.emit(Event::Released {
            id: job.id().to_owned(),
        }),
        Some(false) => lost_at_finish(shared, job),
        None => {}
    }
}

/// Releases a job whose handler was rate limited for its group, holding the group (or the
/// queue, for a job without one) off for `hold` in the same call (spec/PROTOCOL.md 5.21).
/// Returns whether it held the queue: a partitioned queue's other partitions are then held too
/// ([`hold_the_others`], once per batch).
async fn send_release_holding_group(
    shared: &Shared,
    at: &Calls<'_>,
    job: Job,
    hold: Duration,
) -> bool {
    let released = finish_call(shared, at, |_| {
        job.queue().release_holding_group(job.lease(), hold)
    })
    .await;
    report_release(shared, &job, released.map(|(released, _)| released));
    matches!(released, Some((true, true)))
}

/// For a runner over one logical queue's partitions ([`Settings::one_logical_queue`]): holds
/// every partition but those of `held` off for `hold` (spec/PROTOCOL.md 5.25, "Runners"), each
/// in a call of its own, once, not waited for: a partition that refuses writes (a failover,
/// over maxmemory) must not hold back the runner's outcomes. A refusal is reported as a
/// `finish` error.
fn hold_the_others(shared: &Arc<Shared>, held: &[&str], hold: Duration) {
    if !shared.settings.one_logical_queue {
        return;
    }
    let hold = hold.clamp(Duration::from_millis(1), crate::policy::MAX_RATE_WINDOW);
    for queue in &shared.queues {
        if held.contains(&queue.prefix()) {
            continue;
        }
        let (queue, shared) = (queue.clone(), shared.clone());
        tokio::spawn(async move {
            if let Err(e) = queue.rate_limit(hold).await {
                shared.failed("finish", e);
            }
        });
    }
}

/// Renews every running job's lease, in one round trip per 1000, every `renew_every`.
async fn renew_loop(shared: Arc<Shared>, stop: watch::Receiver<bool>) {
    let s = &shared.settings;
    let mut tick = tokio::time::interval(s.renew_every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    while !*stop.borrow() {
        tick.tick().await;
        let jobs: Vec<Job> = {
            let running = shared.running.lock().unwrap_or_else(|e| e.into_inner());
            running
                .values()
                .filter(|r| !r.job.is_lost())
                .map(|r| r.job.clone())
                .collect()
        };
        let jobs: Vec<(Job, ())> = jobs.into_iter().map(|j| (j, ())).collect();
        for (queue, jobs) in by_queue(jobs) {
            let jobs: Vec<Job> = jobs.into_iter().map(|(j, ())| j).collect();
            renew_chunks(&shared, &queue, &jobs).await;
        }
    }
}

/// Renews `jobs` (of `queue`), in one round trip per 1000.
async fn renew_chunks(shared: &Shared, queue: &Queue, jobs: &[Job]) {
    let s = &shared.settings;
    {
        for chunk in jobs.chunks(MAX_PAGE) {
            let leases: Vec<&crate::Lease> = chunk.iter().map(|j| j.lease()).collect();
            match queue.renew_batch(&leases, s.lease_ttl).await {
                Ok(outcomes) => {
                    shared.worked("renew");
                    for (job, outcome) in chunk.iter().zip(outcomes) {
                        if outcome != RenewOutcome::Renewed {
                            shared.lose(job, Some(outcome));
                        }
                    }
                }
                Err(e) => shared.failed("renew", e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::to_send;

    #[test]
    fn outcomes_go_out_whole_or_in_two_halves_one_after_the_other_and_wait_beside_a_call_until_they_fill_one(
    ) {
        let mut held = false;
        // Nothing in flight: everything goes.
        let mut pending: Vec<u32> = (0..7).collect();
        assert_eq!(
            to_send(&mut pending, 0, 4, &mut held),
            Some((0..7).collect())
        );
        assert!(pending.is_empty() && !held);
        // Enough for two calls: the first half goes, the other waits for it to end, whatever
        // arrives meanwhile.
        let mut pending: Vec<u32> = (0..10).collect();
        assert_eq!(
            to_send(&mut pending, 0, 4, &mut held),
            Some(vec![0, 1, 2, 3, 4])
        );
        assert_eq!(pending, vec![5, 6, 7, 8, 9]);
        assert!(held);
        pending.extend(10..20);
        assert_eq!(to_send(&mut pending, 1, 4, &mut held), None);
        assert_eq!(pending.len(), 15);
        // It ended: the held half goes, with what arrived (in two halves again when that is
        // enough for two calls).
        assert_eq!(
            to_send(&mut pending, 0, 4, &mut held),
            Some((5..12).collect())
        );
        assert_eq!(pending, (12..20).collect::<Vec<_>>());
        assert_eq!(
            to_send(&mut pending, 0, 4, &mut held),
            Some((12..16).collect())
        );
        assert_eq!(
            to_send(&mut pending, 0, 4, &mut held),
            Some((16..20).collect())
        );
        assert!(!held);
        // One call in flight, nothing held: a batch worth a call goes beside it; fewer wait for
        // it to end.
        let mut pending: Vec<u32> = (0..3).collect();
        assert_eq!(to_send(&mut pending, 1, 4, &mut held), None);
        assert_eq!(pending, vec![0, 1, 2]);
        pending.push(3);
        assert_eq!(
            to_send(&mut pending, 1, 4, &mut held),
            Some(vec![0, 1, 2, 3])
        );
        // Two in flight: nothing more, however many wait.
        let mut pending: Vec<u32> = (0..100).collect();
        assert_eq!(to_send(&mut pending, 2, 4, &mut held), None);
        assert_eq!(pending.len(), 100);
        // Nothing pending: nothing to send.
        assert_eq!(to_send(&mut Vec::<u32>::new(), 0, 4, &mut held), None);
    }
}
