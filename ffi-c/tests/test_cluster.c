/*
 * A Redis Cluster through leaseq_client_connect_cluster: prefixes need a {hash tag}, and the
 * whole lease cycle works.
 *
 * Environment: LEASEQ_TEST_CLUSTER_URLS (the node URLs, separated by spaces).
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

static leaseq_client *client;

static void cluster_client_says_so(void) {
    bool is_cluster = false;
    CHECK_OK(leaseq_client_is_cluster(client, &is_cluster));
    CHECK(is_cluster);
}

static void prefixes_need_a_hash_tag(void) {
    leaseq_queue *queue = (leaseq_queue *)&queue;
    CHECK_INVALID_ARG(leaseq_client_queue(client, "no-tag", &queue), "prefix");
    CHECK(queue == NULL);
}

static void lease_cycle_on_a_cluster(void) {
    char prefix[300], name[256];
    unique_prefix(name, sizeof name, "cluster");
    snprintf(prefix, sizeof prefix, "{%s}", name);
    leaseq_queue *queue = NULL;
    CHECK_OK(leaseq_client_queue(client, prefix, &queue));
    REQUIRE(queue != NULL);
    static const uint8_t data[] = {0, 1, 2, 0};
    CHECK(add_item(queue, "k1", data, sizeof data));
    CHECK(add_item(queue, "k2", "two", 3));
    leaseq_lease *lease = NULL, *next = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 100, &lease));
    REQUIRE(lease != NULL);
    const uint8_t *got = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_lease_data(lease, &got, &len));
    CHECK(len == sizeof data && got != NULL && memcmp(got, data, len) == 0);
    bool completed = false;
    CHECK_OK(leaseq_queue_complete_and_lease(queue, lease, 30000, &completed, &next));
    CHECK(completed && next != NULL);
    CHECK_OK(leaseq_queue_complete(queue, next, &completed));
    CHECK(completed);
    leaseq_clean_report report = {9, 9, 9, 9};
    CHECK_OK(leaseq_queue_deep_clean(queue, &report));
    CHECK(report.requeued == 0);
    CHECK(queue_len(queue) == 0 && processing_len(queue) == 0);
    leaseq_lease_free(lease);
    leaseq_lease_free(next);
    leaseq_queue_free(queue);
}

int main(void) {
    char list[4096];
    const char *urls[16];
    size_t count = 0;
    snprintf(list, sizeof list, "%s", need_env("LEASEQ_TEST_CLUSTER_URLS"));
    for (char *url = strtok(list, " "); url && count < 16; url = strtok(NULL, " "))
        urls[count++] = url;
    if (leaseq_client_connect_cluster(urls, count, &client) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect to the cluster: %s\n", leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"a cluster client says so", cluster_client_says_so},
        {"cluster prefixes need a hash tag", prefixes_need_a_hash_tag},
        {"the lease cycle works on a cluster", lease_cycle_on_a_cluster},
    };
    int status = run_tests("test_cluster", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(client);
    leaseq_runtime_shutdown(); /* so that valgrind sees no live runtime thread */
    return status;
}
