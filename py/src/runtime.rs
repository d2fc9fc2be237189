//! The bridge from the core's fork-aware runtime (`leaseq::runtime`, which the sync face uses
//! too, through `leaseq::blocking`) to asyncio, for `leaseq.aio`.
//!
//! The runtime itself, and making it again in a forked child, are the core's; this file only
//! teaches pyo3-async-runtimes to spawn on it. Its threads touch Python only to hand results to
//! asyncio; `leaseq.aio` registers `_shutdown` with `atexit` so that none does so during
//! interpreter finalization.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use pyo3_async_runtimes::generic::{ContextExt, Runtime as GenericRuntime};
use pyo3_async_runtimes::TaskLocals;
use std::cell::OnceCell;
use tokio::runtime::Handle;

fn expect_handle() -> Handle {
    // Only fails when the OS refuses a thread or an epoll instance: nothing would work anyway.
    leaseq::runtime::handle().expect("leaseq: cannot start the I/O runtime")
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
