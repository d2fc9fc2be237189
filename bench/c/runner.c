/* The C workloads of `make bench`: leaseq through libleaseq (ffi-c/include/leaseq.h). Run one
 * at a time by bench/driver.py with the protocol described in bench/src/main.rs: print
 * {"ready": true}, wait for a line on stdin, run, print {"result": ...}, wait for stdin to
 * close. Several workers are threads sharing one client, as the header allows. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <leaseq.h>

#define WORK_TTL_MS 30000

static const char *url, *prefix, *workload = "";
static long n = 1000, workers = 1, batch = 1000, payload_size = 64;
static double gap_ms = 2, sleep_ms = 0, duration_ms = 0;
static leaseq_client *client;
static leaseq_queue *queue;

static void die(const char *what, leaseq_status st) {
    fprintf(stderr, "leaseq-bench-c %s: %s: %s\n", what, leaseq_status_str(st),
            leaseq_last_error_message());
    exit(1);
}
#define CHECK(call)                                                                    \
    do {                                                                               \
        leaseq_status st_ = (call);                                                    \
        if (st_ != LEASEQ_OK) die(#call, st_);                                         \
    } while (0)

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time (user + system) of this process so far, in seconds. */
static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}
static double cpu_at_go;

static void ready(void) {
    char line[64];
    printf("{\"ready\": true}\n");
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) exit(1);
    cpu_at_go = cpu_seconds();
}

/* `result` is a JSON object without its closing brace. */
static void finish(const char *result) {
    printf("{\"result\": %s, \"cpu_seconds\": %.6f}}\n", result, cpu_seconds() - cpu_at_go);
    fflush(stdout);
    while (getchar() != EOF) {
    }
}

static uint8_t *make_payload(void) {
    uint8_t *p = malloc((size_t)payload_size);
    for (long i = 0; i < payload_size; i++) p[i] = (uint8_t)('a' + i % 26);
    return p;
}

static leaseq_item **make_items(long count, const uint8_t *data) {
    leaseq_item **items = malloc(sizeof *items * (size_t)count);
    for (long i = 0; i < count; i++) CHECK(leaseq_item_new(data, (size_t)payload_size, &items[i]));
    return items;
}

static void free_items(leaseq_item **items, long count) {
    for (long i = 0; i < count; i++) leaseq_item_free(items[i]);
    free(items);
}

/* A busy worker: complete_and_lease, one round trip per item. */
static void *drain(void *arg) {
    long *done = arg;
    leaseq_lease *lease = NULL;
    CHECK(leaseq_queue_lease(queue, WORK_TTL_MS, 0, &lease));
    while (lease != NULL) {
        bool completed = false;
        leaseq_lease *next = NULL;
        CHECK(leaseq_queue_complete_and_lease(queue, lease, WORK_TTL_MS, &completed, &next));
        if (!completed) {
            fprintf(stderr, "complete returned false\n");
            exit(1);
        }
        leaseq_lease_free(lease);
        lease = next;
        (*done)++;
    }
    return NULL;
}

/* A busy worker making two calls per item: lease, then complete. */
static void *drain_separate(void *arg) {
    long *done = arg;
    leaseq_lease *lease = NULL;
    CHECK(leaseq_queue_lease(queue, WORK_TTL_MS, 0, &lease));
    while (lease != NULL) {
        bool completed = false;
        CHECK(leaseq_queue_complete(queue, lease, &completed));
        if (!completed) {
            fprintf(stderr, "complete returned false\n");
            exit(1);
        }
        leaseq_lease_free(lease);
        lease = NULL;
        (*done)++;
        CHECK(leaseq_queue_lease(queue, WORK_TTL_MS, 0, &lease));
    }
    return NULL;
}

/* The runner's callback: a no-op, or a sleep of `sleep_ms`. The n-th call stops the runner,
 * which then drains what runs and flushes the completes. */
static long started;
static leaseq_job_outcome run_job(leaseq_worker_job *job, void *user_data) {
    (void)job;
    (void)user_data;
    if (__atomic_add_fetch(&started, 1, __ATOMIC_RELAXED) == n && duration_ms <= 0)
        leaseq_worker_stop();
    if (sleep_ms > 0) {
        struct timespec ts = {0, (long)(sleep_ms * 1e6)};
        nanosleep(&ts, NULL);
    }
    return LEASEQ_JOB_COMPLETE;
}

/* With --duration-ms: stops the runner that long after `go`, whatever is left (several runners
 * share the queue). */
static void *stop_after(void *arg) {
    (void)arg;
    long ms = (long)duration_ms;
    struct timespec ts = {(time_t)(ms / 1000), (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    leaseq_worker_stop();
    return NULL;
}

static void prefill(const uint8_t *data) {
    for (long s = 0; s < n; s += 10000) {
        long k = n - s < 10000 ? n - s : 10000;
        leaseq_item **items = make_items(k, data);
        size_t got = 0;
        CHECK(leaseq_queue_add_batch(queue, (const leaseq_item *const *)items, (size_t)k, &got));
        free_items(items, k);
    }
}

/* Latency: the worker thread waits in a blocking lease; the producer adds one stamped item at a
 * time and waits (on a condition variable) for the worker to report it. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static double last_us;
static bool reported;

static void *latency_worker(void *arg) {
    (void)arg;
    for (long i = 0; i < n; i++) {
        leaseq_lease *lease = NULL;
        CHECK(leaseq_queue_lease(queue, WORK_TTL_MS, -1, &lease));
        uint64_t t = now_ns();
        const uint8_t *data = NULL;
        size_t len = 0;
        CHECK(leaseq_lease_data(lease, &data, &len));
        char stamp[21] = {0};
        memcpy(stamp, data, 20);
        pthread_mutex_lock(&mu);
        last_us = (double)(t - strtoull(stamp, NULL, 10)) / 1000.0;
        reported = true;
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&mu);
        bool completed = false;
        CHECK(leaseq_queue_complete(queue, lease, &completed));
        leaseq_lease_free(lease);
    }
    return NULL;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--url")) url = v;
        else if (!strcmp(k, "--prefix")) prefix = v;
        else if (!strcmp(k, "--workload")) workload = v;
        else if (!strcmp(k, "--n")) n = atol(v);
        else if (!strcmp(k, "--workers")) workers = atol(v);
        else if (!strcmp(k, "--batch")) batch = atol(v);
        else if (!strcmp(k, "--gap-ms")) gap_ms = atof(v);
        else if (!strcmp(k, "--payload")) payload_size = atol(v);
        else if (!strcmp(k, "--sleep-ms")) sleep_ms = atof(v);
        else if (!strcmp(k, "--duration-ms")) duration_ms = atof(v);
    }
    if (!url || !prefix) {
        fprintf(stderr, "usage: leaseq-bench-c --workload W --url URL --prefix P [--n N] ...\n");
        return 2;
    }
    CHECK(leaseq_client_connect(url, &client));
    CHECK(leaseq_client_queue(client, prefix, &queue));
    uint8_t *data = make_payload();
    char result[512];

    if (!strcmp(workload, "add_single") || !strcmp(workload, "add_batch")) {
        bool single = !strcmp(workload, "add_single");
        leaseq_item **items = make_items(n, data);
        ready();
        uint64_t t0 = now_ns();
        long added = 0;
        for (long i = 0; i < n; i += single ? 1 : batch) {
            if (single) {
                bool ok = false;
                CHECK(leaseq_queue_add(queue, items[i], &ok));
                added += ok;
            } else {
                size_t k = (size_t)(n - i < batch ? n - i : batch), got = 0;
                CHECK(leaseq_queue_add_batch(queue, (const leaseq_item *const *)items + i, k, &got));
                added += (long)got;
            }
        }
        double seconds = (double)(now_ns() - t0) / 1e9;
        if (added != n) {
            fprintf(stderr, "added %ld of %ld\n", added, n);
            return 1;
        }
        snprintf(result, sizeof result, "{\"items\": %ld, \"seconds\": %.9f", added, seconds);
        free_items(items, n);
        finish(result);
    } else if (!strcmp(workload, "runner")) {
        /* leaseq_worker_run at concurrency `workers`, nothing kept of a finished job. */
        prefill(data);
        leaseq_worker_options opts;
        CHECK(leaseq_worker_options_init(&opts));
        opts.concurrency = (uint32_t)workers;
        opts.lease_ttl_ms = WORK_TTL_MS;
        opts.keep_results = 0;
        ready();
        uint64_t t0 = now_ns();
        pthread_t stopper;
        if (duration_ms > 0) pthread_create(&stopper, NULL, stop_after, NULL);
        CHECK(leaseq_worker_run(queue, run_job, NULL, &opts));
        double seconds = (double)(now_ns() - t0) / 1e9;
        if (duration_ms > 0) {
            pthread_join(stopper, NULL);
            /* What this runner completed: its handler ran this often, each callback completes. */
            long ran = __atomic_load_n(&started, __ATOMIC_RELAXED);
            snprintf(result, sizeof result,
                     "{\"items\": %ld, \"seconds\": %.9f, \"workers\": %ld, \"sleep_ms\": %g, "
                     "\"duration_ms\": %g",
                     ran, seconds, workers, sleep_ms, duration_ms);
            finish(result);
            return 0;
        }
        /* Every item completed: the handler ran n times, and none waits, is leased or died (the
         * queue keeps no per-minute counters: they are off by default, and would cost the run). */
        leaseq_stats *stats = NULL;
        uint64_t waiting = 0, leased = 0, dead = 0;
        CHECK(leaseq_queue_stats(queue, &stats));
        CHECK(leaseq_stats_count(stats, LEASEQ_STATE_WAITING, &waiting));
        CHECK(leaseq_stats_count(stats, LEASEQ_STATE_LEASED, &leased));
        CHECK(leaseq_stats_count(stats, LEASEQ_STATE_DEAD, &dead));
        leaseq_stats_free(stats);
        long ran = __atomic_load_n(&started, __ATOMIC_RELAXED);
        if (waiting != 0 || leased != 0 || dead != 0 || ran < n) {
            fprintf(stderr, "runner: %" PRIu64 " waiting, %" PRIu64 " leased, %" PRIu64
                    " dead, %ld handled of %ld\n", waiting, leased, dead, ran, n);
            return 1;
        }
        snprintf(result, sizeof result,
                 "{\"items\": %ld, \"seconds\": %.9f, \"workers\": %ld, \"sleep_ms\": %g", n,
                 seconds, workers, sleep_ms);
        finish(result);
    } else if (!strcmp(workload, "lease_complete") || !strcmp(workload, "lease_then_complete")) {
        void *(*loop)(void *) = !strcmp(workload, "lease_complete") ? drain : drain_separate;
        prefill(data);
        pthread_t *threads = malloc(sizeof *threads * (size_t)workers);
        long *done = calloc((size_t)workers, sizeof *done);
        ready();
        uint64_t t0 = now_ns();
        for (long w = 0; w < workers; w++) pthread_create(&threads[w], NULL, loop, &done[w]);
        long total = 0;
        for (long w = 0; w < workers; w++) {
            pthread_join(threads[w], NULL);
            total += done[w];
        }
        double seconds = (double)(now_ns() - t0) / 1e9;
        if (total != n) {
            fprintf(stderr, "completed %ld of %ld\n", total, n);
            return 1;
        }
        snprintf(result, sizeof result, "{\"items\": %ld, \"seconds\": %.9f, \"workers\": %ld",
                 total, seconds, workers);
        finish(result);
    } else if (!strcmp(workload, "latency")) {
        pthread_t worker;
        pthread_create(&worker, NULL, latency_worker, NULL);
        struct timespec settle = {0, 300 * 1000000L};
        nanosleep(&settle, NULL);
        double *samples = malloc(sizeof *samples * (size_t)n);
        ready();
        uint64_t t0 = now_ns();
        struct timespec gap = {(time_t)(gap_ms / 1000), (long)(gap_ms * 1e6) % 1000000000L};
        for (long i = 0; i < n; i++) {
            nanosleep(&gap, NULL);
            char stamp[32];
            snprintf(stamp, sizeof stamp, "%020" PRIu64, now_ns());
            uint8_t *msg = malloc((size_t)(payload_size > 20 ? payload_size : 20));
            memset(msg, '.', (size_t)payload_size);
            memcpy(msg, stamp, 20);
            leaseq_item *item = NULL;
            CHECK(leaseq_item_new(msg, (size_t)(payload_size > 20 ? payload_size : 20), &item));
            bool ok = false;
            pthread_mutex_lock(&mu);
            reported = false;
            pthread_mutex_unlock(&mu);
            CHECK(leaseq_queue_add(queue, item, &ok));
            pthread_mutex_lock(&mu);
            while (!reported) pthread_cond_wait(&cv, &mu);
            samples[i] = last_us;
            pthread_mutex_unlock(&mu);
            leaseq_item_free(item);
            free(msg);
        }
        double seconds = (double)(now_ns() - t0) / 1e9;
        pthread_join(worker, NULL);
        qsort(samples, (size_t)n, sizeof *samples, cmp_double);
        snprintf(result, sizeof result,
                 "{\"items\": %ld, \"seconds\": %.9f, \"samples\": %ld, \"p50_us\": %.3f, "
                 "\"p99_us\": %.3f, \"max_us\": %.3f",
                 n, seconds, n, samples[(long)((double)(n - 1) * 0.5 + 0.5)],
                 samples[(long)((double)(n - 1) * 0.99 + 0.5)], samples[n - 1]);
        finish(result);
    } else {
        fprintf(stderr, "unknown workload %s\n", workload);
        return 2;
    }
    free(data);
    leaseq_queue_free(queue);
    leaseq_client_free(client);
    return 0;
}
