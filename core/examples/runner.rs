use std::time::Duration;

use leaseq::worker::{Job, JobError, Worker};
use leaseq::{Client, Item};

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{emails}")?;
    for to in ["a@example.com", "b@example.com", ""] {
        queue
            .add(&Item::from_json(&serde_json::json!({ "to": to }))?)
            .await?;
    }

    // A runner: 8 handlers at once. The core leases in batches, renews the leases, records
    // each outcome, rides through Redis outages and does the queue's housekeeping.
    let worker = Worker::new(queue.clone(), |job: Job| async move {
        let email: serde_json::Value = job.json()?;
        let to = email["to"].as_str().unwrap_or_default().to_owned();
        if to.is_empty() {
            // Straight to the dead letters: retrying cannot help.
            return Err(JobError::unrecoverable("no address"));
        }
        println!("sending to {to} (attempt {})", job.attempt());
        Ok(()) // an Err, or a `?`, is retried with the queue's backoff
    })
    .concurrency(8);

    // `worker.run()` runs until SIGINT or SIGTERM (a second one forces). Here: until drained.
    let watch = queue.clone();
    let drained = async move {
        while watch
            .stats()
            .await
            .map_or(true, |s| s.waiting + s.leased > 0)
        {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let report = worker.run_until(drained).await?;
    println!("{} completed, {} dead", report.completed, report.dead);
    Ok(())
}
