use std::time::Duration;

use leaseq::blocking::Client;
use leaseq::{Item, Wait};

// No async runtime of your own: `leaseq::blocking` runs the same calls on leaseq's, blocking
// only the calling thread. A client is cheap to clone and may serve many threads.
fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url)?;
    let queue = client.queue("{blocking}")?;
    let items: Vec<Item> = (1..=4).map(|n| Item::new(format!("job {n}"))).collect();
    assert_eq!(queue.add_batch(&items)?, 4);

    let workers: Vec<_> = (0..2)
        .map(|_| {
            let queue = queue.clone();
            std::thread::spawn(move || -> leaseq::Result<usize> {
                let mut done = 0;
                let ttl = Duration::from_secs(30);
                while let Some(lease) = queue.lease(ttl, Wait::No)? {
                    done += usize::from(queue.complete(&lease)?);
                }
                Ok(done)
            })
        })
        .collect();
    let mut done = 0;
    for worker in workers {
        done += worker.join().expect("a worker thread")?;
    }
    println!("{done} completed by 2 threads");
    Ok(())
}
