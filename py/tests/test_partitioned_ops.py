"""A partitioned queue's operations that act where a lease, an item or the configuration lives
(the core's ``operations::PARTITIONED``): ``fail`` in the lease's partition, the batch
finishes (``complete_batch``, ``renew_batch``, ``fail_batch``) in each lease's, ``partition_of``,
``dead_requeue_oldest`` and ``dead_purge`` over every partition, ``set_config`` and
``reset_config`` in every partition, the schedules in partition 0, the calls by id (``promote``,
``dependencies``, ``dependency_results``, ``dead_requeue``) where the item is, ``rate_limit``
and ``is_paused`` over every partition, the counts (``exists``, ``queue_len``,
``processing_len``, ``counts_by_name``) and cleans over every partition, ``config`` from
partition 0, ``add_unique`` routed as ``add``, ``find`` in one partition a call, and the
arguments ``add`` and ``lease`` share with ``Queue``'s; on a local cluster of three primaries,
sync and asyncio. A refused argument is named and nothing is written."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta

import leaseq
import leaseq.aio
import pytest
import redis
from conftest import Server, new_prefix


@pytest.fixture()
def cluster_client(cluster: Server) -> Iterator[leaseq.Client]:
    with leaseq.Client.cluster(cluster.urls) as c:
        yield c


def items(n: int) -> list[leaseq.Item]:
    return [leaseq.Item(b"x", id=f"i{i}") for i in range(n)]


def where(q: leaseq.PartitionedQueue, id: str) -> list[int]:
    """The partitions that hold item ``id`` (one, when it exists)."""
    return [i for i in range(len(q.partitions)) if q.partition(i).get(id) is not None]


def dead_per_partition(q: leaseq.PartitionedQueue) -> list[int]:
    return [q.partition(i).count("dead") for i in range(len(q.partitions))]


def test_fail_retries_or_kills_in_the_leases_own_partition(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    assert q.add_batch(items(6)) == 6
    plain = cluster_client.queue(new_prefix())
    plain.add_batch(items(2))

    lease = q.lease(ttl=30)
    assert lease is not None
    home = q.partitions.index(q.queue_of(lease).prefix)
    assert where(q, lease.id) == [home]
    # Retried now: it waits again in its own partition, with the failure recorded there.
    plain_lease = plain.lease(ttl=30)
    assert plain_lease is not None
    outcome = q.fail(lease, "boom", "Boom", retry=0, trace="the trace")
    assert outcome == plain.fail(plain_lease, "boom", "Boom", retry=0)
    assert outcome.retrying and outcome.retry_in == timedelta(0)
    job = q.partition(home).get(lease.id)
    assert job is not None and job.state == leaseq.State.WAITING
    assert (job.error, job.error_type, job.trace) == ("boom", "Boom", "the trace")
    assert where(q, lease.id) == [home]
    # Failing the same lease again: not held any more, nothing changed (as Queue.fail says).
    again = q.fail(lease, "boom")
    assert again == plain.fail(plain_lease, "boom")
    assert again.not_held is not None and not again.dead

    # retry=False: dead now, in its own partition; an exception gives the message and type.
    lease = q.lease(ttl=30)
    assert lease is not None
    home = q.partitions.index(q.queue_of(lease).prefix)
    plain_lease = plain.lease(ttl=30)
    assert plain_lease is not None
    outcome = q.fail(lease, ValueError("bad input"), retry=False)
    assert outcome == plain.fail(plain_lease, ValueError("bad input"), retry=False)
    assert outcome.dead and str(outcome) == "dead"
    job = q.partition(home).get(lease.id)
    assert job is not None and job.state == leaseq.State.DEAD
    assert (job.error, job.error_type) == ("bad input", "ValueError")
    assert q.count("dead") == 1 and dead_per_partition(q)[home] == 1


def test_fail_refuses_a_bad_argument_and_writes_nothing(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    q.add_batch(items(3))
    mine = q.lease(ttl=30)
    assert mine is not None
    other = cluster_client.queue(new_prefix())
    other.add(leaseq.Item(b"z", id="z"))
    foreign = other.lease(ttl=30)
    assert foreign is not None

    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.fail(foreign, "boom")
    assert refused.value.argument == "lease"
    job = other.get("z")
    assert job is not None and job.state == leaseq.State.LEASED and job.error is None
    bad: list[tuple[str, dict[str, object]]] = [
        ("retry", {"retry": "soon"}),
        ("error", {"error": 3}),
        ("error_type", {"error_type": 3}),
        ("trace", {"trace": b"bytes"}),
    ]
    for argument, kwargs in bad:
        call: dict[str, object] = {"error": "boom", **kwargs}
        with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
            q.fail(mine, **call)  # type: ignore[arg-type]
        assert wrong.value.argument == argument
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        q.fail("not a lease", "boom")  # type: ignore[arg-type]
    assert wrong.value.argument == "lease"
    # Nothing was written: the lease is still held, without a failure.
    job = q.get(mine.id)
    assert job is not None and job.state == leaseq.State.LEASED and job.error is None
    assert q.stats().total.leased == 1
    assert q.complete(mine)


def test_partition_of_is_where_add_puts_the_item(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    plain_items = items(12)
    grouped = [leaseq.Item(b"g", id=f"g{i}", group="tenant-7") for i in range(4)]
    child = leaseq.Item(b"c", id="child", depends_on=["i3"])
    for item in [*plain_items, *grouped, child]:
        assert q.add(item)
        at = q.partition_of(item)
        assert isinstance(at, int) and 0 <= at < 3
        assert where(q, item.id) == [at], item.id
    # By its group (one partition for the group), by its first dependency.
    assert len({q.partition_of(item) for item in grouped}) == 1
    assert q.partition_of(child) == q.partition_of(plain_items[3])
    # The ids spread: more than one partition is used.
    assert len({q.partition_of(item) for item in plain_items}) > 1

    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        q.partition_of("i0")  # type: ignore[arg-type]
    assert wrong.value.argument == "item"
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        q.partition_of(None)  # type: ignore[arg-type]
    assert wrong.value.argument == "item"
    assert (q.count("waiting"), q.count("blocked")) == (12 + 4, 1)


def kill_all(q: leaseq.PartitionedQueue, n: int) -> None:
    """Leases and fails (dead now) ``n`` items."""
    leases = q.lease_batch(n, ttl=30)
    assert len(leases) == n
    for lease in leases:
        assert q.fail(lease, "boom", retry=False).dead


def test_dead_requeue_oldest_and_dead_purge_act_on_every_partition(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    q.add_batch(items(30))
    kill_all(q, 30)
    dead = dead_per_partition(q)
    assert sum(dead) == 30 and len([d for d in dead if d]) > 1

    # The n oldest of the logical queue, over every partition: n in all.
    assert q.dead_requeue_oldest(1) == 1
    assert q.dead_requeue_oldest(2) == 2
    assert q.count("waiting") == 3
    assert sum(dead_per_partition(q)) == 27
    # All (n None).
    assert q.dead_requeue_oldest() == 27
    assert q.count("dead") == 0 and q.count("waiting") == 30

    kill_all(q, 30)
    assert q.dead_purge(2) == 2
    assert sum(dead_per_partition(q)) == 28
    assert q.dead_purge() == 28
    assert q.count("dead") == 0 and q.stats().total.waiting == 0
    assert q.get("i0") is None

    # A refused n is named; nothing moves.
    assert q.add_batch(items(3)) == 3
    kill_all(q, 3)
    for bad in (-1, "1", 1.5):
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            q.dead_requeue_oldest(bad)  # type: ignore[arg-type]
        assert refused.value.argument == "n"
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            q.dead_purge(bad)  # type: ignore[arg-type]
        assert refused.value.argument == "n"
    assert q.count("dead") == 3


def test_set_config_stores_it_in_every_partition(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    q.set_config(
        max_attempts=7, keep_result_for=timedelta(hours=2), stats=True, capacity=100
    )
    for i in range(3):
        config = q.partition(i).config()
        assert config.max_attempts == 7
        assert config.keep_result_for == timedelta(hours=2)
        assert config.stats is True
        assert config.capacity == 100
    # The other fields keep their stored values.
    q.set_config(max_attempts=3)
    assert [q.partition(i).config().max_attempts for i in range(3)] == [3, 3, 3]
    assert [q.partition(i).config().capacity for i in range(3)] == [100, 100, 100]
    # Read through the logical queue: every partition counts per minute now.
    assert all(s.minutes is not None for s in q.stats().partitions)

    before = [repr(q.partition(i).config()) for i in range(3)]
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.set_config(max_attempts=9, keep_result_for=0)
    assert refused.value.argument == "keep_result_for"
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        q.set_config(max_attempts="9")  # type: ignore[arg-type]
    assert wrong.value.argument == "max_attempts"
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        q.set_config(max_attempts=9, events_max_len="long")  # type: ignore[arg-type]
    assert wrong.value.argument == "events_max_len"
    with pytest.raises(TypeError):
        q.set_config(9)  # type: ignore[call-arg]
    assert [repr(q.partition(i).config()) for i in range(3)] == before


def beside(q: leaseq.PartitionedQueue, item: leaseq.Item, same: bool) -> leaseq.Item:
    """A new item that goes to ``item``'s partition (``same``), or to another one."""
    home = q.partition_of(item)
    return next(
        candidate
        for candidate in (leaseq.Item(b"n", id=f"n{i}") for i in range(1000))
        if (q.partition_of(candidate) == home) == same
    )


def test_add_waits_for_room_and_lease_takes_block(
    cluster_client: leaseq.Client,
) -> None:
    """The arguments ``add``, ``add_batch`` and ``lease`` share with ``Queue``'s."""
    q = cluster_client.create_partitioned(new_prefix(), 3)
    q.set_config(capacity=1)
    first = leaseq.Item(b"1", id="first")
    assert q.add(first, timeout=None)
    same_partition = beside(q, first, same=True)
    with pytest.raises(leaseq.QueueFullError) as full:
        q.add(same_partition)
    # The refusal names the partition that is full.
    assert q.partitions[q.partition_of(first)] in str(full.value)
    with pytest.raises(leaseq.QueueFullError):
        q.add(same_partition, timeout=0.05)
    with pytest.raises(leaseq.QueueFullError):
        q.add_batch([same_partition], timeout=0.05)
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        q.add(same_partition, timeout="soon")  # type: ignore[arg-type]
    assert wrong.value.argument == "timeout"
    lease = q.lease(ttl=30, block=False)
    assert lease is not None and lease.id == "first"
    assert q.complete(lease)
    assert q.add(same_partition, timeout=1.0)
    assert q.add_batch([beside(q, first, same=False)], timeout=1.0) == 1
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        q.lease(block="yes")  # type: ignore[arg-type]
    assert wrong.value.argument == "block"


def test_the_asyncio_face_routes_and_fails(cluster: Server) -> None:
    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            q = await client.create_partitioned(new_prefix(), 3)
            plain = client.queue(new_prefix())
            assert await q.add_batch(items(9)) == 9
            await plain.add_batch(items(2))

            # partition, partition_of and queue_of send nothing: plain methods.
            for item in items(9):
                at = q.partition_of(item)
                assert await q.partition(at).get(item.id) is not None
            for out_of_range in (3, -1):
                with pytest.raises(leaseq.InvalidArgumentError) as refused:
                    q.partition(out_of_range)
                assert refused.value.argument == "partition"
                assert "from 0 to 2" in str(refused.value)
            with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
                q.partition_of(b"i0")  # type: ignore[arg-type]
            assert wrong.value.argument == "item"

            lease = await q.lease(ttl=30, block=False)
            assert lease is not None
            home = q.queue_of(lease)
            assert isinstance(home, leaseq.aio.Queue)
            at = q.partition_of(leaseq.Item(b"", id=lease.id))
            assert home.prefix == q.partitions[at]
            plain_lease = await plain.lease(ttl=30)
            assert plain_lease is not None
            outcome = await q.fail(lease, "boom", retry=0)
            assert outcome == await plain.fail(plain_lease, "boom", retry=0)
            job = await home.get(lease.id)
            assert job is not None and job.state == leaseq.State.WAITING
            assert job.error == "boom"

            foreign = await plain.lease(ttl=30)
            assert foreign is not None
            with pytest.raises(leaseq.InvalidArgumentError) as refused:
                await q.fail(foreign, "boom")
            assert refused.value.argument == "lease"
            with pytest.raises(leaseq.InvalidArgumentError) as refused:
                q.queue_of(foreign)
            assert refused.value.argument == "lease"
            job = await plain.get(foreign.id)
            assert job is not None and job.state == leaseq.State.LEASED
            assert job.error is None

    asyncio.run(body())


def test_the_asyncio_face_acts_on_every_partition(cluster: Server) -> None:
    async def kill_all(q: leaseq.aio.PartitionedQueue) -> None:
        for lease in await q.lease_batch(9, ttl=30):
            assert (await q.fail(lease, "dead", retry=False)).dead

    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            q = await client.create_partitioned(new_prefix(), 3)
            await q.add_batch(items(9))
            await kill_all(q)
            dead = [await q.partition(i).count("dead") for i in range(3)]
            assert sum(dead) == 9
            assert await q.dead_requeue_oldest(1) == 1, dead
            assert await q.dead_requeue_oldest() == 8
            await kill_all(q)
            assert await q.dead_purge() == 9
            assert await q.count("dead") == 0
            with pytest.raises(leaseq.InvalidArgumentError) as refused:
                await q.dead_purge(-1)
            assert refused.value.argument == "n"

            await q.set_config(max_attempts=4, stats=True)
            for i in range(3):
                config = await q.partition(i).config()
                assert (config.max_attempts, config.stats) == (4, True)
            with pytest.raises(leaseq.InvalidArgumentError) as refused:
                await q.set_config(max_attempts=5, keep_result_for=0)
            assert refused.value.argument == "keep_result_for"
            for i in range(3):
                assert (await q.partition(i).config()).max_attempts == 4

            # add and add_batch wait for room as Queue's do.
            await q.set_config(capacity=1)
            first = leaseq.Item(b"1", id="first")
            assert await q.add(first, timeout=0.05)
            second = next(
                candidate
                for candidate in (leaseq.Item(b"n", id=f"n{i}") for i in range(1000))
                if q.partition_of(candidate) == q.partition_of(first)
            )
            with pytest.raises(leaseq.QueueFullError):
                await q.add(second, timeout=0.05)
            with pytest.raises(leaseq.QueueFullError):
                await q.add_batch([second], timeout=0.05)

    asyncio.run(body())


def test_schedules_live_in_partition_zero(cluster_client: leaseq.Client) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    poll = leaseq.Schedule(every=1, item=leaseq.Item(b"poll"))
    assert q.upsert_schedule("poll", poll) is True
    assert q.upsert_schedule("poll", poll) is False
    assert q.partition(0).get_schedule("poll") is not None
    assert [q.partition(i).schedules().total for i in (1, 2)] == [0, 0]
    assert q.schedules().total == 1
    info = q.get_schedule("poll")
    assert info is not None
    # Its repr is Python's: the next fire time as a datetime (or None), no Rust Option.
    assert "next_at=" in repr(info) and "Some(" not in repr(info), repr(info)
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.schedules(count=0)
    assert refused.value.argument == "count"
    # Past its first tick, a fire adds its item to partition 0.
    time.sleep(1.2)
    assert q.fire_due_schedules().fired >= 1
    assert q.partition(0).count("waiting") >= 1
    assert [q.partition(i).count("waiting") for i in (1, 2)] == [0, 0]
    assert q.remove_schedule("poll") is True
    assert q.partition(0).get_schedule("poll") is None


def test_the_asyncio_face_keeps_schedules_in_partition_zero(cluster: Server) -> None:
    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            q = await client.create_partitioned(new_prefix(), 3)
            leap = leaseq.Schedule(cron="0 3 29 2 *", item=leaseq.Item(b"report"))
            assert await q.upsert_schedule("leap", leap) is True
            assert (await q.partition(0).get_schedule("leap")) is not None
            assert (await q.schedules()).total == 1
            assert (await q.get_schedule("leap")) is not None
            # Its next tick is a 29 February: nothing is due.
            assert (await q.fire_due_schedules()).fired == 0
            assert await q.remove_schedule("leap") is True
            assert (await q.get_schedule("leap")) is None

    asyncio.run(body())


def test_a_runner_refuses_a_list_holding_a_partitioned_queue_and_a_base(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)

    def handle(_job: leaseq.worker.Job) -> None:
        return None

    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        leaseq.Worker([q], handle).run()
    assert "runs alone" in str(refused.value)
    # The base is no queue: the runner refuses it as it starts, and writes nothing.
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        leaseq.Worker(cluster_client.queue(q.base), handle).run()
    assert refused.value.argument == "prefix"
    assert "partitioned" in str(refused.value)


def xreads(urls: list[str]) -> int:
    """How many clients of the servers at ``urls`` last ran an ``XREAD`` (a follower's
    waits): one ``CLIENT LIST`` each, over a plain socket."""
    total = 0
    for url in urls:
        host, port = url.removeprefix("redis://").split("/")[0].rsplit(":", 1)
        with socket.create_connection((host, int(port))) as s:
            s.sendall(b"CLIENT LIST\r\n")
            data = b""
            while True:
                data += s.recv(65536)
                head, _, rest = data.partition(b"\r\n")
                if head.startswith(b"$") and len(rest) >= int(head[1:]) + 2:
                    break
            # Blocked (flags=b): an idle connection back in the pool shows its last command.
            total += sum(
                1
                for line in data.split(b"\n")
                if b" flags=b " in line and b" cmd=xread " in line
            )
    return total


def wait_until(ok: Callable[[], bool]) -> bool:
    """Waits until ``ok()`` holds, for at most 10 s; its last answer."""
    for _ in range(200):
        if ok():
            return True
        time.sleep(0.05)
    return ok()


async def eventually(ok: Callable[[], bool]) -> bool:
    """Waits until ``ok()`` holds, for at most 10 s; its last answer."""
    for _ in range(200):
        if ok():
            return True
        await asyncio.sleep(0.05)
    return ok()


def ids_per_partition(
    q: leaseq.PartitionedQueue | leaseq.aio.PartitionedQueue, per: int, tag: str
) -> list[list[str]]:
    """Ids that ``add`` puts in each partition, ``per`` for each, in partition order."""
    out: list[list[str]] = [[] for _ in q.partitions]
    n = 0
    while any(len(ids) < per for ids in out):
        id = f"{tag}{n}"
        p = q.partition_of(leaseq.Item(b"x", id=id))
        if len(out[p]) < per:
            out[p].append(id)
        n += 1
    return out


def test_a_follower_follows_every_partition_and_resumes_from_its_position(
    cluster: Server, cluster_client: leaseq.Client
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    q.set_config(events=True)
    follower = q.events()
    assert follower.position is None
    ids = ids_per_partition(q, 2, "e")
    for round in range(2):
        for part in ids:
            q.add(leaseq.Item(b"x", id=part[round]))
    seen: list[list[str]] = [[], [], []]
    for _ in range(6):
        event = next(follower)
        assert event.event == "added"
        assert event.partition == q.partition_of(leaseq.Item(b"x", id=event.job_id))
        assert f"partition={event.partition}" in repr(event)
        assert event.partition is not None
        seen[event.partition].append(event.job_id)
    assert seen == ids
    position = follower.position
    assert position is not None and len(position.split(",")) == 3
    # A follower that resumes after the position gets what came later, and only that.
    later = [part[0] for part in ids_per_partition(q, 1, "later")]
    for id in later:
        q.add(leaseq.Item(b"x", id=id))
    resumed = q.events(after=position)
    assert sorted(next(resumed).job_id for _ in range(3)) == sorted(later)
    # One id for every partition: "0-0" is everything kept.
    everything = q.events(after="0-0")
    assert sorted(next(everything).job_id for _ in range(9)) == sorted(
        [id for part in ids for id in part] + later
    )
    # A follower keeps its waits between calls; close() ends them.
    before = xreads(cluster.urls)
    waiting = q.events()
    got: list[leaseq.QueueEvent] = []
    reader = threading.Thread(target=lambda: got.append(next(waiting)))
    reader.start()
    assert wait_until(lambda: xreads(cluster.urls) == before + 3)
    q.add(leaseq.Item(b"x", id="wakes-one"))
    reader.join(timeout=30)
    assert [e.job_id for e in got] == ["wakes-one"]
    assert xreads(cluster.urls) == before + 2, "the other partitions' waits are kept"
    waiting.close()
    assert wait_until(lambda: xreads(cluster.urls) == before)
    # A queue's follower names no partition.
    assert next(q.partition(0).events(after="0-0")).partition is None
    for bad in ["1-0,2-0", "x", "1-0,y,2-0"]:
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            q.events(after=bad)
        assert refused.value.argument == "after"


def test_the_asyncio_face_follows_every_partition(cluster: Server) -> None:
    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            q = await client.create_partitioned(new_prefix(), 3)
            await q.set_config(events=True)
            follower = await q.events()
            assert follower.position is None
            ids = [part[0] for part in ids_per_partition(q, 1, "a")]
            for id in ids:
                await q.add(leaseq.Item(b"x", id=id))
            seen = []
            async for event in follower:
                assert event.partition == q.partition_of(
                    leaseq.Item(b"x", id=event.job_id)
                )
                seen.append(event.job_id)
                if len(seen) == 3:
                    break
            assert sorted(seen) == sorted(ids)
            position = follower.position
            assert position is not None and len(position.split(",")) == 3
            await q.add(leaseq.Item(b"x", id="after-position"))
            resumed = await q.events(after=position)
            assert (await resumed.__anext__()).job_id == "after-position"
            # Closed: iterating it is done, and its waits (one per partition) end now.
            await follower.aclose()
            before = xreads(cluster.urls)
            waiting = asyncio.ensure_future(resumed.__anext__())
            assert await eventually(lambda: xreads(cluster.urls) == before + 3)
            await resumed.aclose()
            # The call that was waiting ends too, as does every later one.
            with pytest.raises(StopAsyncIteration):
                await waiting
            assert await eventually(lambda: xreads(cluster.urls) == before)
            with pytest.raises(StopAsyncIteration):
                await resumed.__anext__()

    asyncio.run(body())


def test_a_runner_refuses_asyncio_queues_as_it_is_made(cluster: Server) -> None:
    def handle(_job: leaseq.worker.Job) -> None:
        return None

    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            p = await client.create_partitioned(new_prefix(), 3)
            for given in (p, client.queue(new_prefix()), [client.queue(new_prefix())]):
                with pytest.raises(leaseq.InvalidArgumentTypeError) as refused:
                    leaseq.aio.Worker(given, handle)
                assert refused.value.argument == "queue"
                assert "leaseq.aio" in str(refused.value)

    asyncio.run(body())


def grouped_off_its_id(
    q: leaseq.PartitionedQueue | leaseq.aio.PartitionedQueue,
    id: str,
    delay: float | None = None,
) -> leaseq.Item:
    """An item ``id`` (delayed by ``delay``) whose group routes it to another partition than
    its id would."""
    return next(
        item
        for item in (
            leaseq.Item(b"x", id=id, group=f"g{g}", delay=delay) for g in range(64)
        )
        if q.partition_of(item) != q.partition_of(leaseq.Item(b"x", id=id))
    )


def test_wait_result_waits_where_the_item_is(cluster_client: leaseq.Client) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 4)
    item = grouped_off_its_id(q, "w1")
    assert q.add(item)
    got: list[leaseq.JobResult | None] = []
    waiter = threading.Thread(
        target=lambda: got.append(q.wait_result("w1", timeout=30))
    )
    waiter.start()
    lease = q.partition(q.partition_of(item)).lease(ttl=30)
    assert lease is not None and lease.id == "w1"
    assert q.complete(lease, result=b"one")
    waiter.join()
    assert got[0] is not None and got[0].data == b"one"
    # Kept: read without waiting; none comes for an id no partition has.
    kept = q.wait_result("w1", timeout=0)
    assert kept is not None and kept.data == b"one"
    assert q.wait_result("never", timeout=timedelta(milliseconds=100)) is None
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.wait_result("", timeout=0)
    assert refused.value.argument == "id"
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.wait_result("w1", timeout=-1)
    assert refused.value.argument == "timeout"


def test_the_asyncio_face_waits_for_a_result_where_the_item_is(cluster: Server) -> None:
    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            q = await client.create_partitioned(new_prefix(), 4)
            item = grouped_off_its_id(q, "a1")
            # Not added yet when the wait starts: it waits in every partition.
            waiting = asyncio.create_task(q.wait_result("a1", timeout=leaseq.FOREVER))
            assert await q.add(item)
            lease = await q.partition(q.partition_of(item)).lease(ttl=30)
            assert lease is not None and lease.id == "a1"
            assert await q.complete(lease, result="two")
            got = await waiting
            assert got is not None and got.data == b"two"
            # Cancelling the task stops the wait.
            pending = asyncio.create_task(
                q.wait_result("never", timeout=leaseq.FOREVER)
            )
            await asyncio.sleep(0.05)
            pending.cancel()
            with pytest.raises(asyncio.CancelledError):
                await pending

    asyncio.run(body())


def test_group_calls_act_where_the_group_lives(cluster_client: leaseq.Client) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 4)
    assert (
        q.add_batch([leaseq.Item(b"x", id=f"t{i}", group="tenant") for i in range(3)])
        == 3
    )
    assert q.pause_group("tenant")
    info = q.group("tenant")
    assert info.paused and info.waiting == 3
    assert q.add(leaseq.Item(b"x", id="free"))
    assert [lease.id for lease in q.lease_batch(10, ttl=30)] == ["free"]
    assert q.resume_group("tenant")
    q.set_group_limit("tenant", 2)
    assert q.group("tenant").limit == 2
    assert len(q.lease_batch(10, ttl=30)) == 2
    held = q.rate_limit_group("tenant", timedelta(minutes=1))
    assert timedelta(0) < held <= timedelta(minutes=1)
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.set_group_limit("tenant", 0)
    assert refused.value.argument == "limit"


def test_the_asyncio_face_acts_on_groups_where_they_live(cluster: Server) -> None:
    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            q = await client.create_partitioned(new_prefix(), 4)
            assert await q.add(leaseq.Item(b"x", id="a", group="tenant"))
            assert await q.pause_group("tenant")
            assert (await q.group("tenant")).paused
            assert await q.lease(ttl=30) is None
            assert await q.resume_group("tenant")
            await q.set_group_limit("tenant", 3)
            assert (await q.group("tenant")).limit == 3
            held = await q.rate_limit_group("tenant", 60)
            assert timedelta(0) < held <= timedelta(minutes=1)

    asyncio.run(body())


def off_its_ids_partition(q: leaseq.PartitionedQueue, item: leaseq.Item) -> int:
    """Where ``item`` is, checked to be another partition than its id's own."""
    at = q.partition_of(item)
    assert at != q.partition_of(leaseq.Item(b"x", id=item.id))
    assert where(q, item.id) == [at]
    return at


def test_promote_finds_the_delayed_item_where_it_is(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 4)
    delayed = grouped_off_its_id(q, "d1", delay=3600)
    assert q.add(delayed)
    at = off_its_ids_partition(q, delayed)
    job = q.get("d1")
    assert job is not None and job.state == leaseq.State.DELAYED
    assert q.promote("d1") is True
    job = q.partition(at).get("d1")
    assert job is not None and job.state == leaseq.State.WAITING
    # Not delayed any more, or in no partition: False.
    assert q.promote("d1") is False
    assert q.promote(b"nobody") is False
    lease = q.lease(ttl=30)
    assert lease is not None and lease.id == "d1"

    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.promote("")
    assert refused.value.argument == "id"
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        q.promote(7)  # type: ignore[arg-type]
    assert wrong.value.argument == "id"


def test_dependencies_are_read_where_the_dependant_is(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 4)
    parent = grouped_off_its_id(q, "parent")
    assert q.add(parent)
    home = off_its_ids_partition(q, parent)
    # A dependant goes where its dependency is: an id whose own partition is another one.
    child = next(
        id
        for id in (f"c{i}" for i in range(1000))
        if q.partition_of(leaseq.Item(b"x", id=id)) != home
    )
    assert q.add(leaseq.Item(b"x", id=child, depends_on=["parent"]))
    assert where(q, child) == [home]

    deps = q.dependencies(child)
    assert isinstance(deps, leaseq.Dependencies)
    assert (deps.depends_on, deps.pending) == (["parent"], ["parent"])
    assert deps.on_dependency_failure == "fail"
    parents = q.dependencies("parent")
    assert (parents.dependants_count, parents.dependants) == (1, [child])
    assert q.dependency_results(child) == [("parent", None)]

    lease = q.lease(ttl=30)
    assert lease is not None and lease.id == "parent"
    assert q.complete(lease, result=b"done")
    assert q.dependency_results(child) == [("parent", b"done")]
    assert q.dependencies(child).pending == []
    # An id no partition knows: nothing.
    unknown = q.dependencies("nobody")
    assert (unknown.depends_on, unknown.pending, unknown.dependants_count) == (
        [],
        [],
        0,
    )
    assert q.dependency_results("nobody") == []
    for call in (q.dependencies, q.dependency_results):
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            call("")
        assert refused.value.argument == "id"


def test_dead_requeue_by_id_finds_each_dead_letter_where_it_is(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 4)
    dead = [grouped_off_its_id(q, f"k{i}") for i in range(3)]
    assert q.add_batch(dead) == 3
    for _ in dead:
        lease = q.lease(ttl=30)
        assert lease is not None
        assert q.fail(lease, "boom", retry=False).dead
    at = [off_its_ids_partition(q, item) for item in dead]
    assert q.count("dead") == 3

    # A repeated id is False the second time, as in one queue; so is one that is not dead.
    assert q.dead_requeue_each(["k0", "k0", "nobody", b"k1"]) == [
        True,
        False,
        False,
        True,
    ]
    for i in (0, 1):
        job = q.partition(at[i]).get(f"k{i}")
        assert job is not None and job.state == leaseq.State.WAITING
    assert q.dead_requeue(["k2", "k2", "k0"]) == 1
    assert where(q, "k2") == [at[2]]
    assert (q.count("dead"), q.count("waiting")) == (0, 3)
    assert q.dead_requeue([]) == 0 and q.dead_requeue_each([]) == []

    # Refused arguments are named, before anything is sent.
    for _ in dead:
        lease = q.lease(ttl=30)
        assert lease is not None
        assert q.fail(lease, "boom", retry=False).dead
    for call in (q.dead_requeue, q.dead_requeue_each):
        with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
            call("k0")
        assert wrong.value.argument == "ids"
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            call(["k0", ""])
        assert refused.value.argument == "id"
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            call(["k0"] * (leaseq.MAX_PAGE + 1))
        assert refused.value.argument == "ids"
    assert q.count("dead") == 3


def test_rate_limit_holds_every_partition(cluster_client: leaseq.Client) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    assert q.add_batch(items(6)) == 6
    assert [s.rate_limited_for for s in q.stats().partitions] == [None] * 3
    # A zero duration, or one of the wrong type, is refused naming it; nothing is held.
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.rate_limit(0)
    assert refused.value.argument == "duration"
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.rate_limit(timedelta(days=2))
    assert refused.value.argument == "duration"
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        q.rate_limit("soon")  # type: ignore[arg-type]
    assert wrong.value.argument == "duration"
    assert [s.rate_limited_for for s in q.stats().partitions] == [None] * 3

    held = q.rate_limit(60)
    assert timedelta(seconds=50) < held <= timedelta(seconds=60)
    stats = q.stats()
    for s in [stats.total, *stats.partitions]:
        assert s.rate_limited_for is not None
        assert s.rate_limited_for > timedelta(seconds=50)
    # A longer hold already in place is kept.
    assert q.rate_limit(timedelta(milliseconds=10)) > timedelta(seconds=50)
    assert q.lease(ttl=30) is None
    assert q.lease_batch(6, ttl=30) == []
    assert q.add(leaseq.Item(b"x", id="more")), "adds go on"


def test_is_paused_only_while_every_partition_is(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    assert q.is_paused() is False
    assert q.partition(1).pause()
    assert q.is_paused() is False
    assert q.pause() is True
    assert q.is_paused() is True and q.stats().total.paused
    assert q.partition(0).resume()
    assert q.is_paused() is False
    assert q.resume() is True
    assert q.is_paused() is False


def test_reset_config_clears_every_partition(cluster_client: leaseq.Client) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    q.set_config(max_attempts=7, capacity=100, keep_result_for=timedelta(hours=2))
    q.partition(2).set_config(stats=True)
    assert [q.partition(i).config().max_attempts for i in range(3)] == [7, 7, 7]
    fresh = repr(cluster_client.queue(new_prefix()).config())
    q.reset_config()
    for i in range(3):
        config = q.partition(i).config()
        assert (config.max_attempts, config.capacity, config.stats) == (
            None,
            None,
            None,
        )
        assert repr(config) == fresh
    # The layout stays: the queue opens as stored.
    assert cluster_client.partitioned(q.base).partitions == q.partitions


def test_the_asyncio_face_acts_by_id_where_the_item_is(cluster: Server) -> None:
    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            # promote, where the item is.
            q = await client.create_partitioned(new_prefix(), 4)
            delayed = grouped_off_its_id(q, "d1", delay=3600)
            assert await q.add(delayed)
            at = q.partition_of(delayed)
            assert await q.promote("d1") is True
            job = await q.partition(at).get("d1")
            assert job is not None and job.state == leaseq.State.WAITING
            assert await q.promote("d1") is False

            # dependencies and their results, where the dependant is.
            q = await client.create_partitioned(new_prefix(), 4)
            parent = grouped_off_its_id(q, "parent")
            assert await q.add(parent)
            home = q.partition_of(parent)
            assert await q.add(leaseq.Item(b"x", id="child", depends_on=["parent"]))
            assert await q.partition(home).get("child") is not None
            deps = await q.dependencies("child")
            assert (deps.depends_on, deps.pending) == (["parent"], ["parent"])
            assert (await q.dependencies("parent")).dependants == ["child"]
            assert await q.dependency_results("child") == [("parent", None)]
            lease = await q.lease(ttl=30)
            assert lease is not None and lease.id == "parent"
            assert await q.complete(lease, result="done")
            assert await q.dependency_results("child") == [("parent", b"done")]

            # dead letters by id.
            q = await client.create_partitioned(new_prefix(), 4)
            assert await q.add(grouped_off_its_id(q, "k1"))
            for _ in range(2):
                lease = await q.lease(ttl=30)
                assert lease is not None and lease.id == "k1"
                assert (await q.fail(lease, "boom", retry=False)).dead
                assert await q.dead_requeue_each(["k1", "k1", "nobody"]) == [
                    True,
                    False,
                    False,
                ]
            lease = await q.lease(ttl=30)
            assert lease is not None
            assert (await q.fail(lease, "boom", retry=False)).dead
            assert await q.dead_requeue(["k1", "k1"]) == 1
            assert await q.count("waiting") == 1
            with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
                await q.dead_requeue("k1")
            assert wrong.value.argument == "ids"

    asyncio.run(body())


def test_the_asyncio_face_pauses_holds_and_resets_every_partition(
    cluster: Server,
) -> None:
    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            q = await client.create_partitioned(new_prefix(), 4)
            assert await q.add_batch(items(4)) == 4
            # is_paused: true only while every partition is.
            assert await q.is_paused() is False
            assert await q.partition(0).pause()
            assert await q.is_paused() is False
            assert await q.pause()
            assert await q.is_paused() is True
            assert await q.resume()
            assert await q.is_paused() is False

            # rate_limit holds every partition; zero is refused naming the duration.
            with pytest.raises(leaseq.aio.InvalidArgumentError) as refused:
                await q.rate_limit(0)
            assert refused.value.argument == "duration"
            held = await q.rate_limit(timedelta(seconds=60))
            assert timedelta(seconds=50) < held <= timedelta(seconds=60)
            stats = await q.stats()
            for s in stats.partitions:
                assert s.rate_limited_for is not None
                assert s.rate_limited_for > timedelta(seconds=50)
            assert await q.lease(ttl=30) is None

            # reset_config clears every partition's.
            await q.set_config(max_attempts=4, capacity=10)
            await q.reset_config()
            for i in range(4):
                config = await q.partition(i).config()
                assert (config.max_attempts, config.capacity) == (None, None)

    asyncio.run(body())


def orphan(urls: list[str], prefix: str, id: str) -> None:
    """An item key of queue ``prefix`` on no list, as a redis-work-queue client that crashed
    between its SET and its LPUSH leaves it: set on the primary that holds its slot."""
    for url in urls:
        conn = redis.Redis.from_url(url)
        try:
            conn.set(f"{prefix}:item:{id}", b"data")
            return
        except redis.ResponseError:  # MOVED: another primary's slot
            continue
        finally:
            conn.close()
    pytest.fail(f"no primary took {prefix}:item:{id}")


def test_counts_cleans_and_configuration_cover_every_partition(
    cluster: Server, cluster_client: leaseq.Client
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    assert q.exists() is False, "created, never used"
    assert (q.queue_len(), q.processing_len()) == (0, 0)
    assert q.counts_by_name() is None, "the counters are off"
    q.set_config(stats=True, capacity=500)
    assert q.exists() is True
    config = q.config()
    assert isinstance(config, leaseq.QueueConfig)
    assert (config.capacity, config.stats) == (500, True)
    # config is partition 0's: one set alone elsewhere is read there.
    q.partition(1).set_config(capacity=7)
    assert q.config().capacity == 500
    q.set_config(capacity=500)

    # Named items in every partition, added without the id check.
    ids = ids_per_partition(q, 2, "n")
    for part in ids:
        for id in part:
            q.add_unique(leaseq.Item(b"x", id=id, name="mail"))
    assert [q.partition(i).queue_len() for i in range(3)] == [2, 2, 2]
    assert q.queue_len() == 6
    # Another name, in the last partition only.
    last = ids_per_partition(q, 1, "a")[2][0]
    q.add_unique(leaseq.Item(b"x", id=last, name="alpha"))
    assert where(q, last) == [2]
    assert q.queue_len() == 7
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        q.add_unique(b"x")  # type: ignore[arg-type]
    assert wrong.value.argument == "item"

    leases = q.lease_batch(10, ttl=30)
    assert len(leases) == 7
    assert (q.queue_len(), q.processing_len()) == (0, 7)
    for lease in leases:
        if lease.id == last:
            assert q.fail(lease, "boom", retry=False).dead
        else:
            assert q.complete(lease)
    assert q.processing_len() == 0
    names = q.counts_by_name()
    assert names is not None
    # Summed, sorted by name as a queue's are.
    assert [(n.name, n.completed, n.dead) for n in names] == [
        ("alpha", 0, 1),
        ("mail", 6, 0),
    ]
    assert all(isinstance(n, leaseq.NameCounts) for n in names)

    # Due delayed items in every partition: one light clean promotes them all.
    for part in ids_per_partition(q, 1, "late"):
        assert q.add(leaseq.Item(b"x", id=part[0], delay=0.001))
    time.sleep(0.05)
    report = q.light_clean()
    assert isinstance(report, leaseq.CleanReport)
    assert report.promoted == 3
    assert [q.partition(i).count("waiting") for i in range(3)] == [1, 1, 1]
    # Items on no list in two partitions: the deep clean finds both.
    for prefix in q.partitions[1:]:
        orphan(cluster.urls, prefix, "orphan")
    assert q.light_clean().requeued == 0
    report = q.deep_clean()
    assert isinstance(report, leaseq.CleanReport)
    assert report.requeued == 2
    assert q.queue_len() == 5


def test_the_asyncio_face_counts_cleans_and_reads_the_configuration(
    cluster: Server,
) -> None:
    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            q = await client.create_partitioned(new_prefix(), 3)
            assert await q.exists() is False
            assert await q.counts_by_name() is None
            await q.set_config(stats=True, capacity=50)
            assert await q.exists() is True
            config = await q.config()
            assert (config.capacity, config.stats) == (50, True)

            ids = ids_per_partition(q, 2, "n")
            for part in ids:
                for id in part:
                    await q.add_unique(leaseq.Item(b"x", id=id, name="mail"))
            assert [await q.partition(i).queue_len() for i in range(3)] == [2, 2, 2]
            assert await q.queue_len() == 6
            leases = await q.lease_batch(10, ttl=30)
            assert len(leases) == 6
            assert (await q.queue_len(), await q.processing_len()) == (0, 6)
            for lease in leases:
                assert await q.complete(lease)
            names = await q.counts_by_name()
            assert names is not None
            assert [(n.name, n.completed) for n in names] == [("mail", 6)]

            for part in ids_per_partition(q, 1, "late"):
                assert await q.add(leaseq.Item(b"x", id=part[0], delay=0.001))
            await asyncio.sleep(0.05)
            assert (await q.light_clean()).promoted == 3
            assert await q.queue_len() == 3
            report = await q.deep_clean()
            assert isinstance(report, leaseq.CleanReport)
            assert (report.requeued, report.promoted) == (0, 0)

    asyncio.run(body())


def add_mail_and_other(
    q: leaseq.PartitionedQueue,
) -> set[str]:
    """Four items in each partition, half named "mail"; returns the "mail" ids."""
    mail: set[str] = set()
    for part in ids_per_partition(q, 4, "f"):
        for k, id in enumerate(part):
            name = "mail" if k % 2 == 0 else "other"
            assert q.add(leaseq.Item(b"x", id=id, name=name))
            if name == "mail":
                mail.add(id)
    return mail


def test_find_searches_one_partition_a_call_and_next_walks_them_all(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    mail = add_mail_and_other(q)
    assert len(mail) == 6
    assert [q.partition(i).count("waiting") for i in range(3)] == [4, 4, 4]

    found_ids: list[str] = []
    start: int | None = 0
    calls = 0
    while start is not None:
        found = q.find("waiting", name="mail", start=start, count=1)
        assert isinstance(found, leaseq.Found)
        assert all(e.name == "mail" for e in found.entries)
        # One partition a call: every match of a call lives in the same partition.
        assert len({where(q, e.id)[0] for e in found.entries}) <= 1
        found_ids.extend(e.id for e in found.entries)
        start = found.next
        calls += 1
        assert calls < 50, "next keeps going"
    assert sorted(found_ids) == sorted(mail)
    assert len(found_ids) == len(set(found_ids)), "each once"
    # The defaults: from position 0, up to 100 matches, all in partition 0.
    first = q.find("waiting", "mail")
    assert [where(q, e.id) for e in first.entries] == [[0], [0]]
    assert first.next == 4, "partition 1's first position"
    assert q.find("waiting", name="nosuch", start=8).entries == []
    assert q.find("waiting", start=12).next is None, "past the end"

    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.find("waiting", count=0)
    assert refused.value.argument == "count"
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        q.find("waiting", name=3)  # type: ignore[arg-type]
    assert wrong.value.argument == "name"


def test_the_asyncio_face_finds_over_every_partition(cluster: Server) -> None:
    async def body() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            q = await client.create_partitioned(new_prefix(), 3)
            mail: set[str] = set()
            for part in ids_per_partition(q, 4, "f"):
                for k, id in enumerate(part):
                    name = "mail" if k % 2 == 0 else "other"
                    assert await q.add(leaseq.Item(b"x", id=id, name=name))
                    if name == "mail":
                        mail.add(id)

            found_ids: list[str] = []
            start: int | None = 0
            calls = 0
            while start is not None:
                found = await q.find("waiting", name="mail", start=start, count=1)
                assert isinstance(found, leaseq.Found)
                found_ids.extend(e.id for e in found.entries)
                start = found.next
                calls += 1
                assert calls < 50, "next keeps going"
            assert sorted(found_ids) == sorted(mail)
            assert len(found_ids) == len(set(found_ids)), "each once"

            with pytest.raises(leaseq.InvalidArgumentError) as refused:
                await q.find("waiting", count=0)
            assert refused.value.argument == "count"

    asyncio.run(body())


def test_the_batch_finishes_act_in_each_leases_partition(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    assert q.add_batch(items(12)) == 12
    leases = q.lease_batch(12, ttl=30)
    assert len(leases) == 12
    homes = {q.queue_of(lease).prefix for lease in leases}
    assert len(homes) > 1, "the leases span partitions"
    # Renewed, each in its own partition, the outcomes in order.
    assert q.renew_batch(leases, 60) == [leaseq.RenewOutcome.RENEWED] * 12
    # Completed (half with a result kept), then the rest failed: each in its partition.
    done = leases[:6]
    outcomes = q.complete_batch(
        [
            leaseq.Completion(lease, b"ok") if i % 2 else lease
            for i, lease in enumerate(done)
        ]
    )
    assert outcomes == [True] * 6
    assert q.complete_batch(done[:1]) == [False]  # already completed
    result = q.result(done[1].id)
    assert result is not None and result.data == b"ok"
    failed = q.fail_batch(
        [leaseq.Failure(lease, "boom", "Boom", retry=False) for lease in leases[6:]]
    )
    assert [f.name for f in failed] == ["dead"] * 6
    for lease in leases[6:]:
        job = q.get(lease.id)
        assert job is not None and job.state == leaseq.State.DEAD
        assert where(q, lease.id) == [q.partitions.index(q.queue_of(lease).prefix)]
    assert q.stats().total.leased == 0


def test_the_batch_finishes_refuse_a_lease_of_another_queue_and_send_nothing(
    cluster_client: leaseq.Client,
) -> None:
    q = cluster_client.create_partitioned(new_prefix(), 3)
    q.add_batch(items(3))
    plain = cluster_client.queue(new_prefix())
    plain.add(leaseq.Item(b"x", id="p"))
    leases = q.lease_batch(3, ttl=30)
    stranger = plain.lease(ttl=30)
    assert stranger is not None
    calls: list[Callable[[], object]] = [
        lambda: q.complete_batch([*leases, stranger]),
        lambda: q.renew_batch([*leases, stranger]),
        lambda: q.fail_batch([(lease, "x") for lease in [*leases, stranger]]),
    ]
    for call in calls:
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            call()
        assert refused.value.argument == "lease"
    # Nothing was sent: every lease is still held, the plain queue's too.
    assert q.stats().total.leased == 3 and plain.count("leased") == 1
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        q.complete_batch([leases[0]] * 1001)
    assert refused.value.argument == "completions"


def test_the_asyncio_face_finishes_batches_in_each_partition(cluster: Server) -> None:
    async def main() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            q = await client.create_partitioned(new_prefix(), 3)
            await q.add_batch(items(9))
            leases = await q.lease_batch(9, ttl=30)
            assert len(leases) == 9
            assert await q.renew_batch(leases, 60) == [leaseq.RenewOutcome.RENEWED] * 9
            assert await q.complete_batch(leases[:5]) == [True] * 5
            failed = await q.fail_batch([(lease, "again") for lease in leases[5:]])
            assert [f.name for f in failed] == ["retrying"] * 4
            total = (await q.stats()).total
            assert (total.leased, total.waiting + total.delayed) == (0, 4)

    asyncio.run(main())
