//! The one retry ladder: which failed calls may be sent again ([`Verdict`]), and how long to
//! pause before each new try ([`Ladder`], on a [`Schedule`]).
//!
//! Its users: a waiting lease rides through restarts and transient server states (spec 6); a
//! result wait pauses while Redis is out of memory (5.11); a runner pauses a failing step and
//! sends a finish again only when it surely did not run (13.1). What may be sent again is the
//! rule of spec/PROTOCOL.md 11: after `UNAVAILABLE` or `OUT_OF_MEMORY` the call did not run;
//! after `CONNECTION` or `TIMEOUT` it may have, and only a waiting lease's lease script is sent
//! again then (a lease whose reply was lost belongs to nobody and expires).

use std::future::Future;
use std::time::{Duration, Instant};

use crate::error::Error;

/// What a failed call's error says about sending the call again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Refused before it ran, for now (`UNAVAILABLE`: `LOADING`, `BUSY`, `TRYAGAIN`,
    /// `CLUSTERDOWN`, a failover, a redirect): nothing ran, and the same call may succeed after
    /// a pause. The connection is fine.
    NotRun,
    /// Refused before it ran because Redis is over `maxmemory` (`OUT_OF_MEMORY`): nothing was
    /// written; the call may succeed once memory is freed.
    NoMemory,
    /// The connection broke or hung (`CONNECTION`, `TIMEOUT`): the call may or may not have
    /// run, and the connection may be dead. Only a call whose second run is harmless may be
    /// sent again.
    Unknown,
    /// Anything else (an argument refused, the client closed, a wrong key type, a script
    /// error): the same call gets the same answer.
    Final,
}

impl Verdict {
    /// The verdict on `error`.
    pub fn of(error: &Error) -> Verdict {
        match error {
            Error::Unavailable(_) => Verdict::NotRun,
            Error::OutOfMemory(_) => Verdict::NoMemory,
            Error::Connection(_) | Error::Timeout(_) => Verdict::Unknown,
            _ => Verdict::Final,
        }
    }

    /// Whether the same call may succeed when tried again unchanged, the public
    /// [`crate::ErrorCode::retryable`]: not run for now, or lost with its connection. A call
    /// whose outcome is [unknown](Verdict::outcome_unknown) is still only sent again when
    /// running it twice is harmless.
    pub fn retryable(self) -> bool {
        matches!(self, Verdict::NotRun | Verdict::Unknown)
    }

    /// Whether the call surely did not run, so that any call, even one that must not run
    /// twice (a complete, a fail), may be sent again.
    pub fn not_run(self) -> bool {
        matches!(self, Verdict::NotRun | Verdict::NoMemory)
    }

    /// Whether the call may have run without its reply arriving: such a call is never sent
    /// again by leaseq, except a waiting lease's lease script. Its connection may be dead too.
    pub fn outcome_unknown(self) -> bool {
        self == Verdict::Unknown
    }
}

/// The pauses of a [`Ladder`]: from `first`, doubling after each to at most `last`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Schedule {
    first: Duration,
    last: Duration,
    /// Each pause is its rung times a random factor of 0.5 to 1.5, so that many runners that
    /// failed together do not try again together.
    jitter: bool,
}

impl Schedule {
    /// A blocking wait (a lease, spec 6): 50 ms doubling to 1 s, cut at the wait's deadline.
    pub const WAIT: Schedule = Schedule {
        first: Duration::from_millis(50),
        last: Duration::from_secs(1),
        jitter: false,
    };

    /// A result wait over `maxmemory`, where `BLMOVE` is refused (spec 5.11): every second, cut
    /// at the wait's deadline.
    pub const RESULT_READ: Schedule = Schedule {
        first: Duration::from_secs(1),
        last: Duration::from_secs(1),
        jitter: false,
    };

    /// A runner's failing step (spec 13.1): 100 ms doubling to 5 s, with jitter.
    pub const RUNNER: Schedule = Schedule {
        first: Duration::from_millis(100),
        last: Duration::from_secs(5),
        jitter: true,
    };
}

/// Pauses that grow while the same thing keeps failing, and start over once it works.
#[derive(Debug, Clone)]
pub(crate) struct Ladder {
    schedule: Schedule,
    next: Duration,
}

impl Ladder {
    /// A ladder at its first rung.
    pub fn new(schedule: Schedule) -> Ladder {
        Ladder {
            schedule,
            next: schedule.first,
        }
    }

    /// Back to the first rung: what failed works again.
    pub fn reset(&mut self) {
        self.next = self.schedule.first;
    }

    /// The next pause, and one rung up. `unit` is a random number in [0, 1) for the jitter;
    /// `left` the time until the caller's deadline (`None`: no deadline), which no pause
    /// passes. Pure: [`Ladder::pause`] sleeps it.
    pub fn step(&mut self, unit: f64, left: Option<Duration>) -> Duration {
        let mut pause = self.next;
        if self.schedule.jitter {
            pause = pause.mul_f64(0.5 + unit.clamp(0.0, 1.0));
        }
        if let Some(left) = left {
            pause = pause.min(left);
        }
        self.next = (self.next * 2).min(self.schedule.last);
        pause
    }

    /// Sleeps the next pause, cut at `deadline`, and climbs one rung. Returns `false`, at once,
    /// when `interrupt` resolves first (a close, a shutdown).
    pub async fn pause(&mut self, deadline: Option<Instant>, interrupt: impl Future) -> bool {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let unit = if self.schedule.jitter {
            crate::policy::unit_random()
        } else {
            0.0
        };
        let sleep = tokio::time::sleep(self.step(unit, left));
        tokio::select! {
            _ = sleep => true,
            _ = interrupt => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Cause, ErrorCode};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// The first `n` pauses of `schedule` in milliseconds, with a jitter factor of 1.
    fn rungs(schedule: Schedule, n: usize) -> Vec<u128> {
        let mut ladder = Ladder::new(schedule);
        (0..n).map(|_| ladder.step(0.5, None).as_millis()).collect()
    }

    #[test]
    fn a_wait_pauses_50_ms_doubling_to_one_second() {
        assert_eq!(
            rungs(Schedule::WAIT, 7),
            [50, 100, 200, 400, 800, 1000, 1000]
        );
    }

    #[test]
    fn a_result_read_pauses_every_second() {
        assert_eq!(rungs(Schedule::RESULT_READ, 3), [1000; 3]);
    }

    #[test]
    fn a_runner_pauses_100_ms_doubling_to_five_seconds_with_jitter() {
        assert_eq!(
            rungs(Schedule::RUNNER, 8),
            [100, 200, 400, 800, 1600, 3200, 5000, 5000]
        );
        let mut low = Ladder::new(Schedule::RUNNER);
        let mut high = Ladder::new(Schedule::RUNNER);
        assert_eq!(low.step(0.0, None), ms(50));
        assert_eq!(high.step(1.0, None), ms(150));
        // The jitter changes the pause, not the rung.
        assert_eq!(low.step(0.0, None), ms(100));
        assert_eq!(high.step(1.0, None), ms(300));
    }

    #[test]
    fn no_pause_passes_the_deadline_and_the_ladder_still_climbs() {
        let mut ladder = Ladder::new(Schedule::WAIT);
        assert_eq!(ladder.step(0.0, Some(ms(20))), ms(20));
        assert_eq!(ladder.step(0.0, Some(Duration::ZERO)), Duration::ZERO);
        assert_eq!(ladder.step(0.0, Some(ms(1000))), ms(200));
    }

    #[test]
    fn reset_starts_over() {
        let mut ladder = Ladder::new(Schedule::WAIT);
        for _ in 0..10 {
            ladder.step(0.0, None);
        }
        assert_eq!(ladder.step(0.0, None), ms(1000));
        ladder.reset();
        assert_eq!(ladder.step(0.0, None), ms(50));
    }

    fn cause() -> Cause {
        Cause::io("test", None)
    }

    /// One error of each code.
    fn errors() -> Vec<Error> {
        vec![
            Error::Connection(cause()),
            Error::Redis(cause()),
            Error::invalid("n", "test"),
            Error::WrongType {
                prefix: "q".into(),
                source: cause(),
            },
            Error::Timeout(cause()),
            Error::Closed,
            Error::json(serde_json::from_str::<u8>("x").unwrap_err()),
            Error::Unavailable(cause()),
            Error::OutOfMemory(cause()),
            Error::Full(cause()),
            Error::Dead {
                id: "a".into(),
                reason: "failed once".into(),
            },
        ]
    }

    #[test]
    fn every_code_has_its_verdict() {
        let errors = errors();
        let codes: Vec<ErrorCode> = errors.iter().map(Error::code).collect();
        assert_eq!(codes, ErrorCode::ALL, "one error of each code");
        for e in &errors {
            let verdict = Verdict::of(e);
            let want = match e.code() {
                ErrorCode::Unavailable => Verdict::NotRun,
                ErrorCode::OutOfMemory => Verdict::NoMemory,
                ErrorCode::Connection | ErrorCode::Timeout => Verdict::Unknown,
                _ => Verdict::Final,
            };
            assert_eq!(verdict, want, "{e}");
            assert_eq!(verdict.retryable(), e.is_retryable(), "{e}");
        }
    }

    #[test]
    fn a_call_that_may_have_run_is_never_called_not_run() {
        for e in errors() {
            let v = Verdict::of(&e);
            assert!(!(v.not_run() && v.outcome_unknown()), "{e}");
            if v.outcome_unknown() {
                assert!(
                    v.retryable(),
                    "{e}: a lost reply is retryable for a lease in a wait"
                );
            }
        }
        assert!(Verdict::NotRun.not_run() && Verdict::NoMemory.not_run());
        assert!(!Verdict::Unknown.not_run() && !Verdict::Final.not_run());
        assert!(!Verdict::NoMemory.retryable() && !Verdict::Final.retryable());
    }
}
