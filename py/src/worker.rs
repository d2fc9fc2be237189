//! The runner: `leaseq.Worker` (python/leaseq/worker.py) over the core's engine
//! (`leaseq::worker`). The engine leases, renews, finishes, rides through outages and cleans;
//! this file only hands each job to a Python `dispatch(job, done)` and carries the outcome back.
//!
//! Nothing here holds the GIL on the runtime's threads: `dispatch` and the lease-lost callback
//! are called from the blocking pool, and events wait in a channel until the thread that runs
//! `Worker.run()` takes them.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use leaseq::worker::{
    Event, Job, JobError, Outcome, Report, ShutdownAction, Worker, WorkerHandle, WorkerOptions,
};
use leaseq::Retry;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use tokio::sync::{mpsc, oneshot, watch};

use crate::convert;
use crate::errors;
use crate::sync::Queue;

/// The job a handler receives, as the native layer holds it (``leaseq.Job`` wraps it).
#[pyclass(module = "leaseq._native", frozen)]
pub struct NativeJob {
    job: Job,
    on_lost: Arc<Mutex<Option<Py<PyAny>>>>,
}

#[pymethods]
impl NativeJob {
    #[getter]
    fn id(&self) -> &str {
        self.job.id()
    }

    #[getter]
    fn id_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.job.id_bytes())
    }

    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.job.data())
    }

    #[getter]
    fn attempt(&self) -> u64 {
        self.job.attempt()
    }

    #[getter]
    fn max_attempts(&self) -> u32 {
        self.job.max_attempts()
    }

    #[getter]
    fn lease_lost(&self) -> bool {
        self.job.is_lost()
    }

    /// Calls `callback()` once the lease is lost (at once if it is already).
    fn _on_lost(&self, py: Python<'_>, callback: Py<PyAny>) -> PyResult<()> {
        *self.on_lost.lock().unwrap_or_else(|e| e.into_inner()) = Some(callback.clone_ref(py));
        if self.job.is_lost() {
            if let Some(cb) = self
                .on_lost
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
            {
                cb.call0(py)?;
            }
        }
        Ok(())
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

/// Carries one job's outcome back to the engine; called once by the Python layer.
#[pyclass(module = "leaseq._native", frozen)]
pub struct Done {
    tx: Mutex<Option<oneshot::Sender<Outcome>>>,
}

#[pymethods]
impl Done {
    /// ``done("complete", result_bytes_or_None)``, ``done("fail", (message, type, retry))``
    /// with retry ``None`` (the backoff), ``"never"`` or seconds, or ``done("release", delay)``.
    fn __call__(&self, kind: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let outcome = match kind {
            "complete" if value.is_none() => Outcome::Complete(None),
            "complete" => Outcome::Complete(Some(convert::data(value, "result")?)),
            "fail" => {
                let (message, error_type, retry): (String, String, Option<Bound<'_, PyAny>>) =
                    value.extract()?;
                let retry = match retry {
                    None => Retry::Default,
                    Some(r) if r.extract::<String>().is_ok_and(|s| s == "never") => Retry::Never,
                    Some(r) => Retry::After(convert::seconds(&r, "retry_after")?),
                };
                let mut err = JobError::new(message).with_type(error_type);
                err.retry = retry;
                Outcome::Fail(err)
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
        if let Some(tx) = self.tx.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = tx.send(outcome);
        }
        Ok(())
    }
}

/// A started runner: the thread that called ``Worker.run()`` waits on it in slices.
#[pyclass(module = "leaseq._native", frozen)]
pub struct WorkerRun {
    handle: WorkerHandle,
    report: Mutex<watch::Receiver<Option<Result<Report, String>>>>,
    events: Mutex<mpsc::UnboundedReceiver<Event>>,
    #[pyo3(get)]
    concurrency: usize,
}

#[pymethods]
impl WorkerRun {
    /// Waits up to ``timeout`` seconds (without the GIL); returns the report as a tuple
    /// ``(completed, retried, dead, lost, released)`` once the runner ended, else ``None``.
    fn wait(&self, py: Python<'_>, timeout: f64) -> PyResult<Option<(u64, u64, u64, u64, u64)>> {
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
            Some(Ok(r)) => Ok(Some((r.completed, r.retried, r.dead, r.lost, r.released))),
            Some(Err(message)) => Err(errors::invalid(py, "worker", message)),
        }
    }

    /// The events since the last call, as tuples ``(name, id, attempt, detail)``.
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        let mut rx = self.events.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        while let Ok(event) = rx.try_recv() {
            let none = py.None().into_bound(py);
            let t = match event {
                Event::Completed { id, attempt } => ("completed", Some(id), attempt, none),
                Event::Retrying {
                    id,
                    attempt,
                    error,
                    retry_in,
                } => (
                    "retrying",
                    Some(id),
                    attempt,
                    PyTuple::new(
                        py,
                        [
                            error.into_pyobject(py)?.into_any(),
                            retry_in.as_secs_f64().into_pyobject(py)?.into_any(),
                        ],
                    )?
                    .into_any(),
                ),
                Event::Dead { id, attempt, error } => (
                    "dead",
                    Some(id),
                    attempt,
                    error.into_pyobject(py)?.into_any(),
                ),
                Event::Released { id } => ("released", Some(id), 0, none),
                Event::LeaseLost { id, why } => (
                    "lease_lost",
                    Some(id),
                    0,
                    format!("{why:?}").into_pyobject(py)?.into_any(),
                ),
                Event::Error { during, error } => (
                    "error",
                    None,
                    0,
                    PyTuple::new(py, [during, error.code().as_str(), &error.to_string()])?
                        .into_any(),
                ),
                Event::Recovered { during } => {
                    ("recovered", None, 0, during.into_pyobject(py)?.into_any())
                }
                _ => continue,
            };
            out.push(PyTuple::new(
                py,
                [
                    t.0.into_pyobject(py)?.into_any(),
                    t.1.into_pyobject(py)?.into_any(),
                    t.2.into_pyobject(py)?.into_any(),
                    t.3,
                ],
            )?);
        }
        Ok(out)
    }

    /// Starts a graceful shutdown (the first Ctrl-C); a second call forces.
    fn interrupt(&self) {
        self.handle.interrupt()
    }

    /// Starts a graceful shutdown.
    fn stop(&self) {
        self.handle.stop()
    }

    /// Forces the shutdown: running handlers are told their lease is lost and released.
    fn force(&self) {
        self.handle.force()
    }
}

/// Starts the core's runner over `queue`; `dispatch(job, done)` runs each job.
#[pyfunction]
#[pyo3(signature = (queue, dispatch, options))]
pub fn start_worker(
    py: Python<'_>,
    queue: &Queue,
    dispatch: Py<PyAny>,
    options: &Bound<'_, PyDict>,
) -> PyResult<WorkerRun> {
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
    o.language = Some("python".into());
    let concurrency = o
        .effective_concurrency()
        .map_err(|e| errors::to_py(py, e))?;
    let queue = queue
        .blocking()
        .as_async()
        .map_err(|e| errors::to_py(py, e))?;
    let runtime = leaseq::runtime::handle().map_err(|e| errors::to_py(py, e))?;

    let dispatch = Arc::new(dispatch);
    let (event_tx, event_rx) = mpsc::unbounded_channel();
    let worker = Worker::new(queue, move |job: Job| {
        let dispatch = dispatch.clone();
        async move { run_job(dispatch, job).await }
    })
    .options(o)
    .on_event(move |e| drop(event_tx.send(e.clone())));
    let handle = worker.handle();
    let (report_tx, report_rx) = watch::channel(None);
    runtime.spawn(async move {
        let report = worker
            .run_until(std::future::pending())
            .await
            .map_err(|e| e.to_string());
        let _ = report_tx.send(Some(report));
    });
    Ok(WorkerRun {
        handle,
        report: Mutex::new(report_rx),
        events: Mutex::new(event_rx),
        concurrency,
    })
}

/// Hands `job` to Python's dispatch on the blocking pool and waits for its outcome.
async fn run_job(dispatch: Arc<Py<PyAny>>, job: Job) -> Outcome {
    let (tx, rx) = oneshot::channel();
    let on_lost: Arc<Mutex<Option<Py<PyAny>>>> = Arc::new(Mutex::new(None));
    let native = NativeJob {
        job: job.clone(),
        on_lost: on_lost.clone(),
    };
    let done = Done {
        tx: Mutex::new(Some(tx)),
    };
    let called = tokio::task::spawn_blocking(move || {
        Python::attach(|py| {
            let args = (Py::new(py, native)?, Py::new(py, done)?);
            dispatch.call1(py, args).map(drop)
        })
        .map_err(|e| e.to_string())
    })
    .await;
    match called {
        Ok(Ok(())) => {}
        Ok(Err(message)) => {
            return Outcome::Fail(JobError::new(message).with_type("DispatchError"))
        }
        Err(e) => return Outcome::Fail(JobError::new(e.to_string()).with_type("DispatchError")),
    }
    let watcher = {
        let job = job.clone();
        tokio::spawn(async move {
            job.lost().await;
            let cb = on_lost.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(cb) = cb {
                let _ = tokio::task::spawn_blocking(move || {
                    Python::attach(|py| cb.call0(py).map(drop))
                })
                .await;
            }
        })
    };
    let outcome = rx.await.unwrap_or_else(|_| {
        Outcome::Fail(
            JobError::new("the handler ended without an outcome").with_type("DispatchError"),
        )
    });
    watcher.abort();
    outcome
}
