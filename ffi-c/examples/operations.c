#include <stdio.h>
#include <stdlib.h>
#include <leaseq.h>

int main(void) {
    const char *url = getenv("REDIS_URL");
    if (url == NULL) url = "redis://127.0.0.1:6379";
    leaseq_client *client = NULL;
    leaseq_queue *queue = NULL;
    leaseq_item *item = NULL;
    leaseq_lease *lease = NULL;
    leaseq_result *result = NULL;
    leaseq_job *job = NULL;
    const char *id = NULL;
    bool added = false, ok = false;
    int failed = 1;

    /* Option structs can grow: start from the INIT macro, set fields and OR in their bits. */
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.priority = 10;   /* higher runs first (-1000 to 1000) */
    options.max_attempts = 3; /* after 3 failed attempts the item is dead */
    options.set = LEASEQ_ADD_PRIORITY | LEASEQ_ADD_MAX_ATTEMPTS;
    leaseq_lease_options wait = LEASEQ_LEASE_OPTIONS_INIT;
    wait.timeout_ms = 1000; /* wait up to 1 s for an item; the TTL stays the default 30 s */
    wait.set = LEASEQ_LEASE_TIMEOUT;

    /* Every call returns a leaseq_status (LEASEQ_OK is 0); results come through out-params. */
    if (leaseq_client_connect(url, &client) != LEASEQ_OK ||
        leaseq_client_queue(client, "emails", &queue) != LEASEQ_OK ||
        leaseq_item_new((const uint8_t *)"hello", 5, &item) != LEASEQ_OK ||
        leaseq_item_id(item, &id) != LEASEQ_OK ||
        leaseq_queue_add_with_options(queue, item, &options, &added) != LEASEQ_OK)
        goto done;
    for (int attempt = 1; attempt <= 2; attempt++) {
        if (leaseq_queue_lease_with_options(queue, &wait, &lease) != LEASEQ_OK) goto done;
        if (lease == NULL) break; /* nothing came within the timeout */
        const uint8_t *data = NULL; /* borrowed from the lease: any bytes, NUL included */
        size_t len = 0;
        leaseq_lease_data(lease, &data, &len);
        printf("working on %.*s\n", (int)len, (const char *)data);
        if (attempt == 1) {
            /* A failure worth retrying: the item waits 0 ms, then runs again. */
            leaseq_fail_outcome outcome;
            leaseq_renew_outcome not_held;
            int64_t retry_in_ms;
            if (leaseq_queue_fail(queue, lease, "SMTP timeout", "TimeoutError",
                                  LEASEQ_RETRY_AFTER, 0, &outcome, &not_held,
                                  &retry_in_ms) != LEASEQ_OK)
                goto done;
            printf("failed, %s\n", outcome == LEASEQ_FAIL_RETRYING ? "retrying" : "not retried");
        } else if (leaseq_queue_complete_with_result(queue, lease, (const uint8_t *)"sent", 4,
                                                     -1 /* keep it the default day */,
                                                     &ok) != LEASEQ_OK) {
            goto done;
        }
        leaseq_lease_free(lease);
        lease = NULL;
    }
    /* Anyone may read the result, or wait for it (leaseq_queue_wait_result). */
    if (leaseq_queue_result(queue, id, &result) != LEASEQ_OK ||
        leaseq_queue_get(queue, id, &job) != LEASEQ_OK)
        goto done;
    if (result != NULL && job != NULL) {
        const uint8_t *data = NULL;
        size_t len = 0;
        uint64_t attempts = 0;
        leaseq_state state;
        leaseq_result_data(result, &data, &len);
        leaseq_result_attempts(result, &attempts);
        leaseq_job_state(job, &state);
        printf("result %.*s after %llu attempts; the item is %s\n", (int)len,
               (const char *)data, (unsigned long long)attempts, leaseq_state_str(state));
    }
    failed = 0;
done:
    if (failed) fprintf(stderr, "leaseq: %s\n", leaseq_last_error_message());
    leaseq_job_free(job); /* every _free accepts NULL */
    leaseq_result_free(result);
    leaseq_lease_free(lease);
    leaseq_item_free(item);
    leaseq_queue_free(queue);
    leaseq_client_free(client);
    return failed;
}
