//! Every crash point of spec/PROTOCOL.md ("State machine and crash analysis"), left the way a
//! crashed client leaves it, and repaired by the clean the spec names.

use crate::common;

use std::time::Duration;

use common::{Env, TTL};
use leaseq::{CleanReport, State, Wait};

on_both!(
    rwq_add_crashed_between_set_and_lpush,
    rwq_lease_crashed_before_setex,
    rwq_complete_crashed_after_del_item,
    upstream_complete_crashed_after_lrem,
    rwq_cleaner_crashed_mid_move,
    leaseq_lease_reply_lost,
    duplicate_id_in_queue_while_leased,
    duplicate_id_in_processing,
    lease_count_left_by_foreign_complete,
    bogus_zero_id_from_node_cleaner,
    item_key_of_another_type_does_not_stop_the_queue,
    re_added_id_starts_a_fresh_lease_count,
);

async fn rwq_add_crashed_between_set_and_lpush(env: Env) {
    env.cmd::<String>(&[b"SET", env.key("item:a").as_bytes(), b"data"])
        .await;
    assert_eq!(
        env.queue.light_clean().await.unwrap(),
        CleanReport::default()
    );
    assert_eq!(env.queue.deep_clean().await.unwrap().requeued, 1);
    let lease = env.lease().await.unwrap();
    assert_eq!((lease.id(), lease.data()), ("a", &b"data"[..]));
}

async fn rwq_lease_crashed_before_setex(env: Env) {
    env.add("b", b"x").await;
    env.cmd::<String>(&[
        b"RPOPLPUSH",
        env.key("queue").as_bytes(),
        env.key("processing").as_bytes(),
    ])
    .await;
    // No lease key: light clean puts it back.
    assert_eq!(env.queue.light_clean().await.unwrap(), common::report(1, 0));
    let lease = env.lease().await.unwrap();
    assert_eq!(lease.id(), "b");
}

async fn rwq_complete_crashed_after_del_item(env: Env) {
    env.add("c", b"x").await;
    env.foreign_lease().await.unwrap();
    // redis-work-queue 0.3 (Rust) pipelines DEL item, LREM processing, DEL lease: stop after one.
    env.cmd::<i64>(&[b"DEL", env.key("item:c").as_bytes()])
        .await;
    assert_eq!(env.queue.light_clean().await.unwrap(), common::report(0, 1));
    assert!(env.list("processing").await.is_empty());
    // Only the lease key is left, and it expires by itself.
    assert_eq!(env.keys().await, vec![env.key("lease:c")]);
}

async fn upstream_complete_crashed_after_lrem(env: Env) {
    // Older upstream Python/Node releases complete with LREM processing first, then DEL item
    // and lease (0.3-layout clients pipeline DEL item first; see the test above).
    env.add("d", b"x").await;
    env.foreign_lease().await.unwrap();
    env.cmd::<i64>(&[b"LREM", env.key("processing").as_bytes(), b"0", b"d"])
        .await;
    // While the lease lives, nobody touches it: the holder may still be finishing.
    assert_eq!(env.queue.deep_clean().await.unwrap().requeued, 0);
    env.cmd::<i64>(&[b"DEL", env.key("lease:d").as_bytes()])
        .await; // the lease expires
    assert_eq!(env.queue.deep_clean().await.unwrap().requeued, 1);
    assert_eq!(env.list("queue").await, vec!["d"]);
}

async fn rwq_cleaner_crashed_mid_move(env: Env) {
    // Upstream cleaners (older releases) journal in P:cleaning: LPUSH cleaning id, LREM
    // processing id, (crash) LPUSH queue id, ...
    env.add("e", b"x").await;
    env.cmd::<String>(&[
        b"RPOPLPUSH",
        env.key("queue").as_bytes(),
        env.key("processing").as_bytes(),
    ])
    .await;
    env.cmd::<i64>(&[b"LPUSH", env.key("cleaning").as_bytes(), b"e"])
        .await;
    env.cmd::<i64>(&[b"LREM", env.key("processing").as_bytes(), b"0", b"e"])
        .await;
    let report = env.queue.deep_clean().await.unwrap();
    assert_eq!(report.requeued, 1);
    assert_eq!(env.list("queue").await, vec!["e"], "queued once, not twice");
    assert!(!env.exists("cleaning").await, "the journal is emptied");
}

async fn leaseq_lease_reply_lost(env: Env) {
    // The script ran but the worker never saw the reply: the item is leased to nobody.
    env.add("f", b"x").await;
    drop(
        env.queue
            .lease(Duration::from_millis(50), Wait::No)
            .await
            .unwrap(),
    );
    assert_eq!(
        env.queue.light_clean().await.unwrap().requeued,
        0,
        "not before the TTL"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(env.queue.light_clean().await.unwrap().requeued, 1);
    assert_eq!(env.lease().await.unwrap().count(), 2);
}

async fn duplicate_id_in_queue_while_leased(env: Env) {
    // A racing cleaner re-queued an id between a redis-work-queue worker's BRPOPLPUSH and its
    // SETEX: a second copy sits in the queue while the item is leased live.
    env.add("g", b"x").await;
    env.foreign_lease().await.unwrap();
    env.cmd::<i64>(&[b"LPUSH", env.key("queue").as_bytes(), b"g"])
        .await;
    assert!(env.lease().await.is_none(), "the copy is not leased");
    // The copy stays in processing, so that the item comes back if its holder dies.
    assert_eq!(env.list("processing").await, vec!["g", "g"]);
    assert!(env.exists("lease:g").await, "the holder keeps its lease");
    env.cmd::<i64>(&[b"DEL", env.key("lease:g").as_bytes()])
        .await; // the holder dies
    assert_eq!(env.queue.light_clean().await.unwrap(), common::report(1, 1));
    let again = env.lease().await.unwrap();
    assert_eq!(
        (again.id(), again.count()),
        ("g", 1),
        "their lease was not counted"
    );
    assert!(env.queue.complete(&again).await.unwrap());
    assert!(env.keys().await.is_empty());

    // A copy of an item a leaseq worker holds is simply dropped: P:leased tracks the item.
    env.add("h", b"x").await;
    let held = env.lease().await.unwrap();
    env.cmd::<i64>(&[b"LPUSH", env.key("queue").as_bytes(), b"h"])
        .await;
    assert!(env.lease().await.is_none());
    assert!(env.list("processing").await.is_empty());
    assert!(env.queue.renew(&held, TTL).await.unwrap());
    assert!(env.queue.complete(&held).await.unwrap());
    assert!(env.keys().await.is_empty());
}

async fn item_key_of_another_type_does_not_stop_the_queue(env: Env) {
    env.cmd::<i64>(&[b"HSET", env.key("item:bad").as_bytes(), b"f", b"v"])
        .await;
    env.cmd::<i64>(&[b"LPUSH", env.key("queue").as_bytes(), b"bad"])
        .await;
    env.add("good", b"x").await;
    let lease = env.lease().await.unwrap();
    assert_eq!(lease.id(), "good");
    assert!(env.list("processing").await.is_empty());
    assert_eq!(env.queue.count(State::Leased).await.unwrap(), 1);
    assert_eq!(
        env.queue.deep_clean().await.unwrap().requeued,
        0,
        "a hash is no orphan item"
    );
}

async fn re_added_id_starts_a_fresh_lease_count(env: Env) {
    env.add("k", b"x").await;
    let _lease = env.lease().await.unwrap();
    // Completed by a redis-work-queue client: the lease count stays behind ...
    env.foreign_complete("k").await;
    // ... and must not carry over to a new item with the same id.
    env.add("k", b"y").await;
    assert_eq!(env.lease().await.unwrap().count(), 1);
}

async fn duplicate_id_in_processing(env: Env) {
    // A copy of a leaseq lease's id in processing (a protocol v1 client, or interference):
    // light clean drops the copy, and recovers the item once its lease has expired.
    env.add("h", b"x").await;
    let _held = env
        .queue
        .lease(Duration::from_millis(50), Wait::No)
        .await
        .unwrap()
        .unwrap();
    env.cmd::<i64>(&[b"LPUSH", env.key("processing").as_bytes(), b"h"])
        .await;
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(env.queue.light_clean().await.unwrap(), common::report(1, 1));
    assert_eq!(env.list("queue").await, vec!["h"]);
    assert!(env.list("processing").await.is_empty());
}

async fn lease_count_left_by_foreign_complete(env: Env) {
    env.add("i", b"x").await;
    let _lease = env.lease().await.unwrap();
    // A redis-work-queue client completes it: it knows nothing of P:job:<id> and P:leased.
    env.foreign_complete("i").await;
    assert_eq!(env.keys().await, vec![env.key("job:i"), env.key("leased")]);
    assert_eq!(env.queue.deep_clean().await.unwrap(), common::report(0, 1));
    assert!(env.keys().await.is_empty());
}

async fn bogus_zero_id_from_node_cleaner(env: Env) {
    // An older upstream Node lightClean runs `lpush(queue, 0, id)`, pushing a stray "0".
    env.add("j", b"x").await;
    env.cmd::<i64>(&[b"LPUSH", env.key("queue").as_bytes(), b"0"])
        .await;
    let lease = env.lease().await.unwrap();
    assert_eq!(lease.id(), "j");
    env.queue.complete(&lease).await.unwrap();
    assert!(env.lease().await.is_none(), "\"0\" is dropped");
    assert!(env.keys().await.is_empty());
}
