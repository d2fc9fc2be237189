//! The runner registry and the housekeeping lock (spec/PROTOCOL.md, 13.2): what a runner writes
//! about itself, and what tools read to list live runners.

use std::time::Duration;

use redis::Value;

use crate::error::{Error, Result};
use crate::policy::{self, MAX_PAGE};
use crate::queue::Queue;
use crate::reply::{array, bytes, int, text, unexpected};
use crate::scripts::{self, Function, Invocation};

/// The largest runner description accepted, in bytes.
pub const MAX_RUNNER_INFO_LEN: usize = 64 * 1024;

/// One live runner of a queue, as [`Queue::runners`] reads it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunnerEntry {
    /// The runner's id (host, pid and a random part).
    pub id: String,
    /// When its registration expires unless it beats again (server clock, ms since the epoch).
    pub expires_ms: u64,
    /// Its description (spec/PROTOCOL.md, 13.2): `host`, `pid`, `language`, `concurrency`,
    /// `running` and counters. `Value::Null` when the description expired or is not JSON.
    pub info: serde_json::Value,
    /// Whether it holds the queue's housekeeping lock.
    pub housekeeper: bool,
}

/// The live runners of a queue and who does its housekeeping.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Runners {
    /// The server's clock when read (ms since the epoch).
    pub now_ms: u64,
    /// The id in the housekeeping lock, if any runner holds it.
    pub housekeeper: Option<String>,
    /// The live runners, by expiry (at most 1000).
    pub runners: Vec<RunnerEntry>,
}

impl Queue {
    fn runner_invocation(&self, function: &'static Function) -> Invocation {
        let keys = self.keys();
        let mut inv = self.invocation(function);
        inv.key(&keys.workers)
            .key(&keys.worker_family)
            .key(&keys.housekeeping_lock);
        inv
    }

    /// Registers (or refreshes) runner `id` with description `info` for `ttl`, and with
    /// `take_lock` takes or keeps the housekeeping lock for `lock_ttl`. Returns whether this
    /// runner holds the lock. One round trip (spec/PROTOCOL.md, 13.2).
    pub async fn runner_beat(
        &self,
        id: &str,
        info: &[u8],
        ttl: Duration,
        take_lock: bool,
        lock_ttl: Duration,
    ) -> Result<bool> {
        validate_runner_id(id)?;
        if info.len() > MAX_RUNNER_INFO_LEN {
            return Err(Error::invalid(
                "info",
                format!("is {} bytes, at most {MAX_RUNNER_INFO_LEN}", info.len()),
            ));
        }
        let ttl_ms = positive_ms("ttl", ttl)?;
        let lock_ms = positive_ms("lock_ttl", lock_ttl)?;
        let mut inv = self.runner_invocation(&scripts::RUNNER_BEAT);
        inv.arg(id)
            .arg(info)
            .arg(ttl_ms)
            .arg(if take_lock { "1" } else { "0" })
            .arg(lock_ms);
        let reply: Vec<i64> = self.invoke(&inv).await?;
        Ok(reply.first() == Some(&1))
    }

    /// Removes runner `id` from the registry and lets go of the housekeeping lock if it holds
    /// it. One round trip.
    pub async fn runner_leave(&self, id: &str) -> Result<()> {
        validate_runner_id(id)?;
        let mut inv = self.runner_invocation(&scripts::RUNNER_LEAVE);
        inv.arg(id);
        let _: i64 = self.invoke(&inv).await?;
        Ok(())
    }

    /// The live runners of this queue (at most 1000) and the housekeeping lock's holder, as
    /// the runners registered themselves. One round trip; writes nothing.
    pub async fn runners(&self) -> Result<Runners> {
        const OP: &str = "runner_list";
        let mut inv = self.runner_invocation(&scripts::RUNNER_LIST);
        inv.arg(MAX_PAGE);
        let value: Value = self.invoke(&inv).await?;
        let mut parts = array(OP, value)?.into_iter();
        let (Some(now), Some(holder)) = (parts.next(), parts.next()) else {
            return Err(unexpected(OP, &Value::Nil));
        };
        let housekeeper = text(OP, holder)?;
        let mut runners = Vec::new();
        for part in parts {
            let [id, expires, info] = <[Value; 3]>::try_from(array(OP, part)?)
                .map_err(|v| unexpected(OP, &Value::Array(v)))?;
            let id = text(OP, id)?.unwrap_or_default();
            let info = bytes(OP, info)?
                .and_then(|b| serde_json::from_slice(&b).ok())
                .unwrap_or(serde_json::Value::Null);
            runners.push(RunnerEntry {
                housekeeper: housekeeper.as_deref() == Some(id.as_str()),
                id,
                expires_ms: int(OP, &expires)?.max(0) as u64,
                info,
            });
        }
        Ok(Runners {
            now_ms: int(OP, &now)?.max(0) as u64,
            housekeeper,
            runners,
        })
    }
}

fn validate_runner_id(id: &str) -> Result<()> {
    if id.is_empty() || id.len() > 256 {
        return Err(Error::invalid("id", "must be 1 to 256 bytes"));
    }
    Ok(())
}

fn positive_ms(argument: &'static str, d: Duration) -> Result<u64> {
    let ms = policy::duration_ms(argument, d)?;
    if ms == 0 {
        return Err(Error::invalid(argument, "must be at least 1 ms"));
    }
    Ok(ms)
}
