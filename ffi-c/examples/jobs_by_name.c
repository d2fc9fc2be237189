#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <leaseq.h>

static leaseq_job_outcome send_email(leaseq_worker_job *job, void *user_data) {
    const uint8_t *data = NULL;
    size_t len = 0;
    (void)user_data;
    leaseq_worker_job_data(job, &data, &len);
    printf("email to %.*s\n", (int)len, (const char *)data);
    return LEASEQ_JOB_COMPLETE;
}

static leaseq_job_outcome resize(leaseq_worker_job *job, void *user_data) {
    const uint8_t *data = NULL;
    size_t len = 0;
    (void)user_data;
    leaseq_worker_job_data(job, &data, &len);
    printf("resize %.*s\n", (int)len, (const char *)data);
    return LEASEQ_JOB_COMPLETE;
}

/* Here the example stops after its four items; a real runner stops on SIGTERM. */
static int finished;
static void on_event(const leaseq_worker_event *event, void *user_data) {
    (void)user_data;
    if (strcmp(event->name, "completed") == 0 || strcmp(event->name, "dead") == 0) {
        if (++finished == 4) leaseq_worker_stop();
    }
}

int main(void) {
    const char *url = getenv("REDIS_URL");
    if (url == NULL) url = "redis://127.0.0.1:6379";
    leaseq_client *client = NULL;
    leaseq_queue *queue = NULL;
    if (leaseq_client_connect(url, &client) != LEASEQ_OK ||
        leaseq_client_queue(client, "{jobs}", &queue) != LEASEQ_OK) {
        fprintf(stderr, "%s\n", leaseq_last_error_message());
        return 1;
    }
    /* One queue, several kinds of job: each item names its kind. */
    const char *jobs[][3] = {{"j1", "send_email", "a@example.com"},
                             {"j2", "resize", "photo.png"},
                             {"j3", "send_email", "b@example.com"},
                             {"j4", "report", "2024-q1"}};
    for (int i = 0; i < 4; i++) {
        leaseq_item *item = NULL;
        leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
        options.set = LEASEQ_ADD_NAME;
        options.name = jobs[i][1];
        bool added = false;
        leaseq_item_with_id(jobs[i][0], (const uint8_t *)jobs[i][2], strlen(jobs[i][2]), &item);
        leaseq_queue_add_with_options(queue, item, &options, &added);
        leaseq_item_free(item);
    }
    /* A handler per name; "report" has none and there is no fallback (NULL): that job fails
     * for good, error type NoHandler, without any handler called. */
    leaseq_worker_handler handlers[] = {
        LEASEQ_HANDLER("send_email", send_email, NULL),
        LEASEQ_HANDLER("resize", resize, NULL),
    };
    /* Every field at the core's default (zeros, -1 for the booleans), job_timeout_ms and on_log
     * included: leaseq_worker_options_init() fills only the fields an older header had. */
    leaseq_worker_options options = LEASEQ_WORKER_OPTIONS_INIT;
    options.on_event = on_event;
    if (leaseq_worker_run_named(queue, handlers, 2, NULL, NULL, &options) != LEASEQ_OK) {
        fprintf(stderr, "%s\n", leaseq_last_error_message());
        return 1;
    }
    leaseq_job *job = NULL;
    const char *name = NULL, *error_type = NULL;
    leaseq_queue_get(queue, "j4", &job);
    leaseq_job_name(job, &name);
    leaseq_job_error_type(job, &error_type);
    printf("%s: %s\n", name ? name : "-", error_type ? error_type : "-");
    leaseq_job_free(job);
    leaseq_queue_free(queue);
    leaseq_client_free(client);
    return 0;
}
