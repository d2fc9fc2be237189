//! A partitioned queue (spec/PROTOCOL.md 5.25): one queue stored as four partitions, each in a
//! slot of its own (on a Redis Cluster, connected with `Client::connect_cluster`, spread over
//! its primaries), fed and drained as one.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use leaseq::worker::{Event, Job, Outcome, Worker};
use leaseq::{Client, Item, Wait};

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    // Created once with its partition count (again with the same count: the same queue).
    let orders = client.create_partitioned("{orders-by-customer}", 4).await?;
    println!("{} partitions", orders.count()); // 4 partitions

    // Items go by their group (a customer's orders stay together, in order), else by their id.
    let items: Vec<Item> = (0..6)
        .map(|i| Item::new(format!("order {i}")).group(format!("customer-{}", i % 2)))
        .chain((0..4).map(|i| Item::new(format!("refund {i}"))))
        .collect();
    println!("added {}", orders.add_batch(&items).await?); // added 10

    // A single lease asks the partitions in turn; it is finished in its own partition.
    let lease = orders
        .lease(Duration::from_secs(30), Wait::No)
        .await?
        .expect("an item");
    orders.complete(&lease).await?;

    // A runner serves every partition, none starved while it has work.
    let done = Arc::new(AtomicUsize::new(1));
    let (counted, all) = (done.clone(), Arc::new(tokio::sync::Notify::new()));
    let finished = all.clone();
    let worker = Worker::partitioned(&orders, |_job: Job| async { Outcome::Complete(None) })
        .concurrency(4)
        .on_event(move |e| {
            if matches!(e, Event::Completed { .. }) && counted.fetch_add(1, Ordering::SeqCst) == 9 {
                finished.notify_one();
            }
        });
    worker
        .run_until(async move { all.notified().await })
        .await?;
    println!("completed {}", done.load(Ordering::SeqCst)); // completed 10

    // The base is no queue: opened as a plain one, it refuses the work no runner would see.
    let refused = client
        .queue("{orders-by-customer}")?
        .add(&Item::new("lost"))
        .await;
    println!("{}", refused.unwrap_err().code()); // INVALID_ARGUMENT

    // Reads see the logical queue, and each partition's figures beside it.
    let stats = orders.stats().await?;
    println!(
        "waiting {} in {} partitions",
        stats.total.waiting,
        stats.partitions.len()
    ); // waiting 0 in 4 partitions
    Ok(())
}
