//! The cleaner's mischief in a soak: what crashed clients of either protocol leave behind.

use leaseq_soak::Dice;

/// Does one random harm to one of `queues`, through a raw connection; none when a command fails
/// (the drain soak cuts connections).
pub async fn corrupt(url: &str, queues: &[&str], dice: &mut Dice) {
    let _ = try_corrupt(url, queues, dice).await;
}

async fn try_corrupt(url: &str, queues: &[&str], dice: &mut Dice) -> redis::RedisResult<()> {
    let mut conn = redis::Client::open(url)?
        .get_multiplexed_async_connection()
        .await?;
    let prefix = queues[dice.below(queues.len() as u32) as usize];
    let processing = format!("{prefix}:processing");
    let queue = format!("{prefix}:queue");
    let leased = format!("{prefix}:leased");
    // Held ids: redis-work-queue's leases in processing, leaseq's in P:leased.
    let mut held: Vec<(String, bool)> = Vec::new();
    let listed: Vec<String> = redis::cmd("LRANGE")
        .arg(&processing)
        .arg(0)
        .arg(20)
        .query_async(&mut conn)
        .await?;
    held.extend(listed.into_iter().map(|id| (id, true)));
    let tracked: Vec<String> = redis::cmd("ZRANGE")
        .arg(&leased)
        .arg(0)
        .arg(20)
        .query_async(&mut conn)
        .await?;
    held.extend(tracked.into_iter().map(|id| (id, false)));
    let victim = (!held.is_empty()).then(|| held[dice.below(held.len() as u32) as usize].clone());
    let mut cmd = redis::cmd("ECHO");
    match (dice.below(4), victim) {
        // A stale id: an item completed long ago.
        (0, _) => {
            cmd = redis::cmd("LPUSH")
                .arg(&queue)
                .arg(format!("gone-{}", dice.below(1_000_000)))
                .clone()
        }
        // A duplicate of a held id in the queue (a racing cleaner of the other protocol).
        (1, Some((id, _))) => cmd = redis::cmd("LPUSH").arg(&queue).arg(id).clone(),
        // An id dropped from processing (a crashed cleaner): only deep clean finds it.
        (2, Some((id, true))) => cmd = redis::cmd("LREM").arg(&processing).arg(1).arg(id).clone(),
        // A leaseq lease's entry lost from P:leased (interference): once the lease key expires
        // the item is an orphan, which deep clean finds.
        (2, Some((id, false))) => cmd = redis::cmd("ZREM").arg(&leased).arg(id).clone(),
        // A lease lost early (clock trouble, eviction): the item runs twice, one complete wins.
        (3, Some((id, _))) => {
            cmd = redis::cmd("DEL")
                .arg(format!("{prefix}:lease:{id}"))
                .clone()
        }
        _ => {
            cmd.arg("nothing to corrupt");
        }
    }
    let _: redis::Value = cmd.query_async(&mut conn).await?;
    Ok(())
}
