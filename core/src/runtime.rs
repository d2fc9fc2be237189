//! One fork-aware home for the tokio runtime that the synchronous facade ([`crate::blocking`])
//! and the bindings (C, Python's sync and asyncio faces, Node) run the async core on.
//!
//! **Not part of leaseq's API**: public (and hidden from the documentation) only so that the
//! bindings' crates can reach it; it may change in any release. Rust programs bring their own
//! tokio runtime, or use [`crate::blocking`].
//!
//! A forked child has none of its parent's threads, so the parent's runtime would never run
//! anything there, and the parent's sockets are shared with the parent. Both are therefore made
//! anew in the child: [`handle`] starts a fresh runtime when the process id changed, and
//! [`PerProcess`] remakes a value (a connected client) the first time a new process uses it.
//! The parent's runtime is leaked in the child, never dropped: dropping it would wait forever
//! for threads that do not exist there.

use std::sync::Mutex;

use tokio::runtime::{Handle, Runtime};

use crate::error::{Cause, Error, Result};

struct Slot {
    pid: u32,
    /// `None` once [`shutdown`] ran.
    runtime: Option<Runtime>,
    handle: Handle,
}

static RUNTIME: Mutex<Option<Slot>> = Mutex::new(None);

/// This process's runtime (one I/O thread, `leaseq-io`), started on first use and again after
/// a fork or a [`shutdown`].
pub fn handle() -> Result<Handle> {
    let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    let pid = std::process::id();
    if let Some(current) = slot.as_ref() {
        if current.pid == pid && current.runtime.is_some() {
            return Ok(current.handle.clone());
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("leaseq-io")
        .on_thread_start(block_sigpipe)
        .enable_all()
        .build()
        .map_err(|e| {
            Error::Connection(Cause::io(
                "cannot start the I/O runtime",
                Some(e.to_string()),
            ))
        })?;
    let handle = runtime.handle().clone();
    let stale = slot.replace(Slot {
        pid,
        runtime: Some(runtime),
        handle: handle.clone(),
    });
    if stale.as_ref().is_some_and(|s| s.pid != pid) {
        std::mem::forget(stale);
    }
    Ok(handle)
}

/// Blocks SIGPIPE on the calling thread (each runtime thread). Writing to a connection the
/// server has closed raises SIGPIPE in the writing thread, and its default action ends the
/// process. Rust programs, Python and Node ignore it, but a C program usually leaves the
/// default, so a Redis restart or a `CLIENT KILL` could kill a C host. Blocked on the threads
/// that do the I/O, the write fails with EPIPE instead, a CONNECTION error like any other; the
/// host's own threads and its signal handlers are left alone.
fn block_sigpipe() {
    #[cfg(unix)]
    // SAFETY: the set is initialised by sigemptyset before use; pthread_sigmask only changes
    // the calling thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Stops this process's runtime, waiting up to two seconds for its threads (for an embedding
/// interpreter's exit: no runtime thread may touch it during finalization). A later [`handle`]
/// starts a new one.
pub fn shutdown() {
    let runtime = {
        let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
        match slot.as_mut() {
            Some(current) if current.pid == std::process::id() => current.runtime.take(),
            _ => None,
        }
    };
    if let Some(runtime) = runtime {
        runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    }
}

/// A value that belongs to one process: used in a forked child, it is made anew by the
/// function given to [`PerProcess::get`], and the parent's copy is leaked (it may hold
/// handles to the parent's runtime, whose threads do not exist in the child).
pub struct PerProcess<T> {
    live: Mutex<(u32, T)>,
}

impl<T: Clone> PerProcess<T> {
    /// `value`, made in this process.
    pub fn new(value: T) -> PerProcess<T> {
        PerProcess {
            live: Mutex::new((std::process::id(), value)),
        }
    }

    /// The value for this process: a clone of the one held, or, in a forked child, the one
    /// `remake` returns from the parent's.
    pub fn get(&self, remake: impl FnOnce(&T) -> Result<T>) -> Result<T> {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        let pid = std::process::id();
        if live.0 != pid {
            let fresh = remake(&live.1)?;
            std::mem::forget(std::mem::replace(&mut *live, (pid, fresh)));
        }
        Ok(live.1.clone())
    }
}

#[cfg(all(test, unix))]
mod tests {
    /// Whether SIGPIPE is blocked on the calling thread.
    fn sigpipe_blocked() -> bool {
        // SAFETY: pthread_sigmask with a null new set only reads the calling thread's mask.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut set);
            libc::sigismember(&set, libc::SIGPIPE) == 1
        }
    }

    #[test]
    fn the_runtime_threads_block_sigpipe_and_the_callers_keep_their_mask() {
        let handle = super::handle().unwrap();
        let on_runtime = handle.block_on(async { tokio::spawn(async { sigpipe_blocked() }).await });
        assert!(on_runtime.unwrap(), "the I/O thread blocks SIGPIPE");
        assert!(!sigpipe_blocked(), "the caller's thread is untouched");
    }
}
