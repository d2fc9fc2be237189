//! The queue's event stream (spec/PROTOCOL.md 14): one entry per transition of an item in
//! `P:events` while the queue's events are on, read a page at a time ([`Queue::read_events`]) or
//! followed ([`Queue::events`]), from now or resuming after an entry a process saw before.

use std::collections::VecDeque;
use std::time::Duration;

use redis::Value;

use crate::conn::{Deadline, Schedule, Verdict, Waiter};
use crate::error::{Error, Result};
use crate::lease::Wait;
use crate::queue::Queue;
use crate::scripts;

/// The most entries one page reads ([`Queue::read_events`]'s `count`).
pub const MAX_EVENTS_PAGE: usize = 1000;

/// How many entries a follower reads at a time.
const FOLLOW_PAGE: usize = 100;

/// The kind of the entry a follower yields when entries after its position were trimmed away
/// before it read them (spec/PROTOCOL.md 14.3): it is no transition of an item.
pub const GAP: &str = "gap";

/// Where a follower of the event stream starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventsFrom {
    /// The entries appended from now on.
    Now,
    /// The entries after this entry id (`<ms>-<seq>`, as a [`QueueEvent::id`]; `0-0`: every
    /// entry still in the stream): a process that restarts resumes after the last one it saw.
    After(String),
}

/// One entry of the event stream: a transition of an item (spec/PROTOCOL.md 14.2).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct QueueEvent {
    /// The entry's id in the stream (`<ms>-<seq>`, the server's clock): resume after it.
    pub id: String,
    /// What happened: `added`, `delayed`, `leased`, `progress`, `completed`, `failed`,
    /// `retrying`, `dead`, `cancelled`, `released`, `requeued`, `expired`, `promoted`, or
    /// [`GAP`]. Kinds added later come as they are named.
    pub event: String,
    /// The item's id (empty for a gap).
    pub job_id: String,
    /// The item's incarnation (empty for an item without options not leased yet).
    pub inc: String,
    /// The item's attempts at the transition (0 before its first lease).
    pub attempt: u64,
    /// The failure's error (`failed`; `dead` when the death came with one).
    pub error: Option<String>,
    /// The item's name, when it has one.
    pub name: Option<String>,
    /// When it runs next (ms since the epoch, server clock): `delayed`, `retrying`, `released`.
    pub due: Option<u64>,
    /// Why it is dead (`dead`).
    pub reason: Option<String>,
    /// The entry's time: milliseconds since the epoch, the server's clock (from its id).
    pub time_ms: u64,
    /// Any other field of the entry, in its order (`cancelled`'s `state`; a gap's `first`, the
    /// first entry kept).
    pub extra: Vec<(String, String)>,
}

/// One page of the event stream ([`Queue::read_events`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EventsPage {
    /// The entries, oldest first; a [`GAP`] entry first when entries after `after` were
    /// trimmed away before this read.
    pub events: Vec<QueueEvent>,
    /// The stream's last id (`0-0` when it has none): where a follower from now starts.
    pub last: String,
    /// Whether the queue's events are on now.
    pub on: bool,
}

/// Checks an event id given by a caller (argument `after`): `<ms>-<seq>` or `<ms>`, decimal.
pub(crate) fn validate_event_id(id: &str) -> Result<String> {
    let bad = || {
        Error::invalid(
            "after",
            format!("`{id}` is no event id (`<ms>-<seq>`, as an event's id)"),
        )
    };
    let (ms, seq) = match id.split_once('-') {
        Some((ms, seq)) => (ms, seq),
        None => (id, "0"),
    };
    for part in [ms, seq] {
        if part.is_empty() || part.len() > 20 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        part.parse::<u64>().map_err(|_| bad())?;
    }
    Ok(format!(
        "{}-{}",
        ms.parse::<u64>().map_err(|_| bad())?,
        seq.parse::<u64>().map_err(|_| bad())?
    ))
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::BulkString(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::SimpleString(s) => Some(s.clone()),
        Value::Int(n) => Some(n.to_string()),
        _ => None,
    }
}

fn malformed(what: &str) -> Error {
    crate::reply::unexpected(what, &Value::Nil)
}

/// One XRANGE/XREAD entry, `[id, [field, value, ...]]`.
fn parse_entry(v: &Value) -> Result<QueueEvent> {
    let Value::Array(parts) = v else {
        return Err(malformed("entry"));
    };
    let id = parts
        .first()
        .and_then(text)
        .ok_or_else(|| malformed("entry id"))?;
    let fields = match parts.get(1) {
        Some(Value::Array(f)) => f.as_slice(),
        _ => &[],
    };
    let mut ev = QueueEvent {
        time_ms: id
            .split('-')
            .next()
            .and_then(|ms| ms.parse().ok())
            .unwrap_or(0),
        id,
        event: String::new(),
        job_id: String::new(),
        inc: String::new(),
        attempt: 0,
        error: None,
        name: None,
        due: None,
        reason: None,
        extra: Vec::new(),
    };
    for pair in fields.chunks(2) {
        let (Some(f), Some(v)) = (pair.first().and_then(text), pair.get(1).and_then(text)) else {
            continue;
        };
        match f.as_str() {
            "event" => ev.event = v,
            "id" => ev.job_id = v,
            "inc" => ev.inc = v,
            "attempt" => ev.attempt = v.parse().unwrap_or(0),
            "error" => ev.error = Some(v),
            "name" => ev.name = Some(v),
            "due" => ev.due = v.parse().ok(),
            "reason" => ev.reason = Some(v),
            _ => ev.extra.push((f, v)),
        }
    }
    Ok(ev)
}

fn parse_entries(v: &Value) -> Result<Vec<QueueEvent>> {
    match v {
        Value::Array(entries) => entries.iter().map(parse_entry).collect(),
        Value::Nil => Ok(Vec::new()),
        _ => Err(malformed("page")),
    }
}

/// A gap entry: entries after `after` were trimmed; `first` is the first kept.
fn gap(after: &str, first: String) -> QueueEvent {
    QueueEvent {
        id: after.to_owned(),
        event: GAP.to_owned(),
        job_id: String::new(),
        inc: String::new(),
        attempt: 0,
        error: None,
        name: None,
        due: None,
        reason: None,
        time_ms: after
            .split('-')
            .next()
            .and_then(|ms| ms.parse().ok())
            .unwrap_or(0),
        extra: vec![("first".to_owned(), first)],
    }
}

/// The read_events function's reply: gap, last, entries, unknown, on.
struct RawPage {
    gap: Option<String>,
    last: String,
    events: Vec<QueueEvent>,
    unknown: bool,
    on: bool,
}

impl Queue {
    /// One page of the event stream, without waiting: at most `count` (1 to
    /// [`MAX_EVENTS_PAGE`]) entries after the entry id `after` (`None`: from now, no entries,
    /// only where now is), oldest first. A [`GAP`] entry comes first when entries after `after`
    /// were trimmed away before this read. An `after` that is no event id, or later than the
    /// stream's last entry, is refused (INVALID_ARGUMENT naming `after`). One round trip.
    pub async fn read_events(&self, after: Option<&str>, count: usize) -> Result<EventsPage> {
        if count == 0 || count > MAX_EVENTS_PAGE {
            return Err(Error::invalid(
                "count",
                format!("must be 1 to {MAX_EVENTS_PAGE}"),
            ));
        }
        let after = after.map(validate_event_id).transpose()?;
        let raw = self.raw_page(after.as_deref(), count).await?;
        if raw.unknown {
            return Err(Error::invalid(
                "after",
                format!(
                    "`{}` is later than the stream's last event ({})",
                    after.unwrap_or_default(),
                    raw.last
                ),
            ));
        }
        let mut events = Vec::with_capacity(raw.events.len() + 1);
        if let (Some(first), Some(after)) = (raw.gap, after) {
            events.push(gap(&after, first));
        }
        events.extend(raw.events);
        Ok(EventsPage {
            events,
            last: raw.last,
            on: raw.on,
        })
    }

    async fn raw_page(&self, after: Option<&str>, count: usize) -> Result<RawPage> {
        let mut inv = self.invocation(&scripts::READ_EVENTS);
        inv.arg(after.unwrap_or("")).arg(count);
        let reply: Value = self.invoke(&inv).await?;
        let Value::Array(parts) = reply else {
            return Err(malformed("reply"));
        };
        let gap = parts.first().and_then(text).filter(|g| !g.is_empty());
        let last = parts
            .get(1)
            .and_then(text)
            .ok_or_else(|| malformed("reply"))?;
        let events = parse_entries(parts.get(2).unwrap_or(&Value::Nil))?;
        let flag = |i: usize| matches!(parts.get(i), Some(Value::Int(1)));
        Ok(RawPage {
            gap,
            last,
            events,
            unknown: flag(3),
            on: flag(4),
        })
    }

    /// Follows the event stream from `from`: [`Events::next`] yields each entry in order,
    /// waiting server-side (`XREAD BLOCK`, on a connection of its own: other calls of the
    /// client never wait behind it) when there is none. It rides through a lost connection, a
    /// server that restarts or loads (`LOADING`) and a failover by reading again after the
    /// last entry it yielded, so it misses nothing still in the stream (a [`GAP`] entry says
    /// when entries were trimmed away before it read them). One round trip, here: "now" is
    /// the stream's end as this call finds it. A malformed `after` is refused first, sending
    /// nothing, and one later than the stream's last entry after the read (INVALID_ARGUMENT
    /// naming `after` for both).
    pub async fn events(&self, from: EventsFrom) -> Result<Events> {
        let after = match from {
            EventsFrom::Now => None,
            EventsFrom::After(id) => Some(validate_event_id(&id)?),
        };
        let page = self.read_events(after.as_deref(), FOLLOW_PAGE).await?;
        Ok(Events {
            queue: self.clone(),
            after: Some(match page.events.last() {
                Some(e) if e.event != GAP => e.id.clone(),
                // (A page of a gap alone: past it.)
                Some(e) => e.extra[0].1.clone(),
                None => after.unwrap_or(page.last),
            }),
            buffer: page.events.into(),
            position: None,
        })
    }

    /// [`Queue::wait_result`] while the queue's events are on: after `last` (read before the
    /// result was last found missing, so no completion is lost in between), each entry about
    /// `id` (or a second without any) reads the result again. `Ok(Err(()))` when the events
    /// were turned off meanwhile: the caller waits its own way.
    pub(crate) async fn wait_result_by_events(
        &self,
        id: &[u8],
        key: &[u8],
        mut last: String,
        deadline: Deadline,
    ) -> Result<std::result::Result<Option<crate::job::JobResult>, ()>> {
        let mut waiter = Waiter::new(
            self.handle(),
            self.prefix(),
            deadline,
            Schedule::RESULT_READ,
        );
        let wanted = String::from_utf8_lossy(id);
        loop {
            let left = deadline.left();
            if left.is_some_and(|l| l.is_zero()) {
                return Ok(Ok(None));
            }
            let slice = left.map_or(Duration::from_secs(1), |l| l.min(Duration::from_secs(1)));
            let reply = waiter
                .until_stream(&self.keys().events, &last, FOLLOW_PAGE, Some(slice))
                .await;
            let read_again = match reply {
                Ok(Value::Nil) => {
                    // A second without an entry: the switch may have changed.
                    let page = self.raw_page(None, 1).await?;
                    if !page.on {
                        return Ok(Err(()));
                    }
                    true
                }
                Ok(v) => {
                    let events = stream_entries(&v)?;
                    if let Some(e) = events.last() {
                        last = e.id.clone();
                    }
                    events.iter().any(|e| e.job_id == wanted)
                }
                Err(e) if Verdict::of(&e) != Verdict::Final => {
                    waiter.pause().await?;
                    true
                }
                Err(e) => return Err(e),
            };
            if read_again {
                if let Some(result) = self.read_result(key).await? {
                    return Ok(Ok(Some(result)));
                }
            }
        }
    }
}

/// XREAD's reply for one stream, `[[key, [entry, ...]]]` (RESP3: a map), as entries.
fn stream_entries(v: &Value) -> Result<Vec<QueueEvent>> {
    match v {
        Value::Nil => Ok(Vec::new()),
        Value::Array(streams) => match streams.first() {
            Some(Value::Array(kv)) => parse_entries(kv.get(1).unwrap_or(&Value::Nil)),
            _ => Ok(Vec::new()),
        },
        Value::Map(streams) => match streams.first() {
            Some((_, entries)) => parse_entries(entries),
            None => Ok(Vec::new()),
        },
        _ => Err(malformed("XREAD reply")),
    }
}

/// A follower of a queue's event stream ([`Queue::events`]).
pub struct Events {
    queue: Queue,
    /// The last entry yielded (or the position it started from); `None` until the first read
    /// of a follower from now.
    after: Option<String>,
    buffer: VecDeque<QueueEvent>,
    /// The id of the last entry yielded.
    position: Option<String>,
}

impl Events {
    /// The next entry, waiting for it as long as it takes: errors that a retry may cure (a
    /// lost connection, `LOADING`, a failover, out of memory) are waited out, reading again
    /// after the last entry yielded. Returns [`Error::Closed`] once the client is closed.
    pub async fn next(&mut self) -> Result<QueueEvent> {
        let handle = self.queue.handle().clone();
        let prefix = self.queue.prefix().to_owned();
        let mut waiter = Waiter::new(
            &handle,
            &prefix,
            Deadline::of(Wait::Forever)?,
            Schedule::WAIT,
        );
        loop {
            if let Some(ev) = self.buffer.pop_front() {
                if ev.event != GAP {
                    self.position = Some(ev.id.clone());
                }
                return Ok(ev);
            }
            match self
                .queue
                .raw_page(self.after.as_deref(), FOLLOW_PAGE)
                .await
            {
                Ok(page) => {
                    waiter.worked();
                    match (&self.after, page.gap) {
                        (None, _) => self.after = Some(page.last.clone()),
                        (Some(after), Some(first)) => {
                            self.buffer.push_back(gap(after, first.clone()));
                            // Past the gap, also when nothing after it is kept.
                            self.after = Some(first);
                        }
                        _ => {}
                    }
                    if let Some(e) = page.events.last() {
                        self.after = Some(e.id.clone());
                    }
                    // (A stream emptied and started again, e.g. deleted by hand: `unknown`
                    // later on means its ids went back; follow its new entries.)
                    if page.unknown {
                        self.after = Some(page.last);
                    }
                    self.buffer.extend(page.events);
                    if !self.buffer.is_empty() {
                        continue;
                    }
                }
                Err(e) if Verdict::of(&e) != Verdict::Final => {
                    waiter.pause().await?;
                    continue;
                }
                Err(e) => return Err(e),
            }
            let after = self.after.clone().unwrap_or_else(|| "0-0".to_owned());
            match waiter
                .until_stream(&self.queue.keys().events, &after, 1, None)
                .await
            {
                // Woken (or the slice passed): the next page reads what came.
                Ok(_) => waiter.worked(),
                Err(e) if Verdict::of(&e) != Verdict::Final => waiter.pause().await?,
                Err(e) => return Err(e),
            }
        }
    }

    /// The id of the last entry yielded (none yet: `None`): resume after it.
    pub fn position(&self) -> Option<&str> {
        self.position.as_deref()
    }
}
