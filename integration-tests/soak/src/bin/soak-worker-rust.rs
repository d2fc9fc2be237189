//! The Rust soak worker and producer (README.md): leaseq's async API.

use std::time::Duration;

use leaseq::worker::{Event, Job, JobError, Worker, WorkerOptions};
use leaseq::{Client, FailOutcome, Retry, Wait};
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
/// records come from the runner's events. Runs until SIGTERM or SIGINT.
async fn run(client: &Client, args: &Args, recorder: Recorder) {
    let mut runs = Vec::new();
    let (stop_tx, _) = tokio::sync::broadcast::channel::<()>(1);
    for name in &args.queues {
        let queue = client.queue(name).unwrap();
        let (events, mut rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
        let rec = recorder.clone();
        let q = name.clone();
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                match event {
                    Event::Completed { id, .. } => rec.record("win", &q, &id).await,
                    Event::Retrying { id, .. } => rec.record("retry", &q, &id).await,
                    Event::Dead { id, .. } => rec.record("dead", &q, &id).await,
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
        let q = name.clone();
        let mut options = WorkerOptions::new();
        options.concurrency = Some(4);
        options.lease_ttl = Some(Duration::from_secs(2));
        options.heartbeat = Some(Duration::from_millis(500));
        options.housekeeping_every = Some(Duration::from_millis(500));
        options.deep_clean_every = Some(Duration::from_secs(5));
        let worker = Worker::new(queue, move |job: Job| {
            let rec = rec.clone();
            let q = q.clone();
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
        })
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
