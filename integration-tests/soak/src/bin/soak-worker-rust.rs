//! The Rust soak worker and producer (README.md): leaseq's async API.

use std::sync::Arc;
use std::time::Duration;

use leaseq::worker::{Event, Job, JobError, Worker, WorkerOptions};
use leaseq::{Client, FailOutcome, Partitioned, Queue, Retry, Wait};
use leaseq_soak::{
    produce, unless_cut, Args, Behaviour, Dice, Recorder, RunnerRule, FAILURE, FAILURE_TYPE, SLOW,
    TTL,
};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args = Args::from_env();
    let client = leaseq_soak::connect(&args.url).await;
    if let Some((first, count)) = args.produce {
        produce(&client, &args, first, count).await;
        return;
    }
    let recorder = Recorder::new(&client, &args).await;
    if std::env::args().nth(3).as_deref() == Some("run") {
        return run(&client, &args, recorder).await;
    }
    let queues: Vec<_> = args
        .queues
        .iter()
        .map(|p| (p.clone(), client.queue(p).unwrap()))
        .collect();
    let mut dice = Dice::new();
    // A call cut by a connection loss (retryable) is not the end of the worker: the lease is
    // tried again, and the outcome of any other call is unknown (the lease expires, or the
    // call took effect); only a complete's matters, recorded as `lost`.
    for turn in 0.. {
        let (name, queue) = &queues[turn % queues.len()];
        let leased = queue
            .lease(TTL, Wait::Timeout(Duration::from_millis(100)))
            .await;
        let Some(Some(lease)) = unless_cut("lease", leased).await else {
            continue;
        };
        recorder.record("exec", name, lease.id()).await;
        let behaviour = Behaviour::from_roll(dice.below(100));
        if behaviour == Behaviour::Drop {
            continue;
        }
        if matches!(behaviour, Behaviour::Fail | Behaviour::FailForGood) {
            let retry = if behaviour == Behaviour::Fail {
                Retry::After(Duration::from_millis(20))
            } else {
                Retry::Never
            };
            let outcome = queue.fail(&lease, FAILURE, FAILURE_TYPE, retry).await;
            if behaviour == Behaviour::FailForGood
                && matches!(
                    unless_cut("fail", outcome).await,
                    Some(FailOutcome::Retrying(_))
                )
            {
                recorder.violation("fail without retry was retried").await;
            }
            continue;
        }
        if matches!(behaviour, Behaviour::Slow | Behaviour::RenewLate) {
            tokio::time::sleep(SLOW).await;
        }
        if behaviour == Behaviour::RenewLate
            && unless_cut("renew", queue.renew(&lease, TTL).await).await == Some(true)
        {
            recorder.violation("renew after expiry returned true").await;
        }
        let first = unless_cut("complete", queue.complete(&lease).await).await;
        match first {
            Some(true) => recorder.record("win", name, lease.id()).await,
            Some(false) => {}
            None => recorder.record("lost", name, lease.id()).await,
        }
        if behaviour == Behaviour::Twice
            && unless_cut("complete", queue.complete(&lease).await).await == Some(true)
        {
            // After a first complete that was cut before it took effect, the second wins.
            if first.is_none() {
                recorder.record("win", name, lease.id()).await;
            } else {
                recorder.violation("second complete returned true").await;
            }
        }
    }
}

/// Runner mode: one `leaseq::worker::Worker` per queue, handlers following [`RunnerRule`];
/// records come from the runner's events. With `LEASEQ_SOAK_PARTITIONED=BASE` (the fault
/// soak's `partitioned` stage), one `Worker::partitioned` over the partitioned queue `BASE`
/// instead, each item recorded under its partition's prefix. Runs until SIGTERM or SIGINT.
async fn run(client: &Client, args: &Args, recorder: Recorder) {
    let mut runs = Vec::new();
    let (stop_tx, _) = tokio::sync::broadcast::channel::<()>(1);
    let units: Vec<Unit> = match std::env::var("LEASEQ_SOAK_PARTITIONED") {
        Ok(base) if !base.is_empty() => {
            vec![Unit::Partitioned(open_partitioned(client, &base).await)]
        }
        _ => args
            .queues
            .iter()
            .map(|name| Unit::Queue(client.queue(name).unwrap()))
            .collect(),
    };
    for unit in units {
        // The prefix an event's item is recorded under: its queue, or the partition its id
        // routes to (the soak's items have no group and no dependencies).
        let prefix_of: Arc<dyn Fn(&str) -> String + Send + Sync> = match &unit {
            Unit::Queue(q) => {
                let name = q.prefix().to_owned();
                Arc::new(move |_| name.clone())
            }
            Unit::Partitioned(p) => {
                let p = p.clone();
                Arc::new(move |id| p.partitions()[p.partition_of_id(id)].prefix().to_owned())
            }
        };
        let (events, mut rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
        let rec = recorder.clone();
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                match event {
                    Event::Completed { id, .. } => rec.record("win", &prefix_of(&id), &id).await,
                    Event::Retrying { id, .. } => rec.record("retry", &prefix_of(&id), &id).await,
                    Event::Dead { id, .. } => rec.record("dead", &prefix_of(&id), &id).await,
                    Event::Error { during, error }
                        if std::env::var_os("LEASEQ_SOAK_DEBUG").is_some() =>
                    {
                        eprintln!("rust runner: {during}: {error}")
                    }
                    _ => {}
                }
            }
        });
        let rec = recorder.clone();
        let mut options = WorkerOptions::new();
        options.concurrency = Some(4);
        options.lease_ttl = Some(Duration::from_secs(2));
        options.heartbeat = Some(Duration::from_millis(500));
        options.housekeeping_every = Some(Duration::from_millis(500));
        options.deep_clean_every = Some(Duration::from_secs(5));
        let handler = move |job: Job| {
            let rec = rec.clone();
            let q = job.queue().prefix().to_owned();
            async move {
                rec.record("exec", &q, job.id()).await;
                tokio::time::sleep(Duration::from_millis(1)).await;
                match RunnerRule::of(job.id(), job.attempt()) {
                    RunnerRule::Dead => {
                        Err(JobError::unrecoverable(FAILURE).with_type(FAILURE_TYPE))
                    }
                    RunnerRule::Retry => Err(JobError::new(FAILURE).with_type(FAILURE_TYPE)),
                    RunnerRule::Succeed => Ok(()),
                }
            }
        };
        let worker = match &unit {
            Unit::Queue(q) => Worker::new(q.clone(), handler),
            Unit::Partitioned(p) => Worker::partitioned(p, handler),
        }
        .options(options)
        .on_event(move |e| drop(events.send(e.clone())));
        let mut stop = stop_tx.subscribe();
        runs.push(tokio::spawn(worker.run_until(async move {
            let _ = stop.recv().await;
        })));
    }
    let mut term =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).unwrap();
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    let _ = stop_tx.send(());
    for r in runs {
        r.await.unwrap().unwrap();
    }
}

/// What one runner of runner mode serves.
enum Unit {
    Queue(Queue),
    Partitioned(Partitioned),
}

/// The partitioned queue `base`, read again while the servers are away.
async fn open_partitioned(client: &Client, base: &str) -> Partitioned {
    loop {
        if let Some(p) =
            unless_cut("open the partitioned queue", client.partitioned(base).await).await
        {
            return p;
        }
    }
}
