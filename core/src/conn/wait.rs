//! The server-side wait of blocking calls (spec/PROTOCOL.md, 6 and 5.11): block until a list
//! holds an element, without taking it (a `BLMOVE key key RIGHT RIGHT` rotation), in slices of
//! at most [`WAIT_SLICE`], on connections of the wait's own, until a deadline or a close.

use std::time::{Duration, Instant};

use redis::Value;

use super::{Conn, Handle, Ladder, Schedule, Verdict};
use crate::error::{Cause, Error, Result};
use crate::lease::Wait;

/// The longest single BLMOVE of a blocking wait; a longer wait is several, back to back.
const WAIT_SLICE: Duration = Duration::from_secs(10);
/// How often a wait for a result reads whether its item died (spec/PROTOCOL.md 5.11): a death
/// writes no result that would wake the wait.
pub(crate) const OUTCOME_CHECK: Duration = Duration::from_secs(1);
/// How long past a BLMOVE's own timeout the client waits for its answer.
const WAIT_GRACE: Duration = Duration::from_secs(5);

/// When a blocking call stops waiting, on the monotonic clock: never (`None`), now, or later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deadline(Option<Instant>);

impl Deadline {
    /// The deadline of a call given `wait`, from now: [`Wait::No`] is now, [`Wait::Forever`]
    /// none. A timeout too long for the clock is INVALID_ARGUMENT naming `timeout`.
    pub fn of(wait: Wait) -> Result<Deadline> {
        Ok(Deadline(match wait {
            Wait::No => Some(Instant::now()),
            Wait::Timeout(d) => Some(
                Instant::now()
                    .checked_add(d)
                    .ok_or_else(|| Error::invalid("timeout", "is too long"))?,
            ),
            Wait::Forever => None,
        }))
    }

    /// The instant, if there is a deadline.
    pub fn at(self) -> Option<Instant> {
        self.0
    }

    /// Whether the deadline has passed (never, without one).
    pub fn passed(self) -> bool {
        self.0.is_some_and(|d| Instant::now() >= d)
    }

    /// The time left until the deadline (zero once passed); `None` without one.
    pub fn left(self) -> Option<Duration> {
        self.0.map(|d| d.saturating_duration_since(Instant::now()))
    }
}

/// One blocking call's waiting: its deadline, its pauses after errors, and its server-side
/// waits on the client's dedicated connections. A close of the client ends a pause or a wait
/// at once with [`Error::Closed`].
pub(crate) struct Waiter<'a> {
    handle: &'a Handle,
    /// The queue's prefix, which a WRONGTYPE error names.
    prefix: &'a str,
    deadline: Deadline,
    ladder: Ladder,
}

impl<'a> Waiter<'a> {
    /// A waiter for a call of queue `prefix` on `handle`'s connections, until `deadline`,
    /// pausing on `schedule` after errors.
    pub fn new(
        handle: &'a Handle,
        prefix: &'a str,
        deadline: Deadline,
        schedule: Schedule,
    ) -> Waiter<'a> {
        Waiter {
            handle,
            prefix,
            deadline,
            ladder: Ladder::new(schedule),
        }
    }

    /// Sleeps the next pause of the ladder (never past the deadline) before a new try;
    /// [`Error::Closed`] if the client is closed meanwhile.
    pub async fn pause(&mut self) -> Result<()> {
        let mut closed = self.handle.closed_signal();
        let slept = self
            .ladder
            .pause(self.deadline.at(), closed.wait_for(|c| *c))
            .await;
        if slept {
            Ok(())
        } else {
            Err(Error::Closed)
        }
    }

    /// A wait ended normally: the next pause starts from the ladder's first rung again.
    pub fn worked(&mut self) {
        self.ladder.reset();
    }

    /// Blocks until `key` (or `also`, when given) holds an element, or `timeout` (at most
    /// [`WAIT_SLICE`]; `None`: the slice) passes. Each key gets a `BLMOVE key key RIGHT RIGHT`
    /// of its own, on a connection of its own; the first to answer ends the wait, its
    /// connection is kept for the next wait and the other dropped, which ends its BLMOVE
    /// server-side. A BLMOVE gets [`WAIT_GRACE`] past its own timeout before the client calls
    /// its connection dead (TIMEOUT), so a silently broken connection (no RST) is noticed.
    /// After an error that may mean a dead connection, the idle ones are dropped too.
    pub async fn until_any(
        &self,
        key: &[u8],
        also: Option<&[u8]>,
        timeout: Option<Duration>,
    ) -> Result<()> {
        let result = self.wait_on(key, also, timeout).await;
        if let Err(e) = &result {
            if Verdict::of(e).outcome_unknown() {
                self.handle.connections().forget_waiters();
            }
        }
        result
    }

    async fn wait_on(
        &self,
        key: &[u8],
        also: Option<&[u8]>,
        timeout: Option<Duration>,
    ) -> Result<()> {
        let mut closed = self.handle.closed_signal();
        if *closed.borrow() {
            return Err(Error::Closed);
        }
        let connections = self.handle.connections();
        let slice = timeout.map_or(WAIT_SLICE, |d| d.min(WAIT_SLICE));
        let first = self.take_waiter().await?;
        let second = match also {
            Some(also) => Some((self.take_waiter().await?, also)),
            None => None,
        };
        let first_wait = rotate(first, key, slice);
        let second_wait = async {
            match second {
                Some((conn, also)) => rotate(conn, also, slice).await,
                None => std::future::pending().await,
            }
        };
        let (reply, conn) = tokio::select! {
            answer = first_wait => answer,
            answer = second_wait => answer,
            // Dropping the connections with their BLMOVEs pending ends the waits server-side.
            _ = closed.wait_for(|c| *c) => return Err(Error::Closed),
        };
        match reply {
            Some(Ok(_)) => {
                connections.return_waiter(conn);
                Ok(())
            }
            Some(Err(e)) => Err(self.handle.map_err(e, self.prefix)),
            None => Err(Error::Timeout(Cause::io(
                "blocking wait got no answer",
                None,
            ))),
        }
    }

    /// Blocks until the stream `key` has an entry after `after` (`XREAD BLOCK ... COUNT
    /// count STREAMS key after`), or `timeout` (at most [`WAIT_SLICE`]; `None`: the slice)
    /// passes, on a connection of the wait's own, kept for the next wait: the event stream's
    /// followers (spec/PROTOCOL.md 14.3). Returns XREAD's reply (nil when the time passed).
    pub async fn until_stream(
        &self,
        key: &str,
        after: &str,
        count: usize,
        timeout: Option<Duration>,
    ) -> Result<Value> {
        let result = self.read_stream(key, after, count, timeout).await;
        if let Err(e) = &result {
            if Verdict::of(e).outcome_unknown() {
                self.handle.connections().forget_waiters();
            }
        }
        result
    }

    async fn read_stream(
        &self,
        key: &str,
        after: &str,
        count: usize,
        timeout: Option<Duration>,
    ) -> Result<Value> {
        let mut closed = self.handle.closed_signal();
        if *closed.borrow() {
            return Err(Error::Closed);
        }
        let slice = timeout.map_or(WAIT_SLICE, |d| d.min(WAIT_SLICE));
        let mut conn = self.take_waiter().await?;
        let cmd = stream_read(key, after, count, slice);
        let reply = tokio::select! {
            reply = tokio::time::timeout(slice + WAIT_GRACE, cmd.query_async::<Value>(&mut conn)) => reply,
            // Dropping the connection with its XREAD pending ends the wait server-side.
            _ = closed.wait_for(|c| *c) => return Err(Error::Closed),
        };
        match reply {
            Ok(Ok(value)) => {
                self.handle.connections().return_waiter(conn);
                Ok(value)
            }
            Ok(Err(e)) => Err(self.handle.map_err(e, self.prefix)),
            Err(_) => Err(Error::Timeout(Cause::io(
                "blocking wait got no answer",
                None,
            ))),
        }
    }

    /// [`Waiter::until_any`] over any number of keys, whose waits outlive it (a runner over
    /// several queues waits on each queue's `P:queue` and `P:wake` at once, spec/PROTOCOL.md
    /// 13.3): a BLMOVE per key of `keys` not already waiting in `kept`, each on a connection
    /// of its own, kept in flight after the first answer, so that the next wait (a runner's
    /// next look, spec/PROTOCOL.md 13.3) finds the others still waiting instead of opening a
    /// connection per key again. Returns the key that answered with an element, `None` when
    /// `timeout` (at most [`WAIT_SLICE`]) passed. A kept BLMOVE whose own slice passed is sent
    /// again if its key is still wanted. Dropping `kept` ends its waits (and their
    /// connections).
    pub async fn until_any_kept(
        &self,
        keys: &[Vec<u8>],
        timeout: Option<Duration>,
        kept: &mut KeptWaits,
    ) -> Result<Option<Vec<u8>>> {
        let wanted: Vec<_> = keys
            .iter()
            .map(|k| (k.clone(), rotation(k, WAIT_SLICE)))
            .collect();
        self.kept(&wanted, timeout, kept).await
    }

    /// [`Waiter::until_any_kept`] over event streams (a partitioned queue's follower,
    /// spec/PROTOCOL.md 14.3): an `XREAD BLOCK ... COUNT 1 STREAMS key after` per `(key,
    /// after)` of `streams`, kept in flight in `kept` after the first answer. Returns the key
    /// that has an entry after its `after`, `None` when `timeout` passed. A kept wait sent with
    /// an older `after` may answer for entries the caller has read already: the caller reads
    /// again and waits again, which costs a round trip, never an entry.
    pub async fn until_any_stream_kept(
        &self,
        streams: &[(&str, &str)],
        timeout: Option<Duration>,
        kept: &mut KeptWaits,
    ) -> Result<Option<Vec<u8>>> {
        let wanted: Vec<_> = streams
            .iter()
            .map(|(key, after)| {
                (
                    key.as_bytes().to_vec(),
                    stream_read(key, after, 1, WAIT_SLICE),
                )
            })
            .collect();
        self.kept(&wanted, timeout, kept).await
    }

    async fn kept(
        &self,
        wanted: &[(Vec<u8>, redis::Cmd)],
        timeout: Option<Duration>,
        kept: &mut KeptWaits,
    ) -> Result<Option<Vec<u8>>> {
        let result = self.wait_kept(wanted, timeout, kept).await;
        if let Err(e) = &result {
            if Verdict::of(e).outcome_unknown() {
                self.handle.connections().forget_waiters();
                *kept = KeptWaits::default();
            }
            // Closed: the waits' connections go now, not when their holder is dropped.
            if matches!(e, Error::Closed) {
                *kept = KeptWaits::default();
            }
        }
        result
    }

    async fn wait_kept(
        &self,
        wanted: &[(Vec<u8>, redis::Cmd)],
        timeout: Option<Duration>,
        kept: &mut KeptWaits,
    ) -> Result<Option<Vec<u8>>> {
        let mut closed = self.handle.closed_signal();
        if *closed.borrow() {
            return Err(Error::Closed);
        }
        for (key, cmd) in wanted {
            if !kept.keys.contains(key) {
                let conn = self.take_waiter().await?;
                kept.start(key.clone(), cmd.clone(), conn);
            }
        }
        let slice = tokio::time::sleep(timeout.map_or(WAIT_SLICE, |d| d.min(WAIT_SLICE)));
        tokio::pin!(slice);
        loop {
            let answer = tokio::select! {
                answer = kept.waits.join_next() => answer,
                _ = &mut slice => return Ok(None),
                _ = closed.wait_for(|c| *c) => return Err(Error::Closed),
            };
            let Some(joined) = answer else {
                // No key to wait on: nothing can answer before the time passes.
                (&mut slice).await;
                return Ok(None);
            };
            let Ok((key, (reply, conn))) = joined else {
                // A wait's task was cut (it never is, but for a panic): start afresh.
                *kept = KeptWaits::default();
                return Ok(None);
            };
            kept.keys.remove(&key);
            let again = wanted.iter().find(|(k, _)| *k == key);
            match (reply, again) {
                (Some(Ok(Value::Nil)), Some((_, cmd))) => kept.start(key, cmd.clone(), conn),
                (Some(Ok(Value::Nil)), None) => self.handle.connections().return_waiter(conn),
                (Some(Ok(_)), _) => {
                    self.handle.connections().return_waiter(conn);
                    return Ok(Some(key));
                }
                (Some(Err(e)), _) => {
                    // Named by the queue the key is of: a partition's, in a partitioned
                    // queue's wait.
                    let queue = queue_of_key(&key).unwrap_or(self.prefix);
                    return Err(self.handle.map_err(e, queue));
                }
                (None, _) => {
                    return Err(Error::Timeout(Cause::io(
                        "blocking wait got no answer",
                        None,
                    )))
                }
            }
        }
    }

    async fn take_waiter(&self) -> Result<Conn> {
        self.handle
            .connections()
            .take_waiter()
            .await
            .map_err(|e| self.handle.map_err(e, self.prefix))
    }
}

/// The queue prefix of a queue's key `key` (`<prefix>:<name>`, the name without a `:`), if it
/// is text.
fn queue_of_key(key: &[u8]) -> Option<&str> {
    let key = std::str::from_utf8(key).ok()?;
    key.rsplit_once(':').map(|(prefix, _)| prefix)
}

/// A kept wait's key, its answer ([`send`]) and its connection.
type Answered = (Vec<u8>, (Option<redis::RedisResult<Value>>, Conn));

/// Server-side waits that outlive one [`Waiter::until_any_kept`] (or
/// [`Waiter::until_any_stream_kept`]): a blocking command per key, each on a connection of
/// its own, answered or not yet.
#[derive(Default)]
pub(crate) struct KeptWaits {
    waits: tokio::task::JoinSet<Answered>,
    /// The keys with a wait in `waits`.
    keys: std::collections::HashSet<Vec<u8>>,
}

impl KeptWaits {
    /// Ends every wait, returning once their tasks have ended (their connections closed).
    pub(crate) async fn shutdown(&mut self) {
        self.waits.shutdown().await;
        self.keys.clear();
    }

    /// Starts `cmd`, a blocking wait on `key` of the longest slice, on `conn`.
    fn start(&mut self, key: Vec<u8>, cmd: redis::Cmd, conn: Conn) {
        self.keys.insert(key.clone());
        self.waits
            .spawn(async move { (key, send(conn, cmd, WAIT_SLICE).await) });
    }
}

/// `BLMOVE key key RIGHT RIGHT <slice>`: waits until `key` holds an element, taking none.
fn rotation(key: &[u8], slice: Duration) -> redis::Cmd {
    let seconds = slice.as_secs_f64().max(0.001);
    let mut cmd = redis::cmd("BLMOVE");
    cmd.arg(key)
        .arg(key)
        .arg("RIGHT")
        .arg("RIGHT")
        .arg(format!("{seconds:.3}"));
    cmd
}

/// `XREAD COUNT <count> BLOCK <slice> STREAMS key after`: waits until the stream `key` has an
/// entry after `after`.
fn stream_read(key: &str, after: &str, count: usize, slice: Duration) -> redis::Cmd {
    let mut cmd = redis::cmd("XREAD");
    cmd.arg("COUNT")
        .arg(count.max(1))
        .arg("BLOCK")
        .arg(slice.as_millis().max(1) as u64)
        .arg("STREAMS")
        .arg(key)
        .arg(after);
    cmd
}

/// One BLMOVE rotation of `key` on `conn`, for at most `slice`, which it hands back for reuse.
/// `None` when no answer came within the slice and its grace.
async fn rotate(
    conn: Conn,
    key: &[u8],
    slice: Duration,
) -> (Option<redis::RedisResult<Value>>, Conn) {
    send(conn, rotation(key, slice), slice).await
}

/// Sends `cmd`, a blocking command of at most `slice`, on `conn`, which it hands back for
/// reuse. `None` when no answer came within the slice and its grace.
async fn send(
    mut conn: Conn,
    cmd: redis::Cmd,
    slice: Duration,
) -> (Option<redis::RedisResult<Value>>, Conn) {
    let reply = tokio::time::timeout(slice + WAIT_GRACE, cmd.query_async::<Value>(&mut conn));
    (reply.await.ok(), conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_error_names_the_queue_of_its_key() {
        assert_eq!(queue_of_key(b"{jobs}:p1:events"), Some("{jobs}:p1"));
        assert_eq!(queue_of_key(b"a:b:c:wake"), Some("a:b:c"));
        assert_eq!(queue_of_key(b"nocolon"), None);
        assert_eq!(queue_of_key(b"\xff:events"), None);
    }

    #[test]
    fn a_deadline_follows_the_wait() {
        assert_eq!(Deadline::of(Wait::Forever).unwrap().left(), None);
        assert!(!Deadline::of(Wait::Forever).unwrap().passed());
        assert!(Deadline::of(Wait::No).unwrap().passed());
        assert_eq!(Deadline::of(Wait::No).unwrap().left(), Some(Duration::ZERO));
        let hour = Deadline::of(Wait::Timeout(Duration::from_secs(3600))).unwrap();
        assert!(!hour.passed());
        assert!(hour.left().is_some_and(|l| l > Duration::from_secs(3500)));
        let err = Deadline::of(Wait::Timeout(Duration::MAX)).unwrap_err();
        assert!(matches!(
            err,
            Error::InvalidArgument {
                argument: "timeout",
                ..
            }
        ));
    }
}
