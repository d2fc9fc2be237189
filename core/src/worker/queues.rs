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
    /// Weighted round robin, in turns: the runner serves one queue at a time, for a turn of at
    /// most 256 leases per slot or 250 ms (shorter when the queue runs out of work), and over
    /// time queue `i` has `weights[i]` of every `sum(weights)` turns (smooth, so that no queue
    /// waits long for its turn); the others fill the slots a turn's queue leaves. Each call
    /// then completes and leases a whole batch of slots, as over one queue (spec/PROTOCOL.md
    /// 13.3, "Turns"). One weight per queue, each 1 to 1000.
    Weighted(Vec<u32>),
}

impl QueueOrder {
    /// Checks the order for a runner over `queues` queues, as the runner does when it starts
    /// (argument `queue_order`): one weight per queue, each 1 to 1000. Needs no Redis: for a
    /// binding that refuses bad settings before it waits for Redis.
    pub fn check(&self, queues: usize) -> Result<()> {
        if let QueueOrder::Weighted(weights) = self {
            if weights.len() != queues {
                return Err(Error::invalid(
                    "queue_order",
                    format!(
                        "{} for {}: give one per queue",
                        counted(weights.len(), "weight"),
                        counted(queues, "queue")
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
}

/// `n` and `what`, plural when `n` is not 1: `1 queue`, `2 weights`.
fn counted(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

/// The most queues one runner serves: each costs two connections while the runner waits.
pub const MAX_QUEUES: usize = 64;

/// Checks a runner's queues and their order (arguments `queues` and `queue_order`).
pub(crate) fn validate(queues: &[Queue], order: &QueueOrder) -> Result<()> {
    let prefixes: Vec<&str> = queues.iter().map(Queue::prefix).collect();
    check_list(
        &prefixes,
        |i| queues[i].handle().same_client(queues[0].handle()),
        order,
    )
}

/// [`validate`] for queues known by their prefixes, `same_client(i)` saying whether queue `i`
/// comes from the first one's client: for the blocking facade's handles, checked before a
/// runner waits for Redis.
pub(crate) fn check_list(
    prefixes: &[&str],
    same_client: impl Fn(usize) -> bool,
    order: &QueueOrder,
) -> Result<()> {
    if prefixes.is_empty() || prefixes.len() > MAX_QUEUES {
        return Err(Error::invalid(
            "queues",
            format!("must name 1 to {MAX_QUEUES} queues"),
        ));
    }
    for (i, prefix) in prefixes.iter().enumerate() {
        if prefixes[..i].contains(prefix) {
            return Err(Error::invalid(
                "queues",
                format!("`{prefix}` is named twice"),
            ));
        }
        if !same_client(i) {
            return Err(Error::invalid(
                "queues",
                "every queue must come from the same client",
            ));
        }
    }
    order.check(prefixes.len())
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

/// How many leases a turn gives its queue, per slot of the runner (weighted order,
/// spec/PROTOCOL.md 13.3 "Turns"): in a turn of `TURN_LEASES_PER_SLOT * concurrency` leases each
/// slot completes and leases again in one call about that many times before the runner moves
/// on, and a move (a complete that leases nothing, then a lease that completes nothing) adds
/// about one call in `TURN_LEASES_PER_SLOT` to the calls of a runner over one queue.
pub(crate) const TURN_LEASES_PER_SLOT: usize = 256;

/// The longest a turn lasts (weighted order): at a low rate of jobs a turn ends by time before
/// it runs out of leases, so that another queue with work waits about this long per turn, not
/// `TURN_LEASES_PER_SLOT` of the handlers' durations.
pub(crate) const TURN_TIME: Duration = RECHECK_EMPTY;

/// Where a runner's freed slots go (spec/PROTOCOL.md 13.1 and 13.3, "Turns"): back to the queue
/// whose completes freed them, in the same call (`complete_and_lease_batch`), or to the round.
/// - One queue: always the same call (13.1).
/// - Strict order: the same call for the first queue's completes (a round would ask it first
///   for them anyway); the round for the others'.
/// - Weighted order: the runner serves one queue at a time, in **turns**. A turn starts when a
///   round leases from a queue (the last one in the round's order that gave it items) and
///   lasts `TURN_LEASES_PER_SLOT * concurrency` leases or [`TURN_TIME`], whichever ends first,
///   or until its queue has fewer items than a call asks for. While it lasts, its queue's
///   completes lease again in the same call, for all the slots they freed (the call that
///   reaches the turn's end too: a batch of slots stays whole), and a round asks its queue
///   first; the slots of other queues' jobs (still running from an earlier turn) go to the
///   round, so they join it. Once it ends, freed slots go to the round, whose order starts the
///   next turn.
///
/// So each call carries a whole batch of the runner's slots, completes and leases at once, as
/// a runner over one queue's does, instead of a share of a batch split over the queues.
pub(crate) struct Turns {
    kind: TurnKind,
    /// The leases a turn gives (weighted order).
    length: usize,
    /// The queue whose turn it is, the leases left in it, and when it ends (weighted order).
    current: Option<usize>,
    left: usize,
    until: Option<Instant>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TurnKind {
    One,
    Strict,
    Weighted,
}

impl Turns {
    /// The turns of a runner over `n` queues in `order` with `concurrency` slots.
    pub fn new(n: usize, order: &QueueOrder, concurrency: usize) -> Turns {
        let kind = match (n, order) {
            (1, _) => TurnKind::One,
            (_, QueueOrder::Strict) => TurnKind::Strict,
            (_, QueueOrder::Weighted(_)) => TurnKind::Weighted,
        };
        Turns {
            kind,
            length: TURN_LEASES_PER_SLOT.saturating_mul(concurrency.max(1)),
            current: None,
            left: 0,
            until: None,
        }
    }

    /// The queue whose turn runs at `now`, if any.
    fn running(&self, now: Instant) -> Option<usize> {
        let runs = self.left > 0 && self.until.is_some_and(|until| now < until);
        self.current.filter(|_| runs)
    }

    /// The order of the next round: the queue whose turn runs first, then the others in the
    /// order given; with no turn running (or not in weighted order), `picker`'s next round.
    pub fn order(&self, picker: &mut Picker, now: Instant) -> Vec<usize> {
        match self.running(now) {
            Some(i) if self.kind == TurnKind::Weighted => {
                let n = picker.current.len();
                std::iter::once(i)
                    .chain((0..n).filter(|&j| j != i))
                    .collect()
            }
            _ => picker.round(),
        }
    }

    /// A round at `now` leased from the queues `from` (one index per lease, in the order
    /// asked): the running turn goes on when they all came from its queue; else a turn starts
    /// at the last queue that gave any (the one that filled the round).
    pub fn leased(&mut self, from: &[usize], now: Instant) {
        if self.kind != TurnKind::Weighted {
            return;
        }
        let Some(&last) = from.last() else {
            return;
        };
        match self.running(now) {
            Some(i) if from.iter().all(|&j| j == i) => {
                self.left = self.left.saturating_sub(from.len());
            }
            _ => {
                let got = from.iter().filter(|&&j| j == last).count();
                self.current = Some(last);
                self.left = self.length.saturating_sub(got).max(1);
                self.until = Some(now + TURN_TIME);
            }
        }
    }

    /// How many of the `freed` slots that queue `i`'s jobs freed the call that completes them
    /// leases again from `i`; the rest go to the round.
    pub fn grant(&mut self, i: usize, freed: usize, now: Instant) -> usize {
        match self.kind {
            TurnKind::One => freed,
            TurnKind::Strict if i == 0 => freed,
            TurnKind::Strict => 0,
            // All of them, the last call of a turn too: a batch of slots stays whole (split,
            // each part would make calls of its own from then on).
            TurnKind::Weighted if self.running(now) == Some(i) => {
                self.left = self.left.saturating_sub(freed);
                freed
            }
            TurnKind::Weighted => 0,
        }
    }

    /// A call found fewer items in queue `i` than it asked for: `i`'s turn ends, so that the
    /// round starts the next one.
    pub fn short(&mut self, i: usize) {
        if self.current == Some(i) {
            self.left = 0;
        }
    }
}

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
/// `stop` resolves. Returns each lease with the index of its queue. A queue whose call fails
/// is skipped (asked again after a wait): its error is returned beside the leases, or beside
/// none when the others were waited on; alone when it does not pass (`is_retryable` false) or
/// no queue was left to wait on.
pub(crate) async fn lease_any(
    queues: &[Queue],
    order: &[usize],
    n: usize,
    ttl: Duration,
    wait: Duration,
    looks: &mut Looks,
    stop: impl std::future::Future<Output = ()>,
) -> Result<(Vec<(usize, Lease)>, Option<crate::Error>)> {
    tokio::pin!(stop);
    let ttl_ms = ttl_millis(ttl)?;
    let deadline = Deadline::of(Wait::Timeout(wait))?;
    let first = &queues[0];
    let mut waiter = Waiter::new(first.handle(), first.prefix(), deadline, Schedule::WAIT);
    let allowed: Vec<usize> = order.to_vec();
    let mut order = allowed.clone();
    loop {
        let mut got = Vec::new();
        let mut keys = Vec::new();
        let mut owners: Vec<usize> = Vec::new();
        let mut wake_in: Option<Duration> = None;
        // A queue that fails (its primary down, failing over) is not waited on, and does not
        // cost the leases the queues asked before it gave: they are returned (dropped, they
        // would run only once expired, an attempt charged). When none gave any, the others
        // are waited on, and the failed one asked again after the wait, while its error is one
        // that passes; else its error is the answer.
        let mut failed: Option<crate::Error> = None;
        let now = Instant::now();
        for &i in &order {
            let q = &queues[i];
            let empty = if got.len() >= n || looks.skipped(i, now) {
                looks.skipped(i, now)
            } else {
                let (leases, wake, limited) = match q.try_lease(n - got.len(), ttl_ms).await {
                    Ok(answer) => answer,
                    Err(e) => {
                        failed.get_or_insert(e);
                        continue;
                    }
                };
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
        // The error of a queue that failed for now while the others are waited on: returned
        // beside what this look gives in the end.
        let passed_over = match failed {
            // The failed queue's error, for the caller to report beside the leases.
            Some(e) if !got.is_empty() => return Ok((got, Some(e))),
            Some(e) if keys.is_empty() || !e.is_retryable() => return Err(e),
            failed => failed,
        };
        if !got.is_empty() {
            return Ok((got, passed_over));
        }
        let left = match deadline.left() {
            Some(left) if left.is_zero() => return Ok((got, passed_over)),
            left => left.unwrap_or(wait),
        };
        let slice = wake_in.map_or(left, |w| w.min(left));
        let waited = if keys.is_empty() {
            // Every queue is at its rate limit: sleep until the first window ends.
            tokio::select! {
                _ = tokio::time::sleep(slice) => Ok(None),
                _ = &mut stop => return Ok((got, passed_over)),
            }
        } else {
            tokio::select! {
                r = waiter.until_any_kept(&keys, Some(slice), &mut looks.kept) => r,
                _ = &mut stop => return Ok((got, passed_over)),
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
                            // A wait kept from an earlier look, on a queue the caller no longer
                            // asks (its finishes refused for now): as if the time ran out.
                            Some(j) if !allowed.contains(&j) => looks.ask_all(),
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
                return Ok((got, passed_over))
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_queue_leases_again_for_every_freed_slot() {
        let mut t = Turns::new(1, &QueueOrder::Strict, 4);
        let now = Instant::now();
        assert_eq!(t.grant(0, 4, now), 4);
        assert_eq!(t.grant(0, 1000, now), 1000);
    }

    #[test]
    fn strict_order_leases_again_only_for_the_first_queue() {
        let mut t = Turns::new(3, &QueueOrder::Strict, 4);
        let now = Instant::now();
        t.leased(&[1, 1], now);
        assert_eq!(t.grant(0, 3, now), 3);
        assert_eq!(t.grant(1, 3, now), 0);
        assert_eq!(t.grant(2, 3, now), 0);
        let mut p = Picker::new(&QueueOrder::Strict, 3);
        assert_eq!(t.order(&mut p, now), [0, 1, 2]);
    }

    /// The leases a turn grants its queue's completes, `per_call` slots at a time, until it
    /// ends.
    fn drain_turn(t: &mut Turns, i: usize, per_call: usize, now: Instant) -> usize {
        let mut given = 0;
        loop {
            let g = t.grant(i, per_call, now);
            if g == 0 {
                return given;
            }
            assert_eq!(g, per_call, "a batch of slots stays whole");
            given += g;
        }
    }

    #[test]
    fn a_weighted_turn_lasts_its_leases_then_the_round_starts_the_next() {
        let mut t = Turns::new(3, &QueueOrder::Weighted(vec![1, 1, 1]), 4);
        let mut p = Picker::new(&QueueOrder::Weighted(vec![1, 1, 1]), 3);
        let now = Instant::now();
        let length = TURN_LEASES_PER_SLOT * 4;
        // No turn before a round leased.
        assert_eq!(t.grant(0, 4, now), 0);
        let first = t.order(&mut p, now)[0];
        t.leased(&[first; 4], now);
        // While it runs: its queue first, its completes lease again, no one else's do.
        assert_eq!(t.order(&mut p, now)[0], first);
        assert_eq!(t.grant((first + 1) % 3, 2, now), 0);
        // A round that got the slots of another queue's jobs counts toward the turn.
        t.leased(&[first; 2], now);
        // 6 leased: calls of 3 until the turn's end, the last one past it.
        assert_eq!(
            drain_turn(&mut t, first, 3, now),
            (length - 6).div_ceil(3) * 3
        );
        // Over: the picker's next round, whose first queue is another.
        let second = t.order(&mut p, now)[0];
        assert_ne!(second, first);
        t.leased(&[second; 4], now);
        assert_eq!(t.grant(first, 4, now), 0);
        assert_eq!(drain_turn(&mut t, second, 4, now), length - 4);
        // Equal weights: every queue's turn once in three.
        let third = t.order(&mut p, now)[0];
        let mut all = [first, second, third];
        all.sort();
        assert_eq!(all, [0, 1, 2]);
    }

    #[test]
    fn a_weighted_turn_ends_by_time_or_when_its_queue_runs_short() {
        let mut t = Turns::new(2, &QueueOrder::Weighted(vec![1, 1]), 4);
        let now = Instant::now();
        t.leased(&[0, 0], now);
        assert_eq!(t.grant(0, 2, now), 2);
        assert_eq!(t.grant(0, 2, now + TURN_TIME), 0, "past its time");
        t.leased(&[0], now + TURN_TIME);
        assert_eq!(t.grant(0, 2, now + TURN_TIME), 2);
        t.short(0);
        assert_eq!(t.grant(0, 2, now + TURN_TIME), 0, "its queue ran short");
        // A round where the turn's queue ran short and another filled it: the other's turn.
        t.leased(&[0], now);
        t.leased(&[0, 1, 1], now);
        assert_eq!(t.grant(0, 2, now), 0);
        assert_eq!(t.grant(1, 2, now), 2);
    }

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
