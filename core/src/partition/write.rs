//! Adds, leases and finishes on a partitioned queue (spec/PROTOCOL.md 5.25).

use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::future::try_join_all;

use super::{route, Partitioned};
use crate::error::{Error, Result};
use crate::item::Item;
use crate::lease::{ttl_millis, Lease, Wait};
use crate::ops::Flow;
use crate::worker::queues::{lease_any, Looks};

/// The longest single wait of a lease that waits forever, after which it looks again.
const WAIT_SLICE: Duration = Duration::from_secs(5);

impl Partitioned {
    /// Adds `item` to its partition unless an item with its id exists there; returns whether it
    /// was added. Its partition is its group's, else its dependencies' (located first, spec/
    /// PROTOCOL.md 5.25, "Dependencies and flows"), else its id's. Refuses (argument
    /// `depends_on`, nothing written) an item whose dependencies are in two partitions, or in
    /// another than its group's. One round trip; one more (to every partition at once) for an
    /// item with dependencies.
    pub async fn add(&self, item: &Item) -> Result<bool> {
        item.validate()?;
        let at = self.route(std::slice::from_ref(item)).await?[0];
        self.partitions[at].add(item).await
    }

    /// Adds `item` to its partition (routed as [`Partitioned::add`] routes it) without checking
    /// whether its id exists there, as [`crate::Queue::add_unique`] does: the caller guarantees
    /// a fresh id (a random UUID from [`Item::new`] is). One round trip; one more (to every
    /// partition at once) for an item with dependencies.
    pub async fn add_unique(&self, item: &Item) -> Result<()> {
        item.validate()?;
        let at = self.route(std::slice::from_ref(item)).await?[0];
        self.partitions[at].add_unique(item).await
    }

    /// [`Partitioned::add`] that waits for room when its partition is bounded and full, as
    /// [`crate::Queue::add_wait`] does there.
    pub async fn add_wait(&self, item: &Item, wait: Wait) -> Result<bool> {
        item.validate()?;
        let at = self.route(std::slice::from_ref(item)).await?[0];
        self.partitions[at].add_wait(item, wait).await
    }

    /// The partition of each of `items`, their dependencies located first when any has some
    /// (one round trip to every partition at once; none without dependencies).
    async fn route(&self, items: &[Item]) -> Result<Vec<usize>> {
        if self.count() == 1 {
            return Ok(vec![0; items.len()]);
        }
        if items.iter().all(|item| item.dependencies().is_empty()) {
            // Nothing to look up, nothing to check: each item by its group, else its id,
            // without the tables the dependencies need.
            return Ok(items
                .iter()
                .map(|item| route::of_key(route::key_of(item), self.count()))
                .collect());
        }
        let located = self.locate(&route::to_locate(items)).await?;
        route::route_all(items, &located, self.count())
    }

    /// Adds every item whose id does not exist yet in its partition (as [`Partitioned::add`]
    /// routes it: a dependency that is an earlier item of the batch is where that item goes)
    /// and returns how many were added: one script call per partition touched, sent
    /// concurrently (one round trip each, at the same time; one more, to every partition at
    /// once, when items have dependencies to locate). Every item is checked first; nothing is
    /// written when one is refused.
    /// Each partition's part is atomic per item as in [`crate::Queue::add_batch`]; after an
    /// error, adding the same batch again adds only what is missing.
    pub async fn add_batch(&self, items: &[Item]) -> Result<usize> {
        self.add_parts(items, None).await
    }

    /// [`Partitioned::add_batch`] that waits for room, each partition's part as
    /// [`crate::Queue::add_batch_wait`] does there (the parts wait at the same time). A part
    /// refused for want of room ([`crate::Error::Full`]) leaves the other parts' items added,
    /// as any error does in [`Partitioned::add_batch`].
    pub async fn add_batch_wait(&self, items: &[Item], wait: Wait) -> Result<usize> {
        self.add_parts(items, Some(wait)).await
    }

    async fn add_parts(&self, items: &[Item], wait: Option<Wait>) -> Result<usize> {
        if self.count() == 1 {
            // The plain queue: no routing, no copy of the batch.
            return add_to(&self.partitions[0], items, wait).await;
        }
        let single = items.len() == 1;
        for item in items {
            item.validate()
                .map_err(|e| crate::ops::add::in_batch(item, e, single))?;
        }
        // A dependency on a later item of the call is refused for the whole batch, as a
        // queue's add refuses it (its parts would check only their own items).
        if items.iter().any(|item| !item.dependencies().is_empty()) {
            crate::ops::add::check_dependency_order(items)?;
        }
        let mut parts: Vec<Vec<Item>> = vec![Vec::new(); self.count()];
        for (item, at) in items.iter().zip(self.route(items).await?) {
            parts[at].push(item.clone());
        }
        let calls = parts
            .iter()
            .zip(self.partitions.iter())
            .filter(|(part, _)| !part.is_empty())
            .map(|(part, queue)| add_to(queue, part, wait));
        Ok(try_join_all(calls).await?.into_iter().sum())
    }

    /// Adds `parent` and its `children` as [`crate::Queue::add_flow`] does, every item of the
    /// flow to one partition: the one its root `parent` routes to by its group, else its id.
    /// A dependency of an item of the flow on an item outside it is located first (spec/
    /// PROTOCOL.md 5.25, "Dependencies and flows"); the flow is refused (nothing written) when
    /// one is in another partition (argument `depends_on`), or when an item's group lives in
    /// another partition (argument `group`). One round trip; one more (to every partition at
    /// once) when items depend on items outside the flow.
    pub async fn add_flow(&self, parent: &Item, children: &[Flow]) -> Result<usize> {
        if self.count() == 1 {
            return self.partitions[0].add_flow(parent, children).await;
        }
        let items = crate::ops::deps::flow_items(parent, children)?;
        let single = items.len() == 1;
        for item in &items {
            item.validate()
                .map_err(|e| crate::ops::add::in_batch(item, e, single))?;
        }
        let key = parent
            .group_name()
            .map_or(parent.id().as_bytes(), str::as_bytes);
        let at = route::of_key(key, self.count());
        route::check_flow_groups(&items, at, self.count())?;
        let outside = route::outside_flow(&items);
        if !outside.is_empty() {
            let located = self.locate(&outside).await?;
            route::check_flow(&outside, &located, at)?;
        }
        self.partitions[at].add_batch(&items).await
    }

    /// Leases one item from any partition, asked in a rotating order; with a wait, waits on
    /// every partition at once (spec/PROTOCOL.md 5.25, "Leasing"). Finish it through
    /// [`Partitioned::queue_of`] (or [`Partitioned::complete`], [`Partitioned::fail`]).
    pub async fn lease(&self, ttl: Duration, wait: Wait) -> Result<Option<Lease>> {
        Ok(self.lease_batch(1, ttl, wait).await?.into_iter().next())
    }

    /// Leases up to `n` items (1 to 1000, argument `n`), from as many partitions as it takes in
    /// a rotating order, one no-wait lease per partition asked, stopping once it has `n`; with
    /// a wait and nothing found, waits on every partition at once.
    pub async fn lease_batch(&self, n: usize, ttl: Duration, wait: Wait) -> Result<Vec<Lease>> {
        if !(1..=crate::policy::MAX_PAGE).contains(&n) {
            return Err(Error::invalid(
                "n",
                format!("must be 1 to {}", crate::policy::MAX_PAGE),
            ));
        }
        let ttl_ms = ttl_millis(ttl)?;
        let count = self.count();
        let first = self.next.fetch_add(1, Ordering::Relaxed) % count;
        let order: Vec<usize> = (0..count).map(|k| (first + k) % count).collect();
        if count == 1 {
            return self.partitions[0].lease_batch(n, ttl, wait).await;
        }
        let slice = match wait {
            Wait::No => {
                // A partition that fails (its primary down, failing over) does not cost the
                // leases the ones before it gave: they are returned, not dropped (they would
                // run only once expired). Its error is the answer when none gave any.
                let mut got = Vec::new();
                let mut failed = None;
                for &i in &order {
                    match self.partitions[i].try_lease(n - got.len(), ttl_ms).await {
                        Ok((leases, _, _)) => got.extend(leases),
                        Err(e) => {
                            failed.get_or_insert(e);
                        }
                    }
                    if got.len() >= n {
                        break;
                    }
                }
                return match failed {
                    Some(e) if got.is_empty() => Err(e),
                    _ => Ok(got),
                };
            }
            Wait::Timeout(d) => Some(d),
            Wait::Forever => None,
        };
        let mut looks = Looks::new(count, true);
        loop {
            let wait = slice.unwrap_or(WAIT_SLICE);
            let got = lease_any(
                &self.partitions,
                &order,
                n,
                ttl,
                wait,
                &mut looks,
                std::future::pending(),
            )
            .await?
            // A partition that failed beside leases from others: the caller gets the leases,
            // as from the no-wait path.
            .0;
            if !got.is_empty() || slice.is_some() {
                return Ok(got.into_iter().map(|(_, l)| l).collect());
            }
            if self.client().is_closed() {
                return Err(Error::Closed);
            }
        }
    }
}

/// Adds `items` to `queue`, waiting for room as `wait` says when it is given.
async fn add_to(queue: &crate::Queue, items: &[Item], wait: Option<Wait>) -> Result<usize> {
    match wait {
        Some(wait) => queue.add_batch_wait(items, wait).await,
        None => queue.add_batch(items).await,
    }
}
