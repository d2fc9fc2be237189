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
    /// kept before the wait began answers no wait whose first read finds an item of the id in
    /// the queue (it is an earlier incarnation's), even once that item ended without a result
    /// (spec 5.11): add, then wait.
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
        // P:dead's score, a bulk string from the function; nil while the item is not dead.
        let died = match text(OP, died)? {
            None => None,
            Some(at) => Some(
                at.parse::<f64>()
                    .map_err(|_| unexpected(OP, &Value::BulkString(at.into_bytes())))?
                    .max(0.0) as u64,
            ),
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

/// What one wait for a result has seen (spec 5.11): whether it read yet, and the results its
/// first read found stale, per queue it reads (one, or each partition of a partitioned queue,
/// always in the same order). A result there at the first read while an item of the id is live
/// (anywhere) was kept before that item was added: it is an earlier incarnation's, and answers
/// no wait, even once that item ended without a result. A result that appears later was kept
/// during the wait, so it answers, whatever is live by then.
#[derive(Default)]
pub(crate) struct Watch {
    read: bool,
    stale: Vec<Option<JobResult>>,
}

impl Watch {
    /// The wait's answer from `outcomes`, one per queue read (the id's own partition's first):
    /// the first result that is not stale, unless no queue holds a live item of the id and the
    /// newest death is at or after that result: then that death's [`Error::Dead`]. `None`: wait
    /// on.
    pub(crate) fn answer(&mut self, outcomes: Vec<Outcome>) -> Result<Option<JobResult>> {
        let live = outcomes.iter().any(|o| o.live);
        if !self.read {
            self.read = true;
            self.stale = outcomes
                .iter()
                .map(|o| o.result.clone().filter(|_| live))
                .collect();
        }
        let mut found: Option<JobResult> = None;
        let mut died: Option<(u64, Error)> = None;
        for (i, o) in outcomes.into_iter().enumerate() {
            let stale = self.stale.get(i).and_then(Option::as_ref);
            if found.is_none() {
                found = o.result.filter(|r| stale != Some(r));
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

#[cfg(test)]
mod tests {
    use super::{Outcome, Watch};
    use crate::error::Error;
    use crate::job::JobResult;

    fn result(data: &str, finished_at: u64) -> JobResult {
        JobResult {
            data: data.as_bytes().to_vec(),
            finished_at,
            attempts: 1,
            added_at: None,
            name: None,
        }
    }

    fn read(result: Option<JobResult>, live: bool, died: Option<u64>) -> Outcome {
        Outcome {
            result,
            live,
            dead: died.map(|at| {
                (
                    at,
                    Error::Dead {
                        id: "x".into(),
                        reason: "failed once".into(),
                    },
                )
            }),
        }
    }

    fn data(answer: crate::error::Result<Option<JobResult>>) -> Option<String> {
        answer.unwrap().map(|r| String::from_utf8(r.data).unwrap())
    }

    #[test]
    fn a_result_there_with_no_live_item_at_the_first_read_answers() {
        let mut w = Watch::default();
        assert_eq!(
            data(w.answer(vec![read(Some(result("old", 1)), false, None)])),
            Some("old".into())
        );
    }

    #[test]
    fn a_result_there_at_the_first_read_beside_a_live_item_is_stale_for_good() {
        let mut w = Watch::default();
        let old = || Some(result("old", 1));
        assert_eq!(data(w.answer(vec![read(old(), true, None)])), None);
        // The live item ended without a result: the old one still answers nothing.
        assert_eq!(data(w.answer(vec![read(old(), false, None)])), None);
        assert_eq!(
            data(w.answer(vec![read(Some(result("new", 2)), false, None)])),
            Some("new".into())
        );
    }

    #[test]
    fn a_result_kept_during_the_wait_answers_though_the_id_is_live_again() {
        let mut w = Watch::default();
        assert_eq!(data(w.answer(vec![read(None, true, None)])), None);
        // The item the wait saw completed, and the id was added again before the next read.
        assert_eq!(
            data(w.answer(vec![read(Some(result("r1", 2)), true, None)])),
            Some("r1".into())
        );
    }

    #[test]
    fn over_partitions_a_result_kept_during_the_wait_answers_whatever_is_live_elsewhere() {
        let mut w = Watch::default();
        assert_eq!(
            data(w.answer(vec![read(None, false, None), read(None, false, None)])),
            None
        );
        let second = vec![
            read(None, true, None),
            read(Some(result("rb", 2)), false, None),
        ];
        assert_eq!(data(w.answer(second)), Some("rb".into()));
        // A stale result in one partition (there at the first read, a copy live) is skipped for
        // another partition's.
        let mut w = Watch::default();
        let first = vec![
            read(Some(result("old", 1)), false, None),
            read(None, true, None),
        ];
        assert_eq!(data(w.answer(first)), None);
        let later = vec![
            read(Some(result("old", 1)), false, None),
            read(Some(result("new", 3)), false, None),
        ];
        assert_eq!(data(w.answer(later)), Some("new".into()));
    }

    #[test]
    fn a_death_newer_than_any_result_ends_the_wait_unless_a_copy_is_live() {
        let mut w = Watch::default();
        let dead = w.answer(vec![read(Some(result("old", 1)), false, Some(5))]);
        assert!(matches!(dead, Err(Error::Dead { .. })), "{dead:?}");
        let mut w = Watch::default();
        let older = w.answer(vec![read(Some(result("later", 9)), false, Some(5))]);
        assert_eq!(data(older), Some("later".into()));
        let mut w = Watch::default();
        let copies = vec![read(None, false, Some(5)), read(None, true, None)];
        assert_eq!(
            data(w.answer(copies)),
            None,
            "a live copy elsewhere is waited for"
        );
    }
}
