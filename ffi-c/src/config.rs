//! A queue's stored configuration: read, set, reset.

use leaseq::QueueConfig;

use crate::guard::{arg, call, Failure, Outcome};
use crate::options::{self, leaseq_config};
use crate::queue::leaseq_queue;
use crate::status::leaseq_status;

/// Reads the queue's stored configuration into `*out_config`, whose `struct_size` the caller
/// sets first (`leaseq_config out = LEASEQ_CONFIG_INIT;`): only the fields that fit in it are
/// written. `set` names the fields that are stored; the others are 0, and the protocol's
/// defaults apply to them. One round trip.
///
/// # Safety
/// `queue` is NULL or a live queue; `out_config` is NULL or points to a `leaseq_config` of
/// `struct_size` writable bytes with `struct_size` set.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_config(
    queue: *const leaseq_queue,
    out_config: *mut leaseq_config,
) -> leaseq_status {
    call("leaseq_queue_config", || {
        let queue = unsafe { arg(queue, "queue") }?;
        unsafe { config_out(out_config, || queue.inner.config()) }
    })
}

/// Writes the configuration `read` gives into `*out_config`, for `leaseq_queue_config` and
/// `leaseq_partitioned_config`: NULL and a bad `struct_size` are refused before `read` runs
/// (before the round trip).
///
/// # Safety
/// `out_config` is NULL or points to a `leaseq_config` of `struct_size` writable bytes with
/// `struct_size` set.
pub(crate) unsafe fn config_out(
    out_config: *mut leaseq_config,
    read: impl FnOnce() -> leaseq::Result<QueueConfig>,
) -> Outcome {
    if out_config.is_null() {
        return Err(Failure::Null("out_config".into()));
    }
    // Checks struct_size before the round trip.
    unsafe { options::write(out_config, "out_config", leaseq_config::default()) }?;
    let config = leaseq_config::from_core(&read()?);
    unsafe { options::write(out_config, "out_config", config) }
}

/// Stores the fields of `config` named in its `set` bits; the others keep their stored value.
/// Every field is checked first: a bad one gives `LEASEQ_INVALID_ARGUMENT` naming it (e.g.
/// `config.priority`) and nothing is written. With no bit set, nothing is sent. One round
/// trip. Every client of the queue, in every language, reads the stored configuration.
///
/// # Safety
/// `queue` is NULL or a live queue; `config` is NULL or points to a `leaseq_config` of
/// `struct_size` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_set_config(
    queue: *const leaseq_queue,
    config: *const leaseq_config,
) -> leaseq_status {
    call("leaseq_queue_set_config", || {
        let queue = unsafe { arg(queue, "queue") }?;
        if config.is_null() {
            return Err(Failure::Null("config".into()));
        }
        let config = unsafe { options::read(config, "config") }?.unwrap_or_default();
        queue.inner.set_config(&config.to_core("config")?)?;
        Ok(())
    })
}

/// Removes the queue's stored configuration: the protocol's defaults apply again. One round
/// trip.
///
/// # Safety
/// `queue` is NULL or a live queue.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_reset_config(queue: *const leaseq_queue) -> leaseq_status {
    call("leaseq_queue_reset_config", || {
        let queue = unsafe { arg(queue, "queue") }?;
        queue.inner.reset_config()?;
        Ok(())
    })
}
