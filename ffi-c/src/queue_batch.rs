//! Many leases in one round trip: `leaseq_queue_complete_batch`, `leaseq_queue_renew_batch`,
//! `leaseq_queue_fail_batch` and `leaseq_queue_complete_and_lease_batch`, with their input
//! structs `leaseq_completion` and `leaseq_failure`.

use std::ffi::c_char;
use std::time::Duration;

use leaseq::{ttl_from_millis, Completion, Lease, Retry};

use crate::finish::{fail_outcome_to_c, leaseq_retry, optional_ms, retry_of};
use crate::guard::{arg, array, call, text, Failure, Out, OutArray};
use crate::job::{leaseq_fail_outcome, LEASEQ_FAIL_NOT_HELD};
use crate::lease::{lease_array, leaseq_lease};
use crate::queue::{leaseq_queue, leaseq_renew_outcome, renew_outcome_to_c, LEASEQ_RENEW_EXPIRED};
use crate::status::leaseq_status;

/// One completion of `leaseq_queue_complete_batch` or `leaseq_queue_complete_and_lease_batch`:
/// a lease, and the result to keep, if any (a plain struct of fixed layout, read only during
/// the call). `LEASEQ_COMPLETION_INIT` gives one with no lease, no result and the default keep
/// time.
///
/// Unlike other (pointer, length) pairs, `result` NULL means "no result", as
/// `leaseq_queue_complete` keeps none; an empty result is any non-NULL pointer with
/// `result_len` 0.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_completion {
    /// The lease to complete (required), of the queue the call is made on.
    pub lease: *const leaseq_lease,
    /// The result to keep for `leaseq_queue_result` and `leaseq_queue_wait_result`
    /// (`result_len` bytes), or NULL to keep none (then `result_len` must be 0).
    pub result: *const u8,
    /// The length of `result` in bytes.
    pub result_len: usize,
    /// How long to keep the result: -1 for the default (the item's own, else the queue's
    /// configuration, else one day), otherwise greater than zero. Applies only with a result:
    /// without one it must be -1.
    pub keep_result_for_ms: i64,
}

/// One failure of `leaseq_queue_fail_batch`: what `leaseq_queue_fail` takes, for one lease (a
/// plain struct of fixed layout, read only during the call).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_failure {
    /// The lease that failed (required), of the queue the call is made on.
    pub lease: *const leaseq_lease,
    /// The error message: NUL-terminated UTF-8 (required), cut to 4 KiB.
    pub error: *const c_char,
    /// A name that groups failures, e.g. an exception class: NUL-terminated UTF-8 (required;
    /// may be ""), cut to 4 KiB.
    pub error_type: *const c_char,
    /// `LEASEQ_RETRY_DEFAULT`, `LEASEQ_RETRY_AFTER` or `LEASEQ_RETRY_NEVER`, as for
    /// `leaseq_queue_fail`.
    pub retry: leaseq_retry,
    /// The delay before the retry with `LEASEQ_RETRY_AFTER` (0 or more); read only with that
    /// mode.
    pub retry_after_ms: i64,
}

/// A completion's result, its keep time already read.
type Kept<'a> = Option<(&'a [u8], Option<Duration>)>;

/// The core's completions for the caller's array, every element checked before anything is
/// sent; a refused one is named with its index (`completions[2].lease`).
///
/// # Safety
/// Each element's `lease` is NULL or a live lease, and its `result` NULL or `result_len`
/// readable bytes.
pub(crate) unsafe fn completions<'a>(
    items: &'a [leaseq_completion],
) -> Result<Vec<Completion<'a>>, Failure> {
    let mut list = Vec::with_capacity(items.len());
    for (i, c) in items.iter().enumerate() {
        // SAFETY: NULL or a live lease by the caller's contract.
        let lease = unsafe { c.lease.as_ref() }
            .ok_or_else(|| Failure::Null(format!("completions[{i}].lease").into()))?;
        let keep = optional_ms(
            format!("completions[{i}].keep_result_for_ms"),
            c.keep_result_for_ms,
        )?;
        let kept: Kept<'a> = if c.result.is_null() {
            if c.result_len != 0 {
                return Err(Failure::Null(format!("completions[{i}].result").into()));
            }
            // The core's check, with the argument named by its place in the array.
            if let Err(leaseq::Error::InvalidArgument { reason, .. }) =
                leaseq::check_completion(None, keep)
            {
                return Err(Failure::invalid(
                    format!("completions[{i}].keep_result_for_ms"),
                    reason,
                ));
            }
            None
        } else {
            // SAFETY: non-NULL and `result_len` readable bytes by the caller's contract.
            let result = unsafe { std::slice::from_raw_parts(c.result, c.result_len) };
            Some((result, keep))
        };
        list.push((&lease.inner, kept));
    }
    Ok(list)
}

/// Completes many leases in one round trip (at most 1000), each as `leaseq_queue_complete`
/// (`result` NULL) or `leaseq_queue_complete_with_result` would. `completions` is an array of
/// `completions_len` completions (NULL when `completions_len` is 0: nothing is sent).
///
/// Sets `out_completed[i]` to whether `completions[i]` completed its item (false, not an
/// error, when it was completed already, cancelled, failed or released since, or added again).
/// `out_completed` is the caller's array of `completions_len` bools (NULL only when
/// `completions_len` is 0); on failure every element is false.
///
/// Every completion is checked before anything is sent: a NULL lease or result gives
/// `LEASEQ_NULL_ARGUMENT` and a bad keep time `LEASEQ_INVALID_ARGUMENT`, naming the element
/// (`completions[2].lease`), and nothing is completed. The leases stay the caller's.
///
/// # Safety
/// `queue` is NULL or a live queue; `completions` is NULL or points to `completions_len`
/// completions, each with `lease` NULL or a live lease and `result` NULL or `result_len`
/// readable bytes; `out_completed` is NULL or points to `completions_len` writable bools.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_complete_batch(
    queue: *const leaseq_queue,
    completions: *const leaseq_completion,
    completions_len: usize,
    out_completed: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_complete_batch", || {
        let out_completed =
            unsafe { OutArray::new(out_completed, completions_len, "out_completed", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let items = unsafe { array(completions, completions_len, "completions") }?;
        out_completed.required()?;
        let list = unsafe { self::completions(items) }?;
        let completed = queue.inner.complete_batch(&list)?;
        out_completed.set(completed.into_iter());
        Ok(())
    })
}

/// Extends many leases to `ttl_ms` from now (1 ms to 30 days) in one round trip (at most
/// 1000), each as `leaseq_queue_renew_outcome` would. `leases` is an array of `leases_len`
/// lease pointers (NULL when `leases_len` is 0: nothing is sent).
///
/// Sets `out_outcomes[i]` to what renewing `leases[i]` found: `LEASEQ_RENEW_RENEWED`, or why
/// not (a `LEASEQ_RENEW_*` value). `out_outcomes` is the caller's array of `leases_len`
/// elements (NULL only when `leases_len` is 0); on failure every element is
/// `LEASEQ_RENEW_EXPIRED`.
///
/// A NULL element gives `LEASEQ_NULL_ARGUMENT` naming it (`leases[2]`) and renews nothing.
///
/// # Safety
/// `queue` is NULL or a live queue; `leases` is NULL or points to `leases_len` pointers, each
/// NULL or a live lease; `out_outcomes` is NULL or points to `leases_len` writable elements.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_renew_batch(
    queue: *const leaseq_queue,
    leases: *const *const leaseq_lease,
    leases_len: usize,
    ttl_ms: i64,
    out_outcomes: *mut leaseq_renew_outcome,
) -> leaseq_status {
    call("leaseq_queue_renew_batch", || {
        let out_outcomes = unsafe {
            OutArray::new(
                out_outcomes,
                leases_len,
                "out_outcomes",
                LEASEQ_RENEW_EXPIRED,
            )
        };
        let queue = unsafe { arg(queue, "queue") }?;
        let pointers = unsafe { array(leases, leases_len, "leases") }?;
        let list = unsafe { lease_list(pointers) }?;
        out_outcomes.required()?;
        let ttl = ttl_from_millis("ttl_ms", ttl_ms)?;
        let outcomes = queue.inner.renew_batch(&list, ttl)?;
        out_outcomes.set(outcomes.into_iter().map(renew_outcome_to_c));
        Ok(())
    })
}

/// The leases of a batch renew, each checked (a NULL element names itself: `leases[2]`).
///
/// # Safety
/// Each pointer is NULL or a live lease.
pub(crate) unsafe fn lease_list(pointers: &[*const leaseq_lease]) -> Result<Vec<&Lease>, Failure> {
    pointers
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            // SAFETY: NULL or a live lease by the caller's contract.
            unsafe { p.as_ref() }
                .map(|l| &l.inner)
                .ok_or_else(|| Failure::Null(format!("leases[{i}]").into()))
        })
        .collect()
}

/// Records many failed attempts in one round trip (at most 1000), each as `leaseq_queue_fail`
/// would. `failures` is an array of `failures_len` failures (NULL when `failures_len` is 0:
/// nothing is sent).
///
/// For each `failures[i]`, sets `out_outcomes[i]` (`LEASEQ_FAIL_RETRYING`, `LEASEQ_FAIL_DEAD`
/// or `LEASEQ_FAIL_NOT_HELD`), `out_not_held[i]` (why the lease was not held, a
/// `LEASEQ_RENEW_*` value; `LEASEQ_RENEW_RENEWED` when it was) and `out_retry_in_ms[i]` (the
/// delay before the retry for `LEASEQ_FAIL_RETRYING`, -1 otherwise), as `leaseq_queue_fail`
/// sets its three out-parameters. Each is the caller's array of `failures_len` elements (NULL
/// only when `failures_len` is 0); on failure every element is `LEASEQ_FAIL_NOT_HELD`,
/// `LEASEQ_RENEW_EXPIRED` and -1.
///
/// Every failure is checked before anything is sent: a NULL pointer gives
/// `LEASEQ_NULL_ARGUMENT`, and text that is not UTF-8 or a bad retry `LEASEQ_INVALID_ARGUMENT`,
/// naming the element (`failures[2].error`), and nothing changes.
///
/// # Safety
/// `queue` is NULL or a live queue; `failures` is NULL or points to `failures_len` failures,
/// each with `lease` NULL or a live lease and `error` and `error_type` NULL or NUL-terminated
/// strings; each out-array is NULL or points to `failures_len` writable elements.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_fail_batch(
    queue: *const leaseq_queue,
    failures: *const leaseq_failure,
    failures_len: usize,
    out_outcomes: *mut leaseq_fail_outcome,
    out_not_held: *mut leaseq_renew_outcome,
    out_retry_in_ms: *mut i64,
) -> leaseq_status {
    call("leaseq_queue_fail_batch", || {
        let outs =
            unsafe { FailOuts::new(failures_len, out_outcomes, out_not_held, out_retry_in_ms) };
        let queue = unsafe { arg(queue, "queue") }?;
        let items = unsafe { array(failures, failures_len, "failures") }?;
        let list = unsafe { failure_list(items) }?;
        outs.required()?;
        outs.set(queue.inner.fail_batch(&list)?);
        Ok(())
    })
}

/// The failures of a batch fail, each checked: a NULL pointer, text that is not UTF-8 or a bad
/// retry names its element (`failures[2].error`).
///
/// # Safety
/// Each failure's `lease` is NULL or a live lease, and `error` and `error_type` NULL or
/// NUL-terminated strings.
pub(crate) unsafe fn failure_list(
    items: &[leaseq_failure],
) -> Result<Vec<(&Lease, &str, &str, Retry)>, Failure> {
    let mut list = Vec::with_capacity(items.len());
    for (i, f) in items.iter().enumerate() {
        // SAFETY: NULL or a live lease by the caller's contract.
        let lease = unsafe { f.lease.as_ref() }
            .ok_or_else(|| Failure::Null(format!("failures[{i}].lease").into()))?;
        let error = unsafe { text(f.error, format!("failures[{i}].error")) }?;
        let error_type = unsafe { text(f.error_type, format!("failures[{i}].error_type")) }?;
        let retry = retry_of(
            f.retry,
            f.retry_after_ms,
            [
                format!("failures[{i}].retry").into(),
                format!("failures[{i}].retry_after_ms").into(),
            ],
        )?;
        list.push((&lease.inner, error, error_type, retry));
    }
    Ok(list)
}

/// A batch fail's three out-arrays: each failure's outcome, why its lease was not held, and
/// the delay before its retry (on failure: `LEASEQ_FAIL_NOT_HELD`, `LEASEQ_RENEW_EXPIRED`, -1).
pub(crate) struct FailOuts {
    outcomes: OutArray<leaseq_fail_outcome>,
    not_held: OutArray<leaseq_renew_outcome>,
    retry_in_ms: OutArray<i64>,
}

impl FailOuts {
    /// # Safety
    /// Each pointer is NULL or points to `len` writable elements.
    pub(crate) unsafe fn new(
        len: usize,
        outcomes: *mut leaseq_fail_outcome,
        not_held: *mut leaseq_renew_outcome,
        retry_in_ms: *mut i64,
    ) -> FailOuts {
        // SAFETY: by this function's contract.
        unsafe {
            FailOuts {
                outcomes: OutArray::new(outcomes, len, "out_outcomes", LEASEQ_FAIL_NOT_HELD),
                not_held: OutArray::new(not_held, len, "out_not_held", LEASEQ_RENEW_EXPIRED),
                retry_in_ms: OutArray::new(retry_in_ms, len, "out_retry_in_ms", -1),
            }
        }
    }

    /// Refuses a NULL array (of a batch that is not empty), naming it.
    pub(crate) fn required(&self) -> Result<(), Failure> {
        self.outcomes.required()?;
        self.not_held.required()?;
        self.retry_in_ms.required()
    }

    /// Writes the outcomes, in order.
    pub(crate) fn set(&self, outcomes: Vec<leaseq::FailOutcome>) {
        let parts: Vec<_> = outcomes.into_iter().map(fail_outcome_to_c).collect();
        self.outcomes.set(parts.iter().map(|p| p.0));
        self.not_held.set(parts.iter().map(|p| p.1));
        self.retry_in_ms.set(parts.iter().map(|p| p.2));
    }
}

/// A busy worker's whole step in one round trip: completes `completions` (as
/// `leaseq_queue_complete_batch`) and leases up to `n` more items (0 to 1000) for `ttl_ms`
/// (1 ms to 30 days). The new leases never wait: fewer (or none) when fewer are waiting.
///
/// Sets `out_completed[i]` as `leaseq_queue_complete_batch` does (the caller's array of
/// `completions_len` bools, NULL only when `completions_len` is 0). On success `*out_leases`
/// is an array of `*out_len` new leases owned by the caller, or NULL with `*out_len` 0 when
/// nothing was leased: free it with `leaseq_lease_array_free(*out_leases, *out_len)`, as for
/// `leaseq_queue_lease_batch`. On failure every `out_completed[i]` is false and `*out_leases`
/// NULL: a refused argument completed nothing, but after a connection or Redis error the
/// items may have been completed all the same.
///
/// # Safety
/// `queue` is NULL or a live queue; `completions` is NULL or points to `completions_len`
/// completions as for `leaseq_queue_complete_batch`; `out_completed` is NULL or points to
/// `completions_len` writable bools; `out_leases` and `out_len` are NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn leaseq_queue_complete_and_lease_batch(
    queue: *const leaseq_queue,
    completions: *const leaseq_completion,
    completions_len: usize,
    n: usize,
    ttl_ms: i64,
    out_completed: *mut bool,
    out_leases: *mut *mut *mut leaseq_lease,
    out_len: *mut usize,
) -> leaseq_status {
    call("leaseq_queue_complete_and_lease_batch", || {
        let out_completed =
            unsafe { OutArray::new(out_completed, completions_len, "out_completed", false) };
        let out_leases = unsafe { Out::new(out_leases, "out_leases", std::ptr::null_mut()) };
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        let items = unsafe { array(completions, completions_len, "completions") }?;
        out_completed.required()?;
        out_leases.required()?;
        out_len.required()?;
        let list = unsafe { self::completions(items) }?;
        let ttl = ttl_from_millis("ttl_ms", ttl_ms)?;
        let (completed, leases) = queue.inner.complete_and_lease_batch(&list, n, ttl)?;
        out_completed.set(completed.into_iter());
        let (array, len) = lease_array(leases);
        out_leases.set(array);
        out_len.set(len);
        Ok(())
    })
}
