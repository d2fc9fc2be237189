//! The runner engine (`leaseq::worker`, spec/PROTOCOL.md 13) against a real Redis: outcomes,
//! the lease-lost signal, graceful shutdown, outages (a restart keeping data, CLIENT KILL), the
//! registry and housekeeping without a cleaner.

use crate::common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{assert_invalid, Env};
use leaseq::worker::{
    CancelReason, Event, Handler, HandlerFuture, Job, JobError, Outcome, Reply, Report, Worker,
    WorkerOptions, TIMEOUT_ERROR_TYPE,
};
use leaseq::{Backoff, Item, Queue, RenewOutcome, State};
use tokio::sync::mpsc;

/// Events as they happen, for tests to wait on instead of sleeping.
fn event_channel() -> (
    impl Fn(&Event) + Send + Sync + Clone + 'static,
    mpsc::UnboundedReceiver<Event>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    (move |e: &Event| drop(tx.send(e.clone())), rx)
}

/// Waits (at most a minute) until `done` says the events seen so far are enough.
async fn wait_events(
    rx: &mut mpsc::UnboundedReceiver<Event>,
    mut done: impl FnMut(&Event) -> bool,
) {
    tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(e) = rx.recv().await {
            if done(&e) {
                return;
            }
        }
        panic!("the runner's events ended");
    })
    .await
    .expect("the expected events within a minute");
}

fn quick(options: &mut WorkerOptions) {
    options.heartbeat = Some(Duration::from_millis(200));
    options.housekeeping_every = Some(Duration::from_millis(200));
    options.poll_interval = Some(Duration::from_millis(200));
}

async fn settled(queue: &Queue) -> bool {
    let s = queue.stats().await.unwrap();
    s.waiting + s.delayed + s.leased + s.processing == 0
}

/// A flow's parent, run by a runner, reads its children's results from its job (BullMQ's
/// `getChildrenValues`), in the order the flow gave them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flows_parent_reads_its_childrens_results_from_its_job() {
    let env = Env::single("runner-flow-results").await;
    let q = env.queue.clone();
    let item = |id: &str| Item::with_id(id, id).unwrap();
    let children = [leaseq::Flow::new(item("part1")), item("part2").into()];
    assert_eq!(q.add_flow(&item("report"), &children).await.unwrap(), 3);
    let mut options = WorkerOptions::new();
    options.concurrency = Some(2);
    quick(&mut options);
    let worker = Worker::new(q.clone(), |job: Job| async move {
        if job.id() != "report" {
            return Ok::<_, JobError>(format!("done {}", job.id()));
        }
        let read: Vec<String> = job
            .dependency_results()
            .await
            .map_err(|e| JobError::new(e.to_string()))?
            .into_iter()
            .map(|(id, r)| format!("{id}={}", String::from_utf8_lossy(&r.unwrap_or_default())))
            .collect();
        Ok(read.join(";"))
    })
    .options(options);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let got = q
        .wait_result("report", Duration::from_secs(60))
        .await
        .unwrap()
        .expect("the parent ran");
    assert_eq!(got.data, b"part1=done part1;part2=done part2");
    handle.stop();
    run.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn outcomes_complete_retry_and_dead_letter() {
    let env = Env::single("runner-outcomes").await;
    let q = &env.queue;
    for i in 0..20 {
        q.add(&Item::with_id(format!("ok-{i}"), format!("{i}")).unwrap())
            .await
            .unwrap();
    }
    let fixed = Backoff::fixed(Duration::from_millis(10));
    for i in 0..3 {
        let item = Item::with_id(format!("flaky-{i}"), "x")
            .unwrap()
            .max_attempts(2)
            .backoff(fixed);
        q.add(&item).await.unwrap();
    }
    q.add(&Item::with_id("poison", "x").unwrap()).await.unwrap();
    q.add(&Item::with_id("panics", "x").unwrap().max_attempts(1))
        .await
        .unwrap();

    let (sink, mut rx) = event_channel();
    let mut options = WorkerOptions::new();
    options.concurrency = Some(4);
    quick(&mut options);
    let worker = Worker::new(q.clone(), |job: Job| async move {
        let id = job.id().to_owned();
        if id.starts_with("flaky") {
            return Err(
                JobError::new(format!("attempt {} failed", job.attempt())).with_type("Flaky")
            );
        }
        if id == "poison" {
            return Err(JobError::unrecoverable("cannot parse"));
        }
        if id == "panics" {
            panic!("boom");
        }
        Ok(format!("done {}", String::from_utf8_lossy(job.data())))
    })
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));

    let (mut completed, mut dead, mut retried) = (0, HashSet::new(), 0);
    wait_events(&mut rx, |e| {
        match e {
            Event::Completed { .. } => completed += 1,
            Event::Dead { id, .. } => drop(dead.insert(id.clone())),
            Event::Retrying { .. } => retried += 1,
            _ => {}
        }
        completed == 20 && dead.len() == 5
    })
    .await;
    handle.stop();
    let report: Report = run.await.unwrap().unwrap();

    assert_eq!(
        retried, 3,
        "each flaky item retried once before its second, last attempt"
    );
    let want: HashSet<String> = ["flaky-0", "flaky-1", "flaky-2", "poison", "panics"]
        .map(String::from)
        .into();
    assert_eq!(dead, want);
    assert_eq!((report.completed, report.dead, report.retried), (20, 5, 3));
    assert_eq!(q.count(State::Dead).await.unwrap(), 5);
    assert!(settled(q).await);
    let result = q
        .result("ok-7")
        .await
        .unwrap()
        .expect("the return value is kept");
    assert_eq!(result.data, b"done 7");
    let job = q.get("panics").await.unwrap().unwrap();
    let (message, kind) = job.error.clone().expect("the failure is recorded");
    assert!(message.contains("boom") && kind == "panic", "{job:?}");
    assert!(
        q.runners().await.unwrap().runners.is_empty(),
        "the runner left the registry"
    );
}

/// A runner on a closed client returns `Closed` at once, running nothing; one whose client is
/// closed as it runs stops and returns `Closed` too, not an empty report (a user's trial saw
/// both "succeed" with zero counts).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_closed_client_ends_a_runner_with_closed() {
    let env = Env::single("runner-closed").await;
    env.queue
        .add(&Item::with_id("a", "x").unwrap())
        .await
        .unwrap();
    let closed = leaseq::Client::connect(&env.urls[0]).await.unwrap();
    let queue = closed.queue(&env.prefix).unwrap();
    closed.close();
    let handler = |_job: Job| async { Outcome::Complete(None) };
    let err = Worker::new(queue, handler)
        .run_until(std::future::pending())
        .await
        .unwrap_err();
    assert!(matches!(err, leaseq::Error::Closed), "{err:?}");
    assert_eq!(env.queue.count(State::Waiting).await.unwrap(), 1);

    // Closed while it runs: the handler closes the client.
    let client = leaseq::Client::connect(&env.urls[0]).await.unwrap();
    let queue = client.queue(&env.prefix).unwrap();
    let mut options = WorkerOptions::new();
    quick(&mut options);
    let run = Worker::new(queue, move |_job: Job| {
        let client = client.clone();
        async move {
            client.close();
            Outcome::Complete(None)
        }
    })
    .options(options)
    .run_until(std::future::pending());
    let err = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the runner stops once its client is closed")
        .unwrap_err();
    assert!(matches!(err, leaseq::Error::Closed), "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cancelled_job_is_told_its_lease_is_lost() {
    let env = Env::single("runner-lost").await;
    let q = &env.queue;
    q.add(&Item::with_id("long", "x").unwrap()).await.unwrap();
    let (sink, mut rx) = event_channel();
    let (started_tx, mut started) = mpsc::unbounded_channel::<()>();
    let told = Arc::new(Mutex::new(None));
    let told2 = told.clone();
    let mut options = WorkerOptions::new();
    options.lease_ttl = Some(Duration::from_millis(900));
    options.renew_every = Some(Duration::from_millis(100));
    quick(&mut options);
    let worker = Worker::new(q.clone(), move |job: Job| {
        let started_tx = started_tx.clone();
        let told = told2.clone();
        async move {
            started_tx.send(()).unwrap();
            // Runs until told to stop, however long that takes (past its TTL: renewed). A
            // lost lease tells it through the one token a timeout uses too.
            job.cancelled().await;
            assert!(job.is_lost());
            *told.lock().unwrap() = Some((job.lost_because(), job.cancel_reason()));
            Outcome::Complete(None)
        }
    })
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    started.recv().await.unwrap();
    // Held well past its 900 ms TTL: the runner renews it.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        q.count(State::Leased).await.unwrap(),
        1,
        "renewed past its TTL"
    );
    assert_eq!(q.cancel("long").await.unwrap(), Some(State::Leased));
    wait_events(&mut rx, |e| {
        matches!(
            e,
            Event::LeaseLost {
                why: RenewOutcome::Cancelled,
                // The event says which attempt lost it.
                attempt: 1,
                ..
            }
        )
    })
    .await;
    handle.stop();
    let report = run.await.unwrap().unwrap();
    assert_eq!(
        *told.lock().unwrap(),
        Some((Some(RenewOutcome::Cancelled), Some(CancelReason::LeaseLost)))
    );
    assert_eq!((report.completed, report.lost, report.timed_out), (0, 1, 0));
    assert!(
        q.get("long").await.unwrap().is_none(),
        "the cancel removed it"
    );
}

/// A complete that Redis refuses for longer than the lease's time to live (it keeps a result,
/// and the server is over `maxmemory`: spec/PROTOCOL.md 4.1, 13.1) keeps its lease: the runner
/// renews it while it sends the complete again, so the item is not taken by another lease and
/// run twice. Once memory is freed, the complete goes through, with its result.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_refused_complete_keeps_its_lease_until_it_goes_through() {
    let env = Env::single("runner-refused").await;
    let server = env.server.as_ref().expect("a server of its own");
    let q = &env.queue;
    q.add(&Item::with_id("kept", "x").unwrap()).await.unwrap();
    let (sink, mut rx) = event_channel();
    let (started_tx, mut started) = mpsc::unbounded_channel::<()>();
    let go = Arc::new(tokio::sync::Notify::new());
    let runs = Arc::new(Mutex::new(0));
    let (go2, runs2) = (go.clone(), runs.clone());
    let mut options = WorkerOptions::new();
    options.lease_ttl = Some(Duration::from_millis(600));
    options.renew_every = Some(Duration::from_millis(100));
    quick(&mut options);
    let worker = Worker::new(q.clone(), move |_job: Job| {
        let (started_tx, go, runs) = (started_tx.clone(), go2.clone(), runs2.clone());
        async move {
            *runs.lock().unwrap() += 1;
            started_tx.send(()).unwrap();
            go.notified().await;
            Outcome::Complete(Some(b"the result".to_vec()))
        }
    })
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    started.recv().await.unwrap();
    assert_eq!(server.command("CONFIG SET maxmemory 1").trim(), "+OK");
    go.notify_one();
    wait_events(&mut rx, |e| {
        matches!(e, Event::Error { during: "finish", error }
            if error.code() == leaseq::ErrorCode::OutOfMemory)
    })
    .await;
    // Refused for four times the lease's TTL: the lease is still held, and another client's
    // lease (which recovers expired leases first) gets nothing.
    let other = leaseq::Client::connect(&env.urls[0]).await.unwrap();
    let other = other.queue(q.prefix()).unwrap();
    for _ in 0..12 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let leased = other
            .lease(Duration::from_secs(30), leaseq::Wait::No)
            .await
            .unwrap();
        assert!(leased.is_none(), "the refused complete's lease was taken");
    }
    let job = q.get("kept").await.unwrap().expect("the item");
    assert_eq!(job.state, State::Leased, "{job:?}");
    assert_eq!(server.command("CONFIG SET maxmemory 0").trim(), "+OK");
    wait_events(&mut rx, |e| matches!(e, Event::Completed { .. })).await;
    handle.stop();
    let report = run.await.unwrap().unwrap();
    assert_eq!((report.completed, report.lost), (1, 0));
    assert_eq!(*runs.lock().unwrap(), 1, "the handler ran once");
    let result = q.result("kept").await.unwrap().expect("the kept result");
    assert_eq!(result.data, b"the result");
    assert_eq!(result.attempts, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn shutdown_waits_for_handlers_then_releases_the_rest() {
    let env = Env::single("runner-shutdown").await;
    let q = &env.queue;
    q.add(&Item::with_id("quick", "x").unwrap()).await.unwrap();
    q.add(&Item::with_id("stuck", "x").unwrap()).await.unwrap();
    let (started_tx, mut started) = mpsc::unbounded_channel::<String>();
    let (finish_tx, finish_rx) = tokio::sync::watch::channel(false);
    let mut options = WorkerOptions::new();
    options.concurrency = Some(2);
    options.shutdown_timeout = Some(Duration::from_millis(500));
    quick(&mut options);
    let worker = Worker::new(q.clone(), move |job: Job| {
        let started_tx = started_tx.clone();
        let mut finish = finish_rx.clone();
        async move {
            started_tx.send(job.id().to_owned()).unwrap();
            if job.id() == "stuck" {
                // Never ends by itself: only a forced shutdown's abort ends it.
                std::future::pending::<()>().await;
            }
            let _ = finish.wait_for(|f| *f).await;
            Outcome::Complete(None)
        }
    })
    .options(options);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let mut seen = HashSet::new();
    while seen.len() < 2 {
        seen.insert(started.recv().await.unwrap());
    }
    handle.stop();
    // The shutdown waits: "quick" may still finish, and does.
    finish_tx.send(true).unwrap();
    let report = run.await.unwrap().unwrap();
    assert_eq!((report.completed, report.released), (1, 1));
    assert!(q.get("quick").await.unwrap().is_none());
    let stuck = q.get("stuck").await.unwrap().expect("released, not lost");
    assert_eq!(stuck.state, State::Waiting);
    assert_eq!(stuck.attempts, 0, "a release gives the attempt back");
}

/// A handler past its timeout is told (reason `timeout`) and, cooperating, ends at once: its
/// attempt fails with the timeout error whatever it returned, is retried with the backoff, and
/// dies when out of attempts. A handler within its timeout completes as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_handler_past_its_timeout_is_told_and_its_attempt_fails() {
    let env = Env::single("runner-timeout").await;
    let q = &env.queue;
    let fixed = Backoff::fixed(Duration::from_millis(10));
    let slow = Item::with_id("slow", "x").unwrap().max_attempts(2);
    q.add(&slow.backoff(fixed)).await.unwrap();
    q.add(&Item::with_id("fast", "x").unwrap()).await.unwrap();
    let (sink, mut rx) = event_channel();
    let reasons = Arc::new(Mutex::new(Vec::new()));
    let seen = reasons.clone();
    let mut options = WorkerOptions::new();
    options.concurrency = Some(2);
    options.job_timeout = Some(Duration::from_millis(300));
    quick(&mut options);
    let worker = Worker::new(q.clone(), move |job: Job| {
        let seen = seen.clone();
        async move {
            if job.id() == "slow" {
                // Never done by itself: waits to be told, then says it succeeded (which a
                // timed-out attempt cannot).
                job.cancelled().await;
                seen.lock()
                    .unwrap()
                    .push((job.cancel_reason(), job.is_lost()));
            }
            Ok::<(), JobError>(())
        }
    })
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let (mut timed_out, mut dead, mut completed) = (0, false, false);
    wait_events(&mut rx, |e| {
        match e {
            Event::TimedOut { id, timeout, .. } => {
                assert_eq!(
                    (id.as_str(), *timeout),
                    ("slow", Duration::from_millis(300))
                );
                timed_out += 1;
            }
            Event::Retrying { id, error, .. } => {
                assert_eq!(id, "slow");
                assert!(error.contains("timeout"), "{error}");
            }
            Event::Dead { id, .. } => dead |= id == "slow",
            Event::Completed { id, .. } => completed |= id == "fast",
            _ => {}
        }
        dead && completed
    })
    .await;
    handle.stop();
    let report = run.await.unwrap().unwrap();
    assert_eq!(timed_out, 2);
    assert_eq!(
        (
            report.completed,
            report.retried,
            report.dead,
            report.timed_out
        ),
        (1, 1, 1, 2)
    );
    assert_eq!(
        *reasons.lock().unwrap(),
        vec![(Some(CancelReason::Timeout), false); 2],
        "told of the timeout, its lease still held"
    );
    let job = q.get("slow").await.unwrap().unwrap();
    assert_eq!((job.state, job.attempts), (State::Dead, 2));
    let (message, kind) = job.error.expect("the timeout is recorded");
    assert_eq!(kind, TIMEOUT_ERROR_TYPE);
    assert_eq!(message, "the job ran past its timeout of 300ms");
    assert!(settled(q).await);
}

/// A handler that ignores its timeout is failed after the grace while it still runs: no
/// longer renewed, its item retried elsewhere (here: dead, one attempt), and the outcome it
/// returns at last is ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_handler_that_ignores_its_timeout_fails_after_the_grace() {
    let env = Env::single("runner-timeout-grace").await;
    let q = &env.queue;
    q.add(&Item::with_id("stubborn", "x").unwrap().max_attempts(1))
        .await
        .unwrap();
    let (sink, mut rx) = event_channel();
    let (free_tx, free_rx) = tokio::sync::watch::channel(false);
    let (ended_tx, mut ended) = mpsc::unbounded_channel::<bool>();
    let mut options = WorkerOptions::new();
    options.job_timeout = Some(Duration::from_millis(200));
    options.timeout_grace = Some(Duration::from_millis(200));
    quick(&mut options);
    let worker = Worker::new(q.clone(), move |job: Job| {
        let mut free = free_rx.clone();
        let ended_tx = ended_tx.clone();
        async move {
            // Ignores the token: ends only when the test says so, then claims success.
            let _ = free.wait_for(|f| *f).await;
            ended_tx.send(job.is_cancelled()).unwrap();
            Outcome::Complete(Some(b"late".to_vec()))
        }
    })
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let mut timed_out = false;
    wait_events(&mut rx, |e| {
        match e {
            Event::TimedOut { .. } => timed_out = true,
            Event::Completed { .. } => panic!("a timed-out attempt completed"),
            _ => {}
        }
        matches!(e, Event::Dead { .. })
    })
    .await;
    assert!(timed_out, "told before it was failed");
    let job = q.get("stubborn").await.unwrap().unwrap();
    assert_eq!(
        job.state,
        State::Dead,
        "failed while its handler still runs"
    );
    assert_eq!(job.error.unwrap().1, TIMEOUT_ERROR_TYPE);
    free_tx.send(true).unwrap();
    assert!(ended.recv().await.unwrap(), "it was told");
    handle.stop();
    let report = run.await.unwrap().unwrap();
    assert_eq!((report.completed, report.dead, report.timed_out), (0, 1, 1));
    let job = q.get("stubborn").await.unwrap().unwrap();
    assert_eq!(job.state, State::Dead, "its late outcome changed nothing");
    assert!(job.result.is_none());
}

/// A shutdown that takes a handler told of its timeout (its grace not over) fails the attempt
/// with the timeout error rather than releasing the item.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_shutdown_fails_a_timed_out_handler_rather_than_releasing_it() {
    let env = Env::single("runner-timeout-shutdown").await;
    let q = &env.queue;
    q.add(&Item::with_id("stuck", "x").unwrap().max_attempts(1))
        .await
        .unwrap();
    let (sink, mut rx) = event_channel();
    let mut options = WorkerOptions::new();
    options.job_timeout = Some(Duration::from_millis(100));
    options.timeout_grace = Some(Duration::from_secs(86_400));
    options.shutdown_timeout = Some(Duration::from_millis(100));
    quick(&mut options);
    let worker = Worker::new(q.clone(), |_job: Job| async move {
        // Never ends: only the shutdown's abort ends it.
        std::future::pending::<Outcome>().await
    })
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    wait_events(&mut rx, |e| matches!(e, Event::TimedOut { .. })).await;
    handle.stop();
    let report = run.await.unwrap().unwrap();
    assert_eq!((report.released, report.dead, report.timed_out), (0, 1, 1));
    let job = q.get("stuck").await.unwrap().unwrap();
    assert_eq!(job.state, State::Dead);
    assert_eq!(job.error.unwrap().1, TIMEOUT_ERROR_TYPE);
}

/// A return value the handler cannot encode (a map with non-string keys is not JSON) fails the
/// attempt with the encoding's error, worded as every binding words it: retried with the
/// queue's backoff, then dead, and its one slot serves the next item meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_result_that_cannot_be_encoded_fails_the_attempt() {
    let env = Env::single("runner-unencodable").await;
    let q = &env.queue;
    let fixed = Backoff::fixed(Duration::from_millis(10));
    let map = Item::with_id("map", "x").unwrap().max_attempts(2);
    q.add(&map.backoff(fixed)).await.unwrap();
    q.add(&Item::with_id("next", "x").unwrap()).await.unwrap();
    let (sink, mut rx) = event_channel();
    let mut options = WorkerOptions::new();
    options.concurrency = Some(1);
    quick(&mut options);
    let worker = Worker::new(q.clone(), |job: Job| async move {
        let mut value = std::collections::HashMap::new();
        if job.id() == "map" {
            value.insert((1, 2), 3);
        }
        serde_json::to_vec(&value)
            .map_err(|e| JobError::unencodable_result(e).with_type("serde_json::Error"))
    })
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let (mut dead, mut completed) = (false, false);
    wait_events(&mut rx, |e| {
        match e {
            Event::Dead { id, .. } => dead |= id == "map",
            Event::Completed { id, .. } => completed |= id == "next",
            _ => {}
        }
        dead && completed
    })
    .await;
    handle.stop();
    let report = run.await.unwrap().unwrap();
    assert_eq!((report.completed, report.retried, report.dead), (1, 1, 1));
    let job = q.get("map").await.unwrap().unwrap();
    assert_eq!(job.state, State::Dead);
    let (message, kind) = job.error.expect("the failure is recorded");
    assert_eq!(
        message,
        "the handler's result cannot be encoded: key must be a string"
    );
    assert_eq!(kind, "serde_json::Error");
    assert!(settled(q).await);
}

/// Runs a runner of `queue` with a no-op handler (every job completes) until `n` jobs have
/// started, then shuts it down and returns its report.
async fn run_no_ops_until_started(queue: &Queue, options: WorkerOptions, n: usize) -> Report {
    let started = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let enough = Arc::new(tokio::sync::Notify::new());
    let notify = enough.clone();
    let worker = Worker::new(queue.clone(), move |_job: Job| {
        if started.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 == n {
            notify.notify_one();
        }
        async { Outcome::Complete(None) }
    })
    .options(options);
    worker
        .run_until(async move { enough.notified().await })
        .await
        .unwrap()
}

/// A busy runner completes a job and leases the next one for its slot in one round trip
/// (spec/PROTOCOL.md 13.1): at concurrency 1, about one script call per job, not two.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_busy_runner_completes_and_leases_in_one_call() {
    let env = Env::single("runner-one-call").await;
    let items: Vec<Item> = (0..100)
        .map(|i| Item::with_id(format!("j{i}"), "x").unwrap())
        .collect();
    assert_eq!(env.queue.add_batch(&items).await.unwrap(), 100);
    let _: () = env.cmd(&[b"CONFIG", b"RESETSTAT"]).await;
    let mut options = WorkerOptions::new();
    options.housekeeping = Some(false);
    let report = run_no_ops_until_started(&env.queue, options, 100).await;
    assert_eq!(report.completed, 100);
    let stats: String = env.cmd(&[b"INFO", b"commandstats"]).await;
    let fcalls: u64 = stats
        .lines()
        .find_map(|l| l.strip_prefix("cmdstat_fcall:calls="))
        .and_then(|rest| rest.split(',').next())
        .and_then(|n| n.parse().ok())
        .expect("FCALL calls in INFO commandstats");
    // 100 jobs: one lease, then one complete-and-lease per job, plus registration beats and
    // the last complete; two calls per job would be 200.
    assert!(fcalls <= 115, "{fcalls} script calls for 100 jobs");
}

/// Jobs that finish together have their outcomes sent together, on the runtime the bindings
/// run their runners on (multi-thread with one worker), whose scheduler runs the task a job's
/// outcome wakes before that job's siblings: the first outcome of a reply's jobs does not go
/// out alone (spec/PROTOCOL.md 13.1, Finishing). 2,000 no-op jobs at concurrency 50, stopped
/// after 1,500 have started, so every complete-and-lease call counted finds work waiting.
#[test]
fn outcomes_of_jobs_that_finish_together_go_out_together() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let env = Env::single("runner-together").await;
        let items: Vec<Item> = (0..2000)
            .map(|i| Item::with_id(format!("j{i}"), "x").unwrap())
            .collect();
        assert_eq!(env.queue.add_batch(&items).await.unwrap(), 2000);
        let mut monitor = common::Monitor::start(env.server.as_ref().unwrap().port());
        monitor.client_lines();
        let mut options = WorkerOptions::new();
        options.concurrency = Some(50);
        options.housekeeping = Some(false);
        run_no_ops_until_started(&env.queue, options, 1500).await;
        let lease_key = env.key("lease:");
        let function = format!("{}_complete_and_lease_batch", env.library().await);
        // `FCALL <library>_complete_and_lease_batch numkeys keys... token ttl_ms n db per values...`
        let sizes: Vec<usize> = monitor
            .client_lines()
            .iter()
            .map(|line| common::monitor_args(line))
            .filter(|args| {
                args[0].eq_ignore_ascii_case("fcall")
                    && args[1] == function
                    && args.contains(&lease_key)
            })
            .map(|args| {
                let keys: usize = args[2].parse().unwrap();
                let rest = &args[3 + keys..];
                let per: usize = rest[4].parse().unwrap();
                (rest.len() - 5) / per
            })
            .collect();
        assert!(sizes.len() >= 20, "{} calls: {sizes:?}", sizes.len());
        // Each call carries about half of the slots (the two in flight take turns); a call
        // with the first outcome alone would carry one.
        let small = sizes.iter().filter(|&&k| k < 5).count();
        assert!(
            small * 10 <= sizes.len(),
            "{small} of {} calls carried fewer than 5 outcomes: {sizes:?}",
            sizes.len()
        );
    });
}

/// A runner waiting for work on an empty queue stops at once: the shutdown ends its
/// server-side wait (the BLMOVEs of its blocking lease) instead of waiting it out.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn shutdown_ends_the_wait_for_work() {
    let env = Env::single("runner-idle-stop").await;
    let mut options = WorkerOptions::new();
    options.poll_interval = Some(Duration::from_secs(60));
    options.housekeeping = Some(false);
    let worker = Worker::new(env.queue.clone(), |_job: Job| async {
        Outcome::Complete(None)
    })
    .options(options);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let blocked = || async {
        let clients: String = env.cmd(&[b"CLIENT", b"LIST"]).await;
        clients.lines().filter(|l| l.contains("cmd=blmove")).count()
    };
    tokio::time::timeout(Duration::from_secs(30), async {
        while blocked().await == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the runner waits in BLMOVE on the empty queue");
    handle.stop();
    // A guard against a hang, not a speed check: the wait it would otherwise sit out is 60 s.
    let report = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the stop ended the 60 s wait")
        .unwrap()
        .unwrap();
    assert_eq!(report.completed, 0);
    tokio::time::timeout(Duration::from_secs(30), async {
        while blocked().await > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("no BLMOVE is left blocked on the server");
}

/// Runs `n` items through a busy runner while `fault` strikes once `at` are done; returns the
/// ids completed. Nothing may be lost: every id completes (some perhaps twice).
async fn through_a_fault(
    env: &mut Env,
    n: usize,
    at: usize,
    noticed: bool,
    fault: impl FnOnce(&mut Env),
) -> Report {
    let q = env.queue.clone();
    let items: Vec<Item> = (0..n)
        .map(|i| Item::with_id(format!("i{i}"), "x").unwrap())
        .collect();
    q.add_batch(&items).await.unwrap();
    let done = Arc::new(Mutex::new(HashSet::new()));
    let done2 = done.clone();
    let (sink, mut rx) = event_channel();
    let mut options = WorkerOptions::new();
    options.concurrency = Some(8);
    options.lease_ttl = Some(Duration::from_secs(2));
    quick(&mut options);
    let worker = Worker::new(q.clone(), move |job: Job| {
        let done = done2.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(2)).await;
            done.lock().unwrap().insert(job.id().to_owned());
            Ok::<(), JobError>(())
        }
    })
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let mut completed = 0;
    wait_events(&mut rx, |e| {
        completed += matches!(e, Event::Completed { .. }) as usize;
        completed >= at
    })
    .await;
    fault(env);
    let mut errors = 0;
    let mut recovered = 0;
    tokio::time::timeout(Duration::from_secs(90), async {
        loop {
            if done.lock().unwrap().len() == n && settled(&q).await {
                return;
            }
            while let Ok(e) = rx.try_recv() {
                errors += matches!(e, Event::Error { .. }) as usize;
                recovered += matches!(e, Event::Recovered { .. }) as usize;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("every item done after the fault");
    handle.stop();
    let report = run.await.unwrap().unwrap();
    // A restart is always noticed; a killed idle connection may be replaced unseen.
    if noticed {
        assert!(errors > 0, "the runner noticed the fault");
        assert!(recovered > 0, "and reported that it works again");
    }
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_busy_runner_rides_through_a_redis_restart() {
    let mut env = Env::single("runner-restart").await;
    let report = through_a_fault(&mut env, 400, 100, true, |env| {
        env.server.as_mut().unwrap().restart_keeping_data();
    })
    .await;
    assert!(report.completed >= 300, "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_busy_runner_rides_through_client_kill() {
    let mut env = Env::single("runner-kill").await;
    through_a_fault(&mut env, 400, 100, false, |env| {
        let reply = env
            .server
            .as_ref()
            .unwrap()
            .command("CLIENT KILL TYPE normal");
        assert!(reply.starts_with(':'), "{reply}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn runners_register_and_one_of_them_cleans() {
    let env = Env::single("runner-registry").await;
    let q = &env.queue;
    // A redis-work-queue worker died holding "orphan": only a light clean gives it back.
    let mut raw = env.raw.clone();
    let _: () = redis::pipe()
        .cmd("SET")
        .arg(env.key("item:orphan"))
        .arg("x")
        .cmd("LPUSH")
        .arg(env.key("processing"))
        .arg("orphan")
        .query_async(&mut raw)
        .await
        .unwrap();
    let (sink, mut rx) = event_channel();
    let mut handles = Vec::new();
    let mut runs = Vec::new();
    for n in 0..2 {
        let mut options = WorkerOptions::new();
        options.concurrency = Some(3 + n);
        quick(&mut options);
        let sink = sink_clone(&sink);
        let worker = Worker::new(q.clone(), |_job: Job| async { Ok::<(), JobError>(()) })
            .options(options)
            .on_event(sink);
        handles.push(worker.handle());
        runs.push(tokio::spawn(worker.run_until(std::future::pending())));
    }
    wait_events(
        &mut rx,
        |e| matches!(e, Event::Completed { id, .. } if id == "orphan"),
    )
    .await;
    let runners = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let r = q.runners().await.unwrap();
            if r.runners.len() == 2 {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("both runners registered");
    let mut concurrency: Vec<u64> = runners
        .runners
        .iter()
        .map(|r| r.info["concurrency"].as_u64().unwrap())
        .collect();
    concurrency.sort();
    assert_eq!(concurrency, [3, 4]);
    assert!(runners
        .runners
        .iter()
        .all(|r| r.info["language"] == "rust" && r.info["pid"].is_u64()));
    assert_eq!(
        runners.runners.iter().filter(|r| r.housekeeper).count(),
        1,
        "one lock holder"
    );
    for h in &handles {
        h.stop();
    }
    for r in runs {
        r.await.unwrap().unwrap();
    }
    let after = q.runners().await.unwrap();
    assert!(
        after.runners.is_empty() && after.housekeeper.is_none(),
        "{after:?}"
    );
}

fn sink_clone(
    sink: &(impl Fn(&Event) + Send + Sync + Clone + 'static),
) -> impl Fn(&Event) + Send + Sync + 'static {
    sink.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_settings_name_the_setting_and_write_nothing() {
    let env = Env::single("runner-bad").await;
    let mut options = WorkerOptions::new();
    options.concurrency = Some(0);
    let err = Worker::new(env.queue.clone(), |_job: Job| async {
        Ok::<(), JobError>(())
    })
    .options(options)
    .run_until(std::future::pending())
    .await
    .unwrap_err();
    assert!(err.to_string().contains("concurrency"), "{err}");
    let mut raw = env.raw.clone();
    let keys: i64 = redis::cmd("DBSIZE").query_async(&mut raw).await.unwrap();
    assert_eq!(keys, 0);
}

/// A runner killed without a leave (SIGKILL) leaves no key once its registration's time is up,
/// even with no other runner beating (issue 24). Here the runner's runtime is shut down under
/// it: every task of the runner (leasing, renewing, beating) stops at once, and nothing says
/// goodbye.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_runners_registration_expires_on_its_own() {
    let env = Env::single("runner-killed").await;
    let q = &env.queue;
    let mut options = WorkerOptions::new();
    quick(&mut options);
    let worker =
        Worker::new(q.clone(), |_job: Job| async { Ok::<(), JobError>(()) }).options(options);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.spawn(worker.run_until(std::future::pending()));
    tokio::time::timeout(Duration::from_secs(30), async {
        while q.runners().await.unwrap().runners.is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("registered");
    runtime.shutdown_background();
    let ttl: i64 = env.cmd(&[b"PTTL", env.key("workers").as_bytes()]).await;
    assert!(ttl > 0, "the registry must expire: PTTL {ttl}");
    // Three heartbeats of 200 ms: the registration, its registry and the lock all go.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(env.keys().await.is_empty(), "{:?}", env.keys().await);
}

/// Runs a runner with `stats` over `n` fresh items until each has completed; returns its report.
async fn run_n_with_stats(q: &Queue, name: &str, n: usize, stats: Option<bool>) -> Report {
    let items: Vec<Item> = (0..n)
        .map(|i| Item::with_id(format!("{name}-{i}"), "x").unwrap())
        .collect();
    assert_eq!(q.add_batch(&items).await.unwrap(), n);
    let (sink, mut rx) = event_channel();
    let mut options = WorkerOptions::new();
    options.concurrency = Some(4);
    options.housekeeping = Some(false);
    options.stats = stats;
    quick(&mut options);
    let worker = Worker::new(q.clone(), |_job: Job| async { Ok::<(), JobError>(()) })
        .options(options)
        .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let mut completed = 0;
    wait_events(&mut rx, |e| {
        completed += matches!(e, Event::Completed { .. }) as usize;
        completed == n
    })
    .await;
    handle.stop();
    run.await.unwrap().unwrap()
}

/// `WorkerOptions::stats` turns the queue's counters on (or off) for every client, stored in
/// the queue's configuration before the first lease: every complete the runner makes counts.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_runner_with_stats_stores_it_in_the_queues_configuration() {
    let env = Env::single("runner-stats").await;
    let q = &env.queue;
    assert_eq!(q.stats().await.unwrap().minutes, None, "off by default");

    let report = run_n_with_stats(q, "on", 25, Some(true)).await;
    assert_eq!(report.completed, 25);
    assert_eq!(q.config().await.unwrap().stats, Some(true));
    let stats = q.stats().await.unwrap();
    assert!(stats.minutes.is_some(), "{stats:?}");
    let hour = stats.last_hour().expect("the counters are on");
    assert_eq!((hour.completed, hour.failed, hour.dead), (25, 0, 0));
    // Another client sees them on, and its completes count too.
    let other = env.other_client().await.queue(&env.prefix).unwrap();
    other
        .add(&Item::with_id("other", "x").unwrap())
        .await
        .unwrap();
    let lease = other
        .lease(Duration::from_secs(30), leaseq::Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert!(other.complete(&lease).await.unwrap());
    assert_eq!(q.stats().await.unwrap().last_hour().unwrap().completed, 26);

    let report = run_n_with_stats(q, "off", 5, Some(false)).await;
    assert_eq!(report.completed, 5);
    assert_eq!(q.config().await.unwrap().stats, Some(false));
    assert_eq!(q.stats().await.unwrap().minutes, None, "turned off again");
}

/// Without `stats` a runner leaves the queue's configuration alone: it writes no `P:config`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_runner_without_stats_leaves_the_configuration_alone() {
    let env = Env::single("runner-no-stats").await;
    let q = &env.queue;
    let report = run_n_with_stats(q, "j", 10, None).await;
    assert_eq!(report.completed, 10);
    assert!(!env.exists("config").await, "{:?}", env.keys().await);
    assert_eq!(q.config().await.unwrap(), leaseq::QueueConfig::new());
    assert_eq!(q.stats().await.unwrap().minutes, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rate_limited_handler_holds_the_queue_off_without_charging_an_attempt() {
    let env = Env::single("runner-rate-limited").await;
    let q = &env.queue;
    q.add(&Item::with_id("api", "x").unwrap().max_attempts(1))
        .await
        .unwrap();
    let calls = Arc::new(Mutex::new(0u32));
    let (sink, mut rx) = event_channel();
    let mut options = WorkerOptions::new();
    quick(&mut options);
    let seen = calls.clone();
    let worker = Worker::new(q.clone(), move |job: Job| {
        let seen = seen.clone();
        async move {
            let first = {
                let mut n = seen.lock().unwrap();
                *n += 1;
                *n == 1
            };
            if first {
                // The API answered 429: hold every lease of the queue off for a moment.
                return Err(JobError::rate_limited(Duration::from_millis(200)));
            }
            Ok(format!("attempt {}", job.attempt()))
        }
    })
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    wait_events(&mut rx, |e| matches!(e, Event::Completed { .. })).await;
    handle.stop();
    let report = run.await.unwrap().unwrap();
    assert_eq!(*calls.lock().unwrap(), 2, "ran again after the hold");
    // max_attempts 1, yet not dead: the rate-limited run was not charged an attempt.
    assert_eq!((report.completed, report.dead, report.retried), (1, 0, 0));
    assert_eq!(q.result("api").await.unwrap().unwrap().data, b"attempt 1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_handler_rate_limited_for_its_group_holds_only_that_group() {
    let env = Env::single("runner-group-rate-limited").await;
    let q = &env.queue;
    q.add(&Item::with_id("a0", "x").unwrap().group("a").max_attempts(1))
        .await
        .unwrap();
    for i in 0..3 {
        q.add(&Item::with_id(format!("b{i}"), "x").unwrap().group("b"))
            .await
            .unwrap();
    }
    let calls = Arc::new(Mutex::new(Vec::<String>::new()));
    let (sink, mut rx) = event_channel();
    let mut options = WorkerOptions::new();
    quick(&mut options);
    options.concurrency = Some(1);
    let seen = calls.clone();
    let worker = Worker::new(q.clone(), move |job: Job| {
        let seen = seen.clone();
        async move {
            let first_of_a = {
                let mut calls = seen.lock().unwrap();
                calls.push(job.id().to_owned());
                job.id() == "a0" && calls.iter().filter(|c| *c == "a0").count() == 1
            };
            if first_of_a {
                // Customer a's API answered 429: hold group a off, not the queue.
                return Err(JobError::rate_limited_group(Duration::from_millis(400)));
            }
            Ok(format!("attempt {}", job.attempt()))
        }
    })
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let mut completed = Vec::new();
    wait_events(&mut rx, |e| {
        if let Event::Completed { id, .. } = e {
            completed.push(id.clone());
        }
        completed.len() == 4
    })
    .await;
    handle.stop();
    let report = run.await.unwrap().unwrap();
    // Group b went on while a was held; a0 ran again after its hold, not charged an attempt.
    assert_eq!(
        completed,
        ["b0", "b1", "b2", "a0"],
        "{:?}",
        calls.lock().unwrap()
    );
    assert_eq!((report.completed, report.dead, report.retried), (4, 0, 0));
    assert_eq!(q.result("a0").await.unwrap().unwrap().data, b"attempt 1");
}

/// A runner over two queues, concurrency 1: the order in which it completed their items.
async fn run_two(
    env: &Env,
    order: leaseq::worker::QueueOrder,
    per_queue: usize,
) -> (Vec<String>, Report, Queue) {
    let other = env.client.queue(&format!("{}-b", env.prefix)).unwrap();
    for i in 0..per_queue {
        env.queue
            .add(&Item::with_id(format!("a{i}"), "x").unwrap())
            .await
            .unwrap();
        other
            .add(&Item::with_id(format!("b{i}"), "x").unwrap())
            .await
            .unwrap();
    }
    let (sink, mut rx) = event_channel();
    let mut options = WorkerOptions::new();
    quick(&mut options);
    let worker = Worker::for_queues(
        vec![env.queue.clone(), other.clone()],
        |job: Job| async move { Ok::<_, JobError>(job.queue().prefix().to_owned()) },
    )
    .queue_order(order)
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let mut done = Vec::new();
    wait_events(&mut rx, |e| {
        if let Event::Completed { id, .. } = e {
            done.push(id.clone());
        }
        done.len() == 2 * per_queue
    })
    .await;
    handle.stop();
    let report = run.await.unwrap().unwrap();
    (done, report, other)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_runner_over_several_queues_takes_them_in_strict_order() {
    let env = Env::single("runner-strict").await;
    let (done, report, other) = run_two(&env, leaseq::worker::QueueOrder::Strict, 4).await;
    assert_eq!(
        done,
        ["a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3"],
        "the second queue only once the first is empty"
    );
    assert_eq!(report.completed, 8);
    // Each job finished in its own queue, its result kept there.
    assert_eq!(
        env.queue.result("a1").await.unwrap().unwrap().data,
        env.prefix.as_bytes()
    );
    assert_eq!(
        other.result("b1").await.unwrap().unwrap().data,
        other.prefix().as_bytes()
    );
    assert!(settled(&env.queue).await && settled(&other).await);
}

/// Weighted order gives the queues turns (spec 13.3): at concurrency 1 a turn is 256 leases
/// (or 250 ms), and with weights 3:1 the first queue has 3 of any 4 turns in a row, so about
/// 3/4 of the jobs while both have work, in runs of a turn's length.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_runner_over_several_queues_weighs_them() {
    let env = Env::single("runner-weighted").await;
    let (done, _, _) = run_two(&env, leaseq::worker::QueueOrder::Weighted(vec![3, 1]), 1000).await;
    let first = &done[..1024];
    let from_a = first.iter().filter(|id| id.starts_with('a')).count();
    assert!(
        (614..=921).contains(&from_a),
        "3:1 while both have work: {from_a} of 1024 from the first queue"
    );
    let switches = first
        .windows(2)
        .filter(|w| w[0].as_bytes()[0] != w[1].as_bytes()[0])
        .count();
    assert!(
        switches <= 64,
        "{switches} switches in 1024 jobs: not turns"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_runner_over_several_queues_wakes_for_any_of_them() {
    let env = Env::single("runner-wakes").await;
    let other = env.client.queue(&format!("{}-b", env.prefix)).unwrap();
    let (sink, mut rx) = event_channel();
    let mut options = WorkerOptions::new();
    quick(&mut options);
    // A long poll: the runner waits on both queues' lists at once, and an add to either ends
    // the wait (no assertion on how soon: the test waits for the completions).
    options.poll_interval = Some(Duration::from_secs(30));
    let worker = Worker::for_queues(
        vec![env.queue.clone(), other.clone()],
        |_: Job| async move { Ok::<_, JobError>(()) },
    )
    .options(options)
    .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    tokio::time::sleep(Duration::from_millis(200)).await;
    other
        .add(&Item::with_id("late-b", "x").unwrap())
        .await
        .unwrap();
    wait_events(
        &mut rx,
        |e| matches!(e, Event::Completed { id, .. } if id == "late-b"),
    )
    .await;
    env.queue
        .add(&Item::with_id("late-a", "x").unwrap())
        .await
        .unwrap();
    wait_events(
        &mut rx,
        |e| matches!(e, Event::Completed { id, .. } if id == "late-a"),
    )
    .await;
    handle.stop();
    let report = run.await.unwrap().unwrap();
    assert_eq!(report.completed, 2);
    // Registered in both queues while it ran; gone from both now.
    assert!(env.queue.runners().await.unwrap().runners.is_empty());
    assert!(other.runners().await.unwrap().runners.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_runner_over_several_queues_refuses_bad_settings() {
    let env = Env::single("runner-queues-refused").await;
    let handler = |_: Job| async move { Ok::<_, JobError>(()) };
    // `check` refuses as `run_until` does, without running (bindings call it first).
    let err = Worker::for_queues(vec![], handler).check().unwrap_err();
    assert_invalid(&err, "queues", "");
    let err = Worker::for_queues(vec![], handler)
        .run_until(std::future::pending())
        .await
        .unwrap_err();
    assert_invalid(&err, "queues", "");
    let twice = vec![env.queue.clone(), env.queue.clone()];
    let err = Worker::for_queues(twice, handler)
        .run_until(std::future::pending())
        .await
        .unwrap_err();
    assert_invalid(&err, "queues", "");
    let other_client = env.other_client().await.queue("{elsewhere}").unwrap();
    let err = Worker::for_queues(vec![env.queue.clone(), other_client], handler)
        .run_until(std::future::pending())
        .await
        .unwrap_err();
    assert_invalid(&err, "queues", "");
    let b = env.client.queue("{b}").unwrap();
    let err = Worker::for_queues(vec![env.queue.clone(), b], handler)
        .queue_order(leaseq::worker::QueueOrder::Weighted(vec![1]))
        .run_until(std::future::pending())
        .await
        .unwrap_err();
    assert_invalid(&err, "queue_order", "");
}

/// What a replying handler ([`Replying`]) was handed: the replies of the jobs it started, and
/// each time it was told to stop, `(id, the job's cancel reason, whether its lease is lost)`.
#[derive(Default)]
struct ReplyInbox {
    started: Vec<Reply>,
    told: Vec<(String, Option<CancelReason>, bool)>,
}

/// A handler that runs jobs with `Handler::start`, as the Node and Python bindings do: it keeps
/// each job's reply for the test to send, and notes each `Handler::told`.
struct Replying(Arc<Mutex<ReplyInbox>>);

impl Handler for Replying {
    fn call(&self, _job: Job) -> HandlerFuture {
        unreachable!("the engine starts a replying handler's jobs with start")
    }
    fn replies(&self) -> bool {
        true
    }
    fn start(&self, _job: Job, reply: Reply) {
        self.0.lock().unwrap().started.push(reply);
    }
    fn told(&self, job: &Job) {
        let told = (job.id().to_owned(), job.cancel_reason(), job.is_lost());
        self.0.lock().unwrap().told.push(told);
    }
}

/// A handler that runs jobs with `Handler::start` (as the Node binding does): what its replies
/// say, sent many at once from another thread, is done; a reply dropped unsent fails the
/// attempt; a job past its timeout is told through `Handler::told` and failed after the grace,
/// and its late reply changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replying_handler_sends_outcomes_in_batches_and_is_told() {
    let env = Env::single("runner-replies").await;
    let q = &env.queue;
    for i in 0..30 {
        q.add(&Item::with_id(format!("ok-{i}"), "x").unwrap())
            .await
            .unwrap();
    }
    for id in ["dropped", "stubborn"] {
        q.add(&Item::with_id(id, "x").unwrap().max_attempts(1))
            .await
            .unwrap();
    }
    let inbox = Arc::new(Mutex::new(ReplyInbox::default()));
    let (sink, mut rx) = event_channel();
    let mut options = WorkerOptions::new();
    options.concurrency = Some(8);
    options.job_timeout = Some(Duration::from_millis(300));
    options.timeout_grace = Some(Duration::from_millis(200));
    quick(&mut options);
    let worker = Worker::new(q.clone(), Replying(inbox.clone()))
        .options(options)
        .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    // Another thread answers what has started every 10 ms, in one batch; "stubborn" is held.
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    let answering = {
        let inbox = inbox.clone();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            while stop_rx.recv_timeout(Duration::from_millis(10)).is_err() {
                let started = std::mem::take(&mut inbox.lock().unwrap().started);
                let mut batch = Vec::new();
                for reply in started {
                    match reply.job().id() {
                        "stubborn" => held.push(reply),
                        "dropped" => drop(reply),
                        _ => batch.push((reply, Outcome::Complete(None))),
                    }
                }
                Reply::send_all(batch);
            }
            held
        })
    };
    let (mut completed, mut dead, mut timed_out) = (0, HashSet::new(), false);
    wait_events(&mut rx, |e| {
        match e {
            Event::Completed { .. } => completed += 1,
            Event::Dead { id, .. } => drop(dead.insert(id.clone())),
            Event::TimedOut { id, .. } => timed_out = id == "stubborn",
            _ => {}
        }
        completed == 30 && dead.len() == 2
    })
    .await;
    stop_tx.send(()).unwrap();
    let held = answering.join().unwrap();
    assert!(timed_out, "the stubborn job timed out");
    let told = inbox.lock().unwrap().told.clone();
    assert_eq!(
        told.iter().map(|(id, ..)| id.as_str()).collect::<Vec<_>>(),
        ["stubborn"]
    );
    assert_eq!(
        q.get("dropped").await.unwrap().unwrap().error.unwrap().1,
        "DispatchError"
    );
    let job = q.get("stubborn").await.unwrap().unwrap();
    assert_eq!(job.error.unwrap().1, TIMEOUT_ERROR_TYPE);
    // Its late reply frees its slot and changes nothing.
    Reply::send_all(held.into_iter().map(|r| (r, Outcome::Complete(None))));
    handle.stop();
    let report = run.await.unwrap().unwrap();
    assert_eq!(
        (report.completed, report.dead, report.timed_out),
        (30, 2, 1)
    );
    assert_eq!(q.get("stubborn").await.unwrap().unwrap().state, State::Dead);
    assert!(settled(q).await);
}

/// A replying handler (`Handler::start`) told of its timeout is told again when its lease is
/// lost during the grace (a cancel): a binding can then say the lease is gone too (Python's
/// `lost_event`), and it is not told again after that.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replying_handler_told_of_its_timeout_is_told_again_when_its_lease_is_lost() {
    let env = Env::single("runner-told-twice").await;
    let q = &env.queue;
    q.add(&Item::with_id("slow", "x").unwrap()).await.unwrap();
    let inbox = Arc::new(Mutex::new(ReplyInbox::default()));
    let (sink, mut rx) = event_channel();
    let mut options = WorkerOptions::new();
    options.lease_ttl = Some(Duration::from_millis(900));
    options.renew_every = Some(Duration::from_millis(100));
    options.job_timeout = Some(Duration::from_millis(200));
    options.timeout_grace = Some(Duration::from_secs(30));
    quick(&mut options);
    let worker = Worker::new(q.clone(), Replying(inbox.clone()))
        .options(options)
        .on_event(sink);
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    wait_events(&mut rx, |e| matches!(e, Event::TimedOut { .. })).await;
    assert_eq!(
        inbox.lock().unwrap().told,
        vec![("slow".to_owned(), Some(CancelReason::Timeout), false)],
        "told once, of its timeout"
    );
    // Within the grace its lease is still renewed: a cancel makes the next renewal lose it.
    assert_eq!(q.cancel("slow").await.unwrap(), Some(State::Leased));
    wait_events(&mut rx, |e| matches!(e, Event::LeaseLost { .. })).await;
    assert_eq!(
        inbox.lock().unwrap().told,
        vec![
            ("slow".to_owned(), Some(CancelReason::Timeout), false),
            ("slow".to_owned(), Some(CancelReason::Timeout), true),
        ],
        "told again, its lease lost; the first reason kept"
    );
    let started = std::mem::take(&mut inbox.lock().unwrap().started);
    assert_eq!(started.len(), 1);
    Reply::send_all(started.into_iter().map(|r| (r, Outcome::Complete(None))));
    handle.stop();
    let report = run.await.unwrap().unwrap();
    assert_eq!((report.completed, report.lost, report.timed_out), (0, 1, 1));
    assert_eq!(inbox.lock().unwrap().told.len(), 2, "not told a third time");
}
