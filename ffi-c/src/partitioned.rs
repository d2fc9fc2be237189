//! `leaseq_partitioned`: one logical queue stored as partitions (spec/PROTOCOL.md 5.25), over
//! the core's `leaseq::blocking::Partitioned`. A thin skin: each function converts its
//! arguments and runs the core's call; routing, fan-out and the rotation of leases are the
//! core's. Items, leases, jobs, results, entry lists and stats are the queue's C types.

use std::ffi::{c_char, CString};

use leaseq::{blocking, FailOutcome, Lease, Retry};

use crate::client::leaseq_client;
use crate::deps::{flow, leaseq_flow_child};
use crate::finish::{leaseq_retry, optional_ms};
use crate::guard::{arg, array, bytes, c_string, call, call_quiet, text, Failure, Out};
use crate::inspect::{find_filters, set_found};
use crate::item::leaseq_item;
use crate::job::{
    leaseq_entry_list, leaseq_fail_outcome, leaseq_job, leaseq_result, leaseq_state, leaseq_stats,
    state_from_c, state_to_c, LEASEQ_STATE_NONE,
};
use crate::lease::{lease_array, leaseq_lease};
use crate::options::{self, leaseq_add_options, leaseq_config, leaseq_lease_options};
use crate::queue::{batch_items, item_with, lease_args, leaseq_queue, leaseq_renew_outcome, wait};
use crate::status::leaseq_status;

/// A partitioned queue (opaque): one logical queue stored as 1 to 64 partitions, each a full
/// queue under a prefix with a hash tag of its own, so that a Redis Cluster spreads them over
/// its primaries. Items go to a partition by their group, else where their dependencies are,
/// else their id; leases rotate over the partitions; reads (get, cancel, result, stats, count, list)
/// see the whole logical queue. A queue of one partition is the plain queue at its base.
///
/// Thread safety: as a `leaseq_queue`, usable from any number of threads at once. Made by
/// `leaseq_partitioned_open` or `leaseq_partitioned_create`, released by
/// `leaseq_partitioned_free`.
#[allow(non_camel_case_types)]
pub struct leaseq_partitioned {
    pub(crate) inner: blocking::Partitioned,
    base: CString,
    prefixes: Vec<CString>,
}

impl leaseq_partitioned {
    fn new(inner: blocking::Partitioned) -> *mut leaseq_partitioned {
        let base = c_string(inner.base());
        let prefixes = inner.prefixes().iter().map(|p| c_string(p)).collect();
        Box::into_raw(Box::new(leaseq_partitioned {
            inner,
            base,
            prefixes,
        }))
    }
}

/// A partition's index argument: below the partition count, else refused naming `partition`.
fn partition_index(p: &leaseq_partitioned, partition: usize) -> Result<usize, Failure> {
    if partition < p.prefixes.len() {
        Ok(partition)
    } else {
        Err(Failure::invalid(
            "partition",
            format!(
                "is {partition}: the queue has {} partitions",
                p.prefixes.len()
            ),
        ))
    }
}

/// Opens the logical queue named by `base` (NUL-terminated UTF-8, a queue prefix): its
/// partitions as stored under `base:partitions`, or the plain queue at `base` as one partition
/// when there is no such key. Writes nothing. One round trip.
///
/// On success `*out_partitioned` is a new handle owned by the caller: free it with
/// `leaseq_partitioned_free`. On failure it is set to NULL.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `client`, `base` or `out_partitioned`;
/// LEASEQ_INVALID_ARGUMENT naming `prefix` (an invalid base), `partitions` (a stored layout
/// this version cannot use) or `client` (a client of one server connected to a node of a
/// multi-primary Cluster, for more than one partition: connect with `leaseq_client_connect_cluster`);
/// LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED as any call.
///
/// # Safety
/// `client` is NULL or a live client; `base` is NULL or a NUL-terminated string;
/// `out_partitioned` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_open(
    client: *const leaseq_client,
    base: *const c_char,
    out_partitioned: *mut *mut leaseq_partitioned,
) -> leaseq_status {
    call("leaseq_partitioned_open", || {
        let out = unsafe { Out::new(out_partitioned, "out_partitioned", std::ptr::null_mut()) };
        let client = unsafe { arg(client, "client") }?;
        let base = unsafe { text(base, "base") }?;
        out.required()?;
        out.set(leaseq_partitioned::new(client.inner.partitioned(base)?));
        Ok(())
    })
}

/// Creates (or opens) the logical queue `base` of `partitions` partitions (1 to 64): stores
/// its layout under `base:partitions`. More than one partition needs a `{hash tag}` in `base`,
/// which each partition's prefix extends to a slot of its own. Idempotent for the same count.
/// One partition writes nothing: it is the plain queue at `base`. At most three round trips.
///
/// On success `*out_partitioned` is a new handle owned by the caller: free it with
/// `leaseq_partitioned_free`. On failure it is set to NULL, and nothing is written.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `client`, `base` or `out_partitioned`;
/// LEASEQ_INVALID_ARGUMENT naming `partitions` (0 or more than 64; `base` stored with another
/// count, or holding a plain queue or a drained one's kept results while `partitions` is above
/// 1), `prefix` (an invalid base, or one without a hash tag for more than one partition) or
/// `client` (a client of one server connected to a node of a multi-primary Cluster, for more
/// than one partition); LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED as any call.
///
/// # Safety
/// `client` is NULL or a live client; `base` is NULL or a NUL-terminated string;
/// `out_partitioned` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_create(
    client: *const leaseq_client,
    base: *const c_char,
    partitions: usize,
    out_partitioned: *mut *mut leaseq_partitioned,
) -> leaseq_status {
    call("leaseq_partitioned_create", || {
        let out = unsafe { Out::new(out_partitioned, "out_partitioned", std::ptr::null_mut()) };
        let client = unsafe { arg(client, "client") }?;
        let base = unsafe { text(base, "base") }?;
        out.required()?;
        let p = client.inner.create_partitioned(base, partitions)?;
        out.set(leaseq_partitioned::new(p));
        Ok(())
    })
}

/// Frees a partitioned queue handle. NULL is accepted and ignored. Leases and queues made from
/// it stay valid. No other thread may be inside a call on this handle.
///
/// # Safety
/// `partitioned` is NULL or a live handle that no other call is using, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_free(partitioned: *mut leaseq_partitioned) {
    call_quiet((), || {
        if !partitioned.is_null() {
            // SAFETY: made by Box::into_raw in this crate and freed once, by contract.
            drop(unsafe { Box::from_raw(partitioned) });
        }
    })
}

/// Sets `*out_base` to the base that names the logical queue. The string belongs to the
/// handle: valid until `leaseq_partitioned_free`; do not free it. Sends nothing.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_base`.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_base` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_base(
    partitioned: *const leaseq_partitioned,
    out_base: *mut *const c_char,
) -> leaseq_status {
    call("leaseq_partitioned_base", || {
        let out = unsafe { Out::new(out_base, "out_base", std::ptr::null()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        out.set(p.base.as_ptr());
        Ok(())
    })
}

/// Sets `*out_partitions` to how many partitions the queue has (1 to 64). Sends nothing.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_partitions`.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_partitions` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_partitions(
    partitioned: *const leaseq_partitioned,
    out_partitions: *mut usize,
) -> leaseq_status {
    call("leaseq_partitioned_partitions", || {
        let out = unsafe { Out::new(out_partitions, "out_partitions", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        out.set(p.prefixes.len());
        Ok(())
    })
}

/// Sets `*out_prefix` to the prefix of partition `partition` (0 to the count less one): the
/// prefix of the full queue that holds that partition's items. The string belongs to the
/// handle: valid until `leaseq_partitioned_free`; do not free it. Sends nothing.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_prefix`;
/// LEASEQ_INVALID_ARGUMENT naming `partition` when it is out of range.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_prefix` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_prefix(
    partitioned: *const leaseq_partitioned,
    partition: usize,
    out_prefix: *mut *const c_char,
) -> leaseq_status {
    call("leaseq_partitioned_prefix", || {
        let out = unsafe { Out::new(out_prefix, "out_prefix", std::ptr::null()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        out.set(p.prefixes[partition_index(p, partition)?].as_ptr());
        Ok(())
    })
}

/// Sets `*out_queue` to partition `partition` as a queue, for what only a queue offers
/// (groups, cleaning, renewing a lease...). Sends nothing.
///
/// `*out_queue` is a new queue owned by the caller: free it with `leaseq_queue_free`. On
/// failure it is set to NULL.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_queue`;
/// LEASEQ_INVALID_ARGUMENT naming `partition` when it is out of range.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_queue` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_partition(
    partitioned: *const leaseq_partitioned,
    partition: usize,
    out_queue: *mut *mut leaseq_queue,
) -> leaseq_status {
    call("leaseq_partitioned_partition", || {
        let out = unsafe { Out::new(out_queue, "out_queue", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        out.set(leaseq_queue::new(p.inner.partition(partition)?));
        Ok(())
    })
}

/// Sets `*out_queue` to the partition that issued `lease`, as a queue: where to renew, release
/// or report progress on it (`leaseq_queue_renew`, `leaseq_queue_release`,
/// `leaseq_queue_progress`...), which this handle does not offer. Sends nothing.
///
/// `*out_queue` is a new queue owned by the caller: free it with `leaseq_queue_free`. On
/// failure it is set to NULL.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `lease` or `out_queue`;
/// LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue.
///
/// # Safety
/// `partitioned` and `lease` are NULL or live handles; `out_queue` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_queue_of(
    partitioned: *const leaseq_partitioned,
    lease: *const leaseq_lease,
    out_queue: *mut *mut leaseq_queue,
) -> leaseq_status {
    call("leaseq_partitioned_queue_of", || {
        let out = unsafe { Out::new(out_queue, "out_queue", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let lease = unsafe { arg(lease, "lease") }?;
        out.required()?;
        out.set(leaseq_queue::new(p.inner.queue_of(&lease.inner)?));
        Ok(())
    })
}

/// Sets `*out_partition` to the partition `item` goes to with `options` (NULL: none): by its
/// group (`LEASEQ_ADD_GROUP`) when it has one, else by its first dependency's id
/// (`LEASEQ_ADD_DEPENDS_ON`), else by its id. Sends nothing, so for an item with dependencies it
/// answers as if each were in its id's partition; `leaseq_partitioned_add` looks them up.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `item` or `out_partition`;
/// LEASEQ_INVALID_ARGUMENT naming an option an add would refuse (`priority`, `group`...).
///
/// # Safety
/// `partitioned` and `item` are NULL or live handles; `options` is NULL or points to a
/// `leaseq_add_options` of `struct_size` readable bytes; `out_partition` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_partition_of(
    partitioned: *const leaseq_partitioned,
    item: *const leaseq_item,
    options: *const leaseq_add_options,
    out_partition: *mut usize,
) -> leaseq_status {
    call("leaseq_partitioned_partition_of", || {
        let out = unsafe { Out::new(out_partition, "out_partition", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let item = unsafe { arg(item, "item") }?;
        out.required()?;
        let item = unsafe { item_with(item, options) }?;
        out.set(p.inner.partition_of(&item)?);
        Ok(())
    })
}

/// Adds `item` to its partition (`leaseq_partitioned_partition_of`) unless an item with its id
/// exists there, and sets `*out_added` to whether it was added. One round trip. The item is
/// only read: the caller still owns it.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `item` or `out_added`;
/// LEASEQ_FULL for a bounded partition with no room; LEASEQ_CONNECTION, LEASEQ_TIMEOUT,
/// LEASEQ_CLOSED as any call.
///
/// # Safety
/// `partitioned` and `item` are NULL or live handles; `out_added` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_add(
    partitioned: *const leaseq_partitioned,
    item: *const leaseq_item,
    out_added: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_add", || {
        let out = unsafe { Out::new(out_added, "out_added", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let item = unsafe { arg(item, "item") }?;
        out.required()?;
        out.set(p.inner.add(&item.inner)?);
        Ok(())
    })
}

/// `leaseq_partitioned_add` with options (`leaseq_add_options`; NULL: none), as
/// `leaseq_queue_add_with_options` takes them. A group routes the item (every item of a group
/// goes to one partition, so the group's order and limits hold); an item whose dependencies
/// route to another partition than its own is refused. Options are checked before anything is
/// sent. One round trip.
///
/// Statuses: as `leaseq_partitioned_add`, and LEASEQ_INVALID_ARGUMENT naming a refused option
/// (`options.priority`...) or `depends_on` (dependencies in another partition), with nothing
/// written.
///
/// # Safety
/// `partitioned` and `item` are NULL or live handles; `options` is NULL or points to a
/// `leaseq_add_options` of `struct_size` readable bytes; `out_added` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_add_with_options(
    partitioned: *const leaseq_partitioned,
    item: *const leaseq_item,
    options: *const leaseq_add_options,
    out_added: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_add_with_options", || {
        let out = unsafe { Out::new(out_added, "out_added", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let item = unsafe { arg(item, "item") }?;
        out.required()?;
        let item = unsafe { item_with(item, options) }?;
        out.set(p.inner.add(&item)?);
        Ok(())
    })
}

/// `leaseq_partitioned_add_with_options` that waits for room when the item's partition is
/// bounded and full, as `leaseq_queue_add_with_timeout` does there: `timeout_ms` 0 gives
/// `LEASEQ_FULL` at once, a positive one waits up to that long, a negative one until there is
/// room. `options` may be NULL (none).
///
/// # Safety
/// As `leaseq_partitioned_add_with_options`.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_add_with_timeout(
    partitioned: *const leaseq_partitioned,
    item: *const leaseq_item,
    options: *const leaseq_add_options,
    timeout_ms: i64,
    out_added: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_add_with_timeout", || {
        let out = unsafe { Out::new(out_added, "out_added", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let item = unsafe { arg(item, "item") }?;
        out.required()?;
        let item = unsafe { item_with(item, options) }?;
        out.set(p.inner.add_wait(&item, wait(timeout_ms))?);
        Ok(())
    })
}

/// Adds `item` to its partition, routed as `leaseq_partitioned_add` routes it, without checking
/// whether its id exists there, as `leaseq_queue_add_unique` adds to a queue: the caller
/// guarantees a fresh id (the random id of `leaseq_item_new` is). Adding an existing id
/// overwrites its data and queues it twice. One round trip (one more, to every partition at
/// once, for an item with dependencies). The item is only read: the caller still owns it.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `item`;
/// LEASEQ_INVALID_ARGUMENT naming the option an add refuses, or `depends_on` (dependencies in
/// two partitions, or in another than the item's group's); LEASEQ_FULL for a bounded partition
/// with no room; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED as any call.
///
/// # Safety
/// `partitioned` and `item` are NULL or live handles.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_add_unique(
    partitioned: *const leaseq_partitioned,
    item: *const leaseq_item,
) -> leaseq_status {
    call("leaseq_partitioned_add_unique", || {
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let item = unsafe { arg(item, "item") }?;
        p.inner.add_unique(&item.inner)?;
        Ok(())
    })
}

/// The item pointers of a batch (`items_len` of them; `items` NULL only when it is 0).
///
/// # Safety
/// `items` is NULL or points to `items_len` readable pointers.
unsafe fn item_pointers<'a>(
    items: *const *const leaseq_item,
    items_len: usize,
) -> Result<&'a [*const leaseq_item], Failure> {
    unsafe { array(items, items_len, "items") }
}

/// Adds every item of the array `items` (`items_len` item pointers) whose id does not exist
/// yet in its partition, and sets `*out_added` to how many were added: one script call per
/// partition touched, sent at once (one round trip each, at the same time). Every item is
/// checked first; nothing is sent when one is refused. Each partition's part is atomic per
/// item; after an error, adding the same batch again adds only what is missing. `items` may be
/// NULL when `items_len` is 0. The items are only read.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `items`, `items[i]` or
/// `out_added`; LEASEQ_INVALID_ARGUMENT naming what was refused (`depends_on`...), with
/// nothing written; LEASEQ_FULL, LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `items` is NULL or points to `items_len` pointers,
/// each NULL or a live item; `out_added` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_add_batch(
    partitioned: *const leaseq_partitioned,
    items: *const *const leaseq_item,
    items_len: usize,
    out_added: *mut usize,
) -> leaseq_status {
    call("leaseq_partitioned_add_batch", || {
        let out = unsafe { Out::new(out_added, "out_added", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let pointers = unsafe { item_pointers(items, items_len) }?;
        out.required()?;
        let batch = unsafe { batch_items(pointers, std::ptr::null()) }?;
        out.set(p.inner.add_batch(&batch)?);
        Ok(())
    })
}

/// `leaseq_partitioned_add_batch` with options per item: `options[i]` for `items[i]` (NULL:
/// that item has none; `options` itself NULL: no item has any), as
/// `leaseq_queue_add_batch_with_options` takes them. A refused option gives
/// LEASEQ_INVALID_ARGUMENT naming it, as `leaseq_queue_add_batch_with_options` does, and adds
/// nothing.
///
/// Statuses: as `leaseq_partitioned_add_batch`.
///
/// # Safety
/// As `leaseq_partitioned_add_batch`; `options` is NULL or points to `items_len` pointers,
/// each NULL or a `leaseq_add_options` of `struct_size` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_add_batch_with_options(
    partitioned: *const leaseq_partitioned,
    items: *const *const leaseq_item,
    options: *const *const leaseq_add_options,
    items_len: usize,
    out_added: *mut usize,
) -> leaseq_status {
    call("leaseq_partitioned_add_batch_with_options", || {
        let out = unsafe { Out::new(out_added, "out_added", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let pointers = unsafe { item_pointers(items, items_len) }?;
        out.required()?;
        let batch = unsafe { batch_items(pointers, options) }?;
        out.set(p.inner.add_batch(&batch)?);
        Ok(())
    })
}

/// `leaseq_partitioned_add_batch_with_options` that waits for room, each partition's part as
/// `leaseq_queue_add_batch_with_timeout` does there (the parts wait at the same time).
/// `options` may be NULL (no item has any).
///
/// # Safety
/// As `leaseq_partitioned_add_batch_with_options`.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_add_batch_with_timeout(
    partitioned: *const leaseq_partitioned,
    items: *const *const leaseq_item,
    options: *const *const leaseq_add_options,
    items_len: usize,
    timeout_ms: i64,
    out_added: *mut usize,
) -> leaseq_status {
    call("leaseq_partitioned_add_batch_with_timeout", || {
        let out = unsafe { Out::new(out_added, "out_added", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let pointers = unsafe { item_pointers(items, items_len) }?;
        out.required()?;
        let batch = unsafe { batch_items(pointers, options) }?;
        out.set(p.inner.add_batch_wait(&batch, wait(timeout_ms))?);
        Ok(())
    })
}

/// Adds `parent` and its children as `leaseq_queue_add_flow` does (same arguments), every
/// item of the flow to one partition: the one `parent` routes to by its group, else its id.
/// A dependency on an item outside the flow that is in another partition is refused
/// (`LEASEQ_INVALID_ARGUMENT`, `depends_on`), as is an item whose group lives in another
/// partition (`group`). One round trip; one more when items depend on items outside the flow.
///
/// Statuses: as `leaseq_queue_add_flow`, with `partitioned` for `queue`.
///
/// # Safety
/// `partitioned` and `parent` are NULL or live handles; the rest as for
/// `leaseq_queue_add_flow`.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_add_flow(
    partitioned: *const leaseq_partitioned,
    parent: *const leaseq_item,
    parent_options: *const leaseq_add_options,
    children: *const leaseq_flow_child,
    children_len: usize,
    out_added: *mut usize,
) -> leaseq_status {
    call("leaseq_partitioned_add_flow", || {
        let out = unsafe { Out::new(out_added, "out_added", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let parent = unsafe { arg(parent, "parent") }?;
        let children = unsafe { array(children, children_len, "children") }?;
        out.required()?;
        let (parent, top) = unsafe { flow(parent, parent_options, children) }?;
        out.set(p.inner.add_flow(&parent, &top)?);
        Ok(())
    })
}

/// Leases one item for `ttl_ms` (1 ms to 30 days) from any partition, asked in a rotating
/// order. When none has one: `timeout_ms` 0 returns at once, a positive one waits up to that
/// long, a negative one until an item comes, on every partition at once (in Redis, no
/// polling); then `*out_lease` is NULL (not an error). `leaseq_client_close` from another
/// thread ends a wait with LEASEQ_CLOSED.
///
/// `*out_lease`, when not NULL, is a new lease owned by the caller: finish it with
/// `leaseq_partitioned_complete` or `_fail` (or in `leaseq_partitioned_queue_of`'s queue) and
/// free it with `leaseq_lease_free`.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_lease`;
/// LEASEQ_INVALID_ARGUMENT naming `ttl_ms`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_lease` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_lease(
    partitioned: *const leaseq_partitioned,
    ttl_ms: i64,
    timeout_ms: i64,
    out_lease: *mut *mut leaseq_lease,
) -> leaseq_status {
    call("leaseq_partitioned_lease", || {
        let out = unsafe { Out::new(out_lease, "out_lease", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        let ttl = leaseq::ttl_from_millis("ttl_ms", ttl_ms)?;
        if let Some(lease) = p.inner.lease(ttl, wait(timeout_ms))? {
            out.set(leaseq_lease::new(lease));
        }
        Ok(())
    })
}

/// `leaseq_partitioned_lease` with options (`leaseq_lease_options`; NULL: the core's
/// defaults, a 30 s TTL and no wait).
///
/// Statuses: as `leaseq_partitioned_lease`, with LEASEQ_INVALID_ARGUMENT naming the refused
/// option (`options.ttl_ms`).
///
/// # Safety
/// `partitioned` is NULL or a live handle; `options` is NULL or points to a
/// `leaseq_lease_options` of `struct_size` readable bytes; `out_lease` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_lease_with_options(
    partitioned: *const leaseq_partitioned,
    options: *const leaseq_lease_options,
    out_lease: *mut *mut leaseq_lease,
) -> leaseq_status {
    call("leaseq_partitioned_lease_with_options", || {
        let out = unsafe { Out::new(out_lease, "out_lease", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        let (ttl, wait) = unsafe { lease_args(options) }?;
        if let Some(lease) = p.inner.lease(ttl, wait)? {
            out.set(leaseq_lease::new(lease));
        }
        Ok(())
    })
}

/// Leases up to `n` items (1 to 1000) from as many partitions as it takes, in a rotating
/// order (one no-wait lease per partition asked, stopping once it has `n`), with `options` as
/// for `leaseq_partitioned_lease_with_options`; with a wait and nothing found, waits on every
/// partition at once and returns as soon as at least one item is leased.
///
/// On success `*out_leases` is an array of `*out_len` new leases owned by the caller, or NULL
/// with `*out_len` 0 when nothing was leased: free it with `leaseq_lease_array_free`.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `out_leases` or `out_len`;
/// LEASEQ_INVALID_ARGUMENT naming `n` or the refused option; LEASEQ_CONNECTION,
/// LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `options` is NULL or points to a
/// `leaseq_lease_options` of `struct_size` readable bytes; `out_leases` and `out_len` are NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_lease_batch(
    partitioned: *const leaseq_partitioned,
    n: usize,
    options: *const leaseq_lease_options,
    out_leases: *mut *mut *mut leaseq_lease,
    out_len: *mut usize,
) -> leaseq_status {
    call("leaseq_partitioned_lease_batch", || {
        let out_leases = unsafe { Out::new(out_leases, "out_leases", std::ptr::null_mut()) };
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out_leases.required()?;
        out_len.required()?;
        let (ttl, wait) = unsafe { lease_args(options) }?;
        let (array, len) = lease_array(p.inner.lease_batch(n, ttl, wait)?);
        out_leases.set(array);
        out_len.set(len);
        Ok(())
    })
}

/// Completes `lease` in the partition it came from, as `leaseq_queue_complete` does there, and
/// sets `*out_completed` as it does. One round trip. The lease stays the caller's.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `lease` or `out_completed`;
/// LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue; LEASEQ_CONNECTION,
/// LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` and `lease` are NULL or live handles; `out_completed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_complete(
    partitioned: *const leaseq_partitioned,
    lease: *const leaseq_lease,
    out_completed: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_complete", || {
        let out = unsafe { Out::new(out_completed, "out_completed", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let lease = unsafe { arg(lease, "lease") }?;
        out.required()?;
        out.set(p.inner.complete(&lease.inner)?);
        Ok(())
    })
}

/// Completes `lease` in the partition it came from and keeps `result` (`result_len` bytes;
/// NULL when `result_len` is 0), as `leaseq_queue_complete_with_result` does there:
/// `keep_result_for_ms` -1 for the default, otherwise above 0. `leaseq_partitioned_result`
/// finds it. One round trip.
///
/// Statuses: as `leaseq_partitioned_complete`, and LEASEQ_INVALID_ARGUMENT naming
/// `keep_result_for_ms`, or `result` when it is too large.
///
/// # Safety
/// `partitioned` and `lease` are NULL or live handles; `result` is NULL or points to
/// `result_len` readable bytes; `out_completed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_complete_with_result(
    partitioned: *const leaseq_partitioned,
    lease: *const leaseq_lease,
    result: *const u8,
    result_len: usize,
    keep_result_for_ms: i64,
    out_completed: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_complete_with_result", || {
        let out = unsafe { Out::new(out_completed, "out_completed", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let lease = unsafe { arg(lease, "lease") }?;
        let result = unsafe { bytes(result, result_len, "result") }?;
        out.required()?;
        let keep = optional_ms("keep_result_for_ms", keep_result_for_ms)?;
        let queue = p.inner.queue_of(&lease.inner)?;
        out.set(queue.complete_with_result(&lease.inner, Some(result), keep)?);
        Ok(())
    })
}

/// [`crate::finish::FailOn`] for a partitioned queue: the lease is failed in its partition.
fn fail_in_partition(
    p: &leaseq_partitioned,
    lease: &Lease,
    error: &str,
    error_type: &str,
    retry: Retry,
    trace: Option<&str>,
) -> leaseq::Result<FailOutcome> {
    p.inner
        .fail_with_trace(lease, error, error_type, retry, trace)
}

/// Records a failed attempt of `lease` in the partition it came from, exactly as
/// `leaseq_queue_fail` does there (same arguments and out-parameters): retried after its
/// backoff, after `retry_after_ms`, or dead, by `retry`. One round trip.
///
/// Statuses: as `leaseq_queue_fail`, with `partitioned` for `queue`, and
/// LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue.
///
/// # Safety
/// `partitioned` and `lease` are NULL or live handles; `error` and `error_type` are NULL or
/// NUL-terminated strings; the out-parameters are NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn leaseq_partitioned_fail(
    partitioned: *const leaseq_partitioned,
    lease: *const leaseq_lease,
    error: *const c_char,
    error_type: *const c_char,
    retry: leaseq_retry,
    retry_after_ms: i64,
    out_outcome: *mut leaseq_fail_outcome,
    out_not_held: *mut leaseq_renew_outcome,
    out_retry_in_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        crate::finish::fail(
            "leaseq_partitioned_fail",
            (partitioned, "partitioned", fail_in_partition),
            lease,
            [error, error_type],
            None,
            (retry, retry_after_ms),
            (out_outcome, out_not_held, out_retry_in_ms),
        )
    }
}

/// Like `leaseq_partitioned_fail`, keeping `trace` with the item as
/// `leaseq_queue_fail_with_trace` does (NULL or `""`: none). One round trip.
///
/// # Safety
/// As for `leaseq_partitioned_fail`; `trace` is NULL or a NUL-terminated string.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn leaseq_partitioned_fail_with_trace(
    partitioned: *const leaseq_partitioned,
    lease: *const leaseq_lease,
    error: *const c_char,
    error_type: *const c_char,
    trace: *const c_char,
    retry: leaseq_retry,
    retry_after_ms: i64,
    out_outcome: *mut leaseq_fail_outcome,
    out_not_held: *mut leaseq_renew_outcome,
    out_retry_in_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        crate::finish::fail(
            "leaseq_partitioned_fail_with_trace",
            (partitioned, "partitioned", fail_in_partition),
            lease,
            [error, error_type],
            Some(trace),
            (retry, retry_after_ms),
            (out_outcome, out_not_held, out_retry_in_ms),
        )
    }
}

/// Sets `*out_job` to item `id` (NUL-terminated UTF-8) as `leaseq_queue_get` reads it, from
/// whichever partition holds it, or NULL when none does: the partition the id routes to first,
/// then the others at once (at most two round trips in sequence).
///
/// `*out_job`, when not NULL, is a new job owned by the caller: free it with
/// `leaseq_job_free`.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_job`;
/// LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string; `out_job`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_get(
    partitioned: *const leaseq_partitioned,
    id: *const c_char,
    out_job: *mut *mut leaseq_job,
) -> leaseq_status {
    call("leaseq_partitioned_get", || {
        let out = unsafe { Out::new(out_job, "out_job", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let id = unsafe { text(id, "id") }?;
        out.required()?;
        if let Some(job) = p.inner.get(id)? {
            out.set(leaseq_job::new(job));
        }
        Ok(())
    })
}

/// Cancels item `id` (NUL-terminated UTF-8) in whichever partition holds it, as
/// `leaseq_queue_cancel` does, looked up as `leaseq_partitioned_get` looks; sets
/// `*out_previous` to the state it was in, or `LEASEQ_STATE_NONE` when no partition had it.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_previous`;
/// LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
/// `out_previous` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_cancel(
    partitioned: *const leaseq_partitioned,
    id: *const c_char,
    out_previous: *mut leaseq_state,
) -> leaseq_status {
    call("leaseq_partitioned_cancel", || {
        let out = unsafe { Out::new(out_previous, "out_previous", LEASEQ_STATE_NONE) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let id = unsafe { text(id, "id") }?;
        out.required()?;
        out.set(p.inner.cancel(id)?.map_or(LEASEQ_STATE_NONE, state_to_c));
        Ok(())
    })
}

/// Sets `*out_result` to the result kept for item `id` (NUL-terminated UTF-8), looked up as
/// `leaseq_partitioned_get` looks, or NULL when there is none.
///
/// `*out_result`, when not NULL, is a new result owned by the caller: free it with
/// `leaseq_result_free`.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_result`;
/// LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_DEAD when the item died; LEASEQ_CONNECTION,
/// LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
/// `out_result` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_result(
    partitioned: *const leaseq_partitioned,
    id: *const c_char,
    out_result: *mut *mut leaseq_result,
) -> leaseq_status {
    call("leaseq_partitioned_result", || {
        let out = unsafe { Out::new(out_result, "out_result", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let id = unsafe { text(id, "id") }?;
        out.required()?;
        if let Some(r) = p.inner.result(id)? {
            out.set(Box::into_raw(Box::new(leaseq_result::new(r))));
        }
        Ok(())
    })
}

/// Waits for item `id`'s result as `leaseq_queue_wait_result` does (the same `timeout_ms`),
/// where the item is: looked up in every partition at once first, then waited for there (in
/// every partition when it is in none yet). Sets `*out_result` to it, or to NULL when the
/// timeout passes first (not an error). Blocks only the calling thread; `leaseq_client_close`
/// from another thread ends the wait with `LEASEQ_CLOSED`.
///
/// `*out_result`, when not NULL, is a new result owned by the caller: free it with
/// `leaseq_result_free`.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_result`;
/// LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
/// `out_result` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_wait_result(
    partitioned: *const leaseq_partitioned,
    id: *const c_char,
    timeout_ms: i64,
    out_result: *mut *mut leaseq_result,
) -> leaseq_status {
    call("leaseq_partitioned_wait_result", || {
        let out = unsafe { Out::new(out_result, "out_result", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        let id = unsafe { text(id, "id") }?;
        out.required()?;
        if let Some(r) = p.inner.wait_result(id, wait(timeout_ms))? {
            out.set(Box::into_raw(Box::new(leaseq_result::new(r))));
        }
        Ok(())
    })
}

/// A partitioned queue's figures, read by `leaseq_partitioned_stats` (opaque): the logical
/// queue's (counts summed; the oldest waiting item's age the largest; paused when every
/// partition is; per-minute counters summed when every partition counts) and each partition's
/// own, each a `leaseq_stats` read with the `leaseq_stats_*` functions. Immutable; may be read
/// from several threads at once. Free it with `leaseq_stats_by_partition_free`.
#[allow(non_camel_case_types)]
pub struct leaseq_stats_by_partition {
    total: leaseq_stats,
    partitions: Vec<leaseq_stats>,
}

/// Sets `*out_stats` to the logical queue's figures and each partition's, read from every
/// partition at once (one round trip each, at the same time).
///
/// `*out_stats` is a new handle owned by the caller: read it with
/// `leaseq_stats_by_partition_total` and `leaseq_stats_by_partition_get`, free it with
/// `leaseq_stats_by_partition_free`.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_stats`;
/// LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_stats` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_stats(
    partitioned: *const leaseq_partitioned,
    out_stats: *mut *mut leaseq_stats_by_partition,
) -> leaseq_status {
    call("leaseq_partitioned_stats", || {
        let out = unsafe { Out::new(out_stats, "out_stats", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        let stats = p.inner.stats()?;
        out.set(Box::into_raw(Box::new(leaseq_stats_by_partition {
            total: leaseq_stats::from_core(stats.total),
            partitions: stats
                .partitions
                .into_iter()
                .map(leaseq_stats::from_core)
                .collect(),
        })));
        Ok(())
    })
}

/// Sets `*out_total` to the logical queue's figures, a `leaseq_stats` to read with the
/// `leaseq_stats_*` functions. It belongs to `stats`: valid until
/// `leaseq_stats_by_partition_free`; do not free it.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `stats` or `out_total`.
///
/// # Safety
/// `stats` is NULL or a live handle; `out_total` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_by_partition_total(
    stats: *const leaseq_stats_by_partition,
    out_total: *mut *const leaseq_stats,
) -> leaseq_status {
    call("leaseq_stats_by_partition_total", || {
        let out = unsafe { Out::new(out_total, "out_total", std::ptr::null()) };
        let stats = unsafe { arg(stats, "stats") }?;
        out.required()?;
        out.set(&stats.total);
        Ok(())
    })
}

/// Sets `*out_len` to how many partitions `stats` holds figures for (the queue's
/// partition count).
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `stats` or `out_len`.
///
/// # Safety
/// `stats` is NULL or a live handle; `out_len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_by_partition_len(
    stats: *const leaseq_stats_by_partition,
    out_len: *mut usize,
) -> leaseq_status {
    call("leaseq_stats_by_partition_len", || {
        let out = unsafe { Out::new(out_len, "out_len", 0) };
        let stats = unsafe { arg(stats, "stats") }?;
        out.required()?;
        out.set(stats.partitions.len());
        Ok(())
    })
}

/// Sets `*out_stats` to partition `partition`'s own figures, a `leaseq_stats` to read with the
/// `leaseq_stats_*` functions. It belongs to `stats`: valid until
/// `leaseq_stats_by_partition_free`; do not free it.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `stats` or `out_stats`;
/// LEASEQ_INVALID_ARGUMENT naming `partition` when it is out of range.
///
/// # Safety
/// `stats` is NULL or a live handle; `out_stats` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_by_partition_get(
    stats: *const leaseq_stats_by_partition,
    partition: usize,
    out_stats: *mut *const leaseq_stats,
) -> leaseq_status {
    call("leaseq_stats_by_partition_get", || {
        let out = unsafe { Out::new(out_stats, "out_stats", std::ptr::null()) };
        let stats = unsafe { arg(stats, "stats") }?;
        out.required()?;
        let one = stats.partitions.get(partition).ok_or_else(|| {
            Failure::invalid(
                "partition",
                format!(
                    "is {partition}: the stats hold {} partitions",
                    stats.partitions.len()
                ),
            )
        })?;
        out.set(one);
        Ok(())
    })
}

/// Frees a `leaseq_stats_by_partition` and every `leaseq_stats` it lent. NULL is accepted and
/// ignored.
///
/// # Safety
/// `stats` is NULL or a live handle, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_by_partition_free(stats: *mut leaseq_stats_by_partition) {
    call_quiet((), || {
        if !stats.is_null() {
            // SAFETY: made by Box::into_raw in this crate and freed once, by contract.
            drop(unsafe { Box::from_raw(stats) });
        }
    })
}

/// Sets `*out_count` to how many items are in `state`, summed over the partitions, as
/// `leaseq_queue_count` counts them in each (read from every partition at once).
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_count`;
/// LEASEQ_INVALID_ARGUMENT naming `state`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_count` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_count(
    partitioned: *const leaseq_partitioned,
    state: leaseq_state,
    out_count: *mut u64,
) -> leaseq_status {
    call("leaseq_partitioned_count", || {
        let out = unsafe { Out::new(out_count, "out_count", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        let state = state_from_c(state, "state")?;
        out.set(p.inner.count_in(state)?);
        Ok(())
    })
}

/// Sets `*out_list` to up to `count` (1 to 1000) items in `state` from position `start` of the
/// logical queue, which lists partition 0's items (in `leaseq_queue_list`'s order), then
/// partition 1's, and so on: no order by time across partitions. Reads every partition's count
/// first (at once), then the pages it needs.
///
/// `*out_list` is a new list owned by the caller (possibly empty): read it with
/// `leaseq_entry_list_len` and `leaseq_entry_list_get`, free it with `leaseq_entry_list_free`.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_list`;
/// LEASEQ_INVALID_ARGUMENT naming `state` or `count`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT,
/// LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_list` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_list(
    partitioned: *const leaseq_partitioned,
    state: leaseq_state,
    start: usize,
    count: usize,
    out_list: *mut *mut leaseq_entry_list,
) -> leaseq_status {
    call("leaseq_partitioned_list", || {
        let out = unsafe { Out::new(out_list, "out_list", std::ptr::null_mut()) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        let state = state_from_c(state, "state")?;
        out.set(leaseq_entry_list::new(p.inner.list(state, start, count)?));
        Ok(())
    })
}

/// Sets `*out_list` to the entries of `state` whose name is `name` and whose last error's type
/// is `error_type` (NUL-terminated UTF-8; NULL: any), as `leaseq_queue_find` does, over the
/// logical queue's positions as `leaseq_partitioned_list` numbers them (partition 0's, then
/// partition 1's, and so on). One call looks in one partition, the one that holds position
/// `start`, at most at 1000 of its positions, keeping at most `count` (1 to 1000) matches;
/// `*out_next` is set to the `start` of the next call, which goes on in that partition, or at
/// the next partition's first position once this one's end is reached (-1 after the last);
/// `*out_examined` (when not NULL) to how many positions were looked at. Reads every
/// partition's count first (at once), then searches: two round trips.
///
/// `*out_list` is a new list owned by the caller (possibly empty): read it as
/// `leaseq_queue_list`'s, free it with `leaseq_entry_list_free`.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `out_list` or `out_next`;
/// LEASEQ_INVALID_ARGUMENT naming `state`, `name`, `error_type` or `count`; LEASEQ_CONNECTION,
/// LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `name` and `error_type` are NULL or NUL-terminated
/// strings; `out_list` and `out_next` are NULL or writable; `out_examined` is NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn leaseq_partitioned_find(
    partitioned: *const leaseq_partitioned,
    state: leaseq_state,
    name: *const c_char,
    error_type: *const c_char,
    start: usize,
    count: usize,
    out_list: *mut *mut leaseq_entry_list,
    out_next: *mut i64,
    out_examined: *mut usize,
) -> leaseq_status {
    call("leaseq_partitioned_find", || {
        let out_list = unsafe { Out::new(out_list, "out_list", std::ptr::null_mut()) };
        let out_next = unsafe { Out::new(out_next, "out_next", -1) };
        let out_examined = unsafe { Out::new(out_examined, "out_examined", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out_list.required()?;
        out_next.required()?;
        let state = state_from_c(state, "state")?;
        let (name, error_type) = unsafe { find_filters(name, error_type) }?;
        let found = p.inner.find(state, name, error_type, start, count)?;
        set_found(found, &out_list, &out_next, &out_examined);
        Ok(())
    })
}

/// `-1` for "all", otherwise a count of at least 0 (argument `n`).
fn how_many(n: i64) -> Result<Option<u64>, Failure> {
    match n {
        -1 => Ok(None),
        n => u64::try_from(n)
            .map(Some)
            .map_err(|_| Failure::invalid("n", format!("is {n}: give -1 (all) or a count from 0"))),
    }
}

/// Requeues the `n` oldest dead items of the logical queue, by time of death over every
/// partition (attempts reset), or all of every partition's with `n` -1; sets `*out_requeued`
/// to how many were requeued.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_requeued`;
/// LEASEQ_INVALID_ARGUMENT naming `n`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_requeued` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_dead_requeue_oldest(
    partitioned: *const leaseq_partitioned,
    n: i64,
    out_requeued: *mut u64,
) -> leaseq_status {
    call("leaseq_partitioned_dead_requeue_oldest", || {
        let out = unsafe { Out::new(out_requeued, "out_requeued", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        let n = how_many(n)?;
        out.set(p.inner.dead_requeue_oldest(n)?);
        Ok(())
    })
}

/// Deletes the `n` oldest dead items of the logical queue, by time of death over every
/// partition, or all of every partition's with `n` -1; sets `*out_purged` to how many were
/// deleted.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_purged`;
/// LEASEQ_INVALID_ARGUMENT naming `n`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_purged` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_dead_purge(
    partitioned: *const leaseq_partitioned,
    n: i64,
    out_purged: *mut u64,
) -> leaseq_status {
    call("leaseq_partitioned_dead_purge", || {
        let out = unsafe { Out::new(out_purged, "out_purged", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        let n = how_many(n)?;
        out.set(p.inner.dead_purge(n)?);
        Ok(())
    })
}

/// Pauses every partition, as `leaseq_queue_pause` pauses a queue; sets `*out_was_running`
/// to whether any partition was running.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_was_running`;
/// LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_was_running` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_pause(
    partitioned: *const leaseq_partitioned,
    out_was_running: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_pause", || {
        let out = unsafe { Out::new(out_was_running, "out_was_running", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        out.set(p.inner.pause()?);
        Ok(())
    })
}

/// Resumes every partition; sets `*out_was_paused` to whether any partition was paused.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_was_paused`;
/// LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_was_paused` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_resume(
    partitioned: *const leaseq_partitioned,
    out_was_paused: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_resume", || {
        let out = unsafe { Out::new(out_was_paused, "out_was_paused", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        out.set(p.inner.resume()?);
        Ok(())
    })
}

/// Sets `*out_paused` to whether the logical queue is paused: whether every partition is, as
/// `leaseq_queue_is_paused` reads each (also `leaseq_stats_paused` of
/// `leaseq_stats_by_partition_total`). One round trip to every partition at once.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_paused`;
/// LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_paused` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_is_paused(
    partitioned: *const leaseq_partitioned,
    out_paused: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_is_paused", || {
        let out = unsafe { Out::new(out_paused, "out_paused", false) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        out.set(p.inner.is_paused()?);
        Ok(())
    })
}

/// Holds every partition's leases off for `duration_ms` (more than 0, at most one day, checked
/// before anything is sent), as `leaseq_queue_rate_limit` holds a queue's: a handler was rate
/// limited, and the limit is the logical queue's. A longer hold already in place in a partition
/// is kept there. Sets `*out_held_ms` to the longest hold now in place (also
/// `leaseq_stats_rate_limited_for_ms` of `leaseq_stats_by_partition_total`). One round trip to
/// every partition at once.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_held_ms`;
/// LEASEQ_INVALID_ARGUMENT naming `duration_ms` (below zero, 0 or above one day), with nothing
/// written; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `out_held_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_rate_limit(
    partitioned: *const leaseq_partitioned,
    duration_ms: i64,
    out_held_ms: *mut i64,
) -> leaseq_status {
    call("leaseq_partitioned_rate_limit", || {
        let out = unsafe { Out::new(out_held_ms, "out_held_ms", 0) };
        let p = unsafe { arg(partitioned, "partitioned") }?;
        out.required()?;
        let duration = options::millis_arg("duration_ms", duration_ms)?;
        let held = p.inner.rate_limit(duration)?;
        out.set(i64::try_from(held.as_millis()).unwrap_or(i64::MAX));
        Ok(())
    })
}

/// Stores the fields of `config` named in its `set` bits in every partition, as
/// `leaseq_queue_set_config` does in a queue (a capacity or a rate limit then holds per
/// partition). Every field is checked first: a bad one gives LEASEQ_INVALID_ARGUMENT naming it
/// (`config.priority`) and nothing is written.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `config`;
/// LEASEQ_INVALID_ARGUMENT naming the refused field; LEASEQ_CONNECTION, LEASEQ_TIMEOUT,
/// LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle; `config` is NULL or points to a `leaseq_config` of
/// `struct_size` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_set_config(
    partitioned: *const leaseq_partitioned,
    config: *const leaseq_config,
) -> leaseq_status {
    call("leaseq_partitioned_set_config", || {
        let p = unsafe { arg(partitioned, "partitioned") }?;
        if config.is_null() {
            return Err(Failure::Null("config".into()));
        }
        let config = unsafe { options::read(config, "config") }?.unwrap_or_default();
        p.inner.set_config(&config.to_core("config")?)?;
        Ok(())
    })
}

/// Removes every partition's stored configuration, as `leaseq_queue_reset_config` removes a
/// queue's: the protocol's defaults apply again. One round trip to every partition at once.
///
/// Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`; LEASEQ_CONNECTION,
/// LEASEQ_TIMEOUT, LEASEQ_CLOSED.
///
/// # Safety
/// `partitioned` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_reset_config(
    partitioned: *const leaseq_partitioned,
) -> leaseq_status {
    call("leaseq_partitioned_reset_config", || {
        let p = unsafe { arg(partitioned, "partitioned") }?;
        p.inner.reset_config()?;
        Ok(())
    })
}
