//! Transient server states (issue 14, 1): Redis answers that it cannot serve now (here BUSY:
//! another client's slow script). Calls fail with the retryable UNAVAILABLE, and a waiting lease
//! rides through and returns the item once Redis serves again.

use crate::common;

use std::time::Duration;

use common::{fresh_prefix, Env, TTL};
use leaseq::{Client, ErrorCode, Item, Wait};

/// Another client's script that never ends by itself; `SCRIPT KILL` ends it.
const BUSY_LOOP: &str = "while true do end";

/// Starts [`BUSY_LOOP`] on a connection of its own and returns once Redis answers BUSY.
async fn make_busy(env: &Env) -> tokio::task::JoinHandle<()> {
    let server = env.server.as_ref().unwrap();
    server.command("CONFIG SET busy-reply-threshold 50");
    let url = env.urls[0].clone();
    let busy = tokio::spawn(async move {
        let mut conn = redis::Client::open(url.as_str())
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .unwrap();
        // Ends with an error once the script is killed.
        let _ = redis::cmd("EVAL")
            .arg(BUSY_LOOP)
            .arg(0)
            .query_async::<redis::Value>(&mut conn)
            .await;
    });
    for _ in 0..200 {
        if server.command("PING").starts_with("-BUSY") {
            return busy;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("Redis never became busy");
}

/// Ends the busy script and waits until Redis serves again.
async fn end_busy(env: &Env, busy: tokio::task::JoinHandle<()>) {
    let server = env.server.as_ref().unwrap();
    let reply = server.command("SCRIPT KILL");
    assert!(reply.starts_with("+OK"), "SCRIPT KILL: {reply}");
    tokio::time::timeout(Duration::from_secs(20), busy)
        .await
        .expect("the busy script ends")
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_server_gives_unavailable_and_a_waiting_lease_rides_through() {
    let env = Env::single("busy").await;
    let busy = make_busy(&env).await;

    // Calls that do not wait fail with the retryable code; nothing ran.
    let err = env.queue.lease(TTL, Wait::No).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Unavailable, "{err}");
    assert!(err.is_retryable(), "{err}");
    let err = env
        .queue
        .add(&Item::with_id("refused", b"x".to_vec()).unwrap())
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Unavailable, "{err}");

    // Waiting leases keep going while Redis is busy: one without a deadline, one with a long
    // one.
    let q = env.queue.clone();
    let forever = tokio::spawn(async move { q.lease(TTL, Wait::Forever).await });
    let q = env.queue.clone();
    let timed =
        tokio::spawn(async move { q.lease(TTL, Wait::Timeout(Duration::from_secs(60))).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !forever.is_finished() && !timed.is_finished(),
        "waiting leases keep waiting while Redis is busy"
    );

    end_busy(&env, busy).await;
    assert!(env.add("one", b"1").await, "the refused add wrote nothing");
    assert!(env.add("two", b"2").await);
    let mut ids = Vec::new();
    for worker in [forever, timed] {
        let lease = tokio::time::timeout(Duration::from_secs(30), worker)
            .await
            .expect("the waiting lease resumed")
            .unwrap()
            .unwrap()
            .expect("an item");
        assert!(env.queue.complete(&lease).await.unwrap());
        ids.push(lease.id().to_owned());
    }
    ids.sort();
    assert_eq!(ids, ["one", "two"]);
    assert!(env.queue.get("refused").await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_lease_raises_unavailable_past_its_deadline() {
    let env = Env::single("busy-deadline").await;
    let busy = make_busy(&env).await;
    let err = tokio::time::timeout(
        Duration::from_secs(20),
        env.queue
            .lease(TTL, Wait::Timeout(Duration::from_millis(300))),
    )
    .await
    .expect("the lease gives up at its deadline")
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Unavailable, "{err}");
    end_busy(&env, busy).await;
}

/// A client of one server pointed at a Cluster node gets `MOVED` for a queue whose slot
/// another node serves. No retry can follow it (that client never goes to another node), so
/// it is final (`REDIS`, not `UNAVAILABLE`), for a call and for a waiting lease, and it says
/// how to connect instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_a_client_of_one_server_is_final_and_says_how_to_connect() {
    let env = Env::cluster("moved").await;
    let single = Client::connect(&env.urls[0]).await.unwrap();
    // Connecting says so already.
    assert!(
        single
            .warnings()
            .iter()
            .any(|w| w.contains("Redis Cluster of 3 primaries") && w.contains("connect_cluster")),
        "{:?}",
        single.warnings()
    );
    let mut refused = None;
    for i in 0..64 {
        let q = single.queue(&fresh_prefix(&format!("moved{i}"))).unwrap();
        if let Err(e) = q.add(&Item::new(b"x".to_vec())).await {
            refused = Some((q, e));
            break;
        }
    }
    // A partitioned queue spans every primary: refused to this client before anything is
    // sent, to create or to open, so that no call over the partitions is half done.
    // (A base whose layout another node serves gets the redirect's error, above, reading it.)
    let cluster = Client::connect_cluster(&env.urls).await.unwrap();
    let mut refused_here = 0;
    for i in 0..24 {
        let base = fresh_prefix(&format!("moved-parts{i}"));
        cluster.create_partitioned(&base, 3).await.unwrap();
        let err = single.partitioned(&base).await.unwrap_err();
        assert!(err.to_string().contains("Client.cluster"), "{err}");
        if err.code() == ErrorCode::InvalidArgument {
            refused_here += 1;
        }
    }
    assert!(refused_here > 0, "some base's layout is on this node");
    let err = single
        .create_partitioned(&fresh_prefix("moved-new"), 3)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{err}");
    assert!(err.to_string().contains("Client.cluster"), "{err}");
    let (q, err) = refused.expect("a prefix whose slot another node serves");
    assert_eq!(err.code(), ErrorCode::Redis, "{err}");
    assert!(
        err.to_string().contains("connect as a Cluster client"),
        "{err}"
    );
    let err = q
        .lease(TTL, Wait::Timeout(Duration::from_secs(30)))
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Redis, "{err}");
}
