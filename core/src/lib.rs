//! # leaseq
//!
//! A job queue on Redis with fenced, expiring leases, wire-compatible with the
//! redis-work-queue key layout: delays, priorities, retries with backoff, dead letters, kept
//! results, cancel, and a read API for state and stats. Every operation is one Lua script call
//! (one round trip); batches are one round trip too.
//!
//! ```no_run
//! # async fn demo() -> leaseq::Result<()> {
//! use std::time::Duration;
//! use leaseq::{Client, Item, Wait};
//!
//! let client = Client::connect("redis://127.0.0.1:6379").await?;
//! let queue = client.queue("{emails}")?;
//! queue.add(&Item::new(b"hello".to_vec())).await?;
//! if let Some(lease) = queue.lease(Duration::from_secs(30), Wait::No).await? {
//!     println!("working on {} (attempt {})", lease.id(), lease.attempt());
//!     assert!(queue.complete(&lease).await?);
//! }
//! # Ok(()) }
//! ```
//!
//! The protocol, precise enough to reimplement, is `spec/PROTOCOL.md` in the repository; the
//! error codes shared by every binding are `spec/errors.md`.

#![warn(missing_docs)]

pub mod blocking;
mod client;
mod conn;
mod discover;
mod error;
mod item;
mod job;
mod keys;
mod lease;
pub mod operations;
mod ops;
mod partition;
pub mod policy;
mod queue;
mod reply;
// Not part of leaseq's API, public only for the bindings' crates (see its module doc).
#[doc(hidden)]
pub mod runtime;
mod scripts;
mod server;
mod ticks;
pub mod worker;

pub use client::Client;
pub use error::{Cause, Error, ErrorCode, JsonCause, Result};
pub use item::{
    validate_group, validate_id, validate_name, Item, OnDependencyFailure, MAX_DATA_LEN,
    MAX_DEPENDENCIES, MAX_GROUP_LEN, MAX_ID_LEN, MAX_NAME_LEN,
};
pub use job::{Entry, FailOutcome, Found, GroupInfo, Job, JobResult, Minute, State, Stats};
pub use keys::{validate_prefix, MAX_PREFIX_LEN};
pub use lease::{ttl_from_millis, Lease, RenewOutcome, Wait, MAX_TTL};
pub use ops::{
    check_completion, CleanReport, Completion, Dependencies, Events, EventsFrom, EventsPage,
    Failure, Flow, NameCounts, QueueConfig, QueueEvent, RateLimit, RunnerEntry, Runners, GAP,
    MAX_EVENTS_PAGE, MAX_RUNNER_INFO_LEN, MAX_TRACE_LEN,
};
// Recurring jobs (spec/PROTOCOL.md 5.23).
pub use ops::{
    validate_schedule_name, Every, FireReport, Missed, Schedule, ScheduleInfo, SchedulePage,
    MAX_MISSED_ALL, MAX_SCHEDULES, MAX_SCHEDULE_DATA_LEN, MAX_SCHEDULE_NAME_LEN, MIN_EVERY,
    MISSED_GRACE,
};
// Not part of leaseq's API: the tick arithmetic, for the model and its replay.
pub use partition::{Partitioned, PartitionedStats, MAX_PARTITIONS};
pub use policy::{Backoff, Retry};
pub use queue::Queue;
#[doc(hidden)]
pub use ticks::{plan as schedule_plan, FirePlan, Ticks};
// Not part of leaseq's API: for the model's replay test only (see its own doc).
#[doc(hidden)]
pub use scripts::edited_library;
pub use server::{key_slot, ServerReport, MIN_REDIS_VERSION};
