//! The dashboard end to end in a real headless Chromium: cli/tests/browser/dashboard.py, run
//! with the Python that `LEASEQ_TEST_PYTHON` names (cli/test.sh makes a venv with selenium and
//! installs Debian's chromium and chromium-driver). Ignored by a plain `cargo test`, since it
//! needs them; `make test-cli` runs it.

mod common;

use leaseq::{Client, Item, QueueConfig, State};
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
    // Bounded, to show its capacity; the page pauses and resumes it.
    q.set_config(&QueueConfig::new().capacity(100))
        .await
        .unwrap();
    let counted = client.queue("{counted}").unwrap();
    counted
        .set_config(&QueueConfig::new().stats(true))
        .await
        .unwrap();
    common::dead(&counted, "c1", b"x", "boom", "Boom").await;
    q.add(&Item::with_id("xss", b"<script>alert(1)</script>\xff\xfe".to_vec()).unwrap())
        .await
        .unwrap();
    common::dead(&q, "d1", b"one", "took too long", "Timeout").await;
    common::dead(&q, "d2", b"\xff", "bad value", "ValueError").await;
    // A live runner, as any implementation registers one; its text must show as text.
    let info = br#"{"language":"<i>go</i>","concurrency":4,"running":["a","b"],"completed":12}"#;
    let hour = std::time::Duration::from_secs(3600);
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
    assert!(log.contains("browser: 11 passed, 0 failed"), "{log}");
    // What the page did, seen through the core.
    assert_eq!(q.get("d1").await.unwrap().unwrap().state, State::Waiting);
    assert_eq!(q.get("d2").await.unwrap().unwrap().state, State::Dead);
    // The page turned `{web}`'s counters on, then off again.
    assert_eq!(q.config().await.unwrap().stats, Some(false));
    // The page paused `{web}`, then resumed it.
    assert!(!q.is_paused().await.unwrap());
}
