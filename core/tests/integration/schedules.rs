//! Recurring jobs (spec/PROTOCOL.md 5.23) against a real server: upsert, list, remove, the
//! missed-tick policies, exactly one item per tick with concurrent firers and upserts, a runner
//! that fires after a downtime, and refusals that write nothing. Time is driven by placing a
//! schedule's `from` and `anchor` relative to the server's TIME (a schedule nobody fired for a
//! while), never by measuring how long something took.

use crate::common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::{assert_invalid, Env};
use leaseq::worker::{Job, JobError, Worker, WorkerOptions};
use leaseq::{Error, Item, Missed, Queue, Schedule, State};

on_both!(upsert_get_list_and_remove, missed_ticks_follow_each_policy,);

const S: u64 = 1000;

/// The server's clock, ms.
async fn server_now(env: &Env) -> u64 {
    let t: Vec<String> = env.cmd(&[b"TIME"]).await;
    t[0].parse::<u64>().unwrap() * 1000 + t[1].parse::<u64>().unwrap() / 1000
}

/// Makes schedule `name` look as if nobody fired it since `from`, with its ticks at `anchor` plus
/// whole periods: what a queue without a runner for a while holds.
async fn rewind(env: &Env, name: &str, from: u64, anchor: u64) {
    let key = env.key(&format!("cron:{name}"));
    let (from, anchor) = (from.to_string(), anchor.to_string());
    let _: i64 = env
        .cmd(&[
            b"HSET",
            key.as_bytes(),
            b"from",
            from.as_bytes(),
            b"anchor",
            anchor.as_bytes(),
        ])
        .await;
    let _: i64 = env.cmd(&[b"HDEL", key.as_bytes(), b"next"]).await;
    let _: i64 = env
        .cmd(&[
            b"ZADD",
            env.key("cron").as_bytes(),
            from.as_bytes(),
            name.as_bytes(),
        ])
        .await;
}

/// The ticks of the items schedule `name` added (their ids are `<name>@<tick>`), waiting.
async fn fired_ticks(queue: &Queue, name: &str) -> Vec<u64> {
    let mut ticks = BTreeSet::new();
    let mut start = 0;
    loop {
        let page = queue.list(State::Waiting, start, 1000).await.unwrap();
        for e in &page {
            if let Some(t) = e.id.strip_prefix(&format!("{name}@")) {
                assert!(
                    ticks.insert(t.parse::<u64>().unwrap()),
                    "two items of tick {t}"
                );
            }
        }
        if page.len() < 1000 {
            break;
        }
        start += 1000;
    }
    ticks.into_iter().collect()
}

async fn upsert_get_list_and_remove(env: Env) {
    let q = &env.queue;
    let nightly = Schedule::cron("0 3 * * *")
        .tz("Europe/Berlin")
        .item(Item::new("report").priority(5).name("nightly_report"))
        .missed(Missed::Once);
    assert!(q.upsert_schedule("nightly", &nightly).await.unwrap());
    assert!(
        !q.upsert_schedule("nightly", &nightly).await.unwrap(),
        "the second is a change"
    );
    let every = Schedule::every(Duration::from_secs(60)).missed(Missed::All(3));
    assert!(q.upsert_schedule("minutely", &every).await.unwrap());

    let info = q.get_schedule("nightly").await.unwrap().expect("stored");
    assert_eq!(info.version, 2);
    let stored = info.schedule.expect("readable");
    assert_eq!(stored.time_zone(), Some("Europe/Berlin"));
    assert_eq!(stored.missed_policy(), Missed::Once);
    assert_eq!(stored.template().data(), b"report");
    let now = server_now(&env).await;
    let next = info.next.expect("a next fire time");
    assert!(
        next > now - 10 * S && next <= now + 86_400 * S,
        "{next} vs {now}"
    );
    assert_eq!(
        next % 3_600_000,
        0,
        "03:00 in Berlin is a whole hour in UTC"
    );

    let page = q.schedules(0, 100).await.unwrap();
    assert_eq!(page.total, 2);
    let names: BTreeSet<String> = page.schedules.iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, ["minutely", "nightly"].map(String::from).into());
    // Firing now settles the next fire times and fires nothing (no tick is due yet).
    let report = q.fire_due_schedules().await.unwrap();
    assert_eq!((report.due, report.fired), (2, 0));
    assert!(report.next_due_in.is_some());
    let minutely = q.get_schedule("minutely").await.unwrap().unwrap();
    assert_eq!(minutely.next, Some(minutely.created + 60 * S));
    assert_eq!(q.queue_len().await.unwrap(), 0);

    assert!(q.remove_schedule("nightly").await.unwrap());
    assert!(!q.remove_schedule("nightly").await.unwrap());
    assert!(q.get_schedule("nightly").await.unwrap().is_none());
    assert!(q.remove_schedule("minutely").await.unwrap());
    assert!(env.keys().await.is_empty(), "{:?}", env.keys().await);

    // Refused before anything is written, naming the argument.
    for (schedule, argument) in [
        (Schedule::cron("0 3 * *"), "cron"),
        (Schedule::cron("0 25 * * *"), "cron"),
        (Schedule::cron("0 3 * * *").tz("Europe/Nowhere"), "tz"),
        (Schedule::every(Duration::from_millis(10)), "every"),
        (
            Schedule::every(Duration::from_secs(5)).missed(Missed::All(0)),
            "missed",
        ),
        (
            Schedule::every(Duration::from_secs(5))
                .item(Item::new("x").delay(Duration::from_secs(1))),
            "item",
        ),
        (
            Schedule::every(Duration::from_secs(5)).item(Item::new("x").depends_on(["other"])),
            "item",
        ),
    ] {
        let err = q.upsert_schedule("bad", &schedule).await.unwrap_err();
        assert_invalid(&err, argument, format!("{schedule:?}"));
    }
    let ok = Schedule::every(Duration::from_secs(5));
    assert_invalid(
        &q.upsert_schedule("", &ok).await.unwrap_err(),
        "name",
        "empty",
    );
    assert_invalid(
        &q.upsert_schedule("a\u{7}", &ok).await.unwrap_err(),
        "name",
        "control",
    );
    assert!(env.keys().await.is_empty());
}

/// A schedule every 4 s whose ticks fall at T0 - 2.5 s, T0 - 6.5 s, T0 - 10.5 s, ... and T0 +
/// 1.5 s, nobody having fired it for a minute (T0: the server's clock just before firing). The
/// grace (10 s) makes the first two on time and the 13 ticks of (T0 - 60 s, T0 - 10.5 s] missed,
/// whatever the few milliseconds the calls take.
async fn missed_ticks_follow_each_policy(env: Env) {
    let q = &env.queue;
    for (name, missed, fired) in [
        ("skip", Missed::Skip, 2),
        ("once", Missed::Once, 3),
        ("all5", Missed::All(5), 7),
        ("all", Missed::All(1000), 15),
    ] {
        let schedule = Schedule::every(Duration::from_secs(4))
            .item(Item::new(name))
            .missed(missed);
        q.upsert_schedule(name, &schedule).await.unwrap();
        let t0 = server_now(&env).await;
        rewind(&env, name, t0 - 60 * S, t0 + 1500).await;
        let report = q.fire_due_schedules().await.unwrap();
        assert_eq!(report.fired, fired, "{name}");
        assert_eq!(report.skipped, 15 - fired as u64, "{name}");
        let ticks = fired_ticks(q, name).await;
        let want: Vec<u64> = (0..fired as u64)
            .rev()
            .map(|k| t0 - 2500 - 4000 * k)
            .collect();
        assert_eq!(ticks, want, "{name}: the latest ticks");
        let info = q.get_schedule(name).await.unwrap().unwrap();
        assert_eq!(info.next, Some(t0 + 1500), "{name}");
        assert_eq!(
            (info.fired, info.skipped),
            (fired as u64, 15 - fired as u64)
        );
        assert_eq!(info.last_tick, Some(t0 - 2500));
        // Fired again at once: nothing is due.
        assert_eq!(q.fire_due_schedules().await.unwrap().fired, 0);
        q.remove_schedule(name).await.unwrap();
        // The items carry the template.
        let job = q
            .get(format!("{name}@{}", t0 - 2500))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(job.data, name.as_bytes());
    }
}

/// Several firers at once on the same schedules: each tick adds one item, the counters add up,
/// and all but one fire call per schedule and round find it moved.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_firers_add_one_item_per_tick() {
    let env = Env::single("sched-concurrent").await;
    let q = &env.queue;
    for round in 0..5 {
        let names: Vec<String> = (0..4).map(|i| format!("s{round}-{i}")).collect();
        let t0 = server_now(&env).await;
        for name in &names {
            let schedule = Schedule::every(Duration::from_secs(1)).missed(Missed::All(1000));
            q.upsert_schedule(name, &schedule).await.unwrap();
            rewind(&env, name, t0 - 30 * S - 500, t0 - 100 * S).await;
        }
        let firers: Vec<_> = (0..6)
            .map(|_| {
                let q = q.clone();
                tokio::spawn(async move { q.fire_due_schedules().await.unwrap() })
            })
            .collect();
        let mut fired = 0;
        for f in firers {
            fired += f.await.unwrap().fired;
        }
        let mut total = 0;
        for name in &names {
            let info = q.get_schedule(name).await.unwrap().unwrap();
            let ticks = fired_ticks(q, name).await;
            // Every whole-second tick after from, up to the from the winner stored: no gap.
            let first = t0 - 30 * S;
            let want: Vec<u64> = (0..)
                .map(|k| first + k * S)
                .take_while(|t| *t <= info.from)
                .collect();
            assert_eq!(ticks, want, "{name}");
            assert_eq!(info.fired, ticks.len() as u64, "{name}: counted once");
            total += ticks.len();
        }
        assert_eq!(
            fired, total,
            "round {round}: the firers' reports add up to the items"
        );
    }
}

/// Firers racing through real ticks while the schedule is upserted again and again (its data,
/// then its period): no tick adds two items, the fired counter equals the items, and the ticks
/// are exactly the grid's (missed ones too: policy all), the new period's after the change.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn upserts_never_fire_a_tick_twice_nor_skip_one() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let env = Env::single("sched-upserts").await;
    let q = &env.queue;
    let base = Schedule::every(Duration::from_secs(1)).missed(Missed::All(1000));
    q.upsert_schedule("u", &base.clone().item(Item::new("v0")))
        .await
        .unwrap();
    let created = q.get_schedule("u").await.unwrap().unwrap().created;
    let race = |passes: usize| {
        let stop = Arc::new(AtomicBool::new(false));
        let firers: Vec<_> = (0..4)
            .map(|_| {
                let (q, stop) = (q.clone(), stop.clone());
                tokio::spawn(async move {
                    for _ in 0..passes {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        q.fire_due_schedules().await.unwrap();
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                })
            })
            .collect::<Vec<_>>();
        (stop, firers)
    };
    // Four upserts of the data while four firers race.
    let (stop, firers) = race(usize::MAX);
    for v in 1..=4 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        q.upsert_schedule("u", &base.clone().item(Item::new(format!("v{v}"))))
            .await
            .unwrap();
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    stop.store(true, Ordering::SeqCst);
    for f in firers {
        f.await.unwrap();
    }
    // The period changes to 2 s (no firer runs): ticks after the change are the anchor plus
    // whole 2 s periods.
    let changed = Schedule::every(Duration::from_secs(2)).missed(Missed::All(1000));
    q.upsert_schedule("u", &changed).await.unwrap();
    let info = q.get_schedule("u").await.unwrap().unwrap();
    assert_eq!(info.version, 6);
    let change_from = info.from;
    let (_, firers) = race(60);
    for f in firers {
        f.await.unwrap();
    }
    let info = q.get_schedule("u").await.unwrap().unwrap();
    let ticks = fired_ticks(q, "u").await;
    assert_eq!(info.fired, ticks.len() as u64, "no tick counted twice");
    let mut want: Vec<u64> = (1..)
        .map(|k| created + k * S)
        .take_while(|t| *t <= change_from)
        .collect();
    want.extend(
        (1..)
            .map(|k| created + 2 * k * S)
            .skip_while(|t| *t <= change_from)
            .take_while(|t| *t <= info.from),
    );
    assert_eq!(ticks, want);
    assert!(
        ticks.len() >= 3,
        "the test ran through several ticks: {ticks:?}"
    );
}

/// An upsert after a long downtime does not fire the ticks long past (they are decided), only
/// those within the grace before it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upsert_decides_ticks_long_past() {
    let env = Env::single("sched-upsert-past").await;
    let q = &env.queue;
    let schedule = Schedule::every(Duration::from_secs(4)).missed(Missed::All(1000));
    q.upsert_schedule("p", &schedule).await.unwrap();
    let t0 = server_now(&env).await;
    rewind(&env, "p", t0 - 3_600 * S, t0 + 1500).await;
    q.upsert_schedule("p", &schedule.clone().item(Item::new("new")))
        .await
        .unwrap();
    q.fire_due_schedules().await.unwrap();
    // Within the grace of the upsert (a few ms after t0): t0 - 2.5 s and t0 - 6.5 s.
    assert_eq!(fired_ticks(q, "p").await, [t0 - 6500, t0 - 2500]);
}

/// A bounded queue without room refuses the fire and writes nothing; a wrong-typed key fails
/// the call before any write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_fires_change_nothing() {
    let env = Env::single("sched-refused").await;
    let q = &env.queue;
    let mut config = leaseq::QueueConfig::default();
    config.capacity = Some(1);
    q.set_config(&config).await.unwrap();
    q.upsert_schedule(
        "full",
        &Schedule::every(Duration::from_secs(4)).missed(Missed::All(10)),
    )
    .await
    .unwrap();
    let t0 = server_now(&env).await;
    rewind(&env, "full", t0 - 20 * S, t0 + 1500).await;
    let err = q.fire_due_schedules().await.unwrap_err();
    assert!(matches!(err, Error::Full(_)), "{err}");
    let info = q.get_schedule("full").await.unwrap().unwrap();
    assert_eq!((info.from, info.fired), (t0 - 20 * S, 0), "nothing written");
    assert_eq!(q.queue_len().await.unwrap(), 0);
    q.reset_config().await.unwrap();
    assert_eq!(q.fire_due_schedules().await.unwrap().fired, 5);

    let other = env.client.queue(&format!("{}x", env.prefix)).unwrap();
    let _: () = env
        .cmd(&[
            b"SET",
            format!("{}x:cron", env.prefix).as_bytes(),
            b"not a zset",
        ])
        .await;
    let err = other
        .upsert_schedule("w", &Schedule::every(Duration::from_secs(4)))
        .await
        .unwrap_err();
    assert_eq!(err.code(), leaseq::ErrorCode::WrongType, "{err}");
    let t: i64 = env
        .cmd(&[b"EXISTS", format!("{}x:cron:w", env.prefix).as_bytes()])
        .await;
    assert_eq!(t, 0, "nothing written");
}

/// No runner for hours: the runner that comes back (and takes the housekeeping lock) fires the
/// missed ticks per each schedule's policy, on its own, with no call from the test.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_runner_back_after_a_downtime_fires_missed_ticks_per_policy() {
    let env = Env::single("sched-runner").await;
    let q = &env.queue;
    let t0 = server_now(&env).await;
    // Hourly ticks at T0 - 0.5 h, - 1.5 h, ..., - 4.5 h since `from` (T0 - 5 h); next T0 + 0.5 h.
    for (name, missed) in [
        ("skip", Missed::Skip),
        ("once", Missed::Once),
        ("all3", Missed::All(3)),
    ] {
        let schedule = Schedule::every(Duration::from_secs(3600))
            .item(Item::new(name))
            .missed(missed);
        q.upsert_schedule(name, &schedule).await.unwrap();
        rewind(&env, name, t0 - 5 * 3_600 * S, t0 + 1_800 * S).await;
    }
    let mut options = WorkerOptions::new();
    options.heartbeat = Some(Duration::from_millis(200));
    options.housekeeping_every = Some(Duration::from_millis(200));
    options.concurrency = Some(1);
    // The handler never gets a job: the runner is paused by a queue pause, so that the items
    // stay to be counted.
    q.pause().await.unwrap();
    let worker =
        Worker::new(q.clone(), |_job: Job| async { Ok::<(), JobError>(()) }).options(options);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let mut settled = true;
            for name in ["skip", "once", "all3"] {
                let info = q.get_schedule(name).await.unwrap().unwrap();
                settled &= info.from >= t0;
            }
            if settled {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the runner fired within a minute");
    handle.stop();
    run.await.unwrap().unwrap();
    q.resume().await.unwrap();
    let hour = 3_600 * S;
    assert_eq!(fired_ticks(q, "skip").await, Vec::<u64>::new());
    assert_eq!(fired_ticks(q, "once").await, [t0 - hour / 2]);
    assert_eq!(
        fired_ticks(q, "all3").await,
        [t0 - 5 * hour / 2, t0 - 3 * hour / 2, t0 - hour / 2]
    );
    assert_eq!(q.get_schedule("skip").await.unwrap().unwrap().skipped, 5);
}
