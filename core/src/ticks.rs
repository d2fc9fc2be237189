//! The ticks of a recurring job (spec/PROTOCOL.md 5.23), computed by the client: a cron
//! expression in a time zone (read by `croner` and `chrono-tz`) or a fixed period, and the plan
//! of one fire call (which ticks fire now, which missed ones are skipped by the policy). Pure
//! functions of the stored schedule and the server's time, so that every client computes the
//! same ticks; the scripts only check them against the server's clock.

use std::str::FromStr;

use chrono::{DateTime, TimeZone};
use chrono_tz::Tz;
use croner::parser::{CronParser, Seconds, Year};

use crate::error::{Error, Result};
use crate::ops::{Missed, MISSED_GRACE};

/// A score for a schedule whose expression has no later tick (never due): 2^53 - 1 ms.
pub(crate) const NEVER: u64 = (1 << 53) - 1;

/// The ticks of a schedule, in ms since the epoch.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub enum Ticks {
    /// A cron expression in a time zone.
    Cron(Box<croner::Cron>, Tz),
    /// `anchor + k * every`.
    Every {
        /// The first tick's base (the schedule's creation, server clock).
        anchor: u64,
        /// The period, ms.
        every: u64,
    },
}

impl Ticks {
    /// Parses a cron expression (5 fields, or 6 with seconds) in `tz` (UTC when `None`).
    pub fn cron(expr: &str, tz: Option<&str>) -> Result<Ticks> {
        let cron = CronParser::builder()
            .seconds(Seconds::Optional)
            .year(Year::Disallowed)
            .build()
            .parse(expr)
            .map_err(|e| {
                Error::invalid("cron", format!("{expr:?} is not a cron expression: {e}"))
            })?;
        let tz = match tz {
            None => Tz::UTC,
            Some(name) => Tz::from_str(name)
                .map_err(|_| Error::invalid("tz", format!("{name:?} is not an IANA time zone")))?,
        };
        Ok(Ticks::Cron(Box::new(cron), tz))
    }

    fn at(tz: &Tz, ms: u64) -> Option<DateTime<Tz>> {
        tz.timestamp_millis_opt(i64::try_from(ms).ok()?).single()
    }

    /// The first tick strictly after `t`.
    pub fn first_after(&self, t: u64) -> Option<u64> {
        match self {
            Ticks::Every { anchor, every } => {
                let (a, e, t) = (*anchor as i128, *every as i128, t as i128);
                let k = (t - a).div_euclid(e) + 1;
                u64::try_from(a + k * e).ok()
            }
            Ticks::Cron(cron, tz) => {
                // From the whole second at or before t: every tick after it is a whole second,
                // so after t too unless it is t's own second (then it is not after t).
                let mut start = t - t % 1000;
                loop {
                    let next = cron
                        .find_next_occurrence(&Ticks::at(tz, start)?, false)
                        .ok()?;
                    let ms = u64::try_from(next.timestamp_millis()).ok()?;
                    if ms > t {
                        return Some(ms);
                    }
                    start = ms;
                }
            }
        }
    }

    /// The last tick at or before `t`.
    pub fn last_at_or_before(&self, t: u64) -> Option<u64> {
        match self {
            Ticks::Every { anchor, every } => {
                let (a, e, t) = (*anchor as i128, *every as i128, t as i128);
                let k = (t - a).div_euclid(e);
                u64::try_from(a + k * e).ok()
            }
            Ticks::Cron(cron, tz) => {
                // The forward search defines the ticks. Across a DST change the backward one
                // can find a time the forward one never gives (the last second before a gap,
                // the second occurrence in an overlap), so its answer is only a starting point:
                // the forward ticks from just before it decide (a few steps back at most).
                let mut at = t - t % 1000;
                for _ in 0..8 {
                    let prev = cron
                        .find_previous_occurrence(&Ticks::at(tz, at)?, true)
                        .ok()?;
                    let prev = u64::try_from(prev.timestamp_millis()).ok()?;
                    let mut tick = self.first_after(prev.checked_sub(1)?)?;
                    if tick <= t {
                        for _ in 0..1000 {
                            match self.first_after(tick) {
                                Some(next) if next <= t => tick = next,
                                _ => return Some(tick),
                            }
                        }
                        return Some(tick);
                    }
                    at = prev.checked_sub(1000)?;
                }
                None
            }
        }
    }

    /// How many ticks fall in `(after, until]`, counting at most `cap`.
    fn count(&self, after: u64, until: u64, cap: u64) -> u64 {
        if until <= after {
            return 0;
        }
        match self {
            Ticks::Every { anchor, every } => {
                let k = |t: u64| (t as i128 - *anchor as i128).div_euclid(*every as i128);
                ((k(until) - k(after)).max(0) as u64).min(cap)
            }
            Ticks::Cron(..) => {
                let mut n = 0;
                let mut t = after;
                while n < cap {
                    match self.first_after(t) {
                        Some(next) if next <= until => {
                            n += 1;
                            t = next;
                        }
                        _ => break,
                    }
                }
                n
            }
        }
    }
}

/// What one fire call sends: the ticks to fire, how many missed ticks it skips, the new
/// `from` and the next tick.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirePlan {
    /// The ticks to fire, ascending.
    pub ticks: Vec<u64>,
    /// Missed ticks skipped (counted up to 10,000: the count walks the ticks).
    pub skipped: u64,
    /// The new `from`: `now`.
    pub new_from: u64,
    /// The first tick after `now` ([`NEVER`] when there is none).
    pub next: u64,
}

/// The fire plan of a schedule with these ticks and policy, whose ticks up to `from` are
/// decided, at server time `now` (spec/PROTOCOL.md 5.23): every tick in `(from, now]` is on
/// time when it is within [`MISSED_GRACE`] of `now` (fired), else missed (fired per `missed`).
#[doc(hidden)]
pub fn plan(ticks: &Ticks, missed: Missed, from: u64, now: u64) -> FirePlan {
    const COUNT_CAP: u64 = 10_000;
    let grace = MISSED_GRACE.as_millis() as u64;
    let late = now.saturating_sub(grace);
    let mut fire = Vec::new();
    let mut skipped = 0;
    // Missed: (from, late].
    if late > from {
        let mut latest = Vec::new();
        let want = match missed {
            Missed::Skip => 0,
            Missed::Once => 1,
            Missed::All(n) => n as usize,
        };
        let mut t = late;
        while latest.len() < want {
            match ticks.last_at_or_before(t) {
                Some(tick) if tick > from => {
                    latest.push(tick);
                    if tick == 0 {
                        break;
                    }
                    t = tick - 1;
                }
                _ => break,
            }
        }
        latest.reverse();
        let kept_from = latest.first().map_or(late, |first| first - 1);
        skipped = ticks.count(from, kept_from, COUNT_CAP);
        fire.extend(latest);
    }
    // On time: (max(from, late), now].
    let mut t = from.max(late);
    while let Some(tick) = ticks.first_after(t) {
        if tick > now || fire.len() >= 1010 {
            break;
        }
        fire.push(tick);
        t = tick;
    }
    FirePlan {
        ticks: fire,
        skipped,
        new_from: now,
        next: ticks.first_after(now).unwrap_or(NEVER),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1000;

    #[test]
    fn every_ticks_are_the_anchor_plus_whole_periods() {
        let t = Ticks::Every {
            anchor: 10 * S,
            every: 5 * S,
        };
        assert_eq!(t.first_after(10 * S), Some(15 * S));
        assert_eq!(t.first_after(14 * S), Some(15 * S));
        assert_eq!(t.first_after(3 * S), Some(5 * S));
        assert_eq!(t.last_at_or_before(14 * S), Some(10 * S));
        assert_eq!(t.last_at_or_before(15 * S), Some(15 * S));
        assert_eq!(t.count(10 * S, 30 * S, 100), 4);
    }

    #[test]
    fn on_time_ticks_fire_and_missed_ones_follow_the_policy() {
        let t = Ticks::Every {
            anchor: 0,
            every: S,
        };
        let now = 100 * S + 500;
        // All within the grace: every tick fires, whatever the policy.
        let p = plan(&t, Missed::Skip, 95 * S, now);
        assert_eq!(p.ticks, (96..=100).map(|k| k * S).collect::<Vec<_>>());
        assert_eq!((p.skipped, p.new_from, p.next), (0, now, 101 * S));
        // From 50 s: ticks 51..=90 are missed (90.5 s is the grace's edge), 91..=100 on time.
        let p = plan(&t, Missed::Skip, 50 * S, now);
        assert_eq!(p.ticks, (91..=100).map(|k| k * S).collect::<Vec<_>>());
        assert_eq!(p.skipped, 40);
        let p = plan(&t, Missed::Once, 50 * S, now);
        assert_eq!(p.ticks[0], 90 * S);
        assert_eq!((p.ticks.len(), p.skipped), (11, 39));
        let p = plan(&t, Missed::All(5), 50 * S, now);
        assert_eq!(p.ticks[..5], [86 * S, 87 * S, 88 * S, 89 * S, 90 * S]);
        assert_eq!((p.ticks.len(), p.skipped), (15, 35));
        let p = plan(&t, Missed::All(1000), 50 * S, now);
        assert_eq!((p.ticks.len(), p.skipped), (50, 0));
        // Nothing due: nothing fired, `from` moves to now.
        let p = plan(&t, Missed::All(3), now, now + 10);
        assert!(p.ticks.is_empty());
    }

    #[test]
    fn cron_ticks_in_a_time_zone() {
        let t = Ticks::cron("30 2 * * *", Some("Europe/Berlin")).unwrap();
        // 2026-01-10 00:00 UTC; 02:30 CET is 01:30 UTC.
        let jan10 = 1_768_003_200_000;
        assert_eq!(t.first_after(jan10), Some(jan10 + 5_400_000));
        assert_eq!(
            t.last_at_or_before(jan10 + 5_400_000),
            Some(jan10 + 5_400_000)
        );
        let secs = Ticks::cron("*/5 * * * * *", None).unwrap();
        assert_eq!(secs.first_after(jan10 + 1), Some(jan10 + 5000));
        assert_eq!(secs.first_after(jan10 + 5000), Some(jan10 + 10_000));
    }
}

/// Daylight saving time in Europe/Berlin, 2026: clocks go from 02:00 CET to 03:00 CEST on
/// 29 March and from 03:00 CEST back to 02:00 CET on 25 October (spec/PROTOCOL.md 5.23).
#[cfg(test)]
mod dst {
    use super::*;
    use chrono::Utc;

    fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> u64 {
        Utc.with_ymd_and_hms(y, mo, d, h, mi, 0)
            .unwrap()
            .timestamp_millis() as u64
    }

    fn ticks(t: &Ticks, from: u64, n: usize) -> Vec<u64> {
        let mut out = Vec::new();
        let mut at = from;
        while out.len() < n {
            at = t.first_after(at).unwrap();
            out.push(at);
        }
        out
    }

    #[test]
    fn a_daily_0230_fires_after_the_gap_and_once_in_the_overlap() {
        let t = Ticks::cron("30 2 * * *", Some("Europe/Berlin")).unwrap();
        // Spring forward: 02:30 does not exist on 29 March; it fires at 03:00 CEST (01:00 UTC).
        assert_eq!(
            ticks(&t, utc(2026, 3, 27, 12, 0), 3),
            [
                utc(2026, 3, 28, 1, 30), // 02:30 CET
                utc(2026, 3, 29, 1, 0),  // 03:00 CEST, the first time after the gap
                utc(2026, 3, 30, 0, 30), // 02:30 CEST
            ]
        );
        // Fall back: 02:30 happens twice on 25 October; it fires once, at the first (CEST).
        assert_eq!(
            ticks(&t, utc(2026, 10, 23, 12, 0), 3),
            [
                utc(2026, 10, 24, 0, 30), // 02:30 CEST
                utc(2026, 10, 25, 0, 30), // 02:30 CEST; not again at 02:30 CET (01:30 UTC)
                utc(2026, 10, 26, 1, 30), // 02:30 CET
            ]
        );
        // A firer down through the day fires it as a missed tick (once), and the backward
        // search finds the same ticks as the forward one.
        let p = plan(
            &t,
            Missed::Once,
            utc(2026, 3, 28, 12, 0),
            utc(2026, 3, 29, 12, 0),
        );
        assert_eq!(p.ticks, [utc(2026, 3, 29, 1, 0)]);
        assert_eq!(p.next, utc(2026, 3, 30, 0, 30));
        let p = plan(
            &t,
            Missed::All(5),
            utc(2026, 10, 23, 12, 0),
            utc(2026, 10, 26, 12, 0),
        );
        assert_eq!(
            p.ticks,
            [
                utc(2026, 10, 24, 0, 30),
                utc(2026, 10, 25, 0, 30),
                utc(2026, 10, 26, 1, 30)
            ]
        );
    }

    #[test]
    fn an_interval_job_skips_the_gap_and_the_repeated_hour() {
        let t = Ticks::cron("*/30 * * * *", Some("Europe/Berlin")).unwrap();
        // 01:30 CET is followed by 03:00 CEST (02:00 and 02:30 do not exist): one hour later.
        assert_eq!(
            ticks(&t, utc(2026, 3, 29, 0, 15), 3),
            [
                utc(2026, 3, 29, 0, 30),
                utc(2026, 3, 29, 1, 0),
                utc(2026, 3, 29, 1, 30)
            ]
        );
        // Through the overlap each wall-clock time fires once: 02:00 and 02:30 CEST, then
        // 03:00 CET, an hour of real time later (02:00 and 02:30 CET do not fire again).
        assert_eq!(
            ticks(&t, utc(2026, 10, 24, 23, 45), 4),
            [
                utc(2026, 10, 25, 0, 0),
                utc(2026, 10, 25, 0, 30),
                utc(2026, 10, 25, 2, 0),
                utc(2026, 10, 25, 2, 30),
            ]
        );
        // The backward search agrees with the forward ticks on both days.
        assert_eq!(
            t.last_at_or_before(utc(2026, 10, 25, 1, 45)),
            Some(utc(2026, 10, 25, 0, 30))
        );
        assert_eq!(
            t.last_at_or_before(utc(2026, 3, 29, 0, 59)),
            Some(utc(2026, 3, 29, 0, 30))
        );
    }
}
