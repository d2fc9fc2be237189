import logging
import os
import sys

import leaseq
from leaseq.worker import Job

# Handlers run on several threads at once: log through `logging`, which writes each line whole.
logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(message)s")
log = logging.getLogger("emails")

url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
with leaseq.Client(url) as client:
    queue = client.queue("{emails}")
    for to in ["a@example.com", "b@example.com", ""]:
        queue.add(leaseq.Item.from_json({"to": to}))

    def send(job: Job) -> dict[str, str]:
        to = job.json()["to"]
        if not to:
            raise leaseq.Unrecoverable("no address")  # straight to the dead letters
        log.info("sending to %s (attempt %d)", to, job.attempt)
        return {"sent": to}  # kept as the job's result (bytes, str, or JSON)

    worker = leaseq.Worker(queue, send, concurrency=8)

    # Here the example stops once the queue is drained; a real runner just calls run().
    def stop_when_drained(*_: object) -> None:
        stats = queue.stats()
        if stats.waiting + stats.leased == 0:
            worker.stop()

    worker.on("*", stop_when_drained)
    report = worker.run()
    print(f"{report.completed} completed, {report.dead} dead")
