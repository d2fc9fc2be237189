//! What a job browser reads (spec/PROTOCOL.md 5.12, 5.22): the index of kept results (`list`
//! and `count` of done items), `find`'s bounded filter, and `promote`. Every test runs against
//! a single server and against a local Redis Cluster.

use crate::common;

use std::time::Duration;

use common::{Env, TTL};
use leaseq::{Item, Retry, State, Wait};

on_both!(
    done_items_are_listed_newest_first_while_their_result_is_kept,
    the_index_of_kept_results_keeps_the_newest_ten_thousand,
    find_filters_a_bounded_stretch_at_a_time,
    promote_makes_a_delayed_item_wait_now,
);

fn item(id: &str) -> Item {
    Item::with_id(id, id.as_bytes().to_vec()).unwrap()
}

/// Leases the next item and completes it keeping `result` for `keep`.
async fn complete_keeping(env: &Env, result: &[u8], keep: Duration) -> String {
    let lease = env.lease().await.unwrap();
    assert!(env
        .queue
        .complete_with_result(&lease, Some(result), Some(keep))
        .await
        .unwrap());
    lease.id().to_owned()
}

async fn done_items_are_listed_newest_first_while_their_result_is_kept(env: Env) {
    for id in ["a", "b", "c", "d"] {
        env.add(id, b"x").await;
    }
    let day = Duration::from_secs(86_400);
    assert_eq!(complete_keeping(&env, b"ra", day).await, "a");
    assert_eq!(
        complete_keeping(&env, b"rb", Duration::from_secs(60)).await,
        "b"
    );
    // Completed without a result: nothing kept, nothing listed.
    let c = env.lease().await.unwrap();
    assert!(env.queue.complete(&c).await.unwrap());
    assert_eq!(complete_keeping(&env, b"rd", day).await, "d");
    let done = env.queue.list(State::Done, 0, 10).await.unwrap();
    let ids: Vec<&str> = done.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["d", "b", "a"]);
    assert!(done.iter().all(|e| e.attempts == 1 && e.at.is_some()));
    assert!(done[0].at >= done[2].at);
    assert_eq!(env.queue.count(State::Done).await.unwrap(), 3);
    // The index expires with the longest kept result (a day), not the last one's (a minute).
    let pttl: i64 = env
        .cmd(&[b"PTTL", format!("{}:done", env.prefix).as_bytes()])
        .await;
    assert!(pttl > 3_600_000, "{pttl}");
    assert_eq!(env.queue.list(State::Done, 1, 1).await.unwrap()[0].id, "b");
    // A result that expired is skipped at once, and dropped from the index by the next
    // complete that keeps a result (it is among the oldest two).
    let _: i64 = env
        .cmd(&[b"DEL", format!("{}:result:a", env.prefix).as_bytes()])
        .await;
    let ids: Vec<String> = env
        .queue
        .list(State::Done, 0, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, ["d", "b"]);
    assert_eq!(env.queue.count(State::Done).await.unwrap(), 3);
    env.add("e", b"x").await;
    assert_eq!(complete_keeping(&env, b"re", day).await, "e");
    assert_eq!(env.queue.count(State::Done).await.unwrap(), 3);
    let found = env
        .queue
        .find(State::Done, None, None, 0, 10)
        .await
        .unwrap();
    let ids: Vec<&str> = found.entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["e", "d", "b"]);
    assert_eq!(found.next, None);
    // Done items keep no error type: a filter on one finds none of them.
    let found = env
        .queue
        .find(State::Done, None, Some("Boom"), 0, 10)
        .await
        .unwrap();
    assert!(found.entries.is_empty());
}

async fn find_filters_a_bounded_stretch_at_a_time(env: Env) {
    // 1100 dead letters; every hundredth failed with `Rare`, the others with `Common`.
    let items: Vec<Item> = (0..1100).map(|i| item(&format!("i{i:04}"))).collect();
    env.queue.add_batch(&items).await.unwrap();
    for _ in 0..2 {
        let leases = env.queue.lease_batch(1000, TTL, Wait::No).await.unwrap();
        let failures: Vec<_> = leases
            .iter()
            .map(|l| {
                let n: usize = l.id()[1..].parse().unwrap();
                let kind = if n.is_multiple_of(100) {
                    "Rare"
                } else {
                    "Common"
                };
                (l, "failed", kind, Retry::Never)
            })
            .collect();
        env.queue.fail_batch(&failures).await.unwrap();
    }
    assert_eq!(env.queue.count(State::Dead).await.unwrap(), 1100);
    let first = env
        .queue
        .find(State::Dead, None, Some("Rare"), 0, 100)
        .await
        .unwrap();
    // At most 1000 positions per call, whatever the state's size.
    assert_eq!(first.examined, 1000);
    assert_eq!(first.entries.len(), 10);
    assert!(first
        .entries
        .iter()
        .all(|e| e.error.as_ref().unwrap().1 == "Rare"));
    assert_eq!(first.next, Some(1000));
    let rest = env
        .queue
        .find(State::Dead, None, Some("Rare"), 1000, 100)
        .await
        .unwrap();
    assert_eq!(
        (rest.examined, rest.entries.len(), rest.next),
        (100, 1, None)
    );
    // A call stops at `count` matches, and goes on right after the last one.
    let three = env
        .queue
        .find(State::Dead, None, Some("Rare"), 0, 3)
        .await
        .unwrap();
    assert_eq!(three.entries.len(), 3);
    let after = three.next.unwrap();
    let next = env
        .queue
        .find(State::Dead, None, Some("Rare"), after, 1)
        .await
        .unwrap();
    assert!(next.entries[0].id > three.entries[2].id);
    // By name: the field `name` of the item's record (spec 2), as an add with a name writes it.
    let _: i64 = env
        .cmd(&[
            b"HSET",
            format!("{}:job:i0105", env.prefix).as_bytes(),
            b"name",
            b"send_email",
        ])
        .await;
    let named = env
        .queue
        .find(State::Dead, Some("send_email"), None, 0, 100)
        .await
        .unwrap();
    assert_eq!(named.next, Some(1000));
    assert_eq!(named.entries.len(), 1);
    assert_eq!(named.entries[0].id, "i0105");
    assert_eq!(named.entries[0].name.as_deref(), Some("send_email"));
    let both = env
        .queue
        .find(State::Dead, Some("send_email"), Some("Rare"), 0, 100)
        .await
        .unwrap();
    assert!(both.entries.is_empty(), "i0105 failed with `Common`");
    let page = env.queue.list(State::Dead, 105, 1).await.unwrap();
    assert_eq!(page[0].name.as_deref(), Some("send_email"));
    // A name no item has: nothing, after a bounded look.
    let none = env
        .queue
        .find(State::Dead, Some("nosuch"), None, 0, 100)
        .await
        .unwrap();
    assert_eq!((none.entries.len(), none.examined), (0, 1000));
    // Waiting items are filtered in lease order too.
    env.add("w", b"x").await;
    let waiting = env
        .queue
        .find(State::Waiting, None, None, 0, 10)
        .await
        .unwrap();
    assert_eq!(waiting.entries[0].id, "w");
    assert_eq!(waiting.next, None);
    assert!(env
        .queue
        .find(State::Dead, None, None, 0, 1001)
        .await
        .is_err());
}

async fn promote_makes_a_delayed_item_wait_now(env: Env) {
    env.queue
        .add(&item("later").priority(2).delay(Duration::from_secs(3600)))
        .await
        .unwrap();
    env.add("now", b"x").await;
    assert!(!env.queue.promote("now").await.unwrap());
    assert!(!env.queue.promote("nosuch").await.unwrap());
    assert_eq!(env.queue.count(State::Delayed).await.unwrap(), 1);
    assert!(env.queue.promote("later").await.unwrap());
    assert_eq!(env.queue.count(State::Delayed).await.unwrap(), 0);
    assert_eq!(
        env.queue.get("later").await.unwrap().unwrap().state,
        State::Waiting
    );
    // At its priority: before the item of priority 0, with its data back.
    let lease = env.lease().await.unwrap();
    assert_eq!((lease.id(), lease.data()), ("later", &b"later"[..]));
    assert!(!env.queue.promote("later").await.unwrap());
}

async fn the_index_of_kept_results_keeps_the_newest_ten_thousand(env: Env) {
    let items: Vec<Item> = (0..10_005).map(|i| item(&format!("r{i:05}"))).collect();
    for chunk in items.chunks(1000) {
        env.queue.add_batch(chunk).await.unwrap();
    }
    loop {
        let leases = env.queue.lease_batch(1000, TTL, Wait::No).await.unwrap();
        if leases.is_empty() {
            break;
        }
        let completions: Vec<leaseq::Completion<'_>> = leases
            .iter()
            .map(|l| (l, Some((&b"ok"[..], None))))
            .collect();
        let done = env.queue.complete_batch(&completions).await.unwrap();
        assert!(done.iter().all(|d| *d));
    }
    // Each complete that keeps a result drops the oldest beyond 10,000.
    assert_eq!(env.queue.count(State::Done).await.unwrap(), 10_000);
    let oldest = env.queue.list(State::Done, 9_999, 10).await.unwrap();
    assert_eq!(oldest.len(), 1);
    assert_eq!(oldest[0].id, "r00005");
    let newest = env.queue.list(State::Done, 0, 1).await.unwrap();
    assert_eq!(newest[0].id, "r10004");
}
