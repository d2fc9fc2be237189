//! The harness leaves no temp dir behind: a server kept in a `static` for a whole test binary
//! (as the core's cluster tests keep their cluster) is never dropped, so its directory goes when
//! the process exits. The test runs this binary again as a child that does just that.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use leaseq_harness::RedisServer;

const CHILD: &str = "LEASEQ_HARNESS_TEMP_DIRS_CHILD";

static SERVER: OnceLock<RedisServer> = OnceLock::new();

/// In the child only: starts a server in a static and prints its directory.
#[test]
fn child_keeps_a_server_in_a_static() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let server = SERVER.get_or_init(RedisServer::start);
    assert!(server.dir().is_dir());
    assert!(server.command("PING").starts_with("+PONG"));
    println!("DIR={}", server.dir().display());
}

#[test]
fn a_static_servers_dir_is_removed_when_the_process_exits() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_keeps_a_server_in_a_static", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .expect("run the test binary again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = stdout
        .lines()
        .find_map(|l| l.strip_prefix("DIR="))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("the child printed no DIR= line:\n{stdout}"));
    assert!(
        dir.starts_with(std::env::temp_dir()),
        "{} is not a temp dir",
        dir.display()
    );
    assert!(!dir.exists(), "{} was left behind", dir.display());
}
