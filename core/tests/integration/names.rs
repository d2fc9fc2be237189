//! Jobs by name (spec/PROTOCOL.md 3.2, 4.4, 5.12, 13.1): an item's name is stored with it,
//! carried by its lease, shown by `get`, counted by name while the counters are on, and a
//! runner with handlers by name runs each job with its own handler, its fallback, or fails it
//! for good. The queue tests run against a single server and a local Redis Cluster.

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{assert_invalid, Env};
use leaseq::worker::{
    Event, Handlers, Job, JobError, Worker, WorkerOptions, NO_HANDLER_ERROR_TYPE,
};
use leaseq::{Item, QueueConfig, State};

on_both!(
    a_name_is_kept_leased_and_shown,
    names_are_counted_while_the_counters_are_on,
    a_bad_name_is_refused_before_anything_is_written,
);

fn named(id: &str, name: &str) -> Item {
    Item::with_id(id, id.as_bytes().to_vec())
        .unwrap()
        .name(name)
}

async fn a_name_is_kept_leased_and_shown(env: Env) {
    let q = &env.queue;
    q.add(&named("a", "send_email")).await.unwrap();
    env.add("plain", b"x").await;
    let got = q.get("a").await.unwrap().unwrap();
    assert_eq!(got.name.as_deref(), Some("send_email"));
    assert_eq!(got.state, State::Waiting);
    // A name makes the item one with options: its record holds the name.
    assert!(env.exists("job:a").await);
    let first = env.lease().await.unwrap();
    let second = env.lease().await.unwrap();
    let by_id: HashMap<_, _> = [&first, &second]
        .iter()
        .map(|l| (l.id().to_owned(), l.name().map(str::to_owned)))
        .collect();
    assert_eq!(by_id["a"].as_deref(), Some("send_email"));
    assert_eq!(
        by_id["plain"], None,
        "an item without a name leases without one"
    );
    // Failed and retried, the name stays with the item.
    let a = if first.id() == "a" { &first } else { &second };
    q.fail(a, "boom", "E", leaseq::Retry::After(Duration::ZERO))
        .await
        .unwrap();
    let again = env.lease().await.unwrap();
    assert_eq!((again.id(), again.name()), ("a", Some("send_email")));
    let page = q.list(State::Leased, 0, 10).await.unwrap();
    assert_eq!(page.len(), 2);
}

async fn names_are_counted_while_the_counters_are_on(env: Env) {
    let q = &env.queue;
    q.add(&named("off", "resize")).await.unwrap();
    let lease = env.lease().await.unwrap();
    q.complete(&lease).await.unwrap();
    assert_eq!(
        q.counts_by_name().await.unwrap(),
        None,
        "counters off: nothing counted, and no zeros"
    );
    q.set_config(&QueueConfig::new().stats(true)).await.unwrap();
    for (id, name) in [
        ("e1", "email"),
        ("e2", "email"),
        ("r1", "resize"),
        ("r2", "resize"),
    ] {
        q.add(&named(id, name).max_attempts(1)).await.unwrap();
    }
    while let Some(lease) = env.lease().await {
        if lease.id() == "r2" {
            q.fail(&lease, "too big", "TooBig", leaseq::Retry::Default)
                .await
                .unwrap();
        } else {
            q.complete(&lease).await.unwrap();
        }
    }
    let counts = q.counts_by_name().await.unwrap().expect("counting");
    let rows: Vec<_> = counts
        .iter()
        .map(|c| (c.name.as_str(), c.completed, c.failed, c.dead))
        .collect();
    assert_eq!(rows, [("email", 2, 0, 0), ("resize", 1, 1, 1)]);
    let stats = q.stats().await.unwrap();
    let minutes = stats.minutes.unwrap();
    let totals = minutes
        .iter()
        .fold((0, 0), |(c, f), m| (c + m.completed, f + m.failed));
    assert_eq!(totals, (3, 1), "the totals count named jobs too");
}

async fn a_bad_name_is_refused_before_anything_is_written(env: Env) {
    let q = &env.queue;
    let long = "n".repeat(leaseq::MAX_NAME_LEN + 1);
    for bad in ["", "a\nb", long.as_str()] {
        let err = q.add(&named("x", bad)).await.unwrap_err();
        assert_invalid(&err, "name", format!("name {bad:?}"));
        let err = q
            .add_batch(&[named("y", "ok"), named("z", bad)])
            .await
            .unwrap_err();
        assert_invalid(&err, "items", format!("batch with name {bad:?}"));
    }
    assert!(
        env.keys().await.is_empty(),
        "nothing written: {:?}",
        env.keys().await
    );
    let at_limit = "n".repeat(leaseq::MAX_NAME_LEN);
    assert!(q.add(&named("x", &at_limit)).await.unwrap());
    assert_eq!(q.get("x").await.unwrap().unwrap().name, Some(at_limit));
}

#[tokio::test]
async fn a_minute_counts_at_most_300_names_and_every_job_in_its_totals() {
    let env = Env::single("names-bounded").await;
    let q = &env.queue;
    q.set_config(&QueueConfig::new().stats(true)).await.unwrap();
    let items: Vec<Item> = (0..400)
        .map(|i| named(&format!("i{i}"), &format!("n{i:03}")))
        .collect();
    q.add_batch(&items).await.unwrap();
    let mut done = 0;
    loop {
        let leases = q
            .lease_batch(100, common::TTL, leaseq::Wait::No)
            .await
            .unwrap();
        if leases.is_empty() {
            break;
        }
        let all: Vec<leaseq::Completion<'_>> = leases.iter().map(|l| (l, None)).collect();
        done += q.complete_batch(&all).await.unwrap().len();
    }
    assert_eq!(done, 400);
    for key in env.keys().await.iter().filter(|k| k.contains(":rate:")) {
        let fields: usize = env.cmd(&[b"HLEN", key.as_bytes()]).await;
        assert!(
            fields <= 304,
            "{key} holds {fields} fields, at most 4 totals and 300 named"
        );
    }
    let counts = q.counts_by_name().await.unwrap().unwrap();
    assert!(
        counts.len() >= 300,
        "300 names counted at least: {}",
        counts.len()
    );
    let minutes = q.stats().await.unwrap().minutes.unwrap();
    assert_eq!(minutes.iter().map(|m| m.completed).sum::<u64>(), 400);
}

fn quick(options: &mut WorkerOptions) {
    options.heartbeat = Some(Duration::from_millis(200));
    options.housekeeping_every = Some(Duration::from_millis(200));
    options.poll_interval = Some(Duration::from_millis(200));
}

/// Runs `worker` until `done` ids have completed or died; returns the events' (name, id).
async fn run_until_done(worker: Worker, done: usize) -> Vec<(&'static str, String)> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let worker = worker.on_event(move |e: &Event| {
        if let (Some(id), "completed" | "dead") = (e.id(), e.name()) {
            sink.lock().unwrap().push((e.name(), id.to_owned()));
        }
    });
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    tokio::time::timeout(Duration::from_secs(60), async {
        while seen.lock().unwrap().len() < done {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("every job finished within a minute");
    handle.stop();
    run.await.unwrap().unwrap();
    let mut seen = seen.lock().unwrap().clone();
    seen.sort();
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn handlers_run_each_job_by_its_name_and_fail_the_unknown_for_good() {
    let env = Env::single("names-handlers").await;
    let q = &env.queue;
    for (id, name) in [("m1", "email"), ("r1", "resize"), ("u1", "unknown")] {
        q.add(&named(id, name)).await.unwrap();
    }
    env.add("plain", b"x").await;
    let ran = Arc::new(Mutex::new(Vec::new()));
    let (a, b) = (ran.clone(), ran.clone());
    let handlers = Handlers::new()
        .on("email", move |job: Job| {
            let ran = a.clone();
            async move {
                ran.lock().unwrap().push(format!("email:{}", job.id()));
                Ok::<_, JobError>(())
            }
        })
        .on("resize", move |job: Job| {
            let ran = b.clone();
            async move {
                ran.lock().unwrap().push(format!("resize:{}", job.id()));
                Ok::<_, JobError>(())
            }
        })
        .validated()
        .unwrap();
    let mut options = WorkerOptions::new();
    quick(&mut options);
    let seen = run_until_done(Worker::new(q.clone(), handlers).options(options), 4).await;
    let mut ran = ran.lock().unwrap().clone();
    ran.sort();
    assert_eq!(ran, ["email:m1", "resize:r1"]);
    assert_eq!(
        seen,
        [
            ("completed", "m1".to_owned()),
            ("completed", "r1".to_owned()),
            ("dead", "plain".to_owned()),
            ("dead", "u1".to_owned()),
        ]
    );
    let dead = q.get("u1").await.unwrap().unwrap();
    let (message, error_type) = dead.error.unwrap();
    assert_eq!(error_type, NO_HANDLER_ERROR_TYPE);
    assert!(
        message.contains("\"unknown\"") && message.contains("email, resize"),
        "{message}"
    );
    assert_eq!(
        dead.attempts, 1,
        "no retry: a runner without its handler cannot run it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bindings_table_of_names_routes_in_the_core_with_a_fallback() {
    let env = Env::single("names-binding-table").await;
    let q = &env.queue;
    for (id, name) in [("m1", "email"), ("u1", "unknown")] {
        q.add(&named(id, name)).await.unwrap();
    }
    env.add("plain", b"x").await;
    // What a binding does: one handler that looks the name up in its own table, the names
    // given to the core, which fails what no name and no fallback takes.
    let ran = Arc::new(Mutex::new(Vec::new()));
    let r = ran.clone();
    let mut options = WorkerOptions::new();
    quick(&mut options);
    options.handler_names = Some(vec!["email".to_owned()]);
    let worker = Worker::new(q.clone(), move |job: Job| {
        let ran = r.clone();
        async move {
            ran.lock()
                .unwrap()
                .push(format!("{}:{}", job.name().unwrap_or("-"), job.id()));
            Ok::<_, JobError>(())
        }
    });
    let seen = run_until_done(worker.options(options.clone()), 3).await;
    assert_eq!(
        seen,
        [
            ("completed", "m1".to_owned()),
            ("dead", "plain".to_owned()),
            ("dead", "u1".to_owned())
        ]
    );
    assert_eq!(ran.lock().unwrap().clone(), ["email:m1"]);

    // With a fallback, the rest reach the handler too.
    for (id, name) in [("m2", "email"), ("u2", "unknown")] {
        q.add(&named(id, name)).await.unwrap();
    }
    env.add("plain2", b"x").await;
    ran.lock().unwrap().clear();
    options.fallback_handler = Some(true);
    let r = ran.clone();
    let worker = Worker::new(q.clone(), move |job: Job| {
        let ran = r.clone();
        async move {
            ran.lock()
                .unwrap()
                .push(format!("{}:{}", job.name().unwrap_or("-"), job.id()));
            Ok::<_, JobError>(())
        }
    });
    run_until_done(worker.options(options), 3).await;
    let mut ran = ran.lock().unwrap().clone();
    ran.sort();
    assert_eq!(ran, ["-:plain2", "email:m2", "unknown:u2"]);
}

#[tokio::test]
async fn a_bad_table_of_names_is_refused_as_the_runner_starts() {
    let env = Env::single("names-bad-table").await;
    let mut options = WorkerOptions::new();
    options.handler_names = Some(vec!["a".to_owned(), "a".to_owned()]);
    let err = Worker::new(env.queue.clone(), |_job: Job| async {
        Ok::<_, JobError>(())
    })
    .options(options)
    .run()
    .await
    .unwrap_err();
    assert_invalid(&err, "handlers", "a name given twice");
    let err = Handlers::new().validated().unwrap_err();
    assert_invalid(&err, "handlers", "an empty table");
}
