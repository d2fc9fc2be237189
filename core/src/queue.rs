//! `Queue`: one prefix's keys and the plumbing every operation shares. The operations
//! themselves live in `ops/`, one file per family (spec/PROTOCOL.md, "Operations").

use std::sync::Arc;

use crate::client::Client;
use crate::conn::{Conn, Handle};
use crate::error::{Error, Result};
use crate::keys::QueueKeys;
use crate::lease::Lease;
use crate::scripts::{self, Function, Invocation};

/// One queue: the keys under one prefix. Cheap to clone; clones share the client.
#[derive(Clone, Debug)]
pub struct Queue {
    client: Client,
    keys: Arc<QueueKeys>,
}

impl Client {
    /// The queue stored under `prefix`. Validates the prefix (argument `prefix`); sends nothing.
    pub fn queue(&self, prefix: &str) -> Result<Queue> {
        let keys = QueueKeys::new(prefix, self.is_cluster())?;
        Ok(Queue {
            client: self.clone(),
            keys: Arc::new(keys),
        })
    }
}

impl Queue {
    /// The prefix of this queue's keys.
    pub fn prefix(&self) -> &str {
        &self.keys.prefix
    }

    /// The client this queue uses.
    pub fn client(&self) -> &Client {
        &self.client
    }

    pub(crate) fn keys(&self) -> &QueueKeys {
        &self.keys
    }

    /// The connections and closed flag of the queue's client.
    pub(crate) fn handle(&self) -> &Handle {
        self.client.handle()
    }

    pub(crate) fn conn(&self) -> Result<Conn> {
        self.handle().shared()
    }

    pub(crate) fn map_err(&self, err: redis::RedisError) -> Error {
        self.handle().map_err(err, &self.keys.prefix)
    }

    /// A call of `function` with the protocol's two keys already in place.
    pub(crate) fn invocation(&self, function: &'static Function) -> Invocation {
        let mut inv = Invocation::new(function);
        for key in self.keys.script_keys() {
            inv.key(key);
        }
        inv
    }

    /// Sends `inv` (one round trip). Only when the server answers that it has no such function,
    /// so that nothing ran, is the library loaded and the call sent once more.
    pub(crate) async fn invoke<T: redis::FromRedisValue>(&self, inv: &Invocation) -> Result<T> {
        let mut conn = self.conn()?;
        let cmd = inv.cmd();
        match cmd.query_async(&mut conn).await {
            Err(e) if scripts::is_missing_function(e.code(), e.detail()) => {
                // The call did not run: a load that fails leaves it not run, whatever the
                // load's own error (so a finisher may send it again; spec 11).
                self.load_library(&mut conn).await.map_err(|e| match e {
                    Error::Connection(c) | Error::Timeout(c) => Error::Unavailable(c),
                    other => other,
                })?;
                cmd.query_async(&mut conn)
                    .await
                    .map_err(|e| self.map_err(e))
            }
            other => other.map_err(|e| self.map_err(e)),
        }
    }

    /// Loads the protocol's function library (spec/PROTOCOL.md, 4.1).
    pub(crate) async fn load_library(&self, conn: &mut Conn) -> Result<()> {
        let _: redis::Value = scripts::load_cmd()
            .query_async(conn)
            .await
            .map_err(|e| self.map_err(e))?;
        Ok(())
    }

    /// Sends one plain command on the shared connection.
    pub(crate) async fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T> {
        let mut conn = self.conn()?;
        cmd.query_async(&mut conn)
            .await
            .map_err(|e| self.map_err(e))
    }

    /// Refuses a lease of another queue (argument `lease`): ids are only unique per queue.
    pub(crate) fn own(&self, lease: &Lease) -> Result<()> {
        if lease.prefix != self.keys.prefix {
            return Err(Error::invalid(
                "lease",
                format!(
                    "belongs to queue `{}`, not to `{}`",
                    lease.prefix, self.keys.prefix
                ),
            ));
        }
        Ok(())
    }
}

/// A fresh lease token (32 lowercase hex) or incarnation base.
pub(crate) fn new_token() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}
