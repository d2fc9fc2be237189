#!/usr/bin/env python3
"""Redis's own instructions per added item (issue 27, producers), counted by callgrind.

bench/instructions.py's method for the producer path: a throwaway redis-server under callgrind
runs spec/scripts/add.lua (loaded as the function library of spec/PROTOCOL.md 4.1, FCALL) for

- batch:          batches of 1000 plain items (one call each, mode `plain`: the ids, then their
                  data);
- batch_wide:     the same in mode `add`, 11 values per item;
- batch_delay:    the same with a delay of an hour (each item delayed), in mode `shared` (the
                  options once, then id and data per item), as the clients send it;
- batch_priority: the same at priority 5, mode `shared`;
- batch_group:    the same, item i in group g{i % 100}, mode `shared_group` (id, data, group);
- single:         one plain item per call (mode `plain`);

and, as the floor to beat, redis-work-queue's add (`SET P:item:<id>` and `LPUSH P:queue <id>`
per item), pipelined 1000 items at a time, and one item per pipeline. Prints instructions of
redis-server and commands (INFO commandstats, those run inside scripts included) per item.
The counts are the same from run to run on the same binary, so a change to add.lua can be judged
on a busy machine.
Usage: bench/instructions_add.py [--items N] [--only batch,single,...]   (needs valgrind, redis)
"""

import argparse
import os
import shutil
import sys
import uuid

from instructions import KEY_NAMES, PAYLOAD, Callgrind, library

BATCH = 1000
# The 11 values of an item on the wire (spec/PROTOCOL.md 5.1): id, data, delay_ms, run_at_ms,
# priority, max_attempts, backoff, expires_after_ms, keep_result_ms, group, name.
# Plain items go in the compact form of mode `plain` (id, data), as the clients send them.
OPTIONS = {
    "batch": lambda i: [],
    "batch_wide": lambda i: ["", "", "", "", "", "", "", "", ""],
    "batch_delay": lambda i: ["3600000", "", "", "", "", "", "", "", ""],
    "batch_priority": lambda i: ["", "", "5", "", "", "", "", "", ""],
    "batch_group": lambda i: ["", "", "", "", "", "", "", f"g{i % 100}", ""],
}


# The workloads whose items share their options (the group aside), sent as the clients send
# them: mode `shared` (the 9 option values once, then id and data per item), or `shared_group`
# (each item's own group as a third value) when only the groups differ.
SHARED = ("batch_delay", "batch_priority", "batch_group")


def shared_form(args):
    """An `add` call's 11-value items in the shared modes (spec/PROTOCOL.md 5.1)."""
    items = [args[i:i + 11] for i in range(3, len(args), 11)]
    options = items[0][2:]
    own = any(item[9] != options[7] for item in items)
    if own:
        out = ["shared_group", args[1], args[2]] + options[:7] + [""] + options[8:]
        for item in items:
            out += [item[0], item[1], item[9]]
    else:
        out = ["shared", args[1], args[2]] + options
        for item in items:
            out += item[:2]
    return out


def leaseq_adds(r, n, workload):
    r.function_load(library(["add"]), replace=True)
    keys = [f"{{q}}:{k}" for k in KEY_NAMES]
    per_call = 1 if workload == "single" else BATCH
    options = OPTIONS.get(workload, OPTIONS["batch"])
    mode = "plain" if workload in ("batch", "single") else "add"
    calls = []
    for start in range(0, n, per_call):
        args = [mode, uuid.uuid4().hex, "0"]
        for i in range(start, min(start + per_call, n)):
            args += [str(uuid.uuid4()), PAYLOAD] + options(i)
        if workload in SHARED:
            args = shared_form(args)
        if mode == "plain":
            # The compact form: the ids, then their data (5.1).
            args = args[:3] + args[3::2] + args[4::2]
        calls.append(args)

    def work():
        added = 0
        for args in calls:
            added += r.fcall("lqinstr_add", len(keys), *keys, *args)
        assert added == n, added
    return work


def rwq_adds(r, n, workload):
    per_call = 1 if workload == "rwq_single" else BATCH
    ids = [str(uuid.uuid4()) for _ in range(n)]

    def work():
        for start in range(0, n, per_call):
            p = r.pipeline(transaction=False)
            for id_ in ids[start:start + per_call]:
                p.set(f"{{q}}:item:{id_}", PAYLOAD)
                p.lpush("{q}:queue", id_)
            p.execute()
        assert r.llen("{q}:queue") == n
    return work


WORKLOADS = {
    "rwq_batch": rwq_adds, "batch": leaseq_adds, "batch_wide": leaseq_adds, "batch_delay": leaseq_adds,
    "batch_priority": leaseq_adds, "batch_group": leaseq_adds,
    "rwq_single": rwq_adds, "single": leaseq_adds,
}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--items", type=int, default=5000)
    p.add_argument("--only", default=",".join(WORKLOADS))
    a = p.parse_args()
    for tool in ("valgrind", "callgrind_control", "redis-server"):
        if not shutil.which(tool):
            sys.exit(f"bench/instructions_add.py needs {tool}")
    server = Callgrind()
    try:
        for name in a.only.split(","):
            server.r.flushall()
            work = WORKLOADS[name](server.r, a.items, name)
            server.r.config_resetstat()
            instructions = server.count(work) / a.items
            stats = server.r.info("commandstats")
            inner = {k[len("cmdstat_"):]: v["calls"] for k, v in stats.items()
                     if k not in ("cmdstat_fcall", "cmdstat_config|resetstat")}
            detail = ", ".join(f"{k} {v / a.items:.2f}" for k, v in sorted(inner.items(), key=lambda kv: -kv[1]))
            print(f"{name:15} {instructions:9,.0f} instructions per item, "
                  f"{sum(inner.values()) / a.items:.2f} commands per item ({detail})")
    finally:
        server.close()


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
