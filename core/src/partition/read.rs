//! The logical queue's reads and settings, fanned out over its partitions, concurrently and
//! one round trip each (spec/PROTOCOL.md 5.25, "Reading the logical queue").

use std::future::Future;
use std::time::Duration;

use futures_util::future::{join_all, try_join_all};

use super::Partitioned;
use crate::error::{Error, Result};
use crate::job::{Entry, Found, Minute, State, Stats};
use crate::ops::{CleanReport, NameCounts, QueueConfig};
use crate::queue::Queue;

/// A partitioned queue's figures ([`Partitioned::stats`]): the logical queue's, and each
/// partition's own.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PartitionedStats {
    /// The logical queue: counts summed; the oldest waiting item's age and `now` the largest;
    /// paused when every partition is; a capacity (summed) only when every partition has one;
    /// counters summed minute by minute (`None` unless every partition counts); rate limited
    /// for the longest hold.
    pub total: Stats,
    /// Partition `i`'s figures at index `i`.
    pub partitions: Vec<Stats>,
}

impl Partitioned {
    /// Runs `each` on every partition at once; the answers in partition order.
    pub(super) async fn each<'a, T, F, Fut>(&'a self, each: F) -> Result<Vec<T>>
    where
        F: Fn(&'a Queue) -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        try_join_all(self.partitions.iter().map(each)).await
    }

    /// The logical queue's figures and each partition's, read from every partition at once.
    pub async fn stats(&self) -> Result<PartitionedStats> {
        let partitions = self.each(Queue::stats).await?;
        Ok(PartitionedStats {
            total: sum_stats(&partitions),
            partitions,
        })
    }

    /// How many items are in `state`, summed over the partitions ([`Queue::count`]).
    pub async fn count_in(&self, state: State) -> Result<u64> {
        Ok(self.each(|q| q.count(state)).await?.into_iter().sum())
    }

    /// The items in `state` at the `count` positions from position `start` of the logical
    /// queue, which numbers partition 0's positions, then partition 1's, and so on (no order
    /// by time across partitions). Reads every partition's count first (at once), then the pages
    /// it needs. As a partition's own list, it skips a cancelled item's stale id and an expired
    /// result (their positions still count), so a page may hold fewer than `count`.
    pub async fn list(&self, state: State, start: usize, count: usize) -> Result<Vec<Entry>> {
        // Checked here too: a page that needs no partition's list would not check it.
        crate::policy::validate_page(count)?;
        let counts = self.each(|q| q.listed(state)).await?;
        let mut skip = start as u64;
        // Positions still to cover: a partition's page covers its positions, whatever it
        // skipped, so that the next page of the logical queue starts where this one ended.
        let mut left = count as u64;
        let mut out = Vec::new();
        for (i, (queue, n)) in self.partitions.iter().zip(counts).enumerate() {
            if left == 0 {
                break;
            }
            if skip >= n {
                skip -= n;
                continue;
            }
            let want = left.min(n - skip);
            let page = queue.list(state, skip as usize, want as usize).await?;
            left -= want;
            skip = 0;
            out.extend(in_partition(page, i));
        }
        Ok(out)
    }

    /// The entries of `state` whose name is `name` and whose last error's type is `error_type`
    /// ([`Queue::find`]: `None`, any; at most `count`, 1 to 1000, matches from at most 1000
    /// positions), over the logical queue's positions as [`Partitioned::list`] numbers them
    /// (partition 0's, then partition 1's, and so on). One call looks in one partition, the one
    /// that holds position `start`, after reading every partition's count (at once): its
    /// [`Found::next`] goes on in that partition, or at the next partition's first position once
    /// it reached the end of this one (`None` after the last). Two round trips.
    pub async fn find(
        &self,
        state: State,
        name: Option<&str>,
        error_type: Option<&str>,
        start: usize,
        count: usize,
    ) -> Result<Found> {
        // Checked here too: a start past the end asks no partition.
        crate::policy::validate_page(count)?;
        if self.count() == 1 {
            let mut found = self.partitions[0]
                .find(state, name, error_type, start, count)
                .await?;
            found.entries = in_partition(found.entries, 0);
            return Ok(found);
        }
        let counts = self.each(|q| q.listed(state)).await?;
        let mut first = 0usize;
        for (i, (queue, &n)) in self.partitions.iter().zip(&counts).enumerate() {
            let n = n as usize;
            if start >= first + n {
                first += n;
                continue;
            }
            let mut found = queue
                .find(state, name, error_type, start - first, count)
                .await?;
            found.entries = in_partition(found.entries, i);
            found.next = match found.next {
                Some(at) => Some(first + at),
                // This partition is done: the next one's first position, if any has entries.
                None => counts[i + 1..].iter().any(|&m| m > 0).then_some(first + n),
            };
            return Ok(found);
        }
        Ok(Found::default())
    }

    /// Requeues the `n` oldest dead letters of the logical queue, by time of death over every
    /// partition (all of every partition when `None`), [`Queue::dead_requeue_oldest`]; returns
    /// how many. Per 1000: every partition's oldest times of death read at once, then each
    /// partition asked to requeue its share of the oldest, at once (two round trips). Each
    /// partition takes its own oldest then: with other clients dead-lettering or requeuing
    /// meanwhile, the count is right and the choice near enough.
    pub async fn dead_requeue_oldest(&self, n: Option<u64>) -> Result<u64> {
        self.oldest_dead(n, |q, k| q.dead_requeue_oldest(k)).await
    }

    /// Purges the `n` oldest dead letters of the logical queue (all when `None`), chosen as
    /// [`Partitioned::dead_requeue_oldest`] chooses them, [`Queue::dead_purge`]; returns how
    /// many.
    pub async fn dead_purge(&self, n: Option<u64>) -> Result<u64> {
        self.oldest_dead(n, |q, k| q.dead_purge(k)).await
    }

    /// Runs `act` (a partition's oldest-dead-letters call) for the `n` oldest dead letters of
    /// the logical queue: each partition's share, by time of death.
    async fn oldest_dead<'a, F, Fut>(&'a self, n: Option<u64>, act: F) -> Result<u64>
    where
        F: Fn(&'a Queue, Option<u64>) -> Fut,
        Fut: Future<Output = Result<u64>>,
    {
        let Some(n) = n else {
            return Ok(self.each(|q| act(q, None)).await?.into_iter().sum());
        };
        if self.count() == 1 {
            return act(&self.partitions[0], Some(n)).await;
        }
        let mut done = 0u64;
        while done < n {
            let want = (n - done).min(crate::policy::MAX_PAGE as u64) as usize;
            // Each partition's `want` oldest times of death (`P:dead`'s scores): ids and times
            // only, a read.
            let pages = self.each(|q| oldest_deaths(q, want)).await?;
            let mut oldest: Vec<(u64, usize)> = pages
                .iter()
                .enumerate()
                .flat_map(|(i, page)| page.iter().map(move |&at| (at, i)))
                .collect();
            oldest.sort_unstable();
            oldest.truncate(want);
            if oldest.is_empty() {
                break;
            }
            let mut share = vec![0u64; self.count()];
            for &(_, i) in &oldest {
                share[i] += 1;
            }
            let acted: u64 = try_join_all(
                self.partitions
                    .iter()
                    .zip(&share)
                    .filter(|(_, &k)| k > 0)
                    .map(|(q, &k)| act(q, Some(k))),
            )
            .await?
            .into_iter()
            .sum();
            done += acted;
            // Fewer than asked for: no dead letter is left (or another client took some
            // meanwhile); the next round would only meet letters that died since.
            if acted < want as u64 {
                break;
            }
        }
        Ok(done)
    }

    /// Pauses every partition ([`Queue::pause`]); true when any was not paused.
    pub async fn pause(&self) -> Result<bool> {
        Ok(self.each(Queue::pause).await?.into_iter().any(|b| b))
    }

    /// Resumes every partition ([`Queue::resume`]); true when any was paused.
    pub async fn resume(&self) -> Result<bool> {
        Ok(self.each(Queue::resume).await?.into_iter().any(|b| b))
    }

    /// Whether any partition exists ([`Queue::exists`]: any of its fixed keys does). False for
    /// a partitioned queue created and never used, whose layout is all there is. One round
    /// trip to every partition at once.
    pub async fn exists(&self) -> Result<bool> {
        Ok(self.each(Queue::exists).await?.into_iter().any(|b| b))
    }

    /// The waiting ids of every partition's redis-work-queue list ([`Queue::queue_len`]),
    /// summed. One round trip to every partition at once.
    pub async fn queue_len(&self) -> Result<u64> {
        Ok(self.each(Queue::queue_len).await?.into_iter().sum())
    }

    /// The ids in every partition's redis-work-queue processing list
    /// ([`Queue::processing_len`]), summed. One round trip to every partition at once.
    pub async fn processing_len(&self) -> Result<u64> {
        Ok(self.each(Queue::processing_len).await?.into_iter().sum())
    }

    /// Whether the logical queue is paused: every partition is ([`Queue::is_paused`]; as
    /// [`PartitionedStats::total`] says). One round trip to every partition at once.
    pub async fn is_paused(&self) -> Result<bool> {
        Ok(self.each(Queue::is_paused).await?.into_iter().all(|b| b))
    }

    /// Holds every partition's leases off for `duration` ([`Queue::rate_limit`]: more than 0,
    /// at most one day, checked before anything is sent): a handler was told "rate limited",
    /// and the limit is the logical queue's. A longer hold already in place in a partition is
    /// kept there. Returns the longest hold now in place, as [`PartitionedStats::total`]'s
    /// `rate_limited_for` reads it. One round trip to every partition at once.
    pub async fn rate_limit(&self, duration: Duration) -> Result<Duration> {
        crate::policy::validate_hold(duration)?;
        let held = self.each(|q| q.rate_limit(duration)).await?;
        Ok(held.into_iter().max().unwrap_or_default())
    }

    /// The logical queue's configuration ([`Queue::config`]): partition 0's, which
    /// [`Partitioned::set_config`] writes to every partition alike (read a partition's own with
    /// [`Partitioned::partition`] when one was set alone). One round trip.
    pub async fn config(&self) -> Result<QueueConfig> {
        self.partitions[0].config().await
    }

    /// For each item name met in the last 60 minutes, its jobs completed, failed and died
    /// ([`Queue::counts_by_name`]), summed over the partitions, sorted by name (at most 1000).
    /// `None` when no partition counts ([`QueueConfig::stats`] off). One round trip to every
    /// partition at once.
    pub async fn counts_by_name(&self) -> Result<Option<Vec<NameCounts>>> {
        let parts = self.each(Queue::counts_by_name).await?;
        if parts.iter().all(Option::is_none) {
            return Ok(None);
        }
        let mut total: std::collections::BTreeMap<String, NameCounts> = Default::default();
        for counts in parts.into_iter().flatten().flatten() {
            match total.get_mut(&counts.name) {
                Some(t) => {
                    t.completed += counts.completed;
                    t.failed += counts.failed;
                    t.dead += counts.dead;
                }
                None => {
                    total.insert(counts.name.clone(), counts);
                }
            }
        }
        Ok(Some(
            total.into_values().take(crate::policy::MAX_PAGE).collect(),
        ))
    }

    /// A light clean of every partition ([`Queue::light_clean`]), all at once; the reports
    /// summed.
    pub async fn light_clean(&self) -> Result<CleanReport> {
        let mut total = CleanReport::default();
        for report in self.each(Queue::light_clean).await? {
            total += report;
        }
        Ok(total)
    }

    /// A deep clean of every partition ([`Queue::deep_clean`]), one partition after another
    /// (each walks its node's keys: run it rarely); the reports summed.
    pub async fn deep_clean(&self) -> Result<CleanReport> {
        let mut total = CleanReport::default();
        for q in self.partitions.iter() {
            total += q.deep_clean().await?;
        }
        Ok(total)
    }

    /// Removes every partition's stored configuration ([`Queue::reset_config`]). One round
    /// trip to every partition at once.
    pub async fn reset_config(&self) -> Result<()> {
        self.each(Queue::reset_config).await?;
        Ok(())
    }

    /// Stores `config` in every partition ([`Queue::set_config`]): limits (capacity, rate
    /// limits) then hold per partition. Every field is checked first, and a `capacity` below
    /// what a partition holds (its waiting and delayed items) is refused naming that partition
    /// before anything is written (two more round trips to each partition, all at once). A
    /// partition that fills past the capacity between that check and its write refuses alone,
    /// as [`Queue::set_config`] does; the error names it, and the others keep the new
    /// settings.
    pub async fn set_config(&self, config: &QueueConfig) -> Result<()> {
        config.fields()?;
        if let Some(capacity) = config.capacity {
            let held = self
                .each(|q| async move {
                    let (waiting, delayed) =
                        tokio::try_join!(q.count(State::Waiting), q.count(State::Delayed))?;
                    Ok(waiting + delayed)
                })
                .await?;
            if let Some((i, size)) = held.iter().enumerate().find(|(_, &n)| n > capacity) {
                return Err(below(i, *size));
            }
        }
        let results = join_all(self.partitions.iter().map(|q| q.set_config(config))).await;
        for (i, result) in results.into_iter().enumerate() {
            match result {
                Err(Error::InvalidArgument {
                    argument: "capacity",
                    reason,
                }) => {
                    return Err(Error::invalid(
                        "capacity",
                        format!("in partition {i}: {reason}"),
                    ))
                }
                other => other?,
            }
        }
        Ok(())
    }
}

/// The times of death of `q`'s `n` oldest dead letters, oldest first: one `ZRANGE ... WITHSCORES`
/// of `P:dead` (spec/PROTOCOL.md 5.25, dead letters), a read.
async fn oldest_deaths(q: &Queue, n: usize) -> Result<Vec<u64>> {
    let mut cmd = redis::cmd("ZRANGE");
    cmd.arg(format!("{}:dead", q.prefix()))
        .arg(0)
        .arg(n.saturating_sub(1))
        .arg("WITHSCORES");
    let pairs: Vec<(Vec<u8>, f64)> = q.query(&cmd).await?;
    Ok(pairs
        .into_iter()
        .map(|(_, at)| at.max(0.0) as u64)
        .collect())
}

/// The refusal of a capacity below what partition `i` holds.
fn below(i: usize, size: u64) -> Error {
    Error::invalid(
        "capacity",
        format!(
            "is below the {size} items partition {i} holds (waiting and delayed); a capacity \
             holds per partition; nothing was written"
        ),
    )
}

/// The logical queue's figures from its partitions' (never empty).
fn sum_stats(parts: &[Stats]) -> Stats {
    let mut total = parts[0].clone();
    for s in &parts[1..] {
        total.waiting += s.waiting;
        total.delayed += s.delayed;
        total.leased += s.leased;
        total.dead += s.dead;
        total.processing += s.processing;
        total.blocked += s.blocked;
        total.schedules += s.schedules;
        total.now = total.now.max(s.now);
        total.oldest_waiting = total.oldest_waiting.max(s.oldest_waiting);
        total.paused &= s.paused;
        total.capacity = total.capacity.zip(s.capacity).map(|(a, b)| a + b);
        total.rate_limited_for = total.rate_limited_for.max(s.rate_limited_for);
        total.minutes = match (total.minutes.take(), &s.minutes) {
            (Some(a), Some(b)) if a.len() == b.len() => Some(
                a.iter()
                    .zip(b)
                    .map(|(x, y)| Minute {
                        completed: x.completed + y.completed,
                        failed: x.failed + y.failed,
                        dead: x.dead + y.dead,
                        expired: x.expired + y.expired,
                    })
                    .collect(),
            ),
            _ => None,
        };
    }
    total
}

/// `entries`, each marked as listed from partition `i` ([`Entry::partition`]).
fn in_partition(entries: Vec<Entry>, i: usize) -> Vec<Entry> {
    entries
        .into_iter()
        .map(|e| Entry {
            partition: Some(i),
            ..e
        })
        .collect()
}
