//! What a worker holds while it works on an item, and the time arguments of leasing.

use std::time::Duration;

use serde::de::DeserializeOwned;

use crate::error::{Error, Result};
use crate::policy::Backoff;

/// The longest lease TTL accepted: 30 days.
pub const MAX_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// A leased item. Pass it back to `complete`, `fail`, `release`, `renew` or `progress` of the
/// queue it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The prefix of the queue that leased it: a lease acts only on its own queue.
    pub(crate) prefix: String,
    pub(crate) id: String,
    /// The id exactly as Redis holds it; differs from `id` only for ids that are not UTF-8
    /// (pushed by another kind of client), which `id` shows lossily.
    pub(crate) wire_id: Vec<u8>,
    pub(crate) data: Vec<u8>,
    pub(crate) token: String,
    pub(crate) count: u64,
    /// Which life of the id this is: an id completed and added again is a new incarnation.
    pub(crate) incarnation: String,
    pub(crate) max_attempts: u32,
    pub(crate) backoff: Backoff,
    /// The item's name, when it was added with one.
    pub(crate) name: Option<String>,
}

impl Lease {
    /// The item's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The item's data.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The item's data parsed as JSON.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T> {
        serde_json::from_slice(&self.data).map_err(Error::json)
    }

    /// This lease's token: random, unique to this lease. Renewing checks it (fencing).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// How many times the item has been leased, this lease included (1 on the first lease). A
    /// count above 1 means an earlier attempt failed, or its holder let the lease expire.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The attempt number: the same as [`Lease::count`].
    pub fn attempt(&self) -> u64 {
        self.count
    }

    /// The item's incarnation: a fresh value each time the id is added anew. A lease of an older
    /// incarnation can no longer complete, fail, release or renew the item.
    pub fn incarnation(&self) -> &str {
        &self.incarnation
    }

    /// The attempts after which the item is dead instead of retried (0: no limit).
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The item's backoff: how long it waits after a failed attempt.
    pub fn backoff(&self) -> Backoff {
        self.backoff
    }

    /// The item's name (what kind of job it is), when it was added with one
    /// ([`crate::Item::name`]).
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The prefix of the queue this lease belongs to.
    pub fn queue_prefix(&self) -> &str {
        &self.prefix
    }

    /// The id exactly as Redis holds it (differs from [`Lease::id`] only for an id that is not
    /// UTF-8, which another kind of client may have added).
    pub fn id_bytes(&self) -> &[u8] {
        &self.wire_id
    }

    /// Takes the data out of the lease, leaving it empty.
    pub fn take_data(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.data)
    }
}

/// How long `lease` waits for an item when the queue is empty (and `wait_result` for a
/// result). The default is not to wait. More ways to wait may come: a `match` on it needs a
/// wildcard arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Wait {
    /// Return at once.
    #[default]
    No,
    /// Wait up to this long.
    Timeout(Duration),
    /// Wait until an item arrives or the client is closed.
    Forever,
}

impl Wait {
    /// `None` waits forever, `Some(ZERO)` not at all, otherwise up to the duration.
    pub fn from_timeout(timeout: Option<Duration>) -> Wait {
        match timeout {
            None => Wait::Forever,
            Some(d) if d.is_zero() => Wait::No,
            Some(d) => Wait::Timeout(d),
        }
    }
}

/// A duration is a timeout: zero does not wait, as [`Wait::from_timeout`] says.
impl From<Duration> for Wait {
    fn from(timeout: Duration) -> Wait {
        Wait::from_timeout(Some(timeout))
    }
}

/// What `renew` found: whether the lease is still this holder's, and if not, why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RenewOutcome {
    /// The lease was this holder's and now lasts the new TTL.
    Renewed,
    /// The lease expired and nobody holds the item now; it will be queued again.
    Expired,
    /// Another holder leased the item after this lease expired.
    TakenByAnother,
    /// The item is complete (or gone).
    Completed,
    /// The item was cancelled while leased.
    Cancelled,
    /// The id was completed and added again: this lease belongs to an older incarnation.
    OlderIncarnation,
}

impl RenewOutcome {
    /// The outcome for a script's outcome code (spec/scripts/lib/outcome.lua).
    pub(crate) fn from_code(code: i64) -> RenewOutcome {
        match code {
            1 => RenewOutcome::Renewed,
            -1 => RenewOutcome::TakenByAnother,
            -2 => RenewOutcome::Completed,
            -3 => RenewOutcome::Cancelled,
            -4 => RenewOutcome::OlderIncarnation,
            _ => RenewOutcome::Expired,
        }
    }

    /// A stable lower-case name: `renewed`, `expired`, `taken`, `completed`, `cancelled`,
    /// `older_incarnation` (what the bindings show).
    pub fn as_str(self) -> &'static str {
        match self {
            RenewOutcome::Renewed => "renewed",
            RenewOutcome::Expired => "expired",
            RenewOutcome::TakenByAnother => "taken",
            RenewOutcome::Completed => "completed",
            RenewOutcome::Cancelled => "cancelled",
            RenewOutcome::OlderIncarnation => "older_incarnation",
        }
    }
}

/// A lease TTL given in milliseconds, as the bindings take it, checked once for all of them:
/// more than 0 and at most [`MAX_TTL`] (the bounds of `ttl_millis`, the one place they are
/// written). `argument` names it in the error (`ttl_ms`, `options.ttl_ms`, `ttlMs`), which
/// words the value as it was given.
pub fn ttl_from_millis(argument: &'static str, ms: i64) -> Result<Duration> {
    // A negative count is no Duration: it is refused as zero is.
    let ttl = Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    match ttl_millis(ttl) {
        Ok(_) => Ok(ttl),
        Err(_) if ms <= 0 => Err(Error::invalid(
            argument,
            format!("must be greater than zero, got {ms}"),
        )),
        Err(_) => Err(Error::invalid(
            argument,
            format!(
                "is {ms}, at most {} (30 days) is allowed",
                MAX_TTL.as_millis()
            ),
        )),
    }
}

/// Validates a lease TTL and returns it in whole milliseconds (rounded up).
pub(crate) fn ttl_millis(ttl: Duration) -> Result<u64> {
    if ttl.is_zero() {
        return Err(Error::invalid("ttl", "must be greater than zero"));
    }
    if ttl > MAX_TTL {
        return Err(Error::invalid(
            "ttl",
            format!("{ttl:?} exceeds the maximum of {MAX_TTL:?}"),
        ));
    }
    let millis = ttl.as_millis() as u64;
    Ok(if ttl > Duration::from_millis(millis) {
        millis + 1
    } else {
        millis
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttls_round_up_to_milliseconds() {
        assert_eq!(ttl_millis(Duration::from_micros(1)).unwrap(), 1);
        assert_eq!(ttl_millis(Duration::from_millis(1500)).unwrap(), 1500);
        assert!(ttl_millis(Duration::ZERO).is_err());
        assert!(ttl_millis(MAX_TTL + Duration::from_secs(1)).is_err());
    }

    /// The bindings' milliseconds take the bounds of `ttl_millis`, and keep their own words.
    #[test]
    fn ttls_in_milliseconds_take_the_same_bounds() {
        let max = MAX_TTL.as_millis() as i64;
        assert_eq!(
            ttl_from_millis("ttl_ms", 1).unwrap(),
            Duration::from_millis(1)
        );
        assert_eq!(ttl_from_millis("ttl_ms", max).unwrap(), MAX_TTL);
        let reason = |ms| match ttl_from_millis("ttlMs", ms) {
            Err(Error::InvalidArgument { argument, reason }) => {
                assert_eq!(argument, "ttlMs");
                reason
            }
            other => panic!("{ms}: {other:?}"),
        };
        assert_eq!(reason(0), "must be greater than zero, got 0");
        assert_eq!(reason(-5), "must be greater than zero, got -5");
        assert_eq!(
            reason(i64::MIN),
            format!("must be greater than zero, got {}", i64::MIN)
        );
        assert_eq!(
            reason(max + 1),
            format!("is {}, at most {max} (30 days) is allowed", max + 1)
        );
        assert_eq!(
            reason(i64::MAX),
            format!("is {}, at most {max} (30 days) is allowed", i64::MAX)
        );
    }

    #[test]
    fn timeouts_map_to_waits() {
        assert_eq!(Wait::from_timeout(None), Wait::Forever);
        assert_eq!(Wait::from_timeout(Some(Duration::ZERO)), Wait::No);
        assert_eq!(
            Wait::from_timeout(Some(Duration::from_secs(1))),
            Wait::Timeout(Duration::from_secs(1))
        );
    }
}
