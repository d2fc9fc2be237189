#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <leaseq.h>

static atomic_int completed;

/* Runs on the runner's threads; each job is finished in the partition it came from. */
static leaseq_job_outcome resize(leaseq_worker_job *job, void *user_data) {
    (void)job;
    (void)user_data;
    return LEASEQ_JOB_COMPLETE;
}

/* Stops the runner once the nine jobs completed. */
static void on_event(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    if (strcmp(event->name, "completed") == 0 &&
        atomic_fetch_add(&completed, 1) + 1 == 9)
        leaseq_worker_stop();
}

int main(void) {
    const char *url = getenv("REDIS_URL");
    if (url == NULL) url = "redis://127.0.0.1:6379";
    leaseq_client *client = NULL;
    leaseq_partitioned *queue = NULL;
    leaseq_stats_by_partition *stats = NULL;
    const leaseq_stats *total = NULL;
    leaseq_item *items[9] = {NULL};
    size_t partitions = 0, added = 0;
    uint64_t waiting = 0;
    int failed = 1;

    /* One logical queue stored as three partitions, each a full queue on a hash tag of its
     * own: on a Redis Cluster (`leaseq_client_connect_cluster`) they spread over the
     * primaries. The base needs a hash tag. */
    if (leaseq_client_connect(url, &client) != LEASEQ_OK ||
        leaseq_partitioned_create(client, "{thumbnails}", 3, &queue) != LEASEQ_OK ||
        leaseq_partitioned_partitions(queue, &partitions) != LEASEQ_OK)
        goto done;
    printf("%zu partitions\n", partitions);

    /* Items go to a partition by their group, else their id; the batch is split per partition
     * (one call each, sent at once). */
    for (int i = 0; i < 9; i++) {
        char id[16], data[32];
        int len = snprintf(data, sizeof data, "photo-%d.png", i);
        snprintf(id, sizeof id, "p%d", i);
        if (leaseq_item_with_id(id, (const uint8_t *)data, (size_t)len, &items[i]) != LEASEQ_OK)
            goto done;
    }
    if (leaseq_partitioned_add_batch(queue, (const leaseq_item *const *)items, 9, &added) !=
            LEASEQ_OK ||
        leaseq_partitioned_stats(queue, &stats) != LEASEQ_OK ||
        leaseq_stats_by_partition_total(stats, &total) != LEASEQ_OK ||
        leaseq_stats_count(total, LEASEQ_STATE_WAITING, &waiting) != LEASEQ_OK)
        goto done;
    printf("added %zu: %llu waiting\n", added, (unsigned long long)waiting);

    /* One runner over every partition, served in turns (one partition at a time). */
    /* Every field at the core's default (zeros, -1 for the booleans), job_timeout_ms and on_log
     * included: leaseq_worker_options_init() fills only the fields an older header had. */
    leaseq_worker_options options = LEASEQ_WORKER_OPTIONS_INIT;
    options.concurrency = 4;
    options.on_event = on_event;
    if (leaseq_worker_run_partitioned(queue, resize, NULL, &options) != LEASEQ_OK) goto done;
    printf("%d completed\n", atomic_load(&completed));
    failed = 0;
done:
    if (failed) fprintf(stderr, "leaseq: %s\n", leaseq_last_error_message());
    for (int i = 0; i < 9; i++) leaseq_item_free(items[i]);
    leaseq_stats_by_partition_free(stats);
    leaseq_partitioned_free(queue);
    leaseq_client_free(client);
    return failed;
}
