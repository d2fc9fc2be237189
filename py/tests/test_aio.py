"""leaseq.aio: the same API, awaitable, with no threads for the user to manage."""

from __future__ import annotations

import asyncio
import multiprocessing
import subprocess
import sys
from collections.abc import Awaitable
from typing import Any, Callable, TypeVar

import leaseq
import leaseq.aio
import pytest
import redis
from conftest import Server, blocked_clients, new_prefix, wait_until_blocked

T = TypeVar("T")


def run(main: Callable[[], Awaitable[T]]) -> T:
    async def wrapper() -> T:
        return await main()

    return asyncio.run(wrapper())


def test_every_method(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            assert client.is_cluster is False and client.warnings == []
            q = client.queue(new_prefix())
            assert "prefix" in repr(q) and q.prefix.startswith("{test-")
            assert await q.add(leaseq.Item(b"one", id="1")) is True
            assert await q.add(leaseq.Item(b"dup", id="1")) is False
            await q.add_unique(leaseq.Item("two", id="2"))
            assert await q.add_batch([leaseq.Item.from_json({"n": 3}, id="3")]) == 1
            assert (await q.queue_len(), await q.processing_len()) == (3, 0)
            first = await q.lease(ttl=30.0)
            assert first is not None and (first.id, first.data, first.count) == (
                "1",
                b"one",
                1,
            )
            assert await q.renew(first, ttl=60.0) is True
            done, second = await q.complete_and_lease(first, ttl=30.0)
            assert done is True and second is not None and second.data == b"two"
            assert await q.complete(second) is True
            third = await q.lease(block=False)
            assert third is not None and third.json() == {"n": 3}
            assert await q.complete(third) is True and await q.complete(third) is False
            assert await q.lease(block=False) is None
            assert await q.lease(timeout=0.2) is None
            report = await q.light_clean()
            assert (report.requeued, report.removed) == (0, 0)
            assert isinstance(await q.deep_clean(), leaseq.CleanReport)
        with pytest.raises(leaseq.ClosedError):
            await q.queue_len()

    run(main)


def test_a_waiting_lease_lets_other_tasks_run(url: str) -> None:
    async def main() -> None:
        client = leaseq.aio.Client(url)
        q = client.queue(new_prefix())
        waiter = asyncio.create_task(q.lease(ttl=10.0))
        other = client.queue(new_prefix())
        for _ in range(20):
            await other.add(leaseq.Item(b"x"))
        assert await other.queue_len() == 20
        assert not waiter.done()
        await q.add(leaseq.Item(b"wake", id="wake"))
        lease = await asyncio.wait_for(waiter, 30)
        assert lease is not None and lease.id == "wake"
        client.close()

    run(main)


def test_many_concurrent_waiters_each_get_one_item(url: str) -> None:
    async def main() -> None:
        client = leaseq.aio.Client(url)
        q = client.queue(new_prefix())
        waiters = [
            asyncio.create_task(q.lease(ttl=30.0, timeout=30.0)) for _ in range(8)
        ]
        await q.add_batch([leaseq.Item(b"", id=f"w{i}") for i in range(8)])
        leases = await asyncio.gather(*waiters)
        assert sorted(lease.id for lease in leases if lease) == [
            f"w{i}" for i in range(8)
        ]
        assert all(
            await asyncio.gather(*(q.complete(lease) for lease in leases if lease))
        )

    run(main)


def test_cancelling_a_waiting_lease_takes_no_item(url: str) -> None:
    async def main() -> None:
        client = leaseq.aio.Client(url)
        q = client.queue(new_prefix())
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(q.lease(ttl=30.0), 0.3)
        await q.add(leaseq.Item(b"after", id="after"))
        lease = await q.lease(block=False)
        assert lease is not None and lease.id == "after"

    run(main)


def test_close_wakes_a_waiting_lease(url: str, r: redis.Redis) -> None:
    baseline = blocked_clients(r)

    async def main() -> None:
        client = leaseq.aio.Client(url)
        q = client.queue(new_prefix())
        waiter = asyncio.create_task(q.lease())
        await asyncio.to_thread(wait_until_blocked, r, baseline)
        client.close()
        with pytest.raises(leaseq.ClosedError):
            await asyncio.wait_for(waiter, 30)

    run(main)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda q: q.add(b"x"), "item"),
        (lambda q: q.add_unique(None), "item"),
        (lambda q: q.add_batch([1]), "items"),
        (lambda q: q.lease(ttl=-1), "ttl"),
        (lambda q: q.lease(ttl=0), "ttl"),
        (lambda q: q.lease(block="no"), "block"),
        (lambda q: q.lease(timeout="1"), "timeout"),
        (lambda q: q.complete("id"), "lease"),
        (lambda q: q.renew(None), "lease"),
        (lambda q: q.complete_and_lease(None), "lease"),
    ],
)
def test_bad_arguments(
    url: str, call: Callable[[Any], Awaitable[Any]], argument: str
) -> None:
    async def main() -> None:
        q = leaseq.aio.Client(url).queue(new_prefix())
        with pytest.raises(leaseq.InvalidArgumentError) as info:
            await call(q)
        assert info.value.argument == argument and f"`{argument}`" in str(info.value)

    run(main)


def test_bad_client_arguments(url: str) -> None:
    with pytest.raises(leaseq.InvalidArgumentTypeError):
        leaseq.aio.Client(None)  # type: ignore[arg-type]
    with pytest.raises(leaseq.InvalidArgumentError):
        leaseq.aio.Client.cluster([])
    with pytest.raises(leaseq.InvalidArgumentError) as info:
        leaseq.aio.Client(url).queue("")
    assert info.value.argument == "prefix"


def test_wrong_type_error(url: str, r: redis.Redis) -> None:
    prefix = new_prefix()
    r.set(f"{prefix}:processing", "x")

    async def main() -> None:
        with pytest.raises(leaseq.WrongTypeError):
            await leaseq.aio.Client(url).queue(prefix).processing_len()

    run(main)


def test_connection_lost(fresh_server: Server) -> None:
    client = leaseq.aio.Client(fresh_server.url)
    q = client.queue(new_prefix())
    assert run(q.queue_len) == 0
    fresh_server.stop()
    with pytest.raises(leaseq.LeaseqConnectionError):
        run(q.queue_len)


def _aio_fork_child(q: leaseq.aio.Queue, results: Any) -> None:
    async def main() -> None:
        lease = await q.lease(ttl=30.0, timeout=10.0)
        results.put(
            (lease.id if lease else None, await q.complete(lease) if lease else False)
        )

    asyncio.run(main())


@pytest.mark.filterwarnings(
    "ignore:This process .* is multi-threaded:DeprecationWarning"
)
def test_forked_child_gets_a_working_client(url: str) -> None:
    client = leaseq.aio.Client(url)
    q = client.queue(new_prefix())

    async def fill() -> int:
        await q.add(leaseq.Item(b"x", id="forked"))
        return await q.queue_len()

    assert run(fill) == 1  # the parent's runtime and connection exist before the fork
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    child = ctx.Process(target=_aio_fork_child, args=(q, results))
    child.start()
    assert results.get(timeout=60) == ("forked", True)
    child.join(timeout=60)
    assert child.exitcode == 0
    assert run(q.queue_len) == 0 and run(q.processing_len) == 0
    results.close()
    results.join_thread()


def test_cluster(cluster: Server) -> None:
    async def main() -> None:
        async with leaseq.aio.Client.cluster(cluster.urls) as client:
            assert client.is_cluster
            with pytest.raises(leaseq.InvalidArgumentError):
                client.queue("no-hash-tag")
            q = client.queue(new_prefix())
            assert await q.add(leaseq.Item(b"c", id="c"))
            lease = await q.lease(timeout=5.0)
            assert lease is not None and await q.complete(lease)

    run(main)


EXIT_CHILD = """
import asyncio, sys, leaseq, leaseq.aio

async def main() -> None:
    async with leaseq.aio.Client(sys.argv[1]) as client:
        q = client.queue(sys.argv[2])
        await q.add(leaseq.Item(b"x"))
        lease = await q.lease(block=False)
        assert lease is not None and await q.complete(lease)

asyncio.run(main())
"""


def test_processes_exit_cleanly_right_after_awaiting(url: str) -> None:
    # The runtime thread that hands the last result to asyncio must be done with Python before
    # the interpreter finalizes; a race there crashed the process at exit now and then.
    for _ in range(20):
        done = subprocess.run(  # noqa: PLW1510 - the return code is asserted
            [sys.executable, "-c", EXIT_CHILD, url, new_prefix()],
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
