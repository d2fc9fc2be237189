"""Recurring jobs: a schedule adds an item at each tick, exactly once however many runners
run; the queue's runners fire it (no separate scheduler process)."""

import os

import leaseq
from leaseq.worker import Job

url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
with leaseq.Client(url) as client:
    queue = client.queue("{reports}")

    # Every night at 03:00 in Berlin (daylight saving time included); after a downtime, the
    # missed nights add one item.
    nightly = leaseq.Schedule(
        cron="0 3 * * *",
        tz="Europe/Berlin",
        item=leaseq.Item(b"nightly", name="report", max_attempts=3),
        missed="once",
    )
    queue.upsert_schedule("nightly-report", nightly)
    # And a heartbeat every second, to see it fire.
    queue.upsert_schedule(
        "beat", leaseq.Schedule(every=1, item=leaseq.Item(b"beat", name="beat"))
    )

    # Any runner of the queue fires the due schedules (the one holding its housekeeping lock).
    seen: list[str] = []

    def beat(job: Job) -> None:
        seen.append(job.id)  # `<schedule>@<tick ms>`: one item per tick
        if len(seen) == 2:
            worker.stop()

    worker = leaseq.Worker(queue, beat)
    worker.run()
    print("two beats ran:", all(i.startswith("beat@") for i in seen))

    # Each schedule's next tick, as the server's clock (page.now) sees it.
    page = queue.schedules()
    for s in page.schedules:
        assert s.next_at is not None
        next_in = max(0, round((s.next_at - page.now).total_seconds()))
        print(f"{s.name}: fired {s.fired}, next in {next_in} s")
    queue.remove_schedule("beat")
    queue.remove_schedule("nightly-report")
