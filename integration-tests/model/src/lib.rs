//! A model of ONE leaseq queue (protocol v2, spec/PROTOCOL.md) for the stateright model checker.
//!
//! The state is the queue's keys (lists, sorted sets, job hashes, lease, item and data keys),
//! the library's per-queue hints (the next housekeeping, whether other priority levels are in
//! use), the server clock, what each worker holds, and a ghost record of every incarnation added.
//! Every action is ONE script call (atomic, as Redis runs it) or the clock moving on; a crash is a
//! worker that forgets its lease and never calls again. Each script is a plain transcription of
//! its Lua file (spec/scripts), command by command in the same order, so that a call that meets a
//! key of the wrong type (`WRONGTYPE`) keeps the writes it made before (Redis does not roll a
//! function back), unless [`Fixes::type_check`] is on.
//!
//! What is left out: results kept by complete, per-minute counters, error texts, `P:config`
//! (defaults only but for [`Scope::limits`]'s rate limit and capacity and
//! [`Scope::group_rates`]' group rate limit, fixed from the start),
//! priority levels other than 0 and 1, `lease_batch`, deep clean,
//! retention, redis-work-queue clients but for one add during a pause (README.md says why).

// Recurring jobs (spec/PROTOCOL.md 5.23): a model of its own.
pub mod schedules;

use std::collections::{BTreeMap, BTreeSet};

pub mod deps;
pub mod spec_table;
pub mod verdict;

use stateright::{Model, Property};

/// Milliseconds the clock moves per tick.
pub const TICK: u64 = 50;
/// A lease's TTL in the model (ms): one tick.
pub const TTL: u64 = 50;
/// The hints' housekeeping period (lib/lease.lua, HOUSEKEEPING_MS): two ticks.
pub const HOUSEKEEPING_MS: u64 = 100;
/// `max_attempts` when neither the item nor P:config sets it (lib/config.lua).
pub const DEFAULT_MAX_ATTEMPTS: i64 = 25;
/// The default backoff a lease reply carries (lib/config.lua).
pub const DEFAULT_BACKOFF: &str = "exp:1000:3600000:1";

/// An item id: 0, 1, 2 are "a", "b", "c".
pub type Id = u8;

/// The id's name in Redis.
pub fn id_name(id: Id) -> String {
    ((b'a' + id) as char).to_string()
}

/// A group (5.20): 0, 1 are "g0", "g1".
pub type Grp = u8;

/// The group's name in Redis.
pub fn group_name(g: Grp) -> String {
    format!("g{g}")
}

/// A grouped item's score in P:group:<g> is rank * 2^40 + its number (lib/groups.lua).
pub const GROUP_RANK: u64 = 1 << 40;

/// One switch per fix of issue 24's defects (default: all on). Off is the scripts' behaviour at
/// the commit the model was written against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fixes {
    /// Defect 1: cancel of a waiting (or expired, unrecovered) item also does `ZREM P:leased`;
    /// recover_expired acts only on a job in state `leased`, and drops any other entry.
    pub cancel_leased: bool,
    /// Defect 2: a lease that finds the job marked cancelled removes the item instead.
    pub lease_cancelled: bool,
    /// Defect 3: `expires_at` is checked only for a job never leased (no `leased_at`).
    pub expires_started: bool,
    /// Defect 4: a call that meets a key of the wrong type changes nothing.
    pub type_check: bool,
    /// The registration leak: `runner_beat` keeps `P:workers` expiring with its last
    /// registration.
    pub registry_expires: bool,
    /// Groups (5.20): a cancel of a grouped item whose lease ran out and is not recovered yet
    /// (record `leased`, no lease key) gives its group's slot back. Without it (cancel.lua as
    /// of the groups' commit) P:group_active keeps the slot forever: the record and the
    /// P:leased entry go, so no recovery frees it, and a group at limit 1 never leases again.
    pub cancel_frees_slot: bool,
    /// Group rate limits (5.21, found by this model): a pop counts a group in its window only
    /// when the group has an item to take (`group_limited`: `EXISTS P:group:<g>` before its
    /// `INCR`). Without it (spec/scripts as of the group rate limits' commit) a pop that meets
    /// a group left on the ring with an empty set (its waiting item was cancelled) counts a
    /// lease it does not take: the group's next item waits for a window in which nothing of
    /// the group was leased (up to `group_rate_per_ms`), and a window started so ends before
    /// the one the spec defines.
    pub group_rate_empty: bool,
}

impl Fixes {
    pub const ALL: Fixes = Fixes {
        cancel_leased: true,
        lease_cancelled: true,
        expires_started: true,
        type_check: true,
        registry_expires: true,
        cancel_frees_slot: true,
        group_rate_empty: true,
    };
    pub const NONE: Fixes = Fixes {
        cancel_leased: false,
        lease_cancelled: false,
        expires_started: false,
        type_check: false,
        registry_expires: false,
        cancel_frees_slot: false,
        group_rate_empty: false,
    };
}

impl Default for Fixes {
    fn default() -> Self {
        Fixes::ALL
    }
}

/// The options of an add (add.lua's 10 values per item; data, run_at, backoff and keep_result
/// are not modelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Opts {
    pub delay: u64,
    pub priority: i64,
    pub max_attempts: Option<i64>,
    pub expires_after: Option<u64>,
    /// The item's group (5.20).
    pub group: Option<Grp>,
}

impl Opts {
    pub const PLAIN: Opts = Opts {
        delay: 0,
        priority: 0,
        max_attempts: None,
        expires_after: None,
        group: None,
    };
    /// A plain item of group `g`.
    pub const fn grouped(g: Grp) -> Opts {
        Opts {
            group: Some(g),
            ..Opts::PLAIN
        }
    }
    pub fn is_plain(&self) -> bool {
        *self == Opts::PLAIN
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// The clock moves on one tick; lease keys whose PX ran out are gone.
    Tick,
    Add {
        id: Id,
        opts: Opts,
    },
    /// `lease` with n = 1 (housekeeping included) by an idle worker.
    Lease {
        w: u8,
    },
    Complete {
        w: u8,
    },
    /// `fail` with mode retry and this delay.
    Fail {
        w: u8,
        delay: u64,
    },
    /// `fail` with mode dead.
    FailDead {
        w: u8,
    },
    Release {
        w: u8,
    },
    Renew {
        w: u8,
    },
    /// `progress` with the value `p`.
    Progress {
        w: u8,
    },
    /// `complete_and_lease`: the worker completes its lease and leases the next item (n = 1)
    /// in the same call; a refused lease part leases nothing (`{0, -1}`).
    CompleteAndLease {
        w: u8,
    },
    /// `add_batch` of two distinct plain ids in one `plain` call (spec 5.1): each added as
    /// `Add` would add it, in order. Only on fixed replay traces of a queue without a capacity
    /// (whose batch counts its room for the call at once); never among the checked actions.
    AddBatch {
        ids: [Id; 2],
    },
    /// `complete_batch`: every held lease, in worker order, in one call (per = 3).
    CompleteBatch,
    /// `fail_batch`: every held lease, in worker order, retried at once, in one call.
    FailBatch,
    /// `renew_batch`: every held lease, in worker order, in one call.
    RenewBatch,
    /// `runner_beat` by a live runner, asking for the housekeeping lock.
    Beat {
        r: u8,
    },
    /// `runner_leave`: the runner stops cleanly.
    Leave {
        r: u8,
    },
    /// The runner is killed (SIGKILL): it never beats or leaves again.
    Kill {
        r: u8,
    },
    /// The worker dies: it never calls again for its lease.
    Crash {
        w: u8,
    },
    Cancel {
        id: Id,
    },
    /// Light clean, one batch of 200 (clean.lua).
    Clean,
    DeadRequeue {
        id: Id,
    },
    /// `dead purge 1`.
    DeadPurge,
    /// `promote id` (5.22): a delayed item waits now, as a due one is promoted.
    Promote {
        id: Id,
    },
    /// An outside client: `SET P:queue x` (only while the queue is empty).
    Corrupt,
    /// An outside client: `DEL P:queue`.
    Repair,
    /// `pause` (pause.lua with '1'): P:paused set, P:queue's ids to P:held (settle_held).
    Pause,
    /// `resume` (pause.lua with '0'): P:paused gone, P:held back to P:queue (settle_held),
    /// P:wake set.
    Resume,
    /// A redis-work-queue client adds an item (`SET P:item:X`, `LPUSH P:queue X` in one
    /// MULTI) of an id that has no key: it pushes to P:queue even while the queue is paused.
    OutsidePush {
        id: Id,
    },
    /// `hold` (hold.lua, 5.19) for this many ms: a handler was told "rate limited".
    Hold {
        ms: u64,
    },
    /// `pause_group` (group.lua 'pause', 5.20).
    PauseGroup {
        g: Grp,
    },
    /// `resume_group` (group.lua 'resume').
    ResumeGroup {
        g: Grp,
    },
    /// `set_group_limit` (group.lua 'limit'): a limit, or None to remove the group's own ('').
    SetGroupLimit {
        g: Grp,
        limit: Option<u8>,
    },
    /// `rate_limit_group` (group.lua 'hold', 5.21) for this many ms: a handler was told "rate
    /// limited" for group `g` only.
    HoldGroup {
        g: Grp,
        ms: u64,
    },
    /// `release` with a hold (release.lua ARGV 5, 5.21): a runner's handler said its group was
    /// rate limited (`rate_limited_group`): the item's group is held off `ms` (the queue, as by
    /// `hold`, for an item without a group: then it replies 2), then the item is released
    /// (delay 0).
    ReleaseHold {
        w: u8,
        ms: u64,
    },
}

/// A lease token or the word a cancel writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LeaseVal {
    Tok(u16),
    Cancelled,
}

/// An incarnation as the protocol writes it in `inc`: a lease token (`t<n>`) or an add's
/// `i<n>:1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Inc {
    Tok(u16),
    Base(u16),
}

impl Inc {
    pub fn text(&self) -> String {
        match self {
            Inc::Tok(t) => format!("t{t}"),
            Inc::Base(b) => format!("i{b}:1"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JState {
    Waiting,
    /// Waiting in its group, data parked (5.20).
    Grouped,
    Delayed,
    Leased,
    Dead,
}

impl JState {
    pub fn text(&self) -> &'static str {
        match self {
            JState::Waiting => "waiting",
            JState::Grouped => "grouped",
            JState::Delayed => "delayed",
            JState::Leased => "leased",
            JState::Dead => "dead",
        }
    }
}

/// `P:job:X`, the fields the model follows (`added`, `finished`, `reason`, `error`... are not).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Job {
    pub state: Option<JState>,
    pub inc: Option<Inc>,
    pub attempts: Option<i64>,
    pub max_attempts: Option<i64>,
    pub priority: Option<i64>,
    pub expires_at: Option<u64>,
    pub leased_at: Option<u64>,
    pub due: Option<u64>,
    pub cancelled: bool,
    /// `progress` is set (the model writes one value, `p`).
    pub progress: bool,
    /// `group` and `group_seq` (5.20).
    pub group: Option<Grp>,
    pub group_seq: Option<u64>,
}

/// The keys of the queue. Lists are Vecs whose index 0 is the head (LPUSH inserts there, RPOP
/// takes the last); sorted sets are id -> score maps; an item or data value is the ghost
/// incarnation whose data it is (the data written is `d<ghost>`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Db {
    pub queue: Vec<Id>,
    /// P:queue holds a string (an outside client's mistake).
    pub queue_bad: bool,
    /// P:prio:1
    pub prio1: Vec<Id>,
    /// P:prios holds the level 1.
    pub prios: bool,
    pub wake: bool,
    pub processing: Vec<Id>,
    pub item: BTreeMap<Id, u16>,
    pub data: BTreeMap<Id, u16>,
    /// P:lease:X: value and the time its PX runs out.
    pub lease: BTreeMap<Id, (LeaseVal, u64)>,
    pub job: BTreeMap<Id, Job>,
    pub delayed: BTreeMap<Id, u64>,
    pub leased: BTreeMap<Id, u64>,
    pub dead: BTreeMap<Id, u64>,
    /// P:paused exists.
    pub paused: bool,
    /// P:held: a paused queue's ids of priority 0 (5.17), head first as the other lists.
    pub held: Vec<Id>,
    /// P:limit (5.19): the leases counted in the rate limit's window ([`HOLD`] while held off),
    /// and the time its expiry runs out (None: no expiry).
    pub limit: Option<(u64, Option<u64>)>,
    /// P:room exists (5.18: a lease of a bounded queue made room).
    pub room: bool,
    /// P:group:<g> (5.20): each group's waiting ids and their scores.
    pub groups: BTreeMap<Grp, BTreeMap<Id, u64>>,
    /// P:ready, the ring (head first), and P:ready_set.
    pub ready: Vec<Grp>,
    pub ready_set: BTreeSet<Grp>,
    /// P:group_active, P:group_limit (fields), P:group_paused (members).
    pub group_active: BTreeMap<Grp, i64>,
    pub group_limit: BTreeMap<Grp, i64>,
    pub group_paused: BTreeSet<Grp>,
    /// P:group_waiting and P:group_seq (0: no key).
    pub group_waiting: i64,
    pub group_seq: u64,
    /// P:group_rate:<g> (5.21): the group's leases counted in its window ([`HOLD`] or more
    /// while held off), and the time its expiry runs out (every such key has one here: INCR
    /// makes it with a PEXPIRE, a hold with PX).
    pub group_rate: BTreeMap<Grp, (u64, u64)>,
    /// P:group_wait (5.21): groups off the ring until their window ends (the score).
    pub group_wait: BTreeMap<Grp, u64>,
}

/// P:limit's count while `hold` holds the queue off (lib/lease.lua, HOLD): 2^52.
pub const HOLD: u64 = 1 << 52;

/// The queue's `P:config` (fixed for a whole run, set before the first call): `rate_max` and
/// `rate_per_ms`, and `capacity`. The scripts read the first two (and capacity, for P:room)
/// into hints at housekeeping; every lease call runs housekeeping before it reads them when the
/// queue has no hint yet, so with a P:config that never changes the hints always equal it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Config {
    /// (`rate_max`, `rate_per_ms`).
    pub rate: Option<(u64, u64)>,
    pub capacity: Option<usize>,
    /// (`group_rate_max`, `group_rate_per_ms`), 5.21: read into the hints at housekeeping, as
    /// `rate`.
    pub group_rate: Option<(u64, u64)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Added and not ended (waiting, delayed, leased, dead, or cancel-marked while leased).
    Live,
    Completed,
    Cancelled,
    Purged,
}

/// The ghost record of one incarnation: what happened to it, whatever the keys say.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ghost {
    pub id: Id,
    pub status: Status,
    /// A cancel marked it while leased.
    pub cancel_marked: bool,
    /// Leased at least once.
    pub started: bool,
    /// Completes of it that returned 1.
    pub wins: u8,
    /// When it first entered its group (ghost order, 5.20): None until then.
    pub order: Option<u16>,
}

/// What a worker holds: the lease as the client keeps it, and (ghost) which incarnation's data
/// the lease returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Held {
    pub id: Id,
    pub token: u16,
    pub inc: Inc,
    pub ghost: u16,
}

/// Bad events the ghost saw during a call (a bit each).
pub const LEASED_AFTER_END: u16 = 1;
pub const WRONG_COMPLETE: u16 = 2;
pub const STARTED_EXPIRED: u16 = 4;
/// A lease call made while P:paused existed granted a lease.
pub const LEASED_WHILE_PAUSED: u16 = 8;
/// A window of the rate limit (5.19) granted more than `rate_max` leases.
pub const PAST_RATE: u16 = 16;
/// A lease was granted while a `hold` held the queue off.
pub const LEASED_WHILE_HELD: u16 = 32;
/// An add that added left more items waiting or delayed than the capacity (5.18).
pub const ADD_PAST_CAPACITY: u16 = 64;
/// A lease of a grouped item left its group with more leased items than its limit (5.20).
pub const PAST_GROUP_LIMIT: u16 = 128;
/// A lease of a grouped item passed over an item of the same group and priority queued before it.
pub const NOT_FIFO: u16 = 256;
/// A window of a group's rate limit (5.21) took more than `group_rate_max` items.
pub const PAST_GROUP_RATE: u16 = 512;
/// An item of a group was leased while a hold of that group (`rate_limit_group`, a release with
/// a hold) held it off.
pub const LEASED_WHILE_GROUP_HELD: u16 = 1024;
/// A lease took a group off the ring for its rate limit while the group was neither held nor
/// had its window's `group_rate_max` items taken.
pub const GROUP_LIMITED_EARLY: u16 = 2048;

/// What the ghost saw happen at least once (for `sometimes` properties), a bit each.
/// Housekeeping put a group whose window ended back on the ring, with items waiting (5.21).
pub const SEEN_GROUP_BACK: u8 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// The server clock (ms).
    pub now: u64,
    pub db: Db,
    /// Hint: the time of the next housekeeping (None: no hint yet).
    pub hk_due: Option<u64>,
    /// Hint: whether priority levels other than 0 are in use (None: unknown).
    pub prios_hint: Option<bool>,
    /// Hint `h.held`: P:held was left by a resume or housekeeping, so leases pop it first.
    pub held_hint: bool,
    /// Hint `h.groups`: whether the ring may hold groups (None: unknown, `EXISTS P:ready`;
    /// forgotten at each housekeeping).
    pub groups_hint: Option<bool>,
    /// Hint `h.watch`: leases read `P:paused` and `P:limit` (set by housekeeping to whether
    /// either exists, and by `pause` and `hold` in the hints that exist; without it and without
    /// a rate limit a lease takes both as absent).
    pub watch_hint: bool,
    /// Hint `h.turn`: grouped and ungrouped pops take turns (flipped before each pop).
    pub turn: bool,
    /// Ghost: the next number of the order in which incarnations first entered a group.
    pub next_order: u16,
    pub workers: Vec<Option<Held>>,
    pub ghosts: Vec<Ghost>,
    /// Leases granted so far (the next token's number).
    pub next_token: u16,
    /// Adds with options so far (the next `inc` base).
    pub next_base: u16,
    pub corrupts: u8,
    /// Outside (redis-work-queue) adds so far.
    pub outside: u8,
    /// LEASED_AFTER_END | WRONG_COMPLETE | STARTED_EXPIRED | LEASED_WHILE_PAUSED..., once seen.
    pub bad: u16,
    pub registry: Registry,
    /// P:config (constant in a run).
    pub config: Config,
    /// Ghost: the rate limit's window as the spec defines it (a fixed window from its first
    /// lease): when it ends and how many leases it granted.
    pub window: Option<(u64, u64)>,
    /// Ghost: the time until which `hold` calls held the queue off (the longest asked).
    pub held_until: u64,
    /// Hint `h.group_holds` (5.21): pops read the groups' counts without a group rate limit
    /// (set by housekeeping to whether P:group_wait is left, and by a group's hold in the hints
    /// that exist).
    pub group_holds_hint: bool,
    /// Ghost: each group's window of the groups' rate limit as the spec defines it (a fixed
    /// window from the first item a pop takes when none is open): its end and the items taken.
    pub group_windows: BTreeMap<Grp, (u64, u64)>,
    /// Ghost: the time until which holds of each group held it off: the longest asked, each
    /// `ms` or what the group's ghost window had left, whichever is longer (5.21).
    pub group_held_until: BTreeMap<Grp, u64>,
    /// SEEN_GROUP_BACK...
    pub seen: u8,
}

/// The runners' keys (spec/PROTOCOL.md 13.2), disjoint from the items': `P:workers` (member ->
/// score, and the key's own expiry, None = none), `P:worker:<r>` (its PX expiry) and
/// `P:lock:housekeeping` (holder, PX expiry); and which runners are still running (ghost).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Registry {
    pub workers: BTreeMap<u8, u64>,
    pub workers_expiry: Option<u64>,
    pub worker: BTreeMap<u8, u64>,
    pub lock: Option<(u8, u64)>,
    pub running: Vec<bool>,
}

/// A registration's time to live in the model (three heartbeats of one tick).
pub const REGISTRATION_TTL: u64 = 3 * TICK;

/// A reply as a RESP2 client sees it; `Local` for an action that sends nothing (tick, crash).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Nil,
    Int(i64),
    Bulk(String),
    Arr(Vec<Reply>),
    /// An error reply: WRONGTYPE.
    Err,
    /// The error reply of an add refused for want of room (FULL, 5.18).
    Full,
    Local,
}

/// A call met a key of the wrong type.
#[derive(Debug)]
pub struct WrongType;
type R<T> = Result<T, WrongType>;

/// How far the checker looks.
#[derive(Clone, Debug)]
pub struct Scope {
    pub ids: u8,
    pub workers: u8,
    /// The clock stops here (ms).
    pub max_clock: u64,
    /// Adds that store an item, in all.
    pub max_adds: u8,
    /// Leases granted, in all.
    pub max_leases: u16,
    /// The add options the producer uses.
    pub options: Vec<Opts>,
    /// Fail delays the workers use.
    pub fail_delays: Vec<u64>,
    pub renew_release: bool,
    /// `progress` by holders.
    pub progress: bool,
    /// `complete_and_lease` and `complete_batch`.
    pub batches: bool,
    pub cancel: bool,
    pub clean: bool,
    pub dead_letters: bool,
    /// How many times the outside client may corrupt P:queue.
    pub corrupts: u8,
    /// Runners that beat, leave and are killed (their keys are disjoint from the items', so
    /// [`Scope::runners`] checks them without items).
    pub runners: u8,
    /// `pause` and `resume` (5.17), checked in [`Scope::flow`].
    pub pause: bool,
    /// How many redis-work-queue adds ([`Action::OutsidePush`]) an outside client makes, only
    /// while the queue is paused (they count among `max_adds`).
    pub outside_pushes: u8,
    /// P:config's rate limit and capacity, set before the first call ([`Scope::limits`]).
    pub config: Config,
    /// The durations (ms) of the `hold` calls a handler makes (none: no hold).
    pub holds: Vec<u64>,
    /// Groups that operators pause, resume and limit (5.20; the adds' options name the groups
    /// items join), checked in [`Scope::groups`].
    pub group_ops: u8,
    /// The limits `set_group_limit` sets (None: the group's own removed, the default 1 again).
    pub group_limits: Vec<Option<u8>>,
    /// The `rate_limit_group` calls a handler makes: (group, ms) (5.21; none: no hold).
    pub group_holds: Vec<(Grp, u64)>,
    /// The holds (ms) of a holder's release with a hold (`rate_limited_group`, 5.21).
    pub release_holds: Vec<u64>,
    /// `promote` of a delayed item by an operator (5.22).
    pub promote: bool,
}

impl Scope {
    /// What `cargo test` checks: 2 ids, 2 workers, every kind of call.
    pub fn small() -> Scope {
        Scope {
            ids: 2,
            workers: 2,
            max_clock: 150,
            max_adds: 2,
            max_leases: 2,
            options: vec![
                Opts::PLAIN,
                Opts {
                    delay: TICK,
                    ..Opts::PLAIN
                },
                Opts {
                    priority: 1,
                    ..Opts::PLAIN
                },
                Opts {
                    max_attempts: Some(1),
                    ..Opts::PLAIN
                },
                Opts {
                    expires_after: Some(TICK),
                    ..Opts::PLAIN
                },
            ],
            fail_delays: vec![0, TICK],
            renew_release: true,
            progress: true,
            batches: true,
            cancel: true,
            clean: true,
            dead_letters: true,
            corrupts: 1,
            runners: 0,
            pause: false,
            outside_pushes: 0,
            config: Config::default(),
            holds: vec![],
            group_ops: 0,
            group_limits: vec![],
            group_holds: vec![],
            release_holds: vec![],
            promote: false,
        }
    }

    /// Pause and resume (5.17) with the calls whose paths they change: adds, leases (and their
    /// housekeeping), fails and releases that requeue, expiry, cancel, clean, and a
    /// redis-work-queue add during a pause. Without the batch forms, progress, dead letters and
    /// corruption (pause.lua and housekeeping refuse a P:queue of another type before they
    /// write, as every call does; the small scope checks that).
    pub fn flow() -> Scope {
        Scope {
            max_clock: 100,
            options: vec![
                Opts::PLAIN,
                Opts {
                    delay: TICK,
                    ..Opts::PLAIN
                },
                Opts {
                    priority: 1,
                    ..Opts::PLAIN
                },
            ],
            fail_delays: vec![0],
            progress: false,
            batches: false,
            dead_letters: false,
            corrupts: 0,
            pause: true,
            outside_pushes: 1,
            promote: true,
            ..Scope::small()
        }
    }

    /// Rate limits (5.19) and capacity (5.18): P:config allows 1 lease per 2 ticks and holds 1
    /// item waiting or delayed; `hold` for 1 or 3 ticks; plain and delayed adds, leases,
    /// complete, fail (retry at once), release, renew, crash, cancel and the clock. Without
    /// pause (its own scope), priorities, clean, dead letters, the batch forms and corruption.
    pub fn limits() -> Scope {
        Scope {
            max_clock: 200,
            max_leases: 3,
            options: vec![
                Opts::PLAIN,
                Opts {
                    delay: TICK,
                    ..Opts::PLAIN
                },
            ],
            fail_delays: vec![0],
            progress: false,
            batches: false,
            clean: false,
            dead_letters: false,
            corrupts: 0,
            config: Config {
                rate: Some((1, 2 * TICK)),
                capacity: Some(1),
                group_rate: None,
            },
            holds: vec![TICK, 3 * TICK],
            ..Scope::small()
        }
    }

    /// Groups (5.20): 3 ids, 2 workers, 3 adds in group g0 or g1; 2 leases; clock up to 50 ms
    /// (a lease expires); complete, fail (retry at once, or dead), crash, cancel;
    /// `pause_group`, `resume_group` and `set_group_limit` (2, or removed: 1) of g0. Without
    /// ungrouped items, release and renew, delays, priorities, clean, progress, pause,
    /// dead-letter calls, the batch forms and corruption (the replay's walks of this scope add
    /// all but the last four; each of them alone took the check past minutes).
    pub fn groups() -> Scope {
        Scope {
            ids: 3,
            max_clock: 50,
            max_adds: 3,
            max_leases: 2,
            options: vec![Opts::grouped(0), Opts::grouped(1)],
            fail_delays: vec![0],
            renew_release: false,
            progress: false,
            batches: false,
            clean: false,
            dead_letters: false,
            corrupts: 0,
            group_ops: 1,
            group_limits: vec![Some(2), None],
            ..Scope::small()
        }
    }

    /// The groups' rate limits (5.21): P:config allows each group 1 lease per 2 ticks; 2 ids,
    /// 2 workers, 2 adds in g0 or g1, 2 leases, clock up to 100 ms (one window ends);
    /// complete, fail dead, cancel, crash, `rate_limit_group` of g0 for 1 or 3 ticks, and a
    /// release holding the item's group off for 1 tick (`rate_limited_group`). Without
    /// ungrouped items, fail with a retry, plain release, renew, delays, priorities, group
    /// pause and limits, queue pause, clean, dead-letter calls, the batch forms and corruption
    /// (the replay's walks add the first six).
    pub fn group_rates() -> Scope {
        Scope {
            max_clock: 100,
            max_leases: 2,
            options: vec![Opts::grouped(0), Opts::grouped(1)],
            fail_delays: vec![],
            renew_release: false,
            progress: false,
            batches: false,
            clean: false,
            dead_letters: false,
            corrupts: 0,
            config: Config {
                group_rate: Some((1, 2 * TICK)),
                ..Config::default()
            },
            group_holds: vec![(0, TICK), (0, 3 * TICK)],
            release_holds: vec![TICK],
            promote: false,
            ..Scope::small()
        }
    }

    /// Holds of groups without a group rate limit (5.21): [`Scope::group_rates`] without the
    /// limit in P:config, so that pops read a held group's count (`GET`) only while the
    /// `h.group_holds` hint says groups may be held.
    pub fn group_holds() -> Scope {
        Scope {
            config: Config::default(),
            ..Scope::group_rates()
        }
    }

    /// The runner registry alone: two runners beating, leaving and killed, and the clock (the
    /// runner functions touch no key of the items, nor the items' functions theirs).
    pub fn runners() -> Scope {
        Scope {
            ids: 0,
            workers: 0,
            max_clock: 8 * TICK,
            max_adds: 0,
            max_leases: 0,
            cancel: false,
            clean: false,
            corrupts: 0,
            runners: 2,
            ..Scope::small()
        }
    }

    /// `make model-deep`: one more lease and one more tick (3 adds need far more than minutes).
    pub fn deep() -> Scope {
        Scope {
            max_clock: 200,
            max_leases: 3,
            ..Scope::small()
        }
    }
}

#[derive(Clone, Debug)]
pub struct QueueModel {
    pub scope: Scope,
    pub fixes: Fixes,
}

fn first_due(z: &BTreeMap<Id, u64>, now: u64, limit: usize) -> Vec<Id> {
    let mut v: Vec<(u64, Id)> = z
        .iter()
        .filter(|(_, &s)| s <= now)
        .map(|(&i, &s)| (s, i))
        .collect();
    v.sort();
    v.into_iter().take(limit).map(|(_, i)| i).collect()
}

fn first_score(z: &BTreeMap<Id, u64>) -> Option<u64> {
    z.values().min().copied()
}

impl State {
    fn new(workers: u8) -> State {
        State {
            now: 0,
            db: Db::default(),
            hk_due: None,
            prios_hint: None,
            held_hint: false,
            groups_hint: None,
            watch_hint: false,
            turn: false,
            next_order: 0,
            workers: vec![None; workers as usize],
            ghosts: Vec::new(),
            next_token: 0,
            next_base: 0,
            corrupts: 0,
            outside: 0,
            bad: 0,
            registry: Registry::default(),
            config: Config::default(),
            window: None,
            held_until: 0,
            group_holds_hint: false,
            group_windows: BTreeMap::new(),
            group_held_until: BTreeMap::new(),
            seen: 0,
        }
    }

    fn lease_live(&self, id: Id) -> bool {
        self.db.lease.contains_key(&id)
    }

    fn job_mut(&mut self, id: Id) -> &mut Job {
        self.db.job.entry(id).or_default()
    }

    fn job_of(&self, id: Id) -> Job {
        self.db.job.get(&id).cloned().unwrap_or_default()
    }

    fn new_ghost(&mut self, id: Id) -> u16 {
        self.ghosts.push(Ghost {
            id,
            status: Status::Live,
            cancel_marked: false,
            started: false,
            wins: 0,
            order: None,
        });
        (self.ghosts.len() - 1) as u16
    }

    fn end_ghost(&mut self, g: Option<u16>, status: Status) {
        if let Some(g) = g {
            self.ghosts[g as usize].status = status;
        }
    }

    // ---- lib/waiting.lua

    fn lpush_queue(&mut self, id: Id) -> R<()> {
        if self.db.queue_bad {
            return Err(WrongType);
        }
        self.db.queue.insert(0, id);
        Ok(())
    }

    fn rpop_queue(&mut self) -> R<Option<Id>> {
        if self.db.queue_bad {
            return Err(WrongType);
        }
        Ok(self.db.queue.pop())
    }

    /// `LPUSH level_zero_list()`: P:held while paused, else P:queue.
    fn push_level_zero(&mut self, id: Id) -> R<()> {
        if self.db.paused {
            self.db.held.insert(0, id);
            return Ok(());
        }
        self.lpush_queue(id)
    }

    fn push_waiting(&mut self, id: Id, priority: Option<i64>, group: Option<Grp>) -> R<()> {
        if let Some(g) = group {
            self.push_grouped(id, priority, g);
            return Ok(());
        }
        if priority.unwrap_or(0) == 0 {
            return self.push_level_zero(id);
        }
        // LLEN P:wake, ZADD P:prios, RPUSH P:wake, PEXPIRE, LPUSH P:prio:1 (none can fail here).
        self.db.prios = true;
        self.db.wake = true;
        self.db.prio1.insert(0, id);
        self.prios_hint = Some(true);
        Ok(())
    }

    fn other_levels(&mut self) -> bool {
        if self.prios_hint.is_none() {
            self.prios_hint = Some(self.db.prios);
        }
        if self.groups_hint.is_none() {
            self.groups_hint = Some(!self.db.ready.is_empty());
        }
        self.prios_hint.unwrap() || self.held_hint || self.groups_hint.unwrap()
    }

    /// pop_level_zero: P:held's first while the hint says a resume left it, else P:queue's.
    fn pop_level_zero(&mut self) -> R<Option<Id>> {
        if self.held_hint {
            if let Some(id) = self.db.held.pop() {
                return Ok(Some(id));
            }
            self.held_hint = false;
        }
        self.rpop_queue()
    }

    fn pop_waiting(&mut self) -> R<Option<Id>> {
        if !self.other_levels() {
            return self.rpop_queue();
        }
        if self.prios_hint == Some(false) {
            return self.pop_level_zero();
        }
        loop {
            if self.db.prios {
                if let Some(id) = self.db.prio1.pop() {
                    return Ok(Some(id));
                }
                self.db.prios = false;
            } else {
                if let Some(id) = self.pop_level_zero()? {
                    return Ok(Some(id));
                }
                self.prios_hint = Some(false);
                return Ok(None);
            }
        }
    }

    /// pop_waiting_many with k = 1 (lib/waiting.lua): with groups in use, grouped and ungrouped
    /// ids take turns (`h.turn`), each side standing in for the other. Returns the id and, for
    /// a grouped one, its group (whose slot it took).
    fn pop_waiting_one(&mut self, fx: Fixes) -> R<Option<(Id, Option<Grp>)>> {
        if !self.other_levels() {
            return Ok(self.rpop_queue()?.map(|id| (id, None)));
        }
        if self.groups_hint != Some(true) {
            return Ok(self.pop_waiting()?.map(|id| (id, None)));
        }
        self.turn = !self.turn;
        let mut got = None;
        if self.turn {
            got = self.pop_grouped(fx).map(|(id, g)| (id, Some(g)));
        }
        if got.is_none() {
            got = self.pop_waiting()?.map(|id| (id, None));
        }
        if got.is_none() && !self.turn {
            got = self.pop_grouped(fx).map(|(id, g)| (id, Some(g)));
        }
        Ok(got)
    }

    // ---- lib/groups.lua (5.20)

    fn group_limit(&self, g: Grp) -> i64 {
        // HGET P:group_limit g, else P:config group_concurrency (never set here), else 1.
        self.db.group_limit.get(&g).copied().unwrap_or(1)
    }

    /// group_ready(g, active): `active`, the group's leased items when the caller knows them,
    /// else `HGET P:group_active g`.
    fn group_ready(&self, g: Grp, active: Option<i64>) -> bool {
        let active = active.unwrap_or_else(|| self.db.group_active.get(&g).copied().unwrap_or(0));
        self.db.groups.get(&g).is_some_and(|z| !z.is_empty())
            && active < self.group_limit(g)
            && !self.db.group_paused.contains(&g)
    }

    /// ring_push(g, wake): the group on the ring unless on it (`SADD P:ready_set`, `LPUSH
    /// P:ready`); with `wake`, P:wake set; the queue's `h.groups` set in the databases that
    /// have hints (here, once a lease made them: `hk_due` is set).
    fn ring_push(&mut self, g: Grp, wake: bool) {
        if self.db.ready_set.insert(g) {
            self.db.ready.insert(0, g);
            if wake {
                self.db.wake = true;
            }
            if self.hk_due.is_some() {
                self.groups_hint = Some(true);
            }
        }
    }

    /// group_check(g, active): the group on the ring when ready and not on it yet; a waiting
    /// lease wakes for it.
    fn group_check(&mut self, g: Grp, active: Option<i64>) {
        if self.group_ready(g, active) {
            self.ring_push(g, true);
        }
    }

    fn push_grouped(&mut self, id: Id, priority: Option<i64>, g: Grp) {
        self.park(id);
        let rank = (1000 - priority.unwrap_or(0)) as u64;
        let seq = match self.job_of(id).group_seq {
            Some(seq) => seq,
            None => {
                self.db.group_seq += 1;
                let seq = self.db.group_seq;
                self.job_mut(id).group_seq = Some(seq);
                seq
            }
        };
        self.db
            .groups
            .entry(g)
            .or_default()
            .insert(id, rank * GROUP_RANK + seq);
        self.db.group_waiting += 1;
        self.job_mut(id).state = Some(JState::Grouped);
        // Ghost: the incarnation parked here keeps the place it first took.
        if let Some(&ghost) = self.db.data.get(&id) {
            let ghost = &mut self.ghosts[ghost as usize];
            if ghost.order.is_none() {
                ghost.order = Some(self.next_order);
                self.next_order += 1;
            }
        }
        self.group_check(g, None);
    }

    fn grouped_left(&mut self, n: i64) {
        self.db.group_waiting = (self.db.group_waiting - n).max(0);
    }

    /// release_slot: `HINCRBY P:group_active g -1` (HDEL at 0), and group_check with that count.
    fn release_slot(&mut self, g: Grp) {
        let mut active = self.db.group_active.get(&g).copied().unwrap_or(0) - 1;
        if active <= 0 {
            self.db.group_active.remove(&g);
            active = 0;
        } else {
            self.db.group_active.insert(g, active);
        }
        self.group_check(g, Some(active));
    }

    fn remove_grouped(&mut self, id: Id, g: Grp) {
        let Some(z) = self.db.groups.get_mut(&g) else {
            return;
        };
        if z.remove(&id).is_some() {
            if z.is_empty() {
                self.db.groups.remove(&g);
            }
            self.grouped_left(1);
        }
    }

    /// pop_grouped: the ring's tail group gives its first id when below its limit, not
    /// paused, and (with a group rate limit or held groups, 5.21) not at its rate limit
    /// (`group_limited`, which counts the pop) (`limit` and `active` read once; `ZPOPMIN` only
    /// then): its slot taken (`HINCRBY`), the group back at the ring's head while still below
    /// its limit with ids left (`ring_push(g, false)`: no P:wake), its data back at P:item:X
    /// (`pcall RENAME`: none is no error) and its record `waiting`. (RING_LOOK, 100, is never
    /// reached.)
    fn pop_grouped(&mut self, fx: Fixes) -> Option<(Id, Grp)> {
        loop {
            let Some(g) = self.db.ready.pop() else {
                self.groups_hint = Some(false);
                return None;
            };
            self.db.ready_set.remove(&g);
            let limit = self.group_limit(g);
            let active = self.db.group_active.get(&g).copied().unwrap_or(0);
            if active >= limit || self.db.group_paused.contains(&g) {
                continue;
            }
            if (self.config.group_rate.is_some() || self.group_holds_hint)
                && self.group_limited(g, fx)
            {
                continue;
            }
            // ZPOPMIN P:group:<g> (an empty set gives nothing).
            let Some(z) = self.db.groups.get_mut(&g) else {
                continue;
            };
            let (&id, _) = z.iter().min_by_key(|(&id, &score)| (score, id)).unwrap();
            z.remove(&id);
            if z.is_empty() {
                self.db.groups.remove(&g);
            }
            self.grouped_left(1);
            self.group_took(g);
            let active = active + 1;
            self.db.group_active.insert(g, active);
            if active < limit && self.db.groups.contains_key(&g) {
                self.ring_push(g, false);
            }
            if let Some(ghost) = self.db.data.remove(&id) {
                self.db.item.insert(id, ghost);
            }
            self.job_mut(id).state = Some(JState::Waiting);
            return Some((id, g));
        }
    }

    /// group_limited (lib/holds.lua, 5.21): whether group `g`, met by a pop, is at its rate
    /// limit's window or held; if so it goes to P:group_wait until the window ends. With a group
    /// rate limit the pop is counted (`INCR`; the window's first count sets its expiry), else
    /// (held groups) the count is read (`GET`). (A key without an expiry, or of another type,
    /// is never made here.) With [`Fixes::group_rate_empty`], a group with no item to take
    /// (`EXISTS P:group:<g>` 0) is not counted, and not limited.
    fn group_limited(&mut self, g: Grp, fx: Fixes) -> bool {
        let now = self.now;
        let count = match self.config.group_rate {
            Some(_) if fx.group_rate_empty && !self.db.groups.contains_key(&g) => return false,
            Some((_, per)) => {
                let count = match self.db.group_rate.get_mut(&g) {
                    Some(key) => {
                        key.0 += 1;
                        key.0
                    }
                    None => {
                        self.db.group_rate.insert(g, (1, now + per));
                        return false;
                    }
                };
                Some(count)
            }
            None => self.db.group_rate.get(&g).map(|key| key.0),
        };
        let max = self.config.group_rate.map_or(HOLD - 1, |r| r.0);
        if count.is_none_or(|c| c <= max) {
            return false;
        }
        // PTTL, then ZADD P:group_wait now + left g.
        let end = self.db.group_rate[&g].1;
        self.db.group_wait.insert(g, end);
        // Ghost: limited only when held, or when the window took its items.
        let held = self.group_held_until.get(&g).is_some_and(|&t| t > now);
        let used = self.config.group_rate.is_some_and(|(max, _)| {
            self.group_windows
                .get(&g)
                .is_some_and(|&(end, taken)| end > now && taken >= max)
        });
        if !held && !used {
            self.bad |= GROUP_LIMITED_EARLY;
        }
        true
    }

    /// The ghost's view of an item taken from group `g` by a pop (5.21: the pop counts it,
    /// whether the lease then leases it or drops it): its window (fixed, from an item taken
    /// when none is open) takes at most `group_rate_max`.
    fn group_took(&mut self, g: Grp) {
        let now = self.now;
        if let Some((max, per)) = self.config.group_rate {
            let window = match self.group_windows.get(&g) {
                Some(&(end, taken)) if end > now => (end, taken + 1),
                _ => (now + per, 1),
            };
            self.group_windows.insert(g, window);
            if window.1 > max {
                self.bad |= PAST_GROUP_RATE;
            }
        }
    }

    /// hold_group (lib/holds.lua, 5.21): `SET P:group_rate:<g> HOLD PX max(ms, PTTL)`, `ZADD
    /// P:group_wait GT now + that g`, `h.group_holds` in the hints that exist (here: once a
    /// lease made them). Returns the hold's length.
    fn hold_group(&mut self, g: Grp, ms: u64) -> u64 {
        let now = self.now;
        let left = self.db.group_rate.get(&g).map_or(0, |key| key.1 - now);
        let length = ms.max(left);
        self.db.group_rate.insert(g, (HOLD, now + length));
        let end = now + length;
        let wait = self.db.group_wait.entry(g).or_insert(end);
        *wait = (*wait).max(end);
        if self.hk_due.is_some() {
            self.group_holds_hint = true;
        }
        // Ghost: the hold as the spec defines it, `ms` or what the group's window has left,
        // whichever is longer (a longer hold in place kept).
        let window_left = self
            .group_windows
            .get(&g)
            .map_or(0, |&(end, _)| end.saturating_sub(now));
        let until = self.group_held_until.entry(g).or_insert(0);
        *until = (*until).max(now + ms.max(window_left));
        length
    }

    /// groups_back (lib/groups.lua, housekeeping): the groups of P:group_wait whose window
    /// ended (`ZRANGEBYSCORE -inf now`: by score, then name), out of it and `group_check`ed.
    /// Returns whether P:group_wait still holds groups. (Its bound, 100, is never reached.)
    fn groups_back(&mut self) -> bool {
        if self.db.group_wait.is_empty() {
            return false;
        }
        let now = self.now;
        let mut due: Vec<(u64, Grp)> = self
            .db
            .group_wait
            .iter()
            .filter(|(_, &end)| end <= now)
            .map(|(&g, &end)| (end, g))
            .collect();
        if due.is_empty() {
            return true;
        }
        due.sort();
        for &(_, g) in &due {
            self.db.group_wait.remove(&g);
        }
        for (_, g) in due {
            let back = !self.db.ready_set.contains(&g);
            self.group_check(g, None);
            if back && self.db.ready_set.contains(&g) {
                self.seen |= SEEN_GROUP_BACK;
            }
        }
        !self.db.group_wait.is_empty()
    }

    /// group.lua: 'pause', 'resume', 'limit', 'hold' (want_queue and want(P:group:<g>) first,
    /// and for 'hold' want(P:group_rate:<g>): no key of the groups is ever of another type
    /// here).
    fn group_op(&mut self, a: Action) -> R<Reply> {
        if self.db.queue_bad {
            return Err(WrongType);
        }
        match a {
            Action::HoldGroup { g, ms } => Ok(Reply::Int(self.hold_group(g, ms) as i64)),
            Action::PauseGroup { g } => Ok(Reply::Int(self.db.group_paused.insert(g) as i64)),
            Action::ResumeGroup { g } => {
                let changed = self.db.group_paused.remove(&g);
                self.group_check(g, None);
                Ok(Reply::Int(changed as i64))
            }
            Action::SetGroupLimit { g, limit } => {
                match limit {
                    Some(n) => self.db.group_limit.insert(g, n as i64),
                    None => self.db.group_limit.remove(&g),
                };
                self.group_check(g, None);
                Ok(Reply::Int(1))
            }
            _ => unreachable!("not a group call"),
        }
    }

    /// waiting_count (lib/waiting.lua): P:group_waiting, and the LLEN of every waiting list,
    /// P:held included (stale ids too).
    fn waiting_count(&self) -> R<usize> {
        if self.db.queue_bad {
            return Err(WrongType);
        }
        let prio1 = if self.db.prios {
            self.db.prio1.len()
        } else {
            0
        };
        Ok(self.db.group_waiting as usize + prio1 + self.db.held.len() + self.db.queue.len())
    }

    /// settle_held (lib/waiting.lua): P:held in line with the pause. Returns whether P:held is
    /// left. (Its bound, 100 or 1000 moves, is never reached here.) A P:queue of another type
    /// never reaches it: its callers check the key first.
    fn settle_held(&mut self) -> R<bool> {
        if self.db.queue_bad {
            return Err(WrongType);
        }
        if self.db.held.is_empty() {
            if self.db.paused && !self.db.queue.is_empty() {
                // RENAME P:queue P:held
                self.db.held = std::mem::take(&mut self.db.queue);
                return Ok(true);
            }
            return Ok(false);
        }
        loop {
            // LMOVE P:queue P:held RIGHT LEFT
            match self.db.queue.pop() {
                Some(id) => self.db.held.insert(0, id),
                None if self.db.paused => return Ok(true),
                None => {
                    // RENAME P:held P:queue
                    self.db.queue = std::mem::take(&mut self.db.held);
                    return Ok(false);
                }
            }
        }
    }

    // ---- lib/jobs.lua

    fn park(&mut self, id: Id) {
        if let Some(g) = self.db.item.remove(&id) {
            self.db.data.insert(id, g);
        }
    }

    fn unpark(&mut self, id: Id) -> bool {
        if !self.db.data.contains_key(&id) {
            return self.db.item.contains_key(&id);
        }
        if self.db.item.contains_key(&id) {
            self.db.data.remove(&id);
            return false;
        }
        let g = self.db.data.remove(&id).unwrap();
        self.db.item.insert(id, g);
        true
    }

    /// `wake_for_due(due)` (lib/waiting.lua), before the item joins P:delayed: P:wake set
    /// when it is due before every delayed item, so that a waiting lease looks again.
    fn wake_for_due(&mut self, due: u64) {
        if first_score(&self.db.delayed).is_none_or(|first| due < first) {
            self.db.wake = true;
        }
    }

    fn requeue_after(
        &mut self,
        id: Id,
        delay: u64,
        priority: Option<i64>,
        group: Option<Grp>,
    ) -> R<u64> {
        self.db.leased.remove(&id);
        self.db.lease.remove(&id);
        let due = self.now + delay;
        if due > self.now {
            self.park(id);
            let j = self.job_mut(id);
            j.state = Some(JState::Delayed);
            j.due = Some(due);
            self.wake_for_due(due);
            self.db.delayed.insert(id, due);
        } else {
            self.job_mut(id).state = Some(JState::Waiting);
            self.push_waiting(id, priority, group)?;
        }
        Ok(due)
    }

    /// to_dead (lib/jobs.lua).
    fn make_dead(&mut self, id: Id) {
        self.park(id);
        self.db.leased.remove(&id);
        self.db.lease.remove(&id);
        self.job_mut(id).state = Some(JState::Dead);
        self.db.dead.insert(id, self.now);
        // trim_dead: the default bounds (10000, 7 days) are never reached here.
    }

    fn drop_stale(&mut self, id: Id) {
        if let Some(s) = self.db.job.get(&id).and_then(|j| j.state) {
            if s != JState::Delayed && s != JState::Dead && s != JState::Grouped {
                self.db.job.remove(&id);
                self.db.leased.remove(&id);
            }
        }
    }

    fn promote_due(&mut self, limit: usize) -> R<i64> {
        let ids = first_due(&self.db.delayed, self.now, limit);
        for &id in &ids {
            self.promote_one(id)?;
        }
        Ok(ids.len() as i64)
    }

    /// One delayed id leaves P:delayed and waits (its data unparked), or goes with its record
    /// when its data is gone.
    fn promote_one(&mut self, id: Id) -> R<()> {
        self.db.delayed.remove(&id);
        if self.unpark(id) {
            self.job_mut(id).state = Some(JState::Waiting);
            let j = self.job_of(id);
            self.push_waiting(id, j.priority, j.group)?;
        } else {
            self.db.job.remove(&id);
        }
        Ok(())
    }

    fn recover_expired(&mut self, limit: usize, fx: Fixes) -> R<(i64, i64, i64)> {
        let (mut requeued, mut dead, mut removed) = (0, 0, 0);
        for id in first_due(&self.db.leased, self.now, limit) {
            if let Some(&(_, exp)) = self.db.lease.get(&id) {
                self.db.leased.insert(id, exp);
                continue;
            }
            self.db.leased.remove(&id);
            self.db.lease.remove(&id);
            let job = self.job_of(id);
            if fx.cancel_leased && job.state != Some(JState::Leased) {
                // A stale entry: it only leaves P:leased, counted as removed.
                removed += 1;
                continue;
            }
            // The lease of a grouped item ended: its slot is free, before the item may go back.
            if let Some(g) = job.group {
                self.release_slot(g);
            }
            if !self.db.item.contains_key(&id) {
                self.db.job.remove(&id);
                removed += 1;
            } else if job.cancelled {
                let g = self.db.item.remove(&id);
                self.db.job.remove(&id);
                self.end_ghost(g, Status::Cancelled);
                removed += 1;
            } else {
                let attempts = job.attempts.unwrap_or(0);
                let max = job.max_attempts.unwrap_or(DEFAULT_MAX_ATTEMPTS);
                if max > 0 && attempts >= max {
                    self.make_dead(id);
                    dead += 1;
                } else {
                    self.job_mut(id).state = Some(JState::Waiting);
                    self.push_waiting(id, job.priority, job.group)?;
                    requeued += 1;
                }
            }
        }
        Ok((requeued, dead, removed))
    }

    // ---- lib/outcome.lua

    fn lost_outcome(&self, id: Id, inc: Inc, holder: Option<LeaseVal>, job: &Job) -> i64 {
        match job.inc {
            Some(j) if j != inc => -4,
            None if self.db.item.contains_key(&id) => -4,
            None => -2,
            _ if job.cancelled => -3,
            _ if holder.is_some() => -1,
            _ => 0,
        }
    }

    /// `group`: the item's group, whose slot the holder's lease took (None: not leased).
    fn drop_cancelled(&mut self, id: Id, group: Option<Grp>) {
        self.db.leased.remove(&id);
        let g = self.db.item.remove(&id);
        self.db.job.remove(&id);
        self.db.lease.remove(&id);
        self.end_ghost(g, Status::Cancelled);
        if let Some(group) = group {
            self.release_slot(group);
        }
    }

    // ---- the scripts

    /// Whether an add finds `id` taken (lib/adds.lua `id_taken`): waiting or leased (its item),
    /// or delayed, dead or in its group (its record, the data parked).
    pub fn taken(&self, id: Id) -> bool {
        self.db.item.contains_key(&id)
            || self.db.job.get(&id).is_some_and(|j| {
                matches!(
                    j.state,
                    Some(JState::Delayed) | Some(JState::Dead) | Some(JState::Grouped)
                )
            })
    }

    fn add(&mut self, id: Id, opts: Opts) -> R<Reply> {
        if self.taken(id) {
            return Ok(Reply::Int(0));
        }
        // A record of an id not taken is stale (left by a redis-work-queue complete).
        let stale = self.db.job.contains_key(&id);
        // A bounded queue (5.18): room for the item, or nothing written but `DEL P:room`.
        if let Some(capacity) = self.config.capacity {
            let size = self.waiting_count()? + self.db.delayed.len();
            if size + 1 > capacity {
                self.db.room = false;
                return Ok(Reply::Full);
            }
        }
        if stale {
            self.db.job.remove(&id);
            self.db.leased.remove(&id);
        }
        if opts.is_plain() {
            self.push_level_zero(id)?;
            let g = self.new_ghost(id);
            self.db.item.insert(id, g);
            return Ok(Reply::Int(1));
        }
        let now = self.now;
        let due = now + opts.delay;
        let base = self.next_base;
        self.next_base += 1;
        let mut job = Job {
            inc: Some(Inc::Base(base)),
            attempts: Some(0),
            max_attempts: opts.max_attempts,
            priority: (opts.priority != 0).then_some(opts.priority),
            expires_at: opts.expires_after.map(|e| now + e),
            group: opts.group,
            ..Job::default()
        };
        if due > now {
            job.state = Some(JState::Delayed);
            job.due = Some(due);
            self.wake_for_due(due);
            self.db.delayed.insert(id, due);
            self.db.job.insert(id, job);
            let g = self.new_ghost(id);
            self.db.data.insert(id, g);
        } else if let Some(group) = opts.group {
            // The record (state grouped) and P:data:X first, then push_grouped.
            job.state = Some(JState::Grouped);
            self.db.job.insert(id, job);
            let g = self.new_ghost(id);
            self.db.data.insert(id, g);
            self.push_waiting(id, Some(opts.priority), Some(group))?;
        } else {
            job.state = Some(JState::Waiting);
            self.push_waiting(id, Some(opts.priority), None)?;
            self.db.job.insert(id, job);
            let g = self.new_ghost(id);
            self.db.item.insert(id, g);
        }
        Ok(Reply::Int(1))
    }

    fn housekeeping(&mut self, always: bool, fx: Fixes) -> R<()> {
        if let Some(due) = self.hk_due {
            if due > self.now && !always {
                return Ok(());
            }
        }
        // refuse_base(): EXISTS P:partitions, never there in a model of one queue (a
        // partitioned queue's base, spec 5.25, is refused before any write; a vector holds it).
        self.hk_due = Some(self.now + HOUSEKEEPING_MS);
        self.prios_hint = None;
        // h.watch = EXISTS(P:paused, P:limit) > 0; h.groups = nil.
        self.watch_hint = self.db.paused || self.db.limit.is_some();
        self.groups_hint = None;
        self.held_hint = self.settle_held()?;
        // The groups' rate limit (fixed: `config.group_rate`), and groups whose window ended
        // back on the ring.
        self.group_holds_hint = self.groups_back();
        self.promote_due(100)?;
        self.recover_expired(20, fx)?;
        Ok(())
    }

    fn lease(&mut self, w: u8, fx: Fixes) -> R<Reply> {
        let now = self.now;
        self.housekeeping(false, fx)?;
        // MGET P:paused P:limit, only while `h.watch` or with a rate limit: else both absent.
        let (paused, limit) = self.flags();
        if paused {
            // A paused queue leases nothing (5.17): settle_held (ids a redis-work-queue add
            // pushed to P:queue go to P:held), and P:wake goes as after a lease that found
            // nothing. (A P:queue of another type fails the LMOVE when P:held holds ids; when
            // P:held is absent the scripts RENAME it to P:held, which the model leaves out:
            // `Action::Corrupt` is not offered then.)
            self.settle_held()?;
            self.db.wake = false;
            return Ok(Reply::Arr(vec![Reply::Int(0), Reply::Int(-1)]));
        }
        // The rate limit (5.19): at the limit, or held off, nothing is leased: {2, PTTL}. (n is
        // 1 here, so `n = min(n, rate_max - used)` leaves it 1.)
        if let Some((used, expiry)) = limit {
            let max = self.config.rate.map_or(HOLD, |r| r.0);
            if used >= max {
                let left = match expiry {
                    Some(at) => at - now,
                    None => {
                        let left = self.config.rate.map_or(1000, |r| r.1);
                        self.db.limit = Some((used, Some(now + left)));
                        left
                    }
                };
                return Ok(Reply::Arr(vec![Reply::Int(2), Reply::Int(left as i64)]));
            }
        }
        let token = self.next_token;
        let mut looked = false;
        let mut granted: Option<Reply> = None;
        while granted.is_none() {
            let (id, group) = match self.pop_waiting_one(fx)? {
                Some(got) => got,
                None if looked => break,
                None => {
                    looked = true;
                    self.housekeeping(true, fx)?;
                    match self.pop_waiting_one(fx)? {
                        Some(got) => got,
                        None => break,
                    }
                }
            };
            granted = 'one: {
                let Some(&g) = self.db.item.get(&id) else {
                    self.drop_stale(id);
                    break 'one None;
                };
                if self.lease_live(id) {
                    if self.db.job.get(&id).and_then(|j| j.state) != Some(JState::Leased) {
                        self.db.processing.insert(0, id);
                    }
                    break 'one None;
                }
                self.db.lease.insert(id, (LeaseVal::Tok(token), now + TTL));
                let job = self.job_of(id);
                let attempts = job.attempts.unwrap_or(0) + 1;
                let max = job.max_attempts.unwrap_or(DEFAULT_MAX_ATTEMPTS);
                if fx.lease_cancelled && job.cancelled {
                    self.db.leased.remove(&id);
                    self.db.item.remove(&id);
                    self.db.job.remove(&id);
                    self.db.lease.remove(&id);
                    self.end_ghost(Some(g), Status::Cancelled);
                    break 'one None;
                }
                if let Some(at) = job.expires_at {
                    if at <= now && !(fx.expires_started && job.leased_at.is_some()) {
                        if self.ghosts[g as usize].started {
                            self.bad |= STARTED_EXPIRED;
                        }
                        self.make_dead(id);
                        break 'one None;
                    }
                }
                if max > 0 && attempts > max {
                    self.make_dead(id);
                    break 'one None;
                }
                let inc = job.inc.unwrap_or(Inc::Tok(token));
                let j = self.job_mut(id);
                j.inc = Some(inc);
                j.attempts = Some(attempts);
                j.state = Some(JState::Leased);
                j.leased_at = Some(now);
                let ghost = &mut self.ghosts[g as usize];
                if ghost.status != Status::Live || ghost.cancel_marked {
                    self.bad |= LEASED_AFTER_END;
                }
                ghost.started = true;
                self.next_token += 1;
                self.workers[w as usize] = Some(Held {
                    id,
                    token,
                    inc,
                    ghost: g,
                });
                self.db.leased.insert(id, now + TTL);
                self.made_room_and_counted();
                if let Some(group) = job.group {
                    self.granted_in_group(id, group, g);
                }
                // A plain item's first lease (attempt 1, incarnation = token) comes in the
                // reply's plain form (spec/PROTOCOL.md 4.4); any other in the full one.
                Some(if attempts == 1 && inc == Inc::Tok(token) {
                    Reply::Arr(vec![
                        Reply::Int(3),
                        Reply::Int(max),
                        Reply::Bulk(DEFAULT_BACKOFF.into()),
                        Reply::Bulk(id_name(id)),
                        Reply::Bulk(format!("d{g}")),
                    ])
                } else {
                    Reply::Arr(vec![
                        Reply::Int(0),
                        Reply::Int(-1),
                        Reply::Arr(vec![
                            Reply::Bulk(id_name(id)),
                            Reply::Bulk(format!("d{g}")),
                            Reply::Int(attempts),
                            Reply::Bulk(inc.text()),
                            Reply::Int(max),
                            Reply::Bulk(DEFAULT_BACKOFF.into()),
                        ]),
                    ])
                })
            };
            // A grouped id not leased gives its slot back.
            if let (Some(group), None) = (group, &granted) {
                self.release_slot(group);
            }
        }
        match granted {
            Some(reply) => Ok(reply),
            None => {
                self.db.wake = false;
                let mut wait = -1i64;
                let parked = self.db.group_wait.values().min().copied();
                for first in [
                    first_score(&self.db.delayed),
                    first_score(&self.db.leased),
                    parked,
                ]
                .into_iter()
                .flatten()
                {
                    let left = first.saturating_sub(now) as i64;
                    if wait < 0 || left < wait {
                        wait = left;
                    }
                }
                Ok(Reply::Arr(vec![Reply::Int(0), Reply::Int(wait)]))
            }
        }
    }

    /// What a lease reads after its housekeeping: `MGET P:paused P:limit` while the `h.watch`
    /// hint is set or the queue has a rate limit; else both absent (`NOT_WATCHED`).
    fn flags(&self) -> (bool, Option<(u64, Option<u64>)>) {
        if self.watch_hint || self.config.rate.is_some() {
            (self.db.paused, self.db.limit)
        } else {
            (false, None)
        }
    }

    /// The ghost's view of a lease of incarnation `ghost` (id `id`) of group `group`: the group
    /// has at most its limit of items leased (records `leased`, whose slots are taken, this one
    /// included), and no item of the group at the same priority, queued there before it, still
    /// waits there (FIFO).
    fn granted_in_group(&mut self, id: Id, group: Grp, ghost: u16) {
        if self.leased_in_group(group) > self.group_limit(group) as usize {
            self.bad |= PAST_GROUP_LIMIT;
        }
        if self
            .group_held_until
            .get(&group)
            .is_some_and(|&t| t > self.now)
        {
            self.bad |= LEASED_WHILE_GROUP_HELD;
        }
        let priority = self.job_of(id).priority;
        let mine = self.ghosts[ghost as usize].order;
        let waiting = self.db.groups.get(&group).cloned().unwrap_or_default();
        for other in waiting.keys() {
            let j = self.job_of(*other);
            let theirs = self
                .db
                .data
                .get(other)
                .and_then(|&o| self.ghosts[o as usize].order);
            if j.priority == priority && theirs.is_some() && theirs < mine {
                self.bad |= NOT_FIFO;
            }
        }
    }

    /// The items of group `g` whose records say leased (their slots are taken).
    pub fn leased_in_group(&self, g: Grp) -> usize {
        self.db
            .job
            .values()
            .filter(|j| j.state == Some(JState::Leased) && j.group == Some(g))
            .count()
    }

    /// After a call's leases (one here): made_room (a bounded queue sets P:room) and counted
    /// (a rate-limited queue counts the lease in P:limit; the window's first lease sets its
    /// expiry); and the ghost's view of the limit and the hold.
    fn made_room_and_counted(&mut self) {
        let now = self.now;
        if self.config.capacity.is_some() && !self.db.room {
            self.db.room = true;
        }
        if let Some((max, per)) = self.config.rate {
            self.db.limit = match self.db.limit {
                None => Some((1, Some(now + per))),
                Some((used, expiry)) => Some((used + 1, expiry)),
            };
            // The spec's fixed window: it starts with a lease made when none is open.
            self.window = match self.window {
                Some((end, count)) if end > now => Some((end, count + 1)),
                _ => Some((now + per, 1)),
            };
            if self.window.is_some_and(|(_, count)| count > max) {
                self.bad |= PAST_RATE;
            }
        }
        if now < self.held_until {
            self.bad |= LEASED_WHILE_HELD;
        }
    }

    /// hold.lua: `SET P:limit HOLD PX max(ms, PTTL P:limit)`; replies that length.
    fn hold(&mut self, ms: u64) -> Reply {
        let now = self.now;
        let left = match self.db.limit {
            Some((_, Some(at))) => at - now,
            _ => 0,
        };
        let length = ms.max(left);
        self.db.limit = Some((HOLD, Some(now + length)));
        // h.watch = true in every database's hints (here: once a lease made them).
        if self.hk_due.is_some() {
            self.watch_hint = true;
        }
        self.held_until = self.held_until.max(now + ms);
        Reply::Int(length as i64)
    }

    /// The items waiting or delayed as the ghost sees them: live incarnations on a waiting
    /// list and not under a lease, or delayed (stale ids, which the scripts' count includes,
    /// are not).
    pub fn occupancy(&self) -> usize {
        let db = &self.db;
        self.live()
            .filter(|&g| {
                let id = self.ghosts[g as usize].id;
                if db.item.get(&id) == Some(&g) {
                    !db.lease.contains_key(&id)
                        && (db.queue.contains(&id)
                            || db.held.contains(&id)
                            || (db.prios && db.prio1.contains(&id)))
                } else {
                    db.data.get(&id) == Some(&g) && db.delayed.contains_key(&id)
                }
            })
            .count()
    }

    fn complete_win(&mut self, g: u16, mine: u16) {
        let ghost = &mut self.ghosts[g as usize];
        ghost.wins += 1;
        ghost.status = Status::Completed;
        if g != mine {
            self.bad |= WRONG_COMPLETE;
        }
    }

    fn complete(&mut self, h: Held, fx: Fixes) -> R<Reply> {
        let id = h.id;
        if h.inc == Inc::Tok(h.token)
            && self.db.lease.get(&id).map(|l| l.0) == Some(LeaseVal::Tok(h.token))
        {
            let gone = self.db.item.remove(&id);
            self.db.lease.remove(&id);
            self.db.job.remove(&id);
            self.db.leased.remove(&id);
            return Ok(Reply::Int(match gone {
                None => -2,
                Some(g) => {
                    self.complete_win(g, h.ghost);
                    1
                }
            }));
        }
        let job = self.job_of(id);
        if job.inc != Some(h.inc) {
            return Ok(Reply::Int(self.lost_outcome(
                id,
                h.inc,
                None,
                &Job {
                    cancelled: false,
                    ..job
                },
            )));
        }
        // A grouped item's slot is this holder's while its record says leased.
        let slot = job.group.filter(|_| job.state == Some(JState::Leased));
        if job.cancelled {
            self.drop_cancelled(id, slot);
            return Ok(Reply::Int(-3));
        }
        if matches!(
            job.state,
            Some(JState::Delayed) | Some(JState::Dead) | Some(JState::Grouped)
        ) {
            return Ok(Reply::Int(0));
        }
        if let Some(g) = slot {
            self.release_slot(g);
        }
        if fx.type_check {
            // The fixed complete.lua removes P:leased's entry first (its first write checks the
            // key's type), before it learns whether the item is still there.
            self.db.leased.remove(&id);
        }
        match self.db.item.remove(&id) {
            None => {
                self.db.job.remove(&id);
                Ok(Reply::Int(-2))
            }
            Some(g) => {
                self.db.leased.remove(&id);
                self.db.lease.remove(&id);
                self.db.job.remove(&id);
                self.complete_win(g, h.ghost);
                Ok(Reply::Int(1))
            }
        }
    }

    /// fail (lib/fail.lua); `delay` None is mode dead.
    /// The holder check of fail, release and progress: the lease key holds this lease's token and
    /// the job this incarnation; else the outcome code of lib/outcome.lua.
    fn live_job(&self, h: Held) -> Result<Job, i64> {
        let holder = self.db.lease.get(&h.id).map(|l| l.0);
        let job = self.job_of(h.id);
        if holder != Some(LeaseVal::Tok(h.token)) || job.inc != Some(h.inc) {
            return Err(self.lost_outcome(h.id, h.inc, holder, &job));
        }
        Ok(job)
    }

    fn fail(&mut self, h: Held, delay: Option<u64>) -> R<Reply> {
        let id = h.id;
        let pair = |a: i64, b: u64| Reply::Arr(vec![Reply::Int(a), Reply::Int(b as i64)]);
        let job = match self.live_job(h) {
            Ok(job) => job,
            Err(outcome) => return Ok(pair(outcome, 0)),
        };
        if job.cancelled {
            self.drop_cancelled(id, job.group);
            return Ok(pair(-3, 0));
        }
        // This holder's lease ends here: its group's slot is free.
        if let Some(g) = job.group {
            self.release_slot(g);
        }
        let attempts = job.attempts.unwrap_or(1);
        let max = job.max_attempts.unwrap_or(DEFAULT_MAX_ATTEMPTS);
        let Some(delay) = delay else {
            self.make_dead(id);
            return Ok(pair(2, 0));
        };
        if max > 0 && attempts >= max {
            self.make_dead(id);
            return Ok(pair(2, 0));
        }
        let due = self.requeue_after(id, delay, job.priority, job.group)?;
        Ok(pair(1, due))
    }

    /// release.lua; `hold`: ARGV 5, the ms its group (or the queue, for an item without one) is
    /// held off first (5.21).
    fn release(&mut self, h: Held, delay: u64, hold: Option<u64>) -> R<Reply> {
        let id = h.id;
        let job = match self.live_job(h) {
            Ok(job) => job,
            Err(outcome) => return Ok(Reply::Int(outcome)),
        };
        if job.cancelled {
            self.drop_cancelled(id, job.group);
            return Ok(Reply::Int(-3));
        }
        // (want_queue and want_level: `QueueModel::refused`.) The hold first; holding the
        // queue (an item without a group) replies 2, for a partitioned runner (5.25).
        let mut reply = 1;
        if let Some(ms) = hold {
            match job.group {
                Some(g) => {
                    self.hold_group(g, ms);
                }
                None => {
                    self.hold(ms);
                    reply = 2;
                }
            }
        }
        if let Some(g) = job.group {
            self.release_slot(g);
        }
        let j = self.job_mut(id);
        j.attempts = Some(j.attempts.unwrap_or(0) - 1);
        self.requeue_after(id, delay, job.priority, job.group)?;
        Ok(Reply::Int(reply))
    }

    fn renew(&mut self, h: Held) -> R<Reply> {
        let id = h.id;
        let holder = self.db.lease.get(&id).map(|l| l.0);
        let job = self.job_of(id);
        if holder != Some(LeaseVal::Tok(h.token)) || job.inc.is_some_and(|i| i != h.inc) {
            return Ok(Reply::Int(self.lost_outcome(id, h.inc, holder, &job)));
        }
        if job.cancelled {
            return Ok(Reply::Int(-3));
        }
        let now = self.now;
        self.db.lease.get_mut(&id).unwrap().1 = now + TTL;
        if job.inc.is_some() {
            self.db.leased.insert(id, now + TTL);
        }
        Ok(Reply::Int(1))
    }

    // ---- runner_beat.lua, runner_leave.lua (13.2)
    fn runner_beat(&mut self, r: u8, fx: Fixes) -> Reply {
        let now = self.now;
        let reg = &mut self.registry;
        reg.workers.insert(r, now + REGISTRATION_TTL);
        reg.worker.insert(r, now + REGISTRATION_TTL);
        reg.workers.retain(|_, &mut at| at > now);
        if fx.registry_expires {
            reg.workers_expiry = reg.workers.values().max().copied();
        }
        let holds = match reg.lock {
            None => {
                reg.lock = Some((r, now + REGISTRATION_TTL));
                true
            }
            Some((holder, _)) if holder == r => {
                reg.lock = Some((r, now + REGISTRATION_TTL));
                true
            }
            Some(_) => false,
        };
        Reply::Arr(vec![Reply::Int(holds as i64), Reply::Int(now as i64)])
    }

    fn runner_leave(&mut self, r: u8) -> Reply {
        let reg = &mut self.registry;
        reg.workers.remove(&r);
        if reg.workers.is_empty() {
            reg.workers_expiry = None;
        }
        reg.worker.remove(&r);
        if reg.lock.is_some_and(|(holder, _)| holder == r) {
            reg.lock = None;
        }
        Reply::Int(1)
    }

    // ---- progress.lua: the live holder only (its lease's token and incarnation).
    fn progress(&mut self, h: Held) -> R<Reply> {
        let job = match self.live_job(h) {
            Ok(job) => job,
            Err(outcome) => return Ok(Reply::Int(outcome)),
        };
        if job.cancelled {
            return Ok(Reply::Int(-3));
        }
        self.job_mut(h.id).progress = true;
        Ok(Reply::Int(1))
    }

    fn cancel(&mut self, id: Id, fx: Fixes) -> R<Reply> {
        let state = self.db.job.get(&id).and_then(|j| j.state);
        if state == Some(JState::Grouped) {
            // Out of its group's set, its parked data and record gone.
            if let Some(group) = self.job_of(id).group {
                self.remove_grouped(id, group);
            }
            let g = self.db.data.remove(&id);
            self.db.job.remove(&id);
            self.end_ghost(g, Status::Cancelled);
            return Ok(Reply::Bulk("waiting".into()));
        }
        match state {
            Some(JState::Delayed) | Some(JState::Dead) => {
                if state == Some(JState::Delayed) {
                    self.db.delayed.remove(&id);
                } else {
                    self.db.dead.remove(&id);
                }
                let g = self.db.data.remove(&id);
                self.db.job.remove(&id);
                self.end_ghost(g, Status::Cancelled);
                return Ok(Reply::Bulk(state.unwrap().text().into()));
            }
            _ => {}
        }
        let Some(&g) = self.db.item.get(&id) else {
            if state.is_some() {
                self.db.job.remove(&id);
            }
            return Ok(Reply::Nil);
        };
        if let Some(l) = self.db.lease.get_mut(&id) {
            l.0 = LeaseVal::Cancelled;
            let j = self.job_mut(id);
            j.cancelled = true;
            if state.is_none() {
                j.state = Some(JState::Leased);
            }
            self.ghosts[g as usize].cancel_marked = true;
            return Ok(Reply::Bulk("leased".into()));
        }
        // A lease that ran out, not recovered: its group's slot back first (want_slot_keys,
        // release_slot: no group key is of another type here), then the deletes.
        let job = self.job_of(id);
        if let (true, Some(JState::Leased), Some(group)) =
            (fx.cancel_frees_slot, job.state, job.group)
        {
            self.release_slot(group);
        }
        if fx.cancel_leased {
            self.db.leased.remove(&id);
        }
        self.db.item.remove(&id);
        self.db.job.remove(&id);
        self.end_ghost(Some(g), Status::Cancelled);
        Ok(Reply::Bulk("waiting".into()))
    }

    fn clean(&mut self, fx: Fixes) -> R<Reply> {
        let batch = 200usize;
        let before = self.db.processing.len();
        let (mut examined, mut requeued, mut removed) = (0, 0, 0);
        let mut seen = BTreeSet::new();
        for _ in 0..before.min(batch) {
            let Some(id) = self.db.processing.pop() else {
                break;
            };
            examined += 1;
            if !self.db.item.contains_key(&id) {
                self.drop_stale(id);
                removed += 1;
            } else if self.lease_live(id) {
                self.db.processing.insert(0, id);
            } else if seen.contains(&id) || self.db.leased.contains_key(&id) {
                removed += 1;
            } else {
                seen.insert(id);
                let j = self.job_of(id);
                self.push_waiting(id, j.priority, j.group)?;
                requeued += 1;
            }
        }
        let promoted = self.promote_due(100)?;
        let (exp_requeued, exp_dead, exp_removed) = self.recover_expired(batch, fx)?;
        let mut stale = 0;
        // levels_in_order: 1 if in P:prios, 'held' (-1 here) if P:held exists, 0.
        let mut levels: Vec<i64> = if self.db.prios { vec![1] } else { vec![] };
        if !self.db.held.is_empty() {
            levels.push(-1);
        }
        levels.push(0);
        for level in levels {
            while stale < batch as i64 {
                let tail = match level {
                    0 => {
                        if self.db.queue_bad {
                            return Err(WrongType);
                        }
                        self.db.queue.last().copied()
                    }
                    -1 => self.db.held.last().copied(),
                    _ => self.db.prio1.last().copied(),
                };
                if tail.is_none() && level > 0 {
                    // ZREM P:prios: an empty level leaves, as a lease's pop would drop it.
                    self.db.prios = false;
                }
                match tail {
                    Some(id) if !self.db.item.contains_key(&id) => {
                        match level {
                            0 => self.db.queue.pop(),
                            -1 => self.db.held.pop(),
                            _ => self.db.prio1.pop(),
                        };
                        self.drop_stale(id);
                        stale += 1;
                    }
                    _ => break,
                }
            }
        }
        Ok(Reply::Arr(
            [
                promoted,
                exp_requeued,
                exp_dead,
                exp_removed,
                examined,
                requeued,
                removed,
                before as i64,
                stale,
                // Dependants settled and swept (5.24): this model's items have no dependencies
                // (the model of dependencies is src/deps.rs).
                0,
                0,
            ]
            .into_iter()
            .map(Reply::Int)
            .collect(),
        ))
    }

    /// pause.lua: ARGV '1' pauses, '0' resumes.
    fn pause(&mut self, pause: bool) -> R<Reply> {
        // want(QUEUE / HELD / WAKE, 'list'): only P:queue can have another type here.
        if self.db.queue_bad {
            return Err(WrongType);
        }
        let was = self.db.paused;
        self.db.paused = pause;
        // Pausing: h.watch = true in every database's hints (here: once a lease made them).
        if pause && self.hk_due.is_some() {
            self.watch_hint = true;
        }
        let held = self.settle_held()?;
        if !pause {
            if held {
                self.held_hint = true;
            }
            // RPUSH P:wake 1 when empty, PEXPIRE.
            self.db.wake = true;
        }
        Ok(Reply::Int(if was == pause { 0 } else { 1 }))
    }

    /// A redis-work-queue add: `SET P:item:X`, `LPUSH P:queue X` (MULTI/EXEC).
    fn outside_push(&mut self, id: Id) -> R<Reply> {
        if self.db.queue_bad {
            return Err(WrongType);
        }
        let g = self.new_ghost(id);
        self.db.item.insert(id, g);
        self.db.queue.insert(0, id);
        Ok(Reply::Local)
    }

    fn dead_requeue(&mut self, id: Id) -> R<Reply> {
        if self.db.dead.remove(&id).is_none() {
            return Ok(Reply::Int(0));
        }
        if self.unpark(id) {
            let j = self.job_mut(id);
            j.state = Some(JState::Waiting);
            j.attempts = Some(0);
            j.expires_at = None;
            let (p, group) = (j.priority, j.group);
            self.push_waiting(id, p, group)?;
        } else {
            self.db.job.remove(&id);
        }
        Ok(Reply::Int(1))
    }

    /// promote.lua (5.22): the id's promotion as `promote_due` makes it, whatever its due time.
    fn promote(&mut self, id: Id) -> R<Reply> {
        if !self.db.delayed.contains_key(&id) {
            return Ok(Reply::Int(0));
        }
        self.promote_one(id)?;
        Ok(Reply::Int(1))
    }

    fn dead_purge(&mut self) -> R<Reply> {
        let ids = first_due(&self.db.dead, u64::MAX, 1);
        for &id in &ids {
            self.db.dead.remove(&id);
            let g = self.db.data.remove(&id);
            self.db.job.remove(&id);
            self.end_ghost(g, Status::Purged);
        }
        Ok(Reply::Int(ids.len() as i64))
    }

    /// `get`'s data: from P:data:X for a job delayed or dead, else P:item:X.
    pub fn get_data(&self, id: Id) -> Option<u16> {
        match self.db.job.get(&id).and_then(|j| j.state) {
            Some(JState::Delayed) | Some(JState::Dead) | Some(JState::Grouped) => {
                self.db.data.get(&id).copied()
            }
            _ => self.db.item.get(&id).copied(),
        }
    }

    /// Whether the incarnation `g` (live) is where some later call will find it.
    pub fn reachable(&self, g: u16) -> bool {
        let id = self.ghosts[g as usize].id;
        let db = &self.db;
        let job = db.job.get(&id).and_then(|j| j.state);
        if db.item.get(&id) == Some(&g) {
            return (db.queue.contains(&id) && !db.queue_bad)
                || db.held.contains(&id)
                || (db.prio1.contains(&id) && db.prios)
                || db.processing.contains(&id)
                || db.leased.contains_key(&id)
                || db.lease.contains_key(&id);
        }
        if db.data.get(&id) == Some(&g) {
            let group = db.job.get(&id).and_then(|j| j.group);
            return (db.delayed.contains_key(&id) && job == Some(JState::Delayed))
                || (db.dead.contains_key(&id) && job == Some(JState::Dead))
                || (job == Some(JState::Grouped)
                    && group
                        .is_some_and(|g| db.groups.get(&g).is_some_and(|z| z.contains_key(&id))));
        }
        false
    }

    /// Invariant: P:group_active g equals the number of g's records in state `leased`, for
    /// every group (no field for none).
    pub fn slots_agree(&self) -> bool {
        let mut groups: BTreeSet<Grp> = self.db.group_active.keys().copied().collect();
        groups.extend(self.db.job.values().filter_map(|j| j.group));
        groups.into_iter().all(|g| {
            let active = self.db.group_active.get(&g).copied();
            let leased = self.leased_in_group(g) as i64;
            active.unwrap_or(0) == leased && active != Some(0)
        })
    }

    /// Invariant: every id in a group's set has its record `grouped` in that group with its
    /// parked data; every `grouped` record is in its group's set; P:group_waiting is the sum of
    /// the sets; no set is empty (Redis deletes an empty key).
    pub fn groups_agree(&self) -> bool {
        let db = &self.db;
        let total: usize = db.groups.values().map(|z| z.len()).sum();
        db.group_waiting == total as i64
            && db.groups.iter().all(|(&g, z)| {
                !z.is_empty()
                    && z.keys().all(|id| {
                        db.job
                            .get(id)
                            .is_some_and(|j| j.state == Some(JState::Grouped) && j.group == Some(g))
                            && db.data.contains_key(id)
                    })
            })
            && db.job.iter().all(|(id, j)| {
                j.state != Some(JState::Grouped)
                    || j.group
                        .is_some_and(|g| db.groups.get(&g).is_some_and(|z| z.contains_key(id)))
            })
    }

    /// Invariant (no starvation): a group with waiting ids, a free slot and not paused is on the
    /// ring (in P:ready and P:ready_set) and leases look at the ring (`h.groups` not false), or
    /// it waits in P:group_wait for its rate limit's window (5.21, [`State::parked_bounded`]);
    /// P:ready_set holds P:ready's groups, each once.
    pub fn ring_complete(&self) -> bool {
        let db = &self.db;
        let on_ring: BTreeSet<Grp> = db.ready.iter().copied().collect();
        on_ring.len() == db.ready.len()
            && on_ring == db.ready_set
            && db.groups.keys().all(|&g| {
                !self.group_ready(g, None)
                    || (db.ready_set.contains(&g) && self.groups_hint != Some(false))
                    || db.group_wait.contains_key(&g)
            })
    }

    /// Invariant (5.21, no group parked forever): every group in P:group_wait waits at most
    /// for its window or hold: its score is no later than the end of its open ghost window or
    /// hold (or has passed); and the last housekeeping left no group whose score had come
    /// (every score is later than its time), so the next one puts back each group whose window
    /// ended.
    pub fn parked_bounded(&self) -> bool {
        let last_housekeeping = self.hk_due.map(|due| due - HOUSEKEEPING_MS);
        self.db.group_wait.iter().all(|(g, &score)| {
            let window = self.group_windows.get(g).map_or(0, |w| w.0);
            let hold = self.group_held_until.get(g).copied().unwrap_or(0);
            score <= self.now.max(window).max(hold) && last_housekeeping.is_none_or(|t| score > t)
        })
    }

    /// Invariant: an id waiting in a group (or whose record says `grouped`) has no P:item:X and
    /// is on no list a redis-work-queue client reads (P:queue, P:processing) nor on another
    /// waiting list.
    pub fn grouped_hidden(&self) -> bool {
        let db = &self.db;
        let mut ids: BTreeSet<Id> = db.groups.values().flat_map(|z| z.keys().copied()).collect();
        ids.extend(
            db.job
                .iter()
                .filter(|(_, j)| j.state == Some(JState::Grouped))
                .map(|(&id, _)| id),
        );
        ids.into_iter().all(|id| {
            !db.item.contains_key(&id)
                && !db.queue.contains(&id)
                && !db.processing.contains(&id)
                && !db.held.contains(&id)
                && !db.prio1.contains(&id)
        })
    }

    fn live(&self) -> impl Iterator<Item = u16> + '_ {
        (0..self.ghosts.len() as u16).filter(|&g| self.ghosts[g as usize].status == Status::Live)
    }
}

impl QueueModel {
    pub fn new(scope: Scope, fixes: Fixes) -> QueueModel {
        QueueModel { scope, fixes }
    }

    /// Whether the fixed scripts refuse `a` in state `s` while P:queue holds another type: each
    /// checks the types of every shared key it may write before its first write
    /// (spec/scripts/lib/guard.lua), whether or not this call would write P:queue. A lease
    /// always meets it (its RPOP, or its checks); light clean and dead-letter requeue check it
    /// first; an add, a fail and a release only on the path that writes (an add that adds, a
    /// fail or release by the live holder of an item not cancelled). Complete, renew, cancel
    /// and purge never write P:queue. Decided from what the call would do with a sound key.
    fn refused(&self, s: &State, a: Action) -> bool {
        if !self.fixes.type_check || !s.db.queue_bad {
            return false;
        }
        let mut sound = s.clone();
        sound.db.queue_bad = false;
        let held = |w: u8| s.workers[w as usize].expect("a worker's call needs its lease");
        match a {
            // Housekeeping checks every key; without it a paused lease's settle_held meets
            // P:queue (P:held holds ids, see `Action::Corrupt`), and a lease at the rate limit
            // returns before it reads P:queue (5.19).
            Action::Lease { .. } => {
                let (paused, limit) = s.flags();
                s.hk_due.is_none_or(|due| due <= s.now)
                    || paused
                    || limit.is_none_or(|(used, _)| used < s.config.rate.map_or(HOLD, |r| r.0))
            }
            // fail_batch checks every shared key before its first lease, held or not.
            Action::Clean | Action::DeadRequeue { .. } | Action::FailBatch | Action::Pause => true,
            // promote.lua checks the keys it writes once it found the id delayed.
            Action::Promote { id } => s.db.delayed.contains_key(&id),
            Action::Resume => true,
            // A plain add of an id without a stale job hash checks nothing: its first write is
            // its LPUSH, of P:held while paused.
            // A bounded queue counts its waiting lists (LLEN) for an add that adds.
            Action::Add { id, .. }
                if s.config.capacity.is_some()
                    && !s.db.item.contains_key(&id)
                    && !s.db.job.get(&id).is_some_and(|j| {
                        matches!(j.state, Some(JState::Delayed) | Some(JState::Dead))
                    }) =>
            {
                true
            }
            Action::Add { id, opts } => {
                let stale = !s.db.item.contains_key(&id)
                    && s.db.job.get(&id).is_some_and(|j| {
                        !matches!(j.state, Some(JState::Delayed) | Some(JState::Dead))
                    });
                matches!(sound.add(id, opts), Ok(Reply::Int(1)))
                    && !(opts.is_plain() && s.db.paused && !stale)
            }
            Action::Fail { w, delay } => matches!(
                sound.fail(held(w), Some(delay)),
                Ok(Reply::Arr(ref r)) if matches!(r[0], Reply::Int(1) | Reply::Int(2))
            ),
            Action::FailDead { w } => matches!(
                sound.fail(held(w), None),
                Ok(Reply::Arr(ref r)) if matches!(r[0], Reply::Int(1) | Reply::Int(2))
            ),
            Action::Release { w } => {
                matches!(sound.release(held(w), 0, None), Ok(Reply::Int(1)))
            }
            Action::ReleaseHold { w, ms } => {
                matches!(
                    sound.release(held(w), 0, Some(ms)),
                    Ok(Reply::Int(1) | Reply::Int(2))
                )
            }
            _ => false,
        }
    }

    /// One step: the next state and the reply the call gets (the replay compares it).
    pub fn step(&self, s: &State, a: Action) -> (State, Reply) {
        let fx = self.fixes;
        if self.refused(s, a) {
            return (s.clone(), Reply::Err);
        }
        let mut n = s.clone();
        let held = |w: u8| s.workers[w as usize].expect("a worker's call needs its lease");
        let r = match a {
            Action::Tick => {
                n.now += TICK;
                let now = n.now;
                n.db.lease.retain(|_, l| l.1 > now);
                if n.db
                    .limit
                    .is_some_and(|(_, at)| at.is_some_and(|at| at <= now))
                {
                    n.db.limit = None;
                }
                if n.window.is_some_and(|(end, _)| end <= now) {
                    n.window = None;
                }
                if n.held_until <= now {
                    n.held_until = 0;
                }
                n.db.group_rate.retain(|_, key| key.1 > now);
                n.group_windows.retain(|_, w| w.0 > now);
                n.group_held_until.retain(|_, &mut t| t > now);
                let reg = &mut n.registry;
                reg.worker.retain(|_, &mut at| at > now);
                if reg.lock.is_some_and(|(_, at)| at <= now) {
                    reg.lock = None;
                }
                if reg.workers_expiry.is_some_and(|at| at <= now) {
                    reg.workers.clear();
                    reg.workers_expiry = None;
                }
                Ok(Reply::Local)
            }
            Action::Crash { w } => {
                n.workers[w as usize] = None;
                Ok(Reply::Local)
            }
            Action::Corrupt => {
                n.db.queue_bad = true;
                n.corrupts += 1;
                Ok(Reply::Local)
            }
            Action::Repair => {
                n.db.queue_bad = false;
                n.db.queue.clear();
                Ok(Reply::Local)
            }
            Action::Add { id, opts } => n.add(id, opts),
            Action::AddBatch { ids } => {
                assert!(
                    n.config.capacity.is_none() && ids[0] != ids[1],
                    "AddBatch: distinct ids, no capacity"
                );
                let mut added = 0;
                let mut result = Ok(());
                for id in ids {
                    match n.add(id, Opts::PLAIN) {
                        Ok(Reply::Int(k)) => added += k,
                        Ok(other) => unreachable!("a plain add without capacity: {other:?}"),
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                result.map(|()| Reply::Int(added))
            }
            Action::Lease { w } => n.lease(w, fx),
            Action::Complete { w } => {
                n.workers[w as usize] = None;
                n.complete(held(w), fx)
            }
            Action::Fail { w, delay } => {
                n.workers[w as usize] = None;
                n.fail(held(w), Some(delay))
            }
            Action::FailDead { w } => {
                n.workers[w as usize] = None;
                n.fail(held(w), None)
            }
            Action::Release { w } => {
                n.workers[w as usize] = None;
                n.release(held(w), 0, None)
            }
            Action::ReleaseHold { w, ms } => {
                n.workers[w as usize] = None;
                n.release(held(w), 0, Some(ms))
            }
            Action::Renew { w } => n.renew(held(w)).inspect(|r| {
                if *r != Reply::Int(1) {
                    n.workers[w as usize] = None;
                }
            }),
            Action::Progress { w } => n.progress(held(w)).inspect(|r| {
                if *r != Reply::Int(1) {
                    n.workers[w as usize] = None;
                }
            }),
            Action::CompleteAndLease { w } => {
                n.workers[w as usize] = None;
                n.complete(held(w), fx).and_then(|completed| {
                    // The fixed script runs the lease part in a pcall, and that part refuses
                    // before it writes: it leases nothing. The old one failed the whole call,
                    // keeping the complete.
                    let next = if fx.type_check && n.db.queue_bad {
                        Reply::Arr(vec![Reply::Int(0), Reply::Int(-1)])
                    } else {
                        n.lease(w, fx)?
                    };
                    Ok(Reply::Arr(vec![completed, next]))
                })
            }
            Action::Beat { r } => Ok(n.runner_beat(r, fx)),
            Action::Leave { r } => {
                n.registry.running[r as usize] = false;
                Ok(n.runner_leave(r))
            }
            Action::Kill { r } => {
                n.registry.running[r as usize] = false;
                Ok(Reply::Local)
            }
            Action::FailBatch => (|| {
                let mut replies = Vec::new();
                for w in 0..n.workers.len() {
                    if let Some(h) = s.workers[w] {
                        n.workers[w] = None;
                        replies.push(n.fail(h, Some(0))?);
                    }
                }
                Ok(Reply::Arr(replies))
            })(),
            Action::RenewBatch => {
                let mut codes = Vec::new();
                for w in 0..n.workers.len() {
                    if let Some(h) = s.workers[w] {
                        let code = n
                            .renew(h)
                            .expect("renew writes no key that can be corrupted");
                        if code != Reply::Int(1) {
                            n.workers[w] = None;
                        }
                        codes.push(code);
                    }
                }
                Ok(Reply::Arr(codes))
            }
            Action::CompleteBatch => {
                let mut codes = Vec::new();
                let mut result = Ok(());
                for w in 0..n.workers.len() {
                    if let Some(h) = s.workers[w] {
                        n.workers[w] = None;
                        match n.complete(h, fx) {
                            Ok(code) => codes.push(code),
                            Err(e) => {
                                result = Err(e);
                                break;
                            }
                        }
                    }
                }
                result.map(|()| Reply::Arr(codes))
            }
            Action::Cancel { id } => n.cancel(id, fx),
            Action::Clean => n.clean(fx),
            Action::DeadRequeue { id } => n.dead_requeue(id),
            Action::DeadPurge => n.dead_purge(),
            Action::Promote { id } => n.promote(id),
            Action::Pause => n.pause(true),
            Action::Resume => n.pause(false),
            Action::OutsidePush { id } => {
                n.outside += 1;
                n.outside_push(id)
            }
            Action::Hold { ms } => Ok(n.hold(ms)),
            Action::PauseGroup { .. }
            | Action::ResumeGroup { .. }
            | Action::SetGroupLimit { .. }
            | Action::HoldGroup { .. } => n.group_op(a),
        };
        if let (Action::Add { .. }, Ok(Reply::Int(1)), Some(capacity)) = (a, &r, n.config.capacity)
        {
            if n.occupancy() > capacity {
                n.bad |= ADD_PAST_CAPACITY;
            }
        }
        // The ghost's view of a pause: a lease call made while P:paused existed grants nothing,
        // whatever the transcription of lease does.
        if s.db.paused
            && matches!(a, Action::Lease { .. } | Action::CompleteAndLease { .. })
            && n.next_token != s.next_token
        {
            n.bad |= LEASED_WHILE_PAUSED;
        }
        match r {
            Ok(reply) => (n, reply),
            Err(WrongType) if fx.type_check => (s.clone(), Reply::Err),
            Err(WrongType) => (n, Reply::Err),
        }
    }
}

impl Model for QueueModel {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        let mut s = State::new(self.scope.workers);
        s.config = self.scope.config;
        s.registry.running = vec![true; self.scope.runners as usize];
        vec![s]
    }

    fn actions(&self, s: &State, out: &mut Vec<Action>) {
        let sc = &self.scope;
        if s.now < sc.max_clock {
            out.push(Action::Tick);
        }
        if (s.ghosts.len() as u8) < sc.max_adds {
            for id in 0..sc.ids {
                for &opts in &sc.options {
                    out.push(Action::Add { id, opts });
                }
            }
        }
        for w in 0..sc.workers {
            match s.workers[w as usize] {
                None if s.next_token < sc.max_leases => out.push(Action::Lease { w }),
                None => {}
                Some(_) => {
                    out.push(Action::Complete { w });
                    if sc.progress {
                        out.push(Action::Progress { w });
                    }
                    if sc.batches && s.next_token < sc.max_leases {
                        out.push(Action::CompleteAndLease { w });
                    }
                    for &delay in &sc.fail_delays {
                        out.push(Action::Fail { w, delay });
                    }
                    out.push(Action::FailDead { w });
                    if sc.renew_release {
                        out.push(Action::Release { w });
                        out.push(Action::Renew { w });
                    }
                    for &ms in &sc.release_holds {
                        out.push(Action::ReleaseHold { w, ms });
                    }
                    out.push(Action::Crash { w });
                }
            }
        }
        if sc.batches && s.workers.iter().filter(|h| h.is_some()).count() > 1 {
            out.push(Action::CompleteBatch);
            out.push(Action::FailBatch);
            out.push(Action::RenewBatch);
        }
        if sc.cancel {
            for id in 0..sc.ids {
                out.push(Action::Cancel { id });
            }
        }
        if sc.clean {
            out.push(Action::Clean);
        }
        if sc.dead_letters && !s.db.dead.is_empty() {
            for id in 0..sc.ids {
                out.push(Action::DeadRequeue { id });
            }
            out.push(Action::DeadPurge);
        }
        if sc.promote {
            for id in 0..sc.ids {
                if s.db.delayed.contains_key(&id) {
                    out.push(Action::Promote { id });
                }
            }
        }
        // Not while paused with P:held absent: a paused lease would RENAME the string to P:held
        // (lib/lease.lua's settle_held without a type check), which the model leaves out.
        if s.corrupts < sc.corrupts
            && !s.db.queue_bad
            && s.db.queue.is_empty()
            && (!s.db.paused || !s.db.held.is_empty())
        {
            out.push(Action::Corrupt);
        }
        if s.db.queue_bad {
            out.push(Action::Repair);
        }
        if sc.pause {
            out.push(if s.db.paused {
                Action::Resume
            } else {
                Action::Pause
            });
        }
        if s.db.paused
            && !s.db.queue_bad
            && s.outside < sc.outside_pushes
            && (s.ghosts.len() as u8) < sc.max_adds
        {
            for id in 0..sc.ids {
                let db = &s.db;
                if !db.item.contains_key(&id)
                    && !db.job.contains_key(&id)
                    && !db.data.contains_key(&id)
                {
                    out.push(Action::OutsidePush { id });
                }
            }
        }
        for &ms in &sc.holds {
            out.push(Action::Hold { ms });
        }
        for &(g, ms) in &sc.group_holds {
            out.push(Action::HoldGroup { g, ms });
        }
        for g in 0..sc.group_ops {
            out.push(if s.db.group_paused.contains(&g) {
                Action::ResumeGroup { g }
            } else {
                Action::PauseGroup { g }
            });
            for &limit in &sc.group_limits {
                let now = s.db.group_limit.get(&g).map(|&l| l as u8);
                if now != limit {
                    out.push(Action::SetGroupLimit { g, limit });
                }
            }
        }
        for r in 0..sc.runners {
            if s.registry.running[r as usize] {
                out.push(Action::Beat { r });
                out.push(Action::Leave { r });
                out.push(Action::Kill { r });
            }
        }
    }

    fn next_state(&self, s: &State, a: Action) -> Option<State> {
        Some(self.step(s, a).0)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        let mut props = vec![
            Property::always("no incarnation lost", |_, s: &State| {
                s.live().all(|g| s.reachable(g))
            }),
            Property::always(
                "no cancelled or completed incarnation leased again",
                |_, s: &State| s.bad & LEASED_AFTER_END == 0,
            ),
            Property::always(
                "one winning complete per incarnation, by its holder",
                |_, s: &State| s.bad & WRONG_COMPLETE == 0 && s.ghosts.iter().all(|g| g.wins <= 1),
            ),
            Property::always(
                "expires_after kills only items not started",
                |_, s: &State| s.bad & STARTED_EXPIRED == 0,
            ),
            Property::always("get and count agree with the keys", |_, s: &State| {
                let db = &s.db;
                let state = |id: &Id| db.job.get(id).and_then(|j| j.state);
                s.live()
                    .all(|g| s.get_data(s.ghosts[g as usize].id) == Some(g))
                    && db
                        .delayed
                        .keys()
                        .all(|id| state(id) == Some(JState::Delayed) && db.data.contains_key(id))
                    && db
                        .dead
                        .keys()
                        .all(|id| state(id) == Some(JState::Dead) && db.data.contains_key(id))
                    && db.job.iter().all(|(id, j)| match j.state {
                        Some(JState::Delayed) => db.delayed.contains_key(id),
                        Some(JState::Dead) => db.dead.contains_key(id),
                        _ => true,
                    })
            }),
            Property::always(
                "a drained queue leaves only dead letters",
                |_, s: &State| {
                    let db = &s.db;
                    let drained = db.queue.is_empty()
                        && db.held.is_empty()
                        && db.prio1.is_empty()
                        && db.processing.is_empty()
                        && s.live()
                            .all(|g| db.dead.contains_key(&s.ghosts[g as usize].id));
                    !drained
                        || (db.item.is_empty()
                            && db.groups.is_empty()
                            && db.group_active.is_empty()
                            && db.group_waiting == 0
                            && db.delayed.is_empty()
                            && db.leased.is_empty()
                            && db.data.keys().all(|id| db.dead.contains_key(id))
                            && db.job.keys().all(|id| db.dead.contains_key(id)))
                },
            ),
            Property::always("nothing leased while paused", |_, s: &State| {
                s.bad & LEASED_WHILE_PAUSED == 0
            }),
            Property::always(
                "unpaused, P:held is gone or leases take it first",
                |_, s: &State| s.db.paused || s.db.held.is_empty() || s.held_hint,
            ),
            Property::always("the runner registry has a TTL", |_, s: &State| {
                s.registry.workers.is_empty() || s.registry.workers_expiry.is_some()
            }),
            Property::sometimes("an incarnation completes", |_, s: &State| {
                s.ghosts.iter().any(|g| g.status == Status::Completed)
            }),
            Property::sometimes("a cancelled leased item is removed", |_, s: &State| {
                s.ghosts
                    .iter()
                    .any(|g| g.cancel_marked && g.status == Status::Cancelled)
            }),
            Property::sometimes("an item is dead", |_, s: &State| !s.db.dead.is_empty()),
            Property::sometimes("a delayed item is leased", |_, s: &State| {
                s.workers
                    .iter()
                    .flatten()
                    .any(|h| matches!(h.inc, Inc::Base(_)))
                    && s.db.delayed.is_empty()
                    && s.next_base > 0
            }),
        ];
        props.push(Property::always(
            "a window of the rate limit grants at most rate_max leases",
            |_, s: &State| s.bad & PAST_RATE == 0,
        ));
        props.push(Property::always(
            "nothing leased while held off",
            |_, s: &State| s.bad & LEASED_WHILE_HELD == 0,
        ));
        props.push(Property::always(
            "adds never push past the capacity",
            |_, s: &State| s.bad & ADD_PAST_CAPACITY == 0,
        ));
        if self.scope.config.rate.is_some() {
            props.push(Property::sometimes(
                "a lease would be limited with items waiting",
                |_, s: &State| {
                    let max = s.config.rate.map_or(HOLD, |r| r.0);
                    s.db.limit
                        .is_some_and(|(used, _)| used >= max && used < HOLD)
                        && !s.db.queue.is_empty()
                },
            ));
        }
        if !self.scope.holds.is_empty() {
            props.push(Property::sometimes(
                "the queue is held off with items waiting",
                |_, s: &State| {
                    s.db.limit.is_some_and(|(used, _)| used == HOLD) && !s.db.queue.is_empty()
                },
            ));
        }
        if self.scope.config.capacity.is_some() {
            props.push(Property::sometimes(
                "an add was refused FULL after a lease made room",
                |_, s: &State| !s.db.room && s.next_token > 0 && s.ghosts.len() > 1,
            ));
            props.push(Property::sometimes(
                "a requeue takes the queue past its capacity",
                |_, s: &State| s.config.capacity.is_some_and(|c| s.occupancy() > c),
            ));
        }
        if self.scope.options.iter().any(|o| o.group.is_some()) {
            props.push(Property::always(
                "a group's leases never pass its limit",
                |_, s: &State| s.bad & PAST_GROUP_LIMIT == 0,
            ));
            props.push(Property::always(
                "P:group_active counts each group's leased items",
                |_, s: &State| s.slots_agree(),
            ));
            props.push(Property::always(
                "a group's counts agree with its set",
                |_, s: &State| s.groups_agree(),
            ));
            props.push(Property::always(
                "a ready group is on the ring",
                |_, s: &State| s.ring_complete(),
            ));
            props.push(Property::always(
                "a group leases in its order",
                |_, s: &State| s.bad & NOT_FIFO == 0,
            ));
            props.push(Property::always(
                "redis-work-queue clients never see a grouped item",
                |_, s: &State| s.grouped_hidden(),
            ));
            props.push(Property::sometimes(
                "a group is at its limit with items waiting",
                |_, s: &State| {
                    s.db.groups.iter().any(|(&g, z)| {
                        !z.is_empty()
                            && s.db.group_active.get(&g).copied().unwrap_or(0) >= s.group_limit(g)
                    })
                },
            ));
        }
        if self.scope.group_ops > 0 {
            props.push(Property::sometimes(
                "two items of one group are leased at once",
                |_, s: &State| s.db.group_active.values().any(|&n| n >= 2),
            ));
            props.push(Property::sometimes(
                "a group waits while paused",
                |_, s: &State| {
                    s.db.group_paused
                        .iter()
                        .any(|g| s.db.groups.contains_key(g))
                },
            ));
        }
        if self.scope.config.group_rate.is_some() || !self.scope.group_holds.is_empty() {
            props.push(Property::always(
                "a window of a group's rate limit takes at most group_rate_max items",
                |_, s: &State| s.bad & PAST_GROUP_RATE == 0,
            ));
            props.push(Property::always(
                "nothing of a group leased while it is held off",
                |_, s: &State| s.bad & LEASED_WHILE_GROUP_HELD == 0,
            ));
            props.push(Property::always(
                "a group leaves the ring only when its window is used up or it is held",
                |_, s: &State| s.bad & GROUP_LIMITED_EARLY == 0,
            ));
            props.push(Property::always(
                "a parked group waits for its window and the next housekeeping only",
                |_, s: &State| s.parked_bounded(),
            ));
            props.push(Property::sometimes(
                "a group waits for its window with items",
                |_, s: &State| s.db.group_wait.keys().any(|g| s.db.groups.contains_key(g)),
            ));
            props.push(Property::sometimes(
                "another group is leased while one waits for its window",
                |_, s: &State| {
                    s.workers.iter().flatten().any(|h| {
                        s.job_of(h.id)
                            .group
                            .is_some_and(|g| s.db.group_wait.keys().any(|&p| p != g))
                    })
                },
            ));
            props.push(Property::sometimes(
                "housekeeping puts a group whose window ended back on the ring",
                |_, s: &State| s.seen & SEEN_GROUP_BACK != 0,
            ));
        }
        if !self.scope.group_holds.is_empty() || !self.scope.release_holds.is_empty() {
            props.push(Property::sometimes(
                "a held group waits with items",
                |_, s: &State| {
                    s.db.group_rate
                        .iter()
                        .any(|(g, key)| key.0 >= HOLD && s.db.groups.contains_key(g))
                },
            ));
        }
        if self.scope.pause {
            props.push(Property::sometimes(
                "an item waits in P:held while paused",
                |_, s: &State| s.db.paused && !s.db.held.is_empty(),
            ));
            props.push(Property::sometimes(
                "P:held and P:queue both hold ids while paused",
                |_, s: &State| s.db.paused && !s.db.held.is_empty() && !s.db.queue.is_empty(),
            ));
        }
        props
    }
}

/// The fields of `P:job:X` the model follows, as the replay compares them.
pub const JOB_FIELDS: [&str; 12] = [
    "attempts",
    "cancelled",
    "due",
    "expires_at",
    "group",
    "group_seq",
    "inc",
    "leased_at",
    "max_attempts",
    "priority",
    "progress",
    "state",
];

impl Job {
    /// `field=value` pairs of [`JOB_FIELDS`] that are set, in that order, comma-separated.
    pub fn text(&self) -> String {
        let f: [Option<String>; 12] = [
            self.attempts.map(|v| v.to_string()),
            self.cancelled.then(|| "1".to_string()),
            self.due.map(|v| v.to_string()),
            self.expires_at.map(|v| v.to_string()),
            self.group.map(group_name),
            self.group_seq.map(|v| v.to_string()),
            self.inc.map(|v| v.text()),
            self.leased_at.map(|v| v.to_string()),
            self.max_attempts.map(|v| v.to_string()),
            self.priority.map(|v| v.to_string()),
            self.progress.then(|| "p".to_string()),
            self.state.map(|v| v.text().to_string()),
        ];
        JOB_FIELDS
            .iter()
            .zip(f)
            .filter_map(|(name, v)| v.map(|v| format!("{name}={v}")))
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl State {
    /// The queue's keys under `prefix` as the replay reads them from Redis: key -> `type:value`
    /// (lists head first, sorted sets by member, job hashes as [`Job::text`]).
    pub fn keys(&self, prefix: &str) -> BTreeMap<String, String> {
        let db = &self.db;
        let mut k = BTreeMap::new();
        let list = |v: &Vec<Id>| {
            let names: Vec<String> = v.iter().map(|&i| id_name(i)).collect();
            format!("list:{}", names.join(","))
        };
        let zset = |z: &BTreeMap<Id, u64>| {
            let e: Vec<String> = z
                .iter()
                .map(|(&i, s)| format!("{}={s}", id_name(i)))
                .collect();
            format!("zset:{}", e.join(","))
        };
        if db.queue_bad {
            k.insert(format!("{prefix}:queue"), "string:x".to_string());
        } else if !db.queue.is_empty() {
            k.insert(format!("{prefix}:queue"), list(&db.queue));
        }
        if !db.prio1.is_empty() {
            k.insert(format!("{prefix}:prio:1"), list(&db.prio1));
        }
        if !db.held.is_empty() {
            k.insert(format!("{prefix}:held"), list(&db.held));
        }
        if db.paused {
            k.insert(format!("{prefix}:paused"), "string:1".to_string());
        }
        if let Some((count, _)) = db.limit {
            k.insert(format!("{prefix}:limit"), format!("string:{count}"));
        }
        if db.room {
            k.insert(format!("{prefix}:room"), "list:1".to_string());
        }
        if !db.processing.is_empty() {
            k.insert(format!("{prefix}:processing"), list(&db.processing));
        }
        if db.prios {
            k.insert(format!("{prefix}:prios"), "zset:1=1".to_string());
        }
        if db.wake {
            k.insert(format!("{prefix}:wake"), "list:1".to_string());
        }
        for (name, z) in [
            ("delayed", &db.delayed),
            ("leased", &db.leased),
            ("dead", &db.dead),
        ] {
            if !z.is_empty() {
                k.insert(format!("{prefix}:{name}"), zset(z));
            }
        }
        for (&i, &g) in &db.item {
            k.insert(
                format!("{prefix}:item:{}", id_name(i)),
                format!("string:d{g}"),
            );
        }
        for (&i, &g) in &db.data {
            k.insert(
                format!("{prefix}:data:{}", id_name(i)),
                format!("string:d{g}"),
            );
        }
        for (&i, (v, _)) in &db.lease {
            let v = match v {
                LeaseVal::Tok(t) => format!("t{t}"),
                LeaseVal::Cancelled => "cancelled".to_string(),
            };
            k.insert(
                format!("{prefix}:lease:{}", id_name(i)),
                format!("string:{v}"),
            );
        }
        for (&i, j) in &db.job {
            k.insert(
                format!("{prefix}:job:{}", id_name(i)),
                format!("hash:{}", j.text()),
            );
        }
        // Groups (5.20): sets as their members sorted, hashes as `field=value` sorted.
        for (&g, z) in &db.groups {
            k.insert(format!("{prefix}:group:{}", group_name(g)), zset(z));
        }
        let names =
            |v: &mut dyn Iterator<Item = Grp>| v.map(group_name).collect::<Vec<_>>().join(",");
        if !db.ready.is_empty() {
            k.insert(
                format!("{prefix}:ready"),
                format!("list:{}", names(&mut db.ready.iter().copied())),
            );
        }
        for (name, set) in [
            ("ready_set", &db.ready_set),
            ("group_paused", &db.group_paused),
        ] {
            if !set.is_empty() {
                k.insert(
                    format!("{prefix}:{name}"),
                    format!("set:{}", names(&mut set.iter().copied())),
                );
            }
        }
        for (name, hash) in [
            ("group_active", &db.group_active),
            ("group_limit", &db.group_limit),
        ] {
            if !hash.is_empty() {
                let f: Vec<String> = hash
                    .iter()
                    .map(|(&g, v)| format!("{}={v}", group_name(g)))
                    .collect();
                k.insert(format!("{prefix}:{name}"), format!("hash:{}", f.join(",")));
            }
        }
        if db.group_waiting > 0 {
            k.insert(
                format!("{prefix}:group_waiting"),
                format!("string:{}", db.group_waiting),
            );
        }
        if db.group_seq > 0 {
            k.insert(
                format!("{prefix}:group_seq"),
                format!("string:{}", db.group_seq),
            );
        }
        // Group rate limits (5.21).
        for (&g, (count, _)) in &db.group_rate {
            k.insert(
                format!("{prefix}:group_rate:{}", group_name(g)),
                format!("string:{count}"),
            );
        }
        if !db.group_wait.is_empty() {
            let e: Vec<String> = db
                .group_wait
                .iter()
                .map(|(&g, s)| format!("{}={s}", group_name(g)))
                .collect();
            k.insert(
                format!("{prefix}:group_wait"),
                format!("zset:{}", e.join(",")),
            );
        }
        k
    }
}
