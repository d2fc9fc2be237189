#!/usr/bin/env bash
# `make test-dist`: the artifacts of dist/ (scripts/dist.sh) as a user without Rust gets them.
# Each is installed and used with a PATH of symlinks to the few programs a user needs (python3,
# node, npm, pkg-config, redis and basic shell tools): no cargo, no rustc, no C compiler, no Go.
# A compiler is on PATH only to compile the C example and the Go program themselves; they then
# run in the clean environment. Against a throwaway redis-server:
#   - Python: the wheel, in a fresh venv (pip --no-index), runs every program of py/examples
#     (the documentation's Python samples);
#     its `leaseq` console script runs the CLI; the sdist builds a wheel from source (this one
#     needs Rust: it is the from-source path);
#   - Node: a scratch project installs both npm tarballs with install scripts disabled and
#     offline, and runs every program of node/examples and `npx leaseq`; without the platform
#     package, `leaseq` fails with a message that names it and says how to build from source;
#   - C: the tarball unpacked as a prefix; the C samples (ffi-c/examples but the soak's and
#     worker.c), compiled with the pkg-config line of docs/guide/c.md, run with the versioned
#     library (and linked statically, with none);
#   - Go: integration-tests/dist/go, through cgo and the same tarball, adds, leases, completes;
#   - every artifact carries the version of Cargo.toml; SHA256SUMS matches.
# Prints `dist: N passed, M failed` last; exits non-zero on any failure.
set -uo pipefail
# Under pipefail, `producer | grep -q` fails at random: grep -q exits at its first match and the
# producer's next write meets a closed pipe. Checks read the whole output (grep >/dev/null).

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
dist="${LEASEQ_DIST:-$root/dist}"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
launcher="${LEASEQ_TEST_REDIS:-$target_dir/debug/leaseq-test-redis}"
tools="$target_dir/dist-tools"

passed=0
failed=0
work="$(mktemp -d "${TMPDIR:-/tmp}/leaseq-dist-test.XXXXXX")"
launcher_pid=""
cleanup() {
  { exec 7>&-; } 2>/dev/null
  if [ -n "$launcher_pid" ]; then
    for _ in $(seq 1 50); do kill -0 "$launcher_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

pass() { passed=$((passed + 1)); echo "ok - $*"; }
fail() { failed=$((failed + 1)); echo "not ok - $*"; }
finish() {
  echo "dist: $passed passed, $failed failed"
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

# ---- what the tests need -----------------------------------------------------------------------
missing=()
command -v go >/dev/null 2>&1 || missing+=(golang-go)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
command -v readelf >/dev/null 2>&1 || missing+=(binutils)
python3 -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "test-dist: installing ${missing[*]} from Debian's packages" >&2
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
step "redis-server is installed" "$root/scripts/ensure-deps.sh" || finish
[ -x "$launcher" ] || { fail "the redis launcher $launcher is built (make harness)"; finish; }

version="$(scripts/version.sh)"
step "scripts/version.sh check: the copies of the version agree" scripts/version.sh check
wheel="$(ls "$dist"/leaseq-"$version"-cp39-abi3-manylinux*_x86_64.whl 2>/dev/null | head -n 1)"
sdist="$dist/leaseq-$version.tar.gz"
npm_main="$dist/leaseq-$version.tgz"
npm_platform="$dist/leaseq-linux-x64-gnu-$version.tgz"
c_name="libleaseq-$version-x86_64-linux-gnu"
c_tarball="$dist/$c_name.tar.gz"
every_artifact() {
  local f ok=0
  for f in "$wheel" "$sdist" "$npm_main" "$npm_platform" "$c_tarball" "$dist/SHA256SUMS"; do
    if [ -n "$f" ] && [ -s "$f" ]; then echo "found $f"; else echo "missing: ${f:-the wheel}"; ok=1; fi
  done
  return "$ok"
}
step "dist/ holds every artifact of version $version" every_artifact || finish
step "SHA256SUMS matches every artifact" bash -c "cd '$dist' && sha256sum --strict -c SHA256SUMS"

# ---- the clean environment ---------------------------------------------------------------------
# A PATH of symlinks to the programs a user has; everything else (cargo, rustc, cc, go) is absent.
clean="$work/clean-bin"
mkdir -p "$clean" "$work/home"
real_python="$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')"
ln -s "$real_python" "$clean/python3"
for tool in node npm npx pkg-config redis-server redis-cli sh bash env cat grep sed head tail \
  mkdir rm ls mv cp tar gzip uname readlink dirname basename true false sort wc tr; do
  path="$(command -v "$tool")" || { fail "$tool is on this machine's PATH"; continue; }
  ln -s "$path" "$clean/$tool"
done
# clean_run COMMAND...: runs with only the clean PATH, an empty HOME and no other environment
# but what the caller adds through `env` in front (e.g. clean_run env REDIS_URL=... cmd).
clean_run() {
  env -i PATH="$clean" HOME="$work/home" LANG=C.UTF-8 TMPDIR="$work" "$@"
}
no_toolchain() {
  local t found=0
  for t in cargo rustc rustup cc gcc g++ c++ clang ld go zig; do
    if command -v "$t"; then found=1; fi
  done
  return "$found"
}
step "the clean environment has no cargo, rustc, C compiler, linker or Go" \
  clean_run bash -c "$(declare -f no_toolchain); no_toolchain"

# ---- the server ----------------------------------------------------------------------------------
exec 7> >(exec "$launcher" >"$work/redis.json" 2>"$work/redis.log")
launcher_pid=$!
for _ in $(seq 1 600); do grep -q '"url"' "$work/redis.json" 2>/dev/null && break; sleep 0.1; done
url="$(grep -o 'redis://[^"]*' "$work/redis.json" | head -n 1)"
if [ -z "$url" ]; then
  fail "the redis launcher prints a URL"
  show "$work/redis.log"
  finish
fi
flush() { redis-cli -u "$url" flushall >/dev/null; }

# ---- Python: the wheel -------------------------------------------------------------------------
echo "# python: $(basename "$wheel")"
venv="$work/venv"
if step "python3 -m venv makes a fresh virtualenv" clean_run python3 -m venv "$venv" &&
  step "pip installs the wheel with no index and no build (--only-binary :all:)" \
    clean_run "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index \
    --only-binary :all: "$wheel"; then
  step "leaseq.__version__ is $version" clean_run "$venv/bin/python" -c \
    "import leaseq, sys; print(leaseq.__version__); sys.exit(leaseq.__version__ != '$version')"
  step "leaseq loads from the venv's site-packages, not the repository" clean_run "$venv/bin/python" -c \
    "import leaseq, sys; print(leaseq.__file__); sys.exit(not leaseq.__file__.startswith('$venv/'))"
  # The wheel's METADATA carries the README as its body (plus a closing blank line).
  wheel_readme() {
    clean_run "$venv/bin/python" -c \
      "import importlib.metadata as m; print(m.metadata('leaseq').get_payload().rstrip())" >"$work/py-readme" &&
      diff -u "$root/py/README.md" "$work/py-readme"
  }
  step "the wheel's description is py/README.md" wheel_readme
  # The documentation's Python samples, each on a flushed server.
  examples_python() {
    local example name out
    for example in "$root"/py/examples/*.py; do
      name="$(basename "$example" .py)"
      out="$work/py-$name.out"
      flush
      (cd "$work" && clean_run env REDIS_URL="$url" "$venv/bin/python" "$example") >"$out" 2>&1 ||
        { echo "py/examples/$name.py failed:"; cat "$out"; return 1; }
      [ -s "$out" ] || { echo "py/examples/$name.py printed nothing"; return 1; }
      echo "py/examples/$name.py: $(wc -l <"$out") lines"
    done
    diff -u - "$work/py-quickstart.out" <<<$'sending to ada@example.com (attempt 1)\nresult: sent' &&
      [ "$(tail -n 1 "$work/py-runner.out")" = "2 completed, 1 dead" ]
  }
  step "every program of py/examples runs from the wheel" examples_python
  wheel_cli() {
    clean_run "$venv/bin/leaseq" --help | grep '^Usage: leaseq' >/dev/null || return 1
    flush
    # A flushed server has no queue `{dist}`: its figures (zeros), then exit 6 (no such queue).
    clean_run "$venv/bin/leaseq" stats --url "$url" -q '{dist}' --json >"$work/py-stats.json"
    local rc=$?
    cat "$work/py-stats.json" >&2
    [ "$rc" -eq 6 ] && grep '"queue": *"{dist}"' "$work/py-stats.json" >/dev/null
  }
  step "the wheel's leaseq console script runs the CLI (--help, stats --json)" wheel_cli
fi

# ---- Python: the sdist (the from-source path: this one needs Rust) -------------------------------
# A debug build in the shared target directory: the point is that the sdist is complete.
sdist_builds() {
  rm -rf "$work/sdist-wheel"
  MATURIN_PEP517_ARGS="--profile dev" CARGO_TARGET_DIR="$target_dir" PATH="$tools/bin:$PATH" \
    "$tools/bin/python" -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
    -w "$work/sdist-wheel" "$sdist" || return 1
  clean_run python3 -m venv "$work/venv-sdist" &&
    clean_run "$work/venv-sdist/bin/python" -m pip install -q --disable-pip-version-check --no-index \
      "$work"/sdist-wheel/leaseq-*.whl &&
    clean_run "$work/venv-sdist/bin/python" -c \
      "import leaseq, sys; print(leaseq.__version__); sys.exit(leaseq.__version__ != '$version')"
}
step "the sdist builds a wheel from source (maturin, cargo) that installs and imports" sdist_builds

# ---- Node: leaseq and leaseq-linux-x64-gnu -----------------------------------------------------
echo "# node: $(basename "$npm_main") $(basename "$npm_platform")"
project="$work/node-project"
mkdir -p "$project"
echo '{ "name": "scratch", "private": true }' >"$project/package.json"
# Offline with an empty cache: npm may not fetch anything, so leaseq-linux-x64-gnu must come from
# its tarball; scripts disabled, as a coming npm will have them.
npm_install() {
  (cd "$project" && clean_run npm install --offline --ignore-scripts --no-audit --no-fund \
    --loglevel=error "$npm_platform" "$npm_main")
}
if step "npm installs both tarballs offline with install scripts disabled" npm_install; then
  package_shape() {
    (cd "$project" && clean_run node -e '
      const assert = require("node:assert/strict")
      const main = require("leaseq/package.json")
      const platform = require("leaseq-linux-x64-gnu/package.json")
      assert.equal(main.version, process.argv[1])
      assert.equal(platform.version, process.argv[1])
      assert.deepEqual(main.scripts, undefined, "no scripts at all, so no install script")
      assert.deepEqual(main.optionalDependencies, { "leaseq-linux-x64-gnu": process.argv[1] })
      assert.deepEqual([platform.os, platform.cpu, platform.libc], [["linux"], ["x64"], ["glibc"]])
      assert.equal(platform.main, "leaseq.linux-x64-gnu.node")
      const addon = require.resolve("leaseq-linux-x64-gnu")
      assert.ok(addon.endsWith("/node_modules/leaseq-linux-x64-gnu/leaseq.linux-x64-gnu.node"), addon)
      console.log(main.name, main.version, "->", platform.name, addon)
    ' "$version")
  }
  step "leaseq has no install script and lists leaseq-linux-x64-gnu $version as an optional dependency" \
    package_shape
  step "leaseq's README is node/README.md" cmp "$root/node/README.md" "$project/node_modules/leaseq/README.md"
  mkdir -p "$work/node"
  # Runs node/examples/$1 from the installed packages; its output goes to $work/node/out.
  run_node_example() {
    flush
    cp "$root/node/examples/$1" "$project/$1"
    (cd "$project" && clean_run env REDIS_URL="$url" node "$1") >"$work/node/out" 2>&1 ||
      { cat "$work/node/out"; return 1; }
    cat "$work/node/out"
  }
  node_quickstart() {
    run_node_example quickstart.js &&
      diff -u - "$work/node/out" <<<$'sending to ada@example.com (attempt 1)\nresult: sent'
  }
  node_runner() {
    run_node_example runner.js || return 1
    # The runner: two sent, the empty address a dead letter, then it stops once drained.
    grep -q '^sending to a@example.com (attempt 1)$' "$work/node/out" &&
      grep -q '^sending to b@example.com (attempt 1)$' "$work/node/out" &&
      [ "$(tail -n 1 "$work/node/out")" = "2 completed, 1 dead" ]
  }
  node_operations() {
    run_node_example operations.js || return 1
    # What the example's comments promise.
    [ "$(head -n 3 "$work/node/out" | tr '\n' ' ')" = "true false 2 " ] &&
      [ "$(tail -n 1 "$work/node/out")" = "INVALID_ARGUMENT ttlMs" ] &&
      grep -q '^report-7 (attempt 1): 8 bytes$' "$work/node/out" &&
      grep -q '^sent report-7$' "$work/node/out" &&
      grep -q '^flaky (attempt 2): 5 bytes$' "$work/node/out"
  }
  node_names() {
    run_node_example names.js || return 1
    # Handlers by name: two run, the name no handler has a dead letter, counted by name.
    [ "$(tail -n 5 "$work/node/out" | tr '\n' '|')" = \
      "2 completed, 1 dead|video-1: dead, NoHandler|resize: 1 completed, 0 dead|sendEmail: 1 completed, 0 dead|transcode: 0 completed, 1 dead|" ]
  }
  node_logs() {
    run_node_example logs.js || return 1
    # The runner's lines through the logger: its start (no password in the URL), the dead job
    # (a random id) at error, no line for the success; then the failed attempt's kept stack.
    grep -Eq '^runner \S+ started: queue \{invoices\} on redis://127\.0\.0\.1:[0-9]+, concurrency 1$' "$work/node/out" &&
      grep -Eqx 'job [0-9a-f-]{36} failed \(attempt 1\) and is dead: not an amount: twelve' "$work/node/out" &&
      [ "$(grep -c '^job ' "$work/node/out")" = 1 ] &&
      [ "$(tail -n 1 "$work/node/out")" = "TypeError: not an amount: twelve" ]
  }
  node_dependencies() {
    run_node_example dependencies.js || return 1
    # A flow: the parts first, the report reads their results, the email after the report.
    diff -u - "$work/node/out" <<<$'email waits for report\n2 blocked\npart eu\npart us\nreport from part-eu=42 sales, part-us=42 sales\nemail sent after the report'
  }
  node_events() {
    run_node_example events.js || return 1
    # A follower from now sees the item's transitions; a page after a stored id, the rest.
    diff -u - "$work/node/out" <<<$'added order-1 (attempt 0)\nleased order-1 (attempt 1)\ncompleted order-1 (attempt 1)\nafter the first: leased, completed'
  }
  node_schedules() {
    run_node_example schedules.js || return 1
    # Two schedules stored with their next fire times; a runner fires the 1 s one.
    [ "$(head -n 2 "$work/node/out" | sort | tr '\n' '|')" = \
      "nightly: 0 3 * * *, next set|poll: every 1000 ms, next set|" ] &&
      [ "$(tail -n 2 "$work/node/out" | tr '\n' '|')" = "poll ran (poll)|1 schedule left|" ]
  }
  node_partitioned() {
    run_node_example partitioned.js || return 1
    # Four partitions, ten added; a customer's orders share one; the runner completes the nine
    # left, the logical queue is drained, and its follower saw every item's three transitions.
    [ "$(head -n 2 "$work/node/out" | tr '\n' '|')" = "4 partitions|added 10|" ] &&
      grep -Eq '^order 0 and order 2 in partition ([0-3]) and \1$' "$work/node/out" &&
      [ "$(grep -c '^handled ' "$work/node/out")" = 9 ] &&
      [ "$(tail -n 3 "$work/node/out" | tr '\n' '|')" = \
        "the runner completed 9|waiting 0 in 4 partitions|events: 10 added, 10 completed, 10 leased|" ]
  }
  for example in "$root"/node/examples/*; do
    name="$(basename "$example")"
    case "$name" in
      quickstart.js) check=node_quickstart ;;
      runner.js) check=node_runner ;;
      operations.js) check=node_operations ;;
      names.js) check=node_names ;;
      logs.js) check=node_logs ;;
      dependencies.js) check=node_dependencies ;;
      events.js) check=node_events ;;
      schedules.js) check=node_schedules ;;
      partitioned.js) check=node_partitioned ;;
      *) check="" ;;
    esac
    if [ -z "$check" ]; then
      fail "node/examples/$name has a check in integration-tests/dist/test.sh"
      continue
    fi
    step "node/examples/$name runs from the installed packages and prints what it says" "$check"
  done
  esm() {
    (cd "$project" && clean_run env REDIS_URL="$url" node --input-type=module -e '
      import { Client, Item } from "leaseq"
      const client = await Client.connect(process.env.REDIS_URL)
      const queue = client.queue("{esm}")
      await queue.add(Item.fromJson({ esm: true }))
      const lease = await queue.lease({ ttlMs: 10_000 })
      if (!lease || lease.json().esm !== true || !(await queue.complete(lease))) process.exit(1)
      await client.close()
      console.log("ES module import: lease cycle done")')
  }
  step "the installed package works as an ES module" esm
  npx_cli() {
    (cd "$project" && clean_run env npm_config_offline=true npx --no-install leaseq --help) |
      grep '^Usage: leaseq' >/dev/null || return 1
    flush
    # A flushed server has no queue `{dist}`: its figures (zeros), then exit 6 (no such queue).
    (cd "$project" && clean_run env npm_config_offline=true npx --no-install leaseq stats \
      --url "$url" -q '{dist}' --json) >"$work/node-stats.json"
    local rc=$?
    cat "$work/node-stats.json" >&2
    [ "$rc" -eq 6 ] && grep '"queue": *"{dist}"' "$work/node-stats.json" >/dev/null
  }
  step "npx leaseq runs the CLI from the installed packages (--help, stats --json)" npx_cli
  no_platform_package() {
    mv "$project/node_modules/leaseq-linux-x64-gnu" "$work/platform-package"
    (cd "$project" && clean_run node -e 'require("leaseq")') >"$work/node/missing" 2>&1
    local rc=$?
    mv "$work/platform-package" "$project/node_modules/leaseq-linux-x64-gnu"
    cat "$work/node/missing"
    [ "$rc" -ne 0 ] && grep -q 'leaseq-linux-x64-gnu is not installed' "$work/node/missing" &&
      grep -q 'npm run build' "$work/node/missing"
  }
  step "without its platform package, leaseq names it and says how to build from source" \
    no_platform_package
fi

# ---- C: the tarball as a prefix ----------------------------------------------------------------
echo "# c: $(basename "$c_tarball")"
prefix="$work/c/$c_name"
mkdir -p "$work/c"
if step "the C tarball unpacks" tar -xzf "$c_tarball" -C "$work/c"; then
  c_layout() {
    local lib="$prefix/lib"
    ls -l "$lib" "$prefix/include" &&
      [ "$(readlink "$lib/libleaseq.so")" = libleaseq.so.0 ] &&
      [ "$(readlink "$lib/libleaseq.so.0")" = "libleaseq.so.$version" ] &&
      [ -f "$lib/libleaseq.so.$version" ] && [ -f "$lib/libleaseq.a" ] &&
      [ -f "$lib/pkgconfig/leaseq.pc" ] && cmp "$prefix/include/leaseq.h" ffi-c/include/leaseq.h &&
      cmp "$prefix/share/leaseq/valgrind.supp" ffi-c/valgrind.supp &&
      readelf -d "$lib/libleaseq.so.$version" | grep '(SONAME)' | grep -q '\[libleaseq.so.0\]'
  }
  step "lib/libleaseq.so -> .so.0 -> .so.$version (soname libleaseq.so.0), libleaseq.a, leaseq.h, leaseq.pc, valgrind.supp" \
    c_layout
  c_readme() { head -c "$(wc -c <ffi-c/README.md)" "$prefix/README.md" | cmp - ffi-c/README.md; }
  step "the tarball's README.md is ffi-c/README.md and the build's platform" c_readme
  pc() {
    clean_run env PKG_CONFIG_PATH="$prefix/lib/pkgconfig" bash -c '
      set -e
      [ "$(pkg-config --modversion leaseq)" = "$1" ]
      echo "cflags: $(pkg-config --cflags leaseq)"; echo "libs: $(pkg-config --libs leaseq)"
      [ "$(cd "$(pkg-config --variable=includedir leaseq)" && pwd -P)" = "$(cd "$2/include" && pwd -P)" ]
      [ "$(cd "$(pkg-config --variable=libdir leaseq)" && pwd -P)" = "$(cd "$2/lib" && pwd -P)" ]' \
      _ "$version" "$prefix"
  }
  step "pkg-config finds leaseq $version wherever the tarball is unpacked" pc
  step "leaseq_version() is $version (through ctypes, no compiler)" clean_run python3 -c \
    "import ctypes, sys; f = ctypes.CDLL('$prefix/lib/libleaseq.so.0').leaseq_version
f.restype = ctypes.c_char_p; v = f().decode(); print(v); sys.exit(v != '$version')"
  # The documentation's C samples, each compiled with the pkg-config line of docs/guide/c.md;
  # $1 is the example's name, $2 what its output must hold.
  c_examples=()
  for example in ffi-c/examples/*.c; do
    name="$(basename "$example" .c)"
    case "$name" in soak_worker | worker) ;; *) c_examples+=("$name") ;; esac
  done
  c_expect() {
    case "$1" in
      quickstart) echo '^result: sent$' ;;
      runner) echo '^3 finished: 2 completed, 1 dead$' ;;
      operations) echo '^result sent after 2 attempts; the item is done$' ;;
      jobs_by_name) echo '^report: NoHandler$' ;;
      dependencies) echo '^email sent after the report$' ;;
      events) echo '^completed order-1 (attempt 1)$' ;;
      schedules) echo '^pulse removed: yes$' ;;
      partitioned) echo '^9 completed$' ;;
    esac
  }
  c_example() {
    local dir="$work/c/examples" name=$1 expect compile
    expect="$(c_expect "$name")"
    [ -n "$expect" ] || { echo "no check for ffi-c/examples/$name.c in c_expect"; return 1; }
    mkdir -p "$dir"
    cp "ffi-c/examples/$name.c" "$dir/$name.c"
    compile="$(grep -m 1 '^cc app.c' docs/guide/c.md)"
    [ -n "$compile" ] || { echo "no compile line in docs/guide/c.md"; return 1; }
    compile="${compile//app/$name}"
    # The compile, and only it, with this machine's PATH (the compiler).
    (cd "$dir" && echo "+ $compile" && PKG_CONFIG_PATH="$prefix/lib/pkgconfig" eval "$compile") || return 1
    readelf -d "$dir/$name" | grep NEEDED | tee /dev/stderr | grep '\[libleaseq.so.0\]' >/dev/null || return 1
    flush
    (cd "$dir" && clean_run env REDIS_URL="$url" LD_LIBRARY_PATH="$prefix/lib" "./$name") | tee "$dir/$name.out" &&
      grep -q "$expect" "$dir/$name.out"
  }
  for name in "${c_examples[@]}"; do
    step "ffi-c/examples/$name.c compiles with the guide's pkg-config line and runs on libleaseq.so.0" \
      c_example "$name"
  done
  static_c() {
    local dir="$work/c/examples" libs name
    libs="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --static --libs-only-l leaseq | sed 's/-lleaseq//')"
    for name in "${c_examples[@]}"; do
      # shellcheck disable=SC2086
      cc -std=c11 "$dir/$name.c" -o "$dir/$name-static" -I"$prefix/include" "$prefix/lib/libleaseq.a" $libs || return 1
      ! readelf -d "$dir/$name-static" | grep -q 'libleaseq' || { echo "links libleaseq dynamically"; return 1; }
      flush
      (cd "$dir" && clean_run env REDIS_URL="$url" "./$name-static") | tee "$dir/$name.out-static" || return 1
      grep -q "$(c_expect "$name")" "$dir/$name.out-static" || return 1
    done
  }
  [ "${#c_examples[@]}" -gt 0 ] && [ -f "$work/c/examples/${c_examples[0]}.c" ] &&
    step "the C samples linked statically against libleaseq.a run" static_c
fi

# ---- Go through cgo --------------------------------------------------------------------------------
go_cgo() {
  local dir="$work/go"
  mkdir -p "$dir"
  cp "$here/go/main.go" "$here/go/go.mod" "$dir/"
  # Nothing to download: GOPROXY=off, and the toolchain that is here (Debian's golang-go).
  (cd "$dir" && PKG_CONFIG_PATH="$prefix/lib/pkgconfig" CGO_ENABLED=1 GOPROXY=off GOTOOLCHAIN=local \
    GOFLAGS=-mod=mod GOPATH="$work/gopath" GOCACHE="$work/gocache" go build -o leaseq-go .) || return 1
  readelf -d "$dir/leaseq-go" | grep -q 'NEEDED.*\[libleaseq.so.0\]' || { echo "not linked to libleaseq.so.0"; return 1; }
  flush
  clean_run env LD_LIBRARY_PATH="$prefix/lib" "$dir/leaseq-go" "$url" "{go}" | tee "$dir/out" || return 1
  diff -u - "$dir/out" <<EOF
libleaseq $version
added: true
leased: 24 bytes, attempt 1, data intact: true
completed: true
completed again: false
queue length: 0
EOF
}
[ -d "$prefix/lib" ] && step "Go (cgo) adds, leases and completes through the C tarball's libleaseq.so.0" go_cgo

finish
