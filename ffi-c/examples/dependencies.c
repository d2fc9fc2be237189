#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <leaseq.h>

int main(void) {
    const char *url = getenv("REDIS_URL");
    if (url == NULL) url = "redis://127.0.0.1:6379";
    leaseq_client *client = NULL;
    leaseq_queue *queue = NULL;
    leaseq_item *report = NULL, *eu = NULL, *us = NULL, *email = NULL;
    leaseq_dependencies *waits = NULL;
    size_t added = 0;
    bool added_email = false;
    int failed = 1;

    if (leaseq_client_connect(url, &client) != LEASEQ_OK ||
        leaseq_client_queue(client, "{reports}", &queue) != LEASEQ_OK ||
        leaseq_item_with_id("report", (const uint8_t *)"march", 5, &report) != LEASEQ_OK ||
        leaseq_item_with_id("part-eu", (const uint8_t *)"eu", 2, &eu) != LEASEQ_OK ||
        leaseq_item_with_id("part-us", (const uint8_t *)"us", 2, &us) != LEASEQ_OK ||
        leaseq_item_with_id("email", (const uint8_t *)"send it", 7, &email) != LEASEQ_OK)
        goto done;
    /* A flow: the parent and its children in one call. Each child names its parent: the
     * flow's (LEASEQ_FLOW_ROOT), or an earlier child's index, for children of children. */
    leaseq_flow_child parts[] = {
        {eu, NULL, LEASEQ_FLOW_ROOT},
        {us, NULL, LEASEQ_FLOW_ROOT},
    };
    if (leaseq_queue_add_flow(queue, report, NULL, parts, 2, &added) != LEASEQ_OK) goto done;
    /* Any item may wait for others of its queue; by default it dies if one of them dies. */
    const char *const after_report[] = {"report"};
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.depends_on = after_report;
    options.depends_on_len = 1;
    options.on_dependency_failure = LEASEQ_ON_DEPENDENCY_FAILURE_FAIL;
    options.set = LEASEQ_ADD_DEPENDS_ON | LEASEQ_ADD_ON_DEPENDENCY_FAILURE;
    if (leaseq_queue_add_with_options(queue, email, &options, &added_email) != LEASEQ_OK ||
        leaseq_queue_dependencies(queue, "email", &waits) != LEASEQ_OK)
        goto done;
    printf("%zu items added; email waits for %s\n", added + added_email, waits->pending[0]);

    for (;;) {
        leaseq_lease *lease = NULL;
        const char *id = NULL;
        const uint8_t *data = NULL;
        size_t len = 0;
        bool ok = false;
        if (leaseq_queue_lease(queue, 30000, 0, &lease) != LEASEQ_OK) goto done;
        if (lease == NULL) break; /* blocked items are not leased: the queue is drained */
        leaseq_lease_id(lease, &id);
        leaseq_lease_data(lease, &data, &len);
        leaseq_status status;
        if (strcmp(id, "report") == 0) {
            /* The children's kept results, in order. */
            leaseq_dependency_results *results = NULL;
            status = leaseq_queue_dependency_results(queue, id, &results);
            if (status == LEASEQ_OK) {
                printf("report from");
                for (size_t i = 0; i < results->results_len; i++)
                    printf(" %s=%.*s", results->results[i].id,
                           (int)results->results[i].result_len,
                           (const char *)results->results[i].result);
                printf("\n");
                status = leaseq_queue_complete(queue, lease, &ok);
            }
            leaseq_dependency_results_free(results);
        } else if (strcmp(id, "email") == 0) {
            printf("email sent after the report\n");
            status = leaseq_queue_complete(queue, lease, &ok);
        } else {
            char total[32];
            snprintf(total, sizeof total, "%zu sales", len * 21);
            printf("part %.*s\n", (int)len, (const char *)data);
            status = leaseq_queue_complete_with_result(queue, lease, (const uint8_t *)total,
                                                       strlen(total), -1, &ok);
        }
        leaseq_lease_free(lease);
        if (status != LEASEQ_OK) goto done;
    }
    failed = 0;
done:
    if (failed) fprintf(stderr, "leaseq: %s\n", leaseq_last_error_message());
    leaseq_dependencies_free(waits);
    leaseq_item_free(email);
    leaseq_item_free(us);
    leaseq_item_free(eu);
    leaseq_item_free(report);
    leaseq_queue_free(queue);
    leaseq_client_free(client);
    return failed;
}
