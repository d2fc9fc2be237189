//! The runner: `leaseq.Worker` (python/leaseq/worker.py) over the core's engine
//! (`leaseq::worker`). The engine leases, renews, finishes, rides through outages and cleans;
//! this file only hands jobs to Python and carries their outcomes back.
//!
//! Nothing here takes the GIL on the runtime's threads. The engine starts each job with
//! `Handler::start` (no task and no channel per job): jobs, and the keys of jobs told to stop (a
//! timeout, a lost lease, a shutdown), wait in an inbox, and once the engine has started what one
//! lease call brought (`Handler::delivered`) a byte written to a socket pair wakes Python, whose
//! other end it watches (an asyncio reader, or a dispatcher thread's `select`), unless a wake-up
//! is pending. Python then takes everything waiting in one call: at full speed, one wake-up and
//! one GIL hand-over carry many jobs. Outcomes come back the same way: each `done(...)` stores
//! its job's outcome, and `WorkerRun.flush()` hands all those stored to the engine at once
//! (`Reply::send_all`: one wake-up of its finisher), once per turn of asyncio's loop. Events
//! wait in a channel until the thread that runs `Worker.run()` takes them.

use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use leaseq::worker::{
    Event, Handler, HandlerFuture, Job, JobError, LogLevel, Outcome, QueueOrder, Reply, Report,
    ShutdownAction, Worker, WorkerHandle, WorkerOptions,
};
use leaseq::{blocking, Retry};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use tokio::sync::{mpsc, watch};

use crate::convert;
use crate::errors;
use crate::sync::Queue;

/// The job a handler receives, as the native layer holds it (``leaseq.Job`` wraps it).
#[pyclass(module = "leaseq._native", frozen)]
pub struct NativeJob {
    job: Job,
    key: u64,
}

#[pymethods]
impl NativeJob {
    /// This job's key in the runner: `WorkerRun.take()` names jobs told to stop by it.
    #[getter]
    fn key(&self) -> u64 {
        self.key
    }

    /// The item's id.
    #[getter]
    fn id(&self) -> &str {
        self.job.id()
    }

    /// The id exactly as Redis holds it (differs from ``id`` only for an id that is not UTF-8).
    #[getter]
    fn id_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.job.id_bytes())
    }

    /// The item's data.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.job.data())
    }

    /// Which attempt this is (1 for the first).
    #[getter]
    fn attempt(&self) -> u64 {
        self.job.attempt()
    }

    /// The item's name (``Item(..., name=...)``), or ``None``: a runner with a dict of handlers
    /// runs the job with the handler of that name, else its fallback.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.job.name()
    }

    /// The prefix of the queue the job came from (the core's `Job::queue`): it is finished
    /// there.
    #[getter]
    fn queue_prefix(&self) -> &str {
        self.job.queue().prefix()
    }

    /// The item's attempt limit (0: unlimited).
    #[getter]
    fn max_attempts(&self) -> u32 {
        self.job.max_attempts()
    }

    /// Whether the runner learned that this job's lease is gone (the core's `Job::is_lost`):
    /// the handler should stop.
    #[getter]
    fn lease_lost(&self) -> bool {
        self.job.is_lost()
    }

    /// Why the handler was told to stop (the core's `CancelReason`: `timeout`, `lease_lost`
    /// or `shutdown`), or `None`.
    #[getter]
    fn cancel_reason(&self) -> Option<&'static str> {
        self.job.cancel_reason().map(|r| r.as_str())
    }

    /// The kept results of the items this job was added to wait for, in order: a list of
    /// ``(dependency id, result bytes or None)``. A flow's parent reads its children's so.
    fn dependency_results<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Vec<(String, Option<Bound<'py, PyBytes>>)>> {
        let job = self.job.clone();
        let handle = leaseq::runtime::handle().map_err(|e| errors::to_py(py, e))?;
        let results = py
            .detach(|| handle.block_on(job.dependency_results()))
            .map_err(|e| errors::to_py(py, e))?;
        Ok(results
            .into_iter()
            .map(|(dep, r)| (dep, r.map(|r| PyBytes::new(py, &r))))
            .collect())
    }

    /// Stores a progress value (bytes or str, at most 64 KiB); false once the lease is lost.
    fn progress(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        let value = convert::data(value, "value")?;
        let job = self.job.clone();
        let handle = leaseq::runtime::handle().map_err(|e| errors::to_py(py, e))?;
        py.detach(|| handle.block_on(job.progress(&value)))
            .map_err(|e| errors::to_py(py, e))
    }
}

/// Carries one job's outcome back to the engine; called once by the Python layer, which then
/// calls `WorkerRun.flush()`.
#[pyclass(module = "leaseq._native", frozen)]
pub struct Done {
    reply: Mutex<Option<Reply>>,
    /// Weak: the inbox holds the `Done`s that wait to be taken, so a strong one would be a
    /// cycle, and a run that ended with jobs untaken would keep its inbox (and socket) alive.
    inbox: Weak<Inbox>,
}

#[pymethods]
impl Done {
    /// ``done("complete", result_bytes_or_None)``, ``done("fail", (message, type, retry,
    /// trace))`` with retry ``None`` (the backoff), ``"never"`` or seconds and trace the
    /// formatted traceback or ``None``, ``done("unencodable",
    /// (message, type))`` for a return value the Python layer could not encode (a failed
    /// attempt, worded by the core), ``done("release", delay)``, ``done("rate_limited",
    /// hold)``: the queue is held off for ``hold`` seconds and the job released, no attempt
    /// charged, or ``done("rate_limited_group", hold)``: the same for the job's group only (the
    /// queue when the job has none). The outcome waits for `WorkerRun.flush()`; a second call
    /// changes nothing, and a value refused raises and stores nothing.
    fn __call__(&self, kind: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let outcome = match kind {
            "complete" if value.is_none() => Outcome::Complete(None),
            "complete" => Outcome::Complete(Some(convert::data(value, "result")?)),
            "unencodable" => {
                let (message, error_type): (String, String) = value.extract()?;
                Outcome::Fail(JobError::unencodable_result(message).with_type(error_type))
            }
            "fail" => {
                #[allow(clippy::type_complexity)]
                let (message, error_type, retry, trace): (
                    String,
                    String,
                    Option<Bound<'_, PyAny>>,
                    Option<String>,
                ) = value.extract()?;
                let retry = match retry {
                    None => Retry::Default,
                    Some(r) if r.extract::<String>().is_ok_and(|s| s == "never") => Retry::Never,
                    Some(r) => Retry::After(convert::seconds(&r, "retry_after")?),
                };
                let mut err = JobError::new(message).with_type(error_type);
                err.retry = retry;
                err.trace = trace;
                Outcome::Fail(err)
            }
            "rate_limited" => {
                Outcome::Fail(JobError::rate_limited(convert::seconds(value, "hold")?))
            }
            "rate_limited_group" => {
                let hold = convert::seconds(value, "hold")?;
                Outcome::Fail(JobError::rate_limited_group(hold))
            }
            "release" => Outcome::Release(convert::opt_seconds(
                Some(value).filter(|v| !v.is_none()),
                "delay",
            )?),
            other => {
                return Err(errors::invalid(
                    value.py(),
                    "kind",
                    format!("unknown outcome `{other}`"),
                ))
            }
        };
        // After the run is gone the reply is dropped: nobody waits for the outcome.
        let reply = self.reply.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let (Some(reply), Some(inbox)) = (reply, self.inbox.upgrade()) {
            lock(&inbox.outbox).push((reply, outcome));
        }
        Ok(())
    }
}

/// The first key of the next run (see `NativeJob.key`): each run takes 2^40 keys, so that a
/// handler that outlives its run never meets a key of the next run.
static NEXT_RUN_KEY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Jobs and the keys of jobs told to stop on their way to Python, the socket that wakes it,
/// and the outcomes on their way back (stored by `done(...)`, sent by `WorkerRun.flush()`).
struct Inbox {
    waiting: Mutex<Waiting>,
    wake: UnixStream,
    outbox: Mutex<Vec<(Reply, Outcome)>>,
}

#[derive(Default)]
struct Waiting {
    jobs: Vec<(NativeJob, Done)>,
    told: Vec<u64>,
    /// A wake-up byte was written and Python has not taken since.
    woken: bool,
}

impl Inbox {
    /// Wakes Python when something waits and no wake-up is pending: it takes everything there
    /// is. A full socket buffer (WouldBlock) means a wake-up is pending already.
    fn wake(&self) {
        let send = {
            let mut w = lock(&self.waiting);
            let send = (!w.jobs.is_empty() || !w.told.is_empty()) && !w.woken;
            w.woken |= send;
            send
        };
        if send {
            let _ = (&self.wake).write(&[1]);
        }
    }
}

/// The engine's handler: queues each job for Python with its [`Reply`], which `done(...)` and
/// `WorkerRun.flush()` send; no task and no channel per job while Python runs it.
struct PyHandler {
    inbox: Arc<Inbox>,
    /// This run's first key: a job's key is it plus the job's number in the run.
    base: u64,
}

impl Handler for PyHandler {
    /// Not used: the engine calls `start`, since `replies` is true.
    fn call(&self, _job: Job) -> HandlerFuture {
        Box::pin(async {
            Outcome::Fail(
                JobError::new("the Python runner takes jobs with Handler::start")
                    .with_type("DispatchError"),
            )
        })
    }

    fn replies(&self) -> bool {
        true
    }

    fn start(&self, job: Job, reply: Reply) {
        let key = self.base + job.seq();
        let done = Done {
            reply: Mutex::new(Some(reply)),
            inbox: Arc::downgrade(&self.inbox),
        };
        lock(&self.inbox.waiting)
            .jobs
            .push((NativeJob { job, key }, done));
    }

    fn delivered(&self) {
        self.inbox.wake();
    }

    /// Tells Python that the job's handler is to stop (its `cancel_reason` says why), and
    /// again when its lease is lost after its timeout told it (`lease_lost`, `lost_event`).
    fn told(&self, job: &Job) {
        lock(&self.inbox.waiting).told.push(self.base + job.seq());
        self.inbox.wake();
    }
}

/// How a runner ended: its report, or why it did not run (the core's argument and reason).
type Ended = Option<Result<Report, errors::Kept>>;

/// A started runner: the thread that called ``Worker.run()`` waits on it in slices.
#[pyclass(module = "leaseq._native", frozen)]
pub struct WorkerRun {
    handle: WorkerHandle,
    inbox: Arc<Inbox>,
    wakeup: UnixStream,
    /// The runner's end: its report, or why it did not run (the core's argument and reason).
    report: Mutex<watch::Receiver<Ended>>,
    events: Mutex<mpsc::UnboundedReceiver<Event>>,
    logs: Mutex<mpsc::UnboundedReceiver<(LogLevel, String)>>,
    /// How many jobs the runner runs at once (the option, or its default applied).
    #[pyo3(get)]
    concurrency: usize,
    /// Whether handlers' return values are kept (the default applied): the Python layer encodes
    /// them only then.
    #[pyo3(get)]
    keep_results: bool,
}

/// A runner's report as Python gets it: ``(completed, retried, dead, lost, released,
/// timed_out)``.
type ReportTuple = (u64, u64, u64, u64, u64, u64);

#[pymethods]
impl WorkerRun {
    /// Waits up to ``timeout`` seconds (without the GIL); returns the report as a tuple
    /// ``(completed, retried, dead, lost, released, timed_out)`` once the runner ended, else
    /// ``None``.
    fn wait(&self, py: Python<'_>, timeout: f64) -> PyResult<Option<ReportTuple>> {
        let mut rx = self
            .report
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let handle = leaseq::runtime::handle().map_err(|e| errors::to_py(py, e))?;
        let slice = Duration::from_secs_f64(timeout.clamp(0.0, 5.0));
        let ended = py.detach(|| {
            handle.block_on(async {
                let _ = tokio::time::timeout(slice, rx.wait_for(|r| r.is_some())).await;
                rx.borrow().clone()
            })
        });
        match ended {
            None => Ok(None),
            Some(Ok(r)) => Ok(Some((
                r.completed,
                r.retried,
                r.dead,
                r.lost,
                r.released,
                r.timed_out,
            ))),
            Some(Err(kept)) => Err(kept.to_py(py)),
        }
    }

    /// The events since the last call, as tuples ``(name, id, attempt, detail)``, named,
    /// identified and worded by the core (``Event::name``, ``id``, ``attempt``, ``message``);
    /// `completed` events only when ``completed`` is true (nobody listening: they are not built
    /// at all). The detail: ``(message, retry_in_seconds)`` for ``retrying``,
    /// ``(step, code, message)`` for ``error``, else the event's message (``None`` when empty).
    fn events<'py>(&self, py: Python<'py>, completed: bool) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        let mut rx = self.events.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        while let Ok(event) = rx.try_recv() {
            if matches!(event, Event::Completed { .. }) && !completed {
                continue;
            }
            out.push(event_tuple(py, &event)?);
        }
        Ok(out)
    }

    /// The runner's log lines since the last call (spec/PROTOCOL.md 13.4), as ``(levelno,
    /// line)``: ``levelno`` is ``logging``'s (10 debug, 20 info, 30 warning, 40 error), the line
    /// worded by the core; only those at or above the ``log_level`` the runner started with.
    fn logs(&self) -> Vec<(u8, String)> {
        let mut rx = self.logs.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        while let Ok((level, line)) = rx.try_recv() {
            out.push((level as u8, line));
        }
        out
    }

    /// The file descriptor that turns readable when jobs, or keys of jobs told to stop, wait:
    /// read (and discard) what it holds, then call ``take()``.
    #[getter]
    fn fd(&self) -> i32 {
        self.wakeup.as_raw_fd()
    }

    /// Everything waiting, in one call: ``(jobs, told)``, the new jobs as ``(job, done)`` pairs
    /// and the keys of jobs told to stop since the last call (after their jobs): their
    /// ``cancel_reason`` says why.
    #[allow(clippy::type_complexity)]
    fn take(&self, py: Python<'_>) -> PyResult<(Vec<(Py<NativeJob>, Py<Done>)>, Vec<u64>)> {
        let waiting = std::mem::take(&mut *lock(&self.inbox.waiting));
        let mut jobs = Vec::with_capacity(waiting.jobs.len());
        for (job, done) in waiting.jobs {
            jobs.push((Py::new(py, job)?, Py::new(py, done)?));
        }
        Ok((jobs, waiting.told))
    }

    /// Hands every outcome that `done(...)` stored since the last call to the engine, at once
    /// (from any thread). It never waits on Redis: it queues them for the runner's finishing
    /// task (a short lock of its table of running jobs), so it keeps the GIL, which a pool of
    /// handler threads would otherwise pass around at every job.
    fn flush(&self) {
        let outcomes = std::mem::take(&mut *lock(&self.inbox.outbox));
        if !outcomes.is_empty() {
            Reply::send_all(outcomes);
        }
    }

    /// Starts a graceful shutdown (the first Ctrl-C); a second call forces.
    fn interrupt(&self) {
        self.handle.interrupt()
    }

    /// Starts a graceful shutdown.
    fn stop(&self) {
        self.handle.stop()
    }

    /// Forces the shutdown: running handlers are told (reason `shutdown`) and released.
    fn force(&self) {
        self.handle.force()
    }
}

/// An event as Python's listeners get it: ``(name, id, attempt, detail)``, named, identified
/// and worded by the core (``Event::name``, ``id``, ``attempt``, ``message``). The detail:
/// ``(message, retry_in_seconds)`` for ``retrying``, ``(step, code, message)`` for ``error``,
/// else the event's message (``None`` when empty).
fn event_tuple<'py>(py: Python<'py>, event: &Event) -> PyResult<Bound<'py, PyTuple>> {
    let detail = match event {
        Event::Retrying { retry_in, .. } => (event.message(), retry_in.as_secs_f64())
            .into_pyobject(py)?
            .into_any(),
        Event::Error { during, error } => (*during, error.code().as_str(), error.to_string())
            .into_pyobject(py)?
            .into_any(),
        _ => {
            let message = event.message();
            if message.is_empty() {
                py.None().into_bound(py)
            } else {
                message.into_pyobject(py)?.into_any()
            }
        }
    };
    PyTuple::new(
        py,
        [
            event.name().into_pyobject(py)?.into_any(),
            event.id().into_pyobject(py)?.into_any(),
            event.attempt().into_pyobject(py)?.into_any(),
            detail,
        ],
    )
}

/// The runner's queues: one `Queue`, or a list or tuple of them (argument `queue`), not
/// connected yet.
fn queues(queue: &Bound<'_, PyAny>) -> PyResult<Vec<blocking::Queue>> {
    let py = queue.py();
    let expected = "a Queue, a list of Queues, or a PartitionedQueue";
    let objects: Vec<Bound<'_, PyAny>> = if queue.is_instance_of::<Queue>() {
        vec![queue.clone()]
    } else if queue.is_instance_of::<PyList>() || queue.is_instance_of::<PyTuple>() {
        queue.try_iter()?.collect::<PyResult<_>>()?
    } else {
        return Err(errors::wrong_type(py, "queue", expected, queue));
    };
    objects
        .iter()
        .map(|q| {
            // (Only a list's element can be another type here.)
            let each = "a Queue in each place of a list (a PartitionedQueue runs alone: \
                        leaseq.Worker(partitioned_queue, handler))";
            let q = q
                .cast::<Queue>()
                .map_err(|_| errors::wrong_type(py, "queue", each, q))?;
            Ok(q.get().blocking().clone())
        })
        .collect()
}

/// What the runner serves, once Redis answered.
enum Ready {
    Queues(Vec<leaseq::Queue>),
    Partitioned(leaseq::Partitioned),
}

/// The runner's async queues, once Redis answers: asked again while it is away, as
/// [`wait_for_redis`] asks.
fn connect(
    py: Python<'_>,
    queues: &[blocking::Queue],
    partitioned: Option<&blocking::Partitioned>,
    stopped: &Bound<'_, PyAny>,
    on_wait: &Bound<'_, PyAny>,
) -> PyResult<Option<Ready>> {
    wait_for_redis(
        py,
        || match partitioned {
            Some(p) => p.as_async().map(Ready::Partitioned),
            None => queues
                .iter()
                .map(|q| q.as_async())
                .collect::<leaseq::Result<_>>()
                .map(Ready::Queues),
        },
        stopped,
        on_wait,
    )
}

/// `get`'s answer once Redis answers: asked again while it is away (the core's
/// `blocking::for_a_runner`), without the GIL. Between attempts, with the GIL: Python's
/// signal handlers run (a KeyboardInterrupt or a handler's error ends the wait, raised), and
/// `stopped()` is asked (true: `None`). The outage and its end go to `on_wait(event, levelno,
/// line)`: the event as `WorkerRun.events` gives it, the log line and its `logging` level.
fn wait_for_redis<T: Send>(
    py: Python<'_>,
    get: impl FnMut() -> leaseq::Result<T> + Send,
    stopped: &Bound<'_, PyAny>,
    on_wait: &Bound<'_, PyAny>,
) -> PyResult<Option<T>> {
    let stopped = stopped.clone().unbind();
    let on_wait = on_wait.clone().unbind();
    let raised: Mutex<Option<PyErr>> = Mutex::new(None);
    let keep = |r: PyResult<bool>| match r {
        Ok(stop) => stop,
        Err(e) => {
            *lock(&raised) = Some(e);
            true
        }
    };
    let ready = py.detach(|| {
        blocking::for_a_runner(
            get,
            || {
                lock(&raised).is_some()
                    || keep(Python::attach(|py| {
                        py.check_signals()?;
                        stopped.call0(py)?.is_truthy(py)
                    }))
            },
            |event| {
                if lock(&raised).is_none() {
                    keep(Python::attach(|py| {
                        let tuple = event_tuple(py, &event)?;
                        on_wait.call1(py, (tuple, event.level() as u8, event.log_line()))?;
                        Ok(false)
                    }));
                }
            },
        )
    });
    if let Some(e) = raised.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    ready.map_err(|e| errors::to_py(py, e))
}

/// A client of the server at `urls[0]`, or with `cluster` of the Cluster whose nodes `urls`
/// name, once Redis answers: while it cannot be reached, this waits as
/// `start_worker` does (the same `stopped` and `on_wait`; `None` when stopped). A URL or a
/// login that Redis refuses raises at once. For ``python -m leaseq worker``, which starts
/// before Redis as Celery's and BullMQ's workers may.
#[pyfunction]
#[pyo3(signature = (urls, cluster, stopped, on_wait))]
pub fn connect_waiting(
    py: Python<'_>,
    urls: &Bound<'_, PyAny>,
    cluster: bool,
    stopped: &Bound<'_, PyAny>,
    on_wait: &Bound<'_, PyAny>,
) -> PyResult<Option<crate::sync::Client>> {
    let urls = convert::strings(urls, "urls")?;
    let Some(first) = urls.first().cloned() else {
        return Err(errors::invalid(py, "urls", "no URL given"));
    };
    let client = wait_for_redis(
        py,
        || {
            if cluster {
                blocking::Client::connect_cluster(&urls)
            } else {
                blocking::Client::connect(&first)
            }
        },
        stopped,
        on_wait,
    )?;
    Ok(client.map(crate::sync::Client::from))
}

/// A refusal of the core, named as `leaseq.Worker` names its arguments: the core's `queues` is
/// the `queue` argument (one queue or a list), its `queue_order` the `weights`.
fn refused(py: Python<'_>, err: leaseq::Error) -> PyErr {
    match &err {
        leaseq::Error::InvalidArgument {
            argument: "queues",
            reason,
        } => errors::invalid(py, "queue", reason),
        leaseq::Error::InvalidArgument {
            argument: "queue_order",
            reason,
        } => errors::invalid(py, "weights", reason),
        _ => errors::to_py(py, err),
    }
}

/// Starts the core's runner over `queue` (one `Queue`, or a list of them, asked in strict
/// order, or by weighted round robin with `options["weights"]`, one per queue); Python takes
/// its jobs with `WorkerRun.take()`. With `options["handlers"]` (the names of a table of
/// handlers) and `options["fallback"]` (whether it has a fallback), the core checks the table
/// (argument `handlers`) and fails for good, without handing it to Python, a job that no name
/// and no fallback takes. The settings are checked first. Then, while Redis cannot be reached,
/// it waits without the GIL, trying again after 100 ms doubling to 5 s: every 100 ms at most,
/// with the GIL, Python's signal handlers run (their exception, a KeyboardInterrupt say, ends
/// the wait and is raised) and `stopped()` is called (true ends the wait: the call returns
/// `None`); the outage and its end go to `on_wait(event, levelno, line)`, the event as
/// `WorkerRun.events()` gives it (an `error` with step `connect`, then `recovered`) with its log
/// line.
#[pyfunction]
#[pyo3(signature = (queue, options, stopped, on_wait))]
pub fn start_worker(
    py: Python<'_>,
    queue: &Bound<'_, PyAny>,
    options: &Bound<'_, PyDict>,
    stopped: &Bound<'_, PyAny>,
    on_wait: &Bound<'_, PyAny>,
) -> PyResult<Option<WorkerRun>> {
    let mut o = WorkerOptions::new();
    let get = |name: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
        Ok(options.get_item(name)?.filter(|v| !v.is_none()))
    };
    o.concurrency = get("concurrency")?
        .map(|v| convert::integer(&v, "concurrency"))
        .transpose()?;
    o.lease_ttl = get("lease_ttl")?
        .map(|v| convert::seconds(&v, "lease_ttl"))
        .transpose()?;
    o.renew_every = get("renew_every")?
        .map(|v| convert::seconds(&v, "renew_every"))
        .transpose()?;
    o.keep_results = get("keep_results")?
        .map(|v| convert::boolean(&v, "keep_results"))
        .transpose()?;
    o.keep_result_for = get("keep_result_for")?
        .map(|v| convert::seconds(&v, "keep_result_for"))
        .transpose()?;
    o.shutdown_timeout = get("shutdown_timeout")?
        .map(|v| convert::seconds(&v, "shutdown_timeout"))
        .transpose()?;
    o.poll_interval = get("poll_interval")?
        .map(|v| convert::seconds(&v, "poll_interval"))
        .transpose()?;
    o.heartbeat = get("heartbeat")?
        .map(|v| convert::seconds(&v, "heartbeat"))
        .transpose()?;
    o.housekeeping = get("housekeeping")?
        .map(|v| convert::boolean(&v, "housekeeping"))
        .transpose()?;
    o.housekeeping_every = get("housekeeping_every")?
        .map(|v| convert::seconds(&v, "housekeeping_every"))
        .transpose()?;
    o.deep_clean_every = get("deep_clean_every")?
        .map(|v| convert::seconds(&v, "deep_clean_every"))
        .transpose()?;
    o.job_timeout = get("job_timeout")?
        .map(|v| convert::seconds(&v, "job_timeout"))
        .transpose()?;
    o.timeout_grace = get("timeout_grace")?
        .map(|v| convert::seconds(&v, "timeout_grace"))
        .transpose()?;
    o.stats = get("stats")?
        .map(|v| convert::boolean(&v, "stats"))
        .transpose()?;
    o.on_shutdown = match get("on_shutdown")? {
        None => None,
        Some(v) => match convert::string(&v, "on_shutdown")?.as_str() {
            "release" => Some(ShutdownAction::Release),
            "fail" => Some(ShutdownAction::Fail),
            other => {
                return Err(errors::invalid(
                    py,
                    "on_shutdown",
                    format!("must be \"release\" or \"fail\", got {other:?}"),
                ))
            }
        },
    };
    // No weights: the core's default order (strict; equal weights over a partitioned queue).
    let order = match get("weights")? {
        None => None,
        Some(v) => {
            if !(v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>()) {
                return Err(errors::wrong_type(py, "weights", "a list of ints", &v));
            }
            let weights = v
                .try_iter()?
                .map(|w| convert::integer::<u32>(&w?, "weights"))
                .collect::<PyResult<Vec<u32>>>()?;
            Some(QueueOrder::Weighted(weights))
        }
    };
    if let Some(v) = get("handlers")? {
        if !(v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>()) {
            return Err(errors::wrong_type(py, "handlers", "a list of names", &v));
        }
        let names = v
            .try_iter()?
            .map(|n| convert::string(&n?, "handlers"))
            .collect::<PyResult<Vec<String>>>()?;
        o.handler_names = Some(names);
        o.fallback_handler = get("fallback")?
            .map(|v| convert::boolean(&v, "fallback"))
            .transpose()?;
    }
    // The least `logging` level the runner's lines are made for (None: none is).
    let log_level = get("log_level")?
        .map(|v| convert::integer::<u32>(&v, "log_level"))
        .transpose()?
        .map(|n| match n {
            0..=10 => LogLevel::Debug,
            11..=20 => LogLevel::Info,
            21..=30 => LogLevel::Warn,
            _ => LogLevel::Error,
        });
    o.language = Some("python".into());
    let concurrency = o
        .effective_concurrency()
        .map_err(|e| errors::to_py(py, e))?;
    let keep_results = o.keeps_results();
    o.check().map_err(|e| errors::to_py(py, e))?;
    // A PartitionedQueue runs through the core's `Worker::partitioned`; else one or more queues.
    let partitioned = crate::partitioned::for_runner(queue);
    let queues = match partitioned {
        Some(_) => Vec::new(),
        None => queues(queue)?,
    };
    match (&partitioned, &order) {
        (Some(p), Some(order)) => order.check(p.count()),
        (Some(_), None) => Ok(()),
        (None, order) => blocking::check_runner_queues(
            &queues.iter().collect::<Vec<_>>(),
            order.as_ref().unwrap_or(&QueueOrder::Strict),
        ),
    }
    .map_err(|e| refused(py, e))?;
    let runtime = leaseq::runtime::handle().map_err(|e| errors::to_py(py, e))?;
    let Some(ready) = connect(py, &queues, partitioned.as_ref(), stopped, on_wait)? else {
        return Ok(None);
    };

    let (wake, wakeup) = UnixStream::pair()
        .and_then(|(w, r)| {
            w.set_nonblocking(true)?;
            r.set_nonblocking(true)?;
            Ok((w, r))
        })
        .map_err(|e| errors::invalid(py, "worker", format!("no socket pair for wake-ups: {e}")))?;
    let inbox = Arc::new(Inbox {
        waiting: Mutex::new(Waiting::default()),
        wake,
        outbox: Mutex::new(Vec::new()),
    });
    let (event_tx, event_rx) = mpsc::unbounded_channel();
    let handler = PyHandler {
        inbox: inbox.clone(),
        base: NEXT_RUN_KEY.fetch_add(1 << 40, std::sync::atomic::Ordering::Relaxed),
    };
    let worker = match ready {
        Ready::Partitioned(p) => Worker::partitioned(&p, handler),
        Ready::Queues(queues) => Worker::for_queues(queues, handler),
    };
    let worker = match order {
        Some(order) => worker.queue_order(order),
        None => worker,
    };
    let worker = worker
        .options(o)
        .on_event(move |e| drop(event_tx.send(e.clone())));
    let (log_tx, log_rx) = mpsc::unbounded_channel();
    let worker = match log_level {
        Some(min) => worker.on_log(min, move |level, line| {
            drop(log_tx.send((level, line.to_owned())))
        }),
        None => worker,
    };
    worker.check().map_err(|e| refused(py, e))?;
    let handle = worker.handle();
    let (report_tx, report_rx) = watch::channel(None);
    runtime.spawn(async move {
        let report = worker
            .run_until(std::future::pending())
            .await
            // A queue that is a partitioned queue's base, found as it starts; the client
            // closed, at the start or during the run.
            .map_err(|e| errors::Kept::of(&e));
        let _ = report_tx.send(Some(report));
    });
    Ok(Some(WorkerRun {
        handle,
        inbox,
        wakeup,
        report: Mutex::new(report_rx),
        events: Mutex::new(event_rx),
        logs: Mutex::new(log_rx),
        concurrency,
        keep_results,
    }))
}
