use leaseq::worker::{Event, Job, JobError, Worker};
use leaseq::{Client, Item};

/// A cause, as a handler's `?` meets one: a `JobError` made from it keeps the chain as its trace.
#[derive(Debug)]
struct NotAnAmount(std::num::ParseFloatError);

impl std::fmt::Display for NotAnAmount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not an amount")
    }
}

impl std::error::Error for NotAnAmount {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    // The runner's lines are `tracing` events under the target `leaseq::worker`: its start
    // (queue, URL without password, concurrency) and stop at INFO, each failure at WARN
    // (retried) or ERROR (dead), each success at DEBUG. Any subscriber shows them.
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .without_time()
        .with_writer(std::io::stdout)
        .init();

    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{invoices}")?;
    queue.add(&Item::with_id("ok", "12.50")?).await?;
    queue
        .add(&Item::with_id("bad", "twelve")?.max_attempts(1))
        .await?;

    let worker = Worker::new(queue.clone(), |job: Job| async move {
        let text = String::from_utf8_lossy(job.data()).into_owned();
        let _amount: f64 = text.parse().map_err(NotAnAmount)?;
        Ok::<(), JobError>(())
    });
    let handle = worker.handle();
    let worker = worker.on_event(move |e| {
        if matches!(e, Event::Dead { .. }) {
            handle.stop();
        }
    });
    worker.run_until(std::future::pending()).await?;

    // The failed attempt's chain of causes is kept with the job (at most 16 KiB).
    let job = queue.get("bad").await?.expect("dead, kept");
    println!("{}", job.trace.unwrap_or_default());
    Ok(())
}
