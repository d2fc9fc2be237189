//! What a worker holds while it works on an item, and the time arguments of leasing.

use std::sync::Arc;
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
    /// The prefix of the queue that leased it: a lease acts only on its own queue. Shared with
    /// the queue's keys, not copied per lease.
    pub(crate) prefix: Arc<str>,
    pub(crate) id: String,
    /// The id exactly as Redis holds it, only when it is not UTF-8 (pushed by another kind of
    /// client): `id` then shows it lossily. `None`: the bytes of `id`.
    pub(crate) wire_id: Option<Vec<u8>>,
    pub(crate) data: Vec<u8>,
    pub(crate) token: String,
    pub(crate) count: u64,
    /// Which life of the id this is: an id completed and added again is a new incarnation.
    /// `None` when it is `token` (a plain item's first lease, the common case), so that such
    /// a lease holds it once; `Some` only for another value.
    pub(crate) incarnation: Option<String>,
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
        self.incarnation.as_deref().unwrap_or(&self.token)
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
        self.wire_id.as_deref().unwrap_or(self.id.as_bytes())
    }

    /// Takes the data out of the lease, leaving it empty.
    pub fn take_data(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.data)
    }
}

/// A lease's `id` and `wire_id` from the id's bytes as Redis sent them: the bytes become the
/// `id` without a copy when they are UTF-8 (as good as every id); else `id` shows them lossily
/// and `wire_id` keeps them.
pub(crate) fn lease_id(bytes: Vec<u8>) -> (String, Option<Vec<u8>>) {
    match String::from_utf8(bytes) {
        Ok(id) => (id, None),
        Err(e) => {
            let bytes = e.into_bytes();
            (String::from_utf8_lossy(&bytes).into_owned(), Some(bytes))
        }
    }
}

/// A lease's `incarnation` (see [`Lease`]): `None` when it equals the lease's token.
pub(crate) fn lease_incarnation(incarnation: String, token: &str) -> Option<String> {
    (incarnation != token).then_some(incarnation)
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
    fn a_utf8_id_is_held_once_and_other_bytes_are_kept_beside_their_lossy_text() {
        let (id, wire) = lease_id(b"job-1".to_vec());
        assert_eq!((id.as_str(), wire), ("job-1", None));
        let (id, wire) = lease_id(vec![b'a', 0xff, b'b']);
        assert_eq!(id, "a\u{fffd}b");
        assert_eq!(wire.as_deref(), Some(&[b'a', 0xff, b'b'][..]));
    }

    #[test]
    fn an_incarnation_equal_to_the_token_is_the_token_and_another_is_kept() {
        let first = Lease::from_parts("q", "x", "t1", "t1", 1).unwrap();
        assert_eq!(first.incarnation, None);
        assert_eq!(first.incarnation(), "t1");
        assert_eq!(first.id_bytes(), b"x");
        let later = Lease::from_parts("q", "x", "t2", "t1", 2).unwrap();
        assert_eq!(later.incarnation.as_deref(), Some("t1"));
        assert_eq!(later.incarnation(), "t1");
        assert_eq!(later.token(), "t2");
        assert_eq!(later.queue_prefix(), "q");
    }

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
