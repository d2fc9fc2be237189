//! `leaseq_lease`: what a worker holds while it works on an item.

use std::ffi::{c_char, CString};

use leaseq::Lease;

use crate::guard::{arg, c_string, call, call_quiet, Out};
use crate::status::leaseq_status;

/// A leased item: its id, data, lease token and lease count (opaque). Pass it back to
/// `leaseq_queue_complete`, `leaseq_queue_complete_and_lease` or `leaseq_queue_renew`.
///
/// Thread safety: immutable once made; may be read and passed to calls from several threads at
/// once (e.g. one thread renews while another works on the data). Made by `leaseq_queue_lease`,
/// `leaseq_queue_complete_and_lease` or `leaseq_queue_lease_from_parts`, released by
/// `leaseq_lease_free`. Freeing it does not complete or release the item in Redis.
#[allow(non_camel_case_types)]
pub struct leaseq_lease {
    pub(crate) inner: Lease,
    id: CString,
    token: CString,
    /// The item's data followed by one NUL byte that is not part of it.
    data: Vec<u8>,
}

impl leaseq_lease {
    pub(crate) fn new(mut inner: Lease) -> *mut leaseq_lease {
        let id = c_string(inner.id());
        let token = c_string(inner.token());
        let mut data = inner.take_data();
        data.push(0);
        Box::into_raw(Box::new(leaseq_lease {
            inner,
            id,
            token,
            data,
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
/// lease; renewing checks it. Keep it with the id to rebuild the lease elsewhere with
/// `leaseq_queue_lease_from_parts`.
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
/// first lease). A count above 1 means an earlier holder let its lease expire or crashed.
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
