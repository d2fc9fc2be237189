"""Recurring jobs (issue 26, spec/PROTOCOL.md 5.23) from Python, sync and asyncio: a
``leaseq.Schedule`` upserted, read back with its next fire time, listed, fired (missed ticks
per policy, after a downtime made by setting the schedule's ``from`` on the server's clock)
and removed; bad ones refused naming the argument before anything is written; a Python
``Worker`` fires schedules by itself (the core's housekeeping)."""

from __future__ import annotations

import asyncio
import datetime
import threading

import leaseq
import leaseq.aio
import pytest
import redis


def server_ms(r: redis.Redis) -> int:
    seconds, micros = r.time()
    return int(seconds) * 1000 + int(micros) // 1000


def rewind(r: redis.Redis, prefix: str, name: str, since: int, anchor: int) -> None:
    """Schedule ``name`` as if nobody fired it since ``since``, its ticks at ``anchor`` plus
    whole periods."""
    r.hset(f"{prefix}:cron:{name}", mapping={"from": since, "anchor": anchor})
    r.hdel(f"{prefix}:cron:{name}", "next")
    r.zadd(f"{prefix}:cron", {name: since})


def test_a_schedule_is_stored_read_listed_and_removed(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    nightly = leaseq.Schedule(
        cron="0 3 * * *",
        tz="Europe/Berlin",
        item=leaseq.Item(b"report", name="report", priority=5),
        missed="once",
    )
    assert nightly.cron == "0 3 * * *" and nightly.every is None
    assert (nightly.tz, nightly.missed, nightly.item.data) == (
        "Europe/Berlin",
        "once",
        b"report",
    )
    assert queue.upsert_schedule("nightly", nightly) is True
    assert queue.upsert_schedule("nightly", nightly) is False
    beat = leaseq.Schedule(every=datetime.timedelta(minutes=1))
    assert beat.every == datetime.timedelta(minutes=1)
    assert queue.upsert_schedule("beat", beat)
    assert queue.stats().schedules == 2

    info = queue.get_schedule("nightly")
    assert info is not None and info.version == 2
    assert info.schedule is not None and info.schedule.tz == "Europe/Berlin"
    assert info.next_at is not None and info.next_at.tzinfo is not None
    assert info.next_at.astimezone(datetime.timezone.utc).minute == 0
    page = queue.schedules()
    assert page.total == 2 and len(page) == 2
    assert sorted(s.name for s in page.schedules) == ["beat", "nightly"]
    assert queue.schedules(start=1, count=1).schedules[0].name in ("beat", "nightly")

    report = queue.fire_due_schedules()
    assert (report.due, report.fired) == (2, 0)  # settled, nothing due yet
    assert queue.remove_schedule("beat") and not queue.remove_schedule("beat")
    assert queue.get_schedule("beat") is None


@pytest.mark.parametrize(
    ("missed", "fired"), [("skip", 2), ("once", 3), ("all:5", 7), ("all:1000", 15)]
)
def test_missed_ticks_follow_the_policy(
    queue: leaseq.Queue, r: redis.Redis, prefix: str, missed: str, fired: int
) -> None:
    # Every 4 s, ticks at T0 - 2.5 s, T0 - 6.5 s, ...: two within the 10 s grace, and 13
    # missed since T0 - 60 s (the same arithmetic as the core's test).
    queue.upsert_schedule("s", leaseq.Schedule(every=4, missed=missed))
    t0 = server_ms(r)
    rewind(r, prefix, "s", t0 - 60_000, t0 + 1500)
    report = queue.fire_due_schedules()
    assert (report.fired, report.skipped) == (fired, 15 - fired)
    ids = sorted(
        int(e.id.split("@")[1]) for e in queue.list(leaseq.State.WAITING, 0, 1000)
    )
    assert ids == [t0 - 2500 - 4000 * k for k in range(fired)][::-1]
    info = queue.get_schedule("s")
    assert info is not None and info.fired == fired
    assert info.next_at == datetime.datetime.fromtimestamp(
        (t0 + 1500) / 1000, datetime.timezone.utc
    )


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"cron": "0 3 * *"}, "cron"),
        ({"cron": "0 3 * * *", "tz": "Mars/Base"}, "tz"),
        ({"every": 0.5}, "every"),
        ({"every": 60, "missed": "sometimes"}, "missed"),
        ({"every": 60, "item": leaseq.Item(b"x", delay=5)}, "item"),
        ({}, "cron"),
    ],
)
def test_bad_schedules_are_refused_naming_the_argument(
    queue: leaseq.Queue,
    r: redis.Redis,
    prefix: str,
    kwargs: dict[str, object],
    argument: str,
) -> None:
    with pytest.raises(leaseq.InvalidArgumentError) as e:
        queue.upsert_schedule("bad", leaseq.Schedule(**kwargs))  # type: ignore[arg-type]
    assert e.value.argument == argument
    assert r.keys(f"{prefix}*") == []


def test_a_python_runner_fires_schedules_by_itself(queue: leaseq.Queue) -> None:
    queue.upsert_schedule(
        "beat", leaseq.Schedule(every=1, item=leaseq.Item(b"tick", name="beat"))
    )
    seen: list[str] = []
    done = threading.Event()

    def handler(job: leaseq.worker.Job) -> None:
        seen.append(job.id)
        if len(seen) == 2:
            done.set()

    worker = leaseq.Worker(queue, handler)
    t = threading.Thread(target=worker.run)
    t.start()
    try:
        assert done.wait(60), "two ticks within a minute"
    finally:
        worker.stop()
        t.join()
    assert all(i.startswith("beat@") for i in seen) and len(set(seen)) == len(seen)


def test_asyncio_face(url: str, prefix: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(prefix)
            s = leaseq.aio.Schedule(every=60, missed="all:3")
            assert await q.upsert_schedule("a", s)
            info = await q.get_schedule("a")
            assert info is not None and info.schedule is not None
            assert info.schedule.missed == "all:3"
            assert (await q.schedules()).total == 1
            assert (await q.fire_due_schedules()).due == 1
            assert await q.remove_schedule("a")

    asyncio.run(main())
