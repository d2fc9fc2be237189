/*
 * The job lifecycle of leaseq.h (protocol v2) against a throwaway redis-server: item options,
 * lease options and batches, complete with a result, fail, release, progress, results, get,
 * list, count, cancel, dead letters, stats, queue configuration, incarnations; the growth
 * rules of the option structs (struct_size, set bits); NULL and bad arguments for each new
 * function, with nothing written to Redis.
 *
 * Environment: LEASEQ_TEST_URL (a redis:// URL).
 */
#define _POSIX_C_SOURCE 200809L

#include <stddef.h>
#include <stdint.h>

#include "check.h"

static leaseq_client *client;
static const char *url;

/* ---- helpers ------------------------------------------------------------------------------ */

static uint64_t count_in(const leaseq_queue *queue, leaseq_state state) {
    uint64_t count = UINT64_MAX;
    CHECK_OK(leaseq_queue_count(queue, state, &count));
    return count;
}

/* Adds item `id` with `options` (NULL: none); returns whether it was added. */
static bool add_with(const leaseq_queue *queue, const char *id, const char *data,
                     const leaseq_add_options *options) {
    leaseq_item *item = NULL;
    bool added = false;
    CHECK_OK(leaseq_item_with_id(id, (const uint8_t *)data, strlen(data), &item));
    CHECK_OK(leaseq_queue_add_with_options(queue, item, options, &added));
    leaseq_item_free(item);
    return added;
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

/* The job of `id` (NULL when none); free it with leaseq_job_free. */
static leaseq_job *get_job(const leaseq_queue *queue, const char *id) {
    leaseq_job *job = (leaseq_job *)&job;
    CHECK_OK(leaseq_queue_get(queue, id, &job));
    return job;
}

static leaseq_state job_state(const leaseq_queue *queue, const char *id) {
    leaseq_job *job = get_job(queue, id);
    leaseq_state state = LEASEQ_STATE_NONE;
    if (job != NULL) CHECK_OK(leaseq_job_state(job, &state));
    leaseq_job_free(job);
    return state;
}

static int64_t now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* ---- names and enums ------------------------------------------------------------------------ */

static void names_of_states_and_outcomes(void) {
    CHECK(strcmp(leaseq_state_str(LEASEQ_STATE_WAITING), "waiting") == 0);
    CHECK(strcmp(leaseq_state_str(LEASEQ_STATE_DELAYED), "delayed") == 0);
    CHECK(strcmp(leaseq_state_str(LEASEQ_STATE_LEASED), "leased") == 0);
    CHECK(strcmp(leaseq_state_str(LEASEQ_STATE_DEAD), "dead") == 0);
    CHECK(strcmp(leaseq_state_str(LEASEQ_STATE_DONE), "done") == 0);
    CHECK(strcmp(leaseq_state_str(LEASEQ_STATE_NONE), "none") == 0);
    CHECK(strcmp(leaseq_state_str(99), "unknown") == 0);
    /* The v1 outcomes keep their numbers; the new ones come after them. */
    CHECK(LEASEQ_RENEW_RENEWED == 0 && LEASEQ_RENEW_EXPIRED == 1 &&
          LEASEQ_RENEW_TAKEN_BY_ANOTHER == 2 && LEASEQ_RENEW_COMPLETED == 3);
    CHECK(LEASEQ_RENEW_CANCELLED == 4 && LEASEQ_RENEW_OLDER_INCARNATION == 5);
    CHECK(strcmp(leaseq_renew_outcome_str(LEASEQ_RENEW_RENEWED), "renewed") == 0);
    CHECK(strcmp(leaseq_renew_outcome_str(LEASEQ_RENEW_EXPIRED), "expired") == 0);
    CHECK(strcmp(leaseq_renew_outcome_str(LEASEQ_RENEW_TAKEN_BY_ANOTHER), "taken") == 0);
    CHECK(strcmp(leaseq_renew_outcome_str(LEASEQ_RENEW_COMPLETED), "completed") == 0);
    CHECK(strcmp(leaseq_renew_outcome_str(LEASEQ_RENEW_CANCELLED), "cancelled") == 0);
    CHECK(strcmp(leaseq_renew_outcome_str(LEASEQ_RENEW_OLDER_INCARNATION),
                 "older_incarnation") == 0);
    CHECK(strcmp(leaseq_renew_outcome_str(-7), "unknown") == 0);
}

/* ---- item options ------------------------------------------------------------------------- */

static void delays_and_run_at(void) {
    leaseq_queue *queue = fresh_queue(client, "delay");
    REQUIRE(queue != NULL);
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.delay_ms = 60000;
    options.set = LEASEQ_ADD_DELAY;
    CHECK(add_with(queue, "later", "x", &options));
    leaseq_add_options at = LEASEQ_ADD_OPTIONS_INIT;
    at.run_at_ms = now_ms() + 60 * 60 * 1000;
    at.set = LEASEQ_ADD_RUN_AT;
    CHECK(add_with(queue, "in-an-hour", "y", &at));
    CHECK(count_in(queue, LEASEQ_STATE_DELAYED) == 2);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 0);

    leaseq_job *job = get_job(queue, "later");
    REQUIRE(job != NULL);
    leaseq_state state = -9;
    int64_t due = 0, added = 0;
    CHECK_OK(leaseq_job_state(job, &state));
    CHECK(state == LEASEQ_STATE_DELAYED);
    CHECK_OK(leaseq_job_due_at_ms(job, &due));
    CHECK_OK(leaseq_job_added_at_ms(job, &added));
    CHECK(added > 0 && due >= added + 60000 && due <= added + 60001);
    leaseq_job_free(job);

    leaseq_lease *lease = lease_one(queue);
    CHECK(lease == NULL); /* not due yet */
    options.delay_ms = 200;
    CHECK(add_with(queue, "soon", "z", &options));
    sleep_ms(300);
    lease = lease_one(queue);
    CHECK(lease_is(lease, "soon"));
    leaseq_lease_free(lease);
    CHECK(job_state(queue, "in-an-hour") == LEASEQ_STATE_DELAYED);

    /* A delay and a due time together are refused by the core, and nothing is written. */
    leaseq_add_options both = LEASEQ_ADD_OPTIONS_INIT;
    both.delay_ms = 1;
    both.run_at_ms = now_ms();
    both.set = LEASEQ_ADD_DELAY | LEASEQ_ADD_RUN_AT;
    leaseq_item *item = NULL;
    bool ok = true;
    CHECK_OK(leaseq_item_with_id("both", NULL, 0, &item));
    CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &both, &ok), "run_at_ms");
    CHECK(!ok);
    leaseq_item_free(item);
    CHECK(get_job(queue, "both") == NULL);
    leaseq_queue_free(queue);
}

static void priorities_run_highest_first(void) {
    leaseq_queue *queue = fresh_queue(client, "priorities");
    REQUIRE(queue != NULL);
    leaseq_add_options low = LEASEQ_ADD_OPTIONS_INIT, high = LEASEQ_ADD_OPTIONS_INIT;
    low.priority = -5;
    low.set = LEASEQ_ADD_PRIORITY;
    high.priority = 7;
    high.set = LEASEQ_ADD_PRIORITY;
    CHECK(add_with(queue, "low", "l", &low));
    CHECK(add_with(queue, "plain", "p", NULL));
    CHECK(add_with(queue, "high", "h", &high));
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 3);
    CHECK(queue_len(queue) == 3); /* every priority, not only redis-work-queue's list */
    const char *order[] = {"high", "plain", "low"};
    for (int i = 0; i < 3; i++) {
        leaseq_lease *lease = lease_one(queue);
        CHECK(lease_is(lease, order[i]));
        leaseq_lease_free(lease);
    }
    leaseq_job *job = get_job(queue, "high");
    REQUIRE(job != NULL);
    int32_t priority = 0;
    CHECK_OK(leaseq_job_priority(job, &priority));
    CHECK(priority == 7);
    leaseq_job_free(job);

    /* Out of range: refused by the core, naming it; nothing written. */
    leaseq_add_options bad = LEASEQ_ADD_OPTIONS_INIT;
    bad.priority = 1001;
    bad.set = LEASEQ_ADD_PRIORITY;
    leaseq_item *item = NULL;
    bool added = true;
    CHECK_OK(leaseq_item_with_id("too-high", NULL, 0, &item));
    CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &bad, &added), "priority");
    CHECK(!added);
    CHECK_INVALID_ARG(leaseq_queue_add_unique_with_options(queue, item, &bad), "priority");
    leaseq_item_free(item);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 0);
    CHECK(get_job(queue, "too-high") == NULL);
    leaseq_queue_free(queue);
}

static void add_options_are_checked_in_the_c_layer(void) {
    leaseq_queue *queue = fresh_queue(client, "opts");
    REQUIRE(queue != NULL);
    leaseq_item *item = NULL;
    CHECK_OK(leaseq_item_with_id("o", (const uint8_t *)"x", 1, &item));
    bool added = true;

    leaseq_add_options o = LEASEQ_ADD_OPTIONS_INIT;
    o.delay_ms = -1;
    o.set = LEASEQ_ADD_DELAY;
    CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &o, &added), "options.delay_ms");
    CHECK(!added);
    o = (leaseq_add_options)LEASEQ_ADD_OPTIONS_INIT;
    o.keep_result_for_ms = -5;
    o.set = LEASEQ_ADD_KEEP_RESULT_FOR;
    CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &o, &added),
                      "options.keep_result_for_ms");
    o = (leaseq_add_options)LEASEQ_ADD_OPTIONS_INIT;
    o.backoff.kind = 7;
    o.set = LEASEQ_ADD_BACKOFF;
    CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &o, &added),
                      "options.backoff.kind");
    o.backoff.kind = LEASEQ_BACKOFF_EXPONENTIAL;
    o.backoff.base_ms = 10;
    o.backoff.cap_ms = -1;
    CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &o, &added),
                      "options.backoff.cap_ms");
    o.backoff.cap_ms = 5; /* below the base: the core refuses it */
    CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &o, &added), "backoff");

    /* struct_size: missing, or too small for the header. */
    o = (leaseq_add_options)LEASEQ_ADD_OPTIONS_INIT;
    o.struct_size = 0;
    CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &o, &added),
                      "options.struct_size");
    CHECK_MESSAGE_HAS("LEASEQ_ADD_OPTIONS_INIT");
    o.struct_size = 7;
    CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &o, &added),
                      "options.struct_size");
    /* A bit this library does not know (a newer header), refused rather than ignored. */
    o = (leaseq_add_options)LEASEQ_ADD_OPTIONS_INIT;
    o.set = 1u << 30;
    CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &o, &added), "options.set");
    /* A bit for a field beyond struct_size. */
    o = (leaseq_add_options)LEASEQ_ADD_OPTIONS_INIT;
    o.struct_size = (uint32_t)offsetof(leaseq_add_options, backoff);
    o.set = LEASEQ_ADD_BACKOFF;
    CHECK_INVALID_ARG(leaseq_queue_add_with_options(queue, item, &o, &added), "options.set");
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 0 && count_in(queue, LEASEQ_STATE_DELAYED) == 0);

    /* An older, smaller struct still works: fields beyond it are never read. */
    o = (leaseq_add_options)LEASEQ_ADD_OPTIONS_INIT;
    o.struct_size = (uint32_t)offsetof(leaseq_add_options, backoff);
    o.priority = 3;
    o.set = LEASEQ_ADD_PRIORITY;
    o.keep_result_for_ms = -1; /* beyond struct_size: garbage there is never seen */
    CHECK_OK(leaseq_queue_add_with_options(queue, item, &o, &added));
    CHECK(added);
    leaseq_job *job = get_job(queue, "o");
    REQUIRE(job != NULL);
    int32_t priority = 0;
    CHECK_OK(leaseq_job_priority(job, &priority));
    CHECK(priority == 3);
    leaseq_job_free(job);
    /* NULL options: a plain add. */
    CHECK_OK(leaseq_queue_add_with_options(queue, item, NULL, &added));
    CHECK(!added); /* the id exists */
    leaseq_item_free(item);
    leaseq_queue_free(queue);
}

static void batch_add_takes_options_per_item(void) {
    leaseq_queue *queue = fresh_queue(client, "batch-opts");
    REQUIRE(queue != NULL);
    leaseq_item *items[3] = {NULL, NULL, NULL};
    CHECK_OK(leaseq_item_with_id("a", (const uint8_t *)"1", 1, &items[0]));
    CHECK_OK(leaseq_item_with_id("b", (const uint8_t *)"2", 1, &items[1]));
    CHECK_OK(leaseq_item_with_id("c", (const uint8_t *)"3", 1, &items[2]));
    leaseq_add_options delayed = LEASEQ_ADD_OPTIONS_INIT, urgent = LEASEQ_ADD_OPTIONS_INIT;
    delayed.delay_ms = 60000;
    delayed.set = LEASEQ_ADD_DELAY;
    urgent.priority = 9;
    urgent.max_attempts = 2;
    urgent.set = LEASEQ_ADD_PRIORITY | LEASEQ_ADD_MAX_ATTEMPTS;
    const leaseq_add_options *options[3] = {&delayed, NULL, &urgent};
    size_t added = 0;

    /* A bad option names its index, and nothing is added. */
    leaseq_add_options bad = LEASEQ_ADD_OPTIONS_INIT;
    bad.expires_after_ms = -3;
    bad.set = LEASEQ_ADD_EXPIRES_AFTER;
    const leaseq_add_options *with_bad[3] = {&delayed, NULL, &bad};
    added = 99;
    CHECK_INVALID_ARG(leaseq_queue_add_batch_with_options(queue, (const leaseq_item *const *)items,
                                                          with_bad, 3, &added),
                      "options[2].expires_after_ms");
    CHECK(added == 0);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 0 && count_in(queue, LEASEQ_STATE_DELAYED) == 0);
    /* A value out of the queue's bounds names the item by its id, as the header says. */
    bad = (leaseq_add_options)LEASEQ_ADD_OPTIONS_INIT;
    bad.priority = 1001;
    bad.set = LEASEQ_ADD_PRIORITY;
    CHECK_INVALID_ARG(leaseq_queue_add_batch_with_options(queue, (const leaseq_item *const *)items,
                                                          with_bad, 3, &added),
                      "items");
    CHECK_MESSAGE_HAS("item `c`: priority");
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 0 && count_in(queue, LEASEQ_STATE_DELAYED) == 0);

    CHECK_OK(leaseq_queue_add_batch_with_options(queue, (const leaseq_item *const *)items, options,
                                                 3, &added));
    CHECK(added == 3);
    CHECK(count_in(queue, LEASEQ_STATE_DELAYED) == 1 && count_in(queue, LEASEQ_STATE_WAITING) == 2);
    leaseq_lease *first = lease_one(queue);
    CHECK(lease_is(first, "c"));
    uint32_t max_attempts = 0;
    CHECK_OK(leaseq_lease_max_attempts(first, &max_attempts));
    CHECK(max_attempts == 2);
    leaseq_lease_free(first);
    /* NULL options array: no item has any; the ids exist, so none is added. */
    CHECK_OK(leaseq_queue_add_batch_with_options(queue, (const leaseq_item *const *)items, NULL, 3,
                                                 &added));
    CHECK(added == 0);
    CHECK_OK(leaseq_queue_add_batch_with_options(queue, NULL, NULL, 0, &added));
    CHECK(added == 0);
    for (int i = 0; i < 3; i++) leaseq_item_free(items[i]);
    leaseq_queue_free(queue);
}

/* ---- leasing -------------------------------------------------------------------------------- */

static void lease_options_and_defaults(void) {
    leaseq_queue *queue = fresh_queue(client, "lease-opts");
    REQUIRE(queue != NULL);
    CHECK(add_with(queue, "d", "x", NULL));
    /* NULL options: the core's default TTL (30 s), no wait. */
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease_with_options(queue, NULL, &lease));
    REQUIRE(lease != NULL);
    leaseq_job *job = get_job(queue, "d");
    REQUIRE(job != NULL);
    int64_t ttl = 0, expires = 0, leased_at = 0;
    CHECK_OK(leaseq_job_lease_ttl_ms(job, &ttl));
    CHECK(ttl > 25000 && ttl <= 30000);
    CHECK_OK(leaseq_job_lease_expires_at_ms(job, &expires));
    CHECK_OK(leaseq_job_leased_at_ms(job, &leased_at));
    CHECK(leased_at > 0 && expires == leased_at + 30000);
    leaseq_job_free(job);
    leaseq_lease_free(lease);

    /* Nothing waits: no lease, at once (no wait by default). */
    lease = (leaseq_lease *)&lease;
    CHECK_OK(leaseq_queue_lease_with_options(queue, NULL, &lease));
    CHECK(lease == NULL);
    /* A timeout waits that long. */
    leaseq_lease_options o = LEASEQ_LEASE_OPTIONS_INIT;
    o.timeout_ms = 150;
    o.ttl_ms = 1000;
    o.set = LEASEQ_LEASE_TIMEOUT | LEASEQ_LEASE_TTL;
    int64_t before = now_ms();
    CHECK_OK(leaseq_queue_lease_with_options(queue, &o, &lease));
    CHECK(lease == NULL && now_ms() - before >= 140);

    /* A bad TTL names the field; an old struct without timeout_ms works. */
    CHECK(add_with(queue, "e", "x", NULL));
    o.ttl_ms = 0;
    lease = (leaseq_lease *)&lease;
    CHECK_INVALID_ARG(leaseq_queue_lease_with_options(queue, &o, &lease), "options.ttl_ms");
    CHECK(lease == NULL);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 1);
    leaseq_lease_options old = LEASEQ_LEASE_OPTIONS_INIT;
    old.struct_size = (uint32_t)offsetof(leaseq_lease_options, timeout_ms);
    old.ttl_ms = 2000;
    old.set = LEASEQ_LEASE_TTL;
    CHECK_OK(leaseq_queue_lease_with_options(queue, &old, &lease));
    CHECK(lease_is(lease, "e"));
    job = get_job(queue, "e");
    REQUIRE(job != NULL);
    CHECK_OK(leaseq_job_lease_ttl_ms(job, &ttl));
    CHECK(ttl > 0 && ttl <= 2000);
    leaseq_job_free(job);
    leaseq_lease_free(lease);
    old.set = LEASEQ_LEASE_TTL | LEASEQ_LEASE_TIMEOUT;
    CHECK_INVALID_ARG(leaseq_queue_lease_with_options(queue, &old, &lease), "options.set");
    leaseq_queue_free(queue);
}

static void lease_batch_and_its_array(void) {
    leaseq_queue *queue = fresh_queue(client, "lease-batch");
    REQUIRE(queue != NULL);
    leaseq_lease **leases = (leaseq_lease **)&leases;
    size_t len = 99;
    /* Empty queue: NULL and 0. */
    CHECK_OK(leaseq_queue_lease_batch(queue, 5, NULL, &leases, &len));
    CHECK(leases == NULL && len == 0);
    leaseq_lease_array_free(leases, len);
    CHECK(add_with(queue, "1", "a", NULL));
    CHECK(add_with(queue, "2", "b", NULL));
    CHECK(add_with(queue, "3", "c", NULL));
    CHECK_OK(leaseq_queue_lease_batch(queue, 2, NULL, &leases, &len));
    REQUIRE(leases != NULL && len == 2);
    CHECK(lease_is(leases[0], "1") && lease_is(leases[1], "2"));
    /* Keep one beyond the array. */
    leaseq_lease *kept = leases[1];
    leases[1] = NULL;
    leaseq_lease_array_free(leases, len);
    bool completed = false;
    CHECK_OK(leaseq_queue_complete(queue, kept, &completed));
    CHECK(completed);
    leaseq_lease_free(kept);
    CHECK(count_in(queue, LEASEQ_STATE_LEASED) == 1);

    /* n out of range: refused by the core, nothing leased. */
    leases = (leaseq_lease **)&leases;
    CHECK_INVALID_ARG(leaseq_queue_lease_batch(queue, 0, NULL, &leases, &len), "n");
    CHECK(leases == NULL && len == 0);
    CHECK_INVALID_ARG(leaseq_queue_lease_batch(queue, 1001, NULL, &leases, &len), "n");
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 1);
    leaseq_lease_array_free(NULL, 0);
    leaseq_queue_free(queue);
}

static void lease_accessors(void) {
    leaseq_queue *queue = fresh_queue(client, "lease-acc");
    REQUIRE(queue != NULL);
    leaseq_add_options o = LEASEQ_ADD_OPTIONS_INIT;
    o.max_attempts = 4;
    o.backoff.kind = LEASEQ_BACKOFF_EXPONENTIAL;
    o.backoff.base_ms = 100;
    o.backoff.cap_ms = 900;
    o.backoff.jitter = false;
    o.set = LEASEQ_ADD_MAX_ATTEMPTS | LEASEQ_ADD_BACKOFF;
    CHECK(add_with(queue, "acc", "data", &o));
    leaseq_lease *lease = lease_one(queue);
    REQUIRE(lease != NULL);
    uint64_t attempt = 0;
    uint32_t max_attempts = 0;
    const char *incarnation = NULL;
    size_t inc_len = 0, id_len = 0;
    const uint8_t *id = NULL;
    leaseq_backoff backoff = LEASEQ_BACKOFF_INIT;
    CHECK_OK(leaseq_lease_attempt(lease, &attempt));
    CHECK(attempt == 1);
    CHECK_OK(leaseq_lease_max_attempts(lease, &max_attempts));
    CHECK(max_attempts == 4);
    CHECK_OK(leaseq_lease_incarnation(lease, &incarnation, &inc_len));
    CHECK(incarnation != NULL && inc_len > 0 && strlen(incarnation) == inc_len);
    CHECK_OK(leaseq_lease_id_bytes(lease, &id, &id_len));
    CHECK(id_len == 3 && id != NULL && memcmp(id, "acc", 3) == 0);
    CHECK_OK(leaseq_lease_backoff(lease, &backoff));
    CHECK(backoff.kind == LEASEQ_BACKOFF_EXPONENTIAL && backoff.base_ms == 100 &&
          backoff.cap_ms == 900 && !backoff.jitter);
    leaseq_lease_free(lease);

    /* Defaults: no limit set on the item, the queue's or the protocol's values. */
    CHECK(add_with(queue, "plain", "p", NULL));
    lease = lease_one(queue);
    REQUIRE(lease != NULL);
    CHECK_OK(leaseq_lease_max_attempts(lease, &max_attempts));
    CHECK(max_attempts == 25);
    CHECK_OK(leaseq_lease_backoff(lease, &backoff));
    CHECK(backoff.kind == LEASEQ_BACKOFF_EXPONENTIAL && backoff.jitter);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

/* ---- finishing ----------------------------------------------------------------------------- */

static void results_are_kept_and_awaited(void) {
    leaseq_queue *queue = fresh_queue(client, "results");
    REQUIRE(queue != NULL);
    CHECK(add_with(queue, "r", "x", NULL));
    leaseq_lease *lease = lease_one(queue);
    REQUIRE(lease != NULL);
    static const uint8_t answer[] = {'4', 0, '2', 0xff};
    bool completed = false;
    CHECK_INVALID_ARG(leaseq_queue_complete_with_result(queue, lease, answer, sizeof answer, -2,
                                                        &completed),
                      "keep_result_for_ms");
    CHECK_INVALID_ARG(leaseq_queue_complete_with_result(queue, lease, answer, sizeof answer, 0,
                                                        &completed),
                      "keep_result_for_ms");
    CHECK_NULL_ARG(leaseq_queue_complete_with_result(queue, lease, NULL, 4, -1, &completed),
                   "result");
    CHECK(count_in(queue, LEASEQ_STATE_LEASED) == 1); /* refused calls completed nothing */
    CHECK_OK(leaseq_queue_complete_with_result(queue, lease, answer, sizeof answer, -1,
                                               &completed));
    CHECK(completed);
    leaseq_lease_free(lease);

    leaseq_result *result = NULL;
    CHECK_OK(leaseq_queue_result(queue, "r", &result));
    REQUIRE(result != NULL);
    const uint8_t *data = NULL;
    size_t len = 0;
    uint64_t attempts = 0;
    int64_t finished = 0;
    CHECK_OK(leaseq_result_data(result, &data, &len));
    CHECK(len == sizeof answer && memcmp(data, answer, len) == 0 && data[len] == 0);
    CHECK_OK(leaseq_result_attempts(result, &attempts));
    CHECK(attempts == 1);
    CHECK_OK(leaseq_result_finished_at_ms(result, &finished));
    CHECK(finished > 0 && finished <= now_ms() + 5000);
    /* Added without options: no time added is known; no name. */
    int64_t added = 0;
    const char *name = "x";
    CHECK_OK(leaseq_result_added_at_ms(result, &added));
    CHECK(added == -1);
    CHECK_OK(leaseq_result_name(result, &name));
    CHECK(name == NULL);
    leaseq_result_free(result);

    /* A done item's job: state done, empty data, the result borrowed from it. */
    leaseq_job *job = get_job(queue, "r");
    REQUIRE(job != NULL);
    leaseq_state state = -9;
    const leaseq_result *borrowed = NULL;
    CHECK_OK(leaseq_job_state(job, &state));
    CHECK(state == LEASEQ_STATE_DONE);
    CHECK_OK(leaseq_job_data(job, &data, &len));
    CHECK(len == 0 && data != NULL);
    attempts = 0;
    CHECK_OK(leaseq_job_attempts(job, &attempts));
    CHECK(attempts == 1); /* what the kept result counts, not 0 */
    int64_t job_finished = 0;
    CHECK_OK(leaseq_job_finished_at_ms(job, &job_finished));
    CHECK(job_finished == finished);
    CHECK_OK(leaseq_job_result(job, &borrowed));
    REQUIRE(borrowed != NULL);
    CHECK_OK(leaseq_result_data(borrowed, &data, &len));
    CHECK(len == sizeof answer);
    leaseq_job_free(job);

    /* wait_result: at once when there is one; NULL after the timeout when there is none. */
    result = NULL;
    CHECK_OK(leaseq_queue_wait_result(queue, "r", 1000, &result));
    CHECK(result != NULL);
    leaseq_result_free(result);
    result = (leaseq_result *)&result;
    int64_t before = now_ms();
    CHECK_OK(leaseq_queue_wait_result(queue, "nothing", 200, &result));
    CHECK(result == NULL && now_ms() - before >= 190);
    /* A negative timeout waits until the result comes, as a lease's does: here it is there. */
    CHECK_OK(leaseq_queue_wait_result(queue, "r", -1, &result));
    CHECK(result != NULL);
    leaseq_result_free(result);
    /* A dead item ends the wait with LEASEQ_DEAD, saying why: no result will come. */
    CHECK(add_with(queue, "doomed", "x", NULL));
    lease = lease_one(queue);
    REQUIRE(lease != NULL);
    leaseq_fail_outcome outcome = -9;
    leaseq_renew_outcome why = -9;
    int64_t retry_in = -9;
    CHECK_OK(leaseq_queue_fail(queue, lease, "boom", "IOError", LEASEQ_RETRY_NEVER, 0, &outcome,
                               &why, &retry_in));
    REQUIRE(outcome == LEASEQ_FAIL_DEAD);
    leaseq_lease_free(lease);
    result = (leaseq_result *)&result;
    CHECK_STATUS(LEASEQ_DEAD, leaseq_queue_wait_result(queue, "doomed", -1, &result));
    CHECK(result == NULL);
    CHECK(strstr(leaseq_last_error_message(), "doomed") != NULL &&
          strstr(leaseq_last_error_message(), "IOError: boom") != NULL);
    CHECK(strcmp(leaseq_status_str(LEASEQ_DEAD), "DEAD") == 0);
    CHECK_INVALID_ARG(leaseq_queue_result(queue, "", &result), "id");
    CHECK(result == NULL);
    CHECK_OK(leaseq_queue_result(queue, "nothing", &result));
    CHECK(result == NULL);
    leaseq_queue_free(queue);
}

static void fail_retries_then_dies(void) {
    leaseq_queue *queue = fresh_queue(client, "fail");
    REQUIRE(queue != NULL);
    leaseq_add_options o = LEASEQ_ADD_OPTIONS_INIT;
    o.max_attempts = 3;
    o.backoff.kind = LEASEQ_BACKOFF_FIXED;
    o.backoff.base_ms = 0;
    o.set = LEASEQ_ADD_MAX_ATTEMPTS | LEASEQ_ADD_BACKOFF;
    CHECK(add_with(queue, "f", "x", &o));

    leaseq_fail_outcome outcome = -9;
    leaseq_renew_outcome why = -9;
    int64_t retry_in = -9;
    /* 1: the item's backoff (fixed, 0 ms): waiting again at once. */
    leaseq_lease *lease = lease_one(queue);
    REQUIRE(lease != NULL);
    CHECK_OK(leaseq_queue_fail(queue, lease, "boom", "IOError", LEASEQ_RETRY_DEFAULT, 0, &outcome,
                               &why, &retry_in));
    CHECK(outcome == LEASEQ_FAIL_RETRYING && why == LEASEQ_RENEW_RENEWED && retry_in == 0);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 1);
    /* Failing again with the same lease: not held any more, nothing changes. */
    CHECK_OK(leaseq_queue_fail(queue, lease, "again", "", LEASEQ_RETRY_DEFAULT, 0, &outcome, &why,
                               &retry_in));
    CHECK(outcome == LEASEQ_FAIL_NOT_HELD && why != LEASEQ_RENEW_RENEWED && retry_in == -1);
    leaseq_lease_free(lease);

    /* 2: after a given delay: delayed. */
    lease = lease_one(queue);
    REQUIRE(lease != NULL);
    CHECK_OK(leaseq_queue_fail(queue, lease, "slow", "", LEASEQ_RETRY_AFTER, 100, &outcome, &why,
                               &retry_in));
    CHECK(outcome == LEASEQ_FAIL_RETRYING && retry_in == 100);
    CHECK(job_state(queue, "f") == LEASEQ_STATE_DELAYED);
    leaseq_lease_free(lease);
    sleep_ms(150);

    /* 3: out of attempts: dead, with the error kept. */
    lease = lease_one(queue);
    REQUIRE(lease != NULL);
    uint64_t attempt = 0;
    CHECK_OK(leaseq_lease_attempt(lease, &attempt));
    CHECK(attempt == 3);
    CHECK_OK(leaseq_queue_fail(queue, lease, "last", "ValueError", LEASEQ_RETRY_DEFAULT, 0,
                               &outcome, &why, &retry_in));
    CHECK(outcome == LEASEQ_FAIL_DEAD && retry_in == -1);
    leaseq_lease_free(lease);
    leaseq_job *job = get_job(queue, "f");
    REQUIRE(job != NULL);
    leaseq_state state = -9;
    const char *error = NULL, *type = NULL, *reason = NULL;
    uint64_t attempts = 0;
    int64_t max_attempts = 0, finished = 0;
    CHECK_OK(leaseq_job_state(job, &state));
    CHECK(state == LEASEQ_STATE_DEAD);
    CHECK_OK(leaseq_job_error(job, &error));
    CHECK(error != NULL && strcmp(error, "last") == 0);
    CHECK_OK(leaseq_job_error_type(job, &type));
    CHECK(type != NULL && strcmp(type, "ValueError") == 0);
    CHECK_OK(leaseq_job_dead_reason(job, &reason));
    CHECK(reason != NULL && strlen(reason) > 0);
    CHECK_OK(leaseq_job_attempts(job, &attempts));
    CHECK(attempts == 3);
    CHECK_OK(leaseq_job_max_attempts(job, &max_attempts));
    CHECK(max_attempts == 3);
    CHECK_OK(leaseq_job_finished_at_ms(job, &finished));
    CHECK(finished > 0);
    leaseq_job_free(job);

    /* LEASEQ_RETRY_NEVER: dead at once. Bad retry arguments: refused, nothing changes. */
    CHECK(add_with(queue, "g", "x", NULL));
    lease = lease_one(queue);
    REQUIRE(lease != NULL);
    CHECK_INVALID_ARG(leaseq_queue_fail(queue, lease, "e", "", 3, 0, &outcome, &why, &retry_in),
                      "retry");
    CHECK(outcome == LEASEQ_FAIL_NOT_HELD && retry_in == -1);
    CHECK_INVALID_ARG(leaseq_queue_fail(queue, lease, "e", "", LEASEQ_RETRY_AFTER, -1, &outcome,
                                        &why, &retry_in),
                      "retry_after_ms");
    CHECK_INVALID_ARG(leaseq_queue_fail(queue, lease, "\xff", "", LEASEQ_RETRY_NEVER, 0, &outcome,
                                        &why, &retry_in),
                      "error");
    CHECK(job_state(queue, "g") == LEASEQ_STATE_LEASED);
    CHECK_OK(leaseq_queue_fail(queue, lease, "fatal", "", LEASEQ_RETRY_NEVER, 0, &outcome, &why,
                               &retry_in));
    CHECK(outcome == LEASEQ_FAIL_DEAD);
    leaseq_lease_free(lease);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 2);
    /* A job without options: no max attempts of its own. */
    job = get_job(queue, "g");
    REQUIRE(job != NULL);
    CHECK_OK(leaseq_job_max_attempts(job, &max_attempts));
    CHECK(max_attempts == -1);
    leaseq_job_free(job);
    leaseq_queue_free(queue);
}

static void release_and_progress(void) {
    leaseq_queue *queue = fresh_queue(client, "release");
    REQUIRE(queue != NULL);
    CHECK(add_with(queue, "r", "x", NULL));
    leaseq_lease *lease = lease_one(queue);
    REQUIRE(lease != NULL);

    static const uint8_t step[] = {'5', '0', '%', 0};
    bool stored = false;
    CHECK_OK(leaseq_queue_progress(queue, lease, step, sizeof step, &stored));
    CHECK(stored);
    leaseq_job *job = get_job(queue, "r");
    REQUIRE(job != NULL);
    const uint8_t *data = NULL;
    size_t len = 0;
    bool cancelled = true;
    CHECK_OK(leaseq_job_progress(job, &data, &len));
    CHECK(len == sizeof step && data != NULL && memcmp(data, step, len) == 0);
    CHECK_OK(leaseq_job_cancelled(job, &cancelled));
    CHECK(!cancelled);
    leaseq_job_free(job);
    /* Too large: the core refuses it, naming it. */
    static uint8_t big[64 * 1024 + 1];
    CHECK_INVALID_ARG(leaseq_queue_progress(queue, lease, big, sizeof big, &stored), "value");
    CHECK(!stored);

    bool released = false;
    CHECK_INVALID_ARG(leaseq_queue_release(queue, lease, -1, &released), "delay_ms");
    CHECK(job_state(queue, "r") == LEASEQ_STATE_LEASED);
    CHECK_OK(leaseq_queue_release(queue, lease, 0, &released));
    CHECK(released);
    CHECK(job_state(queue, "r") == LEASEQ_STATE_WAITING);
    /* Released: the attempt is given back, and the old lease can do nothing more. */
    CHECK_OK(leaseq_queue_release(queue, lease, 0, &released));
    CHECK(!released);
    CHECK_OK(leaseq_queue_progress(queue, lease, step, 1, &stored));
    CHECK(!stored);
    leaseq_lease_free(lease);
    lease = lease_one(queue);
    REQUIRE(lease != NULL);
    uint64_t attempt = 0;
    CHECK_OK(leaseq_lease_attempt(lease, &attempt));
    CHECK(attempt == 1);
    CHECK_OK(leaseq_queue_release(queue, lease, 60000, &released));
    CHECK(released);
    CHECK(job_state(queue, "r") == LEASEQ_STATE_DELAYED);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

/* ---- reading ------------------------------------------------------------------------------- */

static void get_list_and_count(void) {
    leaseq_queue *queue = fresh_queue(client, "list");
    REQUIRE(queue != NULL);
    leaseq_job *job = (leaseq_job *)&job;
    CHECK_OK(leaseq_queue_get(queue, "nobody", &job));
    CHECK(job == NULL);
    CHECK(add_with(queue, "w1", "a", NULL));
    CHECK(add_with(queue, "w2", "b", NULL));
    CHECK(add_with(queue, "w3", "c", NULL));

    leaseq_entry_list *list = NULL;
    CHECK_OK(leaseq_queue_list(queue, LEASEQ_STATE_WAITING, 1, 5, &list));
    REQUIRE(list != NULL);
    size_t len = 0;
    CHECK_OK(leaseq_entry_list_len(list, &len));
    CHECK(len == 2);
    const leaseq_entry *entry = NULL;
    const char *id = NULL, *error = "stale";
    int64_t at = 0;
    uint64_t attempts = 9;
    CHECK_OK(leaseq_entry_list_get(list, 0, &entry));
    REQUIRE(entry != NULL);
    CHECK_OK(leaseq_entry_id(entry, &id));
    CHECK(id != NULL && strcmp(id, "w2") == 0);
    CHECK_OK(leaseq_entry_at_ms(entry, &at));
    CHECK(at == -1);
    CHECK_OK(leaseq_entry_attempts(entry, &attempts));
    CHECK(attempts == 0);
    CHECK_OK(leaseq_entry_error(entry, &error));
    CHECK(error == NULL);
    CHECK_OK(leaseq_entry_error_type(entry, &error));
    CHECK(error == NULL);
    entry = (const leaseq_entry *)&entry;
    CHECK_INVALID_ARG(leaseq_entry_list_get(list, 2, &entry), "index");
    CHECK(entry == NULL);
    leaseq_entry_list_free(list);

    /* A leased item lists with its lease expiry. */
    leaseq_lease *lease = lease_one(queue);
    REQUIRE(lease != NULL);
    CHECK_OK(leaseq_queue_list(queue, LEASEQ_STATE_LEASED, 0, 10, &list));
    CHECK_OK(leaseq_entry_list_len(list, &len));
    CHECK(len == 1);
    CHECK_OK(leaseq_entry_list_get(list, 0, &entry));
    CHECK_OK(leaseq_entry_at_ms(entry, &at));
    CHECK(at > now_ms());
    leaseq_entry_list_free(list);
    leaseq_lease_free(lease);

    /* No item completed with a result: no done item; unknown states and counts are refused. */
    CHECK_OK(leaseq_queue_list(queue, LEASEQ_STATE_DONE, 0, 10, &list));
    CHECK_OK(leaseq_entry_list_len(list, &len));
    CHECK(len == 0);
    leaseq_entry_list_free(list);
    list = (leaseq_entry_list *)&list;
    CHECK_INVALID_ARG(leaseq_queue_list(queue, 42, 0, 10, &list), "state");
    CHECK(list == NULL);
    CHECK_INVALID_ARG(leaseq_queue_list(queue, LEASEQ_STATE_NONE, 0, 10, &list), "state");
    CHECK_INVALID_ARG(leaseq_queue_list(queue, LEASEQ_STATE_WAITING, 0, 0, &list), "count");
    CHECK_INVALID_ARG(leaseq_queue_list(queue, LEASEQ_STATE_WAITING, 0, 1001, &list), "count");
    uint64_t count = 9;
    CHECK(count_in(queue, LEASEQ_STATE_DONE) == 0);
    CHECK_INVALID_ARG(leaseq_queue_count(queue, -5, &count), "state");
    CHECK(count == 0);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 2);
    CHECK(count_in(queue, LEASEQ_STATE_LEASED) == 1);
    CHECK(count_in(queue, LEASEQ_STATE_DELAYED) == 0);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 0);
    leaseq_queue_free(queue);
}

/* The id of entry `index` of `list` ("" when there is none). */
static const char *entry_id(const leaseq_entry_list *list, size_t index) {
    const leaseq_entry *entry = NULL;
    const char *id = NULL;
    if (leaseq_entry_list_get(list, index, &entry) != LEASEQ_OK) return "";
    CHECK_OK(leaseq_entry_id(entry, &id));
    return id != NULL ? id : "";
}

static void done_items_find_and_promote(void) {
    leaseq_queue *queue = fresh_queue(client, "browse");
    REQUIRE(queue != NULL);
    CHECK(add_with(queue, "i0", "x", NULL));
    leaseq_lease *lease = lease_one(queue);
    REQUIRE(lease != NULL);
    bool completed = false;
    CHECK_OK(leaseq_queue_complete_with_result(queue, lease, (const uint8_t *)"ok", 2, -1,
                                               &completed));
    CHECK(completed);
    leaseq_lease_free(lease);
    /* Completed with its result kept: listed and counted as done. */
    leaseq_entry_list *list = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_queue_list(queue, LEASEQ_STATE_DONE, 0, 10, &list));
    CHECK_OK(leaseq_entry_list_len(list, &len));
    CHECK(len == 1 && strcmp(entry_id(list, 0), "i0") == 0);
    const leaseq_entry *entry = NULL;
    const char *name = "stale";
    int64_t at = -1;
    CHECK_OK(leaseq_entry_list_get(list, 0, &entry));
    CHECK_OK(leaseq_entry_name(entry, &name));
    CHECK(name == NULL);
    CHECK_OK(leaseq_entry_at_ms(entry, &at));
    CHECK(at > 0);
    leaseq_entry_list_free(list);
    CHECK(count_in(queue, LEASEQ_STATE_DONE) == 1);

    /* Three dead letters, two of type Timeout: find them, a bounded stretch at a time. */
    const char *kinds[] = {"Timeout", "Other", "Timeout"};
    for (int i = 0; i < 3; i++) {
        char id[8];
        snprintf(id, sizeof id, "d%d", i);
        CHECK(add_with(queue, id, "x", NULL));
        lease = lease_one(queue);
        leaseq_fail_outcome outcome = -1;
        leaseq_renew_outcome why = -1;
        int64_t retry_in = 0;
        CHECK_OK(leaseq_queue_fail(queue, lease, "no", kinds[i], LEASEQ_RETRY_NEVER, 0, &outcome,
                                   &why, &retry_in));
        CHECK(outcome == LEASEQ_FAIL_DEAD);
        leaseq_lease_free(lease);
    }
    int64_t next = 7;
    size_t examined = 0;
    CHECK_OK(leaseq_queue_find(queue, LEASEQ_STATE_DEAD, NULL, "Timeout", 0, 100, &list, &next,
                               &examined));
    CHECK_OK(leaseq_entry_list_len(list, &len));
    CHECK(len == 2 && strcmp(entry_id(list, 0), "d0") == 0 && strcmp(entry_id(list, 1), "d2") == 0);
    CHECK(next == -1 && examined == 3);
    leaseq_entry_list_free(list);
    CHECK_OK(leaseq_queue_find(queue, LEASEQ_STATE_DEAD, NULL, "Timeout", 0, 1, &list, &next, NULL));
    CHECK(next == 1 && strcmp(entry_id(list, 0), "d0") == 0);
    leaseq_entry_list_free(list);
    CHECK_OK(leaseq_queue_find(queue, LEASEQ_STATE_DEAD, "nosuch", NULL, 0, 100, &list, &next,
                               &examined));
    CHECK_OK(leaseq_entry_list_len(list, &len));
    CHECK(len == 0);
    leaseq_entry_list_free(list);
    list = (leaseq_entry_list *)&list;
    CHECK_INVALID_ARG(leaseq_queue_find(queue, LEASEQ_STATE_DEAD, NULL, NULL, 0, 1001, &list, &next,
                                        NULL),
                      "count");
    CHECK(list == NULL && next == -1);
    CHECK_NULL_ARG(leaseq_queue_find(queue, LEASEQ_STATE_DEAD, NULL, NULL, 0, 1, &list, NULL, NULL),
                   "out_next");

    /* Promote: a delayed item waits now; anything else is left alone. */
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.delay_ms = 3600000;
    options.set = LEASEQ_ADD_DELAY;
    CHECK(add_with(queue, "later", "x", &options));
    bool promoted = true;
    CHECK_OK(leaseq_queue_promote(queue, "d0", &promoted));
    CHECK(!promoted);
    CHECK_OK(leaseq_queue_promote(queue, "later", &promoted));
    CHECK(promoted);
    CHECK(job_state(queue, "later") == LEASEQ_STATE_WAITING);
    CHECK_NULL_ARG(leaseq_queue_promote(queue, NULL, &promoted), "id");
    leaseq_queue_free(queue);
}

static void cancel_reports_the_previous_state(void) {
    leaseq_queue *queue = fresh_queue(client, "cancel");
    REQUIRE(queue != NULL);
    CHECK(add_with(queue, "w", "x", NULL));
    CHECK(add_with(queue, "l", "y", NULL));
    leaseq_state previous = -9;
    CHECK_OK(leaseq_queue_cancel(queue, "nobody", &previous));
    CHECK(previous == LEASEQ_STATE_NONE);
    CHECK_OK(leaseq_queue_cancel(queue, "w", &previous));
    CHECK(previous == LEASEQ_STATE_WAITING);
    CHECK(get_job(queue, "w") == NULL);

    leaseq_lease *lease = lease_one(queue);
    REQUIRE(lease_is(lease, "l"));
    CHECK_OK(leaseq_queue_cancel(queue, "l", &previous));
    CHECK(previous == LEASEQ_STATE_LEASED);
    leaseq_job *job = get_job(queue, "l");
    REQUIRE(job != NULL);
    bool cancelled = false;
    CHECK_OK(leaseq_job_cancelled(job, &cancelled));
    CHECK(cancelled);
    leaseq_job_free(job);
    leaseq_renew_outcome outcome = -9;
    CHECK_OK(leaseq_queue_renew_outcome(queue, lease, 30000, &outcome));
    CHECK(outcome == LEASEQ_RENEW_CANCELLED);
    bool completed = true;
    CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
    CHECK(!completed);
    leaseq_lease_free(lease);
    CHECK_INVALID_ARG(leaseq_queue_cancel(queue, "", &previous), "id");
    CHECK(previous == LEASEQ_STATE_NONE);
    leaseq_queue_free(queue);
}

/* Adds `n` items named <stem>0.. and fails each for good. */
static void make_dead(const leaseq_queue *queue, const char *stem, int n) {
    for (int i = 0; i < n; i++) {
        char id[64];
        snprintf(id, sizeof id, "%s%d", stem, i);
        CHECK(add_with(queue, id, "x", NULL));
        leaseq_lease *lease = lease_one(queue);
        leaseq_fail_outcome outcome = -1;
        leaseq_renew_outcome why = -1;
        int64_t retry_in = 0;
        CHECK_OK(leaseq_queue_fail(queue, lease, "dead", "", LEASEQ_RETRY_NEVER, 0, &outcome, &why,
                                   &retry_in));
        CHECK(outcome == LEASEQ_FAIL_DEAD);
        leaseq_lease_free(lease);
    }
}

static void dead_letters_requeue_and_purge(void) {
    leaseq_queue *queue = fresh_queue(client, "dead");
    REQUIRE(queue != NULL);
    bool exists = true;
    CHECK_OK(leaseq_queue_exists(queue, &exists));
    CHECK(!exists); /* never used: no key of it */
    CHECK_NULL_ARG(leaseq_queue_exists(queue, NULL), "out_exists");
    make_dead(queue, "d", 5);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 5);
    CHECK_OK(leaseq_queue_exists(queue, &exists));
    CHECK(exists);

    const char *ids[] = {"d0", "not-dead", "d1"};
    uint64_t done = 99;
    CHECK_OK(leaseq_queue_dead_requeue(queue, ids, 3, &done));
    CHECK(done == 2);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 2 && count_in(queue, LEASEQ_STATE_DEAD) == 3);
    leaseq_job *job = get_job(queue, "d0");
    REQUIRE(job != NULL);
    uint64_t attempts = 9;
    CHECK_OK(leaseq_job_attempts(job, &attempts));
    CHECK(attempts == 0); /* reset */
    leaseq_job_free(job);
    const char *with_null[] = {"d2", NULL};
    done = 99;
    CHECK_NULL_ARG(leaseq_queue_dead_requeue(queue, with_null, 2, &done), "ids[1]");
    CHECK(done == 0);
    CHECK_OK(leaseq_queue_dead_requeue(queue, NULL, 0, &done));
    CHECK(done == 0);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 3);

    CHECK_OK(leaseq_queue_dead_requeue_oldest(queue, 1, &done));
    CHECK(done == 1);
    CHECK(job_state(queue, "d2") == LEASEQ_STATE_WAITING); /* oldest first */
    CHECK_INVALID_ARG(leaseq_queue_dead_requeue_oldest(queue, -2, &done), "n");
    CHECK_INVALID_ARG(leaseq_queue_dead_purge(queue, INT64_MIN, &done), "n");
    CHECK(done == 0);
    CHECK_OK(leaseq_queue_dead_purge(queue, 1, &done));
    CHECK(done == 1);
    CHECK(get_job(queue, "d3") == NULL);
    CHECK_OK(leaseq_queue_dead_requeue_oldest(queue, 0, &done));
    CHECK(done == 0);
    CHECK_OK(leaseq_queue_dead_requeue_oldest(queue, -1, &done));
    CHECK(done == 1);
    make_dead(queue, "e", 3);
    CHECK_OK(leaseq_queue_dead_purge(queue, -1, &done));
    CHECK(done == 3);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 0);
    leaseq_queue_free(queue);

    /* Which ids were requeued: an unknown id and one waiting are not. */
    leaseq_queue *other = fresh_queue(client, "dead-each");
    REQUIRE(other != NULL);
    make_dead(other, "f", 1);
    CHECK(add_with(other, "w", "x", NULL));
    const char *each_ids[] = {"nosuch", "f0", "w"};
    bool each[3] = {true, false, true};
    CHECK_OK(leaseq_queue_dead_requeue_each(other, each_ids, 3, each));
    CHECK(!each[0] && each[1] && !each[2]);
    CHECK_NULL_ARG(leaseq_queue_dead_requeue_each(other, each_ids, 3, NULL), "out_requeued");
    CHECK_OK(leaseq_queue_dead_requeue_each(other, NULL, 0, NULL));
    CHECK(count_in(other, LEASEQ_STATE_DEAD) == 0 && count_in(other, LEASEQ_STATE_WAITING) == 2);
    leaseq_queue_free(other);
}

/* Turns the queue's per-minute counters on or off (LEASEQ_CONFIG_STATS). */
static void set_counters(leaseq_queue *queue, bool on) {
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.stats = on;
    config.set = LEASEQ_CONFIG_STATS;
    CHECK_OK(leaseq_queue_set_config(queue, &config));
}

static void stats_count_and_keep_minutes(void) {
    leaseq_queue *queue = fresh_queue(client, "stats");
    REQUIRE(queue != NULL);
    set_counters(queue, true);
    CHECK(add_with(queue, "s1", "x", NULL));
    CHECK(add_with(queue, "s2", "x", NULL));
    leaseq_add_options later = LEASEQ_ADD_OPTIONS_INIT;
    later.delay_ms = 60000;
    later.set = LEASEQ_ADD_DELAY;
    CHECK(add_with(queue, "s3", "x", &later));
    leaseq_lease *lease = lease_one(queue);
    bool completed = false;
    CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
    leaseq_lease_free(lease);
    make_dead(queue, "sd", 1);

    leaseq_stats *stats = NULL;
    CHECK_OK(leaseq_queue_stats(queue, &stats));
    REQUIRE(stats != NULL);
    uint64_t n = 99;
    CHECK_OK(leaseq_stats_count(stats, LEASEQ_STATE_WAITING, &n));
    CHECK(n == 1);
    CHECK_OK(leaseq_stats_count(stats, LEASEQ_STATE_DELAYED, &n));
    CHECK(n == 1);
    CHECK_OK(leaseq_stats_count(stats, LEASEQ_STATE_LEASED, &n));
    CHECK(n == 0);
    CHECK_OK(leaseq_stats_count(stats, LEASEQ_STATE_DEAD, &n));
    CHECK(n == 1);
    CHECK_INVALID_ARG(leaseq_stats_count(stats, LEASEQ_STATE_DONE, &n), "state");
    CHECK_INVALID_ARG(leaseq_stats_count(stats, 77, &n), "state");
    CHECK_OK(leaseq_stats_processing(stats, &n));
    CHECK(n == 0);
    int64_t now = 0, oldest = -9;
    CHECK_OK(leaseq_stats_now_ms(stats, &now));
    CHECK(now > 0 && now - now_ms() < 5000 && now_ms() - now < 5000);
    CHECK_OK(leaseq_stats_oldest_waiting_ms(stats, &oldest));
    CHECK(oldest >= -1 && oldest < 60000);
    bool counting = false;
    CHECK_OK(leaseq_stats_counting(stats, &counting));
    CHECK(counting);
    const leaseq_minute *minutes = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_stats_minutes(stats, &minutes, &len));
    CHECK(len == 60 && minutes != NULL);
    leaseq_minute hour = {9, 9, 9, 9};
    CHECK_OK(leaseq_stats_last_hour(stats, &hour));
    CHECK(hour.completed == 1 && hour.failed == 1 && hour.dead == 1);
    uint64_t sum = 0;
    for (size_t i = 0; i < len; i++) sum += minutes[i].completed;
    CHECK(sum == hour.completed);
    leaseq_stats_free(stats);
    leaseq_queue_free(queue);
}

/* Completes one item and reads the stats: whether counting, minutes, last hour's completed. */
static void complete_one_and_read(leaseq_queue *queue, const char *id, bool *counting,
                                  size_t *len, uint64_t *completed) {
    CHECK(add_with(queue, id, "x", NULL));
    leaseq_lease *lease = lease_one(queue);
    REQUIRE(lease != NULL);
    bool done = false;
    CHECK_OK(leaseq_queue_complete(queue, lease, &done));
    CHECK(done);
    leaseq_lease_free(lease);
    leaseq_stats *stats = NULL;
    CHECK_OK(leaseq_queue_stats(queue, &stats));
    REQUIRE(stats != NULL);
    CHECK_OK(leaseq_stats_counting(stats, counting));
    const leaseq_minute *minutes = (const leaseq_minute *)&minutes; /* not NULL: must be set */
    CHECK_OK(leaseq_stats_minutes(stats, &minutes, len));
    CHECK((*len == 0) == (minutes == NULL));
    leaseq_minute hour = {9, 9, 9, 9};
    CHECK_OK(leaseq_stats_last_hour(stats, &hour));
    *completed = hour.completed;
    leaseq_stats_free(stats);
}

static void stats_counters_are_off_until_configured(void) {
    leaseq_queue *queue = fresh_queue(client, "counters");
    REQUIRE(queue != NULL);
    bool counting = true;
    size_t len = 99;
    uint64_t completed = 99;
    /* A fresh queue: not counted, and says so (0 minutes, counting false). */
    complete_one_and_read(queue, "a", &counting, &len, &completed);
    CHECK(!counting && len == 0 && completed == 0);
    leaseq_config got = LEASEQ_CONFIG_INIT;
    CHECK_OK(leaseq_queue_config(queue, &got));
    CHECK((got.set & LEASEQ_CONFIG_STATS) == 0);

    set_counters(queue, true);
    CHECK_OK(leaseq_queue_config(queue, &got));
    CHECK((got.set & LEASEQ_CONFIG_STATS) != 0 && got.stats);
    complete_one_and_read(queue, "b", &counting, &len, &completed);
    CHECK(counting && len == 60 && completed == 1); /* b only: a was not counted */

    set_counters(queue, false);
    CHECK_OK(leaseq_queue_config(queue, &got));
    CHECK((got.set & LEASEQ_CONFIG_STATS) != 0 && !got.stats);
    complete_one_and_read(queue, "c", &counting, &len, &completed);
    CHECK(!counting && len == 0 && completed == 0);
    leaseq_queue_free(queue);
}

/* ---- configuration ------------------------------------------------------------------------- */

static void config_set_get_reset(void) {
    leaseq_queue *queue = fresh_queue(client, "config");
    REQUIRE(queue != NULL);
    leaseq_config got = LEASEQ_CONFIG_INIT;
    CHECK_OK(leaseq_queue_config(queue, &got));
    CHECK(got.set == 0 && got.struct_size == sizeof got);

    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.max_attempts = 2;
    config.priority = 4;
    config.backoff.kind = LEASEQ_BACKOFF_FIXED;
    config.backoff.base_ms = 1500;
    config.dead_max_count = 50;
    config.dead_max_age_ms = 3600000;
    config.keep_result_for_ms = 10000;
    config.expires_after_ms = 120000;
    config.stats = true;
    config.set = LEASEQ_CONFIG_MAX_ATTEMPTS | LEASEQ_CONFIG_PRIORITY | LEASEQ_CONFIG_BACKOFF |
                 LEASEQ_CONFIG_DEAD_MAX_COUNT | LEASEQ_CONFIG_DEAD_MAX_AGE |
                 LEASEQ_CONFIG_KEEP_RESULT_FOR | LEASEQ_CONFIG_EXPIRES_AFTER |
                 LEASEQ_CONFIG_STATS;
    CHECK_OK(leaseq_queue_set_config(queue, &config));
    CHECK_OK(leaseq_queue_config(queue, &got));
    CHECK(got.set == config.set);
    CHECK(got.max_attempts == 2 && got.priority == 4 && got.dead_max_count == 50);
    CHECK(got.backoff.kind == LEASEQ_BACKOFF_FIXED && got.backoff.base_ms == 1500);
    CHECK(got.dead_max_age_ms == 3600000 && got.keep_result_for_ms == 10000 &&
          got.expires_after_ms == 120000 && got.stats);

    /* Items follow it: priority 4 and max attempts 2. */
    CHECK(add_with(queue, "c", "x", NULL));
    leaseq_lease *lease = lease_one(queue);
    REQUIRE(lease != NULL);
    uint32_t max_attempts = 0;
    CHECK_OK(leaseq_lease_max_attempts(lease, &max_attempts));
    CHECK(max_attempts == 2);
    leaseq_lease_free(lease);

    /* An older, smaller struct: only what fits is read back; the rest stays the caller's. */
    leaseq_config small;
    memset(&small, 0x5a, sizeof small);
    small.struct_size = (uint32_t)offsetof(leaseq_config, backoff);
    CHECK_OK(leaseq_queue_config(queue, &small));
    CHECK(small.struct_size == offsetof(leaseq_config, backoff));
    CHECK(small.set == (LEASEQ_CONFIG_MAX_ATTEMPTS | LEASEQ_CONFIG_PRIORITY));
    CHECK(small.max_attempts == 2 && small.priority == 4);
    CHECK(small.dead_max_count == 0x5a5a5a5a5a5a5a5aULL); /* never written */
    /* ...and an older struct sets what it holds. */
    small.max_attempts = 5;
    small.set = LEASEQ_CONFIG_MAX_ATTEMPTS;
    CHECK_OK(leaseq_queue_set_config(queue, &small));
    CHECK_OK(leaseq_queue_config(queue, &got));
    CHECK(got.max_attempts == 5 && got.priority == 4);

    /* Bad values are refused, naming them, and nothing is written. */
    leaseq_config bad = LEASEQ_CONFIG_INIT;
    bad.max_attempts = 9;
    bad.priority = -1001;
    bad.set = LEASEQ_CONFIG_MAX_ATTEMPTS | LEASEQ_CONFIG_PRIORITY;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &bad), "priority");
    bad.priority = 0;
    bad.dead_max_age_ms = -1;
    bad.set = LEASEQ_CONFIG_MAX_ATTEMPTS | LEASEQ_CONFIG_DEAD_MAX_AGE;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &bad), "config.dead_max_age_ms");
    bad.set = 1u << 31;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &bad), "config.set");
    bad.struct_size = 4;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &bad), "config.struct_size");
    CHECK_INVALID_ARG(leaseq_queue_config(queue, &bad), "out_config.struct_size");
    CHECK_OK(leaseq_queue_config(queue, &got));
    CHECK(got.max_attempts == 5);

    CHECK_OK(leaseq_queue_reset_config(queue));
    CHECK_OK(leaseq_queue_config(queue, &got));
    CHECK(got.set == 0 && got.max_attempts == 0);
    leaseq_queue_free(queue);
}

/* ---- incarnations ----------------------------------------------------------------------------- */

static void a_re_added_id_is_a_new_incarnation(void) {
    leaseq_queue *queue = fresh_queue(client, "incarnation");
    REQUIRE(queue != NULL);
    CHECK(add_with(queue, "i", "first", NULL));
    leaseq_lease *old = lease_one(queue);
    REQUIRE(old != NULL);
    bool completed = false;
    CHECK_OK(leaseq_queue_complete(queue, old, &completed));
    CHECK(completed);
    CHECK(add_with(queue, "i", "second", NULL));
    leaseq_lease *now = lease_one(queue);
    REQUIRE(now != NULL);
    const char *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    CHECK_OK(leaseq_lease_incarnation(old, &a, &la));
    CHECK_OK(leaseq_lease_incarnation(now, &b, &lb));
    CHECK(a && b && strcmp(a, b) != 0);
    leaseq_renew_outcome outcome = -9;
    CHECK_OK(leaseq_queue_renew_outcome(queue, old, 30000, &outcome));
    CHECK(outcome == LEASEQ_RENEW_OLDER_INCARNATION);
    CHECK_OK(leaseq_queue_complete(queue, old, &completed));
    CHECK(!completed);
    leaseq_fail_outcome fail = -9;
    int64_t retry_in = 0;
    CHECK_OK(leaseq_queue_fail(queue, old, "late", "", LEASEQ_RETRY_NEVER, 0, &fail, &outcome,
                               &retry_in));
    CHECK(fail == LEASEQ_FAIL_NOT_HELD && outcome == LEASEQ_RENEW_OLDER_INCARNATION);
    CHECK_OK(leaseq_queue_complete(queue, now, &completed));
    CHECK(completed);
    leaseq_lease_free(old);
    leaseq_lease_free(now);
    leaseq_queue_free(queue);
}

/* ---- NULL for every pointer argument of the lifecycle functions ------------------------------ */

static void null_pointer_arguments(void) {
    leaseq_queue *queue = fresh_queue(client, "nulls");
    REQUIRE(queue != NULL);
    CHECK(add_with(queue, "n", "x", NULL));
    CHECK(add_with(queue, "done", "x", NULL));
    leaseq_lease *lease = lease_one(queue);
    leaseq_lease *other = lease_one(queue);
    REQUIRE(lease != NULL && other != NULL);
    bool b = false;
    CHECK_OK(leaseq_queue_complete_with_result(queue, other, (const uint8_t *)"r", 1, -1, &b));
    leaseq_lease_free(other);
    leaseq_item *item = NULL;
    CHECK_OK(leaseq_item_new(NULL, 0, &item));
    leaseq_job *job = get_job(queue, "n");
    leaseq_stats *stats = NULL;
    CHECK_OK(leaseq_queue_stats(queue, &stats));
    leaseq_entry_list *list = NULL;
    CHECK_OK(leaseq_queue_list(queue, LEASEQ_STATE_LEASED, 0, 10, &list));
    const leaseq_entry *entry = NULL;
    CHECK_OK(leaseq_entry_list_get(list, 0, &entry));
    leaseq_result *result = NULL;
    CHECK_OK(leaseq_queue_result(queue, "done", &result));
    REQUIRE(job != NULL && stats != NULL && list != NULL && entry != NULL && result != NULL);

    const leaseq_item *items[] = {item};
    const char *ids[] = {"x"};
    leaseq_add_options ao = LEASEQ_ADD_OPTIONS_INIT;
    const leaseq_add_options *aos[] = {&ao};
    leaseq_lease_options lo = LEASEQ_LEASE_OPTIONS_INIT;
    leaseq_config config = LEASEQ_CONFIG_INIT;
    leaseq_lease *l = NULL, **ls = NULL;
    leaseq_job *j = NULL;
    leaseq_result *r = NULL;
    const leaseq_result *cr = NULL;
    leaseq_entry_list *el = NULL;
    const leaseq_entry *e = NULL;
    leaseq_stats *st = NULL;
    const leaseq_minute *m = NULL;
    leaseq_minute hour;
    leaseq_backoff backoff;
    const char *s = NULL;
    const uint8_t *d = NULL;
    size_t n = 0;
    uint64_t u = 0;
    uint32_t u32 = 0;
    int32_t i32 = 0;
    int64_t i64 = 0;
    leaseq_state state = 0;
    leaseq_fail_outcome fo = 0;
    leaseq_renew_outcome ro = 0;

    CHECK_NULL_ARG(leaseq_queue_add_with_options(NULL, item, &ao, &b), "queue");
    CHECK_NULL_ARG(leaseq_queue_add_with_options(queue, NULL, &ao, &b), "item");
    CHECK_NULL_ARG(leaseq_queue_add_with_options(queue, item, &ao, NULL), "out_added");
    CHECK_NULL_ARG(leaseq_queue_add_unique_with_options(NULL, item, &ao), "queue");
    CHECK_NULL_ARG(leaseq_queue_add_unique_with_options(queue, NULL, &ao), "item");
    CHECK_NULL_ARG(leaseq_queue_add_batch_with_options(NULL, items, aos, 1, &n), "queue");
    CHECK_NULL_ARG(leaseq_queue_add_batch_with_options(queue, NULL, aos, 1, &n), "items");
    CHECK_NULL_ARG(leaseq_queue_add_batch_with_options(queue, items, aos, 1, NULL), "out_added");
    CHECK_NULL_ARG(leaseq_queue_lease_with_options(NULL, &lo, &l), "queue");
    CHECK_NULL_ARG(leaseq_queue_lease_with_options(queue, &lo, NULL), "out_lease");
    CHECK_NULL_ARG(leaseq_queue_lease_batch(NULL, 1, &lo, &ls, &n), "queue");
    CHECK_NULL_ARG(leaseq_queue_lease_batch(queue, 1, &lo, NULL, &n), "out_leases");
    CHECK_NULL_ARG(leaseq_queue_lease_batch(queue, 1, &lo, &ls, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_queue_complete_with_result(NULL, lease, NULL, 0, -1, &b), "queue");
    CHECK_NULL_ARG(leaseq_queue_complete_with_result(queue, NULL, NULL, 0, -1, &b), "lease");
    CHECK_NULL_ARG(leaseq_queue_complete_with_result(queue, lease, NULL, 1, -1, &b), "result");
    CHECK_NULL_ARG(leaseq_queue_complete_with_result(queue, lease, NULL, 0, -1, NULL),
                   "out_completed");
    CHECK_NULL_ARG(leaseq_queue_fail(NULL, lease, "e", "", 0, 0, &fo, &ro, &i64), "queue");
    CHECK_NULL_ARG(leaseq_queue_fail(queue, NULL, "e", "", 0, 0, &fo, &ro, &i64), "lease");
    CHECK_NULL_ARG(leaseq_queue_fail(queue, lease, NULL, "", 0, 0, &fo, &ro, &i64), "error");
    CHECK_NULL_ARG(leaseq_queue_fail(queue, lease, "e", NULL, 0, 0, &fo, &ro, &i64), "error_type");
    CHECK_NULL_ARG(leaseq_queue_fail(queue, lease, "e", "", 0, 0, NULL, &ro, &i64), "out_outcome");
    CHECK_NULL_ARG(leaseq_queue_fail(queue, lease, "e", "", 0, 0, &fo, NULL, &i64), "out_not_held");
    CHECK_NULL_ARG(leaseq_queue_fail(queue, lease, "e", "", 0, 0, &fo, &ro, NULL),
                   "out_retry_in_ms");
    CHECK_NULL_ARG(leaseq_queue_release(NULL, lease, 0, &b), "queue");
    CHECK_NULL_ARG(leaseq_queue_release(queue, NULL, 0, &b), "lease");
    CHECK_NULL_ARG(leaseq_queue_release(queue, lease, 0, NULL), "out_released");
    CHECK_NULL_ARG(leaseq_queue_progress(NULL, lease, NULL, 0, &b), "queue");
    CHECK_NULL_ARG(leaseq_queue_progress(queue, NULL, NULL, 0, &b), "lease");
    CHECK_NULL_ARG(leaseq_queue_progress(queue, lease, NULL, 1, &b), "value");
    CHECK_NULL_ARG(leaseq_queue_progress(queue, lease, NULL, 0, NULL), "out_stored");
    CHECK_NULL_ARG(leaseq_queue_result(NULL, "x", &r), "queue");
    CHECK_NULL_ARG(leaseq_queue_result(queue, NULL, &r), "id");
    CHECK_NULL_ARG(leaseq_queue_result(queue, "x", NULL), "out_result");
    CHECK_NULL_ARG(leaseq_queue_wait_result(NULL, "x", 0, &r), "queue");
    CHECK_NULL_ARG(leaseq_queue_wait_result(queue, NULL, 0, &r), "id");
    CHECK_NULL_ARG(leaseq_queue_wait_result(queue, "x", 0, NULL), "out_result");
    CHECK_NULL_ARG(leaseq_queue_get(NULL, "x", &j), "queue");
    CHECK_NULL_ARG(leaseq_queue_get(queue, NULL, &j), "id");
    CHECK_NULL_ARG(leaseq_queue_get(queue, "x", NULL), "out_job");
    CHECK_NULL_ARG(leaseq_queue_list(NULL, LEASEQ_STATE_WAITING, 0, 1, &el), "queue");
    CHECK_NULL_ARG(leaseq_queue_list(queue, LEASEQ_STATE_WAITING, 0, 1, NULL), "out_list");
    CHECK_NULL_ARG(leaseq_queue_count(NULL, LEASEQ_STATE_WAITING, &u), "queue");
    CHECK_NULL_ARG(leaseq_queue_count(queue, LEASEQ_STATE_WAITING, NULL), "out_count");
    CHECK_NULL_ARG(leaseq_queue_stats(NULL, &st), "queue");
    CHECK_NULL_ARG(leaseq_queue_stats(queue, NULL), "out_stats");
    CHECK_NULL_ARG(leaseq_queue_cancel(NULL, "x", &state), "queue");
    CHECK_NULL_ARG(leaseq_queue_cancel(queue, NULL, &state), "id");
    CHECK_NULL_ARG(leaseq_queue_cancel(queue, "x", NULL), "out_previous");
    CHECK_NULL_ARG(leaseq_queue_dead_requeue(NULL, ids, 1, &u), "queue");
    CHECK_NULL_ARG(leaseq_queue_dead_requeue(queue, NULL, 1, &u), "ids");
    CHECK_NULL_ARG(leaseq_queue_dead_requeue(queue, ids, 1, NULL), "out_requeued");
    CHECK_NULL_ARG(leaseq_queue_dead_requeue_oldest(NULL, 1, &u), "queue");
    CHECK_NULL_ARG(leaseq_queue_dead_requeue_oldest(queue, 1, NULL), "out_requeued");
    CHECK_NULL_ARG(leaseq_queue_dead_purge(NULL, 1, &u), "queue");
    CHECK_NULL_ARG(leaseq_queue_dead_purge(queue, 1, NULL), "out_purged");
    CHECK_NULL_ARG(leaseq_queue_config(NULL, &config), "queue");
    CHECK_NULL_ARG(leaseq_queue_config(queue, NULL), "out_config");
    CHECK_NULL_ARG(leaseq_queue_set_config(NULL, &config), "queue");
    CHECK_NULL_ARG(leaseq_queue_set_config(queue, NULL), "config");
    CHECK_NULL_ARG(leaseq_queue_reset_config(NULL), "queue");

    CHECK_NULL_ARG(leaseq_lease_id_bytes(NULL, &d, &n), "lease");
    CHECK_NULL_ARG(leaseq_lease_id_bytes(lease, NULL, &n), "out_id");
    CHECK_NULL_ARG(leaseq_lease_id_bytes(lease, &d, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_lease_attempt(NULL, &u), "lease");
    CHECK_NULL_ARG(leaseq_lease_attempt(lease, NULL), "out_attempt");
    CHECK_NULL_ARG(leaseq_lease_incarnation(NULL, &s, &n), "lease");
    CHECK_NULL_ARG(leaseq_lease_incarnation(lease, NULL, &n), "out_incarnation");
    CHECK_NULL_ARG(leaseq_lease_incarnation(lease, &s, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_lease_max_attempts(NULL, &u32), "lease");
    CHECK_NULL_ARG(leaseq_lease_max_attempts(lease, NULL), "out_max_attempts");
    CHECK_NULL_ARG(leaseq_lease_backoff(NULL, &backoff), "lease");
    CHECK_NULL_ARG(leaseq_lease_backoff(lease, NULL), "out_backoff");

    CHECK_NULL_ARG(leaseq_job_id(NULL, &s), "job");
    CHECK_NULL_ARG(leaseq_job_id(job, NULL), "out_id");
    CHECK_NULL_ARG(leaseq_job_state(NULL, &state), "job");
    CHECK_NULL_ARG(leaseq_job_state(job, NULL), "out_state");
    CHECK_NULL_ARG(leaseq_job_data(NULL, &d, &n), "job");
    CHECK_NULL_ARG(leaseq_job_data(job, NULL, &n), "out_data");
    CHECK_NULL_ARG(leaseq_job_data(job, &d, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_job_attempts(NULL, &u), "job");
    CHECK_NULL_ARG(leaseq_job_attempts(job, NULL), "out_attempts");
    CHECK_NULL_ARG(leaseq_job_max_attempts(NULL, &i64), "job");
    CHECK_NULL_ARG(leaseq_job_max_attempts(job, NULL), "out_max_attempts");
    CHECK_NULL_ARG(leaseq_job_priority(NULL, &i32), "job");
    CHECK_NULL_ARG(leaseq_job_priority(job, NULL), "out_priority");
    CHECK_NULL_ARG(leaseq_job_error(NULL, &s), "job");
    CHECK_NULL_ARG(leaseq_job_error(job, NULL), "out_error");
    CHECK_NULL_ARG(leaseq_job_error_type(NULL, &s), "job");
    CHECK_NULL_ARG(leaseq_job_error_type(job, NULL), "out_error_type");
    CHECK_NULL_ARG(leaseq_job_dead_reason(NULL, &s), "job");
    CHECK_NULL_ARG(leaseq_job_dead_reason(job, NULL), "out_reason");
    CHECK_NULL_ARG(leaseq_job_progress(NULL, &d, &n), "job");
    CHECK_NULL_ARG(leaseq_job_progress(job, NULL, &n), "out_data");
    CHECK_NULL_ARG(leaseq_job_progress(job, &d, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_job_result(NULL, &cr), "job");
    CHECK_NULL_ARG(leaseq_job_result(job, NULL), "out_result");
    CHECK_NULL_ARG(leaseq_job_added_at_ms(NULL, &i64), "job");
    CHECK_NULL_ARG(leaseq_job_added_at_ms(job, NULL), "out_ms");
    CHECK_NULL_ARG(leaseq_job_due_at_ms(NULL, &i64), "job");
    CHECK_NULL_ARG(leaseq_job_due_at_ms(job, NULL), "out_ms");
    CHECK_NULL_ARG(leaseq_job_leased_at_ms(NULL, &i64), "job");
    CHECK_NULL_ARG(leaseq_job_leased_at_ms(job, NULL), "out_ms");
    CHECK_NULL_ARG(leaseq_job_lease_expires_at_ms(NULL, &i64), "job");
    CHECK_NULL_ARG(leaseq_job_lease_expires_at_ms(job, NULL), "out_ms");
    CHECK_NULL_ARG(leaseq_job_finished_at_ms(NULL, &i64), "job");
    CHECK_NULL_ARG(leaseq_job_finished_at_ms(job, NULL), "out_ms");
    CHECK_NULL_ARG(leaseq_job_lease_ttl_ms(NULL, &i64), "job");
    CHECK_NULL_ARG(leaseq_job_lease_ttl_ms(job, NULL), "out_ttl_ms");
    CHECK_NULL_ARG(leaseq_job_cancelled(NULL, &b), "job");
    CHECK_NULL_ARG(leaseq_job_cancelled(job, NULL), "out_cancelled");

    CHECK_NULL_ARG(leaseq_result_data(NULL, &d, &n), "result");
    CHECK_NULL_ARG(leaseq_result_data(result, NULL, &n), "out_data");
    CHECK_NULL_ARG(leaseq_result_data(result, &d, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_result_finished_at_ms(NULL, &i64), "result");
    CHECK_NULL_ARG(leaseq_result_finished_at_ms(result, NULL), "out_finished_at_ms");
    CHECK_NULL_ARG(leaseq_result_attempts(NULL, &u), "result");
    CHECK_NULL_ARG(leaseq_result_attempts(result, NULL), "out_attempts");

    CHECK_NULL_ARG(leaseq_entry_list_len(NULL, &n), "list");
    CHECK_NULL_ARG(leaseq_entry_list_len(list, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_entry_list_get(NULL, 0, &e), "list");
    CHECK_NULL_ARG(leaseq_entry_list_get(list, 0, NULL), "out_entry");
    CHECK_NULL_ARG(leaseq_entry_id(NULL, &s), "entry");
    CHECK_NULL_ARG(leaseq_entry_id(entry, NULL), "out_id");
    CHECK_NULL_ARG(leaseq_entry_at_ms(NULL, &i64), "entry");
    CHECK_NULL_ARG(leaseq_entry_at_ms(entry, NULL), "out_ms");
    CHECK_NULL_ARG(leaseq_entry_attempts(NULL, &u), "entry");
    CHECK_NULL_ARG(leaseq_entry_attempts(entry, NULL), "out_attempts");
    CHECK_NULL_ARG(leaseq_entry_error(NULL, &s), "entry");
    CHECK_NULL_ARG(leaseq_entry_error(entry, NULL), "out_error");
    CHECK_NULL_ARG(leaseq_entry_error_type(NULL, &s), "entry");
    CHECK_NULL_ARG(leaseq_entry_error_type(entry, NULL), "out_error_type");

    CHECK_NULL_ARG(leaseq_stats_count(NULL, LEASEQ_STATE_WAITING, &u), "stats");
    CHECK_NULL_ARG(leaseq_stats_count(stats, LEASEQ_STATE_WAITING, NULL), "out_count");
    CHECK_NULL_ARG(leaseq_stats_processing(NULL, &u), "stats");
    CHECK_NULL_ARG(leaseq_stats_processing(stats, NULL), "out_count");
    CHECK_NULL_ARG(leaseq_stats_oldest_waiting_ms(NULL, &i64), "stats");
    CHECK_NULL_ARG(leaseq_stats_oldest_waiting_ms(stats, NULL), "out_ms");
    CHECK_NULL_ARG(leaseq_stats_now_ms(NULL, &i64), "stats");
    CHECK_NULL_ARG(leaseq_stats_now_ms(stats, NULL), "out_ms");
    CHECK_NULL_ARG(leaseq_stats_counting(NULL, &b), "stats");
    CHECK_NULL_ARG(leaseq_stats_counting(stats, NULL), "out_counting");
    CHECK_NULL_ARG(leaseq_stats_minutes(NULL, &m, &n), "stats");
    CHECK_NULL_ARG(leaseq_stats_minutes(stats, NULL, &n), "out_minutes");
    CHECK_NULL_ARG(leaseq_stats_minutes(stats, &m, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_stats_last_hour(NULL, &hour), "stats");
    CHECK_NULL_ARG(leaseq_stats_last_hour(stats, NULL), "out_hour");

    /* Out-parameters are reset even when another argument is refused. */
    j = (leaseq_job *)&j;
    CHECK_NULL_ARG(leaseq_queue_get(queue, NULL, &j), "id");
    CHECK(j == NULL);
    ls = (leaseq_lease **)&ls;
    n = 5;
    CHECK_NULL_ARG(leaseq_queue_lease_batch(NULL, 1, NULL, &ls, &n), "queue");
    CHECK(ls == NULL && n == 0);
    fo = LEASEQ_FAIL_RETRYING;
    ro = LEASEQ_RENEW_RENEWED;
    i64 = 5;
    CHECK_NULL_ARG(leaseq_queue_fail(queue, NULL, "e", "", 0, 0, &fo, &ro, &i64), "lease");
    CHECK(fo == LEASEQ_FAIL_NOT_HELD && ro != LEASEQ_RENEW_RENEWED && i64 == -1);
    state = LEASEQ_STATE_DEAD;
    CHECK_NULL_ARG(leaseq_queue_cancel(queue, NULL, &state), "id");
    CHECK(state == LEASEQ_STATE_NONE);
    d = (const uint8_t *)"stale";
    n = 5;
    CHECK_NULL_ARG(leaseq_job_progress(NULL, &d, &n), "job");
    CHECK(d == NULL && n == 0);
    s = "stale";
    CHECK_NULL_ARG(leaseq_lease_incarnation(NULL, &s, &n), "lease");
    CHECK(s == NULL && n == 0);

    /* Every _free accepts NULL. */
    leaseq_job_free(NULL);
    leaseq_result_free(NULL);
    leaseq_entry_list_free(NULL);
    leaseq_stats_free(NULL);
    leaseq_lease_array_free(NULL, 0);
    leaseq_lease_array_free(NULL, 3);

    /* None of the refused calls touched the queue: the lease is still held, nothing else. */
    CHECK(count_in(queue, LEASEQ_STATE_LEASED) == 1 && count_in(queue, LEASEQ_STATE_WAITING) == 0);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 0 && count_in(queue, LEASEQ_STATE_DELAYED) == 0);
    leaseq_renew_outcome outcome = -9;
    CHECK_OK(leaseq_queue_renew_outcome(queue, lease, 30000, &outcome));
    CHECK(outcome == LEASEQ_RENEW_RENEWED);
    CHECK(job_state(queue, "x") == LEASEQ_STATE_NONE);
    leaseq_result_free(result);
    leaseq_entry_list_free(list);
    leaseq_stats_free(stats);
    leaseq_job_free(job);
    leaseq_item_free(item);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

/* An id another kind of client added that is not UTF-8 (raw commands here), named by its bytes
 * in every call that takes an id; and complete_and_lease keeping a result. */
static void ids_as_bytes_and_complete_and_lease_with_result(void) {
    leaseq_queue *queue = fresh_queue(client, "bytes");
    REQUIRE(queue != NULL);
    const char *prefix = NULL;
    CHECK_OK(leaseq_queue_prefix(queue, &prefix));
    static const char raw_id[] = "job-\xff\xfe";
    const size_t raw_len = sizeof raw_id - 1;
    char key[512], list[512], reply[256];
    snprintf(key, sizeof key, "%s:item:%s", prefix, raw_id);
    snprintf(list, sizeof list, "%s:queue", prefix);
    const char *set[] = {"SET", key, "payload"};
    const char *push[] = {"LPUSH", list, raw_id};
    REQUIRE(redis_raw(url, set, 3, reply, sizeof reply) == 0);
    REQUIRE(redis_raw(url, push, 3, reply, sizeof reply) == 0);

    leaseq_job *job = NULL;
    CHECK_OK(leaseq_queue_get_bytes(queue, (const uint8_t *)raw_id, raw_len, &job));
    REQUIRE(job != NULL);
    leaseq_state state = -1;
    CHECK_OK(leaseq_job_state(job, &state));
    CHECK(state == LEASEQ_STATE_WAITING);
    leaseq_job_free(job);

    leaseq_lease *lease = lease_one(queue);
    REQUIRE(lease != NULL);
    const uint8_t *id = NULL;
    size_t id_len = 0;
    CHECK_OK(leaseq_lease_id_bytes(lease, &id, &id_len));
    CHECK(id_len == raw_len && memcmp(id, raw_id, raw_len) == 0);
    leaseq_fail_outcome outcome;
    leaseq_renew_outcome why;
    int64_t retry_in;
    CHECK_OK(leaseq_queue_fail(queue, lease, "boom", "", LEASEQ_RETRY_NEVER, 0, &outcome, &why,
                               &retry_in));
    CHECK(outcome == LEASEQ_FAIL_DEAD);
    leaseq_lease_free(lease);
    const uint8_t *ids[] = {(const uint8_t *)raw_id, (const uint8_t *)"nope"};
    const size_t lens[] = {raw_len, 4};
    uint64_t requeued = 0;
    CHECK_OK(leaseq_queue_dead_requeue_bytes(queue, ids, lens, 2, &requeued));
    CHECK(requeued == 1);
    CHECK(add_with(queue, "next", "x", NULL));

    /* complete_and_lease keeps the raw item's result and leases the next one. */
    lease = lease_one(queue);
    REQUIRE(lease != NULL);
    bool completed = false;
    leaseq_lease *next = NULL;
    CHECK_OK(leaseq_queue_complete_and_lease_with_result(queue, lease, (const uint8_t *)"kept", 4,
                                                         60000, 30000, &completed, &next));
    CHECK(completed && lease_is(next, "next"));
    leaseq_result *result = NULL;
    CHECK_OK(leaseq_queue_result_bytes(queue, (const uint8_t *)raw_id, raw_len, &result));
    REQUIRE(result != NULL);
    const uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_result_data(result, &data, &len));
    CHECK(len == 4 && memcmp(data, "kept", 4) == 0);
    leaseq_result_free(result);
    result = NULL;
    CHECK_OK(leaseq_queue_wait_result_bytes(queue, (const uint8_t *)raw_id, raw_len, -1, &result));
    CHECK(result != NULL);
    leaseq_result_free(result);
    /* Its lossy reading is another id. */
    result = NULL;
    CHECK_OK(leaseq_queue_result(queue, "job-\xef\xbf\xbd\xef\xbf\xbd", &result));
    CHECK(result == NULL);
    /* A bad keep_result_for_ms is refused and completes nothing. */
    leaseq_lease *none = NULL;
    CHECK_INVALID_ARG(leaseq_queue_complete_and_lease_with_result(queue, next, NULL, 0, -2, 30000,
                                                                  &completed, &none),
                      "keep_result_for_ms");
    CHECK(!completed && none == NULL);
    CHECK_INVALID_ARG(leaseq_queue_complete_and_lease_with_result(queue, next, NULL, 0, 0, 30000,
                                                                  &completed, &none),
                      "keep_result_for_ms");
    CHECK(!completed && none == NULL);
    CHECK_NULL_ARG(leaseq_queue_complete_and_lease_with_result(queue, next, NULL, 2, -1, 30000,
                                                               &completed, &none),
                   "result");
    leaseq_state previous = -1;
    CHECK_OK(leaseq_queue_cancel_bytes(queue, (const uint8_t *)"next", 4, &previous));
    CHECK(previous == LEASEQ_STATE_LEASED);
    CHECK_INVALID_ARG(leaseq_queue_cancel_bytes(queue, NULL, 0, &previous), "id");
    CHECK_NULL_ARG(leaseq_queue_get_bytes(queue, NULL, 3, &job), "id");
    const uint8_t *null_id[] = {NULL};
    const size_t one[] = {1};
    CHECK_NULL_ARG(leaseq_queue_dead_requeue_bytes(queue, null_id, one, 1, &requeued), "ids[0]");
    CHECK_NULL_ARG(leaseq_queue_dead_requeue_bytes(queue, ids, NULL, 1, &requeued), "id_lens");
    leaseq_lease_free(lease);
    leaseq_lease_free(next);
    leaseq_queue_free(queue);
}

int main(void) {
    url = need_env("LEASEQ_TEST_URL");
    if (leaseq_client_connect(url, &client) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"names of states and renew outcomes", names_of_states_and_outcomes},
        {"delays and run_at", delays_and_run_at},
        {"priorities run highest first", priorities_run_highest_first},
        {"add options are checked (struct_size, set bits, negatives)",
         add_options_are_checked_in_the_c_layer},
        {"batch add takes options per item", batch_add_takes_options_per_item},
        {"lease options and the core's defaults", lease_options_and_defaults},
        {"lease_batch and its array", lease_batch_and_its_array},
        {"lease accessors: attempt, incarnation, max_attempts, backoff, id bytes", lease_accessors},
        {"results are kept and awaited", results_are_kept_and_awaited},
        {"fail retries, then the item dies", fail_retries_then_dies},
        {"release and progress", release_and_progress},
        {"get, list and count", get_list_and_count},
        {"done items, find and promote", done_items_find_and_promote},
        {"cancel reports the previous state", cancel_reports_the_previous_state},
        {"dead letters: requeue and purge", dead_letters_requeue_and_purge},
        {"stats count and keep minutes", stats_count_and_keep_minutes},
        {"stats counters are off until the configuration turns them on",
         stats_counters_are_off_until_configured},
        {"config: set, get (older struct), reset", config_set_get_reset},
        {"a re-added id is a new incarnation", a_re_added_id_is_a_new_incarnation},
        {"NULL for every pointer argument of the lifecycle", null_pointer_arguments},
        {"ids as bytes; complete_and_lease keeps a result",
         ids_as_bytes_and_complete_and_lease_with_result},
    };
    int status = run_tests("test_lifecycle", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(client);
    leaseq_runtime_shutdown(); /* so that valgrind sees no live runtime thread */
    return status;
}
