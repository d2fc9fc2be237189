//! The runner: `lib/worker.js`'s `Worker` over the core's engine (`leaseq::worker`). The engine
//! leases, renews, finishes, rides through outages and cleans; this file hands each job to a
//! JavaScript `dispatch` (a threadsafe function called without blocking, so the event loop is
//! never held up) and carries the outcome back through `NativeWorkerJob.finish`.

use std::sync::{Arc, Mutex};

use leaseq::worker::{
    Event, Job, JobError, LogLevel, Outcome, QueueOrder, Report, ShutdownAction, Worker,
    WorkerHandle, WorkerOptions,
};
use leaseq::Retry;
use napi::bindgen_prelude::{Buffer, ClassInstance};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use tokio::sync::{oneshot, watch};

use crate::convert::{count, duration_ms, millis, opt_millis};
use crate::error::{invalid, to_napi};
use crate::operations::event_node_name;
use crate::queue::NativeQueue;

/// One leased job handed to JavaScript; `lib/worker.js` wraps it as `Job`.
#[napi]
pub struct NativeWorkerJob {
    job: Job,
    key: u32,
    done: Arc<Mutex<Option<oneshot::Sender<Outcome>>>>,
}

#[napi]
impl NativeWorkerJob {
    /// The item's id.
    #[napi(getter)]
    pub fn id(&self) -> String {
        self.job.id().to_owned()
    }

    /// The item's data.
    #[napi(getter)]
    pub fn data(&self) -> Buffer {
        self.job.data().to_vec().into()
    }

    /// Which attempt this is (1 for the first).
    #[napi(getter)]
    pub fn attempt(&self) -> i64 {
        count(self.job.attempt())
    }

    /// The item's attempt limit (0: unlimited).
    #[napi(getter)]
    pub fn max_attempts(&self) -> u32 {
        self.job.max_attempts()
    }

    /// The item's name, when it was added with one: `lib/worker.js` runs the job with the
    /// handler of that name, else the fallback.
    #[napi(getter)]
    pub fn name(&self) -> Option<String> {
        self.job.name().map(str::to_owned)
    }

    /// The prefix of the queue the job came from (the core's `Job::queue`): it is finished
    /// there.
    #[napi(getter)]
    pub fn queue_prefix(&self) -> String {
        self.job.queue().prefix().to_owned()
    }

    /// The key `onCancel` calls back with.
    #[napi(getter)]
    pub fn key(&self) -> u32 {
        self.key
    }

    /// Whether the lease is lost.
    #[napi(getter)]
    pub fn lease_lost(&self) -> bool {
        self.job.is_lost()
    }

    /// Why the handler was told to stop, the core's reason in camelCase (`timeout`,
    /// `leaseLost`, `shutdown`), or null while it is not.
    #[napi(getter)]
    pub fn cancel_reason(&self) -> Option<String> {
        self.job
            .cancel_reason()
            .map(|r| event_node_name(r.as_str()))
    }

    /// Reports the outcome, once: `complete` (with a result), `fail` (message, type, and retry:
    /// `never`, a delay in ms, or the backoff), `unencodable` (the message and type of the error
    /// that stopped the JavaScript layer encoding the return value: a failed attempt, worded by
    /// the core), `release` (after a delay in ms), `rateLimited` (the queue held off for the
    /// delay in ms and the job released, no attempt charged), or `rateLimitedGroup` (the same,
    /// holding off only the job's group; the queue when it has none). A `fail` carries the
    /// error's `stack` as its trace.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn finish(
        &self,
        kind: String,
        result: Option<Buffer>,
        message: Option<String>,
        error_type: Option<String>,
        retry: Option<String>,
        delay_ms: Option<f64>,
        trace: Option<String>,
    ) -> napi::Result<()> {
        let outcome = match kind.as_str() {
            "complete" => Outcome::Complete(result.map(|b| b.to_vec())),
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
        };
        if let Some(tx) = self.done.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = tx.send(outcome);
        }
        Ok(())
    }

    /// Stores a progress value (at most 64 KiB); false once the lease is lost.
    #[napi]
    pub async fn progress(&self, value: Buffer) -> napi::Result<bool> {
        self.job.progress(&value).await.map_err(to_napi)
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

/// A started runner.
#[napi]
pub struct NativeWorkerRun {
    handle: WorkerHandle,
    report: watch::Receiver<Option<Result<Report, String>>>,
    completed_wanted: Arc<std::sync::atomic::AtomicBool>,
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
        self.completed_wanted
            .store(wanted, std::sync::atomic::Ordering::Relaxed);
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
            Some(Err(message)) => Err(invalid("options", &message)),
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
/// by weighted round robin with `weights`): `dispatch(job)` runs each job (and calls
/// `job.finish(...)` once), `onCancel(key)` says a job's handler is told to stop (its
/// `cancelReason` says why: a timeout, a lost lease, a shutdown), `onEvent(event)` reports,
/// and `onLog(line)`, when given, gets the runner's log lines of `logLevel` and above.
#[napi]
pub fn start_worker(
    queues: Vec<ClassInstance<'_, NativeQueue>>,
    dispatch: ThreadsafeFunction<NativeWorkerJob, (), NativeWorkerJob, Status, false>,
    on_cancel: ThreadsafeFunction<u32, (), u32, Status, false>,
    on_event: ThreadsafeFunction<WorkerEventParts, (), WorkerEventParts, Status, false>,
    options_parts: WorkerOptionsParts,
    on_log: Option<ThreadsafeFunction<WorkerLogLine, (), WorkerLogLine, Status, false>>,
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
    let dispatch = Arc::new(dispatch);
    let on_cancel = Arc::new(on_cancel);
    let next = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let completed_wanted = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let wanted = completed_wanted.clone();
    let worker = Worker::for_queues(queues, move |job: Job| {
        let dispatch = dispatch.clone();
        let on_cancel = on_cancel.clone();
        let key = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        async move {
            let (tx, rx) = oneshot::channel();
            let native = NativeWorkerJob {
                job: job.clone(),
                key,
                done: Arc::new(Mutex::new(Some(tx))),
            };
            let status = dispatch.call(native, ThreadsafeFunctionCallMode::NonBlocking);
            if status != Status::Ok {
                return Outcome::Fail(
                    JobError::new(format!("could not call the handler: {status}"))
                        .with_type("DispatchError"),
                );
            }
            let watcher = tokio::spawn(async move {
                job.cancelled().await;
                on_cancel.call(key, ThreadsafeFunctionCallMode::NonBlocking);
            });
            let outcome = rx.await.unwrap_or_else(|_| {
                Outcome::Fail(
                    JobError::new("the handler ended without an outcome")
                        .with_type("DispatchError"),
                )
            });
            watcher.abort();
            outcome
        }
    })
    .queue_order(order)
    .options(o)
    .on_event(move |e| {
        if matches!(e, Event::Completed { .. })
            && !wanted.load(std::sync::atomic::Ordering::Relaxed)
        {
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
    napi::bindgen_prelude::spawn(async move {
        let report = worker
            .run_until(std::future::pending())
            .await
            .map_err(|e| e.to_string());
        let _ = tx.send(Some(report));
    });
    Ok(NativeWorkerRun {
        handle,
        report: rx,
        completed_wanted,
        keep_results,
    })
}
