//! `NativePartitioned`: the core's partitioned queue (spec/PROTOCOL.md 5.25) as async methods,
//! a thin skin like `NativeQueue`; `lib/partitioned.js` wraps it as `PartitionedQueue`.

use leaseq::{Partitioned, State};
use napi::bindgen_prelude::{Buffer, ClassInstance, PromiseRaw};
use napi::Env;
use napi_derive::napi;

use crate::convert::{count, integer, opt_millis, ttl, wait};
use crate::error::to_napi;
use crate::item::NativeItem;
use crate::job::{EntryParts, JobParts, ResultParts, StatsParts};
use crate::lease::{LeasedParts, NativeLease};
use crate::queue::NativeQueue;

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
}

fn state(name: &str) -> napi::Result<State> {
    State::parse(name).map_err(to_napi)
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

    /// Adds `item` to its partition unless an item with its id exists there.
    #[napi]
    pub async fn add(&self, item: &NativeItem) -> napi::Result<bool> {
        self.inner.add(&item.inner).await.map_err(to_napi)
    }

    /// Adds every item whose id does not exist yet in its partition; how many were added. (Not
    /// an `async fn`: those cannot take a list of class instances, as `NativeQueue::add_batch`.)
    #[napi(ts_return_type = "Promise<number>")]
    pub fn add_batch<'env>(
        &self,
        env: &'env Env,
        items: Vec<ClassInstance<'env, NativeItem>>,
    ) -> napi::Result<PromiseRaw<'env, i64>> {
        let items: Vec<leaseq::Item> = items.iter().map(|i| i.inner.clone()).collect();
        let queue = self.inner.clone();
        env.spawn_future(async move {
            let added = queue.add_batch(&items).await.map_err(to_napi)?;
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
}
