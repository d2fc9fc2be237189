//! The dashboard end to end in a real headless Chromium: cli/tests/browser/dashboard.py, run
//! with the Python that `LEASEQ_TEST_PYTHON` names (cli/test.sh makes a venv with selenium and
//! installs Debian's chromium and chromium-driver). Ignored by a plain `cargo test`, since it
//! needs them; `make test-cli` runs it.

mod common;

use std::time::Duration;

use leaseq::{Client, Item, QueueConfig, RateLimit, State};
use leaseq_harness::RedisServer;

#[tokio::test]
#[ignore = "needs Chromium and a Python venv with selenium: run `make test-cli`"]
async fn the_dashboard_in_chromium() {
    let python = std::env::var("LEASEQ_TEST_PYTHON")
        .expect("LEASEQ_TEST_PYTHON names a Python with selenium (cli/test.sh sets it)");
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).await.unwrap();
    // `{web}` keeps no counters (the default); `{counted}` does, and has one dead letter.
    let q = client.queue("{web}").unwrap();
    // Bounded, to show its capacity; the page pauses and resumes it. Rate limited, not held
    // off (the page's test holds it off through the command).
    q.set_config(
        &QueueConfig::new()
            .capacity(100)
            .rate_limit(RateLimit::new(1000, Duration::from_secs(1))),
    )
    .await
    .unwrap();
    let counted = client.queue("{counted}").unwrap();
    counted
        .set_config(&QueueConfig::new().stats(true))
        .await
        .unwrap();
    common::dead(&counted, "c1", b"x", "boom", "Boom").await;
    // No rate limit, but held off for an hour, as a runner told "rate limited" does.
    counted.rate_limit(Duration::from_secs(3600)).await.unwrap();
    q.add(&Item::with_id("xss", b"<script>alert(1)</script>\xff\xfe".to_vec()).unwrap())
        .await
        .unwrap();
    common::dead(&q, "d1", b"one", "took too long", "Timeout").await;
    common::dead(&q, "d2", b"\xff", "bad value", "ValueError").await;
    // A live runner, as any implementation registers one; its text must show as text.
    let info = br#"{"language":"<i>go</i>","concurrency":4,"running":["a","b"],"completed":12}"#;
    let hour = Duration::from_secs(3600);
    assert!(q
        .runner_beat("web-runner-1", info, hour, true, hour)
        .await
        .unwrap());
    let served = common::Served::start(&[server.url()], "dashboard", &[]);
    let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/cli-screenshots");
    std::fs::create_dir_all(shots).unwrap();
    let out = std::process::Command::new(python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/browser/dashboard.py"
        ))
        .args([&served.base, common::BIN, &server.url(), shots])
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{log}");
    assert!(log.contains("browser: 13 passed, 0 failed"), "{log}");
    // What the page did, seen through the core.
    assert_eq!(q.get("d1").await.unwrap().unwrap().state, State::Waiting);
    assert_eq!(q.get("d2").await.unwrap().unwrap().state, State::Dead);
    // The page turned `{web}`'s counters on, then off again.
    assert_eq!(q.config().await.unwrap().stats, Some(false));
    // The page paused `{web}`, then resumed it.
    assert!(!q.is_paused().await.unwrap());
    // The page paused the group `<b>acme</b>` of `{web}`, then resumed it; its items wait, the
    // group held off through the command.
    let group = q.group("<b>acme</b>").await.unwrap();
    assert!(!group.paused);
    assert_eq!(group.waiting, 2);
    assert!(group.rate_limited_for.is_some());
    // The page's test held `{web}` off through the command.
    assert!(q.stats().await.unwrap().rate_limited_for.is_some());
}
