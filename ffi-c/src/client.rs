//! `leaseq_client`: a connection to Redis or a Redis Cluster.

use std::ffi::{c_char, CString};

use leaseq::blocking;

use crate::guard::{arg, call, call_quiet, text, Failure, Out};
use crate::queue::leaseq_queue;
use crate::status::leaseq_status;

/// A connection to one Redis server or one Redis Cluster (opaque).
///
/// Thread safety: a client may be used from any number of threads at once; each call blocks
/// only its calling thread. Made by `leaseq_client_connect` or `leaseq_client_connect_cluster`,
/// released by `leaseq_client_free`.
#[allow(non_camel_case_types)]
pub struct leaseq_client {
    pub(crate) inner: blocking::Client,
    warnings: Vec<CString>,
}

impl leaseq_client {
    fn new(inner: blocking::Client) -> *mut leaseq_client {
        let warnings = inner
            .warnings()
            .iter()
            .map(|w| crate::guard::c_string(w))
            .collect();
        Box::into_raw(Box::new(leaseq_client { inner, warnings }))
    }
}

/// Connects to one Redis server.
///
/// `url` is `redis://[user:pass@]host[:port][/db]`, `rediss://...` (TLS; append `#insecure`
/// to skip certificate checks) or `redis+unix:///path/to.sock` (UTF-8, NUL-terminated; only
/// read during the call).
///
/// On success `*out_client` is a new client owned by the caller: free it with
/// `leaseq_client_free`. On failure it is set to NULL. Errors: `LEASEQ_INVALID_ARGUMENT` (a
/// malformed URL), `LEASEQ_CONNECTION`, `LEASEQ_TIMEOUT`, `LEASEQ_NULL_ARGUMENT`.
///
/// # Safety
/// `url` is NULL or a NUL-terminated string; `out_client` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_client_connect(
    url: *const c_char,
    out_client: *mut *mut leaseq_client,
) -> leaseq_status {
    call("leaseq_client_connect", || {
        let out_client = unsafe { Out::new(out_client, "out_client", std::ptr::null_mut()) };
        let url = unsafe { text(url, "url") }?;
        out_client.required()?;
        let client = blocking::Client::connect(url)?;
        out_client.set(leaseq_client::new(client));
        Ok(())
    })
}

/// Connects to a Redis Cluster through one or more of its nodes.
///
/// `urls` is an array of `urls_len` node URLs (UTF-8, NUL-terminated; only read during the
/// call). Queue prefixes used with a cluster client must hold a `{hash tag}`.
///
/// On success `*out_client` is a new client owned by the caller: free it with
/// `leaseq_client_free`. On failure it is set to NULL. An empty list gives
/// `LEASEQ_INVALID_ARGUMENT`; a NULL `urls` with a non-zero length, or a NULL element, gives
/// `LEASEQ_NULL_ARGUMENT`.
///
/// # Safety
/// `urls` is NULL or points to `urls_len` pointers, each NULL or a NUL-terminated string;
/// `out_client` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_client_connect_cluster(
    urls: *const *const c_char,
    urls_len: usize,
    out_client: *mut *mut leaseq_client,
) -> leaseq_status {
    call("leaseq_client_connect_cluster", || {
        let out_client = unsafe { Out::new(out_client, "out_client", std::ptr::null_mut()) };
        let pointers: &[*const c_char] = if urls_len == 0 {
            &[]
        } else if urls.is_null() {
            return Err(Failure::Null("urls".into()));
        } else {
            // SAFETY: `urls_len` readable pointers by the caller's contract.
            unsafe { std::slice::from_raw_parts(urls, urls_len) }
        };
        let list = pointers
            .iter()
            .enumerate()
            .map(|(i, &p)| unsafe { text(p, format!("urls[{i}]")) })
            .collect::<Result<Vec<&str>, Failure>>()?;
        out_client.required()?;
        let client = blocking::Client::connect_cluster(list)?;
        out_client.set(leaseq_client::new(client));
        Ok(())
    })
}

/// Closes the client: leases waiting on any thread (on any queue made from this client) end at
/// once with `LEASEQ_CLOSED`, and so does every later call on the client and its queues.
///
/// This is how to interrupt a blocking `leaseq_queue_lease` from another thread. Closing twice
/// is harmless. The handle stays allocated: free it with `leaseq_client_free` afterwards.
///
/// # Safety
/// `client` is NULL or a live client.
#[no_mangle]
pub unsafe extern "C" fn leaseq_client_close(client: *const leaseq_client) -> leaseq_status {
    call("leaseq_client_close", || {
        let client = unsafe { arg(client, "client") }?;
        client.inner.close();
        Ok(())
    })
}

/// Sets `*out_is_cluster` to whether the client talks to a Redis Cluster.
///
/// # Safety
/// `client` is NULL or a live client; `out_is_cluster` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_client_is_cluster(
    client: *const leaseq_client,
    out_is_cluster: *mut bool,
) -> leaseq_status {
    call("leaseq_client_is_cluster", || {
        let out_is_cluster = unsafe { Out::new(out_is_cluster, "out_is_cluster", false) };
        let client = unsafe { arg(client, "client") }?;
        out_is_cluster.required()?;
        out_is_cluster.set(client.inner.is_cluster());
        Ok(())
    })
}

/// Sets `*out_count` to the number of warnings found when connecting: things about the
/// server's configuration that put items at risk (e.g. a `maxmemory-policy` that may evict
/// queue keys). Read them with `leaseq_client_warning`.
///
/// # Safety
/// `client` is NULL or a live client; `out_count` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_client_warning_count(
    client: *const leaseq_client,
    out_count: *mut usize,
) -> leaseq_status {
    call("leaseq_client_warning_count", || {
        let out_count = unsafe { Out::new(out_count, "out_count", 0) };
        let client = unsafe { arg(client, "client") }?;
        out_count.required()?;
        out_count.set(client.warnings.len());
        Ok(())
    })
}

/// Sets `*out_warning` to warning number `index` (from 0; see `leaseq_client_warning_count`).
///
/// The string belongs to the client: valid until `leaseq_client_free`; do not free it. An index
/// out of range gives `LEASEQ_INVALID_ARGUMENT` and sets `*out_warning` to NULL.
///
/// # Safety
/// `client` is NULL or a live client; `out_warning` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_client_warning(
    client: *const leaseq_client,
    index: usize,
    out_warning: *mut *const c_char,
) -> leaseq_status {
    call("leaseq_client_warning", || {
        let out_warning = unsafe { Out::new(out_warning, "out_warning", std::ptr::null()) };
        let client = unsafe { arg(client, "client") }?;
        out_warning.required()?;
        let warning = client.warnings.get(index).ok_or_else(|| {
            Failure::invalid(
                "index",
                format!(
                    "is {index}, the client has {} warnings",
                    client.warnings.len()
                ),
            )
        })?;
        out_warning.set(warning.as_ptr());
        Ok(())
    })
}

/// Makes a handle for the queue whose keys live under `prefix` (UTF-8, NUL-terminated, 1 to
/// 1024 bytes, no control characters; with a cluster client it must hold a `{hash tag}`). Sends
/// nothing to Redis.
///
/// On success `*out_queue` is a new queue owned by the caller: free it with
/// `leaseq_queue_free`. The queue keeps its own reference to the connection, so it stays valid
/// memory after `leaseq_client_free`, but it shares the client's closed state. On failure
/// `*out_queue` is set to NULL; an invalid prefix gives `LEASEQ_INVALID_ARGUMENT`.
///
/// # Safety
/// `client` is NULL or a live client; `prefix` is NULL or a NUL-terminated string;
/// `out_queue` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_client_queue(
    client: *const leaseq_client,
    prefix: *const c_char,
    out_queue: *mut *mut leaseq_queue,
) -> leaseq_status {
    call("leaseq_client_queue", || {
        let out_queue = unsafe { Out::new(out_queue, "out_queue", std::ptr::null_mut()) };
        let client = unsafe { arg(client, "client") }?;
        let prefix = unsafe { text(prefix, "prefix") }?;
        out_queue.required()?;
        let queue = client.inner.queue(prefix)?;
        out_queue.set(leaseq_queue::new(queue));
        Ok(())
    })
}

/// Closes the client (exactly as `leaseq_client_close`, so leases waiting on its queues in
/// other threads end with `LEASEQ_CLOSED`) and frees the handle. NULL is accepted and ignored.
///
/// Queues made from the client stay valid memory until their own `leaseq_queue_free`, but every
/// call on them returns `LEASEQ_CLOSED`. The connection is released when the client and all its
/// queues are freed. No other thread may be inside a call that takes this same client pointer,
/// and the pointer must not be used again.
///
/// # Safety
/// `client` is NULL or a live client that no other call is using, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_client_free(client: *mut leaseq_client) {
    call_quiet((), || {
        if !client.is_null() {
            // SAFETY: made by Box::into_raw in this crate and freed once, by contract.
            let client = unsafe { Box::from_raw(client) };
            client.inner.close();
            drop(client);
        }
    })
}

/// Stops leaseq's I/O runtime: the one background thread per process on which runners
/// (`leaseq_worker_run`) and the jobs they hand out work, with the connections it still holds.
/// It waits up to two seconds for that thread to end. A client's own calls do not use it: they
/// run on the calling threads.
///
/// Optional: call it last, after freeing every client and queue, when nothing of leaseq may
/// outlive the call (before unloading the library, or before exiting a program checked by
/// valgrind, which would otherwise see the live thread's memory). A runner started afterwards
/// starts a new runtime, but a client whose runner ran before has lost that connection: its
/// runners fail. Never call it while another thread is inside a leaseq call. Calling it twice
/// is harmless.
#[no_mangle]
pub extern "C" fn leaseq_runtime_shutdown() {
    call_quiet((), leaseq::runtime::shutdown)
}
