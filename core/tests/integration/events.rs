//! The event stream (spec/PROTOCOL.md 14): every transition of an item appends one entry to
//! `P:events` while the queue's events are on, and nothing while they are off; the stream is
//! bounded by length and age; followers read it from now or resume after an entry id, through a
//! killed connection, and `wait_result` waits on it. Against a single server and a Cluster.

use crate::common;

use std::time::Duration;

use common::{assert_invalid, Env, TTL};
use leaseq::{
    EventsFrom, Item, Missed, OnDependencyFailure, QueueConfig, QueueEvent, Retry, Schedule, Wait,
};

on_both!(
    every_transition_appends_its_entry,
    a_queue_with_events_off_writes_no_stream,
    the_stream_is_bounded_by_length_and_age,
    events_switch_on_and_off_while_leases_run,
    a_follower_sees_what_other_clients_do,
    a_bad_or_unknown_position_is_refused_and_a_trimmed_one_is_a_gap,
    batches_append_an_entry_per_item,
    ticks_and_dependencies_append_their_entries,
);

// CLIENT KILL and CLIENT LIST reach one node: these run against the single server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follower_rides_through_killed_connections() {
    a_follower_resumes_after_an_id_through_a_killed_connection(Env::single("events_kill").await)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_result_uses_the_stream() {
    wait_result_waits_on_the_stream(Env::single("events_wait").await).await;
}

async fn events_on(env: &Env) {
    env.queue
        .set_config(&QueueConfig::new().events(true))
        .await
        .unwrap();
}

/// Every entry after `after` (none: from the start), oldest first.
async fn all_after(env: &Env, after: &str) -> Vec<QueueEvent> {
    env.queue
        .read_events(Some(after), 1000)
        .await
        .unwrap()
        .events
}

fn kinds(events: &[QueueEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .map(|e| (e.event.clone(), e.job_id.clone()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

async fn every_transition_appends_its_entry(env: Env) {
    let q = &env.queue;
    events_on(&env).await;
    // Added: a plain item, a named one with options, a delayed one.
    env.add("plain", b"p").await;
    q.add(
        &Item::with_id("named", b"n".to_vec())
            .unwrap()
            .name("send")
            .max_attempts(2),
    )
    .await
    .unwrap();
    q.add(
        &Item::with_id("later", b"l".to_vec())
            .unwrap()
            .delay(Duration::from_secs(600)),
    )
    .await
    .unwrap();
    let added = all_after(&env, "0-0").await;
    assert_eq!(
        kinds(&added),
        pairs(&[("added", "plain"), ("added", "named"), ("delayed", "later")])
    );
    assert_eq!((added[0].inc.as_str(), added[0].attempt), ("", 0));
    assert!(
        !added[1].inc.is_empty(),
        "an item with options has its incarnation"
    );
    assert_eq!(added[1].name.as_deref(), Some("send"));
    assert!(added[2].due.is_some_and(|d| d > added[2].time_ms));
    let mark = added[2].id.clone();

    // Leased, progress, completed (the plain item: its first lease's shortcut).
    let plain = env.lease().await.unwrap();
    assert_eq!(plain.id(), "plain");
    assert!(q.progress(&plain, b"half").await.unwrap());
    assert!(q.complete(&plain).await.unwrap());
    // Failed and retrying, leased again, failed and dead (attempts used up).
    let named = env.lease().await.unwrap();
    q.fail(&named, "boom", "E", Retry::After(Duration::ZERO))
        .await
        .unwrap();
    let again = env.lease().await.unwrap();
    q.fail(&again, "boom again", "E", Retry::After(Duration::ZERO))
        .await
        .unwrap();
    let seen = all_after(&env, &mark).await;
    assert_eq!(
        kinds(&seen),
        pairs(&[
            ("leased", "plain"),
            ("progress", "plain"),
            ("completed", "plain"),
            ("leased", "named"),
            ("failed", "named"),
            ("retrying", "named"),
            ("leased", "named"),
            ("failed", "named"),
            ("dead", "named"),
        ])
    );
    let inc = plain.incarnation().to_owned();
    for e in &seen[..3] {
        assert_eq!((e.inc.as_str(), e.attempt), (inc.as_str(), 1), "{e:?}");
    }
    assert_eq!(seen[4].error.as_deref(), Some("boom"));
    assert!(seen[5].due.is_some());
    assert_eq!((seen[6].attempt, seen[7].attempt), (2, 2));
    assert_eq!(seen[8].reason.as_deref(), Some("failed 2 times"));
    assert!(seen[3..].iter().all(|e| e.name.as_deref() == Some("send")));
    // Ids grow with the server's clock; the time is the id's.
    for w in seen.windows(2) {
        assert!(w[0].time_ms <= w[1].time_ms);
        assert_ne!(w[0].id, w[1].id);
    }
    let mark = seen.last().unwrap().id.clone();

    // Requeued (a dead letter), promoted, released, cancelled, expired.
    assert_eq!(q.dead_requeue(&["named"]).await.unwrap(), 1);
    assert!(q.promote("later").await.unwrap());
    let one = env.lease().await.unwrap();
    assert!(q.release(&one, None).await.unwrap());
    let two = env.lease().await.unwrap();
    env.expire(&two).await;
    // The next lease recovers the expired one (housekeeping, at most every 100 ms while leases
    // find items) before it leases.
    tokio::time::sleep(Duration::from_millis(150)).await;
    let three = env.lease().await.unwrap();
    assert_eq!(
        q.cancel(three.id()).await.unwrap(),
        Some(leaseq::State::Leased)
    );
    let seen = all_after(&env, &mark).await;
    let got: Vec<&str> = seen.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(
        got,
        [
            "requeued",
            "promoted",
            "leased",
            "released",
            "leased",
            "expired",
            "leased",
            "cancelled"
        ],
        "{seen:?}"
    );
    assert_eq!(seen[0].attempt, 0);
    assert_eq!(seen[3].attempt, 0, "a release gives its attempt back");
    assert_eq!(seen[5].job_id, two.id());
    assert!(seen[7]
        .extra
        .contains(&("state".to_owned(), "leased".to_owned())));
}

async fn a_queue_with_events_off_writes_no_stream(env: Env) {
    let q = &env.queue;
    env.add("a", b"x").await;
    q.add(&Item::with_id("b", b"y".to_vec()).unwrap().name("n"))
        .await
        .unwrap();
    let a = env.lease().await.unwrap();
    q.complete(&a).await.unwrap();
    let b = env.lease().await.unwrap();
    q.fail(&b, "e", "E", Retry::Never).await.unwrap();
    q.dead_requeue(&["b"]).await.unwrap();
    q.cancel("b").await.unwrap();
    assert!(!env.exists("events").await, "events are off by default");
    let page = q.read_events(None, 10).await.unwrap();
    assert!(!page.on);
    assert_eq!(page.last, "0-0");
    // Off again after on: nothing more is written.
    events_on(&env).await;
    env.add("c", b"z").await;
    q.set_config(&QueueConfig::new().events(false))
        .await
        .unwrap();
    let c = env.lease().await.unwrap();
    q.complete(&c).await.unwrap();
    assert_eq!(
        kinds(&all_after(&env, "0-0").await),
        pairs(&[("added", "c")])
    );
}

async fn the_stream_is_bounded_by_length_and_age(env: Env) {
    let q = &env.queue;
    q.set_config(
        &QueueConfig::new()
            .events(true)
            .events_max_len(100)
            .events_max_age(Duration::from_secs(1)),
    )
    .await
    .unwrap();
    let items: Vec<Item> = (0..1000)
        .map(|i| Item::with_id(format!("i{i}"), b"x".to_vec()).unwrap())
        .collect();
    q.add_batch(&items).await.unwrap();
    let len: u64 = env.cmd(&[b"XLEN", env.key("events").as_bytes()]).await;
    // Trimmed by whole nodes of 100 entries (stream-node-max-entries): about the bound.
    assert!((100..=200).contains(&len), "length {len}");
    // Older than the age: trimmed at the next append a second later (whole nodes again).
    tokio::time::sleep(Duration::from_millis(1100)).await;
    env.add("late", b"x").await;
    let len: u64 = env.cmd(&[b"XLEN", env.key("events").as_bytes()]).await;
    assert!(len <= 101, "length {len} after the age passed");
    let page = q.read_events(Some("0-0"), 1000).await.unwrap();
    assert_eq!(page.events.last().unwrap().job_id, "late");
}

async fn events_switch_on_and_off_while_leases_run(env: Env) {
    let q = &env.queue;
    for i in 0..4 {
        env.add(&format!("i{i}"), b"x").await;
    }
    // Leases before the switch: the housekeeping hint says off.
    let first = env.lease().await.unwrap();
    events_on(&env).await;
    // The switch reaches this library's leases at once (set_config forgets the hint).
    let second = env.lease().await.unwrap();
    q.complete(&first).await.unwrap();
    q.set_config(&QueueConfig::new().events(false))
        .await
        .unwrap();
    let third = env.lease().await.unwrap();
    q.complete(&second).await.unwrap();
    q.complete(&third).await.unwrap();
    assert_eq!(
        kinds(&all_after(&env, "0-0").await),
        pairs(&[("leased", second.id()), ("completed", first.id())])
    );
}

async fn a_follower_sees_what_other_clients_do(env: Env) {
    events_on(&env).await;
    env.add("before", b"x").await;
    let mut follower = env.queue.events(EventsFrom::Now).await.unwrap();
    let other = env.other_client().await.queue(&env.prefix).unwrap();
    let task = tokio::spawn(async move {
        other
            .add(&Item::with_id("a", b"x".to_vec()).unwrap())
            .await
            .unwrap();
        let lease = loop {
            if let Some(l) = other.lease(TTL, Wait::No).await.unwrap() {
                if l.id() == "a" {
                    break l;
                }
                other.complete(&l).await.unwrap();
            }
        };
        other.complete(&lease).await.unwrap();
    });
    let mut seen = Vec::new();
    while !seen.contains(&("completed".to_owned(), "a".to_owned())) {
        let e = tokio::time::timeout(Duration::from_secs(20), follower.next())
            .await
            .expect("the follower sees each entry")
            .unwrap();
        seen.push((e.event.clone(), e.job_id.clone()));
    }
    task.await.unwrap();
    assert_eq!(seen.first().unwrap(), &("added".to_owned(), "a".to_owned()));
    assert!(
        !seen.contains(&("added".to_owned(), "before".to_owned())),
        "from now: {seen:?}"
    );
    assert_eq!(
        follower.position(),
        Some(all_after(&env, "0-0").await.last().unwrap().id.as_str())
    );
}

async fn a_follower_resumes_after_an_id_through_a_killed_connection(env: Env) {
    let q = &env.queue;
    events_on(&env).await;
    for i in 0..3 {
        env.add(&format!("a{i}"), b"x").await;
    }
    let all = all_after(&env, "0-0").await;
    // Resuming after the first entry: the two after it, then what comes.
    let mut follower = q
        .events(EventsFrom::After(all[0].id.clone()))
        .await
        .unwrap();
    for want in ["a1", "a2"] {
        assert_eq!(follower.next().await.unwrap().job_id, want);
    }
    let waiting = tokio::spawn(async move {
        let mut got = Vec::new();
        for _ in 0..20 {
            let e = tokio::time::timeout(Duration::from_secs(30), follower.next())
                .await
                .expect("the follower rides through")
                .unwrap();
            got.push(e.job_id);
        }
        got
    });
    // While it waits: every connection but the raw one is killed, between adds.
    let other = env.other_client().await.queue(&env.prefix).unwrap();
    for i in 0..20 {
        if i % 5 == 0 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let _: redis::Value = env
                .cmd(&[b"CLIENT", b"KILL", b"TYPE", b"normal", b"SKIPME", b"yes"])
                .await;
        }
        let item = Item::with_id(format!("b{i}"), b"x".to_vec()).unwrap();
        // The killed connection's next call may fail: the add is tried until it is known.
        loop {
            match other.add(&item).await {
                Ok(_) => break,
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }
    let got = waiting.await.unwrap();
    let want: Vec<String> = (0..20).map(|i| format!("b{i}")).collect();
    assert_eq!(got, want, "nothing missed, nothing twice");
}

async fn a_bad_or_unknown_position_is_refused_and_a_trimmed_one_is_a_gap(env: Env) {
    let q = &env.queue;
    for bad in ["", "x", "1-", "-1", "1-2-3", "99999999999999999999999-0"] {
        let err = q
            .events(EventsFrom::After(bad.to_owned()))
            .await
            .err()
            .unwrap();
        assert_invalid(&err, "after", bad);
        let err = q.read_events(Some(bad), 10).await.unwrap_err();
        assert_invalid(&err, "after", bad);
    }
    assert_invalid(&q.read_events(None, 0).await.unwrap_err(), "count", "0");
    assert_invalid(
        &q.read_events(None, 1001).await.unwrap_err(),
        "count",
        "1001",
    );
    q.set_config(&QueueConfig::new().events(true).events_max_len(1))
        .await
        .unwrap();
    env.add("a", b"x").await;
    let last = q.read_events(None, 1).await.unwrap().last;
    // Later than the stream's last entry: an id it never gave.
    let (ms, _) = last.split_once('-').unwrap();
    let future = format!("{}-0", ms.parse::<u64>().unwrap() + 60_000);
    assert_invalid(
        &q.read_events(Some(&future), 10).await.unwrap_err(),
        "after",
        "future",
    );
    let err = q.events(EventsFrom::After(future)).await.err().unwrap();
    assert_invalid(&err, "after", "follower");
    // 300 more entries, trimmed to the last node: resuming after the first is a gap.
    let items: Vec<Item> = (0..300)
        .map(|i| Item::with_id(format!("i{i}"), b"x".to_vec()).unwrap())
        .collect();
    q.add_batch(&items).await.unwrap();
    let page = q.read_events(Some(&last), 1000).await.unwrap();
    assert_eq!(page.events[0].event, leaseq::GAP);
    assert_eq!(page.events[0].id, last);
    assert!(page.events.len() > 1 && page.events.len() < 300);
    assert_eq!(page.events.last().unwrap().job_id, "i299");
    let mut follower = q.events(EventsFrom::After(last)).await.unwrap();
    assert_eq!(follower.next().await.unwrap().event, leaseq::GAP);
    assert_eq!(follower.next().await.unwrap().job_id, page.events[1].job_id);
    // From the current end: no gap.
    let end = page.events.last().unwrap().id.clone();
    assert!(q
        .read_events(Some(&end), 10)
        .await
        .unwrap()
        .events
        .is_empty());
}

async fn wait_result_waits_on_the_stream(env: Env) {
    let q = &env.queue;
    events_on(&env).await;
    env.add("r", b"x").await;
    env.add("other", b"x").await;
    let waiter = {
        let q = q.clone();
        tokio::spawn(async move { q.wait_result("r", Duration::from_secs(30)).await })
    };
    // The wait is an XREAD on the stream, not a BLMOVE on the result key.
    let mut blocked = false;
    for _ in 0..100 {
        let clients: String = env.cmd(&[b"CLIENT", b"LIST"]).await;
        if clients.contains("cmd=xread") {
            blocked = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(blocked, "wait_result waits with XREAD while events are on");
    // Another item's events wake it, and it waits on.
    let mut leases = [env.lease().await.unwrap(), env.lease().await.unwrap()];
    leases.sort_by_key(|l| l.id() == "r");
    q.complete(&leases[0]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiter.is_finished());
    q.complete_with_result(&leases[1], Some(b"done"), None)
        .await
        .unwrap();
    let result = tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .unwrap()
        .unwrap()
        .unwrap()
        .expect("the result");
    assert_eq!(result.data, b"done");
    // The item's death event ends a wait for it (no result will come).
    env.add("doomed", b"x").await;
    let waiter = {
        let q = q.clone();
        tokio::spawn(async move { q.wait_result("doomed", Duration::from_secs(30)).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let lease = env.lease().await.unwrap();
    q.fail(&lease, "boom", "", leaseq::Retry::Never)
        .await
        .unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(&ended, Err(leaseq::Error::Dead { reason, .. }) if reason.contains("boom")),
        "{ended:?}"
    );
}

async fn batches_append_an_entry_per_item(env: Env) {
    let q = &env.queue;
    events_on(&env).await;
    let items: Vec<Item> = (0..4)
        .map(|i| Item::with_id(format!("b{i}"), b"x".to_vec()).unwrap())
        .collect();
    assert_eq!(q.add_batch(&items).await.unwrap(), 4);
    let leases = q.lease_batch(4, TTL, Wait::No).await.unwrap();
    assert_eq!(leases.len(), 4);
    // The batch's shortcut (first leases of plain items) and one kept result (one by one).
    let completions: Vec<leaseq::Completion<'_>> = vec![
        (&leases[0], None),
        (&leases[1], Some((b"r".as_slice(), None))),
    ];
    assert_eq!(q.complete_batch(&completions).await.unwrap(), [true, true]);
    let failures = [
        (&leases[2], "one", "E", Retry::After(Duration::ZERO)),
        (&leases[3], "two", "E", Retry::Never),
    ];
    q.fail_batch(&failures).await.unwrap();
    let (done, next) = q.complete_and_lease_batch(&[], 2, TTL).await.unwrap();
    assert!(done.is_empty());
    assert_eq!(next.len(), 1);
    let got: Vec<(String, String)> = kinds(&all_after(&env, "0-0").await)
        .into_iter()
        .skip(8)
        .collect();
    assert_eq!(
        got,
        pairs(&[
            ("completed", "b0"),
            ("completed", "b1"),
            ("failed", "b2"),
            ("retrying", "b2"),
            ("failed", "b3"),
            ("dead", "b3"),
            ("leased", "b2"),
        ])
    );
}

/// A schedule's tick appends `added` with the schedule's name; an item that waits for a
/// dependency appends `blocked`, then `unblocked` when the dependency completes; a dependant of
/// an item that dies dies too (`dead`, its reason naming the dependency).
async fn ticks_and_dependencies_append_their_entries(env: Env) {
    let q = &env.queue;
    events_on(&env).await;
    // An `every` schedule's first tick is one period after its upsert: fire it once it is due.
    let s = Schedule::every(Duration::from_secs(1))
        .missed(Missed::All(10))
        .item(Item::new(b"tick".to_vec()).name("beat"));
    assert!(q.upsert_schedule("beat", &s).await.unwrap());
    let mut fired = 0;
    for _ in 0..100 {
        fired += q.fire_due_schedules().await.unwrap().fired;
        if fired > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(fired > 0, "no tick fired within 5 s");
    let ticks: Vec<QueueEvent> = all_after(&env, "0-0").await;
    let tick = ticks
        .iter()
        .find(|e| e.event == "added")
        .expect("an added entry for the tick");
    assert!(tick.job_id.starts_with("beat@"), "{tick:?}");
    assert_eq!(tick.name.as_deref(), Some("beat"));
    assert!(
        tick.extra
            .iter()
            .any(|(k, v)| k == "schedule" && v == "beat"),
        "{tick:?}"
    );
    q.remove_schedule("beat").await.unwrap();
    let after = ticks.last().unwrap().id.clone();

    // Dependencies: `child` waits for `parent`; `orphan` for `doomed`, which dies.
    env.add("parent", b"p").await;
    env.add("doomed", b"d").await;
    q.add(
        &Item::with_id("child", b"c".to_vec())
            .unwrap()
            .depends_on(["parent"]),
    )
    .await
    .unwrap();
    q.add(
        &Item::with_id("orphan", b"o".to_vec())
            .unwrap()
            .depends_on(["doomed"])
            .on_dependency_failure(OnDependencyFailure::Fail),
    )
    .await
    .unwrap();
    // The tick's item, the parent and the doomed one (then the child, released).
    while let Some(lease) = q.lease(TTL, Wait::No).await.unwrap() {
        if lease.id() == "doomed" {
            q.fail(&lease, "boom", "E", Retry::Never).await.unwrap();
        } else {
            q.complete(&lease).await.unwrap();
        }
    }
    let got = all_after(&env, &after).await;
    let seen: Vec<(String, String)> = kinds(&got)
        .into_iter()
        .filter(|(_, id)| id == "child" || id == "orphan")
        .collect();
    assert_eq!(
        seen,
        pairs(&[
            ("blocked", "child"),
            ("blocked", "orphan"),
            ("unblocked", "child"),
            ("dead", "orphan"),
            ("leased", "child"),
            ("completed", "child"),
        ])
    );
    let unblocked = got.iter().find(|e| e.event == "unblocked").unwrap();
    assert!(unblocked
        .extra
        .iter()
        .any(|(k, v)| k == "state" && v == "waiting"));
    let dead = got
        .iter()
        .find(|e| e.event == "dead" && e.job_id == "orphan")
        .unwrap();
    assert!(
        dead.reason.as_deref().is_some_and(|r| r.contains("doomed")),
        "{dead:?}"
    );
}
