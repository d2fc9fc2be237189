//! The queue's event stream (spec/PROTOCOL.md 14): a page of entries as plain objects, and
//! `NativeEvents`, a follower whose `next` waits on the runtime (never on the event loop) and
//! which `close` ends. `lib/events.js` wraps it as `EventFollower` (an async iterator and an
//! EventEmitter).

use std::sync::{Arc, Mutex as StdMutex};

use leaseq::{EventsPage, QueueEvent};
use napi_derive::napi;
use tokio::sync::{watch, Mutex};

use crate::convert::{count, ms_number};
use crate::error::to_napi;

/// One entry of the event stream: a transition of an item, or a `gap`.
#[napi(object, object_from_js = false)]
pub struct QueueEventParts {
    /// The entry's id in the stream (`<ms>-<seq>`): resume after it.
    pub id: String,
    /// What happened (`added`, `leased`, `completed`, ... or `gap`).
    pub event: String,
    /// The item's id (empty for a gap).
    pub job_id: String,
    /// The item's incarnation (empty before its first lease, for an item without options).
    pub inc: String,
    /// The item's attempts at the transition.
    pub attempt: i64,
    /// The failure's error, when there is one.
    pub error: Option<String>,
    /// The item's name, when it has one.
    pub name: Option<String>,
    /// When it runs next (ms since the epoch, server clock), when the transition sets it.
    pub due: Option<f64>,
    /// Why it is dead (`dead`).
    pub reason: Option<String>,
    /// The entry's time (ms since the epoch, server clock).
    pub time_ms: f64,
    /// Any other field of the entry, as `[field, value]` pairs in its order.
    pub extra: Vec<Vec<String>>,
    /// The partition whose stream it is in, from a partitioned queue's follower.
    pub partition: Option<u32>,
}

impl From<QueueEvent> for QueueEventParts {
    fn from(e: QueueEvent) -> QueueEventParts {
        QueueEventParts {
            id: e.id,
            event: e.event,
            job_id: e.job_id,
            inc: e.inc,
            attempt: count(e.attempt),
            error: e.error,
            name: e.name,
            due: e.due.map(ms_number),
            reason: e.reason,
            time_ms: ms_number(e.time_ms),
            extra: e.extra.into_iter().map(|(k, v)| vec![k, v]).collect(),
            // (A partition index is below leaseq::MAX_PARTITIONS.)
            partition: e.partition.map(|p| u32::try_from(p).unwrap_or(u32::MAX)),
        }
    }
}

/// One page of the event stream (`read_events`).
#[napi(object, object_from_js = false)]
pub struct EventsPageParts {
    /// The entries, oldest first (a `gap` first when some were trimmed away).
    pub events: Vec<QueueEventParts>,
    /// The stream's last id (`0-0` when it has none).
    pub last: String,
    /// Whether the queue's events are on.
    pub on: bool,
}

impl From<EventsPage> for EventsPageParts {
    fn from(p: EventsPage) -> EventsPageParts {
        EventsPageParts {
            events: p.events.into_iter().map(QueueEventParts::from).collect(),
            last: p.last,
            on: p.on,
        }
    }
}

/// Where a follower starts: after the position `after`, else now.
pub(crate) fn from(after: Option<String>) -> leaseq::EventsFrom {
    match after {
        Some(id) => leaseq::EventsFrom::After(id),
        None => leaseq::EventsFrom::Now,
    }
}

/// A follower of a queue's event stream (the core's `Events`). `next` waits for the next entry
/// on the runtime; `close` makes a waiting `next` (and every later one) resolve to null.
#[napi]
pub struct NativeEvents {
    inner: Arc<Mutex<leaseq::Events>>,
    closed: watch::Sender<bool>,
    position: Arc<StdMutex<Option<String>>>,
}

impl NativeEvents {
    pub(crate) fn new(inner: leaseq::Events) -> NativeEvents {
        NativeEvents {
            inner: Arc::new(Mutex::new(inner)),
            closed: watch::channel(false).0,
            position: Arc::new(StdMutex::new(None)),
        }
    }
}

#[napi]
impl NativeEvents {
    /// The next entry, waiting for it as long as it takes (outages are ridden through by the
    /// core); null once the follower is closed. One `next` runs at a time: the others wait.
    #[napi]
    pub async fn next(&self) -> napi::Result<Option<QueueEventParts>> {
        let mut closed = self.closed.subscribe();
        if *closed.borrow() {
            return Ok(None);
        }
        let inner = self.inner.clone();
        let position = self.position.clone();
        let got = tokio::select! {
            _ = closed.wait_for(|c| *c) => None,
            got = async move {
                let mut events = inner.lock().await;
                let ev = events.next().await;
                *position.lock().unwrap_or_else(|e| e.into_inner()) =
                    events.position().map(str::to_owned);
                ev
            } => Some(got),
        };
        match got {
            Some(got) => {
                // Closed as the entry came (`close` could not take the lock): the waits end
                // here all the same.
                if *self.closed.borrow() {
                    self.inner.lock().await.release();
                }
                got.map(|e| Some(e.into())).map_err(to_napi)
            }
            None => {
                // Closed while it waited (the wait, and its lock, are dropped by now): its
                // server-side waits end here.
                self.inner.lock().await.release();
                Ok(None)
            }
        }
    }

    /// Ends the follower: a `next` waiting now resolves to null, and so does every later one.
    /// Its server-side waits end now (here, or by the `next` it wakes), closing their
    /// connections rather than when the object is collected.
    #[napi]
    pub fn close(&self) {
        self.closed.send_replace(true);
        if let Ok(mut events) = self.inner.try_lock() {
            events.release();
        }
    }

    /// Where to resume (null before the first entry): the id of the last entry yielded, or a
    /// partitioned queue's one id per partition joined by `,`.
    #[napi(getter)]
    pub fn position(&self) -> Option<String> {
        self.position
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}
