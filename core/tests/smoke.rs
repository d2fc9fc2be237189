use std::time::Duration;
use leaseq::{Client, Item, Wait};
use leaseq_harness::RedisServer;

#[tokio::test]
async fn smoke() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.queue("smoke").unwrap();
    let item = Item::with_id("a", b"x\0y".to_vec()).unwrap();
    assert!(q.add(&item).await.unwrap());
    assert!(!q.add(&item).await.unwrap());
    let lease = q.lease(Duration::from_secs(5), Wait::No).await.unwrap().unwrap();
    assert_eq!(lease.id(), "a");
    assert_eq!(lease.data(), b"x\0y");
    assert_eq!(lease.count(), 1);
    assert!(q.renew(&lease, Duration::from_secs(5)).await.unwrap());
    assert!(q.complete(&lease).await.unwrap());
    assert!(!q.complete(&lease).await.unwrap());
    assert_eq!(q.add_batch(&[Item::new(b"1".to_vec()), Item::new(b"2".to_vec())]).await.unwrap(), 2);
    let r = q.light_clean().await.unwrap();
    assert_eq!(r.requeued, 0);
    let r = q.deep_clean().await.unwrap();
    assert_eq!(r.requeued, 0);
    let l = q.lease(Duration::from_secs(5), Wait::Timeout(Duration::from_millis(100))).await.unwrap().unwrap();
    let (done, next) = q.complete_and_lease(&l, Duration::from_secs(5)).await.unwrap();
    assert!(done);
    let next = next.unwrap();
    assert!(q.complete(&next).await.unwrap());
    assert!(q.lease(Duration::from_secs(5), Wait::Timeout(Duration::from_millis(200))).await.unwrap().is_none());
    let keys = server.command("DBSIZE");
    assert_eq!(keys.trim(), ":0");
}
