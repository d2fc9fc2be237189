//! Talking to Redis, below the operations: which connection a call goes on, how a client
//! connects, what its URL says, how long a blocking wait blocks, and when a failed call is sent
//! again. One concept per file:
//!
//! - `connection`: [`Conn`], one connection of any kind leaseq uses.
//! - `pool`: [`Connections`], a client's shared connection and its dedicated ones for waits.
//! - `url`: the URL forms a client accepts, checked before any socket opens.
//! - `tls`: leaseq's TLS settings in a `rediss://` URL, and telling a plain port from a TLS one.
//! - `route`: sending a command to one node of a Cluster (`SCAN`, `INFO`, `CONFIG`).
//! - `handle`: [`Handle`], what a client, its clones and its queues share.
//! - `wait`: the server-side wait of blocking calls (a `BLMOVE` rotation, in slices).
//! - `retry`: the one retry ladder: which errors a call may be sent again after, and the pauses.

mod connection;
mod handle;
mod pool;
mod retry;
mod route;
mod tls;
mod url;
mod wait;

pub(crate) use connection::Conn;
pub(crate) use handle::Handle;
pub(crate) use pool::Connections;
pub(crate) use retry::{Ladder, Schedule, Verdict};
pub(crate) use route::{at_node, pipeline_at_node, primaries, Node};
pub(crate) use url::{check_cluster_urls, check_url};
pub(crate) use wait::{Deadline, KeptWaits, Waiter, OUTCOME_CHECK};
