//! `pause` and `resume`: stop and restart the leasing of a queue for every client; `hold`: stop
//! it, or one of its groups, for a while.

use std::time::Duration;

use crate::commands::partitions::Target;
use crate::fail::Outcome;
use crate::output;
use crate::view::preview;

/// `leaseq pause` (`paused`) and `leaseq resume` (`!paused`): prints what changed, or that
/// nothing had to.
pub async fn set(client: &leaseq::Client, queue: &str, paused: bool, json: bool) -> Outcome {
    // A partitioned queue's base: every partition (true when any changed).
    let target = super::partitions::Target::open(client, queue).await?;
    let new = paused && target.is_new().await?;
    let changed = if paused {
        target.pause().await?
    } else {
        target.resume().await?
    };
    if new {
        Target::note_new(queue, "it is paused");
    }
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
        (true, true) => say!(
            "{queue}: {word}; nothing is leased until `leaseq resume -q {}`",
            output::shell_word(queue)
        ),
        (false, true) => say!("{queue}: {word}; leasing goes on"),
        (true, false) => say!("{queue}: already paused; nothing changed"),
        (false, false) => say!("{queue}: not paused; nothing changed"),
    }
    Ok(())
}

/// `leaseq hold -q Q DURATION` ([`leaseq::Queue::rate_limit`]): every lease held off for
/// `duration`, or longer when a longer hold is in place; with `--group G`
/// ([`leaseq::Queue::rate_limit_group`]), only that group's. Prints for how long.
pub async fn hold(
    client: &leaseq::Client,
    queue: &str,
    group: Option<&str>,
    duration: Duration,
    json: bool,
) -> Outcome {
    let target = Target::open(client, queue).await?;
    let new = target.is_new().await?;
    let held = match group {
        // On a partitioned queue's base: the group's partition, which holds all its items.
        Some(g) => target.group_queue(g).rate_limit_group(g, duration).await?,
        // On a partitioned queue's base: every partition.
        None => target.rate_limit(duration).await?,
    };
    let ms = held.as_millis().min(u128::from(u64::MAX)) as u64;
    if new {
        Target::note_new(queue, "it is held off");
    }
    if json {
        output::json(&serde_json::json!({ "queue": queue, "group": group, "held_for_ms": ms }));
        return Ok(());
    }
    let left = humantime::format_duration(Duration::from_millis(ms));
    // The core holds whole milliseconds, rounded up.
    let longer = u128::from(ms) > duration.as_nanos().div_ceil(1_000_000);
    match (group.map(|g| preview(g.as_bytes(), 256)), longer) {
        (None, true) => say!("{queue}: already held off longer; nothing is leased for {left}"),
        (None, false) => {
            say!("{queue}: held off; nothing is leased, by any client, for {left}")
        }
        (Some(g), true) => say!(
            "{queue}: group {g} already held off longer; none of its items is leased for {left}"
        ),
        (Some(g), false) => say!(
            "{queue}: group {g} held off; none of its items is leased, by any client, for \
             {left}; the rest of the queue goes on"
        ),
    }
    Ok(())
}
