//! Cancelling items, and dead letters: requeue and purge.

use std::ffi::c_char;

use crate::guard::{arg, bytes, call, text, Failure, Out, OutArray};
use crate::job::{leaseq_state, state_to_c, LEASEQ_STATE_NONE};
use crate::queue::leaseq_queue;
use crate::status::leaseq_status;

/// `-1` for "all", otherwise a count of at least 0.
fn how_many(n: i64) -> Result<Option<u64>, Failure> {
    match n {
        -1 => Ok(None),
        n => u64::try_from(n)
            .map(Some)
            .map_err(|_| Failure::invalid("n", format!("is {n}: give -1 (all) or a count from 0"))),
    }
}

/// Cancels item `id` (NUL-terminated UTF-8): a waiting, delayed or dead item is removed; a
/// leased one is marked, so that its holder's renew, complete, fail and release return false
/// (outcome `LEASEQ_RENEW_CANCELLED`) and remove it, as does the expiry of its lease. Sets
/// `*out_previous` to the state the item was in, or `LEASEQ_STATE_NONE` when there was no item.
/// One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_previous` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_cancel(
    queue: *const leaseq_queue,
    id: *const c_char,
    out_previous: *mut leaseq_state,
) -> leaseq_status {
    call("leaseq_queue_cancel", || {
        let out_previous = unsafe { Out::new(out_previous, "out_previous", LEASEQ_STATE_NONE) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { text(id, "id") }?;
        out_previous.required()?;
        out_previous.set(
            queue
                .inner
                .cancel(id)?
                .map_or(LEASEQ_STATE_NONE, state_to_c),
        );
        Ok(())
    })
}

/// Puts the dead items named in `ids` (an array of `ids_len` NUL-terminated UTF-8 ids, at most
/// 1000; `ids` may be NULL when `ids_len` is 0) back to waiting, with their attempts reset; ids
/// that are not dead are skipped. Sets `*out_requeued` to how many were requeued. A NULL
/// element gives `LEASEQ_NULL_ARGUMENT` naming it (`ids[i]`) and requeues nothing. One round
/// trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `ids` is NULL or points to `ids_len` pointers, each NULL or
/// a NUL-terminated string; `out_requeued` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_dead_requeue(
    queue: *const leaseq_queue,
    ids: *const *const c_char,
    ids_len: usize,
    out_requeued: *mut u64,
) -> leaseq_status {
    call("leaseq_queue_dead_requeue", || {
        let out_requeued = unsafe { Out::new(out_requeued, "out_requeued", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        let list = unsafe { id_list(ids, ids_len) }?;
        out_requeued.required()?;
        out_requeued.set(queue.inner.dead_requeue(&list)?);
        Ok(())
    })
}

/// Like `leaseq_queue_dead_requeue`, saying which ids were requeued: sets `out_requeued[i]` to
/// whether `ids[i]` was (false: not a dead letter: no such item, or one in another state; an id
/// given twice is false the second time). `out_requeued` is the caller's array of `ids_len`
/// bools (NULL only when `ids_len` is 0); on failure every element is false. One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `ids` is NULL or points to `ids_len` pointers, each NULL or
/// a NUL-terminated string; `out_requeued` is NULL or points to `ids_len` writable bools.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_dead_requeue_each(
    queue: *const leaseq_queue,
    ids: *const *const c_char,
    ids_len: usize,
    out_requeued: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_dead_requeue_each", || {
        let out_requeued = unsafe { OutArray::new(out_requeued, ids_len, "out_requeued", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let list = unsafe { id_list(ids, ids_len) }?;
        out_requeued.required()?;
        out_requeued.set(queue.inner.dead_requeue_each(&list)?.into_iter());
        Ok(())
    })
}

/// The ids of a dead-letter requeue: `ids_len` NUL-terminated strings (none when `ids_len` is
/// 0, `ids` then may be NULL), each checked and named `ids[i]` when refused.
///
/// # Safety
/// `ids` is NULL or points to `ids_len` pointers, each NULL or a NUL-terminated string.
pub(crate) unsafe fn id_list<'a>(
    ids: *const *const c_char,
    ids_len: usize,
) -> Result<Vec<&'a str>, Failure> {
    let pointers: &[*const c_char] = if ids_len == 0 {
        &[]
    } else if ids.is_null() {
        return Err(Failure::Null("ids".into()));
    } else {
        // SAFETY: `ids_len` readable pointers by the caller's contract.
        unsafe { std::slice::from_raw_parts(ids, ids_len) }
    };
    pointers
        .iter()
        .enumerate()
        .map(|(i, &p)| unsafe { text(p, format!("ids[{i}]")) })
        .collect()
}

/// Requeues the `n` oldest dead items (attempts reset), or all of them with `n` -1 (1000 per
/// round trip). Sets `*out_requeued` to how many were requeued.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_requeued` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_dead_requeue_oldest(
    queue: *const leaseq_queue,
    n: i64,
    out_requeued: *mut u64,
) -> leaseq_status {
    call("leaseq_queue_dead_requeue_oldest", || {
        let out_requeued = unsafe { Out::new(out_requeued, "out_requeued", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_requeued.required()?;
        let n = how_many(n)?;
        out_requeued.set(queue.inner.dead_requeue_oldest(n)?);
        Ok(())
    })
}

/// Deletes the `n` oldest dead items, or all of them with `n` -1 (1000 per round trip). Sets
/// `*out_purged` to how many were deleted.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_purged` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_dead_purge(
    queue: *const leaseq_queue,
    n: i64,
    out_purged: *mut u64,
) -> leaseq_status {
    call("leaseq_queue_dead_purge", || {
        let out_purged = unsafe { Out::new(out_purged, "out_purged", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_purged.required()?;
        let n = how_many(n)?;
        out_purged.set(queue.inner.dead_purge(n)?);
        Ok(())
    })
}

/// As `leaseq_queue_cancel`, with the id as `id_len` bytes (any bytes: an id another kind of
/// client added need not be UTF-8).
///
/// # Safety
/// `queue` is NULL or a live queue; `id` is NULL or points to `id_len` readable bytes;
/// `out_previous` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_cancel_bytes(
    queue: *const leaseq_queue,
    id: *const u8,
    id_len: usize,
    out_previous: *mut leaseq_state,
) -> leaseq_status {
    call("leaseq_queue_cancel_bytes", || {
        let out_previous = unsafe { Out::new(out_previous, "out_previous", LEASEQ_STATE_NONE) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { bytes(id, id_len, "id") }?;
        out_previous.required()?;
        out_previous.set(
            queue
                .inner
                .cancel(id)?
                .map_or(LEASEQ_STATE_NONE, state_to_c),
        );
        Ok(())
    })
}

/// As `leaseq_queue_dead_requeue`, with each id as bytes: `ids[i]` points to `id_lens[i]`
/// bytes (any bytes). `ids` and `id_lens` may be NULL when `ids_len` is 0. A NULL element with
/// a length above 0 gives `LEASEQ_NULL_ARGUMENT` naming it (`ids[i]`) and requeues nothing.
///
/// # Safety
/// `queue` is NULL or a live queue; `ids` and `id_lens` are NULL or point to `ids_len` readable
/// elements, each `ids[i]` NULL or pointing to `id_lens[i]` readable bytes; `out_requeued` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_dead_requeue_bytes(
    queue: *const leaseq_queue,
    ids: *const *const u8,
    id_lens: *const usize,
    ids_len: usize,
    out_requeued: *mut u64,
) -> leaseq_status {
    call("leaseq_queue_dead_requeue_bytes", || {
        let out_requeued = unsafe { Out::new(out_requeued, "out_requeued", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        let (pointers, lens): (&[*const u8], &[usize]) = if ids_len == 0 {
            (&[], &[])
        } else if ids.is_null() {
            return Err(Failure::Null("ids".into()));
        } else if id_lens.is_null() {
            return Err(Failure::Null("id_lens".into()));
        } else {
            // SAFETY: `ids_len` readable elements in each array by the caller's contract.
            unsafe {
                (
                    std::slice::from_raw_parts(ids, ids_len),
                    std::slice::from_raw_parts(id_lens, ids_len),
                )
            }
        };
        let mut list = Vec::with_capacity(ids_len);
        for (i, (&p, &len)) in pointers.iter().zip(lens).enumerate() {
            if p.is_null() && len > 0 {
                return Err(Failure::Null(format!("ids[{i}]").into()));
            }
            list.push(unsafe { bytes(p, len, "ids") }?);
        }
        out_requeued.required()?;
        out_requeued.set(queue.inner.dead_requeue(&list)?);
        Ok(())
    })
}
