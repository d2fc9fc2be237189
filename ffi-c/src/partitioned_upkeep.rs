//! A partitioned queue's figures, configuration and cleans (spec/PROTOCOL.md 5.25, "Reading the
//! logical queue"): whether it exists, its lengths and counts by name over every partition,
//! the configuration `leaseq_partitioned_set_config` gave every partition, and the light and
//! deep cleans of every partition. The results are the queue's C types and conversions
//! (`config.rs`, `job.rs`, `queue.rs`).

use crate::config::config_out;
use crate::guard::{arg, call, Out};
use crate::job::leaseq_name_counts;
use crate::options::leaseq_config;
use crate::partitioned::leaseq_partitioned;
use crate::queue::leaseq_clean_report;
use crate::status::leaseq_status;

/// Sets `*out_exists` to whether the logical queue exists: whether any partition does, as
/// `leaseq_queue_exists` reads each (any of its fixed keys). False for a partitioned queue
/// created and never used, whose layout under the base is all there is. One round trip to
/// every partition at once.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_exists`;
/// LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_exists` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_exists(
    partitioned: *const leaseq_partitioned,
    out_exists: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_exists", || {
        let out = unsafe { Out::new(out_exists, "out_exists", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        out.set(p.inner.exists()?);
        Ok(())
    })
}

/// Sets `*out_len` to how many items wait in the logical queue, at every priority: each
/// partition's `leaseq_queue_len`, summed. One round trip to every partition at once.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_len`;
/// LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_queue_len(
    partitioned: *const leaseq_partitioned,
    out_len: *mut u64,
) -> leaseq_status {
    call("leaseq_partitioned_queue_len", || {
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out_len.required()?;
        out_len.set(p.inner.queue_len()?);
        Ok(())
    })
}

/// Sets `*out_len` to how many items of the logical queue are being processed: each
/// partition's `leaseq_queue_processing_len` (leased by leaseq, plus the ids in
/// redis-work-queue's processing list), summed. One round trip to every partition at once.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_len`;
/// LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_processing_len(
    partitioned: *const leaseq_partitioned,
    out_len: *mut u64,
) -> leaseq_status {
    call("leaseq_partitioned_processing_len", || {
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out_len.required()?;
        out_len.set(p.inner.processing_len()?);
        Ok(())
    })
}

/// Sets `*out_counts` to what each kind of job did in the last hour over the logical queue:
/// each partition's `leaseq_queue_counts_by_name`, summed by name, sorted by name as a queue's
/// are (at most 1000); or to NULL while no partition counts (`LEASEQ_CONFIG_STATS` off). One round trip to
/// every partition at once.
///
/// `*out_counts`, when not NULL, is a new handle owned by the caller (possibly with no entry):
/// read it with `leaseq_name_counts_entries` and free it with `leaseq_name_counts_free`.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_counts`;
/// LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_counts` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_counts_by_name(
    partitioned: *const leaseq_partitioned,
    out_counts: *mut *mut leaseq_name_counts,
) -> leaseq_status {
    call("leaseq_partitioned_counts_by_name", || {
        let out_counts = unsafe { Out::new(out_counts, "out_counts", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out_counts.required()?;
        if let Some(counts) = p.inner.counts_by_name()? {
            out_counts.set(leaseq_name_counts::new(counts));
        }
        Ok(())
    })
}

/// Reads the logical queue's stored configuration into `*out_config`, as `leaseq_queue_config`
/// reads a queue's: partition 0's, which `leaseq_partitioned_set_config` writes to every
/// partition alike (read a partition's own through `leaseq_partitioned_partition` when one was
/// set alone). The caller sets `struct_size` first (`leaseq_config out = LEASEQ_CONFIG_INIT;`):
/// only the fields that fit in it are written. `set` names the fields that are stored; the
/// others are 0, and the protocol's defaults apply to them. One round trip.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_config`;
/// LEASEQ_INVALID_ARGUMENT naming `out_config.struct_size` (too small), before anything is
/// sent; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_config` is NULL or points to a `leaseq_config`
/// of `struct_size` writable bytes with `struct_size` set.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_config(
    partitioned: *const leaseq_partitioned,
    out_config: *mut leaseq_config,
) -> leaseq_status {
    call("leaseq_partitioned_config", || {
        let p = unsafe { arg(partitioned, "partitioned") }?;
        unsafe { config_out(out_config, || p.inner.config()) }
    })
}

/// A light clean of every partition, as `leaseq_queue_light_clean` cleans a queue, all at
/// once; fills `*out_report` with the reports summed. Leases do the clean's main work
/// themselves, so a logical queue with workers needs no cleaner; run it where nobody leases.
/// One round trip to every partition at once (each clean runs server-side in batches).
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_report`;
/// LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_report` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_light_clean(
    partitioned: *const leaseq_partitioned,
    out_report: *mut leaseq_clean_report,
) -> leaseq_status {
    call("leaseq_partitioned_light_clean", || {
        let out_report =
            unsafe { Out::new(out_report, "out_report", leaseq_clean_report::default()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out_report.required()?;
        out_report.set(p.inner.light_clean()?.into());
        Ok(())
    })
}

/// A deep clean of every partition, as `leaseq_queue_deep_clean` cleans a queue, one partition
/// after another (each walks the keys of its partition's server with SCAN: run it rarely);
/// fills `*out_report` with the reports summed.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_report`;
/// LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED (the partitions cleaned before the error
/// stay cleaned).
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_report` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_deep_clean(
    partitioned: *const leaseq_partitioned,
    out_report: *mut leaseq_clean_report,
) -> leaseq_status {
    call("leaseq_partitioned_deep_clean", || {
        let out_report =
            unsafe { Out::new(out_report, "out_report", leaseq_clean_report::default()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out_report.required()?;
        out_report.set(p.inner.deep_clean()?.into());
        Ok(())
    })
}
