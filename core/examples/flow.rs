use std::time::Duration;

use leaseq::{Client, ErrorCode, Item, QueueConfig, Wait};

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{exports}")?;

    // Pause: nothing is leased, by any client in any language, until the resume. Adds go on.
    queue.pause().await?;
    queue.add(&Item::new("report-1")).await?;
    let none = queue.lease(Duration::from_secs(30), Wait::No).await?;
    println!(
        "paused: {}, leased: {}",
        queue.is_paused().await?,
        none.is_some()
    ); // paused: true, leased: false

    // A runner or a waiting lease wakes as soon as the queue is resumed.
    let waiting = tokio::spawn({
        let queue = queue.clone();
        async move {
            queue
                .lease(
                    Duration::from_secs(30),
                    Wait::Timeout(Duration::from_secs(60)),
                )
                .await
        }
    });
    queue.resume().await?;
    let lease = waiting
        .await
        .expect("the waiting lease")?
        .expect("leased after the resume");
    queue.complete(&lease).await?;

    // A bounded queue: at most 2 items waiting or delayed. Past it, an add fails with FULL
    // and writes nothing, or waits for a lease to make room.
    queue.set_config(&QueueConfig::new().capacity(2)).await?;
    queue.add_batch(&[Item::new("a"), Item::new("b")]).await?;
    let err = queue.add(&Item::new("c")).await.unwrap_err();
    println!("{}: {}", err.code(), err.code() == ErrorCode::Full); // FULL: true
    let producer = tokio::spawn({
        let queue = queue.clone();
        async move {
            queue
                .add_wait(&Item::new("c"), Wait::Timeout(Duration::from_secs(60)))
                .await
        }
    });
    let lease = queue
        .lease(Duration::from_secs(30), Wait::No)
        .await?
        .expect("an item");
    println!(
        "added after a lease made room: {}",
        producer.await.expect("the producer")?
    ); // true
    queue.complete(&lease).await?;
    println!("{:?}", queue.stats().await?.capacity); // Some(2)
    Ok(())
}
