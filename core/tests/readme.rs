//! The README's Rust section is `examples/readme.rs`, word for word, and it runs.

use std::process::Command;

use leaseq_harness::RedisServer;

fn readme_rust_block() -> String {
    let readme = include_str!("../../README.md");
    let section = &readme
        [readme.find("<!-- BEGIN rust -->").unwrap()..readme.find("<!-- END rust -->").unwrap()];
    let start = section.find("```rust\n").expect("a rust code block") + "```rust\n".len();
    let end = start + section[start..].find("```").unwrap();
    section[start..end].to_owned()
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
