//! The queue's event stream (spec/PROTOCOL.md 14): one page at a time
//! (`leaseq_queue_read_events`, a `leaseq_event_page` out-struct) or followed by a blocking
//! call with a callback per entry (`leaseq_queue_events`; a partitioned queue's,
//! `leaseq_partitioned_events`).

use std::ffi::{c_char, c_void, CString};

use leaseq::{EventsFrom, QueueEvent};

use crate::guard::{arg, c_string, call, call_quiet, text, Failure, Out};
use crate::partitioned::leaseq_partitioned;
use crate::queue::leaseq_queue;
use crate::status::leaseq_status;

/// A field of an event entry that `leaseq_event` has no member of (`cancelled`'s `state`, a
/// gap's `first`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_event_field {
    /// The field's name (NUL-terminated UTF-8).
    pub name: *const c_char,
    /// Its value (NUL-terminated UTF-8).
    pub value: *const c_char,
}

/// One entry of a queue's event stream: a transition of an item (spec/PROTOCOL.md 14.2).
///
/// Every string is NUL-terminated UTF-8 and belongs to what gave the event: the page
/// (`leaseq_event_page_free`), or, in the callback of `leaseq_queue_events`, the call of the
/// callback (copy what you keep).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_event {
    /// The entry's id in the stream (`<ms>-<seq>`, the server's clock): resume after it.
    pub id: *const c_char,
    /// What happened: `added`, `delayed`, `blocked`, `unblocked`, `leased`, `progress`,
    /// `completed`, `failed`, `retrying`, `dead`, `cancelled`, `released`, `requeued`,
    /// `expired`, `promoted`, or `gap`
    /// (entries after the position were trimmed away before they were read; its extra field
    /// `first` is the first entry kept). Kinds added later come as they are named.
    pub event: *const c_char,
    /// The item's id ("" for a gap).
    pub job_id: *const c_char,
    /// The item's incarnation ("" for an item without options not leased yet).
    pub inc: *const c_char,
    /// The item's attempts at the transition (0 before its first lease).
    pub attempt: u64,
    /// The failure's error (`failed`; `dead` when the death came with one); NULL when none.
    pub error: *const c_char,
    /// The item's name; NULL when it has none.
    pub name: *const c_char,
    /// When the item runs next (ms since the epoch, server clock: `delayed`, `retrying`,
    /// `released`); -1 when the entry has none.
    pub due_ms: i64,
    /// Why the item is dead (`dead`); NULL otherwise.
    pub reason: *const c_char,
    /// The entry's time: ms since the epoch, the server's clock (from its id).
    pub time_ms: i64,
    /// The entry's other fields, in order (`extra_len` of them; NULL when there are none).
    pub extra: *const leaseq_event_field,
    /// How many fields `extra` holds.
    pub extra_len: usize,
}

/// An event with the strings it points to.
struct OwnedEvent {
    c: leaseq_event,
    _strings: Vec<CString>,
    _extra: Vec<leaseq_event_field>,
}

impl OwnedEvent {
    fn new(ev: &QueueEvent) -> OwnedEvent {
        let mut strings = Vec::new();
        // A CString's bytes stay where they are when the CString moves into the Vec.
        let mut keep = |s: &str| {
            let c = c_string(s);
            let ptr = c.as_ptr();
            strings.push(c);
            ptr
        };
        let id = keep(&ev.id);
        let event = keep(&ev.event);
        let job_id = keep(&ev.job_id);
        let inc = keep(&ev.inc);
        let error = ev.error.as_deref().map_or(std::ptr::null(), &mut keep);
        let name = ev.name.as_deref().map_or(std::ptr::null(), &mut keep);
        let reason = ev.reason.as_deref().map_or(std::ptr::null(), &mut keep);
        let extra: Vec<leaseq_event_field> = ev
            .extra
            .iter()
            .map(|(n, v)| leaseq_event_field {
                name: keep(n),
                value: keep(v),
            })
            .collect();
        let c = leaseq_event {
            id,
            event,
            job_id,
            inc,
            attempt: ev.attempt,
            error,
            name,
            due_ms: ev.due.map_or(-1, ms),
            reason,
            time_ms: ms(ev.time_ms),
            extra: if extra.is_empty() {
                std::ptr::null()
            } else {
                extra.as_ptr()
            },
            extra_len: extra.len(),
        };
        OwnedEvent {
            c,
            _strings: strings,
            _extra: extra,
        }
    }
}

fn ms(t: u64) -> i64 {
    i64::try_from(t).unwrap_or(i64::MAX)
}

/// One page of a queue's event stream (`leaseq_queue_read_events`), owned by the caller: free
/// it with `leaseq_event_page_free`. Everything it points to lives until then.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_event_page {
    /// The entries, oldest first (`events_len` of them; NULL when there are none); a `gap`
    /// entry first when entries after `after` were trimmed away before this read.
    pub events: *const leaseq_event,
    /// How many entries `events` holds.
    pub events_len: usize,
    /// The stream's last id (`0-0` when it has none): where a follower from now starts.
    pub last: *const c_char,
    /// Whether the queue's events are on now (`leaseq_config.events`).
    pub on: bool,
}

/// A page with what it points to; `c` first, so that a pointer to it is one to `c`.
#[repr(C)]
struct OwnedPage {
    c: leaseq_event_page,
    _owned: Vec<OwnedEvent>,
    _events: Vec<leaseq_event>,
    _last: CString,
}

/// Reads one page of the queue's event stream, without waiting: at most `count` (1 to 1000)
/// entries after the entry id `after` (NUL-terminated, `<ms>-<seq>` as a `leaseq_event.id`;
/// `"0-0"`: every entry still kept), oldest first. `after` NULL reads from now: no entries, only
/// the stream's last id (`last`), where a follower from now starts. An `after` that is no
/// event id, or later than the stream's last entry, gives `LEASEQ_INVALID_ARGUMENT` naming
/// `after`. One round trip.
///
/// On success `*out_page` is a new page owned by the caller: free it with
/// `leaseq_event_page_free`. On failure it is set to NULL.
///
/// # Safety
/// `queue` is NULL or a live queue; `after` is NULL or a NUL-terminated string; `out_page` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_read_events(
    queue: *const leaseq_queue,
    after: *const c_char,
    count: usize,
    out_page: *mut *mut leaseq_event_page,
) -> leaseq_status {
    call("leaseq_queue_read_events", || {
        let out_page = unsafe { Out::new(out_page, "out_page", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let after = if after.is_null() {
            None
        } else {
            Some(unsafe { text(after, "after") }?)
        };
        out_page.required()?;
        let page = queue.inner.read_events(after, count)?;
        let owned: Vec<OwnedEvent> = page.events.iter().map(OwnedEvent::new).collect();
        let events: Vec<leaseq_event> = owned.iter().map(|e| e.c).collect();
        let last = c_string(&page.last);
        let c = leaseq_event_page {
            events: if events.is_empty() {
                std::ptr::null()
            } else {
                events.as_ptr()
            },
            events_len: events.len(),
            last: last.as_ptr(),
            on: page.on,
        };
        let boxed = Box::new(OwnedPage {
            c,
            _owned: owned,
            _events: events,
            _last: last,
        });
        out_page.set(Box::into_raw(boxed).cast::<leaseq_event_page>());
        Ok(())
    })
}

/// Frees a page of events. NULL is accepted and ignored. Everything it points to becomes
/// invalid.
///
/// # Safety
/// `page` is NULL or a page from `leaseq_queue_read_events`, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_event_page_free(page: *mut leaseq_event_page) {
    call_quiet((), || {
        if !page.is_null() {
            // SAFETY: made by Box::into_raw of an OwnedPage (whose first field it points to)
            // in this crate, and freed once, by contract.
            drop(unsafe { Box::from_raw(page.cast::<OwnedPage>()) });
        }
    })
}

/// Called by `leaseq_queue_events` with each entry, in order, on the thread that called it.
/// `event` and its strings are valid only during the call. `position` is the follower's
/// position after this entry (NUL-terminated, valid during the call; NULL while there is none,
/// as for a `gap` first from now): store it, and a follower started after it later misses
/// nothing still kept. Return 0 to go on, anything else to stop following (the call then
/// returns `LEASEQ_OK`). It may call any leaseq function (of another queue or client too).
pub type leaseq_event_callback = Option<
    unsafe extern "C" fn(
        event: *const leaseq_event,
        position: *const c_char,
        user_data: *mut c_void,
    ) -> i32,
>;

/// Follows the queue's event stream: calls `callback` with each entry, in order, as they come,
/// blocking the calling thread while it waits for the next (in Redis, never polling, on a
/// connection of its own: other calls on the same client, from other threads, go on). From now
/// (`after` NULL), or resuming after the entry id `after` (as a `leaseq_event.id` or a stored
/// `position`; `"0-0"`: every entry still kept): a process that restarts misses nothing still
/// in the stream. Errors that a retry may cure (a lost connection, a failover) are waited out.
///
/// Returns `LEASEQ_OK` once `callback` returned non-zero; `LEASEQ_CLOSED` when the client is
/// closed (`leaseq_client_close` from another thread ends the wait at once); an `after` that is
/// no event id gives `LEASEQ_INVALID_ARGUMENT` naming `after`, and other errors their status.
/// `user_data` is given to `callback` as it is.
///
/// # Safety
/// `queue` is NULL or a live queue that outlives the call; `after` is NULL or a NUL-terminated
/// string; `callback` is NULL or a function safe to call as documented with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_events(
    queue: *const leaseq_queue,
    after: *const c_char,
    callback: leaseq_event_callback,
    user_data: *mut c_void,
) -> leaseq_status {
    call("leaseq_queue_events", || {
        let queue = unsafe { arg(queue, "queue") }?;
        let from = unsafe { from(after) }?;
        let callback = callback.ok_or_else(|| Failure::Null("callback".into()))?;
        follow(queue.inner.events(from)?, |event, _, position| {
            // SAFETY: a valid event and position for the call, by the callback's contract.
            unsafe { callback(event, position, user_data) }
        })
    })
}

/// Called by `leaseq_partitioned_events` with each entry, as `leaseq_event_callback` is, with
/// the index of the `partition` whose stream it is in. `position` holds one id per partition,
/// joined by `,`.
pub type leaseq_partitioned_event_callback = Option<
    unsafe extern "C" fn(
        event: *const leaseq_event,
        partition: usize,
        position: *const c_char,
        user_data: *mut c_void,
    ) -> i32,
>;

/// Follows every partition's event stream at once, as `leaseq_queue_events` follows one:
/// `callback` gets each entry with the index of its partition. Each partition's entries come
/// in their order; across partitions, the earliest of those read first, and no order beyond
/// that. It waits on every partition's stream at once (a connection each). From now (`after`
/// NULL), or after `after`: a stored `position` (one id per partition, joined by `,`), or one
/// id for every partition (`"0-0"`: every entry still kept). Another count of ids, or an id
/// that is none, gives `LEASEQ_INVALID_ARGUMENT` naming `after`, sending nothing; so does an id
/// later than its partition's last entry.
///
/// Returns as `leaseq_queue_events` does.
///
/// # Safety
/// As `leaseq_queue_events`, with `partitioned` NULL or a live partitioned queue that outlives
/// the call.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_events(
    partitioned: *const leaseq_partitioned,
    after: *const c_char,
    callback: leaseq_partitioned_event_callback,
    user_data: *mut c_void,
) -> leaseq_status {
    call("leaseq_partitioned_events", || {
        let partitioned = unsafe { arg(partitioned, "partitioned") }?;
        let from = unsafe { from(after) }?;
        let callback = callback.ok_or_else(|| Failure::Null("callback".into()))?;
        follow(
            partitioned.inner.events(from)?,
            |event, partition, position| {
                // SAFETY: a valid event and position for the call, by the callback's contract.
                unsafe { callback(event, partition.unwrap_or(0), position, user_data) }
            },
        )
    })
}

/// Where a follower starts: after `after`, or now when it is NULL.
///
/// # Safety
/// `after` is NULL or a NUL-terminated string.
unsafe fn from(after: *const c_char) -> Result<EventsFrom, Failure> {
    Ok(if after.is_null() {
        EventsFrom::Now
    } else {
        EventsFrom::After(unsafe { text(after, "after") }?.to_owned())
    })
}

/// Hands each entry of `events` to `deliver` with its partition and the position after it,
/// until `deliver` returns non-zero (`Ok`) or the follower ends (its error).
fn follow(
    mut events: leaseq::blocking::Events,
    mut deliver: impl FnMut(&leaseq_event, Option<usize>, *const c_char) -> i32,
) -> Result<(), Failure> {
    loop {
        let Some(next) = events.next() else {
            return Err(Failure::Core(leaseq::Error::Closed));
        };
        let next = next?;
        let event = OwnedEvent::new(&next);
        let position = events.position().map(c_string);
        let position_ptr = position.as_ref().map_or(std::ptr::null(), |p| p.as_ptr());
        if deliver(&event.c, next.partition, position_ptr) != 0 {
            return Ok(());
        }
    }
}
