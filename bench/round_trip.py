#!/usr/bin/env python3
"""What one round trip to Redis costs on this machine, before any client does any work.

Every single call (one add, one lease, one complete) waits for a round trip, and no client's
work shortens it. On a virtual machine most of it is waking CPUs: the client's request wakes
Redis's CPU out of idle, Redis's reply wakes the client's. This measures a bare `PING` from a raw
socket, with Redis pinned to CPU 0, three ways:

- apart:   the client on CPU 1, sleeping in the kernel until the reply comes (what every client
           does, redis-benchmark's and leaseq's included);
- polling: the client on CPU 1, polling its socket instead of sleeping: its own wake-up is gone,
           Redis's is left;
- shared:  the client on CPU 0 beside Redis: no CPU is woken out of idle, a wake-up is a switch
           from one process to the other.

With --adds it also times single adds, leaseq's Python client (`Queue.add`) against redis-py's
pipelined `SET` + `LPUSH` (redis-work-queue's add, two commands in one round trip), apart and
shared: how the ratio between two clients moves with the round trip's cost, their own work
being the same. Prints µs per call, the median of --runs (each of --n calls).
Usage: bench/round_trip.py [--n N] [--runs R] [--adds]   (needs redis-server and two CPUs)
"""

import argparse
import os
import socket
import statistics
import sys
import time
import uuid

import redis
from driver import Server  # the bench's throwaway redis-server on a free loopback port


def ping_us(port, n, poll):
    """µs per bare PING round trip from a raw socket: sleeping in recv, or polling for the reply."""
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.setblocking(not poll)
    t0 = time.perf_counter()
    for _ in range(n):
        s.sendall(b"PING\r\n")
        while True:
            try:
                if s.recv(64):
                    break
            except BlockingIOError:
                pass
    us = (time.perf_counter() - t0) / n * 1e6
    s.close()
    return us


def leaseq_add_us(port, n):
    import leaseq

    q = leaseq.Client(f"redis://127.0.0.1:{port}").queue("rt")
    items = [leaseq.Item(b"x" * 64) for _ in range(n)]
    t0 = time.perf_counter()
    for it in items:
        q.add(it)
    return (time.perf_counter() - t0) / n * 1e6


def pipelined_add_us(port, n):
    r = redis.Redis(port=port)
    ids = [uuid.uuid4().hex for _ in range(n)]
    t0 = time.perf_counter()
    for i in ids:
        p = r.pipeline(transaction=False)
        p.set("rt2:item:" + i, b"x" * 64)
        p.lpush("rt2:queue", i)
        p.execute()
    return (time.perf_counter() - t0) / n * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=20000, help="calls per run")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--adds", action="store_true", help="also single adds: leaseq's Python client and redis-py's")
    a = p.parse_args()
    if len(os.sched_getaffinity(0)) < 2 or not {0, 1} <= os.sched_getaffinity(0):
        raise SystemExit("round_trip: needs CPUs 0 and 1")
    server = Server()
    port = server.port
    try:
        os.sched_setaffinity(server.proc.pid, {0})
        cases = [("apart", 1, lambda: ping_us(port, a.n, False)),
                 ("polling", 1, lambda: ping_us(port, a.n, True)),
                 ("shared", 0, lambda: ping_us(port, a.n, False))]
        if a.adds:
            for where, cpu in (("apart", 1), ("shared", 0)):
                cases.append((f"leaseq add, {where}", cpu, lambda: leaseq_add_us(port, a.n)))
                cases.append((f"SET+LPUSH add, {where}", cpu, lambda: pipelined_add_us(port, a.n)))
        got = {name: [] for name, _, _ in cases}
        for _ in range(a.runs):  # interleaved, so that a slow minute of the machine hits them all
            for name, cpu, measure in cases:
                os.sched_setaffinity(0, {cpu})
                got[name].append(measure())
                redis.Redis(port=port).flushall()
        print("µs per call (median of runs; min-max), Redis on CPU 0:")
        for name, values in got.items():
            print(f"  {'PING, ' + name if ' add' not in name else name:28s} {statistics.median(values):8.1f}  "
                  f"({min(values):.1f}-{max(values):.1f})")
        if a.adds:
            for where in ("apart", "shared"):
                ratio = statistics.median(got[f"SET+LPUSH add, {where}"]) / statistics.median(got[f"leaseq add, {where}"])
                print(f"  leaseq add against SET+LPUSH, {where}: {ratio:.2f}x")
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
