"""Interop with redis-work-queue clients, both ways.

The other side issues exactly the redis-py commands of redis-work-queue's Python client:
  add:      SET <p>:item:<id> data; LPUSH <p>:queue id
  lease:    RPOPLPUSH (or BRPOPLPUSH) <p>:queue <p>:processing; GET <p>:item:<id>;
            SETEX <p>:lease:<id> secs <session>
  complete: DEL <p>:item:<id>; LREM <p>:processing 0 id; DEL <p>:lease:<id>
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import leaseq
import redis


class TheirClient:
    """redis-work-queue's protocol, command for command (sent verbatim through redis-py)."""

    def __init__(self, r: redis.Redis, prefix: str) -> None:
        self.r, self.p = r, prefix
        self.session = uuid.uuid4().hex

    def cmd(self, *args: object) -> Any:
        return self.r.execute_command(*args)  # type: ignore[no-untyped-call]

    def add(self, item_id: str, data: bytes) -> None:
        self.cmd("SET", f"{self.p}:item:{item_id}", data)
        self.cmd("LPUSH", f"{self.p}:queue", item_id)

    def lease(
        self, secs: int = 30, block: bool = False
    ) -> tuple[str, bytes | None] | None:
        if block:
            raw = self.cmd("BRPOPLPUSH", f"{self.p}:queue", f"{self.p}:processing", 5)
        else:
            raw = self.cmd("RPOPLPUSH", f"{self.p}:queue", f"{self.p}:processing")
        if raw is None:
            return None
        item_id = raw.decode()
        data = self.cmd("GET", f"{self.p}:item:{item_id}")
        self.cmd("SETEX", f"{self.p}:lease:{item_id}", secs, self.session)
        return item_id, data

    def complete(self, item_id: str) -> bool:
        removed = self.cmd("DEL", f"{self.p}:item:{item_id}")
        self.cmd("LREM", f"{self.p}:processing", 0, item_id)
        self.cmd("DEL", f"{self.p}:lease:{item_id}")
        return bool(removed)


def test_leaseq_adds_they_lease_and_complete(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    theirs = TheirClient(r, queue.prefix)
    queue.add(leaseq.Item(b"first \x00 bytes", id="a"))
    queue.add_batch([leaseq.Item(b"second", id="b")])
    queue.add_unique(leaseq.Item(b"third", id="c"))
    assert theirs.lease() == ("a", b"first \x00 bytes")  # same FIFO order
    assert theirs.lease(block=True) == ("b", b"second")
    assert queue.processing_len() == 2
    assert theirs.complete("a") and theirs.complete("b")
    assert (queue.queue_len(), queue.processing_len()) == (1, 0)
    lease = queue.lease(block=False)
    assert lease is not None and lease.id == "c"
    assert queue.complete(lease)
    assert queue.lease(block=False) is None
    # The ids they completed are free for leaseq again.
    assert queue.add(leaseq.Item(b"again", id="a"))


def test_they_add_leaseq_leases_and_completes(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    theirs = TheirClient(r, queue.prefix)
    theirs.add("x", b"from them")
    theirs.add("y", b"second")
    lease = queue.lease(ttl=30.0, block=False)
    assert lease is not None and (lease.id, lease.data, lease.count) == (
        "x",
        b"from them",
        1,
    )
    # leaseq tracks its own leases in `leased` (protocol v2), not in their `processing`.
    assert r.lrange(f"{queue.prefix}:processing", 0, -1) == []
    assert r.zscore(f"{queue.prefix}:leased", "x") is not None
    assert r.exists(f"{queue.prefix}:lease:x") == 1
    assert queue.complete(lease)
    assert r.exists(f"{queue.prefix}:item:x", f"{queue.prefix}:lease:x") == 0
    assert r.lrange(f"{queue.prefix}:processing", 0, -1) == []
    # What is left is theirs to lease, as they expect it.
    assert theirs.lease() == ("y", b"second")
    assert theirs.complete("y")
    assert (queue.queue_len(), queue.processing_len()) == (0, 0)


def test_their_add_wakes_a_blocking_leaseq_lease(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    got: list[leaseq.Lease | None] = []
    waiter = threading.Thread(target=lambda: got.append(queue.lease(timeout=30.0)))
    waiter.start()
    TheirClient(r, queue.prefix).add("w", b"wake")
    waiter.join(timeout=60)
    assert len(got) == 1 and got[0] is not None and got[0].data == b"wake"


def test_their_crashed_worker_is_repaired_by_leaseq(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    # Their worker took the id and died before SETEX: no lease key ever existed.
    theirs = TheirClient(r, queue.prefix)
    theirs.add("crash", b"data")
    theirs.cmd("RPOPLPUSH", f"{queue.prefix}:queue", f"{queue.prefix}:processing")
    assert queue.lease(block=False) is None
    report = queue.light_clean()
    assert report.requeued == 1
    lease = queue.lease(block=False)
    assert lease is not None and (lease.id, lease.data) == ("crash", b"data")
    assert queue.complete(lease)


def test_their_complete_fences_out_a_leaseq_holder(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    theirs = TheirClient(r, queue.prefix)
    queue.add(leaseq.Item(b"x", id="shared"))
    lease = queue.lease(block=False)
    assert lease is not None
    assert theirs.complete("shared")  # e.g. an operator's script completing by hand
    assert queue.renew(lease) is False
    assert queue.complete(lease) is False
