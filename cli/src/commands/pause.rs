//! `pause` and `resume`: stop and restart the leasing of a queue for every client; `hold`: stop
//! it for a while.

use std::time::Duration;

use crate::fail::Outcome;
use crate::output;

/// `leaseq pause` (`paused`) and `leaseq resume` (`!paused`): prints what changed, or that
/// nothing had to.
pub async fn set(client: &leaseq::Client, queue: &str, paused: bool, json: bool) -> Outcome {
    let q = client.queue(queue)?;
    let changed = if paused {
        q.pause().await?
    } else {
        q.resume().await?
    };
    if json {
        output::json(&serde_json::json!({
            "queue": queue,
            "paused": paused,
            "changed": changed,
        }));
        return Ok(());
    }
    let word = if paused { "paused" } else { "resumed" };
    match (paused, changed) {
        (true, true) => println!(
            "{queue}: {word}; nothing is leased until `leaseq resume -q {}`",
            output::shell_word(queue)
        ),
        (false, true) => println!("{queue}: {word}; leasing goes on"),
        (true, false) => println!("{queue}: already paused; nothing changed"),
        (false, false) => println!("{queue}: not paused; nothing changed"),
    }
    Ok(())
}

/// `leaseq hold -q Q DURATION` ([`leaseq::Queue::rate_limit`]): every lease held off for
/// `duration`, or longer when a longer hold is in place; prints for how long.
pub async fn hold(client: &leaseq::Client, queue: &str, duration: Duration, json: bool) -> Outcome {
    let held = client.queue(queue)?.rate_limit(duration).await?;
    let ms = held.as_millis().min(u128::from(u64::MAX)) as u64;
    if json {
        output::json(&serde_json::json!({ "queue": queue, "held_for_ms": ms }));
        return Ok(());
    }
    let left = humantime::format_duration(Duration::from_millis(ms));
    // The core holds whole milliseconds, rounded up.
    if u128::from(ms) > duration.as_nanos().div_ceil(1_000_000) {
        println!("{queue}: already held off longer; nothing is leased for {left}");
    } else {
        println!("{queue}: held off; nothing is leased, by any client, for {left}");
    }
    Ok(())
}
