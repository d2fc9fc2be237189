//! Recurring jobs (spec/PROTOCOL.md 5.23): upsert (`leaseq_schedule`), remove, get and list
//! (`leaseq_schedule_info` and `leaseq_schedule_page` out-structs, freed by their `_free`
//! function), and firing the due ones where no runner does (`leaseq_fire_report`). Runners fire
//! schedules already, through the core.

use std::ffi::{c_char, CString};
use std::time::Duration;

use leaseq::{blocking, Every, FireReport, Item, Missed, Schedule, ScheduleInfo, SchedulePage};

use crate::guard::{arg, bytes, c_string, call, call_quiet, text, Failure, Out};
use crate::options::{
    self, leaseq_missed, leaseq_schedule, millis, LEASEQ_MISSED_ALL, LEASEQ_MISSED_ONCE,
    LEASEQ_MISSED_SKIP, LEASEQ_SCHEDULE_CRON, LEASEQ_SCHEDULE_DATA, LEASEQ_SCHEDULE_EVERY,
    LEASEQ_SCHEDULE_ITEM_OPTIONS, LEASEQ_SCHEDULE_MISSED, LEASEQ_SCHEDULE_TZ,
};
use crate::partitioned::leaseq_partitioned;
use crate::queue::leaseq_queue;
use crate::status::leaseq_status;

/// What holds recurring jobs: a queue, or a partitioned queue (they live in its partition 0,
/// spec/PROTOCOL.md 5.25: the core routes them). Each C function of this file takes one.
trait Schedules {
    fn upsert(&self, name: &str, schedule: &Schedule) -> leaseq::Result<bool>;
    fn remove(&self, name: &str) -> leaseq::Result<bool>;
    fn get(&self, name: &str) -> leaseq::Result<Option<ScheduleInfo>>;
    fn page(&self, start: usize, count: usize) -> leaseq::Result<SchedulePage>;
    fn fire(&self) -> leaseq::Result<FireReport>;
}

macro_rules! schedules_of {
    ($($t:ty),*) => {$(
        impl Schedules for $t {
            fn upsert(&self, name: &str, schedule: &Schedule) -> leaseq::Result<bool> {
                self.upsert_schedule(name, schedule)
            }
            fn remove(&self, name: &str) -> leaseq::Result<bool> {
                self.remove_schedule(name)
            }
            fn get(&self, name: &str) -> leaseq::Result<Option<ScheduleInfo>> {
                self.get_schedule(name)
            }
            fn page(&self, start: usize, count: usize) -> leaseq::Result<SchedulePage> {
                self.schedules(start, count)
            }
            fn fire(&self) -> leaseq::Result<FireReport> {
                self.fire_due_schedules()
            }
        }
    )*};
}
schedules_of!(blocking::Queue, blocking::Partitioned);

/// The queue of a call, checked (`queue` names it).
///
/// # Safety
/// `queue` is NULL or a live queue.
unsafe fn queue<'a>(queue: *const leaseq_queue) -> Result<&'a blocking::Queue, Failure> {
    unsafe { arg(queue, "queue") }.map(|q| &q.inner)
}

/// The partitioned queue of a call, checked (`partitioned` names it).
///
/// # Safety
/// `partitioned` is NULL or a live partitioned queue.
unsafe fn partitioned<'a>(
    partitioned: *const leaseq_partitioned,
) -> Result<&'a blocking::Partitioned, Failure> {
    unsafe { arg(partitioned, "partitioned") }.map(|p| &p.inner)
}

impl leaseq_schedule {
    /// The core's schedule (checked by the core when it is upserted).
    ///
    /// # Safety
    /// Each pointer whose bit is set is NULL or valid as the struct documents.
    unsafe fn to_core(self, name: &str) -> Result<Schedule, Failure> {
        let set = |bit| self.set & bit != 0;
        let mut schedule = match (set(LEASEQ_SCHEDULE_CRON), set(LEASEQ_SCHEDULE_EVERY)) {
            (true, false) => Schedule::cron(unsafe { text(self.cron, format!("{name}.cron")) }?),
            (false, true) => Schedule::every(millis(name, "every_ms", self.every_ms)?),
            _ => {
                return Err(Failure::invalid(
                    format!("{name}.set"),
                    "needs exactly one of LEASEQ_SCHEDULE_CRON and LEASEQ_SCHEDULE_EVERY",
                ))
            }
        };
        if set(LEASEQ_SCHEDULE_TZ) {
            schedule = schedule.tz(unsafe { text(self.tz, format!("{name}.tz")) }?);
        }
        if set(LEASEQ_SCHEDULE_MISSED) {
            schedule = schedule.missed(match self.missed {
                LEASEQ_MISSED_SKIP => Missed::Skip,
                LEASEQ_MISSED_ONCE => Missed::Once,
                // The core checks the bound, naming `missed`.
                LEASEQ_MISSED_ALL => Missed::All(self.missed_all),
                other => {
                    return Err(Failure::invalid(
                        format!("{name}.missed"),
                        format!("is {other}: not one of the LEASEQ_MISSED_* values"),
                    ))
                }
            });
        }
        let data = if set(LEASEQ_SCHEDULE_DATA) {
            unsafe { bytes(self.data, self.data_len, "schedule.data") }?.to_vec()
        } else {
            Vec::new()
        };
        let mut item = Item::new(data);
        if set(LEASEQ_SCHEDULE_ITEM_OPTIONS) {
            let field = format!("{name}.item_options");
            if self.item_options.is_null() {
                return Err(Failure::Null(field.into()));
            }
            if let Some(o) = unsafe { options::read(self.item_options, &field) }? {
                item = unsafe { o.apply(item, &field) }?;
            }
        }
        Ok(schedule.item(item))
    }
}

/// Stores the recurring job `name` (NUL-terminated UTF-8, 1 to 200 bytes), new or changed: a
/// change never fires a tick twice nor skips one. Every field of `schedule` is checked first (a
/// bad one gives `LEASEQ_INVALID_ARGUMENT` naming it: `cron`, `tz`, `every_ms`, `missed`, `item`,
/// `data` or an item option) and nothing is written. The queue's runners, in every language,
/// fire it: one item per tick, however many run. One round trip.
///
/// On success `*out_created` is true when the schedule is new, false when it replaced one.
///
/// # Safety
/// `queue` is NULL or a live queue; `name` is NULL or a NUL-terminated string; `schedule` is
/// NULL or a `leaseq_schedule` of `struct_size` readable bytes, its pointers valid as it
/// documents; `out_created` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_upsert_schedule(
    queue: *const leaseq_queue,
    name: *const c_char,
    schedule: *const leaseq_schedule,
    out_created: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_upsert_schedule", || unsafe {
        upsert(|| self::queue(queue), name, schedule, out_created)
    })
}

/// `leaseq_queue_upsert_schedule` in partition 0 of a partitioned queue, where its recurring
/// jobs live (spec/PROTOCOL.md 5.25): its runners fire them, and their items are added there.
/// The same checks and outputs. One round trip.
///
/// # Safety
/// As `leaseq_queue_upsert_schedule`, with `partitioned` NULL or a live partitioned queue.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_upsert_schedule(
    partitioned: *const leaseq_partitioned,
    name: *const c_char,
    schedule: *const leaseq_schedule,
    out_created: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_upsert_schedule", || unsafe {
        upsert(
            || self::partitioned(partitioned),
            name,
            schedule,
            out_created,
        )
    })
}

/// The body of both upserts.
///
/// # Safety
/// As `leaseq_queue_upsert_schedule`.
unsafe fn upsert<'a, T: Schedules + 'a>(
    target: impl FnOnce() -> Result<&'a T, Failure>,
    name: *const c_char,
    schedule: *const leaseq_schedule,
    out_created: *mut bool,
) -> Result<(), Failure> {
    let out_created = unsafe { Out::new(out_created, "out_created", false) };
    let target = target()?;
    let name = unsafe { text(name, "name") }?;
    if schedule.is_null() {
        return Err(Failure::Null("schedule".into()));
    }
    out_created.required()?;
    let schedule = unsafe { options::read(schedule, "schedule") }?.unwrap_or_default();
    let schedule = unsafe { schedule.to_core("schedule") }?;
    out_created.set(target.upsert(name, &schedule)?);
    Ok(())
}

/// Removes the recurring job `name`; the items it added stay. On success `*out_removed` says
/// whether there was one. One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `name` is NULL or a NUL-terminated string; `out_removed`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_remove_schedule(
    queue: *const leaseq_queue,
    name: *const c_char,
    out_removed: *mut bool,
) -> leaseq_status {
    call("leaseq_queue_remove_schedule", || unsafe {
        remove(|| self::queue(queue), name, out_removed)
    })
}

/// `leaseq_queue_remove_schedule` in partition 0 of a partitioned queue. One round trip.
///
/// # Safety
/// As `leaseq_queue_remove_schedule`, with `partitioned` NULL or a live partitioned queue.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_remove_schedule(
    partitioned: *const leaseq_partitioned,
    name: *const c_char,
    out_removed: *mut bool,
) -> leaseq_status {
    call("leaseq_partitioned_remove_schedule", || unsafe {
        remove(|| self::partitioned(partitioned), name, out_removed)
    })
}

/// The body of both removes.
///
/// # Safety
/// As `leaseq_queue_remove_schedule`.
unsafe fn remove<'a, T: Schedules + 'a>(
    target: impl FnOnce() -> Result<&'a T, Failure>,
    name: *const c_char,
    out_removed: *mut bool,
) -> Result<(), Failure> {
    let out_removed = unsafe { Out::new(out_removed, "out_removed", false) };
    let target = target()?;
    let name = unsafe { text(name, "name") }?;
    out_removed.required()?;
    out_removed.set(target.remove(name)?);
    Ok(())
}

/// A stored recurring job with its next fire time (`leaseq_queue_get_schedule`, or an entry of
/// a `leaseq_schedule_page`). Strings are NUL-terminated UTF-8. Times are ms since the epoch on
/// the server's clock, -1 when unknown.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_schedule_info {
    /// Its name.
    pub name: *const c_char,
    /// false when its stored fields are not a schedule this version reads (written by a newer
    /// version): then `cron`, `tz` and `data` are NULL, `every_ms` -1, and only the counters
    /// and times below are known.
    pub readable: bool,
    /// Its cron expression; NULL for a schedule every `every_ms`.
    pub cron: *const c_char,
    /// The time zone of its cron expression; NULL when none was given (UTC).
    pub tz: *const c_char,
    /// Its period in ms; -1 for a cron schedule.
    pub every_ms: i64,
    /// What it does with missed ticks: a `LEASEQ_MISSED_*` value.
    pub missed: leaseq_missed,
    /// With `LEASEQ_MISSED_ALL`: at most this many missed ticks fire; otherwise 0.
    pub missed_all: u32,
    /// The data of the item each tick adds (`data_len` bytes, followed by a NUL that is not
    /// part of them).
    pub data: *const u8,
    /// The length of `data` in bytes.
    pub data_len: usize,
    /// Bumped by every upsert (1 for a new schedule).
    pub version: u64,
    /// The next tick to fire; -1 when unknown.
    pub next_ms: i64,
    /// Every tick at or before this instant was fired or skipped.
    pub from_ms: i64,
    /// Ticks fired so far.
    pub fired: u64,
    /// Missed ticks skipped so far (by the policy).
    pub skipped: u64,
    /// The last tick fired; -1 when none.
    pub last_tick_ms: i64,
    /// When it was created.
    pub created_ms: i64,
    /// When it was last upserted.
    pub updated_ms: i64,
}

fn ms(t: u64) -> i64 {
    i64::try_from(t).unwrap_or(i64::MAX)
}

fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// A schedule's strings and data, kept alive for its `leaseq_schedule_info`.
struct Kept {
    _strings: Vec<CString>,
    _data: Vec<u8>,
}

fn info(s: &ScheduleInfo) -> (leaseq_schedule_info, Kept) {
    let mut strings = Vec::new();
    let mut keep = |t: &str| {
        let c = c_string(t);
        let ptr = c.as_ptr();
        strings.push(c);
        ptr
    };
    let name = keep(&s.name);
    let mut c = leaseq_schedule_info {
        name,
        readable: s.schedule.is_some(),
        cron: std::ptr::null(),
        tz: std::ptr::null(),
        every_ms: -1,
        missed: LEASEQ_MISSED_SKIP,
        missed_all: 0,
        data: std::ptr::null(),
        data_len: 0,
        version: s.version,
        next_ms: s.next.map_or(-1, ms),
        from_ms: ms(s.from),
        fired: s.fired,
        skipped: s.skipped,
        last_tick_ms: s.last_tick.map_or(-1, ms),
        created_ms: ms(s.created),
        updated_ms: ms(s.updated),
    };
    let mut data = Vec::new();
    if let Some(schedule) = &s.schedule {
        match schedule.when() {
            Every::Cron(expr) => c.cron = keep(expr),
            Every::Period(period) => c.every_ms = duration_ms(*period),
            // A kind this version does not know: shown as neither.
            #[allow(unreachable_patterns)]
            _ => {}
        }
        if let Some(tz) = schedule.time_zone() {
            c.tz = keep(tz);
        }
        (c.missed, c.missed_all) = match schedule.missed_policy() {
            Missed::Skip => (LEASEQ_MISSED_SKIP, 0),
            Missed::Once => (LEASEQ_MISSED_ONCE, 0),
            Missed::All(n) => (LEASEQ_MISSED_ALL, n),
            // A policy this version does not know: shown as the default, skip.
            _ => (LEASEQ_MISSED_SKIP, 0),
        };
        data = schedule.template().data().to_vec();
        c.data_len = data.len();
        data.push(0);
        c.data = data.as_ptr();
    }
    (
        c,
        Kept {
            _strings: strings,
            _data: data,
        },
    )
}

/// `leaseq_schedule_info` with what it points to; `c` first.
#[repr(C)]
struct OwnedInfo {
    c: leaseq_schedule_info,
    _kept: Kept,
}

/// Reads the recurring job `name`, with its next fire time. One round trip.
///
/// On success `*out_schedule` is new, owned by the caller (free it with
/// `leaseq_schedule_info_free`), or NULL when there is no schedule of that name.
///
/// # Safety
/// `queue` is NULL or a live queue; `name` is NULL or a NUL-terminated string; `out_schedule`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_get_schedule(
    queue: *const leaseq_queue,
    name: *const c_char,
    out_schedule: *mut *mut leaseq_schedule_info,
) -> leaseq_status {
    call("leaseq_queue_get_schedule", || unsafe {
        get(|| self::queue(queue), name, out_schedule)
    })
}

/// `leaseq_queue_get_schedule` in partition 0 of a partitioned queue (free what it gives with
/// `leaseq_schedule_info_free`). One round trip.
///
/// # Safety
/// As `leaseq_queue_get_schedule`, with `partitioned` NULL or a live partitioned queue.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_get_schedule(
    partitioned: *const leaseq_partitioned,
    name: *const c_char,
    out_schedule: *mut *mut leaseq_schedule_info,
) -> leaseq_status {
    call("leaseq_partitioned_get_schedule", || unsafe {
        get(|| self::partitioned(partitioned), name, out_schedule)
    })
}

/// The body of both gets.
///
/// # Safety
/// As `leaseq_queue_get_schedule`.
unsafe fn get<'a, T: Schedules + 'a>(
    target: impl FnOnce() -> Result<&'a T, Failure>,
    name: *const c_char,
    out_schedule: *mut *mut leaseq_schedule_info,
) -> Result<(), Failure> {
    let out = unsafe { Out::new(out_schedule, "out_schedule", std::ptr::null_mut()) };
    let target = target()?;
    let name = unsafe { text(name, "name") }?;
    out.required()?;
    if let Some(found) = target.get(name)? {
        let (c, kept) = info(&found);
        let boxed = Box::new(OwnedInfo { c, _kept: kept });
        out.set(Box::into_raw(boxed).cast::<leaseq_schedule_info>());
    }
    Ok(())
}

/// Frees what `leaseq_queue_get_schedule` gave. NULL is accepted and ignored.
///
/// # Safety
/// `schedule` is NULL or from `leaseq_queue_get_schedule` (or `leaseq_partitioned_get_schedule`),
/// freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_schedule_info_free(schedule: *mut leaseq_schedule_info) {
    call_quiet((), || {
        if !schedule.is_null() {
            // SAFETY: made by Box::into_raw of an OwnedInfo (whose first field it points to)
            // in this crate, and freed once, by contract.
            drop(unsafe { Box::from_raw(schedule.cast::<OwnedInfo>()) });
        }
    })
}

/// A page of a queue's recurring jobs, by next fire time (`leaseq_queue_schedules`), owned by
/// the caller: free it with `leaseq_schedule_page_free`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_schedule_page {
    /// The server's clock when it was read (ms since the epoch).
    pub now_ms: i64,
    /// How many schedules the queue has.
    pub total: u64,
    /// The page (`schedules_len` entries; NULL when empty).
    pub schedules: *const leaseq_schedule_info,
    /// How many entries `schedules` holds.
    pub schedules_len: usize,
}

/// `leaseq_schedule_page` with what it points to; `c` first.
#[repr(C)]
struct OwnedPage {
    c: leaseq_schedule_page,
    _kept: Vec<Kept>,
    _infos: Vec<leaseq_schedule_info>,
}

/// Reads at most `count` of the queue's recurring jobs from the `start`-th, by next fire time,
/// and how many there are. One round trip.
///
/// On success `*out_page` is a new page owned by the caller: free it with
/// `leaseq_schedule_page_free`. On failure it is set to NULL.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_page` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_schedules(
    queue: *const leaseq_queue,
    start: usize,
    count: usize,
    out_page: *mut *mut leaseq_schedule_page,
) -> leaseq_status {
    call("leaseq_queue_schedules", || unsafe {
        page(|| self::queue(queue), start, count, out_page)
    })
}

/// `leaseq_queue_schedules` in partition 0 of a partitioned queue (free the page with
/// `leaseq_schedule_page_free`). One round trip.
///
/// # Safety
/// As `leaseq_queue_schedules`, with `partitioned` NULL or a live partitioned queue.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_schedules(
    partitioned: *const leaseq_partitioned,
    start: usize,
    count: usize,
    out_page: *mut *mut leaseq_schedule_page,
) -> leaseq_status {
    call("leaseq_partitioned_schedules", || unsafe {
        page(|| self::partitioned(partitioned), start, count, out_page)
    })
}

/// The body of both pages.
///
/// # Safety
/// As `leaseq_queue_schedules`.
unsafe fn page<'a, T: Schedules + 'a>(
    target: impl FnOnce() -> Result<&'a T, Failure>,
    start: usize,
    count: usize,
    out_page: *mut *mut leaseq_schedule_page,
) -> Result<(), Failure> {
    let out = unsafe { Out::new(out_page, "out_page", std::ptr::null_mut()) };
    let target = target()?;
    out.required()?;
    let page = target.page(start, count)?;
    let (infos, kept): (Vec<_>, Vec<_>) = page.schedules.iter().map(info).unzip();
    let c = leaseq_schedule_page {
        now_ms: ms(page.now),
        total: page.total,
        schedules: if infos.is_empty() {
            std::ptr::null()
        } else {
            infos.as_ptr()
        },
        schedules_len: infos.len(),
    };
    let boxed = Box::new(OwnedPage {
        c,
        _kept: kept,
        _infos: infos,
    });
    out.set(Box::into_raw(boxed).cast::<leaseq_schedule_page>());
    Ok(())
}

/// Frees a page of schedules. NULL is accepted and ignored.
///
/// # Safety
/// `page` is NULL or from `leaseq_queue_schedules` (or `leaseq_partitioned_schedules`), freed
/// only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_schedule_page_free(page: *mut leaseq_schedule_page) {
    call_quiet((), || {
        if !page.is_null() {
            // SAFETY: made by Box::into_raw of an OwnedPage (whose first field it points to)
            // in this crate, and freed once, by contract.
            drop(unsafe { Box::from_raw(page.cast::<OwnedPage>()) });
        }
    })
}

/// What `leaseq_queue_fire_due_schedules` did (a plain struct of fixed layout, written by the
/// call).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct leaseq_fire_report {
    /// Schedules it found due.
    pub due: usize,
    /// Ticks it fired (items added; an id that existed adds none).
    pub fired: usize,
    /// Missed ticks it skipped by their schedules' policies.
    pub skipped: u64,
    /// Fire calls that found their schedule moved by another firer or an upsert (no effect).
    pub lost_races: usize,
    /// Schedules whose stored fields it could not read (left alone).
    pub unreadable: usize,
    /// How long until the next schedule is due, by the server's clock, in ms; -1 when none is
    /// stored.
    pub next_due_in_ms: i64,
}

/// Fires the queue's due recurring jobs once, where no runner does (a runner fires them as part
/// of its housekeeping): one item per tick, however many callers fire at once. One round trip,
/// and one more per 100 due schedules.
///
/// On success `*out_report` says what it did; on failure it is all zeros, `next_due_in_ms` -1.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_report` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_fire_due_schedules(
    queue: *const leaseq_queue,
    out_report: *mut leaseq_fire_report,
) -> leaseq_status {
    call("leaseq_queue_fire_due_schedules", || unsafe {
        fire(|| self::queue(queue), out_report)
    })
}

/// `leaseq_queue_fire_due_schedules` in partition 0 of a partitioned queue, as a runner over
/// it fires them: for a process without a runner.
///
/// # Safety
/// As `leaseq_queue_fire_due_schedules`, with `partitioned` NULL or a live partitioned queue.
#[no_mangle]
pub unsafe extern "C" fn leaseq_partitioned_fire_due_schedules(
    partitioned: *const leaseq_partitioned,
    out_report: *mut leaseq_fire_report,
) -> leaseq_status {
    call("leaseq_partitioned_fire_due_schedules", || unsafe {
        fire(|| self::partitioned(partitioned), out_report)
    })
}

/// The body of both fires.
///
/// # Safety
/// As `leaseq_queue_fire_due_schedules`.
unsafe fn fire<'a, T: Schedules + 'a>(
    target: impl FnOnce() -> Result<&'a T, Failure>,
    out_report: *mut leaseq_fire_report,
) -> Result<(), Failure> {
    let empty = leaseq_fire_report {
        next_due_in_ms: -1,
        ..Default::default()
    };
    let out = unsafe { Out::new(out_report, "out_report", empty) };
    let target = target()?;
    out.required()?;
    let report = target.fire()?;
    out.set(leaseq_fire_report {
        due: report.due,
        fired: report.fired,
        skipped: report.skipped,
        lost_races: report.lost_races,
        unreadable: report.unreadable,
        next_due_in_ms: report.next_due_in.map_or(-1, duration_ms),
    });
    Ok(())
}
