//! The logical queue's calls that name items by id (spec/PROTOCOL.md 5.25, "Reading the logical
//! queue"): an item lives in one partition, not always its id's (a group or dependencies can
//! take it elsewhere), so each call asks the id's own partition first, then the others at once.

use std::future::Future;

use futures_util::future::try_join_all;

use super::Partitioned;
use crate::conn::{Deadline, KeptWaits, Schedule, Verdict, Waiter, OUTCOME_CHECK};
use crate::error::Result;
use crate::item::validate_id_bytes;
use crate::job::{Job, JobResult, State};
use crate::lease::Wait;
use crate::ops::{Dependencies, Watch};
use crate::queue::Queue;

impl Partitioned {
    /// Asks the partition that `id` routes to, then, when it answers `None`, every other one at
    /// once; the first answer that is not `None`, in partition order.
    pub(super) async fn by_id<'a, T, F, Fut>(&'a self, id: &'a [u8], ask: F) -> Result<Option<T>>
    where
        F: Fn(&'a Queue) -> Fut,
        Fut: Future<Output = Result<Option<T>>>,
    {
        Ok(self.by_id_at(id, ask).await?.map(|(_, found)| found))
    }

    /// [`Partitioned::by_id`], with the index of the partition that answered.
    async fn by_id_at<'a, T, F, Fut>(&'a self, id: &'a [u8], ask: F) -> Result<Option<(usize, T)>>
    where
        F: Fn(&'a Queue) -> Fut,
        Fut: Future<Output = Result<Option<T>>>,
    {
        let home = self.partition_of_id(id);
        if let Some(found) = ask(&self.partitions[home]).await? {
            return Ok(Some((home, found)));
        }
        let others: Vec<usize> = (0..self.partitions.len()).filter(|&i| i != home).collect();
        let answers = try_join_all(others.iter().map(|&i| ask(&self.partitions[i]))).await?;
        Ok(others
            .into_iter()
            .zip(answers)
            .find_map(|(i, found)| Some((i, found?))))
    }

    /// Item `id` as [`Queue::get`] reads it, from whichever partition holds it: the id's own
    /// partition first, then the others at once. At most two round trips in sequence. The job
    /// says which partition holds it ([`Job::partition`]).
    pub async fn get(&self, id: impl AsRef<[u8]>) -> Result<Option<Job>> {
        let found = self.by_id_at(id.as_ref(), |q| q.get(id.as_ref())).await?;
        Ok(found.map(|(at, job)| Job {
            partition: Some(at),
            ..job
        }))
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
    /// until one holds a result, reading every partition's outcome each second meanwhile: the
    /// result [`Partitioned::result`] reads answers, unless a dead copy died after it and no
    /// partition holds a live copy ([`crate::Error::Dead`]). Errors that pass (an outage, a
    /// failover) are ridden through as a plain queue's wait does.
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
        let mut watch = Watch::default();
        let answer = loop {
            match self.read_results(id, &mut watch).await {
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
            // A death writes no result: each second, every partition's outcome is read again.
            let slice = deadline
                .left()
                .map_or(OUTCOME_CHECK, |l| l.min(OUTCOME_CHECK));
            match waiter.until_any_kept(&keys, Some(slice), &mut kept).await {
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

    /// What a wait for `id`'s result finds: every partition's outcome read at once, the id's own
    /// partition's first, and weighed by `watch` (spec 5.11, 5.25). An id is unique per
    /// partition only, so a dead copy in one partition does not end a wait for a live one in
    /// another, and a result in one hides no newer death in another.
    async fn read_results(&self, id: &[u8], watch: &mut Watch) -> Result<Option<JobResult>> {
        let mut outcomes = try_join_all(self.partitions.iter().map(|q| q.read_outcome(id))).await?;
        let home = self.partition_of_id(id);
        let own = outcomes.remove(home);
        outcomes.insert(0, own);
        watch.answer(outcomes)
    }

    /// Makes the delayed item `id` wait now ([`Queue::promote`]) in the partition that holds
    /// it: the id's own first, then the others at once (each that holds a delayed copy: an id is
    /// unique per partition only). `false` when no partition has it delayed. At most two round
    /// trips in sequence.
    pub async fn promote(&self, id: impl AsRef<[u8]>) -> Result<bool> {
        let id = id.as_ref();
        let found = self
            .by_id(
                id,
                |q| async move { Ok(q.promote(id).await?.then_some(())) },
            )
            .await?;
        Ok(found.is_some())
    }

    /// What item `id` waits for and what waits for it ([`Queue::dependencies`]), from the
    /// partition that holds it (an item and its dependencies share one, spec 5.25): the id's own
    /// first, then the others at once. Empty lists when no partition knows of any. At most two
    /// round trips in sequence.
    pub async fn dependencies(&self, id: impl AsRef<[u8]>) -> Result<Dependencies> {
        let id = id.as_ref();
        let found = self
            .by_id(id, |q| async move {
                let d = q.dependencies(id).await?;
                let known =
                    !d.depends_on.is_empty() || d.dependants_count > 0 || !d.pending.is_empty();
                Ok(known.then_some(d))
            })
            .await?;
        Ok(found.unwrap_or_default())
    }

    /// The kept results of the items `id` was added to wait for
    /// ([`Queue::dependency_results`]), from the partition that holds it, looked up as
    /// [`Partitioned::dependencies`] does. Empty when no partition knows `id`'s dependencies.
    pub async fn dependency_results(
        &self,
        id: impl AsRef<[u8]>,
    ) -> Result<Vec<(String, Option<Vec<u8>>)>> {
        let id = id.as_ref();
        let found = self
            .by_id(id, |q| async move {
                let r = q.dependency_results(id).await?;
                Ok((!r.is_empty()).then_some(r))
            })
            .await?;
        Ok(found.unwrap_or_default())
    }

    /// Puts these dead items back to waiting ([`Queue::dead_requeue`]), each in the partition
    /// that holds it; returns how many were requeued. Looked up as
    /// [`Partitioned::dead_requeue_each`] does.
    pub async fn dead_requeue<I: AsRef<[u8]>>(&self, ids: &[I]) -> Result<u64> {
        let done = self.dead_requeue_each(ids).await?;
        Ok(done.into_iter().filter(|&d| d).count() as u64)
    }

    /// Like [`Partitioned::dead_requeue`], saying for each id, in order, whether it was
    /// requeued ([`Queue::dead_requeue_each`]: false when it was not a dead letter; an id given
    /// twice is false the second time). At most 1000 ids, all checked before anything is sent.
    /// Every partition is asked for every id, at once (one round trip to each): a flow's dead
    /// letters live in their root's partition, not their ids', and are requeued there together,
    /// dependencies first, as in one queue; a dead copy in each partition is requeued, and the
    /// id is true once.
    pub async fn dead_requeue_each<I: AsRef<[u8]>>(&self, ids: &[I]) -> Result<Vec<bool>> {
        crate::policy::validate_ids(ids)?;
        let ids: Vec<&[u8]> = ids.iter().map(AsRef::as_ref).collect();
        let answers =
            try_join_all(self.partitions.iter().map(|q| q.dead_requeue_each(&ids))).await?;
        Ok((0..ids.len())
            .map(|i| answers.iter().any(|a| a.get(i) == Some(&true)))
            .collect())
    }
}
