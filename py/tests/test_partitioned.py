"""Partitioned queues (spec/PROTOCOL.md 5.25) from Python, on a local cluster of three
primaries: creation and opening, routing of adds, reads over the logical queue, leases from
every partition, the runner over them, and the asyncio face."""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
from collections.abc import Iterator

import leaseq
import leaseq.aio
import pytest
from conftest import Server, new_prefix
from leaseq.worker import Job


@pytest.fixture()
def cluster_client(cluster: Server) -> Iterator[leaseq.Client]:
    with leaseq.Client.cluster(cluster.urls) as c:
        yield c


def items(n: int) -> list[leaseq.Item]:
    return [leaseq.Item(b"x", id=f"i{i}") for i in range(n)]


def test_create_open_and_refusals(cluster_client: leaseq.Client) -> None:
    base = new_prefix()
    q = cluster_client.create_partitioned(base, 3)
    assert q.base == base
    assert len(q.partitions) == 3
    assert len(set(q.partitions)) == 3
    # Opening by the base finds the stored layout; creating again with the count is idempotent.
    assert cluster_client.partitioned(base).partitions == q.partitions
    assert cluster_client.create_partitioned(base, 3).partitions == q.partitions
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        cluster_client.create_partitioned(base, 4)
    assert refused.value.argument == "partitions"
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        cluster_client.create_partitioned(new_prefix(), 0)
    assert refused.value.argument == "partitions"
    with pytest.raises(leaseq.InvalidArgumentTypeError):
        cluster_client.create_partitioned(base, "3")  # type: ignore[arg-type]
    # A base that is not partitioned is the plain queue there, one partition.
    plain = new_prefix()
    assert cluster_client.partitioned(plain).partitions == [plain]
    assert "partitions=3" in repr(q)


def test_adds_spread_and_reads_see_the_logical_queue(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    assert q.add_batch(items(60)) == 60
    assert not q.add(leaseq.Item(b"x", id="i0"))
    assert q.add(leaseq.Item(b"y", id="extra"))
    stats = q.stats()
    assert isinstance(stats, leaseq.PartitionedStats)
    assert stats.total.waiting == 61
    assert [s.waiting for s in stats.partitions] == [
        q.partition(i).count("waiting") for i in range(3)
    ]
    assert all(s.waiting > 0 for s in stats.partitions)
    assert q.count(leaseq.State.WAITING) == 61
    listed = q.list("waiting", 0, 1000)
    assert len(listed) == 61
    # Each entry names the partition it lives in.
    assert all(e.partition == q.partition_of(leaseq.Item(b"", id=e.id)) for e in listed)
    assert all(e.partition is None for e in q.partition(0).list("waiting", 0, 5))
    job = q.get("i5")
    assert job is not None and job.id == "i5"
    home = q.partition_of(leaseq.Item(b"", id="i5"))
    assert job.partition == home
    from_home = q.partition(home).get("i5")
    assert from_home is not None and from_home.partition is None
    assert q.get("missing") is None
    assert q.cancel("i5") == leaseq.State.WAITING
    assert q.get("i5") is None
    for out_of_range in (3, -1):
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            q.partition(out_of_range)
        assert refused.value.argument == "partition"
        assert "from 0 to 2" in str(refused.value)


def test_leases_come_from_every_partition_and_finish_in_their_own(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    q.add_batch(items(30))
    got = q.lease_batch(30, ttl=30)
    assert len(got) == 30
    assert {lease.id for lease in got} == {f"i{i}" for i in range(30)}
    first, *rest = got
    assert q.complete(first, result=b"done")
    result = q.result(first.id)
    assert result is not None and result.data == b"done"
    assert q.queue_of(first).prefix in q.partitions
    assert all(q.complete(lease) for lease in rest)
    assert q.stats().total.leased == 0
    assert q.lease(ttl=30) is None
    # A lease of another queue is refused, naming it.
    other = cluster_client.queue(new_prefix())
    other.add(leaseq.Item(b"z"))
    foreign = other.lease(ttl=30)
    assert foreign is not None
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.complete(foreign)
    assert refused.value.argument == "lease"


def test_pause_holds_every_partition_and_a_wait_sees_any(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    q.add_batch(items(3))
    assert q.pause()
    assert q.stats().total.paused
    assert q.lease(ttl=30) is None
    assert q.resume()
    assert len(q.lease_batch(3, ttl=30)) == 3
    # A waiting lease is answered by an add to whichever partition.
    answer: list[leaseq.Lease | None] = []
    waiter = threading.Thread(target=lambda: answer.append(q.lease(30, timeout=30)))
    waiter.start()
    q.add(leaseq.Item(b"late", id="late"))
    waiter.join()
    assert answer[0] is not None and answer[0].id == "late"


def test_a_worker_runs_over_every_partition(cluster_client: leaseq.Client) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    q.add_batch(items(12))
    seen: list[str] = []
    lock = threading.Lock()

    def handler(job: Job) -> None:
        with lock:
            seen.append(job.id)

    worker = leaseq.Worker(q, handler, concurrency=4)

    def stop_when_drained(*_: object) -> None:
        total = q.stats().total
        if total.waiting + total.leased == 0:
            worker.stop()

    worker.on("*", stop_when_drained)
    report = worker.run()
    assert report.completed == 12
    assert sorted(seen) == sorted(f"i{i}" for i in range(12))
    prefixes = {q.partition(i).prefix for i in range(3)}
    assert prefixes == set(q.partitions)


def test_the_asyncio_face(cluster: Server) -> None:
    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            base = new_prefix()
            q = await client.create_partitioned(base, 3)
            assert (await client.partitioned(base)).partitions == q.partitions
            assert await q.add_batch(items(9)) == 9
            assert await q.add(leaseq.Item(b"x", id="one"))
            stats = await q.stats()
            assert stats.total.waiting == 10
            assert sum(s.waiting for s in stats.partitions) == 10
            assert await q.count("waiting") == 10
            assert len(await q.list("waiting")) == 10
            job = await q.get("one")
            assert job is not None
            assert job.partition == q.partition_of(leaseq.Item(b"", id="one"))
            assert await q.cancel("one") == leaseq.State.WAITING
            leases = await q.lease_batch(9, ttl=30)
            assert len(leases) == 9
            assert await q.complete(leases[0], result="ok")
            result = await q.result(leases[0].id)
            assert result is not None and result.data == b"ok"
            for lease in leases[1:]:
                assert await q.complete(lease)
            assert await q.pause()
            assert await q.resume()
            assert await q.lease(ttl=30, timeout=0.05) is None

    asyncio.run(body())


def _fork_child(q: leaseq.PartitionedQueue, results: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    leases = q.lease_batch(3, ttl=30.0, timeout=10.0)
    results.put(sorted((lease.id, q.complete(lease)) for lease in leases))


@pytest.mark.filterwarnings(
    "ignore:This process .* is multi-threaded:DeprecationWarning"
)
def test_a_forked_child_opens_the_queue_again(
    client: leaseq.Client, prefix: str
) -> None:
    # One server holds every partition here: the base's hash tag is enough.
    q = client.create_partitioned(prefix, 3)
    q.add_batch(items(3))
    assert (
        q.stats().total.waiting == 3
    )  # the parent's connection exists before the fork
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    child = ctx.Process(target=_fork_child, args=(q, results))
    child.start()
    assert results.get(timeout=60) == [("i0", True), ("i1", True), ("i2", True)]
    child.join(timeout=60)
    assert child.exitcode == 0
    # The parent's copy still works.
    assert q.stats().total.waiting == 0
    assert q.add(leaseq.Item(b"after", id="after"))
    lease = q.lease(ttl=30)
    assert lease is not None and lease.id == "after"
    results.close()
    results.join_thread()
