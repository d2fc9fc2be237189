"""leaseq.aio: the same API, awaitable, with no threads for the user to manage."""

from __future__ import annotations

import asyncio
import multiprocessing
import socket
import subprocess
import sys
from collections.abc import Awaitable
from datetime import datetime, timedelta, timezone
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
        waiter = asyncio.create_task(q.lease(ttl=10.0, timeout=leaseq.FOREVER))
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
            await asyncio.wait_for(q.lease(ttl=30.0, timeout=leaseq.FOREVER), 0.3)
        await q.add(leaseq.Item(b"after", id="after"))
        lease = await q.lease(block=False)
        assert lease is not None and lease.id == "after"

    run(main)


def test_close_wakes_a_waiting_lease(url: str, r: redis.Redis) -> None:
    baseline = blocked_clients(r)

    async def main() -> None:
        client = leaseq.aio.Client(url)
        q = client.queue(new_prefix())
        waiter = asyncio.create_task(q.lease(timeout=leaseq.FOREVER))
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
        (lambda q: q.lease_batch(0), "n"),
        (lambda q: q.lease_batch(2, timeout=-1), "timeout"),
        (lambda q: q.complete(None, result=b"r"), "lease"),
        (lambda q: q.renew_outcome(None), "lease"),
        (lambda q: q.fail(None, "e"), "lease"),
        (lambda q: q.release(None), "lease"),
        (lambda q: q.progress(None, b"v"), "lease"),
        (lambda q: q.result(""), "id"),
        (lambda q: q.wait_result("x", "1"), "timeout"),
        (lambda q: q.get(None), "id"),
        (lambda q: q.list("nope"), "state"),
        (lambda q: q.list("waiting", count=0), "count"),
        (lambda q: q.count("finished"), "state"),
        (lambda q: q.cancel(5), "id"),
        (lambda q: q.dead_requeue("abc"), "ids"),
        (lambda q: q.dead_requeue_oldest(-1), "n"),
        (lambda q: q.dead_purge("1"), "n"),
        (lambda q: q.set_config(priority=2000), "priority"),
        (lambda q: q.set_config(backoff=1), "backoff"),
        (lambda q: q.add(leaseq.Item(b"x", priority=2000)), "priority"),
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


def test_client_never_blocks_the_event_loop_while_it_connects(
    fresh_server: Server,
) -> None:
    """Issue 14: a ticker saw ``leaseq.aio.Client(url)`` hold the event loop for the whole
    connect timeout. Now the constructor only checks the URL, and connecting runs off the loop
    while other tasks go on."""
    with pytest.raises(leaseq.InvalidArgumentError) as info:
        leaseq.aio.Client("localhost:6379")
    assert info.value.argument == "url"
    # A listener that never answers: a connect to it waits for its timeout.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}"

        async def main() -> None:
            ticks = 0

            async def ticker() -> None:
                nonlocal ticks
                while True:
                    await asyncio.sleep(0.01)
                    ticks += 1

            beat = asyncio.create_task(ticker())
            client = leaseq.aio.Client(url)
            connecting = asyncio.create_task(client.connect())
            while ticks < 5:
                await asyncio.sleep(0.01)
            assert not connecting.done(), "still connecting while the loop ran on"
            connecting.cancel()
            client.close()
            beat.cancel()

        asyncio.run(main())

    # ``async with`` connects: a stopped server's error surfaces there.
    url = fresh_server.url
    fresh_server.stop()

    async def enter() -> None:
        async with leaseq.aio.Client(url):
            pass

    with pytest.raises(leaseq.LeaseqConnectionError):
        asyncio.run(enter())


def test_a_client_closed_before_it_connected_refuses_calls(url: str) -> None:
    async def main() -> None:
        client = leaseq.aio.Client(url)
        q = client.queue(new_prefix())
        client.close()
        with pytest.raises(leaseq.ClosedError):
            await q.queue_len()

    asyncio.run(main())


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


def test_the_lifecycle(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            assert await q.lease() is None  # no wait by default
            at = datetime(2100, 1, 1, tzinfo=timezone.utc)
            assert (
                await q.add_batch(
                    [
                        leaseq.Item(b"a", id="a", priority=5, max_attempts=2),
                        leaseq.Item(b"b", id="b", backoff=leaseq.Backoff.fixed(0)),
                        leaseq.Item(b"c", id="c", delay=timedelta(minutes=1)),
                        leaseq.Item(b"d", id="d", run_at=at),
                    ]
                )
                == 4
            )
            assert await q.count("delayed") == 2
            assert [e.id for e in await q.list(leaseq.State.WAITING)] == ["a", "b"]
            first, second = await q.lease_batch(2, ttl=timedelta(seconds=30))
            assert (first.id, second.id) == ("a", "b")
            assert await q.renew_outcome(first) is leaseq.RenewOutcome.RENEWED
            assert await q.progress(first, "half")
            job = await q.get("a")
            assert job is not None and job.progress == b"half" and job.state == "leased"
            assert await q.complete(first, result=b"A", keep_result_for=60)
            result = await q.result("a")
            assert result is not None and result.data == b"A"
            assert await q.wait_result("a", 1) == result
            outcome = await q.fail(second, ValueError("v"))
            assert outcome.retrying and outcome.retry_in == timedelta(0)

    run(main)


def test_fail_release_cancel_dead_letters_and_config(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            await q.set_config(stats=True)  # the per-minute counters, checked below
            at = datetime(2100, 1, 1, tzinfo=timezone.utc)
            await q.add(leaseq.Item(b"b", id="b", backoff=leaseq.Backoff.fixed(0)))
            await q.add(leaseq.Item(b"c", id="c", delay=timedelta(minutes=1)))
            await q.add(leaseq.Item(b"d", id="d", run_at=at))
            second = await q.lease()
            assert second is not None
            outcome = await q.fail(second, ValueError("v"))
            assert outcome.retrying and outcome.retry_in == timedelta(0)
            again = await q.lease(timeout=5)
            assert again is not None and again.attempt == 2
            assert await q.release(again, delay=3600)
            assert await q.cancel("b") is leaseq.State.DELAYED
            assert await q.cancel("c") is leaseq.State.DELAYED
            assert await q.get("b") is None
            d = await q.get("d")
            assert d is not None and d.due_at == at
            await q.add(leaseq.Item(b"e", id="e"))
            e = await q.lease()
            assert e is not None
            assert (await q.fail(e, "no", "Nope", retry=False)).dead
            assert [x.error for x in await q.list("dead")] == ["no"]
            assert await q.dead_requeue(["e"]) == 1
            e = await q.lease()
            assert e is not None and e.attempt == 1
            await q.fail(e, "no", retry=False)
            assert await q.dead_requeue_oldest() == 1
            e = await q.lease()
            assert e is not None
            await q.fail(e, "no", retry=False)
            assert await q.dead_purge() == 1
            stats = await q.stats()
            assert (stats.waiting, stats.delayed, stats.dead) == (0, 1, 0)
            hour = stats.last_hour
            assert hour is not None and (hour.completed, hour.failed) == (0, 4)
            await q.set_config(max_attempts=3, keep_result_for=timedelta(hours=1))
            config = await q.config()
            assert config.max_attempts == 3 and config.stats is True
            assert config.keep_result_for == timedelta(hours=1)
            await q.reset_config()
            assert (await q.config()).max_attempts is None
            assert (await q.stats()).last_hour is None  # counters off again
            rebuilt = q.lease_from_parts("x", "t", "i", 1)
            assert rebuilt.id == "x" and await q.renew(rebuilt) is False
            report = await q.light_clean()
            assert report.promoted == 0 and report.dead == 0

    run(main)


def test_wait_result_lets_other_tasks_run_and_is_cancellable(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            await q.add(leaseq.Item(b"in", id="w"))
            waiter = asyncio.create_task(q.wait_result("w", 60))
            lease = await q.lease()
            assert lease is not None and not waiter.done()
            assert await q.complete(lease, result=b"out")
            result = await waiter
            assert result is not None and result.data == b"out"
            # A wait for a result that never comes stops with its task.
            never = asyncio.create_task(q.wait_result("never", 60))
            await asyncio.sleep(0.1)
            never.cancel()
            with pytest.raises(asyncio.CancelledError):
                await never
            assert await q.wait_result("never", timedelta(milliseconds=50)) is None

    run(main)


def _aio_fork_lifecycle_child(q: leaseq.aio.Queue, results: Any) -> None:
    async def main() -> None:
        lease = await q.lease(timeout=10.0)
        assert lease is not None
        outcome = await q.fail(lease, "from the child", retry=False)
        job = await q.get(lease.id)
        results.put((outcome.name, job.error if job else None, (await q.stats()).dead))

    asyncio.run(main())


@pytest.mark.filterwarnings(
    "ignore:This process .* is multi-threaded:DeprecationWarning"
)
def test_forked_child_runs_the_lifecycle(url: str) -> None:
    client = leaseq.aio.Client(url)
    q = client.queue(new_prefix())
    run(lambda: q.add(leaseq.Item(b"x", id="forked")))
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    child = ctx.Process(target=_aio_fork_lifecycle_child, args=(q, results))
    child.start()
    assert results.get(timeout=60) == ("dead", "from the child", 1)
    child.join(timeout=60)
    assert child.exitcode == 0
    job = run(lambda: q.get("forked"))
    assert job is not None and job.state == "dead"
    results.close()
    results.join_thread()


def test_bytes_ids_forever_waits_and_complete_and_lease_results(
    url: str, r: redis.Redis
) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            raw_id = b"aio-\xff"
            r.set(f"{q.prefix}:item:".encode() + raw_id, b"payload")
            r.lpush(f"{q.prefix}:queue", raw_id)
            job = await q.get(raw_id)
            assert job is not None and job.id_bytes == raw_id
            waiter = asyncio.create_task(q.wait_result(raw_id, leaseq.FOREVER))
            await q.add(leaseq.Item(b"", id="next"))
            lease = await q.lease()
            assert lease is not None and lease.id_bytes == raw_id
            done, nxt = await q.complete_and_lease(
                lease, result=b"kept", keep_result_for=60
            )
            assert done and nxt is not None and nxt.id == "next"
            result = await waiter
            assert result is not None and result.data == b"kept"
            assert await q.fail(nxt, "x", retry=False)
            assert await q.dead_requeue([b"next"]) == 1
            assert await q.cancel(b"next") == "waiting"
            kept = await q.result(raw_id)
            assert kept is not None and kept.data == b"kept"

    run(main)


def test_done_items_find_and_promote(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            await q.add_batch([leaseq.Item(b"", id=f"i{i}") for i in range(3)])
            lease = await q.lease()
            assert lease is not None and await q.complete(lease, result=b"kept")
            assert [e.id for e in await q.list("done")] == ["i0"]
            assert await q.count("done") == 1
            lease = await q.lease()
            assert lease is not None
            assert (await q.fail(lease, "no", error_type="Timeout", retry=False)).dead
            found = await q.find("dead", error_type="Timeout")
            assert [e.id for e in found.entries] == ["i1"] and found.next is None
            await q.add(leaseq.Item(b"", id="later", delay=3600))
            assert await q.promote("later") is True
            assert await q.promote("later") is False

    run(main)
