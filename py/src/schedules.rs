//! Recurring jobs (spec/PROTOCOL.md 5.23): `Schedule`, `ScheduleInfo`, `SchedulePage` and
//! `FireReport`, shared by the sync and asyncio faces. Thin: every default and check is the
//! core's.

use pyo3::prelude::*;

use crate::types::Item;
use crate::{convert, errors, time};

/// A recurring job: ``Schedule(cron="0 3 * * *", tz="Europe/Berlin", item=Item(b"...",
/// name="report"), missed="once")`` or ``Schedule(every=30, item=...)``.
///
/// - ``cron``: five fields (minute hour day-of-month month day-of-week), or six with the seconds
///   first; ``tz`` its IANA time zone (UTC when ``None``). Daylight saving time: a time that
///   does not exist that day fires at the first time after the gap; one that occurs twice
///   fires once.
/// - ``every``: a period (seconds or a timedelta, at least one second) instead.
/// - ``item``: the ``Item`` each tick adds (its data and options; its id is not used: each
///   item's id is ``<schedule name>@<tick ms>``; no delay or run_at). ``None``: empty data.
/// - ``missed``: what ticks missed while no runner ran do: ``"skip"`` (the core's default),
///   ``"once"`` (the latest fires) or ``"all:N"`` (the latest N, 1 to 1000).
///
/// Checked by ``upsert_schedule``, which refuses a bad one naming the argument (``cron``,
/// ``tz``, ``every``, ``missed``, ``item``) before anything is written. Two schedules are equal
/// when they fire alike and add alike items (the template item's id, which no tick uses, does
/// not count).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct Schedule {
    pub inner: leaseq::Schedule,
}

#[pymethods]
impl Schedule {
    #[new]
    #[pyo3(signature = (*, cron = None, every = None, tz = None, item = None, missed = None))]
    fn new(
        py: Python<'_>,
        cron: Option<&Bound<'_, PyAny>>,
        every: Option<&Bound<'_, PyAny>>,
        tz: Option<&Bound<'_, PyAny>>,
        item: Option<&Bound<'_, PyAny>>,
        missed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Schedule> {
        fn given<'py>(o: Option<&Bound<'py, PyAny>>) -> Option<Bound<'py, PyAny>> {
            o.filter(|o| !o.is_none()).cloned()
        }
        let mut inner = match (given(cron), given(every)) {
            (Some(c), None) => leaseq::Schedule::cron(convert::string(&c, "cron")?),
            (None, Some(e)) => leaseq::Schedule::every(convert::seconds(&e, "every")?),
            _ => {
                return Err(errors::invalid(
                    py,
                    "cron",
                    "give either a cron expression or every, one of the two",
                ))
            }
        };
        if let Some(tz) = given(tz) {
            inner = inner.tz(convert::string(&tz, "tz")?);
        }
        if let Some(item) = given(item) {
            let item = convert::item(&item, "item")?;
            inner = inner.item(item.get().inner.clone());
        }
        if let Some(m) = given(missed) {
            let m = leaseq::Missed::from_wire(&convert::string(&m, "missed")?)
                .map_err(|e| errors::to_py(py, e))?;
            inner = inner.missed(m);
        }
        Ok(Schedule { inner })
    }

    /// The cron expression, or ``None`` for an ``every`` schedule.
    #[getter]
    fn cron(&self) -> Option<String> {
        match self.inner.when() {
            leaseq::Every::Cron(c) => Some(c.clone()),
            _ => None,
        }
    }

    /// The period (a timedelta), or ``None`` for a cron schedule.
    #[getter]
    fn every<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner.when() {
            leaseq::Every::Period(p) => time::timedelta(py, *p).map(Some),
            _ => Ok(None),
        }
    }

    /// The time zone given, or ``None`` (UTC).
    #[getter]
    fn tz(&self) -> Option<String> {
        self.inner.time_zone().map(str::to_owned)
    }

    /// The item each tick adds.
    #[getter]
    fn item(&self) -> Item {
        Item {
            inner: self.inner.template().clone(),
        }
    }

    /// ``"skip"``, ``"once"`` or ``"all:N"``.
    #[getter]
    fn missed(&self) -> String {
        self.inner.missed_policy().to_wire()
    }

    fn __repr__(&self) -> String {
        let when = match self.inner.when() {
            leaseq::Every::Cron(c) => format!("cron={c:?}"),
            leaseq::Every::Period(p) => format!("every={}", p.as_secs_f64()),
            _ => "?".into(),
        };
        let tz = self
            .inner
            .time_zone()
            .map(|t| format!(", tz={t:?}"))
            .unwrap_or_default();
        format!(
            "Schedule({when}{tz}, missed={:?})",
            self.inner.missed_policy().to_wire()
        )
    }
}

/// A stored schedule with its next fire time (``Queue.get_schedule``, ``Queue.schedules``).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct ScheduleInfo {
    inner: leaseq::ScheduleInfo,
}

impl From<leaseq::ScheduleInfo> for ScheduleInfo {
    fn from(inner: leaseq::ScheduleInfo) -> ScheduleInfo {
        ScheduleInfo { inner }
    }
}

#[pymethods]
impl ScheduleInfo {
    /// Its name.
    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// The ``Schedule``, or ``None`` when the stored fields are not one this version reads.
    #[getter]
    fn schedule(&self) -> Option<Schedule> {
        self.inner.schedule.clone().map(|inner| Schedule { inner })
    }

    /// Bumped by every upsert (1 for a new schedule).
    #[getter]
    fn version(&self) -> u64 {
        self.inner.version
    }

    /// The next tick to fire (an aware datetime, the server's clock), or ``None``.
    #[getter]
    fn next_at<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_datetime_ms(py, self.inner.next)
    }

    /// Ticks fired so far.
    #[getter]
    fn fired(&self) -> u64 {
        self.inner.fired
    }

    /// Missed ticks skipped so far (by the policy).
    #[getter]
    fn skipped(&self) -> u64 {
        self.inner.skipped
    }

    /// The last tick fired (a datetime), or ``None``.
    #[getter]
    fn last_tick<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_datetime_ms(py, self.inner.last_tick)
    }

    /// When it was created (server clock).
    #[getter]
    fn created_at<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        time::datetime_ms(py, self.inner.created)
    }

    /// When it was last upserted (server clock).
    #[getter]
    fn updated_at<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        time::datetime_ms(py, self.inner.updated)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let next = match self.next_at(py)? {
            Some(at) => at.repr()?.to_string(),
            None => "None".to_owned(),
        };
        Ok(format!(
            "ScheduleInfo({:?}, version={}, next_at={next}, fired={})",
            self.inner.name, self.inner.version, self.inner.fired
        ))
    }
}

/// A page of schedules by next fire time (``Queue.schedules``): ``schedules``, ``total`` (how
/// many the queue has) and ``now`` (the server's clock).
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct SchedulePage {
    inner: leaseq::SchedulePage,
}

impl From<leaseq::SchedulePage> for SchedulePage {
    fn from(inner: leaseq::SchedulePage) -> SchedulePage {
        SchedulePage { inner }
    }
}

#[pymethods]
impl SchedulePage {
    /// The page, a list of ``ScheduleInfo``.
    #[getter]
    fn schedules(&self) -> Vec<ScheduleInfo> {
        self.inner
            .schedules
            .iter()
            .cloned()
            .map(ScheduleInfo::from)
            .collect()
    }

    /// How many schedules the queue has.
    #[getter]
    fn total(&self) -> u64 {
        self.inner.total
    }

    /// The server's clock when it was read (an aware datetime).
    #[getter]
    fn now<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        time::datetime_ms(py, self.inner.now)
    }

    fn __len__(&self) -> usize {
        self.inner.schedules.len()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "SchedulePage(schedules=[{} entries], total={}, now={})",
            self.inner.schedules.len(),
            self.inner.total,
            self.now(py)?.repr()?
        ))
    }
}

/// What ``Queue.fire_due_schedules`` did.
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct FireReport {
    inner: leaseq::FireReport,
}

impl From<leaseq::FireReport> for FireReport {
    fn from(inner: leaseq::FireReport) -> FireReport {
        FireReport { inner }
    }
}

#[pymethods]
impl FireReport {
    /// Schedules found due.
    #[getter]
    fn due(&self) -> usize {
        self.inner.due
    }

    /// Ticks fired (one item each).
    #[getter]
    fn fired(&self) -> usize {
        self.inner.fired
    }

    /// Missed ticks skipped by the policies.
    #[getter]
    fn skipped(&self) -> u64 {
        self.inner.skipped
    }

    /// Fire calls that found their schedule moved by another firer or an upsert (no effect).
    #[getter]
    fn lost_races(&self) -> usize {
        self.inner.lost_races
    }

    /// How long until the next schedule is due (a timedelta), or ``None`` without schedules.
    #[getter]
    fn next_due_in<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        time::opt_timedelta(py, self.inner.next_due_in)
    }

    fn __repr__(&self) -> String {
        format!(
            "FireReport(due={}, fired={}, skipped={})",
            self.inner.due, self.inner.fired, self.inner.skipped
        )
    }
}

/// The `schedule` argument of `upsert_schedule`.
pub fn schedule(obj: &Bound<'_, PyAny>) -> PyResult<leaseq::Schedule> {
    obj.cast::<Schedule>()
        .map(|s| s.get().inner.clone())
        .map_err(|_| errors::wrong_type(obj.py(), "schedule", "leaseq.Schedule", obj))
}
