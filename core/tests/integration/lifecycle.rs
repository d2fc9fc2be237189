//! The job lifecycle (protocol v2): delays, priorities, retries and backoff, dead letters,
//! results, progress, cancel, incarnations, expiry, stats and configuration. Every test runs
//! against a single server and against a local Redis Cluster.

use crate::common;

use std::time::Duration;

use common::{Env, TTL};
use leaseq::{Backoff, FailOutcome, Item, Lease, QueueConfig, RenewOutcome, Retry, State, Wait};

on_both!(
    delayed_item_waits_for_its_due_time,
    priorities_run_highest_first_fifo_within,
    fail_retries_with_backoff_then_dead,
    fail_never_goes_dead_at_once,
    release_gives_the_attempt_back,
    older_incarnation_cannot_complete_the_new_item,
    results_are_kept_and_awaited,
    progress_is_stored_for_the_holder_only,
    cancel_in_every_state,
    expired_items_are_dead_letters,
    lease_expiry_counts_as_an_attempt,
    stats_count_states_and_minutes,
    queue_config_sets_defaults_for_every_client,
    dead_letters_are_bounded_by_count,
    lease_batch_takes_several,
    list_pages_each_state,
    drained_queue_leaves_no_key,
    light_clean_drops_an_empty_priority_level,
    drained_queue_with_counters_keeps_only_them_and_they_expire,
    a_lease_acts_only_on_its_own_queue,
    blocking_lease_wakes_for_a_priority_item,
    blocking_lease_wakes_when_a_delay_ends,
    a_waiting_lease_wakes_for_an_item_delayed_after_it_began,
    a_waiting_lease_wakes_for_a_dependant_a_complete_and_lease_delays,
    redis_work_queue_never_sees_delayed_or_dead_items,
    get_reports_times_on_the_server_clock,
    light_clean_promotes_in_bounded_calls,
    batches_complete_renew_fail_and_lease_in_one_call,
    ids_that_are_not_utf8_work_in_every_call,
    wait_result_can_wait_forever,
    wait_result_ends_when_the_item_dies,
    wait_result_waits_for_a_re_added_ids_own_result,
    complete_and_lease_keeps_a_result,
    add_refuses_bad_options_and_writes_nothing,
    batch_complete_falls_back_one_by_one,
);

const SHORT: Duration = Duration::from_millis(150);

fn item(id: &str) -> Item {
    Item::with_id(id, id.as_bytes().to_vec()).unwrap()
}

async fn delayed_item_waits_for_its_due_time(env: Env) {
    assert!(env
        .queue
        .add(&item("later").delay(Duration::from_millis(400)))
        .await
        .unwrap());
    assert!(env.lease().await.is_none(), "not due yet");
    let job = env.queue.get("later").await.unwrap().unwrap();
    assert_eq!(job.state, State::Delayed);
    assert_eq!(job.data, b"later");
    assert!(job.due_at.unwrap() > job.added_at.unwrap());
    assert!(!env.exists("item:later").await, "parked away from P:item:");
    assert_eq!(env.queue.count(State::Delayed).await.unwrap(), 1);
    tokio::time::sleep(Duration::from_millis(450)).await;
    let lease = env.lease().await.expect("due now");
    assert_eq!(lease.id(), "later");
    assert_eq!(lease.data(), b"later");
    assert_eq!(lease.attempt(), 1);
}

async fn priorities_run_highest_first_fifo_within(env: Env) {
    env.queue.add(&item("plain")).await.unwrap();
    env.queue.add(&item("high1").priority(5)).await.unwrap();
    env.queue.add(&item("low").priority(-1)).await.unwrap();
    env.queue.add(&item("high2").priority(5)).await.unwrap();
    env.queue.add(&item("top").priority(9)).await.unwrap();
    let listed: Vec<String> = env
        .queue
        .list(State::Waiting, 0, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(listed, ["top", "high1", "high2", "plain", "low"]);
    let mut order = Vec::new();
    while let Some(lease) = env.lease().await {
        order.push(lease.id().to_owned());
        assert!(env.queue.complete(&lease).await.unwrap());
    }
    assert_eq!(order, listed);
    assert_eq!(env.queue.count(State::Waiting).await.unwrap(), 0);
}

async fn fail_retries_with_backoff_then_dead(env: Env) {
    let backoff = Backoff::fixed(Duration::from_millis(100));
    env.queue
        .add(&item("flaky").max_attempts(2).backoff(backoff))
        .await
        .unwrap();
    let lease = env.lease().await.unwrap();
    assert_eq!(lease.max_attempts(), 2);
    assert_eq!(lease.backoff(), backoff);
    let outcome = env
        .queue
        .fail(&lease, "boom", "IOError", Retry::Default)
        .await
        .unwrap();
    assert_eq!(outcome, FailOutcome::Retrying(Duration::from_millis(100)));
    let job = env.queue.get("flaky").await.unwrap().unwrap();
    assert_eq!(job.state, State::Delayed);
    assert_eq!(job.error, Some(("boom".into(), "IOError".into())));
    assert!(env.lease().await.is_none(), "backing off");
    tokio::time::sleep(Duration::from_millis(150)).await;
    let lease = env.lease().await.expect("retried");
    assert_eq!(lease.attempt(), 2);
    let outcome = env
        .queue
        .fail(&lease, "boom again", "IOError", Retry::Default)
        .await
        .unwrap();
    assert_eq!(outcome, FailOutcome::Dead, "two attempts used");
    let dead = env.queue.list(State::Dead, 0, 10).await.unwrap();
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].id, "flaky");
    assert_eq!(dead[0].attempts, 2);
    assert_eq!(dead[0].error, Some(("boom again".into(), "IOError".into())));
    let job = env.queue.get("flaky").await.unwrap().unwrap();
    assert_eq!(job.state, State::Dead);
    assert_eq!(job.dead_reason.as_deref(), Some("failed 2 times"));
    assert!(
        !env.queue.add(&item("flaky")).await.unwrap(),
        "a dead item still owns its id"
    );
    // Requeue: attempts start over, and it runs again.
    assert_eq!(env.queue.dead_requeue(&["flaky", "nope"]).await.unwrap(), 1);
    let lease = env.lease().await.unwrap();
    assert_eq!((lease.id(), lease.attempt()), ("flaky", 1));
    assert_eq!(lease.data(), b"flaky");
    assert!(env.queue.complete(&lease).await.unwrap());
}

async fn fail_never_goes_dead_at_once(env: Env) {
    env.queue.add(&item("poison")).await.unwrap();
    let lease = env.lease().await.unwrap();
    assert_eq!(lease.max_attempts(), leaseq::policy::DEFAULT_MAX_ATTEMPTS);
    let outcome = env
        .queue
        .fail(&lease, "bad input", "ValueError", Retry::Never)
        .await
        .unwrap();
    assert_eq!(outcome, FailOutcome::Dead);
    assert_eq!(env.queue.count(State::Dead).await.unwrap(), 1);
    // The lease is over: a second fail or a complete changes nothing.
    assert_eq!(
        env.queue
            .fail(&lease, "again", "", Retry::Default)
            .await
            .unwrap(),
        FailOutcome::NotHeld(RenewOutcome::Expired)
    );
    assert!(!env.queue.complete(&lease).await.unwrap());
    assert_eq!(env.queue.dead_purge(None).await.unwrap(), 1);
    assert!(env.queue.get("poison").await.unwrap().is_none());
}

async fn release_gives_the_attempt_back(env: Env) {
    env.queue.add(&item("r")).await.unwrap();
    let lease = env.lease().await.unwrap();
    assert_eq!(lease.attempt(), 1);
    assert!(env.queue.release(&lease, None).await.unwrap());
    assert!(!env.queue.release(&lease, None).await.unwrap(), "once");
    let lease = env.lease().await.unwrap();
    assert_eq!(lease.attempt(), 1, "a release is not a failure");
    assert!(env
        .queue
        .release(&lease, Some(Duration::from_millis(200)))
        .await
        .unwrap());
    assert_eq!(
        env.queue.get("r").await.unwrap().unwrap().state,
        State::Delayed
    );
    assert!(env.lease().await.is_none());
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(env.lease().await.unwrap().attempt(), 1);
}

/// The defect of issue 10: a stalled worker's late complete deleted a re-added item.
async fn older_incarnation_cannot_complete_the_new_item(env: Env) {
    env.add("report-7", b"v1").await;
    let a = env.queue.lease(SHORT, Wait::No).await.unwrap().unwrap();
    tokio::time::sleep(SHORT + Duration::from_millis(50)).await;
    // B's lease recovers the expired one itself (no cleaner), then completes.
    let b = env.lease().await.expect("recovered without a cleaner");
    assert_eq!((b.id(), b.attempt()), ("report-7", 2));
    assert!(env.queue.complete(&b).await.unwrap());
    assert!(env.add("report-7", b"v2").await, "the id is free again");
    assert!(
        !env.queue.complete(&a).await.unwrap(),
        "A is of an older incarnation"
    );
    assert_eq!(
        env.queue.renew_outcome(&a, TTL).await.unwrap(),
        RenewOutcome::OlderIncarnation
    );
    let c = env.lease().await.expect("the new item is still there");
    assert_eq!(c.data(), b"v2");
    assert_eq!(c.attempt(), 1);
    assert_ne!(c.incarnation(), a.incarnation());
    assert_eq!(
        env.queue.renew_outcome(&a, TTL).await.unwrap(),
        RenewOutcome::OlderIncarnation
    );
    assert_eq!(
        env.queue.fail(&a, "x", "", Retry::Default).await.unwrap(),
        FailOutcome::NotHeld(RenewOutcome::OlderIncarnation)
    );
    assert!(!env.queue.release(&a, None).await.unwrap());
    assert!(env.queue.complete(&c).await.unwrap());
}

async fn results_are_kept_and_awaited(env: Env) {
    env.add("calc", b"2+2").await;
    assert!(env.queue.result("calc").await.unwrap().is_none());
    let queue = env.queue.clone();
    let waiter = tokio::spawn(async move {
        queue
            .wait_result("calc", Duration::from_secs(10))
            .await
            .unwrap()
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let lease = env.lease().await.unwrap();
    assert!(env
        .queue
        .complete_with_result(&lease, Some(b"4".as_slice()), Some(Duration::from_secs(60)))
        .await
        .unwrap());
    let got = waiter.await.unwrap().expect("woken by the result");
    assert_eq!(got.data, b"4");
    assert_eq!(got.attempts, 1);
    let job = env.queue.get("calc").await.unwrap().unwrap();
    assert_eq!(job.state, State::Done);
    assert_eq!(job.result.unwrap().data, b"4");
    let ttl: i64 = env.cmd(&[b"PTTL", env.key("result:calc").as_bytes()]).await;
    assert!(ttl > 0 && ttl <= 60_000, "kept with a TTL: {ttl}");
    assert!(env
        .queue
        .wait_result("never", Duration::from_millis(100))
        .await
        .unwrap()
        .is_none());
}

async fn progress_is_stored_for_the_holder_only(env: Env) {
    env.add("p", b"").await;
    let lease = env.lease().await.unwrap();
    assert!(env.queue.progress(&lease, b"50%").await.unwrap());
    let job = env.queue.get("p").await.unwrap().unwrap();
    assert_eq!(job.progress.as_deref(), Some(&b"50%"[..]));
    assert_eq!(job.state, State::Leased);
    assert!(job.lease_ttl.is_some());
    assert!(env.queue.complete(&lease).await.unwrap());
    assert!(!env.queue.progress(&lease, b"100%").await.unwrap());
}

async fn cancel_in_every_state(env: Env) {
    env.add("w", b"").await;
    env.queue
        .add(&item("d").delay(Duration::from_secs(60)))
        .await
        .unwrap();
    env.add("l", b"").await;
    env.add("x", b"").await;
    assert_eq!(env.queue.cancel("w").await.unwrap(), Some(State::Waiting));
    assert_eq!(env.queue.cancel("d").await.unwrap(), Some(State::Delayed));
    let lease = env.lease().await.unwrap();
    assert_eq!(lease.id(), "l", "the cancelled waiting id was dropped");
    assert_eq!(env.queue.cancel("l").await.unwrap(), Some(State::Leased));
    assert_eq!(
        env.queue.renew_outcome(&lease, TTL).await.unwrap(),
        RenewOutcome::Cancelled
    );
    assert!(!env.queue.complete(&lease).await.unwrap());
    assert!(
        env.queue.get("l").await.unwrap().is_none(),
        "removed on report"
    );
    let x = env.lease().await.unwrap();
    env.queue.fail(&x, "e", "", Retry::Never).await.unwrap();
    assert_eq!(env.queue.cancel("x").await.unwrap(), Some(State::Dead));
    assert_eq!(env.queue.cancel("x").await.unwrap(), None);
    assert!(env.lease().await.is_none());
    assert!(env.keys().await.is_empty());
}

async fn expired_items_are_dead_letters(env: Env) {
    env.queue
        .add(&item("stale").expires_after(Duration::from_millis(100)))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert!(env.lease().await.is_none());
    let job = env.queue.get("stale").await.unwrap().unwrap();
    assert_eq!(job.state, State::Dead);
    assert_eq!(
        job.dead_reason.as_deref(),
        Some("expired before it started")
    );
}

async fn lease_expiry_counts_as_an_attempt(env: Env) {
    env.queue.add(&item("slow").max_attempts(2)).await.unwrap();
    let first = env.queue.lease(SHORT, Wait::No).await.unwrap().unwrap();
    tokio::time::sleep(SHORT + Duration::from_millis(50)).await;
    let second = env.queue.lease(SHORT, Wait::No).await.unwrap().unwrap();
    assert_eq!(second.attempt(), 2);
    assert_eq!(
        env.queue.renew_outcome(&first, TTL).await.unwrap(),
        RenewOutcome::TakenByAnother
    );
    tokio::time::sleep(SHORT + Duration::from_millis(50)).await;
    let report = env.queue.light_clean().await.unwrap();
    assert_eq!((report.dead, report.requeued), (1, 0));
    let job = env.queue.get("slow").await.unwrap().unwrap();
    assert_eq!(job.state, State::Dead);
    assert_eq!(job.dead_reason.as_deref(), Some("lease expired 2 times"));
    assert_eq!(
        env.queue.renew_outcome(&second, TTL).await.unwrap(),
        RenewOutcome::Expired
    );
}

async fn stats_count_states_and_minutes(env: Env) {
    // Counters are off by default: stats says so rather than showing zeros.
    env.add("z", b"").await;
    let z = env.lease().await.unwrap();
    assert!(env.queue.complete(&z).await.unwrap());
    let off = env.queue.stats().await.unwrap();
    assert_eq!((off.last_hour(), off.minutes), (None, None));
    assert_eq!(env.keys().await, Vec::<String>::new(), "no counter written");
    env.queue
        .set_config(&QueueConfig::new().stats(true))
        .await
        .unwrap();
    env.add("a", b"").await;
    env.add("b", b"").await;
    env.queue
        .add(&item("c").delay(Duration::from_secs(60)))
        .await
        .unwrap();
    let a = env.lease().await.unwrap();
    assert!(env.queue.complete(&a).await.unwrap());
    let b = env.lease().await.unwrap();
    env.queue.fail(&b, "e", "", Retry::Never).await.unwrap();
    env.add("d", b"").await;
    env.add("e", b"").await;
    let _held = env.lease().await.unwrap();
    let stats = env.queue.stats().await.unwrap();
    assert_eq!(
        (stats.waiting, stats.delayed, stats.leased, stats.dead),
        (1, 1, 1, 1)
    );
    assert_eq!(stats.minutes.as_ref().map(Vec::len), Some(60));
    let hour = stats.last_hour().unwrap();
    assert_eq!(
        (hour.completed, hour.failed, hour.dead),
        (1, 1, 1),
        "z was not counted"
    );
    assert!(stats.oldest_waiting.is_some());
    assert!(stats.now > 1_700_000_000_000);
    // A cancelled item's stale id at the tail is passed over: the age is the next item's.
    assert_eq!(env.queue.cancel("e").await.unwrap(), Some(State::Waiting));
    env.add("f", b"").await;
    let stats = env.queue.stats().await.unwrap();
    assert_eq!(stats.waiting, 2, "the stale id is still counted");
    assert!(stats.oldest_waiting.is_some(), "f's age, past e's stale id");
}

async fn queue_config_sets_defaults_for_every_client(env: Env) {
    let config = QueueConfig::new()
        .max_attempts(1)
        .backoff(Backoff::fixed(Duration::from_millis(5)));
    env.queue.set_config(&config).await.unwrap();
    assert_eq!(env.queue.config().await.unwrap(), config);
    // Another client of the same queue sees it.
    let other = env.other_client().await.queue(&env.prefix).unwrap();
    env.add("once", b"").await;
    let lease = other.lease(TTL, Wait::No).await.unwrap().unwrap();
    assert_eq!(lease.max_attempts(), 1);
    assert_eq!(lease.backoff(), Backoff::fixed(Duration::from_millis(5)));
    assert_eq!(
        other.fail(&lease, "e", "", Retry::Default).await.unwrap(),
        FailOutcome::Dead
    );
    let bad = QueueConfig::new().priority(5000).max_attempts(3);
    assert!(env.queue.set_config(&bad).await.is_err());
    assert_eq!(env.queue.config().await.unwrap(), config, "nothing written");
    env.queue.reset_config().await.unwrap();
    assert_eq!(env.queue.config().await.unwrap(), QueueConfig::default());
}

async fn dead_letters_are_bounded_by_count(env: Env) {
    env.queue
        .set_config(&QueueConfig::new().dead_max_count(3))
        .await
        .unwrap();
    for i in 0..5 {
        env.add(&format!("d{i}"), b"").await;
        let lease = env.lease().await.unwrap();
        env.queue.fail(&lease, "e", "", Retry::Never).await.unwrap();
    }
    let dead: Vec<String> = env
        .queue
        .list(State::Dead, 0, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(dead, ["d2", "d3", "d4"], "the oldest went");
    assert!(!env.exists("job:d0").await && !env.exists("data:d0").await);
}

async fn lease_batch_takes_several(env: Env) {
    for i in 0..5 {
        env.add(&format!("b{i}"), b"").await;
    }
    let leases = env.queue.lease_batch(3, TTL, Wait::No).await.unwrap();
    let ids: Vec<&str> = leases.iter().map(|l| l.id()).collect();
    assert_eq!(ids, ["b0", "b1", "b2"]);
    let tokens: std::collections::HashSet<&str> = leases.iter().map(|l| l.token()).collect();
    assert_eq!(tokens.len(), 3, "a token each");
    for lease in &leases {
        assert!(env.queue.renew(lease, TTL).await.unwrap());
        assert!(env.queue.complete(lease).await.unwrap());
    }
    assert_eq!(
        env.queue
            .lease_batch(10, TTL, Wait::No)
            .await
            .unwrap()
            .len(),
        2
    );
    assert!(env.queue.lease_batch(0, TTL, Wait::No).await.is_err());
}

async fn list_pages_each_state(env: Env) {
    for i in 0..7 {
        env.add(&format!("w{i}"), b"").await;
    }
    let page1 = env.queue.list(State::Waiting, 0, 3).await.unwrap();
    let page2 = env.queue.list(State::Waiting, 3, 3).await.unwrap();
    let page3 = env.queue.list(State::Waiting, 6, 3).await.unwrap();
    let ids: Vec<String> = [page1, page2, page3]
        .concat()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, ["w0", "w1", "w2", "w3", "w4", "w5", "w6"]);
    let lease = env.lease().await.unwrap();
    let leased = env.queue.list(State::Leased, 0, 10).await.unwrap();
    assert_eq!(leased.len(), 1);
    assert_eq!(leased[0].id, lease.id());
    assert!(leased[0].at.unwrap() > 0);
    assert!(env.queue.list(State::Done, 0, 10).await.unwrap().is_empty());
    assert!(env.queue.list(State::Waiting, 0, 1001).await.is_err());
}

/// Drains a queue whose items were delayed, prioritised and retried.
async fn drain(env: &Env) {
    env.add("a", b"").await;
    env.queue
        .add(&item("b").priority(3).delay(Duration::from_millis(50)))
        .await
        .unwrap();
    env.queue.add(&item("c").max_attempts(3)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(80)).await;
    while let Some(lease) = env.lease().await {
        if lease.id() == "c" && lease.attempt() == 1 {
            env.queue
                .fail(&lease, "once", "", Retry::After(Duration::ZERO))
                .await
                .unwrap();
        } else {
            assert!(env.queue.complete(&lease).await.unwrap());
        }
    }
    env.queue.light_clean().await.unwrap();
}

async fn drained_queue_leaves_no_key(env: Env) {
    drain(&env).await;
    assert_eq!(env.keys().await, Vec::<String>::new());
}

async fn light_clean_drops_an_empty_priority_level(env: Env) {
    env.queue.add(&item("p").priority(3)).await.unwrap();
    assert_eq!(env.queue.cancel("p").await.unwrap(), Some(State::Waiting));
    assert!(
        env.exists("prios").await,
        "the level outlives its last item"
    );
    env.queue.light_clean().await.unwrap();
    // P:wake stays until a lease finds nothing, or its TTL.
    assert_eq!(env.keys().await, vec![env.key("wake")]);
    let ttl: i64 = env.cmd(&[b"PTTL", env.key("wake").as_bytes()]).await;
    assert!(ttl > 0, "wake must expire");
    assert!(env.lease().await.is_none());
    assert_eq!(env.keys().await, Vec::<String>::new());
}

async fn drained_queue_with_counters_keeps_only_them_and_they_expire(env: Env) {
    let on = QueueConfig::new().stats(true);
    env.queue.set_config(&on).await.unwrap();
    drain(&env).await;
    let config = env.key("config");
    let counters: Vec<String> = env
        .keys()
        .await
        .into_iter()
        .filter(|k| *k != config)
        .collect();
    assert!(!counters.is_empty(), "completions were counted");
    for key in counters {
        assert!(key.starts_with(&env.key("rate:")), "{key}");
        let ttl: i64 = env.cmd(&[b"PTTL", key.as_bytes()]).await;
        assert!(ttl > 0, "{key} must expire");
    }
    assert_eq!(env.queue.config().await.unwrap(), on);
}

async fn a_lease_acts_only_on_its_own_queue(env: Env) {
    let other = env.client.queue(&format!("{}x", env.prefix)).unwrap();
    other.add(&item("same")).await.unwrap();
    env.add("same", b"").await;
    let lease = env.lease().await.unwrap();
    let err = other.complete(&lease).await.unwrap_err();
    assert_eq!(err.code(), leaseq::ErrorCode::InvalidArgument);
    assert!(err.to_string().contains("lease"));
    assert_eq!(other.count(State::Waiting).await.unwrap(), 1, "untouched");
    let err = env.client.queue("jobs:item").unwrap_err();
    assert!(err.to_string().contains("prefix"));
}

async fn blocking_lease_wakes_for_a_priority_item(env: Env) {
    let queue = env.queue.clone();
    let waiter = tokio::spawn(async move { queue.lease(TTL, Wait::Forever).await.unwrap() });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!waiter.is_finished());
    env.queue.add(&item("urgent").priority(7)).await.unwrap();
    // P:queue stays empty: only P:wake can end the wait before its 10 s slice does.
    let lease = tokio::time::timeout(Duration::from_secs(8), waiter)
        .await
        .expect("woken by P:wake")
        .unwrap()
        .expect("an item");
    assert_eq!(lease.id(), "urgent");
}

async fn blocking_lease_wakes_when_a_delay_ends(env: Env) {
    env.queue
        .add(&item("soon").delay(Duration::from_millis(300)))
        .await
        .unwrap();
    let lease = env
        .queue
        .lease(TTL, Wait::Timeout(Duration::from_secs(8)))
        .await
        .unwrap()
        .expect("the wait ends when the item is due");
    assert_eq!(lease.id(), "soon");
}

/// The lease `waiting` took, which it must take `within` (far less than its wait's slice of
/// 10 s): it was woken, not left to run out.
async fn woken(
    waiting: tokio::task::JoinHandle<leaseq::Result<Option<Lease>>>,
    within: Duration,
    what: &str,
) -> Lease {
    tokio::time::timeout(within, waiting)
        .await
        .unwrap_or_else(|_| panic!("the waiting lease did not wake for {what}"))
        .unwrap()
        .unwrap()
        .expect("an item")
}

/// A lease already waiting (for up to a minute) when an item is delayed for 100 ms, by an add
/// or by a retry's backoff, gets it once it is due: the delayed write wakes it to look again
/// (spec/PROTOCOL.md 4.4, `wake_for_due`). Before, it slept to the end of its server-side wait
/// (a slice of 10 s), so a runner with free slots ran a short retry only after its poll
/// interval: the 5 s allowed here tell a woken wait from one that ran out, not how fast.
async fn a_waiting_lease_wakes_for_an_item_delayed_after_it_began(env: Env) {
    let waiting = env.waiting_lease().await;
    env.queue
        .add(&item("soon").delay(Duration::from_millis(100)))
        .await
        .unwrap();
    let lease = woken(waiting, Duration::from_secs(5), "the delayed item").await;
    assert_eq!(lease.id(), "soon");
    // A retry: its backoff delays it while another lease waits.
    let waiting = env.waiting_lease().await;
    env.queue
        .fail(&lease, "busy", "", Retry::After(Duration::from_millis(100)))
        .await
        .unwrap();
    let again = woken(waiting, Duration::from_secs(5), "the retry").await;
    assert_eq!((again.id(), again.attempt()), ("soon", 2));
}

/// A complete that releases a dependant whose own delay is still ahead delays it, which wakes
/// the waiting leases; `complete_and_lease`'s lease part, finding nothing, used to delete that
/// wake again (spec 4.4 step 4), so another runner's waiting lease slept to the end of its
/// slice (10 s) past the dependant's due time. 6 s tell the two apart.
async fn a_waiting_lease_wakes_for_a_dependant_a_complete_and_lease_delays(env: Env) {
    env.add("a", b"a").await;
    env.queue
        .add(
            &item("b")
                .depends_on(["a"])
                .delay(Duration::from_millis(1500)),
        )
        .await
        .unwrap();
    let a = env.lease().await.unwrap();
    let waiting = env.waiting_lease().await;
    let (done, next) = env.queue.complete_and_lease(&a, TTL).await.unwrap();
    assert!(done && next.is_none());
    let b = woken(waiting, Duration::from_secs(6), "the delayed dependant").await;
    assert_eq!(b.id(), "b");
}

async fn redis_work_queue_never_sees_delayed_or_dead_items(env: Env) {
    env.queue
        .add(&item("d").delay(Duration::from_secs(60)))
        .await
        .unwrap();
    env.add("x", b"").await;
    let lease = env.lease().await.unwrap();
    env.queue.fail(&lease, "e", "", Retry::Never).await.unwrap();
    // What a redis-work-queue worker and its deep clean look at.
    let popped: Option<String> = env
        .cmd(&[
            b"RPOPLPUSH",
            env.key("queue").as_bytes(),
            env.key("processing").as_bytes(),
        ])
        .await;
    assert_eq!(popped, None);
    assert!(!env.exists("item:d").await && !env.exists("item:x").await);
    // And leaseq's own deep clean does not resurrect them.
    let report = env.queue.deep_clean().await.unwrap();
    assert_eq!(report.requeued, 0);
    assert_eq!(env.queue.count(State::Delayed).await.unwrap(), 1);
    assert_eq!(env.queue.count(State::Dead).await.unwrap(), 1);
}

async fn get_reports_times_on_the_server_clock(env: Env) {
    env.queue.add(&item("t").max_attempts(5)).await.unwrap();
    let lease = env.lease().await.unwrap();
    let job = env.queue.get("t").await.unwrap().unwrap();
    let time: Vec<String> = env.cmd(&[b"TIME"]).await;
    let server_ms: u64 = time[0].parse::<u64>().unwrap() * 1000;
    let leased_at = job.leased_at.unwrap();
    assert!(leased_at.abs_diff(server_ms) < 5_000);
    assert!(job.added_at.unwrap() <= leased_at);
    assert_eq!(job.lease_expires_at.unwrap(), leased_at + 30_000);
    assert_eq!(job.max_attempts, Some(5));
    assert_eq!(job.attempts, 1);
    assert!(env.queue.complete(&lease).await.unwrap());
    assert!(env.queue.get("t").await.unwrap().is_none());
}

/// Under maxmemory with noeviction, a function that adds memory (add, a complete that keeps a
/// result) is refused before it writes anything, and those that drain the queue still run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_memory_drains_and_refuses_growth() {
    let env = Env::single("oom").await;
    for id in ["held", "waiting", "third", "fourth"] {
        env.add(id, b"x").await;
    }
    let held = env.lease().await.unwrap();
    let server = env.server.as_ref().unwrap();
    server.command("CONFIG SET maxmemory 1");
    // What adds memory is refused whole, before it writes anything.
    let before = (env.list("queue").await, env.keys().await);
    let err = env.queue.add(&item("new")).await.unwrap_err();
    assert_eq!(err.code(), leaseq::ErrorCode::OutOfMemory, "{err}");
    assert!(!err.is_retryable(), "{err}");
    assert!(err.to_string().contains("OOM"), "{err}");
    let err = env
        .queue
        .complete_with_result(&held, Some(b"a result".as_slice()), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), leaseq::ErrorCode::OutOfMemory, "{err}");
    assert_eq!(
        (env.list("queue").await, env.keys().await),
        before,
        "nothing written"
    );
    // What drains the queue works at the limit (issue 14): complete, lease, fail, release,
    // cancel and cleaning.
    assert!(
        env.queue.complete(&held).await.unwrap(),
        "completing frees memory"
    );
    let next = env.queue.lease(TTL, Wait::No).await.unwrap().unwrap();
    assert_eq!(next.id(), "waiting");
    let outcome = env
        .queue
        .fail(&next, "boom", "E", Retry::Never)
        .await
        .unwrap();
    assert_eq!(outcome, FailOutcome::Dead);
    let third = env.queue.lease(TTL, Wait::No).await.unwrap().unwrap();
    assert!(env.queue.release(&third, None).await.unwrap());
    assert_eq!(
        env.queue.cancel("fourth").await.unwrap(),
        Some(State::Waiting)
    );
    env.queue.light_clean().await.unwrap();
    // A waiting lease rides the limit out. Redis refuses its BLMOVE there, so it pauses and
    // runs the lease script again: a retried item comes back once due, and an empty queue
    // waits out the timeout instead of failing.
    let third = env
        .queue
        .lease(TTL, Wait::Timeout(Duration::from_secs(5)))
        .await
        .unwrap()
        .unwrap();
    let outcome = env
        .queue
        .fail(
            &third,
            "again",
            "E",
            Retry::After(Duration::from_millis(300)),
        )
        .await
        .unwrap();
    assert!(matches!(outcome, FailOutcome::Retrying(_)), "{outcome:?}");
    let again = env
        .queue
        .lease(TTL, Wait::Timeout(Duration::from_secs(10)))
        .await
        .unwrap()
        .expect("the retried item, once due");
    assert_eq!(again.id(), "third");
    let none = env
        .queue
        .lease(TTL, Wait::Timeout(Duration::from_millis(300)))
        .await
        .unwrap();
    assert!(none.is_none());
    let result = env
        .queue
        .wait_result("third", Duration::from_millis(300))
        .await
        .unwrap();
    assert!(result.is_none());
    assert!(env.queue.release(&again, None).await.unwrap());
    server.command("CONFIG SET maxmemory 0");
    assert_eq!(env.lease().await.unwrap().id(), "third");
}

async fn light_clean_promotes_in_bounded_calls(env: Env) {
    let items: Vec<Item> = (0..250)
        .map(|i| item(&format!("p{i}")).delay(Duration::from_millis(1)))
        .collect();
    assert_eq!(env.queue.add_batch(&items).await.unwrap(), 250);
    tokio::time::sleep(Duration::from_millis(20)).await;
    let report = env.queue.light_clean().await.unwrap();
    assert_eq!(report.promoted, 250, "three calls of at most 100");
    assert_eq!(env.queue.count(State::Waiting).await.unwrap(), 250);
    assert_eq!(env.queue.count(State::Delayed).await.unwrap(), 0);
}

/// Issue 14's O(n) defect: complete searched P:processing with LREM. Now no script a worker
/// runs touches a list by position: with many leases held, completes run no LREM at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn complete_runs_no_list_search() {
    let env = Env::single("no_lrem").await;
    let items: Vec<Item> = (0..2000).map(|i| item(&format!("i{i}"))).collect();
    env.queue.add_batch(&items).await.unwrap();
    let held = env.queue.lease_batch(1000, TTL, Wait::No).await.unwrap();
    let server = env.server.as_ref().unwrap();
    server.command("CONFIG RESETSTAT");
    for lease in &held {
        assert!(env.queue.complete(lease).await.unwrap());
    }
    let mut next = env.lease().await;
    while let Some(lease) = next {
        let (completed, following) = env.queue.complete_and_lease(&lease, TTL).await.unwrap();
        assert!(completed);
        next = following;
    }
    let stats = server.command("INFO commandstats");
    assert!(stats.contains("cmdstat_fcall:"), "{stats}");
    assert!(!stats.contains("cmdstat_lrem:"), "no LREM: {stats}");
    assert!(!stats.contains("cmdstat_lpos:"), "no LPOS: {stats}");
}

async fn batches_complete_renew_fail_and_lease_in_one_call(env: Env) {
    for i in 0..6 {
        env.add(&format!("b{i}"), b"").await;
    }
    let first = env.queue.lease_batch(4, TTL, Wait::No).await.unwrap();
    let refs: Vec<&leaseq::Lease> = first.iter().collect();
    let renewed = env.queue.renew_batch(&refs, TTL).await.unwrap();
    assert_eq!(renewed, vec![RenewOutcome::Renewed; 4]);
    let failed = env
        .queue
        .fail_batch(&[
            (&first[0], "e", "T", Retry::Never),
            (&first[1], "e", "T", Retry::After(Duration::ZERO)),
        ])
        .await
        .unwrap();
    assert_eq!(
        failed,
        vec![FailOutcome::Dead, FailOutcome::Retrying(Duration::ZERO)]
    );
    // Complete two (one with a result, one twice), and take the rest, in one call.
    let (completed, next) = env
        .queue
        .complete_and_lease_batch(
            &[
                (&first[2], Some((&b"r"[..], None))),
                (&first[3], None),
                (&first[3], None),
            ],
            10,
            TTL,
        )
        .await
        .unwrap();
    assert_eq!(completed, vec![true, true, false]);
    let ids: Vec<&str> = next.iter().map(|l| l.id()).collect();
    assert_eq!(ids, ["b4", "b5", "b1"], "b1 was retried at once");
    assert_eq!(env.queue.result("b2").await.unwrap().unwrap().data, b"r");
    let done = env
        .queue
        .complete_batch(&next.iter().map(|l| (l, None)).collect::<Vec<_>>())
        .await
        .unwrap();
    assert_eq!(done, vec![true; 3]);
    assert_eq!(
        env.queue
            .renew_batch(&[&first[0], &next[0]], TTL)
            .await
            .unwrap(),
        vec![RenewOutcome::Expired, RenewOutcome::Completed]
    );
    let too_many: Vec<leaseq::Completion<'_>> = (0..1001).map(|_| (&first[0], None)).collect();
    assert_eq!(
        env.queue
            .complete_batch(&too_many)
            .await
            .unwrap_err()
            .code(),
        leaseq::ErrorCode::InvalidArgument
    );
}

/// An id added by another kind of client (raw commands, as redis-work-queue could) that is not
/// UTF-8: every call that names an id takes its bytes.
async fn ids_that_are_not_utf8_work_in_every_call(env: Env) {
    let id: &[u8] = b"job-\xff\xfe";
    let item_key = [env.key("item:").as_bytes(), id].concat();
    let _: () = env.cmd(&[b"SET", &item_key, b"payload"]).await;
    let _: () = env.cmd(&[b"LPUSH", env.key("queue").as_bytes(), id]).await;
    let job = env.queue.get(id).await.unwrap().expect("the raw item");
    assert_eq!(job.state, State::Waiting);
    assert_eq!(job.id_bytes, id);
    assert_eq!(job.data, b"payload");
    let lease = env.lease().await.unwrap();
    assert_eq!(lease.id_bytes(), id);
    assert_eq!(
        env.queue
            .fail(&lease, "boom", "", Retry::Never)
            .await
            .unwrap(),
        FailOutcome::Dead
    );
    let dead = env.queue.list(State::Dead, 0, 10).await.unwrap();
    assert_eq!(dead[0].id_bytes, id);
    assert_eq!(env.queue.dead_requeue(&[id]).await.unwrap(), 1);
    let lease = env.lease().await.unwrap();
    assert!(env
        .queue
        .complete_with_result(&lease, Some(b"done".as_slice()), None)
        .await
        .unwrap());
    assert_eq!(env.queue.result(id).await.unwrap().unwrap().data, b"done");
    let waited = env.queue.wait_result(id, Wait::Forever).await.unwrap();
    assert_eq!(waited.unwrap().data, b"done");
    // A different id that is its lossy reading names nothing.
    assert!(env
        .queue
        .result("job-\u{fffd}\u{fffd}")
        .await
        .unwrap()
        .is_none());
    let _: () = env.cmd(&[b"SET", &item_key, b"again"]).await;
    let _: () = env.cmd(&[b"LPUSH", env.key("queue").as_bytes(), id]).await;
    assert_eq!(env.queue.cancel(id).await.unwrap(), Some(State::Waiting));
    assert!(env.queue.get(id).await.unwrap().unwrap().state == State::Done);
    assert!(matches!(
        env.queue.get(b"").await,
        Err(leaseq::Error::InvalidArgument { argument: "id", .. })
    ));
}

async fn wait_result_can_wait_forever(env: Env) {
    env.add("slow", b"").await;
    let queue = env.queue.clone();
    let waiter = tokio::spawn(async move { queue.wait_result("slow", Wait::Forever).await });
    let lease = env.lease().await.unwrap();
    assert!(env
        .queue
        .complete_with_result(&lease, Some(b"at last".as_slice()), None)
        .await
        .unwrap());
    let got = waiter
        .await
        .unwrap()
        .unwrap()
        .expect("a forever wait ends with the result");
    assert_eq!(got.data, b"at last");
    // Wait::No only reads; a zero duration is the same.
    assert!(env
        .queue
        .wait_result("none", Wait::No)
        .await
        .unwrap()
        .is_none());
    assert!(env
        .queue
        .wait_result("none", Duration::ZERO)
        .await
        .unwrap()
        .is_none());
    // A forever wait for a result that never comes ends when the client closes.
    let queue = env.queue.clone();
    let waiter = tokio::spawn(async move { queue.wait_result("none", Wait::Forever).await });
    env.client.close();
    assert!(matches!(waiter.await.unwrap(), Err(leaseq::Error::Closed)));
}

/// A death writes no result: `wait_result` reads whether the item died and ends with
/// `Error::Dead`, naming the item, why it died and its last error, rather than waiting to its
/// deadline. A death after a result kept for an earlier incarnation of the id ends it too.
async fn wait_result_ends_when_the_item_dies(env: Env) {
    env.add("doomed", b"").await;
    let queue = env.queue.clone();
    let waiter =
        tokio::spawn(async move { queue.wait_result("doomed", Duration::from_secs(20)).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let lease = env.lease().await.unwrap();
    env.queue
        .fail(&lease, "boom", "ValueError", Retry::Never)
        .await
        .unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .expect("ended by the death, well before its deadline")
        .unwrap();
    let Err(leaseq::Error::Dead { id, reason }) = ended else {
        panic!("Error::Dead, got {ended:?}");
    };
    assert_eq!(id, "doomed");
    assert!(
        reason == "failed without retry: ValueError: boom",
        "{reason}"
    );
    assert_eq!(
        env.queue
            .wait_result("doomed", Wait::No)
            .await
            .unwrap_err()
            .code(),
        leaseq::ErrorCode::Dead
    );
    // Requeued, it is waited for again.
    assert_eq!(env.queue.dead_requeue(&["doomed"]).await.unwrap(), 1);
    assert!(env
        .queue
        .wait_result("doomed", Duration::from_millis(50))
        .await
        .unwrap()
        .is_none());

    assert_eq!(
        env.queue.cancel("doomed").await.unwrap(),
        Some(State::Waiting)
    );

    // A result kept for the id, then a new incarnation that dies: the death is newer.
    env.add("again", b"").await;
    let lease = env.lease().await.unwrap();
    assert!(env
        .queue
        .complete_with_result(&lease, Some(b"first".as_slice()), None)
        .await
        .unwrap());
    assert_eq!(
        env.queue
            .wait_result("again", Wait::No)
            .await
            .unwrap()
            .unwrap()
            .data,
        b"first"
    );
    env.add("again", b"").await;
    let lease = env.lease().await.unwrap();
    env.queue
        .fail(&lease, "twice", "", Retry::Never)
        .await
        .unwrap();
    assert!(matches!(
        env.queue.wait_result("again", Wait::No).await,
        Err(leaseq::Error::Dead { .. })
    ));
}

/// A result kept for an id is its last incarnation's. Once the id is added again, a wait reads
/// the new item's: the old result answers no wait while the new item is in the queue, nor
/// once it ended without a result. `result` still reads whatever is kept.
async fn wait_result_waits_for_a_re_added_ids_own_result(env: Env) {
    let q = &env.queue;
    env.add("daily", b"").await;
    finish(&env, Some(b"monday")).await;
    assert_eq!(
        q.wait_result("daily", Wait::No)
            .await
            .unwrap()
            .unwrap()
            .data,
        b"monday"
    );
    // Added again: the kept result is the earlier incarnation's.
    env.add("daily", b"").await;
    assert!(q.wait_result("daily", Wait::No).await.unwrap().is_none());
    assert_eq!(q.result("daily").await.unwrap().unwrap().data, b"monday");
    let waiter = {
        let q = q.clone();
        tokio::spawn(async move { q.wait_result("daily", Duration::from_secs(20)).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    finish(&env, Some(b"tuesday")).await;
    let got = waiter
        .await
        .unwrap()
        .unwrap()
        .expect("the new item's result");
    assert_eq!(got.data, b"tuesday");
    // Added again and completed without a result: the wait does not take tuesday's for it.
    env.add("daily", b"").await;
    let waiter = {
        let q = q.clone();
        tokio::spawn(async move { q.wait_result("daily", Duration::from_millis(1500)).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    finish(&env, None).await;
    assert!(waiter.await.unwrap().unwrap().is_none());
}

/// Leases the next item and completes it, keeping `result`.
async fn finish(env: &Env, result: Option<&[u8]>) {
    let lease = env.lease().await.unwrap();
    assert!(env
        .queue
        .complete_with_result(&lease, result, None)
        .await
        .unwrap());
}

async fn complete_and_lease_keeps_a_result(env: Env) {
    env.add("first", b"").await;
    env.add("second", b"").await;
    let first = env.lease().await.unwrap();
    let (done, next) = env
        .queue
        .complete_and_lease_with_result(
            &first,
            Some(b"r1".as_slice()),
            Some(Duration::from_secs(60)),
            TTL,
        )
        .await
        .unwrap();
    assert!(done);
    let next = next.expect("the second item");
    assert_eq!(next.id(), "second");
    let kept = env.queue.result("first").await.unwrap().unwrap();
    assert_eq!((kept.data.as_slice(), kept.attempts), (&b"r1"[..], 1));
    let ttl: i64 = env
        .cmd(&[b"PTTL", env.key("result:first").as_bytes()])
        .await;
    assert!(ttl > 0 && ttl <= 60_000, "kept for keep_for: {ttl}");
    assert!(matches!(
        env.queue
            .complete_and_lease_with_result(
                &next,
                Some(b"r2".as_slice()),
                Some(Duration::ZERO),
                TTL
            )
            .await,
        Err(leaseq::Error::InvalidArgument {
            argument: "keep_result_for",
            ..
        })
    ));
    // Without keep_for the default applies (one day); the result is readable.
    let (done, none) = env
        .queue
        .complete_and_lease_with_result(&next, Some(b"".as_slice()), None, TTL)
        .await
        .unwrap();
    assert!(done && none.is_none());
    assert_eq!(env.queue.result("second").await.unwrap().unwrap().data, b"");
}

async fn add_refuses_bad_options_and_writes_nothing(env: Env) {
    let refused = |r: leaseq::Result<bool>| match r {
        Err(leaseq::Error::InvalidArgument { argument, .. }) => argument,
        other => panic!("expected INVALID_ARGUMENT, got {other:?}"),
    };
    assert_eq!(
        refused(env.queue.add(&item("p").priority(1001)).await),
        "priority"
    );
    assert_eq!(
        refused(
            env.queue
                .add(&item("k").keep_result_for(Duration::ZERO))
                .await
        ),
        "keep_result_for"
    );
    assert_eq!(
        refused(
            env.queue
                .add(&item("d").delay(leaseq::policy::MAX_DURATION * 2))
                .await
        ),
        "delay"
    );
    assert!(env.keys().await.is_empty(), "nothing written");
}

/// complete_batch completes plain leases together (one MGET, EXISTS and DEL for the batch,
/// spec 4.6); whatever that path cannot prove goes one by one, with the outcome it has alone:
/// an item completed by another client, a lease whose key was overwritten, an id twice.
async fn batch_complete_falls_back_one_by_one(env: Env) {
    for id in ["a", "b", "c", "d", "e"] {
        env.add(id, b"x").await;
    }
    let leases = env.queue.lease_batch(5, TTL, Wait::No).await.unwrap();
    let ids: Vec<&str> = leases.iter().map(|l| l.id()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e"]);
    // A whole batch of plain leases: each completed once, the queue left without a key.
    let done = env
        .queue
        .complete_batch(&[(&leases[0], None), (&leases[1], None), (&leases[0], None)])
        .await
        .unwrap();
    assert_eq!(
        done,
        vec![true, true, false],
        "the second complete of a is not the winner"
    );
    // c completed by another client (its item key deleted, as redis-work-queue's complete
    // does), d's lease key overwritten by a redis-work-queue holder: the batch path cannot
    // take them, e is still completed.
    let _: i64 = env.cmd(&[b"DEL", env.key("item:c").as_bytes()]).await;
    let _: () = env
        .cmd(&[b"SET", env.key("lease:d").as_bytes(), b"someone-else"])
        .await;
    let done = env
        .queue
        .complete_batch(&[(&leases[2], None), (&leases[3], None), (&leases[4], None)])
        .await
        .unwrap();
    assert_eq!(
        done,
        vec![false, true, true],
        "c was gone; d is still first to complete"
    );
    assert_eq!(
        env.keys().await,
        Vec::<String>::new(),
        "nothing left behind"
    );
}

/// A call that declares the wrong keys (or none), a batch whose `per` is not 3 or 6 or does not
/// match its values, or a complete whose has_result is 1 with no result, fails before it
/// changes anything (spec/PROTOCOL.md, 4.2, 4.6 and 5.3). These calls are what another
/// implementation of the protocol could get wrong; leaseq's own client never sends them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_with_wrong_keys_or_per_change_nothing() {
    let env = Env::single("wrong_keys").await;
    env.add("w1", b"one").await;
    let lease = env.lease().await.expect("w1 leased");
    // The server is this test's own: its only function library is leaseq's.
    let name = env.library().await;
    let before = {
        let mut keys = env.all_keys().await;
        keys.sort();
        keys
    };
    let (lease_family, item_family) = (env.key("lease:"), env.key("item:"));
    let other_item = format!("{}x:item:", env.prefix);
    let call = |function: &str, keys: Vec<String>, args: Vec<Vec<u8>>| {
        let mut cmd = redis::cmd("FCALL");
        cmd.arg(format!("{name}_{function}"))
            .arg(keys.len())
            .arg(&keys);
        for a in args {
            cmd.arg(a);
        }
        cmd
    };
    // The one lease's `id inc token`, with the values of each case before and after them.
    let lease_args = |before: &[&str], after: &[&str]| {
        let mut args: Vec<Vec<u8>> = before.iter().map(|v| v.as_bytes().to_vec()).collect();
        args.extend([
            b"w1".to_vec(),
            lease.incarnation().into(),
            lease.token().into(),
        ]);
        args.extend(after.iter().map(|v| v.as_bytes().to_vec()));
        args
    };
    let (lease_and_item, no_values) = (vec![lease_family.clone(), item_family.clone()], &[][..]);
    let cases = [
        (
            call(
                "complete",
                vec![lease_family.clone(), other_item],
                lease_args(no_values, no_values),
            ),
            "KEYS[2] must be <prefix>:item:",
        ),
        (
            call(
                "complete",
                vec![item_family.clone(), item_family.clone()],
                lease_args(no_values, no_values),
            ),
            "KEYS[1] must be <prefix>:lease:",
        ),
        (
            call(
                "complete_batch",
                lease_and_item.clone(),
                lease_args(&["4"], &["0"]),
            ),
            "per must be 2, 3 or 6",
        ),
        (
            // per 3, and four values.
            call(
                "complete_batch",
                lease_and_item.clone(),
                lease_args(&["3"], &["0"]),
            ),
            "not per values for each lease",
        ),
        (
            call(
                "complete_keep",
                lease_and_item,
                lease_args(no_values, &["1"]),
            ),
            "has_result is 1 but no result follows",
        ),
        (
            call("complete", vec![], vec![b"w1".to_vec()]),
            "KEYS[1] must be <prefix>:lease:",
        ),
    ];
    for (cmd, expected) in cases {
        let mut raw = env.raw.clone();
        let err = cmd
            .query_async::<redis::Value>(&mut raw)
            .await
            .expect_err(expected);
        assert!(err.to_string().contains(expected), "{expected}: {err}");
    }
    let mut after = env.all_keys().await;
    after.sort();
    assert_eq!(after, before, "no key written or removed");
    assert!(env.queue.complete(&lease).await.unwrap(), "w1 still held");
}
