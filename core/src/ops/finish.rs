//! What a holder does with its lease: complete (with a result), fail, release, renew, report
//! progress (spec/PROTOCOL.md, 5.5 to 5.10). Every one checks that the lease is of this queue
//! and, in the script, of the item's current incarnation.

use std::time::Duration;

use redis::Value;

use crate::error::{Error, Result};
use crate::item::validate_id;
use crate::job::FailOutcome;
use crate::lease::{lease_incarnation, ttl_millis, Lease, RenewOutcome};
use crate::policy::{self, Retry, DEFAULT_BACKOFF, DEFAULT_MAX_ATTEMPTS, MAX_PAGE};
use crate::queue::Queue;
use crate::reply::{array, int};
use crate::scripts;

/// The longest error message or type stored with a failure; longer ones are cut.
const MAX_ERROR_LEN: usize = 4096;
/// The longest failure trace stored (spec/PROTOCOL.md 3.1); longer ones are cut.
pub const MAX_TRACE_LEN: usize = 16 * 1024;
/// The largest progress value accepted.
pub const MAX_PROGRESS_LEN: usize = 64 * 1024;

impl Queue {
    /// Completes the leased item: removes its data, lease and record. Returns true for exactly
    /// one caller per incarnation of the item: the first to complete, even if its lease had
    /// expired and another worker holds the item now (that worker's `renew` then says
    /// completed). False when the item was completed already, cancelled, failed or released
    /// since, or re-added after a complete (an older incarnation); [`Queue::renew_outcome`]
    /// says which. One round trip.
    pub async fn complete(&self, lease: &Lease) -> Result<bool> {
        self.complete_inner(lease, None, None).await
    }

    /// Like [`Queue::complete`], and keeps `result` for `keep_for` (default: the item's, else
    /// the queue's `keep_result_for`, else one day), for [`Queue::result`] and
    /// [`Queue::wait_result`]. With `result` `None` this is [`Queue::complete`], and `keep_for`
    /// is refused (argument `keep_result_for`): the one check every binding relies on.
    pub async fn complete_with_result(
        &self,
        lease: &Lease,
        result: Option<&[u8]>,
        keep_for: Option<Duration>,
    ) -> Result<bool> {
        check_completion(result, keep_for)?;
        self.complete_inner(lease, result, keep_for).await
    }

    async fn complete_inner(
        &self,
        lease: &Lease,
        result: Option<&[u8]>,
        keep_for: Option<Duration>,
    ) -> Result<bool> {
        let mut inv = self.invocation(&scripts::COMPLETE);
        self.completion_args(&mut inv, lease, result.map(|r| (r, keep_for)), false)?;
        Ok(self.invoke::<i64>(&inv).await? == 1)
    }

    /// Extends the lease to `ttl` from now, only while it is still this holder's (its token
    /// matches). Returns false when the lease expired, another worker took the item, or the
    /// item is complete, cancelled or of a newer incarnation; [`Queue::renew_outcome`] says
    /// which. One round trip.
    pub async fn renew(&self, lease: &Lease, ttl: Duration) -> Result<bool> {
        Ok(self.renew_outcome(lease, ttl).await? == RenewOutcome::Renewed)
    }

    /// Like [`Queue::renew`], saying why a renewal failed.
    pub async fn renew_outcome(&self, lease: &Lease, ttl: Duration) -> Result<RenewOutcome> {
        self.own(lease)?;
        let ttl_ms = ttl_millis(ttl)?;
        let mut inv = self.invocation(&scripts::RENEW);
        inv.arg(lease.id_bytes())
            .arg(&lease.token)
            .arg(ttl_ms)
            .arg(lease.incarnation());
        Ok(RenewOutcome::from_code(self.invoke::<i64>(&inv).await?))
    }

    /// Records a failed attempt: `error` (a message) and `error_type` (a name that groups
    /// failures, e.g. an exception class; may be empty). With [`Retry::Default`] the item runs
    /// again after its backoff, with [`Retry::After`] after that delay, while it has attempts
    /// left; otherwise, or with [`Retry::Never`], it is dead. Only the live holder can fail an
    /// item: an expired or lost lease changes nothing ([`FailOutcome::NotHeld`]). One round trip.
    pub async fn fail(
        &self,
        lease: &Lease,
        error: &str,
        error_type: &str,
        retry: Retry,
    ) -> Result<FailOutcome> {
        self.fail_with_trace(lease, error, error_type, retry, None)
            .await
    }

    /// Like [`Queue::fail`], keeping `trace` (a traceback, a stack, an error chain) with the
    /// item as its `trace`, shown by [`Queue::get`]: cut to [`MAX_TRACE_LEN`] bytes on a
    /// character boundary. The last failure's trace replaces the previous one; a failure
    /// without one (`None` or empty) removes it. One round trip.
    pub async fn fail_with_trace(
        &self,
        lease: &Lease,
        error: &str,
        error_type: &str,
        retry: Retry,
        trace: Option<&str>,
    ) -> Result<FailOutcome> {
        let mut inv = self.invocation(&scripts::FAIL);
        let delay_ms = self.fail_args(&mut inv, lease, error, error_type, retry)?;
        if let Some(trace) = trace.filter(|t| !t.is_empty()) {
            inv.arg(cut_to(trace, MAX_TRACE_LEN));
        }
        let value: Value = self.invoke(&inv).await?;
        let parts = array("fail", value)?;
        Ok(fail_outcome(
            int("fail", parts.first().unwrap_or(&Value::Nil))?,
            delay_ms,
        ))
    }

    /// Hands the item back without counting a failure: it waits again at once, or after
    /// `delay`; the attempt it used is given back. Only the live holder can release. Returns
    /// whether it did; [`Queue::renew_outcome`] says why not. One round trip.
    pub async fn release(&self, lease: &Lease, delay: Option<Duration>) -> Result<bool> {
        self.own(lease)?;
        let delay_ms = policy::duration_ms("delay", delay.unwrap_or_default())?;
        let mut inv = self.invocation(&scripts::RELEASE);
        inv.arg(lease.id_bytes())
            .arg(&lease.token)
            .arg(lease.incarnation())
            .arg(delay_ms);
        Ok(self.invoke::<i64>(&inv).await? == 1)
    }

    /// Releases a leased item as [`Queue::release`] does (now), holding its group off for
    /// `hold` first, or the queue when it has no group (spec/PROTOCOL.md 5.21): a runner's
    /// handler was rate limited for its group. Returns whether it was released, and whether it
    /// held the queue (the item has no group). One round trip.
    pub(crate) async fn release_holding_group(
        &self,
        lease: &Lease,
        hold: Duration,
    ) -> Result<(bool, bool)> {
        self.own(lease)?;
        let hold_ms = policy::validate_hold(hold)?;
        let mut inv = self.invocation(&scripts::RELEASE);
        inv.arg(lease.id_bytes())
            .arg(&lease.token)
            .arg(lease.incarnation())
            .arg(0)
            .arg(hold_ms);
        let reply = self.invoke::<i64>(&inv).await?;
        Ok((reply == 1 || reply == 2, reply == 2))
    }

    /// Stores a small value (at most 64 KiB) on the leased item, shown by [`Queue::get`].
    /// Only the live holder can; returns whether it did. One round trip.
    pub async fn progress(&self, lease: &Lease, value: &[u8]) -> Result<bool> {
        self.own(lease)?;
        if value.len() > MAX_PROGRESS_LEN {
            return Err(Error::invalid(
                "value",
                format!(
                    "is {} bytes, at most {MAX_PROGRESS_LEN} are allowed",
                    value.len()
                ),
            ));
        }
        let mut inv = self.invocation(&scripts::PROGRESS);
        inv.arg(lease.id_bytes())
            .arg(&lease.token)
            .arg(lease.incarnation())
            .arg(value);
        Ok(self.invoke::<i64>(&inv).await? == 1)
    }

    /// A lease the caller rebuilt from parts it kept (for example across a process boundary):
    /// the id, the token, the incarnation and the attempt number. The item's max attempts and
    /// backoff are not known from parts; `fail` with [`Retry::Default`] then uses the
    /// protocol's default backoff (the script still applies the item's max attempts).
    pub fn lease_from_parts(
        &self,
        id: &str,
        token: &str,
        incarnation: &str,
        attempt: u64,
    ) -> Result<Lease> {
        Lease::from_parts(self.prefix(), id, token, incarnation, attempt)
    }
}

/// An error text cut to [`MAX_ERROR_LEN`] bytes at a character boundary.
fn cut(text: &str) -> &str {
    cut_to(text, MAX_ERROR_LEN)
}

/// `text`'s first `max` bytes at most, ending on a character boundary.
fn cut_to(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// One failure of a batch ([`Queue::fail_batch_with_traces`]): the lease, the error, its type,
/// the retry decision and the trace, if any.
pub type Failure<'a> = (&'a Lease, &'a str, &'a str, Retry, Option<&'a str>);

/// `failures` as [`Failure`]s without a trace: what `fail_batch` sends as
/// `fail_batch_with_traces`, on a queue and on a partitioned one.
pub(crate) fn without_traces<'a>(
    failures: &[(&'a Lease, &'a str, &'a str, Retry)],
) -> Vec<Failure<'a>> {
    failures
        .iter()
        .map(|&(lease, error, error_type, retry)| (lease, error, error_type, retry, None))
        .collect()
}

/// One lease of a batch complete and what to keep: `(lease, Some((result, keep_for)))`.
pub type Completion<'a> = (&'a Lease, Option<(&'a [u8], Option<Duration>)>);

impl Queue {
    /// Completes many leases in one round trip (at most 1000), each as [`Queue::complete`] or
    /// [`Queue::complete_with_result`] would; returns, in order, whether each completed it.
    pub async fn complete_batch(&self, completions: &[Completion<'_>]) -> Result<Vec<bool>> {
        if completions.is_empty() {
            return Ok(Vec::new());
        }
        let mut inv = self.invocation(&scripts::COMPLETE_BATCH);
        self.complete_args(&mut inv, completions)?;
        let codes: Vec<i64> = self.invoke(&inv).await?;
        Ok(codes.into_iter().map(|c| c == 1).collect())
    }

    /// The leases of a batch complete function (complete_batch, complete_and_lease_batch):
    /// `per`, then `per` values for each lease, each lease checked first (spec/PROTOCOL.md,
    /// 5.3). `per` is 6 when a completion keeps a result; else 2 (`id token`) when every lease
    /// is its incarnation's first (incarnation = token: a plain item's first lease, the busy
    /// runner's case), which spares the server an argument per lease; else 3 (`id inc token`).
    pub(crate) fn complete_args(
        &self,
        inv: &mut crate::scripts::Invocation,
        completions: &[Completion<'_>],
    ) -> Result<()> {
        batch_size("completions", completions.len())?;
        let all = completions.iter().any(|(_, result)| result.is_some());
        let first_leases = !all
            && completions
                .iter()
                .all(|(lease, _)| lease.incarnation.is_none());
        if first_leases {
            inv.arg(2);
            for (lease, _) in completions {
                self.own(lease)?;
                inv.arg(lease.id_bytes()).arg(&lease.token);
            }
            return Ok(());
        }
        inv.arg(if all { 6 } else { 3 });
        for (lease, result) in completions {
            self.completion_args(inv, lease, *result, all)?;
        }
        Ok(())
    }

    /// One completion's arguments (spec/PROTOCOL.md, 5.3): `id inc token`, then
    /// `has_result result keep_result_ms`, left out when there is no result unless `all` (a
    /// batch where some completion keeps one): fewer arguments, less work for the server.
    /// Checked first: the result and its keep time, then the lease.
    pub(crate) fn completion_args(
        &self,
        inv: &mut crate::scripts::Invocation,
        lease: &Lease,
        result: Option<(&[u8], Option<Duration>)>,
        all: bool,
    ) -> Result<()> {
        let keep = check_result(result)?;
        let (has, data, keep) = match result {
            Some((data, _)) => {
                inv.keeping_result();
                ("1", data, keep)
            }
            None => ("0", &[][..], keep),
        };
        self.own(lease)?;
        inv.arg(lease.id_bytes())
            .arg(lease.incarnation())
            .arg(&lease.token);
        if all || result.is_some() {
            inv.arg(has).arg(data).arg(keep);
        }
        Ok(())
    }

    /// Extends many leases to `ttl` in one round trip (at most 1000); returns each one's
    /// outcome, in order, as [`Queue::renew_outcome`] would.
    pub async fn renew_batch(&self, leases: &[&Lease], ttl: Duration) -> Result<Vec<RenewOutcome>> {
        if leases.is_empty() {
            return Ok(Vec::new());
        }
        batch_size("leases", leases.len())?;
        let ttl_ms = ttl_millis(ttl)?;
        let mut inv = self.invocation(&scripts::RENEW_BATCH);
        inv.arg(ttl_ms);
        for lease in leases {
            self.own(lease)?;
            inv.arg(lease.id_bytes())
                .arg(&lease.token)
                .arg(lease.incarnation());
        }
        let codes: Vec<i64> = self.invoke(&inv).await?;
        Ok(codes.into_iter().map(RenewOutcome::from_code).collect())
    }

    /// Fails many leases in one round trip (at most 1000), each with its error, type and retry
    /// as [`Queue::fail`] would; returns the outcomes in order.
    pub async fn fail_batch(
        &self,
        failures: &[(&Lease, &str, &str, Retry)],
    ) -> Result<Vec<FailOutcome>> {
        self.fail_batch_with_traces(&without_traces(failures)).await
    }

    /// Like [`Queue::fail_batch`], each failure with its trace as [`Queue::fail_with_trace`]
    /// takes it (`None`: none). One round trip.
    pub async fn fail_batch_with_traces(
        &self,
        failures: &[Failure<'_>],
    ) -> Result<Vec<FailOutcome>> {
        if failures.is_empty() {
            return Ok(Vec::new());
        }
        batch_size("failures", failures.len())?;
        let mut inv = self.invocation(&scripts::FAIL_BATCH);
        let mut delays = Vec::with_capacity(failures.len());
        for (lease, error, error_type, retry, trace) in failures {
            delays.push(self.fail_args(&mut inv, lease, error, error_type, *retry)?);
            inv.arg(cut_to(trace.unwrap_or_default(), MAX_TRACE_LEN));
        }
        let replies: Vec<Vec<i64>> = self.invoke(&inv).await?;
        Ok(replies
            .into_iter()
            .zip(delays)
            .map(|(reply, delay_ms)| fail_outcome(reply.first().copied().unwrap_or(0), delay_ms))
            .collect())
    }
}

impl Queue {
    /// The seven arguments of one failure before its trace (fail.lua), checked first; returns
    /// the delay sent.
    fn fail_args(
        &self,
        inv: &mut crate::scripts::Invocation,
        lease: &Lease,
        error: &str,
        error_type: &str,
        retry: Retry,
    ) -> Result<u64> {
        self.own(lease)?;
        let (mode, delay_ms) = fail_mode(lease, retry)?;
        inv.arg(lease.id_bytes())
            .arg(&lease.token)
            .arg(lease.incarnation())
            .arg(mode)
            .arg(delay_ms)
            .arg(cut(error))
            .arg(cut(error_type));
        Ok(delay_ms)
    }
}

/// The script's mode and delay for a failure under `retry` (the backoff is the lease's).
fn fail_mode(lease: &Lease, retry: Retry) -> Result<(&'static str, u64)> {
    let (mode, delay) = match retry {
        Retry::Never => ("dead", Duration::ZERO),
        Retry::After(d) => ("retry", d),
        _ => (
            "retry",
            lease.backoff.delay(
                lease.count.min(u64::from(u32::MAX)) as u32,
                policy::unit_random(),
            ),
        ),
    };
    Ok((mode, policy::duration_ms("retry", delay)?))
}

fn fail_outcome(code: i64, delay_ms: u64) -> FailOutcome {
    match code {
        1 => FailOutcome::Retrying(Duration::from_millis(delay_ms)),
        2 => FailOutcome::Dead,
        other => FailOutcome::NotHeld(RenewOutcome::from_code(other)),
    }
}

/// `keep_result_for` applies only with a result: refused without one (argument
/// `keep_result_for`). The single calls check it themselves; a binding that builds a batch's
/// [`Completion`]s from separate values checks each with this.
pub fn check_completion(result: Option<&[u8]>, keep_for: Option<Duration>) -> Result<()> {
    if result.is_none() && keep_for.is_some() {
        return Err(Error::invalid(
            "keep_result_for",
            "applies only with a `result`",
        ));
    }
    Ok(())
}

/// Checks a completion's result and keep time (arguments `result`, `keep_result_for`) and
/// gives the keep time as the scripts take it (empty: the default).
pub(crate) fn check_result(result: Option<(&[u8], Option<Duration>)>) -> Result<String> {
    let Some((data, keep)) = result else {
        return Ok(String::new());
    };
    crate::item::validate_data(data).map_err(|_| {
        Error::invalid(
            "result",
            "is larger than the 512 MiB Redis allows for a string",
        )
    })?;
    match keep {
        Some(d) if d.is_zero() => Err(Error::invalid(
            "keep_result_for",
            "must be greater than zero",
        )),
        Some(d) => Ok(policy::duration_ms("keep_result_for", d)?.to_string()),
        None => Ok(String::new()),
    }
}

/// Checks a failure's retry as [`Queue::fail`] would (argument `retry`), without a lease.
pub(crate) fn check_retry(retry: Retry) -> Result<()> {
    if let Retry::After(d) = retry {
        policy::duration_ms("retry", d)?;
    }
    Ok(())
}

/// Refuses a batch of more than [`MAX_PAGE`] leases (argument `argument`).
pub(crate) fn batch_size(argument: &'static str, n: usize) -> Result<()> {
    if n > MAX_PAGE {
        return Err(Error::invalid(
            argument,
            format!("{n} in one call; at most {MAX_PAGE}"),
        ));
    }
    Ok(())
}

impl Lease {
    /// [`Queue::lease_from_parts`] for the queue under `prefix`, without the queue (nothing is
    /// sent; the prefix is not checked).
    pub fn from_parts(
        prefix: &str,
        id: &str,
        token: &str,
        incarnation: &str,
        attempt: u64,
    ) -> Result<Lease> {
        validate_id(id)?;
        if token.is_empty() {
            return Err(Error::invalid("token", "must not be empty"));
        }
        if incarnation.is_empty() {
            return Err(Error::invalid("incarnation", "must not be empty"));
        }
        Ok(Lease {
            prefix: prefix.into(),
            id: id.to_owned(),
            wire_id: None,
            data: Vec::new(),
            token: token.to_owned(),
            count: attempt,
            incarnation: lease_incarnation(incarnation.to_owned(), token),
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            backoff: DEFAULT_BACKOFF,
            name: None,
        })
    }
}
