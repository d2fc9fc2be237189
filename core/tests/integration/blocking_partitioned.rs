//! The blocking face of a partitioned queue (`leaseq::blocking::Partitioned`), as the C ABI and
//! sync Python use it: plain threads, no runtime, one server holding three partitions.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use leaseq::blocking::Client;
use leaseq::{ErrorCode, Item, State, Wait};
use leaseq_harness::RedisServer;

const TTL: Duration = Duration::from_secs(30);

/// The argument an `InvalidArgument` names.
fn argument(e: &leaseq::Error) -> Option<&str> {
    match e {
        leaseq::Error::InvalidArgument { argument, .. } => Some(argument),
        _ => None,
    }
}

fn items(n: usize) -> Vec<Item> {
    (0..n)
        .map(|i| Item::with_id(format!("i{i}"), vec![1]).unwrap())
        .collect()
}

#[test]
fn threads_drain_a_partitioned_queue_and_the_reads_see_the_logical_queue() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let q = client.create_partitioned("{bp}drain", 3).unwrap();
    assert_eq!(q.count(), 3);
    assert_eq!(q.base(), "{bp}drain");
    // Opening by the base finds the stored layout.
    let again = client.partitioned("{bp}drain").unwrap();
    assert_eq!(again.prefixes(), q.prefixes());

    assert_eq!(q.add_batch(&items(60)).unwrap(), 60);
    assert!(!q.add(&items(1)[0]).unwrap(), "i0 exists in its partition");
    let stats = q.stats().unwrap();
    assert_eq!(stats.total.waiting, 60);
    assert_eq!(stats.partitions.len(), 3);
    assert_eq!(stats.partitions.iter().map(|s| s.waiting).sum::<u64>(), 60);
    assert!(
        stats.partitions.iter().all(|s| s.waiting > 0),
        "the ids spread: {:?}",
        stats
            .partitions
            .iter()
            .map(|s| s.waiting)
            .collect::<Vec<_>>()
    );
    for (i, prefix) in q.prefixes().iter().enumerate() {
        let part = q.partition(i).unwrap();
        assert_eq!(part.prefix(), prefix);
        assert_eq!(
            part.count(State::Waiting).unwrap(),
            stats.partitions[i].waiting
        );
    }
    assert_eq!(q.count_in(State::Waiting).unwrap(), 60);
    assert!(q.get("i7").unwrap().is_some());
    assert_eq!(q.cancel("i7").unwrap(), Some(State::Waiting));
    assert!(q.get("i7").unwrap().is_none());

    let done: Arc<Mutex<HashSet<String>>> = Arc::default();
    let threads: Vec<_> = (0..3)
        .map(|_| {
            let (q, done) = (q.clone(), done.clone());
            std::thread::spawn(move || {
                while let Some(lease) = q
                    .lease(TTL, Wait::Timeout(Duration::from_millis(300)))
                    .unwrap()
                {
                    assert!(q.complete(&lease).unwrap());
                    assert!(done.lock().unwrap().insert(lease.id().to_owned()));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    // The cancelled item's stale id was dropped by a lease, never leased.
    assert_eq!(done.lock().unwrap().len(), 59);
    assert!(!done.lock().unwrap().contains("i7"));
    assert_eq!(q.stats().unwrap().total.waiting, 0);
}

#[test]
fn pause_holds_every_partition_and_bad_arguments_are_named() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let q = client.create_partitioned("{bp}pause", 2).unwrap();
    q.add_batch(&items(4)).unwrap();
    assert!(q.pause().unwrap());
    assert!(q.stats().unwrap().total.paused);
    assert!(q.lease_batch(4, TTL, Wait::No).unwrap().is_empty());
    assert!(q.resume().unwrap());
    assert_eq!(q.lease_batch(4, TTL, Wait::No).unwrap().len(), 4);

    let Err(e) = q.partition(2) else {
        panic!("partition 2 of 2")
    };
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert_eq!(argument(&e), Some("partition"));
    let e = client.create_partitioned("{bp}pause", 3).unwrap_err();
    assert_eq!(argument(&e), Some("partitions"));
    let e = q.lease_batch(0, TTL, Wait::No).unwrap_err();
    assert_eq!(argument(&e), Some("n"));
}

#[test]
fn an_interruptible_wait_ends_when_the_check_says_so() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let q = client.create_partitioned("{bp}wait", 2).unwrap();
    let mut checks = 0;
    let outcome =
        q.lease_batch_interruptible(1, TTL, Wait::Forever, Duration::from_millis(20), || {
            checks += 1;
            if checks == 3 {
                Err("interrupted")
            } else {
                Ok(())
            }
        });
    assert_eq!(outcome.unwrap_err(), "interrupted");
    // Nothing was leased by the abandoned wait: an item added now is there to lease.
    q.add(&items(1)[0]).unwrap();
    let got = q
        .lease_batch_interruptible(1, TTL, Wait::Forever, Duration::from_millis(20), || {
            Ok::<(), ()>(())
        })
        .unwrap()
        .unwrap();
    assert_eq!(got.len(), 1);
}
