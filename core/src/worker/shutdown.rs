//! Stopping a runner: gracefully, then by force.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use tokio::sync::watch;

const RUNNING: u8 = 0;
const STOPPING: u8 = 1;
const FORCED: u8 = 2;

/// Stops a [`crate::worker::Worker`]: [`WorkerHandle::stop`] starts a graceful shutdown,
/// [`WorkerHandle::force`] (or a second `stop`-by-signal) cuts its wait short. Cheap to clone.
#[derive(Debug, Clone)]
pub struct WorkerHandle {
    state: Arc<watch::Sender<u8>>,
}

impl WorkerHandle {
    pub(crate) fn new() -> WorkerHandle {
        WorkerHandle {
            state: Arc::new(watch::channel(RUNNING).0),
        }
    }

    /// Starts a graceful shutdown: no more leases; running handlers get the shutdown timeout.
    pub fn stop(&self) {
        self.state.send_if_modified(|s| {
            let was = *s;
            *s = (*s).max(STOPPING);
            was != *s
        });
    }

    /// Stops now: handlers still running are told their lease is lost, and their items are
    /// released (or failed, as configured).
    pub fn force(&self) {
        self.state.send_if_modified(|s| {
            let was = *s;
            *s = FORCED;
            was != *s
        });
    }

    /// The first call stops, the next forces: what Ctrl-C does.
    pub fn interrupt(&self) {
        if self.is_stopping() {
            self.force()
        } else {
            self.stop()
        }
    }

    /// Whether a shutdown began.
    pub fn is_stopping(&self) -> bool {
        *self.state.borrow() >= STOPPING
    }

    /// Whether a shutdown was forced.
    pub fn is_forced(&self) -> bool {
        *self.state.borrow() >= FORCED
    }

    /// Resolves once a shutdown began.
    pub(crate) async fn stopping(&self) {
        let mut rx = self.state.subscribe();
        let _ = rx.wait_for(|s| *s >= STOPPING).await;
    }

    /// Resolves once a shutdown was forced.
    pub(crate) async fn forced(&self) {
        let mut rx = self.state.subscribe();
        let _ = rx.wait_for(|s| *s >= FORCED).await;
    }

    /// Follows `flag` (set from a signal handler, where only an atomic store is safe): 1 stops,
    /// 2 forces. Read once now, so that a flag already set stops the runner before its first
    /// lease, then every 50 ms until the runner is forced or the handle is dropped.
    pub fn follow(&self, flag: &'static AtomicU8) -> tokio::task::JoinHandle<()> {
        match flag.load(Ordering::SeqCst) {
            0 => {}
            1 => self.stop(),
            _ => self.force(),
        }
        let handle = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_millis(50));
            loop {
                tick.tick().await;
                match flag.load(Ordering::SeqCst) {
                    0 => {}
                    1 => handle.stop(),
                    _ => {
                        handle.force();
                        return;
                    }
                }
            }
        })
    }
}

/// Resolves after the first SIGINT or SIGTERM; the task keeps listening and forces on the next.
pub(crate) async fn on_signals(handle: WorkerHandle) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return std::future::pending().await;
        };
        let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let mut first = Some(first_tx);
            loop {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
                handle.interrupt();
                if let Some(tx) = first.take() {
                    let _ = tx.send(());
                }
                if handle.is_forced() {
                    return;
                }
            }
        });
        let _ = first_rx.await;
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        let _ = handle;
    }
}
