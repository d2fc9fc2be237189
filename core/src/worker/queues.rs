//! A runner over several queues (spec/PROTOCOL.md, 13.3): the order in which it asks them for
//! work, strict or weighted round robin, and its one wait on all of them.

use std::time::{Duration, Instant};

use crate::conn::{Deadline, KeptWaits, Schedule, Waiter};
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

/// How long a queue found empty may go unasked while its runner keeps finding work elsewhere
/// (weighted order only, spec/PROTOCOL.md 13.3): its items wait at most about this long for a
/// runner busy with the other queues; an idle runner's one wait notices them at once.
pub(crate) const RECHECK_EMPTY: Duration = Duration::from_millis(250);

/// What a runner over several queues remembers between its looks: the queues it found empty
/// (asked, or waited on while another queue's key answered), which it does not ask again (one
/// round trip each) until their wait answers, a wait runs out, or [`RECHECK_EMPTY`] passes. Off (every queue asked every look) in strict order, where a
/// queue's place must win over another's work at once.
pub(crate) struct Looks {
    skip_until: Vec<Option<Instant>>,
    on: bool,
    /// The waits on the queues' keys, kept in flight from one look to the next.
    kept: KeptWaits,
}

impl Looks {
    /// Fresh looks over `n` queues; `on` enables skipping the queues found empty.
    pub fn new(n: usize, on: bool) -> Looks {
        Looks {
            skip_until: vec![None; n],
            on,
            kept: KeptWaits::default(),
        }
    }

    fn skipped(&self, i: usize, now: Instant) -> bool {
        self.skip_until[i].is_some_and(|until| now < until)
    }

    fn found_empty(&mut self, i: usize, now: Instant) {
        if self.on {
            self.skip_until[i] = Some(now + RECHECK_EMPTY);
        }
    }

    fn ask(&mut self, i: usize) {
        self.skip_until[i] = None;
    }

    fn ask_all(&mut self) {
        self.skip_until.iter_mut().for_each(|s| *s = None);
    }
}

/// Leases up to `n` items for `ttl` from `queues`, asked in `order` (each a no-wait lease, one
/// round trip; the later ones only while slots are left; a queue `looks` found empty is not
/// asked again until its wait answers). When none has work, waits up to `wait` on all of them
/// at once: a BLMOVE on each one's `P:queue` and `P:wake`, bounded by the soonest due item or
/// expiring lease; a queue at its rate limit is not waited on but bounds the wait by its
/// window. After the wait it asks first the queue whose key answered. Gives up its wait when
/// `stop` resolves. Returns each lease with the index of its queue.
pub(crate) async fn lease_any(
    queues: &[Queue],
    order: &[usize],
    n: usize,
    ttl: Duration,
    wait: Duration,
    looks: &mut Looks,
    stop: impl std::future::Future<Output = ()>,
) -> Result<Vec<(usize, Lease)>> {
    tokio::pin!(stop);
    let ttl_ms = ttl_millis(ttl)?;
    let deadline = Deadline::of(Wait::Timeout(wait))?;
    let first = &queues[0];
    let mut waiter = Waiter::new(first.handle(), first.prefix(), deadline, Schedule::WAIT);
    let mut order: Vec<usize> = order.to_vec();
    loop {
        let mut got = Vec::new();
        let mut keys = Vec::new();
        let mut owners: Vec<usize> = Vec::new();
        let mut wake_in: Option<Duration> = None;
        let now = Instant::now();
        for &i in &order {
            let q = &queues[i];
            let empty = if got.len() >= n || looks.skipped(i, now) {
                looks.skipped(i, now)
            } else {
                let (leases, wake, limited) = q.try_lease(n - got.len(), ttl_ms).await?;
                if let Some(w) = wake {
                    wake_in = Some(wake_in.map_or(w, |x| x.min(w)));
                }
                let empty = leases.is_empty() && !limited;
                if empty {
                    looks.found_empty(i, now);
                }
                got.extend(leases.into_iter().map(|l| (i, l)));
                empty
            };
            if empty {
                keys.push(q.keys().queue.as_bytes().to_vec());
                keys.push(q.keys().wake.as_bytes().to_vec());
                owners.extend([i, i]);
            }
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
                _ = tokio::time::sleep(slice) => Ok(None),
                _ = &mut stop => return Ok(got),
            }
        } else {
            tokio::select! {
                r = waiter.until_any_kept(&keys, Some(slice), &mut looks.kept) => r,
                _ = &mut stop => return Ok(got),
            }
        };
        match waited {
            Ok(answered) => {
                waiter.worked();
                match answered {
                    // The queue that answered goes first; the others' waits found them empty.
                    // A queue whose wait had not answered was empty when the wait ended.
                    Some(key) => {
                        let now = Instant::now();
                        for &i in &owners {
                            looks.found_empty(i, now);
                        }
                        // A kept wait may be a queue's that this look did not wait on.
                        let answered = queues.iter().position(|q| {
                            q.keys().queue.as_bytes() == key || q.keys().wake.as_bytes() == key
                        });
                        match answered {
                            Some(j) if looks.on => {
                                looks.ask(j);
                                order.retain(|&i| i != j);
                                order.insert(0, j);
                            }
                            Some(j) => looks.ask(j),
                            None => looks.ask_all(),
                        }
                    }
                    // The time ran out (a due item, an expiring lease, a window's end): ask all.
                    None => looks.ask_all(),
                }
            }
            Err(e) if e.is_retryable() && !deadline.passed() => {
                looks.ask_all();
                waiter.pause().await?
            }
            Err(e) if e.code() == crate::ErrorCode::OutOfMemory && !deadline.passed() => {
                looks.ask_all();
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
