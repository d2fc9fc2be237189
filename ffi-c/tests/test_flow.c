/*
 * Pause and resume, bounded queues and rate limits (issue 25) through leaseq.h, against a
 * throwaway redis-server: leaseq_queue_pause / _resume / _is_paused, leaseq_config.capacity,
 * LEASEQ_FULL, leaseq_queue_add_with_timeout and leaseq_queue_add_batch_with_timeout,
 * leaseq_stats_paused / _capacity, leaseq_config.rate_max / rate_per_ms,
 * leaseq_queue_rate_limit and leaseq_stats_rate_limited_for_ms; groups (LEASEQ_ADD_GROUP,
 * leaseq_queue_pause_group / _resume_group / _set_group_limit / _group, leaseq_job_group,
 * leaseq_config.group_concurrency); per-group rate limits (leaseq_config.group_rate_max /
 * group_rate_per_ms, leaseq_queue_rate_limit_group, leaseq_group_info.rate_limited_for_ms).
 * The waits run on threads of their own.
 *
 * Environment: LEASEQ_TEST_URL (a redis:// URL).
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>

#include "check.h"

static leaseq_client *client;
static const char *url;

/* ---- helpers ------------------------------------------------------------------------------ */

/* How many connections wait in a blocking command (leaseq's waits are BLMOVE); -1 on error. */
static long blocked_clients(void) {
    const char *argv[] = {
        "EVAL",
        "return tonumber(string.match(redis.call('INFO', 'clients'), 'blocked_clients:(%d+)'))",
        "0"};
    char reply[64];
    if (redis_raw(url, argv, 3, reply, sizeof reply) != 0 || reply[0] != ':') return -1;
    return strtol(reply + 1, NULL, 10);
}

/* Returns once more than `more_than` connections are blocked (a wait is under way), or false
 * after a minute (the check then fails). */
static bool until_blocked(long more_than) {
    for (int i = 0; i < 6000; i++) {
        if (blocked_clients() > more_than) return true;
        sleep_ms(10);
    }
    return false;
}

/* How many keys the queue has in Redis. */
static long keys_of(const leaseq_queue *queue) {
    const char *prefix = NULL;
    CHECK_OK(leaseq_queue_prefix(queue, &prefix));
    char pattern[512];
    snprintf(pattern, sizeof pattern, "%s*", prefix ? prefix : "");
    const char *argv[] = {"EVAL", "return #redis.call('KEYS', ARGV[1])", "0", pattern};
    char reply[64];
    if (redis_raw(url, argv, 4, reply, sizeof reply) != 0 || reply[0] != ':') return -1;
    return strtol(reply + 1, NULL, 10);
}

static leaseq_item *new_item(const char *id) {
    leaseq_item *item = NULL;
    CHECK_OK(leaseq_item_with_id(id, (const uint8_t *)"x", 1, &item));
    return item;
}

static bool set_capacity(const leaseq_queue *queue, uint64_t capacity) {
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_CAPACITY;
    config.capacity = capacity;
    return leaseq_queue_set_config(queue, &config) == LEASEQ_OK;
}

/* Leases one item with a 30 s TTL and no wait; NULL when none. */
static leaseq_lease *lease_one(const leaseq_queue *queue) {
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &lease));
    return lease;
}

static bool lease_is(const leaseq_lease *lease, const char *id) {
    const char *got = NULL;
    return lease != NULL && leaseq_lease_id(lease, &got) == LEASEQ_OK && got != NULL &&
           strcmp(got, id) == 0;
}

/* ---- pause and resume ------------------------------------------------------------------------ */

static void a_paused_queue_leases_nothing_and_keeps_adding(void) {
    leaseq_queue *queue = fresh_queue(client, "pause");
    REQUIRE(queue != NULL);
    bool flag = true;
    CHECK_OK(leaseq_queue_is_paused(queue, &flag));
    CHECK(!flag);
    CHECK_OK(leaseq_queue_pause(queue, &flag));
    CHECK(flag); /* it was running */
    CHECK_OK(leaseq_queue_pause(queue, &flag));
    CHECK(!flag); /* already paused */
    CHECK_OK(leaseq_queue_is_paused(queue, &flag));
    CHECK(flag);
    CHECK(add_item(queue, "a", "x", 1)); /* adds go on while paused */
    leaseq_lease *none = lease_one(queue);
    CHECK(none == NULL);
    leaseq_lease_free(none);

    leaseq_stats *stats = NULL;
    CHECK_OK(leaseq_queue_stats(queue, &stats));
    bool paused = false;
    uint64_t waiting = 0, capacity = 99;
    CHECK_OK(leaseq_stats_paused(stats, &paused));
    CHECK_OK(leaseq_stats_count(stats, LEASEQ_STATE_WAITING, &waiting));
    CHECK_OK(leaseq_stats_capacity(stats, &capacity));
    CHECK(paused && waiting == 1 && capacity == 0);
    leaseq_stats_free(stats);

    CHECK_OK(leaseq_queue_resume(queue, &flag));
    CHECK(flag); /* it was paused */
    CHECK_OK(leaseq_queue_resume(queue, &flag));
    CHECK(!flag);
    leaseq_lease *lease = lease_one(queue);
    CHECK(lease_is(lease, "a"));
    leaseq_lease_free(lease);

    CHECK_NULL_ARG(leaseq_queue_pause(NULL, &flag), "queue");
    CHECK_NULL_ARG(leaseq_queue_pause(queue, NULL), "out_was_running");
    CHECK_NULL_ARG(leaseq_queue_resume(queue, NULL), "out_was_paused");
    CHECK_NULL_ARG(leaseq_queue_is_paused(queue, NULL), "out_paused");
    leaseq_queue_free(queue);
}

struct lease_waiter {
    const leaseq_queue *queue;
    leaseq_status status;
    leaseq_lease *lease;
};

static void *lease_for_a_minute(void *arg) {
    struct lease_waiter *w = arg;
    w->status = leaseq_queue_lease(w->queue, 30000, 60000, &w->lease);
    return NULL;
}

static void a_waiting_lease_wakes_on_resume(void) {
    leaseq_queue *queue = fresh_queue(client, "wake");
    REQUIRE(queue != NULL);
    bool flag = false;
    CHECK_OK(leaseq_queue_pause(queue, &flag));
    CHECK(add_item(queue, "a", "x", 1));
    long before = blocked_clients();
    REQUIRE(before >= 0);
    struct lease_waiter w = {.queue = queue, .status = -1};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, lease_for_a_minute, &w) == 0);
    CHECK(until_blocked(before)); /* waiting: nothing is leased while paused */
    CHECK_OK(leaseq_queue_resume(queue, &flag));
    CHECK(flag);
    pthread_join(thread, NULL);
    CHECK(w.status == LEASEQ_OK);
    CHECK(lease_is(w.lease, "a"));
    leaseq_lease_free(w.lease);
    leaseq_queue_free(queue);
}

/* ---- bounded queues -------------------------------------------------------------------------- */

static void a_full_queue_gives_full_and_writes_nothing(void) {
    leaseq_queue *queue = fresh_queue(client, "full");
    REQUIRE(queue != NULL);
    REQUIRE(set_capacity(queue, 2));
    leaseq_config config = LEASEQ_CONFIG_INIT;
    CHECK_OK(leaseq_queue_config(queue, &config));
    CHECK(config.set == LEASEQ_CONFIG_CAPACITY && config.capacity == 2);
    leaseq_stats *stats = NULL;
    uint64_t capacity = 0;
    CHECK_OK(leaseq_queue_stats(queue, &stats));
    CHECK_OK(leaseq_stats_capacity(stats, &capacity));
    CHECK(capacity == 2);
    leaseq_stats_free(stats);

    CHECK(add_item(queue, "a", "x", 1));
    CHECK(add_item(queue, "b", "x", 1));
    long keys = keys_of(queue);
    leaseq_item *item = new_item("c");
    bool added = true;
    CHECK_STATUS(LEASEQ_FULL, leaseq_queue_add(queue, item, &added));
    CHECK(!added);
    CHECK_MESSAGE_HAS("full");
    CHECK_STATUS(LEASEQ_FULL, leaseq_queue_add_with_timeout(queue, item, NULL, 0, &added));
    const leaseq_item *batch[] = {item};
    size_t count = 9;
    CHECK_STATUS(LEASEQ_FULL, leaseq_queue_add_batch(queue, batch, 1, &count));
    CHECK(count == 0);
    CHECK(keys_of(queue) == keys); /* nothing written */

    leaseq_lease *lease = lease_one(queue); /* makes room */
    CHECK(lease != NULL);
    CHECK_OK(leaseq_queue_add(queue, item, &added));
    CHECK(added);
    leaseq_lease_free(lease);
    leaseq_item_free(item);
    leaseq_queue_free(queue);
}

static void a_batch_fits_whole_or_not_at_all(void) {
    leaseq_queue *queue = fresh_queue(client, "batch");
    REQUIRE(queue != NULL);
    REQUIRE(set_capacity(queue, 3));
    CHECK(add_item(queue, "a", "x", 1));
    leaseq_item *items[] = {new_item("b"), new_item("c"), new_item("d")};
    const leaseq_item *batch[] = {items[0], items[1], items[2]};
    size_t count = 9;
    CHECK_STATUS(LEASEQ_FULL, leaseq_queue_add_batch_with_timeout(queue, batch, NULL, 3, 0,
                                                                  &count));
    CHECK(queue_len(queue) == 1); /* none of the batch */
    CHECK_OK(leaseq_queue_add_batch_with_timeout(queue, batch, NULL, 2, 0, &count));
    CHECK(count == 2);
    CHECK(queue_len(queue) == 3);
    for (int i = 0; i < 3; i++) leaseq_item_free(items[i]);
    leaseq_queue_free(queue);
}

struct add_waiter {
    const leaseq_queue *queue;
    const leaseq_item *item;
    leaseq_status status;
    bool added;
};

static void *add_within_a_minute(void *arg) {
    struct add_waiter *w = arg;
    w->status = leaseq_queue_add_with_timeout(w->queue, w->item, NULL, 60000, &w->added);
    return NULL;
}

static void an_add_with_a_timeout_gets_room_after_a_lease(void) {
    leaseq_queue *queue = fresh_queue(client, "room");
    REQUIRE(queue != NULL);
    REQUIRE(set_capacity(queue, 1));
    CHECK(add_item(queue, "a", "x", 1));
    leaseq_item *item = new_item("b");
    long before = blocked_clients();
    REQUIRE(before >= 0);
    struct add_waiter w = {.queue = queue, .item = item, .status = -1};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, add_within_a_minute, &w) == 0);
    CHECK(until_blocked(before)); /* waiting for room */
    leaseq_lease *lease = lease_one(queue);
    CHECK(lease_is(lease, "a"));
    pthread_join(thread, NULL);
    CHECK(w.status == LEASEQ_OK);
    CHECK(w.added);
    uint64_t waiting = 0;
    CHECK_OK(leaseq_queue_count(queue, LEASEQ_STATE_WAITING, &waiting));
    CHECK(waiting == 1);
    leaseq_lease_free(lease);
    leaseq_item_free(item);
    leaseq_queue_free(queue);
}

static void an_add_with_a_timeout_gives_up_with_full(void) {
    leaseq_queue *queue = fresh_queue(client, "giveup");
    REQUIRE(queue != NULL);
    REQUIRE(set_capacity(queue, 1));
    CHECK(add_item(queue, "a", "x", 1));
    leaseq_item *item = new_item("b");
    bool added = true;
    CHECK_STATUS(LEASEQ_FULL, leaseq_queue_add_with_timeout(queue, item, NULL, 100, &added));
    CHECK(!added);
    const leaseq_item *batch[] = {item};
    size_t count = 9;
    CHECK_STATUS(LEASEQ_FULL,
                 leaseq_queue_add_batch_with_timeout(queue, batch, NULL, 1, 100, &count));
    CHECK(count == 0);
    CHECK(queue_len(queue) == 1);
    CHECK_NULL_ARG(leaseq_queue_add_with_timeout(queue, NULL, NULL, 0, &added), "item");
    CHECK_NULL_ARG(leaseq_queue_add_with_timeout(queue, item, NULL, 0, NULL), "out_added");
    CHECK_NULL_ARG(leaseq_queue_add_batch_with_timeout(queue, NULL, NULL, 1, 0, &count),
                   "items");
    leaseq_item_free(item);
    leaseq_queue_free(queue);
}

static void capacity_is_checked_by_the_core(void) {
    leaseq_queue *queue = fresh_queue(client, "capacity");
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "a", "x", 1));
    CHECK(add_item(queue, "b", "x", 1));
    CHECK(add_item(queue, "c", "x", 1));
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_CAPACITY;
    config.capacity = 0;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "capacity");
    config.capacity = 2; /* below the three items the queue holds */
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "capacity");
    leaseq_config got = LEASEQ_CONFIG_INIT;
    CHECK_OK(leaseq_queue_config(queue, &got));
    CHECK(got.set == 0);
    config.capacity = 3;
    CHECK_OK(leaseq_queue_set_config(queue, &config));
    CHECK_OK(leaseq_queue_config(queue, &got));
    CHECK(got.set == LEASEQ_CONFIG_CAPACITY && got.capacity == 3);
    leaseq_queue_free(queue);
}

/* ---- rate limits ----------------------------------------------------------------------------- */

static bool set_rate_limit(const leaseq_queue *queue, uint64_t max, int64_t per_ms) {
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_RATE_LIMIT;
    config.rate_max = max;
    config.rate_per_ms = per_ms;
    return leaseq_queue_set_config(queue, &config) == LEASEQ_OK;
}

static int64_t rate_limited_for_ms(const leaseq_queue *queue) {
    leaseq_stats *stats = NULL;
    int64_t ms = -2;
    CHECK_OK(leaseq_queue_stats(queue, &stats));
    CHECK_OK(leaseq_stats_rate_limited_for_ms(stats, &ms));
    leaseq_stats_free(stats);
    return ms;
}

static void a_rate_limit_round_trips_and_counts_leases(void) {
    leaseq_queue *queue = fresh_queue(client, "window");
    REQUIRE(queue != NULL);
    REQUIRE(set_rate_limit(queue, 2, 60000));
    leaseq_config config = LEASEQ_CONFIG_INIT;
    CHECK_OK(leaseq_queue_config(queue, &config));
    CHECK(config.set == LEASEQ_CONFIG_RATE_LIMIT && config.rate_max == 2 &&
          config.rate_per_ms == 60000);
    CHECK(rate_limited_for_ms(queue) == -1);
    CHECK(add_item(queue, "a", "x", 1));
    CHECK(add_item(queue, "b", "x", 1));
    CHECK(add_item(queue, "c", "x", 1));
    leaseq_lease *a = lease_one(queue);
    leaseq_lease *b = lease_one(queue);
    CHECK(lease_is(a, "a") && lease_is(b, "b"));
    leaseq_lease *none = lease_one(queue);
    CHECK(none == NULL); /* the window is used up */
    leaseq_lease_free(a);
    leaseq_lease_free(b);
    leaseq_lease_free(none);
    int64_t left = rate_limited_for_ms(queue);
    CHECK(left > 0 && left <= 60000);
    leaseq_queue_free(queue);
}

static void a_rate_limit_is_checked_by_the_core(void) {
    leaseq_queue *queue = fresh_queue(client, "limit-bad");
    REQUIRE(queue != NULL);
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_RATE_LIMIT;
    config.rate_max = 0;
    config.rate_per_ms = 1000;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "rate_limit");
    config.rate_max = 1;
    config.rate_per_ms = 0;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "rate_limit");
    config.rate_per_ms = 2 * 86400000LL;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "rate_limit");
    config.rate_per_ms = -1;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "config.rate_per_ms");
    int64_t held = -1;
    CHECK_INVALID_ARG(leaseq_queue_rate_limit(queue, 0, &held), "duration_ms");
    CHECK_INVALID_ARG(leaseq_queue_rate_limit(queue, -5, &held), "duration_ms");
    CHECK(keys_of(queue) == 0); /* nothing written */
    CHECK_NULL_ARG(leaseq_queue_rate_limit(NULL, 1000, &held), "queue");
    CHECK_NULL_ARG(leaseq_queue_rate_limit(queue, 1000, NULL), "out_held_ms");
    leaseq_queue_free(queue);
}

static void rate_limit_holds_every_lease_off(void) {
    leaseq_queue *queue = fresh_queue(client, "hold");
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "a", "x", 1));
    int64_t held = 0;
    CHECK_OK(leaseq_queue_rate_limit(queue, 60000, &held));
    CHECK(held >= 60000);
    CHECK_OK(leaseq_queue_rate_limit(queue, 10, &held));
    CHECK(held > 50000); /* a longer hold is kept */
    leaseq_lease *none = lease_one(queue);
    CHECK(none == NULL);
    leaseq_lease_free(none);
    CHECK(rate_limited_for_ms(queue) > 50000);
    CHECK(add_item(queue, "b", "x", 1)); /* adds go on */
    leaseq_queue_free(queue);
}

/* ---- groups ------------------------------------------------------------------------------- */

/* Adds item `id` (its data its id) in `group`; true when added. */
static bool add_grouped(const leaseq_queue *queue, const char *id, const char *group) {
    leaseq_item *item = NULL;
    if (leaseq_item_with_id(id, (const uint8_t *)id, strlen(id), &item) != LEASEQ_OK) return false;
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.set = LEASEQ_ADD_GROUP;
    options.group = group;
    bool added = false;
    leaseq_status status = leaseq_queue_add_with_options(queue, item, &options, &added);
    leaseq_item_free(item);
    return status == LEASEQ_OK && added;
}

/* Leases up to `n` items; writes their ids, comma-separated, into `out` ("" when none). */
static void leased_ids(const leaseq_queue *queue, size_t n, char *out, size_t out_len) {
    leaseq_lease **leases = NULL;
    size_t len = 0;
    out[0] = '\0';
    CHECK_OK(leaseq_queue_lease_batch(queue, n, NULL, &leases, &len));
    for (size_t i = 0; i < len; i++) {
        const char *id = NULL;
        CHECK_OK(leaseq_lease_id(leases[i], &id));
        if (i > 0) strncat(out, ",", out_len - strlen(out) - 1);
        strncat(out, id ? id : "?", out_len - strlen(out) - 1);
    }
    leaseq_lease_array_free(leases, len);
}

static leaseq_group_info group_info(const leaseq_queue *queue, const char *group) {
    leaseq_group_info info = {0, 0, 0, false, -2};
    CHECK_OK(leaseq_queue_group(queue, group, &info));
    return info;
}

static void a_group_leases_one_at_a_time_in_order(void) {
    leaseq_queue *queue = fresh_queue(client, "group-fifo");
    REQUIRE(queue != NULL);
    CHECK(add_grouped(queue, "a1", "acme"));
    CHECK(add_grouped(queue, "a2", "acme"));
    CHECK(add_grouped(queue, "a3", "acme"));
    leaseq_lease *first = lease_one(queue);
    CHECK(lease_is(first, "a1"));
    leaseq_lease *none = lease_one(queue);
    CHECK(none == NULL); /* one leased at a time (default limit 1) */
    leaseq_group_info info = group_info(queue, "acme");
    CHECK(info.waiting == 2 && info.leased == 1 && info.limit == 1 && !info.paused);
    bool completed = false;
    CHECK_OK(leaseq_queue_complete(queue, first, &completed));
    CHECK(completed);
    char ids[256];
    leased_ids(queue, 10, ids, sizeof ids);
    CHECK(strcmp(ids, "a2") == 0); /* the next, in order */
    leaseq_lease_free(first);
    leaseq_queue_free(queue);
}

static void groups_take_turns(void) {
    leaseq_queue *queue = fresh_queue(client, "group-turns");
    REQUIRE(queue != NULL);
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_GROUP_CONCURRENCY;
    config.group_concurrency = 100;
    CHECK_OK(leaseq_queue_set_config(queue, &config));
    char id[32];
    for (int i = 0; i < 20; i++) {
        snprintf(id, sizeof id, "big%d", i);
        CHECK(add_grouped(queue, id, "big"));
    }
    CHECK(add_grouped(queue, "small", "small"));
    char ids[256];
    leased_ids(queue, 2, ids, sizeof ids);
    /* the big group's 20 items wait their turn */
    CHECK(strcmp(ids, "big0,small") == 0 || strcmp(ids, "small,big0") == 0);
    leaseq_queue_free(queue);
}

static void pause_and_resume_a_group(void) {
    leaseq_queue *queue = fresh_queue(client, "group-pause");
    REQUIRE(queue != NULL);
    CHECK(add_grouped(queue, "a", "paused"));
    CHECK(add_grouped(queue, "b", "running"));
    bool changed = false;
    CHECK_OK(leaseq_queue_pause_group(queue, "paused", &changed));
    CHECK(changed);
    CHECK_OK(leaseq_queue_pause_group(queue, "paused", &changed));
    CHECK(!changed); /* already paused */
    char ids[256];
    leased_ids(queue, 10, ids, sizeof ids);
    CHECK(strcmp(ids, "b") == 0); /* the rest of the queue goes on */
    CHECK(group_info(queue, "paused").paused);
    CHECK_OK(leaseq_queue_resume_group(queue, "paused", &changed));
    CHECK(changed);
    CHECK_OK(leaseq_queue_resume_group(queue, "paused", &changed));
    CHECK(!changed);
    leased_ids(queue, 10, ids, sizeof ids);
    CHECK(strcmp(ids, "a") == 0);
    leaseq_queue_free(queue);
}

static void a_group_limit_and_group_concurrency(void) {
    leaseq_queue *queue = fresh_queue(client, "group-limit");
    REQUIRE(queue != NULL);
    char id[32];
    for (int i = 0; i < 6; i++) {
        snprintf(id, sizeof id, "x%d", i);
        CHECK(add_grouped(queue, id, "acme"));
    }
    CHECK_OK(leaseq_queue_set_group_limit(queue, "acme", 3));
    CHECK(group_info(queue, "acme").limit == 3);
    leaseq_lease *first = lease_one(queue);
    CHECK(lease_is(first, "x0"));
    char ids[256];
    leased_ids(queue, 10, ids, sizeof ids);
    CHECK(strcmp(ids, "x1,x2") == 0);
    CHECK_OK(leaseq_queue_set_group_limit(queue, "acme", -1));
    CHECK(group_info(queue, "acme").limit == 1); /* back to the queue's default */
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_GROUP_CONCURRENCY;
    config.group_concurrency = 4;
    CHECK_OK(leaseq_queue_set_config(queue, &config));
    leaseq_config got = LEASEQ_CONFIG_INIT;
    CHECK_OK(leaseq_queue_config(queue, &got));
    CHECK(got.set == LEASEQ_CONFIG_GROUP_CONCURRENCY && got.group_concurrency == 4);
    bool completed = false;
    CHECK_OK(leaseq_queue_complete(queue, first, &completed));
    CHECK(completed);
    leased_ids(queue, 10, ids, sizeof ids);
    CHECK(strcmp(ids, "x3,x4") == 0); /* a slot freed: up to four at once now */
    CHECK_INVALID_ARG(leaseq_queue_set_group_limit(queue, "acme", 0), "limit");
    CHECK_INVALID_ARG(leaseq_queue_set_group_limit(queue, "acme", 1001), "limit");
    CHECK_INVALID_ARG(leaseq_queue_set_group_limit(queue, "acme", -2), "limit");
    config.group_concurrency = 0;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "group_concurrency");
    leaseq_lease_free(first);
    leaseq_queue_free(queue);
}

static void get_shows_the_group(void) {
    leaseq_queue *queue = fresh_queue(client, "group-get");
    REQUIRE(queue != NULL);
    CHECK(add_grouped(queue, "a", "acme"));
    CHECK(add_item(queue, "plain", "x", 1));
    leaseq_job *job = NULL;
    CHECK_OK(leaseq_queue_get(queue, "a", &job));
    REQUIRE(job != NULL);
    const char *group = NULL;
    CHECK_OK(leaseq_job_group(job, &group));
    CHECK(group != NULL && strcmp(group, "acme") == 0);
    leaseq_job_free(job);
    job = NULL;
    CHECK_OK(leaseq_queue_get(queue, "plain", &job));
    REQUIRE(job != NULL);
    CHECK_OK(leaseq_job_group(job, &group));
    CHECK(group == NULL);
    leaseq_job_free(job);
    leaseq_queue_free(queue);
}

static void a_bad_group_is_refused_naming_group(void) {
    leaseq_queue *queue = fresh_queue(client, "group-bad");
    REQUIRE(queue != NULL);
    char long_group[300];
    memset(long_group, 'x', 257);
    long_group[257] = '\0';
    const char *bad[] = {"", "a\nb", long_group};
    leaseq_item *item = new_item("i");
    bool flag = false;
    leaseq_group_info info;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
        options.set = LEASEQ_ADD_GROUP;
        options.group = bad[i];
        CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &options, &flag), "group");
        CHECK_INVALID_ARG(leaseq_queue_pause_group(queue, bad[i], &flag), "group");
        CHECK_INVALID_ARG(leaseq_queue_resume_group(queue, bad[i], &flag), "group");
        CHECK_INVALID_ARG(leaseq_queue_set_group_limit(queue, bad[i], 2), "group");
        CHECK_INVALID_ARG(leaseq_queue_group(queue, bad[i], &info), "group");
        int64_t held = 0;
        CHECK_INVALID_ARG(leaseq_queue_rate_limit_group(queue, bad[i], 1000, &held), "group");
    }
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.set = LEASEQ_ADD_GROUP; /* and no string */
    CHECK_NULL_ARG(leaseq_queue_add_with_options(queue, item, &options, &flag), "group");
    CHECK_NULL_ARG(leaseq_queue_pause_group(queue, NULL, &flag), "group");
    CHECK_NULL_ARG(leaseq_queue_group(queue, "g", NULL), "out_info");
    CHECK(keys_of(queue) == 0); /* nothing written */
    leaseq_item_free(item);
    leaseq_queue_free(queue);
}

/* ---- group rate limits ------------------------------------------------------------------- */

static bool set_group_rate_limit(const leaseq_queue *queue, uint64_t max, int64_t per_ms) {
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_GROUP_RATE_LIMIT | LEASEQ_CONFIG_GROUP_CONCURRENCY;
    config.group_rate_max = max;
    config.group_rate_per_ms = per_ms;
    config.group_concurrency = 10;
    return leaseq_queue_set_config(queue, &config) == LEASEQ_OK;
}

static void a_group_rate_limit_round_trips_and_counts_each_group(void) {
    leaseq_queue *queue = fresh_queue(client, "group-window");
    REQUIRE(queue != NULL);
    REQUIRE(set_group_rate_limit(queue, 2, 60000));
    leaseq_config config = LEASEQ_CONFIG_INIT;
    CHECK_OK(leaseq_queue_config(queue, &config));
    CHECK(config.set == (LEASEQ_CONFIG_GROUP_RATE_LIMIT | LEASEQ_CONFIG_GROUP_CONCURRENCY) &&
          config.group_rate_max == 2 && config.group_rate_per_ms == 60000);
    CHECK(config.rate_max == 0 && config.rate_per_ms == 0); /* the queue's own limit: none */
    CHECK(add_grouped(queue, "a1", "a"));
    CHECK(add_grouped(queue, "a2", "a"));
    CHECK(add_grouped(queue, "a3", "a"));
    CHECK(add_grouped(queue, "b1", "b"));
    CHECK(group_info(queue, "a").rate_limited_for_ms == -1);
    leaseq_lease *leases[3];
    for (int i = 0; i < 3; i++) leases[i] = lease_one(queue);
    CHECK(lease_is(leases[0], "a1") && lease_is(leases[1], "b1") && lease_is(leases[2], "a2"));
    leaseq_lease *none = lease_one(queue);
    CHECK(none == NULL); /* a's window is used up; b has nothing waiting */
    leaseq_lease_free(none);
    leaseq_group_info a = group_info(queue, "a");
    CHECK(a.waiting == 1 && a.leased == 2);
    CHECK(a.rate_limited_for_ms > 0 && a.rate_limited_for_ms <= 60000);
    CHECK(group_info(queue, "b").rate_limited_for_ms == -1); /* one lease of two in its window */
    CHECK(rate_limited_for_ms(queue) == -1);                  /* the queue is not limited */
    CHECK(add_grouped(queue, "b2", "b"));
    leaseq_lease *b2 = lease_one(queue);
    CHECK(lease_is(b2, "b2")); /* the other group goes on */
    leaseq_lease_free(b2);
    for (int i = 0; i < 3; i++) leaseq_lease_free(leases[i]);
    leaseq_queue_free(queue);
}

static void a_group_rate_limit_is_checked_by_the_core(void) {
    leaseq_queue *queue = fresh_queue(client, "group-limit-bad");
    REQUIRE(queue != NULL);
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_GROUP_RATE_LIMIT;
    config.group_rate_max = 0;
    config.group_rate_per_ms = 1000;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "group_rate_limit");
    config.group_rate_max = 1000000001;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "group_rate_limit");
    config.group_rate_max = 1;
    config.group_rate_per_ms = 0;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "group_rate_limit");
    config.group_rate_per_ms = 2 * 86400000LL;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "group_rate_limit");
    config.group_rate_per_ms = -1;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &config), "config.group_rate_per_ms");
    int64_t held = -1;
    CHECK_INVALID_ARG(leaseq_queue_rate_limit_group(queue, "g", 0, &held), "duration_ms");
    CHECK(held == 0);
    CHECK_INVALID_ARG(leaseq_queue_rate_limit_group(queue, "g", 86400001, &held), "duration_ms");
    CHECK_INVALID_ARG(leaseq_queue_rate_limit_group(queue, "g", -5, &held), "duration_ms");
    CHECK(keys_of(queue) == 0); /* nothing written */
    CHECK_NULL_ARG(leaseq_queue_rate_limit_group(NULL, "g", 1000, &held), "queue");
    CHECK_NULL_ARG(leaseq_queue_rate_limit_group(queue, NULL, 1000, &held), "group");
    CHECK_NULL_ARG(leaseq_queue_rate_limit_group(queue, "g", 1000, NULL), "out_held_ms");
    leaseq_queue_free(queue);
}

static void rate_limit_group_holds_one_group_off(void) {
    leaseq_queue *queue = fresh_queue(client, "group-hold");
    REQUIRE(queue != NULL);
    CHECK(add_grouped(queue, "a1", "a"));
    CHECK(add_grouped(queue, "b1", "b"));
    CHECK(add_item(queue, "p1", "x", 1));
    int64_t held = 0;
    CHECK_OK(leaseq_queue_rate_limit_group(queue, "a", 60000, &held));
    CHECK(held >= 60000);
    CHECK_OK(leaseq_queue_rate_limit_group(queue, "a", 10, &held));
    CHECK(held > 50000); /* a longer hold is kept */
    char ids[256];
    leased_ids(queue, 10, ids, sizeof ids);
    /* the other group and the ungrouped item go on */
    CHECK(strcmp(ids, "b1,p1") == 0 || strcmp(ids, "p1,b1") == 0);
    leaseq_lease *none = lease_one(queue);
    CHECK(none == NULL);
    leaseq_lease_free(none);
    leaseq_group_info a = group_info(queue, "a");
    CHECK(a.waiting == 1 && a.leased == 0 && !a.paused);
    CHECK(a.rate_limited_for_ms > 50000 && a.rate_limited_for_ms <= 60000);
    CHECK(group_info(queue, "b").rate_limited_for_ms == -1);
    CHECK(rate_limited_for_ms(queue) == -1); /* the queue itself is not held */
    CHECK(add_grouped(queue, "a2", "a"));    /* adds go on */
    leaseq_queue_free(queue);
}

int main(void) {
    url = need_env("LEASEQ_TEST_URL");
    if (leaseq_client_connect(url, &client) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"a paused queue leases nothing and keeps adding",
         a_paused_queue_leases_nothing_and_keeps_adding},
        {"a waiting lease wakes on resume", a_waiting_lease_wakes_on_resume},
        {"a full queue gives LEASEQ_FULL and writes nothing",
         a_full_queue_gives_full_and_writes_nothing},
        {"a batch fits whole or not at all", a_batch_fits_whole_or_not_at_all},
        {"an add with a timeout gets room after a lease",
         an_add_with_a_timeout_gets_room_after_a_lease},
        {"an add with a timeout gives up with LEASEQ_FULL",
         an_add_with_a_timeout_gives_up_with_full},
        {"capacity is checked by the core", capacity_is_checked_by_the_core},
        {"a rate limit round-trips and counts leases", a_rate_limit_round_trips_and_counts_leases},
        {"a rate limit is checked by the core", a_rate_limit_is_checked_by_the_core},
        {"rate_limit holds every lease off", rate_limit_holds_every_lease_off},
        {"a group leases one at a time, in order", a_group_leases_one_at_a_time_in_order},
        {"groups take turns", groups_take_turns},
        {"pause and resume a group", pause_and_resume_a_group},
        {"a group limit and group_concurrency", a_group_limit_and_group_concurrency},
        {"get shows the group", get_shows_the_group},
        {"a bad group is refused naming group", a_bad_group_is_refused_naming_group},
        {"a group rate limit round-trips and counts each group",
         a_group_rate_limit_round_trips_and_counts_each_group},
        {"a group rate limit is checked by the core", a_group_rate_limit_is_checked_by_the_core},
        {"rate_limit_group holds one group off", rate_limit_group_holds_one_group_off},
    };
    int status = run_tests("test_flow", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(client);
    leaseq_runtime_shutdown(); /* so that valgrind sees no live runtime thread */
    return status;
}
