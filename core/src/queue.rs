//! `Queue`: the operations of the protocol on one prefix (spec/PROTOCOL.md, "Operations").

use std::sync::Arc;
use std::time::{Duration, Instant};

use redis::{Script, ScriptInvocation, Value};

use crate::client::Client;
use crate::connection::Conn;
use crate::error::{Error, Result};
use crate::item::{validate_data, validate_id, Item};
use crate::keys::QueueKeys;
use crate::lease::{ttl_millis, Lease, RenewOutcome, Wait};
use crate::scripts;

/// How many items one add script call carries; a larger batch becomes several calls sent in one
/// pipeline (still one round trip), so that no single call holds Redis for long.
const ADD_CHUNK: usize = 1000;
/// Pause between retries of a blocking lease whose connection broke (Redis restarting).
const RECONNECT_PAUSE_MIN: Duration = Duration::from_millis(50);
const RECONNECT_PAUSE_MAX: Duration = Duration::from_secs(1);
/// The longest single BLMOVE of a blocking lease; a longer wait is several, back to back.
const WAIT_SLICE: Duration = Duration::from_secs(10);
/// How long past a BLMOVE's own timeout the client waits for its answer.
const WAIT_GRACE: Duration = Duration::from_secs(5);

/// One queue: the keys under one prefix. Cheap to clone; clones share the client.
#[derive(Clone, Debug)]
pub struct Queue {
    client: Client,
    keys: Arc<QueueKeys>,
}

/// What one lease script call found.
enum Leased {
    Got(Lease),
    Empty,
    /// The script dropped its quota of stale ids; call again.
    More,
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

    /// An invocation of `script` with the five protocol keys already in place.
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

    /// Adds `item` unless an item with its id exists (queued, leased, or not yet complete).
    /// Returns whether it was added. Storing the data and queueing the id happen in one script,
    /// so no crash leaves one without the other. One round trip.
    pub async fn add(&self, item: &Item) -> Result<bool> {
        validate_data(item.data())?;
        let mut inv = self.invocation(&scripts::ADD);
        inv.arg(item.id()).arg(item.data());
        Ok(self.invoke::<i64>(&inv).await? == 1)
    }

    /// Adds `item` without checking whether its id exists: the caller guarantees a fresh id (a
    /// random UUID from [`Item::new`] is). Adding an existing id overwrites its data and queues
    /// it twice. One round trip.
    pub async fn add_unique(&self, item: &Item) -> Result<()> {
        validate_data(item.data())?;
        let mut inv = self.invocation(&scripts::ADD_UNIQUE);
        inv.arg(item.id()).arg(item.data());
        self.invoke::<i64>(&inv).await.map(drop)
    }

    /// Adds every item whose id does not exist yet, as [`Queue::add`] would, and returns how
    /// many were added. One round trip for the whole batch; each item is added atomically. An
    /// empty batch sends nothing.
    pub async fn add_batch(&self, items: &[Item]) -> Result<usize> {
        for item in items {
            validate_data(item.data()).map_err(|_| {
                Error::invalid(
                    "items",
                    format!("item `{}` has data over the size limit", item.id()),
                )
            })?;
        }
        if items.is_empty() {
            return Ok(0);
        }
        let script: &Script = &scripts::ADD;
        let chunks: Vec<&[Item]> = items.chunks(ADD_CHUNK).collect();
        let mut conn = self.conn()?;
        let mut added = 0i64;
        let mut pending: Vec<usize> = (0..chunks.len()).collect();
        // At most twice: a chunk refused with NOSCRIPT (Redis restarted or flushed its scripts)
        // was not run, so it is sent again after loading the script; others are not resent.
        for attempt in 0..2 {
            let mut pipe = redis::pipe();
            pipe.ignore_errors();
            for &i in &pending {
                let cmd = pipe.cmd("EVALSHA").arg(script.get_hash()).arg(5);
                for key in self.keys.script_keys() {
                    cmd.arg(key);
                }
                for item in chunks[i] {
                    cmd.arg(item.id()).arg(item.data());
                }
            }
            let replies: Vec<Value> = pipe
                .query_async(&mut conn)
                .await
                .map_err(|e| self.map_err(e))?;
            let mut refused = Vec::new();
            for (&i, reply) in pending.iter().zip(replies) {
                match reply {
                    Value::Int(n) => added += n,
                    Value::ServerError(e) if e.code() == "NOSCRIPT" && attempt == 0 => {
                        refused.push(i)
                    }
                    Value::ServerError(e) => {
                        return Err(self.map_err(redis::RedisError::from(e)));
                    }
                    other => return Err(unexpected("add", &other)),
                }
            }
            if refused.is_empty() {
                break;
            }
            script
                .load_async(&mut conn)
                .await
                .map_err(|e| self.map_err(e))?;
            pending = refused;
        }
        Ok(added as usize)
    }

    /// Leases the next item for `ttl`. With [`Wait::No`] this is one round trip and returns
    /// `None` when the queue is empty. Otherwise it waits server-side (BLMOVE on a connection of
    /// its own, never polling) until an item arrives, the timeout passes (`None`), or the client
    /// is closed ([`Error::Closed`]). A wait survives Redis restarts: it reconnects and goes on.
    ///
    /// The item never leaves the lists outside the lease script: the wait only watches the queue,
    /// so no cleaner can see a half-taken item.
    pub async fn lease(&self, ttl: Duration, wait: Wait) -> Result<Option<Lease>> {
        let ttl_ms = ttl_millis(ttl)?;
        let deadline = match wait {
            Wait::Timeout(d) => Some(
                Instant::now()
                    .checked_add(d)
                    .ok_or_else(|| Error::invalid("timeout", "is too long"))?,
            ),
            _ => None,
        };
        let mut pause = RECONNECT_PAUSE_MIN;
        loop {
            match self.try_lease(ttl_ms).await {
                Ok(Some(lease)) => return Ok(Some(lease)),
                Ok(None) if wait == Wait::No => return Ok(None),
                Ok(None) => {}
                Err(e) if wait != Wait::No && e.is_retryable() && !past(deadline) => {
                    self.pause_before_retry(&mut pause, deadline).await?;
                    continue;
                }
                Err(e) => return Err(e),
            }
            let remaining = match deadline {
                Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => Some(left),
                    _ => return Ok(None),
                },
                None => None,
            };
            match self.wait_for_item(remaining).await {
                Ok(()) => pause = RECONNECT_PAUSE_MIN,
                Err(e) if e.is_retryable() => {
                    self.client.connections().forget_waiters();
                    if past(deadline) {
                        return Err(e);
                    }
                    self.pause_before_retry(&mut pause, deadline).await?;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Sleeps before retrying after a connection error, unless the deadline or a close comes
    /// first.
    async fn pause_before_retry(
        &self,
        pause: &mut Duration,
        deadline: Option<Instant>,
    ) -> Result<()> {
        let mut closed = self.client.closed_signal();
        let sleep = match deadline {
            Some(d) => (*pause).min(d.saturating_duration_since(Instant::now())),
            None => *pause,
        };
        tokio::select! {
            _ = tokio::time::sleep(sleep) => {}
            _ = closed.wait_for(|c| *c) => return Err(Error::Closed),
        }
        *pause = (*pause * 2).min(RECONNECT_PAUSE_MAX);
        Ok(())
    }

    /// One lease attempt: the lease script, called again while it reports dropped stale ids.
    async fn try_lease(&self, ttl_ms: u64) -> Result<Option<Lease>> {
        loop {
            let token = new_token();
            let mut inv = self.invocation(&scripts::LEASE);
            inv.arg(&token).arg(ttl_ms);
            let value: Value = self.invoke(&inv).await?;
            match parse_leased(value, token)? {
                Leased::Got(lease) => return Ok(Some(lease)),
                Leased::Empty => return Ok(None),
                Leased::More => continue,
            }
        }
    }

    /// Blocks until the queue holds an item (or `timeout` passes) without taking it:
    /// `BLMOVE queue queue RIGHT RIGHT` rotates the last element onto itself. One BLMOVE waits
    /// at most [`WAIT_SLICE`], and the client gives it [`WAIT_GRACE`] more before it calls the
    /// connection dead, so a silently broken connection (no RST) is noticed.
    async fn wait_for_item(&self, timeout: Option<Duration>) -> Result<()> {
        let mut closed = self.client.closed_signal();
        if *closed.borrow() {
            return Err(Error::Closed);
        }
        let connections = self.client.connections();
        let mut conn = connections
            .take_waiter()
            .await
            .map_err(|e| self.map_err(e))?;
        let slice = timeout.map_or(WAIT_SLICE, |d| d.min(WAIT_SLICE));
        let seconds = slice.as_secs_f64().max(0.001);
        let mut cmd = redis::cmd("BLMOVE");
        cmd.arg(&self.keys.queue)
            .arg(&self.keys.queue)
            .arg("RIGHT")
            .arg("RIGHT")
            .arg(format!("{seconds:.3}"));
        let wait = tokio::time::timeout(slice + WAIT_GRACE, cmd.query_async::<Value>(&mut conn));
        tokio::select! {
            reply = wait => {
                match reply {
                    Ok(reply) => reply.map_err(|e| self.map_err(e))?,
                    Err(_) => return Err(Error::Timeout(redis::RedisError::from((
                        redis::ErrorKind::Io,
                        "blocking wait got no answer",
                    )))),
                };
                connections.return_waiter(conn);
                Ok(())
            }
            // Dropping the connection with its BLMOVE pending ends the wait server-side too.
            _ = closed.wait_for(|c| *c) => Err(Error::Closed),
        }
    }

    /// Completes the leased item: removes its data, its id from processing, its lease and its
    /// lease count. Returns true for exactly one caller per item, ever: the first to complete,
    /// even if its lease had expired and another worker holds the item now (that worker's
    /// `renew` and `complete` then return false). One round trip.
    pub async fn complete(&self, lease: &Lease) -> Result<bool> {
        let mut inv = self.invocation(&scripts::COMPLETE);
        inv.arg(&lease.wire_id);
        Ok(self.invoke::<i64>(&inv).await? == 1)
    }

    /// Completes `lease` and leases the next item for `ttl` in the same round trip (the next
    /// lease does not wait: `None` when the queue is empty). Returns (completed, next).
    pub async fn complete_and_lease(
        &self,
        lease: &Lease,
        ttl: Duration,
    ) -> Result<(bool, Option<Lease>)> {
        let ttl_ms = ttl_millis(ttl)?;
        let token = new_token();
        let mut inv = self.invocation(&scripts::COMPLETE_AND_LEASE);
        inv.arg(&lease.wire_id).arg(&token).arg(ttl_ms);
        let value: Value = self.invoke(&inv).await?;
        let Value::Array(mut parts) = value else {
            return Err(unexpected("complete_and_lease", &value));
        };
        if parts.len() != 2 {
            return Err(unexpected("complete_and_lease", &Value::Array(parts)));
        }
        let next = parts.pop().unwrap_or(Value::Nil);
        let completed = matches!(parts.pop(), Some(Value::Int(1)));
        let next = match parse_leased(next, token)? {
            Leased::Got(lease) => Some(lease),
            Leased::Empty => None,
            // The complete is done and must be reported; if the follow-up lease fails, the
            // caller's next `lease` meets the same error.
            Leased::More => self.try_lease(ttl_ms).await.unwrap_or(None),
        };
        Ok((completed, next))
    }

    /// Extends the lease to `ttl` from now, only while it is still this holder's (its token
    /// matches). Returns false when the lease expired, another worker took the item, or the item
    /// is complete; [`Queue::renew_outcome`] says which. One round trip.
    pub async fn renew(&self, lease: &Lease, ttl: Duration) -> Result<bool> {
        Ok(self.renew_outcome(lease, ttl).await? == RenewOutcome::Renewed)
    }

    /// Like [`Queue::renew`], saying why a renewal failed.
    pub async fn renew_outcome(&self, lease: &Lease, ttl: Duration) -> Result<RenewOutcome> {
        let ttl_ms = ttl_millis(ttl)?;
        let mut inv = self.invocation(&scripts::RENEW);
        inv.arg(&lease.wire_id).arg(&lease.token).arg(ttl_ms);
        Ok(match self.invoke::<i64>(&inv).await? {
            1 => RenewOutcome::Renewed,
            -1 => RenewOutcome::TakenByAnother,
            -2 => RenewOutcome::Completed,
            _ => RenewOutcome::Expired,
        })
    }

    /// How many ids wait in the queue (stale ids of completed items included until a lease or a
    /// clean drops them).
    pub async fn queue_len(&self) -> Result<u64> {
        self.llen(&self.keys.queue).await
    }

    /// How many ids are in processing: leased, or left by crashed workers until a light clean.
    pub async fn processing_len(&self) -> Result<u64> {
        self.llen(&self.keys.processing).await
    }

    async fn llen(&self, key: &str) -> Result<u64> {
        let mut conn = self.conn()?;
        redis::cmd("LLEN")
            .arg(key)
            .query_async(&mut conn)
            .await
            .map_err(|e| self.map_err(e))
    }

    /// A lease the caller rebuilt from parts it kept (for example across a process boundary).
    /// `renew` checks the token; `complete` needs only the id.
    pub fn lease_from_parts(&self, id: &str, token: &str, count: u64) -> Result<Lease> {
        validate_id(id)?;
        if token.is_empty() {
            return Err(Error::invalid("token", "must not be empty"));
        }
        Ok(Lease {
            id: id.to_owned(),
            wire_id: id.as_bytes().to_vec(),
            data: Vec::new(),
            token: token.to_owned(),
            count,
        })
    }
}

fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

fn new_token() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

fn parse_leased(value: Value, token: String) -> Result<Leased> {
    match value {
        Value::Nil => Ok(Leased::Empty),
        Value::Int(1) => Ok(Leased::More),
        Value::Array(parts) => match <[Value; 3]>::try_from(parts) {
            Ok([Value::BulkString(id), Value::BulkString(data), Value::Int(count)]) => {
                Ok(Leased::Got(Lease {
                    id: String::from_utf8_lossy(&id).into_owned(),
                    wire_id: id,
                    data,
                    token,
                    count: count.max(0) as u64,
                }))
            }
            Ok(parts) => Err(unexpected("lease", &Value::Array(parts.into()))),
            Err(parts) => Err(unexpected("lease", &Value::Array(parts))),
        },
        other => Err(unexpected("lease", &other)),
    }
}

pub(crate) fn unexpected(op: &str, value: &Value) -> Error {
    Error::Redis(redis::RedisError::from((
        redis::ErrorKind::UnexpectedReturnType,
        "unexpected reply",
        format!("{op} script returned {value:?}"),
    )))
}
