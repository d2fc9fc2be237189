//! `leaseq events` (spec/PROTOCOL.md 14) and the event settings of `leaseq config set`, through
//! the binary against a throwaway redis-server.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{code, json, run, stderr, stdout};
use leaseq::{Client, Item, Wait};
use leaseq_harness::RedisServer;

const TTL: Duration = Duration::from_secs(30);

#[tokio::test]
async fn events_are_switched_on_printed_and_followed() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.queue("{jobs}").unwrap();

    // Off (the default): nothing is recorded, and the command says why the page is empty.
    q.add(&Item::with_id("quiet", "x").unwrap()).await.unwrap();
    let out = run(&urls, &["events", "-q", "{jobs}"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("events are off"), "{}", stderr(&out));

    // On, with bounds; `config` shows them.
    let out = run(
        &urls,
        &[
            "config",
            "set",
            "-q",
            "{jobs}",
            "--events",
            "on",
            "--events-max-len",
            "500",
            "--events-max-age",
            "10m",
            "--json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let config = json(&out);
    assert_eq!(config["stored"]["events"], true);
    assert_eq!(config["stored"]["events_max_len"], 500);
    assert_eq!(config["stored"]["events_max_age_ms"], 600_000);
    assert_eq!(config["defaults"]["events"], false);
    let out = run(&urls, &["config", "-q", "{jobs}"]);
    assert!(
        stdout(&out)
            .lines()
            .any(|l| l.starts_with("events ") && l.contains(" on")),
        "{}",
        stdout(&out)
    );
    // A bound refused names its option and writes nothing.
    let out = run(
        &urls,
        &["config", "set", "-q", "{jobs}", "--events-max-len", "0"],
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--events-max-len"),
        "{}",
        stderr(&out)
    );

    // A page: one line per entry, oldest first; an error written by anyone stays on its line.
    q.add(
        &Item::with_id("a", "x")
            .unwrap()
            .name("ship")
            .max_attempts(1),
    )
    .await
    .unwrap();
    let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    assert_eq!(lease.id(), "quiet");
    q.complete(&lease).await.unwrap();
    let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    q.fail(&lease, "bad\nline\x1b[31m", "E", leaseq::Retry::Never)
        .await
        .unwrap();
    let out = run(&urls, &["events", "-q", "{jobs}"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let kinds: Vec<(&str, &str)> = text
        .lines()
        .map(|l| {
            let cols: Vec<&str> = l.split("  ").collect();
            (cols[2], cols[3])
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("added", "a"),
            ("leased", "quiet"),
            ("completed", "quiet"),
            ("leased", "a"),
            ("failed", "a"),
            ("dead", "a")
        ],
        "{text}"
    );
    assert!(text.contains("name=ship"), "{text}");
    assert!(text.contains("error=bad\\nline\\u{1b}[31m"), "{text}");
    assert!(!text.contains('\x1b'), "{text}");

    // JSON, and a page after an entry: what came after it only.
    let out = run(&urls, &["events", "-q", "{jobs}", "--json", "--limit", "2"]);
    let page = json(&out);
    assert_eq!(page["on"], true);
    let events = page["events"].as_array().unwrap();
    assert_eq!(events.len(), 2);
    assert_eq!(events[1]["event"], "leased");
    assert_eq!(events[0]["name"], "ship");
    // A full page in text says how to go on.
    let out = run(&urls, &["events", "-q", "{jobs}", "--limit", "2"]);
    assert!(
        stderr(&out).contains(&format!("--after {}", events[1]["id"].as_str().unwrap())),
        "{}",
        stderr(&out)
    );
    let second = events[1]["id"].as_str().unwrap().to_owned();
    let out = run(
        &urls,
        &["events", "-q", "{jobs}", "--after", &second, "--json"],
    );
    let rest = json(&out);
    assert_eq!(rest["events"].as_array().unwrap().len(), 4);
    assert_eq!(rest["events"][0]["event"], "completed");

    // A bad position is refused, naming it, exit 2.
    let out = run(&urls, &["events", "-q", "{jobs}", "--after", "soon"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("after"), "{}", stderr(&out));
    // A read does not say "nothing was written", as a refused write does.
    assert!(
        !stderr(&out).contains("nothing was written"),
        "{}",
        stderr(&out)
    );

    // --follow: after the last entry, each new one as a JSON line as it happens, until Ctrl-C.
    let last = rest["last"].as_str().unwrap().to_owned();
    let mut follower = Command::new(common::BIN)
        .args([
            "--url", &urls[0], "events", "-q", "{jobs}", "--follow", "--after", &last, "--json",
        ])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    q.add(&Item::with_id("b", "x").unwrap()).await.unwrap();
    let lease = q.lease(TTL, Wait::No).await.unwrap().unwrap();
    q.complete(&lease).await.unwrap();
    // Read on a thread of its own: a follower that printed nothing fails the test, not hangs it.
    let (tx, rx) = std::sync::mpsc::channel();
    let out = follower.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    for _ in 0..3 {
        let Ok(line) = rx.recv_timeout(Duration::from_secs(20)) else {
            let _ = follower.kill();
            let mut err = String::new();
            std::io::Read::read_to_string(&mut follower.stderr.take().unwrap(), &mut err).unwrap();
            panic!("the follower printed {seen:?}, then nothing: {err}");
        };
        let entry: serde_json::Value = serde_json::from_str(&line).unwrap();
        seen.push(format!(
            "{} {}",
            entry["event"].as_str().unwrap(),
            entry["job_id"].as_str().unwrap()
        ));
    }
    assert_eq!(seen, ["added b", "leased b", "completed b"]);
    Command::new("kill")
        .args(["-INT", &follower.id().to_string()])
        .status()
        .unwrap();
    let status = follower.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
