//! Redis restarts under a waiting worker: the worker reconnects and goes on by itself.

use crate::common;

use std::time::Duration;

use common::{Env, TTL};
use leaseq::{Item, Wait};

/// Retries a call until Redis is back; the first calls after a restart may fail with a
/// retryable error while the shared connection reconnects.
async fn until_ok<T, F: AsyncFn() -> leaseq::Result<T>>(f: F) -> T {
    for _ in 0..200 {
        match f().await {
            Ok(v) => return v,
            Err(e) => assert!(e.is_retryable(), "{e}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("Redis never came back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_worker_survives_a_restart() {
    let mut env = Env::single("restart").await;
    let q = env.queue.clone();
    let worker = tokio::spawn(async move { q.lease(TTL, Wait::Forever).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    env.server.as_mut().unwrap().restart();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !worker.is_finished(),
        "the worker keeps waiting instead of failing"
    );
    let item = Item::with_id("after-restart", b"x".to_vec()).unwrap();
    until_ok(async || env.queue.add(&item).await).await;
    let lease = tokio::time::timeout(Duration::from_secs(30), worker)
        .await
        .expect("the worker resumed")
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(lease.id(), "after-restart");
    assert!(
        env.queue.complete(&lease).await.unwrap(),
        "scripts are loaded again after the restart"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timed_lease_returns_at_its_deadline_while_redis_is_down() {
    let mut env = Env::single("down").await;
    env.queue.add(&Item::new(vec![])).await.unwrap();
    env.server.as_mut().unwrap().kill();
    let result = tokio::time::timeout(
        Duration::from_secs(20),
        env.queue
            .lease(TTL, Wait::Timeout(Duration::from_millis(500))),
    )
    .await
    .expect("the lease gives up at its deadline");
    let err = result.unwrap_err();
    assert!(err.is_retryable(), "{err}");
}
