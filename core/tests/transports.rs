//! Every URL form `Client::connect` documents: TLS and unix sockets (TCP is everywhere else).

use std::time::Duration;

use leaseq::{Client, ErrorCode, Item, Wait};
use leaseq_harness::RedisServer;

async fn round_trip(client: &Client) {
    let q = client.queue("transport").unwrap();
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
