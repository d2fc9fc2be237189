//! Every queue operation, against a single server and against a local Redis Cluster.

use crate::common;

use std::time::Duration;

use common::{Env, TTL};
use leaseq::{CleanReport, ErrorCode, Item, RenewOutcome, State, Wait};

on_both!(
    add_stores_data_and_queues_id,
    add_is_idempotent_by_id,
    add_unique_and_add_batch,
    lease_returns_data_token_and_count,
    lease_of_empty_queue_is_none,
    lease_drops_ids_whose_data_is_gone,
    complete_is_true_once,
    complete_and_lease_chains,
    renew_is_fenced_by_token,
    lease_count_grows_on_expiry,
    light_clean_requeues_expired,
    deep_clean_finds_orphans,
    deep_clean_on_many_items_requeues_only_orphans,
    lengths,
    drained_queue_leaves_no_key,
    blocking_lease_wakes_on_add,
    blocking_lease_times_out,
    binary_data_round_trips,
    json_helpers,
);

async fn add_stores_data_and_queues_id(env: Env) {
    let item = Item::with_id("a", b"payload".to_vec()).unwrap();
    assert!(env.queue.add(&item).await.unwrap());
    assert_eq!(env.list("queue").await, vec!["a"]);
    let data: Vec<u8> = env.cmd(&[b"GET", env.key("item:a").as_bytes()]).await;
    assert_eq!(data, b"payload");
}

async fn add_is_idempotent_by_id(env: Env) {
    let item = Item::with_id("same", b"1".to_vec()).unwrap();
    assert!(env.queue.add(&item).await.unwrap());
    let again = Item::with_id("same", b"2".to_vec()).unwrap();
    assert!(
        !env.queue.add(&again).await.unwrap(),
        "a live id is not added twice"
    );
    assert_eq!(
        env.list("queue").await,
        vec!["same"],
        "and not pushed twice"
    );
    // Still refused while leased; accepted again once complete.
    let lease = env.lease().await.unwrap();
    assert_eq!(lease.data(), b"1");
    assert!(!env.queue.add(&again).await.unwrap());
    assert!(env.queue.complete(&lease).await.unwrap());
    assert!(env.queue.add(&again).await.unwrap());
}

async fn add_unique_and_add_batch(env: Env) {
    env.queue
        .add_unique(&Item::with_id("u", b"u".to_vec()).unwrap())
        .await
        .unwrap();
    let mut items: Vec<Item> = (0..2500)
        .map(|i| Item::new(format!("{i}").into_bytes()))
        .collect();
    items.push(Item::with_id("u", b"dup".to_vec()).unwrap());
    assert_eq!(
        env.queue.add_batch(&items).await.unwrap(),
        2500,
        "the existing id is skipped"
    );
    assert_eq!(env.queue.add_batch(&[]).await.unwrap(), 0);
    assert_eq!(env.queue.queue_len().await.unwrap(), 2501);
    // FIFO: the first added is the first leased.
    let first = env.lease().await.unwrap();
    assert_eq!(first.id(), "u");
    let second = env.lease().await.unwrap();
    assert_eq!(second.data(), b"0");
}

async fn lease_returns_data_token_and_count(env: Env) {
    env.add("x", b"d").await;
    let lease = env.lease().await.unwrap();
    assert_eq!(
        (lease.id(), lease.data(), lease.count()),
        ("x", &b"d"[..], 1)
    );
    assert_eq!(lease.token().len(), 32);
    let holder: String = env.cmd(&[b"GET", env.key("lease:x").as_bytes()]).await;
    assert_eq!(holder, lease.token());
    let pttl: i64 = env.cmd(&[b"PTTL", env.key("lease:x").as_bytes()]).await;
    assert!(
        pttl > 0 && pttl <= 30_000,
        "lease expires with the TTL: {pttl}"
    );
    let expiry: f64 = env
        .cmd(&[b"ZSCORE", env.key("leased").as_bytes(), b"x"])
        .await;
    assert!(
        expiry > 1.7e12,
        "P:leased holds the expiry on the server clock"
    );
    assert!(
        env.list("processing").await.is_empty(),
        "redis-work-queue's list only"
    );
    assert!(env.list("queue").await.is_empty());
}

async fn lease_of_empty_queue_is_none(env: Env) {
    assert!(env.lease().await.is_none());
    assert!(env.keys().await.is_empty(), "an empty lease writes nothing");
}

async fn lease_drops_ids_whose_data_is_gone(env: Env) {
    // Stale ids: completed while queued, or pushed by a crashed client. More than one script
    // call's quota of 1000, so the client has to call again.
    let mut args: Vec<Vec<u8>> = vec![b"LPUSH".to_vec(), env.key("queue").into_bytes()];
    args.extend((0..1500).map(|i| format!("gone-{i}").into_bytes()));
    let refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
    env.cmd::<i64>(&refs).await;
    env.add("live", b"ok").await;
    let lease = env.lease().await.unwrap();
    assert_eq!(lease.id(), "live");
    assert!(
        env.list("processing").await.is_empty(),
        "stale ids are dropped, not moved"
    );
    assert_eq!(env.queue.count(State::Leased).await.unwrap(), 1);
    assert!(env.queue.complete(&lease).await.unwrap());
    assert!(env.lease().await.is_none());
    assert!(env.keys().await.is_empty());
}

async fn complete_is_true_once(env: Env) {
    env.add("c", b"1").await;
    let lease = env.lease().await.unwrap();
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let q = env.queue.clone();
        let l = lease.clone();
        tasks.push(tokio::spawn(async move { q.complete(&l).await.unwrap() }));
    }
    let mut wins = 0;
    for t in tasks {
        wins += t.await.unwrap() as usize;
    }
    assert_eq!(wins, 1, "exactly one of 16 concurrent completers wins");
    assert!(env.keys().await.is_empty());
}

async fn complete_and_lease_chains(env: Env) {
    for i in 0..3 {
        env.queue
            .add(&Item::with_id(format!("i{i}"), vec![i]).unwrap())
            .await
            .unwrap();
    }
    let mut lease = env.lease().await.unwrap();
    let mut seen = vec![lease.id().to_owned()];
    loop {
        let (done, next) = env.queue.complete_and_lease(&lease, TTL).await.unwrap();
        assert!(done);
        match next {
            Some(n) => {
                seen.push(n.id().to_owned());
                lease = n;
            }
            None => break,
        }
    }
    assert_eq!(seen, ["i0", "i1", "i2"]);
    let (done, next) = env.queue.complete_and_lease(&lease, TTL).await.unwrap();
    assert!(!done && next.is_none());
    assert!(env.keys().await.is_empty());
}

async fn renew_is_fenced_by_token(env: Env) {
    env.add("r", b"1").await;
    let first = env
        .queue
        .lease(Duration::from_millis(100), Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert!(env
        .queue
        .renew(&first, Duration::from_millis(150))
        .await
        .unwrap());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        env.queue.renew_outcome(&first, TTL).await.unwrap(),
        RenewOutcome::Expired
    );
    let report = env.queue.light_clean().await.unwrap();
    assert_eq!(report, common::report(1, 0));
    let second = env.lease().await.unwrap();
    assert_eq!(second.id(), "r");
    assert_eq!(second.count(), 2);
    assert!(
        !env.queue.renew(&first, TTL).await.unwrap(),
        "the old holder is fenced off"
    );
    assert_eq!(
        env.queue.renew_outcome(&first, TTL).await.unwrap(),
        RenewOutcome::TakenByAnother
    );
    assert!(env.queue.renew(&second, TTL).await.unwrap());
    // The first completer wins, even the late one; the other then learns the item is done.
    assert!(env.queue.complete(&first).await.unwrap());
    assert!(!env.queue.complete(&second).await.unwrap());
    assert_eq!(
        env.queue.renew_outcome(&second, TTL).await.unwrap(),
        RenewOutcome::Completed
    );
}

async fn lease_count_grows_on_expiry(env: Env) {
    env.add("n", b"1").await;
    for expected in 1..=3u64 {
        let lease = env.lease().await.unwrap();
        assert_eq!(lease.count(), expected);
        // Expire it now (a crashed holder), then clean.
        env.expire(&lease).await;
        assert_eq!(env.queue.light_clean().await.unwrap().requeued, 1);
    }
}

async fn light_clean_requeues_expired(env: Env) {
    let items: Vec<Item> = (0..1200)
        .map(|i| Item::with_id(format!("{i}"), vec![1]).unwrap())
        .collect();
    env.queue.add_batch(&items).await.unwrap();
    let short = Duration::from_millis(1500);
    let mut leases = env.queue.lease_batch(1000, short, Wait::No).await.unwrap();
    leases.extend(env.queue.lease_batch(200, short, Wait::No).await.unwrap());
    assert_eq!(leases.len(), 1200);
    // Every third holder "crashes" (its lease runs out); every fifth item is completed by a
    // client that leaves leaseq's record behind (a redis-work-queue complete); the rest renew.
    for (i, lease) in leases.iter().enumerate() {
        if i % 3 == 0 {
            continue;
        } else if i % 5 == 0 {
            env.cmd::<i64>(&[b"DEL", env.key(&format!("item:{}", lease.id())).as_bytes()])
                .await;
        } else {
            assert!(env.queue.renew(lease, TTL).await.unwrap());
        }
    }
    let expired = (0..1200).filter(|i| i % 3 == 0).count() as u64;
    let gone = (0..1200).filter(|i| i % 3 != 0 && i % 5 == 0).count() as u64;
    tokio::time::sleep(short + Duration::from_millis(100)).await;
    let report = env.queue.light_clean().await.unwrap();
    assert_eq!(report, common::report(expired, gone));
    assert_eq!(env.queue.queue_len().await.unwrap(), expired);
    assert_eq!(
        env.queue.count(State::Leased).await.unwrap(),
        1200 - expired - gone
    );
    assert_eq!(
        env.queue.light_clean().await.unwrap(),
        CleanReport::default(),
        "idempotent"
    );
}

async fn deep_clean_finds_orphans(env: Env) {
    // A redis-work-queue add that crashed between SET and LPUSH: data on no list.
    env.cmd::<String>(&[b"SET", env.key("item:orphan").as_bytes(), b"o"])
        .await;
    env.add("normal", b"n").await;
    assert_eq!(
        env.queue.light_clean().await.unwrap().requeued,
        0,
        "light clean cannot see it"
    );
    let report = env.queue.deep_clean().await.unwrap();
    assert_eq!(report.requeued, 1);
    let mut queued = env.list("queue").await;
    queued.sort();
    assert_eq!(queued, ["normal", "orphan"]);
    assert_eq!(
        env.queue.deep_clean().await.unwrap(),
        CleanReport::default()
    );
}

async fn lengths(env: Env) {
    for i in 0..5 {
        env.queue.add(&Item::new(vec![i])).await.unwrap();
    }
    env.lease().await.unwrap();
    env.lease().await.unwrap();
    assert_eq!(env.queue.queue_len().await.unwrap(), 3);
    assert_eq!(env.queue.count(State::Waiting).await.unwrap(), 3);
    assert_eq!(env.queue.count(State::Leased).await.unwrap(), 2);
    // processing_len counts what is being processed, by leaseq or by redis-work-queue
    // clients; queue_len counts every priority.
    assert_eq!(env.queue.processing_len().await.unwrap(), 2);
    env.foreign_lease().await.unwrap();
    assert_eq!(env.queue.processing_len().await.unwrap(), 3);
    assert_eq!(env.queue.count(State::Leased).await.unwrap(), 2);
    env.queue
        .add(&Item::new(b"urgent".to_vec()).priority(5))
        .await
        .unwrap();
    assert_eq!(env.queue.queue_len().await.unwrap(), 3);
}

async fn drained_queue_leaves_no_key(env: Env) {
    let items: Vec<Item> = (0..50).map(|i| Item::new(vec![i])).collect();
    env.queue.add_batch(&items).await.unwrap();
    // Some leases expire on the way and come back through the cleaner.
    for i in 0..50 {
        let lease = env.lease().await.unwrap();
        if i % 7 == 0 {
            env.expire(&lease).await;
            env.queue.light_clean().await.unwrap();
        } else {
            assert!(env.queue.complete(&lease).await.unwrap());
        }
    }
    while let Some(lease) = env.queue.lease(TTL, Wait::No).await.unwrap() {
        assert!(lease.count() >= 2);
        env.queue.complete(&lease).await.unwrap();
    }
    env.queue.deep_clean().await.unwrap();
    assert_eq!(env.keys().await, Vec::<String>::new());
}

async fn blocking_lease_wakes_on_add(env: Env) {
    let q = env.queue.clone();
    let waiter = tokio::spawn(async move { q.lease(TTL, Wait::Forever).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiter.is_finished());
    env.add("w", b"1").await;
    let lease = tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .expect("the waiter wakes")
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(lease.id(), "w");
}

async fn blocking_lease_times_out(env: Env) {
    let got = env
        .queue
        .lease(TTL, Wait::Timeout(Duration::from_millis(200)))
        .await
        .unwrap();
    assert!(got.is_none());
    assert!(env.keys().await.is_empty());
}

async fn binary_data_round_trips(env: Env) {
    let data: Vec<u8> = (0..=255u8).chain([0, 0, 0xff, 0xfe]).collect();
    env.queue
        .add(&Item::with_id("bin", data.clone()).unwrap())
        .await
        .unwrap();
    env.queue
        .add(&Item::with_id("empty", Vec::new()).unwrap())
        .await
        .unwrap();
    let a = env.lease().await.unwrap();
    let b = env.lease().await.unwrap();
    assert_eq!(a.data(), &data[..]);
    assert_eq!(b.data(), b"");
}

async fn json_helpers(env: Env) {
    let item = Item::from_json(&serde_json::json!({"to": "a@b", "n": [1, 2]})).unwrap();
    env.queue.add(&item).await.unwrap();
    let lease = env.lease().await.unwrap();
    let value: serde_json::Value = lease.json().unwrap();
    assert_eq!(value["to"], "a@b");
    let bad = Item::new(b"\xff not json".to_vec());
    env.queue.add(&bad).await.unwrap();
    let lease = env.lease().await.unwrap();
    assert_eq!(
        lease.json::<serde_json::Value>().unwrap_err().code(),
        ErrorCode::Json
    );
}

async fn deep_clean_on_many_items_requeues_only_orphans(env: Env) {
    // More than one window of every step: 2,500 queued, 1,200 leased, 3 orphans.
    let items: Vec<Item> = (0..3700)
        .map(|i| Item::with_id(format!("i{i}"), vec![1]).unwrap())
        .collect();
    env.queue.add_batch(&items).await.unwrap();
    for _ in 0..1200 {
        env.lease().await.unwrap();
    }
    for orphan in ["o1", "o2", "o3"] {
        env.cmd::<String>(&[b"SET", env.key(&format!("item:{orphan}")).as_bytes(), b"x"])
            .await;
    }
    assert_eq!(env.queue.deep_clean().await.unwrap(), common::report(3, 0));
    assert_eq!(
        env.queue.queue_len().await.unwrap(),
        2503,
        "no id queued twice"
    );
    assert_eq!(env.queue.count(State::Leased).await.unwrap(), 1200);
    let mut keys = env.keys().await;
    keys.retain(|k| !k.contains(":item:") && !k.contains(":lease:") && !k.contains(":job:"));
    assert_eq!(
        keys,
        vec![env.key("leased"), env.key("queue")],
        "no snapshot or suspects set is left behind"
    );
}
