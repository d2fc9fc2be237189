use std::time::Duration;

use leaseq::{Backoff, Client, FailOutcome, Item, QueueConfig, Retry, State, Wait};

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{emails}")?;
    // Per-minute counters (completed, failed, ...) are off unless the queue turns them on:
    // each minute's counter is a key that outlives the work by an hour.
    queue.set_config(&QueueConfig::new().stats(true)).await?;

    // Producers: one round trip per add, or per batch. Options are per item; those not given
    // come from the queue's stored configuration (queue.set_config), else the defaults.
    queue
        .add(&Item::from_json(
            &serde_json::json!({"to": "a@example.com"}),
        )?)
        .await?;
    let report = Item::with_id("report-7", "monthly")?
        .priority(5)
        .max_attempts(3)
        .backoff(Backoff::exponential(
            Duration::from_millis(100),
            Duration::from_secs(60),
        ));
    queue.add(&report).await?;
    queue
        .add(&Item::new("tomorrow").delay(Duration::from_secs(86_400)))
        .await?;
    let batch: Vec<Item> = (0..3).map(|i| Item::new(format!("job {i}"))).collect();
    assert_eq!(queue.add_batch(&batch).await?, 3);

    // A worker: lease for 30 s, waiting up to 1 s for work (server-side, no polling). Leases
    // also bring back expired leases and due delayed items: no cleaner process is needed.
    let ttl = Duration::from_secs(30);
    while let Some(lease) = queue
        .lease(ttl, Wait::Timeout(Duration::from_secs(1)))
        .await?
    {
        println!(
            "{} (attempt {}): {:?}",
            lease.id(),
            lease.attempt(),
            lease.data()
        );
        if lease.data() == b"job 1" {
            // Retry::Default retries after the item's backoff while attempts are left;
            // Retry::Never makes it a dead letter at once.
            let outcome = queue
                .fail(&lease, "upstream said 503", "HttpError", Retry::Never)
                .await?;
            assert_eq!(outcome, FailOutcome::Dead);
            continue;
        }
        assert!(queue.renew(&lease, ttl).await?, "still ours");
        assert!(
            queue
                .complete_with_result(&lease, Some(b"sent".as_slice()), None)
                .await?
        );
    }

    // What became of the work: one item, the dead letters, the last hour.
    let job = queue.get("report-7").await?.expect("its result is kept");
    assert_eq!(job.state, State::Done);
    println!("report-7: {:?}", job.result.map(|r| r.data));
    for dead in queue.list(State::Dead, 0, 100).await? {
        println!(
            "dead: {} after {} attempt(s): {:?}",
            dead.id, dead.attempts, dead.error
        );
    }
    let stats = queue.stats().await?;
    println!(
        "waiting {}, delayed {}, dead {}; completed in the last hour: {}",
        stats.waiting,
        stats.delayed,
        stats.dead,
        stats.last_hour().map_or(0, |h| h.completed) // None while counters are off
    );
    // Give the dead letters another go (their attempts start over).
    assert_eq!(queue.dead_requeue_oldest(None).await?, 1);
    Ok(())
}
