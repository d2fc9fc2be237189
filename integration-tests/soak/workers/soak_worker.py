"""The Python soak worker and producer (integration-tests/soak/README.md), on leaseq's sync API.

    python soak_worker.py URL LANG work
    python soak_worker.py URL LANG run
    python soak_worker.py URL LANG produce FIRST COUNT

It follows the Rust worker (src/bin/soak-worker-rust.rs, src/lib.rs) rule for rule: the queues
come from LEASEQ_SOAK_QUEUES (prefixes, comma separated) and the results queue from
LEASEQ_SOAK_RESULTS; every event is recorded there with `add_unique` of an item whose id is
`win|<queue>|<id>|<nonce>`, `exec|<queue>|<id>|<nonce>` or `viol|<lang>|<what>|<nonce>` and whose
data is LANG. A worker misbehaves on purpose (4% drop, 3% slow, 2% complete twice, 2% renew
late, 4% fail, 1% fail for good) unless LEASEQ_SOAK_MISBEHAVE=0 (or =plain: drop, slow and
twice only). Run it with an interpreter that has leaseq installed
(py/.venv/bin/python). A retryable error (a connection cut) is ridden through: the call is tried
again or given up (a complete's then recorded as `lost|<queue>|<id>|<nonce>`: it may have taken
effect); any other error ends it with a traceback and a non-zero status.
"""

from __future__ import annotations

import logging
import os
import random
import signal
import sys
import threading
import time
import uuid
from functools import partial
from typing import Callable, TypeVar

import leaseq
from leaseq.worker import Job

T = TypeVar("T")

#: Every worker's lease TTL, in seconds.
TTL = 0.5
#: Past the TTL: how long a "slow" worker sleeps.
SLOW = 0.7
#: How long one lease call waits for an item before the worker tries the other queue.
WAIT = 0.1
#: Producers add their items in batches of this many.
BATCH = 50
#: What a failing handler reports (the verdict looks for it in the dead letters).
FAILURE = "soak failure"
FAILURE_TYPE = "SoakError"

USAGE = (
    "usage: soak_worker.py URL LANG work | URL LANG run | URL LANG produce FIRST COUNT"
)


def behaviour(roll: int) -> str:
    """What to do with one lease, from a roll in [0, 100): the table every language shares.

    - drop (4%): never completes; the lease expires and the cleaner gives the item back;
    - slow (3%): sleeps past the TTL, then completes (which may return False);
    - twice (2%): completes twice; the second must return False;
    - renew-late (2%): sleeps past the TTL, renews (must return False), then completes;
    - fail (4%): fails the attempt, retried 20 ms later;
    - fail-for-good (1%): fails with no retry: the item is a dead letter with its error;
    - normal: completes. With LEASEQ_SOAK_MISBEHAVE=0 (the demo), always normal; with
      LEASEQ_SOAK_MISBEHAVE=plain (the drain soak) only what redis-work-queue can do too: drop,
      slow and twice, no renew and no fail.
    """
    misbehave = os.environ.get("LEASEQ_SOAK_MISBEHAVE")
    if misbehave == "0":
        return "normal"
    table: tuple[tuple[int, str], ...] = (
        (4, "drop"),
        (7, "slow"),
        (9, "twice"),
        (11, "renew-late"),
        (15, "fail"),
        (16, "fail-for-good"),
    )
    if misbehave == "plain":
        table = table[:3]
    for below, what in table:
        if roll < below:
            return what
    return "normal"


def connect(url: str) -> leaseq.Client:
    """One server, or a cluster when `url` holds several URLs separated by commas. Tries again
    for up to 10 s while the error is retryable (a connection cut as it opens)."""
    for tries in range(101):
        try:
            if "," in url:
                return leaseq.Client.cluster(url.split(","))
            return leaseq.Client(url)
        except leaseq.LeaseqError as error:
            if not error.retryable or tries == 100:
                raise
            time.sleep(0.1)
    raise AssertionError("unreachable")


def unless_cut(call: Callable[[], T]) -> T | None:
    """The outcome of `call`, or None, after a short pause, when it fails with a retryable
    error (connection, timeout, unavailable); any other error ends the worker."""
    try:
        return call()
    except leaseq.LeaseqError as error:
        if not error.retryable:
            raise
        time.sleep(0.1)
        return None


class Recorder:
    """Records events in the results queue, through leaseq itself."""

    def __init__(self, client: leaseq.Client, prefix: str, lang: str) -> None:
        # LEASEQ_SOAK_RESULTS_URL: the results live on a server of their own (the fault soak).
        results_url = os.environ.get("LEASEQ_SOAK_RESULTS_URL")
        if results_url:
            client = connect(results_url)
        self.results = client.queue(prefix)
        self.lang = lang

    def record(self, kind: str, queue: str, item_id: str) -> None:
        """`kind` is `win`, `exec` or `lost` (a complete whose reply was lost); `queue` the
        prefix the item came from."""
        self.add(f"{kind}|{queue}|{item_id}|{uuid.uuid4().hex}")

    def violation(self, what: str) -> None:
        """A broken guarantee."""
        self.add(f"viol|{self.lang}|{what}|{uuid.uuid4().hex}")

    def add(self, record: str) -> None:
        """Adds a record, riding through Redis restarts (ids are unique per record)."""
        while True:
            try:
                self.results.add(leaseq.Item(self.lang.encode(), id=record))
                return
            except leaseq.LeaseqError as error:
                if not error.retryable:
                    raise
                time.sleep(0.1)


def work(client: leaseq.Client, lang: str, prefixes: list[str], results: str) -> None:
    recorder = Recorder(client, results, lang)
    queues = [(p, client.queue(p)) for p in prefixes]
    turn = 0
    # A call cut by a connection loss (retryable) is not the end of the worker: the lease is
    # tried again, and the outcome of any other call is unknown (the lease expires, or the call
    # took effect); only a complete's matters, recorded as `lost`.
    while True:
        name, queue = queues[turn % len(queues)]
        turn += 1
        lease = unless_cut(partial(queue.lease, TTL, block=True, timeout=WAIT))
        if lease is None:
            continue
        recorder.record("exec", name, lease.id)
        what = behaviour(random.randrange(100))
        if what == "drop":
            continue
        if what in ("fail", "fail-for-good"):
            retry: float | bool = 0.02 if what == "fail" else False
            outcome = unless_cut(
                partial(queue.fail, lease, FAILURE, FAILURE_TYPE, retry=retry)
            )
            if what == "fail-for-good" and outcome is not None and outcome.retrying:
                recorder.violation("fail without retry was retried")
            continue
        if what in ("slow", "renew-late"):
            time.sleep(SLOW)
        if what == "renew-late" and unless_cut(partial(queue.renew, lease, TTL)):
            recorder.violation("renew after expiry returned true")
        done = unless_cut(partial(queue.complete, lease))
        if done is None:
            recorder.record("lost", name, lease.id)
        elif done:
            recorder.record("win", name, lease.id)
        if what == "twice" and unless_cut(partial(queue.complete, lease)):
            # After a first complete that was cut before it took effect, the second wins.
            if done is None:
                recorder.record("win", name, lease.id)
            else:
                recorder.violation("second complete returned true")


def rule(item_id: str, attempt: int) -> str:
    """Runner mode's rule, the same in every language (RunnerRule in src/lib.rs): by the number
    at the end of the id, every 101st item fails for good, every 13th fails its first attempt."""
    n = int(item_id.rsplit("-", 1)[-1]) if item_id.rsplit("-", 1)[-1].isdigit() else 1
    if n % 101 == 0:
        return "dead"
    if n % 13 == 0 and attempt == 1:
        return "retry"
    return "succeed"


def run(client: leaseq.Client, lang: str, prefixes: list[str], results: str) -> None:
    """Runner mode: one leaseq.Worker per queue; records follow the runners' events. With
    LEASEQ_SOAK_PARTITIONED=BASE (the fault soak's `partitioned` stage), one leaseq.Worker over
    the partitioned queue BASE instead, each item recorded under its partition's prefix."""
    recorder = Recorder(client, results, lang)
    workers = []
    base = os.environ.get("LEASEQ_SOAK_PARTITIONED", "")
    if base:
        queue = None
        while queue is None:  # opened again while the servers are away
            queue = unless_cut(partial(client.partitioned, base))
        workers.append(soak_worker(queue, recorder))
        prefixes = []
    workers.extend(soak_worker(client.queue(name), recorder) for name in prefixes)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    reports: list[leaseq.WorkerReport] = []
    threads = [
        threading.Thread(target=lambda w=w: reports.append(w.run())) for w in workers
    ]
    for t in threads:
        t.start()
    while not stop.wait(0.2):
        pass
    for w in workers:
        w.stop()
    for t in threads:
        t.join()
    print(f"soak_worker.py: {reports}", file=sys.stderr)


def soak_worker(
    queue: leaseq.Queue | leaseq.PartitionedQueue, recorder: Recorder
) -> leaseq.Worker:
    """Runner mode's runner over `queue`, a queue or a partitioned queue: each item recorded
    under the prefix of the queue it ran from (`job.queue_prefix`: its partition's). An event
    names only the item: its queue is the one its handler last ran it from (every event
    follows a run)."""
    queue_of: dict[str, str] = {}

    def handler(job: Job) -> None:
        queue_of[job.id] = job.queue_prefix
        recorder.record("exec", job.queue_prefix, job.id)
        time.sleep(0.001)
        what = rule(job.id, job.attempt)
        if what == "dead":
            raise leaseq.Unrecoverable(FAILURE)
        if what == "retry":
            raise SoakError(FAILURE)

    worker = leaseq.Worker(
        queue,
        handler,
        concurrency=4,
        lease_ttl=2.0,
        heartbeat=0.5,
        housekeeping_every=0.5,
        deep_clean_every=5.0,
    )
    for event, kind in (("completed", "win"), ("retrying", "retry"), ("dead", "dead")):
        worker.on(
            event,
            lambda job_id, _detail, kind=kind: recorder.record(
                kind, queue_of[job_id], job_id
            ),
        )
    return worker


class SoakError(Exception):
    """The failure runner mode's handlers raise (its name is the error type recorded)."""


def produce(
    client: leaseq.Client, lang: str, prefixes: list[str], first: int, count: int
) -> None:
    """Adds `<lang>-<n>` (data `{"n":n}`) for n in first..first+count, to queue n % (number of
    queues)."""
    queues = [client.queue(p) for p in prefixes]
    batches: list[list[leaseq.Item]] = [[] for _ in queues]
    for n in range(first, first + count):
        batches[n % len(queues)].append(leaseq.Item(f'{{"n":{n}}}', id=f"{lang}-{n}"))
        for queue, batch in zip(queues, batches):
            if len(batch) == BATCH:
                added = queue.add_batch(batch)
                if added != BATCH:
                    sys.exit(f"soak_worker.py: add_batch added {added} of {BATCH} ids")
                batch.clear()
    for queue, batch in zip(queues, batches):
        if batch:
            queue.add_batch(batch)


def quiet_job_lines() -> None:
    """The soak fails and kills jobs on purpose and counts the outcomes itself: the runner's
    line per failed job (logging's last resort prints WARNING and above to stderr) would flood
    its output. Its other lines (an outage, at WARNING) still show, as before the runner
    logged."""
    logging.getLogger("leaseq.worker").addFilter(
        lambda record: not record.getMessage().startswith("job ")
    )


def main(argv: list[str]) -> None:
    if len(argv) < 3 or argv[2] not in ("work", "run", "produce"):
        sys.exit(USAGE)
    quiet_job_lines()
    url, lang, mode = argv[:3]
    prefixes = os.environ["LEASEQ_SOAK_QUEUES"].split(",")
    results = os.environ["LEASEQ_SOAK_RESULTS"]
    with connect(url) as client:
        if mode == "work":
            work(client, lang, prefixes, results)
        elif mode == "run":
            run(client, lang, prefixes, results)
        else:
            try:
                first, count = int(argv[3]), int(argv[4])
            except (IndexError, ValueError):
                sys.exit(USAGE)
            produce(client, lang, prefixes, first, count)


if __name__ == "__main__":
    main(sys.argv[1:])
