//! Groups (spec/PROTOCOL.md 5.20): per-key FIFO with a concurrency limit, fair across groups,
//! with priorities and delays inside a group, paused groups, and every way a leased item ends
//! giving its group's slot back. Every test runs against a single server and against a local
//! Redis Cluster.

use crate::common;

use std::time::Duration;

use common::{assert_invalid, Env, TTL};
use leaseq::{GroupInfo, Item, QueueConfig, Retry, State, Wait};

on_both!(
    one_group_is_strict_fifo_one_at_a_time,
    groups_take_turns_whatever_their_size,
    a_group_limit_allows_that_many_at_once,
    every_end_of_a_lease_frees_its_slot,
    an_expired_lease_frees_its_slot,
    a_cancel_after_an_expired_lease_frees_its_slot,
    priorities_and_delays_work_inside_a_group,
    a_paused_group_waits_while_the_queue_goes_on,
    grouped_and_plain_items_take_turns,
    redis_work_queue_never_sees_a_grouped_item,
    get_cancel_and_counts_know_grouped_items,
    deep_clean_leaves_grouped_items_alone,
    a_bad_group_is_refused_before_anything_is_written,
    a_drained_grouped_queue_keeps_only_group_settings,
);

fn grouped(id: &str, group: &str) -> Item {
    Item::with_id(id, id.as_bytes().to_vec())
        .unwrap()
        .group(group)
}

async fn one_group_is_strict_fifo_one_at_a_time(env: Env) {
    for id in ["a1", "a2", "a3"] {
        env.queue.add(&grouped(id, "acme")).await.unwrap();
    }
    let first = env.lease().await.expect("the group's first");
    assert_eq!(first.id(), "a1");
    assert!(
        env.lease().await.is_none(),
        "one leased at a time (default limit 1)"
    );
    let info: GroupInfo = env.queue.group("acme").await.unwrap();
    assert_eq!(
        (info.waiting, info.leased, info.limit, info.paused),
        (2, 1, 1, false)
    );
    assert!(env.queue.complete(&first).await.unwrap());
    assert_eq!(env.lease_ids(10).await, ["a2"], "the next, in order");
}

async fn groups_take_turns_whatever_their_size(env: Env) {
    env.queue
        .set_config(&QueueConfig::new().group_concurrency(1000))
        .await
        .unwrap();
    let big: Vec<Item> = (0..200)
        .map(|i| grouped(&format!("big{i}"), "big"))
        .collect();
    env.queue.add_batch(&big).await.unwrap();
    env.queue.add(&grouped("small0", "small")).await.unwrap();
    env.queue.add(&grouped("other0", "other")).await.unwrap();
    // The small groups are not starved by the big one's 200 items: each gets a turn.
    let ids = env.lease_ids(6).await;
    assert!(ids.contains(&"small0".to_owned()), "{ids:?}");
    assert!(ids.contains(&"other0".to_owned()), "{ids:?}");
    assert_eq!(
        ids.iter().filter(|i| i.starts_with("big")).count(),
        4,
        "{ids:?}"
    );
}

async fn a_group_limit_allows_that_many_at_once(env: Env) {
    for i in 0..5 {
        env.queue
            .add(&grouped(&format!("x{i}"), "acme"))
            .await
            .unwrap();
    }
    env.queue.set_group_limit("acme", Some(3)).await.unwrap();
    let leased = env.lease_ids(10).await;
    assert_eq!(leased, ["x0", "x1", "x2"]);
    assert!(env.lease().await.is_none());
    env.queue.set_group_limit("acme", None).await.unwrap();
    assert_eq!(env.queue.group("acme").await.unwrap().limit, 1);
    let err = env
        .queue
        .set_group_limit("acme", Some(0))
        .await
        .unwrap_err();
    assert_invalid(&err, "limit", "");
}

async fn every_end_of_a_lease_frees_its_slot(env: Env) {
    let q = &env.queue;
    for i in 0..6 {
        q.add(&grouped(&format!("e{i}"), "g").max_attempts(5))
            .await
            .unwrap();
    }
    // complete
    let l = env.lease().await.unwrap();
    assert!(q.complete(&l).await.unwrap());
    // fail with a retry now: back in the group, behind nothing (it keeps its place by
    // priority and order of queueing)
    let l = env.lease().await.unwrap();
    assert_eq!(l.id(), "e1");
    q.fail(&l, "boom", "", Retry::After(Duration::ZERO))
        .await
        .unwrap();
    // release
    let l = env.lease().await.unwrap();
    assert!(q.release(&l, None).await.unwrap());
    // fail to the dead letters
    let l = env.lease().await.unwrap();
    q.fail(&l, "bad", "", Retry::Never).await.unwrap();
    // cancel while leased, then the holder's complete
    let l = env.lease().await.unwrap();
    assert_eq!(q.cancel(l.id()).await.unwrap(), Some(State::Leased));
    assert!(!q.complete(&l).await.unwrap());
    // each time the next could be leased: the slot came back
    let info = q.group("g").await.unwrap();
    assert_eq!(info.leased, 0, "{info:?}");
    assert!(env.lease().await.is_some());
}

async fn an_expired_lease_frees_its_slot(env: Env) {
    env.queue.add(&grouped("a", "g")).await.unwrap();
    env.queue.add(&grouped("b", "g")).await.unwrap();
    let l = env.lease().await.unwrap();
    env.expire(&l).await;
    // The recovery (in the next lease's housekeeping) frees the slot and puts "a" back first.
    let next = env.lease().await.expect("the slot came back");
    assert_eq!(next.id(), "a");
    assert_eq!(next.attempt(), 2);
    // The first complete of the incarnation wins, even the old holder's (5.3); the slot is
    // counted once either way.
    assert!(env.queue.complete(&l).await.unwrap());
    assert!(!env.queue.complete(&next).await.unwrap());
    assert_eq!(env.queue.group("g").await.unwrap().leased, 0);
    assert_eq!(env.lease_ids(10).await, ["b"]);
}

async fn a_cancel_after_an_expired_lease_frees_its_slot(env: Env) {
    // Found by the protocol's model: the lease runs out, nothing recovers it yet, and a cancel
    // removes the item (and the P:leased entry a recovery would use).
    env.queue.add(&grouped("a", "g")).await.unwrap();
    let l = env.lease().await.unwrap();
    env.expire(&l).await;
    assert_eq!(env.queue.cancel("a").await.unwrap(), Some(State::Waiting));
    assert_eq!(
        env.queue.group("g").await.unwrap().leased,
        0,
        "the slot is free"
    );
    env.queue.add(&grouped("b", "g")).await.unwrap();
    assert_eq!(env.lease_ids(10).await, ["b"], "the group leases again");
}

async fn priorities_and_delays_work_inside_a_group(env: Env) {
    env.queue.add(&grouped("low", "g")).await.unwrap();
    env.queue
        .add(&grouped("high", "g").priority(5))
        .await
        .unwrap();
    env.queue
        .add(
            &grouped("later", "g")
                .priority(9)
                .delay(Duration::from_millis(200)),
        )
        .await
        .unwrap();
    let l = env.lease().await.unwrap();
    assert_eq!(l.id(), "high", "priority inside the group");
    env.queue.complete(&l).await.unwrap();
    tokio::time::sleep(Duration::from_millis(250)).await;
    let l = env.lease().await.unwrap();
    assert_eq!(l.id(), "later", "due now, and of the highest priority");
    env.queue.complete(&l).await.unwrap();
    assert_eq!(env.lease_ids(10).await, ["low"]);
}

async fn a_paused_group_waits_while_the_queue_goes_on(env: Env) {
    env.queue.add(&grouped("a", "paused")).await.unwrap();
    env.queue.add(&grouped("b", "running")).await.unwrap();
    assert!(env.queue.pause_group("paused").await.unwrap());
    assert!(!env.queue.pause_group("paused").await.unwrap());
    assert_eq!(env.lease_ids(10).await, ["b"]);
    assert!(env.queue.group("paused").await.unwrap().paused);
    assert!(env.queue.resume_group("paused").await.unwrap());
    // A waiting lease wakes for the resumed group.
    let lease = env
        .queue
        .lease(TTL, Wait::Timeout(Duration::from_secs(30)))
        .await
        .unwrap()
        .expect("leased after the resume");
    assert_eq!(lease.id(), "a");
}

async fn grouped_and_plain_items_take_turns(env: Env) {
    for i in 0..3 {
        env.add(&format!("p{i}"), b"").await;
        env.queue
            .add(&grouped(&format!("g{i}"), &format!("group{i}")))
            .await
            .unwrap();
    }
    let ids = env.lease_ids(4).await;
    assert_eq!(
        ids.iter().filter(|i| i.starts_with('p')).count(),
        2,
        "{ids:?}"
    );
    assert_eq!(
        ids.iter().filter(|i| i.starts_with('g')).count(),
        2,
        "{ids:?}"
    );
}

async fn redis_work_queue_never_sees_a_grouped_item(env: Env) {
    env.queue.add(&grouped("a", "g")).await.unwrap();
    assert_eq!(env.foreign_lease().await, None);
    assert!(
        !env.exists("item:a").await,
        "its data is parked while it waits"
    );
    assert!(env.exists("data:a").await);
    let l = env.lease().await.unwrap();
    assert!(env.exists("item:a").await, "leased: back at P:item:");
    env.queue
        .fail(&l, "x", "", Retry::After(Duration::ZERO))
        .await
        .unwrap();
    assert!(!env.exists("item:a").await, "waiting again: parked again");
}

async fn get_cancel_and_counts_know_grouped_items(env: Env) {
    env.queue.add(&grouped("a", "g")).await.unwrap();
    env.queue.add(&grouped("b", "g")).await.unwrap();
    let job = env.queue.get("a").await.unwrap().unwrap();
    assert_eq!(job.state, State::Waiting);
    assert_eq!(job.group.as_deref(), Some("g"));
    assert_eq!(job.data, b"a");
    assert_eq!(env.queue.count(State::Waiting).await.unwrap(), 2);
    assert_eq!(env.queue.queue_len().await.unwrap(), 2);
    assert_eq!(env.queue.stats().await.unwrap().waiting, 2);
    assert!(
        !env.queue.add(&grouped("a", "g")).await.unwrap(),
        "the id exists"
    );
    assert_eq!(env.queue.cancel("a").await.unwrap(), Some(State::Waiting));
    assert!(env.queue.get("a").await.unwrap().is_none());
    assert_eq!(env.queue.count(State::Waiting).await.unwrap(), 1);
    assert_eq!(env.lease_ids(10).await, ["b"]);
}

async fn deep_clean_leaves_grouped_items_alone(env: Env) {
    env.queue.add(&grouped("a", "g")).await.unwrap();
    env.queue.add(&grouped("b", "g")).await.unwrap();
    let report = env.queue.deep_clean().await.unwrap();
    assert_eq!((report.requeued, report.removed), (0, 0), "{report:?}");
    env.queue.light_clean().await.unwrap();
    assert_eq!(env.lease_ids(10).await, ["a"]);
    assert_eq!(
        env.queue.get("b").await.unwrap().unwrap().state,
        State::Waiting
    );
}

async fn a_bad_group_is_refused_before_anything_is_written(env: Env) {
    for (group, why) in [
        ("", "empty"),
        ("a\nb", "control"),
        (&"x".repeat(257)[..], "long"),
    ] {
        let err = env.queue.add(&grouped("i", group)).await.unwrap_err();
        assert_invalid(&err, "group", why);
        let err = env.queue.pause_group(group).await.unwrap_err();
        assert_invalid(&err, "group", why);
    }
    let err = env
        .queue
        .set_config(&QueueConfig::new().group_concurrency(0))
        .await
        .unwrap_err();
    assert_invalid(&err, "group_concurrency", "");
    assert!(env.keys().await.is_empty(), "nothing written");
}

async fn a_drained_grouped_queue_keeps_only_group_settings(env: Env) {
    for i in 0..4 {
        env.queue
            .add(&grouped(&format!("d{i}"), &format!("g{}", i % 2)))
            .await
            .unwrap();
    }
    loop {
        let leases = env.queue.lease_batch(10, TTL, Wait::No).await.unwrap();
        if leases.is_empty() {
            break;
        }
        for l in leases {
            assert!(env.queue.complete(&l).await.unwrap());
        }
    }
    let keys = env.keys().await;
    assert!(
        keys.iter()
            .all(|k| *k == env.key("wake") || *k == env.key("group_seq")),
        "only P:wake (which expires) and the groups' order of queueing are left: {keys:?}"
    );
}
