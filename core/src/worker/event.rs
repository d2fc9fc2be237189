//! What a runner reports as it goes ([`Event`]) and when it ends ([`Report`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::error::Error;
use crate::lease::RenewOutcome;

/// Something a runner did or met, for logs and metrics.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Event {
    /// A job completed (its handler succeeded and the complete took effect).
    Completed {
        /// The item's id.
        id: String,
        /// Which attempt succeeded.
        attempt: u64,
    },
    /// A job failed and will run again after `retry_in`.
    Retrying {
        /// The item's id.
        id: String,
        /// Which attempt failed.
        attempt: u64,
        /// The handler's error message.
        error: String,
        /// The delay before the next attempt.
        retry_in: Duration,
    },
    /// A job failed for good: out of attempts, or unrecoverable. It is in the dead letters.
    Dead {
        /// The item's id.
        id: String,
        /// Which attempt failed.
        attempt: u64,
        /// The handler's error message.
        error: String,
    },
    /// A job's handler asked to hand the item back, or a shutdown released it.
    Released {
        /// The item's id.
        id: String,
    },
    /// A job's lease was lost: a renew found it gone (`why`), or its outcome found it no longer
    /// held. Its handler was told; the item may run again elsewhere.
    LeaseLost {
        /// The item's id.
        id: String,
        /// What the renew or outcome found.
        why: RenewOutcome,
    },
    /// A step met an error. Retryable errors (Redis away, loading, failing over) are reported
    /// once per outage; the runner pauses and goes on.
    Error {
        /// The step: `config` (storing the `stats` setting as the runner starts), `lease`,
        /// `finish`, `renew`, `beat`, `clean`.
        during: &'static str,
        /// The error.
        error: Arc<Error>,
    },
    /// A step works again after an [`Event::Error`].
    Recovered {
        /// The step.
        during: &'static str,
    },
}

/// A sink for events: called on the runtime's threads, so it must be quick.
pub type EventSink = Arc<dyn Fn(&Event) + Send + Sync>;

/// What a runner did, counted from its start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// Jobs completed.
    pub completed: u64,
    /// Failures that will be retried.
    pub retried: u64,
    /// Jobs sent to the dead letters.
    pub dead: u64,
    /// Jobs whose lease was lost.
    pub lost: u64,
    /// Jobs released (by their handler, or at shutdown).
    pub released: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub completed: AtomicU64,
    pub retried: AtomicU64,
    pub dead: AtomicU64,
    pub lost: AtomicU64,
    pub released: AtomicU64,
}

impl Counters {
    pub fn report(&self) -> Report {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        Report {
            completed: get(&self.completed),
            retried: get(&self.retried),
            dead: get(&self.dead),
            lost: get(&self.lost),
            released: get(&self.released),
        }
    }

    pub fn count(&self, event: &Event) {
        let counter = match event {
            Event::Completed { .. } => &self.completed,
            Event::Retrying { .. } => &self.retried,
            Event::Dead { .. } => &self.dead,
            Event::LeaseLost { .. } => &self.lost,
            Event::Released { .. } => &self.released,
            _ => return,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}
