"""The Python soak worker (integration-tests/soak/workers/soak_worker.py), run as the soak runs it.

The soak itself (`leaseq-soak --worker python=...`) is a Rust program outside these tests; these
keep the script working: its producer adds what the soak expects, and its worker (behaving, as
with LEASEQ_SOAK_MISBEHAVE=0) completes every item once and records it.
"""

from __future__ import annotations

import collections
import importlib.util
import os
import subprocess
import sys
import time

import leaseq
import pytest
import redis
from conftest import REPO, new_prefix

WORKER = REPO / "integration-tests" / "soak" / "workers" / "soak_worker.py"


def soak_env(queues: list[str], results: str, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "LEASEQ_SOAK_QUEUES": ",".join(queues),
        "LEASEQ_SOAK_RESULTS": results,
        **extra,
    }


def produce(url: str, queues: list[str], results: str, first: int, count: int) -> None:
    done = subprocess.run(  # noqa: PLW1510 - the return code is asserted
        [sys.executable, str(WORKER), url, "py", "produce", str(first), str(count)],
        env=soak_env(queues, results),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def drain(queue: leaseq.Queue) -> dict[str, bytes]:
    """Leases (and completes) every item of the queue: id -> data."""
    items = {}
    while (lease := queue.lease(30, block=False)) is not None:
        items[lease.id] = lease.data
        assert queue.complete(lease)
    return items


def test_the_producer_adds_its_share_to_both_queues(
    client: leaseq.Client, url: str
) -> None:
    queues, results = [new_prefix(), new_prefix()], new_prefix()
    # 121 items from 3: more than one batch of 50 per queue, and a partial batch at the end.
    produce(url, queues, results, 3, 121)
    even, odd = client.queue(queues[0]), client.queue(queues[1])
    assert (even.queue_len(), odd.queue_len()) == (60, 61)
    got = [drain(even), drain(odd)]
    for parity in (0, 1):
        assert got[parity] == {
            f"py-{n}": f'{{"n":{n}}}'.encode() for n in range(3, 124) if n % 2 == parity
        }
    assert client.queue(results).queue_len() == 0


def test_the_producer_refuses_a_bad_command_line(url: str) -> None:
    done = subprocess.run(  # noqa: PLW1510 - the return code is asserted
        [sys.executable, str(WORKER), url, "py", "produce", "3"],
        env=soak_env([new_prefix(), new_prefix()], new_prefix()),
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "usage:" in done.stderr


def records(r: redis.Redis, results: str) -> list[tuple[str, bytes]]:
    """The results queue's records as the soak reads them: (id, data), with redis-py."""
    ids: list[bytes] = r.lrange(f"{results}:queue", 0, -1)  # type: ignore[assignment]
    found = []
    for raw in ids:
        data: bytes = r.get(b"%s:item:%s" % (results.encode(), raw))  # type: ignore[assignment]
        found.append((raw.decode(), data))
    return found


def test_a_behaving_worker_completes_every_item_once_and_records_it(
    client: leaseq.Client, url: str, r: redis.Redis
) -> None:
    queues, results = [new_prefix(), new_prefix()], new_prefix()
    produce(url, queues, results, 0, 80)
    worker = subprocess.Popen(
        [sys.executable, str(WORKER), url, "py", "work"],
        env=soak_env(queues, results, LEASEQ_SOAK_MISBEHAVE="0"),
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        result_queue = client.queue(results)
        # Each item gives an `exec` and a `win` record; the worker writes the win after its
        # complete, so wait for the records rather than for the queues to empty.
        while result_queue.queue_len() < 160:
            assert worker.poll() is None, worker.communicate()[1]
            time.sleep(0.05)
        assert worker.poll() is None, "the worker runs until it is stopped"
    finally:
        worker.kill()
        _, stderr = worker.communicate()
    assert stderr == ""
    found = records(r, results)
    assert all(data == b"py" for _, data in found)
    kinds: collections.Counter[tuple[str, str, str]] = collections.Counter()
    for record, _ in found:
        kind, queue, item_id, nonce = record.split("|")
        assert len(nonce) == 32
        kinds[kind, queue, item_id] += 1
    expected = {(queues[n % 2], f"py-{n}") for n in range(80)}
    assert {(q, i) for (k, q, i) in kinds if k == "win"} == expected
    assert {(q, i) for (k, q, i) in kinds if k == "exec"} == expected
    assert set(kinds.values()) == {1}, "one exec and one win per item: it behaved"
    for prefix in queues:
        q = client.queue(prefix)
        assert (q.queue_len(), q.processing_len()) == (0, 0)


@pytest.mark.parametrize(
    ("roll", "what"),
    [
        (0, "drop"),
        (3, "drop"),
        (4, "slow"),
        (7, "twice"),
        (9, "renew-late"),
        (11, "fail"),
        (14, "fail"),
        (15, "fail-for-good"),
        (16, "normal"),
        (99, "normal"),
    ],
)
def test_the_misbehaviour_table_is_the_shared_one(
    roll: int, what: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = importlib.util.spec_from_file_location("soak_worker", WORKER)
    assert spec is not None and spec.loader is not None
    soak_worker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(soak_worker)
    monkeypatch.delenv("LEASEQ_SOAK_MISBEHAVE", raising=False)
    assert soak_worker.behaviour(roll) == what
    monkeypatch.setenv("LEASEQ_SOAK_MISBEHAVE", "0")
    assert soak_worker.behaviour(roll) == "normal"
    # The drain soak: only what a redis-work-queue worker can do too.
    monkeypatch.setenv("LEASEQ_SOAK_MISBEHAVE", "plain")
    plain = what if what in ("drop", "slow", "twice") else "normal"
    assert soak_worker.behaviour(roll) == plain
