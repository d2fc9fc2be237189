//! Conversions between JavaScript values and core types.

use std::time::Duration;

use leaseq::{Lease, Wait};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::error::invalid;

/// A lease as the JS layer receives it; `lib/lease.js` wraps it in a `Lease`.
#[napi(object)]
pub struct LeaseParts {
    /// The item's id.
    pub id: String,
    /// The item's data.
    pub data: Buffer,
    /// This lease's fencing token.
    pub token: String,
    /// How many times the item has been leased, this lease included.
    pub count: i64,
}

impl From<Lease> for LeaseParts {
    fn from(mut lease: Lease) -> LeaseParts {
        let data = lease.take_data();
        LeaseParts {
            id: lease.id().to_owned(),
            data: data.into(),
            token: lease.token().to_owned(),
            count: i64::try_from(lease.count()).unwrap_or(i64::MAX),
        }
    }
}

/// A number of milliseconds from JavaScript as a `Duration`, refusing what no duration is.
/// Zero and the upper bounds are left to the core, which knows what each argument allows.
pub(crate) fn millis(argument: &str, ms: f64) -> napi::Result<Duration> {
    if !ms.is_finite() || ms < 0.0 {
        return Err(invalid(
            argument,
            "must be a finite, non-negative number of milliseconds",
        ));
    }
    Duration::try_from_secs_f64(ms / 1000.0).map_err(|_| invalid(argument, "is too large"))
}

/// The `block` and `timeoutMs` options of `lease` as a core `Wait`.
pub(crate) fn wait(block: bool, timeout_ms: Option<f64>) -> napi::Result<Wait> {
    match (block, timeout_ms) {
        (false, None) => Ok(Wait::No),
        (false, Some(_)) => Err(invalid("timeoutMs", "applies only with `block: true`")),
        (true, timeout) => Ok(Wait::from_timeout(
            timeout.map(|ms| millis("timeoutMs", ms)).transpose()?,
        )),
    }
}

/// Counts from the core as JavaScript numbers (exact up to 2^53, far beyond any queue).
pub(crate) fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
