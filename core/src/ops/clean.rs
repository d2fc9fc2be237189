//! Cleaning: putting back what crashed clients left behind (spec/PROTOCOL.md, "Cleaning").

use redis::Value;

use crate::error::Result;
use crate::queue::Queue;
use crate::reply::unexpected;
use crate::scripts;

/// How many ids one light-clean script call examines: enough to make few round trips, few
/// enough that one call holds Redis for well under a millisecond or two.
const LIGHT_BATCH: usize = 200;
/// Due delayed items one light-clean call promotes at most (clean.lua).
const PROMOTE_BATCH: i64 = 100;
/// SCAN / HSCAN COUNT hint and list window for deep clean.
const DEEP_BATCH: usize = 250;
/// A deep clean's snapshot and suspects sets expire by themselves if the cleaner dies mid-way.
const SNAPSHOT_TTL_MS: u64 = 3_600_000;
/// Suspects re-checked and queued per script call in deep clean's last step.
const REQUEUE_BATCH: usize = 100;

/// What a clean did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CleanReport {
    /// Items put back in a waiting list (their lease expired or was never set, or they were on
    /// no list at all).
    pub requeued: u64,
    /// Stale entries removed: ids of complete items, duplicate ids, orphaned records.
    pub removed: u64,
    /// Delayed items that were due, moved to waiting.
    pub promoted: u64,
    /// Items whose last lease expired with no attempts left, moved to dead.
    pub dead: u64,
}

impl std::ops::AddAssign for CleanReport {
    fn add_assign(&mut self, other: CleanReport) {
        self.requeued += other.requeued;
        self.removed += other.removed;
        self.promoted += other.promoted;
        self.dead += other.dead;
    }
}

impl Queue {
    /// Moves due delayed items to waiting, recovers expired leases (back to waiting, or dead
    /// when out of attempts), trims dead letters to the queue's bounds, sorts the ids
    /// redis-work-queue clients left in processing (requeues those whose lease is gone, drops
    /// those whose item is complete), and drops stale ids at the head of the waiting lists.
    /// Runs server-side in batches of a few hundred per round trip. Leases do the first two
    /// themselves, so a queue with workers needs no cleaner; run it where nobody leases.
    pub async fn light_clean(&self) -> Result<CleanReport> {
        let mut report = CleanReport::default();
        let mut budget: Option<i64> = None;
        let mut examined_total = 0i64;
        loop {
            let mut inv = self.invocation(&scripts::CLEAN);
            inv.arg(LIGHT_BATCH);
            let reply: Vec<i64> = self.invoke(&inv).await?;
            // Nine values, then (5.24) the dependants settled and the dependencies swept.
            let head = reply.get(..9).unwrap_or_default();
            let [promoted, expired_requeued, expired_dead, expired_removed, examined, requeued, removed, before, stale] =
                <[i64; 9]>::try_from(head)
                    .map_err(|_| unexpected("clean", &Value::Int(reply.len() as i64)))?;
            let settled = reply.get(9).copied().unwrap_or(0);
            report += CleanReport {
                requeued: (expired_requeued + requeued) as u64,
                removed: (removed + expired_removed + stale) as u64,
                promoted: promoted as u64,
                dead: expired_dead as u64,
            };
            // Each processing id is examined once: the batches rotate through processing, so
            // stop after as many as it held when the clean began.
            let budget = *budget.get_or_insert(before);
            examined_total += examined;
            let batch = LIGHT_BATCH as i64;
            let more = promoted == PROMOTE_BATCH
                || expired_requeued + expired_dead + expired_removed >= batch
                || stale == batch
                || settled >= batch
                || (examined == batch && examined_total < budget);
            if !more {
                return Ok(report);
            }
        }
    }

    /// Everything [`Queue::light_clean`] does, and finds items that are on no list at all (a
    /// redis-work-queue client crashed between storing an item and queueing it, or its cleaner
    /// crashed mid-way) and lease counts left by items that redis-work-queue clients completed.
    /// Costs a walk over every key of the queue: run it rarely (at start-up, or hourly).
    ///
    /// Never uses KEYS: item keys are found with SCAN and an escaped MATCH pattern on the server
    /// that holds the queue's slot. Every step is a script call over a bounded batch, so no
    /// single call holds Redis for long, whatever the size of the queue.
    pub async fn deep_clean(&self) -> Result<CleanReport> {
        let mut report = self.light_clean().await?;
        let (snapshot, suspects) = self.keys().deep_clean_sets();
        let result = self
            .deep_clean_with(&snapshot, &suspects, &mut report)
            .await;
        // Both sets also expire by themselves; removing them keeps a drained queue keyless.
        // UNLINK frees a million-member set in the background instead of blocking Redis.
        let mut conn = self.conn()?;
        for key in [&snapshot, &suspects] {
            let _: redis::RedisResult<()> =
                redis::cmd("UNLINK").arg(key).query_async(&mut conn).await;
        }
        result.map(|()| report)
    }

    async fn deep_clean_with(
        &self,
        snapshot: &str,
        suspects: &str,
        report: &mut CleanReport,
    ) -> Result<()> {
        // Step 1: a snapshot of every list.
        let lists = self.list_names().await?;
        for list in &lists {
            let mut start = 0usize;
            loop {
                let mut inv = self.invocation(&scripts::SNAPSHOT);
                inv.key(snapshot)
                    .arg(list.as_str())
                    .arg(start)
                    .arg(DEEP_BATCH)
                    .arg(SNAPSHOT_TTL_MS);
                let copied: usize = self.invoke(&inv).await?;
                start += copied;
                if copied < DEEP_BATCH {
                    break;
                }
            }
        }

        // Step 2: every id that has an item key, a lease count or a journal entry; those on no
        // list in the snapshot and without a lease become suspects.
        let mut marked = 0u64;
        for family in ["item", "job"] {
            let pattern = self.keys().family_scan_pattern(family);
            let family_len = format!("{}:{family}:", self.prefix()).len();
            let mut cursor = 0u64;
            loop {
                let mut cmd = redis::cmd("SCAN");
                cmd.arg(cursor)
                    .arg("MATCH")
                    .arg(&pattern)
                    .arg("COUNT")
                    .arg(DEEP_BATCH);
                let mut conn = self.conn()?;
                let value = conn
                    .query_at_key(cmd, &self.keys().queue)
                    .await
                    .map_err(|e| self.map_err(e))?;
                let (next, keys): (u64, Vec<Vec<u8>>) =
                    redis::from_redis_value(value).map_err(|e| self.map_err(e.into()))?;
                let ids: Vec<Vec<u8>> =
                    keys.into_iter().map(|k| k[family_len..].to_vec()).collect();
                marked += self
                    .deep_check(snapshot, suspects, false, &ids, report)
                    .await?;
                cursor = next;
                if cursor == 0 {
                    break;
                }
            }
        }
        let mut cursor = 0u64;
        loop {
            let mut conn = self.conn()?;
            let (next, pairs): (u64, Vec<Vec<u8>>) = redis::cmd("HSCAN")
                .arg(&self.keys().lease_count)
                .arg(cursor)
                .arg("COUNT")
                .arg(DEEP_BATCH)
                .query_async(&mut conn)
                .await
                .map_err(|e| self.map_err(e))?;
            let ids: Vec<Vec<u8>> = pairs.into_iter().step_by(2).collect();
            marked += self
                .deep_check(snapshot, suspects, false, &ids, report)
                .await?;
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
        // redis-work-queue's cleaner journal: ids it was moving when it stopped. Bounded by the
        // journal's length at the start, in case a live cleaner keeps writing to it.
        let mut conn = self.conn()?;
        let journal_len: usize = redis::cmd("LLEN")
            .arg(&self.keys().cleaning)
            .query_async(&mut conn)
            .await
            .map_err(|e| self.map_err(e))?;
        for _ in 0..journal_len.div_ceil(DEEP_BATCH) {
            let ids: Vec<Vec<u8>> = redis::cmd("LRANGE")
                .arg(&self.keys().cleaning)
                .arg(0)
                .arg(DEEP_BATCH - 1)
                .query_async(&mut conn)
                .await
                .map_err(|e| self.map_err(e))?;
            if ids.is_empty() {
                break;
            }
            marked += self
                .deep_check(snapshot, suspects, true, &ids, report)
                .await?;
        }
        if marked == 0 {
            return Ok(());
        }

        // Step 3: an id that moved between the lists while the snapshot was taken is a suspect
        // though it is on a list: walk the lists again, clearing suspects they hold.
        for list in &lists {
            let mut start = 0usize;
            loop {
                let mut inv = self.invocation(&scripts::DEEP_UNMARK);
                inv.key(suspects)
                    .arg(list.as_str())
                    .arg(start)
                    .arg(DEEP_BATCH);
                let (seen, left): (usize, u64) = self.invoke(&inv).await?;
                if left == 0 {
                    return Ok(()); // every suspect is on a list after all: nothing to queue
                }
                start += seen;
                if seen < DEEP_BATCH {
                    break;
                }
            }
        }

        // Step 4: the suspects left are orphans, unless they were leased or completed meanwhile.
        loop {
            let mut inv = self.invocation(&scripts::DEEP_REQUEUE);
            inv.key(suspects).arg(REQUEUE_BATCH);
            let (taken, requeued): (usize, u64) = self.invoke(&inv).await?;
            report.requeued += requeued;
            if taken < REQUEUE_BATCH {
                return Ok(());
            }
        }
    }

    /// The lists deep clean walks: `queue`, `processing`, `held` (a paused queue's), and each
    /// priority level in use.
    async fn list_names(&self) -> Result<Vec<String>> {
        let levels: Vec<String> = self
            .query(redis::cmd("ZRANGE").arg(&self.keys().prios).arg(0).arg(-1))
            .await?;
        let mut lists = vec![
            "queue".to_owned(),
            "processing".to_owned(),
            "held".to_owned(),
        ];
        lists.extend(levels);
        Ok(lists)
    }

    /// Step 2 for one batch of ids; returns how many became suspects.
    async fn deep_check(
        &self,
        snapshot: &str,
        suspects: &str,
        from_journal: bool,
        ids: &[Vec<u8>],
        report: &mut CleanReport,
    ) -> Result<u64> {
        if ids.is_empty() {
            return Ok(0);
        }
        let mut inv = self.invocation(&scripts::DEEP_CHECK);
        inv.key(snapshot)
            .key(&self.keys().cleaning)
            .key(suspects)
            .arg(if from_journal { "1" } else { "0" })
            .arg(SNAPSHOT_TTL_MS);
        for id in ids {
            inv.arg(id.as_slice());
        }
        let (marked, removed): (u64, u64) = self.invoke(&inv).await?;
        report.removed += removed;
        Ok(marked)
    }
}
