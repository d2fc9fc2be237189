//! Cancelling items, and dead letters: requeue and purge (spec/PROTOCOL.md, 5.13 and 5.14).
//! Each script call handles at most 1000 items; "all" loops, one bounded call at a time.

use crate::error::Result;
use crate::item::validate_id_bytes;
use crate::job::State;
use crate::policy::MAX_PAGE;
use crate::queue::Queue;
use crate::reply::text;
use crate::scripts;

impl Queue {
    /// Cancels item `id`: a waiting, delayed or dead item is removed; a leased one is marked,
    /// so that its holder's `renew`, `complete`, `fail` and `release` return false (outcome
    /// cancelled) and remove it, as does the expiry of its lease. Returns the state the item
    /// was in, or `None` when there was no item. The id is bytes (`&str` works too). One round
    /// trip.
    pub async fn cancel(&self, id: impl AsRef<[u8]>) -> Result<Option<State>> {
        let id = id.as_ref();
        validate_id_bytes(id)?;
        let mut inv = self.invocation(&scripts::CANCEL);
        inv.arg(id);
        let value: redis::Value = self.invoke(&inv).await?;
        match text("cancel", value)? {
            Some(state) => Ok(Some(State::parse(&state)?)),
            None => Ok(None),
        }
    }

    /// Puts these dead items back to waiting, with their attempts reset (ids that are not
    /// dead are skipped). Returns how many were requeued. Ids are bytes (`&str`, `String`,
    /// `Vec<u8>` work). At most 1000 ids, all checked before anything is sent; one round trip.
    pub async fn dead_requeue<I: AsRef<[u8]>>(&self, ids: &[I]) -> Result<u64> {
        crate::policy::validate_ids(ids)?;
        if ids.is_empty() {
            return Ok(0);
        }
        let mut inv = self.invocation(&scripts::DEAD);
        inv.arg("requeue");
        for id in ids {
            inv.arg(id.as_ref());
        }
        Ok(self.invoke::<i64>(&inv).await?.max(0) as u64)
    }

    /// Like [`Queue::dead_requeue`], saying for each id, in order, whether it was requeued:
    /// false when it was not a dead letter (no such item, or one in another state; an id given
    /// twice is false the second time). Tools use it to name the ids that were not found. At
    /// most 1000 ids, all checked before anything is sent; one round trip.
    pub async fn dead_requeue_each<I: AsRef<[u8]>>(&self, ids: &[I]) -> Result<Vec<bool>> {
        crate::policy::validate_ids(ids)?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut inv = self.invocation(&scripts::DEAD);
        inv.arg("requeue_each");
        for id in ids {
            inv.arg(id.as_ref());
        }
        let replies: Vec<i64> = self.invoke(&inv).await?;
        if replies.len() != ids.len() {
            return Err(crate::reply::unexpected(
                "dead_requeue_each",
                &redis::Value::Int(replies.len() as i64),
            ));
        }
        Ok(replies.into_iter().map(|r| r == 1).collect())
    }

    /// Requeues the `n` oldest dead items (attempts reset); `None` requeues them all, 1000 per
    /// round trip: as many as were dead when it began (one more round trip counts them), so
    /// that a dependant that dies again at once, its dependency still dead (spec/PROTOCOL.md
    /// 5.13), is not taken again. Returns how many were requeued.
    pub async fn dead_requeue_oldest(&self, n: Option<u64>) -> Result<u64> {
        let n = match n {
            Some(n) => n,
            None => self.count(State::Dead).await?,
        };
        self.dead_batches("requeue_oldest", Some(n)).await
    }

    /// Deletes the `n` oldest dead items; `None` deletes them all, 1000 per round trip.
    /// Returns how many were deleted.
    pub async fn dead_purge(&self, n: Option<u64>) -> Result<u64> {
        self.dead_batches("purge", n).await
    }

    async fn dead_batches(&self, action: &str, n: Option<u64>) -> Result<u64> {
        if n == Some(0) {
            return Ok(0);
        }
        let mut done = 0u64;
        loop {
            let want = n.map_or(MAX_PAGE as u64, |n| (n - done).min(MAX_PAGE as u64));
            let mut inv = self.invocation(&scripts::DEAD);
            inv.arg(action).arg(want);
            let got = self.invoke::<i64>(&inv).await?.max(0) as u64;
            done += got;
            if got < want || n.is_some_and(|n| done >= n) {
                return Ok(done);
            }
        }
    }
}
