use std::time::Duration;

use leaseq::{Client, EventsFrom, Item, QueueConfig, Wait};

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{orders}")?;
    // Off by default: on, every transition of an item is appended to the queue's stream.
    queue.set_config(&QueueConfig::new().events(true)).await?;

    // A follower from now: any process, in any language, can follow the same stream.
    let mut follower = queue.events(EventsFrom::Now).await?;
    queue
        .add(&Item::with_id("order-1", "{}")?.name("ship"))
        .await?;
    if let Some(lease) = queue.lease(Duration::from_secs(30), Wait::No).await? {
        queue.complete(&lease).await?;
    }
    let mut seen = String::new();
    for _ in 0..3 {
        let e = follower.next().await?;
        println!("{} {} (attempt {})", e.event, e.job_id, e.attempt);
        seen = e.id; // store it to resume after it
    }

    // Later, in a process that restarted: what happened after the last entry it saw.
    queue.add(&Item::with_id("order-2", "{}")?).await?;
    for e in queue.read_events(Some(&seen), 100).await?.events {
        println!("since then: {} {}", e.event, e.job_id);
    }
    queue.cancel("order-2").await?; // the example's own: a second run starts as the first did
    Ok(())
}
