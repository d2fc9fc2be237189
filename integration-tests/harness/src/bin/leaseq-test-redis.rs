//! Starts a throwaway redis-server (or, with `--cluster`, a 3-primary Redis Cluster), prints
//! `{"url": "...", "urls": ["..."]}` on one line, and stops everything when stdin closes.
//! Python, Node and C tests launch it instead of re-implementing server management.

use std::io::Read;

use leaseq_harness::{RedisCluster, RedisServer};

fn main() {
    let cluster = std::env::args().any(|a| a == "--cluster");
    let (_server, _cluster, urls) = if cluster {
        let c = RedisCluster::start();
        let urls = c.urls();
        (None, Some(c), urls)
    } else {
        let s = RedisServer::start();
        let urls = vec![s.url()];
        (Some(s), None, urls)
    };
    let quoted: Vec<String> = urls.iter().map(|u| format!("\"{u}\"")).collect();
    println!(
        "{{\"url\": \"{}\", \"urls\": [{}]}}",
        urls[0],
        quoted.join(", ")
    );
    // Wait for the parent to close our stdin (or die), then drop the servers.
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
}
