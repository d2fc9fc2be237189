//! Recurring jobs: a schedule adds an item at each tick, exactly once however many runners
//! run; the queue's runners fire it (no separate scheduler process).
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use leaseq::worker::{Job, JobError, Worker};
use leaseq::{Client, Item, Missed, Schedule};

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{reports}")?;

    // Every night at 03:00 in Berlin (daylight saving time included); after a downtime, the
    // missed nights add one item.
    let nightly = Schedule::cron("0 3 * * *")
        .tz("Europe/Berlin")
        .item(Item::new("nightly").name("report").max_attempts(3))
        .missed(Missed::Once);
    queue.upsert_schedule("nightly-report", &nightly).await?;
    // And a heartbeat every second, to see it fire.
    let beat = Schedule::every(Duration::from_secs(1)).item(Item::new("beat").name("beat"));
    queue.upsert_schedule("beat", &beat).await?;

    // Any runner of the queue fires the due schedules (the one holding its housekeeping lock).
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let worker = Worker::new(queue.clone(), move |job: Job| {
        let counter = counter.clone();
        async move {
            // The item of tick t is `<schedule>@<t>`: one per tick.
            assert!(job.id().starts_with("beat@"));
            counter.fetch_add(1, Ordering::SeqCst);
            Ok::<_, JobError>(())
        }
    });
    let stop = worker.handle();
    let run = tokio::spawn(worker.run_until(std::future::pending()));
    while seen.load(Ordering::SeqCst) < 2 {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    stop.stop();
    run.await.expect("the runner")?;
    println!("two beats ran");

    let page = queue.schedules(0, 100).await?;
    for s in &page.schedules {
        let next_in = s.next.map(|n| n.saturating_sub(page.now) / 1000);
        println!("{}: fired {}, next in {next_in:?} s", s.name, s.fired);
    }
    queue.remove_schedule("beat").await?;
    queue.remove_schedule("nightly-report").await?;
    Ok(())
}
