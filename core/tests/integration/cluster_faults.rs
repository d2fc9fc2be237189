//! Cluster faults (issue 14, 2 and 5).
//! - A script whose reply is lost may have run, so the client never sends it again; the caller
//!   gets the connection error, as on a single server. A proxy in front of a one-node cluster
//!   (which announces the proxy's port, so cluster clients reach it only through the proxy)
//!   swallows the reply of one chosen function call and drops that connection.
//! - A runner keeps going while `redis-cli --cluster reshard` moves its queue's slot to another
//!   node: no item lost, none completed twice.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use std::collections::HashMap;
use std::process::Command;

use leaseq::worker::{Event, Job, Outcome, Worker};
use leaseq::{Client, ErrorCode, Item, Queue, Wait};
use leaseq_harness::{RedisCluster, RedisServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const TTL: Duration = Duration::from_secs(60);

/// Forwards connections to a server; once armed with a needle, the first connection that sends
/// it gets no reply to that request: the proxy closes it instead.
struct Proxy {
    port: u16,
    needle: Arc<Mutex<Option<Vec<u8>>>>,
}

impl Proxy {
    async fn start() -> (Proxy, TcpListener) {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let proxy = Proxy {
            port,
            needle: Arc::new(Mutex::new(None)),
        };
        (proxy, listener)
    }

    fn serve(&self, listener: TcpListener, server_port: u16) {
        let needle = self.needle.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let server = TcpStream::connect(("127.0.0.1", server_port))
                    .await
                    .unwrap();
                tokio::spawn(pump_pair(client, server, needle.clone()));
            }
        });
    }

    /// The next request containing `needle` is run by the server, and its reply swallowed.
    fn cut_reply_of(&self, needle: &str) {
        *self.needle.lock().unwrap() = Some(needle.as_bytes().to_vec());
    }
}

async fn pump_pair(client: TcpStream, server: TcpStream, needle: Arc<Mutex<Option<Vec<u8>>>>) {
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let armed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let arm = armed.clone();
    let up = tokio::spawn(async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match client_read.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            {
                let mut needle = needle.lock().unwrap();
                let hit = needle
                    .as_ref()
                    .is_some_and(|nd| buf[..n].windows(nd.len()).any(|w| w == nd.as_slice()));
                if hit {
                    needle.take();
                    arm.store(true, std::sync::atomic::Ordering::SeqCst);
                }
            }
            if server_write.write_all(&buf[..n]).await.is_err() {
                return;
            }
        }
    });
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match server_read.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if armed.load(std::sync::atomic::Ordering::SeqCst) {
            break; // the reply is lost: drop both sides
        }
        if client_write.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    up.abort();
}

/// A cluster of one node holding every slot, announcing `announce_port` as its address.
fn one_node_cluster(announce_port: u16) -> RedisServer {
    let port = announce_port.to_string();
    let server = RedisServer::start_with(&[
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        "nodes.conf",
        "--cluster-announce-ip",
        "127.0.0.1",
        "--cluster-announce-port",
        &port,
    ]);
    let reply = server.command("CLUSTER ADDSLOTSRANGE 0 16383");
    assert!(reply.contains("OK"), "{reply}");
    server.wait_cluster_ok(Instant::now() + Duration::from_secs(30));
    server
}

/// The next call that works (the client reconnects after the cut).
async fn settle(queue: &Queue) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while queue.queue_len().await.is_err() {
        assert!(Instant::now() < deadline, "the client never reconnected");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn unknown_outcome(code: ErrorCode) -> bool {
    matches!(code, ErrorCode::Connection | ErrorCode::Timeout)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_reply_is_never_answered_by_running_the_script_again() {
    let (proxy, listener) = Proxy::start().await;
    let server = one_node_cluster(proxy.port);
    proxy.serve(listener, server.port());
    let client = Client::connect_cluster([format!("redis://127.0.0.1:{}", proxy.port)])
        .await
        .unwrap();
    let queue = client.queue("{faults}").unwrap();

    // complete: the call that ran deleted the item, so it is the winner; sent again, it would
    // say false and nobody would ever hear true.
    queue.add(&Item::with_id("a", "x").unwrap()).await.unwrap();
    let lease = queue.lease(TTL, Wait::No).await.unwrap().unwrap();
    proxy.cut_reply_of("_complete\r\n");
    let err = queue.complete(&lease).await.unwrap_err();
    assert!(unknown_outcome(err.code()), "complete: {err}");
    settle(&queue).await;
    assert!(queue.get("a").await.unwrap().is_none(), "completed, once");

    // add_batch: sent again, it would find its own items and say 0 were added.
    proxy.cut_reply_of("_add\r\n");
    let items: Vec<Item> = ["b", "c", "d"]
        .iter()
        .map(|id| Item::with_id(*id, "x").unwrap())
        .collect();
    let err = queue.add_batch(&items).await.unwrap_err();
    assert!(unknown_outcome(err.code()), "add_batch: {err}");
    settle(&queue).await;
    assert_eq!(queue.queue_len().await.unwrap(), 3, "each added once");

    // lease: sent again, it would lease a second item while the first sits leased to nobody.
    proxy.cut_reply_of("_lease\r\n");
    let err = queue.lease(TTL, Wait::No).await.unwrap_err();
    assert!(unknown_outcome(err.code()), "lease: {err}");
    settle(&queue).await;
    let stats = queue.stats().await.unwrap();
    assert_eq!(
        (stats.waiting, stats.leased),
        (2, 1),
        "one lease taken (its holder is unknown until it expires), not two"
    );
    drop(server);
}

/// The slot ranges a node serves, from its `CLUSTER NODES` line (`myself`).
fn own_slots(node: &RedisServer) -> Vec<(u32, u32)> {
    let nodes = node.command("CLUSTER NODES");
    let line = nodes
        .lines()
        .find(|l| l.contains("myself"))
        .expect("a myself line");
    line.split_whitespace()
        .skip(8)
        .filter(|r| !r.starts_with('['))
        .map(|r| match r.split_once('-') {
            Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
            None => (r.parse().unwrap(), r.parse().unwrap()),
        })
        .collect()
}

fn node_id(node: &RedisServer) -> String {
    let nodes = node.command("CLUSTER NODES");
    let line = nodes.lines().find(|l| l.contains("myself")).unwrap();
    line.split_whitespace()
        .next()
        .unwrap()
        .trim_start_matches('$')
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_runner_rides_through_a_reshard_of_its_slot() {
    const N: usize = 4000;
    let cluster = RedisCluster::start();
    let nodes = cluster.nodes();
    let client = Client::connect_cluster(cluster.urls()).await.unwrap();
    let queue = client.queue("{reshard}").unwrap();
    for chunk in (0..N).collect::<Vec<_>>().chunks(1000) {
        let items: Vec<Item> = chunk
            .iter()
            .map(|i| Item::with_id(format!("j{i}"), "x").unwrap())
            .collect();
        queue.add_batch(&items).await.unwrap();
    }
    let slot: u32 = nodes[0]
        .command("CLUSTER KEYSLOT {reshard}")
        .trim()
        .trim_start_matches(':')
        .parse()
        .unwrap();
    let owns = |n: &RedisServer| own_slots(n).iter().any(|&(a, b)| (a..=b).contains(&slot));
    let src = nodes.iter().position(&owns).expect("an owner");
    let dst = (src + 1) % nodes.len();
    let moving: u32 = own_slots(&nodes[src]).iter().map(|(a, b)| b - a + 1).sum();

    // Completed events per id: a second one would be a second winning complete.
    let completed: Arc<Mutex<HashMap<String, u32>>> = Arc::default();
    let all_done = Arc::new(tokio::sync::Notify::new());
    let (seen, done) = (completed.clone(), all_done.clone());
    // About 400 jobs/s: the run lasts well beyond the reshard (a few seconds).
    let worker = Worker::new(queue.clone(), |_job: Job| async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Outcome::Complete(None)
    })
    .concurrency(8)
    .on_event(move |e| {
        if let Event::Completed { id, .. } = e {
            let mut seen = seen.lock().unwrap();
            *seen.entry(id.clone()).or_default() += 1;
            if seen.len() == N {
                done.notify_one();
            }
        }
    });
    let run = tokio::spawn(worker.run_until(async move { all_done.notified().await }));
    let deadline = Instant::now() + Duration::from_secs(60);
    while completed.lock().unwrap().len() < N / 10 {
        assert!(Instant::now() < deadline, "the runner did not start");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The reshard: every slot of the queue's node, its own among them, to another node.
    let (from, to) = (node_id(&nodes[src]), node_id(&nodes[dst]));
    let addr = format!("127.0.0.1:{}", nodes[src].port());
    let out = tokio::task::spawn_blocking(move || {
        Command::new("redis-cli")
            .args(["--cluster", "reshard", &addr, "--cluster-from", &from])
            .args(["--cluster-to", &to, "--cluster-slots", &moving.to_string()])
            .args(["--cluster-yes", "--cluster-pipeline", "100"])
            .output()
            .expect("redis-cli")
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "redis-cli --cluster reshard failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(owns(&nodes[dst]), "the queue's slot moved");
    let before = completed.lock().unwrap().len();
    assert!(
        before < N,
        "the reshard ran while items were still waiting ({before} done)"
    );
    let report = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("every item completed after the reshard")
        .unwrap()
        .unwrap();
    let completed = completed.lock().unwrap().clone();
    assert_eq!(completed.len(), N, "no item lost");
    let twice: Vec<_> = completed.iter().filter(|(_, &n)| n > 1).collect();
    assert!(twice.is_empty(), "completed twice: {twice:?}");
    assert_eq!(report.completed, N as u64);
    let stats = queue.stats().await.unwrap();
    assert_eq!((stats.waiting, stats.leased), (0, 0));
}
