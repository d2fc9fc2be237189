/*
 * The C runner of the conformance vectors (spec/vectors, format in spec/vectors/README.md).
 * It follows the Rust runner (integration-tests/vectors/tests/conformance.rs) step by step:
 * queue operations go through the C API (every v2 step: item options on add, add_unique and
 * add_batch, lease_batch, complete with a result, fail, release, progress, renew_outcome,
 * result, get, list, count, find, promote, cancel, dead letters, set_config, stats, pause,
 * resume, is_paused, the groups' pause_group, resume_group, set_group_limit, group and
 * rate_limit_group, counts_by_name; recurring jobs, dependencies and flows, read_events);
 * the Redis-side steps (the empty start of a case, `raw`, `state`) run the harness's
 * leaseq-vector-tool.
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

/* Keeps `lease` under `name` (taking it); frees it when `name` is NULL. */
static void keep_as(struct runner *r, const char *name, leaseq_lease *lease) {
    if (lease == NULL) return;
    if (name == NULL) {
        leaseq_lease_free(lease);
        return;
    }
    for (size_t i = 0; i < r->leases_len; i++) {
        if (strcmp(r->leases[i].name, name) == 0) {
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
    char *copy = malloc(strlen(name) + 1);
    if (copy == NULL) {
        leaseq_lease_free(lease);
        return;
    }
    strcpy(copy, name);
    r->leases[r->leases_len].name = copy;
    r->leases[r->leases_len].lease = lease;
    r->leases_len++;
}

/* Keeps `lease` under the step's `as` name (taking it); frees it when the step names none. */
static void keep(struct runner *r, const cJSON *step, leaseq_lease *lease) {
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(step, "as");
    keep_as(r, cJSON_IsString(as) ? as->valuestring : NULL, lease);
}

/* A lease as vectors write it: {"id", "data", "count"} (the id as its exact bytes), and "name"
 * for an item that has one, or null. */
static cJSON *lease_json(const leaseq_lease *lease) {
    if (lease == NULL) return cJSON_CreateNull();
    const uint8_t *id = NULL;
    size_t id_len = 0;
    const uint8_t *data = NULL;
    size_t len = 0;
    uint64_t count = 0;
    const char *name = NULL;
    if (leaseq_lease_id_bytes(lease, &id, &id_len) != LEASEQ_OK ||
        leaseq_lease_data(lease, &data, &len) != LEASEQ_OK ||
        leaseq_lease_count(lease, &count) != LEASEQ_OK ||
        leaseq_lease_name(lease, &name) != LEASEQ_OK) {
        return cJSON_CreateString("(the lease could not be read)");
    }
    cJSON *json = cJSON_CreateObject();
    cJSON_AddItemToObject(json, "id", data_json(id, id_len));
    cJSON_AddItemToObject(json, "data", data_json(data, len));
    cJSON_AddNumberToObject(json, "count", (double)count);
    if (name != NULL) cJSON_AddStringToObject(json, "name", name);
    return json;
}

/* Records a failed or successful C call in `res`; returns whether it succeeded. */
static bool called(struct result *res, leaseq_status status) {
    res->status = status;
    if (status != LEASEQ_OK) snprintf(res->message, MESSAGE_SIZE, "%s", leaseq_last_error_message());
    return status == LEASEQ_OK;
}

/* An optional field that must be an integer when present: 0 absent, 1 read, -1 bad (msg). */
static int int_field(const cJSON *step, const char *name, int64_t *out, char *msg) {
    const cJSON *field = cJSON_GetObjectItemCaseSensitive(step, name);
    if (field == NULL || cJSON_IsNull(field)) return 0;
    double value = cJSON_IsNumber(field) ? field->valuedouble : 0.5;
    if (value != floor(value) || value < -9007199254740992.0 || value > 9007199254740992.0)
        return say(msg, "`%s` must be an integer", name), -1;
    *out = (int64_t)value;
    return 1;
}

/* A backoff value: {"fixed_ms": n} or {"exp_ms": [base, cap], "jitter": bool (default true)}. */
static int backoff_value(const cJSON *value, leaseq_backoff *out, char *msg) {
    int64_t fixed;
    int got = int_field(value, "fixed_ms", &fixed, msg);
    if (got < 0) return -1;
    if (got > 0) {
        out->kind = LEASEQ_BACKOFF_FIXED;
        out->base_ms = fixed;
        return 0;
    }
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(value, "exp_ms");
    if (!cJSON_IsArray(exp) || cJSON_GetArraySize(exp) != 2 ||
        !cJSON_IsNumber(cJSON_GetArrayItem(exp, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(exp, 1)))
        return say(msg, "backoff needs fixed_ms or exp_ms: [base, cap]"), -1;
    const cJSON *jitter = cJSON_GetObjectItemCaseSensitive(value, "jitter");
    out->kind = LEASEQ_BACKOFF_EXPONENTIAL;
    out->base_ms = (int64_t)cJSON_GetArrayItem(exp, 0)->valuedouble;
    out->cap_ms = (int64_t)cJSON_GetArrayItem(exp, 1)->valuedouble;
    out->jitter = !cJSON_IsFalse(jitter);
    return 0;
}

/* Memory a step's options point to (the ids of `depends_on`), freed after each step. */
static void *step_arena[1024];
static size_t step_arena_len;

static void *arena_alloc(size_t size) {
    if (step_arena_len == sizeof step_arena / sizeof step_arena[0]) return NULL;
    void *p = calloc(1, size ? size : 1);
    if (p != NULL) step_arena[step_arena_len++] = p;
    return p;
}

static void arena_reset(void) {
    for (size_t i = 0; i < step_arena_len; i++) free(step_arena[i]);
    step_arena_len = 0;
}

/* The C policy for a vector's name; a name the runner does not know becomes a value the
 * library refuses, so that the step's expected error comes from the library. */
static leaseq_on_dependency_failure policy_value(const char *name) {
    if (strcmp(name, "fail") == 0) return LEASEQ_ON_DEPENDENCY_FAILURE_FAIL;
    if (strcmp(name, "run") == 0) return LEASEQ_ON_DEPENDENCY_FAILURE_RUN;
    return 1000;
}

/* The item options of a step or batch entry (spec/vectors/README.md, "Item options"). */
static int item_options(const cJSON *entry, leaseq_add_options *options, char *msg) {
    leaseq_add_options init = LEASEQ_ADD_OPTIONS_INIT;
    *options = init;
    int64_t v;
    int got;
    if ((got = int_field(entry, "delay_ms", &v, msg)) < 0) return -1;
    if (got) options->delay_ms = v, options->set |= LEASEQ_ADD_DELAY;
    if ((got = int_field(entry, "priority", &v, msg)) < 0) return -1;
    if (got) options->priority = (int32_t)v, options->set |= LEASEQ_ADD_PRIORITY;
    if ((got = int_field(entry, "max_attempts", &v, msg)) < 0) return -1;
    if (got) options->max_attempts = (uint32_t)v, options->set |= LEASEQ_ADD_MAX_ATTEMPTS;
    if ((got = int_field(entry, "expires_after_ms", &v, msg)) < 0) return -1;
    if (got) options->expires_after_ms = v, options->set |= LEASEQ_ADD_EXPIRES_AFTER;
    if ((got = int_field(entry, "keep_result_ms", &v, msg)) < 0) return -1;
    if (got) options->keep_result_for_ms = v, options->set |= LEASEQ_ADD_KEEP_RESULT_FOR;
    const cJSON *backoff = cJSON_GetObjectItemCaseSensitive(entry, "backoff");
    if (backoff != NULL && !cJSON_IsNull(backoff)) {
        if (backoff_value(backoff, &options->backoff, msg) != 0) return -1;
        options->set |= LEASEQ_ADD_BACKOFF;
    }
    /* The string stays the parsed document's, alive while the step runs. */
    const cJSON *group = cJSON_GetObjectItemCaseSensitive(entry, "group");
    if (cJSON_IsString(group)) options->group = group->valuestring, options->set |= LEASEQ_ADD_GROUP;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(entry, "name");
    if (cJSON_IsString(name)) options->name = name->valuestring, options->set |= LEASEQ_ADD_NAME;
    const cJSON *deps = cJSON_GetObjectItemCaseSensitive(entry, "depends_on");
    if (cJSON_IsArray(deps)) {
        size_t n = (size_t)cJSON_GetArraySize(deps), i = 0;
        const char **ids = arena_alloc(n * sizeof *ids);
        if (ids == NULL) return say(msg, "out of memory"), -1;
        for (const cJSON *d = deps->child; d; d = d->next) {
            if (cJSON_IsString(d)) ids[i++] = d->valuestring; /* as the Rust runner's as_str */
        }
        options->depends_on = ids;
        options->depends_on_len = i;
        options->set |= LEASEQ_ADD_DEPENDS_ON;
    }
    const cJSON *policy = cJSON_GetObjectItemCaseSensitive(entry, "on_dependency_failure");
    if (cJSON_IsString(policy)) {
        options->on_dependency_failure = policy_value(policy->valuestring);
        options->set |= LEASEQ_ADD_ON_DEPENDENCY_FAILURE;
    }
    return 0;
}

/* Makes an item from the step's `id`, data value and options: -1 (msg) when the step is
 * malformed; otherwise 0, with the C status of leaseq_item_with_id in `res`, the item in
 * `*item` and its options in `*options`. */
static int make_item(const cJSON *entry, struct result *res, leaseq_item **item,
                     leaseq_add_options *options, char *msg) {
    *item = NULL;
    const char *id = str_field(entry, "id", msg);
    if (id == NULL) return -1;
    if (item_options(entry, options, msg) != 0) return -1;
    struct bytes data;
    if (data_bytes(cJSON_GetObjectItemCaseSensitive(entry, "data"), &data, msg) != 0) return -1;
    called(res, leaseq_item_with_id(id, data.data, data.len, item));
    free(data.data);
    return 0;
}

/* The C state for a vector's state name; a name the runner does not know becomes a value the
 * library refuses, so that the step's expected error comes from the library. */
static leaseq_state state_value(const char *name) {
    static const leaseq_state states[] = {LEASEQ_STATE_WAITING, LEASEQ_STATE_DELAYED,
                                          LEASEQ_STATE_LEASED, LEASEQ_STATE_DEAD,
                                          LEASEQ_STATE_DONE, LEASEQ_STATE_BLOCKED};
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        if (strcmp(leaseq_state_str(states[i]), name) == 0) return states[i];
    }
    return 1000;
}

/* Text (a C string) as vector data. */
static cJSON *text_json(const char *text) {
    return data_json((const uint8_t *)text, strlen(text));
}

/* An optional string: null when NULL. */
static cJSON *maybe_text(const char *text) {
    return text == NULL ? cJSON_CreateNull() : text_json(text);
}

/* A job as vectors write it (spec/vectors/README.md, "A job"). */
static cJSON *job_json(const leaseq_job *job) {
    if (job == NULL) return cJSON_CreateNull();
    leaseq_state state = LEASEQ_STATE_NONE;
    const uint8_t *data = NULL, *progress = NULL, *result_data = NULL;
    size_t len = 0, progress_len = 0, result_len = 0;
    uint64_t attempts = 0;
    int32_t priority = 0;
    const char *error = NULL, *error_type = NULL, *reason = NULL, *group = NULL, *name = NULL;
    const char *trace = NULL;
    const leaseq_result *result = NULL;
    const char *const *depends_on = NULL;
    size_t depends_on_len = 0;
    if (leaseq_job_state(job, &state) != LEASEQ_OK ||
        leaseq_job_depends_on(job, &depends_on, &depends_on_len) != LEASEQ_OK ||
        leaseq_job_data(job, &data, &len) != LEASEQ_OK ||
        leaseq_job_attempts(job, &attempts) != LEASEQ_OK ||
        leaseq_job_error(job, &error) != LEASEQ_OK ||
        leaseq_job_error_type(job, &error_type) != LEASEQ_OK ||
        leaseq_job_dead_reason(job, &reason) != LEASEQ_OK ||
        leaseq_job_progress(job, &progress, &progress_len) != LEASEQ_OK ||
        leaseq_job_priority(job, &priority) != LEASEQ_OK ||
        leaseq_job_result(job, &result) != LEASEQ_OK ||
        leaseq_job_group(job, &group) != LEASEQ_OK ||
        leaseq_job_name(job, &name) != LEASEQ_OK ||
        leaseq_job_trace(job, &trace) != LEASEQ_OK ||
        (result != NULL && leaseq_result_data(result, &result_data, &result_len) != LEASEQ_OK)) {
        return cJSON_CreateString("(the job could not be read)");
    }
    cJSON *json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "state", leaseq_state_str(state));
    cJSON_AddItemToObject(json, "data", data_json(data, len));
    cJSON_AddNumberToObject(json, "attempts", (double)attempts);
    cJSON_AddItemToObject(json, "error", maybe_text(error));
    cJSON_AddItemToObject(json, "error_type", maybe_text(error_type));
    cJSON_AddItemToObject(json, "reason", maybe_text(reason));
    cJSON_AddItemToObject(json, "progress", progress == NULL ? cJSON_CreateNull()
                                                              : data_json(progress, progress_len));
    cJSON_AddNumberToObject(json, "priority", (double)priority);
    cJSON_AddItemToObject(json, "result", result == NULL ? cJSON_CreateNull()
                                                          : data_json(result_data, result_len));
    /* `group` and `name` only for an item that has one (spec/vectors/README.md, "A job"). */
    if (group != NULL) cJSON_AddStringToObject(json, "group", group);
    if (name != NULL) cJSON_AddStringToObject(json, "name", name);
    /* Likewise `trace`. */
    if (trace != NULL) cJSON_AddStringToObject(json, "trace", trace);
    /* Likewise `depends_on`, for an item added with dependencies. */
    if (depends_on_len > 0) {
        cJSON *ids = cJSON_AddArrayToObject(json, "depends_on");
        for (size_t i = 0; i < depends_on_len; i++)
            cJSON_AddItemToArray(ids, cJSON_CreateString(depends_on[i]));
    }
    return json;
}

/* A list of C strings as a JSON array of strings. */
static cJSON *strings_json(const char *const *list, size_t len) {
    cJSON *json = cJSON_CreateArray();
    for (size_t i = 0; i < len; i++) cJSON_AddItemToArray(json, cJSON_CreateString(list[i]));
    return json;
}

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An event as vectors write it (spec/vectors/README.md, "An event"). */
static cJSON *event_json(const leaseq_event *e) {
    cJSON *json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "event", e->event);
    cJSON_AddStringToObject(json, "id", e->job_id);
    cJSON_AddNumberToObject(json, "attempt", (double)e->attempt);
    if (e->name != NULL) cJSON_AddStringToObject(json, "name", e->name);
    if (e->error != NULL) cJSON_AddStringToObject(json, "error", e->error);
    if (e->reason != NULL) cJSON_AddStringToObject(json, "reason", e->reason);
    for (size_t i = 0; i < e->extra_len; i++) {
        if (strcmp(e->extra[i].name, "state") == 0)
            cJSON_AddStringToObject(json, "state", e->extra[i].value);
    }
    return json;
}

/* A schedule as vectors write it (get_schedule). */
static cJSON *schedule_json(const leaseq_schedule_info *s) {
    if (s == NULL) return cJSON_CreateNull();
    cJSON *json = cJSON_CreateObject();
    cJSON_AddNumberToObject(json, "version", (double)s->version);
    cJSON_AddItemToObject(json, "next", s->next_ms < 0 ? cJSON_CreateNull()
                                                        : cJSON_CreateNumber((double)s->next_ms));
    cJSON_AddNumberToObject(json, "fired", (double)s->fired);
    cJSON_AddNumberToObject(json, "skipped", (double)s->skipped);
    cJSON_AddItemToObject(json, "last_tick", s->last_tick_ms < 0
                                                 ? cJSON_CreateNull()
                                                 : cJSON_CreateNumber((double)s->last_tick_ms));
    if (!s->readable) {
        cJSON_AddNullToObject(json, "missed");
        cJSON_AddNullToObject(json, "data");
        return json;
    }
    char missed[32];
    if (s->missed == LEASEQ_MISSED_ALL)
        snprintf(missed, sizeof missed, "all:%u", (unsigned)s->missed_all);
    else
        snprintf(missed, sizeof missed, "%s", s->missed == LEASEQ_MISSED_ONCE ? "once" : "skip");
    cJSON_AddStringToObject(json, "missed", missed);
    cJSON_AddItemToObject(json, "data", data_json(s->data, s->data_len));
    return json;
}

/* Appends the flow `entry` (an item object with optional `children`) to `children`, as the
 * child of `parent`: itself first, then its own children (pre-order). -1 (msg) when the step
 * is malformed; a refused item leaves its status in `*refused` (the first one only). */
static int flatten_flow(const cJSON *entry, size_t parent, leaseq_flow_child *children,
                        leaseq_add_options *options, size_t *len, struct result *refused,
                        char *msg) {
    size_t at = *len;
    struct result res = {0};
    leaseq_item *item = NULL;
    if (make_item(entry, &res, &item, &options[at], msg) != 0) return -1;
    if (res.status != LEASEQ_OK) {
        if (refused->status == LEASEQ_OK) *refused = res;
        return 0;
    }
    children[at].item = item;
    children[at].options = &options[at];
    children[at].parent = parent;
    (*len)++;
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive(entry, "children");
    if (cJSON_IsArray(kids)) {
        for (const cJSON *kid = kids->child; kid; kid = kid->next) {
            if (flatten_flow(kid, at, children, options, len, refused, msg) != 0) return -1;
        }
    }
    return 0;
}

/* How many item objects the flow list `list` holds, nested children included. */
static size_t flow_size(const cJSON *list) {
    size_t n = 0;
    if (!cJSON_IsArray(list)) return 0;
    for (const cJSON *e = list->child; e; e = e->next)
        n += 1 + flow_size(cJSON_GetObjectItemCaseSensitive(e, "children"));
    return n;
}

/* A list of entries as vectors write it: [{"id", "attempts", "error"}]. */
static cJSON *entries_json(const leaseq_entry_list *list) {
    size_t len = 0;
    if (leaseq_entry_list_len(list, &len) != LEASEQ_OK)
        return cJSON_CreateString("(the list could not be read)");
    cJSON *json = cJSON_CreateArray();
    for (size_t i = 0; i < len; i++) {
        const leaseq_entry *entry = NULL;
        const char *id = NULL, *error = NULL, *reason = NULL;
        uint64_t attempts = 0;
        cJSON *line = cJSON_CreateObject();
        if (leaseq_entry_list_get(list, i, &entry) != LEASEQ_OK ||
            leaseq_entry_id(entry, &id) != LEASEQ_OK ||
            leaseq_entry_attempts(entry, &attempts) != LEASEQ_OK ||
            leaseq_entry_error(entry, &error) != LEASEQ_OK ||
            leaseq_entry_reason(entry, &reason) != LEASEQ_OK) {
            cJSON_Delete(line);
            cJSON_AddItemToArray(json, cJSON_CreateString("(an entry could not be read)"));
            continue;
        }
        cJSON_AddItemToObject(line, "id", text_json(id));
        cJSON_AddNumberToObject(line, "attempts", (double)attempts);
        cJSON_AddItemToObject(line, "error", maybe_text(error));
        /* Why a dead item died: named only when there is a reason. */
        if (reason != NULL) cJSON_AddItemToObject(line, "reason", text_json(reason));
        cJSON_AddItemToArray(json, line);
    }
    return json;
}

/* A lease wait as the Rust runner reads it: `timeout_ms` absent or 0 is no wait. */
static int64_t timeout_of(const cJSON *step) {
    uint64_t wait;
    if (u64_field(step, "timeout_ms", &wait) && wait > 0)
        return wait > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)wait;
    return 0;
}

/* The optional count `n` of dead_requeue_oldest and dead_purge: -1 (all) when absent. */
static int64_t n_or_all(const cJSON *step) {
    uint64_t n;
    if (!u64_field(step, "n", &n)) return -1;
    return n > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)n;
}

/* A batch step's `completions` ({"lease", "result" (optional), "keep_result_ms" (optional)}
 * each) as leaseq_completion values in `out` (`*len` of them, at most `cap`), their results'
 * bytes in `kept` (free each with free_results). Returns false with `msg` set on a bad step. */
static bool completions_of(struct runner *r, const cJSON *step, leaseq_completion *out,
                           struct bytes *kept, size_t cap, size_t *len, char *msg) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(step, "completions");
    *len = 0;
    if (!cJSON_IsArray(list)) return say(msg, "step needs a list `completions`"), false;
    const cJSON *c;
    cJSON_ArrayForEach(c, list) {
        if (*len == cap) return say(msg, "too many completions for the runner"), false;
        leaseq_completion completion = LEASEQ_COMPLETION_INIT;
        kept[*len].data = NULL;
        kept[*len].len = 0;
        completion.lease = lease_named(r, c, msg);
        if (completion.lease == NULL) return false;
        const cJSON *result = cJSON_GetObjectItemCaseSensitive(c, "result");
        if (result != NULL) {
            if (int_field(c, "keep_result_ms", &completion.keep_result_for_ms, msg) < 0) return false;
            if (data_bytes(result, &kept[*len], msg) != 0) return false;
            /* an empty result is any non-NULL pointer */
            completion.result = kept[*len].data ? kept[*len].data : (const uint8_t *)"";
            completion.result_len = kept[*len].len;
        }
        out[(*len)++] = completion;
    }
    return true;
}

static void free_results(struct bytes *kept, size_t len) {
    for (size_t i = 0; i < len; i++) free(kept[i].data);
}

static cJSON *bools_json(const bool *values, size_t len) {
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; i < len; i++) cJSON_AddItemToArray(list, cJSON_CreateBool(values[i]));
    return list;
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
        leaseq_add_options options;
        if (make_item(step, res, &item, &options, msg) != 0) return STEP_FAILED;
        if (item != NULL) {
            if (op[3] == '\0') {
                bool added = false;
                if (called(res, leaseq_queue_add_with_options(q, item, &options, &added)))
                    res->value = cJSON_CreateBool(added);
            } else if (called(res, leaseq_queue_add_unique_with_options(q, item, &options))) {
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
        leaseq_add_options *options = calloc(len ? len : 1, sizeof *options);
        const leaseq_add_options **option_ptrs = calloc(len ? len : 1, sizeof *option_ptrs);
        if (items == NULL || options == NULL || option_ptrs == NULL) {
            free(items);
            free(options);
            free(option_ptrs);
            return say(msg, "out of memory"), STEP_FAILED;
        }
        enum step_outcome outcome = STEP_RESULT;
        leaseq_status refused = LEASEQ_OK;
        char refused_message[MESSAGE_SIZE] = "";
        for (const cJSON *entry = entries->child; entry; entry = entry->next) {
            if (make_item(entry, res, &items[made], &options[made], msg) != 0) {
                outcome = STEP_FAILED;
                break;
            }
            if (res->status != LEASEQ_OK) {
                /* As the Rust runner: an item refused while building the batch is the step's
                 * result (its error), and nothing is added. */
                if (refused == LEASEQ_OK) {
                    refused = res->status;
                    snprintf(refused_message, sizeof refused_message, "%s", res->message);
                }
                continue;
            }
            option_ptrs[made] = &options[made];
            made++;
        }
        if (outcome == STEP_RESULT && refused != LEASEQ_OK) {
            res->status = refused;
            snprintf(res->message, MESSAGE_SIZE, "%s", refused_message);
        } else if (outcome == STEP_RESULT) {
            size_t added = 0;
            if (called(res, leaseq_queue_add_batch_with_options(
                                q, (const leaseq_item *const *)items, option_ptrs, made,
                                &added))) {
                res->value = cJSON_CreateNumber((double)added);
            }
        }
        for (size_t i = 0; i < made; i++) leaseq_item_free(items[i]);
        free(items);
        free(options);
        free(option_ptrs);
        return outcome;
    }
    if (strcmp(op, "lease") == 0) {
        int64_t ttl, timeout = timeout_of(step);
        if (!ms_field(step, "ttl_ms", &ttl, msg)) return STEP_FAILED;
        leaseq_lease *lease = NULL;
        if (called(res, leaseq_queue_lease(q, ttl, timeout, &lease))) {
            res->value = lease_json(lease);
            keep(r, step, lease);
        }
        return STEP_RESULT;
    }
    if (strcmp(op, "lease_batch") == 0) {
        int64_t ttl;
        uint64_t n;
        if (!u64_field(step, "n", &n)) return say(msg, "lease_batch needs `n`"), STEP_FAILED;
        if (!ms_field(step, "ttl_ms", &ttl, msg)) return STEP_FAILED;
        leaseq_lease_options options = LEASEQ_LEASE_OPTIONS_INIT;
        options.ttl_ms = ttl;
        options.timeout_ms = timeout_of(step);
        options.set = LEASEQ_LEASE_TTL | LEASEQ_LEASE_TIMEOUT;
        leaseq_lease **leases = NULL;
        size_t len = 0;
        if (called(res, leaseq_queue_lease_batch(q, (size_t)n, &options, &leases, &len))) {
            const cJSON *names = cJSON_GetObjectItemCaseSensitive(step, "as");
            res->value = cJSON_CreateArray();
            for (size_t i = 0; i < len; i++) {
                cJSON_AddItemToArray(res->value, lease_json(leases[i]));
                const cJSON *name = cJSON_IsArray(names) ? cJSON_GetArrayItem(names, (int)i) : NULL;
                if (cJSON_IsString(name)) {
                    keep_as(r, name->valuestring, leases[i]);
                    leases[i] = NULL; /* kept: the array free skips it */
                }
            }
        }
        leaseq_lease_array_free(leases, len);
        return STEP_RESULT;
    }
    if (strcmp(op, "complete") == 0) {
        const leaseq_lease *lease = lease_named(r, step, msg);
        if (lease == NULL) return STEP_FAILED;
        bool completed = false;
        const cJSON *result = cJSON_GetObjectItemCaseSensitive(step, "result");
        if (result != NULL) {
            struct bytes data;
            int64_t keep = -1;
            if (int_field(step, "keep_result_ms", &keep, msg) < 0) return STEP_FAILED;
            if (data_bytes(result, &data, msg) != 0) return STEP_FAILED;
            if (called(res, leaseq_queue_complete_with_result(q, lease, data.data, data.len, keep,
                                                              &completed)))
                res->value = cJSON_CreateBool(completed);
            free(data.data);
        } else if (called(res, leaseq_queue_complete(q, lease, &completed))) {
            res->value = cJSON_CreateBool(completed);
        }
        return STEP_RESULT;
    }
    if (strcmp(op, "renew_outcome") == 0) {
        const leaseq_lease *lease = lease_named(r, step, msg);
        int64_t ttl;
        if (lease == NULL || !ms_field(step, "ttl_ms", &ttl, msg)) return STEP_FAILED;
        leaseq_renew_outcome outcome = -1;
        if (called(res, leaseq_queue_renew_outcome(q, lease, ttl, &outcome)))
            res->value = cJSON_CreateString(leaseq_renew_outcome_str(outcome));
        return STEP_RESULT;
    }
    if (strcmp(op, "fail") == 0) {
        const leaseq_lease *lease = lease_named(r, step, msg);
        const char *error = lease ? str_field(step, "error", msg) : NULL;
        if (error == NULL) return STEP_FAILED;
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(step, "error_type");
        const cJSON *retry_json = cJSON_GetObjectItemCaseSensitive(step, "retry");
        leaseq_retry retry = LEASEQ_RETRY_DEFAULT;
        int64_t after = 0;
        if (cJSON_IsString(retry_json) && strcmp(retry_json->valuestring, "never") == 0) {
            retry = LEASEQ_RETRY_NEVER;
        } else if (cJSON_IsObject(retry_json)) {
            if (int_field(retry_json, "after_ms", &after, msg) <= 0)
                return say(msg, "retry must be default, never or {after_ms}"), STEP_FAILED;
            retry = LEASEQ_RETRY_AFTER;
        } else if (retry_json != NULL && !cJSON_IsNull(retry_json) &&
                   !(cJSON_IsString(retry_json) && strcmp(retry_json->valuestring, "default") == 0)) {
            return say(msg, "retry must be default, never or {after_ms}"), STEP_FAILED;
        }
        const cJSON *trace = cJSON_GetObjectItemCaseSensitive(step, "trace");
        leaseq_fail_outcome outcome = -1;
        leaseq_renew_outcome why = -1;
        int64_t retry_in = 0;
        const char *kind = cJSON_IsString(type) ? type->valuestring : "";
        leaseq_status status =
            cJSON_IsString(trace)
                ? leaseq_queue_fail_with_trace(q, lease, error, kind, trace->valuestring, retry,
                                               after, &outcome, &why, &retry_in)
                : leaseq_queue_fail(q, lease, error, kind, retry, after, &outcome, &why,
                                    &retry_in);
        if (called(res, status)) {
            res->value = cJSON_CreateString(outcome == LEASEQ_FAIL_RETRYING ? "retrying"
                                            : outcome == LEASEQ_FAIL_DEAD
                                                ? "dead"
                                                : leaseq_renew_outcome_str(why));
        }
        return STEP_RESULT;
    }
    if (strcmp(op, "release") == 0) {
        const leaseq_lease *lease = lease_named(r, step, msg);
        int64_t delay = 0;
        if (lease == NULL || int_field(step, "delay_ms", &delay, msg) < 0) return STEP_FAILED;
        bool released = false;
        if (called(res, leaseq_queue_release(q, lease, delay, &released)))
            res->value = cJSON_CreateBool(released);
        return STEP_RESULT;
    }
    if (strcmp(op, "progress") == 0) {
        const leaseq_lease *lease = lease_named(r, step, msg);
        struct bytes value;
        if (lease == NULL ||
            data_bytes(cJSON_GetObjectItemCaseSensitive(step, "value"), &value, msg) != 0)
            return STEP_FAILED;
        bool stored = false;
        if (called(res, leaseq_queue_progress(q, lease, value.data, value.len, &stored)))
            res->value = cJSON_CreateBool(stored);
        free(value.data);
        return STEP_RESULT;
    }
    if (strcmp(op, "result") == 0) {
        const char *id = str_field(step, "id", msg);
        if (id == NULL) return STEP_FAILED;
        leaseq_result *result = NULL;
        if (called(res, leaseq_queue_result(q, id, &result))) {
            const uint8_t *data = NULL;
            size_t len = 0;
            uint64_t attempts = 0;
            if (result == NULL) {
                res->value = cJSON_CreateNull();
            } else if (leaseq_result_data(result, &data, &len) == LEASEQ_OK &&
                       leaseq_result_attempts(result, &attempts) == LEASEQ_OK) {
                res->value = cJSON_CreateObject();
                cJSON_AddItemToObject(res->value, "data", data_json(data, len));
                cJSON_AddNumberToObject(res->value, "attempts", (double)attempts);
            } else {
                res->value = cJSON_CreateString("(the result could not be read)");
            }
        }
        leaseq_result_free(result);
        return STEP_RESULT;
    }
    if (strcmp(op, "get") == 0) {
        const char *id = str_field(step, "id", msg);
        if (id == NULL) return STEP_FAILED;
        leaseq_job *job = NULL;
        if (called(res, leaseq_queue_get(q, id, &job))) res->value = job_json(job);
        leaseq_job_free(job);
        return STEP_RESULT;
    }
    if (strcmp(op, "list") == 0 || strcmp(op, "count") == 0) {
        const char *state = str_field(step, "state", msg);
        if (state == NULL) return STEP_FAILED;
        if (op[0] == 'c') {
            uint64_t count = 0;
            if (called(res, leaseq_queue_count(q, state_value(state), &count)))
                res->value = cJSON_CreateNumber((double)count);
            return STEP_RESULT;
        }
        uint64_t start = 0, count = 100;
        (void)u64_field(step, "start", &start);
        (void)u64_field(step, "count", &count);
        leaseq_entry_list *list = NULL;
        if (called(res, leaseq_queue_list(q, state_value(state), (size_t)start, (size_t)count,
                                          &list)))
            res->value = entries_json(list);
        leaseq_entry_list_free(list);
        return STEP_RESULT;
    }
    if (strcmp(op, "find") == 0) {
        const char *state = str_field(step, "state", msg);
        if (state == NULL) return STEP_FAILED;
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(step, "name");
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(step, "error_type");
        uint64_t start = 0, count = 100;
        (void)u64_field(step, "start", &start);
        (void)u64_field(step, "count", &count);
        leaseq_entry_list *list = NULL;
        int64_t next = -1;
        size_t examined = 0;
        if (called(res, leaseq_queue_find(q, state_value(state),
                                          cJSON_IsString(name) ? name->valuestring : NULL,
                                          cJSON_IsString(kind) ? kind->valuestring : NULL,
                                          (size_t)start, (size_t)count, &list, &next, &examined))) {
            cJSON *found = cJSON_CreateObject();
            cJSON *entries = entries_json(list);
            cJSON *ids = cJSON_CreateArray();
            for (const cJSON *e = entries->child; e; e = e->next) {
                const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
                cJSON_AddItemToArray(ids, id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
            }
            cJSON_Delete(entries);
            cJSON_AddItemToObject(found, "ids", ids);
            cJSON_AddItemToObject(found, "next",
                                  next < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)next));
            cJSON_AddNumberToObject(found, "examined", (double)examined);
            res->value = found;
        }
        leaseq_entry_list_free(list);
        return STEP_RESULT;
    }
    if (strcmp(op, "promote") == 0) {
        const char *id = str_field(step, "id", msg);
        if (id == NULL) return STEP_FAILED;
        bool promoted = false;
        if (called(res, leaseq_queue_promote(q, id, &promoted)))
            res->value = cJSON_CreateBool(promoted);
        return STEP_RESULT;
    }
    if (strcmp(op, "cancel") == 0) {
        const char *id = str_field(step, "id", msg);
        if (id == NULL) return STEP_FAILED;
        leaseq_state previous = LEASEQ_STATE_WAITING;
        if (called(res, leaseq_queue_cancel(q, id, &previous)))
            res->value = previous == LEASEQ_STATE_NONE
                             ? cJSON_CreateNull()
                             : cJSON_CreateString(leaseq_state_str(previous));
        return STEP_RESULT;
    }
    if (strcmp(op, "add_flow") == 0) {
        const cJSON *parent_json = cJSON_GetObjectItemCaseSensitive(step, "parent");
        const cJSON *kids = cJSON_GetObjectItemCaseSensitive(step, "children");
        if (!cJSON_IsObject(parent_json) || !cJSON_IsArray(kids))
            return say(msg, "add_flow needs `parent` and `children`"), STEP_FAILED;
        size_t cap = flow_size(kids), len = 0;
        leaseq_flow_child *children = calloc(cap ? cap : 1, sizeof *children);
        leaseq_add_options *options = calloc(cap + 1, sizeof *options);
        if (children == NULL || options == NULL) {
            free(children);
            free(options);
            return say(msg, "out of memory"), STEP_FAILED;
        }
        enum step_outcome outcome = STEP_RESULT;
        struct result refused = {0};
        leaseq_item *parent = NULL;
        if (make_item(parent_json, res, &parent, &options[cap], msg) != 0) {
            outcome = STEP_FAILED;
        } else {
            if (res->status != LEASEQ_OK) refused = *res;
            for (const cJSON *kid = kids->child; kid && outcome == STEP_RESULT; kid = kid->next) {
                if (flatten_flow(kid, LEASEQ_FLOW_ROOT, children, options, &len, &refused, msg))
                    outcome = STEP_FAILED;
            }
        }
        if (outcome == STEP_RESULT && refused.status != LEASEQ_OK) {
            /* As the Rust runner: an item refused while building the flow is the result. */
            res->status = refused.status;
            snprintf(res->message, MESSAGE_SIZE, "%s", refused.message);
        } else if (outcome == STEP_RESULT) {
            size_t added = 0;
            if (called(res, leaseq_queue_add_flow(q, parent, &options[cap], children, len,
                                                  &added)))
                res->value = cJSON_CreateNumber((double)added);
        }
        leaseq_item_free(parent);
        for (size_t i = 0; i < len; i++) leaseq_item_free((leaseq_item *)children[i].item);
        free(children);
        free(options);
        return outcome;
    }
    if (strcmp(op, "dependencies") == 0) {
        const char *id = str_field(step, "id", msg);
        if (id == NULL) return STEP_FAILED;
        leaseq_dependencies *deps = NULL;
        if (called(res, leaseq_queue_dependencies(q, id, &deps))) {
            cJSON *json = cJSON_CreateObject();
            cJSON_AddItemToObject(json, "depends_on",
                                  strings_json(deps->depends_on, deps->depends_on_len));
            const char **pending = calloc(deps->pending_len + 1, sizeof *pending);
            if (pending != NULL) {
                for (size_t i = 0; i < deps->pending_len; i++) pending[i] = deps->pending[i];
                qsort(pending, deps->pending_len, sizeof *pending, compare_strings);
                cJSON_AddItemToObject(json, "pending", strings_json(pending, deps->pending_len));
                free(pending);
            }
            cJSON_AddNumberToObject(json, "dependants", (double)deps->dependants_count);
            leaseq_on_dependency_failure p = deps->on_dependency_failure;
            cJSON_AddItemToObject(json, "on_dependency_failure",
                                  p == LEASEQ_ON_DEPENDENCY_FAILURE_FAIL ? cJSON_CreateString("fail")
                                  : p == LEASEQ_ON_DEPENDENCY_FAILURE_RUN ? cJSON_CreateString("run")
                                                                           : cJSON_CreateNull());
            res->value = json;
        }
        leaseq_dependencies_free(deps);
        return STEP_RESULT;
    }
    if (strcmp(op, "dependency_results") == 0) {
        const char *id = str_field(step, "id", msg);
        if (id == NULL) return STEP_FAILED;
        leaseq_dependency_results *results = NULL;
        if (called(res, leaseq_queue_dependency_results(q, id, &results))) {
            cJSON *json = cJSON_CreateArray();
            for (size_t i = 0; i < results->results_len; i++) {
                const leaseq_dependency_result *r = &results->results[i];
                cJSON *pair = cJSON_CreateArray();
                cJSON_AddItemToArray(pair, cJSON_CreateString(r->id));
                cJSON_AddItemToArray(pair, r->has_result ? data_json(r->result, r->result_len)
                                                         : cJSON_CreateNull());
                cJSON_AddItemToArray(json, pair);
            }
            res->value = json;
        }
        leaseq_dependency_results_free(results);
        return STEP_RESULT;
    }
    if (strcmp(op, "upsert_schedule") == 0) {
        const char *name = str_field(step, "name", msg);
        if (name == NULL) return STEP_FAILED;
        leaseq_schedule schedule = LEASEQ_SCHEDULE_INIT;
        const cJSON *cron = cJSON_GetObjectItemCaseSensitive(step, "cron");
        uint64_t every;
        if (cJSON_IsString(cron)) {
            schedule.cron = cron->valuestring;
            schedule.set |= LEASEQ_SCHEDULE_CRON;
        } else if (u64_field(step, "every_ms", &every)) {
            schedule.every_ms = every > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)every;
            schedule.set |= LEASEQ_SCHEDULE_EVERY;
        } else {
            return say(msg, "upsert_schedule needs `cron` or `every_ms`"), STEP_FAILED;
        }
        const cJSON *tz = cJSON_GetObjectItemCaseSensitive(step, "tz");
        if (cJSON_IsString(tz)) schedule.tz = tz->valuestring, schedule.set |= LEASEQ_SCHEDULE_TZ;
        const cJSON *missed = cJSON_GetObjectItemCaseSensitive(step, "missed");
        if (cJSON_IsString(missed)) {
            const char *m = missed->valuestring;
            char *end = NULL;
            schedule.set |= LEASEQ_SCHEDULE_MISSED;
            if (strcmp(m, "skip") == 0) {
                schedule.missed = LEASEQ_MISSED_SKIP;
            } else if (strcmp(m, "once") == 0) {
                schedule.missed = LEASEQ_MISSED_ONCE;
            } else if (strncmp(m, "all:", 4) == 0 && m[4] != '\0' &&
                       (schedule.missed_all = (uint32_t)strtoul(m + 4, &end, 10), *end == '\0')) {
                schedule.missed = LEASEQ_MISSED_ALL;
            } else {
                schedule.missed = 1000; /* refused by the library, naming `missed` */
            }
        }
        /* The item: the step's data and options, `item_name` its name (`name` is the
         * schedule's). */
        leaseq_add_options options;
        if (item_options(step, &options, msg) != 0) return STEP_FAILED;
        options.set &= ~LEASEQ_ADD_NAME;
        options.name = NULL;
        const cJSON *item_name = cJSON_GetObjectItemCaseSensitive(step, "item_name");
        if (cJSON_IsString(item_name))
            options.name = item_name->valuestring, options.set |= LEASEQ_ADD_NAME;
        schedule.item_options = &options;
        schedule.set |= LEASEQ_SCHEDULE_ITEM_OPTIONS;
        struct bytes data = {NULL, 0};
        const cJSON *data_field = cJSON_GetObjectItemCaseSensitive(step, "data");
        if (data_field != NULL && !cJSON_IsNull(data_field) &&
            data_bytes(data_field, &data, msg) != 0)
            return STEP_FAILED;
        schedule.data = data.data;
        schedule.data_len = data.len;
        schedule.set |= LEASEQ_SCHEDULE_DATA;
        bool created = false;
        if (called(res, leaseq_queue_upsert_schedule(q, name, &schedule, &created)))
            res->value = cJSON_CreateBool(created);
        free(data.data);
        return STEP_RESULT;
    }
    if (strcmp(op, "remove_schedule") == 0) {
        const char *name = str_field(step, "name", msg);
        if (name == NULL) return STEP_FAILED;
        bool removed = false;
        if (called(res, leaseq_queue_remove_schedule(q, name, &removed)))
            res->value = cJSON_CreateBool(removed);
        return STEP_RESULT;
    }
    if (strcmp(op, "get_schedule") == 0) {
        const char *name = str_field(step, "name", msg);
        if (name == NULL) return STEP_FAILED;
        leaseq_schedule_info *info = NULL;
        if (called(res, leaseq_queue_get_schedule(q, name, &info)))
            res->value = schedule_json(info);
        leaseq_schedule_info_free(info);
        return STEP_RESULT;
    }
    if (strcmp(op, "schedules") == 0) {
        uint64_t start = 0, count = 100;
        (void)u64_field(step, "start", &start);
        (void)u64_field(step, "count", &count);
        leaseq_schedule_page *page = NULL;
        if (called(res, leaseq_queue_schedules(q, (size_t)start, (size_t)count, &page))) {
            cJSON *json = cJSON_CreateObject();
            cJSON_AddNumberToObject(json, "total", (double)page->total);
            cJSON *names = cJSON_AddArrayToObject(json, "names");
            for (size_t i = 0; i < page->schedules_len; i++)
                cJSON_AddItemToArray(names, cJSON_CreateString(page->schedules[i].name));
            res->value = json;
        }
        leaseq_schedule_page_free(page);
        return STEP_RESULT;
    }
    if (strcmp(op, "fire_due_schedules") == 0) {
        leaseq_fire_report report;
        if (called(res, leaseq_queue_fire_due_schedules(q, &report))) {
            cJSON *json = cJSON_CreateObject();
            cJSON_AddNumberToObject(json, "fired", (double)report.fired);
            cJSON_AddNumberToObject(json, "skipped", (double)report.skipped);
            res->value = json;
        }
        return STEP_RESULT;
    }
    if (strcmp(op, "read_events") == 0) {
        const cJSON *after = cJSON_GetObjectItemCaseSensitive(step, "after");
        leaseq_event_page *page = NULL;
        if (called(res, leaseq_queue_read_events(
                            q, cJSON_IsString(after) ? after->valuestring : "0-0", 1000, &page))) {
            cJSON *json = cJSON_CreateArray();
            for (size_t i = 0; i < page->events_len; i++)
                cJSON_AddItemToArray(json, event_json(&page->events[i]));
            res->value = json;
        }
        leaseq_event_page_free(page);
        return STEP_RESULT;
    }
    if (strcmp(op, "dead_requeue") == 0) {
        const cJSON *ids = cJSON_GetObjectItemCaseSensitive(step, "ids");
        if (!cJSON_IsArray(ids)) return say(msg, "dead_requeue needs `ids`"), STEP_FAILED;
        size_t len = 0;
        const char **list = calloc((size_t)cJSON_GetArraySize(ids) + 1, sizeof *list);
        if (list == NULL) return say(msg, "out of memory"), STEP_FAILED;
        for (const cJSON *id = ids->child; id; id = id->next) {
            if (cJSON_IsString(id)) list[len++] = id->valuestring; /* as the Rust runner */
        }
        uint64_t requeued = 0;
        if (called(res, leaseq_queue_dead_requeue(q, list, len, &requeued)))
            res->value = cJSON_CreateNumber((double)requeued);
        free(list);
        return STEP_RESULT;
    }
    if (strcmp(op, "dead_requeue_each") == 0) {
        const cJSON *ids = cJSON_GetObjectItemCaseSensitive(step, "ids");
        if (!cJSON_IsArray(ids)) return say(msg, "dead_requeue_each needs `ids`"), STEP_FAILED;
        size_t len = 0;
        size_t size = (size_t)cJSON_GetArraySize(ids) + 1;
        const char **list = calloc(size, sizeof *list);
        bool *requeued = calloc(size, sizeof *requeued);
        if (list == NULL || requeued == NULL) {
            free(list);
            free(requeued);
            return say(msg, "out of memory"), STEP_FAILED;
        }
        for (const cJSON *id = ids->child; id; id = id->next) {
            if (cJSON_IsString(id)) list[len++] = id->valuestring; /* as the Rust runner */
        }
        if (called(res, leaseq_queue_dead_requeue_each(q, list, len, requeued))) {
            res->value = cJSON_CreateArray();
            for (size_t i = 0; i < len; i++) cJSON_AddItemToArray(res->value, cJSON_CreateBool(requeued[i]));
        }
        free(list);
        free(requeued);
        return STEP_RESULT;
    }
    if (strcmp(op, "exists") == 0) {
        bool exists = false;
        if (called(res, leaseq_queue_exists(q, &exists))) res->value = cJSON_CreateBool(exists);
        return STEP_RESULT;
    }
    if (strcmp(op, "dead_requeue_oldest") == 0 || strcmp(op, "dead_purge") == 0) {
        uint64_t done = 0;
        leaseq_status status = op[5] == 'r' ? leaseq_queue_dead_requeue_oldest(q, n_or_all(step), &done)
                                            : leaseq_queue_dead_purge(q, n_or_all(step), &done);
        if (called(res, status)) res->value = cJSON_CreateNumber((double)done);
        return STEP_RESULT;
    }
    if (strcmp(op, "set_config") == 0) {
        leaseq_config config = LEASEQ_CONFIG_INIT;
        int64_t v;
        int got;
        if ((got = int_field(step, "max_attempts", &v, msg)) < 0) return STEP_FAILED;
        if (got) config.max_attempts = (uint32_t)v, config.set |= LEASEQ_CONFIG_MAX_ATTEMPTS;
        if ((got = int_field(step, "priority", &v, msg)) < 0) return STEP_FAILED;
        if (got) config.priority = (int32_t)v, config.set |= LEASEQ_CONFIG_PRIORITY;
        if ((got = int_field(step, "expires_after_ms", &v, msg)) < 0) return STEP_FAILED;
        if (got) config.expires_after_ms = v, config.set |= LEASEQ_CONFIG_EXPIRES_AFTER;
        if ((got = int_field(step, "keep_result_ms", &v, msg)) < 0) return STEP_FAILED;
        if (got) config.keep_result_for_ms = v, config.set |= LEASEQ_CONFIG_KEEP_RESULT_FOR;
        if ((got = int_field(step, "dead_max_count", &v, msg)) < 0) return STEP_FAILED;
        if (got) config.dead_max_count = (uint64_t)v, config.set |= LEASEQ_CONFIG_DEAD_MAX_COUNT;
        if ((got = int_field(step, "dead_max_age_ms", &v, msg)) < 0) return STEP_FAILED;
        if (got) config.dead_max_age_ms = v, config.set |= LEASEQ_CONFIG_DEAD_MAX_AGE;
        const cJSON *backoff = cJSON_GetObjectItemCaseSensitive(step, "backoff");
        if (backoff != NULL && !cJSON_IsNull(backoff)) {
            if (backoff_value(backoff, &config.backoff, msg) != 0) return STEP_FAILED;
            config.set |= LEASEQ_CONFIG_BACKOFF;
        }
        const cJSON *counters = cJSON_GetObjectItemCaseSensitive(step, "stats");
        if (cJSON_IsBool(counters)) { /* as the Rust runner: a non-boolean is not given */
            config.stats = cJSON_IsTrue(counters);
            config.set |= LEASEQ_CONFIG_STATS;
        }
        uint64_t capacity;
        if (u64_field(step, "capacity", &capacity)) { /* as the Rust runner's as_u64 */
            config.capacity = capacity;
            config.set |= LEASEQ_CONFIG_CAPACITY;
        }
        uint64_t group_concurrency;
        if (u64_field(step, "group_concurrency", &group_concurrency)) {
            config.group_concurrency = (uint32_t)group_concurrency;
            config.set |= LEASEQ_CONFIG_GROUP_CONCURRENCY;
        }
        const cJSON *events = cJSON_GetObjectItemCaseSensitive(step, "events");
        if (cJSON_IsBool(events)) {
            config.events = cJSON_IsTrue(events);
            config.set |= LEASEQ_CONFIG_EVENTS;
        }
        uint64_t events_max_len;
        if (u64_field(step, "events_max_len", &events_max_len)) {
            config.events_max_len = events_max_len;
            config.set |= LEASEQ_CONFIG_EVENTS_MAX_LEN;
        }
        if (called(res, leaseq_queue_set_config(q, &config))) res->value = cJSON_CreateNull();
        return STEP_RESULT;
    }
    if (strcmp(op, "pause") == 0 || strcmp(op, "resume") == 0 || strcmp(op, "is_paused") == 0) {
        /* pause: whether it was running; resume: whether it was paused; is_paused: whether it is */
        bool flag = false;
        leaseq_status status = op[0] == 'p'   ? leaseq_queue_pause(q, &flag)
                               : op[0] == 'r' ? leaseq_queue_resume(q, &flag)
                                              : leaseq_queue_is_paused(q, &flag);
        if (called(res, status)) res->value = cJSON_CreateBool(flag);
        return STEP_RESULT;
    }
    if (strcmp(op, "pause_group") == 0 || strcmp(op, "resume_group") == 0) {
        /* whether the call changed the group */
        const char *group = str_field(step, "group", msg);
        if (group == NULL) return STEP_FAILED;
        bool flag = false;
        leaseq_status status = op[0] == 'p' ? leaseq_queue_pause_group(q, group, &flag)
                                            : leaseq_queue_resume_group(q, group, &flag);
        if (called(res, status)) res->value = cJSON_CreateBool(flag);
        return STEP_RESULT;
    }
    if (strcmp(op, "set_group_limit") == 0) {
        const char *group = str_field(step, "group", msg);
        if (group == NULL) return STEP_FAILED;
        uint64_t limit;
        /* absent: -1, the group's own limit removed */
        int64_t given = u64_field(step, "limit", &limit) ? (int64_t)limit : -1;
        if (called(res, leaseq_queue_set_group_limit(q, group, given)))
            res->value = cJSON_CreateNull();
        return STEP_RESULT;
    }
    if (strcmp(op, "rate_limit_group") == 0) {
        /* how long the group is held off, in ms */
        const char *group = str_field(step, "group", msg);
        int64_t ms;
        if (group == NULL || !ms_field(step, "ms", &ms, msg)) return STEP_FAILED;
        int64_t held = 0;
        if (called(res, leaseq_queue_rate_limit_group(q, group, ms, &held)))
            res->value = cJSON_CreateNumber((double)held);
        return STEP_RESULT;
    }
    if (strcmp(op, "group") == 0) {
        const char *group = str_field(step, "group", msg);
        if (group == NULL) return STEP_FAILED;
        leaseq_group_info info;
        if (called(res, leaseq_queue_group(q, group, &info))) {
            res->value = cJSON_CreateObject();
            cJSON_AddNumberToObject(res->value, "waiting", (double)info.waiting);
            cJSON_AddNumberToObject(res->value, "leased", (double)info.leased);
            cJSON_AddNumberToObject(res->value, "limit", (double)info.limit);
            cJSON_AddBoolToObject(res->value, "paused", info.paused);
        }
        return STEP_RESULT;
    }
    if (strcmp(op, "stats") == 0) {
        leaseq_stats *stats = NULL;
        if (called(res, leaseq_queue_stats(q, &stats))) {
            uint64_t waiting = 0, delayed = 0, leased = 0, dead = 0;
            bool counting = false;
            leaseq_minute hour;
            if (leaseq_stats_count(stats, LEASEQ_STATE_WAITING, &waiting) == LEASEQ_OK &&
                leaseq_stats_count(stats, LEASEQ_STATE_DELAYED, &delayed) == LEASEQ_OK &&
                leaseq_stats_count(stats, LEASEQ_STATE_LEASED, &leased) == LEASEQ_OK &&
                leaseq_stats_count(stats, LEASEQ_STATE_DEAD, &dead) == LEASEQ_OK &&
                leaseq_stats_counting(stats, &counting) == LEASEQ_OK &&
                leaseq_stats_last_hour(stats, &hour) == LEASEQ_OK) {
                res->value = cJSON_CreateObject();
                cJSON_AddNumberToObject(res->value, "waiting", (double)waiting);
                cJSON_AddNumberToObject(res->value, "delayed", (double)delayed);
                cJSON_AddNumberToObject(res->value, "leased", (double)leased);
                cJSON_AddNumberToObject(res->value, "dead", (double)dead);
                /* null while the queue's counters are off */
                if (counting) {
                    cJSON_AddNumberToObject(res->value, "completed", (double)hour.completed);
                    cJSON_AddNumberToObject(res->value, "failed", (double)hour.failed);
                } else {
                    cJSON_AddNullToObject(res->value, "completed");
                    cJSON_AddNullToObject(res->value, "failed");
                }
            } else {
                res->value = cJSON_CreateString("(the stats could not be read)");
            }
        }
        leaseq_stats_free(stats);
        return STEP_RESULT;
    }
    if (strcmp(op, "counts_by_name") == 0) {
        /* null while the queue's counters are off, else
         * [{"name", "completed", "failed", "dead"}] */
        leaseq_name_counts *counts = NULL;
        if (called(res, leaseq_queue_counts_by_name(q, &counts))) {
            const leaseq_name_count *entries = NULL;
            size_t len = 0;
            if (counts == NULL) {
                res->value = cJSON_CreateNull();
            } else if (leaseq_name_counts_entries(counts, &entries, &len) == LEASEQ_OK) {
                res->value = cJSON_CreateArray();
                for (size_t i = 0; i < len; i++) {
                    cJSON *entry = cJSON_CreateObject();
                    cJSON_AddStringToObject(entry, "name", entries[i].name);
                    cJSON_AddNumberToObject(entry, "completed", (double)entries[i].completed);
                    cJSON_AddNumberToObject(entry, "failed", (double)entries[i].failed);
                    cJSON_AddNumberToObject(entry, "dead", (double)entries[i].dead);
                    cJSON_AddItemToArray(res->value, entry);
                }
            } else {
                res->value = cJSON_CreateString("(the counts by name could not be read)");
            }
        }
        leaseq_name_counts_free(counts);
        return STEP_RESULT;
    }
    if (strcmp(op, "complete_batch") == 0 || strcmp(op, "complete_and_lease_batch") == 0) {
        enum { CAP = 16 };
        leaseq_completion completions[CAP];
        struct bytes kept[CAP];
        bool completed[CAP];
        size_t len = 0;
        bool ok = completions_of(r, step, completions, kept, CAP, &len, msg);
        if (!ok) {
            free_results(kept, len);
            return STEP_FAILED;
        }
        if (strcmp(op, "complete_batch") == 0) {
            if (called(res, leaseq_queue_complete_batch(q, completions, len, completed)))
                res->value = bools_json(completed, len);
            free_results(kept, len);
            return STEP_RESULT;
        }
        int64_t ttl;
        uint64_t n;
        if (!u64_field(step, "n", &n) || !ms_field(step, "ttl_ms", &ttl, msg)) {
            free_results(kept, len);
            return say(msg, "complete_and_lease_batch needs `n` and `ttl_ms`"), STEP_FAILED;
        }
        leaseq_lease **leases = NULL;
        size_t leased = 0;
        if (called(res, leaseq_queue_complete_and_lease_batch(q, completions, len, (size_t)n, ttl,
                                                              completed, &leases, &leased))) {
            const cJSON *names = cJSON_GetObjectItemCaseSensitive(step, "as");
            res->value = cJSON_CreateObject();
            cJSON_AddItemToObject(res->value, "completed", bools_json(completed, len));
            cJSON *list = cJSON_AddArrayToObject(res->value, "leases");
            for (size_t i = 0; i < leased; i++) {
                cJSON_AddItemToArray(list, lease_json(leases[i]));
                const cJSON *name = cJSON_IsArray(names) ? cJSON_GetArrayItem(names, (int)i) : NULL;
                if (cJSON_IsString(name)) {
                    keep_as(r, name->valuestring, leases[i]);
                    leases[i] = NULL; /* kept: the array free skips it */
                }
            }
        }
        leaseq_lease_array_free(leases, leased);
        free_results(kept, len);
        return STEP_RESULT;
    }
    if (strcmp(op, "complete_and_lease") == 0) {
        const leaseq_lease *lease = lease_named(r, step, msg);
        int64_t ttl;
        if (lease == NULL || !ms_field(step, "ttl_ms", &ttl, msg)) return STEP_FAILED;
        bool completed = false;
        leaseq_lease *next = NULL;
        const cJSON *result = cJSON_GetObjectItemCaseSensitive(step, "result");
        leaseq_status status;
        if (result != NULL) {
            struct bytes data;
            int64_t keep = -1;
            if (int_field(step, "keep_result_ms", &keep, msg) < 0) return STEP_FAILED;
            if (data_bytes(result, &data, msg) != 0) return STEP_FAILED;
            status = leaseq_queue_complete_and_lease_with_result(q, lease, data.data, data.len, keep,
                                                                 ttl, &completed, &next);
            free(data.data);
        } else {
            status = leaseq_queue_complete_and_lease(q, lease, ttl, &completed, &next);
        }
        if (called(res, status)) {
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
        leaseq_clean_report report = {0, 0, 0, 0};
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
        arena_reset();
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
            } else {
                /* `expect_error_names`: the error's message names this argument or key. */
                const cJSON *name = cJSON_GetObjectItemCaseSensitive(step, "expect_error_names");
                if (cJSON_IsString(name) && strstr(res.message, name->valuestring) == NULL) {
                    say(msg, "step %d (%s): expected an error naming `%s`, got error %s: %s",
                        index, op, name->valuestring, leaseq_status_str(res.status),
                        res.message);
                    rc = -1;
                }
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
            version->valuedouble != 2 || !cJSON_IsArray(cases) || has_nul_escape(text)) {
            /* A file that cannot be run counts as a failure, never as nothing. */
            printf("c: %s: %s\n", files[f],
                   text == NULL            ? "cannot read the file"
                   : doc == NULL           ? "not valid JSON"
                   : has_nul_escape(text)  ? "a string holds \\u0000, which this runner cannot "
                                             "pass through cJSON: write such bytes as {\"hex\": ...}"
                                           : "needs {\"version\": 2, \"cases\": [...]}");
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
    leaseq_runtime_shutdown(); /* so that valgrind sees no live runtime thread */

    if (ran != cases_in_files || cases_in_files < 40) {
        printf("c: ran %d cases of %d in %s (at least 40 expected)\n", ran,
               cases_in_files, dir_path);
        failed++;
    }
    printf("c vectors: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
