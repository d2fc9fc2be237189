//! The loop of spec/PROTOCOL.md 13.1: leasing for free slots, running handlers (their outcomes
//! go back in `finish.rs`), renewing in one round trip per tick, and the graceful shutdown.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::FutureExt;
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};

use super::event::{self, Counters, Event, EventSink, LogLevel, LogSink, Report};
use super::finish::{by_queue, finish_loop};
use super::housekeeping;
use super::job::{CancelReason, Handler, Job, JobError, Outcome};
use super::options::{Settings, ShutdownAction};
use super::queues::{self, Looks, Picker, QueueOrder, Turns};
use super::shutdown::WorkerHandle;
use crate::conn::{Ladder, Schedule, Verdict};
use crate::error::Error;
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
pub(super) struct Finished {
    pub(super) job: Job,
    pub(super) outcome: Outcome,
    pub(super) slot: Option<OwnedSemaphorePermit>,
}

/// What the finisher's channel carries: one job's outcome, or the outcomes a binding handed
/// back at once ([`Reply::send_all`]). One message for many wakes the finisher once: sent one
/// by one from a binding's thread, each send could wake it again (the finisher runs, finds too
/// few outcomes for a call, and waits again), and on a machine where that thread and the
/// runtime's share a CPU each wake-up is a pair of context switches.
pub(super) enum Done {
    One(Finished),
    Many(Vec<Finished>),
}

impl Done {
    /// Moves the outcomes to `pending`.
    pub(super) fn append_to(self, pending: &mut Vec<Finished>) {
        match self {
            Done::One(f) => pending.push(f),
            Done::Many(fs) => pending.extend(fs),
        }
    }
}

/// What starting a job takes besides the job, its slot and the way back to the finisher: the
/// lease loop and the finisher both start jobs.
#[derive(Clone)]
pub(super) struct Starter {
    pub(super) shared: Arc<Shared>,
    pub(super) handler: Arc<dyn Handler>,
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
    /// refuses is given up ([`super::finish`]).
    pub(super) give_up_at: std::sync::OnceLock<std::time::Instant>,
    /// Per queue: how many of its batches' calls Redis refused without running them
    /// (`UNAVAILABLE`, `OUT_OF_MEMORY`) and are still being sent again; the lease loop leases
    /// nothing from it while there are any ([`super::finish`]).
    pub(super) refusing: Vec<AtomicUsize>,
    /// Told when a queue's count in `refusing` goes back to 0: a lease loop that waits for one
    /// leases again at once.
    pub(super) unrefused: tokio::sync::Notify,
    /// How many batches of outcomes wait for Redis to accept one of their calls: they no longer
    /// count as in flight ([`super::finish`]).
    pub(super) parked: AtomicUsize,
    /// Told when a batch starts waiting so.
    pub(super) parked_now: tokio::sync::Notify,
    /// The jobs of those batches by [`Job::seq`]: their leases are renewed as running jobs'
    /// are, so that an outcome Redis refuses for longer than a lease's time to live (a
    /// complete that keeps its result, over `maxmemory`) does not let the item run again.
    pub(super) parked_jobs: Mutex<HashMap<u64, Job>>,
}

impl Shared {
    /// Once a shutdown began: the end of its timeout, after which a finish Redis still refuses
    /// is given up. Set by whichever sees the shutdown first (the lease loop, or a finish in
    /// its retries), so that it counts from the shutdown's start.
    pub(super) fn give_up_at(&self) -> Option<std::time::Instant> {
        if !self.handle.is_stopping() {
            return self.give_up_at.get().copied();
        }
        Some(
            *self
                .give_up_at
                .get_or_init(|| std::time::Instant::now() + self.settings.shutdown_timeout),
        )
    }

    /// Whether Redis refuses queue `i`'s finishes for now ([`Shared::refusing`]).
    pub(super) fn refuses(&self, i: usize) -> bool {
        self.refusing[i].load(Ordering::SeqCst) > 0
    }

    /// A job for `lease` of the `i`th queue, numbered in this runner ([`Job::seq`]).
    pub(super) fn job(&self, i: usize, lease: crate::Lease) -> Job {
        let seq = self.next.fetch_add(1, Ordering::Relaxed);
        Job::new(self.queues[i].clone(), lease, seq)
    }

    /// Whether the runner serves several queues (13.3).
    pub fn multi(&self) -> bool {
        self.queues.len() > 1
    }

    /// The index of `queue` among the runner's queues.
    pub(super) fn index_of(&self, queue: &Queue) -> usize {
        self.queues
            .iter()
            .position(|q| q.prefix() == queue.prefix())
            .unwrap_or(0)
    }

    pub(super) fn turns(&self) -> std::sync::MutexGuard<'_, Turns> {
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
    pub(super) fn lose(&self, job: &Job, why: Option<RenewOutcome>) {
        if job.mark_lost(why) {
            self.handler.told(job);
            if let Some(why) = why {
                self.emit(Event::LeaseLost {
                    id: job.id().to_owned(),
                    attempt: job.attempt(),
                    why,
                });
            }
        }
    }
}

/// The pauses of a failing step: the runner's rungs of the retry ladder (100 ms doubling to
/// 5 s, with jitter; spec/PROTOCOL.md 13.1).
pub(super) fn ladder() -> Ladder {
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
                parked_jobs: Mutex::new(HashMap::new()),
                refusing: std::iter::repeat_with(|| AtomicUsize::new(0))
                    .take(queue_count)
                    .collect(),
                unrefused: tokio::sync::Notify::new(),
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
        shared.give_up_at();
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
            // Queues whose finishes Redis refuses for now lease nothing more here until those
            // go through: their jobs' outcomes could not be stored either. With none left,
            // wait until one is accepted again (a poll interval at most).
            let order = if shared.multi() {
                let mut order = shared.turns().order(&mut picker, std::time::Instant::now());
                order.retain(|&i| !shared.refuses(i));
                order
            } else if shared.refuses(0) {
                Vec::new()
            } else {
                vec![0]
            };
            if order.is_empty() {
                drop(permits);
                let unrefused = shared.unrefused.notified();
                tokio::pin!(unrefused);
                unrefused.as_mut().enable();
                if (0..shared.queues.len()).all(|i| shared.refuses(i)) {
                    tokio::select! {
                        _ = unrefused => {}
                        _ = tokio::time::sleep(s.poll_interval) => {}
                        _ = shared.handle.stopping() => {}
                    }
                }
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
                    .map(|leases| (leases.into_iter().map(|l| (0, l)).collect(), None))
            };
            match result {
                Ok((leases, passed_over)) => {
                    // A queue that failed while the others gave leases is reported, not
                    // paused for: the leases run.
                    match passed_over {
                        Some(e) => shared.failed("lease", e),
                        None => shared.worked("lease"),
                    }
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
    pub(super) fn start(
        &self,
        job: Job,
        slot: OwnedSemaphorePermit,
        done: mpsc::UnboundedSender<Done>,
    ) {
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

/// Renews every running job's lease, and every parked outcome's ([`Shared::parked_jobs`]), in
/// one round trip per 1000, every `renew_every`.
async fn renew_loop(shared: Arc<Shared>, stop: watch::Receiver<bool>) {
    let s = &shared.settings;
    let mut tick = tokio::time::interval(s.renew_every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    while !*stop.borrow() {
        tick.tick().await;
        let mut jobs: Vec<(Job, bool)> = {
            let running = shared.running.lock().unwrap_or_else(|e| e.into_inner());
            running
                .values()
                .filter(|r| !r.job.is_lost())
                .map(|r| (r.job.clone(), false))
                .collect()
        };
        {
            let parked = shared.parked_jobs.lock().unwrap_or_else(|e| e.into_inner());
            jobs.extend(parked.values().map(|j| (j.clone(), true)));
        }
        for (queue, jobs) in by_queue(jobs) {
            renew_chunks(&shared, &queue, &jobs).await;
        }
    }
}

/// Renews `jobs` (of `queue`), in one round trip per 1000. A running job whose lease is gone
/// is lost; a parked outcome's (`true`) is not: its call, when Redis accepts it, says so, and
/// the lease may be gone only because that call went through meanwhile.
async fn renew_chunks(shared: &Shared, queue: &Queue, jobs: &[(Job, bool)]) {
    let s = &shared.settings;
    for chunk in jobs.chunks(MAX_PAGE) {
        let leases: Vec<&crate::Lease> = chunk.iter().map(|(j, _)| j.lease()).collect();
        match queue.renew_batch(&leases, s.lease_ttl).await {
            Ok(outcomes) => {
                shared.worked("renew");
                for ((job, parked), outcome) in chunk.iter().zip(outcomes) {
                    if outcome != RenewOutcome::Renewed && !parked {
                        shared.lose(job, Some(outcome));
                    }
                }
            }
            Err(e) => shared.failed("renew", e),
        }
    }
}
