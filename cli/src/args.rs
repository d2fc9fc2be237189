//! The command line: every command and option, as clap reads them.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// See and steer leaseq queues on Redis.
///
/// Exit codes: 0 success; 1 an item not found (get, cancel, dead requeue of ids that are not dead
/// letters) or problems found (check); 2 bad usage or an argument refused (nothing was written);
/// 3 Redis unreachable or too slow; 4 Redis refused the command (e.g. an ACL or a key of the
/// wrong type); 5 the queue is full (its capacity reached): nothing was added; 6 no such queue:
/// none of its keys exists (a mistyped --queue), where an empty queue exits 0.
///
/// Times are Redis's clock, shown in UTC (`--json`: milliseconds since the epoch).
#[derive(Debug, Parser)]
#[command(name = "leaseq", version, about, long_about)]
pub struct Cli {
    #[command(flatten)]
    pub conn: ConnArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Where Redis is.
#[derive(Debug, Clone, Args)]
pub struct ConnArgs {
    /// Redis URL (redis://, rediss://, redis+unix://). Repeat it, or separate with commas, to name
    /// several nodes of a cluster.
    #[arg(
        long,
        short = 'u',
        global = true,
        env = "LEASEQ_URL",
        value_delimiter = ',',
        value_name = "URL"
    )]
    pub url: Vec<String>,
    /// Treat a single --url as a node of a Redis Cluster (several URLs always are).
    #[arg(long, global = true)]
    pub cluster: bool,
}

/// A command that acts on one queue.
#[derive(Debug, Args, Clone)]
pub struct QueueArg {
    /// The queue's prefix, e.g. `{emails}`.
    #[arg(long, short = 'q', env = "LEASEQ_QUEUE", value_name = "PREFIX")]
    pub queue: String,
}

/// `--json` for scripts.
#[derive(Debug, Args, Clone, Copy)]
pub struct JsonArg {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the queues on the server or cluster (an escaped SCAN, never KEYS); a partitioned
    /// queue once, by its base.
    Queues {
        /// Only queues whose prefix starts with this text (glob characters match themselves).
        #[arg(long, default_value = "")]
        starting_with: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Counts per state, the age of the oldest waiting item, completed/failed/dead/expired in
    /// the last minute and hour, whether the queue is paused, its capacity (waiting and
    /// delayed items / capacity) when it is bounded, and its rate limit, with "limited for
    /// 420ms" while leases are held off. Without --queue: every queue found.
    ///
    /// Only queues whose counters are on count completed/failed/dead/expired items; they are off
    /// unless turned on (`leaseq config set -q PREFIX --stats on`). For the others those columns
    /// read `off`, and the JSON has `"counters": false` and nulls, never zeros. In the table,
    /// `min/h` is the last 60 seconds (this minute so far, and the previous one's share) and the
    /// last hour; the JSON's `last_minute` is the clock minute so far, and `minutes` each of the
    /// last 60. FAILED counts failed attempts, those that went dead included.
    Stats {
        /// The queue's prefix (default: every queue).
        #[arg(long, short = 'q', env = "LEASEQ_QUEUE", value_name = "PREFIX")]
        queue: Option<String>,
        /// Print again every 2 seconds until Ctrl-C.
        #[arg(long)]
        watch: bool,
        #[command(flatten)]
        json: JsonArg,
    },
    /// List the items in one state, in the order they will be handled (on a partitioned
    /// queue's base: each partition's, one partition after another). Waiting items in a group
    /// are counted by `stats` but not listed here; `leaseq group` shows a group's counts.
    Ls {
        #[command(flatten)]
        queue: QueueArg,
        /// waiting, delayed, leased, dead, blocked or done.
        state: ListState,
        /// How many items (1 to 1000).
        #[arg(allow_negative_numbers = true, long, default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=1000))]
        limit: u16,
        /// Skip this many positions first. A page may list fewer than --limit (a cancelled
        /// item's id, an expired result: skipped, their positions counted); `(more follow:
        /// --start N)` on standard error says where the next page starts, with --json too.
        #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, default_value_t = 0)]
        start: usize,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Everything known about one item.
    Get {
        #[command(flatten)]
        queue: QueueArg,
        /// The item's id.
        id: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// The tree of what an item waits for (its dependencies, theirs, ...), each with its state,
    /// and how many items wait for it (at most 200 items shown; spec 5.24).
    Tree {
        #[command(flatten)]
        queue: QueueArg,
        /// The item's id.
        id: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Add one item; prints its id (and nothing when an item with that id exists: exit 1).
    Add(AddArgs),
    /// Cancel an item: a waiting, delayed or dead one is removed (a waiting one's id stays in
    /// the waiting list, counted but not listed, until a lease reaches it and drops it); a
    /// leased one is marked, and its holder's next call drops it.
    Cancel {
        #[command(flatten)]
        queue: QueueArg,
        /// The item's id.
        id: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Pause a queue: no client, in any language, leases from it until `resume`; adds go on, and
    /// what is leased runs to its end. The pause is stored in Redis and outlives every client.
    /// Prints whether the queue was running (exit 0 either way).
    Pause {
        #[command(flatten)]
        queue: QueueArg,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Resume a paused queue: waiting leases and runners wake at once. Prints whether the queue
    /// was paused (exit 0 either way).
    Resume {
        #[command(flatten)]
        queue: QueueArg,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Hold every lease of a queue (or, with --group, of one group) off for DURATION (e.g. 30s;
    /// at most 1d), as a runner does when a handler was rate limited (an API answered 429): no
    /// client, in any language, leases until then, with or without a rate limit; nothing else
    /// changes. A longer hold in place is kept. Prints how long leases are held off.
    ///
    /// With --group NAME, only that group's items are held off (they wait, in their order), as a
    /// runner does when a handler was rate limited for the group's customer or tenant; the rest
    /// of the queue goes on. `leaseq group` shows how long is left.
    #[command(visible_alias = "rate-limit")]
    Hold {
        #[command(flatten)]
        queue: QueueArg,
        /// Hold off only this group (items added with `--group`), not the whole queue.
        #[arg(long, value_name = "NAME")]
        group: Option<String>,
        /// How long, e.g. 500ms, 30s, 5m.
        #[arg(allow_hyphen_values = true, value_parser = parse_duration)]
        duration: Duration,
        #[command(flatten)]
        json: JsonArg,
    },
    /// One group of a queue (items added with `--group`): its waiting and leased items, its
    /// limit, whether it is paused, and how long it is still rate limited; `group pause`, `group
    /// resume` and `group limit` change it, and `leaseq hold --group` holds it off.
    ///
    /// At most the group's limit of its items are leased at once (its own, else the queue's
    /// `--group-concurrency`, default 1: strict FIFO per group), and groups take turns. With the
    /// queue's `--group-rate-limit`, each group is leased at most so often, every group in its
    /// own window: a group at its limit, or held off, reads "limited for 420ms". A group
    /// is free: one nobody used reads as empty, with the limit that would apply. Groups are
    /// looked up by name; the protocol keeps no list of them. A group named like a subcommand
    /// (`pause`) is shown with `--queue` before it, or after `--`.
    Group(GroupArgs),
    /// Dead letters.
    Dead {
        #[command(subcommand)]
        command: DeadCommand,
    },
    /// Recurring jobs (schedules): without a subcommand, the queue's schedules with their next
    /// fire times, by next fire time; `add` stores one (new or changed), `rm` removes one, `fire`
    /// fires the due ones once (where no runner runs). Runners fire them by themselves.
    Schedules(SchedulesArgs),
    /// The live runners of a queue, as they register themselves (`P:workers`): id, language,
    /// running jobs out of their concurrency, counters, and which one does the housekeeping.
    Workers {
        #[command(flatten)]
        queue: QueueArg,
        #[command(flatten)]
        json: JsonArg,
    },
    /// A cleaning daemon: light clean every --every, deep clean every --deep-every; logs each
    /// pass and stops after the current pass on SIGINT or SIGTERM. Runners clean by themselves;
    /// run this where nobody leases (e.g. a queue only redis-work-queue clients use).
    Clean {
        #[command(flatten)]
        queue: QueueArg,
        /// Time between light cleans, e.g. 30s, 5m.
        #[arg(allow_hyphen_values = true, long, default_value = "30s", value_parser = parse_duration)]
        every: Duration,
        /// Time between deep cleans (they scan the server's keyspace), e.g. 1h. 0: never.
        #[arg(allow_hyphen_values = true, long, default_value = "1h", value_parser = parse_duration)]
        deep_every: Duration,
        /// Clean once (light, and deep with --deep) and exit.
        #[arg(long)]
        once: bool,
        /// With --once: a deep clean too.
        #[arg(long, requires = "once")]
        deep: bool,
    },
    /// Check the server for a queue: version, eviction policy, persistence, ACL rights, cluster
    /// slot, which server. On a partitioned queue's base: each partition's, then how they
    /// spread over the primaries. Says what is wrong and how to fix it; exit code 1 when a
    /// finding is a problem (warnings, such as no persistence, exit 0).
    Check {
        #[command(flatten)]
        queue: QueueArg,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Show a queue's configuration; `config set` changes it, `config reset` removes it.
    ///
    /// The configuration (`P:config`) holds the defaults every client, in any language, applies
    /// to the queue's items, and whether the queue keeps per-minute counters. A setting not
    /// stored takes the protocol's default; the table shows both.
    Config(ConfigArgs),
    /// Print a queue's event stream: what happened to its items (added, leased, completed,
    /// failed, retrying, dead, ...), one line per entry, oldest first; with --follow, then each
    /// entry as it happens, until Ctrl-C. Events are recorded only while they are on
    /// (`leaseq config set -q PREFIX --events on`; off by default).
    Events(EventsArgs),
    /// Serve the web dashboard, its JSON API (/api, described by /api/openapi.yaml) and
    /// /metrics.
    Dashboard(ServeArgs),
    /// Serve only /metrics, in the Prometheus text format.
    Metrics(ServeArgs),
    /// Create a queue stored as partitions (spec 5.25), each a queue of its own in a slot of its
    /// own, so that a Redis Cluster spreads it over its primaries; prints the partitions'
    /// prefixes. The same count again is fine; another count is refused. `stats`, `ls`, `get`
    /// and `cancel` on the base then show the whole queue (and `stats`, each partition); `add`,
    /// `pause`, `resume`, `hold`, `group`, `tree`, `check`, `clean`, `config` and `dead` reach
    /// the partitions.
    Create {
        #[command(flatten)]
        queue: QueueArg,
        /// How many partitions (1 to 64); more than one need a `{hash tag}` in the prefix.
        #[arg(allow_negative_numbers = true, value_parser = whole::<usize>, long, default_value_t = 1)]
        partitions: usize,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// The dead-letter commands.
#[derive(Debug, Subcommand)]
pub enum DeadCommand {
    /// List dead letters, oldest first.
    Ls {
        #[command(flatten)]
        queue: QueueArg,
        /// How many (1 to 1000).
        #[arg(allow_negative_numbers = true, long, default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=1000))]
        limit: u16,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Put dead letters back to waiting, attempts reset: the ids given, or the --oldest N, or
    /// --all.
    Requeue {
        #[command(flatten)]
        queue: QueueArg,
        /// Ids to requeue; those that are not dead letters are named, with their state, and
        /// the exit code is 1.
        ids: Vec<String>,
        /// Requeue the N oldest.
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, conflicts_with_all = ["ids", "all"])]
        oldest: Option<u64>,
        /// Requeue them all.
        #[arg(long, conflicts_with = "ids")]
        all: bool,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Delete dead letters: the --oldest N, or --all.
    Purge {
        #[command(flatten)]
        queue: QueueArg,
        /// Delete the N oldest.
        #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, conflicts_with = "all")]
        oldest: Option<u64>,
        /// Delete them all.
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// `leaseq group`: shows a group, unless a subcommand changes it.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct GroupArgs {
    #[command(subcommand)]
    pub command: Option<GroupCommand>,
    /// The queue's prefix, e.g. `{emails}`.
    #[arg(
        long,
        short = 'q',
        env = "LEASEQ_QUEUE",
        value_name = "PREFIX",
        required = true
    )]
    pub queue: Option<String>,
    /// The group's name.
    #[arg(required = true)]
    pub name: Option<String>,
    #[command(flatten)]
    pub json: JsonArg,
}

/// The group commands.
#[derive(Debug, Subcommand)]
pub enum GroupCommand {
    /// Pause one group: none of its items is leased, by any client, until `group resume`; the
    /// rest of the queue goes on, adds to the group too. Prints whether it was running (exit 0
    /// either way).
    Pause(GroupName),
    /// Resume a paused group: its items are leased again at once. Prints whether it was paused
    /// (exit 0 either way).
    Resume(GroupName),
    /// Set how many items of one group may be leased at once (1 to 1000), or `none` to remove
    /// its own limit so that the queue's `--group-concurrency` applies; prints the group.
    Limit {
        #[command(flatten)]
        group: GroupName,
        /// The limit, 1 to 1000, or `none`.
        #[arg(value_parser = parse_group_limit, value_name = "N|none")]
        limit: GroupLimit,
    },
}

/// A group of a queue, named.
#[derive(Debug, Args)]
pub struct GroupName {
    #[command(flatten)]
    pub queue: QueueArg,
    /// The group's name.
    pub name: String,
    #[command(flatten)]
    pub json: JsonArg,
}

/// A group's own limit, or none (the queue's `group_concurrency` applies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupLimit(pub Option<u32>);

/// A whole number for an unsigned argument: `-1` is refused as negative (clap alone says
/// "invalid digit found in string"). The range beyond that is the core's to check.
fn whole<T: TryFrom<i128>>(s: &str) -> Result<T, String> {
    let n: i128 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number"))?;
    if n < 0 {
        return Err(format!("must not be negative, got {n}"));
    }
    T::try_from(n).map_err(|_| format!("{n} is too large"))
}
/// `N` or `none`. Only the form is checked here; the core checks the value (argument `limit`).
pub fn parse_group_limit(text: &str) -> Result<GroupLimit, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(GroupLimit(None));
    }
    text.parse::<u32>()
        .map(|n| GroupLimit(Some(n)))
        .map_err(|_| format!("`{text}` is not a limit; write a number from 1 to 1000, or `none`"))
}

/// `leaseq config`: shows the configuration, unless a subcommand changes it.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub command: Option<ConfigCommand>,
    /// The queue's prefix, e.g. `{emails}`.
    #[arg(
        long,
        short = 'q',
        env = "LEASEQ_QUEUE",
        value_name = "PREFIX",
        required = true
    )]
    pub queue: Option<String>,
    #[command(flatten)]
    pub json: JsonArg,
}

/// The configuration commands.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Store settings (the others keep theirs) and print the configuration that results.
    ///
    /// Every client reads them: they apply to items added from then on, and --stats at once.
    /// Values are checked first: a refused one writes nothing, not even the others given.
    Set(Box<ConfigSetArgs>),
    /// Remove the stored configuration: every default applies again (counters off).
    Reset {
        #[command(flatten)]
        queue: QueueArg,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// `leaseq config set`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("setting").required(true).multiple(true).args([
    "stats", "max_attempts", "priority", "backoff", "expires_after", "keep_result_for",
    "dead_max_count", "dead_max_age", "capacity", "rate_limit", "group_concurrency",
    "group_rate_limit", "events", "events_max_len", "events_max_age",
])))]
pub struct ConfigSetArgs {
    #[command(flatten)]
    pub queue: QueueArg,
    /// Keep per-minute counts of completed, failed, dead and expired items for `stats`, the
    /// dashboard and /metrics. Off by default: the counters are keys that outlive the work by an
    /// hour, so a drained queue that counts is not empty.
    #[arg(long, value_name = "on|off")]
    pub stats: Option<Switch>,
    /// Attempts before an item is dead (0: no limit). Default 25.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u32>, long)]
    pub max_attempts: Option<u32>,
    /// Priority of items added without one, -1000 to 1000. Default 0.
    #[arg(long, allow_hyphen_values = true)]
    pub priority: Option<i32>,
    /// Retry delay after a failed attempt: `fixed:5s`, or `exp:BASE:CAP` (doubling from BASE
    /// up to CAP, randomised between half and all of it; `exp:BASE:CAP:no-jitter` not
    /// randomised). Default exp:1s:1h.
    #[arg(long, value_parser = parse_backoff, value_name = "BACKOFF")]
    pub backoff: Option<leaseq::Backoff>,
    /// Items not started this long after they were added are dead, e.g. 1h. Default: never.
    #[arg(allow_hyphen_values = true, long, value_parser = parse_duration, value_name = "DURATION")]
    pub expires_after: Option<Duration>,
    /// How long a completed item's result is kept, e.g. 1d (more than zero). Default 1 day.
    #[arg(allow_hyphen_values = true, long, value_parser = parse_duration, value_name = "DURATION")]
    pub keep_result_for: Option<Duration>,
    /// Dead letters kept at most (the oldest go first). Default 10000.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long)]
    pub dead_max_count: Option<u64>,
    /// Dead letters older than this go, e.g. 7d. Default 7 days.
    #[arg(allow_hyphen_values = true, long, value_parser = parse_duration, value_name = "DURATION")]
    pub dead_max_age: Option<Duration>,
    /// The most items the queue holds waiting or delayed (at least 1, and not below what it
    /// holds now); an add past it fails (exit 5) and adds nothing. Default: no bound
    /// (`config reset` removes a capacity, with the other settings).
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, value_name = "N")]
    pub capacity: Option<u64>,
    /// At most MAX leases per DURATION, e.g. 1000/1s or 50/1m (1 to 10^9 leases, a window of
    /// 1ms to 1d), counted on the server for every client in every language; a lease at the
    /// limit waits for the window to end. Default: no limit (`config reset` removes it, with
    /// the other settings).
    #[arg(long, value_parser = parse_rate_limit, value_name = "MAX/DURATION")]
    pub rate_limit: Option<leaseq::RateLimit>,
    /// How many items of one group may be leased at once (1 to 1000), for groups without a
    /// limit of their own (`leaseq group limit`). Default 1: strict FIFO per group.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u32>, long, value_name = "N")]
    pub group_concurrency: Option<u32>,
    /// At most MAX leases of each group per DURATION, e.g. 5/1s (1 to 10^9 leases, a window of
    /// 1ms to 1d), every group in its own window, counted on the server for every client: a
    /// group at its limit waits for its window while the queue's other groups and ungrouped
    /// items go on. Default: no limit (`config reset` removes it, with the other settings).
    #[arg(long, value_parser = parse_rate_limit, value_name = "MAX/DURATION")]
    pub group_rate_limit: Option<leaseq::RateLimit>,
    /// Record every transition of an item in the queue's event stream (`leaseq events`, the
    /// dashboard's live log, `wait_result`). Off by default: off, it costs nothing.
    #[arg(long, value_name = "on|off")]
    pub events: Option<Switch>,
    /// Entries the event stream keeps, about (1 to 10^9). Default 10000.
    #[arg(allow_negative_numbers = true, value_parser = whole::<u64>, long, value_name = "N")]
    pub events_max_len: Option<u64>,
    /// How long the event stream keeps an entry, about (at least 1s), e.g. 1h. Default 1 hour.
    #[arg(allow_hyphen_values = true, long, value_parser = parse_duration, value_name = "DURATION")]
    pub events_max_age: Option<Duration>,
    #[command(flatten)]
    pub json: JsonArg,
}

/// `leaseq events`.
#[derive(Debug, Args)]
pub struct EventsArgs {
    #[command(flatten)]
    pub queue: QueueArg,
    /// Keep printing entries as they come (without --after: from now), until Ctrl-C.
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// Only the entries after this entry id (the second column, e.g. 1767323045000-0): resume
    /// where an earlier run stopped. Default: the oldest entries kept (with --follow: now).
    #[arg(long, value_name = "ID")]
    pub after: Option<String>,
    /// Without --follow: how many entries at most (1 to 1000).
    #[arg(allow_negative_numbers = true, long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub limit: u16,
    /// Print JSON: one document (without --follow), or one object a line (with --follow).
    #[command(flatten)]
    pub json: JsonArg,
}

/// `on` or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

impl Switch {
    /// Whether it is on.
    pub fn on(self) -> bool {
        self == Switch::On
    }
}

/// `leaseq add`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("payload").required(true).args(["data", "json_data", "file"])))]
pub struct AddArgs {
    #[command(flatten)]
    pub queue: QueueArg,
    /// The data, as text.
    #[arg(long)]
    pub data: Option<String>,
    /// The data, as JSON (checked, stored compact).
    #[arg(long = "json", value_name = "JSON")]
    pub json_data: Option<String>,
    /// The data, read from a file (`-`: standard input), any bytes.
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// The item's id (default: a random UUID).
    #[arg(long)]
    pub id: Option<String>,
    /// Run no earlier than this from now, e.g. 10s.
    #[arg(allow_hyphen_values = true, long, value_parser = parse_duration)]
    pub delay: Option<Duration>,
    /// Priority, -1000 to 1000 (higher runs first).
    #[arg(long, allow_hyphen_values = true)]
    pub priority: Option<i32>,
    /// Attempts before the item is dead (0: no limit).
    #[arg(allow_negative_numbers = true, value_parser = whole::<u32>, long)]
    pub max_attempts: Option<u32>,
    /// Dead if not started within this long, e.g. 1h.
    #[arg(allow_hyphen_values = true, long, value_parser = parse_duration)]
    pub expires_after: Option<Duration>,
    /// How long a result is kept, e.g. 1d.
    #[arg(allow_hyphen_values = true, long, value_parser = parse_duration)]
    pub keep_result_for: Option<Duration>,
    /// The item's group (a customer or tenant id, say; 1 to 256 bytes): at most the group's
    /// limit of its items are leased at once, and groups take turns (`leaseq group`).
    #[arg(long, value_name = "NAME")]
    pub group: Option<String>,
    /// The item's name: what kind of job it is (`send_email`; 1 to 256 bytes). A runner with
    /// handlers by name runs it with the handler of that name; `get`, `list` and the dashboard
    /// show it, and `stats` counts jobs by name while the counters are on.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// An item of the same queue this one waits for (repeat, or separate with commas; at most
    /// 1000): it is not leased before all of them completed (`leaseq tree` shows them).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub depends_on: Vec<String>,
    /// When a dependency dies or is cancelled: `fail` (this item dies too, the default) or
    /// `run` (it runs anyway once every dependency finished).
    #[arg(long, value_name = "POLICY")]
    pub on_dependency_failure: Option<String>,
    /// Fixed retry delay after a failed attempt, e.g. 5s.
    #[arg(allow_hyphen_values = true, long, value_parser = parse_duration)]
    pub backoff_fixed: Option<Duration>,
    /// When the queue is bounded and full, wait up to this long for room (e.g. 30s) instead of
    /// failing at once; still full then: exit 5, nothing added.
    #[arg(allow_hyphen_values = true, long, value_parser = parse_duration, value_name = "DURATION")]
    pub wait_for_room: Option<Duration>,
}

/// `dashboard` and `metrics`.
#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Address to listen on, HOST:PORT (default: 127.0.0.1:8080 for `dashboard`, 127.0.0.1:9187
    /// for `metrics`, so that both run side by side). Anything but a loopback address needs
    /// --token.
    #[arg(long, value_parser = parse_listen, value_name = "HOST:PORT")]
    pub listen: Option<SocketAddr>,
    /// A secret every request must carry (`Authorization: Bearer ...`, or `?token=` once in the
    /// browser, which then keeps a cookie). Required off loopback.
    #[arg(long, env = "LEASEQ_DASHBOARD_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Queues to show (repeat); default: every queue found by an escaped SCAN.
    #[arg(long, short = 'q', value_name = "PREFIX")]
    pub queue: Vec<String>,
}

impl ServeArgs {
    /// Where to listen: `--listen`, else the default of the dashboard (`ui`) or of `metrics`.
    pub fn address(&self, ui: bool) -> SocketAddr {
        self.listen.unwrap_or_else(|| {
            let port = if ui { 8080 } else { 9187 };
            SocketAddr::from(([127, 0, 0, 1], port))
        })
    }
}

/// `HOST:PORT` for `--listen`: an address (`127.0.0.1:8080`, `[::1]:8080`), or a host name this
/// machine resolves (`localhost:8080`), taken as the first address it resolves to.
pub fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    use std::net::ToSocketAddrs;
    let bad = |why: String| {
        format!("`{text}` is not an address to listen on ({why}); write e.g. 127.0.0.1:8080")
    };
    let found: Vec<SocketAddr> = text
        .to_socket_addrs()
        .map_err(|e| bad(e.to_string()))?
        .collect();
    // IPv4 first (`localhost` resolves to ::1 first on many systems, where a scraper pointed
    // at 127.0.0.1 would then not reach it).
    found
        .iter()
        .find(|a| a.is_ipv4())
        .or(found.first())
        .copied()
        .ok_or_else(|| bad("it resolves to no address".into()))
}

/// The states `ls` can list.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ListState {
    /// In a waiting list.
    Waiting,
    /// Waiting for a due time.
    Delayed,
    /// Held by a worker.
    Leased,
    /// Dead letters.
    Dead,
    /// Completed, while their results are kept (newest first).
    Done,
    /// Waiting for their dependencies to complete.
    Blocked,
}

impl ListState {
    /// The core's state.
    pub fn state(self) -> leaseq::State {
        match self {
            ListState::Waiting => leaseq::State::Waiting,
            ListState::Delayed => leaseq::State::Delayed,
            ListState::Leased => leaseq::State::Leased,
            ListState::Dead => leaseq::State::Dead,
            ListState::Done => leaseq::State::Done,
            ListState::Blocked => leaseq::State::Blocked,
        }
    }
}

/// A duration such as `500ms`, `30s`, `5m`, `1h 30m`, `2d`; a bare number is seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    if let Ok(secs) = text.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    match text.trim_start().strip_prefix('-') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => {
            return Err(format!("must not be negative, got `{text}`"));
        }
        // An option where the duration should be: the value was forgotten (or the option is
        // misspelt).
        Some(_) => return Err(format!("a duration is missing before `{text}`")),
        None => {}
    }
    humantime::parse_duration(text)
        .map_err(|e| format!("`{text}` is not a duration ({e}); write e.g. 500ms, 30s, 5m, 1h"))
}

/// A rate limit: `MAX/DURATION`, e.g. `1000/1s`, `50/1m` (a unit alone is one of it:
/// `1000/s`). Only the form is checked here; the core checks the values (argument
/// `rate_limit`, or `group_rate_limit`).
pub fn parse_rate_limit(text: &str) -> Result<leaseq::RateLimit, String> {
    let bad = |why: String| {
        format!("`{text}` is not a rate limit ({why}); write MAX/DURATION, e.g. 1000/1s or 50/1m")
    };
    let (max, per) = text.split_once('/').ok_or_else(|| bad("no `/`".into()))?;
    let max: u64 = max
        .trim()
        .parse()
        .map_err(|_| bad(format!("`{}` is not a count", max.trim())))?;
    let per = per.trim();
    let per = if per.starts_with(|c: char| c.is_ascii_alphabetic()) {
        parse_duration(&format!("1{per}"))
    } else {
        parse_duration(per)
    }
    .map_err(bad)?;
    Ok(leaseq::RateLimit::new(max, per))
}

/// A retry delay: `fixed:DURATION`, `exp:BASE:CAP` (with jitter) or `exp:BASE:CAP:no-jitter`.
/// Only the form is checked here; the core checks the values (argument `backoff`).
pub fn parse_backoff(text: &str) -> Result<leaseq::Backoff, String> {
    let bad = |why: String| {
        format!("`{text}` is not a backoff ({why}); write e.g. fixed:5s, exp:1s:1h or exp:1s:1h:no-jitter")
    };
    let parts: Vec<&str> = text.split(':').map(str::trim).collect();
    match parts.as_slice() {
        ["fixed", d] => Ok(leaseq::Backoff::fixed(parse_duration(d).map_err(bad)?)),
        ["exp", base, cap, rest @ ..] => {
            let jitter = match rest {
                [] | ["jitter"] => true,
                ["no-jitter"] => false,
                _ => return Err(bad("the fourth part is `jitter` or `no-jitter`".into())),
            };
            Ok(leaseq::Backoff::Exponential {
                base: parse_duration(base).map_err(bad)?,
                cap: parse_duration(cap).map_err(bad)?,
                jitter,
            })
        }
        _ => Err(bad("it starts with `fixed:` or `exp:`".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoffs() {
        use leaseq::Backoff;
        let s = Duration::from_secs(1);
        assert_eq!(parse_backoff("fixed:5s").unwrap(), Backoff::fixed(5 * s));
        assert_eq!(
            parse_backoff("exp:1s:1h").unwrap(),
            Backoff::exponential(s, 3600 * s)
        );
        assert_eq!(
            parse_backoff("exp:500ms:1m:no-jitter").unwrap(),
            Backoff::Exponential {
                base: Duration::from_millis(500),
                cap: 60 * s,
                jitter: false
            }
        );
        for bad in [
            "5s",
            "fixed",
            "fixed:soon",
            "exp:1s",
            "exp:1s:1h:maybe",
            "linear:1s",
        ] {
            let e = parse_backoff(bad).unwrap_err();
            assert!(e.contains(bad) && e.contains("fixed:5s"), "{bad}: {e}");
        }
    }

    #[test]
    fn rate_limits() {
        use leaseq::RateLimit;
        let s = Duration::from_secs(1);
        assert_eq!(
            parse_rate_limit("1000/1s").unwrap(),
            RateLimit::new(1000, s)
        );
        assert_eq!(
            parse_rate_limit("50/1m").unwrap(),
            RateLimit::new(50, 60 * s)
        );
        assert_eq!(parse_rate_limit("10/s").unwrap(), RateLimit::new(10, s));
        assert_eq!(
            parse_rate_limit(" 5 / 250ms").unwrap(),
            RateLimit::new(5, Duration::from_millis(250))
        );
        // The values themselves are the core's to check (0, a window of 0: refused there).
        assert_eq!(
            parse_rate_limit("0/0s").unwrap(),
            RateLimit::new(0, Duration::ZERO)
        );
        for bad in ["1000", "lots/1s", "-1/1s", "10/soon", "/1s", "10/"] {
            let e = parse_rate_limit(bad).unwrap_err();
            assert!(e.contains(bad) && e.contains("1000/1s"), "{bad}: {e}");
        }
    }

    #[test]
    fn group_limits() {
        assert_eq!(parse_group_limit("3").unwrap(), GroupLimit(Some(3)));
        assert_eq!(parse_group_limit("none").unwrap(), GroupLimit(None));
        assert_eq!(parse_group_limit("NONE").unwrap(), GroupLimit(None));
        // 0 is the core's to refuse, naming `limit`.
        assert_eq!(parse_group_limit("0").unwrap(), GroupLimit(Some(0)));
        for bad in ["-1", "lots", "", "1.5"] {
            let e = parse_group_limit(bad).unwrap_err();
            assert!(e.contains("none"), "{bad}: {e}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert!(parse_duration("soon").unwrap_err().contains("soon"));
    }

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

/// `leaseq schedules`: list, or a subcommand.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = false)]
pub struct SchedulesArgs {
    #[command(subcommand)]
    pub command: Option<ScheduleCommand>,
    /// The queue's prefix, e.g. `{emails}` (before or after the subcommand).
    #[arg(
        long,
        short = 'q',
        env = "LEASEQ_QUEUE",
        value_name = "PREFIX",
        global = true
    )]
    pub queue: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long, global = true)]
    pub json: bool,
}

/// What `leaseq schedules` does besides listing.
#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// Store a schedule by name (new, or replacing the one of that name: a change never fires
    /// a tick twice nor skips one). Give --cron (with --tz) or --every.
    Add {
        /// The schedule's name (its items' ids are `<name>@<tick ms>`).
        name: String,
        /// A cron expression: five fields, or six with the seconds first, e.g. "0 3 * * *".
        #[arg(long, conflicts_with = "every", required_unless_present = "every")]
        cron: Option<String>,
        /// The cron expression's IANA time zone, e.g. Europe/Berlin (default UTC).
        #[arg(long, requires = "cron")]
        tz: Option<String>,
        /// A period instead of a cron expression, e.g. 30s, 5m (at least 1s).
        #[arg(allow_hyphen_values = true, long, value_parser = parse_duration)]
        every: Option<Duration>,
        /// The data of each item it adds.
        #[arg(long, default_value = "")]
        data: String,
        /// Missed ticks (no runner was there): skip, once (the latest), or all:N (the latest N).
        #[arg(long, default_value = "skip")]
        missed: String,
        /// The items' priority (-1000..1000).
        #[arg(long, allow_hyphen_values = true)]
        priority: Option<i32>,
        /// The items' name (what kind of job they are).
        #[arg(long = "item-name")]
        item_name: Option<String>,
    },
    /// Remove a schedule; the items it added stay. Exit 1 when there was none.
    Rm {
        /// The schedule's name.
        name: String,
    },
    /// Fire the due schedules once, as a runner's housekeeping does.
    Fire,
}
