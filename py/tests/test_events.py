"""The event stream (issue 26, spec/PROTOCOL.md 14) from Python: a page of it, a sync follower
(an iterator that waits without the GIL and resumes after an id), an asyncio follower (an async
iterator), the settings of ``set_config``, and bad positions refused naming ``after``."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

import leaseq
import leaseq.aio
import pytest
import redis


def kinds(events: list[leaseq.QueueEvent]) -> list[tuple[str, str]]:
    return [(e.event, e.job_id) for e in events]


def test_events_are_configured_and_a_page_shows_each_transition(
    queue: leaseq.Queue,
) -> None:
    page = queue.read_events()
    assert page.events == [] and page.last == "0-0" and not page.on
    queue.set_config(
        events=True, events_max_len=500, events_max_age=timedelta(minutes=10)
    )
    config = queue.config()
    assert config.events is True and config.events_max_len == 500
    assert config.events_max_age == timedelta(minutes=10)
    queue.add(leaseq.Item(b"x", id="a", name="ship", max_attempts=1))
    lease = queue.lease()
    assert lease is not None
    queue.fail(lease, "boom", retry=False)
    page = queue.read_events(after="0-0")
    assert page.on
    assert kinds(page.events)[:3] == [("added", "a"), ("leased", "a"), ("failed", "a")]
    failed = page.events[2]
    assert failed.error == "boom" and failed.name == "ship" and failed.attempt == 1
    assert failed.time.tzinfo is not None
    assert page.last == page.events[-1].id
    # After an entry: only what came after it.
    rest = queue.read_events(after=page.events[0].id, count=1)
    assert kinds(rest.events) == [("leased", "a")]


def test_bad_positions_and_counts_are_refused_naming_them(queue: leaseq.Queue) -> None:
    for bad in ["", "x", "1-2-3"]:
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            queue.read_events(after=bad)
        assert refused.value.argument == "after"
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            queue.events(after=bad)
        assert refused.value.argument == "after"
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        queue.read_events(count=0)
    assert refused.value.argument == "count"
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        queue.set_config(events_max_len=0)
    assert refused.value.argument == "events_max_len"


def test_a_sync_follower_sees_other_threads_and_resumes_after_an_id(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    queue.set_config(events=True)
    follower = queue.events()
    assert follower.position is None

    def produce() -> None:
        queue.add(leaseq.Item(b"x", id="t1"))
        lease = queue.lease()
        assert lease is not None
        queue.complete(lease)

    # Another thread works while this one waits in the follower (without the GIL).
    thread = threading.Thread(target=produce)
    thread.start()
    seen = [next(follower) for _ in range(3)]
    thread.join()
    assert kinds(seen) == [("added", "t1"), ("leased", "t1"), ("completed", "t1")]
    assert follower.position == seen[-1].id
    # A connection killed meanwhile: the follower goes on after the last entry it gave.
    queue.add(leaseq.Item(b"x", id="t2"))
    r.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
    # (The queue's own connection went too: its next call may fail, and is not sent again.)
    while True:
        try:
            queue.add(leaseq.Item(b"x", id="t3"))
            break
        except leaseq.LeaseqConnectionError:
            continue
    assert kinds([next(follower), next(follower)]) == [("added", "t2"), ("added", "t3")]
    # A new follower resuming after the first entry: everything after it.
    again = queue.events(after=seen[0].id)
    assert [next(again).event for _ in range(4)] == [
        "leased",
        "completed",
        "added",
        "added",
    ]


def test_an_async_follower_is_an_async_iterator(url: str, prefix: str) -> None:
    async def main() -> list[tuple[str, str]]:
        async with leaseq.aio.Client(url) as client:
            queue = client.queue(prefix)
            await queue.set_config(events=True)
            follower = await queue.events()
            await queue.add(leaseq.Item(b"x", id="a1"))
            lease = await queue.lease()
            assert lease is not None
            await queue.complete(lease, result=b"done")
            seen = []
            async for event in follower:
                seen.append((event.event, event.job_id))
                if event.event == "completed":
                    break
            # wait_result goes through the stream too while events are on.
            result = await queue.wait_result("a1", 5)
            assert result is not None and result.data == b"done"
            page = await queue.read_events(after="0-0")
            assert kinds(page.events) == seen
            return seen

    assert asyncio.run(main()) == [
        ("added", "a1"),
        ("leased", "a1"),
        ("completed", "a1"),
    ]
