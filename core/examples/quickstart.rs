use std::time::Duration;

use leaseq::{Client, Item, Wait};

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{quickstart}")?;

    // A producer adds an item: JSON here, any bytes in general.
    let email = serde_json::json!({ "to": "ada@example.com" });
    queue.add(&Item::from_json(&email)?).await?;

    // A worker leases it for 30 s, waiting up to 1 s for one, and completes it with a result.
    // Had the worker died instead, the lease would expire and the item come back.
    let wait = Wait::Timeout(Duration::from_secs(1));
    if let Some(lease) = queue.lease(Duration::from_secs(30), wait).await? {
        let email: serde_json::Value = lease.json()?;
        println!("sending to {} (attempt {})", email["to"], lease.attempt());
        let sent = b"sent".as_slice();
        assert!(queue.complete_with_result(&lease, Some(sent), None).await?);

        // Anyone may read the result (or wait for it: `wait_result`).
        let result = queue.result(lease.id()).await?.expect("kept for a day");
        println!("result: {}", String::from_utf8_lossy(&result.data));
    }
    Ok(())
}
