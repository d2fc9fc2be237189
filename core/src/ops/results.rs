//! Kept results: read one, or wait for it server-side (spec/PROTOCOL.md, 5.11).

use redis::Value;

use crate::conn::{Deadline, Schedule, Verdict, Waiter, OUTCOME_CHECK};
use crate::error::{Error, Result};
use crate::item::validate_id_bytes;
use crate::job::JobResult;
use crate::lease::Wait;
use crate::queue::Queue;

use super::inspect::parse_result;
use crate::reply::{array, int, text, unexpected};

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
    /// wait ends first. A dead item ends the wait with [`Error::Dead`] (its reason and last
    /// error), within a second of its death: no result will come unless it is requeued. An item
    /// that ends otherwise without a result (completed without one, cancelled, purged) leaves
    /// nothing to tell it from one not added yet, so the wait goes on to its deadline.
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
        if let Some(result) = self.read_outcome(id, &key, false).await?.answer()? {
            return Ok(Some(result));
        }
        if deadline.passed() {
            return Ok(None);
        }
        {
            let page = self.read_events(None, 1).await?;
            if page.on {
                if let Some(result) = self.read_outcome(id, &key, false).await?.answer()? {
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
            if let Some(result) = self.read_outcome(id, &key, false).await?.answer()? {
                return Ok(Some(result));
            }
            let left = deadline.left();
            if left.is_some_and(|l| l.is_zero()) {
                return Ok(None);
            }
            // A death writes no result: slices of a second read whether the item died.
            let slice = left.map_or(OUTCOME_CHECK, |l| l.min(OUTCOME_CHECK));
            match waiter.until_any(&key, None, Some(slice)).await {
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

    /// What a wait for `id`'s result finds here (spec 5.11): the result kept under `key`, and
    /// whether the item is a dead letter (when it died, and the [`Error::Dead`] that says why).
    /// With `live`, also whether an item of the id is here in another state. One round trip,
    /// reads in this order: `ZSCORE P:dead X`, `HMGET P:job:X reason error_type error`, (`EXISTS
    /// P:item:X P:job:X P:data:X`,) `LRANGE P:result:X 0 4`. A complete that lands between them
    /// is seen by the last; a death, by the next read.
    pub(crate) async fn read_outcome(&self, id: &[u8], key: &[u8], live: bool) -> Result<Outcome> {
        const OP: &str = "wait_result";
        let family = |family: &str| [family.as_bytes(), id].concat();
        let mut pipe = redis::pipe();
        pipe.cmd("ZSCORE")
            .arg(&self.keys().dead)
            .arg(id)
            .cmd("HMGET")
            .arg(family(&self.keys().job_family))
            .arg("reason")
            .arg("error_type")
            .arg("error");
        if live {
            let prefix = self.prefix();
            pipe.cmd("EXISTS")
                .arg(family(&self.keys().item_family))
                .arg(family(&self.keys().job_family))
                .arg(family(&format!("{prefix}:data:")));
        }
        pipe.cmd("LRANGE").arg(key).arg(0).arg(4);
        let mut conn = self.conn()?;
        let mut replies: Vec<Value> = pipe
            .query_async(&mut conn)
            .await
            .map_err(|e| self.map_err(e))?;
        let unexpected_reply = |v: &[Value]| unexpected(OP, &Value::Array(v.to_vec()));
        if replies.len() != if live { 4 } else { 3 } {
            return Err(unexpected_reply(&replies));
        }
        let result = parse_result(replies.pop().unwrap_or(Value::Nil))?;
        let here = match live {
            true => int(OP, &replies.pop().unwrap_or(Value::Nil))? > 0,
            false => false,
        };
        let fields = replies.pop().unwrap_or(Value::Nil);
        let died = match replies.pop().unwrap_or(Value::Nil) {
            Value::Nil => None,
            Value::Double(at) => Some(at.max(0.0) as u64),
            other => Some(int(OP, &other)?.max(0) as u64),
        };
        let dead = match died {
            Some(at) => Some((at, dead_error(id, fields)?)),
            None => None,
        };
        Ok(Outcome {
            result,
            live: here && dead.is_none(),
            dead,
        })
    }

    pub(crate) async fn read_result(&self, key: &[u8]) -> Result<Option<JobResult>> {
        let value: Value = self
            .query(redis::cmd("LRANGE").arg(key).arg(0).arg(4))
            .await?;
        parse_result(value)
    }
}

/// What one read of an id's outcome found in one queue ([`Queue::read_outcome`], spec 5.11).
pub(crate) struct Outcome {
    /// The result kept for the id.
    pub result: Option<JobResult>,
    /// While the item is a dead letter: when it died (server clock, ms) and the error that ends
    /// a wait for it.
    pub dead: Option<(u64, Error)>,
    /// Whether an item of the id is here in another state than dead (read only when asked).
    pub live: bool,
}

impl Outcome {
    /// One queue's answer to a wait: the result, unless the item died at or after it was kept
    /// (the result is an earlier incarnation's): then [`Error::Dead`].
    pub(crate) fn answer(self) -> Result<Option<JobResult>> {
        match self.dead {
            Some((at, e)) if self.result.as_ref().is_none_or(|r| at >= r.finished_at) => Err(e),
            _ => Ok(self.result),
        }
    }
}

/// The [`Error::Dead`] of dead item `id`, from its `reason`, `error_type` and `error` fields
/// (an `HMGET` reply).
fn dead_error(id: &[u8], fields: Value) -> Result<Error> {
    const OP: &str = "wait_result";
    let mut fields = array(OP, fields)?.into_iter();
    let mut next = || text(OP, fields.next().unwrap_or(Value::Nil));
    let (reason, error_type, error) = (next()?, next()?, next()?);
    let mut reason = reason
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "dead".to_owned());
    let last = match (error_type.filter(|t| !t.is_empty()), error) {
        (Some(t), Some(e)) if !e.is_empty() => Some(format!("{t}: {e}")),
        (Some(t), _) => Some(t),
        (None, Some(e)) if !e.is_empty() => Some(e),
        _ => None,
    };
    if let Some(last) = last {
        reason.push_str(": ");
        reason.push_str(&last);
    }
    Ok(Error::Dead {
        id: String::from_utf8_lossy(id).into_owned(),
        reason,
    })
}
