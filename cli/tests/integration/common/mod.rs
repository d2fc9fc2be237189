//! Running the `leaseq` binary against throwaway Redis servers started by the harness.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};

use leaseq::{Item, Retry, Wait};

/// The `leaseq` binary Cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_leaseq");

/// `leaseq --url <urls...> <args>`, with LEASEQ_URL and REDIS_URL cleared.
pub fn run(urls: &[String], args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    for url in urls {
        cmd.arg("--url").arg(url);
    }
    cmd.args(args)
        .env_remove("LEASEQ_URL")
        .env_remove("REDIS_URL")
        .env_remove("LEASEQ_QUEUE")
        .env("NO_COLOR", "1")
        .output()
        .expect("leaseq runs")
}

/// Standard output as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Standard output parsed as JSON; panics with both streams if it is not.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): stdout {:?} stderr {:?}",
            stdout(out),
            stderr(out)
        )
    })
}

/// The exit code.
pub fn code(out: &Output) -> i32 {
    out.status.code().expect("exited")
}

/// A running `leaseq dashboard` or `leaseq metrics`, killed on drop.
pub struct Served {
    pub child: Child,
    /// `http://127.0.0.1:PORT/`
    pub base: String,
}

impl Served {
    /// Starts `leaseq <what> --listen 127.0.0.1:0 <extra>` and waits for its address line.
    pub fn start(urls: &[String], what: &str, extra: &[&str]) -> Served {
        let mut cmd = Command::new(BIN);
        for url in urls {
            cmd.arg("--url").arg(url);
        }
        let mut child = cmd
            .arg(what)
            .arg("--listen")
            .arg("127.0.0.1:0")
            .args(extra)
            .env_remove("LEASEQ_DASHBOARD_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("leaseq serves");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        let base = url.trim_end_matches("metrics").to_owned();
        Served { child, base }
    }

    /// Sends SIGTERM and returns the exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        self.child.wait().unwrap()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Makes `id` a dead letter of `queue` with the error `message` of type `kind`.
pub async fn dead(queue: &leaseq::Queue, id: &str, data: &[u8], message: &str, kind: &str) {
    let item = Item::with_id(id, data.to_vec()).unwrap().max_attempts(1);
    assert!(queue.add(&item).await.unwrap());
    // Lease until this item comes: the queue may hold others.
    let mut others = Vec::new();
    loop {
        let lease = queue
            .lease(std::time::Duration::from_secs(30), Wait::No)
            .await
            .unwrap()
            .expect("the item is waiting");
        if lease.id() == id {
            queue
                .fail(&lease, message, kind, Retry::Never)
                .await
                .unwrap();
            break;
        }
        others.push(lease);
    }
    for lease in others {
        queue.release(&lease, None).await.unwrap();
    }
}
