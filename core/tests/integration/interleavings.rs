//! Interleavings of two operations that protocol v2 once got wrong (issue 24; the model of the
//! protocol in integration-tests/model finds each as a counterexample when its fix is off). Each
//! test failed before its fix. Every test runs against a single server and a local Cluster.

use crate::common;

use std::time::Duration;

use common::{Env, TTL};
use leaseq::{Error, FailOutcome, Item, Retry, State, Wait};

on_both!(
    cancel_after_an_expired_lease_spares_the_next_incarnation,
    a_cancelled_item_is_never_leased_again,
    expires_after_spares_an_item_that_started,
    a_wrong_type_key_strands_no_item,
);

fn item(id: &str, data: &[u8]) -> Item {
    Item::with_id(id, data.to_vec()).unwrap()
}

/// Fails `lease` with a retry at once (no delay).
async fn retry_now(env: &Env, lease: &leaseq::Lease) -> leaseq::Result<FailOutcome> {
    env.queue
        .fail(lease, "boom", "E", Retry::After(Duration::ZERO))
        .await
}

/// Every item the queue hands out now, in order, without waiting.
async fn drain(env: &Env) -> Vec<(String, Vec<u8>, u64)> {
    let mut got = Vec::new();
    while let Some(lease) = env.lease().await {
        got.push((
            lease.id().to_string(),
            lease.data().to_vec(),
            lease.attempt(),
        ));
        assert!(env.queue.complete(&lease).await.unwrap());
    }
    got
}

/// Defect 1: a cancel of an item whose lease ran out (not yet recovered) left its id in
/// P:leased, and the recovery of that entry then deleted the job record of the id's next,
/// delayed incarnation: its options were lost and its data came back as another item's.
async fn cancel_after_an_expired_lease_spares_the_next_incarnation(env: Env) {
    env.add("x", b"first").await;
    let lease = env.lease().await.unwrap();
    env.expire(&lease).await;
    assert_eq!(env.queue.cancel("x").await.unwrap(), Some(State::Waiting));
    let again = item("x", b"second")
        .delay(Duration::from_millis(300))
        .max_attempts(7)
        .priority(3);
    assert!(env.queue.add(&again).await.unwrap());
    // A lease that finds nothing runs housekeeping, recovery of expired leases included.
    assert!(env.lease().await.is_none());
    let job = env.queue.get("x").await.unwrap().expect("the delayed item");
    assert_eq!(job.state, State::Delayed);
    assert_eq!(job.data, b"second");
    assert_eq!(job.max_attempts, Some(7));
    assert_eq!(job.priority, 3);
    assert!(
        !env.queue.add(&item("x", b"third")).await.unwrap(),
        "x exists"
    );
    tokio::time::sleep(Duration::from_millis(350)).await;
    let next = env.lease().await.expect("due now");
    assert_eq!((next.id(), next.data()), ("x", &b"second"[..]));
    assert_eq!((next.attempt(), next.max_attempts()), (1, 7));
    assert!(env.queue.complete(&next).await.unwrap());
    assert!(env.lease().await.is_none(), "drained");
    assert!(env.keys().await.is_empty(), "{:?}", env.keys().await);
}

/// Defect 2: with a second copy of the id in the waiting list, a lease that ran out after a
/// cancel let the next lease hand the cancelled item out again, before housekeeping (every
/// 100 ms) recovered it.
async fn a_cancelled_item_is_never_leased_again(env: Env) {
    env.add("x", b"old").await;
    assert_eq!(env.queue.cancel("x").await.unwrap(), Some(State::Waiting));
    env.add("x", b"new").await;
    assert_eq!(
        env.list("queue").await,
        ["x", "x"],
        "a stale copy and the item"
    );
    let a = env.lease().await.unwrap();
    assert_eq!(a.data(), b"new");
    assert_eq!(env.queue.cancel("x").await.unwrap(), Some(State::Leased));
    // A's lease runs out now (as its TTL passing would), well inside the housekeeping period.
    env.cmd::<i64>(&[b"DEL", env.key("lease:x").as_bytes()])
        .await;
    assert!(
        env.lease().await.is_none(),
        "the cancelled item is not leased"
    );
    assert!(env.queue.get("x").await.unwrap().is_none(), "it is removed");
    assert!(!env.queue.complete(&a).await.unwrap());
    assert!(env.keys().await.is_empty(), "{:?}", env.keys().await);
}

/// Defect 3: `expires_after` is for items not yet started; once leased, attempts decide.
async fn expires_after_spares_an_item_that_started(env: Env) {
    let short = Duration::from_millis(150);
    let it = item("e", b"e").expires_after(short).max_attempts(5);
    assert!(env.queue.add(&it).await.unwrap());
    let first = env.lease().await.unwrap();
    tokio::time::sleep(short + Duration::from_millis(50)).await;
    // Failed with a retry after it expired: it runs again.
    assert!(matches!(
        retry_now(&env, &first).await.unwrap(),
        FailOutcome::Retrying(_)
    ));
    let second = env.lease().await.expect("a started item runs again");
    assert_eq!(second.attempt(), 2);
    // Its lease expires: recovered, and it runs again too.
    env.expire(&second).await;
    let third = env.lease().await.expect("a started item runs again");
    assert_eq!(third.attempt(), 3);
    // A release gives the attempt back; the item had started all the same.
    assert!(env.queue.release(&third, None).await.unwrap());
    let fourth = env.lease().await.expect("a started item runs again");
    assert_eq!(fourth.attempt(), 3);
    assert!(env.queue.complete(&fourth).await.unwrap());
}

/// Defect 4: a call refused for a key of the wrong type changes nothing. Housekeeping in a lease
/// used to take a due item out of P:delayed before its push into P:queue failed, and a fail with
/// a retry ended the lease before its push failed: both items were then on no list.
async fn a_wrong_type_key_strands_no_item(env: Env) {
    let due = item("d", b"d")
        .delay(Duration::from_millis(100))
        .priority(0);
    assert!(env.queue.add(&due.max_attempts(9)).await.unwrap());
    env.add("e", b"e").await;
    env.add("f", b"f").await;
    let e = env.lease().await.unwrap();
    let f = env.lease().await.unwrap();
    assert_eq!((e.id(), f.id()), ("e", "f"));
    env.expire(&e).await;
    tokio::time::sleep(Duration::from_millis(150)).await;
    // Somebody else's string where the queue's list belongs.
    env.cmd::<String>(&[b"SET", env.key("queue").as_bytes(), b"not a list"])
        .await;
    let before = snapshot(&env).await;
    let refused = env.queue.lease(TTL, Wait::No).await.unwrap_err();
    assert!(matches!(refused, Error::WrongType { .. }), "{refused:?}");
    // Worded without Redis's note of where in the function it was raised.
    let said = refused.to_string();
    assert!(
        said.contains(
            ":queue holds a string, where the queue keeps a list (in leaseq's function `lease`, \
             line "
        ) && said.ends_with(" of its library)")
            && !said.contains("user_function"),
        "{said}"
    );
    let refused = retry_now(&env, &f).await.unwrap_err();
    assert!(matches!(refused, Error::WrongType { .. }), "{refused:?}");
    let changed = changed(&before, &snapshot(&env).await);
    assert!(changed.is_empty(), "refused calls changed {changed:?}");
    env.cmd::<i64>(&[b"DEL", env.key("queue").as_bytes()]).await;
    assert!(matches!(
        retry_now(&env, &f).await.unwrap(),
        FailOutcome::Retrying(_)
    ));
    let mut ids: Vec<String> = drain(&env).await.into_iter().map(|(id, _, _)| id).collect();
    ids.sort();
    assert_eq!(ids, ["d", "e", "f"], "every item runs");
    assert!(env.keys().await.is_empty(), "{:?}", env.keys().await);
}

/// The keys whose value (or whether they expire) differs between two snapshots, or that only
/// one of them has.
fn changed(before: &[(String, String)], after: &[(String, String)]) -> Vec<String> {
    let mut keys: Vec<String> = before
        .iter()
        .filter(|entry| !after.contains(entry))
        .chain(after.iter().filter(|entry| !before.contains(entry)))
        .map(|(key, _)| key.clone())
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// Every key of the queue but the per-minute counters, with its type and contents.
async fn snapshot(env: &Env) -> Vec<(String, String)> {
    let mut keys = env.keys().await;
    keys.sort();
    let mut out = Vec::new();
    for key in keys {
        let dump: Option<Vec<u8>> = env.cmd(&[b"DUMP", key.as_bytes()]).await;
        let ttl: i64 = env.cmd(&[b"PTTL", key.as_bytes()]).await;
        // A lease's remaining time moves on its own; whether it has one does not.
        out.push((key, format!("{:?} {}", dump, ttl > 0)));
    }
    out
}

/// Defect 5: the function library serves every database of a server, and it kept its per-queue
/// hints (priority levels in use, the next housekeeping, the queue's max_attempts and backoff)
/// by key name alone. A busy queue `jobs` in database 0 then made database 1's `jobs` lease a
/// priority-0 item ahead of a priority-9 one, with database 0's max_attempts in the lease.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn databases_of_one_server_keep_their_own_hints() {
    let server = leaseq_harness::RedisServer::start();
    let db0 = leaseq::Client::connect(&server.url()).await.unwrap();
    let db1 = leaseq::Client::connect(&format!("{}/1", server.url()))
        .await
        .unwrap();
    let (jobs0, jobs1) = (db0.queue("jobs").unwrap(), db1.queue("jobs").unwrap());
    let mut config = leaseq::QueueConfig::default();
    config.max_attempts = Some(3);
    jobs0.set_config(&config).await.unwrap();
    assert!(jobs1.add(&item("low", b"0")).await.unwrap());
    assert!(jobs1.add(&item("high", b"9").priority(9)).await.unwrap());
    assert!(jobs0.add(&item("a", b"a")).await.unwrap());
    // Database 0 leases: its housekeeping runs, and it finds no level but 0 in use there.
    let a = jobs0.lease(TTL, Wait::No).await.unwrap().unwrap();
    assert_eq!((a.id(), a.max_attempts()), ("a", 3));
    let first = jobs1.lease(TTL, Wait::No).await.unwrap().unwrap();
    assert_eq!(first.id(), "high", "priority 9 first in database 1");
    let second = jobs1.lease(TTL, Wait::No).await.unwrap().unwrap();
    assert_eq!(
        (second.id(), second.max_attempts()),
        ("low", 25),
        "database 1's own max_attempts (the default)"
    );
}

/// Defect 4, for every shared key and every writing operation: with one key of the queue
/// holding a string, each call either works (it does not write that key) or is refused with
/// WRONG_TYPE and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refused_call_changes_nothing() {
    let shared = [
        "queue",
        "processing",
        "wake",
        "prio:5",
        "leased",
        "delayed",
        "dead",
        "prios",
        "config",
        "lease_count",
    ];
    let mut refused = Vec::new();
    for key in shared {
        let env = Env::single("refused").await;
        let q = &env.queue;
        // Items in every state: waiting (levels 0 and 5), due, leased (live and run out), dead.
        assert!(q.add(&item("dead", b"x")).await.unwrap());
        let dead = env.lease().await.unwrap();
        q.fail(&dead, "e", "E", Retry::Never).await.unwrap();
        assert!(q.add(&item("live", b"x")).await.unwrap());
        assert!(q.add(&item("gone", b"x")).await.unwrap());
        let live = env.lease().await.unwrap();
        let gone = env.lease().await.unwrap();
        env.expire(&gone).await;
        let due = item("due", b"x").delay(Duration::from_millis(50));
        assert!(q.add(&due.priority(5)).await.unwrap());
        assert!(q.add(&item("plain", b"x")).await.unwrap());
        assert!(q.add(&item("high", b"x").priority(5)).await.unwrap());
        env.cmd::<i64>(&[b"LPUSH", env.key("processing").as_bytes(), b"plain"])
            .await;
        // Past the due time and the housekeeping period (100 ms), so that leases run it.
        tokio::time::sleep(Duration::from_millis(150)).await;
        let target = env.key(key);
        env.cmd::<i64>(&[b"DEL", target.as_bytes()]).await;
        env.cmd::<String>(&[b"SET", target.as_bytes(), b"not ours"])
            .await;
        let ttl = Duration::from_secs(30);
        let delay = Retry::After(Duration::ZERO);
        // Each call in turn: refused, it left every key as it found it; done, it did not need
        // the key (and the next call starts from what it did).
        macro_rules! check {
            ($op:expr, $call:expr) => {{
                let before = snapshot(&env).await;
                match $call.await.map(drop) {
                    Ok(()) => {}
                    Err(Error::WrongType { .. }) => {
                        let changed = changed(&before, &snapshot(&env).await);
                        assert!(
                            changed.is_empty(),
                            "{} refused with {key} changed {changed:?}",
                            $op
                        );
                        refused.push(format!("{}/{key}", $op));
                    }
                    Err(other) => panic!("{} with {key}: {other:?}", $op),
                }
            }};
        }
        check!("add", q.add(&item("new", b"x")));
        let batch = [item("n1", b"x"), item("n2", b"x").priority(5)];
        check!("add_batch", q.add_batch(&batch));
        check!("add_delayed", q.add(&item("n3", b"x").delay(ttl)));
        check!("lease", q.lease(ttl, Wait::No));
        check!("lease_batch", q.lease_batch(3, ttl, Wait::No));
        check!("renew", q.renew(&live, ttl));
        check!("fail", q.fail(&live, "e", "E", delay));
        check!("release", q.release(&live, None));
        check!("complete_and_lease", q.complete_and_lease(&live, ttl));
        check!("complete", q.complete(&live));
        check!("cancel", q.cancel("plain"));
        check!("dead_requeue", q.dead_requeue(&["dead"]));
        check!("light_clean", q.light_clean());
        check!("deep_clean", q.deep_clean());
    }
    // The check itself must have been exercised: the first call refused for most keys.
    assert!(refused.len() >= 8, "{refused:?}");
}
