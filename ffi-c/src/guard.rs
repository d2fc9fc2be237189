//! The one door every `extern "C"` body goes through: it catches panics, turns NULL and invalid
//! arguments into statuses, and keeps the thread-local message of the last failure.

use std::any::Any;
use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::status::{
    leaseq_status, status_of, LEASEQ_INTERNAL, LEASEQ_INVALID_ARGUMENT, LEASEQ_NULL_ARGUMENT,
    LEASEQ_OK,
};

/// Why a call failed, before it becomes a status and a message.
pub(crate) enum Failure {
    /// A required pointer argument was NULL; names the argument.
    Null(Cow<'static, str>),
    /// An argument the C layer itself refused (before the core saw it).
    Invalid {
        argument: Cow<'static, str>,
        reason: String,
    },
    /// An error from the core.
    Core(leaseq::Error),
}

impl From<leaseq::Error> for Failure {
    fn from(err: leaseq::Error) -> Failure {
        Failure::Core(err)
    }
}

impl Failure {
    pub(crate) fn invalid(
        argument: impl Into<Cow<'static, str>>,
        reason: impl Into<String>,
    ) -> Failure {
        Failure::Invalid {
            argument: argument.into(),
            reason: reason.into(),
        }
    }

    fn into_status(self, function: &str) -> (leaseq_status, String) {
        match self {
            Failure::Null(argument) => (
                LEASEQ_NULL_ARGUMENT,
                format!("{function}: argument `{argument}` is NULL"),
            ),
            Failure::Invalid { argument, reason } => (
                LEASEQ_INVALID_ARGUMENT,
                format!("{function}: invalid argument `{argument}`: {reason}"),
            ),
            Failure::Core(leaseq::Error::InvalidArgument { argument, reason }) => (
                LEASEQ_INVALID_ARGUMENT,
                format!(
                    "{function}: invalid argument `{}`: {reason}",
                    c_argument(argument)
                ),
            ),
            Failure::Core(err) => (status_of(&err), format!("{function}: {err}")),
        }
    }
}

/// The core names arguments as its Rust API does (`duration`, `ttl`); C takes durations in
/// milliseconds (`duration_ms`), and its messages say so, as the C layer's own checks do. An
/// argument of an operation has its C name in the core's table (`Arg::c_name`); the duration
/// fields of an item's options and of a queue's configuration are named here.
fn c_argument(core_name: &str) -> Cow<'static, str> {
    if let Some(arg) = leaseq::operations::OPERATIONS
        .iter()
        .flat_map(|o| o.args)
        .find(|a| a.name == core_name)
    {
        return arg.c_name().into();
    }
    match core_name {
        "run_at" => "run_at_ms",
        "expires_after" => "expires_after_ms",
        "keep_for" => "keep_result_for_ms",
        "dead_max_age" => "dead_max_age_ms",
        "events_max_age" => "events_max_age_ms",
        "every" => "every_ms",
        other => return other.to_owned().into(),
    }
    .into()
}

/// A call's result before it is turned into a status.
pub(crate) type Outcome = Result<(), Failure>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: String) {
    // A message never holds NUL in practice; if it did, cut it there rather than lose it all.
    let message = CString::new(message).unwrap_or_else(|e| {
        let end = e.nul_position();
        let mut bytes = e.into_vec();
        bytes.truncate(end);
        CString::new(bytes).unwrap_or_default()
    });
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = message);
}

/// The message of the last failed call on this thread, or "" after a success.
pub(crate) fn last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|slot| slot.borrow().as_ptr())
        .unwrap_or(c"".as_ptr())
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "a panic without a message"
    }
}

/// Runs the body of the status-returning C function `function`: clears the last error, catches
/// any panic (`LEASEQ_INTERNAL`), and turns a [`Failure`] into its status and message.
pub(crate) fn call(function: &'static str, body: impl FnOnce() -> Outcome) -> leaseq_status {
    set_last_error(String::new());
    let (status, message) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return LEASEQ_OK,
        Ok(Err(failure)) => failure.into_status(function),
        Err(payload) => {
            let message = format!(
                "{function}: internal error (a bug in leaseq, please report it): {}",
                panic_message(payload.as_ref())
            );
            // Dropping a payload could itself panic; never let that cross the boundary.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            (LEASEQ_INTERNAL, message)
        }
    };
    set_last_error(message);
    status
}

/// Runs the body of a C function that returns no status (a `_free`, a static string): a panic
/// gives `fallback` instead of crossing the boundary.
pub(crate) fn call_quiet<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

/// A required pointer argument, borrowed for the call.
///
/// # Safety
/// `ptr` is NULL or points to a live `T` for the whole call.
pub(crate) unsafe fn arg<'a, T>(ptr: *const T, name: &'static str) -> Result<&'a T, Failure> {
    // SAFETY: non-NULL pointers are valid for the call by the caller's contract.
    unsafe { ptr.as_ref() }.ok_or(Failure::Null(name.into()))
}

/// An out-parameter. Made first thing in a function with the value it holds after a failure,
/// which is stored at once (when the pointer is not NULL), so that every failure, early or
/// late, leaves it set. [`Out::required`] turns a NULL pointer into `LEASEQ_NULL_ARGUMENT`; call
/// it before doing anything that a missing result would waste (like leasing an item).
///
/// Values are written with `ptr::write`: what the caller left there may be any bytes, so it is
/// never read, and `T: Copy` needs no drop.
pub(crate) struct Out<T: Copy> {
    ptr: *mut T,
    name: &'static str,
}

impl<T: Copy> Out<T> {
    /// # Safety
    /// `ptr` is NULL or points to writable, aligned memory for a `T` for the whole call.
    pub(crate) unsafe fn new(ptr: *mut T, name: &'static str, initial: T) -> Out<T> {
        if !ptr.is_null() {
            // SAFETY: writable and aligned by the caller's contract.
            unsafe { ptr.write(initial) }
        }
        Out { ptr, name }
    }

    /// Fails with `LEASEQ_NULL_ARGUMENT` naming the parameter when it is NULL.
    pub(crate) fn required(&self) -> Result<(), Failure> {
        if self.ptr.is_null() {
            Err(Failure::Null(self.name.into()))
        } else {
            Ok(())
        }
    }

    /// Stores `value` (nothing when the pointer is NULL, which `required` has refused).
    pub(crate) fn set(&self, value: T) {
        if !self.ptr.is_null() {
            // SAFETY: writable and aligned by the contract of `Out::new`.
            unsafe { self.ptr.write(value) }
        }
    }
}

/// An output array the caller provides: `len` elements at `ptr` (NULL allowed only when `len`
/// is 0). Like [`Out`], it is filled with its failure value first thing, so that every
/// failure leaves each element set.
pub(crate) struct OutArray<T: Copy> {
    ptr: *mut T,
    len: usize,
    name: &'static str,
}

impl<T: Copy> OutArray<T> {
    /// # Safety
    /// `ptr` is NULL or points to `len` writable, aligned `T`s for the whole call.
    pub(crate) unsafe fn new(ptr: *mut T, len: usize, name: &'static str, initial: T) -> Self {
        if !ptr.is_null() {
            for i in 0..len {
                // SAFETY: `len` writable elements by the caller's contract.
                unsafe { ptr.add(i).write(initial) }
            }
        }
        OutArray { ptr, len, name }
    }

    /// Fails with `LEASEQ_NULL_ARGUMENT` naming the parameter when it is NULL and `len` is not 0.
    pub(crate) fn required(&self) -> Result<(), Failure> {
        if self.ptr.is_null() && self.len > 0 {
            Err(Failure::Null(self.name.into()))
        } else {
            Ok(())
        }
    }

    /// Stores `values`, one per element. The core answers one value per input; any other count
    /// is a bug in leaseq (the panic becomes `LEASEQ_INTERNAL` at the boundary).
    pub(crate) fn set(&self, values: impl ExactSizeIterator<Item = T>) {
        assert_eq!(
            values.len(),
            self.len,
            "`{}`: the core answered {} values for {} inputs",
            self.name,
            values.len(),
            self.len
        );
        if self.ptr.is_null() {
            return;
        }
        for (i, value) in values.enumerate() {
            // SAFETY: `i < len` writable elements by the contract of `OutArray::new`.
            unsafe { self.ptr.add(i).write(value) }
        }
    }
}

/// A (pointer, count) array argument. NULL is allowed only with count 0.
///
/// # Safety
/// `ptr` is NULL or points to `len` readable, initialised `T`s that live for the call.
pub(crate) unsafe fn array<'a, T>(
    ptr: *const T,
    len: usize,
    name: &'static str,
) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Failure::Null(name.into()));
    }
    // SAFETY: non-NULL and `len` readable elements by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// A required NUL-terminated string argument that must be UTF-8.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that lives for the call.
pub(crate) unsafe fn text<'a>(
    ptr: *const c_char,
    name: impl Into<Cow<'static, str>>,
) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::Null(name.into()));
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    let c = unsafe { CStr::from_ptr(ptr) };
    c.to_str()
        .map_err(|e| Failure::invalid(name, format!("is not valid UTF-8 ({e})")))
}

/// A (pointer, length) byte argument. NULL is allowed only with length 0.
///
/// # Safety
/// `ptr` is NULL or points to `len` readable bytes that live for the call.
pub(crate) unsafe fn bytes<'a>(
    ptr: *const u8,
    len: usize,
    name: &'static str,
) -> Result<&'a [u8], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Failure::Null(name.into()));
    }
    // SAFETY: non-NULL and `len` readable bytes by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// A C string for text that may, in rare cases, hold NUL bytes (ids written by other clients):
/// those are shown as U+FFFD so that the rest stays readable.
pub(crate) fn c_string(text: &str) -> CString {
    CString::new(text)
        .unwrap_or_else(|_| CString::new(text.replace('\0', "\u{FFFD}")).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message() -> String {
        // SAFETY: last_error always points to a live NUL-terminated string.
        unsafe { CStr::from_ptr(last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_internal_with_a_message() {
        let status = call("leaseq_test", || panic!("boom {}", 42));
        assert_eq!(status, LEASEQ_INTERNAL);
        let text = message();
        assert!(
            text.contains("leaseq_test") && text.contains("boom 42"),
            "{text}"
        );
    }

    #[test]
    fn success_clears_the_message() {
        call("leaseq_test", || Err(Failure::Null("x".into())));
        assert!(message().contains("`x` is NULL"));
        assert_eq!(call("leaseq_test", || Ok(())), LEASEQ_OK);
        assert_eq!(message(), "");
    }

    #[test]
    fn quiet_calls_survive_panics() {
        assert_eq!(call_quiet(7, || panic!("no")), 7);
    }

    #[test]
    fn ids_with_nul_stay_readable() {
        assert_eq!(c_string("a\0b").to_str().unwrap(), "a\u{FFFD}b");
    }
}
