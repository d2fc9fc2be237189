//! The operations of a [`crate::Queue`], one file per family.

pub(crate) mod add;
mod clean;
mod config;
mod dead;
pub(crate) mod deps;
pub(crate) mod events;
pub(crate) mod finish;
mod groups;
mod inspect;
mod lease;
mod names;
mod pause;
mod results;
mod schedules;
mod workers;

pub use clean::CleanReport;
pub use config::{QueueConfig, RateLimit};
pub use deps::{Dependencies, Flow};
pub use events::{Events, EventsFrom, EventsPage, QueueEvent, GAP, MAX_EVENTS_PAGE};
pub use finish::{check_completion, Completion, Failure, MAX_TRACE_LEN};
pub use names::NameCounts;
pub(crate) use results::Watch;
pub use schedules::{
    validate_schedule_name, Every, FireReport, Missed, Schedule, ScheduleInfo, SchedulePage,
    MAX_MISSED_ALL, MAX_SCHEDULES, MAX_SCHEDULE_DATA_LEN, MAX_SCHEDULE_NAME_LEN, MIN_EVERY,
    MISSED_GRACE,
};
pub use workers::{RunnerEntry, Runners, MAX_RUNNER_INFO_LEN};
