//! What a runner logs (spec/PROTOCOL.md 13.4), read through a `tracing` subscriber as a Rust
//! program reads it and through `Worker::on_log` as the bindings do: the start line without the
//! URL's password, a line per failure with its id, attempt and error, none per success at the
//! default level; and a failure's trace kept with the item.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use leaseq::worker::{Event, Job, JobError, LogLevel, Worker};
use leaseq::{Client, Item};
use leaseq_harness::RedisServer;
use tokio::sync::mpsc;

/// Every line the fmt subscriber writes, kept for the test.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// An error with a cause, as a handler's `?` meets one.
#[derive(Debug)]
struct Outer(std::io::Error);

impl std::fmt::Display for Outer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("could not read the upload")
    }
}

impl std::error::Error for Outer {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_logs_its_start_failures_and_stop_and_keeps_each_failures_trace() {
    let captured = Captured::default();
    let writer = captured.clone();
    // The default level of a program: INFO.
    tracing::subscriber::set_global_default(
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::INFO)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish(),
    )
    .expect("the only subscriber of this test binary");

    let server = RedisServer::start();
    let reply = server.command("ACL SETUSER logger on >hunter2 ~* &* +@all");
    assert!(reply.starts_with("+OK"), "{reply}");
    let url = server.url().replace("redis://", "redis://logger:hunter2@");
    let client = Client::connect(&url).await.expect("the user connects");
    assert!(
        !client.address().contains("hunter2"),
        "{}",
        client.address()
    );
    let q = client.queue("{logs}").unwrap();
    q.add(&Item::with_id("ok-1", "x").unwrap()).await.unwrap();
    q.add(&Item::with_id("bad", "x").unwrap().max_attempts(1))
        .await
        .unwrap();
    q.add(&Item::with_id("chain", "x").unwrap().max_attempts(1))
        .await
        .unwrap();

    let lines: Arc<Mutex<Vec<(LogLevel, String)>>> = Arc::default();
    let sink = lines.clone();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let worker = Worker::new(q.clone(), |job: Job| async move {
        match job.id() {
            "bad" => Err(JobError::new("boom").with_trace("line 1\nline 2")),
            "chain" => {
                let cause = std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "eof at 12");
                Err(JobError::from(Outer(cause)))
            }
            _ => Ok(()),
        }
    })
    .concurrency(2)
    .on_event(move |e: &Event| drop(tx.send(e.clone())))
    .on_log(LogLevel::Debug, move |level, line| {
        sink.lock().unwrap().push((level, line.to_owned()))
    });
    let handle = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    let (mut done, mut dead) = (0, 0);
    tokio::time::timeout(Duration::from_secs(60), async {
        while done + dead < 3 {
            match rx.recv().await.expect("events") {
                Event::Completed { .. } => done += 1,
                Event::Dead { .. } => dead += 1,
                _ => {}
            }
        }
    })
    .await
    .expect("three outcomes within a minute");
    handle.stop();
    let report = run.await.unwrap().unwrap();
    assert_eq!((report.completed, report.dead), (1, 2));

    let text = captured.text();
    assert!(!text.contains("hunter2"), "a password in the log:\n{text}");
    assert!(!text.contains("logger"), "a user name in the log:\n{text}");
    let start = text
        .lines()
        .find(|l| l.contains("started: queue {logs} on redis://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no start line:\n{text}"));
    assert!(
        start.contains("INFO") && start.contains("concurrency 2"),
        "{start}"
    );
    let failure = text
        .lines()
        .find(|l| l.contains("job bad failed"))
        .unwrap_or_else(|| panic!("no failure line:\n{text}"));
    assert!(
        failure.contains("ERROR") && failure.contains("(attempt 1) and is dead: boom"),
        "{failure}"
    );
    assert!(failure.contains("leaseq::worker"), "{failure}");
    assert!(
        !text.contains("ok-1"),
        "a line for a successful job at the default level:\n{text}"
    );
    assert!(
        text.contains("stopped: 1 completed, 0 retried, 2 dead"),
        "no stop line:\n{text}"
    );

    // The sink got every line, at its level, the success's at DEBUG.
    let lines = lines.lock().unwrap().clone();
    assert!(
        lines.contains(&(LogLevel::Debug, "job ok-1 completed (attempt 1)".into())),
        "{lines:?}"
    );
    assert!(
        lines.contains(&(
            LogLevel::Error,
            "job bad failed (attempt 1) and is dead: boom".into()
        )),
        "{lines:?}"
    );
    assert_eq!(
        lines.first().map(|l| l.0),
        Some(LogLevel::Info),
        "{lines:?}"
    );
    assert!(lines[0].1.contains("started"), "{lines:?}");

    // Each failure's trace is kept with the item.
    let bad = q.get("bad").await.unwrap().expect("dead, not gone");
    assert_eq!(bad.trace.as_deref(), Some("line 1\nline 2"));
    let chain = q.get("chain").await.unwrap().expect("dead, not gone");
    assert_eq!(
        chain.error.as_ref().map(|e| e.0.as_str()),
        Some("could not read the upload")
    );
    assert_eq!(
        chain.trace.as_deref(),
        Some("could not read the upload\ncaused by: eof at 12")
    );
}
