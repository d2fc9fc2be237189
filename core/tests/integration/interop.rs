//! A redis-work-queue 0.3 client (the crates.io crate) and a leaseq client on one live queue.

use crate::common;

use std::time::Duration;

use common::{Env, TTL};
use leaseq::{CleanReport, Item, Wait};
use redis_work_queue::{Item as RwqItem, KeyPrefix, WorkQueue};

async fn rwq(env: &Env) -> (WorkQueue, redis026::aio::MultiplexedConnection) {
    let conn = redis026::Client::open(env.urls[0].as_str())
        .unwrap()
        .get_multiplexed_tokio_connection()
        .await
        .unwrap();
    (WorkQueue::new(KeyPrefix::from(env.prefix.as_str())), conn)
}

#[tokio::test]
async fn their_add_our_lease_complete_and_clean() {
    let env = Env::single("their_add").await;
    let (wq, mut db) = rwq(&env).await;
    let mut ids = Vec::new();
    for i in 0..20u8 {
        let item = RwqItem::new(vec![i, 0, 255].into_boxed_slice());
        ids.push(item.id.clone());
        assert!(wq.add_item(&mut db, &item).await.unwrap());
    }
    wq.add_unique_item(&mut db, &RwqItem::from_string_data("unique".into()))
        .await
        .unwrap();
    let mut seen = Vec::new();
    while let Some(lease) = env.queue.lease(TTL, Wait::No).await.unwrap() {
        if seen.len() == 3 {
            // One of ours "crashes": the lease runs out and our clean brings the item back.
            let crashed = lease.id().to_owned();
            let short = Duration::from_millis(50);
            assert!(env.queue.renew(&lease, short).await.unwrap());
            tokio::time::sleep(Duration::from_millis(120)).await;
            assert_eq!(env.queue.light_clean().await.unwrap().requeued, 1);
            assert_eq!(env.queue.get(&crashed).await.unwrap().unwrap().attempts, 1);
            seen.push(String::new());
            continue;
        }
        assert!(env.queue.complete(&lease).await.unwrap());
        seen.push(lease.id().to_owned());
    }
    for id in &ids {
        assert!(seen.contains(id), "{id} was processed");
    }
    assert_eq!(seen.len(), 22);
    assert_eq!(wq.queue_len(&mut db).await.unwrap(), 0);
    assert_eq!(wq.processing(&mut db).await.unwrap(), 0);
    assert!(env.keys().await.is_empty());
}

#[tokio::test]
async fn our_add_their_lease_and_complete() {
    let env = Env::single("our_add").await;
    let (wq, mut db) = rwq(&env).await;
    let data: Vec<u8> = vec![0, 1, 2, 0xff];
    env.queue
        .add(&Item::with_id("ours-1", data.clone()).unwrap())
        .await
        .unwrap();
    env.queue
        .add_batch(&[Item::with_id("ours-2", b"b".to_vec()).unwrap()])
        .await
        .unwrap();
    let job = wq
        .lease(&mut db, Some(Duration::ZERO), TTL)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((job.id.as_str(), &job.data[..]), ("ours-1", &data[..]));
    assert!(wq.complete(&mut db, &job).await.unwrap());
    assert!(!wq.complete(&mut db, &job).await.unwrap());
    // Their worker takes the second and dies; our cleaner returns it after the lease expires,
    // and our worker finishes it.
    let job = wq
        .lease(&mut db, Some(Duration::ZERO), Duration::from_secs(1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(job.id, "ours-2");
    assert_eq!(
        env.queue.light_clean().await.unwrap(),
        CleanReport::default(),
        "their lease is respected"
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(env.queue.light_clean().await.unwrap().requeued, 1);
    let lease = env.queue.lease(TTL, Wait::No).await.unwrap().unwrap();
    assert_eq!(lease.id(), "ours-2");
    assert!(env.queue.complete(&lease).await.unwrap());
    assert!(env.keys().await.is_empty());
}

#[tokio::test]
async fn their_worker_completes_what_we_leased_first() {
    let env = Env::single("mixed").await;
    let (wq, mut db) = rwq(&env).await;
    env.queue
        .add(&Item::with_id("m", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    let ours = env
        .queue
        .lease(Duration::from_millis(50), Wait::No)
        .await
        .unwrap()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    env.queue.light_clean().await.unwrap();
    let theirs = wq
        .lease(&mut db, Some(Duration::ZERO), TTL)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(theirs.id, "m");
    assert!(
        !env.queue.renew(&ours, TTL).await.unwrap(),
        "we lost the lease to their worker"
    );
    assert!(wq.complete(&mut db, &theirs).await.unwrap());
    // Their complete leaves our job record behind; deep clean collects it.
    assert_eq!(env.keys().await, vec![env.key("job:m")]);
    assert_eq!(env.queue.deep_clean().await.unwrap(), common::report(0, 1));
    assert!(env.keys().await.is_empty());
    assert!(
        !env.queue.complete(&ours).await.unwrap(),
        "a late complete is a defined false"
    );
    assert!(env.keys().await.is_empty());
}
