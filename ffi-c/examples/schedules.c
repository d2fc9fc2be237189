#include <stdio.h>
#include <stdlib.h>
#include <leaseq.h>

int main(void) {
    const char *url = getenv("REDIS_URL");
    if (url == NULL) url = "redis://127.0.0.1:6379";
    leaseq_client *client = NULL;
    leaseq_queue *queue = NULL;
    leaseq_schedule_page *page = NULL;
    leaseq_lease *lease = NULL;
    bool created = false;
    int failed = 1;

    /* Every night at 3:00 in Berlin (daylight saving time included), with the item's data and
     * options; after an outage with no runner, the missed nights fire once. */
    leaseq_add_options report = LEASEQ_ADD_OPTIONS_INIT;
    report.priority = 5;
    report.name = "nightly_report";
    report.set = LEASEQ_ADD_PRIORITY | LEASEQ_ADD_NAME;
    leaseq_schedule nightly = LEASEQ_SCHEDULE_INIT;
    nightly.cron = "0 3 * * *";
    nightly.tz = "Europe/Berlin";
    nightly.missed = LEASEQ_MISSED_ONCE;
    nightly.data = (const uint8_t *)"{\"kind\": \"sales\"}";
    nightly.data_len = 17;
    nightly.item_options = &report;
    nightly.set = LEASEQ_SCHEDULE_CRON | LEASEQ_SCHEDULE_TZ | LEASEQ_SCHEDULE_MISSED |
                  LEASEQ_SCHEDULE_DATA | LEASEQ_SCHEDULE_ITEM_OPTIONS;
    /* And one every second. */
    leaseq_schedule pulse = LEASEQ_SCHEDULE_INIT;
    pulse.every_ms = 1000;
    pulse.data = (const uint8_t *)"ping";
    pulse.data_len = 4;
    pulse.set = LEASEQ_SCHEDULE_EVERY | LEASEQ_SCHEDULE_DATA;

    /* Upserted by name: changing a schedule never fires a tick twice nor skips one. */
    if (leaseq_client_connect(url, &client) != LEASEQ_OK ||
        leaseq_client_queue(client, "reports", &queue) != LEASEQ_OK ||
        leaseq_queue_upsert_schedule(queue, "nightly", &nightly, &created) != LEASEQ_OK ||
        leaseq_queue_upsert_schedule(queue, "pulse", &pulse, &created) != LEASEQ_OK ||
        leaseq_queue_schedules(queue, 0, 100, &page) != LEASEQ_OK)
        goto done;
    for (size_t i = 0; i < page->schedules_len; i++) {
        const leaseq_schedule_info *s = &page->schedules[i];
        if (s->cron != NULL)
            printf("%s: cron %s (%s)", s->name, s->cron, s->tz ? s->tz : "UTC");
        else
            printf("%s: every %lld ms", s->name, (long long)s->every_ms);
        printf(", next in %lld s\n", (long long)((s->next_ms - page->now_ms + 999) / 1000));
    }

    /* A runner (leaseq_worker_run) fires due schedules as part of its housekeeping. Without
     * one, any process may fire them: one item per tick, however many processes do. */
    for (int i = 0; i < 100 && lease == NULL; i++) {
        leaseq_fire_report fired;
        if (leaseq_queue_fire_due_schedules(queue, &fired) != LEASEQ_OK ||
            leaseq_queue_lease(queue, 30000, 200, &lease) != LEASEQ_OK)
            goto done;
    }
    if (lease != NULL) {
        const char *id = NULL;
        const uint8_t *data = NULL;
        size_t len = 0;
        bool ok = false;
        leaseq_lease_id(lease, &id);
        leaseq_lease_data(lease, &data, &len);
        printf("a tick added %.*s (its id: pulse@<tick ms>: %s)\n", (int)len,
               (const char *)data, id[5] == '@' ? "yes" : "no");
        if (leaseq_queue_complete(queue, lease, &ok) != LEASEQ_OK) goto done;
    }
    bool removed = false;
    if (leaseq_queue_remove_schedule(queue, "pulse", &removed) != LEASEQ_OK) goto done;
    printf("pulse removed: %s\n", removed ? "yes" : "no");
    failed = 0;
done:
    if (failed) fprintf(stderr, "leaseq: %s\n", leaseq_last_error_message());
    leaseq_lease_free(lease);
    leaseq_schedule_page_free(page);
    leaseq_queue_free(queue);
    leaseq_client_free(client);
    return failed;
}
