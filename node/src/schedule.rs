//! Recurring jobs (spec/PROTOCOL.md 5.23) as JavaScript gives and reads them: when a schedule
//! fires (`cron` with `tz`, or `everyMs`) and its missed-tick policy; the item template is a
//! `NativeItem`, passed beside. Only conversion: the core checks every value.

use leaseq::{Every, FireReport, Missed, Schedule, ScheduleInfo, SchedulePage};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::convert::{count, duration_ms, millis, ms_number};
use crate::error::{invalid, to_napi};

/// When a schedule fires and what it does with missed ticks, both ways.
#[napi(object)]
pub struct ScheduleParts {
    /// A cron expression: five fields, or six with the seconds first.
    pub cron: Option<String>,
    /// The IANA time zone of a cron schedule (absent: UTC).
    pub tz: Option<String>,
    /// A period in ms (at least 1000).
    pub every_ms: Option<f64>,
    /// `skip`, `once` or `all:<n>` (absent: the core's default, `skip`).
    pub missed: Option<String>,
}

impl ScheduleParts {
    /// The core's schedule, adding `item` at each tick.
    pub(crate) fn to_core(&self, item: leaseq::Item) -> napi::Result<Schedule> {
        let mut s = match (&self.cron, self.every_ms) {
            (Some(expr), None) => Schedule::cron(expr.clone()),
            (None, Some(ms)) => Schedule::every(millis("everyMs", ms)?),
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "schedule",
                    "takes `cron` (with `tz`) or `everyMs`, not both",
                ))
            }
            (None, None) => {
                return Err(invalid(
                    "schedule",
                    "needs one of `cron` (with `tz`) or `everyMs`",
                ))
            }
        };
        if let Some(tz) = &self.tz {
            s = s.tz(tz.clone());
        }
        if let Some(m) = &self.missed {
            s = s.missed(Missed::from_wire(m).map_err(to_napi)?);
        }
        Ok(s.item(item))
    }

    fn from_core(s: &Schedule) -> ScheduleParts {
        let (cron, every_ms) = match s.when() {
            Every::Cron(expr) => (Some(expr.clone()), None),
            Every::Period(d) => (None, Some(duration_ms(*d))),
            // A kind this version does not know: neither.
            _ => (None, None),
        };
        ScheduleParts {
            cron,
            tz: s.time_zone().map(str::to_owned),
            every_ms,
            missed: Some(s.missed_policy().to_wire()),
        }
    }
}

/// A stored schedule with its next fire time.
#[napi(object, object_from_js = false)]
pub struct ScheduleInfoParts {
    /// Its name.
    pub name: String,
    /// When it fires; absent when the stored fields are not a schedule this version reads.
    pub schedule: Option<ScheduleParts>,
    /// The data of the item each tick adds (absent with `schedule`).
    pub data: Option<Buffer>,
    /// Bumped by every upsert (1 for a new schedule).
    pub version: i64,
    /// The next tick to fire (ms since the epoch, server clock), when known.
    pub next: Option<f64>,
    /// Every tick at or before this instant (ms) was fired or skipped.
    pub from: f64,
    /// Ticks fired so far.
    pub fired: i64,
    /// Missed ticks skipped so far.
    pub skipped: i64,
    /// The last tick fired (ms), if any.
    pub last_tick: Option<f64>,
    /// When it was created (ms, server clock).
    pub created: f64,
    /// When it was last upserted (ms, server clock).
    pub updated: f64,
}

impl From<ScheduleInfo> for ScheduleInfoParts {
    fn from(i: ScheduleInfo) -> ScheduleInfoParts {
        ScheduleInfoParts {
            name: i.name,
            schedule: i.schedule.as_ref().map(ScheduleParts::from_core),
            data: i
                .schedule
                .as_ref()
                .map(|s| s.template().data().to_vec().into()),
            version: count(i.version),
            next: i.next.map(ms_number),
            from: ms_number(i.from),
            fired: count(i.fired),
            skipped: count(i.skipped),
            last_tick: i.last_tick.map(ms_number),
            created: ms_number(i.created),
            updated: ms_number(i.updated),
        }
    }
}

/// A page of a queue's schedules, by next fire time.
#[napi(object, object_from_js = false)]
pub struct SchedulePageParts {
    /// The server's clock when it was read (ms).
    pub now: f64,
    /// How many schedules the queue has.
    pub total: i64,
    /// The page.
    pub schedules: Vec<ScheduleInfoParts>,
}

impl From<SchedulePage> for SchedulePageParts {
    fn from(p: SchedulePage) -> SchedulePageParts {
        SchedulePageParts {
            now: ms_number(p.now),
            total: count(p.total),
            schedules: p.schedules.into_iter().map(Into::into).collect(),
        }
    }
}

/// What `fire_due_schedules` did.
#[napi(object, object_from_js = false)]
pub struct FireReportParts {
    /// Schedules found due.
    pub due: i64,
    /// Ticks fired (items added).
    pub fired: i64,
    /// Missed ticks skipped by their schedules' policies.
    pub skipped: i64,
    /// Fire calls that found their schedule moved by another firer or an upsert.
    pub lost_races: i64,
    /// Schedules whose stored fields could not be read (left alone).
    pub unreadable: i64,
    /// How long until the next schedule is due (ms, server clock), when one is stored.
    pub next_due_in_ms: Option<f64>,
}

impl From<FireReport> for FireReportParts {
    fn from(r: FireReport) -> FireReportParts {
        FireReportParts {
            due: count(r.due as u64),
            fired: count(r.fired as u64),
            skipped: count(r.skipped),
            lost_races: count(r.lost_races as u64),
            unreadable: count(r.unreadable as u64),
            next_due_in_ms: r.next_due_in.map(duration_ms),
        }
    }
}
