//! The queue's stored configuration, `P:config`: defaults that every client reads from Redis,
//! so that a producer in one language and a worker in another agree (spec/PROTOCOL.md, 3.2).

use std::collections::HashMap;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::policy::{self, Backoff};
use crate::queue::Queue;
use crate::scripts;

/// Defaults for a queue's items. A field left `None` is not stored, and the protocol's default
/// ([`crate::policy`]) applies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct QueueConfig {
    /// Attempts before an item is dead (0: no limit). Default 25.
    pub max_attempts: Option<u32>,
    /// Retry delay after a failed attempt. Default exponential from 1 s to 1 h, with jitter.
    pub backoff: Option<Backoff>,
    /// Priority of items added without one. Default 0.
    pub priority: Option<i32>,
    /// Items not started this long after they were added are dead. Default: never.
    pub expires_after: Option<Duration>,
    /// How long a result given to `complete` is kept. Default one day.
    pub keep_result_for: Option<Duration>,
    /// Dead letters kept at most. Default 10,000.
    pub dead_max_count: Option<u64>,
    /// Dead letters older than this go. Default seven days.
    pub dead_max_age: Option<Duration>,
    /// Whether the queue keeps per-minute counters (completed, failed, dead, expired) for
    /// [`Queue::stats`](crate::Queue::stats), the dashboard and /metrics. Default off: each
    /// counter is a key (`P:rate:<minute>`) that outlives the work by an hour, and a queue used
    /// as redis-work-queue uses one leaves no key once drained (spec/PROTOCOL.md, 2.3).
    pub stats: Option<bool>,
    /// The most items the queue holds waiting or delayed (at least 1; default: no bound). An
    /// add past it fails with [`Error::Full`] and adds nothing, or waits for room
    /// ([`Queue::add_wait`]). A capacity below what the queue holds now is refused.
    pub capacity: Option<u64>,
    /// At most `max` leases per `per`, counted on the server for every client of the queue
    /// (spec/PROTOCOL.md 5.19). Default: no limit.
    pub rate_limit: Option<RateLimit>,
    /// How many items of one group may be leased at once, for groups without a limit of their
    /// own ([`Queue::set_group_limit`]): 1 to 1000. Default 1 (strict FIFO per group).
    pub group_concurrency: Option<u32>,
    /// At most `max` leases of **each group** per `per`, every group in its own window, counted
    /// on the server for every client (spec/PROTOCOL.md 5.21): a group at its limit waits for
    /// its window while the queue's other groups and ungrouped items go on. Default: no limit.
    pub group_rate_limit: Option<RateLimit>,
    /// Whether every transition of an item is appended to the queue's event stream
    /// (`P:events`, spec/PROTOCOL.md 14), which [`Queue::events`] and [`Queue::read_events`]
    /// read. Default off: off, the stream costs nothing. Switchable while the queue runs.
    pub events: Option<bool>,
    /// The entries the event stream keeps at least (about: it is trimmed by whole nodes), 1 to
    /// [`policy::MAX_EVENTS_MAX_LEN`]. Default 10,000.
    pub events_max_len: Option<u64>,
    /// How long the event stream keeps an entry (about: trimmed at most once a second, by whole
    /// nodes), at least 1 s. Default one hour.
    pub events_max_age: Option<Duration>,
}

/// A queue's rate limit: at most `max` leases in each window of `per`, the window starting
/// with its first lease (a fixed window, on the server's clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Leases per window: 1 to [`policy::MAX_RATE`].
    pub max: u64,
    /// The window: 1 ms to one day.
    pub per: Duration,
}

impl RateLimit {
    /// At most `max` leases per `per`.
    pub fn new(max: u64, per: Duration) -> RateLimit {
        RateLimit { max, per }
    }
}

macro_rules! setters {
    ($($field:ident: $ty:ty),* $(,)?) => {
        $(
            #[doc = concat!("Sets `", stringify!($field), "`.")]
            pub fn $field(mut self, value: $ty) -> QueueConfig {
                self.$field = Some(value);
                self
            }
        )*
    };
}

impl QueueConfig {
    /// A configuration that stores nothing; add fields with the setters.
    pub fn new() -> QueueConfig {
        QueueConfig::default()
    }

    /// The protocol's defaults, every field set: what applies where neither the item nor the
    /// queue's stored configuration says otherwise (spec/PROTOCOL.md 3.2). `expires_after` is
    /// `None`: items never expire by default.
    pub fn defaults() -> QueueConfig {
        QueueConfig {
            max_attempts: Some(policy::DEFAULT_MAX_ATTEMPTS),
            backoff: Some(policy::DEFAULT_BACKOFF),
            priority: Some(0),
            expires_after: None,
            keep_result_for: Some(policy::DEFAULT_KEEP_RESULT),
            dead_max_count: Some(policy::DEFAULT_DEAD_MAX_COUNT),
            dead_max_age: Some(policy::DEFAULT_DEAD_MAX_AGE),
            stats: Some(policy::DEFAULT_STATS),
            capacity: None,
            rate_limit: None,
            group_concurrency: Some(1),
            group_rate_limit: None,
            events: Some(false),
            events_max_len: Some(policy::DEFAULT_EVENTS_MAX_LEN),
            events_max_age: Some(policy::DEFAULT_EVENTS_MAX_AGE),
        }
    }

    setters!(
        max_attempts: u32,
        backoff: Backoff,
        priority: i32,
        expires_after: Duration,
        keep_result_for: Duration,
        dead_max_count: u64,
        dead_max_age: Duration,
        stats: bool,
        capacity: u64,
        rate_limit: RateLimit,
        group_concurrency: u32,
        group_rate_limit: RateLimit,
        events: bool,
        events_max_len: u64,
        events_max_age: Duration,
    );

    pub(crate) fn fields(&self) -> Result<Vec<(&'static str, String)>> {
        let mut out = Vec::new();
        if let Some(m) = self.max_attempts {
            out.push(("max_attempts", m.to_string()));
        }
        if let Some(b) = self.backoff {
            b.validate()?;
            out.push(("backoff", b.to_wire()));
        }
        if let Some(p) = self.priority {
            policy::validate_priority(p)?;
            out.push(("priority", p.to_string()));
        }
        if let Some(d) = self.expires_after {
            if d.is_zero() {
                return Err(Error::invalid("expires_after", "must be greater than zero"));
            }
            out.push((
                "expires_after_ms",
                policy::duration_ms("expires_after", d)?.to_string(),
            ));
        }
        if let Some(d) = self.keep_result_for {
            if d.is_zero() {
                return Err(Error::invalid(
                    "keep_result_for",
                    "must be greater than zero",
                ));
            }
            out.push((
                "keep_result_ms",
                policy::duration_ms("keep_result_for", d)?.to_string(),
            ));
        }
        if let Some(n) = self.dead_max_count {
            out.push(("dead_max_count", n.to_string()));
        }
        if let Some(d) = self.dead_max_age {
            out.push((
                "dead_max_age_ms",
                policy::duration_ms("dead_max_age", d)?.to_string(),
            ));
        }
        if let Some(on) = self.stats {
            out.push(("stats", if on { "1" } else { "0" }.to_owned()));
        }
        if let Some(n) = self.capacity {
            policy::validate_capacity(n)?;
            out.push(("capacity", n.to_string()));
        }
        if let Some(limit) = self.rate_limit {
            let per = policy::validate_rate_limit(limit.max, limit.per)?;
            out.push(("rate_max", limit.max.to_string()));
            out.push(("rate_per_ms", per.to_string()));
        }
        if let Some(n) = self.group_concurrency {
            policy::validate_group_limit("group_concurrency", n)?;
            out.push(("group_concurrency", n.to_string()));
        }
        if let Some(limit) = self.group_rate_limit {
            let per = policy::validate_rate_limit_named("group_rate_limit", limit.max, limit.per)?;
            out.push(("group_rate_max", limit.max.to_string()));
            out.push(("group_rate_per_ms", per.to_string()));
        }
        if let Some(on) = self.events {
            out.push(("events", if on { "1" } else { "0" }.to_owned()));
        }
        if let Some(n) = self.events_max_len {
            if !(1..=policy::MAX_EVENTS_MAX_LEN).contains(&n) {
                return Err(Error::invalid(
                    "events_max_len",
                    format!("must be 1 to {}", policy::MAX_EVENTS_MAX_LEN),
                ));
            }
            out.push(("events_max_len", n.to_string()));
        }
        if let Some(d) = self.events_max_age {
            if d < Duration::from_secs(1) {
                return Err(Error::invalid("events_max_age", "must be at least 1 s"));
            }
            out.push((
                "events_max_age_ms",
                policy::duration_ms("events_max_age", d)?.to_string(),
            ));
        }
        Ok(out)
    }

    fn from_fields(map: &HashMap<String, String>) -> QueueConfig {
        let ms = |k: &str| {
            map.get(k)
                .and_then(|v| v.parse().ok())
                .map(Duration::from_millis)
        };
        QueueConfig {
            max_attempts: map.get("max_attempts").and_then(|v| v.parse().ok()),
            backoff: map.get("backoff").and_then(|v| Backoff::from_wire(v)),
            priority: map.get("priority").and_then(|v| v.parse().ok()),
            expires_after: ms("expires_after_ms"),
            keep_result_for: ms("keep_result_ms"),
            dead_max_count: map.get("dead_max_count").and_then(|v| v.parse().ok()),
            dead_max_age: ms("dead_max_age_ms"),
            stats: map.get("stats").map(|v| v == "1"),
            capacity: map.get("capacity").and_then(|v| v.parse().ok()),
            rate_limit: match (
                map.get("rate_max").and_then(|v| v.parse().ok()),
                ms("rate_per_ms"),
            ) {
                (Some(max), Some(per)) => Some(RateLimit { max, per }),
                _ => None,
            },
            group_concurrency: map.get("group_concurrency").and_then(|v| v.parse().ok()),
            group_rate_limit: match (
                map.get("group_rate_max").and_then(|v| v.parse().ok()),
                ms("group_rate_per_ms"),
            ) {
                (Some(max), Some(per)) => Some(RateLimit { max, per }),
                _ => None,
            },
            events: map.get("events").map(|v| v == "1"),
            events_max_len: map.get("events_max_len").and_then(|v| v.parse().ok()),
            events_max_age: ms("events_max_age_ms"),
        }
    }
}

impl Queue {
    /// The stored configuration (fields not stored are `None`: the defaults apply).
    pub async fn config(&self) -> Result<QueueConfig> {
        let map: HashMap<String, String> = self
            .query(redis::cmd("HGETALL").arg(&self.keys().config))
            .await?;
        Ok(QueueConfig::from_fields(&map))
    }

    /// Stores the fields of `config` that are `Some` (validated first; nothing is written if
    /// one is refused, a capacity below the items the queue holds now included); the others
    /// keep their stored value. One round trip.
    pub async fn set_config(&self, config: &QueueConfig) -> Result<()> {
        let fields = config.fields()?;
        if fields.is_empty() {
            return Ok(());
        }
        let mut inv = self.invocation(&scripts::SET_CONFIG);
        for (k, v) in &fields {
            inv.arg(*k).arg(v.as_str());
        }
        let size: i64 = self.invoke(&inv).await?;
        if size >= 0 {
            return Err(Error::invalid(
                "capacity",
                format!("is below the {size} items the queue holds (waiting and delayed)"),
            ));
        }
        Ok(())
    }

    /// Removes the stored configuration: the protocol's defaults apply again.
    pub async fn reset_config(&self) -> Result<()> {
        self.query::<i64>(redis::cmd("DEL").arg(&self.keys().config))
            .await
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// A duration of 0 where it means nothing useful is refused, naming the field.
    #[test]
    fn zero_durations_that_mean_nothing_are_refused() {
        let refused = |config: QueueConfig| match config.fields() {
            Err(Error::InvalidArgument { argument, .. }) => argument,
            other => panic!("expected a refusal, got {other:?}"),
        };
        let expires = QueueConfig {
            expires_after: Some(Duration::ZERO),
            ..QueueConfig::default()
        };
        assert_eq!(refused(expires), "expires_after");
        let keep = QueueConfig {
            keep_result_for: Some(Duration::ZERO),
            ..QueueConfig::default()
        };
        assert_eq!(refused(keep), "keep_result_for");
        let ok = QueueConfig {
            expires_after: Some(Duration::from_millis(1)),
            ..QueueConfig::default()
        };
        assert!(ok.fields().is_ok());
    }
}
