//! What a runner reports as it goes ([`Event`]) and when it ends ([`Report`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::error::Error;
use crate::lease::RenewOutcome;

/// Something a runner did or met, for logs and metrics.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Event {
    /// A job completed (its handler succeeded and the complete took effect).
    Completed {
        /// The item's id.
        id: String,
        /// Which attempt succeeded.
        attempt: u64,
    },
    /// A job failed and will run again after `retry_in`.
    Retrying {
        /// The item's id.
        id: String,
        /// Which attempt failed.
        attempt: u64,
        /// The handler's error message.
        error: String,
        /// The delay before the next attempt.
        retry_in: Duration,
    },
    /// A job failed for good: out of attempts, or unrecoverable. It is in the dead letters.
    Dead {
        /// The item's id.
        id: String,
        /// Which attempt failed.
        attempt: u64,
        /// The handler's error message.
        error: String,
    },
    /// A job's handler asked to hand the item back, or a shutdown released it.
    Released {
        /// The item's id.
        id: String,
        /// Which attempt handed it back.
        attempt: u64,
    },
    /// A job's lease was lost: a renew found it gone (`why`), or its outcome found it no longer
    /// held. Its handler was told; the item may run again elsewhere.
    LeaseLost {
        /// The item's id.
        id: String,
        /// Which attempt lost it.
        attempt: u64,
        /// What the renew or outcome found.
        why: RenewOutcome,
    },
    /// A job's handler ran past the runner's `job_timeout` and was told to stop; its attempt
    /// fails with the timeout error once it ends or after `timeout_grace` (then a `retrying`
    /// or `dead` follows).
    TimedOut {
        /// The item's id.
        id: String,
        /// Which attempt timed out.
        attempt: u64,
        /// The timeout it ran past.
        timeout: Duration,
    },
    /// A step met an error. Retryable errors (Redis away, loading, failing over) are reported
    /// once per outage; the runner pauses and goes on.
    Error {
        /// The step: `config` (storing the `stats` setting as the runner starts), `lease`,
        /// `finish`, `renew`, `beat`, `clean`; `connect` for a C or Python runner started
        /// while Redis could not be reached ([`crate::blocking::for_a_runner`]: it waits).
        during: &'static str,
        /// The error.
        error: Arc<Error>,
    },
    /// A step works again after an [`Event::Error`].
    Recovered {
        /// The step.
        during: &'static str,
    },
}

impl Event {
    /// Every event's [`Event::name`], in the order of the enum: the names each binding uses.
    pub const NAMES: [&'static str; 8] = [
        "completed",
        "retrying",
        "dead",
        "released",
        "lease_lost",
        "timed_out",
        "error",
        "recovered",
    ];

    /// The event's name, the same in every language: `completed`, `retrying`, `dead`,
    /// `released`, `lease_lost`, `timed_out`, `error` or `recovered` (Node names them in
    /// camelCase).
    pub fn name(&self) -> &'static str {
        match self {
            Event::Completed { .. } => "completed",
            Event::Retrying { .. } => "retrying",
            Event::Dead { .. } => "dead",
            Event::Released { .. } => "released",
            Event::LeaseLost { .. } => "lease_lost",
            Event::TimedOut { .. } => "timed_out",
            Event::Error { .. } => "error",
            Event::Recovered { .. } => "recovered",
        }
    }

    /// The item's id, for the events about one job (`None` for `error` and `recovered`).
    pub fn id(&self) -> Option<&str> {
        match self {
            Event::Completed { id, .. }
            | Event::Retrying { id, .. }
            | Event::Dead { id, .. }
            | Event::Released { id, .. }
            | Event::LeaseLost { id, .. }
            | Event::TimedOut { id, .. } => Some(id),
            Event::Error { .. } | Event::Recovered { .. } => None,
        }
    }

    /// The attempt, for every event about a job (0 for `error` and `recovered`).
    pub fn attempt(&self) -> u64 {
        match self {
            Event::Completed { attempt, .. }
            | Event::Retrying { attempt, .. }
            | Event::Dead { attempt, .. }
            | Event::Released { attempt, .. }
            | Event::LeaseLost { attempt, .. }
            | Event::TimedOut { attempt, .. } => *attempt,
            _ => 0,
        }
    }

    /// How much the event matters in a log (spec/PROTOCOL.md 13.4): `completed` and `released`
    /// are [`LogLevel::Debug`] (no line per successful job at the default level), `recovered`
    /// [`LogLevel::Info`], `dead` [`LogLevel::Error`], the others [`LogLevel::Warn`].
    pub fn level(&self) -> LogLevel {
        match self {
            Event::Completed { .. } | Event::Released { .. } => LogLevel::Debug,
            Event::Recovered { .. } => LogLevel::Info,
            Event::Dead { .. } => LogLevel::Error,
            Event::Retrying { .. }
            | Event::LeaseLost { .. }
            | Event::TimedOut { .. }
            | Event::Error { .. } => LogLevel::Warn,
        }
    }

    /// The event as a log line, worded here for every language: the job's id and attempt and
    /// the error for a failure (`job 7 failed (attempt 2), retrying in 4s: boom`), the step
    /// and the error for an `error`.
    pub fn log_line(&self) -> String {
        match self {
            Event::Completed { id, attempt } => format!("job {id} completed (attempt {attempt})"),
            Event::Retrying {
                id,
                attempt,
                error,
                retry_in,
            } => format!("job {id} failed (attempt {attempt}), retrying in {retry_in:?}: {error}"),
            Event::Dead { id, attempt, error } => {
                format!("job {id} failed (attempt {attempt}) and is dead: {error}")
            }
            Event::Released { id, attempt } => format!("job {id} released (attempt {attempt})"),
            Event::LeaseLost { id, attempt, why } => {
                format!(
                    "job {id} lost its lease (attempt {attempt}): {}",
                    why.as_str()
                )
            }
            Event::TimedOut {
                id,
                attempt,
                timeout,
            } => format!(
                "job {id} ran past its timeout of {timeout:?} (attempt {attempt}); its handler \
                 was told to stop"
            ),
            Event::Error {
                during: "connect",
                error,
            } => format!("Redis cannot be reached as the runner starts; waiting for it: {error}"),
            Event::Error { during, error } => format!("{during} failed; going on: {error}"),
            Event::Recovered { during: "connect" } => "Redis answers; the runner starts".into(),
            Event::Recovered { during } => format!("{during} works again"),
        }
    }

    /// The event's message as one line: the handler's error (`retrying`, `dead`), why the lease
    /// was lost (`lease_lost`), the timeout error's message (`timed_out`), `"<step>: <error>"`
    /// (`error`), the step (`recovered`), else empty.
    pub fn message(&self) -> String {
        match self {
            Event::Retrying { error, .. } | Event::Dead { error, .. } => error.clone(),
            Event::LeaseLost { why, .. } => why.as_str().to_owned(),
            Event::TimedOut { timeout, .. } => super::JobError::timed_out(*timeout).message,
            Event::Error { during, error } => format!("{during}: {error}"),
            Event::Recovered { during } => (*during).to_owned(),
            Event::Completed { .. } | Event::Released { .. } => String::new(),
        }
    }
}

/// A sink for events: called on the runtime's threads, so it must be quick.
pub type EventSink = Arc<dyn Fn(&Event) + Send + Sync>;

/// How much a runner's log line matters (spec/PROTOCOL.md 13.4): each binding maps it to its
/// language's levels (`tracing`'s, Python's `logging`, a Node logger's methods, C's numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum LogLevel {
    /// Routine: a job completed or released. Not shown at the default level.
    Debug = 10,
    /// The runner started or stopped, a step works again.
    Info = 20,
    /// Something went wrong and the runner goes on: a failed attempt to be retried, a lost
    /// lease, a timeout, a step failing.
    Warn = 30,
    /// A job failed for good (dead).
    Error = 40,
}

impl LogLevel {
    /// Its name: `debug`, `info`, `warn` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Warn => "warn",
            LogLevel::Error => "error",
        }
    }
}

/// A sink for a runner's log lines ([`crate::worker::Worker::on_log`]): called on the
/// runtime's threads with the line's level and text, so it must be quick.
pub type LogSink = Arc<dyn Fn(LogLevel, &str) + Send + Sync>;

/// The `tracing` target of a runner's log lines.
pub const LOG_TARGET: &str = "leaseq::worker";

/// Whether a `tracing` subscriber wants a line at `level` from a runner.
pub(crate) fn tracing_wants(level: LogLevel) -> bool {
    match level {
        LogLevel::Debug => tracing::enabled!(target: LOG_TARGET, tracing::Level::DEBUG),
        LogLevel::Info => tracing::enabled!(target: LOG_TARGET, tracing::Level::INFO),
        LogLevel::Warn => tracing::enabled!(target: LOG_TARGET, tracing::Level::WARN),
        LogLevel::Error => tracing::enabled!(target: LOG_TARGET, tracing::Level::ERROR),
    }
}

/// Writes `line` as a `tracing` event of `level` under [`LOG_TARGET`], with the runner's id.
pub(crate) fn trace_line(runner: &str, level: LogLevel, line: &str) {
    match level {
        LogLevel::Debug => tracing::debug!(target: LOG_TARGET, runner, "{line}"),
        LogLevel::Info => tracing::info!(target: LOG_TARGET, runner, "{line}"),
        LogLevel::Warn => tracing::warn!(target: LOG_TARGET, runner, "{line}"),
        LogLevel::Error => tracing::error!(target: LOG_TARGET, runner, "{line}"),
    }
}

/// What a runner did, counted from its start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// Jobs completed.
    pub completed: u64,
    /// Failures that will be retried.
    pub retried: u64,
    /// Jobs sent to the dead letters.
    pub dead: u64,
    /// Jobs whose lease was lost.
    pub lost: u64,
    /// Jobs released (by their handler, or at shutdown).
    pub released: u64,
    /// Handlers that ran past the job timeout (each also counted as retried or dead).
    pub timed_out: u64,
}

impl Report {
    /// The runner's last log line (at [`LogLevel::Info`]), worded here for every language:
    /// `runner <id> stopped: 3 completed, 1 retried, 0 dead, 0 lost, 0 released, 0 timed out`.
    pub fn log_line(&self, runner: &str) -> String {
        format!(
            "runner {runner} stopped: {} completed, {} retried, {} dead, {} lost, {} released, \
             {} timed out",
            self.completed, self.retried, self.dead, self.lost, self.released, self.timed_out
        )
    }
}

#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub completed: AtomicU64,
    pub retried: AtomicU64,
    pub dead: AtomicU64,
    pub lost: AtomicU64,
    pub released: AtomicU64,
    pub timed_out: AtomicU64,
}

impl Counters {
    pub fn report(&self) -> Report {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        Report {
            completed: get(&self.completed),
            retried: get(&self.retried),
            dead: get(&self.dead),
            lost: get(&self.lost),
            released: get(&self.released),
            timed_out: get(&self.timed_out),
        }
    }

    pub fn count(&self, event: &Event) {
        let counter = match event {
            Event::Completed { .. } => &self.completed,
            Event::Retrying { .. } => &self.retried,
            Event::Dead { .. } => &self.dead,
            Event::LeaseLost { .. } => &self.lost,
            Event::Released { .. } => &self.released,
            Event::TimedOut { .. } => &self.timed_out,
            _ => return,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_each_variants_name_in_order() {
        let events = [
            Event::Completed {
                id: "a".into(),
                attempt: 1,
            },
            Event::Retrying {
                id: "a".into(),
                attempt: 1,
                error: "e".into(),
                retry_in: Duration::ZERO,
            },
            Event::Dead {
                id: "a".into(),
                attempt: 2,
                error: "e".into(),
            },
            Event::Released {
                id: "a".into(),
                attempt: 1,
            },
            Event::LeaseLost {
                id: "a".into(),
                attempt: 2,
                why: RenewOutcome::Expired,
            },
            Event::TimedOut {
                id: "a".into(),
                attempt: 3,
                timeout: Duration::from_millis(1500),
            },
            Event::Error {
                during: "lease",
                error: Arc::new(Error::invalid("x", "y")),
            },
            Event::Recovered { during: "lease" },
        ];
        let names: Vec<_> = events.iter().map(Event::name).collect();
        assert_eq!(names, Event::NAMES);
        assert_eq!(events[1].message(), "e");
        assert_eq!(events[4].message(), "expired");
        assert_eq!(events[5].message(), "the job ran past its timeout of 1.5s");
        assert_eq!((events[5].id(), events[5].attempt()), (Some("a"), 3));
        assert!(
            events[6].message().starts_with("lease: "),
            "{}",
            events[6].message()
        );
        assert_eq!(events[7].id(), None);
        assert_eq!(events[2].attempt(), 2);
    }
}
