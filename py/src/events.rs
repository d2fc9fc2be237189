//! The event stream (spec/PROTOCOL.md 14) in Python: `QueueEvent`, `EventsPage`, the sync
//! follower `Events` (an iterator that blocks without the GIL, Ctrl-C checked every slice) and
//! the asyncio follower `AsyncEvents` (whose `next()` is an asyncio future; `leaseq.aio` wraps
//! it in an async iterator).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use leaseq::blocking;
use pyo3::prelude::*;

use crate::convert;
use crate::errors;
use crate::time;

/// The longest a follower waits without the GIL before checking for signals.
const WAIT_SLICE: Duration = Duration::from_millis(500);

/// One entry of a queue's event stream: a transition of an item (``Queue.events``,
/// ``Queue.read_events``).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct QueueEvent {
    inner: leaseq::QueueEvent,
}

impl From<leaseq::QueueEvent> for QueueEvent {
    fn from(inner: leaseq::QueueEvent) -> QueueEvent {
        QueueEvent { inner }
    }
}

#[pymethods]
impl QueueEvent {
    /// The entry's id in the stream (``"<ms>-<seq>"``): resume after it (``events(after=id)``).
    #[getter]
    fn id(&self) -> &str {
        &self.inner.id
    }

    /// What happened: ``added``, ``delayed``, ``blocked``, ``unblocked``, ``leased``,
    /// ``progress``, ``completed``, ``failed``, ``retrying``, ``dead``, ``released``,
    /// ``cancelled``, ``requeued``,
    /// ``expired``, ``promoted``, or ``gap`` (entries were trimmed away before they were read).
    #[getter]
    fn event(&self) -> &str {
        &self.inner.event
    }

    /// The item's id (empty for a gap).
    #[getter]
    fn job_id(&self) -> &str {
        &self.inner.job_id
    }

    /// The item's incarnation (empty for an item without options not leased yet).
    #[getter]
    fn inc(&self) -> &str {
        &self.inner.inc
    }

    /// The item's attempts at the transition.
    #[getter]
    fn attempt(&self) -> u64 {
        self.inner.attempt
    }

    /// The failure's error (``failed``; ``dead`` when the death came with one).
    #[getter]
    fn error(&self) -> Option<&str> {
        self.inner.error.as_deref()
    }

    /// The item's name, when it has one.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.inner.name.as_deref()
    }

    /// When it runs next (``delayed``, ``retrying``, ``released``): a UTC ``datetime``.
    #[getter]
    fn due<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_datetime_ms(py, self.inner.due)
    }

    /// Why it is dead (``dead``).
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.inner.reason.as_deref()
    }

    /// The entry's time (the server's clock): a UTC ``datetime``.
    #[getter]
    fn time<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        time::datetime_ms(py, self.inner.time_ms)
    }

    /// Any other field of the entry (``state`` of a cancel, ``first`` of a gap).
    #[getter]
    fn extra(&self) -> Vec<(String, String)> {
        self.inner.extra.clone()
    }

    /// The partition whose stream it is in, from a partitioned queue's follower
    /// (``PartitionedQueue.events``); ``None`` from a queue's.
    #[getter]
    fn partition(&self) -> Option<usize> {
        self.inner.partition
    }

    fn __repr__(&self) -> String {
        let partition = self
            .inner
            .partition
            .map_or(String::new(), |p| format!(", partition={p}"));
        format!(
            "QueueEvent(id={:?}, event={:?}, job_id={:?}, attempt={}{partition})",
            self.inner.id, self.inner.event, self.inner.job_id, self.inner.attempt
        )
    }
}

/// One page of a queue's event stream (``Queue.read_events``).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct EventsPage {
    inner: leaseq::EventsPage,
}

impl From<leaseq::EventsPage> for EventsPage {
    fn from(inner: leaseq::EventsPage) -> EventsPage {
        EventsPage { inner }
    }
}

#[pymethods]
impl EventsPage {
    /// The entries, oldest first (a ``gap`` entry first when some were trimmed away).
    #[getter]
    fn events(&self) -> Vec<QueueEvent> {
        self.inner
            .events
            .iter()
            .cloned()
            .map(QueueEvent::from)
            .collect()
    }

    /// The stream's last id (``"0-0"`` when it has none).
    #[getter]
    fn last(&self) -> &str {
        &self.inner.last
    }

    /// Whether the queue's events are on.
    #[getter]
    fn on(&self) -> bool {
        self.inner.on
    }

    fn __repr__(&self) -> String {
        format!(
            "EventsPage(events=[{} entries], last={:?}, on={})",
            self.inner.events.len(),
            self.inner.last,
            self.inner.on
        )
    }
}

/// A follower of a queue's event stream (``Queue.events``), or of every partition's at once
/// (``PartitionedQueue.events``): iterate it for each entry, in order; each step waits
/// (without the GIL, Ctrl-C interrupting it) until one comes. It rides through lost
/// connections and restarts; ``position`` is where to resume.
#[pyclass(module = "leaseq")]
pub struct Events {
    inner: Arc<Mutex<blocking::Events>>,
}

impl Events {
    pub fn new(inner: blocking::Events) -> Events {
        Events {
            inner: Arc::new(Mutex::new(inner)),
        }
    }
}

#[pymethods]
impl Events {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<QueueEvent> {
        let inner = self.inner.clone();
        loop {
            let next = py.detach(|| {
                let mut follower = inner.lock().unwrap_or_else(|e| e.into_inner());
                follower.next_timeout(WAIT_SLICE)
            });
            match next {
                Ok(Some(e)) => return Ok(QueueEvent::from(e)),
                Ok(None) => py.check_signals()?,
                Err(e) => return Err(errors::to_py(py, e)),
            }
        }
    }

    /// Ends the follower's server-side waits now, closing their connections (dropping it does
    /// too); iterating it again waits again.
    fn close(&self, py: Python<'_>) {
        let inner = self.inner.clone();
        py.detach(|| {
            inner.lock().unwrap_or_else(|e| e.into_inner()).close();
        });
    }

    /// Where to resume (``None`` before the first entry): a queue's follower gives the id of
    /// the last entry given; a partitioned queue's, an id per partition joined by ``,``. Store
    /// it, and pass it as ``after`` to resume after it.
    #[getter]
    fn position(&self) -> Option<String> {
        let follower = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        follower.position().map(str::to_owned)
    }
}

/// The asyncio follower (``leaseq.aio.Queue.events`` wraps it in an async iterator): each
/// ``next()`` is an asyncio future of the next entry (``None`` once closed); cancelling it
/// stops that call only, the follower's server-side waits being kept for the next one.
#[pyclass(module = "leaseq")]
pub struct AsyncEvents {
    inner: Arc<tokio::sync::Mutex<leaseq::Events>>,
    closed: tokio::sync::watch::Sender<bool>,
}

impl AsyncEvents {
    pub fn new(inner: leaseq::Events) -> AsyncEvents {
        AsyncEvents {
            inner: Arc::new(tokio::sync::Mutex::new(inner)),
            closed: tokio::sync::watch::channel(false).0,
        }
    }
}

#[pymethods]
impl AsyncEvents {
    /// The next entry, as an asyncio future; ``None`` once the follower is closed (a ``next()``
    /// waiting when it is closed too).
    fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        let mut closed = self.closed.subscribe();
        crate::aio::spawn(py, async move {
            if *closed.borrow() {
                return Ok(None);
            }
            let waited = inner.clone();
            let got = tokio::select! {
                _ = closed.wait_for(|c| *c) => None,
                got = async move { waited.lock().await.next().await } => Some(got),
            };
            match got {
                Some(got) => {
                    // Closed as the entry came (`close` could not take the lock): the waits end
                    // here all the same.
                    if *closed.borrow() {
                        inner.lock().await.release();
                    }
                    got.map(|e| Some(QueueEvent::from(e)))
                }
                None => {
                    // Closed while it waited (the wait and its lock are dropped by now): its
                    // server-side waits end here.
                    inner.lock().await.release();
                    Ok(None)
                }
            }
        })
    }

    /// Ends the follower: a ``next()`` waiting now gives ``None``, and so does every later one;
    /// its server-side waits end now, closing their connections.
    fn close(&self) {
        self.closed.send_replace(true);
        let inner = self.inner.clone();
        if let Ok(mut follower) = inner.try_lock() {
            follower.release();
            return;
        }
        // A next() holds it, or its cancellation has not reached it yet: release once it lets
        // go.
        if let Ok(runtime) = leaseq::runtime::handle() {
            runtime.spawn(async move { inner.lock().await.release() });
        }
    }

    /// Where to resume, as ``Events.position`` (``None`` before the first entry, or while a
    /// ``next()`` runs).
    #[getter]
    fn position(&self) -> Option<String> {
        self.inner
            .try_lock()
            .ok()
            .and_then(|f| f.position().map(str::to_owned))
    }
}

/// The `after` argument of `events` as where a follower starts: `None` is now.
pub fn from(obj: Option<&Bound<'_, PyAny>>) -> PyResult<leaseq::EventsFrom> {
    Ok(match after(obj)? {
        Some(id) => leaseq::EventsFrom::After(id),
        None => leaseq::EventsFrom::Now,
    })
}

/// The `after` argument of `events` and `read_events`: `None` or an entry id (`str`).
pub fn after(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    match obj {
        Some(o) if !o.is_none() => Ok(Some(convert::string(o, "after")?)),
        _ => Ok(None),
    }
}

/// The event settings of `set_config`, onto `config`.
pub fn config(
    mut config: leaseq::QueueConfig,
    events: Option<&Bound<'_, PyAny>>,
    events_max_len: Option<&Bound<'_, PyAny>>,
    events_max_age: Option<&Bound<'_, PyAny>>,
) -> PyResult<leaseq::QueueConfig> {
    if let Some(on) = events.filter(|e| !e.is_none()) {
        config = config.events(convert::boolean(on, "events")?);
    }
    if let Some(n) = convert::opt_integer(events_max_len, "events_max_len")? {
        config = config.events_max_len(n);
    }
    if let Some(d) = convert::opt_seconds(events_max_age, "events_max_age")? {
        config = config.events_max_age(d);
    }
    Ok(config)
}
