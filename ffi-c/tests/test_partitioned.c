/*
 * Partitioned queues (spec/PROTOCOL.md 5.25) through leaseq_partitioned: on a Redis Cluster with
 * 3 partitions (routing, batches across partitions, leases finished in their own partition, reads
 * over the logical queue, find one partition a call, the runner), the refusals, and 1 partition on
 * a plain server.
 *
 * Environment: LEASEQ_TEST_CLUSTER_URLS (the node URLs, separated by spaces) and LEASEQ_TEST_URL
 * (a plain server).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdatomic.h>

#include "check.h"

#define P 3

static leaseq_client *cluster;
static leaseq_client *plain;

/* A base with a hash tag that no other test, run or process uses. */
static void unique_base(char *buf, size_t size, const char *name) {
    char inner[256];
    unique_prefix(inner, sizeof inner, name);
    snprintf(buf, size, "{%s}", inner);
}

/* A fresh partitioned queue of P partitions on the cluster; NULL (and a failed check) if not. */
static leaseq_partitioned *fresh(const char *name) {
    char base[300];
    unique_base(base, sizeof base, name);
    leaseq_partitioned *p = NULL;
    CHECK_OK(leaseq_partitioned_create(cluster, base, P, &p));
    return p;
}

static leaseq_item *item(const char *id) {
    leaseq_item *it = NULL;
    CHECK_OK(leaseq_item_with_id(id, (const uint8_t *)id, strlen(id), &it));
    return it;
}

/* Items waiting in each partition (`out[i]`) and in the logical queue (returned). */
static uint64_t waiting(const leaseq_partitioned *p, uint64_t out[P]) {
    leaseq_stats_by_partition *stats = NULL;
    const leaseq_stats *total = NULL, *one = NULL;
    uint64_t sum = UINT64_MAX;
    size_t len = 0;
    CHECK_OK(leaseq_partitioned_stats(p, &stats));
    if (stats == NULL) return UINT64_MAX;
    CHECK_OK(leaseq_stats_by_partition_len(stats, &len));
    CHECK(len == P);
    for (size_t i = 0; i < P; i++) {
        out[i] = UINT64_MAX;
        CHECK_OK(leaseq_stats_by_partition_get(stats, i, &one));
        if (one != NULL) CHECK_OK(leaseq_stats_count(one, LEASEQ_STATE_WAITING, &out[i]));
    }
    CHECK_OK(leaseq_stats_by_partition_total(stats, &total));
    if (total != NULL) CHECK_OK(leaseq_stats_count(total, LEASEQ_STATE_WAITING, &sum));
    leaseq_stats_by_partition_free(stats);
    return sum;
}

static uint64_t count_in(const leaseq_partitioned *p, leaseq_state state) {
    uint64_t n = UINT64_MAX;
    CHECK_OK(leaseq_partitioned_count(p, state, &n));
    return n;
}

/* ---- the handle --------------------------------------------------------------------------- */

static void create_open_and_layout(void) {
    char base[300];
    unique_base(base, sizeof base, "layout");
    leaseq_partitioned *p = NULL, *again = NULL;
    CHECK_OK(leaseq_partitioned_create(cluster, base, P, &p));
    REQUIRE(p != NULL);
    size_t partitions = 0;
    CHECK_OK(leaseq_partitioned_partitions(p, &partitions));
    CHECK(partitions == P);
    const char *got = NULL, *prefixes[P] = {NULL};
    CHECK_OK(leaseq_partitioned_base(p, &got));
    CHECK(got != NULL && strcmp(got, base) == 0);
    for (size_t i = 0; i < P; i++) {
        CHECK_OK(leaseq_partitioned_prefix(p, i, &prefixes[i]));
        REQUIRE(prefixes[i] != NULL);
        for (size_t j = 0; j < i; j++) CHECK(strcmp(prefixes[i], prefixes[j]) != 0);
    }
    /* open reads the stored layout; create again with the same count is idempotent */
    CHECK_OK(leaseq_partitioned_open(cluster, base, &again));
    REQUIRE(again != NULL);
    CHECK_OK(leaseq_partitioned_partitions(again, &partitions));
    CHECK(partitions == P);
    const char *prefix = NULL;
    CHECK_OK(leaseq_partitioned_prefix(again, 2, &prefix));
    CHECK(prefix != NULL && strcmp(prefix, prefixes[2]) == 0);
    leaseq_partitioned_free(again);
    again = NULL;
    CHECK_OK(leaseq_partitioned_create(cluster, base, P, &again));
    CHECK(again != NULL);
    leaseq_partitioned_free(again);
    /* partition i as a queue has partition i's prefix */
    leaseq_queue *queue = NULL;
    CHECK_OK(leaseq_partitioned_partition(p, 1, &queue));
    REQUIRE(queue != NULL);
    CHECK_OK(leaseq_queue_prefix(queue, &prefix));
    CHECK(prefix != NULL && strcmp(prefix, prefixes[1]) == 0);
    leaseq_queue_free(queue);
    leaseq_partitioned_free(p);
}

/* ---- routing -------------------------------------------------------------------------------- */

static void a_group_stays_in_one_partition(void) {
    leaseq_partitioned *p = fresh("group");
    REQUIRE(p != NULL);
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.set = LEASEQ_ADD_GROUP;
    options.group = "customer-42";
    size_t home = SIZE_MAX;
    char id[32];
    for (int i = 0; i < 12; i++) {
        snprintf(id, sizeof id, "g-%d", i);
        leaseq_item *it = item(id);
        size_t at = SIZE_MAX;
        bool added = false;
        CHECK_OK(leaseq_partitioned_partition_of(p, it, &options, &at));
        CHECK(at < P);
        if (home == SIZE_MAX) home = at;
        CHECK(at == home);
        CHECK_OK(leaseq_partitioned_add_with_options(p, it, &options, &added));
        CHECK(added);
        leaseq_item_free(it);
    }
    uint64_t each[P];
    CHECK(waiting(p, each) == 12);
    for (size_t i = 0; i < P; i++) CHECK(each[i] == (i == home ? 12u : 0u));
    /* the group's items come out of that partition */
    leaseq_lease *lease = NULL;
    leaseq_queue *queue = NULL;
    const char *prefix = NULL, *home_prefix = NULL;
    CHECK_OK(leaseq_partitioned_lease(p, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    CHECK_OK(leaseq_partitioned_queue_of(p, lease, &queue));
    REQUIRE(queue != NULL);
    CHECK_OK(leaseq_queue_prefix(queue, &prefix));
    CHECK_OK(leaseq_partitioned_prefix(p, home, &home_prefix));
    CHECK(prefix != NULL && home_prefix != NULL && strcmp(prefix, home_prefix) == 0);
    leaseq_queue_free(queue);
    leaseq_lease_free(lease);
    /* the group calls act in that partition: paused, no partition hands out its items */
    bool was = false;
    CHECK_OK(leaseq_partitioned_pause_group(p, "customer-42", &was));
    CHECK(was);
    leaseq_group_info info;
    CHECK_OK(leaseq_partitioned_group(p, "customer-42", &info));
    CHECK(info.paused && info.waiting == 11 && info.leased == 1);
    lease = NULL;
    CHECK_OK(leaseq_partitioned_lease(p, 30000, 0, &lease));
    CHECK(lease == NULL);
    CHECK_OK(leaseq_partitioned_resume_group(p, "customer-42", &was));
    CHECK(was);
    CHECK_OK(leaseq_partitioned_set_group_limit(p, "customer-42", 3));
    CHECK_OK(leaseq_partitioned_group(p, "customer-42", &info));
    CHECK(!info.paused && info.limit == 3);
    int64_t held = 0;
    CHECK_OK(leaseq_partitioned_rate_limit_group(p, "customer-42", 60000, &held));
    CHECK(held > 0 && held <= 60000);
    CHECK_INVALID_ARG(leaseq_partitioned_set_group_limit(p, "customer-42", 0), "limit");
    CHECK_INVALID_ARG(leaseq_partitioned_pause_group(p, "", &was), "group");
    CHECK_NULL_ARG(leaseq_partitioned_group(NULL, "customer-42", &info), "partitioned");
    CHECK_NULL_ARG(leaseq_partitioned_group(p, NULL, &info), "group");
    CHECK_NULL_ARG(leaseq_partitioned_group(p, "customer-42", NULL), "out_info");
    CHECK_NULL_ARG(leaseq_partitioned_rate_limit_group(p, "customer-42", 1000, NULL),
                   "out_held_ms");
    leaseq_partitioned_free(p);
}

static void add_batch_spreads_over_partitions(void) {
    leaseq_partitioned *p = fresh("batch");
    REQUIRE(p != NULL);
    enum { N = 30 };
    leaseq_item *items[N];
    size_t expected[P] = {0};
    char id[32];
    for (int i = 0; i < N; i++) {
        snprintf(id, sizeof id, "b-%d", i);
        items[i] = item(id);
        size_t at = SIZE_MAX;
        CHECK_OK(leaseq_partitioned_partition_of(p, items[i], NULL, &at));
        if (at < P) expected[at]++;
    }
    size_t added = 0;
    CHECK_OK(leaseq_partitioned_add_batch(p, (const leaseq_item *const *)items, N, &added));
    CHECK(added == N);
    uint64_t each[P];
    CHECK(waiting(p, each) == N);
    size_t used = 0;
    for (size_t i = 0; i < P; i++) {
        CHECK(each[i] == expected[i]);
        if (each[i] > 0) used++;
    }
    CHECK(used >= 2); /* 30 ids over 3 partitions: the batch crossed partitions */
    /* again: every id exists in its partition */
    CHECK_OK(leaseq_partitioned_add_batch(p, (const leaseq_item *const *)items, N, &added));
    CHECK(added == 0);
    CHECK(count_in(p, LEASEQ_STATE_WAITING) == N);
    /* the logical list pages through every partition */
    leaseq_entry_list *list = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_partitioned_list(p, LEASEQ_STATE_WAITING, 0, 100, &list));
    CHECK_OK(leaseq_entry_list_len(list, &len));
    CHECK(len == N);
    /* each entry names the partition it lives in: its id's */
    for (size_t i = 0; i < len; i++) {
        const leaseq_entry *entry = NULL;
        const char *id = NULL;
        int32_t partition = -2;
        size_t home = SIZE_MAX;
        CHECK_OK(leaseq_entry_list_get(list, i, &entry));
        CHECK_OK(leaseq_entry_id(entry, &id));
        CHECK_OK(leaseq_entry_partition(entry, &partition));
        leaseq_item *same = NULL;
        CHECK_OK(leaseq_item_with_id(id, (const uint8_t *)"", 0, &same));
        CHECK_OK(leaseq_partitioned_partition_of(p, same, NULL, &home));
        leaseq_item_free(same);
        CHECK(partition >= 0 && (size_t)partition == home);
    }
    CHECK(leaseq_entry_partition(NULL, NULL) == LEASEQ_NULL_ARGUMENT);
    leaseq_entry_list_free(list);
    CHECK_OK(leaseq_partitioned_list(p, LEASEQ_STATE_WAITING, 25, 100, &list));
    CHECK_OK(leaseq_entry_list_len(list, &len));
    CHECK(len == 5);
    leaseq_entry_list_free(list);
    for (int i = 0; i < N; i++) leaseq_item_free(items[i]);
    leaseq_partitioned_free(p);
}

/* ---- leases ---------------------------------------------------------------------------------- */

static void lease_and_complete_across_partitions(void) {
    leaseq_partitioned *p = fresh("lease");
    REQUIRE(p != NULL);
    enum { N = 12 };
    leaseq_item *items[N];
    char id[32];
    for (int i = 0; i < N; i++) {
        snprintf(id, sizeof id, "l-%d", i);
        items[i] = item(id);
    }
    size_t added = 0;
    CHECK_OK(leaseq_partitioned_add_batch(p, (const leaseq_item *const *)items, N, &added));
    CHECK(added == N);
    for (int i = 0; i < N; i++) leaseq_item_free(items[i]);

    leaseq_lease_options options = LEASEQ_LEASE_OPTIONS_INIT;
    options.set = LEASEQ_LEASE_TTL;
    options.ttl_ms = 30000;
    leaseq_lease **leases = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_partitioned_lease_batch(p, N, &options, &leases, &len));
    CHECK(len == N); /* one batch took items from every partition that had some */
    CHECK(count_in(p, LEASEQ_STATE_LEASED) == len);
    const char *prefixes[P] = {NULL};
    for (size_t i = 0; i < P; i++) CHECK_OK(leaseq_partitioned_prefix(p, i, &prefixes[i]));
    size_t from[P] = {0};
    for (size_t i = 0; i < len; i++) {
        /* the partition that issued each lease */
        leaseq_queue *queue = NULL;
        const char *prefix = NULL;
        CHECK_OK(leaseq_partitioned_queue_of(p, leases[i], &queue));
        if (queue != NULL) CHECK_OK(leaseq_queue_prefix(queue, &prefix));
        for (size_t k = 0; k < P; k++)
            if (prefix != NULL && prefixes[k] != NULL && strcmp(prefix, prefixes[k]) == 0) from[k]++;
        leaseq_queue_free(queue);
        bool completed = false;
        if (i == 0) {
            CHECK_OK(leaseq_partitioned_complete_with_result(p, leases[i], (const uint8_t *)"ok",
                                                             2, -1, &completed));
        } else {
            CHECK_OK(leaseq_partitioned_complete(p, leases[i], &completed));
        }
        CHECK(completed);
        /* a second complete of the same lease is not the first */
        CHECK_OK(leaseq_partitioned_complete(p, leases[i], &completed));
        CHECK(!completed);
    }
    CHECK(from[0] + from[1] + from[2] == len);
    CHECK((from[0] > 0) + (from[1] > 0) + (from[2] > 0) >= 2);
    CHECK(count_in(p, LEASEQ_STATE_WAITING) == 0 && count_in(p, LEASEQ_STATE_LEASED) == 0);
    /* the result is found in whichever partition kept it */
    if (len > 0) {
        const char *lease_id = NULL;
        leaseq_result *result = NULL;
        CHECK_OK(leaseq_lease_id(leases[0], &lease_id));
        CHECK_OK(leaseq_partitioned_result(p, lease_id, &result));
        REQUIRE(result != NULL);
        const uint8_t *data = NULL;
        size_t data_len = 0;
        CHECK_OK(leaseq_result_data(result, &data, &data_len));
        CHECK(data_len == 2 && memcmp(data, "ok", 2) == 0);
        leaseq_result_free(result);
        /* wait_result finds it where it is; a result that never comes gives NULL, not an error */
        result = NULL;
        CHECK_OK(leaseq_partitioned_wait_result(p, lease_id, 0, &result));
        REQUIRE(result != NULL);
        CHECK_OK(leaseq_result_data(result, &data, &data_len));
        CHECK(data_len == 2 && memcmp(data, "ok", 2) == 0);
        leaseq_result_free(result);
        result = NULL;
        CHECK_OK(leaseq_partitioned_wait_result(p, "never", 100, &result));
        CHECK(result == NULL);
        CHECK_NULL_ARG(leaseq_partitioned_wait_result(NULL, lease_id, 0, &result), "partitioned");
        CHECK_NULL_ARG(leaseq_partitioned_wait_result(p, NULL, 0, &result), "id");
        CHECK_NULL_ARG(leaseq_partitioned_wait_result(p, lease_id, 0, NULL), "out_result");
        CHECK_INVALID_ARG(leaseq_partitioned_wait_result(p, "", 0, &result), "id");
    }
    leaseq_lease_array_free(leases, len);
    leaseq_partitioned_free(p);
}

/* The batch finishes send each partition its share of the leases and answer in order; a lease
 * of another queue is refused, naming it, and nothing is sent. */
static void batch_finishes_reach_each_leases_partition(void) {
    leaseq_partitioned *p = fresh("batches");
    REQUIRE(p != NULL);
    enum { N = 9 };
    leaseq_item *items[N];
    char id[32];
    for (int i = 0; i < N; i++) {
        snprintf(id, sizeof id, "b-%d", i);
        items[i] = item(id);
    }
    size_t added = 0;
    CHECK_OK(leaseq_partitioned_add_batch(p, (const leaseq_item *const *)items, N, &added));
    CHECK(added == N);
    for (int i = 0; i < N; i++) leaseq_item_free(items[i]);
    leaseq_lease_options options = LEASEQ_LEASE_OPTIONS_INIT;
    options.set = LEASEQ_LEASE_TTL;
    options.ttl_ms = 30000;
    leaseq_lease **leases = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_partitioned_lease_batch(p, N, &options, &leases, &len));
    REQUIRE(len == N);

    /* A lease of another queue among them: refused, naming `lease`; the others stay leased. */
    char other_base[300];
    unique_base(other_base, sizeof other_base, "batches-other");
    leaseq_partitioned *other = NULL;
    CHECK_OK(leaseq_partitioned_create(cluster, other_base, 1, &other));
    REQUIRE(other != NULL);
    leaseq_item *o = item("o");
    bool ok = false;
    CHECK_OK(leaseq_partitioned_add(other, o, &ok));
    leaseq_item_free(o);
    leaseq_lease *foreign = NULL;
    CHECK_OK(leaseq_partitioned_lease(other, 30000, 0, &foreign));
    REQUIRE(foreign != NULL);
    leaseq_completion mixed[2] = {LEASEQ_COMPLETION_INIT, LEASEQ_COMPLETION_INIT};
    mixed[0].lease = leases[0];
    mixed[1].lease = foreign;
    bool completed[N] = {false};
    CHECK_INVALID_ARG(leaseq_partitioned_complete_batch(p, mixed, 2, completed), "lease");
    CHECK(count_in(p, LEASEQ_STATE_LEASED) == N);

    /* Renewed, in order: all held but the one completed meanwhile. */
    bool done = false;
    CHECK_OK(leaseq_partitioned_complete(p, leases[N - 1], &done));
    CHECK(done);
    leaseq_renew_outcome renewed[N];
    CHECK_OK(leaseq_partitioned_renew_batch(p, (const leaseq_lease *const *)leases, N, 30000,
                                            renewed));
    for (int i = 0; i < N - 1; i++) CHECK(renewed[i] == LEASEQ_RENEW_RENEWED);
    CHECK(renewed[N - 1] == LEASEQ_RENEW_COMPLETED);

    /* Failed: the first two (one retried, one dead); completed: the rest, and the done one. */
    const leaseq_failure failures[2] = {
        {leases[0], "boom", "IOError", LEASEQ_RETRY_AFTER, 600000},
        {leases[1], "fatal", "ValueError", LEASEQ_RETRY_NEVER, 0},
    };
    leaseq_fail_outcome outcomes[2] = {-9, -9};
    leaseq_renew_outcome why[2] = {-9, -9};
    int64_t retry_in[2] = {-9, -9};
    CHECK_OK(leaseq_partitioned_fail_batch(p, failures, 2, outcomes, why, retry_in));
    CHECK(outcomes[0] == LEASEQ_FAIL_RETRYING && retry_in[0] == 600000);
    CHECK(outcomes[1] == LEASEQ_FAIL_DEAD && retry_in[1] == -1);
    leaseq_completion rest[N - 2];
    for (int i = 0; i < N - 2; i++) {
        leaseq_completion c = LEASEQ_COMPLETION_INIT;
        c.lease = leases[i + 2];
        rest[i] = c;
    }
    CHECK_OK(leaseq_partitioned_complete_batch(p, rest, N - 2, completed));
    for (int i = 0; i < N - 3; i++) CHECK(completed[i]);
    CHECK(!completed[N - 3]);
    CHECK(count_in(p, LEASEQ_STATE_LEASED) == 0);
    CHECK(count_in(p, LEASEQ_STATE_DEAD) == 1);
    CHECK(count_in(p, LEASEQ_STATE_DELAYED) == 1);
    CHECK_NULL_ARG(leaseq_partitioned_complete_batch(NULL, rest, 1, completed), "partitioned");
    CHECK_NULL_ARG(leaseq_partitioned_renew_batch(p, NULL, 1, 30000, renewed), "leases");

    leaseq_lease_free(foreign);
    leaseq_partitioned_free(other);
    leaseq_lease_array_free(leases, len);
    leaseq_partitioned_free(p);
}

static void fail_dead_letters_and_requeue(void) {
    leaseq_partitioned *p = fresh("dead");
    REQUIRE(p != NULL);
    char id[32];
    for (int i = 0; i < 6; i++) {
        snprintf(id, sizeof id, "d-%d", i);
        leaseq_item *it = item(id);
        bool added = false;
        CHECK_OK(leaseq_partitioned_add(p, it, &added));
        CHECK(added);
        leaseq_item_free(it);
    }
    for (int i = 0; i < 6; i++) {
        leaseq_lease *lease = NULL;
        CHECK_OK(leaseq_partitioned_lease(p, 30000, 0, &lease));
        REQUIRE(lease != NULL);
        leaseq_fail_outcome outcome = -1;
        leaseq_renew_outcome not_held = -1;
        int64_t retry_in = 0;
        CHECK_OK(leaseq_partitioned_fail(p, lease, "broken", "Broken", LEASEQ_RETRY_NEVER, 0,
                                         &outcome, &not_held, &retry_in));
        CHECK(outcome == LEASEQ_FAIL_DEAD && not_held == LEASEQ_RENEW_RENEWED && retry_in == -1);
        leaseq_lease_free(lease);
    }
    CHECK(count_in(p, LEASEQ_STATE_DEAD) == 6);
    uint64_t n = 0;
    CHECK_OK(leaseq_partitioned_dead_requeue_oldest(p, -1, &n));
    CHECK(n == 6);
    CHECK(count_in(p, LEASEQ_STATE_WAITING) == 6 && count_in(p, LEASEQ_STATE_DEAD) == 0);
    /* dead again, then purged */
    for (int i = 0; i < 6; i++) {
        leaseq_lease *lease = NULL;
        leaseq_fail_outcome outcome = -1;
        leaseq_renew_outcome not_held = -1;
        int64_t retry_in = 0;
        CHECK_OK(leaseq_partitioned_lease(p, 30000, 0, &lease));
        REQUIRE(lease != NULL);
        CHECK_OK(leaseq_partitioned_fail(p, lease, "broken", "", LEASEQ_RETRY_NEVER, 0, &outcome,
                                         &not_held, &retry_in));
        leaseq_lease_free(lease);
    }
    CHECK_OK(leaseq_partitioned_dead_purge(p, -1, &n));
    CHECK(n == 6);
    CHECK(count_in(p, LEASEQ_STATE_DEAD) == 0);
    leaseq_partitioned_free(p);
}

/* Two ids of this test that go to one partition (`a`, `b`); the partition's index. */
static size_t two_in_one_partition(const leaseq_partitioned *p, char a[32], char b[32]) {
    size_t first = P;
    for (int i = 0; i < 64; i++) {
        char id[32];
        size_t at = P;
        snprintf(id, sizeof id, "t-%d", i);
        leaseq_item *it = item(id);
        CHECK_OK(leaseq_partitioned_partition_of(p, it, NULL, &at));
        leaseq_item_free(it);
        if (first == P) {
            first = at;
            snprintf(a, 32, "%s", id);
        } else if (at == first) {
            snprintf(b, 32, "%s", id);
            return at;
        }
    }
    CHECK(!"no two of 64 ids share a partition");
    return P;
}

static void a_full_partition_and_a_failure_with_its_trace(void) {
    leaseq_partitioned *p = fresh("room");
    REQUIRE(p != NULL);
    char a[32], b[32];
    size_t at = two_in_one_partition(p, a, b);
    REQUIRE(at < P);
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_CAPACITY;
    config.capacity = 1;
    CHECK_OK(leaseq_partitioned_set_config(p, &config));
    leaseq_item *first = item(a), *second = item(b);
    bool added = false;
    CHECK_OK(leaseq_partitioned_add_with_timeout(p, first, NULL, 0, &added));
    CHECK(added);
    /* Its partition is full: refused at once with timeout 0, and after a short wait. */
    CHECK(leaseq_partitioned_add_with_timeout(p, second, NULL, 0, &added) == LEASEQ_FULL);
    size_t n = 99;
    const leaseq_item *batch[] = {second};
    CHECK(leaseq_partitioned_add_batch_with_timeout(p, batch, NULL, 1, 50, &n) == LEASEQ_FULL);
    CHECK(count_in(p, LEASEQ_STATE_WAITING) == 1);

    /* A lease makes room; the failure keeps its trace, read back through the logical queue. */
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_partitioned_lease(p, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    CHECK_OK(leaseq_partitioned_add_batch_with_timeout(p, batch, NULL, 1, 1000, &n));
    CHECK(n == 1);
    leaseq_fail_outcome outcome = -1;
    leaseq_renew_outcome not_held = -1;
    int64_t retry_in = 0;
    CHECK_OK(leaseq_partitioned_fail_with_trace(p, lease, "broken", "Broken", "at line 7",
                                                LEASEQ_RETRY_NEVER, 0, &outcome, &not_held,
                                                &retry_in));
    CHECK(outcome == LEASEQ_FAIL_DEAD);
    leaseq_job *job = NULL;
    const char *trace = NULL;
    CHECK_OK(leaseq_partitioned_get(p, a, &job));
    REQUIRE(job != NULL);
    CHECK_OK(leaseq_job_trace(job, &trace));
    CHECK(trace != NULL && strcmp(trace, "at line 7") == 0);
    leaseq_job_free(job);
    leaseq_lease_free(lease);
    leaseq_item_free(first);
    leaseq_item_free(second);
    leaseq_partitioned_free(p);
}

/* ---- reads ------------------------------------------------------------------------------- */

static void get_and_cancel_find_the_item(void) {
    leaseq_partitioned *p = fresh("get");
    REQUIRE(p != NULL);
    /* grouped items need not be in their id's partition: get and cancel look everywhere */
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.set = LEASEQ_ADD_GROUP;
    char group[32], id[32];
    size_t away = SIZE_MAX;
    for (int g = 0; g < 50 && away == SIZE_MAX; g++) {
        snprintf(group, sizeof group, "grp-%d", g);
        options.group = group;
        leaseq_item *plain_item = item("wanted");
        size_t by_id = SIZE_MAX, by_group = SIZE_MAX;
        CHECK_OK(leaseq_partitioned_partition_of(p, plain_item, NULL, &by_id));
        CHECK_OK(leaseq_partitioned_partition_of(p, plain_item, &options, &by_group));
        if (by_id != by_group) away = by_group;
        leaseq_item_free(plain_item);
    }
    REQUIRE(away != SIZE_MAX);
    leaseq_item *it = item("wanted");
    bool added = false;
    CHECK_OK(leaseq_partitioned_add_with_options(p, it, &options, &added));
    CHECK(added);
    leaseq_item_free(it);
    for (int i = 0; i < 5; i++) {
        snprintf(id, sizeof id, "other-%d", i);
        leaseq_item *o = item(id);
        CHECK_OK(leaseq_partitioned_add(p, o, &added));
        leaseq_item_free(o);
    }
    leaseq_job *job = NULL;
    CHECK_OK(leaseq_partitioned_get(p, "wanted", &job));
    REQUIRE(job != NULL);
    leaseq_state state = LEASEQ_STATE_NONE;
    const char *job_group = NULL;
    CHECK_OK(leaseq_job_state(job, &state));
    CHECK(state == LEASEQ_STATE_WAITING);
    CHECK_OK(leaseq_job_group(job, &job_group));
    CHECK(job_group != NULL && strcmp(job_group, group) == 0);
    /* It says where it was found: its group's partition, not its id's. */
    int32_t partition = -2;
    CHECK_OK(leaseq_job_partition(job, &partition));
    CHECK(partition >= 0 && (size_t)partition == away);
    leaseq_job_free(job);
    /* Read from that partition itself (a plain queue): no partition. */
    leaseq_queue *home = NULL;
    CHECK_OK(leaseq_partitioned_partition(p, away, &home));
    CHECK_OK(leaseq_queue_get(home, "wanted", &job));
    REQUIRE(job != NULL);
    CHECK_OK(leaseq_job_partition(job, &partition));
    CHECK(partition == -1);
    CHECK(leaseq_job_partition(job, NULL) == LEASEQ_NULL_ARGUMENT);
    leaseq_job_free(job);
    leaseq_queue_free(home);
    job = (leaseq_job *)&job;
    CHECK_OK(leaseq_partitioned_get(p, "nobody", &job));
    CHECK(job == NULL);

    leaseq_state previous = LEASEQ_STATE_NONE;
    CHECK_OK(leaseq_partitioned_cancel(p, "wanted", &previous));
    CHECK(previous == LEASEQ_STATE_WAITING);
    CHECK_OK(leaseq_partitioned_get(p, "wanted", &job));
    CHECK(job == NULL);
    CHECK_OK(leaseq_partitioned_cancel(p, "wanted", &previous));
    CHECK(previous == LEASEQ_STATE_NONE);
    CHECK(count_in(p, LEASEQ_STATE_WAITING) == 5);
    leaseq_partitioned_free(p);
}

static void stats_pause_and_config(void) {
    leaseq_partitioned *p = fresh("stats");
    REQUIRE(p != NULL);
    char id[32];
    for (int i = 0; i < 9; i++) {
        snprintf(id, sizeof id, "s-%d", i);
        leaseq_item *it = item(id);
        bool added = false;
        CHECK_OK(leaseq_partitioned_add(p, it, &added));
        leaseq_item_free(it);
    }
    uint64_t each[P];
    CHECK(waiting(p, each) == 9);
    CHECK(each[0] + each[1] + each[2] == 9);

    bool was = false;
    CHECK_OK(leaseq_partitioned_pause(p, &was));
    CHECK(was);
    leaseq_stats_by_partition *stats = NULL;
    const leaseq_stats *total = NULL;
    bool paused = false;
    CHECK_OK(leaseq_partitioned_stats(p, &stats));
    CHECK_OK(leaseq_stats_by_partition_total(stats, &total));
    CHECK_OK(leaseq_stats_paused(total, &paused));
    CHECK(paused);
    leaseq_stats_by_partition_free(stats);
    leaseq_lease *lease = (leaseq_lease *)&lease;
    CHECK_OK(leaseq_partitioned_lease(p, 30000, 0, &lease));
    CHECK(lease == NULL); /* nothing is leased from a paused queue */
    CHECK_OK(leaseq_partitioned_resume(p, &was));
    CHECK(was);
    CHECK_OK(leaseq_partitioned_resume(p, &was));
    CHECK(!was);

    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_MAX_ATTEMPTS;
    config.max_attempts = 7;
    CHECK_OK(leaseq_partitioned_set_config(p, &config));
    for (size_t i = 0; i < P; i++) {
        leaseq_queue *queue = NULL;
        leaseq_config read = LEASEQ_CONFIG_INIT;
        CHECK_OK(leaseq_partitioned_partition(p, i, &queue));
        CHECK_OK(leaseq_queue_config(queue, &read));
        CHECK((read.set & LEASEQ_CONFIG_MAX_ATTEMPTS) && read.max_attempts == 7);
        leaseq_queue_free(queue);
    }
    leaseq_partitioned_free(p);
}

/* ---- calls by id, holds and settings over the logical queue ------------------------------- */

/* A group (written to `group`, set in `options`) that takes item `id` to another partition than
 * its id's; that partition, or P (and a failed check) when none of 50 groups does. */
static size_t a_group_away_from(const leaseq_partitioned *p, const char *id, char group[32],
                                leaseq_add_options *options) {
    leaseq_item *it = item(id);
    size_t by_id = P, away = P;
    *options = (leaseq_add_options)LEASEQ_ADD_OPTIONS_INIT;
    options->set = LEASEQ_ADD_GROUP;
    options->group = group;
    CHECK_OK(leaseq_partitioned_partition_of(p, it, NULL, &by_id));
    for (int g = 0; g < 50 && away == P; g++) {
        size_t by_group = P;
        snprintf(group, 32, "grp-%d", g);
        CHECK_OK(leaseq_partitioned_partition_of(p, it, options, &by_group));
        if (by_group < P && by_group != by_id) away = by_group;
    }
    leaseq_item_free(it);
    CHECK(away < P);
    return away;
}

/* Leases every waiting item of `p` and fails it for good; returns how many. */
static int fail_all_for_good(const leaseq_partitioned *p) {
    int n = 0;
    for (;;) {
        leaseq_lease *lease = NULL;
        leaseq_fail_outcome outcome = -1;
        leaseq_renew_outcome not_held = -1;
        int64_t retry_in = 0;
        CHECK_OK(leaseq_partitioned_lease(p, 30000, 0, &lease));
        if (lease == NULL) return n;
        CHECK_OK(leaseq_partitioned_fail(p, lease, "broken", "", LEASEQ_RETRY_NEVER, 0, &outcome,
                                         &not_held, &retry_in));
        CHECK(outcome == LEASEQ_FAIL_DEAD);
        leaseq_lease_free(lease);
        n++;
    }
}

static void promote_finds_a_delayed_item_in_its_groups_partition(void) {
    leaseq_partitioned *p = fresh("promote");
    REQUIRE(p != NULL);
    char group[32];
    leaseq_add_options options;
    REQUIRE(a_group_away_from(p, "late", group, &options) < P);
    options.set |= LEASEQ_ADD_DELAY;
    options.delay_ms = 3600000;
    leaseq_item *it = item("late");
    bool added = false;
    CHECK_OK(leaseq_partitioned_add_with_options(p, it, &options, &added));
    CHECK(added);
    leaseq_item_free(it);
    CHECK(count_in(p, LEASEQ_STATE_DELAYED) == 1);
    /* the id's own partition does not have it: promote finds it in the group's */
    bool promoted = false;
    CHECK_OK(leaseq_partitioned_promote(p, "late", &promoted));
    CHECK(promoted);
    CHECK(count_in(p, LEASEQ_STATE_DELAYED) == 0 && count_in(p, LEASEQ_STATE_WAITING) == 1);
    CHECK_OK(leaseq_partitioned_promote(p, "late", &promoted));
    CHECK(!promoted); /* waiting now, delayed nowhere */
    CHECK_OK(leaseq_partitioned_promote(p, "nobody", &promoted));
    CHECK(!promoted);
    CHECK_OK(leaseq_partitioned_promote(p, "nobody", NULL)); /* as the queue's: out is optional */
    promoted = true;
    CHECK_NULL_ARG(leaseq_partitioned_promote(NULL, "late", &promoted), "partitioned");
    CHECK(!promoted);
    CHECK_NULL_ARG(leaseq_partitioned_promote(p, NULL, &promoted), "id");
    CHECK_INVALID_ARG(leaseq_partitioned_promote(p, "", &promoted), "id");
    leaseq_partitioned_free(p);
}

static void dependencies_are_read_where_the_dependant_is(void) {
    leaseq_partitioned *p = fresh("deps");
    REQUIRE(p != NULL);
    /* a child whose id routes elsewhere than the parent's: the parent goes to the child's */
    leaseq_item *parent = item("parent");
    size_t parent_home = P, child_home = P;
    char child[32] = "";
    CHECK_OK(leaseq_partitioned_partition_of(p, parent, NULL, &parent_home));
    for (int i = 0; i < 64 && (child_home == P || child_home == parent_home); i++) {
        snprintf(child, sizeof child, "child-%d", i);
        leaseq_item *c = item(child);
        CHECK_OK(leaseq_partitioned_partition_of(p, c, NULL, &child_home));
        leaseq_item_free(c);
    }
    REQUIRE(child_home < P && child_home != parent_home);
    leaseq_item *c = item(child);
    bool added = false;
    CHECK_OK(leaseq_partitioned_add(p, c, &added));
    CHECK(added);
    leaseq_item_free(c);
    const char *depends_on[] = {child};
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.set = LEASEQ_ADD_DEPENDS_ON;
    options.depends_on = depends_on;
    options.depends_on_len = 1;
    CHECK_OK(leaseq_partitioned_add_with_options(p, parent, &options, &added));
    CHECK(added);
    leaseq_item_free(parent);
    CHECK(count_in(p, LEASEQ_STATE_BLOCKED) == 1);

    leaseq_dependencies *deps = NULL;
    CHECK_OK(leaseq_partitioned_dependencies(p, "parent", &deps));
    REQUIRE(deps != NULL);
    CHECK(deps->depends_on_len == 1 && strcmp(deps->depends_on[0], child) == 0);
    CHECK(deps->pending_len == 1 && strcmp(deps->pending[0], child) == 0);
    CHECK(deps->on_dependency_failure == LEASEQ_ON_DEPENDENCY_FAILURE_FAIL);
    leaseq_dependencies_free(deps);
    deps = NULL;
    CHECK_OK(leaseq_partitioned_dependencies(p, child, &deps));
    REQUIRE(deps != NULL);
    CHECK(deps->dependants_count == 1 && deps->dependants_len == 1 &&
          strcmp(deps->dependants[0], "parent") == 0);
    CHECK(deps->depends_on_len == 0 && deps->depends_on == NULL);
    leaseq_dependencies_free(deps);
    deps = NULL;
    CHECK_OK(leaseq_partitioned_dependencies(p, "nobody", &deps)); /* known nowhere: empty */
    REQUIRE(deps != NULL);
    CHECK(deps->depends_on_len == 0 && deps->pending_len == 0 && deps->dependants_count == 0);
    leaseq_dependencies_free(deps);

    /* the child completes with a result: the parent reads it, and is waiting */
    leaseq_lease *lease = NULL;
    bool completed = false;
    CHECK_OK(leaseq_partitioned_lease(p, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    CHECK_OK(leaseq_partitioned_complete_with_result(p, lease, (const uint8_t *)"42", 2, -1,
                                                     &completed));
    CHECK(completed);
    leaseq_lease_free(lease);
    leaseq_dependency_results *results = NULL;
    CHECK_OK(leaseq_partitioned_dependency_results(p, "parent", &results));
    REQUIRE(results != NULL);
    REQUIRE(results->results_len == 1);
    CHECK(strcmp(results->results[0].id, child) == 0);
    CHECK(results->results[0].has_result && results->results[0].result_len == 2 &&
          memcmp(results->results[0].result, "42", 2) == 0);
    leaseq_dependency_results_free(results);
    results = NULL;
    CHECK_OK(leaseq_partitioned_dependency_results(p, "nobody", &results));
    REQUIRE(results != NULL);
    CHECK(results->results_len == 0 && results->results == NULL);
    leaseq_dependency_results_free(results);
    CHECK(count_in(p, LEASEQ_STATE_WAITING) == 1 && count_in(p, LEASEQ_STATE_BLOCKED) == 0);

    deps = (leaseq_dependencies *)&deps;
    CHECK_NULL_ARG(leaseq_partitioned_dependencies(NULL, "parent", &deps), "partitioned");
    CHECK(deps == NULL);
    CHECK_NULL_ARG(leaseq_partitioned_dependencies(p, NULL, &deps), "id");
    CHECK_NULL_ARG(leaseq_partitioned_dependencies(p, "parent", NULL), "out_dependencies");
    CHECK_INVALID_ARG(leaseq_partitioned_dependencies(p, "", &deps), "id");
    results = (leaseq_dependency_results *)&results;
    CHECK_NULL_ARG(leaseq_partitioned_dependency_results(NULL, "parent", &results),
                   "partitioned");
    CHECK(results == NULL);
    CHECK_NULL_ARG(leaseq_partitioned_dependency_results(p, "parent", NULL), "out_results");
    CHECK_INVALID_ARG(leaseq_partitioned_dependency_results(p, "", &results), "id");
    leaseq_partitioned_free(p);
}

static void dead_letters_are_requeued_by_id_where_they_are(void) {
    leaseq_partitioned *p = fresh("dead-ids");
    REQUIRE(p != NULL);
    char group[32];
    leaseq_add_options options;
    REQUIRE(a_group_away_from(p, "away", group, &options) < P);
    leaseq_item *away = item("away"), *home = item("home");
    bool added = false;
    CHECK_OK(leaseq_partitioned_add_with_options(p, away, &options, &added));
    CHECK(added);
    CHECK_OK(leaseq_partitioned_add(p, home, &added));
    CHECK(added);
    leaseq_item_free(away);
    leaseq_item_free(home);
    CHECK(fail_all_for_good(p) == 2);
    CHECK(count_in(p, LEASEQ_STATE_DEAD) == 2);

    /* each id where it is dead; a repeated id is false the second time, an unknown one false */
    const char *ids[] = {"away", "home", "away", "nobody"};
    bool requeued[4] = {false, false, true, true};
    CHECK_OK(leaseq_partitioned_dead_requeue_each(p, ids, 4, requeued));
    CHECK(requeued[0] && requeued[1] && !requeued[2] && !requeued[3]);
    CHECK(count_in(p, LEASEQ_STATE_DEAD) == 0 && count_in(p, LEASEQ_STATE_WAITING) == 2);
    CHECK_OK(leaseq_partitioned_dead_requeue_each(p, NULL, 0, NULL));

    /* dead again: requeued by id, counted */
    CHECK(fail_all_for_good(p) == 2);
    uint64_t n = 0;
    CHECK_OK(leaseq_partitioned_dead_requeue(p, ids, 4, &n));
    CHECK(n == 2);
    CHECK(count_in(p, LEASEQ_STATE_DEAD) == 0 && count_in(p, LEASEQ_STATE_WAITING) == 2);
    CHECK_OK(leaseq_partitioned_dead_requeue(p, NULL, 0, &n));
    CHECK(n == 0);

    /* refusals name the argument and requeue nothing */
    CHECK(fail_all_for_good(p) == 2);
    const char *with_null[] = {"away", NULL};
    requeued[0] = true;
    n = 9;
    CHECK_NULL_ARG(leaseq_partitioned_dead_requeue_each(p, with_null, 2, requeued), "ids[1]");
    CHECK(!requeued[0] && !requeued[1]); /* on failure every element is false */
    CHECK_NULL_ARG(leaseq_partitioned_dead_requeue(p, with_null, 2, &n), "ids[1]");
    CHECK(n == 0);
    CHECK_NULL_ARG(leaseq_partitioned_dead_requeue(p, NULL, 2, &n), "ids");
    CHECK_NULL_ARG(leaseq_partitioned_dead_requeue(p, ids, 2, NULL), "out_requeued");
    CHECK_NULL_ARG(leaseq_partitioned_dead_requeue_each(p, ids, 2, NULL), "out_requeued");
    CHECK_NULL_ARG(leaseq_partitioned_dead_requeue_each(NULL, ids, 2, requeued), "partitioned");
    const char *empty[] = {"away", ""};
    CHECK_INVALID_ARG(leaseq_partitioned_dead_requeue(p, empty, 2, &n), "id");
    CHECK(count_in(p, LEASEQ_STATE_DEAD) == 2);
    leaseq_partitioned_free(p);
}

/* How long partition `i` of `p` holds leases off (-1: not held). */
static int64_t partition_held_for_ms(const leaseq_partitioned *p, size_t i) {
    leaseq_queue *queue = NULL;
    leaseq_stats *stats = NULL;
    int64_t ms = -2;
    CHECK_OK(leaseq_partitioned_partition(p, i, &queue));
    if (queue == NULL) return ms;
    CHECK_OK(leaseq_queue_stats(queue, &stats));
    if (stats != NULL) CHECK_OK(leaseq_stats_rate_limited_for_ms(stats, &ms));
    leaseq_stats_free(stats);
    leaseq_queue_free(queue);
    return ms;
}

static void rate_limit_holds_every_partition(void) {
    leaseq_partitioned *p = fresh("hold");
    REQUIRE(p != NULL);
    char id[32];
    for (int i = 0; i < 9; i++) {
        snprintf(id, sizeof id, "h-%d", i);
        leaseq_item *it = item(id);
        bool added = false;
        CHECK_OK(leaseq_partitioned_add(p, it, &added));
        leaseq_item_free(it);
    }
    uint64_t each[P];
    CHECK(waiting(p, each) == 9);
    /* refused before anything is sent: 0 names `duration`, below zero `duration_ms` */
    int64_t held = -1;
    CHECK_INVALID_ARG(leaseq_partitioned_rate_limit(p, 0, &held), "duration_ms");
    CHECK(held == 0);
    CHECK_INVALID_ARG(leaseq_partitioned_rate_limit(p, -5, &held), "duration_ms");
    CHECK_INVALID_ARG(leaseq_partitioned_rate_limit(p, 2 * 86400000LL, &held), "duration_ms");
    for (size_t i = 0; i < P; i++) CHECK(partition_held_for_ms(p, i) == -1);
    CHECK_NULL_ARG(leaseq_partitioned_rate_limit(NULL, 1000, &held), "partitioned");
    CHECK_NULL_ARG(leaseq_partitioned_rate_limit(p, 1000, NULL), "out_held_ms");

    CHECK_OK(leaseq_partitioned_rate_limit(p, 60000, &held));
    CHECK(held >= 60000);
    CHECK_OK(leaseq_partitioned_rate_limit(p, 10, &held));
    CHECK(held > 50000); /* a longer hold is kept */
    for (size_t i = 0; i < P; i++) CHECK(partition_held_for_ms(p, i) > 50000);
    leaseq_stats_by_partition *stats = NULL;
    const leaseq_stats *total = NULL;
    int64_t total_ms = -2;
    CHECK_OK(leaseq_partitioned_stats(p, &stats));
    CHECK_OK(leaseq_stats_by_partition_total(stats, &total));
    CHECK_OK(leaseq_stats_rate_limited_for_ms(total, &total_ms));
    CHECK(total_ms > 50000);
    leaseq_stats_by_partition_free(stats);
    leaseq_lease *lease = (leaseq_lease *)&lease;
    CHECK_OK(leaseq_partitioned_lease(p, 30000, 0, &lease));
    CHECK(lease == NULL); /* no partition hands out an item */
    CHECK(count_in(p, LEASEQ_STATE_WAITING) == 9);
    leaseq_partitioned_free(p);
}

static void is_paused_and_reset_config_over_every_partition(void) {
    leaseq_partitioned *p = fresh("paused");
    REQUIRE(p != NULL);
    bool paused = true, was = false;
    CHECK_OK(leaseq_partitioned_is_paused(p, &paused));
    CHECK(!paused);
    /* one partition paused is not the logical queue paused */
    leaseq_queue *first = NULL;
    CHECK_OK(leaseq_partitioned_partition(p, 0, &first));
    REQUIRE(first != NULL);
    CHECK_OK(leaseq_queue_pause(first, &was));
    CHECK_OK(leaseq_partitioned_is_paused(p, &paused));
    CHECK(!paused);
    CHECK_OK(leaseq_partitioned_pause(p, &was));
    CHECK(was);
    CHECK_OK(leaseq_partitioned_is_paused(p, &paused));
    CHECK(paused);
    CHECK_OK(leaseq_queue_resume(first, &was));
    CHECK(was);
    CHECK_OK(leaseq_partitioned_is_paused(p, &paused));
    CHECK(!paused);
    CHECK_OK(leaseq_partitioned_resume(p, &was));
    CHECK_OK(leaseq_partitioned_is_paused(p, &paused));
    CHECK(!paused);
    leaseq_queue_free(first);
    CHECK_NULL_ARG(leaseq_partitioned_is_paused(NULL, &paused), "partitioned");
    CHECK_NULL_ARG(leaseq_partitioned_is_paused(p, NULL), "out_paused");

    /* reset_config removes every partition's stored configuration */
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_MAX_ATTEMPTS | LEASEQ_CONFIG_CAPACITY;
    config.max_attempts = 7;
    config.capacity = 100;
    CHECK_OK(leaseq_partitioned_set_config(p, &config));
    CHECK_OK(leaseq_partitioned_reset_config(p));
    for (size_t i = 0; i < P; i++) {
        leaseq_queue *queue = NULL;
        leaseq_config read = LEASEQ_CONFIG_INIT;
        read.set = UINT32_MAX;
        CHECK_OK(leaseq_partitioned_partition(p, i, &queue));
        CHECK_OK(leaseq_queue_config(queue, &read));
        CHECK(read.set == 0);
        leaseq_queue_free(queue);
    }
    CHECK_OK(leaseq_partitioned_reset_config(p)); /* nothing stored: still fine */
    CHECK_NULL_ARG(leaseq_partitioned_reset_config(NULL), "partitioned");
    leaseq_partitioned_free(p);
}

/* ---- figures, configuration and cleans of the logical queue ------------------------------ */

/* One id per partition: `ids[i]` (`<stem>-<n>`) routes to partition i; false (and a failed
 * check) when 64 tries leave a partition without one. */
static bool one_id_per_partition(const leaseq_partitioned *p, const char *stem,
                                 char ids[P][32]) {
    size_t found = 0;
    for (size_t i = 0; i < P; i++) ids[i][0] = '\0';
    for (int n = 0; n < 64 && found < P; n++) {
        char id[32];
        size_t at = P;
        snprintf(id, sizeof id, "%s-%d", stem, n);
        leaseq_item *it = item(id);
        CHECK_OK(leaseq_partitioned_partition_of(p, it, NULL, &at));
        leaseq_item_free(it);
        if (at < P && ids[at][0] == '\0') {
            snprintf(ids[at], 32, "%s", id);
            found++;
        }
    }
    CHECK(found == P);
    return found == P;
}

static void exists_config_lengths_and_add_unique(void) {
    leaseq_partitioned *p = fresh("figures");
    REQUIRE(p != NULL);
    bool exists = true;
    CHECK_OK(leaseq_partitioned_exists(p, &exists));
    CHECK(!exists); /* created, never used: the layout under the base is all there is */
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_CAPACITY;
    config.capacity = 100;
    CHECK_OK(leaseq_partitioned_set_config(p, &config));
    CHECK_OK(leaseq_partitioned_exists(p, &exists));
    CHECK(exists);
    leaseq_config read = LEASEQ_CONFIG_INIT;
    CHECK_OK(leaseq_partitioned_config(p, &read));
    CHECK(read.set == LEASEQ_CONFIG_CAPACITY && read.capacity == 100);
    /* partition 0's: a setting of another partition alone is not the logical queue's */
    leaseq_queue *second = NULL;
    CHECK_OK(leaseq_partitioned_partition(p, 1, &second));
    REQUIRE(second != NULL);
    config.set = LEASEQ_CONFIG_MAX_ATTEMPTS;
    config.max_attempts = 9;
    CHECK_OK(leaseq_queue_set_config(second, &config));
    leaseq_queue_free(second);
    read = (leaseq_config)LEASEQ_CONFIG_INIT;
    CHECK_OK(leaseq_partitioned_config(p, &read));
    CHECK(read.set == LEASEQ_CONFIG_CAPACITY && read.max_attempts == 0);

    /* add_unique routes each item as add does: two in every partition */
    char ids[P][32], more[P][32];
    REQUIRE(one_id_per_partition(p, "u", ids) && one_id_per_partition(p, "v", more));
    for (size_t i = 0; i < P; i++) {
        leaseq_item *a = item(ids[i]), *b = item(more[i]);
        CHECK_OK(leaseq_partitioned_add_unique(p, a));
        CHECK_OK(leaseq_partitioned_add_unique(p, b));
        leaseq_item_free(a);
        leaseq_item_free(b);
    }
    uint64_t each[P];
    CHECK(waiting(p, each) == 2 * P);
    for (size_t i = 0; i < P; i++) CHECK(each[i] == 2);
    uint64_t len = 99, processing = 99;
    CHECK_OK(leaseq_partitioned_queue_len(p, &len));
    CHECK(len == 2 * P);
    CHECK_OK(leaseq_partitioned_processing_len(p, &processing));
    CHECK(processing == 0);

    /* leased items are processed, counted over every partition */
    leaseq_lease_options options = LEASEQ_LEASE_OPTIONS_INIT;
    options.set = LEASEQ_LEASE_TTL;
    options.ttl_ms = 30000;
    leaseq_lease **leases = NULL;
    size_t leased = 0;
    CHECK_OK(leaseq_partitioned_lease_batch(p, 2 * P - 1, &options, &leases, &leased));
    CHECK(leased == 2 * P - 1);
    CHECK_OK(leaseq_partitioned_processing_len(p, &processing));
    CHECK(processing == leased);
    CHECK_OK(leaseq_partitioned_queue_len(p, &len));
    CHECK(len == 2 * P - leased);
    for (size_t i = 0; i < leased; i++) {
        bool completed = false;
        CHECK_OK(leaseq_partitioned_complete(p, leases[i], &completed));
        CHECK(completed);
    }
    leaseq_lease_array_free(leases, leased);
    CHECK_OK(leaseq_partitioned_processing_len(p, &processing));
    CHECK(processing == 0);

    /* refusals name the argument; the outputs are cleared */
    leaseq_item *it = item("refused");
    CHECK_NULL_ARG(leaseq_partitioned_add_unique(NULL, it), "partitioned");
    CHECK_NULL_ARG(leaseq_partitioned_add_unique(p, NULL), "item");
    leaseq_item_free(it);
    exists = true;
    CHECK_NULL_ARG(leaseq_partitioned_exists(NULL, &exists), "partitioned");
    CHECK(!exists);
    CHECK_NULL_ARG(leaseq_partitioned_exists(p, NULL), "out_exists");
    len = 99;
    CHECK_NULL_ARG(leaseq_partitioned_queue_len(NULL, &len), "partitioned");
    CHECK(len == 0);
    CHECK_NULL_ARG(leaseq_partitioned_queue_len(p, NULL), "out_len");
    processing = 99;
    CHECK_NULL_ARG(leaseq_partitioned_processing_len(NULL, &processing), "partitioned");
    CHECK(processing == 0);
    CHECK_NULL_ARG(leaseq_partitioned_processing_len(p, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_partitioned_config(NULL, &read), "partitioned");
    CHECK_NULL_ARG(leaseq_partitioned_config(p, NULL), "out_config");
    leaseq_config bad = LEASEQ_CONFIG_INIT;
    bad.struct_size = 4;
    CHECK_INVALID_ARG(leaseq_partitioned_config(p, &bad), "out_config.struct_size");
    leaseq_partitioned_free(p);
}

/* Adds item `id` named `name` to `p`. */
static void add_named(const leaseq_partitioned *p, const char *id, const char *name) {
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.set = LEASEQ_ADD_NAME;
    options.name = name;
    leaseq_item *it = item(id);
    bool added = false;
    CHECK_OK(leaseq_partitioned_add_with_options(p, it, &options, &added));
    CHECK(added);
    leaseq_item_free(it);
}

/* The entry of `name` in `counts`, or NULL. */
static const leaseq_name_count *count_of(const leaseq_name_counts *counts, const char *name) {
    const leaseq_name_count *entries = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_name_counts_entries(counts, &entries, &len));
    for (size_t i = 0; i < len; i++)
        if (strcmp(entries[i].name, name) == 0) return &entries[i];
    return NULL;
}

static void counts_by_name_sum_the_partitions(void) {
    leaseq_partitioned *p = fresh("names");
    REQUIRE(p != NULL);
    leaseq_name_counts *counts = (leaseq_name_counts *)&counts; /* anything but NULL */
    CHECK_OK(leaseq_partitioned_counts_by_name(p, &counts));
    CHECK(counts == NULL); /* no partition counts */
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_STATS;
    config.stats = true;
    CHECK_OK(leaseq_partitioned_set_config(p, &config));
    CHECK_OK(leaseq_partitioned_counts_by_name(p, &counts));
    REQUIRE(counts != NULL);
    const leaseq_name_count *entries = (const leaseq_name_count *)&entries;
    size_t len = 99;
    CHECK_OK(leaseq_name_counts_entries(counts, &entries, &len));
    CHECK(entries == NULL && len == 0); /* counting, nothing finished yet */
    leaseq_name_counts_free(counts);

    /* "email" completed in every partition, "resize" dead in one */
    char ids[P][32];
    REQUIRE(one_id_per_partition(p, "email", ids));
    for (size_t i = 0; i < P; i++) add_named(p, ids[i], "email");
    add_named(p, "resize-0", "resize");
    for (;;) {
        leaseq_lease *lease = NULL;
        const char *name = NULL;
        CHECK_OK(leaseq_partitioned_lease(p, 30000, 0, &lease));
        if (lease == NULL) break;
        CHECK_OK(leaseq_lease_name(lease, &name));
        if (name != NULL && strcmp(name, "resize") == 0) {
            leaseq_fail_outcome outcome = -1;
            leaseq_renew_outcome not_held = -1;
            int64_t retry_in = 0;
            CHECK_OK(leaseq_partitioned_fail(p, lease, "broken", "", LEASEQ_RETRY_NEVER, 0,
                                             &outcome, &not_held, &retry_in));
            CHECK(outcome == LEASEQ_FAIL_DEAD);
        } else {
            bool completed = false;
            CHECK_OK(leaseq_partitioned_complete(p, lease, &completed));
            CHECK(completed);
        }
        leaseq_lease_free(lease);
    }
    CHECK(count_in(p, LEASEQ_STATE_WAITING) == 0 && count_in(p, LEASEQ_STATE_DEAD) == 1);
    counts = NULL;
    CHECK_OK(leaseq_partitioned_counts_by_name(p, &counts));
    REQUIRE(counts != NULL);
    CHECK_OK(leaseq_name_counts_entries(counts, &entries, &len));
    CHECK(len == 2);
    const leaseq_name_count *email = count_of(counts, "email"), *resize = count_of(counts, "resize");
    REQUIRE(email != NULL && resize != NULL);
    CHECK(email->completed == P && email->failed == 0 && email->dead == 0);
    CHECK(resize->completed == 0 && resize->failed == 1 && resize->dead == 1);
    leaseq_name_counts_free(counts);

    CHECK_NULL_ARG(leaseq_partitioned_counts_by_name(p, NULL), "out_counts");
    counts = (leaseq_name_counts *)&counts;
    CHECK_NULL_ARG(leaseq_partitioned_counts_by_name(NULL, &counts), "partitioned");
    CHECK(counts == NULL);
    leaseq_partitioned_free(p);
}

static void cleans_reach_every_partition(void) {
    leaseq_partitioned *p = fresh("clean");
    REQUIRE(p != NULL);
    leaseq_clean_report report = {99, 99, 99, 99};
    CHECK_OK(leaseq_partitioned_light_clean(p, &report));
    CHECK(report.requeued == 0 && report.removed == 0);
    report = (leaseq_clean_report){99, 99, 99, 99};
    CHECK_OK(leaseq_partitioned_deep_clean(p, &report));
    CHECK(report.requeued == 0 && report.removed == 0);

    /* a delayed item in every partition, due before the light clean, which promotes them all */
    char ids[P][32];
    REQUIRE(one_id_per_partition(p, "later", ids));
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.set = LEASEQ_ADD_DELAY;
    options.delay_ms = 500;
    for (size_t i = 0; i < P; i++) {
        leaseq_item *it = item(ids[i]);
        bool added = false;
        CHECK_OK(leaseq_partitioned_add_with_options(p, it, &options, &added));
        CHECK(added);
        leaseq_item_free(it);
    }
    CHECK(count_in(p, LEASEQ_STATE_DELAYED) == P);
    sleep_ms(700);
    CHECK_OK(leaseq_partitioned_light_clean(p, &report));
    CHECK(report.promoted == P && report.dead == 0);
    CHECK(count_in(p, LEASEQ_STATE_DELAYED) == 0);
    uint64_t each[P];
    CHECK(waiting(p, each) == P);
    for (size_t i = 0; i < P; i++) CHECK(each[i] == 1);

    /* a lease left to lapse in every partition: the deep clean requeues them all */
    leaseq_lease_options lapse = LEASEQ_LEASE_OPTIONS_INIT;
    lapse.set = LEASEQ_LEASE_TTL;
    lapse.ttl_ms = 1;
    leaseq_lease **leases = NULL;
    size_t leased = 0;
    CHECK_OK(leaseq_partitioned_lease_batch(p, P, &lapse, &leases, &leased));
    CHECK(leased == P);
    leaseq_lease_array_free(leases, leased);
    sleep_ms(50);
    report = (leaseq_clean_report){99, 99, 99, 99};
    CHECK_OK(leaseq_partitioned_deep_clean(p, &report));
    CHECK(report.requeued == leased);
    CHECK(count_in(p, LEASEQ_STATE_LEASED) == 0 && count_in(p, LEASEQ_STATE_WAITING) == P);
    CHECK_OK(leaseq_partitioned_light_clean(p, &report));
    CHECK(report.requeued == 0 && report.removed == 0);

    report = (leaseq_clean_report){99, 99, 99, 99};
    CHECK_NULL_ARG(leaseq_partitioned_light_clean(NULL, &report), "partitioned");
    CHECK(report.requeued == 0 && report.removed == 0 && report.promoted == 0 && report.dead == 0);
    CHECK_NULL_ARG(leaseq_partitioned_light_clean(p, NULL), "out_report");
    report = (leaseq_clean_report){99, 99, 99, 99};
    CHECK_NULL_ARG(leaseq_partitioned_deep_clean(NULL, &report), "partitioned");
    CHECK(report.requeued == 0 && report.removed == 0);
    CHECK_NULL_ARG(leaseq_partitioned_deep_clean(p, NULL), "out_report");
    leaseq_partitioned_free(p);
}

static void find_searches_one_partition_and_next_walks_them_all(void) {
    leaseq_partitioned *p = fresh("find");
    REQUIRE(p != NULL);
    /* four items in each partition, every other one named "mail" */
    const char *stems[4] = {"fa", "fb", "fc", "fd"};
    char ids[4][P][32], mail[2 * P][32];
    size_t mails = 0;
    for (size_t k = 0; k < 4; k++) REQUIRE(one_id_per_partition(p, stems[k], ids[k]));
    for (size_t i = 0; i < P; i++) {
        for (size_t k = 0; k < 4; k++) {
            add_named(p, ids[k][i], k % 2 == 0 ? "mail" : "other");
            if (k % 2 == 0) snprintf(mail[mails++], 32, "%s", ids[k][i]);
        }
    }
    CHECK(count_in(p, LEASEQ_STATE_WAITING) == 4 * P);

    /* follow next from 0, two matches at most a call: every "mail" id, each once */
    char got[4 * P][32];
    size_t n = 0, calls = 0;
    int64_t next = 0;
    while (next != -1 && calls++ < 50) {
        leaseq_entry_list *list = NULL;
        size_t len = 0;
        CHECK_OK(leaseq_partitioned_find(p, LEASEQ_STATE_WAITING, "mail", NULL, (size_t)next, 2,
                                         &list, &next, NULL));
        REQUIRE(list != NULL);
        CHECK_OK(leaseq_entry_list_len(list, &len));
        CHECK(len <= 2);
        for (size_t j = 0; j < len && n < 4 * P; j++) {
            const leaseq_entry *entry = NULL;
            const char *id = NULL, *name = NULL;
            CHECK_OK(leaseq_entry_list_get(list, j, &entry));
            REQUIRE(entry != NULL);
            CHECK_OK(leaseq_entry_id(entry, &id));
            CHECK_OK(leaseq_entry_name(entry, &name));
            CHECK(name != NULL && strcmp(name, "mail") == 0);
            snprintf(got[n++], 32, "%s", id);
        }
        leaseq_entry_list_free(list);
    }
    CHECK(next == -1);
    CHECK(n == mails);
    for (size_t i = 0; i < mails; i++) {
        size_t seen = 0;
        for (size_t j = 0; j < n; j++)
            if (strcmp(mail[i], got[j]) == 0) seen++;
        CHECK(seen == 1);
    }

    /* one call searches the partition that holds start: all of partition 0, then 1's first */
    leaseq_entry_list *list = NULL;
    size_t len = 0, examined = 0;
    CHECK_OK(leaseq_partitioned_find(p, LEASEQ_STATE_WAITING, "mail", NULL, 0, 100, &list, &next,
                                     &examined));
    CHECK_OK(leaseq_entry_list_len(list, &len));
    CHECK(len == 2 && next == 4 && examined == 4);
    leaseq_entry_list_free(list);
    CHECK_OK(leaseq_partitioned_find(p, LEASEQ_STATE_WAITING, NULL, NULL, 4 * P, 100, &list, &next,
                                     &examined));
    CHECK_OK(leaseq_entry_list_len(list, &len));
    CHECK(len == 0 && next == -1); /* past the end */
    leaseq_entry_list_free(list);

    /* refusals write nothing */
    list = (leaseq_entry_list *)&list;
    next = 7;
    CHECK_INVALID_ARG(leaseq_partitioned_find(p, LEASEQ_STATE_WAITING, "mail", NULL, 0, 0, &list,
                                              &next, NULL),
                      "count");
    CHECK(list == NULL && next == -1);
    CHECK_INVALID_ARG(leaseq_partitioned_find(p, LEASEQ_STATE_WAITING, "\xff", NULL, 0, 1, &list,
                                              &next, NULL),
                      "name");
    CHECK_NULL_ARG(leaseq_partitioned_find(NULL, LEASEQ_STATE_WAITING, NULL, NULL, 0, 1, &list,
                                           &next, NULL),
                   "partitioned");
    CHECK_NULL_ARG(leaseq_partitioned_find(p, LEASEQ_STATE_WAITING, NULL, NULL, 0, 1, NULL, &next,
                                           NULL),
                   "out_list");
    CHECK_NULL_ARG(leaseq_partitioned_find(p, LEASEQ_STATE_WAITING, NULL, NULL, 0, 1, &list, NULL,
                                           NULL),
                   "out_next");
    leaseq_partitioned_free(p);
}

/* ---- refusals ---------------------------------------------------------------------------- */

static void bad_arguments_are_refused_and_write_nothing(void) {
    char base[300];
    unique_base(base, sizeof base, "refused");
    leaseq_partitioned *p = (leaseq_partitioned *)&p;
    CHECK_INVALID_ARG(leaseq_partitioned_create(cluster, base, 0, &p), "partitions");
    CHECK(p == NULL);
    p = (leaseq_partitioned *)&p;
    CHECK_INVALID_ARG(leaseq_partitioned_create(cluster, base, 65, &p), "partitions");
    CHECK(p == NULL);
    CHECK_INVALID_ARG(leaseq_partitioned_create(cluster, "no-tag", 3, &p), "prefix");
    CHECK_NULL_ARG(leaseq_partitioned_create(NULL, base, 3, &p), "client");
    CHECK_NULL_ARG(leaseq_partitioned_create(cluster, NULL, 3, &p), "base");
    CHECK_NULL_ARG(leaseq_partitioned_create(cluster, base, 3, NULL), "out_partitioned");
    CHECK_NULL_ARG(leaseq_partitioned_open(cluster, NULL, &p), "base");
    /* nothing was stored: the base opens as the plain queue of one partition */
    CHECK_OK(leaseq_partitioned_open(cluster, base, &p));
    REQUIRE(p != NULL);
    size_t partitions = 0;
    CHECK_OK(leaseq_partitioned_partitions(p, &partitions));
    CHECK(partitions == 1);
    leaseq_partitioned_free(p);

    p = fresh("refused-ops");
    REQUIRE(p != NULL);
    leaseq_item *it = item("x");
    bool added = true;
    size_t n = 1;
    CHECK_NULL_ARG(leaseq_partitioned_add(NULL, it, &added), "partitioned");
    CHECK(!added);
    CHECK_NULL_ARG(leaseq_partitioned_add(p, NULL, &added), "item");
    CHECK_NULL_ARG(leaseq_partitioned_add(p, it, NULL), "out_added");
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.set = LEASEQ_ADD_PRIORITY;
    options.priority = 5000;
    CHECK_INVALID_ARG(leaseq_partitioned_add_with_options(p, it, &options, &added), "priority");
    /* partition_of checks the item as an add would */
    size_t at = P;
    CHECK_INVALID_ARG(leaseq_partitioned_partition_of(p, it, &options, &at), "priority");
    leaseq_add_options empty_group = LEASEQ_ADD_OPTIONS_INIT;
    empty_group.set = LEASEQ_ADD_GROUP;
    empty_group.group = "";
    CHECK_INVALID_ARG(leaseq_partitioned_partition_of(p, it, &empty_group, &at), "group");
    const leaseq_item *batch[2] = {it, NULL};
    CHECK_NULL_ARG(leaseq_partitioned_add_batch(p, batch, 2, &n), "items[1]");
    CHECK(n == 0);
    CHECK_NULL_ARG(leaseq_partitioned_add_batch(p, NULL, 2, &n), "items");
    leaseq_add_options bad_delay = LEASEQ_ADD_OPTIONS_INIT;
    bad_delay.set = LEASEQ_ADD_DELAY;
    bad_delay.delay_ms = -5;
    const leaseq_add_options *per_item[2] = {NULL, &bad_delay};
    const leaseq_item *two[2] = {it, it};
    CHECK_INVALID_ARG(leaseq_partitioned_add_batch_with_options(p, two, per_item, 2, &n),
                      "options[1].delay_ms");
    per_item[1] = &options;
    /* as a queue's batch names it: `items`, the item and its argument in the message */
    CHECK_INVALID_ARG(leaseq_partitioned_add_batch_with_options(p, two, per_item, 2, &n),
                      "items");
    CHECK_MESSAGE_HAS("priority");
    CHECK(count_in(p, LEASEQ_STATE_WAITING) == 0); /* nothing was written */

    leaseq_lease **leases = NULL;
    CHECK_INVALID_ARG(leaseq_partitioned_lease_batch(p, 0, NULL, &leases, &n), "n");
    leaseq_lease *lease = NULL;
    CHECK_INVALID_ARG(leaseq_partitioned_lease(p, 0, 0, &lease), "ttl_ms");
    const char *prefix = NULL;
    CHECK_INVALID_ARG(leaseq_partitioned_prefix(p, P, &prefix), "partition");
    CHECK(prefix == NULL);
    leaseq_queue *queue = NULL;
    CHECK_INVALID_ARG(leaseq_partitioned_partition(p, P, &queue), "partition");
    CHECK(queue == NULL);
    uint64_t counted = 1;
    CHECK_INVALID_ARG(leaseq_partitioned_count(p, 99, &counted), "state");
    CHECK_INVALID_ARG(leaseq_partitioned_dead_purge(p, -2, &counted), "n");
    CHECK_NULL_ARG(leaseq_partitioned_set_config(p, NULL), "config");
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_PRIORITY;
    config.priority = 5000;
    CHECK_INVALID_ARG(leaseq_partitioned_set_config(p, &config), "priority");

    /* a lease of another queue is refused, naming it */
    char other[300];
    unique_base(other, sizeof other, "other");
    leaseq_queue *foreign = NULL;
    CHECK_OK(leaseq_client_queue(cluster, other, &foreign));
    REQUIRE(foreign != NULL);
    CHECK_OK(leaseq_queue_add(foreign, it, &added));
    CHECK_OK(leaseq_queue_lease(foreign, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    bool completed = true;
    CHECK_INVALID_ARG(leaseq_partitioned_complete(p, lease, &completed), "lease");
    CHECK(!completed);
    CHECK_INVALID_ARG(leaseq_partitioned_queue_of(p, lease, &queue), "lease");
    leaseq_fail_outcome outcome = 0;
    leaseq_renew_outcome not_held = 0;
    int64_t retry_in = 0;
    CHECK_INVALID_ARG(leaseq_partitioned_fail(p, lease, "e", "", LEASEQ_RETRY_DEFAULT, 0, &outcome,
                                              &not_held, &retry_in),
                      "lease");
    CHECK_OK(leaseq_queue_complete(foreign, lease, &completed));
    CHECK(completed); /* the refused calls did not touch it */
    leaseq_lease_free(lease);
    leaseq_queue_free(foreign);

    leaseq_stats_by_partition *stats = NULL;
    const leaseq_stats *one = NULL;
    CHECK_OK(leaseq_partitioned_stats(p, &stats));
    CHECK_INVALID_ARG(leaseq_stats_by_partition_get(stats, P, &one), "partition");
    CHECK_NULL_ARG(leaseq_stats_by_partition_total(NULL, &one), "stats");
    leaseq_stats_by_partition_free(stats);
    leaseq_stats_by_partition_free(NULL);
    leaseq_partitioned_free(NULL);
    leaseq_item_free(it);
    leaseq_partitioned_free(p);
}

/* ---- one partition on a plain server ------------------------------------------------------- */

static void one_partition_is_the_plain_queue(void) {
    char base[256];
    unique_prefix(base, sizeof base, "single");
    leaseq_partitioned *p = NULL;
    CHECK_OK(leaseq_partitioned_create(plain, base, 1, &p));
    REQUIRE(p != NULL);
    size_t partitions = 0;
    const char *prefix = NULL;
    CHECK_OK(leaseq_partitioned_partitions(p, &partitions));
    CHECK(partitions == 1);
    CHECK_OK(leaseq_partitioned_prefix(p, 0, &prefix));
    CHECK(prefix != NULL && strcmp(prefix, base) == 0);
    leaseq_item *it = item("one");
    bool added = false;
    CHECK_OK(leaseq_partitioned_add(p, it, &added));
    CHECK(added);
    leaseq_item_free(it);
    /* the plain queue at the base holds it */
    leaseq_queue *queue = NULL;
    CHECK_OK(leaseq_client_queue(plain, base, &queue));
    REQUIRE(queue != NULL);
    CHECK(queue_len(queue) == 1);
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_partitioned_lease(p, 30000, 100, &lease));
    REQUIRE(lease != NULL);
    bool completed = false;
    CHECK_OK(leaseq_partitioned_complete(p, lease, &completed));
    CHECK(completed);
    CHECK(queue_len(queue) == 0 && processing_len(queue) == 0);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
    leaseq_partitioned_free(p);
    /* a plain server refuses more partitions only for want of a hash tag */
    CHECK_INVALID_ARG(leaseq_partitioned_create(plain, base, 3, &p), "prefix");
}

/* ---- the runner -------------------------------------------------------------------------- */

static atomic_int ran;
static atomic_int completed_events;
static atomic_int seen_partitions; /* a bit per partition whose job ran */
static const char *runner_prefixes[P];

static leaseq_job_outcome count_job(leaseq_worker_job *job, void *user_data) {
    (void)user_data;
    const char *prefix = NULL;
    if (leaseq_worker_job_queue_prefix(job, &prefix) == LEASEQ_OK && prefix != NULL) {
        for (int i = 0; i < P; i++) {
            if (strcmp(prefix, runner_prefixes[i]) == 0) atomic_fetch_or(&seen_partitions, 1 << i);
        }
    }
    atomic_fetch_add(&ran, 1);
    return LEASEQ_JOB_COMPLETE;
}

static void stop_after_all(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    if (strcmp(event->name, "completed") == 0 && atomic_fetch_add(&completed_events, 1) + 1 == 15)
        leaseq_worker_stop();
}

static void the_runner_serves_every_partition(void) {
    leaseq_partitioned *p = fresh("runner");
    REQUIRE(p != NULL);
    for (size_t i = 0; i < P; i++) CHECK_OK(leaseq_partitioned_prefix(p, i, &runner_prefixes[i]));
    char id[32];
    for (int i = 0; i < 15; i++) {
        snprintf(id, sizeof id, "r-%d", i);
        leaseq_item *it = item(id);
        bool added = false;
        CHECK_OK(leaseq_partitioned_add(p, it, &added));
        leaseq_item_free(it);
    }
    uint64_t each[P];
    CHECK(waiting(p, each) == 15);
    int want = 0;
    for (int i = 0; i < P; i++)
        if (each[i] > 0) want |= 1 << i;
    atomic_store(&ran, 0);
    atomic_store(&completed_events, 0);
    atomic_store(&seen_partitions, 0);
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.concurrency = 3;
    options.on_event = stop_after_all;
    CHECK_OK(leaseq_worker_run_partitioned(p, count_job, NULL, &options));
    CHECK(atomic_load(&ran) == 15);
    CHECK(atomic_load(&seen_partitions) == want);
    CHECK(count_in(p, LEASEQ_STATE_WAITING) == 0 && count_in(p, LEASEQ_STATE_LEASED) == 0);
    CHECK_NULL_ARG(leaseq_worker_run_partitioned(NULL, count_job, NULL, &options), "partitioned");
    CHECK_NULL_ARG(leaseq_worker_run_partitioned(p, NULL, NULL, &options), "callback");
    /* The base is no queue: a runner on it is refused as it starts (spec 5.25). */
    const char *name = NULL;
    leaseq_queue *base = NULL;
    CHECK_OK(leaseq_partitioned_base(p, &name));
    CHECK_OK(leaseq_client_queue(cluster, name, &base));
    CHECK_STATUS(LEASEQ_INVALID_ARGUMENT, leaseq_worker_run(base, count_job, NULL, &options));
    CHECK(strstr(leaseq_last_error_message(), "partitioned") != NULL);
    leaseq_queue_free(base);
    leaseq_partitioned_free(p);
}

/* ---- schedules ----------------------------------------------------------------------------- */

static void schedules_live_in_partition_zero(void) {
    leaseq_partitioned *p = fresh("schedules");
    REQUIRE(p != NULL);
    leaseq_schedule leap = LEASEQ_SCHEDULE_INIT;
    leap.cron = "0 3 29 2 *"; /* a 29 February: never due while the test runs */
    leap.set = LEASEQ_SCHEDULE_CRON;
    bool created = false;
    CHECK_OK(leaseq_partitioned_upsert_schedule(p, "leap", &leap, &created));
    CHECK(created);
    CHECK_OK(leaseq_partitioned_upsert_schedule(p, "leap", &leap, &created));
    CHECK(!created);
    /* Stored in partition 0, and only there. */
    for (size_t i = 0; i < P; i++) {
        leaseq_queue *queue = NULL;
        leaseq_schedule_page *page = NULL;
        CHECK_OK(leaseq_partitioned_partition(p, i, &queue));
        CHECK_OK(leaseq_queue_schedules(queue, 0, 10, &page));
        REQUIRE(page != NULL);
        CHECK(page->total == (i == 0 ? 1u : 0u));
        leaseq_schedule_page_free(page);
        leaseq_queue_free(queue);
    }
    leaseq_schedule_page *page = NULL;
    CHECK_OK(leaseq_partitioned_schedules(p, 0, 10, &page));
    REQUIRE(page != NULL);
    CHECK(page->total == 1 && page->schedules_len == 1);
    CHECK(strcmp(page->schedules[0].name, "leap") == 0);
    leaseq_schedule_page_free(page);
    leaseq_schedule_info *info = NULL;
    CHECK_OK(leaseq_partitioned_get_schedule(p, "leap", &info));
    REQUIRE(info != NULL);
    CHECK(info->cron != NULL && strcmp(info->cron, "0 3 29 2 *") == 0);
    leaseq_schedule_info_free(info);
    leaseq_fire_report report;
    CHECK_OK(leaseq_partitioned_fire_due_schedules(p, &report));
    CHECK(report.fired == 0 && report.next_due_in_ms > 0);
    CHECK_STATUS(LEASEQ_INVALID_ARGUMENT, leaseq_partitioned_schedules(p, 0, 0, &page));
    CHECK(page == NULL);
    CHECK_NULL_ARG(leaseq_partitioned_upsert_schedule(p, "x", NULL, &created), "schedule");
    CHECK_NULL_ARG(leaseq_partitioned_remove_schedule(NULL, "leap", &created), "partitioned");
    bool removed = false;
    CHECK_OK(leaseq_partitioned_remove_schedule(p, "leap", &removed));
    CHECK(removed);
    CHECK_OK(leaseq_partitioned_get_schedule(p, "leap", &info));
    CHECK(info == NULL);
    leaseq_partitioned_free(p);
}

/* ---- the logical queue's event follower ------------------------------------------------- */

struct follow_all {
    const leaseq_partitioned *p;
    int want;           /* entries to take before stopping */
    int seen;
    bool partitions_ok; /* each entry's partition is where its item went */
    char ids[8][32];
    char position[256];
};

static int32_t on_partitioned_event(const leaseq_event *event, size_t partition,
                                    const char *position, void *user_data) {
    struct follow_all *f = user_data;
    size_t home = SIZE_MAX;
    leaseq_item *it = item(event->job_id);
    if (it != NULL) {
        CHECK_OK(leaseq_partitioned_partition_of(f->p, it, NULL, &home));
        leaseq_item_free(it);
    }
    if (home != partition || strcmp(event->event, "added") != 0) f->partitions_ok = false;
    if (f->seen < 8) snprintf(f->ids[f->seen], sizeof f->ids[0], "%s", event->job_id);
    snprintf(f->position, sizeof f->position, "%s", position != NULL ? position : "");
    return ++f->seen >= f->want;
}

static void a_follower_follows_every_partition(void) {
    leaseq_partitioned *p = fresh("events");
    REQUIRE(p != NULL);
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.events = true;
    config.set = LEASEQ_CONFIG_EVENTS;
    CHECK_OK(leaseq_partitioned_set_config(p, &config));
    static const char *const ids[] = {"a", "b", "c", "d", "e", "f"};
    for (size_t i = 0; i < 6; i++) {
        leaseq_item *it = item(ids[i]);
        bool added = false;
        CHECK_OK(leaseq_partitioned_add(p, it, &added));
        CHECK(added);
        leaseq_item_free(it);
    }
    /* Everything kept, from every partition: one id for all of them. */
    struct follow_all f = {p, 6, 0, true, {{0}}, ""};
    CHECK_OK(leaseq_partitioned_events(p, "0-0", on_partitioned_event, &f));
    CHECK(f.seen == 6 && f.partitions_ok);
    for (size_t i = 0; i < 6; i++) {
        bool found = false;
        for (int j = 0; j < f.seen; j++) found = found || strcmp(f.ids[j], ids[i]) == 0;
        CHECK(found);
    }
    /* The position has an id per partition; a follower after it sees only what came later. */
    size_t commas = 0;
    for (const char *c = f.position; *c; c++) commas += *c == ',';
    CHECK(commas == P - 1);
    leaseq_item *later = item("later");
    bool added = false;
    CHECK_OK(leaseq_partitioned_add(p, later, &added));
    leaseq_item_free(later);
    struct follow_all g = {p, 1, 0, true, {{0}}, ""};
    CHECK_OK(leaseq_partitioned_events(p, f.position, on_partitioned_event, &g));
    CHECK(g.seen == 1 && g.partitions_ok && strcmp(g.ids[0], "later") == 0);
    CHECK_INVALID_ARG(leaseq_partitioned_events(p, "1-0,2-0", on_partitioned_event, &g),
                      "after");
    CHECK_INVALID_ARG(leaseq_partitioned_events(p, "x", on_partitioned_event, &g), "after");
    CHECK_NULL_ARG(leaseq_partitioned_events(p, NULL, NULL, NULL), "callback");
    CHECK_NULL_ARG(leaseq_partitioned_events(NULL, NULL, on_partitioned_event, &g),
                   "partitioned");
    leaseq_partitioned_free(p);
}

int main(void) {
    char list[4096];
    const char *urls[16];
    size_t count = 0;
    snprintf(list, sizeof list, "%s", need_env("LEASEQ_TEST_CLUSTER_URLS"));
    for (char *url = strtok(list, " "); url && count < 16; url = strtok(NULL, " "))
        urls[count++] = url;
    if (leaseq_client_connect_cluster(urls, count, &cluster) != LEASEQ_OK ||
        leaseq_client_connect(need_env("LEASEQ_TEST_URL"), &plain) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect: %s\n", leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"create and open give the stored layout of 3 partitions", create_open_and_layout},
        {"a group's items stay in one partition", a_group_stays_in_one_partition},
        {"add_batch spreads a batch over the partitions", add_batch_spreads_over_partitions},
        {"lease_batch and complete work across partitions", lease_and_complete_across_partitions},
        {"complete_batch, renew_batch and fail_batch reach each lease's partition",
         batch_finishes_reach_each_leases_partition},
        {"fail, dead letters, requeue and purge over the partitions",
         fail_dead_letters_and_requeue},
        {"a full partition refuses an add with a timeout; a failure keeps its trace",
         a_full_partition_and_a_failure_with_its_trace},
        {"get and cancel find an item in any partition", get_and_cancel_find_the_item},
        {"stats total the partitions; pause, resume and set_config reach each",
         stats_pause_and_config},
        {"promote finds a delayed item in its group's partition, not its id's",
         promote_finds_a_delayed_item_in_its_groups_partition},
        {"dependencies and dependency_results are read where the dependant is",
         dependencies_are_read_where_the_dependant_is},
        {"dead_requeue and dead_requeue_each requeue each id where it is dead",
         dead_letters_are_requeued_by_id_where_they_are},
        {"rate_limit holds every partition; a zero duration is refused",
         rate_limit_holds_every_partition},
        {"is_paused is true only while every partition is; reset_config reaches each",
         is_paused_and_reset_config_over_every_partition},
        {"exists, config, queue_len and processing_len read every partition; add_unique routes",
         exists_config_lengths_and_add_unique},
        {"counts_by_name sums the partitions' counts by name", counts_by_name_sum_the_partitions},
        {"light_clean and deep_clean clean every partition", cleans_reach_every_partition},
        {"find searches one partition a call; following next walks every partition",
         find_searches_one_partition_and_next_walks_them_all},
        {"bad arguments are refused, naming them, and write nothing",
         bad_arguments_are_refused_and_write_nothing},
        {"one partition on a plain server is the plain queue", one_partition_is_the_plain_queue},
        {"leaseq_worker_run_partitioned serves every partition",
         the_runner_serves_every_partition},
        {"schedules live in partition 0", schedules_live_in_partition_zero},
        {"a follower follows every partition and resumes from its position",
         a_follower_follows_every_partition},
    };
    int status = run_tests("test_partitioned", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(cluster);
    leaseq_client_free(plain);
    leaseq_runtime_shutdown(); /* so that valgrind sees no live runtime thread */
    return status;
}
