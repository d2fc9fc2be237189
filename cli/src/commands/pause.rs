//! `pause` and `resume`: stop and restart the leasing of a queue for every client.

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
