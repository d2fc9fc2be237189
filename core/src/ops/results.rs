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
            if let Some(result) = self.read_result(&key).await? {
                return Ok(Some(result));
            }
            let left = deadline.left();
            if left.is_some_and(|l| l.is_zero()) {
                return Ok(None);
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

    pub(crate) async fn read_result(&self, key: &[u8]) -> Result<Option<JobResult>> {
        let value: Value = self
            .query(redis::cmd("LRANGE").arg(key).arg(0).arg(4))
            .await?;
        parse_result(value)
    }
}
