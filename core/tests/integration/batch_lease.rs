//! The batch shortcut of a lease (spec/PROTOCOL.md 4.4, "A batch of plain leases"): a busy
//! runner's `lease_batch` of plain items leases them without the type checks of the general
//! loop, so these check that it gives what the loop gives (order, tokens, attempts, job
//! records), that anything irregular in the batch is left to the loop, and that a refused call
//! still changes nothing. Every test runs against a single server and a local Cluster.

use crate::common;

use common::{Env, TTL};
use leaseq::{Error, State, Wait};

on_both!(
    a_batch_of_plain_items_is_leased_in_order_with_the_loops_tokens,
    a_batch_with_irregular_ids_leases_what_the_loop_leases,
    a_batch_refused_for_its_leased_set_changes_nothing,
);

async fn a_batch_of_plain_items_is_leased_in_order_with_the_loops_tokens(env: Env) {
    for id in ["a", "b", "c", "d"] {
        assert!(env.add(id, id.as_bytes()).await);
    }
    let leases = env.queue.lease_batch(3, TTL, Wait::No).await.unwrap();
    let ids: Vec<&str> = leases.iter().map(|l| l.id()).collect();
    assert_eq!(ids, ["a", "b", "c"], "first in, first leased");
    let first = leases[0].token().to_owned();
    for (k, lease) in leases.iter().enumerate() {
        let want = if k == 0 {
            first.clone()
        } else {
            format!("{first}.{}", k + 1)
        };
        assert_eq!(lease.token(), want, "the k-th lease's token (4.4)");
        assert_eq!(
            lease.incarnation(),
            want,
            "a first lease's incarnation is its token"
        );
        assert_eq!(lease.attempt(), 1);
        assert_eq!(lease.data(), lease.id().as_bytes());
        let stored: String = env
            .cmd(&[b"GET", env.key(&format!("lease:{}", lease.id())).as_bytes()])
            .await;
        assert_eq!(stored, want);
        let info = env.queue.get(lease.id()).await.unwrap().unwrap();
        assert_eq!(info.state, State::Leased);
        assert_eq!(info.attempts, 1);
    }
    let leased: Vec<String> = env
        .cmd(&[b"ZRANGE", env.key("leased").as_bytes(), b"0", b"-1"])
        .await;
    assert_eq!(leased.len(), 3, "every lease tracked: {leased:?}");
    assert_eq!(env.list("queue").await, ["d"]);
    for lease in &leases {
        assert!(env.queue.complete(lease).await.unwrap());
    }
    // Fewer waiting than wanted: the loop takes them (and finds the queue empty after).
    assert_eq!(env.lease_ids(3).await, ["d"]);
}

async fn a_batch_with_irregular_ids_leases_what_the_loop_leases(env: Env) {
    assert!(env.add("a", b"a").await);
    // An id with no item (a redis-work-queue complete raced its push), a copy of a waiting id,
    // and an id whose lease somebody holds: the loop drops each and goes on.
    env.cmd::<i64>(&[b"LPUSH", env.key("queue").as_bytes(), b"ghost"])
        .await;
    assert!(env.add("b", b"b").await);
    env.cmd::<i64>(&[b"LPUSH", env.key("queue").as_bytes(), b"b"])
        .await;
    assert!(env.add("held", b"h").await);
    env.cmd::<String>(&[b"SET", env.key("lease:held").as_bytes(), b"other"])
        .await;
    assert!(env.add("c", b"c").await);
    assert!(env.add("d", b"d").await);
    let leases = env.queue.lease_batch(4, TTL, Wait::No).await.unwrap();
    let ids: Vec<&str> = leases.iter().map(|l| l.id()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    for lease in &leases {
        assert!(env.queue.complete(lease).await.unwrap(), "{}", lease.id());
    }
    // The held copy went to processing, where a light clean finds it if its holder dies.
    assert_eq!(env.list("processing").await, ["held"]);
    assert!(env.list("queue").await.is_empty());
    let lease_key: String = env.cmd(&[b"GET", env.key("lease:held").as_bytes()]).await;
    assert_eq!(lease_key, "other", "the holder's lease is untouched");
}

async fn a_batch_refused_for_its_leased_set_changes_nothing(env: Env) {
    for id in ["a", "b", "c", "d"] {
        assert!(env.add(id, id.as_bytes()).await);
    }
    env.cmd::<String>(&[b"SET", env.key("leased").as_bytes(), b"not ours"])
        .await;
    let before = env.keys().await;
    let queue = env.list("queue").await;
    let refused = env.queue.lease_batch(3, TTL, Wait::No).await.unwrap_err();
    assert!(matches!(refused, Error::WrongType { .. }), "{refused:?}");
    assert_eq!(env.keys().await, before, "no lease key or job record left");
    assert_eq!(
        env.list("queue").await,
        queue,
        "the ids back in their order"
    );
    env.cmd::<i64>(&[b"DEL", env.key("leased").as_bytes()])
        .await;
    assert_eq!(env.lease_ids(3).await, ["a", "b", "c"]);
}
