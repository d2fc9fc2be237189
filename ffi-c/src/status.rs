//! The C face of the error registry (spec/errors.md): the one place that maps core errors to
//! `leaseq_status` values.

use std::ffi::c_char;

use leaseq::Error;

/// The result of every fallible leaseq function. 0 (`LEASEQ_OK`) is success; every other value
/// is one of the `LEASEQ_*` statuses below, whose numbers never change meaning (spec/errors.md).
/// After a failure, `leaseq_last_error_message()` says what went wrong.
#[allow(non_camel_case_types)]
pub type leaseq_status = i32;

/// Success.
pub const LEASEQ_OK: leaseq_status = 0;
/// Redis could not be reached, or the connection broke during the call. Retryable.
pub const LEASEQ_CONNECTION: leaseq_status = 1;
/// Redis answered with an error leaseq has no better name for (NOPERM, a server older than
/// 7.0...).
pub const LEASEQ_REDIS: leaseq_status = 2;
/// An argument was refused and nothing was written to Redis; the message names it.
pub const LEASEQ_INVALID_ARGUMENT: leaseq_status = 3;
/// A key under the queue prefix holds another type than the protocol expects.
pub const LEASEQ_WRONG_TYPE: leaseq_status = 4;
/// Redis did not answer in time. Retryable. (A lease that finds no item before its own timeout
/// is not this: it succeeds with no lease.)
pub const LEASEQ_TIMEOUT: leaseq_status = 5;
/// The client was closed: waiting leases end with this, and so does every later call.
pub const LEASEQ_CLOSED: leaseq_status = 6;
/// Item data could not be encoded or decoded as JSON.
pub const LEASEQ_JSON: leaseq_status = 7;
/// Redis is temporarily unable to serve (loading its dataset, busy with another client's
/// script, failing over) and did not run the call. Retryable: retry after a pause. A waiting
/// lease rides through this by itself until its timeout.
pub const LEASEQ_UNAVAILABLE: leaseq_status = 8;
/// Redis is over `maxmemory` (with `noeviction`) and refused a call that adds memory (such as
/// an add) before it wrote anything. Drain or clean the queue, or raise `maxmemory`.
pub const LEASEQ_OUT_OF_MEMORY: leaseq_status = 9;
/// The queue is bounded (`leaseq_config.capacity`) and the items did not fit: nothing was
/// added. Wait for room (`leaseq_queue_add_with_timeout`) or add later.
pub const LEASEQ_FULL: leaseq_status = 10;
/// The item a wait for its result waited for is dead (a dead letter): no result will come
/// unless it is requeued. The message names the item, why it died and its last error.
pub const LEASEQ_DEAD: leaseq_status = 11;
/// C only: a required pointer argument was NULL; the message names it.
pub const LEASEQ_NULL_ARGUMENT: leaseq_status = 100;
/// C only: a bug inside leaseq (a caught panic); the message says where.
pub const LEASEQ_INTERNAL: leaseq_status = 101;

/// The status of a core error: its registry number.
pub(crate) fn status_of(err: &Error) -> leaseq_status {
    err.code().number()
}

/// The registry name of a status, e.g. `"INVALID_ARGUMENT"`; `None` for an unknown number.
pub(crate) fn status_name(status: leaseq_status) -> Option<&'static std::ffi::CStr> {
    Some(match status {
        LEASEQ_OK => c"OK",
        LEASEQ_CONNECTION => c"CONNECTION",
        LEASEQ_REDIS => c"REDIS",
        LEASEQ_INVALID_ARGUMENT => c"INVALID_ARGUMENT",
        LEASEQ_WRONG_TYPE => c"WRONG_TYPE",
        LEASEQ_TIMEOUT => c"TIMEOUT",
        LEASEQ_CLOSED => c"CLOSED",
        LEASEQ_JSON => c"JSON",
        LEASEQ_UNAVAILABLE => c"UNAVAILABLE",
        LEASEQ_OUT_OF_MEMORY => c"OUT_OF_MEMORY",
        LEASEQ_FULL => c"FULL",
        LEASEQ_DEAD => c"DEAD",
        LEASEQ_NULL_ARGUMENT => c"NULL_ARGUMENT",
        LEASEQ_INTERNAL => c"INTERNAL",
        _ => return None,
    })
}

/// The registry name of `status` (`"OK"`, `"CONNECTION"`, ..., `"NULL_ARGUMENT"`,
/// `"INTERNAL"`), or `"UNKNOWN"` for a number leaseq does not define.
///
/// Never NULL. The string is static: do not free it. Thread-safe.
#[no_mangle]
pub extern "C" fn leaseq_status_str(status: leaseq_status) -> *const c_char {
    crate::guard::call_quiet(c"UNKNOWN".as_ptr(), || {
        status_name(status).unwrap_or(c"UNKNOWN").as_ptr()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use leaseq::ErrorCode;

    #[test]
    fn every_core_code_has_its_registry_number_and_name() {
        for code in ErrorCode::ALL {
            let name = status_name(code.number()).expect("a status for every core code");
            assert_eq!(name.to_str().unwrap(), code.as_str());
        }
        assert_eq!(status_name(LEASEQ_NULL_ARGUMENT).unwrap(), c"NULL_ARGUMENT");
        assert_eq!(status_name(LEASEQ_INTERNAL).unwrap(), c"INTERNAL");
        assert_eq!(status_name(-1), None);
    }
}
