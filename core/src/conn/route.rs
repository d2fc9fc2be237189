//! Sending a command to one node: the server of a plain client, or one primary of a Cluster,
//! for the commands that have no key to route them by (`SCAN`, `INFO`, `CONFIG`, `TYPE` of a
//! page of keys in many slots).

use std::collections::BTreeSet;

use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};
use redis::{Cmd, RedisResult, Value};

use super::Conn;
use crate::error::{Error, Result};

impl Conn {
    /// Sends `cmd` to the server that holds `key` (in Cluster: that slot's primary). SCAN needs
    /// this, since it has no key argument of its own.
    pub async fn query_at_key(&mut self, cmd: Cmd, key: &str) -> RedisResult<Value> {
        match self {
            Conn::Cluster(c) => {
                let route = Route::with_key(key.as_bytes(), SlotAddr::Master);
                c.route_command(
                    cmd,
                    RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(route)),
                )
                .await
            }
            other => cmd.query_async(other).await,
        }
    }
}

/// A primary of a cluster, as `(host, port)`; `None` stands for the one server of a plain client.
pub(crate) type Node = Option<(String, u16)>;

/// Every primary to scan: the one server, or each primary named by `CLUSTER SLOTS`.
pub(crate) async fn primaries(conn: &mut Conn, cluster: bool) -> Result<Vec<Node>> {
    if !cluster {
        return Ok(vec![None]);
    }
    let slots: Value = redis::cmd("CLUSTER")
        .arg("SLOTS")
        .query_async(conn)
        .await
        .map_err(|e| Error::from_redis(e, ""))?;
    let mut nodes = BTreeSet::new();
    if let Value::Array(ranges) = slots {
        for range in ranges {
            let Value::Array(parts) = range else { continue };
            let Some(Value::Array(primary)) = parts.get(2) else {
                continue;
            };
            let host = primary.first().and_then(|v| match v {
                Value::BulkString(b) => Some(String::from_utf8_lossy(b).into_owned()),
                Value::SimpleString(s) => Some(s.clone()),
                _ => None,
            });
            let port = match primary.get(1) {
                Some(Value::Int(p)) => u16::try_from(*p).ok(),
                _ => None,
            };
            if let (Some(host), Some(port)) = (host, port) {
                nodes.insert((host, port));
            }
        }
    }
    Ok(nodes.into_iter().map(Some).collect())
}

/// Sends `cmd` to one node: the server of a plain client, or the named cluster primary.
pub(crate) async fn at_node(conn: &mut Conn, cmd: Cmd, node: &Node) -> Result<Value> {
    let cluster = matches!(conn, Conn::Cluster(_));
    let reply = match (conn, node) {
        (Conn::Cluster(c), Some((host, port))) => {
            let route = SingleNodeRoutingInfo::ByAddress {
                host: host.clone(),
                port: *port,
            };
            c.route_command(cmd, RoutingInfo::SingleNode(route)).await
        }
        (conn, _) => cmd.query_async(conn).await,
    };
    reply.map_err(|e| Error::from_redis_on(e, "", cluster))
}

/// Sends the `count` commands of `pipe` to one node in one round trip (their keys may live in
/// many slots of that node), as [`at_node`] sends one.
pub(crate) async fn pipeline_at_node(
    conn: &mut Conn,
    pipe: redis::Pipeline,
    count: usize,
    node: &Node,
) -> Result<Vec<Value>> {
    let cluster = matches!(conn, Conn::Cluster(_));
    match (conn, node) {
        (Conn::Cluster(c), Some((host, port))) => {
            let route = SingleNodeRoutingInfo::ByAddress {
                host: host.clone(),
                port: *port,
            };
            c.route_pipeline(pipe, 0, count, route).await
        }
        (conn, _) => pipe.query_async(conn).await,
    }
    .map_err(|e| Error::from_redis_on(e, "", cluster))
}
