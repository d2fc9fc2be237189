#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <leaseq.h>

/* Called with each entry, in order; returns non-zero to stop following. */
static int on_event(const leaseq_event *event, const char *position, void *user_data) {
    char *stored = user_data; /* a daemon would write the position to its own storage */
    printf("%s %s (attempt %llu)\n", event->event, event->job_id,
           (unsigned long long)event->attempt);
    if (position != NULL) snprintf(stored, 64, "%s", position);
    return strcmp(event->event, "completed") == 0;
}

int main(void) {
    const char *url = getenv("REDIS_URL");
    if (url == NULL) url = "redis://127.0.0.1:6379";
    leaseq_client *client = NULL;
    leaseq_queue *queue = NULL;
    leaseq_item *item = NULL;
    leaseq_lease *lease = NULL;
    leaseq_event_page *page = NULL;
    char position[64] = "";
    bool added = false, completed = false;
    int failed = 1;

    /* Events are off by default (they cost nothing then); any client may turn them on. */
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.events = true;
    config.events_max_len = 10000; /* keep the latest 10,000 entries at most */
    config.set = LEASEQ_CONFIG_EVENTS | LEASEQ_CONFIG_EVENTS_MAX_LEN;
    if (leaseq_client_connect(url, &client) != LEASEQ_OK ||
        leaseq_client_queue(client, "orders", &queue) != LEASEQ_OK ||
        leaseq_queue_set_config(queue, &config) != LEASEQ_OK ||
        /* Where the stream is now (no entries): a follower from here misses nothing after. */
        leaseq_queue_read_events(queue, NULL, 1, &page) != LEASEQ_OK)
        goto done;
    snprintf(position, sizeof position, "%s", page->last);

    if (leaseq_item_with_id("order-1", (const uint8_t *)"2 books", 7, &item) != LEASEQ_OK ||
        leaseq_queue_add(queue, item, &added) != LEASEQ_OK ||
        leaseq_queue_lease(queue, 30000, 0, &lease) != LEASEQ_OK || lease == NULL ||
        leaseq_queue_complete(queue, lease, &completed) != LEASEQ_OK)
        goto done;

    /* Blocks this thread until the callback stops it (or leaseq_client_close from another
     * thread); other threads' calls on the same client go on meanwhile. */
    if (leaseq_queue_events(queue, position, on_event, position) != LEASEQ_OK) goto done;
    printf("stored a position to resume after: %s\n", position[0] ? "yes" : "no");
    failed = 0;
done:
    if (failed) fprintf(stderr, "leaseq: %s\n", leaseq_last_error_message());
    leaseq_event_page_free(page);
    leaseq_lease_free(lease);
    leaseq_item_free(item);
    leaseq_queue_free(queue);
    leaseq_client_free(client);
    return failed;
}
