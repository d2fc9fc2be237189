/*
 * Dependencies and flows (issue 26) through leaseq.h, against a throwaway redis-server: the add
 * options depends_on / on_dependency_failure, LEASEQ_STATE_BLOCKED (count, list, get,
 * leaseq_job_depends_on), leaseq_queue_add_flow with nested children as parent indices,
 * leaseq_queue_dependencies and leaseq_queue_dependency_results, and the refusals, each naming
 * its argument.
 *
 * Environment: LEASEQ_TEST_URL (a redis:// URL).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>

#include "check.h"

static leaseq_client *client;

static leaseq_item *new_item(const char *id) {
    leaseq_item *item = NULL;
    CHECK_OK(leaseq_item_with_id(id, (const uint8_t *)id, strlen(id), &item));
    return item;
}

/* Adds `id` depending on `deps` (with `policy`, or none when -1). */
static leaseq_status add_with_deps(const leaseq_queue *queue, const char *id,
                                   const char *const *deps, size_t deps_len, int policy) {
    leaseq_item *item = new_item(id);
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.depends_on = deps;
    options.depends_on_len = deps_len;
    options.set = LEASEQ_ADD_DEPENDS_ON;
    if (policy >= 0) {
        options.on_dependency_failure = policy;
        options.set |= LEASEQ_ADD_ON_DEPENDENCY_FAILURE;
    }
    bool added = false;
    leaseq_status status = leaseq_queue_add_with_options(queue, item, &options, &added);
    leaseq_item_free(item);
    return status;
}

static uint64_t count_in(const leaseq_queue *queue, leaseq_state state) {
    uint64_t n = UINT64_MAX;
    CHECK_OK(leaseq_queue_count(queue, state, &n));
    return n;
}

/* Leases the next item, which must be `id`, and completes it with `result` (NULL: none). */
static void lease_and_complete(const leaseq_queue *queue, const char *id, const char *result) {
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    const char *got = NULL;
    CHECK_OK(leaseq_lease_id(lease, &got));
    CHECK(got != NULL && strcmp(got, id) == 0);
    bool completed = false;
    if (result == NULL)
        CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
    else
        CHECK_OK(leaseq_queue_complete_with_result(queue, lease, (const uint8_t *)result,
                                                   strlen(result), -1, &completed));
    CHECK(completed);
    leaseq_lease_free(lease);
}

static void a_dependant_is_blocked_until_its_dependencies_complete(void) {
    leaseq_queue *queue = fresh_queue(client, "deps-blocked");
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "a", "a", 1));
    CHECK(add_item(queue, "b", "b", 1));
    static const char *const deps[] = {"a", "b"};
    CHECK_OK(add_with_deps(queue, "c", deps, 2, LEASEQ_ON_DEPENDENCY_FAILURE_RUN));
    CHECK(count_in(queue, LEASEQ_STATE_BLOCKED) == 1);
    CHECK(strcmp(leaseq_state_str(LEASEQ_STATE_BLOCKED), "blocked") == 0);
    /* The queue's figures count it too. */
    leaseq_stats *stats = NULL;
    CHECK_OK(leaseq_queue_stats(queue, &stats));
    uint64_t blocked = 0;
    CHECK_OK(leaseq_stats_count(stats, LEASEQ_STATE_BLOCKED, &blocked));
    CHECK(blocked == 1);
    leaseq_stats_free(stats);

    leaseq_entry_list *list = NULL;
    CHECK_OK(leaseq_queue_list(queue, LEASEQ_STATE_BLOCKED, 0, 10, &list));
    size_t len = 0;
    CHECK_OK(leaseq_entry_list_len(list, &len));
    CHECK(len == 1);
    leaseq_entry_list_free(list);

    leaseq_job *job = NULL;
    CHECK_OK(leaseq_queue_get(queue, "c", &job));
    REQUIRE(job != NULL);
    leaseq_state state = LEASEQ_STATE_NONE;
    CHECK_OK(leaseq_job_state(job, &state));
    CHECK(state == LEASEQ_STATE_BLOCKED);
    const char *const *ids = NULL;
    size_t ids_len = 0;
    CHECK_OK(leaseq_job_depends_on(job, &ids, &ids_len));
    CHECK(ids_len == 2 && strcmp(ids[0], "a") == 0 && strcmp(ids[1], "b") == 0);
    leaseq_on_dependency_failure policy = -7;
    CHECK_OK(leaseq_job_on_dependency_failure(job, &policy));
    CHECK(policy == LEASEQ_ON_DEPENDENCY_FAILURE_RUN);
    leaseq_job_free(job);

    leaseq_dependencies *deps_of_c = NULL;
    CHECK_OK(leaseq_queue_dependencies(queue, "c", &deps_of_c));
    REQUIRE(deps_of_c != NULL);
    CHECK(deps_of_c->depends_on_len == 2 && deps_of_c->pending_len == 2);
    CHECK(deps_of_c->on_dependency_failure == LEASEQ_ON_DEPENDENCY_FAILURE_RUN);
    CHECK(deps_of_c->dependants_count == 0 && deps_of_c->dependants == NULL);
    leaseq_dependencies_free(deps_of_c);
    leaseq_dependencies *deps_of_a = NULL;
    CHECK_OK(leaseq_queue_dependencies(queue, "a", &deps_of_a));
    REQUIRE(deps_of_a != NULL);
    CHECK(deps_of_a->depends_on_len == 0 && deps_of_a->depends_on == NULL);
    CHECK(deps_of_a->on_dependency_failure == LEASEQ_ON_DEPENDENCY_FAILURE_NONE);
    CHECK(deps_of_a->dependants_count == 1 && deps_of_a->dependants_len == 1 &&
          strcmp(deps_of_a->dependants[0], "c") == 0);
    leaseq_dependencies_free(deps_of_a);

    lease_and_complete(queue, "a", "from a");
    CHECK(count_in(queue, LEASEQ_STATE_BLOCKED) == 1);
    lease_and_complete(queue, "b", NULL);
    CHECK(count_in(queue, LEASEQ_STATE_BLOCKED) == 0);
    leaseq_dependency_results *results = NULL;
    CHECK_OK(leaseq_queue_dependency_results(queue, "c", &results));
    REQUIRE(results != NULL);
    CHECK(results->results_len == 2);
    if (results->results_len == 2) {
        const leaseq_dependency_result *r = results->results;
        CHECK(strcmp(r[0].id, "a") == 0 && r[0].has_result && r[0].result_len == 6 &&
              memcmp(r[0].result, "from a", 6) == 0);
        CHECK(strcmp(r[1].id, "b") == 0 && !r[1].has_result && r[1].result == NULL);
    }
    leaseq_dependency_results_free(results);
    lease_and_complete(queue, "c", NULL);
    leaseq_queue_free(queue);
}

static void a_flow_runs_children_first_and_its_parent_reads_their_results(void) {
    leaseq_queue *queue = fresh_queue(client, "deps-flow");
    REQUIRE(queue != NULL);
    /* report <- (part1 <- fetch), part2: part1 has a child of its own. */
    leaseq_item *report = new_item("report");
    leaseq_item *part1 = new_item("part1");
    leaseq_item *part2 = new_item("part2");
    leaseq_item *fetch = new_item("fetch");
    leaseq_add_options low = LEASEQ_ADD_OPTIONS_INIT;
    low.priority = -5;
    low.set = LEASEQ_ADD_PRIORITY;
    leaseq_flow_child children[] = {
        {part1, NULL, LEASEQ_FLOW_ROOT},
        {part2, &low, LEASEQ_FLOW_ROOT},
        {fetch, NULL, 0},
    };
    size_t added = 0;
    CHECK_OK(leaseq_queue_add_flow(queue, report, NULL, children, 3, &added));
    CHECK(added == 4);
    CHECK(count_in(queue, LEASEQ_STATE_BLOCKED) == 2);
    leaseq_dependencies *deps = NULL;
    CHECK_OK(leaseq_queue_dependencies(queue, "part1", &deps));
    CHECK(deps != NULL && deps->depends_on_len == 1 && strcmp(deps->depends_on[0], "fetch") == 0);
    leaseq_dependencies_free(deps);

    lease_and_complete(queue, "fetch", "rows");
    lease_and_complete(queue, "part1", "p1");
    lease_and_complete(queue, "part2", "p2");
    leaseq_dependency_results *results = NULL;
    CHECK_OK(leaseq_queue_dependency_results(queue, "report", &results));
    REQUIRE(results != NULL);
    CHECK(results->results_len == 2);
    if (results->results_len == 2) {
        CHECK(strcmp(results->results[0].id, "part1") == 0 &&
              memcmp(results->results[0].result, "p1", 2) == 0);
        CHECK(strcmp(results->results[1].id, "part2") == 0 &&
              memcmp(results->results[1].result, "p2", 2) == 0);
    }
    leaseq_dependency_results_free(results);
    lease_and_complete(queue, "report", "sent");

    /* Refusals, each naming its argument, before anything is written. */
    leaseq_flow_child bad_parent[] = {{part1, NULL, 1}, {part2, NULL, LEASEQ_FLOW_ROOT}};
    CHECK_INVALID_ARG(leaseq_queue_add_flow(queue, report, NULL, bad_parent, 2, &added),
                      "children[0].parent");
    CHECK(added == 0);
    leaseq_flow_child twice[] = {{part1, NULL, LEASEQ_FLOW_ROOT}, {part1, NULL, LEASEQ_FLOW_ROOT}};
    leaseq_item *other = new_item("other");
    CHECK_INVALID_ARG(leaseq_queue_add_flow(queue, other, NULL, twice, 2, &added), "children");
    leaseq_flow_child no_item[] = {{NULL, NULL, LEASEQ_FLOW_ROOT}};
    CHECK_NULL_ARG(leaseq_queue_add_flow(queue, other, NULL, no_item, 1, &added),
                   "children[0].item");
    leaseq_add_options bad = LEASEQ_ADD_OPTIONS_INIT;
    bad.priority = 5000;
    bad.set = LEASEQ_ADD_PRIORITY;
    leaseq_flow_child bad_options[] = {{part1, &bad, LEASEQ_FLOW_ROOT}};
    /* The core's check, naming the item and its option. */
    CHECK_STATUS(LEASEQ_INVALID_ARGUMENT,
                 leaseq_queue_add_flow(queue, other, NULL, bad_options, 1, &added));
    CHECK_MESSAGE_HAS("priority");
    bad.priority = -1;
    bad.set = LEASEQ_ADD_DELAY;
    bad.delay_ms = -1;
    CHECK_INVALID_ARG(leaseq_queue_add_flow(queue, other, NULL, bad_options, 1, &added),
                      "children[0].options.delay_ms");
    CHECK_INVALID_ARG(leaseq_queue_add_flow(queue, other, &bad, NULL, 0, &added),
                      "parent_options.delay_ms");
    CHECK_NULL_ARG(leaseq_queue_add_flow(queue, other, NULL, NULL, 1, &added), "children");
    CHECK_NULL_ARG(leaseq_queue_add_flow(queue, NULL, NULL, NULL, 0, &added), "parent");
    leaseq_job *job = (leaseq_job *)&job;
    CHECK_OK(leaseq_queue_get(queue, "other", &job));
    CHECK(job == NULL);
    leaseq_item_free(other);
    leaseq_item_free(report);
    leaseq_item_free(part1);
    leaseq_item_free(part2);
    leaseq_item_free(fetch);
    leaseq_queue_free(queue);
}

static void bad_dependencies_are_refused_naming_the_argument(void) {
    leaseq_queue *queue = fresh_queue(client, "deps-bad");
    REQUIRE(queue != NULL);
    static const char *const self[] = {"a"};
    CHECK_INVALID_ARG(add_with_deps(queue, "a", self, 1, -1), "depends_on");
    static const char *const empty[] = {""};
    CHECK_INVALID_ARG(add_with_deps(queue, "a", empty, 1, -1), "depends_on");
    static const char *const b[] = {"b"};
    CHECK_INVALID_ARG(add_with_deps(queue, "a", b, 1, 7), "options.on_dependency_failure");
    static const char *const null_id[] = {NULL};
    CHECK_NULL_ARG(add_with_deps(queue, "a", null_id, 1, -1), "depends_on[0]");
    CHECK_NULL_ARG(add_with_deps(queue, "a", NULL, 1, -1), "depends_on");
    CHECK(queue_len(queue) == 0);
    leaseq_dependencies *deps = (leaseq_dependencies *)&deps;
    CHECK_NULL_ARG(leaseq_queue_dependencies(queue, NULL, &deps), "id");
    CHECK(deps == NULL);
    CHECK_NULL_ARG(leaseq_queue_dependencies(queue, "a", NULL), "out_dependencies");
    CHECK_NULL_ARG(leaseq_queue_dependency_results(queue, "a", NULL), "out_results");
    leaseq_dependencies_free(NULL);
    leaseq_dependency_results_free(NULL);
    leaseq_queue_free(queue);
}

int main(void) {
    const char *url = need_env("LEASEQ_TEST_URL");
    if (leaseq_client_connect(url, &client) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"a dependant is blocked until its dependencies complete",
         a_dependant_is_blocked_until_its_dependencies_complete},
        {"a flow runs children first and its parent reads their results",
         a_flow_runs_children_first_and_its_parent_reads_their_results},
        {"bad dependencies are refused naming the argument",
         bad_dependencies_are_refused_naming_the_argument},
    };
    int rc = run_tests("test_dependencies", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(client);
    leaseq_runtime_shutdown(); /* so that valgrind sees no live runtime thread */
    return rc;
}
