/*
 * Every function of leaseq.h against a throwaway redis-server: results, error statuses and
 * messages, NULL for every pointer argument, TTL and timeout edge cases, binary data.
 *
 * Environment: LEASEQ_TEST_URL (a redis:// URL), LEASEQ_ERRORS_MD (path of spec/errors.md).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>

#include "check.h"

static leaseq_client *client;
static const char *url;

/* Items leased by leaseq clients (protocol v2 tracks them apart from `processing`). */
static uint64_t leased_count(const leaseq_queue *queue) {
    uint64_t count = UINT64_MAX;
    CHECK_OK(leaseq_queue_count(queue, LEASEQ_STATE_LEASED, &count));
    return count;
}

/* ---- status names and the registry ---------------------------------------------------- */

#define STATUS(name) {name, #name}
static const struct {
    leaseq_status value;
    const char *name;
} statuses[] = {
    STATUS(LEASEQ_OK),         STATUS(LEASEQ_CONNECTION),       STATUS(LEASEQ_REDIS),
    STATUS(LEASEQ_INVALID_ARGUMENT), STATUS(LEASEQ_WRONG_TYPE), STATUS(LEASEQ_TIMEOUT),
    STATUS(LEASEQ_CLOSED),     STATUS(LEASEQ_JSON),             STATUS(LEASEQ_UNAVAILABLE),
    STATUS(LEASEQ_OUT_OF_MEMORY), STATUS(LEASEQ_FULL), STATUS(LEASEQ_DEAD),
    STATUS(LEASEQ_NULL_ARGUMENT),
    STATUS(LEASEQ_INTERNAL),
};
#define STATUS_COUNT (sizeof statuses / sizeof statuses[0])

/* Copies the text between the n-th pair of backticks of `cell` into `out`. */
static int backticked(const char *cell, char *out, size_t size) {
    const char *start = strchr(cell, '`');
    const char *end = start ? strchr(start + 1, '`') : NULL;
    if (!end || (size_t)(end - start - 1) >= size) return 0;
    memcpy(out, start + 1, (size_t)(end - start - 1));
    out[end - start - 1] = '\0';
    return 1;
}

/* Walks spec/errors.md: every row's C status exists in the header with the row's number,
 * leaseq_status_str gives the row's code, and the header has no status the registry lacks. */
static void registry_matches_header(void) {
    FILE *file = fopen(need_env("LEASEQ_ERRORS_MD"), "r");
    REQUIRE(file != NULL);
    char line[2048];
    int seen[STATUS_COUNT] = {0};
    size_t rows = 0;
    while (fgets(line, sizeof line, file)) {
        /* | number | `CODE` | meaning | retryable | `LEASEQ_X` | ... */
        char *cells[8];
        size_t n = 0;
        if (line[0] != '|') continue;
        for (char *p = line; (p = strchr(p, '|')) != NULL && n < 8; p++) cells[n++] = p + 1;
        if (n < 6) continue;
        char *end = NULL;
        long number = strtol(cells[0], &end, 10);
        if (end == cells[0] || (*end != ' ' && *end != '|')) continue; /* header, rule */
        char code[64], c_name[64];
        CHECK(backticked(cells[1], code, sizeof code));
        CHECK(backticked(cells[4], c_name, sizeof c_name));
        rows++;
        int found = 0;
        for (size_t i = 0; i < STATUS_COUNT; i++) {
            if (strcmp(statuses[i].name, c_name) == 0) {
                found = 1;
                seen[i]++;
                CHECK(statuses[i].value == number);
            }
        }
        if (!found) fprintf(stderr, "registry status %s missing from the header\n", c_name);
        CHECK(found);
        CHECK(strcmp(leaseq_status_str((leaseq_status)number), code) == 0);
    }
    fclose(file);
    CHECK(rows == STATUS_COUNT);
    for (size_t i = 0; i < STATUS_COUNT; i++) CHECK(seen[i] == 1);
}

static void status_str_is_total(void) {
    CHECK(strcmp(leaseq_status_str(LEASEQ_OK), "OK") == 0);
    CHECK(strcmp(leaseq_status_str(LEASEQ_NULL_ARGUMENT), "NULL_ARGUMENT") == 0);
    CHECK(strcmp(leaseq_status_str(-1), "UNKNOWN") == 0);
    CHECK(strcmp(leaseq_status_str(99), "UNKNOWN") == 0);
    CHECK(strcmp(leaseq_status_str(INT32_MAX), "UNKNOWN") == 0);
    CHECK(strcmp(leaseq_status_str(INT32_MIN), "UNKNOWN") == 0);
}

static void version_is_set(void) {
    const char *version = leaseq_version();
    CHECK(version != NULL && strchr(version, '.') != NULL);
}

static void last_error_message_follows_calls(void) {
    leaseq_item *item = NULL;
    CHECK_STATUS(LEASEQ_INVALID_ARGUMENT, leaseq_item_with_id("", NULL, 0, &item));
    CHECK_MESSAGE_HAS("leaseq_item_with_id");
    CHECK_MESSAGE_HAS("`id`");
    /* Reading it, or a status name, does not change it. */
    (void)leaseq_status_str(LEASEQ_OK);
    CHECK_MESSAGE_HAS("`id`");
    /* A success clears it. */
    CHECK_OK(leaseq_item_new(NULL, 0, &item));
    CHECK(strcmp(leaseq_last_error_message(), "") == 0);
    leaseq_item_free(item);
}

/* ---- client ----------------------------------------------------------------------------- */

static void connect_refuses_bad_urls(void) {
    leaseq_client *c = (leaseq_client *)&c; /* garbage that must be overwritten */
    CHECK_INVALID_ARG(leaseq_client_connect("not a url", &c), "url");
    CHECK(c == NULL);
    CHECK_INVALID_ARG(leaseq_client_connect("http://127.0.0.1:1", &c), "url");
    CHECK_INVALID_ARG(leaseq_client_connect("redis://\xff\xfe", &c), "url");
    CHECK_MESSAGE_HAS("UTF-8");
    CHECK(c == NULL);
}

static void connect_to_a_closed_port_is_a_connection_error(void) {
    /* A socket bound but not listening: connecting to its port is refused, and no other
     * process can take the port while we hold it. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(bind(fd, (struct sockaddr *)&addr, len) == 0);
    REQUIRE(getsockname(fd, (struct sockaddr *)&addr, &len) == 0);
    char closed[64];
    snprintf(closed, sizeof closed, "redis://127.0.0.1:%u", (unsigned)ntohs(addr.sin_port));
    leaseq_client *c = NULL;
    CHECK_STATUS(LEASEQ_CONNECTION, leaseq_client_connect(closed, &c));
    CHECK(c == NULL);
    CHECK(strlen(leaseq_last_error_message()) > 0);
    close(fd);
}

static void connect_cluster_checks_its_list(void) {
    leaseq_client *c = (leaseq_client *)&c;
    CHECK_INVALID_ARG(leaseq_client_connect_cluster(NULL, 0, &c), "urls");
    CHECK(c == NULL);
    const char *one_null[] = {url, NULL};
    CHECK_NULL_ARG(leaseq_client_connect_cluster(one_null, 2, &c), "urls[1]");
    const char *bad[] = {"not a url"};
    CHECK_INVALID_ARG(leaseq_client_connect_cluster(bad, 1, &c), "urls");
    const char *not_utf8[] = {"redis://\xc3"};
    CHECK_INVALID_ARG(leaseq_client_connect_cluster(not_utf8, 1, &c), "urls[0]");
    CHECK(c == NULL);
}

static void client_reports_kind_and_warnings(void) {
    bool is_cluster = true;
    CHECK_OK(leaseq_client_is_cluster(client, &is_cluster));
    CHECK(!is_cluster);
    size_t count = SIZE_MAX;
    CHECK_OK(leaseq_client_warning_count(client, &count));
    CHECK(count < 100);
    for (size_t i = 0; i < count; i++) {
        const char *warning = NULL;
        CHECK_OK(leaseq_client_warning(client, i, &warning));
        CHECK(warning != NULL && strlen(warning) > 0);
    }
    const char *warning = "garbage";
    CHECK_INVALID_ARG(leaseq_client_warning(client, count, &warning), "index");
    CHECK(warning == NULL);
}

static void close_ends_every_later_call(void) {
    leaseq_client *c = NULL;
    leaseq_queue *queue = NULL;
    REQUIRE(leaseq_client_connect(url, &c) == LEASEQ_OK);
    char prefix[256];
    unique_prefix(prefix, sizeof prefix, "close");
    CHECK_OK(leaseq_client_queue(c, prefix, &queue));
    CHECK(queue_len(queue) == 0);
    CHECK_OK(leaseq_client_close(c));
    CHECK_OK(leaseq_client_close(c)); /* twice is harmless */
    leaseq_lease *lease = NULL;
    CHECK_STATUS(LEASEQ_CLOSED, leaseq_queue_lease(queue, 1000, -1, &lease));
    CHECK(lease == NULL);
    uint64_t len = 0;
    CHECK_STATUS(LEASEQ_CLOSED, leaseq_queue_len(queue, &len));
    leaseq_queue_free(queue);
    leaseq_client_free(c);
}

static void freeing_the_client_closes_its_queues(void) {
    leaseq_client *c = NULL;
    leaseq_queue *queue = NULL;
    REQUIRE(leaseq_client_connect(url, &c) == LEASEQ_OK);
    char prefix[256];
    unique_prefix(prefix, sizeof prefix, "free");
    CHECK_OK(leaseq_client_queue(c, prefix, &queue));
    leaseq_client_free(c);
    uint64_t len = 0;
    CHECK_STATUS(LEASEQ_CLOSED, leaseq_queue_len(queue, &len));
    leaseq_queue_free(queue);
}

/* ---- queue handles and items ------------------------------------------------------------ */

static void queue_prefixes_are_validated(void) {
    leaseq_queue *queue = (leaseq_queue *)&queue;
    CHECK_INVALID_ARG(leaseq_client_queue(client, "", &queue), "prefix");
    CHECK(queue == NULL);
    CHECK_INVALID_ARG(leaseq_client_queue(client, "tab\there", &queue), "prefix");
    CHECK_INVALID_ARG(leaseq_client_queue(client, "bad\xff", &queue), "prefix");
    CHECK_MESSAGE_HAS("UTF-8");
    char longest[1026];
    memset(longest, 'p', 1025);
    longest[1025] = '\0';
    CHECK_INVALID_ARG(leaseq_client_queue(client, longest, &queue), "prefix");
    CHECK(queue == NULL);
    longest[1024] = '\0';
    CHECK_OK(leaseq_client_queue(client, longest, &queue));
    leaseq_queue_free(queue);

    CHECK_OK(leaseq_client_queue(client, "{tag}:ünïcode", &queue));
    const char *prefix = NULL;
    CHECK_OK(leaseq_queue_prefix(queue, &prefix));
    CHECK(prefix != NULL && strcmp(prefix, "{tag}:ünïcode") == 0);
    leaseq_queue_free(queue);
}

static void items_get_ids(void) {
    leaseq_item *a = NULL, *b = NULL;
    const char *id_a = NULL, *id_b = NULL;
    CHECK_OK(leaseq_item_new((const uint8_t *)"x", 1, &a));
    CHECK_OK(leaseq_item_new(NULL, 0, &b));
    CHECK_OK(leaseq_item_id(a, &id_a));
    CHECK_OK(leaseq_item_id(b, &id_b));
    REQUIRE(id_a != NULL && id_b != NULL);
    CHECK(strlen(id_a) == 36 && strlen(id_b) == 36); /* UUIDs */
    CHECK(strcmp(id_a, id_b) != 0);
    leaseq_item_free(a);
    leaseq_item_free(b);

    leaseq_item *c = NULL;
    const char *id_c = NULL;
    CHECK_OK(leaseq_item_with_id("job-1", (const uint8_t *)"", 0, &c));
    CHECK_OK(leaseq_item_id(c, &id_c));
    CHECK(id_c != NULL && strcmp(id_c, "job-1") == 0);
    leaseq_item_free(c);

    leaseq_item *bad = (leaseq_item *)&bad;
    CHECK_INVALID_ARG(leaseq_item_with_id("", NULL, 0, &bad), "id");
    CHECK(bad == NULL);
    CHECK_INVALID_ARG(leaseq_item_with_id("new\nline", NULL, 0, &bad), "id");
    CHECK_INVALID_ARG(leaseq_item_with_id("\xc0\x80", NULL, 0, &bad), "id");
    char longest[514];
    memset(longest, 'i', 513);
    longest[513] = '\0';
    CHECK_INVALID_ARG(leaseq_item_with_id(longest, NULL, 0, &bad), "id");
    CHECK(bad == NULL);
}

/* ---- the protocol ------------------------------------------------------------------------ */

static void binary_data_round_trips(void) {
    leaseq_queue *queue = fresh_queue(client, "binary");
    REQUIRE(queue != NULL);
    static const uint8_t data[] = {'a', 0, 'b', 0, 0, 0xff, 0xfe, '\n', 0};
    CHECK(add_item(queue, "bin", data, sizeof data));
    CHECK(queue_len(queue) == 1);

    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    const uint8_t *got = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_lease_data(lease, &got, &len));
    CHECK(len == sizeof data);
    CHECK(got != NULL && memcmp(got, data, sizeof data) == 0);
    CHECK(got != NULL && got[len] == 0); /* the NUL after the data */
    const char *id = NULL, *token = NULL;
    uint64_t count = 0;
    CHECK_OK(leaseq_lease_id(lease, &id));
    CHECK(id != NULL && strcmp(id, "bin") == 0);
    CHECK_OK(leaseq_lease_token(lease, &token));
    CHECK(token != NULL && strlen(token) > 0);
    CHECK_OK(leaseq_lease_count(lease, &count));
    CHECK(count == 1);
    CHECK(queue_len(queue) == 0);
    CHECK(leased_count(queue) == 1);
    CHECK(processing_len(queue) == 1); /* leaseq's leases, and redis-work-queue's */

    bool completed = false;
    CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
    CHECK(completed);
    CHECK(leased_count(queue) == 0);
    /* A second complete is late: false, not an error. */
    completed = true;
    CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
    CHECK(!completed);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

static void empty_data_round_trips(void) {
    leaseq_queue *queue = fresh_queue(client, "empty-data");
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "nothing", NULL, 0));
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    const uint8_t *got = NULL;
    size_t len = 99;
    CHECK_OK(leaseq_lease_data(lease, &got, &len));
    CHECK(len == 0);
    CHECK(got != NULL && got[0] == 0);
    bool completed = false;
    CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
    CHECK(completed);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

static void add_refuses_existing_ids(void) {
    leaseq_queue *queue = fresh_queue(client, "add");
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "same", "1", 1));
    CHECK(!add_item(queue, "same", "2", 1));
    CHECK(queue_len(queue) == 1);

    /* add_unique trusts the caller: a fresh random id is queued. */
    leaseq_item *item = NULL;
    CHECK_OK(leaseq_item_new((const uint8_t *)"u", 1, &item));
    CHECK_OK(leaseq_queue_add_unique(queue, item));
    leaseq_item_free(item);
    CHECK(queue_len(queue) == 2);

    /* The first data stays. */
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    const char *id = NULL;
    const uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(leaseq_lease_id(lease, &id));
    CHECK_OK(leaseq_lease_data(lease, &data, &len));
    CHECK(id != NULL && strcmp(id, "same") == 0);
    CHECK(len == 1 && data != NULL && data[0] == '1');
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

static void add_batch_adds_new_ids(void) {
    leaseq_queue *queue = fresh_queue(client, "batch");
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "b1", "old", 3));
    leaseq_item *items[3] = {NULL, NULL, NULL};
    CHECK_OK(leaseq_item_with_id("b1", (const uint8_t *)"new", 3, &items[0]));
    CHECK_OK(leaseq_item_with_id("b2", (const uint8_t *)"two", 3, &items[1]));
    CHECK_OK(leaseq_item_new((const uint8_t *)"\0\0", 2, &items[2]));
    size_t added = 99;
    CHECK_OK(leaseq_queue_add_batch(queue, (const leaseq_item *const *)items, 3, &added));
    CHECK(added == 2);
    CHECK(queue_len(queue) == 3);

    /* A NULL element: nothing is added. */
    const leaseq_item *with_null[] = {items[1], NULL};
    added = 99;
    CHECK_NULL_ARG(leaseq_queue_add_batch(queue, with_null, 2, &added), "items[1]");
    CHECK(added == 0);
    CHECK(queue_len(queue) == 3);

    /* An empty batch sends nothing. */
    added = 99;
    CHECK_OK(leaseq_queue_add_batch(queue, NULL, 0, &added));
    CHECK(added == 0);
    for (int i = 0; i < 3; i++) leaseq_item_free(items[i]);
    leaseq_queue_free(queue);
}

static void lease_timeouts(void) {
    leaseq_queue *queue = fresh_queue(client, "timeouts");
    REQUIRE(queue != NULL);
    leaseq_lease *lease = (leaseq_lease *)&lease;
    /* 0: return at once; positive: wait that long; both end with no lease. */
    CHECK_OK(leaseq_queue_lease(queue, 1000, 0, &lease));
    CHECK(lease == NULL);
    lease = (leaseq_lease *)&lease;
    CHECK_OK(leaseq_queue_lease(queue, 1000, 50, &lease));
    CHECK(lease == NULL);
    /* Negative waits forever, but returns at once when an item is there. */
    CHECK(add_item(queue, "t", "x", 1));
    CHECK_OK(leaseq_queue_lease(queue, 1000, -1, &lease));
    CHECK(lease != NULL);
    CHECK(add_item(queue, "t2", "x", 1));
    leaseq_lease *second = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 1000, INT64_MIN, &second));
    CHECK(second != NULL);
    leaseq_lease_free(lease);
    leaseq_lease_free(second);
    leaseq_queue_free(queue);
}

static void zero_and_negative_ttls_are_refused(void) {
    leaseq_queue *queue = fresh_queue(client, "ttls");
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "ttl", "x", 1));
    const int64_t bad[] = {0, -1, -30000, INT64_MIN, 30LL * 24 * 3600 * 1000 + 1, INT64_MAX};
    leaseq_lease *lease = NULL;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        lease = (leaseq_lease *)&lease;
        CHECK_INVALID_ARG(leaseq_queue_lease(queue, bad[i], 0, &lease), "ttl_ms");
        CHECK(lease == NULL);
    }
    /* Nothing was leased by the refused calls. */
    CHECK(queue_len(queue) == 1);
    CHECK(leased_count(queue) == 0);

    /* The longest TTL is accepted. */
    CHECK_OK(leaseq_queue_lease(queue, 30LL * 24 * 3600 * 1000, 0, &lease));
    REQUIRE(lease != NULL);
    bool renewed = true;
    CHECK_INVALID_ARG(leaseq_queue_renew(queue, lease, 0, &renewed), "ttl_ms");
    CHECK(!renewed);
    CHECK_INVALID_ARG(leaseq_queue_renew(queue, lease, -5, &renewed), "ttl_ms");
    leaseq_renew_outcome outcome = LEASEQ_RENEW_RENEWED;
    CHECK_INVALID_ARG(leaseq_queue_renew_outcome(queue, lease, -1, &outcome), "ttl_ms");
    bool completed = true;
    leaseq_lease *next = (leaseq_lease *)&next;
    CHECK_INVALID_ARG(leaseq_queue_complete_and_lease(queue, lease, 0, &completed, &next),
                      "ttl_ms");
    CHECK(!completed && next == NULL);
    CHECK_INVALID_ARG(leaseq_queue_complete_and_lease(queue, lease, -1, &completed, &next),
                      "ttl_ms");
    /* The refused complete_and_lease completed nothing. */
    CHECK(leased_count(queue) == 1);
    CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
    CHECK(completed);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

static void renew_and_expiry(void) {
    leaseq_queue *queue = fresh_queue(client, "renew");
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "r", "x", 1));
    leaseq_lease *first = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &first));
    REQUIRE(first != NULL);
    bool renewed = false;
    CHECK_OK(leaseq_queue_renew(queue, first, 30000, &renewed));
    CHECK(renewed);
    leaseq_renew_outcome outcome = -1;
    CHECK_OK(leaseq_queue_renew_outcome(queue, first, 30000, &outcome));
    CHECK(outcome == LEASEQ_RENEW_RENEWED);

    /* Shrink the lease to 1 ms and let it lapse: nobody holds the item. */
    CHECK_OK(leaseq_queue_renew(queue, first, 1, &renewed));
    CHECK(renewed);
    sleep_ms(50);
    CHECK_OK(leaseq_queue_renew_outcome(queue, first, 30000, &outcome));
    CHECK(outcome == LEASEQ_RENEW_EXPIRED);

    /* A light clean puts it back; the next lease counts 2. */
    leaseq_clean_report report = {99, 99, 99, 99};
    CHECK_OK(leaseq_queue_light_clean(queue, &report));
    CHECK(report.requeued == 1);
    CHECK(queue_len(queue) == 1);
    leaseq_lease *second = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &second));
    REQUIRE(second != NULL);
    uint64_t count = 0;
    CHECK_OK(leaseq_lease_count(second, &count));
    CHECK(count == 2);

    /* The first holder is fenced off from renewing... */
    CHECK_OK(leaseq_queue_renew(queue, first, 30000, &renewed));
    CHECK(!renewed);
    CHECK_OK(leaseq_queue_renew_outcome(queue, first, 30000, &outcome));
    CHECK(outcome == LEASEQ_RENEW_TAKEN_BY_ANOTHER);
    /* ...but the first to complete wins, exactly once. */
    bool completed = false;
    CHECK_OK(leaseq_queue_complete(queue, first, &completed));
    CHECK(completed);
    CHECK_OK(leaseq_queue_complete(queue, second, &completed));
    CHECK(!completed);
    CHECK_OK(leaseq_queue_renew_outcome(queue, second, 30000, &outcome));
    CHECK(outcome == LEASEQ_RENEW_COMPLETED);
    leaseq_lease_free(first);
    leaseq_lease_free(second);
    leaseq_queue_free(queue);
}

static void deep_clean_requeues_lapsed_leases(void) {
    leaseq_queue *queue = fresh_queue(client, "deep");
    REQUIRE(queue != NULL);
    leaseq_clean_report report = {99, 99, 99, 99};
    CHECK_OK(leaseq_queue_deep_clean(queue, &report));
    CHECK(report.requeued == 0 && report.removed == 0);
    CHECK(add_item(queue, "d", "x", 1));
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 1, 0, &lease));
    REQUIRE(lease != NULL);
    sleep_ms(50);
    CHECK_OK(leaseq_queue_deep_clean(queue, &report));
    CHECK(report.requeued == 1);
    CHECK(queue_len(queue) == 1 && leased_count(queue) == 0);
    CHECK_OK(leaseq_queue_light_clean(queue, &report));
    CHECK(report.requeued == 0 && report.removed == 0);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

static void complete_and_lease_chains(void) {
    leaseq_queue *queue = fresh_queue(client, "chain");
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "c1", "1", 1));
    CHECK(add_item(queue, "c2", "2", 1));
    leaseq_lease *lease = NULL, *next = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    bool completed = false;
    CHECK_OK(leaseq_queue_complete_and_lease(queue, lease, 30000, &completed, &next));
    CHECK(completed);
    REQUIRE(next != NULL);
    const char *id1 = NULL, *id2 = NULL;
    CHECK_OK(leaseq_lease_id(lease, &id1));
    CHECK_OK(leaseq_lease_id(next, &id2));
    CHECK(id1 && id2 && strcmp(id1, "c1") == 0 && strcmp(id2, "c2") == 0);
    leaseq_lease_free(lease);
    lease = next;
    next = (leaseq_lease *)&next;
    CHECK_OK(leaseq_queue_complete_and_lease(queue, lease, 30000, &completed, &next));
    CHECK(completed);
    CHECK(next == NULL);
    CHECK(queue_len(queue) == 0 && leased_count(queue) == 0);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

static void lease_from_parts_rebuilds(void) {
    leaseq_queue *queue = fresh_queue(client, "parts");
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "p", "data", 4));
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    const char *id = NULL, *token = NULL, *incarnation = NULL;
    size_t incarnation_len = 0;
    uint64_t count = 0;
    CHECK_OK(leaseq_lease_id(lease, &id));
    CHECK_OK(leaseq_lease_token(lease, &token));
    CHECK_OK(leaseq_lease_incarnation(lease, &incarnation, &incarnation_len));
    CHECK_OK(leaseq_lease_attempt(lease, &count));
    REQUIRE(incarnation != NULL && strlen(incarnation) == incarnation_len && incarnation_len > 0);

    leaseq_lease *rebuilt = NULL;
    CHECK_OK(leaseq_queue_lease_from_parts(queue, id, token, incarnation, count, &rebuilt));
    REQUIRE(rebuilt != NULL);
    const uint8_t *data = NULL;
    size_t len = 9;
    CHECK_OK(leaseq_lease_data(rebuilt, &data, &len));
    CHECK(len == 0);
    bool renewed = false;
    CHECK_OK(leaseq_queue_renew(queue, rebuilt, 30000, &renewed));
    CHECK(renewed);

    /* A made-up token is fenced off. */
    leaseq_lease *forged = NULL;
    CHECK_OK(leaseq_queue_lease_from_parts(queue, id, "not-the-token", incarnation, count,
                                           &forged));
    CHECK_OK(leaseq_queue_renew(queue, forged, 30000, &renewed));
    CHECK(!renewed);
    leaseq_lease_free(forged);
    /* So is a made-up incarnation: it cannot complete the item, even with the right token. */
    forged = NULL;
    CHECK_OK(leaseq_queue_lease_from_parts(queue, id, token, "another-life", count, &forged));
    bool completed = true;
    CHECK_OK(leaseq_queue_complete(queue, forged, &completed));
    CHECK(!completed);
    leaseq_lease_free(forged);
    forged = NULL;
    CHECK_OK(leaseq_queue_lease_from_parts(queue, id, "x", "another-life", count, &forged));
    leaseq_renew_outcome outcome = LEASEQ_RENEW_RENEWED;
    CHECK_OK(leaseq_queue_renew_outcome(queue, forged, 30000, &outcome));
    CHECK(outcome == LEASEQ_RENEW_OLDER_INCARNATION);
    leaseq_lease_free(forged);

    forged = (leaseq_lease *)&forged;
    CHECK_INVALID_ARG(
        leaseq_queue_lease_from_parts(queue, id, "", incarnation, count, &forged), "token");
    CHECK(forged == NULL);
    CHECK_INVALID_ARG(
        leaseq_queue_lease_from_parts(queue, "", token, incarnation, count, &forged), "id");
    CHECK_INVALID_ARG(
        leaseq_queue_lease_from_parts(queue, id, "\xff", incarnation, count, &forged), "token");
    CHECK_INVALID_ARG(leaseq_queue_lease_from_parts(queue, id, token, "", count, &forged),
                      "incarnation");
    CHECK_INVALID_ARG(leaseq_queue_lease_from_parts(queue, id, token, "\xfe", count, &forged),
                      "incarnation");
    CHECK(forged == NULL);

    completed = false;
    CHECK_OK(leaseq_queue_complete(queue, rebuilt, &completed));
    CHECK(completed);
    leaseq_lease_free(rebuilt);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

static void wrong_type_is_reported(void) {
    /* A queue whose list key another client made a string. (No queue's keys can fall inside
     * another's: prefixes that would nest in a key family are refused.) */
    char prefix[256], key[300], reply[256];
    unique_prefix(prefix, sizeof prefix, "wrongtype");
    leaseq_queue *queue = NULL;
    CHECK_OK(leaseq_client_queue(client, prefix, &queue));
    REQUIRE(queue != NULL);
    snprintf(key, sizeof key, "%s:queue", prefix);
    const char *set[] = {"SET", key, "a string"};
    REQUIRE(redis_raw(url, set, 3, reply, sizeof reply) == 0 && strcmp(reply, "+OK") == 0);
    uint64_t len = 0;
    CHECK_STATUS(LEASEQ_WRONG_TYPE, leaseq_queue_len(queue, &len));
    leaseq_lease *lease = NULL;
    CHECK_STATUS(LEASEQ_WRONG_TYPE, leaseq_queue_lease(queue, 1000, 0, &lease));
    CHECK(lease == NULL);
    leaseq_queue_free(queue);

    /* A prefix nested in another queue's key family is refused. */
    snprintf(key, sizeof key, "%s:item:x", prefix);
    queue = (leaseq_queue *)&queue;
    CHECK_INVALID_ARG(leaseq_client_queue(client, key, &queue), "prefix");
    CHECK(queue == NULL);
}

/* ---- NULL for every pointer argument ------------------------------------------------------ */

static void null_pointer_arguments(void) {
    leaseq_queue *queue = fresh_queue(client, "nulls");
    REQUIRE(queue != NULL);
    CHECK(add_item(queue, "n", "x", 1));
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &lease));
    REQUIRE(lease != NULL);
    leaseq_item *item = NULL;
    CHECK_OK(leaseq_item_new(NULL, 0, &item));
    REQUIRE(item != NULL);

    leaseq_client *c = NULL;
    leaseq_queue *q = NULL;
    leaseq_item *i = NULL;
    leaseq_lease *l = NULL;
    const char *s = NULL;
    const uint8_t *d = NULL;
    size_t n = 0;
    uint64_t u = 0;
    bool b = false;
    leaseq_renew_outcome o = 0;
    leaseq_clean_report r;
    const char *urls[] = {url};
    const leaseq_item *items[] = {item};

    CHECK_NULL_ARG(leaseq_client_connect(NULL, &c), "url");
    CHECK_NULL_ARG(leaseq_client_connect(url, NULL), "out_client");
    CHECK_NULL_ARG(leaseq_client_connect_cluster(NULL, 1, &c), "urls");
    CHECK_NULL_ARG(leaseq_client_connect_cluster(urls, 1, NULL), "out_client");
    CHECK_NULL_ARG(leaseq_client_close(NULL), "client");
    CHECK_NULL_ARG(leaseq_client_is_cluster(NULL, &b), "client");
    CHECK_NULL_ARG(leaseq_client_is_cluster(client, NULL), "out_is_cluster");
    CHECK_NULL_ARG(leaseq_client_warning_count(NULL, &n), "client");
    CHECK_NULL_ARG(leaseq_client_warning_count(client, NULL), "out_count");
    CHECK_NULL_ARG(leaseq_client_warning(NULL, 0, &s), "client");
    CHECK_NULL_ARG(leaseq_client_warning(client, 0, NULL), "out_warning");
    CHECK_NULL_ARG(leaseq_client_queue(NULL, "p", &q), "client");
    CHECK_NULL_ARG(leaseq_client_queue(client, NULL, &q), "prefix");
    CHECK_NULL_ARG(leaseq_client_queue(client, "p", NULL), "out_queue");

    CHECK_NULL_ARG(leaseq_item_new(NULL, 1, &i), "data");
    CHECK_NULL_ARG(leaseq_item_new((const uint8_t *)"x", 1, NULL), "out_item");
    CHECK_NULL_ARG(leaseq_item_with_id(NULL, NULL, 0, &i), "id");
    CHECK_NULL_ARG(leaseq_item_with_id("id", NULL, 3, &i), "data");
    CHECK_NULL_ARG(leaseq_item_with_id("id", NULL, 0, NULL), "out_item");
    CHECK_NULL_ARG(leaseq_item_id(NULL, &s), "item");
    CHECK_NULL_ARG(leaseq_item_id(item, NULL), "out_id");

    CHECK_NULL_ARG(leaseq_lease_id(NULL, &s), "lease");
    CHECK_NULL_ARG(leaseq_lease_id(lease, NULL), "out_id");
    CHECK_NULL_ARG(leaseq_lease_data(NULL, &d, &n), "lease");
    CHECK_NULL_ARG(leaseq_lease_data(lease, NULL, &n), "out_data");
    CHECK_NULL_ARG(leaseq_lease_data(lease, &d, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_lease_token(NULL, &s), "lease");
    CHECK_NULL_ARG(leaseq_lease_token(lease, NULL), "out_token");
    CHECK_NULL_ARG(leaseq_lease_count(NULL, &u), "lease");
    CHECK_NULL_ARG(leaseq_lease_count(lease, NULL), "out_count");

    CHECK_NULL_ARG(leaseq_queue_prefix(NULL, &s), "queue");
    CHECK_NULL_ARG(leaseq_queue_prefix(queue, NULL), "out_prefix");
    CHECK_NULL_ARG(leaseq_queue_add(NULL, item, &b), "queue");
    CHECK_NULL_ARG(leaseq_queue_add(queue, NULL, &b), "item");
    CHECK_NULL_ARG(leaseq_queue_add(queue, item, NULL), "out_added");
    CHECK_NULL_ARG(leaseq_queue_add_unique(NULL, item), "queue");
    CHECK_NULL_ARG(leaseq_queue_add_unique(queue, NULL), "item");
    CHECK_NULL_ARG(leaseq_queue_add_batch(NULL, items, 1, &n), "queue");
    CHECK_NULL_ARG(leaseq_queue_add_batch(queue, NULL, 1, &n), "items");
    CHECK_NULL_ARG(leaseq_queue_add_batch(queue, items, 1, NULL), "out_added");
    CHECK_NULL_ARG(leaseq_queue_lease(NULL, 1000, 0, &l), "queue");
    CHECK_NULL_ARG(leaseq_queue_lease(queue, 1000, 0, NULL), "out_lease");
    CHECK_NULL_ARG(leaseq_queue_complete(NULL, lease, &b), "queue");
    CHECK_NULL_ARG(leaseq_queue_complete(queue, NULL, &b), "lease");
    CHECK_NULL_ARG(leaseq_queue_complete(queue, lease, NULL), "out_completed");
    CHECK_NULL_ARG(leaseq_queue_complete_and_lease(NULL, lease, 1000, &b, &l), "queue");
    CHECK_NULL_ARG(leaseq_queue_complete_and_lease(queue, NULL, 1000, &b, &l), "lease");
    CHECK_NULL_ARG(leaseq_queue_complete_and_lease(queue, lease, 1000, NULL, &l),
                   "out_completed");
    CHECK_NULL_ARG(leaseq_queue_complete_and_lease(queue, lease, 1000, &b, NULL), "out_next");
    CHECK_NULL_ARG(leaseq_queue_renew(NULL, lease, 1000, &b), "queue");
    CHECK_NULL_ARG(leaseq_queue_renew(queue, NULL, 1000, &b), "lease");
    CHECK_NULL_ARG(leaseq_queue_renew(queue, lease, 1000, NULL), "out_renewed");
    CHECK_NULL_ARG(leaseq_queue_renew_outcome(NULL, lease, 1000, &o), "queue");
    CHECK_NULL_ARG(leaseq_queue_renew_outcome(queue, NULL, 1000, &o), "lease");
    CHECK_NULL_ARG(leaseq_queue_renew_outcome(queue, lease, 1000, NULL), "out_outcome");
    CHECK_NULL_ARG(leaseq_queue_light_clean(NULL, &r), "queue");
    CHECK_NULL_ARG(leaseq_queue_light_clean(queue, NULL), "out_report");
    CHECK_NULL_ARG(leaseq_queue_deep_clean(NULL, &r), "queue");
    CHECK_NULL_ARG(leaseq_queue_deep_clean(queue, NULL), "out_report");
    CHECK_NULL_ARG(leaseq_queue_len(NULL, &u), "queue");
    CHECK_NULL_ARG(leaseq_queue_len(queue, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_queue_processing_len(NULL, &u), "queue");
    CHECK_NULL_ARG(leaseq_queue_processing_len(queue, NULL), "out_len");
    CHECK_NULL_ARG(leaseq_queue_lease_from_parts(NULL, "i", "t", "n", 1, &l), "queue");
    CHECK_NULL_ARG(leaseq_queue_lease_from_parts(queue, NULL, "t", "n", 1, &l), "id");
    CHECK_NULL_ARG(leaseq_queue_lease_from_parts(queue, "i", NULL, "n", 1, &l), "token");
    CHECK_NULL_ARG(leaseq_queue_lease_from_parts(queue, "i", "t", NULL, 1, &l), "incarnation");
    CHECK_NULL_ARG(leaseq_queue_lease_from_parts(queue, "i", "t", "n", 1, NULL), "out_lease");

    /* Out-parameters are reset even when another argument is refused. */
    c = (leaseq_client *)&c;
    CHECK_NULL_ARG(leaseq_client_connect(NULL, &c), "url");
    CHECK(c == NULL);
    l = (leaseq_lease *)&l;
    CHECK_NULL_ARG(leaseq_queue_lease(NULL, 1000, 0, &l), "queue");
    CHECK(l == NULL);
    b = true;
    l = (leaseq_lease *)&l;
    CHECK_NULL_ARG(leaseq_queue_complete_and_lease(queue, NULL, 1000, &b, &l), "lease");
    CHECK(!b && l == NULL);
    u = 7;
    CHECK_NULL_ARG(leaseq_queue_len(NULL, &u), "queue");
    CHECK(u == 0);
    s = "stale";
    CHECK_NULL_ARG(leaseq_lease_id(NULL, &s), "lease");
    CHECK(s == NULL);
    d = (const uint8_t *)"stale";
    n = 5;
    CHECK_NULL_ARG(leaseq_lease_data(NULL, &d, &n), "lease");
    CHECK(d == NULL && n == 0);
    n = 5;
    CHECK_NULL_ARG(leaseq_queue_add_batch(queue, NULL, 1, &n), "items");
    CHECK(n == 0);
    r.requeued = r.removed = 9;
    CHECK_NULL_ARG(leaseq_queue_deep_clean(NULL, &r), "queue");
    CHECK(r.requeued == 0 && r.removed == 0);
    o = LEASEQ_RENEW_RENEWED;
    CHECK_NULL_ARG(leaseq_queue_renew_outcome(queue, NULL, 1000, &o), "lease");
    CHECK(o != LEASEQ_RENEW_RENEWED);

    /* Every _free accepts NULL. */
    leaseq_client_free(NULL);
    leaseq_queue_free(NULL);
    leaseq_item_free(NULL);
    leaseq_lease_free(NULL);

    /* None of the refused calls touched the queue: the lease is still held. */
    CHECK(queue_len(queue) == 0 && leased_count(queue) == 1);
    bool completed = false;
    CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
    CHECK(completed);
    leaseq_item_free(item);
    leaseq_lease_free(lease);
    leaseq_queue_free(queue);
}

int main(void) {
    url = need_env("LEASEQ_TEST_URL");
    if (leaseq_client_connect(url, &client) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"registry matches header", registry_matches_header},
        {"status_str is total", status_str_is_total},
        {"version is set", version_is_set},
        {"last error message follows calls", last_error_message_follows_calls},
        {"connect refuses bad urls", connect_refuses_bad_urls},
        {"connect to a closed port is a connection error",
         connect_to_a_closed_port_is_a_connection_error},
        {"connect_cluster checks its list", connect_cluster_checks_its_list},
        {"client reports kind and warnings", client_reports_kind_and_warnings},
        {"close ends every later call", close_ends_every_later_call},
        {"freeing the client closes its queues", freeing_the_client_closes_its_queues},
        {"queue prefixes are validated (empty prefix refused)", queue_prefixes_are_validated},
        {"items get ids", items_get_ids},
        {"binary data with NUL bytes round-trips", binary_data_round_trips},
        {"empty data round-trips", empty_data_round_trips},
        {"add refuses existing ids", add_refuses_existing_ids},
        {"add_batch adds new ids", add_batch_adds_new_ids},
        {"lease timeouts: 0, positive, negative", lease_timeouts},
        {"zero and negative TTLs are refused", zero_and_negative_ttls_are_refused},
        {"renew, expiry, light clean and fencing", renew_and_expiry},
        {"deep clean requeues lapsed leases", deep_clean_requeues_lapsed_leases},
        {"complete_and_lease chains", complete_and_lease_chains},
        {"lease_from_parts rebuilds a lease", lease_from_parts_rebuilds},
        {"wrong key type is reported", wrong_type_is_reported},
        {"NULL for every pointer argument", null_pointer_arguments},
    };
    int status = run_tests("test_api", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(client);
    leaseq_runtime_shutdown(); /* so that valgrind sees no live runtime thread */
    return status;
}
