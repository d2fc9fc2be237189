//! Producers (issue 27, spec/PROTOCOL.md 5.1): a batch of plain items in the compact `plain`
//! mode, and a batch with options written key by key, are the adds item by item would be.

use crate::common;

use std::time::Duration;

use common::{fresh_prefix, Env, TTL};
use leaseq::{Item, Queue, Wait};

on_both!(
    plain_batch_keeps_order_skips_taken_and_repeats,
    plain_batch_drops_a_stale_record,
    batch_with_options_is_item_by_item,
    plain_batch_over_one_call_is_idempotent,
    plain_batch_while_paused_waits_held,
    plain_call_takes_its_ids_then_their_data,
);

fn item(id: &str) -> Item {
    Item::with_id(id, format!("data-{id}").into_bytes()).unwrap()
}

/// Leases everything leasable, completing each: the ids in lease order.
async fn drain(q: &Queue) -> Vec<String> {
    let mut ids = Vec::new();
    while let Some(lease) = q.lease(TTL, Wait::No).await.unwrap() {
        ids.push(lease.id().to_owned());
        assert!(q.complete(&lease).await.unwrap());
    }
    ids
}

async fn plain_batch_keeps_order_skips_taken_and_repeats(env: Env) {
    assert!(env.add("b", b"first").await);
    let batch = ["a", "b", "c", "a", "d"].map(item);
    assert_eq!(env.queue.add_batch(&batch).await.unwrap(), 3);
    assert_eq!(env.list("queue").await, vec!["d", "c", "a", "b"]);
    let b: Vec<u8> = env.cmd(&[b"GET", env.key("item:b").as_bytes()]).await;
    assert_eq!(b, b"first", "a taken id keeps its data");
    let a: Vec<u8> = env.cmd(&[b"GET", env.key("item:a").as_bytes()]).await;
    assert_eq!(a, b"data-a");
    assert_eq!(
        env.keys().await.len(),
        5,
        "P:queue and P:item: of each, as redis-work-queue stores them"
    );
}

async fn plain_batch_drops_a_stale_record(env: Env) {
    // A record left by a redis-work-queue complete (its id in no list, no P:item:).
    let _: i64 = env
        .cmd(&[
            b"HSET",
            env.key("job:x").as_bytes(),
            b"state",
            b"waiting",
            b"attempts",
            b"3",
        ])
        .await;
    assert_eq!(
        env.queue.add_batch(&[item("x"), item("y")]).await.unwrap(),
        2
    );
    assert!(!env.exists("job:x").await, "the stale record went");
    assert_eq!(env.list("queue").await, vec!["y", "x"]);
}

/// A mixed batch: plain items, delayed, at priorities, in groups, with other options.
fn mixed() -> Vec<Item> {
    let mut items = Vec::new();
    for i in 0..40 {
        let it = item(&format!("i{i}"));
        items.push(match i % 8 {
            0 => it,
            1 => it.delay(Duration::from_secs(3600)),
            2 => it.priority(5),
            3 => it.priority(-2),
            4 => it.group(format!("g{}", i % 3)),
            5 => it.group("g1").priority(7),
            6 => it.max_attempts(3),
            _ => it.group("g2").delay(Duration::from_secs(3600)),
        });
    }
    items
}

/// The queue's keys without its prefix, and the values that do not depend on the clock or on
/// the call's incarnation: lists and sets whole, sorted sets' members in order (P:delayed's
/// sorted: due times follow the clock), the records'
/// states, group places and priorities.
async fn snapshot(env: &Env, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let pattern = format!("{}*", prefix.replace('{', "\\{").replace('}', "\\}"));
    let mut keys: Vec<String> = env.cmd(&[b"KEYS", pattern.as_bytes()]).await;
    keys.sort();
    for key in keys {
        let kind: String = env.cmd(&[b"TYPE", key.as_bytes()]).await;
        let value = match kind.as_str() {
            "list" => env
                .cmd::<Vec<String>>(&[b"LRANGE", key.as_bytes(), b"0", b"-1"])
                .await
                .join(","),
            "zset" => {
                let mut v: Vec<String> = env.cmd(&[b"ZRANGE", key.as_bytes(), b"0", b"-1"]).await;
                // Due times follow the clock, which moves between single adds.
                if key.ends_with(":delayed") {
                    v.sort();
                }
                v.join(",")
            }
            "set" => {
                let mut v: Vec<String> = env.cmd(&[b"SMEMBERS", key.as_bytes()]).await;
                v.sort();
                v.join(",")
            }
            "hash" => env
                .cmd::<Vec<Option<String>>>(&[
                    b"HMGET",
                    key.as_bytes(),
                    b"state",
                    b"group",
                    b"group_seq",
                    b"priority",
                    b"max_attempts",
                    b"attempts",
                ])
                .await
                .into_iter()
                .map(Option::unwrap_or_default)
                .collect::<Vec<_>>()
                .join(","),
            "string" => env.cmd::<String>(&[b"GET", key.as_bytes()]).await,
            other => other.to_owned(),
        };
        out.push(format!("{} = {kind} {value}", &key[prefix.len()..]));
    }
    out
}

async fn batch_with_options_is_item_by_item(env: Env) {
    let items = mixed();
    assert_eq!(env.queue.add_batch(&items).await.unwrap(), items.len());
    let twin_prefix = fresh_prefix("twin");
    let twin = env.client.queue(&twin_prefix).unwrap();
    for it in &items {
        assert!(twin.add(it).await.unwrap());
    }
    // A repeat adds nothing, in either form.
    assert_eq!(env.queue.add_batch(&items).await.unwrap(), 0);
    let batched = snapshot(&env, &env.prefix).await;
    assert_eq!(batched, snapshot(&env, &twin_prefix).await);
    assert!(
        batched.iter().any(|k| k.starts_with(":delayed = zset ")),
        "{batched:?}"
    );
    assert_eq!(drain(&env.queue).await, drain(&twin).await);
}

async fn plain_batch_over_one_call_is_idempotent(env: Env) {
    // 2,500 items: three calls of at most 1000 in one pipeline; sent again, none is added.
    let items: Vec<Item> = (0..2500).map(|i| item(&format!("p{i}"))).collect();
    assert_eq!(env.queue.add_batch(&items).await.unwrap(), 2500);
    assert_eq!(env.queue.add_batch(&items).await.unwrap(), 0);
    let queue = env.list("queue").await;
    assert_eq!(queue.len(), 2500);
    assert_eq!(queue.first().map(String::as_str), Some("p2499"));
    assert_eq!(queue.last().map(String::as_str), Some("p0"));
}

async fn plain_batch_while_paused_waits_held(env: Env) {
    // Paused, the ids wait in P:held; a taken id makes the call take its LPUSH back from there
    // (5.1) and add the others one by one: nothing is pushed twice.
    assert!(env.add("h", b"first").await);
    assert!(env.queue.pause().await.unwrap());
    assert_eq!(
        env.queue
            .add_batch(&["a", "h", "b"].map(item))
            .await
            .unwrap(),
        2
    );
    // (The pause moved the waiting `h` to P:held already.)
    assert_eq!(env.list("held").await, vec!["b", "a", "h"]);
    assert!(env.list("queue").await.is_empty());
    assert_eq!(env.queue.add_batch(&["c", "d"].map(item)).await.unwrap(), 2);
    assert_eq!(env.list("held").await, vec!["d", "c", "b", "a", "h"]);
}

async fn plain_call_takes_its_ids_then_their_data(env: Env) {
    // The wire form of mode `plain` (5.1): the call's ids, then their data in the same order.
    assert!(env.add("x0", b"loads the library").await);
    let name = format!("{}_add", env.library().await);
    let call = |values: &[&str]| {
        let mut c = redis::cmd("FCALL");
        c.arg(&name)
            .arg(2)
            .arg(env.key("lease:"))
            .arg(env.key("item:"))
            .arg(values);
        c
    };
    let mut raw = env.raw.clone();
    let added: i64 = call(&["plain", "t.0", "0", "x", "y", "data-x", "data-y"])
        .query_async(&mut raw)
        .await
        .unwrap();
    assert_eq!(added, 2);
    let y: Vec<u8> = env.cmd(&[b"GET", env.key("item:y").as_bytes()]).await;
    assert_eq!(y, b"data-y");
    // An id without its data is refused before anything is written.
    let refused: redis::RedisResult<i64> = call(&["plain", "t.0", "0", "z", "w", "data-z"])
        .query_async(&mut raw)
        .await;
    let refused = refused.expect_err("refused");
    assert!(
        refused.to_string().contains("ids, then as many data"),
        "{refused}"
    );
    assert!(!env.exists("item:z").await);
    assert_eq!(env.list("queue").await, vec!["y", "x", "x0"]);
}
