//! The logical queue's reads and settings, fanned out over its partitions, concurrently and
//! one round trip each (spec/PROTOCOL.md 5.25, "Reading the logical queue").

use std::future::Future;

use futures_util::future::{join_all, try_join_all};

use super::Partitioned;
use crate::conn::{Deadline, KeptWaits, Schedule, Verdict, Waiter};
use crate::error::{Error, Result};
use crate::item::validate_id_bytes;
use crate::job::{Entry, Job, JobResult, Minute, State, Stats};
use crate::lease::Wait;
use crate::ops::QueueConfig;
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
    /// Asks the partition that `id` routes to, then, when it answers `None`, every other one at
    /// once; the first answer that is not `None`, in partition order.
    async fn by_id<'a, T, F, Fut>(&'a self, id: &'a [u8], ask: F) -> Result<Option<T>>
    where
        F: Fn(&'a Queue) -> Fut,
        Fut: Future<Output = Result<Option<T>>>,
    {
        let home = self.partition_of_id(id);
        if let Some(found) = ask(&self.partitions[home]).await? {
            return Ok(Some(found));
        }
        let others = self
            .partitions
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != home)
            .map(|(_, q)| ask(q));
        Ok(try_join_all(others).await?.into_iter().flatten().next())
    }

    /// Runs `each` on every partition at once; the answers in partition order.
    async fn each<'a, T, F, Fut>(&'a self, each: F) -> Result<Vec<T>>
    where
        F: Fn(&'a Queue) -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        try_join_all(self.partitions.iter().map(each)).await
    }

    /// Item `id` as [`Queue::get`] reads it, from whichever partition holds it: the id's own
    /// partition first, then the others at once. At most two round trips in sequence.
    pub async fn get(&self, id: impl AsRef<[u8]>) -> Result<Option<Job>> {
        self.by_id(id.as_ref(), |q| q.get(id.as_ref())).await
    }

    /// Cancels item `id` ([`Queue::cancel`]) where it is: the id's own partition first, then
    /// the others at once. Returns the state it was in, or `None` when no partition had it.
    pub async fn cancel(&self, id: impl AsRef<[u8]>) -> Result<Option<State>> {
        self.by_id(id.as_ref(), |q| q.cancel(id.as_ref())).await
    }

    /// The result kept for item `id` ([`Queue::result`]), looked up as [`Partitioned::get`]
    /// does.
    pub async fn result(&self, id: impl AsRef<[u8]>) -> Result<Option<JobResult>> {
        self.by_id(id.as_ref(), |q| q.result(id.as_ref())).await
    }

    /// Waits for item `id`'s result ([`Queue::wait_result`]: the same `wait`, and `None` when
    /// it ends first) where the item is: looked up in every partition at once first (one
    /// round trip, read-only), then waited for there, for what is left of the time. An id found
    /// in no partition (not added yet, or finished without a kept result), or in several, is
    /// waited for in every partition at once: each partition's result read (at once), then a
    /// server-side wait on each one's result key, kept between slices (a connection each),
    /// until one holds a result. Errors that pass (an outage, a failover) are ridden through
    /// as a plain queue's wait does.
    pub async fn wait_result(
        &self,
        id: impl AsRef<[u8]>,
        wait: impl Into<Wait>,
    ) -> Result<Option<JobResult>> {
        let (id, wait) = (id.as_ref(), wait.into());
        validate_id_bytes(id)?;
        let deadline = Deadline::of(wait)?;
        if self.count() == 1 {
            return self.partitions[0].wait_result(id, wait).await;
        }
        let found = self.holding(id).await?;
        if let [at] = found.as_slice() {
            let left = match deadline.left() {
                None => Wait::Forever,
                Some(d) if d.is_zero() => Wait::No,
                Some(d) => Wait::Timeout(d),
            };
            return self.partitions[*at].wait_result(id, left).await;
        }
        let keys: Vec<Vec<u8>> = self.partitions.iter().map(|q| q.result_key(id)).collect();
        let mut waiter = Waiter::new(
            self.partitions[0].handle(),
            &self.base,
            deadline,
            Schedule::RESULT_READ,
        );
        let mut kept = KeptWaits::default();
        let answer = loop {
            match self.read_results(id, &keys).await {
                Ok(Some(result)) => break Ok(Some(result)),
                Ok(None) => waiter.worked(),
                Err(e) if Verdict::of(&e) != Verdict::Final => match waiter.pause().await {
                    Ok(()) if !deadline.passed() => continue,
                    Ok(()) => break Ok(None),
                    Err(e) => break Err(e),
                },
                Err(e) => break Err(e),
            }
            if deadline.passed() {
                break Ok(None);
            }
            match waiter
                .until_any_kept(&keys, deadline.left(), &mut kept)
                .await
            {
                Ok(_) => {}
                // Over maxmemory (BLMOVE refused), an outage: read again after a pause.
                Err(e) if Verdict::of(&e) != Verdict::Final => {
                    if let Err(e) = waiter.pause().await {
                        break Err(e);
                    }
                }
                Err(e) => break Err(e),
            }
        };
        kept.shutdown().await;
        answer
    }

    /// The result kept under `keys` (a result key per partition), read at once: the one in
    /// `id`'s own partition first, else the first in partition order, as [`Partitioned::result`]
    /// answers.
    async fn read_results(&self, id: &[u8], keys: &[Vec<u8>]) -> Result<Option<JobResult>> {
        let mut read = try_join_all(
            self.partitions
                .iter()
                .zip(keys)
                .map(|(q, key)| q.read_result(key)),
        )
        .await?;
        let home = self.partition_of_id(id);
        Ok(read[home]
            .take()
            .or_else(|| read.into_iter().flatten().next()))
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

    /// Up to `count` items in `state` from position `start` of the logical queue, which lists
    /// partition 0's items, then partition 1's, and so on (no order by time across partitions).
    /// Reads every partition's count first (at once), then the pages it needs.
    pub async fn list(&self, state: State, start: usize, count: usize) -> Result<Vec<Entry>> {
        // Checked here too: a page that needs no partition's list would not check it.
        if count == 0 || count > crate::policy::MAX_PAGE {
            return Err(Error::invalid(
                "count",
                format!("must be 1 to {}", crate::policy::MAX_PAGE),
            ));
        }
        let counts = self.each(|q| q.count(state)).await?;
        let mut skip = start as u64;
        let mut out = Vec::new();
        for (queue, n) in self.partitions.iter().zip(counts) {
            if out.len() >= count {
                break;
            }
            if skip >= n {
                skip -= n;
                continue;
            }
            let page = queue.list(state, skip as usize, count - out.len()).await?;
            skip = 0;
            out.extend(page);
        }
        Ok(out)
    }

    /// Requeues up to `n` of the oldest dead letters of each partition (all when `None`),
    /// [`Queue::dead_requeue_oldest`]; returns how many, summed.
    pub async fn dead_requeue_oldest(&self, n: Option<u64>) -> Result<u64> {
        Ok(self
            .each(|q| q.dead_requeue_oldest(n))
            .await?
            .into_iter()
            .sum())
    }

    /// Purges up to `n` of the oldest dead letters of each partition (all when `None`),
    /// [`Queue::dead_purge`]; returns how many, summed.
    pub async fn dead_purge(&self, n: Option<u64>) -> Result<u64> {
        Ok(self.each(|q| q.dead_purge(n)).await?.into_iter().sum())
    }

    /// Pauses every partition ([`Queue::pause`]); true when any was not paused.
    pub async fn pause(&self) -> Result<bool> {
        Ok(self.each(Queue::pause).await?.into_iter().any(|b| b))
    }

    /// Resumes every partition ([`Queue::resume`]); true when any was paused.
    pub async fn resume(&self) -> Result<bool> {
        Ok(self.each(Queue::resume).await?.into_iter().any(|b| b))
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
