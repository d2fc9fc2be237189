//! Finding the queues on a server or a cluster: an escaped `SCAN` of every primary, never `KEYS`.
//! A read API for tools (the `leaseq` command, the dashboard); workers never need it.

use std::collections::BTreeSet;

use redis::Value;

use crate::client::Client;
use crate::conn::{at_node, pipeline_at_node, primaries, Conn, Node};
use crate::error::{Error, Result};
use crate::keys::{escape_glob, QueueKeys};

/// The keys that mark a queue, each with the type the protocol gives it (spec/PROTOCOL.md, 2).
/// A drained queue has none of them but its per-minute counters, so `rate:<minute>` marks a
/// queue too while they last (62 minutes). A paused queue keeps its waiting items of priority 0
/// in `P:held` rather than `P:queue`, so `P:held` marks a queue as well. A partitioned queue's
/// base is marked by its layout, `B:partitions` (spec/PROTOCOL.md 5.25); its partitions are
/// queues of their own.
const MARKERS: [(&str, &str); 9] = [
    (":queue", "list"),
    (":processing", "list"),
    (":delayed", "zset"),
    (":leased", "zset"),
    (":dead", "zset"),
    (":prios", "zset"),
    (":config", "hash"),
    (":held", "list"),
    (":partitions", "string"),
];

/// Keys one `SCAN` call examines (a hint to Redis, bounded work per round trip).
const SCAN_COUNT: usize = 1000;

impl Client {
    /// The prefixes of the queues on this server (every primary of a cluster) whose prefix starts
    /// with `starting_with` (empty: every queue), sorted and without duplicates.
    ///
    /// A queue is found by its marker keys (`P:queue`, `P:processing`, `P:delayed`, `P:leased`,
    /// `P:dead`, `P:prios`, `P:config`, `P:held`, or a per-minute counter `P:rate:<minute>`) when the key
    /// has the type the protocol gives it and `P` is a valid prefix (so an item whose id ends in
    /// `:queue` is not taken for a queue). The base of a partitioned queue is found by its
    /// layout (`B:partitions`, a string), and each of its partitions as a queue of its own. A queue that has none of these keys (never used, or
    /// drained over an hour ago) leaves nothing to find.
    ///
    /// Uses `SCAN MATCH <starting_with, glob-escaped>* COUNT 1000` and one pipelined `TYPE` per
    /// page of candidates: two round trips per page, memory bounded by the number of queues.
    pub async fn queues(&self, starting_with: &str) -> Result<Vec<String>> {
        let mut conn = self.handle().shared()?;
        let pattern = format!("{}*", escape_glob(starting_with));
        let nodes = primaries(&mut conn, self.is_cluster()).await?;
        let mut found = BTreeSet::new();
        for node in &nodes {
            let mut cursor: u64 = 0;
            loop {
                let mut cmd = redis::cmd("SCAN");
                cmd.arg(cursor)
                    .arg("MATCH")
                    .arg(&pattern)
                    .arg("COUNT")
                    .arg(SCAN_COUNT);
                let reply = at_node(&mut conn, cmd, node).await?;
                let (next, keys): (u64, Vec<Vec<u8>>) =
                    redis::from_redis_value(reply).map_err(|e| Error::from_redis(e.into(), ""))?;
                self.keep_queues(&mut conn, node, &keys, &mut found).await?;
                cursor = next;
                if cursor == 0 {
                    break;
                }
            }
        }
        Ok(found.into_iter().collect())
    }

    /// Adds to `found` the prefixes of the marker keys among `keys` whose type is right.
    async fn keep_queues(
        &self,
        conn: &mut Conn,
        node: &Node,
        keys: &[Vec<u8>],
        found: &mut BTreeSet<String>,
    ) -> Result<()> {
        let candidates: Vec<(&str, String, &str)> = keys
            .iter()
            .filter_map(|key| std::str::from_utf8(key).ok())
            .filter_map(|key| marker(key).map(|(prefix, ty)| (key, prefix.to_owned(), ty)))
            .filter(|(_, prefix, _)| {
                !found.contains(prefix) && QueueKeys::new(prefix, self.is_cluster()).is_ok()
            })
            .collect();
        if candidates.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        for (key, _, _) in &candidates {
            pipe.cmd("TYPE").arg(*key);
        }
        // The page's keys live on the node scanned, in many slots: one pipeline to it.
        let types = pipeline_at_node(conn, pipe, candidates.len(), node).await?;
        for ((_, prefix, want), got) in candidates.into_iter().zip(types) {
            let got = match got {
                Value::SimpleString(s) => s,
                Value::Okay => "ok".to_owned(),
                _ => String::new(),
            };
            if got == want {
                found.insert(prefix);
            }
        }
        Ok(())
    }
}

/// The queue prefix a marker key belongs to, and the type the key must have.
fn marker(key: &str) -> Option<(&str, &'static str)> {
    for (suffix, ty) in MARKERS {
        if let Some(prefix) = key.strip_suffix(suffix) {
            return Some((prefix, ty));
        }
    }
    let (prefix, minute) = key.rsplit_once(":rate:")?;
    (!minute.is_empty() && minute.bytes().all(|b| b.is_ascii_digit())).then_some((prefix, "hash"))
}

#[cfg(test)]
mod tests {
    use super::marker;

    #[test]
    fn markers_name_their_queue() {
        assert_eq!(marker("jobs:queue"), Some(("jobs", "list")));
        assert_eq!(marker("{a}:b:dead"), Some(("{a}:b", "zset")));
        assert_eq!(marker("jobs:rate:29398765"), Some(("jobs", "hash")));
        assert_eq!(marker("jobs:rate:x"), None);
        assert_eq!(marker("jobs:rate:"), None);
        assert_eq!(marker("jobs:item:abc"), None);
        assert_eq!(marker("jobs:queues"), None);
        assert_eq!(marker("{jobs}:partitions"), Some(("{jobs}", "string")));
    }
}
