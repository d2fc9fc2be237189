#!/usr/bin/env bash
# The C tests of leaseq, self-sufficient from a fresh clone on Debian:
#   - installs what is missing (gcc, make, pkg-config, valgrind, libcjson-dev, python3,
#     redis-server);
#   - builds libleaseq (debug profile), the Rust add_item example and the shared redis launcher;
#   - checks that the committed include/leaseq.h is what cbindgen generates now, and that it
#     declares every operation of the core's table with its arguments (tests/parity.rs);
#   - installs under a temporary PREFIX and checks leaseq.pc;
#   - compiles tests/*.c with -Wall -Wextra -Werror -std=c11 against the committed header and
#     runs them plain, under AddressSanitizer (+UBSan) and under valgrind, on a throwaway
#     redis-server (and a throwaway Redis Cluster for tests/test_cluster.c and
#     tests/test_partitioned.c);
#   - runs the conformance vectors (spec/vectors) through tests/vectors.c, plain, under
#     AddressSanitizer and under valgrind;
#   - builds examples/soak_worker.c into target/debug/soak-worker-c (the soak's C worker) and
#     checks that it produces and works as integration-tests/soak/README.md says;
#   - builds and runs examples/worker.c, and every other examples/*.c (the documentation's C
#     samples) with the pkg-config line of docs/guide/c.md;
# and prints `c: N passed, M failed` last. Exits non-zero on any failure.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
cd "$root"
CARGO=${CARGO:-cargo}
target_dir=${CARGO_TARGET_DIR:-$root/target}
built="$target_dir/debug"
launcher=${LEASEQ_TEST_REDIS:-$built/leaseq-test-redis}
strict=(-Wall -Wextra -Werror -std=c11 -g)
sanitize=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
# A forked child (tests/test_threads.c) abandons the parent's runtime by design: it is checked
# under ASan; under valgrind only the parent is.
# valgrind.supp (installed for users too): Rust's handle of a host thread, which lives as long
# as the thread.
valgrind_cmd=(valgrind --quiet --error-exitcode=1 --leak-check=full --child-silent-after-fork=yes
              --suppressions="$here/valgrind.supp"
              --errors-for-leak-kinds=definite,possible --show-leak-kinds=definite,possible)

passed=0
failed=0
work="$(mktemp -d "${TMPDIR:-/tmp}/leaseq-c-test.XXXXXX")"
launcher_pids=()

cleanup() {
    { exec 7>&- 8>&-; } 2>/dev/null
    # Closing the launchers' stdin stops their servers; give them a moment to do it.
    for pid in "${launcher_pids[@]}"; do
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
    rm -rf "$work"
}
trap cleanup EXIT

pass() { passed=$((passed + 1)); echo "ok - $*"; }
fail() { failed=$((failed + 1)); echo "not ok - $*"; }
finish() {
    echo "c: $passed passed, $failed failed"
    if [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]; then exit 0; fi
    exit 1
}
show() { sed 's/^/    | /' "$1" | tail -n "${2:-60}"; }

# step NAME COMMAND...: one check; the command's output is shown only when it fails.
step() {
    local name=$1 log="$work/step.log"
    shift
    if "$@" >"$log" 2>&1; then pass "$name"; return 0; fi
    fail "$name"
    show "$log"
    return 1
}

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# ---- what the tests need -------------------------------------------------------------------
missing=()
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
command -v timeout >/dev/null 2>&1 || missing+=(coreutils)
# python3 counts the conformance vectors' cases.
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# cJSON parses the conformance vectors in tests/vectors.c.
[ -f /usr/include/cjson/cJSON.h ] && ls /usr/lib/*/libcjson.so /usr/lib/libcjson.so >/dev/null 2>&1 ||
    missing+=(libcjson-dev)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "test.sh: installing ${missing[*]} from Debian's packages" >&2
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
step "redis-server is installed" "$root/scripts/ensure-deps.sh" || finish

# ---- build ---------------------------------------------------------------------------------
step "cargo builds libleaseq, the add_item example and the redis launcher" \
    "$CARGO" build -p leaseq-ffi -p leaseq-harness --lib --examples --bins || finish
[ -x "$launcher" ] || launcher="$built/leaseq-test-redis"
step "include/leaseq.h is what cbindgen generates from the sources" \
    env -u LEASEQ_BLESS "$CARGO" test -q -p leaseq-ffi --lib committed_header_is_current
step "Rust unit tests of the C layer (panic guard, status names)" \
    "$CARGO" test -q -p leaseq-ffi --lib -- --skip committed_header_is_current
step "leaseq.h declares every operation of the core's table, with its arguments (tests/parity.rs)" \
    "$CARGO" test -q -p leaseq-ffi --test parity
step "leaseq.h compiles alone as C11 with -pedantic" \
    gcc "${strict[@]}" -pedantic -fsyntax-only -I"$here/include" -x c - <<<'#include "leaseq.h"'
if command -v g++ >/dev/null 2>&1; then
    step "leaseq.h compiles alone as C++11" \
        g++ -Wall -Wextra -Werror -std=c++11 -fsyntax-only -I"$here/include" -x c++ - \
        <<<'#include "leaseq.h"'
fi

# ---- install under a PREFIX ----------------------------------------------------------------
prefix="$work/prefix"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
step "make -C ffi-c install PREFIX=... puts library, header, leaseq.pc and valgrind.supp in place" \
    make -s -C "$here" install PREFIX="$prefix" PROFILE=debug
step "pkg-config finds leaseq in the PREFIX" \
    bash -c '[ "$(pkg-config --modversion leaseq)" != "" ] &&
             pkg-config --cflags leaseq | grep -q -- "-I'"$prefix"'/include" &&
             [ -f "'"$prefix"'/lib/libleaseq.so" ] && [ -f "'"$prefix"'/lib/libleaseq.a" ] &&
             cmp -s "'"$here"'/include/leaseq.h" "'"$prefix"'/include/leaseq.h" &&
             cmp -s "'"$here"'/valgrind.supp" "$(pkg-config --variable=datadir leaseq)/leaseq/valgrind.supp"'

# ---- servers ----------------------------------------------------------------------------------
# The launcher prints {"url": ..., "urls": [...]} and stops its servers when its stdin closes.
wait_for_url() {
    for _ in $(seq 1 600); do
        grep -q '"url"' "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
exec 7> >(exec "$launcher" >"$work/redis.json" 2>"$work/redis.log")
launcher_pids+=($!)
exec 8> >(exec "$launcher" --cluster >"$work/cluster.json" 2>"$work/cluster.log")
launcher_pids+=($!)
if ! wait_for_url "$work/redis.json"; then
    fail "the redis launcher prints a URL"
    show "$work/redis.log"
    finish
fi
url="$(grep -o 'redis://[^"]*' "$work/redis.json" | head -n 1)"
cluster_urls=""
if wait_for_url "$work/cluster.json"; then
    cluster_urls="$(grep -o 'redis://[^"]*' "$work/cluster.json" | awk '!seen[$0]++' | tr '\n' ' ')"
else
    fail "the redis launcher starts a cluster"
    show "$work/cluster.log"
fi
export LEASEQ_TEST_URL="$url"
export LEASEQ_TEST_REDIS="$launcher"
export LEASEQ_TEST_CLUSTER_URLS="$cluster_urls"
export LEASEQ_ERRORS_MD="$root/spec/errors.md"
export LEASEQ_ADD_ITEM="$built/examples/add_item"

# ---- C tests: plain, AddressSanitizer, valgrind -------------------------------------------------
# run_tap LABEL COMMAND...: counts each TAP line of the test program as one check, plus one
# failure if it crashed, exited non-zero or ran fewer cases than it planned.
run_tap() {
    local label=$1 out="$work/tap.out" err="$work/tap.err" rc
    shift
    timeout 300 "$@" >"$out" 2>"$err"
    rc=$?
    local ok bad plan
    ok=$(grep -c '^ok ' "$out")
    bad=$(grep -c '^not ok ' "$out")
    plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$out" | head -n 1)
    while IFS= read -r line; do
        case "$line" in
            "ok "*) pass "$label: ${line#* - }" ;;
            "not ok "*) fail "$label: ${line#* - }" ;;
        esac
    done <"$out"
    if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then fail "$label: exited with status $rc"; fi
    if [ "${plan:-0}" -ne $((ok + bad)) ] || [ -z "$plan" ]; then
        fail "$label: ran $((ok + bad)) of ${plan:-?} cases"
    fi
    if [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ]; then show "$err" 80; fi
}

link=(-L"$built" -lleaseq -Wl,-rpath,"$built" -pthread)
tests=()
for source in "$here"/tests/test_*.c; do
    name="$(basename "$source" .c)"
    # These two need the cluster (test_partitioned.c the plain server as well).
    case "$name" in test_cluster | test_partitioned) [ -n "$cluster_urls" ] || continue ;; esac
    step "$name.c compiles with ${strict[*]}" \
        gcc "${strict[@]}" -I"$here/include" "$source" -o "$work/$name" "${link[@]}" &&
    step "$name.c compiles with AddressSanitizer and UBSan" \
        gcc "${strict[@]}" "${sanitize[@]}" -I"$here/include" "$source" -o "$work/$name.asan" \
        "${link[@]}" &&
    tests+=("$name")
done

for name in "${tests[@]}"; do
    run_tap "plain" "$work/$name"
done
for name in "${tests[@]}"; do
    ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        run_tap "asan" "$work/$name.asan"
done
for name in "${tests[@]}"; do
    LEASEQ_TEST_VALGRIND=1 run_tap "valgrind" "${valgrind_cmd[@]}" "$work/$name"
done

# The static library, linked as docs/guide/c.md says, runs the thread tests.
native_libs="$(pkg-config --static --libs-only-l leaseq | sed 's/-lleaseq//')"
# shellcheck disable=SC2086
if step "test_threads.c links statically against libleaseq.a" \
    gcc "${strict[@]}" $(pkg-config --cflags leaseq) "$here/tests/test_threads.c" \
    -o "$work/test_threads.static" "$prefix/lib/libleaseq.a" $native_libs -pthread; then
    run_tap "static" "$work/test_threads.static"
fi

# ---- conformance vectors (spec/vectors) ---------------------------------------------------------
# tests/vectors.c runs every case through the C API, and the Redis-side steps through the
# harness's leaseq-vector-tool. Every case starts with FLUSHALL: nothing else uses the server now.
vector_tool="$built/leaseq-vector-tool"
vectors_dir="$root/spec/vectors"
# An independent count of the cases, so that a runner that stops early cannot pass.
# (Python reads the files: a step's own `name` field, find's filter, is no case.)
vector_cases="$(python3 -c 'import glob, json, sys
print(sum(len(json.load(open(f, encoding="utf-8"))["cases"]) for f in glob.glob(sys.argv[1] + "/*.json")))' "$vectors_dir")"
vectors_link=("${link[@]}" -lcjson -lm)

# run_vectors LABEL COMMAND...: one check; the runner's failures and closing line are shown.
run_vectors() {
    local label=$1 out="$work/vectors.out" rc last
    shift
    timeout 300 "$@" "$url" "$vector_tool" "$vectors_dir" >"$out" 2>&1
    rc=$?
    last="$(tail -n 1 "$out")"
    if [ "$rc" -eq 0 ] && [ "$last" = "c vectors: $vector_cases passed, 0 failed" ]; then
        pass "$label: every conformance vector ($last)"
    else
        fail "$label: conformance vectors (exit $rc; $vector_cases cases in spec/vectors)"
        show "$out" 80
    fi
}

if step "tests/vectors.c compiles with ${strict[*]}" \
    gcc "${strict[@]}" -I"$here/include" "$here/tests/vectors.c" -o "$work/vectors" \
    "${vectors_link[@]}"; then
    run_vectors "plain" "$work/vectors"
    run_vectors "valgrind" "${valgrind_cmd[@]}" "$work/vectors"
fi
if step "tests/vectors.c compiles with AddressSanitizer and UBSan" \
    gcc "${strict[@]}" "${sanitize[@]}" -I"$here/include" "$here/tests/vectors.c" \
    -o "$work/vectors.asan" "${vectors_link[@]}"; then
    ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        run_vectors "asan" "$work/vectors.asan"
fi

# ---- examples/soak_worker.c: the mixed-language soak's C worker -------------------------------
soak_worker="$built/soak-worker-c"
soak_worker_built=0
step "make -C ffi-c soak-worker builds examples/soak_worker.c into target/debug/soak-worker-c" \
    make -s -C "$here" soak-worker CARGO="$CARGO" TARGET_DIR="$target_dir" && soak_worker_built=1

# The soak's contract (integration-tests/soak/README.md), without the soak: the producer's ids,
# data and queues exactly; then a worker, with no cleaner, until every item is either won
# (recorded once) or still held by a dropped lease; its records all say "c".
soak_worker_contract() {
    local qa="c-soak-a-$$" qb="c-soak-b-$$" results="c-soak-results-$$" n want_a="" want_b=""
    local -x LEASEQ_SOAK_QUEUES="$qa,$qb" LEASEQ_SOAK_RESULTS="$results"
    "$soak_worker" "$url" c produce 0 120 || return 1
    for n in $(seq 0 119); do
        if [ $((n % 2)) -eq 0 ]; then want_a+="${want_a:+,}\"c-$n\":\"{\\\"n\\\":$n}\""
        else want_b+="${want_b:+,}\"c-$n\":\"{\\\"n\\\":$n}\""; fi
    done
    "$vector_tool" check "$url" "$qa" "{\"items\": {$want_a}, \"processing\": []}" &&
        "$vector_tool" check "$url" "$qb" "{\"items\": {$want_b}, \"processing\": []}" ||
        return 1
    echo "produce: 60 items in each queue, ids and data as the README says"

    "$soak_worker" "$url" c work 2>"$work/soak-worker.err" &
    local pid=$! settled=0 wins=0 held=0 dead=0 q
    # Settled: both queues empty, and each item won, held (a dropped lease not yet recovered),
    # or dead (failed for good: 1% of leases).
    for _ in $(seq 1 600); do
        wins=$("$vector_tool" state "$url" "$results" | grep -o '"win|[^"]*":' | wc -l)
        held=0
        dead=0
        for q in "$qa" "$qb"; do
            "$vector_tool" state "$url" "$q" >"$work/soak-state.json" || return 1
            grep -q '"queue":\[\]' "$work/soak-state.json" || held=-1
            [ "$held" -lt 0 ] ||
                held=$((held + $(grep -o '"c-[0-9]*":"' "$work/soak-state.json" | wc -l)))
            dead=$((dead + $(grep -o '"dead":\[[^]]*\]' "$work/soak-state.json" |
                grep -o '"c-[0-9]*"' | wc -l)))
        done
        if [ "$held" -ge 0 ] && [ $((wins + held + dead)) -eq 120 ]; then settled=1; break; fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "the worker exited by itself:"; cat "$work/soak-worker.err"; return 1
    fi
    kill -KILL "$pid"; wait "$pid" 2>/dev/null
    echo "work: $wins items won, $held still held by dropped leases, $dead dead"
    [ "$settled" -eq 1 ] || { echo "never settled"; return 1; }
    "$vector_tool" state "$url" "$results" >"$work/soak-results.json" || return 1
    local records wins_ids execs
    records=$(grep -o '"\(win\|exec\|viol\)|[^"]*":"[^"]*"' "$work/soak-results.json")
    wins_ids=$(grep -o '^"win|[^|]*|[^|]*|' <<<"$records" | sort)
    execs=$(grep -o '^"exec|[^|]*|[^|]*|' <<<"$records" | sort -u | wc -l)
    echo "records: $(wc -l <<<"$records"), distinct items leased: $execs"
    ! grep -q '^"viol|' <<<"$records" || { grep '^"viol|' <<<"$records"; return 1; }
    ! grep -qv ':"c"$' <<<"$records" || { echo "a record whose data is not c"; return 1; }
    [ -z "$(uniq -d <<<"$wins_ids")" ] || { echo "won twice: $(uniq -d <<<"$wins_ids")"; return 1; }
    [ "$execs" -eq 120 ] || { echo "expected every one of the 120 items leased"; return 1; }
}
if [ "$soak_worker_built" -eq 1 ]; then
    step "soak_worker.c produces and works as the soak README says" soak_worker_contract
fi

# ---- examples/worker.c -------------------------------------------------------------------------
worker="$work/worker"
step "examples/worker.c compiles with ${strict[*]}" \
    gcc "${strict[@]}" -I"$here/include" "$here/examples/worker.c" -o "$worker" "${link[@]}"
# shellcheck disable=SC2046
step "examples/worker.c compiles through pkg-config from the PREFIX" \
    cc -std=c11 "$here/examples/worker.c" -o "$work/worker.pc" $(pkg-config --cflags --libs leaseq) -lpthread

worker_drains_a_queue() {
    local prefix="worker-$$" out="$work/worker.out"
    "$LEASEQ_ADD_ITEM" "$url" "$prefix" first "hello" &&
        "$LEASEQ_ADD_ITEM" "$url" "$prefix" second "hex:00ff00" || return 1
    # 1.1 s of work per item with a 3 s lease: each item is renewed at least once.
    timeout 60 "$worker" "$url" "$prefix" --ttl-ms 3000 --work-ms 1100 --exit-when-idle 200 \
        >"$out" 2>&1 || { cat "$out"; return 1; }
    cat "$out"
    grep -q '^done first (5 bytes, attempt 1)$' "$out" &&
        grep -q '^done second (3 bytes, attempt 1)$' "$out" &&
        grep -q '^renewed first$' "$out" && grep -q '^renewed second$' "$out" &&
        grep -q '^idle for 200 ms, exiting$' "$out"
}
worker_stops_on_sigterm() {
    local out="$work/worker-term.out" pid
    "$worker" "$url" "worker-empty-$$" >"$out" 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do grep -q '^ready$' "$out" && break; sleep 0.1; done
    kill -TERM "$pid"
    wait "$pid" || { cat "$out"; return 1; }
    cat "$out"
    grep -q '^stopping$' "$out"
}
if [ -x "$worker" ]; then
    step "worker.c leases, renews while busy and completes every item" worker_drains_a_queue
    step "worker.c stops cleanly on SIGTERM while waiting (leaseq_client_close)" \
        worker_stops_on_sigterm
fi

# ---- examples/*.c: the samples of the documentation ----------------------------------------------
# Every C block of the READMEs and docs/ is one of these files, word for word
# (scripts/check-samples.py). Each compiles with the pkg-config line of docs/guide/c.md against
# the PREFIX and runs on a flushed server; soak_worker.c and worker.c have their own steps above.
example_check() {
    local name=$1 out=$2
    case "$name" in
        quickstart)
            grep -q '^working on {"to": "ada@example.com"} (attempt 1)$' "$out" &&
                grep -q '^result: sent$' "$out" ;;
        runner)
            [ "$(grep -c '^sending to ' "$out")" -eq 2 ] && grep -q '^3 finished: 2 completed, 1 dead$' "$out" ;;
        operations)
            grep -q '^working on hello$' "$out" && grep -q '^failed, retrying$' "$out" &&
                grep -q '^result sent after 2 attempts; the item is done$' "$out" ;;
        jobs_by_name)
            [ "$(grep -c '^email to ' "$out")" -eq 2 ] && grep -q '^resize photo.png$' "$out" &&
                grep -q '^report: NoHandler$' "$out" ;;
        events)
            grep -q '^added order-1 (attempt 0)$' "$out" &&
                grep -q '^leased order-1 (attempt 1)$' "$out" &&
                grep -q '^completed order-1 (attempt 1)$' "$out" &&
                grep -q '^stored a position to resume after: yes$' "$out" ;;
        dependencies)
            grep -q '^4 items added; email waits for report$' "$out" &&
                grep -q '^report from part-eu=42 sales part-us=42 sales$' "$out" &&
                [ "$(tail -n 1 "$out")" = "email sent after the report" ] ;;
        schedules)
            grep -q '^nightly: cron 0 3 \* \* \* (Europe/Berlin), next in [0-9]* s$' "$out" &&
                grep -q '^pulse: every 1000 ms, next in [0-9]* s$' "$out" &&
                grep -q '^a tick added ping (its id: pulse@<tick ms>: yes)$' "$out" &&
                grep -q '^pulse removed: yes$' "$out" ;;
        partitioned)
            grep -q '^3 partitions$' "$out" && grep -q '^added 9: 9 waiting$' "$out" &&
                grep -q '^9 completed$' "$out" ;;
        *) echo "ffi-c/test.sh has no check for examples/$name.c: add one to example_check"; return 1 ;;
    esac
}
run_example() {
    local name=$1 dir="$work/examples" compile
    mkdir -p "$dir"
    cp "$here/examples/$name.c" "$dir/app.c"
    compile="$(grep -m 1 '^cc app.c' "$root/docs/guide/c.md")"
    [ -n "$compile" ] || { echo "no 'cc app.c ...' line in docs/guide/c.md"; return 1; }
    compile="${compile//app/$name} -Wall -Wextra -Werror -std=c11"
    mv "$dir/app.c" "$dir/$name.c"
    cd "$dir" || return 1
    echo "+ $compile"
    eval "$compile" || return 1
    redis-cli -u "$url" flushall >/dev/null || return 1
    REDIS_URL="$url" LD_LIBRARY_PATH="$prefix/lib" "./$name" | tee "$name.out" || return 1
    example_check "$name" "$name.out"
}
for source in "$here"/examples/*.c; do
    name="$(basename "$source" .c)"
    case "$name" in soak_worker | worker) continue ;; esac
    step "examples/$name.c compiles with the guide's pkg-config line, runs and prints what it says" \
        run_example "$name"
done

finish
