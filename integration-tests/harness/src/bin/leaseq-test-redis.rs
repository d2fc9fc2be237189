//! Starts a throwaway redis-server (or, with `--cluster`, a 3-primary Redis Cluster), prints
//! `{"url": "...", "urls": ["..."]}` on one line, and stops everything when stdin closes.
//! For a single server, a line `restart` on stdin restarts it keeping its data (`SHUTDOWN SAVE`,
//! then a new server on the same port loads it) and answers `restarted`; a line `kill` kills it
//! and starts an empty one (a crash without persistence) and answers `killed`; a line `down`
//! kills it and leaves it down (`down`), a line `up` starts an empty one on its port (`up`).
//! Python, Node and C tests launch it instead of re-implementing server management.

use std::io::{BufRead, Write};

use leaseq_harness::{RedisCluster, RedisServer};

fn main() {
    let cluster = std::env::args().any(|a| a == "--cluster");
    let (mut server, _cluster, urls) = if cluster {
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
    // Serve commands until the parent closes our stdin (or dies), then drop the servers.
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let answer = match (line.trim(), server.as_mut()) {
            ("restart", Some(s)) => {
                s.restart_keeping_data();
                "restarted"
            }
            ("kill", Some(s)) => {
                s.restart();
                "killed"
            }
            ("down", Some(s)) => {
                s.kill();
                "down"
            }
            ("up", Some(s)) => {
                s.restart();
                "up"
            }
            _ => "unknown command",
        };
        println!("{answer}");
        let _ = std::io::stdout().flush();
    }
}
