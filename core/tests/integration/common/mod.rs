//! Shared test set-up: a Redis server or a shared local Cluster, a leaseq client on it, and a
//! raw connection for looking at (and corrupting) the keys the way a crashed client would.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::OnceLock;
use std::time::Duration;

use leaseq::{Client, Queue};
use leaseq_harness::{RedisCluster, RedisServer};
use redis::aio::{ConnectionLike, MultiplexedConnection};
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, RedisFuture, Value};

pub const TTL: Duration = Duration::from_secs(30);

/// A clean report with these counts and nothing promoted or dead.
pub fn report(requeued: u64, removed: u64) -> leaseq::CleanReport {
    let mut report = leaseq::CleanReport::default();
    report.requeued = requeued;
    report.removed = removed;
    report
}

/// A raw connection to the server(s) under test.
#[derive(Clone)]
pub enum Raw {
    Single(MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Raw {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Raw::Single(c) => c.req_packed_command(cmd),
            Raw::Cluster(c) => c.req_packed_command(cmd),
        }
    }
    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Raw::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Raw::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }
    fn get_db(&self) -> i64 {
        0
    }
}

/// One test's world: a client, a queue with a fresh prefix, raw access, and the server URLs.
pub struct Env {
    pub client: Client,
    pub queue: Queue,
    pub raw: Raw,
    pub urls: Vec<String>,
    pub prefix: String,
    /// Keeps a single server alive for the test; the cluster is shared and lives in a static.
    pub server: Option<RedisServer>,
}

static CLUSTER: OnceLock<RedisCluster> = OnceLock::new();

/// A unique, hash-tagged prefix, so tests sharing the cluster never meet.
pub fn fresh_prefix(name: &str) -> String {
    format!(
        "{{{name}-{}}}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

impl Env {
    pub async fn single(name: &str) -> Env {
        let server = RedisServer::start();
        let url = server.url();
        let client = Client::connect(&url).await.expect("connect");
        let raw = Raw::Single(
            redis::Client::open(url.as_str())
                .unwrap()
                .get_multiplexed_async_connection()
                .await
                .unwrap(),
        );
        Env::finish(client, raw, vec![url], name, Some(server))
    }

    pub async fn cluster(name: &str) -> Env {
        let cluster = CLUSTER.get_or_init(RedisCluster::start);
        let urls = cluster.urls();
        let client = Client::connect_cluster(&urls)
            .await
            .expect("connect cluster");
        let raw = Raw::Cluster(
            redis::cluster::ClusterClient::new(urls.clone())
                .unwrap()
                .get_async_connection()
                .await
                .unwrap(),
        );
        Env::finish(client, raw, urls, name, None)
    }

    fn finish(
        client: Client,
        raw: Raw,
        urls: Vec<String>,
        name: &str,
        server: Option<RedisServer>,
    ) -> Env {
        let prefix = fresh_prefix(name);
        let queue = client.queue(&prefix).unwrap();
        Env {
            client,
            queue,
            raw,
            urls,
            prefix,
            server,
        }
    }

    /// A second client of the same server or cluster.
    pub async fn other_client(&self) -> Client {
        if self.server.is_some() {
            Client::connect(&self.urls[0]).await.unwrap()
        } else {
            Client::connect_cluster(&self.urls).await.unwrap()
        }
    }

    /// Adds an item with a chosen id; returns whether it was added.
    pub async fn add(&self, id: &str, data: &[u8]) -> bool {
        let item = leaseq::Item::with_id(id, data.to_vec()).unwrap();
        self.queue.add(&item).await.unwrap()
    }

    /// Leases without waiting, for [`TTL`].
    pub async fn lease(&self) -> Option<leaseq::Lease> {
        self.queue.lease(TTL, leaseq::Wait::No).await.unwrap()
    }

    /// A lease that waits (up to a minute) on a task of its own, returned once its script has
    /// run and found nothing (300 ms on), so that what the test does next happens while it
    /// waits.
    pub async fn waiting_lease(
        &self,
    ) -> tokio::task::JoinHandle<leaseq::Result<Option<leaseq::Lease>>> {
        let queue = self.queue.clone();
        let waiting = tokio::spawn(async move {
            queue
                .lease(TTL, leaseq::Wait::Timeout(Duration::from_secs(60)))
                .await
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        waiting
    }

    /// Leases up to `n` without waiting, for [`TTL`]; returns their ids in lease order.
    pub async fn lease_ids(&self, n: usize) -> Vec<String> {
        self.queue
            .lease_batch(n, TTL, leaseq::Wait::No)
            .await
            .unwrap()
            .iter()
            .map(|l| l.id().to_owned())
            .collect()
    }

    /// Lets `lease` run out now, as a crashed holder's would: the next recovery finds it.
    pub async fn expire(&self, lease: &leaseq::Lease) {
        assert!(self
            .queue
            .renew(lease, Duration::from_millis(1))
            .await
            .unwrap());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    /// What a redis-work-queue 0.3 worker's lease sends: take the id into processing, then set
    /// its lease (30 s) with the worker's session id.
    pub async fn foreign_lease(&self) -> Option<String> {
        let id: Option<String> = self
            .cmd(&[
                b"RPOPLPUSH",
                self.key("queue").as_bytes(),
                self.key("processing").as_bytes(),
            ])
            .await;
        if let Some(id) = &id {
            self.cmd::<String>(&[
                b"SETEX",
                self.key(&format!("lease:{id}")).as_bytes(),
                b"30",
                b"rwq-session",
            ])
            .await;
        }
        id
    }

    /// What a redis-work-queue client's complete sends (it knows nothing of lease counts).
    pub async fn foreign_complete(&self, id: &str) {
        self.cmd::<i64>(&[b"DEL", self.key(&format!("item:{id}")).as_bytes()])
            .await;
        self.cmd::<i64>(&[
            b"LREM",
            self.key("processing").as_bytes(),
            b"0",
            id.as_bytes(),
        ])
        .await;
        self.cmd::<i64>(&[b"DEL", self.key(&format!("lease:{id}")).as_bytes()])
            .await;
    }

    pub fn key(&self, suffix: &str) -> String {
        format!("{}:{suffix}", self.prefix)
    }

    pub async fn cmd<T: redis::FromRedisValue>(&self, args: &[&[u8]]) -> T {
        let mut cmd = redis::cmd(std::str::from_utf8(args[0]).unwrap());
        for a in &args[1..] {
            cmd.arg(*a);
        }
        let mut raw = self.raw.clone();
        cmd.query_async(&mut raw)
            .await
            .unwrap_or_else(|e| panic!("{args:?}: {e}"))
    }

    pub async fn list(&self, suffix: &str) -> Vec<String> {
        self.cmd(&[b"LRANGE", self.key(suffix).as_bytes(), b"0", b"-1"])
            .await
    }

    pub async fn exists(&self, suffix: &str) -> bool {
        self.cmd::<i64>(&[b"EXISTS", self.key(suffix).as_bytes()])
            .await
            == 1
    }

    /// Every key under this test's prefix, sorted (the per-minute counters too: they exist only
    /// where a test turned them on).
    pub async fn keys(&self) -> Vec<String> {
        let mut keys = self.all_keys().await;
        keys.sort();
        keys
    }

    /// The name of leaseq's function library on the server (the first call loads it): the
    /// first `leaseq_` name in `FUNCTION LIST`'s reply (its functions follow it).
    pub async fn library(&self) -> String {
        fn name(v: &redis::Value) -> Option<String> {
            match v {
                redis::Value::BulkString(b) if b.starts_with(b"leaseq_") => {
                    String::from_utf8(b.clone()).ok()
                }
                redis::Value::Array(items) => items.iter().find_map(name),
                redis::Value::Map(pairs) => pairs.iter().find_map(|(_, v)| name(v)),
                _ => None,
            }
        }
        let libraries: redis::Value = self
            .cmd(&[b"FUNCTION", b"LIST", b"LIBRARYNAME", b"leaseq_*"])
            .await;
        name(&libraries).unwrap_or_else(|| panic!("no leaseq library in {libraries:?}"))
    }

    /// Every key under this test's prefix, found with SCAN on every server.
    pub async fn all_keys(&self) -> Vec<String> {
        let pattern = format!("{}*", self.prefix.replace('{', "\\{").replace('}', "\\}"));
        let mut found = Vec::new();
        for url in &self.urls {
            let mut conn = redis::Client::open(url.as_str())
                .unwrap()
                .get_multiplexed_async_connection()
                .await
                .unwrap();
            let mut cursor = 0u64;
            loop {
                let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(&pattern)
                    .arg("COUNT")
                    .arg(1000)
                    .query_async(&mut conn)
                    .await
                    .unwrap();
                found.extend(keys);
                cursor = next;
                if cursor == 0 {
                    break;
                }
            }
        }
        found.sort();
        found
    }
}

/// Fails unless `err` is `Error::InvalidArgument` naming `argument`; `context` (may be empty)
/// says which case failed.
#[allow(dead_code)]
pub fn assert_invalid(err: &leaseq::Error, argument: &str, context: impl std::fmt::Display) {
    assert!(
        matches!(err, leaseq::Error::InvalidArgument { argument: a, .. } if *a == argument),
        "{context}: expected InvalidArgument naming {argument:?}, got {err}"
    );
}

/// Runs an async test body against a single server and against the shared local Cluster.
#[macro_export]
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod single {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::Env::single(stringify!($name)).await).await;
                }
            )*
        }
        mod cluster {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::Env::cluster(stringify!($name)).await).await;
                }
            )*
        }
    };
}

/// A MONITOR connection to a test server: what clients sent, as the server saw it.
pub struct Monitor {
    reader: BufReader<TcpStream>,
    port: u16,
    marker: u32,
}

impl Monitor {
    /// Starts monitoring the server on `port`.
    pub fn start(port: u16) -> Monitor {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(b"MONITOR\r\n").unwrap();
        let mut reader = BufReader::new(stream);
        let mut ok = String::new();
        reader.read_line(&mut ok).unwrap();
        assert!(ok.starts_with("+OK"), "{ok}");
        Monitor {
            reader,
            port,
            marker: 0,
        }
    }

    /// The commands clients sent since the last call (script-internal ones excluded), by name.
    pub fn client_commands(&mut self) -> Vec<String> {
        self.client_lines()
            .iter()
            .map(|line| {
                let rest = &line[line.find("] \"").unwrap() + 3..];
                rest[..rest.find('"').unwrap()].to_lowercase()
            })
            .collect()
    }

    /// The lines MONITOR printed for the commands clients sent since the last call (script-
    /// internal ones excluded), each `<time> [<db> <address>] "<arg>" "<arg>" ...`.
    pub fn client_lines(&mut self) -> Vec<String> {
        self.marker += 1;
        let marker = format!("leaseq-marker-{}", self.marker);
        let mut other = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        other
            .write_all(format!("ECHO {marker}\r\n").as_bytes())
            .unwrap();
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).unwrap();
            if line.contains(&marker) {
                return lines;
            }
            if line.contains(" lua]") {
                continue;
            }
            let Some(start) = line.find("] \"") else {
                continue;
            };
            // A new connection's set-up (`CLIENT SETINFO`, which Valkey and Redis 7.2+
            // accept): not a round trip of the operation.
            if line[start + 3..].to_lowercase().starts_with("client\"") {
                continue;
            }
            lines.push(line.trim_end().to_owned());
        }
    }
}

/// The arguments of one MONITOR line (see [`Monitor::client_lines`]), unquoted.
pub fn monitor_args(line: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut chars = line[line.find("] ").expect("a MONITOR line") + 2..].chars();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut arg = String::new();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => arg.extend(chars.next()),
                c => arg.push(c),
            }
        }
        args.push(arg);
    }
    args
}
