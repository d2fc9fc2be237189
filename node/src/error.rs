//! The one place where core errors become JavaScript errors.
//!
//! napi's async rejections keep only a message (their `code` is napi's own status name), so the
//! registry code travels as a message prefix, `leaseq:CODE: `, which `lib/errors.js` strips
//! off to build a `LeaseqError` with that `code`.

use leaseq::{Error, ErrorCode};
use napi::Status;

/// The prefix `lib/errors.js` looks for; keep the two in step.
const PREFIX: &str = "leaseq:";

/// Converts a core error, renaming arguments to what the JavaScript API calls them.
pub(crate) fn to_napi(err: Error) -> napi::Error {
    let message = match &err {
        Error::InvalidArgument { argument, reason } => invalid_message(js_argument(argument), reason),
        other => other.to_string(),
    };
    encode(err.code(), &message)
}

/// An argument refused by the binding itself, before the core saw it.
pub(crate) fn invalid(argument: &str, reason: &str) -> napi::Error {
    encode(ErrorCode::InvalidArgument, &invalid_message(argument, reason))
}

fn invalid_message(argument: &str, reason: &str) -> String {
    format!("invalid argument `{argument}`: {reason}")
}

fn encode(code: ErrorCode, message: &str) -> napi::Error {
    napi::Error::new(Status::GenericFailure, format!("{PREFIX}{}: {message}", code.as_str()))
}

/// The core names durations as Rust does (`ttl`); the JavaScript API takes milliseconds and
/// says so in its option names.
fn js_argument(core_name: &str) -> &str {
    match core_name {
        "ttl" => "ttlMs",
        "timeout" => "timeoutMs",
        other => other,
    }
}
