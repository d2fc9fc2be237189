//! The dashboard's live event log (server-sent events from `GET /api/events`, followed by the
//! page's `EventSource`) in a real headless Chromium: cli/tests/browser/events.py, run with the
//! Python that `LEASEQ_TEST_PYTHON` names (cli/test.sh sets it up). An item added and completed,
//! and another failed, from outside the page show up in it without a reload. Ignored by a plain
//! `cargo test`; `make test-cli` runs it.

use crate::common;

use std::time::Duration;

use leaseq::{Client, Item, QueueConfig, Retry, Wait};
use leaseq_harness::RedisServer;

#[tokio::test]
#[ignore = "needs Chromium and a Python venv with selenium: run `make test-cli`"]
async fn the_live_event_log_in_chromium() {
    let python = std::env::var("LEASEQ_TEST_PYTHON")
        .expect("LEASEQ_TEST_PYTHON names a Python with selenium (cli/test.sh sets it)");
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).await.unwrap();
    let live = client.queue("{live}").unwrap();
    live.set_config(&QueueConfig::new().events(true))
        .await
        .unwrap();
    let quiet = client.queue("{quiet}").unwrap();
    quiet
        .add(&Item::with_id("q", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    let served = common::Served::start(&[server.url()], "dashboard", &[]);
    let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/cli-screenshots");
    std::fs::create_dir_all(shots).unwrap();
    let flag = std::env::temp_dir().join(format!("leaseq-events-{}.flag", std::process::id()));
    let _ = std::fs::remove_file(&flag);
    let script = std::process::Command::new(python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/browser/events.py"
        ))
        .args([served.base.as_str(), flag.to_str().unwrap(), shots])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the page follows the stream: from outside, one item completed, one failed for good.
    let script = tokio::task::spawn_blocking(move || script.wait_with_output().unwrap());
    let mut following = false;
    for _ in 0..600 {
        if flag.exists() {
            following = true;
            break;
        }
        if script.is_finished() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if following {
        let ttl = Duration::from_secs(30);
        live.add(&Item::with_id("<b>live</b>", b"x".to_vec()).unwrap())
            .await
            .unwrap();
        let lease = live.lease(ttl, Wait::No).await.unwrap().unwrap();
        live.complete(&lease).await.unwrap();
        live.add(&Item::with_id("bad", b"x".to_vec()).unwrap())
            .await
            .unwrap();
        let lease = live.lease(ttl, Wait::No).await.unwrap().unwrap();
        live.fail(&lease, "<img src=x onerror=alert(1)>", "Html", Retry::Never)
            .await
            .unwrap();
    }
    let out = script.await.unwrap();
    let _ = std::fs::remove_file(&flag);
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{log}");
    assert!(log.contains("browser-events: 4 passed, 0 failed"), "{log}");
}
