//! Decisions that need no Redis state: defaults, bounds, and the retry delay (backoff). Pure
//! functions, so that every binding gets the same answers from the core, and the scripts get
//! the results as arguments (spec/PROTOCOL.md, 3.2).

use std::time::Duration;

use crate::error::{Error, Result};

/// The lease TTL when the caller gives none: 30 seconds.
pub const DEFAULT_TTL: Duration = Duration::from_secs(30);
/// Attempts (leases) before an item is dead, when neither the item nor the queue says: 25.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 25;
/// The retry delay when neither the item nor the queue says: exponential from 1 s, capped at
/// one hour, with jitter.
pub const DEFAULT_BACKOFF: Backoff = Backoff::Exponential {
    base: Duration::from_secs(1),
    cap: Duration::from_secs(3600),
    jitter: true,
};
/// How long a result is kept when the caller and the queue give no time: one day.
pub const DEFAULT_KEEP_RESULT: Duration = Duration::from_secs(86_400);
/// Dead letters kept at most, by default.
pub const DEFAULT_DEAD_MAX_COUNT: u64 = 10_000;
/// How long a dead letter is kept at most, by default: seven days.
pub const DEFAULT_DEAD_MAX_AGE: Duration = Duration::from_secs(7 * 86_400);
/// Whether a queue keeps per-minute counters when its configuration does not say: off, so that
/// a drained queue leaves no key (spec/PROTOCOL.md 3.2).
pub const DEFAULT_STATS: bool = false;
/// Entries a queue's event stream keeps at least (about: trimmed by whole nodes), by default
/// (spec/PROTOCOL.md 14.1).
pub const DEFAULT_EVENTS_MAX_LEN: u64 = 10_000;
/// How long a queue's event stream keeps an entry, by default: one hour.
pub const DEFAULT_EVENTS_MAX_AGE: Duration = Duration::from_secs(3600);
/// The most entries a queue's event stream may be configured to keep.
pub const MAX_EVENTS_MAX_LEN: u64 = 1_000_000_000;
/// Priorities run from -1000 to 1000; 0 (the default) is redis-work-queue's plain list.
pub const MAX_PRIORITY: i32 = 1000;
/// The longest delay, backoff, retention or expiry accepted: 10 years (lease TTLs have their
/// own bound, [`crate::MAX_TTL`]).
pub const MAX_DURATION: Duration = Duration::from_secs(10 * 365 * 86_400);
/// The most items one list or batch call handles.
pub const MAX_PAGE: usize = 1000;
/// The page size of `list` when the caller gives none (the bindings' default).
pub const DEFAULT_PAGE: usize = 100;

/// How long a failed item waits before it runs again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Backoff {
    /// The same delay every time.
    Fixed(Duration),
    /// `base * 2^(attempt-1)`, at most `cap`; with `jitter`, a uniformly random delay between
    /// half of that and all of it ("equal jitter"), so that failures do not retry in lockstep.
    Exponential {
        /// The first retry's delay.
        base: Duration,
        /// The longest delay.
        cap: Duration,
        /// Whether to randomise the delay.
        jitter: bool,
    },
}

impl Backoff {
    /// A fixed delay.
    pub fn fixed(delay: Duration) -> Backoff {
        Backoff::Fixed(delay)
    }

    /// Exponential from `base`, capped at `cap`, with jitter.
    pub fn exponential(base: Duration, cap: Duration) -> Backoff {
        Backoff::Exponential {
            base,
            cap,
            jitter: true,
        }
    }

    /// Checks the durations (argument `backoff`).
    pub fn validate(&self) -> Result<()> {
        let (a, b) = match *self {
            Backoff::Fixed(d) => (d, d),
            Backoff::Exponential { base, cap, .. } => (base, cap),
        };
        if a > MAX_DURATION || b > MAX_DURATION {
            return Err(Error::invalid("backoff", "delays must be at most 10 years"));
        }
        if let Backoff::Exponential { base, cap, .. } = *self {
            if base.is_zero() || cap < base {
                return Err(Error::invalid(
                    "backoff",
                    "needs a base above zero and a cap at least as long as the base",
                ));
            }
        }
        Ok(())
    }

    /// The form stored in Redis: `fixed:<ms>` or `exp:<base ms>:<cap ms>:<0|1>`.
    pub fn to_wire(&self) -> String {
        match *self {
            Backoff::Fixed(d) => format!("fixed:{}", millis_up(d)),
            Backoff::Exponential { base, cap, jitter } => format!(
                "exp:{}:{}:{}",
                millis_up(base),
                millis_up(cap),
                u8::from(jitter)
            ),
        }
    }

    /// Parses the stored form; `None` for anything else (the default then applies).
    pub fn from_wire(text: &str) -> Option<Backoff> {
        let mut parts = text.split(':');
        let kind = parts.next()?;
        let mut num = || -> Option<u64> { parts.next()?.parse().ok() };
        match kind {
            "fixed" => Some(Backoff::Fixed(Duration::from_millis(num()?))),
            "exp" => {
                let base = Duration::from_millis(num()?);
                let cap = Duration::from_millis(num()?);
                let jitter = num()? == 1;
                Some(Backoff::Exponential { base, cap, jitter })
            }
            _ => None,
        }
    }

    /// The delay before the retry that follows failed attempt number `attempt` (1 for the
    /// first), with `unit` a random number in [0, 1) for the jitter.
    pub fn delay(&self, attempt: u32, unit: f64) -> Duration {
        match *self {
            Backoff::Fixed(d) => d,
            Backoff::Exponential { base, cap, jitter } => {
                let exponent = attempt.saturating_sub(1).min(62);
                let full = base
                    .checked_mul(1u32 << exponent.min(31))
                    .and_then(|d| {
                        if exponent > 31 {
                            d.checked_mul(1u32 << (exponent - 31))
                        } else {
                            Some(d)
                        }
                    })
                    .map_or(cap, |d| d.min(cap));
                if jitter {
                    let unit = unit.clamp(0.0, 1.0);
                    full / 2 + full.mul_f64(0.5 * unit)
                } else {
                    full
                }
            }
        }
    }
}

/// What to do with a failed item (the `retry` argument of `fail`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Retry {
    /// Retry after the item's backoff while it has attempts left; else dead.
    #[default]
    Default,
    /// Retry after this delay while the item has attempts left; else dead.
    After(Duration),
    /// Dead now ("unrecoverable").
    Never,
}

/// A duration in whole milliseconds, rounded up.
pub(crate) fn millis_up(d: Duration) -> u64 {
    let ms = d.as_millis().min(u128::from(u64::MAX)) as u64;
    if d > Duration::from_millis(ms) {
        ms + 1
    } else {
        ms
    }
}

/// Checks a duration argument against [`MAX_DURATION`] and returns it in milliseconds.
pub(crate) fn duration_ms(argument: &'static str, d: Duration) -> Result<u64> {
    if d > MAX_DURATION {
        return Err(Error::invalid(argument, "must be at most 10 years"));
    }
    Ok(millis_up(d))
}

/// Checks a page size (argument `count`): 1 to [`MAX_PAGE`].
pub(crate) fn validate_page(count: usize) -> Result<()> {
    if count == 0 || count > MAX_PAGE {
        return Err(Error::invalid("count", format!("must be 1 to {MAX_PAGE}")));
    }
    Ok(())
}

/// Checks a list of ids before anything is sent: at most [`MAX_PAGE`] (argument `ids`), each
/// a valid id (argument `id`).
pub(crate) fn validate_ids<I: AsRef<[u8]>>(ids: &[I]) -> Result<()> {
    if ids.len() > MAX_PAGE {
        return Err(Error::invalid(
            "ids",
            format!("at most {MAX_PAGE} per call"),
        ));
    }
    for id in ids {
        crate::item::validate_id_bytes(id.as_ref())?;
    }
    Ok(())
}

/// Checks a priority (argument `priority`).
pub(crate) fn validate_priority(priority: i32) -> Result<()> {
    if !(-MAX_PRIORITY..=MAX_PRIORITY).contains(&priority) {
        return Err(Error::invalid(
            "priority",
            format!("{priority} is outside -{MAX_PRIORITY}..={MAX_PRIORITY}"),
        ));
    }
    Ok(())
}

/// The largest capacity accepted: 2^53, the largest integer Lua's numbers hold exactly.
pub const MAX_CAPACITY: u64 = 1 << 53;

/// Checks a queue's capacity (argument `capacity`): 1 to [`MAX_CAPACITY`].
pub(crate) fn validate_capacity(capacity: u64) -> Result<()> {
    if !(1..=MAX_CAPACITY).contains(&capacity) {
        return Err(Error::invalid(
            "capacity",
            format!("{capacity} is outside 1..={MAX_CAPACITY}"),
        ));
    }
    Ok(())
}

/// The most leases a rate limit allows per window (below the count of a held-off queue, 2^52).
pub const MAX_RATE: u64 = 1_000_000_000;
/// The longest rate limit window.
pub const MAX_RATE_WINDOW: Duration = Duration::from_secs(86_400);

/// Checks a rate limit (argument `rate_limit`); returns its window in milliseconds (rounded up).
pub(crate) fn validate_rate_limit(max: u64, per: Duration) -> Result<u64> {
    validate_rate_limit_named("rate_limit", max, per)
}

/// Checks a rate limit, naming `argument` (`rate_limit`, `group_rate_limit`); returns its window
/// in milliseconds (rounded up).
pub(crate) fn validate_rate_limit_named(
    argument: &'static str,
    max: u64,
    per: Duration,
) -> Result<u64> {
    if !(1..=MAX_RATE).contains(&max) {
        return Err(Error::invalid(
            argument,
            format!("max {max} is outside 1..={MAX_RATE}"),
        ));
    }
    if per.is_zero() || per > MAX_RATE_WINDOW {
        return Err(Error::invalid(
            argument,
            "the window must be more than 0 and at most one day",
        ));
    }
    Ok(per.as_nanos().div_ceil(1_000_000) as u64)
}

/// Checks a hold-off (argument `duration`): more than 0, at most one day; in ms, rounded up.
pub(crate) fn validate_hold(duration: Duration) -> Result<u64> {
    if duration.is_zero() || duration > MAX_RATE_WINDOW {
        return Err(Error::invalid(
            "duration",
            "must be more than 0 and at most one day",
        ));
    }
    Ok(duration.as_nanos().div_ceil(1_000_000) as u64)
}

/// The largest concurrency limit of a group.
pub const MAX_GROUP_LIMIT: u32 = 1000;

/// Checks a group's concurrency limit (1 to [`MAX_GROUP_LIMIT`]), naming `argument`.
pub(crate) fn validate_group_limit(argument: &'static str, n: u32) -> Result<()> {
    if !(1..=MAX_GROUP_LIMIT).contains(&n) {
        return Err(Error::invalid(
            argument,
            format!("{n} is outside 1..={MAX_GROUP_LIMIT}"),
        ));
    }
    Ok(())
}

/// A random number in [0, 1) for the jitter.
pub(crate) fn unit_random() -> f64 {
    let bits = uuid::Uuid::new_v4().as_u128() as u64;
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn exponential_doubles_up_to_the_cap() {
        let b = Backoff::Exponential {
            base: S,
            cap: 10 * S,
            jitter: false,
        };
        assert_eq!(b.delay(1, 0.0), S);
        assert_eq!(b.delay(2, 0.0), 2 * S);
        assert_eq!(b.delay(4, 0.0), 8 * S);
        assert_eq!(b.delay(5, 0.0), 10 * S);
        assert_eq!(b.delay(200, 0.0), 10 * S, "no overflow for huge attempts");
        assert_eq!(b.delay(0, 0.0), S, "attempt 0 is treated as the first");
    }

    #[test]
    fn jitter_stays_between_half_and_all() {
        let b = Backoff::exponential(S, 100 * S);
        assert_eq!(b.delay(3, 0.0), 2 * S);
        assert_eq!(b.delay(3, 0.5), 3 * S);
        assert!(b.delay(3, 0.999_999) <= 4 * S);
        assert!(b.delay(3, 0.999_999) > 3 * S);
    }

    #[test]
    fn fixed_is_fixed() {
        assert_eq!(Backoff::fixed(3 * S).delay(7, 0.9), 3 * S);
    }

    #[test]
    fn wire_form_round_trips() {
        for b in [
            Backoff::fixed(Duration::from_millis(1500)),
            Backoff::exponential(S, 60 * S),
            Backoff::Exponential {
                base: S,
                cap: S,
                jitter: false,
            },
        ] {
            assert_eq!(Backoff::from_wire(&b.to_wire()), Some(b));
        }
        assert_eq!(Backoff::from_wire("nope:1"), None);
        assert_eq!(Backoff::from_wire("exp:1"), None);
    }

    #[test]
    fn bad_backoffs_and_priorities_are_refused() {
        assert!(Backoff::exponential(Duration::ZERO, S).validate().is_err());
        assert!(Backoff::exponential(2 * S, S).validate().is_err());
        assert!(Backoff::fixed(MAX_DURATION + S).validate().is_err());
        assert!(validate_priority(1001).is_err());
        assert!(validate_priority(-1000).is_ok());
    }

    #[test]
    fn defaults_match_the_scripts() {
        let lua = include_str!("../../spec/scripts/lib/config.lua");
        let expect = [
            format!("max_attempts = {DEFAULT_MAX_ATTEMPTS},"),
            format!("backoff = '{}',", DEFAULT_BACKOFF.to_wire()),
            format!("dead_max_count = {DEFAULT_DEAD_MAX_COUNT},"),
            format!("dead_max_age_ms = {},", millis_up(DEFAULT_DEAD_MAX_AGE)),
            format!("keep_result_ms = {},", millis_up(DEFAULT_KEEP_RESULT)),
            format!("stats = {},", u8::from(DEFAULT_STATS)),
            format!("events_max_len = {DEFAULT_EVENTS_MAX_LEN},"),
            format!("events_max_age_ms = {},", millis_up(DEFAULT_EVENTS_MAX_AGE)),
        ];
        for line in expect {
            assert!(lua.contains(&line), "lib/config.lua lacks `{line}`");
        }
    }

    #[test]
    fn unit_random_is_in_range() {
        for _ in 0..1000 {
            let u = unit_random();
            assert!((0.0..1.0).contains(&u));
        }
    }
}
