//! What a holder does with its lease besides complete and renew: complete with a result, fail,
//! release, report progress.

use std::borrow::Cow;
use std::ffi::c_char;
use std::time::Duration;

use leaseq::{FailOutcome, Retry};

use crate::guard::{arg, bytes, call, text, Failure, Out};
use crate::job::{
    leaseq_fail_outcome, LEASEQ_FAIL_DEAD, LEASEQ_FAIL_NOT_HELD, LEASEQ_FAIL_RETRYING,
};
use crate::lease::leaseq_lease;
use crate::options::millis_arg;
use crate::queue::{
    leaseq_queue, leaseq_renew_outcome, renew_outcome_to_c, LEASEQ_RENEW_EXPIRED,
    LEASEQ_RENEW_RENEWED,
};
use crate::status::leaseq_status;

/// What `leaseq_queue_fail` does with the item: one of the `LEASEQ_RETRY_*` values.
#[allow(non_camel_case_types)]
pub type leaseq_retry = i32;

/// Retry after the item's backoff while it has attempts left; else it is dead.
pub const LEASEQ_RETRY_DEFAULT: leaseq_retry = 0;
/// Retry after `retry_after_ms` while the item has attempts left; else it is dead.
pub const LEASEQ_RETRY_AFTER: leaseq_retry = 1;
/// Dead now: the failure is not worth retrying.
pub const LEASEQ_RETRY_NEVER: leaseq_retry = 2;

/// `-1` for "not given" in a milliseconds argument, otherwise a duration of at least 0.
pub(crate) fn optional_ms(
    name: impl Into<Cow<'static, str>>,
    ms: i64,
) -> Result<Option<Duration>, Failure> {
    if ms == -1 {
        return Ok(None);
    }
    let name = name.into();
    millis_arg(name.clone(), ms).map(Some).map_err(|_| {
        Failure::invalid(
            name,
            format!("is {ms}: give -1 (the default) or a number of milliseconds"),
        )
    })
}

/// The core's retry for a `leaseq_retry` mode and its delay (read only with
/// `LEASEQ_RETRY_AFTER`); `names` are the two arguments' names for messages.
pub(crate) fn retry_of(
    retry: leaseq_retry,
    retry_after_ms: i64,
    names: [Cow<'static, str>; 2],
) -> Result<Retry, Failure> {
    let [retry_name, after_name] = names;
    match retry {
        LEASEQ_RETRY_DEFAULT => Ok(Retry::Default),
        LEASEQ_RETRY_AFTER => Ok(Retry::After(millis_arg(after_name, retry_after_ms)?)),
        LEASEQ_RETRY_NEVER => Ok(Retry::Never),
        other => Err(Failure::invalid(
            retry_name,
            format!("is {other}, not one of the LEASEQ_RETRY_* values"),
        )),
    }
}

/// A fail outcome as C's three values: the `LEASEQ_FAIL_*` value, why the lease was not held
/// (`LEASEQ_RENEW_RENEWED` when it was), and the retry delay in ms (-1 unless retrying). An
/// outcome this layer does not know is a bug in leaseq: the panic becomes `LEASEQ_INTERNAL`.
pub(crate) fn fail_outcome_to_c(
    outcome: FailOutcome,
) -> (leaseq_fail_outcome, leaseq_renew_outcome, i64) {
    match outcome {
        FailOutcome::Retrying(d) => (
            LEASEQ_FAIL_RETRYING,
            LEASEQ_RENEW_RENEWED,
            i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        ),
        FailOutcome::Dead => (LEASEQ_FAIL_DEAD, LEASEQ_RENEW_RENEWED, -1),
        FailOutcome::NotHeld(why) => (LEASEQ_FAIL_NOT_HELD, renew_outcome_to_c(why), -1),
        other => panic!("the C layer has no value for the fail outcome `{other:?}`"),
    }
}

/// Completes the leased item as `leaseq_queue_complete` does, and keeps `result` (`result_len`
/// bytes; `result` may be NULL when `result_len` is 0) for `leaseq_queue_result` and
/// `leaseq_queue_wait_result`. `keep_result_for_ms` is how long: -1 for the default (the item's
/// own, else the queue's configuration, else one day), otherwise greater than zero. The result
/// is kept only when `*out_completed` is true. One round trip.
///
/// # Safety
/// `queue` and `lease` are NULL or live handles; `result` is NULL or points to `result_len`
/// readable bytes; `out_completed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_complete_with_result(
    queue: *const leaseq_queue,
    lease: *const leaseq_lease,
    result: *const u8,
    result_len: usize,
    keep_result_for_ms: i64,
    out_completed: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_complete_with_result", || {
        let out_completed = unsafe { Out::new(out_completed, "out_completed", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let lease = unsafe { arg(lease, "lease") }?;
        let result = unsafe { bytes(result, result_len, "result") }?;
        out_completed.required()?;
        let keep = optional_ms("keep_result_for_ms", keep_result_for_ms)?;
        out_completed.set(
            queue
                .inner
                .complete_with_result(&lease.inner, Some(result), keep)?,
        );
        Ok(())
    })
}

/// Records a failed attempt: `error` (a message) and `error_type` (a name that groups failures,
/// e.g. an exception class; may be ""), both NUL-terminated UTF-8, cut to 4 KiB. With
/// `LEASEQ_RETRY_DEFAULT` the item runs again after its backoff, with `LEASEQ_RETRY_AFTER`
/// after `retry_after_ms` (0 or more; read only with that mode), while it has attempts left;
/// otherwise, or with `LEASEQ_RETRY_NEVER`, it is dead. One round trip.
///
/// Sets `*out_outcome` to `LEASEQ_FAIL_RETRYING`, `LEASEQ_FAIL_DEAD`, or `LEASEQ_FAIL_NOT_HELD`
/// when the lease was no longer this holder's (expired, taken, completed, cancelled, older
/// incarnation): then nothing changed, and `*out_not_held` says why (a `LEASEQ_RENEW_*` value;
/// `LEASEQ_RENEW_RENEWED` when the lease was held). `*out_retry_in_ms` is the delay before the
/// retry for `LEASEQ_FAIL_RETRYING` (0: the item waits now), -1 otherwise.
///
/// # Safety
/// `queue` and `lease` are NULL or live handles; `error` and `error_type` are NULL or
/// NUL-terminated strings; the out-parameters are NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn leaseq_queue_fail(
    queue: *const leaseq_queue,
    lease: *const leaseq_lease,
    error: *const c_char,
    error_type: *const c_char,
    retry: leaseq_retry,
    retry_after_ms: i64,
    out_outcome: *mut leaseq_fail_outcome,
    out_not_held: *mut leaseq_renew_outcome,
    out_retry_in_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        fail(
            "leaseq_queue_fail",
            (queue, "queue", fail_in_queue),
            lease,
            [error, error_type],
            None,
            (retry, retry_after_ms),
            (out_outcome, out_not_held, out_retry_in_ms),
        )
    }
}

/// Like `leaseq_queue_fail`, keeping `trace` (a backtrace, a stack, any text: NUL-terminated
/// UTF-8, cut to 16 KiB) with the item as its trace, shown by `leaseq_queue_get`
/// (`leaseq_job_trace`). The last failure's trace replaces the previous one; `""` keeps none
/// (and removes an earlier failure's). One round trip.
///
/// # Safety
/// As for `leaseq_queue_fail`; `trace` is NULL or a NUL-terminated string.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn leaseq_queue_fail_with_trace(
    queue: *const leaseq_queue,
    lease: *const leaseq_lease,
    error: *const c_char,
    error_type: *const c_char,
    trace: *const c_char,
    retry: leaseq_retry,
    retry_after_ms: i64,
    out_outcome: *mut leaseq_fail_outcome,
    out_not_held: *mut leaseq_renew_outcome,
    out_retry_in_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        fail(
            "leaseq_queue_fail_with_trace",
            (queue, "queue", fail_in_queue),
            lease,
            [error, error_type],
            Some(trace),
            (retry, retry_after_ms),
            (out_outcome, out_not_held, out_retry_in_ms),
        )
    }
}

/// What a fail runs on its handle `Q` once its arguments are read: the core's fail of `lease`
/// with the error, its type, the retry and the trace.
pub(crate) type FailOn<Q> =
    fn(&Q, &leaseq::Lease, &str, &str, Retry, Option<&str>) -> leaseq::Result<FailOutcome>;

/// [`FailOn`] for a queue: the lease is failed in it.
fn fail_in_queue(
    queue: &leaseq_queue,
    lease: &leaseq::Lease,
    error: &str,
    error_type: &str,
    retry: Retry,
    trace: Option<&str>,
) -> leaseq::Result<FailOutcome> {
    queue
        .inner
        .fail_with_trace(lease, error, error_type, retry, trace)
}

/// The body of `leaseq_queue_fail`, `leaseq_queue_fail_with_trace` and
/// `leaseq_partitioned_fail`, on the handle `queue` (named `queue_name`) (`trace`: `None` for the
/// first, which has no such argument).
///
/// # Safety
/// As for `leaseq_queue_fail_with_trace`.
pub(crate) unsafe fn fail<Q>(
    name: &'static str,
    (queue, queue_name, on): (*const Q, &'static str, FailOn<Q>),
    lease: *const leaseq_lease,
    [error, error_type]: [*const c_char; 2],
    trace: Option<*const c_char>,
    (retry, retry_after_ms): (leaseq_retry, i64),
    (out_outcome, out_not_held, out_retry_in_ms): (
        *mut leaseq_fail_outcome,
        *mut leaseq_renew_outcome,
        *mut i64,
    ),
) -> leaseq_status {
    call(name, || {
        let out_outcome = unsafe { Out::new(out_outcome, "out_outcome", LEASEQ_FAIL_NOT_HELD) };
        let out_not_held = unsafe { Out::new(out_not_held, "out_not_held", LEASEQ_RENEW_EXPIRED) };
        let out_retry_in_ms = unsafe { Out::new(out_retry_in_ms, "out_retry_in_ms", -1) };
        let queue = unsafe { arg(queue, queue_name) }?;
        let lease = unsafe { arg(lease, "lease") }?;
        let error = unsafe { text(error, "error") }?;
        let error_type = unsafe { text(error_type, "error_type") }?;
        let trace = match trace {
            Some(trace) => Some(unsafe { text(trace, "trace") }?),
            None => None,
        };
        out_outcome.required()?;
        out_not_held.required()?;
        out_retry_in_ms.required()?;
        let retry = retry_of(
            retry,
            retry_after_ms,
            ["retry".into(), "retry_after_ms".into()],
        )?;
        let (outcome, not_held, retry_in) =
            fail_outcome_to_c(on(queue, &lease.inner, error, error_type, retry, trace)?);
        out_outcome.set(outcome);
        out_not_held.set(not_held);
        out_retry_in_ms.set(retry_in);
        Ok(())
    })
}

/// Hands the item back without counting a failure: it waits again at once (`delay_ms` 0) or
/// after `delay_ms` (0 or more), and the attempt it used is given back. Only the live holder can
/// release: `*out_released` is false when the lease was no longer this holder's
/// (`leaseq_queue_renew_outcome` says why). One round trip.
///
/// # Safety
/// `queue` and `lease` are NULL or live handles; `out_released` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_release(
    queue: *const leaseq_queue,
    lease: *const leaseq_lease,
    delay_ms: i64,
    out_released: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_release", || {
        let out_released = unsafe { Out::new(out_released, "out_released", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let lease = unsafe { arg(lease, "lease") }?;
        out_released.required()?;
        let delay = millis_arg("delay_ms", delay_ms)?;
        out_released.set(queue.inner.release(&lease.inner, Some(delay))?);
        Ok(())
    })
}

/// Stores a small value (`value_len` bytes, at most 64 KiB; `value` may be NULL when
/// `value_len` is 0) on the leased item, shown by `leaseq_queue_get` (`leaseq_job_progress`).
/// Only the live holder can: `*out_stored` says whether it did. One round trip.
///
/// # Safety
/// `queue` and `lease` are NULL or live handles; `value` is NULL or points to `value_len`
/// readable bytes; `out_stored` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_progress(
    queue: *const leaseq_queue,
    lease: *const leaseq_lease,
    value: *const u8,
    value_len: usize,
    out_stored: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_progress", || {
        let out_stored = unsafe { Out::new(out_stored, "out_stored", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let lease = unsafe { arg(lease, "lease") }?;
        let value = unsafe { bytes(value, value_len, "value") }?;
        out_stored.required()?;
        out_stored.set(queue.inner.progress(&lease.inner, value)?);
        Ok(())
    })
}
