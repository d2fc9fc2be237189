//! `NativeQueue`: the core's queue operations as async methods.
//!
//! Leases cross the boundary as `NativeLease` objects holding the core's `Lease`, and come back
//! whole to `complete`, `fail`, `release`, `renew` and `progress`. Items are `NativeItem`s,
//! built once. Arguments left out (`None`) take the core's defaults.

use std::time::Duration;

use leaseq::{
    policy, CleanReport, Completion, FailOutcome, Lease, NameCounts, Queue, Retry, State,
};
use napi::bindgen_prelude::{Buffer, ClassInstance, PromiseRaw};
use napi::Env;
use napi_derive::napi;

use crate::convert::{count, integer, millis, opt_millis, retry, ttl, wait};
use crate::error::to_napi;
use crate::events::{EventsPageParts, NativeEvents};
use crate::item::NativeItem;
use crate::job::{
    ConfigParts, EntryParts, FoundParts, GroupParts, JobParts, NameCountsParts, ResultParts,
    StatsParts,
};
use crate::lease::{LeasedParts, NativeLease};
use crate::schedule::{FireReportParts, ScheduleInfoParts, SchedulePageParts, ScheduleParts};

/// What `complete_and_lease` did.
#[napi(object, object_from_js = false)]
pub struct CompleteAndLeaseParts {
    /// Whether this call completed the item.
    pub completed: bool,
    /// The next lease, if the queue had an item.
    pub next: Option<LeasedParts>,
}

/// What a clean did.
#[napi(object, object_from_js = false)]
pub struct CleanParts {
    /// Items put back in the queue.
    pub requeued: i64,
    /// Stale entries removed.
    pub removed: i64,
    /// Delayed items that were due, moved to waiting.
    pub promoted: i64,
    /// Items whose last lease expired with no attempts left, moved to dead.
    pub dead: i64,
}

impl From<CleanReport> for CleanParts {
    fn from(report: CleanReport) -> CleanParts {
        CleanParts {
            requeued: count(report.requeued),
            removed: count(report.removed),
            promoted: count(report.promoted),
            dead: count(report.dead),
        }
    }
}

/// One queue; `lib/queue.js` wraps it as `Queue`.
#[napi]
pub struct NativeQueue {
    inner: Queue,
}

impl NativeQueue {
    pub(crate) fn new(inner: Queue) -> NativeQueue {
        NativeQueue { inner }
    }

    /// The core's queue.
    pub(crate) fn inner(&self) -> &Queue {
        &self.inner
    }
}

/// One completion of a batch, owned so that it can move to the runtime's threads.
pub(crate) type OwnedCompletion = (Lease, Option<(Vec<u8>, Option<Duration>)>);

/// Batch completions from three parallel JavaScript arrays, copied on this thread (shared with
/// `NativePartitioned::complete_batch`).
pub(crate) fn completions(
    leases: Vec<ClassInstance<'_, NativeLease>>,
    results: Vec<Option<&[u8]>>,
    keeps: Vec<Option<f64>>,
) -> napi::Result<Vec<OwnedCompletion>> {
    if results.len() != leases.len() || keeps.len() != leases.len() {
        return Err(crate::error::invalid(
            "completions",
            "needs one result and keep time per lease",
        ));
    }
    let mut owned = Vec::with_capacity(leases.len());
    for ((lease, result), keep) in leases.iter().zip(results).zip(keeps) {
        let keep = opt_millis("keepResultForMs", keep)?;
        leaseq::check_completion(result, keep).map_err(crate::error::to_napi)?;
        let result = result.map(|r| (r.to_vec(), keep));
        owned.push((lease.inner.clone(), result));
    }
    Ok(owned)
}

pub(crate) fn borrow_completion(c: &OwnedCompletion) -> Completion<'_> {
    (&c.0, c.1.as_ref().map(|(r, keep)| (r.as_slice(), *keep)))
}

/// A fail outcome's name: `retrying`, `dead`, or why the lease was not held (shared with
/// `NativePartitioned::fail`).
pub(crate) fn fail_name(outcome: FailOutcome) -> &'static str {
    match outcome {
        FailOutcome::Retrying(_) => "retrying",
        FailOutcome::Dead => "dead",
        FailOutcome::NotHeld(why) => why.as_str(),
        _ => "unknown",
    }
}

/// One failure of `fail_batch` (its lease travels in a list beside it).
#[napi(object, object_to_js = false)]
pub struct FailureParts {
    /// The message.
    pub error: String,
    /// The type (absent: empty).
    pub error_type: Option<String>,
    /// `default` or `never`.
    pub retry_mode: Option<String>,
    /// A retry delay instead.
    pub retry_after_ms: Option<f64>,
    /// The failure's trace (a stack), kept with the item.
    pub trace: Option<String>,
}

/// A batch's leases, copied on this thread (shared with `NativePartitioned::renew_batch`).
pub(crate) fn owned_leases(leases: &[ClassInstance<'_, NativeLease>]) -> Vec<Lease> {
    leases.iter().map(|l| l.inner.clone()).collect()
}

/// One failure of a batch, owned so that it can move to the runtime's threads: the lease, the
/// message, its type, the retry and the trace.
pub(crate) type OwnedFailure = (Lease, String, String, Retry, Option<String>);

/// Batch failures from the addon's two parallel lists, copied on this thread (shared with
/// `NativePartitioned::fail_batch`).
pub(crate) fn owned_failures(
    failures: Vec<FailureParts>,
    leases: Vec<ClassInstance<'_, NativeLease>>,
) -> napi::Result<Vec<OwnedFailure>> {
    if failures.len() != leases.len() {
        return Err(crate::error::invalid(
            "failures",
            "needs one lease per failure",
        ));
    }
    let mut owned = Vec::with_capacity(failures.len());
    for (f, lease) in failures.into_iter().zip(leases.iter()) {
        let retry = retry(f.retry_mode, f.retry_after_ms)?;
        owned.push((
            lease.inner.clone(),
            f.error,
            f.error_type.unwrap_or_default(),
            retry,
            f.trace,
        ));
    }
    Ok(owned)
}

pub(crate) fn borrow_failure(f: &OwnedFailure) -> leaseq::Failure<'_> {
    (&f.0, f.1.as_str(), f.2.as_str(), f.3, f.4.as_deref())
}

/// What `complete_and_lease_batch` did.
#[napi(object, object_from_js = false)]
pub struct CompleteAndLeaseBatchParts {
    /// Whether each completion completed its item, in order.
    pub completed: Vec<bool>,
    /// The new leases.
    pub leases: Vec<LeasedParts>,
}

/// What an item waits for and what waits for it (`dependencies`).
#[napi(object, object_from_js = false)]
pub struct DependenciesParts {
    /// The ids it was added to wait for, in order.
    pub depends_on: Vec<String>,
    /// `fail` or `run`; absent without dependencies.
    pub on_dependency_failure: Option<String>,
    /// Those it still waits for (while it is blocked).
    pub pending: Vec<String>,
    /// How many blocked items wait for it.
    pub dependants_count: i64,
    /// Up to 100 of them.
    pub dependants: Vec<String>,
}

impl From<leaseq::Dependencies> for DependenciesParts {
    fn from(d: leaseq::Dependencies) -> DependenciesParts {
        DependenciesParts {
            depends_on: d.depends_on,
            on_dependency_failure: d.on_dependency_failure.map(|p| p.as_str().to_owned()),
            pending: d.pending,
            dependants_count: count(d.dependants_count),
            dependants: d.dependants,
        }
    }
}

/// One dependency's kept result (`dependency_results`).
#[napi(object, object_from_js = false)]
pub struct DependencyResultParts {
    /// The dependency's id.
    pub id: String,
    /// Its kept result; absent when none is kept.
    pub result: Option<Buffer>,
}

/// The core's dependency results as JavaScript receives them (shared with
/// `NativePartitioned::dependency_results`).
pub(crate) fn dependency_results(
    results: Vec<(String, Option<Vec<u8>>)>,
) -> Vec<DependencyResultParts> {
    results
        .into_iter()
        .map(|(id, result)| DependencyResultParts {
            id,
            result: result.map(Buffer::from),
        })
        .collect()
}

/// The core's counts by name as JavaScript receives them, null while counters are off (shared
/// with `NativePartitioned::counts_by_name`).
pub(crate) fn name_counts(counts: Option<Vec<NameCounts>>) -> Option<Vec<NameCountsParts>> {
    counts.map(|c| c.into_iter().map(NameCountsParts::from).collect())
}

/// A flow's tree from its items in the order JavaScript walked them (each parent before its
/// children) and, for each, the index of its parent in that list (-1: a child of the top).
/// Shared with `NativePartitioned::add_flow`.
pub(crate) fn flows(
    items: Vec<leaseq::Item>,
    parents: Vec<i64>,
) -> napi::Result<Vec<leaseq::Flow>> {
    if parents.len() != items.len() {
        return Err(crate::error::invalid(
            "children",
            "needs one parent index per item",
        ));
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    let mut top = Vec::new();
    for (i, &p) in parents.iter().enumerate() {
        match usize::try_from(p) {
            Ok(p) if p < i => children[p].push(i),
            Ok(_) => return Err(crate::error::invalid("children", "a parent comes first")),
            Err(_) => top.push(i),
        }
    }
    fn build(i: usize, items: &[leaseq::Item], children: &[Vec<usize>]) -> leaseq::Flow {
        children[i]
            .iter()
            .fold(leaseq::Flow::new(items[i].clone()), |f, &c| {
                f.child(build(c, items, children))
            })
    }
    Ok(top.iter().map(|&i| build(i, &items, &children)).collect())
}

/// A state from its name (shared with `NativePartitioned`).
pub(crate) fn state(name: &str) -> napi::Result<State> {
    State::parse(name).map_err(to_napi)
}

/// A count of items from JavaScript; absent means all (the core's `None`). Shared with
/// `NativePartitioned`'s dead-letter calls.
pub(crate) fn opt_n(n: Option<f64>) -> napi::Result<Option<u64>> {
    n.map(|n| integer("n", n)).transpose()
}

#[napi]
impl NativeQueue {
    /// The prefix of this queue's keys.
    #[napi(getter)]
    pub fn prefix(&self) -> String {
        self.inner.prefix().to_owned()
    }

    /// Adds an item unless its id exists; whether it was added. In a full bounded queue it
    /// waits up to `timeout_ms` for room (absent: not at all; `Infinity`: no limit), on the
    /// runtime, then rejects with `FULL`.
    #[napi]
    pub async fn add(&self, item: &NativeItem, timeout_ms: Option<f64>) -> napi::Result<bool> {
        let wait = wait(None, timeout_ms)?;
        self.inner
            .add_wait(&item.inner, wait)
            .await
            .map_err(to_napi)
    }

    /// Adds an item without checking whether its id exists.
    #[napi]
    pub async fn add_unique(&self, item: &NativeItem) -> napi::Result<()> {
        self.inner.add_unique(&item.inner).await.map_err(to_napi)
    }

    /// Adds every item whose id does not exist yet; how many were added. A bounded queue takes
    /// the batch whole, waiting up to `timeout_ms` for room as `add` does. (Not an `async fn`:
    /// those cannot take a list of class instances, so the items are cloned here and the
    /// future spawned by hand.)
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

    /// Adds `parent` and its children in one call: `items` in the order JavaScript walked the
    /// tree (each before its own children), `parents` the index of each one's parent in `items`
    /// (-1: a child of `parent`). How many were added. (Hand-spawned, as `add_batch`.)
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

    /// What item `id` (its bytes) waits for, and how many blocked items wait for it.
    #[napi]
    pub async fn dependencies(&self, id: Buffer) -> napi::Result<DependenciesParts> {
        let d = self.inner.dependencies(&id[..]).await.map_err(to_napi)?;
        Ok(d.into())
    }

    /// The kept results of item `id`'s dependencies, in order.
    #[napi]
    pub async fn dependency_results(&self, id: Buffer) -> napi::Result<Vec<DependencyResultParts>> {
        let results = self
            .inner
            .dependency_results(&id[..])
            .await
            .map_err(to_napi)?;
        Ok(dependency_results(results))
    }

    /// Stores the recurring job `name`, adding `item` (its data and options) at each tick;
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

    /// Removes the recurring job `name`; whether there was one.
    #[napi]
    pub async fn remove_schedule(&self, name: String) -> napi::Result<bool> {
        self.inner.remove_schedule(&name).await.map_err(to_napi)
    }

    /// The recurring job `name` with its next fire time, or null.
    #[napi]
    pub async fn get_schedule(&self, name: String) -> napi::Result<Option<ScheduleInfoParts>> {
        let info = self.inner.get_schedule(&name).await.map_err(to_napi)?;
        Ok(info.map(Into::into))
    }

    /// A page of the recurring jobs by next fire time: from `start` (default 0), `count`
    /// (default the core's `policy::DEFAULT_PAGE`).
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

    /// Fires the due recurring jobs once; what it did.
    #[napi]
    pub async fn fire_due_schedules(&self) -> napi::Result<FireReportParts> {
        let report = self.inner.fire_due_schedules().await.map_err(to_napi)?;
        Ok(report.into())
    }

    /// One page of the event stream: at most `count` (default the core's
    /// `policy::DEFAULT_PAGE`) entries after `after` (absent: from now).
    #[napi]
    pub async fn read_events(
        &self,
        after: Option<String>,
        count: Option<f64>,
    ) -> napi::Result<EventsPageParts> {
        let count = count
            .map(|c| integer("count", c))
            .transpose()?
            .unwrap_or(policy::DEFAULT_PAGE);
        let page = self
            .inner
            .read_events(after.as_deref(), count)
            .await
            .map_err(to_napi)?;
        Ok(page.into())
    }

    /// A follower of the event stream, from now or after the entry id `after`.
    #[napi]
    pub async fn events(&self, after: Option<String>) -> napi::Result<NativeEvents> {
        let from = crate::events::from(after);
        let events = self.inner.events(from).await.map_err(to_napi)?;
        Ok(NativeEvents::new(events))
    }

    /// Leases the next item for `ttl_ms` (default: the core's), waiting as `block` and
    /// `timeout_ms` say (default: not at all).
    #[napi]
    pub async fn lease(
        &self,
        ttl_ms: Option<f64>,
        block: Option<bool>,
        timeout_ms: Option<f64>,
    ) -> napi::Result<Option<LeasedParts>> {
        let ttl = ttl(ttl_ms)?;
        let wait = wait(block, timeout_ms)?;
        let lease = self.inner.lease(ttl, wait).await.map_err(to_napi)?;
        Ok(lease.map(LeasedParts::from))
    }

    /// Leases up to `n` items in one round trip.
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

    /// Completes the leased item, keeping `result` if given; true for exactly one caller per
    /// incarnation of the item.
    #[napi]
    pub async fn complete(
        &self,
        lease: &NativeLease,
        result: Option<Buffer>,
        keep_result_for_ms: Option<f64>,
    ) -> napi::Result<bool> {
        let keep = opt_millis("keepResultForMs", keep_result_for_ms)?;
        self.inner
            .complete_with_result(&lease.inner, result.as_deref(), keep)
            .await
            .map_err(to_napi)
    }

    /// Completes the leased item (keeping `result` if given, as `complete` does) and leases the
    /// next one (without waiting) in one round trip.
    #[napi]
    pub async fn complete_and_lease(
        &self,
        lease: &NativeLease,
        ttl_ms: Option<f64>,
        result: Option<Buffer>,
        keep_result_for_ms: Option<f64>,
    ) -> napi::Result<CompleteAndLeaseParts> {
        let ttl = ttl(ttl_ms)?;
        let keep = opt_millis("keepResultForMs", keep_result_for_ms)?;
        let (completed, next) = self
            .inner
            .complete_and_lease_with_result(&lease.inner, result.as_deref(), keep, ttl)
            .await
            .map_err(to_napi)?;
        Ok(CompleteAndLeaseParts {
            completed,
            next: next.map(LeasedParts::from),
        })
    }

    /// Extends the lease to `ttl_ms` from now while it is still this holder's; says what it
    /// found (`RenewOutcome::as_str`).
    #[napi]
    pub async fn renew_outcome(
        &self,
        lease: &NativeLease,
        ttl_ms: Option<f64>,
    ) -> napi::Result<&'static str> {
        let ttl = ttl(ttl_ms)?;
        let outcome = self
            .inner
            .renew_outcome(&lease.inner, ttl)
            .await
            .map_err(to_napi)?;
        Ok(outcome.as_str())
    }

    /// Like `renew_outcome`, as whether the lease was renewed.
    #[napi]
    pub async fn renew(&self, lease: &NativeLease, ttl_ms: Option<f64>) -> napi::Result<bool> {
        let ttl = ttl(ttl_ms)?;
        self.inner.renew(&lease.inner, ttl).await.map_err(to_napi)
    }

    /// Records a failed attempt (and its trace, if any); `retrying`, `dead`, or why the lease
    /// was not held.
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

    /// Hands the item back without counting a failure, now or after `delay_ms`.
    #[napi]
    pub async fn release(&self, lease: &NativeLease, delay_ms: Option<f64>) -> napi::Result<bool> {
        let delay = opt_millis("delayMs", delay_ms)?;
        self.inner
            .release(&lease.inner, delay)
            .await
            .map_err(to_napi)
    }

    /// The lease whose parts (id, token, incarnation, attempt) another process kept, to finish
    /// it here. Sends nothing; the item's max attempts and backoff are the defaults (the core's
    /// `Queue::lease_from_parts`).
    #[napi]
    pub fn lease_from_parts(
        &self,
        id: String,
        token: String,
        incarnation: String,
        attempt: f64,
    ) -> napi::Result<LeasedParts> {
        let attempt: u64 = integer("attempt", attempt)?;
        let lease = self
            .inner
            .lease_from_parts(&id, &token, &incarnation, attempt)
            .map_err(to_napi)?;
        Ok(LeasedParts::from(lease))
    }

    /// Stores a small progress value on the leased item.
    #[napi]
    pub async fn progress(&self, lease: &NativeLease, value: Buffer) -> napi::Result<bool> {
        self.inner
            .progress(&lease.inner, &value)
            .await
            .map_err(to_napi)
    }

    /// The result kept for item `id` (its bytes).
    #[napi]
    pub async fn result(&self, id: Buffer) -> napi::Result<Option<ResultParts>> {
        let result = self.inner.result(&id[..]).await.map_err(to_napi)?;
        Ok(result.map(ResultParts::from))
    }

    /// Waits up to `timeout_ms` (`Infinity`: until it comes or the client closes) for item
    /// `id`'s result, server-side.
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

    /// Everything known about item `id` (its bytes).
    #[napi]
    pub async fn get(&self, id: Buffer) -> napi::Result<Option<JobParts>> {
        let job = self.inner.get(&id[..]).await.map_err(to_napi)?;
        Ok(job.map(JobParts::from))
    }

    /// A page of the items in `state`: from `start` (default 0), `count` entries (default the
    /// core's `policy::DEFAULT_PAGE`).
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
            .unwrap_or(policy::DEFAULT_PAGE);
        let entries = self
            .inner
            .list(state, start, count)
            .await
            .map_err(to_napi)?;
        Ok(entries.into_iter().map(EntryParts::from).collect())
    }

    /// The entries of `state` with this `name` and `error_type` (none: any), looking at most at
    /// 1000 positions from `start` (default 0) and returning at most `count` (default the
    /// core's `policy::DEFAULT_PAGE`) matches, with where to go on.
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

    /// Makes the delayed item `id` (its bytes) wait now; whether it was delayed.
    #[napi]
    pub async fn promote(&self, id: Buffer) -> napi::Result<bool> {
        self.inner.promote(&id[..]).await.map_err(to_napi)
    }

    /// How many items are in `state`.
    #[napi]
    pub async fn count(&self, state_name: String) -> napi::Result<i64> {
        let state = state(&state_name)?;
        Ok(count(self.inner.count(state).await.map_err(to_napi)?))
    }

    /// Cancels item `id` (its bytes); the state it was in, or null.
    #[napi]
    pub async fn cancel(&self, id: Buffer) -> napi::Result<Option<&'static str>> {
        let was = self.inner.cancel(&id[..]).await.map_err(to_napi)?;
        Ok(was.map(State::as_str))
    }

    /// Counts per state, the oldest waiting item's age, and the last hour's counters (absent
    /// while the queue's counters are off).
    #[napi]
    pub async fn stats(&self) -> napi::Result<StatsParts> {
        Ok(self.inner.stats().await.map_err(to_napi)?.into())
    }

    /// For each item name of the last hour, its jobs completed, failed and dead, by name; null
    /// while the queue's counters are off.
    #[napi]
    pub async fn counts_by_name(&self) -> napi::Result<Option<Vec<NameCountsParts>>> {
        let counts = self.inner.counts_by_name().await.map_err(to_napi)?;
        Ok(name_counts(counts))
    }

    /// Pauses the queue (nothing is leased until resumed); whether it was running.
    #[napi]
    pub async fn pause(&self) -> napi::Result<bool> {
        self.inner.pause().await.map_err(to_napi)
    }

    /// Resumes a paused queue (waiting leases wake at once); whether it was paused.
    #[napi]
    pub async fn resume(&self) -> napi::Result<bool> {
        self.inner.resume().await.map_err(to_napi)
    }

    /// Whether the queue is paused.
    #[napi]
    pub async fn is_paused(&self) -> napi::Result<bool> {
        self.inner.is_paused().await.map_err(to_napi)
    }

    /// Whether the queue exists: whether any of its fixed keys does (false for a mistyped name).
    #[napi]
    pub async fn exists(&self) -> napi::Result<bool> {
        self.inner.exists().await.map_err(to_napi)
    }

    /// Pauses one group (its items are not leased until resumed); whether it was running.
    #[napi]
    pub async fn pause_group(&self, group: String) -> napi::Result<bool> {
        self.inner.pause_group(&group).await.map_err(to_napi)
    }

    /// Resumes a paused group; whether it was paused.
    #[napi]
    pub async fn resume_group(&self, group: String) -> napi::Result<bool> {
        self.inner.resume_group(&group).await.map_err(to_napi)
    }

    /// Sets how many items of `group` may be leased at once; absent: the queue's
    /// `groupConcurrency` applies.
    #[napi]
    pub async fn set_group_limit(&self, group: String, limit: Option<f64>) -> napi::Result<()> {
        let limit = limit.map(|n| integer("limit", n)).transpose()?;
        self.inner
            .set_group_limit(&group, limit)
            .await
            .map_err(to_napi)
    }

    /// One group: its waiting and leased items, its limit, whether it is paused, and how long
    /// it waits for its rate limit's window.
    #[napi]
    pub async fn group(&self, group: String) -> napi::Result<GroupParts> {
        Ok(self.inner.group(&group).await.map_err(to_napi)?.into())
    }

    /// Holds every client's leases off for `duration_ms`; how long they are held off, in ms.
    #[napi]
    pub async fn rate_limit(&self, duration_ms: f64) -> napi::Result<f64> {
        let duration = millis("durationMs", duration_ms)?;
        let held = self.inner.rate_limit(duration).await.map_err(to_napi)?;
        Ok(crate::convert::duration_ms(held))
    }

    /// Holds one group's leases off for `duration_ms`, the rest of the queue going on; how long
    /// the group is held off, in ms.
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

    /// Puts these dead items (ids as bytes) back to waiting; how many.
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

    /// Requeues the `n` oldest dead items (absent: all); how many.
    #[napi]
    pub async fn dead_requeue_oldest(&self, n: Option<f64>) -> napi::Result<i64> {
        let n = opt_n(n)?;
        Ok(count(
            self.inner.dead_requeue_oldest(n).await.map_err(to_napi)?,
        ))
    }

    /// Deletes the `n` oldest dead items (absent: all); how many.
    #[napi]
    pub async fn dead_purge(&self, n: Option<f64>) -> napi::Result<i64> {
        let n = opt_n(n)?;
        Ok(count(self.inner.dead_purge(n).await.map_err(to_napi)?))
    }

    /// The stored configuration (absent fields: the defaults apply).
    #[napi]
    pub async fn config(&self) -> napi::Result<ConfigParts> {
        let config = self.inner.config().await.map_err(to_napi)?;
        Ok(ConfigParts::from_core(config))
    }

    /// Stores the fields given; the others keep their stored value.
    #[napi]
    pub async fn set_config(&self, config: ConfigParts) -> napi::Result<()> {
        let config = config.to_core()?;
        self.inner.set_config(&config).await.map_err(to_napi)
    }

    /// Removes the stored configuration.
    #[napi]
    pub async fn reset_config(&self) -> napi::Result<()> {
        self.inner.reset_config().await.map_err(to_napi)
    }

    /// Completes many leases in one round trip, each with its result (if any) and keep time;
    /// whether each completed its item. (Hand-spawned, as `add_batch`.)
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
            let list: Vec<Completion<'_>> = owned.iter().map(borrow_completion).collect();
            queue.complete_batch(&list).await.map_err(to_napi)
        })
    }

    /// Extends many leases in one round trip; each one's outcome.
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
            let refs: Vec<&Lease> = leases.iter().collect();
            let outcomes = queue.renew_batch(&refs, ttl).await.map_err(to_napi)?;
            Ok(outcomes.into_iter().map(|o| o.as_str()).collect())
        })
    }

    /// Fails many leases in one round trip, each with its error, type and retry; the outcomes.
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

    /// Completes many leases and leases up to `n` more (no wait), in one round trip.
    #[napi(ts_return_type = "Promise<CompleteAndLeaseBatchParts>")]
    pub fn complete_and_lease_batch<'env>(
        &self,
        env: &'env Env,
        leases: Vec<ClassInstance<'env, NativeLease>>,
        results: Vec<Option<&[u8]>>,
        keep_result_for_ms: Vec<Option<f64>>,
        n: f64,
        ttl_ms: Option<f64>,
    ) -> napi::Result<PromiseRaw<'env, CompleteAndLeaseBatchParts>> {
        let owned = completions(leases, results, keep_result_for_ms)?;
        let n: usize = integer("n", n)?;
        let ttl = ttl(ttl_ms)?;
        let queue = self.inner.clone();
        env.spawn_future(async move {
            let list: Vec<Completion<'_>> = owned.iter().map(borrow_completion).collect();
            let (completed, leases) = queue
                .complete_and_lease_batch(&list, n, ttl)
                .await
                .map_err(to_napi)?;
            Ok(CompleteAndLeaseBatchParts {
                completed,
                leases: leases.into_iter().map(LeasedParts::from).collect(),
            })
        })
    }

    /// Re-queues items whose lease is gone and drops ids of complete items from processing.
    #[napi]
    pub async fn light_clean(&self) -> napi::Result<CleanParts> {
        Ok(self.inner.light_clean().await.map_err(to_napi)?.into())
    }

    /// A light clean, plus items on no list and orphaned lease counts.
    #[napi]
    pub async fn deep_clean(&self) -> napi::Result<CleanParts> {
        Ok(self.inner.deep_clean().await.map_err(to_napi)?.into())
    }

    /// How many items wait, at every priority: the same as `count('waiting')` (not
    /// redis-work-queue's `LLEN P:queue`, which misses every priority but 0).
    #[napi]
    pub async fn queue_len(&self) -> napi::Result<i64> {
        Ok(count(self.inner.queue_len().await.map_err(to_napi)?))
    }

    /// How many items are being processed: leased by leaseq (`P:leased`) plus those in
    /// redis-work-queue's `P:processing` list (its clients' leases, or left by them until a
    /// light clean).
    #[napi]
    pub async fn processing_len(&self) -> napi::Result<i64> {
        Ok(count(self.inner.processing_len().await.map_err(to_napi)?))
    }
}
