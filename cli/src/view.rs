//! The JSON shapes of the core's answers, shared by `--json` and the dashboard's API, and the
//! escaped text preview of arbitrary bytes.

use std::fmt;

use serde::Serialize;

/// Bytes shown at most in a data, result or progress preview.
pub const PREVIEW_BYTES: usize = 4096;

/// Arbitrary bytes as text: valid UTF-8 as is, other bytes and control characters as `\xNN`
/// (`\n`, `\t`, `\\` as such), cut after `max` bytes with `…`. Reversible enough to read, and
/// never markup: HTML escaping is the page's job, which only ever sets text.
pub fn preview(bytes: &[u8], max: usize) -> String {
    let cut = bytes.len() > max;
    let mut out = String::new();
    for chunk in bytes[..bytes.len().min(max)].utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() => {
                    let mut buf = [0; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\x{b:02x}"));
                    }
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    if cut {
        out.push('…');
    }
    out
}

/// One item ([`leaseq::Job`]).
#[derive(Debug, Serialize)]
pub struct JobView {
    /// The id.
    pub id: String,
    /// waiting, delayed, leased, dead or done.
    pub state: String,
    /// The data's size in bytes (0 for a done item, whose data is not kept).
    pub data_len: usize,
    /// The data as escaped text (see [`preview`]).
    pub data_preview: String,
    /// False for a done item: its data is gone once it completed (only its result is kept), so
    /// `data_len` and `data_preview` say nothing about it.
    pub data_kept: bool,
    /// Leases so far.
    pub attempts: u64,
    /// The item's own limit, if any.
    pub max_attempts: Option<u32>,
    /// Its priority.
    pub priority: i32,
    /// The last failure's message.
    pub error: Option<String>,
    /// The last failure's type.
    pub error_type: Option<String>,
    /// The last failure's trace (a traceback, a stack; at most 16 KiB), as it was given: text
    /// with its newlines, for a page that sets it as text.
    pub trace: Option<String>,
    /// Why it is dead.
    pub dead_reason: Option<String>,
    /// The last progress value, as escaped text.
    pub progress: Option<String>,
    /// The kept result, as escaped text.
    pub result: Option<String>,
    /// Times, ms since the epoch on the server's clock.
    pub added_at: Option<u64>,
    /// When it is due.
    pub due_at: Option<u64>,
    /// When the last lease began.
    pub leased_at: Option<u64>,
    /// When the current lease ends.
    pub lease_expires_at: Option<u64>,
    /// When it died or completed.
    pub finished_at: Option<u64>,
    /// Marked cancelled while leased.
    pub cancelled: bool,
    /// The item's group (`leaseq add --group`), if it has one.
    pub group: Option<String>,
    /// The item's name (`leaseq add --name`), if it has one (a done item's, as its kept result
    /// records it).
    pub name: Option<String>,
    /// The ids it was added to wait for (`leaseq add --depends-on`), empty without.
    pub depends_on: Vec<String>,
    /// `fail` or `run`, for an item with dependencies.
    pub on_dependency_failure: Option<String>,
    /// Read from a partitioned queue's base: the prefix of the partition that holds it
    /// (`Target::partition_of`); none on a plain queue.
    pub partition: Option<String>,
}

impl From<&leaseq::Job> for JobView {
    fn from(j: &leaseq::Job) -> JobView {
        JobView {
            id: j.id.clone(),
            state: j.state.to_string(),
            data_len: j.data.len(),
            data_preview: preview(&j.data, PREVIEW_BYTES),
            data_kept: j.state != leaseq::State::Done,
            attempts: j.attempts,
            max_attempts: j.max_attempts,
            priority: j.priority,
            error: j.error.as_ref().map(|e| e.0.clone()),
            error_type: j.error.as_ref().map(|e| e.1.clone()),
            trace: j.trace.clone(),
            dead_reason: j.dead_reason.clone(),
            progress: j.progress.as_deref().map(|p| preview(p, PREVIEW_BYTES)),
            result: j.result.as_ref().map(|r| preview(&r.data, PREVIEW_BYTES)),
            added_at: j.added_at,
            due_at: j.due_at,
            leased_at: j.leased_at,
            lease_expires_at: j.lease_expires_at,
            finished_at: j.finished_at.or(j.result.as_ref().map(|r| r.finished_at)),
            cancelled: j.cancelled,
            group: j.group.clone(),
            name: j.name.clone(),
            depends_on: j.depends_on.clone(),
            on_dependency_failure: j.on_dependency_failure.map(|p| p.as_str().to_owned()),
            partition: None,
        }
    }
}

/// One line of a list ([`leaseq::Entry`]).
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct EntryView {
    /// The id.
    pub id: String,
    /// Due time, lease expiry or time of death (ms since the epoch); none for waiting items.
    pub at: Option<u64>,
    /// Leases so far.
    pub attempts: u64,
    /// The last failure's message.
    pub error: Option<String>,
    /// The last failure's type.
    pub error_type: Option<String>,
    /// The item's name, when it has one.
    pub name: Option<String>,
    /// Why a dead item died (`lease expired 3 times`, `dependency a is dead`); none in other
    /// states.
    pub reason: Option<String>,
    /// Listed from a partitioned queue's base: the prefix of the partition that holds it
    /// (`Target::entry_view`); none on a plain queue.
    pub partition: Option<String>,
}

impl From<&leaseq::Entry> for EntryView {
    fn from(e: &leaseq::Entry) -> EntryView {
        EntryView {
            id: e.id.clone(),
            at: e.at,
            attempts: e.attempts,
            error: e.error.as_ref().map(|e| e.0.clone()),
            error_type: e.error.as_ref().map(|e| e.1.clone()),
            name: e.name.clone(),
            reason: e.reason.clone(),
            partition: None,
        }
    }
}

/// Counters of one minute, or of the last hour summed.
#[derive(Debug, Serialize, Clone, Default)]
pub struct MinuteView {
    /// When the minute began, ms since the epoch on the server's clock (in `minutes` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_ms: Option<u64>,
    /// The same time in ISO 8601, UTC (`2026-01-31T12:34:00Z`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// Items completed.
    pub completed: u64,
    /// Failed attempts.
    pub failed: u64,
    /// Items that went dead.
    pub dead: u64,
    /// Leases that expired.
    pub expired: u64,
}

impl From<leaseq::Minute> for MinuteView {
    fn from(m: leaseq::Minute) -> MinuteView {
        MinuteView {
            start_ms: None,
            start: None,
            completed: m.completed,
            failed: m.failed,
            dead: m.dead,
            expired: m.expired,
        }
    }
}

/// A queue's figures ([`leaseq::Stats`]).
#[derive(Debug, Serialize)]
pub struct StatsView {
    /// The queue's prefix.
    pub queue: String,
    /// Ids in the waiting lists.
    pub waiting: u64,
    /// Delayed items.
    pub delayed: u64,
    /// Items leased by leaseq clients.
    pub leased: u64,
    /// Dead letters.
    pub dead: u64,
    /// Ids in processing (redis-work-queue clients).
    pub processing: u64,
    /// Items waiting for their dependencies (`leaseq ls blocked`).
    pub blocked: u64,
    /// Recurring jobs stored (`leaseq schedules`).
    pub schedules: u64,
    /// Age of the oldest waiting item in seconds, when known.
    pub oldest_waiting_seconds: Option<f64>,
    /// The server's clock (ms since the epoch).
    pub now: u64,
    /// Whether the queue keeps per-minute counters (`leaseq config set --stats on`); while
    /// they are off the three fields below are null, never zeros.
    pub counters: bool,
    /// The current minute so far.
    pub last_minute: Option<MinuteView>,
    /// The last 60 minutes summed.
    pub last_hour: Option<MinuteView>,
    /// The last 60 minutes, oldest first.
    pub minutes: Option<Vec<MinuteView>>,
    /// Whether the queue is paused (`leaseq pause`): nothing is leased from it until resumed.
    pub paused: bool,
    /// The most items the queue holds waiting or delayed; null when it is not bounded.
    pub capacity: Option<u64>,
    /// The queue's rate limit (`leaseq config set --rate-limit`); null when it has none.
    pub rate_limit: Option<RateLimitView>,
    /// While leases are held off, by the rate limit or a hold (`leaseq hold`), the time left
    /// (ms); null while they are not.
    pub rate_limited_for_ms: Option<u64>,
    /// A partitioned queue's partitions (spec/PROTOCOL.md 5.25), each with its own figures;
    /// absent for a queue of one partition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitions: Option<Vec<StatsView>>,
}

/// A rate limit ([`leaseq::RateLimit`]): at most `max` leases in each window of `per_ms`.
#[derive(Debug, Serialize, Clone, Copy, PartialEq, Eq)]
pub struct RateLimitView {
    /// Leases per window.
    pub max: u64,
    /// The window.
    pub per_ms: u64,
}

impl From<leaseq::RateLimit> for RateLimitView {
    fn from(r: leaseq::RateLimit) -> RateLimitView {
        RateLimitView {
            max: r.max,
            per_ms: ms(r.per),
        }
    }
}

impl fmt::Display for RateLimitView {
    /// As `config set --rate-limit` takes it: `1000/1s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}",
            self.max,
            humantime::format_duration(std::time::Duration::from_millis(self.per_ms))
        )
    }
}

impl StatsView {
    /// Reads the stats of `queue` (prefix `prefix`) and its configuration (for the rate limit),
    /// both at once.
    pub async fn read(queue: &leaseq::Queue, prefix: &str) -> leaseq::Result<StatsView> {
        let (stats, config) = tokio::try_join!(queue.stats(), queue.config())?;
        Ok(StatsView::new(prefix, &stats, &config))
    }

    /// The view of `stats` for `queue`, whose stored configuration is `config`.
    pub fn new(queue: &str, s: &leaseq::Stats, config: &leaseq::QueueConfig) -> StatsView {
        StatsView {
            queue: queue.to_owned(),
            waiting: s.waiting,
            delayed: s.delayed,
            leased: s.leased,
            dead: s.dead,
            processing: s.processing,
            blocked: s.blocked,
            schedules: s.schedules,
            oldest_waiting_seconds: s.oldest_waiting.map(|d| d.as_secs_f64()),
            now: s.now,
            counters: s.minutes.is_some(),
            last_minute: s
                .minutes
                .as_ref()
                .map(|m| m.last().copied().unwrap_or_default().into()),
            last_hour: s.last_hour().map(Into::into),
            minutes: s.minutes.as_ref().map(|m| minute_views(m, s.now)),
            paused: s.paused,
            capacity: s.capacity,
            rate_limit: config.rate_limit.map(Into::into),
            rate_limited_for_ms: s.rate_limited_for.map(ms),
            partitions: None,
        }
    }

    /// No item in any state: an empty queue, or one that does not exist.
    pub fn is_idle(&self) -> bool {
        self.waiting + self.delayed + self.leased + self.dead + self.processing + self.blocked == 0
    }

    /// What counts against the capacity: waiting and delayed items.
    pub fn held(&self) -> u64 {
        self.waiting + self.delayed
    }
}

/// The per-minute counters, oldest first, each with its time: the last is the minute that holds
/// `now` (spec/PROTOCOL.md, 5.12; minute `M` covers `M * 60000` ms to the next).
fn minute_views(minutes: &[leaseq::Minute], now: u64) -> Vec<MinuteView> {
    let current = now / 60_000;
    let len = minutes.len() as u64;
    minutes
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            let minute = (current + 1 + i as u64).saturating_sub(len);
            let start_ms = minute * 60_000;
            MinuteView {
                start_ms: Some(start_ms),
                start: Some(iso_utc(start_ms)),
                ..m.into()
            }
        })
        .collect()
}

/// ms since the epoch as ISO 8601 in UTC, to the second: `2026-01-31T12:34:00Z`.
pub fn iso_utc(ms: u64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    humantime::format_rfc3339_seconds(at).to_string()
}

/// One group of a queue ([`leaseq::GroupInfo`]), named.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct GroupView {
    /// The queue's prefix.
    pub queue: String,
    /// The group's name.
    pub group: String,
    /// On a partitioned queue's base, the prefix of the partition that holds the group (all
    /// its items); null on a plain queue.
    pub partition: Option<String>,
    /// Its items waiting (delayed ones join when due).
    pub waiting: u64,
    /// Its items leased now.
    pub leased: u64,
    /// How many of its items may be leased at once: its own limit, else the queue's
    /// `group_concurrency`.
    pub limit: u64,
    /// Whether the group is paused (`leaseq group pause`).
    pub paused: bool,
    /// While the group is at the groups' rate limit (`leaseq config set --group-rate-limit`)
    /// or held off (`leaseq hold --group`), the time left in its window (ms); null while it is
    /// not.
    pub rate_limited_for_ms: Option<u64>,
}

impl GroupView {
    /// Reads group `group` of `queue`, as group of `prefix` (a partitioned queue's base, when
    /// `queue` is the group's partition): one round trip.
    pub async fn read(
        queue: &leaseq::Queue,
        prefix: &str,
        group: &str,
    ) -> leaseq::Result<GroupView> {
        let g = queue.group(group).await?;
        Ok(GroupView {
            queue: prefix.to_owned(),
            group: group.to_owned(),
            partition: (queue.prefix() != prefix).then(|| queue.prefix().to_owned()),
            waiting: g.waiting,
            leased: g.leased,
            limit: g.limit,
            paused: g.paused,
            rate_limited_for_ms: g.rate_limited_for.map(ms),
        })
    }
}

/// A retry delay ([`leaseq::Backoff`]) as JSON.
#[derive(Debug, Serialize, Clone, Copy, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum BackoffView {
    /// The same delay every time.
    Fixed {
        /// The delay.
        delay_ms: u64,
    },
    /// Doubling from `base_ms` up to `cap_ms`; with `jitter`, between half and all of it.
    Exponential {
        /// The first retry's delay.
        base_ms: u64,
        /// The longest delay.
        cap_ms: u64,
        /// Whether the delay is randomised.
        jitter: bool,
    },
}

impl BackoffView {
    /// The view of `b`; `None` for a kind this version does not know.
    pub fn new(b: leaseq::Backoff) -> Option<BackoffView> {
        match b {
            leaseq::Backoff::Fixed(d) => Some(BackoffView::Fixed { delay_ms: ms(d) }),
            leaseq::Backoff::Exponential { base, cap, jitter } => Some(BackoffView::Exponential {
                base_ms: ms(base),
                cap_ms: ms(cap),
                jitter,
            }),
            _ => None,
        }
    }
}

fn ms(d: std::time::Duration) -> u64 {
    d.as_millis().min(u128::from(u64::MAX)) as u64
}

/// The settings of a queue's configuration ([`leaseq::QueueConfig`]); `null`: not stored (in
/// `stored`), or none (`expires_after_ms` in `defaults` and `effective`: items never expire).
#[derive(Debug, Serialize, Clone, PartialEq, Eq)]
pub struct SettingsView {
    /// Whether the queue keeps per-minute counters.
    pub stats: Option<bool>,
    /// Attempts before an item is dead (0: no limit).
    pub max_attempts: Option<u32>,
    /// Priority of items added without one.
    pub priority: Option<i32>,
    /// Retry delay after a failed attempt.
    pub backoff: Option<BackoffView>,
    /// Items not started this long after they were added are dead.
    pub expires_after_ms: Option<u64>,
    /// How long a result is kept.
    pub keep_result_for_ms: Option<u64>,
    /// Dead letters kept at most.
    pub dead_max_count: Option<u64>,
    /// Dead letters older than this go.
    pub dead_max_age_ms: Option<u64>,
    /// The most items the queue holds waiting or delayed (null in `defaults` and `effective`:
    /// no bound).
    pub capacity: Option<u64>,
    /// At most `max` leases per `per_ms` (null in `defaults` and `effective`: no limit).
    pub rate_limit: Option<RateLimitView>,
    /// Items of one group leased at once, for groups without a limit of their own.
    pub group_concurrency: Option<u32>,
    /// At most `max` leases of each group per `per_ms`, every group in its own window (null in
    /// `defaults` and `effective`: no limit).
    pub group_rate_limit: Option<RateLimitView>,
    /// Whether every transition of an item is recorded in the event stream.
    pub events: Option<bool>,
    /// Entries the event stream keeps, about.
    pub events_max_len: Option<u64>,
    /// How long the event stream keeps an entry, about.
    pub events_max_age_ms: Option<u64>,
}

impl From<&leaseq::QueueConfig> for SettingsView {
    fn from(c: &leaseq::QueueConfig) -> SettingsView {
        SettingsView {
            stats: c.stats,
            max_attempts: c.max_attempts,
            priority: c.priority,
            backoff: c.backoff.and_then(BackoffView::new),
            expires_after_ms: c.expires_after.map(ms),
            keep_result_for_ms: c.keep_result_for.map(ms),
            dead_max_count: c.dead_max_count,
            dead_max_age_ms: c.dead_max_age.map(ms),
            capacity: c.capacity,
            rate_limit: c.rate_limit.map(Into::into),
            group_concurrency: c.group_concurrency,
            group_rate_limit: c.group_rate_limit.map(Into::into),
            events: c.events,
            events_max_len: c.events_max_len,
            events_max_age_ms: c.events_max_age.map(ms),
        }
    }
}

/// One entry of a queue's event stream (spec/PROTOCOL.md 14.2), for `leaseq events --json` and
/// the dashboard's live log.
#[derive(Debug, Serialize)]
pub struct EventView {
    /// The entry's id: resume after it.
    pub id: String,
    /// What happened (`added`, `leased`, `completed`, ..., or `gap`).
    pub event: String,
    /// The item's id.
    pub job_id: String,
    /// The item's incarnation.
    pub inc: String,
    /// Its attempts at the transition.
    pub attempt: u64,
    /// The entry's time (ms since the epoch, server clock).
    pub time_ms: u64,
    /// The item's name, when it has one.
    pub name: Option<String>,
    /// The failure's error.
    pub error: Option<String>,
    /// When it runs next (ms since the epoch).
    pub due: Option<u64>,
    /// Why it is dead.
    pub reason: Option<String>,
    /// Other fields (`state` of a cancel, `first` of a gap).
    pub extra: std::collections::BTreeMap<String, String>,
    /// The partition whose stream it is in (a partitioned queue's entries only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<usize>,
}

impl From<&leaseq::QueueEvent> for EventView {
    fn from(e: &leaseq::QueueEvent) -> EventView {
        EventView {
            id: e.id.clone(),
            event: e.event.clone(),
            job_id: e.job_id.clone(),
            inc: e.inc.clone(),
            attempt: e.attempt,
            time_ms: e.time_ms,
            name: e.name.clone(),
            error: e.error.clone(),
            due: e.due,
            reason: e.reason.clone(),
            extra: e.extra.iter().cloned().collect(),
            partition: e.partition,
        }
    }
}

/// A queue's configuration: what is stored, the protocol's defaults, and what applies (the
/// stored value, else the default).
#[derive(Debug, Serialize)]
pub struct ConfigView {
    /// The queue's prefix.
    pub queue: String,
    /// What `P:config` holds.
    pub stored: SettingsView,
    /// What applies where nothing is stored (spec/PROTOCOL.md, 3.2).
    pub defaults: SettingsView,
    /// What applies.
    pub effective: SettingsView,
}

impl ConfigView {
    /// The view of `stored`, the configuration of `queue`.
    pub fn new(queue: &str, stored: &leaseq::QueueConfig) -> ConfigView {
        let defaults = leaseq::QueueConfig::defaults();
        let (s, d) = (SettingsView::from(stored), SettingsView::from(&defaults));
        let effective = SettingsView {
            stats: s.stats.or(d.stats),
            max_attempts: s.max_attempts.or(d.max_attempts),
            priority: s.priority.or(d.priority),
            backoff: s.backoff.or(d.backoff),
            expires_after_ms: s.expires_after_ms.or(d.expires_after_ms),
            keep_result_for_ms: s.keep_result_for_ms.or(d.keep_result_for_ms),
            dead_max_count: s.dead_max_count.or(d.dead_max_count),
            dead_max_age_ms: s.dead_max_age_ms.or(d.dead_max_age_ms),
            capacity: s.capacity.or(d.capacity),
            rate_limit: s.rate_limit.or(d.rate_limit),
            group_concurrency: s.group_concurrency.or(d.group_concurrency),
            group_rate_limit: s.group_rate_limit.or(d.group_rate_limit),
            events: s.events.or(d.events),
            events_max_len: s.events_max_len.or(d.events_max_len),
            events_max_age_ms: s.events_max_age_ms.or(d.events_max_age_ms),
        };
        ConfigView {
            queue: queue.to_owned(),
            stored: s,
            defaults: d,
            effective,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::preview;

    #[test]
    fn previews_escape_what_is_not_text() {
        assert_eq!(
            preview(b"<script>alert(1)</script>", 100),
            "<script>alert(1)</script>"
        );
        assert_eq!(preview(b"a\xffb\x00\n", 100), "a\\xffb\\x00\\n");
        assert_eq!(preview("é€".as_bytes(), 100), "é€");
        assert_eq!(preview(b"abcdef", 3), "abc…");
        assert_eq!(preview(b"back\\slash", 100), "back\\\\slash");
    }
}
