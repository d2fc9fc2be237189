//! [`Handle`]: what a client, its clones and its queues share: the connections, and whether the
//! client was closed.

use std::sync::Arc;

use tokio::sync::watch;

use super::{Conn, Connections};
use crate::error::{Error, Result};

/// The connections of one client and its closed flag. Cheap to clone; clones share both.
#[derive(Clone)]
pub(crate) struct Handle {
    inner: Arc<Inner>,
}

struct Inner {
    connections: Connections,
    closed: watch::Sender<bool>,
}

impl Handle {
    /// A handle on `connections`, open.
    pub fn new(connections: Connections) -> Handle {
        Handle {
            inner: Arc::new(Inner {
                connections,
                closed: watch::channel(false).0,
            }),
        }
    }

    /// The shared connection, for an ordinary call; [`Error::Closed`] once closed.
    pub fn shared(&self) -> Result<Conn> {
        if self.is_closed() {
            return Err(Error::Closed);
        }
        self.inner.connections.shared().ok_or(Error::Closed)
    }

    /// Whether `other` is a handle of the same client (a clone of it, or of a queue of it).
    pub fn same_client(&self, other: &Handle) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The connections, for a blocking wait's dedicated ones.
    pub fn connections(&self) -> &Connections {
        &self.inner.connections
    }

    /// Closes the client: waits in progress see it at once ([`Handle::closed_signal`]), and
    /// every later call fails with [`Error::Closed`].
    pub fn close(&self) {
        self.inner.closed.send_replace(true);
        self.inner.connections.close();
    }

    /// Whether [`Handle::close`] was called.
    pub fn is_closed(&self) -> bool {
        *self.inner.closed.borrow()
    }

    /// A receiver that turns `true` when the client is closed.
    pub fn closed_signal(&self) -> watch::Receiver<bool> {
        self.inner.closed.subscribe()
    }

    /// Classifies `err`, an error of these connections, for queue `prefix`
    /// ([`Error::from_redis_on`]).
    pub fn map_err(&self, err: redis::RedisError, prefix: &str) -> Error {
        Error::from_redis_on(err, prefix, self.is_cluster())
    }

    /// Whether the connections are to a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        self.inner.connections.is_cluster()
    }

    /// The database the connections select (0 in a Cluster).
    pub fn db(&self) -> i64 {
        self.inner.connections.db()
    }
}
