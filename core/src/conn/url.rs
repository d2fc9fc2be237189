//! The URLs a client accepts (spec/PROTOCOL.md 5.16), checked as far as they can be without a
//! socket: the scheme, the form and leaseq's TLS settings.

use redis::io::tcp::TcpSettings;
use redis::{IntoConnectionInfo, TlsCertificates};

use super::tls::{install_tls_provider, tls_files};
use crate::error::{Error, Result};

/// The URL schemes a client accepts.
const SCHEMES: [&str; 6] = ["redis", "rediss", "redis+unix", "unix", "valkey", "valkeys"];

/// Checks a URL as [`single_client`] would, without connecting. [`crate::Client::check_url`]
/// is this.
pub(crate) fn check_url(url: &str) -> Result<()> {
    single_client(url).map(drop)
}

/// Checks cluster node URLs as [`cluster_urls`] would, without connecting.
/// [`crate::Client::check_cluster_urls`] is this.
pub(crate) fn check_cluster_urls(urls: &[String]) -> Result<()> {
    cluster_urls(urls).map(drop)
}

/// The client for one server's `url`, checked as far as it can be without a socket: scheme,
/// TLS files, form (INVALID_ARGUMENT naming `url`).
pub(super) fn single_client(url: &str) -> Result<redis::Client> {
    install_tls_provider();
    check_scheme(url, "url")?;
    let (url, certs) = tls_files(url, "url")?;
    let info = url
        .as_str()
        .into_connection_info()
        .map_err(|e| invalid_url(e, "url"))?
        .set_tcp_settings(tcp_settings());
    match certs {
        Some(certs) => redis::Client::build_with_tls(info, certs),
        None => redis::Client::open(info),
    }
    .map_err(|e| invalid_url(e, "url"))
}

/// The TCP settings of every connection: `TCP_NODELAY`, which redis-rs leaves off. With Nagle's
/// algorithm on, a request written while an earlier one on the same connection is not yet
/// acknowledged waits for that acknowledgement, which the server may delay by up to 40 ms
/// (delayed ACK): calls of one shared connection, and a runner's two batches in flight, stalled
/// that long now and then.
pub(super) fn tcp_settings() -> TcpSettings {
    TcpSettings::default().set_nodelay(true)
}

/// Cluster node URLs checked as [`single_client`] checks one (INVALID_ARGUMENT naming `urls`):
/// the URLs without leaseq's TLS settings, and the certificates the first that has them names.
pub(super) fn cluster_urls(urls: &[String]) -> Result<(Vec<String>, Option<TlsCertificates>)> {
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

/// An INVALID_ARGUMENT naming `argument` for a URL redis-rs refuses.
pub(super) fn invalid_url(err: redis::RedisError, argument: &'static str) -> Error {
    Error::invalid(argument, format!("is not a valid Redis URL ({err})"))
}

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

#[cfg(test)]
mod tests {
    use super::single_client;

    #[test]
    fn connections_to_one_server_are_made_with_tcp_nodelay() {
        for url in ["redis://127.0.0.1:7000", "rediss://127.0.0.1:7000/2"] {
            let client = single_client(url).unwrap();
            assert!(
                client.get_connection_info().tcp_settings().nodelay(),
                "{url}"
            );
        }
    }
}
