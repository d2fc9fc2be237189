//! A soak worker built on crates.io `redis-work-queue` 0.3: the other protocol's client on the
//! same live queues. It records through leaseq (README.md). It behaves well; its crashes come
//! from the killer.

use std::time::Duration;

use leaseq_soak::{Args, Recorder, TTL};
use redis_work_queue::{KeyPrefix, WorkQueue};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args = Args::from_env();
    let client = leaseq_soak::connect(&args.url).await;
    let recorder = Recorder::new(&client, &args).await;
    let mut db = redis026::Client::open(args.url.as_str())
        .unwrap()
        .get_multiplexed_tokio_connection()
        .await
        .expect("connect");
    let queues: Vec<_> = args
        .queues
        .iter()
        .map(|p| (p.clone(), WorkQueue::new(KeyPrefix::from(p.as_str()))))
        .collect();
    for turn in 0.. {
        let (name, queue) = &queues[turn % queues.len()];
        // Its lease takes whole seconds; at least one.
        let lease_time = Duration::from_secs(TTL.as_secs().max(1));
        let Some(job) = queue
            .lease(&mut db, Some(Duration::ZERO), lease_time)
            .await
            .expect("lease")
        else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        recorder.record("exec", name, &job.id).await;
        // Some work: about what the leaseq workers' misbehaviour costs them on average, so that
        // this worker does not take most of the items.
        tokio::time::sleep(Duration::from_millis(30)).await;
        if queue.complete(&mut db, &job).await.expect("complete") {
            recorder.record("win", name, &job.id).await;
        }
    }
}
