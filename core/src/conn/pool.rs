//! The connections of one client: one shared multiplexed connection for ordinary calls, and
//! dedicated connections for blocking waits so that a wait never stalls other calls on the same
//! client. Connecting, with its timeouts, is here too.

use std::sync::Mutex;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClient;
use redis::{AsyncConnectionConfig, RedisResult};

use super::tls::plain_behind_tls;
use super::url::{cluster_urls, invalid_url, single_client, tcp_settings};
use super::Conn;
use crate::error::{Cause, Error, Result};

/// How long an ordinary call may wait for its answer. Every script is bounded server-side, so
/// this only trips on a hung or unreachable server.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(10);
/// One attempt to open a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The whole of a client's first connection, retries included.
pub(super) const FIRST_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where new dedicated connections come from. Built once per client, so size does not matter.
#[allow(clippy::large_enum_variant)]
enum Target {
    Single(redis::Client),
    /// Built without a response timeout: a blocking wait may last as long as it is asked to.
    Cluster(ClusterClient),
}

/// The connections of one `Client`.
pub(crate) struct Connections {
    /// `None` once closed: dropping it lets the socket go at once, not when the last handle does.
    shared: Mutex<Option<Conn>>,
    target: Target,
    idle_waiters: Mutex<Vec<Conn>>,
}

/// The most idle dedicated connections kept for reuse; more are closed when returned.
const MAX_IDLE_WAITERS: usize = 16;

impl Connections {
    /// The database the connections select (`/db` of the URL; 0 in a Cluster).
    pub fn db(&self) -> i64 {
        match &self.target {
            Target::Single(client) => client.get_connection_info().redis_settings().db(),
            Target::Cluster(_) => 0,
        }
    }

    /// Connects to the one server of `url` (checked first; INVALID_ARGUMENT naming `url`).
    pub async fn single(url: &str) -> Result<Connections> {
        let client = single_client(url)?;
        // Few connection retries: a wrong address fails fast; after a restart, every later call
        // triggers a fresh reconnect anyway.
        let config = ConnectionManagerConfig::new()
            .set_number_of_retries(2)
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(CONNECT_TIMEOUT));
        let connect = first_connect(
            ConnectionManager::new_with_config(client.clone(), config),
            "url",
        );
        let manager = tokio::select! {
            manager = connect => manager?,
            plain = plain_behind_tls(&client) => return Err(plain),
        };
        Ok(Connections {
            shared: Mutex::new(Some(Conn::Managed(manager))),
            target: Target::Single(client),
            idle_waiters: Mutex::new(Vec::new()),
        })
    }

    /// Connects to the Cluster that `urls` name nodes of (INVALID_ARGUMENT naming `urls`).
    pub async fn cluster(urls: &[String]) -> Result<Connections> {
        let (plain_urls, certs) = cluster_urls(urls)?;
        let builder = || {
            let b = ClusterClient::builder(plain_urls.iter().map(String::as_str))
                .tcp_settings(tcp_settings());
            match &certs {
                Some(c) => b.certs(c.clone()),
                None => b,
            }
        };
        // No retries inside the cluster connection: it would send a script again after a lost
        // reply (the script may have run: a complete would then say false, an add_batch 0) and
        // wait out TRYAGAIN for a whole slot migration. A redirect or a "not now" reply comes
        // back as UNAVAILABLE (nothing ran; the connection refreshes its slot map), a lost
        // reply as CONNECTION, as on a single server (spec/PROTOCOL.md 9 and 11).
        let shared_client = builder()
            .response_timeout(RESPONSE_TIMEOUT)
            .connection_timeout(CONNECT_TIMEOUT)
            .retries(0)
            .build()
            .map_err(|e| invalid_url(e, "urls"))?;
        let waiter_client = builder()
            .connection_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| invalid_url(e, "urls"))?;
        let shared = first_connect(shared_client.get_async_connection(), "urls").await?;
        Ok(Connections {
            shared: Mutex::new(Some(Conn::Cluster(shared))),
            target: Target::Cluster(waiter_client),
            idle_waiters: Mutex::new(Vec::new()),
        })
    }

    /// A handle on the shared connection, or `None` once closed.
    pub fn shared(&self) -> Option<Conn> {
        self.shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Drops the shared connection and every idle dedicated one; calls in flight finish.
    pub fn close(&self) {
        self.shared.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.forget_waiters();
    }

    /// Whether these are connections to a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        matches!(self.target, Target::Cluster(_))
    }

    /// A connection that no other call uses, for one blocking wait. Give it back with
    /// [`Connections::return_waiter`] only if the wait ended normally.
    pub async fn take_waiter(&self) -> RedisResult<Conn> {
        if let Some(conn) = self
            .idle_waiters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
        {
            return Ok(conn);
        }
        match &self.target {
            Target::Single(client) => {
                let config = AsyncConnectionConfig::new()
                    .set_connection_timeout(Some(CONNECT_TIMEOUT))
                    .set_response_timeout(None);
                Ok(Conn::Plain(
                    client
                        .get_multiplexed_async_connection_with_config(&config)
                        .await?,
                ))
            }
            Target::Cluster(client) => Ok(Conn::Cluster(client.get_async_connection().await?)),
        }
    }

    /// Keeps `conn`, whose wait ended normally, for the next wait (up to [`MAX_IDLE_WAITERS`]).
    pub fn return_waiter(&self, conn: Conn) {
        let mut idle = self.idle_waiters.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE_WAITERS {
            idle.push(conn);
        }
    }

    /// Drops every idle dedicated connection (after a connection error, they may all be dead).
    pub fn forget_waiters(&self) {
        self.idle_waiters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}

/// The first connection gets [`FIRST_CONNECT_TIMEOUT`] in all: a server that accepts but never
/// answers would otherwise cost every retry's full response timeout.
async fn first_connect<T>(
    connect: impl std::future::Future<Output = RedisResult<T>>,
    argument: &'static str,
) -> Result<T> {
    match tokio::time::timeout(FIRST_CONNECT_TIMEOUT, connect).await {
        // TLS settings the client cannot use (a certificate it refuses, a key that does not
        // parse): the URL's fault, said before anything is sent.
        Ok(Err(e)) if e.kind() == redis::ErrorKind::InvalidClientConfig => Err(Error::invalid(
            argument,
            format!("its TLS settings cannot be used: {e}"),
        )),
        // A reply that is not RESP at all: something else listens there (an HTTP server...).
        Ok(Err(e))
            if e.kind() == redis::ErrorKind::Parse || e.to_string().contains("Parse error") =>
        {
            Err(Error::Connection(Cause::io(
                "the server did not answer in the Redis protocol",
                Some("is the URL's port another service's (an HTTP server, say)?".to_owned()),
            )))
        }
        // A cluster client pointed at a server that is not a Cluster node: the URLs' fault, and
        // nothing any retry would change.
        Ok(Err(e)) if e.to_string().contains("cluster support disabled") => Err(Error::invalid(
            argument,
            "the server is not a node of a Redis Cluster (its cluster support is disabled): \
             connect to it as one server, not as a cluster",
        )),
        Ok(conn) => conn.map_err(|e| Error::from_redis(e, "")),
        Err(_) => Err(Error::Timeout(Cause::io(
            "no answer from Redis while connecting",
            None,
        ))),
    }
}
