"""Pause and resume, bounded queues, rate limits, groups and the groups' rate limits (issue 25),
through the sync and asyncio faces."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

import leaseq
import leaseq.aio
import pytest
import redis
from conftest import blocked_clients, new_prefix, wait_until_blocked


def test_a_paused_queue_leases_nothing_and_keeps_adding(queue: leaseq.Queue) -> None:
    assert queue.is_paused() is False
    assert queue.pause() is True, "it was running"
    assert queue.pause() is False, "already paused"
    assert queue.is_paused() is True
    assert queue.add(leaseq.Item(b"", id="a")) is True, "adds go on while paused"
    assert queue.lease() is None
    stats = queue.stats()
    assert stats.paused is True and stats.waiting == 1
    assert queue.resume() is True, "it was paused"
    assert queue.resume() is False
    assert queue.stats().paused is False
    lease = queue.lease()
    assert lease is not None and lease.id == "a"


def test_a_waiting_lease_wakes_on_resume(queue: leaseq.Queue, r: redis.Redis) -> None:
    queue.pause()
    queue.add(leaseq.Item(b"", id="a"))
    got: list[leaseq.Lease | None] = []
    before = blocked_clients(r)
    waiter = threading.Thread(target=lambda: got.append(queue.lease(timeout=60)))
    waiter.start()
    wait_until_blocked(r, before)
    assert got == [], "nothing is leased while paused"
    queue.resume()
    waiter.join()
    assert got[0] is not None and got[0].id == "a"


def test_a_full_queue_refuses_adds_and_writes_nothing(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    queue.set_config(capacity=2)
    assert queue.config().capacity == 2
    assert queue.stats().capacity == 2
    queue.add(leaseq.Item(b"", id="a"))
    queue.add(leaseq.Item(b"", id="d", delay=60))
    keys = sorted(r.keys(queue.prefix + "*"))
    with pytest.raises(leaseq.QueueFullError) as full:
        queue.add(leaseq.Item(b"", id="c"))
    assert full.value.code == "FULL" and not full.value.retryable
    assert isinstance(full.value, leaseq.LeaseqError)
    with pytest.raises(leaseq.QueueFullError):
        queue.add_batch([leaseq.Item(b"", id="e")])
    assert sorted(r.keys(queue.prefix + "*")) == keys, "nothing written"
    assert queue.lease() is not None, "a lease makes room"
    assert queue.add(leaseq.Item(b"", id="c")) is True


def test_a_batch_fits_whole_or_not_at_all(queue: leaseq.Queue) -> None:
    queue.set_config(capacity=3)
    queue.add(leaseq.Item(b"", id="a"))
    batch = [leaseq.Item(b"", id=i) for i in "bcd"]
    with pytest.raises(leaseq.QueueFullError):
        queue.add_batch(batch)
    assert queue.queue_len() == 1
    assert queue.add_batch(batch[:2]) == 2


def test_add_with_a_timeout_gets_room_after_a_lease(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    queue.set_config(capacity=1)
    queue.add(leaseq.Item(b"", id="a"))
    added: list[bool] = []
    before = blocked_clients(r)
    producer = threading.Thread(
        target=lambda: added.append(queue.add(leaseq.Item(b"", id="b"), timeout=60))
    )
    producer.start()
    wait_until_blocked(r, before)
    assert added == [], "no room yet"
    lease = queue.lease()
    assert lease is not None and lease.id == "a"
    producer.join()
    assert added == [True]
    assert queue.count("waiting") == 1


def test_add_with_a_timeout_gives_up_with_full(queue: leaseq.Queue) -> None:
    queue.set_config(capacity=1)
    queue.add(leaseq.Item(b"", id="a"))
    with pytest.raises(leaseq.QueueFullError):
        queue.add(leaseq.Item(b"", id="b"), timeout=0.1)
    with pytest.raises(leaseq.QueueFullError):
        queue.add_batch([leaseq.Item(b"", id="b")], timeout=0.1)
    assert queue.queue_len() == 1


def test_capacity_is_checked_by_the_core(queue: leaseq.Queue) -> None:
    queue.add_batch([leaseq.Item(b"", id=i) for i in "abc"])
    for capacity in (0, 2):
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            queue.set_config(capacity=capacity)
        assert refused.value.argument == "capacity"
    assert queue.config().capacity is None
    with pytest.raises(leaseq.InvalidArgumentTypeError):
        queue.set_config(capacity="3")  # type: ignore[arg-type]
    queue.set_config(capacity=3)
    assert queue.config().capacity == 3
    assert "capacity=3" in repr(queue.config())


def test_asyncio_pause_resume_and_capacity(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            assert await q.pause() is True
            assert await q.is_paused() is True
            assert await q.add(leaseq.Item(b"", id="a")) is True
            assert await q.lease() is None
            waiting = asyncio.ensure_future(q.lease(timeout=60))
            await asyncio.sleep(0.2)
            assert not waiting.done(), "nothing is leased while paused"
            assert await q.resume() is True
            lease = await waiting
            assert lease is not None and lease.id == "a"

            await q.set_config(capacity=1)
            stats = await q.stats()
            assert (stats.paused, stats.capacity) == (False, 1)
            assert await q.add(leaseq.Item(b"", id="b")) is True
            with pytest.raises(leaseq.aio.QueueFullError):
                await q.add(leaseq.Item(b"", id="c"))
            with pytest.raises(leaseq.aio.QueueFullError):
                await q.add_batch([leaseq.Item(b"", id="c")], timeout=0.1)
            producer = asyncio.ensure_future(
                q.add(leaseq.Item(b"", id="c"), timeout=60)
            )
            await asyncio.sleep(0.2)
            assert not producer.done(), "no room yet"
            assert await q.lease() is not None
            assert await producer is True

    asyncio.run(main())


def test_a_rate_limit_round_trips_and_counts_leases(queue: leaseq.Queue) -> None:
    assert queue.config().rate_limit is None
    queue.set_config(rate_limit=leaseq.RateLimit(2, 60))
    limit = queue.config().rate_limit
    assert limit == leaseq.RateLimit(2, timedelta(minutes=1))
    assert limit is not None and (limit.max, limit.per) == (2, timedelta(seconds=60))
    assert "rate_limit=RateLimit(max=2, per=60" in repr(queue.config())
    queue.add_batch([leaseq.Item(b"", id=i) for i in "abc"])
    assert [lease.id for lease in queue.lease_batch(2)] == ["a", "b"]
    assert queue.lease() is None, "the window is used up"
    assert queue.lease_batch(10) == []
    held = queue.stats().rate_limited_for
    assert held is not None and timedelta(0) < held <= timedelta(seconds=60)


def test_a_rate_limit_is_checked_by_the_core(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    for limit in (
        leaseq.RateLimit(0, 1),
        leaseq.RateLimit(1, 0),
        leaseq.RateLimit(1, timedelta(days=2)),
    ):
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            queue.set_config(rate_limit=limit)
        assert refused.value.argument == "rate_limit"
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        queue.set_config(rate_limit=(1, 1))  # type: ignore[arg-type]
    assert wrong.value.argument == "rate_limit"
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        queue.rate_limit(0)
    assert refused.value.argument == "duration"
    assert r.keys(queue.prefix + "*") == [], "nothing written"


def test_rate_limit_holds_every_lease_off(queue: leaseq.Queue, url: str) -> None:
    queue.add(leaseq.Item(b"", id="a"))
    assert queue.stats().rate_limited_for is None
    held = queue.rate_limit(60)
    assert held >= timedelta(seconds=60)
    assert queue.rate_limit(timedelta(milliseconds=10)) > timedelta(seconds=50), (
        "a longer hold is kept"
    )
    assert queue.lease() is None
    with leaseq.Client(url) as other:
        assert other.queue(queue.prefix).lease() is None, "every client is held off"
    held_for = queue.stats().rate_limited_for
    assert held_for is not None and held_for > timedelta(seconds=50)
    assert queue.add(leaseq.Item(b"", id="b")) is True, "adds go on"


def test_asyncio_rate_limits(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            await q.set_config(rate_limit=leaseq.aio.RateLimit(5, 1.5))
            config = await q.config()
            assert config.rate_limit == leaseq.RateLimit(5, timedelta(seconds=1.5))
            await q.add(leaseq.Item(b"", id="a"))
            held = await q.rate_limit(timedelta(seconds=60))
            assert held >= timedelta(seconds=60)
            assert await q.lease() is None
            stats = await q.stats()
            assert stats.rate_limited_for is not None
            with pytest.raises(leaseq.aio.InvalidArgumentError) as refused:
                await q.rate_limit(timedelta(days=2))
            assert refused.value.argument == "duration"

    asyncio.run(main())


def grouped(id: str, group: str) -> leaseq.Item:
    return leaseq.Item(id.encode(), id=id, group=group)


def leased_ids(queue: leaseq.Queue) -> list[str]:
    return [lease.id for lease in queue.lease_batch(10)]


def test_a_group_leases_one_at_a_time_in_order(queue: leaseq.Queue) -> None:
    queue.add_batch([grouped(i, "acme") for i in ("a1", "a2", "a3")])
    first = queue.lease()
    assert first is not None and first.id == "a1"
    assert queue.lease() is None, "one leased at a time (default limit 1)"
    info = queue.group("acme")
    assert (info.waiting, info.leased, info.limit, info.paused) == (2, 1, 1, False)
    assert repr(info) == (
        "GroupInfo(waiting=2, leased=1, limit=1, paused=False, rate_limited_for=None)"
    )
    assert queue.complete(first)
    assert leased_ids(queue) == ["a2"], "the next, in order"


def test_groups_take_turns(queue: leaseq.Queue) -> None:
    queue.set_config(group_concurrency=100)
    queue.add_batch([grouped(f"big{i}", "big") for i in range(20)])
    queue.add(grouped("small", "small"))
    ids = [lease.id for lease in queue.lease_batch(2)]
    assert sorted(ids) == ["big0", "small"], "the big group's 20 items wait their turn"


def test_pause_and_resume_a_group(queue: leaseq.Queue) -> None:
    queue.add(grouped("a", "paused"))
    queue.add(grouped("b", "running"))
    assert queue.pause_group("paused") is True
    assert queue.pause_group("paused") is False, "already paused"
    assert leased_ids(queue) == ["b"], "the rest of the queue goes on"
    assert queue.group("paused").paused is True
    assert queue.resume_group("paused") is True
    assert queue.resume_group("paused") is False
    assert leased_ids(queue) == ["a"]


def test_a_group_limit_and_the_queues_group_concurrency(queue: leaseq.Queue) -> None:
    queue.add_batch([grouped(f"x{i}", "acme") for i in range(6)])
    queue.set_group_limit("acme", 3)
    assert queue.group("acme").limit == 3
    leases = queue.lease_batch(10)
    assert [lease.id for lease in leases] == ["x0", "x1", "x2"]
    queue.set_group_limit("acme")
    assert queue.group("acme").limit == 1, "back to the queue's default"
    assert queue.config().group_concurrency is None
    queue.set_config(group_concurrency=4)
    assert queue.config().group_concurrency == 4
    assert "group_concurrency=4" in repr(queue.config())
    assert queue.group("acme").limit == 4
    assert queue.complete(leases[0])
    assert leased_ids(queue) == ["x3", "x4"], "a slot freed: up to four at once now"
    for limit in (0, 1001):
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            queue.set_group_limit("acme", limit)
        assert refused.value.argument == "limit"
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            queue.set_config(group_concurrency=limit)
        assert refused.value.argument == "group_concurrency"


def test_get_shows_the_group(queue: leaseq.Queue) -> None:
    queue.add(grouped("a", "acme"))
    queue.add(leaseq.Item(b"", id="plain"))
    job = queue.get("a")
    assert job is not None and job.group == "acme" and job.data == b"a"
    plain = queue.get("plain")
    assert plain is not None and plain.group is None


def test_a_bad_group_is_refused_naming_group(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    for group in ("", "a\nb", "x" * (leaseq.MAX_GROUP_LEN + 1)):
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            leaseq.Item(b"", group=group)
        assert refused.value.argument == "group"
        for call in (
            queue.pause_group,
            queue.resume_group,
            queue.group,
            queue.set_group_limit,
            lambda g: queue.rate_limit_group(g, 60),
        ):
            with pytest.raises(leaseq.InvalidArgumentError) as refused:
                call(group)
            assert refused.value.argument == "group"
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        leaseq.Item(b"", group=b"acme")  # type: ignore[arg-type]
    assert wrong.value.argument == "group"
    assert r.keys(queue.prefix + "*") == [], "nothing written"


def test_asyncio_groups(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            await q.add_batch([grouped(i, "g") for i in ("a", "b", "c")])
            assert await q.pause_group("g") is True
            assert await q.lease() is None
            assert await q.resume_group("g") is True
            await q.set_group_limit("g", 2)
            info = await q.group("g")
            assert (info.waiting, info.leased, info.limit) == (3, 0, 2)
            assert info.paused is False
            assert [lease.id for lease in await q.lease_batch(10)] == ["a", "b"]
            await q.set_group_limit("g", None)
            await q.set_config(group_concurrency=3)
            assert (await q.config()).group_concurrency == 3
            job = await q.get("c")
            assert job is not None and job.group == "g"
            with pytest.raises(leaseq.aio.InvalidArgumentError) as refused:
                await q.group("")
            assert refused.value.argument == "group"

    asyncio.run(main())


def test_a_group_rate_limit_round_trips_and_limits_each_group(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    for limit in (
        leaseq.RateLimit(0, 1),
        leaseq.RateLimit(1, 0),
        leaseq.RateLimit(1, timedelta(days=2)),
    ):
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            queue.set_config(group_rate_limit=limit)
        assert refused.value.argument == "group_rate_limit"
    with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
        queue.set_config(group_rate_limit=(1, 1))  # type: ignore[arg-type]
    assert wrong.value.argument == "group_rate_limit"
    assert r.keys(queue.prefix + "*") == [], "nothing written"

    assert queue.config().group_rate_limit is None
    queue.set_config(group_concurrency=10, group_rate_limit=leaseq.RateLimit(2, 60))
    config = queue.config()
    assert config.group_rate_limit == leaseq.RateLimit(2, timedelta(minutes=1))
    assert config.rate_limit is None, "the queue's own limit is another setting"
    assert "group_rate_limit=RateLimit(max=2, per=60" in repr(config)
    queue.add_batch([grouped(i, "a") for i in ("a1", "a2", "a3")])
    queue.add(grouped("b1", "b"))
    assert sorted(leased_ids(queue)) == ["a1", "a2", "b1"], (
        "two of a, in its own window"
    )
    assert leased_ids(queue) == [], "a waits for its window"
    waits = queue.group("a").rate_limited_for
    assert waits is not None and timedelta(0) < waits <= timedelta(seconds=60)
    assert queue.group("b").rate_limited_for is None, "b has a lease left in its window"
    queue.add(grouped("b2", "b"))
    assert leased_ids(queue) == ["b2"], "b's window is its own"
    assert queue.stats().rate_limited_for is None, "the queue is not limited"


def test_rate_limit_group_holds_one_group_while_another_is_leased(
    queue: leaseq.Queue, url: str
) -> None:
    queue.add_batch([grouped("a1", "a"), grouped("b1", "b"), grouped("b2", "b")])
    queue.add(leaseq.Item(b"", id="plain"))
    assert queue.group("a").rate_limited_for is None
    held = queue.rate_limit_group("a", 60)
    assert held >= timedelta(seconds=60)
    assert queue.rate_limit_group("a", timedelta(milliseconds=10)) > timedelta(
        seconds=50
    ), "a longer hold is kept"
    first = queue.lease_batch(10)
    assert sorted(lease.id for lease in first) == ["b1", "plain"], "the rest goes on"
    for lease in first:
        assert queue.complete(lease)
    assert leased_ids(queue) == ["b2"]
    with leaseq.Client(url) as other:
        assert other.queue(queue.prefix).lease() is None, "every client is held off a"
    info = queue.group("a")
    assert (info.waiting, info.leased) == (1, 0)
    assert info.rate_limited_for is not None
    assert info.rate_limited_for > timedelta(seconds=50)
    assert queue.stats().rate_limited_for is None, "the queue is not held"
    for duration in (0, timedelta(days=2)):
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            queue.rate_limit_group("b", duration)
        assert refused.value.argument == "duration"
    assert queue.group("b").rate_limited_for is None, "a refused hold holds nothing"


def test_asyncio_group_rate_limits(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            with pytest.raises(leaseq.aio.InvalidArgumentError) as refused:
                await q.set_config(group_rate_limit=leaseq.aio.RateLimit(0, 1))
            assert refused.value.argument == "group_rate_limit"
            await q.set_config(group_rate_limit=leaseq.aio.RateLimit(5, 1.5))
            config = await q.config()
            assert config.group_rate_limit == leaseq.RateLimit(
                5, timedelta(seconds=1.5)
            )
            await q.add_batch([grouped("a1", "a"), grouped("b1", "b")])
            held = await q.rate_limit_group("a", timedelta(seconds=60))
            assert held >= timedelta(seconds=60)
            assert [lease.id for lease in await q.lease_batch(10)] == ["b1"]
            info = await q.group("a")
            assert info.waiting == 1 and info.rate_limited_for is not None
            with pytest.raises(leaseq.aio.InvalidArgumentError) as refused:
                await q.rate_limit_group("a", timedelta(days=2))
            assert refused.value.argument == "duration"
            with pytest.raises(leaseq.aio.InvalidArgumentError) as refused:
                await q.rate_limit_group("", 1)
            assert refused.value.argument == "group"

    asyncio.run(main())
