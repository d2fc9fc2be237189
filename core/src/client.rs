//! `Client`: a connection to one Redis server or one Redis Cluster, shared by its queues.
//! What the client and its queues share is a [`Handle`] (`conn/`); [`Client::queue`] is in
//! `queue.rs`, beside the `Queue` it makes, so that this module needs nothing of it.

use std::sync::Arc;

use redis::Value;

use crate::conn::{self, Conn, Connections, Handle};
use crate::error::Result;

/// A handle to Redis. Cheap to clone (clones share connections), `Send + Sync`.
///
/// Ordinary calls share one multiplexed connection, so concurrent calls from many tasks cost
/// one socket. Each blocking [`crate::Queue::lease`] wait uses a connection of its own.
#[derive(Clone)]
pub struct Client {
    handle: Handle,
    warnings: Arc<[String]>,
    address: Arc<str>,
    /// A client of one server that connect found to be a node of a Redis Cluster: how many
    /// primaries the cluster has (`CLUSTER INFO`'s `cluster_size`).
    cluster_primaries: Option<u64>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("cluster", &self.is_cluster())
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl Client {
    /// Connects to one Redis server: `redis://[user:pass@]host[:port][/db]`, `rediss://...` (TLS;
    /// append `#insecure` to skip certificate checks) or `redis+unix:///path/to.sock`.
    pub async fn connect(url: &str) -> Result<Client> {
        let connections = Connections::single(url).await?;
        let (warnings, primaries) = match connections.shared() {
            Some(conn) => server_warnings(conn).await,
            None => (Vec::new(), None),
        };
        let mut client = Client::from_parts(connections, warnings, without_secrets(url));
        client.cluster_primaries = primaries;
        Ok(client)
    }

    /// Connects to a Redis Cluster through one or more of its nodes' URLs. Queue prefixes must
    /// then carry a `{hash tag}`.
    pub async fn connect_cluster<I, S>(urls: I) -> Result<Client>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let urls: Vec<String> = urls.into_iter().map(|u| u.as_ref().to_owned()).collect();
        let connections = Connections::cluster(&urls).await?;
        let address: Vec<String> = urls.iter().map(|u| without_secrets(u)).collect();
        Ok(Client::from_parts(
            connections,
            Vec::new(),
            address.join(", "),
        ))
    }

    /// Checks a URL as [`Client::connect`] would before it opens a socket, without connecting:
    /// the scheme, the form and any TLS files. Errors are INVALID_ARGUMENT naming `url`.
    pub fn check_url(url: &str) -> Result<()> {
        conn::check_url(url)
    }

    /// Checks cluster node URLs as [`Client::connect_cluster`] would, without connecting
    /// (INVALID_ARGUMENT naming `urls`).
    pub fn check_cluster_urls(urls: &[String]) -> Result<()> {
        conn::check_cluster_urls(urls)
    }

    fn from_parts(connections: Connections, warnings: Vec<String>, address: String) -> Client {
        Client {
            handle: Handle::new(connections),
            warnings: warnings.into(),
            address: address.into(),
            cluster_primaries: None,
        }
    }

    /// For a client of one server that connect found to be a node of a Redis Cluster of more
    /// than one primary: how many. Such a client reaches only the slots that node serves.
    pub(crate) fn one_node_of(&self) -> Option<u64> {
        self.cluster_primaries.filter(|&n| n > 1)
    }

    /// Where the client connects, fit for a log: its URL (a cluster's node URLs, joined by
    /// `, `) without the user name, the password and anything after `?` or `#` (a Unix
    /// socket's `?pass=`, TLS settings).
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Whether this client talks to a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        self.handle.is_cluster()
    }

    /// Closes the client: blocking leases that are waiting return [`crate::Error::Closed`] at
    /// once, and so does every later call, on this handle and all its clones.
    pub fn close(&self) {
        self.handle.close();
    }

    /// Whether [`Client::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.handle.is_closed()
    }

    /// Things about the server's configuration that put items at risk or calls in doubt, found
    /// when connecting: a `maxmemory-policy` that may evict queue keys, or a server that is a
    /// node of a Redis Cluster of several primaries (connect with [`Client::connect_cluster`]).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The connections and closed flag this client, its clones and its queues share.
    pub(crate) fn handle(&self) -> &Handle {
        &self.handle
    }
}

/// Reads what it can of the server's eviction policy, and whether it is a node of a Redis
/// Cluster of more than one primary (which a client of one server serves only for the queues
/// whose slots that node holds). A server that refuses CONFIG (managed services often do) gets
/// no eviction warning rather than an error. One round trip; a second (`CLUSTER INFO`) on a
/// Cluster node, or when CONFIG was refused. Also returns the cluster's number of primaries.
async fn server_warnings(mut conn: Conn) -> (Vec<String>, Option<u64>) {
    let mut warnings = Vec::new();
    let mut cmd = redis::cmd("CONFIG");
    cmd.arg("GET")
        .arg("maxmemory-policy")
        .arg("cluster-enabled");
    // A refused CONFIG (managed services deny it) says nothing of a cluster: ask it then.
    let mut ask_cluster = true;
    if let Ok(Ok(value)) = tokio::time::timeout(WAIT, cmd.query_async::<Value>(&mut conn)).await {
        let text = value_strings(value);
        let setting = |name: &str| {
            text.chunks(2)
                .find(|pair| pair.len() == 2 && pair[0] == name)
                .map(|pair| pair[1].as_str())
        };
        if let Some(policy) = setting("maxmemory-policy") {
            if policy != "noeviction" {
                warnings.push(format!(
                    "maxmemory-policy is `{policy}`: Redis may evict queue keys and lose items; \
                     set it to `noeviction`"
                ));
            }
        }
        ask_cluster = setting("cluster-enabled") == Some("yes");
    }
    let primaries = if ask_cluster {
        cluster_size(&mut conn).await
    } else {
        None
    };
    if let Some(n) = primaries.filter(|&n| n > 1) {
        warnings.push(format!(
            "this server is a node of a Redis Cluster of {n} primaries: a client of one server \
             reaches only the queues whose slots this node serves (the others fail with \
             MOVED); connect as a Cluster client ({HOW_TO_CONNECT})"
        ));
    }
    (warnings, primaries)
}

/// A short wait for connect's questions: they only inform, and must not make connecting slow.
const WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// `CLUSTER INFO`'s `cluster_size` (its primaries that serve slots), or `None`: not a Cluster
/// node (an error reply), or no answer.
async fn cluster_size(conn: &mut Conn) -> Option<u64> {
    let info = tokio::time::timeout(
        WAIT,
        redis::cmd("CLUSTER")
            .arg("INFO")
            .query_async::<String>(conn),
    )
    .await;
    match info {
        Ok(Ok(info)) => info
            .lines()
            .find_map(|l| l.strip_prefix("cluster_size:"))
            .and_then(|n| n.trim().parse::<u64>().ok()),
        _ => None,
    }
}

/// How each language connects as a Cluster client, for messages.
pub(crate) const HOW_TO_CONNECT: &str =
    "`connect_cluster` in Rust and C, `Client.cluster` in Python and Node, `--cluster` in the CLI";

fn value_strings(value: Value) -> Vec<String> {
    match value {
        Value::Array(items) => items.into_iter().flat_map(value_strings).collect(),
        Value::Map(pairs) => pairs
            .into_iter()
            .flat_map(|(k, v)| value_strings(k).into_iter().chain(value_strings(v)))
            .collect(),
        Value::BulkString(bytes) => vec![String::from_utf8_lossy(&bytes).into_owned()],
        Value::SimpleString(s) => vec![s],
        _ => Vec::new(),
    }
}

/// `url` without its secrets: the user name and password (`user:pass@`), the query and the
/// fragment.
pub(crate) fn without_secrets(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let url = &url[..end];
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let rest = &url[scheme_end..];
    let host_end = rest.find('/').unwrap_or(rest.len());
    match rest[..host_end].rfind('@') {
        Some(at) => format!("{}{}", &url[..scheme_end], &rest[at + 1..]),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod address_tests {
    use super::without_secrets;

    #[test]
    fn an_address_keeps_no_secret() {
        let cases = [
            ("redis://127.0.0.1:6380/2", "redis://127.0.0.1:6380/2"),
            ("redis://:hunter2@host:6379", "redis://host:6379"),
            ("rediss://me:p%40ss@host/0#insecure", "rediss://host/0"),
            ("redis://me:a@b@host:1/3", "redis://host:1/3"),
            (
                "redis+unix:///tmp/r.sock?db=2&pass=hunter2",
                "redis+unix:///tmp/r.sock",
            ),
            ("redis://host?tls_ca=x", "redis://host"),
        ];
        for (url, address) in cases {
            assert_eq!(without_secrets(url), address, "{url}");
        }
    }
}
