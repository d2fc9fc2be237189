/*
 * A tiny test harness for the C tests of leaseq: checks that record a failure and go on, test
 * cases that print TAP lines ("ok 3 - name" / "not ok 3 - name"), and helpers shared by the
 * test programs. ffi-c/test.sh counts the TAP lines.
 */
#ifndef LEASEQ_TEST_CHECK_H
#define LEASEQ_TEST_CHECK_H

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "leaseq.h"

/* Failed checks in the running test case. */
static int check_failures;

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);     \
            check_failures++;                                                             \
        }                                                                                 \
    } while (0)

/* Stops the test case (returns from it) when `cond` is false: for set-up the rest needs. */
#define REQUIRE(cond)                                                                     \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: requirement failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failures++;                                                             \
            return;                                                                       \
        }                                                                                 \
    } while (0)

#define CHECK_STATUS(expected, call)                                                      \
    do {                                                                                  \
        leaseq_status got_ = (call);                                                      \
        leaseq_status want_ = (expected);                                                 \
        if (got_ != want_) {                                                              \
            fprintf(stderr, "%s:%d: %s\n  returned %s (%d), expected %s (%d): %s\n",      \
                    __FILE__, __LINE__, #call, leaseq_status_str(got_), (int)got_,       \
                    leaseq_status_str(want_), (int)want_, leaseq_last_error_message());   \
            check_failures++;                                                             \
        }                                                                                 \
    } while (0)

#define CHECK_OK(call) CHECK_STATUS(LEASEQ_OK, call)

/* The last error message on this thread holds `text`. */
#define CHECK_MESSAGE_HAS(text)                                                           \
    do {                                                                                  \
        const char *message_ = leaseq_last_error_message();                               \
        if (message_ == NULL || strstr(message_, (text)) == NULL) {                       \
            fprintf(stderr, "%s:%d: last error message \"%s\" lacks \"%s\"\n", __FILE__, \
                    __LINE__, message_ ? message_ : "(NULL)", (text));                    \
            check_failures++;                                                             \
        }                                                                                 \
    } while (0)

/* `call` fails with LEASEQ_NULL_ARGUMENT and a message naming the argument `name`. */
#define CHECK_NULL_ARG(call, name)                                                        \
    do {                                                                                  \
        CHECK_STATUS(LEASEQ_NULL_ARGUMENT, call);                                         \
        CHECK_MESSAGE_HAS("`" name "`");                                                  \
    } while (0)

/* `call` fails with LEASEQ_INVALID_ARGUMENT and a message naming the argument `name`. */
#define CHECK_INVALID_ARG(call, name)                                                     \
    do {                                                                                  \
        CHECK_STATUS(LEASEQ_INVALID_ARGUMENT, call);                                      \
        CHECK_MESSAGE_HAS("`" name "`");                                                  \
    } while (0)

struct test_case {
    const char *name;
    void (*run)(void);
};

/* Runs every case, printing one TAP line each; returns the process exit status. */
static inline int run_tests(const char *program, const struct test_case *cases, size_t count) {
    int failed = 0;
    printf("1..%zu\n", count);
    fflush(stdout);
    for (size_t i = 0; i < count; i++) {
        check_failures = 0;
        cases[i].run();
        printf("%s %zu - %s: %s\n", check_failures ? "not ok" : "ok", i + 1, program,
               cases[i].name);
        fflush(stdout);
        if (check_failures) failed++;
    }
    return failed ? 1 : 0;
}

/* A required environment variable; exits when it is missing. */
static inline const char *need_env(const char *name) {
    const char *value = getenv(name);
    if (value == NULL || *value == '\0') {
        fprintf(stderr, "the environment variable %s is required (ffi-c/test.sh sets it)\n",
                name);
        exit(2);
    }
    return value;
}

/* A queue prefix that no other test, run or process uses. */
static inline void unique_prefix(char *buf, size_t size, const char *name) {
    static unsigned counter;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(buf, size, "leaseq-c-test:%ld:%ld:%u:%s", (long)getpid(), (long)now.tv_nsec,
             ++counter, name);
}

/* A fresh queue on `client`; NULL (and a failed check) when that fails. */
static inline leaseq_queue *fresh_queue(const leaseq_client *client, const char *name) {
    char prefix[256];
    leaseq_queue *queue = NULL;
    unique_prefix(prefix, sizeof prefix, name);
    CHECK_OK(leaseq_client_queue(client, prefix, &queue));
    return queue;
}

/* Adds an item with `id` and `len` bytes of `data`; returns whether it was added. */
static inline bool add_item(const leaseq_queue *queue, const char *id, const void *data,
                            size_t len) {
    leaseq_item *item = NULL;
    bool added = false;
    CHECK_OK(leaseq_item_with_id(id, (const uint8_t *)data, len, &item));
    CHECK_OK(leaseq_queue_add(queue, item, &added));
    leaseq_item_free(item);
    return added;
}

static inline uint64_t queue_len(const leaseq_queue *queue) {
    uint64_t len = UINT64_MAX;
    CHECK_OK(leaseq_queue_len(queue, &len));
    return len;
}

static inline uint64_t processing_len(const leaseq_queue *queue) {
    uint64_t len = UINT64_MAX;
    CHECK_OK(leaseq_queue_processing_len(queue, &len));
    return len;
}

static inline void sleep_ms(long ms) {
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&pause, &pause) != 0) {
    }
}

/*
 * Runs one Redis command directly, as another client would (the tests need a few keys that
 * leaseq itself never writes). `url` is redis://127.0.0.1:PORT, as the test launcher gives.
 * Copies the first line of the reply (e.g. "+OK", ":1", "-ERR ...") into `reply`; returns 0
 * when the command ran, -1 when Redis could not be reached.
 */
static inline int redis_raw(const char *url, const char *const *argv, size_t argc, char *reply,
                            size_t size) {
    unsigned port = 0;
    if (sscanf(url, "redis://127.0.0.1:%u", &port) != 1 || port == 0 || port > 65535) return -1;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    char command[4096];
    size_t len = (size_t)snprintf(command, sizeof command, "*%zu\r\n", argc);
    for (size_t i = 0; i < argc && len < sizeof command; i++) {
        len += (size_t)snprintf(command + len, sizeof command - len, "$%zu\r\n%s\r\n",
                                strlen(argv[i]), argv[i]);
    }
    if (len >= sizeof command || write(fd, command, len) != (ssize_t)len) {
        close(fd);
        return -1;
    }
    size_t got = 0;
    while (got + 1 < size) {
        ssize_t n = read(fd, reply + got, 1);
        if (n <= 0 || reply[got] == '\n') break;
        got++;
    }
    reply[got] = '\0';
    if (got > 0 && reply[got - 1] == '\r') reply[got - 1] = '\0';
    close(fd);
    return got > 0 ? 0 : -1;
}

#endif
