/*
 * leaseq.h: the C interface of leaseq, a work queue on Redis with fenced, expiring leases.
 *
 * Link: cc app.c $(pkg-config --cflags --libs leaseq)
 *
 * Conventions, true of every function below:
 *
 * - Status. Every fallible function returns a leaseq_status: LEASEQ_OK (0) or an error whose
 *   number never changes meaning (the registry is spec/errors.md in the leaseq repository).
 *   Results come back through out-parameters named out_*. After a failure,
 *   leaseq_last_error_message() says what went wrong (per thread) and leaseq_status_str() gives
 *   the status's name. Out-parameters are written even on failure: NULL, 0 or false.
 *
 * - Arguments. Every pointer argument is required: NULL gives LEASEQ_NULL_ARGUMENT with a
 *   message naming the argument, never a crash. The exceptions are stated where they apply:
 *   a (pointer, length) pair may hold NULL when the length is 0 (so may an array the caller
 *   provides for results, out_* of a batch, when its count is 0), and every *_free accepts
 *   NULL.
 *   Strings are NUL-terminated UTF-8 (anything else gives LEASEQ_INVALID_ARGUMENT naming the
 *   argument). Item data is (pointer, length): any bytes, NUL included. leaseq only reads
 *   arguments during the call and keeps no pointer to them. Two more stated exceptions: an
 *   options pointer (leaseq_add_options, leaseq_lease_options) may be NULL, meaning "no
 *   options"; and where a milliseconds argument says so, -1 means "not given".
 *
 * - Option structs grow. leaseq_add_options, leaseq_lease_options, leaseq_config and
 *   leaseq_schedule start with struct_size (the caller's sizeof) and set (bits naming the
 *   fields given). Initialise them
 *   with their *_INIT macro, then set fields and OR in their bits. The library reads only the
 *   bytes that fit in struct_size (and writes only those, for leaseq_queue_config), so a
 *   program built against an older, smaller struct keeps working with a newer library; a bit
 *   for a field beyond struct_size, or one the library does not know, gives
 *   LEASEQ_INVALID_ARGUMENT. A field whose bit is clear takes the core's default.
 *   leaseq_worker_options starts with struct_size too, without set: its zeros (and -1s) are
 *   the core's defaults (leaseq_worker_options_init or LEASEQ_WORKER_OPTIONS_INIT). The batch
 *   inputs leaseq_completion, leaseq_failure and leaseq_flow_child, and the report
 *   leaseq_fire_report, are plain structs of fixed layout.
 *
 * - Ownership. A handle (leaseq_client, leaseq_queue, leaseq_partitioned, leaseq_item,
 *   leaseq_lease, leaseq_job, leaseq_result, leaseq_entry_list, leaseq_stats,
 *   leaseq_stats_by_partition, leaseq_name_counts), out-struct
 *   (leaseq_event_page, leaseq_dependencies, leaseq_dependency_results, leaseq_schedule_info,
 *   leaseq_schedule_page: read their fields; what they point to lives until they are freed) or
 *   array of leases returned through an out-parameter belongs to the caller, who frees it with
 *   its *_free function, once. A string, buffer or sub-handle (a leaseq_entry, a job's leaseq_result, a
 *   leaseq_name_count, a leaseq_stats_by_partition's leaseq_stats) returned through an
 *   out-parameter is borrowed from the handle it came from: valid until that handle is freed; never free it. Static strings (leaseq_status_str,
 *   leaseq_state_str, leaseq_renew_outcome_str, leaseq_version) are never freed.
 *
 * - Threads. Client, queue and partitioned queue handles may be used from any number of
 *   threads at once; each call blocks only its own thread. Items, leases, jobs, results, entry lists, stats, counts
 *   by name and the out-structs are immutable: several threads may read them at once. A handle must not be freed while another
 *   thread is inside a call on that same handle. leaseq_last_error_message() is per thread.
 *   Option structs are the caller's memory: leaseq reads them only during the call.
 *
 * - Blocking. leaseq_queue_lease, leaseq_queue_lease_with_options and leaseq_queue_lease_batch
 *   (and their leaseq_partitioned_* twins) with a timeout other than 0,
 *   leaseq_queue_wait_result, and leaseq_queue_events (the event stream's follower, on a
 *   connection of its own), wait in Redis (never polling);
 *   calling leaseq_client_close() (or leaseq_client_free()) from another thread ends the wait
 *   at once with LEASEQ_CLOSED. Every other call is one or a few round trips to Redis, bounded
 *   by a connect timeout (5 s) and a response timeout (10 s).
 *
 * - Time. Times are milliseconds since the Unix epoch on the Redis server's clock; -1 where a
 *   time is unknown. Durations are milliseconds.
 *
 * - Panics. No Rust panic crosses this interface: a bug inside leaseq returns LEASEQ_INTERNAL.
 *
 * - fork(). A client used in a forked child reconnects by itself in the child.
 *
 * - Signals. leaseq does its network I/O on threads of its own, which block SIGPIPE: a
 *   connection the server closed (a restart, CLIENT KILL) gives LEASEQ_CONNECTION, never a
 *   SIGPIPE that would end a program leaving that signal at its default. leaseq installs no
 *   handler and changes no other thread's signal mask.
 */

#ifndef LEASEQ_H
#define LEASEQ_H

/* Generated by cbindgen from ffi-c/src: do not edit; run `make -C ffi-c header`. */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/** A leaseq_backoff with every field 0 (a fixed backoff of 0 ms); part of the *_INIT macros. */
#define LEASEQ_BACKOFF_INIT { 0, 0, 0, 0 }

/**
 * A leaseq_add_options with struct_size set and nothing given:
 * `leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;`
 */
#define LEASEQ_ADD_OPTIONS_INIT \
    { (uint32_t)sizeof(leaseq_add_options), 0, 0, 0, 0, 0, LEASEQ_BACKOFF_INIT, 0, 0, NULL, NULL, \
      NULL, 0, 0 }

/**
 * leaseq_flow_child.parent of a child of the flow's parent itself (the parent argument of
 * leaseq_queue_add_flow), rather than of another child.
 */
#define LEASEQ_FLOW_ROOT SIZE_MAX

/**
 * A leaseq_schedule with struct_size set and nothing given, to fill for
 * leaseq_queue_upsert_schedule: `leaseq_schedule schedule = LEASEQ_SCHEDULE_INIT;`
 */
#define LEASEQ_SCHEDULE_INIT \
    { (uint32_t)sizeof(leaseq_schedule), 0, NULL, NULL, 0, 0, 0, NULL, 0, NULL }

/**
 * A leaseq_lease_options with struct_size set and nothing given (a 30 s lease, no wait):
 * `leaseq_lease_options options = LEASEQ_LEASE_OPTIONS_INIT;`
 */
#define LEASEQ_LEASE_OPTIONS_INIT { (uint32_t)sizeof(leaseq_lease_options), 0, 0, 0 }

/**
 * A leaseq_worker_options with struct_size set to its sizeof and every field at the core's
 * default (as leaseq_worker_options_init fills it), the way to reach fields added after
 * `stats`: `leaseq_worker_options options = LEASEQ_WORKER_OPTIONS_INIT;`
 */
#define LEASEQ_WORKER_OPTIONS_INIT \
    { (uint32_t)sizeof(leaseq_worker_options), 0, 0, 0, -1, 0, 0, 0, 0, -1, 0, NULL, -1, 0, 0, NULL, 0, NULL }

/**
 * An entry of a table of handlers by name (leaseq_worker_handler) for leaseq_worker_run_named,
 * from a string literal: `leaseq_worker_handler handlers[] = { LEASEQ_HANDLER("resize", resize,
 * NULL), LEASEQ_HANDLER("send_email", send_email, &mailer) };`
 */
#define LEASEQ_HANDLER(name, handler, user_data) { (name), sizeof(name) - 1, (handler), (user_data) }

/**
 * A leaseq_completion with no lease yet, no result and the default keep time, to fill for
 * the batch completes: `leaseq_completion c = LEASEQ_COMPLETION_INIT; c.lease = lease;`
 */
#define LEASEQ_COMPLETION_INIT { NULL, NULL, 0, -1 }

/**
 * A leaseq_config with struct_size set and nothing given, to fill for leaseq_queue_set_config
 * or to read into with leaseq_queue_config: `leaseq_config config = LEASEQ_CONFIG_INIT;`
 */
#define LEASEQ_CONFIG_INIT \
    { (uint32_t)sizeof(leaseq_config), 0, 0, 0, LEASEQ_BACKOFF_INIT, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
      0, 0, 0, 0, 0 }


/**
 * `leaseq_add_options.delay_ms` is given.
 */
#define LEASEQ_ADD_DELAY (1 << 0)

/**
 * `leaseq_add_options.run_at_ms` is given.
 */
#define LEASEQ_ADD_RUN_AT (1 << 1)

/**
 * `leaseq_add_options.priority` is given.
 */
#define LEASEQ_ADD_PRIORITY (1 << 2)

/**
 * `leaseq_add_options.max_attempts` is given.
 */
#define LEASEQ_ADD_MAX_ATTEMPTS (1 << 3)

/**
 * `leaseq_add_options.backoff` is given.
 */
#define LEASEQ_ADD_BACKOFF (1 << 4)

/**
 * `leaseq_add_options.expires_after_ms` is given.
 */
#define LEASEQ_ADD_EXPIRES_AFTER (1 << 5)

/**
 * `leaseq_add_options.keep_result_for_ms` is given.
 */
#define LEASEQ_ADD_KEEP_RESULT_FOR (1 << 6)

/**
 * `leaseq_add_options.group` is given.
 */
#define LEASEQ_ADD_GROUP (1 << 7)

/**
 * `leaseq_add_options.name` is given.
 */
#define LEASEQ_ADD_NAME (1 << 8)

/**
 * `leaseq_add_options.depends_on` and `depends_on_len` are given.
 */
#define LEASEQ_ADD_DEPENDS_ON (1 << 9)

/**
 * `leaseq_add_options.on_dependency_failure` is given.
 */
#define LEASEQ_ADD_ON_DEPENDENCY_FAILURE (1 << 10)

/**
 * `leaseq_schedule.cron` is given.
 */
#define LEASEQ_SCHEDULE_CRON (1 << 0)

/**
 * `leaseq_schedule.tz` is given.
 */
#define LEASEQ_SCHEDULE_TZ (1 << 1)

/**
 * `leaseq_schedule.every_ms` is given.
 */
#define LEASEQ_SCHEDULE_EVERY (1 << 2)

/**
 * `leaseq_schedule.missed` (and `missed_all`) is given.
 */
#define LEASEQ_SCHEDULE_MISSED (1 << 3)

/**
 * `leaseq_schedule.data` and `data_len` are given.
 */
#define LEASEQ_SCHEDULE_DATA (1 << 4)

/**
 * `leaseq_schedule.item_options` is given.
 */
#define LEASEQ_SCHEDULE_ITEM_OPTIONS (1 << 5)

/**
 * `leaseq_lease_options.ttl_ms` is given.
 */
#define LEASEQ_LEASE_TTL (1 << 0)

/**
 * `leaseq_lease_options.timeout_ms` is given.
 */
#define LEASEQ_LEASE_TIMEOUT (1 << 1)

/**
 * `leaseq_config.max_attempts` is given.
 */
#define LEASEQ_CONFIG_MAX_ATTEMPTS (1 << 0)

/**
 * `leaseq_config.priority` is given.
 */
#define LEASEQ_CONFIG_PRIORITY (1 << 1)

/**
 * `leaseq_config.backoff` is given.
 */
#define LEASEQ_CONFIG_BACKOFF (1 << 2)

/**
 * `leaseq_config.expires_after_ms` is given.
 */
#define LEASEQ_CONFIG_EXPIRES_AFTER (1 << 3)

/**
 * `leaseq_config.keep_result_for_ms` is given.
 */
#define LEASEQ_CONFIG_KEEP_RESULT_FOR (1 << 4)

/**
 * `leaseq_config.dead_max_count` is given.
 */
#define LEASEQ_CONFIG_DEAD_MAX_COUNT (1 << 5)

/**
 * `leaseq_config.dead_max_age_ms` is given.
 */
#define LEASEQ_CONFIG_DEAD_MAX_AGE (1 << 6)

/**
 * `leaseq_config.stats` is given.
 */
#define LEASEQ_CONFIG_STATS (1 << 7)

/**
 * `leaseq_config.capacity` is given.
 */
#define LEASEQ_CONFIG_CAPACITY (1 << 8)

/**
 * `leaseq_config.rate_max` and `leaseq_config.rate_per_ms` are given (together).
 */
#define LEASEQ_CONFIG_RATE_LIMIT (1 << 9)

/**
 * `leaseq_config.group_concurrency` is given.
 */
#define LEASEQ_CONFIG_GROUP_CONCURRENCY (1 << 10)

/**
 * `leaseq_config.group_rate_max` and `leaseq_config.group_rate_per_ms` are given (together).
 */
#define LEASEQ_CONFIG_GROUP_RATE_LIMIT (1 << 11)

/**
 * `leaseq_config.events` is given.
 */
#define LEASEQ_CONFIG_EVENTS (1 << 12)

/**
 * `leaseq_config.events_max_len` is given.
 */
#define LEASEQ_CONFIG_EVENTS_MAX_LEN (1 << 13)

/**
 * `leaseq_config.events_max_age_ms` is given.
 */
#define LEASEQ_CONFIG_EVENTS_MAX_AGE (1 << 14)

/**
 * A connection to one Redis server or one Redis Cluster (opaque).
 *
 * Thread safety: a client may be used from any number of threads at once; each call blocks
 * only its calling thread. Made by `leaseq_client_connect` or `leaseq_client_connect_cluster`,
 * released by `leaseq_client_free`.
 */
typedef struct leaseq_client leaseq_client;

/**
 * One line of a `leaseq_entry_list` (opaque), borrowed from the list: never freed on its own.
 */
typedef struct leaseq_entry leaseq_entry;

/**
 * A page of items in one state, from `leaseq_queue_list` (opaque): read its length with
 * `leaseq_entry_list_len` and each entry with `leaseq_entry_list_get`; free it with
 * `leaseq_entry_list_free`. Immutable; may be read from several threads at once.
 */
typedef struct leaseq_entry_list leaseq_entry_list;

/**
 * A piece of work to add: an id and arbitrary bytes (opaque).
 *
 * Thread safety: immutable once made; may be read (added, queried) from several threads at
 * once. Made by `leaseq_item_new` or `leaseq_item_with_id`, released by `leaseq_item_free`.
 */
typedef struct leaseq_item leaseq_item;

/**
 * Everything the queue knows about one item (opaque), from `leaseq_queue_get`: a snapshot
 * taken when it was read. Times are milliseconds since the Unix epoch on the server's clock,
 * -1 when unknown.
 *
 * Thread safety: immutable; may be read from several threads at once. Strings and buffers
 * read from it belong to it: valid until `leaseq_job_free`.
 */
typedef struct leaseq_job leaseq_job;

/**
 * A leased item: its id, data, lease token, attempt number and incarnation (opaque). Pass it
 * back to `leaseq_queue_complete` (or `_with_result`), `leaseq_queue_complete_and_lease`,
 * `leaseq_queue_fail`, `leaseq_queue_release`, `leaseq_queue_renew` (or `_outcome`),
 * `leaseq_queue_progress` or a batch of them (`leaseq_queue_complete_batch`,
 * `leaseq_queue_renew_batch`, `leaseq_queue_fail_batch`,
 * `leaseq_queue_complete_and_lease_batch`) of the queue it came from.
 *
 * Thread safety: immutable once made; may be read and passed to calls from several threads at
 * once (e.g. one thread renews while another works on the data). Made by `leaseq_queue_lease`,
 * `leaseq_queue_lease_with_options`, `leaseq_queue_lease_batch`,
 * `leaseq_queue_complete_and_lease`, `leaseq_queue_complete_and_lease_batch` or
 * `leaseq_queue_lease_from_parts`, released by
 * `leaseq_lease_free`. Freeing it does not complete or release the item in Redis.
 */
typedef struct leaseq_lease leaseq_lease;

/**
 * The last hour's counts by item name, from `leaseq_queue_counts_by_name` or
 * `leaseq_partitioned_counts_by_name` (opaque): read its entries with
 * `leaseq_name_counts_entries`, free it with `leaseq_name_counts_free`.
 * Immutable; may be read from several threads at once.
 */
typedef struct leaseq_name_counts leaseq_name_counts;

/**
 * A partitioned queue (opaque): one logical queue stored as 1 to 64 partitions, each a full
 * queue under a prefix with a hash tag of its own, so that a Redis Cluster spreads them over
 * its primaries. Items go to a partition by their group, else where their dependencies are,
 * else their id; leases rotate over the partitions; reads (get, cancel, result, stats, count, list)
 * see the whole logical queue. A queue of one partition is the plain queue at its base.
 *
 * Thread safety: as a `leaseq_queue`, usable from any number of threads at once. Made by
 * `leaseq_partitioned_open` or `leaseq_partitioned_create`, released by
 * `leaseq_partitioned_free`.
 */
typedef struct leaseq_partitioned leaseq_partitioned;

/**
 * One queue: the keys under one prefix (opaque).
 *
 * Thread safety: a queue may be used from any number of threads at once; each call blocks only
 * its calling thread (four threads leasing from one queue is fine and each item goes to one of
 * them). Made by `leaseq_client_queue`, released by `leaseq_queue_free`.
 */
typedef struct leaseq_queue leaseq_queue;

/**
 * A kept result: the bytes the completing worker gave, when it completed, and on which
 * attempt (opaque). Made by `leaseq_queue_result` or `leaseq_queue_wait_result` (owned: free it
 * with `leaseq_result_free`), or borrowed from a job (`leaseq_job_result`: never free that one).
 *
 * Thread safety: immutable; may be read from several threads at once.
 */
typedef struct leaseq_result leaseq_result;

/**
 * A queue's figures, read in one round trip by `leaseq_queue_stats` (opaque): counts per
 * state, the age of the oldest waiting item, and, when the queue's counters are on
 * (`leaseq_stats_counting`), per-minute counters for the last hour. Free it with
 * `leaseq_stats_free`. Immutable; may be read from several threads at once.
 */
typedef struct leaseq_stats leaseq_stats;

/**
 * A partitioned queue's figures, read by `leaseq_partitioned_stats` (opaque): the logical
 * queue's (counts summed; the oldest waiting item's age the largest; paused when every
 * partition is; per-minute counters summed when every partition counts) and each partition's
 * own, each a `leaseq_stats` read with the `leaseq_stats_*` functions. Immutable; may be read
 * from several threads at once. Free it with `leaseq_stats_by_partition_free`.
 */
typedef struct leaseq_stats_by_partition leaseq_stats_by_partition;

/**
 * One job, lent to a callback for the duration of the call only.
 */
typedef struct leaseq_worker_job leaseq_worker_job;

/**
 * The result of every fallible leaseq function. 0 (`LEASEQ_OK`) is success; every other value
 * is one of the `LEASEQ_*` statuses below, whose numbers never change meaning (spec/errors.md).
 * After a failure, `leaseq_last_error_message()` says what went wrong.
 */
typedef int32_t leaseq_status;

/**
 * How a failed item waits before its next attempt: one of the `LEASEQ_BACKOFF_*` values.
 */
typedef int32_t leaseq_backoff_kind;

/**
 * A retry delay policy, part of `leaseq_add_options` and `leaseq_config` (a plain struct of
 * fixed layout). The core checks the values: delays of at most 10 years, and for an
 * exponential backoff a base above zero and a cap at least as long as the base.
 */
typedef struct {
    /**
     * `LEASEQ_BACKOFF_FIXED` or `LEASEQ_BACKOFF_EXPONENTIAL`.
     */
    leaseq_backoff_kind kind;
    /**
     * Exponential only: randomise each delay between half of it and all of it (the protocol's
     * default backoff has jitter). Ignored for a fixed backoff.
     */
    bool jitter;
    /**
     * Fixed: the delay; exponential: the first retry's delay. Milliseconds.
     */
    int64_t base_ms;
    /**
     * Exponential: the longest delay, in milliseconds. Ignored for a fixed backoff.
     */
    int64_t cap_ms;
} leaseq_backoff;

/**
 * A queue's stored configuration: defaults for its items that every client, in every
 * language, reads from Redis (`leaseq_queue_config`, `leaseq_queue_set_config`).
 *
 * Start from `LEASEQ_CONFIG_INIT`. To store values, set fields and OR their `LEASEQ_CONFIG_*`
 * bits into `set`; fields not set keep their stored value. When read, `set` names the fields
 * that are stored; the others are 0 and the protocol's defaults apply to them. Durations are
 * milliseconds; a negative one is refused, naming the field.
 */
typedef struct {
    /**
     * `sizeof(leaseq_config)` as the caller compiled it; `LEASEQ_CONFIG_INIT` sets it.
     */
    uint32_t struct_size;
    /**
     * Which fields below are given (or stored): `LEASEQ_CONFIG_*` bits OR-ed together.
     */
    uint32_t set;
    /**
     * `LEASEQ_CONFIG_MAX_ATTEMPTS`: attempts before an item is dead; 0: no limit (default 25).
     */
    uint32_t max_attempts;
    /**
     * `LEASEQ_CONFIG_PRIORITY`: the priority of items added without one (-1000 to 1000;
     * default 0).
     */
    int32_t priority;
    /**
     * `LEASEQ_CONFIG_BACKOFF`: the retry delay after a failed attempt (default exponential
     * from 1 s to 1 h, with jitter).
     */
    leaseq_backoff backoff;
    /**
     * `LEASEQ_CONFIG_EXPIRES_AFTER`: items not started this long after they were added are
     * dead (default: never).
     */
    int64_t expires_after_ms;
    /**
     * `LEASEQ_CONFIG_KEEP_RESULT_FOR`: how long a result is kept (greater than zero; default
     * one day).
     */
    int64_t keep_result_for_ms;
    /**
     * `LEASEQ_CONFIG_DEAD_MAX_COUNT`: dead letters kept at most (default 10,000).
     */
    uint64_t dead_max_count;
    /**
     * `LEASEQ_CONFIG_DEAD_MAX_AGE`: dead letters older than this go (default seven days).
     */
    int64_t dead_max_age_ms;
    /**
     * `LEASEQ_CONFIG_STATS`: whether the queue keeps per-minute counters (completed, failed,
     * dead, expired) for `leaseq_queue_stats` (default off: each minute's counters are a key
     * that outlives the work by an hour; see `leaseq_stats_counting`).
     */
    bool stats;
    /**
     * `LEASEQ_CONFIG_CAPACITY`: the most items the queue holds waiting or delayed (at least 1;
     * default no bound). An add past it gives `LEASEQ_FULL` and adds nothing, or waits for
     * room (`leaseq_queue_add_with_timeout`). A capacity below what the queue holds now is
     * refused.
     */
    uint64_t capacity;
    /**
     * `LEASEQ_CONFIG_RATE_LIMIT`, with `rate_per_ms`: at most `rate_max` leases in each
     * window of `rate_per_ms`, counted on the server for every client (1 to 10^9 leases, a
     * window of 1 ms to one day; default no limit).
     */
    uint64_t rate_max;
    /**
     * `LEASEQ_CONFIG_RATE_LIMIT`: the rate limit's window, in ms.
     */
    int64_t rate_per_ms;
    /**
     * `LEASEQ_CONFIG_GROUP_CONCURRENCY`: how many items of one group (`LEASEQ_ADD_GROUP`) may
     * be leased at once, for groups without a limit of their own
     * (`leaseq_queue_set_group_limit`): 1 to 1000 (default 1: FIFO per group).
     */
    uint32_t group_concurrency;
    /**
     * `LEASEQ_CONFIG_GROUP_RATE_LIMIT`, with `group_rate_per_ms`: at most `group_rate_max`
     * leases of **each group** (`LEASEQ_ADD_GROUP`) in each window of `group_rate_per_ms`,
     * every group in its own window, counted on the server for every client (1 to 10^9
     * leases, a window of 1 ms to one day; default no limit). A group at its limit waits for
     * its window while the queue's other groups and ungrouped items go on.
     */
    uint64_t group_rate_max;
    /**
     * `LEASEQ_CONFIG_GROUP_RATE_LIMIT`: the groups' rate limit's window, in ms.
     */
    int64_t group_rate_per_ms;
    /**
     * `LEASEQ_CONFIG_EVENTS`: whether every transition of an item appends an entry to the
     * queue's event stream (`leaseq_queue_read_events`, `leaseq_queue_events`; default off:
     * off, the stream costs nothing). May be switched while the queue runs.
     */
    bool events;
    /**
     * `LEASEQ_CONFIG_EVENTS_MAX_LEN`: the most entries the stream keeps (older ones are
     * trimmed; the core's bounds and default apply).
     */
    uint64_t events_max_len;
    /**
     * `LEASEQ_CONFIG_EVENTS_MAX_AGE`: how long the stream keeps an entry, in ms (at least one
     * second; the core's default applies).
     */
    int64_t events_max_age_ms;
} leaseq_config;

/**
 * Where an item is: one of the `LEASEQ_STATE_*` values.
 */
typedef int32_t leaseq_state;

/**
 * What a dependant does when one of its dependencies dies or is cancelled: one of the
 * `LEASEQ_ON_DEPENDENCY_FAILURE_*` values.
 */
typedef int32_t leaseq_on_dependency_failure;

/**
 * Options of an item, for `leaseq_queue_add_with_options`, `leaseq_queue_add_unique_with_options`
 * and `leaseq_queue_add_batch_with_options`.
 *
 * Start from `LEASEQ_ADD_OPTIONS_INIT` (which sets `struct_size` and clears the rest), then set
 * fields and OR their `LEASEQ_ADD_*` bits into `set`:
 *
 * ```c
 * leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
 * options.priority = 5;
 * options.set |= LEASEQ_ADD_PRIORITY;
 * ```
 *
 * Fields not set take the queue's stored configuration (`leaseq_queue_set_config`), else the
 * protocol's defaults. An item with no option set is stored exactly as redis-work-queue stores
 * one. Durations are milliseconds; a negative one is refused, naming the field.
 */
typedef struct {
    /**
     * `sizeof(leaseq_add_options)` as the caller compiled it; `LEASEQ_ADD_OPTIONS_INIT` sets it.
     */
    uint32_t struct_size;
    /**
     * Which fields below are given: `LEASEQ_ADD_*` bits OR-ed together.
     */
    uint32_t set;
    /**
     * `LEASEQ_ADD_DELAY`: runs no earlier than this long after Redis stores it (the server's
     * clock). Not with `run_at_ms`.
     */
    int64_t delay_ms;
    /**
     * `LEASEQ_ADD_RUN_AT`: runs no earlier than this time, in milliseconds since the Unix epoch
     * (compared with the server's clock). Not with `delay_ms`.
     */
    int64_t run_at_ms;
    /**
     * `LEASEQ_ADD_PRIORITY`: higher runs first, -1000 to 1000 (default 0); FIFO within one
     * priority.
     */
    int32_t priority;
    /**
     * `LEASEQ_ADD_MAX_ATTEMPTS`: after this many attempts (leases) the item is dead instead of
     * retried; 0: no limit (default 25).
     */
    uint32_t max_attempts;
    /**
     * `LEASEQ_ADD_BACKOFF`: how long a failed attempt waits before the next.
     */
    leaseq_backoff backoff;
    /**
     * `LEASEQ_ADD_EXPIRES_AFTER`: if no lease has taken the item this long after it was added,
     * it is dead ("expired").
     */
    int64_t expires_after_ms;
    /**
     * `LEASEQ_ADD_KEEP_RESULT_FOR`: how long a result given when completing the item is kept
     * (greater than zero; default one day).
     */
    int64_t keep_result_for_ms;
    /**
     * `LEASEQ_ADD_GROUP`: the item's group (NUL-terminated UTF-8, 1 to 256 bytes, no control
     * characters; a customer or tenant id, say): at most the group's limit of its items are
     * leased at once (default 1: FIFO per group), and groups take turns
     * (`leaseq_queue_set_group_limit`, `leaseq_queue_pause_group`). Read during the call only.
     */
    const char *group;
    /**
     * `LEASEQ_ADD_NAME`: the item's name, what kind of job it is (NUL-terminated UTF-8, 1 to
     * 256 bytes, no control characters; `"send_email"`, say): kept with the item, carried by
     * its leases (`leaseq_lease_name`), shown by `leaseq_job_name`, counted by name while the
     * queue's counters are on (`leaseq_queue_counts_by_name`), and a runner with handlers by
     * name (`leaseq_worker_run_named`) runs the item with the handler of that name. Read
     * during the call only.
     */
    const char *name;
    /**
     * `LEASEQ_ADD_DEPENDS_ON`, with `depends_on_len`: the ids (NUL-terminated UTF-8) of items
     * of the same queue this item waits for: it is blocked (`LEASEQ_STATE_BLOCKED`, no lease
     * takes it) until every one of them completed (spec 5.24). The core checks them (argument
     * `depends_on`: no self, no cycle, in the queue's slot). Read during the call only.
     */
    const char *const *depends_on;
    /**
     * `LEASEQ_ADD_DEPENDS_ON`: how many ids `depends_on` holds.
     */
    size_t depends_on_len;
    /**
     * `LEASEQ_ADD_ON_DEPENDENCY_FAILURE`: what the item does when one of its dependencies dies
     * or is cancelled: `LEASEQ_ON_DEPENDENCY_FAILURE_FAIL` (it is dead, with a reason naming
     * the dependency; the default) or `LEASEQ_ON_DEPENDENCY_FAILURE_RUN` (it runs anyway).
     */
    leaseq_on_dependency_failure on_dependency_failure;
} leaseq_add_options;

/**
 * One child of a flow (`leaseq_queue_add_flow`): an item, its options, and which item it is a
 * child of (a plain struct of fixed layout, read only during the call).
 */
typedef struct {
    /**
     * The item (required).
     */
    const leaseq_item *item;
    /**
     * Its options, as `leaseq_queue_add_with_options` takes them; NULL: none. Its own
     * `depends_on`, if any, come before its children's ids.
     */
    const leaseq_add_options *options;
    /**
     * Whose child it is: `LEASEQ_FLOW_ROOT` for a child of the flow's parent, else the index
     * in the array of another child, which comes before it: that child waits for it too.
     */
    size_t parent;
} leaseq_flow_child;

/**
 * What one item waits for and what waits for it (`leaseq_queue_dependencies`), owned by the
 * caller: free it with `leaseq_dependencies_free`. Every list holds NUL-terminated UTF-8 ids
 * (NULL when empty), valid until then.
 */
typedef struct {
    /**
     * The ids it was added to wait for, in order.
     */
    const char *const *depends_on;
    /**
     * How many ids `depends_on` holds.
     */
    size_t depends_on_len;
    /**
     * Its policy when a dependency dies or is cancelled; `LEASEQ_ON_DEPENDENCY_FAILURE_NONE`
     * without dependencies.
     */
    leaseq_on_dependency_failure on_dependency_failure;
    /**
     * Those it still waits for (while it is blocked).
     */
    const char *const *pending;
    /**
     * How many ids `pending` holds.
     */
    size_t pending_len;
    /**
     * How many blocked items wait for it.
     */
    uint64_t dependants_count;
    /**
     * Up to 100 of them.
     */
    const char *const *dependants;
    /**
     * How many ids `dependants` holds.
     */
    size_t dependants_len;
} leaseq_dependencies;

/**
 * The kept result of one dependency (`leaseq_dependency_results`).
 */
typedef struct {
    /**
     * The dependency's id (NUL-terminated UTF-8).
     */
    const char *id;
    /**
     * Whether a result is kept (false: completed without one, expired, or not completed).
     */
    bool has_result;
    /**
     * The result's bytes (`result_len` of them, followed by a NUL that is not part of them);
     * NULL without a result.
     */
    const uint8_t *result;
    /**
     * The result's length in bytes.
     */
    size_t result_len;
} leaseq_dependency_result;

/**
 * The kept results of an item's dependencies, in order (`leaseq_queue_dependency_results`),
 * owned by the caller: free it with `leaseq_dependency_results_free`.
 */
typedef struct {
    /**
     * One per dependency, in the order the item was added to wait for them (NULL when none).
     */
    const leaseq_dependency_result *results;
    /**
     * How many `results` holds.
     */
    size_t results_len;
} leaseq_dependency_results;

/**
 * A field of an event entry that `leaseq_event` has no member of (`cancelled`'s `state`, a
 * gap's `first`).
 */
typedef struct {
    /**
     * The field's name (NUL-terminated UTF-8).
     */
    const char *name;
    /**
     * Its value (NUL-terminated UTF-8).
     */
    const char *value;
} leaseq_event_field;

/**
 * One entry of a queue's event stream: a transition of an item (spec/PROTOCOL.md 14.2).
 *
 * Every string is NUL-terminated UTF-8 and belongs to what gave the event: the page
 * (`leaseq_event_page_free`), or, in the callback of `leaseq_queue_events`, the call of the
 * callback (copy what you keep).
 */
typedef struct {
    /**
     * The entry's id in the stream (`<ms>-<seq>`, the server's clock): resume after it.
     */
    const char *id;
    /**
     * What happened: `added`, `delayed`, `blocked`, `unblocked`, `leased`, `progress`,
     * `completed`, `failed`, `retrying`, `dead`, `cancelled`, `released`, `requeued`,
     * `expired`, `promoted`, or `gap`
     * (entries after the position were trimmed away before they were read; its extra field
     * `first` is the first entry kept). Kinds added later come as they are named.
     */
    const char *event;
    /**
     * The item's id ("" for a gap).
     */
    const char *job_id;
    /**
     * The item's incarnation ("" for an item without options not leased yet).
     */
    const char *inc;
    /**
     * The item's attempts at the transition (0 before its first lease).
     */
    uint64_t attempt;
    /**
     * The failure's error (`failed`; `dead` when the death came with one); NULL when none.
     */
    const char *error;
    /**
     * The item's name; NULL when it has none.
     */
    const char *name;
    /**
     * When the item runs next (ms since the epoch, server clock: `delayed`, `retrying`,
     * `released`); -1 when the entry has none.
     */
    int64_t due_ms;
    /**
     * Why the item is dead (`dead`); NULL otherwise.
     */
    const char *reason;
    /**
     * The entry's time: ms since the epoch, the server's clock (from its id).
     */
    int64_t time_ms;
    /**
     * The entry's other fields, in order (`extra_len` of them; NULL when there are none).
     */
    const leaseq_event_field *extra;
    /**
     * How many fields `extra` holds.
     */
    size_t extra_len;
} leaseq_event;

/**
 * One page of a queue's event stream (`leaseq_queue_read_events`), owned by the caller: free
 * it with `leaseq_event_page_free`. Everything it points to lives until then.
 */
typedef struct {
    /**
     * The entries, oldest first (`events_len` of them; NULL when there are none); a `gap`
     * entry first when entries after `after` were trimmed away before this read.
     */
    const leaseq_event *events;
    /**
     * How many entries `events` holds.
     */
    size_t events_len;
    /**
     * The stream's last id (`0-0` when it has none): where a follower from now starts.
     */
    const char *last;
    /**
     * Whether the queue's events are on now (`leaseq_config.events`).
     */
    bool on;
} leaseq_event_page;

/**
 * Called by `leaseq_queue_events` with each entry, in order, on the thread that called it.
 * `event` and its strings are valid only during the call. `position` is the follower's
 * position after this entry (NUL-terminated, valid during the call; NULL while there is none,
 * as for a `gap` first from now): store it, and a follower started after it later misses
 * nothing still kept. Return 0 to go on, anything else to stop following (the call then
 * returns `LEASEQ_OK`). It may call any leaseq function (of another queue or client too).
 */
typedef int32_t (*leaseq_event_callback)(const leaseq_event *event,
                                         const char *position,
                                         void *user_data);

/**
 * Called by `leaseq_partitioned_events` with each entry, as `leaseq_event_callback` is, with
 * the index of the `partition` whose stream it is in. `position` holds one id per partition,
 * joined by `,`.
 */
typedef int32_t (*leaseq_partitioned_event_callback)(const leaseq_event *event,
                                                     size_t partition,
                                                     const char *position,
                                                     void *user_data);

/**
 * What `leaseq_queue_fail` does with the item: one of the `LEASEQ_RETRY_*` values.
 */
typedef int32_t leaseq_retry;

/**
 * What `leaseq_queue_fail` did: one of the `LEASEQ_FAIL_*` values.
 */
typedef int32_t leaseq_fail_outcome;

/**
 * What `leaseq_queue_renew_outcome` found (and why `leaseq_queue_fail` found the lease not
 * held): one of the `LEASEQ_RENEW_*` values. Values never change meaning; new ones may come.
 */
typedef int32_t leaseq_renew_outcome;

/**
 * Counters for one minute of a queue's life (a plain struct of fixed layout: it never grows).
 */
typedef struct {
    /**
     * Items completed.
     */
    uint64_t completed;
    /**
     * Failed attempts (each `leaseq_queue_fail`).
     */
    uint64_t failed;
    /**
     * Items that went dead.
     */
    uint64_t dead;
    /**
     * Leases that expired without their holder reporting.
     */
    uint64_t expired;
} leaseq_minute;

/**
 * What the jobs of one item name (`LEASEQ_ADD_NAME`) did in the last hour, an entry of
 * `leaseq_name_counts` (a plain struct of fixed layout: it never grows).
 */
typedef struct {
    /**
     * The name (NUL-terminated UTF-8), borrowed from the `leaseq_name_counts` it is in.
     */
    const char *name;
    /**
     * Jobs of this name completed in the last 60 minutes.
     */
    uint64_t completed;
    /**
     * Failed attempts of jobs of this name (retried or not).
     */
    uint64_t failed;
    /**
     * Jobs of this name that went to the dead letters.
     */
    uint64_t dead;
} leaseq_name_count;

/**
 * Options of a lease, for `leaseq_queue_lease_with_options` and `leaseq_queue_lease_batch`.
 *
 * Start from `LEASEQ_LEASE_OPTIONS_INIT`, then set fields and OR their `LEASEQ_LEASE_*` bits
 * into `set`. Without `LEASEQ_LEASE_TTL` the lease lasts the core's default TTL (30 s); without
 * `LEASEQ_LEASE_TIMEOUT` the call does not wait for an item.
 */
typedef struct {
    /**
     * `sizeof(leaseq_lease_options)` as the caller compiled it; `LEASEQ_LEASE_OPTIONS_INIT`
     * sets it.
     */
    uint32_t struct_size;
    /**
     * Which fields below are given: `LEASEQ_LEASE_*` bits OR-ed together.
     */
    uint32_t set;
    /**
     * `LEASEQ_LEASE_TTL`: how long the lease lasts, 1 ms to 30 days.
     */
    int64_t ttl_ms;
    /**
     * `LEASEQ_LEASE_TIMEOUT`: how long to wait for an item when none is waiting: 0 not at all,
     * a positive value up to that long, a negative value until one arrives (or the client is
     * closed, which ends the wait with `LEASEQ_CLOSED`).
     */
    int64_t timeout_ms;
} leaseq_lease_options;

/**
 * One completion of `leaseq_queue_complete_batch` or `leaseq_queue_complete_and_lease_batch`:
 * a lease, and the result to keep, if any (a plain struct of fixed layout, read only during
 * the call). `LEASEQ_COMPLETION_INIT` gives one with no lease, no result and the default keep
 * time.
 *
 * Unlike other (pointer, length) pairs, `result` NULL means "no result", as
 * `leaseq_queue_complete` keeps none; an empty result is any non-NULL pointer with
 * `result_len` 0.
 */
typedef struct {
    /**
     * The lease to complete (required), of the queue the call is made on.
     */
    const leaseq_lease *lease;
    /**
     * The result to keep for `leaseq_queue_result` and `leaseq_queue_wait_result`
     * (`result_len` bytes), or NULL to keep none (then `result_len` must be 0).
     */
    const uint8_t *result;
    /**
     * The length of `result` in bytes.
     */
    size_t result_len;
    /**
     * How long to keep the result: -1 for the default (the item's own, else the queue's
     * configuration, else one day), otherwise greater than zero. Applies only with a result:
     * without one it must be -1.
     */
    int64_t keep_result_for_ms;
} leaseq_completion;

/**
 * One failure of `leaseq_queue_fail_batch`: what `leaseq_queue_fail` takes, for one lease (a
 * plain struct of fixed layout, read only during the call).
 */
typedef struct {
    /**
     * The lease that failed (required), of the queue the call is made on.
     */
    const leaseq_lease *lease;
    /**
     * The error message: NUL-terminated UTF-8 (required), cut to 4 KiB.
     */
    const char *error;
    /**
     * A name that groups failures, e.g. an exception class: NUL-terminated UTF-8 (required;
     * may be ""), cut to 4 KiB.
     */
    const char *error_type;
    /**
     * `LEASEQ_RETRY_DEFAULT`, `LEASEQ_RETRY_AFTER` or `LEASEQ_RETRY_NEVER`, as for
     * `leaseq_queue_fail`.
     */
    leaseq_retry retry;
    /**
     * The delay before the retry with `LEASEQ_RETRY_AFTER` (0 or more); read only with that
     * mode.
     */
    int64_t retry_after_ms;
} leaseq_failure;

/**
 * One group of a queue, as `leaseq_queue_group` reads it (a plain struct of fixed layout
 * within a version; before 1.0 a minor version may add fields).
 */
typedef struct {
    /**
     * Its items waiting.
     */
    uint64_t waiting;
    /**
     * Its items leased now.
     */
    uint64_t leased;
    /**
     * How many of its items may be leased at once (its own limit, else the queue's
     * `group_concurrency`, else 1).
     */
    uint64_t limit;
    /**
     * Whether it is paused (`leaseq_queue_pause_group`).
     */
    bool paused;
    /**
     * While the group is at the groups' rate limit (`LEASEQ_CONFIG_GROUP_RATE_LIMIT`) or held
     * off (`leaseq_queue_rate_limit_group`), the time left in its window, in ms; -1 otherwise.
     */
    int64_t rate_limited_for_ms;
} leaseq_group_info;

/**
 * What a clean did (a plain struct, filled by `leaseq_queue_light_clean` and
 * `leaseq_queue_deep_clean`, and summed over the partitions by `leaseq_partitioned_light_clean`
 * and `leaseq_partitioned_deep_clean`).
 */
typedef struct {
    /**
     * Items put back in the queue (their lease expired or was never set, or they were on no
     * list at all).
     */
    uint64_t requeued;
    /**
     * Stale entries removed: ids of complete items, duplicate ids, orphaned lease counts.
     */
    uint64_t removed;
    /**
     * Delayed items that were due, moved to waiting.
     */
    uint64_t promoted;
    /**
     * Items whose last lease expired with no attempts left, moved to dead.
     */
    uint64_t dead;
} leaseq_clean_report;

/**
 * What a schedule does with the ticks it missed (fired more than 10 s late, because no runner
 * was there to fire them): one of the `LEASEQ_MISSED_*` values.
 */
typedef int32_t leaseq_missed;

/**
 * A recurring job, for `leaseq_queue_upsert_schedule`: a cron expression (with its time zone)
 * or a period, the item each tick adds, and what to do with missed ticks (spec 5.23).
 *
 * Start from `LEASEQ_SCHEDULE_INIT`, then set fields and OR their `LEASEQ_SCHEDULE_*` bits
 * into `set`; exactly one of `LEASEQ_SCHEDULE_CRON` and `LEASEQ_SCHEDULE_EVERY` is required:
 *
 * ```c
 * leaseq_schedule schedule = LEASEQ_SCHEDULE_INIT;
 * schedule.cron = "0 3 * * *";
 * schedule.tz = "Europe/Berlin";
 * schedule.set |= LEASEQ_SCHEDULE_CRON | LEASEQ_SCHEDULE_TZ;
 * ```
 *
 * The core checks every field (an invalid cron expression or time zone gives
 * `LEASEQ_INVALID_ARGUMENT` naming `cron` or `tz`). Strings are NUL-terminated UTF-8, read
 * during the call only.
 */
typedef struct {
    /**
     * `sizeof(leaseq_schedule)` as the caller compiled it; `LEASEQ_SCHEDULE_INIT` sets it.
     */
    uint32_t struct_size;
    /**
     * Which fields below are given: `LEASEQ_SCHEDULE_*` bits OR-ed together.
     */
    uint32_t set;
    /**
     * `LEASEQ_SCHEDULE_CRON`: five fields (minute, hour, day of month, month, day of week), or
     * six with the seconds first (`"30 0 3 * * *"`), in UTC unless `tz` is given.
     */
    const char *cron;
    /**
     * `LEASEQ_SCHEDULE_TZ`: the IANA time zone of a cron schedule (`"Europe/Berlin"`).
     */
    const char *tz;
    /**
     * `LEASEQ_SCHEDULE_EVERY`: a fixed period in ms (at least one second): the ticks are the
     * schedule's creation time plus whole periods.
     */
    int64_t every_ms;
    /**
     * `LEASEQ_SCHEDULE_MISSED`: `LEASEQ_MISSED_SKIP` (the default), `LEASEQ_MISSED_ONCE` or
     * `LEASEQ_MISSED_ALL` (with `missed_all`).
     */
    leaseq_missed missed;
    /**
     * `LEASEQ_SCHEDULE_MISSED` with `LEASEQ_MISSED_ALL`: at most this many missed ticks fire
     * (1 to 1000).
     */
    uint32_t missed_all;
    /**
     * `LEASEQ_SCHEDULE_DATA`, with `data_len`: the data of the item each tick adds (any bytes,
     * at most 1 MiB; default empty; `data` may be NULL when `data_len` is 0).
     */
    const uint8_t *data;
    /**
     * `LEASEQ_SCHEDULE_DATA`: the length of `data` in bytes.
     */
    size_t data_len;
    /**
     * `LEASEQ_SCHEDULE_ITEM_OPTIONS`: the options of the item each tick adds (priority,
     * max_attempts, backoff, expires_after, keep_result_for, group, name; no delay or run_at),
     * as `leaseq_queue_add_with_options` takes them. Each item's id is `<name>@<tick ms>`.
     */
    const leaseq_add_options *item_options;
} leaseq_schedule;

/**
 * A stored recurring job with its next fire time (`leaseq_queue_get_schedule`, or an entry of
 * a `leaseq_schedule_page`). Strings are NUL-terminated UTF-8. Times are ms since the epoch on
 * the server's clock, -1 when unknown.
 */
typedef struct {
    /**
     * Its name.
     */
    const char *name;
    /**
     * false when its stored fields are not a schedule this version reads (written by a newer
     * version): then `cron`, `tz` and `data` are NULL, `every_ms` -1, and only the counters
     * and times below are known.
     */
    bool readable;
    /**
     * Its cron expression; NULL for a schedule every `every_ms`.
     */
    const char *cron;
    /**
     * The time zone of its cron expression; NULL when none was given (UTC).
     */
    const char *tz;
    /**
     * Its period in ms; -1 for a cron schedule.
     */
    int64_t every_ms;
    /**
     * What it does with missed ticks: a `LEASEQ_MISSED_*` value.
     */
    leaseq_missed missed;
    /**
     * With `LEASEQ_MISSED_ALL`: at most this many missed ticks fire; otherwise 0.
     */
    uint32_t missed_all;
    /**
     * The data of the item each tick adds (`data_len` bytes, followed by a NUL that is not
     * part of them).
     */
    const uint8_t *data;
    /**
     * The length of `data` in bytes.
     */
    size_t data_len;
    /**
     * Bumped by every upsert (1 for a new schedule).
     */
    uint64_t version;
    /**
     * The next tick to fire; -1 when unknown.
     */
    int64_t next_ms;
    /**
     * Every tick at or before this instant was fired or skipped.
     */
    int64_t from_ms;
    /**
     * Ticks fired so far.
     */
    uint64_t fired;
    /**
     * Missed ticks skipped so far (by the policy).
     */
    uint64_t skipped;
    /**
     * The last tick fired; -1 when none.
     */
    int64_t last_tick_ms;
    /**
     * When it was created.
     */
    int64_t created_ms;
    /**
     * When it was last upserted.
     */
    int64_t updated_ms;
} leaseq_schedule_info;

/**
 * A page of a queue's recurring jobs, by next fire time (`leaseq_queue_schedules`), owned by
 * the caller: free it with `leaseq_schedule_page_free`.
 */
typedef struct {
    /**
     * The server's clock when it was read (ms since the epoch).
     */
    int64_t now_ms;
    /**
     * How many schedules the queue has.
     */
    uint64_t total;
    /**
     * The page (`schedules_len` entries; NULL when empty).
     */
    const leaseq_schedule_info *schedules;
    /**
     * How many entries `schedules` holds.
     */
    size_t schedules_len;
} leaseq_schedule_page;

/**
 * What `leaseq_queue_fire_due_schedules` did (a plain struct of fixed layout, written by the
 * call).
 */
typedef struct {
    /**
     * Schedules it found due.
     */
    size_t due;
    /**
     * Ticks it fired (items added; an id that existed adds none).
     */
    size_t fired;
    /**
     * Missed ticks it skipped by their schedules' policies.
     */
    uint64_t skipped;
    /**
     * Fire calls that found their schedule moved by another firer or an upsert (no effect).
     */
    size_t lost_races;
    /**
     * Schedules whose stored fields it could not read (left alone).
     */
    size_t unreadable;
    /**
     * How long until the next schedule is due, by the server's clock, in ms; -1 when none is
     * stored.
     */
    int64_t next_due_in_ms;
} leaseq_fire_report;

/**
 * One runner event, lent to `on_event` for the duration of the call only. Its parts are the
 * core's (the same names and messages in every language).
 */
typedef struct {
    /**
     * "completed", "retrying", "dead", "released", "lease_lost", "timed_out", "error" or
     * "recovered".
     */
    const char *name;
    /**
     * The item's id ("" for "error" and "recovered").
     */
    const char *id;
    /**
     * The attempt (0 for "error" and "recovered").
     */
    uint64_t attempt;
    /**
     * The error message ("retrying", "dead", "timed_out", "error"), why a lease was lost, or
     * "".
     */
    const char *message;
} leaseq_worker_event;

/**
 * A log line's level (`leaseq_worker_options.on_log`): the numbers of Python's `logging`.
 */
typedef int32_t leaseq_log_level;

/**
 * What a runner did (`leaseq_worker_options.report`): the counts every language's runner
 * reports as it stops. A plain struct of fixed layout, fixed for good: a count added later
 * comes in a struct of its own, never written into this one.
 */
typedef struct {
    /**
     * Jobs completed.
     */
    uint64_t completed;
    /**
     * Failed attempts that will be retried.
     */
    uint64_t retried;
    /**
     * Jobs sent to the dead letters.
     */
    uint64_t dead;
    /**
     * Jobs whose lease was lost.
     */
    uint64_t lost;
    /**
     * Jobs released (by their callback, or at shutdown).
     */
    uint64_t released;
    /**
     * Callbacks that ran past the job timeout (each also counted as retried or dead).
     */
    uint64_t timed_out;
} leaseq_worker_report;

/**
 * A runner's settings. Start from `LEASEQ_WORKER_OPTIONS_INIT`, which sets every field (a zero,
 * or -1 for the booleans, takes the core's default); `leaseq_worker_options_init` fills only
 * the fields through `stats`, so that in a struct from it `job_timeout_ms`,
 * `timeout_grace_ms`, `on_log` and `log_level` are ignored.
 *
 * The struct grows at its end: `struct_size` says how many bytes of it the caller has, and
 * the library reads only those (fields beyond it take the core's defaults), so a program
 * built against an older, smaller struct keeps working with a newer library. A field added
 * later takes the core's default when it is 0.
 */
typedef struct {
    /**
     * The bytes of this struct the caller has: `leaseq_worker_options_init` sets it to the
     * size of the fields through `stats`, `LEASEQ_WORKER_OPTIONS_INIT` to
     * `sizeof(leaseq_worker_options)`. Less than the first is refused.
     */
    uint32_t struct_size;
    /**
     * Callbacks at once (1 to 1000; 0: the core's default, 1).
     */
    uint32_t concurrency;
    /**
     * Each lease's TTL in ms (0: the core's default, a lease's 30 s); renewed while the
     * callback runs.
     */
    uint64_t lease_ttl_ms;
    /**
     * Renewal period in ms (0: the core's default, TTL/3).
     */
    uint64_t renew_every_ms;
    /**
     * Keep results set by callbacks (-1: the core's default, yes; 0: no; 1: yes).
     */
    int32_t keep_results;
    /**
     * How long a shutdown waits for running callbacks, in ms (0: the core's default, 30 s).
     */
    uint64_t shutdown_timeout_ms;
    /**
     * After the shutdown timeout, fail (1) what still runs; 0: the core's default, release.
     */
    int32_t fail_on_shutdown;
    /**
     * Longest single server-side wait for work, in ms (0: the core's default, 1 s).
     */
    uint64_t poll_interval_ms;
    /**
     * Registration beat in ms (0: the core's default, 5 s).
     */
    uint64_t heartbeat_ms;
    /**
     * Take part in the queue's housekeeping (-1: the core's default, yes; 0: no; 1: yes).
     */
    int32_t housekeeping;
    /**
     * Deep clean period in ms while holding the housekeeping lock (0: the core's default, one
     * hour).
     */
    uint64_t deep_clean_every_ms;
    /**
     * Called with every event, on a runtime thread: keep it quick, and call no leaseq function
     * that talks to Redis from it (hand the event to a thread of yours). May be NULL.
     */
    void (*on_event)(const leaseq_worker_event *event, void *user_data);
    /**
     * Store this in the queue's configuration as the runner starts, before its first lease:
     * 1 turns the queue's per-minute counters on for every client, 0 off (-1: default, leave
     * the configuration alone). See `LEASEQ_CONFIG_STATS`.
     */
    int32_t stats;
    /**
     * How long a callback may run, in ms (0: the core's default, no limit; at most 30 days).
     * Past it the callback is told (`leaseq_worker_job_cancelled` gives
     * `LEASEQ_CANCEL_TIMEOUT`) and the attempt fails with error type "timeout" once it
     * returns, or after `timeout_grace_ms`, whichever comes first. Only in a struct from
     * `LEASEQ_WORKER_OPTIONS_INIT`.
     */
    uint64_t job_timeout_ms;
    /**
     * How long a callback told of its timeout has to return before its attempt is failed
     * anyway, in ms (0: the core's default, 5 s; at most one day). Its later outcome is then
     * ignored, and its slot stays taken until it returns.
     */
    uint64_t timeout_grace_ms;
    /**
     * Called with each log line of the runner (spec/PROTOCOL.md 13.4) of `log_level` and
     * above: its level (`LEASEQ_LOG_DEBUG` ... `LEASEQ_LOG_ERROR`), the line as (pointer,
     * length) of UTF-8 without a NUL, valid during the call only, and the runner's
     * `user_data`. Lines: the start (its queues, the server's URL without credentials, its
     * concurrency) and the stop (its report) at info, each failed attempt to be retried, lost
     * lease, timeout and Redis error at warn (id, attempt, error), each dead job at error, each
     * completed job at debug. On a runtime thread, as `on_event`: keep it quick. NULL: no
     * logging. Only in a struct from `LEASEQ_WORKER_OPTIONS_INIT`.
     */
    void (*on_log)(leaseq_log_level level, const uint8_t *line, size_t line_len, void *user_data);
    /**
     * The least level passed to `on_log` (0: the default, `LEASEQ_LOG_INFO`: no line per
     * successful job).
     */
    leaseq_log_level log_level;
    /**
     * When not NULL, where the run writes what the runner did as it returns LEASEQ_OK (all
     * zeros when a stop ended its wait for Redis, or a stop made before it); untouched on any
     * other status. Only in a struct from `LEASEQ_WORKER_OPTIONS_INIT`.
     */
    leaseq_worker_report *report;
} leaseq_worker_options;

/**
 * What a callback says became of its job.
 */
typedef int32_t leaseq_job_outcome;

/**
 * Runs one job; returns its outcome. Called on one of the core's blocking threads (never the
 * caller's), up to `concurrency` at once; it may block. `job` is valid only during the call.
 */
typedef leaseq_job_outcome (*leaseq_worker_fn)(leaseq_worker_job *job, void *user_data);

/**
 * One entry of a runner's table of handlers by name (`leaseq_worker_run_named`), a plain
 * struct of fixed layout: the jobs whose item's name (`LEASEQ_ADD_NAME`) is `name` run with
 * `handler`, which is given `user_data`. `LEASEQ_HANDLER("resize", resize, NULL)` fills one
 * from a string literal.
 */
typedef struct {
    /**
     * The name: `name_len` bytes of UTF-8 (1 to 256, no control characters), no NUL needed
     * after them. Read as the runner starts.
     */
    const char *name;
    /**
     * The name's length in bytes.
     */
    size_t name_len;
    /**
     * Runs the jobs of this name, as `leaseq_worker_run`'s callback runs every job.
     */
    leaseq_worker_fn handler;
    /**
     * Passed to `handler` with each job: it must be usable from the threads that run handlers.
     */
    void *user_data;
} leaseq_worker_handler;

/**
 * Why a callback is told to stop (`leaseq_worker_job_cancelled`), the core's reasons
 * (`CancelReason`), the same in every language.
 */
typedef int32_t leaseq_cancel_reason;

/**
 * Retry after the item's backoff while it has attempts left; else it is dead.
 */
#define LEASEQ_RETRY_DEFAULT 0

/**
 * Retry after `retry_after_ms` while the item has attempts left; else it is dead.
 */
#define LEASEQ_RETRY_AFTER 1

/**
 * Dead now: the failure is not worth retrying.
 */
#define LEASEQ_RETRY_NEVER 2

/**
 * No item (only `leaseq_queue_cancel` reports it, for an id it did not find).
 */
#define LEASEQ_STATE_NONE -1

/**
 * In a waiting list: the next lease may take it.
 */
#define LEASEQ_STATE_WAITING 0

/**
 * Waiting for its due time (added with a delay or run_at, or retrying after a backoff).
 */
#define LEASEQ_STATE_DELAYED 1

/**
 * Held by a worker.
 */
#define LEASEQ_STATE_LEASED 2

/**
 * Failed for good, expired, or out of attempts; kept for a while for inspection or requeue.
 */
#define LEASEQ_STATE_DEAD 3

/**
 * Completed, with its result kept.
 */
#define LEASEQ_STATE_DONE 4

/**
 * Waiting for its dependencies to complete (`LEASEQ_ADD_DEPENDS_ON`, spec 5.24): no lease
 * takes it until they have.
 */
#define LEASEQ_STATE_BLOCKED 5

/**
 * The item will run again after a delay (0: it is waiting now).
 */
#define LEASEQ_FAIL_RETRYING 0

/**
 * The item is dead: out of attempts, or failed with `LEASEQ_RETRY_NEVER`.
 */
#define LEASEQ_FAIL_DEAD 1

/**
 * The lease was no longer this holder's; nothing changed. The renew outcome says why.
 */
#define LEASEQ_FAIL_NOT_HELD 2

/**
 * The same delay, `base_ms`, after every failed attempt.
 */
#define LEASEQ_BACKOFF_FIXED 0

/**
 * `base_ms * 2^(attempt-1)`, at most `cap_ms`; with `jitter`, a random delay between half of
 * that and all of it.
 */
#define LEASEQ_BACKOFF_EXPONENTIAL 1

/**
 * No policy: the item has no dependencies (only read back, by
 * `leaseq_job_on_dependency_failure` and `leaseq_dependencies`).
 */
#define LEASEQ_ON_DEPENDENCY_FAILURE_NONE -1

/**
 * The dependant fails: it is dead, with a reason naming the dependency.
 */
#define LEASEQ_ON_DEPENDENCY_FAILURE_FAIL 0

/**
 * The dependant runs anyway, as if the dependency had completed.
 */
#define LEASEQ_ON_DEPENDENCY_FAILURE_RUN 1

/**
 * Missed ticks add nothing (the default).
 */
#define LEASEQ_MISSED_SKIP 0

/**
 * Missed ticks add one item, for the latest of them.
 */
#define LEASEQ_MISSED_ONCE 1

/**
 * Each missed tick adds its item, the latest `missed_all` of them at most (1 to 1000).
 */
#define LEASEQ_MISSED_ALL 2

/**
 * The lease was this holder's and now lasts the new TTL.
 */
#define LEASEQ_RENEW_RENEWED 0

/**
 * The lease expired and nobody holds the item now; a light clean will queue it again.
 */
#define LEASEQ_RENEW_EXPIRED 1

/**
 * Another holder leased the item after this lease expired.
 */
#define LEASEQ_RENEW_TAKEN_BY_ANOTHER 2

/**
 * The item is complete (or gone).
 */
#define LEASEQ_RENEW_COMPLETED 3

/**
 * The item was cancelled while leased (`leaseq_queue_cancel`).
 */
#define LEASEQ_RENEW_CANCELLED 4

/**
 * The id was completed and added again: this lease belongs to an older incarnation.
 */
#define LEASEQ_RENEW_OLDER_INCARNATION 5

/**
 * Success.
 */
#define LEASEQ_OK 0

/**
 * Redis could not be reached, or the connection broke during the call. Retryable.
 */
#define LEASEQ_CONNECTION 1

/**
 * Redis answered with an error leaseq has no better name for (NOPERM, a server older than
 * 7.0...).
 */
#define LEASEQ_REDIS 2

/**
 * An argument was refused and nothing was written to Redis; the message names it.
 */
#define LEASEQ_INVALID_ARGUMENT 3

/**
 * A key under the queue prefix holds another type than the protocol expects.
 */
#define LEASEQ_WRONG_TYPE 4

/**
 * Redis did not answer in time. Retryable. (A lease that finds no item before its own timeout
 * is not this: it succeeds with no lease.)
 */
#define LEASEQ_TIMEOUT 5

/**
 * The client was closed: waiting leases end with this, and so does every later call.
 */
#define LEASEQ_CLOSED 6

/**
 * Item data could not be encoded or decoded as JSON.
 */
#define LEASEQ_JSON 7

/**
 * Redis is temporarily unable to serve (loading its dataset, busy with another client's
 * script, failing over) and did not run the call. Retryable: retry after a pause. A waiting
 * lease rides through this by itself until its timeout.
 */
#define LEASEQ_UNAVAILABLE 8

/**
 * Redis is over `maxmemory` (with `noeviction`) and refused a call that adds memory (such as
 * an add) before it wrote anything. Drain or clean the queue, or raise `maxmemory`.
 */
#define LEASEQ_OUT_OF_MEMORY 9

/**
 * The queue is bounded (`leaseq_config.capacity`) and the items did not fit: nothing was
 * added. Wait for room (`leaseq_queue_add_with_timeout`) or add later.
 */
#define LEASEQ_FULL 10

/**
 * The item a wait for its result waited for is dead (a dead letter): no result will come
 * unless it is requeued. The message names the item, why it died and its last error.
 */
#define LEASEQ_DEAD 11

/**
 * C only: a required pointer argument was NULL; the message names it.
 */
#define LEASEQ_NULL_ARGUMENT 100

/**
 * C only: a bug inside leaseq (a caught panic); the message says where.
 */
#define LEASEQ_INTERNAL 101

/**
 * Done: complete the job (keeping the result set with `leaseq_worker_job_set_result`).
 */
#define LEASEQ_JOB_COMPLETE 0

/**
 * Failed: retried after the queue's backoff (or `leaseq_worker_job_set_error`'s delay) while
 * attempts are left, else a dead letter.
 */
#define LEASEQ_JOB_FAIL 1

/**
 * Failed for good: a dead letter now.
 */
#define LEASEQ_JOB_FAIL_UNRECOVERABLE 2

/**
 * Hand the job back untouched (no attempt counted): it waits again at once.
 */
#define LEASEQ_JOB_RELEASE 3

/**
 * Rate limited (an API answered 429): every client's leases of the queue are held off for
 * the hold set with `leaseq_worker_job_set_rate_limited` (`leaseq_queue_rate_limit`; of every
 * partition for a runner over a partitioned queue, `leaseq_partitioned_rate_limit`), and the
 * job is handed back, to run again after it without being charged an attempt. Without a hold
 * set, the attempt fails (error type "internal").
 */
#define LEASEQ_JOB_RATE_LIMITED 4

/**
 * Rate limited for the job's **group** (an API that limits per customer or tenant answered
 * 429): that group's leases are held off for the hold set with
 * `leaseq_worker_job_set_rate_limited` (`leaseq_queue_rate_limit_group`), and the job is handed
 * back in the same call, to run again after it without being charged an attempt; the queue's
 * other groups go on. A job without a group holds the whole queue off, as
 * `LEASEQ_JOB_RATE_LIMITED` (of a partitioned queue: every partition). Without a hold set, the
 * attempt fails (error type "internal").
 */
#define LEASEQ_JOB_RATE_LIMITED_GROUP 5

/**
 * Not told: go on.
 */
#define LEASEQ_CANCEL_NONE 0

/**
 * The job ran past the runner's `job_timeout_ms`: its attempt fails with error type
 * "timeout" once the callback returns, or after `timeout_grace_ms`.
 */
#define LEASEQ_CANCEL_TIMEOUT 1

/**
 * The lease is lost (expired and taken, cancelled or completed elsewhere).
 */
#define LEASEQ_CANCEL_LEASE_LOST 2

/**
 * The runner's shutdown timeout passed (or the shutdown was forced).
 */
#define LEASEQ_CANCEL_SHUTDOWN 3

/**
 * Routine: a job completed or released.
 */
#define LEASEQ_LOG_DEBUG 10

/**
 * The runner started or stopped; a step works again.
 */
#define LEASEQ_LOG_INFO 20

/**
 * A failed attempt to be retried, a lost lease, a timeout, a Redis error.
 */
#define LEASEQ_LOG_WARN 30

/**
 * A job failed for good (dead).
 */
#define LEASEQ_LOG_ERROR 40

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * The message of the last failed leaseq call on this thread, naming the function and, for
 * argument errors, the argument; "" after a call that succeeded.
 *
 * Never NULL. The string belongs to leaseq: valid until the next leaseq call on the same
 * thread; do not free it (copy it to keep it). Each thread has its own, so it is thread-safe.
 * Calling this function or `leaseq_status_str` does not change it.
 */
const char *leaseq_last_error_message(void);

/**
 * The version of the library, e.g. "0.1.0". Never NULL; static: do not free it.
 */
const char *leaseq_version(void);

/**
 * Connects to one Redis server.
 *
 * `url` is `redis://[user:pass@]host[:port][/db]`, `rediss://...` (TLS; append `#insecure`
 * to skip certificate checks) or `redis+unix:///path/to.sock` (UTF-8, NUL-terminated; only
 * read during the call).
 *
 * On success `*out_client` is a new client owned by the caller: free it with
 * `leaseq_client_free`. On failure it is set to NULL. Errors: `LEASEQ_INVALID_ARGUMENT` (a
 * malformed URL), `LEASEQ_CONNECTION`, `LEASEQ_TIMEOUT`, `LEASEQ_NULL_ARGUMENT`.
 *
 * # Safety
 * `url` is NULL or a NUL-terminated string; `out_client` is NULL or writable.
 */
leaseq_status leaseq_client_connect(const char *url, leaseq_client **out_client);

/**
 * Connects to a Redis Cluster through one or more of its nodes.
 *
 * `urls` is an array of `urls_len` node URLs (UTF-8, NUL-terminated; only read during the
 * call). Queue prefixes used with a cluster client must hold a `{hash tag}`.
 *
 * On success `*out_client` is a new client owned by the caller: free it with
 * `leaseq_client_free`. On failure it is set to NULL. An empty list gives
 * `LEASEQ_INVALID_ARGUMENT`; a NULL `urls` with a non-zero length, or a NULL element, gives
 * `LEASEQ_NULL_ARGUMENT`.
 *
 * # Safety
 * `urls` is NULL or points to `urls_len` pointers, each NULL or a NUL-terminated string;
 * `out_client` is NULL or writable.
 */
leaseq_status leaseq_client_connect_cluster(const char *const *urls,
                                            size_t urls_len,
                                            leaseq_client **out_client);

/**
 * Closes the client: leases waiting on any thread (on any queue made from this client) end at
 * once with `LEASEQ_CLOSED`, and so does every later call on the client and its queues.
 *
 * This is how to interrupt a blocking `leaseq_queue_lease` from another thread. Closing twice
 * is harmless. The handle stays allocated: free it with `leaseq_client_free` afterwards.
 *
 * # Safety
 * `client` is NULL or a live client.
 */
leaseq_status leaseq_client_close(const leaseq_client *client);

/**
 * Sets `*out_is_cluster` to whether the client talks to a Redis Cluster.
 *
 * # Safety
 * `client` is NULL or a live client; `out_is_cluster` is NULL or writable.
 */
leaseq_status leaseq_client_is_cluster(const leaseq_client *client, bool *out_is_cluster);

/**
 * Sets `*out_count` to the number of warnings found when connecting: things about the
 * server's configuration that put items at risk (e.g. a `maxmemory-policy` that may evict
 * queue keys). Read them with `leaseq_client_warning`.
 *
 * # Safety
 * `client` is NULL or a live client; `out_count` is NULL or writable.
 */
leaseq_status leaseq_client_warning_count(const leaseq_client *client, size_t *out_count);

/**
 * Sets `*out_warning` to warning number `index` (from 0; see `leaseq_client_warning_count`).
 *
 * The string belongs to the client: valid until `leaseq_client_free`; do not free it. An index
 * out of range gives `LEASEQ_INVALID_ARGUMENT` and sets `*out_warning` to NULL.
 *
 * # Safety
 * `client` is NULL or a live client; `out_warning` is NULL or writable.
 */
leaseq_status leaseq_client_warning(const leaseq_client *client,
                                    size_t index,
                                    const char **out_warning);

/**
 * Makes a handle for the queue whose keys live under `prefix` (UTF-8, NUL-terminated, 1 to
 * 1024 bytes, no control characters; with a cluster client it must hold a `{hash tag}`). Sends
 * nothing to Redis.
 *
 * On success `*out_queue` is a new queue owned by the caller: free it with
 * `leaseq_queue_free`. The queue keeps its own reference to the connection, so it stays valid
 * memory after `leaseq_client_free`, but it shares the client's closed state. On failure
 * `*out_queue` is set to NULL; an invalid prefix gives `LEASEQ_INVALID_ARGUMENT`.
 *
 * # Safety
 * `client` is NULL or a live client; `prefix` is NULL or a NUL-terminated string;
 * `out_queue` is NULL or writable.
 */
leaseq_status leaseq_client_queue(const leaseq_client *client,
                                  const char *prefix,
                                  leaseq_queue **out_queue);

/**
 * Closes the client (exactly as `leaseq_client_close`, so leases waiting on its queues in
 * other threads end with `LEASEQ_CLOSED`) and frees the handle. NULL is accepted and ignored.
 *
 * Queues made from the client stay valid memory until their own `leaseq_queue_free`, but every
 * call on them returns `LEASEQ_CLOSED`. The connection is released when the client and all its
 * queues are freed. No other thread may be inside a call that takes this same client pointer,
 * and the pointer must not be used again.
 *
 * # Safety
 * `client` is NULL or a live client that no other call is using, freed only once.
 */
void leaseq_client_free(leaseq_client *client);

/**
 * Stops leaseq's I/O runtime: the one background thread per process on which runners
 * (`leaseq_worker_run`) and the jobs they hand out work, with the connections it still holds.
 * It waits up to two seconds for that thread to end. A client's own calls do not use it: they
 * run on the calling threads.
 *
 * Optional: call it last, after freeing every client and queue, when nothing of leaseq may
 * outlive the call (before unloading the library, or before exiting a program checked by
 * valgrind, which would otherwise see the live thread's memory). A runner started afterwards
 * starts a new runtime, but a client whose runner ran before has lost that connection: its
 * runners fail. Never call it while another thread is inside a leaseq call. Calling it twice
 * is harmless.
 */
void leaseq_runtime_shutdown(void);

/**
 * Reads the queue's stored configuration into `*out_config`, whose `struct_size` the caller
 * sets first (`leaseq_config out = LEASEQ_CONFIG_INIT;`): only the fields that fit in it are
 * written. `set` names the fields that are stored; the others are 0, and the protocol's
 * defaults apply to them. One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_config` is NULL or points to a `leaseq_config` of
 * `struct_size` writable bytes with `struct_size` set.
 */
leaseq_status leaseq_queue_config(const leaseq_queue *queue, leaseq_config *out_config);

/**
 * Stores the fields of `config` named in its `set` bits; the others keep their stored value.
 * Every field is checked first: a bad one gives `LEASEQ_INVALID_ARGUMENT` naming it (e.g.
 * `config.priority`) and nothing is written. With no bit set, nothing is sent. One round
 * trip. Every client of the queue, in every language, reads the stored configuration.
 *
 * # Safety
 * `queue` is NULL or a live queue; `config` is NULL or points to a `leaseq_config` of
 * `struct_size` readable bytes.
 */
leaseq_status leaseq_queue_set_config(const leaseq_queue *queue, const leaseq_config *config);

/**
 * Removes the queue's stored configuration: the protocol's defaults apply again. One round
 * trip.
 *
 * # Safety
 * `queue` is NULL or a live queue.
 */
leaseq_status leaseq_queue_reset_config(const leaseq_queue *queue);

/**
 * Cancels item `id` (NUL-terminated UTF-8): a waiting, delayed or dead item is removed; a
 * leased one is marked, so that its holder's renew, complete, fail and release return false
 * (outcome `LEASEQ_RENEW_CANCELLED`) and remove it, as does the expiry of its lease. Sets
 * `*out_previous` to the state the item was in, or `LEASEQ_STATE_NONE` when there was no item.
 * One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_previous` is
 * NULL or writable.
 */
leaseq_status leaseq_queue_cancel(const leaseq_queue *queue,
                                  const char *id,
                                  leaseq_state *out_previous);

/**
 * Puts the dead items named in `ids` (an array of `ids_len` NUL-terminated UTF-8 ids, at most
 * 1000; `ids` may be NULL when `ids_len` is 0) back to waiting, with their attempts reset; ids
 * that are not dead are skipped. Sets `*out_requeued` to how many were requeued. A NULL
 * element gives `LEASEQ_NULL_ARGUMENT` naming it (`ids[i]`) and requeues nothing. One round
 * trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `ids` is NULL or points to `ids_len` pointers, each NULL or
 * a NUL-terminated string; `out_requeued` is NULL or writable.
 */
leaseq_status leaseq_queue_dead_requeue(const leaseq_queue *queue,
                                        const char *const *ids,
                                        size_t ids_len,
                                        uint64_t *out_requeued);

/**
 * Like `leaseq_queue_dead_requeue`, saying which ids were requeued: sets `out_requeued[i]` to
 * whether `ids[i]` was (false: not a dead letter: no such item, or one in another state; an id
 * given twice is false the second time). `out_requeued` is the caller's array of `ids_len`
 * bools (NULL only when `ids_len` is 0); on failure every element is false. One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `ids` is NULL or points to `ids_len` pointers, each NULL or
 * a NUL-terminated string; `out_requeued` is NULL or points to `ids_len` writable bools.
 */
leaseq_status leaseq_queue_dead_requeue_each(const leaseq_queue *queue,
                                             const char *const *ids,
                                             size_t ids_len,
                                             bool *out_requeued);

/**
 * Requeues the `n` oldest dead items (attempts reset), or all of them with `n` -1 (1000 per
 * round trip). Sets `*out_requeued` to how many were requeued.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_requeued` is NULL or writable.
 */
leaseq_status leaseq_queue_dead_requeue_oldest(const leaseq_queue *queue,
                                               int64_t n,
                                               uint64_t *out_requeued);

/**
 * Deletes the `n` oldest dead items, or all of them with `n` -1 (1000 per round trip). Sets
 * `*out_purged` to how many were deleted.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_purged` is NULL or writable.
 */
leaseq_status leaseq_queue_dead_purge(const leaseq_queue *queue, int64_t n, uint64_t *out_purged);

/**
 * As `leaseq_queue_cancel`, with the id as `id_len` bytes (any bytes: an id another kind of
 * client added need not be UTF-8).
 *
 * # Safety
 * `queue` is NULL or a live queue; `id` is NULL or points to `id_len` readable bytes;
 * `out_previous` is NULL or writable.
 */
leaseq_status leaseq_queue_cancel_bytes(const leaseq_queue *queue,
                                        const uint8_t *id,
                                        size_t id_len,
                                        leaseq_state *out_previous);

/**
 * As `leaseq_queue_dead_requeue`, with each id as bytes: `ids[i]` points to `id_lens[i]`
 * bytes (any bytes). `ids` and `id_lens` may be NULL when `ids_len` is 0. A NULL element with
 * a length above 0 gives `LEASEQ_NULL_ARGUMENT` naming it (`ids[i]`) and requeues nothing.
 *
 * # Safety
 * `queue` is NULL or a live queue; `ids` and `id_lens` are NULL or point to `ids_len` readable
 * elements, each `ids[i]` NULL or pointing to `id_lens[i]` readable bytes; `out_requeued` is
 * NULL or writable.
 */
leaseq_status leaseq_queue_dead_requeue_bytes(const leaseq_queue *queue,
                                              const uint8_t *const *ids,
                                              const size_t *id_lens,
                                              size_t ids_len,
                                              uint64_t *out_requeued);

/**
 * Adds `parent` and its children in one call (BullMQ's FlowProducer): the children first, then
 * the parent, blocked (`LEASEQ_STATE_BLOCKED`) until every child of its own completed; a child
 * with children of its own waits for them likewise. A parent reads its children's results with
 * `leaseq_queue_dependency_results`. `children` is a flat array of `children_len` children,
 * each naming its parent (`LEASEQ_FLOW_ROOT` or an earlier index); children of one parent keep
 * their order. `parent_options` (NULL: none) and each child's `options` are checked as
 * `leaseq_queue_add_with_options` checks them, every one before anything is sent (a refused
 * child's field is named with its index: `children[2].options.priority`).
 *
 * On success `*out_added` is how many items were added (an id that exists is not added
 * again, and its item counts as the dependency). At most 1000 items in all, with distinct ids
 * (else `LEASEQ_INVALID_ARGUMENT` naming `children`). One round trip.
 *
 * # Safety
 * `queue` and `parent` are NULL or live handles; `parent_options` is NULL or a
 * `leaseq_add_options` of `struct_size` readable bytes; `children` is NULL (with
 * `children_len` 0) or points to `children_len` readable `leaseq_flow_child`, each `item` NULL
 * or live and each `options` NULL or readable; `out_added` is NULL or writable.
 */
leaseq_status leaseq_queue_add_flow(const leaseq_queue *queue,
                                    const leaseq_item *parent,
                                    const leaseq_add_options *parent_options,
                                    const leaseq_flow_child *children,
                                    size_t children_len,
                                    size_t *out_added);

/**
 * What item `id` (NUL-terminated UTF-8) waits for (its dependencies, those still pending) and
 * how many blocked items wait for it. An id with neither gives empty lists. One round trip.
 *
 * On success `*out_dependencies` is new, owned by the caller: free it with
 * `leaseq_dependencies_free`. On failure it is set to NULL.
 *
 * # Safety
 * `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string;
 * `out_dependencies` is NULL or writable.
 */
leaseq_status leaseq_queue_dependencies(const leaseq_queue *queue,
                                        const char *id,
                                        leaseq_dependencies **out_dependencies);

/**
 * Frees what `leaseq_queue_dependencies` (or `leaseq_partitioned_dependencies`) gave. NULL is
 * accepted and ignored.
 *
 * # Safety
 * `dependencies` is NULL or from `leaseq_queue_dependencies` or
 * `leaseq_partitioned_dependencies`, freed only once.
 */
void leaseq_dependencies_free(leaseq_dependencies *dependencies);

/**
 * The kept results of the items `id` (NUL-terminated UTF-8) was added to wait for, in order: a
 * flow's parent reads its children's results so, once they completed. One round trip.
 *
 * On success `*out_results` is new, owned by the caller: free it with
 * `leaseq_dependency_results_free`. On failure it is set to NULL.
 *
 * # Safety
 * `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_results` is
 * NULL or writable.
 */
leaseq_status leaseq_queue_dependency_results(const leaseq_queue *queue,
                                              const char *id,
                                              leaseq_dependency_results **out_results);

/**
 * Frees what `leaseq_queue_dependency_results` (or `leaseq_partitioned_dependency_results`)
 * gave. NULL is accepted and ignored.
 *
 * # Safety
 * `results` is NULL or from `leaseq_queue_dependency_results` or
 * `leaseq_partitioned_dependency_results`, freed only once.
 */
void leaseq_dependency_results_free(leaseq_dependency_results *results);

/**
 * Reads one page of the queue's event stream, without waiting: at most `count` (1 to 1000)
 * entries after the entry id `after` (NUL-terminated, `<ms>-<seq>` as a `leaseq_event.id`;
 * `"0-0"`: every entry still kept), oldest first. `after` NULL reads from now: no entries, only
 * the stream's last id (`last`), where a follower from now starts. An `after` that is no
 * event id, or later than the stream's last entry, gives `LEASEQ_INVALID_ARGUMENT` naming
 * `after`. One round trip.
 *
 * On success `*out_page` is a new page owned by the caller: free it with
 * `leaseq_event_page_free`. On failure it is set to NULL.
 *
 * # Safety
 * `queue` is NULL or a live queue; `after` is NULL or a NUL-terminated string; `out_page` is
 * NULL or writable.
 */
leaseq_status leaseq_queue_read_events(const leaseq_queue *queue,
                                       const char *after,
                                       size_t count,
                                       leaseq_event_page **out_page);

/**
 * Frees a page of events. NULL is accepted and ignored. Everything it points to becomes
 * invalid.
 *
 * # Safety
 * `page` is NULL or a page from `leaseq_queue_read_events`, freed only once.
 */
void leaseq_event_page_free(leaseq_event_page *page);

/**
 * Follows the queue's event stream: calls `callback` with each entry, in order, as they come,
 * blocking the calling thread while it waits for the next (in Redis, never polling, on a
 * connection of its own: other calls on the same client, from other threads, go on). From now
 * (`after` NULL), or resuming after the entry id `after` (as a `leaseq_event.id` or a stored
 * `position`; `"0-0"`: every entry still kept): a process that restarts misses nothing still
 * in the stream. Errors that a retry may cure (a lost connection, a failover) are waited out.
 *
 * Returns `LEASEQ_OK` once `callback` returned non-zero; `LEASEQ_CLOSED` when the client is
 * closed (`leaseq_client_close` from another thread ends the wait at once); an `after` that is
 * no event id gives `LEASEQ_INVALID_ARGUMENT` naming `after`, and other errors their status.
 * `user_data` is given to `callback` as it is.
 *
 * # Safety
 * `queue` is NULL or a live queue that outlives the call; `after` is NULL or a NUL-terminated
 * string; `callback` is NULL or a function safe to call as documented with `user_data`.
 */
leaseq_status leaseq_queue_events(const leaseq_queue *queue,
                                  const char *after,
                                  leaseq_event_callback callback,
                                  void *user_data);

/**
 * Follows every partition's event stream at once, as `leaseq_queue_events` follows one:
 * `callback` gets each entry with the index of its partition. Each partition's entries come
 * in their order; across partitions, the earliest of those read first, and no order beyond
 * that. It waits on every partition's stream at once (a connection each). From now (`after`
 * NULL), or after `after`: a stored `position` (one id per partition, joined by `,`), or one
 * id for every partition (`"0-0"`: every entry still kept). Another count of ids, or an id
 * that is none, gives `LEASEQ_INVALID_ARGUMENT` naming `after`, sending nothing; so does an id
 * later than its partition's last entry.
 *
 * Returns as `leaseq_queue_events` does.
 *
 * # Safety
 * As `leaseq_queue_events`, with `partitioned` NULL or a live partitioned queue that outlives
 * the call.
 */
leaseq_status leaseq_partitioned_events(const leaseq_partitioned *partitioned,
                                        const char *after,
                                        leaseq_partitioned_event_callback callback,
                                        void *user_data);

/**
 * Completes the leased item as `leaseq_queue_complete` does, and keeps `result` (`result_len`
 * bytes; `result` may be NULL when `result_len` is 0) for `leaseq_queue_result` and
 * `leaseq_queue_wait_result`. `keep_result_for_ms` is how long: -1 for the default (the item's
 * own, else the queue's configuration, else one day), otherwise greater than zero. The result
 * is kept only when `*out_completed` is true. One round trip.
 *
 * # Safety
 * `queue` and `lease` are NULL or live handles; `result` is NULL or points to `result_len`
 * readable bytes; `out_completed` is NULL or writable.
 */
leaseq_status leaseq_queue_complete_with_result(const leaseq_queue *queue,
                                                const leaseq_lease *lease,
                                                const uint8_t *result,
                                                size_t result_len,
                                                int64_t keep_result_for_ms,
                                                bool *out_completed);

/**
 * Records a failed attempt: `error` (a message) and `error_type` (a name that groups failures,
 * e.g. an exception class; may be ""), both NUL-terminated UTF-8, cut to 4 KiB. With
 * `LEASEQ_RETRY_DEFAULT` the item runs again after its backoff, with `LEASEQ_RETRY_AFTER`
 * after `retry_after_ms` (0 or more; read only with that mode), while it has attempts left;
 * otherwise, or with `LEASEQ_RETRY_NEVER`, it is dead. One round trip.
 *
 * Sets `*out_outcome` to `LEASEQ_FAIL_RETRYING`, `LEASEQ_FAIL_DEAD`, or `LEASEQ_FAIL_NOT_HELD`
 * when the lease was no longer this holder's (expired, taken, completed, cancelled, older
 * incarnation): then nothing changed, and `*out_not_held` says why (a `LEASEQ_RENEW_*` value;
 * `LEASEQ_RENEW_RENEWED` when the lease was held). `*out_retry_in_ms` is the delay before the
 * retry for `LEASEQ_FAIL_RETRYING` (0: the item waits now), -1 otherwise.
 *
 * # Safety
 * `queue` and `lease` are NULL or live handles; `error` and `error_type` are NULL or
 * NUL-terminated strings; the out-parameters are NULL or writable.
 */
leaseq_status leaseq_queue_fail(const leaseq_queue *queue,
                                const leaseq_lease *lease,
                                const char *error,
                                const char *error_type,
                                leaseq_retry retry,
                                int64_t retry_after_ms,
                                leaseq_fail_outcome *out_outcome,
                                leaseq_renew_outcome *out_not_held,
                                int64_t *out_retry_in_ms);

/**
 * Like `leaseq_queue_fail`, keeping `trace` (a backtrace, a stack, any text: NUL-terminated
 * UTF-8, cut to 16 KiB) with the item as its trace, shown by `leaseq_queue_get`
 * (`leaseq_job_trace`). The last failure's trace replaces the previous one; `""` keeps none
 * (and removes an earlier failure's). One round trip.
 *
 * # Safety
 * As for `leaseq_queue_fail`; `trace` is NULL or a NUL-terminated string.
 */
leaseq_status leaseq_queue_fail_with_trace(const leaseq_queue *queue,
                                           const leaseq_lease *lease,
                                           const char *error,
                                           const char *error_type,
                                           const char *trace,
                                           leaseq_retry retry,
                                           int64_t retry_after_ms,
                                           leaseq_fail_outcome *out_outcome,
                                           leaseq_renew_outcome *out_not_held,
                                           int64_t *out_retry_in_ms);

/**
 * Hands the item back without counting a failure: it waits again at once (`delay_ms` 0) or
 * after `delay_ms` (0 or more), and the attempt it used is given back. Only the live holder can
 * release: `*out_released` is false when the lease was no longer this holder's
 * (`leaseq_queue_renew_outcome` says why). One round trip.
 *
 * # Safety
 * `queue` and `lease` are NULL or live handles; `out_released` is NULL or writable.
 */
leaseq_status leaseq_queue_release(const leaseq_queue *queue,
                                   const leaseq_lease *lease,
                                   int64_t delay_ms,
                                   bool *out_released);

/**
 * Stores a small value (`value_len` bytes, at most 64 KiB; `value` may be NULL when
 * `value_len` is 0) on the leased item, shown by `leaseq_queue_get` (`leaseq_job_progress`).
 * Only the live holder can: `*out_stored` says whether it did. One round trip.
 *
 * # Safety
 * `queue` and `lease` are NULL or live handles; `value` is NULL or points to `value_len`
 * readable bytes; `out_stored` is NULL or writable.
 */
leaseq_status leaseq_queue_progress(const leaseq_queue *queue,
                                    const leaseq_lease *lease,
                                    const uint8_t *value,
                                    size_t value_len,
                                    bool *out_stored);

/**
 * Sets `*out_result` to the result kept for item `id` (NUL-terminated UTF-8), or NULL when it
 * did not complete with one or the result has expired. One round trip.
 *
 * `*out_result`, when not NULL, is a new result owned by the caller: free it with
 * `leaseq_result_free`.
 *
 * # Safety
 * `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_result` is
 * NULL or writable.
 */
leaseq_status leaseq_queue_result(const leaseq_queue *queue,
                                  const char *id,
                                  leaseq_result **out_result);

/**
 * Waits for item `id`'s result, server-side (no polling), and sets `*out_result` to it, or to
 * NULL when the timeout passes first (not an error). `timeout_ms` is as `leaseq_queue_lease`'s:
 * 0 only reads it, a positive value waits up to that long, a negative one waits until the
 * result comes. An item that dies ends the wait with `LEASEQ_DEAD` within a second (the
 * message says why it died and its last error): no result will come unless it is requeued. An
 * item completed without a result or cancelled gives none. Blocks only the calling thread;
 * `leaseq_client_close` from another thread ends the wait with `LEASEQ_CLOSED`.
 *
 * `*out_result`, when not NULL, is a new result owned by the caller: free it with
 * `leaseq_result_free`.
 *
 * # Safety
 * `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_result` is
 * NULL or writable.
 */
leaseq_status leaseq_queue_wait_result(const leaseq_queue *queue,
                                       const char *id,
                                       int64_t timeout_ms,
                                       leaseq_result **out_result);

/**
 * Sets `*out_job` to everything known about item `id` (NUL-terminated UTF-8): its state,
 * data, attempts, last error, progress, times and kept result; NULL when no item and no kept
 * result has this id. One round trip.
 *
 * `*out_job`, when not NULL, is a new job owned by the caller: read it with the `leaseq_job_*`
 * functions and free it with `leaseq_job_free`.
 *
 * # Safety
 * `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_job` is NULL
 * or writable.
 */
leaseq_status leaseq_queue_get(const leaseq_queue *queue, const char *id, leaseq_job **out_job);

/**
 * Sets `*out_list` to a page of the items in `state` (`LEASEQ_STATE_WAITING`, `_DELAYED`,
 * `_LEASED`, `_DEAD` or `_DONE`): up to `count` (1 to 1000) entries from position `start`, in
 * order: waiting in the order they will be leased, delayed by due time, leased by lease
 * expiry, dead oldest first, done (completed with their result kept) newest first (a done
 * item whose result expired, and a cancelled waiting item's id, are skipped, their positions
 * counted, so a page may be short and more may follow it; items waiting in groups are not
 * listed). One round trip.
 *
 * `*out_list` is a new list owned by the caller (possibly empty): read it with
 * `leaseq_entry_list_len` and `leaseq_entry_list_get`, free it with `leaseq_entry_list_free`.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_list` is NULL or writable.
 */
leaseq_status leaseq_queue_list(const leaseq_queue *queue,
                                leaseq_state state,
                                size_t start,
                                size_t count,
                                leaseq_entry_list **out_list);

/**
 * Sets `*out_count` to how many items are in `state` (`LEASEQ_STATE_WAITING`, `_DELAYED`,
 * `_LEASED`, `_DEAD` or `_DONE`). Waiting counts ids in the waiting lists, stale ones included
 * until a lease or clean drops them; done counts the kept results, expired ones included until
 * a later complete drops them. One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_count` is NULL or writable.
 */
leaseq_status leaseq_queue_count(const leaseq_queue *queue,
                                 leaseq_state state,
                                 uint64_t *out_count);

/**
 * Sets `*out_list` to the entries of `state` whose name is `name` and whose last error's type
 * is `error_type` (NUL-terminated UTF-8; NULL: any), looking at most at 1000 positions from
 * `start` and keeping at most `count` (1 to 1000) matches; `*out_next` to the `start` of the
 * next call, or -1 once the end of the state was reached; `*out_examined` (when not NULL) to
 * how many positions were looked at. Bounded whatever the state's size. Done items keep no
 * name or error: a filter on either finds none of them. One round trip.
 *
 * `*out_list` is a new list owned by the caller (possibly empty): read it as
 * `leaseq_queue_list`'s, free it with `leaseq_entry_list_free`.
 *
 * # Safety
 * `queue` is NULL or a live queue; `name` and `error_type` are NULL or NUL-terminated strings;
 * `out_list` and `out_next` are NULL or writable; `out_examined` is NULL or writable.
 */
leaseq_status leaseq_queue_find(const leaseq_queue *queue,
                                leaseq_state state,
                                const char *name,
                                const char *error_type,
                                size_t start,
                                size_t count,
                                leaseq_entry_list **out_list,
                                int64_t *out_next,
                                size_t *out_examined);

/**
 * Makes the delayed item `id` (NUL-terminated UTF-8) wait now, at its priority (or in its
 * group), as if it were due; sets `*out_promoted` (when not NULL) to whether it was delayed.
 * One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_promoted` is
 * NULL or writable.
 */
leaseq_status leaseq_queue_promote(const leaseq_queue *queue, const char *id, bool *out_promoted);

/**
 * Sets `*out_stats` to the queue's figures, read in one round trip: counts per state, the age
 * of the oldest waiting item, and, when the queue's counters are on (`LEASEQ_CONFIG_STATS`;
 * `leaseq_stats_counting` says), completed, failed, dead and expired counts for each of the
 * last 60 minutes.
 *
 * `*out_stats` is a new handle owned by the caller: read it with the `leaseq_stats_*`
 * functions and free it with `leaseq_stats_free`.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_stats` is NULL or writable.
 */
leaseq_status leaseq_queue_stats(const leaseq_queue *queue, leaseq_stats **out_stats);

/**
 * Sets `*out_counts` to what each kind of job did in the last hour: for every item name
 * (`LEASEQ_ADD_NAME`) met in the last 60 minutes, how many of its jobs completed, failed
 * (attempts) and went dead, by name; or to NULL while the queue's counters are off
 * (`LEASEQ_CONFIG_STATS`): nothing is counted then. Each minute counts at most 300 name and
 * outcome pairs (items with unbounded names keep the totals of `leaseq_queue_stats`, not a
 * count for every name), and at most 1000 names are returned. One round trip.
 *
 * `*out_counts`, when not NULL, is a new handle owned by the caller (possibly with no entry):
 * read it with `leaseq_name_counts_entries` and free it with `leaseq_name_counts_free`.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_counts` is NULL or writable.
 */
leaseq_status leaseq_queue_counts_by_name(const leaseq_queue *queue,
                                          leaseq_name_counts **out_counts);

/**
 * As `leaseq_queue_result`, with the id as `id_len` bytes (any bytes: an id another kind of
 * client added need not be UTF-8; `leaseq_lease_id_bytes` gives such an id).
 *
 * # Safety
 * `queue` is NULL or a live queue; `id` is NULL or points to `id_len` readable bytes;
 * `out_result` is NULL or writable.
 */
leaseq_status leaseq_queue_result_bytes(const leaseq_queue *queue,
                                        const uint8_t *id,
                                        size_t id_len,
                                        leaseq_result **out_result);

/**
 * As `leaseq_queue_wait_result`, with the id as `id_len` bytes (any bytes).
 *
 * # Safety
 * `queue` is NULL or a live queue; `id` is NULL or points to `id_len` readable bytes;
 * `out_result` is NULL or writable.
 */
leaseq_status leaseq_queue_wait_result_bytes(const leaseq_queue *queue,
                                             const uint8_t *id,
                                             size_t id_len,
                                             int64_t timeout_ms,
                                             leaseq_result **out_result);

/**
 * As `leaseq_queue_get`, with the id as `id_len` bytes (any bytes).
 *
 * # Safety
 * `queue` is NULL or a live queue; `id` is NULL or points to `id_len` readable bytes;
 * `out_job` is NULL or writable.
 */
leaseq_status leaseq_queue_get_bytes(const leaseq_queue *queue,
                                     const uint8_t *id,
                                     size_t id_len,
                                     leaseq_job **out_job);

/**
 * Makes an item with a random id (a UUID v4) holding a copy of the `data_len` bytes at `data`
 * (any bytes, NUL included; `data` may be NULL when `data_len` is 0). Redis holds at most 512
 * MiB in a string: a larger item is refused when it is added (LEASEQ_INVALID_ARGUMENT naming
 * `data`, nothing written).
 *
 * On success `*out_item` is a new item owned by the caller: free it with `leaseq_item_free`
 * (adding it does not take it). On failure it is set to NULL.
 *
 * # Safety
 * `data` is NULL or points to `data_len` readable bytes; `out_item` is NULL or writable.
 */
leaseq_status leaseq_item_new(const uint8_t *data, size_t data_len, leaseq_item **out_item);

/**
 * Makes an item with the id `id` (UTF-8, NUL-terminated, 1 to 512 bytes, no control
 * characters) holding a copy of the `data_len` bytes at `data` (any bytes, at most 512 MiB as
 * for `leaseq_item_new`; `data` may be NULL when `data_len` is 0).
 *
 * On success `*out_item` is a new item owned by the caller: free it with `leaseq_item_free`.
 * On failure it is set to NULL; an invalid id gives `LEASEQ_INVALID_ARGUMENT`.
 *
 * # Safety
 * `id` is NULL or a NUL-terminated string; `data` is NULL or points to `data_len` readable
 * bytes; `out_item` is NULL or writable.
 */
leaseq_status leaseq_item_with_id(const char *id,
                                  const uint8_t *data,
                                  size_t data_len,
                                  leaseq_item **out_item);

/**
 * Sets `*out_id` to the item's id (NUL-terminated UTF-8).
 *
 * The string belongs to the item: valid until `leaseq_item_free`; do not free it.
 *
 * # Safety
 * `item` is NULL or a live item; `out_id` is NULL or writable.
 */
leaseq_status leaseq_item_id(const leaseq_item *item, const char **out_id);

/**
 * Frees an item. NULL is accepted and ignored. Strings obtained from the item become invalid.
 *
 * # Safety
 * `item` is NULL or a live item that no other call is using, freed only once.
 */
void leaseq_item_free(leaseq_item *item);

/**
 * The name of `state`: `"waiting"`, `"delayed"`, `"leased"`, `"dead"`, `"done"`, `"blocked"` (the names
 * every leaseq binding uses), `"none"` for `LEASEQ_STATE_NONE`, or `"unknown"`.
 *
 * Never NULL. The string is static: do not free it. Thread-safe.
 */
const char *leaseq_state_str(leaseq_state state);

/**
 * Sets `*out_data` and `*out_len` to the result's bytes (any bytes, NUL included).
 *
 * The buffer belongs to the result: valid until it is freed (with its job, for a borrowed
 * one); do not free it. Never NULL; one NUL byte follows the `*out_len` bytes (not counted).
 *
 * # Safety
 * `result` is NULL or a live result; `out_data` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_result_data(const leaseq_result *result,
                                 const uint8_t **out_data,
                                 size_t *out_len);

/**
 * Sets `*out_finished_at_ms` to when the item completed: milliseconds since the Unix epoch on
 * the server's clock.
 *
 * # Safety
 * `result` is NULL or a live result; `out_finished_at_ms` is NULL or writable.
 */
leaseq_status leaseq_result_finished_at_ms(const leaseq_result *result,
                                           int64_t *out_finished_at_ms);

/**
 * Sets `*out_attempts` to the attempt that completed the item (1 for the first lease).
 *
 * # Safety
 * `result` is NULL or a live result; `out_attempts` is NULL or writable.
 */
leaseq_status leaseq_result_attempts(const leaseq_result *result, uint64_t *out_attempts);

/**
 * Sets `*out_ms` to when the item was added (milliseconds since the Unix epoch, server clock),
 * or -1 when it is not known (an item added without options, or a result kept by an earlier
 * version).
 *
 * # Safety
 * `result` is NULL or a live result; `out_ms` is NULL or writable.
 */
leaseq_status leaseq_result_added_at_ms(const leaseq_result *result, int64_t *out_ms);

/**
 * Sets `*out_name` to the item's name (NUL-terminated UTF-8), or NULL when it had none.
 * Borrowed from the result.
 *
 * # Safety
 * `result` is NULL or a live result; `out_name` is NULL or writable.
 */
leaseq_status leaseq_result_name(const leaseq_result *result, const char **out_name);

/**
 * Frees a result from `leaseq_queue_result` or `leaseq_queue_wait_result`. NULL is accepted
 * and ignored. Never pass a result borrowed from a job (`leaseq_job_result`).
 *
 * # Safety
 * `result` is NULL or an owned result that no other call is using, freed only once.
 */
void leaseq_result_free(leaseq_result *result);

/**
 * Sets `*out_ids` to the ids the item was added to wait for (`LEASEQ_ADD_DEPENDS_ON`, in
 * order; NUL-terminated UTF-8) and `*out_len` to how many there are: (NULL, 0) for an item
 * added without dependencies. Borrowed from the job. `leaseq_queue_dependencies` also tells
 * which it still waits for.
 *
 * # Safety
 * `job` is NULL or a live job; `out_ids` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_job_depends_on(const leaseq_job *job,
                                    const char *const **out_ids,
                                    size_t *out_len);

/**
 * Sets `*out_policy` to what the item does when a dependency dies or is cancelled
 * (`LEASEQ_ON_DEPENDENCY_FAILURE_FAIL` or `_RUN`), or `LEASEQ_ON_DEPENDENCY_FAILURE_NONE`
 * for an item without dependencies.
 *
 * # Safety
 * `job` is NULL or a live job; `out_policy` is NULL or writable.
 */
leaseq_status leaseq_job_on_dependency_failure(const leaseq_job *job,
                                               leaseq_on_dependency_failure *out_policy);

/**
 * Sets `*out_id` to the item's id (NUL-terminated UTF-8). Borrowed from the job.
 *
 * # Safety
 * `job` is NULL or a live job; `out_id` is NULL or writable.
 */
leaseq_status leaseq_job_id(const leaseq_job *job, const char **out_id);

/**
 * Sets `*out_state` to where the item is: a `LEASEQ_STATE_*` value (never `LEASEQ_STATE_NONE`).
 *
 * # Safety
 * `job` is NULL or a live job; `out_state` is NULL or writable.
 */
leaseq_status leaseq_job_state(const leaseq_job *job, leaseq_state *out_state);

/**
 * Sets `*out_data` and `*out_len` to the item's data (empty for a done item). Borrowed from
 * the job; never NULL; one NUL byte follows the `*out_len` bytes (not counted).
 *
 * # Safety
 * `job` is NULL or a live job; `out_data` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_job_data(const leaseq_job *job, const uint8_t **out_data, size_t *out_len);

/**
 * Sets `*out_attempts` to how many times the item has been leased so far.
 *
 * # Safety
 * `job` is NULL or a live job; `out_attempts` is NULL or writable.
 */
leaseq_status leaseq_job_attempts(const leaseq_job *job, uint64_t *out_attempts);

/**
 * Sets `*out_max_attempts` to the item's own max attempts (0: no limit), or -1 when the item
 * has none of its own (the queue's configuration, else the default, applies).
 *
 * # Safety
 * `job` is NULL or a live job; `out_max_attempts` is NULL or writable.
 */
leaseq_status leaseq_job_max_attempts(const leaseq_job *job, int64_t *out_max_attempts);

/**
 * Sets `*out_partition` to the partition that holds the item, as its index (0 to count - 1,
 * as `leaseq_partitioned_partition` takes it), when the job was read from a partitioned
 * queue (`leaseq_partitioned_get`); -1 when it was read from a plain queue.
 *
 * # Safety
 * `job` is NULL or a live job; `out_partition` is NULL or writable.
 */
leaseq_status leaseq_job_partition(const leaseq_job *job, int32_t *out_partition);

/**
 * Sets `*out_priority` to the item's priority (-1000 to 1000; 0 by default).
 *
 * # Safety
 * `job` is NULL or a live job; `out_priority` is NULL or writable.
 */
leaseq_status leaseq_job_priority(const leaseq_job *job, int32_t *out_priority);

/**
 * Sets `*out_group` to the item's group (NUL-terminated UTF-8; `LEASEQ_ADD_GROUP`), or NULL
 * when it has none. Borrowed from the job.
 *
 * # Safety
 * `job` is NULL or a live job; `out_group` is NULL or writable.
 */
leaseq_status leaseq_job_group(const leaseq_job *job, const char **out_group);

/**
 * Sets `*out_name` to the item's name (NUL-terminated UTF-8; `LEASEQ_ADD_NAME`): what kind
 * of job it is; NULL when it has none. Borrowed from the job.
 *
 * # Safety
 * `job` is NULL or a live job; `out_name` is NULL or writable.
 */
leaseq_status leaseq_job_name(const leaseq_job *job, const char **out_name);

/**
 * Sets `*out_error` to the last failure's message (NUL-terminated UTF-8), or NULL when the
 * item has not failed. Borrowed from the job.
 *
 * # Safety
 * `job` is NULL or a live job; `out_error` is NULL or writable.
 */
leaseq_status leaseq_job_error(const leaseq_job *job, const char **out_error);

/**
 * Sets `*out_error_type` to the last failure's type (may be ""), or NULL when the item has
 * not failed. Borrowed from the job.
 *
 * # Safety
 * `job` is NULL or a live job; `out_error_type` is NULL or writable.
 */
leaseq_status leaseq_job_error_type(const leaseq_job *job, const char **out_error_type);

/**
 * Sets `*out_trace` to the last failure's trace (a traceback, a stack, an error chain; at most
 * 16 KiB; NUL-terminated UTF-8), or NULL when it gave none. Borrowed from the job.
 *
 * # Safety
 * `job` is NULL or a live job; `out_trace` is NULL or writable.
 */
leaseq_status leaseq_job_trace(const leaseq_job *job, const char **out_trace);

/**
 * Sets `*out_reason` to why the item is dead (e.g. "failed 3 times", "failed without retry",
 * "lease expired 3 times", "expired before it started"), or NULL.
 * Borrowed from the job.
 *
 * # Safety
 * `job` is NULL or a live job; `out_reason` is NULL or writable.
 */
leaseq_status leaseq_job_dead_reason(const leaseq_job *job, const char **out_reason);

/**
 * Sets `*out_data` and `*out_len` to the last progress value a holder stored
 * (`leaseq_queue_progress`), or NULL and 0 when there is none. Borrowed from the job; one NUL
 * byte follows the `*out_len` bytes (not counted).
 *
 * # Safety
 * `job` is NULL or a live job; `out_data` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_job_progress(const leaseq_job *job, const uint8_t **out_data, size_t *out_len);

/**
 * Sets `*out_result` to the kept result (for a done item, or one whose earlier incarnation
 * kept one), or NULL. The result is borrowed from the job: read it with the `leaseq_result_*`
 * functions, never free it; it is valid until `leaseq_job_free`.
 *
 * # Safety
 * `job` is NULL or a live job; `out_result` is NULL or writable.
 */
leaseq_status leaseq_job_result(const leaseq_job *job, const leaseq_result **out_result);

/**
 * Sets `*out_ms` to when the item was added (known for items added with options only), or -1.
 *
 * # Safety
 * `job` is NULL or a live job; `out_ms` is NULL or writable.
 */
leaseq_status leaseq_job_added_at_ms(const leaseq_job *job, int64_t *out_ms);

/**
 * Sets `*out_ms` to when a delayed item is due, or -1.
 *
 * # Safety
 * `job` is NULL or a live job; `out_ms` is NULL or writable.
 */
leaseq_status leaseq_job_due_at_ms(const leaseq_job *job, int64_t *out_ms);

/**
 * Sets `*out_ms` to when the last lease began, or -1.
 *
 * # Safety
 * `job` is NULL or a live job; `out_ms` is NULL or writable.
 */
leaseq_status leaseq_job_leased_at_ms(const leaseq_job *job, int64_t *out_ms);

/**
 * Sets `*out_ms` to when the current lease ends, or -1.
 *
 * # Safety
 * `job` is NULL or a live job; `out_ms` is NULL or writable.
 */
leaseq_status leaseq_job_lease_expires_at_ms(const leaseq_job *job, int64_t *out_ms);

/**
 * Sets `*out_ms` to when the item died or completed, or -1.
 *
 * # Safety
 * `job` is NULL or a live job; `out_ms` is NULL or writable.
 */
leaseq_status leaseq_job_finished_at_ms(const leaseq_job *job, int64_t *out_ms);

/**
 * Sets `*out_ttl_ms` to how long the current lease had left when the job was read, in
 * milliseconds, or -1 when the item is not leased.
 *
 * # Safety
 * `job` is NULL or a live job; `out_ttl_ms` is NULL or writable.
 */
leaseq_status leaseq_job_lease_ttl_ms(const leaseq_job *job, int64_t *out_ttl_ms);

/**
 * Sets `*out_cancelled` to whether the item was cancelled while leased (its holder's next
 * renew, complete, fail or release will say so and remove it).
 *
 * # Safety
 * `job` is NULL or a live job; `out_cancelled` is NULL or writable.
 */
leaseq_status leaseq_job_cancelled(const leaseq_job *job, bool *out_cancelled);

/**
 * Frees a job. NULL is accepted and ignored. Strings, buffers and the result read from it
 * become invalid.
 *
 * # Safety
 * `job` is NULL or a live job that no other call is using, freed only once.
 */
void leaseq_job_free(leaseq_job *job);

/**
 * Sets `*out_len` to the number of entries in the list.
 *
 * # Safety
 * `list` is NULL or a live list; `out_len` is NULL or writable.
 */
leaseq_status leaseq_entry_list_len(const leaseq_entry_list *list, size_t *out_len);

/**
 * Sets `*out_entry` to entry number `index` (from 0), borrowed from the list: valid until
 * `leaseq_entry_list_free`; never free it. An index out of range gives
 * `LEASEQ_INVALID_ARGUMENT` and sets `*out_entry` to NULL.
 *
 * # Safety
 * `list` is NULL or a live list; `out_entry` is NULL or writable.
 */
leaseq_status leaseq_entry_list_get(const leaseq_entry_list *list,
                                    size_t index,
                                    const leaseq_entry **out_entry);

/**
 * Frees a list and its entries. NULL is accepted and ignored.
 *
 * # Safety
 * `list` is NULL or a live list that no other call is using, freed only once.
 */
void leaseq_entry_list_free(leaseq_entry_list *list);

/**
 * Sets `*out_id` to the entry's id (NUL-terminated UTF-8), borrowed from its list.
 *
 * # Safety
 * `entry` is NULL or an entry of a live list; `out_id` is NULL or writable.
 */
leaseq_status leaseq_entry_id(const leaseq_entry *entry, const char **out_id);

/**
 * Sets `*out_ms` to the entry's time, in milliseconds since the Unix epoch: the due time of a
 * delayed item, the lease expiry of a leased one, the time of death of a dead one, the time a
 * done one finished; -1 for a waiting item.
 *
 * # Safety
 * `entry` is NULL or an entry of a live list; `out_ms` is NULL or writable.
 */
leaseq_status leaseq_entry_at_ms(const leaseq_entry *entry, int64_t *out_ms);

/**
 * Sets `*out_attempts` to how many times the item has been leased so far.
 *
 * # Safety
 * `entry` is NULL or an entry of a live list; `out_attempts` is NULL or writable.
 */
leaseq_status leaseq_entry_attempts(const leaseq_entry *entry, uint64_t *out_attempts);

/**
 * Sets `*out_name` to the item's name (NUL-terminated UTF-8), or NULL when it has none (a done
 * item's, as its kept result keeps it). Borrowed from the list.
 *
 * # Safety
 * `entry` is NULL or an entry of a live list; `out_name` is NULL or writable.
 */
leaseq_status leaseq_entry_name(const leaseq_entry *entry, const char **out_name);

/**
 * Sets `*out_partition` to the partition that holds the item, as its index (0 to count - 1,
 * as `leaseq_partitioned_partition` takes it), when the list came from a partitioned queue
 * (`leaseq_partitioned_list`, `leaseq_partitioned_find`); -1 from a plain queue.
 *
 * # Safety
 * `entry` is NULL or an entry of a live list; `out_partition` is NULL or writable.
 */
leaseq_status leaseq_entry_partition(const leaseq_entry *entry, int32_t *out_partition);

/**
 * Sets `*out_reason` to why a dead item died (NUL-terminated UTF-8: e.g. "lease expired 3
 * times", "dependency a is dead", which carry no error of their own), or NULL for an item in
 * another state. Borrowed from the list.
 *
 * # Safety
 * `entry` is NULL or an entry of a live list; `out_reason` is NULL or writable.
 */
leaseq_status leaseq_entry_reason(const leaseq_entry *entry, const char **out_reason);

/**
 * Sets `*out_error` to the last failure's message, or NULL when the item has not failed.
 * Borrowed from the list.
 *
 * # Safety
 * `entry` is NULL or an entry of a live list; `out_error` is NULL or writable.
 */
leaseq_status leaseq_entry_error(const leaseq_entry *entry, const char **out_error);

/**
 * Sets `*out_error_type` to the last failure's type (may be ""), or NULL when the item has
 * not failed. Borrowed from the list.
 *
 * # Safety
 * `entry` is NULL or an entry of a live list; `out_error_type` is NULL or writable.
 */
leaseq_status leaseq_entry_error_type(const leaseq_entry *entry, const char **out_error_type);

/**
 * Sets `*out_count` to how many items were in `state` (`LEASEQ_STATE_WAITING`, `_DELAYED`,
 * `_LEASED`, `_DEAD` or `_BLOCKED`; waiting counts ids in the waiting lists, stale ones included until a
 * lease or clean drops them). `LEASEQ_STATE_DONE` or another value gives
 * `LEASEQ_INVALID_ARGUMENT` naming `state`.
 *
 * # Safety
 * `stats` is NULL or a live stats handle; `out_count` is NULL or writable.
 */
leaseq_status leaseq_stats_count(const leaseq_stats *stats,
                                 leaseq_state state,
                                 uint64_t *out_count);

/**
 * Sets `*out_count` to how many recurring jobs the queue holds (`leaseq_queue_schedules`).
 *
 * # Safety
 * `stats` is NULL or a live stats handle; `out_count` is NULL or writable.
 */
leaseq_status leaseq_stats_schedules(const leaseq_stats *stats, uint64_t *out_count);

/**
 * Sets `*out_count` to how many ids were in `processing`: leased by redis-work-queue clients,
 * or left by them until a light clean.
 *
 * # Safety
 * `stats` is NULL or a live stats handle; `out_count` is NULL or writable.
 */
leaseq_status leaseq_stats_processing(const leaseq_stats *stats, uint64_t *out_count);

/**
 * Sets `*out_ms` to the age of the oldest waiting item in milliseconds, or -1 when unknown
 * (no item waits, or the oldest was added by a client that does not record the time).
 *
 * # Safety
 * `stats` is NULL or a live stats handle; `out_ms` is NULL or writable.
 */
leaseq_status leaseq_stats_oldest_waiting_ms(const leaseq_stats *stats, int64_t *out_ms);

/**
 * Sets `*out_ms` to the server's clock when the figures were read (milliseconds since the
 * Unix epoch).
 *
 * # Safety
 * `stats` is NULL or a live stats handle; `out_ms` is NULL or writable.
 */
leaseq_status leaseq_stats_now_ms(const leaseq_stats *stats, int64_t *out_ms);

/**
 * Sets `*out_paused` to whether the queue was paused (`leaseq_queue_pause`) when the figures
 * were read.
 *
 * # Safety
 * `stats` is NULL or a live stats handle; `out_paused` is NULL or writable.
 */
leaseq_status leaseq_stats_paused(const leaseq_stats *stats, bool *out_paused);

/**
 * Sets `*out_capacity` to the queue's capacity (`leaseq_config.capacity`: waiting and delayed
 * items at most), or 0 when it is unbounded (a capacity is at least 1).
 *
 * # Safety
 * `stats` is NULL or a live stats handle; `out_capacity` is NULL or writable.
 */
leaseq_status leaseq_stats_capacity(const leaseq_stats *stats, uint64_t *out_capacity);

/**
 * Sets `*out_ms` to how long leases of the queue were still held off when the figures were
 * read, while it was at its rate limit (`LEASEQ_CONFIG_RATE_LIMIT`) or held off
 * (`leaseq_queue_rate_limit`); -1 otherwise.
 *
 * # Safety
 * `stats` is NULL or a live stats handle; `out_ms` is NULL or writable.
 */
leaseq_status leaseq_stats_rate_limited_for_ms(const leaseq_stats *stats, int64_t *out_ms);

/**
 * Sets `*out_counting` to whether the queue kept per-minute counters when the figures were
 * read: true when its configuration turns them on (`LEASEQ_CONFIG_STATS`), false while they are
 * off (the default). While false, `leaseq_stats_minutes` gives 0 minutes and
 * `leaseq_stats_last_hour` all zeros: not counted, which is not the same as nothing happened.
 *
 * # Safety
 * `stats` is NULL or a live stats handle; `out_counting` is NULL or writable.
 */
leaseq_status leaseq_stats_counting(const leaseq_stats *stats, bool *out_counting);

/**
 * Sets `*out_minutes` and `*out_len` to the counters of the last 60 minutes, oldest first; the
 * last is the current minute, so far. While the queue's counters are off
 * (`leaseq_stats_counting` gives false) there are 0 minutes: `*out_minutes` is NULL and
 * `*out_len` 0. The array belongs to the stats handle: valid until `leaseq_stats_free`; do not
 * free it.
 *
 * # Safety
 * `stats` is NULL or a live stats handle; `out_minutes` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_stats_minutes(const leaseq_stats *stats,
                                   const leaseq_minute **out_minutes,
                                   size_t *out_len);

/**
 * Fills `*out_hour` with the per-minute counters summed over the last hour. While the queue's
 * counters are off it is all zeros: check `leaseq_stats_counting` before reading zeros as an
 * idle hour.
 *
 * # Safety
 * `stats` is NULL or a live stats handle; `out_hour` is NULL or writable.
 */
leaseq_status leaseq_stats_last_hour(const leaseq_stats *stats, leaseq_minute *out_hour);

/**
 * Frees a stats handle. NULL is accepted and ignored.
 *
 * # Safety
 * `stats` is NULL or a live stats handle that no other call is using, freed only once.
 */
void leaseq_stats_free(leaseq_stats *stats);

/**
 * Sets `*out_entries` and `*out_len` to the counts, one entry per name, by name (byte
 * order, from `leaseq_partitioned_counts_by_name` too). The array and its names belong to `counts`: valid until `leaseq_name_counts_free`;
 * do not free them. No name (nothing named finished in the last hour): `*out_entries` is NULL
 * and `*out_len` 0.
 *
 * # Safety
 * `counts` is NULL or a live handle; `out_entries` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_name_counts_entries(const leaseq_name_counts *counts,
                                         const leaseq_name_count **out_entries,
                                         size_t *out_len);

/**
 * Frees the counts by name and their names. NULL is accepted and ignored.
 *
 * # Safety
 * `counts` is NULL or a live handle that no other call is using, freed only once.
 */
void leaseq_name_counts_free(leaseq_name_counts *counts);

/**
 * Sets `*out_id` to the leased item's id (NUL-terminated UTF-8; a NUL byte inside an id, which
 * only a non-leaseq client could write, is shown as U+FFFD, and the lease still completes the
 * right item).
 *
 * The string belongs to the lease: valid until `leaseq_lease_free`; do not free it.
 *
 * # Safety
 * `lease` is NULL or a live lease; `out_id` is NULL or writable.
 */
leaseq_status leaseq_lease_id(const leaseq_lease *lease, const char **out_id);

/**
 * Sets `*out_name` to the leased item's name (NUL-terminated UTF-8; `LEASEQ_ADD_NAME`): what
 * kind of job it is, so that a worker picks the code to run; NULL when the item has none (and
 * for a lease rebuilt with `leaseq_queue_lease_from_parts`).
 *
 * The string belongs to the lease: valid until `leaseq_lease_free`; do not free it.
 *
 * # Safety
 * `lease` is NULL or a live lease; `out_name` is NULL or writable.
 */
leaseq_status leaseq_lease_name(const leaseq_lease *lease, const char **out_name);

/**
 * Sets `*out_data` and `*out_len` to the leased item's data: any bytes, NUL included.
 *
 * The buffer belongs to the lease: valid until `leaseq_lease_free`; do not free it. It is
 * never NULL, and one NUL byte follows its `*out_len` bytes (not counted), so text data can be
 * used as a C string as it is.
 *
 * # Safety
 * `lease` is NULL or a live lease; `out_data` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_lease_data(const leaseq_lease *lease,
                                const uint8_t **out_data,
                                size_t *out_len);

/**
 * Sets `*out_token` to the lease's token (NUL-terminated ASCII): random and unique to this
 * lease; renewing checks it. Keep it with the id, the incarnation and the attempt to rebuild
 * the lease elsewhere with `leaseq_queue_lease_from_parts`.
 *
 * The string belongs to the lease: valid until `leaseq_lease_free`; do not free it.
 *
 * # Safety
 * `lease` is NULL or a live lease; `out_token` is NULL or writable.
 */
leaseq_status leaseq_lease_token(const leaseq_lease *lease, const char **out_token);

/**
 * Sets `*out_count` to how many times the item has been leased, this lease included (1 on the
 * first lease). A count above 1 means an earlier attempt failed, or its holder let the lease
 * expire or crashed. Also `leaseq_lease_attempt`.
 *
 * # Safety
 * `lease` is NULL or a live lease; `out_count` is NULL or writable.
 */
leaseq_status leaseq_lease_count(const leaseq_lease *lease, uint64_t *out_count);

/**
 * Sets `*out_id` and `*out_len` to the leased item's id exactly as Redis holds it: the same as
 * `leaseq_lease_id` except for an id that is not UTF-8 or holds a NUL byte (which only another
 * kind of client can add), where these are its true bytes.
 *
 * The buffer belongs to the lease: valid until `leaseq_lease_free`; do not free it. It is
 * never NULL.
 *
 * # Safety
 * `lease` is NULL or a live lease; `out_id` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_lease_id_bytes(const leaseq_lease *lease,
                                    const uint8_t **out_id,
                                    size_t *out_len);

/**
 * Sets `*out_attempt` to the attempt number: how many times the item has been leased, this
 * lease included (1 on the first lease); the same as `leaseq_lease_count`. Above 1, an earlier
 * attempt failed or its holder let the lease expire.
 *
 * # Safety
 * `lease` is NULL or a live lease; `out_attempt` is NULL or writable.
 */
leaseq_status leaseq_lease_attempt(const leaseq_lease *lease, uint64_t *out_attempt);

/**
 * Sets `*out_incarnation` and `*out_len` to the item's incarnation: a value that changes each
 * time the id is added anew (after a complete, say). A lease of an older incarnation can no
 * longer complete, fail, release, renew or report progress on the item. Keep it with the id,
 * token and attempt to rebuild the lease elsewhere with `leaseq_queue_lease_from_parts`.
 *
 * The string belongs to the lease: valid until `leaseq_lease_free`; do not free it. It is
 * NUL-terminated text (the NUL not counted in `*out_len`), so it can be passed on as it is.
 *
 * # Safety
 * `lease` is NULL or a live lease; `out_incarnation` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_lease_incarnation(const leaseq_lease *lease,
                                       const char **out_incarnation,
                                       size_t *out_len);

/**
 * Sets `*out_max_attempts` to the attempts after which the item is dead instead of retried
 * (0: no limit), as the item or its queue's configuration said when it was leased. A lease
 * rebuilt with `leaseq_queue_lease_from_parts` reports the protocol's default.
 *
 * # Safety
 * `lease` is NULL or a live lease; `out_max_attempts` is NULL or writable.
 */
leaseq_status leaseq_lease_max_attempts(const leaseq_lease *lease, uint32_t *out_max_attempts);

/**
 * Fills `*out_backoff` with the item's backoff: how long it waits after a failed attempt
 * (`leaseq_queue_fail` with `LEASEQ_RETRY_DEFAULT` uses it). A lease rebuilt with
 * `leaseq_queue_lease_from_parts` reports the protocol's default.
 *
 * # Safety
 * `lease` is NULL or a live lease; `out_backoff` is NULL or writable.
 */
leaseq_status leaseq_lease_backoff(const leaseq_lease *lease, leaseq_backoff *out_backoff);

/**
 * Frees a lease handle. NULL is accepted and ignored. This only releases memory: the item
 * stays leased in Redis until completed or until its lease expires. Strings and data obtained
 * from the lease become invalid.
 *
 * # Safety
 * `lease` is NULL or a live lease that no other call is using, freed only once.
 */
void leaseq_lease_free(leaseq_lease *lease);

/**
 * Frees an array of leases from `leaseq_queue_lease_batch` or
 * `leaseq_queue_complete_and_lease_batch`: each lease in it (as
 * `leaseq_lease_free`; NULL elements are skipped, so a caller may keep a lease beyond the
 * array by taking it out and setting its element to NULL) and the array itself. `leases` NULL
 * is accepted and ignored. `len` must be the length the batch call gave.
 *
 * # Safety
 * `leases` is NULL or an array from a batch lease with its `len`, freed only once,
 * whose non-NULL elements are live leases no other call is using.
 */
void leaseq_lease_array_free(leaseq_lease **leases, size_t len);

/**
 * Opens the logical queue named by `base` (NUL-terminated UTF-8, a queue prefix): its
 * partitions as stored under `base:partitions`, or the plain queue at `base` as one partition
 * when there is no such key. Writes nothing. One round trip.
 *
 * On success `*out_partitioned` is a new handle owned by the caller: free it with
 * `leaseq_partitioned_free`. On failure it is set to NULL.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `client`, `base` or `out_partitioned`;
 * LEASEQ_INVALID_ARGUMENT naming `prefix` (an invalid base), `partitions` (a stored layout
 * this version cannot use) or `client` (a client of one server connected to a node of a
 * multi-primary Cluster, for more than one partition: connect with `leaseq_client_connect_cluster`);
 * LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED as any call.
 *
 * # Safety
 * `client` is NULL or a live client; `base` is NULL or a NUL-terminated string;
 * `out_partitioned` is NULL or writable.
 */
leaseq_status leaseq_partitioned_open(const leaseq_client *client,
                                      const char *base,
                                      leaseq_partitioned **out_partitioned);

/**
 * Creates (or opens) the logical queue `base` of `partitions` partitions (1 to 64): stores
 * its layout under `base:partitions`. More than one partition needs a `{hash tag}` in `base`,
 * which each partition's prefix extends to a slot of its own. Idempotent for the same count.
 * One partition writes nothing: it is the plain queue at `base`. At most three round trips.
 *
 * On success `*out_partitioned` is a new handle owned by the caller: free it with
 * `leaseq_partitioned_free`. On failure it is set to NULL, and nothing is written.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `client`, `base` or `out_partitioned`;
 * LEASEQ_INVALID_ARGUMENT naming `partitions` (0 or more than 64; `base` stored with another
 * count, or holding a plain queue or a drained one's kept results while `partitions` is above
 * 1), `prefix` (an invalid base, or one without a hash tag for more than one partition) or
 * `client` (a client of one server connected to a node of a multi-primary Cluster, for more
 * than one partition); LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED as any call.
 *
 * # Safety
 * `client` is NULL or a live client; `base` is NULL or a NUL-terminated string;
 * `out_partitioned` is NULL or writable.
 */
leaseq_status leaseq_partitioned_create(const leaseq_client *client,
                                        const char *base,
                                        size_t partitions,
                                        leaseq_partitioned **out_partitioned);

/**
 * Frees a partitioned queue handle. NULL is accepted and ignored. Leases and queues made from
 * it stay valid. No other thread may be inside a call on this handle.
 *
 * # Safety
 * `partitioned` is NULL or a live handle that no other call is using, freed only once.
 */
void leaseq_partitioned_free(leaseq_partitioned *partitioned);

/**
 * Sets `*out_base` to the base that names the logical queue. The string belongs to the
 * handle: valid until `leaseq_partitioned_free`; do not free it. Sends nothing.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_base`.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_base` is NULL or writable.
 */
leaseq_status leaseq_partitioned_base(const leaseq_partitioned *partitioned, const char **out_base);

/**
 * Sets `*out_partitions` to how many partitions the queue has (1 to 64). Sends nothing.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_partitions`.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_partitions` is NULL or writable.
 */
leaseq_status leaseq_partitioned_partitions(const leaseq_partitioned *partitioned,
                                            size_t *out_partitions);

/**
 * Sets `*out_prefix` to the prefix of partition `partition` (0 to the count less one): the
 * prefix of the full queue that holds that partition's items. The string belongs to the
 * handle: valid until `leaseq_partitioned_free`; do not free it. Sends nothing.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_prefix`;
 * LEASEQ_INVALID_ARGUMENT naming `partition` when it is out of range.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_prefix` is NULL or writable.
 */
leaseq_status leaseq_partitioned_prefix(const leaseq_partitioned *partitioned,
                                        size_t partition,
                                        const char **out_prefix);

/**
 * Sets `*out_queue` to partition `partition` as a queue, for what only a queue offers
 * (groups, cleaning, renewing a lease...). Sends nothing.
 *
 * `*out_queue` is a new queue owned by the caller: free it with `leaseq_queue_free`. On
 * failure it is set to NULL.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_queue`;
 * LEASEQ_INVALID_ARGUMENT naming `partition` when it is out of range.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_queue` is NULL or writable.
 */
leaseq_status leaseq_partitioned_partition(const leaseq_partitioned *partitioned,
                                           size_t partition,
                                           leaseq_queue **out_queue);

/**
 * Sets `*out_queue` to the partition that issued `lease`, as a queue: where to renew, release
 * or report progress on it (`leaseq_queue_renew`, `leaseq_queue_release`,
 * `leaseq_queue_progress`...), which this handle does not offer. Sends nothing.
 *
 * `*out_queue` is a new queue owned by the caller: free it with `leaseq_queue_free`. On
 * failure it is set to NULL.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `lease` or `out_queue`;
 * LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue.
 *
 * # Safety
 * `partitioned` and `lease` are NULL or live handles; `out_queue` is NULL or writable.
 */
leaseq_status leaseq_partitioned_queue_of(const leaseq_partitioned *partitioned,
                                          const leaseq_lease *lease,
                                          leaseq_queue **out_queue);

/**
 * Sets `*out_partition` to the partition `item` goes to with `options` (NULL: none): by its
 * group (`LEASEQ_ADD_GROUP`) when it has one, else by its first dependency's id
 * (`LEASEQ_ADD_DEPENDS_ON`), else by its id. Sends nothing, so for an item with dependencies it
 * answers as if each were in its id's partition; `leaseq_partitioned_add` looks them up.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `item` or `out_partition`;
 * LEASEQ_INVALID_ARGUMENT naming an option an add would refuse (`priority`, `group`...).
 *
 * # Safety
 * `partitioned` and `item` are NULL or live handles; `options` is NULL or points to a
 * `leaseq_add_options` of `struct_size` readable bytes; `out_partition` is NULL or writable.
 */
leaseq_status leaseq_partitioned_partition_of(const leaseq_partitioned *partitioned,
                                              const leaseq_item *item,
                                              const leaseq_add_options *options,
                                              size_t *out_partition);

/**
 * Adds `item` to its partition (`leaseq_partitioned_partition_of`) unless an item with its id
 * exists there, and sets `*out_added` to whether it was added. One round trip. The item is
 * only read: the caller still owns it.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `item` or `out_added`;
 * LEASEQ_FULL for a bounded partition with no room; LEASEQ_CONNECTION, LEASEQ_TIMEOUT,
 * LEASEQ_CLOSED as any call.
 *
 * # Safety
 * `partitioned` and `item` are NULL or live handles; `out_added` is NULL or writable.
 */
leaseq_status leaseq_partitioned_add(const leaseq_partitioned *partitioned,
                                     const leaseq_item *item,
                                     bool *out_added);

/**
 * `leaseq_partitioned_add` with options (`leaseq_add_options`; NULL: none), as
 * `leaseq_queue_add_with_options` takes them. A group routes the item (every item of a group
 * goes to one partition, so the group's order and limits hold); an item whose dependencies
 * route to another partition than its own is refused. Options are checked before anything is
 * sent. One round trip.
 *
 * Statuses: as `leaseq_partitioned_add`, and LEASEQ_INVALID_ARGUMENT naming a refused option
 * (`options.priority`...) or `depends_on` (dependencies in another partition), with nothing
 * written.
 *
 * # Safety
 * `partitioned` and `item` are NULL or live handles; `options` is NULL or points to a
 * `leaseq_add_options` of `struct_size` readable bytes; `out_added` is NULL or writable.
 */
leaseq_status leaseq_partitioned_add_with_options(const leaseq_partitioned *partitioned,
                                                  const leaseq_item *item,
                                                  const leaseq_add_options *options,
                                                  bool *out_added);

/**
 * `leaseq_partitioned_add_with_options` that waits for room when the item's partition is
 * bounded and full, as `leaseq_queue_add_with_timeout` does there: `timeout_ms` 0 gives
 * `LEASEQ_FULL` at once, a positive one waits up to that long, a negative one until there is
 * room. `options` may be NULL (none).
 *
 * # Safety
 * As `leaseq_partitioned_add_with_options`.
 */
leaseq_status leaseq_partitioned_add_with_timeout(const leaseq_partitioned *partitioned,
                                                  const leaseq_item *item,
                                                  const leaseq_add_options *options,
                                                  int64_t timeout_ms,
                                                  bool *out_added);

/**
 * Adds `item` to its partition, routed as `leaseq_partitioned_add` routes it, without checking
 * whether its id exists there, as `leaseq_queue_add_unique` adds to a queue: the caller
 * guarantees a fresh id (the random id of `leaseq_item_new` is). Adding an existing id
 * overwrites its data and queues it twice. One round trip (one more, to every partition at
 * once, for an item with dependencies). The item is only read: the caller still owns it.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `item`;
 * LEASEQ_INVALID_ARGUMENT naming the option an add refuses, or `depends_on` (dependencies in
 * two partitions, or in another than the item's group's); LEASEQ_FULL for a bounded partition
 * with no room; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED as any call.
 *
 * # Safety
 * `partitioned` and `item` are NULL or live handles.
 */
leaseq_status leaseq_partitioned_add_unique(const leaseq_partitioned *partitioned,
                                            const leaseq_item *item);

/**
 * Adds every item of the array `items` (`items_len` item pointers) whose id does not exist
 * yet in its partition, and sets `*out_added` to how many were added: one script call per
 * partition touched, sent at once (one round trip each, at the same time). Every item is
 * checked first; nothing is sent when one is refused. Each partition's part is atomic per
 * item; after an error, adding the same batch again adds only what is missing. `items` may be
 * NULL when `items_len` is 0. The items are only read.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `items`, `items[i]` or
 * `out_added`; LEASEQ_INVALID_ARGUMENT naming what was refused (`depends_on`...), with
 * nothing written; LEASEQ_FULL, LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `items` is NULL or points to `items_len` pointers,
 * each NULL or a live item; `out_added` is NULL or writable.
 */
leaseq_status leaseq_partitioned_add_batch(const leaseq_partitioned *partitioned,
                                           const leaseq_item *const *items,
                                           size_t items_len,
                                           size_t *out_added);

/**
 * `leaseq_partitioned_add_batch` with options per item: `options[i]` for `items[i]` (NULL:
 * that item has none; `options` itself NULL: no item has any), as
 * `leaseq_queue_add_batch_with_options` takes them. A refused option gives
 * LEASEQ_INVALID_ARGUMENT naming it, as `leaseq_queue_add_batch_with_options` does, and adds
 * nothing.
 *
 * Statuses: as `leaseq_partitioned_add_batch`.
 *
 * # Safety
 * As `leaseq_partitioned_add_batch`; `options` is NULL or points to `items_len` pointers,
 * each NULL or a `leaseq_add_options` of `struct_size` readable bytes.
 */
leaseq_status leaseq_partitioned_add_batch_with_options(const leaseq_partitioned *partitioned,
                                                        const leaseq_item *const *items,
                                                        const leaseq_add_options *const *options,
                                                        size_t items_len,
                                                        size_t *out_added);

/**
 * `leaseq_partitioned_add_batch_with_options` that waits for room, each partition's part as
 * `leaseq_queue_add_batch_with_timeout` does there (the parts wait at the same time).
 * `options` may be NULL (no item has any).
 *
 * # Safety
 * As `leaseq_partitioned_add_batch_with_options`.
 */
leaseq_status leaseq_partitioned_add_batch_with_timeout(const leaseq_partitioned *partitioned,
                                                        const leaseq_item *const *items,
                                                        const leaseq_add_options *const *options,
                                                        size_t items_len,
                                                        int64_t timeout_ms,
                                                        size_t *out_added);

/**
 * Adds `parent` and its children as `leaseq_queue_add_flow` does (same arguments), every
 * item of the flow to one partition: the one `parent` routes to by its group, else its id.
 * A dependency on an item outside the flow that is in another partition is refused
 * (`LEASEQ_INVALID_ARGUMENT`, `depends_on`), as is an item whose group lives in another
 * partition (`group`). One round trip; one more when items depend on items outside the flow.
 *
 * Statuses: as `leaseq_queue_add_flow`, with `partitioned` for `queue`.
 *
 * # Safety
 * `partitioned` and `parent` are NULL or live handles; the rest as for
 * `leaseq_queue_add_flow`.
 */
leaseq_status leaseq_partitioned_add_flow(const leaseq_partitioned *partitioned,
                                          const leaseq_item *parent,
                                          const leaseq_add_options *parent_options,
                                          const leaseq_flow_child *children,
                                          size_t children_len,
                                          size_t *out_added);

/**
 * Leases one item for `ttl_ms` (1 ms to 30 days) from any partition, asked in a rotating
 * order. When none has one: `timeout_ms` 0 returns at once, a positive one waits up to that
 * long, a negative one until an item comes, on every partition at once (in Redis, no
 * polling); then `*out_lease` is NULL (not an error). `leaseq_client_close` from another
 * thread ends a wait with LEASEQ_CLOSED.
 *
 * `*out_lease`, when not NULL, is a new lease owned by the caller: finish it with
 * `leaseq_partitioned_complete` or `_fail` (or in `leaseq_partitioned_queue_of`'s queue) and
 * free it with `leaseq_lease_free`.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_lease`;
 * LEASEQ_INVALID_ARGUMENT naming `ttl_ms`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_lease` is NULL or writable.
 */
leaseq_status leaseq_partitioned_lease(const leaseq_partitioned *partitioned,
                                       int64_t ttl_ms,
                                       int64_t timeout_ms,
                                       leaseq_lease **out_lease);

/**
 * `leaseq_partitioned_lease` with options (`leaseq_lease_options`; NULL: the core's
 * defaults, a 30 s TTL and no wait).
 *
 * Statuses: as `leaseq_partitioned_lease`, with LEASEQ_INVALID_ARGUMENT naming the refused
 * option (`options.ttl_ms`).
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `options` is NULL or points to a
 * `leaseq_lease_options` of `struct_size` readable bytes; `out_lease` is NULL or writable.
 */
leaseq_status leaseq_partitioned_lease_with_options(const leaseq_partitioned *partitioned,
                                                    const leaseq_lease_options *options,
                                                    leaseq_lease **out_lease);

/**
 * Leases up to `n` items (1 to 1000) from as many partitions as it takes, in a rotating
 * order (one no-wait lease per partition asked, stopping once it has `n`), with `options` as
 * for `leaseq_partitioned_lease_with_options`; with a wait and nothing found, waits on every
 * partition at once and returns as soon as at least one item is leased.
 *
 * On success `*out_leases` is an array of `*out_len` new leases owned by the caller, or NULL
 * with `*out_len` 0 when nothing was leased: free it with `leaseq_lease_array_free`.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `out_leases` or `out_len`;
 * LEASEQ_INVALID_ARGUMENT naming `n` or the refused option; LEASEQ_CONNECTION,
 * LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `options` is NULL or points to a
 * `leaseq_lease_options` of `struct_size` readable bytes; `out_leases` and `out_len` are NULL
 * or writable.
 */
leaseq_status leaseq_partitioned_lease_batch(const leaseq_partitioned *partitioned,
                                             size_t n,
                                             const leaseq_lease_options *options,
                                             leaseq_lease ***out_leases,
                                             size_t *out_len);

/**
 * Completes `lease` in the partition it came from, as `leaseq_queue_complete` does there, and
 * sets `*out_completed` as it does. One round trip. The lease stays the caller's.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `lease` or `out_completed`;
 * LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue; LEASEQ_CONNECTION,
 * LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` and `lease` are NULL or live handles; `out_completed` is NULL or writable.
 */
leaseq_status leaseq_partitioned_complete(const leaseq_partitioned *partitioned,
                                          const leaseq_lease *lease,
                                          bool *out_completed);

/**
 * Completes `lease` in the partition it came from and keeps `result` (`result_len` bytes;
 * NULL when `result_len` is 0), as `leaseq_queue_complete_with_result` does there:
 * `keep_result_for_ms` -1 for the default, otherwise above 0. `leaseq_partitioned_result`
 * finds it. One round trip.
 *
 * Statuses: as `leaseq_partitioned_complete`, and LEASEQ_INVALID_ARGUMENT naming
 * `keep_result_for_ms`, or `result` when it is too large.
 *
 * # Safety
 * `partitioned` and `lease` are NULL or live handles; `result` is NULL or points to
 * `result_len` readable bytes; `out_completed` is NULL or writable.
 */
leaseq_status leaseq_partitioned_complete_with_result(const leaseq_partitioned *partitioned,
                                                      const leaseq_lease *lease,
                                                      const uint8_t *result,
                                                      size_t result_len,
                                                      int64_t keep_result_for_ms,
                                                      bool *out_completed);

/**
 * Records a failed attempt of `lease` in the partition it came from, exactly as
 * `leaseq_queue_fail` does there (same arguments and out-parameters): retried after its
 * backoff, after `retry_after_ms`, or dead, by `retry`. One round trip.
 *
 * Statuses: as `leaseq_queue_fail`, with `partitioned` for `queue`, and
 * LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue.
 *
 * # Safety
 * `partitioned` and `lease` are NULL or live handles; `error` and `error_type` are NULL or
 * NUL-terminated strings; the out-parameters are NULL or writable.
 */
leaseq_status leaseq_partitioned_fail(const leaseq_partitioned *partitioned,
                                      const leaseq_lease *lease,
                                      const char *error,
                                      const char *error_type,
                                      leaseq_retry retry,
                                      int64_t retry_after_ms,
                                      leaseq_fail_outcome *out_outcome,
                                      leaseq_renew_outcome *out_not_held,
                                      int64_t *out_retry_in_ms);

/**
 * Like `leaseq_partitioned_fail`, keeping `trace` with the item as
 * `leaseq_queue_fail_with_trace` does (NULL or `""`: none). One round trip.
 *
 * # Safety
 * As for `leaseq_partitioned_fail`; `trace` is NULL or a NUL-terminated string.
 */
leaseq_status leaseq_partitioned_fail_with_trace(const leaseq_partitioned *partitioned,
                                                 const leaseq_lease *lease,
                                                 const char *error,
                                                 const char *error_type,
                                                 const char *trace,
                                                 leaseq_retry retry,
                                                 int64_t retry_after_ms,
                                                 leaseq_fail_outcome *out_outcome,
                                                 leaseq_renew_outcome *out_not_held,
                                                 int64_t *out_retry_in_ms);

/**
 * Sets `*out_job` to item `id` (NUL-terminated UTF-8) as `leaseq_queue_get` reads it, from
 * whichever partition holds it, or NULL when none does: the partition the id routes to first,
 * then the others at once (at most two round trips in sequence).
 *
 * `*out_job`, when not NULL, is a new job owned by the caller: free it with
 * `leaseq_job_free`.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_job`;
 * LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string; `out_job`
 * is NULL or writable.
 */
leaseq_status leaseq_partitioned_get(const leaseq_partitioned *partitioned,
                                     const char *id,
                                     leaseq_job **out_job);

/**
 * Cancels item `id` (NUL-terminated UTF-8) in whichever partition holds it, as
 * `leaseq_queue_cancel` does, looked up as `leaseq_partitioned_get` looks; sets
 * `*out_previous` to the state it was in, or `LEASEQ_STATE_NONE` when no partition had it.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_previous`;
 * LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
 * `out_previous` is NULL or writable.
 */
leaseq_status leaseq_partitioned_cancel(const leaseq_partitioned *partitioned,
                                        const char *id,
                                        leaseq_state *out_previous);

/**
 * Sets `*out_result` to the result kept for item `id` (NUL-terminated UTF-8), looked up as
 * `leaseq_partitioned_get` looks, or NULL when there is none.
 *
 * `*out_result`, when not NULL, is a new result owned by the caller: free it with
 * `leaseq_result_free`.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_result`;
 * LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_DEAD when the item died; LEASEQ_CONNECTION,
 * LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
 * `out_result` is NULL or writable.
 */
leaseq_status leaseq_partitioned_result(const leaseq_partitioned *partitioned,
                                        const char *id,
                                        leaseq_result **out_result);

/**
 * Waits for item `id`'s result as `leaseq_queue_wait_result` does (the same `timeout_ms`),
 * where the item is: looked up in every partition at once first, then waited for there (in
 * every partition when it is in none yet). Sets `*out_result` to it, or to NULL when the
 * timeout passes first (not an error). Blocks only the calling thread; `leaseq_client_close`
 * from another thread ends the wait with `LEASEQ_CLOSED`.
 *
 * `*out_result`, when not NULL, is a new result owned by the caller: free it with
 * `leaseq_result_free`.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_result`;
 * LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
 * `out_result` is NULL or writable.
 */
leaseq_status leaseq_partitioned_wait_result(const leaseq_partitioned *partitioned,
                                             const char *id,
                                             int64_t timeout_ms,
                                             leaseq_result **out_result);

/**
 * Sets `*out_stats` to the logical queue's figures and each partition's, read from every
 * partition at once (one round trip each, at the same time).
 *
 * `*out_stats` is a new handle owned by the caller: read it with
 * `leaseq_stats_by_partition_total` and `leaseq_stats_by_partition_get`, free it with
 * `leaseq_stats_by_partition_free`.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_stats`;
 * LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_stats` is NULL or writable.
 */
leaseq_status leaseq_partitioned_stats(const leaseq_partitioned *partitioned,
                                       leaseq_stats_by_partition **out_stats);

/**
 * Sets `*out_total` to the logical queue's figures, a `leaseq_stats` to read with the
 * `leaseq_stats_*` functions. It belongs to `stats`: valid until
 * `leaseq_stats_by_partition_free`; do not free it.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `stats` or `out_total`.
 *
 * # Safety
 * `stats` is NULL or a live handle; `out_total` is NULL or writable.
 */
leaseq_status leaseq_stats_by_partition_total(const leaseq_stats_by_partition *stats,
                                              const leaseq_stats **out_total);

/**
 * Sets `*out_len` to how many partitions `stats` holds figures for (the queue's
 * partition count).
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `stats` or `out_len`.
 *
 * # Safety
 * `stats` is NULL or a live handle; `out_len` is NULL or writable.
 */
leaseq_status leaseq_stats_by_partition_len(const leaseq_stats_by_partition *stats,
                                            size_t *out_len);

/**
 * Sets `*out_stats` to partition `partition`'s own figures, a `leaseq_stats` to read with the
 * `leaseq_stats_*` functions. It belongs to `stats`: valid until
 * `leaseq_stats_by_partition_free`; do not free it.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `stats` or `out_stats`;
 * LEASEQ_INVALID_ARGUMENT naming `partition` when it is out of range.
 *
 * # Safety
 * `stats` is NULL or a live handle; `out_stats` is NULL or writable.
 */
leaseq_status leaseq_stats_by_partition_get(const leaseq_stats_by_partition *stats,
                                            size_t partition,
                                            const leaseq_stats **out_stats);

/**
 * Frees a `leaseq_stats_by_partition` and every `leaseq_stats` it lent. NULL is accepted and
 * ignored.
 *
 * # Safety
 * `stats` is NULL or a live handle, freed only once.
 */
void leaseq_stats_by_partition_free(leaseq_stats_by_partition *stats);

/**
 * Sets `*out_count` to how many items are in `state`, summed over the partitions, as
 * `leaseq_queue_count` counts them in each (read from every partition at once).
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_count`;
 * LEASEQ_INVALID_ARGUMENT naming `state`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_count` is NULL or writable.
 */
leaseq_status leaseq_partitioned_count(const leaseq_partitioned *partitioned,
                                       leaseq_state state,
                                       uint64_t *out_count);

/**
 * Sets `*out_list` to up to `count` (1 to 1000) items in `state` from position `start` of the
 * logical queue, which lists partition 0's items (in `leaseq_queue_list`'s order), then
 * partition 1's, and so on: no order by time across partitions. Reads every partition's count
 * first (at once), then the pages it needs.
 *
 * `*out_list` is a new list owned by the caller (possibly empty): read it with
 * `leaseq_entry_list_len` and `leaseq_entry_list_get`, free it with `leaseq_entry_list_free`.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_list`;
 * LEASEQ_INVALID_ARGUMENT naming `state` or `count`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT,
 * LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_list` is NULL or writable.
 */
leaseq_status leaseq_partitioned_list(const leaseq_partitioned *partitioned,
                                      leaseq_state state,
                                      size_t start,
                                      size_t count,
                                      leaseq_entry_list **out_list);

/**
 * Sets `*out_list` to the entries of `state` whose name is `name` and whose last error's type
 * is `error_type` (NUL-terminated UTF-8; NULL: any), as `leaseq_queue_find` does, over the
 * logical queue's positions as `leaseq_partitioned_list` numbers them (partition 0's, then
 * partition 1's, and so on). One call looks in one partition, the one that holds position
 * `start`, at most at 1000 of its positions, keeping at most `count` (1 to 1000) matches;
 * `*out_next` is set to the `start` of the next call, which goes on in that partition, or at
 * the next partition's first position once this one's end is reached (-1 after the last);
 * `*out_examined` (when not NULL) to how many positions were looked at. Reads every
 * partition's count first (at once), then searches: two round trips.
 *
 * `*out_list` is a new list owned by the caller (possibly empty): read it as
 * `leaseq_queue_list`'s, free it with `leaseq_entry_list_free`.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `out_list` or `out_next`;
 * LEASEQ_INVALID_ARGUMENT naming `state`, `name`, `error_type` or `count`; LEASEQ_CONNECTION,
 * LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `name` and `error_type` are NULL or NUL-terminated
 * strings; `out_list` and `out_next` are NULL or writable; `out_examined` is NULL or writable.
 */
leaseq_status leaseq_partitioned_find(const leaseq_partitioned *partitioned,
                                      leaseq_state state,
                                      const char *name,
                                      const char *error_type,
                                      size_t start,
                                      size_t count,
                                      leaseq_entry_list **out_list,
                                      int64_t *out_next,
                                      size_t *out_examined);

/**
 * Requeues the `n` oldest dead items of the logical queue, by time of death over every
 * partition (attempts reset), or all of every partition's with `n` -1; sets `*out_requeued`
 * to how many were requeued.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_requeued`;
 * LEASEQ_INVALID_ARGUMENT naming `n`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_requeued` is NULL or writable.
 */
leaseq_status leaseq_partitioned_dead_requeue_oldest(const leaseq_partitioned *partitioned,
                                                     int64_t n,
                                                     uint64_t *out_requeued);

/**
 * Deletes the `n` oldest dead items of the logical queue, by time of death over every
 * partition, or all of every partition's with `n` -1; sets `*out_purged` to how many were
 * deleted.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_purged`;
 * LEASEQ_INVALID_ARGUMENT naming `n`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_purged` is NULL or writable.
 */
leaseq_status leaseq_partitioned_dead_purge(const leaseq_partitioned *partitioned,
                                            int64_t n,
                                            uint64_t *out_purged);

/**
 * Pauses every partition, as `leaseq_queue_pause` pauses a queue; sets `*out_was_running`
 * to whether any partition was running.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_was_running`;
 * LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_was_running` is NULL or writable.
 */
leaseq_status leaseq_partitioned_pause(const leaseq_partitioned *partitioned,
                                       bool *out_was_running);

/**
 * Resumes every partition; sets `*out_was_paused` to whether any partition was paused.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_was_paused`;
 * LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_was_paused` is NULL or writable.
 */
leaseq_status leaseq_partitioned_resume(const leaseq_partitioned *partitioned,
                                        bool *out_was_paused);

/**
 * Sets `*out_paused` to whether the logical queue is paused: whether every partition is, as
 * `leaseq_queue_is_paused` reads each (also `leaseq_stats_paused` of
 * `leaseq_stats_by_partition_total`). One round trip to every partition at once.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_paused`;
 * LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_paused` is NULL or writable.
 */
leaseq_status leaseq_partitioned_is_paused(const leaseq_partitioned *partitioned, bool *out_paused);

/**
 * Holds every partition's leases off for `duration_ms` (more than 0, at most one day, checked
 * before anything is sent), as `leaseq_queue_rate_limit` holds a queue's: a handler was rate
 * limited, and the limit is the logical queue's. A longer hold already in place in a partition
 * is kept there. Sets `*out_held_ms` to the longest hold now in place (also
 * `leaseq_stats_rate_limited_for_ms` of `leaseq_stats_by_partition_total`). One round trip to
 * every partition at once.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_held_ms`;
 * LEASEQ_INVALID_ARGUMENT naming `duration_ms` (below zero, 0 or above one day), with nothing
 * written; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_held_ms` is NULL or writable.
 */
leaseq_status leaseq_partitioned_rate_limit(const leaseq_partitioned *partitioned,
                                            int64_t duration_ms,
                                            int64_t *out_held_ms);

/**
 * Stores the fields of `config` named in its `set` bits in every partition, as
 * `leaseq_queue_set_config` does in a queue (a capacity or a rate limit then holds per
 * partition). Every field is checked first: a bad one gives LEASEQ_INVALID_ARGUMENT naming it
 * (`config.priority`) and nothing is written.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `config`;
 * LEASEQ_INVALID_ARGUMENT naming the refused field; LEASEQ_CONNECTION, LEASEQ_TIMEOUT,
 * LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `config` is NULL or points to a `leaseq_config` of
 * `struct_size` readable bytes.
 */
leaseq_status leaseq_partitioned_set_config(const leaseq_partitioned *partitioned,
                                            const leaseq_config *config);

/**
 * Removes every partition's stored configuration, as `leaseq_queue_reset_config` removes a
 * queue's: the protocol's defaults apply again. One round trip to every partition at once.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`; LEASEQ_CONNECTION,
 * LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle.
 */
leaseq_status leaseq_partitioned_reset_config(const leaseq_partitioned *partitioned);

/**
 * Completes many leases (at most 1000) of the logical queue, each in the partition that
 * issued it, as `leaseq_queue_complete_batch` takes and answers them: `out_completed[i]` is
 * whether `completions[i]` completed its item. One call per partition touched, sent at once;
 * not atomic across partitions (after an error some may have completed).
 *
 * Statuses: as `leaseq_queue_complete_batch`, with LEASEQ_NULL_ARGUMENT naming `partitioned`,
 * and LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue (nothing is sent)
 * or `completions` for more than 1000.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; the other arguments as for
 * `leaseq_queue_complete_batch`.
 */
leaseq_status leaseq_partitioned_complete_batch(const leaseq_partitioned *partitioned,
                                                const leaseq_completion *completions,
                                                size_t completions_len,
                                                bool *out_completed);

/**
 * Extends many leases (at most 1000) of the logical queue to `ttl_ms` from now, each in the
 * partition that issued it, as `leaseq_queue_renew_batch` takes and answers them. One call
 * per partition touched, sent at once.
 *
 * Statuses: as `leaseq_queue_renew_batch`, with LEASEQ_NULL_ARGUMENT naming `partitioned`,
 * and LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue (nothing is sent).
 *
 * # Safety
 * `partitioned` is NULL or a live handle; the other arguments as for
 * `leaseq_queue_renew_batch`.
 */
leaseq_status leaseq_partitioned_renew_batch(const leaseq_partitioned *partitioned,
                                             const leaseq_lease *const *leases,
                                             size_t leases_len,
                                             int64_t ttl_ms,
                                             leaseq_renew_outcome *out_outcomes);

/**
 * Records many failed attempts (at most 1000) of the logical queue, each in the partition
 * that issued its lease, as `leaseq_queue_fail_batch` takes and answers them. One call per
 * partition touched, sent at once; not atomic across partitions.
 *
 * Statuses: as `leaseq_queue_fail_batch`, with LEASEQ_NULL_ARGUMENT naming `partitioned`, and
 * LEASEQ_INVALID_ARGUMENT naming `lease` for a lease of another queue (nothing is sent).
 *
 * # Safety
 * `partitioned` is NULL or a live handle; the other arguments as for
 * `leaseq_queue_fail_batch`.
 */
leaseq_status leaseq_partitioned_fail_batch(const leaseq_partitioned *partitioned,
                                            const leaseq_failure *failures,
                                            size_t failures_len,
                                            leaseq_fail_outcome *out_outcomes,
                                            leaseq_renew_outcome *out_not_held,
                                            int64_t *out_retry_in_ms);

/**
 * Pauses group `group` (NUL-terminated UTF-8) in its partition, as `leaseq_queue_pause_group`
 * does: the rest of the logical queue goes on. Sets `*out_was_running` to whether it was
 * running. One round trip.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `group` is NULL or a NUL-terminated string;
 * `out_was_running` is NULL or writable.
 */
leaseq_status leaseq_partitioned_pause_group(const leaseq_partitioned *partitioned,
                                             const char *group,
                                             bool *out_was_running);

/**
 * Resumes group `group` in its partition. Sets `*out_was_paused` to whether it was paused.
 * One round trip.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `group` is NULL or a NUL-terminated string;
 * `out_was_paused` is NULL or writable.
 */
leaseq_status leaseq_partitioned_resume_group(const leaseq_partitioned *partitioned,
                                              const char *group,
                                              bool *out_was_paused);

/**
 * Sets group `group`'s limit in its partition, as `leaseq_queue_set_group_limit` does
 * (`limit` 1 to 1000, or -1 for the queue's `group_concurrency`). One round trip.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `group` is NULL or a NUL-terminated string.
 */
leaseq_status leaseq_partitioned_set_group_limit(const leaseq_partitioned *partitioned,
                                                 const char *group,
                                                 int64_t limit);

/**
 * Holds group `group`'s leases off for `duration_ms` in its partition, as
 * `leaseq_queue_rate_limit_group` does. Sets `*out_held_ms` to how long. One round trip.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `group` is NULL or a NUL-terminated string;
 * `out_held_ms` is NULL or writable.
 */
leaseq_status leaseq_partitioned_rate_limit_group(const leaseq_partitioned *partitioned,
                                                  const char *group,
                                                  int64_t duration_ms,
                                                  int64_t *out_held_ms);

/**
 * Fills `*out_info` with group `group` as its partition, which holds all of it, knows it (as
 * `leaseq_queue_group`). One round trip.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `group` is NULL or a NUL-terminated string;
 * `out_info` is NULL or writable.
 */
leaseq_status leaseq_partitioned_group(const leaseq_partitioned *partitioned,
                                       const char *group,
                                       leaseq_group_info *out_info);

/**
 * Makes the delayed item `id` (NUL-terminated UTF-8) wait now, as `leaseq_queue_promote` does,
 * in whichever partition holds it: the partition the id routes to first, then the others at
 * once (at most two round trips in sequence). Sets `*out_promoted` (when not NULL) to whether
 * a partition had it delayed.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `id`;
 * LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
 * `out_promoted` is NULL or writable.
 */
leaseq_status leaseq_partitioned_promote(const leaseq_partitioned *partitioned,
                                         const char *id,
                                         bool *out_promoted);

/**
 * What item `id` (NUL-terminated UTF-8) waits for and how many blocked items wait for it, as
 * `leaseq_queue_dependencies` reads them, from the partition that holds it (an item and its
 * dependencies share one): the partition the id routes to first, then the others at once (at
 * most two round trips in sequence). Empty lists when no partition knows of any.
 *
 * On success `*out_dependencies` is new, owned by the caller: free it with
 * `leaseq_dependencies_free`. On failure it is set to NULL.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_dependencies`;
 * LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
 * `out_dependencies` is NULL or writable.
 */
leaseq_status leaseq_partitioned_dependencies(const leaseq_partitioned *partitioned,
                                              const char *id,
                                              leaseq_dependencies **out_dependencies);

/**
 * The kept results of the items `id` (NUL-terminated UTF-8) was added to wait for, in order,
 * as `leaseq_queue_dependency_results` reads them, from the partition that holds it, looked up
 * as `leaseq_partitioned_dependencies` looks. Empty when no partition knows `id`'s
 * dependencies.
 *
 * On success `*out_results` is new, owned by the caller: free it with
 * `leaseq_dependency_results_free`. On failure it is set to NULL.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `id` or `out_results`;
 * LEASEQ_INVALID_ARGUMENT naming `id`; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `id` is NULL or a NUL-terminated string;
 * `out_results` is NULL or writable.
 */
leaseq_status leaseq_partitioned_dependency_results(const leaseq_partitioned *partitioned,
                                                    const char *id,
                                                    leaseq_dependency_results **out_results);

/**
 * Puts the dead items named in `ids` (an array of `ids_len` NUL-terminated UTF-8 ids, at most
 * 1000; `ids` may be NULL when `ids_len` is 0) back to waiting, with their attempts reset, as
 * `leaseq_queue_dead_requeue` does, each in the partition that holds it; ids that are dead in
 * no partition are skipped. Sets `*out_requeued` to how many were requeued. Each partition is
 * asked for the ids that route to it, all at once; the ids none of them requeued are then
 * asked of every other partition, at once (at most two round trips in sequence). A NULL
 * element gives `LEASEQ_NULL_ARGUMENT` naming it (`ids[i]`) and requeues nothing.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned`, `ids`, `ids[i]` or
 * `out_requeued`; LEASEQ_INVALID_ARGUMENT naming `id` (an empty or over-long id), `ids[i]`
 * (not UTF-8) or `ids` (more than 1000), with nothing requeued; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `ids` is NULL or points to `ids_len` pointers, each
 * NULL or a NUL-terminated string; `out_requeued` is NULL or writable.
 */
leaseq_status leaseq_partitioned_dead_requeue(const leaseq_partitioned *partitioned,
                                              const char *const *ids,
                                              size_t ids_len,
                                              uint64_t *out_requeued);

/**
 * Like `leaseq_partitioned_dead_requeue`, saying which ids were requeued, as
 * `leaseq_queue_dead_requeue_each` does: sets `out_requeued[i]` to whether `ids[i]` was
 * (false: a dead letter in no partition; an id given twice is false the second time).
 * `out_requeued` is the caller's array of `ids_len` bools (NULL only when `ids_len` is 0); on
 * failure every element is false. At most two round trips in sequence.
 *
 * Statuses: as `leaseq_partitioned_dead_requeue`.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `ids` is NULL or points to `ids_len` pointers, each
 * NULL or a NUL-terminated string; `out_requeued` is NULL or points to `ids_len` writable
 * bools.
 */
leaseq_status leaseq_partitioned_dead_requeue_each(const leaseq_partitioned *partitioned,
                                                   const char *const *ids,
                                                   size_t ids_len,
                                                   bool *out_requeued);

/**
 * Sets `*out_exists` to whether the logical queue exists: whether any partition does, as
 * `leaseq_queue_exists` reads each (any of its fixed keys). False for a partitioned queue
 * created and never used, whose layout under the base is all there is. One round trip to
 * every partition at once.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_exists`;
 * LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_exists` is NULL or writable.
 */
leaseq_status leaseq_partitioned_exists(const leaseq_partitioned *partitioned, bool *out_exists);

/**
 * Sets `*out_len` to how many items wait in the logical queue, at every priority: each
 * partition's `leaseq_queue_len`, summed. One round trip to every partition at once.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_len`;
 * LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_len` is NULL or writable.
 */
leaseq_status leaseq_partitioned_queue_len(const leaseq_partitioned *partitioned,
                                           uint64_t *out_len);

/**
 * Sets `*out_len` to how many items of the logical queue are being processed: each
 * partition's `leaseq_queue_processing_len` (leased by leaseq, plus the ids in
 * redis-work-queue's processing list), summed. One round trip to every partition at once.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_len`;
 * LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_len` is NULL or writable.
 */
leaseq_status leaseq_partitioned_processing_len(const leaseq_partitioned *partitioned,
                                                uint64_t *out_len);

/**
 * Sets `*out_counts` to what each kind of job did in the last hour over the logical queue:
 * each partition's `leaseq_queue_counts_by_name`, summed by name, sorted by name as a queue's
 * are (at most 1000); or to NULL while no partition counts (`LEASEQ_CONFIG_STATS` off). One round trip to
 * every partition at once.
 *
 * `*out_counts`, when not NULL, is a new handle owned by the caller (possibly with no entry):
 * read it with `leaseq_name_counts_entries` and free it with `leaseq_name_counts_free`.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_counts`;
 * LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_counts` is NULL or writable.
 */
leaseq_status leaseq_partitioned_counts_by_name(const leaseq_partitioned *partitioned,
                                                leaseq_name_counts **out_counts);

/**
 * Reads the logical queue's stored configuration into `*out_config`, as `leaseq_queue_config`
 * reads a queue's: partition 0's, which `leaseq_partitioned_set_config` writes to every
 * partition alike (read a partition's own through `leaseq_partitioned_partition` when one was
 * set alone). The caller sets `struct_size` first (`leaseq_config out = LEASEQ_CONFIG_INIT;`):
 * only the fields that fit in it are written. `set` names the fields that are stored; the
 * others are 0, and the protocol's defaults apply to them. One round trip.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_config`;
 * LEASEQ_INVALID_ARGUMENT naming `out_config.struct_size` (too small), before anything is
 * sent; LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_config` is NULL or points to a `leaseq_config`
 * of `struct_size` writable bytes with `struct_size` set.
 */
leaseq_status leaseq_partitioned_config(const leaseq_partitioned *partitioned,
                                        leaseq_config *out_config);

/**
 * A light clean of every partition, as `leaseq_queue_light_clean` cleans a queue, all at
 * once; fills `*out_report` with the reports summed. Leases do the clean's main work
 * themselves, so a logical queue with workers needs no cleaner; run it where nobody leases.
 * One round trip to every partition at once (each clean runs server-side in batches).
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_report`;
 * LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED.
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_report` is NULL or writable.
 */
leaseq_status leaseq_partitioned_light_clean(const leaseq_partitioned *partitioned,
                                             leaseq_clean_report *out_report);

/**
 * A deep clean of every partition, as `leaseq_queue_deep_clean` cleans a queue, one partition
 * after another (each walks the keys of its partition's server with SCAN: run it rarely);
 * fills `*out_report` with the reports summed.
 *
 * Statuses: LEASEQ_OK; LEASEQ_NULL_ARGUMENT naming `partitioned` or `out_report`;
 * LEASEQ_CONNECTION, LEASEQ_TIMEOUT, LEASEQ_CLOSED (the partitions cleaned before the error
 * stay cleaned).
 *
 * # Safety
 * `partitioned` is NULL or a live handle; `out_report` is NULL or writable.
 */
leaseq_status leaseq_partitioned_deep_clean(const leaseq_partitioned *partitioned,
                                            leaseq_clean_report *out_report);

/**
 * The name of a renew outcome: `"renewed"`, `"expired"`, `"taken"`, `"completed"`,
 * `"cancelled"`, `"older_incarnation"` (the names every leaseq binding uses), or `"unknown"`.
 *
 * Never NULL. The string is static: do not free it. Thread-safe.
 */
const char *leaseq_renew_outcome_str(leaseq_renew_outcome outcome);

/**
 * Sets `*out_prefix` to the queue's prefix.
 *
 * The string belongs to the queue: valid until `leaseq_queue_free`; do not free it.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_prefix` is NULL or writable.
 */
leaseq_status leaseq_queue_prefix(const leaseq_queue *queue, const char **out_prefix);

/**
 * Adds `item` unless an item with its id exists (waiting, delayed, leased or dead), and sets
 * `*out_added` to whether it was added. Storing the data and queueing the id happen in one
 * script, so no crash leaves one without the other. One round trip. The item is only read: the
 * caller still owns it. `leaseq_queue_add_with_options` adds with a delay, a priority...
 *
 * # Safety
 * `queue` and `item` are NULL or live handles; `out_added` is NULL or writable.
 */
leaseq_status leaseq_queue_add(const leaseq_queue *queue, const leaseq_item *item, bool *out_added);

/**
 * Adds `item` without checking whether its id exists: the caller guarantees a fresh id (the
 * random id of `leaseq_item_new` is). Adding an existing id overwrites its data and queues it
 * twice. One round trip. The item is only read: the caller still owns it.
 *
 * # Safety
 * `queue` and `item` are NULL or live handles.
 */
leaseq_status leaseq_queue_add_unique(const leaseq_queue *queue, const leaseq_item *item);

/**
 * Adds every item of the array `items` (`items_len` item pointers) whose id does not exist
 * yet, as `leaseq_queue_add` would, and sets `*out_added` to how many were added. One round
 * trip for the whole batch; each item is added atomically. `items` may be NULL when
 * `items_len` is 0 (nothing is sent). A NULL element gives `LEASEQ_NULL_ARGUMENT` naming it
 * (`items[i]`) and adds nothing. The items are only read: the caller still owns them.
 *
 * # Safety
 * `queue` is NULL or a live queue; `items` is NULL or points to `items_len` pointers, each
 * NULL or a live item; `out_added` is NULL or writable.
 */
leaseq_status leaseq_queue_add_batch(const leaseq_queue *queue,
                                     const leaseq_item *const *items,
                                     size_t items_len,
                                     size_t *out_added);

/**
 * `leaseq_queue_add` with options: a delay or a due time, a priority, max attempts, a
 * backoff, an expiry, how long to keep its result (`leaseq_add_options`; NULL: none). Options
 * are checked before anything is sent: a bad one gives `LEASEQ_INVALID_ARGUMENT` naming it
 * (e.g. `options.priority`) and writes nothing. The item and options are only read.
 *
 * # Safety
 * `queue` and `item` are NULL or live handles; `options` is NULL or points to a
 * `leaseq_add_options` of `struct_size` readable bytes; `out_added` is NULL or writable.
 */
leaseq_status leaseq_queue_add_with_options(const leaseq_queue *queue,
                                            const leaseq_item *item,
                                            const leaseq_add_options *options,
                                            bool *out_added);

/**
 * `leaseq_queue_add_unique` with options (`leaseq_add_options`; NULL: none), checked as
 * `leaseq_queue_add_with_options` checks them.
 *
 * # Safety
 * `queue` and `item` are NULL or live handles; `options` is NULL or points to a
 * `leaseq_add_options` of `struct_size` readable bytes.
 */
leaseq_status leaseq_queue_add_unique_with_options(const leaseq_queue *queue,
                                                   const leaseq_item *item,
                                                   const leaseq_add_options *options);

/**
 * `leaseq_queue_add_batch` with options per item: `options` is an array of `items_len`
 * pointers, `options[i]` for `items[i]` (NULL: that item has none; `options` itself NULL: no
 * item has any). A refused option gives `LEASEQ_INVALID_ARGUMENT` naming it and adds
 * nothing: a field out of its C range with its index (`options[2].expires_after_ms`), a value
 * out of the queue's bounds with its item's id (`items`: "item `b`: priority ..."). Still one
 * round trip for the whole batch.
 *
 * # Safety
 * `queue` is NULL or a live queue; `items` is NULL or points to `items_len` pointers, each
 * NULL or a live item; `options` is NULL or points to `items_len` pointers, each NULL or a
 * `leaseq_add_options` of `struct_size` readable bytes; `out_added` is NULL or writable.
 */
leaseq_status leaseq_queue_add_batch_with_options(const leaseq_queue *queue,
                                                  const leaseq_item *const *items,
                                                  const leaseq_add_options *const *options,
                                                  size_t items_len,
                                                  size_t *out_added);

/**
 * `leaseq_queue_add_with_options` that waits for room in a bounded queue
 * (`leaseq_config.capacity`): when the queue is full, `timeout_ms` 0 gives `LEASEQ_FULL` at
 * once (as `leaseq_queue_add` does), a positive `timeout_ms` waits up to that long for room, a
 * negative one until there is room; then `LEASEQ_FULL`, with nothing added. The wait happens
 * in Redis (a lease that makes room wakes it) and blocks only the calling thread;
 * `leaseq_client_close` from another thread ends it with `LEASEQ_CLOSED`. `options` may be
 * NULL (none). An unbounded queue never waits.
 *
 * # Safety
 * `queue` and `item` are NULL or live handles; `options` is NULL or points to a
 * `leaseq_add_options` of `struct_size` readable bytes; `out_added` is NULL or writable.
 */
leaseq_status leaseq_queue_add_with_timeout(const leaseq_queue *queue,
                                            const leaseq_item *item,
                                            const leaseq_add_options *options,
                                            int64_t timeout_ms,
                                            bool *out_added);

/**
 * `leaseq_queue_add_batch_with_options` that waits for room for the whole batch, as
 * `leaseq_queue_add_with_timeout` does: a bounded queue takes a batch whole or not at all.
 * `options` may be NULL (no item has any).
 *
 * # Safety
 * As `leaseq_queue_add_batch_with_options`.
 */
leaseq_status leaseq_queue_add_batch_with_timeout(const leaseq_queue *queue,
                                                  const leaseq_item *const *items,
                                                  const leaseq_add_options *const *options,
                                                  size_t items_len,
                                                  int64_t timeout_ms,
                                                  size_t *out_added);

/**
 * Pauses the queue: nothing is leased from it (by any client, in any language) until
 * `leaseq_queue_resume`; adds, completes and renews go on, and what is leased runs to its end.
 * The pause is stored in Redis. Sets `*out_was_running` to whether the queue was running. One
 * round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_was_running` is NULL or writable.
 */
leaseq_status leaseq_queue_pause(const leaseq_queue *queue, bool *out_was_running);

/**
 * Resumes a paused queue: waiting leases and runners wake at once. Sets `*out_was_paused` to
 * whether the queue was paused. One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_was_paused` is NULL or writable.
 */
leaseq_status leaseq_queue_resume(const leaseq_queue *queue, bool *out_was_paused);

/**
 * Sets `*out_paused` to whether the queue is paused (also `leaseq_stats_paused`). One round
 * trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_paused` is NULL or writable.
 */
leaseq_status leaseq_queue_is_paused(const leaseq_queue *queue, bool *out_paused);

/**
 * Sets `*out_exists` to whether the queue exists: whether any of its fixed keys does (its
 * items' lists, configuration, pause, groups, runners; spec/PROTOCOL.md 5.12). False for a
 * mistyped prefix, where `leaseq_queue_count` and `leaseq_queue_stats` read zeros as for an
 * empty queue. One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_exists` is NULL or writable.
 */
leaseq_status leaseq_queue_exists(const leaseq_queue *queue, bool *out_exists);

/**
 * Pauses one group (`LEASEQ_ADD_GROUP`; `group` NUL-terminated UTF-8): its items are not
 * leased, by any client, until `leaseq_queue_resume_group`; the rest of the queue goes on.
 * Sets `*out_was_running` to whether it was running. One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `group` is NULL or a NUL-terminated string;
 * `out_was_running` is NULL or writable.
 */
leaseq_status leaseq_queue_pause_group(const leaseq_queue *queue,
                                       const char *group,
                                       bool *out_was_running);

/**
 * Resumes a paused group. Sets `*out_was_paused` to whether it was paused. One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `group` is NULL or a NUL-terminated string;
 * `out_was_paused` is NULL or writable.
 */
leaseq_status leaseq_queue_resume_group(const leaseq_queue *queue,
                                        const char *group,
                                        bool *out_was_paused);

/**
 * Sets how many items of `group` may be leased at once, for every client: `limit` 1 to 1000,
 * or -1 to remove the group's own limit, so that the queue's `group_concurrency` applies
 * (default 1). One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `group` is NULL or a NUL-terminated string.
 */
leaseq_status leaseq_queue_set_group_limit(const leaseq_queue *queue,
                                           const char *group,
                                           int64_t limit);

/**
 * Fills `*out_info` with one group at a glance: its waiting and leased items, its limit,
 * whether it is paused, and how long it waits for its rate limit's window. One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `group` is NULL or a NUL-terminated string; `out_info` is
 * NULL or writable.
 */
leaseq_status leaseq_queue_group(const leaseq_queue *queue,
                                 const char *group,
                                 leaseq_group_info *out_info);

/**
 * Holds every client's leases of the queue off for `duration_ms` (more than 0, at most one
 * day): a handler was rate limited (an API answered 429). Leases get nothing until then; adds,
 * completes and renews go on. A longer hold already in place is kept. Sets `*out_held_ms` to
 * how long leases are held off (also `leaseq_stats_rate_limited_for_ms`). One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_held_ms` is NULL or writable.
 */
leaseq_status leaseq_queue_rate_limit(const leaseq_queue *queue,
                                      int64_t duration_ms,
                                      int64_t *out_held_ms);

/**
 * Holds one group's leases off for `duration_ms` (more than 0, at most one day; `group`
 * NUL-terminated UTF-8): a handler working for that group (a customer, a tenant) was rate
 * limited by an API that limits per key. The queue's other groups and ungrouped items go on;
 * the group's items wait, in their order, until the hold ends. A longer hold already in place
 * is kept. Sets `*out_held_ms` to how long the group is held off (also
 * `leaseq_group_info.rate_limited_for_ms`). One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `group` is NULL or a NUL-terminated string; `out_held_ms`
 * is NULL or writable.
 */
leaseq_status leaseq_queue_rate_limit_group(const leaseq_queue *queue,
                                            const char *group,
                                            int64_t duration_ms,
                                            int64_t *out_held_ms);

/**
 * Leases the next item for `ttl_ms` milliseconds (1 ms to 30 days; 0 or negative gives
 * `LEASEQ_INVALID_ARGUMENT`).
 *
 * When the queue is empty: `timeout_ms` 0 returns at once; a positive `timeout_ms` waits up to
 * that long; a negative one waits until an item arrives. Waiting happens in Redis (no polling)
 * and blocks only the calling thread. If nothing arrives, the call succeeds with
 * `*out_lease` NULL (this is not `LEASEQ_TIMEOUT`, which means Redis did not answer).
 *
 * Interrupting a wait: `leaseq_client_close` (or `leaseq_client_free`) on the client this
 * queue came from, called from another thread, ends the wait at once with `LEASEQ_CLOSED`.
 * A wait survives Redis restarts: it reconnects and goes on.
 *
 * On success with an item, `*out_lease` is a new lease owned by the caller: free it with
 * `leaseq_lease_free` (after completing it). On failure it is set to NULL.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_lease` is NULL or writable.
 */
leaseq_status leaseq_queue_lease(const leaseq_queue *queue,
                                 int64_t ttl_ms,
                                 int64_t timeout_ms,
                                 leaseq_lease **out_lease);

/**
 * `leaseq_queue_lease` with options (`leaseq_lease_options`; NULL: all defaults): the TTL
 * defaults to the core's 30 s, and without a timeout the call does not wait. Leases go to the
 * highest priority first, FIFO within a priority; the lease also moves due delayed items to
 * waiting and recovers expired leases.
 *
 * On success with an item, `*out_lease` is a new lease owned by the caller: free it with
 * `leaseq_lease_free`. With no item (or on failure) it is NULL. Waiting and interrupting it
 * are as for `leaseq_queue_lease`.
 *
 * # Safety
 * `queue` is NULL or a live queue; `options` is NULL or points to a `leaseq_lease_options` of
 * `struct_size` readable bytes; `out_lease` is NULL or writable.
 */
leaseq_status leaseq_queue_lease_with_options(const leaseq_queue *queue,
                                              const leaseq_lease_options *options,
                                              leaseq_lease **out_lease);

/**
 * Leases up to `n` items (1 to 1000) in one round trip, in the order `leaseq_queue_lease`
 * would, with `options` as for `leaseq_queue_lease_with_options` (NULL: defaults). Waits as a
 * single lease does while none is there, and returns as soon as at least one is leased.
 *
 * On success `*out_leases` is an array of `*out_len` new leases owned by the caller, or NULL
 * with `*out_len` 0 when nothing was leased. Free the array and its leases with
 * `leaseq_lease_array_free(*out_leases, *out_len)`; to keep one lease longer, take it out and
 * set its element to NULL first (then free it with `leaseq_lease_free`).
 *
 * # Safety
 * `queue` is NULL or a live queue; `options` is NULL or points to a `leaseq_lease_options` of
 * `struct_size` readable bytes; `out_leases` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_queue_lease_batch(const leaseq_queue *queue,
                                       size_t n,
                                       const leaseq_lease_options *options,
                                       leaseq_lease ***out_leases,
                                       size_t *out_len);

/**
 * Completes the leased item: removes its data, its lease and its record. Sets `*out_completed`
 * to true for exactly one caller per incarnation of the item: the first to complete, even if
 * its lease had expired and another worker holds the item now; false (not an error) when the
 * item was completed already, cancelled, failed or released since, or added again after a
 * complete (`leaseq_queue_renew_outcome` says which). One round trip. The lease handle stays
 * the caller's: free it afterwards. `leaseq_queue_complete_with_result` keeps a result.
 *
 * # Safety
 * `queue` and `lease` are NULL or live handles; `out_completed` is NULL or writable.
 */
leaseq_status leaseq_queue_complete(const leaseq_queue *queue,
                                    const leaseq_lease *lease,
                                    bool *out_completed);

/**
 * Completes `lease` and leases the next item for `ttl_ms` in the same round trip. The next
 * lease never waits: `*out_next` is NULL when the queue is empty. `*out_completed` is as for
 * `leaseq_queue_complete`.
 *
 * `*out_next`, when not NULL, is a new lease owned by the caller: free it with
 * `leaseq_lease_free`. `lease` stays the caller's too. On failure `*out_completed` is false
 * and `*out_next` NULL: a refused argument completed nothing, but after a connection or Redis
 * error the item may have been completed all the same.
 *
 * # Safety
 * `queue` and `lease` are NULL or live handles; `out_completed` and `out_next` are NULL or
 * writable.
 */
leaseq_status leaseq_queue_complete_and_lease(const leaseq_queue *queue,
                                              const leaseq_lease *lease,
                                              int64_t ttl_ms,
                                              bool *out_completed,
                                              leaseq_lease **out_next);

/**
 * As `leaseq_queue_complete_and_lease`, and keeps `result` (`result_len` bytes; `result` may
 * be NULL when `result_len` is 0) as `leaseq_queue_complete_with_result` does:
 * `keep_result_for_ms` -1 for the default (the item's own, else the queue's configuration,
 * else one day), otherwise greater than zero. Still one round trip.
 *
 * # Safety
 * `queue` and `lease` are NULL or live handles; `result` is NULL or points to `result_len`
 * readable bytes; `out_completed` and `out_next` are NULL or writable.
 */
leaseq_status leaseq_queue_complete_and_lease_with_result(const leaseq_queue *queue,
                                                          const leaseq_lease *lease,
                                                          const uint8_t *result,
                                                          size_t result_len,
                                                          int64_t keep_result_for_ms,
                                                          int64_t ttl_ms,
                                                          bool *out_completed,
                                                          leaseq_lease **out_next);

/**
 * Extends the lease to `ttl_ms` from now (1 ms to 30 days), only while it is still this
 * holder's. Sets `*out_renewed` to false when the lease expired, another worker took the item,
 * or the item is complete, cancelled or of a newer incarnation (`leaseq_queue_renew_outcome`
 * says which). One round trip.
 *
 * # Safety
 * `queue` and `lease` are NULL or live handles; `out_renewed` is NULL or writable.
 */
leaseq_status leaseq_queue_renew(const leaseq_queue *queue,
                                 const leaseq_lease *lease,
                                 int64_t ttl_ms,
                                 bool *out_renewed);

/**
 * Like `leaseq_queue_renew`, and sets `*out_outcome` to one of the `LEASEQ_RENEW_*` values
 * saying what it found.
 *
 * # Safety
 * `queue` and `lease` are NULL or live handles; `out_outcome` is NULL or writable.
 */
leaseq_status leaseq_queue_renew_outcome(const leaseq_queue *queue,
                                         const leaseq_lease *lease,
                                         int64_t ttl_ms,
                                         leaseq_renew_outcome *out_outcome);

/**
 * Light clean: moves due delayed items to waiting, recovers expired leases (back to waiting, or
 * dead when out of attempts), trims dead letters to the queue's bounds, sorts the ids
 * redis-work-queue clients left in processing (requeues those whose lease is gone, drops those
 * whose item is complete), and drops stale ids at the head of the waiting lists; fills
 * `*out_report` with the counts. Runs server-side in batches. Leases do the first two
 * themselves, so a queue with workers needs no cleaner; run it where nobody leases.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_report` is NULL or writable.
 */
leaseq_status leaseq_queue_light_clean(const leaseq_queue *queue, leaseq_clean_report *out_report);

/**
 * Deep clean: everything the light clean does, and finds items on no list at all and lease
 * counts of items completed by redis-work-queue clients; fills `*out_report` with the counts.
 * Walks every key of the queue (with SCAN, never KEYS): run it rarely (at start-up, hourly).
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_report` is NULL or writable.
 */
leaseq_status leaseq_queue_deep_clean(const leaseq_queue *queue, leaseq_clean_report *out_report);

/**
 * Sets `*out_len` to how many items wait, at every priority: the same as `leaseq_queue_count`
 * with `LEASEQ_STATE_WAITING` (stale ids of completed items included until a lease or a clean
 * drops them). Not redis-work-queue's length of its list, which misses every priority but 0.
 * One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_len` is NULL or writable.
 */
leaseq_status leaseq_queue_len(const leaseq_queue *queue, uint64_t *out_len);

/**
 * Sets `*out_len` to how many items are being processed: leased by leaseq, plus the ids in
 * redis-work-queue's processing list (its clients' leases, or left by them until a light
 * clean). `leaseq_queue_count` with `LEASEQ_STATE_LEASED` counts leaseq's part. One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_len` is NULL or writable.
 */
leaseq_status leaseq_queue_processing_len(const leaseq_queue *queue, uint64_t *out_len);

/**
 * Rebuilds a lease from parts kept elsewhere (for example handed over from another process):
 * the item `id`, the lease `token`, the item's `incarnation` (all UTF-8, NUL-terminated; see
 * `leaseq_lease_token` and `leaseq_lease_incarnation`) and the `attempt` number
 * (`leaseq_lease_attempt`). Sends nothing. Renewing, failing, releasing and progress check the
 * token; every call checks the incarnation. The rebuilt lease holds no data (length 0), and
 * knows neither the item's max attempts nor its backoff: `leaseq_queue_fail` with
 * `LEASEQ_RETRY_DEFAULT` then waits the protocol's default backoff (the item's max attempts
 * still apply, in Redis).
 *
 * Changed with protocol v2: the `incarnation` argument is new, and `count` is now `attempt`.
 *
 * On success `*out_lease` is a new lease owned by the caller: free it with
 * `leaseq_lease_free`. On failure it is set to NULL.
 *
 * # Safety
 * `queue` is NULL or a live queue; `id`, `token` and `incarnation` are NULL or NUL-terminated
 * strings; `out_lease` is NULL or writable.
 */
leaseq_status leaseq_queue_lease_from_parts(const leaseq_queue *queue,
                                            const char *id,
                                            const char *token,
                                            const char *incarnation,
                                            uint64_t attempt,
                                            leaseq_lease **out_lease);

/**
 * Frees a queue handle. NULL is accepted and ignored. Leases made from it stay valid. No other
 * thread may be inside a call on this queue (to end a waiting lease first, close the client).
 *
 * # Safety
 * `queue` is NULL or a live queue that no other call is using, freed only once.
 */
void leaseq_queue_free(leaseq_queue *queue);

/**
 * Completes many leases in one round trip (at most 1000), each as `leaseq_queue_complete`
 * (`result` NULL) or `leaseq_queue_complete_with_result` would. `completions` is an array of
 * `completions_len` completions (NULL when `completions_len` is 0: nothing is sent).
 *
 * Sets `out_completed[i]` to whether `completions[i]` completed its item (false, not an
 * error, when it was completed already, cancelled, failed or released since, or added again).
 * `out_completed` is the caller's array of `completions_len` bools (NULL only when
 * `completions_len` is 0); on failure every element is false.
 *
 * Every completion is checked before anything is sent: a NULL lease or result gives
 * `LEASEQ_NULL_ARGUMENT` and a bad keep time `LEASEQ_INVALID_ARGUMENT`, naming the element
 * (`completions[2].lease`), and nothing is completed. The leases stay the caller's.
 *
 * # Safety
 * `queue` is NULL or a live queue; `completions` is NULL or points to `completions_len`
 * completions, each with `lease` NULL or a live lease and `result` NULL or `result_len`
 * readable bytes; `out_completed` is NULL or points to `completions_len` writable bools.
 */
leaseq_status leaseq_queue_complete_batch(const leaseq_queue *queue,
                                          const leaseq_completion *completions,
                                          size_t completions_len,
                                          bool *out_completed);

/**
 * Extends many leases to `ttl_ms` from now (1 ms to 30 days) in one round trip (at most
 * 1000), each as `leaseq_queue_renew_outcome` would. `leases` is an array of `leases_len`
 * lease pointers (NULL when `leases_len` is 0: nothing is sent).
 *
 * Sets `out_outcomes[i]` to what renewing `leases[i]` found: `LEASEQ_RENEW_RENEWED`, or why
 * not (a `LEASEQ_RENEW_*` value). `out_outcomes` is the caller's array of `leases_len`
 * elements (NULL only when `leases_len` is 0); on failure every element is
 * `LEASEQ_RENEW_EXPIRED`.
 *
 * A NULL element gives `LEASEQ_NULL_ARGUMENT` naming it (`leases[2]`) and renews nothing.
 *
 * # Safety
 * `queue` is NULL or a live queue; `leases` is NULL or points to `leases_len` pointers, each
 * NULL or a live lease; `out_outcomes` is NULL or points to `leases_len` writable elements.
 */
leaseq_status leaseq_queue_renew_batch(const leaseq_queue *queue,
                                       const leaseq_lease *const *leases,
                                       size_t leases_len,
                                       int64_t ttl_ms,
                                       leaseq_renew_outcome *out_outcomes);

/**
 * Records many failed attempts in one round trip (at most 1000), each as `leaseq_queue_fail`
 * would. `failures` is an array of `failures_len` failures (NULL when `failures_len` is 0:
 * nothing is sent).
 *
 * For each `failures[i]`, sets `out_outcomes[i]` (`LEASEQ_FAIL_RETRYING`, `LEASEQ_FAIL_DEAD`
 * or `LEASEQ_FAIL_NOT_HELD`), `out_not_held[i]` (why the lease was not held, a
 * `LEASEQ_RENEW_*` value; `LEASEQ_RENEW_RENEWED` when it was) and `out_retry_in_ms[i]` (the
 * delay before the retry for `LEASEQ_FAIL_RETRYING`, -1 otherwise), as `leaseq_queue_fail`
 * sets its three out-parameters. Each is the caller's array of `failures_len` elements (NULL
 * only when `failures_len` is 0); on failure every element is `LEASEQ_FAIL_NOT_HELD`,
 * `LEASEQ_RENEW_EXPIRED` and -1.
 *
 * Every failure is checked before anything is sent: a NULL pointer gives
 * `LEASEQ_NULL_ARGUMENT`, and text that is not UTF-8 or a bad retry `LEASEQ_INVALID_ARGUMENT`,
 * naming the element (`failures[2].error`), and nothing changes.
 *
 * # Safety
 * `queue` is NULL or a live queue; `failures` is NULL or points to `failures_len` failures,
 * each with `lease` NULL or a live lease and `error` and `error_type` NULL or NUL-terminated
 * strings; each out-array is NULL or points to `failures_len` writable elements.
 */
leaseq_status leaseq_queue_fail_batch(const leaseq_queue *queue,
                                      const leaseq_failure *failures,
                                      size_t failures_len,
                                      leaseq_fail_outcome *out_outcomes,
                                      leaseq_renew_outcome *out_not_held,
                                      int64_t *out_retry_in_ms);

/**
 * A busy worker's whole step in one round trip: completes `completions` (as
 * `leaseq_queue_complete_batch`) and leases up to `n` more items (0 to 1000) for `ttl_ms`
 * (1 ms to 30 days). The new leases never wait: fewer (or none) when fewer are waiting.
 *
 * Sets `out_completed[i]` as `leaseq_queue_complete_batch` does (the caller's array of
 * `completions_len` bools, NULL only when `completions_len` is 0). On success `*out_leases`
 * is an array of `*out_len` new leases owned by the caller, or NULL with `*out_len` 0 when
 * nothing was leased: free it with `leaseq_lease_array_free(*out_leases, *out_len)`, as for
 * `leaseq_queue_lease_batch`. On failure every `out_completed[i]` is false and `*out_leases`
 * NULL: a refused argument completed nothing, but after a connection or Redis error the
 * items may have been completed all the same.
 *
 * # Safety
 * `queue` is NULL or a live queue; `completions` is NULL or points to `completions_len`
 * completions as for `leaseq_queue_complete_batch`; `out_completed` is NULL or points to
 * `completions_len` writable bools; `out_leases` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_queue_complete_and_lease_batch(const leaseq_queue *queue,
                                                    const leaseq_completion *completions,
                                                    size_t completions_len,
                                                    size_t n,
                                                    int64_t ttl_ms,
                                                    bool *out_completed,
                                                    leaseq_lease ***out_leases,
                                                    size_t *out_len);

/**
 * Stores the recurring job `name` (NUL-terminated UTF-8, 1 to 200 bytes), new or changed: a
 * change never fires a tick twice nor skips one. Every field of `schedule` is checked first (a
 * bad one gives `LEASEQ_INVALID_ARGUMENT` naming it: `cron`, `tz`, `every_ms`, `missed`, `item`,
 * `data` or an item option) and nothing is written. The queue's runners, in every language,
 * fire it: one item per tick, however many run. One round trip.
 *
 * On success `*out_created` is true when the schedule is new, false when it replaced one.
 *
 * # Safety
 * `queue` is NULL or a live queue; `name` is NULL or a NUL-terminated string; `schedule` is
 * NULL or a `leaseq_schedule` of `struct_size` readable bytes, its pointers valid as it
 * documents; `out_created` is NULL or writable.
 */
leaseq_status leaseq_queue_upsert_schedule(const leaseq_queue *queue,
                                           const char *name,
                                           const leaseq_schedule *schedule,
                                           bool *out_created);

/**
 * `leaseq_queue_upsert_schedule` in partition 0 of a partitioned queue, where its recurring
 * jobs live (spec/PROTOCOL.md 5.25): its runners fire them, and their items are added there.
 * The same checks and outputs. One round trip.
 *
 * # Safety
 * As `leaseq_queue_upsert_schedule`, with `partitioned` NULL or a live partitioned queue.
 */
leaseq_status leaseq_partitioned_upsert_schedule(const leaseq_partitioned *partitioned,
                                                 const char *name,
                                                 const leaseq_schedule *schedule,
                                                 bool *out_created);

/**
 * Removes the recurring job `name`; the items it added stay. On success `*out_removed` says
 * whether there was one. One round trip.
 *
 * # Safety
 * `queue` is NULL or a live queue; `name` is NULL or a NUL-terminated string; `out_removed`
 * is NULL or writable.
 */
leaseq_status leaseq_queue_remove_schedule(const leaseq_queue *queue,
                                           const char *name,
                                           bool *out_removed);

/**
 * `leaseq_queue_remove_schedule` in partition 0 of a partitioned queue. One round trip.
 *
 * # Safety
 * As `leaseq_queue_remove_schedule`, with `partitioned` NULL or a live partitioned queue.
 */
leaseq_status leaseq_partitioned_remove_schedule(const leaseq_partitioned *partitioned,
                                                 const char *name,
                                                 bool *out_removed);

/**
 * Reads the recurring job `name`, with its next fire time. One round trip.
 *
 * On success `*out_schedule` is new, owned by the caller (free it with
 * `leaseq_schedule_info_free`), or NULL when there is no schedule of that name.
 *
 * # Safety
 * `queue` is NULL or a live queue; `name` is NULL or a NUL-terminated string; `out_schedule`
 * is NULL or writable.
 */
leaseq_status leaseq_queue_get_schedule(const leaseq_queue *queue,
                                        const char *name,
                                        leaseq_schedule_info **out_schedule);

/**
 * `leaseq_queue_get_schedule` in partition 0 of a partitioned queue (free what it gives with
 * `leaseq_schedule_info_free`). One round trip.
 *
 * # Safety
 * As `leaseq_queue_get_schedule`, with `partitioned` NULL or a live partitioned queue.
 */
leaseq_status leaseq_partitioned_get_schedule(const leaseq_partitioned *partitioned,
                                              const char *name,
                                              leaseq_schedule_info **out_schedule);

/**
 * Frees what `leaseq_queue_get_schedule` gave. NULL is accepted and ignored.
 *
 * # Safety
 * `schedule` is NULL or from `leaseq_queue_get_schedule` (or `leaseq_partitioned_get_schedule`),
 * freed only once.
 */
void leaseq_schedule_info_free(leaseq_schedule_info *schedule);

/**
 * Reads at most `count` of the queue's recurring jobs from the `start`-th, by next fire time,
 * and how many there are. One round trip.
 *
 * On success `*out_page` is a new page owned by the caller: free it with
 * `leaseq_schedule_page_free`. On failure it is set to NULL.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_page` is NULL or writable.
 */
leaseq_status leaseq_queue_schedules(const leaseq_queue *queue,
                                     size_t start,
                                     size_t count,
                                     leaseq_schedule_page **out_page);

/**
 * `leaseq_queue_schedules` in partition 0 of a partitioned queue (free the page with
 * `leaseq_schedule_page_free`). One round trip.
 *
 * # Safety
 * As `leaseq_queue_schedules`, with `partitioned` NULL or a live partitioned queue.
 */
leaseq_status leaseq_partitioned_schedules(const leaseq_partitioned *partitioned,
                                           size_t start,
                                           size_t count,
                                           leaseq_schedule_page **out_page);

/**
 * Frees a page of schedules. NULL is accepted and ignored.
 *
 * # Safety
 * `page` is NULL or from `leaseq_queue_schedules` (or `leaseq_partitioned_schedules`), freed
 * only once.
 */
void leaseq_schedule_page_free(leaseq_schedule_page *page);

/**
 * Fires the queue's due recurring jobs once, where no runner does (a runner fires them as part
 * of its housekeeping): one item per tick, however many callers fire at once. One round trip,
 * and one more per 100 due schedules.
 *
 * On success `*out_report` says what it did; on failure it is all zeros, `next_due_in_ms` -1.
 *
 * # Safety
 * `queue` is NULL or a live queue; `out_report` is NULL or writable.
 */
leaseq_status leaseq_queue_fire_due_schedules(const leaseq_queue *queue,
                                              leaseq_fire_report *out_report);

/**
 * `leaseq_queue_fire_due_schedules` in partition 0 of a partitioned queue, as a runner over
 * it fires them: for a process without a runner.
 *
 * # Safety
 * As `leaseq_queue_fire_due_schedules`, with `partitioned` NULL or a live partitioned queue.
 */
leaseq_status leaseq_partitioned_fire_due_schedules(const leaseq_partitioned *partitioned,
                                                    leaseq_fire_report *out_report);

/**
 * The registry name of `status` (`"OK"`, `"CONNECTION"`, ..., `"NULL_ARGUMENT"`,
 * `"INTERNAL"`), or `"UNKNOWN"` for a number leaseq does not define.
 *
 * Never NULL. The string is static: do not free it. Thread-safe.
 */
const char *leaseq_status_str(leaseq_status status);

/**
 * Fills `options` with the defaults (zeros, -1 for the booleans, no event callback) and sets
 * its `struct_size`. It writes the fields through `stats` only, in every later version too,
 * so a program built against an older header is never written beyond its struct; to set a
 * field added after `stats`, start from `LEASEQ_WORKER_OPTIONS_INIT` instead.
 *
 * # Safety
 * `options` is NULL or points to a writable `leaseq_worker_options`.
 */
leaseq_status leaseq_worker_options_init(leaseq_worker_options *options);

/**
 * Stops every runner of the process: the first call gracefully (no more leases; running
 * callbacks get the shutdown timeout), the next forces. Async-signal-safe (one atomic store):
 * call it from a SIGTERM or SIGINT handler. It reaches every call of a runner function
 * (`leaseq_worker_run`, `_named`, `_queues`, `_partitioned`) under way, from the call's first
 * step: one still checking its arguments or waiting for Redis stops too. When the last such
 * call has returned, whatever it returned, the stop is spent and the next call runs normally.
 * A stop made while no runner runs is kept for the next call (a signal that came just before
 * it started): that run returns LEASEQ_OK at once, having run nothing (a call refused for its
 * arguments returns its error), and the stop is spent.
 */
void leaseq_worker_stop(void);

/**
 * Runs `callback` for each item of `queue` until `leaseq_worker_stop()`; returns then, once
 * the shutdown is done (running callbacks finished, or released after the timeout).
 *
 * Thread rules: callbacks run on the core's blocking threads (never this one), up to
 * `concurrency` at once, and may block; `user_data` is passed to each and must be usable from
 * those threads. The `leaseq_worker_job` is valid only during its callback. `on_event` runs
 * on a runtime thread and must be quick (no leaseq call that talks to Redis). No callback runs after this function returned.
 * Redis outages do not end it: the core reconnects and reports "error"/"recovered" events. One
 * under way as it starts neither: its first connection is tried again, 100 ms doubling to 5 s,
 * until Redis answers or `leaseq_worker_stop()` ends the wait (LEASEQ_OK, nothing run); the
 * wait is reported as an "error" event with step "connect", then "recovered", and their log
 * lines. `options` may be NULL (every default). Bad options give LEASEQ_INVALID_ARGUMENT
 * naming the option, before any wait and with nothing written to Redis. During that wait,
 * `on_event` and `on_log` are called on the thread that called this function.
 *
 * # Safety
 * `queue` is NULL or a live queue; `callback` is a valid function pointer; `options` is NULL
 * or a readable `leaseq_worker_options` (only read during the call) whose `report` is NULL or
 * writable; `user_data` may be anything the callbacks can use from other threads.
 */
leaseq_status leaseq_worker_run(const leaseq_queue *queue,
                                leaseq_worker_fn callback,
                                void *user_data,
                                const leaseq_worker_options *options);

/**
 * Runs a table of handlers by name over `queue` until `leaseq_worker_stop()`, as
 * `leaseq_worker_run` runs one callback, so that one queue carries several kinds of job: a job
 * whose item's name (`LEASEQ_ADD_NAME`) is `handlers[i].name` runs with `handlers[i].handler`
 * (given `handlers[i].user_data`); any other job, another name or none, with `fallback`
 * (given `user_data`). Without a fallback (NULL) the runner fails such a job for good without
 * calling anything: it is a dead letter at once, with error type "NoHandler" and a message
 * naming the job's name and the names handled. `leaseq_worker_job_name` gives a job's name.
 *
 * The table is checked before anything is written to Redis, by the core as in every
 * language: no handler and no fallback, a name that is not 1 to 256 bytes of UTF-8 without
 * control characters, or a name given twice gives LEASEQ_INVALID_ARGUMENT naming `handlers`.
 * `handlers` NULL with `handlers_len` above 0, or a NULL `handler`, gives LEASEQ_NULL_ARGUMENT
 * naming it (`handlers[1].handler`). The table is copied as the runner starts. `user_data`
 * also goes to `options.on_event`. Options, threads and shutdown are as `leaseq_worker_run`'s.
 *
 * # Safety
 * `queue` is NULL or a live queue; `handlers` is NULL or points to `handlers_len` readable
 * entries, each `name` NULL or pointing to `name_len` readable bytes and each `handler` NULL
 * or a valid function pointer; `fallback` is NULL or a valid function pointer; `options` is
 * NULL or a readable `leaseq_worker_options` whose `report` is NULL or writable; every entry's
 * `user_data` and `user_data` may be
 * anything their callbacks can use from other threads.
 */
leaseq_status leaseq_worker_run_named(const leaseq_queue *queue,
                                      const leaseq_worker_handler *handlers,
                                      size_t handlers_len,
                                      leaseq_worker_fn fallback,
                                      void *user_data,
                                      const leaseq_worker_options *options);

/**
 * Runs `callback` over several queues of one client (1 to 64), as `leaseq_worker_run` does
 * over one: one wait on the server covers them all, and each job is finished in its own queue
 * (`leaseq_worker_job_queue_prefix` tells which). With `weights` NULL the queues are asked in
 * strict order (a later queue gets slots only while every earlier one has no work for them);
 * otherwise by weighted round robin, `weights[i]` (1 to 1000) for `queues[i]`: over time
 * `queues[i]` has `weights[i]` of every `sum(weights)` turns, a turn being up to 250 ms of one
 * queue's leases (spec/PROTOCOL.md 13.3). The runner
 * registers and does the housekeeping in each queue.
 *
 * Refused with LEASEQ_INVALID_ARGUMENT, before anything is written: no queue or more than 64,
 * a queue given twice or from another client (`queues`), a weight outside 1..1000
 * (`weights`). A NULL `queues` or element of it gives LEASEQ_NULL_ARGUMENT.
 *
 * # Safety
 * `queues` is NULL or points to `queues_len` readable pointers, each NULL or a live queue;
 * `weights` is NULL or points to `queues_len` readable `uint32_t`; the rest as for
 * `leaseq_worker_run`.
 */
leaseq_status leaseq_worker_run_queues(const leaseq_queue *const *queues,
                                       size_t queues_len,
                                       const uint32_t *weights,
                                       leaseq_worker_fn callback,
                                       void *user_data,
                                       const leaseq_worker_options *options);

/**
 * Runs `callback` over every partition of `partitioned` (spec/PROTOCOL.md 5.25, "Runners"),
 * as `leaseq_worker_run` runs it over one queue, until `leaseq_worker_stop()`: one wait on the
 * server covers every partition, the partition asked first rotates (a weighted round robin of
 * equal weights, so that none with work starves), and each job is finished in the partition
 * it came from (`leaseq_worker_job_queue_prefix` tells which). The runner registers and does
 * the housekeeping in each partition. A queue of one partition is run as `leaseq_worker_run`
 * runs its plain queue. Options, threads and shutdown are as `leaseq_worker_run`'s.
 *
 * Statuses: LEASEQ_OK once stopped; LEASEQ_NULL_ARGUMENT naming `partitioned` or `callback`;
 * LEASEQ_INVALID_ARGUMENT naming the option refused (nothing written to Redis); the runner's
 * own failures as for `leaseq_worker_run`.
 *
 * # Safety
 * `partitioned` is NULL or a live partitioned queue; the rest as for `leaseq_worker_run`.
 */
leaseq_status leaseq_worker_run_partitioned(const leaseq_partitioned *partitioned,
                                            leaseq_worker_fn callback,
                                            void *user_data,
                                            const leaseq_worker_options *options);

/**
 * The job's id (NUL-terminated; valid during the callback).
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it);
 * `out_id` is NULL or writable.
 */
leaseq_status leaseq_worker_job_id(const leaseq_worker_job *job, const char **out_id);

/**
 * The prefix of the queue the job came from (NUL-terminated; valid during the callback): for a
 * runner over several queues (`leaseq_worker_run_queues`), the queue the job is finished in.
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it);
 * `out_prefix` is NULL or writable.
 */
leaseq_status leaseq_worker_job_queue_prefix(const leaseq_worker_job *job, const char **out_prefix);

/**
 * The job's name (`LEASEQ_ADD_NAME`; NUL-terminated, valid during the callback), or NULL when
 * its item has none: with `leaseq_worker_run_named` the handler of that name (or the fallback)
 * runs it.
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it);
 * `out_name` is NULL or writable.
 */
leaseq_status leaseq_worker_job_name(const leaseq_worker_job *job, const char **out_name);

/**
 * The job's data as (pointer, length), valid during the callback.
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it);
 * `out_data` and `out_len` are NULL or writable.
 */
leaseq_status leaseq_worker_job_data(const leaseq_worker_job *job,
                                     const uint8_t **out_data,
                                     size_t *out_len);

/**
 * Which attempt this is (1 for the first).
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it);
 * `out_attempt` is NULL or writable.
 */
leaseq_status leaseq_worker_job_attempt(const leaseq_worker_job *job, uint64_t *out_attempt);

/**
 * Whether the lease is lost (expired and taken, cancelled, or a forced shutdown): the
 * callback should stop. Safe to poll from the callback.
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it);
 * `out_lost` is NULL or writable.
 */
leaseq_status leaseq_worker_job_lease_lost(const leaseq_worker_job *job, bool *out_lost);

/**
 * Whether the callback is told to stop, and why: `*out_reason` is `LEASEQ_CANCEL_NONE` (go
 * on), or the first reason it was told, `LEASEQ_CANCEL_TIMEOUT` (its `job_timeout_ms`
 * passed: whatever it returns now, the attempt fails with error type "timeout"),
 * `LEASEQ_CANCEL_LEASE_LOST` or `LEASEQ_CANCEL_SHUTDOWN`. Once told, always told. Cheap (one
 * atomic load): poll it from the callback, in any thread, during the call.
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it);
 * `out_reason` is NULL or writable.
 */
leaseq_status leaseq_worker_job_cancelled(const leaseq_worker_job *job,
                                          leaseq_cancel_reason *out_reason);

/**
 * Sets the result kept when the callback returns LEASEQ_JOB_COMPLETE (copied).
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it);
 * `result` points to `result_len` readable bytes (NULL only with length 0).
 */
leaseq_status leaseq_worker_job_set_result(const leaseq_worker_job *job,
                                           const uint8_t *result,
                                           size_t result_len);

/**
 * Sets the error recorded when the callback returns LEASEQ_JOB_FAIL or
 * LEASEQ_JOB_FAIL_UNRECOVERABLE: a message, a type (may be ""), and a retry delay in ms (0:
 * the queue's backoff). Without it, the message says which outcome the callback returned
 * without an error ("the callback returned LEASEQ_JOB_FAIL without
 * leaseq_worker_job_set_error"), and the type is "".
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it);
 * `message` and `error_type` are NULL or NUL-terminated strings.
 */
leaseq_status leaseq_worker_job_set_error(const leaseq_worker_job *job,
                                          const char *message,
                                          const char *error_type,
                                          uint64_t retry_after_ms);

/**
 * Sets the trace kept with the failure when the callback returns LEASEQ_JOB_FAIL or
 * LEASEQ_JOB_FAIL_UNRECOVERABLE: a backtrace, a log excerpt, any text (bytes as (pointer,
 * length); not UTF-8 is shown with U+FFFD), kept as the job's trace (at most 16 KiB), shown by
 * `leaseq_queue_get` (`leaseq_job_trace`).
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it); `trace`
 * points to `trace_len` readable bytes (NULL only with length 0).
 */
leaseq_status leaseq_worker_job_set_trace(const leaseq_worker_job *job,
                                          const uint8_t *trace,
                                          size_t trace_len);

/**
 * Sets how long the queue is held off when the callback returns LEASEQ_JOB_RATE_LIMITED (or the
 * job's group, when it returns LEASEQ_JOB_RATE_LIMITED_GROUP), in ms (more than 0, at most one
 * day: the core cuts a hold to those bounds).
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it).
 */
leaseq_status leaseq_worker_job_set_rate_limited(const leaseq_worker_job *job, uint64_t hold_ms);

/**
 * The kept results of the items the job was added to wait for, in order, as
 * `leaseq_queue_dependency_results` gives them: a flow's parent reads its children's results
 * so (BullMQ's `getChildrenValues`). One round trip, from the callback's thread.
 *
 * On success `*out_results` is new, owned by the caller: free it with
 * `leaseq_dependency_results_free`. On failure it is set to NULL.
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it);
 * `out_results` is NULL or writable.
 */
leaseq_status leaseq_worker_job_dependency_results(const leaseq_worker_job *job,
                                                   leaseq_dependency_results **out_results);

/**
 * Stores a progress value (at most 64 KiB) on the item; `out_stored` says whether it was
 * (false once the lease is lost). One round trip, from the callback's thread.
 *
 * # Safety
 * `job` is NULL or the job passed to the running callback (valid only during it);
 * `value` points to `value_len` readable bytes (NULL only with length 0); `out_stored` is
 * NULL or writable.
 */
leaseq_status leaseq_worker_job_progress(const leaseq_worker_job *job,
                                         const uint8_t *value,
                                         size_t value_len,
                                         bool *out_stored);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* LEASEQ_H */
