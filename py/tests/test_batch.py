"""The batch operations (complete_batch, complete_and_lease_batch, renew_batch, fail_batch),
sync and asyncio, against a real redis-server: what each did, in order, and bad input refused
naming the argument with nothing written."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any, Callable

import leaseq
import leaseq.aio
import pytest
from conftest import new_prefix

TYPE = leaseq.InvalidArgumentTypeError
VALUE = leaseq.InvalidArgumentError


def leased(queue: leaseq.Queue, n: int, **options: Any) -> list[leaseq.Lease]:
    queue.add_batch([leaseq.Item(b"x", id=f"i{k}", **options) for k in range(n)])
    leases = queue.lease_batch(n)
    assert [lease.id for lease in leases] == [f"i{k}" for k in range(n)]
    return leases


def test_complete_batch_completes_each_keeping_the_results_given(
    queue: leaseq.Queue,
) -> None:
    a, b, c, d = leased(queue, 4)
    assert queue.complete(d) is True
    done = queue.complete_batch(
        [a, leaseq.Completion(b, b"kept", keep_result_for=60), (c, "text"), d]
    )
    assert done == [True, True, True, False]
    assert queue.result(a.id) is None
    kept_b, kept_c = queue.result(b.id), queue.result(c.id)
    assert kept_b is not None and kept_b.data == b"kept"
    assert kept_c is not None and kept_c.data == b"text"
    assert queue.count("leased") == 0 and queue.get(a.id) is None
    # Each call completes an item once.
    assert queue.complete_batch((a, b)) == [False, False]
    assert queue.complete_batch([]) == []


def test_complete_and_lease_batch_completes_then_leases_more(
    queue: leaseq.Queue,
) -> None:
    queue.add_batch([leaseq.Item(b"x", id=f"i{k}") for k in range(5)])
    first = queue.lease_batch(2)
    done, more = queue.complete_and_lease_batch(
        [first[0], leaseq.Completion(first[1], b"r")], 2, ttl=60
    )
    assert done == [True, True]
    assert [lease.id for lease in more] == ["i2", "i3"]
    job = queue.get("i2")
    assert job is not None and job.lease_ttl is not None
    assert timedelta(seconds=30) < job.lease_ttl <= timedelta(seconds=60)
    result = queue.result("i1")
    assert result is not None and result.data == b"r"
    done, none = queue.complete_and_lease_batch(more, 0)
    assert (done, none) == ([True, True], [])
    assert queue.count("waiting") == 1 and queue.count("leased") == 0


def test_renew_batch_says_what_it_found_for_each(queue: leaseq.Queue) -> None:
    a, b = leased(queue, 2)
    queue.complete(a)
    outcomes = queue.renew_batch([a, b], ttl=120)
    assert outcomes == [leaseq.RenewOutcome.COMPLETED, leaseq.RenewOutcome.RENEWED]
    assert all(isinstance(o, leaseq.RenewOutcome) for o in outcomes)
    job = queue.get(b.id)
    # Past the default TTL (30 s): renewed to 120 s, less the time since.
    assert job is not None and job.lease_ttl is not None
    assert timedelta(seconds=60) < job.lease_ttl <= timedelta(seconds=120)
    assert queue.renew_batch([]) == []


def test_fail_batch_fails_each_as_fail_would(queue: leaseq.Queue) -> None:
    a, b, c, d = leased(queue, 4, backoff=leaseq.Backoff.fixed(30))
    queue.complete(d)
    outcomes = queue.fail_batch(
        [
            leaseq.Failure(a, "boom"),
            (b, ValueError("bad input"), None, False),
            leaseq.Failure(c, "later", "Busy", retry=5),
            (d, "too late"),
        ]
    )
    assert [o.name for o in outcomes] == ["retrying", "dead", "retrying", "completed"]
    assert outcomes[0].retry_in == timedelta(seconds=30)
    assert outcomes[2].retry_in == timedelta(seconds=5)
    assert outcomes[3].not_held is leaseq.RenewOutcome.COMPLETED
    job_b, job_c = queue.get(b.id), queue.get(c.id)
    assert job_b is not None and job_b.state is leaseq.State.DEAD
    assert (job_b.error, job_b.error_type) == ("bad input", "ValueError")
    assert job_c is not None and job_c.state is leaseq.State.DELAYED
    assert (job_c.error, job_c.error_type) == ("later", "Busy")
    assert queue.fail_batch([]) == []


BatchCall = Callable[[leaseq.Queue, list[leaseq.Lease]], object]


@pytest.mark.parametrize(
    ("call", "argument", "cls"),
    [
        # The last entry is bad: the first ones are not completed either.
        (lambda q, ls: q.complete_batch([ls[0], ls[1], "i2"]), "completions", TYPE),
        (lambda q, ls: q.complete_batch(ls[0]), "completions", TYPE),
        (lambda q, ls: q.complete_batch("i0"), "completions", TYPE),
        (
            lambda q, ls: q.complete_batch([ls[0], (ls[1], b"r", 60, 1)]),
            "completions",
            TYPE,
        ),
        (lambda q, ls: q.complete_batch([ls[0], ("i1", b"r")]), "lease", TYPE),
        (lambda q, ls: q.complete_batch([ls[0], (ls[1], 5)]), "result", TYPE),
        (
            lambda q, ls: q.complete_batch([ls[0], leaseq.Completion(ls[1], None, 60)]),
            "keep_result_for",
            VALUE,
        ),
        (
            lambda q, ls: q.complete_batch([ls[0], leaseq.Completion(ls[1], b"r", 0)]),
            "keep_result_for",
            VALUE,
        ),
        (
            lambda q, ls: q.complete_batch([ls[0], leaseq.Completion(ls[1], b"r", -1)]),
            "keep_result_for",
            VALUE,
        ),
        (lambda q, ls: q.complete_and_lease_batch(ls, -1), "n", VALUE),
        (lambda q, ls: q.complete_and_lease_batch(ls, "2"), "n", TYPE),
        (lambda q, ls: q.complete_and_lease_batch(ls, leaseq.MAX_PAGE + 1), "n", VALUE),
        (lambda q, ls: q.complete_and_lease_batch(ls, 1, ttl=0), "ttl", VALUE),
        (lambda q, ls: q.renew_batch([ls[0], None]), "leases", TYPE),
        (lambda q, ls: q.renew_batch(ls, ttl=0), "ttl", VALUE),
        (lambda q, ls: q.renew_batch(ls, ttl=-1), "ttl", VALUE),
        (
            lambda q, ls: q.renew_batch([ls[0]] * (leaseq.MAX_PAGE + 1)),
            "leases",
            VALUE,
        ),
        (
            lambda q, ls: q.fail_batch([leaseq.Failure(ls[0], "e"), ls[1]]),
            "failures",
            TYPE,
        ),
        (lambda q, ls: q.fail_batch([(ls[0],)]), "failures", TYPE),
        (
            lambda q, ls: q.fail_batch([leaseq.Failure(ls[0], "e"), (ls[1], 42)]),
            "error",
            TYPE,
        ),
        (
            lambda q, ls: q.fail_batch([leaseq.Failure(ls[0], "e"), (ls[1], "e", 7)]),
            "error_type",
            TYPE,
        ),
        (
            lambda q, ls: q.fail_batch([leaseq.Failure(ls[0], "e", retry=-1)]),
            "retry",
            VALUE,
        ),
        (
            lambda q, ls: q.fail_batch([(ls[0], "e", None, "never")]),
            "retry",
            TYPE,
        ),
    ],
)
def test_bad_input_names_the_argument_and_writes_nothing(
    queue: leaseq.Queue, call: BatchCall, argument: str, cls: type[Exception]
) -> None:
    leases = leased(queue, 2)
    with pytest.raises(cls) as info:
        call(queue, leases)
    assert isinstance(info.value, leaseq.InvalidArgumentError)
    assert info.value.argument == argument and f"`{argument}`" in str(info.value)
    assert isinstance(info.value, TypeError) == (cls is TYPE)
    assert queue.count("leased") == 2 and queue.count("waiting") == 0
    for lease in leases:
        job = queue.get(lease.id)
        assert job is not None and job.state is leaseq.State.LEASED
        assert job.attempts == 1 and job.error is None and job.result is None


def test_a_lease_of_another_queue_is_refused_before_anything_is_sent(
    client: leaseq.Client, queue: leaseq.Queue
) -> None:
    other = client.queue(new_prefix())
    mine, theirs = leased(queue, 1)[0], leased(other, 1)[0]
    for call in (
        lambda: queue.complete_batch([mine, theirs]),
        lambda: queue.renew_batch([mine, theirs]),
        lambda: queue.fail_batch([(mine, "e"), (theirs, "e")]),
        lambda: queue.complete_and_lease_batch([mine, theirs], 1),
    ):
        with pytest.raises(VALUE) as info:
            call()
        assert info.value.argument == "lease"
    assert queue.count("leased") == 1 and other.count("leased") == 1


def test_asyncio_batches(url: str) -> None:
    async def main() -> None:
        async with leaseq.aio.Client(url) as client:
            q = client.queue(new_prefix())
            await q.add_batch([leaseq.Item(b"x", id=f"i{k}") for k in range(6)])
            a, b, c, d = await q.lease_batch(4)
            assert await q.renew_batch([a, b], ttl=60) == [
                leaseq.RenewOutcome.RENEWED,
                leaseq.RenewOutcome.RENEWED,
            ]
            assert await q.complete_batch([a, leaseq.aio.Completion(b, "r")]) == [
                True,
                True,
            ]
            result = await q.result(b.id)
            assert result is not None and result.data == b"r"
            outcomes = await q.fail_batch([leaseq.aio.Failure(c, "e", retry=False)])
            assert [o.dead for o in outcomes] == [True]
            done, more = await q.complete_and_lease_batch([d], 5)
            assert done == [True] and [m.id for m in more] == ["i4", "i5"]
            with pytest.raises(VALUE) as info:
                await q.complete_batch([more[0], (more[1], None, 60)])
            assert info.value.argument == "keep_result_for"
            with pytest.raises(TYPE) as info:
                await q.fail_batch([more[0]])  # type: ignore[list-item]
            assert info.value.argument == "failures"
            assert await q.count("leased") == 2

    asyncio.run(main())
