//! What the read API returns, as plain JavaScript objects: a job, list entries, a kept result,
//! stats and the stored configuration. Times are server-clock milliseconds since the epoch;
//! `lib/` turns them into `Date`s.

use leaseq::{Entry, Job, JobResult, Minute, NameCounts, QueueConfig, Stats};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::convert::{count, duration_ms, ms_number, BackoffParts};

/// A kept result.
#[napi(object, object_from_js = false)]
pub struct ResultParts {
    /// The bytes the completing worker gave.
    pub data: Buffer,
    /// The attempt that completed the item.
    pub attempts: i64,
    /// When it completed.
    pub finished_at: f64,
    /// When the item was added, when known (items added with options).
    pub added_at: Option<f64>,
    /// The item's name, when it had one.
    pub name: Option<String>,
}

impl From<JobResult> for ResultParts {
    fn from(r: JobResult) -> ResultParts {
        ResultParts {
            data: r.data.into(),
            attempts: count(r.attempts),
            finished_at: ms_number(r.finished_at),
            added_at: r.added_at.map(ms_number),
            name: r.name,
        }
    }
}

/// Everything the queue knows about one item.
#[napi(object, object_from_js = false)]
pub struct JobParts {
    /// The id (lossy when it is not UTF-8).
    pub id: String,
    /// The id exactly as Redis holds it.
    pub id_bytes: Buffer,
    /// `waiting`, `delayed`, `leased`, `dead`, `blocked` or `done`.
    pub state: String,
    /// The data (empty for a done item).
    pub data: Buffer,
    /// Leases so far.
    pub attempts: i64,
    /// The item's own max attempts, if it has one.
    pub max_attempts: Option<u32>,
    /// The item's priority.
    pub priority: i32,
    /// The last failure's message.
    pub error: Option<String>,
    /// The last failure's type.
    pub error_type: Option<String>,
    /// The last failure's trace (a stack, a traceback), when it gave one.
    pub trace: Option<String>,
    /// Why it is dead.
    pub dead_reason: Option<String>,
    /// The last progress value.
    pub progress: Option<Buffer>,
    /// The kept result.
    pub result: Option<ResultParts>,
    /// When it was added (items added with options only).
    pub added_at: Option<f64>,
    /// When it is due.
    pub due_at: Option<f64>,
    /// When the last lease began.
    pub leased_at: Option<f64>,
    /// When the current lease ends.
    pub lease_expires_at: Option<f64>,
    /// When it died or completed.
    pub finished_at: Option<f64>,
    /// How long the current lease has left.
    pub lease_ttl_ms: Option<f64>,
    /// Marked cancelled while leased.
    pub cancelled: bool,
    /// The item's group, if it has one.
    pub group: Option<String>,
    /// The item's name, if it has one.
    pub name: Option<String>,
    /// The ids it was added to wait for, in order (empty: none).
    pub depends_on: Vec<String>,
    /// `fail` or `run`, for an item with dependencies.
    pub on_dependency_failure: Option<String>,
    /// Read from a partitioned queue: the index of the partition that holds it.
    pub partition: Option<u32>,
}

impl From<Job> for JobParts {
    fn from(job: Job) -> JobParts {
        let (error, error_type) = match job.error {
            Some((e, t)) => (Some(e), Some(t)),
            None => (None, None),
        };
        JobParts {
            id: job.id,
            id_bytes: job.id_bytes.into(),
            state: job.state.as_str().to_owned(),
            data: job.data.into(),
            attempts: count(job.attempts),
            max_attempts: job.max_attempts,
            priority: job.priority,
            error,
            error_type,
            trace: job.trace,
            dead_reason: job.dead_reason,
            progress: job.progress.map(Buffer::from),
            result: job.result.map(ResultParts::from),
            added_at: job.added_at.map(ms_number),
            due_at: job.due_at.map(ms_number),
            leased_at: job.leased_at.map(ms_number),
            lease_expires_at: job.lease_expires_at.map(ms_number),
            finished_at: job.finished_at.map(ms_number),
            lease_ttl_ms: job.lease_ttl.map(duration_ms),
            cancelled: job.cancelled,
            group: job.group,
            name: job.name,
            depends_on: job.depends_on,
            on_dependency_failure: job.on_dependency_failure.map(|p| p.as_str().to_owned()),
            partition: job.partition.map(|i| u32::try_from(i).unwrap_or(u32::MAX)),
        }
    }
}

/// One line of `list`.
#[napi(object, object_from_js = false)]
pub struct EntryParts {
    /// The id (lossy when it is not UTF-8).
    pub id: String,
    /// The id exactly as Redis holds it.
    pub id_bytes: Buffer,
    /// Due time, lease expiry, time of death or time finished; none for waiting items.
    pub at: Option<f64>,
    /// Leases so far.
    pub attempts: i64,
    /// The last failure's message.
    pub error: Option<String>,
    /// The last failure's type.
    pub error_type: Option<String>,
    /// The item's name, when it has one.
    pub name: Option<String>,
    /// Why a dead item died; none in other states.
    pub reason: Option<String>,
    /// Listed through a partitioned queue: the index of the partition that holds it.
    pub partition: Option<u32>,
}

/// What `find` found: the matching entries of a bounded stretch of a state.
#[napi(object, object_from_js = false)]
pub struct FoundParts {
    /// The entries that match, in the state's order.
    pub entries: Vec<EntryParts>,
    /// The `start` of the next call; none once the end of the state was reached.
    pub next: Option<i64>,
    /// How many positions the call looked at (at most 1000).
    pub examined: i64,
}

impl From<leaseq::Found> for FoundParts {
    fn from(f: leaseq::Found) -> FoundParts {
        FoundParts {
            entries: f.entries.into_iter().map(EntryParts::from).collect(),
            next: f.next.map(|n| n as i64),
            examined: f.examined as i64,
        }
    }
}

impl From<Entry> for EntryParts {
    fn from(e: Entry) -> EntryParts {
        let (error, error_type) = match e.error {
            Some((m, t)) => (Some(m), Some(t)),
            None => (None, None),
        };
        EntryParts {
            id: e.id,
            id_bytes: e.id_bytes.into(),
            at: e.at.map(ms_number),
            attempts: count(e.attempts),
            error,
            error_type,
            name: e.name,
            reason: e.reason,
            partition: e.partition.map(|i| u32::try_from(i).unwrap_or(u32::MAX)),
        }
    }
}

/// The last hour's counts of one item name (`Queue#countsByName`).
#[napi(object, object_from_js = false)]
pub struct NameCountsParts {
    /// The item name.
    pub name: String,
    /// Jobs of this name completed.
    pub completed: i64,
    /// Failed attempts of this name (retried or not).
    pub failed: i64,
    /// Jobs of this name that went to the dead letters.
    pub dead: i64,
}

impl From<NameCounts> for NameCountsParts {
    fn from(n: NameCounts) -> NameCountsParts {
        NameCountsParts {
            name: n.name,
            completed: count(n.completed),
            failed: count(n.failed),
            dead: count(n.dead),
        }
    }
}

/// Counters for one minute.
#[napi(object, object_from_js = false)]
pub struct MinuteParts {
    /// Items completed.
    pub completed: i64,
    /// Failed attempts.
    pub failed: i64,
    /// Items that went dead.
    pub dead: i64,
    /// Leases that expired without their holder reporting.
    pub expired: i64,
}

impl From<Minute> for MinuteParts {
    fn from(m: Minute) -> MinuteParts {
        MinuteParts {
            completed: count(m.completed),
            failed: count(m.failed),
            dead: count(m.dead),
            expired: count(m.expired),
        }
    }
}

/// A queue's figures.
#[napi(object, object_from_js = false)]
pub struct StatsParts {
    /// Ids in the waiting lists.
    pub waiting: i64,
    /// Delayed items.
    pub delayed: i64,
    /// Items leased by leaseq clients.
    pub leased: i64,
    /// Dead letters.
    pub dead: i64,
    /// Ids in `processing` (redis-work-queue clients' leases).
    pub processing: i64,
    /// Items waiting for their dependencies (state `blocked`).
    pub blocked: i64,
    /// Recurring jobs the queue holds.
    pub schedules: i64,
    /// Age of the oldest waiting item, when known.
    pub oldest_waiting_ms: Option<f64>,
    /// The server's clock when the figures were read.
    pub now: f64,
    /// The last 60 minutes, oldest first; absent while the queue's counters are off.
    pub minutes: Option<Vec<MinuteParts>>,
    /// The counters summed over the last hour; absent while the queue's counters are off.
    pub last_hour: Option<MinuteParts>,
    /// Whether the queue is paused.
    pub paused: bool,
    /// The queue's capacity, when it is bounded.
    pub capacity: Option<i64>,
    /// While the queue is at its rate limit or held off, how long until leases go on.
    pub rate_limited_for_ms: Option<f64>,
}

impl From<Stats> for StatsParts {
    fn from(s: Stats) -> StatsParts {
        let last_hour = s.last_hour().map(MinuteParts::from);
        StatsParts {
            waiting: count(s.waiting),
            delayed: count(s.delayed),
            leased: count(s.leased),
            dead: count(s.dead),
            processing: count(s.processing),
            blocked: count(s.blocked),
            schedules: count(s.schedules),
            oldest_waiting_ms: s.oldest_waiting.map(duration_ms),
            now: ms_number(s.now),
            minutes: s
                .minutes
                .map(|minutes| minutes.into_iter().map(MinuteParts::from).collect()),
            last_hour,
            paused: s.paused,
            capacity: s.capacity.map(count),
            rate_limited_for_ms: s.rate_limited_for.map(duration_ms),
        }
    }
}

/// A queue's stored configuration, both ways: absent fields are not stored (the defaults
/// apply); `lib/queue.js` checks the types of what it sends.
#[napi(object)]
pub struct ConfigParts {
    /// Attempts before an item is dead (0: no limit).
    pub max_attempts: Option<f64>,
    /// Retry delay after a failed attempt.
    pub backoff: Option<BackoffParts>,
    /// Priority of items added without one.
    pub priority: Option<f64>,
    /// Items not started this long after they were added are dead.
    pub expires_after_ms: Option<f64>,
    /// How long a result given to `complete` is kept.
    pub keep_result_for_ms: Option<f64>,
    /// Dead letters kept at most.
    pub dead_max_count: Option<f64>,
    /// Dead letters older than this go.
    pub dead_max_age_ms: Option<f64>,
    /// Whether the queue keeps per-minute counters.
    pub stats: Option<bool>,
    /// The most items the queue holds waiting or delayed.
    pub capacity: Option<f64>,
    /// At most `max` leases per `perMs`, for every client.
    pub rate_limit: Option<RateLimitParts>,
    /// How many items of one group may be leased at once, for groups without their own limit.
    pub group_concurrency: Option<f64>,
    /// At most `max` leases of each group per `perMs`, every group in its own window.
    pub group_rate_limit: Option<RateLimitParts>,
    /// Whether the queue appends its transitions to its event stream.
    pub events: Option<bool>,
    /// The most entries the event stream keeps.
    pub events_max_len: Option<f64>,
    /// How long the event stream keeps an entry.
    pub events_max_age_ms: Option<f64>,
}

/// One group of a queue (`Queue#group`).
#[napi(object, object_from_js = false)]
pub struct GroupParts {
    /// Its items waiting.
    pub waiting: i64,
    /// Its items leased now.
    pub leased: i64,
    /// How many of its items may be leased at once.
    pub limit: i64,
    /// Whether it is paused.
    pub paused: bool,
    /// While it is at the groups' rate limit or held off, how long until its leases go on.
    pub rate_limited_for_ms: Option<f64>,
}

impl From<leaseq::GroupInfo> for GroupParts {
    fn from(g: leaseq::GroupInfo) -> GroupParts {
        GroupParts {
            waiting: count(g.waiting),
            leased: count(g.leased),
            limit: count(g.limit),
            paused: g.paused,
            rate_limited_for_ms: g.rate_limited_for.map(duration_ms),
        }
    }
}

/// A queue's rate limit: at most `max` leases in each window of `perMs` (the core checks
/// both).
#[napi(object)]
pub struct RateLimitParts {
    /// Leases per window.
    pub max: f64,
    /// The window, in ms.
    pub per_ms: f64,
}

impl ConfigParts {
    pub(crate) fn from_core(c: QueueConfig) -> ConfigParts {
        ConfigParts {
            max_attempts: c.max_attempts.map(f64::from),
            backoff: c.backoff.map(BackoffParts::from_core),
            priority: c.priority.map(f64::from),
            expires_after_ms: c.expires_after.map(duration_ms),
            keep_result_for_ms: c.keep_result_for.map(duration_ms),
            dead_max_count: c.dead_max_count.map(|n| n as f64),
            dead_max_age_ms: c.dead_max_age.map(duration_ms),
            stats: c.stats,
            capacity: c.capacity.map(|n| n as f64),
            rate_limit: c.rate_limit.map(|r| RateLimitParts {
                max: r.max as f64,
                per_ms: duration_ms(r.per),
            }),
            group_concurrency: c.group_concurrency.map(f64::from),
            group_rate_limit: c.group_rate_limit.map(|r| RateLimitParts {
                max: r.max as f64,
                per_ms: duration_ms(r.per),
            }),
            events: c.events,
            events_max_len: c.events_max_len.map(|n| n as f64),
            events_max_age_ms: c.events_max_age.map(duration_ms),
        }
    }

    pub(crate) fn to_core(&self) -> napi::Result<QueueConfig> {
        use crate::convert::{integer, millis};
        let mut c = QueueConfig::new();
        if let Some(m) = self.max_attempts {
            c = c.max_attempts(integer("maxAttempts", m)?);
        }
        if let Some(b) = &self.backoff {
            c = c.backoff(b.to_core()?);
        }
        if let Some(p) = self.priority {
            c = c.priority(integer("priority", p)?);
        }
        if let Some(ms) = self.expires_after_ms {
            c = c.expires_after(millis("expiresAfterMs", ms)?);
        }
        if let Some(ms) = self.keep_result_for_ms {
            c = c.keep_result_for(millis("keepResultForMs", ms)?);
        }
        if let Some(n) = self.dead_max_count {
            c = c.dead_max_count(integer("deadMaxCount", n)?);
        }
        if let Some(ms) = self.dead_max_age_ms {
            c = c.dead_max_age(millis("deadMaxAgeMs", ms)?);
        }
        if let Some(on) = self.stats {
            c = c.stats(on);
        }
        if let Some(n) = self.capacity {
            c = c.capacity(integer("capacity", n)?);
        }
        if let Some(r) = &self.rate_limit {
            c = c.rate_limit(leaseq::RateLimit::new(
                integer("rateLimit", r.max)?,
                millis("rateLimit", r.per_ms)?,
            ));
        }
        if let Some(n) = self.group_concurrency {
            c = c.group_concurrency(integer("groupConcurrency", n)?);
        }
        if let Some(r) = &self.group_rate_limit {
            c = c.group_rate_limit(leaseq::RateLimit::new(
                integer("groupRateLimit", r.max)?,
                millis("groupRateLimit", r.per_ms)?,
            ));
        }
        if let Some(on) = self.events {
            c = c.events(on);
        }
        if let Some(n) = self.events_max_len {
            c = c.events_max_len(integer("eventsMaxLen", n)?);
        }
        if let Some(ms) = self.events_max_age_ms {
            c = c.events_max_age(millis("eventsMaxAgeMs", ms)?);
        }
        Ok(c)
    }
}
