//! A partitioned queue's groups (spec/PROTOCOL.md 5.20, 5.25): each call goes to the group's
//! partition, where all its items live. The conversions are the queue's (`queue.rs`).

use std::ffi::c_char;

use crate::guard::{arg, call, text, Out};
use crate::options;
use crate::partitioned::leaseq_partitioned;
use crate::queue::{group_limit, leaseq_group_info};
use crate::status::leaseq_status;

/// Pauses group `group` (NUL-terminated UTF-8) in its partition, as `leaseq_queue_pause_group`
/// does: the rest of the logical queue goes on. Sets `*out_was_running` to whether it was
/// running. One round trip.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `group` is NULL or a NUL-terminated string;
/// `out_was_running` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_pause_group(
    partitioned: *const leaseq_partitioned,
    group: *const c_char,
    out_was_running: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_pause_group", || {
        let out = unsafe { Out::new(out_was_running, "out_was_running", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let group = unsafe { text(group, "group") }?;
        out.required()?;
        out.set(p.inner.pause_group(group)?);
        Ok(())
    })
}

/// Resumes group `group` in its partition. Sets `*out_was_paused` to whether it was paused.
/// One round trip.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `group` is NULL or a NUL-terminated string;
/// `out_was_paused` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_resume_group(
    partitioned: *const leaseq_partitioned,
    group: *const c_char,
    out_was_paused: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_resume_group", || {
        let out = unsafe { Out::new(out_was_paused, "out_was_paused", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let group = unsafe { text(group, "group") }?;
        out.required()?;
        out.set(p.inner.resume_group(group)?);
        Ok(())
    })
}

/// Sets group `group`'s limit in its partition, as `leaseq_queue_set_group_limit` does
/// (`limit` 1 to 1000, or -1 for the queue's `group_concurrency`). One round trip.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `group` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_set_group_limit(
    partitioned: *const leaseq_partitioned,
    group: *const c_char,
    limit: i64,
) -> leaseq_status {
    call("leaseq_partitioned_set_group_limit", || {
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let group = unsafe { text(group, "group") }?;
        p.inner.set_group_limit(group, group_limit(limit)?)?;
        Ok(())
    })
}

/// Holds group `group`'s leases off for `duration_ms` in its partition, as
/// `leaseq_queue_rate_limit_group` does. Sets `*out_held_ms` to how long. One round trip.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `group` is NULL or a NUL-terminated string;
/// `out_held_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_rate_limit_group(
    partitioned: *const leaseq_partitioned,
    group: *const c_char,
    duration_ms: i64,
    out_held_ms: *mut i64,
) -> leaseq_status {
    call("leaseq_partitioned_rate_limit_group", || {
        let out = unsafe { Out::new(out_held_ms, "out_held_ms", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let group = unsafe { text(group, "group") }?;
        out.required()?;
        let duration = options::millis_arg("duration_ms", duration_ms)?;
        let held = p.inner.rate_limit_group(group, duration)?;
        out.set(i64::try_from(held.as_millis()).unwrap_or(i64::MAX));
        Ok(())
    })
}

/// Fills `*out_info` with group `group` as its partition, which holds all of it, knows it (as
/// `leaseq_queue_group`). One round trip.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `group` is NULL or a NUL-terminated string;
/// `out_info` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_group(
    partitioned: *const leaseq_partitioned,
    group: *const c_char,
    out_info: *mut leaseq_group_info,
) -> leaseq_status {
    call("leaseq_partitioned_group", || {
        let out = unsafe { Out::new(out_info, "out_info", leaseq_group_info::default()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let group = unsafe { text(group, "group") }?;
        out.required()?;
        out.set(p.inner.group(group)?.into());
        Ok(())
    })
}
