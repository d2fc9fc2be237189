//! Every program of `core/examples` runs against a fresh redis-server, exits 0 and prints what it
//! says. The documentation shows them word for word: each Rust block of README.md, */README.md
//! and docs/ names its file in a `<!-- sample: ... -->` line, and scripts/check-samples.py (run
//! by `make test`) checks that the block is the file.

use std::collections::BTreeSet;
use std::process::Command;
use std::sync::Once;

use leaseq_harness::RedisServer;

/// The examples this file runs; a new file in `core/examples` needs its test here.
const TESTED: &[&str] = &[
    "blocking",
    "dependencies",
    "errors",
    "events",
    "flow",
    "names",
    "logs",
    "operations",
    "partitioned",
    "quickstart",
    "recovery",
    "runner",
    "schedules",
];

/// `cargo ARGS` as from a shell: without the variables cargo sets for this test (a build
/// script that watches one, ring's watches CARGO_MANIFEST_DIR, would rebuild every time).
fn cargo(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO"));
    command.args(args);
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let set_by_cargo = name.starts_with("CARGO_PKG_")
            || [
                "CARGO_MANIFEST_DIR",
                "CARGO_MANIFEST_PATH",
                "CARGO_CRATE_NAME",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "CARGO_RUSTC_CURRENT_DIR",
            ]
            .contains(&name.as_ref());
        if set_by_cargo {
            command.env_remove(name.as_ref());
        }
    }
    command
}

/// Runs `cargo run --example name` against a fresh server; returns its output once it exited 0.
fn run(name: &str) -> String {
    // Every example in one build (unless this test run built them): one wait for cargo's lock,
    // not one per test.
    static BUILT: Once = Once::new();
    BUILT.call_once(|| {
        let built = cargo(&["build", "-q", "-p", "leaseq", "--examples"])
            .status()
            .unwrap();
        assert!(built.success(), "cargo build --examples");
    });
    let server = RedisServer::start();
    let out = cargo(&["run", "-q", "-p", "leaseq", "--example", name])
        .env("REDIS_URL", server.url())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "example {name} failed\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stdout.is_empty(), "example {name} prints what it did");
    stdout
}

#[test]
fn every_example_has_its_test() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    let found: BTreeSet<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let tested: BTreeSet<String> = TESTED.iter().map(|name| name.to_string()).collect();
    assert_eq!(found, tested, "core/examples and the tests of this file");
}

#[test]
fn events() {
    assert_eq!(
        run("events"),
        "added order-1 (attempt 0)\nleased order-1 (attempt 1)\ncompleted order-1 (attempt 1)\n\
         since then: added order-2\n"
    );
}

#[test]
fn partitioned() {
    assert_eq!(
        run("partitioned"),
        "4 partitions\nadded 10\ncompleted 10\nINVALID_ARGUMENT\nwaiting 0 in 4 partitions\n"
    );
}

#[test]
fn quickstart() {
    let stdout = run("quickstart");
    assert_eq!(
        stdout,
        "sending to \"ada@example.com\" (attempt 1)\nresult: sent\n"
    );
}

#[test]
fn names() {
    let stdout = run("names");
    let mut lines: Vec<&str> = stdout.lines().collect();
    lines[..2].sort();
    assert_eq!(
        lines,
        [
            "resize: {\"w\": 640}",
            "send_email: mail to ada@example.com",
            "2 completed, 1 dead",
            "print: 0 completed, 1 dead",
            "resize: 1 completed, 0 dead",
            "send_email: 1 completed, 0 dead",
        ],
        "{stdout}"
    );
}

#[test]
fn runner() {
    let stdout = run("runner");
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.starts_with("sending to"))
            .count(),
        2,
        "{stdout}"
    );
    assert!(stdout.contains("2 completed, 1 dead"), "{stdout}");
}

#[test]
fn logs() {
    let stdout = run("logs");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with(" INFO leaseq::worker: runner ")
            && lines[0].contains(" started: queue {invoices} on redis://127.0.0.1:")
            && lines[0].contains(", concurrency 1 runner="),
        "{stdout}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with(
            "ERROR leaseq::worker: job bad failed (attempt 1) and is dead: not an amount runner="
        )),
        "{stdout}"
    );
    assert!(
        !stdout.contains("job ok"),
        "a success is a DEBUG line: {stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("stopped: 1 completed, 0 retried, 1 dead")),
        "{stdout}"
    );
    assert_eq!(
        lines[lines.len() - 2..],
        ["not an amount", "caused by: invalid float literal"],
        "{stdout}"
    );
}

#[test]
fn operations() {
    let stdout = run("operations");
    assert_eq!(
        stdout.lines().filter(|l| l.contains("(attempt 1)")).count(),
        5,
        "{stdout}"
    );
    assert!(
        stdout.contains("report-7: Some([115, 101, 110, 116])"),
        "{stdout}"
    );
    assert!(
        stdout.contains("dead: ") && stdout.contains("\"upstream said 503\""),
        "{stdout}"
    );
    assert!(
        stdout.contains("waiting 0, delayed 1, dead 1; completed in the last hour: 4"),
        "{stdout}"
    );
}

#[test]
fn errors() {
    let stdout = run("errors");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(lines[0], "refused: ttl must be greater than zero");
    assert!(
        lines[1].starts_with("INVALID_ARGUMENT: invalid argument `id`: "),
        "{stdout}"
    );
    assert_eq!(lines[2], "CLOSED (6), retryable: false");
}

#[test]
fn flow() {
    assert_eq!(
        run("flow"),
        "paused: true, leased: false\nFULL: true\nadded after a lease made room: true\nSome(2)\n"
    );
}

#[test]
fn blocking() {
    assert_eq!(run("blocking"), "4 completed by 2 threads\n");
}

#[test]
fn recovery() {
    let stdout = run("recovery");
    assert!(stdout.contains("crashed holding "), "{stdout}");
    assert!(
        stdout.contains("completed 5000 of 5000 in ") && stdout.contains(", lost: 0"),
        "{stdout}"
    );
    assert!(stdout.contains("completed twice: 0"), "{stdout}");
}

#[test]
fn schedules() {
    let stdout = run("schedules");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "two beats ran", "{stdout}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("nightly-report: fired 0, next in Some(")),
        "{stdout}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("beat: fired ")),
        "{stdout}"
    );
}

#[test]
fn dependencies() {
    let stdout = run("dependencies");
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "email waits for [\"report\"]",
            "part eu",
            "part us",
            "report from part-eu=42 sales, part-us=42 sales",
            "email sent after the report",
        ],
        "{stdout}"
    );
}
