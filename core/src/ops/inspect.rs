//! The read API: one item, a page of a state, a filtered stretch of one, counts, and stats
//! (spec/PROTOCOL.md, 5.12); and promote (5.22).
//! Every call is one round trip and bounded work in Redis, whatever the queue's size.

use std::collections::HashMap;
use std::time::Duration;

use redis::Value;

use crate::error::{Error, Result};
use crate::item::validate_id_bytes;
use crate::job::{Entry, Found, Job, JobResult, Minute, State, Stats};
use crate::policy::MAX_PAGE;
use crate::queue::Queue;
use crate::reply::{array, bytes, int, opt_u64, text, unexpected};
use crate::scripts;

impl Queue {
    /// Everything known about item `id`: its state, data, attempts, last error, progress,
    /// times, and its kept result. `None` when no item and no kept result has this id. The id is
    /// bytes (`&str` works too): an id another kind of client added need not be UTF-8.
    pub async fn get(&self, id: impl AsRef<[u8]>) -> Result<Option<Job>> {
        let id = id.as_ref();
        validate_id_bytes(id)?;
        let mut inv = self.invocation(&scripts::GET);
        inv.arg(id);
        let value: Value = self.invoke(&inv).await?;
        if value == Value::Nil {
            return Ok(None);
        }
        const OP: &str = "get";
        let [state, data, fields, ttl, result] = <[Value; 5]>::try_from(array(OP, value)?)
            .map_err(|v| unexpected(OP, &Value::Array(v)))?;
        let state = State::parse(&text(OP, state)?.unwrap_or_default())
            .map_err(|_| unexpected(OP, &Value::Nil))?;
        let mut map: HashMap<String, Vec<u8>> = HashMap::new();
        let mut flat = array(OP, fields)?.into_iter();
        while let (Some(k), Some(v)) = (flat.next(), flat.next()) {
            if let (Some(k), Some(v)) = (text(OP, k)?, bytes(OP, v)?) {
                map.insert(k, v);
            }
        }
        let field = |name: &str| {
            map.get(name)
                .map(|v| String::from_utf8_lossy(v).into_owned())
        };
        let ttl = int(OP, &ttl)?;
        let result = parse_result(result)?;
        // A done item's record is gone: what is known of it is what its result kept (5.10).
        let done = result.as_ref().filter(|_| state == State::Done);
        Ok(Some(Job {
            id: String::from_utf8_lossy(id).into_owned(),
            id_bytes: id.to_vec(),
            state,
            data: bytes(OP, data)?.unwrap_or_default(),
            attempts: done.map_or_else(
                || opt_u64(field("attempts").as_deref()).unwrap_or(0),
                |r| r.attempts,
            ),
            max_attempts: field("max_attempts").and_then(|m| m.parse().ok()),
            priority: field("priority").and_then(|p| p.parse().ok()).unwrap_or(0),
            group: field("group").map(|g| g.to_owned()),
            name: done.map_or_else(|| field("name"), |r| r.name.clone()),
            error: field("error").map(|e| (e, field("error_type").unwrap_or_default())),
            trace: field("trace").filter(|t| !t.is_empty()),
            dead_reason: field("reason"),
            progress: map.get("progress").cloned(),
            added_at: done.map_or_else(|| opt_u64(field("added").as_deref()), |r| r.added_at),
            due_at: opt_u64(field("due").as_deref()),
            leased_at: opt_u64(field("leased_at").as_deref()),
            lease_expires_at: opt_u64(field("lease_expires").as_deref()),
            finished_at: done.map_or_else(
                || opt_u64(field("finished").as_deref()),
                |r| Some(r.finished_at),
            ),
            result,
            lease_ttl: (ttl > 0).then(|| Duration::from_millis(ttl as u64)),
            cancelled: map.contains_key("cancelled"),
            depends_on: field("depends_on")
                .map(|d| d.split('\n').map(str::to_owned).collect())
                .unwrap_or_default(),
            on_dependency_failure: field("depends_on").map(|_| {
                if field("on_dependency_failure").as_deref() == Some("run") {
                    crate::OnDependencyFailure::Run
                } else {
                    crate::OnDependencyFailure::Fail
                }
            }),
            partition: None,
        }))
    }

    /// A page of the items in `state`: `count` (1 to 1000) entries from position `start`, in
    /// order: waiting in the order they will be leased (the waiting lists: items waiting in
    /// groups are not listed), delayed by due time, leased by lease expiry, dead oldest first,
    /// done (completed items whose result is kept) newest first. A done entry whose result
    /// expired, and the id of a waiting item that was cancelled (which stays in its list until a
    /// lease drops it), are skipped, their positions counted: so a page may hold fewer than
    /// `count` and more may follow it. One round trip.
    pub async fn list(&self, state: State, start: usize, count: usize) -> Result<Vec<Entry>> {
        crate::policy::validate_page(count)?;
        let mut inv = self.invocation(&scripts::LIST);
        inv.arg(state.as_str()).arg(start).arg(count);
        let value: Value = self.invoke(&inv).await?;
        entries("list", value)
    }

    /// The entries of `state` whose name is `name` and whose last error's type is
    /// `error_type` (`None`: any), looking at most at 1000 positions from `start` and
    /// returning at most `count` (1 to 1000) matches, with the position to go on from: bounded
    /// whatever the state's size, so a filter walks a long state in several calls. Done items
    /// keep no name or error: a filter on either finds none of them. One round trip.
    pub async fn find(
        &self,
        state: State,
        name: Option<&str>,
        error_type: Option<&str>,
        start: usize,
        count: usize,
    ) -> Result<Found> {
        crate::policy::validate_page(count)?;
        let mut inv = self.invocation(&scripts::LIST);
        inv.arg(state.as_str())
            .arg(start)
            .arg(MAX_PAGE)
            .arg(name.unwrap_or(""))
            .arg(error_type.unwrap_or(""))
            .arg(count);
        let value: Value = self.invoke(&inv).await?;
        const OP: &str = "find";
        let [examined, found] = <[Value; 2]>::try_from(array(OP, value)?)
            .map_err(|v| unexpected(OP, &Value::Array(v)))?;
        let examined = int(OP, &examined)?.max(0) as usize;
        let entries = entries(OP, found)?;
        // The script stops at the end of the state, at MAX_PAGE positions, or at `count`
        // matches: only the end leaves nothing to go on with.
        let more = examined == MAX_PAGE || (entries.len() == count && examined > 0);
        Ok(Found {
            entries,
            next: more.then_some(start + examined),
            examined,
        })
    }

    /// Makes the delayed item `id` wait now, at its priority (or in its group), as if it were
    /// due: `true`, or `false` when `id` is not delayed. One round trip.
    pub async fn promote(&self, id: impl AsRef<[u8]>) -> Result<bool> {
        let id = id.as_ref();
        validate_id_bytes(id)?;
        let mut inv = self.invocation(&scripts::PROMOTE);
        inv.arg(id);
        Ok(self.invoke::<i64>(&inv).await? == 1)
    }

    /// How many items are in `state`. Waiting counts ids in the waiting lists, stale ones
    /// included until a lease or clean drops them; done counts the index of kept results
    /// (at most 10,000), whose entries of expired results stay until a later complete that
    /// keeps a result drops them. One round trip.
    pub async fn count(&self, state: State) -> Result<u64> {
        let mut inv = self.invocation(&scripts::COUNT);
        inv.arg(state.as_str());
        Ok(self.invoke::<i64>(&inv).await?.max(0) as u64)
    }

    /// The positions [`Queue::list`] numbers in `state`: [`Queue::count`], but for waiting the
    /// ids in the waiting lists only (stale ones included), without the items waiting in groups,
    /// which `list` does not walk. For a partitioned queue's paging. One round trip.
    pub(crate) async fn listed(&self, state: State) -> Result<u64> {
        let mut inv = self.invocation(&scripts::COUNT);
        inv.arg(match state {
            State::Waiting => "waiting_listed",
            other => other.as_str(),
        });
        Ok(self.invoke::<i64>(&inv).await?.max(0) as u64)
    }

    /// Counts per state, the age of the oldest waiting item, and, when the queue's counters are
    /// on ([`QueueConfig::stats`](crate::QueueConfig)), completed, failed, dead and expired
    /// counts for each of the last 60 minutes. One round trip.
    pub async fn stats(&self) -> Result<Stats> {
        let inv = self.invocation(&scripts::STATS);
        let value: Value = self.invoke(&inv).await?;
        const OP: &str = "stats";
        let parts = array(OP, value)?;
        if parts.len() != 14 {
            return Err(unexpected(OP, &Value::Array(parts)));
        }
        let n = |i: usize| -> Result<i64> { int(OP, &parts[i]) };
        let mut minutes = Vec::new();
        for minute in array(OP, parts[7].clone())? {
            let c = array(OP, minute)?;
            let get = |i: usize| {
                c.get(i)
                    .map_or(Ok(0), |v| int(OP, v))
                    .map(|v| v.max(0) as u64)
            };
            minutes.push(Minute {
                completed: get(0)?,
                failed: get(1)?,
                dead: get(2)?,
                expired: get(3)?,
            });
        }
        let oldest = n(5)?;
        let minutes = (n(8)? == 1).then_some(minutes);
        Ok(Stats {
            waiting: n(0)?.max(0) as u64,
            delayed: n(1)?.max(0) as u64,
            leased: n(2)?.max(0) as u64,
            dead: n(3)?.max(0) as u64,
            processing: n(4)?.max(0) as u64,
            oldest_waiting: (oldest >= 0).then(|| Duration::from_millis(oldest as u64)),
            now: n(6)?.max(0) as u64,
            minutes,
            paused: n(9)? == 1,
            capacity: (n(10)? >= 0).then(|| n(10).unwrap_or(0) as u64),
            rate_limited_for: (n(11)? >= 0)
                .then(|| Duration::from_millis(n(11).unwrap_or(0) as u64)),
            blocked: n(12)?.max(0) as u64,
            schedules: n(13)?.max(0) as u64,
        })
    }

    /// Whether the queue exists: whether any of its fixed keys does (its lists and sets of items,
    /// its configuration, pause, groups, runners, ...; spec/PROTOCOL.md, 5.12), in one `EXISTS`.
    /// False for a queue never used (a mistyped name) and for one drained and left with only
    /// kept results and per-minute counters, where `count`, `list` and `stats` answer zero and
    /// nothing as they do for an empty queue. One round trip.
    pub async fn exists(&self) -> Result<bool> {
        let mut cmd = redis::cmd("EXISTS");
        for key in self.keys().fixed() {
            cmd.arg(key);
        }
        Ok(self.query::<i64>(&cmd).await? > 0)
    }

    /// Whether this prefix is a partitioned queue's base (its `<prefix>:partitions` holds a
    /// layout, spec/PROTOCOL.md 5.25), where calls that give work are refused. One round trip.
    pub(crate) async fn is_partitioned_base(&self) -> Result<bool> {
        let key = crate::partition::meta_key(self.prefix());
        Ok(self.query::<i64>(redis::cmd("EXISTS").arg(key)).await? > 0)
    }

    /// How many items wait, at every priority: the same as `count(State::Waiting)` (stale ids
    /// of completed items included until a lease or a clean drops them). Not redis-work-queue's
    /// `LLEN P:queue`, which misses every priority but 0. One round trip.
    pub async fn queue_len(&self) -> Result<u64> {
        self.count(State::Waiting).await
    }

    /// How many items are being processed: leased by leaseq (`P:leased`) plus those in
    /// redis-work-queue's `P:processing` list (its clients' leases, or left by them until a
    /// light clean). `count(State::Leased)` is leaseq's part. One round trip.
    pub async fn processing_len(&self) -> Result<u64> {
        let mut inv = self.invocation(&scripts::COUNT);
        inv.arg("in_progress");
        Ok(self.invoke::<i64>(&inv).await?.max(0) as u64)
    }
}

/// The entries of a `list` reply: `{id, time, attempts, error, error_type, name, reason}` each.
fn entries(op: &'static str, value: Value) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for entry in array(op, value)? {
        let [id, at, attempts, error, error_type, name, reason] =
            <[Value; 7]>::try_from(array(op, entry)?)
                .map_err(|v| unexpected(op, &Value::Array(v)))?;
        let error = text(op, error)?.filter(|e| !e.is_empty());
        let id = bytes(op, id)?.unwrap_or_default();
        entries.push(Entry {
            id: String::from_utf8_lossy(&id).into_owned(),
            id_bytes: id,
            at: u64::try_from(int(op, &at)?).ok(),
            attempts: int(op, &attempts)?.max(0) as u64,
            error: error
                .map(|e| Ok::<_, Error>((e, text(op, error_type.clone())?.unwrap_or_default())))
                .transpose()?,
            name: text(op, name)?.filter(|n| !n.is_empty()),
            reason: text(op, reason)?.filter(|r| !r.is_empty()),
            partition: None,
        });
    }
    Ok(entries)
}

/// A kept result: `{finished, attempts, result, added, name}` (spec/PROTOCOL.md, 5.11), or
/// `{finished, attempts, result}` as an earlier version kept it, or an empty list. Empty `added`
/// and `name` are unknown; elements after the fifth (a later version's) are not read.
pub(crate) fn parse_result(value: Value) -> Result<Option<JobResult>> {
    const OP: &str = "result";
    let parts = match value {
        Value::Nil => return Ok(None),
        other => array(OP, other)?,
    };
    if parts.is_empty() {
        return Ok(None);
    }
    if parts.len() < 3 {
        return Err(unexpected(OP, &Value::Array(parts)));
    }
    let mut parts = parts.into_iter();
    let mut next = || parts.next().unwrap_or(Value::Nil);
    let (finished, attempts, data, added, name) = (next(), next(), next(), next(), next());
    Ok(Some(JobResult {
        data: bytes(OP, data)?.unwrap_or_default(),
        finished_at: int(OP, &finished)?.max(0) as u64,
        attempts: int(OP, &attempts)?.max(0) as u64,
        added_at: opt_u64(text(OP, added)?.as_deref()),
        name: text(OP, name)?.filter(|n| !n.is_empty()),
    }))
}

#[cfg(test)]
mod tests {
    use redis::Value;

    use super::parse_result;

    fn bulk(text: &str) -> Value {
        Value::BulkString(text.as_bytes().to_vec())
    }

    #[test]
    fn a_result_kept_by_an_earlier_version_reads_with_no_time_added_or_name() {
        let old = Value::Array(vec![bulk("1700000000000"), bulk("2"), bulk("out")]);
        let r = parse_result(old).unwrap().unwrap();
        assert_eq!(
            (r.finished_at, r.attempts, r.data.as_slice()),
            (1_700_000_000_000, 2, &b"out"[..])
        );
        assert_eq!((r.added_at, r.name), (None, None));
    }

    #[test]
    fn a_kept_result_carries_its_time_added_and_name_when_known() {
        let five = |added: &str, name: &str| {
            Value::Array(vec![
                bulk("1700000000000"),
                bulk("1"),
                bulk("x"),
                bulk(added),
                bulk(name),
            ])
        };
        let r = parse_result(five("1699999999000", "email"))
            .unwrap()
            .unwrap();
        assert_eq!(
            (r.added_at, r.name.as_deref()),
            (Some(1_699_999_999_000), Some("email"))
        );
        let r = parse_result(five("", "")).unwrap().unwrap();
        assert_eq!((r.added_at, r.name), (None, None));
        // None kept, and a reply too short to be a result.
        assert_eq!(parse_result(Value::Array(vec![])).unwrap(), None);
        assert!(parse_result(Value::Array(vec![bulk("1"), bulk("2")])).is_err());
    }
}
