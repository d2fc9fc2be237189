#!/usr/bin/env python3
"""`make bench`: leaseq against its peers on one throwaway redis-server, in one run.

Starts one redis-server on a free loopback port (no persistence, temporary directory), runs every
workload through every client that is available, one run at a time, and measures on the server
side what the clients cannot: commands per item (INFO commandstats), round trips per item (read
events, INFO stats), Redis memory per queued item (INFO memory) and the longest single command
(SLOWLOG) while a clean runs. The workloads themselves live with their language:
bench/src/main.rs (Rust), bench/py/runner.py (Python), bench/node/runner.js (Node),
bench/c/runner.c (C); they all speak the same small protocol with this driver (see main.rs).

Prints a table, writes bench/results/latest.json and bench/results/latest.png.
Run it through `make bench` (bench/run.sh builds and installs what it needs first).
"""

import argparse
import contextlib
import datetime
import io
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import redis

import cluster  # bench/cluster.py: issue 27's partitioned queues on a cluster of three primaries

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results")
PAYLOAD = 64  # bytes of data per item, the same for every client
PY = sys.executable

# ------------------------------------------------------------------------------------ clients
# name -> how to start its runner, its language, and whether it is leaseq or a peer.
# Where run.sh built it: CARGO_TARGET_DIR when set (as cargo itself reads it), else target/.
RUST_BIN = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target"), "release", "leaseq-bench")
C_BIN = os.path.join(HERE, ".build", "leaseq-bench-c")
CLIENTS = {
    "leaseq-rust": dict(lang="Rust", leaseq=True, argv=[RUST_BIN, "--client", "leaseq"]),
    "leaseq-python": dict(lang="Python", leaseq=True, argv=[PY, os.path.join(HERE, "py", "runner.py"), "--client", "leaseq"]),
    "leaseq-node": dict(lang="Node", leaseq=True, argv=["node", os.path.join(HERE, "node", "runner.js"), "--client", "leaseq"]),
    "leaseq-c": dict(lang="C", leaseq=True, argv=[C_BIN]),
    # Issue 27: the Python runner with a plain `def` handler, which leaseq's Worker runs on its
    # thread pool (leaseq-python's handler is an `async def`, on asyncio).
    "leaseq-python-threads": dict(lang="Python", leaseq=True, label="leaseq (threads)",
                                  argv=[PY, os.path.join(HERE, "py", "runner.py"), "--client", "leaseq", "--handler", "sync"]),
    # Protocol v1's scripts (bench/v1/): the baseline a plain item's cost is held to, not a peer.
    "leaseq-v1": dict(lang="Rust", leaseq=False, baseline=True, label="leaseq protocol v1 (baseline)",
                      argv=[RUST_BIN, "--client", "leaseq-v1"]),
    "rwq-rust": dict(lang="Rust", leaseq=False, label="redis-work-queue 0.3 (crates.io)", argv=[RUST_BIN, "--client", "rwq"]),
    # The Rust clients on the other tokio runtimes of the bench binary (`--runtime`; the two above
    # run on `#[tokio::main]`'s, a worker per CPU), in runner_c50 only: which runtime is fastest
    # differs from client to client on a machine that Redis shares (bench/README.md).
    **{f"{c}-{rt}": dict(lang="Rust", leaseq=c == "leaseq-rust", label=f"{label}, {what}",
                         argv=[RUST_BIN, "--client", flag, "--runtime", rt])
       for c, flag, label in (("leaseq-rust", "leaseq", "leaseq (Rust)"),
                              ("rwq-rust", "rwq", "redis-work-queue 0.3"))
       for rt, what in (("one", "tokio with one worker"), ("current", "tokio current-thread"))},
    "rwq-python": dict(lang="Python", leaseq=False, label="redis-work-queue 0.1.5 (PyPI)", argv=[PY, os.path.join(HERE, "py", "runner.py"), "--client", "rwq"]),
    "rq": dict(lang="Python", leaseq=False, label="RQ SimpleWorker", argv=[PY, os.path.join(HERE, "py", "runner.py"), "--client", "rq"]),
    "bullmq": dict(lang="Node", leaseq=False, label="BullMQ", argv=["node", os.path.join(HERE, "node", "runner.js"), "--client", "bullmq"]),
}


def available(name):
    """Whether a client's runner can run here; the reason when it cannot."""
    if name in ("leaseq-rust", "rwq-rust", "leaseq-v1") or CLIENTS[name]["argv"][0] == RUST_BIN:
        return os.path.exists(RUST_BIN), "target/release/leaseq-bench not built"
    if name == "leaseq-c":
        return os.path.exists(C_BIN), "libleaseq (ffi-c) not built"
    if name in ("leaseq-python", "leaseq-python-threads"):
        ok = subprocess.run([PY, "-c", "import leaseq"], capture_output=True).returncode == 0
        return ok, "the Python binding (py/) did not install"
    if name == "leaseq-node":
        return os.path.exists(os.path.join(HERE, "node_modules", "leaseq", "leaseq.node")), "the Node binding (node/) did not build"
    if name == "bullmq":
        return os.path.isdir(os.path.join(HERE, "node_modules", "bullmq")), "npm install bullmq failed"
    return True, ""


# ---------------------------------------------------------------------------------- workloads
# Item counts are fixed per client so that each run lasts about 1-3 s on 2 cores, and the whole
# bench about 10 minutes. `n` maps client -> items (clients not listed do not run it).
ALL = ["leaseq-rust", "leaseq-python", "leaseq-node", "leaseq-c", "rwq-rust", "rwq-python", "rq", "bullmq"]


def counts(fast, medium, slow, rq):
    """Item counts by speed class: fast (Rust, C), medium (Node, leaseq Python), slow (Python
    peers), rq."""
    return {
        "leaseq-rust": fast, "leaseq-c": fast, "rwq-rust": fast,
        "leaseq-node": medium, "leaseq-python": medium, "bullmq": medium,
        "rwq-python": slow, "rq": rq,
    }


WORKLOADS = [
    dict(id="add_single", title="add, one call per item", kind="rate", runner="add_single",
         n={**counts(20000, 10000, 10000, 3000), "leaseq-v1": 20000}, ceiling="LPUSH c=1"),
    dict(id="add_batch", title="add, batches of 1000", kind="rate", runner="add_batch",
         n={**counts(200000, 100000, 50000, 5000), "bullmq": 30000}, args=["--batch", "1000"],
         ceiling="LPUSH c=1 P=1000"),
    # Issue 27: adds with options, each item of the batch delayed an hour, at priority 5, or in
    # one of 100 groups; leaseq only, run beside add_batch (within 2x of its cost per item).
    dict(id="add_batch_delay", title="add, batches of 1000, delayed", kind="rate", runner="add_batch",
         n={"leaseq-rust": 200000}, args=["--batch", "1000", "--options", "delay"], ceiling="LPUSH c=1 P=1000",
         with_plain="add_batch"),
    dict(id="add_batch_priority", title="add, batches of 1000, priority 5", kind="rate", runner="add_batch",
         n={"leaseq-rust": 200000}, args=["--batch", "1000", "--options", "priority"], ceiling="LPUSH c=1 P=1000",
         with_plain="add_batch"),
    dict(id="add_batch_group", title="add, batches of 1000, 100 groups", kind="rate", runner="add_batch",
         n={"leaseq-rust": 200000}, args=["--batch", "1000", "--options", "group"], ceiling="LPUSH c=1 P=1000",
         with_plain="add_batch"),
    dict(id="lease_complete_1", title="lease+complete, 1 worker", kind="rate", runner="lease_complete",
         n={**counts(20000, 10000, 5000, 300), "leaseq-v1": 20000}, args=["--workers", "1"], ceiling="LMOVE c=1"),
    # Issue 27: a plain lease() then a complete() per item, two calls (lease_complete_1 uses
    # complete_and_lease, one); the peers' loops are two calls already (BullMQ: getNextJob then
    # moveToCompleted, its manual processing). The single calls' client cost, in every language.
    dict(id="lease_then_complete_1", title="lease, then complete, 1 worker", kind="rate",
         runner="lease_then_complete", n={k: v for k, v in counts(20000, 10000, 5000, 300).items() if k != "rq"},
         args=["--workers", "1"], ceiling="LMOVE c=1"),
    dict(id="lease_complete_8", title="lease+complete, 8 workers", kind="rate", runner="lease_complete",
         n=counts(40000, 20000, 5000, 600), args=["--workers", "8"], ceiling="LMOVE c=8"),
    dict(id="latency", title="add -> lease start, idle blocked worker", kind="latency", runner="latency",
         n=counts(600, 600, 600, 150), args=["--gap-ms", "2"], gap={"rq": "15", "bullmq": "3"},
         ceiling="LMOVE c=1"),
    dict(id="inflight_10", title="lease+complete, 10 already leased", kind="rate", runner="lease_complete",
         n={"leaseq-rust": 20000, "rwq-rust": 10000}, args=["--workers", "1", "--inflight", "10"], ceiling="LMOVE c=1"),
    dict(id="inflight_1000", title="lease+complete, 1,000 already leased", kind="rate", runner="lease_complete",
         n={"leaseq-rust": 20000, "rwq-rust": 10000}, args=["--workers", "1", "--inflight", "1000"], ceiling="LMOVE c=1"),
    dict(id="inflight_100000", title="lease+complete, 100,000 already leased", kind="rate", runner="lease_complete",
         n={"leaseq-rust": 20000, "rwq-rust": 1000}, args=["--workers", "1", "--inflight", "100000"], ceiling="LMOVE c=1"),
    # redis-work-queue's Python light clean makes a round trip per id (~30 s here): one run only.
    dict(id="light_clean", title="light clean, 100,000 leased, 1% expired", kind="clean", runner="light_clean",
         n={"leaseq-rust": 100000, "rwq-python": 100000}, runs={"rwq-python": 1}),
    dict(id="deep_clean", title="deep clean, 1,000,000 items, 100 orphans", kind="clean", runner="deep_clean",
         n={"leaseq-rust": 1000000}, args=["--orphans", "100"]),
    # The job lifecycle's costs: a backlog of delayed items must not slow plain leasing, and
    # promoting due items must never hold Redis long.
    dict(id="delayed_backlog", title="lease+complete, 1 worker, 100,000 delayed items not due", kind="rate",
         runner="lease_complete", n={"leaseq-rust": 20000}, args=["--workers", "1", "--delayed", "100000"],
         ceiling="LMOVE c=1"),
    # Issue 25 (groups, spec 5.20): lease_complete_1 over grouped items, item i in group
    # g{i % G}: 10,000 groups of 10 items (G follows the item count: `group_items` per group,
    # so --scale keeps 10 per group), and one group of them all. One worker: a group's limit
    # is 1, so one group has one item leased at a time. Held to 80% of plain lease_complete_1's
    # rate in the same run, with Redis CPU per item; their runs interleave with its runs.
    dict(id="groups_10k", title="lease+complete, 10,000 groups of 10", kind="rate",
         runner="lease_complete", n={"leaseq-rust": 100000}, args=["--workers", "1"], group_items=10,
         ceiling="LMOVE c=1", with_plain="lease_complete_1"),
    dict(id="group_one", title="lease+complete, one group of 100,000", kind="rate",
         runner="lease_complete", n={"leaseq-rust": 100000}, args=["--workers", "1", "--groups", "1"],
         ceiling="LMOVE c=1", with_plain="lease_complete_1"),
    # Tarantool's busy `utube` case (its README: 150,000 tasks, a take that scanned busy
    # tubes): a group of 150,000 items whose first is leased and held (the group is at its
    # limit), beside 20,000 items in 2,000 groups leased and completed at one worker. A lease
    # must not look at the busy group's items: held to plain lease_complete_1 in the same run.
    dict(id="groups_busy", title="lease+complete, 2,000 groups of 10 beside a busy group of 150,000",
         kind="rate", runner="lease_complete", n={"leaseq-rust": 20000},
         args=["--workers", "1", "--busy", "150000"], group_items=10,
         ceiling="LMOVE c=1", with_plain="lease_complete_1"),
    dict(id="promote_due", title="light clean promoting 100,000 due delayed items", kind="clean", runner="promote",
         n={"leaseq-rust": 100000}),
    # Runners (issue 11): each library's own worker loop draining a prefilled queue with a no-op
    # handler (nothing kept of a finished job) at concurrency 1, 8 and 50; then a handler that
    # sleeps 20 ms at concurrency 50 (ideal: 50 / 20 ms = 2,500 items/s), where a runner's own
    # overhead would show as a shortfall. leaseq: its Worker in each language (Python: an
    # `async def` handler on asyncio). BullMQ: Worker with `concurrency`. RQ and
    # redis-work-queue Python: that many processes (RQ SimpleWorker; rwq lease/complete loops);
    # redis-work-queue Rust: that many tasks.
    dict(id="runner_c1", title="runner, no-op handler, concurrency 1", kind="rate", runner="runner",
         n={**counts(20000, 10000, 3000, 300), "bullmq": 5000, "rwq-rust": 10000}, args=["--workers", "1"],
         ceiling="LMOVE c=1"),
    dict(id="runner_c8", title="runner, no-op handler, concurrency 8", kind="rate", runner="runner",
         n={**counts(40000, 20000, 5000, 600), "bullmq": 10000, "rwq-rust": 20000}, args=["--workers", "8"],
         ceiling="LMOVE c=8"),
    dict(id="runner_c50", title="runner, no-op handler, concurrency 50", kind="rate", runner="runner",
         n={**counts(60000, 30000, 5000, 600), "bullmq": 20000, "rwq-rust": 30000,
            **{f"{c}-{rt}": n for c, n in (("leaseq-rust", 60000), ("rwq-rust", 30000)) for rt in ("one", "current")}},
         args=["--workers", "50"], ceiling="LMOVE c=1 P=1000"),
    # Issue 26 (events): the same runners with the queue's event stream on (`P:config events`,
    # set by the driver before the runner starts: every transition appends an entry), run by run
    # beside runner_c50 (events off); then, from a complete to a follower seeing it.
    dict(id="runner_c50_events", title="runner, no-op handler, concurrency 50, events on", kind="rate",
         runner="runner", n={k: v for k, v in counts(60000, 30000, 5000, 600).items() if CLIENTS[k]["leaseq"]
                             and k in ("leaseq-rust", "leaseq-node", "leaseq-python", "leaseq-c")},
         args=["--workers", "50"], config={"events": "1"}, with_plain="runner_c50"),
    dict(id="follow_latency", title="complete -> a follower of the event stream sees it", kind="latency",
         runner="follow_latency", n={"leaseq-rust": 2000}),
    dict(id="runner_sleep20_c50", title="runner, 20 ms handler, concurrency 50", kind="rate", runner="runner",
         n={**counts(5000, 5000, 5000, 1000)}, args=["--workers", "50", "--sleep-ms", "20"], ideal=2500),
    # Issue 25 (rate limits): one queue limited to `max` leases per `per_ms`, worked for `seconds`
    # by leaseq runners in four languages at once (each its `runner` workload at concurrency 8,
    # prefilling its `n` items and stopping after a fixed time: the queue never drains). The
    # driver counts the leases every limiter window and reports them per 10 s of wall time, and
    # the commands the runners send, over the whole run and while they wait for the window.
    # Not against a peer; one run (the six 10 s windows are the repetitions).
    dict(id="rate_limit", title="rate limit 1,000 leases/s, runners in 4 languages, 60 s", kind="rate_limit",
         runner="runner", n={"leaseq-rust": 20000, "leaseq-c": 20000, "leaseq-node": 20000, "leaseq-python": 20000},
         args=["--workers", "8"], max=1000, per_ms=1000, seconds=60, window_s=10, max_runs=1, tolerance=0.02),
    # Issue 27 (partitioned queues, spec 5.25): the Rust runner (Worker::partitioned, concurrency
    # 50, no-op handler) drains a queue of P partitions prefilled through the partitioned
    # add_batch, on a cluster of three primaries of its own (bench/cluster.py); P = 1, 3 and 6
    # interleave run by run, and each primary's CPU per item it served is held to P = 1's.
    dict(id="partitioned_p1", title="partitioned queue, P = 1, 3 primaries, runner c=50", kind="partitioned",
         runner="partitioned_runner", n={"leaseq-rust": 60000}, partitions=1, args=["--workers", "50", "--partitions", "1"]),
    dict(id="partitioned_p3", title="partitioned queue, P = 3, 3 primaries, runner c=50", kind="partitioned",
         runner="partitioned_runner", n={"leaseq-rust": 60000}, partitions=3, args=["--workers", "50", "--partitions", "3"]),
    dict(id="partitioned_p6", title="partitioned queue, P = 6, 3 primaries, runner c=50", kind="partitioned",
         runner="partitioned_runner", n={"leaseq-rust": 60000}, partitions=6, args=["--workers", "50", "--partitions", "6"]),
    # The same with 50 slots per partition (concurrency 50 * P): each partition sees the load
    # depth of P = 1's one, so its script calls carry as many items (bench/README.md).
    dict(id="partitioned_p3_c150", title="partitioned queue, P = 3, 3 primaries, runner c=150", kind="partitioned",
         runner="partitioned_runner", n={"leaseq-rust": 60000}, partitions=3, per_partition=50,
         args=["--workers", "150", "--partitions", "3"]),
    dict(id="partitioned_p6_c300", title="partitioned queue, P = 6, 3 primaries, runner c=300", kind="partitioned",
         runner="partitioned_runner", n={"leaseq-rust": 60000}, partitions=6, per_partition=50,
         args=["--workers", "300", "--partitions", "6"]),
    # Not a comparison: where the time of one leaseq call goes (see bench/README.md).
    dict(id="call_costs", title="cost of one call, µs", kind="costs", runner="call_costs",
         n={"leaseq-rust": 5000}),
]
# Issue 27: the Python runner on threads beside the asyncio one, at concurrency 50.
next(w for w in WORKLOADS if w["id"] == "runner_c50")["n"]["leaseq-python-threads"] = 30000
# The name the rate_limit workload's runs are kept under: every leaseq runner at once.
RATE_LIMIT_CLIENT = "leaseq-all"
# Commands the driver itself sends while a run is measured; left out of the per-item counts.
DRIVER_COMMANDS = re.compile(r"^(info|config|slowlog|latency|ping)(\|.*)?$", re.IGNORECASE)
SCRIPT_COMMANDS = {"evalsha", "eval", "evalsha_ro", "eval_ro", "fcall", "fcall_ro"}

# redis-benchmark runs: the ceiling. (name, clients, pipeline, command...)
CEILINGS = [
    ("LPUSH c=1", 1, 1, ["LPUSH", "bench:lpush", "p" * PAYLOAD]),
    ("LPUSH c=1 P=1000", 1, 1000, ["LPUSH", "bench:lpush", "p" * PAYLOAD]),
    ("SET c=1 P=1000", 1, 1000, ["SET", "bench:key:__rand_int__", "p" * PAYLOAD]),
    ("LMOVE c=1", 1, 1, ["LMOVE", "bench:l", "bench:l", "RIGHT", "LEFT"]),
    ("LMOVE c=8", 8, 1, ["LMOVE", "bench:l", "bench:l", "RIGHT", "LEFT"]),
    ("LMOVE c=1 P=1000", 1, 1000, ["LMOVE", "bench:l", "bench:l", "RIGHT", "LEFT"]),
]


# ------------------------------------------------------------------------------------ server
class Server:
    """One throwaway redis-server on a free loopback port."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="leaseq-bench-")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.dir, "--logfile", os.path.join(self.dir, "redis.log")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"redis://127.0.0.1:{self.port}"
        self.r = redis.Redis(host="127.0.0.1", port=self.port)
        for _ in range(100):
            try:
                self.r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        else:
            raise SystemExit("redis-server did not start")
        self.r.config_set("latency-monitor-threshold", 1)
        self.r.config_set("slowlog-log-slower-than", 200)  # µs
        self.r.config_set("slowlog-max-len", 100000)
        self.version = self.r.info("server")["redis_version"]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


class Probe(threading.Thread):
    """Pings Redis every millisecond and keeps the longest answer: how long a client waited while
    a clean ran."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.r = redis.Redis(host="127.0.0.1", port=port)
        self.stop_flag = threading.Event()
        self.max_ms = 0.0
        self.pings = 0

    def run(self):
        while not self.stop_flag.is_set():
            t0 = time.perf_counter()
            self.r.ping()
            self.max_ms = max(self.max_ms, (time.perf_counter() - t0) * 1000)
            self.pings += 1
            time.sleep(0.001)

    def stop(self):
        self.stop_flag.set()
        self.join()


# -------------------------------------------------------------------------------------- runs
def read_json_line(proc, what, timeout=600):
    """The next JSON line of a runner (other output is passed through to stderr)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"runner exited before {what} (exit {proc.wait()})")
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                pass
        print(f"    runner: {line}", file=sys.stderr)
    raise RuntimeError(f"no {what} within {timeout} s")


def run_once(server, client, w, n, log):
    """One run of workload `w` through `client` with `n` items: the runner's result plus what the
    server saw."""
    r = server.r
    r.flushall()
    r.script_flush()
    mem_before = data_memory(r)
    if "config" in w:  # the queue's stored configuration (spec 3.2), before the runner starts
        r.hset(f"bench{{{w['id']}}}:config", mapping=w["config"])
    args = list(w.get("args", []))
    if client in w.get("gap", {}):
        args[args.index("--gap-ms") + 1] = w["gap"][client]
    if "group_items" in w:  # groups of `group_items` items each, however many items this run has
        args += ["--groups", str(max(1, n // w["group_items"]))]
    argv = CLIENTS[client]["argv"] + ["--workload", w["runner"], "--url", server.url, "--prefix", f"bench{{{w['id']}}}",
                                      "--n", str(n), "--payload", str(PAYLOAD)] + args
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, cwd=HERE)
    try:
        read_json_line(proc, "ready")
        cpu0 = r.info("cpu")
        r.config_resetstat()
        r.slowlog_reset()
        r.execute_command("LATENCY", "RESET")
        probe = Probe(server.port) if w["kind"] == "clean" else None
        if probe:
            probe.start()
        proc.stdin.write("go\n")
        proc.stdin.flush()
        result = read_json_line(proc, "result")["result"]
        if probe:
            probe.stop()
        info = r.execute_command("INFO", "stats", "commandstats", "cpu")
        slowlog = r.slowlog_get(100000)
        latency = r.execute_command("LATENCY", "LATEST")
        proc.stdin.close()
        if proc.wait(120) != 0:
            raise RuntimeError(f"runner exited with {proc.returncode}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    items = result["items"]
    out = dict(result)
    if w["kind"] != "latency":
        out["rate"] = items / result["seconds"]
    # Commands per item, by name, from INFO commandstats. It counts every command Redis ran:
    # the top-level ones and those run inside scripts and functions (a leaseq FCALL shows up as
    # one fcall plus each RPOP, GET, SET... the function called).
    calls, usec = {}, {}
    for key, value in info.items():
        if key.startswith("cmdstat_"):
            name = key[len("cmdstat_"):]
            if not DRIVER_COMMANDS.match(name):
                calls[name] = value["calls"]
                usec[name] = value["usec"]
    out["commands"] = {k: v / items for k, v in sorted(calls.items())}
    # Server time per item by command (a script's time includes the commands it ran).
    out["commands_usec"] = {k: v / items for k, v in sorted(usec.items())}
    out["commands_per_item"] = sum(calls.values()) / items
    # CPU time per item, of Redis (the whole server process) and of the client process(es): what
    # an item costs even when other processes share the machine and stretch the wall time.
    redis_cpu = lambda i: i["used_cpu_user"] + i["used_cpu_sys"]  # noqa: E731
    out["redis_cpu_us_per_item"] = (redis_cpu(info) - redis_cpu(cpu0)) * 1e6 / items
    if "cpu_seconds" in result:
        out["client_cpu_us_per_item"] = result["cpu_seconds"] * 1e6 / items
    out["script_calls_per_item"] = sum(v for k, v in calls.items() if k in SCRIPT_COMMANDS) / items
    # Round trips: every request a client sends and waits for (one command, a pipeline, or a
    # script call) reaches Redis as one read event, whatever it runs inside. Left out: the
    # driver's INFO (1) and the probe's pings.
    reads = info["total_reads_processed"] - 1 - (probe.pings if probe else 0)
    out["round_trips_per_item"] = max(reads, 0) / items
    # The longest single command Redis ran while the run was measured (SLOWLOG, top-level
    # commands only: a script is one entry however many commands it runs).
    # Redis 7.0 also logs slow commands run inside scripts; the script's own entry covers them.
    # (Redis 7.0 also logs slow commands run inside a script, under the caller's address; the
    # script's own entry is longer and covers them.)
    slow = [e for e in slowlog if not DRIVER_COMMANDS.match(command_name(e).split(" ")[0].lower())]
    if slow:
        worst = max(slow, key=lambda e: e["duration"])
        out["max_command_ms"] = worst["duration"] / 1000
        out["max_command"] = command_name(worst)
        by_name = {}
        for e in slow:
            name = command_name(e)
            by_name[name] = max(by_name.get(name, 0), e["duration"] / 1000)
        out["slowest_commands_ms"] = dict(sorted(by_name.items(), key=lambda kv: -kv[1])[:4])
    else:
        out["max_command_ms"] = 0.0  # none took 0.2 ms or more
    out["latency_monitor_max_ms"] = max((ev[3] for ev in latency), default=0)
    if probe:
        out["probe_max_ms"] = probe.max_ms
    if w["id"] == "add_single":
        time.sleep(0.3)  # let Redis finish rehashing its keyspace table (serverCron)
        out["memory_per_item"] = (data_memory(r) - mem_before) / items
    return out


def run_rate_limit(server, w, clients, scale, log):
    """Workload `rate_limit`: the runners of `clients` (leaseq in several languages) work one
    queue limited to w["max"] leases per w["per_ms"], all at once, for w["seconds"]. The driver
    samples the queue twice per limiter window and reports the leases per 10 s of wall time and
    the commands the runners send."""
    r = server.r
    r.flushall()
    r.script_flush()
    prefix = f"bench{{{w['id']}}}"
    queue_key, leased_key, limit_key = f"{prefix}:queue", f"{prefix}:leased", f"{prefix}:limit"
    # The limit, written as the stored configuration every client of the queue reads
    # (spec/PROTOCOL.md 5.19: QueueConfig.rate_limit = RateLimit { max, per } is stored as
    # P:config fields rate_max and rate_per_ms); set here directly, with redis-py, so that the
    # run does not depend on any one binding's setter.
    r.hset(f"{prefix}:config", mapping={"rate_max": w["max"], "rate_per_ms": w["per_ms"]})
    measured_s = w["seconds"] * scale
    # The runners stop by themselves a little after the driver's last sample: every sample is
    # taken while all of them run.
    duration_ms = int((measured_s + 4) * 1000)
    ns = {c: max(1, int(w["n"][c] * scale)) for c in clients}
    procs = {}
    try:
        for c in clients:
            argv = CLIENTS[c]["argv"] + ["--workload", w["runner"], "--url", server.url, "--prefix", prefix,
                                         "--n", str(ns[c]), "--payload", str(PAYLOAD)] + list(w.get("args", [])) + \
                ["--duration-ms", str(duration_ms)]
            procs[c] = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                                        cwd=HERE)
        for c, proc in procs.items():
            read_json_line(proc, f"{c} ready")
        prefilled = sum(ns.values())
        if r.llen(queue_key) != prefilled:
            raise RuntimeError(f"{r.llen(queue_key)} items waiting after the prefill, expected {prefilled}")
        r.config_resetstat()

        def sample():
            # One request: the queue's lengths, the limiter window's time left, and the server's
            # counters. Each sample adds its own LLEN, ZCARD and PTTL (1 each) and one read
            # event to the counters; they are taken off below.
            p = r.pipeline(transaction=False)
            p.llen(queue_key)
            p.zcard(leased_key)
            p.pttl(limit_key)
            p.execute_command("INFO", "stats", "commandstats", "cpu")
            waiting, leased, pttl, info = p.execute()
            t = time.monotonic()
            calls = {k[len("cmdstat_"):]: v["calls"] for k, v in info.items()
                     if k.startswith("cmdstat_") and not DRIVER_COMMANDS.match(k[len("cmdstat_"):])}
            return dict(t=t, waiting=waiting, leased=leased, pttl=pttl, calls=calls,
                        reads=info["total_reads_processed"], cpu=info["used_cpu_user"] + info["used_cpu_sys"])

        samples = [dict(sample(), i=0)]
        for proc in procs.values():
            proc.stdin.write("go\n")
            proc.stdin.flush()
        t_go = time.monotonic()
        end = None
        # Two samples per limiter window: "early" (about 700 ms left: the window's leases, taken
        # at its start, are done) and "late" (about 100 ms left: only waiting since the early
        # one). Counting from early sample to early sample cuts no window's leases in two. A
        # sample with more than 850 ms left ("busy": the window's leases may still be under way)
        # is followed by an early one.
        while True:
            time.sleep(0.001)
            s = sample()
            s["i"] = len(samples)
            p = s["pttl"]
            s["kind"] = "busy" if p > 850 else "early" if p > 400 else "late" if p > 0 else "none"
            samples.append(s)
            if end is None and s["kind"] == "early":
                end = s["t"] + measured_s + 0.5
            delay = ((p - 700) if p > 850 else (p - 100) if p > 400 else (p + 300) if p > 0 else 200) / 1000
            if time.monotonic() - t_go > measured_s + 3 or (end is not None and s["t"] + delay > end):
                break
            time.sleep(max(delay - 0.001, 0))
        per_runner = {}
        for c, proc in procs.items():
            per_runner[c] = read_json_line(proc, f"{c} result", timeout=120)["result"]
        for proc in procs.values():
            proc.stdin.close()
        for c, proc in procs.items():
            if proc.wait(60) != 0:
                raise RuntimeError(f"{c} exited with {proc.returncode}")
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    def delta(a, b):
        """Calls by command name between samples a and b (b later), the driver's own taken off."""
        out = {}
        for name in set(a["calls"]) | set(b["calls"]):
            n = b["calls"].get(name, 0) - a["calls"].get(name, 0)
            if name in ("llen", "zcard", "pttl"):
                n -= b["i"] - a["i"]
            if n:
                out[name] = n
        return out, b["reads"] - a["reads"] - (b["i"] - a["i"])

    nrun = len(clients)
    boundaries = [s for s in samples if s.get("kind") == "early"]
    step = int(round(w["window_s"] * 1000 / w["per_ms"]))  # limiter windows per reported window
    windows = []
    for i in range(0, len(boundaries) - step, step):
        a, b = boundaries[i], boundaries[i + step]
        secs = b["t"] - a["t"]
        leases = a["waiting"] - b["waiting"]
        completed = (a["waiting"] + a["leased"]) - (b["waiting"] + b["leased"])
        rate = leases / secs
        windows.append(dict(start_s=a["t"] - t_go, seconds=secs, limiter_windows=step, leases=leases,
                            completed=completed, leases_per_s=rate, deviation=rate * w["per_ms"] / 1000 / w["max"] - 1))
    limit_per_s = w["max"] * 1000 / w["per_ms"]
    first, last = (boundaries[0], boundaries[-1]) if len(boundaries) > 1 else (samples[0], samples[-1])
    span = last["t"] - first["t"]
    leases = first["waiting"] - last["waiting"]
    out = dict(items=leases, seconds=span, rate=leases / span if span else 0.0, limit_per_s=limit_per_s,
               max=w["max"], per_ms=w["per_ms"], window_s=w["window_s"], prefilled=prefilled, runners=per_runner,
               concurrency=int(w["args"][w["args"].index("--workers") + 1]) if "--workers" in w.get("args", []) else 1,
               windows=windows)
    out["deviation"] = out["rate"] / limit_per_s - 1 if span else None
    out["worst_deviation"] = max((x["deviation"] for x in windows), key=abs) if windows else None
    # Commands over the whole run (go to the last sample), per second and per runner: requests
    # (read events: what the runners send and wait for), FCALL (leaseq's script calls), BLMOVE
    # (a waiting lease's wait on the lists) and every command Redis ran, those inside the
    # scripts included.
    def rates_of(calls, reads, secs):
        return dict(requests=reads / secs / nrun, fcall=calls.get("fcall", 0) / secs / nrun,
                    blmove=calls.get("blmove", 0) / secs / nrun, all_commands=sum(calls.values()) / secs / nrun)

    calls, reads = delta(samples[0], samples[-1])
    whole_s = samples[-1]["t"] - samples[0]["t"]
    out["per_runner_per_s"] = rates_of(calls, reads, whole_s)
    out["commands"] = {k: v / whole_s for k, v in sorted(calls.items())}  # per second, all runners
    out["redis_cpu_us_per_item"] = (samples[-1]["cpu"] - samples[0]["cpu"]) * 1e6 / max(samples[0]["waiting"] - samples[-1]["waiting"], 1)
    # While the runners wait for the window: from each early sample to the late one of the same
    # limiter window, when nothing was leased between them.
    wait_calls, wait_reads, wait_s, intervals, skipped = {}, 0, 0.0, 0, 0
    for a, b in zip(samples, samples[1:]):
        if a.get("kind") != "early" or b.get("kind") != "late":
            continue
        if a["waiting"] != b["waiting"] or b["t"] - a["t"] > a["pttl"] / 1000:
            skipped += 1
            continue
        c, rd = delta(a, b)
        for k, v in c.items():
            wait_calls[k] = wait_calls.get(k, 0) + v
        wait_reads += rd
        wait_s += b["t"] - a["t"]
        intervals += 1
    out["waiting"] = dict(seconds=wait_s, intervals=intervals, skipped=skipped,
                          per_runner_per_s=rates_of(wait_calls, wait_reads, wait_s) if wait_s else None,
                          commands=wait_calls)
    out["samples"] = [dict(t=round(s["t"] - t_go, 4), waiting=s["waiting"], leased=s["leased"], pttl=s["pttl"],
                           kind=s.get("kind", "start")) for s in samples]
    return out


def data_memory(r):
    """INFO used_memory without what scripts and function libraries take (loaded by a run's first
    call, not per item): the memory the queue's keys take."""
    info = r.info("memory")
    return info["used_memory"] - info.get("used_memory_scripts", 0)


def command_name(entry):
    """A slow log entry's command, with leaseq's functions named: `FCALL deep_check` (the
    library's name, leaseq_<hash>_, dropped)."""
    cmd = entry.get("command", b"")
    if isinstance(cmd, bytes):
        cmd = cmd.decode(errors="replace")
    words = cmd.split(" ")
    if words[0].upper() == "FCALL" and len(words) > 1:
        return "FCALL " + re.sub(r"^leaseq_[0-9a-f]{12}_", "", words[1])
    return words[0]


def run_ceilings(server, runs):
    """redis-benchmark on the same server: what Redis itself does with one command per item."""
    r = server.r
    out = {}
    for name, clients, pipeline, command in CEILINGS:
        n = 100000 * clients if pipeline == 1 else 2000000
        rates, p50s, p99s = [], [], []
        for _ in range(runs):
            r.flushall()
            r.lpush("bench:l", *range(1000))
            rand = ["-r", "100000000"] if any("__rand_int__" in c for c in command) else []
            res = subprocess.run(
                ["redis-benchmark", "-h", "127.0.0.1", "-p", str(server.port), "-c", str(clients), "-n", str(n),
                 "-P", str(pipeline), "--csv"] + rand + command, capture_output=True, text=True, check=True)
            rows = [line for line in res.stdout.splitlines() if line.strip()]
            head = [h.strip('"') for h in rows[0].split(",")]
            vals = [v.strip('"') for v in rows[-1].split(",")]
            row = dict(zip(head, vals))
            rates.append(float(row["rps"]))
            p50s.append(float(row.get("p50_latency_ms", "nan")) * 1000)
            p99s.append(float(row.get("p99_latency_ms", "nan")) * 1000)
        out[name] = dict(rate=statistics.median(rates), rate_min=min(rates), rate_max=max(rates),
                         p50_us=statistics.median(p50s), p99_us=statistics.median(p99s), runs=rates)
        print(f"  {name:18s} {out[name]['rate']:>12,.0f} /s", flush=True)
    # Any add writes two things, the data and the queue entry: the pipelined SET and LPUSH
    # together are what Redis itself can do for an add (1 / (1/SET + 1/LPUSH)).
    if "SET c=1 P=1000" in out and "LPUSH c=1 P=1000" in out:
        both = 1 / (1 / out["SET c=1 P=1000"]["rate"] + 1 / out["LPUSH c=1 P=1000"]["rate"])
        out["SET+LPUSH P=1000"] = dict(rate=both, rate_min=both, rate_max=both, p50_us=None,
                                       p99_us=None, runs=[], derived=True)
    return out


# --------------------------------------------------------------------------------- reporting
def summarize(runs, key):
    values = [r[key] for r in runs if key in r]
    if not values:
        return None
    return dict(median=statistics.median(values), min=min(values), max=max(values))


def median_run(runs, key):
    """The run whose `key` is the median (its commandstats and memory are reported)."""
    ordered = sorted(runs, key=lambda r: r[key])
    return ordered[len(ordered) // 2]


def build_rows(results, ceilings):
    """One row per (workload, client) with medians and, for leaseq, the ratios."""
    rows = []
    for w in WORKLOADS:
        res = results.get(w["id"], {})
        if not res:
            continue
        if w["kind"] == "rate_limit":
            # The run with the worst 10 s window (of one, by default).
            for client, runs in res.items():
                worst = max(runs, key=lambda r: abs(r["worst_deviation"] or 0))
                rows.append(dict(worst, workload=w["id"], title=w["title"], kind="rate_limit", client=client,
                                 leaseq=True, runs=len(runs), tolerance=w.get("tolerance", 0.02)))
            continue
        if w["kind"] == "partitioned":  # issue 27, bench/cluster.py
            rows.extend(cluster.rows(w, res))
            continue
        if w["kind"] == "costs":
            for client, runs in res.items():
                names = runs[0]["costs_us"].keys()
                rows.append(dict(workload=w["id"], title=w["title"], kind="costs", client=client, leaseq=True,
                                 n=runs[0]["items"], runs=len(runs),
                                 costs_us={k: summarize([r["costs_us"] for r in runs], k) for k in names}))
            continue
        key = {"rate": "rate", "latency": "p50_us", "clean": "seconds"}[w["kind"]]
        peers = {c: summarize(runs, key)["median"] for c, runs in res.items()
                 if not CLIENTS[c]["leaseq"] and not CLIENTS[c].get("baseline")}
        best_peer = None
        if peers:
            pick = max if w["kind"] == "rate" else min
            best_peer = pick(peers, key=peers.get)
        ceiling = ceilings.get(w.get("ceiling", ""), None)
        for client, runs in res.items():
            mid = median_run(runs, key)
            row = dict(workload=w["id"], title=w["title"], kind=w["kind"], client=client,
                       leaseq=CLIENTS[client]["leaseq"], n=runs[0]["items"], runs=len(runs))
            for k in ("rate", "p50_us", "p99_us", "seconds", "redis_cpu_us_per_item", "client_cpu_us_per_item"):
                s = summarize(runs, k)
                if s:
                    row[k] = s
            for k in ("commands_per_item", "script_calls_per_item", "round_trips_per_item", "commands", "commands_usec",
                      "memory_per_item", "max_command_ms", "max_command", "probe_max_ms",
                      "latency_monitor_max_ms", "requeued", "removed", "slowest_commands_ms"):
                if k in mid:
                    row[k] = mid[k]
            # Memory: the smallest of the runs. A run's figure can only be too high (a client's
            # buffers not yet freed, the allocator's timing), never too low.
            mems = [r["memory_per_item"] for r in runs if "memory_per_item" in r]
            if mems:
                row["memory_per_item"] = min(mems)
            if "slowest_commands_ms" in row:
                row["slowest_commands_ms"] = {k: v for k, v in row["slowest_commands_ms"].items()
                                              if not DRIVER_COMMANDS.match(k.split(" ")[0])}
            if w["kind"] == "clean":
                worst = max(runs, key=lambda r: r.get("max_command_ms", 0))
                row["max_command_ms_all_runs"] = worst.get("max_command_ms", 0)
                row["max_command_all_runs"] = worst.get("max_command", "-")
            value = row.get(key, {}).get("median")
            if row["leaseq"] and value:
                if best_peer:
                    row["best_peer"] = best_peer
                    # > 1 means leaseq is better: faster rate, or shorter latency / wall time.
                    row["vs_best_peer"] = value / peers[best_peer] if w["kind"] == "rate" else peers[best_peer] / value
                if ceiling:
                    row["ceiling"] = w["ceiling"]
                    row["vs_ceiling"] = value / ceiling["rate"] if w["kind"] == "rate" else ceiling["p50_us"] / value
            rows.append(row)
    return rows


def fmt_rate(s):
    return f"{s['median']:>9,.0f}  {s['min']:>9,.0f}-{s['max']:<9,.0f}"


def print_table(rows, ceilings):
    print()
    print("Throughput (items/s: median of runs, min-max); ratios: leaseq / best peer and leaseq / redis-benchmark")
    print("ceiling (for latency: best peer p50 / leaseq p50; > 1 = leaseq better). Per item: round trips (rt/it),")
    print("commands Redis ran incl. inside scripts (cmd/it), CPU time of Redis and of the client (µs, median).")
    print()
    head = (f"{'workload':40s} {'client':21s} {'median':>9s}  {'min-max':19s} {'÷peer':>6s} {'best peer':15s} {'÷ceil':>6s} "
            f"{'rt/it':>6s} {'cmd/it':>6s} {'Redis µs':>8s} {'client µs':>9s}")
    print(head)
    print("-" * len(head))
    last = None
    for row in rows:
        if row["kind"] in ("clean", "costs", "rate_limit", "partitioned"):
            continue
        title = row["title"] if row["workload"] != last else ""
        last = row["workload"]
        if row["kind"] == "rate":
            val = fmt_rate(row["rate"])
        else:
            val = f"{row['p50_us']['median']:>7,.0f}µs  p99 {row['p99_us']['median']:>7,.0f}µs      "
        ratio = f"{row['vs_best_peer']:6.2f}" if "vs_best_peer" in row else " " * 6
        peer = f"{row.get('best_peer', ''):15s}"
        ceil = f"{row['vs_ceiling']:6.2f}" if "vs_ceiling" in row else " " * 6
        cpu = lambda k: f"{row[k]['median']:.1f}" if k in row else "-"  # noqa: E731
        print(f"{title:40s} {row['client']:21s} {val} {ratio} {peer} {ceil} {row['round_trips_per_item']:6.2f} "
              f"{row['commands_per_item']:6.1f} {cpu('redis_cpu_us_per_item'):>8s} {cpu('client_cpu_us_per_item'):>9s}")
    cluster.print_section(rows)
    print()
    print("Cleaning (wall time; longest single Redis command (SLOWLOG) and longest PING seen by a probe)")
    print()
    head = f"{'workload':44s} {'client':14s} {'wall s':>7s}  {'min-max':13s} {'ids/s':>10s} {'max cmd ms':>10s} {'probe ms':>8s} {'requeued':>8s}"
    print(head)
    print("-" * len(head))
    for row in rows:
        if row["kind"] != "clean":
            continue
        s = row["seconds"]
        print(f"{row['title']:44s} {row['client']:14s} {s['median']:7.2f}  {s['min']:5.2f}-{s['max']:<7.2f} "
              f"{row['rate']['median']:>10,.0f} {row['max_command_ms_all_runs']:10.2f} {row.get('probe_max_ms', 0):8.1f} "
              f"{row.get('requeued', '-')!s:>8s}")
        slowest = ", ".join(f"{k} {v:.1f}" for k, v in row.get("slowest_commands_ms", {}).items())
        if slowest:
            print(f"{'':44s}   slowest commands (ms, median run): {slowest}")
    for row in rows:
        if row["kind"] == "costs":
            print()
            print(f"Where one leaseq call's time goes ({row['client']}, µs per call, one call at a time; median, min-max)")
            print()
            for name, s in row["costs_us"].items():
                print(f"  {name:32s} {s['median']:7.1f}  {s['min']:6.1f}-{s['max']:<6.1f}")
    for row in rows:
        if row["kind"] == "rate_limit":
            print_rate_limit(row)
    print()
    print("Redis memory per queued item (INFO used_memory delta / items, 64-byte payload)")
    print()
    for row in rows:
        if row["workload"] == "add_single" and "memory_per_item" in row:
            print(f"  {row['client']:14s} {row['memory_per_item']:8.0f} bytes")
    print()
    print("Ceiling: redis-benchmark on the same server (requests/s, median; p50/p99 latency)")
    print()
    for name, c in ceilings.items():
        lat = f"p50 {c['p50_us']:6.0f}µs  p99 {c['p99_us']:6.0f}µs" if c.get("p50_us") is not None else "(derived: 1 / (1/SET + 1/LPUSH))"
        print(f"  {name:18s} {c['rate']:>12,.0f} /s   {lat}")


def print_rate_limit(row):
    """The rate_limit workload's section of the report."""
    print()
    runners = ", ".join(row["runners"])
    print(f"Rate limit: {row['max']:,} leases per {row['per_ms']:,} ms (P:config rate_max, rate_per_ms) on one queue of "
          f"{row['prefilled']:,} items, worked at once by {len(row['runners'])} runners ({runners}) at concurrency "
          f"{row['concurrency']} each, no-op handler. Leases counted by the driver between samples taken mid limiter "
          f"window, per {row['window_s']} s of wall time; limit {row['limit_per_s']:,.0f}/s")
    print()
    head = f"  {'window':>6s} {'from s':>7s} {'seconds':>8s} {'leases':>8s} {'leases/s':>9s} {'vs limit':>9s} {'completed':>10s}"
    print(head)
    print("  " + "-" * (len(head) - 2))
    for i, x in enumerate(row["windows"], 1):
        print(f"  {i:6d} {x['start_s']:7.2f} {x['seconds']:8.3f} {x['leases']:8,d} {x['leases_per_s']:9,.1f} "
              f"{x['deviation']:+9.2%} {x['completed']:10,d}")
    dev = f"{row['deviation']:+9.2%}" if row.get("deviation") is not None else f"{'-':>9s}"
    print(f"  {'all':>6s} {'':7s} {row['seconds']:8.3f} {row['items']:8,d} {row['rate']:9,.1f} {dev}")
    worst = row["worst_deviation"]
    print(f"  worst {row['window_s']} s window: " + (f"{worst:+.2%}" if worst is not None else "none measured") +
          f" (need within {row['tolerance']:.0%}); Redis CPU {row['redis_cpu_us_per_item']:.1f} µs per lease")
    print("  completed per runner: " + ", ".join(f"{c} {r['items']:,}" for c, r in row["runners"].items()))
    wr = row["per_runner_per_s"]
    print(f"  per runner per second, whole run: {wr['requests']:.1f} requests (FCALL {wr['fcall']:.1f}, BLMOVE "
          f"{wr['blmove']:.2f}); {wr['all_commands']:.0f} commands incl. those inside scripts")
    wt = row["waiting"]
    if wt["per_runner_per_s"]:
        x = wt["per_runner_per_s"]
        print(f"  per runner per second, while waiting for the window ({wt['intervals']} intervals after a window's "
              f"leases, {wt['seconds']:.1f} s in all): {x['requests']:.2f} requests (FCALL {x['fcall']:.2f}, BLMOVE "
              f"{x['blmove']:.2f}); {x['all_commands']:.2f} commands incl. inside scripts")
        if wt["commands"]:
            print("    commands while waiting, all runners: " + ", ".join(f"{k} {v}" for k, v in sorted(wt["commands"].items())))


def targets(rows, ceilings, raw):
    """The issue's targets, each met or not, with its figures. A ratio is taken run by run (run i
    of one client against run i of the other, which ran right after it) and the median of those
    ratios is what must reach the target: the machine's speed drifts between runs, and the
    pairs cancel most of that drift."""
    def find(workload, client):
        for row in rows:
            if row["workload"] == workload and row["client"] == client:
                return row
        return None

    def rates(workload, client):
        return [r["rate"] for r in raw.get(workload, {}).get(client, []) if "rate" in r] or None

    out = []

    def ratio_target(name, a, b, need, an, bn):
        if not a or not b:
            missing = an if not a else bn
            out.append(dict(target=name, met=None, detail=f"not measured: {missing} did not run"))
            return
        ratios = [x / y for x, y in zip(a, b)]
        r = statistics.median(ratios)
        out.append(dict(target=name, met=r >= need, ratio=r, ratios=ratios, need=need,
                        detail=f"{an} {statistics.median(a):,.0f}/s vs {bn} {statistics.median(b):,.0f}/s (medians); "
                               f"run by run {r:.2f}x (median; {min(ratios):.2f}-{max(ratios):.2f}), need {need}x"))

    ratio_target("leaseq Rust >= 3x redis-work-queue Rust, lease+complete, 1 worker",
                 rates("lease_complete_1", "leaseq-rust"), rates("lease_complete_1", "rwq-rust"), 3, "leaseq-rust", "rwq-rust")
    ratio_target("leaseq Python >= 3x redis-work-queue Python, lease+complete, 1 worker",
                 rates("lease_complete_1", "leaseq-python"), rates("lease_complete_1", "rwq-python"), 3, "leaseq-python", "rwq-python")
    ratio_target("leaseq Python >= 3x redis-work-queue Python, lease then complete (two calls), 1 worker",
                 rates("lease_then_complete_1", "leaseq-python"), rates("lease_then_complete_1", "rwq-python"), 3,
                 "leaseq-python", "rwq-python")
    ratio_target("leaseq Python >= 2x redis-work-queue Python, add one call per item",
                 rates("add_single", "leaseq-python"), rates("add_single", "rwq-python"), 2, "leaseq-python", "rwq-python")
    # Every single call waits for one round trip at least, which no client's work shortens: what
    # redis-benchmark's C client gets with one command per round trip. On a virtual machine it is
    # mostly waking the two processes' idle CPUs (bench/README.md, "A round trip's floor").
    floor = ceilings.get("LPUSH c=1", {}).get("rate")
    if out[-1]["met"] is not None and floor:
        rt = 1e6 / floor
        a = 1e6 / statistics.median(rates("add_single", "leaseq-python"))
        b = 1e6 / statistics.median(rates("add_single", "rwq-python"))
        out[-1]["round_trip_us"] = rt
        out[-1]["beyond_round_trip"] = (b - rt) / (a - rt) if a > rt else None
        beyond = f"{(b - rt) / (a - rt):.2f}x" if a > rt else "n/a"
        out[-1]["detail"] += (f"; a bare round trip (redis-benchmark LPUSH c=1) {rt:.0f} µs, an add {a:.0f} µs "
                              f"against {b:.0f} µs: beyond the round trip {beyond}; 2x needs an add in "
                              f"{b / 2:.0f} µs")
    ratio_target("leaseq Node >= BullMQ, lease+complete, concurrency 1",
                 rates("lease_complete_1", "leaseq-node"), rates("lease_complete_1", "bullmq"), 1, "leaseq-node", "bullmq")
    ratio_target("leaseq Node >= BullMQ, lease+complete, concurrency 8",
                 rates("lease_complete_8", "leaseq-node"), rates("lease_complete_8", "bullmq"), 1, "leaseq-node", "bullmq")
    lp = ceilings.get("LPUSH c=1 P=1000", {}).get("runs")
    ratio_target("leaseq batched add >= 50% of pipelined LPUSH",
                 rates("add_batch", "leaseq-rust"), lp, 0.5, "leaseq-rust add_batch", "redis-benchmark LPUSH P=1000")
    both = ceilings.get("SET+LPUSH P=1000", {}).get("rate")
    if out[-1]["met"] is not None and both:
        a = statistics.median(rates("add_batch", "leaseq-rust"))
        out[-1]["vs_set_lpush"] = a / both
        out[-1]["detail"] += (f"; against pipelined SET+LPUSH, the two writes any add makes "
                              f"({both:,.0f}/s): {a / both:.2f}x")
    ratio_target("lease+complete at 100,000 in flight >= 50% of its rate at 10 in flight",
                 rates("inflight_100000", "leaseq-rust"), rates("inflight_10", "leaseq-rust"), 0.5,
                 "leaseq-rust at 100,000", "at 10")
    # Issue 10 (the job lifecycle): a plain item costs what it cost before, measured in the same
    # run against protocol v1's scripts.
    def cpu(workload, client):
        return [r["redis_cpu_us_per_item"] for r in raw.get(workload, {}).get(client, [])
                if "redis_cpu_us_per_item" in r] or None

    v2, v1 = cpu("lease_complete_1", "leaseq-rust"), cpu("lease_complete_1", "leaseq-v1")
    if v2 and v1:
        ratios = [a / b for a, b in zip(v2, v1)]
        r = statistics.median(ratios)
        out.append(dict(target="plain lease+complete costs at most 10% more Redis CPU per item than protocol v1",
                        met=r <= 1.10, ratio=r, ratios=ratios,
                        detail=f"Redis CPU {statistics.median(v2):.1f} µs/item (v2) vs {statistics.median(v1):.1f} (v1), "
                               f"run by run {r:.2f}x (median; {min(ratios):.2f}-{max(ratios):.2f}), need <= 1.10x"))
    else:
        out.append(dict(target="plain lease+complete costs at most 10% more Redis CPU per item than protocol v1",
                        met=None, detail="not measured: leaseq-rust or leaseq-v1 did not run"))
    m2, m1 = find("add_single", "leaseq-rust"), find("add_single", "leaseq-v1")
    if m2 and m1 and "memory_per_item" in m2 and "memory_per_item" in m1:
        a, b = m2["memory_per_item"], m1["memory_per_item"]
        out.append(dict(target="a plain item takes no more Redis memory than with protocol v1", met=a <= b + 2,
                        detail=f"{a:.0f} bytes per queued item (v2) vs {b:.0f} (v1), 64-byte payload; need v2 <= v1 (+2 bytes of allocator noise)"))
    else:
        out.append(dict(target="a plain item takes no more Redis memory than with protocol v1", met=None,
                        detail="not measured"))
    ratio_target("100,000 delayed items not yet due leave plain leasing within 10%",
                 rates("delayed_backlog", "leaseq-rust"), rates("lease_complete_1", "leaseq-rust"), 0.9,
                 "with 100,000 delayed", "with none")
    # Issue 25 (groups): leasing grouped items against plain leasing, same run, with what a
    # grouped item costs Redis beside a plain one.
    for wid, what in (("groups_10k", "10,000 groups of 10 items"), ("group_one", "one group of 100,000 items")):
        ratio_target(f"leasing with {what} >= 80% of plain lease+complete's rate, 1 worker",
                     rates(wid, "leaseq-rust"), rates("lease_complete_1", "leaseq-rust"), 0.8,
                     f"leaseq-rust {wid}", "plain lease_complete_1")
        g, p = cpu(wid, "leaseq-rust"), cpu("lease_complete_1", "leaseq-rust")
        if out[-1]["met"] is not None and g and p:
            row = find(wid, "leaseq-rust")
            out[-1]["redis_cpu_us_per_item"] = statistics.median(g)
            out[-1]["plain_redis_cpu_us_per_item"] = statistics.median(p)
            out[-1]["commands_per_item"] = row["commands_per_item"]
            out[-1]["plain_commands_per_item"] = find("lease_complete_1", "leaseq-rust")["commands_per_item"]
            out[-1]["detail"] += (f"; Redis CPU {statistics.median(g):.1f} µs/item vs {statistics.median(p):.1f} plain "
                                  f"({statistics.median(g) / statistics.median(p):.2f}x), {row['commands_per_item']:.1f} "
                                  f"commands/item vs {out[-1]['plain_commands_per_item']:.1f}")
    # Issue 27 (producers): batched add against redis-work-queue's pipelined add, and adds with
    # options within 2x of plain adds per item, same run, with Redis CPU per added item.
    ratio_target("leaseq batched add >= redis-work-queue's pipelined add (Rust)",
                 rates("add_batch", "leaseq-rust"), rates("add_batch", "rwq-rust"), 1.0,
                 "leaseq-rust add_batch", "rwq-rust add_batch")
    a, b = cpu("add_batch", "leaseq-rust"), cpu("add_batch", "rwq-rust")
    if out[-1]["met"] is not None and a and b:
        out[-1]["detail"] += (f"; Redis CPU {statistics.median(a):.2f} µs/item vs {statistics.median(b):.2f}")
    ratio_target("leaseq Python single add >= 2x redis-work-queue Python",
                 rates("add_single", "leaseq-python"), rates("add_single", "rwq-python"), 2.0,
                 "leaseq-python add_single", "rwq-python add_single")
    for wid, what in (("add_batch_delay", "delayed"), ("add_batch_priority", "at a priority"),
                      ("add_batch_group", "in groups")):
        ratio_target(f"batched add of items {what} >= 50% of plain batched add's rate",
                     rates(wid, "leaseq-rust"), rates("add_batch", "leaseq-rust"), 0.5,
                     f"leaseq-rust {wid}", "plain add_batch")
        g, p = cpu(wid, "leaseq-rust"), cpu("add_batch", "leaseq-rust")
        if out[-1]["met"] is not None and g and p:
            out[-1]["detail"] += (f"; Redis CPU {statistics.median(g):.2f} µs/item vs {statistics.median(p):.2f} plain "
                                  f"({statistics.median(g) / statistics.median(p):.2f}x)")
    # Tarantool's busy `utube` case: a busy group of 150,000 items beside the measured groups
    # must cost a lease nothing (the ring holds ready groups only). Held by commands per item,
    # which the machine's load does not move, against groups_10k's; the rate is reported too.
    busy, ten = find("groups_busy", "leaseq-rust"), find("groups_10k", "leaseq-rust")
    name = "a busy group of 150,000 items adds no command to a grouped lease (Tarantool's busy utube)"
    if busy and ten:
        b, t = busy["commands_per_item"], ten["commands_per_item"]
        rb, rt = rates("groups_busy", "leaseq-rust"), rates("groups_10k", "leaseq-rust")
        out.append(dict(target=name, met=b <= t + 0.5,
                        detail=f"{b:.1f} commands/item beside the busy group vs {t:.1f} in groups_10k (need <= +0.5); "
                               f"{statistics.median(rb):,.0f}/s vs {statistics.median(rt):,.0f}/s (medians)"))
    else:
        out.append(dict(target=name, met=None, detail="not measured: groups_busy or groups_10k did not run"))
    # Issue 27 (runners): the Rust runner against redis-work-queue Rust's 50 tasks, in rate and in
    # Redis CPU per item, and the Node runner against the Rust runner, same run, run by run.
    ratio_target("leaseq Rust runner >= 1.2x redis-work-queue Rust (50 tasks), no-op handler, concurrency 50",
                 rates("runner_c50", "leaseq-rust"), rates("runner_c50", "rwq-rust"), 1.2, "leaseq-rust", "rwq-rust")
    # Each client on the runtime it is fastest on, when the other runtimes ran: the same binary,
    # the same workload, only tokio's scheduler differs.
    by_runtime = {c: {rt: statistics.median(r) for rt, name in (("multi", c), ("one", f"{c}-one"), ("current", f"{c}-current"))
                      if (r := rates("runner_c50", name))}
                  for c in ("leaseq-rust", "rwq-rust")}
    if out[-1]["met"] is not None and all(len(got) > 1 for got in by_runtime.values()):
        (lrt, lr), (rrt, rr) = (max(by_runtime[c].items(), key=lambda kv: kv[1]) for c in ("leaseq-rust", "rwq-rust"))
        out[-1]["best_runtime"] = dict(leaseq=[lrt, lr], rwq=[rrt, rr], ratio=lr / rr)
        out[-1]["detail"] += (f"; each on its fastest tokio runtime: leaseq {lr:,.0f}/s ({lrt}) vs "
                              f"redis-work-queue {rr:,.0f}/s ({rrt}), {lr / rr:.2f}x")
    a, b = cpu("runner_c50", "leaseq-rust"), cpu("runner_c50", "rwq-rust")
    name = "leaseq Rust runner's Redis CPU per item <= 0.8x redis-work-queue Rust's, concurrency 50"
    if a and b:
        ratios = [x / y for x, y in zip(a, b)]
        r = statistics.median(ratios)
        out.append(dict(target=name, met=r <= 0.8, ratio=r, ratios=ratios,
                        detail=f"{statistics.median(a):.1f} µs/item vs {statistics.median(b):.1f}, run by run {r:.2f}x "
                               f"(median; {min(ratios):.2f}-{max(ratios):.2f}), need <= 0.8x"))
    else:
        out.append(dict(target=name, met=None, detail="not measured: leaseq-rust or rwq-rust did not run"))
    ratio_target("leaseq Node runner >= 0.9x the Rust runner, no-op handler, concurrency 50",
                 rates("runner_c50", "leaseq-node"), rates("runner_c50", "leaseq-rust"), 0.9, "leaseq-node", "leaseq-rust")
    # Issue 11 (runners).
    ratio_target("leaseq Node runner >= 5x BullMQ Worker, no-op handler, concurrency 50",
                 rates("runner_c50", "leaseq-node"), rates("runner_c50", "bullmq"), 5, "leaseq-node", "bullmq")
    ratio_target("leaseq Python runner (asyncio) >= 2x BullMQ Worker, no-op handler, concurrency 50",
                 rates("runner_c50", "leaseq-python"), rates("runner_c50", "bullmq"), 2, "leaseq-python", "bullmq")
    ratio_target("leaseq Python runner (asyncio) >= 20x RQ, no-op handler, concurrency 50",
                 rates("runner_c50", "leaseq-python"), rates("runner_c50", "rq"), 20, "leaseq-python", "rq")
    ceiling = ceilings.get("LMOVE c=1 P=1000", {}).get("runs")
    ratio_target("leaseq Rust runner >= 10% of pipelined LMOVE, no-op handler, concurrency 50",
                 rates("runner_c50", "leaseq-rust"), ceiling, 0.1, "leaseq-rust runner", "redis-benchmark LMOVE P=1000")
    row = find("runner_c50", "leaseq-rust")
    if row is None:
        out.append(dict(target="leaseq Rust runner: <= 0.1 round trips and <= 10 µs of Redis CPU per item, concurrency 50",
                        met=None, detail="not measured: leaseq-rust did not run"))
    else:
        rt, cpu_us = row["round_trips_per_item"], row["redis_cpu_us_per_item"]["median"]
        out.append(dict(target="leaseq Rust runner <= 0.1 round trips per item, concurrency 50", met=rt <= 0.1,
                        detail=f"{rt:.3f} round trips per item (median run), need <= 0.1"))
        top = sorted(row.get("commands", {}).items(), key=lambda kv: -kv[1])
        out.append(dict(target="leaseq Rust runner <= 10 µs of Redis CPU per item, concurrency 50", met=cpu_us <= 10,
                        detail=f"{cpu_us:.1f} µs of Redis CPU per item (median), need <= 10; {row['commands_per_item']:.1f} "
                               f"commands per item: " + ", ".join(f"{k} {v:.2f}" for k, v in top[:8])))
    # Issue 26 (events): what the event stream costs a runner, measured, not held to a bound
    # (the issue asks for the figure): rate and Redis CPU per item with events on against off,
    # run by run; and the latency from a complete to a follower seeing it.
    for client in ("leaseq-rust", "leaseq-node", "leaseq-python", "leaseq-c"):
        on, off = rates("runner_c50_events", client), rates("runner_c50", client)
        con, coff = cpu("runner_c50_events", client), cpu("runner_c50", client)
        name = f"{client} runner, concurrency 50: events on against off"
        if not (on and off and con and coff):
            out.append(dict(target=name, met=None, detail=f"not measured: {client} did not run both"))
            continue
        rr = statistics.median([a / b for a, b in zip(on, off)])
        cr = statistics.median([a / b for a, b in zip(con, coff)])
        row = find("runner_c50_events", client)
        out.append(dict(target=name, met="info", rate_ratio=rr, cpu_ratio=cr,
                        detail=f"{statistics.median(on):,.0f}/s vs {statistics.median(off):,.0f}/s ({rr:.2f}x run by run); "
                               f"Redis CPU {statistics.median(con):.1f} vs {statistics.median(coff):.1f} µs/item ({cr:.2f}x); "
                               f"XADD {row['commands'].get('xadd', 0):.2f} per item"))
    row = find("follow_latency", "leaseq-rust")
    name = "complete -> a follower of the event stream sees it (leaseq-rust)"
    if row is None:
        out.append(dict(target=name, met=None, detail="not measured"))
    else:
        out.append(dict(target=name, met="info", detail=f"p50 {row['p50_us']['median']:,.0f} µs, "
                        f"p99 {row['p99_us']['median']:,.0f} µs (medians of the runs)"))
    ideal = next(w["ideal"] for w in WORKLOADS if w["id"] == "runner_sleep20_c50")
    for client in ("leaseq-rust", "leaseq-python", "leaseq-node", "leaseq-c"):
        got = rates("runner_sleep20_c50", client)
        name = f"{client} runner, 20 ms handler, concurrency 50: >= 90% of the ideal {ideal:,}/s"
        if not got:
            out.append(dict(target=name, met=None, detail=f"not measured: {client} did not run"))
            continue
        r = statistics.median(got) / ideal
        out.append(dict(target=name, met=r >= 0.9, ratio=r,
                        detail=f"{statistics.median(got):,.0f}/s (median; {min(got):,.0f}-{max(got):,.0f}) = {r:.0%} of ideal"))
    # Issue 25 (rate limits).
    row = find("rate_limit", RATE_LIMIT_CLIENT)
    name = "a queue limited to 1,000 leases/s, runners in 4 languages for 60 s: every 10 s window within 2% of the limit"
    if row is None or not row["windows"]:
        out.append(dict(target=name, met=None, detail="not measured: rate_limit did not run (or ran shorter than a window)"))
    else:
        worst, tol = row["worst_deviation"], row["tolerance"]
        out.append(dict(target=name, met=abs(worst) <= tol and len(row["runners"]) == 4, worst_deviation=worst,
                        detail=f"{len(row['windows'])} windows of {row['window_s']} s: worst {worst:+.2%} "
                               f"({', '.join(format(x['deviation'], '+.2%') for x in row['windows'])}); "
                               f"{row['rate']:,.1f} leases/s over {row['seconds']:.1f} s; runners: {', '.join(row['runners'])}"))
        x = (row["waiting"] or {}).get("per_runner_per_s")
        name = "a runner waiting for the rate limit's window does not spin (at most 2 requests/s, spec 5.19: one lease script per window)"
        if x is None:
            out.append(dict(target=name, met=None, detail="no waiting interval measured"))
        else:
            out.append(dict(target=name, met=x["requests"] <= 2, requests_per_s=x["requests"],
                            detail=f"{x['requests']:.2f} requests/s per runner while waiting (FCALL {x['fcall']:.2f}, "
                                   f"BLMOVE {x['blmove']:.2f}) over {row['waiting']['seconds']:.1f} s; whole run "
                                   f"{row['per_runner_per_s']['requests']:.1f} requests/s per runner"))
    for wid in ("light_clean", "deep_clean", "promote_due"):
        row = find(wid, "leaseq-rust")
        if row is None:
            out.append(dict(target=f"no single {wid} call blocks Redis > 10 ms", met=None, detail="not measured"))
            continue
        worst = row["max_command_ms_all_runs"]
        out.append(dict(target=f"no single {wid.replace('_', ' ')} call blocks Redis for more than 10 ms", met=worst <= 10,
                        max_ms=worst, detail=f"longest command {worst:.2f} ms ({row.get('max_command_all_runs', '-')}) over all runs; "
                        f"probe saw at most {row.get('probe_max_ms', 0):.1f} ms"))
    out.extend(cluster.targets(raw))  # issue 27: partitioned queues on a cluster
    return out


def print_targets(ts):
    print()
    print("Targets")
    print()
    for t in ts:
        mark = {True: "MET    ", False: "NOT MET", None: "MISSING", "info": "MEASURED"}[t["met"]]
        print(f"  [{mark}] {t['target']}\n            {t['detail']}")


def machine():
    mem = 0
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) * 1024
    except OSError:
        pass
    os_name = platform.platform()
    try:
        with open("/etc/os-release") as f:
            os_name = dict(line.rstrip().split("=", 1) for line in f if "=" in line).get("PRETTY_NAME", os_name).strip('"')
    except OSError:
        pass
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    return dict(cores=os.cpu_count(), cpu=cpu, ram_gib=round(mem / 2**30, 1), os=os_name,
                kernel=platform.release(), python=platform.python_version(),
                node=subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip())


def chart(rows, ceilings, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [w for w in WORKLOADS if w["kind"] not in ("costs", "rate_limit", "partitioned") and any(r["workload"] == w["id"] for r in rows)]
    panels.append(dict(id="memory", title="Redis memory per queued item", kind="memory"))
    cols = 3
    nrows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(6 * cols, 3.6 * nrows))
    axes = axes.flatten()
    for ax, w in zip(axes, panels):
        if w["kind"] == "memory":
            sel = [r for r in rows if r["workload"] == "add_single" and "memory_per_item" in r]
            names = [r["client"] for r in sel]
            vals = [r["memory_per_item"] for r in sel]
            unit, err = "bytes / item", None
        else:
            sel = [r for r in rows if r["workload"] == w["id"]]
            names = [r["client"] for r in sel]
            key = {"rate": "rate", "latency": "p50_us", "clean": "seconds"}[w["kind"]]
            vals = [r[key]["median"] for r in sel]
            err = [[r[key]["median"] - r[key]["min"] for r in sel], [r[key]["max"] - r[key]["median"] for r in sel]]
            unit = {"rate": "items/s", "latency": "p50 µs (lower is better)", "clean": "wall s (lower is better)"}[w["kind"]]
        colors = ["#1f77b4" if CLIENTS[n]["leaseq"] else "#aaaaaa" for n in names]
        ax.bar(range(len(vals)), vals, color=colors, yerr=err, capsize=3)
        ax.set_xticks(range(len(vals)))
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
        ax.set_title(w["title"], fontsize=10)
        ax.set_ylabel(unit, fontsize=8)
        c = ceilings.get(w.get("ceiling", "")) if w["kind"] == "rate" else None
        if c and c["rate"] < 3 * max(vals or [0]):
            ax.axhline(c["rate"], color="red", linestyle="--", linewidth=1)
            ax.text(len(vals) - 0.5, c["rate"], f"redis-benchmark {w['ceiling']}", color="red", fontsize=7,
                    ha="right", va="bottom")
        elif c:
            ax.set_title(f"{w['title']}\n(redis-benchmark {w['ceiling']}: {c['rate']:,.0f}/s, off the scale)", fontsize=9)
        if w["kind"] == "latency":
            p99 = [r["p99_us"]["median"] for r in sel]
            ax.scatter(range(len(p99)), p99, marker="_", s=200, color="black", label="p99", zorder=3)
            ax.legend(fontsize=7)
    for ax in axes[len(panels):]:
        ax.axis("off")
    fig.suptitle("leaseq (blue) vs peers (grey), one redis-server, same run; error bars: min-max", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


# -------------------------------------------------------------------------------------- main
def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3, help="runs per (workload, client); the median is reported")
    p.add_argument("--only", default="", help="comma-separated workload ids to run (default: all)")
    p.add_argument("--clients", default="", help="comma-separated clients to run (default: every available one)")
    p.add_argument("--scale", type=float, default=1.0, help="multiply item counts (for a quick try)")
    p.add_argument("--out", default=os.path.join(RESULTS, "latest.json"))
    p.add_argument("--report", metavar="JSON", help="only re-render the report, text and chart of a results file")
    a = p.parse_args()
    if a.report:
        return rerender(a.report)

    only = set(filter(None, a.only.split(",")))
    chosen = set(filter(None, a.clients.split(","))) or set(CLIENTS)
    clients, missing = [], {}
    for name in CLIENTS:
        if name not in chosen:
            continue
        ok, why = available(name)
        if ok:
            clients.append(name)
        else:
            missing[name] = why
    for name, why in missing.items():
        print(f"bench: skipping {name}: {why}", file=sys.stderr)
    # A peer is what our figures are measured against: without it the report would look whole
    # and not be. Leave one out only by naming the clients (--clients).
    missing_peers = [name for name in missing if not CLIENTS[name]["leaseq"] and not a.clients]
    if missing_peers:
        print(f"bench: error: peer(s) not available: {', '.join(missing_peers)}; "
              "fix the install (bench/run.sh) or choose clients with --clients", file=sys.stderr)
        return 1

    os.makedirs(RESULTS, exist_ok=True)
    load_before = os.getloadavg()
    started = time.time()
    server = Server()
    log_path = os.path.join(tempfile.gettempdir(), f"leaseq-bench-runners-{os.getpid()}.log")
    results = {}
    try:
        print(f"bench: redis-server {server.version} on 127.0.0.1:{server.port}; clients: {', '.join(clients)}")
        print("bench: ceiling (redis-benchmark)", flush=True)
        ceilings = run_ceilings(server, a.runs) if not only or "ceiling" in only else {}
        with open(log_path, "w") as log:
            done_early = set()  # workloads already run, interleaved with the one they are held to
            for w in WORKLOADS:
                if (only and w["id"] not in only) or w["id"] in done_early:
                    continue
                todo = [c for c in clients if c in w["n"]]
                if not todo:
                    continue
                if w["kind"] == "partitioned":  # issue 27: all of them at once, on a cluster of their own
                    done_early.update(cluster.run_all(WORKLOADS, only, clients, {c: CLIENTS[c]["argv"] for c in clients},
                                                      a.runs, a.scale, PAYLOAD, results, read_json_line, log))
                    continue
                print(f"bench: {w['title']}", flush=True)
                per = results.setdefault(w["id"], {})
                if w["kind"] == "rate_limit":
                    # All the clients at once, on one queue.
                    for run in range(min(a.runs, w.get("max_runs", a.runs))):
                        t0 = time.time()
                        try:
                            out = run_rate_limit(server, w, todo, a.scale, log)
                        except Exception as e:  # report and go on with the others
                            print(f"  {'+'.join(todo)}: FAILED ({e}); runner output in {log_path}", flush=True)
                            continue
                        per.setdefault(RATE_LIMIT_CLIENT, []).append(out)
                        worst = out["worst_deviation"]
                        wait = (out["waiting"]["per_runner_per_s"] or {}).get("requests", float("nan"))
                        print(f"  run {run + 1} {'+'.join(todo)}: {out['rate']:,.1f} leases/s over {out['seconds']:.1f} s, "
                              f"worst {w['window_s']} s window " + (f"{worst:+.2%}" if worst is not None else "-") +
                              f", {wait:.2f} requests/s per runner while waiting  ({time.time() - t0:.1f} s)", flush=True)
                    continue
                # Runs interleave the clients, so that a slow spell of the machine hits all alike;
                # workloads held to this one (`with_plain`, e.g. groups_10k to lease_complete_1)
                # run interleaved with it too: run 1 of each, then run 2, ... so that run i of
                # one and run i of the other, whose ratio a target takes, ran side by side.
                followers = [w2 for w2 in WORKLOADS if w2.get("with_plain") == w["id"] and (not only or w2["id"] in only)
                             and any(c in w2["n"] for c in clients)]
                if followers:
                    print(f"bench:   interleaved run by run with: {', '.join(w2['title'] for w2 in followers)}", flush=True)
                    done_early.update(w2["id"] for w2 in followers)
                for run in range(a.runs):
                    for w2 in [w] + followers:
                        for client in (c for c in clients if c in w2["n"]):
                            if run >= w2.get("runs", {}).get(client, a.runs):
                                continue
                            n = max(1, int(w2["n"][client] * a.scale))
                            t0 = time.time()
                            tag = f" {w2['id']}" if followers else ""
                            try:
                                out = run_once(server, client, w2, n, log)
                            except Exception as e:  # report and go on with the others
                                print(f"  {client}{tag}: FAILED ({e}); runner output in {log_path}", flush=True)
                                continue
                            results.setdefault(w2["id"], {}).setdefault(client, []).append(out)
                            shown = (f"{out['rate']:,.0f} items/s" if "rate" in out and w2["kind"] == "rate" else
                                     f"p50 {out['p50_us']:,.0f} µs p99 {out['p99_us']:,.0f} µs" if w2["kind"] == "latency" else
                                     ", ".join(f"{k} {v:.0f}" for k, v in out["costs_us"].items()) if w2["kind"] == "costs" else
                                     f"{out['seconds']:.2f} s, max command {out['max_command_ms']:.2f} ms")
                            print(f"  run {run + 1} {client:14s}{tag} {shown}  ({time.time() - t0:.1f} s)", flush=True)
    finally:
        server.stop()
    elapsed = time.time() - started
    load_after = os.getloadavg()

    rows = build_rows(results, ceilings)
    ts = targets(rows, ceilings, results)
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        print_table(rows, ceilings)
        print_targets(ts)
        if missing:
            print()
            for name, why in missing.items():
                print(f"  not measured: {name}: {why}")
        print(f"\nbench: {elapsed:.0f} s, {a.runs} runs; load average {load_before[0]:.2f} before, "
              f"{load_after[0]:.2f} after; redis-server {server.version}")
    print(report.getvalue(), end="")
    # The same report as text, for bench/README.md.
    with open(os.path.splitext(a.out)[0] + ".txt", "w") as f:
        f.write(report.getvalue().lstrip("\n"))

    doc = dict(
        generated=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        command="make bench",
        machine=dict(machine(), redis=server.version, load_average_before=load_before[0], load_average_after=load_after[0]),
        seconds=elapsed, runs=a.runs, payload_bytes=PAYLOAD,
        clients={k: dict(lang=v["lang"], leaseq=v["leaseq"], label=v.get("label", "leaseq")) for k, v in CLIENTS.items() if k in clients},
        not_measured=missing,
        workloads=[w for w in WORKLOADS if w["id"] in results],
        ceilings=ceilings, rows=rows, targets=ts,
        raw={w: {c: runs for c, runs in per.items()} for w, per in results.items()},
    )
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    png = os.path.splitext(a.out)[0] + ".png"
    try:
        chart(rows, ceilings, png)
        print(f"bench: wrote {os.path.relpath(a.out)} and {os.path.relpath(png)}")
    except Exception as e:
        print(f"bench: wrote {os.path.relpath(a.out)}; chart failed: {e}")


def rerender(path):
    """Rebuilds rows, targets, the text report and the chart of a results file from its raw runs."""
    with open(path) as f:
        doc = json.load(f)
    rows = build_rows(doc["raw"], doc["ceilings"])
    ts = targets(rows, doc["ceilings"], doc["raw"])
    m = doc["machine"]
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        print_table(rows, doc["ceilings"])
        print_targets(ts)
        for name, why in doc.get("not_measured", {}).items():
            print(f"  not measured: {name}: {why}")
        print(f"\nbench: {doc['seconds']:.0f} s, {doc['runs']} runs; load average {m['load_average_before']:.2f} before, "
              f"{m['load_average_after']:.2f} after; redis-server {m['redis']}")
    print(report.getvalue(), end="")
    doc["rows"], doc["targets"] = rows, ts
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    with open(os.path.splitext(path)[0] + ".txt", "w") as f:
        f.write(report.getvalue().lstrip("\n"))
    chart(rows, doc["ceilings"], os.path.splitext(path)[0] + ".png")


if __name__ == "__main__":
    sys.exit(main())
