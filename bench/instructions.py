#!/usr/bin/env python3
"""Redis's own instructions per plain item, protocol v2 against protocol v1, counted by callgrind.

`make bench` measures Redis CPU time, which moves with whatever else the machine runs. This counts
the instructions redis-server executes (valgrind --tool=callgrind, user space only), which is the
same from run to run on the same binary, so a change to the Lua code can be judged on a busy
machine. It runs, on a throwaway redis-server under callgrind:

- v1: bench/v1/ (EVALSHA, as before the job lifecycle): lease, then complete_and_lease per item;
- v2: spec/scripts/ loaded as the function library of spec/PROTOCOL.md 4.1 (FCALL): the same.

Prints instructions per item and commands per item (INFO commandstats) for each.
With --batch B, v2 is the runner's busy path instead (spec 13.1): lease_batch of B, then
complete_and_lease_batch of the B leased, B at a time (the Rust runner at concurrency 50 sends
batches of a few; B = 5 is near its mean), against nothing (v1 has no batches).
Usage: bench/instructions.py [--items N] [--batch B]   (needs valgrind and the redis Python package)
"""

import argparse
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import redis

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SCRIPTS = os.path.join(REPO, "spec", "scripts")
# The two keys every call declares (spec/PROTOCOL.md 4.2).
KEY_NAMES = ["lease:", "item:"]
PAYLOAD = b"x" * 64


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def lib_order():
    """The helpers of spec/scripts/lib in the include order of spec/PROTOCOL.md 4.1: each after the
    helpers its `--! include:` line names, the first ready by name (core/src/scripts.rs checks the
    lines)."""
    needs = {}
    for path in glob.glob(os.path.join(SCRIPTS, "lib", "*.lua")):
        first = read(path).split("\n", 1)[0]
        needs[os.path.basename(path)[: -len(".lua")]] = {w.split("(")[0] for w in first.split(":", 1)[1].split()}
    order = []
    while len(order) < len(needs):
        ready = [h for h in needs if h not in order and needs[h] <= set(order)]
        if not ready:
            raise SystemExit(f"spec/scripts/lib: the includes of {sorted(set(needs) - set(order))} never resolve")
        order.append(min(ready))
    return order


# Housekeeping runs at most once per 100 ms of server time while leases find items (lib/lease.lua).
# Under callgrind redis-server runs some 50 times slower, so that would be once per call here,
# where a busy runner at full speed does it once per hundreds of calls: the counted library waits
# 50 times longer between housekeepings, so that its share per item is about the real one.
HOUSEKEEPING = ("local HOUSEKEEPING_MS = 100\n", "local HOUSEKEEPING_MS = 5000\n")


def library(functions):
    """The function library of spec/PROTOCOL.md 4.1 with only `functions` registered."""
    code = "".join(read(os.path.join(SCRIPTS, "lib", f"{name}.lua")) + "\n" for name in lib_order())
    if code.count(HOUSEKEEPING[0]) != 1:
        raise SystemExit("lib/lease.lua no longer sets HOUSEKEEPING_MS = 100 (bench/instructions.py edits it)")
    code = code.replace(*HOUSEKEEPING)
    code += ("local function register(name, flags, body)\n"
             "  redis.register_function{function_name = LIBRARY .. '_' .. name, flags = flags,\n"
             "    callback = function(keys, args) begin_call(keys) return body(keys, args) end}\n"
             "end\n")
    for stem in functions:
        body = read(os.path.join(SCRIPTS, f"{stem}.lua"))
        flags = next((line.split(":", 1)[1].split() for line in body.splitlines() if line.startswith("--! flags:")), [])
        code += f"register('{stem}', {{{', '.join(repr(f) for f in flags)}}}, function(KEYS, ARGV)\n{body}end)\n"
    return "#!lua name=lqinstr\nlocal LIBRARY = 'lqinstr'\n" + code


class Callgrind:
    """A redis-server under callgrind; `count(fn)` is the instructions it ran during fn()."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="leaseq-instr-")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={self.dir}/cg.%p.out",
             "redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.r = redis.Redis(port=self.port)
        for _ in range(300):
            try:
                self.r.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.1)
        raise SystemExit("redis-server did not start under valgrind")

    def control(self, flag):
        subprocess.run(["callgrind_control", flag, str(self.proc.pid)], check=True, capture_output=True)

    def count(self, fn):
        self.control("-z")
        fn()
        self.control("-d")
        time.sleep(0.5)
        newest = max(glob.glob(f"{self.dir}/cg.*.out*"), key=os.path.getmtime)
        for line in open(newest):
            if line.startswith(("totals:", "summary:")):
                return int(line.split()[1])
        raise SystemExit(f"no totals in {newest}")

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def token():
    return uuid.uuid4().hex


def run_v1(r, n):
    lib = read(os.path.join(HERE, "v1", "lib.lua"))
    script = {name: r.register_script(lib + "\n" + read(os.path.join(HERE, "v1", f"{name}.lua")))
              for name in ("add", "lease", "complete_and_lease")}
    keys = [f"{{q}}:{k}" for k in ("queue", "processing", "lease_count", "lease:", "item:")]
    for start in range(0, n, 1000):
        args = []
        for _ in range(min(1000, n - start)):
            args += [str(uuid.uuid4()), PAYLOAD]
        script["add"](keys, args)
    state = {"next": script["lease"](keys, [token(), 30000])}

    def work():
        done = 0
        while state["next"]:
            reply = script["complete_and_lease"](keys, [state["next"][0], token(), 30000])
            assert reply[0] == 1, reply
            done += 1
            state["next"] = reply[1]
        assert done == n, done
    return work


def add_args(k):
    """add.lua's arguments (mode, incarnation base, later, then 11 values per item) for k plain items."""
    args = ["add", token(), "0"]
    for _ in range(k):
        args += [str(uuid.uuid4()), PAYLOAD] + [""] * 9
    return args


def leases_of(reply, base):
    """(id, token) of each lease of a lease reply (spec/PROTOCOL.md 4.4): the full form
    {more, wait_ms, lease...}, or the plain form {3, max_attempts, backoff, id, data, ...}, whose
    k-th lease has the token base (k = 1), base.k after; its incarnation is its token."""
    if len(reply) > 2 and reply[0] == 3:
        ids = reply[3::2]
        return [(x, base if k == 0 else f"{base}.{k + 1}") for k, x in enumerate(ids)]
    return [(lease[0], lease[3]) for lease in reply[2:]]


def run_v2(r, n):
    r.function_load(library(["add", "lease", "complete_and_lease"]), replace=True)
    keys = [f"{{q}}:{k}" for k in KEY_NAMES]

    def call(name, args):
        return r.fcall(f"lqinstr_{name}", len(keys), *keys, *args)
    for start in range(0, n, 1000):
        call("add", add_args(min(1000, n - start)))
    first = token()
    state = {"next": (leases_of(call("lease", [first, 30000, 1, 0]), first) or [None])[0]}

    def work():
        done = 0
        while state["next"]:
            (lease, inc), nxt = state["next"], token()
            # A plain item's first lease: its incarnation is its token.
            reply = call("complete_and_lease", [nxt, 30000, 1, 0, lease, inc, inc])
            assert reply[0] == 1, reply
            done += 1
            state["next"] = (leases_of(reply[1], nxt) or [None])[0]
        assert done == n, done
    return work


def run_v2_batch(r, n, b):
    r.function_load(library(["add", "lease", "complete_and_lease_batch"]), replace=True)
    keys = [f"{{q}}:{k}" for k in KEY_NAMES]

    def call(name, args):
        return r.fcall(f"lqinstr_{name}", len(keys), *keys, *args)
    for start in range(0, n, 1000):
        call("add", add_args(min(1000, n - start)))
    first = token()
    state = {"held": leases_of(call("lease", [first, 30000, b, 0]), first)}

    def work():
        done = 0
        while state["held"]:
            # per = 2, id and token: every lease is a plain item's first, as the core sends it.
            nxt = token()
            args = [nxt, 30000, b, 0, 2]
            for lease, tok in state["held"]:
                args += [lease, tok]
            codes, leased = call("complete_and_lease_batch", args)
            assert all(c == 1 for c in codes), codes
            done += len(codes)
            state["held"] = leases_of(leased, nxt)
        assert done == n, done
    return work


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--items", type=int, default=2000)
    p.add_argument("--batch", type=int, default=0, help="v2 as the runner's batches of this many")
    a = p.parse_args()
    for tool in ("valgrind", "callgrind_control", "redis-server"):
        if not shutil.which(tool):
            sys.exit(f"bench/instructions.py needs {tool}")
    server = Callgrind()
    try:
        results = {}
        v2 = (lambda r, n: run_v2_batch(r, n, a.batch)) if a.batch else run_v2
        for name, setup in (("v1", run_v1), ("v2", v2)):
            server.r.flushall()
            work = setup(server.r, a.items)
            server.r.config_resetstat()
            instructions = server.count(work) / a.items
            stats = server.r.info("commandstats")
            inner = sum(v["calls"] for k, v in stats.items()
                        if k not in ("cmdstat_evalsha", "cmdstat_fcall", "cmdstat_config|resetstat"))
            results[name] = instructions
            print(f"{name}: {instructions:,.0f} instructions of redis-server per item, "
                  f"{inner / a.items:.1f} commands per item (lease+complete, {a.items} items)")
        print(f"v2 / v1: {results['v2'] / results['v1']:.2f}x instructions")
    finally:
        server.close()


if __name__ == "__main__":
    main()
