"""Threads, signals and fork: the GIL is released for every round trip and every wait."""

from __future__ import annotations

import collections
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading

import leaseq
import pytest
import redis
from conftest import blocked_clients, new_prefix, wait_until_blocked


def test_eight_threads_complete_every_item_exactly_once(
    client: leaseq.Client, prefix: str
) -> None:
    q = client.queue(prefix)
    ids = [f"t{i}" for i in range(800)]
    assert q.add_batch([leaseq.Item(i.encode(), id=i) for i in ids]) == len(ids)
    done: list[str] = []
    failures: list[BaseException] = []
    lock = threading.Lock()
    barrier = threading.Barrier(8)

    def worker(n: int) -> None:
        try:
            barrier.wait()
            lease = q.lease(ttl=60.0, timeout=0.5)
            while lease is not None:
                assert lease.data == lease.id.encode()
                if n % 2:
                    with lock:
                        done.append(lease.id)
                    completed, lease = q.complete_and_lease(lease, ttl=60.0)
                    assert completed
                else:
                    assert q.complete(lease)
                    with lock:
                        done.append(lease.id)
                    lease = q.lease(ttl=60.0, timeout=0.5)
        except BaseException as e:
            failures.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not failures
    counts = collections.Counter(done)
    assert sorted(counts) == sorted(ids)
    assert set(counts.values()) == {1}
    assert (q.queue_len(), q.processing_len()) == (0, 0)


def test_a_blocked_lease_does_not_block_other_threads(client: leaseq.Client) -> None:
    waiting_queue = client.queue(new_prefix())
    busy_queue = client.queue(new_prefix())
    result: list[leaseq.Lease | None] = []
    waiter = threading.Thread(
        target=lambda: result.append(
            waiting_queue.lease(ttl=10.0, timeout=leaseq.FOREVER)
        )
    )
    waiter.start()
    # While the waiter blocks (on the same client), this thread makes round trips and runs
    # Python code. With the GIL held by the waiter, none of this could happen.
    for i in range(50):
        busy_queue.add(leaseq.Item(b"x", id=f"b{i}"))
        lease = busy_queue.lease(block=False)
        assert lease is not None and busy_queue.complete(lease)
    assert sum(range(100_000)) == 4_999_950_000
    assert waiter.is_alive() and result == []
    waiting_queue.add(leaseq.Item(b"wake", id="wake"))
    waiter.join(timeout=30)
    assert not waiter.is_alive()
    assert len(result) == 1 and result[0] is not None and result[0].id == "wake"


def test_other_threads_run_while_the_main_thread_waits(
    client: leaseq.Client, prefix: str, r: redis.Redis
) -> None:
    # The main thread blocks in lease; a pure-Python thread (redis-py) sees it blocked and adds
    # the item it waits for. If the wait held the GIL, that thread could never run.
    q = client.queue(prefix)
    baseline = blocked_clients(r)

    def producer() -> None:
        with redis.Redis.from_url(url_of(r)) as own:
            wait_until_blocked(own, baseline)
            own.set(f"{prefix}:item:p", b"from another thread")
            own.lpush(f"{prefix}:queue", "p")

    t = threading.Thread(target=producer)
    t.start()
    lease = q.lease(ttl=10.0, timeout=leaseq.FOREVER)
    t.join(timeout=30)
    assert lease is not None and lease.data == b"from another thread"


def url_of(r: redis.Redis) -> str:
    kwargs = r.connection_pool.connection_kwargs
    return f"redis://{kwargs['host']}:{kwargs['port']}"


CTRL_C_CHILD = textwrap.dedent(
    """
    import sys, leaseq
    q = leaseq.Client(sys.argv[1]).queue(sys.argv[2])
    wait = {
        "lease": lambda: q.lease(ttl=5.0, timeout=leaseq.FOREVER),
        "lease_batch": lambda: q.lease_batch(3, timeout=3600),
        "wait_result": lambda: q.wait_result("never", 3600),
        "lease_batch_forever": lambda: q.lease_batch(3, timeout=leaseq.FOREVER),
        "wait_result_forever": lambda: q.wait_result(b"\\xffnever", leaseq.FOREVER),
    }[sys.argv[3]]
    print("waiting", flush=True)
    try:
        wait()
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(0)
    print("returned", flush=True)
    sys.exit(1)
    """
)


@pytest.mark.parametrize(
    "wait",
    [
        "lease",
        "lease_batch",
        "wait_result",
        "lease_batch_forever",
        "wait_result_forever",
    ],
)
def test_ctrl_c_interrupts_a_blocking_wait(
    url: str, prefix: str, r: redis.Redis, wait: str
) -> None:
    baseline = blocked_clients(r)
    child = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_CHILD, url, prefix, wait],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    try:
        assert child.stdout.readline().strip() == "waiting"
        # Wait until the child really blocks server-side (its BLMOVE).
        wait_until_blocked(r, baseline)
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
        child.stdout.close()
    assert out.strip() == "interrupted"
    assert child.returncode == 0
    assert r.llen(f"{prefix}:processing") == 0


def _fork_child(q: leaseq.Queue, results: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    lease = q.lease(ttl=30.0, timeout=10.0)
    results.put((lease.id if lease else None, q.complete(lease) if lease else False))


@pytest.mark.filterwarnings(
    "ignore:This process .* is multi-threaded:DeprecationWarning"
)
def test_forked_children_get_a_working_client(
    client: leaseq.Client, prefix: str
) -> None:
    q = client.queue(prefix)
    q.add_batch([leaseq.Item(b"x", id=f"f{i}") for i in range(3)])
    assert (
        q.queue_len() == 3
    )  # the parent's connection and runtime exist before the fork
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    children = [ctx.Process(target=_fork_child, args=(q, results)) for _ in range(3)]
    for child in children:
        child.start()
    got = sorted(results.get(timeout=60) for _ in children)
    for child in children:
        child.join(timeout=60)
        assert child.exitcode == 0
    assert got == [("f0", True), ("f1", True), ("f2", True)]
    # The parent's client still works after its children used their copies.
    assert (q.queue_len(), q.processing_len()) == (0, 0)
    q.add(leaseq.Item(b"after"))
    assert q.lease(block=False) is not None
    results.close()
    results.join_thread()


@pytest.mark.filterwarnings(
    "ignore:This process .* is multi-threaded:DeprecationWarning"
)
def test_fork_keeps_a_closed_client_closed(url: str) -> None:
    client = leaseq.Client(url)
    q = client.queue(new_prefix())
    client.close()
    pid = os.fork()
    if pid == 0:
        try:
            q.queue_len()
            code = 1
        except leaseq.ClosedError:
            code = 0
        except BaseException:
            code = 2
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0


def _lifecycle_child(q: leaseq.Queue, results: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    lease = q.lease(timeout=10.0)
    assert lease is not None
    outcome = q.fail(lease, RuntimeError("in the child"), retry=False)
    job = q.get(lease.id)
    results.put((outcome.name, job.error_type if job else None, q.stats().dead))


@pytest.mark.filterwarnings(
    "ignore:This process .* is multi-threaded:DeprecationWarning"
)
def test_forked_child_runs_the_lifecycle(client: leaseq.Client, prefix: str) -> None:
    q = client.queue(prefix)
    q.add(leaseq.Item(b"x", id="forked"))
    assert (
        q.stats().waiting == 1
    )  # the parent's connection and runtime exist before the fork
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    child = ctx.Process(target=_lifecycle_child, args=(q, results))
    child.start()
    assert results.get(timeout=60) == ("dead", "RuntimeError", 1)
    child.join(timeout=60)
    assert child.exitcode == 0
    assert q.dead_requeue(["forked"]) == 1 and q.count("waiting") == 1
    results.close()
    results.join_thread()
