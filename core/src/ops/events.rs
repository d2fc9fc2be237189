//! The queue's event stream (spec/PROTOCOL.md 14): one entry per transition of an item in
//! `P:events` while the queue's events are on, read a page at a time ([`Queue::read_events`]) or
//! followed ([`Queue::events`]), from now or resuming after an entry a process saw before.

use std::collections::VecDeque;
use std::time::Duration;

use futures_util::future::try_join_all;
use redis::Value;

use crate::conn::{Deadline, KeptWaits, Schedule, Verdict, Waiter};
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
    /// What happened: `added`, `delayed`, `blocked`, `unblocked`, `leased`, `progress`,
    /// `completed`, `failed`, `retrying`, `dead`, `cancelled`, `released`, `requeued`,
    /// `expired`, `promoted`, or [`GAP`]. Kinds added later come as they are named.
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
    /// The partition whose stream it is in, from a partitioned queue's follower
    /// ([`crate::Partitioned::events`]); `None` from one queue's.
    pub partition: Option<usize>,
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
            format!("`{id}` is no event id (`<ms>-<seq>` as an event's id, or `<ms>`)"),
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
        partition: None,
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
        partition: None,
    }
}

/// The read_events function's reply: gap, last, entries, unknown, on.
pub(crate) struct RawPage {
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

    pub(crate) async fn raw_page(&self, after: Option<&str>, count: usize) -> Result<RawPage> {
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
        let (stream, _) = Stream::start(self, after, None, false).await?;
        Ok(Events::of(self.prefix(), vec![stream], false))
    }

    /// [`Queue::wait_result`] while the queue's events are on: after `last` (read before the
    /// result was last found missing, so no completion is lost in between), each entry about
    /// `id` (or a second without any) reads the result again. `Ok(Err(()))` when the events
    /// were turned off meanwhile: the caller waits its own way.
    pub(crate) async fn wait_result_by_events(
        &self,
        id: &[u8],
        mut last: String,
        deadline: Deadline,
        watch: &mut super::results::Watch,
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
                if let Some(result) = watch.answer(vec![self.read_outcome(id).await?])? {
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

/// One stream a follower reads: where its next page starts, what was read and not yielded
/// yet, and where a follower that resumes should start.
pub(crate) struct Stream {
    queue: Queue,
    /// Where the next page starts: after the last entry read.
    after: String,
    buffer: VecDeque<QueueEvent>,
    /// The id of the last entry yielded, or the position the follower started from.
    yielded: String,
}

impl Stream {
    /// Starts following `queue`'s stream after `after` (`None`: from now): one round trip, a
    /// first page. An `after` later than the stream's last entry is refused, naming
    /// `partition` when the stream is one of a partitioned queue's; with `clamp` (a time given
    /// for every partition), the stream's last entry is taken instead, and the second value
    /// says so (`None`: the stream has no entry, so nothing says whether `after` is later).
    pub(crate) async fn start(
        queue: &Queue,
        after: Option<String>,
        partition: Option<usize>,
        clamp: bool,
    ) -> Result<(Stream, Option<bool>)> {
        let page = queue.raw_page(after.as_deref(), FOLLOW_PAGE).await?;
        // A time given for every partition is later than a partition without a stream, too.
        let behind = page.unknown
            || (clamp && page.last == "0-0" && after.as_deref().is_some_and(|a| a != "0-0"));
        let start = match after {
            Some(_) if behind && clamp => page.last.clone(),
            Some(after) if page.unknown => {
                let whose = partition.map_or("the stream's last event".to_owned(), |i| {
                    format!("partition {i}'s last event")
                });
                return Err(Error::invalid(
                    "after",
                    format!("`{after}` is later than {whose} ({})", page.last),
                ));
            }
            Some(after) => after,
            None => page.last.clone(),
        };
        let mut stream = Stream {
            queue: queue.clone(),
            after: start.clone(),
            buffer: VecDeque::new(),
            yielded: start,
        };
        let clamped = (page.last != "0-0").then_some(behind && clamp);
        if !page.unknown {
            stream.take(page);
        }
        Ok((stream, clamped))
    }

    /// Takes a page read after `self.after` into the buffer, moving `after` past it. Returns
    /// whether the stream started again (its ids went back): its position moves to its new
    /// last entry.
    fn take(&mut self, page: RawPage) -> bool {
        if let Some(first) = page.gap {
            self.buffer.push_back(gap(&self.after, first.clone()));
            // Past the gap, also when nothing after it is kept.
            self.after = first;
        }
        if let Some(e) = page.events.last() {
            self.after = e.id.clone();
        }
        // (A stream emptied and started again, e.g. deleted by hand: `unknown` later on means
        // its ids went back; follow its new entries.)
        if page.unknown {
            self.after = page.last.clone();
            self.yielded = page.last;
        }
        self.buffer.extend(page.events);
        page.unknown
    }
}

/// A follower of an event stream ([`Queue::events`]), or of each partition's stream of a
/// partitioned queue at once ([`crate::Partitioned::events`]).
pub struct Events {
    /// The queue's prefix (or the partitioned queue's base), which errors name.
    prefix: String,
    /// One stream, or a partitioned queue's, one per partition in order.
    streams: Vec<Stream>,
    /// Whether this follows a partitioned queue: its entries name their partition, and its
    /// position has an id per partition.
    partitioned: bool,
    /// The position after the last entry yielded; `None` until the first.
    position: Option<String>,
    /// The server-side waits for the streams' next entries, kept between calls.
    kept: KeptWaits,
    /// Whether every stream was read to its end and `kept` waits on those ends: the next call
    /// waits at once, rather than reading again (a caller that polls with a timeout).
    drained: bool,
}

impl Events {
    pub(crate) fn of(prefix: &str, streams: Vec<Stream>, partitioned: bool) -> Events {
        Events {
            prefix: prefix.to_owned(),
            streams,
            partitioned,
            position: None,
            kept: KeptWaits::default(),
            drained: false,
        }
    }

    /// The next entry, waiting for it as long as it takes: errors that a retry may cure (a
    /// lost connection, `LOADING`, a failover, out of memory) are waited out, reading again
    /// after the last entry yielded. Returns [`Error::Closed`] once the client is closed.
    ///
    /// A partitioned queue's follower yields each partition's entries in their order; across
    /// partitions, of the entries it has read, the earliest first (by the entries' times, the
    /// partitions' server clocks), and there is no order beyond that.
    ///
    /// Cancel-safe: dropping the future (a timeout) loses nothing; the next call goes on from
    /// the same place.
    pub async fn next(&mut self) -> Result<QueueEvent> {
        let handle = self.streams[0].queue.handle().clone();
        let prefix = self.prefix.clone();
        let mut waiter = Waiter::new(
            &handle,
            &prefix,
            Deadline::of(Wait::Forever)?,
            Schedule::WAIT,
        );
        loop {
            if let Some(ev) = self.pop() {
                return Ok(ev);
            }
            // Every buffer is empty: read a page of each stream, at once, unless the last call
            // read them all to their ends and was cut short while it waited.
            if !self.drained {
                match self.read_pages().await {
                    Ok(()) => {
                        waiter.worked();
                        if self.streams.iter().any(|s| !s.buffer.is_empty()) {
                            continue;
                        }
                    }
                    Err(e) if Verdict::of(&e) != Verdict::Final => {
                        waiter.pause().await?;
                        continue;
                    }
                    Err(e) => return Err(e),
                }
                self.drained = true;
            }
            let wanted: Vec<(&str, &str)> = self
                .streams
                .iter()
                .map(|s| (s.queue.keys().events.as_str(), s.after.as_str()))
                .collect();
            let woken = waiter
                .until_any_stream_kept(&wanted, None, &mut self.kept)
                .await;
            // Woken, the slice passed, or an error: the next pages read what came.
            self.drained = false;
            match woken {
                Ok(_) => waiter.worked(),
                Err(e) if Verdict::of(&e) != Verdict::Final => waiter.pause().await?,
                Err(e) => return Err(e),
            }
        }
    }

    /// The next entry if there is one now, without waiting: `None` once every stream is read
    /// to its end. At most one round trip (to each partition, at once), when all that was read
    /// has been yielded. Errors are returned as they come, not waited out. A partitioned
    /// queue's entries come in [`Events::next`]'s order.
    pub async fn next_now(&mut self) -> Result<Option<QueueEvent>> {
        if let Some(ev) = self.pop() {
            return Ok(Some(ev));
        }
        self.read_pages().await?;
        Ok(self.pop())
    }

    /// Reads a page of each stream, at once, into the buffers. A stream that started again
    /// (its ids went back) moves the position, and the waits start afresh: one sent with its
    /// old, higher position would not wake for its new entries.
    async fn read_pages(&mut self) -> Result<()> {
        let pages = try_join_all(
            self.streams
                .iter()
                .map(|s| s.queue.raw_page(Some(&s.after), FOLLOW_PAGE)),
        )
        .await?;
        let mut restarted = false;
        for (stream, page) in self.streams.iter_mut().zip(pages) {
            restarted |= stream.take(page);
        }
        if restarted {
            self.kept = KeptWaits::default();
            if self.position.is_some() {
                self.position = Some(self.joined());
            }
        }
        Ok(())
    }

    /// The position: each stream's last entry yielded (or where it started), joined by `,`.
    fn joined(&self) -> String {
        self.streams
            .iter()
            .map(|s| s.yielded.as_str())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Ends the follower's server-side waits now, closing their connections (a follower that
    /// is dropped does the same; this is for one kept, e.g. by a binding, after it is closed).
    /// A later [`Events::next`] waits again.
    pub fn release(&mut self) {
        self.kept = KeptWaits::default();
        self.drained = false;
    }

    /// [`Events::release`], returning once the waits' tasks have ended and their connections
    /// are closed (on a runtime that runs only while driven, so that nothing is left for it).
    pub async fn shutdown(&mut self) {
        self.take_waits().shutdown().await;
    }

    /// The follower's server-side waits, taken out of it (to end them elsewhere).
    pub(crate) fn take_waits(&mut self) -> KeptWaits {
        self.drained = false;
        std::mem::take(&mut self.kept)
    }

    /// Takes the buffered entry to yield next: the earliest of the streams' first ones (the
    /// lowest partition on a tie), moving the position past it unless it is a gap.
    fn pop(&mut self) -> Option<QueueEvent> {
        let (i, _) = self
            .streams
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.buffer.front().map(|e| (i, e.time_ms)))
            .min_by_key(|&(i, time)| (time, i))?;
        let stream = &mut self.streams[i];
        let mut ev = stream.buffer.pop_front()?;
        if ev.event != GAP {
            stream.yielded = ev.id.clone();
            self.position = Some(self.joined());
        }
        if self.partitioned {
            ev.partition = Some(i);
        }
        Some(ev)
    }

    /// Where the follower is (`None` before the first entry yielded): resume after it. One
    /// queue's: the id of the last entry yielded. A partitioned queue's: one id per
    /// partition, in partition order, joined by `,` (the last entry yielded from each, or where
    /// it started), which [`crate::Partitioned::events`] takes back.
    pub fn position(&self) -> Option<&str> {
        self.position.as_deref()
    }
}
