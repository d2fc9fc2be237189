//! The commands, one module per concern; each only calls the core's API.

pub mod check;
pub mod clean;
pub mod config;
pub mod dead;
pub mod events;
pub mod groups;
pub mod inspect;
pub mod items;
pub mod partitions;
pub mod pause;
pub mod schedules;
pub mod workers;
