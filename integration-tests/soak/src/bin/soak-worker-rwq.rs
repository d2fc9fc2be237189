//! A soak worker and producer built on crates.io `redis-work-queue` 0.3: the other protocol's
//! client on the same live queues. It records through leaseq (README.md). It behaves well unless
//! `LEASEQ_SOAK_MISBEHAVE=plain` (the drain soak): then it drops, oversleeps and completes twice
//! as leaseq's workers do. Its crashes come from the killer.
//!
//! `produce FIRST COUNT` adds `<lang>-<n>` (data `{"n":n}`), item n to queue n % (number of
//! queues), with the crate's `add_item` (even n) and `add_unique_item` (odd n).

use std::time::Duration;

use leaseq_soak::{Args, Behaviour, Dice, Recorder, TTL};
use redis026::aio::MultiplexedConnection;
use redis026::{RedisError, RedisResult};
use redis_work_queue::{Item, KeyPrefix, WorkQueue};

/// A connection of the crate's redis-rs (0.26), which does not reconnect by itself. Tries again
/// for up to 10 s while the connection is refused or cut as it opens.
async fn connect(url: &str) -> MultiplexedConnection {
    let client = redis026::Client::open(url).unwrap();
    let mut tries = 0;
    loop {
        match client.get_multiplexed_tokio_connection().await {
            Ok(db) => return db,
            Err(e) if cut(&e) && tries < 100 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("connect {url}: {e}"),
        }
    }
}

/// Whether `e` is a lost connection (worth a new one), not an answer of the server.
fn cut(e: &RedisError) -> bool {
    e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal() || e.is_timeout()
}

/// The outcome of a call, or `None` after a lost connection, which is replaced (a multiplexed
/// connection stays broken once cut); any other error ends the worker.
async fn unless_cut<T>(
    what: &str,
    result: RedisResult<T>,
    db: &mut MultiplexedConnection,
    url: &str,
) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(e) if cut(&e) => {
            tokio::time::sleep(Duration::from_millis(100)).await;
            *db = connect(url).await;
            None
        }
        Err(e) => panic!("{what}: {e}"),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args = Args::from_env();
    let mut db = connect(&args.url).await;
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
    // A call cut by a connection loss is not the end of the worker (see the Rust worker): a
    // lease cut after its first step leaves the id in processing for a light clean, and a
    // complete whose reply was lost is recorded as `lost`.
    for turn in 0.. {
        let (name, queue) = &queues[turn % queues.len()];
        let leased = queue.lease(&mut db, Some(Duration::ZERO), lease_time).await;
        let Some(leased) = unless_cut("lease", leased, &mut db, &args.url).await else {
            continue;
        };
        let Some(job) = leased else {
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
        } else if !plain {
            // Some work: about what the leaseq workers' misbehaviour costs them on average, so
            // that this worker does not take most of the items (plain, its own costs it that).
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        let completed = queue.complete(&mut db, &job).await;
        let first = unless_cut("complete", completed, &mut db, &args.url).await;
        match first {
            Some(true) => recorder.record("win", name, &job.id).await,
            Some(false) => {}
            None => recorder.record("lost", name, &job.id).await,
        }
        if behaviour == Behaviour::Twice {
            let again = queue.complete(&mut db, &job).await;
            if unless_cut("complete", again, &mut db, &args.url).await == Some(true) {
                // After a first complete that was cut before it took effect, the second wins.
                if first.is_none() {
                    recorder.record("win", name, &job.id).await;
                } else {
                    recorder.violation("second complete returned true").await;
                }
            }
        }
    }
}
