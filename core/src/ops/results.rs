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
use crate::scripts;

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
    /// nothing to tell it from one not added yet, so the wait goes on to its deadline. A result
    /// kept for an earlier incarnation of the id answers no wait while an item of the id is in
    /// the queue, nor afterwards once the wait saw one (spec 5.11): add, then wait.
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
        let mut watch = Watch::default();
        // While the queue's events are on, the event stream (spec 5.11, 14): its position is
        // read before the result is read again, so a completion in between is not lost.
        if let Some(result) = watch.answer(vec![self.read_outcome(id).await?])? {
            return Ok(Some(result));
        }
        if deadline.passed() {
            return Ok(None);
        }
        {
            let page = self.read_events(None, 1).await?;
            if page.on {
                if let Some(result) = watch.answer(vec![self.read_outcome(id).await?])? {
                    return Ok(Some(result));
                }
                if let Ok(found) = self
                    .wait_result_by_events(id, page.last, deadline, &mut watch)
                    .await?
                {
                    return Ok(found);
                }
            }
        }
        loop {
            if let Some(result) = watch.answer(vec![self.read_outcome(id).await?])? {
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

    /// What a wait for `id`'s result finds here (spec 5.11): the result kept for it, whether
    /// the item is a dead letter (when it died, and the [`Error::Dead`] that says why), and
    /// whether an item of the id is here in another state. One round trip: the `outcome`
    /// function reads them in one step, so that no complete or death lands between the reads.
    pub(crate) async fn read_outcome(&self, id: &[u8]) -> Result<Outcome> {
        const OP: &str = "wait_result";
        let mut inv = self.invocation(&scripts::OUTCOME);
        inv.arg(id);
        let reply: Value = self.invoke(&inv).await?;
        let [died, reason, error_type, error, live, result] =
            <[Value; 6]>::try_from(array(OP, reply)?)
                .map_err(|v| unexpected(OP, &Value::Array(v)))?;
        let died = match died {
            Value::Nil => None,
            Value::Double(at) => Some(at.max(0.0) as u64),
            other => text(OP, other)?
                .and_then(|t| t.parse::<f64>().ok())
                .map(|at| at.max(0.0) as u64),
        };
        let dead = match died {
            Some(at) => Some((at, dead_error(id, reason, error_type, error)?)),
            None => None,
        };
        Ok(Outcome {
            result: parse_result(result)?,
            live: int(OP, &live)? > 0 && dead.is_none(),
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
    /// Whether an item of the id is here in another state than dead.
    pub live: bool,
}

/// How many stale results a wait remembers per queue read: each is an earlier incarnation's
/// (the id added again while the wait went on).
const STALE_KEPT: usize = 4;

/// What one wait for a result has seen so far (spec 5.11), per queue it reads (one, or each
/// partition of a partitioned queue, always in the same order): the results that are an
/// earlier incarnation's. An id is unique in a queue while its item exists, so a result read
/// while an item of the id is in the same queue is stale; and so is every result read when the
/// wait first sees an item of the id anywhere (it was kept before that item was added, in its
/// queue or, for a copy in another partition, before the wait saw the copy). A stale result
/// answers no wait, even once the item ended without a result.
#[derive(Default)]
pub(crate) struct Watch {
    stale: Vec<Vec<JobResult>>,
    seen_live: bool,
}

impl Watch {
    /// The wait's answer from `outcomes`, one per queue read (the id's own partition's first):
    /// the first result that is not stale, unless no queue holds a live item of the id and the
    /// newest death is at or after that result: then that death's [`Error::Dead`]. `None`: wait
    /// on.
    pub(crate) fn answer(&mut self, outcomes: Vec<Outcome>) -> Result<Option<JobResult>> {
        if self.stale.len() < outcomes.len() {
            self.stale.resize_with(outcomes.len(), Vec::new);
        }
        let live = outcomes.iter().any(|o| o.live);
        let first_live = live && !self.seen_live;
        self.seen_live |= live;
        let mut found: Option<JobResult> = None;
        let mut died: Option<(u64, Error)> = None;
        for (o, stale) in outcomes.into_iter().zip(self.stale.iter_mut()) {
            let result = o.result.filter(|r| !stale.contains(r));
            match result {
                Some(r) if o.live || first_live => {
                    if stale.len() == STALE_KEPT {
                        stale.remove(0);
                    }
                    stale.push(r);
                }
                Some(r) if found.is_none() => found = Some(r),
                _ => {}
            }
            if let Some((at, e)) = o.dead {
                if died.as_ref().is_none_or(|(d, _)| at > *d) {
                    died = Some((at, e));
                }
            }
        }
        match died {
            Some((at, e)) if !live && found.as_ref().is_none_or(|r| at >= r.finished_at) => Err(e),
            _ => Ok(found),
        }
    }
}

/// The [`Error::Dead`] of dead item `id`, from its `reason`, `error_type` and `error` fields.
fn dead_error(id: &[u8], reason: Value, error_type: Value, error: Value) -> Result<Error> {
    const OP: &str = "wait_result";
    let (reason, error_type, error) = (text(OP, reason)?, text(OP, error_type)?, text(OP, error)?);
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
