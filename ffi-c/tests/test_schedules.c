/*
 * Recurring jobs (issue 26) through leaseq.h, against a throwaway redis-server: upsert from a
 * leaseq_schedule (cron + tz or every_ms, missed policy, the item's data and options), get and
 * list (leaseq_schedule_info, leaseq_schedule_page), remove, leaseq_queue_fire_due_schedules,
 * a C runner (leaseq_worker_run) that fires a schedule through the core, and the refusals,
 * each naming its argument.
 *
 * Environment: LEASEQ_TEST_URL (a redis:// URL).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdatomic.h>
#include <stdint.h>

#include "check.h"

static leaseq_client *client;

static void upsert_get_list_and_remove(void) {
    leaseq_queue *queue = fresh_queue(client, "schedules");
    REQUIRE(queue != NULL);
    leaseq_add_options item = LEASEQ_ADD_OPTIONS_INIT;
    item.priority = 7;
    item.name = "nightly_report";
    item.set = LEASEQ_ADD_PRIORITY | LEASEQ_ADD_NAME;
    leaseq_schedule nightly = LEASEQ_SCHEDULE_INIT;
    nightly.cron = "0 3 * * *";
    nightly.tz = "Europe/Berlin";
    nightly.missed = LEASEQ_MISSED_ALL;
    nightly.missed_all = 3;
    nightly.data = (const uint8_t *)"{\"k\":1}";
    nightly.data_len = 7;
    nightly.item_options = &item;
    nightly.set = LEASEQ_SCHEDULE_CRON | LEASEQ_SCHEDULE_TZ | LEASEQ_SCHEDULE_MISSED |
                  LEASEQ_SCHEDULE_DATA | LEASEQ_SCHEDULE_ITEM_OPTIONS;
    bool created = false;
    CHECK_OK(leaseq_queue_upsert_schedule(queue, "nightly", &nightly, &created));
    CHECK(created);
    CHECK_OK(leaseq_queue_upsert_schedule(queue, "nightly", &nightly, &created));
    CHECK(!created);
    leaseq_schedule hourly = LEASEQ_SCHEDULE_INIT;
    hourly.every_ms = 3600000;
    hourly.set = LEASEQ_SCHEDULE_EVERY;
    CHECK_OK(leaseq_queue_upsert_schedule(queue, "hourly", &hourly, &created));
    CHECK(created);
    /* The queue's figures count its schedules. */
    leaseq_stats *stats = NULL;
    CHECK_OK(leaseq_queue_stats(queue, &stats));
    uint64_t schedules = 0;
    CHECK_OK(leaseq_stats_schedules(stats, &schedules));
    CHECK(schedules == 2);
    leaseq_stats_free(stats);

    leaseq_schedule_info *info = NULL;
    CHECK_OK(leaseq_queue_get_schedule(queue, "nightly", &info));
    REQUIRE(info != NULL);
    CHECK(strcmp(info->name, "nightly") == 0);
    CHECK(info->readable);
    CHECK(info->cron != NULL && strcmp(info->cron, "0 3 * * *") == 0);
    CHECK(info->tz != NULL && strcmp(info->tz, "Europe/Berlin") == 0);
    CHECK(info->every_ms == -1);
    CHECK(info->missed == LEASEQ_MISSED_ALL && info->missed_all == 3);
    CHECK(info->data_len == 7 && memcmp(info->data, "{\"k\":1}", 7) == 0);
    CHECK(info->version == 2);
    CHECK(info->next_ms > info->created_ms && info->created_ms > 0);
    CHECK(info->fired == 0 && info->last_tick_ms == -1);
    leaseq_schedule_info_free(info);

    leaseq_schedule_page *page = NULL;
    CHECK_OK(leaseq_queue_schedules(queue, 0, 10, &page));
    REQUIRE(page != NULL);
    CHECK(page->total == 2 && page->schedules_len == 2);
    CHECK(page->now_ms > 0);
    if (page->schedules_len == 2) {
        bool hourly_found = false;
        for (size_t i = 0; i < 2; i++) {
            const leaseq_schedule_info *s = &page->schedules[i];
            if (strcmp(s->name, "hourly") == 0) {
                hourly_found = true;
                CHECK(s->every_ms == 3600000 && s->cron == NULL && s->tz == NULL);
                CHECK(s->missed == LEASEQ_MISSED_SKIP && s->data_len == 0);
            }
        }
        CHECK(hourly_found);
    }
    leaseq_schedule_page_free(page);
    page = NULL;
    CHECK_OK(leaseq_queue_schedules(queue, 5, 10, &page));
    CHECK(page != NULL && page->total == 2 && page->schedules_len == 0 && page->schedules == NULL);
    leaseq_schedule_page_free(page);

    bool removed = false;
    CHECK_OK(leaseq_queue_remove_schedule(queue, "nightly", &removed));
    CHECK(removed);
    CHECK_OK(leaseq_queue_remove_schedule(queue, "nightly", &removed));
    CHECK(!removed);
    info = (leaseq_schedule_info *)&info;
    CHECK_OK(leaseq_queue_get_schedule(queue, "nightly", &info));
    CHECK(info == NULL);
    leaseq_schedule_info_free(NULL);
    leaseq_schedule_page_free(NULL);
    leaseq_queue_free(queue);
}

static void bad_schedules_are_refused_naming_the_argument(void) {
    leaseq_queue *queue = fresh_queue(client, "schedules-bad");
    REQUIRE(queue != NULL);
    bool created = true;
    leaseq_schedule s = LEASEQ_SCHEDULE_INIT;
    s.cron = "0 25 * * *";
    s.set = LEASEQ_SCHEDULE_CRON;
    CHECK_INVALID_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, &created), "cron");
    CHECK(!created);
    s.cron = "0 3 * * *";
    s.tz = "Mars/Base";
    s.set |= LEASEQ_SCHEDULE_TZ;
    CHECK_INVALID_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, &created), "tz");
    s.every_ms = 60000;
    s.set = LEASEQ_SCHEDULE_CRON | LEASEQ_SCHEDULE_EVERY;
    CHECK_INVALID_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, &created), "schedule.set");
    s.set = 0;
    CHECK_INVALID_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, &created), "schedule.set");
    s.every_ms = 999;
    s.set = LEASEQ_SCHEDULE_EVERY;
    CHECK_INVALID_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, &created), "every_ms");
    s.every_ms = -5;
    CHECK_INVALID_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, &created),
                      "schedule.every_ms");
    s.every_ms = 60000;
    s.missed = LEASEQ_MISSED_ALL;
    s.missed_all = 0;
    s.set |= LEASEQ_SCHEDULE_MISSED;
    CHECK_INVALID_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, &created), "missed");
    s.missed = 9;
    CHECK_INVALID_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, &created),
                      "schedule.missed");
    s.missed = LEASEQ_MISSED_ONCE;
    leaseq_add_options delayed = LEASEQ_ADD_OPTIONS_INIT;
    delayed.delay_ms = 5;
    delayed.set = LEASEQ_ADD_DELAY;
    s.item_options = &delayed;
    s.set |= LEASEQ_SCHEDULE_ITEM_OPTIONS;
    CHECK_INVALID_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, &created), "item");
    s.item_options = NULL;
    CHECK_NULL_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, &created),
                   "schedule.item_options");
    s.set &= ~LEASEQ_SCHEDULE_ITEM_OPTIONS;
    CHECK_INVALID_ARG(leaseq_queue_upsert_schedule(queue, "", &s, &created), "name");
    CHECK_NULL_ARG(leaseq_queue_upsert_schedule(queue, NULL, &s, &created), "name");
    CHECK_NULL_ARG(leaseq_queue_upsert_schedule(queue, "bad", NULL, &created), "schedule");
    CHECK_NULL_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, NULL), "out_created");
    s.struct_size = 4;
    CHECK_INVALID_ARG(leaseq_queue_upsert_schedule(queue, "bad", &s, &created),
                      "schedule.struct_size");
    leaseq_schedule_page *page = NULL;
    CHECK_OK(leaseq_queue_schedules(queue, 0, 10, &page));
    CHECK(page != NULL && page->total == 0);
    leaseq_schedule_page_free(page);
    CHECK_NULL_ARG(leaseq_queue_fire_due_schedules(queue, NULL), "out_report");
    leaseq_queue_free(queue);
}

/* Fires by hand until the schedule's first tick is added (at most a minute). */
static void fire_due_adds_one_item_per_tick(void) {
    leaseq_queue *queue = fresh_queue(client, "schedules-fire");
    REQUIRE(queue != NULL);
    leaseq_schedule s = LEASEQ_SCHEDULE_INIT;
    s.every_ms = 1000;
    s.data = (const uint8_t *)"tick";
    s.data_len = 4;
    s.set = LEASEQ_SCHEDULE_EVERY | LEASEQ_SCHEDULE_DATA;
    bool created = false;
    CHECK_OK(leaseq_queue_upsert_schedule(queue, "pulse", &s, &created));
    size_t fired = 0;
    leaseq_fire_report report;
    for (int i = 0; i < 600 && fired == 0; i++) {
        CHECK_OK(leaseq_queue_fire_due_schedules(queue, &report));
        fired += report.fired;
        if (fired == 0) {
            CHECK(report.next_due_in_ms >= 0);
            sleep_ms(100);
        }
    }
    CHECK(fired >= 1);
    CHECK(report.lost_races == 0 && report.unreadable == 0);
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    const char *id = NULL;
    const uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_lease_id(lease, &id));
    CHECK_OK(leaseq_lease_data(lease, &data, &len));
    CHECK(id != NULL && strncmp(id, "pulse@", 6) == 0);
    CHECK(len == 4 && memcmp(data, "tick", 4) == 0);
    leaseq_lease_free(lease);
    leaseq_schedule_info *info = NULL;
    CHECK_OK(leaseq_queue_get_schedule(queue, "pulse", &info));
    CHECK(info != NULL && info->fired >= 1 && info->last_tick_ms > 0);
    leaseq_schedule_info_free(info);
    leaseq_queue_free(queue);
}

/* ---- a C runner fires a schedule ------------------------------------------------------------ */

static atomic_int runner_saw_tick;

static leaseq_job_outcome on_tick(leaseq_worker_job *job, void *user_data) {
    (void)user_data;
    const char *id = NULL;
    const uint8_t *data = NULL;
    size_t len = 0;
    if (leaseq_worker_job_id(job, &id) != LEASEQ_OK ||
        leaseq_worker_job_data(job, &data, &len) != LEASEQ_OK)
        return LEASEQ_JOB_FAIL;
    if (strncmp(id, "every-second@", 13) == 0 && len == 5 && memcmp(data, "hello", 5) == 0)
        atomic_store(&runner_saw_tick, 1);
    return LEASEQ_JOB_COMPLETE;
}

static void stop_on_completed(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    if (strcmp(event->name, "completed") == 0) leaseq_worker_stop();
}

static void a_runner_fires_a_schedule(void) {
    leaseq_queue *queue = fresh_queue(client, "schedules-runner");
    REQUIRE(queue != NULL);
    leaseq_schedule s = LEASEQ_SCHEDULE_INIT;
    s.every_ms = 1000;
    s.data = (const uint8_t *)"hello";
    s.data_len = 5;
    s.set = LEASEQ_SCHEDULE_EVERY | LEASEQ_SCHEDULE_DATA;
    bool created = false;
    CHECK_OK(leaseq_queue_upsert_schedule(queue, "every-second", &s, &created));
    atomic_store(&runner_saw_tick, 0);
    leaseq_worker_options options = LEASEQ_WORKER_OPTIONS_INIT;
    options.on_event = stop_on_completed;
    /* Nothing else adds items: the runner's housekeeping fires the tick, then runs its item. */
    CHECK_OK(leaseq_worker_run(queue, on_tick, NULL, &options));
    CHECK(atomic_load(&runner_saw_tick) == 1);
    leaseq_schedule_info *info = NULL;
    CHECK_OK(leaseq_queue_get_schedule(queue, "every-second", &info));
    CHECK(info != NULL && info->fired >= 1);
    leaseq_schedule_info_free(info);
    leaseq_queue_free(queue);
}

int main(void) {
    const char *url = need_env("LEASEQ_TEST_URL");
    if (leaseq_client_connect(url, &client) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"upsert, get, list and remove", upsert_get_list_and_remove},
        {"bad schedules are refused naming the argument",
         bad_schedules_are_refused_naming_the_argument},
        {"fire_due_schedules adds one item per tick", fire_due_adds_one_item_per_tick},
        {"a C runner fires a schedule", a_runner_fires_a_schedule},
    };
    int rc = run_tests("test_schedules", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(client);
    leaseq_runtime_shutdown(); /* so that valgrind sees no live runtime thread */
    return rc;
}
