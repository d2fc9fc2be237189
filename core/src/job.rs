//! What the read API returns: an item's state and record, list entries, results and stats.

use std::time::Duration;

/// The states of an item (spec/PROTOCOL.md, 8.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum State {
    /// In a waiting list: the next lease may take it.
    Waiting,
    /// Waiting for its due time.
    Delayed,
    /// Held by a worker.
    Leased,
    /// Failed for good, expired, or out of attempts; kept for a while for inspection or requeue.
    Dead,
    /// Completed, with its result kept.
    Done,
    /// Waiting for its dependencies to complete ([`crate::Item::depends_on`]; spec/PROTOCOL.md
    /// 5.24): no lease takes it until they have.
    Blocked,
}

impl State {
    /// The lower-case name used on the wire and by every binding.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Waiting => "waiting",
            State::Delayed => "delayed",
            State::Leased => "leased",
            State::Dead => "dead",
            State::Done => "done",
            State::Blocked => "blocked",
        }
    }

    /// The state named `name` (argument `state`).
    pub fn parse(name: &str) -> crate::Result<State> {
        Ok(match name {
            "waiting" => State::Waiting,
            "delayed" => State::Delayed,
            "leased" => State::Leased,
            "dead" => State::Dead,
            "done" => State::Done,
            "blocked" => State::Blocked,
            _ => {
                return Err(crate::Error::invalid(
                    "state",
                    format!("`{name}` is not one of waiting, delayed, leased, dead, done, blocked"),
                ))
            }
        })
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything the queue knows about one item ([`crate::Queue::get`]). Times are milliseconds
/// since the Unix epoch on the server's clock.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Job {
    /// The id (shown lossily when it is not UTF-8; [`Job::id_bytes`] has its exact bytes).
    pub id: String,
    /// The id exactly as Redis holds it.
    pub id_bytes: Vec<u8>,
    /// Where the item is.
    pub state: State,
    /// The data (empty for a done item: its data is not kept, only its result; say so rather
    /// than show empty data).
    pub data: Vec<u8>,
    /// Leases so far (a done item's: those its kept result counts).
    pub attempts: u64,
    /// The item's own max attempts, if it has one.
    pub max_attempts: Option<u32>,
    /// The item's priority.
    pub priority: i32,
    /// The last failure's message and type.
    pub error: Option<(String, String)>,
    /// The last failure's traceback, stack or error chain, when it gave one (at most 16 KiB;
    /// spec/PROTOCOL.md 2, 5.6).
    pub trace: Option<String>,
    /// Why it is dead.
    pub dead_reason: Option<String>,
    /// The last progress value a holder stored.
    pub progress: Option<Vec<u8>>,
    /// The kept result, for a done item (or one whose earlier incarnation kept one).
    pub result: Option<JobResult>,
    /// When it was added (items added with options only; a done item's, from its kept result).
    pub added_at: Option<u64>,
    /// When it is due (delayed items).
    pub due_at: Option<u64>,
    /// When the last lease began.
    pub leased_at: Option<u64>,
    /// When the current lease ends.
    pub lease_expires_at: Option<u64>,
    /// When it died, or when it completed.
    pub finished_at: Option<u64>,
    /// How long the current lease has left.
    pub lease_ttl: Option<Duration>,
    /// Marked cancelled while leased.
    pub cancelled: bool,
    /// The item's group ([`Item::group`](crate::Item::group)), if it has one.
    pub group: Option<String>,
    /// The item's name ([`Item::name`](crate::Item::name)), if it has one.
    pub name: Option<String>,
    /// The ids it was added to wait for ([`Item::depends_on`](crate::Item::depends_on)); those
    /// it still waits for are in [`crate::Queue::dependencies`].
    pub depends_on: Vec<String>,
    /// What happens to it when a dependency dies or is cancelled, when it has dependencies.
    pub on_dependency_failure: Option<crate::OnDependencyFailure>,
    /// Read from a partitioned queue ([`crate::Partitioned::get`]): the partition that holds
    /// it, as its index in [`crate::Partitioned::partitions`]. `None` from a plain queue.
    pub partition: Option<usize>,
}

/// A group of a queue ([`crate::Queue::group`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct GroupInfo {
    /// Its items waiting.
    pub waiting: u64,
    /// Its items leased now.
    pub leased: u64,
    /// How many of its items may be leased at once.
    pub limit: u64,
    /// Whether it is paused ([`crate::Queue::pause_group`]).
    pub paused: bool,
    /// While the group is at the groups' rate limit or held off
    /// ([`crate::Queue::rate_limit_group`]), the time left in its window (spec/PROTOCOL.md 5.21).
    pub rate_limited_for: Option<std::time::Duration>,
}

/// A kept result ([`crate::Queue::result`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct JobResult {
    /// The bytes the completing worker gave.
    pub data: Vec<u8>,
    /// When it completed (server clock, ms since the epoch).
    pub finished_at: u64,
    /// The attempt that completed it.
    pub attempts: u64,
    /// When the item was added (server clock, ms since the epoch), when it is known: items added
    /// with options record it; a result kept by an earlier version has none.
    pub added_at: Option<u64>,
    /// The item's name, when it had one (and the result was kept by a version that keeps it).
    pub name: Option<String>,
}

/// One line of [`crate::Queue::list`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Entry {
    /// The id (shown lossily when it is not UTF-8; [`Entry::id_bytes`] has its exact bytes).
    pub id: String,
    /// The id exactly as Redis holds it: pass it to `dead_requeue`, `cancel` or `get`.
    pub id_bytes: Vec<u8>,
    /// Due time (delayed), lease expiry (leased), time of death (dead) or time finished (done),
    /// in ms since the epoch; `None` for waiting items.
    pub at: Option<u64>,
    /// Leases so far.
    pub attempts: u64,
    /// The last failure's message and type, if any.
    pub error: Option<(String, String)>,
    /// The item's name (`Item::name`), when it has one (a done item's, as its kept result
    /// keeps it).
    pub name: Option<String>,
    /// Why a dead item died ([`Job::dead_reason`]), e.g. `lease expired 3 times` or
    /// `dependency a failed`, which carry no error of their own; `None` in other states.
    pub reason: Option<String>,
    /// Listed through a partitioned queue ([`crate::Partitioned::list`], `find`): the
    /// partition that holds it, as its index in [`crate::Partitioned::partitions`]. `None`
    /// from a plain queue.
    pub partition: Option<usize>,
}

/// What [`crate::Queue::find`] found: the matching entries of a bounded stretch of a state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Found {
    /// The entries that match, in the state's order.
    pub entries: Vec<Entry>,
    /// The position to go on from (`start` of the next call), or `None` once the end of the
    /// state was reached.
    pub next: Option<usize>,
    /// How many positions this call looked at (at most 1000), matching or not.
    pub examined: usize,
}

/// Counters for one minute ([`Stats::minutes`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Minute {
    /// Items completed.
    pub completed: u64,
    /// Failed attempts (each `fail`).
    pub failed: u64,
    /// Items that went dead.
    pub dead: u64,
    /// Leases that expired without their holder reporting.
    pub expired: u64,
}

/// A queue's figures, read in one round trip ([`crate::Queue::stats`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Ids in the waiting lists (stale ids included until a lease or clean drops them).
    pub waiting: u64,
    /// Delayed items.
    pub delayed: u64,
    /// Items leased by leaseq clients.
    pub leased: u64,
    /// Dead letters.
    pub dead: u64,
    /// Ids in `processing`: leased by redis-work-queue clients, or left by them.
    pub processing: u64,
    /// Age of the oldest waiting item, when known.
    pub oldest_waiting: Option<Duration>,
    /// The server's clock when the figures were read (ms since the epoch).
    pub now: u64,
    /// The last 60 minutes, oldest first; the last is the current minute, so far. `None` while
    /// the queue's counters are off (the default: [`QueueConfig::stats`](crate::QueueConfig)),
    /// so that "not counted" never reads as "nothing happened".
    pub minutes: Option<Vec<Minute>>,
    /// Whether the queue is paused ([`Queue::pause`](crate::Queue::pause)).
    pub paused: bool,
    /// The queue's capacity (waiting and delayed items at most), when it is bounded.
    pub capacity: Option<u64>,
    /// While the queue is at its rate limit, or held off ([`Queue::rate_limit`]), how long
    /// until leases go on.
    ///
    /// [`Queue::rate_limit`]: crate::Queue::rate_limit
    pub rate_limited_for: Option<Duration>,
    /// Items waiting for their dependencies ([`State::Blocked`]; spec/PROTOCOL.md 5.24).
    pub blocked: u64,
    /// The queue's recurring jobs ([`Queue::schedules`](crate::Queue::schedules)).
    pub schedules: u64,
}

impl Stats {
    /// The counters summed over the last hour; `None` while the queue's counters are off.
    pub fn last_hour(&self) -> Option<Minute> {
        let minutes = self.minutes.as_ref()?;
        Some(minutes.iter().fold(Minute::default(), |a, m| Minute {
            completed: a.completed + m.completed,
            failed: a.failed + m.failed,
            dead: a.dead + m.dead,
            expired: a.expired + m.expired,
        }))
    }
}

/// What `fail` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailOutcome {
    /// The item will run again, after the delay (zero: it is waiting now).
    Retrying(Duration),
    /// The item is dead.
    Dead,
    /// The lease was no longer this holder's; nothing changed. Says why.
    NotHeld(crate::RenewOutcome),
}
