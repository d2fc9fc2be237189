//! `NativeQueue`: the core's queue operations as async methods.
//!
//! Leases cross the boundary as plain parts (`LeaseParts`); `complete` and `renew` get the id
//! and token back and rebuild the core `Lease` with `Queue::lease_from_parts`.

use leaseq::{CleanReport, Item, Lease, Queue};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::convert::{count, millis, wait, LeaseParts};
use crate::error::to_napi;

/// An item as the JS layer sends it.
#[napi(object)]
pub struct ItemParts {
    /// The item's id (already validated by the core when the `Item` was made).
    pub id: String,
    /// The item's data.
    pub data: Buffer,
}

/// What `complete_and_lease` did.
#[napi(object)]
pub struct CompleteAndLeaseParts {
    /// Whether this call completed the item.
    pub completed: bool,
    /// The next lease, if the queue had an item.
    pub next: Option<LeaseParts>,
}

/// What a clean did.
#[napi(object)]
pub struct CleanParts {
    /// Items put back in the queue.
    pub requeued: i64,
    /// Stale entries removed.
    pub removed: i64,
}

impl From<CleanReport> for CleanParts {
    fn from(report: CleanReport) -> CleanParts {
        CleanParts {
            requeued: count(report.requeued),
            removed: count(report.removed),
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

    fn lease_of(&self, id: &str, token: &str) -> napi::Result<Lease> {
        self.inner
            .lease_from_parts(id, token, token, 0)
            .map_err(to_napi)
    }
}

fn item(parts: ItemParts) -> napi::Result<Item> {
    Item::with_id(parts.id, parts.data.to_vec()).map_err(to_napi)
}

#[napi]
impl NativeQueue {
    /// The prefix of this queue's keys.
    #[napi(getter)]
    pub fn prefix(&self) -> String {
        self.inner.prefix().to_owned()
    }

    /// Adds an item unless its id exists; whether it was added.
    #[napi]
    pub async fn add(&self, item_parts: ItemParts) -> napi::Result<bool> {
        let item = item(item_parts)?;
        self.inner.add(&item).await.map_err(to_napi)
    }

    /// Adds an item without checking whether its id exists.
    #[napi]
    pub async fn add_unique(&self, item_parts: ItemParts) -> napi::Result<()> {
        let item = item(item_parts)?;
        self.inner.add_unique(&item).await.map_err(to_napi)
    }

    /// Adds every item whose id does not exist yet; how many were added.
    #[napi]
    pub async fn add_batch(&self, items: Vec<ItemParts>) -> napi::Result<i64> {
        let items = items
            .into_iter()
            .map(item)
            .collect::<napi::Result<Vec<_>>>()?;
        let added = self.inner.add_batch(&items).await.map_err(to_napi)?;
        Ok(count(added as u64))
    }

    /// Leases the next item for `ttl_ms`, waiting as `block` and `timeout_ms` say.
    #[napi]
    pub async fn lease(
        &self,
        ttl_ms: f64,
        block: bool,
        timeout_ms: Option<f64>,
    ) -> napi::Result<Option<LeaseParts>> {
        let ttl = millis("ttlMs", ttl_ms)?;
        let wait = wait(block, timeout_ms)?;
        let lease = self.inner.lease(ttl, wait).await.map_err(to_napi)?;
        Ok(lease.map(LeaseParts::from))
    }

    /// Completes the leased item; true for exactly one caller per item.
    #[napi]
    pub async fn complete(&self, id: String, token: String) -> napi::Result<bool> {
        let lease = self.lease_of(&id, &token)?;
        self.inner.complete(&lease).await.map_err(to_napi)
    }

    /// Completes the leased item and leases the next one (without waiting) in one round trip.
    #[napi]
    pub async fn complete_and_lease(
        &self,
        id: String,
        token: String,
        ttl_ms: f64,
    ) -> napi::Result<CompleteAndLeaseParts> {
        let lease = self.lease_of(&id, &token)?;
        let ttl = millis("ttlMs", ttl_ms)?;
        let (completed, next) = self
            .inner
            .complete_and_lease(&lease, ttl)
            .await
            .map_err(to_napi)?;
        Ok(CompleteAndLeaseParts {
            completed,
            next: next.map(LeaseParts::from),
        })
    }

    /// Extends the lease to `ttl_ms` from now while it is still this holder's.
    #[napi]
    pub async fn renew(&self, id: String, token: String, ttl_ms: f64) -> napi::Result<bool> {
        let lease = self.lease_of(&id, &token)?;
        let ttl = millis("ttlMs", ttl_ms)?;
        self.inner.renew(&lease, ttl).await.map_err(to_napi)
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

    /// How many ids wait in the queue.
    #[napi]
    pub async fn queue_len(&self) -> napi::Result<i64> {
        Ok(count(self.inner.queue_len().await.map_err(to_napi)?))
    }

    /// How many ids are in processing.
    #[napi]
    pub async fn processing_len(&self) -> napi::Result<i64> {
        Ok(count(self.inner.processing_len().await.map_err(to_napi)?))
    }
}
