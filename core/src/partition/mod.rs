//! Partitioned queues (spec/PROTOCOL.md 5.25): one logical queue stored as `P` partitions, each
//! a full queue under a prefix with a hash tag of its own, so that a Redis Cluster spreads them
//! over its primaries. A partitioned queue of one partition is the plain queue at its base.
//!
//! - `layout.rs`: the partitions' prefixes and the stored layout (`B:partitions`);
//! - `route.rs`: which partition an item goes to;
//! - `write.rs`: adds and leases;
//! - `finish.rs`: finishing leases (one or a batch), each in the partition that issued it;
//! - `ids.rs`: the calls that name an item by id (get, cancel, results, promote, dependencies,
//!   dead letters by id), each where the item is;
//! - `read.rs`: stats, counts, lists, the oldest dead letters, holds and settings over the
//!   logical queue;
//! - `groups.rs`: its groups, each in its own partition;
//! - `schedules.rs`: its recurring jobs, in partition 0;
//! - `events.rs`: its event follower, over every partition's stream.

mod events;
mod finish;
mod groups;
mod ids;
mod layout;
mod read;
mod route;
mod schedules;
mod write;

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use redis::Value;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::item::Item;
use crate::lease::Lease;
use crate::queue::Queue;
use crate::scripts;

pub use layout::MAX_PARTITIONS;
pub use read::PartitionedStats;

pub(crate) use layout::meta_key;
use layout::{validate_count, Layout};

/// One logical queue stored as partitions ([`Client::partitioned`],
/// [`Client::create_partitioned`]). Cheap to clone; clones share the client and the rotation
/// of leases over the partitions.
#[derive(Clone, Debug)]
pub struct Partitioned {
    base: String,
    partitions: Arc<[Queue]>,
    /// The partition a lease asks first next time (spec/PROTOCOL.md 5.25, "Leasing").
    next: Arc<AtomicUsize>,
}

impl Client {
    /// The logical queue named by `base`: its partitions as stored in `base:partitions`, or
    /// the plain queue at prefix `base` when there is no such key. Validates `base` (argument
    /// `prefix`); refuses a stored layout it cannot use (argument `partitions`), and one of more
    /// than one partition to a client of one server connected to a node of a multi-primary
    /// Cluster (argument `client`: connect as a Cluster client). One round trip.
    pub async fn partitioned(&self, base: &str) -> Result<Partitioned> {
        let home = self.queue(base)?;
        match read_layout(&home, base).await? {
            Some(layout) => self.open_layout(base, &layout),
            None => Ok(Partitioned::new(base, vec![home])),
        }
    }

    /// Creates (or opens) the logical queue `base` of `partitions` partitions, 1 to
    /// [`MAX_PARTITIONS`] (argument `partitions`); more than one need a hash tag in `base`
    /// (argument `prefix`). Idempotent for the same count; refused (argument `partitions`,
    /// nothing written) when `base` is stored with another count, or holds a plain queue (or a
    /// drained one's kept results) and `partitions` > 1; refused (argument `client`) for more
    /// than one partition to a client of one server connected to a node of a multi-primary
    /// Cluster. One partition writes nothing: it is the plain queue at `base`, byte for byte. At
    /// most two round trips (spec/PROTOCOL.md 5.25, "Creation").
    pub async fn create_partitioned(&self, base: &str, partitions: usize) -> Result<Partitioned> {
        validate_count(partitions)?;
        one_node_refused(self, base, partitions)?;
        let home = self.queue(base)?;
        let wanted = Layout::new(base, partitions, self.is_cluster())?;
        let stored = match read_layout(&home, base).await? {
            Some(stored) => Some(stored),
            None if partitions == 1 => return Ok(Partitioned::new(base, vec![home])),
            None => {
                // One call checks that the base holds no queue and writes the layout, so that
                // no add at the base comes between the two (spec/PROTOCOL.md 5.25, "Creation").
                let mut inv = home.invocation(&scripts::CREATE_LAYOUT);
                for key in home.keys().fixed() {
                    if key != meta_key(base) {
                        inv.key(key);
                    }
                }
                // And the index of kept results: a drained queue's results are a queue's too,
                // which the partitions would hide.
                inv.key(format!("{base}:done"));
                inv.arg(wanted.to_text());
                let reply: Vec<Vec<u8>> = home.invoke(&inv).await?;
                match reply.first().map(Vec::as_slice) {
                    Some(b"created") => None,
                    Some(b"stored") => {
                        let text = reply.get(1).map_or(&[][..], Vec::as_slice);
                        Some(Layout::parse(base, text, self.is_cluster())?)
                    }
                    Some(b"queue") => {
                        return Err(Error::invalid(
                            "partitions",
                            format!(
                                "`{base}` already holds a queue of one partition (items, \
                                 settings or kept results); a queue's partition count is fixed \
                                 when it is created"
                            ),
                        ))
                    }
                    _ => return Err(crate::reply::unexpected("create_layout reply", &Value::Nil)),
                }
            }
        };
        match stored {
            Some(stored) if stored.count != partitions => Err(Error::invalid(
                "partitions",
                format!(
                    "`{base}` is stored with {} partitions, not {partitions}; a queue's \
                     partition count is fixed when it is created",
                    stored.count
                ),
            )),
            Some(stored) => self.open_layout(base, &stored),
            None => self.open_layout(base, &wanted),
        }
    }

    fn open_layout(&self, base: &str, layout: &Layout) -> Result<Partitioned> {
        one_node_refused(self, base, layout.prefixes.len())?;
        let queues = layout
            .prefixes
            .iter()
            .map(|p| self.queue(p))
            .collect::<Result<Vec<_>>>()?;
        Ok(Partitioned::new(base, queues))
    }
}

/// Refuses (argument `client`) a partitioned queue of more than one partition to a client of
/// one server connected to a node of a multi-primary Cluster: its partitions live on every
/// primary, and a call over all of them would act on the node's own and fail on the others,
/// half done.
fn one_node_refused(client: &Client, base: &str, partitions: usize) -> Result<()> {
    match client.one_node_of() {
        Some(n) if partitions > 1 => Err(Error::invalid(
            "client",
            format!(
                "connects to one node of a Redis Cluster of {n} primaries, and `{base}`'s \
                 {partitions} partitions live on all of them: connect as a Cluster client ({}); \
                 nothing was written",
                crate::client::HOW_TO_CONNECT
            ),
        )),
        _ => Ok(()),
    }
}

/// The refusal of a partition index that is not below `count` (argument `partition`).
pub(crate) fn no_such_partition(count: usize) -> Error {
    Error::invalid(
        "partition",
        format!(
            "must be from 0 to {}: the queue has {count} partitions",
            count.saturating_sub(1)
        ),
    )
}

/// The layout stored under `base`, if any.
async fn read_layout(home: &Queue, base: &str) -> Result<Option<Layout>> {
    let mut cmd = redis::cmd("GET");
    cmd.arg(meta_key(base));
    let text: Option<Vec<u8>> = home.query(&cmd).await?;
    text.map(|t| Layout::parse(base, &t, home.client().is_cluster()))
        .transpose()
}

impl Partitioned {
    fn new(base: &str, partitions: Vec<Queue>) -> Partitioned {
        Partitioned {
            base: base.to_owned(),
            partitions: partitions.into(),
            next: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The base that names the logical queue.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The partitions, in order: partition `i` is `partitions()[i]`, a full queue.
    pub fn partitions(&self) -> &[Queue] {
        &self.partitions
    }

    /// Partition `i`, a full queue; refused (argument `partition`) when `i` is not below
    /// [`Partitioned::count`]. Sends nothing.
    pub fn partition(&self, i: usize) -> Result<&Queue> {
        self.partitions
            .get(i)
            .ok_or_else(|| no_such_partition(self.count()))
    }

    /// How many partitions the queue has.
    pub fn count(&self) -> usize {
        self.partitions.len()
    }

    /// The client the partitions use.
    pub fn client(&self) -> &Client {
        self.partitions[0].client()
    }

    /// The partition `item` goes to (spec/PROTOCOL.md 5.25, "Routing"): by its group when it
    /// has one, else by its first dependency's id, else by its id. The item is checked as an
    /// add checks it (an item an add would refuse is refused here, naming the argument). Sends
    /// nothing, so for an item with dependencies it answers as if each were in its id's
    /// partition: [`Partitioned::add`] looks them up, and takes the item where they are.
    pub fn partition_of(&self, item: &Item) -> Result<usize> {
        item.validate()?;
        Ok(route::of_key(route::key_of(item), self.count()))
    }

    /// The partition an item of id `id` without a group or dependencies goes to: where
    /// [`Partitioned::get`] looks first.
    pub fn partition_of_id(&self, id: impl AsRef<[u8]>) -> usize {
        route::of_key(id.as_ref(), self.count())
    }

    /// The partition that issued `lease`, where it must be finished; refuses a lease of
    /// another queue (argument `lease`).
    pub fn queue_of(&self, lease: &Lease) -> Result<&Queue> {
        self.partitions
            .iter()
            .find(|q| q.prefix() == &*lease.prefix)
            .ok_or_else(|| {
                Error::invalid(
                    "lease",
                    format!(
                        "belongs to queue `{}`, not to a partition of `{}`",
                        lease.prefix, self.base
                    ),
                )
            })
    }

    /// The partition that holds the logical queue's schedules (spec/PROTOCOL.md 5.25):
    /// partition 0.
    pub fn schedules_queue(&self) -> &Queue {
        &self.partitions[0]
    }
}
