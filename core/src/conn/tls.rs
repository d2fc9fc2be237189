//! TLS: leaseq's settings in a `rediss://` URL (spec/PROTOCOL.md 5.16), the process-wide
//! crypto provider, and telling a port that answers plain RESP from a TLS one.

use redis::{ClientTlsConfig, TlsCertificates};

use super::pool::FIRST_CONNECT_TIMEOUT;
use crate::error::{Cause, Error, Result};

/// leaseq's TLS settings in a `rediss://` URL's query (spec/PROTOCOL.md 5.16): `ca=<path>`, a
/// PEM file of the certificate authority that signed the server's certificate (instead of the
/// system's roots), and `cert=<path>` with `key=<path>`, PEM files of a client certificate and
/// its key (for `tls-auth-clients yes`). Paths are percent-encoded. Returns the URL without
/// them, and the certificates read. A file that cannot be read, or half a client pair, is an
/// `INVALID_ARGUMENT` naming `argument`.
pub(super) fn tls_files(
    url: &str,
    argument: &'static str,
) -> Result<(String, Option<TlsCertificates>)> {
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
pub(super) async fn plain_behind_tls(client: &redis::Client) -> Error {
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
        Ok(Some(b'+' | b'-')) => Error::Connection(Cause::io(
            "TLS failed: the server answers plain Redis on that port",
            Some(format!(
                "{host}:{port}: use redis:// there, or the server's tls-port"
            )),
        )),
        _ => std::future::pending().await,
    }
}

/// rustls needs a process-wide crypto provider for `rediss://`; the first caller installs ring.
pub(super) fn install_tls_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Another part of the process may have installed one already; either is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
