/*
 * The runner of leaseq.h (leaseq_worker_run) against a throwaway redis-server: outcomes and
 * results, retries and dead letters, a callback rate limited for the queue
 * (LEASEQ_JOB_RATE_LIMITED) and for its group (LEASEQ_JOB_RATE_LIMITED_GROUP), the lease-lost
 * flag of a cancelled job (and its cancel reason), the job timeout (a callback that polls
 * leaseq_worker_job_cancelled and one that ignores it, failed after the grace), shutdown while
 * busy (from another thread and from a signal handler: graceful wait, then release), the
 * `stats` option stored in the queue's configuration (or nothing written without it), the
 * options' struct_size (leaseq_worker_options_init, LEASEQ_WORKER_OPTIONS_INIT) and the events'
 * parts, bad options with nothing written to Redis, and a runner over several queues
 * (leaseq_worker_run_queues: strict order, weights, each job finished in its own queue, refusals),
 * a runner started while Redis is down (it waits, reporting the outage; a stop ends the wait),
 * and a stop made before a run (kept for the next call, then spent, a refused call too).
 *
 * Environment: LEASEQ_TEST_URL (a redis:// URL), LEASEQ_TEST_REDIS (the launcher, for a server
 * of the test's own that it takes down).
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static leaseq_client *client;
static const char *url;

static leaseq_queue *new_queue(void) { return fresh_queue(client, "worker"); }

static void add(const leaseq_queue *queue, const char *id) {
    leaseq_item *item = NULL;
    bool added = false;
    CHECK_OK(leaseq_item_with_id(id, (const uint8_t *)"x", 1, &item));
    CHECK_OK(leaseq_queue_add(queue, item, &added));
    CHECK(added);
    leaseq_item_free(item);
}

static uint64_t count_in(const leaseq_queue *queue, leaseq_state state) {
    uint64_t count = UINT64_MAX;
    CHECK_OK(leaseq_queue_count(queue, state, &count));
    return count;
}


/* ---- outcomes ----------------------------------------------------------------------------- */

static atomic_int completed_events;
static atomic_int dead_events;

static void count_events(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    if (strcmp(event->name, "completed") == 0) atomic_fetch_add(&completed_events, 1);
    if (strcmp(event->name, "dead") == 0) atomic_fetch_add(&dead_events, 1);
    if (atomic_load(&completed_events) == 11 && atomic_load(&dead_events) == 2) leaseq_worker_stop();
}

static leaseq_job_outcome outcomes_callback(leaseq_worker_job *job, void *user_data) {
    atomic_int *calls = user_data;
    atomic_fetch_add(calls, 1);
    const char *id = NULL;
    uint64_t attempt = 0;
    if (leaseq_worker_job_id(job, &id) != LEASEQ_OK || leaseq_worker_job_attempt(job, &attempt) != LEASEQ_OK) {
        return LEASEQ_JOB_FAIL;
    }
    if (strcmp(id, "poison") == 0) {
        leaseq_worker_job_set_error(job, "cannot parse", "ParseError", 0);
        return LEASEQ_JOB_FAIL_UNRECOVERABLE;
    }
    if (strcmp(id, "bare") == 0) return LEASEQ_JOB_FAIL_UNRECOVERABLE; /* no set_error */
    if (strcmp(id, "flaky") == 0 && attempt == 1) {
        leaseq_worker_job_set_error(job, "try again", "Busy", 10);
        return LEASEQ_JOB_FAIL;
    }
    char result[64];
    snprintf(result, sizeof result, "done %s", id);
    leaseq_worker_job_set_result(job, (const uint8_t *)result, strlen(result));
    return LEASEQ_JOB_COMPLETE;
}

static void outcomes_results_retries_and_dead_letters(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    char id[16];
    for (int i = 0; i < 10; i++) {
        snprintf(id, sizeof id, "j%d", i);
        add(queue, id);
    }
    add(queue, "flaky");
    add(queue, "poison");
    add(queue, "bare");
    atomic_int calls = 0;
    atomic_store(&completed_events, 0);
    atomic_store(&dead_events, 0);
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.concurrency = 4;
    options.on_event = count_events;
    CHECK_OK(leaseq_worker_run(queue, outcomes_callback, &calls, &options));
    CHECK(atomic_load(&calls) == 14); /* 10 + flaky twice + poison + bare */
    CHECK(atomic_load(&completed_events) == 11);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 2);
    /* A failure without leaseq_worker_job_set_error says so, rather than storing "". */
    leaseq_job *bare = NULL;
    CHECK_OK(leaseq_queue_get(queue, "bare", &bare));
    const char *error = NULL;
    if (bare != NULL && leaseq_job_error(bare, &error) == LEASEQ_OK && error != NULL) {
        CHECK(strcmp(error, "the callback returned LEASEQ_JOB_FAIL_UNRECOVERABLE without "
                            "leaseq_worker_job_set_error") == 0);
    } else {
        CHECK(!"the dead letter bare has an error");
    }
    leaseq_job_free(bare);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 0);
    leaseq_result *result = NULL;
    CHECK_OK(leaseq_queue_result(queue, "j3", &result));
    if (result != NULL) {
        const uint8_t *data = NULL;
        size_t len = 0;
        CHECK_OK(leaseq_result_data(result, &data, &len));
        CHECK(len == 7 && memcmp(data, "done j3", 7) == 0);
        leaseq_result_free(result);
    } else {
        CHECK(!"the result of j3 is kept");
    }
    leaseq_queue_free(queue);
}

/* ---- a rate-limited callback ---------------------------------------------------------------- */

static void stop_on_completed(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    if (strcmp(event->name, "completed") == 0) leaseq_worker_stop();
}

/* Rate limited on its first call (the API answered 429), done on the next. */
static leaseq_job_outcome rate_limited_once(leaseq_worker_job *job, void *user_data) {
    atomic_int *calls = user_data;
    uint64_t attempt = 0;
    if (leaseq_worker_job_attempt(job, &attempt) != LEASEQ_OK) return LEASEQ_JOB_FAIL;
    if (atomic_fetch_add(calls, 1) == 0) {
        if (leaseq_worker_job_set_rate_limited(job, 200) != LEASEQ_OK) return LEASEQ_JOB_FAIL;
        return LEASEQ_JOB_RATE_LIMITED;
    }
    char result[32];
    snprintf(result, sizeof result, "attempt %" PRIu64, attempt);
    leaseq_worker_job_set_result(job, (const uint8_t *)result, strlen(result));
    return LEASEQ_JOB_COMPLETE;
}

static void a_rate_limited_callback_runs_again_without_an_attempt_charged(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    leaseq_item *item = NULL;
    CHECK_OK(leaseq_item_with_id("api", (const uint8_t *)"x", 1, &item));
    leaseq_add_options once = LEASEQ_ADD_OPTIONS_INIT;
    once.set = LEASEQ_ADD_MAX_ATTEMPTS;
    once.max_attempts = 1;
    bool added = false;
    CHECK_OK(leaseq_queue_add_with_options(queue, item, &once, &added));
    CHECK(added);
    leaseq_item_free(item);
    atomic_int calls = 0;
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.on_event = stop_on_completed;
    CHECK_OK(leaseq_worker_run(queue, rate_limited_once, &calls, &options));
    CHECK(atomic_load(&calls) == 2); /* ran again after the hold */
    /* max_attempts 1, yet not dead: the rate-limited run was not charged an attempt. */
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 0);
    leaseq_result *result = NULL;
    CHECK_OK(leaseq_queue_result(queue, "api", &result));
    if (result != NULL) {
        const uint8_t *data = NULL;
        size_t len = 0;
        CHECK_OK(leaseq_result_data(result, &data, &len));
        CHECK(len == 9 && memcmp(data, "attempt 1", 9) == 0);
        leaseq_result_free(result);
    } else {
        CHECK(!"the result of api is kept");
    }
    leaseq_queue_free(queue);
}

/* ---- a flow's parent reads its children's results from its job ------------------------------ */

static void stop_when_report_completes(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    if (strcmp(event->name, "completed") == 0 && event->id != NULL &&
        strcmp(event->id, "report") == 0)
        leaseq_worker_stop();
}

/* Children keep "<id>!"; the parent keeps "<child>=<result>;..." read from its own job. */
static leaseq_job_outcome flow_callback(leaseq_worker_job *job, void *user_data) {
    (void)user_data;
    const char *id = NULL;
    if (leaseq_worker_job_id(job, &id) != LEASEQ_OK) return LEASEQ_JOB_FAIL;
    char result[128] = "";
    if (strcmp(id, "report") != 0) {
        snprintf(result, sizeof result, "%s!", id);
    } else {
        leaseq_dependency_results *deps = NULL;
        if (leaseq_worker_job_dependency_results(job, &deps) != LEASEQ_OK) return LEASEQ_JOB_FAIL;
        for (size_t i = 0; i < deps->results_len; i++) {
            const leaseq_dependency_result *r = &deps->results[i];
            size_t used = strlen(result);
            snprintf(result + used, sizeof result - used, "%s%s=%.*s", i ? ";" : "", r->id,
                     (int)r->result_len, r->has_result ? (const char *)r->result : "");
        }
        leaseq_dependency_results_free(deps);
    }
    leaseq_worker_job_set_result(job, (const uint8_t *)result, strlen(result));
    return LEASEQ_JOB_COMPLETE;
}

static void a_flows_parent_reads_its_childrens_results_from_its_job(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    leaseq_item *report = NULL, *a = NULL, *b = NULL;
    CHECK_OK(leaseq_item_with_id("report", (const uint8_t *)"r", 1, &report));
    CHECK_OK(leaseq_item_with_id("a", (const uint8_t *)"a", 1, &a));
    CHECK_OK(leaseq_item_with_id("b", (const uint8_t *)"b", 1, &b));
    leaseq_flow_child children[] = {{a, NULL, LEASEQ_FLOW_ROOT}, {b, NULL, LEASEQ_FLOW_ROOT}};
    size_t added = 0;
    CHECK_OK(leaseq_queue_add_flow(queue, report, NULL, children, 2, &added));
    CHECK(added == 3);
    leaseq_item_free(report);
    leaseq_item_free(a);
    leaseq_item_free(b);
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.on_event = stop_when_report_completes;
    CHECK_OK(leaseq_worker_run(queue, flow_callback, NULL, &options));
    leaseq_result *result = NULL;
    CHECK_OK(leaseq_queue_result(queue, "report", &result));
    REQUIRE(result != NULL);
    const uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_result_data(result, &data, &len));
    CHECK(len == strlen("a=a!;b=b!") && memcmp(data, "a=a!;b=b!", len) == 0);
    leaseq_result_free(result);
    CHECK_NULL_ARG(leaseq_worker_job_dependency_results(NULL, NULL), "job");
    leaseq_queue_free(queue);
}

/* ---- a callback rate limited for its group ------------------------------------------------- */

/* How long the group of "held" is held off: long enough for the other group's jobs to run
 * inside it (each checks that it is held), short enough for the test to wait it out. */
#define GROUP_HOLD_MS 2000

struct group_hold_run {
    const leaseq_queue *queue;
    atomic_int held_calls;  /* calls for "held" */
    atomic_int held_attempt; /* its attempt on its second call */
    atomic_int others_saw_hold; /* other jobs that ran while its group was held, not the queue */
    atomic_int completed;
};

static bool add_in_group(const leaseq_queue *queue, const char *id, const char *group,
                         uint32_t max_attempts) {
    leaseq_item *item = NULL;
    if (leaseq_item_with_id(id, (const uint8_t *)"x", 1, &item) != LEASEQ_OK) return false;
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.set = LEASEQ_ADD_MAX_ATTEMPTS | (group != NULL ? LEASEQ_ADD_GROUP : 0);
    options.max_attempts = max_attempts;
    options.group = group;
    bool added = false;
    leaseq_status status = leaseq_queue_add_with_options(queue, item, &options, &added);
    leaseq_item_free(item);
    return status == LEASEQ_OK && added;
}

/* Whether group "tenant-a" is held off and the queue itself is not. */
static bool only_tenant_a_held(const leaseq_queue *queue) {
    leaseq_group_info info;
    leaseq_stats *stats = NULL;
    int64_t queue_held = -2;
    bool ok = leaseq_queue_group(queue, "tenant-a", &info) == LEASEQ_OK &&
              leaseq_queue_stats(queue, &stats) == LEASEQ_OK &&
              leaseq_stats_rate_limited_for_ms(stats, &queue_held) == LEASEQ_OK;
    leaseq_stats_free(stats);
    return ok && info.rate_limited_for_ms > 0 && queue_held == -1;
}

/* "held" (group tenant-a) is rate limited for its group on its first call, which adds the
 * other jobs; they check, while they run, that tenant-a is held and the queue is not. */
static leaseq_job_outcome rate_limited_for_its_group(leaseq_worker_job *job, void *user_data) {
    struct group_hold_run *run = user_data;
    const char *id = NULL;
    uint64_t attempt = 0;
    if (leaseq_worker_job_id(job, &id) != LEASEQ_OK ||
        leaseq_worker_job_attempt(job, &attempt) != LEASEQ_OK) {
        return LEASEQ_JOB_FAIL;
    }
    if (strcmp(id, "held") == 0) {
        if (atomic_fetch_add(&run->held_calls, 1) == 0) {
            if (!add_in_group(run->queue, "b1", "tenant-b", 1) ||
                !add_in_group(run->queue, "b2", "tenant-b", 1) ||
                !add_in_group(run->queue, "b3", "tenant-b", 1) ||
                !add_in_group(run->queue, "plain", NULL, 1) ||
                leaseq_worker_job_set_rate_limited(job, GROUP_HOLD_MS) != LEASEQ_OK) {
                return LEASEQ_JOB_FAIL;
            }
            return LEASEQ_JOB_RATE_LIMITED_GROUP;
        }
        atomic_store(&run->held_attempt, (int)attempt);
        return LEASEQ_JOB_COMPLETE;
    }
    /* A job leased as the hold is being set waits for it (up to 30 s, then counts a miss). */
    for (int i = 0; i < 6000 && !only_tenant_a_held(run->queue); i++) sleep_ms(5);
    if (only_tenant_a_held(run->queue)) atomic_fetch_add(&run->others_saw_hold, 1);
    return LEASEQ_JOB_COMPLETE;
}

static void stop_after_five_completed(const leaseq_worker_event *event, void *user_data) {
    struct group_hold_run *run = user_data;
    if (strcmp(event->name, "completed") == 0 && atomic_fetch_add(&run->completed, 1) + 1 == 5)
        leaseq_worker_stop();
}

static void a_callback_rate_limited_for_its_group_holds_only_that_group(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    REQUIRE(add_in_group(queue, "held", "tenant-a", 1)); /* one attempt: none may be charged */
    struct group_hold_run run = {.queue = queue};
    atomic_init(&run.held_calls, 0);
    atomic_init(&run.held_attempt, 0);
    atomic_init(&run.others_saw_hold, 0);
    atomic_init(&run.completed, 0);
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.concurrency = 2;
    options.on_event = stop_after_five_completed;
    CHECK_OK(leaseq_worker_run(queue, rate_limited_for_its_group, &run, &options));
    CHECK(atomic_load(&run.completed) == 5);
    CHECK(atomic_load(&run.held_calls) == 2); /* ran again after its group's hold */
    CHECK(atomic_load(&run.held_attempt) == 1); /* the rate-limited run charged no attempt */
    /* tenant-b's three jobs and the plain one ran while tenant-a was held. */
    CHECK(atomic_load(&run.others_saw_hold) == 4);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 0);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 0);
    leaseq_queue_free(queue);
}

/* ---- a cancelled job sees lease_lost ------------------------------------------------------ */

static atomic_int lost_seen;
static atomic_int started;

static leaseq_job_outcome wait_for_loss(leaseq_worker_job *job, void *user_data) {
    (void)user_data;
    atomic_store(&started, 1);
    for (int i = 0; i < 3000; i++) { /* up to 30 s; the lease lives 1 s, renewed */
        bool lost = false;
        leaseq_cancel_reason reason = LEASEQ_CANCEL_NONE;
        /* One flag for every reason to stop; the lease-lost flag says the same here. */
        if (leaseq_worker_job_cancelled(job, &reason) == LEASEQ_OK && reason != LEASEQ_CANCEL_NONE &&
            leaseq_worker_job_lease_lost(job, &lost) == LEASEQ_OK && lost) {
            atomic_store(&lost_seen, reason == LEASEQ_CANCEL_LEASE_LOST ? 1 : 2);
            leaseq_worker_stop();
            return LEASEQ_JOB_COMPLETE;
        }
        sleep_ms(10);
    }
    return LEASEQ_JOB_COMPLETE;
}

static void *cancel_later(void *arg) {
    leaseq_queue *queue = arg;
    while (!atomic_load(&started)) sleep_ms(5);
    sleep_ms(1500); /* past the TTL: the runner renews the lease */
    uint64_t leased = count_in(queue, LEASEQ_STATE_LEASED);
    CHECK(leased == 1);
    leaseq_state previous = LEASEQ_STATE_NONE;
    CHECK_OK(leaseq_queue_cancel(queue, "long", &previous));
    CHECK(previous == LEASEQ_STATE_LEASED);
    return NULL;
}

static void a_cancelled_job_sees_its_lease_lost(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    add(queue, "long");
    atomic_store(&lost_seen, 0);
    atomic_store(&started, 0);
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.lease_ttl_ms = 1000;
    options.renew_every_ms = 100;
    pthread_t canceller;
    REQUIRE(pthread_create(&canceller, NULL, cancel_later, queue) == 0);
    CHECK_OK(leaseq_worker_run(queue, wait_for_loss, NULL, &options));
    pthread_join(canceller, NULL);
    CHECK(atomic_load(&lost_seen) == 1);
    leaseq_job *job = NULL;
    CHECK_OK(leaseq_queue_get(queue, "long", &job));
    CHECK(job == NULL); /* the cancel removed it */
    leaseq_job_free(job);
    leaseq_queue_free(queue);
}

/* ---- the job timeout ---------------------------------------------------------------------- */

static atomic_int timeout_events;
static atomic_int retrying_events;
static atomic_int dead_seen;
static atomic_int told_reason;
static char retry_message[160];

static void timeout_events_of(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    if (strcmp(event->name, "timed_out") == 0) atomic_fetch_add(&timeout_events, 1);
    if (strcmp(event->name, "retrying") == 0 && atomic_fetch_add(&retrying_events, 1) == 0) {
        snprintf(retry_message, sizeof retry_message, "%s", event->message);
    }
    if (strcmp(event->name, "dead") == 0) {
        atomic_store(&dead_seen, 1);
        leaseq_worker_stop();
    }
}

/* Polls the flag until told (at most 30 s), then claims success: a timed-out attempt fails. */
static leaseq_job_outcome cooperates(leaseq_worker_job *job, void *user_data) {
    (void)user_data;
    for (int i = 0; i < 3000; i++) {
        leaseq_cancel_reason reason = LEASEQ_CANCEL_NONE;
        if (leaseq_worker_job_cancelled(job, &reason) != LEASEQ_OK) return LEASEQ_JOB_FAIL;
        if (reason != LEASEQ_CANCEL_NONE) {
            atomic_store(&told_reason, reason);
            break;
        }
        sleep_ms(10);
    }
    return LEASEQ_JOB_COMPLETE;
}

static void add_once_or_twice(const leaseq_queue *queue, const char *id, uint32_t max_attempts) {
    leaseq_add_options o = LEASEQ_ADD_OPTIONS_INIT;
    o.max_attempts = max_attempts;
    o.backoff.kind = LEASEQ_BACKOFF_FIXED;
    o.backoff.base_ms = 0;
    o.set = LEASEQ_ADD_MAX_ATTEMPTS | LEASEQ_ADD_BACKOFF;
    leaseq_item *item = NULL;
    bool added = false;
    CHECK_OK(leaseq_item_with_id(id, (const uint8_t *)"x", 1, &item));
    CHECK_OK(leaseq_queue_add_with_options(queue, item, &o, &added));
    CHECK(added);
    leaseq_item_free(item);
}

static void check_dead_by_timeout(const leaseq_queue *queue, const char *id, uint64_t attempts) {
    leaseq_job *job = NULL;
    CHECK_OK(leaseq_queue_get(queue, id, &job));
    REQUIRE(job != NULL);
    leaseq_state state = LEASEQ_STATE_NONE;
    uint64_t n = 0;
    const char *error = NULL, *error_type = NULL;
    CHECK_OK(leaseq_job_state(job, &state));
    CHECK_OK(leaseq_job_attempts(job, &n));
    CHECK_OK(leaseq_job_error(job, &error));
    CHECK_OK(leaseq_job_error_type(job, &error_type));
    CHECK(state == LEASEQ_STATE_DEAD);
    CHECK(n == attempts);
    CHECK(error_type != NULL && strcmp(error_type, "timeout") == 0);
    CHECK(error != NULL && strstr(error, "timeout") != NULL);
    leaseq_job_free(job);
}

static void a_callback_past_its_timeout_is_told_and_fails(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    add_once_or_twice(queue, "slow", 2);
    atomic_store(&timeout_events, 0);
    atomic_store(&retrying_events, 0);
    atomic_store(&dead_seen, 0);
    atomic_store(&told_reason, 0);
    leaseq_worker_options options = LEASEQ_WORKER_OPTIONS_INIT;
    options.job_timeout_ms = 200;
    options.on_event = timeout_events_of;
    CHECK_OK(leaseq_worker_run(queue, cooperates, NULL, &options));
    CHECK(atomic_load(&told_reason) == LEASEQ_CANCEL_TIMEOUT);
    CHECK(atomic_load(&timeout_events) == 2);
    CHECK(atomic_load(&retrying_events) == 1);
    CHECK(strstr(retry_message, "timeout") != NULL); /* retried with the timeout error */
    CHECK(atomic_load(&dead_seen) == 1);
    check_dead_by_timeout(queue, "slow", 2);
    leaseq_queue_free(queue);
}

/* Ignores the flag: returns only once the attempt is dead (at most 30 s), then claims success. */
static leaseq_job_outcome ignores(leaseq_worker_job *job, void *user_data) {
    (void)user_data;
    for (int i = 0; i < 3000 && !atomic_load(&dead_seen); i++) sleep_ms(10);
    leaseq_cancel_reason reason = LEASEQ_CANCEL_NONE;
    CHECK_OK(leaseq_worker_job_cancelled(job, &reason));
    atomic_store(&told_reason, reason);
    return LEASEQ_JOB_COMPLETE;
}

static void a_callback_that_ignores_its_timeout_fails_after_the_grace(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    add_once_or_twice(queue, "stubborn", 1);
    atomic_store(&timeout_events, 0);
    atomic_store(&retrying_events, 0);
    atomic_store(&dead_seen, 0);
    atomic_store(&told_reason, 0);
    leaseq_worker_options options = LEASEQ_WORKER_OPTIONS_INIT;
    options.job_timeout_ms = 100;
    options.timeout_grace_ms = 100;
    options.on_event = timeout_events_of;
    /* Returns once the callback has: the shutdown waits for it. */
    CHECK_OK(leaseq_worker_run(queue, ignores, NULL, &options));
    CHECK(atomic_load(&dead_seen) == 1); /* dead while the callback still ran */
    CHECK(atomic_load(&told_reason) == LEASEQ_CANCEL_TIMEOUT);
    CHECK(atomic_load(&timeout_events) == 1);
    check_dead_by_timeout(queue, "stubborn", 1); /* its late complete changed nothing */
    leaseq_queue_free(queue);
}

/* ---- shutdown while busy ------------------------------------------------------------------ */

static atomic_int busy;

static leaseq_job_outcome slow_or_stuck(leaseq_worker_job *job, void *user_data) {
    (void)user_data;
    const char *id = NULL;
    leaseq_worker_job_id(job, &id);
    atomic_fetch_add(&busy, 1);
    if (id != NULL && strcmp(id, "stuck") == 0) {
        bool lost = false;
        while (leaseq_worker_job_lease_lost(job, &lost) == LEASEQ_OK && !lost) sleep_ms(5);
        return LEASEQ_JOB_COMPLETE; /* too late: the runner released it */
    }
    sleep_ms(200);
    return LEASEQ_JOB_COMPLETE;
}

static void on_sigterm(int sig) {
    (void)sig;
    leaseq_worker_stop(); /* async-signal-safe */
}

static void *stop_when_busy(void *arg) {
    int by_signal = *(int *)arg;
    while (atomic_load(&busy) < 2) sleep_ms(5);
    if (by_signal) {
        raise(SIGTERM);
    } else {
        leaseq_worker_stop();
    }
    return NULL;
}

static void shutdown_waits_then_releases(int by_signal) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    add(queue, "quick");
    add(queue, "stuck");
    atomic_store(&busy, 0);
    struct sigaction action, previous;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_sigterm;
    sigemptyset(&action.sa_mask);
    REQUIRE(sigaction(SIGTERM, &action, &previous) == 0);
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.concurrency = 2;
    options.shutdown_timeout_ms = 500;
    pthread_t stopper;
    REQUIRE(pthread_create(&stopper, NULL, stop_when_busy, &by_signal) == 0);
    CHECK_OK(leaseq_worker_run(queue, slow_or_stuck, NULL, &options));
    pthread_join(stopper, NULL);
    sigaction(SIGTERM, &previous, NULL);
    leaseq_job *job = NULL;
    CHECK_OK(leaseq_queue_get(queue, "quick", &job));
    CHECK(job == NULL); /* it finished during the graceful wait */
    leaseq_job_free(job);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 1); /* "stuck" was released */
    CHECK(count_in(queue, LEASEQ_STATE_LEASED) == 0);
    leaseq_queue_free(queue);
}

static void shutdown_from_a_thread(void) { shutdown_waits_then_releases(0); }
static void shutdown_from_a_signal_handler(void) { shutdown_waits_then_releases(1); }

/* ---- stats: the runner stores it in the queue's configuration ----------------------------- */

static atomic_int stats_completed;
static atomic_int stats_wanted;

static void stop_after_wanted(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    if (strcmp(event->name, "completed") == 0 &&
        atomic_fetch_add(&stats_completed, 1) + 1 == atomic_load(&stats_wanted)) {
        leaseq_worker_stop();
    }
}

static leaseq_job_outcome complete_it(leaseq_worker_job *job, void *user_data) {
    (void)job;
    (void)user_data;
    return LEASEQ_JOB_COMPLETE;
}

/* Runs a runner with `stats` (-1: not given) over `n` fresh items until each has completed. */
static void run_with_stats(const leaseq_queue *queue, int n, int32_t stats) {
    char id[16];
    for (int i = 0; i < n; i++) {
        snprintf(id, sizeof id, "s%d", i);
        add(queue, id);
    }
    atomic_store(&stats_completed, 0);
    atomic_store(&stats_wanted, n);
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    CHECK(options.stats == -1); /* the default leaves the configuration alone */
    options.concurrency = 4;
    options.housekeeping = 0;
    options.stats = stats;
    options.on_event = stop_after_wanted;
    CHECK_OK(leaseq_worker_run(queue, complete_it, NULL, &options));
    CHECK(atomic_load(&stats_completed) == n);
}

/* The queue's stats: whether it counts, and the last hour's completes. */
static bool counting(const leaseq_queue *queue, uint64_t *completed) {
    leaseq_stats *stats = NULL;
    bool on = false;
    leaseq_minute hour = {0};
    CHECK_OK(leaseq_queue_stats(queue, &stats));
    CHECK_OK(leaseq_stats_counting(stats, &on));
    CHECK_OK(leaseq_stats_last_hour(stats, &hour));
    leaseq_stats_free(stats);
    *completed = hour.completed;
    return on;
}

static void a_runner_with_stats_turns_the_counters_on(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    uint64_t completed = 0;
    CHECK(!counting(queue, &completed)); /* off by default */
    run_with_stats(queue, 12, 1);
    leaseq_config config = LEASEQ_CONFIG_INIT;
    CHECK_OK(leaseq_queue_config(queue, &config));
    CHECK(config.set == LEASEQ_CONFIG_STATS && config.stats);
    CHECK(counting(queue, &completed));
    CHECK(completed == 12); /* every complete the runner made was counted */
    leaseq_queue_free(queue);
}

static void a_runner_without_stats_writes_no_configuration(void) {
    char prefix[256];
    leaseq_queue *queue = NULL;
    unique_prefix(prefix, sizeof prefix, "no-stats");
    CHECK_OK(leaseq_client_queue(client, prefix, &queue));
    REQUIRE(queue != NULL);
    run_with_stats(queue, 5, -1);
    char key[300], reply[64];
    snprintf(key, sizeof key, "%s:config", prefix);
    const char *exists[] = {"EXISTS", key};
    REQUIRE(redis_raw(url, exists, 2, reply, sizeof reply) == 0);
    CHECK(strcmp(reply, ":0") == 0); /* no P:config written */
    uint64_t completed = 0;
    CHECK(!counting(queue, &completed));
    leaseq_queue_free(queue);
}

static leaseq_job_outcome never_called(leaseq_worker_job *job, void *user_data) {
    (void)job;
    (void)user_data;
    return LEASEQ_JOB_COMPLETE;
}

/* ---- options: struct_size, the INIT macro; the events' parts -------------------------------- */

static char event_log[4][160];
static atomic_int event_count;

/* Keeps the first four events as "name|id|attempt|message"; stops after "completed" and "dead". */
static void log_events(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    int n = atomic_fetch_add(&event_count, 1);
    if (n < 4) {
        snprintf(event_log[n], sizeof event_log[n], "%s|%s|%" PRIu64 "|%s", event->name,
                 event->id, event->attempt, event->message);
    }
    if (n == 1) leaseq_worker_stop();
}

static leaseq_job_outcome one_dies(leaseq_worker_job *job, void *user_data) {
    (void)user_data;
    const char *id = NULL;
    if (leaseq_worker_job_id(job, &id) == LEASEQ_OK && strcmp(id, "p") == 0) {
        leaseq_worker_job_set_error(job, "cannot parse", "ParseError", 0);
        return LEASEQ_JOB_FAIL_UNRECOVERABLE;
    }
    return LEASEQ_JOB_COMPLETE;
}

static void options_struct_size_and_event_parts(void) {
    /* init writes struct_size and the fields up to it, nothing beyond (a newer library never
     * writes past an older program's struct). */
    unsigned char buffer[sizeof(leaseq_worker_options) + 32];
    memset(buffer, 0xAB, sizeof buffer);
    leaseq_worker_options *filled = (leaseq_worker_options *)(void *)buffer;
    CHECK_OK(leaseq_worker_options_init(filled));
    uint32_t size = filled->struct_size;
    CHECK(size >= offsetof(leaseq_worker_options, stats) + sizeof(int32_t));
    CHECK(size <= sizeof(leaseq_worker_options));
    for (size_t i = size; i < sizeof buffer; i++) CHECK(buffer[i] == 0xAB);
    CHECK(filled->concurrency == 0 && filled->keep_results == -1 && filled->housekeeping == -1 &&
          filled->stats == -1 && filled->on_event == NULL && filled->fail_on_shutdown == 0);

    /* The macro: the same defaults, with the caller's sizeof. */
    leaseq_worker_options options = LEASEQ_WORKER_OPTIONS_INIT;
    CHECK(options.struct_size == sizeof(leaseq_worker_options));
    CHECK(options.concurrency == filled->concurrency &&
          options.lease_ttl_ms == filled->lease_ttl_ms &&
          options.renew_every_ms == filled->renew_every_ms &&
          options.keep_results == filled->keep_results &&
          options.shutdown_timeout_ms == filled->shutdown_timeout_ms &&
          options.fail_on_shutdown == filled->fail_on_shutdown &&
          options.poll_interval_ms == filled->poll_interval_ms &&
          options.heartbeat_ms == filled->heartbeat_ms &&
          options.housekeeping == filled->housekeeping &&
          options.deep_clean_every_ms == filled->deep_clean_every_ms &&
          options.on_event == filled->on_event && options.stats == filled->stats);
    CHECK(options.job_timeout_ms == 0 && options.timeout_grace_ms == 0);
    CHECK(options.on_log == NULL && options.log_level == 0 && options.report == NULL);

    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    add(queue, "ok");
    add(queue, "p");
    /* A struct_size below the fields the library reads: refused, nothing leased. */
    leaseq_worker_options small = options;
    small.struct_size = 4;
    CHECK_INVALID_ARG(leaseq_worker_run(queue, never_called, NULL, &small), "options.struct_size");
    /* A three-way flag other than -1, 0 or 1: refused, naming it. */
    leaseq_worker_options odd = options;
    odd.keep_results = 7;
    CHECK_INVALID_ARG(leaseq_worker_run(queue, never_called, NULL, &odd), "options.keep_results");
    odd = options;
    odd.stats = 2;
    CHECK_INVALID_ARG(leaseq_worker_run(queue, never_called, NULL, &odd), "options.stats");
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 2);

    /* A run with the macro's options; each event's parts are the core's. */
    atomic_store(&event_count, 0);
    options.on_event = log_events;
    CHECK_OK(leaseq_worker_run(queue, one_dies, NULL, &options));
    REQUIRE(atomic_load(&event_count) >= 2);
    bool completed = false, dead = false;
    for (int i = 0; i < 2; i++) {
        if (strcmp(event_log[i], "completed|ok|1|") == 0) completed = true;
        if (strcmp(event_log[i], "dead|p|1|cannot parse") == 0) dead = true;
    }
    CHECK(completed && dead);
    if (!completed || !dead) fprintf(stderr, "events: %s / %s\n", event_log[0], event_log[1]);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 1);
    leaseq_queue_free(queue);
}

/* ---- logging: the on_log callback; a failure's trace ---------------------------------------- */

/* Every line the runner logs, as "level|line", in order. */
static struct {
    pthread_mutex_t lock;
    char lines[16][512];
    int count;
} logged = {PTHREAD_MUTEX_INITIALIZER, {{0}}, 0};

static void keep_log_lines(leaseq_log_level level, const uint8_t *line, size_t line_len,
                           void *user_data) {
    (void)user_data;
    pthread_mutex_lock(&logged.lock);
    if (logged.count < 16) {
        snprintf(logged.lines[logged.count], sizeof logged.lines[0], "%d|%.*s", (int)level,
                 (int)line_len, (const char *)line);
        logged.count++;
    }
    pthread_mutex_unlock(&logged.lock);
}

static atomic_int ended_jobs;

static void stop_after_two_ended(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    if (strcmp(event->name, "completed") == 0 || strcmp(event->name, "dead") == 0) {
        if (atomic_fetch_add(&ended_jobs, 1) == 1) leaseq_worker_stop();
    }
}

static leaseq_job_outcome fails_with_a_trace(leaseq_worker_job *job, void *user_data) {
    (void)user_data;
    const char *id = NULL;
    if (leaseq_worker_job_id(job, &id) == LEASEQ_OK && strcmp(id, "bad") == 0) {
        static const char trace[] = "#0 parse (input.c:12)\n#1 handle (worker.c:40)";
        leaseq_worker_job_set_error(job, "cannot parse", "ParseError", 0);
        leaseq_worker_job_set_trace(job, (const uint8_t *)trace, strlen(trace));
        return LEASEQ_JOB_FAIL_UNRECOVERABLE;
    }
    return LEASEQ_JOB_COMPLETE;
}

/* Whether a kept line contains `text`; the first such line's level in `*level`. */
static bool logged_line(const char *text, int *level) {
    for (int i = 0; i < logged.count; i++) {
        if (strstr(logged.lines[i], text) != NULL) {
            if (level != NULL) *level = atoi(logged.lines[i]);
            return true;
        }
    }
    return false;
}

static void a_runner_logs_through_its_callback_and_keeps_a_trace(void) {
    const char *acl[] = {"ACL", "SETUSER", "clogger", "on", ">hunter2", "~*", "&*", "+@all"};
    char reply[256];
    REQUIRE(redis_raw(url, acl, 8, reply, sizeof reply) == 0 && strcmp(reply, "+OK") == 0);
    char secret_url[256];
    snprintf(secret_url, sizeof secret_url, "redis://clogger:hunter2@%s", url + strlen("redis://"));
    leaseq_client *own = NULL;
    REQUIRE(leaseq_client_connect(secret_url, &own) == LEASEQ_OK);
    leaseq_queue *queue = fresh_queue(own, "logs");
    REQUIRE(queue != NULL);
    add(queue, "ok");
    leaseq_item *item = NULL;
    leaseq_add_options add_options = LEASEQ_ADD_OPTIONS_INIT;
    add_options.max_attempts = 1;
    add_options.set |= LEASEQ_ADD_MAX_ATTEMPTS;
    bool added = false;
    CHECK_OK(leaseq_item_with_id("bad", (const uint8_t *)"x", 1, &item));
    CHECK_OK(leaseq_queue_add_with_options(queue, item, &add_options, &added));
    leaseq_item_free(item);

    pthread_mutex_lock(&logged.lock);
    logged.count = 0;
    pthread_mutex_unlock(&logged.lock);
    atomic_store(&ended_jobs, 0);
    leaseq_worker_options options = LEASEQ_WORKER_OPTIONS_INIT;
    options.concurrency = 2;
    options.on_event = stop_after_two_ended;
    options.on_log = keep_log_lines;
    leaseq_worker_report report = {99, 99, 99, 99, 99, 99};
    options.report = &report;
    CHECK_OK(leaseq_worker_run(queue, fails_with_a_trace, NULL, &options));
    /* What the runner did, as its last log line says it. */
    CHECK(report.completed == 1 && report.dead == 1 && report.retried == 0 && report.lost == 0 &&
          report.released == 0 && report.timed_out == 0);

    REQUIRE(logged.count >= 3);
    for (int i = 0; i < logged.count; i++) {
        CHECK(strstr(logged.lines[i], "hunter2") == NULL && strstr(logged.lines[i], "clogger") == NULL);
    }
    int level = 0;
    CHECK(strncmp(logged.lines[0], "20|runner ", 10) == 0);
    CHECK(logged_line(" started: queue ", &level) && level == LEASEQ_LOG_INFO);
    CHECK(logged_line(" on redis://127.0.0.1:", NULL) && logged_line(", concurrency 2", NULL));
    CHECK(logged_line("job bad failed (attempt 1) and is dead: cannot parse", &level) &&
          level == LEASEQ_LOG_ERROR);
    CHECK(!logged_line("job ok", NULL)); /* a success: debug, below the default level */
    CHECK(logged_line("stopped: 1 completed, 0 retried, 1 dead", &level) && level == LEASEQ_LOG_INFO);
    if (check_failures) {
        for (int i = 0; i < logged.count; i++) fprintf(stderr, "logged: %s\n", logged.lines[i]);
    }

    leaseq_job *job = NULL;
    CHECK_OK(leaseq_queue_get(queue, "bad", &job));
    REQUIRE(job != NULL);
    const char *trace = NULL;
    CHECK_OK(leaseq_job_trace(job, &trace));
    CHECK(trace != NULL && strcmp(trace, "#0 parse (input.c:12)\n#1 handle (worker.c:40)") == 0);
    leaseq_job_free(job);

    /* With log_level LEASEQ_LOG_DEBUG a success has its line. */
    add(queue, "fine");
    pthread_mutex_lock(&logged.lock);
    logged.count = 0;
    pthread_mutex_unlock(&logged.lock);
    options.on_event = stop_on_completed;
    options.log_level = LEASEQ_LOG_DEBUG;
    CHECK_OK(leaseq_worker_run(queue, fails_with_a_trace, NULL, &options));
    CHECK(logged_line("job fine completed (attempt 1)", &level) && level == LEASEQ_LOG_DEBUG);

    leaseq_queue_free(queue);
    leaseq_client_free(own);
}

/* ---- several queues ----------------------------------------------------------------------- */

/* What a runner over two queues did, in the order of its callbacks (concurrency 1). */
static struct {
    pthread_mutex_t lock;
    char ids[32][16];
    int count;
    int stop_after;
} ran = {PTHREAD_MUTEX_INITIALIZER, {{0}}, 0, 0};

/* Records the job's id, keeps its queue's prefix as its result, and stops the runner once
 * `ran.stop_after` jobs ran. */
static leaseq_job_outcome record_and_keep_the_prefix(leaseq_worker_job *job, void *user_data) {
    (void)user_data;
    const char *id = NULL, *prefix = NULL;
    if (leaseq_worker_job_id(job, &id) != LEASEQ_OK ||
        leaseq_worker_job_queue_prefix(job, &prefix) != LEASEQ_OK) {
        return LEASEQ_JOB_FAIL;
    }
    leaseq_worker_job_set_result(job, (const uint8_t *)prefix, strlen(prefix));
    pthread_mutex_lock(&ran.lock);
    if (ran.count < 32) snprintf(ran.ids[ran.count], sizeof ran.ids[0], "%s", id);
    ran.count++;
    bool last = ran.count == ran.stop_after;
    pthread_mutex_unlock(&ran.lock);
    if (last) leaseq_worker_stop();
    return LEASEQ_JOB_COMPLETE;
}

/* Whether the kept result of `id` in `queue` is the queue's own prefix. */
static bool result_is_its_prefix(const leaseq_queue *queue, const char *id) {
    const char *prefix = NULL;
    leaseq_result *result = NULL;
    CHECK_OK(leaseq_queue_prefix(queue, &prefix));
    CHECK_OK(leaseq_queue_result(queue, id, &result));
    if (result == NULL || prefix == NULL) return false;
    const uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_result_data(result, &data, &len));
    bool same = len == strlen(prefix) && memcmp(data, prefix, len) == 0;
    leaseq_result_free(result);
    return same;
}

/* Runs over two fresh queues of `per_queue` items each (a0.., b0..), concurrency 1, with
 * `weights` (NULL: strict); returns how many of the first eight callbacks were the first
 * queue's, after checking that every item ran, each finished in its own queue. */
static int run_two(int per_queue, const uint32_t *weights) {
    leaseq_queue *a = new_queue(), *b = new_queue();
    if (a == NULL || b == NULL) {
        CHECK(!"two fresh queues");
        return -1;
    }
    char id[16];
    for (int i = 0; i < per_queue; i++) {
        snprintf(id, sizeof id, "a%d", i);
        add(a, id);
        snprintf(id, sizeof id, "b%d", i);
        add(b, id);
    }
    pthread_mutex_lock(&ran.lock);
    ran.count = 0;
    ran.stop_after = 2 * per_queue;
    pthread_mutex_unlock(&ran.lock);
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.concurrency = 1;
    options.housekeeping = 0;
    const leaseq_queue *queues[] = {a, b};
    CHECK_OK(leaseq_worker_run_queues(queues, 2, weights, record_and_keep_the_prefix, NULL,
                                      &options));
    CHECK(ran.count == 2 * per_queue);
    CHECK(count_in(a, LEASEQ_STATE_WAITING) == 0 && count_in(b, LEASEQ_STATE_WAITING) == 0);
    CHECK(count_in(a, LEASEQ_STATE_LEASED) == 0 && count_in(b, LEASEQ_STATE_LEASED) == 0);
    CHECK(result_is_its_prefix(a, "a1"));
    CHECK(result_is_its_prefix(b, "b1"));
    int from_a = 0;
    for (int i = 0; i < 8 && i < ran.count; i++) from_a += ran.ids[i][0] == 'a';
    leaseq_queue_free(a);
    leaseq_queue_free(b);
    return from_a;
}

static void several_queues_in_strict_order(void) {
    CHECK(run_two(4, NULL) == 4);
    static const char *expected[] = {"a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3"};
    for (int i = 0; i < 8; i++) {
        CHECK(strcmp(ran.ids[i], expected[i]) == 0);
        if (strcmp(ran.ids[i], expected[i]) != 0) fprintf(stderr, "#%d: %s\n", i, ran.ids[i]);
    }
}

static void several_queues_weighted(void) {
    static const uint32_t three_to_one[] = {3, 1}, one_to_three[] = {1, 3};
    CHECK(run_two(6, three_to_one) == 6);
    CHECK(run_two(6, one_to_three) == 2);
}

static void several_queues_refused(void) {
    leaseq_queue *a = new_queue(), *b = new_queue();
    REQUIRE(a != NULL && b != NULL);
    add(a, "a");
    leaseq_client *elsewhere = NULL;
    CHECK_OK(leaseq_client_connect(url, &elsewhere));
    leaseq_queue *foreign = fresh_queue(elsewhere, "worker");
    REQUIRE(foreign != NULL);
    const leaseq_queue *none[] = {a};
    const leaseq_queue *twice[] = {a, a};
    const leaseq_queue *mixed[] = {a, foreign};
    const leaseq_queue *with_null[] = {a, NULL};
    const leaseq_queue *both[] = {a, b};
    const leaseq_queue *many[65];
    for (int i = 0; i < 65; i++) many[i] = i % 2 ? a : b;
    static const uint32_t zero[] = {1, 0}, too_heavy[] = {1, 1001};
    CHECK_INVALID_ARG(leaseq_worker_run_queues(none, 0, NULL, never_called, NULL, NULL), "queues");
    CHECK_INVALID_ARG(leaseq_worker_run_queues(many, 65, NULL, never_called, NULL, NULL), "queues");
    CHECK_INVALID_ARG(leaseq_worker_run_queues(twice, 2, NULL, never_called, NULL, NULL), "queues");
    CHECK_INVALID_ARG(leaseq_worker_run_queues(mixed, 2, NULL, never_called, NULL, NULL), "queues");
    CHECK_INVALID_ARG(leaseq_worker_run_queues(both, 2, zero, never_called, NULL, NULL), "weights");
    CHECK_INVALID_ARG(leaseq_worker_run_queues(both, 2, too_heavy, never_called, NULL, NULL),
                      "weights");
    CHECK_NULL_ARG(leaseq_worker_run_queues(NULL, 2, NULL, never_called, NULL, NULL), "queues");
    CHECK_NULL_ARG(leaseq_worker_run_queues(with_null, 2, NULL, never_called, NULL, NULL),
                   "queues[1]");
    CHECK_NULL_ARG(leaseq_worker_run_queues(both, 2, NULL, NULL, NULL, NULL), "callback");
    const char *prefix = "unchanged";
    CHECK_NULL_ARG(leaseq_worker_job_queue_prefix(NULL, &prefix), "job");
    CHECK(prefix == NULL); /* an out-parameter is set on failure too */
    /* Nothing leased, nothing written to the second queue. */
    CHECK(count_in(a, LEASEQ_STATE_WAITING) == 1);
    CHECK(count_in(b, LEASEQ_STATE_WAITING) == 0);
    leaseq_queue_free(foreign);
    leaseq_client_free(elsewhere);
    leaseq_queue_free(a);
    leaseq_queue_free(b);
}

/* ---- a runner started while Redis is down -------------------------------------------------- */

/* A redis-server of this test's own, through the shared launcher (LEASEQ_TEST_REDIS): it
 * answers "down" (killed, left down) and "up" (an empty one on its port) on its stdin. */
struct own_server {
    pid_t pid;
    FILE *to;   /* the launcher's stdin */
    FILE *from; /* its stdout */
    char url[128];
};

static int own_server_start(struct own_server *s) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) return -1;
    s->pid = fork();
    if (s->pid < 0) return -1;
    if (s->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        const char *launcher = getenv("LEASEQ_TEST_REDIS");
        execl(launcher, launcher, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    s->to = fdopen(in[1], "w");
    s->from = fdopen(out[0], "r");
    char line[512];
    if (s->to == NULL || s->from == NULL || fgets(line, sizeof line, s->from) == NULL) return -1;
    /* {"url": "redis://127.0.0.1:PORT", ...} */
    const char *start = strstr(line, "redis://");
    const char *end = start == NULL ? NULL : strchr(start, '"');
    if (end == NULL || (size_t)(end - start) >= sizeof s->url) return -1;
    memcpy(s->url, start, (size_t)(end - start));
    s->url[end - start] = '\0';
    return 0;
}

/* Tells the launcher `command` ("down" or "up") and waits for its answer, the same word. */
static int own_server_says(struct own_server *s, const char *command) {
    char line[64];
    if (fprintf(s->to, "%s\n", command) < 0 || fflush(s->to) != 0) return -1;
    if (fgets(line, sizeof line, s->from) == NULL) return -1;
    line[strcspn(line, "\n")] = '\0';
    return strcmp(line, command) == 0 ? 0 : -1;
}

/* Closing its stdin stops the launcher and its server. */
static void own_server_stop(struct own_server *s) {
    fclose(s->to);
    fclose(s->from);
    waitpid(s->pid, NULL, 0);
}

static char waited_events[4][200];
static atomic_int waited_count;

/* Keeps the events as "name|message"; stops the runner at "recovered". */
static void keep_wait_events(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    int n = atomic_fetch_add(&waited_count, 1);
    if (n < 4) snprintf(waited_events[n], sizeof waited_events[n], "%s|%s", event->name, event->message);
    if (strcmp(event->name, "recovered") == 0) leaseq_worker_stop();
}

static void *stop_after_half_a_second(void *arg) {
    (void)arg;
    sleep_ms(500);
    leaseq_worker_stop();
    return NULL;
}

static void *up_after_a_second(void *arg) {
    sleep_ms(1000);
    return (void *)(intptr_t)own_server_says(arg, "up");
}

static void a_runner_started_while_redis_is_down_waits_for_it(void) {
    struct own_server server;
    REQUIRE(own_server_start(&server) == 0);
    leaseq_client *own = NULL;
    REQUIRE(leaseq_client_connect(server.url, &own) == LEASEQ_OK);
    leaseq_queue *queue = fresh_queue(own, "waits");
    REQUIRE(queue != NULL);
    REQUIRE(own_server_says(&server, "down") == 0);

    /* Bad options are refused at once, not after the wait (which would never end here). */
    leaseq_worker_options options = LEASEQ_WORKER_OPTIONS_INIT;
    options.concurrency = 1001;
    CHECK_INVALID_ARG(leaseq_worker_run(queue, never_called, NULL, &options), "concurrency");
    const leaseq_queue *one[] = {queue};
    const uint32_t zero[] = {0};
    CHECK_INVALID_ARG(leaseq_worker_run_queues(one, 1, zero, never_called, NULL, NULL), "weights");

    /* A stop from another thread ends the wait: LEASEQ_OK, nothing run; the outage reported
     * once, as an "error" of step "connect", and as a warning line. */
    options = (leaseq_worker_options)LEASEQ_WORKER_OPTIONS_INIT;
    options.on_event = keep_wait_events;
    options.on_log = keep_log_lines;
    pthread_mutex_lock(&logged.lock);
    logged.count = 0;
    pthread_mutex_unlock(&logged.lock);
    atomic_store(&waited_count, 0);
    leaseq_worker_report report = {99, 99, 99, 99, 99, 99};
    options.report = &report;
    pthread_t stopper;
    REQUIRE(pthread_create(&stopper, NULL, stop_after_half_a_second, NULL) == 0);
    CHECK_OK(leaseq_worker_run(queue, never_called, NULL, &options));
    pthread_join(stopper, NULL);
    CHECK(report.completed == 0 && report.dead == 0 && report.timed_out == 0); /* nothing run */
    CHECK(atomic_load(&waited_count) == 1);
    CHECK(strncmp(waited_events[0], "error|connect: ", 15) == 0);
    int level = 0;
    CHECK(logged_line("Redis cannot be reached as the runner starts; waiting for it", &level) &&
          level == LEASEQ_LOG_WARN);

    /* Redis back a second later: "recovered" (which stops this runner), LEASEQ_OK. */
    atomic_store(&waited_count, 0);
    pthread_t upper;
    REQUIRE(pthread_create(&upper, NULL, up_after_a_second, &server) == 0);
    CHECK_OK(leaseq_worker_run(queue, never_called, NULL, &options));
    void *up = NULL;
    pthread_join(upper, &up);
    CHECK(up == NULL);
    CHECK(atomic_load(&waited_count) == 2);
    CHECK(strncmp(waited_events[0], "error|connect: ", 15) == 0);
    CHECK(strcmp(waited_events[1], "recovered|connect") == 0);
    CHECK(logged_line("Redis answers; the runner starts", &level) && level == LEASEQ_LOG_INFO);
    if (check_failures) {
        for (int i = 0; i < 2; i++) fprintf(stderr, "event: %s\n", waited_events[i]);
    }
    leaseq_queue_free(queue);
    leaseq_client_free(own);
    own_server_stop(&server);
}

/* ---- arguments ---------------------------------------------------------------------------- */

static void bad_arguments_write_nothing(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    add(queue, "a");
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.concurrency = 1001;
    CHECK_STATUS(LEASEQ_INVALID_ARGUMENT, leaseq_worker_run(queue, never_called, NULL, &options));
    CHECK_MESSAGE_HAS("concurrency");
    CHECK_STATUS(LEASEQ_NULL_ARGUMENT, leaseq_worker_run(queue, NULL, NULL, NULL));
    CHECK_MESSAGE_HAS("callback");
    CHECK_STATUS(LEASEQ_NULL_ARGUMENT, leaseq_worker_run(NULL, never_called, NULL, NULL));
    CHECK_STATUS(LEASEQ_NULL_ARGUMENT, leaseq_worker_options_init(NULL));
    CHECK_STATUS(LEASEQ_NULL_ARGUMENT, leaseq_worker_job_id(NULL, NULL));
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 1); /* nothing leased */
    leaseq_queue_free(queue);
}

/* ---- a stop made before a run: kept for the next call, then spent ---------------------------- */

static leaseq_job_outcome count_the_call(leaseq_worker_job *job, void *user_data) {
    (void)job;
    atomic_fetch_add((atomic_int *)user_data, 1);
    return LEASEQ_JOB_COMPLETE;
}

static void a_stop_made_before_a_run_is_kept_for_the_next_call_then_spent(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    add(queue, "a");
    atomic_int calls = 0;
    leaseq_worker_report report = {.completed = 99};
    leaseq_worker_options options = LEASEQ_WORKER_OPTIONS_INIT;
    options.report = &report;
    /* A stop with no runner (a signal just before the start): the next run runs nothing. */
    leaseq_worker_stop();
    CHECK_OK(leaseq_worker_run(queue, count_the_call, &calls, &options));
    CHECK(atomic_load(&calls) == 0);
    CHECK(report.completed == 0);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 1);
    /* A call refused for its arguments spends a kept stop too, as every call that returns. */
    leaseq_worker_stop();
    options.concurrency = 1001;
    CHECK_STATUS(LEASEQ_INVALID_ARGUMENT, leaseq_worker_run(queue, count_the_call, &calls, &options));
    CHECK_MESSAGE_HAS("concurrency");
    /* So the next run runs normally, until its own stop. */
    options.concurrency = 0;
    options.on_event = stop_on_completed;
    CHECK_OK(leaseq_worker_run(queue, count_the_call, &calls, &options));
    CHECK(atomic_load(&calls) == 1);
    CHECK(report.completed == 1);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 0);
    leaseq_queue_free(queue);
}

int main(void) {
    url = need_env("LEASEQ_TEST_URL");
    if (leaseq_client_connect(url, &client) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"outcomes: results, retries, dead letters", outcomes_results_retries_and_dead_letters},
        {"a rate-limited callback runs again, no attempt charged",
         a_rate_limited_callback_runs_again_without_an_attempt_charged},
        {"a callback rate limited for its group holds only that group",
         a_callback_rate_limited_for_its_group_holds_only_that_group},
        {"a cancelled job sees its lease lost", a_cancelled_job_sees_its_lease_lost},
        {"a callback past its timeout is told, and its attempt fails",
         a_callback_past_its_timeout_is_told_and_fails},
        {"a callback that ignores its timeout fails after the grace",
         a_callback_that_ignores_its_timeout_fails_after_the_grace},
        {"shutdown from a thread: wait, then release", shutdown_from_a_thread},
        {"shutdown from a signal handler: wait, then release", shutdown_from_a_signal_handler},
        {"a runner with stats = 1 turns the queue's counters on",
         a_runner_with_stats_turns_the_counters_on},
        {"a runner without stats writes no configuration",
         a_runner_without_stats_writes_no_configuration},
        {"options: struct_size, LEASEQ_WORKER_OPTIONS_INIT; events carry the core's parts",
         options_struct_size_and_event_parts},
        {"bad arguments write nothing", bad_arguments_write_nothing},
        {"a runner logs through on_log (no password, failures, no success) and keeps a trace",
         a_runner_logs_through_its_callback_and_keeps_a_trace},
        {"several queues: strict order, each job finished in its own queue",
         several_queues_in_strict_order},
        {"several queues: weights set the proportion", several_queues_weighted},
        {"several queues: bad queues and weights refused, naming the argument",
         several_queues_refused},
        {"a runner started while Redis is down waits for it, reporting it",
         a_runner_started_while_redis_is_down_waits_for_it},
        {"a stop made before a run is kept for the next call, then spent",
         a_stop_made_before_a_run_is_kept_for_the_next_call_then_spent},
        {"a flow's parent reads its children's results from its job",
         a_flows_parent_reads_its_childrens_results_from_its_job},
    };
    int status = run_tests("test_worker", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(client);
    leaseq_runtime_shutdown();
    return status;
}
