//! `make demo`'s output reads as a story: what each planned failure shows and what came of it,
//! not the runners' own logs (their errors while Redis restarts, their final reports), which go
//! to a file the demo names. A short demo with the built-in Rust runner, and the Python one when
//! py/.venv exists (`make test-py` or `py/build.sh` makes it), as `make demo` runs them.

use std::path::Path;
use std::process::Command;

#[test]
fn the_demo_says_what_it_shows_and_keeps_the_runners_logs_apart() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut demo = Command::new(env!("CARGO_BIN_EXE_leaseq-soak"));
    demo.args(["--demo", "--items", "600"]);
    let python = repo.join("py/.venv/bin/python");
    if python.exists() {
        let worker = repo.join("integration-tests/soak/workers/soak_worker.py");
        demo.arg("--worker")
            .arg(format!("python={} {}", python.display(), worker.display()));
    }
    let out = demo.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for said in [
        "planned failure 1: a ",
        "planned failure 2: Redis restarted",
        "Redis is back after",
        "what came of it:",
        "; lost 0",
        "the runners' own logs: ",
        "demo: 1 passed, 0 failed",
    ] {
        assert!(stdout.contains(said), "no `{said}` in:\n{stdout}");
    }
    let all = format!("{stdout}\n{stderr}");
    for line in all.lines() {
        assert!(
            !line.contains("going on") && !line.to_lowercase().contains("connection"),
            "a runner's error reached the terminal: {line}"
        );
        assert!(
            !line.contains("Report(") && !line.contains("soak_worker") && !line.contains("{\""),
            "a raw report reached the terminal: {line}"
        );
    }
    // The log the demo named holds the runners' own lines.
    let log = stdout
        .lines()
        .find_map(|l| l.strip_prefix("the runners' own logs: "))
        .unwrap();
    assert!(Path::new(log.trim()).exists(), "{log}");
}
