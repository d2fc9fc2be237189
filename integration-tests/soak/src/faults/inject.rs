//! The faults, each done to real servers as an operator or a crash would, through plain
//! commands. Each returns when the fault is over: the server is back, the slot has moved, the
//! storm has passed.

use std::time::{Duration, Instant};

use leaseq_harness::{RedisCluster, RedisServer};

/// A sync connection to one server, for the commands the harness's one-line form cannot send.
fn conn(port: u16) -> redis::Connection {
    redis::Client::open(format!("redis://127.0.0.1:{port}"))
        .and_then(|c| c.get_connection())
        .unwrap_or_else(|e| panic!("connect to 127.0.0.1:{port}: {e}"))
}

/// Writes `mb` megabytes of filler keys (1 KB strings outside any queue), so that a restart has
/// a dataset to load.
pub fn fill(server: &RedisServer, mb: u64) {
    let mut c = conn(server.port());
    let value = vec![b'x'; 1000];
    let keys = mb * 1000;
    let mut n = 0;
    while n < keys {
        let mut pipe = redis::pipe();
        for i in n..(n + 1000).min(keys) {
            pipe.cmd("SET")
                .arg(format!("filler:{i}"))
                .arg(&value)
                .ignore();
        }
        pipe.query::<()>(&mut c).expect("filler");
        n += 1000;
    }
}

/// Restarts the server keeping its data (`SHUTDOWN`, then a new server on the same port loads
/// the AOF, answering LOADING meanwhile); returns once it answers PING, with how long it loaded
/// (from its log).
pub fn restart_with_loading(server: &mut RedisServer) -> String {
    server.restart_keeping_data();
    let log = server.log();
    let loaded = log
        .lines()
        .rev()
        .find(|l| l.contains("DB loaded from") || l.contains("Done loading"))
        .unwrap_or("")
        .to_owned();
    loaded
        .split_once("DB loaded from")
        .map(|(_, rest)| format!("loaded from{rest}"))
        .unwrap_or(loaded)
}

/// Kills every normal client's connection on each of `ports`, every 100 ms for `length`.
pub fn client_kill_storm(ports: &[u16], length: Duration) -> u64 {
    let end = Instant::now() + length;
    let mut killed = 0u64;
    while Instant::now() < end {
        for &port in ports {
            let n: u64 = redis::cmd("CLIENT")
                .arg(&["KILL", "TYPE", "normal", "SKIPME", "yes"])
                .query(&mut conn(port))
                .unwrap_or(0);
            killed += n;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    killed
}

/// Lowers `maxmemory` below what the server uses, so every write that grows memory is refused
/// (noeviction), for `length`; then lifts it.
pub fn maxmemory_squeeze(server: &RedisServer, length: Duration) -> String {
    let mut c = conn(server.port());
    let info: String = redis::cmd("INFO").arg("memory").query(&mut c).unwrap();
    let used: u64 = info
        .lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .and_then(|v| v.trim().parse().ok())
        .expect("used_memory");
    let limit = used.saturating_sub(1 << 20);
    let _: () = redis::cmd("CONFIG")
        .arg(&["SET", "maxmemory", &limit.to_string()])
        .query(&mut c)
        .unwrap();
    std::thread::sleep(length);
    let _: () = redis::cmd("CONFIG")
        .arg(&["SET", "maxmemory", "0"])
        .query(&mut c)
        .unwrap();
    format!("maxmemory {} MB", limit >> 20)
}

/// One line of `CLUSTER NODES`.
struct Node {
    id: String,
    port: u16,
    primary: bool,
    slots: Vec<(u32, u32)>,
}

fn cluster_nodes(server: &RedisServer) -> Vec<Node> {
    server
        .command("CLUSTER NODES")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let port = f[1]
                .split('@')
                .next()
                .and_then(|a| a.rsplit(':').next())
                .and_then(|p| p.parse().ok())
                .unwrap_or(0);
            let slots = f
                .iter()
                .skip(8)
                .filter(|s| !s.starts_with('['))
                .map(|s| match s.split_once('-') {
                    Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
                    None => (s.parse().unwrap(), s.parse().unwrap()),
                })
                .collect();
            Node {
                id: f[0].to_owned(),
                port,
                primary: f[2].contains("master") && !f[2].contains("fail"),
                slots,
            }
        })
        .collect()
}

/// The slot of `key`.
pub fn slot(cluster: &RedisCluster, key: &str) -> u32 {
    cluster.nodes()[0]
        .command(&format!("CLUSTER KEYSLOT {key}"))
        .trim()
        .trim_start_matches(':')
        .parse()
        .expect("CLUSTER KEYSLOT")
}

/// The live nodes (those that answer), by index.
fn alive(cluster: &RedisCluster) -> Vec<usize> {
    (0..cluster.nodes().len())
        .filter(|&i| std::net::TcpStream::connect(("127.0.0.1", cluster.nodes()[i].port())).is_ok())
        .collect()
}

/// The primary that serves `slot`, as its index among the cluster's nodes, and its node id.
fn owner(cluster: &RedisCluster, slot: u32) -> (usize, String) {
    let first = alive(cluster)[0];
    let node = cluster_nodes(&cluster.nodes()[first])
        .into_iter()
        .find(|n| n.primary && n.slots.iter().any(|&(a, b)| (a..=b).contains(&slot)))
        .expect("an owner of the slot");
    let at = cluster
        .nodes()
        .iter()
        .position(|s| s.port() == node.port)
        .expect("the owner among the nodes");
    (at, node.id)
}

fn wait_cluster_ok(cluster: &RedisCluster) {
    let deadline = Instant::now() + Duration::from_secs(60);
    for i in alive(cluster) {
        cluster.nodes()[i].wait_cluster_ok(deadline);
    }
}

/// Kills (SIGKILL) the primary that serves `slot`, mid-run, and returns once its replica has
/// taken over and every node says the cluster is ok.
///
/// Redis replicates asynchronously, so a primary killed at an arbitrary moment can take
/// acknowledged writes with it (spec 1.1: leaseq sends no `WAIT`), which no client can make up
/// for. The kill therefore comes after `CLIENT PAUSE WRITE` has let the replica catch up:
/// writes in flight are held, not answered, and die with the connection, so the clients meet
/// exactly the unknown outcomes a crash gives them.
pub fn failover(cluster: &mut RedisCluster, slot: u32) -> String {
    let (at, id) = owner(cluster, slot);
    let port = cluster.nodes()[at].port();
    let mut c = conn(port);
    let _: () = redis::cmd("CLIENT")
        .arg(&["PAUSE", "5000", "WRITE"])
        .query(&mut c)
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(4);
    loop {
        let info: String = redis::cmd("INFO").arg("replication").query(&mut c).unwrap();
        let primary: u64 = info
            .lines()
            .find_map(|l| l.strip_prefix("master_repl_offset:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        let caught_up = info
            .lines()
            .filter(|l| l.starts_with("slave"))
            .filter_map(|l| l.split("offset=").nth(1))
            .filter_map(|v| v.split(',').next()?.parse::<u64>().ok())
            .any(|o| o == primary);
        if caught_up || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    cluster.nodes_mut()[at].kill();
    let killed_at = Instant::now();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (new_at, new_id) = {
            let first = alive(cluster)[0];
            let nodes = cluster_nodes(&cluster.nodes()[first]);
            let found = nodes
                .iter()
                .find(|n| n.primary && n.slots.iter().any(|&(a, b)| (a..=b).contains(&slot)))
                .map(|n| (n.port, n.id.clone()));
            (found.as_ref().map(|f| f.0), found.map(|f| f.1))
        };
        if new_id.as_deref().is_some_and(|n| n != id) && new_at.is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "no replica took over from {id}");
        std::thread::sleep(Duration::from_millis(50));
    }
    wait_cluster_ok(cluster);
    let took = killed_at.elapsed();
    // The old primary comes back (its nodes.conf kept) as a replica of the new one.
    cluster.nodes_mut()[at].restart();
    wait_cluster_ok(cluster);
    format!(
        "primary :{port} killed, replica took over in {:.1}s",
        took.as_secs_f64()
    )
}

/// Migrates `slot` from its primary to another primary as `redis-cli --cluster reshard` would
/// (IMPORTING, MIGRATING, MIGRATE in batches, SETSLOT NODE), in batches of 20 keys with a pause
/// between them so that the run sees the slot half moved for a while.
pub fn migrate_slot(cluster: &RedisCluster, slot: u32) -> String {
    let (src, src_id) = owner(cluster, slot);
    let first = alive(cluster)[0];
    let nodes = cluster_nodes(&cluster.nodes()[first]);
    let dst = nodes
        .iter()
        .find(|n| n.primary && n.id != src_id && !n.slots.is_empty())
        .expect("another primary");
    let (dst_port, dst_id) = (dst.port, dst.id.clone());
    let src_port = cluster.nodes()[src].port();
    let (mut s, mut d) = (conn(src_port), conn(dst_port));
    let setslot = |c: &mut redis::Connection, how: &str, id: &str| {
        let _: () = redis::cmd("CLUSTER")
            .arg("SETSLOT")
            .arg(slot)
            .arg(how)
            .arg(id)
            .query(c)
            .unwrap_or_else(|e| panic!("CLUSTER SETSLOT {slot} {how}: {e}"));
    };
    setslot(&mut d, "IMPORTING", &src_id);
    setslot(&mut s, "MIGRATING", &dst_id);
    let mut moved = 0usize;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let keys: Vec<String> = redis::cmd("CLUSTER")
            .arg(&["GETKEYSINSLOT", &slot.to_string(), "20"])
            .query(&mut s)
            .unwrap();
        if keys.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "the slot never emptied");
        let _: redis::Value = redis::cmd("MIGRATE")
            .arg(&["127.0.0.1", &dst_port.to_string(), "", "0", "5000", "KEYS"])
            .arg(&keys)
            .query(&mut s)
            .unwrap_or_else(|e| panic!("MIGRATE: {e}"));
        moved += keys.len();
        std::thread::sleep(Duration::from_millis(50));
    }
    // The new owner first, then the old, then every other primary (as redis-cli does).
    setslot(&mut d, "NODE", &dst_id);
    setslot(&mut s, "NODE", &dst_id);
    for n in nodes
        .iter()
        .filter(|n| n.primary && n.port != src_port && n.port != dst_port)
    {
        setslot(&mut conn(n.port), "NODE", &dst_id);
    }
    wait_cluster_ok(cluster);
    format!("slot {slot} :{src_port} -> :{dst_port}, {moved} keys")
}

/// Every node's port.
pub fn ports(cluster: &RedisCluster) -> Vec<u16> {
    cluster.nodes().iter().map(RedisServer::port).collect()
}
