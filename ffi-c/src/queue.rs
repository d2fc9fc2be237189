//! `leaseq_queue`: the operations of the protocol on one prefix.

use std::ffi::{c_char, CString};
use std::time::Duration;

use leaseq::{blocking, policy, ttl_from_millis, CleanReport, Item, RenewOutcome, Wait};

use crate::guard::{arg, bytes, call, call_quiet, text, Failure, Out};
use crate::item::leaseq_item;
use crate::lease::{lease_array, leaseq_lease};
use crate::options::{self, leaseq_add_options, leaseq_lease_options};
use crate::status::leaseq_status;

/// One queue: the keys under one prefix (opaque).
///
/// Thread safety: a queue may be used from any number of threads at once; each call blocks only
/// its calling thread (four threads leasing from one queue is fine and each item goes to one of
/// them). Made by `leaseq_client_queue`, released by `leaseq_queue_free`.
#[allow(non_camel_case_types)]
pub struct leaseq_queue {
    pub(crate) inner: blocking::Queue,
    prefix: CString,
}

impl leaseq_queue {
    pub(crate) fn new(inner: blocking::Queue) -> *mut leaseq_queue {
        let prefix = crate::guard::c_string(inner.prefix());
        Box::into_raw(Box::new(leaseq_queue { inner, prefix }))
    }
}

/// What a clean did (a plain struct, filled by `leaseq_queue_light_clean` and
/// `leaseq_queue_deep_clean`, and summed over the partitions by `leaseq_partitioned_light_clean`
/// and `leaseq_partitioned_deep_clean`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct leaseq_clean_report {
    /// Items put back in the queue (their lease expired or was never set, or they were on no
    /// list at all).
    pub requeued: u64,
    /// Stale entries removed: ids of complete items, duplicate ids, orphaned lease counts.
    pub removed: u64,
    /// Delayed items that were due, moved to waiting.
    pub promoted: u64,
    /// Items whose last lease expired with no attempts left, moved to dead.
    pub dead: u64,
}

impl From<CleanReport> for leaseq_clean_report {
    fn from(r: CleanReport) -> leaseq_clean_report {
        leaseq_clean_report {
            requeued: r.requeued,
            removed: r.removed,
            promoted: r.promoted,
            dead: r.dead,
        }
    }
}

/// What `leaseq_queue_renew_outcome` found (and why `leaseq_queue_fail` found the lease not
/// held): one of the `LEASEQ_RENEW_*` values. Values never change meaning; new ones may come.
#[allow(non_camel_case_types)]
pub type leaseq_renew_outcome = i32;

/// The lease was this holder's and now lasts the new TTL.
pub const LEASEQ_RENEW_RENEWED: leaseq_renew_outcome = 0;
/// The lease expired and nobody holds the item now; a light clean will queue it again.
pub const LEASEQ_RENEW_EXPIRED: leaseq_renew_outcome = 1;
/// Another holder leased the item after this lease expired.
pub const LEASEQ_RENEW_TAKEN_BY_ANOTHER: leaseq_renew_outcome = 2;
/// The item is complete (or gone).
pub const LEASEQ_RENEW_COMPLETED: leaseq_renew_outcome = 3;
/// The item was cancelled while leased (`leaseq_queue_cancel`).
pub const LEASEQ_RENEW_CANCELLED: leaseq_renew_outcome = 4;
/// The id was completed and added again: this lease belongs to an older incarnation.
pub const LEASEQ_RENEW_OLDER_INCARNATION: leaseq_renew_outcome = 5;

/// The C value of a renew outcome. An outcome this layer does not know is a bug in leaseq: the
/// panic becomes `LEASEQ_INTERNAL` at the boundary.
pub(crate) fn renew_outcome_to_c(outcome: RenewOutcome) -> leaseq_renew_outcome {
    match outcome {
        RenewOutcome::Renewed => LEASEQ_RENEW_RENEWED,
        RenewOutcome::Expired => LEASEQ_RENEW_EXPIRED,
        RenewOutcome::TakenByAnother => LEASEQ_RENEW_TAKEN_BY_ANOTHER,
        RenewOutcome::Completed => LEASEQ_RENEW_COMPLETED,
        RenewOutcome::Cancelled => LEASEQ_RENEW_CANCELLED,
        RenewOutcome::OlderIncarnation => LEASEQ_RENEW_OLDER_INCARNATION,
        other => panic!("the C layer has no value for the renew outcome `{other:?}`"),
    }
}

/// The name of a renew outcome: `"renewed"`, `"expired"`, `"taken"`, `"completed"`,
/// `"cancelled"`, `"older_incarnation"` (the names every leaseq binding uses), or `"unknown"`.
///
/// Never NULL. The string is static: do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn leaseq_renew_outcome_str(outcome: leaseq_renew_outcome) -> *const c_char {
    call_quiet(c"unknown".as_ptr(), || {
        // The core's names (RenewOutcome::as_str), as static C strings; a test holds them equal.
        match outcome {
            LEASEQ_RENEW_RENEWED => c"renewed",
            LEASEQ_RENEW_EXPIRED => c"expired",
            LEASEQ_RENEW_TAKEN_BY_ANOTHER => c"taken",
            LEASEQ_RENEW_COMPLETED => c"completed",
            LEASEQ_RENEW_CANCELLED => c"cancelled",
            LEASEQ_RENEW_OLDER_INCARNATION => c"older_incarnation",
            _ => c"unknown",
        }
        .as_ptr()
    })
}

/// A lease wait: negative waits forever, 0 not at all, otherwise up to that many milliseconds.
pub(crate) fn wait(timeout_ms: i64) -> Wait {
    match timeout_ms {
        ms if ms < 0 => Wait::Forever,
        0 => Wait::No,
        ms => Wait::Timeout(Duration::from_millis(ms as u64)),
    }
}

/// Sets `*out_prefix` to the queue's prefix.
///
/// The string belongs to the queue: valid until `leaseq_queue_free`; do not free it.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_prefix` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_prefix(
    queue: *const leaseq_queue,
    out_prefix: *mut *const c_char,
) -> leaseq_status {
    call("leaseq_queue_prefix", || {
        let out_prefix = unsafe { Out::new(out_prefix, "out_prefix", std::ptr::null()) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_prefix.required()?;
        out_prefix.set(queue.prefix.as_ptr());
        Ok(())
    })
}

/// Adds `item` unless an item with its id exists (waiting, delayed, leased or dead), and sets
/// `*out_added` to whether it was added. Storing the data and queueing the id happen in one
/// script, so no crash leaves one without the other. One round trip. The item is only read: the
/// caller still owns it. `leaseq_queue_add_with_options` adds with a delay, a priority...
///
/// # Safety
/// `queue` and `item` are NULL or live handles; `out_added` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_add(
    queue: *const leaseq_queue,
    item: *const leaseq_item,
    out_added: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_add", || {
        let out_added = unsafe { Out::new(out_added, "out_added", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let item = unsafe { arg(item, "item") }?;
        out_added.required()?;
        out_added.set(queue.inner.add(&item.inner)?);
        Ok(())
    })
}

/// Adds `item` without checking whether its id exists: the caller guarantees a fresh id (the
/// random id of `leaseq_item_new` is). Adding an existing id overwrites its data and queues it
/// twice. One round trip. The item is only read: the caller still owns it.
///
/// # Safety
/// `queue` and `item` are NULL or live handles.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_add_unique(
    queue: *const leaseq_queue,
    item: *const leaseq_item,
) -> leaseq_status {
    call("leaseq_queue_add_unique", || {
        let queue = unsafe { arg(queue, "queue") }?;
        let item = unsafe { arg(item, "item") }?;
        queue.inner.add_unique(&item.inner)?;
        Ok(())
    })
}

/// Adds every item of the array `items` (`items_len` item pointers) whose id does not exist
/// yet, as `leaseq_queue_add` would, and sets `*out_added` to how many were added. One round
/// trip for the whole batch; each item is added atomically. `items` may be NULL when
/// `items_len` is 0 (nothing is sent). A NULL element gives `LEASEQ_NULL_ARGUMENT` naming it
/// (`items[i]`) and adds nothing. The items are only read: the caller still owns them.
///
/// # Safety
/// `queue` is NULL or a live queue; `items` is NULL or points to `items_len` pointers, each
/// NULL or a live item; `out_added` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_add_batch(
    queue: *const leaseq_queue,
    items: *const *const leaseq_item,
    items_len: usize,
    out_added: *mut usize,
) -> leaseq_status {
    call("leaseq_queue_add_batch", || {
        let out_added = unsafe { Out::new(out_added, "out_added", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        let pointers: &[*const leaseq_item] = if items_len == 0 {
            &[]
        } else if items.is_null() {
            return Err(Failure::Null("items".into()));
        } else {
            // SAFETY: `items_len` readable pointers by the caller's contract.
            unsafe { std::slice::from_raw_parts(items, items_len) }
        };
        out_added.required()?;
        let batch = unsafe { batch_items(pointers, std::ptr::null()) }?;
        out_added.set(queue.inner.add_batch(&batch)?);
        Ok(())
    })
}

/// The items of a batch, each with its options (`options` NULL: none has any).
///
/// # Safety
/// Each pointer is NULL or a live item; `options` is NULL or points to `pointers.len()`
/// pointers, each NULL or a live options struct.
pub(crate) unsafe fn batch_items(
    pointers: &[*const leaseq_item],
    options: *const *const leaseq_add_options,
) -> Result<Vec<Item>, Failure> {
    let options: &[*const leaseq_add_options] = if options.is_null() || pointers.is_empty() {
        &[]
    } else {
        // SAFETY: as many readable pointers as items by the caller's contract.
        unsafe { std::slice::from_raw_parts(options, pointers.len()) }
    };
    let mut batch: Vec<Item> = Vec::with_capacity(pointers.len());
    for (i, &p) in pointers.iter().enumerate() {
        // SAFETY: NULL or a live item by the caller's contract.
        let item =
            unsafe { p.as_ref() }.ok_or_else(|| Failure::Null(format!("items[{i}]").into()))?;
        let name = format!("options[{i}]");
        let opts = match options.get(i) {
            // SAFETY: NULL or a live options struct by the caller's contract.
            Some(&o) => unsafe { options::read(o, &name) }?,
            None => None,
        };
        batch.push(match opts {
            // SAFETY: its `group` is a string by the caller's contract.
            Some(o) => unsafe { o.apply(item.inner.clone(), &name) }?,
            None => item.inner.clone(),
        });
    }
    Ok(batch)
}

/// `item` with `options` applied (NULL: as it is).
///
/// # Safety
/// `options` is NULL or a live options struct of `struct_size` readable bytes (its `group` a
/// NUL-terminated string when `LEASEQ_ADD_GROUP` is set).
pub(crate) unsafe fn item_with(
    item: &leaseq_item,
    options: *const leaseq_add_options,
) -> Result<Item, Failure> {
    match unsafe { options::read(options, "options") }? {
        // SAFETY: its `group` is a string by the caller's contract.
        Some(o) => unsafe { o.apply(item.inner.clone(), "options") },
        None => Ok(item.inner.clone()),
    }
}

/// `leaseq_queue_add` with options: a delay or a due time, a priority, max attempts, a
/// backoff, an expiry, how long to keep its result (`leaseq_add_options`; NULL: none). Options
/// are checked before anything is sent: a bad one gives `LEASEQ_INVALID_ARGUMENT` naming it
/// (e.g. `options.priority`) and writes nothing. The item and options are only read.
///
/// # Safety
/// `queue` and `item` are NULL or live handles; `options` is NULL or points to a
/// `leaseq_add_options` of `struct_size` readable bytes; `out_added` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_add_with_options(
    queue: *const leaseq_queue,
    item: *const leaseq_item,
    options: *const leaseq_add_options,
    out_added: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_add_with_options", || {
        let out_added = unsafe { Out::new(out_added, "out_added", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let item = unsafe { arg(item, "item") }?;
        out_added.required()?;
        let item = unsafe { item_with(item, options) }?;
        out_added.set(queue.inner.add(&item)?);
        Ok(())
    })
}

/// `leaseq_queue_add_unique` with options (`leaseq_add_options`; NULL: none), checked as
/// `leaseq_queue_add_with_options` checks them.
///
/// # Safety
/// `queue` and `item` are NULL or live handles; `options` is NULL or points to a
/// `leaseq_add_options` of `struct_size` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_add_unique_with_options(
    queue: *const leaseq_queue,
    item: *const leaseq_item,
    options: *const leaseq_add_options,
) -> leaseq_status {
    call("leaseq_queue_add_unique_with_options", || {
        let queue = unsafe { arg(queue, "queue") }?;
        let item = unsafe { arg(item, "item") }?;
        let item = unsafe { item_with(item, options) }?;
        queue.inner.add_unique(&item)?;
        Ok(())
    })
}

/// `leaseq_queue_add_batch` with options per item: `options` is an array of `items_len`
/// pointers, `options[i]` for `items[i]` (NULL: that item has none; `options` itself NULL: no
/// item has any). A refused option gives `LEASEQ_INVALID_ARGUMENT` naming it and adds
/// nothing: a field out of its C range with its index (`options[2].expires_after_ms`), a value
/// out of the queue's bounds with its item's id (`items`: "item `b`: priority ..."). Still one
/// round trip for the whole batch.
///
/// # Safety
/// `queue` is NULL or a live queue; `items` is NULL or points to `items_len` pointers, each
/// NULL or a live item; `options` is NULL or points to `items_len` pointers, each NULL or a
/// `leaseq_add_options` of `struct_size` readable bytes; `out_added` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_add_batch_with_options(
    queue: *const leaseq_queue,
    items: *const *const leaseq_item,
    options: *const *const leaseq_add_options,
    items_len: usize,
    out_added: *mut usize,
) -> leaseq_status {
    call("leaseq_queue_add_batch_with_options", || {
        let out_added = unsafe { Out::new(out_added, "out_added", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        let pointers: &[*const leaseq_item] = if items_len == 0 {
            &[]
        } else if items.is_null() {
            return Err(Failure::Null("items".into()));
        } else {
            // SAFETY: `items_len` readable pointers by the caller's contract.
            unsafe { std::slice::from_raw_parts(items, items_len) }
        };
        out_added.required()?;
        let batch = unsafe { batch_items(pointers, options) }?;
        out_added.set(queue.inner.add_batch(&batch)?);
        Ok(())
    })
}

/// `leaseq_queue_add_with_options` that waits for room in a bounded queue
/// (`leaseq_config.capacity`): when the queue is full, `timeout_ms` 0 gives `LEASEQ_FULL` at
/// once (as `leaseq_queue_add` does), a positive `timeout_ms` waits up to that long for room, a
/// negative one until there is room; then `LEASEQ_FULL`, with nothing added. The wait happens
/// in Redis (a lease that makes room wakes it) and blocks only the calling thread;
/// `leaseq_client_close` from another thread ends it with `LEASEQ_CLOSED`. `options` may be
/// NULL (none). An unbounded queue never waits.
///
/// # Safety
/// `queue` and `item` are NULL or live handles; `options` is NULL or points to a
/// `leaseq_add_options` of `struct_size` readable bytes; `out_added` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_add_with_timeout(
    queue: *const leaseq_queue,
    item: *const leaseq_item,
    options: *const leaseq_add_options,
    timeout_ms: i64,
    out_added: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_add_with_timeout", || {
        let out_added = unsafe { Out::new(out_added, "out_added", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let item = unsafe { arg(item, "item") }?;
        out_added.required()?;
        let item = unsafe { item_with(item, options) }?;
        out_added.set(queue.inner.add_wait(&item, wait(timeout_ms))?);
        Ok(())
    })
}

/// `leaseq_queue_add_batch_with_options` that waits for room for the whole batch, as
/// `leaseq_queue_add_with_timeout` does: a bounded queue takes a batch whole or not at all.
/// `options` may be NULL (no item has any).
///
/// # Safety
/// As `leaseq_queue_add_batch_with_options`.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_add_batch_with_timeout(
    queue: *const leaseq_queue,
    items: *const *const leaseq_item,
    options: *const *const leaseq_add_options,
    items_len: usize,
    timeout_ms: i64,
    out_added: *mut usize,
) -> leaseq_status {
    call("leaseq_queue_add_batch_with_timeout", || {
        let out_added = unsafe { Out::new(out_added, "out_added", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        let pointers: &[*const leaseq_item] = if items_len == 0 {
            &[]
        } else if items.is_null() {
            return Err(Failure::Null("items".into()));
        } else {
            // SAFETY: `items_len` readable pointers by the caller's contract.
            unsafe { std::slice::from_raw_parts(items, items_len) }
        };
        out_added.required()?;
        let batch = unsafe { batch_items(pointers, options) }?;
        out_added.set(queue.inner.add_batch_wait(&batch, wait(timeout_ms))?);
        Ok(())
    })
}

/// Pauses the queue: nothing is leased from it (by any client, in any language) until
/// `leaseq_queue_resume`; adds, completes and renews go on, and what is leased runs to its end.
/// The pause is stored in Redis. Sets `*out_was_running` to whether the queue was running. One
/// round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_was_running` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_pause(
    queue: *const leaseq_queue,
    out_was_running: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_pause", || {
        let out = unsafe { Out::new(out_was_running, "out_was_running", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        out.required()?;
        out.set(queue.inner.pause()?);
        Ok(())
    })
}

/// Resumes a paused queue: waiting leases and runners wake at once. Sets `*out_was_paused` to
/// whether the queue was paused. One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_was_paused` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_resume(
    queue: *const leaseq_queue,
    out_was_paused: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_resume", || {
        let out = unsafe { Out::new(out_was_paused, "out_was_paused", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        out.required()?;
        out.set(queue.inner.resume()?);
        Ok(())
    })
}

/// Sets `*out_paused` to whether the queue is paused (also `leaseq_stats_paused`). One round
/// trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_paused` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_is_paused(
    queue: *const leaseq_queue,
    out_paused: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_is_paused", || {
        let out = unsafe { Out::new(out_paused, "out_paused", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        out.required()?;
        out.set(queue.inner.is_paused()?);
        Ok(())
    })
}

/// Sets `*out_exists` to whether the queue exists: whether any of its fixed keys does (its
/// items' lists, configuration, pause, groups, runners; spec/PROTOCOL.md 5.12). False for a
/// mistyped prefix, where `leaseq_queue_count` and `leaseq_queue_stats` read zeros as for an
/// empty queue. One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_exists` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_exists(
    queue: *const leaseq_queue,
    out_exists: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_exists", || {
        let out = unsafe { Out::new(out_exists, "out_exists", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        out.required()?;
        out.set(queue.inner.exists()?);
        Ok(())
    })
}

/// One group of a queue, as `leaseq_queue_group` reads it (a plain struct of fixed layout
/// within a version; before 1.0 a minor version may add fields).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_group_info {
    /// Its items waiting.
    pub waiting: u64,
    /// Its items leased now.
    pub leased: u64,
    /// How many of its items may be leased at once (its own limit, else the queue's
    /// `group_concurrency`, else 1).
    pub limit: u64,
    /// Whether it is paused (`leaseq_queue_pause_group`).
    pub paused: bool,
    /// While the group is at the groups' rate limit (`LEASEQ_CONFIG_GROUP_RATE_LIMIT`) or held
    /// off (`leaseq_queue_rate_limit_group`), the time left in its window, in ms; -1 otherwise.
    pub rate_limited_for_ms: i64,
}

impl Default for leaseq_group_info {
    /// What a failed `leaseq_queue_group` writes: zeros, and -1 for "not rate limited".
    fn default() -> Self {
        leaseq_group_info {
            waiting: 0,
            leased: 0,
            limit: 0,
            paused: false,
            rate_limited_for_ms: -1,
        }
    }
}

impl From<leaseq::GroupInfo> for leaseq_group_info {
    fn from(g: leaseq::GroupInfo) -> leaseq_group_info {
        leaseq_group_info {
            waiting: g.waiting,
            leased: g.leased,
            limit: g.limit,
            paused: g.paused,
            rate_limited_for_ms: g
                .rate_limited_for
                .map_or(-1, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)),
        }
    }
}

/// A group limit as C passes it: -1 for none, else the limit (which the core bounds).
pub(crate) fn group_limit(limit: i64) -> Result<Option<u32>, Failure> {
    match limit {
        -1 => Ok(None),
        n => u32::try_from(n)
            .map(Some)
            .map_err(|_| Failure::invalid("limit", format!("is {n}: give -1 (none) or 1 to 1000"))),
    }
}

/// Pauses one group (`LEASEQ_ADD_GROUP`; `group` NUL-terminated UTF-8): its items are not
/// leased, by any client, until `leaseq_queue_resume_group`; the rest of the queue goes on.
/// Sets `*out_was_running` to whether it was running. One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `group` is NULL or a NUL-terminated string;
/// `out_was_running` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_pause_group(
    queue: *const leaseq_queue,
    group: *const c_char,
    out_was_running: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_pause_group", || {
        let out = unsafe { Out::new(out_was_running, "out_was_running", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let group = unsafe { text(group, "group") }?;
        out.required()?;
        out.set(queue.inner.pause_group(group)?);
        Ok(())
    })
}

/// Resumes a paused group. Sets `*out_was_paused` to whether it was paused. One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `group` is NULL or a NUL-terminated string;
/// `out_was_paused` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_resume_group(
    queue: *const leaseq_queue,
    group: *const c_char,
    out_was_paused: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_resume_group", || {
        let out = unsafe { Out::new(out_was_paused, "out_was_paused", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let group = unsafe { text(group, "group") }?;
        out.required()?;
        out.set(queue.inner.resume_group(group)?);
        Ok(())
    })
}

/// Sets how many items of `group` may be leased at once, for every client: `limit` 1 to 1000,
/// or -1 to remove the group's own limit, so that the queue's `group_concurrency` applies
/// (default 1). One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `group` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_set_group_limit(
    queue: *const leaseq_queue,
    group: *const c_char,
    limit: i64,
) -> leaseq_status {
    call("leaseq_queue_set_group_limit", || {
        let queue = unsafe { arg(queue, "queue") }?;
        let group = unsafe { text(group, "group") }?;
        queue.inner.set_group_limit(group, group_limit(limit)?)?;
        Ok(())
    })
}

/// Fills `*out_info` with one group at a glance: its waiting and leased items, its limit,
/// whether it is paused, and how long it waits for its rate limit's window. One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `group` is NULL or a NUL-terminated string; `out_info` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_group(
    queue: *const leaseq_queue,
    group: *const c_char,
    out_info: *mut leaseq_group_info,
) -> leaseq_status {
    call("leaseq_queue_group", || {
        let out = unsafe { Out::new(out_info, "out_info", leaseq_group_info::default()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let group = unsafe { text(group, "group") }?;
        out.required()?;
        out.set(queue.inner.group(group)?.into());
        Ok(())
    })
}

/// Holds every client's leases of the queue off for `duration_ms` (more than 0, at most one
/// day): a handler was rate limited (an API answered 429). Leases get nothing until then; adds,
/// completes and renews go on. A longer hold already in place is kept. Sets `*out_held_ms` to
/// how long leases are held off (also `leaseq_stats_rate_limited_for_ms`). One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_held_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_rate_limit(
    queue: *const leaseq_queue,
    duration_ms: i64,
    out_held_ms: *mut i64,
) -> leaseq_status {
    call("leaseq_queue_rate_limit", || {
        let out = unsafe { Out::new(out_held_ms, "out_held_ms", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        out.required()?;
        let duration = options::millis_arg("duration_ms", duration_ms)?;
        let held = queue.inner.rate_limit(duration)?;
        out.set(i64::try_from(held.as_millis()).unwrap_or(i64::MAX));
        Ok(())
    })
}

/// Holds one group's leases off for `duration_ms` (more than 0, at most one day; `group`
/// NUL-terminated UTF-8): a handler working for that group (a customer, a tenant) was rate
/// limited by an API that limits per key. The queue's other groups and ungrouped items go on;
/// the group's items wait, in their order, until the hold ends. A longer hold already in place
/// is kept. Sets `*out_held_ms` to how long the group is held off (also
/// `leaseq_group_info.rate_limited_for_ms`). One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `group` is NULL or a NUL-terminated string; `out_held_ms`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_rate_limit_group(
    queue: *const leaseq_queue,
    group: *const c_char,
    duration_ms: i64,
    out_held_ms: *mut i64,
) -> leaseq_status {
    call("leaseq_queue_rate_limit_group", || {
        let out = unsafe { Out::new(out_held_ms, "out_held_ms", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        let group = unsafe { text(group, "group") }?;
        out.required()?;
        let duration = options::millis_arg("duration_ms", duration_ms)?;
        let held = queue.inner.rate_limit_group(group, duration)?;
        out.set(i64::try_from(held.as_millis()).unwrap_or(i64::MAX));
        Ok(())
    })
}

/// Leases the next item for `ttl_ms` milliseconds (1 ms to 30 days; 0 or negative gives
/// `LEASEQ_INVALID_ARGUMENT`).
///
/// When the queue is empty: `timeout_ms` 0 returns at once; a positive `timeout_ms` waits up to
/// that long; a negative one waits until an item arrives. Waiting happens in Redis (no polling)
/// and blocks only the calling thread. If nothing arrives, the call succeeds with
/// `*out_lease` NULL (this is not `LEASEQ_TIMEOUT`, which means Redis did not answer).
///
/// Interrupting a wait: `leaseq_client_close` (or `leaseq_client_free`) on the client this
/// queue came from, called from another thread, ends the wait at once with `LEASEQ_CLOSED`.
/// A wait survives Redis restarts: it reconnects and goes on.
///
/// On success with an item, `*out_lease` is a new lease owned by the caller: free it with
/// `leaseq_lease_free` (after completing it). On failure it is set to NULL.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_lease` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_lease(
    queue: *const leaseq_queue,
    ttl_ms: i64,
    timeout_ms: i64,
    out_lease: *mut *mut leaseq_lease,
) -> leaseq_status {
    call("leaseq_queue_lease", || {
        let out_lease = unsafe { Out::new(out_lease, "out_lease", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_lease.required()?;
        let ttl = ttl_from_millis("ttl_ms", ttl_ms)?;
        if let Some(lease) = queue.inner.lease(ttl, wait(timeout_ms))? {
            out_lease.set(leaseq_lease::new(lease));
        }
        Ok(())
    })
}

/// The TTL and wait of lease options (NULL: the core's defaults, a 30 s TTL and no wait).
///
/// # Safety
/// `options` is NULL or points to a `leaseq_lease_options` of `struct_size` readable bytes.
pub(crate) unsafe fn lease_args(
    options: *const leaseq_lease_options,
) -> Result<(Duration, Wait), Failure> {
    let o = unsafe { options::read(options, "options") }?.unwrap_or_default();
    let ttl = if o.set & options::LEASEQ_LEASE_TTL != 0 {
        ttl_from_millis("options.ttl_ms", o.ttl_ms)?
    } else {
        policy::DEFAULT_TTL
    };
    let wait = if o.set & options::LEASEQ_LEASE_TIMEOUT != 0 {
        wait(o.timeout_ms)
    } else {
        Wait::default()
    };
    Ok((ttl, wait))
}

/// `leaseq_queue_lease` with options (`leaseq_lease_options`; NULL: all defaults): the TTL
/// defaults to the core's 30 s, and without a timeout the call does not wait. Leases go to the
/// highest priority first, FIFO within a priority; the lease also moves due delayed items to
/// waiting and recovers expired leases.
///
/// On success with an item, `*out_lease` is a new lease owned by the caller: free it with
/// `leaseq_lease_free`. With no item (or on failure) it is NULL. Waiting and interrupting it
/// are as for `leaseq_queue_lease`.
///
/// # Safety
/// `queue` is NULL or a live queue; `options` is NULL or points to a `leaseq_lease_options` of
/// `struct_size` readable bytes; `out_lease` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_lease_with_options(
    queue: *const leaseq_queue,
    options: *const leaseq_lease_options,
    out_lease: *mut *mut leaseq_lease,
) -> leaseq_status {
    call("leaseq_queue_lease_with_options", || {
        let out_lease = unsafe { Out::new(out_lease, "out_lease", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_lease.required()?;
        let (ttl, wait) = unsafe { lease_args(options) }?;
        if let Some(lease) = queue.inner.lease(ttl, wait)? {
            out_lease.set(leaseq_lease::new(lease));
        }
        Ok(())
    })
}

/// Leases up to `n` items (1 to 1000) in one round trip, in the order `leaseq_queue_lease`
/// would, with `options` as for `leaseq_queue_lease_with_options` (NULL: defaults). Waits as a
/// single lease does while none is there, and returns as soon as at least one is leased.
///
/// On success `*out_leases` is an array of `*out_len` new leases owned by the caller, or NULL
/// with `*out_len` 0 when nothing was leased. Free the array and its leases with
/// `leaseq_lease_array_free(*out_leases, *out_len)`; to keep one lease longer, take it out and
/// set its element to NULL first (then free it with `leaseq_lease_free`).
///
/// # Safety
/// `queue` is NULL or a live queue; `options` is NULL or points to a `leaseq_lease_options` of
/// `struct_size` readable bytes; `out_leases` and `out_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_lease_batch(
    queue: *const leaseq_queue,
    n: usize,
    options: *const leaseq_lease_options,
    out_leases: *mut *mut *mut leaseq_lease,
    out_len: *mut usize,
) -> leaseq_status {
    call("leaseq_queue_lease_batch", || {
        let out_leases = unsafe { Out::new(out_leases, "out_leases", std::ptr::null_mut()) };
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_leases.required()?;
        out_len.required()?;
        let (ttl, wait) = unsafe { lease_args(options) }?;
        let (array, len) = lease_array(queue.inner.lease_batch(n, ttl, wait)?);
        out_leases.set(array);
        out_len.set(len);
        Ok(())
    })
}

/// Completes the leased item: removes its data, its lease and its record. Sets `*out_completed`
/// to true for exactly one caller per incarnation of the item: the first to complete, even if
/// its lease had expired and another worker holds the item now; false (not an error) when the
/// item was completed already, cancelled, failed or released since, or added again after a
/// complete (`leaseq_queue_renew_outcome` says which). One round trip. The lease handle stays
/// the caller's: free it afterwards. `leaseq_queue_complete_with_result` keeps a result.
///
/// # Safety
/// `queue` and `lease` are NULL or live handles; `out_completed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_complete(
    queue: *const leaseq_queue,
    lease: *const leaseq_lease,
    out_completed: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_complete", || {
        let out_completed = unsafe { Out::new(out_completed, "out_completed", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let lease = unsafe { arg(lease, "lease") }?;
        out_completed.required()?;
        out_completed.set(queue.inner.complete(&lease.inner)?);
        Ok(())
    })
}

/// Completes `lease` and leases the next item for `ttl_ms` in the same round trip. The next
/// lease never waits: `*out_next` is NULL when the queue is empty. `*out_completed` is as for
/// `leaseq_queue_complete`.
///
/// `*out_next`, when not NULL, is a new lease owned by the caller: free it with
/// `leaseq_lease_free`. `lease` stays the caller's too. On failure `*out_completed` is false
/// and `*out_next` NULL: a refused argument completed nothing, but after a connection or Redis
/// error the item may have been completed all the same.
///
/// # Safety
/// `queue` and `lease` are NULL or live handles; `out_completed` and `out_next` are NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_complete_and_lease(
    queue: *const leaseq_queue,
    lease: *const leaseq_lease,
    ttl_ms: i64,
    out_completed: *mut bool,
    out_next: *mut *mut leaseq_lease,
) -> leaseq_status {
    call("leaseq_queue_complete_and_lease", || {
        let out_completed = unsafe { Out::new(out_completed, "out_completed", false) };
        let out_next = unsafe { Out::new(out_next, "out_next", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let lease = unsafe { arg(lease, "lease") }?;
        out_completed.required()?;
        out_next.required()?;
        let ttl = ttl_from_millis("ttl_ms", ttl_ms)?;
        let (completed, next) = queue.inner.complete_and_lease(&lease.inner, ttl)?;
        out_completed.set(completed);
        if let Some(next) = next {
            out_next.set(leaseq_lease::new(next));
        }
        Ok(())
    })
}

/// As `leaseq_queue_complete_and_lease`, and keeps `result` (`result_len` bytes; `result` may
/// be NULL when `result_len` is 0) as `leaseq_queue_complete_with_result` does:
/// `keep_result_for_ms` -1 for the default (the item's own, else the queue's configuration,
/// else one day), otherwise greater than zero. Still one round trip.
///
/// # Safety
/// `queue` and `lease` are NULL or live handles; `result` is NULL or points to `result_len`
/// readable bytes; `out_completed` and `out_next` are NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn leaseq_queue_complete_and_lease_with_result(
    queue: *const leaseq_queue,
    lease: *const leaseq_lease,
    result: *const u8,
    result_len: usize,
    keep_result_for_ms: i64,
    ttl_ms: i64,
    out_completed: *mut bool,
    out_next: *mut *mut leaseq_lease,
) -> leaseq_status {
    call("leaseq_queue_complete_and_lease_with_result", || {
        let out_completed = unsafe { Out::new(out_completed, "out_completed", false) };
        let out_next = unsafe { Out::new(out_next, "out_next", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let lease = unsafe { arg(lease, "lease") }?;
        let result = unsafe { bytes(result, result_len, "result") }?;
        out_completed.required()?;
        out_next.required()?;
        let keep = crate::finish::optional_ms("keep_result_for_ms", keep_result_for_ms)?;
        let ttl = ttl_from_millis("ttl_ms", ttl_ms)?;
        let (completed, next) =
            queue
                .inner
                .complete_and_lease_with_result(&lease.inner, Some(result), keep, ttl)?;
        out_completed.set(completed);
        if let Some(next) = next {
            out_next.set(leaseq_lease::new(next));
        }
        Ok(())
    })
}

/// Extends the lease to `ttl_ms` from now (1 ms to 30 days), only while it is still this
/// holder's. Sets `*out_renewed` to false when the lease expired, another worker took the item,
/// or the item is complete, cancelled or of a newer incarnation (`leaseq_queue_renew_outcome`
/// says which). One round trip.
///
/// # Safety
/// `queue` and `lease` are NULL or live handles; `out_renewed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_renew(
    queue: *const leaseq_queue,
    lease: *const leaseq_lease,
    ttl_ms: i64,
    out_renewed: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_renew", || {
        let out_renewed = unsafe { Out::new(out_renewed, "out_renewed", false) };
        let queue = unsafe { arg(queue, "queue") }?;
        let lease = unsafe { arg(lease, "lease") }?;
        out_renewed.required()?;
        let ttl = ttl_from_millis("ttl_ms", ttl_ms)?;
        out_renewed.set(queue.inner.renew(&lease.inner, ttl)?);
        Ok(())
    })
}

/// Like `leaseq_queue_renew`, and sets `*out_outcome` to one of the `LEASEQ_RENEW_*` values
/// saying what it found.
///
/// # Safety
/// `queue` and `lease` are NULL or live handles; `out_outcome` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_renew_outcome(
    queue: *const leaseq_queue,
    lease: *const leaseq_lease,
    ttl_ms: i64,
    out_outcome: *mut leaseq_renew_outcome,
) -> leaseq_status {
    call("leaseq_queue_renew_outcome", || {
        let out_outcome = unsafe { Out::new(out_outcome, "out_outcome", LEASEQ_RENEW_EXPIRED) };
        let queue = unsafe { arg(queue, "queue") }?;
        let lease = unsafe { arg(lease, "lease") }?;
        out_outcome.required()?;
        let ttl = ttl_from_millis("ttl_ms", ttl_ms)?;
        out_outcome.set(renew_outcome_to_c(
            queue.inner.renew_outcome(&lease.inner, ttl)?,
        ));
        Ok(())
    })
}

/// Light clean: moves due delayed items to waiting, recovers expired leases (back to waiting, or
/// dead when out of attempts), trims dead letters to the queue's bounds, sorts the ids
/// redis-work-queue clients left in processing (requeues those whose lease is gone, drops those
/// whose item is complete), and drops stale ids at the head of the waiting lists; fills
/// `*out_report` with the counts. Runs server-side in batches. Leases do the first two
/// themselves, so a queue with workers needs no cleaner; run it where nobody leases.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_report` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_light_clean(
    queue: *const leaseq_queue,
    out_report: *mut leaseq_clean_report,
) -> leaseq_status {
    call("leaseq_queue_light_clean", || {
        let out_report =
            unsafe { Out::new(out_report, "out_report", leaseq_clean_report::default()) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_report.required()?;
        out_report.set(queue.inner.light_clean()?.into());
        Ok(())
    })
}

/// Deep clean: everything the light clean does, and finds items on no list at all and lease
/// counts of items completed by redis-work-queue clients; fills `*out_report` with the counts.
/// Walks every key of the queue (with SCAN, never KEYS): run it rarely (at start-up, hourly).
///
/// # Safety
/// `queue` is NULL or a live queue; `out_report` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_deep_clean(
    queue: *const leaseq_queue,
    out_report: *mut leaseq_clean_report,
) -> leaseq_status {
    call("leaseq_queue_deep_clean", || {
        let out_report =
            unsafe { Out::new(out_report, "out_report", leaseq_clean_report::default()) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_report.required()?;
        out_report.set(queue.inner.deep_clean()?.into());
        Ok(())
    })
}

/// Sets `*out_len` to how many items wait, at every priority: the same as `leaseq_queue_count`
/// with `LEASEQ_STATE_WAITING` (stale ids of completed items included until a lease or a clean
/// drops them). Not redis-work-queue's length of its list, which misses every priority but 0.
/// One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_len(
    queue: *const leaseq_queue,
    out_len: *mut u64,
) -> leaseq_status {
    call("leaseq_queue_len", || {
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_len.required()?;
        out_len.set(queue.inner.queue_len()?);
        Ok(())
    })
}

/// Sets `*out_len` to how many items are being processed: leased by leaseq, plus the ids in
/// redis-work-queue's processing list (its clients' leases, or left by them until a light
/// clean). `leaseq_queue_count` with `LEASEQ_STATE_LEASED` counts leaseq's part. One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_processing_len(
    queue: *const leaseq_queue,
    out_len: *mut u64,
) -> leaseq_status {
    call("leaseq_queue_processing_len", || {
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        out_len.required()?;
        out_len.set(queue.inner.processing_len()?);
        Ok(())
    })
}

/// Rebuilds a lease from parts kept elsewhere (for example handed over from another process):
/// the item `id`, the lease `token`, the item's `incarnation` (all UTF-8, NUL-terminated; see
/// `leaseq_lease_token` and `leaseq_lease_incarnation`) and the `attempt` number
/// (`leaseq_lease_attempt`). Sends nothing. Renewing, failing, releasing and progress check the
/// token; every call checks the incarnation. The rebuilt lease holds no data (length 0), and
/// knows neither the item's max attempts nor its backoff: `leaseq_queue_fail` with
/// `LEASEQ_RETRY_DEFAULT` then waits the protocol's default backoff (the item's max attempts
/// still apply, in Redis).
///
/// Changed with protocol v2: the `incarnation` argument is new, and `count` is now `attempt`.
///
/// On success `*out_lease` is a new lease owned by the caller: free it with
/// `leaseq_lease_free`. On failure it is set to NULL.
///
/// # Safety
/// `queue` is NULL or a live queue; `id`, `token` and `incarnation` are NULL or NUL-terminated
/// strings; `out_lease` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_lease_from_parts(
    queue: *const leaseq_queue,
    id: *const c_char,
    token: *const c_char,
    incarnation: *const c_char,
    attempt: u64,
    out_lease: *mut *mut leaseq_lease,
) -> leaseq_status {
    call("leaseq_queue_lease_from_parts", || {
        let out_lease = unsafe { Out::new(out_lease, "out_lease", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { text(id, "id") }?;
        let token = unsafe { text(token, "token") }?;
        let incarnation = unsafe { text(incarnation, "incarnation") }?;
        out_lease.required()?;
        let lease = queue
            .inner
            .lease_from_parts(id, token, incarnation, attempt)?;
        out_lease.set(leaseq_lease::new(lease));
        Ok(())
    })
}

/// Frees a queue handle. NULL is accepted and ignored. Leases made from it stay valid. No other
/// thread may be inside a call on this queue (to end a waiting lease first, close the client).
///
/// # Safety
/// `queue` is NULL or a live queue that no other call is using, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_free(queue: *mut leaseq_queue) {
    call_quiet((), || {
        if !queue.is_null() {
            // SAFETY: made by Box::into_raw in this crate and freed once, by contract.
            drop(unsafe { Box::from_raw(queue) });
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renew_outcome_names_are_the_cores() {
        for outcome in [
            RenewOutcome::Renewed,
            RenewOutcome::Expired,
            RenewOutcome::TakenByAnother,
            RenewOutcome::Completed,
            RenewOutcome::Cancelled,
            RenewOutcome::OlderIncarnation,
        ] {
            let name = unsafe {
                std::ffi::CStr::from_ptr(leaseq_renew_outcome_str(renew_outcome_to_c(outcome)))
            };
            assert_eq!(name.to_str().unwrap(), outcome.as_str());
        }
    }
}
