//! Group rate limits (spec/PROTOCOL.md 5.21): every group in its own window, a group at its
//! limit off the ring while the rest of the queue goes on, a group held off by hand, and the
//! waiting lease that wakes when a group's window ends. Every test runs against a single server
//! and against a local Redis Cluster.

use crate::common;

use std::time::Duration;

use common::{assert_invalid, Env, TTL};
use leaseq::{Item, QueueConfig, RateLimit, Wait};

on_both!(
    each_group_gets_its_own_window,
    ungrouped_items_go_on_while_groups_wait,
    a_held_group_waits_while_others_go_on,
    a_waiting_lease_wakes_when_a_window_ends,
    the_windows_leave_no_key_behind,
    bad_group_rate_limits_are_refused_before_anything_is_written,
);

fn grouped(id: &str, group: &str) -> Item {
    Item::with_id(id, id.as_bytes().to_vec())
        .unwrap()
        .group(group)
}

/// Leases and completes one at a time until nothing is leasable; the ids in lease order.
async fn drain_now(env: &Env) -> Vec<String> {
    let mut ids = Vec::new();
    while let Some(lease) = env.lease().await {
        ids.push(lease.id().to_owned());
        assert!(env.queue.complete(&lease).await.unwrap());
    }
    ids
}

/// Adds `n` items to group a (`a0`, `a1`, ...) and `n` to group b, taking turns.
async fn add_to_a_and_b(env: &Env, n: usize) {
    for i in 0..n {
        for g in ["a", "b"] {
            env.queue
                .add(&grouped(&format!("{g}{i}"), g))
                .await
                .unwrap();
        }
    }
}

async fn limited(env: &Env, max: u64, per: Duration) {
    env.queue
        .set_config(
            &QueueConfig::new()
                .group_concurrency(100)
                .group_rate_limit(RateLimit::new(max, per)),
        )
        .await
        .unwrap();
}

async fn each_group_gets_its_own_window(env: Env) {
    limited(&env, 2, Duration::from_secs(600)).await;
    add_to_a_and_b(&env, 5).await;
    let mut ids = drain_now(&env).await;
    ids.sort();
    assert_eq!(
        ids,
        ["a0", "a1", "b0", "b1"],
        "two of each group per window"
    );
    for g in ["a", "b"] {
        let info = env.queue.group(g).await.unwrap();
        assert_eq!(info.waiting, 3, "{g}");
        let left = info.rate_limited_for.expect("at its limit");
        assert!(
            left > Duration::ZERO && left <= Duration::from_secs(600),
            "{left:?}"
        );
    }
    // A group that has not leased yet has its own window.
    env.queue.add(&grouped("c0", "c")).await.unwrap();
    assert_eq!(drain_now(&env).await, ["c0"]);
    assert_eq!(
        env.queue.group("c").await.unwrap().rate_limited_for,
        None,
        "1 of 2"
    );
}

async fn ungrouped_items_go_on_while_groups_wait(env: Env) {
    limited(&env, 1, Duration::from_secs(600)).await;
    for i in 0..3 {
        env.queue
            .add(&grouped(&format!("g{i}"), "g"))
            .await
            .unwrap();
    }
    for i in 0..3 {
        assert!(env.add(&format!("p{i}"), b"x").await);
    }
    let ids = drain_now(&env).await;
    assert_eq!(
        ids.iter().filter(|i| i.starts_with('g')).count(),
        1,
        "one of the group: {ids:?}"
    );
    assert_eq!(
        ids.iter().filter(|i| i.starts_with('p')).count(),
        3,
        "every plain item: {ids:?}"
    );
    assert_eq!(env.queue.count(leaseq::State::Waiting).await.unwrap(), 2);
}

async fn a_held_group_waits_while_others_go_on(env: Env) {
    // No configured limit: a hold by hand (an API answered 429 for this customer).
    add_to_a_and_b(&env, 3).await;
    let held = env
        .queue
        .rate_limit_group("a", Duration::from_secs(600))
        .await
        .unwrap();
    assert_eq!(held, Duration::from_secs(600));
    // A shorter hold keeps the longer one in place.
    let kept = env
        .queue
        .rate_limit_group("a", Duration::from_secs(1))
        .await
        .unwrap();
    assert!(kept > Duration::from_secs(500), "{kept:?}");
    assert_eq!(drain_now(&env).await, ["b0", "b1", "b2"]);
    let info = env.queue.group("a").await.unwrap();
    assert_eq!((info.waiting, info.leased), (3, 0));
    assert!(info.rate_limited_for.unwrap() > Duration::from_secs(500));
    assert_eq!(env.queue.group("b").await.unwrap().rate_limited_for, None);
}

async fn a_waiting_lease_wakes_when_a_window_ends(env: Env) {
    limited(&env, 1, Duration::from_millis(300)).await;
    env.queue.add(&grouped("w0", "w")).await.unwrap();
    env.queue.add(&grouped("w1", "w")).await.unwrap();
    let first = env.lease().await.unwrap();
    assert_eq!(first.id(), "w0");
    assert!(env.queue.complete(&first).await.unwrap());
    assert!(env.lease().await.is_none(), "w1 waits for the window");
    // A waiting lease gets w1 once the window ends: its wait ends with the window, and its
    // housekeeping puts the group back on the ring.
    let next = env
        .queue
        .lease(TTL, Wait::Timeout(Duration::from_secs(10)))
        .await
        .unwrap()
        .expect("w1 after the window");
    assert_eq!(next.id(), "w1");
    assert!(env.queue.complete(&next).await.unwrap());
}

async fn the_windows_leave_no_key_behind(env: Env) {
    limited(&env, 1, Duration::from_millis(50)).await;
    for i in 0..3 {
        env.queue
            .add(&grouped(&format!("k{i}"), "k"))
            .await
            .unwrap();
    }
    let mut done = 0;
    while done < 3 {
        let lease = env
            .queue
            .lease(TTL, Wait::Timeout(Duration::from_secs(10)))
            .await
            .unwrap()
            .expect("the next after its window");
        assert!(env.queue.complete(&lease).await.unwrap());
        done += 1;
    }
    // After the last window: its counter expires, and a lease that finds nothing puts what is
    // left of P:group_wait back.
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert!(env.lease().await.is_none());
    let keys = env.keys().await;
    assert!(
        keys.iter().all(|k| *k == env.key("wake")
            || *k == env.key("group_seq")
            || *k == env.key("config")),
        "{keys:?}"
    );
}

async fn bad_group_rate_limits_are_refused_before_anything_is_written(env: Env) {
    for (max, per) in [
        (0, Duration::from_secs(1)),
        (1, Duration::ZERO),
        (1, Duration::from_secs(86_401)),
    ] {
        let err = env
            .queue
            .set_config(&QueueConfig::new().group_rate_limit(RateLimit::new(max, per)))
            .await
            .unwrap_err();
        assert_invalid(&err, "group_rate_limit", format!("{max} per {per:?}"));
    }
    for d in [Duration::ZERO, Duration::from_secs(86_401)] {
        let err = env.queue.rate_limit_group("g", d).await.unwrap_err();
        assert_invalid(&err, "duration", format!("{d:?}"));
    }
    let err = env
        .queue
        .rate_limit_group("", Duration::from_secs(1))
        .await
        .unwrap_err();
    assert_invalid(&err, "group", "");
    assert!(env.keys().await.is_empty(), "nothing written");
}
