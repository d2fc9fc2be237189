/*
 * soak_worker.c: the C worker and producer of the mixed-language soak
 * (integration-tests/soak/README.md). It follows the Rust one (soak-worker-rust) rule for rule:
 *
 *     soak-worker-c URL LANG work
 *     soak-worker-c URL LANG produce FIRST COUNT
 *
 * Environment: LEASEQ_SOAK_QUEUES (prefixes, comma separated) and LEASEQ_SOAK_RESULTS (the
 * prefix of the results queue); in run mode, LEASEQ_SOAK_PARTITIONED=BASE (the fault soak's
 * `partitioned` stage) runs one leaseq_worker_run_partitioned over the partitioned queue BASE
 * instead of a runner per queue, each item recorded under its partition's prefix.
 *
 * - produce: adds the items `<LANG>-<n>` for n in FIRST..FIRST+COUNT, data `{"n":<n>}`, item n
 *   to queue n % (number of queues), with leaseq_queue_add_batch in batches of 50.
 * - work: leases from the queues in turn (TTL 500 ms, waiting up to 100 ms), records
 *   `exec|<queue>|<id>|<nonce>` for each lease, and misbehaves on purpose: 4% drop the lease,
 *   3% sleep 700 ms (past the TTL) then complete, 2% complete twice, 2% sleep past the TTL and
 *   renew (which must return false) then complete, 4% fail (retried 20 ms later), 1% fail for
 *   good (a dead letter with the soak's error); otherwise complete. LEASEQ_SOAK_MISBEHAVE=0
 *   always completes; LEASEQ_SOAK_MISBEHAVE=plain only drops, oversleeps and completes twice. A complete that returns
 *   true is recorded as `win|<queue>|<id>|<nonce>`; a broken guarantee as
 *   `viol|<LANG>|<what>|<nonce>`.
 *
 * Records are items added with leaseq_queue_add_unique to the results queue, their data the
 * LANG string. A call that fails with a retryable error (LEASEQ_CONNECTION, LEASEQ_TIMEOUT,
 * LEASEQ_UNAVAILABLE) is tried again or given up (a complete's then recorded as
 * `lost|<queue>|<id>|<nonce>`: it may have taken effect); any other failed call ends the process
 * with status 1 (the soak counts a worker that exits by itself as a failure); it otherwise runs
 * until it is killed.
 *
 * Build: cc -std=c11 soak_worker.c -o soak-worker-c $(pkg-config --cflags --libs leaseq)
 * (`make -C ffi-c soak-worker` builds target/debug/soak-worker-c, as ffi-c/test.sh does).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <leaseq.h>

/* Every worker's lease TTL, how long a "slow" worker sleeps, and how long a lease waits. */
#define TTL_MS 500
#define SLOW_MS 700
#define WAIT_MS 100
#define BATCH 50
#define MAX_QUEUES 16
#define FAILURE "soak failure"
#define FAILURE_TYPE "SoakError"

/* What a worker does with one lease (the same table in every language). */
enum behaviour { DROP, SLOW, TWICE, RENEW_LATE, FAIL, FAIL_FOR_GOOD, NORMAL };

/* The same table in every language; LEASEQ_SOAK_MISBEHAVE=0 (the demo) always behaves, and
 * LEASEQ_SOAK_MISBEHAVE=plain (the drain soak) does only what redis-work-queue can do too:
 * drop, slow and twice, no renew and no fail. */
static enum behaviour from_roll(uint32_t roll) {
    const char *misbehave = getenv("LEASEQ_SOAK_MISBEHAVE");
    if (misbehave != NULL && strcmp(misbehave, "0") == 0) return NORMAL;
    if (misbehave != NULL && strcmp(misbehave, "plain") == 0) {
        if (roll < 4) return DROP;
        if (roll < 7) return SLOW;
        if (roll < 9) return TWICE;
        return NORMAL;
    }
    if (roll < 4) return DROP;
    if (roll < 7) return SLOW;
    if (roll < 9) return TWICE;
    if (roll < 11) return RENEW_LATE;
    if (roll < 15) return FAIL;
    if (roll < 16) return FAIL_FOR_GOOD;
    return NORMAL;
}

/* A small xorshift generator seeded from the clock and the process id, as the Rust one. */
static uint64_t dice;

static void dice_seed(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t nanos = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    dice = (nanos ^ ((uint64_t)getpid() << 32)) | 1;
}

static uint32_t dice_below(uint32_t n) {
    dice ^= dice << 13;
    dice ^= dice >> 7;
    dice ^= dice << 17;
    return (uint32_t)(dice % n);
}

static void sleep_ms(long ms) {
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&pause, &pause) != 0) {
    }
}

static const char *lang;
static leaseq_queue *results;
/* Run mode over a partitioned queue (LEASEQ_SOAK_PARTITIONED), else NULL. */
static leaseq_partitioned *partitioned;
static FILE *urandom;

/* Ends the process after a failed call (the Rust worker panics). */
static void die(const char *what, leaseq_status status) {
    fprintf(stderr, "soak-worker-c (%s): %s: %s: %s\n", lang ? lang : "?", what,
            leaseq_status_str(status), leaseq_last_error_message());
    exit(1);
}

static void check(const char *what, leaseq_status status) {
    if (status != LEASEQ_OK) die(what, status);
}

/* 32 random hex digits (128 bits, like the Rust worker's UUID) into `out` (33 bytes). */
static void nonce(char *out) {
    unsigned char bytes[16];
    if (fread(bytes, 1, sizeof bytes, urandom) != sizeof bytes) {
        fprintf(stderr, "soak-worker-c: cannot read /dev/urandom\n");
        exit(1);
    }
    for (size_t i = 0; i < sizeof bytes; i++) snprintf(out + 2 * i, 3, "%02x", bytes[i]);
}

/* Whether a call may succeed when tried again unchanged: a connection cut, a timeout, a server
 * not ready. */
static bool retryable(leaseq_status status) {
    return status == LEASEQ_CONNECTION || status == LEASEQ_TIMEOUT || status == LEASEQ_UNAVAILABLE;
}

/* Connects to `url`: one server, or a cluster when it holds several URLs separated by commas.
 * Tries one server again for up to 10 s while the error is retryable (a connection cut as it
 * opens). */
static leaseq_client *connect(const char *url) {
    leaseq_client *client = NULL;
    if (strchr(url, ',') == NULL) {
        leaseq_status status;
        for (int tries = 0; retryable(status = leaseq_client_connect(url, &client)) && tries < 100;
             tries++) {
            sleep_ms(100);
        }
        check("connect", status);
        return client;
    }
    char *copy = malloc(strlen(url) + 1);
    const char *urls[16];
    size_t n = 0;
    if (copy == NULL) exit(1);
    strcpy(copy, url);
    for (char *part = strtok(copy, ","); part != NULL && n < 16; part = strtok(NULL, ",")) {
        urls[n++] = part;
    }
    check("connect to the cluster", leaseq_client_connect_cluster(urls, n, &client));
    free(copy);
    return client;
}

/* Adds the record `id` (data: the language) to the results queue, riding through Redis
 * restarts (a resent record that landed is refused as a duplicate: ids are unique). */
static void add_record(const char *id) {
    leaseq_item *item = NULL;
    check("record id", leaseq_item_with_id(id, (const uint8_t *)lang, strlen(lang), &item));
    for (;;) {
        bool added = false;
        leaseq_status status = leaseq_queue_add(results, item, &added);
        if (status == LEASEQ_OK) break;
        if (!retryable(status)) die("record", status);
        sleep_ms(100);
    }
    leaseq_item_free(item);
}

/* `kind` is "win", "exec" or "lost" (a complete whose reply was lost); `queue` the prefix the
 * item came from. */
static void record(const char *kind, const char *queue, const char *id) {
    char n[33], text[2048];
    nonce(n);
    snprintf(text, sizeof text, "%s|%s|%s|%s", kind, queue, id, n);
    add_record(text);
}

/* A broken guarantee. */
static void violation(const char *what) {
    char n[33], text[2048];
    nonce(n);
    snprintf(text, sizeof text, "viol|%s|%s|%s", lang, what, n);
    add_record(text);
}

/* Adds the batch and empties it; a full batch of fresh ids must be added whole. */
static void flush_batch(const leaseq_queue *queue, leaseq_item **batch, size_t *len, bool full) {
    size_t added = 0;
    check("add_batch",
          leaseq_queue_add_batch(queue, (const leaseq_item *const *)batch, *len, &added));
    if (full && added != *len) {
        fprintf(stderr, "soak-worker-c: add_batch added %zu of %zu fresh ids\n", added, *len);
        exit(1);
    }
    for (size_t i = 0; i < *len; i++) leaseq_item_free(batch[i]);
    *len = 0;
}

static void produce(leaseq_queue **queues, size_t queues_len, uint64_t first, uint64_t count) {
    leaseq_item *batches[MAX_QUEUES][BATCH];
    size_t lens[MAX_QUEUES] = {0};
    for (uint64_t n = first; n < first + count; n++) {
        char id[512], data[64];
        snprintf(id, sizeof id, "%s-%" PRIu64, lang, n);
        int len = snprintf(data, sizeof data, "{\"n\":%" PRIu64 "}", n);
        size_t q = (size_t)(n % queues_len);
        check("item", leaseq_item_with_id(id, (const uint8_t *)data, (size_t)len,
                                          &batches[q][lens[q]++]));
        if (lens[q] == BATCH) flush_batch(queues[q], batches[q], &lens[q], true);
    }
    for (size_t q = 0; q < queues_len; q++) {
        if (lens[q] > 0) flush_batch(queues[q], batches[q], &lens[q], false);
    }
}

/* The status of a call, unless it failed with a retryable error: then false after a short pause
 * (the call's outcome is unknown); any other error ends the process. */
static bool unless_cut(const char *what, leaseq_status status) {
    if (status == LEASEQ_OK) return true;
    if (!retryable(status)) die(what, status);
    sleep_ms(100);
    return false;
}

/* A call cut by a connection loss (retryable) is not the end of the worker: the lease is tried
 * again, and the outcome of any other call is unknown (the lease expires, or the call took
 * effect); only a complete's matters, recorded as `lost|<queue>|<id>|<nonce>`. */
static void work(leaseq_queue **queues, char **names, size_t queues_len) {
    for (uint64_t turn = 0;; turn++) {
        const leaseq_queue *queue = queues[turn % queues_len];
        const char *name = names[turn % queues_len];
        leaseq_lease *lease = NULL;
        if (!unless_cut("lease", leaseq_queue_lease(queue, TTL_MS, WAIT_MS, &lease))) continue;
        if (lease == NULL) continue;
        const char *id = NULL;
        check("lease id", leaseq_lease_id(lease, &id));
        record("exec", name, id);
        enum behaviour behaviour = from_roll(dice_below(100));
        if (behaviour == DROP) {
            leaseq_lease_free(lease); /* only memory: the lease stays until it expires */
            continue;
        }
        if (behaviour == FAIL || behaviour == FAIL_FOR_GOOD) {
            leaseq_fail_outcome outcome = LEASEQ_FAIL_NOT_HELD;
            leaseq_renew_outcome why = LEASEQ_RENEW_RENEWED;
            int64_t retry_in = -1;
            bool answered = unless_cut(
                "fail", leaseq_queue_fail(queue, lease, "soak failure", "SoakError",
                                          behaviour == FAIL ? LEASEQ_RETRY_AFTER : LEASEQ_RETRY_NEVER,
                                          20, &outcome, &why, &retry_in));
            if (answered && behaviour == FAIL_FOR_GOOD && outcome == LEASEQ_FAIL_RETRYING) {
                violation("fail without retry was retried");
            }
            leaseq_lease_free(lease);
            continue;
        }
        if (behaviour == SLOW || behaviour == RENEW_LATE) sleep_ms(SLOW_MS);
        bool done = false;
        if (behaviour == RENEW_LATE &&
            unless_cut("renew", leaseq_queue_renew(queue, lease, TTL_MS, &done)) && done) {
            violation("renew after expiry returned true");
        }
        done = false;
        bool cut = !unless_cut("complete", leaseq_queue_complete(queue, lease, &done));
        if (cut) {
            record("lost", name, id);
        } else if (done) {
            record("win", name, id);
        }
        done = false;
        if (behaviour == TWICE &&
            unless_cut("complete", leaseq_queue_complete(queue, lease, &done)) && done) {
            /* After a first complete that was cut before it took effect, the second wins. */
            if (cut) record("win", name, id);
            else violation("second complete returned true");
        }
        leaseq_lease_free(lease);
    }
}

static bool parse_u64(const char *text, uint64_t *out);

/* ---- runner mode: leaseq_worker_run, one runner per queue -------------------------------- */

/* Records the runners' events ask for, written by a thread of ours (not on the runtime's). */
struct pending {
    struct pending *next;
    char text[2048];
};
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pending_ready = PTHREAD_COND_INITIALIZER;
static struct pending *pending_head, *pending_tail;
static bool pending_done;

static void defer_record(const char *kind, const char *queue, const char *id) {
    struct pending *p = calloc(1, sizeof *p);
    if (p == NULL) exit(1);
    char n[33];
    pthread_mutex_lock(&pending_lock);
    nonce(n);
    snprintf(p->text, sizeof p->text, "%s|%s|%s|%s", kind, queue, id, n);
    if (pending_tail) pending_tail->next = p; else pending_head = p;
    pending_tail = p;
    pthread_cond_signal(&pending_ready);
    pthread_mutex_unlock(&pending_lock);
}

static void *write_records(void *arg) {
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&pending_lock);
        while (pending_head == NULL && !pending_done) pthread_cond_wait(&pending_ready, &pending_lock);
        struct pending *p = pending_head;
        if (p == NULL) {
            pthread_mutex_unlock(&pending_lock);
            return NULL;
        }
        pending_head = p->next;
        if (pending_head == NULL) pending_tail = NULL;
        pthread_mutex_unlock(&pending_lock);
        add_record(p->text);
        free(p);
    }
}

/* The prefix of the partition item `id` went to (the soak's items have no group and no
 * dependencies, so their id routes them). Sends nothing to Redis. */
static const char *partition_prefix(const char *id) {
    leaseq_item *item = NULL;
    size_t at = 0;
    const char *prefix = NULL;
    check("item of the id", leaseq_item_with_id(id, NULL, 0, &item));
    check("partition_of", leaseq_partitioned_partition_of(partitioned, item, NULL, &at));
    check("partition prefix", leaseq_partitioned_prefix(partitioned, at, &prefix));
    leaseq_item_free(item);
    return prefix;
}

/* Runner mode's rule, the same in every language (RunnerRule in src/lib.rs). `user_data` is
 * the queue's prefix, or NULL over a partitioned queue: then the job's partition's. */
static leaseq_job_outcome run_job(leaseq_worker_job *job, void *user_data) {
    const char *name = user_data, *id = NULL;
    uint64_t attempt = 0;
    check("job id", leaseq_worker_job_id(job, &id));
    check("job attempt", leaseq_worker_job_attempt(job, &attempt));
    if (name == NULL) check("job queue", leaseq_worker_job_queue_prefix(job, &name));
    record("exec", name, id);
    sleep_ms(1);
    const char *dash = strrchr(id, '-');
    uint64_t n = 1;
    if (dash == NULL || !parse_u64(dash + 1, &n)) n = 1;
    if (n % 101 == 0) {
        check("set error", leaseq_worker_job_set_error(job, FAILURE, FAILURE_TYPE, 0));
        return LEASEQ_JOB_FAIL_UNRECOVERABLE;
    }
    if (n % 13 == 0 && attempt == 1) {
        check("set error", leaseq_worker_job_set_error(job, FAILURE, FAILURE_TYPE, 0));
        return LEASEQ_JOB_FAIL;
    }
    return LEASEQ_JOB_COMPLETE;
}

static void on_runner_event(const leaseq_worker_event *event, void *user_data) {
    const char *name = user_data;
    if (name == NULL && event->id[0] != '\0') name = partition_prefix(event->id);
    if (strcmp(event->name, "completed") == 0) defer_record("win", name, event->id);
    else if (strcmp(event->name, "retrying") == 0) defer_record("retry", name, event->id);
    else if (strcmp(event->name, "dead") == 0) defer_record("dead", name, event->id);
}

/* One runner: over `queue` (named `name`), or over the partitioned queue when `queue` is NULL. */
struct runner {
    const leaseq_queue *queue;
    char *name;
    pthread_t thread;
};

static void *run_one(void *arg) {
    struct runner *r = arg;
    leaseq_worker_options options;
    check("options", leaseq_worker_options_init(&options));
    options.concurrency = 4;
    options.lease_ttl_ms = 2000;
    options.heartbeat_ms = 500;
    options.deep_clean_every_ms = 5000;
    options.on_event = on_runner_event;
    if (r->queue == NULL) {
        check("worker", leaseq_worker_run_partitioned(partitioned, run_job, NULL, &options));
    } else {
        check("worker", leaseq_worker_run(r->queue, run_job, r->name, &options));
    }
    return NULL;
}

static void stop_runners(int sig) {
    (void)sig;
    leaseq_worker_stop();
}

static void run(leaseq_queue **queues, char **names, size_t queues_len) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = stop_runners;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, NULL);
    pthread_t writer;
    if (pthread_create(&writer, NULL, write_records, NULL) != 0) exit(1);
    struct runner runners[MAX_QUEUES];
    if (partitioned != NULL) {
        /* One runner over every partition instead of one per queue. */
        runners[0] = (struct runner){NULL, NULL, 0};
        queues_len = 1;
        if (pthread_create(&runners[0].thread, NULL, run_one, &runners[0]) != 0) exit(1);
    }
    for (size_t i = 0; partitioned == NULL && i < queues_len; i++) {
        runners[i] = (struct runner){queues[i], names[i], 0};
        if (pthread_create(&runners[i].thread, NULL, run_one, &runners[i]) != 0) exit(1);
    }
    for (size_t i = 0; i < queues_len; i++) pthread_join(runners[i].thread, NULL);
    pthread_mutex_lock(&pending_lock);
    pending_done = true;
    pthread_cond_signal(&pending_ready);
    pthread_mutex_unlock(&pending_lock);
    pthread_join(writer, NULL);
}

static bool parse_u64(const char *text, uint64_t *out) {
    char *end = NULL;
    if (text == NULL || *text < '0' || *text > '9') return false;
    unsigned long long value = strtoull(text, &end, 10);
    if (*end != '\0') return false;
    *out = (uint64_t)value;
    return true;
}

int main(int argc, char **argv) {
    const char *usage =
        "usage: WORKER URL LANG work | WORKER URL LANG run | WORKER URL LANG produce FIRST COUNT";
    uint64_t first = 0, count = 0;
    bool producing = argc >= 4 && strcmp(argv[3], "produce") == 0;
    bool running = argc >= 4 && strcmp(argv[3], "run") == 0;
    if (argc < 4 || (!producing && !running && strcmp(argv[3], "work") != 0) ||
        (producing && (argc < 6 || !parse_u64(argv[4], &first) || !parse_u64(argv[5], &count)))) {
        fprintf(stderr, "%s\n", usage);
        return 2;
    }
    const char *url = argv[1];
    lang = argv[2];
    const char *queues_env = getenv("LEASEQ_SOAK_QUEUES");
    const char *results_env = getenv("LEASEQ_SOAK_RESULTS");
    if (queues_env == NULL || results_env == NULL) {
        fprintf(stderr, "soak-worker-c: LEASEQ_SOAK_QUEUES and LEASEQ_SOAK_RESULTS are needed\n");
        return 2;
    }
    urandom = fopen("/dev/urandom", "rb");
    if (urandom == NULL) {
        fprintf(stderr, "soak-worker-c: cannot open /dev/urandom\n");
        return 1;
    }
    dice_seed();

    leaseq_client *client = connect(url);
    /* LEASEQ_SOAK_RESULTS_URL: the results live on a server of their own (the fault soak). */
    const char *results_url = getenv("LEASEQ_SOAK_RESULTS_URL");
    leaseq_client *results_client =
        results_url != NULL && results_url[0] != '\0' ? connect(results_url) : NULL;
    check("results prefix", leaseq_client_queue(results_client ? results_client : client,
                                                 results_env, &results));

    /* LEASEQ_SOAK_QUEUES split on commas, every part a prefix (as Rust's split(',')). */
    char *names[MAX_QUEUES];
    leaseq_queue *queues[MAX_QUEUES];
    size_t queues_len = 0;
    char *list = malloc(strlen(queues_env) + 1);
    if (list == NULL) return 1;
    strcpy(list, queues_env);
    for (char *start = list;; ) {
        char *comma = strchr(start, ',');
        if (comma) *comma = '\0';
        if (queues_len == MAX_QUEUES) {
            fprintf(stderr, "soak-worker-c: more than %d queues\n", MAX_QUEUES);
            return 1;
        }
        names[queues_len] = start;
        check("queue prefix", leaseq_client_queue(client, start, &queues[queues_len]));
        queues_len++;
        if (comma == NULL) break;
        start = comma + 1;
    }

    const char *base = getenv("LEASEQ_SOAK_PARTITIONED");
    if (running && base != NULL && base[0] != '\0') {
        /* Opened again while the servers are away. */
        leaseq_status status;
        while (retryable(status = leaseq_partitioned_open(client, base, &partitioned))) sleep_ms(100);
        check("open the partitioned queue", status);
    }

    if (producing) {
        produce(queues, queues_len, first, count);
    } else if (running) {
        run(queues, names, queues_len);
    } else {
        work(queues, names, queues_len);
    }
    for (size_t i = 0; i < queues_len; i++) leaseq_queue_free(queues[i]);
    leaseq_partitioned_free(partitioned);
    leaseq_queue_free(results);
    leaseq_client_free(results_client);
    leaseq_client_free(client);
    free(list);
    fclose(urandom);
    return 0;
}
