#!/usr/bin/env python3
"""The runner's busy path against its own commands alone: how much of its Redis cost is Lua.

Issue 27 asks the runner's Redis CPU per item down to 0.8x redis-work-queue's, by moving work out
of Lua. This bounds what that can give. On a throwaway redis-server it runs the busy path of a
runner (spec/PROTOCOL.md 13.1: `lease` of B, then `complete_and_lease_batch` of the B leased, B at
a time; B = 26 is the Rust runner's mean at concurrency 50) and records, with `MONITOR`, every
command each call ran. Then, on the same items from the same state, it runs:

- script: the same `FCALL`s, with the same arguments (the real path);
- bare:   for each call, one `FCALL` of a function that only issues that call's recorded
          commands, preloaded into the Lua state beforehand (no arguments to parse, no checks, no
          key names or tokens built, no reply): what the commands themselves cost, the floor of
          any script that writes what today's protocol writes.

It prints instructions of redis-server per item for both (callgrind, as bench/instructions.py:
the same from run to run on the same binary), and with --without, the bare path's cost with each
command left out in turn (what each command costs; later reads of what it would have written find
nothing, so each figure is approximate). With --cpu it measures Redis CPU time per item instead
(`INFO cpu`, user + sys, on a plain redis-server; medians of --runs, script and bare
interleaved), to set beside redis-work-queue's from `bench/driver.py --only runner_c50` in the
same hour.
With --storage it also runs the bare path of other storages, made from the recorded commands:
- string-record: a first lease's record as a string key holding its token (`SET P:job:<id>
             token`) instead of its four-field hash (one key per leased item, as today);
- queue-marker: the first leases' tokens as fields of one hash per queue (`HSET P:first id
             token ...` once per call, `HDEL P:first id ...` once per complete call) instead of
             a key per leased item;
- no-record: without the job record of a plain item's first lease (its `HSET P:job:<id>`, and
             the `P:job:` keys in `EXISTS` and `DEL`): the least any storage can cost that keeps
             the lease key per item, which redis-work-queue's clients read (spec/PROTOCOL.md
             8.3: their deep clean requeues every `P:item:` that is on neither list and has no
             `P:lease:`), and the expiry index `P:leased`, which bounded recovery reads;
- no-lease-key: no-record, and without the lease keys too (their `SET`, and the `P:lease:`
             keys in `MGET` and `DEL`): a storage that breaks that promise, for comparison.
Usage: bench/instructions_floor.py [--items N] [--batch B] [--without] [--storage] [--cpu [--runs R]]
(needs valgrind, or with --cpu only redis-server)
"""

import argparse
import collections
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid

import redis

from instructions import KEY_NAMES, PAYLOAD, Callgrind, leases_of, library

KEYS = [f"{{q}}:{k}" for k in KEY_NAMES]
FUNCTIONS = ["add", "lease", "complete_and_lease_batch"]

# Preloads each call's commands (bare_load, not measured), then issues one call's per FCALL.
BARE = """#!lua name=bare
local queued, at = {}, 0
redis.register_function('bare_reset', function()
  queued, at = {}, 0
  return 1
end)
redis.register_function('bare_load', function(_, argv)
  local call, i = {}, 1
  while i <= #argv do
    local n = tonumber(argv[i])
    call[#call + 1] = {unpack(argv, i + 1, i + n)}
    i = i + n + 1
  end
  queued[#queued + 1] = call
  return #queued
end)
redis.register_function('bare_next', function()
  at = at + 1
  for _, command in ipairs(queued[at]) do
    redis.call(unpack(command))
  end
  return 1
end)
"""


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def plain_server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"], stdout=subprocess.DEVNULL)
    r = redis.Redis(port=port)
    for _ in range(200):
        try:
            r.ping()
            return proc, r
        except redis.ConnectionError:
            time.sleep(0.05)
    raise SystemExit("redis-server did not start")


def add_calls(n):
    """add.lua's arguments (11 values per item, no options) for n plain items, 1000 a call."""
    calls = []
    for start in range(0, n, 1000):
        args = ["add", uuid.uuid4().hex, "0"]
        for _ in range(min(1000, n - start)):
            args += [str(uuid.uuid4()), PAYLOAD.decode()] + [""] * 9
        calls.append(args)
    return calls


def record(n, b):
    """The busy path's calls (name, arguments) and, per call, the commands it ran (MONITOR)."""
    proc, r = plain_server()
    try:
        r.function_load(library(FUNCTIONS), replace=True)
        adds = add_calls(n)
        for args in adds:
            r.fcall("lqinstr_add", len(KEYS), *KEYS, *args)
        seen, ready = [], threading.Event()

        def listen():
            with r.monitor() as m:
                ready.set()
                for c in m.listen():
                    if c["command"] == "PING" and c.get("client_type") != "lua":
                        return
                    seen.append(c)
        t = threading.Thread(target=listen)
        t.start()
        ready.wait()
        time.sleep(0.2)
        calls = []

        def call(name, args):
            calls.append((name, [text(x) for x in args]))
            return r.fcall(f"lqinstr_{name}", len(KEYS), *KEYS, *args)
        first = uuid.uuid4().hex
        held = leases_of(call("lease", [first, 30000, b, 0]), first)
        while held:
            base = uuid.uuid4().hex
            args = [base, 30000, b, 0, 2]
            for lease, token in held:
                args += [lease, token]
            codes, leased = call("complete_and_lease_batch", args)
            assert all(c == 1 for c in codes), codes
            held = leases_of(leased, base)
        r.ping()
        t.join()
        commands = []
        for c in seen:
            if c.get("client_type") == "lua":
                # The recorded arguments hold no space (ids, tokens, numbers, the payload).
                commands[-1].append(c["command"].split(" "))
            elif c["command"].startswith("FCALL"):
                commands.append([])
        if len(commands) != len(calls):
            raise SystemExit(f"MONITOR saw {len(commands)} calls, {len(calls)} were made")
        return adds, calls, commands
    finally:
        proc.terminate()
        proc.wait()


def without_family(commands, family):
    """The recorded commands with every key of a family left out (a command left keyless goes)."""
    prefix = f"{{q}}:{family}:"
    out = []
    for call in commands:
        kept = []
        for command in call:
            name = command[0].upper()
            if name in ("EXISTS", "DEL", "MGET"):
                keys = [k for k in command[1:] if not k.startswith(prefix)]
                if keys:
                    kept.append([command[0]] + keys)
            elif not (len(command) > 1 and command[1].startswith(prefix)):
                kept.append(command)
        out.append(kept)
    return out


def job_id(key):
    return key[len("{q}:job:"):]


def string_record(commands):
    """Each first lease's record as a string key holding its token (`SET P:job:X token`) in
    place of its four-field hash: the same key per leased item, the cheapest value."""
    out = []
    for call in commands:
        kept = []
        for command in call:
            if command[0].upper() == "HSET" and command[1].startswith("{q}:job:") and command[2] == "inc":
                kept.append(["SET", command[1], command[3]])
            else:
                kept.append(command)
        out.append(kept)
    return out


def queue_marker(commands):
    """Each call's first-lease records as one `HSET P:first X1 token1 X2 token2 ...` into a hash
    per queue, and the `P:job:` keys of its `DEL`s as one `HDEL P:first X1 X2 ...`: no key per
    leased item (the `EXISTS` of `P:job:` keys stays: records of items with options)."""
    out = []
    for call in commands:
        kept, marks, gone = [], [], []
        for command in call:
            name = command[0].upper()
            if name == "HSET" and command[1].startswith("{q}:job:") and command[2] == "inc":
                marks += [job_id(command[1]), command[3]]
            elif name == "DEL":
                keys = [k for k in command[1:] if not k.startswith("{q}:job:")]
                gone += [job_id(k) for k in command[1:] if k.startswith("{q}:job:")]
                if keys:
                    kept.append([command[0]] + keys)
            else:
                kept.append(command)
        if gone:
            kept.append(["HDEL", "{q}:first"] + gone)
        if marks:
            kept.append(["HSET", "{q}:first"] + marks)
        out.append(kept)
    return out


def storages(commands, wanted):
    """The bare paths to run: today's commands, and with --storage the other storages."""
    paths = {"bare": commands}
    if wanted:
        paths["string-record"] = string_record(commands)
        paths["queue-marker"] = queue_marker(commands)
        paths["no-record"] = without_family(commands, "job")
        paths["no-lease-key"] = without_family(paths["no-record"], "lease")
    return paths


def prepare(r, adds, calls, commands, mode):
    """The queue as the recording found it after its first lease; returns the busy path to run."""
    r.flushall()
    r.function_load(library(FUNCTIONS), replace=True)
    r.function_load(BARE, replace=True)
    r.fcall("bare_reset", 0)
    for args in adds:
        r.fcall("lqinstr_add", len(KEYS), *KEYS, *args)
    name, args = calls[0]
    r.fcall(f"lqinstr_{name}", len(KEYS), *KEYS, *args)
    busy = calls[1:]
    if mode == "bare":
        for call in commands[1:]:
            flat = []
            for command in call:
                flat += [len(command)] + command
            r.fcall("bare_load", 0, *flat)

        def work():
            for _ in busy:
                r.fcall("bare_next", 0)
        return work

    def work():
        for name, args in busy:
            codes, _ = r.fcall(f"lqinstr_{name}", len(KEYS), *KEYS, *args)
            assert all(c == 1 for c in codes), codes
    return work


def cpu_seconds(r):
    info = r.info("cpu")
    return info["used_cpu_user"] + info["used_cpu_sys"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--items", type=int, default=4000)
    p.add_argument("--batch", type=int, default=26)
    p.add_argument("--without", action="store_true", help="the bare path without each command in turn")
    p.add_argument("--storage", action="store_true", help="also the bare paths of two other storages")
    p.add_argument("--cpu", action="store_true", help="Redis CPU time per item instead of instructions")
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    for tool in ("redis-server",) if a.cpu else ("valgrind", "callgrind_control", "redis-server"):
        if not shutil.which(tool):
            sys.exit(f"bench/instructions_floor.py needs {tool}")
    adds, calls, commands = record(a.items, a.batch)
    kinds = collections.Counter(c[0].upper() for call in commands[1:] for c in call)
    print(f"{len(calls) - 1} busy calls of {a.batch}, {sum(kinds.values()) / a.items:.2f} commands per item: "
          + ", ".join(f"{k} {v / a.items:.2f}" for k, v in kinds.most_common()))
    if a.cpu:
        proc, r = plain_server()
        try:
            paths = storages(commands, a.storage)
            per = {"script": []} | {name: [] for name in paths}
            for _ in range(a.runs):
                for mode in per:
                    work = prepare(r, adds, calls, paths.get(mode, commands), "script" if mode == "script" else "bare")
                    before = cpu_seconds(r)
                    work()
                    per[mode].append((cpu_seconds(r) - before) / a.items * 1e6)
            for mode, values in per.items():
                values.sort()
                print(f"{mode:12} {values[len(values) // 2]:6.2f} µs of Redis CPU per item "
                      f"(runs {values[0]:.2f}-{values[-1]:.2f})")
        finally:
            proc.terminate()
            proc.wait()
        return
    server = Callgrind()
    try:
        counts = {}
        counts["script"] = server.count(prepare(server.r, adds, calls, commands, "script")) / a.items
        print(f"{'script':12} {counts['script']:9,.0f} instructions per item")
        for mode, path in storages(commands, a.storage).items():
            counts[mode] = server.count(prepare(server.r, adds, calls, path, "bare")) / a.items
            print(f"{mode:12} {counts[mode]:9,.0f} instructions per item ({counts[mode] / counts['script']:.2f} of script)")
        if a.without:
            for kind, _ in kinds.most_common():
                left = [[c for c in call if c[0].upper() != kind] for call in commands]
                n = server.count(prepare(server.r, adds, calls, left, "bare")) / a.items
                print(f"bare without {kind:14} {n:9,.0f} ({n - counts['bare']:+,.0f})")
    finally:
        server.close()


if __name__ == "__main__":
    main()
