//! The runner's beat (spec/PROTOCOL.md, 13.2): its registration, the housekeeping lock, and the
//! light and deep cleans it runs while it holds the lock.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::watch;

use super::engine::Shared;
use crate::queue::Queue;

/// A fresh runner id: host, process id and a random part.
pub(crate) fn runner_id() -> String {
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("{}:{}:{}", host(), std::process::id(), &random[..8])
}

/// This machine's name, or `unknown`.
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

fn info(shared: &Shared, queue: &Queue, started_ms: u64) -> Vec<u8> {
    let s = &shared.settings;
    let r = shared.counters.report();
    let queues: Vec<&str> = shared.queues.iter().map(|q| q.prefix()).collect();
    serde_json::json!({
        "id": shared.id,
        "queue": queue.prefix(),
        "queues": queues,
        "host": host(),
        "pid": std::process::id(),
        "language": s.language,
        "version": env!("CARGO_PKG_VERSION"),
        "concurrency": s.concurrency,
        "started": started_ms,
        "running": shared.running_ids(),
        "completed": r.completed,
        "failed": r.retried,
        "dead": r.dead,
        "lost": r.lost,
    })
    .to_string()
    .into_bytes()
}

/// Beats in every queue of the runner until `stop` (13.3: a runner over several queues is
/// registered in each, and takes part in each one's housekeeping).
pub(crate) async fn beat_loop(shared: Arc<Shared>, stop: watch::Receiver<bool>) {
    let mut beats = tokio::task::JoinSet::new();
    for queue in shared.queues.clone() {
        let holds = Arc::new(AtomicBool::new(false));
        beats.spawn(beat_queue(
            shared.clone(),
            queue.clone(),
            stop.clone(),
            holds.clone(),
        ));
        if shared.settings.housekeeping {
            beats.spawn(fire_schedules(shared.clone(), queue, stop.clone(), holds));
        }
    }
    while beats.join_next().await.is_some() {}
}

/// Beats in `queue` until `stop`, then leaves its registry (and its lock). Cleans while
/// holding the lock; a clean runs on a task of its own so that beats go on during a long one.
async fn beat_queue(
    shared: Arc<Shared>,
    queue: Queue,
    mut stop: watch::Receiver<bool>,
    holds_lock: Arc<AtomicBool>,
) {
    let s = shared.settings.clone();
    if !s.register && !s.housekeeping {
        return;
    }
    let started_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let period = s.heartbeat.min(s.housekeeping_every);
    let ttl = s.heartbeat * 3;
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_light: Option<Instant> = None;
    // The first deep clean waits one period: a fleet restarting must not start with a walk over
    // the keyspace (it is for rare leftovers of redis-work-queue clients).
    let mut last_deep: Option<Instant> = Some(Instant::now());
    let mut cleaning: Option<tokio::task::JoinHandle<()>> = None;
    while !*stop.borrow() {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stopped(&mut stop) => break,
        }
        let beat = queue
            .runner_beat(
                &shared.id,
                &info(&shared, &queue, started_ms),
                ttl,
                s.housekeeping,
                ttl,
            )
            .await;
        let holds = match beat {
            Ok(holds) => {
                shared.worked("beat");
                holds
            }
            Err(e) => {
                shared.failed("beat", e);
                continue;
            }
        };
        holds_lock.store(holds, Ordering::SeqCst);
        let idle = cleaning.as_ref().is_none_or(|c| c.is_finished());
        if !(holds && idle) {
            continue;
        }
        let due =
            |last: Option<Instant>, every: Duration| last.is_none_or(|l| l.elapsed() >= every);
        let deep = s
            .deep_clean_every
            .is_some_and(|every| due(last_deep, every));
        if deep || due(last_light, s.housekeeping_every) {
            last_light = Some(Instant::now());
            if deep {
                last_deep = last_light;
            }
            let shared = shared.clone();
            let queue = queue.clone();
            cleaning = Some(tokio::spawn(async move {
                let result = if deep {
                    queue.deep_clean().await
                } else {
                    queue.light_clean().await
                };
                match result {
                    Ok(report) => {
                        shared.worked("clean");
                        tracing::debug!(runner = %shared.id, deep, ?report, "leaseq runner: cleaned");
                    }
                    Err(e) => shared.failed("clean", e),
                }
            }));
        }
    }
    if let Some(c) = cleaning {
        c.abort();
    }
    if s.register || s.housekeeping {
        if let Err(e) = queue.runner_leave(&shared.id).await {
            shared.failed("beat", e);
        }
    }
}

/// The longest a lock holder sleeps between two reads of the due schedules: a schedule
/// upserted by another process is seen this late at most (spec/PROTOCOL.md 5.23).
const SCHEDULE_LOOK: Duration = Duration::from_secs(1);

/// Fires `queue`'s due schedules while this runner holds its housekeeping lock
/// (spec/PROTOCOL.md 5.23): after each pass it sleeps until the next schedule is due by the
/// server's clock (the reply's `next - now`), at most [`SCHEDULE_LOOK`], or the housekeeping
/// period when the queue has no schedule; without the lock it only looks at the flag the beat
/// sets, every [`SCHEDULE_LOOK`].
async fn fire_schedules(
    shared: Arc<Shared>,
    queue: Queue,
    mut stop: watch::Receiver<bool>,
    holds_lock: Arc<AtomicBool>,
) {
    while !*stop.borrow() {
        let pause = if holds_lock.load(Ordering::SeqCst) {
            match queue.fire_due_schedules().await {
                Ok(report) => {
                    shared.worked("schedules");
                    if report.fired > 0 || report.skipped > 0 {
                        tracing::debug!(runner = %shared.id, ?report, "leaseq runner: fired schedules");
                    }
                    match report.next_due_in {
                        // A little past the due time, so that the server finds it due.
                        Some(d) => (d + Duration::from_millis(2)).min(SCHEDULE_LOOK),
                        None => shared.settings.housekeeping_every,
                    }
                }
                Err(e) => {
                    shared.failed("schedules", e);
                    SCHEDULE_LOOK
                }
            }
        } else {
            SCHEDULE_LOOK
        };
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = stopped(&mut stop) => break,
        }
    }
}

/// Resolves once the runner's side tasks are told to stop (at once: no polling, so that a
/// runner's `run` ends as soon as its last outcome is sent).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}
