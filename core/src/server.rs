//! What a server offers a queue: version, eviction policy, persistence, the ACL rights a prefix
//! needs and the prefix's cluster slot. Read-only; for `leaseq check` and dashboards.

use redis::Value;

use crate::client::Client;
use crate::error::Result;
use crate::keys::{hash_tag, QueueKeys};

/// The oldest Redis that runs the protocol: its code is a function library (`FUNCTION LOAD`,
/// `FCALL`, function flags: 7.0; Valkey 7.2 reports a compatible version).
pub const MIN_REDIS_VERSION: (u32, u32) = (7, 0);

/// The commands the protocol sends for a queue, each with an example of the keys it touches
/// (spec/PROTOCOL.md, 1.2). `P` stands for the prefix; `X` for an item id.
const NEEDED: &[&[&str]] = &[
    &["FCALL", "leaseq_lease", "2", "P:lease:", "P:item:"],
    &["FUNCTION", "LOAD", "#!lua name=leaseq\nreturn 1"],
    &["BLMOVE", "P:queue", "P:queue", "RIGHT", "RIGHT", "1"],
    &["LLEN", "P:queue"],
    &["LRANGE", "P:result:X", "0", "4"],
    &["EXISTS", "P:queue", "P:config"],
    &["SCAN", "0"],
    &["HSCAN", "P:lease_count", "0"],
    &["HGETALL", "P:config"],
    &["HSET", "P:config", "f", "v"],
    &["DEL", "P:config"],
    &["UNLINK", "P:deep_clean:X"],
    &["SET", "P:item:X", "v"],
    &["RENAME", "P:item:X", "P:data:X"],
    &["PEXPIRE", "P:lease:X", "1000"],
    &["ZADD", "P:dead", "1", "X"],
    &["ZRANGE", "P:delayed", "0", "1"],
    &["HINCRBY", "P:rate:1", "completed", "1"],
    &["SADD", "P:deep_clean:X", "X"],
    &["OBJECT", "IDLETIME", "P:item:X"],
];

/// What [`Client::server_report`] found. Each field is `None` when the server would not say
/// (managed services often refuse `CONFIG` and `ACL`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerReport {
    /// `redis_version` from `INFO server` (Valkey reports a compatible one).
    pub version: Option<String>,
    /// `maxmemory-policy`; anything but `noeviction` may drop queue keys.
    pub maxmemory_policy: Option<String>,
    /// Whether the append-only file is on.
    pub appendonly: Option<bool>,
    /// The RDB `save` schedule (empty: no snapshots).
    pub save: Option<String>,
    /// Whether the client talks to a Redis Cluster.
    pub cluster: bool,
    /// The hash slot of the queue's keys (the slot of `P:queue`; with a hash tag, of every key).
    pub slot: u16,
    /// The prefix's hash tag, if it has one.
    pub hash_tag: Option<String>,
    /// The user the connection is authenticated as (`ACL WHOAMI`).
    pub user: Option<String>,
    /// Commands the protocol needs that the ACL refuses for this prefix, each with Redis' reason.
    /// `None` when the rights could not be checked (Redis before 7.0, or `ACL` refused).
    pub denied: Option<Vec<(String, String)>>,
    /// The server's `run_id` (`INFO server`): which server process answered.
    pub run_id: Option<String>,
    /// The port the server listens on (`INFO server`'s `tcp_port`).
    pub port: Option<u16>,
    /// On a Redis Cluster node, its node id (`CLUSTER MYID`): the id `CLUSTER NODES` and
    /// `redis-cli --cluster` name it by.
    pub node_id: Option<String>,
    /// On a Redis Cluster node, how many primaries serve slots (`CLUSTER INFO`'s
    /// `cluster_size`).
    pub cluster_primaries: Option<u64>,
}

impl ServerReport {
    /// What tells the server apart from others: its cluster node id, else its `run_id`.
    pub fn server_id(&self) -> Option<&str> {
        self.node_id.as_deref().or(self.run_id.as_deref())
    }
}

impl ServerReport {
    /// The server's version as (major, minor), when it said and it parses.
    pub fn version_parts(&self) -> Option<(u32, u32)> {
        let mut parts = self.version.as_deref()?.split('.');
        Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
    }
}

impl Client {
    /// Reads what the server that holds queue `prefix` offers it: version, eviction policy,
    /// persistence, the prefix's slot and the ACL rights the protocol needs on its keys (with
    /// `ACL DRYRUN`, which runs nothing). Writes nothing. Validates `prefix` first (argument
    /// `prefix`); in a cluster, asks the primary that owns the prefix's slot.
    pub async fn server_report(&self, prefix: &str) -> Result<ServerReport> {
        let keys = QueueKeys::new(prefix, self.is_cluster())?;
        let conn = self.handle().shared()?;
        let at = keys.queue.clone();
        let ask = |cmd: redis::Cmd| {
            let at = at.clone();
            let mut conn = conn.clone();
            async move { conn.query_at_key(cmd, &at).await }
        };
        let info = ask(redis::cmd("INFO").arg("server").clone())
            .await
            .map_err(|e| self.handle().map_err(e, prefix))?;
        let info = strings(info);
        let field = |name| info.first().and_then(|text| info_field(text, name));
        let (version, run_id) = (field("redis_version"), field("run_id"));
        let port = field("tcp_port").and_then(|p| p.parse().ok());
        // A node of a cluster (through a cluster client, or one server's that connect found
        // to be one): which node, and how many primaries the cluster has.
        let (node_id, cluster_primaries) = if self.is_cluster() || self.one_node_of().is_some() {
            let id = ask(redis::cmd("CLUSTER").arg("MYID").clone()).await.ok();
            let size = ask(redis::cmd("CLUSTER").arg("INFO").clone()).await.ok();
            (
                id.and_then(|v| strings(v).into_iter().next()),
                size.and_then(|v| {
                    strings(v)
                        .first()
                        .and_then(|t| info_field(t, "cluster_size"))
                })
                .and_then(|n| n.parse().ok()),
            )
        } else {
            (None, None)
        };
        let config = |name: &'static str| redis::cmd("CONFIG").arg("GET").arg(name).clone();
        let policy = ask(config("maxmemory-policy")).await.ok().and_then(second);
        let appendonly = ask(config("appendonly"))
            .await
            .ok()
            .and_then(second)
            .map(|v| v == "yes");
        let save = ask(config("save")).await.ok().and_then(second);
        let user = ask(redis::cmd("ACL").arg("WHOAMI").clone())
            .await
            .ok()
            .and_then(|v| strings(v).into_iter().next());
        let denied = match &user {
            Some(user) => {
                let mut denied = Some(Vec::new());
                for needed in NEEDED {
                    let args: Vec<String> = needed
                        .iter()
                        .map(|a| a.replacen("P:", &format!("{prefix}:"), 1))
                        .collect();
                    let mut cmd = redis::cmd("ACL");
                    cmd.arg("DRYRUN").arg(user).arg(&args);
                    match ask(cmd).await {
                        Ok(Value::Okay) => {}
                        Ok(Value::SimpleString(s)) if s == "OK" => {}
                        Ok(other) => {
                            let reason = strings(other).join(" ");
                            if let Some(list) = denied.as_mut() {
                                list.push((args.join(" "), reason));
                            }
                        }
                        Err(_) => {
                            denied = None;
                            break;
                        }
                    }
                }
                denied
            }
            None => None,
        };
        Ok(ServerReport {
            version,
            maxmemory_policy: policy,
            appendonly,
            save,
            cluster: self.is_cluster(),
            slot: key_slot(keys.queue.as_bytes()),
            hash_tag: hash_tag(prefix).map(str::to_owned),
            user,
            denied,
            run_id,
            port,
            node_id,
            cluster_primaries,
        })
    }
}

/// The second string of a reply (`CONFIG GET name` answers `[name, value]`).
fn second(value: Value) -> Option<String> {
    strings(value).into_iter().nth(1)
}

fn strings(value: Value) -> Vec<String> {
    match value {
        Value::Array(items) => items.into_iter().flat_map(strings).collect(),
        Value::Map(pairs) => pairs
            .into_iter()
            .flat_map(|(k, v)| strings(k).into_iter().chain(strings(v)))
            .collect(),
        Value::BulkString(b) => vec![String::from_utf8_lossy(&b).into_owned()],
        Value::SimpleString(s) => vec![s],
        Value::VerbatimString { text, .. } => vec![text],
        Value::Okay => vec!["OK".to_owned()],
        _ => Vec::new(),
    }
}

fn info_field(info: &str, name: &str) -> Option<String> {
    info.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
        .map(|v| v.trim().to_owned())
}

/// Redis Cluster's hash slot of `key`: CRC16 (XMODEM) of its hash tag, or of the whole key, mod
/// 16384.
pub fn key_slot(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|&b| b == b'{').and_then(|open| {
        let rest = &key[open + 1..];
        let close = rest.iter().position(|&b| b == b'}')?;
        (close > 0).then(|| &rest[..close])
    });
    crc16(tagged.unwrap_or(key)) % 16384
}

fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in bytes {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_match_redis() {
        // Values from `CLUSTER KEYSLOT` on Redis 7.
        assert_eq!(key_slot(b"foo"), 12182);
        assert_eq!(key_slot(b"{user1000}.following"), key_slot(b"user1000"));
        assert_eq!(key_slot(b"123456789"), 12739);
        assert_eq!(key_slot(b"{}foo"), key_slot(b"{}foo"));
    }

    #[test]
    fn info_fields_are_read() {
        let info = "# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n";
        assert_eq!(info_field(info, "redis_version").as_deref(), Some("7.0.15"));
        assert_eq!(info_field(info, "redis_git"), None);
    }
}
