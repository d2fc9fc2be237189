/*
 * The batch forms of leaseq.h against a throwaway redis-server: leaseq_queue_complete_batch
 * (with and without results), leaseq_queue_renew_batch, leaseq_queue_fail_batch and
 * leaseq_queue_complete_and_lease_batch: what each does to the items and reports per element;
 * NULL pointers and bad elements refused naming the argument (`completions[1].lease`), with
 * nothing written to Redis and every out-array element set to its failure value.
 *
 * Environment: LEASEQ_TEST_URL (a redis:// URL).
 */
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdint.h>

#include "check.h"

static leaseq_client *client;

/* ---- helpers ------------------------------------------------------------------------------ */

static uint64_t count_in(const leaseq_queue *queue, leaseq_state state) {
    uint64_t count = UINT64_MAX;
    CHECK_OK(leaseq_queue_count(queue, state, &count));
    return count;
}

/* Adds items "<stem>0" .. "<stem>{n-1}" with `max_attempts` (0: the defaults) and a fixed
 * backoff of 0 ms. */
static void add_items(const leaseq_queue *queue, const char *stem, int n, uint32_t max_attempts) {
    leaseq_add_options o = LEASEQ_ADD_OPTIONS_INIT;
    if (max_attempts > 0) {
        o.max_attempts = max_attempts;
        o.backoff.kind = LEASEQ_BACKOFF_FIXED;
        o.backoff.base_ms = 0;
        o.set = LEASEQ_ADD_MAX_ATTEMPTS | LEASEQ_ADD_BACKOFF;
    }
    for (int i = 0; i < n; i++) {
        char id[64];
        snprintf(id, sizeof id, "%s%d", stem, i);
        leaseq_item *item = NULL;
        bool added = false;
        CHECK_OK(leaseq_item_with_id(id, (const uint8_t *)"x", 1, &item));
        CHECK_OK(leaseq_queue_add_with_options(queue, item, &o, &added));
        CHECK(added);
        leaseq_item_free(item);
    }
}

/* Leases exactly `n` items (30 s, no wait) into `leases`; false when fewer came. */
static bool lease_n(const leaseq_queue *queue, size_t n, leaseq_lease **leases) {
    leaseq_lease **array = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_queue_lease_batch(queue, n, NULL, &array, &len));
    for (size_t i = 0; i < len && i < n; i++) {
        leases[i] = array[i];
        array[i] = NULL; /* taken out of the array: freed one by one */
    }
    leaseq_lease_array_free(array, len);
    return len == n;
}

static void free_leases(leaseq_lease **leases, size_t n) {
    for (size_t i = 0; i < n; i++) leaseq_lease_free(leases[i]);
}

static const char *id_of(const leaseq_lease *lease) {
    const char *id = NULL;
    CHECK_OK(leaseq_lease_id(lease, &id));
    return id != NULL ? id : "";
}

/* How long the lease of item `id` had left when read, in ms (-1: not leased). */
static int64_t lease_left_ms(const leaseq_queue *queue, const char *id) {
    leaseq_job *job = NULL;
    int64_t left = -2;
    CHECK_OK(leaseq_queue_get(queue, id, &job));
    if (job == NULL) return -2;
    CHECK_OK(leaseq_job_lease_ttl_ms(job, &left));
    leaseq_job_free(job);
    return left;
}

/* The result kept for `id`: its length, or -1 when none is kept. */
static long result_len(const leaseq_queue *queue, const char *id, const char *expect) {
    leaseq_result *result = NULL;
    CHECK_OK(leaseq_queue_result(queue, id, &result));
    if (result == NULL) return -1;
    const uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_result_data(result, &data, &len));
    if (expect != NULL) CHECK(len == strlen(expect) && memcmp(data, expect, len) == 0);
    leaseq_result_free(result);
    return (long)len;
}

/* ---- behaviour -------------------------------------------------------------------------- */

static void complete_batch_with_and_without_results(void) {
    leaseq_queue *queue = fresh_queue(client, "complete-batch");
    REQUIRE(queue != NULL);
    add_items(queue, "c", 4, 0);
    leaseq_lease *leases[4] = {NULL};
    REQUIRE(lease_n(queue, 4, leases));
    /* The last one is completed already: the batch reports false for it. */
    bool done = false;
    CHECK_OK(leaseq_queue_complete(queue, leases[3], &done));
    CHECK(done);

    leaseq_completion completions[4];
    for (int i = 0; i < 4; i++) {
        leaseq_completion c = LEASEQ_COMPLETION_INIT;
        c.lease = leases[i];
        completions[i] = c;
    }
    completions[1].result = (const uint8_t *)"one\0two";
    completions[1].result_len = 7;
    completions[1].keep_result_for_ms = 60000;
    completions[2].result = (const uint8_t *)""; /* an empty result, kept */
    bool completed[4] = {false, false, false, true};
    CHECK_OK(leaseq_queue_complete_batch(queue, completions, 4, completed));
    CHECK(completed[0] && completed[1] && completed[2] && !completed[3]);
    CHECK(count_in(queue, LEASEQ_STATE_LEASED) == 0);
    CHECK(result_len(queue, id_of(leases[0]), NULL) == -1);
    leaseq_result *result = NULL;
    CHECK_OK(leaseq_queue_result(queue, id_of(leases[1]), &result));
    if (result != NULL) {
        const uint8_t *data = NULL;
        size_t len = 0;
        CHECK_OK(leaseq_result_data(result, &data, &len));
        CHECK(len == 7 && memcmp(data, "one\0two", 7) == 0);
        leaseq_result_free(result);
    } else {
        CHECK(!"the result of the second completion is kept");
    }
    CHECK(result_len(queue, id_of(leases[2]), "") == 0);
    CHECK(result_len(queue, id_of(leases[3]), NULL) == -1);

    /* Again: each was completed already. */
    CHECK_OK(leaseq_queue_complete_batch(queue, completions, 3, completed));
    CHECK(!completed[0] && !completed[1] && !completed[2]);
    /* An empty batch sends nothing; its arrays may be NULL. */
    CHECK_OK(leaseq_queue_complete_batch(queue, NULL, 0, NULL));
    free_leases(leases, 4);
    leaseq_queue_free(queue);
}

static void renew_batch_reports_each_outcome(void) {
    leaseq_queue *queue = fresh_queue(client, "renew-batch");
    REQUIRE(queue != NULL);
    add_items(queue, "r", 3, 0);
    leaseq_lease *leases[3] = {NULL};
    REQUIRE(lease_n(queue, 3, leases));
    bool done = false;
    CHECK_OK(leaseq_queue_complete(queue, leases[1], &done));
    leaseq_state previous = LEASEQ_STATE_NONE;
    CHECK_OK(leaseq_queue_cancel(queue, id_of(leases[2]), &previous));
    CHECK(previous == LEASEQ_STATE_LEASED);

    const leaseq_lease *list[3] = {leases[0], leases[1], leases[2]};
    leaseq_renew_outcome outcomes[3] = {-9, -9, -9};
    CHECK_OK(leaseq_queue_renew_batch(queue, list, 3, 600000, outcomes));
    CHECK(outcomes[0] == LEASEQ_RENEW_RENEWED);
    CHECK(outcomes[1] == LEASEQ_RENEW_COMPLETED);
    CHECK(outcomes[2] == LEASEQ_RENEW_CANCELLED);
    /* Leased for 30 s, renewed to 10 minutes. */
    CHECK(lease_left_ms(queue, id_of(leases[0])) > 60000);
    CHECK_OK(leaseq_queue_renew_batch(queue, NULL, 0, 30000, NULL));
    free_leases(leases, 3);
    leaseq_queue_free(queue);
}

static void fail_batch_retries_delays_and_kills(void) {
    leaseq_queue *queue = fresh_queue(client, "fail-batch");
    REQUIRE(queue != NULL);
    add_items(queue, "f", 4, 3);
    leaseq_lease *leases[4] = {NULL};
    REQUIRE(lease_n(queue, 4, leases));
    bool done = false;
    CHECK_OK(leaseq_queue_complete(queue, leases[3], &done));

    const leaseq_failure failures[4] = {
        {leases[0], "boom", "IOError", LEASEQ_RETRY_DEFAULT, 0},
        {leases[1], "slow", "", LEASEQ_RETRY_AFTER, 600000},
        {leases[2], "fatal", "ValueError", LEASEQ_RETRY_NEVER, 0},
        {leases[3], "late", "", LEASEQ_RETRY_DEFAULT, 0},
    };
    leaseq_fail_outcome outcomes[4] = {-9, -9, -9, -9};
    leaseq_renew_outcome why[4] = {-9, -9, -9, -9};
    int64_t retry_in[4] = {-9, -9, -9, -9};
    CHECK_OK(leaseq_queue_fail_batch(queue, failures, 4, outcomes, why, retry_in));
    /* The item's own backoff (fixed, 0 ms): waiting again at once. */
    CHECK(outcomes[0] == LEASEQ_FAIL_RETRYING && why[0] == LEASEQ_RENEW_RENEWED &&
          retry_in[0] == 0);
    /* After the given delay: delayed. */
    CHECK(outcomes[1] == LEASEQ_FAIL_RETRYING && why[1] == LEASEQ_RENEW_RENEWED &&
          retry_in[1] == 600000);
    CHECK(outcomes[2] == LEASEQ_FAIL_DEAD && why[2] == LEASEQ_RENEW_RENEWED && retry_in[2] == -1);
    CHECK(outcomes[3] == LEASEQ_FAIL_NOT_HELD && why[3] == LEASEQ_RENEW_COMPLETED &&
          retry_in[3] == -1);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 1);
    CHECK(count_in(queue, LEASEQ_STATE_DELAYED) == 1);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 1);
    CHECK(count_in(queue, LEASEQ_STATE_LEASED) == 0);
    leaseq_job *job = NULL;
    CHECK_OK(leaseq_queue_get(queue, id_of(leases[2]), &job));
    REQUIRE(job != NULL);
    const char *error = NULL, *type = NULL;
    CHECK_OK(leaseq_job_error(job, &error));
    CHECK(error != NULL && strcmp(error, "fatal") == 0);
    CHECK_OK(leaseq_job_error_type(job, &type));
    CHECK(type != NULL && strcmp(type, "ValueError") == 0);
    leaseq_job_free(job);
    CHECK_OK(leaseq_queue_fail_batch(queue, NULL, 0, NULL, NULL, NULL));
    free_leases(leases, 4);
    leaseq_queue_free(queue);
}

static void complete_and_lease_batch_takes_the_next(void) {
    leaseq_queue *queue = fresh_queue(client, "complete-and-lease-batch");
    REQUIRE(queue != NULL);
    add_items(queue, "n", 5, 0);
    leaseq_lease *leases[2] = {NULL};
    REQUIRE(lease_n(queue, 2, leases));

    leaseq_completion completions[2] = {LEASEQ_COMPLETION_INIT, LEASEQ_COMPLETION_INIT};
    completions[0].lease = leases[0];
    completions[1].lease = leases[1];
    completions[1].result = (const uint8_t *)"ok";
    completions[1].result_len = 2;
    bool completed[2] = {false, false};
    leaseq_lease **next = NULL;
    size_t len = 99;
    CHECK_OK(leaseq_queue_complete_and_lease_batch(queue, completions, 2, 2, 600000, completed,
                                                   &next, &len));
    CHECK(completed[0] && completed[1]);
    REQUIRE(len == 2 && next != NULL);
    CHECK(strcmp(id_of(next[0]), "n2") == 0 && strcmp(id_of(next[1]), "n3") == 0);
    CHECK(lease_left_ms(queue, "n2") > 60000); /* the batch's TTL, not a default one */
    CHECK(result_len(queue, "n1", "ok") == 2);
    CHECK(count_in(queue, LEASEQ_STATE_LEASED) == 2);

    /* Completing those two and asking for up to 5: the one left comes. */
    completions[0] = (leaseq_completion)LEASEQ_COMPLETION_INIT;
    completions[1] = (leaseq_completion)LEASEQ_COMPLETION_INIT;
    completions[0].lease = next[0];
    completions[1].lease = next[1];
    leaseq_lease **last = NULL;
    size_t last_len = 0;
    CHECK_OK(leaseq_queue_complete_and_lease_batch(queue, completions, 2, 5, 30000, completed,
                                                   &last, &last_len));
    CHECK(completed[0] && completed[1]);
    CHECK(last_len == 1 && last != NULL && strcmp(id_of(last[0]), "n4") == 0);
    leaseq_lease_array_free(next, len);

    /* Nothing to complete and nothing to lease: NULL with length 0. */
    leaseq_lease **none = (leaseq_lease **)&none;
    size_t none_len = 99;
    CHECK_OK(leaseq_queue_complete_and_lease_batch(queue, NULL, 0, 0, 30000, NULL, &none,
                                                   &none_len));
    CHECK(none == NULL && none_len == 0);
    leaseq_lease_array_free(last, last_len);
    free_leases(leases, 2);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 0);
    leaseq_queue_free(queue);
}

/* ---- refusals: NULL and bad input, nothing written ---------------------------------------- */

/* The out-arrays of a refused complete: every element false again. */
#define CHECK_ALL_FALSE(array, n)                                        \
    do {                                                                 \
        for (size_t k_ = 0; k_ < (n); k_++) CHECK(!(array)[k_]);         \
    } while (0)

static void complete_batch_refusals(void) {
    leaseq_queue *queue = fresh_queue(client, "complete-batch-refusals");
    REQUIRE(queue != NULL);
    add_items(queue, "x", 2, 0);
    leaseq_lease *leases[2] = {NULL};
    REQUIRE(lease_n(queue, 2, leases));
    leaseq_completion good[2] = {LEASEQ_COMPLETION_INIT, LEASEQ_COMPLETION_INIT};
    good[0].lease = leases[0];
    good[1].lease = leases[1];
    leaseq_completion bad[2];
    bool completed[2];

#define REFUSED(status, call, name)                                      \
    do {                                                                 \
        completed[0] = completed[1] = true;                              \
        CHECK_STATUS(status, call);                                      \
        CHECK_MESSAGE_HAS("`" name "`");                                 \
        CHECK_ALL_FALSE(completed, 2);                                   \
    } while (0)

    REFUSED(LEASEQ_NULL_ARGUMENT, leaseq_queue_complete_batch(NULL, good, 2, completed), "queue");
    REFUSED(LEASEQ_NULL_ARGUMENT, leaseq_queue_complete_batch(queue, NULL, 2, completed),
            "completions");
    CHECK_NULL_ARG(leaseq_queue_complete_batch(queue, good, 2, NULL), "out_completed");
    memcpy(bad, good, sizeof bad);
    bad[1].lease = NULL;
    REFUSED(LEASEQ_NULL_ARGUMENT, leaseq_queue_complete_batch(queue, bad, 2, completed),
            "completions[1].lease");
    memcpy(bad, good, sizeof bad);
    bad[0].result_len = 3; /* with a NULL result */
    REFUSED(LEASEQ_NULL_ARGUMENT, leaseq_queue_complete_batch(queue, bad, 2, completed),
            "completions[0].result");
    memcpy(bad, good, sizeof bad);
    bad[1].result = (const uint8_t *)"r";
    bad[1].result_len = 1;
    bad[1].keep_result_for_ms = -2;
    REFUSED(LEASEQ_INVALID_ARGUMENT, leaseq_queue_complete_batch(queue, bad, 2, completed),
            "completions[1].keep_result_for_ms");
    bad[1].keep_result_for_ms = 0; /* the core's check: greater than zero */
    REFUSED(LEASEQ_INVALID_ARGUMENT, leaseq_queue_complete_batch(queue, bad, 2, completed),
            "keep_result_for_ms");
    memcpy(bad, good, sizeof bad);
    bad[0].keep_result_for_ms = 5000; /* a keep time without a result */
    REFUSED(LEASEQ_INVALID_ARGUMENT, leaseq_queue_complete_batch(queue, bad, 2, completed),
            "completions[0].keep_result_for_ms");
    CHECK_MESSAGE_HAS("only with a `result`");

    /* A lease of another queue: the core refuses it before anything is sent. */
    leaseq_queue *other = fresh_queue(client, "complete-batch-other");
    REQUIRE(other != NULL);
    add_items(other, "o", 1, 0);
    leaseq_lease *foreign = NULL;
    CHECK_OK(leaseq_queue_lease(other, 30000, 0, &foreign));
    REQUIRE(foreign != NULL);
    memcpy(bad, good, sizeof bad);
    bad[1].lease = foreign;
    REFUSED(LEASEQ_INVALID_ARGUMENT, leaseq_queue_complete_batch(queue, bad, 2, completed),
            "lease");
    CHECK(count_in(other, LEASEQ_STATE_LEASED) == 1);
    leaseq_lease_free(foreign);
    leaseq_queue_free(other);

    /* complete_and_lease_batch: the same checks, and its own; nothing leased either. */
    leaseq_lease **next = (leaseq_lease **)&next;
    size_t len = 99;
#define REFUSED_NEXT(status, call, name)                                 \
    do {                                                                 \
        REFUSED(status, call, name);                                     \
        CHECK(next == NULL && len == 0);                                 \
        next = (leaseq_lease **)&next;                                   \
        len = 99;                                                        \
    } while (0)
    add_items(queue, "more", 1, 0);
    REFUSED_NEXT(LEASEQ_NULL_ARGUMENT,
                 leaseq_queue_complete_and_lease_batch(NULL, good, 2, 1, 30000, completed, &next,
                                                       &len),
                 "queue");
    memcpy(bad, good, sizeof bad);
    bad[0].lease = NULL;
    REFUSED_NEXT(LEASEQ_NULL_ARGUMENT,
                 leaseq_queue_complete_and_lease_batch(queue, bad, 2, 1, 30000, completed, &next,
                                                       &len),
                 "completions[0].lease");
    REFUSED_NEXT(LEASEQ_INVALID_ARGUMENT,
                 leaseq_queue_complete_and_lease_batch(queue, good, 2, 1, 0, completed, &next,
                                                       &len),
                 "ttl_ms");
    REFUSED_NEXT(LEASEQ_INVALID_ARGUMENT,
                 leaseq_queue_complete_and_lease_batch(queue, good, 2, 1, INT64_C(2592000001),
                                                       completed, &next, &len),
                 "ttl_ms");
    REFUSED_NEXT(LEASEQ_INVALID_ARGUMENT,
                 leaseq_queue_complete_and_lease_batch(queue, good, 2, 1001, 30000, completed,
                                                       &next, &len),
                 "n");
    REFUSED(LEASEQ_NULL_ARGUMENT,
            leaseq_queue_complete_and_lease_batch(queue, good, 2, 1, 30000, completed, NULL, &len),
            "out_leases");
    REFUSED(LEASEQ_NULL_ARGUMENT,
            leaseq_queue_complete_and_lease_batch(queue, good, 2, 1, 30000, completed, &next, NULL),
            "out_len");
    CHECK(next == NULL);
    CHECK_NULL_ARG(leaseq_queue_complete_and_lease_batch(queue, good, 2, 1, 30000, NULL, &next,
                                                         &len),
                   "out_completed");
#undef REFUSED_NEXT
#undef REFUSED

    /* Nothing was completed or leased by any of them. */
    CHECK(count_in(queue, LEASEQ_STATE_LEASED) == 2);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 1);
    CHECK_OK(leaseq_queue_complete_batch(queue, good, 2, completed));
    CHECK(completed[0] && completed[1]);
    free_leases(leases, 2);
    leaseq_queue_free(queue);
}

static void renew_batch_refusals(void) {
    leaseq_queue *queue = fresh_queue(client, "renew-batch-refusals");
    REQUIRE(queue != NULL);
    add_items(queue, "x", 2, 0);
    leaseq_lease *leases[2] = {NULL};
    REQUIRE(lease_n(queue, 2, leases));
    const leaseq_lease *list[2] = {leases[0], leases[1]};
    const leaseq_lease *holed[2] = {leases[0], NULL};
    leaseq_renew_outcome outcomes[2];

#define REFUSED(status, call, name)                                              \
    do {                                                                         \
        outcomes[0] = outcomes[1] = -9;                                          \
        CHECK_STATUS(status, call);                                              \
        CHECK_MESSAGE_HAS("`" name "`");                                         \
        CHECK(outcomes[0] == LEASEQ_RENEW_EXPIRED && outcomes[1] == LEASEQ_RENEW_EXPIRED); \
    } while (0)

    REFUSED(LEASEQ_NULL_ARGUMENT, leaseq_queue_renew_batch(NULL, list, 2, 600000, outcomes),
            "queue");
    REFUSED(LEASEQ_NULL_ARGUMENT, leaseq_queue_renew_batch(queue, NULL, 2, 600000, outcomes),
            "leases");
    REFUSED(LEASEQ_NULL_ARGUMENT, leaseq_queue_renew_batch(queue, holed, 2, 600000, outcomes),
            "leases[1]");
    CHECK_NULL_ARG(leaseq_queue_renew_batch(queue, list, 2, 600000, NULL), "out_outcomes");
    REFUSED(LEASEQ_INVALID_ARGUMENT, leaseq_queue_renew_batch(queue, list, 2, 0, outcomes),
            "ttl_ms");
    REFUSED(LEASEQ_INVALID_ARGUMENT, leaseq_queue_renew_batch(queue, list, 2, -5, outcomes),
            "ttl_ms");
    REFUSED(LEASEQ_INVALID_ARGUMENT,
            leaseq_queue_renew_batch(queue, list, 2, INT64_C(2592000001), outcomes), "ttl_ms");
#undef REFUSED

    /* More than 1000 leases in one call: refused by the core, nothing sent. */
    static const leaseq_lease *many[1001];
    static leaseq_renew_outcome many_outcomes[1001];
    for (size_t i = 0; i < 1001; i++) many[i] = leases[0];
    CHECK_STATUS(LEASEQ_INVALID_ARGUMENT,
                 leaseq_queue_renew_batch(queue, many, 1001, 600000, many_outcomes));
    CHECK(many_outcomes[0] == LEASEQ_RENEW_EXPIRED && many_outcomes[1000] == LEASEQ_RENEW_EXPIRED);

    /* None renewed: both leases still have their first 30 s, at most. */
    CHECK(lease_left_ms(queue, "x0") <= 30000);
    CHECK(lease_left_ms(queue, "x1") <= 30000);
    free_leases(leases, 2);
    leaseq_queue_free(queue);
}

static void fail_batch_refusals(void) {
    leaseq_queue *queue = fresh_queue(client, "fail-batch-refusals");
    REQUIRE(queue != NULL);
    add_items(queue, "x", 2, 0);
    leaseq_lease *leases[2] = {NULL};
    REQUIRE(lease_n(queue, 2, leases));
    const leaseq_failure good[2] = {
        {leases[0], "e", "", LEASEQ_RETRY_NEVER, 0},
        {leases[1], "e", "", LEASEQ_RETRY_NEVER, 0},
    };
    leaseq_failure bad[2];
    leaseq_fail_outcome outcomes[2];
    leaseq_renew_outcome why[2];
    int64_t retry_in[2];

#define REFUSED(status, call, name)                                                        \
    do {                                                                                   \
        outcomes[0] = outcomes[1] = why[0] = why[1] = -9;                                  \
        retry_in[0] = retry_in[1] = -9;                                                    \
        CHECK_STATUS(status, call);                                                        \
        CHECK_MESSAGE_HAS("`" name "`");                                                   \
        for (int k_ = 0; k_ < 2; k_++) {                                                   \
            CHECK(outcomes[k_] == LEASEQ_FAIL_NOT_HELD && why[k_] == LEASEQ_RENEW_EXPIRED && \
                  retry_in[k_] == -1);                                                     \
        }                                                                                  \
    } while (0)
#define BAD(field, value)               \
    do {                                \
        memcpy(bad, good, sizeof bad);  \
        bad[1].field = (value);         \
    } while (0)

    REFUSED(LEASEQ_NULL_ARGUMENT,
            leaseq_queue_fail_batch(NULL, good, 2, outcomes, why, retry_in), "queue");
    REFUSED(LEASEQ_NULL_ARGUMENT,
            leaseq_queue_fail_batch(queue, NULL, 2, outcomes, why, retry_in), "failures");
    BAD(lease, NULL);
    REFUSED(LEASEQ_NULL_ARGUMENT, leaseq_queue_fail_batch(queue, bad, 2, outcomes, why, retry_in),
            "failures[1].lease");
    BAD(error, NULL);
    REFUSED(LEASEQ_NULL_ARGUMENT, leaseq_queue_fail_batch(queue, bad, 2, outcomes, why, retry_in),
            "failures[1].error");
    BAD(error_type, NULL);
    REFUSED(LEASEQ_NULL_ARGUMENT, leaseq_queue_fail_batch(queue, bad, 2, outcomes, why, retry_in),
            "failures[1].error_type");
    BAD(error, "\xff");
    REFUSED(LEASEQ_INVALID_ARGUMENT,
            leaseq_queue_fail_batch(queue, bad, 2, outcomes, why, retry_in), "failures[1].error");
    BAD(retry, 7);
    REFUSED(LEASEQ_INVALID_ARGUMENT,
            leaseq_queue_fail_batch(queue, bad, 2, outcomes, why, retry_in), "failures[1].retry");
    BAD(retry, LEASEQ_RETRY_AFTER);
    bad[1].retry_after_ms = -1;
    REFUSED(LEASEQ_INVALID_ARGUMENT,
            leaseq_queue_fail_batch(queue, bad, 2, outcomes, why, retry_in),
            "failures[1].retry_after_ms");
    /* A NULL out-array: refused; the other two are set to their failure values. */
    outcomes[0] = outcomes[1] = why[0] = why[1] = -9;
    CHECK_NULL_ARG(leaseq_queue_fail_batch(queue, good, 2, outcomes, NULL, retry_in),
                   "out_not_held");
    CHECK(outcomes[1] == LEASEQ_FAIL_NOT_HELD && retry_in[1] == -1);
    retry_in[0] = retry_in[1] = -9;
    CHECK_NULL_ARG(leaseq_queue_fail_batch(queue, good, 2, outcomes, why, NULL),
                   "out_retry_in_ms");
    CHECK(why[0] == LEASEQ_RENEW_EXPIRED && retry_in[0] == -9);
    CHECK_NULL_ARG(leaseq_queue_fail_batch(queue, good, 2, NULL, why, retry_in), "out_outcomes");
#undef BAD
#undef REFUSED

    /* Nothing failed: both still leased; then the good batch kills both. */
    CHECK(count_in(queue, LEASEQ_STATE_LEASED) == 2);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 0);
    CHECK_OK(leaseq_queue_fail_batch(queue, good, 2, outcomes, why, retry_in));
    CHECK(outcomes[0] == LEASEQ_FAIL_DEAD && outcomes[1] == LEASEQ_FAIL_DEAD);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 2);
    free_leases(leases, 2);
    leaseq_queue_free(queue);
}

int main(void) {
    const char *url = need_env("LEASEQ_TEST_URL");
    if (leaseq_client_connect(url, &client) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"complete_batch: with and without results, each reported",
         complete_batch_with_and_without_results},
        {"renew_batch reports each lease's outcome", renew_batch_reports_each_outcome},
        {"fail_batch: retry after the backoff, after a delay, dead, not held",
         fail_batch_retries_delays_and_kills},
        {"complete_and_lease_batch completes and leases the next",
         complete_and_lease_batch_takes_the_next},
        {"complete batches: NULL and bad input named, nothing written", complete_batch_refusals},
        {"renew_batch: NULL and bad input named, nothing renewed", renew_batch_refusals},
        {"fail_batch: NULL and bad input named, nothing failed", fail_batch_refusals},
    };
    int status = run_tests("test_batch", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(client);
    leaseq_runtime_shutdown(); /* so that valgrind sees no live runtime thread */
    return status;
}
