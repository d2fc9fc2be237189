//! The spec's least-privilege ACL line (spec/PROTOCOL.md, 1.2), run as written: with it, every
//! operation, both cleans and a runner work on the queue; another queue's keys are refused.

use std::time::Duration;

use leaseq::worker::{Event, Job, JobError, Worker};
use leaseq::{Client, ErrorCode, Item, Retry, State, Wait};
use leaseq_harness::RedisServer;

fn acl_line() -> String {
    let spec = include_str!("../../../spec/PROTOCOL.md");
    let section =
        &spec[spec.find("<!-- BEGIN acl -->").unwrap()..spec.find("<!-- END acl -->").unwrap()];
    section
        .lines()
        .find(|l| l.starts_with("ACL SETUSER"))
        .expect("the ACL line")
        .to_owned()
}

/// Sets up the user of the ACL `line` on `server` and connects as it.
async fn connect_as(server: &RedisServer, line: &str) -> Client {
    let reply = server.command(line);
    assert!(reply.starts_with("+OK"), "{reply}");
    let url = server
        .url()
        .replace("redis://", "redis://jobs-app:change-me@");
    Client::connect(&url).await.expect("the user connects")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_least_privilege_user_runs_everything_on_its_queue_and_nothing_else() {
    let server = RedisServer::start();
    let client = connect_as(&server, &acl_line()).await;
    let q = client.queue("{jobs}").unwrap();

    q.add(&Item::with_id("a", "x").unwrap()).await.unwrap();
    q.add_batch(&[
        Item::with_id("b", "x").unwrap(),
        Item::with_id("c", "x")
            .unwrap()
            .delay(Duration::from_millis(1)),
    ])
    .await
    .unwrap();
    // Plain items in a batch: one MSETNX (5.1), and with an id taken the LPOP that takes the
    // ids back before each is looked at.
    for ids in [["p1", "p2"], ["p3", "a"]] {
        let items: Vec<Item> = ids
            .iter()
            .map(|id| Item::with_id(*id, "x").unwrap())
            .collect();
        q.add_batch(&items).await.unwrap();
    }
    let lease = q
        .lease(
            Duration::from_secs(30),
            Wait::Timeout(Duration::from_secs(1)),
        )
        .await
        .unwrap()
        .unwrap();
    assert!(q.renew(&lease, Duration::from_secs(30)).await.unwrap());
    assert!(q.progress(&lease, b"half").await.unwrap());
    assert!(q
        .complete_with_result(&lease, Some(b"done".as_slice()), None)
        .await
        .unwrap());
    let lease = q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .unwrap();
    q.fail(&lease, "boom", "Boom", Retry::Never).await.unwrap();
    assert_eq!(q.dead_requeue_oldest(None).await.unwrap(), 1);
    q.get("a").await.unwrap();
    q.result("a").await.unwrap();
    q.stats().await.unwrap();
    q.list(State::Waiting, 0, 10).await.unwrap();
    // The index of kept results was written with the user's commands (its ZADD alone would
    // fail quietly), and the job browser's reads and promote run too.
    assert_eq!(q.list(State::Done, 0, 10).await.unwrap().len(), 1);
    assert_eq!(q.count(State::Done).await.unwrap(), 1);
    q.find(State::Dead, None, Some("Boom"), 0, 10)
        .await
        .unwrap();
    assert!(!q.promote("a").await.unwrap());
    // Dependencies (5.24): a flow, what an item waits for, its children's results, a cancel
    // that fails a dependant, the sweep and the settled notes of light clean.
    let children = [leaseq::Flow::new(Item::with_id("kid", "x").unwrap())];
    q.add_flow(&Item::with_id("mom", "x").unwrap(), &children)
        .await
        .unwrap();
    q.add(&Item::with_id("kin", "x").unwrap().depends_on(["mom"]))
        .await
        .unwrap();
    assert_eq!(q.dependencies("mom").await.unwrap().pending, ["kid"]);
    q.dependency_results("mom").await.unwrap();
    assert_eq!(q.cancel("kid").await.unwrap(), Some(State::Waiting));
    assert_eq!(q.count(State::Blocked).await.unwrap(), 0);
    q.list(State::Blocked, 0, 10).await.unwrap();
    q.light_clean().await.unwrap();
    q.deep_clean().await.unwrap();
    assert_eq!(client.queues("").await.unwrap(), vec!["{jobs}".to_owned()]);

    // A runner: leases, completes, registers and takes the housekeeping lock.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let worker = Worker::new(q.clone(), |_job: Job| async { Ok::<(), JobError>(()) })
        .concurrency(2)
        .on_event(move |e| drop(tx.send(e.clone())));
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let mut completed = 0;
    while completed < 2 {
        match rx.recv().await.unwrap() {
            Event::Completed { .. } => completed += 1,
            Event::Error { during, error } => panic!("{during}: {error}"),
            _ => {}
        }
    }
    while q.runners().await.unwrap().housekeeper.is_none() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    handle.stop();
    run.await.unwrap().unwrap();

    // The event stream (spec 14): appended inside the scripts (a refused XADD would only drop
    // the entry, quietly), read by a page and followed with XREAD.
    q.set_config(&leaseq::QueueConfig::new().events(true))
        .await
        .unwrap();
    let mut follower = q.events(leaseq::EventsFrom::Now).await.unwrap();
    q.add(&Item::with_id("e", "x").unwrap()).await.unwrap();
    let page = q.read_events(Some("0-0"), 10).await.unwrap();
    assert_eq!(page.events.len(), 1, "{page:?}");
    let seen = tokio::time::timeout(Duration::from_secs(10), follower.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((seen.event.as_str(), seen.job_id.as_str()), ("added", "e"));
    assert!(q.wait_result("e", Wait::No).await.unwrap().is_none());

    // Another queue's keys are refused, with Redis's reason in the message.
    let other = client.queue("{other}").unwrap();
    let err = other.add(&Item::new("x")).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Redis, "{err}");
    assert!(
        err.to_string().to_lowercase().contains("no permissions"),
        "{err}"
    );
    let keys = server.command("EXISTS {other}:queue");
    assert!(keys.starts_with(":0"), "nothing written: {keys}");
}

/// A user set up with the line as it was before `MSETNX` joined it (spec 1.2, 5.1) still adds a
/// batch of plain items: the call's `MSETNX` is refused, taken back, and the items added one by
/// one, with the same result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_without_msetnx_still_adds_plain_batches() {
    let server = RedisServer::start();
    let line = acl_line();
    assert!(line.contains(" +msetnx "), "{line}");
    let client = connect_as(&server, &line.replace(" +msetnx ", " ")).await;
    let q = client.queue("{jobs}").unwrap();
    let items: Vec<Item> = ["a", "b", "c"]
        .iter()
        .map(|id| Item::with_id(*id, format!("data-{id}")).unwrap())
        .collect();
    assert_eq!(q.add_batch(&items).await.unwrap(), 3);
    assert_eq!(q.add_batch(&items).await.unwrap(), 0, "idempotent");
    let queued = server.command("LLEN {jobs}:queue");
    assert!(queued.starts_with(":3"), "three ids, once each: {queued:?}");
    let lease = q
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((lease.id(), lease.data()), ("a", b"data-a".as_slice()));
}
