"""leaseq.Worker: the core's runner with Python handlers (threads and asyncio), its outcomes,
the lease-lost signal, the job timeout, shutdown, outages, and ``python -m leaseq worker``."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import leaseq
import pytest
import redis
from conftest import (
    Server,
    blocked_clients,
    new_prefix,
    server_says,
    wait_until_blocked,
)


def run_until(worker: leaseq.Worker, done: Any) -> leaseq.WorkerReport:
    """Runs `worker`, stopping it from a listener once `done(name, id)` says so."""

    def listener(name: str, job_id: Any, _detail: Any) -> None:
        if done(name, job_id):
            worker.stop()

    worker.on("*", listener)
    return worker.run()


def fill(queue: leaseq.Queue, n: int, prefix: str = "j") -> set[str]:
    queue.add_batch([leaseq.Item(b"x", id=f"{prefix}{i}") for i in range(n)])
    return {f"{prefix}{i}" for i in range(n)}


def settled(queue: leaseq.Queue) -> bool:
    s = queue.stats()
    return s.waiting + s.delayed + s.leased + s.processing == 0


def test_outcomes_results_retries_and_dead_letters(queue: leaseq.Queue) -> None:
    fill(queue, 10)
    queue.add(
        leaseq.Item(
            b"x", id="flaky", max_attempts=2, backoff=leaseq.Backoff.fixed(0.01)
        )
    )
    queue.add(leaseq.Item(b"x", id="poison"))
    seen: dict[str, list[str]] = {}

    def handler(job: leaseq.worker.Job) -> Any:
        if job.id == "flaky":
            raise ValueError(f"attempt {job.attempt}")
        if job.id == "poison":
            raise leaseq.Unrecoverable("cannot parse")
        return {"id": job.id}

    def done(name: str, job_id: Any) -> bool:
        seen.setdefault(name, []).append(job_id)
        return len(seen.get("completed", [])) == 10 and len(seen.get("dead", [])) == 2

    report = run_until(leaseq.Worker(queue, handler, concurrency=4), done)
    assert report == leaseq.WorkerReport(
        completed=10, retried=1, dead=2, lost=0, released=0
    )
    assert sorted(seen["dead"]) == ["flaky", "poison"]
    assert queue.count(leaseq.State.DEAD) == 2
    job = queue.get("flaky")
    assert (
        job is not None and job.error == "attempt 2" and job.error_type == "ValueError"
    )
    result = queue.result("j3")
    assert result is not None and result.data == b'{"id": "j3"}'
    assert settled(queue)


def test_async_handlers_run_on_asyncio(queue: leaseq.Queue) -> None:
    fill(queue, 20)
    loops: set[int] = set()

    async def handler(job: leaseq.worker.Job) -> bytes:
        loops.add(id(asyncio.get_running_loop()))
        await asyncio.sleep(0.01)
        return job.id.encode()

    n = [0]

    def done(name: str, _id: Any) -> bool:
        n[0] += name == "completed"
        return n[0] == 20

    report = run_until(leaseq.Worker(queue, handler, concurrency=8), done)
    assert report.completed == 20
    assert len(loops) == 1, "one event loop runs every handler"
    result = queue.result("j5")
    assert result is not None and result.data == b"j5"


def test_a_runner_on_a_closed_client_raises_closed_error(
    url: str, queue: leaseq.Queue
) -> None:
    """At once, running nothing; closed while it runs (by its handler), once it has stopped:
    not an empty report."""
    queue.add(leaseq.Item(b"x", id="a"))
    closed = leaseq.Client(url)
    on_closed = closed.queue(queue.prefix)
    closed.close()
    ran: list[str] = []
    with pytest.raises(leaseq.ClosedError):
        leaseq.Worker(on_closed, lambda job: ran.append(job.id)).run()
    assert ran == []
    other = leaseq.Client(url)

    def close_it(job: leaseq.worker.Job) -> None:
        other.close()

    with pytest.raises(leaseq.ClosedError):
        leaseq.Worker(other.queue(queue.prefix), close_it, poll_interval=0.2).run()


@pytest.mark.parametrize("kind", ["thread", "asyncio"])
def test_a_rate_limited_handler_holds_the_queue_off_without_charging_an_attempt(
    queue: leaseq.Queue, kind: str
) -> None:
    queue.add(leaseq.Item(b"x", id="api", max_attempts=1))
    calls: list[int] = []

    def outcome(job: leaseq.worker.Job) -> str:
        calls.append(job.attempt)
        if len(calls) == 1:
            raise leaseq.RateLimited(0.2)  # the API answered 429
        return f"attempt {job.attempt}"

    def sync_handler(job: leaseq.worker.Job) -> str:
        return outcome(job)

    async def async_handler(job: leaseq.worker.Job) -> str:
        return outcome(job)

    worker = leaseq.Worker(queue, sync_handler if kind == "thread" else async_handler)
    report = run_until(worker, lambda name, _id: name == "completed")
    assert len(calls) == 2, "ran again after the hold"
    # max_attempts 1, yet not dead: the rate-limited run was not charged an attempt.
    assert (report.completed, report.dead, report.retried) == (1, 0, 0)
    result = queue.result("api")
    assert result is not None and result.data == b"attempt 1"


@pytest.mark.parametrize("kind", ["thread", "asyncio"])
def test_a_handler_rate_limited_for_its_group_holds_only_that_group(
    queue: leaseq.Queue, kind: str
) -> None:
    queue.add(leaseq.Item(b"x", id="a1", group="a", max_attempts=1))
    queue.add_batch([leaseq.Item(b"x", id=f"b{i}", group="b") for i in range(3)])
    calls: list[tuple[str, int]] = []
    a_released = threading.Event()
    # What b0 saw once a1 was handed back: the queue's hold, and a's.
    seen: list[tuple[Any, Any]] = []

    def outcome(job: leaseq.worker.Job) -> str:
        calls.append((job.id, job.attempt))
        if job.id == "a1" and len(calls_of("a1")) == 1:
            raise leaseq.RateLimited(2, group=True)  # a's API answered 429
        return f"attempt {job.attempt}"

    def calls_of(id: str) -> list[int]:
        return [attempt for job_id, attempt in calls if job_id == id]

    def wait_for_a_held(job: leaseq.worker.Job) -> None:
        # b0 waits until a1 is handed back, so that b's items are taken during a's hold.
        if job.id == "b0":
            assert a_released.wait(timeout=30)
            seen.append(
                (queue.stats().rate_limited_for, queue.group("a").rate_limited_for)
            )

    def sync_handler(job: leaseq.worker.Job) -> str:
        wait_for_a_held(job)
        return outcome(job)

    async def async_handler(job: leaseq.worker.Job) -> str:
        await asyncio.get_running_loop().run_in_executor(None, wait_for_a_held, job)
        return outcome(job)

    worker = leaseq.Worker(
        queue, sync_handler if kind == "thread" else async_handler, concurrency=2
    )
    completed: list[str] = []

    def listener(name: str, job_id: Any, _detail: Any) -> None:
        if name == "released" and job_id == "a1":
            a_released.set()
        if name == "completed":
            completed.append(job_id)
            if len(completed) == 4:
                worker.stop()

    worker.on("*", listener)
    report = worker.run()
    [(queue_held, a_held)] = seen
    assert queue_held is None, "the queue was not held off"
    assert a_held is not None, "a was"
    assert completed == ["b0", "b1", "b2", "a1"], "b went on while a waited"
    # max_attempts 1, yet not dead: the rate-limited run was not charged an attempt.
    assert calls_of("a1") == [1, 1]
    assert (report.completed, report.dead, report.retried) == (4, 0, 0)
    result = queue.result("a1")
    assert result is not None and result.data == b"attempt 1"


def test_a_cancelled_job_is_told_its_lease_is_lost(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"x", id="long"))
    queue.add(leaseq.Item(b"x", id="long-async"))
    told: dict[str, bool] = {}
    started = threading.Barrier(3)  # both handlers and the canceller
    leased_past_ttl: list[int] = []

    reasons: dict[str, Any] = {}

    def handler(job: leaseq.worker.Job) -> None:
        started.wait(timeout=30)
        # Blocks past its lease TTL (the runner renews it) until told to stop: the one signal
        # of a timeout and of a lost lease.
        told[job.id] = job.cancelled.wait(timeout=60)
        reasons[job.id] = (
            job.cancel_reason,
            job.is_cancelled(),
            job.lost_event.is_set(),
        )

    worker = leaseq.Worker(
        queue, handler, concurrency=2, lease_ttl=1.0, renew_every=0.1
    )
    lost: list[tuple[str, Any]] = []
    worker.on("lease_lost", lambda job_id, why: lost.append((job_id, why)))

    def cancel_then_stop() -> None:
        started.wait(timeout=30)
        time.sleep(1.5)  # past the 1 s TTL: the runner renews the leases
        leased_past_ttl.append(queue.count(leaseq.State.LEASED))
        queue.cancel("long")
        queue.cancel("long-async")
        while len(told) < 2:
            time.sleep(0.01)
        worker.stop()

    canceller = threading.Thread(target=cancel_then_stop)
    canceller.start()
    report = worker.run()
    canceller.join()
    assert leased_past_ttl == [2], "renewed past the TTL"
    assert told == {"long": True, "long-async": True}
    assert reasons == {id: ("lease_lost", True, True) for id in told}
    assert report.lost == 2 and report.completed == 0
    # The event says why, as a RenewOutcome value.
    assert sorted(lost) == [("long", "cancelled"), ("long-async", "cancelled")]
    assert queue.get("long") is None


def test_async_handler_is_cancelled_when_its_lease_is_lost(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"x", id="a"))
    cancelled = threading.Event()
    running = threading.Event()

    async def handler(job: leaseq.worker.Job) -> None:
        running.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    worker = leaseq.Worker(queue, handler, renew_every=0.1)
    threading.Thread(target=lambda: (running.wait(30), queue.cancel("a"))).start()
    report = run_until(worker, lambda _n, _id: cancelled.is_set())
    assert cancelled.is_set()
    assert report.lost == 1


def timeout_outcomes(worker: leaseq.Worker) -> tuple[list[Any], list[Any]]:
    """The ``timed_out`` and ``retrying`` details a runner reports."""
    timed_out: list[Any] = []
    retrying: list[Any] = []
    worker.on("timed_out", lambda job_id, detail: timed_out.append((job_id, detail)))
    worker.on("retrying", lambda job_id, detail: retrying.append((job_id, detail[0])))
    return timed_out, retrying


def assert_dead_by_timeout(queue: leaseq.Queue, job_id: str, attempts: int) -> None:
    info = queue.get(job_id)
    assert info is not None and info.state == leaseq.State.DEAD
    assert info.attempts == attempts
    assert info.error_type == "timeout"
    assert info.error is not None and "timeout" in info.error


def test_a_handler_past_its_timeout_is_told_and_its_attempt_fails(
    queue: leaseq.Queue,
) -> None:
    queue.add(
        leaseq.Item(b"x", id="slow", max_attempts=2, backoff=leaseq.Backoff.fixed(0.01))
    )
    told: list[Any] = []

    def handler(job: leaseq.worker.Job) -> str:
        # Never done by itself: waits to be told, then claims success (which a timed-out
        # attempt cannot).
        job.cancelled.wait(timeout=60)
        told.append((job.is_cancelled(), job.cancel_reason, job.lease_lost))
        return "ok"

    worker = leaseq.Worker(queue, handler, job_timeout=0.2)
    timed_out, retrying = timeout_outcomes(worker)
    report = run_until(worker, lambda name, _id: name == "dead")
    assert told == [(True, "timeout", False)] * 2, "told of the timeout, lease held"
    assert [id for id, _ in timed_out] == ["slow", "slow"]
    assert all("timeout" in detail for _, detail in timed_out)
    assert len(retrying) == 1 and "timeout" in retrying[0][1]
    assert (report.completed, report.retried, report.dead, report.timed_out) == (
        0,
        1,
        1,
        2,
    )
    assert_dead_by_timeout(queue, "slow", 2)


def test_a_handler_told_of_its_timeout_learns_later_that_its_lease_is_lost(
    queue: leaseq.Queue,
) -> None:
    queue.add(leaseq.Item(b"x", id="slow"))
    seen: list[Any] = []
    told_once = threading.Event()

    def handler(job: leaseq.worker.Job) -> None:
        job.cancelled.wait(timeout=60)
        seen.append((job.cancel_reason, job.lease_lost, job.lost_event.is_set()))
        told_once.set()
        # Within the grace its lease is still renewed, until the cancel below.
        seen.append(job.lost_event.wait(timeout=60))
        seen.append((job.cancel_reason, job.lease_lost))

    def cancel_once_told() -> None:
        if told_once.wait(timeout=60):
            queue.cancel("slow")

    worker = leaseq.Worker(
        queue,
        handler,
        job_timeout=0.2,
        timeout_grace=60,
        lease_ttl=1.0,
        renew_every=0.1,
    )
    canceller = threading.Thread(target=cancel_once_told)
    canceller.start()
    report = run_briefly(worker, lambda name, _id: name == "lease_lost", seconds=30)
    canceller.join()
    deadline = time.monotonic() + 30
    while len(seen) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert seen == [
        ("timeout", False, False),
        True,
        ("timeout", True),
    ], "told of the timeout first, then that the lease is lost (the first reason kept)"
    assert (report.lost, report.timed_out, report.completed) == (1, 1, 0)


def test_an_async_handler_past_its_timeout_is_cancelled(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"x", id="slow", max_attempts=1))
    told: list[Any] = []

    async def handler(job: leaseq.worker.Job) -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            told.append(job.cancel_reason)
            raise

    worker = leaseq.Worker(queue, handler, job_timeout=0.2)
    report = run_until(worker, lambda name, _id: name == "dead")
    assert told == ["timeout"]
    assert (report.dead, report.timed_out) == (1, 1)
    assert_dead_by_timeout(queue, "slow", 1)


def test_a_handler_that_ignores_its_timeout_fails_after_the_grace(
    queue: leaseq.Queue,
) -> None:
    queue.add(leaseq.Item(b"x", id="stubborn", max_attempts=1))
    dead = threading.Event()
    ended: list[bool] = []

    def handler(job: leaseq.worker.Job) -> str:
        # Ignores the signal: returns only once the attempt is dead, then claims success.
        dead.wait(timeout=60)
        ended.append(job.is_cancelled())
        return "late"

    worker = leaseq.Worker(queue, handler, job_timeout=0.1, timeout_grace=0.1)
    timed_out, _ = timeout_outcomes(worker)
    worker.on("dead", lambda _id, _detail: dead.set())

    def stop_once_ended() -> None:
        while not ended and dead.wait(timeout=60):
            time.sleep(0.01)
        worker.stop()

    stopper = threading.Thread(target=stop_once_ended)
    stopper.start()
    report = worker.run()
    stopper.join()
    assert dead.is_set(), "dead while its handler still ran"
    assert ended == [True], "told, then ended"
    assert len(timed_out) == 1
    assert (report.completed, report.dead, report.timed_out) == (0, 1, 1)
    assert_dead_by_timeout(queue, "stubborn", 1)  # its late result changed nothing
    assert queue.result("stubborn") is None


def test_bad_timeouts_name_the_setting(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"x", id="a"))
    cases: list[dict[str, Any]] = [{"job_timeout": 0}, {"timeout_grace": 86400 * 2}]
    for options in cases:
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            leaseq.Worker(queue, lambda _job: None, **options).run()
        assert refused.value.argument == next(iter(options))
    assert queue.count(leaseq.State.WAITING) == 1


def test_shutdown_waits_then_releases_what_still_runs(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"x", id="quick"))
    queue.add(leaseq.Item(b"x", id="stuck"))
    both = threading.Barrier(3)
    release_quick = threading.Event()
    stuck_told = threading.Event()

    def handler(job: leaseq.worker.Job) -> None:
        both.wait(timeout=30)
        if job.id == "stuck":
            stuck_told.set() if job.lost_event.wait(timeout=60) else None
            return
        release_quick.wait(timeout=30)

    worker = leaseq.Worker(queue, handler, concurrency=2, shutdown_timeout=0.5)

    def stop_when_busy() -> None:
        both.wait(timeout=30)
        worker.stop()
        release_quick.set()

    threading.Thread(target=stop_when_busy).start()
    report = worker.run()
    assert (report.completed, report.released) == (1, 1)
    assert stuck_told.wait(timeout=30), "the stuck handler was told"
    stuck = queue.get("stuck")
    assert (
        stuck is not None
        and stuck.state == leaseq.State.WAITING
        and stuck.attempts == 0
    )


def run_briefly(
    worker: leaseq.Worker, done: Any, seconds: float = 10.0
) -> leaseq.WorkerReport:
    """Like `run_until`, and stops anyway after `seconds`: a runner that wedges fails the test's
    asserts instead of hanging it."""
    timer = threading.Timer(seconds, worker.stop)
    timer.start()
    try:
        return run_until(worker, done)
    finally:
        timer.cancel()


def run_n(queue: leaseq.Queue, n: int, **options: Any) -> leaseq.WorkerReport:
    """Runs a runner over `n` fresh items until each has completed."""
    fill(queue, n)
    completed = [0]

    def done(name: str, _id: Any) -> bool:
        completed[0] += name == "completed"
        return completed[0] == n

    worker = leaseq.Worker(
        queue, lambda _job: None, concurrency=4, housekeeping=False, **options
    )
    return run_briefly(worker, done, seconds=60)


def test_a_runner_with_stats_turns_the_queues_counters_on(queue: leaseq.Queue) -> None:
    assert queue.stats().last_hour is None  # off by default
    report = run_n(queue, 15, stats=True)
    assert report.completed == 15
    assert queue.config().stats is True
    stats = queue.stats()
    assert stats.minutes is not None
    assert stats.last_hour is not None
    assert stats.last_hour.completed == 15  # every complete the runner made counts
    with pytest.raises(leaseq.InvalidArgumentTypeError) as info:
        leaseq.Worker(queue, lambda _job: None, stats=1).run()  # type: ignore[arg-type]
    assert info.value.argument == "stats"


def test_a_runner_without_stats_leaves_the_configuration_alone(
    queue: leaseq.Queue, prefix: str, r: redis.Redis
) -> None:
    report = run_n(queue, 5)
    assert report.completed == 5
    assert r.exists(f"{prefix}:config") == 0  # nothing written
    assert queue.stats().last_hour is None


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_result_that_cannot_be_encoded_fails_the_attempt(
    queue: leaseq.Queue, kind: str
) -> None:
    """A set is not JSON: the attempt fails with the TypeError (retried with the backoff, then
    dead) and frees its slot: with one slot, the next item runs meanwhile."""
    queue.add(
        leaseq.Item(b"x", id="set", max_attempts=2, backoff=leaseq.Backoff.fixed(0.01))
    )
    queue.add(leaseq.Item(b"x", id="next"))

    def result(job: leaseq.worker.Job) -> Any:
        return {1, 2} if job.id == "set" else "fine"

    async def async_handler(job: leaseq.worker.Job) -> Any:
        return result(job)

    handler = result if kind == "sync" else async_handler
    seen: list[str] = []

    def done(name: str, job_id: Any) -> bool:
        seen.append(f"{name} {job_id}")
        return "dead set" in seen and "completed next" in seen

    report = run_briefly(
        leaseq.Worker(queue, handler, concurrency=1, shutdown_timeout=0.5), done
    )
    assert (report.completed, report.retried, report.dead) == (1, 1, 1), seen
    job = queue.get("set")
    assert job is not None and job.state == leaseq.State.DEAD
    assert job.error_type == "TypeError"
    assert job.error is not None and "set is not JSON serializable" in job.error
    assert "encoded" in job.error, (
        "says it was the result, not the handler, that failed"
    )
    assert queue.count(leaseq.State.LEASED) == 0


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_result_not_kept_is_not_encoded(queue: leaseq.Queue, kind: str) -> None:
    """With keep_results=False the return value is thrown away unread: a set completes."""
    queue.add(leaseq.Item(b"x", id="set"))

    def handler(_job: leaseq.worker.Job) -> Any:
        return {1, 2}

    async def async_handler(_job: leaseq.worker.Job) -> Any:
        return {1, 2}

    report = run_briefly(
        leaseq.Worker(
            queue,
            handler if kind == "sync" else async_handler,
            keep_results=False,
            shutdown_timeout=0.5,
        ),
        lambda name, _id: name in ("completed", "retrying", "dead"),
    )
    assert report.completed == 1, report
    assert queue.get("set") is None and settled(queue)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_outcome_the_core_refuses_fails_the_attempt_with_the_reason(
    queue: leaseq.Queue, kind: str
) -> None:
    """A negative RetryLater delay cannot be carried to the core: the attempt fails with the
    error saying why, never with a generic one and never left leased."""
    queue.add(leaseq.Item(b"x", id="bad", max_attempts=1))

    def handler(_job: leaseq.worker.Job) -> None:
        raise leaseq.RetryLater("slow down", delay=-1)

    async def async_handler(job: leaseq.worker.Job) -> None:
        handler(job)

    report = run_briefly(
        leaseq.Worker(
            queue,
            handler if kind == "sync" else async_handler,
            shutdown_timeout=0.5,
        ),
        lambda name, _id: name in ("retrying", "dead"),
    )
    assert report.dead == 1, report
    job = queue.get("bad")
    assert job is not None and job.error_type == "InvalidArgumentError"
    assert job.error is not None and "retry_after" in job.error


def restart(server: Server) -> None:
    assert server.process.stdin is not None and server.process.stdout is not None
    server.process.stdin.write("restart\n")
    server.process.stdin.flush()
    assert server.process.stdout.readline().strip() == "restarted"


@pytest.mark.parametrize("fault", ["restart", "client kill"])
def test_a_busy_runner_rides_through(fresh_server: Server, fault: str) -> None:
    with leaseq.Client(fresh_server.url) as client:
        queue = client.queue(new_prefix())
        ids = fill(queue, 300)
        handled: set[str] = set()
        errors: list[Any] = []

        def handler(job: leaseq.worker.Job) -> None:
            time.sleep(0.002)
            handled.add(job.id)

        worker = leaseq.Worker(queue, handler, concurrency=8, lease_ttl=2.0)
        worker.on("error", lambda _id, detail: errors.append(detail))
        struck = threading.Event()

        def fault_then_watch() -> None:
            while len(handled) < 80:
                time.sleep(0.01)
            if fault == "restart":
                restart(fresh_server)
            else:
                redis.Redis.from_url(fresh_server.url).client_kill_filter(
                    _type="normal"
                )
            struck.set()
            while not (handled >= ids and settled_quietly(queue)):
                time.sleep(0.05)
            worker.stop()

        threading.Thread(target=fault_then_watch).start()
        report = worker.run()
        assert struck.is_set()
        assert handled == ids, "every item ran"
        assert settled(queue), "and every item is done"
        # A restart is always noticed; a killed idle connection may be replaced unseen.
        assert errors or fault != "restart", "the runner noticed the restart"
        assert report.completed >= 200


def test_a_runner_started_while_redis_is_down_waits_for_it(
    fresh_server: Server,
) -> None:
    """As a running runner rides through an outage, one started during it waits for Redis:
    bad settings are refused first; ``stop()`` from another thread or SIGTERM ends the wait
    (an empty report); the outage is an ``error`` event (step ``connect``) and a log line, and
    Redis's return a ``recovered``, after which the runner serves the queue."""
    with leaseq.Client(fresh_server.url) as client:
        queue = client.queue(new_prefix())
        server_says(fresh_server, "down")

        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            leaseq.Worker(queue, lambda _job: None, weights=[1, 2]).run()
        assert refused.value.argument == "weights"
        with pytest.raises(leaseq.InvalidArgumentError) as refused:
            leaseq.Worker([queue, queue], lambda _job: None).run()
        assert refused.value.argument == "queue"

        events: list[tuple[str, Any]] = []
        worker = leaseq.Worker(queue, lambda _job: None)
        worker.on("*", lambda name, _id, detail: events.append((name, detail)))
        stopper = threading.Timer(0.5, worker.stop)
        stopper.start()
        assert worker.run() == leaseq.WorkerReport(0, 0, 0, 0, 0, 0)
        stopper.join()
        assert [name for name, _ in events] == ["error"], events
        step, code, message = events[0][1]
        assert (step, code) == ("connect", "CONNECTION"), events
        assert "refused" in message, message

        # One run at a time: a second at once is refused, and the first goes on.
        second: list[BaseException] = []

        def run_again() -> None:
            time.sleep(0.2)
            try:
                worker.run()
            except RuntimeError as error:
                second.append(error)
            finally:
                worker.stop()

        again = threading.Thread(target=run_again)
        again.start()
        assert worker.run() == leaseq.WorkerReport(0, 0, 0, 0, 0, 0)
        again.join()
        assert len(second) == 1 and "running already" in str(second[0])

        # The same worker again: a stop from another thread reaches this wait too.
        stopper = threading.Timer(0.5, worker.stop)
        stopper.start()
        assert worker.run() == leaseq.WorkerReport(0, 0, 0, 0, 0, 0)
        stopper.join()

        # SIGTERM while it waits (the handler runs on this, the main, thread).
        assert threading.current_thread() is threading.main_thread()
        worker = leaseq.Worker(queue, lambda _job: None)
        killer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM))
        killer.start()
        assert worker.run() == leaseq.WorkerReport(0, 0, 0, 0, 0, 0)
        killer.join()


def test_a_runner_waiting_for_redis_starts_once_it_answers(
    fresh_server: Server,
) -> None:
    """Redis back a second later (empty): ``recovered`` (step ``connect``), then the runner
    starts and serves the queue."""
    with leaseq.Client(fresh_server.url) as client:
        queue = client.queue(new_prefix())
        server_says(fresh_server, "down")
        events: list[tuple[str, Any]] = []
        handled: list[str] = []

        def handler(job: leaseq.worker.Job) -> None:
            handled.append(job.id)
            worker.stop()

        def bring_back_then_add() -> None:
            time.sleep(1)
            server_says(fresh_server, "up")
            while True:
                try:
                    queue.add(leaseq.Item(b"x", id="after"))
                    return
                except leaseq.LeaseqError:
                    time.sleep(0.05)

        worker = leaseq.Worker(queue, handler)
        worker.on("*", lambda name, _id, detail: events.append((name, detail)))
        adder = threading.Thread(target=bring_back_then_add)
        adder.start()
        report = worker.run()
        adder.join()
        assert handled == ["after"]
        assert report.completed == 1
        assert [name for name, _ in events][:2] == ["error", "recovered"], events
        assert events[1][1] == "connect"


def settled_quietly(queue: leaseq.Queue) -> bool:
    try:
        return settled(queue)
    except leaseq.LeaseqError:
        return False


HANDLERS = textwrap.dedent(
    """
    import os, time

    def slow(job):
        with open(os.environ["MARK"], "a") as f:
            f.write(job.id + "\\n")
        time.sleep(float(os.environ.get("SLEEP", "0.05")))
    """
)


def start_cli_worker(
    tmp_path: Path, url: str, prefix: str | list[str], mark: Path, sleep: str
) -> subprocess.Popen[str]:
    """``python -m leaseq worker`` over `prefix` (a list: one ``--queue`` each)."""
    (tmp_path / "handlers_mod.py").write_text(HANDLERS)
    env = dict(os.environ, MARK=str(mark), SLEEP=sleep, PYTHONPATH=str(tmp_path))
    prefixes = [prefix] if isinstance(prefix, str) else prefix
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "leaseq",
            "worker",
            "handlers_mod:slow",
            *[arg for p in prefixes for arg in ("--queue", p)],
            "--url",
            url,
            "--concurrency",
            "4",
            "--lease-ttl",
            "1",
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_python_m_leaseq_worker_drains_on_sigterm(
    tmp_path: Path, client: leaseq.Client, url: str
) -> None:
    prefix = new_prefix()
    queue = client.queue(prefix)
    fill(queue, 200)
    mark = tmp_path / "ran"
    proc = start_cli_worker(tmp_path, url, prefix, mark, "0.05")
    while not mark.exists() or len(mark.read_text().split()) < 10:
        assert proc.poll() is None, proc.communicate()[0]
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    # The runner's start line at INFO (queue, URL, concurrency), its stop line with the report.
    assert (
        "INFO leaseq.worker: runner " in out and f"started: queue {prefix} on " in out
    ), out
    assert "stopped:" in out, out
    # Graceful: what started finished; nothing is left leased.
    assert queue.count(leaseq.State.LEASED) == 0, out


def test_a_killed_runner_loses_nothing(
    tmp_path: Path, client: leaseq.Client, url: str
) -> None:
    prefix = new_prefix()
    queue = client.queue(prefix)
    ids = fill(queue, 60)
    mark = tmp_path / "ran"
    proc = start_cli_worker(tmp_path, url, prefix, mark, "0.2")
    while not mark.exists() or len(mark.read_text().split()) < 8:
        assert proc.poll() is None, proc.communicate()[0]
        time.sleep(0.02)
    proc.kill()
    proc.communicate(timeout=30)
    # A second runner finishes everything, the killed one's leases included (they expire).
    second = start_cli_worker(tmp_path, url, prefix, mark, "0")
    try:
        deadline = time.monotonic() + 90
        while not settled(queue):
            assert time.monotonic() < deadline, "not drained"
            assert second.poll() is None, second.communicate()[0]
            time.sleep(0.1)
    finally:
        second.send_signal(signal.SIGTERM)
        second.communicate(timeout=60)
    assert set(mark.read_text().split()) == ids
    assert queue.count(leaseq.State.DEAD) == 0


def run_two(
    client: leaseq.Client, per_queue: int, **options: Any
) -> tuple[list[str], leaseq.Queue, leaseq.Queue]:
    """A runner over two fresh queues, concurrency 1, until it completed `per_queue` items
    (``a0``.., ``b0``..) of each: the ids in the order it completed them, and the queues."""
    first, second = client.queue(new_prefix()), client.queue(new_prefix())
    fill(first, per_queue, "a")
    fill(second, per_queue, "b")
    completed: list[str] = []

    def done(name: str, job_id: Any) -> bool:
        if name == "completed":
            completed.append(job_id)
        return len(completed) == 2 * per_queue

    worker = leaseq.Worker(
        [first, second],
        lambda job: job.queue_prefix,
        concurrency=1,
        housekeeping=False,
        **options,
    )
    run_briefly(worker, done, seconds=60)
    return completed, first, second


def test_a_runner_over_two_queues_takes_them_in_strict_order(
    client: leaseq.Client,
) -> None:
    completed, first, second = run_two(client, 4)
    assert completed == ["a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3"], (
        "the second queue only once the first is empty"
    )
    # Each job was finished in its own queue, its result (the handler's job.queue_prefix) there.
    for queue, job_id in ((first, "a1"), (second, "b1")):
        result = queue.result(job_id)
        assert result is not None and result.data == queue.prefix.encode()
        assert settled(queue)


@pytest.mark.parametrize(("weights", "from_first"), [([3, 1], 6), ([1, 3], 2)])
def test_weights_set_the_proportion_of_each_queue(
    client: leaseq.Client, weights: list[int], from_first: int
) -> None:
    completed, _, _ = run_two(client, 6, weights=weights)
    assert sorted(completed) == sorted(
        [f"a{i}" for i in range(6)] + [f"b{i}" for i in range(6)]
    )
    first_eight = completed[:8]
    assert sum(1 for i in first_eight if i.startswith("a")) == from_first, completed


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_added_item_wakes_a_runner_over_either_queue(
    client: leaseq.Client, r: redis.Redis, kind: str
) -> None:
    first, second = client.queue(new_prefix()), client.queue(new_prefix())
    seen: list[tuple[str, str]] = []

    def handler(job: leaseq.worker.Job) -> None:
        seen.append((job.id, job.queue_prefix))

    async def async_handler(job: leaseq.worker.Job) -> None:
        handler(job)

    worker = leaseq.Worker(
        (first, second),
        handler if kind == "sync" else async_handler,
        poll_interval=30,
    )
    blocked = blocked_clients(r)

    def add_both() -> None:
        wait_until_blocked(r, blocked)  # waiting on both queues at once
        second.add(leaseq.Item(b"x", id="late-b"))
        first.add(leaseq.Item(b"x", id="late-a"))

    threading.Thread(target=add_both).start()
    completed: list[str] = []

    def done(name: str, job_id: Any) -> bool:
        completed.append(job_id) if name == "completed" else None
        return len(completed) == 2

    report = run_briefly(worker, done, seconds=60)
    assert report.completed == 2
    assert sorted(seen) == sorted([("late-a", first.prefix), ("late-b", second.prefix)])


def test_bad_queues_and_weights_are_refused_naming_the_argument(
    client: leaseq.Client, url: str, queue: leaseq.Queue, r: redis.Redis
) -> None:
    queue.add(leaseq.Item(b"x", id="a"))
    other = client.queue(new_prefix())
    with leaseq.Client(url) as elsewhere:
        cases: list[tuple[Any, dict[str, Any], str]] = [
            ([], {}, "queue"),
            ([queue, queue], {}, "queue"),
            ([queue, elsewhere.queue(new_prefix())], {}, "queue"),
            ([queue, other], {"weights": [1]}, "weights"),
            ([queue, other], {"weights": [1, 0]}, "weights"),
            ([queue, other], {"weights": [1, 1001]}, "weights"),
            ([queue, other], {"weights": [1, -1]}, "weights"),
            ([queue] * 65, {}, "queue"),
        ]
        for queues, options, argument in cases:
            with pytest.raises(leaseq.InvalidArgumentError) as refused:
                leaseq.Worker(queues, lambda _job: None, **options).run()
            assert refused.value.argument == argument, (queues, options)
            assert f"`{argument}`" in str(refused.value)
        wrong_types: list[tuple[Any, dict[str, Any], str]] = [
            ([queue, "not a queue"], {}, "queue"),
            ("not a queue", {}, "queue"),
            ([queue, other], {"weights": "3,1"}, "weights"),
        ]
        for queues, options, argument in wrong_types:
            with pytest.raises(leaseq.InvalidArgumentTypeError) as wrong:
                leaseq.Worker(queues, lambda _job: None, **options).run()
            assert wrong.value.argument == argument, (queues, options)
    # Nothing ran, nothing was registered: the other queue has no key at all.
    item = queue.get("a")
    assert (
        item is not None and item.state == leaseq.State.WAITING and item.attempts == 0
    )
    assert r.keys(f"{other.prefix}*") == []


def test_python_m_leaseq_worker_serves_several_queues(
    tmp_path: Path, client: leaseq.Client, url: str
) -> None:
    first, second = new_prefix(), new_prefix()
    ids = fill(client.queue(first), 20, "a") | fill(client.queue(second), 20, "b")
    mark = tmp_path / "ran"
    proc = start_cli_worker(tmp_path, url, [first, second], mark, "0")
    try:
        deadline = time.monotonic() + 60
        while not (settled(client.queue(first)) and settled(client.queue(second))):
            assert time.monotonic() < deadline, "not drained"
            assert proc.poll() is None, proc.communicate()[0]
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert set(mark.read_text().split()) == ids


def test_a_runner_logs_on_leaseq_worker_and_keeps_each_failures_traceback(
    url: str, r: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    """The start line names the queue and the server without the password; a failure's line has
    its id, attempt and error; a success writes nothing at INFO; the traceback is kept."""
    r.execute_command(  # type: ignore[no-untyped-call]
        "ACL", "SETUSER", "pylogger", "on", ">hunter2", "~*", "&*", "+@all"
    )
    prefix = new_prefix()
    caplog.set_level(logging.INFO, logger="leaseq")

    def parse(text: str) -> None:
        raise ValueError(f"cannot parse {text}")

    def handler(job: leaseq.worker.Job) -> None:
        if job.id == "bad":
            try:
                parse(job.data.decode())
            except ValueError as e:
                raise RuntimeError("bad input") from e

    with leaseq.Client(url.replace("redis://", "redis://pylogger:hunter2@")) as c:
        queue = c.queue(prefix)
        queue.add(leaseq.Item(b"x", id="ok"))
        queue.add(leaseq.Item(b"x", id="bad", max_attempts=1))
        ended: set[str] = set()

        def done(name: str, job_id: Any) -> bool:
            if name in ("completed", "dead"):
                ended.add(job_id)
            return len(ended) == 2

        report = run_until(leaseq.Worker(queue, handler, concurrency=2), done)
        assert (report.completed, report.dead) == (1, 1)
        job = queue.get("bad")
    records = [rec for rec in caplog.records if rec.name == "leaseq.worker"]
    lines = [rec.getMessage() for rec in records]
    text = "\n".join(lines)
    assert "hunter2" not in text and "pylogger" not in text, text
    assert records[0].levelno == logging.INFO, text
    assert f"started: queue {prefix} on redis://127.0.0.1:" in lines[0], text
    assert "concurrency 2" in lines[0], text
    [failure] = [rec for rec in records if "job bad" in rec.getMessage()]
    assert failure.levelno == logging.ERROR
    assert failure.getMessage() == "job bad failed (attempt 1) and is dead: bad input"
    assert not any("job ok" in line for line in lines), text
    assert records[-1].levelno == logging.INFO
    assert "stopped: 1 completed, 0 retried, 1 dead" in lines[-1], text

    assert job is not None and job.trace is not None
    assert job.trace.startswith("Traceback (most recent call last):"), job.trace
    assert "in parse" in job.trace and "ValueError: cannot parse x" in job.trace
    assert job.trace.rstrip().endswith("RuntimeError: bad input"), job.trace


def test_a_success_is_logged_at_debug_only(
    queue: leaseq.Queue, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="leaseq.worker")
    queue.add(leaseq.Item(b"x", id="fine"))
    run_until(
        leaseq.Worker(queue, lambda job: None), lambda name, _id: name == "completed"
    )
    debug = [rec.getMessage() for rec in caplog.records if rec.levelno == logging.DEBUG]
    assert "job fine completed (attempt 1)" in debug, caplog.text


def test_fail_keeps_a_trace_given_or_the_exceptions(queue: leaseq.Queue) -> None:
    queue.add_batch([leaseq.Item(b"x", id=i, max_attempts=1) for i in "abc"])
    leases = {lease.id: lease for lease in queue.lease_batch(3)}
    try:
        raise KeyError("missing")
    except KeyError as e:
        raised = e
    queue.fail(leases["a"], raised)
    queue.fail(leases["b"], "plain", trace="my trace")
    queue.fail_batch([leaseq.Failure(leases["c"], "batched", trace="batch trace")])
    a, b, c = (queue.get(i) for i in "abc")
    assert a is not None and a.trace is not None
    assert a.trace.startswith("Traceback") and "KeyError: 'missing'" in a.trace
    assert b is not None and b.trace == "my trace"
    assert c is not None and c.trace == "batch trace"
