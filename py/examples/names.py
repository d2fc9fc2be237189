import os

import leaseq
from leaseq.worker import Job

url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
with leaseq.Client(url) as client:
    queue = client.queue("{jobs}")
    queue.set_config(stats=True)  # counts_by_name needs the queue's counters on

    # One queue, several kinds of job: each item names its kind.
    queue.add(leaseq.Item.from_json({"to": "ada@example.com"}, name="send_email"))
    queue.add(leaseq.Item.from_json({"image": "cat.png", "width": 640}, name="resize"))
    queue.add(leaseq.Item.from_json({"report": 7}, name="build_report"))

    def send_email(job: Job) -> None:
        print(f"{job.name}: mail to {job.json()['to']}")

    def resize(job: Job) -> None:
        image = job.json()
        print(f"{job.name}: {image['image']} to {image['width']} px")

    def other(job: Job) -> None:
        # The jobs no name of the dict takes (and those without a name). Without a fallback,
        # they would fail for good, error type NoHandler, and no handler would run.
        print(f"fallback: {job.name}")

    handlers = {"send_email": send_email, "resize": resize}
    worker = leaseq.Worker(queue, handlers, fallback=other)

    # Here the example stops once the queue is drained; a real runner just calls run().
    def stop_when_drained(*_: object) -> None:
        stats = queue.stats()
        if stats.waiting + stats.leased == 0:
            worker.stop()

    worker.on("*", stop_when_drained)
    worker.run()

    # What each kind of job did in the last hour.
    for counts in queue.counts_by_name() or []:
        print(f"{counts.name}: {counts.completed} completed, {counts.dead} dead")
