//! Kept results: read one, or wait for it server-side (spec/PROTOCOL.md, 5.11).

use redis::Value;

use crate::conn::{Deadline, Schedule, Verdict, Waiter};
use crate::error::{Error, Result};
use crate::item::validate_id_bytes;
use crate::job::JobResult;
use crate::lease::Wait;
use crate::queue::Queue;

use super::inspect::parse_result;

impl Queue {
    /// The result kept for item `id`, if it completed with one and the result has not expired.
    /// The id is bytes (`&str` works too). One round trip.
    pub async fn result(&self, id: impl AsRef<[u8]>) -> Result<Option<JobResult>> {
        let id = id.as_ref();
        validate_id_bytes(id)?;
        self.read_result(&self.result_key(id)).await
    }

    /// Waits for item `id`'s result, server-side (a BLMOVE rotation on the result key, on a
    /// connection of its own: no polling). `wait` is a [`Wait`] or a
    /// [`Duration`](std::time::Duration): [`Wait::Timeout`] (or a duration) waits up to that
    /// long, [`Wait::Forever`] until the result comes or the client is closed
    /// ([`Error::Closed`]), [`Wait::No`] (or a zero duration) only reads it. `None` when the
    /// wait ends first. The item must be completed with a result; a failed or cancelled item
    /// gives none.
    pub async fn wait_result(
        &self,
        id: impl AsRef<[u8]>,
        wait: impl Into<Wait>,
    ) -> Result<Option<JobResult>> {
        let id = id.as_ref();
        validate_id_bytes(id)?;
        let deadline = Deadline::of(wait.into())?;
        // Over maxmemory, where BLMOVE is refused: a read every second instead.
        let mut waiter = Waiter::new(
            self.handle(),
            self.prefix(),
            deadline,
            Schedule::RESULT_READ,
        );
        let key = self.result_key(id);
        // While the queue's events are on, the event stream (spec 5.11, 14): its position is
        // read before the result is read again, so a completion in between is not lost.
        if let Some(result) = self.read_result(&key).await? {
            return Ok(Some(result));
        }
        if deadline.passed() {
            return Ok(None);
        }
        {
            let page = self.read_events(None, 1).await?;
            if page.on {
                if let Some(result) = self.read_result(&key).await? {
                    return Ok(Some(result));
                }
                if let Ok(found) = self
                    .wait_result_by_events(id, &key, page.last, deadline)
                    .await?
                {
                    return Ok(found);
                }
            }
        }
        loop {
            let (result, stale) = self.read_result_or_stale(&key).await?;
            if let Some(result) = result {
                return Ok(Some(result));
            }
            let left = deadline.left();
            if left.is_some_and(|l| l.is_zero()) {
                return Ok(None);
            }
            if stale {
                // An earlier incarnation's result is kept while the id's new item is in the
                // queue: the key holds an element, so a BLMOVE on it would answer at once.
                // Read again every second instead, until the new result replaces it.
                waiter.pause().await?;
                continue;
            }
            match waiter.until_any(&key, None, left).await {
                Ok(()) => {}
                // Out of memory no result can be written either: read again after a pause.
                Err(e) if Verdict::of(&e) == Verdict::NoMemory => waiter.pause().await?,
                // A connection that did not answer within the slice and its grace: read again,
                // and wait on another.
                Err(Error::Timeout(_)) => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// `P:result:<id>`, the id's bytes as they are.
    pub(crate) fn result_key(&self, id: &[u8]) -> Vec<u8> {
        let mut key = self.keys().result_family.as_bytes().to_vec();
        key.extend_from_slice(id);
        key
    }

    /// The result kept under `key` (`P:result:<id>`), unless an item of that id is in the queue
    /// now (`P:item:<id>` or `P:job:<id>` exists): a kept result is then an earlier
    /// incarnation's, and reads as none (spec/PROTOCOL.md 5.11), so that `wait_result` after
    /// the id was added again waits for the new item's. One round trip: `EXISTS` of both, then
    /// `LRANGE`, pipelined (the same slot).
    pub(crate) async fn read_result(&self, key: &[u8]) -> Result<Option<JobResult>> {
        Ok(self.read_result_or_stale(key).await?.0)
    }

    /// [`Queue::read_result`], saying too whether a result is kept that reads as none (an
    /// earlier incarnation's).
    async fn read_result_or_stale(&self, key: &[u8]) -> Result<(Option<JobResult>, bool)> {
        let keys = self.keys();
        let id = key
            .strip_prefix(keys.result_family.as_bytes())
            .unwrap_or_default();
        let item = [keys.item_family.as_bytes(), id].concat();
        let job = [keys.job_family.as_bytes(), id].concat();
        let mut pipe = redis::pipe();
        pipe.cmd("EXISTS")
            .arg(&item)
            .arg(&job)
            .cmd("LRANGE")
            .arg(key)
            .arg(0)
            .arg(4);
        let mut conn = self.conn()?;
        let (live, value): (i64, Value) = pipe
            .query_async(&mut conn)
            .await
            .map_err(|e| self.map_err(e))?;
        let result = parse_result(value)?;
        if live > 0 {
            return Ok((None, result.is_some()));
        }
        Ok((result, false))
    }
}
