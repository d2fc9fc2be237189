#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <leaseq.h>

static leaseq_job_outcome send_email(leaseq_worker_job *job, void *user_data) {
    const char *id = NULL;
    const uint8_t *data = NULL;
    size_t len = 0;
    (void)user_data;
    leaseq_worker_job_id(job, &id);
    leaseq_worker_job_data(job, &data, &len);
    if (len == 0) {
        leaseq_worker_job_set_error(job, "no address", "Empty", 0);
        return LEASEQ_JOB_FAIL_UNRECOVERABLE; /* straight to the dead letters */
    }
    printf("sending to %.*s\n", (int)len, (const char *)data);
    return LEASEQ_JOB_COMPLETE; /* LEASEQ_JOB_FAIL: retried with the queue's backoff */
}

/* Here the example stops after its three items; a real runner stops on SIGTERM. */
static int finished;
static void on_event(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    if (strcmp(event->name, "completed") == 0 || strcmp(event->name, "dead") == 0) {
        if (++finished == 3) leaseq_worker_stop();
    }
}

static void on_sigterm(int sig) { (void)sig; leaseq_worker_stop(); }

int main(void) {
    const char *url = getenv("REDIS_URL");
    if (url == NULL) url = "redis://127.0.0.1:6379";
    const char *to[] = {"a@example.com", "b@example.com", ""};
    leaseq_client *client = NULL;
    leaseq_queue *queue = NULL;
    if (leaseq_client_connect(url, &client) != LEASEQ_OK ||
        leaseq_client_queue(client, "{newsletter}", &queue) != LEASEQ_OK) {
        fprintf(stderr, "%s\n", leaseq_last_error_message());
        return 1;
    }
    for (int i = 0; i < 3; i++) {
        leaseq_item *item = NULL;
        bool added = false;
        leaseq_item_new((const uint8_t *)to[i], strlen(to[i]), &item);
        leaseq_queue_add(queue, item, &added);
        leaseq_item_free(item);
    }
    signal(SIGTERM, on_sigterm);
    /* Every field at the core's default (zeros, -1 for the booleans), job_timeout_ms and on_log
     * included: leaseq_worker_options_init() fills only the fields an older header had. */
    leaseq_worker_options options = LEASEQ_WORKER_OPTIONS_INIT;
    options.concurrency = 8;
    options.on_event = on_event;
    leaseq_worker_report report; /* what the runner did, written as it returns LEASEQ_OK */
    options.report = &report;
    if (leaseq_worker_run(queue, send_email, NULL, &options) != LEASEQ_OK) {
        fprintf(stderr, "%s\n", leaseq_last_error_message());
        return 1;
    }
    printf("%d finished: %llu completed, %llu dead\n", finished,
           (unsigned long long)report.completed, (unsigned long long)report.dead);
    leaseq_queue_free(queue);
    leaseq_client_free(client);
    return 0;
}
