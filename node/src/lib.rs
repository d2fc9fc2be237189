//! The native half of the npm package `leaseq`: thin napi-rs classes over the Rust core.
//!
//! JavaScript never sees these classes directly: `lib/*.js` wraps them, checks argument types,
//! and turns the code-prefixed rejections made by [`error`] into `LeaseqError`s. Every I/O call
//! is an `async fn` on napi's tokio runtime, so nothing here blocks the event loop.

#![deny(clippy::all)]

mod client;
mod convert;
mod error;
mod queue;

use napi_derive::napi;

pub use client::NativeClient;
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

/// The id of a new item: `id` itself once the core has validated it, or a fresh random id from
/// the core when `id` is absent.
#[napi]
pub fn item_id(id: Option<String>) -> napi::Result<String> {
    match id {
        Some(id) => {
            leaseq::validate_id(&id).map_err(error::to_napi)?;
            Ok(id)
        }
        None => Ok(leaseq::Item::new(Vec::new()).into_parts().0),
    }
}
