//! A runner over several queues (spec/PROTOCOL.md, 13.3): the order in which it asks them for
//! work, strict or weighted round robin, and its one wait on all of them.

use std::time::Duration;

use crate::conn::{Deadline, Schedule, Waiter};
use crate::error::{Error, Result};
use crate::lease::{ttl_millis, Lease, Wait};
use crate::queue::Queue;

/// How a runner over several queues picks the queue for its free slots.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum QueueOrder {
    /// The first queue that has work, in the order given: a later queue gets slots only while
    /// every earlier one is empty (paused, or at its rate limit). The default.
    #[default]
    Strict,
    /// Weighted round robin: over time, queue `i` is asked first in `weights[i]` of every
    /// `sum(weights)` rounds (smooth, so that no queue waits long for its turn); the others
    /// follow it in the order given, to fill the slots it leaves. One weight per queue, each
    /// 1 to 1000.
    Weighted(Vec<u32>),
}

/// The most queues one runner serves: each costs two connections while the runner waits.
pub const MAX_QUEUES: usize = 64;

/// Checks a runner's queues and their order (arguments `queues` and `queue_order`).
pub(crate) fn validate(queues: &[Queue], order: &QueueOrder) -> Result<()> {
    if queues.is_empty() || queues.len() > MAX_QUEUES {
        return Err(Error::invalid(
            "queues",
            format!("must name 1 to {MAX_QUEUES} queues"),
        ));
    }
    for (i, q) in queues.iter().enumerate() {
        if queues[..i].iter().any(|p| p.prefix() == q.prefix()) {
            return Err(Error::invalid(
                "queues",
                format!("`{}` is named twice", q.prefix()),
            ));
        }
        if !q.handle().same_client(queues[0].handle()) {
            return Err(Error::invalid(
                "queues",
                "every queue must come from the same client",
            ));
        }
    }
    if let QueueOrder::Weighted(weights) = order {
        if weights.len() != queues.len() {
            return Err(Error::invalid(
                "queue_order",
                format!(
                    "{} weights for {} queues: give one per queue",
                    weights.len(),
                    queues.len()
                ),
            ));
        }
        if weights.iter().any(|w| !(1..=1000).contains(w)) {
            return Err(Error::invalid(
                "queue_order",
                "each weight must be 1 to 1000",
            ));
        }
    }
    Ok(())
}

/// The order of one round: which queue is asked first, then the rest.
pub(crate) struct Picker {
    weights: Option<Vec<i64>>,
    current: Vec<i64>,
}

impl Picker {
    pub fn new(order: &QueueOrder, n: usize) -> Picker {
        match order {
            QueueOrder::Strict => Picker {
                weights: None,
                current: vec![0; n],
            },
            QueueOrder::Weighted(w) => Picker {
                weights: Some(w.iter().map(|&w| i64::from(w)).collect()),
                current: vec![0; n],
            },
        }
    }

    /// The queues' indexes in the order this round asks them.
    pub fn round(&mut self) -> Vec<usize> {
        let n = self.current.len();
        let Some(weights) = &self.weights else {
            return (0..n).collect();
        };
        // Smooth weighted round robin (as nginx's): each round every queue gains its weight,
        // the richest goes first and pays the total.
        let total: i64 = weights.iter().sum();
        for (c, w) in self.current.iter_mut().zip(weights) {
            *c += w;
        }
        let first = (0..n)
            .max_by_key(|&i| (self.current[i], std::cmp::Reverse(i)))
            .unwrap_or(0);
        self.current[first] -= total;
        std::iter::once(first)
            .chain((0..n).filter(|&i| i != first))
            .collect()
    }
}

/// Leases up to `n` items for `ttl` from `queues`, asked in `order` (each a no-wait lease, one
/// round trip; the later ones only while slots are left). When none has work, waits up to
/// `wait` on all of them at once: a BLMOVE on each one's `P:queue` and `P:wake`, bounded by the
/// soonest due item or expiring lease; a queue at its rate limit is not waited on but bounds
/// the wait by its window. Gives up its wait when `stop` resolves. Returns each lease with the
/// index of its queue.
pub(crate) async fn lease_any(
    queues: &[Queue],
    order: &[usize],
    n: usize,
    ttl: Duration,
    wait: Duration,
    stop: impl std::future::Future<Output = ()>,
) -> Result<Vec<(usize, Lease)>> {
    tokio::pin!(stop);
    let ttl_ms = ttl_millis(ttl)?;
    let deadline = Deadline::of(Wait::Timeout(wait))?;
    let first = &queues[0];
    let mut waiter = Waiter::new(first.handle(), first.prefix(), deadline, Schedule::WAIT);
    loop {
        let mut got = Vec::new();
        let mut keys = Vec::new();
        let mut wake_in: Option<Duration> = None;
        for &i in order {
            if got.len() >= n {
                break;
            }
            let q = &queues[i];
            let (leases, wake, limited) = q.try_lease(n - got.len(), ttl_ms).await?;
            if let Some(w) = wake {
                wake_in = Some(wake_in.map_or(w, |x| x.min(w)));
            }
            if leases.is_empty() && !limited {
                keys.push(q.keys().queue.as_bytes().to_vec());
                keys.push(q.keys().wake.as_bytes().to_vec());
            }
            got.extend(leases.into_iter().map(|l| (i, l)));
        }
        if !got.is_empty() {
            return Ok(got);
        }
        let left = match deadline.left() {
            Some(left) if left.is_zero() => return Ok(got),
            left => left.unwrap_or(wait),
        };
        let slice = wake_in.map_or(left, |w| w.min(left));
        let waited = if keys.is_empty() {
            // Every queue is at its rate limit: sleep until the first window ends.
            tokio::select! {
                _ = tokio::time::sleep(slice) => Ok(()),
                _ = &mut stop => return Ok(got),
            }
        } else {
            tokio::select! {
                r = waiter.until_any_of(keys, Some(slice)) => r,
                _ = &mut stop => return Ok(got),
            }
        };
        match waited {
            Ok(()) => waiter.worked(),
            Err(e) if e.is_retryable() && !deadline.passed() => waiter.pause().await?,
            Err(e) if e.code() == crate::ErrorCode::OutOfMemory && !deadline.passed() => {
                waiter.pause().await?
            }
            Err(e) if e.is_retryable() || e.code() == crate::ErrorCode::OutOfMemory => {
                return Ok(got)
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_asks_in_the_order_given() {
        let mut p = Picker::new(&QueueOrder::Strict, 3);
        assert_eq!(p.round(), [0, 1, 2]);
        assert_eq!(p.round(), [0, 1, 2]);
    }

    #[test]
    fn weighted_asks_first_in_proportion_and_smoothly() {
        let mut p = Picker::new(&QueueOrder::Weighted(vec![3, 1]), 2);
        let firsts: Vec<usize> = (0..8).map(|_| p.round()[0]).collect();
        assert_eq!(firsts.iter().filter(|&&i| i == 0).count(), 6);
        assert_eq!(firsts.iter().filter(|&&i| i == 1).count(), 2);
        // Smooth: the light queue's turns are spread, never two in a row.
        assert!(!firsts.windows(2).any(|w| w == [1, 1]), "{firsts:?}");
        // Every round asks every queue.
        let mut r = p.round();
        r.sort();
        assert_eq!(r, [0, 1]);
    }
}
