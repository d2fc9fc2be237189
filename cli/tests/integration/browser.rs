//! The dashboard end to end in a real headless Chromium: cli/tests/browser/dashboard.py, run
//! with the Python that `LEASEQ_TEST_PYTHON` names (cli/test.sh makes a venv with selenium and
//! installs Debian's chromium and chromium-driver). Ignored by a plain `cargo test`, since it
//! needs them; `make test-cli` runs it.

use crate::common;

use std::time::Duration;

use leaseq::{Client, Item, QueueConfig, RateLimit, Retry, State, Wait};
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
    // `{browse}`, the job browser's: a done item, 72 waiting, two delayed, three dead letters
    // (one id is markup).
    let browse = client.queue("{browse}").unwrap();
    browse
        .add(&Item::with_id("done1", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    let lease = browse
        .lease(Duration::from_secs(30), Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert!(browse
        .complete_with_result(&lease, Some(b"sent"), None)
        .await
        .unwrap());
    for (id, kind) in [
        ("b1", "Timeout"),
        ("<b>b2</b>", "Timeout"),
        ("b3", "ValueError"),
    ] {
        common::dead(&browse, id, b"x", "failed", kind).await;
    }
    for i in 0..72 {
        browse
            .add(&Item::with_id(format!("w{i:02}"), b"x".to_vec()).unwrap())
            .await
            .unwrap();
    }
    for id in ["later1", "later2"] {
        browse
            .add(&Item::with_id(id, b"x".to_vec()).unwrap().delay(hour))
            .await
            .unwrap();
    }
    let served = common::Served::start(&[server.url()], "dashboard", &[]);
    let log = run_script(&python, &served.base, &server.url(), "all");
    assert!(log.contains("browser: 22 passed, 0 failed"), "{log}");
    // What the browser did to `{browse}`, seen through the core.
    assert_eq!(
        browse.get("later1").await.unwrap().unwrap().state,
        State::Waiting
    );
    assert_eq!(
        browse.get("later2").await.unwrap().unwrap().state,
        State::Delayed
    );
    assert!(browse.get("w07").await.unwrap().is_none());
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

/// Runs cli/tests/browser/dashboard.py in `mode` against the dashboard at `base`; returns its
/// output, having checked that it succeeded.
fn run_script(python: &str, base: &str, redis: &str, mode: &str) -> String {
    let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/cli-screenshots");
    std::fs::create_dir_all(shots).unwrap();
    let out = std::process::Command::new(python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/browser/dashboard.py"
        ))
        .args([base, common::BIN, redis, shots, mode])
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{log}");
    log
}

/// The dashboard started while Redis is down shows the error, and recovers when Redis comes
/// back: the page (in Chromium) writes `down.flag` once it shows the error; then Redis starts
/// and gets a queue, which the page must show without a reload.
#[tokio::test]
#[ignore = "needs Chromium and a Python venv with selenium: run `make test-cli`"]
async fn the_dashboard_in_chromium_while_redis_is_down() {
    let python = std::env::var("LEASEQ_TEST_PYTHON")
        .expect("LEASEQ_TEST_PYTHON names a Python with selenium (cli/test.sh sets it)");
    let mut server = RedisServer::start();
    server.kill();
    let served = common::Served::start(&[server.url()], "dashboard", &[]);
    let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/cli-screenshots");
    std::fs::create_dir_all(shots).unwrap();
    let flag = std::path::Path::new(shots).join("down.flag");
    let _ = std::fs::remove_file(&flag);
    let script = {
        let (python, base, url) = (python.clone(), served.base.clone(), server.url());
        std::thread::spawn(move || run_script(&python, &base, &url, "down"))
    };
    // The page's condition, not a time: the script writes the flag once it saw the error.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !flag.exists() {
        assert!(
            std::time::Instant::now() < deadline && !script.is_finished(),
            "the page never showed that Redis is down"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.restart();
    let q = Client::connect(&server.url())
        .await
        .unwrap()
        .queue("{back}")
        .unwrap();
    q.add(&Item::new(b"x".to_vec())).await.unwrap();
    let log = script.join().unwrap();
    assert!(log.contains("browser-down: 1 passed, 0 failed"), "{log}");
}

/// The README's screenshot (docs/dashboard.png, copied from
/// target/cli-screenshots/readme.png): a queue of e-mails as a real one looks, with a runner,
/// per-minute counters, items waiting, delayed and in progress, and dead letters with the
/// errors a mail sender meets.
#[tokio::test]
#[ignore = "needs Chromium and a Python venv with selenium: run `make test-cli`"]
async fn the_readme_screenshot_of_a_realistic_queue() {
    let python = std::env::var("LEASEQ_TEST_PYTHON")
        .expect("LEASEQ_TEST_PYTHON names a Python with selenium (cli/test.sh sets it)");
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.queue("{emails}").unwrap();
    q.set_config(&QueueConfig::new().stats(true)).await.unwrap();
    let ttl = Duration::from_secs(300);
    let mail = |id: String, to: &str| {
        let data = format!(r#"{{"to":"{to}","template":"welcome","locale":"en"}}"#);
        Item::with_id(id, data.into_bytes()).unwrap()
    };
    // Completed, some after a retry.
    for i in 0..40 {
        q.add(&mail(format!("welcome-{}", 4100 + i), "user@example.com"))
            .await
            .unwrap();
        let lease = q.lease(ttl, Wait::No).await.unwrap().unwrap();
        if i % 7 == 3 {
            q.fail(
                &lease,
                "421 try again later",
                "SMTPResponseException",
                Retry::After(Duration::ZERO),
            )
            .await
            .unwrap();
            let lease = q.lease(ttl, Wait::No).await.unwrap().unwrap();
            q.complete_with_result(&lease, Some(b"250 OK"), None)
                .await
                .unwrap();
        } else {
            q.complete_with_result(&lease, Some(b"250 OK"), None)
                .await
                .unwrap();
        }
    }
    // Dead letters with the errors a mail sender meets.
    for (n, (message, kind)) in [
        ("Connection unexpectedly closed", "SMTPServerDisconnected"),
        ("Connection unexpectedly closed", "SMTPServerDisconnected"),
        ("Connection unexpectedly closed", "SMTPServerDisconnected"),
        ("'first_name' is undefined", "UndefinedError"),
        (
            "550 5.1.1 mailbox unavailable: bob@exmaple.com",
            "SMTPRecipientsRefused",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        common::dead(&q, &format!("welcome-{}", 4200 + n), b"{}", message, kind).await;
    }
    // Two in progress, one reporting how far it got.
    for i in 0..2 {
        q.add(&mail(format!("digest-{}", 900 + i), "team@example.com"))
            .await
            .unwrap();
    }
    let first = q.lease(ttl, Wait::No).await.unwrap().unwrap();
    q.progress(&first, b"sent 40 of 120").await.unwrap();
    let _second = q.lease(ttl, Wait::No).await.unwrap().unwrap();
    // Waiting, and reminders due later.
    for i in 0..27 {
        q.add(&mail(
            format!("welcome-{}", 4300 + i),
            "new.user@example.com",
        ))
        .await
        .unwrap();
    }
    for i in 0..4 {
        q.add(
            &mail(format!("reminder-{}", 310 + i), "trial@example.com")
                .delay(Duration::from_secs(600 * (i + 1))),
        )
        .await
        .unwrap();
    }
    let hour = Duration::from_secs(3600);
    let info = br#"{"language":"python","concurrency":8,"running":["digest-900","digest-901"],"completed":40,"failed":11,"dead":5}"#;
    q.runner_beat("mailer-7f3c", info, hour, true, hour)
        .await
        .unwrap();
    // The hour before: the scene stands for a queue that has been at work for a while, so
    // the counters of the minutes before this one are written as the scripts write them
    // (spec/PROTOCOL.md 4.3, count_event: `P:rate:<minute>`, expiring 62 minutes on).
    let mut raw = redis::Client::open(server.url().as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let now_minute = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
        / 60_000;
    for ago in 1..60u64 {
        let wave = (ago as f64 / 9.0).sin().abs();
        let completed = 20 + (wave * 60.0) as u64 + ago % 7;
        let failed = (ago % 5 == 0) as u64 * 4 + ago % 3;
        let dead = (ago % 17 == 0) as u64;
        let key = format!("{{emails}}:rate:{}", now_minute - ago);
        let _: () = redis::pipe()
            .hset_multiple(
                &key,
                &[("completed", completed), ("failed", failed), ("dead", dead)],
            )
            .pexpire(&key, 3_720_000)
            .query_async(&mut raw)
            .await
            .unwrap();
    }
    let served = common::Served::start(&[server.url()], "dashboard", &[]);
    let log = run_script(&python, &served.base, &server.url(), "readme");
    assert!(log.contains("browser-readme: 1 passed, 0 failed"), "{log}");
}
