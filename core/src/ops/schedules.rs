//! Recurring jobs: schedules that add an item on a cron expression or every N milliseconds,
//! exactly once per tick (spec/PROTOCOL.md, 5.23).
//!
//! The client computes the ticks (cron expressions and time zones are parsed here, with
//! `croner` and `chrono-tz`, never in Lua); the `schedule_fire` script compares and sets the
//! schedule's version and `from`, checks the ticks against the server's clock and adds the
//! items, so that any number of firers add one item per tick.

use std::time::Duration;

use redis::Value;

use crate::error::{Error, Result};
use crate::item::Item;
use crate::policy::{self, Backoff};
use crate::queue::{new_token, Queue};
use crate::reply::{array, bytes, int, unexpected};
use crate::scripts;
use crate::ticks::{plan, Ticks};

/// The most schedules a queue holds; an upsert of a new one past it is refused (`name`).
pub const MAX_SCHEDULES: usize = 10_000;
/// The longest schedule name, in bytes.
pub const MAX_SCHEDULE_NAME_LEN: usize = 200;
/// The most bytes of data a schedule's item template carries.
pub const MAX_SCHEDULE_DATA_LEN: usize = 1 << 20;
/// The shortest period of an `every` schedule (cron's finest field is the second, too).
pub const MIN_EVERY: Duration = Duration::from_secs(1);
/// A tick fired later than this after its time is *missed*, and its schedule's [`Missed`]
/// policy decides whether it fires (spec/PROTOCOL.md 5.23). Also how far back an upsert keeps
/// the ticks due before it.
pub const MISSED_GRACE: Duration = Duration::from_secs(10);
/// The largest bound of [`Missed::All`].
pub const MAX_MISSED_ALL: u32 = 1000;
/// How many schedules one `due` read returns; more are read in further rounds.
const DUE_PAGE: usize = 100;

/// What a schedule does with the ticks it missed (fired more than [`MISSED_GRACE`] late,
/// because no runner was there to fire them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Missed {
    /// Missed ticks add nothing (the default).
    #[default]
    Skip,
    /// Missed ticks add one item, for the latest of them.
    Once,
    /// Each missed tick adds its item, the latest `n` of them at most (1 to 1000); older ones
    /// are skipped.
    All(u32),
}

impl Missed {
    /// The stored form: `skip`, `once` or `all:<n>`.
    pub fn to_wire(&self) -> String {
        match self {
            Missed::Skip => "skip".into(),
            Missed::Once => "once".into(),
            Missed::All(n) => format!("all:{n}"),
        }
    }

    /// Parses the stored form (and what the bindings take: `skip`, `once`, `all:<n>`).
    pub fn from_wire(text: &str) -> Result<Missed> {
        let bad = || {
            Error::invalid(
                "missed",
                format!("must be skip, once or all:<1..1000>, not {text:?}"),
            )
        };
        match text {
            "skip" => Ok(Missed::Skip),
            "once" => Ok(Missed::Once),
            _ => {
                let n: u32 = text
                    .strip_prefix("all:")
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(bad)?;
                if !(1..=MAX_MISSED_ALL).contains(&n) {
                    return Err(bad());
                }
                Ok(Missed::All(n))
            }
        }
    }
}

/// When a schedule's ticks fall.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Every {
    /// A cron expression: five fields (minute, hour, day of month, month, day of week) or six
    /// with the seconds first, in the schedule's time zone.
    Cron(String),
    /// A fixed period (at least one second): the ticks are the schedule's creation time plus
    /// whole periods.
    Period(Duration),
}

/// A recurring job: when it fires, what item it adds, and what it does with missed ticks.
/// Stored by [`Queue::upsert_schedule`]. Two schedules are equal when they fire alike and add
/// alike items: the template item's id, which no tick uses, does not count.
#[derive(Debug, Clone)]
pub struct Schedule {
    every: Every,
    tz: Option<String>,
    item: Item,
    missed: Missed,
}

impl PartialEq for Schedule {
    fn eq(&self, other: &Schedule) -> bool {
        self.every == other.every
            && self.tz == other.tz
            && self.missed == other.missed
            && self.item.same_but_id(&other.item)
    }
}

impl Eq for Schedule {}

impl Schedule {
    /// A schedule on a cron expression (`"0 3 * * *"`, or `"*/5 * * * * *"` with seconds),
    /// in UTC unless [`Schedule::tz`] says otherwise. Checked by the upsert (`cron`).
    pub fn cron(expression: impl Into<String>) -> Schedule {
        Schedule::of(Every::Cron(expression.into()))
    }

    /// A schedule every `period` (at least one second; `every`).
    pub fn every(period: Duration) -> Schedule {
        Schedule::of(Every::Period(period))
    }

    fn of(every: Every) -> Schedule {
        Schedule {
            every,
            tz: None,
            item: Item::new(Vec::new()),
            missed: Missed::Skip,
        }
    }

    /// The IANA time zone of a cron schedule (`"Europe/Berlin"`; `tz`). Daylight saving time
    /// follows `croner`: a time that does not exist that day fires at the first time after the
    /// gap; a time that occurs twice fires once, at its first occurrence (spec 5.23).
    pub fn tz(mut self, tz: impl Into<String>) -> Schedule {
        self.tz = Some(tz.into());
        self
    }

    /// The item each tick adds: its data and options (priority, max_attempts, backoff,
    /// expires_after, keep_result_for, group, name). Its id is not used (each item's id is
    /// `<schedule name>@<tick ms>`), and it may have no delay, run_at or depends_on (`item`).
    pub fn item(mut self, item: Item) -> Schedule {
        self.item = item;
        self
    }

    /// What to do with missed ticks ([`Missed::Skip`] unless set).
    pub fn missed(mut self, missed: Missed) -> Schedule {
        self.missed = missed;
        self
    }

    /// When it fires.
    pub fn when(&self) -> &Every {
        &self.every
    }

    /// Its time zone, if one was given.
    pub fn time_zone(&self) -> Option<&str> {
        self.tz.as_deref()
    }

    /// The item template.
    pub fn template(&self) -> &Item {
        &self.item
    }

    /// Its missed-tick policy.
    pub fn missed_policy(&self) -> Missed {
        self.missed
    }

    /// Checks everything as the upsert does, naming the refused argument (`cron`, `tz`,
    /// `every`, `missed`, `item`, `data` or an item option), and returns the stored fields.
    pub(crate) fn wire(&self) -> Result<Vec<(&'static str, Vec<u8>)>> {
        let mut fields: Vec<(&'static str, Vec<u8>)> = Vec::new();
        match &self.every {
            Every::Cron(expr) => {
                let ticks = Ticks::cron(expr, self.tz.as_deref())?;
                if ticks.first_after(0).is_none() {
                    return Err(Error::invalid("cron", format!("{expr:?} never fires")));
                }
                fields.push(("kind", b"cron".to_vec()));
                fields.push(("cron", expr.clone().into_bytes()));
                if let Some(tz) = &self.tz {
                    fields.push(("tz", tz.clone().into_bytes()));
                }
            }
            Every::Period(period) => {
                if self.tz.is_some() {
                    return Err(Error::invalid("tz", "applies to cron schedules only"));
                }
                if *period < MIN_EVERY {
                    return Err(Error::invalid("every", "must be at least one second"));
                }
                let ms = policy::duration_ms("every", *period)?;
                fields.push(("kind", b"every".to_vec()));
                fields.push(("every", ms.to_string().into_bytes()));
            }
        }
        if let Missed::All(n) = self.missed {
            if !(1..=MAX_MISSED_ALL).contains(&n) {
                return Err(Error::invalid("missed", "all(n) takes n from 1 to 1000"));
            }
        }
        fields.push(("missed", self.missed.to_wire().into_bytes()));
        let [_, data, delay, run_at, priority, max, backoff, expires, keep, group, name] =
            self.item.wire()?;
        if !delay.is_empty() || !run_at.is_empty() {
            return Err(Error::invalid(
                "item",
                "a schedule's item may have no delay or run_at: it is added at each tick",
            ));
        }
        // A fire adds a plain item of these fields: dependencies would be dropped unseen.
        if self.item.has_dependencies() {
            return Err(Error::invalid(
                "item",
                "a schedule's item may have no depends_on: each tick's item is added on its own",
            ));
        }
        if data.len() > MAX_SCHEDULE_DATA_LEN {
            return Err(Error::invalid("data", "a schedule's data is at most 1 MiB"));
        }
        fields.push(("data", data));
        for (field, value) in [
            ("priority", priority),
            ("max_attempts", max),
            ("backoff", backoff),
            ("expires_after_ms", expires),
            ("keep_result_ms", keep),
            ("group", group),
            ("item_name", name),
        ] {
            if !value.is_empty() {
                fields.push((field, value));
            }
        }
        Ok(fields)
    }

    /// The schedule stored in `fields` (a `P:cron:<name>` hash), or `None` when they are not a
    /// valid schedule (written by something else, or a newer version).
    fn from_fields(name: &str, f: &Fields) -> Option<Schedule> {
        let every = match f.text("kind")? {
            "cron" => Every::Cron(f.text("cron")?.to_owned()),
            "every" => Every::Period(Duration::from_millis(f.num("every")?)),
            _ => return None,
        };
        let mut item = Item::with_id(name, f.get("data").unwrap_or_default().to_vec()).ok()?;
        if let Some(p) = f.text("priority").and_then(|p| p.parse().ok()) {
            item = item.priority(p);
        }
        if let Some(m) = f.text("max_attempts").and_then(|m| m.parse().ok()) {
            item = item.max_attempts(m);
        }
        if let Some(b) = f.text("backoff").and_then(Backoff::from_wire) {
            item = item.backoff(b);
        }
        if let Some(ms) = f.num("expires_after_ms") {
            item = item.expires_after(Duration::from_millis(ms));
        }
        if let Some(ms) = f.num("keep_result_ms") {
            item = item.keep_result_for(Duration::from_millis(ms));
        }
        if let Some(g) = f.text("group") {
            item = item.group(g);
        }
        if let Some(n) = f.text("item_name") {
            item = item.name(n);
        }
        Some(Schedule {
            every,
            tz: f.text("tz").map(str::to_owned),
            item,
            missed: Missed::from_wire(f.text("missed").unwrap_or("skip")).ok()?,
        })
    }
}

/// A stored schedule, as [`Queue::schedules`] and [`Queue::get_schedule`] read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleInfo {
    /// Its name.
    pub name: String,
    /// What it is; `None` when the stored fields are not a schedule this version reads.
    pub schedule: Option<Schedule>,
    /// Bumped by every upsert (1 for a new schedule).
    pub version: u64,
    /// The next tick to fire (ms since the epoch, server clock), computed from the stored
    /// schedule when no firer has stored it yet; `None` when unknown.
    pub next: Option<u64>,
    /// Every tick at or before this instant (ms) was fired or skipped.
    pub from: u64,
    /// Ticks fired so far.
    pub fired: u64,
    /// Missed ticks skipped so far (by the policy).
    pub skipped: u64,
    /// The last tick fired (ms), if any.
    pub last_tick: Option<u64>,
    /// When it was created and last upserted (ms, server clock).
    pub created: u64,
    /// See `created`.
    pub updated: u64,
}

/// A page of the queue's schedules, by next fire time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulePage {
    /// The server's clock when it was read (ms).
    pub now: u64,
    /// How many schedules the queue has.
    pub total: u64,
    /// The page.
    pub schedules: Vec<ScheduleInfo>,
}

/// What [`Queue::fire_due_schedules`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FireReport {
    /// Schedules it found due.
    pub due: usize,
    /// Ticks it fired (items added; an id that existed adds none).
    pub fired: usize,
    /// Missed ticks it skipped by their schedules' policies.
    pub skipped: u64,
    /// Fire calls that found their schedule moved by another firer or an upsert (no effect).
    pub lost_races: usize,
    /// Schedules whose stored fields it could not read (left alone).
    pub unreadable: usize,
    /// How long until the next schedule is due, by the server's clock, when one is stored.
    pub next_due_in: Option<Duration>,
}

/// A schedule name: UTF-8, 1 to 200 bytes, no control character (argument `name`).
pub fn validate_schedule_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::invalid("name", "must not be empty"));
    }
    if name.len() > MAX_SCHEDULE_NAME_LEN {
        return Err(Error::invalid("name", "must be at most 200 bytes"));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::invalid(
            "name",
            "must not contain control characters",
        ));
    }
    Ok(())
}

/// The fields of a `P:cron:<name>` hash.
struct Fields(Vec<(Vec<u8>, Vec<u8>)>);

impl Fields {
    fn parse(op: &str, value: Value) -> Result<Fields> {
        let flat = array(op, value)?;
        let mut pairs = Vec::with_capacity(flat.len() / 2);
        let mut it = flat.into_iter();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            let k = bytes(op, k)?.unwrap_or_default();
            let v = bytes(op, v)?.unwrap_or_default();
            pairs.push((k, v));
        }
        Ok(Fields(pairs))
    }

    fn get(&self, field: &str) -> Option<&[u8]> {
        self.0
            .iter()
            .find(|(k, _)| k == field.as_bytes())
            .map(|(_, v)| v.as_slice())
    }

    fn text(&self, field: &str) -> Option<&str> {
        self.get(field).and_then(|v| std::str::from_utf8(v).ok())
    }

    fn num(&self, field: &str) -> Option<u64> {
        self.text(field).and_then(|v| v.parse().ok())
    }

    /// The stored schedule's ticks, or `None` when they cannot be read.
    fn ticks(&self) -> Option<Ticks> {
        match self.text("kind")? {
            "cron" => Ticks::cron(self.text("cron")?, self.text("tz")).ok(),
            "every" => Some(Ticks::Every {
                anchor: self.num("anchor")?,
                every: self.num("every").filter(|e| *e > 0)?,
            }),
            _ => None,
        }
    }

    fn info(&self, name: String) -> ScheduleInfo {
        let from = self.num("from").unwrap_or(0);
        let next = self
            .num("next")
            .or_else(|| self.ticks().and_then(|t| t.first_after(from)));
        ScheduleInfo {
            schedule: Schedule::from_fields(&name, self),
            name,
            version: self.num("version").unwrap_or(0),
            next,
            from,
            fired: self.num("fired").unwrap_or(0),
            skipped: self.num("skipped").unwrap_or(0),
            last_tick: self.num("last_tick"),
            created: self.num("created").unwrap_or(0),
            updated: self.num("updated").unwrap_or(0),
        }
    }
}

/// `{name, fields}` pairs of a `schedules` reply.
fn named_fields(op: &str, value: Value) -> Result<Vec<(String, Fields)>> {
    let mut out = Vec::new();
    for entry in array(op, value)? {
        let mut pair = array(op, entry)?.into_iter();
        let (Some(name), Some(fields)) = (pair.next(), pair.next()) else {
            return Err(unexpected(op, &Value::Nil));
        };
        let name = String::from_utf8_lossy(&bytes(op, name)?.unwrap_or_default()).into_owned();
        out.push((name, Fields::parse(op, fields)?));
    }
    Ok(out)
}

impl Queue {
    /// Stores the schedule `name`, new or replacing one of that name, after checking every
    /// argument (`name`, `cron`, `tz`, `every`, `missed`, `item`, and the item's options;
    /// nothing is written when one is refused). A change never fires a tick twice, nor skips
    /// one due within [`MISSED_GRACE`] before it (spec/PROTOCOL.md 5.23). Returns whether it was
    /// new. A queue holds at most [`MAX_SCHEDULES`]. The queue's runners fire it (their
    /// housekeeping), or [`Queue::fire_due_schedules`]. One round trip.
    pub async fn upsert_schedule(&self, name: &str, schedule: &Schedule) -> Result<bool> {
        validate_schedule_name(name)?;
        let fields = schedule.wire()?;
        let mut inv = self.invocation(&scripts::SCHEDULE_UPSERT);
        inv.arg(name)
            .arg(MISSED_GRACE.as_millis().to_string())
            .arg(MAX_SCHEDULES.to_string());
        for (field, value) in &fields {
            inv.arg(*field).arg(value.as_slice());
        }
        let reply = array("schedule_upsert", self.invoke::<Value>(&inv).await?)?;
        let code = reply
            .first()
            .map(|v| int("schedule_upsert", v))
            .transpose()?;
        match code {
            Some(1) => Ok(int("schedule_upsert", &reply[1])? == 1),
            Some(0) => Err(Error::invalid(
                "name",
                format!(
                    "the queue holds {MAX_SCHEDULES} schedules, the most it may; remove one first"
                ),
            )),
            _ => Err(unexpected("schedule_upsert", &Value::Array(reply))),
        }
    }

    /// Removes the schedule `name` (items it added stay). Returns whether there was one. One
    /// round trip.
    pub async fn remove_schedule(&self, name: &str) -> Result<bool> {
        validate_schedule_name(name)?;
        let mut inv = self.invocation(&scripts::SCHEDULE_REMOVE);
        inv.arg(name);
        let n: i64 = self.invoke(&inv).await?;
        Ok(n == 1)
    }

    /// The schedule `name`, with its next fire time, or `None`. One round trip.
    pub async fn get_schedule(&self, name: &str) -> Result<Option<ScheduleInfo>> {
        validate_schedule_name(name)?;
        let mut inv = self.invocation(&scripts::SCHEDULES);
        inv.arg("get").arg(name);
        let mut reply = array("schedules", self.invoke::<Value>(&inv).await?)?.into_iter();
        let _now = reply.next();
        match reply.next() {
            Some(Value::Nil) | Some(Value::Boolean(false)) | None => Ok(None),
            Some(fields) => Ok(Some(
                Fields::parse("schedules", fields)?.info(name.to_owned()),
            )),
        }
    }

    /// `count` schedules (1 to 1000) from position `start`, in the order of their next fire
    /// times, with the queue's total. One round trip.
    pub async fn schedules(&self, start: usize, count: usize) -> Result<SchedulePage> {
        if !(1..=1000).contains(&count) {
            return Err(Error::invalid("count", "must be 1 to 1000"));
        }
        let mut inv = self.invocation(&scripts::SCHEDULES);
        inv.arg("page")
            .arg(start.to_string())
            .arg(count.to_string());
        let reply = array("schedules", self.invoke::<Value>(&inv).await?)?;
        let [now, total, entries]: [Value; 3] = reply
            .try_into()
            .map_err(|v: Vec<Value>| unexpected("schedules", &Value::Array(v)))?;
        Ok(SchedulePage {
            now: int("schedules", &now)?.max(0) as u64,
            total: int("schedules", &total)?.max(0) as u64,
            schedules: named_fields("schedules", entries)?
                .into_iter()
                .map(|(name, f)| f.info(name))
                .collect(),
        })
    }

    /// Fires every due schedule of the queue once: reads the due ones (100 per round trip) and
    /// sends one fire call per schedule, all in one pipeline (spec/PROTOCOL.md 5.23). Safe from
    /// any number of processes at once: each tick adds one item whoever fires it. The queue's
    /// runners call this from their housekeeping; call it yourself where no runner runs (a cron
    /// job, a test). Two round trips per 100 due schedules.
    pub async fn fire_due_schedules(&self) -> Result<FireReport> {
        let mut report = FireReport::default();
        // Bounded: at most 100 rounds of 100 (MAX_SCHEDULES).
        for _ in 0..MAX_SCHEDULES / DUE_PAGE {
            let mut inv = self.invocation(&scripts::SCHEDULES);
            inv.arg("due").arg(DUE_PAGE.to_string());
            let reply = array("schedules", self.invoke::<Value>(&inv).await?)?;
            let [now, next, entries]: [Value; 3] = reply
                .try_into()
                .map_err(|v: Vec<Value>| unexpected("schedules", &Value::Array(v)))?;
            let now = int("schedules", &now)?.max(0) as u64;
            let due = named_fields("schedules", entries)?;
            let next_due = bytes("schedules", next)?
                .and_then(|b| String::from_utf8(b).ok())
                .and_then(|s| s.parse::<u64>().ok());
            let mut soonest = next_due;
            report.due += due.len();
            let page_full = due.len() == DUE_PAGE;
            let mut calls = Vec::new();
            for (name, fields) in due {
                let (Some(ticks), Some(version), Some(from)) =
                    (fields.ticks(), fields.text("version"), fields.num("from"))
                else {
                    report.unreadable += 1;
                    tracing::warn!(queue = self.prefix(), schedule = %name, "leaseq: a schedule's fields cannot be read; it is left alone");
                    continue;
                };
                let missed =
                    Missed::from_wire(fields.text("missed").unwrap_or("skip")).unwrap_or_default();
                let p = plan(&ticks, missed, from, now);
                let mut inv = self.invocation(&scripts::SCHEDULE_FIRE);
                inv.arg(name.as_str())
                    .arg(version)
                    .arg(from.to_string())
                    .arg(p.new_from.to_string())
                    .arg(p.next.to_string())
                    .arg(p.skipped.to_string())
                    .arg(new_token());
                for tick in &p.ticks {
                    inv.arg(tick.to_string());
                }
                calls.push((inv, p));
            }
            if !calls.is_empty() {
                let mut conn = self.conn()?;
                let mut pipe = redis::pipe();
                pipe.ignore_errors();
                for (inv, _) in &calls {
                    pipe.add_command(inv.cmd());
                }
                let mut replies: Vec<Value> = pipe
                    .query_async(&mut conn)
                    .await
                    .map_err(|e| self.map_err(e))?;
                if replies.iter().any(|r| {
                    matches!(r, Value::ServerError(e) if scripts::is_missing_function(Some(e.code()), e.details()))
                }) {
                    // Nothing ran: load the library and send the whole pipeline once more.
                    self.load_library(&mut conn).await?;
                    replies = pipe
                        .query_async(&mut conn)
                        .await
                        .map_err(|e| self.map_err(e))?;
                }
                let mut first_error = None;
                for ((_, p), reply) in calls.iter().zip(replies) {
                    match reply {
                        Value::ServerError(e) => {
                            first_error =
                                first_error.or(Some(self.map_err(redis::RedisError::from(e))));
                        }
                        reply => {
                            let r = array("schedule_fire", reply)?;
                            let added = r
                                .first()
                                .map(|v| int("schedule_fire", v))
                                .transpose()?
                                .unwrap_or(-1);
                            soonest = Some(soonest.map_or(p.next, |s| s.min(p.next)));
                            if added < 0 {
                                report.lost_races += 1;
                            } else {
                                report.fired += p.ticks.len();
                                report.skipped += p.skipped;
                            }
                        }
                    }
                }
                if let Some(e) = first_error {
                    return Err(e);
                }
            }
            // The next due time: the first schedule not due at the read, or the next tick of
            // one fired now (a lost race's is as good an estimate: the winner stored a tick
            // after now too).
            report.next_due_in = soonest.map(|n| Duration::from_millis(n.saturating_sub(now)));
            if !page_full {
                break;
            }
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_compare_by_what_they_do_not_by_their_templates_id() {
        let every = || Schedule::every(Duration::from_secs(30));
        assert_eq!(every(), every());
        assert_eq!(
            every().item(Item::new("x").priority(5)),
            every().item(Item::new("x").priority(5))
        );
        assert_ne!(every().item(Item::new("x")), every().item(Item::new("y")));
        assert_ne!(
            every().item(Item::new("x")),
            every().item(Item::new("x").priority(5))
        );
        assert_ne!(every(), every().missed(Missed::Once));
        assert_ne!(every(), Schedule::every(Duration::from_secs(31)));
        assert_ne!(
            Schedule::cron("0 3 * * *"),
            Schedule::cron("0 3 * * *").tz("UTC")
        );
    }

    #[test]
    fn bad_schedules_are_refused_naming_the_argument() {
        let arg = |s: Schedule| match s.wire() {
            Err(Error::InvalidArgument { argument, .. }) => argument,
            other => panic!("{other:?}"),
        };
        assert_eq!(arg(Schedule::cron("61 * * * *")), "cron");
        assert_eq!(arg(Schedule::cron("* * * *")), "cron");
        assert_eq!(arg(Schedule::cron("0 3 * * *").tz("Mars/Olympus")), "tz");
        assert_eq!(arg(Schedule::every(Duration::from_millis(999))), "every");
        assert_eq!(arg(Schedule::every(S_DUR).tz("UTC")), "tz");
        assert_eq!(arg(Schedule::every(S_DUR).missed(Missed::All(0))), "missed");
        assert_eq!(
            arg(Schedule::every(S_DUR).missed(Missed::All(1001))),
            "missed"
        );
        let delayed = Item::new("x").delay(S_DUR);
        assert_eq!(arg(Schedule::every(S_DUR).item(delayed)), "item");
        assert_eq!(
            arg(Schedule::every(S_DUR).item(Item::new(vec![0; (1 << 20) + 1]))),
            "data"
        );
        assert_eq!(
            arg(Schedule::every(S_DUR).item(Item::new("x").priority(5000))),
            "priority"
        );
        assert!(validate_schedule_name("").is_err());
        assert!(validate_schedule_name(&"n".repeat(201)).is_err());
        assert!(validate_schedule_name("a\nb").is_err());
        assert!(Missed::from_wire("all:0").is_err());
        assert_eq!(Missed::from_wire("all:7").unwrap(), Missed::All(7));
    }

    const S_DUR: Duration = Duration::from_secs(1);
}
