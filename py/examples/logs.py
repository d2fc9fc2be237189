import logging
import os
import sys

import leaseq
from leaseq.worker import Job

# The runner logs on `leaseq.worker`: its start (queue, URL without password, concurrency) and
# stop at INFO, each failure at WARNING (retried) or ERROR (dead), each success at DEBUG.
logging.basicConfig(
    stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s"
)

url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379")
with leaseq.Client(url) as client:
    queue = client.queue("{invoices}")
    # Random ids (a UUID each), so that every run adds its own two invoices.
    bad = leaseq.Item.from_json({"amount": "twelve"}, max_attempts=1)
    queue.add_batch([leaseq.Item.from_json({"amount": "12.50"}), bad])

    def parse(amount: str) -> float:
        return float(amount)

    def bill(job: Job) -> None:
        parse(job.json()["amount"])  # raises ValueError for "twelve"

    worker = leaseq.Worker(queue, bill)
    worker.on("dead", lambda *_: worker.stop())
    worker.run()

    # The failed attempt's traceback is kept with the job (at most 16 KiB).
    job = queue.get(bad.id)
    assert job is not None and job.trace is not None
    print(job.trace.splitlines()[-1])
