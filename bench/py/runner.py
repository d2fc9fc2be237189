#!/usr/bin/env python3
"""The Python workloads of `make bench`: leaseq (the binding), PyPI redis-work-queue 0.1.5 and
RQ with its SimpleWorker. Run one at a time by bench/driver.py, with the protocol described in
bench/src/main.rs: print {"ready": true}, wait for a line on stdin, run, print {"result": ...},
wait for stdin to close.

Several workers are separate processes (fork), each with its own client, as Python deployments
run them.
"""

import argparse
import contextlib
import io
import json
import multiprocessing as mp
import os
import queue as queue_mod
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

WORK_TTL = 30
LONG_TTL = 3600


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def cpu_seconds():
    """CPU time (user + system) of this process and its finished children."""
    import resource

    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        u = resource.getrusage(who)
        total += u.ru_utime + u.ru_stime
    return total


CPU_AT_GO = [0.0]


def ready():
    emit({"ready": True})
    sys.stdin.readline()
    CPU_AT_GO[0] = cpu_seconds()


def finish(result):
    result["cpu_seconds"] = cpu_seconds() - CPU_AT_GO[0]
    emit({"result": result})
    sys.stdin.read()


def payload(size):
    return bytes(ord("a") + i % 26 for i in range(size))


def stamped(size):
    return f"{time.monotonic_ns():020d}".encode().ljust(size, b".")


def summary(samples):
    samples = sorted(samples)
    pick = lambda q: samples[round((len(samples) - 1) * q)]
    return {"samples": len(samples), "p50_us": pick(0.5), "p99_us": pick(0.99), "max_us": samples[-1]}


# ---------------------------------------------------------------- clients


class Leaseq:
    def __init__(self, a):
        import leaseq

        self.m = leaseq
        self.client = leaseq.Client(a.url)
        self.q = self.client.queue(a.prefix)

    def items(self, n, data):
        return [self.m.Item(data) for _ in range(n)]

    def add(self, item):
        return self.q.add(item)

    def add_batch(self, items):
        return self.q.add_batch(items)

    def prefill(self, n, data):
        for start in range(0, n, 10000):
            self.q.add_batch([self.m.Item(data) for _ in range(min(10000, n - start))])

    def drain(self):
        done = 0
        lease = self.q.lease(ttl=WORK_TTL, block=False)
        while lease is not None:
            completed, lease = self.q.complete_and_lease(lease, ttl=WORK_TTL)
            assert completed
            done += 1
        return done

    def drain_separate(self):
        """lease() then complete(): two calls per item."""
        done = 0
        lease, complete = self.q.lease, self.q.complete
        while (item := lease(ttl=WORK_TTL, block=False)) is not None:
            assert complete(item)
            done += 1
        return done

    def latency_worker(self, n, report):
        for _ in range(n):
            lease = self.q.lease(ttl=WORK_TTL, block=True, timeout=None)
            now = time.monotonic_ns()
            report.put((now - int(lease.data[:20])) / 1000.0)
            self.q.complete(lease)

    def add_stamped(self, size):
        self.q.add(self.m.Item(stamped(size)))


class Rwq:
    """PyPI redis-work-queue 0.1.5 (`:leased_by_session:` lease keys)."""

    def __init__(self, a):
        import redis
        from redis_work_queue import Item, KeyPrefix, WorkQueue

        self.a = a
        self.Item = Item
        self.db = redis.Redis.from_url(a.url)
        self.wq = WorkQueue(KeyPrefix(a.prefix))

    def items(self, n, data):
        return [self.Item(data) for _ in range(n)]

    def add(self, item):
        self.wq.add_item(self.db, item)
        return True

    def add_batch(self, items):
        # Its batch path: add_item_to_pipeline, one pipeline per batch.
        pipe = self.db.pipeline(transaction=False)
        for item in items:
            self.wq.add_item_to_pipeline(pipe, item)
        pipe.execute()
        return len(items)

    def prefill(self, n, data):
        for start in range(0, n, 1000):
            self.add_batch(self.items(min(1000, n - start), data))

    def drain(self):
        done = 0
        sleep = getattr(self.a, "sleep_ms", 0) / 1000.0
        while True:
            item = self.wq.lease(self.db, WORK_TTL, block=False)
            if item is None:
                return done
            if sleep:
                time.sleep(sleep)
            assert self.wq.complete(self.db, item)
            done += 1

    def latency_worker(self, n, report):
        import redis

        db = redis.Redis.from_url(self.a.url)
        for _ in range(n):
            item = self.wq.lease(db, WORK_TTL, block=True, timeout=0)
            now = time.monotonic_ns()
            report.put((now - int(item.data()[:20])) / 1000.0)
            self.wq.complete(db, item)

    def add_stamped(self, size):
        self.wq.add_item(self.db, self.Item(stamped(size)))

    def hold_leases(self, n, data):
        """Leases n items as its lease() does (RPOPLPUSH, GET, SETEX), pipelined because this
        is setup; every 100th lease lasts 1 s (it expires before the clean), the others 1 h."""
        ids = []
        for start in range(0, n, 1000):
            items = self.items(min(1000, n - start), data)
            self.add_batch(items)
            ids.extend(i.id() for i in items)
        for start in range(0, n, 1000):
            pipe = self.db.pipeline(transaction=False)
            for i in range(start, min(n, start + 1000)):
                pipe.rpoplpush(self.wq._main_queue_key, self.wq._processing_key)
                pipe.get(self.wq._item_data_key.of(ids[i]))
                pipe.setex(self.wq._lease_key.of(ids[i]), 1 if i % 100 == 0 else LONG_TTL, self.wq._session)
            pipe.execute()

    def light_clean(self):
        with contextlib.redirect_stdout(io.StringIO()):  # it prints a line per id it moves
            self.wq.light_clean(self.db)


class Rq:
    """RQ with its non-forking SimpleWorker and a no-op job."""

    def __init__(self, a):
        import redis
        import rq

        self.a = a
        self.rq = rq
        self.db = redis.Redis.from_url(a.url)
        self.q = rq.Queue(a.prefix, connection=self.db)

    def items(self, n, data):
        return [data.decode()] * n

    def add(self, item):
        import rq_jobs

        self.q.enqueue(rq_jobs.noop, item)
        return True

    def add_batch(self, items):
        import rq_jobs

        sleep_ms = getattr(self.a, "sleep_ms", 0)
        if sleep_ms:
            jobs = [self.rq.Queue.prepare_data(rq_jobs.sleep, (item, sleep_ms)) for item in items]
        else:
            jobs = [self.rq.Queue.prepare_data(rq_jobs.noop, (item,)) for item in items]
        self.q.enqueue_many(jobs)
        return len(items)

    def prefill(self, n, data):
        for start in range(0, n, 1000):
            self.add_batch(self.items(min(1000, n - start), data))

    def worker(self):
        return self.rq.SimpleWorker([self.q], connection=self.db)

    def drain(self):
        import rq_jobs

        before = rq_jobs.DONE
        self.worker().work(burst=True, logging_level="WARNING", with_scheduler=False)
        return rq_jobs.DONE - before

    def latency_worker(self, n, report):
        # Runs in a forked process: the job function reports through rq_jobs.REPORT.
        import rq_jobs

        rq_jobs.REPORT = report
        self.worker().work(burst=False, max_jobs=n, logging_level="WARNING", with_scheduler=False)

    def add_stamped(self, size):
        import rq_jobs

        self.q.enqueue(rq_jobs.stamp, stamped(size).decode())


CLIENTS = {"leaseq": Leaseq, "rwq": Rwq, "rq": Rq}


# ---------------------------------------------------------------- workloads


def _drain_process(client_name, a, barrier, start, results):
    c = CLIENTS[client_name](a)
    barrier.wait()
    start.wait()
    results.put(c.drain())


def lease_complete(c, a, data):
    c.prefill(a.n, data)
    if a.workers == 1:
        # lease_then_complete: two calls per item (the peers' drain is two calls already).
        drain = getattr(c, "drain_separate", c.drain) if a.workload == "lease_then_complete" else c.drain
        ready()
        t0 = time.perf_counter()
        done = drain()
        seconds = time.perf_counter() - t0
    else:
        ctx = mp.get_context("fork")
        barrier, start, results = ctx.Barrier(a.workers + 1), ctx.Event(), ctx.Queue()
        procs = [
            ctx.Process(target=_drain_process, args=(a.client, a, barrier, start, results))
            for _ in range(a.workers)
        ]
        for p in procs:
            p.start()
        barrier.wait()
        ready()
        t0 = time.perf_counter()
        start.set()
        done = sum(results.get() for _ in procs)
        seconds = time.perf_counter() - t0
        for p in procs:
            p.join()
    assert done == a.n, f"completed {done} of {a.n}"
    finish({"items": done, "seconds": seconds, "workers": a.workers})


def runner(c, a, data):
    """A runner at concurrency `a.workers` draining `a.n` prefilled items, with a no-op handler
    or one that sleeps `a.sleep_ms`. leaseq: its Worker with an `async def` handler (asyncio),
    nothing kept of a finished job. The peers' runners are their worker processes, one item at
    a time each (`lease_complete` with `a.workers` processes): RQ SimpleWorkers, redis-work-queue
    loops. With `--duration-ms` (leaseq only) the Worker stops that long after `go` instead,
    whatever is left (several runners share the queue), and reports what it completed."""
    if a.client != "leaseq":
        lease_complete(c, a, data)
        return
    import asyncio

    import leaseq

    c.prefill(a.n, data)
    ready()
    started = 0
    sleep = a.sleep_ms / 1000.0

    async def handler(job):
        nonlocal started
        started += 1
        if started == a.n and not a.duration_ms:
            worker.stop()  # drains what runs and flushes the completes
        if sleep:
            await asyncio.sleep(sleep)

    # `--handler sync`: a plain `def`, which the Worker runs on its pool of `concurrency`
    # threads (the count is taken under a lock: the handlers run at once).
    lock = threading.Lock()

    def sync_handler(job):
        nonlocal started
        with lock:
            started += 1
            last = started == a.n
        if last and not a.duration_ms:
            worker.stop()
        if sleep:
            time.sleep(sleep)

    worker = leaseq.Worker(
        c.q, sync_handler if a.handler == "sync" else handler, concurrency=a.workers, lease_ttl=WORK_TTL,
        keep_results=False,
    )
    timer = None
    if a.duration_ms:
        # stop() may be called from any thread; it drains what runs and flushes the completes.
        timer = threading.Timer(a.duration_ms / 1000.0, worker.stop)
        timer.daemon = True
    t0 = time.perf_counter()
    if timer:
        timer.start()
    report = worker.run()
    seconds = time.perf_counter() - t0
    if not a.duration_ms:
        assert report.completed == a.n, f"completed {report.completed} of {a.n}"
    finish({"items": report.completed, "seconds": seconds, "workers": a.workers, "sleep_ms": a.sleep_ms,
            "duration_ms": a.duration_ms})


def latency(c, a):
    if a.client == "rq":
        ctx = mp.get_context("fork")
        report = ctx.Queue()
        worker = ctx.Process(target=c.latency_worker, args=(a.n, report))
    else:
        report = queue_mod.Queue()
        worker = threading.Thread(target=c.latency_worker, args=(a.n, report), daemon=True)
    worker.start()
    time.sleep(0.5)  # let the worker reach its blocking wait
    ready()
    samples = []
    t0 = time.perf_counter()
    for _ in range(a.n):
        time.sleep(a.gap_ms / 1000.0)
        c.add_stamped(a.payload)
        samples.append(report.get(timeout=30))
    seconds = time.perf_counter() - t0
    worker.join()
    finish(dict(summary(samples), items=a.n, seconds=seconds))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--client", required=True, choices=sorted(CLIENTS))
    p.add_argument("--workload", required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--prefix", required=True)
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--inflight", type=int, default=0)
    p.add_argument("--batch", type=int, default=1000)
    p.add_argument("--gap-ms", type=float, default=2)
    p.add_argument("--payload", type=int, default=64)
    p.add_argument("--sleep-ms", type=float, default=0)
    p.add_argument("--duration-ms", type=float, default=0, help="runner: stop after this long (0: when all started)")
    p.add_argument("--handler", choices=["async", "sync"], default="async",
                   help="runner, leaseq: an `async def` handler (asyncio) or a plain `def` (threads)")
    a = p.parse_args()
    c = CLIENTS[a.client](a)
    data = payload(a.payload)
    w = a.workload
    if w == "add_single":
        items = c.items(a.n, data)
        ready()
        t0 = time.perf_counter()
        for item in items:
            c.add(item)
        finish({"items": a.n, "seconds": time.perf_counter() - t0})
    elif w == "add_batch":
        items = c.items(a.n, data)
        ready()
        t0 = time.perf_counter()
        for start in range(0, a.n, a.batch):
            c.add_batch(items[start : start + a.batch])
        finish({"items": a.n, "seconds": time.perf_counter() - t0, "batch": a.batch})
    elif w in ("lease_complete", "lease_then_complete"):
        lease_complete(c, a, data)
    elif w == "runner":
        runner(c, a, data)
    elif w == "latency":
        latency(c, a)
    elif w == "light_clean":
        c.hold_leases(a.n, data)
        time.sleep(1.2)  # the 1% of 1 s leases expire
        ready()
        t0 = time.perf_counter()
        c.light_clean()
        finish({"items": a.n, "seconds": time.perf_counter() - t0})
    else:
        sys.exit(f"unknown workload {w}")


if __name__ == "__main__":
    main()
