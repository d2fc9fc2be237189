//! The read API: kept results, one item's record, pages and counts of items per state, and a
//! queue's figures.

use std::ffi::c_char;

use leaseq::Found;

use crate::guard::{arg, bytes, call, text, Failure, Out};
use crate::job::{
    leaseq_entry_list, leaseq_job, leaseq_name_counts, leaseq_result, leaseq_state, leaseq_stats,
    state_from_c,
};
use crate::queue::{leaseq_queue, wait};
use crate::status::leaseq_status;

/// Sets `*out_result` to the result kept for item `id` (NUL-terminated UTF-8), or NULL when it
/// did not complete with one or the result has expired. One round trip.
///
/// `*out_result`, when not NULL, is a new result owned by the caller: free it with
/// `leaseq_result_free`.
///
/// # Safety
/// `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_result` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_result(
    queue: *const leaseq_queue,
    id: *const c_char,
    out_result: *mut *mut leaseq_result,
) -> leaseq_status {
    call("leaseq_queue_result", || {
        let out_result = unsafe { Out::new(out_result, "out_result", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { text(id, "id") }?;
        out_result.required()?;
        if let Some(r) = queue.inner.result(id)? {
            out_result.set(Box::into_raw(Box::new(leaseq_result::new(r))));
        }
        Ok(())
    })
}

/// Waits for item `id`'s result, server-side (no polling), and sets `*out_result` to it, or to
/// NULL when the timeout passes first (not an error). `timeout_ms` is as `leaseq_queue_lease`'s:
/// 0 only reads it, a positive value waits up to that long, a negative one waits until the
/// result comes. An item that dies ends the wait with `LEASEQ_DEAD` within a second (the
/// message says why it died and its last error): no result will come unless it is requeued. An
/// item completed without a result or cancelled gives none. Blocks only the calling thread;
/// `leaseq_client_close` from another thread ends the wait with `LEASEQ_CLOSED`.
///
/// `*out_result`, when not NULL, is a new result owned by the caller: free it with
/// `leaseq_result_free`.
///
/// # Safety
/// `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_result` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_wait_result(
    queue: *const leaseq_queue,
    id: *const c_char,
    timeout_ms: i64,
    out_result: *mut *mut leaseq_result,
) -> leaseq_status {
    call("leaseq_queue_wait_result", || {
        let out_result = unsafe { Out::new(out_result, "out_result", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { text(id, "id") }?;
        out_result.required()?;
        if let Some(r) = queue.inner.wait_result(id, wait(timeout_ms))? {
            out_result.set(Box::into_raw(Box::new(leaseq_result::new(r))));
        }
        Ok(())
    })
}

/// Sets `*out_job` to everything known about item `id` (NUL-terminated UTF-8): its state,
/// data, attempts, last error, progress, times and kept result; NULL when no item and no kept
/// result has this id. One round trip.
///
/// `*out_job`, when not NULL, is a new job owned by the caller: read it with the `leaseq_job_*`
/// functions and free it with `leaseq_job_free`.
///
/// # Safety
/// `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_job` is NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_get(
    queue: *const leaseq_queue,
    id: *const c_char,
    out_job: *mut *mut leaseq_job,
) -> leaseq_status {
    call("leaseq_queue_get", || {
        let out_job = unsafe { Out::new(out_job, "out_job", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { text(id, "id") }?;
        out_job.required()?;
        if let Some(job) = queue.inner.get(id)? {
            out_job.set(leaseq_job::new(job));
        }
        Ok(())
    })
}

/// Sets `*out_list` to a page of the items in `state` (`LEASEQ_STATE_WAITING`, `_DELAYED`,
/// `_LEASED`, `_DEAD` or `_DONE`): up to `count` (1 to 1000) entries from position `start`, in
/// order: waiting in the order they will be leased, delayed by due time, leased by lease
/// expiry, dead oldest first, done (completed with their result kept) newest first (a done
/// item whose result expired, and a cancelled waiting item's id, are skipped, their positions
/// counted, so a page may be short and more may follow it; items waiting in groups are not
/// listed). One round trip.
///
/// `*out_list` is a new list owned by the caller (possibly empty): read it with
/// `leaseq_entry_list_len` and `leaseq_entry_list_get`, free it with `leaseq_entry_list_free`.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_list` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_list(
    queue: *const leaseq_queue,
    state: leaseq_state,
    start: usize,
    count: usize,
    out_list: *mut *mut leaseq_entry_list,
) -> leaseq_status {
    call("leaseq_queue_list", || {
        let out_list = unsafe { Out::new(out_list, "out_list", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_list.required()?;
        let state = state_from_c(state, "state")?;
        out_list.set(leaseq_entry_list::new(
            queue.inner.list(state, start, count)?,
        ));
        Ok(())
    })
}

/// Sets `*out_count` to how many items are in `state` (`LEASEQ_STATE_WAITING`, `_DELAYED`,
/// `_LEASED`, `_DEAD` or `_DONE`). Waiting counts ids in the waiting lists, stale ones included
/// until a lease or clean drops them; done counts the kept results, expired ones included until
/// a later complete drops them. One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_count` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_count(
    queue: *const leaseq_queue,
    state: leaseq_state,
    out_count: *mut u64,
) -> leaseq_status {
    call("leaseq_queue_count", || {
        let out_count = unsafe { Out::new(out_count, "out_count", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_count.required()?;
        let state = state_from_c(state, "state")?;
        out_count.set(queue.inner.count(state)?);
        Ok(())
    })
}

/// Sets `*out_list` to the entries of `state` whose name is `name` and whose last error's type
/// is `error_type` (NUL-terminated UTF-8; NULL: any), looking at most at 1000 positions from
/// `start` and keeping at most `count` (1 to 1000) matches; `*out_next` to the `start` of the
/// next call, or -1 once the end of the state was reached; `*out_examined` (when not NULL) to
/// how many positions were looked at. Bounded whatever the state's size. Done items keep no
/// name or error: a filter on either finds none of them. One round trip.
///
/// `*out_list` is a new list owned by the caller (possibly empty): read it as
/// `leaseq_queue_list`'s, free it with `leaseq_entry_list_free`.
///
/// # Safety
/// `queue` is NULL or a live queue; `name` and `error_type` are NULL or NUL-terminated strings;
/// `out_list` and `out_next` are NULL or writable; `out_examined` is NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn leaseq_queue_find(
    queue: *const leaseq_queue,
    state: leaseq_state,
    name: *const c_char,
    error_type: *const c_char,
    start: usize,
    count: usize,
    out_list: *mut *mut leaseq_entry_list,
    out_next: *mut i64,
    out_examined: *mut usize,
) -> leaseq_status {
    call("leaseq_queue_find", || {
        let out_list = unsafe { Out::new(out_list, "out_list", std::ptr::null_mut()) };
        let out_next = unsafe { Out::new(out_next, "out_next", -1) };
        let out_examined = unsafe { Out::new(out_examined, "out_examined", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_list.required()?;
        out_next.required()?;
        let state = state_from_c(state, "state")?;
        let (name, error_type) = unsafe { find_filters(name, error_type) }?;
        let found = queue.inner.find(state, name, error_type, start, count)?;
        set_found(found, &out_list, &out_next, &out_examined);
        Ok(())
    })
}

/// `find`'s filters, `name` and `error_type` (NULL: any), for `leaseq_queue_find` and
/// `leaseq_partitioned_find`.
///
/// # Safety
/// `name` and `error_type` are NULL or NUL-terminated strings that live for the call.
pub(crate) unsafe fn find_filters<'a>(
    name: *const c_char,
    error_type: *const c_char,
) -> Result<(Option<&'a str>, Option<&'a str>), Failure> {
    let name = if name.is_null() {
        None
    } else {
        Some(unsafe { text(name, "name") }?)
    };
    let error_type = if error_type.is_null() {
        None
    } else {
        Some(unsafe { text(error_type, "error_type") }?)
    };
    Ok((name, error_type))
}

/// Writes what `find` found into its outputs, for `leaseq_queue_find` and
/// `leaseq_partitioned_find`: the entries, the next call's `start` (-1 at the end) and how many
/// positions were looked at.
pub(crate) fn set_found(
    found: Found,
    out_list: &Out<*mut leaseq_entry_list>,
    out_next: &Out<i64>,
    out_examined: &Out<usize>,
) {
    out_next.set(found.next.map_or(-1, |n| n as i64));
    out_examined.set(found.examined);
    out_list.set(leaseq_entry_list::new(found.entries));
}

/// Makes the delayed item `id` (NUL-terminated UTF-8) wait now, at its priority (or in its
/// group), as if it were due; sets `*out_promoted` (when not NULL) to whether it was delayed.
/// One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_promoted` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_promote(
    queue: *const leaseq_queue,
    id: *const c_char,
    out_promoted: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_promote", || {
        let out_promoted = unsafe { Out::new(out_promoted, "out_promoted", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { text(id, "id") }?;
        out_promoted.set(queue.inner.promote(id)?);
        Ok(())
    })
}

/// Sets `*out_stats` to the queue's figures, read in one round trip: counts per state, the age
/// of the oldest waiting item, and, when the queue's counters are on (`LEASEQ_CONFIG_STATS`;
/// `leaseq_stats_counting` says), completed, failed, dead and expired counts for each of the
/// last 60 minutes.
///
/// `*out_stats` is a new handle owned by the caller: read it with the `leaseq_stats_*`
/// functions and free it with `leaseq_stats_free`.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_stats` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_stats(
    queue: *const leaseq_queue,
    out_stats: *mut *mut leaseq_stats,
) -> leaseq_status {
    call("leaseq_queue_stats", || {
        let out_stats = unsafe { Out::new(out_stats, "out_stats", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_stats.required()?;
        out_stats.set(leaseq_stats::new(queue.inner.stats()?));
        Ok(())
    })
}

/// Sets `*out_counts` to what each kind of job did in the last hour: for every item name
/// (`LEASEQ_ADD_NAME`) met in the last 60 minutes, how many of its jobs completed, failed
/// (attempts) and went dead, by name; or to NULL while the queue's counters are off
/// (`LEASEQ_CONFIG_STATS`): nothing is counted then. Each minute counts at most 300 name and
/// outcome pairs (items with unbounded names keep the totals of `leaseq_queue_stats`, not a
/// count for every name), and at most 1000 names are returned. One round trip.
///
/// `*out_counts`, when not NULL, is a new handle owned by the caller (possibly with no entry):
/// read it with `leaseq_name_counts_entries` and free it with `leaseq_name_counts_free`.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_counts` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_counts_by_name(
    queue: *const leaseq_queue,
    out_counts: *mut *mut leaseq_name_counts,
) -> leaseq_status {
    call("leaseq_queue_counts_by_name", || {
        let out_counts = unsafe { Out::new(out_counts, "out_counts", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_counts.required()?;
        if let Some(counts) = queue.inner.counts_by_name()? {
            out_counts.set(leaseq_name_counts::new(counts));
        }
        Ok(())
    })
}

/// As `leaseq_queue_result`, with the id as `id_len` bytes (any bytes: an id another kind of
/// client added need not be UTF-8; `leaseq_lease_id_bytes` gives such an id).
///
/// # Safety
/// `queue` is NULL or a live queue; `id` is NULL or points to `id_len` readable bytes;
/// `out_result` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_result_bytes(
    queue: *const leaseq_queue,
    id: *const u8,
    id_len: usize,
    out_result: *mut *mut leaseq_result,
) -> leaseq_status {
    call("leaseq_queue_result_bytes", || {
        let out_result = unsafe { Out::new(out_result, "out_result", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { bytes(id, id_len, "id") }?;
        out_result.required()?;
        if let Some(r) = queue.inner.result(id)? {
            out_result.set(Box::into_raw(Box::new(leaseq_result::new(r))));
        }
        Ok(())
    })
}

/// As `leaseq_queue_wait_result`, with the id as `id_len` bytes (any bytes).
///
/// # Safety
/// `queue` is NULL or a live queue; `id` is NULL or points to `id_len` readable bytes;
/// `out_result` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_wait_result_bytes(
    queue: *const leaseq_queue,
    id: *const u8,
    id_len: usize,
    timeout_ms: i64,
    out_result: *mut *mut leaseq_result,
) -> leaseq_status {
    call("leaseq_queue_wait_result_bytes", || {
        let out_result = unsafe { Out::new(out_result, "out_result", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { bytes(id, id_len, "id") }?;
        out_result.required()?;
        if let Some(r) = queue.inner.wait_result(id, wait(timeout_ms))? {
            out_result.set(Box::into_raw(Box::new(leaseq_result::new(r))));
        }
        Ok(())
    })
}

/// As `leaseq_queue_get`, with the id as `id_len` bytes (any bytes).
///
/// # Safety
/// `queue` is NULL or a live queue; `id` is NULL or points to `id_len` readable bytes;
/// `out_job` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_get_bytes(
    queue: *const leaseq_queue,
    id: *const u8,
    id_len: usize,
    out_job: *mut *mut leaseq_job,
) -> leaseq_status {
    call("leaseq_queue_get_bytes", || {
        let out_job = unsafe { Out::new(out_job, "out_job", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { bytes(id, id_len, "id") }?;
        out_job.required()?;
        if let Some(job) = queue.inner.get(id)? {
            out_job.set(leaseq_job::new(job));
        }
        Ok(())
    })
}
