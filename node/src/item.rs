//! `NativeItem`: a core `Item`, built (and its id checked) once when JavaScript makes an `Item`,
//! then passed by reference to every add: no per-add conversion or copy of its data.

use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::convert::{integer, millis, time, BackoffParts};
use crate::error::to_napi;

/// The options of an item as JavaScript gives them (`lib/item.js` checks their types). Values
/// are the core's to judge, when the item is added.
#[napi(object, object_to_js = false)]
pub struct ItemOptions {
    /// Runs no earlier than this long after it is stored.
    pub delay_ms: Option<f64>,
    /// Runs no earlier than this time (ms since the epoch, server clock).
    pub run_at_ms: Option<f64>,
    /// Higher runs first.
    pub priority: Option<f64>,
    /// Attempts before the item is dead (0: no limit).
    pub max_attempts: Option<f64>,
    /// The delay after a failed attempt.
    pub backoff: Option<BackoffParts>,
    /// Dead if not leased this long after it was added.
    pub expires_after_ms: Option<f64>,
    /// How long a result given to `complete` is kept.
    pub keep_result_for_ms: Option<f64>,
    /// The item's group: at most the group's limit of its items are leased at once.
    pub group: Option<String>,
    /// The item's name: what kind of job it is, for a runner's handlers by name.
    pub name: Option<String>,
    /// The ids of the items this one waits for (spec 5.24).
    pub depends_on: Option<Vec<String>>,
    /// `fail` or `run`: what it does when a dependency dies or is cancelled.
    pub on_dependency_failure: Option<String>,
}

/// An item; `lib/item.js` wraps it as `Item`.
#[napi]
pub struct NativeItem {
    pub(crate) inner: leaseq::Item,
}

#[napi]
impl NativeItem {
    /// An item of `data` (copied) with `id` (checked by the core), or a random id, and options.
    #[napi(constructor)]
    pub fn new(
        data: &[u8],
        id: Option<String>,
        options: Option<ItemOptions>,
    ) -> napi::Result<NativeItem> {
        let mut item = match id {
            Some(id) => leaseq::Item::with_id(id, data).map_err(to_napi)?,
            None => leaseq::Item::new(data),
        };
        if let Some(o) = options {
            if let Some(ms) = o.delay_ms {
                item = item.delay(millis("delayMs", ms)?);
            }
            if let Some(ms) = o.run_at_ms {
                item = item.run_at(time("runAt", ms)?);
            }
            if let Some(p) = o.priority {
                item = item.priority(integer("priority", p)?);
            }
            if let Some(m) = o.max_attempts {
                item = item.max_attempts(integer("maxAttempts", m)?);
            }
            if let Some(b) = &o.backoff {
                item = item.backoff(b.to_core()?);
            }
            if let Some(ms) = o.expires_after_ms {
                item = item.expires_after(millis("expiresAfterMs", ms)?);
            }
            if let Some(ms) = o.keep_result_for_ms {
                item = item.keep_result_for(millis("keepResultForMs", ms)?);
            }
            if let Some(g) = o.group {
                item = item.group(g);
            }
            if let Some(n) = o.name {
                item = item.name(n);
            }
            if let Some(ids) = o.depends_on {
                item = item.depends_on(ids);
            }
            if let Some(p) = o.on_dependency_failure {
                item = item.on_dependency_failure(
                    leaseq::OnDependencyFailure::parse(&p).map_err(to_napi)?,
                );
            }
        }
        // The core's checks, so that a bad option is refused here, naming it, not at `add`.
        item.validate().map_err(to_napi)?;
        Ok(NativeItem { inner: item })
    }

    /// The id.
    #[napi(getter)]
    pub fn id(&self) -> String {
        self.inner.id().to_owned()
    }

    /// A copy of the data.
    #[napi(getter)]
    pub fn data(&self) -> Buffer {
        self.inner.data().to_vec().into()
    }
}
