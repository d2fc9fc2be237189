/*
 * The C runner of the conformance vectors (spec/vectors, format in spec/vectors/README.md).
 * It follows the Rust runner (integration-tests/vectors/tests/conformance.rs) step by step:
 * queue operations go through the C API; the Redis-side steps (the empty start of a case,
 * `raw`, `state`) run the harness's leaseq-vector-tool.
 *
 *     vectors URL VECTOR_TOOL VECTORS_DIR
 *
 * Prints `c: <case>: step <i> (<do>): <message>` for each failed case and
 * `c vectors: N passed, M failed` last; exits 1 when a case failed or fewer than 40 ran.
 * ffi-c/test.sh builds and runs it.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "leaseq.h"

extern char **environ;

#define MESSAGE_SIZE 4096

static const char *url;
static const char *tool;

/* ---- small helpers --------------------------------------------------------------------- */

static void say(char *msg, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(msg, MESSAGE_SIZE, format, args);
    va_end(args);
}

static void sleep_ms(uint64_t ms) {
    struct timespec pause = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&pause, &pause) != 0) {
    }
}

/* `value` printed as compact JSON into a fresh string (free it); "?" when that fails. */
static char *json_text(const cJSON *value) {
    char *text = value ? cJSON_PrintUnformatted(value) : NULL;
    if (text == NULL) {
        text = malloc(2);
        if (text) strcpy(text, "?");
    }
    return text;
}

/* The whole file, NUL-terminated (free it); NULL when it cannot be read. */
static char *read_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    size_t size = 0, cap = 65536;
    char *text = malloc(cap);
    while (text) {
        size_t got = fread(text + size, 1, cap - size - 1, file);
        size += got;
        if (got == 0) break;
        if (cap - size - 1 == 0) {
            char *bigger = realloc(text, cap * 2);
            if (bigger == NULL) {
                free(text);
                text = NULL;
            }
            text = bigger;
            cap *= 2;
        }
    }
    bool error = ferror(file) != 0;
    fclose(file);
    if (text == NULL || error) {
        free(text);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

/*
 * Whether a JSON string in `text` holds the escape \u0000: cJSON ends its strings at a NUL,
 * so such data would silently lose bytes here. Vectors write such bytes as {"hex": ...}.
 */
static bool has_nul_escape(const char *text) {
    for (const char *p = strstr(text, "\\u0000"); p; p = strstr(p + 1, "\\u0000")) {
        size_t backslashes = 0;
        for (const char *q = p; q > text && q[-1] == '\\'; q--) backslashes++;
        if (backslashes % 2 == 0) return true; /* the backslash before u0000 is not escaped */
    }
    return false;
}

/* ---- vector values --------------------------------------------------------------------- */

/* A byte buffer (data of an item, a lease or a raw argument). */
struct bytes {
    uint8_t *data;
    size_t len;
};

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes a data value: a JSON string (its UTF-8 bytes) or {"hex": "..."}. 0 or -1 (msg). */
static int data_bytes(const cJSON *value, struct bytes *out, char *msg) {
    out->data = NULL;
    out->len = 0;
    if (cJSON_IsString(value)) {
        size_t len = strlen(value->valuestring);
        out->data = malloc(len + 1);
        if (out->data == NULL) return say(msg, "out of memory"), -1;
        memcpy(out->data, value->valuestring, len + 1);
        out->len = len;
        return 0;
    }
    if (cJSON_IsObject(value)) {
        const cJSON *hex = cJSON_GetObjectItemCaseSensitive(value, "hex");
        if (!cJSON_IsString(hex)) return say(msg, "data object needs \"hex\""), -1;
        const char *text = hex->valuestring;
        size_t len = strlen(text);
        if (len % 2 != 0) return say(msg, "hex data of odd length: %s", text), -1;
        out->data = malloc(len / 2 + 1);
        if (out->data == NULL) return say(msg, "out of memory"), -1;
        for (size_t i = 0; i < len; i += 2) {
            int high = hex_digit(text[i]), low = hex_digit(text[i + 1]);
            if (high < 0 || low < 0) {
                free(out->data);
                out->data = NULL;
                return say(msg, "invalid hex data: %s", text), -1;
            }
            out->data[i / 2] = (uint8_t)(high * 16 + low);
        }
        out->len = len / 2;
        return 0;
    }
    char *text = json_text(value);
    say(msg, "data must be a string or {\"hex\": ...}, not %s", text ? text : "?");
    free(text);
    return -1;
}

/* Whether `data` is valid UTF-8 (as Rust's str::from_utf8 checks it) with no NUL byte. */
static bool plain_text(const uint8_t *data, size_t len) {
    size_t i = 0;
    while (i < len) {
        uint8_t c = data[i];
        size_t extra;
        uint32_t min, point;
        if (c == 0) return false;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            extra = 1, min = 0x80, point = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            extra = 2, min = 0x800, point = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            extra = 3, min = 0x10000, point = c & 0x07;
        } else {
            return false;
        }
        if (len - i <= extra) return false;
        for (size_t k = 1; k <= extra; k++) {
            if ((data[i + k] & 0xc0) != 0x80) return false;
            point = (point << 6) | (data[i + k] & 0x3f);
        }
        if (point < min || point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) return false;
        i += extra + 1;
    }
    return true;
}

/*
 * Encodes bytes the way vectors write them: a string when they are UTF-8, otherwise hex.
 * (UTF-8 holding a NUL is written as hex too, since cJSON strings end at a NUL; the
 * comparison is by bytes either way.)
 */
static cJSON *data_json(const uint8_t *data, size_t len) {
    if (plain_text(data, len)) {
        char *text = malloc(len + 1);
        if (text == NULL) return NULL;
        memcpy(text, data, len);
        text[len] = '\0';
        cJSON *json = cJSON_CreateString(text);
        free(text);
        return json;
    }
    char *hex = malloc(len * 2 + 1);
    if (hex == NULL) return NULL;
    for (size_t i = 0; i < len; i++) snprintf(hex + 2 * i, 3, "%02x", data[i]);
    hex[len * 2] = '\0';
    cJSON *json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "hex", hex);
    free(hex);
    return json;
}

/*
 * Equality where data values ("text" or {"hex": ...}) compare by their bytes: 1 equal,
 * 0 not, -1 a value that is not data where data was needed (msg). As the harness's `same`.
 */
static int same(const cJSON *want, const cJSON *got, char *msg) {
    if (cJSON_IsArray(want) && cJSON_IsArray(got)) {
        if (cJSON_GetArraySize(want) != cJSON_GetArraySize(got)) return 0;
        int equal = 1;
        for (const cJSON *a = want->child, *b = got->child; a && b; a = a->next, b = b->next) {
            int s = same(a, b, msg);
            if (s < 0) return -1;
            if (s == 0) equal = 0;
        }
        return equal;
    }
    bool want_hex = cJSON_IsObject(want) && cJSON_HasObjectItem(want, "hex");
    bool got_hex = cJSON_IsObject(got) && cJSON_HasObjectItem(got, "hex");
    if (cJSON_IsObject(want) && cJSON_IsObject(got) && !want_hex && !got_hex) {
        if (cJSON_GetArraySize(want) != cJSON_GetArraySize(got)) return 0;
        for (const cJSON *a = want->child; a; a = a->next) {
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(got, a->string);
            char ignored[MESSAGE_SIZE];
            if (b == NULL || same(a, b, ignored) != 1) return 0;
        }
        return 1;
    }
    if ((cJSON_IsString(want) || cJSON_IsObject(want)) &&
        (cJSON_IsString(got) || cJSON_IsObject(got))) {
        struct bytes a, b;
        if (data_bytes(want, &a, msg) != 0) return -1;
        if (data_bytes(got, &b, msg) != 0) {
            free(a.data);
            return -1;
        }
        int equal = a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
        free(a.data);
        free(b.data);
        return equal;
    }
    if (cJSON_IsNumber(want) && cJSON_IsNumber(got)) return want->valuedouble == got->valuedouble;
    if (cJSON_IsBool(want) && cJSON_IsBool(got)) return cJSON_IsTrue(want) == cJSON_IsTrue(got);
    if (cJSON_IsNull(want) && cJSON_IsNull(got)) return 1;
    return 0;
}

/* ---- the vector tool ------------------------------------------------------------------- */

/*
 * Runs `leaseq-vector-tool ARGS...`; 0 when it exits 0, else -1 with its output in msg.
 */
static int run_tool(char *msg, const char *a1, const char *a2, const char *a3, const char *a4) {
    char *argv[] = {(char *)tool, (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL};
    int fds[2];
    if (pipe(fds) != 0) return say(msg, "pipe: %s", strerror(errno)), -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    pid_t pid;
    int spawned = posix_spawn(&pid, tool, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        return say(msg, "cannot run %s: %s", tool, strerror(spawned)), -1;
    }
    char output[MESSAGE_SIZE];
    size_t len = 0;
    for (;;) {
        char chunk[1024];
        ssize_t got = read(fds[0], chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        for (ssize_t i = 0; i < got && len < sizeof output - 1; i++) output[len++] = chunk[i];
    }
    close(fds[0]);
    output[len] = '\0';
    while (len > 0 && (output[len - 1] == '\n' || output[len - 1] == '\r')) output[--len] = '\0';
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return say(msg, "waitpid: %s", strerror(errno)), -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    if (WIFEXITED(status))
        say(msg, "leaseq-vector-tool %s exited with %d: %s", a1, WEXITSTATUS(status), output);
    else
        say(msg, "leaseq-vector-tool %s was killed by signal %d: %s", a1, WTERMSIG(status),
            output);
    return -1;
}

/* ---- one case ------------------------------------------------------------------------ */

struct named_lease {
    char *name;
    leaseq_lease *lease;
};

struct runner {
    const leaseq_client *client;
    const char *prefix;
    leaseq_queue *queue;
    struct named_lease *leases;
    size_t leases_len, leases_cap;
};

/* What a step gave: nothing (raw, sleep_ms, state), or an operation's result or error. */
enum step_outcome { STEP_FAILED, STEP_NO_RESULT, STEP_RESULT };

struct result {
    leaseq_status status; /* LEASEQ_OK: `value` holds the result */
    char message[MESSAGE_SIZE];
    cJSON *value;
};

static void runner_free(struct runner *r) {
    for (size_t i = 0; i < r->leases_len; i++) {
        free(r->leases[i].name);
        leaseq_lease_free(r->leases[i].lease);
    }
    free(r->leases);
    leaseq_queue_free(r->queue);
}

static const char *str_field(const cJSON *step, const char *name, char *msg) {
    const cJSON *field = cJSON_GetObjectItemCaseSensitive(step, name);
    if (cJSON_IsString(field)) return field->valuestring;
    say(msg, "step needs string `%s`", name);
    return NULL;
}

/* A non-negative integer field (serde's as_u64); false when absent or not one. */
static bool u64_field(const cJSON *step, const char *name, uint64_t *out) {
    const cJSON *field = cJSON_GetObjectItemCaseSensitive(step, name);
    if (!cJSON_IsNumber(field)) return false;
    double value = field->valuedouble;
    if (!(value >= 0) || value != floor(value) || value >= 18446744073709551616.0) return false;
    *out = (uint64_t)value;
    return true;
}

/* A duration in ms for the C API (whose ttl and timeout are int64_t). */
static bool ms_field(const cJSON *step, const char *name, int64_t *out, char *msg) {
    uint64_t value;
    if (!u64_field(step, name, &value) || value > (uint64_t)INT64_MAX) {
        say(msg, "step needs number `%s`", name);
        return false;
    }
    *out = (int64_t)value;
    return true;
}

static const leaseq_lease *lease_named(struct runner *r, const cJSON *step, char *msg) {
    const char *name = str_field(step, "lease", msg);
    if (name == NULL) return NULL;
    for (size_t i = 0; i < r->leases_len; i++) {
        if (strcmp(r->leases[i].name, name) == 0) return r->leases[i].lease;
    }
    say(msg, "no lease named `%s`", name);
    return NULL;
}

/* Keeps `lease` under the step's `as` name (taking it); frees it when the step names none. */
static void keep(struct runner *r, const cJSON *step, leaseq_lease *lease) {
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(step, "as");
    if (lease == NULL) return;
    if (!cJSON_IsString(as)) {
        leaseq_lease_free(lease);
        return;
    }
    for (size_t i = 0; i < r->leases_len; i++) {
        if (strcmp(r->leases[i].name, as->valuestring) == 0) {
            leaseq_lease_free(r->leases[i].lease);
            r->leases[i].lease = lease;
            return;
        }
    }
    if (r->leases_len == r->leases_cap) {
        size_t cap = r->leases_cap ? r->leases_cap * 2 : 8;
        struct named_lease *bigger = realloc(r->leases, cap * sizeof *bigger);
        if (bigger == NULL) {
            leaseq_lease_free(lease);
            return;
        }
        r->leases = bigger;
        r->leases_cap = cap;
    }
    char *name = malloc(strlen(as->valuestring) + 1);
    if (name == NULL) {
        leaseq_lease_free(lease);
        return;
    }
    strcpy(name, as->valuestring);
    r->leases[r->leases_len].name = name;
    r->leases[r->leases_len].lease = lease;
    r->leases_len++;
}

/* A lease as vectors write it: {"id", "data", "count"}, or null. */
static cJSON *lease_json(const leaseq_lease *lease) {
    if (lease == NULL) return cJSON_CreateNull();
    const char *id = NULL;
    const uint8_t *data = NULL;
    size_t len = 0;
    uint64_t count = 0;
    if (leaseq_lease_id(lease, &id) != LEASEQ_OK ||
        leaseq_lease_data(lease, &data, &len) != LEASEQ_OK ||
        leaseq_lease_count(lease, &count) != LEASEQ_OK) {
        return cJSON_CreateString("(the lease could not be read)");
    }
    cJSON *json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "id", id);
    cJSON_AddItemToObject(json, "data", data_json(data, len));
    cJSON_AddNumberToObject(json, "count", (double)count);
    return json;
}

/* Records a failed or successful C call in `res`; returns whether it succeeded. */
static bool called(struct result *res, leaseq_status status) {
    res->status = status;
    if (status != LEASEQ_OK) snprintf(res->message, MESSAGE_SIZE, "%s", leaseq_last_error_message());
    return status == LEASEQ_OK;
}

/* Makes an item from the step's `id` and data value: -1 (msg) when the data is no data value;
 * otherwise 0, with the C status of leaseq_item_with_id in `res` and the item in `*item`. */
static int make_item(const cJSON *entry, struct result *res, leaseq_item **item, char *msg) {
    *item = NULL;
    const char *id = str_field(entry, "id", msg);
    if (id == NULL) return -1;
    struct bytes data;
    if (data_bytes(cJSON_GetObjectItemCaseSensitive(entry, "data"), &data, msg) != 0) return -1;
    called(res, leaseq_item_with_id(id, data.data, data.len, item));
    free(data.data);
    return 0;
}

static enum step_outcome run_step(struct runner *r, const cJSON *step, struct result *res,
                                  char *msg) {
    const leaseq_queue *q = r->queue;
    const char *op = str_field(step, "do", msg);
    if (op == NULL) return STEP_FAILED;
    res->status = LEASEQ_OK;
    res->value = NULL;

    if (strcmp(op, "add") == 0 || strcmp(op, "add_unique") == 0) {
        leaseq_item *item;
        if (make_item(step, res, &item, msg) != 0) return STEP_FAILED;
        if (item != NULL) {
            if (op[3] == '\0') {
                bool added = false;
                if (called(res, leaseq_queue_add(q, item, &added))) res->value = cJSON_CreateBool(added);
            } else if (called(res, leaseq_queue_add_unique(q, item))) {
                res->value = cJSON_CreateNull();
            }
        }
        leaseq_item_free(item);
        return STEP_RESULT;
    }
    if (strcmp(op, "add_batch") == 0) {
        const cJSON *entries = cJSON_GetObjectItemCaseSensitive(step, "items");
        if (!cJSON_IsArray(entries)) return say(msg, "add_batch needs `items`"), STEP_FAILED;
        size_t len = (size_t)cJSON_GetArraySize(entries), made = 0;
        leaseq_item **items = calloc(len ? len : 1, sizeof *items);
        if (items == NULL) return say(msg, "out of memory"), STEP_FAILED;
        enum step_outcome outcome = STEP_RESULT;
        for (const cJSON *entry = entries->child; entry; entry = entry->next) {
            if (make_item(entry, res, &items[made], msg) != 0) {
                outcome = STEP_FAILED;
                break;
            }
            if (res->status != LEASEQ_OK) {
                /* As the Rust runner: an item refused while building the batch fails the step. */
                say(msg, "%s: %s", leaseq_status_str(res->status), res->message);
                outcome = STEP_FAILED;
                break;
            }
            made++;
        }
        if (outcome == STEP_RESULT) {
            size_t added = 0;
            if (called(res, leaseq_queue_add_batch(q, (const leaseq_item *const *)items, made,
                                                   &added))) {
                res->value = cJSON_CreateNumber((double)added);
            }
        }
        for (size_t i = 0; i < made; i++) leaseq_item_free(items[i]);
        free(items);
        return outcome;
    }
    if (strcmp(op, "lease") == 0) {
        int64_t ttl, timeout = 0;
        uint64_t wait;
        if (u64_field(step, "timeout_ms", &wait) && wait > 0)
            timeout = wait > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)wait;
        if (!ms_field(step, "ttl_ms", &ttl, msg)) return STEP_FAILED;
        leaseq_lease *lease = NULL;
        if (called(res, leaseq_queue_lease(q, ttl, timeout, &lease))) {
            res->value = lease_json(lease);
            keep(r, step, lease);
        }
        return STEP_RESULT;
    }
    if (strcmp(op, "complete") == 0) {
        const leaseq_lease *lease = lease_named(r, step, msg);
        if (lease == NULL) return STEP_FAILED;
        bool completed = false;
        if (called(res, leaseq_queue_complete(q, lease, &completed)))
            res->value = cJSON_CreateBool(completed);
        return STEP_RESULT;
    }
    if (strcmp(op, "complete_and_lease") == 0) {
        const leaseq_lease *lease = lease_named(r, step, msg);
        int64_t ttl;
        if (lease == NULL || !ms_field(step, "ttl_ms", &ttl, msg)) return STEP_FAILED;
        bool completed = false;
        leaseq_lease *next = NULL;
        if (called(res, leaseq_queue_complete_and_lease(q, lease, ttl, &completed, &next))) {
            res->value = cJSON_CreateObject();
            cJSON_AddBoolToObject(res->value, "completed", completed);
            cJSON_AddItemToObject(res->value, "next", lease_json(next));
            keep(r, step, next);
        }
        return STEP_RESULT;
    }
    if (strcmp(op, "renew") == 0) {
        const leaseq_lease *lease = lease_named(r, step, msg);
        int64_t ttl;
        if (lease == NULL || !ms_field(step, "ttl_ms", &ttl, msg)) return STEP_FAILED;
        bool renewed = false;
        if (called(res, leaseq_queue_renew(q, lease, ttl, &renewed)))
            res->value = cJSON_CreateBool(renewed);
        return STEP_RESULT;
    }
    if (strcmp(op, "light_clean") == 0 || strcmp(op, "deep_clean") == 0) {
        leaseq_clean_report report = {0, 0};
        leaseq_status status = op[0] == 'l' ? leaseq_queue_light_clean(q, &report)
                                            : leaseq_queue_deep_clean(q, &report);
        if (called(res, status)) {
            res->value = cJSON_CreateObject();
            cJSON_AddNumberToObject(res->value, "requeued", (double)report.requeued);
            cJSON_AddNumberToObject(res->value, "removed", (double)report.removed);
        }
        return STEP_RESULT;
    }
    if (strcmp(op, "queue_len") == 0 || strcmp(op, "processing_len") == 0) {
        uint64_t len = 0;
        leaseq_status status =
            op[0] == 'q' ? leaseq_queue_len(q, &len) : leaseq_queue_processing_len(q, &len);
        if (called(res, status)) res->value = cJSON_CreateNumber((double)len);
        return STEP_RESULT;
    }
    if (strcmp(op, "open_queue") == 0) {
        const char *prefix = str_field(step, "prefix", msg);
        if (prefix == NULL) return STEP_FAILED;
        leaseq_queue *other = NULL;
        if (called(res, leaseq_client_queue(r->client, prefix, &other)))
            res->value = cJSON_CreateNull();
        leaseq_queue_free(other);
        return STEP_RESULT;
    }
    if (strcmp(op, "raw") == 0) {
        const cJSON *command = cJSON_GetObjectItemCaseSensitive(step, "command");
        if (!cJSON_IsArray(command)) return say(msg, "raw needs `command`"), STEP_FAILED;
        char *text = cJSON_PrintUnformatted(command);
        if (text == NULL) return say(msg, "out of memory"), STEP_FAILED;
        int rc = run_tool(msg, "raw", url, r->prefix, text);
        free(text);
        return rc == 0 ? STEP_NO_RESULT : STEP_FAILED;
    }
    if (strcmp(op, "sleep_ms") == 0) {
        uint64_t ms;
        if (!u64_field(step, "ms", &ms)) return say(msg, "step needs number `ms`"), STEP_FAILED;
        sleep_ms(ms);
        return STEP_NO_RESULT;
    }
    if (strcmp(op, "state") == 0) {
        const cJSON *other = cJSON_GetObjectItemCaseSensitive(step, "prefix");
        const char *prefix = cJSON_IsString(other) ? other->valuestring : r->prefix;
        const cJSON *expect = cJSON_GetObjectItemCaseSensitive(step, "expect");
        char *text = expect ? cJSON_PrintUnformatted(expect) : NULL;
        int rc = run_tool(msg, "check", url, prefix, text ? text : "null");
        free(text);
        return rc == 0 ? STEP_NO_RESULT : STEP_FAILED;
    }
    say(msg, "unknown step `%s`", op);
    return STEP_FAILED;
}

/* Runs one case: 0 when it passes, else -1 with "step <i> (<do>): ..." (or why) in msg. */
static int run_case(const leaseq_client *client, const cJSON *c, char *msg) {
    if (run_tool(msg, "flush", url, NULL, NULL) != 0) return -1;
    const cJSON *prefix_json = cJSON_GetObjectItemCaseSensitive(c, "prefix");
    struct runner r = {client, cJSON_IsString(prefix_json) ? prefix_json->valuestring : "{v}",
                       NULL, NULL, 0, 0};
    leaseq_status status = leaseq_client_queue(client, r.prefix, &r.queue);
    if (status != LEASEQ_OK) {
        say(msg, "%s: %s", leaseq_status_str(status), leaseq_last_error_message());
        return -1;
    }
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(c, "steps");
    if (!cJSON_IsArray(steps)) {
        runner_free(&r);
        return say(msg, "case needs `steps`"), -1;
    }
    int index = 0, rc = 0;
    for (const cJSON *step = steps->child; step && rc == 0; step = step->next, index++) {
        char why[MESSAGE_SIZE] = "";
        struct result res;
        enum step_outcome outcome = run_step(&r, step, &res, why);
        const cJSON *do_json = cJSON_GetObjectItemCaseSensitive(step, "do");
        const char *op = cJSON_IsString(do_json) ? do_json->valuestring : "?";
        if (outcome == STEP_FAILED) {
            say(msg, "step %d (%s): %s", index, op, why);
            rc = -1;
            continue;
        }
        if (outcome == STEP_NO_RESULT) continue;
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(step, "expect_error");
        char *got = res.status == LEASEQ_OK ? json_text(res.value) : NULL;
        if (code != NULL) {
            /* leaseq_status_str gives the registry's code names (spec/errors.md). */
            if (res.status == LEASEQ_OK || !cJSON_IsString(code) ||
                strcmp(code->valuestring, leaseq_status_str(res.status)) != 0) {
                char *want = json_text(code);
                if (res.status == LEASEQ_OK)
                    say(msg, "step %d (%s): expected error %s, got OK: %s", index, op, want, got);
                else
                    say(msg, "step %d (%s): expected error %s, got error %s: %s", index, op,
                        want, leaseq_status_str(res.status), res.message);
                free(want);
                rc = -1;
            }
        } else if (res.status != LEASEQ_OK) {
            say(msg, "step %d (%s): unexpected error %s: %s", index, op,
                leaseq_status_str(res.status), res.message);
            rc = -1;
        } else {
            cJSON *null = cJSON_CreateNull();
            const cJSON *want = cJSON_GetObjectItemCaseSensitive(step, "expect");
            if (want == NULL) want = null;
            int s = same(want, res.value, why);
            if (s < 0) {
                say(msg, "step %d (%s): %s", index, op, why);
                rc = -1;
            } else if (s == 0) {
                char *want_text = json_text(want);
                say(msg, "step %d (%s): expected %s, got %s", index, op, want_text, got);
                free(want_text);
                rc = -1;
            }
            cJSON_Delete(null);
        }
        free(got);
        cJSON_Delete(res.value);
    }
    runner_free(&r);
    return rc;
}

/* ---- every file ------------------------------------------------------------------------ */

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s URL LEASEQ_VECTOR_TOOL VECTORS_DIR\n", argv[0]);
        return 2;
    }
    url = argv[1];
    tool = argv[2];
    const char *dir_path = argv[3];

    DIR *dir = opendir(dir_path);
    if (dir == NULL) {
        fprintf(stderr, "c vectors: cannot open %s: %s\n", dir_path, strerror(errno));
        return 2;
    }
    char **files = NULL;
    size_t files_len = 0;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        size_t len = strlen(entry->d_name);
        if (len <= 5 || strcmp(entry->d_name + len - 5, ".json") != 0) continue;
        char **bigger = realloc(files, (files_len + 1) * sizeof *files);
        char *path = malloc(strlen(dir_path) + len + 2);
        if (bigger == NULL || path == NULL) {
            fprintf(stderr, "c vectors: out of memory\n");
            return 2;
        }
        files = bigger;
        sprintf(path, "%s/%s", dir_path, entry->d_name);
        files[files_len++] = path;
    }
    closedir(dir);
    qsort(files, files_len, sizeof *files, by_name);

    leaseq_client *client = NULL;
    if (leaseq_client_connect(url, &client) != LEASEQ_OK) {
        fprintf(stderr, "c vectors: connect %s: %s\n", url, leaseq_last_error_message());
        return 2;
    }

    int passed = 0, failed = 0, ran = 0, cases_in_files = 0;
    for (size_t f = 0; f < files_len; f++) {
        char *text = read_file(files[f]);
        cJSON *doc = text ? cJSON_Parse(text) : NULL;
        const cJSON *version = cJSON_GetObjectItemCaseSensitive(doc, "version");
        const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
        if (text == NULL || doc == NULL || !cJSON_IsNumber(version) ||
            version->valuedouble != 1 || !cJSON_IsArray(cases) || has_nul_escape(text)) {
            /* A file that cannot be run counts as a failure, never as nothing. */
            printf("c: %s: %s\n", files[f],
                   text == NULL            ? "cannot read the file"
                   : doc == NULL           ? "not valid JSON"
                   : has_nul_escape(text)  ? "a string holds \\u0000, which this runner cannot "
                                             "pass through cJSON: write such bytes as {\"hex\": ...}"
                                           : "needs {\"version\": 1, \"cases\": [...]}");
            failed++;
            free(text);
            cJSON_Delete(doc);
            continue;
        }
        cases_in_files += cJSON_GetArraySize(cases);
        for (const cJSON *c = cases->child; c; c = c->next) {
            char msg[MESSAGE_SIZE] = "";
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
            ran++;
            if (run_case(client, c, msg) == 0) {
                passed++;
            } else {
                failed++;
                printf("c: %s: %s\n", cJSON_IsString(name) ? name->valuestring : "?", msg);
                fflush(stdout);
            }
        }
        free(text);
        cJSON_Delete(doc);
    }
    for (size_t f = 0; f < files_len; f++) free(files[f]);
    free(files);
    leaseq_client_free(client);

    if (ran != cases_in_files || cases_in_files < 40) {
        printf("c: ran %d cases of %d in %s (at least 40 expected)\n", ran,
               cases_in_files, dir_path);
        failed++;
    }
    printf("c vectors: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
