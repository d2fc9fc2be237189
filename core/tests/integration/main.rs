//! The core against real servers: each module is one concern's tests (the lifecycle, the
//! runner, cluster faults, ...), on throwaway redis-servers and clusters the harness starts.
//!
//! One test binary, not one per file: each binary links the core, tokio, redis and rustls again
//! (about 40 MB each), and a fresh clone's `make test` wrote a gigabyte more and spent minutes
//! more linking with 29 of them. Run one module's tests with a filter:
//! `cargo test -p leaseq --test integration -- lifecycle::`.
//! (`tests/logging.rs` stays a binary of its own: it installs the process's global `tracing`
//! subscriber and reads every line written to it.)

// First, so that its `on_both!` is in scope in every module below.
#[macro_use]
mod common;

mod acl;
mod batch_lease;
mod blocking_api;
mod blocking_partitioned;
mod browse;
mod cluster_faults;
mod concurrency;
mod crash_repair;
mod dependencies;
mod discover;
mod events;
mod examples;
mod flow;
mod group_rates;
mod groups;
mod interleavings;
mod interop;
mod lifecycle;
mod names;
mod partitioned;
mod producers;
mod queue_ops;
mod restart;
mod round_trips;
mod schedules;
mod server_states;
mod transports;
mod validation;
mod worker;
