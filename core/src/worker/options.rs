//! A runner's settings, their defaults and their bounds: decided here once for every binding.

use std::time::Duration;

use crate::error::{Error, Result};
use crate::lease::MAX_TTL;
use crate::policy::MAX_PAGE;

/// What a runner does with the jobs still running when its shutdown timeout passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ShutdownAction {
    /// Release them: they wait again at once, without counting a failure (the default).
    #[default]
    Release,
    /// Fail them (counts an attempt; retried with the queue's backoff or dead).
    Fail,
}

/// A runner's settings. Every field has a default; the setters take `Option` so that a binding
/// passes what its user gave and leaves the rest to the core.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct WorkerOptions {
    /// Handlers running at once (1 to 1000; default 1).
    pub concurrency: Option<usize>,
    /// Each lease's time to live (default 30 s); renewed while the handler runs.
    pub lease_ttl: Option<Duration>,
    /// How often held leases are renewed, all in one round trip (default `lease_ttl / 3`).
    pub renew_every: Option<Duration>,
    /// Keep a handler's return value as the job's result (default true; nothing is kept for a
    /// handler that returns nothing).
    pub keep_results: Option<bool>,
    /// How long kept results live (default: the item's, else the queue's setting).
    pub keep_result_for: Option<Duration>,
    /// How long a shutdown waits for running handlers (default 30 s).
    pub shutdown_timeout: Option<Duration>,
    /// What happens to handlers still running after `shutdown_timeout` (default release).
    pub on_shutdown: Option<ShutdownAction>,
    /// The longest single server-side wait for work; a shutdown is noticed within it (default
    /// 1 s, 10 ms to 60 s).
    pub poll_interval: Option<Duration>,
    /// Registration beat (default 5 s); the registration lives three beats.
    pub heartbeat: Option<Duration>,
    /// Whether this runner takes part in the queue's housekeeping (default true).
    pub housekeeping: Option<bool>,
    /// Light clean period while this runner holds the housekeeping lock (default 5 s).
    pub housekeeping_every: Option<Duration>,
    /// Deep clean period while it holds the lock (default one hour; zero turns it off).
    pub deep_clean_every: Option<Duration>,
    /// Whether to register in the queue's runner registry (default true).
    pub register: Option<bool>,
    /// The language shown in the registry (set by each binding; default `rust`).
    pub language: Option<String>,
    /// When set, the runner stores it in the queue's configuration
    /// ([`QueueConfig::stats`](crate::QueueConfig)) as it starts, before its first lease:
    /// `Some(true)` turns the queue's per-minute counters on for every client, `Some(false)`
    /// off. `None` (the default) leaves the configuration alone.
    pub stats: Option<bool>,
    /// How long a handler may run (1 ms to 30 days; default none: no limit). Past it the
    /// handler is told ([`Job::cancelled`](crate::worker::Job::cancelled), reason
    /// [`CancelReason::Timeout`](crate::worker::CancelReason)) and the attempt fails with a
    /// [`TIMEOUT_ERROR_TYPE`](crate::worker::TIMEOUT_ERROR_TYPE) error once the handler ends,
    /// or after `timeout_grace`, whichever comes first: retried with the queue's backoff, or
    /// dead when out of attempts.
    pub job_timeout: Option<Duration>,
    /// How long a handler told of its timeout has to end (0 to one day; default 5 s). Past
    /// it the attempt is failed although the handler still runs: its lease is no longer
    /// renewed, its later outcome is ignored, and its slot stays taken until it really returns
    /// (the concurrency counts handlers that run, so none runs beside one that overstays).
    pub timeout_grace: Option<Duration>,
    /// For a binding's table of handlers by name: the names it handles. The runner then fails
    /// for good (without calling the handler) a job that no name and no fallback takes
    /// ([`crate::worker::route`]), so the binding finds the job's handler in its table, or
    /// its fallback, for every job it is given. `None` (the default): one handler takes every
    /// job. Checked as the runner starts (argument `handlers`).
    pub handler_names: Option<Vec<String>>,
    /// With `handler_names`: whether the table has a fallback for the jobs no name takes
    /// (default false).
    pub fallback_handler: Option<bool>,
}

/// The settings with every default applied and every bound checked.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub concurrency: usize,
    pub lease_ttl: Duration,
    pub renew_every: Duration,
    pub keep_results: bool,
    pub keep_result_for: Option<Duration>,
    pub shutdown_timeout: Duration,
    pub on_shutdown: ShutdownAction,
    pub poll_interval: Duration,
    pub heartbeat: Duration,
    pub housekeeping: bool,
    pub housekeeping_every: Duration,
    pub deep_clean_every: Option<Duration>,
    pub register: bool,
    pub language: String,
    pub stats: Option<bool>,
    pub job_timeout: Option<Duration>,
    pub timeout_grace: Duration,
    /// A binding's table of names, and whether it has a fallback.
    pub handler_names: Option<(Vec<String>, bool)>,
    /// Whether the queues are the partitions of one logical queue ([`super::Worker::partitioned`]):
    /// a handler's "rate limited" without a group then holds every one of them.
    pub one_logical_queue: bool,
}

/// The default lease time to live of a runner: a lease's own ([`crate::policy::DEFAULT_TTL`]).
pub const DEFAULT_LEASE_TTL: Duration = crate::policy::DEFAULT_TTL;
/// The default shutdown timeout.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);
/// The default grace a handler told of its timeout has to end.
pub const DEFAULT_TIMEOUT_GRACE: Duration = Duration::from_secs(5);

fn within(argument: &'static str, d: Duration, min: Duration, max: Duration) -> Result<Duration> {
    if d < min || d > max {
        return Err(Error::invalid(
            argument,
            format!("must be between {min:?} and {max:?}, got {d:?}"),
        ));
    }
    Ok(d)
}

impl WorkerOptions {
    /// Default settings.
    pub fn new() -> WorkerOptions {
        WorkerOptions::default()
    }

    /// The number of handlers that will run at once (the default applied), or the error that
    /// names a bad setting: for bindings that size a thread pool before the runner starts.
    pub fn effective_concurrency(&self) -> Result<usize> {
        Ok(self.settle()?.concurrency)
    }

    /// Checks every setting as the runner does when it starts, without Redis: the error names
    /// the setting (a field of [`WorkerOptions`], `handlers` for the table's names). For a
    /// binding that refuses bad settings before it waits for Redis
    /// ([`crate::blocking::for_a_runner`]).
    pub fn check(&self) -> Result<()> {
        self.settle().map(drop)
    }

    /// Whether the runner keeps handlers' return values as results (the default applied): a
    /// binding encodes a return value only then, so one that is never kept never fails to
    /// encode.
    pub fn keeps_results(&self) -> bool {
        self.keep_results.unwrap_or(true)
    }

    /// Applies the defaults and checks every bound; the error names the setting.
    pub(crate) fn settle(&self) -> Result<Settings> {
        let ms = Duration::from_millis;
        let day = Duration::from_secs(86_400);
        let concurrency = self.concurrency.unwrap_or(1);
        if concurrency == 0 || concurrency > MAX_PAGE {
            return Err(Error::invalid(
                "concurrency",
                format!("must be 1 to {MAX_PAGE}, got {concurrency}"),
            ));
        }
        let lease_ttl = within(
            "lease_ttl",
            self.lease_ttl.unwrap_or(DEFAULT_LEASE_TTL),
            ms(100),
            MAX_TTL,
        )?;
        let renew_every = match self.renew_every {
            Some(d) if d >= lease_ttl => {
                return Err(Error::invalid(
                    "renew_every",
                    format!("must be shorter than lease_ttl ({lease_ttl:?}), got {d:?}"),
                ))
            }
            Some(d) => within("renew_every", d, ms(10), lease_ttl)?,
            None => lease_ttl / 3,
        };
        if let Some(keep) = self.keep_result_for {
            within(
                "keep_result_for",
                keep,
                ms(1),
                Duration::from_secs(315_360_000),
            )?;
        }
        let heartbeat = within("heartbeat", self.heartbeat.unwrap_or(ms(5000)), ms(50), day)?;
        let housekeeping_every = within(
            "housekeeping_every",
            self.housekeeping_every.unwrap_or(ms(5000)),
            ms(50),
            day,
        )?;
        let deep_clean_every = match self.deep_clean_every {
            Some(d) if d.is_zero() => None,
            Some(d) => Some(within("deep_clean_every", d, ms(1000), 30 * day)?),
            None => Some(Duration::from_secs(3600)),
        };
        let job_timeout = self
            .job_timeout
            .map(|d| within("job_timeout", d, ms(1), 30 * day))
            .transpose()?;
        let timeout_grace = within(
            "timeout_grace",
            self.timeout_grace.unwrap_or(DEFAULT_TIMEOUT_GRACE),
            Duration::ZERO,
            day,
        )?;
        let language = self.language.clone().unwrap_or_else(|| "rust".into());
        if language.is_empty() || language.len() > 32 {
            return Err(Error::invalid("language", "must be 1 to 32 bytes"));
        }
        Ok(Settings {
            concurrency,
            lease_ttl,
            renew_every,
            keep_results: self.keeps_results(),
            keep_result_for: self.keep_result_for,
            shutdown_timeout: within(
                "shutdown_timeout",
                self.shutdown_timeout.unwrap_or(DEFAULT_SHUTDOWN_TIMEOUT),
                Duration::ZERO,
                day,
            )?,
            on_shutdown: self.on_shutdown.unwrap_or_default(),
            poll_interval: within(
                "poll_interval",
                self.poll_interval.unwrap_or(ms(1000)),
                ms(10),
                Duration::from_secs(60),
            )?,
            heartbeat,
            housekeeping: self.housekeeping.unwrap_or(true),
            housekeeping_every,
            deep_clean_every,
            register: self.register.unwrap_or(true),
            language,
            stats: self.stats,
            job_timeout,
            timeout_grace,
            handler_names: match &self.handler_names {
                Some(names) => {
                    let fallback = self.fallback_handler.unwrap_or(false);
                    super::names::validate_handler_names(names, fallback)?;
                    Some((names.clone(), fallback))
                }
                None => None,
            },
            one_logical_queue: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_settled_and_bounds_name_their_setting() {
        let s = WorkerOptions::new().settle().unwrap();
        assert_eq!(s.concurrency, 1);
        assert_eq!(s.renew_every, Duration::from_secs(10));
        assert_eq!(s.deep_clean_every, Some(Duration::from_secs(3600)));
        assert!(s.keep_results && WorkerOptions::new().keeps_results());
        let unkept = WorkerOptions {
            keep_results: Some(false),
            ..Default::default()
        };
        assert!(!unkept.keeps_results() && !unkept.settle().unwrap().keep_results);
        let bad = |o: WorkerOptions, name: &str| {
            let err = o.settle().unwrap_err();
            assert!(err.to_string().contains(name), "{err}");
        };
        bad(
            WorkerOptions {
                concurrency: Some(0),
                ..Default::default()
            },
            "concurrency",
        );
        bad(
            WorkerOptions {
                concurrency: Some(1001),
                ..Default::default()
            },
            "concurrency",
        );
        bad(
            WorkerOptions {
                lease_ttl: Some(Duration::from_secs(1)),
                renew_every: Some(Duration::from_secs(1)),
                ..Default::default()
            },
            "renew_every",
        );
        bad(
            WorkerOptions {
                poll_interval: Some(Duration::ZERO),
                ..Default::default()
            },
            "poll_interval",
        );
        let off = WorkerOptions {
            deep_clean_every: Some(Duration::ZERO),
            ..Default::default()
        };
        assert_eq!(off.settle().unwrap().deep_clean_every, None);
        assert_eq!(s.job_timeout, None, "no timeout unless asked");
        assert_eq!(s.timeout_grace, DEFAULT_TIMEOUT_GRACE);
        for (o, name) in [
            (
                WorkerOptions {
                    job_timeout: Some(Duration::ZERO),
                    ..Default::default()
                },
                "job_timeout",
            ),
            (
                WorkerOptions {
                    job_timeout: Some(Duration::from_secs(31 * 86_400)),
                    ..Default::default()
                },
                "job_timeout",
            ),
            (
                WorkerOptions {
                    timeout_grace: Some(Duration::from_secs(2 * 86_400)),
                    ..Default::default()
                },
                "timeout_grace",
            ),
        ] {
            let err = o.settle().unwrap_err();
            assert_eq!(err.code(), crate::ErrorCode::InvalidArgument);
            assert!(err.to_string().contains(name), "{err}");
        }
        let timed = WorkerOptions {
            job_timeout: Some(Duration::from_millis(1)),
            timeout_grace: Some(Duration::ZERO),
            ..Default::default()
        }
        .settle()
        .unwrap();
        assert_eq!(
            (timed.job_timeout, timed.timeout_grace),
            (Some(Duration::from_millis(1)), Duration::ZERO)
        );
    }
}
