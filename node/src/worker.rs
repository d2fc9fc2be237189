//! The runner: `lib/worker.js`'s `Worker` over the core's engine (`leaseq::worker`). The engine
//! leases, renews, finishes, rides through outages and cleans; this file hands jobs to
//! JavaScript and carries their outcomes back, in batches both ways.
//!
//! Jobs (and the keys of jobs told to stop: a timeout, a lost lease, a shutdown) wait in an
//! inbox. The engine starts each job with `Handler::start` (no task, no channel per job: the
//! job's `Reply` waits in the inbox), and once it has started a batch (`Handler::delivered`), or
//! a job is told to stop (`Handler::told`), one threadsafe call wakes JavaScript (never
//! blocking, so the event loop is never held up), unless a wake-up is pending already;
//! JavaScript then takes everything waiting in one call (`NativeWorkerRun.take`: one native
//! object for the batch, `NativeWorkerJobs`, then `told`). Outcomes go back the same way: the
//! JavaScript layer gathers those settled in one turn of its event loop and sends them in one
//! `NativeWorkerRun.finish`, which hands them to the engine with one `Reply::send_all`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use leaseq::worker::{
    Event, Handler, HandlerFuture, Job, JobError, LogLevel, Outcome, QueueOrder, Reply, Report,
    ShutdownAction, Worker, WorkerHandle, WorkerOptions,
};
use leaseq::Retry;
use napi::bindgen_prelude::{Buffer, ClassInstance};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use tokio::sync::watch;

use crate::convert::{count, duration_ms, millis, opt_millis};
use crate::error::{invalid, to_napi};
use crate::operations::event_node_name;
use crate::partitioned::NativePartitioned;
use crate::queue::NativeQueue;

/// The jobs of one `NativeWorkerRun.take`, in the order leased: one native object for the
/// batch, not one per job; `lib/worker.js` wraps each job as `WorkerJob` (the batch and an
/// index) and asks for a field only when the handler reads it.
#[napi]
pub struct NativeWorkerJobs {
    jobs: Vec<NativeWorkerJob>,
}

/// One job of a batch, with its key in the run.
struct NativeWorkerJob {
    job: Job,
    key: u32,
}

impl NativeWorkerJobs {
    fn job(&self, index: u32) -> napi::Result<&Job> {
        self.jobs
            .get(index as usize)
            .map(|j| &j.job)
            .ok_or_else(|| invalid("index", "is past the batch's jobs"))
    }
}

#[napi]
impl NativeWorkerJobs {
    /// Each job's key in its run, by index: `NativeWorkerRun.told` names jobs told to stop by
    /// it, and `NativeWorkerRun.finish` takes outcomes by it.
    #[napi]
    pub fn keys(&self) -> Vec<u32> {
        self.jobs.iter().map(|j| j.key).collect()
    }

    /// Each job's item name (null for an item added without one), by index: `lib/worker.js`
    /// runs a job with the handler of its name, else the fallback.
    #[napi]
    pub fn names(&self) -> Vec<Option<String>> {
        self.jobs
            .iter()
            .map(|j| j.job.name().map(str::to_owned))
            .collect()
    }

    /// The item's id.
    #[napi]
    pub fn id(&self, index: u32) -> napi::Result<String> {
        Ok(self.job(index)?.id().to_owned())
    }

    /// The item's data.
    #[napi]
    pub fn data(&self, index: u32) -> napi::Result<Buffer> {
        Ok(self.job(index)?.data().to_vec().into())
    }

    /// Which attempt this is (1 for the first).
    #[napi]
    pub fn attempt(&self, index: u32) -> napi::Result<i64> {
        Ok(count(self.job(index)?.attempt()))
    }

    /// The item's attempt limit (0: unlimited).
    #[napi]
    pub fn max_attempts(&self, index: u32) -> napi::Result<u32> {
        Ok(self.job(index)?.max_attempts())
    }

    /// The item's name, when it was added with one.
    #[napi]
    pub fn name(&self, index: u32) -> napi::Result<Option<String>> {
        Ok(self.job(index)?.name().map(str::to_owned))
    }

    /// The prefix of the queue the job came from (the core's `Job::queue`): it is finished
    /// there.
    #[napi]
    pub fn queue_prefix(&self, index: u32) -> napi::Result<String> {
        Ok(self.job(index)?.queue().prefix().to_owned())
    }

    /// Whether the lease is lost.
    #[napi]
    pub fn lease_lost(&self, index: u32) -> napi::Result<bool> {
        Ok(self.job(index)?.is_lost())
    }

    /// Why the handler was told to stop, the core's reason in camelCase (`timeout`,
    /// `leaseLost`, `shutdown`), or null while it is not.
    #[napi]
    pub fn cancel_reason(&self, index: u32) -> napi::Result<Option<String>> {
        Ok(self
            .job(index)?
            .cancel_reason()
            .map(|r| event_node_name(r.as_str())))
    }

    /// The kept results of the job's dependencies, in order.
    #[napi]
    pub async fn dependency_results(
        &self,
        index: u32,
    ) -> napi::Result<Vec<crate::queue::DependencyResultParts>> {
        let job = self.job(index)?.clone();
        let results = job.dependency_results().await.map_err(to_napi)?;
        Ok(crate::queue::dependency_results(results))
    }

    /// Stores a progress value (at most 64 KiB); false once the lease is lost.
    #[napi]
    pub async fn progress(&self, index: u32, value: Buffer) -> napi::Result<bool> {
        let job = self.job(index)?.clone();
        job.progress(&value).await.map_err(to_napi)
    }
}

/// One outcome other than a plain complete, as `NativeWorkerRun.finish` takes it.
#[napi(object)]
pub struct WorkerOutcomeParts {
    /// The job's key (`NativeWorkerJob.key`).
    pub key: u32,
    /// `fail` (message, type, and retry: `never`, a delay in ms, or the backoff), `unencodable`
    /// (the message and type of the error that stopped the JavaScript layer encoding the return
    /// value: a failed attempt, worded by the core), `release` (after a delay in ms),
    /// `rateLimited` (the queue held off for the delay in ms and the job released, no attempt
    /// charged), or `rateLimitedGroup` (the same, holding off only the job's group; the queue
    /// when it has none).
    pub kind: String,
    /// The error's message (`fail`, `unencodable`).
    pub message: Option<String>,
    /// The error's type (`fail`, `unencodable`).
    pub error_type: Option<String>,
    /// `never` for a failure not to retry (`fail`).
    pub retry: Option<String>,
    /// The delay in ms (`fail`: the retry's, `release`, `rateLimited`, `rateLimitedGroup`).
    pub delay_ms: Option<f64>,
    /// The error's `stack`, kept as the failed attempt's trace (`fail`).
    pub trace: Option<String>,
}

/// The core's outcome for `parts`; a value the core refuses (a negative delay) is an error
/// naming it.
fn outcome_of(parts: WorkerOutcomeParts) -> napi::Result<Outcome> {
    let WorkerOutcomeParts {
        kind,
        message,
        error_type,
        retry,
        delay_ms,
        trace,
        ..
    } = parts;
    Ok(match kind.as_str() {
        "fail" => {
            let mut err = JobError::new(message.unwrap_or_default())
                .with_type(error_type.unwrap_or_default());
            err.retry = match (retry.as_deref(), delay_ms) {
                (Some("never"), _) => Retry::Never,
                (_, Some(ms)) => Retry::After(millis("delayMs", ms)?),
                _ => Retry::Default,
            };
            err.trace = trace;
            Outcome::Fail(err)
        }
        "unencodable" => Outcome::Fail(
            JobError::unencodable_result(message.unwrap_or_default())
                .with_type(error_type.unwrap_or_default()),
        ),
        "release" => Outcome::Release(opt_millis("delayMs", delay_ms)?),
        "rateLimited" => {
            let ms = delay_ms.ok_or_else(|| invalid("holdMs", "must be a number of ms"))?;
            Outcome::Fail(JobError::rate_limited(millis("holdMs", ms)?))
        }
        "rateLimitedGroup" => {
            let ms = delay_ms.ok_or_else(|| invalid("holdMs", "must be a number of ms"))?;
            Outcome::Fail(JobError::rate_limited_group(millis("holdMs", ms)?))
        }
        other => return Err(invalid("kind", &format!("unknown outcome `{other}`"))),
    })
}

/// The failed attempt that stands for an outcome the core refused: the refusal's message
/// (without `error.rs`'s code prefix), type `LeaseqError`.
fn refused_outcome(err: napi::Error) -> Outcome {
    let reason = err.reason;
    let message = match reason.strip_prefix("leaseq:") {
        Some(rest) => rest.split_once(": ").map_or(rest, |(_, m)| m).to_owned(),
        None => reason,
    };
    Outcome::Fail(JobError::new(message).with_type("LeaseqError"))
}

/// Jobs on their way to JavaScript, keys of jobs told to stop, and the way back of every job
/// JavaScript holds.
#[derive(Default)]
struct Waiting {
    jobs: Vec<NativeWorkerJob>,
    told: Vec<u32>,
    /// The keys `take` took from `told`, for `told` to return.
    told_taken: Vec<u32>,
    /// A wake-up was sent and JavaScript has not taken what waits since.
    woken: bool,
    /// Each job's way back to the engine, by key, from `start` until its outcome comes back.
    outcomes: HashMap<u32, Reply>,
}

type Wake = ThreadsafeFunction<u32, (), u32, Status, false>;

/// The inbox of one run; `NativeWorkerRun` and the handler share it.
#[derive(Default)]
struct Inbox {
    waiting: Mutex<Waiting>,
}

impl Inbox {
    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wakes JavaScript when something waits and no wake-up is pending.
    fn wake(&self, wake: &Wake) {
        let send = {
            let mut w = self.lock();
            let waits = !w.jobs.is_empty() || !w.told.is_empty();
            let send = waits && !w.woken;
            w.woken |= send;
            send
        };
        if send {
            wake.call(0, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }
}

/// A job's key in its run: the engine's number for it ([`Job::seq`]), cut to 32 bits (keys
/// repeat only after 2^32 jobs, never among those running at once).
fn key_of(job: &Job) -> u32 {
    job.seq() as u32
}

/// The engine's handler: queues each job for JavaScript with its [`Reply`], which `finish`
/// sends; no task and no channel per job while JavaScript runs it.
struct NodeHandler {
    inbox: Arc<Inbox>,
    wake: Arc<Wake>,
}

impl Handler for NodeHandler {
    /// Not used: the engine calls `start`, since `replies` is true.
    fn call(&self, _job: Job) -> HandlerFuture {
        Box::pin(async {
            Outcome::Fail(
                JobError::new("the Node runner takes jobs with Handler::start")
                    .with_type("DispatchError"),
            )
        })
    }

    fn replies(&self) -> bool {
        true
    }

    fn start(&self, job: Job, reply: Reply) {
        let key = key_of(&job);
        let mut w = self.inbox.lock();
        w.outcomes.insert(key, reply);
        w.jobs.push(NativeWorkerJob { job, key });
    }

    fn delivered(&self) {
        self.inbox.wake(&self.wake);
    }

    /// Tells JavaScript that the job's handler is to stop (its `cancelReason` says why): it
    /// aborts the job's signal. After a forced shutdown took the job, its later outcome is
    /// ignored by the engine.
    fn told(&self, job: &Job) {
        self.inbox.lock().told.push(key_of(job));
        self.inbox.wake(&self.wake);
    }
}

/// One event of a runner.
#[napi(object)]
pub struct WorkerEventParts {
    /// The core's name for it (`Event::name`) in camelCase: `completed`, `retrying`, `dead`,
    /// `released`, `leaseLost`, `timedOut`, `error` or `recovered`.
    pub name: String,
    /// The item's id (none for `error` and `recovered`).
    pub id: Option<String>,
    /// The attempt, where it applies.
    pub attempt: Option<i64>,
    /// The error message (`retrying`, `dead`, `timedOut`, `error`), or why a lease was lost.
    pub message: Option<String>,
    /// The registry code of an `error`.
    pub code: Option<String>,
    /// The step of an `error` or `recovered` (`config`, `lease`, `finish`, `renew`, `beat`,
    /// `clean`).
    pub during: Option<String>,
    /// The delay before a retry, in ms.
    pub retry_in_ms: Option<f64>,
}

/// One log line of a runner (spec/PROTOCOL.md 13.4), worded by the core.
#[napi(object)]
pub struct WorkerLogLine {
    /// `debug`, `info`, `warn` or `error`: the logger's method to call.
    pub level: String,
    /// The line.
    pub line: String,
}

/// What a runner did.
#[napi(object)]
pub struct WorkerReportParts {
    /// Jobs completed.
    pub completed: i64,
    /// Failures that will be retried.
    pub retried: i64,
    /// Jobs sent to the dead letters.
    pub dead: i64,
    /// Leases lost.
    pub lost: i64,
    /// Jobs released.
    pub released: i64,
    /// Handlers that ran past the job timeout (each also counted as retried or dead).
    pub timed_out: i64,
}

/// The settings of a runner; any left out take the core's defaults.
#[napi(object)]
pub struct WorkerOptionsParts {
    /// Handlers at once (default 1).
    pub concurrency: Option<f64>,
    /// Each lease's TTL (default 30 s).
    pub lease_ttl_ms: Option<f64>,
    /// Renewal period (default TTL/3).
    pub renew_every_ms: Option<f64>,
    /// Keep return values as results (default true).
    pub keep_results: Option<bool>,
    /// How long kept results live.
    pub keep_result_for_ms: Option<f64>,
    /// How long close waits for running handlers (default 30 s).
    pub shutdown_timeout_ms: Option<f64>,
    /// `release` (default) or `fail` what still runs after the timeout.
    pub on_shutdown: Option<String>,
    /// Longest single server-side wait (default 1 s).
    pub poll_interval_ms: Option<f64>,
    /// Registration beat (default 5 s).
    pub heartbeat_ms: Option<f64>,
    /// Take part in the queue's housekeeping (default true).
    pub housekeeping: Option<bool>,
    /// Light clean period while holding the lock (default 5 s).
    pub housekeeping_every_ms: Option<f64>,
    /// Deep clean period (default 1 h; 0 turns it off).
    pub deep_clean_every_ms: Option<f64>,
    /// Stored in the queue's configuration as the runner starts: `true` turns the queue's
    /// per-minute counters on for every client, `false` off (left out: left alone).
    pub stats: Option<bool>,
    /// How long a handler may run (default: no limit); past it its signal aborts and the
    /// attempt fails with error type `timeout` once it settles, or after `timeoutGraceMs`.
    pub job_timeout_ms: Option<f64>,
    /// How long a handler told of its timeout has to settle before its attempt is failed
    /// anyway (default 5 s).
    pub timeout_grace_ms: Option<f64>,
    /// Over several queues, weighted round robin with one weight per queue (1 to 1000);
    /// left out, strict order.
    pub weights: Option<Vec<f64>>,
    /// For a table of handlers by name: its names (the object's keys, as given). The core
    /// checks them as the runner starts (argument `handlers`) and fails for good, without
    /// dispatching it, a job that no name and no fallback takes. Left out: one handler.
    pub handler_names: Option<Vec<String>>,
    /// With `handlerNames`: whether the table has a fallback (default false).
    pub fallback_handler: Option<bool>,
    /// The least level of the log lines sent to `onLog` (`debug`, `info`, `warn`, `error`;
    /// default `info`).
    pub log_level: Option<String>,
}

/// How a runner ended: its report, or why it did not run (the core's argument and reason).
/// The runner's end: its report, or its error, converted (`to_napi`) and kept as the message
/// that `lib/errors.js` decodes (a `napi::Error` is not `Clone`).
type Ended = Option<Result<Report, String>>;

/// A started runner.
#[napi]
pub struct NativeWorkerRun {
    handle: WorkerHandle,
    inbox: Arc<Inbox>,
    /// The runner's end: its report, or why it did not run (the core's argument and reason).
    report: watch::Receiver<Ended>,
    completed_wanted: Arc<AtomicBool>,
    keep_results: bool,
}

#[napi]
impl NativeWorkerRun {
    /// Whether handlers' return values are kept (the default applied): the JavaScript layer
    /// encodes them only then.
    #[napi(getter)]
    pub fn keep_results(&self) -> bool {
        self.keep_results
    }

    /// Whether JavaScript listens for `completed` events: without a listener they are not sent
    /// across at all (one threadsafe call per job saved).
    #[napi]
    pub fn want_completed(&self, wanted: bool) {
        self.completed_wanted.store(wanted, Ordering::Relaxed);
    }

    /// The jobs waiting for JavaScript since the last call, in the order leased (call it when
    /// woken; then `told`).
    #[napi]
    pub fn take(&self) -> NativeWorkerJobs {
        let mut w = self.inbox.lock();
        w.woken = false;
        let told = std::mem::take(&mut w.told);
        w.told_taken.extend(told);
        NativeWorkerJobs {
            jobs: std::mem::take(&mut w.jobs),
        }
    }

    /// The keys of jobs told to stop that the last `take` took (their jobs came in that take
    /// or before); each job's `cancelReason` says why.
    #[napi]
    pub fn told(&self) -> Vec<u32> {
        std::mem::take(&mut self.inbox.lock().told_taken)
    }

    /// Reports outcomes, each job's once, in one call: the jobs of `keys` completed (with
    /// `results[i]` as the result of `keys[i]` when given), and `others` (failures, releases,
    /// rate limits). An outcome the core refuses (a negative delay, say) fails its job with the
    /// refusal (error type `LeaseqError`); an unknown or finished key is ignored.
    #[napi]
    pub fn finish(
        &self,
        keys: Vec<u32>,
        results: Option<Vec<Option<Buffer>>>,
        others: Option<Vec<WorkerOutcomeParts>>,
    ) {
        let mut results = results.map(Vec::into_iter);
        let mut out = Vec::with_capacity(keys.len() + others.as_ref().map_or(0, Vec::len));
        for key in keys {
            let result = results.as_mut().and_then(Iterator::next).flatten();
            out.push((key, Outcome::Complete(result.map(|b| b.to_vec()))));
        }
        for parts in others.into_iter().flatten() {
            let key = parts.key;
            out.push((key, outcome_of(parts).unwrap_or_else(refused_outcome)));
        }
        let replies: Vec<_> = {
            let mut w = self.inbox.lock();
            out.into_iter()
                .filter_map(|(key, o)| w.outcomes.remove(&key).map(|reply| (reply, o)))
                .collect()
        };
        Reply::send_all(replies);
    }

    /// Resolves with the report once the runner has stopped.
    #[napi]
    pub async fn wait(&self) -> napi::Result<WorkerReportParts> {
        let mut rx = self.report.clone();
        let _ = rx.wait_for(|r| r.is_some()).await;
        let ended = rx.borrow().clone();
        match ended {
            Some(Ok(r)) => Ok(WorkerReportParts {
                completed: count(r.completed),
                retried: count(r.retried),
                dead: count(r.dead),
                lost: count(r.lost),
                released: count(r.released),
                timed_out: count(r.timed_out),
            }),
            Some(Err(reason)) => Err(napi::Error::new(Status::GenericFailure, reason)),
            None => Err(napi::Error::new(
                Status::GenericFailure,
                "the runner vanished",
            )),
        }
    }

    /// Starts a graceful shutdown.
    #[napi]
    pub fn stop(&self) {
        self.handle.stop()
    }

    /// Forces the shutdown.
    #[napi]
    pub fn force(&self) {
        self.handle.force()
    }

    /// The first call stops, the next forces (what a signal does).
    #[napi]
    pub fn interrupt(&self) {
        self.handle.interrupt()
    }
}

/// The order of the queues: strict, or weighted by `weights` (whole numbers; the core judges
/// their values).
fn queue_order(weights: Option<&[f64]>) -> napi::Result<QueueOrder> {
    match weights {
        None => Ok(QueueOrder::Strict),
        Some(weights) => Ok(QueueOrder::Weighted(
            weights
                .iter()
                .map(|&w| crate::convert::integer("weights", w))
                .collect::<napi::Result<_>>()?,
        )),
    }
}

/// A refusal of the core, named as `Worker` names its arguments: the core's `queues` is the
/// `queue` argument (one queue or an array), its `queue_order` the `weights` option.
fn refused(err: leaseq::Error) -> napi::Error {
    match &err {
        leaseq::Error::InvalidArgument {
            argument: "queues",
            reason,
        } => invalid("queue", reason),
        leaseq::Error::InvalidArgument {
            argument: "queue_order",
            reason,
        } => invalid("weights", reason),
        _ => to_napi(err),
    }
}

fn options(o: &WorkerOptionsParts) -> napi::Result<WorkerOptions> {
    let mut w = WorkerOptions::new();
    w.concurrency = o
        .concurrency
        .map(|c| crate::convert::integer("concurrency", c))
        .transpose()?;
    w.lease_ttl = opt_millis("leaseTtlMs", o.lease_ttl_ms)?;
    w.renew_every = opt_millis("renewEveryMs", o.renew_every_ms)?;
    w.keep_results = o.keep_results;
    w.keep_result_for = opt_millis("keepResultForMs", o.keep_result_for_ms)?;
    w.shutdown_timeout = opt_millis("shutdownTimeoutMs", o.shutdown_timeout_ms)?;
    w.poll_interval = opt_millis("pollIntervalMs", o.poll_interval_ms)?;
    w.heartbeat = opt_millis("heartbeatMs", o.heartbeat_ms)?;
    w.housekeeping = o.housekeeping;
    w.housekeeping_every = opt_millis("housekeepingEveryMs", o.housekeeping_every_ms)?;
    w.deep_clean_every = opt_millis("deepCleanEveryMs", o.deep_clean_every_ms)?;
    w.stats = o.stats;
    w.job_timeout = opt_millis("jobTimeoutMs", o.job_timeout_ms)?;
    w.timeout_grace = opt_millis("timeoutGraceMs", o.timeout_grace_ms)?;
    w.on_shutdown = match o.on_shutdown.as_deref() {
        None => None,
        Some("release") => Some(ShutdownAction::Release),
        Some("fail") => Some(ShutdownAction::Fail),
        Some(other) => {
            return Err(invalid(
                "onShutdown",
                &format!("must be 'release' or 'fail', got {other:?}"),
            ))
        }
    };
    w.handler_names = o.handler_names.clone();
    w.fallback_handler = o.fallback_handler;
    w.language = Some("node".into());
    w.effective_concurrency().map_err(to_napi)?;
    Ok(w)
}

/// An event as JavaScript receives it: named by the core (`Event::name`, in camelCase), with
/// the core's id, attempt and message where they apply, and what only an `error` or `recovered`
/// carries (its step, its error's code and message) or a `retrying` (its delay).
fn event_parts(e: &Event) -> WorkerEventParts {
    let mut p = WorkerEventParts {
        name: event_node_name(e.name()),
        id: e.id().map(str::to_owned),
        attempt: Some(e.attempt()).filter(|a| *a > 0).map(count),
        message: Some(e.message()).filter(|m| !m.is_empty()),
        code: None,
        during: None,
        retry_in_ms: None,
    };
    match e {
        Event::Retrying { retry_in, .. } => p.retry_in_ms = Some(duration_ms(*retry_in)),
        Event::Error { during, error } => {
            p.during = Some((*during).into());
            p.code = Some(error.code().as_str().into());
            // The outage's message is the error's own; the step travels in `during`.
            p.message = Some(error.to_string());
        }
        Event::Recovered { during } => {
            p.during = Some((*during).into());
            p.message = None;
        }
        _ => {}
    }
    p
}

/// Starts the core's runner over `queues` (1 to 64 of one client, asked in strict order, or
/// by weighted round robin with `weights`): `wake()` says that jobs, or keys of jobs told to
/// stop, wait (`NativeWorkerRun.take`, then `told`; a job's `cancelReason` says why it was told:
/// a timeout, a lost lease, a shutdown), and JavaScript runs each job and reports the outcomes
/// with `NativeWorkerRun.finish`; `onEvent(event)` reports, and `onLog(line)`, when given, gets
/// the runner's log lines of `logLevel` and above. With `partitioned` (the queue whose
/// partitions `queues` are), the runner is the core's `Worker::partitioned` over it: a
/// handler's "rate limited" holds every partition.
#[napi]
pub fn start_worker(
    queues: Vec<ClassInstance<'_, NativeQueue>>,
    wake: ThreadsafeFunction<u32, (), u32, Status, false>,
    on_event: ThreadsafeFunction<WorkerEventParts, (), WorkerEventParts, Status, false>,
    options_parts: WorkerOptionsParts,
    on_log: Option<ThreadsafeFunction<WorkerLogLine, (), WorkerLogLine, Status, false>>,
    partitioned: Option<ClassInstance<'_, NativePartitioned>>,
) -> napi::Result<NativeWorkerRun> {
    let o = options(&options_parts)?;
    let min = match options_parts.log_level.as_deref() {
        None | Some("info") => LogLevel::Info,
        Some("debug") => LogLevel::Debug,
        Some("warn") => LogLevel::Warn,
        Some("error") => LogLevel::Error,
        Some(other) => {
            return Err(invalid(
                "logLevel",
                &format!("must be 'debug', 'info', 'warn' or 'error', got {other:?}"),
            ))
        }
    };
    let order = queue_order(options_parts.weights.as_deref())?;
    let queues = queues.iter().map(|q| q.inner().clone()).collect();
    let keep_results = o.keeps_results();
    let inbox = Arc::new(Inbox::default());
    let completed_wanted = Arc::new(AtomicBool::new(true));
    let wanted = completed_wanted.clone();
    let handler = NodeHandler {
        inbox: inbox.clone(),
        wake: Arc::new(wake),
    };
    let worker = match &partitioned {
        Some(p) => Worker::partitioned(p.inner(), handler),
        None => Worker::for_queues(queues, handler),
    };
    let worker = worker.queue_order(order).options(o).on_event(move |e| {
        if matches!(e, Event::Completed { .. }) && !wanted.load(Ordering::Relaxed) {
            return;
        }
        on_event.call(event_parts(e), ThreadsafeFunctionCallMode::NonBlocking);
    });
    let worker = match on_log {
        Some(on_log) => worker.on_log(min, move |level, line| {
            let line = WorkerLogLine {
                level: level.as_str().to_owned(),
                line: line.to_owned(),
            };
            on_log.call(line, ThreadsafeFunctionCallMode::NonBlocking);
        }),
        None => worker,
    };
    worker.check().map_err(refused)?;
    let handle = worker.handle();
    let (tx, rx) = watch::channel(None);
    let ended = inbox.clone();
    napi::bindgen_prelude::spawn(async move {
        let report = worker
            .run_until(std::future::pending())
            .await
            // A queue that is a partitioned queue's base, found as it starts; the client
            // closed, at the start or during the run.
            .map_err(|e| to_napi(e).reason);
        // The replies of handlers still running (a forced shutdown took their jobs): their
        // outcomes no longer count, and dropping them frees the engine (and `wake`) they hold.
        let left = std::mem::take(&mut ended.lock().outcomes);
        drop(left);
        let _ = tx.send(Some(report));
    });
    Ok(NativeWorkerRun {
        handle,
        inbox,
        report: rx,
        completed_wanted,
        keep_results,
    })
}
