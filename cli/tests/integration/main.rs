//! The `leaseq` command against real servers: each module is one command family's tests (the
//! commands, the JSON API, the dashboard in a headless Chromium, events, partitions, schedules)
//! on throwaway redis-servers and clusters.
//!
//! One test binary, not one per file: each binary links the core, axum, reqwest and redis again,
//! and a CI machine short of disk failed linking them. Run one module's tests with a filter:
//! `cargo test -p leaseq-cli --test integration -- schedules::`.

mod common;

mod api;
mod browser;
mod browser_events;
mod commands;
mod events;
mod partitions;
mod schedules;
