/*
 * The event stream (issue 26) through leaseq.h, against a throwaway redis-server: the config
 * switch and bounds (leaseq_config.events, events_max_len, events_max_age_ms), one page
 * (leaseq_queue_read_events, leaseq_event_page) and the blocking follower with a callback per
 * entry (leaseq_queue_events): in order, resumed after a stored position, never stalling other
 * callers of its client, ended by the callback or by leaseq_client_close.
 *
 * Environment: LEASEQ_TEST_URL (a redis:// URL).
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "check.h"

static leaseq_client *client;
static const char *url;

static bool set_events(const leaseq_queue *queue, bool on) {
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.events = on;
    config.set = LEASEQ_CONFIG_EVENTS;
    return leaseq_queue_set_config(queue, &config) == LEASEQ_OK;
}

/* Adds `id`, leases it and completes it: added, leased, completed. */
static void run_one(const leaseq_queue *queue, const char *id) {
    CHECK(add_item(queue, id, "x", 1));
    leaseq_lease *lease = NULL;
    CHECK_OK(leaseq_queue_lease(queue, 30000, 0, &lease));
    bool completed = false;
    if (lease != NULL) CHECK_OK(leaseq_queue_complete(queue, lease, &completed));
    CHECK(completed);
    leaseq_lease_free(lease);
}

/* ---- configuration ------------------------------------------------------------------------ */

static void the_config_switches_events_and_bounds_them(void) {
    leaseq_queue *queue = fresh_queue(client, "events-config");
    REQUIRE(queue != NULL);
    leaseq_config config = LEASEQ_CONFIG_INIT;
    config.events = true;
    config.events_max_len = 5000;
    config.events_max_age_ms = 3600000;
    config.set = LEASEQ_CONFIG_EVENTS | LEASEQ_CONFIG_EVENTS_MAX_LEN | LEASEQ_CONFIG_EVENTS_MAX_AGE;
    CHECK_OK(leaseq_queue_set_config(queue, &config));
    leaseq_config read = LEASEQ_CONFIG_INIT;
    CHECK_OK(leaseq_queue_config(queue, &read));
    CHECK((read.set & LEASEQ_CONFIG_EVENTS) && read.events);
    CHECK((read.set & LEASEQ_CONFIG_EVENTS_MAX_LEN) && read.events_max_len == 5000);
    CHECK((read.set & LEASEQ_CONFIG_EVENTS_MAX_AGE) && read.events_max_age_ms == 3600000);

    /* The core's bound (at least 1 s) and the C layer's (no negative duration), each named. */
    leaseq_config bad = LEASEQ_CONFIG_INIT;
    bad.events_max_age_ms = 10;
    bad.set = LEASEQ_CONFIG_EVENTS_MAX_AGE;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &bad), "events_max_age_ms");
    bad.events_max_age_ms = -1;
    CHECK_INVALID_ARG(leaseq_queue_set_config(queue, &bad), "config.events_max_age_ms");

    /* Switched off while the queue runs: nothing more is appended. */
    leaseq_event_page *page = NULL;
    CHECK(set_events(queue, false));
    run_one(queue, "quiet");
    CHECK_OK(leaseq_queue_read_events(queue, "0-0", 100, &page));
    if (page != NULL) {
        CHECK(!page->on);
        CHECK(page->events_len == 0 && page->events == NULL);
        CHECK(strcmp(page->last, "0-0") == 0);
    }
    leaseq_event_page_free(page);
    leaseq_queue_free(queue);
}

/* ---- one page ------------------------------------------------------------------------------ */

static void a_page_holds_each_transition_in_order(void) {
    leaseq_queue *queue = fresh_queue(client, "events-page");
    REQUIRE(queue != NULL);
    REQUIRE(set_events(queue, true));
    leaseq_event_page *page = NULL;
    /* From now: no entries, only where now is. */
    CHECK_OK(leaseq_queue_read_events(queue, NULL, 100, &page));
    REQUIRE(page != NULL);
    CHECK(page->on && page->events_len == 0);
    leaseq_event_page_free(page);

    run_one(queue, "e1");
    leaseq_item *item = NULL;
    leaseq_add_options options = LEASEQ_ADD_OPTIONS_INIT;
    options.name = "send_email";
    options.delay_ms = 60000;
    options.set = LEASEQ_ADD_NAME | LEASEQ_ADD_DELAY;
    CHECK_OK(leaseq_item_with_id("e2", (const uint8_t *)"y", 1, &item));
    bool added = false;
    CHECK_OK(leaseq_queue_add_with_options(queue, item, &options, &added));
    leaseq_item_free(item);
    leaseq_state was = LEASEQ_STATE_NONE;
    CHECK_OK(leaseq_queue_cancel(queue, "e2", &was));

    page = NULL;
    CHECK_OK(leaseq_queue_read_events(queue, "0-0", 100, &page));
    REQUIRE(page != NULL);
    static const char *const kinds[] = {"added", "leased", "completed", "delayed", "cancelled"};
    static const char *const ids[] = {"e1", "e1", "e1", "e2", "e2"};
    CHECK(page->events_len == 5);
    for (size_t i = 0; i < page->events_len && i < 5; i++) {
        const leaseq_event *e = &page->events[i];
        CHECK(strcmp(e->event, kinds[i]) == 0);
        CHECK(strcmp(e->job_id, ids[i]) == 0);
        CHECK(e->id != NULL && strchr(e->id, '-') != NULL);
        CHECK(e->time_ms > 0);
        CHECK(e->error == NULL && e->reason == NULL);
    }
    if (page->events_len == 5) {
        CHECK(page->events[1].attempt == 1);
        CHECK(page->events[2].attempt == 1);
        CHECK(page->events[0].attempt == 0);
        CHECK(page->events[3].name != NULL && strcmp(page->events[3].name, "send_email") == 0);
        CHECK(page->events[3].due_ms > page->events[3].time_ms);
        CHECK(page->events[0].due_ms == -1);
        /* cancelled says from which state, in its extra fields. */
        const leaseq_event *c = &page->events[4];
        bool state = false;
        for (size_t i = 0; i < c->extra_len; i++) {
            if (strcmp(c->extra[i].name, "state") == 0)
                state = strcmp(c->extra[i].value, "delayed") == 0;
        }
        CHECK(state);
        CHECK(strcmp(page->last, page->events[4].id) == 0);
        /* After an entry: the ones after it. */
        leaseq_event_page *rest = NULL;
        CHECK_OK(leaseq_queue_read_events(queue, page->events[2].id, 1, &rest));
        if (rest != NULL) {
            CHECK(rest->events_len == 1 && strcmp(rest->events[0].event, "delayed") == 0);
        }
        leaseq_event_page_free(rest);
    }
    leaseq_event_page_free(page);

    /* A bad position is refused, naming `after`; out_page is NULL then. */
    page = (leaseq_event_page *)&page;
    CHECK_INVALID_ARG(leaseq_queue_read_events(queue, "nonsense", 10, &page), "after");
    CHECK(page == NULL);
    CHECK_INVALID_ARG(leaseq_queue_read_events(queue, "99999999999999-0", 10, &page), "after");
    CHECK_NULL_ARG(leaseq_queue_read_events(NULL, NULL, 10, &page), "queue");
    CHECK_NULL_ARG(leaseq_queue_read_events(queue, NULL, 10, NULL), "out_page");
    leaseq_event_page_free(NULL);
    leaseq_queue_free(queue);
}

/* ---- the follower ------------------------------------------------------------------------- */

struct follow {
    const leaseq_queue *queue;
    const char *after;
    const char *stop_at; /* stop after this item's `completed` */
    size_t seen;
    char kinds[16][16];
    char ids[16][32];
    char position[64];
    bool positions_match; /* each position is the entry's id */
    leaseq_status status;
};

static int on_event(const leaseq_event *event, const char *position, void *user_data) {
    struct follow *f = user_data;
    if (f->seen < 16) {
        snprintf(f->kinds[f->seen], sizeof f->kinds[0], "%s", event->event);
        snprintf(f->ids[f->seen], sizeof f->ids[0], "%s", event->job_id);
    }
    f->seen++;
    if (position == NULL || strcmp(position, event->id) != 0) f->positions_match = false;
    if (position != NULL) snprintf(f->position, sizeof f->position, "%s", position);
    return f->stop_at != NULL && strcmp(event->event, "completed") == 0 &&
           strcmp(event->job_id, f->stop_at) == 0;
}

static void *follow_thread(void *arg) {
    struct follow *f = arg;
    f->status = leaseq_queue_events(f->queue, f->after, on_event, f);
    return NULL;
}

static void a_follower_calls_back_in_order_and_resumes_after_its_position(void) {
    leaseq_queue *queue = fresh_queue(client, "events-follow");
    REQUIRE(queue != NULL);
    REQUIRE(set_events(queue, true));
    leaseq_event_page *page = NULL;
    CHECK_OK(leaseq_queue_read_events(queue, NULL, 1, &page));
    REQUIRE(page != NULL);
    char start[64];
    snprintf(start, sizeof start, "%s", page->last);
    leaseq_event_page_free(page);

    struct follow f = {queue, start, "f2", 0, {{0}}, {{0}}, "", true, -1};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, follow_thread, &f) == 0);
    /* The follower blocks its own thread only: this thread's calls on the same client go on
     * while it waits, and make the entries it is waiting for. */
    CHECK(queue_len(queue) == 0);
    run_one(queue, "f1");
    run_one(queue, "f2");
    pthread_join(thread, NULL);
    CHECK_STATUS(LEASEQ_OK, f.status);
    CHECK(f.seen == 6);
    static const char *const kinds[] = {"added", "leased", "completed"};
    for (size_t i = 0; i < 6 && i < f.seen; i++) {
        CHECK(strcmp(f.kinds[i], kinds[i % 3]) == 0);
        CHECK(strcmp(f.ids[i], i < 3 ? "f1" : "f2") == 0);
    }
    CHECK(f.positions_match);

    /* A daemon that stored the position of f1's `completed` resumes after it: f2's entries. */
    page = NULL;
    CHECK_OK(leaseq_queue_read_events(queue, start, 100, &page));
    REQUIRE(page != NULL && page->events_len == 6);
    struct follow again = {queue, page->events[2].id, "f2", 0, {{0}}, {{0}}, "", true, -1};
    CHECK(strcmp(f.position, page->events[5].id) == 0);
    follow_thread(&again);
    CHECK_STATUS(LEASEQ_OK, again.status);
    CHECK(again.seen == 3);
    for (size_t i = 0; i < 3 && i < again.seen; i++) CHECK(strcmp(again.ids[i], "f2") == 0);
    leaseq_event_page_free(page);

    CHECK_NULL_ARG(leaseq_queue_events(queue, NULL, NULL, NULL), "callback");
    CHECK_NULL_ARG(leaseq_queue_events(NULL, NULL, on_event, &f), "queue");
    CHECK_INVALID_ARG(leaseq_queue_events(queue, "x-y", on_event, &f), "after");
    leaseq_queue_free(queue);
}

static void closing_the_client_ends_a_follower(void) {
    leaseq_client *own = NULL;
    REQUIRE(leaseq_client_connect(url, &own) == LEASEQ_OK);
    leaseq_queue *queue = fresh_queue(own, "events-close");
    REQUIRE(queue != NULL);
    /* No entry ever comes (events are off): only the close ends it. */
    struct follow f = {queue, NULL, NULL, 0, {{0}}, {{0}}, "", true, -1};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, follow_thread, &f) == 0);
    leaseq_client_close(own);
    pthread_join(thread, NULL);
    CHECK_STATUS(LEASEQ_CLOSED, f.status);
    CHECK(f.seen == 0);
    leaseq_queue_free(queue);
    leaseq_client_free(own);
}

int main(void) {
    url = need_env("LEASEQ_TEST_URL");
    if (leaseq_client_connect(url, &client) != LEASEQ_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, leaseq_last_error_message());
        return 2;
    }
    static const struct test_case cases[] = {
        {"the config switches events and bounds them", the_config_switches_events_and_bounds_them},
        {"a page holds each transition in order", a_page_holds_each_transition_in_order},
        {"a follower calls back in order and resumes after its position",
         a_follower_calls_back_in_order_and_resumes_after_its_position},
        {"closing the client ends a follower", closing_the_client_ends_a_follower},
    };
    int rc = run_tests("test_events", cases, sizeof cases / sizeof cases[0]);
    leaseq_client_free(client);
    leaseq_runtime_shutdown(); /* so that valgrind sees no live runtime thread */
    return rc;
}
