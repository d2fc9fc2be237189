"""Every method of the sync API against a real redis-server."""

from __future__ import annotations

import json
import threading
import time

import leaseq
import pytest
import redis
from conftest import Server


def test_item_ids_and_data() -> None:
    a, b = leaseq.Item(b"x"), leaseq.Item(b"x")
    assert len(a.id) == 36 and a.id != b.id
    assert leaseq.Item("héllo").data == "héllo".encode()
    assert leaseq.Item(bytearray(b"\x00\xff")).data == b"\x00\xff"
    assert leaseq.Item(b"x", id="custom").id == "custom"
    assert leaseq.Item(b"x", id=None).id != leaseq.Item(b"x", id=None).id
    assert "custom" in repr(leaseq.Item(b"x", id="custom"))


def test_item_json() -> None:
    item = leaseq.Item.from_json({"to": "a@b", "n": [1, 2]})
    assert json.loads(item.data) == {"to": "a@b", "n": [1, 2]}
    assert item.json() == {"to": "a@b", "n": [1, 2]}
    assert leaseq.Item.from_json("ünï", id="j").id == "j"
    assert leaseq.Item.from_json("ünï").json() == "ünï"


def test_add_lease_complete(queue: leaseq.Queue, r: redis.Redis) -> None:
    item = leaseq.Item(b"payload", id="one")
    assert queue.add(item) is True
    assert queue.add(leaseq.Item(b"other", id="one")) is False
    assert queue.queue_len() == 1
    lease = queue.lease(ttl=30.0)
    assert lease is not None
    assert (lease.id, lease.data, lease.count) == ("one", b"payload", 1)
    assert lease.token and isinstance(lease.token, str)
    assert "one" in repr(lease)
    # Being processed: leased by leaseq counts, as redis-work-queue's processing list does.
    assert (queue.queue_len(), queue.processing_len()) == (0, 1)
    assert queue.count("leased") == 1
    assert queue.complete(lease) is True
    assert queue.complete(lease) is False
    assert (queue.queue_len(), queue.processing_len()) == (0, 0)
    assert r.exists(f"{queue.prefix}:item:one") == 0
    # The id is free again once complete.
    assert queue.add(item) is True


def test_binary_and_str_data_round_trip(queue: leaseq.Queue) -> None:
    blob = bytes(range(256)) * 4
    queue.add(leaseq.Item(blob, id="bin"))
    queue.add(leaseq.Item("text ✓", id="txt"))
    first, second = queue.lease(block=False), queue.lease(block=False)
    assert first is not None and second is not None
    assert {first.id: first.data, second.id: second.data} == {
        "bin": blob,
        "txt": "text ✓".encode(),
    }


def test_lease_json(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item.from_json({"to": "a@b"}))
    lease = queue.lease(block=False)
    assert lease is not None and lease.json() == {"to": "a@b"}


def test_add_unique(queue: leaseq.Queue) -> None:
    queue.add_unique(leaseq.Item(b"u"))
    assert queue.queue_len() == 1


def test_queue_len_counts_every_priority(queue: leaseq.Queue) -> None:
    queue.add_batch(
        [
            leaseq.Item(b"x", id=f"p{p}", priority=p)
            for p in (-5, 0, leaseq.MAX_PRIORITY)
        ]
    )
    assert queue.queue_len() == queue.count("waiting") == 3
    lease = queue.lease()
    assert lease is not None and lease.id == f"p{leaseq.MAX_PRIORITY}"
    assert (queue.queue_len(), queue.processing_len()) == (2, 1)


def test_add_batch(queue: leaseq.Queue) -> None:
    items = [leaseq.Item(str(i).encode(), id=f"b{i}") for i in range(2500)]
    assert queue.add_batch(items) == 2500
    assert queue.add_batch([*items[:10], leaseq.Item(b"new", id="fresh")]) == 1
    assert queue.add_batch([]) == 0
    assert queue.add_batch(leaseq.Item(b"g") for _ in range(3)) == 3
    assert queue.queue_len() == 2504


def test_fifo_order(queue: leaseq.Queue) -> None:
    queue.add_batch([leaseq.Item(b"", id=f"o{i}") for i in range(5)])
    ids = []
    while (lease := queue.lease(block=False)) is not None:
        ids.append(lease.id)
    assert ids == [f"o{i}" for i in range(5)]


def test_lease_on_empty_queue(queue: leaseq.Queue) -> None:
    assert queue.lease(block=False) is None
    assert queue.lease(timeout=0) is None
    assert queue.lease(ttl=1, timeout=0.2) is None


def test_lease_waits_for_an_item_across_slices(queue: leaseq.Queue) -> None:
    # A wait longer than one GIL-free slice still returns the item that arrives.

    def add_later() -> None:
        threading.Event().wait(1.2)
        queue.add(leaseq.Item(b"late", id="late"))

    t = threading.Thread(target=add_later)
    t.start()
    lease = queue.lease(timeout=30.0)
    t.join()
    assert lease is not None and lease.id == "late"


def test_complete_and_lease(queue: leaseq.Queue) -> None:
    queue.add_batch([leaseq.Item(b"1", id="c1"), leaseq.Item(b"2", id="c2")])
    first = queue.lease(block=False)
    assert first is not None
    done, second = queue.complete_and_lease(first, ttl=10.0)
    assert done is True and second is not None and second.id == "c2"
    done, third = queue.complete_and_lease(second)
    assert done is True and third is None
    done, none = queue.complete_and_lease(second)
    assert done is False and none is None
    assert (queue.queue_len(), queue.processing_len()) == (0, 0)


def test_renew(queue: leaseq.Queue, r: redis.Redis) -> None:
    queue.add(leaseq.Item(b"x", id="rn"))
    lease = queue.lease(ttl=5.0, block=False)
    assert lease is not None
    assert queue.renew(lease, ttl=100.0) is True
    assert 95_000 < r.pttl(f"{queue.prefix}:lease:rn") <= 100_000
    assert queue.renew(lease) is True
    queue.complete(lease)
    assert queue.renew(lease) is False


def test_expired_lease_is_requeued_by_light_clean(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"x", id="ex"))
    lease = queue.lease(ttl=0.05)
    assert lease is not None
    time.sleep(0.2)  # past the TTL: nobody leases meanwhile, so the cleaner recovers it
    report = queue.light_clean()
    assert (report.requeued, report.removed, report.dead) == (1, 0, 0)
    again = queue.lease()
    assert again is not None and again.id == "ex" and again.count == 2
    # The first holder lost the item: its renew fails and says why; its complete too.
    assert queue.renew(lease) is False
    assert queue.renew_outcome(lease) == leaseq.RenewOutcome.TAKEN
    assert queue.complete(again) is True
    assert queue.complete(lease) is False


def test_light_clean_on_clean_queue(queue: leaseq.Queue) -> None:
    report = queue.light_clean()
    assert (report.requeued, report.removed) == (0, 0)
    assert (report.promoted, report.dead) == (0, 0)
    assert repr(report) == "CleanReport(requeued=0, removed=0, promoted=0, dead=0)"


def test_deep_clean_finds_items_on_no_list(queue: leaseq.Queue, r: redis.Redis) -> None:
    # A redis-work-queue client that crashed between SET and LPUSH leaves an item on no list.
    r.set(f"{queue.prefix}:item:orphan", b"data")
    assert queue.light_clean().requeued == 0
    report = queue.deep_clean()
    assert report.requeued == 1
    lease = queue.lease(block=False)
    assert lease is not None and (lease.id, lease.data) == ("orphan", b"data")


def test_clean_reports_compare_by_value(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"x"))
    lease = queue.lease(ttl=60.0, block=False)
    assert lease is not None
    queue.complete(lease)
    queue.add(leaseq.Item(b"y"))
    assert queue.lease(ttl=60.0, block=False) is not None
    assert queue.light_clean() == queue.light_clean()


def test_prefix_and_repr(queue: leaseq.Queue, prefix: str) -> None:
    assert queue.prefix == prefix
    assert prefix in repr(queue)


def test_client_context_manager_closes(url: str, prefix: str) -> None:
    with leaseq.Client(url) as c:
        q = c.queue(prefix)
        assert q.queue_len() == 0
        assert c.is_cluster is False
    with pytest.raises(leaseq.ClosedError):
        q.queue_len()


def test_queues_are_independent(client: leaseq.Client) -> None:
    a, b = client.queue("{ind-a}"), client.queue("{ind-b}")
    a.add(leaseq.Item(b"x"))
    assert (a.queue_len(), b.queue_len()) == (1, 0)
    assert b.lease(block=False) is None


def test_warnings_name_a_risky_eviction_policy(fresh_server: Server) -> None:
    assert leaseq.Client(fresh_server.url).warnings == []
    with redis.Redis.from_url(fresh_server.url) as r:
        r.config_set("maxmemory-policy", "allkeys-lru")
    warnings = leaseq.Client(fresh_server.url).warnings
    assert len(warnings) == 1 and "allkeys-lru" in warnings[0]


def test_cluster(cluster: Server) -> None:
    with leaseq.Client.cluster(cluster.urls) as client:
        assert client.is_cluster
        with pytest.raises(leaseq.InvalidArgumentError) as info:
            client.queue("no-hash-tag")
        assert info.value.argument == "prefix"
        # Queues with different tags land on different nodes; each works.
        for n in range(3):
            q = client.queue(f"{{cluster-{n}}}")
            assert q.add_batch([leaseq.Item(b"c", id=f"c{i}") for i in range(3)]) == 3
            lease = q.lease(timeout=5.0)
            assert lease is not None and lease.id == "c0" and q.complete(lease)
            assert q.light_clean() == q.light_clean()
            assert q.deep_clean().requeued == 0
            assert (q.queue_len(), q.processing_len()) == (2, 0)
