//! What a worker holds while it works on an item, and the time arguments of leasing.

use std::time::Duration;

use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

/// The longest lease TTL accepted: 30 days.
pub const MAX_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// A leased item. Pass it back to `complete`, `complete_and_lease` or `renew`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub(crate) id: String,
    /// The id exactly as Redis holds it; differs from `id` only for ids that are not UTF-8
    /// (pushed by another kind of client), which `id` shows lossily.
    pub(crate) wire_id: Vec<u8>,
    pub(crate) data: Vec<u8>,
    pub(crate) token: String,
    pub(crate) count: u64,
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
        Ok(serde_json::from_slice(&self.data)?)
    }

    /// This lease's token: random, unique to this lease. Renewing checks it (fencing).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// How many times the item has been leased, this lease included (1 on the first lease). It
    /// only grows: a count above 1 means an earlier holder let the lease expire or crashed.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Takes the data out of the lease, leaving it empty.
    pub fn take_data(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.data)
    }
}

/// How long `lease` waits for an item when the queue is empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Return at once.
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

/// What `renew` found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenewOutcome {
    /// The lease was this holder's and now lasts the new TTL.
    Renewed,
    /// The lease expired and nobody holds the item now; a light clean will queue it again.
    Expired,
    /// Another holder leased the item after this lease expired.
    TakenByAnother,
    /// The item is complete.
    Completed,
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
