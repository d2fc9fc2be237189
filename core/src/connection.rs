//! Connections to Redis: one shared multiplexed connection for ordinary calls, and dedicated
//! connections for blocking waits so that a wait never stalls other calls on the same client.

use std::sync::Mutex;
use std::time::Duration;

use redis::aio::{
    ConnectionLike, ConnectionManager, ConnectionManagerConfig, MultiplexedConnection,
};
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};
use redis::{
    AsyncConnectionConfig, ClientTlsConfig, Cmd, RedisFuture, RedisResult, TlsCertificates, Value,
};

use crate::error::{Error, Result};

/// How long an ordinary call may wait for its answer. Every script is bounded server-side, so
/// this only trips on a hung or unreachable server.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(10);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const FIRST_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection of any of the kinds leaseq uses; all speak `ConnectionLike`.
#[derive(Clone)]
pub(crate) enum Conn {
    /// Reconnects by itself after Redis restarts.
    Managed(ConnectionManager),
    /// A dedicated single-server connection for blocking waits.
    Plain(MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Managed(c) => c.req_packed_command(cmd),
            Conn::Plain(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Managed(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Plain(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Managed(c) => c.get_db(),
            Conn::Plain(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

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

    pub async fn cluster(urls: &[String]) -> Result<Connections> {
        let (plain_urls, certs) = cluster_urls(urls)?;
        let builder = || {
            let b = ClusterClient::builder(plain_urls.iter().map(String::as_str));
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

/// The client for one server's `url`, checked as far as it can be without a socket: scheme,
/// TLS files, form (INVALID_ARGUMENT naming `url`). [`crate::Client::check_url`] is this.
pub(crate) fn single_client(url: &str) -> Result<redis::Client> {
    install_tls_provider();
    check_scheme(url, "url")?;
    let (url, certs) = tls_files(url, "url")?;
    match certs {
        Some(certs) => redis::Client::build_with_tls(url.as_str(), certs),
        None => redis::Client::open(url.as_str()),
    }
    .map_err(|e| invalid_url(e, "url"))
}

/// Cluster node URLs checked as [`single_client`] checks one (INVALID_ARGUMENT naming `urls`):
/// the URLs without leaseq's TLS settings, and the certificates the first that has them names.
/// [`crate::Client::check_cluster_urls`] is this.
pub(crate) fn cluster_urls(urls: &[String]) -> Result<(Vec<String>, Option<TlsCertificates>)> {
    install_tls_provider();
    if urls.is_empty() {
        return Err(Error::invalid("urls", "name at least one cluster node"));
    }
    let mut plain_urls = Vec::new();
    let mut certs = None;
    for url in urls {
        check_scheme(url, "urls")?;
        let (url, files) = tls_files(url, "urls")?;
        redis::Client::open(url.as_str()).map_err(|e| invalid_url(e, "urls"))?;
        certs = certs.or(files);
        plain_urls.push(url);
    }
    Ok((plain_urls, certs))
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
            Err(Error::Connection(
                redis::RedisError::from((
                    redis::ErrorKind::Io,
                    "the server did not answer in the Redis protocol",
                    "is the URL's port another service's (an HTTP server, say)?".to_owned(),
                ))
                .into(),
            ))
        }
        Ok(conn) => conn.map_err(|e| Error::from_redis(e, "")),
        Err(_) => Err(Error::Timeout(
            redis::RedisError::from((
                redis::ErrorKind::Io,
                "no answer from Redis while connecting",
            ))
            .into(),
        )),
    }
}

fn invalid_url(err: redis::RedisError, argument: &'static str) -> Error {
    Error::invalid(argument, format!("is not a valid Redis URL ({err})"))
}

/// The URL schemes a client accepts.
const SCHEMES: [&str; 6] = ["redis", "rediss", "redis+unix", "unix", "valkey", "valkeys"];

/// Refuses a URL without a Redis scheme, saying what to write instead.
fn check_scheme(url: &str, argument: &'static str) -> Result<()> {
    match url.split_once("://") {
        Some((scheme, _)) if SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()) => Ok(()),
        Some((scheme, _)) => Err(Error::invalid(
            argument,
            format!(
                "scheme `{scheme}` is not Redis's: write redis://host:port, rediss://host:port \
                 (TLS) or redis+unix:///path/to.sock"
            ),
        )),
        None => Err(Error::invalid(
            argument,
            format!(
                "`{url}` has no scheme: write redis://{url} (rediss:// for TLS, \
                 redis+unix:///path/to.sock for a socket)"
            ),
        )),
    }
}

/// leaseq's TLS settings in a `rediss://` URL's query (spec/PROTOCOL.md 5.16): `ca=<path>`, a
/// PEM file of the certificate authority that signed the server's certificate (instead of the
/// system's roots), and `cert=<path>` with `key=<path>`, PEM files of a client certificate and
/// its key (for `tls-auth-clients yes`). Paths are percent-encoded. Returns the URL without
/// them, and the certificates read. A file that cannot be read, or half a client pair, is an
/// `INVALID_ARGUMENT` naming `argument`.
fn tls_files(url: &str, argument: &'static str) -> Result<(String, Option<TlsCertificates>)> {
    let (main, fragment) = match url.split_once('#') {
        Some((m, f)) => (m, Some(f)),
        None => (url, None),
    };
    let Some((base, query)) = main.split_once('?') else {
        return Ok((url.to_owned(), None));
    };
    let (mut ca, mut cert, mut key, mut rest) = (None, None, None, Vec::new());
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("ca", v)) => ca = Some(v),
            Some(("cert", v)) => cert = Some(v),
            Some(("key", v)) => key = Some(v),
            _ => rest.push(pair),
        }
    }
    if ca.is_none() && cert.is_none() && key.is_none() {
        return Ok((url.to_owned(), None));
    }
    if !base.to_ascii_lowercase().starts_with("rediss://") {
        return Err(Error::invalid(
            argument,
            "ca, cert and key are TLS settings: they need a rediss:// URL",
        ));
    }
    if cert.is_some() != key.is_some() {
        return Err(Error::invalid(
            argument,
            "cert and key go together: a client certificate and its private key",
        ));
    }
    let read = |name: &str, value: &str| -> Result<Vec<u8>> {
        let path = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
        std::fs::read(path.as_ref()).map_err(|e| {
            Error::invalid(
                argument,
                format!("{name} file `{path}` could not be read: {e}"),
            )
        })
    };
    let certs = TlsCertificates {
        client_tls: match (cert, key) {
            (Some(c), Some(k)) => Some(ClientTlsConfig {
                client_cert: read("cert", c)?,
                client_key: read("key", k)?,
            }),
            _ => None,
        },
        root_cert: ca.map(|c| read("ca", c)).transpose()?,
    };
    let mut plain = base.to_owned();
    if !rest.is_empty() {
        plain = format!("{plain}?{}", rest.join("&"));
    }
    if let Some(f) = fragment {
        plain = format!("{plain}#{f}");
    }
    Ok((plain, Some(certs)))
}

/// For a `rediss://` URL: resolves (with the error to report) only if the port answers plain
/// RESP to an inline `PING`, so that a TLS handshake there would wait for nothing until the
/// timeout. A TLS port closes or stays silent: then this never resolves.
async fn plain_behind_tls(client: &redis::Client) -> Error {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let redis::ConnectionAddr::TcpTls { host, port, .. } = client.get_connection_info().addr()
    else {
        return std::future::pending().await;
    };
    let answer = async {
        let mut socket = tokio::net::TcpStream::connect((host.as_str(), *port))
            .await
            .ok()?;
        socket.write_all(b"PING\r\n").await.ok()?;
        let mut buf = [0u8; 1];
        socket.read_exact(&mut buf).await.ok()?;
        Some(buf[0])
    };
    match tokio::time::timeout(FIRST_CONNECT_TIMEOUT, answer).await {
        Ok(Some(b'+' | b'-')) => Error::Connection(
            redis::RedisError::from((
                redis::ErrorKind::Io,
                "TLS failed: the server answers plain Redis on that port",
                format!("{host}:{port}: use redis:// there, or the server's tls-port"),
            ))
            .into(),
        ),
        _ => std::future::pending().await,
    }
}

/// rustls needs a process-wide crypto provider for `rediss://`; the first caller installs ring.
fn install_tls_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Another part of the process may have installed one already; either is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
