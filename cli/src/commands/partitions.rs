//! Partitioned queues (spec/PROTOCOL.md 5.25): `leaseq create --partitions`, and the logical
//! queue behind a base for `stats`, `ls`, `get`, `cancel`, `add`, `pause`, `resume`, `hold`,
//! `group`, `tree`, `check`, `dead`, `events`, `workers`, `schedules` and `config` (each
//! partition's figures beside the queue's), and `clean` (every partition).

use leaseq::{Client, Entry, Job, Partitioned, Queue, State};
use serde::Serialize;

use crate::fail::Outcome;
use crate::output;
use crate::view::{EntryView, JobView, StatsView};

/// `leaseq create`: creates (or opens) the queue `base` of `partitions` partitions and prints
/// the partitions' prefixes.
pub async fn create(client: &Client, base: &str, partitions: usize, json: bool) -> Outcome {
    let p = client.create_partitioned(base, partitions).await?;
    let prefixes: Vec<&str> = p.partitions().iter().map(Queue::prefix).collect();
    if json {
        #[derive(Serialize)]
        struct Created<'a> {
            queue: &'a str,
            partitions: &'a [&'a str],
        }
        output::json(&Created {
            queue: base,
            partitions: &prefixes,
        });
        return Ok(());
    }
    if prefixes.len() == 1 {
        // P = 1 is a plain queue, byte for byte (spec 5.25): nothing to store, and like any
        // queue it exists once it holds something.
        say!(
            "{base}: 1 partition, which is the plain queue `{base}` itself (nothing is stored \
             for it: it exists once it holds items)"
        );
        return Ok(());
    }
    say!("{base}: {} partitions", prefixes.len());
    for (i, prefix) in prefixes.iter().enumerate() {
        say!("  {i}  {prefix}");
    }
    Ok(())
}

/// The partitioned queue named by `base`, when it has more than one partition.
pub async fn of(client: &Client, base: &str) -> leaseq::Result<Option<Partitioned>> {
    let p = client.partitioned(base).await?;
    Ok((p.count() > 1).then_some(p))
}

/// A queue as a command or the dashboard names it: a plain queue, or a partitioned queue's
/// base (spec 5.25), whose operations then reach its partitions.
pub enum Target {
    /// A plain queue.
    Plain(Queue),
    /// A partitioned queue's base.
    Partitioned(Partitioned),
}

impl Target {
    /// The queue named `prefix`. One round trip (its layout).
    pub async fn open(client: &Client, prefix: &str) -> leaseq::Result<Target> {
        Ok(match of(client, prefix).await? {
            Some(p) => Target::Partitioned(p),
            None => Target::Plain(client.queue(prefix)?),
        })
    }

    /// Its queues: the plain queue, or every partition.
    pub fn queues(&self) -> &[Queue] {
        match self {
            Target::Plain(q) => std::slice::from_ref(q),
            Target::Partitioned(p) => p.partitions(),
        }
    }

    /// Where group `group` lives: the plain queue, or the partition its items are routed to
    /// (spec 5.25: a group's items all live in one partition). Sends nothing.
    pub fn group_queue(&self, group: &str) -> &Queue {
        match self {
            Target::Plain(q) => q,
            Target::Partitioned(p) => p.group_partition(group),
        }
    }

    /// Where its schedules live: the plain queue, or partition 0.
    pub fn schedules_queue(&self) -> &Queue {
        match self {
            Target::Plain(q) => q,
            Target::Partitioned(p) => p.schedules_queue(),
        }
    }

    /// Adds `item` (to its partition), waiting for room as `wait` says.
    pub async fn add(
        &self,
        item: &leaseq::Item,
        wait: Option<leaseq::Wait>,
    ) -> leaseq::Result<bool> {
        match (self, wait) {
            (Target::Plain(q), Some(w)) => q.add_wait(item, w).await,
            (Target::Plain(q), None) => q.add(item).await,
            (Target::Partitioned(p), Some(w)) => p.add_wait(item, w).await,
            (Target::Partitioned(p), None) => p.add(item).await,
        }
    }

    /// Pauses it (every partition); whether anything changed.
    pub async fn pause(&self) -> leaseq::Result<bool> {
        match self {
            Target::Plain(q) => q.pause().await,
            Target::Partitioned(p) => p.pause().await,
        }
    }

    /// Resumes it (every partition); whether anything changed.
    pub async fn resume(&self) -> leaseq::Result<bool> {
        match self {
            Target::Plain(q) => q.resume().await,
            Target::Partitioned(p) => p.resume().await,
        }
    }

    /// Stores `config` (in every partition).
    pub async fn set_config(&self, config: &leaseq::QueueConfig) -> leaseq::Result<()> {
        match self {
            Target::Plain(q) => q.set_config(config).await,
            Target::Partitioned(p) => p.set_config(config).await,
        }
    }

    /// Removes the stored configuration (of every partition).
    pub async fn reset_config(&self) -> leaseq::Result<()> {
        match self {
            Target::Plain(q) => q.reset_config().await,
            Target::Partitioned(p) => p.reset_config().await,
        }
    }

    /// Holds every lease off for `duration` (in every partition); how long it is held now.
    pub async fn rate_limit(
        &self,
        duration: std::time::Duration,
    ) -> leaseq::Result<std::time::Duration> {
        match self {
            Target::Plain(q) => q.rate_limit(duration).await,
            Target::Partitioned(p) => p.rate_limit(duration).await,
        }
    }

    /// What item `id` waits for and what waits for it, from whichever partition holds it.
    pub async fn dependencies(&self, id: &str) -> leaseq::Result<leaseq::Dependencies> {
        match self {
            Target::Plain(q) => q.dependencies(id).await,
            Target::Partitioned(p) => p.dependencies(id).await,
        }
    }

    /// Makes the delayed item `id` wait now, in whichever partition holds it.
    pub async fn promote(&self, id: &str) -> leaseq::Result<bool> {
        match self {
            Target::Plain(q) => q.promote(id).await,
            Target::Partitioned(p) => p.promote(id).await,
        }
    }

    /// A deep clean when `deep`, else a light one (of every partition, the reports summed).
    pub async fn clean(&self, deep: bool) -> leaseq::Result<leaseq::CleanReport> {
        match (self, deep) {
            (Target::Plain(q), true) => q.deep_clean().await,
            (Target::Plain(q), false) => q.light_clean().await,
            (Target::Partitioned(p), true) => p.deep_clean().await,
            (Target::Partitioned(p), false) => p.light_clean().await,
        }
    }

    /// Before a command writes to it: whether none of its keys exists yet (a mistyped name, or
    /// a queue not used yet), so that the command can say it acted on a new queue. A
    /// partitioned queue's base exists (its layout is stored).
    pub async fn is_new(&self) -> leaseq::Result<bool> {
        match self {
            Target::Plain(q) => Ok(!q.exists().await?),
            Target::Partitioned(_) => Ok(false),
        }
    }

    /// Tells (on standard error) that a command acted on a queue none of whose keys existed
    /// before ([`Target::is_new`]): a typo, more often than not.
    pub fn note_new(queue: &str, what: &str) {
        tell!(
            "leaseq: note: no queue `{queue}` existed before this (a typo? `leaseq queues` lists \
             the queues found); {what} anyway"
        );
    }

    /// [`queue_must_exist`] for a plain queue; a partitioned queue's base exists (its layout).
    pub async fn must_exist(&self, queue: &str) -> crate::fail::Outcome {
        match self {
            Target::Plain(q) => crate::fail::queue_must_exist(q, queue).await,
            Target::Partitioned(_) => Ok(()),
        }
    }

    /// Item `id`, from whichever partition holds it.
    pub async fn get(&self, id: &str) -> leaseq::Result<Option<Job>> {
        match self {
            Target::Plain(q) => q.get(id).await,
            Target::Partitioned(p) => p.get(id).await,
        }
    }

    /// The prefix of partition `index` (a [`Job`]'s or an [`Entry`]'s `partition`), on a
    /// partitioned queue's base; `None` on a plain queue.
    fn prefix_of(&self, index: Option<usize>) -> Option<String> {
        match self {
            Target::Plain(_) => None,
            Target::Partitioned(p) => index
                .and_then(|i| p.partitions().get(i))
                .map(|q| q.prefix().to_owned()),
        }
    }

    /// `job` (read by [`Target::get`]) as shown, with the partition that holds it.
    pub fn job_view(&self, job: &Job) -> JobView {
        JobView {
            partition: self.prefix_of(job.partition),
            ..JobView::from(job)
        }
    }

    /// `entry` (listed by [`Target::list`] or [`Target::find`]) as shown, with the partition
    /// that holds it.
    pub fn entry_view(&self, entry: &Entry) -> EntryView {
        EntryView {
            partition: self.prefix_of(entry.partition),
            ..EntryView::from(entry)
        }
    }

    /// Cancels item `id` in whichever partition holds it; the state it was in.
    pub async fn cancel(&self, id: &str) -> leaseq::Result<Option<State>> {
        match self {
            Target::Plain(q) => q.cancel(id).await,
            Target::Partitioned(p) => p.cancel(id).await,
        }
    }

    /// How many items are in `state` (in all partitions).
    pub async fn count(&self, state: State) -> leaseq::Result<u64> {
        match self {
            Target::Plain(q) => q.count(state).await,
            Target::Partitioned(p) => p.count_in(state).await,
        }
    }

    /// A page of `state` (the partitions one after another).
    pub async fn list(
        &self,
        state: State,
        start: usize,
        count: usize,
    ) -> leaseq::Result<Vec<Entry>> {
        match self {
            Target::Plain(q) => q.list(state, start, count).await,
            Target::Partitioned(p) => p.list(state, start, count).await,
        }
    }

    /// The matches among at most 1000 positions from `start` (on a base: in the partition that
    /// holds `start`, the positions numbered as `list` numbers them).
    pub async fn find(
        &self,
        state: State,
        name: Option<&str>,
        error_type: Option<&str>,
        start: usize,
        count: usize,
    ) -> leaseq::Result<leaseq::Found> {
        match self {
            Target::Plain(q) => q.find(state, name, error_type, start, count).await,
            Target::Partitioned(p) => p.find(state, name, error_type, start, count).await,
        }
    }

    /// Whether any entry of `state` follows position `from`, as `list` numbers positions: a page
    /// may be short (a cancelled item's stale id, an expired result: skipped, their positions
    /// counted), and `count` includes items waiting in groups, which `list` does not walk, so
    /// neither says. Asks for one entry from `from` (`find` looks at most 1000 positions on: a
    /// longer stretch of skipped positions says yes).
    pub async fn more_after(&self, state: State, from: usize) -> leaseq::Result<bool> {
        let rest = self.find(state, None, None, from, 1).await?;
        Ok(!rest.entries.is_empty() || rest.next.is_some())
    }

    /// Requeues the `n` oldest dead letters (of the logical queue, by time of death; all when
    /// `None`).
    pub async fn dead_requeue_oldest(&self, n: Option<u64>) -> leaseq::Result<u64> {
        match self {
            Target::Plain(q) => q.dead_requeue_oldest(n).await,
            Target::Partitioned(p) => p.dead_requeue_oldest(n).await,
        }
    }

    /// Purges the `n` oldest dead letters (of the logical queue, by time of death; all when
    /// `None`).
    pub async fn dead_purge(&self, n: Option<u64>) -> leaseq::Result<u64> {
        match self {
            Target::Plain(q) => q.dead_purge(n).await,
            Target::Partitioned(p) => p.dead_purge(n).await,
        }
    }

    /// The live runners: a partitioned queue's register in each partition, and each is listed
    /// once (the housekeeper is partition 0's).
    pub async fn runners(&self) -> leaseq::Result<leaseq::Runners> {
        let queues = self.queues();
        let mut found = queues[0].runners().await?;
        for part in &queues[1..] {
            let more = part.runners().await?;
            found.now_ms = found.now_ms.max(more.now_ms);
            for r in more.runners {
                if !found.runners.iter().any(|seen| seen.id == r.id) {
                    found.runners.push(r);
                }
            }
        }
        Ok(found)
    }

    /// Requeues the dead letters among `ids`, each in whichever partition holds it; whether
    /// each was.
    pub async fn dead_requeue_each(&self, ids: &[&str]) -> leaseq::Result<Vec<bool>> {
        match self {
            Target::Plain(q) => q.dead_requeue_each(ids).await,
            Target::Partitioned(p) => p.dead_requeue_each(ids).await,
        }
    }
}

/// The queues among `prefixes` as a user sees them: a partitioned queue's base with its
/// partitions, its partitions then left out of the list; every other queue as it is. One round
/// trip per prefix (its layout), 32 at a time.
pub async fn logical(
    client: &Client,
    prefixes: Vec<String>,
) -> leaseq::Result<Vec<(String, Option<Partitioned>)>> {
    use futures_util::{StreamExt, TryStreamExt};
    let mut out: Vec<(String, Option<Partitioned>)> = futures_util::stream::iter(prefixes)
        .map(|prefix| async move {
            let p = of(client, &prefix).await?;
            Ok::<_, leaseq::Error>((prefix, p))
        })
        .buffered(32)
        .try_collect()
        .await?;
    let inside: std::collections::HashSet<String> = out
        .iter()
        .filter_map(|(_, p)| p.as_ref())
        .flat_map(|p| p.partitions().iter().map(|q| q.prefix().to_owned()))
        .collect();
    out.retain(|(prefix, _)| !inside.contains(prefix));
    Ok(out)
}

/// The figures of queue `prefix`; for a partitioned base (`p`, from [`of`] or [`logical`]),
/// the logical queue's, with each partition's in `partitions` (its rate limit is partition 0's:
/// each partition has it).
pub async fn stats_view(
    q: &Queue,
    prefix: &str,
    p: Option<&Partitioned>,
) -> leaseq::Result<StatsView> {
    let Some(p) = p else {
        return StatsView::read(q, prefix).await;
    };
    let (stats, config) = tokio::try_join!(p.stats(), p.partitions()[0].config())?;
    let mut view = StatsView::new(prefix, &stats.total, &config);
    view.partitions = Some(
        p.partitions()
            .iter()
            .zip(&stats.partitions)
            .map(|(part, s)| StatsView::new(part.prefix(), s, &config))
            .collect(),
    );
    Ok(view)
}
