//! `NativePartitioned`: the core's partitioned queue (spec/PROTOCOL.md 5.25) as async methods,
//! a thin skin like `NativeQueue`; `lib/partitioned.js` wraps it as `PartitionedQueue`.

use leaseq::{policy, Partitioned, State};
use napi::bindgen_prelude::{Buffer, ClassInstance, PromiseRaw};
use napi::Env;
use napi_derive::napi;

use crate::convert::{count, integer, millis, opt_millis, retry, ttl, wait};
use crate::error::to_napi;
use crate::item::NativeItem;
use crate::job::{
    ConfigParts, EntryParts, FoundParts, GroupParts, JobParts, NameCountsParts, ResultParts,
    StatsParts,
};
use crate::lease::{LeasedParts, NativeLease};
use crate::queue::{
    borrow_completion, borrow_failure, completions, dependency_results, fail_name, flows,
    name_counts, opt_n, owned_failures, owned_leases, state, CleanParts, DependenciesParts,
    DependencyResultParts, FailureParts, NativeQueue,
};
use crate::schedule::{FireReportParts, ScheduleInfoParts, SchedulePageParts, ScheduleParts};

/// A partitioned queue's figures: the logical queue's, and each partition's own.
#[napi(object, object_from_js = false)]
pub struct PartitionedStatsParts {
    /// The logical queue's figures.
    pub total: StatsParts,
    /// Partition `i`'s figures at index `i`.
    pub partitions: Vec<StatsParts>,
}

/// One logical queue stored as partitions; `lib/partitioned.js` wraps it as `PartitionedQueue`.
#[napi]
pub struct NativePartitioned {
    inner: Partitioned,
}

impl NativePartitioned {
    pub(crate) fn new(inner: Partitioned) -> NativePartitioned {
        NativePartitioned { inner }
    }

    /// The core's partitioned queue (for a `Worker` over it).
    pub(crate) fn inner(&self) -> &Partitioned {
        &self.inner
    }
}

#[napi]
impl NativePartitioned {
    /// The base that names the logical queue.
    #[napi(getter)]
    pub fn base(&self) -> String {
        self.inner.base().to_owned()
    }

    /// The partitions' prefixes, in order.
    #[napi(getter)]
    pub fn partitions(&self) -> Vec<String> {
        self.inner
            .partitions()
            .iter()
            .map(|q| q.prefix().to_owned())
            .collect()
    }

    /// The partitions as queues, in order (for a `Worker` over them).
    #[napi]
    pub fn partition_queues(&self) -> Vec<NativeQueue> {
        self.inner
            .partitions()
            .iter()
            .cloned()
            .map(NativeQueue::new)
            .collect()
    }

    /// Partition `i` as a queue (for what only a queue offers); sends nothing. An index out of
    /// range is refused naming `partition` (the core's check).
    #[napi]
    pub fn partition(&self, i: f64) -> napi::Result<NativeQueue> {
        let i: usize = integer("partition", i)?;
        let queue = self.inner.partition(i).map_err(to_napi)?;
        Ok(NativeQueue::new(queue.clone()))
    }

    /// The index of the partition `item` goes to (by its group, else its first dependency,
    /// else its id); sends nothing.
    #[napi]
    pub fn partition_of(&self, item: &NativeItem) -> napi::Result<u32> {
        // At most 64 partitions (the core's bound).
        Ok(self.inner.partition_of(&item.inner).map_err(to_napi)? as u32)
    }

    /// The partition that issued `lease`, as a queue; refuses a lease of another queue
    /// (argument `lease`). Sends nothing.
    #[napi]
    pub fn queue_of(&self, lease: &NativeLease) -> napi::Result<NativeQueue> {
        let queue = self.inner.queue_of(&lease.inner).map_err(to_napi)?;
        Ok(NativeQueue::new(queue.clone()))
    }

    /// Adds `item` to its partition unless an item with its id exists there. In a full bounded
    /// partition it waits up to `timeout_ms` for room (absent: not at all; `Infinity`: no
    /// limit), as `NativeQueue::add`.
    #[napi]
    pub async fn add(&self, item: &NativeItem, timeout_ms: Option<f64>) -> napi::Result<bool> {
        let wait = wait(None, timeout_ms)?;
        self.inner
            .add_wait(&item.inner, wait)
            .await
            .map_err(to_napi)
    }

    /// Adds an item to its partition (routed as `add` routes it) without checking whether its
    /// id exists there.
    #[napi]
    pub async fn add_unique(&self, item: &NativeItem) -> napi::Result<()> {
        self.inner.add_unique(&item.inner).await.map_err(to_napi)
    }

    /// Adds every item whose id does not exist yet in its partition; how many were added. Each
    /// partition's share waits up to `timeout_ms` for room as `add` does. (Not an `async fn`:
    /// those cannot take a list of class instances, as `NativeQueue::add_batch`.)
    #[napi(ts_return_type = "Promise<number>")]
    pub fn add_batch<'env>(
        &self,
        env: &'env Env,
        items: Vec<ClassInstance<'env, NativeItem>>,
        timeout_ms: Option<f64>,
    ) -> napi::Result<PromiseRaw<'env, i64>> {
        let wait = wait(None, timeout_ms)?;
        let items: Vec<leaseq::Item> = items.iter().map(|i| i.inner.clone()).collect();
        let queue = self.inner.clone();
        env.spawn_future(async move {
            let added = queue.add_batch_wait(&items, wait).await.map_err(to_napi)?;
            Ok(count(added as u64))
        })
    }

    /// Adds `parent` and its children, every item of the flow to the partition of `parent` (by
    /// its group, else its id); the arguments are `NativeQueue::add_flow`'s. How many were
    /// added. (Hand-spawned, as `add_batch`.)
    #[napi(ts_return_type = "Promise<number>")]
    pub fn add_flow<'env>(
        &self,
        env: &'env Env,
        parent: ClassInstance<'env, NativeItem>,
        items: Vec<ClassInstance<'env, NativeItem>>,
        parents: Vec<i64>,
    ) -> napi::Result<PromiseRaw<'env, i64>> {
        let parent = parent.inner.clone();
        let children = flows(items.iter().map(|i| i.inner.clone()).collect(), parents)?;
        let queue = self.inner.clone();
        env.spawn_future(async move {
            let added = queue.add_flow(&parent, &children).await.map_err(to_napi)?;
            Ok(count(added as u64))
        })
    }

    /// Leases one item from any partition, asked in a rotating order, waiting up to
    /// `timeout_ms` (default: not at all) on every partition at once.
    #[napi]
    pub async fn lease(
        &self,
        ttl_ms: Option<f64>,
        timeout_ms: Option<f64>,
    ) -> napi::Result<Option<LeasedParts>> {
        let ttl = ttl(ttl_ms)?;
        let wait = wait(None, timeout_ms)?;
        let lease = self.inner.lease(ttl, wait).await.map_err(to_napi)?;
        Ok(lease.map(LeasedParts::from))
    }

    /// Leases up to `n` items from as many partitions as it takes.
    #[napi]
    pub async fn lease_batch(
        &self,
        n: f64,
        ttl_ms: Option<f64>,
        timeout_ms: Option<f64>,
    ) -> napi::Result<Vec<LeasedParts>> {
        let n: usize = integer("n", n)?;
        let ttl = ttl(ttl_ms)?;
        let wait = wait(None, timeout_ms)?;
        let leases = self
            .inner
            .lease_batch(n, ttl, wait)
            .await
            .map_err(to_napi)?;
        Ok(leases.into_iter().map(LeasedParts::from).collect())
    }

    /// Completes `lease` in its own partition, keeping `result` if given.
    #[napi]
    pub async fn complete(
        &self,
        lease: &NativeLease,
        result: Option<Buffer>,
        keep_result_for_ms: Option<f64>,
    ) -> napi::Result<bool> {
        let keep = opt_millis("keepResultForMs", keep_result_for_ms)?;
        if result.is_none() && keep.is_none() {
            return self.inner.complete(&lease.inner).await.map_err(to_napi);
        }
        self.inner
            .queue_of(&lease.inner)
            .map_err(to_napi)?
            .complete_with_result(&lease.inner, result.as_deref(), keep)
            .await
            .map_err(to_napi)
    }

    /// Records a failed attempt of `lease` in its own partition (and its trace, if any); the
    /// arguments and the answer are `NativeQueue::fail`'s.
    #[napi]
    pub async fn fail(
        &self,
        lease: &NativeLease,
        error: String,
        error_type: Option<String>,
        retry_mode: Option<String>,
        retry_after_ms: Option<f64>,
        trace: Option<String>,
    ) -> napi::Result<&'static str> {
        let retry = retry(retry_mode, retry_after_ms)?;
        let outcome = self
            .inner
            .fail_with_trace(
                &lease.inner,
                &error,
                error_type.as_deref().unwrap_or_default(),
                retry,
                trace.as_deref(),
            )
            .await
            .map_err(to_napi)?;
        Ok(fail_name(outcome))
    }

    /// Completes many leases, each in its own partition (one call per partition touched, sent
    /// at once), with its result (if any) and keep time; whether each completed its item, in
    /// order. The arguments are `NativeQueue::complete_batch`'s. (Hand-spawned, as `add_batch`.)
    #[napi(ts_return_type = "Promise<Array<boolean>>")]
    pub fn complete_batch<'env>(
        &self,
        env: &'env Env,
        leases: Vec<ClassInstance<'env, NativeLease>>,
        results: Vec<Option<&[u8]>>,
        keep_result_for_ms: Vec<Option<f64>>,
    ) -> napi::Result<PromiseRaw<'env, Vec<bool>>> {
        let owned = completions(leases, results, keep_result_for_ms)?;
        let queue = self.inner.clone();
        env.spawn_future(async move {
            let list: Vec<leaseq::Completion<'_>> = owned.iter().map(borrow_completion).collect();
            queue.complete_batch(&list).await.map_err(to_napi)
        })
    }

    /// Extends many leases, each in its own partition, as `complete_batch` sends them; each
    /// one's outcome, in order.
    #[napi(ts_return_type = "Promise<Array<string>>")]
    pub fn renew_batch<'env>(
        &self,
        env: &'env Env,
        leases: Vec<ClassInstance<'env, NativeLease>>,
        ttl_ms: Option<f64>,
    ) -> napi::Result<PromiseRaw<'env, Vec<&'static str>>> {
        let leases = owned_leases(&leases);
        let ttl = ttl(ttl_ms)?;
        let queue = self.inner.clone();
        env.spawn_future(async move {
            let refs: Vec<&leaseq::Lease> = leases.iter().collect();
            let outcomes = queue.renew_batch(&refs, ttl).await.map_err(to_napi)?;
            Ok(outcomes.into_iter().map(|o| o.as_str()).collect())
        })
    }

    /// Fails many leases, each in its own partition, as `complete_batch` sends them; the
    /// outcomes, in order. The arguments are `NativeQueue::fail_batch`'s.
    #[napi(ts_return_type = "Promise<Array<string>>")]
    pub fn fail_batch<'env>(
        &self,
        env: &'env Env,
        failures: Vec<FailureParts>,
        leases: Vec<ClassInstance<'env, NativeLease>>,
    ) -> napi::Result<PromiseRaw<'env, Vec<&'static str>>> {
        let owned = owned_failures(failures, leases)?;
        let queue = self.inner.clone();
        env.spawn_future(async move {
            let list: Vec<leaseq::Failure<'_>> = owned.iter().map(borrow_failure).collect();
            let outcomes = queue.fail_batch_with_traces(&list).await.map_err(to_napi)?;
            Ok(outcomes.into_iter().map(fail_name).collect())
        })
    }

    /// Item `id` (its bytes) from whichever partition holds it.
    #[napi]
    pub async fn get(&self, id: Buffer) -> napi::Result<Option<JobParts>> {
        let job = self.inner.get(&id[..]).await.map_err(to_napi)?;
        Ok(job.map(JobParts::from))
    }

    /// Cancels item `id` in whichever partition holds it; the state it was in, or null.
    #[napi]
    pub async fn cancel(&self, id: Buffer) -> napi::Result<Option<&'static str>> {
        let was = self.inner.cancel(&id[..]).await.map_err(to_napi)?;
        Ok(was.map(State::as_str))
    }

    /// The result kept for item `id`, or null.
    #[napi]
    pub async fn result(&self, id: Buffer) -> napi::Result<Option<ResultParts>> {
        let result = self.inner.result(&id[..]).await.map_err(to_napi)?;
        Ok(result.map(ResultParts::from))
    }

    /// Makes the delayed item `id` (its bytes) wait now, in whichever partition holds it;
    /// whether it was delayed.
    #[napi]
    pub async fn promote(&self, id: Buffer) -> napi::Result<bool> {
        self.inner.promote(&id[..]).await.map_err(to_napi)
    }

    /// What item `id` waits for, and how many blocked items wait for it, from whichever
    /// partition holds it.
    #[napi]
    pub async fn dependencies(&self, id: Buffer) -> napi::Result<DependenciesParts> {
        let d = self.inner.dependencies(&id[..]).await.map_err(to_napi)?;
        Ok(d.into())
    }

    /// The kept results of item `id`'s dependencies, in order, from whichever partition holds
    /// it.
    #[napi]
    pub async fn dependency_results(&self, id: Buffer) -> napi::Result<Vec<DependencyResultParts>> {
        let results = self
            .inner
            .dependency_results(&id[..])
            .await
            .map_err(to_napi)?;
        Ok(dependency_results(results))
    }

    /// Waits up to `timeout_ms` (`Infinity`: until it comes or the client closes) for item
    /// `id`'s result, where the item is.
    #[napi]
    pub async fn wait_result(
        &self,
        id: Buffer,
        timeout_ms: f64,
    ) -> napi::Result<Option<ResultParts>> {
        let wait = wait(None, Some(timeout_ms))?;
        let result = self
            .inner
            .wait_result(&id[..], wait)
            .await
            .map_err(to_napi)?;
        Ok(result.map(ResultParts::from))
    }

    /// Pauses group `group` in its partition; whether it was running.
    #[napi]
    pub async fn pause_group(&self, group: String) -> napi::Result<bool> {
        self.inner.pause_group(&group).await.map_err(to_napi)
    }

    /// Resumes group `group` in its partition; whether it was paused.
    #[napi]
    pub async fn resume_group(&self, group: String) -> napi::Result<bool> {
        self.inner.resume_group(&group).await.map_err(to_napi)
    }

    /// Sets group `group`'s limit in its partition; absent: the queue's `groupConcurrency`.
    #[napi]
    pub async fn set_group_limit(&self, group: String, limit: Option<f64>) -> napi::Result<()> {
        let limit = limit.map(|n| integer("limit", n)).transpose()?;
        self.inner
            .set_group_limit(&group, limit)
            .await
            .map_err(to_napi)
    }

    /// Holds group `group`'s leases off for `duration_ms` in its partition; how long, in ms.
    #[napi]
    pub async fn rate_limit_group(&self, group: String, duration_ms: f64) -> napi::Result<f64> {
        let duration = millis("durationMs", duration_ms)?;
        let held = self
            .inner
            .rate_limit_group(&group, duration)
            .await
            .map_err(to_napi)?;
        Ok(crate::convert::duration_ms(held))
    }

    /// Group `group`, read in its partition.
    #[napi]
    pub async fn group(&self, group: String) -> napi::Result<GroupParts> {
        Ok(self.inner.group(&group).await.map_err(to_napi)?.into())
    }

    /// The logical queue's figures and each partition's.
    #[napi]
    pub async fn stats(&self) -> napi::Result<PartitionedStatsParts> {
        let stats = self.inner.stats().await.map_err(to_napi)?;
        Ok(PartitionedStatsParts {
            total: stats.total.into(),
            partitions: stats.partitions.into_iter().map(Into::into).collect(),
        })
    }

    /// How many items are in `state`, summed over the partitions.
    #[napi]
    pub async fn count(&self, state_name: String) -> napi::Result<i64> {
        let state = state(&state_name)?;
        Ok(count(self.inner.count_in(state).await.map_err(to_napi)?))
    }

    /// For each item name of the last hour, its jobs completed, failed and dead, summed over
    /// the partitions; null while no partition counts.
    #[napi]
    pub async fn counts_by_name(&self) -> napi::Result<Option<Vec<NameCountsParts>>> {
        let counts = self.inner.counts_by_name().await.map_err(to_napi)?;
        Ok(name_counts(counts))
    }

    /// Whether any partition exists (false for one created and never used).
    #[napi]
    pub async fn exists(&self) -> napi::Result<bool> {
        self.inner.exists().await.map_err(to_napi)
    }

    /// How many items wait, at every priority, summed over the partitions.
    #[napi]
    pub async fn queue_len(&self) -> napi::Result<i64> {
        Ok(count(self.inner.queue_len().await.map_err(to_napi)?))
    }

    /// How many items are being processed (as `NativeQueue::processing_len`), summed over the
    /// partitions.
    #[napi]
    pub async fn processing_len(&self) -> napi::Result<i64> {
        Ok(count(self.inner.processing_len().await.map_err(to_napi)?))
    }

    /// A page of the logical queue's items in `state`: partition 0's, then 1's, and so on.
    #[napi]
    pub async fn list(
        &self,
        state_name: String,
        start: Option<f64>,
        count: Option<f64>,
    ) -> napi::Result<Vec<EntryParts>> {
        let state = state(&state_name)?;
        let start = start.map(|s| integer("start", s)).transpose()?.unwrap_or(0);
        let count = count
            .map(|c| integer("count", c))
            .transpose()?
            .unwrap_or(leaseq::policy::DEFAULT_PAGE);
        let entries = self
            .inner
            .list(state, start, count)
            .await
            .map_err(to_napi)?;
        Ok(entries.into_iter().map(EntryParts::from).collect())
    }

    /// The entries of `state` with this `name` and `error_type` (none: any), as
    /// `NativeQueue::find`, over the positions `list` numbers: in the one partition that holds
    /// `start` (default 0), at most `count` (default the core's `policy::DEFAULT_PAGE`)
    /// matches, with where to go on (in that partition, or at the next one's first position).
    #[napi]
    pub async fn find(
        &self,
        state_name: String,
        name: Option<String>,
        error_type: Option<String>,
        start: Option<f64>,
        count: Option<f64>,
    ) -> napi::Result<FoundParts> {
        let state = state(&state_name)?;
        let start = start.map(|s| integer("start", s)).transpose()?.unwrap_or(0);
        let count = count
            .map(|c| integer("count", c))
            .transpose()?
            .unwrap_or(policy::DEFAULT_PAGE);
        let found = self
            .inner
            .find(state, name.as_deref(), error_type.as_deref(), start, count)
            .await
            .map_err(to_napi)?;
        Ok(found.into())
    }

    /// Pauses every partition; whether any was running.
    #[napi]
    pub async fn pause(&self) -> napi::Result<bool> {
        self.inner.pause().await.map_err(to_napi)
    }

    /// Resumes every partition; whether any was paused.
    #[napi]
    pub async fn resume(&self) -> napi::Result<bool> {
        self.inner.resume().await.map_err(to_napi)
    }

    /// Whether the logical queue is paused: every partition is.
    #[napi]
    pub async fn is_paused(&self) -> napi::Result<bool> {
        self.inner.is_paused().await.map_err(to_napi)
    }

    /// Holds every partition's leases off for `duration_ms`; the longest hold in place, in ms.
    #[napi]
    pub async fn rate_limit(&self, duration_ms: f64) -> napi::Result<f64> {
        let duration = millis("durationMs", duration_ms)?;
        let held = self.inner.rate_limit(duration).await.map_err(to_napi)?;
        Ok(crate::convert::duration_ms(held))
    }

    /// Puts these dead items (ids as bytes) back to waiting, each in the partition that holds
    /// it; how many.
    #[napi]
    pub async fn dead_requeue(&self, ids: Vec<Buffer>) -> napi::Result<i64> {
        let ids: Vec<&[u8]> = ids.iter().map(|id| &id[..]).collect();
        Ok(count(self.inner.dead_requeue(&ids).await.map_err(to_napi)?))
    }

    /// Like `dead_requeue`, whether each id was requeued, in order (false: not a dead letter).
    #[napi]
    pub async fn dead_requeue_each(&self, ids: Vec<Buffer>) -> napi::Result<Vec<bool>> {
        let ids: Vec<&[u8]> = ids.iter().map(|id| &id[..]).collect();
        self.inner.dead_requeue_each(&ids).await.map_err(to_napi)
    }

    /// Requeues the `n` oldest dead items of the logical queue, by time of death over every
    /// partition (absent: all); how many.
    #[napi]
    pub async fn dead_requeue_oldest(&self, n: Option<f64>) -> napi::Result<i64> {
        let n = opt_n(n)?;
        Ok(count(
            self.inner.dead_requeue_oldest(n).await.map_err(to_napi)?,
        ))
    }

    /// Deletes the `n` oldest dead items of the logical queue, by time of death over every
    /// partition (absent: all); how many.
    #[napi]
    pub async fn dead_purge(&self, n: Option<f64>) -> napi::Result<i64> {
        let n = opt_n(n)?;
        Ok(count(self.inner.dead_purge(n).await.map_err(to_napi)?))
    }

    /// The stored configuration of partition 0, which `set_config` gives every partition.
    #[napi]
    pub async fn config(&self) -> napi::Result<ConfigParts> {
        let config = self.inner.config().await.map_err(to_napi)?;
        Ok(ConfigParts::from_core(config))
    }

    /// Stores the fields given in every partition; the others keep their stored value.
    #[napi]
    pub async fn set_config(&self, config: ConfigParts) -> napi::Result<()> {
        let config = config.to_core()?;
        self.inner.set_config(&config).await.map_err(to_napi)
    }

    /// Removes every partition's stored configuration.
    #[napi]
    pub async fn reset_config(&self) -> napi::Result<()> {
        self.inner.reset_config().await.map_err(to_napi)
    }

    /// A light clean of every partition at once; the reports summed.
    #[napi]
    pub async fn light_clean(&self) -> napi::Result<CleanParts> {
        Ok(self.inner.light_clean().await.map_err(to_napi)?.into())
    }

    /// A deep clean of every partition, one after another; the reports summed.
    #[napi]
    pub async fn deep_clean(&self) -> napi::Result<CleanParts> {
        Ok(self.inner.deep_clean().await.map_err(to_napi)?.into())
    }

    /// Stores the recurring job `name` in partition 0, where the queue's schedules live;
    /// whether it is new.
    #[napi]
    pub async fn upsert_schedule(
        &self,
        name: String,
        schedule: ScheduleParts,
        item: &NativeItem,
    ) -> napi::Result<bool> {
        let schedule = schedule.to_core(item.inner.clone())?;
        self.inner
            .upsert_schedule(&name, &schedule)
            .await
            .map_err(to_napi)
    }

    /// Removes the recurring job `name` from partition 0; whether there was one.
    #[napi]
    pub async fn remove_schedule(&self, name: String) -> napi::Result<bool> {
        self.inner.remove_schedule(&name).await.map_err(to_napi)
    }

    /// The recurring job `name` of partition 0, or null.
    #[napi]
    pub async fn get_schedule(&self, name: String) -> napi::Result<Option<ScheduleInfoParts>> {
        let info = self.inner.get_schedule(&name).await.map_err(to_napi)?;
        Ok(info.map(Into::into))
    }

    /// A page of partition 0's recurring jobs by next fire time: from `start` (default 0),
    /// `count` (default the core's `policy::DEFAULT_PAGE`).
    #[napi]
    pub async fn schedules(
        &self,
        start: Option<f64>,
        count: Option<f64>,
    ) -> napi::Result<SchedulePageParts> {
        let start = start.map(|s| integer("start", s)).transpose()?.unwrap_or(0);
        let count = count
            .map(|c| integer("count", c))
            .transpose()?
            .unwrap_or(policy::DEFAULT_PAGE);
        let page = self.inner.schedules(start, count).await.map_err(to_napi)?;
        Ok(page.into())
    }

    /// Fires partition 0's due recurring jobs once; what it did.
    #[napi]
    pub async fn fire_due_schedules(&self) -> napi::Result<FireReportParts> {
        let report = self.inner.fire_due_schedules().await.map_err(to_napi)?;
        Ok(report.into())
    }

    /// A follower of every partition's event stream at once, from now or after `after` (a
    /// follower's position, an id per partition joined by `,`, or one id for every partition).
    #[napi]
    pub async fn events(&self, after: Option<String>) -> napi::Result<crate::events::NativeEvents> {
        let from = crate::events::from(after);
        let events = self.inner.events(from).await.map_err(to_napi)?;
        Ok(crate::events::NativeEvents::new(events))
    }
}
