use std::time::Duration;

use leaseq::{Client, Item, Wait};

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{emails}")?;

    // Producers: one round trip per add, or per batch.
    queue
        .add(&Item::from_json(
            &serde_json::json!({"to": "a@example.com"}),
        )?)
        .await?;
    let batch: Vec<Item> = (0..3).map(|i| Item::new(format!("job {i}"))).collect();
    assert_eq!(queue.add_batch(&batch).await?, 3);

    // A worker: lease for 30 s (waiting up to 1 s for work), renew while busy, complete when
    // done. complete_and_lease finishes one item and takes the next in one round trip.
    let ttl = Duration::from_secs(30);
    let mut next = queue
        .lease(ttl, Wait::Timeout(Duration::from_secs(1)))
        .await?;
    while let Some(lease) = next {
        println!(
            "{} (attempt {}): {:?}",
            lease.id(),
            lease.count(),
            lease.data()
        );
        assert!(queue.renew(&lease, ttl).await?, "still ours");
        let (completed, following) = queue.complete_and_lease(&lease, ttl).await?;
        assert!(completed);
        next = following;
    }

    // A cleaner, about once per lease TTL somewhere in the fleet: puts back the items of
    // workers that died. deep_clean (rarely) also finds items that fell off every list.
    let report = queue.light_clean().await?;
    println!("re-queued {}, removed {}", report.requeued, report.removed);
    Ok(())
}
