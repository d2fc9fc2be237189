use std::time::Duration;

use leaseq::worker::{Handlers, Job, JobError, Worker};
use leaseq::{Client, Item, QueueConfig};

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{work}")?;
    queue.set_config(&QueueConfig::new().stats(true)).await?; // to count jobs by name

    // One queue, several kinds of job: each item names its kind.
    queue
        .add_batch(&[
            Item::new(r#""ada@example.com""#).name("send_email"),
            Item::new(r#"{"w": 640}"#).name("resize"),
            Item::new("?").name("print").max_attempts(1),
        ])
        .await?;

    // A handler per name. Without a fallback (`.fallback(handler)`), a job that no name takes
    // fails for good with a `NoHandler` error, without running.
    let handlers = Handlers::new()
        .on("send_email", |job: Job| async move {
            let to: String = job.json()?;
            println!("send_email: mail to {to}");
            Ok::<_, JobError>(())
        })
        .on("resize", |job: Job| async move {
            println!("resize: {}", String::from_utf8_lossy(job.data()));
            Ok::<_, JobError>(())
        })
        .validated()?;
    let worker = Worker::new(queue.clone(), handlers);
    let stop = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    // Until all three are done (two completed, one dead), then stop the runner.
    loop {
        let s = queue.stats().await?;
        if s.dead == 1 && s.waiting == 0 && s.leased == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    stop.stop();
    let report = run.await.expect("the runner")?;
    println!("{} completed, {} dead", report.completed, report.dead);

    for c in queue.counts_by_name().await?.unwrap_or_default() {
        println!("{}: {} completed, {} dead", c.name, c.completed, c.dead);
    }
    Ok(())
}
