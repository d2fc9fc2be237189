//! `leaseq clean`: a cleaning daemon that logs each pass and stops cleanly on SIGINT or SIGTERM.

use std::time::Duration;

use tokio::time::Instant;

use crate::fail::Outcome;

/// Light clean every `every`, deep clean every `deep_every` (zero: never); with `once`, one pass
/// (deep too with `deep`). A signal lets the pass under way finish, then returns.
pub async fn clean(
    client: &leaseq::Client,
    queue: &str,
    every: Duration,
    deep_every: Duration,
    once: bool,
    deep: bool,
) -> Outcome {
    if every.is_zero() {
        return Err(crate::fail::Fail::Usage(
            "--every: must be more than zero; nothing was written".into(),
        ));
    }
    // A partitioned queue's base: every partition (spec 5.25).
    let q = super::partitions::Target::open(client, queue).await?;
    if once {
        pass(&q, queue, deep).await?;
        return Ok(());
    }
    tracing::info!(queue, every = ?every, deep_every = ?deep_every, "cleaner started");
    let mut stop = Box::pin(shutdown_signal());
    let mut next_deep = (!deep_every.is_zero()).then(|| Instant::now() + deep_every);
    loop {
        let deep_now = next_deep.is_some_and(|at| Instant::now() >= at);
        if deep_now {
            next_deep = Some(Instant::now() + deep_every);
        }
        // A failed pass is logged and retried at the next tick: Redis may come back.
        if let Err(e) = pass(&q, queue, deep_now).await {
            tracing::error!(queue, error = %e, "clean failed; trying again at the next tick");
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            signal = &mut stop => {
                tracing::info!(queue, signal, "cleaner stopped");
                return Ok(());
            }
        }
    }
}

async fn pass(q: &super::partitions::Target, queue: &str, deep: bool) -> Outcome {
    let report = q.clean(deep).await?;
    tracing::info!(
        queue,
        kind = if deep { "deep" } else { "light" },
        requeued = report.requeued,
        removed = report.removed,
        promoted = report.promoted,
        dead = report.dead,
        "cleaned"
    );
    Ok(())
}

/// Resolves with the name of the first of SIGINT and SIGTERM to arrive. The handlers are
/// installed when this is called, not when the future is first polled, so that a signal sent
/// right after the command logs its first pass is never met by the default action (death).
pub fn shutdown_signal() -> impl std::future::Future<Output = &'static str> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let term = signal(SignalKind::terminate()).expect("a SIGTERM handler");
        let int = signal(SignalKind::interrupt()).expect("a SIGINT handler");
        async move {
            let (mut term, mut int) = (term, int);
            tokio::select! {
                _ = int.recv() => "SIGINT",
                _ = term.recv() => "SIGTERM",
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        }
    }
}
