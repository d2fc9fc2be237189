//! The C ABI of leaseq: `libleaseq.so` / `libleaseq.a` and `include/leaseq.h` (generated from
//! these sources by cbindgen in `build.rs`; the committed copy is checked by a test).
//!
//! Every `extern "C"` function runs its body through [`guard::call`] (or
//! [`guard::call_quiet`] for functions without a status), so that no panic crosses the
//! boundary, NULL pointers become `LEASEQ_NULL_ARGUMENT`, and the thread-local last error
//! message is kept. The core's synchronous facade [`leaseq::blocking`] does the work.

// The C names (`leaseq_client`, ...) are the Rust names, so the header needs no renaming.
#![allow(non_camel_case_types)]
#![warn(missing_docs, unsafe_op_in_unsafe_fn)]

// cbindgen presents the modules in the order of their file names.
mod client;
mod config;
mod dead;
mod deps;
mod events;
mod finish;
mod guard;
mod inspect;
mod item;
mod job;
mod lease;
mod options;
mod partitioned;
mod partitioned_batch;
mod partitioned_groups;
mod partitioned_ids;
mod partitioned_upkeep;
mod queue;
mod queue_batch;
mod schedules;
mod status;
mod worker;

use std::ffi::c_char;

pub use client::*;
pub use config::*;
pub use dead::*;
pub use deps::*;
pub use events::*;
pub use finish::*;
pub use inspect::*;
pub use item::*;
pub use job::*;
pub use lease::*;
pub use options::*;
pub use partitioned::*;
pub use queue::*;
pub use queue_batch::*;
pub use schedules::*;
pub use status::*;
pub use worker::*;

/// The message of the last failed leaseq call on this thread, naming the function and, for
/// argument errors, the argument; "" after a call that succeeded.
///
/// Never NULL. The string belongs to leaseq: valid until the next leaseq call on the same
/// thread; do not free it (copy it to keep it). Each thread has its own, so it is thread-safe.
/// Calling this function or `leaseq_status_str` does not change it.
#[no_mangle]
pub extern "C" fn leaseq_last_error_message() -> *const c_char {
    guard::call_quiet(c"".as_ptr(), guard::last_error)
}

/// The version of the library, e.g. "0.1.0". Never NULL; static: do not free it.
#[no_mangle]
pub extern "C" fn leaseq_version() -> *const c_char {
    guard::call_quiet(c"".as_ptr(), || {
        concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
    })
}

#[cfg(test)]
mod tests {
    /// Fails when regenerating the header would change it. With `LEASEQ_BLESS=1` it writes the
    /// new header instead (`make -C ffi-c header`).
    #[test]
    fn committed_header_is_current() {
        let generated = include_str!(concat!(env!("OUT_DIR"), "/leaseq.h"));
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/include/leaseq.h");
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        if generated == committed {
            return;
        }
        if std::env::var_os("LEASEQ_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(path, generated).expect("write include/leaseq.h");
            return;
        }
        panic!("ffi-c/include/leaseq.h is out of date: run `make -C ffi-c header` and commit it");
    }
}
