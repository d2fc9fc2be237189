//! The one place where core errors become JavaScript errors.
//!
//! napi's async rejections keep only a message (their `code` is napi's own status name), so the
//! registry code travels as a message prefix, `leaseq:CODE: ` (`leaseq:INVALID_ARGUMENT:name: `
//! for a refused argument), which `lib/errors.js` strips off to build a `LeaseqError` with that
//! `code` (and `argument`).

use leaseq::operations::OPERATIONS;
use leaseq::{Error, ErrorCode};
use napi::Status;

/// The prefix `lib/errors.js` looks for; keep the two in step.
const PREFIX: &str = "leaseq:";

/// Converts a core error, renaming arguments to what the JavaScript API calls them.
pub(crate) fn to_napi(err: Error) -> napi::Error {
    match &err {
        Error::InvalidArgument { argument, reason } => invalid(&js_argument(argument), reason),
        other => encode(other.code().as_str(), &other.to_string()),
    }
}

/// An argument refused by the binding itself, before the core saw it.
pub(crate) fn invalid(argument: &str, reason: &str) -> napi::Error {
    let code = format!("{}:{argument}", ErrorCode::InvalidArgument.as_str());
    encode(&code, &format!("invalid argument `{argument}`: {reason}"))
}

fn encode(code: &str, message: &str) -> napi::Error {
    napi::Error::new(Status::GenericFailure, format!("{PREFIX}{code}: {message}"))
}

/// The core names arguments as its Rust API does (`ttl`, `keep_for`); the JavaScript API takes
/// milliseconds and camelCase option names, and says so in its errors. An argument of an
/// operation has its Node name in the core's table (`Arg::node_name`); the fields of an item,
/// of a queue's configuration and the settings of a runner (`Worker`'s options), which the
/// table does not list, are named here.
fn js_argument(core_name: &str) -> String {
    if let Some(arg) = OPERATIONS
        .iter()
        .flat_map(|o| o.args)
        .find(|a| a.name == core_name)
    {
        return arg.node_name();
    }
    match core_name {
        "run_at" => "runAt",
        "max_attempts" => "maxAttempts",
        "expires_after" => "expiresAfterMs",
        "keep_for" => "keepResultForMs",
        "dead_max_count" => "deadMaxCount",
        "dead_max_age" => "deadMaxAgeMs",
        "rate_limit" => "rateLimit",
        "group_concurrency" => "groupConcurrency",
        "group_rate_limit" => "groupRateLimit",
        "depends_on" => "dependsOn",
        "on_dependency_failure" => "onDependencyFailure",
        "events_max_len" => "eventsMaxLen",
        "events_max_age" => "eventsMaxAgeMs",
        "every" => "everyMs",
        "lease_ttl" => "leaseTtlMs",
        "renew_every" => "renewEveryMs",
        "keep_result_for" => "keepResultForMs",
        "shutdown_timeout" => "shutdownTimeoutMs",
        "poll_interval" => "pollIntervalMs",
        "heartbeat" => "heartbeatMs",
        "housekeeping_every" => "housekeepingEveryMs",
        "deep_clean_every" => "deepCleanEveryMs",
        "job_timeout" => "jobTimeoutMs",
        "timeout_grace" => "timeoutGraceMs",
        other => other,
    }
    .to_owned()
}
