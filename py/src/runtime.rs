//! The tokio runtime behind `leaseq.aio`, and its bridge to asyncio.
//!
//! One runtime per process, made again after a fork: a forked child has none of the parent's
//! threads, so the parent's runtime would never run anything there (the same reason
//! `leaseq::blocking` reconnects in a child). Its threads touch Python only to hand results to
//! asyncio (inside pyo3-async-runtimes); `shutdown` runs at exit so none does so during
//! interpreter finalization.

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};

use pyo3_async_runtimes::generic::{ContextExt, Runtime as GenericRuntime};
use pyo3_async_runtimes::TaskLocals;
use std::cell::OnceCell;
use tokio::runtime::{Handle, Runtime};

struct Slot {
    pid: u32,
    /// `None` once shut down at interpreter exit.
    runtime: Option<Runtime>,
    handle: Handle,
}

static RUNTIME: Mutex<Option<Slot>> = Mutex::new(None);

/// This process's runtime, started on first use and again after a fork.
pub fn handle() -> std::io::Result<Handle> {
    let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    let pid = std::process::id();
    if let Some(current) = slot.as_ref() {
        if current.pid == pid && current.runtime.is_some() {
            return Ok(current.handle.clone());
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("leaseq-aio")
        .enable_all()
        .build()?;
    let handle = runtime.handle().clone();
    let stale = slot.replace(Slot {
        pid,
        runtime: Some(runtime),
        handle: handle.clone(),
    });
    if stale.as_ref().is_some_and(|s| s.pid != pid) {
        // The parent's runtime has no threads in a forked child: dropping it would wait for
        // them forever, so it is leaked.
        std::mem::forget(stale);
    }
    Ok(handle)
}

/// Stops this process's runtime, waiting briefly for its threads. Called at interpreter exit
/// (before finalization, with the GIL released): a runtime thread that is handing a result to
/// asyncio must finish before Python tears down, or it would touch a finalized interpreter.
pub fn shutdown() {
    let runtime = {
        let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
        match slot.as_mut() {
            Some(current) if current.pid == std::process::id() => current.runtime.take(),
            _ => None,
        }
    };
    if let Some(runtime) = runtime {
        runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    }
}

fn expect_handle() -> Handle {
    // Only fails when the OS refuses a thread or an epoll instance: nothing would work anyway.
    handle().expect("leaseq: cannot start the asyncio I/O runtime")
}

/// pyo3-async-runtimes' generic bridge over our fork-aware runtime.
pub struct Tokio;

tokio::task_local! {
    static TASK_LOCALS: OnceCell<TaskLocals>;
}

/// tokio's `JoinError` under the bridge's trait (the orphan rule needs a local type).
pub struct JoinError(tokio::task::JoinError);

impl pyo3_async_runtimes::generic::JoinError for JoinError {
    fn is_panic(&self) -> bool {
        self.0.is_panic()
    }
    fn into_panic(self) -> Box<dyn std::any::Any + Send + 'static> {
        self.0.into_panic()
    }
}

/// A tokio `JoinHandle` whose error is [`JoinError`].
pub struct JoinHandle(tokio::task::JoinHandle<()>);

impl Future for JoinHandle {
    type Output = Result<(), JoinError>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx).map_err(JoinError)
    }
}

impl GenericRuntime for Tokio {
    type JoinError = JoinError;
    type JoinHandle = JoinHandle;

    fn spawn<F>(fut: F) -> JoinHandle
    where
        F: Future<Output = ()> + Send + 'static,
    {
        JoinHandle(expect_handle().spawn(fut))
    }

    fn spawn_blocking<F>(f: F) -> JoinHandle
    where
        F: FnOnce() + Send + 'static,
    {
        JoinHandle(expect_handle().spawn_blocking(f))
    }
}

impl ContextExt for Tokio {
    fn scope<F, R>(locals: TaskLocals, fut: F) -> Pin<Box<dyn Future<Output = R> + Send>>
    where
        F: Future<Output = R> + Send + 'static,
    {
        let cell = OnceCell::new();
        let _ = cell.set(locals);
        Box::pin(TASK_LOCALS.scope(cell, fut))
    }

    fn get_task_locals() -> Option<TaskLocals> {
        TASK_LOCALS
            .try_with(|c| c.get().cloned())
            .unwrap_or_default()
    }
}
