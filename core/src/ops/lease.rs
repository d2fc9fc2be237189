//! Leasing: one item, a batch, or the next item together with a complete (spec/PROTOCOL.md,
//! 5.4 to 5.6 and 6).

use std::time::Duration;

use redis::Value;

use crate::conn::{Deadline, Schedule, Verdict, Waiter};
use crate::error::{Error, Result};
use crate::lease::{lease_id, lease_incarnation, ttl_millis, Lease, Wait};
use crate::policy::{Backoff, DEFAULT_BACKOFF, MAX_PAGE};
use crate::queue::{new_token, Queue};
use crate::reply::{array, bytes, int, text, unexpected};
use crate::scripts;

/// What one lease script call found.
pub(crate) struct Leased {
    pub leases: Vec<Lease>,
    /// 1000 unusable ids were dropped: call again.
    pub more: bool,
    /// Nothing leased: how long until a delayed item is due or a lease expires, or, when
    /// `limited`, until the rate limit's window ends.
    pub wake_in: Option<Duration>,
    /// The queue is at its rate limit, or held off (spec/PROTOCOL.md 5.19): sleep `wake_in`
    /// instead of waiting on the lists, which may hold items.
    pub limited: bool,
}

impl Queue {
    /// Leases the next item for `ttl` (highest priority first, FIFO within a priority). With
    /// [`Wait::No`] this is one round trip and returns `None` when nothing is waiting.
    /// Otherwise it waits server-side (BLMOVE on connections of its own, never polling) until
    /// an item arrives or becomes due, the timeout passes (`None`), or the client is closed
    /// ([`Error::Closed`]). A wait survives Redis restarts and transient server states
    /// ([`crate::ErrorCode::Unavailable`]: loading, busy with a script, failing over): it
    /// pauses (50 ms doubling to 1 s), reconnects if need be, and goes on until its deadline.
    ///
    /// The lease script also moves due delayed items to waiting and recovers expired leases,
    /// so a queue needs no separate cleaner for either.
    pub async fn lease(&self, ttl: Duration, wait: Wait) -> Result<Option<Lease>> {
        Ok(self.lease_batch(1, ttl, wait).await?.pop())
    }

    /// Leases up to `n` items (1 to 1000) in one round trip, in the order [`Queue::lease`]
    /// would. Waits as [`Queue::lease`] does while none is there; returns as soon as at least
    /// one is leased.
    pub async fn lease_batch(&self, n: usize, ttl: Duration, wait: Wait) -> Result<Vec<Lease>> {
        self.lease_batch_unless(n, ttl, wait, std::future::pending())
            .await
    }

    /// [`Queue::lease_batch`] that gives up its wait, with no lease, once `stop` resolves (a
    /// runner's shutdown). Only the server-side wait is given up, never a lease script in
    /// flight, whose leases would otherwise be taken and lost until their TTL ran out.
    pub(crate) async fn lease_batch_unless(
        &self,
        n: usize,
        ttl: Duration,
        wait: Wait,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<Vec<Lease>> {
        tokio::pin!(stop);
        if n == 0 || n > MAX_PAGE {
            return Err(Error::invalid("n", format!("must be 1 to {MAX_PAGE}")));
        }
        let ttl_ms = ttl_millis(ttl)?;
        let deadline = Deadline::of(wait)?;
        // Pauses after a retryable error: the connection broke (Redis restarting), or Redis
        // answered that it cannot serve now (LOADING, BUSY, a failover): 50 ms doubling to 1 s.
        let mut waiter = Waiter::new(self.handle(), self.prefix(), deadline, Schedule::WAIT);
        loop {
            let wake_in = match self.try_lease(n, ttl_ms).await {
                Ok((leases, _, _)) if !leases.is_empty() => return Ok(leases),
                Ok(_) if wait == Wait::No => return Ok(Vec::new()),
                // At the rate limit: sleep until the window ends (or the deadline), sending
                // nothing meanwhile; the lists may hold items, so a BLMOVE would not wait.
                Ok((_, wake_in, true)) => {
                    let sleep = match (deadline.left(), wake_in) {
                        (Some(left), _) if left.is_zero() => return Ok(Vec::new()),
                        (left, Some(w)) => left.map_or(w, |l| l.min(w)),
                        (left, None) => left.unwrap_or(Duration::from_secs(1)),
                    };
                    let mut closed = self.handle().closed_signal();
                    tokio::select! {
                        _ = tokio::time::sleep(sleep) => {}
                        _ = closed.wait_for(|c| *c) => return Err(Error::Closed),
                        _ = &mut stop => return Ok(Vec::new()),
                    }
                    continue;
                }
                Ok((_, wake_in, false)) => wake_in,
                // A lease script whose reply was lost may have leased: that lease belongs to
                // nobody and expires (spec 6), so the lease script alone is sent again.
                Err(e) if wait != Wait::No && Verdict::of(&e).retryable() && !deadline.passed() => {
                    waiter.pause().await?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let mut remaining = match deadline.left() {
                Some(left) if left.is_zero() => return Ok(Vec::new()),
                left => left,
            };
            if let Some(wake_in) = wake_in {
                remaining = Some(remaining.map_or(wake_in, |r| r.min(wake_in)));
            }
            // `P:queue` wakes for items of priority 0 whoever added them; `P:wake` for
            // leaseq's other levels. Dropping the wait drops its connections, which ends their
            // BLMOVEs server-side.
            let (queue, wake) = (self.keys().queue.as_bytes(), self.keys().wake.as_bytes());
            let waited = tokio::select! {
                r = waiter.until_any(queue, Some(wake), remaining) => r,
                _ = &mut stop => return Ok(Vec::new()),
            };
            let Err(e) = waited else {
                waiter.worked();
                continue;
            };
            match Verdict::of(&e) {
                // Over maxmemory Redis refuses BLMOVE (it may grow a list), while the lease
                // script still runs (allow-oom): the wait becomes a pause, 50 ms doubling to
                // 1 s, before the next lease script (spec 6). Nothing was written.
                Verdict::NoMemory if deadline.passed() => return Ok(Vec::new()),
                Verdict::NoMemory => waiter.pause().await?,
                // The wait's connection broke or hung (its idle fellows are dropped too), or
                // Redis cannot serve now: wait again after a pause, until the deadline.
                v if v.retryable() && !deadline.passed() => waiter.pause().await?,
                _ => return Err(e),
            }
        }
    }

    /// One lease attempt: the lease script, called again while it reports dropped stale ids.
    /// Returns the leases and, when there are none, how long until something may be due.
    /// Returns the leases and, when there are none, how long until something may be due, and
    /// whether the rate limit stopped it.
    pub(crate) async fn try_lease(
        &self,
        n: usize,
        ttl_ms: u64,
    ) -> Result<(Vec<Lease>, Option<Duration>, bool)> {
        loop {
            let token = new_token();
            let mut inv = self.invocation(&scripts::LEASE);
            self.lease_args(&mut inv, &token, ttl_ms, n);
            let value: Value = self.invoke(&inv).await?;
            let leased = self.parse_leased(value, &token)?;
            if leased.leases.is_empty() && leased.more {
                continue;
            }
            return Ok((leased.leases, leased.wake_in, leased.limited));
        }
    }

    /// Completes `lease` and leases the next item for `ttl` in the same round trip (the next
    /// lease does not wait: `None` when nothing is waiting). Returns (completed, next).
    pub async fn complete_and_lease(
        &self,
        lease: &Lease,
        ttl: Duration,
    ) -> Result<(bool, Option<Lease>)> {
        self.complete_and_lease_inner(lease, None, ttl).await
    }

    /// Like [`Queue::complete_and_lease`], and keeps `result` as
    /// [`Queue::complete_with_result`] does: for `keep_for` (default: the item's, else the
    /// queue's `keep_result_for`, else one day). Still one round trip. With `result` `None`
    /// this is [`Queue::complete_and_lease`], and `keep_for` is refused (argument
    /// `keep_result_for`).
    pub async fn complete_and_lease_with_result(
        &self,
        lease: &Lease,
        result: Option<&[u8]>,
        keep_for: Option<Duration>,
        ttl: Duration,
    ) -> Result<(bool, Option<Lease>)> {
        crate::ops::finish::check_completion(result, keep_for)?;
        self.complete_and_lease_inner(lease, result.map(|r| (r, keep_for)), ttl)
            .await
    }

    async fn complete_and_lease_inner(
        &self,
        lease: &Lease,
        result: Option<(&[u8], Option<Duration>)>,
        ttl: Duration,
    ) -> Result<(bool, Option<Lease>)> {
        let ttl_ms = ttl_millis(ttl)?;
        let token = new_token();
        let mut inv = self.invocation(&scripts::COMPLETE_AND_LEASE);
        self.lease_args(&mut inv, &token, ttl_ms, 1);
        // Then the same values as `complete` (spec/PROTOCOL.md, 5.3), checked first.
        self.completion_args(&mut inv, lease, result, false)?;
        let value: Value = self.invoke(&inv).await?;
        let mut parts = array("complete_and_lease", value)?;
        if parts.len() != 2 {
            return Err(unexpected("complete_and_lease", &Value::Array(parts)));
        }
        let next = parts.pop().unwrap_or(Value::Nil);
        let completed = int("complete_and_lease", &parts[0])? == 1;
        let leased = self.parse_leased(next, &token)?;
        let next = match leased.leases.into_iter().next() {
            Some(lease) => Some(lease),
            // The complete is done and must be reported; if the follow-up lease fails, the
            // caller's next `lease` meets the same error.
            None if leased.more => self
                .try_lease(1, ttl_ms)
                .await
                .map_or(None, |(l, _, _)| l.into_iter().next()),
            None => None,
        };
        Ok((completed, next))
    }

    /// A busy runner's whole step in one round trip: completes `completions` (at most 1000, as
    /// [`Queue::complete_batch`]) and leases up to `n` more items for `ttl` (no wait). Returns
    /// whether each completion completed its item, and the new leases.
    pub async fn complete_and_lease_batch(
        &self,
        completions: &[crate::ops::Completion<'_>],
        n: usize,
        ttl: Duration,
    ) -> Result<(Vec<bool>, Vec<Lease>)> {
        if n > MAX_PAGE {
            return Err(Error::invalid("n", format!("must be 0 to {MAX_PAGE}")));
        }
        let ttl_ms = ttl_millis(ttl)?;
        let token = new_token();
        let mut inv = self.invocation(&scripts::COMPLETE_AND_LEASE_BATCH);
        self.lease_args(&mut inv, &token, ttl_ms, n);
        self.complete_args(&mut inv, completions)?;
        let value: Value = self.invoke(&inv).await?;
        const OP: &str = "complete_and_lease_batch";
        let [codes, leased] = <[Value; 2]>::try_from(array(OP, value)?)
            .map_err(|v| unexpected(OP, &Value::Array(v)))?;
        let completed = array(OP, codes)?
            .iter()
            .map(|c| int(OP, c).map(|c| c == 1))
            .collect::<Result<Vec<bool>>>()?;
        let mut leased = self.parse_leased(leased, &token)?;
        if leased.leases.is_empty() && leased.more && n > 0 {
            leased.leases = self
                .try_lease(n, ttl_ms)
                .await
                .map_or(Vec::new(), |(l, _, _)| l);
        }
        Ok((completed, leased.leases))
    }

    /// A lease's arguments (spec/PROTOCOL.md, 4.1): `token ttl_ms n db`. The database keys the
    /// queue's hints in the library, which every database of the server shares.
    fn lease_args(&self, inv: &mut scripts::Invocation, token: &str, ttl_ms: u64, n: usize) {
        inv.arg(token).arg(ttl_ms).arg(n).arg(self.handle().db());
    }

    /// Reads a lease script's reply (spec/PROTOCOL.md 4.4): `{more, wait_ms, lease...}`, or the
    /// plain form `{3, max_attempts, backoff, id, data, ...}`, whose leases are plain items'
    /// first: attempt 1, incarnation = token (`token`, then `token.k` for the k-th).
    pub(crate) fn parse_leased(&self, value: Value, token: &str) -> Result<Leased> {
        const OP: &str = "lease";
        let parts = array(OP, value)?;
        if parts.first().map(|s| int(OP, s)).transpose()? == Some(PLAIN) {
            return self.parse_plain(parts, token);
        }
        let mut parts = parts.into_iter();
        let (Some(more), Some(wait)) = (parts.next(), parts.next()) else {
            return Err(unexpected(OP, &Value::Nil));
        };
        let wait = int(OP, &wait)?;
        let mut leases = Vec::new();
        for (k, part) in parts.enumerate() {
            let mut fields = array(OP, part)?;
            // A seventh value is the item's name (spec/PROTOCOL.md, 4.4): only named items.
            let name = match fields.len() {
                7 => fields.pop().map(|n| text(OP, n)).transpose()?.flatten(),
                _ => None,
            };
            let [id, data, attempts, inc, max, backoff] =
                <[Value; 6]>::try_from(fields).map_err(|f| unexpected(OP, &Value::Array(f)))?;
            let (id, data) = id_and_data(id, data)?;
            let (id, wire_id) = lease_id(id);
            let token = token_k(token, k);
            leases.push(Lease {
                prefix: self.keys().prefix.clone(),
                id,
                wire_id,
                data,
                incarnation: lease_incarnation(text(OP, inc)?.unwrap_or_default(), &token),
                token,
                count: int(OP, &attempts)?.max(0) as u64,
                max_attempts: max_attempts(&max)?,
                backoff: backoff_of(backoff)?,
                name,
            });
        }
        let status = int(OP, &more)?;
        Ok(Leased {
            leases,
            more: status == 1,
            wake_in: (wait >= 0).then(|| Duration::from_millis(wait as u64)),
            limited: status == 2,
        })
    }

    /// The plain form of a lease reply: `{3, max_attempts, backoff, id, data, ...}`.
    fn parse_plain(&self, parts: Vec<Value>, token: &str) -> Result<Leased> {
        const OP: &str = "lease";
        if parts.len() < 5 || parts.len().is_multiple_of(2) {
            return Err(unexpected(OP, &Value::Array(parts)));
        }
        let mut parts = parts.into_iter().skip(1);
        let max = max_attempts(&parts.next().unwrap_or(Value::Nil))?;
        let backoff = backoff_of(parts.next().unwrap_or(Value::Nil))?;
        let mut leases = Vec::with_capacity(parts.len() / 2);
        while let (Some(id), Some(data)) = (parts.next(), parts.next()) {
            let (id, data) = id_and_data(id, data)?;
            let (id, wire_id) = lease_id(id);
            leases.push(Lease {
                prefix: self.keys().prefix.clone(),
                id,
                wire_id,
                data,
                incarnation: None,
                token: token_k(token, leases.len()),
                count: 1,
                max_attempts: max,
                backoff,
                name: None,
            });
        }
        Ok(Leased {
            leases,
            more: false,
            wake_in: None,
            limited: false,
        })
    }
}

/// The first element of a lease reply in the plain form (spec/PROTOCOL.md 4.4).
const PLAIN: i64 = 3;

/// The token of a call's lease `k` (from 0): the call's token, then `token.2`, `token.3`, ...
fn token_k(token: &str, k: usize) -> String {
    if k == 0 {
        token.to_owned()
    } else {
        format!("{token}.{}", k + 1)
    }
}

/// A lease's id (never nil) and data.
fn id_and_data(id: Value, data: Value) -> Result<(Vec<u8>, Vec<u8>)> {
    const OP: &str = "lease";
    let id = bytes(OP, id)?.ok_or_else(|| unexpected(OP, &Value::Nil))?;
    Ok((id, bytes(OP, data)?.unwrap_or_default()))
}

fn max_attempts(value: &Value) -> Result<u32> {
    Ok(int("lease", value)?.clamp(0, i64::from(u32::MAX)) as u32)
}

/// A lease's backoff as the reply gives it; the default when it does not parse.
fn backoff_of(value: Value) -> Result<Backoff> {
    Ok(text("lease", value)?
        .and_then(|b| Backoff::from_wire(&b))
        .unwrap_or(DEFAULT_BACKOFF))
}
