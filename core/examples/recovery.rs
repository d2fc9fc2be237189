//! Crash recovery: a producer, two workers (one of which crashes midway, holding a lease) and a
//! cleaner share one queue on the server at REDIS_URL. Prints progress and a final tally; exits
//! non-zero if any item was lost or completed twice. (`make demo` is the tour in every language.)

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use leaseq::{Client, Item, Wait};

const ITEMS: usize = 5_000;
const TTL: Duration = Duration::from_millis(500);

#[tokio::main]
async fn main() -> leaseq::Result<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = Client::connect(&url).await?;
    let queue = client.queue("{recovery}")?;
    let started = Instant::now();

    // Producer: batches of 500, one round trip each.
    let producer = {
        let queue = queue.clone();
        tokio::spawn(async move {
            for chunk in 0..ITEMS / 500 {
                let items: Vec<Item> = (0..500)
                    .map(|i| Item::from_json(&serde_json::json!({"n": chunk * 500 + i})).unwrap())
                    .collect();
                queue.add_batch(&items).await?;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Ok::<_, leaseq::Error>(())
        })
    };

    let completed: Arc<Mutex<HashMap<String, u32>>> = Arc::default();
    let per_worker: Arc<Mutex<HashMap<&'static str, usize>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    for name in ["worker-a", "worker-b (crashes at 1000)"] {
        let (queue, completed, per_worker, stop) = (
            queue.clone(),
            completed.clone(),
            per_worker.clone(),
            stop.clone(),
        );
        workers.push(tokio::spawn(async move {
            let mut lease = None;
            let mut done = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let current = match lease.take() {
                    Some(l) => l,
                    None => match queue
                        .lease(TTL, Wait::Timeout(Duration::from_millis(200)))
                        .await?
                    {
                        Some(l) => l,
                        None => continue,
                    },
                };
                if name.contains("crashes") && done == 1000 {
                    // Crash: this lease is never completed; the cleaner gives it back.
                    println!("{name}: crashed holding {}", current.id());
                    return Ok(());
                }
                let _n: serde_json::Value = current.json()?;
                let (won, next) = queue.complete_and_lease(&current, TTL).await?;
                if won {
                    *completed
                        .lock()
                        .unwrap()
                        .entry(current.id().to_owned())
                        .or_default() += 1;
                    *per_worker.lock().unwrap().entry(name).or_default() += 1;
                    done += 1;
                }
                lease = next;
            }
            Ok::<_, leaseq::Error>(())
        }));
    }
    let cleaner = {
        let (queue, stop) = (queue.clone(), stop.clone());
        tokio::spawn(async move {
            let mut requeued = 0u64;
            while !stop.load(Ordering::Relaxed) {
                tokio::time::sleep(TTL).await;
                requeued += queue.light_clean().await?.requeued;
            }
            Ok::<_, leaseq::Error>(requeued)
        })
    };

    producer.await.expect("producer")?;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let done = completed.lock().unwrap().len();
        println!(
            "{:>5.1}s  completed {done:>5}/{ITEMS}  queued {:>5}  in flight {:>3}",
            started.elapsed().as_secs_f64(),
            queue.queue_len().await?,
            queue.processing_len().await?
        );
        if done == ITEMS || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.await.expect("worker")?;
    }
    let requeued = cleaner.await.expect("cleaner")?;

    let completed = completed.lock().unwrap();
    let twice = completed.values().filter(|&&n| n > 1).count();
    println!("\n{:<28} {:>8}", "worker", "items");
    for (name, n) in per_worker.lock().unwrap().iter() {
        println!("{name:<28} {n:>8}");
    }
    println!("re-queued by the cleaner: {requeued}");
    println!(
        "completed {} of {ITEMS} in {:.1}s, completed twice: {twice}, lost: {}",
        completed.len(),
        started.elapsed().as_secs_f64(),
        ITEMS - completed.len()
    );
    if completed.len() != ITEMS || twice > 0 {
        std::process::exit(1);
    }
    Ok(())
}
