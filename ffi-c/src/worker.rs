//! The runner: `leaseq_worker_run` runs a C callback over a queue (`leaseq_worker_run_queues`
//! over several, `leaseq_worker_run_named` a table of handlers by name), driven by the core's
//! engine (`leaseq::worker`), which leases in batches, renews, finishes in batches, rides through
//! Redis outages and does the queue's housekeeping. Callbacks run on the core's blocking
//! threads, at most `concurrency` at once.

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use leaseq::worker::{
    route, CancelReason, Event, Job, JobError, LogLevel, Outcome, QueueOrder, Route,
    ShutdownAction, Worker, WorkerOptions,
};
use leaseq::{blocking, Retry};

use crate::guard::{arg, array, bytes, c_string, call, text, Failure, Out};
use crate::partitioned::leaseq_partitioned;
use crate::queue::leaseq_queue;
use crate::status::leaseq_status;

/// What a callback says became of its job.
pub type leaseq_job_outcome = i32;
/// Done: complete the job (keeping the result set with `leaseq_worker_job_set_result`).
pub const LEASEQ_JOB_COMPLETE: leaseq_job_outcome = 0;
/// Failed: retried after the queue's backoff (or `leaseq_worker_job_set_error`'s delay) while
/// attempts are left, else a dead letter.
pub const LEASEQ_JOB_FAIL: leaseq_job_outcome = 1;
/// Failed for good: a dead letter now.
pub const LEASEQ_JOB_FAIL_UNRECOVERABLE: leaseq_job_outcome = 2;
/// Hand the job back untouched (no attempt counted): it waits again at once.
pub const LEASEQ_JOB_RELEASE: leaseq_job_outcome = 3;
/// Rate limited (an API answered 429): every client's leases of the queue are held off for
/// the hold set with `leaseq_worker_job_set_rate_limited` (`leaseq_queue_rate_limit`; of every
/// partition for a runner over a partitioned queue, `leaseq_partitioned_rate_limit`), and the
/// job is handed back, to run again after it without being charged an attempt. Without a hold
/// set, the attempt fails (error type "internal").
pub const LEASEQ_JOB_RATE_LIMITED: leaseq_job_outcome = 4;
/// Rate limited for the job's **group** (an API that limits per customer or tenant answered
/// 429): that group's leases are held off for the hold set with
/// `leaseq_worker_job_set_rate_limited` (`leaseq_queue_rate_limit_group`), and the job is handed
/// back in the same call, to run again after it without being charged an attempt; the queue's
/// other groups go on. A job without a group holds the whole queue off, as
/// `LEASEQ_JOB_RATE_LIMITED` (of a partitioned queue: every partition). Without a hold set, the
/// attempt fails (error type "internal").
pub const LEASEQ_JOB_RATE_LIMITED_GROUP: leaseq_job_outcome = 5;

/// Why a callback is told to stop (`leaseq_worker_job_cancelled`), the core's reasons
/// (`CancelReason`), the same in every language.
pub type leaseq_cancel_reason = i32;
/// Not told: go on.
pub const LEASEQ_CANCEL_NONE: leaseq_cancel_reason = 0;
/// The job ran past the runner's `job_timeout_ms`: its attempt fails with error type
/// "timeout" once the callback returns, or after `timeout_grace_ms`.
pub const LEASEQ_CANCEL_TIMEOUT: leaseq_cancel_reason = 1;
/// The lease is lost (expired and taken, cancelled or completed elsewhere).
pub const LEASEQ_CANCEL_LEASE_LOST: leaseq_cancel_reason = 2;
/// The runner's shutdown timeout passed (or the shutdown was forced).
pub const LEASEQ_CANCEL_SHUTDOWN: leaseq_cancel_reason = 3;

/// One job, lent to a callback for the duration of the call only.
pub struct leaseq_worker_job {
    job: Job,
    id: std::ffi::CString,
    queue_prefix: std::ffi::CString,
    name: Option<std::ffi::CString>,
    result: Mutex<Option<Vec<u8>>>,
    error: Mutex<Option<(String, String, Option<Duration>)>>,
    trace: Mutex<Option<String>>,
    hold: Mutex<Option<Duration>>,
}

/// Runs one job; returns its outcome. Called on one of the core's blocking threads (never the
/// caller's), up to `concurrency` at once; it may block. `job` is valid only during the call.
pub type leaseq_worker_fn = Option<
    unsafe extern "C" fn(job: *mut leaseq_worker_job, user_data: *mut c_void) -> leaseq_job_outcome,
>;

/// One entry of a runner's table of handlers by name (`leaseq_worker_run_named`), a plain
/// struct of fixed layout: the jobs whose item's name (`LEASEQ_ADD_NAME`) is `name` run with
/// `handler`, which is given `user_data`. `LEASEQ_HANDLER("resize", resize, NULL)` fills one
/// from a string literal.
#[repr(C)]
pub struct leaseq_worker_handler {
    /// The name: `name_len` bytes of UTF-8 (1 to 256, no control characters), no NUL needed
    /// after them. Read as the runner starts.
    pub name: *const c_char,
    /// The name's length in bytes.
    pub name_len: usize,
    /// Runs the jobs of this name, as `leaseq_worker_run`'s callback runs every job.
    pub handler: leaseq_worker_fn,
    /// Passed to `handler` with each job: it must be usable from the threads that run handlers.
    pub user_data: *mut c_void,
}

/// One runner event, lent to `on_event` for the duration of the call only. Its parts are the
/// core's (the same names and messages in every language).
#[repr(C)]
pub struct leaseq_worker_event {
    /// "completed", "retrying", "dead", "released", "lease_lost", "timed_out", "error" or
    /// "recovered".
    pub name: *const c_char,
    /// The item's id ("" for "error" and "recovered").
    pub id: *const c_char,
    /// The attempt (0 for "error" and "recovered").
    pub attempt: u64,
    /// The error message ("retrying", "dead", "timed_out", "error"), why a lease was lost, or
    /// "".
    pub message: *const c_char,
}

/// A runner's settings. Start from `LEASEQ_WORKER_OPTIONS_INIT`, which sets every field (a zero,
/// or -1 for the booleans, takes the core's default); `leaseq_worker_options_init` fills only
/// the fields through `stats`, so that in a struct from it `job_timeout_ms`,
/// `timeout_grace_ms`, `on_log` and `log_level` are ignored.
///
/// The struct grows at its end: `struct_size` says how many bytes of it the caller has, and
/// the library reads only those (fields beyond it take the core's defaults), so a program
/// built against an older, smaller struct keeps working with a newer library. A field added
/// later takes the core's default when it is 0.
#[repr(C)]
pub struct leaseq_worker_options {
    /// The bytes of this struct the caller has: `leaseq_worker_options_init` sets it to the
    /// size of the fields through `stats`, `LEASEQ_WORKER_OPTIONS_INIT` to
    /// `sizeof(leaseq_worker_options)`. Less than the first is refused.
    pub struct_size: u32,
    /// Callbacks at once (1 to 1000; 0: the core's default, 1).
    pub concurrency: u32,
    /// Each lease's TTL in ms (0: the core's default, a lease's 30 s); renewed while the
    /// callback runs.
    pub lease_ttl_ms: u64,
    /// Renewal period in ms (0: the core's default, TTL/3).
    pub renew_every_ms: u64,
    /// Keep results set by callbacks (-1: the core's default, yes; 0: no; 1: yes).
    pub keep_results: i32,
    /// How long a shutdown waits for running callbacks, in ms (0: the core's default, 30 s).
    pub shutdown_timeout_ms: u64,
    /// After the shutdown timeout, fail (1) what still runs; 0: the core's default, release.
    pub fail_on_shutdown: i32,
    /// Longest single server-side wait for work, in ms (0: the core's default, 1 s).
    pub poll_interval_ms: u64,
    /// Registration beat in ms (0: the core's default, 5 s).
    pub heartbeat_ms: u64,
    /// Take part in the queue's housekeeping (-1: the core's default, yes; 0: no; 1: yes).
    pub housekeeping: i32,
    /// Deep clean period in ms while holding the housekeeping lock (0: the core's default, one
    /// hour).
    pub deep_clean_every_ms: u64,
    /// Called with every event, on a runtime thread: keep it quick, and call no leaseq function
    /// that talks to Redis from it (hand the event to a thread of yours). May be NULL.
    pub on_event:
        Option<unsafe extern "C" fn(event: *const leaseq_worker_event, user_data: *mut c_void)>,
    /// Store this in the queue's configuration as the runner starts, before its first lease:
    /// 1 turns the queue's per-minute counters on for every client, 0 off (-1: default, leave
    /// the configuration alone). See `LEASEQ_CONFIG_STATS`.
    pub stats: i32,
    /// How long a callback may run, in ms (0: the core's default, no limit; at most 30 days).
    /// Past it the callback is told (`leaseq_worker_job_cancelled` gives
    /// `LEASEQ_CANCEL_TIMEOUT`) and the attempt fails with error type "timeout" once it
    /// returns, or after `timeout_grace_ms`, whichever comes first. Only in a struct from
    /// `LEASEQ_WORKER_OPTIONS_INIT`.
    pub job_timeout_ms: u64,
    /// How long a callback told of its timeout has to return before its attempt is failed
    /// anyway, in ms (0: the core's default, 5 s; at most one day). Its later outcome is then
    /// ignored, and its slot stays taken until it returns.
    pub timeout_grace_ms: u64,
    /// Called with each log line of the runner (spec/PROTOCOL.md 13.4) of `log_level` and
    /// above: its level (`LEASEQ_LOG_DEBUG` ... `LEASEQ_LOG_ERROR`), the line as (pointer,
    /// length) of UTF-8 without a NUL, valid during the call only, and the runner's
    /// `user_data`. Lines: the start (its queues, the server's URL without credentials, its
    /// concurrency) and the stop (its report) at info, each failed attempt to be retried, lost
    /// lease, timeout and Redis error at warn (id, attempt, error), each dead job at error, each
    /// completed job at debug. On a runtime thread, as `on_event`: keep it quick. NULL: no
    /// logging. Only in a struct from `LEASEQ_WORKER_OPTIONS_INIT`.
    pub on_log: Option<
        unsafe extern "C" fn(
            level: leaseq_log_level,
            line: *const u8,
            line_len: usize,
            user_data: *mut c_void,
        ),
    >,
    /// The least level passed to `on_log` (0: the default, `LEASEQ_LOG_INFO`: no line per
    /// successful job).
    pub log_level: leaseq_log_level,
    /// When not NULL, where the run writes what the runner did as it returns LEASEQ_OK (all
    /// zeros when a stop ended its wait for Redis, or a stop made before it); untouched on any
    /// other status. Only in a struct from `LEASEQ_WORKER_OPTIONS_INIT`.
    pub report: *mut leaseq_worker_report,
}

/// What a runner did (`leaseq_worker_options.report`): the counts every language's runner
/// reports as it stops. A plain struct of fixed layout, fixed for good: a count added later
/// comes in a struct of its own, never written into this one.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct leaseq_worker_report {
    /// Jobs completed.
    pub completed: u64,
    /// Failed attempts that will be retried.
    pub retried: u64,
    /// Jobs sent to the dead letters.
    pub dead: u64,
    /// Jobs whose lease was lost.
    pub lost: u64,
    /// Jobs released (by their callback, or at shutdown).
    pub released: u64,
    /// Callbacks that ran past the job timeout (each also counted as retried or dead).
    pub timed_out: u64,
}

/// A log line's level (`leaseq_worker_options.on_log`): the numbers of Python's `logging`.
pub type leaseq_log_level = i32;
/// Routine: a job completed or released.
pub const LEASEQ_LOG_DEBUG: leaseq_log_level = 10;
/// The runner started or stopped; a step works again.
pub const LEASEQ_LOG_INFO: leaseq_log_level = 20;
/// A failed attempt to be retried, a lost lease, a timeout, a Redis error.
pub const LEASEQ_LOG_WARN: leaseq_log_level = 30;
/// A job failed for good (dead).
pub const LEASEQ_LOG_ERROR: leaseq_log_level = 40;

/// The bytes `leaseq_worker_options_init` writes, and the least `struct_size` accepted: the
/// fields through `stats`, the struct as it was when `struct_size` came. Fixed for good: a
/// program built against this header passes a struct this large, so the function never writes
/// beyond it; fields added later are set by `LEASEQ_WORKER_OPTIONS_INIT` only.
const WORKER_OPTIONS_V1: usize =
    std::mem::offset_of!(leaseq_worker_options, stats) + std::mem::size_of::<i32>();

/// The defaults: zeros, -1 for the booleans, no event callback, and `struct_size` as given.
fn default_worker_options(struct_size: usize) -> leaseq_worker_options {
    leaseq_worker_options {
        struct_size: struct_size as u32,
        concurrency: 0,
        lease_ttl_ms: 0,
        renew_every_ms: 0,
        keep_results: -1,
        shutdown_timeout_ms: 0,
        fail_on_shutdown: 0,
        poll_interval_ms: 0,
        heartbeat_ms: 0,
        housekeeping: -1,
        deep_clean_every_ms: 0,
        on_event: None,
        stats: -1,
        job_timeout_ms: 0,
        timeout_grace_ms: 0,
        on_log: None,
        log_level: 0,
        report: std::ptr::null_mut(),
    }
}

/// Fills `options` with the defaults (zeros, -1 for the booleans, no event callback) and sets
/// its `struct_size`. It writes the fields through `stats` only, in every later version too,
/// so a program built against an older header is never written beyond its struct; to set a
/// field added after `stats`, start from `LEASEQ_WORKER_OPTIONS_INIT` instead.
///
/// # Safety
/// `options` is NULL or points to a writable `leaseq_worker_options`.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_options_init(
    options: *mut leaseq_worker_options,
) -> leaseq_status {
    call("leaseq_worker_options_init", || {
        if options.is_null() {
            return Err(Failure::Null("options".into()));
        }
        let value = default_worker_options(WORKER_OPTIONS_V1);
        // SAFETY: non-NULL and at least WORKER_OPTIONS_V1 writable bytes by the caller's
        // contract (this header's struct, or a newer one); an untyped copy of whole fields.
        unsafe {
            std::ptr::copy_nonoverlapping(
                (&raw const value).cast::<u8>(),
                options.cast::<u8>(),
                WORKER_OPTIONS_V1,
            )
        };
        Ok(())
    })
}

/// The caller's options (NULL: none): the bytes within `struct_size`, the rest zero.
///
/// # Safety
/// `options` is NULL or points to `struct_size` readable bytes of a `leaseq_worker_options`.
unsafe fn read_worker_options(
    options: *const leaseq_worker_options,
) -> Result<Option<leaseq_worker_options>, Failure> {
    if options.is_null() {
        return Ok(None);
    }
    // SAFETY: the struct starts with a u32, readable by the caller's contract.
    let size = unsafe { options.cast::<u32>().read() } as usize;
    if size < WORKER_OPTIONS_V1 {
        return Err(Failure::invalid(
            "options.struct_size",
            format!(
                "is {size}, at least {WORKER_OPTIONS_V1}: fill the struct with \
                 leaseq_worker_options_init or LEASEQ_WORKER_OPTIONS_INIT"
            ),
        ));
    }
    let mut value = std::mem::MaybeUninit::<leaseq_worker_options>::zeroed();
    // SAFETY: `size.min(size_of)` bytes are readable at `options` and writable in `value`; the
    // copy is untyped.
    unsafe {
        std::ptr::copy_nonoverlapping(
            options.cast::<u8>(),
            value.as_mut_ptr().cast::<u8>(),
            size.min(std::mem::size_of::<leaseq_worker_options>()),
        )
    };
    // SAFETY: every field is an integer, an optional function pointer or a raw pointer: zero
    // and any bytes the caller wrote are valid values.
    let value = unsafe { value.assume_init() };
    // The three-way flags: -1 (the core's default), 0 or 1; another value is a mistake (a
    // count, a bool from elsewhere), not a yes.
    for (name, v) in [
        ("options.keep_results", value.keep_results),
        ("options.housekeeping", value.housekeeping),
        ("options.stats", value.stats),
    ] {
        if !(-1..=1).contains(&v) {
            return Err(Failure::invalid(
                name,
                format!("must be -1 (the default), 0 or 1, got {v}"),
            ));
        }
    }
    Ok(Some(value))
}

/// 0: running; 1: stop; 2: force. Set by `leaseq_worker_stop`, read by every runner.
static STOP: AtomicU8 = AtomicU8::new(0);
/// Runners running now; the last one to return resets [`STOP`].
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Stops every runner of the process: the first call gracefully (no more leases; running
/// callbacks get the shutdown timeout), the next forces. Async-signal-safe (one atomic store):
/// call it from a SIGTERM or SIGINT handler. It reaches every call of a runner function
/// (`leaseq_worker_run`, `_named`, `_queues`, `_partitioned`) under way, from the call's first
/// step: one still checking its arguments or waiting for Redis stops too. When the last such
/// call has returned, whatever it returned, the stop is spent and the next call runs normally.
/// A stop made while no runner runs is kept for the next call (a signal that came just before
/// it started): that run returns LEASEQ_OK at once, having run nothing (a call refused for its
/// arguments returns its error), and the stop is spent.
#[no_mangle]
pub extern "C" fn leaseq_worker_stop() {
    let now = STOP.load(Ordering::SeqCst);
    STOP.store(if now == 0 { 1 } else { 2 }, Ordering::SeqCst);
}

/// Whether `leaseq_worker_stop()` was called (a runner about to start asks it while it waits
/// for Redis).
fn stopping() -> bool {
    STOP.load(Ordering::SeqCst) != 0
}

/// A call of a runner function, counted in [`RUNNING`] from its first step (before its
/// arguments are read) to its return, whatever it returns, so that a stop made meanwhile
/// reaches every runner under way, one still checking its arguments or waiting for Redis too:
/// the last one to return spends it.
struct Counted;

impl Counted {
    fn new() -> Counted {
        RUNNING.fetch_add(1, Ordering::SeqCst);
        Counted
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        if RUNNING.fetch_sub(1, Ordering::SeqCst) == 1 {
            STOP.store(0, Ordering::SeqCst);
        }
    }
}

struct SendPtr(*mut c_void);
// SAFETY: the caller of leaseq_worker_run promises that user_data may be used from the
// threads that run callbacks (documented in the header).
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}

/// A C callback of the runner.
type Callback = unsafe extern "C" fn(*mut leaseq_worker_job, *mut c_void) -> leaseq_job_outcome;

/// Which C callback runs each job: one for every job (`leaseq_worker_run`), or a table of
/// handlers by name with an optional fallback (`leaseq_worker_run_named`).
struct Dispatch {
    /// The table's names, in the order of `callbacks` (None: one callback for every job).
    names: Option<Vec<String>>,
    /// The callbacks with their user data: the table's in order, then the fallback (or the
    /// one callback).
    callbacks: Vec<(Callback, SendPtr)>,
    /// Whether a table has a fallback, the last of `callbacks`.
    fallback: bool,
}

impl Dispatch {
    /// One callback for every job.
    fn one(callback: Callback, user_data: *mut c_void) -> Dispatch {
        Dispatch {
            names: None,
            callbacks: vec![(callback, SendPtr(user_data))],
            fallback: false,
        }
    }

    /// The index in `callbacks` of the one that runs a job named `name`, as the core routes it
    /// (`leaseq::worker::route`). The core fails a job that no name and no fallback takes
    /// before handing it over (`WorkerOptions::handler_names`), so the error is a safeguard.
    fn pick(&self, name: Option<&str>) -> Result<usize, JobError> {
        let Some(names) = &self.names else {
            return Ok(0);
        };
        Ok(match route(names, self.fallback, name)? {
            Route::Named(i) => i,
            Route::Fallback => names.len(),
        })
    }
}

fn millis(ms: u64) -> Option<Duration> {
    (ms > 0).then(|| Duration::from_millis(ms))
}

fn flag(v: i32) -> Option<bool> {
    (v >= 0).then_some(v != 0)
}

fn worker_options(o: Option<&leaseq_worker_options>) -> WorkerOptions {
    let mut w = WorkerOptions::new();
    w.language = Some("c".into());
    let Some(o) = o else { return w };
    w.concurrency = (o.concurrency > 0).then_some(o.concurrency as usize);
    w.lease_ttl = millis(o.lease_ttl_ms);
    w.renew_every = millis(o.renew_every_ms);
    w.keep_results = flag(o.keep_results);
    w.shutdown_timeout = millis(o.shutdown_timeout_ms);
    w.on_shutdown = (o.fail_on_shutdown != 0).then_some(ShutdownAction::Fail);
    w.poll_interval = millis(o.poll_interval_ms);
    w.heartbeat = millis(o.heartbeat_ms);
    w.housekeeping = flag(o.housekeeping);
    w.deep_clean_every = millis(o.deep_clean_every_ms);
    w.stats = flag(o.stats);
    w.job_timeout = millis(o.job_timeout_ms);
    w.timeout_grace = millis(o.timeout_grace_ms);
    w
}

fn emit(
    sink: unsafe extern "C" fn(*const leaseq_worker_event, *mut c_void),
    user_data: *mut c_void,
    e: &Event,
) {
    // Every part as the core gives it (Event::name, id, attempt, message): the names are the
    // core's, the same in every language (leaseq::operations::EVENTS).
    let name = c_string(e.name());
    let id = c_string(e.id().unwrap_or(""));
    let message = c_string(&e.message());
    let event = leaseq_worker_event {
        name: name.as_ptr(),
        id: id.as_ptr(),
        attempt: e.attempt(),
        message: message.as_ptr(),
    };
    // A panic of ours must not cross into C, nor a C callback's unwinding into us.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: the callback and user_data come from the caller, who vouches for them.
        unsafe { sink(&event, user_data) }
    }));
}

/// Runs `callback` for each item of `queue` until `leaseq_worker_stop()`; returns then, once
/// the shutdown is done (running callbacks finished, or released after the timeout).
///
/// Thread rules: callbacks run on the core's blocking threads (never this one), up to
/// `concurrency` at once, and may block; `user_data` is passed to each and must be usable from
/// those threads. The `leaseq_worker_job` is valid only during its callback. `on_event` runs
/// on a runtime thread and must be quick (no leaseq call that talks to Redis). No callback runs after this function returned.
/// Redis outages do not end it: the core reconnects and reports "error"/"recovered" events. One
/// under way as it starts neither: its first connection is tried again, 100 ms doubling to 5 s,
/// until Redis answers or `leaseq_worker_stop()` ends the wait (LEASEQ_OK, nothing run); the
/// wait is reported as an "error" event with step "connect", then "recovered", and their log
/// lines. `options` may be NULL (every default). Bad options give LEASEQ_INVALID_ARGUMENT
/// naming the option, before any wait and with nothing written to Redis. During that wait,
/// `on_event` and `on_log` are called on the thread that called this function.
///
/// # Safety
/// `queue` is NULL or a live queue; `callback` is a valid function pointer; `options` is NULL
/// or a readable `leaseq_worker_options` (only read during the call) whose `report` is NULL or
/// writable; `user_data` may be anything the callbacks can use from other threads.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_run(
    queue: *const leaseq_queue,
    callback: leaseq_worker_fn,
    user_data: *mut c_void,
    options: *const leaseq_worker_options,
) -> leaseq_status {
    call("leaseq_worker_run", || {
        let _counted = Counted::new();
        let queue = unsafe { arg(queue, "queue") }?;
        let Some(callback) = callback else {
            return Err(Failure::Null("callback".into()));
        };
        let options = unsafe { read_worker_options(options) }?;
        run(
            Wait::Queues(vec![queue], QueueOrder::Strict),
            Dispatch::one(callback, user_data),
            user_data,
            options,
        )
    })
}

/// Runs a table of handlers by name over `queue` until `leaseq_worker_stop()`, as
/// `leaseq_worker_run` runs one callback, so that one queue carries several kinds of job: a job
/// whose item's name (`LEASEQ_ADD_NAME`) is `handlers[i].name` runs with `handlers[i].handler`
/// (given `handlers[i].user_data`); any other job, another name or none, with `fallback`
/// (given `user_data`). Without a fallback (NULL) the runner fails such a job for good without
/// calling anything: it is a dead letter at once, with error type "NoHandler" and a message
/// naming the job's name and the names handled. `leaseq_worker_job_name` gives a job's name.
///
/// The table is checked before anything is written to Redis, by the core as in every
/// language: no handler and no fallback, a name that is not 1 to 256 bytes of UTF-8 without
/// control characters, or a name given twice gives LEASEQ_INVALID_ARGUMENT naming `handlers`.
/// `handlers` NULL with `handlers_len` above 0, or a NULL `handler`, gives LEASEQ_NULL_ARGUMENT
/// naming it (`handlers[1].handler`). The table is copied as the runner starts. `user_data`
/// also goes to `options.on_event`. Options, threads and shutdown are as `leaseq_worker_run`'s.
///
/// # Safety
/// `queue` is NULL or a live queue; `handlers` is NULL or points to `handlers_len` readable
/// entries, each `name` NULL or pointing to `name_len` readable bytes and each `handler` NULL
/// or a valid function pointer; `fallback` is NULL or a valid function pointer; `options` is
/// NULL or a readable `leaseq_worker_options` whose `report` is NULL or writable; every entry's
/// `user_data` and `user_data` may be
/// anything their callbacks can use from other threads.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_run_named(
    queue: *const leaseq_queue,
    handlers: *const leaseq_worker_handler,
    handlers_len: usize,
    fallback: leaseq_worker_fn,
    user_data: *mut c_void,
    options: *const leaseq_worker_options,
) -> leaseq_status {
    call("leaseq_worker_run_named", || {
        let _counted = Counted::new();
        let queue = unsafe { arg(queue, "queue") }?;
        let entries = unsafe { array(handlers, handlers_len, "handlers") }?;
        let mut names = Vec::with_capacity(entries.len());
        let mut callbacks = Vec::with_capacity(entries.len() + 1);
        for (i, entry) in entries.iter().enumerate() {
            let name = if entry.name_len == 0 {
                &[][..]
            } else if entry.name.is_null() {
                return Err(Failure::Null(format!("handlers[{i}].name").into()));
            } else {
                // SAFETY: non-NULL and `name_len` readable bytes by the caller's contract.
                unsafe { std::slice::from_raw_parts(entry.name.cast::<u8>(), entry.name_len) }
            };
            // The core checks the names (`handlers`); only their encoding is the C layer's.
            let name = std::str::from_utf8(name).map_err(|e| {
                Failure::invalid("handlers", format!("handlers[{i}].name is not UTF-8 ({e})"))
            })?;
            let Some(handler) = entry.handler else {
                return Err(Failure::Null(format!("handlers[{i}].handler").into()));
            };
            names.push(name.to_owned());
            callbacks.push((handler, SendPtr(entry.user_data)));
        }
        if let Some(fallback) = fallback {
            callbacks.push((fallback, SendPtr(user_data)));
        }
        let options = unsafe { read_worker_options(options) }?;
        let dispatch = Dispatch {
            names: Some(names),
            callbacks,
            fallback: fallback.is_some(),
        };
        run(
            Wait::Queues(vec![queue], QueueOrder::Strict),
            dispatch,
            user_data,
            options,
        )
    })
}

/// Runs `callback` over several queues of one client (1 to 64), as `leaseq_worker_run` does
/// over one: one wait on the server covers them all, and each job is finished in its own queue
/// (`leaseq_worker_job_queue_prefix` tells which). With `weights` NULL the queues are asked in
/// strict order (a later queue gets slots only while every earlier one has no work for them);
/// otherwise by weighted round robin, `weights[i]` (1 to 1000) for `queues[i]`: over time
/// `queues[i]` has `weights[i]` of every `sum(weights)` turns, a turn being up to 250 ms of one
/// queue's leases (spec/PROTOCOL.md 13.3). The runner
/// registers and does the housekeeping in each queue.
///
/// Refused with LEASEQ_INVALID_ARGUMENT, before anything is written: no queue or more than 64,
/// a queue given twice or from another client (`queues`), a weight outside 1..1000
/// (`weights`). A NULL `queues` or element of it gives LEASEQ_NULL_ARGUMENT.
///
/// # Safety
/// `queues` is NULL or points to `queues_len` readable pointers, each NULL or a live queue;
/// `weights` is NULL or points to `queues_len` readable `uint32_t`; the rest as for
/// `leaseq_worker_run`.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_run_queues(
    queues: *const *const leaseq_queue,
    queues_len: usize,
    weights: *const u32,
    callback: leaseq_worker_fn,
    user_data: *mut c_void,
    options: *const leaseq_worker_options,
) -> leaseq_status {
    call("leaseq_worker_run_queues", || {
        let _counted = Counted::new();
        let Some(callback) = callback else {
            return Err(Failure::Null("callback".into()));
        };
        if queues.is_null() {
            return Err(Failure::Null("queues".into()));
        }
        // SAFETY: non-NULL, and `queues_len` readable pointers by the caller's contract.
        let pointers = unsafe { std::slice::from_raw_parts(queues, queues_len) };
        let queues = pointers
            .iter()
            .enumerate()
            .map(|(i, &q)| {
                // SAFETY: each is NULL or a live queue by the caller's contract.
                match unsafe { q.as_ref() } {
                    Some(q) => Ok(q),
                    None => Err(Failure::Null(format!("queues[{i}]").into())),
                }
            })
            .collect::<Result<Vec<_>, Failure>>()?;
        let order = if weights.is_null() {
            QueueOrder::Strict
        } else {
            // SAFETY: non-NULL, and `queues_len` readable weights by the caller's contract.
            QueueOrder::Weighted(
                unsafe { std::slice::from_raw_parts(weights, queues_len) }.to_vec(),
            )
        };
        let options = unsafe { read_worker_options(options) }?;
        run(
            Wait::Queues(queues, order),
            Dispatch::one(callback, user_data),
            user_data,
            options,
        )
    })
}

/// Runs `callback` over every partition of `partitioned` (spec/PROTOCOL.md 5.25, "Runners"),
/// as `leaseq_worker_run` runs it over one queue, until `leaseq_worker_stop()`: one wait on the
/// server covers every partition, the partition asked first rotates (a weighted round robin of
/// equal weights, so that none with work starves), and each job is finished in the partition
/// it came from (`leaseq_worker_job_queue_prefix` tells which). The runner registers and does
/// the housekeeping in each partition. A queue of one partition is run as `leaseq_worker_run`
/// runs its plain queue. Options, threads and shutdown are as `leaseq_worker_run`'s.
///
/// Statuses: LEASEQ_OK once stopped; LEASEQ_NULL_ARGUMENT naming `partitioned` or `callback`;
/// LEASEQ_INVALID_ARGUMENT naming the option refused (nothing written to Redis); the runner's
/// own failures as for `leaseq_worker_run`.
///
/// # Safety
/// `partitioned` is NULL or a live partitioned queue; the rest as for `leaseq_worker_run`.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_run_partitioned(
    partitioned: *const leaseq_partitioned,
    callback: leaseq_worker_fn,
    user_data: *mut c_void,
    options: *const leaseq_worker_options,
) -> leaseq_status {
    call("leaseq_worker_run_partitioned", || {
        let _counted = Counted::new();
        let partitioned = unsafe { arg(partitioned, "partitioned") }?;
        let Some(callback) = callback else {
            return Err(Failure::Null("callback".into()));
        };
        let options = unsafe { read_worker_options(options) }?;
        run(
            Wait::Partitioned(partitioned),
            Dispatch::one(callback, user_data),
            user_data,
            options,
        )
    })
}

/// A refusal of the core, named as the C functions name their arguments: the core's
/// `queue_order` is the `weights` argument (`queues` is `queues` in both).
fn refused(err: leaseq::Error) -> Failure {
    match err {
        leaseq::Error::InvalidArgument {
            argument: "queue_order",
            reason,
        } => Failure::invalid("weights", reason),
        other => Failure::Core(other),
    }
}

/// What a runner will serve, before Redis answered: the handles as the caller gave them.
enum Wait<'a> {
    /// Queues of one client, asked in this order.
    Queues(Vec<&'a leaseq_queue>, QueueOrder),
    /// Every partition of a partitioned queue.
    Partitioned(&'a leaseq_partitioned),
}

impl Wait<'_> {
    /// The runner's async handles, once Redis answers ([`blocking::for_a_runner`]: asked again
    /// while it is away, each outage reported through `on_event`); `None` when
    /// `leaseq_worker_stop()` ended the wait first.
    fn connect(self, on_event: impl FnMut(Event)) -> Result<Option<Over>, Failure> {
        Ok(match self {
            Wait::Queues(queues, order) => blocking::for_a_runner(
                || queues.iter().map(|q| q.inner.as_async()).collect(),
                stopping,
                on_event,
            )?
            .map(|ready| Over::Queues(ready, order)),
            Wait::Partitioned(p) => {
                blocking::for_a_runner(|| p.inner.as_async(), stopping, on_event)?
                    .map(Over::Partitioned)
            }
        })
    }
}

/// What a runner serves.
enum Over {
    /// Queues of one client, asked in this order.
    Queues(Vec<leaseq::Queue>, QueueOrder),
    /// Every partition of a partitioned queue, as the core's `Worker::partitioned` asks them.
    Partitioned(leaseq::Partitioned),
}

/// The body of `leaseq_worker_run`, `leaseq_worker_run_queues`, `leaseq_worker_run_named` and
/// `leaseq_worker_run_partitioned`
/// (`user_data` is `on_event`'s).
fn run(
    wait: Wait<'_>,
    dispatch: Dispatch,
    user_data: *mut c_void,
    options: Option<leaseq_worker_options>,
) -> Result<(), Failure> {
    let mut o = worker_options(options.as_ref());
    // A table's names go to the core, which checks them as the runner starts (`handlers`) and
    // fails for good the jobs that none of them and no fallback takes.
    o.handler_names = dispatch.names.clone();
    o.fallback_handler = dispatch.names.is_some().then_some(dispatch.fallback);
    // Everything that needs no Redis is refused now, not after an outage's wait.
    o.check()?;
    if let Wait::Queues(queues, order) = &wait {
        let handles: Vec<&blocking::Queue> = queues.iter().map(|q| &q.inner).collect();
        blocking::check_runner_queues(&handles, order).map_err(refused)?;
    }
    let on_event = options.as_ref().and_then(|o| o.on_event);
    let runtime = leaseq::runtime::handle()?;
    let data = std::sync::Arc::new(SendPtr(user_data));
    let on_log = options.as_ref().and_then(|o| o.on_log).map(|log| {
        let min = match options.as_ref().map_or(0, |o| o.log_level) {
            ..=0 => LogLevel::Info,
            1..=LEASEQ_LOG_DEBUG => LogLevel::Debug,
            11..=LEASEQ_LOG_INFO => LogLevel::Info,
            21..=LEASEQ_LOG_WARN => LogLevel::Warn,
            _ => LogLevel::Error,
        };
        let data = data.clone();
        let sink = move |level: LogLevel, line: &str| {
            let level = level as leaseq_log_level;
            // A panic of ours must not cross into C, nor a C callback's unwinding into us.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // SAFETY: the callback and user_data come from the caller, who vouches for
                // them; the line lives for the call.
                unsafe { log(level, line.as_ptr(), line.len(), data.0) }
            }));
        };
        (min, sink)
    });
    // Where the report goes, if the caller asked for it.
    let report_to = options.as_ref().map_or(std::ptr::null_mut(), |o| o.report);
    let tell = |report: leaseq_worker_report| {
        if !report_to.is_null() {
            // SAFETY: NULL or writable for the call, by the caller's contract.
            unsafe { report_to.write(report) }
        }
    };
    // The wait's outage and its end, reported as the running runner reports one.
    let Some(over) = wait.connect(|e| {
        if let Some(sink) = on_event {
            emit(sink, data.0, &e);
        }
        if let Some((min, log)) = &on_log {
            if e.level() >= *min {
                log(e.level(), &e.log_line());
            }
        }
    })?
    else {
        tell(leaseq_worker_report::default());
        return Ok(());
    };
    let dispatch = std::sync::Arc::new(dispatch);
    let handler = move |job: Job| {
        let dispatch = dispatch.clone();
        async move {
            let pick = match dispatch.pick(job.name()) {
                Ok(pick) => pick,
                Err(e) => return Outcome::Fail(e),
            };
            let id = c_string(job.id());
            let queue_prefix = c_string(job.queue().prefix());
            let name = job.name().map(c_string);
            let native = leaseq_worker_job {
                job,
                id,
                queue_prefix,
                name,
                result: Mutex::new(None),
                error: Mutex::new(None),
                trace: Mutex::new(None),
                hold: Mutex::new(None),
            };
            let ran = tokio::task::spawn_blocking(move || {
                let mut native = native;
                let (callback, data) = &dispatch.callbacks[pick];
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    // SAFETY: the callback is the caller's; the job lives for the call.
                    unsafe { callback(&mut native, data.0) }
                }));
                (outcome, native)
            })
            .await;
            let (code, native) = match ran {
                Ok((Ok(code), native)) => (code, native),
                _ => {
                    return Outcome::Fail(
                        JobError::new("the callback panicked or was cancelled")
                            .with_type("internal"),
                    )
                }
            };
            let error = native
                .error
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            let trace = native
                .trace
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            // Without leaseq_worker_job_set_error, a message that says so rather than "".
            let job_error = |retry: Retry, returned: &str| {
                let (message, kind, delay) = error.clone().unwrap_or_else(|| {
                    let message = format!(
                        "the callback returned {returned} without leaseq_worker_job_set_error"
                    );
                    (message, String::new(), None)
                });
                let mut e = JobError::new(message).with_type(kind);
                e.trace = trace.clone();
                e.retry = match (retry, delay) {
                    (Retry::Never, _) => Retry::Never,
                    (_, Some(d)) => Retry::After(d),
                    (r, None) => r,
                };
                e
            };
            match code {
                LEASEQ_JOB_COMPLETE => Outcome::Complete(
                    native
                        .result
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take(),
                ),
                LEASEQ_JOB_FAIL_UNRECOVERABLE => {
                    Outcome::Fail(job_error(Retry::Never, "LEASEQ_JOB_FAIL_UNRECOVERABLE"))
                }
                LEASEQ_JOB_RELEASE => Outcome::Release(None),
                LEASEQ_JOB_FAIL => Outcome::Fail(job_error(Retry::Default, "LEASEQ_JOB_FAIL")),
                LEASEQ_JOB_RATE_LIMITED | LEASEQ_JOB_RATE_LIMITED_GROUP => {
                    let group = code == LEASEQ_JOB_RATE_LIMITED_GROUP;
                    match *native.hold.lock().unwrap_or_else(|e| e.into_inner()) {
                        Some(hold) if group => Outcome::Fail(JobError::rate_limited_group(hold)),
                        Some(hold) => Outcome::Fail(JobError::rate_limited(hold)),
                        None => Outcome::Fail(
                            JobError::new(format!(
                                "the callback returned {} without \
                                 leaseq_worker_job_set_rate_limited",
                                if group {
                                    "LEASEQ_JOB_RATE_LIMITED_GROUP"
                                } else {
                                    "LEASEQ_JOB_RATE_LIMITED"
                                }
                            ))
                            .with_type("internal"),
                        ),
                    }
                }
                other => Outcome::Fail(
                    JobError::new(format!(
                        "the callback returned {other}, not a leaseq_job_outcome"
                    ))
                    .with_type("internal"),
                ),
            }
        }
    };
    let mut worker = match over {
        Over::Queues(queues, order) => Worker::for_queues(queues, handler).queue_order(order),
        Over::Partitioned(p) => Worker::partitioned(&p, handler),
    }
    .options(o);
    worker.check().map_err(refused)?;
    if let Some(sink) = on_event {
        let data = data.clone();
        worker = worker.on_event(move |e| emit(sink, data.0, e));
    }
    if let Some((min, log)) = on_log {
        worker = worker.on_log(min, log);
    }
    let handle = worker.handle();
    let report = runtime.block_on(async move {
        let follow = handle.follow(&STOP);
        let report = worker.run_until(std::future::pending()).await;
        follow.abort();
        report
    })?;
    tell(leaseq_worker_report {
        completed: report.completed,
        retried: report.retried,
        dead: report.dead,
        lost: report.lost,
        released: report.released,
        timed_out: report.timed_out,
    });
    Ok(())
}

/// The job's id (NUL-terminated; valid during the callback).
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it);
/// `out_id` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_id(
    job: *const leaseq_worker_job,
    out_id: *mut *const c_char,
) -> leaseq_status {
    call("leaseq_worker_job_id", || {
        let out = unsafe { Out::new(out_id, "out_id", std::ptr::null()) };
        let job = unsafe { arg(job, "job") }?;
        out.required()?;
        out.set(job.id.as_ptr());
        Ok(())
    })
}

/// The prefix of the queue the job came from (NUL-terminated; valid during the callback): for a
/// runner over several queues (`leaseq_worker_run_queues`), the queue the job is finished in.
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it);
/// `out_prefix` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_queue_prefix(
    job: *const leaseq_worker_job,
    out_prefix: *mut *const c_char,
) -> leaseq_status {
    call("leaseq_worker_job_queue_prefix", || {
        let out = unsafe { Out::new(out_prefix, "out_prefix", std::ptr::null()) };
        let job = unsafe { arg(job, "job") }?;
        out.required()?;
        out.set(job.queue_prefix.as_ptr());
        Ok(())
    })
}

/// The job's name (`LEASEQ_ADD_NAME`; NUL-terminated, valid during the callback), or NULL when
/// its item has none: with `leaseq_worker_run_named` the handler of that name (or the fallback)
/// runs it.
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it);
/// `out_name` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_name(
    job: *const leaseq_worker_job,
    out_name: *mut *const c_char,
) -> leaseq_status {
    call("leaseq_worker_job_name", || {
        let out = unsafe { Out::new(out_name, "out_name", std::ptr::null()) };
        let job = unsafe { arg(job, "job") }?;
        out.required()?;
        out.set(job.name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()));
        Ok(())
    })
}

/// The job's data as (pointer, length), valid during the callback.
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it);
/// `out_data` and `out_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_data(
    job: *const leaseq_worker_job,
    out_data: *mut *const u8,
    out_len: *mut usize,
) -> leaseq_status {
    call("leaseq_worker_job_data", || {
        let out_data = unsafe { Out::new(out_data, "out_data", std::ptr::null()) };
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let job = unsafe { arg(job, "job") }?;
        out_data.required()?;
        out_len.required()?;
        out_data.set(job.job.data().as_ptr());
        out_len.set(job.job.data().len());
        Ok(())
    })
}

/// Which attempt this is (1 for the first).
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it);
/// `out_attempt` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_attempt(
    job: *const leaseq_worker_job,
    out_attempt: *mut u64,
) -> leaseq_status {
    call("leaseq_worker_job_attempt", || {
        let out = unsafe { Out::new(out_attempt, "out_attempt", 0) };
        let job = unsafe { arg(job, "job") }?;
        out.required()?;
        out.set(job.job.attempt());
        Ok(())
    })
}

/// Whether the lease is lost (expired and taken, cancelled, or a forced shutdown): the
/// callback should stop. Safe to poll from the callback.
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it);
/// `out_lost` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_lease_lost(
    job: *const leaseq_worker_job,
    out_lost: *mut bool,
) -> leaseq_status {
    call("leaseq_worker_job_lease_lost", || {
        let out = unsafe { Out::new(out_lost, "out_lost", false) };
        let job = unsafe { arg(job, "job") }?;
        out.required()?;
        out.set(job.job.is_lost());
        Ok(())
    })
}

/// Whether the callback is told to stop, and why: `*out_reason` is `LEASEQ_CANCEL_NONE` (go
/// on), or the first reason it was told, `LEASEQ_CANCEL_TIMEOUT` (its `job_timeout_ms`
/// passed: whatever it returns now, the attempt fails with error type "timeout"),
/// `LEASEQ_CANCEL_LEASE_LOST` or `LEASEQ_CANCEL_SHUTDOWN`. Once told, always told. Cheap (one
/// atomic load): poll it from the callback, in any thread, during the call.
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it);
/// `out_reason` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_cancelled(
    job: *const leaseq_worker_job,
    out_reason: *mut leaseq_cancel_reason,
) -> leaseq_status {
    call("leaseq_worker_job_cancelled", || {
        let out = unsafe { Out::new(out_reason, "out_reason", LEASEQ_CANCEL_NONE) };
        let job = unsafe { arg(job, "job") }?;
        out.required()?;
        out.set(
            job.job
                .cancel_reason()
                .map_or(LEASEQ_CANCEL_NONE, |r: CancelReason| {
                    leaseq_cancel_reason::from(r.code())
                }),
        );
        Ok(())
    })
}

/// Sets the result kept when the callback returns LEASEQ_JOB_COMPLETE (copied).
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it);
/// `result` points to `result_len` readable bytes (NULL only with length 0).
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_set_result(
    job: *const leaseq_worker_job,
    result: *const u8,
    result_len: usize,
) -> leaseq_status {
    call("leaseq_worker_job_set_result", || {
        let job = unsafe { arg(job, "job") }?;
        let result = unsafe { bytes(result, result_len, "result") }?;
        *job.result.lock().unwrap_or_else(|e| e.into_inner()) = Some(result.to_vec());
        Ok(())
    })
}

/// Sets the error recorded when the callback returns LEASEQ_JOB_FAIL or
/// LEASEQ_JOB_FAIL_UNRECOVERABLE: a message, a type (may be ""), and a retry delay in ms (0:
/// the queue's backoff). Without it, the message says which outcome the callback returned
/// without an error ("the callback returned LEASEQ_JOB_FAIL without
/// leaseq_worker_job_set_error"), and the type is "".
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it);
/// `message` and `error_type` are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_set_error(
    job: *const leaseq_worker_job,
    message: *const c_char,
    error_type: *const c_char,
    retry_after_ms: u64,
) -> leaseq_status {
    call("leaseq_worker_job_set_error", || {
        let job = unsafe { arg(job, "job") }?;
        let message = unsafe { text(message, "message") }?;
        let error_type = unsafe { text(error_type, "error_type") }?;
        *job.error.lock().unwrap_or_else(|e| e.into_inner()) = Some((
            message.to_owned(),
            error_type.to_owned(),
            millis(retry_after_ms),
        ));
        Ok(())
    })
}

/// Sets the trace kept with the failure when the callback returns LEASEQ_JOB_FAIL or
/// LEASEQ_JOB_FAIL_UNRECOVERABLE: a backtrace, a log excerpt, any text (bytes as (pointer,
/// length); not UTF-8 is shown with U+FFFD), kept as the job's trace (at most 16 KiB), shown by
/// `leaseq_queue_get` (`leaseq_job_trace`).
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it); `trace`
/// points to `trace_len` readable bytes (NULL only with length 0).
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_set_trace(
    job: *const leaseq_worker_job,
    trace: *const u8,
    trace_len: usize,
) -> leaseq_status {
    call("leaseq_worker_job_set_trace", || {
        let job = unsafe { arg(job, "job") }?;
        let trace = unsafe { bytes(trace, trace_len, "trace") }?;
        *job.trace.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(String::from_utf8_lossy(trace).into_owned());
        Ok(())
    })
}

/// Sets how long the queue is held off when the callback returns LEASEQ_JOB_RATE_LIMITED (or the
/// job's group, when it returns LEASEQ_JOB_RATE_LIMITED_GROUP), in ms (more than 0, at most one
/// day: the core cuts a hold to those bounds).
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it).
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_set_rate_limited(
    job: *const leaseq_worker_job,
    hold_ms: u64,
) -> leaseq_status {
    call("leaseq_worker_job_set_rate_limited", || {
        let job = unsafe { arg(job, "job") }?;
        *job.hold.lock().unwrap_or_else(|e| e.into_inner()) = Some(Duration::from_millis(hold_ms));
        Ok(())
    })
}

/// The kept results of the items the job was added to wait for, in order, as
/// `leaseq_queue_dependency_results` gives them: a flow's parent reads its children's results
/// so (BullMQ's `getChildrenValues`). One round trip, from the callback's thread.
///
/// On success `*out_results` is new, owned by the caller: free it with
/// `leaseq_dependency_results_free`. On failure it is set to NULL.
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it);
/// `out_results` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_dependency_results(
    job: *const leaseq_worker_job,
    out_results: *mut *mut crate::deps::leaseq_dependency_results,
) -> leaseq_status {
    call("leaseq_worker_job_dependency_results", || {
        let out = unsafe { Out::new(out_results, "out_results", std::ptr::null_mut()) };
        let job = unsafe { arg(job, "job") }?;
        out.required()?;
        let runtime = leaseq::runtime::handle()?;
        let results = runtime.block_on(job.job.dependency_results())?;
        out.set(crate::deps::dependency_results_to_c(results));
        Ok(())
    })
}

/// Stores a progress value (at most 64 KiB) on the item; `out_stored` says whether it was
/// (false once the lease is lost). One round trip, from the callback's thread.
///
/// # Safety
/// `job` is NULL or the job passed to the running callback (valid only during it);
/// `value` points to `value_len` readable bytes (NULL only with length 0); `out_stored` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_worker_job_progress(
    job: *const leaseq_worker_job,
    value: *const u8,
    value_len: usize,
    out_stored: *mut bool,
) -> leaseq_status {
    call("leaseq_worker_job_progress", || {
        let out = unsafe { Out::new(out_stored, "out_stored", false) };
        let job = unsafe { arg(job, "job") }?;
        let value = unsafe { bytes(value, value_len, "value") }?;
        out.required()?;
        let runtime = leaseq::runtime::handle()?;
        out.set(runtime.block_on(job.job.progress(value))?);
        Ok(())
    })
}
