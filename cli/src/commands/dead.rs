//! Dead letters: `dead requeue` and `dead purge` (`dead ls` is `ls dead`).

use super::partitions::Target;
use crate::fail::{Fail, Outcome};
use crate::output;

/// Most ids one `dead requeue` call takes (the core's batch bound).
const MAX_IDS: usize = 1000;

/// `leaseq dead requeue`: the ids given, the `oldest` N, or all. Ids that were not dead letters
/// are named, with what became of them, and the exit code is 1 (6 when the queue itself does
/// not exist); requeuing none of the oldest or all says whether the queue exists.
pub async fn requeue(
    client: &leaseq::Client,
    queue: &str,
    ids: &[String],
    oldest: Option<u64>,
    all: bool,
    json: bool,
) -> Outcome {
    // A partitioned queue's base: every partition (spec 5.25).
    let target = Target::open(client, queue).await?;
    if !ids.is_empty() {
        if ids.len() > MAX_IDS {
            return Err(Fail::Usage(format!(
                "ids: at most {MAX_IDS} at once (use --oldest N or --all for more); nothing was \
                 written"
            )));
        }
        // Each id once, so that a repeated one is not reported as not found.
        let mut unique: Vec<&str> = Vec::with_capacity(ids.len());
        for id in ids {
            if !unique.contains(&id.as_str()) {
                unique.push(id);
            }
        }
        let requeued = target.dead_requeue_each(&unique).await?;
        let missed: Vec<&str> = unique
            .iter()
            .zip(&requeued)
            .filter(|(_, &done)| !done)
            .map(|(&id, _)| id)
            .collect();
        let n = requeued.iter().filter(|&&done| done).count() as u64;
        if missed.is_empty() {
            report(json, "requeued", n);
            return Ok(());
        }
        if n == 0 {
            target.must_exist(queue).await?;
        }
        // What the ids that were not dead letters are (a few reads, only for those).
        let mut found = Vec::with_capacity(missed.len());
        for &id in &missed {
            let state = target.get(id).await?.map(|job| job.state.to_string());
            found.push((id, state));
        }
        if json {
            let not_dead: Vec<serde_json::Value> = found
                .iter()
                .map(|(id, state)| serde_json::json!({"id": id, "state": state}))
                .collect();
            output::json(&serde_json::json!({"requeued": n, "not_dead": not_dead}));
        } else {
            say!("requeued {n}");
        }
        let named: Vec<String> = found
            .iter()
            .map(|(id, state)| match state {
                Some(s) => format!("`{id}` (is {s})"),
                None => format!("`{id}` (no such item)"),
            })
            .collect();
        return Err(Fail::NotFound(format!(
            "not dead letters in `{queue}`, so not requeued: {}",
            named.join(", ")
        )));
    }
    if oldest.is_none() && !all {
        return Err(Fail::Usage(
            "say which dead letters: ids, --oldest N or --all".into(),
        ));
    }
    // On a partitioned queue's base: the oldest of every partition, by time of death.
    let n = target.dead_requeue_oldest(oldest).await?;
    if n == 0 {
        target.must_exist(queue).await?;
    }
    report(json, "requeued", n);
    Ok(())
}

/// `leaseq dead purge`: the `oldest` N, or `all`.
pub async fn purge(
    client: &leaseq::Client,
    queue: &str,
    oldest: Option<u64>,
    all: bool,
    json: bool,
) -> Outcome {
    if oldest.is_none() && !all {
        return Err(Fail::Usage(
            "say which dead letters to delete: --oldest N or --all".into(),
        ));
    }
    // On a partitioned queue's base: the oldest of every partition, by time of death (spec
    // 5.25).
    let target = Target::open(client, queue).await?;
    let n = target.dead_purge(oldest).await?;
    if n == 0 {
        target.must_exist(queue).await?;
    }
    report(json, "purged", n);
    Ok(())
}

fn report(json: bool, what: &str, n: u64) {
    if json {
        output::json(&serde_json::json!({ what: n }));
    } else {
        say!("{what} {n}");
    }
}
