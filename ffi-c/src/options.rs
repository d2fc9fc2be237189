//! Option structs that can grow: `leaseq_add_options`, `leaseq_lease_options`, `leaseq_config`
//! and the `leaseq_backoff` they share.
//!
//! Each starts with `struct_size` (the caller's `sizeof`, set by the `*_INIT` macro) and `set`
//! (bits naming the fields the caller gave). The library reads only the bytes that fit in
//! `struct_size`, so a program compiled against an older, smaller struct keeps working; a bit
//! in `set` for a field the caller's struct does not hold, or a bit this library does not know,
//! is refused. Fields whose bit is clear are not given: the core's defaults apply.

use std::ffi::c_char;
use std::mem::{offset_of, size_of, MaybeUninit};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use leaseq::{Backoff, Item, QueueConfig};

use crate::guard::{text, Failure};

/// How a failed item waits before its next attempt: one of the `LEASEQ_BACKOFF_*` values.
#[allow(non_camel_case_types)]
pub type leaseq_backoff_kind = i32;

/// The same delay, `base_ms`, after every failed attempt.
pub const LEASEQ_BACKOFF_FIXED: leaseq_backoff_kind = 0;
/// `base_ms * 2^(attempt-1)`, at most `cap_ms`; with `jitter`, a random delay between half of
/// that and all of it.
pub const LEASEQ_BACKOFF_EXPONENTIAL: leaseq_backoff_kind = 1;

/// A retry delay policy, part of `leaseq_add_options` and `leaseq_config` (a plain struct of
/// fixed layout). The core checks the values: delays of at most 10 years, and for an
/// exponential backoff a base above zero and a cap at least as long as the base.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct leaseq_backoff {
    /// `LEASEQ_BACKOFF_FIXED` or `LEASEQ_BACKOFF_EXPONENTIAL`.
    pub kind: leaseq_backoff_kind,
    /// Exponential only: randomise each delay between half of it and all of it (the protocol's
    /// default backoff has jitter). Ignored for a fixed backoff.
    pub jitter: bool,
    /// Fixed: the delay; exponential: the first retry's delay. Milliseconds.
    pub base_ms: i64,
    /// Exponential: the longest delay, in milliseconds. Ignored for a fixed backoff.
    pub cap_ms: i64,
}

/// Options of an item, for `leaseq_queue_add_with_options`, `leaseq_queue_add_unique_with_options`
/// and `leaseq_queue_add_batch_with_options`.
///
/// Start from `LEASEQ_ADD_OPTIONS_INIT` (which sets `struct_size` and clears the rest), then set
/// fields and OR their `LEASEQ_ADD_*` bits into `set`:
///
/// ```c
/// leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
/// options.priority = 5;
/// options.set |= LEASEQ_ADD_PRIORITY;
/// ```
///
/// Fields not set take the queue's stored configuration (`leaseq_queue_set_config`), else the
/// protocol's defaults. An item with no option set is stored exactly as redis-work-queue stores
/// one. Durations are milliseconds; a negative one is refused, naming the field.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_add_options {
    /// `sizeof(leaseq_add_options)` as the caller compiled it; `LEASEQ_ADD_OPTIONS_INIT` sets it.
    pub struct_size: u32,
    /// Which fields below are given: `LEASEQ_ADD_*` bits OR-ed together.
    pub set: u32,
    /// `LEASEQ_ADD_DELAY`: runs no earlier than this long after Redis stores it (the server's
    /// clock). Not with `run_at_ms`.
    pub delay_ms: i64,
    /// `LEASEQ_ADD_RUN_AT`: runs no earlier than this time, in milliseconds since the Unix epoch
    /// (compared with the server's clock). Not with `delay_ms`.
    pub run_at_ms: i64,
    /// `LEASEQ_ADD_PRIORITY`: higher runs first, -1000 to 1000 (default 0); FIFO within one
    /// priority.
    pub priority: i32,
    /// `LEASEQ_ADD_MAX_ATTEMPTS`: after this many attempts (leases) the item is dead instead of
    /// retried; 0: no limit (default 25).
    pub max_attempts: u32,
    /// `LEASEQ_ADD_BACKOFF`: how long a failed attempt waits before the next.
    pub backoff: leaseq_backoff,
    /// `LEASEQ_ADD_EXPIRES_AFTER`: if no lease has taken the item this long after it was added,
    /// it is dead ("expired").
    pub expires_after_ms: i64,
    /// `LEASEQ_ADD_KEEP_RESULT_FOR`: how long a result given when completing the item is kept
    /// (greater than zero; default one day).
    pub keep_result_for_ms: i64,
    /// `LEASEQ_ADD_GROUP`: the item's group (NUL-terminated UTF-8, 1 to 256 bytes, no control
    /// characters; a customer or tenant id, say): at most the group's limit of its items are
    /// leased at once (default 1: FIFO per group), and groups take turns
    /// (`leaseq_queue_set_group_limit`, `leaseq_queue_pause_group`). Read during the call only.
    pub group: *const c_char,
    /// `LEASEQ_ADD_NAME`: the item's name, what kind of job it is (NUL-terminated UTF-8, 1 to
    /// 256 bytes, no control characters; `"send_email"`, say): kept with the item, carried by
    /// its leases (`leaseq_lease_name`), shown by `leaseq_job_name`, counted by name while the
    /// queue's counters are on (`leaseq_queue_counts_by_name`), and a runner with handlers by
    /// name (`leaseq_worker_run_named`) runs the item with the handler of that name. Read
    /// during the call only.
    pub name: *const c_char,
    /// `LEASEQ_ADD_DEPENDS_ON`, with `depends_on_len`: the ids (NUL-terminated UTF-8) of items
    /// of the same queue this item waits for: it is blocked (`LEASEQ_STATE_BLOCKED`, no lease
    /// takes it) until every one of them completed (spec 5.24). The core checks them (argument
    /// `depends_on`: no self, no cycle, in the queue's slot). Read during the call only.
    pub depends_on: *const *const c_char,
    /// `LEASEQ_ADD_DEPENDS_ON`: how many ids `depends_on` holds.
    pub depends_on_len: usize,
    /// `LEASEQ_ADD_ON_DEPENDENCY_FAILURE`: what the item does when one of its dependencies dies
    /// or is cancelled: `LEASEQ_ON_DEPENDENCY_FAILURE_FAIL` (it is dead, with a reason naming
    /// the dependency; the default) or `LEASEQ_ON_DEPENDENCY_FAILURE_RUN` (it runs anyway).
    pub on_dependency_failure: leaseq_on_dependency_failure,
}

/// What a dependant does when one of its dependencies dies or is cancelled: one of the
/// `LEASEQ_ON_DEPENDENCY_FAILURE_*` values.
#[allow(non_camel_case_types)]
pub type leaseq_on_dependency_failure = i32;

/// No policy: the item has no dependencies (only read back, by
/// `leaseq_job_on_dependency_failure` and `leaseq_dependencies`).
pub const LEASEQ_ON_DEPENDENCY_FAILURE_NONE: leaseq_on_dependency_failure = -1;
/// The dependant fails: it is dead, with a reason naming the dependency.
pub const LEASEQ_ON_DEPENDENCY_FAILURE_FAIL: leaseq_on_dependency_failure = 0;
/// The dependant runs anyway, as if the dependency had completed.
pub const LEASEQ_ON_DEPENDENCY_FAILURE_RUN: leaseq_on_dependency_failure = 1;

/// The C value of the core's policy (`LEASEQ_ON_DEPENDENCY_FAILURE_NONE` for none).
pub(crate) fn on_dependency_failure_to_c(
    policy: Option<leaseq::OnDependencyFailure>,
) -> leaseq_on_dependency_failure {
    match policy {
        None => LEASEQ_ON_DEPENDENCY_FAILURE_NONE,
        Some(leaseq::OnDependencyFailure::Fail) => LEASEQ_ON_DEPENDENCY_FAILURE_FAIL,
        Some(leaseq::OnDependencyFailure::Run) => LEASEQ_ON_DEPENDENCY_FAILURE_RUN,
        // A policy this version does not know: parsed from its wire name by the caller's
        // next version; here reported as none rather than a crash.
        #[allow(unreachable_patterns)]
        Some(_) => LEASEQ_ON_DEPENDENCY_FAILURE_NONE,
    }
}

impl Default for leaseq_add_options {
    fn default() -> leaseq_add_options {
        leaseq_add_options {
            struct_size: 0,
            set: 0,
            delay_ms: 0,
            run_at_ms: 0,
            priority: 0,
            max_attempts: 0,
            backoff: leaseq_backoff::default(),
            expires_after_ms: 0,
            keep_result_for_ms: 0,
            group: std::ptr::null(),
            name: std::ptr::null(),
            depends_on: std::ptr::null(),
            depends_on_len: 0,
            on_dependency_failure: 0,
        }
    }
}

/// `leaseq_add_options.delay_ms` is given.
pub const LEASEQ_ADD_DELAY: u32 = 1 << 0;
/// `leaseq_add_options.run_at_ms` is given.
pub const LEASEQ_ADD_RUN_AT: u32 = 1 << 1;
/// `leaseq_add_options.priority` is given.
pub const LEASEQ_ADD_PRIORITY: u32 = 1 << 2;
/// `leaseq_add_options.max_attempts` is given.
pub const LEASEQ_ADD_MAX_ATTEMPTS: u32 = 1 << 3;
/// `leaseq_add_options.backoff` is given.
pub const LEASEQ_ADD_BACKOFF: u32 = 1 << 4;
/// `leaseq_add_options.expires_after_ms` is given.
pub const LEASEQ_ADD_EXPIRES_AFTER: u32 = 1 << 5;
/// `leaseq_add_options.keep_result_for_ms` is given.
pub const LEASEQ_ADD_KEEP_RESULT_FOR: u32 = 1 << 6;
/// `leaseq_add_options.group` is given.
pub const LEASEQ_ADD_GROUP: u32 = 1 << 7;
/// `leaseq_add_options.name` is given.
pub const LEASEQ_ADD_NAME: u32 = 1 << 8;
/// `leaseq_add_options.depends_on` and `depends_on_len` are given.
pub const LEASEQ_ADD_DEPENDS_ON: u32 = 1 << 9;
/// `leaseq_add_options.on_dependency_failure` is given.
pub const LEASEQ_ADD_ON_DEPENDENCY_FAILURE: u32 = 1 << 10;

/// What a schedule does with the ticks it missed (fired more than 10 s late, because no runner
/// was there to fire them): one of the `LEASEQ_MISSED_*` values.
#[allow(non_camel_case_types)]
pub type leaseq_missed = i32;

/// Missed ticks add nothing (the default).
pub const LEASEQ_MISSED_SKIP: leaseq_missed = 0;
/// Missed ticks add one item, for the latest of them.
pub const LEASEQ_MISSED_ONCE: leaseq_missed = 1;
/// Each missed tick adds its item, the latest `missed_all` of them at most (1 to 1000).
pub const LEASEQ_MISSED_ALL: leaseq_missed = 2;

/// A recurring job, for `leaseq_queue_upsert_schedule`: a cron expression (with its time zone)
/// or a period, the item each tick adds, and what to do with missed ticks (spec 5.23).
///
/// Start from `LEASEQ_SCHEDULE_INIT`, then set fields and OR their `LEASEQ_SCHEDULE_*` bits
/// into `set`; exactly one of `LEASEQ_SCHEDULE_CRON` and `LEASEQ_SCHEDULE_EVERY` is required:
///
/// ```c
/// leaseq_schedule schedule = LEASEQ_SCHEDULE_INIT;
/// schedule.cron = "0 3 * * *";
/// schedule.tz = "Europe/Berlin";
/// schedule.set |= LEASEQ_SCHEDULE_CRON | LEASEQ_SCHEDULE_TZ;
/// ```
///
/// The core checks every field (an invalid cron expression or time zone gives
/// `LEASEQ_INVALID_ARGUMENT` naming `cron` or `tz`). Strings are NUL-terminated UTF-8, read
/// during the call only.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_schedule {
    /// `sizeof(leaseq_schedule)` as the caller compiled it; `LEASEQ_SCHEDULE_INIT` sets it.
    pub struct_size: u32,
    /// Which fields below are given: `LEASEQ_SCHEDULE_*` bits OR-ed together.
    pub set: u32,
    /// `LEASEQ_SCHEDULE_CRON`: five fields (minute, hour, day of month, month, day of week), or
    /// six with the seconds first (`"30 0 3 * * *"`), in UTC unless `tz` is given.
    pub cron: *const c_char,
    /// `LEASEQ_SCHEDULE_TZ`: the IANA time zone of a cron schedule (`"Europe/Berlin"`).
    pub tz: *const c_char,
    /// `LEASEQ_SCHEDULE_EVERY`: a fixed period in ms (at least one second): the ticks are the
    /// schedule's creation time plus whole periods.
    pub every_ms: i64,
    /// `LEASEQ_SCHEDULE_MISSED`: `LEASEQ_MISSED_SKIP` (the default), `LEASEQ_MISSED_ONCE` or
    /// `LEASEQ_MISSED_ALL` (with `missed_all`).
    pub missed: leaseq_missed,
    /// `LEASEQ_SCHEDULE_MISSED` with `LEASEQ_MISSED_ALL`: at most this many missed ticks fire
    /// (1 to 1000).
    pub missed_all: u32,
    /// `LEASEQ_SCHEDULE_DATA`, with `data_len`: the data of the item each tick adds (any bytes,
    /// at most 1 MiB; default empty; `data` may be NULL when `data_len` is 0).
    pub data: *const u8,
    /// `LEASEQ_SCHEDULE_DATA`: the length of `data` in bytes.
    pub data_len: usize,
    /// `LEASEQ_SCHEDULE_ITEM_OPTIONS`: the options of the item each tick adds (priority,
    /// max_attempts, backoff, expires_after, keep_result_for, group, name; no delay or run_at),
    /// as `leaseq_queue_add_with_options` takes them. Each item's id is `<name>@<tick ms>`.
    pub item_options: *const leaseq_add_options,
}

impl Default for leaseq_schedule {
    fn default() -> leaseq_schedule {
        leaseq_schedule {
            struct_size: 0,
            set: 0,
            cron: std::ptr::null(),
            tz: std::ptr::null(),
            every_ms: 0,
            missed: 0,
            missed_all: 0,
            data: std::ptr::null(),
            data_len: 0,
            item_options: std::ptr::null(),
        }
    }
}

/// `leaseq_schedule.cron` is given.
pub const LEASEQ_SCHEDULE_CRON: u32 = 1 << 0;
/// `leaseq_schedule.tz` is given.
pub const LEASEQ_SCHEDULE_TZ: u32 = 1 << 1;
/// `leaseq_schedule.every_ms` is given.
pub const LEASEQ_SCHEDULE_EVERY: u32 = 1 << 2;
/// `leaseq_schedule.missed` (and `missed_all`) is given.
pub const LEASEQ_SCHEDULE_MISSED: u32 = 1 << 3;
/// `leaseq_schedule.data` and `data_len` are given.
pub const LEASEQ_SCHEDULE_DATA: u32 = 1 << 4;
/// `leaseq_schedule.item_options` is given.
pub const LEASEQ_SCHEDULE_ITEM_OPTIONS: u32 = 1 << 5;

/// Options of a lease, for `leaseq_queue_lease_with_options` and `leaseq_queue_lease_batch`.
///
/// Start from `LEASEQ_LEASE_OPTIONS_INIT`, then set fields and OR their `LEASEQ_LEASE_*` bits
/// into `set`. Without `LEASEQ_LEASE_TTL` the lease lasts the core's default TTL (30 s); without
/// `LEASEQ_LEASE_TIMEOUT` the call does not wait for an item.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct leaseq_lease_options {
    /// `sizeof(leaseq_lease_options)` as the caller compiled it; `LEASEQ_LEASE_OPTIONS_INIT`
    /// sets it.
    pub struct_size: u32,
    /// Which fields below are given: `LEASEQ_LEASE_*` bits OR-ed together.
    pub set: u32,
    /// `LEASEQ_LEASE_TTL`: how long the lease lasts, 1 ms to 30 days.
    pub ttl_ms: i64,
    /// `LEASEQ_LEASE_TIMEOUT`: how long to wait for an item when none is waiting: 0 not at all,
    /// a positive value up to that long, a negative value until one arrives (or the client is
    /// closed, which ends the wait with `LEASEQ_CLOSED`).
    pub timeout_ms: i64,
}

/// `leaseq_lease_options.ttl_ms` is given.
pub const LEASEQ_LEASE_TTL: u32 = 1 << 0;
/// `leaseq_lease_options.timeout_ms` is given.
pub const LEASEQ_LEASE_TIMEOUT: u32 = 1 << 1;

/// A queue's stored configuration: defaults for its items that every client, in every
/// language, reads from Redis (`leaseq_queue_config`, `leaseq_queue_set_config`).
///
/// Start from `LEASEQ_CONFIG_INIT`. To store values, set fields and OR their `LEASEQ_CONFIG_*`
/// bits into `set`; fields not set keep their stored value. When read, `set` names the fields
/// that are stored; the others are 0 and the protocol's defaults apply to them. Durations are
/// milliseconds; a negative one is refused, naming the field.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct leaseq_config {
    /// `sizeof(leaseq_config)` as the caller compiled it; `LEASEQ_CONFIG_INIT` sets it.
    pub struct_size: u32,
    /// Which fields below are given (or stored): `LEASEQ_CONFIG_*` bits OR-ed together.
    pub set: u32,
    /// `LEASEQ_CONFIG_MAX_ATTEMPTS`: attempts before an item is dead; 0: no limit (default 25).
    pub max_attempts: u32,
    /// `LEASEQ_CONFIG_PRIORITY`: the priority of items added without one (-1000 to 1000;
    /// default 0).
    pub priority: i32,
    /// `LEASEQ_CONFIG_BACKOFF`: the retry delay after a failed attempt (default exponential
    /// from 1 s to 1 h, with jitter).
    pub backoff: leaseq_backoff,
    /// `LEASEQ_CONFIG_EXPIRES_AFTER`: items not started this long after they were added are
    /// dead (default: never).
    pub expires_after_ms: i64,
    /// `LEASEQ_CONFIG_KEEP_RESULT_FOR`: how long a result is kept (greater than zero; default
    /// one day).
    pub keep_result_for_ms: i64,
    /// `LEASEQ_CONFIG_DEAD_MAX_COUNT`: dead letters kept at most (default 10,000).
    pub dead_max_count: u64,
    /// `LEASEQ_CONFIG_DEAD_MAX_AGE`: dead letters older than this go (default seven days).
    pub dead_max_age_ms: i64,
    /// `LEASEQ_CONFIG_STATS`: whether the queue keeps per-minute counters (completed, failed,
    /// dead, expired) for `leaseq_queue_stats` (default off: each minute's counters are a key
    /// that outlives the work by an hour; see `leaseq_stats_counting`).
    pub stats: bool,
    /// `LEASEQ_CONFIG_CAPACITY`: the most items the queue holds waiting or delayed (at least 1;
    /// default no bound). An add past it gives `LEASEQ_FULL` and adds nothing, or waits for
    /// room (`leaseq_queue_add_with_timeout`). A capacity below what the queue holds now is
    /// refused.
    pub capacity: u64,
    /// `LEASEQ_CONFIG_RATE_LIMIT`, with `rate_per_ms`: at most `rate_max` leases in each
    /// window of `rate_per_ms`, counted on the server for every client (1 to 10^9 leases, a
    /// window of 1 ms to one day; default no limit).
    pub rate_max: u64,
    /// `LEASEQ_CONFIG_RATE_LIMIT`: the rate limit's window, in ms.
    pub rate_per_ms: i64,
    /// `LEASEQ_CONFIG_GROUP_CONCURRENCY`: how many items of one group (`LEASEQ_ADD_GROUP`) may
    /// be leased at once, for groups without a limit of their own
    /// (`leaseq_queue_set_group_limit`): 1 to 1000 (default 1: FIFO per group).
    pub group_concurrency: u32,
    /// `LEASEQ_CONFIG_GROUP_RATE_LIMIT`, with `group_rate_per_ms`: at most `group_rate_max`
    /// leases of **each group** (`LEASEQ_ADD_GROUP`) in each window of `group_rate_per_ms`,
    /// every group in its own window, counted on the server for every client (1 to 10^9
    /// leases, a window of 1 ms to one day; default no limit). A group at its limit waits for
    /// its window while the queue's other groups and ungrouped items go on.
    pub group_rate_max: u64,
    /// `LEASEQ_CONFIG_GROUP_RATE_LIMIT`: the groups' rate limit's window, in ms.
    pub group_rate_per_ms: i64,
    /// `LEASEQ_CONFIG_EVENTS`: whether every transition of an item appends an entry to the
    /// queue's event stream (`leaseq_queue_read_events`, `leaseq_queue_events`; default off:
    /// off, the stream costs nothing). May be switched while the queue runs.
    pub events: bool,
    /// `LEASEQ_CONFIG_EVENTS_MAX_LEN`: the most entries the stream keeps (older ones are
    /// trimmed; the core's bounds and default apply).
    pub events_max_len: u64,
    /// `LEASEQ_CONFIG_EVENTS_MAX_AGE`: how long the stream keeps an entry, in ms (at least one
    /// second; the core's default applies).
    pub events_max_age_ms: i64,
}

/// `leaseq_config.max_attempts` is given.
pub const LEASEQ_CONFIG_MAX_ATTEMPTS: u32 = 1 << 0;
/// `leaseq_config.priority` is given.
pub const LEASEQ_CONFIG_PRIORITY: u32 = 1 << 1;
/// `leaseq_config.backoff` is given.
pub const LEASEQ_CONFIG_BACKOFF: u32 = 1 << 2;
/// `leaseq_config.expires_after_ms` is given.
pub const LEASEQ_CONFIG_EXPIRES_AFTER: u32 = 1 << 3;
/// `leaseq_config.keep_result_for_ms` is given.
pub const LEASEQ_CONFIG_KEEP_RESULT_FOR: u32 = 1 << 4;
/// `leaseq_config.dead_max_count` is given.
pub const LEASEQ_CONFIG_DEAD_MAX_COUNT: u32 = 1 << 5;
/// `leaseq_config.dead_max_age_ms` is given.
pub const LEASEQ_CONFIG_DEAD_MAX_AGE: u32 = 1 << 6;
/// `leaseq_config.stats` is given.
pub const LEASEQ_CONFIG_STATS: u32 = 1 << 7;
/// `leaseq_config.capacity` is given.
pub const LEASEQ_CONFIG_CAPACITY: u32 = 1 << 8;
/// `leaseq_config.rate_max` and `leaseq_config.rate_per_ms` are given (together).
pub const LEASEQ_CONFIG_RATE_LIMIT: u32 = 1 << 9;
/// `leaseq_config.group_concurrency` is given.
pub const LEASEQ_CONFIG_GROUP_CONCURRENCY: u32 = 1 << 10;
/// `leaseq_config.group_rate_max` and `leaseq_config.group_rate_per_ms` are given (together).
pub const LEASEQ_CONFIG_GROUP_RATE_LIMIT: u32 = 1 << 11;
/// `leaseq_config.events` is given.
pub const LEASEQ_CONFIG_EVENTS: u32 = 1 << 12;
/// `leaseq_config.events_max_len` is given.
pub const LEASEQ_CONFIG_EVENTS_MAX_LEN: u32 = 1 << 13;
/// `leaseq_config.events_max_age_ms` is given.
pub const LEASEQ_CONFIG_EVENTS_MAX_AGE: u32 = 1 << 14;

/// A struct of this module: plain integers, bools and pointers to strings (read during the call
/// only), `struct_size: u32` and `set: u32` first.
///
/// # Safety
/// All-zero bytes are a valid value, and the first two fields are `struct_size` and `set`.
pub(crate) unsafe trait Grows: Copy {
    /// The C name, for messages.
    const NAME: &'static str;
    /// Each known bit of `set` with the end of its field (offset + size) in the struct.
    const FIELDS: &'static [(u32, usize)];
}

macro_rules! fields {
    ($ty:ty, $name:literal, [$($bit:expr => $field:ident),* $(,)?]) => {
        // SAFETY: repr(C) structs of integers, bools and pointers, struct_size and set first.
        // All-zero bytes are valid for each (a NULL pointer).
        unsafe impl Grows for $ty {
            const NAME: &'static str = $name;
            const FIELDS: &'static [(u32, usize)] = &[$((
                $bit,
                offset_of!($ty, $field) + size_of_field(|s: &$ty| &s.$field),
            )),*];
        }
    };
}

/// The size of a field, from a projection (works in constants, unlike `size_of_val`).
const fn size_of_field<S, F>(_: fn(&S) -> &F) -> usize {
    size_of::<F>()
}

fields!(leaseq_add_options, "leaseq_add_options", [
    LEASEQ_ADD_DELAY => delay_ms,
    LEASEQ_ADD_RUN_AT => run_at_ms,
    LEASEQ_ADD_PRIORITY => priority,
    LEASEQ_ADD_MAX_ATTEMPTS => max_attempts,
    LEASEQ_ADD_BACKOFF => backoff,
    LEASEQ_ADD_EXPIRES_AFTER => expires_after_ms,
    LEASEQ_ADD_KEEP_RESULT_FOR => keep_result_for_ms,
    LEASEQ_ADD_GROUP => group,
    LEASEQ_ADD_NAME => name,
    LEASEQ_ADD_DEPENDS_ON => depends_on_len,
    LEASEQ_ADD_ON_DEPENDENCY_FAILURE => on_dependency_failure,
]);
fields!(leaseq_schedule, "leaseq_schedule", [
    LEASEQ_SCHEDULE_CRON => cron,
    LEASEQ_SCHEDULE_TZ => tz,
    LEASEQ_SCHEDULE_EVERY => every_ms,
    LEASEQ_SCHEDULE_MISSED => missed_all,
    LEASEQ_SCHEDULE_DATA => data_len,
    LEASEQ_SCHEDULE_ITEM_OPTIONS => item_options,
]);
fields!(leaseq_lease_options, "leaseq_lease_options", [
    LEASEQ_LEASE_TTL => ttl_ms,
    LEASEQ_LEASE_TIMEOUT => timeout_ms,
]);
fields!(leaseq_config, "leaseq_config", [
    LEASEQ_CONFIG_MAX_ATTEMPTS => max_attempts,
    LEASEQ_CONFIG_PRIORITY => priority,
    LEASEQ_CONFIG_BACKOFF => backoff,
    LEASEQ_CONFIG_EXPIRES_AFTER => expires_after_ms,
    LEASEQ_CONFIG_KEEP_RESULT_FOR => keep_result_for_ms,
    LEASEQ_CONFIG_DEAD_MAX_COUNT => dead_max_count,
    LEASEQ_CONFIG_DEAD_MAX_AGE => dead_max_age_ms,
    LEASEQ_CONFIG_STATS => stats,
    LEASEQ_CONFIG_CAPACITY => capacity,
    LEASEQ_CONFIG_RATE_LIMIT => rate_per_ms,
    LEASEQ_CONFIG_GROUP_CONCURRENCY => group_concurrency,
    LEASEQ_CONFIG_GROUP_RATE_LIMIT => group_rate_per_ms,
    LEASEQ_CONFIG_EVENTS => events,
    LEASEQ_CONFIG_EVENTS_MAX_LEN => events_max_len,
    LEASEQ_CONFIG_EVENTS_MAX_AGE => events_max_age_ms,
]);

/// The smallest `struct_size` accepted: `struct_size` and `set`.
const HEADER: usize = 8;

/// The caller's `struct_size`, checked to hold at least the header.
///
/// # Safety
/// `ptr` points to a live `T` (at least its header) whose first field is `struct_size`.
unsafe fn struct_size<T: Grows>(ptr: *const T, name: &str) -> Result<usize, Failure> {
    // SAFETY: the struct starts with a u32, readable by the caller's contract.
    let size = unsafe { ptr.cast::<u32>().read() } as usize;
    if size < HEADER {
        return Err(Failure::invalid(
            format!("{name}.struct_size"),
            format!(
                "is {size}: set it to sizeof({}) (the {}_INIT macro does)",
                T::NAME,
                T::NAME.to_uppercase()
            ),
        ));
    }
    Ok(size)
}

/// Reads an options struct that may be smaller (older) or larger (newer) than this library's:
/// the bytes that fit in `struct_size`, the rest zero. Refuses `set` bits for fields beyond
/// `struct_size` or unknown to this library. NULL gives `None` (no options).
///
/// # Safety
/// `ptr` is NULL or points to `struct_size` readable bytes of a `T` the caller filled.
pub(crate) unsafe fn read<T: Grows>(ptr: *const T, name: &str) -> Result<Option<T>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    let size = unsafe { struct_size(ptr, name) }?;
    let mut value = MaybeUninit::<T>::zeroed();
    // SAFETY: `size.min(size_of::<T>())` bytes are readable at `ptr` by the caller's contract
    // and writable in `value`; the copy is untyped.
    unsafe {
        std::ptr::copy_nonoverlapping(
            ptr.cast::<u8>(),
            value.as_mut_ptr().cast::<u8>(),
            size.min(size_of::<T>()),
        );
    }
    // SAFETY: every field is an integer, a bool or a pointer, and C bools are 0 or 1; zero is
    // valid (a NULL pointer).
    let value = unsafe { value.assume_init() };
    // SAFETY: the header fits (checked above): `set` is the second u32.
    let set = unsafe { ptr.cast::<u32>().add(1).read() };
    let known = T::FIELDS.iter().fold(0, |all, (bit, _)| all | bit);
    if set & !known != 0 {
        return Err(Failure::invalid(
            format!("{name}.set"),
            format!(
                "has bits {:#x} that this version of libleaseq does not know (a newer leaseq.h?)",
                set & !known
            ),
        ));
    }
    for &(bit, end) in T::FIELDS {
        if set & bit != 0 && end > size {
            return Err(Failure::invalid(
                format!("{name}.set"),
                format!(
                    "has bit {bit:#x} for a field beyond struct_size {size}: set struct_size to \
                     sizeof({})",
                    T::NAME
                ),
            ));
        }
    }
    Ok(Some(value))
}

/// Writes `value` into the caller's struct: only the fields that fit in its `struct_size`, and
/// only their bits in `set`. The caller's `struct_size` is kept.
///
/// # Safety
/// `ptr` points to `struct_size` writable bytes of a `T`, with `struct_size` set by the caller.
pub(crate) unsafe fn write<T: Grows>(ptr: *mut T, name: &str, mut value: T) -> Result<(), Failure> {
    let size = unsafe { struct_size(ptr, name) }?;
    let fits = T::FIELDS
        .iter()
        .filter(|&&(_, end)| end <= size)
        .fold(0, |all, (bit, _)| all | bit);
    let header = value_header(&mut value);
    header[0] = size as u32;
    header[1] &= fits;
    // Fields that do not fit are never written: copy whole fields only, up to the last that
    // fits (the bytes of a partly fitting field stay the caller's).
    let end = T::FIELDS
        .iter()
        .map(|&(_, end)| end)
        .filter(|&end| end <= size)
        .max()
        .unwrap_or(HEADER)
        .max(HEADER);
    // SAFETY: `end <= size` bytes are writable at `ptr` and readable in `value`; untyped copy.
    unsafe {
        std::ptr::copy_nonoverlapping((&raw const value).cast::<u8>(), ptr.cast::<u8>(), end);
    }
    Ok(())
}

/// `struct_size` and `set` of a value, as two u32.
fn value_header<T: Grows>(value: &mut T) -> &mut [u32; 2] {
    // SAFETY: `T: Grows` starts with two u32 fields, and `&mut T` is aligned for them.
    unsafe { &mut *(value as *mut T).cast::<[u32; 2]>() }
}

/// A duration field in milliseconds: negative values are refused, naming the field.
pub(crate) fn millis(name: &str, field: &str, ms: i64) -> Result<Duration, Failure> {
    u64::try_from(ms)
        .map(Duration::from_millis)
        .map_err(|_| Failure::invalid(format!("{name}.{field}"), format!("is {ms}, below zero")))
}

/// A duration argument in milliseconds: negative values are refused, naming the argument.
pub(crate) fn millis_arg(
    name: impl Into<std::borrow::Cow<'static, str>>,
    ms: i64,
) -> Result<Duration, Failure> {
    u64::try_from(ms)
        .map(Duration::from_millis)
        .map_err(|_| Failure::invalid(name, format!("is {ms}, below zero")))
}

impl leaseq_backoff {
    pub(crate) fn to_core(self, name: &str) -> Result<Backoff, Failure> {
        let base = millis(name, "backoff.base_ms", self.base_ms)?;
        match self.kind {
            LEASEQ_BACKOFF_FIXED => Ok(Backoff::fixed(base)),
            LEASEQ_BACKOFF_EXPONENTIAL => Ok(Backoff::Exponential {
                base,
                cap: millis(name, "backoff.cap_ms", self.cap_ms)?,
                jitter: self.jitter,
            }),
            other => Err(Failure::invalid(
                format!("{name}.backoff.kind"),
                format!("is {other}: not LEASEQ_BACKOFF_FIXED or LEASEQ_BACKOFF_EXPONENTIAL"),
            )),
        }
    }

    pub(crate) fn from_core(backoff: Backoff) -> leaseq_backoff {
        let ms = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        match backoff {
            Backoff::Fixed(d) => leaseq_backoff {
                kind: LEASEQ_BACKOFF_FIXED,
                jitter: false,
                base_ms: ms(d),
                cap_ms: ms(d),
            },
            Backoff::Exponential { base, cap, jitter } => leaseq_backoff {
                kind: LEASEQ_BACKOFF_EXPONENTIAL,
                jitter,
                base_ms: ms(base),
                cap_ms: ms(cap),
            },
            // A kind this version does not know: reported as its nearest, the exponential
            // default's shape, never a crash.
            _ => leaseq_backoff::from_core(leaseq::policy::DEFAULT_BACKOFF),
        }
    }
}

impl leaseq_add_options {
    /// `item` with these options applied (validated by the core when it is added).
    ///
    /// # Safety
    /// With `LEASEQ_ADD_GROUP` set, `group` is NULL or a NUL-terminated string; with
    /// `LEASEQ_ADD_NAME` set, so is `name`; with `LEASEQ_ADD_DEPENDS_ON` set, `depends_on` is
    /// NULL or `depends_on_len` pointers, each NULL or a NUL-terminated string.
    pub(crate) unsafe fn apply(&self, mut item: Item, name: &str) -> Result<Item, Failure> {
        let set = |bit| self.set & bit != 0;
        if set(LEASEQ_ADD_DELAY) {
            item = item.delay(millis(name, "delay_ms", self.delay_ms)?);
        }
        if set(LEASEQ_ADD_RUN_AT) {
            let at = if self.run_at_ms >= 0 {
                UNIX_EPOCH.checked_add(Duration::from_millis(self.run_at_ms as u64))
            } else {
                UNIX_EPOCH.checked_sub(Duration::from_millis(self.run_at_ms.unsigned_abs()))
            };
            let at: SystemTime = at.ok_or_else(|| {
                Failure::invalid(format!("{name}.run_at_ms"), "is out of the clock's range")
            })?;
            item = item.run_at(at);
        }
        if set(LEASEQ_ADD_PRIORITY) {
            item = item.priority(self.priority);
        }
        if set(LEASEQ_ADD_MAX_ATTEMPTS) {
            item = item.max_attempts(self.max_attempts);
        }
        if set(LEASEQ_ADD_BACKOFF) {
            item = item.backoff(self.backoff.to_core(name)?);
        }
        if set(LEASEQ_ADD_EXPIRES_AFTER) {
            item = item.expires_after(millis(name, "expires_after_ms", self.expires_after_ms)?);
        }
        if set(LEASEQ_ADD_KEEP_RESULT_FOR) {
            item =
                item.keep_result_for(millis(name, "keep_result_for_ms", self.keep_result_for_ms)?);
        }
        if set(LEASEQ_ADD_GROUP) {
            // The core's check names `group`, as in every language.
            item = item.group(unsafe { text(self.group, "group") }?);
        }
        if set(LEASEQ_ADD_NAME) {
            // The core's check names `name`, as in every language.
            item = item.name(unsafe { text(self.name, "name") }?);
        }
        if set(LEASEQ_ADD_DEPENDS_ON) {
            let ids =
                unsafe { crate::guard::array(self.depends_on, self.depends_on_len, "depends_on") }?;
            let mut list = Vec::with_capacity(ids.len());
            for (i, &id) in ids.iter().enumerate() {
                list.push(unsafe { text(id, format!("depends_on[{i}]")) }?.to_owned());
            }
            // The core's checks name `depends_on`, as in every language.
            item = item.depends_on(list);
        }
        if set(LEASEQ_ADD_ON_DEPENDENCY_FAILURE) {
            item = item.on_dependency_failure(match self.on_dependency_failure {
                LEASEQ_ON_DEPENDENCY_FAILURE_FAIL => leaseq::OnDependencyFailure::Fail,
                LEASEQ_ON_DEPENDENCY_FAILURE_RUN => leaseq::OnDependencyFailure::Run,
                other => {
                    return Err(Failure::invalid(
                        format!("{name}.on_dependency_failure"),
                        format!(
                            "is {other}: not LEASEQ_ON_DEPENDENCY_FAILURE_FAIL or \
                             LEASEQ_ON_DEPENDENCY_FAILURE_RUN"
                        ),
                    ))
                }
            });
        }
        Ok(item)
    }
}

impl leaseq_config {
    pub(crate) fn to_core(self, name: &str) -> Result<QueueConfig, Failure> {
        let set = |bit| self.set & bit != 0;
        let mut config = QueueConfig::new();
        if set(LEASEQ_CONFIG_MAX_ATTEMPTS) {
            config = config.max_attempts(self.max_attempts);
        }
        if set(LEASEQ_CONFIG_PRIORITY) {
            config = config.priority(self.priority);
        }
        if set(LEASEQ_CONFIG_BACKOFF) {
            config = config.backoff(self.backoff.to_core(name)?);
        }
        if set(LEASEQ_CONFIG_EXPIRES_AFTER) {
            config = config.expires_after(millis(name, "expires_after_ms", self.expires_after_ms)?);
        }
        if set(LEASEQ_CONFIG_KEEP_RESULT_FOR) {
            config = config.keep_result_for(millis(
                name,
                "keep_result_for_ms",
                self.keep_result_for_ms,
            )?);
        }
        if set(LEASEQ_CONFIG_DEAD_MAX_COUNT) {
            config = config.dead_max_count(self.dead_max_count);
        }
        if set(LEASEQ_CONFIG_DEAD_MAX_AGE) {
            config = config.dead_max_age(millis(name, "dead_max_age_ms", self.dead_max_age_ms)?);
        }
        if set(LEASEQ_CONFIG_STATS) {
            config = config.stats(self.stats);
        }
        if set(LEASEQ_CONFIG_CAPACITY) {
            config = config.capacity(self.capacity);
        }
        if set(LEASEQ_CONFIG_RATE_LIMIT) {
            config = config.rate_limit(leaseq::RateLimit::new(
                self.rate_max,
                millis(name, "rate_per_ms", self.rate_per_ms)?,
            ));
        }
        if set(LEASEQ_CONFIG_GROUP_CONCURRENCY) {
            config = config.group_concurrency(self.group_concurrency);
        }
        if set(LEASEQ_CONFIG_GROUP_RATE_LIMIT) {
            config = config.group_rate_limit(leaseq::RateLimit::new(
                self.group_rate_max,
                millis(name, "group_rate_per_ms", self.group_rate_per_ms)?,
            ));
        }
        if set(LEASEQ_CONFIG_EVENTS) {
            config = config.events(self.events);
        }
        if set(LEASEQ_CONFIG_EVENTS_MAX_LEN) {
            config = config.events_max_len(self.events_max_len);
        }
        if set(LEASEQ_CONFIG_EVENTS_MAX_AGE) {
            config =
                config.events_max_age(millis(name, "events_max_age_ms", self.events_max_age_ms)?);
        }
        Ok(config)
    }

    pub(crate) fn from_core(config: &QueueConfig) -> leaseq_config {
        let ms = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        let mut c = leaseq_config::default();
        if let Some(m) = config.max_attempts {
            c.max_attempts = m;
            c.set |= LEASEQ_CONFIG_MAX_ATTEMPTS;
        }
        if let Some(p) = config.priority {
            c.priority = p;
            c.set |= LEASEQ_CONFIG_PRIORITY;
        }
        if let Some(b) = config.backoff {
            c.backoff = leaseq_backoff::from_core(b);
            c.set |= LEASEQ_CONFIG_BACKOFF;
        }
        if let Some(d) = config.expires_after {
            c.expires_after_ms = ms(d);
            c.set |= LEASEQ_CONFIG_EXPIRES_AFTER;
        }
        if let Some(d) = config.keep_result_for {
            c.keep_result_for_ms = ms(d);
            c.set |= LEASEQ_CONFIG_KEEP_RESULT_FOR;
        }
        if let Some(n) = config.dead_max_count {
            c.dead_max_count = n;
            c.set |= LEASEQ_CONFIG_DEAD_MAX_COUNT;
        }
        if let Some(d) = config.dead_max_age {
            c.dead_max_age_ms = ms(d);
            c.set |= LEASEQ_CONFIG_DEAD_MAX_AGE;
        }
        if let Some(on) = config.stats {
            c.stats = on;
            c.set |= LEASEQ_CONFIG_STATS;
        }
        if let Some(n) = config.capacity {
            c.capacity = n;
            c.set |= LEASEQ_CONFIG_CAPACITY;
        }
        if let Some(limit) = config.rate_limit {
            c.rate_max = limit.max;
            c.rate_per_ms = ms(limit.per);
            c.set |= LEASEQ_CONFIG_RATE_LIMIT;
        }
        if let Some(n) = config.group_concurrency {
            c.group_concurrency = n;
            c.set |= LEASEQ_CONFIG_GROUP_CONCURRENCY;
        }
        if let Some(limit) = config.group_rate_limit {
            c.group_rate_max = limit.max;
            c.group_rate_per_ms = ms(limit.per);
            c.set |= LEASEQ_CONFIG_GROUP_RATE_LIMIT;
        }
        if let Some(on) = config.events {
            c.events = on;
            c.set |= LEASEQ_CONFIG_EVENTS;
        }
        if let Some(n) = config.events_max_len {
            c.events_max_len = n;
            c.set |= LEASEQ_CONFIG_EVENTS_MAX_LEN;
        }
        if let Some(d) = config.events_max_age {
            c.events_max_age_ms = ms(d);
            c.set |= LEASEQ_CONFIG_EVENTS_MAX_AGE;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_older_smaller_struct_reads_as_zero_beyond_its_size() {
        let mut full = leaseq_lease_options {
            struct_size: offset_of!(leaseq_lease_options, timeout_ms) as u32,
            set: LEASEQ_LEASE_TTL,
            ttl_ms: 5,
            timeout_ms: 77,
        };
        let got = unsafe { read(&full, "options") }.ok().flatten().unwrap();
        assert_eq!((got.ttl_ms, got.timeout_ms), (5, 0));
        full.set |= LEASEQ_LEASE_TIMEOUT;
        assert!(unsafe { read(&full, "options") }.is_err());
        full.set = 1 << 20;
        full.struct_size = size_of::<leaseq_lease_options>() as u32;
        assert!(unsafe { read(&full, "options") }.is_err());
        full.struct_size = 4;
        full.set = 0;
        assert!(unsafe { read(&full, "options") }.is_err());
        assert!(
            unsafe { read::<leaseq_lease_options>(std::ptr::null(), "o") }
                .ok()
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn writing_keeps_to_the_callers_size() {
        let mut small = leaseq_config {
            struct_size: offset_of!(leaseq_config, backoff) as u32,
            dead_max_count: 99,
            ..Default::default()
        };
        let value = leaseq_config {
            max_attempts: 3,
            dead_max_count: 5,
            set: LEASEQ_CONFIG_MAX_ATTEMPTS | LEASEQ_CONFIG_DEAD_MAX_COUNT,
            ..Default::default()
        };
        assert!(unsafe { write(&mut small, "out_config", value) }.is_ok());
        assert_eq!(small.max_attempts, 3);
        assert_eq!(small.dead_max_count, 99, "beyond struct_size: untouched");
        assert_eq!(small.set, LEASEQ_CONFIG_MAX_ATTEMPTS);
        assert_eq!(small.struct_size, offset_of!(leaseq_config, backoff) as u32);
    }
}
