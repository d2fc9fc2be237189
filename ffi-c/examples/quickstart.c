#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <leaseq.h>

int main(void) {
    const char *url = getenv("REDIS_URL");
    if (url == NULL) url = "redis://127.0.0.1:6379";
    const char *email = "{\"to\": \"ada@example.com\"}";
    leaseq_client *client = NULL;
    leaseq_queue *queue = NULL;
    leaseq_item *item = NULL;
    leaseq_lease *lease = NULL;
    leaseq_result *result = NULL;
    bool added = false, completed = false;
    int failed = 1;

    /* Every call returns a leaseq_status (LEASEQ_OK is 0); results come through out-params. */
    if (leaseq_client_connect(url, &client) != LEASEQ_OK ||
        leaseq_client_queue(client, "{quickstart}", &queue) != LEASEQ_OK)
        goto done;

    /* A producer adds an item: JSON here, any bytes in general. */
    if (leaseq_item_new((const uint8_t *)email, strlen(email), &item) != LEASEQ_OK ||
        leaseq_queue_add(queue, item, &added) != LEASEQ_OK)
        goto done;

    /* A worker leases it for 30 s, waiting up to 1 s for one, and completes it with a result.
       Had the worker died instead, the lease would expire and the item come back. */
    if (leaseq_queue_lease(queue, 30000, 1000, &lease) != LEASEQ_OK) goto done;
    if (lease != NULL) {
        const char *id = NULL;
        const uint8_t *data = NULL; /* borrowed from the lease */
        size_t len = 0;
        uint64_t attempt = 0;
        leaseq_lease_id(lease, &id);
        leaseq_lease_data(lease, &data, &len);
        leaseq_lease_attempt(lease, &attempt);
        printf("working on %.*s (attempt %llu)\n", (int)len, (const char *)data,
               (unsigned long long)attempt);
        if (leaseq_queue_complete_with_result(queue, lease, (const uint8_t *)"sent", 4,
                                              -1 /* keep it the default day */,
                                              &completed) != LEASEQ_OK)
            goto done;

        /* Anyone may read the result (or wait for it: leaseq_queue_wait_result). */
        if (leaseq_queue_result(queue, id, &result) != LEASEQ_OK || result == NULL) goto done;
        leaseq_result_data(result, &data, &len);
        printf("result: %.*s\n", (int)len, (const char *)data);
    }
    failed = 0;
done:
    if (failed) fprintf(stderr, "leaseq: %s\n", leaseq_last_error_message());
    leaseq_result_free(result); /* every _free accepts NULL */
    leaseq_lease_free(lease);
    leaseq_item_free(item);
    leaseq_queue_free(queue);
    leaseq_client_free(client);
    return failed;
}
