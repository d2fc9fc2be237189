//! Many workers on one queue: nothing is leased twice while held, nothing is lost, and a
//! blocking wait never stalls other calls on the same client.

use crate::common;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Env, TTL};
use leaseq::{ErrorCode, Item, Wait};

on_both!(
    no_double_lease_while_cleaning_in_a_tight_loop,
    blocking_wait_does_not_stall_the_client,
    close_ends_waiting_leases
);

/// Workers mostly sit in the blocking wait (items arrive one by one) while a cleaner runs light
/// clean without pause. If any path left a window between taking an id and leasing it, the
/// cleaner would re-queue a held item and some item would be leased twice.
async fn no_double_lease_while_cleaning_in_a_tight_loop(env: Env) {
    const ITEMS: usize = 600;
    const WORKERS: usize = 4;
    let held: Arc<Mutex<HashSet<String>>> = Arc::default();
    let leases: Arc<Mutex<HashMap<String, u32>>> = Arc::default();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));

    let mut workers = Vec::new();
    for _ in 0..WORKERS {
        let (q, held, leases) = (env.queue.clone(), held.clone(), leases.clone());
        workers.push(tokio::spawn(async move {
            let mut completed = 0usize;
            while let Some(lease) = q
                .lease(TTL, Wait::Timeout(Duration::from_secs(3)))
                .await
                .unwrap()
            {
                assert!(
                    held.lock().unwrap().insert(lease.id().to_owned()),
                    "{} leased twice at once",
                    lease.id()
                );
                *leases
                    .lock()
                    .unwrap()
                    .entry(lease.id().to_owned())
                    .or_default() += 1;
                assert_eq!(lease.count(), 1, "{} was re-queued while held", lease.id());
                tokio::task::yield_now().await;
                held.lock().unwrap().remove(lease.id());
                assert!(q.complete(&lease).await.unwrap());
                completed += 1;
            }
            completed
        }));
    }
    let cleaner = {
        let (q, done) = (env.queue.clone(), done.clone());
        tokio::spawn(async move {
            let mut requeued = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                requeued += q.light_clean().await.unwrap().requeued;
            }
            requeued
        })
    };
    for i in 0..ITEMS {
        env.queue
            .add(&Item::with_id(format!("item-{i}"), vec![1]).unwrap())
            .await
            .unwrap();
        if i % 3 == 0 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    let mut completed = 0;
    for w in workers {
        completed += w.await.unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(
        cleaner.await.unwrap(),
        0,
        "the cleaner never re-queued a held item"
    );
    assert_eq!(completed, ITEMS);
    {
        let leases = leases.lock().unwrap();
        assert_eq!(leases.len(), ITEMS);
        assert!(leases.values().all(|&n| n == 1));
    }
    assert!(env.keys().await.is_empty());
}

async fn blocking_wait_does_not_stall_the_client(env: Env) {
    let idle = env.client.queue(&common::fresh_prefix("idle")).unwrap();
    let waiter = {
        let idle = idle.clone();
        tokio::spawn(async move { idle.lease(TTL, Wait::Forever).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    // 100 adds and 100 lease+completes on the same client while the wait is pending. The bound
    // only catches a stall (each call would wait for the blocked one); it is not a speed check.
    let busy = async {
        for i in 0..100 {
            env.queue
                .add(&Item::with_id(format!("b{i}"), vec![2]).unwrap())
                .await
                .unwrap();
            let lease = env.queue.lease(TTL, Wait::No).await.unwrap().unwrap();
            assert!(env.queue.complete(&lease).await.unwrap());
        }
    };
    tokio::time::timeout(Duration::from_secs(20), busy)
        .await
        .expect("calls on the client went on while another call waited");
    assert!(!waiter.is_finished(), "the waiter is still waiting");
    idle.add(&Item::with_id("wake", vec![]).unwrap())
        .await
        .unwrap();
    let lease = waiter.await.unwrap().unwrap().unwrap();
    assert_eq!(lease.id(), "wake");
}

async fn close_ends_waiting_leases(env: Env) {
    let waiters: Vec<_> = (0..3)
        .map(|_| {
            let q = env.queue.clone();
            tokio::spawn(async move { q.lease(TTL, Wait::Forever).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    env.client.close();
    for w in waiters {
        let err = tokio::time::timeout(Duration::from_secs(5), w)
            .await
            .expect("close ends the wait")
            .unwrap()
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Closed);
    }
    let err = env.queue.add(&Item::new(vec![])).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Closed);
    assert!(env.client.is_closed());
}
