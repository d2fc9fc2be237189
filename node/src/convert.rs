//! Conversions between JavaScript values and core types: numbers of milliseconds, waits,
//! integers, backoffs. Only conversion: bounds and defaults are the core's.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use leaseq::{policy, Backoff, Retry, Wait};
use napi_derive::napi;

use crate::error::{invalid, to_napi};

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

/// An optional number of milliseconds.
pub(crate) fn opt_millis(argument: &str, ms: Option<f64>) -> napi::Result<Option<Duration>> {
    ms.map(|ms| millis(argument, ms)).transpose()
}

/// A lease TTL: the one given, checked by the core ([`leaseq::ttl_from_millis`]: more than 0,
/// at most 30 days; a fraction of a millisecond rounds up, as the core rounds a `Duration`),
/// else the core's default ([`policy::DEFAULT_TTL`]).
pub(crate) fn ttl(ttl_ms: Option<f64>) -> napi::Result<Duration> {
    let Some(ms) = ttl_ms else {
        return Ok(policy::DEFAULT_TTL);
    };
    if !ms.is_finite() {
        return Err(invalid("ttlMs", "must be a finite number of milliseconds"));
    }
    // Rounded away from zero, so that no negative becomes 0 nor a fraction above 0 does; `as`
    // saturates, and a number beyond i64 is still refused by the core, as too long.
    let whole = if ms > 0.0 { ms.ceil() } else { ms.floor() };
    leaseq::ttl_from_millis("ttl", whole as i64).map_err(to_napi)
}

/// A time from JavaScript (milliseconds since the Unix epoch, what `Date#getTime` gives) as a
/// `SystemTime`; a time before 1970 is left for the core to refuse.
pub(crate) fn time(argument: &str, ms: f64) -> napi::Result<SystemTime> {
    if !ms.is_finite() {
        return Err(invalid(
            argument,
            "must be a valid Date or a finite number of milliseconds",
        ));
    }
    let offset = Duration::try_from_secs_f64(ms.abs() / 1000.0)
        .map_err(|_| invalid(argument, "is too far from 1970"))?;
    let at = if ms >= 0.0 {
        UNIX_EPOCH.checked_add(offset)
    } else {
        UNIX_EPOCH.checked_sub(offset)
    };
    at.ok_or_else(|| invalid(argument, "is too far from 1970"))
}

/// The `timeoutMs` (and deprecated `block`) options of a lease as a core `Wait`: neither is the
/// core's default (no wait); `timeoutMs` waits up to that long (`Infinity`: until an item comes
/// or the client closes); `block: true` alone waits without a limit.
pub(crate) fn wait(block: Option<bool>, timeout_ms: Option<f64>) -> napi::Result<Wait> {
    match (block, timeout_ms) {
        (None, None) => Ok(Wait::default()),
        (Some(false), None) => Ok(Wait::No),
        (Some(true), None) => Ok(Wait::Forever),
        (Some(false), Some(_)) => Err(invalid("timeoutMs", "cannot be given with `block: false`")),
        (_, Some(ms)) if ms == f64::INFINITY => Ok(Wait::Forever),
        (_, Some(ms)) => Ok(Wait::from_timeout(Some(millis("timeoutMs", ms)?))),
    }
}

/// A whole number from JavaScript as an integer type, refusing fractions and what does not fit:
/// a negative number where the type is unsigned "must not be negative" (the argument's own
/// range is the core's to state, as Python says it), any other that does not fit "is out of
/// range"; both with the value.
pub(crate) fn integer<T: TryFrom<i64>>(argument: &str, value: f64) -> napi::Result<T> {
    const LIMIT: f64 = 9_007_199_254_740_991.0; // Number.MAX_SAFE_INTEGER
    if !value.is_finite() || value.fract() != 0.0 || value.abs() > LIMIT {
        return Err(invalid(argument, "must be a whole number"));
    }
    let whole = value as i64;
    T::try_from(whole).map_err(|_| {
        if whole < 0 && T::try_from(-1).is_err() {
            invalid(argument, &format!("must not be negative, got {whole}"))
        } else {
            invalid(argument, &format!("is out of range, got {whole}"))
        }
    })
}

/// Counts from the core as JavaScript numbers (exact up to 2^53, far beyond any queue).
pub(crate) fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A server time (ms since the epoch) as a JavaScript number (`lib/` makes it a `Date`).
pub(crate) fn ms_number(ms: u64) -> f64 {
    ms as f64
}

/// A duration as a JavaScript number of milliseconds.
pub(crate) fn duration_ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A backoff as JavaScript writes it: `{ type: 'fixed', delayMs }` or
/// `{ type: 'exponential', baseMs, capMs, jitter? }` (`lib/args.js` checks the shape).
#[napi(object)]
pub struct BackoffParts {
    /// `fixed` or `exponential`.
    #[napi(js_name = "type")]
    pub kind: String,
    /// The delay of a fixed backoff.
    pub delay_ms: Option<f64>,
    /// The first retry's delay of an exponential backoff.
    pub base_ms: Option<f64>,
    /// The longest delay of an exponential backoff.
    pub cap_ms: Option<f64>,
    /// Whether an exponential backoff randomises its delays (absent: the core's default).
    pub jitter: Option<bool>,
}

impl BackoffParts {
    /// The core's backoff; bounds are checked by the core when it is used.
    pub(crate) fn to_core(&self) -> napi::Result<Backoff> {
        let need = |value: Option<f64>, name: &str| {
            value.ok_or_else(|| invalid("backoff", &format!("needs `{name}`")))
        };
        match self.kind.as_str() {
            "fixed" => Ok(Backoff::fixed(millis(
                "backoff",
                need(self.delay_ms, "delayMs")?,
            )?)),
            "exponential" => {
                let base = millis("backoff", need(self.base_ms, "baseMs")?)?;
                let cap = millis("backoff", need(self.cap_ms, "capMs")?)?;
                Ok(match self.jitter {
                    None => Backoff::exponential(base, cap),
                    Some(jitter) => Backoff::Exponential { base, cap, jitter },
                })
            }
            other => Err(invalid(
                "backoff",
                &format!("type `{other}` is not `fixed` or `exponential`"),
            )),
        }
    }

    /// A core backoff as JavaScript sees it.
    pub(crate) fn from_core(backoff: Backoff) -> BackoffParts {
        let none = BackoffParts {
            kind: String::new(),
            delay_ms: None,
            base_ms: None,
            cap_ms: None,
            jitter: None,
        };
        match backoff {
            Backoff::Fixed(d) => BackoffParts {
                kind: "fixed".into(),
                delay_ms: Some(duration_ms(d)),
                ..none
            },
            Backoff::Exponential { base, cap, jitter } => BackoffParts {
                kind: "exponential".into(),
                base_ms: Some(duration_ms(base)),
                cap_ms: Some(duration_ms(cap)),
                jitter: Some(jitter),
                ..none
            },
            _ => BackoffParts {
                kind: "unknown".into(),
                ..none
            },
        }
    }
}

/// The `retry` option of `fail`: `'default'`, `'never'`, or a delay (`{ afterMs }`, which
/// `lib/` passes as `retry_after_ms`). Neither: the core's default.
pub(crate) fn retry(mode: Option<String>, after_ms: Option<f64>) -> napi::Result<Retry> {
    match (mode.as_deref(), after_ms) {
        (None, None) => Ok(Retry::default()),
        (Some("default"), None) => Ok(Retry::Default),
        (Some("never"), None) => Ok(Retry::Never),
        (None, Some(ms)) => Ok(Retry::After(millis("retry", ms)?)),
        _ => Err(invalid(
            "retry",
            "must be 'default', 'never' or { afterMs: number }",
        )),
    }
}
