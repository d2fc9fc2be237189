//! A partitioned queue's calls that name items by id (spec/PROTOCOL.md 5.25, "Reading the
//! logical queue"): promote, dependencies, dependency results and dead letters by id. An item
//! lives in one partition, not always its id's (a group or dependencies can take it
//! elsewhere), so the core asks the id's own partition first, then the others at once. The
//! conversions are the queue's (`inspect.rs`, `deps.rs`, `dead.rs`).

use std::ffi::c_char;

use crate::dead::id_list;
use crate::deps::{
    dependencies_to_c, dependency_results_to_c, leaseq_dependencies, leaseq_dependency_results,
};
use crate::guard::{arg, call, text, Out, OutArray};
use crate::partitioned::leaseq_partitioned;
use crate::status::leaseq_status;

/// Makes the delayed item `id` (NUL-terminated UTF-8) wait now, as `leaseq_queue_promote` does,
/// in whichever partition holds it: the partition the id routes to first, then the others at
/// once (at most two round trips in sequence). Sets `*out_promoted` (when not NULL) to whether
/// a partition had it delayed.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `id`;
/// LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
/// `out_promoted` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_promote(
    partitioned: *const leaseq_partitioned,
    id: *const c_char,
    out_promoted: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_promote", || {
        let out_promoted = unsafe { Out::new(out_promoted, "out_promoted", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let id = unsafe { text(id, "id") }?;
        out_promoted.set(p.inner.promote(id)?);
        Ok(())
    })
}

/// What item `id` (NUL-terminated UTF-8) waits for and how many blocked items wait for it, as
/// `leaseq_queue_dependencies` reads them, from the partition that holds it (an item and its
/// dependencies share one): the partition the id routes to first, then the others at once (at
/// most two round trips in sequence). Empty lists when no partition knows of any.
///
/// On success `*out_dependencies` is new, owned by the caller: free it with
/// `leaseq_dependencies_free`. On failure it is set to NULL.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_dependencies`;
/// LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
/// `out_dependencies` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_dependencies(
    partitioned: *const leaseq_partitioned,
    id: *const c_char,
    out_dependencies: *mut *mut leaseq_dependencies,
) -> leaseq_status {
    call("leaseq_partitioned_dependencies", || {
        let out = unsafe { Out::new(out_dependencies, "out_dependencies", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let id = unsafe { text(id, "id") }?;
        out.required()?;
        out.set(dependencies_to_c(p.inner.dependencies(id)?));
        Ok(())
    })
}

/// The kept results of the items `id` (NUL-terminated UTF-8) was added to wait for, in order,
/// as `leaseq_queue_dependency_results` reads them, from the partition that holds it, looked up
/// as `leaseq_partitioned_dependencies` looks. Empty when no partition knows `id`'s
/// dependencies.
///
/// On success `*out_results` is new, owned by the caller: free it with
/// `leaseq_dependency_results_free`. On failure it is set to NULL.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_results`;
/// LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
/// `out_results` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_dependency_results(
    partitioned: *const leaseq_partitioned,
    id: *const c_char,
    out_results: *mut *mut leaseq_dependency_results,
) -> leaseq_status {
    call("leaseq_partitioned_dependency_results", || {
        let out = unsafe { Out::new(out_results, "out_results", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let id = unsafe { text(id, "id") }?;
        out.required()?;
        out.set(dependency_results_to_c(p.inner.dependency_results(id)?));
        Ok(())
    })
}

/// Puts the dead items named in `ids` (an array of `ids_len` NUL-terminated UTF-8 ids, at most
/// 1000; `ids` may be NULL when `ids_len` is 0) back to waiting, with their attempts reset, as
/// `leaseq_queue_dead_requeue` does, each in the partition that holds it; ids that are dead in
/// no partition are skipped. Sets `*out_requeued` to how many were requeued. Each partition is
/// asked for the ids that route to it, all at once; the ids none of them requeued are then
/// asked of every other partition, at once (at most two round trips in sequence). A NULL
/// element gives `LEASEQ_NULL_ARGUMENT` naming it (`ids[i]`) and requeues nothing.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `ids`, `ids[i]` or
/// `out_requeued`; LEASEQ_INVALID_ARGUMENT naming `id` (an empty or over-long id), `ids[i]`
/// (not UTF-8) or `ids` (more than 1000), with nothing requeued; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `ids` is NULL or points to `ids_len` pointers, each
/// NULL or a NUL-terminated string; `out_requeued` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_dead_requeue(
    partitioned: *const leaseq_partitioned,
    ids: *const *const c_char,
    ids_len: usize,
    out_requeued: *mut u64,
) -> leaseq_status {
    call("leaseq_partitioned_dead_requeue", || {
        let out_requeued = unsafe { Out::new(out_requeued, "out_requeued", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let list = unsafe { id_list(ids, ids_len) }?;
        out_requeued.required()?;
        out_requeued.set(p.inner.dead_requeue(&list)?);
        Ok(())
    })
}

/// Like `leaseq_partitioned_dead_requeue`, saying which ids were requeued, as
/// `leaseq_queue_dead_requeue_each` does: sets `out_requeued[i]` to whether `ids[i]` was
/// (false: a dead letter in no partition; an id given twice is false the second time).
/// `out_requeued` is the caller's array of `ids_len` bools (NULL only when `ids_len` is 0); on
/// failure every element is false. At most two round trips in sequence.
///
/// Statuses: as `leaseq_partitioned_dead_requeue`.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `ids` is NULL or points to `ids_len` pointers, each
/// NULL or a NUL-terminated string; `out_requeued` is NULL or points to `ids_len` writable
/// bools.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_dead_requeue_each(
    partitioned: *const leaseq_partitioned,
    ids: *const *const c_char,
    ids_len: usize,
    out_requeued: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_dead_requeue_each", || {
        let out_requeued = unsafe { OutArray::new(out_requeued, ids_len, "out_requeued", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let list = unsafe { id_list(ids, ids_len) }?;
        out_requeued.required()?;
        out_requeued.set(p.inner.dead_requeue_each(&list)?.into_iter());
        Ok(())
    })
}
