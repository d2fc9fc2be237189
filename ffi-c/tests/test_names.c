/*
 * Jobs by name (spec/PROTOCOL.md 3.2 and 13.1) through leaseq.h against a throwaway
 * redis-server: an item's name (LEASEQ_ADD_NAME) kept, leased (leaseq_lease_name) and read back
 * (leaseq_job_name); bad names refused naming `name` (a batch: `items`) with nothing written;
 * leaseq_queue_counts_by_name off (NULL) and on; and a runner's table of handlers by name
 * (leaseq_worker_run_named): each name to its handler, a job no handler takes dead with error
 * type "NoHandler" and no callback called, a fallback taking the rest, and bad tables refused
 * naming `handlers` before anything is written.
 *
 * Environment: LEASEQ_TEST_URL (a redis:// URL).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdatomic.h>
#include <stdint.h>

#include "check.h"

static leaseq_client *client;
static const char *url;

static leaseq_queue *new_queue(void) { return fresh_queue(client, "names"); }

/* Adds item `id` named `name` (NULL: no name) through the options; returns the status. */
static leaseq_status add_named(const leaseq_queue *queue, const char *id, const char *name) {
    leaseq_item *item = NULL;
    leaseq_status status = leaseq_item_with_id(id, (const uint8_t *)"x", 1, &item);
    if (status != LEASEQ_OK) return status;
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    if (name != NULL) {
        options.set = LEASEQ_ADD_NAME;
        options.name = name;
    }
    bool added = false;
    status = leaseq_queue_add_with_options(queue, item, &options, &added);
    leaseq_item_free(item);
    if (status == LEASEQ_OK) CHECK(added);
    return status;
}

static uint64_t count_in(const leaseq_queue *queue, leaseq_state state) {
    uint64_t count = UINT64_MAX;
    CHECK_OK(leaseq_queue_count(queue, state, &count));
    return count;
}

/* The first line of `KEYS <the queue's prefix>*`: "*N", N keys of the queue. */
static void queue_keys(const leaseq_queue *queue, char *reply, size_t size) {
    const char *prefix = NULL;
    char pattern[300];
    CHECK_OK(leaseq_queue_prefix(queue, &prefix));
    snprintf(pattern, sizeof pattern, "%s*", prefix != NULL ? prefix : "");
    const char *argv[] = {"KEYS", pattern};
    CHECK(redis_raw(url, argv, 2, reply, size) == 0);
}

/* ---- an item's name ----------------------------------------------------------------------- */

/* Leases the next item, which must be `id`; returns the lease (NULL when there is none). */
static leaseq_lease *lease_next(const leaseq_queue *queue, const char *id) {
    leaseq_lease *lease = NULL;
    const char *leased = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 10000, 0, &lease));
    if (lease == NULL) return NULL;
    CHECK_OK(leaseq_lease_id(lease, &leased));
    CHECK(leased != NULL && strcmp(leased, id) == 0);
    return lease;
}

/* Whether the lease's name is `want` (NULL: it has none). */
static bool lease_named(const leaseq_lease *lease, const char *want) {
    const char *name = "unset";
    CHECK_OK(leaseq_lease_name(lease, &name));
    return want == NULL ? name == NULL : name != NULL && strcmp(name, want) == 0;
}

/* Whether `get` shows item `id` with the name `want` (NULL: none). */
static bool job_named(const leaseq_queue *queue, const char *id, const char *want) {
    leaseq_job *job = NULL;
    const char *name = "unset";
    CHECK_OK(leaseq_queue_get(queue, id, &job));
    if (job == NULL) return false;
    CHECK_OK(leaseq_job_name(job, &name));
    bool same = want == NULL ? name == NULL : name != NULL && strcmp(name, want) == 0;
    leaseq_job_free(job);
    return same;
}

/* Whether `get` knows item `id`. */
static bool has_job(const leaseq_queue *queue, const char *id) {
    leaseq_job *job = NULL;
    CHECK_OK(leaseq_queue_get(queue, id, &job));
    leaseq_job_free(job);
    return job != NULL;
}

static void a_named_item_is_added_leased_and_read_back(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    CHECK_OK(add_named(queue, "m1", "send_email"));
    CHECK(job_named(queue, "m1", "send_email"));
    /* Every lease of the item carries its name, a retry's too. */
    leaseq_lease *lease = lease_next(queue, "m1");
    REQUIRE(lease != NULL);
    CHECK(lease_named(lease, "send_email"));
    CHECK(job_named(queue, "m1", "send_email"));
    const char *unset = "unset";
    CHECK_NULL_ARG(leaseq_lease_name(lease, NULL), "out_name");
    CHECK_NULL_ARG(leaseq_lease_name(NULL, &unset), "lease");
    CHECK(unset == NULL); /* out-parameters are set on failure too */
    leaseq_fail_outcome outcome;
    leaseq_renew_outcome not_held;
    int64_t retry_in = -1;
    CHECK_OK(leaseq_queue_fail(queue, lease, "smtp down", "SmtpError", LEASEQ_RETRY_AFTER, 0,
                               &outcome, &not_held, &retry_in));
    CHECK(outcome == LEASEQ_FAIL_RETRYING);
    leaseq_lease_free(lease);
    lease = lease_next(queue, "m1");
    REQUIRE(lease != NULL);
    uint64_t count = 0;
    CHECK_OK(leaseq_lease_count(lease, &count));
    CHECK(count == 2 && lease_named(lease, "send_email"));
    bool completed = false;
    CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
    CHECK(completed);
    leaseq_lease_free(lease);

    /* add_unique and add_batch take a name too; an item without one has none. */
    CHECK_OK(add_named(queue, "p1", NULL));
    leaseq_item *unique = NULL, *batched = NULL;
    CHECK_OK(leaseq_item_with_id("u1", (const uint8_t *)"", 0, &unique));
    CHECK_OK(leaseq_item_with_id("b1", (const uint8_t *)"", 0, &batched));
    leaseq_add_options resize = LEASEQ_ADD_OPTIONS_INIT;
    resize.set = LEASEQ_ADD_NAME;
    resize.name = "resize";
    CHECK_OK(leaseq_queue_add_unique_with_options(queue, unique, &resize));
    const leaseq_item *items[] = {batched};
    const leaseq_add_options *options[] = {&resize};
    size_t added = 0;
    CHECK_OK(leaseq_queue_add_batch_with_options(queue, items, options, 1, &added));
    CHECK(added == 1);
    leaseq_item_free(unique);
    leaseq_item_free(batched);
    CHECK(job_named(queue, "p1", NULL));
    CHECK(job_named(queue, "u1", "resize"));
    CHECK(job_named(queue, "b1", "resize"));
    const char *names[][2] = {{"p1", NULL}, {"u1", "resize"}, {"b1", "resize"}};
    for (size_t i = 0; i < 3; i++) {
        lease = lease_next(queue, names[i][0]);
        REQUIRE(lease != NULL);
        CHECK(lease_named(lease, names[i][1]));
        leaseq_lease_free(lease);
    }
    const char *none = "unset";
    CHECK_NULL_ARG(leaseq_job_name(NULL, &none), "job");
    CHECK(none == NULL);
    leaseq_queue_free(queue);
}

static void a_bad_name_is_refused_naming_it_with_nothing_written(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    char long_name[258];
    memset(long_name, 'n', 257);
    long_name[257] = '\0';
    CHECK_INVALID_ARG(add_named(queue, "a", ""), "name");
    CHECK_INVALID_ARG(add_named(queue, "a", "line\nbreak"), "name");
    CHECK_INVALID_ARG(add_named(queue, "a", long_name), "name");
    CHECK_INVALID_ARG(add_named(queue, "a", "\xff\xfe"), "name"); /* not UTF-8 */
    long_name[256] = '\0';
    CHECK_OK(add_named(queue, "longest", long_name)); /* 256 bytes: the longest allowed */

    leaseq_item *item = NULL;
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.set = LEASEQ_ADD_NAME; /* and no string */
    CHECK_OK(leaseq_item_with_id("b", (const uint8_t *)"", 0, &item));
    bool added = true;
    CHECK_NULL_ARG(leaseq_queue_add_with_options(queue, item, &options, &added), "name");
    CHECK(!added);
    /* A batch is refused whole, naming `items`, as in every language. */
    leaseq_item *other = NULL;
    CHECK_OK(leaseq_item_with_id("c", (const uint8_t *)"", 0, &other));
    leaseq_add_options empty = LEASEQ_ADD_OPTIONS_INIT;
    empty.set = LEASEQ_ADD_NAME;
    empty.name = "";
    const leaseq_item *items[] = {other, item};
    const leaseq_add_options *per_item[] = {NULL, &empty};
    size_t count = 99;
    CHECK_INVALID_ARG(leaseq_queue_add_batch_with_options(queue, items, per_item, 2, &count),
                      "items");
    CHECK(count == 0);
    leaseq_item_free(item);
    leaseq_item_free(other);

    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 1); /* "longest" only */
    CHECK(!has_job(queue, "a") && !has_job(queue, "b") && !has_job(queue, "c"));
    CHECK(job_named(queue, "longest", long_name));
    leaseq_queue_free(queue);
}

/* ---- counts by name ----------------------------------------------------------------------- */

static void finish_next(const leaseq_queue *queue, bool complete) {
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 10000, 0, &lease));
    REQUIRE(lease != NULL);
    if (complete) {
        bool completed = false;
        CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
        CHECK(completed);
    } else {
        leaseq_fail_outcome outcome;
        leaseq_renew_outcome not_held;
        int64_t retry_in = -1;
        CHECK_OK(leaseq_queue_fail(queue, lease, "too big", "TooBig", LEASEQ_RETRY_NEVER, 0,
                                   &outcome, &not_held, &retry_in));
        CHECK(outcome == LEASEQ_FAIL_DEAD);
    }
    leaseq_lease_free(lease);
}

static void counts_by_name_off_then_on(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    leaseq_name_counts *counts = (leaseq_name_counts *)&counts; /* anything but NULL */
    /* Off (the default): NULL, and nothing is counted. */
    CHECK_OK(add_named(queue, "early", "email"));
    finish_next(queue, true);
    CHECK_OK(leaseq_queue_counts_by_name(queue, &counts));
    CHECK(counts == NULL);

    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.set = LEASEQ_CONFIG_STATS;
    config.stats = true;
    CHECK_OK(leaseq_queue_set_config(queue, &config));
    /* On, before anything named finished: a handle without entries. */
    CHECK_OK(leaseq_queue_counts_by_name(queue, &counts));
    REQUIRE(counts != NULL);
    const leaseq_name_count *entries = (const leaseq_name_count *)&entries;
    size_t len = 99;
    CHECK_OK(leaseq_name_counts_entries(counts, &entries, &len));
    CHECK(entries == NULL && len == 0);
    leaseq_name_counts_free(counts);

    CHECK_OK(add_named(queue, "e1", "email"));
    CHECK_OK(add_named(queue, "r1", "resize"));
    CHECK_OK(add_named(queue, "e2", "email"));
    CHECK_OK(add_named(queue, "p1", NULL));
    finish_next(queue, true);  /* e1 */
    finish_next(queue, false); /* r1: failed and dead */
    finish_next(queue, true);  /* e2 */
    finish_next(queue, true);  /* p1: no name, counted in the totals only */
    CHECK_OK(leaseq_queue_counts_by_name(queue, &counts));
    REQUIRE(counts != NULL);
    CHECK_OK(leaseq_name_counts_entries(counts, &entries, &len));
    REQUIRE(len == 2 && entries != NULL);
    /* By name; "early" finished while the counters were off. */
    CHECK(strcmp(entries[0].name, "email") == 0);
    CHECK(entries[0].completed == 2 && entries[0].failed == 0 && entries[0].dead == 0);
    CHECK(strcmp(entries[1].name, "resize") == 0);
    CHECK(entries[1].completed == 0 && entries[1].failed == 1 && entries[1].dead == 1);
    CHECK_NULL_ARG(leaseq_name_counts_entries(counts, NULL, &len), "out_entries");
    CHECK(len == 0);
    leaseq_name_counts_free(counts);
    leaseq_name_counts_free(NULL);
    CHECK_NULL_ARG(leaseq_queue_counts_by_name(queue, NULL), "out_counts");
    CHECK_NULL_ARG(leaseq_queue_counts_by_name(NULL, &counts), "queue");
    CHECK(counts == NULL);
    leaseq_queue_free(queue);
}

/* ---- handlers by name --------------------------------------------------------------------- */

/* One handler of a table: the name it must be given, and what it saw. */
struct handled {
    const char *expect; /* NULL: the fallback, given any name */
    atomic_int calls;
    atomic_int wrong_name; /* calls whose job's name was not `expect` */
    atomic_int unnamed;    /* calls for a job without a name */
};

static leaseq_job_outcome handle(leaseq_worker_job *job, void *user_data) {
    struct handled *h = user_data;
    const char *name = "unset";
    if (leaseq_worker_job_name(job, &name) != LEASEQ_OK) name = "(unreadable)";
    atomic_fetch_add(&h->calls, 1);
    if (name == NULL) {
        atomic_fetch_add(&h->unnamed, 1);
        if (h->expect != NULL) atomic_fetch_add(&h->wrong_name, 1);
    } else if (h->expect != NULL && strcmp(name, h->expect) != 0) {
        atomic_fetch_add(&h->wrong_name, 1);
    }
    return LEASEQ_JOB_COMPLETE;
}

/* The runner's own user data (given to on_event): it stops once every job is finished. */
struct finished {
    atomic_int completed, dead;
    int want_completed, want_dead;
};

static void count_finished(const leaseq_worker_event *event, void *user_data) {
    struct finished *f = user_data;
    if (strcmp(event->name, "completed") == 0) atomic_fetch_add(&f->completed, 1);
    if (strcmp(event->name, "dead") == 0) atomic_fetch_add(&f->dead, 1);
    if (atomic_load(&f->completed) == f->want_completed && atomic_load(&f->dead) == f->want_dead)
        leaseq_worker_stop();
}

/* Two emails, one resize, one of a name no handler takes and one without a name. */
static void add_mixed(const leaseq_queue *queue) {
    CHECK_OK(add_named(queue, "mail1", "send_email"));
    CHECK_OK(add_named(queue, "img1", "resize"));
    CHECK_OK(add_named(queue, "odd1", "unknown"));
    CHECK_OK(add_named(queue, "mail2", "send_email"));
    CHECK_OK(add_named(queue, "plain1", NULL));
}

static void a_runner_runs_each_name_with_its_handler_and_fails_the_rest(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    add_mixed(queue);
    struct handled email = {.expect = "send_email"}, resize = {.expect = "resize"};
    leaseq_worker_handler handlers[] = {
        LEASEQ_HANDLER("send_email", handle, &email),
        {"resize", 6, handle, &resize},
    };
    struct finished finished = {.want_completed = 3, .want_dead = 2};
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.concurrency = 2;
    options.on_event = count_finished;
    CHECK_OK(leaseq_worker_run_named(queue, handlers, 2, NULL, &finished, &options));
    CHECK(atomic_load(&email.calls) == 2 && atomic_load(&email.wrong_name) == 0);
    CHECK(atomic_load(&resize.calls) == 1 && atomic_load(&resize.wrong_name) == 0);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 2);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 0);
    /* Dead at once, without a retry or a handler called: error type NoHandler. */
    const char *dead[] = {"odd1", "plain1"};
    for (size_t i = 0; i < 2; i++) {
        leaseq_job *job = NULL;
        CHECK_OK(leaseq_queue_get(queue, dead[i], &job));
        if (job == NULL) {
            CHECK(!"the job no handler takes is kept as a dead letter");
            continue;
        }
        leaseq_state state = LEASEQ_STATE_NONE;
        uint64_t attempts = 0;
        const char *error = NULL, *error_type = NULL;
        CHECK_OK(leaseq_job_state(job, &state));
        CHECK_OK(leaseq_job_attempts(job, &attempts));
        CHECK_OK(leaseq_job_error(job, &error));
        CHECK_OK(leaseq_job_error_type(job, &error_type));
        CHECK(state == LEASEQ_STATE_DEAD && attempts == 1);
        CHECK(error_type != NULL && strcmp(error_type, "NoHandler") == 0);
        CHECK(error != NULL && strstr(error, "send_email, resize") != NULL);
        if (i == 0) CHECK(error != NULL && strstr(error, "\"unknown\"") != NULL);
        leaseq_job_free(job);
    }
    leaseq_queue_free(queue);
}

/* A runner's own user data when it has a fallback: on_event counts the finished jobs (a
 * `struct finished` first), the fallback its calls. */
struct with_fallback {
    struct finished finished;
    struct handled fallback;
};

static leaseq_job_outcome fallback_handle(leaseq_worker_job *job, void *user_data) {
    struct with_fallback *data = user_data;
    return handle(job, &data->fallback);
}

static void a_fallback_takes_the_jobs_no_name_takes(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    add_mixed(queue);
    struct handled email = {.expect = "send_email"}, resize = {.expect = "resize"};
    leaseq_worker_handler handlers[] = {
        LEASEQ_HANDLER("resize", handle, &resize),
        LEASEQ_HANDLER("send_email", handle, &email),
    };
    struct with_fallback data = {.finished = {.want_completed = 5, .want_dead = 0},
                                 .fallback = {.expect = NULL}};
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.on_event = count_finished;
    CHECK_OK(leaseq_worker_run_named(queue, handlers, 2, fallback_handle, &data, &options));
    CHECK(atomic_load(&email.calls) == 2 && atomic_load(&email.wrong_name) == 0);
    CHECK(atomic_load(&resize.calls) == 1 && atomic_load(&resize.wrong_name) == 0);
    /* "unknown" and the item without a name. */
    CHECK(atomic_load(&data.fallback.calls) == 2 && atomic_load(&data.fallback.unnamed) == 1);
    CHECK(count_in(queue, LEASEQ_STATE_DEAD) == 0);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 0);

    /* A fallback alone is a table too: every job runs with it. */
    CHECK_OK(add_named(queue, "late", "anything"));
    struct with_fallback alone = {.finished = {.want_completed = 1, .want_dead = 0},
                                  .fallback = {.expect = NULL}};
    CHECK_OK(leaseq_worker_run_named(queue, NULL, 0, fallback_handle, &alone, &options));
    CHECK(atomic_load(&alone.fallback.calls) == 1);
    leaseq_queue_free(queue);
}

static atomic_int never_calls;

static leaseq_job_outcome never_called(leaseq_worker_job *job, void *user_data) {
    (void)job;
    (void)user_data;
    atomic_fetch_add(&never_calls, 1);
    return LEASEQ_JOB_COMPLETE;
}

static void a_bad_table_is_refused_naming_handlers_before_anything_runs(void) {
    leaseq_queue *queue = new_queue();
    REQUIRE(queue != NULL);
    CHECK_OK(add_named(queue, "a", "send_email"));
    char before[64] = "", after[64] = "";
    queue_keys(queue, before, sizeof before);
    atomic_store(&never_calls, 0);
    static const char two[] = "send_email";
    leaseq_worker_handler empty_name[] = {{"", 0, never_called, NULL}};
    leaseq_worker_handler control[] = {LEASEQ_HANDLER("tab\there", never_called, NULL)};
    leaseq_worker_handler too_long[] = {{two, 300, never_called, NULL}};
    leaseq_worker_handler twice[] = {LEASEQ_HANDLER("send_email", never_called, NULL),
                                     {two, sizeof two - 1, never_called, NULL}};
    leaseq_worker_handler not_utf8[] = {LEASEQ_HANDLER("\xff", never_called, NULL)};
    leaseq_worker_handler no_handler[] = {LEASEQ_HANDLER("resize", never_called, NULL),
                                          LEASEQ_HANDLER("send_email", NULL, NULL)};
    leaseq_worker_handler no_name[] = {{NULL, 3, never_called, NULL}};
    char long_name[300];
    memset(long_name, 'n', sizeof long_name);
    too_long[0].name = long_name;

    /* No handler and no fallback; bad names; a name twice: the core's checks. */
    CHECK_INVALID_ARG(leaseq_worker_run_named(queue, NULL, 0, NULL, NULL, NULL), "handlers");
    CHECK_MESSAGE_HAS("at least one");
    CHECK_INVALID_ARG(leaseq_worker_run_named(queue, empty_name, 1, NULL, NULL, NULL), "handlers");
    CHECK_INVALID_ARG(leaseq_worker_run_named(queue, control, 1, never_called, NULL, NULL),
                      "handlers");
    CHECK_INVALID_ARG(leaseq_worker_run_named(queue, too_long, 1, NULL, NULL, NULL), "handlers");
    CHECK_INVALID_ARG(leaseq_worker_run_named(queue, twice, 2, NULL, NULL, NULL), "handlers");
    CHECK_MESSAGE_HAS("twice");
    CHECK_INVALID_ARG(leaseq_worker_run_named(queue, not_utf8, 1, NULL, NULL, NULL), "handlers");
    /* Pointers. */
    CHECK_NULL_ARG(leaseq_worker_run_named(queue, NULL, 2, NULL, NULL, NULL), "handlers");
    CHECK_NULL_ARG(leaseq_worker_run_named(queue, no_handler, 2, NULL, NULL, NULL),
                   "handlers[1].handler");
    CHECK_NULL_ARG(leaseq_worker_run_named(queue, no_name, 1, NULL, NULL, NULL),
                   "handlers[0].name");
    CHECK_NULL_ARG(leaseq_worker_run_named(NULL, twice, 1, NULL, NULL, NULL), "queue");
    /* Bad options are refused too, before anything runs. */
    leaseq_worker_options options;
    CHECK_OK(leaseq_worker_options_init(&options));
    options.concurrency = 1001;
    CHECK_INVALID_ARG(leaseq_worker_run_named(queue, twice, 1, NULL, NULL, &options),
                      "concurrency");

    CHECK(atomic_load(&never_calls) == 0);
    CHECK(count_in(queue, LEASEQ_STATE_WAITING) == 1); /* nothing leased */
    queue_keys(queue, after, sizeof after);
    CHECK(strcmp(before, after) == 0); /* no runner registered, nothing written */
    leaseq_queue_free(queue);
}

int main(void) {
    url = need_env("LEASEQ_TEST_URL");
    if (leaseq_client_connect(url, &client) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"a named item is added, leased and read back with its name",
         a_named_item_is_added_leased_and_read_back},
        {"a bad name is refused, naming `name` (a batch: `items`), nothing written",
         a_bad_name_is_refused_naming_it_with_nothing_written},
        {"counts by name: NULL while the counters are off, by name when on",
         counts_by_name_off_then_on},
        {"a runner runs each name with its handler; a job none takes is dead, NoHandler",
         a_runner_runs_each_name_with_its_handler_and_fails_the_rest},
        {"a runner's fallback takes the jobs no name takes",
         a_fallback_takes_the_jobs_no_name_takes},
        {"a bad table is refused naming `handlers` before anything runs",
         a_bad_table_is_refused_naming_handlers_before_anything_runs},
    };
    int status = run_tests("test_names", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(client);
    leaseq_runtime_shutdown();
    return status;
}
