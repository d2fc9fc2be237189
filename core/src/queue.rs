//! `Queue`: one prefix's keys and the plumbing every operation shares. The operations
//! themselves live in `ops/`, one file per family (spec/PROTOCOL.md, "Operations").

use std::sync::Arc;

use redis::{Script, ScriptInvocation};

use crate::client::Client;
use crate::connection::Conn;
use crate::error::{Error, Result};
use crate::keys::QueueKeys;
use crate::lease::Lease;

/// One queue: the keys under one prefix. Cheap to clone; clones share the client.
#[derive(Clone, Debug)]
pub struct Queue {
    client: Client,
    keys: Arc<QueueKeys>,
}

impl Queue {
    pub(crate) fn new(client: Client, keys: Arc<QueueKeys>) -> Queue {
        Queue { client, keys }
    }

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

    pub(crate) fn conn(&self) -> Result<Conn> {
        self.client.shared_conn()
    }

    pub(crate) fn map_err(&self, err: redis::RedisError) -> Error {
        Error::from_redis(err, &self.keys.prefix)
    }

    /// An invocation of `script` with the sixteen protocol keys already in place.
    pub(crate) fn invocation<'a>(&self, script: &'a Script) -> ScriptInvocation<'a> {
        let mut inv = script.prepare_invoke();
        for key in self.keys.script_keys() {
            inv.key(key);
        }
        inv
    }

    pub(crate) async fn invoke<T: redis::FromRedisValue>(
        &self,
        inv: &ScriptInvocation<'_>,
    ) -> Result<T> {
        let mut conn = self.conn()?;
        inv.invoke_async(&mut conn)
            .await
            .map_err(|e| self.map_err(e))
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
