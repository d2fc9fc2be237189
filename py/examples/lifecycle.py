import os
from datetime import datetime, timedelta, timezone

import leaseq

with leaseq.Client(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")) as client:
    queue = client.queue("{lifecycle}")
    # Per-minute counters: off unless the queue turns them on.
    queue.set_config(stats=True)

    # Options ride on the item: not before a delay or a time, higher priority first, a
    # retry policy of its own, a result kept for a while.
    queue.add(leaseq.Item(b"tomorrow", id="later", delay=timedelta(days=1)))
    new_year = datetime(2100, 1, 1, tzinfo=timezone.utc)
    queue.add(leaseq.Item(b"new year", run_at=new_year))
    queue.add(leaseq.Item(b"urgent", id="urgent", priority=10, keep_result_for=3600))
    queue.add(
        leaseq.Item(
            b"flaky",
            id="flaky",
            max_attempts=2,
            backoff=leaseq.Backoff.exponential(base=0.01, cap=60),
        )
    )

    # Highest priority first; complete with a result that callers can read or wait for.
    lease = queue.lease()
    assert lease is not None and lease.id == "urgent"
    queue.progress(lease, "half way")
    queue.complete(lease, result=b"done: 42")
    result = queue.wait_result("urgent", timeout=5)  # server-side wait; Ctrl-C works
    assert result is not None
    print(result.data, result.attempts, result.finished_at)

    # fail: retried after the item's backoff while it has attempts left, then dead.
    # retry=<seconds> picks the delay, retry=False makes it dead at once.
    lease = queue.lease()
    assert lease is not None
    try:
        raise ConnectionError("smtp refused")
    except ConnectionError as err:
        # The message is "smtp refused", the type "ConnectionError".
        outcome = queue.fail(lease, err)
    print(outcome, outcome.retry_in)  # retrying 0:00:00.0...
    lease = queue.lease(timeout=5)
    assert lease is not None and lease.attempt == 2
    assert queue.fail(lease, "still refused", retry=False).dead

    # The read API: one item, a page of a state, counts and figures.
    job = queue.get("flaky")
    assert job is not None and job.state == leaseq.State.DEAD
    print(job.state, job.attempts, job.error, job.error_type, job.finished_at)
    for entry in queue.list("dead"):
        print("dead:", entry.id, entry.error)
    stats = queue.stats()
    assert stats.last_hour is not None  # None while the queue's counters are off
    print(stats.waiting, stats.delayed, stats.dead, stats.last_hour.failed)

    # Dead letters go back with their attempts reset (or are purged); cancel removes an item.
    assert queue.dead_requeue(["flaky"]) == 1
    assert queue.cancel("later") == leaseq.State.DELAYED

    # Defaults for every item of the queue, stored in Redis for every client and language.
    backoff = leaseq.Backoff.fixed(timedelta(seconds=30))
    queue.set_config(max_attempts=5, backoff=backoff)
    print(queue.config())
    queue.reset_config()
