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
    queue.add(leaseq.Item.from_json({"amount": "12.50"}, id="ok"))
    queue.add(leaseq.Item.from_json({"amount": "twelve"}, id="bad", max_attempts=1))

    def parse(amount: str) -> float:
        return float(amount)

    def bill(job: Job) -> None:
        parse(job.json()["amount"])  # raises ValueError for "twelve"

    worker = leaseq.Worker(queue, bill)
    worker.on("dead", lambda *_: worker.stop())
    worker.run()

    # The failed attempt's traceback is kept with the job (at most 16 KiB).
    job = queue.get("bad")
    assert job is not None and job.trace is not None
    print(job.trace.splitlines()[-1])
