//! Flow control (spec/PROTOCOL.md 5.17 and 5.18): pausing and resuming a queue, and bounded
//! queues with the FULL error and adds that wait for room. Every test runs against a single
//! server and against a local Redis Cluster.

use crate::common;

use std::time::Duration;

use common::{assert_invalid, Env, TTL};
use leaseq::{ErrorCode, Item, QueueConfig, RateLimit, Retry, State, Wait};

on_both!(
    a_paused_queue_leases_nothing_and_keeps_adding,
    redis_work_queue_takes_nothing_from_a_paused_queue,
    resume_keeps_the_order_of_held_and_new_items,
    a_resume_after_many_foreign_adds_merges_in_bounded_steps,
    a_waiting_lease_wakes_on_resume,
    retries_and_due_items_of_a_paused_queue_wait_for_the_resume,
    deep_clean_leaves_held_items_alone,
    pause_survives_every_client,
    a_full_queue_refuses_adds_and_writes_nothing,
    a_batch_fits_whole_or_not_at_all,
    add_wait_gets_room_when_a_lease_makes_it,
    add_wait_gives_up_at_its_deadline,
    capacity_below_the_queue_is_refused,
    a_rate_limit_counts_leases_of_every_client_per_window,
    a_limited_waiting_lease_sleeps_until_the_window_ends,
    rate_limit_holds_every_lease_off,
    a_rate_limit_is_refused_when_out_of_bounds,
);

fn item(id: &str) -> Item {
    Item::with_id(id, id.as_bytes().to_vec()).unwrap()
}

async fn a_paused_queue_leases_nothing_and_keeps_adding(env: Env) {
    env.add("a", b"1").await;
    env.queue.add(&item("p").priority(5)).await.unwrap();
    assert!(!env.queue.is_paused().await.unwrap());
    assert!(env.queue.pause().await.unwrap(), "it was running");
    assert!(!env.queue.pause().await.unwrap(), "already paused");
    assert!(env.queue.is_paused().await.unwrap());
    assert!(env.add("b", b"2").await, "adds go on while paused");
    assert!(env.lease().await.is_none());
    assert!(env.lease_ids(10).await.is_empty());
    let stats = env.queue.stats().await.unwrap();
    assert!(stats.paused);
    assert_eq!(stats.waiting, 3, "held items still count as waiting");
    assert_eq!(env.queue.queue_len().await.unwrap(), 3);
    assert!(env.queue.resume().await.unwrap(), "it was paused");
    assert!(!env.queue.resume().await.unwrap(), "already running");
    assert!(!env.queue.stats().await.unwrap().paused);
    assert_eq!(env.lease_ids(10).await, ["p", "a", "b"]);
}

async fn redis_work_queue_takes_nothing_from_a_paused_queue(env: Env) {
    env.add("a", b"").await;
    env.queue.pause().await.unwrap();
    env.add("b", b"").await;
    assert_eq!(env.foreign_lease().await, None, "no id on P:queue");
    assert!(!env.exists("queue").await);
    // A redis-work-queue producer's id lands on P:queue; the next lease hides it at once, so
    // that a waiting lease does not find P:queue holding an element and wake again and again.
    env.cmd::<String>(&[b"SET", env.key("item:c").as_bytes(), b"x"])
        .await;
    env.cmd::<i64>(&[b"LPUSH", env.key("queue").as_bytes(), b"c"])
        .await;
    assert!(env.lease().await.is_none());
    assert!(
        !env.exists("queue").await,
        "moved to P:held by the paused lease"
    );
    env.queue.resume().await.unwrap();
    assert_eq!(env.foreign_lease().await.as_deref(), Some("a"));
    assert_eq!(env.foreign_lease().await.as_deref(), Some("b"));
    assert_eq!(env.foreign_lease().await.as_deref(), Some("c"));
}

async fn resume_keeps_the_order_of_held_and_new_items(env: Env) {
    for id in ["h1", "h2"] {
        env.add(id, b"").await;
    }
    env.queue.pause().await.unwrap();
    env.add("h3", b"").await;
    // A redis-work-queue producer knows nothing of the pause: its ids land on P:queue.
    for id in ["r1", "r2"] {
        env.cmd::<String>(&[b"SET", env.key(&format!("item:{id}")).as_bytes(), b"x"])
            .await;
        env.cmd::<i64>(&[b"LPUSH", env.key("queue").as_bytes(), id.as_bytes()])
            .await;
    }
    env.queue.resume().await.unwrap();
    assert!(!env.exists("held").await, "one list again");
    assert_eq!(
        env.lease_ids(10).await,
        ["h1", "h2", "h3", "r1", "r2"],
        "held items first, each list in its order"
    );
}

async fn a_resume_after_many_foreign_adds_merges_in_bounded_steps(env: Env) {
    env.add("first", b"").await;
    env.queue.pause().await.unwrap();
    // More ids than one resume moves: 1500 pushed by a redis-work-queue producer meanwhile.
    let mut pipe = redis::pipe();
    for i in 0..1500 {
        pipe.cmd("SET")
            .arg(env.key(&format!("item:r{i}")))
            .arg("x")
            .ignore();
        pipe.cmd("LPUSH")
            .arg(env.key("queue"))
            .arg(format!("r{i}"))
            .ignore();
    }
    let _: () = pipe.query_async(&mut env.raw.clone()).await.unwrap();
    env.queue.resume().await.unwrap();
    assert!(
        env.exists("held").await,
        "the merge goes on in the leases' housekeeping"
    );
    let mut ids = Vec::new();
    loop {
        let batch = env.lease_ids(1000).await;
        if batch.is_empty() {
            break;
        }
        ids.extend(batch);
    }
    let want: Vec<String> = std::iter::once("first".to_owned())
        .chain((0..1500).map(|i| format!("r{i}")))
        .collect();
    assert_eq!(ids, want, "every id once, in order");
    assert!(!env.exists("held").await && !env.exists("queue").await);
}

async fn a_waiting_lease_wakes_on_resume(env: Env) {
    env.queue.pause().await.unwrap();
    env.add("a", b"").await;
    let waiting = env.waiting_lease().await;
    assert!(!waiting.is_finished(), "nothing is leased while paused");
    env.queue.resume().await.unwrap();
    // No timing assertion: the wait's own slice is 10 s, so a lease before the test's
    // default timeout shows the resume woke it (or a slice ended), and either way it leases.
    let lease = waiting
        .await
        .unwrap()
        .unwrap()
        .expect("leased after the resume");
    assert_eq!(lease.id(), "a");
}

async fn retries_and_due_items_of_a_paused_queue_wait_for_the_resume(env: Env) {
    env.add("r", b"").await;
    env.queue
        .add(&item("d").delay(Duration::from_millis(50)))
        .await
        .unwrap();
    let lease = env.lease().await.unwrap();
    env.queue.pause().await.unwrap();
    env.queue
        .fail(&lease, "boom", "", Retry::After(Duration::ZERO))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    env.queue.light_clean().await.unwrap();
    assert!(env.lease().await.is_none());
    assert_eq!(env.foreign_lease().await, None);
    assert_eq!(env.queue.count(State::Waiting).await.unwrap(), 2);
    env.queue.resume().await.unwrap();
    let mut ids = env.lease_ids(10).await;
    ids.sort();
    assert_eq!(ids, ["d", "r"]);
}

async fn deep_clean_leaves_held_items_alone(env: Env) {
    for id in ["a", "b"] {
        env.add(id, b"").await;
    }
    env.queue.pause().await.unwrap();
    let report = env.queue.deep_clean().await.unwrap();
    assert_eq!(report.requeued, 0, "held items are on a list");
    assert!(!env.exists("queue").await);
    env.queue.resume().await.unwrap();
    assert_eq!(env.lease_ids(10).await, ["a", "b"]);
}

async fn pause_survives_every_client(env: Env) {
    env.add("a", b"").await;
    env.queue.pause().await.unwrap();
    let other = env.other_client().await;
    let queue = other.queue(&env.prefix).unwrap();
    assert!(queue.is_paused().await.unwrap());
    assert!(queue.lease(TTL, Wait::No).await.unwrap().is_none());
    assert!(queue.resume().await.unwrap());
    assert!(env.lease().await.is_some());
}

async fn a_full_queue_refuses_adds_and_writes_nothing(env: Env) {
    env.queue
        .set_config(&QueueConfig::new().capacity(2))
        .await
        .unwrap();
    assert_eq!(env.queue.stats().await.unwrap().capacity, Some(2));
    env.add("a", b"").await;
    env.queue
        .add(&item("d").delay(Duration::from_secs(60)))
        .await
        .unwrap();
    let before = env.keys().await;
    let err = env.queue.add(&item("c")).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Full, "{err}");
    assert!(!err.is_retryable());
    // Said once, without the reply's code and quotes.
    assert_eq!(
        err.to_string(),
        format!(
            "the queue is full; nothing was added: the queue {} holds 2 of its capacity 2; 1 more \
             do not fit",
            env.prefix
        ),
    );
    assert_eq!(env.keys().await, before, "nothing written");
    // An existing id needs no room: it is not added, and says so.
    assert!(!env.queue.add(&item("a")).await.unwrap_or(true));
    // A lease makes room.
    let lease = env.lease().await.unwrap();
    assert!(env.queue.add(&item("c")).await.unwrap());
    env.queue.complete(&lease).await.unwrap();
}

async fn a_batch_fits_whole_or_not_at_all(env: Env) {
    env.queue
        .set_config(&QueueConfig::new().capacity(3))
        .await
        .unwrap();
    env.add("a", b"").await;
    let batch: Vec<Item> = ["b", "c", "d"].iter().map(|id| item(id)).collect();
    let err = env.queue.add_batch(&batch).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Full);
    assert_eq!(env.queue.queue_len().await.unwrap(), 1, "none of the batch");
    assert_eq!(env.queue.add_batch(&batch[..2]).await.unwrap(), 2);
    assert_eq!(env.queue.queue_len().await.unwrap(), 3);
}

async fn add_wait_gets_room_when_a_lease_makes_it(env: Env) {
    env.queue
        .set_config(&QueueConfig::new().capacity(1))
        .await
        .unwrap();
    env.add("a", b"").await;
    let queue = env.queue.clone();
    let producer = tokio::spawn(async move {
        queue
            .add_wait(&item("b"), Wait::Timeout(Duration::from_secs(60)))
            .await
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!producer.is_finished(), "no room yet");
    let lease = env.lease().await.unwrap();
    assert!(producer.await.unwrap().unwrap(), "added once room was made");
    assert_eq!(env.queue.count(State::Waiting).await.unwrap(), 1);
    env.queue.complete(&lease).await.unwrap();
}

async fn add_wait_gives_up_at_its_deadline(env: Env) {
    env.queue
        .set_config(&QueueConfig::new().capacity(1))
        .await
        .unwrap();
    env.add("a", b"").await;
    let err = env
        .queue
        .add_wait(&item("b"), Wait::Timeout(Duration::from_millis(100)))
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Full);
    let err = env
        .queue
        .add_batch_wait(&[item("b")], Wait::No)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Full);
    assert_eq!(env.queue.queue_len().await.unwrap(), 1);
}

async fn capacity_below_the_queue_is_refused(env: Env) {
    for id in ["a", "b", "c"] {
        env.add(id, b"").await;
    }
    let err = env
        .queue
        .set_config(&QueueConfig::new().capacity(2).max_attempts(3))
        .await
        .unwrap_err();
    assert_invalid(&err, "capacity", "");
    assert_eq!(
        env.queue.config().await.unwrap(),
        QueueConfig::new(),
        "nothing written"
    );
    let err = env
        .queue
        .set_config(&QueueConfig::new().capacity(0))
        .await
        .unwrap_err();
    assert_invalid(&err, "capacity", "");
    env.queue
        .set_config(&QueueConfig::new().capacity(3))
        .await
        .unwrap();
    assert_eq!(env.queue.config().await.unwrap().capacity, Some(3));
}

async fn limit(env: &Env, max: u64, per: Duration) {
    env.queue
        .set_config(&QueueConfig::new().rate_limit(RateLimit::new(max, per)))
        .await
        .unwrap();
}

async fn a_rate_limit_counts_leases_of_every_client_per_window(env: Env) {
    limit(&env, 3, Duration::from_secs(60)).await;
    for i in 0..8 {
        env.add(&format!("i{i}"), b"").await;
    }
    // A window's first batch is capped too.
    assert_eq!(env.lease_ids(10).await.len(), 3);
    assert!(env.lease().await.is_none(), "the window is used up");
    // A new window (its key gone as at its end).
    env.cmd::<i64>(&[b"DEL", env.key("limit").as_bytes()]).await;
    assert_eq!(env.lease_ids(2).await.len(), 2);
    // Another client shares the window: one lease is left in it, whatever the batch asks.
    let other = env.other_client().await.queue(&env.prefix).unwrap();
    assert_eq!(other.lease_batch(10, TTL, Wait::No).await.unwrap().len(), 1);
    assert!(env.lease().await.is_none(), "the window is used up");
    let stats = env.queue.stats().await.unwrap();
    let left = stats.rate_limited_for.expect("limited");
    assert!(
        left <= Duration::from_secs(60) && left > Duration::ZERO,
        "{left:?}"
    );
    assert_eq!(stats.waiting, 2);
    assert_eq!(
        env.queue.config().await.unwrap().rate_limit,
        Some(RateLimit::new(3, Duration::from_secs(60)))
    );
}

async fn a_limited_waiting_lease_sleeps_until_the_window_ends(env: Env) {
    limit(&env, 1, Duration::from_millis(300)).await;
    env.add("a", b"").await;
    env.add("b", b"").await;
    assert_eq!(env.lease_ids(1).await, ["a"]);
    // The next lease waits for the window to end (no assertion on how long), then gets "b".
    let lease = env
        .queue
        .lease(TTL, Wait::Timeout(Duration::from_secs(30)))
        .await
        .unwrap()
        .expect("leased in the next window");
    assert_eq!(lease.id(), "b");
    // A wait shorter than the window gives up with nothing.
    limit(&env, 1, Duration::from_secs(60)).await;
    env.add("c", b"").await;
    env.add("d", b"").await;
    let first = env.lease().await;
    let second = env
        .queue
        .lease(TTL, Wait::Timeout(Duration::from_millis(50)))
        .await
        .unwrap();
    assert!(
        first.is_none() || second.is_none(),
        "one lease per window at most"
    );
}

async fn rate_limit_holds_every_lease_off(env: Env) {
    env.add("a", b"").await;
    let held = env.queue.rate_limit(Duration::from_secs(60)).await.unwrap();
    assert!(held >= Duration::from_secs(60));
    // A shorter hold keeps the longer one.
    let held = env
        .queue
        .rate_limit(Duration::from_millis(10))
        .await
        .unwrap();
    assert!(held > Duration::from_secs(50), "{held:?}");
    assert!(env.lease().await.is_none());
    assert!(env.queue.stats().await.unwrap().rate_limited_for.is_some());
    // Nothing else changes: adds go on, and the hold ends with its time.
    env.add("b", b"").await;
    env.cmd::<i64>(&[b"PEXPIRE", env.key("limit").as_bytes(), b"1"])
        .await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(env.lease_ids(10).await, ["a", "b"]);
    assert!(env.queue.stats().await.unwrap().rate_limited_for.is_none());
}

async fn a_rate_limit_is_refused_when_out_of_bounds(env: Env) {
    for (max, per) in [
        (0, Duration::from_secs(1)),
        (1, Duration::ZERO),
        (1, Duration::from_secs(2 * 86_400)),
    ] {
        let err = env
            .queue
            .set_config(&QueueConfig::new().rate_limit(RateLimit::new(max, per)))
            .await
            .unwrap_err();
        assert_invalid(&err, "rate_limit", "");
    }
    let err = env.queue.rate_limit(Duration::ZERO).await.unwrap_err();
    assert_invalid(&err, "duration", "");
    assert!(env.keys().await.is_empty(), "nothing written");
}
