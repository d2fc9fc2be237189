//! `leaseq_lease`: what a worker holds while it works on an item.

use std::ffi::{c_char, CString};

use leaseq::Lease;

use crate::guard::{arg, c_string, call, call_quiet, Out};
use crate::options::leaseq_backoff;
use crate::status::leaseq_status;

/// A leased item: its id, data, lease token, attempt number and incarnation (opaque). Pass it
/// back to `leaseq_queue_complete` (or `_with_result`), `leaseq_queue_complete_and_lease`,
/// `leaseq_queue_fail`, `leaseq_queue_release`, `leaseq_queue_renew` (or `_outcome`),
/// `leaseq_queue_progress` or a batch of them (`leaseq_queue_complete_batch`,
/// `leaseq_queue_renew_batch`, `leaseq_queue_fail_batch`,
/// `leaseq_queue_complete_and_lease_batch`) of the queue it came from.
///
/// Thread safety: immutable once made; may be read and passed to calls from several threads at
/// once (e.g. one thread renews while another works on the data). Made by `leaseq_queue_lease`,
/// `leaseq_queue_lease_with_options`, `leaseq_queue_lease_batch`,
/// `leaseq_queue_complete_and_lease`, `leaseq_queue_complete_and_lease_batch` or
/// `leaseq_queue_lease_from_parts`, released by
/// `leaseq_lease_free`. Freeing it does not complete or release the item in Redis.
#[allow(non_camel_case_types)]
pub struct leaseq_lease {
    pub(crate) inner: Lease,
    id: CString,
    token: CString,
    incarnation: CString,
    /// The item's data followed by one NUL byte that is not part of it.
    data: Vec<u8>,
    /// The item's name (`LEASEQ_ADD_NAME`), when it has one.
    name: Option<CString>,
}

impl leaseq_lease {
    pub(crate) fn new(mut inner: Lease) -> *mut leaseq_lease {
        let id = c_string(inner.id());
        let token = c_string(inner.token());
        let incarnation = c_string(inner.incarnation());
        let name = inner.name().map(c_string);
        let mut data = inner.take_data();
        data.push(0);
        Box::into_raw(Box::new(leaseq_lease {
            inner,
            id,
            token,
            incarnation,
            data,
            name,
        }))
    }
}

/// Sets `*out_id` to the leased item's id (NUL-terminated UTF-8; a NUL byte inside an id, which
/// only a non-leaseq client could write, is shown as U+FFFD, and the lease still completes the
/// right item).
///
/// The string belongs to the lease: valid until `leaseq_lease_free`; do not free it.
///
/// # Safety
/// `lease` is NULL or a live lease; `out_id` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_id(
    lease: *const leaseq_lease,
    out_id: *mut *const c_char,
) -> leaseq_status {
    call("leaseq_lease_id", || {
        let out_id = unsafe { Out::new(out_id, "out_id", std::ptr::null()) };
        let lease = unsafe { arg(lease, "lease") }?;
        out_id.required()?;
        out_id.set(lease.id.as_ptr());
        Ok(())
    })
}

/// Sets `*out_name` to the leased item's name (NUL-terminated UTF-8; `LEASEQ_ADD_NAME`): what
/// kind of job it is, so that a worker picks the code to run; NULL when the item has none (and
/// for a lease rebuilt with `leaseq_queue_lease_from_parts`).
///
/// The string belongs to the lease: valid until `leaseq_lease_free`; do not free it.
///
/// # Safety
/// `lease` is NULL or a live lease; `out_name` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_name(
    lease: *const leaseq_lease,
    out_name: *mut *const c_char,
) -> leaseq_status {
    call("leaseq_lease_name", || {
        let out_name = unsafe { Out::new(out_name, "out_name", std::ptr::null()) };
        let lease = unsafe { arg(lease, "lease") }?;
        out_name.required()?;
        out_name.set(lease.name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()));
        Ok(())
    })
}

/// Sets `*out_data` and `*out_len` to the leased item's data: any bytes, NUL included.
///
/// The buffer belongs to the lease: valid until `leaseq_lease_free`; do not free it. It is
/// never NULL, and one NUL byte follows its `*out_len` bytes (not counted), so text data can be
/// used as a C string as it is.
///
/// # Safety
/// `lease` is NULL or a live lease; `out_data` and `out_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_data(
    lease: *const leaseq_lease,
    out_data: *mut *const u8,
    out_len: *mut usize,
) -> leaseq_status {
    call("leaseq_lease_data", || {
        let out_data = unsafe { Out::new(out_data, "out_data", std::ptr::null()) };
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let lease = unsafe { arg(lease, "lease") }?;
        out_data.required()?;
        out_len.required()?;
        out_data.set(lease.data.as_ptr());
        out_len.set(lease.data.len() - 1);
        Ok(())
    })
}

/// Sets `*out_token` to the lease's token (NUL-terminated ASCII): random and unique to this
/// lease; renewing checks it. Keep it with the id, the incarnation and the attempt to rebuild
/// the lease elsewhere with `leaseq_queue_lease_from_parts`.
///
/// The string belongs to the lease: valid until `leaseq_lease_free`; do not free it.
///
/// # Safety
/// `lease` is NULL or a live lease; `out_token` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_token(
    lease: *const leaseq_lease,
    out_token: *mut *const c_char,
) -> leaseq_status {
    call("leaseq_lease_token", || {
        let out_token = unsafe { Out::new(out_token, "out_token", std::ptr::null()) };
        let lease = unsafe { arg(lease, "lease") }?;
        out_token.required()?;
        out_token.set(lease.token.as_ptr());
        Ok(())
    })
}

/// Sets `*out_count` to how many times the item has been leased, this lease included (1 on the
/// first lease). A count above 1 means an earlier attempt failed, or its holder let the lease
/// expire or crashed. Also `leaseq_lease_attempt`.
///
/// # Safety
/// `lease` is NULL or a live lease; `out_count` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_count(
    lease: *const leaseq_lease,
    out_count: *mut u64,
) -> leaseq_status {
    call("leaseq_lease_count", || {
        let out_count = unsafe { Out::new(out_count, "out_count", 0) };
        let lease = unsafe { arg(lease, "lease") }?;
        out_count.required()?;
        out_count.set(lease.inner.count());
        Ok(())
    })
}

/// Sets `*out_id` and `*out_len` to the leased item's id exactly as Redis holds it: the same as
/// `leaseq_lease_id` except for an id that is not UTF-8 or holds a NUL byte (which only another
/// kind of client can add), where these are its true bytes.
///
/// The buffer belongs to the lease: valid until `leaseq_lease_free`; do not free it. It is
/// never NULL.
///
/// # Safety
/// `lease` is NULL or a live lease; `out_id` and `out_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_id_bytes(
    lease: *const leaseq_lease,
    out_id: *mut *const u8,
    out_len: *mut usize,
) -> leaseq_status {
    call("leaseq_lease_id_bytes", || {
        let out_id = unsafe { Out::new(out_id, "out_id", std::ptr::null()) };
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let lease = unsafe { arg(lease, "lease") }?;
        out_id.required()?;
        out_len.required()?;
        let bytes = lease.inner.id_bytes();
        // A non-NULL pointer even for an empty slice (never the case for a real id).
        out_id.set(if bytes.is_empty() {
            c"".as_ptr().cast()
        } else {
            bytes.as_ptr()
        });
        out_len.set(bytes.len());
        Ok(())
    })
}

/// Sets `*out_attempt` to the attempt number: how many times the item has been leased, this
/// lease included (1 on the first lease); the same as `leaseq_lease_count`. Above 1, an earlier
/// attempt failed or its holder let the lease expire.
///
/// # Safety
/// `lease` is NULL or a live lease; `out_attempt` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_attempt(
    lease: *const leaseq_lease,
    out_attempt: *mut u64,
) -> leaseq_status {
    call("leaseq_lease_attempt", || {
        let out_attempt = unsafe { Out::new(out_attempt, "out_attempt", 0) };
        let lease = unsafe { arg(lease, "lease") }?;
        out_attempt.required()?;
        out_attempt.set(lease.inner.attempt());
        Ok(())
    })
}

/// Sets `*out_incarnation` and `*out_len` to the item's incarnation: a value that changes each
/// time the id is added anew (after a complete, say). A lease of an older incarnation can no
/// longer complete, fail, release, renew or report progress on the item. Keep it with the id,
/// token and attempt to rebuild the lease elsewhere with `leaseq_queue_lease_from_parts`.
///
/// The string belongs to the lease: valid until `leaseq_lease_free`; do not free it. It is
/// NUL-terminated text (the NUL not counted in `*out_len`), so it can be passed on as it is.
///
/// # Safety
/// `lease` is NULL or a live lease; `out_incarnation` and `out_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_incarnation(
    lease: *const leaseq_lease,
    out_incarnation: *mut *const c_char,
    out_len: *mut usize,
) -> leaseq_status {
    call("leaseq_lease_incarnation", || {
        let out_incarnation =
            unsafe { Out::new(out_incarnation, "out_incarnation", std::ptr::null()) };
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let lease = unsafe { arg(lease, "lease") }?;
        out_incarnation.required()?;
        out_len.required()?;
        out_incarnation.set(lease.incarnation.as_ptr());
        out_len.set(lease.incarnation.as_bytes().len());
        Ok(())
    })
}

/// Sets `*out_max_attempts` to the attempts after which the item is dead instead of retried
/// (0: no limit), as the item or its queue's configuration said when it was leased. A lease
/// rebuilt with `leaseq_queue_lease_from_parts` reports the protocol's default.
///
/// # Safety
/// `lease` is NULL or a live lease; `out_max_attempts` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_max_attempts(
    lease: *const leaseq_lease,
    out_max_attempts: *mut u32,
) -> leaseq_status {
    call("leaseq_lease_max_attempts", || {
        let out_max_attempts = unsafe { Out::new(out_max_attempts, "out_max_attempts", 0) };
        let lease = unsafe { arg(lease, "lease") }?;
        out_max_attempts.required()?;
        out_max_attempts.set(lease.inner.max_attempts());
        Ok(())
    })
}

/// Fills `*out_backoff` with the item's backoff: how long it waits after a failed attempt
/// (`leaseq_queue_fail` with `LEASEQ_RETRY_DEFAULT` uses it). A lease rebuilt with
/// `leaseq_queue_lease_from_parts` reports the protocol's default.
///
/// # Safety
/// `lease` is NULL or a live lease; `out_backoff` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_backoff(
    lease: *const leaseq_lease,
    out_backoff: *mut leaseq_backoff,
) -> leaseq_status {
    call("leaseq_lease_backoff", || {
        let out_backoff =
            unsafe { Out::new(out_backoff, "out_backoff", leaseq_backoff::default()) };
        let lease = unsafe { arg(lease, "lease") }?;
        out_backoff.required()?;
        out_backoff.set(leaseq_backoff::from_core(lease.inner.backoff()));
        Ok(())
    })
}

/// Frees a lease handle. NULL is accepted and ignored. This only releases memory: the item
/// stays leased in Redis until completed or until its lease expires. Strings and data obtained
/// from the lease become invalid.
///
/// # Safety
/// `lease` is NULL or a live lease that no other call is using, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_free(lease: *mut leaseq_lease) {
    call_quiet((), || {
        if !lease.is_null() {
            // SAFETY: made by Box::into_raw in this crate and freed once, by contract.
            drop(unsafe { Box::from_raw(lease) });
        }
    })
}

/// Frees an array of leases from `leaseq_queue_lease_batch` or
/// `leaseq_queue_complete_and_lease_batch`: each lease in it (as
/// `leaseq_lease_free`; NULL elements are skipped, so a caller may keep a lease beyond the
/// array by taking it out and setting its element to NULL) and the array itself. `leases` NULL
/// is accepted and ignored. `len` must be the length the batch call gave.
///
/// # Safety
/// `leases` is NULL or an array from a batch lease with its `len`, freed only once,
/// whose non-NULL elements are live leases no other call is using.
#[no_mangle]
pub unsafe extern "C" fn leaseq_lease_array_free(leases: *mut *mut leaseq_lease, len: usize) {
    call_quiet((), || {
        if leases.is_null() {
            return;
        }
        // SAFETY: made by Box::<[_]>::into_raw with this length in this crate, freed once.
        let array = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(leases, len)) };
        for &lease in array.iter() {
            unsafe { leaseq_lease_free(lease) };
        }
    })
}

/// An owned array of new leases for C: NULL when empty; freed by `leaseq_lease_array_free`.
pub(crate) fn lease_array(leases: Vec<Lease>) -> (*mut *mut leaseq_lease, usize) {
    if leases.is_empty() {
        return (std::ptr::null_mut(), 0);
    }
    let array: Box<[*mut leaseq_lease]> = leases.into_iter().map(leaseq_lease::new).collect();
    let len = array.len();
    (Box::into_raw(array).cast::<*mut leaseq_lease>(), len)
}
