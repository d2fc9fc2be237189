//! What the read API returns, as owned handles with accessors: `leaseq_job` (`leaseq_queue_get`),
//! `leaseq_result` (`leaseq_queue_result`), `leaseq_entry_list` (`leaseq_queue_list`),
//! `leaseq_stats` (`leaseq_queue_stats`) and `leaseq_name_counts`
//! (`leaseq_queue_counts_by_name`); and the enums `leaseq_state` and `leaseq_fail_outcome`.

use std::ffi::{c_char, CString};

use leaseq::{Entry, Job, JobResult, Minute, NameCounts, State, Stats};

use crate::guard::{arg, c_string, call, call_quiet, Failure, Out};
use crate::status::leaseq_status;

/// Where an item is: one of the `LEASEQ_STATE_*` values.
#[allow(non_camel_case_types)]
pub type leaseq_state = i32;

/// No item (only `leaseq_queue_cancel` reports it, for an id it did not find).
pub const LEASEQ_STATE_NONE: leaseq_state = -1;
/// In a waiting list: the next lease may take it.
pub const LEASEQ_STATE_WAITING: leaseq_state = 0;
/// Waiting for its due time (added with a delay or run_at, or retrying after a backoff).
pub const LEASEQ_STATE_DELAYED: leaseq_state = 1;
/// Held by a worker.
pub const LEASEQ_STATE_LEASED: leaseq_state = 2;
/// Failed for good, expired, or out of attempts; kept for a while for inspection or requeue.
pub const LEASEQ_STATE_DEAD: leaseq_state = 3;
/// Completed, with its result kept.
pub const LEASEQ_STATE_DONE: leaseq_state = 4;
/// Waiting for its dependencies to complete (`LEASEQ_ADD_DEPENDS_ON`, spec 5.24): no lease
/// takes it until they have.
pub const LEASEQ_STATE_BLOCKED: leaseq_state = 5;

/// What `leaseq_queue_fail` did: one of the `LEASEQ_FAIL_*` values.
#[allow(non_camel_case_types)]
pub type leaseq_fail_outcome = i32;

/// The item will run again after a delay (0: it is waiting now).
pub const LEASEQ_FAIL_RETRYING: leaseq_fail_outcome = 0;
/// The item is dead: out of attempts, or failed with `LEASEQ_RETRY_NEVER`.
pub const LEASEQ_FAIL_DEAD: leaseq_fail_outcome = 1;
/// The lease was no longer this holder's; nothing changed. The renew outcome says why.
pub const LEASEQ_FAIL_NOT_HELD: leaseq_fail_outcome = 2;

/// The C value of a core state. A state this layer does not know is a bug in leaseq: the panic
/// becomes `LEASEQ_INTERNAL` at the boundary.
pub(crate) fn state_to_c(state: State) -> leaseq_state {
    match state {
        State::Waiting => LEASEQ_STATE_WAITING,
        State::Delayed => LEASEQ_STATE_DELAYED,
        State::Leased => LEASEQ_STATE_LEASED,
        State::Dead => LEASEQ_STATE_DEAD,
        State::Done => LEASEQ_STATE_DONE,
        State::Blocked => LEASEQ_STATE_BLOCKED,
        #[allow(unreachable_patterns)]
        other => panic!("the C layer has no value for the state `{other}`"),
    }
}

/// The core state of a C value; anything else is refused, naming the argument.
pub(crate) fn state_from_c(state: leaseq_state, name: &'static str) -> Result<State, Failure> {
    Ok(match state {
        LEASEQ_STATE_WAITING => State::Waiting,
        LEASEQ_STATE_DELAYED => State::Delayed,
        LEASEQ_STATE_LEASED => State::Leased,
        LEASEQ_STATE_DEAD => State::Dead,
        LEASEQ_STATE_DONE => State::Done,
        LEASEQ_STATE_BLOCKED => State::Blocked,
        other => {
            return Err(Failure::invalid(
                name,
                format!("is {other}, not one of the LEASEQ_STATE_* values"),
            ))
        }
    })
}

/// The name of `state`: `"waiting"`, `"delayed"`, `"leased"`, `"dead"`, `"done"`, `"blocked"` (the names
/// every leaseq binding uses), `"none"` for `LEASEQ_STATE_NONE`, or `"unknown"`.
///
/// Never NULL. The string is static: do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn leaseq_state_str(state: leaseq_state) -> *const c_char {
    call_quiet(c"unknown".as_ptr(), || {
        if state == LEASEQ_STATE_NONE {
            return c"none".as_ptr();
        }
        // The core's names (State::as_str), as static C strings; a test holds them equal.
        match state {
            LEASEQ_STATE_WAITING => c"waiting",
            LEASEQ_STATE_DELAYED => c"delayed",
            LEASEQ_STATE_LEASED => c"leased",
            LEASEQ_STATE_DEAD => c"dead",
            LEASEQ_STATE_DONE => c"done",
            LEASEQ_STATE_BLOCKED => c"blocked",
            _ => c"unknown",
        }
        .as_ptr()
    })
}

/// A time in milliseconds since the epoch for C: -1 when unknown.
fn time_ms(t: Option<u64>) -> i64 {
    t.map_or(-1, |t| i64::try_from(t).unwrap_or(i64::MAX))
}

/// Bytes for C: followed by one NUL byte that is not part of them.
fn with_nul(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.push(0);
    bytes
}

/// Sets a (pointer, length) pair from bytes kept `with_nul`, or (NULL, 0) for none.
fn set_bytes(out_data: &Out<*const u8>, out_len: &Out<usize>, bytes: Option<&Vec<u8>>) {
    if let Some(b) = bytes {
        out_data.set(b.as_ptr());
        out_len.set(b.len() - 1);
    }
}

/// Runs an accessor: `handle` required, `out` required and set to `initial` on failure.
///
/// # Safety
/// `handle` is NULL or a live `H`; `out` is NULL or writable.
unsafe fn getter<H, T: Copy>(
    function: &'static str,
    handle: *const H,
    handle_name: &'static str,
    out: *mut T,
    out_name: &'static str,
    initial: T,
    read: impl FnOnce(&H) -> Result<T, Failure>,
) -> leaseq_status {
    call(function, || {
        let out = unsafe { Out::new(out, out_name, initial) };
        let handle = unsafe { arg(handle, handle_name) }?;
        out.required()?;
        out.set(read(handle)?);
        Ok(())
    })
}

/// Runs a (pointer, length) accessor: (NULL, 0) for a value that is not there.
///
/// # Safety
/// `handle` is NULL or a live `H`; `out_data` and `out_len` are NULL or writable.
unsafe fn bytes_getter<H>(
    function: &'static str,
    handle: *const H,
    handle_name: &'static str,
    out_data: *mut *const u8,
    out_len: *mut usize,
    read: impl FnOnce(&H) -> Option<&Vec<u8>>,
) -> leaseq_status {
    call(function, || {
        let out_data = unsafe { Out::new(out_data, "out_data", std::ptr::null()) };
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let handle = unsafe { arg(handle, handle_name) }?;
        out_data.required()?;
        out_len.required()?;
        set_bytes(&out_data, &out_len, read(handle));
        Ok(())
    })
}

fn text_ptr(text: Option<&CString>) -> *const c_char {
    text.map_or(std::ptr::null(), |t| t.as_ptr())
}

// ---- leaseq_result ------------------------------------------------------------------------

/// A kept result: the bytes the completing worker gave, when it completed, and on which
/// attempt (opaque). Made by `leaseq_queue_result` or `leaseq_queue_wait_result` (owned: free it
/// with `leaseq_result_free`), or borrowed from a job (`leaseq_job_result`: never free that one).
///
/// Thread safety: immutable; may be read from several threads at once.
#[allow(non_camel_case_types)]
pub struct leaseq_result {
    data: Vec<u8>,
    finished_at: u64,
    attempts: u64,
    added_at: Option<u64>,
    name: Option<CString>,
}

impl leaseq_result {
    pub(crate) fn new(result: JobResult) -> leaseq_result {
        leaseq_result {
            data: with_nul(result.data),
            finished_at: result.finished_at,
            attempts: result.attempts,
            added_at: result.added_at,
            name: result.name.as_deref().map(c_string),
        }
    }
}

/// Sets `*out_data` and `*out_len` to the result's bytes (any bytes, NUL included).
///
/// The buffer belongs to the result: valid until it is freed (with its job, for a borrowed
/// one); do not free it. Never NULL; one NUL byte follows the `*out_len` bytes (not counted).
///
/// # Safety
/// `result` is NULL or a live result; `out_data` and `out_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_result_data(
    result: *const leaseq_result,
    out_data: *mut *const u8,
    out_len: *mut usize,
) -> leaseq_status {
    unsafe {
        bytes_getter(
            "leaseq_result_data",
            result,
            "result",
            out_data,
            out_len,
            |r| Some(&r.data),
        )
    }
}

/// Sets `*out_finished_at_ms` to when the item completed: milliseconds since the Unix epoch on
/// the server's clock.
///
/// # Safety
/// `result` is NULL or a live result; `out_finished_at_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_result_finished_at_ms(
    result: *const leaseq_result,
    out_finished_at_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_result_finished_at_ms",
            result,
            "result",
            out_finished_at_ms,
            "out_finished_at_ms",
            -1,
            |r| Ok(time_ms(Some(r.finished_at))),
        )
    }
}

/// Sets `*out_attempts` to the attempt that completed the item (1 for the first lease).
///
/// # Safety
/// `result` is NULL or a live result; `out_attempts` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_result_attempts(
    result: *const leaseq_result,
    out_attempts: *mut u64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_result_attempts",
            result,
            "result",
            out_attempts,
            "out_attempts",
            0,
            |r| Ok(r.attempts),
        )
    }
}

/// Sets `*out_ms` to when the item was added (milliseconds since the Unix epoch, server clock),
/// or -1 when it is not known (an item added without options, or a result kept by an earlier
/// version).
///
/// # Safety
/// `result` is NULL or a live result; `out_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_result_added_at_ms(
    result: *const leaseq_result,
    out_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_result_added_at_ms",
            result,
            "result",
            out_ms,
            "out_ms",
            -1,
            |r| Ok(time_ms(r.added_at)),
        )
    }
}

/// Sets `*out_name` to the item's name (NUL-terminated UTF-8), or NULL when it had none.
/// Borrowed from the result.
///
/// # Safety
/// `result` is NULL or a live result; `out_name` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_result_name(
    result: *const leaseq_result,
    out_name: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_result_name",
            result,
            "result",
            out_name,
            "out_name",
            std::ptr::null(),
            |r| Ok(text_ptr(r.name.as_ref())),
        )
    }
}

/// Frees a result from `leaseq_queue_result` or `leaseq_queue_wait_result`. NULL is accepted
/// and ignored. Never pass a result borrowed from a job (`leaseq_job_result`).
///
/// # Safety
/// `result` is NULL or an owned result that no other call is using, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_result_free(result: *mut leaseq_result) {
    call_quiet((), || {
        if !result.is_null() {
            // SAFETY: made by Box::into_raw in this crate and freed once, by contract.
            drop(unsafe { Box::from_raw(result) });
        }
    })
}

// ---- leaseq_job ---------------------------------------------------------------------------

/// Everything the queue knows about one item (opaque), from `leaseq_queue_get`: a snapshot
/// taken when it was read. Times are milliseconds since the Unix epoch on the server's clock,
/// -1 when unknown.
///
/// Thread safety: immutable; may be read from several threads at once. Strings and buffers
/// read from it belong to it: valid until `leaseq_job_free`.
#[allow(non_camel_case_types)]
pub struct leaseq_job {
    id: CString,
    state: leaseq_state,
    data: Vec<u8>,
    attempts: u64,
    max_attempts: Option<u32>,
    priority: i32,
    error: Option<CString>,
    error_type: Option<CString>,
    trace: Option<CString>,
    dead_reason: Option<CString>,
    progress: Option<Vec<u8>>,
    result: Option<leaseq_result>,
    added_at: Option<u64>,
    due_at: Option<u64>,
    leased_at: Option<u64>,
    lease_expires_at: Option<u64>,
    finished_at: Option<u64>,
    lease_ttl_ms: Option<u64>,
    cancelled: bool,
    group: Option<CString>,
    name: Option<CString>,
    /// Owns the strings `depends_on_ptrs` points to.
    _depends_on: Vec<CString>,
    depends_on_ptrs: Vec<*const c_char>,
    on_dependency_failure: crate::options::leaseq_on_dependency_failure,
    partition: Option<usize>,
}

impl leaseq_job {
    pub(crate) fn new(job: Job) -> *mut leaseq_job {
        let Job {
            id,
            state,
            data,
            attempts,
            max_attempts,
            priority,
            error,
            trace,
            dead_reason,
            progress,
            result,
            added_at,
            due_at,
            leased_at,
            lease_expires_at,
            finished_at,
            lease_ttl,
            cancelled,
            group,
            name,
            depends_on,
            on_dependency_failure,
            partition,
            ..
        } = job;
        let depends_on: Vec<CString> = depends_on.iter().map(|d| c_string(d)).collect();
        let depends_on_ptrs = depends_on.iter().map(|d| d.as_ptr()).collect();
        let (error, error_type) = match error {
            Some((message, kind)) => (Some(c_string(&message)), Some(c_string(&kind))),
            None => (None, None),
        };
        Box::into_raw(Box::new(leaseq_job {
            id: c_string(&id),
            state: state_to_c(state),
            data: with_nul(data),
            attempts,
            max_attempts,
            priority,
            error,
            error_type,
            trace: trace.as_deref().map(c_string),
            dead_reason: dead_reason.as_deref().map(c_string),
            progress: progress.map(with_nul),
            result: result.map(leaseq_result::new),
            added_at,
            due_at,
            leased_at,
            lease_expires_at,
            finished_at,
            lease_ttl_ms: lease_ttl.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            cancelled,
            group: group.as_deref().map(c_string),
            name: name.as_deref().map(c_string),
            _depends_on: depends_on,
            depends_on_ptrs,
            on_dependency_failure: crate::options::on_dependency_failure_to_c(
                on_dependency_failure,
            ),
            partition,
        }))
    }
}

/// Sets `*out_ids` to the ids the item was added to wait for (`LEASEQ_ADD_DEPENDS_ON`, in
/// order; NUL-terminated UTF-8) and `*out_len` to how many there are: (NULL, 0) for an item
/// added without dependencies. Borrowed from the job. `leaseq_queue_dependencies` also tells
/// which it still waits for.
///
/// # Safety
/// `job` is NULL or a live job; `out_ids` and `out_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_depends_on(
    job: *const leaseq_job,
    out_ids: *mut *const *const c_char,
    out_len: *mut usize,
) -> leaseq_status {
    call("leaseq_job_depends_on", || {
        let out_ids = unsafe { Out::new(out_ids, "out_ids", std::ptr::null()) };
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let job = unsafe { arg(job, "job") }?;
        out_ids.required()?;
        out_len.required()?;
        if !job.depends_on_ptrs.is_empty() {
            out_ids.set(job.depends_on_ptrs.as_ptr());
            out_len.set(job.depends_on_ptrs.len());
        }
        Ok(())
    })
}

/// Sets `*out_policy` to what the item does when a dependency dies or is cancelled
/// (`LEASEQ_ON_DEPENDENCY_FAILURE_FAIL` or `_RUN`), or `LEASEQ_ON_DEPENDENCY_FAILURE_NONE`
/// for an item without dependencies.
///
/// # Safety
/// `job` is NULL or a live job; `out_policy` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_on_dependency_failure(
    job: *const leaseq_job,
    out_policy: *mut crate::options::leaseq_on_dependency_failure,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_on_dependency_failure",
            job,
            "job",
            out_policy,
            "out_policy",
            crate::options::LEASEQ_ON_DEPENDENCY_FAILURE_NONE,
            |j| Ok(j.on_dependency_failure),
        )
    }
}

/// Sets `*out_id` to the item's id (NUL-terminated UTF-8). Borrowed from the job.
///
/// # Safety
/// `job` is NULL or a live job; `out_id` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_id(
    job: *const leaseq_job,
    out_id: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_id",
            job,
            "job",
            out_id,
            "out_id",
            std::ptr::null(),
            |j| Ok(j.id.as_ptr()),
        )
    }
}

/// Sets `*out_state` to where the item is: a `LEASEQ_STATE_*` value (never `LEASEQ_STATE_NONE`).
///
/// # Safety
/// `job` is NULL or a live job; `out_state` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_state(
    job: *const leaseq_job,
    out_state: *mut leaseq_state,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_state",
            job,
            "job",
            out_state,
            "out_state",
            LEASEQ_STATE_NONE,
            |j| Ok(j.state),
        )
    }
}

/// Sets `*out_data` and `*out_len` to the item's data (empty for a done item). Borrowed from
/// the job; never NULL; one NUL byte follows the `*out_len` bytes (not counted).
///
/// # Safety
/// `job` is NULL or a live job; `out_data` and `out_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_data(
    job: *const leaseq_job,
    out_data: *mut *const u8,
    out_len: *mut usize,
) -> leaseq_status {
    unsafe {
        bytes_getter("leaseq_job_data", job, "job", out_data, out_len, |j| {
            Some(&j.data)
        })
    }
}

/// Sets `*out_attempts` to how many times the item has been leased so far.
///
/// # Safety
/// `job` is NULL or a live job; `out_attempts` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_attempts(
    job: *const leaseq_job,
    out_attempts: *mut u64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_attempts",
            job,
            "job",
            out_attempts,
            "out_attempts",
            0,
            |j| Ok(j.attempts),
        )
    }
}

/// Sets `*out_max_attempts` to the item's own max attempts (0: no limit), or -1 when the item
/// has none of its own (the queue's configuration, else the default, applies).
///
/// # Safety
/// `job` is NULL or a live job; `out_max_attempts` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_max_attempts(
    job: *const leaseq_job,
    out_max_attempts: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_max_attempts",
            job,
            "job",
            out_max_attempts,
            "out_max_attempts",
            -1,
            |j| Ok(j.max_attempts.map_or(-1, i64::from)),
        )
    }
}

/// Sets `*out_partition` to the partition that holds the item, as its index (0 to count - 1,
/// as `leaseq_partitioned_partition` takes it), when the job was read from a partitioned
/// queue (`leaseq_partitioned_get`); -1 when it was read from a plain queue.
///
/// # Safety
/// `job` is NULL or a live job; `out_partition` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_partition(
    job: *const leaseq_job,
    out_partition: *mut i32,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_partition",
            job,
            "job",
            out_partition,
            "out_partition",
            -1,
            |j| {
                Ok(j.partition
                    .map_or(-1, |i| i32::try_from(i).unwrap_or(i32::MAX)))
            },
        )
    }
}

/// Sets `*out_priority` to the item's priority (-1000 to 1000; 0 by default).
///
/// # Safety
/// `job` is NULL or a live job; `out_priority` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_priority(
    job: *const leaseq_job,
    out_priority: *mut i32,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_priority",
            job,
            "job",
            out_priority,
            "out_priority",
            0,
            |j| Ok(j.priority),
        )
    }
}

/// Sets `*out_group` to the item's group (NUL-terminated UTF-8; `LEASEQ_ADD_GROUP`), or NULL
/// when it has none. Borrowed from the job.
///
/// # Safety
/// `job` is NULL or a live job; `out_group` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_group(
    job: *const leaseq_job,
    out_group: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_group",
            job,
            "job",
            out_group,
            "out_group",
            std::ptr::null(),
            |j| Ok(text_ptr(j.group.as_ref())),
        )
    }
}

/// Sets `*out_name` to the item's name (NUL-terminated UTF-8; `LEASEQ_ADD_NAME`): what kind
/// of job it is; NULL when it has none. Borrowed from the job.
///
/// # Safety
/// `job` is NULL or a live job; `out_name` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_name(
    job: *const leaseq_job,
    out_name: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_name",
            job,
            "job",
            out_name,
            "out_name",
            std::ptr::null(),
            |j| Ok(text_ptr(j.name.as_ref())),
        )
    }
}

/// Sets `*out_error` to the last failure's message (NUL-terminated UTF-8), or NULL when the
/// item has not failed. Borrowed from the job.
///
/// # Safety
/// `job` is NULL or a live job; `out_error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_error(
    job: *const leaseq_job,
    out_error: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_error",
            job,
            "job",
            out_error,
            "out_error",
            std::ptr::null(),
            |j| Ok(text_ptr(j.error.as_ref())),
        )
    }
}

/// Sets `*out_error_type` to the last failure's type (may be ""), or NULL when the item has
/// not failed. Borrowed from the job.
///
/// # Safety
/// `job` is NULL or a live job; `out_error_type` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_error_type(
    job: *const leaseq_job,
    out_error_type: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_error_type",
            job,
            "job",
            out_error_type,
            "out_error_type",
            std::ptr::null(),
            |j| Ok(text_ptr(j.error_type.as_ref())),
        )
    }
}

/// Sets `*out_trace` to the last failure's trace (a traceback, a stack, an error chain; at most
/// 16 KiB; NUL-terminated UTF-8), or NULL when it gave none. Borrowed from the job.
///
/// # Safety
/// `job` is NULL or a live job; `out_trace` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_trace(
    job: *const leaseq_job,
    out_trace: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_trace",
            job,
            "job",
            out_trace,
            "out_trace",
            std::ptr::null(),
            |j| Ok(text_ptr(j.trace.as_ref())),
        )
    }
}

/// Sets `*out_reason` to why the item is dead (e.g. "failed 3 times", "failed without retry",
/// "lease expired 3 times", "expired before it started"), or NULL.
/// Borrowed from the job.
///
/// # Safety
/// `job` is NULL or a live job; `out_reason` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_dead_reason(
    job: *const leaseq_job,
    out_reason: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_dead_reason",
            job,
            "job",
            out_reason,
            "out_reason",
            std::ptr::null(),
            |j| Ok(text_ptr(j.dead_reason.as_ref())),
        )
    }
}

/// Sets `*out_data` and `*out_len` to the last progress value a holder stored
/// (`leaseq_queue_progress`), or NULL and 0 when there is none. Borrowed from the job; one NUL
/// byte follows the `*out_len` bytes (not counted).
///
/// # Safety
/// `job` is NULL or a live job; `out_data` and `out_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_progress(
    job: *const leaseq_job,
    out_data: *mut *const u8,
    out_len: *mut usize,
) -> leaseq_status {
    unsafe {
        bytes_getter("leaseq_job_progress", job, "job", out_data, out_len, |j| {
            j.progress.as_ref()
        })
    }
}

/// Sets `*out_result` to the kept result (for a done item, or one whose earlier incarnation
/// kept one), or NULL. The result is borrowed from the job: read it with the `leaseq_result_*`
/// functions, never free it; it is valid until `leaseq_job_free`.
///
/// # Safety
/// `job` is NULL or a live job; `out_result` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_result(
    job: *const leaseq_job,
    out_result: *mut *const leaseq_result,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_result",
            job,
            "job",
            out_result,
            "out_result",
            std::ptr::null(),
            |j| {
                Ok(j.result
                    .as_ref()
                    .map_or(std::ptr::null(), |r| r as *const leaseq_result))
            },
        )
    }
}

/// Sets `*out_ms` to when the item was added (known for items added with options only), or -1.
///
/// # Safety
/// `job` is NULL or a live job; `out_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_added_at_ms(
    job: *const leaseq_job,
    out_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_added_at_ms",
            job,
            "job",
            out_ms,
            "out_ms",
            -1,
            |j| Ok(time_ms(j.added_at)),
        )
    }
}

/// Sets `*out_ms` to when a delayed item is due, or -1.
///
/// # Safety
/// `job` is NULL or a live job; `out_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_due_at_ms(
    job: *const leaseq_job,
    out_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_due_at_ms",
            job,
            "job",
            out_ms,
            "out_ms",
            -1,
            |j| Ok(time_ms(j.due_at)),
        )
    }
}

/// Sets `*out_ms` to when the last lease began, or -1.
///
/// # Safety
/// `job` is NULL or a live job; `out_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_leased_at_ms(
    job: *const leaseq_job,
    out_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_leased_at_ms",
            job,
            "job",
            out_ms,
            "out_ms",
            -1,
            |j| Ok(time_ms(j.leased_at)),
        )
    }
}

/// Sets `*out_ms` to when the current lease ends, or -1.
///
/// # Safety
/// `job` is NULL or a live job; `out_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_lease_expires_at_ms(
    job: *const leaseq_job,
    out_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_lease_expires_at_ms",
            job,
            "job",
            out_ms,
            "out_ms",
            -1,
            |j| Ok(time_ms(j.lease_expires_at)),
        )
    }
}

/// Sets `*out_ms` to when the item died or completed, or -1.
///
/// # Safety
/// `job` is NULL or a live job; `out_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_finished_at_ms(
    job: *const leaseq_job,
    out_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_finished_at_ms",
            job,
            "job",
            out_ms,
            "out_ms",
            -1,
            |j| Ok(time_ms(j.finished_at)),
        )
    }
}

/// Sets `*out_ttl_ms` to how long the current lease had left when the job was read, in
/// milliseconds, or -1 when the item is not leased.
///
/// # Safety
/// `job` is NULL or a live job; `out_ttl_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_lease_ttl_ms(
    job: *const leaseq_job,
    out_ttl_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_lease_ttl_ms",
            job,
            "job",
            out_ttl_ms,
            "out_ttl_ms",
            -1,
            |j| Ok(time_ms(j.lease_ttl_ms)),
        )
    }
}

/// Sets `*out_cancelled` to whether the item was cancelled while leased (its holder's next
/// renew, complete, fail or release will say so and remove it).
///
/// # Safety
/// `job` is NULL or a live job; `out_cancelled` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_cancelled(
    job: *const leaseq_job,
    out_cancelled: *mut bool,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_job_cancelled",
            job,
            "job",
            out_cancelled,
            "out_cancelled",
            false,
            |j| Ok(j.cancelled),
        )
    }
}

/// Frees a job. NULL is accepted and ignored. Strings, buffers and the result read from it
/// become invalid.
///
/// # Safety
/// `job` is NULL or a live job that no other call is using, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_job_free(job: *mut leaseq_job) {
    call_quiet((), || {
        if !job.is_null() {
            // SAFETY: made by Box::into_raw in this crate and freed once, by contract.
            drop(unsafe { Box::from_raw(job) });
        }
    })
}

// ---- leaseq_entry_list ----------------------------------------------------------------------

/// One line of a `leaseq_entry_list` (opaque), borrowed from the list: never freed on its own.
#[allow(non_camel_case_types)]
pub struct leaseq_entry {
    id: CString,
    at: Option<u64>,
    attempts: u64,
    error: Option<CString>,
    error_type: Option<CString>,
    name: Option<CString>,
    reason: Option<CString>,
    partition: Option<usize>,
}

/// A page of items in one state, from `leaseq_queue_list` (opaque): read its length with
/// `leaseq_entry_list_len` and each entry with `leaseq_entry_list_get`; free it with
/// `leaseq_entry_list_free`. Immutable; may be read from several threads at once.
#[allow(non_camel_case_types)]
pub struct leaseq_entry_list {
    entries: Vec<leaseq_entry>,
}

impl leaseq_entry_list {
    pub(crate) fn new(entries: Vec<Entry>) -> *mut leaseq_entry_list {
        let entries = entries
            .into_iter()
            .map(|e| {
                let (error, error_type) = match &e.error {
                    Some((m, t)) => (Some(c_string(m)), Some(c_string(t))),
                    None => (None, None),
                };
                leaseq_entry {
                    id: c_string(&e.id),
                    at: e.at,
                    attempts: e.attempts,
                    error,
                    error_type,
                    name: e.name.as_deref().map(c_string),
                    reason: e.reason.as_deref().map(c_string),
                    partition: e.partition,
                }
            })
            .collect();
        Box::into_raw(Box::new(leaseq_entry_list { entries }))
    }
}

/// Sets `*out_len` to the number of entries in the list.
///
/// # Safety
/// `list` is NULL or a live list; `out_len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_entry_list_len(
    list: *const leaseq_entry_list,
    out_len: *mut usize,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_entry_list_len",
            list,
            "list",
            out_len,
            "out_len",
            0,
            |l| Ok(l.entries.len()),
        )
    }
}

/// Sets `*out_entry` to entry number `index` (from 0), borrowed from the list: valid until
/// `leaseq_entry_list_free`; never free it. An index out of range gives
/// `LEASEQ_INVALID_ARGUMENT` and sets `*out_entry` to NULL.
///
/// # Safety
/// `list` is NULL or a live list; `out_entry` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_entry_list_get(
    list: *const leaseq_entry_list,
    index: usize,
    out_entry: *mut *const leaseq_entry,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_entry_list_get",
            list,
            "list",
            out_entry,
            "out_entry",
            std::ptr::null(),
            |l| {
                l.entries
                    .get(index)
                    .map(|e| e as *const leaseq_entry)
                    .ok_or_else(|| {
                        Failure::invalid(
                            "index",
                            format!("is {index}, the list has {} entries", l.entries.len()),
                        )
                    })
            },
        )
    }
}

/// Frees a list and its entries. NULL is accepted and ignored.
///
/// # Safety
/// `list` is NULL or a live list that no other call is using, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_entry_list_free(list: *mut leaseq_entry_list) {
    call_quiet((), || {
        if !list.is_null() {
            // SAFETY: made by Box::into_raw in this crate and freed once, by contract.
            drop(unsafe { Box::from_raw(list) });
        }
    })
}

/// Sets `*out_id` to the entry's id (NUL-terminated UTF-8), borrowed from its list.
///
/// # Safety
/// `entry` is NULL or an entry of a live list; `out_id` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_entry_id(
    entry: *const leaseq_entry,
    out_id: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_entry_id",
            entry,
            "entry",
            out_id,
            "out_id",
            std::ptr::null(),
            |e| Ok(e.id.as_ptr()),
        )
    }
}

/// Sets `*out_ms` to the entry's time, in milliseconds since the Unix epoch: the due time of a
/// delayed item, the lease expiry of a leased one, the time of death of a dead one, the time a
/// done one finished; -1 for a waiting item.
///
/// # Safety
/// `entry` is NULL or an entry of a live list; `out_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_entry_at_ms(
    entry: *const leaseq_entry,
    out_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_entry_at_ms",
            entry,
            "entry",
            out_ms,
            "out_ms",
            -1,
            |e| Ok(time_ms(e.at)),
        )
    }
}

/// Sets `*out_attempts` to how many times the item has been leased so far.
///
/// # Safety
/// `entry` is NULL or an entry of a live list; `out_attempts` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_entry_attempts(
    entry: *const leaseq_entry,
    out_attempts: *mut u64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_entry_attempts",
            entry,
            "entry",
            out_attempts,
            "out_attempts",
            0,
            |e| Ok(e.attempts),
        )
    }
}

/// Sets `*out_name` to the item's name (NUL-terminated UTF-8), or NULL when it has none (a done
/// item's, as its kept result keeps it). Borrowed from the list.
///
/// # Safety
/// `entry` is NULL or an entry of a live list; `out_name` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_entry_name(
    entry: *const leaseq_entry,
    out_name: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_entry_name",
            entry,
            "entry",
            out_name,
            "out_name",
            std::ptr::null(),
            |e| Ok(text_ptr(e.name.as_ref())),
        )
    }
}

/// Sets `*out_partition` to the partition that holds the item, as its index (0 to count - 1,
/// as `leaseq_partitioned_partition` takes it), when the list came from a partitioned queue
/// (`leaseq_partitioned_list`, `leaseq_partitioned_find`); -1 from a plain queue.
///
/// # Safety
/// `entry` is NULL or an entry of a live list; `out_partition` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_entry_partition(
    entry: *const leaseq_entry,
    out_partition: *mut i32,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_entry_partition",
            entry,
            "entry",
            out_partition,
            "out_partition",
            -1,
            |e| {
                Ok(e.partition
                    .map_or(-1, |i| i32::try_from(i).unwrap_or(i32::MAX)))
            },
        )
    }
}

/// Sets `*out_reason` to why a dead item died (NUL-terminated UTF-8: e.g. "lease expired 3
/// times", "dependency a is dead", which carry no error of their own), or NULL for an item in
/// another state. Borrowed from the list.
///
/// # Safety
/// `entry` is NULL or an entry of a live list; `out_reason` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_entry_reason(
    entry: *const leaseq_entry,
    out_reason: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_entry_reason",
            entry,
            "entry",
            out_reason,
            "out_reason",
            std::ptr::null(),
            |e| Ok(text_ptr(e.reason.as_ref())),
        )
    }
}

/// Sets `*out_error` to the last failure's message, or NULL when the item has not failed.
/// Borrowed from the list.
///
/// # Safety
/// `entry` is NULL or an entry of a live list; `out_error` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_entry_error(
    entry: *const leaseq_entry,
    out_error: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_entry_error",
            entry,
            "entry",
            out_error,
            "out_error",
            std::ptr::null(),
            |e| Ok(text_ptr(e.error.as_ref())),
        )
    }
}

/// Sets `*out_error_type` to the last failure's type (may be ""), or NULL when the item has
/// not failed. Borrowed from the list.
///
/// # Safety
/// `entry` is NULL or an entry of a live list; `out_error_type` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_entry_error_type(
    entry: *const leaseq_entry,
    out_error_type: *mut *const c_char,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_entry_error_type",
            entry,
            "entry",
            out_error_type,
            "out_error_type",
            std::ptr::null(),
            |e| Ok(text_ptr(e.error_type.as_ref())),
        )
    }
}

// ---- leaseq_stats -------------------------------------------------------------------------

/// Counters for one minute of a queue's life (a plain struct of fixed layout: it never grows).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct leaseq_minute {
    /// Items completed.
    pub completed: u64,
    /// Failed attempts (each `leaseq_queue_fail`).
    pub failed: u64,
    /// Items that went dead.
    pub dead: u64,
    /// Leases that expired without their holder reporting.
    pub expired: u64,
}

impl From<&Minute> for leaseq_minute {
    fn from(m: &Minute) -> leaseq_minute {
        leaseq_minute {
            completed: m.completed,
            failed: m.failed,
            dead: m.dead,
            expired: m.expired,
        }
    }
}

/// A queue's figures, read in one round trip by `leaseq_queue_stats` (opaque): counts per
/// state, the age of the oldest waiting item, and, when the queue's counters are on
/// (`leaseq_stats_counting`), per-minute counters for the last hour. Free it with
/// `leaseq_stats_free`. Immutable; may be read from several threads at once.
#[allow(non_camel_case_types)]
pub struct leaseq_stats {
    inner: Stats,
    /// `None` while the queue's counters are off.
    minutes: Option<Vec<leaseq_minute>>,
}

impl leaseq_stats {
    pub(crate) fn new(inner: Stats) -> *mut leaseq_stats {
        Box::into_raw(Box::new(leaseq_stats::from_core(inner)))
    }

    /// The handle's value, for a holder of several (`leaseq_partitioned_stats`).
    pub(crate) fn from_core(inner: Stats) -> leaseq_stats {
        let minutes = inner
            .minutes
            .as_ref()
            .map(|m| m.iter().map(leaseq_minute::from).collect());
        leaseq_stats { inner, minutes }
    }
}

/// Sets `*out_count` to how many items were in `state` (`LEASEQ_STATE_WAITING`, `_DELAYED`,
/// `_LEASED`, `_DEAD` or `_BLOCKED`; waiting counts ids in the waiting lists, stale ones included until a
/// lease or clean drops them). `LEASEQ_STATE_DONE` or another value gives
/// `LEASEQ_INVALID_ARGUMENT` naming `state`.
///
/// # Safety
/// `stats` is NULL or a live stats handle; `out_count` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_count(
    stats: *const leaseq_stats,
    state: leaseq_state,
    out_count: *mut u64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_stats_count",
            stats,
            "stats",
            out_count,
            "out_count",
            0,
            |s| {
                let s = &s.inner;
                match state_from_c(state, "state")? {
                    State::Waiting => Ok(s.waiting),
                    State::Delayed => Ok(s.delayed),
                    State::Leased => Ok(s.leased),
                    State::Dead => Ok(s.dead),
                    State::Blocked => Ok(s.blocked),
                    _ => Err(Failure::invalid("state", "done items are not counted")),
                }
            },
        )
    }
}

/// Sets `*out_count` to how many recurring jobs the queue holds (`leaseq_queue_schedules`).
///
/// # Safety
/// `stats` is NULL or a live stats handle; `out_count` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_schedules(
    stats: *const leaseq_stats,
    out_count: *mut u64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_stats_schedules",
            stats,
            "stats",
            out_count,
            "out_count",
            0,
            |s| Ok(s.inner.schedules),
        )
    }
}

/// Sets `*out_count` to how many ids were in `processing`: leased by redis-work-queue clients,
/// or left by them until a light clean.
///
/// # Safety
/// `stats` is NULL or a live stats handle; `out_count` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_processing(
    stats: *const leaseq_stats,
    out_count: *mut u64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_stats_processing",
            stats,
            "stats",
            out_count,
            "out_count",
            0,
            |s| Ok(s.inner.processing),
        )
    }
}

/// Sets `*out_ms` to the age of the oldest waiting item in milliseconds, or -1 when unknown
/// (no item waits, or the oldest was added by a client that does not record the time).
///
/// # Safety
/// `stats` is NULL or a live stats handle; `out_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_oldest_waiting_ms(
    stats: *const leaseq_stats,
    out_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_stats_oldest_waiting_ms",
            stats,
            "stats",
            out_ms,
            "out_ms",
            -1,
            |s| {
                Ok(time_ms(
                    s.inner
                        .oldest_waiting
                        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                ))
            },
        )
    }
}

/// Sets `*out_ms` to the server's clock when the figures were read (milliseconds since the
/// Unix epoch).
///
/// # Safety
/// `stats` is NULL or a live stats handle; `out_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_now_ms(
    stats: *const leaseq_stats,
    out_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_stats_now_ms",
            stats,
            "stats",
            out_ms,
            "out_ms",
            -1,
            |s| Ok(time_ms(Some(s.inner.now))),
        )
    }
}

/// Sets `*out_paused` to whether the queue was paused (`leaseq_queue_pause`) when the figures
/// were read.
///
/// # Safety
/// `stats` is NULL or a live stats handle; `out_paused` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_paused(
    stats: *const leaseq_stats,
    out_paused: *mut bool,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_stats_paused",
            stats,
            "stats",
            out_paused,
            "out_paused",
            false,
            |s| Ok(s.inner.paused),
        )
    }
}

/// Sets `*out_capacity` to the queue's capacity (`leaseq_config.capacity`: waiting and delayed
/// items at most), or 0 when it is unbounded (a capacity is at least 1).
///
/// # Safety
/// `stats` is NULL or a live stats handle; `out_capacity` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_capacity(
    stats: *const leaseq_stats,
    out_capacity: *mut u64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_stats_capacity",
            stats,
            "stats",
            out_capacity,
            "out_capacity",
            0,
            |s| Ok(s.inner.capacity.unwrap_or(0)),
        )
    }
}

/// Sets `*out_ms` to how long leases of the queue were still held off when the figures were
/// read, while it was at its rate limit (`LEASEQ_CONFIG_RATE_LIMIT`) or held off
/// (`leaseq_queue_rate_limit`); -1 otherwise.
///
/// # Safety
/// `stats` is NULL or a live stats handle; `out_ms` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_rate_limited_for_ms(
    stats: *const leaseq_stats,
    out_ms: *mut i64,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_stats_rate_limited_for_ms",
            stats,
            "stats",
            out_ms,
            "out_ms",
            -1,
            |s| {
                Ok(s.inner
                    .rate_limited_for
                    .map_or(-1, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)))
            },
        )
    }
}

/// Sets `*out_counting` to whether the queue kept per-minute counters when the figures were
/// read: true when its configuration turns them on (`LEASEQ_CONFIG_STATS`), false while they are
/// off (the default). While false, `leaseq_stats_minutes` gives 0 minutes and
/// `leaseq_stats_last_hour` all zeros: not counted, which is not the same as nothing happened.
///
/// # Safety
/// `stats` is NULL or a live stats handle; `out_counting` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_counting(
    stats: *const leaseq_stats,
    out_counting: *mut bool,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_stats_counting",
            stats,
            "stats",
            out_counting,
            "out_counting",
            false,
            |s| Ok(s.minutes.is_some()),
        )
    }
}

/// Sets `*out_minutes` and `*out_len` to the counters of the last 60 minutes, oldest first; the
/// last is the current minute, so far. While the queue's counters are off
/// (`leaseq_stats_counting` gives false) there are 0 minutes: `*out_minutes` is NULL and
/// `*out_len` 0. The array belongs to the stats handle: valid until `leaseq_stats_free`; do not
/// free it.
///
/// # Safety
/// `stats` is NULL or a live stats handle; `out_minutes` and `out_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_minutes(
    stats: *const leaseq_stats,
    out_minutes: *mut *const leaseq_minute,
    out_len: *mut usize,
) -> leaseq_status {
    call("leaseq_stats_minutes", || {
        let out_minutes = unsafe { Out::new(out_minutes, "out_minutes", std::ptr::null()) };
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let stats = unsafe { arg(stats, "stats") }?;
        out_minutes.required()?;
        out_len.required()?;
        if let Some(minutes) = &stats.minutes {
            out_minutes.set(minutes.as_ptr());
            out_len.set(minutes.len());
        }
        Ok(())
    })
}

/// Fills `*out_hour` with the per-minute counters summed over the last hour. While the queue's
/// counters are off it is all zeros: check `leaseq_stats_counting` before reading zeros as an
/// idle hour.
///
/// # Safety
/// `stats` is NULL or a live stats handle; `out_hour` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_last_hour(
    stats: *const leaseq_stats,
    out_hour: *mut leaseq_minute,
) -> leaseq_status {
    unsafe {
        getter(
            "leaseq_stats_last_hour",
            stats,
            "stats",
            out_hour,
            "out_hour",
            leaseq_minute::default(),
            |s| {
                Ok(s.inner
                    .last_hour()
                    .as_ref()
                    .map(leaseq_minute::from)
                    .unwrap_or_default())
            },
        )
    }
}

/// Frees a stats handle. NULL is accepted and ignored.
///
/// # Safety
/// `stats` is NULL or a live stats handle that no other call is using, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_stats_free(stats: *mut leaseq_stats) {
    call_quiet((), || {
        if !stats.is_null() {
            // SAFETY: made by Box::into_raw in this crate and freed once, by contract.
            drop(unsafe { Box::from_raw(stats) });
        }
    })
}

// ---- leaseq_name_counts ---------------------------------------------------------------------

/// What the jobs of one item name (`LEASEQ_ADD_NAME`) did in the last hour, an entry of
/// `leaseq_name_counts` (a plain struct of fixed layout: it never grows).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_name_count {
    /// The name (NUL-terminated UTF-8), borrowed from the `leaseq_name_counts` it is in.
    pub name: *const c_char,
    /// Jobs of this name completed in the last 60 minutes.
    pub completed: u64,
    /// Failed attempts of jobs of this name (retried or not).
    pub failed: u64,
    /// Jobs of this name that went to the dead letters.
    pub dead: u64,
}

/// The last hour's counts by item name, from `leaseq_queue_counts_by_name` or
/// `leaseq_partitioned_counts_by_name` (opaque): read its entries with
/// `leaseq_name_counts_entries`, free it with `leaseq_name_counts_free`.
/// Immutable; may be read from several threads at once.
#[allow(non_camel_case_types)]
pub struct leaseq_name_counts {
    /// The names the entries point into; never changed after `new`, so the pointers hold.
    _names: Vec<CString>,
    entries: Vec<leaseq_name_count>,
}

impl leaseq_name_counts {
    pub(crate) fn new(counts: Vec<NameCounts>) -> *mut leaseq_name_counts {
        let names: Vec<CString> = counts.iter().map(|c| c_string(&c.name)).collect();
        let entries = counts
            .iter()
            .zip(&names)
            .map(|(c, name)| leaseq_name_count {
                name: name.as_ptr(),
                completed: c.completed,
                failed: c.failed,
                dead: c.dead,
            })
            .collect();
        Box::into_raw(Box::new(leaseq_name_counts {
            _names: names,
            entries,
        }))
    }
}

/// Sets `*out_entries` and `*out_len` to the counts, one entry per name, by name (byte
/// order, from `leaseq_partitioned_counts_by_name` too). The array and its names belong to `counts`: valid until `leaseq_name_counts_free`;
/// do not free them. No name (nothing named finished in the last hour): `*out_entries` is NULL
/// and `*out_len` 0.
///
/// # Safety
/// `counts` is NULL or a live handle; `out_entries` and `out_len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_name_counts_entries(
    counts: *const leaseq_name_counts,
    out_entries: *mut *const leaseq_name_count,
    out_len: *mut usize,
) -> leaseq_status {
    call("leaseq_name_counts_entries", || {
        let out_entries = unsafe { Out::new(out_entries, "out_entries", std::ptr::null()) };
        let out_len = unsafe { Out::new(out_len, "out_len", 0) };
        let counts = unsafe { arg(counts, "counts") }?;
        out_entries.required()?;
        out_len.required()?;
        if !counts.entries.is_empty() {
            out_entries.set(counts.entries.as_ptr());
            out_len.set(counts.entries.len());
        }
        Ok(())
    })
}

/// Frees the counts by name and their names. NULL is accepted and ignored.
///
/// # Safety
/// `counts` is NULL or a live handle that no other call is using, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_name_counts_free(counts: *mut leaseq_name_counts) {
    call_quiet((), || {
        if !counts.is_null() {
            // SAFETY: made by Box::into_raw in this crate and freed once, by contract.
            drop(unsafe { Box::from_raw(counts) });
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip() {
        for c in [
            LEASEQ_STATE_WAITING,
            LEASEQ_STATE_DELAYED,
            LEASEQ_STATE_LEASED,
            LEASEQ_STATE_DEAD,
            LEASEQ_STATE_DONE,
        ] {
            let state = state_from_c(c, "state").ok().unwrap();
            assert_eq!(state_to_c(state), c);
            let name = unsafe { std::ffi::CStr::from_ptr(leaseq_state_str(c)) };
            assert_eq!(name.to_str().unwrap(), state.as_str());
        }
        assert!(state_from_c(LEASEQ_STATE_NONE, "state").is_err());
        let none = unsafe { std::ffi::CStr::from_ptr(leaseq_state_str(LEASEQ_STATE_NONE)) };
        assert_eq!(none.to_str().unwrap(), "none");
    }
}
