//! A partitioned queue's batch finishes (spec/PROTOCOL.md 5.25, "Leasing"): every lease is
//! checked first, then each partition gets its share of the leases, one call per partition
//! touched, sent at once, and the answers come back in the order given. The input structs and
//! their checks are the queue's (`queue_batch.rs`).

use leaseq::ttl_from_millis;

use crate::guard::{arg, array, call, OutArray};
use crate::job::leaseq_fail_outcome;
use crate::lease::leaseq_lease;
use crate::partitioned::leaseq_partitioned;
use crate::queue::{leaseq_renew_outcome, renew_outcome_to_c, LEASEQ_RENEW_EXPIRED};
use crate::queue_batch::{
    completions, failure_list, lease_list, leaseq_completion, leaseq_failure, FailOuts,
};
use crate::status::leaseq_status;

/// Completes many leases (at most 1000) of the logical queue, each in the partition that
/// issued it, as `leaseq_queue_complete_batch` takes and answers them: `out_completed[i]` is
/// whether `completions[i]` completed its item. One call per partition touched, sent at once;
/// not atomic across partitions (after an error some may have completed).
///
/// Statuses: as `leaseq_queue_complete_batch`, with LEASEQ_NULL_ARGUMENT naming `partitioned`,
/// and LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue (nothing is sent)
/// or `completions` for more than 1000.
///
/// # Safety
/// `partitioned` is NULL or a live handle; the other arguments as for
/// `leaseq_queue_complete_batch`.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_complete_batch(
    partitioned: *const leaseq_partitioned,
    completions: *const leaseq_completion,
    completions_len: usize,
    out_completed: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_complete_batch", || {
        let out_completed =
            unsafe { OutArray::new(out_completed, completions_len, "out_completed", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let items = unsafe { array(completions, completions_len, "completions") }?;
        out_completed.required()?;
        let list = unsafe { self::completions(items) }?;
        out_completed.set(p.inner.complete_batch(&list)?.into_iter());
        Ok(())
    })
}

/// Extends many leases (at most 1000) of the logical queue to `ttl_ms` from now, each in the
/// partition that issued it, as `leaseq_queue_renew_batch` takes and answers them. One call
/// per partition touched, sent at once.
///
/// Statuses: as `leaseq_queue_renew_batch`, with LEASEQ_NULL_ARGUMENT naming `partitioned`,
/// and LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue (nothing is sent).
///
/// # Safety
/// `partitioned` is NULL or a live handle; the other arguments as for
/// `leaseq_queue_renew_batch`.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_renew_batch(
    partitioned: *const leaseq_partitioned,
    leases: *const *const leaseq_lease,
    leases_len: usize,
    ttl_ms: i64,
    out_outcomes: *mut leaseq_renew_outcome,
) -> leaseq_status {
    call("leaseq_partitioned_renew_batch", || {
        let out_outcomes = unsafe {
            OutArray::new(
                out_outcomes,
                leases_len,
                "out_outcomes",
                LEASEQ_RENEW_EXPIRED,
            )
        };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let pointers = unsafe { array(leases, leases_len, "leases") }?;
        let list = unsafe { lease_list(pointers) }?;
        out_outcomes.required()?;
        let ttl = ttl_from_millis("ttl_ms", ttl_ms)?;
        let outcomes = p.inner.renew_batch(&list, ttl)?;
        out_outcomes.set(outcomes.into_iter().map(renew_outcome_to_c));
        Ok(())
    })
}

/// Records many failed attempts (at most 1000) of the logical queue, each in the partition
/// that issued its lease, as `leaseq_queue_fail_batch` takes and answers them. One call per
/// partition touched, sent at once; not atomic across partitions.
///
/// Statuses: as `leaseq_queue_fail_batch`, with LEASEQ_NULL_ARGUMENT naming `partitioned`, and
/// LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue (nothing is sent).
///
/// # Safety
/// `partitioned` is NULL or a live handle; the other arguments as for
/// `leaseq_queue_fail_batch`.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_fail_batch(
    partitioned: *const leaseq_partitioned,
    failures: *const leaseq_failure,
    failures_len: usize,
    out_outcomes: *mut leaseq_fail_outcome,
    out_not_held: *mut leaseq_renew_outcome,
    out_retry_in_ms: *mut i64,
) -> leaseq_status {
    call("leaseq_partitioned_fail_batch", || {
        let outs =
            unsafe { FailOuts::new(failures_len, out_outcomes, out_not_held, out_retry_in_ms) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let items = unsafe { array(failures, failures_len, "failures") }?;
        let list = unsafe { failure_list(items) }?;
        outs.required()?;
        outs.set(p.inner.fail_batch(&list)?);
        Ok(())
    })
}
