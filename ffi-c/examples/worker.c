/*
 * worker.c: a complete leaseq worker in C.
 *
 *     worker URL PREFIX [--ttl-ms N] [--work-ms N] [--exit-when-idle MS]
 *
 * It leases an item, works on it while renewing its lease, completes it and leases the next
 * one in the same round trip, until it is told to stop:
 *
 * - SIGINT or SIGTERM: a signal thread calls leaseq_client_close(), which ends a waiting
 *   leaseq_queue_lease() at once with LEASEQ_CLOSED; the worker then exits with status 0.
 * - --exit-when-idle MS: it exits once no item has arrived for MS milliseconds.
 *
 * "Work" here sleeps --work-ms milliseconds (default 50) in small steps, standing for real
 * processing; between steps the lease is renewed once a third of its TTL has passed. If a
 * renewal fails (the lease expired and maybe another worker has the item) the item is given up,
 * not completed. A lease whose count is above 1 was interrupted before: real work should be
 * idempotent.
 *
 * Build: cc -std=c11 worker.c -o worker $(pkg-config --cflags --libs leaseq) -lpthread
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <leaseq.h>

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms) {
    struct timespec pause = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&pause, &pause) != 0) {
    }
}

static void report(const char *what, leaseq_status status) {
    fprintf(stderr, "worker: %s: %s: %s\n", what, leaseq_status_str(status),
            leaseq_last_error_message());
}

/* Waits for SIGINT or SIGTERM (blocked in every thread) and closes the client. */
static void *signal_thread(void *client) {
    sigset_t signals;
    int signal = 0;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigwait(&signals, &signal);
    leaseq_client_close(client);
    return NULL;
}

/* Works on the leased item, renewing the lease while busy. Returns false when the lease was
 * lost (the item must then not be completed), true when the work is done. */
static bool process(const leaseq_queue *queue, const leaseq_lease *lease, int64_t ttl_ms,
                    int64_t work_ms) {
    const char *id = NULL;
    const uint8_t *data = NULL;
    size_t len = 0;
    uint64_t count = 0;
    leaseq_lease_id(lease, &id);
    leaseq_lease_data(lease, &data, &len);
    leaseq_lease_count(lease, &count);
    if (count > 1) printf("retrying %s (attempt %" PRIu64 ")\n", id, count);

    int64_t renewed_at = now_ms();
    int64_t finish = renewed_at + work_ms;
    for (;;) {
        sleep_ms(10); /* one step of real work on data[0..len) would go here */
        int64_t now = now_ms();
        if (now - renewed_at >= ttl_ms / 3) {
            bool renewed = false;
            leaseq_status status = leaseq_queue_renew(queue, lease, ttl_ms, &renewed);
            if (status == LEASEQ_CLOSED) return false;
            if (status != LEASEQ_OK) {
                report("renew", status); /* transient: try again at the next step */
            } else if (!renewed) {
                printf("lost the lease on %s, giving it up\n", id);
                return false;
            } else {
                renewed_at = now_ms();
                printf("renewed %s\n", id);
            }
        }
        if (now >= finish) break;
    }
    printf("done %s (%zu bytes, attempt %" PRIu64 ")\n", id, len, count);
    return true;
}

int main(int argc, char **argv) {
    int64_t ttl_ms = 30000, work_ms = 50, idle_ms = -1;
    if (argc < 3) {
        fprintf(stderr, "usage: %s URL PREFIX [--ttl-ms N] [--work-ms N] [--exit-when-idle MS]\n",
                argv[0]);
        return 2;
    }
    for (int i = 3; i + 1 < argc; i += 2) {
        int64_t value = strtoll(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--ttl-ms") == 0) ttl_ms = value;
        else if (strcmp(argv[i], "--work-ms") == 0) work_ms = value;
        else if (strcmp(argv[i], "--exit-when-idle") == 0) idle_ms = value;
        else {
            fprintf(stderr, "worker: unknown option %s\n", argv[i]);
            return 2;
        }
    }

    /* Block the stop signals in every thread; the signal thread takes them with sigwait. */
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);

    leaseq_client *client = NULL;
    leaseq_queue *queue = NULL;
    leaseq_status status = leaseq_client_connect(argv[1], &client);
    if (status != LEASEQ_OK) {
        report("connect", status);
        return 1;
    }
    status = leaseq_client_queue(client, argv[2], &queue);
    if (status != LEASEQ_OK) {
        report("queue", status);
        leaseq_client_free(client);
        return 1;
    }
    pthread_t stopper;
    pthread_create(&stopper, NULL, signal_thread, client);
    printf("ready\n");
    fflush(stdout);

    int exit_code = 0;
    leaseq_lease *lease = NULL;
    for (;;) {
        if (lease == NULL) {
            /* Wait for an item: forever, or up to idle_ms. */
            status = leaseq_queue_lease(queue, ttl_ms, idle_ms, &lease);
            if (status == LEASEQ_OK && lease == NULL) {
                printf("idle for %" PRId64 " ms, exiting\n", idle_ms);
                break;
            }
        }
        if (status == LEASEQ_CLOSED) {
            printf("stopping\n");
            break;
        }
        if (status == LEASEQ_CONNECTION || status == LEASEQ_TIMEOUT) {
            report("lease", status); /* retryable: Redis may be restarting */
            sleep_ms(1000);
            continue;
        }
        if (status != LEASEQ_OK) {
            report("lease", status);
            exit_code = 1;
            break;
        }

        leaseq_lease *next = NULL;
        if (process(queue, lease, ttl_ms, work_ms)) {
            bool completed = false;
            /* Complete this item and lease the next in one round trip (never waits). */
            status = leaseq_queue_complete_and_lease(queue, lease, ttl_ms, &completed, &next);
            if (status != LEASEQ_OK) report("complete", status);
            else if (!completed) printf("someone else completed it first\n");
        }
        leaseq_lease_free(lease);
        lease = next;
        fflush(stdout);
    }
    leaseq_lease_free(lease);

    /* Stop the signal thread (if no signal came) before freeing what it uses. */
    pthread_kill(stopper, SIGTERM);
    pthread_join(stopper, NULL);
    leaseq_queue_free(queue);
    leaseq_client_free(client);
    fflush(stdout);
    return exit_code;
}
