//! The README's Rust section is `examples/readme.rs`, word for word, and it runs.

use std::process::Command;

use leaseq_harness::RedisServer;

/// The operations example: the first Rust block after the runner's.
fn readme_rust_block() -> String {
    let readme = include_str!("../../README.md");
    let rest = &readme[readme.find("<!-- END rust-runner -->").unwrap()..];
    let start = rest.find("```rust\n").expect("a rust code block") + "```rust\n".len();
    let end = start + rest[start..].find("```").unwrap();
    rest[start..end].to_owned()
}

#[test]
fn readme_example_is_the_example_file() {
    assert_eq!(readme_rust_block(), include_str!("../examples/readme.rs"));
}

#[test]
fn readme_example_runs() {
    let server = RedisServer::start();
    // Through cargo, which builds the example if this test run did not.
    let out = Command::new(env!("CARGO"))
        .args(["run", "-q", "-p", "leaseq", "--example", "readme"])
        .env("REDIS_URL", server.url())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
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

fn readme_block(name: &str) -> String {
    let readme = include_str!("../../README.md");
    let begin = format!("<!-- BEGIN {name} -->");
    let section = &readme[readme.find(&begin).unwrap()..];
    let section = &section[..section.find("<!-- END").unwrap()];
    let start = section.find("```rust\n").expect("a rust code block") + "```rust\n".len();
    let end = start + section[start..].find("```").unwrap();
    section[start..end].to_owned()
}

#[test]
fn readme_runner_is_the_runner_example_and_it_runs() {
    assert_eq!(
        readme_block("rust-runner"),
        include_str!("../examples/runner.rs")
    );
    let server = RedisServer::start();
    let out = Command::new(env!("CARGO"))
        .args(["run", "-q", "-p", "leaseq", "--example", "runner"])
        .env("REDIS_URL", server.url())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
