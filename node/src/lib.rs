//! The native half of the npm package `leaseq`: thin napi-rs classes over the Rust core.
//!
//! JavaScript never sees these classes directly: `lib/*.js` wraps them, checks argument types,
//! and turns the code-prefixed rejections made by [`error`] into `LeaseqError`s. Every I/O call
//! is an `async fn` on napi's tokio runtime, so nothing here blocks the event loop (but `cli_main`,
//! which is the `leaseq` command for `npx leaseq`).

#![deny(clippy::all)]
// `cargo clippy --all-targets` also checks a test build of the addon, where napi-derive leaves out
// the registration that exports each `#[napi]` item to JavaScript: there, items that only
// JavaScript calls look unused.
#![cfg_attr(test, allow(dead_code))]

mod client;
mod convert;
mod error;
mod events;
mod item;
mod job;
mod lease;
mod operations;
mod partitioned;
mod queue;
mod schedule;
mod worker;

use napi_derive::napi;

pub use client::NativeClient;
pub use events::NativeEvents;
pub use item::NativeItem;
pub use lease::NativeLease;
pub use partitioned::NativePartitioned;
pub use queue::NativeQueue;

/// One row of the error registry as the core knows it (spec/errors.md).
#[napi(object)]
pub struct ErrorCodeInfo {
    /// The registry name, which is Node's `err.code`.
    pub code: String,
    /// The registry number (the C status value).
    pub number: i32,
    /// Whether the same call may succeed when tried again unchanged.
    pub retryable: bool,
}

/// Every error code of the core, in registry order: the JS layer checks its own table against
/// it, and its tests check both against spec/errors.md.
#[napi]
pub fn error_codes() -> Vec<ErrorCodeInfo> {
    leaseq::ErrorCode::ALL
        .iter()
        .map(|code| ErrorCodeInfo {
            code: code.as_str().to_owned(),
            number: code.number(),
            retryable: code.retryable(),
        })
        .collect()
}

/// Runs the `leaseq` command (the cli/ crate) with `args` (the program name first) and returns
/// its exit code. For `bin/leaseq.js` (`npx leaseq`) alone: unlike everything else here it blocks
/// the calling thread until the command ends, on a tokio runtime of its own.
#[napi]
pub fn cli_main(args: Vec<String>) -> i32 {
    // Node handles SIGINT and SIGTERM itself (it resets the terminal, then raises the signal
    // again, expecting its one-shot handler to be gone). The command's handlers (tokio's) chain
    // to the handler they replace, so Node's would run inside them and raise the signal again
    // and again: the process hung. With the default action back first, nothing is chained and
    // the command's handlers stop it cleanly (`clean`, `dashboard`).
    #[cfg(unix)]
    // SAFETY: setting a signal disposition; no handler of ours runs here.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
    }
    leaseq_cli::run(args)
}
