"""The job lifecycle (protocol v2) through the sync API: delays, priorities, retries, dead
letters, results, progress, cancel, incarnations, the read API and the queue's configuration."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

import leaseq
import pytest
import redis
from conftest import blocked_clients, wait_until_blocked

UTC = timezone.utc


def leased(queue: leaseq.Queue, **kwargs: object) -> leaseq.Lease:
    lease = queue.lease(**kwargs)  # type: ignore[arg-type]
    assert lease is not None
    return lease


# ---- defaults, durations and times ------------------------------------------------------


def test_the_defaults_are_the_cores() -> None:
    assert leaseq.DEFAULT_TTL == timedelta(seconds=30)
    assert leaseq.DEFAULT_MAX_ATTEMPTS == 25
    assert leaseq.DEFAULT_BACKOFF == leaseq.Backoff.exponential(1, 3600)
    assert leaseq.DEFAULT_KEEP_RESULT == timedelta(days=1)
    assert leaseq.MAX_PRIORITY == 1000 and leaseq.MAX_PAGE == 1000
    assert leaseq.FOREVER == float("inf")


def test_lease_uses_the_default_ttl_and_does_not_wait(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    assert queue.lease() is None  # an empty queue: no wait by default
    queue.add(leaseq.Item(b"x", id="d"))
    lease = leased(queue)
    assert 25_000 < r.pttl(f"{queue.prefix}:lease:d") <= 30_000
    assert lease.max_attempts == leaseq.DEFAULT_MAX_ATTEMPTS
    assert lease.backoff == leaseq.DEFAULT_BACKOFF


def test_durations_are_seconds_or_timedeltas(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    queue.add(leaseq.Item(b"x", id="t"))
    lease = leased(queue, ttl=timedelta(seconds=100))
    assert 95_000 < r.pttl(f"{queue.prefix}:lease:t") <= 100_000
    assert queue.renew(lease, timedelta(minutes=5))
    assert 295_000 < r.pttl(f"{queue.prefix}:lease:t") <= 300_000
    assert queue.renew(lease, 7.5)
    assert 7_000 < r.pttl(f"{queue.prefix}:lease:t") <= 7_500
    job = queue.get("t")
    assert job is not None and job.lease_ttl is not None
    assert timedelta(seconds=7) < job.lease_ttl <= timedelta(seconds=7.5)


def test_lease_waits_only_when_asked(queue: leaseq.Queue) -> None:
    def add_later() -> None:
        threading.Event().wait(0.3)
        queue.add(leaseq.Item(b"late", id="late"))

    assert queue.lease(timeout=timedelta(milliseconds=50)) is None
    t = threading.Thread(target=add_later)
    t.start()
    lease = queue.lease(timeout=leaseq.FOREVER)
    t.join()
    assert lease is not None and lease.id == "late"


# ---- delays, priorities, expiry ---------------------------------------------------------


def test_delay_and_run_at(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"a", id="later", delay=timedelta(minutes=1)))
    at = datetime(2100, 1, 1, 12, 0, 0, 123_000, tzinfo=UTC)
    queue.add(leaseq.Item(b"b", id="at", run_at=at))
    # Another time zone is the same instant.
    cet = timezone(timedelta(hours=1))
    queue.add(leaseq.Item(b"c", id="cet", run_at=at.astimezone(cet)))
    assert queue.lease() is None
    assert queue.count("delayed") == 3 and queue.count(leaseq.State.WAITING) == 0
    job = queue.get("later")
    assert job is not None and job.state == "delayed"
    assert job.added_at is not None and job.due_at is not None
    assert job.due_at - job.added_at == timedelta(minutes=1)
    assert job.added_at.tzinfo is not None and job.added_at.utcoffset() == timedelta(0)
    for item_id in ("at", "cet"):
        other = queue.get(item_id)
        assert other is not None and other.due_at == at
    entries = queue.list("delayed")
    assert [e.id for e in entries] == ["later", "at", "cet"]
    assert entries[1].at == at and entries[1].attempts == 0 and entries[1].error is None


def test_a_short_delay_becomes_leasable(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"soon", id="soon", delay=0.1))
    assert queue.lease() is None
    # The waiting lease wakes when the item is due.
    lease = leased(queue, timeout=10)
    assert lease.id == "soon"


def test_priorities(queue: leaseq.Queue) -> None:
    queue.add_batch(
        [
            leaseq.Item(b"", id="zero"),
            leaseq.Item(b"", id="high-1", priority=10),
            leaseq.Item(b"", id="low", priority=-5),
            leaseq.Item(b"", id="high-2", priority=10),
            leaseq.Item(b"", id="top", priority=leaseq.MAX_PRIORITY),
        ]
    )
    assert [e.id for e in queue.list("waiting")] == [
        "top",
        "high-1",
        "high-2",
        "zero",
        "low",
    ]
    assert [e.id for e in queue.list("waiting", start=1, count=2)] == [
        "high-1",
        "high-2",
    ]
    order = [lease.id for lease in queue.lease_batch(10)]
    assert order == ["top", "high-1", "high-2", "zero", "low"]
    job = queue.get("low")
    assert job is not None and job.priority == -5


def test_expires_after(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"x", id="stale", expires_after=0.05))
    time.sleep(0.2)  # past its expiry: nobody leased it
    assert queue.lease() is None
    job = queue.get("stale")
    assert job is not None and job.state == "dead" and job.dead_reason


# ---- fail, retry, dead letters ----------------------------------------------------------


def test_fail_retries_after_the_backoff_then_dies(queue: leaseq.Queue) -> None:
    queue.set_config(stats=True)  # the per-minute counters, checked at the end
    queue.add(
        leaseq.Item(b"x", id="f", max_attempts=2, backoff=leaseq.Backoff.fixed(0))
    )
    first = leased(queue)
    assert (first.attempt, first.max_attempts) == (1, 2)
    assert first.backoff == leaseq.Backoff.fixed(timedelta(0))
    outcome = queue.fail(first, "boom", "IOError")
    assert outcome.retrying and not outcome.dead and outcome.name == "retrying"
    assert str(outcome) == "retrying" and outcome.retry_in == timedelta(0)
    assert outcome.not_held is None
    second = leased(queue)
    assert second.attempt == 2 and second.count == 2
    outcome = queue.fail(second, ValueError("bad value"))
    assert outcome.dead and outcome.name == "dead" and outcome.retry_in is None
    job = queue.get("f")
    assert job is not None and job.state == leaseq.State.DEAD
    assert (job.error, job.error_type, job.attempts) == ("bad value", "ValueError", 2)
    assert job.dead_reason and job.finished_at is not None
    [entry] = queue.list("dead")
    assert (entry.id, entry.error, entry.error_type) == ("f", "bad value", "ValueError")
    assert entry.at == job.finished_at
    stats = queue.stats()
    assert stats.last_hour is not None
    assert (stats.dead, stats.last_hour.failed, stats.last_hour.dead) == (1, 2, 1)
    # Requeued with its attempts reset.
    assert queue.dead_requeue(["f", "not-dead"]) == 1
    again = leased(queue)
    assert (again.id, again.attempt) == ("f", 1)


def test_retry_after_a_delay_or_never(queue: leaseq.Queue) -> None:
    queue.add_batch([leaseq.Item(b"", id="later"), leaseq.Item(b"", id="never")])
    outcome = queue.fail(leased(queue), "slow down", retry=timedelta(hours=1))
    assert outcome.retrying and outcome.retry_in == timedelta(hours=1)
    assert [e.id for e in queue.list("delayed")] == ["later"]
    outcome = queue.fail(leased(queue), "unrecoverable", retry=False)
    assert outcome.dead
    job = queue.get("never")
    assert job is not None and job.state == "dead" and job.attempts == 1
    assert job.error_type == ""  # a message alone has no type


def test_an_exception_gives_message_and_type(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"", id="e"))
    lease = leased(queue)
    queue.fail(lease, KeyError("k"), retry=0.0)
    job = queue.get("e")
    assert job is not None and (job.error, job.error_type) == ("'k'", "KeyError")
    lease = leased(queue)
    queue.fail(lease, RuntimeError("r"), "Custom", retry=0.0)
    job = queue.get("e")
    assert job is not None and (job.error, job.error_type) == ("r", "Custom")


def test_fail_of_a_lease_no_longer_held_changes_nothing(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"", id="gone"))
    lease = leased(queue)
    assert queue.complete(lease)
    outcome = queue.fail(lease, "too late")
    assert not outcome.retrying and not outcome.dead
    assert outcome.name == "completed"
    assert outcome.not_held is leaseq.RenewOutcome.COMPLETED


def test_dead_requeue_oldest_and_purge(queue: leaseq.Queue) -> None:
    queue.add_batch([leaseq.Item(b"", id=f"d{i}") for i in range(4)])
    for lease in queue.lease_batch(4):
        assert queue.fail(lease, "no", retry=False).dead
    assert queue.count("dead") == 4
    assert queue.dead_requeue_oldest(1) == 1
    assert [e.id for e in queue.list("waiting")] == ["d0"]
    assert queue.dead_purge(1) == 1
    assert [e.id for e in queue.list("dead")] == ["d2", "d3"]
    assert queue.dead_purge() == 2
    assert queue.dead_requeue_oldest() == 0
    assert queue.count("dead") == 0 and queue.get("d3") is None


# ---- release, progress, renew outcomes, cancel, incarnations -----------------------------


def test_release_gives_the_attempt_back(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"", id="r"))
    assert queue.release(leased(queue)) is True
    lease = leased(queue)
    assert lease.attempt == 1
    assert queue.release(lease, delay=timedelta(hours=1)) is True
    assert queue.count("delayed") == 1 and queue.lease() is None
    assert queue.release(lease) is False  # no longer held


def test_progress(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"", id="p"))
    lease = leased(queue)
    assert queue.progress(lease, "50%") is True
    job = queue.get("p")
    assert job is not None and job.progress == b"50%"
    assert queue.progress(lease, b"\x00\xff") is True
    job = queue.get("p")
    assert job is not None and job.progress == b"\x00\xff"
    queue.complete(lease)
    assert queue.progress(lease, "late") is False


def test_renew_outcomes(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"", id="o"))
    lease = leased(queue, ttl=0.05)
    assert queue.renew_outcome(lease, 0.05) is leaseq.RenewOutcome.RENEWED
    assert queue.renew_outcome(lease, 0.05) == "renewed"
    time.sleep(0.2)
    assert queue.renew_outcome(lease) is leaseq.RenewOutcome.EXPIRED
    other = leased(queue)
    assert queue.renew_outcome(lease) is leaseq.RenewOutcome.TAKEN
    assert queue.complete(other)
    assert queue.renew_outcome(lease) is leaseq.RenewOutcome.COMPLETED
    assert {o.value for o in leaseq.RenewOutcome} == {
        "renewed",
        "expired",
        "taken",
        "completed",
        "cancelled",
        "older_incarnation",
    }


def test_cancel(queue: leaseq.Queue) -> None:
    queue.add_batch(
        [
            leaseq.Item(b"", id="w"),
            leaseq.Item(b"", id="later", delay=60),
            leaseq.Item(b"", id="busy", priority=1),
        ]
    )
    busy = leased(queue)
    assert busy.id == "busy"
    assert queue.cancel("w") is leaseq.State.WAITING
    assert queue.cancel("later") == "delayed"
    assert queue.cancel("busy") is leaseq.State.LEASED
    assert queue.cancel("nothing") is None
    job = queue.get("busy")
    assert job is not None and job.cancelled
    assert queue.renew_outcome(busy) is leaseq.RenewOutcome.CANCELLED
    assert queue.complete(busy) is False
    assert queue.get("w") is None and queue.get("later") is None


def test_incarnations(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"one", id="i"))
    old = leased(queue, ttl=0.05)
    time.sleep(0.2)  # the lease expires; another worker completes the item
    assert queue.complete(leased(queue))
    queue.add(leaseq.Item(b"two", id="i"))
    new = leased(queue)
    assert new.incarnation != old.incarnation and new.attempt == 1
    assert queue.renew_outcome(old) is leaseq.RenewOutcome.OLDER_INCARNATION
    assert queue.complete(old) is False
    assert queue.complete(new) is True


def test_lease_from_parts(client: leaseq.Client, queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"", id="parts"))
    lease = leased(queue)
    # Another process (here: another client) rebuilds it from what was handed over.
    other = client.queue(queue.prefix)
    rebuilt = other.lease_from_parts(
        lease.id, lease.token, lease.incarnation, lease.attempt
    )
    assert (rebuilt.id, rebuilt.token, rebuilt.incarnation, rebuilt.attempt) == (
        lease.id,
        lease.token,
        lease.incarnation,
        lease.attempt,
    )
    assert rebuilt.queue_prefix == queue.prefix and rebuilt.data == b""
    assert other.renew(rebuilt) and other.complete(rebuilt)
    assert queue.complete(lease) is False


def test_lease_attributes(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item.from_json({"n": 1}, id="attrs", max_attempts=3))
    lease = leased(queue)
    assert (lease.id, lease.id_bytes, lease.json()) == ("attrs", b"attrs", {"n": 1})
    assert (lease.attempt, lease.count, lease.max_attempts) == (1, 1, 3)
    assert lease.incarnation and lease.token and lease.queue_prefix == queue.prefix
    assert "attempt=1" in repr(lease)


# ---- results ----------------------------------------------------------------------------


def test_complete_with_a_result(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"in", id="res"))
    lease = leased(queue)
    assert queue.result("res") is None
    before = datetime.now(UTC) - timedelta(minutes=5)
    assert queue.complete(lease, result='{"ok": true}') is True
    result = queue.result("res")
    assert result is not None and result.data == b'{"ok": true}'
    assert result.json() == {"ok": True} and result.attempts == 1
    assert before < result.finished_at < before + timedelta(minutes=10)
    job = queue.get("res")
    assert job is not None and job.state is leaseq.State.DONE and job.data == b""
    assert job.result == result
    assert queue.wait_result("res", 5) == result
    assert queue.complete(lease, result=b"twice") is False


def test_a_done_job_shows_what_its_result_kept(queue: leaseq.Queue) -> None:
    # Added with options (so its time added is recorded), failed once, completed on attempt 2.
    queue.add(leaseq.Item(b"in", id="twice", max_attempts=3))
    first = leased(queue)
    queue.fail(first, "flaky", retry=0.0)
    second = leased(queue)
    assert second.attempt == 2
    queue.complete(second, result=b"out")
    result = queue.result("twice")
    assert result is not None and result.attempts == 2 and result.name is None
    assert result.added_at is not None and result.added_at <= result.finished_at
    job = queue.get("twice")
    assert job is not None and job.state is leaseq.State.DONE
    assert (job.attempts, job.added_at, job.finished_at) == (
        2,
        result.added_at,
        result.finished_at,
    )
    # Added without options: no time added is known.
    queue.add(leaseq.Item(b"in", id="plain"))
    queue.complete(leased(queue), result=b"out")
    plain = queue.result("plain")
    assert plain is not None and plain.added_at is None and plain.attempts == 1


def test_exists_tells_a_mistyped_queue_from_an_empty_one(
    client: leaseq.Client, queue: leaseq.Queue
) -> None:
    assert queue.exists() is False and queue.count(leaseq.State.WAITING) == 0
    queue.add(leaseq.Item(b"x", id="e"))
    assert queue.exists() is True
    assert client.queue(queue.prefix + "-typo").exists() is False


def test_dead_requeue_each_names_what_was_not_dead(queue: leaseq.Queue) -> None:
    queue.add(leaseq.Item(b"x", id="d", max_attempts=1))
    queue.add(leaseq.Item(b"y", id="w"))
    assert queue.fail(leased(queue), "boom", retry=False) is not None
    assert queue.dead_requeue_each(["nosuch", "d", "w"]) == [False, True, False]
    assert queue.count(leaseq.State.DEAD) == 0


def test_keep_result_for(queue: leaseq.Queue, r: redis.Redis) -> None:
    queue.add(leaseq.Item(b"", id="k1"))
    queue.add(leaseq.Item(b"", id="k2", keep_result_for=timedelta(hours=2)))
    queue.complete(leased(queue), result=b"1", keep_result_for=timedelta(minutes=1))
    queue.complete(leased(queue), result=b"2")

    def ttl_of(item_id: str) -> int:
        keys = [k for k in r.scan_iter(f"{queue.prefix}:*{item_id}") if b"result" in k]
        assert len(keys) == 1, keys
        return int(r.pttl(keys[0]))

    assert 55_000 < ttl_of("k1") <= 60_000
    assert 7_100_000 < ttl_of("k2") <= 7_200_000


def finish_when_waiting(
    client: leaseq.Client,
    queue: leaseq.Queue,
    r: redis.Redis,
    finish: Callable[[leaseq.Queue, leaseq.Lease], object],
) -> threading.Thread:
    """Starts a thread that, once the caller's wait blocks on the server, leases the next item
    with a queue of its own and hands it to `finish`; join it after the wait."""
    baseline = blocked_clients(r)
    worker_queue = client.queue(queue.prefix)

    def worker() -> None:
        wait_until_blocked(r, baseline)
        lease = worker_queue.lease()
        assert lease is not None
        finish(worker_queue, lease)

    t = threading.Thread(target=worker)
    t.start()
    return t


def test_wait_result_lets_other_threads_run(
    client: leaseq.Client, queue: leaseq.Queue, r: redis.Redis
) -> None:
    # The main thread waits for the result server-side; another thread (leaseq calls and plain
    # Python) does the work meanwhile. A wait that held the GIL would never return.
    queue.add(leaseq.Item(b"work", id="job"))
    t = finish_when_waiting(
        client, queue, r, lambda q, lease: q.complete(lease, result=lease.data.upper())
    )
    result = queue.wait_result("job", timeout=60)
    t.join(timeout=60)
    assert result is not None and result.data == b"WORK"


def test_wait_result_times_out(queue: leaseq.Queue) -> None:
    assert queue.wait_result("never", 0.1) is None
    assert queue.wait_result("never", timedelta(milliseconds=100)) is None


def test_wait_result_waits_for_a_re_added_ids_new_result(queue: leaseq.Queue) -> None:
    # A daily job re-added under its id: the kept result is yesterday's, and a wait after the
    # add is for today's.
    queue.add(leaseq.Item(b"", id="daily"))
    queue.complete(leased(queue), result=b"monday")
    queue.add(leaseq.Item(b"", id="daily"))
    assert queue.wait_result("daily", 0) is None
    result = queue.result("daily")
    assert result is not None and result.data == b"monday"
    queue.complete(leased(queue), result=b"tuesday")
    waited = queue.wait_result("daily", 5)
    assert waited is not None and waited.data == b"tuesday"


def test_wait_result_raises_when_the_job_dies(
    client: leaseq.Client, queue: leaseq.Queue, r: redis.Redis
) -> None:
    # A death writes no result: the wait (forever here) ends with JobDeadError, saying why.
    queue.add(leaseq.Item(b"work", id="doomed"))
    t = finish_when_waiting(
        client,
        queue,
        r,
        lambda q, lease: q.fail(lease, KeyError("missing"), retry=False),
    )
    with pytest.raises(leaseq.JobDeadError) as dead:
        queue.wait_result("doomed", leaseq.FOREVER)
    t.join(timeout=60)
    assert dead.value.code == "DEAD" and not dead.value.retryable
    assert "doomed" in str(dead.value) and "KeyError: 'missing'" in str(dead.value)
    # Requeued, it is waited for again.
    assert queue.dead_requeue(["doomed"]) == 1
    assert queue.wait_result("doomed", 0) is None


# ---- the read API and the configuration --------------------------------------------------


def test_stats(queue: leaseq.Queue) -> None:
    queue.set_config(stats=True)
    queue.add_batch(
        [
            leaseq.Item(b"", id="a"),
            leaseq.Item(b"", id="b"),
            leaseq.Item(b"", id="c", delay=60),
        ]
    )
    lease = leased(queue)
    queue.complete(lease)
    queue.fail(leased(queue), "x", retry=False)
    queue.add(leaseq.Item(b"", id="d"))
    stats = queue.stats()
    assert (stats.waiting, stats.delayed, stats.leased, stats.dead) == (1, 1, 0, 1)
    assert stats.processing == 0
    assert stats.oldest_waiting is not None and stats.oldest_waiting >= timedelta(0)
    assert stats.now.tzinfo is not None
    assert stats.minutes is not None and len(stats.minutes) == 60
    hour = stats.last_hour
    assert hour is not None
    assert (hour.completed, hour.failed, hour.dead, hour.expired) == (1, 1, 1, 0)
    assert sum(m.completed for m in stats.minutes) == 1
    assert "waiting=1" in repr(stats)
    assert queue.count("waiting") == 1 and queue.count("leased") == 0


def test_stats_counters_are_off_until_the_configuration_turns_them_on(
    queue: leaseq.Queue,
) -> None:
    queue.add(leaseq.Item(b"", id="a"))
    assert queue.complete(leased(queue))
    off = queue.stats()
    # Not counted, which is not the same as nothing happened: None, never zeros.
    assert (off.minutes, off.last_hour) == (None, None)
    assert queue.config().stats is None
    queue.set_config(stats=True)
    assert queue.config().stats is True
    queue.add(leaseq.Item(b"", id="b"))
    assert queue.complete(leased(queue))
    on = queue.stats()
    assert on.last_hour is not None and on.last_hour.completed == 1  # b only
    assert on.minutes is not None and sum(m.completed for m in on.minutes) == 1
    queue.set_config(stats=False)
    assert queue.config().stats is False
    assert queue.stats().last_hour is None


def test_config(queue: leaseq.Queue) -> None:
    empty = queue.config()
    assert empty.max_attempts is None and empty.backoff is None
    assert repr(empty) == "QueueConfig()"
    queue.set_config(
        max_attempts=1,
        backoff=leaseq.Backoff.exponential(timedelta(seconds=2), 60, jitter=False),
        priority=7,
        expires_after=timedelta(hours=1),
        keep_result_for=90,
        dead_max_count=50,
        dead_max_age=timedelta(days=2),
        stats=True,
    )
    queue.set_config(dead_max_count=60)  # one field; the others keep their value
    config = queue.config()
    assert config.max_attempts == 1 and config.priority == 7
    backoff = config.backoff
    assert backoff is not None and backoff.kind == "exponential" and not backoff.jitter
    assert (backoff.base, backoff.cap, backoff.delay) == (
        timedelta(seconds=2),
        timedelta(minutes=1),
        None,
    )
    assert config.expires_after == timedelta(hours=1)
    assert config.keep_result_for == timedelta(seconds=90)
    assert (config.dead_max_count, config.dead_max_age) == (60, timedelta(days=2))
    assert config.stats is True
    assert "max_attempts=1" in repr(config) and "stats=True" in repr(config)
    # Items without options take the stored configuration.
    queue.add(leaseq.Item(b"", id="c"))
    lease = leased(queue)
    assert lease.max_attempts == 1 and lease.backoff == backoff
    assert queue.fail(lease, "once is enough").dead
    queue.reset_config()
    assert queue.config() == empty


def test_backoff_values() -> None:
    fixed = leaseq.Backoff.fixed(1.5)
    assert (fixed.kind, fixed.delay, fixed.base, fixed.cap, fixed.jitter) == (
        "fixed",
        timedelta(seconds=1.5),
        None,
        None,
        False,
    )
    assert fixed == leaseq.Backoff.fixed(timedelta(milliseconds=1500))
    assert fixed != leaseq.Backoff.fixed(2)
    exp = leaseq.Backoff.exponential(1, 10)
    assert exp.jitter and exp == leaseq.Backoff.exponential(1, 10, jitter=True)
    assert exp != leaseq.Backoff.exponential(1, 10, jitter=False)
    assert repr(fixed) == "Backoff.fixed(1.5)"


def test_states_are_strings() -> None:
    assert leaseq.State("dead") is leaseq.State.DEAD
    dead: leaseq.State = leaseq.State.DEAD
    assert dead == "dead" and str(dead) == "dead" and f"{dead}" == "dead"
    assert [s.value for s in leaseq.State] == [
        "waiting",
        "delayed",
        "leased",
        "dead",
        "done",
        "blocked",
    ]


def test_job_of_a_waiting_item(queue: leaseq.Queue) -> None:
    assert queue.get("none") is None
    queue.add(leaseq.Item.from_json([1, 2], id="j"))
    job = queue.get("j")
    assert job is not None
    assert (job.id, job.state, job.json(), job.attempts) == ("j", "waiting", [1, 2], 0)
    assert job.max_attempts is None and job.error is None and job.error_type is None
    assert job.dead_reason is None and job.progress is None and job.result is None
    assert (
        job.leased_at is None and job.lease_expires_at is None and job.lease_ttl is None
    )
    assert job.finished_at is None and not job.cancelled
    assert "waiting" in repr(job)


@pytest.mark.parametrize("n", [1, 3])
def test_lease_batch_waits_for_the_first(queue: leaseq.Queue, n: int) -> None:
    assert queue.lease_batch(n) == []

    def add_later() -> None:
        threading.Event().wait(0.3)
        queue.add_batch([leaseq.Item(b"", id=f"w{i}") for i in range(n)])

    t = threading.Thread(target=add_later)
    t.start()
    leases = queue.lease_batch(n, ttl=30, timeout=30)
    t.join()
    assert 1 <= len(leases) <= n and leases[0].id == "w0"


# ---- ids as bytes, waiting forever, complete_and_lease with a result ----------------------


def test_an_id_that_is_not_utf8_works_in_every_call(
    queue: leaseq.Queue, r: redis.Redis
) -> None:
    # Added by another kind of client (raw commands, as redis-work-queue could).
    raw_id = b"job-\xff\xfe"
    r.set(f"{queue.prefix}:item:".encode() + raw_id, b"payload")
    r.lpush(f"{queue.prefix}:queue", raw_id)
    job = queue.get(raw_id)
    assert job is not None and job.state == "waiting" and job.id_bytes == raw_id
    lease = leased(queue)
    assert lease.id_bytes == raw_id
    assert queue.fail(lease, "boom", retry=False).name == "dead"
    [entry] = queue.list("dead")
    assert entry.id_bytes == raw_id
    assert queue.dead_requeue([raw_id]) == 1
    lease = leased(queue)
    assert queue.complete(lease, result=b"done")
    kept = queue.result(raw_id)
    assert kept is not None and kept.data == b"done"
    waited = queue.wait_result(raw_id, leaseq.FOREVER)
    assert waited is not None and waited.data == b"done"
    # Its lossy reading is another id.
    assert queue.result(raw_id.decode("utf-8", "replace")) is None
    r.set(f"{queue.prefix}:item:".encode() + raw_id, b"again")
    r.lpush(f"{queue.prefix}:queue", raw_id)
    assert queue.cancel(raw_id) == "waiting"
    # str ids are their UTF-8; other types are refused, naming the argument.
    queue.add(leaseq.Item(b"", id="ünï"))
    assert queue.get("ünï".encode()) is not None
    with pytest.raises(leaseq.InvalidArgumentTypeError) as info:
        queue.get(7)  # type: ignore[arg-type]
    assert info.value.argument == "id"
    with pytest.raises(leaseq.InvalidArgumentTypeError) as info:
        queue.dead_requeue([b"ok", 7])  # type: ignore[list-item]
    assert info.value.argument == "ids"
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        queue.cancel(b"")
    assert refused.value.argument == "id"


def test_wait_result_can_wait_forever(
    client: leaseq.Client, queue: leaseq.Queue, r: redis.Redis
) -> None:
    queue.add(leaseq.Item(b"work", id="forever"))
    t = finish_when_waiting(
        client, queue, r, lambda q, lease: q.complete(lease, result=b"at last")
    )
    result = queue.wait_result("forever", leaseq.FOREVER)
    t.join(timeout=60)
    assert result is not None and result.data == b"at last"
    # Zero only reads.
    assert queue.wait_result("nothing", 0) is None


def test_complete_and_lease_keeps_a_result(queue: leaseq.Queue, r: redis.Redis) -> None:
    queue.add_batch([leaseq.Item(b"", id="first"), leaseq.Item(b"", id="second")])
    first = leased(queue)
    done, nxt = queue.complete_and_lease(first, result=b"r1", keep_result_for=60)
    assert done and nxt is not None and nxt.id == "second"
    kept = queue.result("first")
    assert kept is not None and kept.data == b"r1" and kept.attempts == 1
    assert 0 < r.pttl(f"{queue.prefix}:result:first") <= 60_000
    with pytest.raises(leaseq.InvalidArgumentError) as info:
        queue.complete_and_lease(nxt, keep_result_for=60)
    assert info.value.argument == "keep_result_for"
    with pytest.raises(leaseq.InvalidArgumentError) as info:
        queue.complete_and_lease(nxt, result=b"r2", keep_result_for=0)
    assert info.value.argument == "keep_result_for"
    done, none = queue.complete_and_lease(nxt, ttl=5, result="r2")
    assert done and none is None
    kept = queue.result("second")
    assert kept is not None and kept.data == b"r2"


# ---- the job browser's read API: done items, find, promote (spec/PROTOCOL.md 5.12, 5.22) -----


def test_done_items_find_and_promote(queue: leaseq.Queue) -> None:
    queue.add_batch([leaseq.Item(b"", id=f"i{i}") for i in range(5)])
    first = queue.lease()
    assert first is not None and queue.complete(first, result=b"kept")
    # Completed with a result kept: listed and counted as done, newest first.
    done = queue.list("done")
    assert [e.id for e in done] == ["i0"] and done[0].attempts == 1
    assert done[0].at is not None and done[0].name is None
    assert queue.count(leaseq.State.DONE) == 1
    for lease, kind in zip(
        queue.lease_batch(4), ["Timeout", "Other", "Timeout", "Other"]
    ):
        assert queue.fail(lease, "no", error_type=kind, retry=False).dead
    found = queue.find("dead", error_type="Timeout")
    assert isinstance(found, leaseq.Found)
    assert [e.id for e in found.entries] == ["i1", "i3"]
    assert (found.next, found.examined) == (None, 4)
    assert all(e.error_type == "Timeout" for e in found.entries)
    # At most `count` matches; `next` goes on right after the last.
    one = queue.find("dead", error_type="Timeout", count=1)
    assert [e.id for e in one.entries] == ["i1"] and one.next == 1
    rest = queue.find("dead", None, "Timeout", one.next)
    assert [e.id for e in rest.entries] == ["i3"]
    assert queue.find("dead", name="nosuch").entries == []
    with pytest.raises(leaseq.InvalidArgumentError):
        queue.find("dead", count=1001)
    # Promote: a delayed item waits now; anything else is left alone.
    queue.add(leaseq.Item(b"", id="later", delay=3600))
    assert queue.promote("i1") is False
    assert queue.promote("later") is True
    assert queue.count("delayed") == 0
    job = queue.get("later")
    assert job is not None and job.state == "waiting"
    assert queue.promote(b"later") is False
