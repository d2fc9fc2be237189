//! Every URL form `Client::connect` documents: TLS and unix sockets (TCP is everywhere else).

use std::time::Duration;

use leaseq::{Client, ErrorCode, Item, Wait};
use leaseq_harness::{RedisCluster, RedisServer};

async fn round_trip(client: &Client) {
    round_trip_on(client, "transport").await
}

async fn round_trip_on(client: &Client, prefix: &str) {
    let q = client.queue(prefix).unwrap();
    q.add(&Item::with_id("t", b"over the wire".to_vec()).unwrap())
        .await
        .unwrap();
    let lease = q
        .lease(
            Duration::from_secs(5),
            Wait::Timeout(Duration::from_secs(1)),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(lease.data(), b"over the wire");
    assert!(q.complete(&lease).await.unwrap());
}

#[tokio::test]
async fn tls_and_unix_sockets() {
    let server = RedisServer::start_tls_and_unix();
    // The certificate is self-signed: verification must refuse it ...
    let err = Client::connect(&server.tls_url()).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Connection, "{err}");
    // ... unless the URL opts out of it.
    let tls = Client::connect(&format!("{}/#insecure", server.tls_url()))
        .await
        .unwrap();
    round_trip(&tls).await;
    let unix = Client::connect(&server.unix_url()).await.unwrap();
    round_trip(&unix).await;
}

/// TLS against a server whose certificate a test authority signed, and that asks clients for a
/// certificate from it (issue 14): `ca=`, `cert=` and `key=` in the `rediss://` URL. Without the
/// authority, without a client certificate, or with one from another authority, the connection
/// fails and says why; unreadable files are INVALID_ARGUMENT naming the URL.
#[tokio::test]
async fn tls_with_a_certificate_authority_and_client_certificates() {
    let (server, certs) = RedisServer::start_tls_client_auth();
    let file = |f: &str| certs.join(f).to_string_lossy().into_owned();
    let base = server.tls_url();
    let url = format!(
        "{base}?ca={}&cert={}&key={}",
        file("ca.pem"),
        file("client.pem"),
        file("client.key")
    );
    let tls = Client::connect(&url).await.unwrap();
    round_trip(&tls).await;
    // The system's roots do not know the test authority.
    let err = Client::connect(&base).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Connection, "{err}");
    assert!(
        format!("{err:#}").contains("UnknownIssuer"),
        "says the certificate's issuer is unknown: {err:#}"
    );
    // The server asks for a client certificate: none, or one it does not trust, is refused.
    let other = format!(
        "ca={}&cert={}&key={}",
        file("ca.pem"),
        file("other.pem"),
        file("other.key")
    );
    for (query, says) in [
        (format!("ca={}", file("ca.pem")), "CertificateRequired"),
        (other, "UnknownCA"),
    ] {
        let err = Client::connect(&format!("{base}?{query}"))
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Connection, "{query}: {err}");
        assert!(format!("{err:#}").contains(says), "{query}: {err:#}");
    }
    // Bad settings name the URL and are found before any connection.
    for (query, says) in [
        ("ca=/nonexistent/ca.pem".to_owned(), "ca file"),
        (
            format!("cert={}", file("client.pem")),
            "cert and key go together",
        ),
    ] {
        let err = Client::connect(&format!("{base}?{query}"))
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArgument, "{query}: {err}");
        assert!(err.to_string().contains(says), "{query}: {err}");
    }
    let plain = server.url().to_string();
    let err = Client::connect(&format!("{plain}?ca={}", file("ca.pem")))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("rediss://"), "{err}");
}

/// Connection errors say what happened (issue 14): a URL without a Redis scheme, a port where
/// another service listens, and `rediss://` on a plain Redis port.
#[tokio::test]
async fn connection_errors_say_what_happened() {
    for (url, hint) in [
        ("localhost:6379", "has no scheme"),
        ("http://x", "scheme `http`"),
    ] {
        let err = Client::connect(url).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArgument, "{err}");
        let text = err.to_string();
        assert!(
            text.contains("url") && text.contains(hint) && text.contains("redis://"),
            "{text}"
        );
    }

    // An HTTP server: answers anything with an HTTP status line.
    let http = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = http.local_addr().unwrap().port();
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut socket, _)) = http.accept().await {
            let mut buf = [0u8; 1024];
            let _ = socket.read(&mut buf).await;
            let _ = socket.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").await;
        }
    });
    let err = Client::connect(&format!("redis://127.0.0.1:{port}"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Connection, "{err}");
    assert!(
        err.to_string()
            .contains("did not answer in the Redis protocol: is the URL's port"),
        "{err}"
    );
    // Said as leaseq says it, not with the Redis library's error kind.
    assert!(!err.to_string().contains(" - Io"), "{err}");

    let server = RedisServer::start();
    let tls_on_plain = server.url().replace("redis://", "rediss://");
    let err = Client::connect(&tls_on_plain).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Connection, "{err}");
    assert!(err.to_string().contains("answers plain Redis"), "{err}");
}

/// TLS in Cluster mode (issue 14): the nodes speak TLS to clients and on their bus and ask for
/// client certificates. The first URL's `ca`, `cert` and `key` reach every node the client
/// finds, so queues in each node's slots work; without a client certificate the connection
/// fails and says why.
#[tokio::test]
async fn a_cluster_over_tls_with_client_certificates() {
    let (cluster, certs) = RedisCluster::start_tls();
    let file = |f: &str| certs.join(f).to_string_lossy().into_owned();
    let first = cluster.tls_urls()[0].clone();
    let url = format!(
        "{first}?ca={}&cert={}&key={}",
        file("ca.pem"),
        file("client.pem"),
        file("client.key")
    );
    let client = Client::connect_cluster([url]).await.unwrap();
    // Hash tags whose slots lie on each of the three primaries.
    let mut served = std::collections::HashSet::new();
    for tag in 0..30 {
        let prefix = format!("{{tls-{tag}}}");
        let owner = cluster
            .nodes()
            .iter()
            .position(|n| !n.command(&format!("GET {prefix}x")).starts_with("-MOVED"))
            .unwrap();
        if served.insert(owner) {
            round_trip_on(&client, &prefix).await;
        }
    }
    assert_eq!(served.len(), 3, "a queue on every primary");
    let err = Client::connect_cluster([format!("{first}?ca={}", file("ca.pem"))])
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Connection, "{err}");
    assert!(
        format!("{err:#}").contains("CertificateRequired"),
        "says a client certificate is required: {err:#}"
    );
}
