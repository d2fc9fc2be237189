//! The operations of a queue, written once: each one's name, arguments, defaults and reply, as
//! every language offers it. The bindings are checked against this table by a test in each
//! language (a missing, extra or misnamed operation or argument fails it), the way their error
//! tables are checked against spec/errors.md; docs/reference/operations.md is rendered from it.
//!
//! How each language spells an entry:
//! - Rust: the async [`crate::Queue`] and the blocking [`crate::blocking::Queue`] have a method
//!   per name in [`Operation::rust`] (usually the operation's own name).
//! - Python: `Queue` and `AsyncQueue` have a method of the operation's name; its parameters are
//!   the arguments, in order, the optional ones with a default of `None` (or the default shown).
//!   Durations are seconds (a float or a `timedelta`).
//! - Node: `Queue` has a method of the camelCase name ([`Operation::node_name`]); the required
//!   arguments come first, in order, then the optional ones as keys of an options object
//!   ([`Arg::node_name`]: camelCase, durations in milliseconds with an `Ms` suffix).
//! - C: `leaseq_queue_<name>` ([`Operation::c_name`]); durations are `<name>_ms` (`int64_t`),
//!   bytes are `(ptr, len)`, and optional arguments take a sentinel or an options struct.

use crate::worker::Event;

/// What an argument is: it decides how each language takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// One item (id, data and options).
    Item,
    /// A list of items.
    Items,
    /// A lease returned by a lease call.
    Lease,
    /// A list of leases.
    Leases,
    /// A list of completions: each a lease, with or without a result to keep.
    Completions,
    /// A list of failures: each a lease, an error, its type, a retry decision and (optional)
    /// a trace.
    Failures,
    /// An item's id: text, or bytes for ids other clients wrote.
    Id,
    /// A list of ids.
    Ids,
    /// Bytes (text is stored as its UTF-8).
    Bytes,
    /// Text.
    Text,
    /// A duration (seconds in Python, milliseconds elsewhere).
    Duration,
    /// A non-negative count.
    Count,
    /// Yes or no.
    Flag,
    /// A state of an item (`waiting`, `delayed`, `leased`, `dead`, `blocked`, `done`: completed with its
    /// result kept).
    State,
    /// What to do with a failed item: the backoff, a delay, or never.
    Retry,
    /// The fields of a queue's configuration.
    Config,
    /// A recurring job: a cron expression (with its time zone) or a period, the item each tick
    /// adds, and what to do with missed ticks.
    Schedule,
    /// A list of flows: each an item with its children (items, or flows of their own).
    Flows,
}

/// One argument of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Arg {
    /// Its name in snake_case (Python's parameter; Node's in camelCase).
    pub name: &'static str,
    /// What it is.
    pub kind: Kind,
    /// Whether the caller must give it.
    pub required: bool,
    /// What applies when an optional argument is left out (empty for a required one).
    pub default: &'static str,
    /// The one language that has this argument, for a language's own idiom (Python's
    /// keyword-only `block`), or `None`: every language.
    pub only: Option<&'static str>,
}

/// One operation of a queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Operation {
    /// Its name in snake_case: the Python method, and the C function's suffix.
    pub name: &'static str,
    /// Its arguments, in order (the queue itself not included).
    pub args: &'static [Arg],
    /// What it returns, in words common to the four languages.
    pub reply: &'static str,
    /// Round trips to Redis: `1`, or `0` for one that sends nothing.
    pub round_trips: u8,
    /// What it does, in one line.
    pub summary: &'static str,
    /// The Rust methods that implement it (several when Rust splits it by its optional
    /// arguments, as `complete` and `complete_with_result`).
    pub rust: &'static [&'static str],
    /// The C function, when it is not `leaseq_queue_<name>`.
    pub c: Option<&'static str>,
}

const fn req(name: &'static str, kind: Kind) -> Arg {
    Arg {
        name,
        kind,
        required: true,
        default: "",
        only: None,
    }
}

const fn opt(name: &'static str, kind: Kind, default: &'static str) -> Arg {
    Arg {
        name,
        kind,
        required: false,
        default,
        only: None,
    }
}

const fn op(
    name: &'static str,
    args: &'static [Arg],
    reply: &'static str,
    summary: &'static str,
) -> Operation {
    Operation {
        name,
        args,
        reply,
        round_trips: 1,
        summary,
        rust: &[],
        c: None,
    }
}

const LEASE: Arg = req("lease", Kind::Lease);
const ID: Arg = req("id", Kind::Id);
const TTL: Arg = opt("ttl", Kind::Duration, "30 s");
const TIMEOUT: Arg = opt("timeout", Kind::Duration, "no wait");
const RESULT: Arg = opt("result", Kind::Bytes, "no result kept");
/// How long an add waits for room in a bounded queue (`QueueConfig::capacity`).
const ROOM: Arg = opt("timeout", Kind::Duration, "no wait: FULL at once");
const KEEP: Arg = opt(
    "keep_result_for",
    Kind::Duration,
    "the item's, else the queue's, else one day (only with a result)",
);

/// Every operation of a queue, in the order the documentation lists them.
pub static OPERATIONS: &[Operation] = &[
    Operation {
        rust: &["add", "add_wait"],
        ..op(
            "add",
            &[req("item", Kind::Item), ROOM],
            "whether it was added (false: the id exists)",
            "Adds an item; a delay, a time to run at, a priority and retry settings come with it.",
        )
    },
    op(
        "add_unique",
        &[req("item", Kind::Item)],
        "nothing",
        "Adds an item, replacing one of the same id (its data, options and history).",
    ),
    Operation {
        rust: &["add_batch", "add_batch_wait"],
        ..op(
            "add_batch",
            &[req("items", Kind::Items), ROOM],
            "how many were added",
            "Adds up to 1000 items in one round trip; ids that exist are skipped.",
        )
    },
    op(
        "add_flow",
        &[req("parent", Kind::Item), req("children", Kind::Flows)],
        "how many were added",
        "Adds a parent and its children (nested flows too, 1000 items at most) in one call; the parent runs after every child completed.",
    ),
    Operation {
        args: &[
            TTL,
            TIMEOUT,
            Arg {
                only: Some("python"),
                ..opt("block", Kind::Flag, "wait while `timeout` allows")
            },
        ],
        ..op(
            "lease",
            &[],
            "a lease, or none",
            "Leases the next item for `ttl`, waiting up to `timeout` (server-side) for one.",
        )
    },
    op(
        "lease_batch",
        &[req("n", Kind::Count), TTL, TIMEOUT],
        "a list of leases",
        "Leases up to `n` (at most 1000) items in one round trip.",
    ),
    Operation {
        rust: &["complete", "complete_with_result"],
        ..op(
            "complete",
            &[LEASE, RESULT, KEEP],
            "whether this call completed the item",
            "Completes a leased item, keeping `result` for `result`/`wait_result` if given.",
        )
    },
    Operation {
        rust: &["complete_and_lease", "complete_and_lease_with_result"],
        ..op(
            "complete_and_lease",
            &[LEASE, TTL, RESULT, KEEP],
            "whether it completed, and the next lease or none",
            "Completes a lease and leases the next item (no wait) in one round trip.",
        )
    },
    op(
        "renew",
        &[LEASE, TTL],
        "whether the lease was renewed",
        "Extends a lease to `ttl` from now while it is still this holder's.",
    ),
    op(
        "renew_outcome",
        &[LEASE, TTL],
        "renewed, or why not (expired, taken, completed, cancelled, older incarnation)",
        "Like `renew`, saying what it found.",
    ),
    Operation {
        rust: &["fail", "fail_with_trace"],
        ..op(
            "fail",
            &[
                LEASE,
                req("error", Kind::Text),
                opt("error_type", Kind::Text, "the error's class, else empty"),
                opt("retry", Kind::Retry, "the item's backoff while attempts remain"),
                opt("trace", Kind::Text, "none (an earlier failure's is removed)"),
            ],
            "retrying (after a delay), dead, or not held (why)",
            "Records a failed attempt (and its trace, at most 16 KiB): retried after a backoff, \
             or dead when out of attempts.",
        )
    },
    op(
        "release",
        &[LEASE, opt("delay", Kind::Duration, "none: it waits again now")],
        "whether it was released",
        "Hands the item back without counting a failure.",
    ),
    op(
        "progress",
        &[LEASE, req("value", Kind::Bytes)],
        "whether it was stored",
        "Stores a small value (at most 64 KiB) on the leased item, shown by `get`.",
    ),
    Operation {
        round_trips: 0,
        ..op(
            "lease_from_parts",
            &[
                ID,
                req("token", Kind::Text),
                req("incarnation", Kind::Text),
                req("attempt", Kind::Count),
            ],
            "a lease",
            "Rebuilds a lease from its parts (kept by another process) to finish it.",
        )
    },
    op(
        "complete_batch",
        &[req("completions", Kind::Completions)],
        "whether each completed its item, in order",
        "Completes up to 1000 leases in one round trip, each as `complete` would.",
    ),
    op(
        "complete_and_lease_batch",
        &[req("completions", Kind::Completions), req("n", Kind::Count), TTL],
        "whether each completed, and the new leases",
        "Completes leases and leases up to `n` more (no wait) in one round trip.",
    ),
    op(
        "renew_batch",
        &[req("leases", Kind::Leases), TTL],
        "each lease's renew outcome, in order",
        "Extends up to 1000 leases in one round trip.",
    ),
    Operation {
        rust: &["fail_batch", "fail_batch_with_traces"],
        ..op(
            "fail_batch",
            &[req("failures", Kind::Failures)],
            "each failure's outcome, in order",
            "Fails up to 1000 leases in one round trip, each as `fail` would.",
        )
    },
    op(
        "result",
        &[ID],
        "the kept result, or none",
        "The result kept for an item.",
    ),
    op(
        "wait_result",
        &[ID, req("timeout", Kind::Duration)],
        "the kept result, or none when the time passed first; the error `DEAD` when the item died",
        "Waits (server-side) up to `timeout` for an item's result; a dead item ends the wait \
         with the error `DEAD`.",
    ),
    op(
        "get",
        &[ID],
        "the job (state, attempts, errors, progress, result, times), or none",
        "Everything known about one item.",
    ),
    op(
        "dependencies",
        &[ID],
        "what it was added to wait for, what it still waits for, and how many blocked items wait for it",
        "What an item waits for and what waits for it (spec 5.24), while it exists: a completed item answers empty lists.",
    ),
    op(
        "dependency_results",
        &[ID],
        "a (dependency id, kept result or none) pair per dependency, in order",
        "The kept results of an item's dependencies: a flow's parent reads its children's.",
    ),
    op(
        "list",
        &[
            req("state", Kind::State),
            opt("start", Kind::Count, "0"),
            opt("count", Kind::Count, "100"),
        ],
        "a page of entries (id, time, attempts, error, name)",
        "A page of the items in a state, in the order they will be handled.",
    ),
    op(
        "find",
        &[
            req("state", Kind::State),
            opt("name", Kind::Text, "any name"),
            opt("error_type", Kind::Text, "any error type"),
            opt("start", Kind::Count, "0"),
            opt("count", Kind::Count, "100"),
        ],
        "the matching entries, the position to go on from (none at the end), and how many positions were examined",
        "The items of a state with a name or error type, looking at most at 1000 positions per call.",
    ),
    op(
        "promote",
        &[ID],
        "whether the item was delayed",
        "Makes a delayed item wait now, as if it were due.",
    ),
    op(
        "count",
        &[req("state", Kind::State)],
        "a number",
        "How many items are in a state.",
    ),
    op(
        "stats",
        &[],
        "counts per state, the oldest waiting item's age, per-minute counters when on",
        "The queue at a glance.",
    ),
    op(
        "counts_by_name",
        &[],
        "for each item name of the last hour, its jobs completed, failed and dead; none while the counters are off",
        "What each kind of job did in the last hour.",
    ),
    op(
        "exists",
        &[],
        "whether any of its fixed keys exists",
        "Whether the queue exists: tells a mistyped queue from an empty one.",
    ),
    op(
        "pause",
        &[],
        "whether it was running",
        "Pauses the queue: nothing is leased (by any client) until it is resumed; adds go on.",
    ),
    op(
        "resume",
        &[],
        "whether it was paused",
        "Resumes a paused queue; waiting leases and runners wake at once.",
    ),
    op(
        "is_paused",
        &[],
        "whether the queue is paused",
        "Whether the queue is paused (also in `stats`).",
    ),
    op(
        "pause_group",
        &[req("group", Kind::Text)],
        "whether it was running",
        "Pauses one group: its items are not leased until it is resumed; the queue goes on.",
    ),
    op(
        "resume_group",
        &[req("group", Kind::Text)],
        "whether it was paused",
        "Resumes a paused group.",
    ),
    op(
        "set_group_limit",
        &[
            req("group", Kind::Text),
            opt("limit", Kind::Count, "none: the queue's group_concurrency"),
        ],
        "nothing",
        "Sets how many items of one group may be leased at once (1 to 1000).",
    ),
    op(
        "group",
        &[req("group", Kind::Text)],
        "its waiting and leased items, its limit, whether it is paused, its rate limit's wait",
        "One group at a glance.",
    ),
    op(
        "rate_limit",
        &[req("duration", Kind::Duration)],
        "how long leases are held off",
        "Holds every client's leases off for `duration`: a handler was rate limited (HTTP 429).",
    ),
    op(
        "rate_limit_group",
        &[req("group", Kind::Text), req("duration", Kind::Duration)],
        "how long the group is held off",
        "Holds one group's leases off for `duration` (its API answered 429); the queue goes on.",
    ),
    op(
        "cancel",
        &[ID],
        "the state it was in, or none",
        "Cancels an item: removed if waiting, delayed or dead; a leased one ends at its holder's next call.",
    ),
    op(
        "dead_requeue",
        &[req("ids", Kind::Ids)],
        "how many were requeued",
        "Puts up to 1000 dead items back to waiting, attempts reset.",
    ),
    op(
        "dead_requeue_each",
        &[req("ids", Kind::Ids)],
        "whether each was requeued (false: not a dead letter), in order",
        "Like `dead_requeue`, naming which ids were not dead letters.",
    ),
    op(
        "dead_requeue_oldest",
        &[opt("n", Kind::Count, "all")],
        "how many were requeued",
        "Requeues the `n` oldest dead items.",
    ),
    op(
        "dead_purge",
        &[opt("n", Kind::Count, "all")],
        "how many were deleted",
        "Deletes the `n` oldest dead items.",
    ),
    op(
        "config",
        &[],
        "the stored configuration",
        "The queue's stored settings (only the fields stored).",
    ),
    op(
        "set_config",
        &[req("config", Kind::Config)],
        "nothing",
        "Stores the settings given, all checked before anything is written.",
    ),
    op(
        "reset_config",
        &[],
        "nothing",
        "Removes the stored settings: the defaults apply again.",
    ),
    op(
        "light_clean",
        &[],
        "what it requeued, removed, promoted and sent to the dead letters",
        "Repairs what crashed clients left; run it about once per lease TTL.",
    ),
    op(
        "deep_clean",
        &[],
        "what it requeued, removed, promoted and sent to the dead letters",
        "A light clean plus a walk over every key of the queue; run it rarely.",
    ),
    Operation {
        c: Some("leaseq_queue_len"),
        ..op(
            "queue_len",
            &[],
            "a number",
            "How many items wait, at every priority.",
        )
    },
    op(
        "processing_len",
        &[],
        "a number",
        "How many items are being processed: leased by leaseq or by redis-work-queue clients.",
    ),
    // Recurring jobs (spec/PROTOCOL.md 5.23).
    op(
        "upsert_schedule",
        &[req("name", Kind::Text), req("schedule", Kind::Schedule)],
        "whether the schedule is new",
        "Stores a recurring job by name, new or changed; a change never fires a tick twice nor skips one.",
    ),
    op(
        "remove_schedule",
        &[req("name", Kind::Text)],
        "whether there was one",
        "Removes a recurring job; the items it added stay.",
    ),
    op(
        "get_schedule",
        &[req("name", Kind::Text)],
        "the schedule with its next fire time, or none",
        "One recurring job.",
    ),
    op(
        "schedules",
        &[opt("start", Kind::Count, "0"), opt("count", Kind::Count, "100")],
        "a page of schedules by next fire time, and how many there are",
        "The queue's recurring jobs with their next fire times.",
    ),
    op(
        "fire_due_schedules",
        &[],
        "how many ticks it fired and skipped",
        "Fires the due recurring jobs once, where no runner does (one more round trip per 100 due).",
    ),
    op(
        "read_events",
        &[
            opt("after", Kind::Text, "none: from now"),
            opt("count", Kind::Count, "100"),
        ],
        "the entries after `after` (oldest first, a gap first when some were trimmed away), the stream's last id, whether events are on",
        "One page of the queue's event stream, without waiting.",
    ),
    op(
        "events",
        &[opt("after", Kind::Text, "none: from now")],
        "a follower: every entry in order, waiting for the next",
        "Follows the queue's event stream from now, or resuming after an entry id.",
    ),
];

/// One operation of a partitioned queue (spec/PROTOCOL.md 5.25): the queue operation of the
/// same name, sent where the item, the lease or the question lives, or one of the partitioned
/// queue's own (which send nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PartitionedOperation {
    /// Its name in snake_case: the Python method, and the C function's suffix
    /// (`leaseq_partitioned_<name>`); Node's method is the name in camelCase.
    pub name: &'static str,
    /// Where it goes, in one line.
    pub route: &'static str,
    /// The Rust methods of [`crate::Partitioned`] that implement it, when not the name alone.
    pub rust: &'static [&'static str],
}

const fn part(name: &'static str, route: &'static str) -> PartitionedOperation {
    PartitionedOperation {
        name,
        route,
        rust: &[],
    }
}

/// Every operation of a partitioned queue (`Partitioned` in Rust, `PartitionedQueue` in
/// Python and Node, `leaseq_partitioned` in C), in the order the documentation lists them.
/// One that shares its name with a queue operation ([`OPERATIONS`]) takes that operation's
/// arguments and returns what it returns, for the logical queue.
pub static PARTITIONED: &[PartitionedOperation] = &[
    PartitionedOperation {
        rust: &["add", "add_wait"],
        ..part(
            "add",
            "the item's partition: by its group, else where its dependencies are (looked up), else its id",
        )
    },
    part(
        "add_unique",
        "the item's partition, routed as add routes it, without the id check",
    ),
    PartitionedOperation {
        rust: &["add_batch", "add_batch_wait"],
        ..part(
            "add_batch",
            "each item's partition: one call per partition touched, sent at once",
        )
    },
    part(
        "add_flow",
        "one partition for the whole flow: the root's, by its group, else its id (dependencies outside it looked up)",
    ),
    part(
        "lease",
        "the partitions in a rotating order; a wait waits on all of them",
    ),
    part("lease_batch", "as many partitions as it takes, in turn"),
    PartitionedOperation {
        rust: &["complete", "complete_with_result"],
        ..part("complete", "the lease's partition")
    },
    PartitionedOperation {
        rust: &["fail", "fail_with_trace"],
        ..part("fail", "the lease's partition")
    },
    part(
        "complete_batch",
        "each lease's partition: one call per partition touched, sent at once",
    ),
    part(
        "renew_batch",
        "each lease's partition: one call per partition touched, sent at once",
    ),
    PartitionedOperation {
        rust: &["fail_batch", "fail_batch_with_traces"],
        ..part(
            "fail_batch",
            "each lease's partition: one call per partition touched, sent at once",
        )
    },
    part(
        "get",
        "the partition the id routes to, then the others at once",
    ),
    part(
        "cancel",
        "the partition the id routes to, then the others at once",
    ),
    part(
        "result",
        "the partition the id routes to, then the others at once",
    ),
    part(
        "promote",
        "the partition the id routes to, then the others at once",
    ),
    part(
        "dependencies",
        "the partition the id routes to, then the others at once",
    ),
    part(
        "dependency_results",
        "the partition the id routes to, then the others at once",
    ),
    part(
        "wait_result",
        "looked up in every partition at once, then waited for where it is (in all of them when found in none)",
    ),
    PartitionedOperation {
        rust: &["count_in"],
        ..part("count", "every partition at once, summed")
    },
    part("list", "the partitions one after another, as one list"),
    part(
        "find",
        "the partition that holds position start (the partitions one after another, as list numbers them)",
    ),
    part(
        "stats",
        "every partition at once: the total and each partition's figures",
    ),
    part("pause", "every partition"),
    part("resume", "every partition"),
    part("is_paused", "every partition at once: true when every one is paused"),
    part(
        "counts_by_name",
        "every partition at once, summed by name",
    ),
    part(
        "exists",
        "every partition at once: true when any exists",
    ),
    part("queue_len", "every partition at once, summed"),
    part("processing_len", "every partition at once, summed"),
    part(
        "rate_limit",
        "every partition at once: the longest hold in place",
    ),
    part(
        "dead_requeue",
        "each id's partition, then the others at once for the ids not requeued",
    ),
    part(
        "dead_requeue_each",
        "each id's partition, then the others at once for the ids not requeued",
    ),
    part(
        "dead_requeue_oldest",
        "the n oldest dead letters of the logical queue, by time of death over every partition (each partition's oldest read at once, then its share acted on)",
    ),
    part(
        "dead_purge",
        "the n oldest dead letters of the logical queue, chosen as dead_requeue_oldest chooses them",
    ),
    part(
        "config",
        "partition 0, whose settings set_config gives every partition",
    ),
    part("set_config", "every partition"),
    part("reset_config", "every partition"),
    part(
        "light_clean",
        "every partition at once, the reports summed",
    ),
    part(
        "deep_clean",
        "every partition, one after another, the reports summed",
    ),
    part(
        "pause_group",
        "the group's partition, where all its items live",
    ),
    part("resume_group", "the group's partition"),
    part("set_group_limit", "the group's partition"),
    part("rate_limit_group", "the group's partition"),
    part("group", "the group's partition"),
    part(
        "upsert_schedule",
        "partition 0, where the queue's schedules live (their items are added there)",
    ),
    part("remove_schedule", "partition 0"),
    part("get_schedule", "partition 0"),
    part("schedules", "partition 0"),
    part(
        "fire_due_schedules",
        "partition 0, as a runner over the queue fires them",
    ),
    part(
        "events",
        "every partition's stream at once: one follower whose position has an id per partition",
    ),
    part("partition", "sends nothing: partition i, as a queue"),
    PartitionedOperation {
        rust: &["partition_of", "partition_of_id"],
        ..part(
            "partition_of",
            "sends nothing: the index of the partition an item goes to",
        )
    },
    part(
        "queue_of",
        "sends nothing: the partition that issued a lease, as a queue",
    ),
];

impl PartitionedOperation {
    /// The Node method: the name in camelCase.
    pub fn node_name(&self) -> String {
        camel(self.name)
    }

    /// The C function.
    pub fn c_name(&self) -> String {
        format!("leaseq_partitioned_{}", self.name)
    }

    /// The Rust methods that implement it.
    pub fn rust_names(&'static self) -> &'static [&'static str] {
        if self.rust.is_empty() {
            std::slice::from_ref(&self.name)
        } else {
            self.rust
        }
    }

    /// The queue operation of the same name, whose arguments and reply it shares; `None` for
    /// the partitioned queue's own.
    pub fn queue_operation(&self) -> Option<&'static Operation> {
        Operation::find(self.name)
    }
}

/// The runner's events, by name, the same in every language (Node in camelCase).
pub const EVENTS: [&str; 8] = Event::NAMES;

/// `snake_case` to `camelCase`: how Node spells an operation, an argument or an event
/// (`lease_lost` → `leaseLost`).
pub fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

impl Operation {
    /// The Node method: the name in camelCase.
    pub fn node_name(&self) -> String {
        camel(self.name)
    }

    /// The C function.
    pub fn c_name(&self) -> String {
        match self.c {
            Some(c) => c.to_owned(),
            None => format!("leaseq_queue_{}", self.name),
        }
    }

    /// The Rust methods that implement it.
    pub fn rust_names(&'static self) -> &'static [&'static str] {
        if self.rust.is_empty() {
            std::slice::from_ref(&self.name)
        } else {
            self.rust
        }
    }

    /// The operation of this name.
    pub fn find(name: &str) -> Option<&'static Operation> {
        OPERATIONS.iter().find(|o| o.name == name)
    }
}

impl Arg {
    /// Whether `language` (`rust`, `python`, `node` or `c`) has this argument.
    pub fn in_language(&self, language: &str) -> bool {
        self.only.is_none_or(|only| only == language)
    }

    /// Its Node name: camelCase, with `Ms` after a duration.
    pub fn node_name(&self) -> String {
        let name = camel(self.name);
        if self.kind == Kind::Duration {
            name + "Ms"
        } else {
            name
        }
    }

    /// Its C parameter: the name, with `_ms` after a duration.
    pub fn c_name(&self) -> String {
        if self.kind == Kind::Duration {
            format!("{}_ms", self.name)
        } else {
            self.name.to_owned()
        }
    }
}

/// The table as Markdown: docs/reference/operations.md.
pub fn markdown() -> String {
    let mut md = String::from(
        "# Operations in four languages\n\n\
         <!-- Generated from core/src/operations.rs; a core test fails when this page differs. \
         Regenerate: LEASEQ_WRITE_DOCS=1 cargo test -p leaseq --lib operations -->\n\n\
         Every operation of a queue, as each language names it. One table in the core \
         (`leaseq::operations::OPERATIONS`) is the source of this page, and a test in each \
         language fails when its binding lacks an operation or names one differently.\n\n\
         Each is one round trip to Redis unless marked otherwise. Durations are seconds in \
         Python (a float or a `timedelta`) and milliseconds in Node (`...Ms`) and C (`..._ms`); \
         Node takes the optional arguments as keys of an options object.\n\n\
         | Operation | Rust | Python | Node | C | Returns |\n|---|---|---|---|---|---|\n",
    );
    for o in OPERATIONS {
        let rust = o
            .rust_names()
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        md += &format!(
            "| [{name}](#{name}) | {rust} | `{name}` | `{node}` | `{c}` | {reply} |\n",
            name = o.name,
            node = o.node_name(),
            c = o.c_name(),
            reply = o.reply,
        );
    }
    md += "\n## Arguments\n";
    for o in OPERATIONS {
        md += &format!("\n### {}\n\n{}", o.name, o.summary);
        if o.round_trips == 0 {
            md += " Sends nothing to Redis.";
        }
        md += "\n\n";
        if o.args.is_empty() {
            md += "No arguments.\n";
            continue;
        }
        md += "| Argument | Node | C | Kind | When left out |\n|---|---|---|---|---|\n";
        for a in o.args {
            let only = a.only.map(|l| format!(" ({l} only)")).unwrap_or_default();
            let default = if a.required {
                "required".to_owned()
            } else {
                a.default.to_owned()
            };
            md += &format!(
                "| `{}`{only} | `{}` | `{}` | {:?} | {default} |\n",
                a.name,
                a.node_name(),
                a.c_name(),
                a.kind,
            );
        }
    }
    md += "\n## Partitioned queues\n\nA queue stored as partitions ([spec 5.25]\
         (../spec/PROTOCOL.md#525-partitioned-queues)) offers these, named alike in every \
         language (`leaseq::operations::PARTITIONED`; Rust `Partitioned`, Python and Node \
         `PartitionedQueue`, C `leaseq_partitioned`). One that shares its name with a queue \
         operation above takes its arguments and returns what it returns, for the whole logical \
         queue.\n\n\
         | Operation | Rust | Python | Node | C | Where it goes |\n|---|---|---|---|---|---|\n";
    for o in PARTITIONED {
        let rust = o
            .rust_names()
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        // The queue operation's arguments, when it shares them (not a link first in the row:
        // scripts/check_reference_ops.py reads those rows as the queue's operations).
        let name = match o.queue_operation() {
            Some(_) => format!("{0} ([arguments](#{0}))", o.name),
            None => o.name.to_owned(),
        };
        md += &format!(
            "| {name} | {rust} | `{python}` | `{node}` | `{c}` | {route} |\n",
            python = o.name,
            node = o.node_name(),
            c = o.c_name(),
            route = o.route,
        );
    }
    md += &format!(
        "\n## Runner events\n\nA runner reports these events, named alike in every language \
         (Node in camelCase): {}.\n",
        EVENTS
            .iter()
            .map(|e| format!("`{e}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn source(path: &str) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(root.join(path)).unwrap()
    }

    #[test]
    fn names_are_unique_and_snake_case() {
        let mut names: Vec<_> = OPERATIONS.iter().map(|o| o.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), OPERATIONS.len());
        for o in OPERATIONS {
            assert!(
                o.name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{}",
                o.name
            );
            let mut seen = Vec::new();
            for a in o.args {
                assert!(!seen.contains(&a.name), "{}: {} twice", o.name, a.name);
                seen.push(a.name);
                assert_eq!(a.required, a.default.is_empty(), "{}.{}", o.name, a.name);
            }
        }
        assert_eq!(Operation::find("complete").unwrap().node_name(), "complete");
        assert_eq!(
            Operation::find("complete_and_lease_batch")
                .unwrap()
                .node_name(),
            "completeAndLeaseBatch"
        );
        assert_eq!(KEEP.node_name(), "keepResultForMs");
        assert_eq!(KEEP.c_name(), "keep_result_for_ms");
    }

    /// Every operation has its async method in core/src/ops and its blocking twin.
    #[test]
    fn rust_has_every_operation() {
        let ops = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ops"))
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect::<String>();
        let blocking = source("src/blocking.rs");
        let generated = crate::blocking::GENERATED;
        for o in OPERATIONS {
            for name in o.rust_names() {
                let defined = [
                    format!("pub async fn {name}("),
                    format!("pub async fn {name}<"),
                    format!("pub fn {name}("),
                ];
                assert!(
                    defined.iter().any(|d| ops.contains(d.as_str())),
                    "crate::Queue lacks {name}"
                );
                assert!(
                    generated.contains(name) || blocking.contains(&format!("pub fn {name}(")),
                    "blocking::Queue lacks {name}"
                );
            }
        }
        // And nothing public in ops/ is missing from the table (builders and helpers aside).
        let listed: Vec<&str> = OPERATIONS
            .iter()
            .flat_map(|o| o.rust_names())
            .copied()
            .collect();
        for line in ops.lines() {
            let line = line.trim_start();
            if let Some(rest) = line.strip_prefix("pub async fn ") {
                let name = &rest[..rest.find(['(', '<']).unwrap()];
                // (`next`, `next_now`, `shutdown`: the event stream's follower's, not the queue's.)
                let internal = [
                    "runner_beat",
                    "runner_leave",
                    "runners",
                    "next",
                    "next_now",
                    "shutdown",
                ];
                assert!(
                    listed.contains(&name) || internal.contains(&name),
                    "crate::Queue::{name} is not in operations::OPERATIONS"
                );
            }
        }
        for name in generated {
            assert!(listed.contains(name), "blocking {name} is not in the table");
        }
    }

    /// Every operation of a partitioned queue has its async method in core/src/partition and
    /// its blocking twin, and nothing public there is missing from the table.
    #[test]
    fn rust_has_every_partitioned_operation() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/partition");
        let partition = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect::<String>();
        let blocking = source("src/blocking/partitioned.rs");
        let mut names: Vec<_> = PARTITIONED.iter().map(|o| o.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PARTITIONED.len(), "a name twice");
        for o in PARTITIONED {
            for name in o.rust_names() {
                let defined = [
                    format!("pub async fn {name}("),
                    format!("pub async fn {name}<"),
                    format!("pub fn {name}("),
                ];
                assert!(
                    defined.iter().any(|d| partition.contains(d.as_str())),
                    "crate::Partitioned lacks {name}"
                );
                assert!(
                    blocking.contains(&format!("fn {name}(")),
                    "blocking::Partitioned lacks {name}"
                );
            }
        }
        let listed: Vec<&str> = PARTITIONED
            .iter()
            .flat_map(|o| o.rust_names())
            .copied()
            .collect();
        for line in partition.lines() {
            let line = line.trim_start();
            if let Some(rest) = line.strip_prefix("pub async fn ") {
                let name = &rest[..rest.find(['(', '<']).unwrap()];
                // Opening and creating are the client's.
                let client = ["partitioned", "create_partitioned"];
                assert!(
                    listed.contains(&name) || client.contains(&name),
                    "crate::Partitioned::{name} is not in operations::PARTITIONED"
                );
            }
        }
        assert_eq!(PARTITIONED[0].c_name(), "leaseq_partitioned_add");
        assert_eq!(
            Operation::find("dead_requeue_oldest").map(Operation::node_name),
            PARTITIONED
                .iter()
                .find(|o| o.name == "dead_requeue_oldest")
                .map(PartitionedOperation::node_name)
        );
        assert!(PARTITIONED
            .iter()
            .find(|o| o.name == "queue_of")
            .unwrap()
            .queue_operation()
            .is_none());
    }

    /// docs/reference/operations.md is this table's rendering.
    #[test]
    fn the_docs_page_is_the_table() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/reference/operations.md");
        let md = markdown();
        if std::env::var_os("LEASEQ_WRITE_DOCS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &md).unwrap();
        }
        let page = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            page == md,
            "docs/reference/operations.md differs from the table; regenerate it with \
             LEASEQ_WRITE_DOCS=1 cargo test -p leaseq --lib operations"
        );
    }
}
