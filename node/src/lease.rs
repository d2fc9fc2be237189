//! `NativeLease`: the core's `Lease`, kept whole, so that `complete`, `fail` and the others get
//! back exactly what the core leased (an id that is not UTF-8 included).

use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::convert::{count, BackoffParts};

/// A leased item as the core returned it (its data taken out: `LeasedParts#data` carries it).
/// `lib/lease.js` wraps it as `Lease`.
#[napi]
pub struct NativeLease {
    pub(crate) inner: leaseq::Lease,
}

/// A lease as the JS layer receives it: the lease and its data.
#[napi(object, object_from_js = false)]
pub struct LeasedParts {
    /// The lease, to pass back to the queue.
    pub lease: NativeLease,
    /// The item's data.
    pub data: Buffer,
}

impl From<leaseq::Lease> for LeasedParts {
    fn from(mut inner: leaseq::Lease) -> LeasedParts {
        let data = inner.take_data().into();
        LeasedParts {
            lease: NativeLease { inner },
            data,
        }
    }
}

#[napi]
impl NativeLease {
    /// The item's id (an id that is not UTF-8 is shown lossily; `idBytes` has it exactly).
    #[napi(getter)]
    pub fn id(&self) -> String {
        self.inner.id().to_owned()
    }

    /// The item's id exactly as Redis holds it.
    #[napi(getter)]
    pub fn id_bytes(&self) -> Buffer {
        self.inner.id_bytes().to_vec().into()
    }

    /// This lease's fencing token.
    #[napi(getter)]
    pub fn token(&self) -> String {
        self.inner.token().to_owned()
    }

    /// The attempt number: how many times the item has been leased, this lease included.
    #[napi(getter)]
    pub fn count(&self) -> i64 {
        count(self.inner.count())
    }

    /// Which life of the id this lease belongs to.
    #[napi(getter)]
    pub fn incarnation(&self) -> String {
        self.inner.incarnation().to_owned()
    }

    /// The attempts after which the item is dead instead of retried (0: no limit).
    #[napi(getter)]
    pub fn max_attempts(&self) -> u32 {
        self.inner.max_attempts()
    }

    /// The item's backoff.
    #[napi(getter)]
    pub fn backoff(&self) -> BackoffParts {
        BackoffParts::from_core(self.inner.backoff())
    }

    /// The item's name (what kind of job it is), when it was added with one.
    #[napi(getter)]
    pub fn name(&self) -> Option<String> {
        self.inner.name().map(str::to_owned)
    }

    /// The prefix of the queue that leased it.
    #[napi(getter)]
    pub fn queue_prefix(&self) -> String {
        self.inner.queue_prefix().to_owned()
    }
}
