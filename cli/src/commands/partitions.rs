//! Partitioned queues (spec/PROTOCOL.md 5.25): `leaseq create --partitions`, and the logical
//! queue behind a base for `stats`, `ls`, `get` and `cancel` (each partition's figures beside
//! the queue's).

use leaseq::{Client, Entry, Job, Partitioned, Queue, State};
use serde::Serialize;

use crate::fail::Outcome;
use crate::output;
use crate::view::StatsView;

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
    println!("{base}: {} partition(s)", prefixes.len());
    for (i, prefix) in prefixes.iter().enumerate() {
        println!("  {i}  {prefix}");
    }
    Ok(())
}

/// The partitioned queue named by `base`, when it has more than one partition.
pub async fn of(client: &Client, base: &str) -> leaseq::Result<Option<Partitioned>> {
    let p = client.partitioned(base).await?;
    Ok((p.count() > 1).then_some(p))
}

/// The queues among `prefixes` as a user sees them: a partitioned queue's base with its
/// partitions, its partitions then left out of the list; every other queue as it is. One round
/// trip per prefix (its layout).
pub async fn logical(
    client: &Client,
    prefixes: Vec<String>,
) -> leaseq::Result<Vec<(String, Option<Partitioned>)>> {
    let mut out = Vec::with_capacity(prefixes.len());
    for prefix in prefixes {
        let p = of(client, &prefix).await?;
        out.push((prefix, p));
    }
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

/// `list` over the logical queue `base` (its partitions one after another) or the plain queue.
pub async fn list(
    client: &Client,
    q: &Queue,
    base: &str,
    state: State,
    start: usize,
    count: usize,
) -> leaseq::Result<Vec<Entry>> {
    match of(client, base).await? {
        Some(p) => p.list(state, start, count).await,
        None => q.list(state, start, count).await,
    }
}

/// `get` in whichever partition of `base` holds `id`, or in the plain queue.
pub async fn get(client: &Client, q: &Queue, base: &str, id: &str) -> leaseq::Result<Option<Job>> {
    match of(client, base).await? {
        Some(p) => p.get(id).await,
        None => q.get(id).await,
    }
}

/// `cancel` in whichever partition of `base` holds `id`, or in the plain queue.
pub async fn cancel(
    client: &Client,
    q: &Queue,
    base: &str,
    id: &str,
) -> leaseq::Result<Option<State>> {
    match of(client, base).await? {
        Some(p) => p.cancel(id).await,
        None => q.cancel(id).await,
    }
}
