/*
 * Interop with Rust: items added by the Rust core (the add_item example of this crate) are
 * leased and completed from C, byte for byte, and an item added from C is seen by Rust.
 *
 * Environment: LEASEQ_TEST_URL (a redis:// URL), LEASEQ_ADD_ITEM (path of the add_item
 * example binary: `cargo build -p leaseq-ffi --example add_item`).
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

static leaseq_client *client;
static const char *url;

/* Runs `add_item URL PREFIX ID DATA` and copies its first output line into `answer`. */
static int rust_add(const char *prefix, const char *id, const char *data, char *answer,
                    size_t size) {
    char command[2048];
    /* Every argument is ours and holds no single quote. */
    snprintf(command, sizeof command, "'%s' '%s' '%s' '%s' '%s'", need_env("LEASEQ_ADD_ITEM"),
             url, prefix, id, data);
    FILE *pipe = popen(command, "r");
    if (pipe == NULL) return -1;
    answer[0] = '\0';
    if (fgets(answer, (int)size, pipe) != NULL) answer[strcspn(answer, "\n")] = '\0';
    return pclose(pipe);
}

static void item_added_from_rust_is_leased_from_c(void) {
    char prefix[256], answer[64];
    unique_prefix(prefix, sizeof prefix, "from-rust");
    /* "rust\0data\xff" as hex, so that it holds a NUL and a byte that is not UTF-8. */
    REQUIRE(rust_add(prefix, "from-rust-1", "hex:727573740064617461ff", answer,
                     sizeof answer) == 0);
    CHECK(strcmp(answer, "added") == 0);

    leaseq_queue *queue = NULL;
    CHECK_OK(leaseq_client_queue(client, prefix, &queue));
    REQUIRE(queue != NULL);
    CHECK(queue_len(queue) == 1);
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    const char *id = NULL;
    const uint8_t *data = NULL;
    size_t len = 0;
    uint64_t count = 0;
    CHECK_OK(leaseq_lease_id(lease, &id));
    CHECK_OK(leaseq_lease_data(lease, &data, &len));
    CHECK_OK(leaseq_lease_count(lease, &count));
    CHECK(id != NULL && strcmp(id, "from-rust-1") == 0);
    static const uint8_t expected[] = {'r', 'u', 's', 't', 0, 'd', 'a', 't', 'a', 0xff};
    CHECK(len == sizeof expected && data != NULL && memcmp(data, expected, len) == 0);
    CHECK(count == 1);
    bool completed = false;
    CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
    CHECK(completed);
    CHECK(queue_len(queue) == 0 && processing_len(queue) == 0);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

static void item_added_from_c_is_seen_by_rust(void) {
    char prefix[256], answer[64];
    unique_prefix(prefix, sizeof prefix, "from-c");
    leaseq_queue *queue = NULL;
    CHECK_OK(leaseq_client_queue(client, prefix, &queue));
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "from-c-1", "c", 1));
    /* Rust finds the id taken... */
    REQUIRE(rust_add(prefix, "from-c-1", "other", answer, sizeof answer) == 0);
    CHECK(strcmp(answer, "exists") == 0);
    /* ...and adds another one beside it. */
    REQUIRE(rust_add(prefix, "from-rust-2", "r", answer, sizeof answer) == 0);
    CHECK(strcmp(answer, "added") == 0);
    CHECK(queue_len(queue) == 2);
    leaseq_queue_free(queue);
}

int main(void) {
    url = need_env("LEASEQ_TEST_URL");
    need_env("LEASEQ_ADD_ITEM");
    if (leaseq_client_connect(url, &client) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"an item added from Rust is leased from C", item_added_from_rust_is_leased_from_c},
        {"an item added from C is seen by Rust", item_added_from_c_is_seen_by_rust},
    };
    int status = run_tests("test_interop", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(client);
    leaseq_runtime_shutdown(); /* so that valgrind sees no live runtime thread */
    return status;
}
