//! The synchronous facade, as the C ABI and sync Python use it: plain threads, no runtime.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use leaseq::blocking::Client;
use leaseq::{ErrorCode, Item, Wait};
use leaseq_harness::RedisServer;

const TTL: Duration = Duration::from_secs(30);

#[test]
fn four_threads_complete_every_item_once() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let q = client.queue("blocking").unwrap();
    let items: Vec<Item> = (0..400)
        .map(|i| Item::with_id(format!("{i}"), vec![7]).unwrap())
        .collect();
    assert_eq!(q.add_batch(&items).unwrap(), 400);
    let done: Arc<Mutex<HashSet<String>>> = Arc::default();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (q, done) = (q.clone(), done.clone());
            std::thread::spawn(move || {
                while let Some(lease) = q
                    .lease(TTL, Wait::Timeout(Duration::from_millis(300)))
                    .unwrap()
                {
                    assert!(q.complete(&lease).unwrap());
                    assert!(
                        done.lock().unwrap().insert(lease.id().to_owned()),
                        "twice: {}",
                        lease.id()
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(done.lock().unwrap().len(), 400);
    assert_eq!(q.queue_len().unwrap() + q.processing_len().unwrap(), 0);
}

#[test]
fn close_from_another_thread_interrupts_a_waiting_lease() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let q = client.queue("interrupt").unwrap();
    let waiter = std::thread::spawn(move || q.lease(TTL, Wait::Forever));
    std::thread::sleep(Duration::from_millis(200));
    client.close();
    let err = waiter.join().unwrap().unwrap_err();
    assert_eq!(err.code(), ErrorCode::Closed);
}

#[test]
fn every_operation_works_synchronously() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    assert!(!client.is_cluster());
    let q = client.queue("sync").unwrap();
    assert!(q.add(&Item::with_id("a", b"1".to_vec()).unwrap()).unwrap());
    q.add_unique(&Item::with_id("b", b"2".to_vec()).unwrap())
        .unwrap();
    let a = q.lease(TTL, Wait::No).unwrap().unwrap();
    assert!(q.renew(&a, TTL).unwrap());
    let (done, b) = q.complete_and_lease(&a, TTL).unwrap();
    assert!(done);
    let b = b.unwrap();
    assert_eq!(b.data(), b"2");
    assert_eq!(q.light_clean().unwrap().requeued, 0);
    assert_eq!(q.deep_clean().unwrap().requeued, 0);
    assert!(q.complete(&b).unwrap());
    // A drained queue leaves no key (counters are off by default).
    assert_eq!(server.command("DBSIZE").trim(), ":0");
}

#[test]
fn interruptible_lease_checks_while_it_waits_and_stops_on_request() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let q = client.queue("interruptible").unwrap();
    let mut checks = 0;
    let interrupted = q.lease_interruptible(TTL, Wait::Forever, Duration::from_millis(20), || {
        checks += 1;
        if checks == 5 {
            Err("stop")
        } else {
            Ok(())
        }
    });
    assert_eq!(interrupted.unwrap_err(), "stop");
    assert_eq!(checks, 5);
    // Nothing was taken by the abandoned wait; a later item is leased normally.
    q.add(&Item::with_id("later", vec![]).unwrap()).unwrap();
    let got = q
        .lease_interruptible(
            TTL,
            Wait::Timeout(Duration::from_secs(5)),
            Duration::from_millis(20),
            || Ok::<(), ()>(()),
        )
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!((got.id(), got.count()), ("later", 1));
}

#[test]
fn interruptible_wait_result_and_lease_batch_stop_on_request() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let q = client.queue("interruptible-results").unwrap();
    let stop_after = |n: u32| {
        let mut checks = 0;
        move || {
            checks += 1;
            if checks == n {
                Err(checks)
            } else {
                Ok(())
            }
        }
    };
    let every = Duration::from_millis(20);
    let waited = q.wait_result_interruptible(b"\xffnever", Wait::Forever, every, stop_after(3));
    assert_eq!(waited.unwrap_err(), 3);
    let leased = q.lease_batch_interruptible(5, TTL, Wait::Forever, every, stop_after(3));
    assert_eq!(leased.unwrap_err(), 3);
    // Uninterrupted, both return what is there.
    q.add(&Item::with_id("r", vec![]).unwrap()).unwrap();
    let leases = q
        .lease_batch_interruptible(5, TTL, Wait::Forever, every, || Ok::<(), ()>(()))
        .unwrap()
        .unwrap();
    assert_eq!(leases.len(), 1);
    assert!(q
        .complete_with_result(&leases[0], Some(b"42".as_slice()), None)
        .unwrap());
    let kept = q
        .wait_result_interruptible("r", Wait::Forever, every, || Ok::<(), ()>(()))
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(kept.data, b"42");
}

#[test]
fn a_thread_waiting_in_a_lease_gets_the_item_another_thread_adds() {
    // The waiting thread drives the calls' runtime; the adding thread's call goes through it.
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let q = client.queue("handover").unwrap();
    let waiting = q.clone();
    let waiter = std::thread::spawn(move || waiting.lease(TTL, Wait::Forever));
    std::thread::sleep(Duration::from_millis(100));
    // Calls of this thread while the other one waits.
    for _ in 0..20 {
        assert_eq!(q.count(leaseq::State::Waiting).unwrap(), 0);
    }
    assert!(q.add(&Item::with_id("x", b"1".to_vec()).unwrap()).unwrap());
    let lease = waiter.join().unwrap().unwrap().unwrap();
    assert_eq!(lease.id(), "x");
    assert!(q.complete(&lease).unwrap());
}

#[test]
fn calls_go_on_after_the_server_drops_the_connection() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let q = client.queue("killed").unwrap();
    assert!(q.add(&Item::with_id("a", b"1".to_vec()).unwrap()).unwrap());
    server.command("CLIENT KILL TYPE normal");
    // A call may see the lost connection once; the next ones reconnect.
    let mut failed = 0;
    let len = loop {
        match q.queue_len() {
            Ok(len) => break len,
            Err(e) if failed < 3 => {
                assert_eq!(e.code(), ErrorCode::Connection, "{e}");
                failed += 1;
            }
            Err(e) => panic!("still failing after {failed} tries: {e}"),
        }
    };
    assert_eq!(len, 1);
    let lease = q.lease(TTL, Wait::No).unwrap().unwrap();
    assert!(q.complete(&lease).unwrap());
}

#[test]
fn close_ends_the_connections_of_the_calls_at_once() {
    let server = RedisServer::start();
    let clients = || {
        let list = server.command("CLIENT LIST TYPE normal");
        list.lines().filter(|l| l.contains("addr=")).count()
    };
    let before = clients();
    let client = Client::connect(&server.url()).unwrap();
    let q = client.queue("closing").unwrap();
    assert_eq!(q.queue_len().unwrap(), 0);
    assert!(clients() > before);
    client.close();
    assert_eq!(q.queue_len().unwrap_err().code(), ErrorCode::Closed);
    // Nothing drives the calls' runtime after close: its sockets must still be gone.
    let mut now = clients();
    for _ in 0..50 {
        if now == before {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        now = clients();
    }
    assert_eq!(now, before, "{}", server.command("CLIENT LIST TYPE normal"));
}

/// A runner about to start while Redis is down (`blocking::for_a_runner`, which the C and
/// Python runners start with) waits for it, as a running runner rides through an outage,
/// reports the outage once (an `error` event, step `connect`) and its end (`recovered`), and
/// gives up only when told to stop; a plain `as_async` fails at once.
#[test]
fn a_runner_about_to_start_waits_for_redis() {
    use leaseq::worker::Event;
    let mut server = RedisServer::start();
    let client = Client::connect(&server.url()).unwrap();
    let q = client.queue("{waits}").unwrap();
    assert!(q.add(&Item::with_id("x", "x").unwrap()).unwrap());
    server.kill();
    let err = q.as_async().unwrap_err();
    assert!(err.is_retryable(), "{err}");
    // Told to stop while Redis is still down: no queue, no error; the outage reported once.
    let since = std::time::Instant::now();
    let mut events = Vec::new();
    let stopped = leaseq::blocking::for_a_runner(
        || q.as_async(),
        || since.elapsed() > Duration::from_millis(700),
        |e| events.push(e),
    )
    .unwrap();
    assert!(stopped.is_none());
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(
        matches!(&events[0], Event::Error { during: "connect", error } if error.is_retryable()),
        "{events:?}"
    );
    // Stopped before it starts: not even one attempt.
    let mut asked = 0;
    let never = leaseq::blocking::for_a_runner(
        || {
            asked += 1;
            q.as_async()
        },
        || true,
        |e| panic!("{e:?}"),
    )
    .unwrap();
    assert!(never.is_none());
    assert_eq!(asked, 0);
    // Redis back (empty) a second later: the wait ends with the queue, usable.
    let restarted = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(1));
        server.restart();
        server
    });
    let mut events = Vec::new();
    let queue = leaseq::blocking::for_a_runner(|| q.as_async(), || false, |e| events.push(e))
        .unwrap()
        .expect("not stopped");
    let _server = restarted.join().unwrap();
    assert_eq!(
        events.iter().map(|e| e.name()).collect::<Vec<_>>(),
        ["error", "recovered"]
    );
    assert!(matches!(events[1], Event::Recovered { during: "connect" }));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    assert_eq!(
        runtime
            .block_on(queue.count(leaseq::State::Waiting))
            .unwrap(),
        0
    );
}

/// Settings a C or Python runner checks before it waits for Redis: the options and the order,
/// refused naming the setting, with no Redis at all.
#[test]
fn a_runners_settings_are_checked_without_redis() {
    use leaseq::worker::{QueueOrder, WorkerOptions};
    let argument = |e: leaseq::Error| match e {
        leaseq::Error::InvalidArgument { argument, .. } => argument,
        other => panic!("{other}"),
    };
    let mut o = WorkerOptions::new();
    assert!(o.check().is_ok());
    o.concurrency = Some(0);
    assert_eq!(argument(o.check().unwrap_err()), "concurrency");
    let mut o = WorkerOptions::new();
    o.handler_names = Some(vec!["a".into(), "a".into()]);
    o.fallback_handler = Some(false);
    assert_eq!(argument(o.check().unwrap_err()), "handlers");
    assert!(QueueOrder::Strict.check(3).is_ok());
    assert!(QueueOrder::Weighted(vec![1, 1000]).check(2).is_ok());
    for (weights, n) in [(vec![1, 2], 3), (vec![0, 1], 2), (vec![1001], 1)] {
        let err = QueueOrder::Weighted(weights).check(n).unwrap_err();
        assert_eq!(argument(err), "queue_order");
    }
}
