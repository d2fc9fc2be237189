//! A soak worker and producer built on crates.io `redis-work-queue` 0.3: the other protocol's
//! client on the same live queues. It records through leaseq (README.md). It behaves well unless
//! `LEASEQ_SOAK_MISBEHAVE=plain` (the drain soak): then it drops, oversleeps and completes twice
//! as leaseq's workers do. Its crashes come from the killer.
//!
//! `produce FIRST COUNT` adds `<lang>-<n>` (data `{"n":n}`), item n to queue n % (number of
//! queues), with the crate's `add_item` (even n) and `add_unique_item` (odd n).

use std::time::Duration;

use leaseq_soak::{Args, Behaviour, Dice, Recorder, TTL};
use redis_work_queue::{Item, KeyPrefix, WorkQueue};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args = Args::from_env();
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
    if let Some((first, count)) = args.produce {
        for n in first..first + count {
            let (_, queue) = &queues[(n % queues.len() as u64) as usize];
            let item = Item {
                id: format!("{}-{n}", args.lang),
                data: format!("{{\"n\":{n}}}").into_bytes().into_boxed_slice(),
            };
            if n % 2 == 0 {
                assert!(
                    queue.add_item(&mut db, &item).await.expect("add_item"),
                    "a fresh id is added"
                );
            } else {
                queue
                    .add_unique_item(&mut db, &item)
                    .await
                    .expect("add_unique_item");
            }
        }
        return;
    }
    let client = leaseq_soak::connect(&args.url).await;
    let recorder = Recorder::new(&client, &args).await;
    let plain = leaseq_soak::plain();
    let mut dice = Dice::new();
    // Its lease takes whole seconds; at least one.
    let lease_time = Duration::from_secs(TTL.as_secs().max(1));
    let mut idle = 0;
    for turn in 0.. {
        let (name, queue) = &queues[turn % queues.len()];
        let Some(job) = queue
            .lease(&mut db, Some(Duration::ZERO), lease_time)
            .await
            .expect("lease")
        else {
            // A pause once every queue was found empty in a row.
            idle += 1;
            if idle >= queues.len() {
                tokio::time::sleep(Duration::from_millis(50)).await;
                idle = 0;
            }
            continue;
        };
        idle = 0;
        recorder.record("exec", name, &job.id).await;
        let behaviour = if plain {
            Behaviour::from_roll(dice.below(100))
        } else {
            Behaviour::Normal
        };
        if behaviour == Behaviour::Drop {
            continue;
        }
        if behaviour == Behaviour::Slow {
            // Past its lease, which is whole seconds.
            tokio::time::sleep(lease_time + Duration::from_millis(200)).await;
        } else {
            // Some work: about what the leaseq workers' misbehaviour costs them on average, so
            // that this worker does not take most of the items.
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        if queue.complete(&mut db, &job).await.expect("complete") {
            recorder.record("win", name, &job.id).await;
        }
        if behaviour == Behaviour::Twice && queue.complete(&mut db, &job).await.expect("complete") {
            recorder.violation("second complete returned true").await;
        }
    }
}
