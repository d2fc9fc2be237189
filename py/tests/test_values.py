"""The plain value types compare by value (``==``; unhashable, as the other value types are),
and show their fields in their repr."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import leaseq
import pytest
from conftest import Server, new_prefix


def unhashable(value: Any) -> None:
    with pytest.raises(TypeError):
        hash(value)


def test_schedule_reads_compare_by_value_and_a_page_has_a_repr(
    queue: leaseq.Queue,
) -> None:
    # Nothing due: two fires report the same.
    report = queue.fire_due_schedules()
    assert report == queue.fire_due_schedules() and report.due == 0
    assert report != leaseq.Schedule(every=60)
    unhashable(report)
    queue.upsert_schedule("nightly", leaseq.Schedule(cron="0 3 * * *"))
    queue.upsert_schedule("beat", leaseq.Schedule(every=60))
    info = queue.get_schedule("nightly")
    assert info is not None and info == queue.get_schedule("nightly")
    assert info != queue.get_schedule("beat")
    unhashable(info)
    page, again = queue.schedules(), queue.schedules()
    assert page.schedules == again.schedules
    # The page is equal to another when its clock is too.
    assert (page == again) == (page.now == again.now)
    unhashable(page)
    assert re.fullmatch(
        r"SchedulePage\(schedules=\[2 entries\], total=2, now=datetime\.datetime\(.+\)\)",
        repr(page),
    ), repr(page)
    assert "(schedules=[0 entries], total=2, now=" in repr(queue.schedules(start=5))


def test_found_dependencies_and_events_compare_by_value(
    queue: leaseq.Queue,
) -> None:
    queue.set_config(events=True)
    queue.add(leaseq.Item(b"a", id="a", name="n"))
    queue.add(leaseq.Item(b"b", id="b", depends_on=["a"]))
    found = queue.find("waiting", name="n")
    assert found == queue.find("waiting", name="n") and len(found.entries) == 1
    assert found != queue.find("blocked")
    unhashable(found)
    deps = queue.dependencies("b")
    assert deps == queue.dependencies("b") and deps.pending == ["a"]
    assert deps != queue.dependencies("a")
    unhashable(deps)
    page = queue.read_events(after="0-0")
    assert page == queue.read_events(after="0-0") and len(page.events) >= 2
    assert page.events[0] == queue.read_events(after="0-0").events[0]
    assert page.events[0] != page.events[1]
    unhashable(page)
    unhashable(page.events[0])


def test_stats_compare_by_value_their_clock_included(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"x"))
    a, b = queue.stats(), queue.stats()
    # Every field counts, the server's clock (`now`) and the oldest item's age with it: two
    # reads are equal when they were made in the same millisecond.
    same_clock = a.now == b.now and a.oldest_waiting == b.oldest_waiting
    assert (a == b) == same_clock
    assert (a.waiting, a.leased, a.dead) == (b.waiting, b.leased, b.dead)
    unhashable(a)


@pytest.fixture()
def cluster_client(cluster: Server) -> Iterator[leaseq.Client]:
    with leaseq.Client.cluster(cluster.urls) as c:
        yield c


def test_partitioned_stats_compare_by_value(cluster_client: leaseq.Client) -> None:
    queue = cluster_client.create_partitioned(new_prefix(), 3)
    stats = queue.stats()
    # Each read is a new object; their parts compare by value.
    assert stats.total == stats.total and stats.partitions == stats.partitions
    unhashable(stats)
    queue.add(leaseq.Item(b"x"))
    assert queue.stats() != stats


def test_schedules_compare_by_what_they_do() -> None:
    # The template item's id (random, and used by no tick) does not count.
    def every() -> leaseq.Schedule:
        return leaseq.Schedule(every=30, item=leaseq.Item(b"x", priority=5))

    assert every() == every()
    assert every() != leaseq.Schedule(every=30, item=leaseq.Item(b"y", priority=5))
    assert every() != leaseq.Schedule(every=31, item=leaseq.Item(b"x", priority=5))
    assert leaseq.Schedule(cron="0 3 * * *") != leaseq.Schedule(
        cron="0 3 * * *", tz="UTC"
    )
